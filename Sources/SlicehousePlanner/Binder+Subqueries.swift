import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseSQL

/// Subqueries are decorrelated into joins:
///
/// | written                              | plan                                                        |
/// |--------------------------------------|-------------------------------------------------------------|
/// | `EXISTS (q)` / `NOT EXISTS (q)`      | semi / anti join; q's correlated predicates are the join condition |
/// | `x IN (q)` / `x NOT IN (q)`          | semi join on `x = q.col` / null-aware anti join               |
/// | uncorrelated scalar `(q)`            | left join against q's single row (more rows is an error)      |
/// | correlated scalar `(select agg ... where inner = outer)` | q grouped by the inner correlation keys, left-joined on them |
///
/// EXISTS and IN are supported as conjuncts of WHERE (and HAVING); scalar subqueries anywhere
/// in WHERE, HAVING and the select list.
extension Binder {
    /// Bind a subquery with `scope` visible as its outer scope. Returns the plan and
    /// the outer column ids it references.
    func bindSubquery(_ q: Query, outer scope: Scope) throws -> (LogicalPlan, Set<Int>) {
        outerScopes.append(scope)
        let savedCorrelated = correlatedIDs
        correlatedIDs = []
        defer { outerScopes.removeLast() }
        let plan = try bind(query: q)
        let used = correlatedIDs
        // References to scopes further out stay correlated for the enclosing subquery.
        let mine = Set(scope.allColumns.map { $0.id })
        correlatedIDs = savedCorrelated.union(used.subtracting(mine))
        return (plan, used)
    }

    /// Bind a scalar subquery; its value becomes a column joined into the current clause.
    func bindScalarSubquery(_ q: Query, _ e: Expr, _ scope: Scope) throws -> BoundExpr {
        let (plan, correlated) = try bindSubquery(q, outer: scope)
        let outs = plan.outputs
        guard outs.count == 1 else {
            throw err(.syntax, "subquery must return only one column", e)
        }
        var joined = plan
        var keys: [(outer: BoundExpr, inner: PlanColumn)] = []
        var noMatch: (matched: PlanColumn, value: BoundExpr)? = nil
        if !correlated.isEmpty {
            (joined, keys, noMatch) = try decorrelateScalar(plan, outerIDs: correlated, e)
        }
        let value = outs[0]
        pendingSubqueries.append(PendingScalar(plan: joined, output: value, keys: keys))
        guard let noMatch else { return .column(value.id, value.type) }
        // No group for this row's keys: the subquery's value over no rows (COUNT is 0).
        let missing = BoundExpr.isNull(.column(noMatch.matched.id, noMatch.matched.type), negated: false)
        return .caseWhen([WhenClause(condition: missing, result: noMatch.value)],
                         elseResult: .column(value.id, value.type), value.type)
    }

    /// The value of `expr` (over the aggregate outputs of `aggs`) when the aggregate
    /// saw no rows: COUNT is 0, every other aggregate NULL. nil when that value is NULL
    /// (what the left join gives anyway) or not a constant.
    func valueOverNoRows(_ expr: BoundExpr, _ aggs: [LogicalAggregate]) -> BoundExpr? {
        var empty: [Int: BoundExpr] = [:]
        for a in aggs {
            switch a.function {
            case .countStar, .count, .approximateCountDistinct: empty[a.output.id] = .constant(.int(0), a.output.type)
            default: empty[a.output.id] = .constant(.null, a.output.type)
            }
        }
        let substituted = expr.transform { e in
            if case .column(let id, _) = e, let c = empty[id] { return c }
            return e
        }
        guard substituted.isConstant, let v = try? evaluateConstant(substituted), !v.isNull else { return nil }
        return .constant(v, expr.type)
    }

    /// Join the pending scalar subqueries into `plan`.
    func applyPendingScalars(_ plan: LogicalPlan) -> LogicalPlan {
        var p = plan
        for s in pendingSubqueries {
            if s.keys.isEmpty {
                p = .join(.leftSingle, p, s.plan, condition: nil)
            } else {
                let conds = s.keys.map { BoundExpr.binary(.equal, $0.outer, .column($0.inner.id, $0.inner.type), .boolean) }
                p = .join(.left, p, s.plan, condition: conds.count == 1 ? conds[0] : .and(conds))
            }
        }
        pendingSubqueries = []
        return p
    }

    /// `select agg(...) from ... where inner = outer ...` → the same aggregate grouped by the
    /// inner sides of the correlation equalities, exposing those keys.
    /// When the subquery has a value over no rows other than NULL (`count(*)`), a
    /// constant TRUE column is exposed too, so that a row without a group can be told apart.
    func decorrelateScalar(_ plan: LogicalPlan, outerIDs: Set<Int>, _ e: Expr) throws
        -> (LogicalPlan, [(outer: BoundExpr, inner: PlanColumn)], (matched: PlanColumn, value: BoundExpr)?) {
        guard case .project(let aggPlan, let exprs, let outs) = plan,
              case .aggregate(let input, let groups, let groupOutputs, let aggs) = aggPlan, groups.isEmpty else {
            throw err(.featureNotSupported, "this correlated subquery form is not supported yet (use an aggregate over equality correlations)", e)
        }
        let (strippedInput, preds) = extractCorrelated(input, outerIDs: outerIDs)
        var newGroups = groups, newGroupOutputs = groupOutputs
        var keys: [(outer: BoundExpr, inner: PlanColumn)] = []
        for p in preds {
            guard case .binary(.equal, let a, let b, _) = p else {
                throw err(.featureNotSupported, "correlated subqueries need equality correlations", e)
            }
            let aOuter = !a.referencedColumns.isDisjoint(with: outerIDs), bOuter = !b.referencedColumns.isDisjoint(with: outerIDs)
            guard aOuter != bOuter else {
                throw err(.featureNotSupported, "correlated subqueries need equality correlations", e)
            }
            let (innerE, outerE) = aOuter ? (b, a) : (a, b)
            let col = newColumn(innerE.type, "?corr?")
            newGroups.append(innerE)
            newGroupOutputs.append(col)
            keys.append((outerE, col))
        }
        let agg = LogicalPlan.aggregate(strippedInput, groups: newGroups, groupOutputs: newGroupOutputs, aggregates: aggs)
        let pass = keys.map { BoundExpr.column($0.inner.id, $0.inner.type) }
        if let first = exprs.first, let value = valueOverNoRows(first, aggs) {
            let matched = newColumn(.boolean, "?matched?")
            return (.project(agg, exprs + pass + [.constant(.bool(true), .boolean)],
                             outputs: outs + keys.map { $0.inner } + [matched]), keys, (matched, value))
        }
        return (.project(agg, exprs + pass, outputs: outs + keys.map { $0.inner }), keys, nil)
    }

    /// Remove the filter conjuncts that reference outer columns from `plan` (through
    /// projections, filters and inner joins), making the inner columns they use visible
    /// at the top. Returns the stripped plan and the removed predicates.
    func extractCorrelated(_ plan: LogicalPlan, outerIDs: Set<Int>) -> (LogicalPlan, [BoundExpr]) {
        switch plan {
        case .filter(let input, let pred):
            let (inner, found) = extractCorrelated(input, outerIDs: outerIDs)
            var keep: [BoundExpr] = [], take: [BoundExpr] = found
            for c in conjuncts(pred) {
                if c.referencedColumns.isDisjoint(with: outerIDs) { keep.append(c) } else { take.append(c) }
            }
            if keep.isEmpty { return (inner, take) }
            return (.filter(inner, keep.count == 1 ? keep[0] : .and(keep)), take)
        case .project(let input, let exprs, let outs):
            let (inner, found) = extractCorrelated(input, outerIDs: outerIDs)
            // Pass through the inner columns the extracted predicates need.
            var needed = Set<Int>()
            for p in found { needed.formUnion(p.referencedColumns.subtracting(outerIDs)) }
            let have = Set(outs.map { $0.id })
            var e2 = exprs, o2 = outs
            for c in inner.outputs where needed.contains(c.id) && !have.contains(c.id) {
                e2.append(.column(c.id, c.type)); o2.append(c)
            }
            return (.project(inner, e2, outputs: o2), found)
        case .join(let k, let l, let r, let cond) where k == .inner || k == .cross:
            let (l2, f1) = extractCorrelated(l, outerIDs: outerIDs)
            let (r2, f2) = extractCorrelated(r, outerIDs: outerIDs)
            var keep: [BoundExpr] = [], take = f1 + f2
            for c in conjuncts(cond) {
                if c.referencedColumns.isDisjoint(with: outerIDs) { keep.append(c) } else { take.append(c) }
            }
            return (.join(keep.isEmpty ? .cross : .inner, l2, r2, condition: keep.isEmpty ? nil : (keep.count == 1 ? keep[0] : .and(keep))), take)
        case .distinct(let input):
            // Only semi/anti joins strip correlations here, and they ignore duplicates.
            return extractCorrelated(input, outerIDs: outerIDs)
        default:
            return (plan, [])
        }
    }

    /// Try to bind a WHERE/HAVING conjunct that is an EXISTS / IN subquery as a
    /// semi or anti join of `plan`. Returns nil when the conjunct is something else.
    func bindSubqueryConjunct(_ c: Expr, _ plan: LogicalPlan, _ scope: Scope, _ agg: AggregationContext?) throws -> LogicalPlan? {
        var negated = false
        var e = c
        if case .unary(.not, let inner) = c.kind { negated = true; e = inner }
        switch e.kind {
        case .exists(let q):
            let (sub, correlated) = try bindSubquery(q, outer: scope)
            let (stripped, preds) = extractCorrelated(sub, outerIDs: correlated)
            try checkFullyDecorrelated(stripped, correlated, c)
            let cond: BoundExpr? = preds.isEmpty ? nil : (preds.count == 1 ? preds[0] : .and(preds))
            return .join(negated ? .anti : .semi, plan, stripped, condition: cond)
        case .inSubquery(let x, let q, let notIn):
            let neg = negated != notIn
            let bx = try finishAggregate(try bindExpr(x, scope, agg: agg), agg, x.location)
            let (sub, correlated) = try bindSubquery(q, outer: scope)
            guard sub.outputs.count == 1 else { throw err(.syntax, "subquery has too many columns", e) }
            let (stripped, preds) = extractCorrelated(sub, outerIDs: correlated)
            try checkFullyDecorrelated(stripped, correlated, c)
            let v = sub.outputs[0]
            let eq = try comparison(.equal, bx, .column(v.id, v.type))
            let conds = [eq] + preds
            let cond: BoundExpr = conds.count == 1 ? conds[0] : .and(conds)
            if neg && !preds.isEmpty {
                throw err(.featureNotSupported, "correlated NOT IN subqueries are not supported yet (use NOT EXISTS)", c)
            }
            return .join(neg ? .antiNullAware : .semi, plan, stripped, condition: cond)
        default:
            return nil
        }
    }

    func checkFullyDecorrelated(_ plan: LogicalPlan, _ outerIDs: Set<Int>, _ e: Expr) throws {
        var leftover = false
        func check(_ x: BoundExpr) { if !x.referencedColumns.isDisjoint(with: outerIDs) { leftover = true } }
        visitExpressions(plan, check)
        if leftover {
            throw err(.featureNotSupported, "this correlated subquery form is not supported yet", e)
        }
    }

    func visitExpressions(_ plan: LogicalPlan, _ f: (BoundExpr) -> Void) {
        switch plan {
        case .scan(_, _, _, _, let filters): filters.forEach(f)
        case .filter(let p, let e): f(e); visitExpressions(p, f)
        case .project(let p, let es, _): es.forEach(f); visitExpressions(p, f)
        case .join(_, let l, let r, let c): c.map(f); visitExpressions(l, f); visitExpressions(r, f)
        case .aggregate(let p, let g, _, let aggs):
            g.forEach(f); aggs.forEach { $0.expressions.forEach(f) }; visitExpressions(p, f)
        case .sort(let p, let keys): keys.forEach { f($0.expr) }; visitExpressions(p, f)
        case .limit(let p, _, _), .distinct(let p): visitExpressions(p, f)
        case .window(let p, let ws):
            for w in ws { w.argument.map(f); w.partitionBy.forEach(f); w.orderBy.forEach { f($0.expr) } }
            visitExpressions(p, f)
        case .setOperation(_, _, let l, let r, _): visitExpressions(l, f); visitExpressions(r, f)
        case .values(let rows, _): rows.forEach { $0.forEach(f) }
        }
    }
}

struct PendingScalar {
    var plan: LogicalPlan
    var output: PlanColumn
    var keys: [(outer: BoundExpr, inner: PlanColumn)]
}
