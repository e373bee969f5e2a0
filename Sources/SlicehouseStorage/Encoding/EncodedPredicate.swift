// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// `column op constant` evaluated on an encoded block without decoding every value:
/// RUNLENGTH blocks compare once per run, BYTEDICT blocks once per dictionary entry
/// (and once per exception value), then map the result over the codes.
public enum EncodedPredicate {
    /// Which rows of the block satisfy `value op constant`, as a bitmap (bit i set =
    /// row i matches; bits past the last row are 0). NULL rows never match, and a
    /// NULL constant matches nothing.
    ///
    /// Returns nil when this encoding (or this constant's representation) has no
    /// fast path: the caller decodes the block and filters normally. The constant must
    /// be in the column's physical representation (`.int` for int64 kinds — a scaled
    /// decimal at the column's scale, days, microseconds —, `.int`/`.int128` for
    /// int128, `.double` (or `.int`) for floating point, `.bool`, `.string`).
    /// Comparison follows the execution kernels: integers numerically, doubles with
    /// PostgreSQL's NaN rule (NaN equals NaN and sorts above everything, -0 = 0),
    /// false < true, strings by unsigned bytes.
    ///
    /// Throws like `BlockEncoder.decode` on a corrupt block.
    public static func matches(_ bytes: UnsafeRawBufferPointer, type: DataType, encoding: ColumnEncoding,
                               op: CompareOp, constant: Value) throws -> Validity? {
        let h = try BlockEncoder.parse(bytes, type: type, encoding: encoding)
        let rows = h.rows
        if rows == 0 || h.allNull || constant.isNull { return Validity(allNull: rows) }
        guard encoding == .runlength || encoding == .bytedict else { return nil }
        guard compatible(h.kind, constant) else { return nil }

        var dense = [UInt64](filled: 0, count: (h.valid + 63) >> 6)
        var r = EncodingReader(h.payload)
        let n = h.valid
        if encoding == .runlength {
            let (values, lengths) = try RunLength.runs(&r, n) { r, c in try RawCodec.readValues(&r, h.kind, c) }
            guard let hit = evaluate(values, op, constant) else { return nil }
            var pos = 0
            for k in 0..<lengths.count {
                if hit[k] { setBits(&dense, pos, lengths[k]) }
                pos += lengths[k]
            }
        } else {
            let p = try ByteDict.parts(&r, n) { r, c in try RawCodec.readValues(&r, h.kind, c) }
            guard let hitDict = evaluate(p.dict, op, constant) else { return nil }
            let hitExc = try p.exceptions.map { e -> [Bool] in
                guard let x = evaluate(e, op, constant) else { throw corruptBlock("exceptions") }
                return x
            } ?? []
            // Per code: 1 (a hit), 0 (none) or 2 (past the dictionary; the escape code 255).
            var lookup = [UInt64](filled: 2, count: 256)
            for c in 0..<p.dictCount { lookup[c] = hitDict[c] ? 1 : 0 }
            var k = 0
            let present = try p.codes.withPointer { codes -> Bool in
                guard let cp = codes else { return false }
                if !p.escape {
                    // 64 codes to a word.
                    var seen: UInt64 = 0
                    lookup.withUnsafeBufferPointer { t in
                        dense.withUnsafeMutableBufferPointer { d in
                            for w in 0..<d.count {
                                let start = w << 6, count = min(64, n - start)
                                var acc: UInt64 = 0
                                for j in 0..<count {
                                    let x = t[Int(cp.load(fromByteOffset: start + j, as: UInt8.self))]
                                    acc |= (x & 1) << UInt64(j)
                                    seen |= x
                                }
                                d[w] = acc
                            }
                        }
                    }
                    if seen & 2 != 0 { throw corruptBlock("dictionary code past the \(p.dictCount) entries") }
                    return true
                }
                try dense.withUnsafeMutableBufferPointer { d in
                    for i in 0..<n {
                        let c = Int(cp.load(fromByteOffset: i, as: UInt8.self))
                        let hit: Bool
                        if p.escape && c == 255 {
                            guard k < hitExc.count else { throw corruptBlock("more escape codes than exceptions") }
                            hit = hitExc[k]
                            k += 1
                        } else {
                            guard c < p.dictCount else { throw corruptBlock("dictionary code \(c) of \(p.dictCount)") }
                            hit = lookup[c] == 1
                        }
                        if hit { d[i >> 6] |= 1 << UInt64(i & 63) }
                    }
                }
                return true
            }
            guard present else { return Validity(allNull: rows) }
            guard k == hitExc.count else { throw corruptBlock("unused exceptions") }
        }
        try r.expectEnd("payload")

        guard let bm = h.bitmap, let bp = bm.baseAddress else { return Validity(words: dense) }
        // Spread the dense results over the rows (NULL rows stay 0).
        var out = [UInt64](filled: 0, count: (rows + 63) >> 6)
        var k = 0
        for i in 0..<rows where (bp.load(fromByteOffset: i >> 3, as: UInt8.self) >> UInt8(i & 7)) & 1 == 1 {
            if (dense[k >> 6] >> UInt64(k & 63)) & 1 == 1 { out[i >> 6] |= 1 << UInt64(i & 63) }
            k += 1
        }
        return Validity(words: out)
    }

    /// Number of matching rows in a bitmap returned by `matches` for `rows` rows.
    public static func count(_ bits: Validity, rows: Int) -> Int { rows - bits.nullCount(rows) }

    static func compatible(_ kind: PhysicalType, _ c: Value) -> Bool {
        switch (kind, c) {
        case (.int64, .int), (.int64, .int128), (.int128, .int), (.int128, .int128),
             (.double, .double), (.double, .int), (.bool, .bool), (.string, .string):
            return true
        default: return false
        }
    }

    /// Sets bits `start..<start+count`.
    static func setBits(_ words: inout [UInt64], _ start: Int, _ count: Int) {
        var i = start
        let end = start + count
        while i < end {
            let bit = i & 63
            let take = min(64 - bit, end - i)
            let mask: UInt64 = take == 64 ? ~0 : ((1 << UInt64(take)) &- 1) << UInt64(bit)
            words[i >> 6] |= mask
            i += take
        }
    }

    @inline(__always) static func cmp<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }

    @inline(__always) static func cmpDouble(_ a: Double, _ b: Double) -> Int {
        if a.isNaN { return b.isNaN ? 0 : 1 }
        if b.isNaN { return -1 }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// `values[k] op constant` for each entry (nil when the constant's form does not fit).
    static func evaluate(_ values: DenseValues, _ op: CompareOp, _ constant: Value) -> [Bool]? {
        switch (values, constant) {
        case (.int64(let a), .int(let c)): return a.map { op.holds(cmp($0, c)) }
        case (.int64(let a), .int128(let c)): return a.map { op.holds(cmp(Int128($0), c)) }
        case (.int128(let a), .int(let c)): let c = Int128(c); return a.map { op.holds(cmp($0, c)) }
        case (.int128(let a), .int128(let c)): return a.map { op.holds(cmp($0, c)) }
        case (.double(let a), .double(let c)): return a.map { op.holds(cmpDouble($0, c)) }
        case (.double(let a), .int(let c)): let c = Double(c); return a.map { op.holds(cmpDouble($0, c)) }
        case (.bool(let a), .bool(let c)): return a.map { op.holds(cmp($0 ? 1 : 0, c ? 1 : 0)) }
        case (.string(let s), .string(let c)):
            var c = c
            return c.withUTF8 { cb in
                s.bytes.withUnsafeBufferPointer { sb in
                    (0..<s.count).map { k in
                        let st = Int(s.offsets[k]), len = Int(s.offsets[k + 1]) - st
                        return op.holds(compareBytes(sb.baseAddress.map { $0 + st }, len, cb.baseAddress, cb.count))
                    }
                }
            }
        default: return nil
        }
    }
}
