// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// FROM items: tables, derived tables, joins (left-deep), parenthesised joins.

extension Parser {
    /// `item, item, ...` — a comma list of FROM items (each possibly a join chain).
    mutating func parseFromList() throws -> [TableRef] {
        var refs: [TableRef] = []
        repeat {
            refs.append(try parseJoinedTable())
        } while acceptSymbol(",")
        return refs
    }

    /// `primary { [NATURAL] [INNER|LEFT|RIGHT|FULL [OUTER]|CROSS] JOIN primary [ON e | USING (cols)] }`.
    mutating func parseJoinedTable() throws -> TableRef {
        var left = try parseTablePrimary()
        while true {
            let token = current
            if acceptWords("cross", "join") {
                let right = try parseTablePrimary()
                left = TableRef(.join(Join(kind: .cross, left: left, right: right, condition: .none)),
                                at: token.location)
                continue
            }
            let natural = acceptWord("natural")
            let kind: JoinKind
            if acceptWord("inner") {
                kind = .inner
            } else if acceptWord("left") {
                kind = .left
            } else if acceptWord("right") {
                kind = .right
            } else if acceptWord("full") {
                kind = .full
            } else if isWord("join") {
                kind = .inner
            } else {
                if natural { throw syntaxError(at: current) }
                return left
            }
            if kind != .inner { _ = acceptWord("outer") }
            try expectWord("join")
            let right = try parseTablePrimary()
            let condition: JoinCondition
            if natural {
                condition = .natural
            } else if acceptWord("on") {
                condition = .on(try parseExpr())
            } else if acceptWord("using") {
                condition = .using(try parseParenthesizedIdentifiers())
            } else {
                throw syntaxError(at: current)
            }
            left = TableRef(.join(Join(kind: kind, left: left, right: right, condition: condition)),
                            at: token.location)
        }
    }

    /// A table name, a derived table `(query) alias`, or a parenthesised join.
    private mutating func parseTablePrimary() throws -> TableRef {
        try enterNesting()
        defer { leaveNesting() }
        let start = current
        // PartiQL's object unpivoting: `UNPIVOT c.obj [AS v] [AT k]`.
        if isWord("unpivot"), atIdentifier(at: 1), isSymbol(".", at: 2) {
            advance()
            let name = try parseObjectName()
            var alias = try parseTableAlias() ?? TableAlias(name: name.name)
            if isWord("at"), atIdentifier(at: 1) {
                advance()
                alias.position = try parseIdentifier()
            }
            alias.unpivot = true
            return TableRef(.table(name, alias: alias), at: start.location)
        }
        guard isSymbol("(") else {
            let name = try parseObjectName()
            if isSymbol("("), ["generate_series", "unnest"].contains(name.name.lowercased()),
               name.schema == nil || name.schema?.lowercased() == "pg_catalog" {
                // generate_series(start, stop [, step]) and unnest(array) as tables.
                let call = try parseFunctionCall(name: name.name.lowercased(), schema: nil)
                return TableRef(.function(call, alias: try parseTableAlias()), at: start.location)
            }
            if isSymbol("("), isSymbol(")", at: 1) {
                // A set-returning system function without arguments, as Redshift's catalog
                // queries use it: `pg_get_late_binding_view_cols() cols(a name, b int, ...)`.
                // It reads as the system view of that name; the declared types are checked
                // by the view's own.
                advance(); advance()
                return TableRef(.table(name, alias: try parseFunctionTableAlias()), at: start.location)
            }
            // PartiQL unnesting `c.orders [AS o] [AT i]`: a dotted name may take a position.
            var alias: TableAlias? = nil
            if name.schema != nil, isWord("at"), atIdentifier(at: 1) {
                advance()
                alias = TableAlias(name: name.name, position: try parseIdentifier())
            } else {
                alias = try parseTableAlias()
                if alias != nil, isWord("at"), atIdentifier(at: 1) {
                    advance()
                    alias?.position = try parseIdentifier()
                }
            }
            return TableRef(.table(name, alias: alias), at: start.location)
        }
        if isWord("select", at: 1) || isWord("with", at: 1) || isWord("values", at: 1) {
            return try parseDerivedTable()
        }
        if isSymbol("(", at: 1) {
            // `((SELECT ...) UNION ...) x` or `((a JOIN b) JOIN c)`: try the query first.
            let saved = index
            if let derived = try? parseDerivedTable() { return derived }
            index = saved
        }
        advance()  // (
        let inner = try parseJoinedTable()
        try expectSymbol(")")
        return inner
    }

    /// `(query) [AS] alias [(cols)]`.
    private mutating func parseDerivedTable() throws -> TableRef {
        let start = current
        let query = try parseParenthesizedQuery()
        let alias = try parseTableAlias()
        return TableRef(.subquery(query, alias: alias), at: start.location)
    }

    /// A function's `[AS] alias [(col type, ...)]`: the column names (types are skipped).
    private mutating func parseFunctionTableAlias() throws -> TableAlias? {
        let name: String
        if acceptWord("as") {
            name = try parseIdentifier()
        } else if atIdentifier {
            name = try parseIdentifier()
        } else {
            return nil
        }
        var columns: [String] = []
        if acceptSymbol("(") {
            repeat {
                columns.append(try parseIdentifier())
                _ = try parseDataType()
            } while acceptSymbol(",")
            try expectSymbol(")")
        }
        return TableAlias(name: name, columns: columns)
    }

    /// `[AS] alias [(col, ...)]`, or nil when no alias follows.
    mutating func parseTableAlias() throws -> TableAlias? {
        let name: String
        if acceptWord("as") {
            name = try parseIdentifier()
        } else if atIdentifier {
            name = try parseIdentifier()
        } else {
            return nil
        }
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        return TableAlias(name: name, columns: columns)
    }
}
