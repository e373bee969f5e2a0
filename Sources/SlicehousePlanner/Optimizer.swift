// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Logical rewrites, applied in order:
/// 1. constant folding (`1 + 1` → `2`, `x AND TRUE` → `x`),
/// 2. an uncorrelated scalar subquery compared with one FROM input is joined to that input
///    (`sinkSingleRowJoins`), outer joins whose NULL-padded rows a filter or join above
///    rejects become inner or one-sided (`simplifyOuterJoins`), then predicate pushdown (filters move into scans and join sides, through projections,
///    grouping keys, window partitions and into both sides of UNION / INTERSECT / EXCEPT;
///    a cross join with an equality between its sides becomes an inner join); a left join
///    under a filter that wants its right key NULL becomes an anti join (`antiFromLeftJoins`),
/// 3. semi-join rewrites (`Optimizer+Semijoins.swift`): a grouped subquery is restricted to
///    the keys its join can match; semi/anti joins move down inner join trees,
/// 4. DISTINCT / GROUP BY over rows already unique on their columns are dropped
///    (`Optimizer+Keys.swift`),
/// 5. join ordering (inner-join trees are rebuilt greedily from estimated row counts,
///    left-deep from the largest table, or bushy when that is clearly cheaper:
///    `Optimizer+JoinOrder.swift`), then eager aggregation (a GROUP BY whose aggregates
///    read one side of its join pre-aggregates that side, and a SELECT DISTINCT of a
///    dimension's strings dedupes the fact side's integer columns first:
///    `Optimizer+EagerAggregation.swift`),
/// 6. projection pruning (scans read only the columns the query uses; a left join on a
///    unique key of a right side nothing reads is dropped),
/// 7. uncorrelated scalar subqueries aggregating the same rows (one table, the same
///    filters) share one aggregate over one scan (`Optimizer+ScalarAggregates.swift`),
/// 8. inner joins tested only for existence (under IN / EXISTS, DISTINCT, UNION) whose
///    one side nothing reads become semi joins (`Optimizer+Existence.swift`).
public struct Optimizer {
    let context: PlannerContext
    let evaluateConstant: (BoundExpr) throws -> Value
    /// What the estimates look up again and again while joins are ordered.
    let memo = Memo()

    /// The statistics of each scan's output columns, by the scan's output ids (unique in
    /// a statement): join ordering estimates every candidate subtree, each from its scans.
    final class Memo {
        var scanStatistics: [[Int]: [Int: ColumnStatistics]] = [:]
    }

    public init(context: PlannerContext, evaluateConstant: @escaping (BoundExpr) throws -> Value) {
        self.context = context
        self.evaluateConstant = evaluateConstant
    }

    public func optimize(_ plan: LogicalPlan) -> LogicalPlan {
        var p = mapExpressions(plan, { factorOr(unwidenComparisons(fold($0))) })
        p = sinkSingleRowJoins(p)
        p = simplifyOuterJoins(p, rejected: [])
        p = pushdown(p, [])
        p = antiFromLeftJoins(p)
        p = pushKeysIntoAggregates(p)
        p = pushSemiJoins(p)
        p = reduceByEquivalentKeys(p)
        p = removeRedundantGrouping(p)
        p = reorderJoins(p)
        p = eagerAggregation(p)
        p = pushComputations(p)
        p = prune(p, required: Set(p.outputs.map { $0.id }))
        p = mergeScalarAggregates(p)
        p = existenceJoins(p)
        p = distinctExistenceInputs(p)
        p = trailingBlanksInsignificant(p)
        return p
    }

    // MARK: - Constant folding

    func fold(_ e: BoundExpr) -> BoundExpr {
        e.transform { node in
            switch node {
            case .column, .constant: return node
            case .and(let parts):
                var kept: [BoundExpr] = []
                for p in parts {
                    if case .constant(.bool(true), _) = p { continue }
                    if case .constant(.bool(false), _) = p { return p }
                    kept.append(p)
                }
                if kept.isEmpty { return .constant(.bool(true), .boolean) }
                return kept.count == 1 ? kept[0] : .and(kept)
            case .or(let parts):
                var kept: [BoundExpr] = []
                for p in parts {
                    if case .constant(.bool(false), _) = p { continue }
                    if case .constant(.bool(true), _) = p { return p }
                    kept.append(p)
                }
                if kept.isEmpty { return .constant(.bool(false), .boolean) }
                return kept.count == 1 ? kept[0] : .or(kept)
            case .caseWhen:
                // Only fold a CASE whose branches are all constant (a branch may be guarded).
                break
            default: break
            }
            guard node.isConstant else { return node }
            // Leave an expression that fails (e.g. 1/0 in an untaken CASE branch) for run time.
            guard let v = try? evaluateConstant(node) else { return node }
            return .constant(v, node.type)
        }
    }

    /// `CAST(c AS DECIMAL(p2, s)) op k` → `c op k` for a DECIMAL(p1, s) column c (same
    /// scale, both held as 64-bit integers) and a constant k that DECIMAL(p1, s) can hold:
    /// the cast changes the type, not the stored integer, so the comparison is the same.
    /// The binder widens both sides of `decimal_column = integer` (TPC-DS's
    /// `s_gmt_offset = -5`, `ss_list_price BETWEEN 8 AND 18`) to a common type; compared
    /// as the column itself, the predicate reaches the zone maps, the scan's row checks
    /// and the estimates, which see only a bare column against a constant. IN lists too.
    func unwidenComparisons(_ e: BoundExpr) -> BoundExpr {
        func narrowed(_ k: BoundExpr, to type: DataType) -> BoundExpr? {
            guard case .constant(let v, let kt) = k, case .decimal(_, let ks) = kt, kt.physical == .int64,
                  case .decimal(let p1, let s1) = type, ks == s1, type.physical == .int64, p1 <= 18 else { return nil }
            guard case .int(let raw) = v else { return v.isNull ? .constant(v, type) : nil }
            var limit: Int64 = 1
            for _ in 0..<p1 { limit = limit &* 10 }
            guard raw > -limit && raw < limit else { return nil }
            return .constant(.int(raw), type)
        }
        func column(_ x: BoundExpr) -> BoundExpr? {
            // Widening only: a narrowing cast can fail (numeric overflow), which the bare
            // column would not.
            guard case .cast(let c, let wide) = x, case .column(_, let t) = c, t.isDecimal, wide.isDecimal,
                  t.scale == wide.scale, wide.precision >= t.precision,
                  t.physical == .int64, wide.physical == .int64 else { return nil }
            return c
        }
        return e.transform { node in
            switch node {
            case .binary(let op, let l, let r, let t) where op.isComparison:
                if let c = column(l), let k = narrowed(r, to: c.type) { return .binary(op, c, k, t) }
                if let c = column(r), let k = narrowed(l, to: c.type) { return .binary(op, k, c, t) }
                return node
            case .inList(let x, let items, let negated):
                guard let c = column(x) else { return node }
                let ks = items.compactMap { narrowed($0, to: c.type) }
                return ks.count == items.count ? .inList(c, ks, negated: negated) : node
            default:
                return node
            }
        }
    }

    /// `(a AND b) OR (a AND c)` → `a AND (b OR c)`: conjuncts common to every branch of
    /// an OR move out of it, so a join key written inside each branch (TPC-H Q19) becomes
    /// an equi-join condition.
    func factorOr(_ e: BoundExpr) -> BoundExpr {
        e.transform { node in
            guard case .or(let branches) = node, branches.count > 1 else { return node }
            let sets = branches.map { conjuncts($0) }
            let common = sets[0].filter { c in sets.dropFirst().allSatisfy { $0.contains(c) } }
            if common.isEmpty { return node }
            var rest: [BoundExpr] = []
            for s in sets {
                let r = s.filter { !common.contains($0) }
                // One branch is exactly the common part: the OR is implied by it.
                if r.isEmpty { return common.count == 1 ? common[0] : .and(common) }
                rest.append(r.count == 1 ? r[0] : .and(r))
            }
            return .and(common + [.or(rest)])
        }
    }

    /// Apply `f` to every expression in the plan.
    func mapExpressions(_ plan: LogicalPlan, _ f: (BoundExpr) -> BoundExpr) -> LogicalPlan {
        switch plan {
        case .scan(let t, let a, let c, let o, let filters): return .scan(table: t, alias: a, columns: c, outputs: o, filters: filters.map(f))
        case .filter(let p, let e): return .filter(mapExpressions(p, f), f(e))
        case .project(let p, let es, let o): return .project(mapExpressions(p, f), es.map(f), outputs: o)
        case .join(let k, let l, let r, let c): return .join(k, mapExpressions(l, f), mapExpressions(r, f), condition: c.map(f))
        case .aggregate(let p, let g, let go, let aggs):
            return .aggregate(mapExpressions(p, f), groups: g.map(f), groupOutputs: go,
                              aggregates: aggs.map { $0.mapExpressions(f) })
        case .sort(let p, let keys):
            return .sort(mapExpressions(p, f), keys.map { LogicalSortKey(expr: f($0.expr), ascending: $0.ascending, nullsFirst: $0.nullsFirst) })
        case .limit(let p, let l, let o): return .limit(mapExpressions(p, f), limit: l, offset: o)
        case .distinct(let p): return .distinct(mapExpressions(p, f))
        case .window(let p, let ws):
            return .window(mapExpressions(p, f), ws.map { w in
                var w = w
                w.argument = w.argument.map(f)
                w.partitionBy = w.partitionBy.map(f)
                w.orderBy = w.orderBy.map { LogicalSortKey(expr: f($0.expr), ascending: $0.ascending, nullsFirst: $0.nullsFirst) }
                return w
            })
        case .setOperation(let k, let all, let l, let r, let o): return .setOperation(k, all: all, mapExpressions(l, f), mapExpressions(r, f), outputs: o)
        case .values(let rows, let o): return .values(rows.map { $0.map(f) }, outputs: o)
        case .unnest(let p, let a, let e, let i): return .unnest(mapExpressions(p, f), array: f(a), element: e, position: i)
        }
    }

    // MARK: - Predicate pushdown

    func wrap(_ plan: LogicalPlan, _ preds: [BoundExpr]) -> LogicalPlan {
        let ps = preds.filter { if case .constant(.bool(true), _) = $0 { return false }; return true }
        if ps.isEmpty { return plan }
        return .filter(plan, ps.count == 1 ? ps[0] : .and(ps))
    }

    func pushdown(_ plan: LogicalPlan, _ preds: [BoundExpr]) -> LogicalPlan {
        switch plan {
        case .filter(let input, let p):
            return pushdown(input, preds + conjuncts(p))
        case .scan(let t, let a, let c, let o, let filters):
            let kept = preds.filter { if case .constant(.bool(true), _) = $0 { return false }; return true }
            return .scan(table: t, alias: a, columns: c, outputs: o, filters: filters + kept)
        case .join(let kind, let l, let r, let cond):
            let lids = l.outputIDs, rids = r.outputIDs
            var lp: [BoundExpr] = [], rp: [BoundExpr] = [], jp: [BoundExpr] = [], above: [BoundExpr] = []
            switch kind {
            case .inner, .cross:
                for p in preds + conjuncts(cond) {
                    let refs = p.referencedColumns
                    // A constant (FALSE where a UNION branch cannot match) empties both sides.
                    if refs.isEmpty && !isVolatile(p) { lp.append(p); rp.append(p); continue }
                    if refs.isSubset(of: lids) { lp.append(p) }
                    else if refs.isSubset(of: rids) { rp.append(p) }
                    else {
                        jp.append(p)
                        // `(a1 AND b1) OR (a2 AND b2)` over both sides implies `a1 OR a2` on one side.
                        if let d = derivedFilter(p, lids) { lp.append(d) }
                        if let d = derivedFilter(p, rids) { rp.append(d) }
                    }
                }
                let newKind: LogicalJoinKind = jp.isEmpty ? .cross : .inner
                return .join(newKind, pushdown(l, lp), pushdown(r, rp), condition: jp.isEmpty ? nil : (jp.count == 1 ? jp[0] : .and(jp)))
            case .left, .semi, .anti, .antiNullAware, .leftSingle:
                for p in preds {
                    if p.referencedColumns.isSubset(of: lids) { lp.append(p) } else { above.append(p) }
                }
                for p in conjuncts(cond) {
                    if p.referencedColumns.isSubset(of: rids) { rp.append(p) } else { jp.append(p) }
                }
                // NOT IN's answer depends on whether the other side holds a NULL key, which
                // a filter carried over would remove.
                if kind != .antiNullAware {
                    rp += carriedFilters(lp + knownFilters(l), across: cond, from: lids, to: rids, besides: rp + knownFilters(r))
                }
                let j = LogicalPlan.join(kind, pushdown(l, lp), pushdown(r, rp), condition: jp.isEmpty ? nil : (jp.count == 1 ? jp[0] : .and(jp)))
                return wrap(j, above)
            case .right:
                for p in preds {
                    if p.referencedColumns.isSubset(of: rids) { rp.append(p) } else { above.append(p) }
                }
                for p in conjuncts(cond) {
                    if p.referencedColumns.isSubset(of: lids) { lp.append(p) } else { jp.append(p) }
                }
                lp += carriedFilters(rp + knownFilters(r), across: cond, from: rids, to: lids, besides: lp + knownFilters(l))
                let j = LogicalPlan.join(kind, pushdown(l, lp), pushdown(r, rp), condition: jp.isEmpty ? nil : (jp.count == 1 ? jp[0] : .and(jp)))
                return wrap(j, above)
            case .full:
                return wrap(.join(kind, pushdown(l, []), pushdown(r, []), condition: cond), preds)
            }
        case .project(let input, let exprs, let outputs):
            var below: [BoundExpr] = [], above: [BoundExpr] = []
            let byID = Dictionary(uniqueKeysWithValues: zip(outputs.map { $0.id }, exprs))
            let volatile = exprs.contains { e in var v = false; e.visit { if case .function(let f, _, _) = $0, f.isVolatile { v = true } }; return v }
            for p in preds {
                if volatile { above.append(p); continue }
                below.append(fold(p.transform { n in
                    if case .column(let id, _) = n, let e = byID[id] { return e }
                    return n
                }))
            }
            return wrap(.project(pushdown(input, below), exprs, outputs: outputs), above)
        case .aggregate(let input, let groups, let groupOutputs, let aggs):
            var below: [BoundExpr] = [], above: [BoundExpr] = []
            let gids = Set(groupOutputs.map { $0.id })
            let byID = Dictionary(uniqueKeysWithValues: zip(groupOutputs.map { $0.id }, groups))
            for p in preds {
                if !groups.isEmpty && p.referencedColumns.isSubset(of: gids) {
                    below.append(p.transform { n in
                        if case .column(let id, _) = n, let e = byID[id] { return e }
                        return n
                    })
                } else { above.append(p) }
            }
            return wrap(.aggregate(pushdown(input, below), groups: groups, groupOutputs: groupOutputs, aggregates: aggs), above)
        case .sort(let input, let keys):
            return .sort(pushdown(input, preds), keys)
        case .distinct(let input):
            return .distinct(pushdown(input, preds))
        case .limit(let input, let l, let o):
            return wrap(.limit(pushdown(input, []), limit: l, offset: o), preds)
        case .window(let input, let ws):
            // A filter on columns every window partitions by removes whole partitions:
            // it may run before the windows.
            var below: [BoundExpr] = [], above: [BoundExpr] = []
            let inputIDs = input.outputIDs
            var partitionIDs: Set<Int>? = nil
            for w in ws {
                var ids = Set<Int>()
                for e in w.partitionBy { if case .column(let id, _) = e { ids.insert(id) } }
                partitionIDs = partitionIDs.map { $0.intersection(ids) } ?? ids
            }
            for p in preds {
                let refs = p.referencedColumns
                if !refs.isEmpty, refs.isSubset(of: inputIDs), refs.isSubset(of: partitionIDs ?? []), !isVolatile(p) {
                    below.append(p)
                } else { above.append(p) }
            }
            return wrap(.window(pushdown(input, below), ws), above)
        case .setOperation(let k, let all, let l, let r, let o):
            // A filter on the rows of UNION / INTERSECT / EXCEPT [ALL] filters each side
            // (`WHERE sale_type = 's'` over a UNION ALL of three channels keeps one branch).
            var lp: [BoundExpr] = [], rp: [BoundExpr] = [], above: [BoundExpr] = []
            for p in preds {
                if isVolatile(p) { above.append(p); continue }
                lp.append(substituteOutputs(p, o, l.outputs))
                rp.append(substituteOutputs(p, o, r.outputs))
            }
            return wrap(.setOperation(k, all: all, pushdown(l, lp), pushdown(r, rp), outputs: o), above)
        case .values:
            return wrap(plan, preds)
        case .unnest(let input, let a, let e, let i):
            // Filters on the input's columns run before the rows are repeated.
            let inputIDs = input.outputIDs
            var below: [BoundExpr] = [], above: [BoundExpr] = []
            for p in preds {
                if p.referencedColumns.isSubset(of: inputIDs), !isVolatile(p) { below.append(p) } else { above.append(p) }
            }
            return wrap(.unnest(pushdown(input, below), array: a, element: e, position: i), above)
        }
    }

    /// Filters on the kept side of an outer (or semi, anti, single-row) join carried to
    /// the other side through the join's equalities: under `a LEFT JOIN b ON a.k = b.k`
    /// with `a.k = 2000` filtering `a`, a row of `b` whose `k` is not 2000 matches no row
    /// of `a` that reaches the join, so `b.k = 2000` may filter `b` first (TPC-DS q78: the
    /// web sales of one year are aggregated, not those of all five). `filters` are those
    /// passed down to the kept side and those already in it (`knownFilters`: a WHERE
    /// conjunct on the kept side has been moved below the join by `sinkSingleRowJoins`).
    ///
    /// A row of `b` matches a row of `a` only where `a.k = b.k` is true: both are the same
    /// non-NULL value, so a filter of that one column gives the same answer on either.
    /// Only a filter of one column, equated with a column of the other side of the very
    /// same type, is carried, and only for types whose equal values are the same value
    /// (`PhysicalPlanner.equalMeansSame`): `'a'` equals `'a '`, but `length` tells them
    /// apart, and -0.0 equals 0.0. A filter the other side already has (`besides`) is not
    /// added again: the row estimates would count its selectivity twice.
    func carriedFilters(_ filters: [BoundExpr], across cond: BoundExpr?, from kept: Set<Int>,
                        to other: Set<Int>, besides present: [BoundExpr] = []) -> [BoundExpr] {
        var partners: [Int: [Int]] = [:]
        for p in conjuncts(cond) {
            guard case .binary(.equal, .column(let a, let at), .column(let b, let bt), _) = p, at == bt,
                  PhysicalPlanner.equalMeansSame(at) else { continue }
            if kept.contains(a) && other.contains(b) { partners[a, default: []].append(b) }
            if kept.contains(b) && other.contains(a) { partners[b, default: []].append(a) }
        }
        if partners.isEmpty { return [] }
        var out: [BoundExpr] = []
        for f in filters where !isVolatile(f) {
            let refs = f.referencedColumns
            guard refs.count == 1, let x = refs.first, let ys = partners[x] else { continue }
            for y in ys {
                let carried = f.transform { n in
                    if case .column(x, let t) = n { return .column(y, t) }
                    return n
                }
                if !out.contains(carried) && !present.contains(carried) { out.append(carried) }
            }
        }
        return out
    }

    /// Filters of one column that every output row of `plan` passes: its filters and its
    /// scans' filters, seen through joins that pass those rows on unchanged, renamings
    /// (`SELECT k AS k2`) and grouping columns.
    func knownFilters(_ plan: LogicalPlan) -> [BoundExpr] {
        func single(_ ps: [BoundExpr]) -> [BoundExpr] {
            ps.filter { $0.referencedColumns.count == 1 && !isVolatile($0) }
        }
        /// `fs` over the columns `from` passes on as `to`.
        func renamed(_ fs: [BoundExpr], _ pairs: [(from: Int, to: Int)]) -> [BoundExpr] {
            var out: [BoundExpr] = []
            for f in fs {
                guard let x = f.referencedColumns.first else { continue }
                for (from, to) in pairs where from == x {
                    out.append(f.transform { n in
                        if case .column(x, let t) = n { return .column(to, t) }
                        return n
                    })
                }
            }
            return out
        }
        switch plan {
        case .scan(_, _, _, _, let filters):
            return single(filters)
        case .filter(let input, let p):
            return single(conjuncts(p)) + knownFilters(input)
        case .sort(let input, _), .limit(let input, _, _), .distinct(let input), .window(let input, _):
            return knownFilters(input)
        case .join(let kind, let l, let r, _):
            switch kind {
            case .inner, .cross: return knownFilters(l) + knownFilters(r)
            case .left, .semi, .anti, .antiNullAware, .leftSingle: return knownFilters(l)
            case .right: return knownFilters(r)
            case .full: return []
            }
        case .project(let input, let exprs, let outputs):
            let pairs = zip(exprs, outputs).compactMap { e, o -> (from: Int, to: Int)? in
                if case .column(let x, let t) = e, t == o.type { return (x, o.id) }
                return nil
            }
            return pairs.isEmpty ? [] : renamed(knownFilters(input), pairs)
        case .aggregate(let input, let groups, let groupOutputs, _):
            let pairs = zip(groups, groupOutputs).compactMap { e, o -> (from: Int, to: Int)? in
                if case .column(let x, let t) = e, t == o.type { return (x, o.id) }
                return nil
            }
            return pairs.isEmpty ? [] : renamed(knownFilters(input), pairs)
        case .setOperation, .values, .unnest:
            return []
        }
    }

    // MARK: - Outer join simplification

    /// Outer joins whose added rows (those padded with NULLs) cannot reach the output
    /// become inner, left or right joins, which filters pass into and join ordering may
    /// move: `a LEFT JOIN b ... WHERE b.x > 0` is an inner join, as is the left join under
    /// `... JOIN c ON b.k = c.k`. `rejected` holds the columns whose NULL keeps a row out
    /// above this node (null-rejecting filters and inner join conditions); it is passed
    /// down only where every row below reaches that filter unchanged.
    func simplifyOuterJoins(_ plan: LogicalPlan, rejected: Set<Int>) -> LogicalPlan {
        switch plan {
        case .filter(let input, let p):
            return .filter(simplifyOuterJoins(input, rejected: rejected.union(nullRejected(p))), p)
        case .join(var kind, let l, let r, let cond):
            let lids = l.outputIDs, rids = r.outputIDs
            let onRejects = cond.map { nullRejected($0) } ?? []
            switch kind {
            case .left where !rejected.isDisjoint(with: rids): kind = .inner
            case .right where !rejected.isDisjoint(with: lids): kind = .inner
            case .full:
                let left = !rejected.isDisjoint(with: lids), right = !rejected.isDisjoint(with: rids)
                if left || right { kind = left && right ? .inner : (left ? .left : .right) }
            default: break
            }
            let toLeft: Set<Int>, toRight: Set<Int>
            switch kind {
            case .inner, .cross:
                toLeft = rejected.union(onRejects); toRight = toLeft
            case .left:
                toLeft = rejected; toRight = onRejects
            case .right:
                toLeft = onRejects; toRight = rejected
            case .semi:
                // A left row whose join key is NULL has no match: it is dropped too.
                toLeft = rejected.union(onRejects); toRight = onRejects
            case .anti:
                toLeft = rejected; toRight = onRejects
            case .full, .antiNullAware, .leftSingle:
                toLeft = kind == .full ? [] : rejected; toRight = []
            }
            return .join(kind, simplifyOuterJoins(l, rejected: toLeft.intersection(lids)),
                         simplifyOuterJoins(r, rejected: toRight.intersection(rids)), condition: cond)
        case .project(let input, let exprs, let outputs):
            var below = Set<Int>()
            for (o, e) in zip(outputs, exprs) where rejected.contains(o.id) { below.formUnion(strictColumns(e)) }
            return .project(simplifyOuterJoins(input, rejected: below), exprs, outputs: outputs)
        case .aggregate(let input, let groups, let groupOutputs, let aggs):
            var below = Set<Int>()
            for (o, e) in zip(groupOutputs, groups) where rejected.contains(o.id) { below.formUnion(strictColumns(e)) }
            return .aggregate(simplifyOuterJoins(input, rejected: below), groups: groups, groupOutputs: groupOutputs, aggregates: aggs)
        case .sort(let input, let keys):
            return .sort(simplifyOuterJoins(input, rejected: rejected), keys)
        case .distinct(let input):
            return .distinct(simplifyOuterJoins(input, rejected: rejected))
        case .limit(let input, let l, let o):
            // The rows a filter above sees depend on which rows fill the limit.
            return .limit(simplifyOuterJoins(input, rejected: []), limit: l, offset: o)
        case .window(let input, let ws):
            // Every row below counts in some window.
            return .window(simplifyOuterJoins(input, rejected: []), ws)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, simplifyOuterJoins(l, rejected: []), simplifyOuterJoins(r, rejected: []), outputs: o)
        case .unnest(let input, let a, let e, let i):
            return .unnest(simplifyOuterJoins(input, rejected: rejected.intersection(input.outputIDs)), array: a, element: e, position: i)
        case .scan, .values:
            return plan
        }
    }

    /// Left joins under a filter that keeps only their unmatched rows become anti joins
    /// (`leftJoinAsAnti`); run after pushdown, which brings such a filter down to its join.
    func antiFromLeftJoins(_ plan: LogicalPlan) -> LogicalPlan {
        let p = plan.mapChildren { antiFromLeftJoins($0) }
        if case .filter(let input, let pred) = p, let anti = leftJoinAsAnti(input, pred) { return anti }
        return p
    }

    /// `L LEFT JOIN R ON c WHERE r.k IS NULL`, where a NULL r.k keeps c from being TRUE (a
    /// join key), keeps exactly the left rows without a partner: an anti join, with R's
    /// columns NULL above it (TPC-DS q78: sales without a return). The anti join drops the
    /// matched rows as it probes instead of joining them, gathering R's columns and
    /// filtering them out. The filter's other conjuncts stay above. Nil for any other shape.
    func leftJoinAsAnti(_ input: LogicalPlan, _ p: BoundExpr) -> LogicalPlan? {
        guard case .join(.left, let l, let r, let cond?) = input else { return nil }
        let keys = nullRejected(cond).intersection(r.outputIDs)
        var parts = conjuncts(p)
        guard let at = parts.firstIndex(where: { part in
            if case .isNull(.column(let id, _), negated: false) = part { return keys.contains(id) }
            return false
        }) else { return nil }
        parts.remove(at: at)
        let lids = l.outputIDs
        let anti = LogicalPlan.join(.anti, l, r, condition: cond)
        let padded = LogicalPlan.project(anti, input.outputs.map { c in lids.contains(c.id) ? .column(c.id, c.type) : .constant(.null, c.type) },
                                         outputs: input.outputs)
        return parts.isEmpty ? padded : .filter(padded, parts.count == 1 ? parts[0] : .and(parts))
    }

    /// Columns whose NULL keeps predicate `p` from being TRUE (a "null-rejecting" filter):
    /// a comparison, LIKE or IN is NULL when an operand is; AND rejects what any part
    /// rejects, OR what every branch rejects; `x IS NOT NULL` rejects x's. Conservative:
    /// CASE, COALESCE and functions reject nothing.
    func nullRejected(_ p: BoundExpr) -> Set<Int> {
        switch p {
        case .binary(let op, let l, let r, _) where op.isComparison:
            return strictColumns(l).union(strictColumns(r))
        case .isNull(let x, negated: true):
            return strictColumns(x)
        case .inList(let x, _, _):
            return strictColumns(x)
        case .like(let x, let pattern, _, _, _):
            return strictColumns(x).union(strictColumns(pattern))
        case .and(let parts):
            return parts.reduce(into: Set<Int>()) { $0.formUnion(nullRejected($1)) }
        case .or(let parts):
            guard let first = parts.first else { return [] }
            return parts.dropFirst().reduce(nullRejected(first)) { $0.intersection(nullRejected($1)) }
        case .unary(.not, let x, _):
            // NOT turns FALSE into TRUE but keeps NULL: only where x itself is NULL.
            switch x {
            case .binary(let op, let l, let r, _) where op.isComparison: return strictColumns(l).union(strictColumns(r))
            case .like(let y, let pattern, _, _, _): return strictColumns(y).union(strictColumns(pattern))
            default: return []
            }
        default:
            return []
        }
    }

    /// Columns whose NULL makes `e` NULL: a column, and casts, negation, arithmetic and
    /// concatenation over one.
    func strictColumns(_ e: BoundExpr) -> Set<Int> {
        switch e {
        case .column(let id, _): return [id]
        case .cast(let x, _), .unary(.negate, let x, _): return strictColumns(x)
        case .binary(let op, let l, let r, _) where !op.isComparison: return strictColumns(l).union(strictColumns(r))
        default: return []
        }
    }

    func isVolatile(_ e: BoundExpr) -> Bool {
        var v = false
        e.visit { if case .function(let f, _, _) = $0, f.isVolatile { v = true } }
        return v
    }

    /// `p` over a set operation's outputs `outs`, rewritten over one side's columns
    /// `side` (same positions; cast where the side's type differs).
    func substituteOutputs(_ p: BoundExpr, _ outs: [PlanColumn], _ side: [PlanColumn]) -> BoundExpr {
        var map: [Int: BoundExpr] = [:]
        for (o, c) in zip(outs, side) {
            map[o.id] = c.type == o.type ? .column(c.id, c.type) : .cast(.column(c.id, c.type), o.type)
        }
        return fold(p.transform { n in
            if case .column(let id, _) = n, let e = map[id] { return e }
            return n
        })
    }

    // MARK: - Uncorrelated scalar subqueries next to the table they filter

    /// `WHERE d.d_month_seq = (SELECT ...)`: the subquery's single row is joined to the
    /// whole FROM clause and the comparison filters only above every join. When a
    /// conjunct compares the subquery's value with columns of one input of the FROM
    /// clause's inner joins, the single-row join moves onto that input and the conjunct
    /// filters it there, so that the input enters the join order filtered (TPC-DS q06, q54,
    /// q58). The subquery's columns still flow up through the inner joins.
    func sinkSingleRowJoins(_ plan: LogicalPlan) -> LogicalPlan {
        switch plan {
        case .filter(.join(.leftSingle, let l, let r, nil), let pred):
            let rIDs = r.outputIDs
            var leaves: [LogicalPlan] = [], joinPreds: [BoundExpr] = []
            flattenInner(l, &leaves, &joinPreds)
            var rest = conjuncts(pred)
            var moved = false
            // Only into one of several inputs (a single input already has the join next to it).
            for (i, c) in rest.enumerated() where leaves.count > 1 && !c.referencedColumns.isDisjoint(with: rIDs) && !isVolatile(c) {
                let lrefs = c.referencedColumns.subtracting(rIDs)
                guard !lrefs.isEmpty, let k = leaves.firstIndex(where: { lrefs.isSubset(of: $0.outputIDs) }) else { continue }
                leaves[k] = .filter(.join(.leftSingle, leaves[k], r, condition: nil), c)
                rest.remove(at: i)
                moved = true
                break
            }
            guard moved, var rebuilt = leaves.first else {
                return .filter(.join(.leftSingle, sinkSingleRowJoins(l), sinkSingleRowJoins(r), condition: nil), pred)
            }
            for leaf in leaves.dropFirst() { rebuilt = .join(.cross, rebuilt, leaf, condition: nil) }
            if !joinPreds.isEmpty { rebuilt = .filter(rebuilt, joinPreds.count == 1 ? joinPreds[0] : .and(joinPreds)) }
            if !rest.isEmpty { rebuilt = .filter(rebuilt, rest.count == 1 ? rest[0] : .and(rest)) }
            return sinkSingleRowJoins(rebuilt)
        case .filter(.join(.left, let l, let r, let c), let pred):
            // The clause's other subqueries are left joins above it: a conjunct that does not
            // read a left join's right side filters its (preserved) left input as well.
            let rIDs = r.outputIDs
            var down: [BoundExpr] = [], up: [BoundExpr] = []
            for x in conjuncts(pred) {
                if x.referencedColumns.isDisjoint(with: rIDs) && !isVolatile(x) { down.append(x) } else { up.append(x) }
            }
            let left = down.isEmpty ? sinkSingleRowJoins(l) : sinkSingleRowJoins(.filter(l, down.count == 1 ? down[0] : .and(down)))
            let joined = LogicalPlan.join(.left, left, sinkSingleRowJoins(r), condition: c)
            return up.isEmpty ? joined : .filter(joined, up.count == 1 ? up[0] : .and(up))
        case .filter(let p, let e): return .filter(sinkSingleRowJoins(p), e)
        case .join(let k, let l, let r, let c): return .join(k, sinkSingleRowJoins(l), sinkSingleRowJoins(r), condition: c)
        case .project(let p, let es, let o): return .project(sinkSingleRowJoins(p), es, outputs: o)
        case .aggregate(let p, let g, let go, let a): return .aggregate(sinkSingleRowJoins(p), groups: g, groupOutputs: go, aggregates: a)
        case .sort(let p, let k): return .sort(sinkSingleRowJoins(p), k)
        case .limit(let p, let l, let o): return .limit(sinkSingleRowJoins(p), limit: l, offset: o)
        case .distinct(let p): return .distinct(sinkSingleRowJoins(p))
        case .window(let p, let ws): return .window(sinkSingleRowJoins(p), ws)
        case .unnest(let p, let a, let e, let i): return .unnest(sinkSingleRowJoins(p), array: a, element: e, position: i)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, sinkSingleRowJoins(l), sinkSingleRowJoins(r), outputs: o)
        case .scan, .values: return plan
        }
    }

    /// For an OR whose every branch has conjuncts that reference only `ids`, the OR of
    /// those conjuncts: a filter implied by `e` that can run on that side alone.
    func derivedFilter(_ e: BoundExpr, _ ids: Set<Int>) -> BoundExpr? {
        guard case .or(let branches) = e else { return nil }
        var parts: [BoundExpr] = []
        for b in branches {
            let local = conjuncts(b).filter { !$0.referencedColumns.isEmpty && $0.referencedColumns.isSubset(of: ids) }
            if local.isEmpty { return nil }
            parts.append(local.count == 1 ? local[0] : .and(local))
        }
        return .or(parts)
    }

    // MARK: - Join ordering

    /// Estimated output rows of a logical plan.
    func estimate(_ plan: LogicalPlan) -> Double {
        switch plan {
        case .scan(let t, _, let cols, let outs, let filters):
            let stats = context.statistics(t)
            return max(1, Double(stats.rows) * Selectivity.of(filters, stats.byOutput(columns: cols, ids: outs.map { $0.id })))
        case .filter(let p, let e): return max(1, estimate(p) * Selectivity.of([e], conditionStatistics(p)))
        case .project(let p, _, _), .sort(let p, _), .window(let p, _): return estimate(p)
        // A few elements a row, with nothing better known.
        case .unnest(let p, _, _, _): return estimate(p) * 4
        case .distinct(let p): return min(estimate(p), groupsAtMost(p.outputs.map { .column($0.id, $0.type) }, of: p))
        case .limit(let p, let l, _): return min(estimate(p), Double(l ?? Int.max))
        case .join(let k, let l, let r, let c):
            let a = estimate(l), b = estimate(r)
            if k == .cross || c == nil { return a * b }
            // A semi join keeps at most the fraction of rows its filtered inner side keeps
            // of its table (`x IN (SELECT key FROM t WHERE ...)`).
            if k == .semi { return max(1, a * min(0.5, b / baseRows(r))) }
            if k.keepsLeftOnly { return a * 0.5 }
            if k == .leftSingle { return a }
            if let d = joinDistinct(c, columnStatistics(l), a, columnStatistics(r), b) { return max(1, a * b / d) }
            return max(a, b)
        case .aggregate(let p, let g, _, _): return g.isEmpty ? 1 : max(1, min(estimate(p) * 0.1, groupsAtMost(g, of: p)))
        case .setOperation(_, _, let l, let r, _): return estimate(l) + estimate(r)
        case .values(let rows, _): return Double(rows.count)
        }
    }

    /// At most how many distinct values `exprs` take over `plan`'s rows: the product of
    /// their columns' distinct counts when ANALYZE has counted them all (infinity otherwise),
    /// where the columns of one table read that include a key of the table count as the
    /// key alone (the key determines the rest: `DISTINCT c_customer_sk, c_current_addr_sk`
    /// has as many values as customers).
    func groupsAtMost(_ exprs: [BoundExpr], of plan: LogicalPlan) -> Double {
        let stats = columnStatistics(plan)
        if stats.isEmpty { return .infinity }
        let origins = columnOrigins(plan)
        var byRead: [Int: (product: Double, key: Double?)] = [:]
        var product = 1.0
        for e in exprs {
            guard case .column(let id, _) = e.withoutSignificanceCalls, let s = stats[id] else { return .infinity }
            let d = max(1, s.distinct) + (s.nullFraction > 0 ? 1 : 0)
            guard let origin = origins[id] else { product *= d; continue }
            var entry = byRead[origin.read] ?? (1, nil)
            entry.product *= d
            if origin.key { entry.key = min(entry.key ?? d, d) }
            byRead[origin.read] = entry
        }
        for (_, entry) in byRead { product *= entry.key ?? entry.product }
        return max(1, product)
    }

    /// For output columns that come from a table read: which read (its first output id)
    /// and whether the column is a key of the table (distinct count ≥ 0.9 × rows).
    func columnOrigins(_ plan: LogicalPlan) -> [Int: (read: Int, key: Bool)] {
        switch plan {
        case .scan(let t, _, let cols, let outs, _):
            let stats = context.statistics(t)
            let rows = Double(stats.rows)
            guard let read = outs.first?.id else { return [:] }
            var out: [Int: (read: Int, key: Bool)] = [:]
            for (c, o) in zip(cols, outs) {
                out[o.id] = (read, rows > 0 && (stats.columns[c]?.distinct ?? 0) >= 0.9 * rows)
            }
            return out
        case .filter(let p, _), .sort(let p, _), .limit(let p, _, _), .distinct(let p):
            return columnOrigins(p)
        case .project(let p, let exprs, let outs):
            let inner = columnOrigins(p)
            var out: [Int: (read: Int, key: Bool)] = [:]
            for (e, o) in zip(exprs, outs) { if case .column(let id, _) = e, let x = inner[id] { out[o.id] = x } }
            return out
        case .join(let k, let l, let r, _):
            let left = columnOrigins(l)
            return k.keepsLeftOnly ? left : left.merging(columnOrigins(r)) { a, _ in a }
        default:
            return [:]
        }
    }

    /// Statistics of a plan's output columns that come straight from an analyzed table.
    func columnStatistics(_ plan: LogicalPlan) -> [Int: ColumnStatistics] {
        switch plan {
        case .scan(let t, _, let cols, let outs, _):
            let ids = outs.map { $0.id }
            if let known = memo.scanStatistics[ids] { return known }
            let s = context.statistics(t).byOutput(columns: cols, ids: ids)
            memo.scanStatistics[ids] = s
            return s
        case .filter(let p, _), .sort(let p, _), .limit(let p, _, _), .distinct(let p):
            return columnStatistics(p)
        case .project(let p, let exprs, let outs):
            let inner = columnStatistics(p)
            if inner.isEmpty { return [:] }
            var out: [Int: ColumnStatistics] = [:]
            for (e, o) in zip(exprs, outs) { if case .column(let id, _) = e, let s = inner[id] { out[o.id] = s } }
            return out
        case .join(let k, let l, let r, _):
            let left = columnStatistics(l)
            if k.keepsLeftOnly { return left }
            return left.merging(columnStatistics(r)) { a, _ in a }
        default:
            return [:]
        }
    }

    /// For an equality join of inputs with `a` and `b` rows and column statistics `ls` and
    /// `rs`: the larger distinct count of the two key columns (each at most its side's rows),
    /// from the most selective equality with analyzed columns on both sides. The join then
    /// keeps about `a * b / d` rows (each value of the side with fewer values meets `rows / d`
    /// rows of the other).
    func joinDistinct(_ condition: BoundExpr?, _ ls: [Int: ColumnStatistics], _ a: Double,
                      _ rs: [Int: ColumnStatistics], _ b: Double) -> Double? {
        if ls.isEmpty || rs.isEmpty { return nil }
        var best: Double? = nil
        for p in conjuncts(condition) {
            guard case .binary(.equal, .column(let x, _), .column(let y, _), _) = p.withoutSignificanceCalls else { continue }
            let pair = ls[x].flatMap { sx in rs[y].map { (sx, $0) } } ?? ls[y].flatMap { sy in rs[x].map { (sy, $0) } }
            guard let (sl, sr) = pair else { continue }
            let d = max(min(sl.distinct, a), min(sr.distinct, b), 1)
            best = max(best ?? d, d)
        }
        return best
    }

    /// Whether an equality of `condition` compares a column that is (nearly) unique in the
    /// table a side reads straight (a scan under filters, projections and the left side of
    /// semi and anti joins): its distinct count is at least nine tenths of the table's rows.
    func joinsOnAKey(_ left: LogicalPlan, _ right: LogicalPlan, _ condition: BoundExpr?) -> Bool {
        // A semi or anti join keeps some of its left side's rows: a key of that table
        // stays one (TPC-H Q18's `o_orderkey` of the orders IN a subquery's).
        func isTableRead(_ p: LogicalPlan) -> Bool {
            switch p {
            case .scan: return true
            case .filter(let c, _), .project(let c, _, _): return isTableRead(c)
            case .join(let k, let c, _, _) where k == .semi || k == .anti: return isTableRead(c)
            default: return false
            }
        }
        // The table's rows: a key's distinct count is measured against them, below a semi
        // join's filtering as below a scan's.
        func tableRows(_ p: LogicalPlan) -> Double {
            switch p {
            case .filter(let c, _), .project(let c, _, _), .join(_, let c, _, _): return tableRows(c)
            default: return baseRows(p)
            }
        }
        let sides = [left, right].filter(isTableRead).map { ($0, columnStatistics($0), tableRows($0)) }
        if sides.isEmpty { return false }
        for c in conjuncts(condition) {
            guard case .binary(.equal, .column(let x, _), .column(let y, _), _) = c.withoutSignificanceCalls else { continue }
            for (side, stats, rows) in sides {
                for id in [x, y] where side.outputIDs.contains(id) {
                    if let s = stats[id], s.distinct >= 0.9 * rows { return true }
                }
            }
        }
        return false
    }

    /// Rows before filters (for the filter selectivity of a join input).
    func baseRows(_ plan: LogicalPlan) -> Double {
        switch plan {
        case .scan(let t, _, _, _, _): return max(1, Double(context.statistics(t).rows))
        case .filter(let p, _), .project(let p, _, _): return baseRows(p)
        default: return estimate(plan)
        }
    }

    func flattenInner(_ plan: LogicalPlan, _ leaves: inout [LogicalPlan], _ preds: inout [BoundExpr]) {
        if case .join(let k, let l, let r, let c) = plan, k == .inner || k == .cross {
            flattenInner(l, &leaves, &preds)
            flattenInner(r, &leaves, &preds)
            preds += conjuncts(c)
            return
        }
        leaves.append(plan)
    }

    func reorderJoins(_ plan: LogicalPlan) -> LogicalPlan {
        switch plan {
        case .join(let k, _, _, _) where k == .inner || k == .cross:
            var leaves: [LogicalPlan] = [], preds: [BoundExpr] = []
            flattenInner(plan, &leaves, &preds)
            leaves = leaves.map(reorderJoins)
            collapseDimensions(&leaves, &preds)
            let greedy = greedyJoin(leaves, preds, outputs: plan.outputs)
            if let ordered = dynamicProgrammingOrder(leaves, preds, greedy: greedy) { return ordered }
            return preferBushyOrder(leaves, preds, greedy: greedy)
        case .join(let k, let l, let r, let c): return .join(k, reorderJoins(l), reorderJoins(r), condition: c)
        case .filter(let p, let e): return .filter(reorderJoins(p), e)
        case .project(let p, let es, let o): return .project(reorderJoins(p), es, outputs: o)
        case .aggregate(let p, let g, let go, let a): return .aggregate(reorderJoins(p), groups: g, groupOutputs: go, aggregates: a)
        case .sort(let p, let k): return .sort(reorderJoins(p), k)
        case .limit(let p, let l, let o): return .limit(reorderJoins(p), limit: l, offset: o)
        case .distinct(let p): return .distinct(reorderJoins(p))
        case .window(let p, let ws): return .window(reorderJoins(p), ws)
        case .unnest(let p, let a, let e, let i): return .unnest(reorderJoins(p), array: a, element: e, position: i)
        case .setOperation(let k, let all, let l, let r, let o): return .setOperation(k, all: all, reorderJoins(l), reorderJoins(r), outputs: o)
        case .scan, .values: return plan
        }
    }

    /// Rows of a join input (an inner join tree counts its inputs' filters).
    func leafRows(_ leaf: LogicalPlan) -> Double { treeEstimate(leaf) }

    /// Rows of a join input before filters (an inner join tree: its largest table).
    func leafBase(_ leaf: LogicalPlan) -> Double {
        guard case .join(let k, _, _, _) = leaf, k == .inner || k == .cross else { return baseRows(leaf) }
        var leaves: [LogicalPlan] = [], preds: [BoundExpr] = []
        flattenInner(leaf, &leaves, &preds)
        return leaves.map { baseRows($0) }.max() ?? baseRows(leaf)
    }

    /// `a = b` with columns on both sides: an edge a hash join can use.
    func isEquiJoinEdge(_ p: BoundExpr) -> Bool {
        guard case .binary(.equal, let a, let b, _) = p else { return false }
        return !a.referencedColumns.isEmpty && !b.referencedColumns.isEmpty
    }

    /// Snowflake dimensions: a filtered input joined to exactly one other input that is a
    /// small table (a tenth of the largest or less) is joined to it first, and the pair
    /// enters the greedy order as one filtered input. TPC-H Q21: supplier ⋈ nation
    /// ('SAUDI ARABIA') filters lineitem at once, instead of lineitem meeting orders,
    /// supplier and only then nation.
    func collapseDimensions(_ leaves: inout [LogicalPlan], _ preds: inout [BoundExpr]) {
        while leaves.count > 2 {
            let ids = leaves.map { $0.outputIDs }
            let largest = leaves.map { leafBase($0) }.max() ?? 0
            var merged = false
            for y in leaves.indices {
                let rowsY = leafRows(leaves[y])
                guard rowsY < leafBase(leaves[y]) else { continue }   // not filtered
                // Every predicate on y must connect it to the same single x.
                var x: Int? = nil, ok = true, mine: [Int] = []
                for (pi, p) in preds.enumerated() {
                    let refs = p.referencedColumns
                    guard !refs.isDisjoint(with: ids[y]) else { continue }
                    let others = leaves.indices.filter { $0 != y && !refs.isDisjoint(with: ids[$0]) }
                    // Other predicates over y and other inputs (Q7's OR over both nations)
                    // stay for the join that brings their inputs together.
                    if !isEquiJoinEdge(p) { continue }
                    guard others.count == 1, x == nil || x == others[0] else { ok = false; break }
                    x = others[0]
                    mine.append(pi)
                }
                guard ok, let x, leafBase(leaves[x]) * 10 <= largest, rowsY <= leafRows(leaves[x]) else { continue }
                let conds = mine.map { preds[$0] }
                let pair = LogicalPlan.join(.inner, leaves[x], leaves[y], condition: conds.count == 1 ? conds[0] : .and(conds))
                for pi in mine.reversed() { preds.remove(at: pi) }
                leaves[x] = pair
                leaves.remove(at: y)
                merged = true
                break
            }
            if !merged { return }
        }
    }

    /// Greedy left-deep ordering: start from the largest table; repeatedly join the
    /// connected input (by an equality when there is one) that keeps the intermediate
    /// result smallest (ties: the smaller input).
    func greedyJoin(_ leaves: [LogicalPlan], _ predicates: [BoundExpr], outputs: [PlanColumn]) -> LogicalPlan {
        var remaining = leaves
        var preds = predicates
        // Start from the fact table: the largest table (ties: the most estimated rows).
        func startKey(_ i: Int) -> (Double, Double) { (leafBase(remaining[i]), leafRows(remaining[i])) }
        guard let startIndex = remaining.indices.max(by: { startKey($0) < startKey($1) }) else {
            return .values([[]], outputs: [])
        }
        var current = remaining.remove(at: startIndex)
        var currentRows = leafRows(current)
        var currentIDs = current.outputIDs
        while !remaining.isEmpty {
            var best: (index: Int, out: Double, rows: Double)? = nil
            let currentStats = columnStatistics(current)
            // Inputs joined by an equality come first: a join by another predicate alone
            // (TPC-H Q7's OR over both nations) would be a nested loop.
            for equalityOnly in [true, false] where best == nil {
                for (i, leaf) in remaining.enumerated() {
                    let ids = leaf.outputIDs
                    let connected = preds.contains { p in
                        if equalityOnly && !isEquiJoinEdge(p) { return false }
                        let refs = p.referencedColumns
                        return !refs.isDisjoint(with: currentIDs) && !refs.isDisjoint(with: ids) && refs.isSubset(of: currentIDs.union(ids))
                    }
                    guard connected else { continue }
                    let rows = leafRows(leaf)
                    var out = currentRows * (rows / leafBase(leaf))
                    if equalityOnly {
                        let edges = preds.filter { p in
                            let refs = p.referencedColumns
                            return !refs.isDisjoint(with: currentIDs) && !refs.isDisjoint(with: ids)
                        }
                        if let d = joinDistinct(edges.count == 1 ? edges[0] : .and(edges), currentStats, currentRows,
                                                columnStatistics(leaf), rows) {
                            out = currentRows * rows / d
                        }
                    }
                    if let b = best, !(out < b.out || (out == b.out && rows < b.rows)) { continue }
                    best = (i, out, rows)
                }
            }
            let pick: Int
            let out: Double
            if let best { pick = best.index; out = best.out } else {
                // Not connected: cross join with the smallest input.
                pick = remaining.indices.min(by: { leafRows(remaining[$0]) < leafRows(remaining[$1]) }) ?? 0
                out = currentRows * leafRows(remaining[pick])
            }
            let leaf = remaining.remove(at: pick)
            let ids = currentIDs.union(leaf.outputIDs)
            var applicable: [BoundExpr] = []
            preds.removeAll { p in
                if p.referencedColumns.isSubset(of: ids) { applicable.append(p); return true }
                return false
            }
            current = .join(applicable.isEmpty ? .cross : .inner, current, leaf,
                            condition: applicable.isEmpty ? nil : (applicable.count == 1 ? applicable[0] : .and(applicable)))
            currentRows = max(1, out)
            currentIDs = ids
        }
        return wrap(current, preds)
    }

    // MARK: - Projection pruning

    /// Columns read only to evaluate a filter (`o_comment NOT LIKE …` in Q13) are
    /// dropped right after it, so joins, exchanges and aggregations above never carry them.
    func dropFilterOnly(_ plan: LogicalPlan, required: Set<Int>) -> LogicalPlan {
        let outs = plan.outputs
        let keep = outs.filter { required.contains($0.id) }
        guard !keep.isEmpty, keep.count < outs.count else { return plan }
        return .project(plan, keep.map { .column($0.id, $0.type) }, outputs: keep)
    }

    func prune(_ plan: LogicalPlan, required: Set<Int>) -> LogicalPlan {
        switch plan {
        case .scan(let t, let a, let cols, let outs, let filters):
            var need = required
            for f in filters { need.formUnion(f.referencedColumns) }
            var keepCols: [Int] = [], keepOuts: [PlanColumn] = []
            for (c, o) in zip(cols, outs) where need.contains(o.id) { keepCols.append(c); keepOuts.append(o) }
            if keepCols.isEmpty, let c = cols.first, let o = outs.first { keepCols = [c]; keepOuts = [o] }
            return dropFilterOnly(.scan(table: t, alias: a, columns: keepCols, outputs: keepOuts, filters: filters),
                                  required: required)
        case .filter(let p, let e):
            return dropFilterOnly(.filter(prune(p, required: required.union(e.referencedColumns)), e), required: required)
        case .project(let p, let exprs, let outs):
            var keepE: [BoundExpr] = [], keepO: [PlanColumn] = []
            for (e, o) in zip(exprs, outs) where required.contains(o.id) { keepE.append(e); keepO.append(o) }
            if keepE.isEmpty, let e = exprs.first, let o = outs.first { keepE = [e]; keepO = [o] }
            let need = keepE.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }
            return .project(prune(p, required: need), keepE, outputs: keepO)
        case .join(let k, let l, let r, let c):
            // A left join nothing above reads the right side of, on a unique key of the
            // right side, returns the left rows unchanged (Optimizer+Keys.swift).
            if k == .left, required.isDisjoint(with: r.outputIDs), joinsOnUniqueKey(r, sideIDs: r.outputIDs, c) {
                return prune(l, required: required)
            }
            let need = required.union(c?.referencedColumns ?? [])
            return .join(k, prune(l, required: need.intersection(l.outputIDs)), prune(r, required: need.intersection(r.outputIDs)), condition: c)
        case .aggregate(let p, let g, let go, let aggs):
            return .aggregate(prune(p, required: aggregateInputColumns(g, aggs)), groups: g, groupOutputs: go, aggregates: aggs)
        case .sort(let p, let keys):
            var need = required
            for k in keys { need.formUnion(k.expr.referencedColumns) }
            return .sort(prune(p, required: need), keys)
        case .limit(let p, let l, let o):
            return .limit(prune(p, required: required), limit: l, offset: o)
        case .distinct(let p):
            return .distinct(prune(p, required: p.outputIDs))
        case .window(let p, let ws):
            return .window(prune(p, required: windowInputColumns(p, ws, required: required)), ws)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, prune(l, required: l.outputIDs), prune(r, required: r.outputIDs), outputs: o)
        case .unnest(let p, let a, let e, let i):
            let need = required.intersection(p.outputIDs).union(a.referencedColumns)
            return .unnest(prune(p, required: need), array: a, element: e, position: i)
        case .values:
            return plan
        }
    }

    /// The input columns an aggregate reads: its grouping keys' and its aggregates'.
    func aggregateInputColumns(_ groups: [BoundExpr], _ aggs: [LogicalAggregate]) -> Set<Int> {
        var need = Set<Int>()
        for e in groups { need.formUnion(e.referencedColumns) }
        for a in aggs { for e in a.expressions { need.formUnion(e.referencedColumns) } }
        return need
    }

    /// The input columns a window node reads: those its parent reads through it, and its
    /// functions' arguments, partitions and orders.
    func windowInputColumns(_ input: LogicalPlan, _ ws: [LogicalWindow], required: Set<Int>) -> Set<Int> {
        var need = required.intersection(input.outputIDs)
        for w in ws {
            if let a = w.argument { need.formUnion(a.referencedColumns) }
            for e in w.partitionBy { need.formUnion(e.referencedColumns) }
            for k in w.orderBy { need.formUnion(k.expr.referencedColumns) }
        }
        return need
    }
}
