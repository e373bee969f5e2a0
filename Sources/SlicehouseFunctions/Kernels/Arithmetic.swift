// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// `+ - * / %` and unary minus for integers, decimals (scaled Int64/Int128),
/// floats and dates.
///
/// Operand types are the ones `TypeRules.binaryOperator` chose; the kernel derives
/// the scaling from the operand and result types:
/// - integers: computed in Int64 with overflow reporting, then range-checked against
///   the result type (SMALLINT/INTEGER/BIGINT); division truncates toward zero;
/// - decimals: operands aligned to the natural scale of the operation (max(s1,s2) for
///   + - %, s1+s2 for *), the result rounded half away from zero to the result
///   scale; division computes `round(a·10^(s+s2-s1) / b)` in Int128; every result is
///   checked against the result precision;
/// - floats: IEEE arithmetic, an infinite result from finite operands is an error
///   (`value out of range: overflow`) as in PostgreSQL; REAL results are rounded to Float;
/// - dates: date ± integer days, date − date in days.
///
/// With `narrowing`, a DECIMAL + - * whose result type is wider than 18 digits but whose
/// values provably fit 64 bits (operands held in 64 bits, no rescaling, the operands'
/// largest magnitudes leave room) is computed in Int64 and returned narrowed
/// (`Vector.isNarrowed`): the result precision is then never exceeded, since every Int64
/// has at most 19 digits. Operands may be narrowed whether or not `narrowing` is set.
package enum ArithmeticKernels {

    /// `a op b` over `n` rows (`op` is arithmetic, not a comparison).
    package static func binary(_ op: BinaryOp, _ a: Vector, _ b: Vector, resultType: DataType, n: Int,
                       narrowing: Bool = false) throws -> Vector {
        if Kern.isConstNull(a) || Kern.isConstNull(b) { return Kern.constNull(resultType) }
        if op == .concat { return try StringKernels.concat(a, b, resultType: resultType, n: n) }
        if resultType == .date || (a.type == .date && b.type == .date) {
            return try dateArithmetic(op, a, b, resultType: resultType, n: n)
        }
        switch resultType.physical {
        case .double:
            let x = a.type.physical == .double ? a : try CastKernels.cast(a, to: .double)
            let y = b.type.physical == .double ? b : try CastKernels.cast(b, to: .double)
            return try floating(op, x, y, resultType: resultType, n: n)
        case .int64, .int128:
            if resultType.isInteger && a.type.isInteger && b.type.isInteger {
                return try integer(op, a, b, resultType: resultType, n: n)
            }
            guard resultType.isDecimal || resultType.isInteger else { break }
            let x = a.type.physical == .double || a.type.isString ? try CastKernels.cast(a, to: resultType) : a
            let y = b.type.physical == .double || b.type.isString ? try CastKernels.cast(b, to: resultType) : b
            return try decimal(op, x, y, resultType: resultType, n: n, narrowing: narrowing)
        default:
            break
        }
        throw SQLError(.undefinedFunction,
                       "operator does not exist: \(a.type.sqlName) \(op.rawValue) \(b.type.sqlName)")
    }

    // MARK: - Integers

    package static func integer(_ op: BinaryOp, _ a: Vector, _ b: Vector, resultType: DataType, n: Int) throws -> Vector {
        let x = try Kern.int64s(a), y = try Kern.int64s(b)
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let range = resultType.integerRange ?? (Int64.min...Int64.max)
        let lo = range.lowerBound, hi = range.upperBound
        let ac = a.isConstant, bc = b.isConstant
        let out: [Int64]
        let overflow: (Int64, Int64) -> SQLError = { _, _ in SQLError.overflow(resultType) }
        let divError: (Int64, Int64) -> SQLError = { _, d in d == 0 ? SQLError.divisionByZero : SQLError.overflow(resultType) }
        switch op {
        case .add: out = try Kern.checked2(IntAdd(lo: lo, hi: hi), x, ac, y, bc, len, validity, overflow)
        case .subtract: out = try Kern.checked2(IntSub(lo: lo, hi: hi), x, ac, y, bc, len, validity, overflow)
        case .multiply: out = try Kern.checked2(IntMul(lo: lo, hi: hi), x, ac, y, bc, len, validity, overflow)
        case .divide: out = try Kern.checked2(IntDiv(lo: lo, hi: hi), x, ac, y, bc, len, validity, divError)
        case .modulo: out = try Kern.checked2(IntMod(), x, ac, y, bc, len, validity, divError)
        default: throw SQLError.internalError("\(op.rawValue) is not arithmetic")
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    /// Run a checked row function given as a closure (cold paths); on a flagged row
    /// that is not NULL, throw `error(a, b)`.
    package static func apply<A, B, R>(_ a: [A], _ ac: Bool, _ b: [B], _ bc: Bool, _ len: Int, _ validity: Validity?,
                               _ f: (A, B) -> (R, Bool), _ error: (A, B) -> SQLError) throws -> [R] {
        let (out, bad) = Kern.map2Checked(a, ac, b, bc, len, f)
        if bad {
            for i in 0..<len where Kern.valid(validity, i) {
                let p = a[ac ? 0 : i], q = b[bc ? 0 : i]
                if f(p, q).1 { throw error(p, q) }
            }
        }
        return out
    }

    // MARK: - Decimals

    package static func decimal(_ op: BinaryOp, _ a0: Vector, _ b0: Vector, resultType: DataType, n: Int,
                        narrowing: Bool = false) throws -> Vector {
        var a = a0, b = b0
        // A constant operand of + - % is aligned to the other operand's scale once, up
        // front (`1 - l_discount` then runs as a same-scale subtraction).
        if op == .add || op == .subtract || op == .modulo {
            let target = max(a.type.scale, b.type.scale)
            a = try prescaled(a, to: target)
            b = try prescaled(b, to: target)
        }
        let s1 = a.type.scale, s2 = b.type.scale, s = resultType.scale
        let p = resultType.isInteger ? 19 : resultType.precision
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let natural: Int
        switch op {
        case .multiply: natural = s1 + s2
        case .divide: natural = s
        default: natural = max(s1, s2)
        }
        if abs(natural - s) > 38 || abs(natural - s1) > 38 || abs(natural - s2) > 38 {
            throw SQLError.overflow(resultType)
        }
        let wideResult = resultType.physical == .int128
        // Int64 fast path: every factor and the result fit 18 digits.
        if !wideResult, op != .divide, natural <= 18, s <= 18, p <= 18,
           case .int64(let x) = a.data, case .int64(let y) = b.data {
            let maxAbs = Int64(truncatingIfNeeded: DecimalMath.maxValue(precision: p))
            let out: [Int64] = try decimalOp(op, x, a.isConstant, y, b.isConstant, len, validity,
                                             s1: s1, s2: s2, s: s, natural: natural, maxAbs: maxAbs, resultType: resultType)
            return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
        }
        // Narrowed: a wide result computed in Int64 when it provably fits.
        if narrowing, wideResult, resultType.isDecimal, natural == s, s1 == s || op == .multiply,
           s2 == s || op == .multiply, op == .add || op == .subtract || op == .multiply,
           case .int64(let x) = a.data, case .int64(let y) = b.data,
           Self.fitsInt64(op, x, a.isConstant, y, b.isConstant, len) {
            // No row can wrap (the bound covers NULL rows too): unchecked, and vectorized.
            let out: [Int64]
            switch op {
            case .multiply: out = Kern.map2(x, a.isConstant, y, b.isConstant, len) { $0 &* $1 }
            case .add: out = Kern.map2(x, a.isConstant, y, b.isConstant, len) { $0 &+ $1 }
            default: out = Kern.map2(x, a.isConstant, y, b.isConstant, len) { $0 &- $1 }
            }
            return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
        }
        let maxAbs: Int128 = resultType.isInteger
            ? Int128(resultType.integerRange?.upperBound ?? Int64.max)
            : DecimalMath.maxValue(precision: p)
        let out: [Int128]
        switch (a.data, b.data) {
        case (.int64(let x), .int64(let y)):
            out = try decimalOp(op, x, a.isConstant, y, b.isConstant, len, validity,
                                s1: s1, s2: s2, s: s, natural: natural, maxAbs: maxAbs, resultType: resultType)
        case (.int64(let x), .int128(let y)):
            out = try decimalOp(op, x, a.isConstant, y, b.isConstant, len, validity,
                                s1: s1, s2: s2, s: s, natural: natural, maxAbs: maxAbs, resultType: resultType)
        case (.int128(let x), .int64(let y)):
            out = try decimalOp(op, x, a.isConstant, y, b.isConstant, len, validity,
                                s1: s1, s2: s2, s: s, natural: natural, maxAbs: maxAbs, resultType: resultType)
        case (.int128(let x), .int128(let y)):
            out = try decimalOp(op, x, a.isConstant, y, b.isConstant, len, validity,
                                s1: s1, s2: s2, s: s, natural: natural, maxAbs: maxAbs, resultType: resultType)
        default:
            throw SQLError.internalError("decimal arithmetic on \(a.type.sqlName) and \(b.type.sqlName)")
        }
        if wideResult { return Kern.result(resultType, .int128(out), validity: validity, constant: constant) }
        let narrow = Kern.map(NarrowInt128(), out)
        var lo = Int64.min, hi = Int64.max
        if let r = resultType.integerRange { lo = r.lowerBound; hi = r.upperBound }
        if lo != Int64.min || hi != Int64.max {
            if Kern.anyValidRow(validity, len, { narrow[$0] < lo || narrow[$0] > hi }) { throw SQLError.overflow(resultType) }
        }
        return Kern.result(resultType, .int64(narrow), validity: validity, constant: constant)
    }

    /// Whether `x op y` (+ - * at one scale) cannot leave Int64 on any of `len` rows (NULL
    /// rows included), by the operands' magnitude bounds (`Kern.magnitudeBits`): a product
    /// is below 2^(bx + by), a sum or difference below 2^(max(bx, by) + 1), and either must
    /// stay within 2^62.
    package static func fitsInt64(_ op: BinaryOp, _ x: [Int64], _ xc: Bool, _ y: [Int64], _ yc: Bool, _ len: Int) -> Bool {
        let bx = Kern.magnitudeBits(x, count: xc ? 1 : len), by = Kern.magnitudeBits(y, count: yc ? 1 : len)
        return (op == .multiply ? bx + by : max(bx, by) + 1) <= 62
    }

    /// A constant exact numeric rescaled (exactly) to `scale`; other vectors unchanged.
    package static func prescaled(_ v: Vector, to scale: Int) throws -> Vector {
        guard v.isConstant, v.type.scale < scale, v.type.isInteger || v.type.isDecimal else { return v }
        let intDigits = v.type.precision - v.type.scale
        let p = intDigits + scale
        guard p <= 18 || v.type.precision > 18, p <= DataType.maxDecimalPrecision else { return v }
        return try CastKernels.cast(v, to: .decimal(precision: p, scale: scale))
    }

    /// Power of ten as `T` (exponent within T's range; callers guarantee it).
    @inline(__always) package static func pow10<T: FixedWidthInteger>(_ e: Int, as: T.Type) -> T {
        T(truncatingIfNeeded: DecimalMath.pow10[max(0, min(e, 38))])
    }

    /// `v / d` rounded half away from zero (d > 0).
    @inline(__always) package static func divRound<T: FixedWidthInteger & SignedInteger>(_ v: T, _ d: T) -> T {
        let q = v / d, r = v % d
        let ar = r < 0 ? 0 - r : r
        if ar >= d - ar { return v < 0 ? q - 1 : q + 1 }
        return q
    }

    /// The decimal operation over operand representations A and B, computed in T.
    @inline(__always)
    package static func decimalOp<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger,
                          T: FixedWidthInteger & SignedInteger>(
        _ op: BinaryOp, _ a: [A], _ ac: Bool, _ b: [B], _ bc: Bool, _ len: Int, _ validity: Validity?,
        s1: Int, s2: Int, s: Int, natural: Int, maxAbs: T, resultType: DataType
    ) throws -> [T] {
        let overflow: (A, B) -> SQLError = { _, _ in SQLError.overflow(resultType) }
        let divError: (A, B) -> SQLError = { _, d in d == 0 ? SQLError.divisionByZero : SQLError.overflow(resultType) }
        // Rescaling from the natural scale to the result scale.
        let down: T = natural > s ? pow10(natural - s, as: T.self) : 1
        let up: T = s > natural ? pow10(s - natural, as: T.self) : 1
        let fit = DecFit(down: down, up: up, maxAbs: maxAbs)
        switch op {
        case .add, .subtract:
            let fa = pow10(natural - s1, as: T.self), fb = pow10(natural - s2, as: T.self)
            if fa == 1 && fb == 1 && down == 1 && up == 1 {
                if op == .subtract {
                    return try Kern.checked2(DecSub<A, B, T>(maxAbs: maxAbs), a, ac, b, bc, len, validity, overflow)
                }
                return try Kern.checked2(DecAdd<A, B, T>(maxAbs: maxAbs), a, ac, b, bc, len, validity, overflow)
            }
            let scaled = DecAddScaled<A, B, T>(fa: fa, fb: fb, subtract: op == .subtract, fit: fit)
            return try Kern.checked2(scaled, a, ac, b, bc, len, validity, overflow)
        case .multiply:
            if down == 1 && up == 1 {
                return try Kern.checked2(DecMul<A, B, T>(maxAbs: maxAbs), a, ac, b, bc, len, validity, overflow)
            }
            return try Kern.checked2(DecMulScaled<A, B, T>(fit: fit), a, ac, b, bc, len, validity, overflow)
        case .divide:
            // round(x · 10^e / y) with e = s + s2 - s1 (negative e scales the divisor).
            let e = s + s2 - s1
            if Swift.abs(e) > 38 {
                // The scale factor itself does not fit: every non-NULL quotient overflows.
                if Kern.anyValidRow(validity, len, { _ in true }) { throw SQLError.overflow(resultType) }
                return [T](filled: 0, count: len)
            }
            let fn: T = e > 0 ? pow10(e, as: T.self) : 1
            let fd: T = e < 0 ? pow10(-e, as: T.self) : 1
            return try Kern.checked2(DecDiv<A, B, T>(fn: fn, fd: fd, maxAbs: maxAbs), a, ac, b, bc, len, validity, divError)
        case .modulo:
            let fa = pow10(natural - s1, as: T.self), fb = pow10(natural - s2, as: T.self)
            return try Kern.checked2(DecMod<A, B, T>(fa: fa, fb: fb, fit: fit), a, ac, b, bc, len, validity, divError)
        default:
            throw SQLError.internalError("\(op.rawValue) is not arithmetic")
        }
    }

    // MARK: - Floats

    package static let floatOverflow = SQLError(.numericOutOfRange, "value out of range: overflow")

    package static func floating(_ op: BinaryOp, _ a: Vector, _ b: Vector, resultType: DataType, n: Int) throws -> Vector {
        let x = try Kern.doubles(a), y = try Kern.doubles(b)
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let ac = a.isConstant, bc = b.isConstant
        let overflow: (Double, Double) -> SQLError = { _, _ in floatOverflow }
        let divError: (Double, Double) -> SQLError = { _, d in d == 0 ? SQLError.divisionByZero : floatOverflow }
        var out: [Double]
        switch op {
        case .add: out = try Kern.checked2(FloatAdd(), x, ac, y, bc, len, validity, overflow)
        case .subtract: out = try Kern.checked2(FloatSub(), x, ac, y, bc, len, validity, overflow)
        case .multiply: out = try Kern.checked2(FloatMul(), x, ac, y, bc, len, validity, overflow)
        case .divide: out = try Kern.checked2(FloatDiv(), x, ac, y, bc, len, validity, divError)
        case .modulo: out = try Kern.checked2(FloatMod(), x, ac, y, bc, len, validity, divError)
        default:
            throw SQLError.internalError("\(op.rawValue) is not arithmetic")
        }
        if resultType == .real {
            let (r, bad) = Kern.map1Checked(out) { d -> (Double, Bool) in
                let f = Float(d)
                return (Double(f), f.isInfinite && d.isFinite)
            }
            if bad && Kern.anyValidRow(validity, len, { Float(out[$0]).isInfinite && out[$0].isFinite }) {
                throw floatOverflow
            }
            out = r
        }
        return Kern.result(resultType, .double(out), validity: validity, constant: constant)
    }

    // MARK: - Dates

    /// Smallest and largest day numbers accepted (PostgreSQL's DATE range: 4713 BC to 5874897 AD).
    package static let minDay: Int64 = DateTime.days(year: -4713, month: 11, day: 24)
    package static let maxDay: Int64 = DateTime.days(year: 5_874_897, month: 12, day: 31)
    package static let dateOutOfRange = SQLError(.datetimeOverflow, "date out of range")

    package static func dateArithmetic(_ op: BinaryOp, _ a: Vector, _ b: Vector, resultType: DataType, n: Int) throws -> Vector {
        let x = try Kern.int64s(a), y = try Kern.int64s(b)
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let ac = a.isConstant, bc = b.isConstant
        let rangeError: (Int64, Int64) -> SQLError = { _, _ in dateOutOfRange }
        let out: [Int64]
        switch (op, a.type == .date, b.type == .date) {
        case (.add, true, false), (.add, false, true):
            out = try Kern.checked2(IntAdd(lo: minDay, hi: maxDay), x, ac, y, bc, len, validity, rangeError)
        case (.subtract, true, false):
            out = try Kern.checked2(IntSub(lo: minDay, hi: maxDay), x, ac, y, bc, len, validity, rangeError)
        case (.subtract, true, true):
            let range = resultType.integerRange ?? (Int64.min...Int64.max)
            out = try Kern.checked2(IntSub(lo: range.lowerBound, hi: range.upperBound), x, ac, y, bc, len, validity) { _, _ in
                SQLError.overflow(resultType)
            }
        default:
            throw SQLError(.undefinedFunction,
                           "operator does not exist: \(a.type.sqlName) \(op.rawValue) \(b.type.sqlName)")
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    // MARK: - Unary minus

    package static func negate(_ a: Vector, resultType: DataType) throws -> Vector {
        if Kern.isConstNull(a) { return Kern.constNull(resultType) }
        let validity = Kern.rowValidity(a)
        switch a.data {
        case .int64(let x):
            var lo = Int64.min, hi = Int64.max
            if let r = resultType.integerRange { lo = r.lowerBound; hi = r.upperBound }
            if resultType.isDecimal {
                let m = Int64(truncatingIfNeeded: DecimalMath.maxValue(precision: min(18, resultType.precision)))
                lo = -m; hi = m
            }
            let f: (Int64) -> (Int64, Bool) = { v in
                let (r, o) = Int64(0).subtractingReportingOverflow(v)
                return (r, o || r < lo || r > hi)
            }
            let (out, bad) = Kern.map1Checked(x, f)
            if bad && Kern.anyValidRow(validity, x.count, { f(x[$0]).1 }) { throw SQLError.overflow(resultType) }
            return Kern.result(resultType, .int64(out), validity: a.validity, constant: a.isConstant)
        case .int128(let x):
            let (out, bad) = Kern.map1Checked(x) { v in Int128(0).subtractingReportingOverflow(v) }
            if bad && Kern.anyValidRow(validity, x.count, { x[$0] == Int128.min }) { throw SQLError.overflow(resultType) }
            return Kern.result(resultType, .int128(out), validity: a.validity, constant: a.isConstant)
        case .double(let x):
            return Kern.result(resultType, .double(Kern.map1(x) { -$0 }), validity: a.validity, constant: a.isConstant)
        default:
            throw SQLError(.undefinedFunction, "operator does not exist: - \(a.type.sqlName)")
        }
    }
}

// MARK: - Row operations

/// Int64 addition checked against the result type's range.
package struct IntAdd: RowOp2 {
    package let lo: Int64, hi: Int64
    @inline(__always) package func apply(_ a: Int64, _ b: Int64) -> (Int64, Bool) {
        let (r, o) = a.addingReportingOverflow(b)
        return (r, o || r < lo || r > hi)
    }
}
package struct IntSub: RowOp2 {
    package let lo: Int64, hi: Int64
    @inline(__always) package func apply(_ a: Int64, _ b: Int64) -> (Int64, Bool) {
        let (r, o) = a.subtractingReportingOverflow(b)
        return (r, o || r < lo || r > hi)
    }
}
package struct IntMul: RowOp2 {
    package let lo: Int64, hi: Int64
    @inline(__always) package func apply(_ a: Int64, _ b: Int64) -> (Int64, Bool) {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return (r, o || r < lo || r > hi)
    }
}
/// Integer division truncating toward zero; zero divisors and MIN / -1 fail.
package struct IntDiv: RowOp2 {
    package let lo: Int64, hi: Int64
    @inline(__always) package func apply(_ a: Int64, _ b: Int64) -> (Int64, Bool) {
        if b == 0 || (b == -1 && a == Int64.min) { return (0, true) }
        let r = a / b
        return (r, r < lo || r > hi)
    }
}
package struct IntMod: RowOp2 {
    @inline(__always) package func apply(_ a: Int64, _ b: Int64) -> (Int64, Bool) {
        if b == 0 { return (0, true) }
        if b == -1 { return (0, false) }
        return (a % b, false)
    }
}

/// Bringing a decimal result from its natural scale to the result scale, then
/// checking it against the result precision.
package struct DecFit<T: FixedWidthInteger & SignedInteger> {
    package let down: T, up: T, maxAbs: T
    @inline(__always) package func apply(_ r: T) -> (T, Bool) {
        var v = r
        var o = false
        if down != 1 { v = ArithmeticKernels.divRound(v, down) }
        if up != 1 { (v, o) = v.multipliedReportingOverflow(by: up) }
        return (v, o || v > maxAbs || v < 0 - maxAbs)
    }
}

/// Whether a sum, difference or product failed: it wrapped, or it lies outside ±`maxAbs`
/// (at most 10^38 - 1, so 2·`maxAbs` fits the unsigned type and one unsigned compare
/// tests both bounds). Neither test branches.
@inline(__always)
package func decimalFails<T: FixedWidthInteger & SignedInteger>(_ r: T, wrapped: Bool, maxAbs: T) -> Bool {
    let outside = T.Magnitude(truncatingIfNeeded: r &+ maxAbs) > T.Magnitude(truncatingIfNeeded: maxAbs) &<< 1
    return unsafeBitCast(unsafeBitCast(wrapped, to: UInt8.self) | unsafeBitCast(outside, to: UInt8.self), to: Bool.self)
}

/// Same-scale decimal addition.
///
/// The sum wraps and its overflow is read off the signs (both operands of one sign,
/// the result of the other), rather than from `addingReportingOverflow`: the overflow
/// intrinsic keeps the loop scalar, while sign arithmetic and the range test vectorize
/// (`1 - l_discount` and `1 + l_tax` in 64 bits run on whole vectors).
package struct DecAdd<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let maxAbs: T
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        let a = T(truncatingIfNeeded: x), b = T(truncatingIfNeeded: y)
        let r = a &+ b
        return (r, decimalFails(r, wrapped: ((a ^ r) & (b ^ r)) < 0, maxAbs: maxAbs))
    }
}
/// Same-scale decimal subtraction; overflow as in `DecAdd` (operands of different signs,
/// the result's sign not the first operand's).
package struct DecSub<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let maxAbs: T
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        let a = T(truncatingIfNeeded: x), b = T(truncatingIfNeeded: y)
        let r = a &- b
        return (r, decimalFails(r, wrapped: ((a ^ b) & (a ^ r)) < 0, maxAbs: maxAbs))
    }
}
/// Decimal addition/subtraction with operand alignment and result rescaling.
package struct DecAddScaled<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let fa: T, fb: T
    package let subtract: Bool
    package let fit: DecFit<T>
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        let (p, o1) = T(truncatingIfNeeded: x).multipliedReportingOverflow(by: fa)
        let (q, o2) = T(truncatingIfNeeded: y).multipliedReportingOverflow(by: fb)
        let (r, o3) = subtract ? p.subtractingReportingOverflow(q) : p.addingReportingOverflow(q)
        let (v, o4) = fit.apply(r)
        return (v, o1 || o2 || o3 || o4)
    }
}
/// `x * y` in T with overflow reporting. In 128 bits, operands that fit 64 bits take a
/// plain multiply (their product cannot overflow), avoiding the slow checked 128-bit path.
@inline(__always)
package func checkedProduct<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger,
                    T: FixedWidthInteger & SignedInteger>(_ x: A, _ y: B, as: T.Type) -> (T, Bool) {
    if T.bitWidth == 128, let xs = Int64(exactly: x), let ys = Int64(exactly: y) {
        return (T(truncatingIfNeeded: Int128(xs) &* Int128(ys)), false)
    }
    return T(truncatingIfNeeded: x).multipliedReportingOverflow(by: T(truncatingIfNeeded: y))
}

/// Decimal multiplication at the natural scale s1 + s2.
package struct DecMul<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let maxAbs: T
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        let (r, o) = checkedProduct(x, y, as: T.self)
        return (r, decimalFails(r, wrapped: o, maxAbs: maxAbs))
    }
}
package struct DecMulScaled<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let fit: DecFit<T>
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        let (r, o) = checkedProduct(x, y, as: T.self)
        let (v, o2) = fit.apply(r)
        return (v, o || o2)
    }
}
/// Decimal division: round(x·fn / (y·fd)) half away from zero.
package struct DecDiv<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let fn: T, fd: T, maxAbs: T
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        if y == 0 { return (0, true) }
        let (num, o1) = T(truncatingIfNeeded: x).multipliedReportingOverflow(by: fn)
        let (den, o2) = T(truncatingIfNeeded: y).multipliedReportingOverflow(by: fd)
        if o1 || o2 || den == T.min || (den == -1 && num == T.min) { return (0, true) }
        let neg = (num < 0) != (den < 0)
        let ad = den < 0 ? 0 - den : den
        let q = num / den, r = num % den
        let ar = r < 0 ? 0 - r : r
        let v = ar >= ad - ar ? (neg ? q - 1 : q + 1) : q
        return (v, v > maxAbs || v < 0 - maxAbs)
    }
}
/// Decimal remainder with operands aligned to the larger scale.
package struct DecMod<A: FixedWidthInteger & SignedInteger, B: FixedWidthInteger & SignedInteger, T: FixedWidthInteger & SignedInteger>: RowOp2 {
    package let fa: T, fb: T
    package let fit: DecFit<T>
    @inline(__always) package func apply(_ x: A, _ y: B) -> (T, Bool) {
        if y == 0 { return (0, true) }
        let (p, o1) = T(truncatingIfNeeded: x).multipliedReportingOverflow(by: fa)
        let (q, o2) = T(truncatingIfNeeded: y).multipliedReportingOverflow(by: fb)
        if o1 || o2 { return (0, true) }
        return fit.apply(q == -1 ? 0 : p % q)
    }
}

/// Float operations: an infinite result from finite operands fails (overflow).
package struct FloatAdd: RowOp2 {
    @inline(__always) package func apply(_ a: Double, _ b: Double) -> (Double, Bool) {
        let r = a + b
        return (r, r.isInfinite && a.isFinite && b.isFinite)
    }
}
package struct FloatSub: RowOp2 {
    @inline(__always) package func apply(_ a: Double, _ b: Double) -> (Double, Bool) {
        let r = a - b
        return (r, r.isInfinite && a.isFinite && b.isFinite)
    }
}
package struct FloatMul: RowOp2 {
    @inline(__always) package func apply(_ a: Double, _ b: Double) -> (Double, Bool) {
        let r = a * b
        return (r, r.isInfinite && a.isFinite && b.isFinite)
    }
}
package struct FloatDiv: RowOp2 {
    @inline(__always) package func apply(_ a: Double, _ b: Double) -> (Double, Bool) {
        if b == 0 { return (0, true) }
        let r = a / b
        return (r, r.isInfinite && a.isFinite)
    }
}
package struct FloatMod: RowOp2 {
    @inline(__always) package func apply(_ a: Double, _ b: Double) -> (Double, Bool) {
        if b == 0 { return (0, true) }
        return (a.truncatingRemainder(dividingBy: b), false)
    }
}
