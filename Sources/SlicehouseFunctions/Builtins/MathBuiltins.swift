// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlan

/// Numeric functions, the integer bit operators, and the trigonometric functions.
public struct MathFamily: FunctionFamily {
    public let abs = ScalarFunction("abs", arguments: 1...1, resolve: { c in
        let t = try c.numeric(c[0])
        return FunctionResolution([t], t)
    }, kernel: { a, t, _ in try MathKernels.abs(a[0], resultType: t) })

    /// The input's type, except that a DECIMAL gives DECIMAL(1,0) (Redshift).
    public let sign = ScalarFunction("sign", arguments: 1...1, resolve: { c in
        let t = try c.numeric(c[0])
        return FunctionResolution([t], t.isDecimal ? .decimal(precision: 1, scale: 0) : t)
    }, kernel: { a, t, _ in try MathKernels.sign(a[0], resultType: t) })

    public let round = ScalarFunction("round", arguments: 1...2, resolve: roundingResolve,
                                      kernel: { a, t, n in try MathKernels.rounding(.round, a, resultType: t, n: n) })
    /// TRUNC(number [, digits]); TRUNC(timestamp) is the DATE.
    public let trunc = ScalarFunction("trunc", arguments: 1...2, resolve: roundingResolve, kernel: { a, t, n in
        if t == .date { return try DateFunctions.truncToDate(a[0], resultType: t) }
        return try MathKernels.rounding(.trunc, a, resultType: t, n: n)
    })
    public let ceil = ScalarFunction("ceil", aliases: ["ceiling"], arguments: 1...1, resolve: ceilResolve,
                                     kernel: { a, t, n in try MathKernels.rounding(.ceil, a, resultType: t, n: n) })
    public let floor = ScalarFunction("floor", arguments: 1...1, resolve: ceilResolve,
                                      kernel: { a, t, n in try MathKernels.rounding(.floor, a, resultType: t, n: n) })

    /// Integers and DECIMALs only (Redshift); text takes the other argument's type.
    public let mod = ScalarFunction("mod", arguments: 2...2, resolve: { c in
        func exact(_ t: DataType, _ other: DataType) throws -> DataType {
            if t.isInteger || t.isDecimal { return t }
            if t == .unknown || t.isString { return other.isInteger || other.isDecimal ? other : .bigint }
            throw c.noSuch()
        }
        let (l, r, res) = try TypeRules.binaryOperator(.modulo, try exact(c[0], c[1]), try exact(c[1], c[0]))
        return FunctionResolution([l, r], res)
    }, kernel: { a, t, n in try ArithmeticKernels.binary(.modulo, a[0], a[1], resultType: t, n: n) })

    public let power = ScalarFunction("power", aliases: ["pow"], arguments: 2...2, resolve: { c in
        _ = try c.numeric(c[0]); _ = try c.numeric(c[1])
        return FunctionResolution([.double, .double], .double)
    }, kernel: { a, t, n in try MathKernels.power(double(a[0]), double(a[1]), resultType: t, n: n) })

    public let sqrt = ScalarFunction("sqrt", arguments: 1...1, resolve: doubleResolve,
                                     kernel: { a, t, _ in try MathKernels.sqrt(double(a[0]), resultType: t) })
    public let cbrt = ScalarFunction("cbrt", arguments: 1...1, resolve: doubleResolve,
                                     kernel: { a, t, _ in try MathKernels.cbrt(double(a[0]), resultType: t) })
    public let exp = ScalarFunction("exp", aliases: ["dexp"], arguments: 1...1, resolve: doubleResolve,
                                    kernel: { a, t, _ in try MathKernels.exp(double(a[0]), resultType: t) })
    public let ln = ScalarFunction("ln", aliases: ["dlog1"], arguments: 1...1, resolve: doubleResolve,
                                   kernel: { a, t, _ in try MathKernels.ln(double(a[0]), base10: false, resultType: t) })
    public let log = ScalarFunction("log", aliases: ["dlog10"], arguments: 1...1, resolve: doubleResolve,
                                    kernel: { a, t, _ in try MathKernels.ln(double(a[0]), base10: true, resultType: t) })
    public let pi = ScalarFunction("pi", arguments: 0...0, resolve: { _ in FunctionResolution([], .double) },
                                   kernel: { _, t, _ in MathKernels.pi(resultType: t) })
    public let random = ScalarFunction("random", arguments: 0...0, volatility: .volatile,
                                       resolve: { _ in FunctionResolution([], .double) },
                                       kernel: { _, t, n in MathKernels.random(n: n, resultType: t) })

    // MARK: Trigonometry (DOUBLE PRECISION in, DOUBLE PRECISION out; radians)

    public let sin = ScalarFunction("sin", arguments: 1...1, resolve: doubleResolve,
                                    kernel: { a, t, _ in try trig(a[0], t) { Foundation.sin($0) } })
    public let cos = ScalarFunction("cos", arguments: 1...1, resolve: doubleResolve,
                                    kernel: { a, t, _ in try trig(a[0], t) { Foundation.cos($0) } })
    public let tan = ScalarFunction("tan", arguments: 1...1, resolve: doubleResolve,
                                    kernel: { a, t, _ in try trig(a[0], t) { Foundation.tan($0) } })
    /// COT(x) = 1 / TAN(x); COT(0) is Infinity, as in PostgreSQL.
    public let cot = ScalarFunction("cot", arguments: 1...1, resolve: doubleResolve,
                                    kernel: { a, t, _ in try trig(a[0], t) { 1 / Foundation.tan($0) } })
    /// ASIN and ACOS are defined on [-1, 1]; outside it the call fails.
    public let asin = ScalarFunction("asin", arguments: 1...1, resolve: doubleResolve, kernel: { a, t, _ in
        try MathKernels.unaryDouble(double(a[0]), resultType: t, { Foundation.asin($0) }, error: unitDomain)
    })
    public let acos = ScalarFunction("acos", arguments: 1...1, resolve: doubleResolve, kernel: { a, t, _ in
        try MathKernels.unaryDouble(double(a[0]), resultType: t, { Foundation.acos($0) }, error: unitDomain)
    })
    public let atan = ScalarFunction("atan", arguments: 1...1, resolve: doubleResolve,
                                     kernel: { a, t, _ in try trig(a[0], t) { Foundation.atan($0) } })
    /// ATAN2(y, x): the angle of the point (x, y).
    public let atan2 = ScalarFunction("atan2", arguments: 2...2, resolve: { c in
        _ = try c.numeric(c[0]); _ = try c.numeric(c[1])
        return FunctionResolution([.double, .double], .double)
    }, kernel: { a, t, n in try MathKernels.binaryDouble(double(a[0]), double(a[1]), resultType: t, n: n) { Foundation.atan2($0, $1) } })
    public let degrees = ScalarFunction("degrees", arguments: 1...1, resolve: doubleResolve,
                                        kernel: { a, t, _ in try trig(a[0], t) { $0 * 180 / Double.pi } })
    public let radians = ScalarFunction("radians", arguments: 1...1, resolve: doubleResolve,
                                        kernel: { a, t, _ in try trig(a[0], t) { $0 * Double.pi / 180 } })

    // MARK: The integer operators `&`, `|`, `#`, `<<`, `>>` (bound by the binder)

    public let bitwiseAnd = ScalarFunction("bitwise_and", internal: true, arguments: 2...2,
                                           kernel: { a, t, n in bitwise(a, t, n) { x, y, _ in x & y } })
    public let bitwiseOr = ScalarFunction("bitwise_or", internal: true, arguments: 2...2,
                                          kernel: { a, t, n in bitwise(a, t, n) { x, y, _ in x | y } })
    public let bitwiseXor = ScalarFunction("bitwise_xor", internal: true, arguments: 2...2,
                                           kernel: { a, t, n in bitwise(a, t, n) { x, y, _ in x ^ y } })
    public let shiftLeft = ScalarFunction("shift_left", internal: true, arguments: 2...2, kernel: { a, t, n in
        bitwise(a, t, n) { x, y, bits in y < 0 || y >= bits ? 0 : x << y }
    })
    public let shiftRight = ScalarFunction("shift_right", internal: true, arguments: 2...2, kernel: { a, t, n in
        bitwise(a, t, n) { x, y, bits in y < 0 || y >= bits ? (x < 0 ? -1 : 0) : x >> y }
    })
}

/// ROUND and TRUNC return their argument's type (REAL stays REAL); a DECIMAL's scale
/// follows a constant digit count.
private let roundingResolve: ScalarFunction.Resolver = { c in
    if c.count == 1, c[0] == .timestamp || c[0] == .date, c.name == "trunc" {
        return FunctionResolution([.timestamp], .date)
    }
    let t = try c.numeric(c[0])
    var result = t
    if case .decimal(let p, let s) = t {
        if c.count == 1 {
            result = .decimal(precision: min(DataType.maxDecimalPrecision, max(1, p - s + 1)), scale: 0)
        } else if let d = c.constInt(1) {
            let ns = max(0, min(d, s))
            result = .decimal(precision: min(DataType.maxDecimalPrecision, max(1, p - s + ns + 1)), scale: ns)
        }
    }
    return FunctionResolution(c.count == 1 ? [t] : [t, .integer], result)
}

private let ceilResolve: ScalarFunction.Resolver = { c in
    let t = try c.numeric(c[0])
    var result = t
    if case .decimal(let p, let s) = t {
        result = .decimal(precision: min(DataType.maxDecimalPrecision, max(1, p - s + 1)), scale: 0)
    }
    return FunctionResolution([t], result)
}

/// One numeric argument, computed in DOUBLE PRECISION.
private let doubleResolve: ScalarFunction.Resolver = { c in
    _ = try c.numeric(c[0])
    return FunctionResolution([.double], .double)
}

/// A function defined for every finite input.
private func trig(_ v: Vector, _ t: DataType, _ f: (Double) -> Double) throws -> Vector {
    try MathKernels.unaryDouble(double(v), resultType: t, f) { _, _ in nil }
}

private func unitDomain(_ x: Double, _ r: Double) -> SQLError? {
    x >= -1 && x <= 1 ? nil : SQLError(.numericOutOfRange, "input is out of range")
}

private func double(_ v: Vector) throws -> Vector {
    v.type.physical == .double ? v : try CastKernels.cast(v, to: .double)
}

/// Row by row: the bit operators appear in catalog queries, not on hot paths. The result
/// wraps to the type's width, as PostgreSQL's int2/int4 operators do.
private func bitwise(_ args: [Vector], _ t: DataType, _ n: Int, _ op: (Int64, Int64, Int64) -> Int64) -> Vector {
    var out = Vector(type: t, capacity: n)
    let bits = Int64(t == .bigint ? 64 : (t == .smallint ? 16 : 32))
    for i in 0..<n {
        guard case .int(let a) = args[0].value(at: args[0].isConstant ? 0 : i),
              case .int(let b) = args[1].value(at: args[1].isConstant ? 0 : i) else { out.appendNull(); continue }
        let r = op(a, b, bits)
        let wrapped = bits == 64 ? r : (bits == 32 ? Int64(Int32(truncatingIfNeeded: r)) : Int64(Int16(truncatingIfNeeded: r)))
        out.append(.int(wrapped))
    }
    return out
}
