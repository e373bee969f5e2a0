// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseSQL
import SlicehousePlan
import SlicehousePlanner

/// Redshift's automatic query rewriting with materialized views
/// (`mv_enable_aqmv_for_session`): a query that a view's rows can answer is rewritten
/// to read the view instead of its base tables.
///
/// The match is on the parsed queries (source positions aside). A query qualifies when
/// it reads the same FROM list as the view, its WHERE holds every condition of the
/// view's WHERE, and everything else it computes can be computed from the view's
/// columns:
/// - a view without GROUP BY or aggregates: every expression of the query is built from
///   expressions the view outputs;
/// - a view with GROUP BY and SUM / COUNT / MIN / MAX: the query's extra conditions,
///   GROUP BY keys and plain outputs are built from the view's keys, and its aggregates
///   are SUM, COUNT, MIN or MAX of what the view aggregates (re-aggregated: counts are
///   summed); or the query is the view's own query.
/// Each output keeps the query's name and type (counts summed are cast back to BIGINT).
struct MaterializedViewRewrite {
    let view: ObjectName
    let columns: [String]
    let viewSelect: Select

    init?(view: ObjectName, columns: [String], query: Query) {
        guard query.with == nil, query.orderBy.isEmpty, query.limit == nil, query.offset == nil,
              case .select(let m) = query.body, !m.distinct, m.top == nil, m.having == nil, m.qualify == nil,
              m.exclude.isEmpty, m.items.count == columns.count else { return nil }
        for item in m.items { guard case .expr = item else { return nil } }
        for g in m.groupBy { guard case .expr = g else { return nil } }
        self.view = view
        self.columns = columns
        viewSelect = m
    }

    enum AggregateKind { case sum, count, countStar, min, max }

    static func aggregate(_ e: Expr) -> (AggregateKind, Expr?)? {
        guard case .function(let f) = e.kind, f.schema == nil, !f.distinct, f.over == nil, f.withinGroup.isEmpty,
              !f.approximate else { return nil }
        switch (f.name, f.star, f.args.count) {
        case ("sum", false, 1): return (.sum, f.args[0])
        case ("count", true, 0): return (.countStar, nil)
        case ("count", false, 1): return (.count, f.args[0])
        case ("min", false, 1): return (.min, f.args[0])
        case ("max", false, 1): return (.max, f.args[0])
        default: return nil
        }
    }

    /// The view's outputs: each a key (a plain expression) or an aggregate.
    private var outputs: [(expr: Expr, aggregate: (AggregateKind, Expr?)?)] {
        viewSelect.items.compactMap { item in
            guard case .expr(let e, _) = item else { return nil }
            return (e, Self.aggregate(e))
        }
    }

    private var isGrouped: Bool { !viewSelect.groupBy.isEmpty || outputs.contains { $0.aggregate != nil } }

    private func column(_ i: Int) -> Expr { Expr(.column(ColumnRef([columns[i]]))) }

    static let derivedAggregates: Set<String> = ["stddev", "stddev_samp", "stddev_pop", "variance", "var_samp",
                                                 "var_pop", "median"]

    static func conjuncts(_ e: Expr?) -> [Expr] {
        guard let e else { return [] }
        if case .binary(.and, let a, let b) = e.kind { return conjuncts(a) + conjuncts(b) }
        return [e]
    }

    /// `query` reading the view, its outputs named `names` and cast to `types`; nil when
    /// the view cannot answer it.
    func rewrite(_ query: Query, names: [String], types: [DataType]) -> Query? {
        guard query.with == nil, case .select(let u) = query.body, !u.distinct, u.top == nil, u.qualify == nil,
              u.exclude.isEmpty, u.from == viewSelect.from, u.items.count == names.count, names.count == types.count else {
            return nil
        }
        // The view's conditions must all hold in the query; the rest filter the view's rows.
        var extra = Self.conjuncts(u.whereClause)
        for c in Self.conjuncts(viewSelect.whereClause) {
            guard let i = extra.firstIndex(of: c) else { return nil }
            extra.remove(at: i)
        }
        var items: [Expr] = []
        var groupBy: [GroupingElement] = []
        var having: Expr?
        if isGrouped && extra.isEmpty && u.items == viewSelect.items && u.groupBy == viewSelect.groupBy && u.having == nil {
            // The view's own query: its rows as they are.
            items = columns.indices.map(column)
        } else {
            guard u.having == nil || isGrouped else { return nil }
            for item in u.items {
                guard case .expr(let e, _) = item, let m = map(e, aggregates: true) else { return nil }
                items.append(m)
            }
            for g in u.groupBy {
                guard case .expr(let e) = g else { return nil }
                if case .literal(.integer) = e.kind { groupBy.append(g); continue }
                guard let m = map(e, aggregates: false) else { return nil }
                groupBy.append(.expr(m))
            }
            if let h = u.having {
                guard let m = map(h, aggregates: true) else { return nil }
                having = m
            }
            // A grouped view's rows are groups: the query must aggregate them again.
            if isGrouped && u.groupBy.isEmpty && !u.items.contains(where: { item in
                if case .expr(let e, _) = item { return Self.aggregate(e) != nil }
                return false
            }) { return nil }
        }
        var mappedExtra: [Expr] = []
        for c in extra {
            guard let m = map(c, aggregates: false) else { return nil }
            mappedExtra.append(m)
        }
        var order: [OrderItem] = []
        for o in query.orderBy {
            var mapped = o
            if case .literal(.integer) = o.expr.kind {
            } else if let i = Self.outputPosition(o.expr, names) {
                mapped.expr = Expr(.literal(.integer(String(i + 1))))
            } else if let m = map(o.expr, aggregates: true) {
                mapped.expr = m
            } else {
                return nil
            }
            order.append(mapped)
        }
        let selectItems = items.enumerated().map { i, e -> SelectItem in
            let typed = types[i] == .unknown ? e : Expr(.cast(e, types[i], .cast))
            return .expr(typed, alias: names[i])
        }
        let whereClause = mappedExtra.reduce(nil as Expr?) { acc, c in acc.map { Expr(.binary(.and, $0, c)) } ?? c }
        let select = Select(items: selectItems, from: [TableRef(.table(view, alias: nil))], whereClause: whereClause,
                            groupBy: groupBy, having: having)
        return Query(body: .select(select), orderBy: order, limit: query.limit, offset: query.offset)
    }

    /// The position of the output `e` names (a bare name among `names`).
    static func outputPosition(_ e: Expr, _ names: [String]) -> Int? {
        guard case .column(let ref) = e.kind, ref.parts.count == 1 else { return nil }
        return names.firstIndex(of: ref.name)
    }

    /// `e` computed from the view's columns, or nil. `aggregates`: SUM / COUNT / MIN / MAX
    /// may appear (a grouped view re-aggregates its own; a plain view aggregates its columns).
    func map(_ e: Expr, aggregates: Bool) -> Expr? {
        let outs = outputs
        // What the view outputs as a key (or, without grouping, any output).
        if let i = outs.firstIndex(where: { $0.aggregate == nil && $0.expr == e }) { return column(i) }
        func again(_ x: Expr) -> Expr? { map(x, aggregates: aggregates) }
        func make(_ k: ExprKind) -> Expr { Expr(k, at: e.location) }
        switch e.kind {
        case .literal, .typedLiteral, .interval, .parameter:
            return e
        case .column:
            return nil
        case .unary(let op, let a):
            return again(a).map { make(.unary(op, $0)) }
        case .binary(let op, let a, let b):
            guard let x = again(a), let y = again(b) else { return nil }
            return make(.binary(op, x, y))
        case .isNull(let a, let n):
            return again(a).map { make(.isNull($0, negated: n)) }
        case .isBoolean(let a, let v, let n):
            return again(a).map { make(.isBoolean($0, value: v, negated: n)) }
        case .isDistinctFrom(let a, let b, let n):
            guard let x = again(a), let y = again(b) else { return nil }
            return make(.isDistinctFrom(x, y, negated: n))
        case .between(let a, let lo, let hi, let n):
            guard let x = again(a), let l = again(lo), let h = again(hi) else { return nil }
            return make(.between(x, low: l, high: h, negated: n))
        case .inList(let a, let list, let n):
            guard let x = again(a) else { return nil }
            var mapped: [Expr] = []
            for v in list { guard let m = again(v) else { return nil }; mapped.append(m) }
            return make(.inList(x, mapped, negated: n))
        case .like(let op, let a, let p, let esc, let n):
            guard let x = again(a), let y = again(p) else { return nil }
            var escape: Expr?
            if let esc { guard let m = again(esc) else { return nil }; escape = m }
            return make(.like(op, x, pattern: y, escape: escape, negated: n))
        case .caseWhen(var c):
            if let o = c.operand { guard let m = again(o) else { return nil }; c.operand = m }
            for i in c.whens.indices {
                guard let w = again(c.whens[i].condition), let r = again(c.whens[i].result) else { return nil }
                c.whens[i].condition = w
                c.whens[i].result = r
            }
            if let x = c.elseResult { guard let m = again(x) else { return nil }; c.elseResult = m }
            return make(.caseWhen(c))
        case .cast(let a, let t, let s):
            return again(a).map { make(.cast($0, t, s)) }
        case .function(var f):
            if let (kind, arg) = Self.aggregate(e) {
                guard aggregates else { return nil }
                return mapAggregate(kind, arg, f)
            }
            // Any other aggregate (AVG, STDDEV, ...) or a window function cannot be mapped.
            guard f.over == nil, !AggregateFunction.isAggregateName(f.name), !Self.derivedAggregates.contains(f.name) else {
                return nil
            }
            for i in f.args.indices {
                guard let m = again(f.args[i]) else { return nil }
                f.args[i] = m
            }
            return make(.function(f))
        case .inSubquery, .exists, .subquery, .quantified, .quantifiedArray, .defaultValue, .row:
            return nil
        }
    }

    /// An aggregate of the query over the view's rows.
    private func mapAggregate(_ kind: AggregateKind, _ arg: Expr?, _ f: FunctionCall) -> Expr? {
        func call(_ name: String, _ x: Expr) -> Expr { Expr(.function(FunctionCall(name: name, args: [x]))) }
        if !isGrouped {
            // A plain view: aggregate its columns.
            if kind == .countStar { return Expr(.function(f)) }
            guard let a = arg, let m = map(a, aggregates: false) else { return nil }
            var g = f
            g.args = [m]
            return Expr(.function(g))
        }
        let outs = outputs
        let found = outs.firstIndex { o in
            guard let (k, a) = o.aggregate else { return false }
            switch (kind, k) {
            case (.sum, .sum), (.count, .count), (.min, .min), (.max, .max): return a == arg
            case (.countStar, .countStar): return true
            default: return false
            }
        }
        if let i = found {
            switch kind {
            case .sum: return call("sum", column(i))
            case .count, .countStar: return Expr(.cast(call("sum", column(i)), .bigint, .cast))
            case .min: return call("min", column(i))
            case .max: return call("max", column(i))
            }
        }
        // MIN / MAX of a key: over the groups' keys.
        if kind == .min || kind == .max, let a = arg, let m = map(a, aggregates: false) {
            return call(kind == .min ? "min" : "max", m)
        }
        return nil
    }
}
