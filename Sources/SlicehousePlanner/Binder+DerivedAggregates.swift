// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseSQL

/// Aggregates written in terms of the built-in ones (SUM, COUNT, MIN, MAX):
/// the variance family from sums of squares (exact for integers and DECIMALs, else in
/// DOUBLE PRECISION), BOOL_AND/BOOL_OR
/// as MIN/MAX over booleans (false < true), ANY_VALUE as MAX.
extension Binder {
    static let derivedAggregates: Set<String> = ["stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
                                                 "bool_and", "bool_or", "any_value"]

    /// The variance family as window functions (`STDDEV_SAMP(x) OVER (...)`, Redshift's
    /// window forms of STDDEV, VARIANCE, ...): the same sums, each over the call's window.
    static let derivedWindowFunctions: Set<String> = ["stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"]

    /// `f` in terms of the built-in aggregates; with `over`, each of them a window call
    /// over that window.
    func derivedAggregate(_ f: FunctionCall, _ e: Expr, argumentType: DataType? = nil, over: WindowSpec? = nil) throws -> Expr {
        guard f.args.count == 1, !f.star else {
            throw err(.undefinedFunction, "function \(f.name) takes exactly one argument", e)
        }
        if f.distinct { throw err(.featureNotSupported, "DISTINCT is not supported for \(f.name)", e) }
        let loc = e.location
        let x = f.args[0]
        func call(_ name: String, _ args: [Expr]) -> Expr {
            var c = FunctionCall(name: name, args: args)
            if ["count", "sum", "min", "max"].contains(name) { c.over = over }
            return Expr(.function(c), at: loc)
        }
        func bin(_ op: BinaryOperator, _ a: Expr, _ b: Expr) -> Expr { Expr(.binary(op, a, b), at: loc) }
        func int(_ n: Int) -> Expr { Expr(.literal(.integer(String(n))), at: loc) }
        switch f.name {
        case "bool_and", "bool_or":
            return call(f.name == "bool_and" ? "min" : "max", [Expr(.cast(x, .boolean, .cast), at: loc)])
        case "any_value":
            return call("max", [x])
        default:
            let pop = f.name.hasSuffix("_pop")
            if let t = argumentType, t.isInteger || t.isDecimal {
                // Exact sums: n·Σx² − (Σx)² is computed in DECIMAL (no cancellation), and
                // only the final division is in DOUBLE PRECISION.
                //   var_pop = (n·Σx² − (Σx)²) / n² ; var_samp = (n·Σx² − (Σx)²) / (n·(n − 1))
                let xe: Expr = t.isInteger ? Expr(.cast(x, .decimal(precision: 38, scale: 0), .cast), at: loc) : x
                let n = call("count", [x])
                let sumSquares = call("sum", [bin(.multiply, xe, xe)])
                let sum = call("sum", [xe])
                let numerator = bin(.subtract, bin(.multiply, n, sumSquares), bin(.multiply, sum, sum))
                let nd = Expr(.cast(n, .double, .cast), at: loc)
                let divisor = pop ? bin(.multiply, nd, nd) : bin(.multiply, nd, bin(.subtract, nd, Expr(.literal(.float("1e0")), at: loc)))
                let ratio = bin(.divide, Expr(.cast(numerator, .double, .cast), at: loc), divisor)
                let variance = Expr(.caseWhen(CaseExpr(whens: [SlicehouseSQL.WhenClause(condition: bin(.greater, n, int(pop ? 0 : 1)), result: ratio)])), at: loc)
                return f.name.hasPrefix("stddev") ? call("sqrt", [variance]) : variance
            }
            // Floating point: var_pop = (Σx² − (Σx)²/n) / n ; var_samp divides by n − 1 (NULL for n ≤ 1).
            let xd = Expr(.cast(x, .double, .cast), at: loc)
            let n = call("count", [x])
            let sumSquares = call("sum", [bin(.multiply, xd, xd)])
            let sum = call("sum", [xd])
            let centered = bin(.subtract, sumSquares, bin(.divide, bin(.multiply, sum, sum), Expr(.cast(n, .double, .cast), at: loc)))
            let divisor = pop ? n : bin(.subtract, n, int(1))
            // Rounding can make a zero variance slightly negative: clamp at 0. NULL unless n > 0 (pop) / n > 1 (samp).
            let ratio = call("greatest", [bin(.divide, centered, Expr(.cast(divisor, .double, .cast), at: loc)),
                                          Expr(.literal(.float("0e0")), at: loc)])
            let variance = Expr(.caseWhen(CaseExpr(whens: [SlicehouseSQL.WhenClause(condition: bin(.greater, n, int(pop ? 0 : 1)), result: ratio)])), at: loc)
            return f.name.hasPrefix("stddev") ? call("sqrt", [variance]) : variance
        }
    }
}
