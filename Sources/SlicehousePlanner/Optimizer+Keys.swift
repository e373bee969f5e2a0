// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Unique keys and the rewrites they allow:
///
/// - **Redundant DISTINCT / GROUP BY**: a DISTINCT, or a GROUP BY without aggregates,
///   whose columns include a key of its input (a declared PRIMARY KEY, a UNIQUE key of NOT
///   NULL columns, the keys of a GROUP BY or DISTINCT below) cannot merge two rows: it is
///   dropped (`SELECT DISTINCT pk, ...`, `SELECT k FROM (SELECT k, sum(v) ... GROUP BY k)
///   GROUP BY k`).
/// - **Redundant LEFT JOIN**: a left join whose right side is unique on the columns its
///   equalities compare (each left row meets at most one right row) and whose right
///   columns nothing above reads returns the left side's rows unchanged: it is dropped
///   (views that join a lookup table "just in case").
///
/// Redshift does not enforce PRIMARY KEY and UNIQUE constraints either, and its planner
/// relies on them the same way: with duplicate keys in the data, a DISTINCT may keep
/// duplicates (Redshift documents this for its own planner).
extension Optimizer {
    /// Sets of output column ids on which `plan`'s rows are unique. `nullable`: also keys
    /// whose columns may be NULL (rows with a NULL key may repeat; a join never matches them).
    func uniqueKeys(_ plan: LogicalPlan, nullable: Bool = false) -> [Set<Int>] {
        switch plan {
        case .scan(let t, _, let cols, let outs, _):
            // The table's PRIMARY KEY and UNIQUE lists (column constraints included; a
            // column's own flags also mark its part in a table-level key).
            var declared: [[Int]] = []
            if !t.primaryKey.isEmpty { declared.append(t.primaryKey) }
            for u in t.uniqueKeys where nullable || u.allSatisfy({ $0 < t.columns.count && t.columns[$0].notNull }) {
                declared.append(u)
            }
            var out: [Set<Int>] = []
            for key in declared {
                var ids = Set<Int>()
                for column in key {
                    guard let at = cols.firstIndex(of: column) else { ids = []; break }
                    ids.insert(outs[at].id)
                }
                if !ids.isEmpty { out.append(ids) }
            }
            return out
        case .filter(let p, _), .sort(let p, _), .limit(let p, _, _):
            return uniqueKeys(p, nullable: nullable)
        case .project(let p, let exprs, let outs):
            var rename: [Int: Int] = [:]
            for (e, o) in zip(exprs, outs) { if case .column(let id, _) = e, rename[id] == nil { rename[id] = o.id } }
            return uniqueKeys(p, nullable: nullable).compactMap { key in
                let mapped = key.compactMap { rename[$0] }
                return mapped.count == key.count ? Set(mapped) : nil
            }
        case .aggregate(_, let groups, let groupOutputs, _):
            return groups.isEmpty ? [[]] : [Set(groupOutputs.map { $0.id })]
        case .distinct(let p):
            return [Set(p.outputIDs)] + uniqueKeys(p, nullable: nullable)
        case .join(let k, let l, let r, let c):
            if k == .semi || k == .anti || k == .antiNullAware || k == .leftSingle { return uniqueKeys(l, nullable: nullable) }
            // A side joined on one of its keys adds at most one row to each row of the other.
            var out: [Set<Int>] = []
            if k == .inner || k == .left, joinsOnUniqueKey(r, sideIDs: r.outputIDs, c) { out += uniqueKeys(l, nullable: nullable) }
            if k == .inner || k == .right, joinsOnUniqueKey(l, sideIDs: l.outputIDs, c) { out += uniqueKeys(r, nullable: nullable) }
            return out
        case .window(let p, _):
            return uniqueKeys(p, nullable: nullable)
        case .setOperation(let kind, let all, let l, _, let o):
            if !all { return [Set(o.map { $0.id })] }
            if kind == .except || kind == .intersect {
                // The left side's rows, some dropped: its keys, renamed to the outputs.
                let rename = Dictionary(zip(l.outputIDs, o.map { $0.id }), uniquingKeysWith: { a, _ in a })
                return uniqueKeys(l, nullable: nullable).compactMap { key in
                    let mapped = key.compactMap { rename[$0] }
                    return mapped.count == key.count ? Set(mapped) : nil
                }
            }
            return []
        case .values(let rows, _):
            return rows.count <= 1 ? [[]] : []
        case .unnest(let p, _, _, let position):
            // An input row repeats once per element: unique with the element's position.
            guard let position else { return [] }
            return uniqueKeys(p, nullable: nullable).map { $0.union([position.id]) }
        }
    }

    /// Whether the equalities of `condition` compare every column of a unique key of
    /// `side` (whose output ids are `sideIDs`) with the other side.
    func joinsOnUniqueKey(_ side: LogicalPlan, sideIDs: Set<Int>, _ condition: BoundExpr?) -> Bool {
        var compared = Set<Int>()
        for p in conjuncts(condition) {
            guard case .binary(.equal, let a, let b, _) = p else { continue }
            if case .column(let x, _) = a, sideIDs.contains(x), !b.referencedColumns.isEmpty, b.referencedColumns.isDisjoint(with: sideIDs) {
                compared.insert(x)
            }
            if case .column(let y, _) = b, sideIDs.contains(y), !a.referencedColumns.isEmpty, a.referencedColumns.isDisjoint(with: sideIDs) {
                compared.insert(y)
            }
        }
        if compared.isEmpty { return false }
        return uniqueKeys(side, nullable: true).contains { !$0.isEmpty && $0.isSubset(of: compared) }
    }

    /// DISTINCT and aggregate-free GROUP BY over an input already unique on their columns
    /// become projections (see the type documentation).
    func removeRedundantGrouping(_ plan: LogicalPlan) -> LogicalPlan {
        switch plan {
        case .distinct(let p):
            let input = removeRedundantGrouping(p)
            let outs = Set(input.outputIDs)
            if uniqueKeys(input).contains(where: { $0.isSubset(of: outs) }) { return input }
            return .distinct(input)
        case .aggregate(let p, let groups, let groupOutputs, let aggs):
            let input = removeRedundantGrouping(p)
            if aggs.isEmpty, !groups.isEmpty {
                var ids = Set<Int>()
                for g in groups { if case .column(let id, _) = g { ids.insert(id) } }
                if uniqueKeys(input).contains(where: { $0.isSubset(of: ids) }) {
                    return .project(input, groups, outputs: groupOutputs)
                }
            }
            return .aggregate(input, groups: groups, groupOutputs: groupOutputs, aggregates: aggs)
        case .filter(let p, let e): return .filter(removeRedundantGrouping(p), e)
        case .project(let p, let es, let o): return .project(removeRedundantGrouping(p), es, outputs: o)
        case .join(let k, let l, let r, let c): return .join(k, removeRedundantGrouping(l), removeRedundantGrouping(r), condition: c)
        case .sort(let p, let k): return .sort(removeRedundantGrouping(p), k)
        case .limit(let p, let l, let o): return .limit(removeRedundantGrouping(p), limit: l, offset: o)
        case .window(let p, let ws): return .window(removeRedundantGrouping(p), ws)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, removeRedundantGrouping(l), removeRedundantGrouping(r), outputs: o)
        case .unnest(let p, let a, let e, let i): return .unnest(removeRedundantGrouping(p), array: a, element: e, position: i)
        case .scan, .values: return plan
        }
    }
}
