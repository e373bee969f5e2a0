// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Redshift's compute nodes treat trailing blanks in VARCHAR values as insignificant when
/// they compare them: `address1 = '9516 Magnolia Boulevard'` matches a value stored with
/// two blanks after it, GROUP BY and DISTINCT put `'asdf '` with `'asdf'`, a join matches
/// them. The leader, which runs what reads no user table (catalog queries, SELECT of
/// constants, views of literals), is PostgreSQL and compares bytes: `'   ' = ''` is false
/// there (dbt-utils' `not_empty_string` test relies on it), and so are comparisons of two
/// constants, which the leader folds before a plan reaches the compute nodes.
///
/// So for a plan that reads a user table, each comparison (`= <> < <= > >=`, IN) with a
/// VARCHAR operand that is not a constant reads that operand without its trailing blanks
/// (`?significant?`, which returns the column itself when no value ends in one), a
/// constant beside it loses its own; GROUP BY and DISTINCT keys, COUNT(DISTINCT ...)
/// arguments and PARTITION BY keys likewise. A group shows the smallest of its values
/// (MIN, which prefers the value without blanks), so values are never changed by being
/// grouped. CHAR values need nothing: they are stored without trailing blanks; nor does
/// a VARCHAR column none of whose stored values ends in a blank (the blocks' zone maps
/// know, `TableStatistics.blankEnded`), which is what real data mostly is: such a column
/// keeps its zone maps, co-located joins and plain grouping.
///
/// Not covered (docs/DIFFERENCES.md): UNION / INTERSECT / EXCEPT compare rows byte for
/// byte; NULLIF, DECODE, GREATEST and LEAST compare as they bind.
extension Optimizer {
    func trailingBlanksInsignificant(_ plan: LogicalPlan) -> LogicalPlan {
        guard Self.readsUserTable(plan) else { return plan }
        var nextID = Self.largestColumnID(plan) + 1
        let plain = blankFreeColumns(plan)
        return significantKeys(mapExpressions(plan, { Self.significantComparisons($0, plain) }), plain, &nextID)
    }

    /// The VARCHAR columns of `plan` (by id) none of whose values ends in a blank: those
    /// read from a table whose blocks hold no such value, and the same values passed on by
    /// projections and grouping.
    func blankFreeColumns(_ plan: LogicalPlan) -> Set<Int> {
        var plain = Set<Int>()
        func walk(_ p: LogicalPlan) {
            switch p {
            case .scan(let t, _, let columns, let outputs, _):
                guard let blankEnded = context.statistics(t).blankEnded else { return }
                for (c, o) in zip(columns, outputs) where !blankEnded.contains(c) { plain.insert(o.id) }
            case .values: break
            case .project(let c, let es, let outputs):
                walk(c)
                for (e, o) in zip(es, outputs) { if case .column(let id, _) = e, plain.contains(id) { plain.insert(o.id) } }
            case .aggregate(let c, let groups, let outputs, _):
                walk(c)
                for (e, o) in zip(groups, outputs) { if case .column(let id, _) = e, plain.contains(id) { plain.insert(o.id) } }
            case .filter(let c, _), .sort(let c, _), .limit(let c, _, _), .distinct(let c), .window(let c, _), .unnest(let c, _, _, _):
                walk(c)
            case .join(_, let l, let r, _), .setOperation(_, _, let l, let r, _): walk(l); walk(r)
            }
        }
        walk(plan)
        return plain
    }

    /// Whether `plan` scans a table of the database (system tables have negative ids).
    static func readsUserTable(_ plan: LogicalPlan) -> Bool {
        var found = false
        func walk(_ p: LogicalPlan) {
            if found { return }
            switch p {
            case .scan(let t, _, _, _, _): if t.id > 0 { found = true }
            case .filter(let c, _), .project(let c, _, _), .aggregate(let c, _, _, _), .sort(let c, _), .limit(let c, _, _),
                 .distinct(let c), .window(let c, _), .unnest(let c, _, _, _):
                walk(c)
            case .join(_, let l, let r, _), .setOperation(_, _, let l, let r, _): walk(l); walk(r)
            case .values: break
            }
        }
        walk(plan)
        return found
    }

    static func largestColumnID(_ plan: LogicalPlan) -> Int {
        var largest = 0
        func walk(_ p: LogicalPlan) {
            for c in p.outputs { largest = max(largest, c.id) }
            switch p {
            case .scan, .values: break
            case .filter(let c, _), .project(let c, _, _), .aggregate(let c, _, _, _), .sort(let c, _), .limit(let c, _, _),
                 .distinct(let c), .window(let c, _), .unnest(let c, _, _, _):
                walk(c)
            case .join(_, let l, let r, _), .setOperation(_, _, let l, let r, _): walk(l); walk(r)
            }
        }
        walk(plan)
        return largest
    }

    /// `e` as a comparison reads it: without trailing blanks when it is a VARCHAR value
    /// (not a column of `plain`, which has none).
    static func significant(_ e: BoundExpr, _ plain: Set<Int>) -> BoundExpr {
        guard case .varchar = e.type else { return e }
        switch e {
        case .column(let id, _) where plain.contains(id): return e
        case .constant(.string(let s), let t):
            var bytes = Array(s.utf8)
            while bytes.last == 32 { bytes.removeLast() }
            return .constant(.string(String(decoding: bytes, as: UTF8.self)), t)
        case .constant: return e
        case .function(let f, _, _) where f === Builtins.internals.withoutTrailingBlanks: return e
        default: return .function(Builtins.internals.withoutTrailingBlanks, [e], e.type)
        }
    }

    /// Comparisons and IN lists over VARCHAR values, their operands read without trailing blanks.
    static func significantComparisons(_ e: BoundExpr, _ plain: Set<Int>) -> BoundExpr {
        func significant(_ e: BoundExpr) -> BoundExpr { Self.significant(e, plain) }
        return e.transform { node in
            switch node {
            case .binary(let op, let a, let b, let t) where op.isComparison && a.type.isString && b.type.isString
                && !(a.isConstant && b.isConstant) && (isVarchar(a) || isVarchar(b)):
                return .binary(op, significant(a), significant(b), t)
            case .inList(let a, let items, let negated) where a.type.isString && !a.isConstant
                && (isVarchar(a) || items.contains(where: isVarchar)):
                return .inList(significant(a), items.map(significant), negated: negated)
            default:
                return node
            }
        }
    }

    static func isVarchar(_ e: BoundExpr) -> Bool {
        if case .varchar = e.type { return true }
        return false
    }

    /// Grouping keys (GROUP BY, DISTINCT, COUNT(DISTINCT), PARTITION BY) without trailing blanks.
    func significantKeys(_ plan: LogicalPlan, _ plain: Set<Int>, _ nextID: inout Int) -> LogicalPlan {
        func significantKeys(_ p: LogicalPlan, _ nextID: inout Int) -> LogicalPlan { self.significantKeys(p, plain, &nextID) }
        func significant(_ e: BoundExpr) -> BoundExpr { Self.significant(e, plain) }
        func needsIt(_ e: BoundExpr) -> Bool { !e.isConstant && significant(e) != e }
        switch plan {
        case .scan, .values:
            return plan
        case .filter(let c, let e): return .filter(significantKeys(c, &nextID), e)
        case .project(let c, let es, let o): return .project(significantKeys(c, &nextID), es, outputs: o)
        case .join(let k, let l, let r, let cond):
            return .join(k, significantKeys(l, &nextID), significantKeys(r, &nextID), condition: cond)
        case .sort(let c, let keys): return .sort(significantKeys(c, &nextID), keys)
        case .limit(let c, let l, let o): return .limit(significantKeys(c, &nextID), limit: l, offset: o)
        case .setOperation(let k, let all, let l, let r, let o):
            return .setOperation(k, all: all, significantKeys(l, &nextID), significantKeys(r, &nextID), outputs: o)
        case .unnest(let c, let a, let e, let p): return .unnest(significantKeys(c, &nextID), array: a, element: e, position: p)
        case .window(let c, let windows):
            let ws = windows.map { w -> LogicalWindow in
                var w = w
                w.partitionBy = w.partitionBy.map { $0.isConstant ? $0 : significant($0) }
                return w
            }
            return .window(significantKeys(c, &nextID), ws)
        case .distinct(let c):
            let input = significantKeys(c, &nextID)
            let outs = input.outputs
            let keys = outs.map { BoundExpr.column($0.id, $0.type) }
            guard keys.contains(where: needsIt) else { return .distinct(input) }
            let fresh = outs.map { PlanColumn(id: $0.id, type: $0.type, name: $0.name) }
            return grouped(input, keys, fresh, [], plain, &nextID)
        case .aggregate(let c, let groups, let outputs, let aggregates):
            let input = significantKeys(c, &nextID)
            let aggs = aggregates.map { a -> LogicalAggregate in
                guard a.distinct, a.function == .count || a.function == .approximateCountDistinct,
                      let arg = a.argument, !arg.isConstant else { return a }
                var a = a
                a.argument = significant(arg)
                return a
            }
            return grouped(input, groups, outputs, aggs, plain, &nextID)
        }
    }

    /// An aggregate grouped by `groups` whose VARCHAR keys are read without trailing blanks:
    /// each such key groups by a hidden column and its output is the group's MIN of the
    /// key; a projection restores the outputs' order.
    func grouped(_ input: LogicalPlan, _ groups: [BoundExpr], _ outputs: [PlanColumn], _ aggregates: [LogicalAggregate],
                 _ plain: Set<Int>, _ nextID: inout Int) -> LogicalPlan {
        var newGroups: [BoundExpr] = [], newOutputs: [PlanColumn] = [], shown: [LogicalAggregate] = []
        for (g, o) in zip(groups, outputs) {
            let key = Self.significant(g, plain)
            guard !g.isConstant, key != g else {
                newGroups.append(g); newOutputs.append(o)
                continue
            }
            newGroups.append(key)
            newOutputs.append(PlanColumn(id: nextID, type: g.type, name: o.name))
            nextID += 1
            shown.append(LogicalAggregate(function: .min, argument: g, distinct: false, output: o))
        }
        if shown.isEmpty { return .aggregate(input, groups: groups, groupOutputs: outputs, aggregates: aggregates) }
        let node = LogicalPlan.aggregate(input, groups: newGroups, groupOutputs: newOutputs, aggregates: aggregates + shown)
        let all = outputs + aggregates.map { $0.output }
        return .project(node, all.map { .column($0.id, $0.type) }, outputs: all)
    }
}

extension BoundExpr {
    /// This expression with its `?significant?` calls taken out, for the estimates: a
    /// comparison or a key reads the column's statistics through one.
    var withoutSignificanceCalls: BoundExpr {
        transform { node in
            if case .function(let f, let args, _) = node, f === Builtins.internals.withoutTrailingBlanks, args.count == 1 {
                return args[0]
            }
            return node
        }
    }
}
