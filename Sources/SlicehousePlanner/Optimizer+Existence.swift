// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Inner joins whose output is only tested for existence become semi joins.
///
/// Below an IN / EXISTS subquery (the inner side of a semi or anti join), a DISTINCT, a
/// GROUP BY whose aggregates ignore duplicates, or a UNION / INTERSECT / EXCEPT without
/// ALL, how often a row occurs does not change the answer: only which distinct rows
/// occur. There, `L JOIN R ON c` of which nothing above reads R's columns yields the same
/// distinct rows as `L SEMI JOIN R ON c`, each L row at most once instead of once per
/// matching R row. TPC-DS q95's `ws_wh` joins web_sales with itself on the order number
/// (6.6 M pairs at SF 1) only for `ws_order_number IN (SELECT ws_order_number FROM
/// ws_wh)`; as a semi join it yields the 0.7 M web_sales rows that have a partner.
///
/// Runs last, after projection pruning, so that what each node's parent reads is exact.
extension Optimizer {
    func existenceJoins(_ plan: LogicalPlan) -> LogicalPlan {
        existence(plan, required: plan.outputIDs, onlyExistence: false)
    }

    /// `plan` rewritten where allowed. `required`: the columns of `plan` its parent reads;
    /// `onlyExistence`: the parent's answer depends only on which distinct rows (of the
    /// required columns) `plan` yields, not on how often each occurs.
    private func existence(_ plan: LogicalPlan, required: Set<Int>, onlyExistence: Bool) -> LogicalPlan {
        switch plan {
        case .scan, .values:
            return plan
        case .filter(let p, let e):
            return .filter(existence(p, required: required.union(e.referencedColumns), onlyExistence: onlyExistence), e)
        case .project(let p, let exprs, let outs):
            // Every expression stays, so every column one reads must stay available.
            let need = exprs.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }
            return .project(existence(p, required: need, onlyExistence: onlyExistence), exprs, outputs: outs)
        case .join(let kind, let l, let r, let c):
            let need = required.union(c?.referencedColumns ?? [])
            let lids = l.outputIDs, rids = r.outputIDs
            // With an equality between the sides (else a semi join would be a nested loop).
            if onlyExistence, kind == .inner, let c, conjuncts(c).contains(where: { equiKey($0, lids, rids) != nil }) {
                if required.isDisjoint(with: rids) {
                    return .join(.semi, existence(l, required: need.intersection(lids), onlyExistence: true),
                                 existence(r, required: need.intersection(rids), onlyExistence: true), condition: c)
                }
                if required.isDisjoint(with: lids) {
                    return .join(.semi, existence(r, required: need.intersection(rids), onlyExistence: true),
                                 existence(l, required: need.intersection(lids), onlyExistence: true), condition: c)
                }
            }
            // Which distinct rows a join yields depends only on which distinct rows its
            // inputs hold, except for a scalar subquery's join (more than one row is an error).
            let leftOnly: Bool, rightOnly: Bool
            switch kind {
            case .inner, .cross, .left, .right, .full: (leftOnly, rightOnly) = (onlyExistence, onlyExistence)
            case .semi, .anti, .antiNullAware: (leftOnly, rightOnly) = (onlyExistence, true)
            case .leftSingle: (leftOnly, rightOnly) = (onlyExistence, false)
            }
            return .join(kind, existence(l, required: need.intersection(lids), onlyExistence: leftOnly),
                         existence(r, required: need.intersection(rids), onlyExistence: rightOnly), condition: c)
        case .aggregate(let p, let groups, let groupOutputs, let aggs):
            let need = aggregateInputColumns(groups, aggs)
            let ignoresDuplicates = aggs.allSatisfy { a in
                !a.function.isOrderedSet && (a.function == .min || a.function == .max || a.distinct)
            }
            return .aggregate(existence(p, required: need, onlyExistence: ignoresDuplicates),
                              groups: groups, groupOutputs: groupOutputs, aggregates: aggs)
        case .sort(let p, let keys):
            var need = required
            for k in keys { need.formUnion(k.expr.referencedColumns) }
            return .sort(existence(p, required: need, onlyExistence: onlyExistence), keys)
        case .limit(let p, let l, let o):
            return .limit(existence(p, required: required, onlyExistence: false), limit: l, offset: o)
        case .distinct(let p):
            return .distinct(existence(p, required: p.outputIDs, onlyExistence: true))
        case .window(let p, let ws):
            return .window(existence(p, required: windowInputColumns(p, ws, required: required), onlyExistence: false), ws)
        case .setOperation(let k, let all, let l, let r, let o):
            // Set operations read their inputs by position: every column stays.
            let only = all ? (k == .union && onlyExistence) : true
            return .setOperation(k, all: all, existence(l, required: l.outputIDs, onlyExistence: only),
                                 existence(r, required: r.outputIDs, onlyExistence: only), outputs: o)
        case .unnest(let p, let a, let e, let i):
            let need = required.intersection(p.outputIDs).union(a.referencedColumns)
            return .unnest(existence(p, required: need, onlyExistence: onlyExistence), array: a, element: e, position: i)
        }
    }
}

// MARK: - Distinct keys under existence joins

extension Optimizer {
    /// The inner side of a semi or anti join (EXISTS, IN, NOT EXISTS, NOT IN) that reads a
    /// table (under filters and projections), whose condition reads only columns of it
    /// that the equalities compare, estimated at four rows or more per distinct value of
    /// those columns, is reduced to its distinct values first: only whether a value occurs
    /// decides a row, and the join then builds or probes each value once. Planned as a
    /// distinct aggregate, a distributed inner side is reduced on each slice before it
    /// moves: TPC-H Q22's `NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)`
    /// moved 1.5 M orders at SF 1 to the customers' slices and probed them all against the
    /// chosen customers; now 0.38 M keys move, distinct on each slice, and the customers
    /// probe the 0.1 M distinct keys. A NULL key stays one value, so NOT IN still keeps
    /// nothing when the inner side has one.
    ///
    /// Under EXISTS, IN and NOT EXISTS (not NOT IN), only the inner values that some outer
    /// row compares with can decide anything. When a small, filtered subtree of the outer
    /// side holds all of the outer side's compared values, the inner rows are first
    /// semi-joined with a copy of it (`restrictedToOuterKeys`), so that the aggregate sees
    /// only those rows, and a runtime filter from the copy drops the others in the inner
    /// side's scan: Q22's chosen customers (the country codes keep 28% of them) restrict
    /// the orders whose customer keys are made distinct. NOT IN is left alone: a NULL
    /// inner value must still reach it, and a semi join drops it.
    func distinctExistenceInputs(_ plan: LogicalPlan) -> LogicalPlan {
        var nextID = maxColumnID(plan)
        func rewrite(_ plan: LogicalPlan) -> LogicalPlan {
            let p = plan.mapChildren { rewrite($0) }
            guard case .join(let kind, let l, let r, let condition) = p,
                  kind == .semi || kind == .anti || kind == .antiNullAware, let condition else { return p }
            // A table's rows under filters and projections: its estimate rests on the table's
            // statistics. (A join's estimate can be far off: Q20's IN over partsupp joined to
            // its parts and line items is estimated at 200 K rows and has 5.8 K.)
            func tableRead(_ x: LogicalPlan) -> Bool {
                switch x {
                case .scan: return true
                case .filter(let q, _), .project(let q, _, _): return tableRead(q)
                default: return false
                }
            }
            guard tableRead(r) else { return p }
            let lids = l.outputIDs, rids = r.outputIDs
            var keys: [PlanColumn] = []
            var pairs: [(x: BoundExpr, k: BoundExpr)] = []
            for c in conjuncts(condition) {
                guard let (outer, inner) = equiKey(c, lids, rids), case .column(let id, _) = inner,
                      let column = r.outputs.first(where: { $0.id == id }) else { return p }
                pairs.append((outer, inner))
                if !keys.contains(where: { $0.id == id }) { keys.append(column) }
            }
            guard !keys.isEmpty, condition.referencedColumns.intersection(rids).isSubset(of: Set(keys.map { $0.id })) else { return p }
            let distinct = groupsAtMost(keys.map { .column($0.id, $0.type) }, of: r)
            guard distinct.isFinite, estimate(r) >= 4 * distinct else { return p }
            var input = r
            if kind != .antiNullAware, let restricted = restrictedToOuterKeys(l, r, pairs, &nextID) {
                input = restricted
            }
            let reduced = LogicalPlan.distinct(.project(input, keys.map { .column($0.id, $0.type) }, outputs: keys))
            return .join(kind, l, reduced, condition: condition)
        }
        return rewrite(plan)
    }

    /// `inner` semi-joined with a copy of the smallest filtered subtree of `outer` that
    /// holds every outer value `x` of the join's equalities `x = k`, reading only the
    /// compared columns; nil when that does not pay (`keySourceCopy`). An inner row whose
    /// values no outer row has matches nothing, so only rows that could match are kept.
    private func restrictedToOuterKeys(_ outer: LogicalPlan, _ inner: LogicalPlan,
                                       _ pairs: [(x: BoundExpr, k: BoundExpr)],
                                       _ nextID: inout Int) -> LogicalPlan? {
        // A volatile outer value (`random()`) would differ in the copy.
        guard !pairs.contains(where: { isVolatile($0.x) }) else { return nil }
        var xRefs = Set<Int>()
        for p in pairs { xRefs.formUnion(p.x.referencedColumns) }
        guard let (copy, map) = keySourceCopy(of: outer, holding: xRefs, toRestrict: estimate(inner), &nextID) else { return nil }
        var conds: [BoundExpr] = []
        var read = Set<Int>()
        for p in pairs {
            let x = p.x.remapColumns { map[$0] ?? $0 }
            read.formUnion(x.referencedColumns)
            conds.append(.binary(.equal, p.k, x, .boolean))
        }
        let source = prune(copy, required: read)
        return .join(.semi, inner, source, condition: conds.count == 1 ? conds[0] : .and(conds))
    }
}
