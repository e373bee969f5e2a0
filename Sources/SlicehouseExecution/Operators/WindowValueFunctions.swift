// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Window functions that return one of the argument's values: LAG/LEAD, FIRST_VALUE,
/// LAST_VALUE, NTH_VALUE, MIN and MAX.
///
/// Each evaluator picks, for every position, the *input row* whose argument value is the
/// result (-1 for none: NULL, or LAG/LEAD's default); `WindowOperator` then gathers the
/// argument column once with a typed kernel. Only MIN/MAX compare values.
enum WindowValueFunctions {

    // MARK: - LAG / LEAD

    /// LAG (`back` > 0) or LEAD (`back` < 0) by `|back|` rows within the partition; 0 is
    /// the current row. With `ignoreNulls` (`nonNull` = prefix counts from
    /// `WindowKernels.nonNullPrefix`, nil when the argument has no NULLs) the offset counts
    /// only non-NULL values other than the current row.
    static func shifted(_ layout: WindowLayout, back: Int, ignoreNulls: Bool, nonNull: [Int]?) -> [Int32] {
        let n = layout.count
        var out = [Int32](filled: -1, count: n)
        if ignoreNulls, back != 0, let nonNull {
            let positions = WindowKernels.nonNullPositions(nonNull)
            out.withUnsafeMutableBufferPointer { o in
                layout.order.withUnsafeBufferPointer { ord in
                    nonNull.withUnsafeBufferPointer { c in
                        positions.withUnsafeBufferPointer { nn in
                            layout.forEachPartition { ps, pe in
                                for i in ps..<pe {
                                    if back > 0 {
                                        // Non-NULLs before i in the partition: nn[c[ps] ..< c[i]].
                                        if back <= c[i] - c[ps] { o[i] = ord[nn[c[i] - back]] }
                                    } else {
                                        // Non-NULLs after i: nn[c[i+1] ..< c[pe]]; back > Int.min here.
                                        let k = -back
                                        if k <= c[pe] - c[i + 1] { o[i] = ord[nn[c[i + 1] + k - 1]] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return out
        }
        out.withUnsafeMutableBufferPointer { o in
            layout.order.withUnsafeBufferPointer { ord in
                layout.forEachPartition { ps, pe in
                    for i in ps..<pe {
                        // Target i - back, when it stays inside [ps, pe) (compared without overflow).
                        if back >= 0 ? back <= i - ps : back >= i - (pe - 1) { o[i] = ord[i - back] }
                    }
                }
            }
        }
        return out
    }

    // MARK: - FIRST_VALUE / LAST_VALUE / NTH_VALUE

    /// FIRST_VALUE over the frames `[lo, hi)`; with `ignoreNulls`, the first non-NULL value.
    static func firstValue(_ layout: WindowLayout, lo: [Int], hi: [Int], ignoreNulls: Bool, nonNull: [Int]?) -> [Int32] {
        nthValue(layout, lo: lo, hi: hi, n: 1, ignoreNulls: ignoreNulls, nonNull: nonNull)
    }

    /// LAST_VALUE over the frames `[lo, hi)`; with `ignoreNulls`, the last non-NULL value.
    static func lastValue(_ layout: WindowLayout, lo: [Int], hi: [Int], ignoreNulls: Bool, nonNull: [Int]?) -> [Int32] {
        let n = layout.count
        var out = [Int32](filled: -1, count: n)
        let positions = ignoreNulls ? nonNull.map(WindowKernels.nonNullPositions) : nil
        out.withUnsafeMutableBufferPointer { o in
            layout.order.withUnsafeBufferPointer { ord in
                lo.withUnsafeBufferPointer { L in
                    hi.withUnsafeBufferPointer { H in
                        if let positions, let nonNull {
                            nonNull.withUnsafeBufferPointer { c in
                                positions.withUnsafeBufferPointer { nn in
                                    for i in 0..<n where c[H[i]] > c[L[i]] { o[i] = ord[nn[c[H[i]] - 1]] }
                                }
                            }
                        } else {
                            for i in 0..<n where H[i] > L[i] { o[i] = ord[H[i] - 1] }
                        }
                    }
                }
            }
        }
        return out
    }

    /// NTH_VALUE(x, k) over the frames `[lo, hi)` (k ≥ 1): the k-th row of the frame, or
    /// with `ignoreNulls` the k-th non-NULL value; NULL when the frame is shorter.
    static func nthValue(_ layout: WindowLayout, lo: [Int], hi: [Int], n k: Int, ignoreNulls: Bool, nonNull: [Int]?) -> [Int32] {
        let n = layout.count
        var out = [Int32](filled: -1, count: n)
        if k < 1 { return out }
        let positions = ignoreNulls ? nonNull.map(WindowKernels.nonNullPositions) : nil
        out.withUnsafeMutableBufferPointer { o in
            layout.order.withUnsafeBufferPointer { ord in
                lo.withUnsafeBufferPointer { L in
                    hi.withUnsafeBufferPointer { H in
                        if let positions, let nonNull {
                            nonNull.withUnsafeBufferPointer { c in
                                positions.withUnsafeBufferPointer { nn in
                                    for i in 0..<n where k - 1 < c[H[i]] - c[L[i]] { o[i] = ord[nn[c[L[i]] + k - 1]] }
                                }
                            }
                        } else {
                            for i in 0..<n where k - 1 < H[i] - L[i] { o[i] = ord[L[i] + k - 1] }
                        }
                    }
                }
            }
        }
        return out
    }

    // MARK: - MIN / MAX

    /// MIN (`isMin`) or MAX of the argument `v` over the frames `[lo, hi)`, skipping NULLs.
    ///
    /// A monotonic deque per partition: since `lo` and `hi` never decrease, every position
    /// enters and leaves the deque at most once, so any frame shape costs O(n). The deque
    /// holds positions whose values strictly improve from back to front; its front is the
    /// frame's extreme. Orderings: integers and decimals numerically, doubles with NaN
    /// above every other value, `false` < `true`, strings by UTF-8 bytes.
    static func minMax(_ layout: WindowLayout, _ v: Vector, isMin: Bool, lo: [Int], hi: [Int]) -> [Int32] {
        let stride = v.isConstant ? 0 : 1
        switch v.data {
        case .int64(let a):
            return a.withUnsafeBufferPointer { p in
                slidingExtreme(layout, v, lo, hi) { x, y in
                    let a = p[x &* stride], b = p[y &* stride]
                    return isMin ? a < b : a > b
                }
            }
        case .int128(let a):
            return a.withUnsafeBufferPointer { p in
                slidingExtreme(layout, v, lo, hi) { x, y in
                    let a = p[x &* stride], b = p[y &* stride]
                    return isMin ? a < b : a > b
                }
            }
        case .double(let a):
            return a.withUnsafeBufferPointer { p in
                slidingExtreme(layout, v, lo, hi) { x, y in
                    let a = p[x &* stride], b = p[y &* stride]
                    // "a precedes b" with NaN last.
                    return isMin ? (a < b || (b.isNaN && !a.isNaN)) : (b < a || (a.isNaN && !b.isNaN))
                }
            }
        case .bool(let a):
            return a.withUnsafeBufferPointer { p in
                slidingExtreme(layout, v, lo, hi) { x, y in
                    let a = p[x &* stride], b = p[y &* stride]
                    return isMin ? (!a && b) : (a && !b)
                }
            }
        case .string(let s):
            return s.bytes.withUnsafeBufferPointer { bytes in
                s.offsets.withUnsafeBufferPointer { o in
                    slidingExtreme(layout, v, lo, hi) { x, y in
                        let xr = x &* stride, yr = y &* stride
                        let xs = Int(o[xr]), xl = Int(o[xr + 1]) - xs
                        let ys = Int(o[yr]), yl = Int(o[yr + 1]) - ys
                        let c = compareBytes(bytes.baseAddress.map { $0 + xs }, xl, bytes.baseAddress.map { $0 + ys }, yl)
                        return isMin ? c < 0 : c > 0
                    }
                }
            }
        }
    }

    /// The deque walk behind `minMax`; `better(x, y)` says input row x's value strictly
    /// beats input row y's.
    @inline(__always)
    private static func slidingExtreme(_ layout: WindowLayout, _ v: Vector, _ lo: [Int], _ hi: [Int],
                                       _ better: (Int, Int) -> Bool) -> [Int32] {
        let n = layout.count
        var out = [Int32](filled: -1, count: n)
        var deque = [Int](filled: 0, count: n)
        let words = v.validity?.words ?? []
        let hasValidity = v.validity != nil
        let constantNull = v.isConstant && v.isNull(0)
        if constantNull { return out }
        out.withUnsafeMutableBufferPointer { o in
            deque.withUnsafeMutableBufferPointer { dq in
                words.withUnsafeBufferPointer { w in
                    layout.order.withUnsafeBufferPointer { ord in
                        lo.withUnsafeBufferPointer { L in
                            hi.withUnsafeBufferPointer { H in
                                layout.forEachPartition { ps, pe in
                                    var head = 0, tail = 0   // dq[head..<tail]
                                    var next = ps            // next position to offer to the deque
                                    for i in ps..<pe {
                                        let l = L[i], h = H[i]
                                        if next < l { next = l }   // skipped positions are never in a later frame
                                        while next < h {
                                            let row = Int(ord[next])
                                            if !hasValidity || v.isConstant || OperatorKernels.bit(w, row) {
                                                while tail > head && !better(Int(ord[dq[tail - 1]]), row) { tail -= 1 }
                                                dq[tail] = next
                                                tail += 1
                                            }
                                            next += 1
                                        }
                                        while head < tail && dq[head] < l { head += 1 }
                                        if head < tail { o[i] = ord[dq[head]] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
