// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// COALESCE, NVL, NULLIF, NVL2, GREATEST, LEAST, DECODE.
public struct ConditionalFamily: FunctionFamily {
    /// The first argument that is not NULL; Redshift's NVL is COALESCE under another name
    /// (two or more arguments).
    public let coalesce = ScalarFunction("coalesce", aliases: ["nvl"], arguments: 1...Int.max, resolve: { c in
        guard c.count >= (c.name == "nvl" ? 2 : 1) else { throw c.noSuch() }
        let t = try c.commonOfAll()
        return FunctionResolution(Array(repeating: t, count: c.count), t)
    }, evaluation: .shortCircuit(.coalesce))

    public let nullif = ScalarFunction("nullif", arguments: 2...2, resolve: { c in
        let t = try c.commonOfAll()
        return FunctionResolution([t, t], t)
    }, kernel: { a, t, n in try ConditionalKernels.nullif(a[0], a[1], resultType: t, n: n) })

    /// NVL2(e, a, b): a where e is not NULL, else b.
    public let nvl2 = ScalarFunction("nvl2", arguments: 3...3, resolve: { c in
        let lits = c.untypedLiterals.count >= 3 ? Array(c.untypedLiterals[1...2]) : []
        let t = try c.common([c[1], c[2]], lits)
        return FunctionResolution([c[0] == .unknown ? .text : c[0], t, t], t)
    }, evaluation: .shortCircuit(.nvl2))

    public let greatest = ScalarFunction("greatest", arguments: 1...Int.max, resolve: extremeResolve,
                                         kernel: { a, t, n in try ConditionalKernels.extreme(a, greatest: true, resultType: t, n: n) })
    public let least = ScalarFunction("least", arguments: 1...Int.max, resolve: extremeResolve,
                                      kernel: { a, t, n in try ConditionalKernels.extreme(a, greatest: false, resultType: t, n: n) })

    /// DECODE(expr, search1, result1, ..., [default]): expr and the searches are cast to
    /// one type, the results to another.
    public let decode = ScalarFunction("decode", arguments: 3...Int.max, resolve: { c in
        let n = c.count, pairs = (n - 1) / 2
        var keyIdx = [0], resIdx: [Int] = []
        for k in 0..<pairs { keyIdx.append(1 + 2 * k); resIdx.append(2 + 2 * k) }
        if n % 2 == 0 { resIdx.append(n - 1) }
        let kt = try c.common(keyIdx.map { c[$0] }, keyIdx.map { c.isUntypedLiteral($0) })
        let rt = try c.common(resIdx.map { c[$0] }, resIdx.map { c.isUntypedLiteral($0) })
        var targets = c.argTypes
        for i in keyIdx { targets[i] = kt }
        for i in resIdx { targets[i] = rt }
        return FunctionResolution(targets, rt)
    }, kernel: { a, t, n in try ExtendedFunctions.decode(a, resultType: t, n: n) })
}

private let extremeResolve: ScalarFunction.Resolver = { c in
    let t = try c.commonOfAll()
    return FunctionResolution(Array(repeating: t, count: c.count), t)
}
