// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Eager aggregation: a GROUP BY over inner joins (or, at the top, an outer join that
/// pads X) whose aggregates read one subtree X only
/// is computed in two steps, a pre-aggregate of X below the joins and a merge above them.
/// X is one side of the top join, or, going down through inner joins, a side of a join
/// within that side (the joins above X bring grouping keys or filter nothing away).
///
///     GROUP BY c.a, c.b, x.y  SUM(x.v)  over  C JOIN X ON c.k = x.k
///       →  GROUP BY c.a, c.b, y  SUM(s)  over  C JOIN (GROUP BY x.k, x.y  SUM(x.v) AS s  over X)
///
/// Every joined row (c, x) meets the pre-aggregated row of x's join key and grouping
/// columns, so each final group merges exactly the partial sums, counts, minima and maxima
/// of its own rows (AVG from a summed sum and count, as grouping sets merge them:
/// `RollupPartials`). TPC-DS q04, q11 and q74 group each year's sales by seven customer
/// strings: 550 K joined rows per branch had their strings gathered, hashed and compared,
/// where the sales of a year have about 90 K (customer, year) pairs.
///
/// Taken only when it should pay: the aggregates read X alone, the other side C gives at
/// least one grouping key, the join keeps about as many rows as X has (a foreign key to an
/// unfiltered dimension: a join that filters X, as TPC-H Q3's and Q18's do, must meet it
/// first, and its runtime filters reach X's scans), and X's rows are estimated to fall into
/// at most half as many pre-aggregated groups (ANALYZE's distinct counts; a column held
/// to one value by a filter counts once), and grouping by X's few keys is much cheaper
/// than by the query's (below). The distinct counts overstate the groups of a fact table's
/// rows that share an order and so a customer: q04's catalog sales of a year, 286 K rows,
/// give 27 K (customer, year) groups where the customers' count is 100 K. At a quarter the
/// catalog and web branches of q04 and q11 were not pre-aggregated; at half the catalog
/// ones are (q04 500 → 270 ms, q11 235 → 172 ms at SF 1), and no TPC-H plan changes.
/// Runs after join ordering, so X is a subtree of the final join tree.
extension Optimizer {
    func eagerAggregation(_ plan: LogicalPlan) -> LogicalPlan {
        var nextID = maxColumnID(plan)
        return eager(plan, &nextID)
    }

    private func eager(_ plan: LogicalPlan, _ nextID: inout Int) -> LogicalPlan {
        if case .distinct(.project(let p, let exprs, let outputs)) = plan {
            let input = eager(p, &nextID)
            return .distinct(.project(eagerDistinct(input, exprs) ?? input, exprs, outputs: outputs))
        }
        guard case .aggregate(let p, let g, let go, let a) = plan else {
            return plan.mapChildren { eager($0, &nextID) }
        }
        let input = eager(p, &nextID)
        // The join tree as it is, or regrouped with a filtering dimension lower; failing
        // those, regrouped with a dimension on top. (Lifted shapes pass gates on more
        // keys: TPC-DS q62's and q99's sales pre-aggregated by a ship mode's name above
        // its join, rather than by its key below, took half as long again.)
        func preAggregated(_ joins: LogicalPlan, _ g: [BoundExpr], _ a: [LogicalAggregate]) -> LogicalPlan? {
            let shapes = [Shape(plan: joins)] + (filterJoinedLower(joins, g, a).map { [Shape(plan: $0)] } ?? [])
            if let done = self.preAggregated(joins, shapes, g, go, a, &nextID) { return done }
            let lifted = dimensionsLifted(joins, g, a)
            return lifted.isEmpty ? nil : self.preAggregated(joins, lifted, g, go, a, &nextID)
        }
        if let done = preAggregated(input, g, a) { return done }
        // Through a projection over the joins (a derived table's select list: Q9's profit
        // rows), its expressions read in the aggregate's place.
        if case .project(let joins, let exprs, let outs) = input, case .join = joins,
           !exprs.contains(where: isVolatile) {
            let byID = Dictionary(zip(outs.map { $0.id }, exprs), uniquingKeysWith: { a, _ in a })
            func inline(_ e: BoundExpr) -> BoundExpr {
                e.transform { node in
                    if case .column(let id, _) = node, let x = byID[id] { return x }
                    return node
                }
            }
            let g2 = g.map(inline), a2 = a.map { $0.mapExpressions(inline) }
            if let done = preAggregated(joins, g2, a2) { return done }
        }
        return .aggregate(input, groups: g, groupOutputs: go, aggregates: a)
    }

    /// SELECT DISTINCT over inner joins, made distinct first on the few integer columns of
    /// a subtree X that the select list and the joins above X read; nil when no X qualifies.
    ///
    ///     SELECT DISTINCT c.last_name, c.first_name, d.d_date
    ///       over (sales JOIN dates) JOIN customer ON s.customer = c.sk
    ///       →  over (SELECT DISTINCT s.customer, d.d_date FROM sales JOIN dates) JOIN customer
    ///
    /// Exact: the joined rows of X's duplicates on those columns are duplicates of each other
    /// above. TPC-DS q38 and q87 take the distinct names and dates of each channel's buyers:
    /// a ticket's items share its customer and date, so the join to customer and the string
    /// grouping see a tenth of the rows. Taken when the select list reads a string column
    /// from outside X (the costly grouping it spares), X's columns are at most three and not
    /// strings, and X is estimated at 10,000 rows or more; of several such X, the one with
    /// the fewest estimated rows. (The pairs' distinct count is not estimated: ANALYZE's
    /// per-column counts know nothing of a ticket's shared customer and date.)
    private func eagerDistinct(_ input: LogicalPlan, _ exprs: [BoundExpr]) -> LogicalPlan? {
        let used = exprs.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }
        let types = Dictionary(input.outputs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var best: (x: LogicalPlan, joins: [SpineJoin], keys: [PlanColumn], rows: Double)? = nil
        for (x, joins) in spineCandidates(input, []) {
            let xids = x.outputIDs
            let cids = joins.reduce(into: Set<Int>()) { $0.formUnion($1.other.outputIDs) }
            guard used.contains(where: { cids.contains($0) && types[$0]?.type.physical == .string }) else { continue }
            var keyIDs: [Int] = []
            func key(_ ids: Set<Int>) { for id in ids.sorted() where !keyIDs.contains(id) { keyIDs.append(id) } }
            key(used.intersection(xids))
            for j in joins { key(j.condition.referencedColumns.intersection(xids)) }
            let xColumns = Dictionary(x.outputs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let keys = keyIDs.compactMap { xColumns[$0] }
            guard !keys.isEmpty, keys.count == keyIDs.count, keys.count <= 3,
                  keys.allSatisfy({ $0.type.physical != .string }) else { continue }
            let rows = estimate(x)
            guard rows >= 10_000 else { continue }
            if let b = best, b.rows <= rows { continue }
            best = (x, joins, keys, rows)
        }
        guard let (x, joins, keys, _) = best else { return nil }
        var joined = LogicalPlan.distinct(.project(x, keys.map { .column($0.id, $0.type) }, outputs: keys))
        for j in joins.reversed() {
            joined = j.xIsLeft ? .join(.inner, joined, j.other, condition: j.condition)
                               : .join(.inner, j.other, joined, condition: j.condition)
        }
        return joined
    }

    /// A join tree the aggregate's input may be regrouped as, and the weight of the
    /// grouping columns that regrouping lifts off the joins below (`dimensionsLifted`):
    /// they are no longer carried through them, which the pre-aggregate's cost gate counts
    /// on its side.
    private struct Shape {
        let plan: LogicalPlan
        var lifted: Double = 0
    }

    /// One inner join on the way down from the aggregate to X: the side that is not X,
    /// which side X is, and the join's condition.
    private struct SpineJoin {
        let other: LogicalPlan
        let xIsLeft: Bool
        let condition: BoundExpr
        /// Inner, or (the top join only) the outer join that pads X (`LEFT` with X on
        /// the right, `RIGHT` with X on the left).
        var kind: LogicalJoinKind = .inner

        func rebuilt(_ x: LogicalPlan, _ condition: BoundExpr) -> LogicalPlan {
            xIsLeft ? .join(kind, x, other, condition: condition) : .join(kind, other, x, condition: condition)
        }
    }

    /// The subtrees X the aggregate over `input` could pre-aggregate: going down through
    /// inner joins from `input`, every side that holds all the aggregates' inputs, with
    /// the joins passed on the way (the top one first). TPC-DS q99 groups catalog sales
    /// joined to the year's dates by three dimensions' strings: X is the sales joined to
    /// the dates, under three joins to the dimensions.
    ///
    /// The top join may also be an outer join whose padded side is X (TPC-H Q13: each
    /// customer LEFT JOIN its orders, COUNT(o_orderkey) by customer) when every aggregate
    /// ignores NULLs (`padsX`): a row of C that matches nothing meets no pre-aggregated
    /// row either, and its padded NULLs merge to what they aggregated to before (COUNT's
    /// merge gives 0).
    private func spineCandidates(_ input: LogicalPlan, _ aggInputs: Set<Int>,
                                 padsX: Bool = false) -> [(x: LogicalPlan, joins: [SpineJoin])] {
        var out: [(x: LogicalPlan, joins: [SpineJoin])] = []
        func walk(_ node: LogicalPlan, _ joins: [SpineJoin]) {
            guard case .join(let kind, let l, let r, let cond?) = node else { return }
            var sides: [(LogicalPlan, LogicalPlan, Bool)]
            switch kind {
            case .inner: sides = [(l, r, true), (r, l, false)]
            case .left where padsX && joins.isEmpty: sides = [(r, l, false)]
            case .right where padsX && joins.isEmpty: sides = [(l, r, true)]
            default: return
            }
            for (x, other, xIsLeft) in sides where aggInputs.isSubset(of: x.outputIDs) {
                let path = joins + [SpineJoin(other: other, xIsLeft: xIsLeft, condition: cond, kind: kind)]
                out.append((x, path))
                walk(x, path)
            }
        }
        walk(input, [])
        return out
    }

    /// The aggregate over its input computed as a pre-aggregate of a subtree X below the
    /// joins that bring the other grouping keys, or nil. `shapes` are join trees the
    /// input's joins `input` may be regrouped as (itself, `filterJoinedLower`,
    /// `dimensionsLifted`); `input`'s estimate is the joined rows. Of the X that pass the
    /// gates, the one estimated to give the fewest groups is taken, the deepest of those
    /// (the most joins over pre-aggregated rows): q99's sales by three dimension keys
    /// rather than by a warehouse name and two keys, q50's sales by store below the join
    /// to every date rather than by store and sale date above it.
    private func preAggregated(_ input: LogicalPlan, _ shapes: [Shape], _ groups: [BoundExpr],
                               _ groupOutputs: [PlanColumn], _ aggs: [LogicalAggregate],
                               _ nextID: inout Int) -> LogicalPlan? {
        guard !groups.isEmpty, !aggs.isEmpty, !shapes.isEmpty else { return nil }
        let aggInputs = aggs.reduce(into: Set<Int>()) { set, a in for e in a.expressions { set.formUnion(e.referencedColumns) } }
        let inputRows = estimate(input)
        // Under an outer join that pads X, every aggregate must ignore NULLs (COUNT(*)
        // counts the padded row).
        let ignoresNulls = aggs.allSatisfy { a in
            switch a.function {
            case .count, .sum, .min, .max, .avg: return a.argument != nil
            default: return false
            }
        }
        var best: (x: LogicalPlan, joins: [SpineJoin], keys: [BoundExpr], groups: Double)? = nil
        let candidates = shapes.flatMap { shape in
            spineCandidates(shape.plan, aggInputs, padsX: ignoresNulls).map { (x: $0.x, joins: $0.joins, lifted: shape.lifted) }
        }
        for (x, joins, lifted) in candidates {
            let outer = joins.first.map { $0.kind != .inner } ?? false
            let xids = x.outputIDs
            let cids = joins.reduce(into: Set<Int>()) { $0.formUnion($1.other.outputIDs) }
            let columns = Dictionary(x.outputs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            // What the pre-aggregate groups by: X's columns the joins read, and the grouping
            // keys over X alone — a computed one as it is (Q9's year of the order date: 7
            // values where the dates have 2,406), a column as itself.
            var keys: [BoundExpr] = []
            var fromC = false, sidesKept = true
            func key(_ ids: Set<Int>) {
                for id in ids.sorted() {
                    guard let c = columns[id] else { sidesKept = false; continue }
                    let e = BoundExpr.column(id, c.type)
                    if !keys.contains(e) { keys.append(e) }
                }
            }
            for g in groups {
                let refs = g.referencedColumns
                if refs.isEmpty { continue }
                if refs.isSubset(of: cids) {
                    fromC = true
                } else if refs.isSubset(of: xids) {
                    // A volatile key is grouped by its columns and computed above.
                    var computed = !isVolatile(g)
                    if case .column = g { computed = false }
                    if !computed { key(refs) } else if !keys.contains(g) { keys.append(g) }
                } else {
                    sidesKept = false
                }
            }
            guard fromC, sidesKept else { continue }
            for j in joins { key(j.condition.referencedColumns.intersection(xids)) }
            guard sidesKept else { continue }
            let xRows = estimate(x)
            // A lifted dimension pays by the gathers of its columns it spares X's rows in
            // the joins below it: on a few thousand rows (TPC-DS q83's returns of three
            // weeks) they cost less than the extra aggregate.
            if lifted > 0 && xRows < 100_000 { continue }
            // The join keeps about as many rows as X has (for an outer join: as the inner
            // join would; its padded rows come on top).
            let joinedRows = outer ? joins.first.map { estimate($0.rebuilt(x, $0.condition).withJoinKind(.inner)) } ?? inputRows
                                   : inputRows
            guard joinedRows >= 0.5 * xRows else { continue }
            // At most as many groups as the columns the keys read have values together; a
            // year of a date, as many as the dates' range has years.
            let fixed = constantColumns(x)
            var read = Set<Int>(), yearsOf = 1.0
            for k in keys {
                if let years = yearsAtMost(k, x) { yearsOf *= years } else { read.formUnion(k.referencedColumns) }
            }
            let counted = read.subtracting(fixed).sorted()
            let groupsEstimate = yearsOf * (counted.isEmpty ? 1
                : groupsAtMost(counted.compactMap { id in columns[id].map { .column(id, $0.type) } }, of: x))
            guard groupsEstimate * 2 <= xRows else { continue }
            // Aggregating X's rows by its keys must cost well under half of aggregating
            // them by the query's keys (a string key weighs three): with warehouse's one
            // name over inventory's (warehouse, item, month) (TPC-DS q39) the pre-aggregate
            // is a second aggregate as costly as the first, and the merge above it has as
            // many groups.
            let queryCost = groups.reduce(0) { $0 + Self.groupingWeight($1.type) }
            let preCost = keys.reduce(0.0) { $0 + Self.groupingWeight($1.type) }
            // (Not for an outer join padding X: there the pre-aggregate spares the join
            // itself — Q13's outer join marked a customer for each of 15 M orders — more
            // than the grouping.)
            guard outer || preCost + groupsEstimate / xRows * queryCost <= 0.5 * (queryCost + lifted) else { continue }
            if let b = best, b.groups < groupsEstimate || (b.groups == groupsEstimate && b.joins.count >= joins.count) { continue }
            best = (x, joins, keys, groupsEstimate)
        }
        guard let (x, joins, keys, _) = best else { return nil }
        let columns = Dictionary(x.outputs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func newColumn(_ type: DataType, _ name: String) -> PlanColumn {
            nextID += 1
            return PlanColumn(id: nextID, type: type, name: name)
        }
        guard let partials = RollupPartials(aggs, newColumn: newColumn) else { return nil }
        // Each key's output column; a grouping key computed below is read from it above.
        var keyOutputs: [PlanColumn] = []
        var renamed: [Int: PlanColumn] = [:]
        var computed: [(expr: BoundExpr, output: PlanColumn)] = []
        for k in keys {
            if case .column(let id, _) = k {
                guard let col = columns[id] else { return nil }
                let out = newColumn(col.type, col.name)
                renamed[id] = out
                keyOutputs.append(out)
            } else {
                let out = newColumn(k.type, "key")
                computed.append((k, out))
                keyOutputs.append(out)
            }
        }
        func rename(_ e: BoundExpr) -> BoundExpr {
            if let c = computed.first(where: { $0.expr == e }) { return .column(c.output.id, c.output.type) }
            return e.transform { node in
                if case .column(let id, _) = node, let n = renamed[id] { return .column(n.id, n.type) }
                return node
            }
        }
        var joined = LogicalPlan.aggregate(x, groups: keys, groupOutputs: keyOutputs, aggregates: partials.partials)
        for j in joins.reversed() { joined = j.rebuilt(joined, rename(j.condition)) }
        let (merges, values) = partials.merges([:], newColumn: newColumn)
        let merged = LogicalPlan.aggregate(joined, groups: groups.map(rename), groupOutputs: groupOutputs, aggregates: merges)
        return .project(merged, groupOutputs.map { .column($0.id, $0.type) } + values,
                        outputs: groupOutputs + aggs.map { $0.output })
    }

    /// `(A JOIN B) JOIN F` where nothing the aggregate reads comes from F (a filtering
    /// dimension: TPC-DS q22's date_dim) and F's join reads only A, as `(A JOIN F) JOIN B`,
    /// so that B, which gives the grouping keys, meets the pre-aggregate of A JOIN F
    /// (inventory by item over the year's dates, before item's four strings). Inner joins
    /// only; nil when the shape differs.
    private func filterJoinedLower(_ input: LogicalPlan, _ groups: [BoundExpr], _ aggs: [LogicalAggregate]) -> LogicalPlan? {
        guard case .join(.inner, let l, let r, let cond?) = input else { return nil }
        let used = aggregateInputColumns(groups, aggs)
        for (filtering, other) in [(r, l), (l, r)] {
            guard used.isDisjoint(with: filtering.outputIDs),
                  case .join(.inner, let a, let b, let inner?) = other else { continue }
            let reads = cond.referencedColumns.intersection(other.outputIDs)
            if reads.isSubset(of: a.outputIDs) {
                return .join(.inner, .join(.inner, a, filtering, condition: cond), b, condition: inner)
            }
            if reads.isSubset(of: b.outputIDs) {
                return .join(.inner, a, .join(.inner, b, filtering, condition: cond), condition: inner)
            }
        }
        return nil
    }

    /// What grouping by a key of `type` costs, in integer keys: a string weighs three.
    private static func groupingWeight(_ type: DataType) -> Double { type.physical == .string ? 3 : 1 }

    /// How many values `EXTRACT(YEAR FROM c)` takes at most over `plan`, for a DATE or
    /// TIMESTAMP column c whose range ANALYZE knows (TPC-H Q9's order years: 7, where the
    /// order dates have 2,406 values); nil for any other expression.
    private func yearsAtMost(_ key: BoundExpr, _ plan: LogicalPlan) -> Double? {
        guard case .function(let f, let args, _) = key, f == Builtins.dates.extract || f == Builtins.dates.datePart, args.count == 2,
              case .constant(.string(let part), _) = args[0], DateParts.canonical(part) == "year",
              case .column(let id, let type) = args[1] else { return nil }
        let perYear: Double
        switch type {
        case .date: perYear = 365.2425
        case .timestamp, .timestamptz: perYear = 365.2425 * 86_400_000_000
        default: return nil
        }
        guard let s = columnStatistics(plan)[id], let lo = s.min, let hi = s.max, hi >= lo else { return nil }
        return ((hi - lo) / perYear).rounded(.down) + 2 + (s.nullFraction > 0 ? 1 : 0)
    }

    /// The inner join tree `input` regrouped with a dimension D on top, one shape for each
    /// D joined below other joins that gives grouping keys and nothing else: no aggregate
    /// and no join above its own reads D's columns. D's join then becomes the top one, the
    /// side C that the rest is pre-aggregated under (`preAggregated`):
    ///
    ///     GROUP BY n.name, year(o.date)  over  (L JOIN (S JOIN N ON s.nk = n.nk)) JOIN O
    ///       →  over ((L JOIN S) JOIN O) JOIN N ON s.nk = n.nk
    ///
    /// TPC-H Q9 groups its profit by nation name: joined under the joins to lineitem and
    /// orders, the name was gathered and carried for every lineitem row, where the rows
    /// pre-aggregated by supplier nation key and year are 175. Inner joins reassociate
    /// freely: D's condition reads only D and its sibling S, whose columns reach the top.
    private func dimensionsLifted(_ input: LogicalPlan, _ groups: [BoundExpr], _ aggs: [LogicalAggregate]) -> [Shape] {
        guard case .join(.inner, _, _, _?) = input else { return [] }
        let groupReads = groups.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }
        let aggReads = aggs.reduce(into: Set<Int>()) { set, a in for e in a.expressions { set.formUnion(e.referencedColumns) } }
        var shapes: [Shape] = []
        // `above`: the columns the conditions of the joins above `node` read.
        func walk(_ node: LogicalPlan, _ path: [Bool], _ above: Set<Int>) {
            guard case .join(.inner, let l, let r, let c?) = node else { return }
            if !path.isEmpty {
                for (d, s) in [(r, l), (l, r)] {
                    let dids = d.outputIDs
                    guard !dids.isDisjoint(with: groupReads), dids.isDisjoint(with: aggReads),
                          dids.isDisjoint(with: above) else { continue }
                    // The grouping columns D gives, weighed as the gate weighs keys.
                    let carried = d.outputs.filter { groupReads.contains($0.id) }
                        .reduce(0.0) { $0 + Self.groupingWeight($1.type) }
                    shapes.append(Shape(plan: .join(.inner, replaced(input, path, with: s), d, condition: c), lifted: carried))
                }
            }
            let reads = above.union(c.referencedColumns)
            walk(l, path + [true], reads)
            walk(r, path + [false], reads)
        }
        walk(input, [], [])
        return shapes
    }

    /// `plan` with the node at `path` (through joins: true = left) replaced by `node`.
    private func replaced(_ plan: LogicalPlan, _ path: [Bool], with node: LogicalPlan) -> LogicalPlan {
        guard let first = path.first else { return node }
        guard case .join(let k, let l, let r, let c) = plan else { return plan }
        let rest = Array(path.dropFirst())
        return first ? .join(k, replaced(l, rest, with: node), r, condition: c)
                     : .join(k, l, replaced(r, rest, with: node), condition: c)
    }

    /// Columns of `plan` a scan filter holds to one value (`d_year = 2001`).
    private func constantColumns(_ plan: LogicalPlan) -> Set<Int> {
        switch plan {
        case .scan(_, _, _, _, let filters):
            var out = Set<Int>()
            for f in filters {
                for c in conjuncts(f) {
                    guard case .binary(.equal, let a, let b, _) = c else { continue }
                    if case .column(let id, _) = a, case .constant = b { out.insert(id) }
                    if case .column(let id, _) = b, case .constant = a { out.insert(id) }
                }
            }
            return out
        case .filter(let p, _), .sort(let p, _), .limit(let p, _, _), .distinct(let p):
            return constantColumns(p)
        case .join(let k, let l, let r, _):
            // Through inner joins only: a padded side may add NULLs.
            guard k == .inner || k == .cross || k.keepsLeftOnly else { return [] }
            return k.keepsLeftOnly ? constantColumns(l) : constantColumns(l).union(constantColumns(r))
        default:
            return []
        }
    }
}

extension LogicalPlan {
    /// The same join with another kind (estimates of an outer join as an inner one).
    func withJoinKind(_ kind: LogicalJoinKind) -> LogicalPlan {
        guard case .join(_, let l, let r, let c) = self else { return self }
        return .join(kind, l, r, condition: c)
    }
}
