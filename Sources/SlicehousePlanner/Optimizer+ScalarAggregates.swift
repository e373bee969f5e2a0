// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Uncorrelated scalar subqueries that aggregate the same rows — one table, the same
/// filters — are computed by one aggregate over one scan:
///
///     SELECT CASE WHEN (SELECT count(*) FROM ss WHERE q BETWEEN 1 AND 20) > 74129
///                 THEN (SELECT avg(d) FROM ss WHERE q BETWEEN 1 AND 20)
///                 ELSE (SELECT avg(p) FROM ss WHERE q BETWEEN 1 AND 20) END ...
///
/// reads `ss` once for the three (TPC-DS q09: 15 subqueries, 5 distinct filters, so 5 scans
/// instead of 15). Each subquery is a left join against at most one row (`leftSingle`)
/// whose right side is an aggregate without GROUP BY — exactly one row, whatever its input
/// — over a scan, maybe under a projection of the aggregate's outputs. Subqueries in one
/// chain of such joins whose scans read the same table with equal filters (compared by
/// table column, not by the scans' own column ids) become one join against one aggregate
/// computing all their aggregates, its outputs keeping their ids; the chain's columns keep
/// their order. DISTINCT and ordered aggregates are left alone.
extension Optimizer {
    func mergeScalarAggregates(_ plan: LogicalPlan) -> LogicalPlan {
        guard case .join(.leftSingle, _, _, nil) = plan else { return plan.mapChildren { mergeScalarAggregates($0) } }
        // The chain: left-deep leftSingle joins without a condition (the whole chain at
        // once, from its top), its inputs rewritten first.
        var rights: [LogicalPlan] = []
        var base = plan
        while case .join(.leftSingle, let l, let r, nil) = base {
            rights.append(mergeScalarAggregates(r))
            base = l
        }
        base = mergeScalarAggregates(base)
        rights.reverse()
        let p = rights.reduce(base) { LogicalPlan.join(.leftSingle, $0, $1, condition: nil) }
        guard rights.count >= 2 else { return p }
        let parts = rights.map { ScalarAggregate($0) }
        var groups: [[Int]] = []
        for (i, part) in parts.enumerated() {
            guard let part else { groups.append([i]); continue }
            if let g = groups.firstIndex(where: { g in parts[g[0]].map { $0.sameRows(as: part) } ?? false }) {
                groups[g].append(i)
            } else {
                groups.append([i])
            }
        }
        if groups.count == rights.count { return p }
        var rebuilt = base
        for g in groups {
            let right: LogicalPlan
            if g.count == 1 {
                right = rights[g[0]]
            } else {
                right = ScalarAggregate.merged(g.compactMap { parts[$0] })
            }
            rebuilt = .join(.leftSingle, rebuilt, right, condition: nil)
        }
        // The chain's columns in their original order.
        return .project(rebuilt, p.outputs.map { .column($0.id, $0.type) }, outputs: p.outputs)
    }
}

/// A scalar subquery's right side: an aggregate without GROUP BY over a scan, under an
/// optional projection.
private struct ScalarAggregate {
    let table: TableDef
    let alias: String
    let columns: [Int]
    let scanOutputs: [PlanColumn]
    let filters: [BoundExpr]
    let aggregates: [LogicalAggregate]
    /// The projection above the aggregate, if any.
    let projection: (exprs: [BoundExpr], outputs: [PlanColumn])?

    init?(_ plan: LogicalPlan) {
        var node = plan
        var projection: (exprs: [BoundExpr], outputs: [PlanColumn])?
        if case .project(let inner, let exprs, let outputs) = node {
            projection = (exprs, outputs)
            node = inner
        }
        guard case .aggregate(let input, let groups, let groupOutputs, var aggs) = node, groups.isEmpty,
              groupOutputs.isEmpty, !aggs.isEmpty,
              aggs.allSatisfy({ !$0.distinct && $0.orderBy.isEmpty }) else { return nil }
        // Down to the scan through filters and projections (whose expressions are put in
        // place of their columns in the aggregates' arguments and the filters above them).
        var filters: [BoundExpr] = []
        var scan = input
        var depth = 0
        while depth < 8 {
            depth += 1
            if case .filter(let inner, let predicate) = scan {
                filters += conjuncts(predicate)
                scan = inner
            } else if case .project(let inner, let exprs, let outputs) = scan, exprs.count == outputs.count {
                let byID = Dictionary(zip(outputs.map { $0.id }, exprs), uniquingKeysWith: { a, _ in a })
                func inline(_ e: BoundExpr) -> BoundExpr {
                    e.transform { x in
                        if case .column(let id, _) = x, let replacement = byID[id] { return replacement }
                        return x
                    }
                }
                for k in aggs.indices { aggs[k].argument = aggs[k].argument.map(inline) }
                filters = filters.map(inline)
                scan = inner
            } else {
                break
            }
        }
        guard case .scan(let table, let alias, let columns, let outputs, let scanFilters) = scan,
              columns.count == outputs.count else { return nil }
        self.table = table
        self.alias = alias
        self.columns = columns
        self.scanOutputs = outputs
        self.filters = scanFilters + filters
        self.aggregates = aggs
        self.projection = projection
        // Everything above the scan reads only its columns (and the aggregate's outputs).
        let own = Set(outputs.map { $0.id })
        for f in self.filters where !f.referencedColumns.isSubset(of: own) { return nil }
        for a in aggs {
            if let arg = a.argument, !arg.referencedColumns.isSubset(of: own) { return nil }
        }
        if let projection {
            let aggIDs = Set(aggs.map { $0.output.id })
            for e in projection.exprs where !e.referencedColumns.isSubset(of: aggIDs) { return nil }
        }
    }

    /// The table column each of the scan's column ids reads.
    private var tableColumn: [Int: Int] {
        Dictionary(zip(scanOutputs.map { $0.id }, columns), uniquingKeysWith: { a, _ in a })
    }

    /// The filters with each column named by its table column (comparable across scans).
    private var canonicalFilters: [BoundExpr] {
        let byID = tableColumn
        return filters.map { f in f.remapColumns { id in -1_000_000 - (byID[id] ?? 0) } }
    }

    func sameRows(as other: ScalarAggregate) -> Bool {
        table.id == other.table.id && canonicalFilters == other.canonicalFilters
    }

    /// One aggregate over one scan for `parts` (the same rows): the first scan's ids for
    /// the table columns it reads, the others' own ids for columns only they read.
    static func merged(_ parts: [ScalarAggregate]) -> LogicalPlan {
        guard let first = parts.first else { return .values([], outputs: []) }
        var columns = first.columns
        var outputs = first.scanOutputs
        var idOfColumn = Dictionary(zip(first.columns, first.scanOutputs.map { $0.id }), uniquingKeysWith: { a, _ in a })
        var aggregates: [LogicalAggregate] = []
        var exprs: [BoundExpr] = []
        var projected: [PlanColumn] = []
        for part in parts {
            for (c, out) in zip(part.columns, part.scanOutputs) where idOfColumn[c] == nil {
                columns.append(c)
                outputs.append(out)
                idOfColumn[c] = out.id
            }
            let byID = part.tableColumn
            func remap(_ e: BoundExpr) -> BoundExpr {
                e.remapColumns { id in byID[id].flatMap { idOfColumn[$0] } ?? id }
            }
            for var a in part.aggregates {
                a.argument = a.argument.map(remap)
                aggregates.append(a)
            }
            if let projection = part.projection {
                exprs += projection.exprs
                projected += projection.outputs
            } else {
                exprs += part.aggregates.map { .column($0.output.id, $0.output.type) }
                projected += part.aggregates.map { $0.output }
            }
        }
        let idMap = first.tableColumn
        let filters = first.filters.map { f in f.remapColumns { id in idMap[id].flatMap { idOfColumn[$0] } ?? id } }
        let scan = LogicalPlan.scan(table: first.table, alias: first.alias, columns: columns, outputs: outputs,
                                    filters: filters)
        let aggregate = LogicalPlan.aggregate(scan, groups: [], groupOutputs: [], aggregates: aggregates)
        return .project(aggregate, exprs, outputs: projected)
    }
}
