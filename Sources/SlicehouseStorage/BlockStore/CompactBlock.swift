// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A decoded block as the cache keeps it: each 64-bit integer piece (integers, dates,
/// timestamps, scaled decimals) held as its values' differences from the piece's
/// smallest value, in 1, 2, 3 or 4 bytes each — whichever holds the piece's span
/// (`NarrowIntegers`) — and
/// widened back into a piece of its own when a scan reaches it. Pieces that do not
/// narrow (spans of 2^32 and more, constants) and pieces of other types are kept as
/// decoded.
///
/// Decoded pieces held every integer in 8 bytes: at TPC-H SF 1 the cache held about
/// 1 GB by the last query, most of it lineitem's dates, keys, quantities and prices,
/// whose pieces span a few hundred days or a few million keys. Widening a piece is a
/// loop of loads, adds and stores over 2,048 values into a buffer the allocator hands
/// back warm, cheaper than reading the wide values back from memory.
///
/// Cut exactly as `DecodedBlock` cuts (the slice's multiples of `Chunk.capacity` rows),
/// so a scan's chunks are still whole pieces. Immutable; shared by concurrent scans.
public final class CompactBlock: @unchecked Sendable {
    public enum Piece: Sendable {
        /// Kept as decoded.
        case wide(Vector)
        /// `count` values, value i = `base +` difference i of `width` bytes in `bytes`
        /// (`NarrowIntegers`).
        case narrow(base: Int64, width: Int, count: Int, bytes: [UInt8], validity: Validity?)
    }

    public let firstRow: Int
    public let type: DataType
    public let pieces: [Piece]
    /// The slice row where piece 1 starts.
    private let secondStart: Int
    /// What the pieces hold, for the cache's budget.
    public let bytes: Int

    /// `block` narrowed, or nil when none of its pieces narrows (keep it as it is).
    public static func make(_ block: DecodedBlock, type: DataType) -> CompactBlock? {
        guard type.physical == .int64 else { return nil }
        var pieces: [Piece] = []
        pieces.reserveCapacity(block.pieces.count)
        var narrowed = false
        var bytes = 0
        for v in block.pieces {
            if let p = narrow(v) {
                pieces.append(p)
                narrowed = true
                bytes += p.narrowBytes
            } else {
                pieces.append(.wide(v))
                bytes += BlockCache.approximateBytes(v) + 64
            }
        }
        guard narrowed else { return nil }
        return CompactBlock(firstRow: block.firstRow, type: type, pieces: pieces, bytes: bytes)
    }

    private init(firstRow: Int, type: DataType, pieces: [Piece], bytes: Int) {
        self.firstRow = firstRow
        self.type = type
        self.pieces = pieces
        self.bytes = bytes
        secondStart = (firstRow / Chunk.capacity + 1) * Chunk.capacity
    }

    /// `v` as differences from its smallest value, when they fit in 4 bytes or fewer.
    /// (The COPY's held rows use it too: `HeldRows`.)
    static func narrow(_ v: Vector) -> Piece? {
        guard !v.isConstant, case .int64(let a) = v.data, !a.isEmpty else { return nil }
        let n = a.count
        var lo = Int64.max, hi = Int64.min
        a.withUnsafeBufferPointer { p in
            for x in p {
                lo = min(lo, x)
                hi = max(hi, x)
            }
        }
        let (span, overflow) = hi.subtractingReportingOverflow(lo)
        guard !overflow, let width = NarrowIntegers.width(span: UInt64(span)) else { return nil }
        let size = NarrowIntegers.byteCount(count: n, width: width)
        let bytes = [UInt8].building(capacity: size, placeholder: 0) { out, count in
            a.withUnsafeBufferPointer { p in
                guard let src = p.baseAddress, let dst = out.baseAddress else { return }
                let raw = UnsafeMutableRawPointer(dst)
                switch width {
                case 1: store(src, n, lo, Narrow1.self, raw)
                case 2: store(src, n, lo, Narrow2.self, raw)
                case 3: store(src, n, lo, Narrow3.self, raw)
                default: store(src, n, lo, Narrow4.self, raw)
                }
            }
            count = size
        }
        return .narrow(base: lo, width: width, count: n, bytes: bytes, validity: v.validity)
    }

    @inline(__always)
    private static func store<C: NarrowCell>(_ src: UnsafePointer<Int64>, _ n: Int, _ lo: Int64, _: C.Type,
                                             _ dst: UnsafeMutableRawPointer) {
        // In order: a three-byte value's store writes a fourth byte the next one overwrites
        // (the last one's lands on the array's extra byte).
        for i in 0..<n { C.store(dst, i, UInt64(bitPattern: src[i] &- lo)) }
    }

    @inline(__always)
    fileprivate static func widen<C: NarrowCell>(_ src: UnsafeRawPointer, _: C.Type, _ n: Int, _ base: Int64,
                                                 _ dst: UnsafeMutablePointer<Int64>) {
        for i in 0..<n { dst[i] = base &+ Int64(bitPattern: C.load(src, i)) }
    }

    /// Piece `i` as a vector of its own (a wide piece is handed on as it is).
    public func vector(_ i: Int) -> Vector { pieces[i].vector(type: type) }

    /// The index of the piece holding slice row `row` (of this block) and the row's offset in it.
    @inline(__always)
    public func place(of row: Int) -> (piece: Int, offset: Int) {
        if row < secondStart { return (0, row - firstRow) }
        return (1 + (row - secondStart) / Chunk.capacity, (row - secondStart) % Chunk.capacity)
    }

    /// The values of slice rows `first + rows[i]` (all in one piece), read from the narrow
    /// values without widening the piece (a scan's few kept rows of a range).
    public func gather(_ rows: [Int32], first: Int) -> Vector {
        let (i, offset) = place(of: first)
        switch pieces[i] {
        case .wide(let v):
            return v.gather(offset == 0 ? rows : rows.map { $0 &+ Int32(truncatingIfNeeded: offset) })
        case .narrow(let base, let width, _, let bytes, let validity):
            // One loop per width: no switch on the width per value.
            @inline(__always) func read<C: NarrowCell>(_: C.Type, _ raw: UnsafeRawBufferPointer) -> [Int64] {
                guard let src = raw.baseAddress else { return [] }
                return [Int64].building(capacity: rows.count, placeholder: 0) { out, count in
                    for (k, r) in rows.enumerated() { out[k] = base &+ Int64(bitPattern: C.load(src, offset &+ Int(r))) }
                    count = rows.count
                }
            }
            let values = bytes.withUnsafeBytes { raw -> [Int64] in
                switch width {
                case 1: return read(Narrow1.self, raw)
                case 2: return read(Narrow2.self, raw)
                case 3: return read(Narrow3.self, raw)
                default: return read(Narrow4.self, raw)
                }
            }
            var out: Validity? = nil
            if let validity {
                var nv = Validity(allValid: rows.count)
                var anyNull = false
                for (k, r) in rows.enumerated() where !validity.isValid(offset + Int(r)) {
                    nv.setInvalid(k)
                    anyNull = true
                }
                out = anyNull ? nv : nil
            }
            return Vector(type: type, data: .int64(values), validity: out)
        }
    }

    /// The rows among `first ..< first + count` (0-based from `first`; of `selection` when
    /// given, which the caller has cleared of deleted rows) whose value lies in
    /// `low ... high` and is not NULL, tested on the narrow values themselves: the bounds
    /// are moved by the piece's base instead of widening every value (a scan's row check
    /// over a cached column, TPC-DS q28's `ss_quantity BETWEEN 0 AND 5`). nil for a wide
    /// piece: the caller tests the widened values.
    public func keep(from first: Int, count n: Int, low: Int64, high: Int64, selection: [Int32]?) -> [Int32]? {
        let (i, offset) = place(of: first)
        guard case .narrow(let base, let width, let stored, let bytes, let validity) = pieces[i],
              offset + n <= stored else { return nil }
        let top = Int64(NarrowIntegers.largest(width: width))
        // value = base + u, so low <= value <= high is low - base <= u <= high - base
        // (a difference past Int64's range saturates: it lies beyond every u either way).
        @inline(__always) func moved(_ x: Int64) -> Int64 {
            let (d, overflow) = x.subtractingReportingOverflow(base)
            return overflow ? (x < 0 ? .min : .max) : d
        }
        let lo = moved(low), hi = moved(high)
        if low > high || hi < 0 || lo > top { return [] }
        let from = UInt64(max(lo, 0)), span = UInt64(min(hi, top)) &- from
        let nullable = validity != nil
        let words = validity?.words ?? []
        if nullable && words.count << 6 < offset + n { return nil }
        @inline(__always) func run<C: NarrowCell>(_: C.Type, _ raw: UnsafeRawBufferPointer) -> [Int32] {
            guard let src = raw.baseAddress else { return [] }
            return words.withUnsafeBufferPointer { wp in
                // An empty array may still have a base address: the NULL bits are read
                // only when there are some.
                let w = nullable ? wp.baseAddress : nil
                return SliceScanner.branchFreeRows(selection, count: n) { r in
                    var hit = Int(unsafeBitCast(C.load(src, offset &+ r) &- from <= span, to: UInt8.self))
                    if let w {
                        let at = offset &+ r
                        hit &= Int(truncatingIfNeeded: (w[at >> 6] >> UInt64(at & 63)) & 1)
                    }
                    return hit
                }
            }
        }
        return bytes.withUnsafeBytes { raw in
            switch width {
            case 1: return run(Narrow1.self, raw)
            case 2: return run(Narrow2.self, raw)
            case 3: return run(Narrow3.self, raw)
            default: return run(Narrow4.self, raw)
            }
        }
    }

    /// Every piece widened (a write re-encoding the block, `BlockCache.decoded`).
    public func decoded() -> DecodedBlock {
        DecodedBlock(pieces: pieces.indices.map { vector($0) }, firstRow: firstRow, secondStart: secondStart)
    }
}

/// A cached `CompactBlock` as one scan reads it: the piece widened last is kept until the
/// scan moves on to the next (a chunk's ranges within one piece widen it once).
public final class CompactReader {
    public let block: CompactBlock
    private var index = -1
    private var current = Vector(type: .bigint, data: .int64([]))

    public init(_ block: CompactBlock) { self.block = block }

    /// The piece holding slice row `row` (of this block) and the row's offset in it.
    public func piece(containing row: Int) -> (vector: Vector, offset: Int) {
        let (i, offset) = block.place(of: row)
        if i != index {
            current = block.vector(i)
            index = i
        }
        return (current, offset)
    }
}

extension CompactBlock.Piece {
    /// What a narrow piece holds: its values, NULL bitmap and headers (0 for a wide one).
    public var narrowBytes: Int {
        guard case .narrow(_, _, _, let b, let validity) = self else { return 0 }
        return b.count + (validity?.words.count ?? 0) * 8 + 96
    }

    /// The values as a vector of their own, of logical type `type` (a wide piece is
    /// handed on as it is).
    public func vector(type: DataType) -> Vector {
        switch self {
        case .wide(let v):
            return v
        case .narrow(let base, let width, let n, let bytes, let validity):
            let values = [Int64].building(capacity: n, placeholder: 0) { out, count in
                bytes.withUnsafeBytes { raw in
                    guard let dst = out.baseAddress, let src = raw.baseAddress else { return }
                    switch width {
                    case 1: CompactBlock.widen(src, Narrow1.self, n, base, dst)
                    case 2: CompactBlock.widen(src, Narrow2.self, n, base, dst)
                    case 3: CompactBlock.widen(src, Narrow3.self, n, base, dst)
                    default: CompactBlock.widen(src, Narrow4.self, n, base, dst)
                    }
                }
                count = n
            }
            return Vector(type: type, data: .int64(values), validity: validity)
        }
    }
}
