// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Semi-join rewrites, run after predicate pushdown and before join ordering:
///
/// - **Key pushdown into a grouped subquery** (a "magic set" rewrite): for
///   `L LEFT JOIN (SELECT k, agg(...) FROM R GROUP BY k) ON x = k` — the shape a
///   correlated scalar subquery is decorrelated into (an inner join once a filter on its
///   value rejects the NULL-padded rows), or a semi join — only groups whose key occurs
///   among L's `x` values can ever match. When a small, cheaply recomputed subtree S of L
///   is known to contain every `x` value of L (S is L itself or a subtree that L only
///   filters or joins, never pads), R is semi-joined with a copy of S on `k = x` below
///   the aggregation. A group is kept or dropped whole (all its rows share `k`), so the
///   aggregates of the remaining groups are unchanged; NULL keys match nothing either way.
/// - **Semi/anti join pushdown**: `(A JOIN B) SEMI JOIN R ON f(A) = ...` filters rows
///   by A's columns only, so it can run on A before the join; it is moved down an inner
///   join tree to the subtree with the fewest estimated rows.
extension Optimizer {
    // MARK: Key pushdown into grouped subqueries

    func pushKeysIntoAggregates(_ plan: LogicalPlan) -> LogicalPlan {
        var nextID = maxColumnID(plan)
        return magicSets(plan, &nextID)
    }

    private func magicSets(_ plan: LogicalPlan, _ nextID: inout Int) -> LogicalPlan {
        switch plan {
        case .join(let k, let l, let r, let c):
            var l2 = magicSets(l, &nextID)
            var r2 = magicSets(r, &nextID)
            // Not for anti joins: NOT IN must still see a NULL group key. An inner join
            // (a scalar subquery's left join made inner by the filter on its value, as in
            // TPC-H Q17) may hold the aggregate on either side.
            if k == .left || k == .semi || k == .inner {
                if let rewritten = restrictGroups(l2, r2, c, &nextID) {
                    r2 = rewritten
                } else if k == .inner, let rewritten = restrictGroups(r2, l2, c, &nextID) {
                    l2 = rewritten
                }
            }
            return .join(k, l2, r2, condition: c)
        case .filter(let p, let e): return .filter(magicSets(p, &nextID), e)
        case .project(let p, let es, let o): return .project(magicSets(p, &nextID), es, outputs: o)
        case .aggregate(let p, let g, let go, let a): return .aggregate(magicSets(p, &nextID), groups: g, groupOutputs: go, aggregates: a)
        case .sort(let p, let k): return .sort(magicSets(p, &nextID), k)
        case .limit(let p, let l, let o): return .limit(magicSets(p, &nextID), limit: l, offset: o)
        case .distinct(let p): return .distinct(magicSets(p, &nextID))
        case .window(let p, let ws): return .window(magicSets(p, &nextID), ws)
        case .unnest(let p, let a, let e, let i): return .unnest(magicSets(p, &nextID), array: a, element: e, position: i)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, magicSets(l, &nextID), magicSets(r, &nextID), outputs: o)
        case .scan, .values: return plan
        }
    }

    /// `right` restricted to the groups that can match `left` under `cond`, or nil.
    private func restrictGroups(_ left: LogicalPlan, _ right: LogicalPlan, _ cond: BoundExpr?,
                                _ nextID: inout Int) -> LogicalPlan? {
        let lids = left.outputIDs, rids = right.outputIDs
        // Equalities `x = k`: x over left columns, k a plain right column.
        var pairs: [(x: BoundExpr, k: Int)] = []
        for c in conjuncts(cond) {
            guard case .binary(.equal, let a, let b, _) = c else { continue }
            if case .column(let id, _) = b, rids.contains(id), !a.referencedColumns.isEmpty, a.referencedColumns.isSubset(of: lids) {
                pairs.append((a, id))
            } else if case .column(let id, _) = a, rids.contains(id), !b.referencedColumns.isEmpty, b.referencedColumns.isSubset(of: lids) {
                pairs.append((b, id))
            }
        }
        // Only the equalities on group keys restrict groups (`ps_supplycost = min` in TPC-H
        // Q2's join condition compares an aggregate's value).
        // A volatile x (`random()`) would differ in the copy: it restricts nothing.
        pairs = pairs.filter { groupKeyTarget(right, [$0.k]) != nil && !isVolatile($0.x) }
        if pairs.isEmpty { return nil }
        // Trace each k down to a group key of an aggregate in `right`.
        guard let target = groupKeyTarget(right, pairs.map { $0.k }) else { return nil }
        let inputRows = estimate(target.input)
        var xRefs = Set<Int>()
        for p in pairs { xRefs.formUnion(p.x.referencedColumns) }
        guard let (copy, map) = keySourceCopy(of: left, holding: xRefs, toRestrict: inputRows, &nextID) else { return nil }
        var semiConds: [BoundExpr] = []
        for (p, g) in zip(pairs, target.groupExprs) {
            let x = p.x.remapColumns { map[$0] ?? $0 }
            semiConds.append(.binary(.equal, g, x, .boolean))
        }
        let semiCond: BoundExpr = semiConds.count == 1 ? semiConds[0] : .and(semiConds)
        let restricted = LogicalPlan.join(.semi, target.input, copy, condition: semiCond)
        return target.rebuild(restricted)
    }

    /// A copy, with fresh column ids (`map`: old id → new), of the smallest subtree S of
    /// `left` whose rows hold every value of `left`'s columns `xRefs`, when semi-joining
    /// `inputRows` rows with S pays: S is filtered (an unfiltered S holds every key anyway),
    /// its rows are far fewer than the rows it restricts, and recomputing it reads at most
    /// twice as many rows as it restricts. Nil otherwise.
    func keySourceCopy(of left: LogicalPlan, holding xRefs: Set<Int>, toRestrict inputRows: Double,
                       _ nextID: inout Int) -> (plan: LogicalPlan, map: [Int: Int])? {
        var candidates: [LogicalPlan] = []
        collectKeySources(left, xRefs, &candidates)
        var best: (plan: LogicalPlan, rows: Double)? = nil
        for s in candidates where isCheaplyRepeatable(s) {
            let rows = estimate(s)
            if let b = best, !(rows < b.rows) { continue }
            best = (s, rows)
        }
        guard let source = best, source.rows * 4 <= inputRows, source.rows * 2 <= largestScan(source.plan),
              scanRows(source.plan) <= inputRows * 2 else { return nil }
        var map: [Int: Int] = [:]
        guard let copy = renumbered(source.plan, &nextID, &map) else { return nil }
        return (copy, map)
    }

    /// Follow right-side columns `ks` through projections (plain column pass-through) and
    /// filters to an aggregate whose group outputs they are. Returns the aggregate's input,
    /// the group expressions of `ks` (in order), and how to rebuild `plan` over a new input.
    private func groupKeyTarget(_ plan: LogicalPlan, _ ks: [Int])
        -> (input: LogicalPlan, groupExprs: [BoundExpr], rebuild: (LogicalPlan) -> LogicalPlan)? {
        switch plan {
        case .project(let p, let es, let o):
            var inner: [Int] = []
            for k in ks {
                guard let i = o.firstIndex(where: { $0.id == k }), case .column(let id, _) = es[i] else { return nil }
                inner.append(id)
            }
            guard let t = groupKeyTarget(p, inner) else { return nil }
            return (t.input, t.groupExprs, { .project(t.rebuild($0), es, outputs: o) })
        case .filter(let p, let e):
            guard let t = groupKeyTarget(p, ks) else { return nil }
            return (t.input, t.groupExprs, { .filter(t.rebuild($0), e) })
        case .aggregate(let input, let groups, let go, let aggs):
            var exprs: [BoundExpr] = []
            for k in ks {
                guard let i = go.firstIndex(where: { $0.id == k }) else { return nil }
                exprs.append(groups[i])
            }
            return (input, exprs, { .aggregate($0, groups: groups, groupOutputs: go, aggregates: aggs) })
        default:
            return nil
        }
    }

    /// Subtrees of `plan` whose rows' `refs` values include every `refs` value of `plan`'s
    /// rows: `plan` itself, and recursively the sides that joins and filters only restrict
    /// or multiply (never pad with NULLs).
    private func collectKeySources(_ plan: LogicalPlan, _ refs: Set<Int>, _ out: inout [LogicalPlan]) {
        guard refs.isSubset(of: plan.outputIDs) else { return }
        out.append(plan)
        switch plan {
        case .filter(let p, _):
            collectKeySources(p, refs, &out)
        case .join(let k, let l, let r, _):
            switch k {
            case .inner, .cross:
                collectKeySources(l, refs, &out)
                collectKeySources(r, refs, &out)
            case .left, .leftSingle, .semi, .anti, .antiNullAware:
                collectKeySources(l, refs, &out)
            case .right:
                collectKeySources(r, refs, &out)
            case .full:
                break
            }
        default:
            break
        }
    }

    /// A subtree made of scans, filters, projections and joins without volatile functions: running a
    /// copy of it gives the same rows.
    private func isCheaplyRepeatable(_ plan: LogicalPlan) -> Bool {
        func stable(_ e: BoundExpr) -> Bool {
            var ok = true
            e.visit { if case .function(let f, _, _) = $0, f.isVolatile { ok = false } }
            return ok
        }
        switch plan {
        case .scan(_, _, _, _, let filters): return filters.allSatisfy(stable)
        case .filter(let p, let e): return stable(e) && isCheaplyRepeatable(p)
        case .project(let p, let es, _): return es.allSatisfy(stable) && isCheaplyRepeatable(p)
        case .join(_, let l, let r, let c):
            return (c.map(stable) ?? true) && isCheaplyRepeatable(l) && isCheaplyRepeatable(r)
        default: return false
        }
    }

    /// Rows read by the scans of `plan`.
    private func scanRows(_ plan: LogicalPlan) -> Double {
        switch plan {
        case .scan(let t, _, _, _, _): return Double(context.statistics(t).rows)
        case .filter(let p, _), .project(let p, _, _): return scanRows(p)
        case .join(_, let l, let r, _): return scanRows(l) + scanRows(r)
        default: return estimate(plan)
        }
    }

    /// Rows of the largest table `plan` scans.
    private func largestScan(_ plan: LogicalPlan) -> Double {
        switch plan {
        case .scan(let t, _, _, _, _): return Double(context.statistics(t).rows)
        case .filter(let p, _), .project(let p, _, _): return largestScan(p)
        case .join(_, let l, let r, _): return max(largestScan(l), largestScan(r))
        default: return estimate(plan)
        }
    }

    /// A copy of `plan` (scans, filters, projections, joins) with fresh column ids; `map` gets old → new.
    private func renumbered(_ plan: LogicalPlan, _ nextID: inout Int, _ map: inout [Int: Int]) -> LogicalPlan? {
        switch plan {
        case .scan(let t, let a, let cols, let outs, let filters):
            var fresh: [PlanColumn] = []
            for o in outs {
                nextID += 1
                map[o.id] = nextID
                fresh.append(PlanColumn(id: nextID, type: o.type, name: o.name))
            }
            let m = map
            return .scan(table: t, alias: a, columns: cols, outputs: fresh, filters: filters.map { $0.remapColumns { m[$0] ?? $0 } })
        case .filter(let p, let e):
            guard let p2 = renumbered(p, &nextID, &map) else { return nil }
            let m = map
            return .filter(p2, e.remapColumns { m[$0] ?? $0 })
        case .project(let p, let es, let outs):
            guard let p2 = renumbered(p, &nextID, &map) else { return nil }
            let inner = map
            var fresh: [PlanColumn] = []
            for o in outs {
                nextID += 1
                map[o.id] = nextID
                fresh.append(PlanColumn(id: nextID, type: o.type, name: o.name))
            }
            return .project(p2, es.map { $0.remapColumns { inner[$0] ?? $0 } }, outputs: fresh)
        case .join(let k, let l, let r, let c):
            guard let l2 = renumbered(l, &nextID, &map), let r2 = renumbered(r, &nextID, &map) else { return nil }
            let m = map
            return .join(k, l2, r2, condition: c.map { $0.remapColumns { m[$0] ?? $0 } })
        default:
            return nil
        }
    }

    /// The largest column id any node of `plan` defines.
    func maxColumnID(_ plan: LogicalPlan) -> Int {
        var m = plan.outputs.map { $0.id }.max() ?? 0
        switch plan {
        case .scan, .values: break
        case .filter(let p, _), .project(let p, _, _), .aggregate(let p, _, _, _), .sort(let p, _),
             .limit(let p, _, _), .distinct(let p), .window(let p, _), .unnest(let p, _, _, _):
            m = max(m, maxColumnID(p))
        case .join(_, let l, let r, _), .setOperation(_, _, let l, let r, _):
            m = max(m, maxColumnID(l), maxColumnID(r))
        }
        return m
    }

    // MARK: Transitive semi-join reduction

    /// In an inner join tree, a small filtered input P joined on `P.k = A.x` also restricts
    /// every other input C joined on a column of the same equality class (`C.z = A.x`)
    /// that P does not meet directly: C is semi-joined with a copy of P on `C.z = P.k`
    /// before the joins, so C's rows without a partner in P never reach a hash table.
    /// TPC-H Q9: partsupp keeps only the rows of '%green%' parts (l_partkey = p_partkey,
    /// ps_partkey = l_partkey). P may also be an input that a filtered one restricts
    /// through an equality (P semi-joined with it): TPC-H Q5's customers keep only those
    /// of the five nations of region 'ASIA' (c_nationkey = s_nationkey,
    /// s_nationkey = n_nationkey, n_regionkey = r_regionkey).
    func reduceByEquivalentKeys(_ plan: LogicalPlan) -> LogicalPlan {
        var nextID = maxColumnID(plan)
        return reduceTrees(plan, &nextID)
    }

    private func reduceTrees(_ plan: LogicalPlan, _ nextID: inout Int) -> LogicalPlan {
        switch plan {
        case .join(let k, _, _, _) where k == .inner || k == .cross:
            var leaves: [LogicalPlan] = [], preds: [BoundExpr] = []
            flattenInner(plan, &leaves, &preds)
            leaves = leaves.map { reduceTrees($0, &nextID) }
            let reduced = addTransitiveSemis(leaves, preds, &nextID)
            guard let first = reduced.first else { return plan }
            var tree = first
            for (i, leaf) in reduced.dropFirst().enumerated() {
                let last = i == reduced.count - 2
                tree = .join(last && !preds.isEmpty ? .inner : .cross, tree, leaf,
                             condition: last && !preds.isEmpty ? (preds.count == 1 ? preds[0] : .and(preds)) : nil)
            }
            return tree
        case .join(let k, let l, let r, let c): return .join(k, reduceTrees(l, &nextID), reduceTrees(r, &nextID), condition: c)
        case .filter(let p, let e): return .filter(reduceTrees(p, &nextID), e)
        case .project(let p, let es, let o): return .project(reduceTrees(p, &nextID), es, outputs: o)
        case .aggregate(let p, let g, let go, let a): return .aggregate(reduceTrees(p, &nextID), groups: g, groupOutputs: go, aggregates: a)
        case .sort(let p, let k): return .sort(reduceTrees(p, &nextID), k)
        case .limit(let p, let l, let o): return .limit(reduceTrees(p, &nextID), limit: l, offset: o)
        case .distinct(let p): return .distinct(reduceTrees(p, &nextID))
        case .window(let p, let ws): return .window(reduceTrees(p, &nextID), ws)
        case .unnest(let p, let a, let e, let i): return .unnest(reduceTrees(p, &nextID), array: a, element: e, position: i)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, reduceTrees(l, &nextID), reduceTrees(r, &nextID), outputs: o)
        case .scan, .values: return plan
        }
    }

    private func addTransitiveSemis(_ leaves: [LogicalPlan], _ preds: [BoundExpr], _ nextID: inout Int) -> [LogicalPlan] {
        if leaves.count < 3 { return leaves }
        let ids = leaves.map { $0.outputIDs }
        func leafOf(_ col: Int) -> Int? { ids.firstIndex { $0.contains(col) } }
        // Column equalities between inputs, and the equality classes they form.
        var parent: [Int: Int] = [:]
        func find(_ x: Int) -> Int {
            var r = x
            while let p = parent[r], p != r { r = p }
            return r
        }
        var direct = Set<[Int]>()
        var types: [Int: DataType] = [:]
        for p in preds {
            guard case .binary(.equal, .column(let a, let ta), .column(let b, let tb), _) = p, ta == tb,
                  let la = leafOf(a), let lb = leafOf(b), la != lb else { continue }
            parent[a] = parent[a] ?? a; parent[b] = parent[b] ?? b
            parent[find(a)] = find(b)
            direct.insert([min(la, lb), max(la, lb)])
            types[a] = ta; types[b] = tb
        }
        // Each P: a leaf, or an unfiltered leaf semi-joined with a filtered leaf it meets on
        // an equality, whose rows that join restricts (TPC-H Q5's nations of region 'ASIA'
        // restrict the customers, met through s_nationkey = c_nationkey). Such a P reads
        // its whole table again: it restricts only inputs of ten times its table's rows or
        // more (a dimension, not a fact table met by a filtered date: TPC-DS q17's
        // catalog_sales of three quarters would be scanned a second time to restrict
        // store_sales by item).
        var sources = leaves.indices.map { (leaf: $0, plan: leaves[$0], base: leafBase(leaves[$0]), derived: false) }
        func isFiltered(_ leaf: LogicalPlan) -> Bool { leafRows(leaf) * 2 <= leafBase(leaf) }
        var derivedPairs = Set<[Int]>()
        for p in preds {
            guard case .binary(.equal, .column(let a, let t), .column(let b, let tb), _) = p, t == tb,
                  let la = leafOf(a), let lb = leafOf(b), la != lb else { continue }
            for (n, nKey, f, fKey) in [(la, a, lb, b), (lb, b, la, a)] {
                guard !derivedPairs.contains([n, f]), !isFiltered(leaves[n]), isFiltered(leaves[f]),
                      isCheaplyRepeatable(leaves[n]), isCheaplyRepeatable(leaves[f]) else { continue }
                derivedPairs.insert([n, f])
                // Over the leaves' own columns: a source is copied (renumbered) where it is used.
                let reduced = LogicalPlan.join(.semi, leaves[n], leaves[f],
                                               condition: .binary(.equal, .column(nKey, t), .column(fKey, t), .boolean))
                sources.append((leaf: n, plan: reduced, base: leafBase(leaves[n]), derived: true))
            }
        }
        var out = leaves
        for (pi, source, base, derived) in sources {
            let rows = leafRows(source)
            // P: filtered to at most half of its table, cheap to run again.
            guard rows * 2 <= base, isCheaplyRepeatable(source) else { continue }
            for key in types.keys.sorted() where leafOf(key) == pi {
                let cls = find(key)
                for col in types.keys.sorted() where col != key && find(col) == cls {
                    guard let ci = leafOf(col), ci != pi, !direct.contains([min(pi, ci), max(pi, ci)]),
                          leafRows(out[ci]) >= rows * 4, !derived || leafRows(out[ci]) >= base * 10,
                          let t = types[col] else { continue }
                    var map: [Int: Int] = [:]
                    guard let copy = renumbered(source, &nextID, &map), let k2 = map[key] else { continue }
                    out[ci] = .join(.semi, out[ci], copy, condition: .binary(.equal, .column(col, t), .column(k2, t), .boolean))
                }
            }
        }
        return out
    }

    // MARK: Semi/anti join pushdown

    func pushSemiJoins(_ plan: LogicalPlan) -> LogicalPlan {
        switch plan {
        case .join(let k, let l, let r, let c) where k == .semi || k == .anti || k == .antiNullAware:
            let l2 = pushSemiJoins(l), r2 = pushSemiJoins(r)
            let leftRefs = conjuncts(c).reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns.intersection(l2.outputIDs)) }
            return placeSemi(l2, leftRefs) { .join(k, $0, r2, condition: c) }
        case .join(let k, let l, let r, let c): return .join(k, pushSemiJoins(l), pushSemiJoins(r), condition: c)
        case .filter(let p, let e): return .filter(pushSemiJoins(p), e)
        case .project(let p, let es, let o): return .project(pushSemiJoins(p), es, outputs: o)
        case .aggregate(let p, let g, let go, let a): return .aggregate(pushSemiJoins(p), groups: g, groupOutputs: go, aggregates: a)
        case .sort(let p, let k): return .sort(pushSemiJoins(p), k)
        case .limit(let p, let l, let o): return .limit(pushSemiJoins(p), limit: l, offset: o)
        case .distinct(let p): return .distinct(pushSemiJoins(p))
        case .window(let p, let ws): return .window(pushSemiJoins(p), ws)
        case .unnest(let p, let a, let e, let i): return .unnest(pushSemiJoins(p), array: a, element: e, position: i)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, pushSemiJoins(l), pushSemiJoins(r), outputs: o)
        case .scan, .values: return plan
        }
    }

    /// Apply `wrap` (a semi/anti join reading only `refs` of its left input) at the point
    /// of the inner join tree `plan` with the fewest estimated rows that still has `refs`.
    private func placeSemi(_ plan: LogicalPlan, _ refs: Set<Int>, _ wrap: (LogicalPlan) -> LogicalPlan) -> LogicalPlan {
        // Descend while one side of an inner join holds every referenced column.
        var path: [(LogicalPlan, Bool)] = []   // (join, went left)
        var node = plan
        var best = (depth: 0, rows: treeEstimate(plan))
        while case .join(let k, let l, let r, _) = node, k == .inner || k == .cross, !refs.isEmpty {
            let goLeft: Bool
            if refs.isSubset(of: l.outputIDs) { goLeft = true } else if refs.isSubset(of: r.outputIDs) { goLeft = false } else { break }
            path.append((node, goLeft))
            node = goLeft ? l : r
            let rows = treeEstimate(node)
            if rows <= best.rows { best = (path.count, rows) }
        }
        if best.depth == 0 { return wrap(plan) }
        func rebuild(_ p: LogicalPlan, _ depth: Int) -> LogicalPlan {
            if depth == best.depth { return wrap(p) }
            guard case .join(let k, let l, let r, let c) = p else { return wrap(p) }
            return path[depth].1 ? .join(k, rebuild(l, depth + 1), r, condition: c) : .join(k, l, rebuild(r, depth + 1), condition: c)
        }
        return rebuild(plan, 0)
    }

    /// Rows of an inner join tree as the greedy join order estimates them: the largest
    /// input, scaled by the filter selectivity of every other input.
    func treeEstimate(_ plan: LogicalPlan) -> Double {
        guard case .join(let k, _, _, _) = plan, k == .inner || k == .cross else { return estimate(plan) }
        var leaves: [LogicalPlan] = [], preds: [BoundExpr] = []
        flattenInner(plan, &leaves, &preds)
        if preds.isEmpty { return estimate(plan) }
        let rows = leaves.map { estimate($0) }
        guard let big = rows.indices.max(by: { rows[$0] < rows[$1] }) else { return estimate(plan) }
        var out = rows[big]
        for (i, leaf) in leaves.enumerated() where i != big { out *= rows[i] / baseRows(leaf) }
        return max(1, out)
    }
}
