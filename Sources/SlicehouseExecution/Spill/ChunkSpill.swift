// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseRuntime

/// Chunks in spill files: what an operator writes when its memory reservation is refused
/// (sort runs, aggregate partitions, grace hash join partitions) and reads back later.
///
/// A chunk is written compacted (the selection applied) and flat (constants repeated),
/// as one frame that is read back with two reads (length, then body):
///
///     frame:   | body length: UInt64 | body |
///     body:    | rows: Int64 | columns: Int64 | column 0 | column 1 | ...
///     column:  | type tag: UInt8 | physical kind: UInt8 | has validity: UInt8 | 0: UInt8 |
///              | type parameter a: Int32 | type parameter b: Int32 |
///              | validity words: UInt64 × ⌈rows/64⌉, only with "has validity" |
///              | values (kind int64/int128/double/bool: rows × its width;
///              |         string: offsets Int32 × (rows + 1) from 0, then offsets[rows] bytes) |
///
/// A vector whose bitmap marks no row NULL is written without one (read back with
/// `validity == nil`); the bits of a written bitmap past `rows` are set, as
/// `Validity(allValid:)` leaves them. The logical type travels with each column, so a
/// reader needs no schema. Integers are in the machine's byte order: a spill file never
/// outlives its process.
public enum ChunkSpill {
    /// Bytes of one column header.
    static let columnHeaderBytes = 12

    /// The body length of `chunk` as `append` writes it (`chunk` compacted and flat).
    static func bodyBytes(_ columns: [Vector], rows: Int) -> Int {
        var total = 16
        let words = (rows + 63) >> 6
        for v in columns {
            total += columnHeaderBytes
            if needsValidity(v, rows: rows) { total += words * 8 }
            switch v.data {
            case .int64: total += rows * 8
            case .int128: total += rows * 16
            case .double: total += rows * 8
            case .bool: total += rows
            case .string(let s): total += (rows + 1) * 4 + Int(s.offsets[rows] &- s.offsets[0])
            }
        }
        return total
    }

    @inline(__always)
    static func needsValidity(_ v: Vector, rows: Int) -> Bool {
        guard let validity = v.validity, rows > 0 else { return false }
        // A short bitmap is treated as NULL past its end (see `writeValidity`).
        if validity.words.count < (rows + 63) >> 6 { return true }
        return validity.nullCount(rows) > 0
    }

    // MARK: Logical types

    static func encode(_ t: DataType) -> (tag: UInt8, a: Int32, b: Int32) {
        switch t {
        case .smallint: return (1, 0, 0)
        case .integer: return (2, 0, 0)
        case .bigint: return (3, 0, 0)
        case .decimal(let p, let s): return (4, Int32(truncatingIfNeeded: p), Int32(truncatingIfNeeded: s))
        case .real: return (5, 0, 0)
        case .double: return (6, 0, 0)
        case .boolean: return (7, 0, 0)
        case .char(let n): return (8, Int32(truncatingIfNeeded: n), 0)
        case .varchar(let n): return (9, Int32(truncatingIfNeeded: n), 0)
        case .date: return (10, 0, 0)
        case .timestamp: return (11, 0, 0)
        case .timestamptz: return (12, 0, 0)
        case .time: return (13, 0, 0)
        case .timetz: return (14, 0, 0)
        case .interval: return (15, 0, 0)
        case .superType: return (16, 0, 0)
        case .varbyte(let n): return (17, Int32(truncatingIfNeeded: n), 0)
        case .hllsketch: return (18, 0, 0)
        case .unknown: return (19, 0, 0)
        case .array(let e): return (20, Int32(truncatingIfNeeded: ArrayElement.allCases.firstIndex(of: e) ?? 0), 0)
        }
    }

    static func decode(tag: UInt8, a: Int32, b: Int32) throws -> DataType {
        switch tag {
        case 1: return .smallint
        case 2: return .integer
        case 3: return .bigint
        case 4: return .decimal(precision: Int(a), scale: Int(b))
        case 5: return .real
        case 6: return .double
        case 7: return .boolean
        case 8: return .char(Int(a))
        case 9: return .varchar(Int(a))
        case 10: return .date
        case 11: return .timestamp
        case 12: return .timestamptz
        case 13: return .time
        case 14: return .timetz
        case 15: return .interval
        case 16: return .superType
        case 17: return .varbyte(Int(a))
        case 18: return .hllsketch
        case 19: return .unknown
        case 20 where Int(a) >= 0 && Int(a) < ArrayElement.allCases.count: return .array(ArrayElement.allCases[Int(a)])
        default: throw corrupt("type tag \(tag)")
        }
    }

    static func corrupt(_ what: String) -> SQLError {
        SQLError.internalError("corrupt spill file: bad \(what)")
    }
}

extension SpillFile {
    /// Append `chunk` as one frame (see `ChunkSpill`): its logical rows, flat, with their
    /// NULLs and types.
    public func appendChunk(_ chunk: Chunk) throws {
        let compact = chunk.compacted()
        let rows = compact.count
        var columns = compact.columns
        for c in columns.indices {
            if columns[c].isConstant {
                columns[c] = columns[c].flattened(count: rows)
            } else if columns[c].count < rows {
                throw SQLError.internalError("spilling a chunk of \(rows) rows with a column of \(columns[c].count)")
            }
        }
        try append(UInt64(ChunkSpill.bodyBytes(columns, rows: rows)))
        try append(Int64(rows))
        try append(Int64(columns.count))
        for v in columns { try appendColumn(v, rows: rows) }
    }

    private func appendColumn(_ v: Vector, rows: Int) throws {
        let (tag, a, b) = ChunkSpill.encode(v.type)
        let hasValidity = ChunkSpill.needsValidity(v, rows: rows)
        let kind: UInt8
        switch v.data {
        case .int64: kind = 0
        case .int128: kind = 1
        case .double: kind = 2
        case .bool: kind = 3
        case .string: kind = 4
        }
        try append(contentsOf: [tag, kind, hasValidity ? 1 : 0, 0] as [UInt8])
        try append(a)
        try append(b)
        if hasValidity, let validity = v.validity { try writeValidity(validity, rows: rows) }
        switch v.data {
        case .int64(let x): try appendPrefix(x, rows)
        case .int128(let x): try appendPrefix(x, rows)
        case .double(let x): try appendPrefix(x, rows)
        case .bool(let x): try appendPrefix(x, rows)
        case .string(let s):
            let base = s.offsets[0]
            if base == 0 {
                try appendPrefix(s.offsets, rows + 1)
            } else {
                try append(contentsOf: s.offsets[0...rows].map { $0 &- base })
            }
            let start = Int(base), end = Int(s.offsets[rows])
            try s.bytes.withUnsafeBytes { try append(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
        }
    }

    /// The first `rows` bits, with the bits past `rows` in the last word set.
    private func writeValidity(_ validity: Validity, rows: Int) throws {
        let n = (rows + 63) >> 6
        var words = validity.words.count >= n ? Array(validity.words[0..<n])
            : validity.words + [UInt64](filled: 0, count: n - validity.words.count)
        if rows & 63 != 0 { words[n - 1] |= ~UInt64(0) << UInt64(rows & 63) }
        try append(contentsOf: words)
    }

    private func appendPrefix<T: BitwiseCopyable>(_ values: [T], _ count: Int) throws {
        try values.withUnsafeBytes { raw in
            try append(UnsafeRawBufferPointer(rebasing: raw[0..<(count * MemoryLayout<T>.stride)]))
        }
    }
}

extension SpillReader {
    /// The next chunk written by `SpillFile.appendChunk`, or nil at the end of the file.
    public mutating func readChunk() throws -> Chunk? {
        if atEnd { return nil }
        let length = try read(UInt64.self)
        guard length >= 16, length <= UInt64(file.size) else { throw ChunkSpill.corrupt("frame length \(length)") }
        let body = try readBytes(count: Int(length))
        return try body.withUnsafeBytes { raw in
            var cursor = SpillCursor(raw: raw)
            let rows = try cursor.int(Int64.self), count = try cursor.int(Int64.self)
            guard rows >= 0, rows < Int64(Int32.max), count >= 0, count <= Int64(raw.count) else {
                throw ChunkSpill.corrupt("chunk header")
            }
            var columns: [Vector] = []
            columns.reserveCapacity(Int(count))
            for _ in 0..<Int(count) { columns.append(try cursor.column(rows: Int(rows))) }
            guard cursor.offset == raw.count else { throw ChunkSpill.corrupt("frame end") }
            return Chunk(columns: columns, count: Int(rows))
        }
    }
}

/// Decodes one frame's body from memory.
private struct SpillCursor {
    let raw: UnsafeRawBufferPointer
    var offset = 0

    mutating func bytes(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n >= 0, n <= raw.count - offset else { throw ChunkSpill.corrupt("length") }
        let out = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + n)])
        offset += n
        return out
    }

    mutating func int<T: FixedWidthInteger & BitwiseCopyable>(_: T.Type) throws -> T {
        try bytes(MemoryLayout<T>.size).loadUnaligned(as: T.self)
    }

    /// `count` values copied out (the body is not aligned for `T`).
    mutating func array<T: BitwiseCopyable>(_: T.Type, _ count: Int) throws -> [T] {
        let src = try bytes(count * MemoryLayout<T>.stride)
        return [T](unsafeUninitializedCapacity: count) { out, initialized in
            if count > 0, let dst = out.baseAddress, let from = src.baseAddress {
                UnsafeMutableRawPointer(dst).copyMemory(from: from, byteCount: src.count)
            }
            initialized = count
        }
    }

    mutating func column(rows: Int) throws -> Vector {
        let head = try bytes(4)
        let tag = head[0], kind = head[1], hasValidity = head[2] != 0
        let a = try int(Int32.self), b = try int(Int32.self)
        let type = try ChunkSpill.decode(tag: tag, a: a, b: b)
        let validity = hasValidity ? Validity(words: try array(UInt64.self, (rows + 63) >> 6)) : nil
        let data: VectorData
        switch kind {
        case 0: data = .int64(try array(Int64.self, rows))
        case 1: data = .int128(try array(Int128.self, rows))
        case 2: data = .double(try array(Double.self, rows))
        case 3: data = .bool(try bytes(rows).map { $0 != 0 })
        case 4:
            let offsets = try array(Int32.self, rows + 1)
            guard offsets[0] == 0, let last = offsets.last, last >= 0 else { throw ChunkSpill.corrupt("string offsets") }
            data = .string(StringArray(bytes: try array(UInt8.self, Int(last)), offsets: offsets))
        default:
            throw ChunkSpill.corrupt("physical kind \(kind)")
        }
        return Vector(type: type, data: data, validity: validity)
    }
}

// MARK: - Memory estimates

extension Vector {
    /// Bytes of heap this vector's buffers hold (their capacity, not only their count),
    /// plus a small fixed overhead: what an operator that keeps it reserves. Buffers shared
    /// with other vectors (copy-on-write) are counted in full by each.
    public var memoryBytes: Int {
        var n = 64 + (validity.map { $0.words.capacity * 8 } ?? 0)
        switch data {
        case .int64(let a): n += a.capacity * 8
        case .int128(let a): n += a.capacity * 16
        case .double(let a): n += a.capacity * 8
        case .bool(let a): n += a.capacity
        case .string(let s): n += s.bytes.capacity + s.offsets.capacity * 4
        }
        return n
    }
}

extension Chunk {
    /// Bytes of heap the chunk's vectors and selection hold (`Vector.memoryBytes`).
    public var memoryBytes: Int {
        var n = 64 + (selection.map { $0.capacity * 4 } ?? 0)
        for v in columns { n += v.memoryBytes }
        return n
    }
}
