// SPDX-License-Identifier: Apache-2.0
/// Parquet's metadata (the file footer and every page header) is serialised with
/// Apache Thrift's *compact protocol*. This file reads and writes that encoding.
///
/// The parts of the protocol Parquet uses:
///
/// - **Integers** (i16, i32, i64) are zigzag-folded (0, -1, 1, -2, ... become 0, 1, 2, 3, ...)
///   and then written as unsigned LEB128 varints: 7 bits per byte, low group first, the
///   high bit set on every byte but the last. An i8 is a single raw byte.
/// - **double** is 8 bytes of IEEE 754, little-endian.
/// - **binary / string** is a varint byte length followed by the bytes.
/// - **struct** is a sequence of fields closed by a zero byte. Each field starts with a
///   header byte `dddd tttt`: `tttt` is the field's type code and `dddd` is how much the
///   field id grew since the previous field of the same struct (1...15). When the id
///   jumps by more, or goes down, `dddd` is 0 and the id follows as a zigzag varint.
///   Booleans carry their value in the type code (1 = true, 2 = false) and have no body.
/// - **list / set** starts with `ssss tttt`: `tttt` is the element type and `ssss` the
///   element count when below 15; with `ssss` = 15 the count follows as a varint.
///   Boolean elements are one byte each (1 = true).
/// - **map** is a varint count and, when non-empty, a byte with the key and value types.
/// - A **union** is a struct with exactly one field set.
///
/// Unknown fields are skipped by type, which is how newer writers' additions are ignored.

/// Type codes of the compact protocol.
enum ThriftType {
    static let stop: UInt8 = 0
    static let boolTrue: UInt8 = 1
    static let boolFalse: UInt8 = 2
    static let i8: UInt8 = 3
    static let i16: UInt8 = 4
    static let i32: UInt8 = 5
    static let i64: UInt8 = 6
    static let double: UInt8 = 7
    static let binary: UInt8 = 8
    static let list: UInt8 = 9
    static let set: UInt8 = 10
    static let map: UInt8 = 11
    static let `struct`: UInt8 = 12
    static let uuid: UInt8 = 13

    /// Booleans have two codes in a field header (value inside) and one in lists.
    static func isBool(_ t: UInt8) -> Bool { t == boolTrue || t == boolFalse }
}

/// Bounds-checked reader of compact-protocol data in a byte buffer. Every read checks
/// the remaining length, so corrupt or truncated metadata throws instead of crashing.
struct ThriftReader {
    private let base: UnsafeRawPointer?
    let count: Int
    private(set) var position: Int

    /// Nesting allowed while skipping unknown values (guards the stack against
    /// maliciously deep structures).
    static let maxSkipDepth = 64

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress
        count = buffer.count
        position = 0
    }

    var remaining: Int { count - position }

    mutating func readByte() throws -> UInt8 {
        guard position < count, let base else { throw ParquetError.corrupt("metadata ends unexpectedly") }
        let b = base.load(fromByteOffset: position, as: UInt8.self)
        position += 1
        return b
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    mutating func readVarint() throws -> UInt64 {
        try LEB128.read { try readByte() }
    }

    mutating func readI64() throws -> Int64 {
        LEB128.unzigzag(try readVarint())
    }

    mutating func readI32() throws -> Int32 {
        let v = try readI64()
        guard let r = Int32(exactly: v) else { throw ParquetError.corrupt("i32 value \(v) out of range") }
        return r
    }

    mutating func readI16() throws -> Int16 {
        let v = try readI64()
        guard let r = Int16(exactly: v) else { throw ParquetError.corrupt("i16 value \(v) out of range") }
        return r
    }

    mutating func readI8() throws -> Int8 { Int8(bitPattern: try readByte()) }

    mutating func readDouble() throws -> Double {
        let raw = try readRaw(8)
        return Double(bitPattern: raw.loadUnaligned(as: UInt64.self).littleEndian)
    }

    /// `n` raw bytes, as a view into the buffer.
    mutating func readRaw(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n >= 0, n <= remaining, let base else {
            if n == 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
            throw ParquetError.corrupt("metadata ends inside a \(n)-byte value")
        }
        let r = UnsafeRawBufferPointer(start: base + position, count: n)
        position += n
        return r
    }

    /// A binary value, as a view into the buffer.
    mutating func readBinary() throws -> UnsafeRawBufferPointer {
        let n = try readVarint()
        guard n <= UInt64(remaining) else { throw ParquetError.corrupt("binary length \(n) exceeds the metadata") }
        return try readRaw(Int(n))
    }

    mutating func readBytes() throws -> [UInt8] { Array(try readBinary()) }

    /// A string; invalid UTF-8 is repaired (replacement characters), never trusted.
    mutating func readString() throws -> String {
        String(decoding: try readBinary(), as: UTF8.self)
    }

    /// The next field header of the current struct, or nil at its stop byte.
    /// `lastID` is the previous field id of this struct (start at 0).
    mutating func readFieldHeader(lastID: inout Int16) throws -> (id: Int16, type: UInt8)? {
        let b = try readByte()
        if b == ThriftType.stop { return nil }
        let type = b & 0x0F
        let delta = Int16(b >> 4)
        let id: Int16
        if delta == 0 {
            id = try readI16()
        } else {
            let (sum, overflow) = lastID.addingReportingOverflow(delta)
            if overflow { throw ParquetError.corrupt("field id overflow") }
            id = sum
        }
        guard type <= ThriftType.uuid else { throw ParquetError.corrupt("unknown thrift type \(type)") }
        lastID = id
        return (id, type)
    }

    /// A list or set header. The count is checked against the bytes left (every element
    /// takes at least one byte), so a forged count cannot cause a huge allocation.
    mutating func readListHeader() throws -> (count: Int, elementType: UInt8) {
        let b = try readByte()
        let type = b & 0x0F
        var n = UInt64(b >> 4)
        if n == 15 { n = try readVarint() }
        guard n <= UInt64(remaining) else { throw ParquetError.corrupt("list of \(n) elements exceeds the metadata") }
        return (Int(n), type)
    }

    /// A boolean field's value (it lives in the header's type code).
    func boolFieldValue(_ type: UInt8) -> Bool { type == ThriftType.boolTrue }

    /// A boolean list element.
    mutating func readBoolElement() throws -> Bool { try readByte() == 1 }

    /// Skip one value of `type` (used for fields this reader does not know).
    mutating func skip(_ type: UInt8, depth: Int = 0) throws {
        guard depth < Self.maxSkipDepth else { throw ParquetError.corrupt("metadata nested too deeply") }
        switch type {
        case ThriftType.boolTrue, ThriftType.boolFalse:
            return  // field booleans have no body
        case ThriftType.i8:
            _ = try readByte()
        case ThriftType.i16, ThriftType.i32, ThriftType.i64:
            _ = try readVarint()
        case ThriftType.double:
            _ = try readRaw(8)
        case ThriftType.binary:
            _ = try readBinary()
        case ThriftType.uuid:
            _ = try readRaw(16)
        case ThriftType.list, ThriftType.set:
            let (n, t) = try readListHeader()
            for _ in 0..<n {
                if ThriftType.isBool(t) { _ = try readByte() } else { try skip(t, depth: depth + 1) }
            }
        case ThriftType.map:
            let n = try readVarint()
            if n == 0 { return }
            guard n <= UInt64(remaining) else { throw ParquetError.corrupt("map of \(n) entries exceeds the metadata") }
            let kv = try readByte()
            let kt = kv >> 4, vt = kv & 0x0F
            for _ in 0..<Int(n) {
                if ThriftType.isBool(kt) { _ = try readByte() } else { try skip(kt, depth: depth + 1) }
                if ThriftType.isBool(vt) { _ = try readByte() } else { try skip(vt, depth: depth + 1) }
            }
        case ThriftType.struct:
            var last: Int16 = 0
            while let (_, t) = try readFieldHeader(lastID: &last) {
                try skip(t, depth: depth + 1)
            }
        default:
            throw ParquetError.corrupt("unknown thrift type \(type)")
        }
    }

    /// Read a struct, handing each field to `field`, which returns false for fields it
    /// does not handle (those are skipped).
    mutating func readStruct(_ field: (inout ThriftReader, Int16, UInt8) throws -> Bool) throws {
        var last: Int16 = 0
        while let (id, type) = try readFieldHeader(lastID: &last) {
            if try !field(&self, id, type) { try skip(type) }
        }
    }

    /// Read a list of `elementType` elements (others are skipped as corrupt input).
    mutating func readList<T>(of elementType: UInt8, _ element: (inout ThriftReader) throws -> T) throws -> [T] {
        let (n, t) = try readListHeader()
        guard t == elementType || (ThriftType.isBool(t) && ThriftType.isBool(elementType)) else {
            throw ParquetError.corrupt("list of thrift type \(t) where \(elementType) was expected")
        }
        var out: [T] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try element(&self)) }
        return out
    }
}

/// Writer of compact-protocol data into a growing byte array.
struct ThriftWriter {
    private(set) var bytes: [UInt8] = []
    /// The last field id of each open struct (innermost last).
    private var lastIDs: [Int16] = [0]

    init() {}

    mutating func writeByte(_ b: UInt8) { bytes.append(b) }

    mutating func writeVarint(_ v: UInt64) { LEB128.write(v, into: &bytes) }

    mutating func writeZigzag(_ v: Int64) {
        writeVarint(LEB128.zigzag(v))
    }

    mutating func fieldHeader(_ id: Int16, _ type: UInt8) {
        let last = lastIDs[lastIDs.count - 1]
        let delta = Int(id) - Int(last)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type)
        } else {
            bytes.append(type)
            writeZigzag(Int64(id))
        }
        lastIDs[lastIDs.count - 1] = id
    }

    mutating func i32(_ id: Int16, _ v: Int32) { fieldHeader(id, ThriftType.i32); writeZigzag(Int64(v)) }
    mutating func i64(_ id: Int16, _ v: Int64) { fieldHeader(id, ThriftType.i64); writeZigzag(v) }
    mutating func i16(_ id: Int16, _ v: Int16) { fieldHeader(id, ThriftType.i16); writeZigzag(Int64(v)) }
    mutating func i8(_ id: Int16, _ v: Int8) { fieldHeader(id, ThriftType.i8); bytes.append(UInt8(bitPattern: v)) }
    mutating func bool(_ id: Int16, _ v: Bool) { fieldHeader(id, v ? ThriftType.boolTrue : ThriftType.boolFalse) }

    mutating func binary(_ id: Int16, _ v: [UInt8]) {
        fieldHeader(id, ThriftType.binary)
        writeVarint(UInt64(v.count))
        bytes.append(contentsOf: v)
    }

    mutating func string(_ id: Int16, _ s: String) { binary(id, Array(s.utf8)) }

    /// Open a nested struct field; close it with `structEnd()`.
    mutating func structBegin(_ id: Int16) {
        fieldHeader(id, ThriftType.struct)
        lastIDs.append(0)
    }

    /// Open a struct that is a list element (no field header).
    mutating func elementStructBegin() { lastIDs.append(0) }

    /// Write the stop byte of the innermost struct.
    mutating func structEnd() {
        bytes.append(ThriftType.stop)
        if lastIDs.count > 1 { lastIDs.removeLast() }
    }

    /// An empty struct field (used for union members and marker structs).
    mutating func emptyStruct(_ id: Int16) {
        structBegin(id)
        structEnd()
    }

    mutating func listBegin(_ id: Int16, elementType: UInt8, count: Int) {
        fieldHeader(id, ThriftType.list)
        listHeader(elementType: elementType, count: count)
    }

    mutating func listHeader(elementType: UInt8, count: Int) {
        if count < 15 {
            bytes.append(UInt8(count) << 4 | elementType)
        } else {
            bytes.append(0xF0 | elementType)
            writeVarint(UInt64(count))
        }
    }

    mutating func i32List(_ id: Int16, _ values: [Int32]) {
        listBegin(id, elementType: ThriftType.i32, count: values.count)
        for v in values { writeZigzag(Int64(v)) }
    }

    mutating func stringList(_ id: Int16, _ values: [String]) {
        listBegin(id, elementType: ThriftType.binary, count: values.count)
        for v in values {
            let u = Array(v.utf8)
            writeVarint(UInt64(u.count))
            bytes.append(contentsOf: u)
        }
    }

    /// Write the outermost struct's stop byte and hand back the bytes.
    mutating func finish() -> [UInt8] {
        bytes.append(ThriftType.stop)
        lastIDs = [0]
        let out = bytes
        bytes = []
        return out
    }
}
