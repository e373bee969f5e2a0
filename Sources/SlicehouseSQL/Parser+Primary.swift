// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Primary expressions: literals, typed literals, parameters, parenthesised
// expressions and subqueries, CASE, CAST/CONVERT, EXISTS, column references and
// function calls (argument syntax in Parser+Functions.swift).

extension Parser {
    /// A primary expression (the operand of any operator).
    mutating func parsePrimary() throws -> Expr {
        let token = current
        switch token.kind {
        case .integer(let s):
            advance()
            return Expr(.literal(.integer(s)), at: token.location)
        case .decimal(let s):
            advance()
            return Expr(.literal(.decimal(s)), at: token.location)
        case .float(let s):
            advance()
            return Expr(.literal(.float(s)), at: token.location)
        case .string(let s):
            advance()
            return Expr(.literal(.string(s)), at: token.location)
        case .parameter(let n):
            advance()
            return Expr(.parameter(n), at: token.location)
        case .symbol("("):
            return try parseParenthesized()
        case .word(let word):
            return try parseWordExpression(word, token: token)
        case .quotedIdentifier:
            return try parseNameExpression()
        default:
            throw syntaxError(at: token)
        }
    }

    /// `(subquery)` or `(expression)`.
    private mutating func parseParenthesized() throws -> Expr {
        let token = current
        if startsParenthesizedQuery(), let query = try parseParenthesizedQueryIfPossible() {
            return Expr(.subquery(query), at: token.location)
        }
        advance()
        let inner = try parseExpr()
        if isSymbol(",") {
            // A row value `(a, b, ...)`.
            var items = [inner]
            while isSymbol(",") {
                advance()
                items.append(try parseExpr())
            }
            try expectSymbol(")")
            return Expr(.row(items), at: token.location)
        }
        try expectSymbol(")")
        // `(expr)[i]`, `(expr).attribute`: PartiQL navigation on a SUPER value, or an
        // element of a PostgreSQL array shown as text (`super_index` in the binder).
        if isSymbol("[") || (isSymbol(".") && atLabel(at: 1)) { return try parseSuperPath(inner) }
        return inner
    }

    /// Expressions that start with a word: keywords, typed literals, names and calls.
    ///
    /// Each form is parsed by its own small function: this function is on the
    /// recursion path of every nested expression, so it keeps its stack frame small.
    private mutating func parseWordExpression(_ word: String, token: Token) throws -> Expr {
        let call = isSymbol("(", at: 1)
        switch word {
        case "true", "false", "null": return parseConstantKeyword(word)
        case "case": return try parseCase()
        case "cast" where call: return try parseCastCall()
        case "convert" where call: return try parseConvertCall()
        case "exists" where call: return try parseExists()
        case "extract" where call: return try parseExtract()
        case "position" where call: return try parsePosition()
        case "substring" where call: return try parseSubstring()
        case "trim" where call: return try parseTrim()
        case "interval" where isStringToken(at: 1): return try parseIntervalLiteral()
        case "approximate" where peek().word != nil && isSymbol("(", at: 2): return try parseApproximateCall()
        case "array" where isSymbol("[", at: 1): return try parseArrayConstructor()
        case "array" where call && (peek(2).word == "select" || peek(2).word == "with"): return try parseArraySubquery()
        default: break
        }
        if Keywords.parameterlessFunctions.contains(word) && !call { return parseKeywordFunction(word) }
        if isStringToken(at: 1), let typed = parseTypedLiteral(word) { return typed }
        if Keywords.isReserved(word) && !(call && Keywords.callableReserved.contains(word)) {
            throw syntaxError(at: token)
        }
        return try parseNameExpression()
    }

    /// `ARRAY[a, b, ...]`, PostgreSQL's array constructor as catalog queries use it
    /// (`array[1::smallint]` beside pg_constraint.conkey): the binder's `?array?`, an
    /// integer array or the array's text form (`{1,2}`; a NULL element is `NULL`).
    private mutating func parseArrayConstructor() throws -> Expr {
        let token = advance()   // ARRAY
        try expectSymbol("[")
        var items: [Expr] = []
        if !isSymbol("]") {
            repeat { items.append(try parseExpr()) } while acceptSymbol(",")
        }
        try expectSymbol("]")
        return Expr(.function(FunctionCall(name: "?array?", args: items)), at: token.location)
    }

    /// `ARRAY(SELECT ...)`, PostgreSQL's array of a one-column query's values (psql's
    /// `\d+` builds reloptions with one): as ARRAY[...], the array's text form, read as a
    /// scalar subquery over the query — `'{' || LISTAGG(element, ',') || '}'`, `{}` when it
    /// has no rows. The elements come in the order the query's ORDER BY gives (LISTAGG's
    /// WITHIN GROUP), otherwise in no set order; NULL values are left out.
    private mutating func parseArraySubquery() throws -> Expr {
        let token = advance()   // ARRAY
        let query = try parseParenthesizedQuery()
        let at = token.location
        func text(_ s: String) -> Expr { Expr(.literal(.string(s)), at: at) }
        let element = Expr(.column(ColumnRef(["?array?", "?element?"])), at: at)
        // NULL values are left out: the aggregate cannot tell one from the no-row marker
        // of a correlated subquery's outer join.
        let elementText = Expr(.cast(element, DataType.unsizedVarchar, .doubleColon), at: at)
        var inner = query
        let order = inner.orderBy.compactMap { item -> OrderItem? in
            // `ORDER BY 1` orders the elements; other keys are not visible outside the
            // derived table (its further columns, if any, are not part of the array).
            if case .literal(.integer("1")) = item.expr.kind { var o = item; o.expr = element; return o }
            return nil
        }
        if inner.limit == nil && inner.offset == nil { inner.orderBy = [] }
        let aggregate = Expr(.function(FunctionCall(name: "listagg", args: [elementText, text(",")], withinGroup: order)), at: at)
        let body = Expr(.binary(.concat, Expr(.binary(.concat, text("{"), Expr(.function(FunctionCall(
            name: "coalesce", args: [aggregate, text("")])), at: at)), at: at), text("}")), at: at)
        let from = TableRef(.subquery(inner, alias: TableAlias(name: "?array?", columns: ["?element?"])), at: at)
        let select = Select(items: [.expr(body, alias: "array")], from: [from], location: at)
        return Expr(.subquery(Query(body: .select(select), location: at)), at: at)
    }

    private func isStringToken(at offset: Int) -> Bool {
        if case .string = peek(offset).kind { return true }
        return false
    }

    /// `TRUE`, `FALSE`, `NULL`.
    private mutating func parseConstantKeyword(_ word: String) -> Expr {
        let token = advance()
        return Expr(.literal(word == "null" ? .null : .boolean(word == "true")), at: token.location)
    }

    /// `CURRENT_DATE`, `SYSDATE`, ... without parentheses.
    private mutating func parseKeywordFunction(_ word: String) -> Expr {
        let token = advance()
        return Expr(.function(FunctionCall(name: word, syntax: .keyword)), at: token.location)
    }

    /// A type name followed by a string: `DATE '1998-12-01'`, `TIMESTAMP '...'`, `INTEGER '1'`.
    /// Returns nil (consuming nothing) if `word` is not a type name.
    private mutating func parseTypedLiteral(_ word: String) -> Expr? {
        guard case .string(let text) = peek().kind, let type = try? DataType.named(word, []) else { return nil }
        let token = advance()
        advance()
        return Expr(.typedLiteral(type, text), at: token.location)
    }

    /// `INTERVAL 'text' [qualifier]`.
    private mutating func parseIntervalLiteral() throws -> Expr {
        let token = advance()  // INTERVAL
        let text = try parseStringLiteral()
        let qualifier = try parseIntervalQualifier()
        return Expr(.interval(IntervalLiteral(value: text, qualifier: qualifier)), at: token.location)
    }

    /// `CAST(e AS type)`.
    private mutating func parseCastCall() throws -> Expr {
        let token = advance()  // CAST
        try expectSymbol("(")
        let operand = try parseExpr()
        let asToken = current
        try expectWord("as")
        let cast = try parseCastTarget(operand, syntax: .cast, at: asToken)
        try expectSymbol(")")
        return Expr(cast.kind, at: token.location)
    }

    /// `CONVERT(type, e)`.
    private mutating func parseConvertCall() throws -> Expr {
        let token = advance()  // CONVERT
        try expectSymbol("(")
        let type = try parseCastType()
        try expectSymbol(",")
        let operand = try parseExpr()
        try expectSymbol(")")
        return Expr(.cast(operand, type, .convert), at: token.location)
    }

    /// `EXISTS (query)`.
    private mutating func parseExists() throws -> Expr {
        let token = advance()  // EXISTS
        try expectSymbol("(")
        let query = try parseQuery()
        try expectSymbol(")")
        return Expr(.exists(query), at: token.location)
    }

    /// `APPROXIMATE f(...)`, e.g. `APPROXIMATE COUNT(DISTINCT x)`.
    private mutating func parseApproximateCall() throws -> Expr {
        let token = advance()  // APPROXIMATE
        var expr = try parseNameExpression()
        guard case .function(var call) = expr.kind else { throw syntaxError(at: token) }
        call.approximate = true
        expr.kind = .function(call)
        expr.location = token.location
        return expr
    }

    /// A column reference `a`, `t.a`, `s.t.a`, or a function call `f(...)` / `s.f(...)`.
    private mutating func parseNameExpression() throws -> Expr {
        let start = current
        var parts = [try parseFirstNamePart()]
        while isSymbol(".") {
            advance()
            parts.append(try parseLabel())
        }
        if isSymbol("(") && isSymbol("+", at: 1) && isSymbol(")", at: 2) {
            // `t.c(+)`: the column of an Oracle-style outer join (OuterJoinMarkers).
            advance(); advance(); advance()
            var ref = ColumnRef(parts)
            ref.outerJoinMarker = true
            return Expr(.column(ref), at: start.location)
        }
        if isSymbol("(") {
            guard parts.count <= 2, let name = parts.last else { throw syntaxError(at: start) }
            let schema = parts.count == 2 ? parts[0] : nil
            let call = Expr(.function(try parseFunctionCall(name: name, schema: schema)), at: start.location)
            // `json_parse(...)[0].a`: PartiQL navigation on a function's SUPER result.
            return isSymbol("[") || (isSymbol(".") && atLabel(at: 1)) ? try parseSuperPath(call) : call
        }
        // More than four parts can only be a PartiQL path into a SUPER column.
        var expr = Expr(.column(ColumnRef(parts)), at: start.location)
        if isSymbol("[") { expr = try parseSuperPath(expr) }
        return expr
    }

    /// PartiQL navigation after a name: `[index]` and `.attribute`, in any order
    /// (`c.orders[0].items[1].name`), as `super_index` and `super_field` calls.
    mutating func parseSuperPath(_ base: Expr) throws -> Expr {
        var expr = base
        while true {
            if isSymbol("[") {
                let open = advance()
                let index = try parseExpr()
                try expectSymbol("]")
                expr = Expr(.function(FunctionCall(name: "super_index", args: [expr, index])), at: open.location)
            } else if isSymbol("."), !isSymbol("*", at: 1) {
                let dot = advance()
                let name = try parseLabel()
                expr = Expr(.function(FunctionCall(name: "super_field", args: [expr, Expr(.literal(.string(name)), at: dot.location)])),
                            at: dot.location)
            } else {
                return expr
            }
        }
    }

    /// The first part of a name: an identifier, or a reserved word callable as a function (`left(`).
    private mutating func parseFirstNamePart() throws -> String {
        if case .word(let w) = current.kind, Keywords.callableReserved.contains(w), isSymbol("(", at: 1) {
            advance()
            return w
        }
        return try parseIdentifier()
    }

    /// `CASE [operand] WHEN c THEN r ... [ELSE e] END`.
    private mutating func parseCase() throws -> Expr {
        let start = advance()  // CASE
        let operand = isWord("when") ? nil : try parseExpr()
        var whens: [WhenClause] = []
        while acceptWord("when") {
            let condition = try parseExpr()
            try expectWord("then")
            let result = try parseExpr()
            whens.append(WhenClause(condition: condition, result: result))
        }
        guard !whens.isEmpty else { throw syntaxError(at: current) }
        let elseResult = acceptWord("else") ? try parseExpr() : nil
        try expectWord("end")
        return Expr(.caseWhen(CaseExpr(operand: operand, whens: whens, elseResult: elseResult)),
                    at: start.location)
    }

    /// An interval field qualifier after the string: `DAY`, `DAY(3)`, `YEAR TO MONTH`,
    /// `DAY TO SECOND(6)`. Returns nil when none follows.
    mutating func parseIntervalQualifier() throws -> String? {
        guard let first = currentWord, Parser.intervalFields.contains(first) else { return nil }
        advance()
        try skipIntervalPrecision()
        guard isWord("to"), let second = peek().word, Parser.intervalFields.contains(second) else {
            return first
        }
        advance()
        advance()
        try skipIntervalPrecision()
        return first + " to " + second
    }

    private mutating func skipIntervalPrecision() throws {
        guard isSymbol("("), case .integer = peek().kind else { return }
        advance()
        advance()
        try expectSymbol(")")
    }

    private static let intervalFields: Set<String> = [
        "year", "years", "month", "months", "day", "days", "hour", "hours", "minute", "minutes",
        "second", "seconds",
    ]
}

extension Token {
    /// The word, if this token is an unquoted word.
    var word: String? {
        if case .word(let w) = kind { return w }
        return nil
    }
}

extension Literal {
    /// The literal with a unary minus folded in, for numbers; nil for other literals.
    var negated: Literal? {
        func flip(_ s: String) -> String { s.hasPrefix("-") ? String(s.dropFirst()) : "-" + s }
        switch self {
        case .integer(let s): return .integer(flip(s))
        case .decimal(let s): return .decimal(flip(s))
        case .float(let s): return .float(flip(s))
        default: return nil
        }
    }
}
