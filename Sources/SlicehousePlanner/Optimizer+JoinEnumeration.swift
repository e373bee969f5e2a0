// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Join ordering by dynamic programming over the join graph: DPccp (Moerkotte and
/// Neumann, "Analysis of Two Existing and One New Dynamic Programming Algorithm for the
/// Generation of Optimal Bushy Join Trees without Cross Products", VLDB 2006).
///
/// The inputs of a run of inner joins are the graph's vertices; an equality between
/// columns of two inputs is an edge. DPccp enumerates every pair of disjoint connected
/// sets that an edge joins (a csg-cmp pair) exactly once, so the best tree of each
/// connected set is built from the best trees of its parts: every bushy and left-deep
/// tree without a cross product is weighed. The pairs are costed in order of the size of
/// their union, so both parts are final when a pair is weighed.
///
/// Cost (`JoinCostModel`): of every join, the rows it emits, the rows it probes with, twice
/// the rows it builds a hash table over, and the rows it moves between slices — none when
/// both inputs are hashed on the join key or the build side is an ALL table, one side's
/// rows when one input must be redistributed, otherwise the cheaper of broadcasting the
/// build side (its rows on every slice) or redistributing both. Rows come from ANALYZE
/// (`JoinCostModel.predict`), and each connected set's rows are settled before any tree
/// is costed, so every tree of a set agrees on them.
///
/// The dynamic-programming tree replaces the greedy left-deep order (`greedyJoin`, tuned
/// on TPC-H and TPC-DS) only when its cost is under `dpAdvantage` of the greedy tree's
/// cost in the same model, since the estimates behind both are uncertain and the greedy
/// order also weighs effects the model does not (runtime filters, which side a slice's
/// rows land on). When it does not, and above `dpMaxInputs` inputs (where the enumeration
/// grows too large), greedy operator ordering (`preferBushyOrder`) may still take a bushy
/// tree. On TPC-DS SF 1 the dynamic-programming tree is taken for q24 (store_sales meets
/// store_returns on ticket and item first: 0.21 s → 0.07 s warm), q54 and q72; in a 0.7
/// margin it also took TPC-H Q3's orders ⋈ customer first, which ran slightly slower.
extension Optimizer {
    static let dpMaxInputs = 12
    static let dpAdvantage = 0.5

    /// Where a join tree's rows are: on the slice of their value of some columns (all equal
    /// in every row), on every slice (an ALL table), or anywhere.
    enum RowPlacement: Equatable {
        case anywhere
        case everySlice
        case hashed(Set<Int>)
    }

    /// The best tree found so far for one connected set of inputs.
    struct JoinEntry {
        var plan: LogicalPlan
        var cost: Double
        var rows: Double
        var placement: RowPlacement
    }

    /// The inputs of a run of inner joins, their predicates and the edges between them.
    struct JoinGraph {
        var leaves: [LogicalPlan]
        var predicates: [BoundExpr]
        /// For each predicate, the inputs it reads (bit i: leaf i).
        var predicateMasks: [UInt32]
        /// For each input, the inputs an equality joins it to.
        var neighbors: [UInt32]
        /// Which input produces a column.
        var leafOf: [Int: Int]

        init?(_ leaves: [LogicalPlan], _ predicates: [BoundExpr], isEdge: (BoundExpr) -> Bool) {
            guard leaves.count <= 31 else { return nil }
            self.leaves = leaves
            self.predicates = predicates
            var leafOf: [Int: Int] = [:]
            for (i, l) in leaves.enumerated() { for id in l.outputIDs { leafOf[id] = i } }
            self.leafOf = leafOf
            neighbors = Array(repeating: 0, count: leaves.count)
            predicateMasks = []
            for p in predicates {
                var mask: UInt32 = 0, outside = false
                for id in p.referencedColumns {
                    if let i = leafOf[id] { mask |= 1 << UInt32(i) } else { outside = true }
                }
                // A predicate that also reads columns from outside these inputs is applied
                // above their joins (mask 0), as the greedy order leaves it.
                if outside { mask = 0 }
                predicateMasks.append(mask)
                guard mask.nonzeroBitCount == 2, isEdge(p) else { continue }
                let a = mask.trailingZeroBitCount, b = (mask & (mask - 1)).trailingZeroBitCount
                neighbors[a] |= 1 << UInt32(b)
                neighbors[b] |= 1 << UInt32(a)
            }
        }

        func neighborhood(_ set: UInt32) -> UInt32 {
            var out: UInt32 = 0, rest = set
            while rest != 0 {
                let i = rest.trailingZeroBitCount
                out |= neighbors[i]
                rest &= rest - 1
            }
            return out & ~set
        }

        var isConnected: Bool {
            guard !leaves.isEmpty else { return false }
            var seen: UInt32 = 1
            while true {
                let next = seen | neighborhood(seen)
                if next == seen { break }
                seen = next
            }
            return seen.nonzeroBitCount == leaves.count
        }

        /// Every csg-cmp pair: two disjoint connected sets with an edge between them, each
        /// unordered pair once.
        func csgCmpPairs() -> [(UInt32, UInt32)] {
            var pairs: [(UInt32, UInt32)] = []
            func below(_ i: Int) -> UInt32 { i >= 31 ? ~0 : (UInt32(1) << UInt32(i + 1)) - 1 }
            func subsets(_ n: UInt32, _ body: (UInt32) -> Void) {
                // Every non-empty subset of n, smallest first.
                var sub: UInt32 = 0
                repeat {
                    sub = (sub &- n) & n
                    if sub != 0 { body(sub) }
                } while sub != 0
            }
            func enumerateCmp(_ s1: UInt32, _ s2: UInt32, _ x: UInt32) {
                let n = neighborhood(s2) & ~x
                if n == 0 { return }
                subsets(n) { pairs.append((s1, s2 | $0)) }
                subsets(n) { enumerateCmp(s1, s2 | $0, x | n) }
            }
            func emitCsg(_ s1: UInt32) {
                let x = s1 | below(s1.trailingZeroBitCount)
                let n = neighborhood(s1) & ~x
                var rest = n
                while rest != 0 {
                    let i = 31 - rest.leadingZeroBitCount   // descending
                    rest &= ~(UInt32(1) << UInt32(i))
                    let s2 = UInt32(1) << UInt32(i)
                    pairs.append((s1, s2))
                    enumerateCmp(s1, s2, x | (below(i) & n))
                }
            }
            func enumerateCsg(_ s: UInt32, _ x: UInt32) {
                let n = neighborhood(s) & ~x
                if n == 0 { return }
                subsets(n) { emitCsg(s | $0) }
                subsets(n) { enumerateCsg(s | $0, x | n) }
            }
            for i in stride(from: leaves.count - 1, through: 0, by: -1) {
                let s = UInt32(1) << UInt32(i)
                emitCsg(s)
                enumerateCsg(s, below(i))
            }
            return pairs
        }
    }

    /// The dynamic-programming order of `leaves`, or nil when it does not apply (too many
    /// or too few inputs, an input ANALYZE has not described, inputs no equality connects)
    /// or is not clearly cheaper than `greedy`.
    func dynamicProgrammingOrder(_ leaves: [LogicalPlan], _ predicates: [BoundExpr], greedy: LogicalPlan) -> LogicalPlan? {
        guard leaves.count >= 3, leaves.count <= Self.dpMaxInputs,
              leaves.allSatisfy({ !columnStatistics($0).isEmpty }),
              let graph = JoinGraph(leaves, predicates, isEdge: isEquiJoinEdge), graph.isConnected else { return nil }
        var model = JoinCostModel(optimizer: self, graph: graph)
        let pairs = graph.csgCmpPairs().sorted { ($0.0 | $0.1).nonzeroBitCount < ($1.0 | $1.1).nonzeroBitCount }
        model.settle(pairs)
        var best: [UInt32: JoinEntry] = [:]
        for i in leaves.indices { best[UInt32(1) << UInt32(i)] = model.leafEntry(i) }
        for (s1, s2) in pairs {
            guard let a = best[s1], let b = best[s2] else { continue }
            let joined = model.join(s1, a, s2, b)
            if let current = best[s1 | s2], !(joined.cost < current.cost) { continue }
            best[s1 | s2] = joined
        }
        let all = (UInt32(1) << UInt32(leaves.count)) - 1
        guard let root = best[all], let greedyCost = model.treeCost(greedy),
              root.cost < Self.dpAdvantage * greedyCost else { return nil }
        // The joins applied every predicate over two inputs or more; the rest stay above.
        let rest = graph.predicates.indices.filter { graph.predicateMasks[$0].nonzeroBitCount < 2 }.map { graph.predicates[$0] }
        return wrap(root.plan, rest)
    }
}

/// Rows and costs of joins of connected sets of a `JoinGraph` (see
/// `Optimizer.dynamicProgrammingOrder`).
struct JoinCostModel {
    typealias Entry = Optimizer.JoinEntry
    let optimizer: Optimizer
    let graph: Optimizer.JoinGraph
    let slices: Double
    /// Rows and column statistics of each connected set (`settle`).
    var rowsOf: [UInt32: Double] = [:]
    var statisticsOf: [UInt32: [Int: ColumnStatistics]] = [:]

    init(optimizer: Optimizer, graph: Optimizer.JoinGraph) {
        self.optimizer = optimizer
        self.graph = graph
        slices = Double(max(1, optimizer.context.sliceCount))
    }

    func leafEntry(_ i: Int) -> Entry {
        let leaf = graph.leaves[i]
        return Entry(plan: leaf, cost: 0, rows: rowsOf[UInt32(1) << UInt32(i)] ?? optimizer.leafRows(leaf), placement: placement(leaf))
    }

    /// Where a join input's rows are, from its table's distribution.
    func placement(_ plan: LogicalPlan) -> Optimizer.RowPlacement {
        switch plan {
        case .scan(let t, _, let cols, let outs, _):
            switch optimizer.context.statistics(t).placement {
            case .all: return .everySlice
            case .even: return .anywhere
            case .key(let column):
                guard let i = cols.firstIndex(of: column) else { return .anywhere }
                return .hashed([outs[i].id])
            }
        case .filter(let p, _):
            return placement(p)
        case .project(let p, let exprs, let outs):
            guard case .hashed(let cols) = placement(p) else { return placement(p) == .everySlice ? .everySlice : .anywhere }
            var mapped = Set<Int>()
            for (e, o) in zip(exprs, outs) { if case .column(let id, _) = e, cols.contains(id) { mapped.insert(o.id) } }
            return mapped.isEmpty ? .anywhere : .hashed(mapped)
        default:
            return .anywhere
        }
    }

    /// The predicates a join of `s1` and `s2` applies: those over both and nothing else.
    func conditions(_ s1: UInt32, _ s2: UInt32) -> [Int] {
        let union = s1 | s2
        return graph.predicateMasks.indices.filter { i in
            let m = graph.predicateMasks[i]
            return m & ~union == 0 && m & s1 != 0 && m & s2 != 0
        }
    }

    /// Column pairs `(in a, in b)` of the join's equalities.
    func keyPairs(_ conds: [Int], _ a: Entry) -> [(Int, Int)] {
        let aIDs = a.plan.outputIDs
        var out: [(Int, Int)] = []
        for i in conds {
            guard case .binary(.equal, .column(let x, _), .column(let y, _), _) = graph.predicates[i] else { continue }
            out.append(aIDs.contains(x) ? (x, y) : (y, x))
        }
        return out
    }

    /// Statistics of a set's columns (from its inputs').
    mutating func statistics(_ set: UInt32) -> [Int: ColumnStatistics] {
        if let known = statisticsOf[set] { return known }
        var out: [Int: ColumnStatistics] = [:]
        var rest = set
        while rest != 0 {
            let i = rest.trailingZeroBitCount
            rest &= rest - 1
            out.merge(optimizer.columnStatistics(graph.leaves[i])) { x, _ in x }
        }
        statisticsOf[set] = out
        return out
    }

    /// Rows of the join of sets `s1` and `s2`, as this pair predicts them.
    ///
    /// The equalities between the two sides compare a tuple of columns of each; a side's
    /// tuple takes at most the product of its columns' distinct counts and at most its rows.
    /// Of the two sides' tuple counts, the smaller's values are taken to be among the
    /// larger's, so the join keeps `a · b / max(da, db)` rows. (A filtered dimension counts
    /// its rows, not its table's keys: the dates of one year meet the sales of that year.
    /// Several equalities count as one tuple, not as independent filters: an item and an
    /// order number together name one sale.)
    mutating func predict(_ s1: UInt32, _ s2: UInt32) -> Double {
        let a = rowsOf[s1] ?? 1, b = rowsOf[s2] ?? 1
        let sa = statistics(s1), sb = statistics(s2)
        let aIDs = columns(s1)
        let conds = conditions(s1, s2)
        var tupleA = 1.0, tupleB = 1.0, counted = false
        var equalities = 0
        var others: [BoundExpr] = []
        for i in conds {
            let p = graph.predicates[i]
            guard case .binary(.equal, .column(let x0, _), .column(let y0, _), _) = p else {
                if !optimizer.isEquiJoinEdge(p) { others.append(p) }
                continue
            }
            equalities += 1
            let (x, y) = aIDs.contains(x0) ? (x0, y0) : (y0, x0)
            guard let dx = sa[x]?.distinct, let dy = sb[y]?.distinct else { continue }
            tupleA *= max(1, dx)
            tupleB *= max(1, dy)
            counted = true
        }
        var out: Double
        if counted {
            out = a * b / max(min(tupleA, a), min(tupleB, b), 1)
        } else {
            out = equalities == 0 && conds.isEmpty ? a * b : max(a, b)
        }
        // Other predicates over both sides (`inv_quantity_on_hand < cs_quantity`).
        if !others.isEmpty { out *= Selectivity.of(others, sa.merging(sb) { x, _ in x }) }
        return max(1, out)
    }

    /// Output columns of a set's inputs.
    func columns(_ set: UInt32) -> Set<Int> {
        var out = Set<Int>(), rest = set
        while rest != 0 {
            let i = rest.trailingZeroBitCount
            rest &= rest - 1
            out.formUnion(graph.leaves[i].outputIDs)
        }
        return out
    }

    /// Rows of every connected set, before any tree is costed: each pair that forms a set
    /// predicts its rows, and the set takes the largest prediction (an estimate too low is
    /// what makes a plan slow), so every tree of the set agrees on them. Pairs come
    /// smallest union first, so their parts are settled.
    mutating func settle(_ pairs: [(UInt32, UInt32)]) {
        for i in graph.leaves.indices { rowsOf[UInt32(1) << UInt32(i)] = optimizer.leafRows(graph.leaves[i]) }
        for (s1, s2) in pairs { rowsOf[s1 | s2] = max(rowsOf[s1 | s2] ?? 0, predict(s1, s2)) }
    }

    /// Rows of a set (predicted from this pair when no pair settled them).
    mutating func rows(_ s1: UInt32, _ s2: UInt32) -> Double {
        if let known = rowsOf[s1 | s2] { return known }
        let rows = predict(s1, s2)
        rowsOf[s1 | s2] = rows
        return rows
    }

    /// The cost of joining `a` and `b` (both costs included), and how rows move.
    mutating func weigh(_ s1: UInt32, _ a: Entry, _ s2: UInt32, _ b: Entry)
        -> (cost: Double, rows: Double, conds: [Int], pairs: [(Int, Int)], probeIsA: Bool, placement: Optimizer.RowPlacement) {
        let conds = conditions(s1, s2)
        let pairs = keyPairs(conds, a)
        let out = rows(s1, s2)
        // The smaller side builds, unless the other is on every slice.
        var probeIsA = a.rows >= b.rows
        if a.placement == .everySlice && b.placement != .everySlice { probeIsA = false }
        if b.placement == .everySlice && a.placement != .everySlice { probeIsA = true }
        let probe = probeIsA ? a : b, build = probeIsA ? b : a
        let probeKeys = pairs.map { probeIsA ? $0.0 : $0.1 }, buildKeys = pairs.map { probeIsA ? $0.1 : $0.0 }
        func hashedOn(_ p: Optimizer.RowPlacement, _ keys: [Int]) -> Int? {
            guard case .hashed(let cols) = p else { return nil }
            return keys.firstIndex { cols.contains($0) }
        }
        let pk = hashedOn(probe.placement, probeKeys), bk = hashedOn(build.placement, buildKeys)
        var moved = 0.0
        var placement = probe.placement
        if build.placement == .everySlice {
            moved = 0
        } else if pairs.isEmpty {
            moved = build.rows * slices
        } else if let pk, let bk, pk == bk {
            moved = 0
        } else if pk != nil {
            moved = build.rows
        } else if let bk, probe.rows <= build.rows * slices {
            moved = probe.rows
            placement = build.placement
            if case .hashed(let cols) = placement { placement = .hashed(cols.union([probeKeys[bk]])) }
        } else if build.rows * slices <= probe.rows + build.rows {
            moved = build.rows * slices
        } else {
            moved = probe.rows + build.rows
            placement = .hashed([probeKeys[0], buildKeys[0]])
        }
        if case .hashed(let cols) = placement, let (x, y) = pairs.first(where: { cols.contains($0.0) || cols.contains($0.1) }) {
            placement = .hashed(cols.union([x, y]))
        }
        if placement == .everySlice { placement = .anywhere }
        let cost = a.cost + b.cost + out + probe.rows + 2 * build.rows + moved
        return (cost, out, conds, pairs, probeIsA, placement)
    }

    mutating func join(_ s1: UInt32, _ a: Entry, _ s2: UInt32, _ b: Entry) -> Entry {
        let w = weigh(s1, a, s2, b)
        let probe = w.probeIsA ? a : b, build = w.probeIsA ? b : a
        let condition = BoundExpr.conjunction(w.conds.map { graph.predicates[$0] })
        return Entry(plan: .join(condition == nil ? .cross : .inner, probe.plan, build.plan, condition: condition),
                     cost: w.cost, rows: w.rows, placement: w.placement)
    }

    /// The cost of a given tree over the graph's inputs (the greedy order), or nil when its
    /// leaves are not the graph's inputs.
    mutating func treeCost(_ plan: LogicalPlan) -> Double? {
        func walk(_ p: LogicalPlan) -> (UInt32, Entry)? {
            // An input may itself be a join (a dimension joined to its snowflake table).
            if let id = p.outputs.first?.id, let i = graph.leafOf[id], graph.leaves[i].outputIDs == p.outputIDs {
                return (UInt32(1) << UInt32(i), leafEntry(i))
            }
            switch p {
            case .join(let k, let l, let r, _) where k == .inner || k == .cross:
                guard let (m1, e1) = walk(l), let (m2, e2) = walk(r), m1 & m2 == 0 else { return nil }
                return (m1 | m2, join(m1, e1, m2, e2))
            case .filter(let c, _):
                if case .join(let k, _, _, _) = c, k == .inner || k == .cross { return walk(c) }
                fallthrough
            default:
                return nil
            }
        }
        return walk(plan)?.1.cost
    }
}
