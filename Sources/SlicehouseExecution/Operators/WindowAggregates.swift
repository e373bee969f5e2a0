// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// COUNT, COUNT(*), SUM, AVG and RATIO_TO_REPORT over window frames.
///
/// Frames arrive as `[lo[p], hi[p])` per position (see `WindowLayout.frameBounds`).
///
/// - Exact arguments (integers, decimals): prefix sums over the sorted positions, so any
///   frame's sum is `P[hi] - P[lo]` in O(1) — O(n) for every frame shape. 64-bit values
///   are summed in Int128 (cannot overflow before 2^63 rows), 128-bit values in a 192-bit
///   `WindowWideSum`; so a frame overflows only when its *own* sum is out of range:
///   SUM of integers → BIGINT (`bigint out of range`), SUM of decimals → DECIMAL(38,s)
///   (`numeric overflow` beyond 38 digits), AVG of integers → BIGINT truncated toward
///   zero, AVG of decimals → DECIMAL(38,s) rounded half away from zero.
/// - Floating point (REAL, DOUBLE → DOUBLE): summed in row order where the frame start is
///   fixed (UNBOUNDED PRECEDING) or the frame is at most `directWidth` rows; otherwise a
///   sliding window that adds entering and subtracts leaving rows with Neumaier
///   compensation, keeping infinities and NaNs as counts so they leave cleanly.
/// - NULLs are skipped; a frame without non-NULL values gives NULL (COUNT gives 0).
enum WindowAggregates {
    /// Largest ROWS frame summed directly (in row order) for floating point.
    static let directWidth = 32

    // MARK: - COUNT

    /// COUNT(x) (`argument` given) or COUNT(*) over the frames.
    static func count(_ layout: WindowLayout, argument: Vector?, lo: [Int], hi: [Int], resultType: DataType) -> Vector {
        let n = layout.count
        let prefix = argument.flatMap { WindowKernels.nonNullPrefix($0, order: layout.order) }
        let out = [Int64].building(capacity: n, placeholder: 0) { o, initialized in
            lo.withUnsafeBufferPointer { L in
                hi.withUnsafeBufferPointer { H in
                    if let prefix {
                        prefix.withUnsafeBufferPointer { c in
                            for i in 0..<n { o.initializeElement(at: i, to: Int64(c[H[i]] - c[L[i]])) }
                        }
                    } else {
                        for i in 0..<n { o.initializeElement(at: i, to: Int64(H[i] - L[i])) }
                    }
                }
            }
            initialized = n
        }
        return Vector(type: resultType, data: .int64(out))
    }

    // MARK: - SUM / AVG

    /// SUM (`isAvg` false) or AVG of `argument` (of type `argumentType`) over the frames.
    static func sumOrAvg(_ layout: WindowLayout, argument: Vector, argumentType: DataType, isAvg: Bool,
                         frame: WindowFrame, lo: [Int], hi: [Int], resultType: DataType) throws -> Vector {
        let counts = WindowKernels.nonNullPrefix(argument, order: layout.order)
        let constantNull = argument.isConstant && argument.isNull(0)
        if constantNull { return Vector.nulls(resultType, count: layout.count) }
        let stride = argument.isConstant ? 0 : 1
        let mode: ExactMode
        if argumentType.isInteger {
            mode = isAvg ? .avgInteger : .sumInteger
        } else {
            mode = isAvg ? .avgDecimal : .sumDecimal
        }
        switch argument.data {
        case .int64(let values):
            let prefix: [Int128] = values.withUnsafeBufferPointer { p in
                exactPrefix(layout.order, argument, stride) { Int128(p[$0]) }
            }
            return try finishExact(prefix, counts: counts, lo: lo, hi: hi, mode: mode, resultType: resultType)
        case .int128(let values):
            let prefix: [WindowWideSum] = values.withUnsafeBufferPointer { p in
                exactPrefix(layout.order, argument, stride) { p[$0] }
            }
            return try finishExact(prefix, counts: counts, lo: lo, hi: hi, mode: mode, resultType: resultType)
        case .double(let values):
            return values.withUnsafeBufferPointer { p in
                floatSumOrAvg(layout, argument, p, stride, isAvg: isAvg, frame: frame, lo: lo, hi: hi, resultType: resultType)
            }
        default:
            throw SQLError.internalError("window \(isAvg ? "AVG" : "SUM") over a \(argumentType) column")
        }
    }

    /// What an exact frame sum becomes.
    enum ExactMode { case sumInteger, sumDecimal, avgInteger, avgDecimal }

    /// `P[p]` = sum of the non-NULL values at positions `0..<p` (n + 1 entries).
    @inline(__always)
    private static func exactPrefix<S: WindowPrefixSum>(_ order: [Int32], _ v: Vector, _ stride: Int,
                                                       _ value: (Int) -> S.Element) -> [S] {
        let n = order.count
        let words = v.validity?.words ?? []
        let hasValidity = v.validity != nil && !v.isConstant
        return words.withUnsafeBufferPointer { w in
            order.withUnsafeBufferPointer { ord in
                [S](unsafeUninitializedCapacity: n + 1) { out, initialized in
                    var acc = S.zero
                    out.initializeElement(at: 0, to: acc)
                    for p in 0..<n {
                        let row = Int(ord[p])
                        if !hasValidity || OperatorKernels.bit(w, row) { acc = acc.adding(value(row &* stride)) }
                        out.initializeElement(at: p + 1, to: acc)
                    }
                    initialized = n + 1
                }
            }
        }
    }

    /// Frame sums from prefix sums, turned into the result per `mode`.
    static func finishExact<S: WindowPrefixSum>(_ prefix: [S], counts: [Int]?, lo: [Int], hi: [Int],
                                                      mode: ExactMode, resultType: DataType) throws -> Vector {
        let n = lo.count
        var valid = [Bool](filled: true, count: n)
        let limit = DecimalMath.maxValue(precision: DataType.maxDecimalPrecision)
        var overflow = false
        let data: VectorData
        switch mode {
        case .sumInteger, .avgInteger:
            var out = [Int64](filled: 0, count: n)
            out.withUnsafeMutableBufferPointer { o in
                valid.withUnsafeMutableBufferPointer { ok in
                    forEachFrame(prefix, counts, lo, hi) { i, sum, count in
                        guard count > 0 else { ok[i] = false; return }
                        guard let s = sum else { overflow = true; return }
                        if mode == .sumInteger {
                            guard let x = Int64(exactly: s) else { overflow = true; return }
                            o[i] = x
                        } else {
                            // The mean of 64-bit values fits 64 bits; division truncates toward zero.
                            o[i] = Int64(truncatingIfNeeded: s / Int128(count))
                        }
                    }
                }
            }
            data = .int64(out)
        case .sumDecimal, .avgDecimal:
            var out = [Int128](filled: 0, count: n)
            out.withUnsafeMutableBufferPointer { o in
                valid.withUnsafeMutableBufferPointer { ok in
                    forEachFrame(prefix, counts, lo, hi) { i, sum, count in
                        guard count > 0 else { ok[i] = false; return }
                        guard let s = sum else { overflow = true; return }
                        if mode == .sumDecimal {
                            if s > limit || s < -limit { overflow = true; return }
                            o[i] = s
                        } else {
                            o[i] = roundedDivision(s, Int128(count))
                        }
                    }
                }
            }
            data = .int128(out)
        }
        if overflow { throw SQLError.overflow(mode == .sumInteger || mode == .avgInteger ? .bigint : resultType) }
        return Vector(type: resultType, data: data, validity: OperatorKernels.validity(from: valid))
    }

    /// Calls `body(position, frameSum, nonNullCount)`; the sum is nil when it does not
    /// fit Int128.
    @inline(__always)
    private static func forEachFrame<S: WindowPrefixSum>(_ prefix: [S], _ counts: [Int]?, _ lo: [Int], _ hi: [Int],
                                                       _ body: (Int, Int128?, Int) -> Void) {
        let n = lo.count
        prefix.withUnsafeBufferPointer { P in
            lo.withUnsafeBufferPointer { L in
                hi.withUnsafeBufferPointer { H in
                    if let counts {
                        counts.withUnsafeBufferPointer { C in
                            for i in 0..<n {
                                let l = L[i], h = H[i]
                                body(i, P[h].difference(P[l]), C[h] - C[l])
                            }
                        }
                    } else {
                        for i in 0..<n {
                            let l = L[i], h = H[i]
                            body(i, P[h].difference(P[l]), h - l)
                        }
                    }
                }
            }
        }
    }

    /// `s / c` rounded half away from zero (c > 0).
    @inline(__always)
    static func roundedDivision(_ s: Int128, _ c: Int128) -> Int128 {
        var q = s / c
        let r = s % c
        if r.magnitude * 2 >= c.magnitude { q += s < 0 ? -1 : 1 }
        return q
    }

    // MARK: - Floating point

    private static func floatSumOrAvg(_ layout: WindowLayout, _ v: Vector, _ p: UnsafeBufferPointer<Double>, _ stride: Int,
                                      isAvg: Bool, frame: WindowFrame, lo: [Int], hi: [Int],
                                      resultType: DataType) -> Vector {
        let n = layout.count
        var sums = [Double](filled: 0, count: n)
        var counts = [Int](filled: 0, count: n)
        let words = v.validity?.words ?? []
        let hasValidity = v.validity != nil && !v.isConstant
        let direct = directFrameWidth(frame).map { $0 <= directWidth } ?? false
        sums.withUnsafeMutableBufferPointer { S in
            counts.withUnsafeMutableBufferPointer { C in
                words.withUnsafeBufferPointer { w in
                    layout.order.withUnsafeBufferPointer { ord in
                        lo.withUnsafeBufferPointer { L in
                            hi.withUnsafeBufferPointer { H in
                                /// The value at position q, or nil for NULL.
                                @inline(__always) func value(_ q: Int) -> Double? {
                                    let row = Int(ord[q])
                                    if hasValidity && !OperatorKernels.bit(w, row) { return nil }
                                    return p[row &* stride]
                                }
                                layout.forEachPartition { ps, pe in
                                    if frame.start == .unboundedPreceding {
                                        // Running sum in row order (lo == ps throughout).
                                        var sum = 0.0, count = 0, next = ps
                                        for i in ps..<pe {
                                            while next < H[i] {
                                                if let x = value(next) { sum += x; count += 1 }
                                                next += 1
                                            }
                                            S[i] = sum; C[i] = count
                                        }
                                    } else if direct {
                                        for i in ps..<pe {
                                            var sum = 0.0, count = 0
                                            for q in L[i]..<H[i] {
                                                if let x = value(q) { sum += x; count += 1 }
                                            }
                                            S[i] = sum; C[i] = count
                                        }
                                    } else {
                                        var acc = WindowSlidingDoubleSum()
                                        var curLo = ps, curHi = ps
                                        for i in ps..<pe {
                                            let l = L[i], h = H[i]
                                            if l >= curHi { acc = WindowSlidingDoubleSum(); curLo = l; curHi = l }
                                            while curHi < h {
                                                if let x = value(curHi) { acc.add(x) }
                                                curHi += 1
                                            }
                                            while curLo < l {
                                                if let x = value(curLo) { acc.remove(x) }
                                                curLo += 1
                                            }
                                            S[i] = acc.value; C[i] = acc.count
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        var valid = [Bool](filled: true, count: n)
        for i in 0..<n where counts[i] == 0 { valid[i] = false; sums[i] = 0 }
        if isAvg {
            for i in 0..<n where counts[i] > 0 { sums[i] /= Double(counts[i]) }
        }
        return Vector(type: resultType, data: .double(sums), validity: OperatorKernels.validity(from: valid))
    }

    /// The number of rows of a ROWS frame whose both bounds are offsets from the current
    /// row (`n PRECEDING`, `CURRENT ROW`, `n FOLLOWING`), or nil for other frames.
    static func directFrameWidth(_ frame: WindowFrame) -> Int? {
        guard frame.rows else { return nil }
        func offset(_ b: WindowFrameBound) -> Int? {
            switch b {
            case .preceding(let k): return k <= 1 << 30 ? -k : nil
            case .currentRow: return 0
            case .following(let k): return k <= 1 << 30 ? k : nil
            default: return nil
            }
        }
        guard let a = offset(frame.start), let b = offset(frame.end) else { return nil }
        return max(0, b - a + 1)
    }

    // MARK: - RATIO_TO_REPORT

    /// RATIO_TO_REPORT(x) = x / SUM(x) over the whole partition, as DOUBLE; NULL when x is
    /// NULL or the partition's sum is 0 (or NULL). Exact sums are computed exactly first.
    static func ratioToReport(_ layout: WindowLayout, argument v: Vector, resultType: DataType) throws -> Vector {
        let n = layout.count
        var out = [Double](filled: 0, count: n)
        var valid = [Bool](filled: false, count: n)
        if v.isConstant && v.isNull(0) { return Vector.nulls(resultType, count: n) }
        let stride = v.isConstant ? 0 : 1
        let words = v.validity?.words ?? []
        let hasValidity = v.validity != nil && !v.isConstant

        /// Two passes per partition: the total (in `S`), then every row's share.
        func run<T, S: WindowPrefixSum>(_ values: [T], _ zero: S, _ wide: (T) -> S.Element, _ ratio: (T, S) -> Double?) {
            values.withUnsafeBufferPointer { p in
                words.withUnsafeBufferPointer { w in
                    layout.order.withUnsafeBufferPointer { ord in
                        out.withUnsafeMutableBufferPointer { o in
                            valid.withUnsafeMutableBufferPointer { ok in
                                layout.forEachPartition { ps, pe in
                                    var total = zero
                                    for i in ps..<pe {
                                        let row = Int(ord[i])
                                        if !hasValidity || OperatorKernels.bit(w, row) { total = total.adding(wide(p[row &* stride])) }
                                    }
                                    for i in ps..<pe {
                                        let row = Int(ord[i])
                                        if hasValidity && !OperatorKernels.bit(w, row) { continue }
                                        if let r = ratio(p[row &* stride], total) { o[i] = r; ok[i] = true }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        switch v.data {
        case .int64(let a):
            run(a, Int128(0), { Int128($0) }) { x, total in total == 0 ? nil : Double(x) / Double(total) }
        case .int128(let a):
            run(a, WindowWideSum.zero, { $0 }) { x, total in total.isZero ? nil : Double(x) / total.doubleValue }
        case .double(let a):
            run(a, WindowDoubleTotal.zero, { $0 }) { x, total in total.sum == 0 ? nil : x / total.sum }
        default:
            throw SQLError.internalError("RATIO_TO_REPORT over a \(v.type) column")
        }
        return Vector(type: resultType, data: .double(out), validity: OperatorKernels.validity(from: valid))
    }
}

// MARK: - Accumulators

/// A running sum that prefix differences can be taken of.
protocol WindowPrefixSum {
    associatedtype Element
    static var zero: Self { get }
    func adding(_ x: Element) -> Self
    /// `self - other`, or nil when it does not fit Int128.
    func difference(_ other: Self) -> Int128?
}

/// Sums of 64-bit values: Int128 cannot overflow before 2^63 rows.
extension Int128: WindowPrefixSum {
    @inline(__always) func adding(_ x: Int128) -> Int128 { self &+ x }
    @inline(__always) func difference(_ other: Int128) -> Int128? { self &- other }
}

/// A 192-bit two's-complement integer (`high` holds bits 128...191): sums of up to 2^63
/// values of 128 bits never overflow it.
struct WindowWideSum: WindowPrefixSum {
    var low: UInt128
    var high: Int64

    static var zero: WindowWideSum { WindowWideSum(low: 0, high: 0) }

    @inline(__always) func adding(_ x: Int128) -> WindowWideSum {
        let (l, carry) = low.addingReportingOverflow(UInt128(truncatingIfNeeded: x))
        return WindowWideSum(low: l, high: high &+ (x < 0 ? -1 : 0) &+ (carry ? 1 : 0))
    }

    @inline(__always) func difference(_ other: WindowWideSum) -> Int128? {
        let (l, borrow) = low.subtractingReportingOverflow(other.low)
        let h = high &- other.high &- (borrow ? 1 : 0)
        let v = Int128(truncatingIfNeeded: l)
        return h == (v < 0 ? -1 : 0) ? v : nil
    }

    var isZero: Bool { low == 0 && high == 0 }

    /// The value as a Double (rounded).
    var doubleValue: Double {
        if let v = difference(.zero) { return Double(v) }
        return Double(high) * 0x1p128 + Double(low)
    }
}

/// A plain floating-point total (RATIO_TO_REPORT over REAL/DOUBLE), summed in row order.
struct WindowDoubleTotal: WindowPrefixSum {
    var sum: Double
    static var zero: WindowDoubleTotal { WindowDoubleTotal(sum: 0) }
    @inline(__always) func adding(_ x: Double) -> WindowDoubleTotal { WindowDoubleTotal(sum: sum + x) }
    func difference(_ other: WindowDoubleTotal) -> Int128? { nil }
}

/// A floating-point window sum supporting removal: finite values in a Neumaier
/// (compensated) sum, infinities and NaNs as counts, so that a value leaving the window
/// takes its effect with it. The sum restarts from zero whenever the window empties.
struct WindowSlidingDoubleSum {
    private var sum = 0.0
    private var compensation = 0.0
    private var nans = 0, positiveInfinities = 0, negativeInfinities = 0
    /// Non-NULL values in the window.
    private(set) var count = 0

    @inline(__always) mutating func add(_ x: Double) {
        count += 1
        if x.isFinite { accumulate(x) } else { countSpecial(x, 1) }
    }

    @inline(__always) mutating func remove(_ x: Double) {
        count -= 1
        if count == 0 {
            self = WindowSlidingDoubleSum()
            return
        }
        if x.isFinite { accumulate(-x) } else { countSpecial(x, -1) }
    }

    @inline(__always) private mutating func accumulate(_ x: Double) {
        let t = sum + x
        if abs(sum) >= abs(x) { compensation += (sum - t) + x } else { compensation += (x - t) + sum }
        sum = t
    }

    @inline(__always) private mutating func countSpecial(_ x: Double, _ d: Int) {
        if x.isNaN { nans += d } else if x > 0 { positiveInfinities += d } else { negativeInfinities += d }
    }

    var value: Double {
        if nans > 0 || (positiveInfinities > 0 && negativeInfinities > 0) { return .nan }
        if positiveInfinities > 0 { return .infinity }
        if negativeInfinities > 0 { return -.infinity }
        return sum + compensation
    }
}
