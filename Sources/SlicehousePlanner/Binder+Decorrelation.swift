// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// The general decorrelation of a subquery (Neumann and Kemper, "Unnesting Arbitrary
/// Queries", 2015): the subquery `q` reads outer columns `c1..cn` anywhere; its value for
/// each outer row is `q` evaluated for that row's `(c1..cn)`. The *dependent join*
/// `D ⋈ q`, where `D` is the set of distinct `(c1..cn)` of the clause's input, computes `q`
/// for every value at once. It is pushed down `q`'s operators until it reaches subtrees
/// that do not read the outer columns, where it becomes a plain cross join with `D` (which
/// the optimizer turns into a hash or nested-loop join through the predicates above):
///
/// | operator of q      | D ⋈ operator                                                        |
/// |--------------------|---------------------------------------------------------------------|
/// | no outer reference | D × q                                                               |
/// | filter, project    | the same over D ⋈ input, outer columns replaced by D's, D's columns passed up |
/// | aggregate          | grouped by D's columns too; without GROUP BY, `D' ⟕ (D ⋈ input)` first, so every value of D gets its row (COUNT(*) counts a marker) |
/// | inner / outer join | into the side that reads outer columns; both sides when both do, joined on D's columns being the same |
/// | semi / anti join   | the same, D's columns compared in the join condition                |
/// | DISTINCT           | the same over D ⋈ input (D's columns are part of the row)           |
/// | ORDER BY           | dropped (no LIMIT)                                                  |
/// | LIMIT / OFFSET     | ROW_NUMBER() OVER (PARTITION BY D's columns ORDER BY ...) kept within the bounds |
/// | UNION / INTERSECT / EXCEPT | both sides, D's columns part of each row                    |
/// | VALUES             | a projection of D per row                                           |
///
/// The result has `q`'s columns and D's; the clause's input is left-joined to it on the
/// outer columns being not distinct from D's (NULL matches NULL).
///
/// Each use of D is a fresh copy of the clause's input (new column ids) reduced to the
/// distinct outer values.
final class DependentJoin {
    let binder: Binder
    /// The clause's input, whose distinct correlation values form D.
    let outer: LogicalPlan
    let correlated: [CorrelatedColumn]
    let ids: Set<Int>

    init(binder: Binder, outer: LogicalPlan, correlated: [CorrelatedColumn]) {
        self.binder = binder; self.outer = outer; self.correlated = correlated
        self.ids = Set(correlated.map { $0.id })
    }

    typealias Mapping = [Int: PlanColumn]

    /// A copy of D: the distinct outer values, and which of its columns stands for each outer column.
    func makeD() -> (LogicalPlan, Mapping) {
        let (copy, renumber) = binder.renumbered(outer)
        var exprs: [BoundExpr] = [], outs: [PlanColumn] = [], m: Mapping = [:]
        for c in correlated {
            let e = c.outer.remapColumns { renumber[$0]?.id ?? $0 }
            let col = binder.newColumn(c.type, "?outer?")
            exprs.append(e); outs.append(col); m[c.id] = col
        }
        return (.distinct(.project(copy, exprs, outputs: outs)), m)
    }

    func dColumns(_ m: Mapping) -> [PlanColumn] { correlated.compactMap { m[$0.id] } }

    func subst(_ e: BoundExpr, _ m: Mapping) -> BoundExpr {
        e.transform { x in
            if case .column(let id, _) = x, let c = m[id] { return .column(c.id, c.type) }
            return x
        }
    }

    /// `d1 ≡ d2` for every outer column (NULL matching NULL).
    func sameOuter(_ m1: Mapping, _ m2: Mapping) throws -> [BoundExpr] {
        var conds: [BoundExpr] = []
        for c in correlated {
            guard let a = m1[c.id], let b = m2[c.id] else { throw SQLError.internalError("lost correlation column") }
            conds += binder.nullSafeEquality(.column(a.id, a.type), .column(b.id, b.type))
        }
        return conds
    }

    func reads(_ p: LogicalPlan) -> Bool { binder.referencesAny(p, ids) }

    func and(_ es: [BoundExpr]) -> BoundExpr? { BoundExpr.conjunction(es) }

    /// `D ⋈ p`: p's columns plus D's (the mapping says which stand for which outer column).
    func push(_ p: LogicalPlan) throws -> (LogicalPlan, Mapping) {
        if !reads(p) {
            let (d, m) = makeD()
            return (.join(.cross, d, p, condition: nil), m)
        }
        switch p {
        case .scan:
            let (d, m) = makeD()
            return (.join(.cross, d, p, condition: nil), m)
        case .filter(let input, let pred):
            let (i2, m) = try push(input)
            return (.filter(i2, subst(pred, m)), m)
        case .project(let input, let exprs, let outs):
            let (i2, m) = try push(input)
            let ds = dColumns(m)
            return (.project(i2, exprs.map { subst($0, m) } + ds.map { .column($0.id, $0.type) }, outputs: outs + ds), m)
        case .aggregate(let input, let groups, let groupOutputs, let aggs):
            let (i2, m) = try push(input)
            var aggs2 = aggs.map { $0.mapExpressions { self.subst($0, m) } }
            if groups.isEmpty {
                // Every value of D gets its row, over no input rows too.
                let marker = binder.newColumn(.boolean, "?row?")
                let marked = LogicalPlan.project(i2, i2.outputs.map { .column($0.id, $0.type) } + [.constant(.bool(true), .boolean)],
                                                 outputs: i2.outputs + [marker])
                let (d2, m2) = makeD()
                let joined = LogicalPlan.join(.left, d2, marked, condition: and(try sameOuter(m2, m)))
                for i in aggs2.indices where aggs2[i].function == .countStar {
                    aggs2[i].function = .count
                    aggs2[i].argument = .column(marker.id, .boolean)
                }
                let ds = dColumns(m2)
                let outs = ds.map { binder.newColumn($0.type, $0.name) }
                let m3 = Dictionary(uniqueKeysWithValues: zip(correlated.map { $0.id }, outs))
                return (.aggregate(joined, groups: ds.map { .column($0.id, $0.type) }, groupOutputs: outs, aggregates: aggs2), m3)
            }
            let ds = dColumns(m)
            let outs = ds.map { binder.newColumn($0.type, $0.name) }
            let m3 = Dictionary(uniqueKeysWithValues: zip(correlated.map { $0.id }, outs))
            return (.aggregate(i2, groups: groups.map { subst($0, m) } + ds.map { .column($0.id, $0.type) },
                               groupOutputs: groupOutputs + outs, aggregates: aggs2), m3)
        case .join(let kind, let l, let r, let cond):
            let lReads = reads(l), rReads = reads(r)
            switch kind {
            case .inner, .cross:
                if !rReads {
                    let (l2, m) = try push(l)
                    return (.join(kind, l2, r, condition: cond.map { subst($0, m) }), m)
                }
                if !lReads {
                    let (r2, m) = try push(r)
                    return (.join(kind, l, r2, condition: cond.map { subst($0, m) }), m)
                }
                let (l2, m1) = try push(l)
                let (r2, m2) = try push(r)
                return (.join(.inner, l2, r2, condition: and(conjuncts(cond.map { subst($0, m1) }) + (try sameOuter(m1, m2)))), m1)
            case .left, .semi, .anti, .antiNullAware:
                if !rReads {
                    let (l2, m) = try push(l)
                    return (.join(kind, l2, r, condition: cond.map { subst($0, m) }), m)
                }
                if kind == .antiNullAware {
                    throw SQLError(.featureNotSupported, Binder.unsupportedCorrelation)
                }
                let (l2, m1) = try push(l)
                let (r2, m2) = try push(r)
                return (.join(kind, l2, r2, condition: and(conjuncts(cond.map { subst($0, m1) }) + (try sameOuter(m1, m2)))), m1)
            case .right:
                if !lReads {
                    let (r2, m) = try push(r)
                    return (.join(kind, l, r2, condition: cond.map { subst($0, m) }), m)
                }
                let (l2, m1) = try push(l)
                let (r2, m2) = try push(r)
                return (.join(kind, l2, r2, condition: and(conjuncts(cond.map { subst($0, m2) }) + (try sameOuter(m1, m2)))), m2)
            case .full:
                // Each side's D columns, whichever side the row has.
                let (l2, m1) = try push(l)
                let (r2, m2) = try push(r)
                let joined = LogicalPlan.join(.full, l2, r2, condition: and(conjuncts(cond.map { subst($0, m1) }) + (try sameOuter(m1, m2))))
                var exprs = (l.outputs + r.outputs).map { BoundExpr.column($0.id, $0.type) }
                var outs = l.outputs + r.outputs
                var m3: Mapping = [:]
                for c in correlated {
                    guard let a = m1[c.id], let b = m2[c.id] else { throw SQLError.internalError("lost correlation column") }
                    let col = binder.newColumn(c.type, "?outer?")
                    exprs.append(.function(Builtins.conditional.coalesce, [.column(a.id, a.type), .column(b.id, b.type)], c.type))
                    outs.append(col)
                    m3[c.id] = col
                }
                return (.project(joined, exprs, outputs: outs), m3)
            case .leftSingle:
                if !rReads {
                    let (l2, m) = try push(l)
                    return (.join(kind, l2, r, condition: cond.map { subst($0, m) }), m)
                }
                throw SQLError(.featureNotSupported, Binder.unsupportedCorrelation)
            }
        case .distinct(let input):
            let (i2, m) = try push(input)
            return (.distinct(i2), m)
        case .unnest(let input, let array, let element, let position):
            // Each row unnests its own array: D's columns ride along.
            let (i2, m) = try push(input)
            return (.unnest(i2, array: subst(array, m), element: element, position: position), m)
        case .sort(let input, _):
            // Order inside a subquery without LIMIT means nothing.
            return try push(input)
        case .limit(let input, let limit, let offset):
            // LIMIT over projections (hidden ORDER BY columns dropped) over ORDER BY.
            var projections: [([BoundExpr], [PlanColumn])] = []
            var source = input
            while case .project(let i, let es, let os) = source { projections.append((es, os)); source = i }
            var keys: [LogicalSortKey] = []
            if case .sort(let i, let k) = source { source = i; keys = k }
            let (i2, m) = try push(source)
            let rn = binder.newColumn(.bigint, "?row_number?")
            let ds = dColumns(m)
            let w = LogicalWindow(kind: .rowNumber, argument: nil, parameter: 1, defaultValue: .null, ignoreNulls: false,
                                  partitionBy: ds.map { .column($0.id, $0.type) },
                                  orderBy: keys.map { LogicalSortKey(expr: subst($0.expr, m), ascending: $0.ascending, nullsFirst: $0.nullsFirst) },
                                  frame: .wholePartition, output: rn)
            let rnc = BoundExpr.column(rn.id, .bigint)
            var bounds: [BoundExpr] = []
            if offset > 0 { bounds.append(.binary(.greater, rnc, .constant(.int(Int64(offset)), .bigint), .boolean)) }
            if let limit { bounds.append(.binary(.lessEqual, rnc, .constant(.int(Int64(offset + limit)), .bigint), .boolean)) }
            var q = LogicalPlan.window(i2, [w])
            if let b = and(bounds) { q = .filter(q, b) }
            q = .project(q, i2.outputs.map { .column($0.id, $0.type) }, outputs: i2.outputs)
            for (es, os) in projections.reversed() {
                q = .project(q, es.map { subst($0, m) } + ds.map { .column($0.id, $0.type) }, outputs: os + ds)
            }
            return (q, m)
        case .window:
            throw SQLError(.featureNotSupported, Binder.unsupportedCorrelation)
        case .setOperation(let kind, let all, let l, let r, let outs):
            let (l2, m1) = try push(l)
            let (r2, m2) = try push(r)
            let lp = LogicalPlan.project(l2, (l.outputs + dColumns(m1)).map { .column($0.id, $0.type) }, outputs: l.outputs + dColumns(m1))
            let rp = LogicalPlan.project(r2, (r.outputs + dColumns(m2)).map { .column($0.id, $0.type) }, outputs: r.outputs + dColumns(m2))
            let ds = correlated.map { binder.newColumn($0.type, "?outer?") }
            let m3 = Dictionary(uniqueKeysWithValues: zip(correlated.map { $0.id }, ds))
            return (.setOperation(kind, all: all, lp, rp, outputs: outs + ds), m3)
        case .values(let rows, let outs):
            var branches: [LogicalPlan] = []
            for row in rows {
                let (d, m) = makeD()
                let ds = dColumns(m)
                let rowOuts = outs.map { binder.newColumn($0.type, $0.name) } + ds.map { binder.newColumn($0.type, $0.name) }
                branches.append(.project(d, row.map { subst($0, m) } + ds.map { .column($0.id, $0.type) }, outputs: rowOuts))
            }
            guard var q = branches.first else { throw SQLError.internalError("VALUES without rows") }
            for b in branches.dropFirst() {
                q = .setOperation(.union, all: true, q, b, outputs: q.outputs.map { binder.newColumn($0.type, $0.name) })
            }
            let ds = correlated.map { binder.newColumn($0.type, "?outer?") }
            let final = LogicalPlan.project(q, q.outputs.map { .column($0.id, $0.type) }, outputs: outs + ds)
            return (final, Dictionary(uniqueKeysWithValues: zip(correlated.map { $0.id }, ds)))
        }
    }
}

extension Binder {
    /// A copy of `plan` in which every column the plan defines has a new id; returns the
    /// copy and the old-to-new mapping. Columns the plan reads but does not define (outer
    /// references) keep their ids.
    func renumbered(_ plan: LogicalPlan) -> (LogicalPlan, [Int: PlanColumn]) {
        var map: [Int: PlanColumn] = [:]
        func fresh(_ c: PlanColumn) -> PlanColumn {
            if let x = map[c.id] { return x }
            let n = newColumn(c.type, c.name)
            map[c.id] = n
            return n
        }
        func e(_ x: BoundExpr) -> BoundExpr {
            x.transform { y in
                if case .column(let id, let t) = y, let c = map[id] { return .column(c.id, t) }
                return y
            }
        }
        func sortKey(_ k: LogicalSortKey) -> LogicalSortKey { LogicalSortKey(expr: e(k.expr), ascending: k.ascending, nullsFirst: k.nullsFirst) }
        func walk(_ p: LogicalPlan) -> LogicalPlan {
            switch p {
            case .scan(let t, let a, let cols, let outs, let f):
                let o2 = outs.map(fresh)
                return .scan(table: t, alias: a, columns: cols, outputs: o2, filters: f.map(e))
            case .filter(let c, let pred):
                let c2 = walk(c)
                return .filter(c2, e(pred))
            case .project(let c, let es, let outs):
                let c2 = walk(c)
                let es2 = es.map(e)
                return .project(c2, es2, outputs: outs.map(fresh))
            case .join(let k, let l, let r, let cond):
                let l2 = walk(l), r2 = walk(r)
                return .join(k, l2, r2, condition: cond.map(e))
            case .aggregate(let c, let g, let go, let aggs):
                let c2 = walk(c)
                let g2 = g.map(e)
                let aggs2 = aggs.map { a -> LogicalAggregate in
                    var b = a.mapExpressions(e)
                    b.output = fresh(a.output)
                    return b
                }
                return .aggregate(c2, groups: g2, groupOutputs: go.map(fresh), aggregates: aggs2)
            case .sort(let c, let keys):
                let c2 = walk(c)
                return .sort(c2, keys.map(sortKey))
            case .limit(let c, let l, let o):
                return .limit(walk(c), limit: l, offset: o)
            case .distinct(let c):
                return .distinct(walk(c))
            case .window(let c, let ws):
                let c2 = walk(c)
                let ws2 = ws.map { w -> LogicalWindow in
                    var v = w
                    v.argument = w.argument.map(e)
                    v.partitionBy = w.partitionBy.map(e)
                    v.orderBy = w.orderBy.map(sortKey)
                    v.output = fresh(w.output)
                    return v
                }
                return .window(c2, ws2)
            case .setOperation(let k, let all, let l, let r, let outs):
                let l2 = walk(l), r2 = walk(r)
                return .setOperation(k, all: all, l2, r2, outputs: outs.map(fresh))
            case .values(let rows, let outs):
                let rows2 = rows.map { $0.map(e) }
                return .values(rows2, outputs: outs.map(fresh))
            case .unnest(let c, let array, let element, let position):
                let c2 = walk(c)
                return .unnest(c2, array: e(array), element: fresh(element), position: position.map(fresh))
            }
        }
        let copy = walk(plan)
        return (copy, map)
    }
}
