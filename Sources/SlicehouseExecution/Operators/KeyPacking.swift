// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Several 64-bit integer keys (integers, DATE, TIMESTAMP, DECIMAL p <= 18) packed side by
/// side into one 64-bit code, when their ranges allow it: column c contributes its value
/// minus its lowest value, in as many bits as its range needs.
///
///     code = (v0 - low0) | (v1 - low1) << width0 | (v2 - low2) << (width0 + width1) | ...
///
/// Within the ranges the code is one-to-one, so equal codes mean equal keys: a hash join
/// on `(cs_item_sk, cs_order_number)` then matches 64-bit codes as it matches a single
/// integer key, with one hash per row and no column-by-column comparison. A value outside
/// its column's range cannot equal any packed key; `pack` reports it.
struct KeyPacking: Equatable {
    /// Per key column: the lowest value and `highest - lowest`.
    let lows: [Int64]
    let spans: [UInt64]
    /// Per key column: where its bits start in the code.
    let shifts: [UInt64]

    /// The packing of the ranges `lows[c]...highs[c]`, or nil when together they need more
    /// than 64 bits (or a range is empty).
    init?(lows: [Int64], highs: [Int64]) {
        guard lows.count == highs.count, !lows.isEmpty else { return nil }
        var spans: [UInt64] = [], shifts: [UInt64] = []
        var used = 0
        for (lo, hi) in zip(lows, highs) {
            guard lo <= hi else { return nil }
            let span = UInt64(bitPattern: hi &- lo)
            shifts.append(UInt64(used))
            used += span == 0 ? 0 : 64 - span.leadingZeroBitCount
            if used > 64 { return nil }
            spans.append(span)
        }
        self.lows = lows
        self.spans = spans
        self.shifts = shifts
    }

    /// The packing that covers the rows `r < n` of `columns` (flat 64-bit vectors) with
    /// `valid[r]`; nil when a column is not 64-bit, no row is valid, or the ranges need more
    /// than 64 bits.
    static func covering(_ columns: [Vector], count n: Int, valid: [Bool]) -> KeyPacking? {
        guard columns.count >= 2, valid.count >= n else { return nil }
        var lows: [Int64] = [], highs: [Int64] = []
        for column in columns {
            guard case .int64(let values) = column.data, !column.isConstant, values.count >= n else { return nil }
            var lo = Int64.max, hi = Int64.min
            values.withUnsafeBufferPointer { vp in
                valid.withUnsafeBufferPointer { kv in
                    for r in 0..<n where kv[r] {
                        let v = vp[r]
                        lo = Swift.min(lo, v)
                        hi = Swift.max(hi, v)
                    }
                }
            }
            if lo > hi { return nil }
            lows.append(lo)
            highs.append(hi)
        }
        return KeyPacking(lows: lows, highs: highs)
    }

    /// The code of every row `rows[k]` of `columns` (flat 64-bit vectors, one per packed
    /// column) into `codes[k]`, and whether all its values lie within the ranges into
    /// `inRange[k]` (a row out of range has a meaningless code and matches no packed key).
    /// NULLs are not looked at: their codes are meaningless too, and callers leave those
    /// rows out by their validity. False when a column is not a 64-bit vector.
    func pack(_ columns: [Vector], rows: [Int32], codes: inout [UInt64], inRange: inout [Bool]) -> Bool {
        guard columns.count == lows.count else { return false }
        let n = rows.count
        codes.removeAll(keepingCapacity: true)
        codes.append(contentsOf: repeatElement(0, count: n))
        inRange.removeAll(keepingCapacity: true)
        inRange.append(contentsOf: repeatElement(true, count: n))
        for (c, column) in columns.enumerated() {
            guard case .int64(let values) = column.data else { return false }
            let low = lows[c], span = spans[c], shift = shifts[c]
            let stride = column.isConstant ? 0 : 1
            values.withUnsafeBufferPointer { vp in
                rows.withUnsafeBufferPointer { rw in
                    codes.withUnsafeMutableBufferPointer { out in
                        inRange.withUnsafeMutableBufferPointer { ok in
                            for k in 0..<n {
                                let d = UInt64(bitPattern: vp[Int(rw[k]) &* stride] &- low)
                                out[k] |= d << shift
                                ok[k] = Self.both(ok[k], d <= span)
                            }
                        }
                    }
                }
            }
        }
        return true
    }

    /// `a && b` with both evaluated, without a branch.
    @inline(__always)
    private static func both(_ a: Bool, _ b: Bool) -> Bool {
        unsafeBitCast(unsafeBitCast(a, to: UInt8.self) & unsafeBitCast(b, to: UInt8.self), to: Bool.self)
    }
}
