// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseSQL

/// Window calls found while binding a SELECT's select list, QUALIFY and ORDER BY.
final class WindowCollector {
    var windows: [LogicalWindow] = []
    /// MEDIAN / PERCENTILE_CONT / PERCENTILE_DISC / LISTAGG `OVER (PARTITION BY ...)`: the
    /// aggregate of each partition, joined back to its rows before the window step.
    var partitionAggregates: [(partition: [BoundExpr], aggregate: LogicalAggregate)] = []
}

extension Binder {
    static let windowKinds: [String: WindowFunctionKind] = [
        "row_number": .rowNumber, "rank": .rank, "dense_rank": .denseRank, "percent_rank": .percentRank,
        "cume_dist": .cumeDist, "ntile": .ntile, "lag": .lag, "lead": .lead, "first_value": .firstValue,
        "last_value": .lastValue, "nth_value": .nthValue, "ratio_to_report": .ratioToReport,
        "sum": .sum, "avg": .avg, "count": .count, "min": .min, "max": .max,
    ]

    /// Bind `f(...) OVER (...)`: arguments, partition and order keys are evaluated on the
    /// (grouped) input of the window step; the call becomes a column of its output.
    func bindWindowCall(_ f: FunctionCall, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr {
        guard let over = f.over else { throw SQLError.internalError("not a window call") }
        guard let collector = windowCollector else {
            throw err(.groupingError, "window functions are not allowed here (only in the select list, QUALIFY and ORDER BY)", e)
        }
        if AggregateFunction.orderedSetNames.contains(f.name) {
            return try bindOrderedSetWindow(f, over, e, scope, agg, collector)
        }
        if Binder.derivedWindowFunctions.contains(f.name) {
            // STDDEV / VARIANCE and their _SAMP / _POP forms: COUNT and SUM over the window.
            if f.distinct { throw err(.featureNotSupported, "DISTINCT is not supported in window functions", e) }
            let savedPending = pendingSubqueries
            let argType = f.args.count == 1 && !f.star ? (try? bindExpr(f.args[0], scope, agg: agg))?.type : nil
            pendingSubqueries = savedPending
            return try bindExpr(try derivedAggregate(f, e, argumentType: argType, over: over), scope, agg: agg)
        }
        guard var kind = Self.windowKinds[f.name] else {
            throw err(.undefinedFunction, "function \(f.name) is not a window function", e)
        }
        if kind == .count && f.star { kind = .countStar }
        if f.distinct { throw err(.featureNotSupported, "DISTINCT is not supported in window functions", e) }
        func bound(_ x: Expr) throws -> BoundExpr {
            if containsWindow(x) { throw err(.groupingError, "window function calls cannot be nested", x) }
            return try finishAggregate(try bindExpr(x, scope, agg: agg), agg, x.location)
        }
        let args = f.args
        var argument: BoundExpr? = nil
        var parameter = 1
        var defaultValue = Value.null
        func arity(_ r: ClosedRange<Int>) throws {
            guard r.contains(args.count) else { throw err(.undefinedFunction, "wrong number of arguments for \(f.name)", e) }
        }
        switch kind {
        case .rowNumber, .rank, .denseRank, .percentRank, .cumeDist, .countStar:
            try arity(0...0)
        case .ntile:
            try arity(1...1)
            parameter = try constantInt(args[0], "NTILE")
            guard parameter >= 1 else { throw err(.invalidParameter, "argument of ntile must be greater than zero", e) }
        case .lag, .lead:
            try arity(1...3)
            argument = try bound(args[0])
            if args.count > 1 { parameter = try constantInt(args[1], kind.rawValue.uppercased() + " offset") }
            if args.count > 2, let a = argument {
                let d = try coerce(try bindScalar(args[2]), to: a.type)
                defaultValue = try evaluateConstant(d)
            }
        case .nthValue:
            try arity(2...2)
            argument = try bound(args[0])
            parameter = try constantInt(args[1], "NTH_VALUE")
            guard parameter >= 1 else { throw err(.invalidParameter, "argument of nth_value must be greater than zero", e) }
        default:
            try arity(1...1)
            argument = try bound(args[0])
        }
        if var a = argument, a.type == .unknown { a = .constant(.null, .text); argument = a }
        let resultType: DataType
        do { resultType = try BoundWindowFunction.resultType(kind, argument?.type) }
        catch let error as SQLError { throw err(error.code, error.message, e) }

        let partition = try over.partitionBy.map(bound)
        let order = try over.orderBy.map { item in
            LogicalSortKey(expr: try bound(item.expr), ascending: !item.descending, nullsFirst: item.nullsFirst ?? item.descending)
        }
        let frame = try windowFrame(over, kind, e)
        let output = newColumn(resultType, f.name)
        scalarOutputIDs.insert(output.id)
        collector.windows.append(LogicalWindow(kind: kind, argument: argument, parameter: parameter, defaultValue: defaultValue,
                                               ignoreNulls: f.nullTreatment == .ignoreNulls, partitionBy: partition,
                                               orderBy: order, frame: frame, output: output))
        return .column(output.id, resultType)
    }

    /// `MEDIAN(x) OVER (PARTITION BY k)` and the other ordered-set aggregates as window
    /// functions (Redshift allows PARTITION BY only): the aggregate grouped by the
    /// partition keys, joined back to every row of its partition.
    func bindOrderedSetWindow(_ f: FunctionCall, _ over: WindowSpec, _ e: Expr, _ scope: Scope,
                              _ agg: AggregationContext?, _ collector: WindowCollector) throws -> BoundExpr {
        if !over.orderBy.isEmpty || over.frame != nil {
            throw err(.syntax, "\(f.name) window function does not take ORDER BY or a frame in OVER (only PARTITION BY)", e)
        }
        if agg != nil {
            throw err(.featureNotSupported, "\(f.name) as a window function in a query with GROUP BY or aggregates is not supported", e)
        }
        if f.distinct && f.name != "listagg" { throw err(.featureNotSupported, "DISTINCT is not supported in window functions", e) }
        var plain = f
        plain.over = nil
        let context = AggregationContext()
        guard case .column(let id, let type)? = try bindOrderedSetAggregate(plain, e, scope, context),
              let aggregate = context.aggregates.first(where: { $0.output.id == id }) else {
            throw SQLError.internalError("ordered-set window function without its aggregate")
        }
        let partition = try over.partitionBy.map { x -> BoundExpr in
            if containsWindow(x) { throw err(.groupingError, "window function calls cannot be nested", x) }
            return try bindExpr(x, scope, agg: nil)
        }
        collector.partitionAggregates.append((partition, aggregate))
        scalarOutputIDs.insert(id)
        return .column(id, type)
    }

    /// Join each partition aggregate (`WindowCollector.partitionAggregates`) into `plan`,
    /// the window step's input: the aggregate runs over a copy of the input grouped by
    /// the partition keys and is left-joined back on them (NULL keys forming their own partition).
    func applyPartitionAggregates(_ plan: LogicalPlan, _ collector: WindowCollector) -> LogicalPlan {
        var p = plan
        for (partition, aggregate) in collector.partitionAggregates {
            let (copy, renumber) = renumbered(plan)
            func remap(_ x: BoundExpr) -> BoundExpr { x.remapColumns { renumber[$0]?.id ?? $0 } }
            let groups = partition.map(remap)
            let outs = groups.map { newColumn($0.type, "?partition?") }
            let grouped = LogicalPlan.aggregate(copy, groups: groups, groupOutputs: outs, aggregates: [aggregate.mapExpressions(remap)])
            if partition.isEmpty {
                p = .join(.leftSingle, p, grouped, condition: nil)
                continue
            }
            var conds: [BoundExpr] = []
            for (k, o) in zip(partition, outs) { conds += nullSafeEquality(k, .column(o.id, o.type)) }
            p = .join(.left, p, grouped, condition: .and(conds))
        }
        return p
    }

    func windowFrame(_ over: WindowSpec, _ kind: WindowFunctionKind, _ e: Expr) throws -> SlicehousePlan.WindowFrame {
        let framed: Set<WindowFunctionKind> = [.sum, .avg, .count, .countStar, .min, .max, .firstValue, .lastValue, .nthValue]
        guard let f = over.frame else {
            if over.orderBy.isEmpty || !framed.contains(kind) { return .wholePartition }
            // Redshift: an aggregate window function with ORDER BY needs an explicit frame.
            throw err(.syntax, "Aggregate window functions with an ORDER BY clause require a frame clause", e)
        }
        if !framed.contains(kind) {
            throw err(.syntax, "a frame clause is not allowed for \(kind.rawValue)", e)
        }
        func bound(_ b: FrameBound) throws -> WindowFrameBound {
            switch b {
            case .unboundedPreceding: return .unboundedPreceding
            case .unboundedFollowing: return .unboundedFollowing
            case .currentRow: return .currentRow
            case .preceding(let x):
                guard f.unit == .rows else { throw err(.featureNotSupported, "RANGE with an offset is not supported", e) }
                return .preceding(try constantInt(x, "frame offset"))
            case .following(let x):
                guard f.unit == .rows else { throw err(.featureNotSupported, "RANGE with an offset is not supported", e) }
                return .following(try constantInt(x, "frame offset"))
            }
        }
        let frame = SlicehousePlan.WindowFrame(rows: f.unit == .rows, start: try bound(f.start), end: try bound(f.end))
        if frame.start == .unboundedFollowing || frame.end == .unboundedPreceding {
            throw err(.syntax, "invalid window frame", e)
        }
        return frame
    }

    func containsWindow(_ e: Expr) -> Bool {
        switch e.kind {
        case .function(let f): return f.over != nil || f.args.contains(where: containsWindow)
        case .unary(_, let a), .isNull(let a, _), .isBoolean(let a, _, _), .cast(let a, _, _): return containsWindow(a)
        case .binary(_, let a, let b), .isDistinctFrom(let a, let b, _): return containsWindow(a) || containsWindow(b)
        case .between(let a, let l, let h, _): return containsWindow(a) || containsWindow(l) || containsWindow(h)
        case .inList(let a, let l, _): return containsWindow(a) || l.contains(where: containsWindow)
        case .caseWhen(let c):
            return (c.operand.map(containsWindow) ?? false) || c.whens.contains { containsWindow($0.condition) || containsWindow($0.result) }
                || (c.elseResult.map(containsWindow) ?? false)
        default: return false
        }
    }
}
