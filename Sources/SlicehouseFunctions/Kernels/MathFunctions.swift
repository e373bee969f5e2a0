// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlan

/// Numeric functions: ABS, SIGN, ROUND/TRUNC/CEIL/FLOOR (integers, decimals,
/// doubles), POWER, SQRT, CBRT, EXP, LN, LOG, PI, RANDOM.
///
/// Rounding of decimals and doubles is half away from zero. Domain errors use
/// PostgreSQL's messages (`cannot take square root of a negative number`, ...).
package enum MathKernels {

    // MARK: - ABS, SIGN

    package static func abs(_ v: Vector, resultType: DataType) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(resultType) }
        let validity = Kern.rowValidity(v)
        switch v.data {
        case .int64(let x):
            var hi = Int64.max
            if let r = resultType.integerRange { hi = r.upperBound }
            let f: (Int64) -> (Int64, Bool) = { a in
                if a == Int64.min { return (0, true) }
                let r = a < 0 ? -a : a
                return (r, r > hi)
            }
            let (out, bad) = Kern.map1Checked(x, f)
            if bad && Kern.anyValidRow(validity, x.count, { f(x[$0]).1 }) { throw SQLError.overflow(resultType) }
            return Kern.result(resultType, .int64(out), validity: v.validity, constant: v.isConstant)
        case .int128(let x):
            let (out, bad) = Kern.map1Checked(x) { a -> (Int128, Bool) in a == Int128.min ? (0, true) : (a < 0 ? -a : a, false) }
            if bad && Kern.anyValidRow(validity, x.count, { x[$0] == Int128.min }) { throw SQLError.overflow(resultType) }
            return Kern.result(resultType, .int128(out), validity: v.validity, constant: v.isConstant)
        case .double(let x):
            return Kern.result(resultType, .double(Kern.map1(x) { Swift.abs($0) }), validity: v.validity, constant: v.isConstant)
        default:
            throw SQLError(.undefinedFunction, "function abs(\(v.type.sqlName)) does not exist")
        }
    }

    package static func sign(_ v: Vector, resultType: DataType) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(resultType) }
        let s = resultType.scale
        switch v.data {
        case .int64(let x):
            let unit = s <= 18 ? DecimalMath.pow10Int64[s] : 1
            return Kern.result(resultType, .int64(Kern.map1(x) { $0 > 0 ? unit : ($0 < 0 ? -unit : 0) }),
                               validity: v.validity, constant: v.isConstant)
        case .int128(let x):
            // A wide DECIMAL's sign is DECIMAL(1,0) (64-bit); keep 128 bits only if asked.
            if resultType.physical == .int64 {
                let unit = s <= 18 ? DecimalMath.pow10Int64[s] : 1
                return Kern.result(resultType, .int64(Kern.map1(x) { $0 > 0 ? unit : ($0 < 0 ? -unit : 0) }),
                                   validity: v.validity, constant: v.isConstant)
            }
            let unit = DecimalMath.pow10[min(s, 38)]
            return Kern.result(resultType, .int128(Kern.map1(x) { $0 > 0 ? unit : ($0 < 0 ? -unit : 0) }),
                               validity: v.validity, constant: v.isConstant)
        case .double(let x):
            return Kern.result(resultType, .double(Kern.map1(x) { $0 > 0 ? 1 : ($0 < 0 ? -1 : ($0.isNaN ? .nan : 0)) }),
                               validity: v.validity, constant: v.isConstant)
        default:
            throw SQLError(.undefinedFunction, "function sign(\(v.type.sqlName)) does not exist")
        }
    }

    // MARK: - Rounding

    package enum Mode { case round, trunc, ceil, floor }

    /// `v` (at some scale) rounded to a multiple of `d` (> 0) by `mode`.
    @inline(__always) package static func roundTo<T: FixedWidthInteger & SignedInteger>(_ v: T, _ d: T, _ mode: Mode) -> T {
        if d == 1 { return v }
        let q = v / d, r = v % d
        switch mode {
        case .trunc: return q
        case .floor: return r < 0 ? q - 1 : q
        case .ceil: return r > 0 ? q + 1 : q
        case .round:
            let ar = r < 0 ? 0 - r : r
            if ar >= d - ar { return v < 0 ? q - 1 : q + 1 }
            return q
        }
    }

    /// ROUND/TRUNC/CEIL/FLOOR with an optional digits argument.
    package static func rounding(_ mode: Mode, _ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard let v = args.first else { throw SQLError.internalError("rounding function without arguments") }
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let digitsVector: Vector? = args.count > 1 ? args[1] : nil
        let digits: IntInput? = try digitsVector.map { try StringKernels.intInput($0) }
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(args)
        @inline(__always) func nd(_ i: Int) -> Int64 { digits?[i] ?? 0 }

        if case .double(let x) = v.data {
            let vc = v.isConstant
            var out = [Double](filled: 0, count: len)
            for i in 0..<len {
                let a = x[vc ? 0 : i]
                let k = max(-300, min(300, nd(i)))
                let rule: FloatingPointRoundingRule
                switch mode {
                case .round: rule = .toNearestOrAwayFromZero
                case .trunc: rule = .towardZero
                case .ceil: rule = .up
                case .floor: rule = .down
                }
                if k == 0 { out[i] = a.rounded(rule); continue }
                let f = Foundation.pow(10.0, Double(k))
                let r = (a * f).rounded(rule) / f
                out[i] = r.isFinite ? r : a
            }
            return Kern.result(resultType, .double(out), validity: validity, constant: constant)
        }
        // Exact numerics: compute in Int128.
        let x = try Kern.wideInts(v)
        let vc = v.isConstant
        let s = v.type.scale
        let ts = resultType.scale
        let (lo, hi) = CastKernels.bounds(resultType)
        var out = [Int128](filled: 0, count: len)
        for i in 0..<len {
            let a = x[vc ? 0 : i]
            let k = max(-100, min(100, nd(i)))
            var r = a
            if k < Int64(s) {
                let drop = Int64(s) - k
                if drop > 38 {
                    r = 0
                } else {
                    let d = DecimalMath.pow10[Int(drop)]
                    let q = roundTo(a, d, mode)
                    let (m, o) = q.multipliedReportingOverflow(by: d)
                    if o { if Kern.valid(validity, i) { throw CastKernels.exactOverflow(resultType) }; continue }
                    r = m
                }
            }
            // Express at the result scale (exact: the dropped digits are zero).
            if ts < s {
                r = r / DecimalMath.pow10[s - ts]
            } else if ts > s {
                let (m, o) = r.multipliedReportingOverflow(by: DecimalMath.pow10[min(ts - s, 38)])
                if o { if Kern.valid(validity, i) { throw CastKernels.exactOverflow(resultType) }; continue }
                r = m
            }
            if (r < lo || r > hi) && Kern.valid(validity, i) { throw CastKernels.exactOverflow(resultType) }
            out[i] = r
        }
        let data: VectorData = resultType.physical == .int128 ? .int128(out) : .int64(Kern.map1(out) { Int64(truncatingIfNeeded: $0) })
        return Kern.result(resultType, data, validity: validity, constant: constant)
    }

    // MARK: - Floating-point functions

    /// A double function with a per-value domain check (`error` returns the message for a bad input).
    package static func unaryDouble(_ v: Vector, resultType: DataType, _ f: (Double) -> Double,
                            error: (Double, Double) -> SQLError?) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(resultType) }
        let x = try Kern.doubles(v)
        let validity = Kern.rowValidity(v)
        var out = [Double](filled: 0, count: x.count)
        for i in 0..<x.count {
            let r = f(x[i])
            out[i] = r
        }
        for i in 0..<x.count where Kern.valid(validity, i) {
            if let e = error(x[i], out[i]) { throw e }
        }
        return Kern.result(resultType, .double(out), validity: v.validity, constant: v.isConstant)
    }

    package static func sqrt(_ v: Vector, resultType: DataType) throws -> Vector {
        try unaryDouble(v, resultType: resultType, { $0.squareRoot() }) { a, _ in
            a < 0 ? SQLError(.invalidParameter, "cannot take square root of a negative number") : nil
        }
    }
    package static func cbrt(_ v: Vector, resultType: DataType) throws -> Vector {
        try unaryDouble(v, resultType: resultType, { x in
            // One Newton step fixes the last-bit error of some libm cube roots (cbrt(27) = 3 exactly).
            let r = Foundation.cbrt(x)
            guard r.isFinite, r != 0 else { return r }
            let refined = r - (r * r * r - x) / (3 * r * r)
            return Swift.abs(refined * refined * refined - x) <= Swift.abs(r * r * r - x) ? refined : r
        }) { _, _ in nil }
    }
    package static func exp(_ v: Vector, resultType: DataType) throws -> Vector {
        try unaryDouble(v, resultType: resultType, { Foundation.exp($0) }) { a, r in
            r.isInfinite && a.isFinite ? ArithmeticKernels.floatOverflow : nil
        }
    }
    package static func ln(_ v: Vector, base10: Bool, resultType: DataType) throws -> Vector {
        try unaryDouble(v, resultType: resultType, { base10 ? Foundation.log10($0) : Foundation.log($0) }) { a, _ in
            if a == 0 { return SQLError(.invalidParameter, "cannot take logarithm of zero") }
            if a < 0 { return SQLError(.invalidParameter, "cannot take logarithm of a negative number") }
            return nil
        }
    }

    package static func power(_ a: Vector, _ b: Vector, resultType: DataType, n: Int) throws -> Vector {
        if Kern.isConstNull(a) || Kern.isConstNull(b) { return Kern.constNull(resultType) }
        let x = try Kern.doubles(a), y = try Kern.doubles(b)
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let out = Kern.map2(x, a.isConstant, y, b.isConstant, len) { Foundation.pow($0, $1) }
        for i in 0..<len where Kern.valid(validity, i) {
            let p = x[a.isConstant ? 0 : i], q = y[b.isConstant ? 0 : i]
            if p == 0 && q < 0 { throw SQLError(.invalidParameter, "zero raised to a negative power is undefined") }
            if p < 0 && q.rounded(.towardZero) != q && q.isFinite {
                throw SQLError(.invalidParameter, "a negative number raised to a non-integer power yields a complex result")
            }
            if out[i].isInfinite && p.isFinite && q.isFinite { throw ArithmeticKernels.floatOverflow }
        }
        return Kern.result(resultType, .double(out), validity: validity, constant: constant)
    }

    /// A function of two doubles defined everywhere (ATAN2).
    package static func binaryDouble(_ a: Vector, _ b: Vector, resultType: DataType, n: Int,
                             _ f: (Double, Double) -> Double) throws -> Vector {
        if Kern.isConstNull(a) || Kern.isConstNull(b) { return Kern.constNull(resultType) }
        let x = try Kern.doubles(a), y = try Kern.doubles(b)
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let out = Kern.map2(x, a.isConstant, y, b.isConstant, len, f)
        return Kern.result(resultType, .double(out), validity: validity, constant: constant)
    }

    package static func pi(resultType: DataType) -> Vector {
        Vector(type: resultType, data: .double([Double.pi]), isConstant: true)
    }

    /// RANDOM(): a fresh value in [0, 1) for every row.
    package static func random(n: Int, resultType: DataType) -> Vector {
        var g = SystemRandomNumberGenerator()
        let out = (0..<max(n, 0)).map { _ in Double.random(in: 0..<1, using: &g) }
        return Vector(type: resultType, data: .double(out))
    }
}
