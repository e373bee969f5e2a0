// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseSQL

/// Aggregates with more than one column argument or with constant parameters:
///
/// - `MEDIAN(x)` = `PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x)`;
/// - `PERCENTILE_CONT(p) | PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x [ASC|DESC])`, `p` a
///   constant between 0 and 1;
/// - `LISTAGG([DISTINCT] x [, 'delimiter']) [WITHIN GROUP (ORDER BY ...)]`;
/// - `APPROXIMATE COUNT(DISTINCT x)` (and `APPROXIMATE PERCENTILE_DISC`, computed exactly).
///
/// Result types: `AggregateFunction.percentileResultType`, `listaggResultType`.
/// Unlike Redshift, one query may mix ordered-set aggregates with different ORDER BYs.
extension Binder {

    /// Binds `f` when it is one of the aggregates above (or any aggregate written with
    /// WITHIN GROUP, which is an error unless ordered-set); nil for every other call.
    func bindOrderedSetAggregate(_ f: FunctionCall, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr? {
        let name = f.name
        let orderedSet = AggregateFunction.orderedSetNames.contains(name)
        if !orderedSet && !f.approximate {
            if !f.withinGroup.isEmpty && (AggregateFunction.isAggregateName(name) || Binder.derivedAggregates.contains(name)) {
                throw err(.syntax, "\(name) is not an ordered-set aggregate, so it cannot have WITHIN GROUP", e)
            }
            return nil
        }
        guard let agg else {
            throw err(.groupingError, "aggregate functions are not allowed in this context", e)
        }
        if f.star { throw err(.undefinedFunction, "function \(name)(*) does not exist", e) }
        func argument(_ a: Expr) throws -> BoundExpr {
            if containsAggregate(a) { throw err(.groupingError, "aggregate function calls cannot be nested", a) }
            return try bindAggregateArgument(a, scope, agg)
        }

        let candidate: LogicalAggregate
        if f.approximate {
            candidate = try approximateAggregate(f, e, argument)
        } else if name == "listagg" {
            candidate = try listaggAggregate(f, e, argument)
        } else {
            candidate = try percentileAggregate(f, e, argument)
        }
        if let existing = agg.aggregates.first(where: { $0.computesSame(as: candidate) }) {
            return .column(existing.output.id, existing.output.type)
        }
        agg.aggregates.append(candidate)
        return .column(candidate.output.id, candidate.output.type)
    }

    // MARK: - APPROXIMATE

    private func approximateAggregate(_ f: FunctionCall, _ e: Expr, _ argument: (Expr) throws -> BoundExpr) throws -> LogicalAggregate {
        if f.name == "percentile_disc" {
            // An exact answer is within any error bound.
            var exact = f
            exact.approximate = false
            return try percentileAggregate(exact, e, argument)
        }
        guard f.name == "count", f.distinct, f.withinGroup.isEmpty else {
            throw err(.featureNotSupported, "APPROXIMATE is supported only with COUNT(DISTINCT ...) and PERCENTILE_DISC", e)
        }
        guard f.args.count == 1 else {
            throw err(.undefinedFunction, "function count takes exactly one argument with DISTINCT", e)
        }
        var x = try argument(f.args[0])
        if x.type == .unknown { x = try coerce(x, to: .text) }
        return LogicalAggregate(function: .approximateCountDistinct, argument: x, distinct: false,
                                output: newColumn(.bigint, f.name))
    }

    // MARK: - MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC

    private func percentileAggregate(_ f: FunctionCall, _ e: Expr, _ argument: (Expr) throws -> BoundExpr) throws -> LogicalAggregate {
        let upper = f.name.uppercased()
        if f.distinct { throw err(.featureNotSupported, "DISTINCT is not supported for \(upper)", e) }
        let valueExpr: Expr
        var parameters = AggregateParameters()
        if f.name == "median" {
            guard f.args.count == 1 else { throw err(.undefinedFunction, "function median takes exactly one argument", e) }
            guard f.withinGroup.isEmpty else { throw err(.syntax, "MEDIAN does not take WITHIN GROUP", e) }
            valueExpr = f.args[0]
            parameters.fractionNumerator = 5
            parameters.fractionScale = 1
        } else {
            guard f.args.count == 1 else {
                throw err(.undefinedFunction, "function \(f.name) takes exactly one argument (the percentile)", e)
            }
            guard !f.withinGroup.isEmpty else {
                throw err(.syntax, "WITHIN GROUP is required for ordered-set aggregate \(f.name)", e)
            }
            guard f.withinGroup.count == 1 else {
                throw err(.syntax, "\(upper) takes exactly one ORDER BY expression in WITHIN GROUP", f.withinGroup[1].expr)
            }
            (parameters.fractionNumerator, parameters.fractionScale) = try percentileFraction(try argument(f.args[0]), upper, f.args[0])
            valueExpr = f.withinGroup[0].expr
            parameters.descending = f.withinGroup[0].descending
        }
        let x = try argument(valueExpr)
        let continuous = f.name != "percentile_disc"
        let result: DataType
        do {
            result = try AggregateFunction.percentileResultType(name: f.name, argType: x.type, continuous: continuous)
        } catch let error as SQLError {
            throw err(error.code, error.message, valueExpr)
        }
        return LogicalAggregate(function: continuous ? .percentileCont : .percentileDisc, argument: x, distinct: false,
                                output: newColumn(result, f.name), parameters: parameters)
    }

    /// The percentile `p` as an exact decimal `numerator / 10^scale`, scale at most 18.
    /// - Throws: when `p` is not a constant, not a number, or not between 0 and 1
    ///   (`percentile value 2 is not between 0 and 1`, 22003, as PostgreSQL says).
    private func percentileFraction(_ p: BoundExpr, _ function: String, _ at: Expr) throws -> (Int64, Int) {
        guard p.referencedColumns.isEmpty, !containsAggregate(at) else {
            throw err(.featureNotSupported, "the percentile of \(function) must be a constant", at)
        }
        let maxScale = 18
        let value: Value
        do {
            value = try evaluateConstant(p)
        } catch let error as SQLError {
            throw err(error.code, error.message, at)
        }
        if value.isNull { throw err(.invalidParameter, "the percentile of \(function) must not be NULL", at) }
        var numerator: Int128
        var scale: Int
        switch p.type {
        case .smallint, .integer, .bigint:
            numerator = value.asInt128 ?? -1
            scale = 0
        case .decimal(_, let s):
            numerator = value.asInt128 ?? -1
            scale = s
            if scale > maxScale {
                numerator = DecimalMath.rescale(numerator, from: scale, to: maxScale)
                scale = maxScale
            }
        default:
            let d: Double
            if let v = value.asDouble {
                d = v
            } else if case .string(let s) = value, let v = Double(s.trimmingSpaces) {
                d = v
            } else {
                throw err(.datatypeMismatch, "the percentile of \(function) must be a number", at)
            }
            guard d.isFinite, d >= 0, d <= 1 else {
                throw err(.numericOutOfRange, "percentile value \(d) is not between 0 and 1", at)
            }
            if case .ok(let v) = DecimalMath.parse("\(d)", scale: maxScale) {
                numerator = v
            } else {
                numerator = Int128((d * 1e18).rounded())
            }
            scale = maxScale
        }
        guard numerator >= 0, numerator <= DecimalMath.pow10[scale] else {
            let text = value.formatted(as: p.type) ?? "?"
            throw err(.numericOutOfRange, "percentile value \(text) is not between 0 and 1", at)
        }
        while scale > 0 && numerator % 10 == 0 {
            numerator /= 10
            scale -= 1
        }
        return (Int64(numerator), scale)
    }

    // MARK: - LISTAGG

    private func listaggAggregate(_ f: FunctionCall, _ e: Expr, _ argument: (Expr) throws -> BoundExpr) throws -> LogicalAggregate {
        guard f.args.count == 1 || f.args.count == 2 else {
            throw err(.undefinedFunction, "function listagg takes one or two arguments (the value and a delimiter)", e)
        }
        let x = try argument(f.args[0])
        var parameters = AggregateParameters()
        if f.args.count == 2 {
            let d = try argument(f.args[1])
            guard d.referencedColumns.isEmpty else {
                throw err(.featureNotSupported, "the delimiter of LISTAGG must be a constant string", f.args[1])
            }
            let value: Value
            do {
                value = try evaluateConstant(d.type.isString || d.type == .unknown ? d : .cast(d, .text))
            } catch let error as SQLError {
                throw err(error.code, error.message, f.args[1])
            }
            if case .string(let s) = value { parameters.delimiter = s }
        }
        let order = try f.withinGroup.map { item in
            LogicalSortKey(expr: try argument(item.expr), ascending: !item.descending, nullsFirst: item.nullsFirst ?? item.descending)
        }
        if f.distinct, let other = zip(order, f.withinGroup).first(where: { $0.0.expr != x }) {
            throw err(.syntax, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list", other.1.expr)
        }
        var value = x
        if x.type == .unknown {
            value = .constant(.null, .text)
        } else if !x.type.isString {
            value = try coerce(x, to: AggregateFunction.listaggResultType)
        }
        return LogicalAggregate(function: .listagg, argument: value, distinct: f.distinct,
                                output: newColumn(AggregateFunction.listaggResultType, f.name),
                                orderBy: order, parameters: parameters)
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
