// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Oracle-style outer joins, which Redshift reads: `WHERE a.x = b.y(+)` keeps every row of
/// `a` and NULLs for `b` where none matches, as `a LEFT JOIN b ON a.x = b.y`.
///
/// After a SELECT is parsed, the WHERE conjuncts that hold a marked column `t.c(+)` become
/// the ON condition of a LEFT JOIN of `t` (every marked column of a conjunct must name
/// the same relation); the other conjuncts stay in WHERE. The FROM list's unmarked
/// relations come first, as the comma join they were; then each outer relation, once
/// every relation its conditions name is joined (`b.z = c.w(+)` after `a.x = b.y(+)`).
/// The marks stay on the columns; nothing after this reads them.
enum OuterJoinMarkers {
    static func rewrite(_ select: inout Select) throws {
        guard let whereClause = select.whereClause, marked(whereClause) else { return }
        func fail(_ message: String, _ at: SourceLocation) -> SQLError {
            SQLError(.syntax, message, line: at.line, column: at.column)
        }
        // The FROM list's relations by the name their columns are qualified with.
        var names: [String] = []
        for item in select.from {
            switch item.kind {
            case .table(let name, let alias): names.append((alias?.name ?? name.name))
            case .subquery(_, let alias?), .function(_, let alias?): names.append(alias.name)
            default:
                throw fail("the (+) operator cannot be used with a JOIN clause in the FROM list", item.location)
            }
        }
        var outer: [String: [Expr]] = [:]
        var kept: [Expr] = []
        for c in conjuncts(whereClause) {
            let refs = markedReferences(c)
            if refs.isEmpty { kept.append(c); continue }
            var relation: String?
            for ref in refs {
                guard let table = ref.table else {
                    throw fail("a column marked with (+) must be qualified with its table's name or alias", c.location)
                }
                guard names.contains(table) else {
                    throw fail("missing FROM-clause entry for table \"\(table)\"", c.location)
                }
                if let relation, relation != table {
                    throw fail("a condition may mark the columns of one table only with (+)", c.location)
                }
                relation = table
            }
            guard let relation else { continue }
            if c.contains(where: { if case .binary(.or, _, _) = $0.kind { return true }; return false }) {
                throw fail("a condition with the (+) operator cannot hold OR", c.location)
            }
            outer[relation, default: []].append(c)
        }
        // The preserved relations as the comma join they were, then each outer relation.
        var tree: TableRef?
        var joined = Set<String>()
        for (i, item) in select.from.enumerated() where outer[names[i]] == nil {
            tree = tree.map { TableRef(.join(Join(kind: .cross, left: $0, right: item, condition: .none)), at: item.location) } ?? item
            joined.insert(names[i])
        }
        var pending = select.from.indices.filter { outer[names[$0]] != nil }
        while !pending.isEmpty {
            guard let next = pending.first(where: { i in
                (outer[names[i]] ?? []).allSatisfy { qualifiers($0).allSatisfy { $0 == names[i] || joined.contains($0) } }
            }), let left = tree else {
                throw fail("the (+) operator cannot join every table of the FROM list to the others (a cycle, or every table marked)",
                           whereClause.location)
            }
            let conditions = outer[names[next]] ?? []
            let on = conditions.dropFirst().reduce(conditions[0]) { Expr(.binary(.and, $0, $1), at: $1.location) }
            tree = TableRef(.join(Join(kind: .left, left: left, right: select.from[next], condition: .on(on))), at: select.from[next].location)
            joined.insert(names[next])
            pending.removeAll { $0 == next }
        }
        if let tree { select.from = [tree] }
        select.whereClause = kept.isEmpty ? nil : kept.dropFirst().reduce(kept[0]) { Expr(.binary(.and, $0, $1), at: $1.location) }
    }

    static func conjuncts(_ e: Expr) -> [Expr] {
        if case .binary(.and, let a, let b) = e.kind { return conjuncts(a) + conjuncts(b) }
        return [e]
    }

    static func marked(_ e: Expr) -> Bool {
        e.contains { if case .column(let ref) = $0.kind { return ref.outerJoinMarker }; return false }
    }

    static func markedReferences(_ e: Expr) -> [ColumnRef] {
        var out: [ColumnRef] = []
        _ = e.contains { x in
            if case .column(let ref) = x.kind, ref.outerJoinMarker { out.append(ref) }
            return false
        }
        return out
    }

    /// The relation names the qualified columns of `e` use.
    static func qualifiers(_ e: Expr) -> Set<String> {
        var out = Set<String>()
        _ = e.contains { x in
            if case .column(let ref) = x.kind, let t = ref.table { out.insert(t) }
            return false
        }
        return out
    }
}
