// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

// MARK: - Computations below joins

extension Optimizer {
    /// Arithmetic over several columns of one input of an inner join, computed on that
    /// input instead of above the join: the join then carries one column where it carried
    /// several. TPC-H Q9's `l_extendedprice * (1 - l_discount) - ps_supplycost *
    /// l_quantity` reads four columns of the lineitem side of its orders join; computed
    /// below it, that join's hash table holds one value a row instead of four, and its
    /// probe gathers one. A computation sinks on through the joins below as long as its
    /// columns come from one input.
    ///
    /// Only what cannot fail sinks (`cannotFail`): below the join it runs on rows the join
    /// would have dropped, and an error there would fail a query that succeeds. Nor does a
    /// computation sink into an input with more than twice the join's estimated rows,
    /// where it would run on many rows the join drops. The columns it read are pruned
    /// afterwards if nothing else reads them.
    func pushComputations(_ plan: LogicalPlan) -> LogicalPlan {
        var nextID = maxColumnID(plan)
        return pushComputations(plan, &nextID)
    }

    private func pushComputations(_ plan: LogicalPlan, _ nextID: inout Int) -> LogicalPlan {
        let p = plan.mapChildren { pushComputations($0, &nextID) }
        switch p {
        case .project(let input, let exprs, let outputs):
            var es = exprs
            let sunk = sinkComputations(&es, into: input, &nextID)
            return .project(sunk, es, outputs: outputs)
        case .aggregate(let input, let groups, let groupOutputs, let aggs):
            // The aggregates' arguments and ORDER BY keys, then the grouping keys, in one list.
            var es = aggs.flatMap { $0.expressions } + groups
            let sunk = sinkComputations(&es, into: input, &nextID)
            var k = 0
            let rewritten = aggs.map { a in
                a.mapExpressions { _ in
                    defer { k += 1 }
                    return es[k]
                }
            }
            return .aggregate(sunk, groups: Array(es[k...]), groupOutputs: groupOutputs, aggregates: rewritten)
        default:
            return p
        }
    }

    /// `input` with the computations among `exprs` (read above it) that read one side of
    /// it, an inner join, computed on that side; they are replaced in `exprs` by the
    /// columns that now carry them. `alsoRead`: columns something else above reads. Any
    /// other `input` is returned as it is.
    private func sinkComputations(_ exprs: inout [BoundExpr], into input: LogicalPlan, alsoRead: Set<Int> = [],
                                  _ nextID: inout Int) -> LogicalPlan {
        switch input {
        case .project(let p, let es, let outputs)
            where zip(es, outputs).allSatisfy({ e, o in e == .column(o.id, o.type) }):
            // Columns passed on as they are: the computations pass through too.
            let below = sinkComputations(&exprs, into: p, alsoRead: alsoRead, &nextID)
            let added = below.outputs.filter { !p.outputIDs.contains($0.id) }
            return .project(below, es + added.map { .column($0.id, $0.type) }, outputs: outputs + added)
        case .filter(let p, let e) where estimate(p) <= 2 * estimate(input):
            return .filter(sinkComputations(&exprs, into: p, alsoRead: alsoRead.union(e.referencedColumns), &nextID), e)
        default:
            break
        }
        guard case .join(.inner, let l, let r, let condition) = input else { return input }
        // How many readers each column has (the expressions, the join's condition, and
        // what else reads it): a computation is worth moving when at least two of its
        // columns are read by it alone.
        let conditionColumns = condition?.referencedColumns ?? []
        var readers: [Int: Int] = [:]
        for e in exprs { for c in e.referencedColumns { readers[c, default: 0] += 1 } }
        for c in conditionColumns.union(alsoRead) { readers[c, default: 0] += 1 }
        let leftIDs = l.outputIDs, rightIDs = r.outputIDs
        var left: [Int] = [], right: [Int] = []
        for (i, e) in exprs.enumerated() {
            if case .column = e { continue }
            let columns = e.referencedColumns
            guard columns.filter({ readers[$0] == 1 }).count >= 2, cannotFail(e) else { continue }
            if columns.isSubset(of: leftIDs) {
                left.append(i)
            } else if columns.isSubset(of: rightIDs) {
                right.append(i)
            }
        }
        if left.isEmpty && right.isEmpty { return input }
        let joinRows = estimate(input)
        let original = exprs
        func sink(_ side: LogicalPlan, _ positions: [Int]) -> LogicalPlan {
            guard !positions.isEmpty, estimate(side) <= 2 * joinRows else { return side }
            var moved: [BoundExpr] = [], columns: [PlanColumn] = []
            for i in positions {
                let e = exprs[i]
                if let k = moved.firstIndex(of: e) {
                    exprs[i] = .column(columns[k].id, columns[k].type)
                    continue
                }
                nextID += 1
                let column = PlanColumn(id: nextID, type: e.type, name: "?column?")
                moved.append(e)
                columns.append(column)
                exprs[i] = .column(column.id, column.type)
            }
            // On through the joins below, where the side's other readers are what else
            // reads it above: the expressions not moved and the join's condition.
            var others = alsoRead.union(conditionColumns)
            for (i, e) in original.enumerated() where !positions.contains(i) { others.formUnion(e.referencedColumns) }
            let below = sinkComputations(&moved, into: side, alsoRead: others.intersection(side.outputIDs), &nextID)
            return .project(below, side.outputs.map { .column($0.id, $0.type) } + moved, outputs: side.outputs + columns)
        }
        return .join(.inner, sink(l, left), sink(r, right), condition: condition)
    }

    /// Whether `e` is arithmetic that no value of its columns can make fail: `+`, `-` and
    /// `*` of exact numbers (columns and constants) whose DECIMAL result holds every
    /// result exactly — as many digits before the point as the operands' can make, and at
    /// least their scale (nothing rounded, no overflow). TPC-H's `l_extendedprice * (1 -
    /// l_discount)` is DECIMAL(15,2) times DECIMAL(16,2) into DECIMAL(31,4).
    func cannotFail(_ e: BoundExpr) -> Bool {
        switch e {
        case .column(_, let t), .constant(_, let t):
            return t.isInteger || t.isDecimal
        case .binary(let op, let a, let b, let t):
            guard op == .add || op == .subtract || op == .multiply, t.isDecimal,
                  cannotFail(a), cannotFail(b) else { return false }
            let (ta, tb) = (a.type, b.type)
            let whole = { (x: DataType) in x.precision - x.scale }
            if op == .multiply {
                return t.scale >= ta.scale + tb.scale && whole(ta) + whole(tb) <= whole(t)
            }
            return t.scale >= max(ta.scale, tb.scale) && max(whole(ta), whole(tb)) + 1 <= whole(t)
        default:
            return false
        }
    }
}
