// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Queries: WITH, set operations (INTERSECT binds tighter than UNION/EXCEPT/MINUS),
// SELECT and its clauses, VALUES, ORDER BY / LIMIT / OFFSET.

extension Parser {
    /// `[WITH ...] body [ORDER BY ...] [LIMIT n|ALL] [OFFSET m]` (LIMIT and OFFSET in either order).
    mutating func parseQuery() throws -> Query {
        try enterNesting()
        queryLevel += 1
        defer { leaveNesting(); queryLevel -= 1 }
        let start = current
        var with: WithClause?
        if acceptWord("with") { with = try parseWith() }
        let body = try parseSetExpression()
        var query = Query(with: with, body: body, location: start.location)
        if acceptWords("order", "by") { query.orderBy = try parseOrderItems() }
        var sawLimit = false
        var sawOffset = false
        while true {
            if !sawLimit && acceptWord("limit") {
                sawLimit = true
                query.limit = acceptWord("all") ? nil : try parseExpr()
            } else if !sawOffset && acceptWord("offset") {
                sawOffset = true
                query.offset = try parseExpr()
                _ = acceptWord("rows") || acceptWord("row")
            } else {
                break
            }
        }
        return query
    }

    /// `[RECURSIVE] name [(cols)] AS (query), ...` (WITH already consumed).
    private mutating func parseWith() throws -> WithClause {
        let recursive = acceptWord("recursive")
        var ctes: [CommonTableExpr] = []
        repeat {
            let start = current
            let name = try parseIdentifier()
            let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
            try expectWord("as")
            try expectSymbol("(")
            let query = try parseQuery()
            try expectSymbol(")")
            ctes.append(CommonTableExpr(name: name, columns: columns, query: query, location: start.location))
        } while acceptSymbol(",")
        return WithClause(recursive: recursive, ctes: ctes)
    }

    // MARK: - Set operations

    /// UNION / EXCEPT / MINUS, left-associative, over INTERSECT terms.
    ///
    /// A long run of the same UNION [ALL] (generated SQL can have thousands) becomes a
    /// balanced tree: UNION and UNION ALL are associative, the first branch stays
    /// leftmost (it names the columns), and every pass after the parser recurses only
    /// as deep as the tree is tall. Other chains count against `Parser.maxHeight`.
    private mutating func parseSetExpression() throws -> QueryBody {
        let heightOnEntry = height
        defer { height = heightOnEntry }
        var left = try parseIntersectTerm()
        while true {
            let token = current
            let op: SetOperator
            if acceptWord("union") {
                op = .union
            } else if acceptWord("except") || acceptWord("minus") {
                op = .except
            } else {
                return left
            }
            let all = parseSetQuantifier()
            if op == .union {
                var branches = [left, try parseIntersectTerm()]
                var locations = [token.location]
                while isWord("union"), isWord("all", at: 1) == all {
                    locations.append(advance().location)
                    _ = parseSetQuantifier()
                    branches.append(try parseIntersectTerm())
                }
                left = try setChain(branches, locations, op: op, all: all)
            } else {
                try growHeight()
                let right = try parseIntersectTerm()
                left = .setOperation(SetOperation(op: op, all: all, left: left, right: right, location: token.location))
            }
        }
    }

    private mutating func parseIntersectTerm() throws -> QueryBody {
        var left = try parseSetOperand()
        while isWord("intersect") {
            var locations = [advance().location]
            let all = parseSetQuantifier()
            var branches = [left, try parseSetOperand()]
            while isWord("intersect"), isWord("all", at: 1) == all {
                locations.append(advance().location)
                _ = parseSetQuantifier()
                branches.append(try parseSetOperand())
            }
            left = try setChain(branches, locations, op: .intersect, all: all)
        }
        return left
    }

    /// Runs of up to this many branches keep the left-deep shape of the grammar (plans
    /// and EXPLAIN output of everyday queries are unchanged); longer runs are balanced.
    static let setBalanceThreshold = 16

    /// `branches` joined by one associative set operator.
    private mutating func setChain(_ branches: [QueryBody], _ locations: [SourceLocation], op: SetOperator,
                                   all: Bool) throws -> QueryBody {
        func join(_ l: QueryBody, _ r: QueryBody, _ at: SourceLocation) -> QueryBody {
            .setOperation(SetOperation(op: op, all: all, left: l, right: r, location: at))
        }
        if branches.count <= Parser.setBalanceThreshold {
            var tree = branches[0]
            for i in 1..<branches.count {
                try growHeight()
                tree = join(tree, branches[i], locations[i - 1])
            }
            return tree
        }
        func build(_ lo: Int, _ hi: Int) -> QueryBody {
            if hi - lo == 1 { return branches[lo] }
            let mid = lo + (hi - lo + 1) / 2
            return join(build(lo, mid), build(mid, hi), locations[mid - 1])
        }
        return build(0, branches.count)
    }

    /// `ALL` → true; `DISTINCT` or nothing → false.
    private mutating func parseSetQuantifier() -> Bool {
        if acceptWord("all") { return true }
        _ = acceptWord("distinct")
        return false
    }

    /// `SELECT ...`, `VALUES ...` or `( query )`.
    private mutating func parseSetOperand() throws -> QueryBody {
        if isWord("select") { return .select(try parseSelect()) }
        if acceptWord("values") { return .values(try parseValuesRows(allowDefault: false)) }
        if isSymbol("(") {
            let inner = try parseParenthesizedQuery()
            // Parentheses that only group are dropped.
            if inner.with == nil && inner.orderBy.isEmpty && inner.limit == nil && inner.offset == nil {
                return inner.body
            }
            return .nested(inner)
        }
        throw syntaxError(at: current)
    }

    /// `( query )`, at `(`. Each start index is parsed once (`parenthesizedQueries`): the
    /// places that backtrack over it (an expression, a derived table, a set operand) share it.
    mutating func parseParenthesizedQuery() throws -> Query {
        let start = index
        if let memo = parenthesizedQueries[start] {
            switch memo {
            case .parsed(let query, let end): index = end; return query
            case .failed(let error, let end): index = end; throw error
            }
        }
        do {
            try expectSymbol("(")
            let query = try parseQuery()
            try expectSymbol(")")
            parenthesizedQueries[start] = .parsed(query, end: index)
            return query
        } catch {
            parenthesizedQueries[start] = .failed(error, end: index)
            throw error
        }
    }

    /// `(e, ...), (e, ...)` after VALUES; all rows must have the same length.
    mutating func parseValuesRows(allowDefault: Bool) throws -> [[Expr]] {
        var rows: [[Expr]] = []
        repeat {
            let rowStart = current
            try expectSymbol("(")
            var row = [try parseExprOrDefault(allowDefault: allowDefault)]
            while acceptSymbol(",") { row.append(try parseExprOrDefault(allowDefault: allowDefault)) }
            try expectSymbol(")")
            if let first = rows.first, first.count != row.count {
                throw error("VALUES lists must all be the same length", at: rowStart)
            }
            rows.append(row)
        } while acceptSymbol(",")
        return rows
    }

    /// An expression, or the DEFAULT keyword where a column default may be used.
    mutating func parseExprOrDefault(allowDefault: Bool) throws -> Expr {
        if allowDefault && isWord("default") {
            let token = advance()
            return Expr(.defaultValue, at: token.location)
        }
        return try parseExpr()
    }

    // MARK: - SELECT

    /// `SELECT [ALL|DISTINCT] [TOP n] [DISTINCT] items [FROM] [WHERE] [GROUP BY] [HAVING] [QUALIFY]`.
    private mutating func parseSelect() throws -> Select {
        let start = advance()  // SELECT
        var select = Select(items: [], location: start.location)
        if acceptWord("distinct") {
            select.distinct = true
        } else {
            _ = acceptWord("all")
        }
        if isWord("top"), case .integer(let n) = peek().kind {
            advance()
            let token = advance()
            select.top = Expr(.literal(.integer(n)), at: token.location)
            // Redshift takes `TOP n DISTINCT` as well as `DISTINCT TOP n`.
            if !select.distinct && acceptWord("distinct") { select.distinct = true }
        }
        select.items = try parseSelectItems()
        if isWord("exclude") && (isSymbol("(", at: 1) || isIdentifier(at: 1)) {
            advance()
            if isSymbol("(") {
                select.exclude = try parseParenthesizedIdentifiers()
            } else {
                repeat { select.exclude.append(try parseIdentifier()) } while acceptSymbol(",")
            }
        }
        if isWord("into") {
            let into = advance()
            // Only the statement's own query may create a table (not a CTE, subquery or view).
            guard !selectInto, queryLevel == 1, allowSelectInto else { throw error("SELECT ... INTO is not allowed here", at: into) }
            selectIntoTemporary = acceptWord("temp") || acceptWord("temporary")
            _ = acceptWord("table")
            selectIntoName = try parseObjectName()
            selectIntoLocation = into.location
            selectInto = true
        }
        if acceptWord("from") { select.from = try parseFromList() }
        if select.from.isEmpty, select.items.count == 1, case .expr(let e, let alias) = select.items[0],
           case .function(let call) = e.kind, call.name == "generate_series", call.over == nil {
            // `SELECT generate_series(1, 3) [AS n]`: one row per value, as if from the function.
            select.from = [TableRef(.function(call, alias: nil), at: e.location)]
            select.items = [.expr(Expr(.column(ColumnRef("generate_series")), at: e.location), alias: alias)]
        }
        if acceptWord("where") {
            select.whereClause = try parseExpr()
            try OuterJoinMarkers.rewrite(&select)
        }
        if acceptWords("group", "by") { select.groupBy = try parseGroupBy() }
        if acceptWord("having") { select.having = try parseExpr() }
        if acceptWord("qualify") { select.qualify = try parseExpr() }
        return select
    }

    private mutating func parseSelectItems() throws -> [SelectItem] {
        var items: [SelectItem] = []
        repeat {
            items.append(try parseSelectItem())
        } while acceptSymbol(",")
        return items
    }

    private mutating func parseSelectItem() throws -> SelectItem {
        let start = current
        if acceptSymbol("*") { return .wildcard(Wildcard(location: start.location)) }
        if let qualifier = try parseQualifiedWildcard() {
            return .wildcard(Wildcard(qualifier: qualifier, location: start.location))
        }
        let expr = try parseExpr()
        var alias: String?
        if acceptWord("as") {
            alias = try parseLabel()
        } else if atIdentifier && !(isWord("exclude") && (isSymbol("(", at: 1) || isIdentifier(at: 1))) {
            alias = try parseIdentifier()
        }
        return .expr(expr, alias: alias)
    }

    /// `t.*` / `s.t.*`: returns the qualifier and consumes it, or nil (consuming nothing).
    private mutating func parseQualifiedWildcard() throws -> [String]? {
        var offset = 0
        var names: [String] = []
        while true {
            switch peek(offset).kind {
            case .word(let w): names.append(w)
            case .quotedIdentifier(let s): names.append(s)
            default: return nil
            }
            guard isSymbol(".", at: offset + 1) else { return nil }
            if isSymbol("*", at: offset + 2) {
                for _ in 0..<(offset + 3) { advance() }
                return names
            }
            offset += 2
        }
    }

    // MARK: - GROUP BY

    private mutating func parseGroupBy() throws -> [GroupingElement] {
        if acceptWord("all") { return [.all] }
        var elements: [GroupingElement] = []
        repeat {
            if isWord("rollup") && isSymbol("(", at: 1) {
                advance()
                elements.append(.rollup(try parseGroupingItems(allowEmpty: false)))
            } else if isWord("cube") && isSymbol("(", at: 1) {
                advance()
                elements.append(.cube(try parseGroupingItems(allowEmpty: false)))
            } else if acceptWords("grouping", "sets") {
                elements.append(.groupingSets(try parseGroupingItems(allowEmpty: true)))
            } else if isSymbol("(") && isSymbol(")", at: 1) {
                advance()
                advance()
                elements.append(.groupingSets([[]]))
            } else {
                elements.append(.expr(try parseExpr()))
            }
        } while acceptSymbol(",")
        return elements
    }

    /// `(item, item, ...)` where an item is an expression or a parenthesised list
    /// (`(a, b)`, or `()` when `allowEmpty`).
    private mutating func parseGroupingItems(allowEmpty: Bool) throws -> [[Expr]] {
        try expectSymbol("(")
        var items: [[Expr]] = []
        repeat {
            items.append(try parseGroupingItem(allowEmpty: allowEmpty))
        } while acceptSymbol(",")
        try expectSymbol(")")
        return items
    }

    private mutating func parseGroupingItem(allowEmpty: Bool) throws -> [Expr] {
        guard isSymbol("(") else { return [try parseExpr()] }
        if allowEmpty && isSymbol(")", at: 1) {
            advance()
            advance()
            return []
        }
        // `(a, b)` is a list, but `(a + b) * 2` is an expression: try the list, else backtrack.
        let saved = index
        advance()
        if let list = try? parseExprList(), acceptSymbol(")"), isSymbol(",") || isSymbol(")") {
            return list
        }
        index = saved
        return [try parseExpr()]
    }

    /// `e, e, ...` (at least one).
    mutating func parseExprList() throws -> [Expr] {
        var exprs = [try parseExpr()]
        while acceptSymbol(",") { exprs.append(try parseExpr()) }
        return exprs
    }

    // MARK: - ORDER BY

    /// `e [ASC|DESC] [NULLS FIRST|LAST], ...`.
    mutating func parseOrderItems() throws -> [OrderItem] {
        var items: [OrderItem] = []
        repeat {
            var item = OrderItem(expr: try parseExpr())
            if acceptWord("desc") {
                item.descending = true
            } else {
                _ = acceptWord("asc")
            }
            if acceptWord("nulls") {
                if acceptWord("first") {
                    item.nullsFirst = true
                } else if acceptWord("last") {
                    item.nullsFirst = false
                } else {
                    throw syntaxError(at: current)
                }
            }
            items.append(item)
        } while acceptSymbol(",")
        return items
    }
}
