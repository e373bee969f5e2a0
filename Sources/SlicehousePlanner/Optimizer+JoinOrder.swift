// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Bushy join orders by greedy operator ordering (GOO, Fegaras 1998): of all pairs of
/// join trees connected by an equality, join the pair whose result is estimated
/// smallest, until one tree is left. Unlike the left-deep order from the fact table
/// (`greedyJoin`), two dimensions related to each other can meet before the fact
/// table, and two fact tables can each be reduced by their own dimensions before they
/// meet on a composite key.
///
/// TPC-DS q72 is the case in point: the left-deep order starts from inventory and
/// multiplies every inventory row of 1999's weeks by the seven days of its week before it
/// meets the catalog sales of one year, household and marital status; GOO joins those
/// sales to the dates of their weeks first and meets inventory on item and date, building
/// on the small side.
///
/// It is weighed when dynamic programming (`dynamicProgrammingOrder`) found no tree
/// clearly cheaper than the greedy order, or the inputs are too many for it. The bushy
/// order is taken only when ANALYZE has described every input (without
/// distinct counts the estimates cannot tell the orders apart), when it is bushy (a
/// left-deep GOO order only reorders joins the greedy order also weighs by how rows move
/// between slices: tried on TPC-DS, those reorderings made q13, q48 and q54 up to twice
/// as slow), and when its cost — the estimated rows of every join, summed, in
/// `bushyEstimate`, the same measure for both — is under half the left-deep order's.
/// On TPC-DS SF 1 it changes q72 (0.86 s → 0.27 s warm), q85 (63 ms → 25 ms) and q18
/// (75 ms → 104 ms: customer demographics broadcast early).
extension Optimizer {
    static let bushyMaxInputs = 16

    /// `greedy`, or the GOO order of the same inputs when it is clearly cheaper.
    func preferBushyOrder(_ leaves: [LogicalPlan], _ predicates: [BoundExpr], greedy: LogicalPlan) -> LogicalPlan {
        guard leaves.count >= 4, leaves.count <= Self.bushyMaxInputs,
              leaves.allSatisfy({ !columnStatistics($0).isEmpty }),
              let bushy = operatorOrder(leaves, predicates) else { return greedy }
        // A left-deep GOO order differs from the greedy one only in the order of the same
        // kind of joins, where the greedy order also weighs how rows move between slices.
        guard isBushy(bushy) else { return greedy }
        return joinCost(bushy) < 0.5 * joinCost(greedy) ? bushy : greedy
    }

    /// The GOO tree over `leaves`, or nil when some inputs are connected by no equality.
    func operatorOrder(_ leaves: [LogicalPlan], _ predicates: [BoundExpr]) -> LogicalPlan? {
        var trees = leaves
        var ids = leaves.map { Set($0.outputIDs) }
        var preds = predicates
        while trees.count > 1 {
            var best: (i: Int, j: Int, out: Double, conds: [Int])? = nil
            for i in 0..<trees.count {
                for j in (i + 1)..<trees.count {
                    let both = ids[i].union(ids[j])
                    var conds: [Int] = []
                    var equality = false
                    for (k, p) in preds.enumerated() {
                        let refs = p.referencedColumns
                        guard refs.isSubset(of: both), !refs.isDisjoint(with: ids[i]), !refs.isDisjoint(with: ids[j]) else { continue }
                        conds.append(k)
                        if isEquiJoinEdge(p) { equality = true }
                    }
                    guard equality else { continue }
                    let out = bushyEstimate(.join(.inner, trees[i], trees[j], condition: BoundExpr.conjunction(conds.map { preds[$0] })))
                    if let b = best, !(out < b.out) { continue }
                    best = (i, j, out, conds)
                }
            }
            guard let b = best else { return nil }
            let joined = LogicalPlan.join(.inner, trees[b.i], trees[b.j], condition: BoundExpr.conjunction(b.conds.map { preds[$0] }))
            for k in b.conds.sorted(by: >) { preds.remove(at: k) }
            trees[b.i] = joined
            ids[b.i] = ids[b.i].union(ids[b.j])
            trees.remove(at: b.j)
            ids.remove(at: b.j)
        }
        guard let root = trees.first else { return nil }
        return wrap(root, preds)
    }

    /// Whether some join of the tree joins two joins (not a left-deep chain).
    func isBushy(_ plan: LogicalPlan) -> Bool {
        func isJoin(_ p: LogicalPlan) -> Bool {
            switch p {
            case .join(let k, _, _, _): return k == .inner || k == .cross
            case .filter(let c, _): return isJoin(c)
            default: return false
            }
        }
        switch plan {
        case .join(let k, let l, let r, _) where k == .inner || k == .cross:
            return (isJoin(l) && isJoin(r)) || isBushy(l) || isBushy(r)
        case .filter(let p, _):
            return isBushy(p)
        default:
            return false
        }
    }

    /// The estimated rows of every inner join in `plan`'s join tree, summed.
    func joinCost(_ plan: LogicalPlan) -> Double {
        switch plan {
        case .join(let k, let l, let r, _) where k == .inner || k == .cross:
            return bushyEstimate(plan) + joinCost(l) + joinCost(r)
        case .filter(let p, _):
            return joinCost(p)
        default:
            return 0
        }
    }

    /// Rows of an inner join tree: `a · b / d`, with `d` the distinct count of the join
    /// key — of each side, the product of its key columns' counts (at most its rows), where
    /// a column that is a key of its table keeps its table's count (a filtered dimension
    /// holds a share of the key's values, not all of the other side's).
    func bushyEstimate(_ plan: LogicalPlan) -> Double {
        switch plan {
        case .join(let k, let l, let r, let c) where k == .inner || k == .cross:
            let a = bushyEstimate(l), b = bushyEstimate(r)
            guard let c else { return a * b }
            let ls = columnStatistics(l), rs = columnStatistics(r)
            let lk = keyColumns(l), rk = keyColumns(r)
            let lids = Set(l.outputIDs)
            var left = 1.0, right = 1.0, found = false
            var leftKey = false, rightKey = false
            for p in conjuncts(c) {
                guard case .binary(.equal, .column(let x, _), .column(let y, _), _) = p.withoutSignificanceCalls else { continue }
                let (lc, rc) = lids.contains(x) ? (x, y) : (y, x)
                guard let sl = ls[lc], let sr = rs[rc] else { continue }
                left *= max(1, sl.distinct)
                right *= max(1, sr.distinct)
                leftKey = leftKey || lk.contains(lc)
                rightKey = rightKey || rk.contains(rc)
                found = true
            }
            guard found else { return max(a, b) }
            // A side's key tuple has at most its rows' values, unless it holds a key of its
            // table: then it spans the table's values, of which its rows are a share.
            if !leftKey { left = min(left, a) }
            if !rightKey { right = min(right, b) }
            return max(1, a * b / max(left, right, 1))
        case .filter(let p, let e):
            return max(1, bushyEstimate(p) * Selectivity.of([e], conditionStatistics(p)))
        default:
            return estimate(plan)
        }
    }

    /// Output columns that are (nearly) unique in the table they come from and still
    /// unique in `plan`'s rows.
    func keyColumns(_ plan: LogicalPlan) -> Set<Int> {
        switch plan {
        case .scan(let t, _, let cols, let outs, _):
            let stats = context.statistics(t)
            let rows = Double(stats.rows)
            var out = Set<Int>()
            for (c, o) in zip(cols, outs) {
                if let s = stats.columns[c], rows > 0, s.distinct >= 0.9 * rows { out.insert(o.id) }
            }
            return out
        case .filter(let p, _):
            return keyColumns(p)
        case .project(let p, let exprs, let outs):
            let inner = keyColumns(p)
            var out = Set<Int>()
            for (e, o) in zip(exprs, outs) { if case .column(let id, _) = e, inner.contains(id) { out.insert(o.id) } }
            return out
        case .join(let k, let l, let r, let c):
            // A side's keys stay unique when the other side is joined on one of its keys.
            let lk = keyColumns(l), rk = k.keepsLeftOnly ? [] : keyColumns(r)
            if k.keepsLeftOnly { return lk }
            let lids = Set(l.outputIDs)
            var lJoinedOnKey = false, rJoinedOnKey = false
            for p in conjuncts(c) {
                guard case .binary(.equal, .column(let x, _), .column(let y, _), _) = p.withoutSignificanceCalls else { continue }
                let (lc, rc) = lids.contains(x) ? (x, y) : (y, x)
                if lk.contains(lc) { lJoinedOnKey = true }
                if rk.contains(rc) { rJoinedOnKey = true }
            }
            return (rJoinedOnKey ? lk : []).union(lJoinedOnKey ? rk : [])
        default:
            return []
        }
    }
}
