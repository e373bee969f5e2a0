import SlicehouseTypes

// CREATE SCHEMA, DROP SCHEMA, and ALTER TABLE / VIEW's renames.

extension Parser {
    /// After CREATE: `SCHEMA [IF NOT EXISTS] name [AUTHORIZATION user] [QUOTA {n [MB|GB|TB] | UNLIMITED}]`
    /// or `SCHEMA AUTHORIZATION user [QUOTA ...]`.
    mutating func parseCreateSchema(start: Token) throws -> CreateSchema {
        try expectWord("schema")
        let ifNotExists = acceptWords("if", "not", "exists")
        var name: String?
        var authorization: String?
        if isWord("authorization") {
            advance()
            authorization = try parseIdentifier()
        } else {
            name = try parseIdentifier()
            if acceptWord("authorization") { authorization = try parseIdentifier() }
        }
        if acceptWord("quota") {
            if !acceptWord("unlimited") {
                _ = try parseInteger()
                _ = acceptWord("mb") || acceptWord("gb") || acceptWord("tb")
            }
        }
        guard let schemaName = name ?? authorization else { throw syntaxError(at: current) }
        return CreateSchema(name: schemaName, ifNotExists: ifNotExists, authorization: authorization, location: start.location)
    }

    /// After DROP: `SCHEMA [IF EXISTS] a, b [CASCADE | RESTRICT]`.
    mutating func parseDropSchema(start: Token) throws -> DropSchema {
        try expectWord("schema")
        let ifExists = acceptWords("if", "exists")
        var names = [try parseIdentifier()]
        while acceptSymbol(",") { names.append(try parseIdentifier()) }
        var cascade = false
        if acceptWord("cascade") { cascade = true } else { _ = acceptWord("restrict") }
        return DropSchema(names: names, ifExists: ifExists, cascade: cascade, location: start.location)
    }

    /// `ALTER TABLE|VIEW name RENAME TO new | RENAME [COLUMN] a TO b | SET SCHEMA s | OWNER TO u`.
    mutating func parseAlter() throws -> Statement {
        let start = advance()  // ALTER
        let isView: Bool
        if acceptWord("table") {
            isView = false
        } else if acceptWord("view") {
            isView = true
        } else {
            throw syntaxError(at: current)
        }
        let name = try parseObjectName()
        let action: AlterTable.Action
        if acceptWord("rename") {
            if acceptWord("to") {
                action = .rename(try parseIdentifier())
            } else {
                _ = acceptWord("column")
                let old = try parseIdentifier()
                try expectWord("to")
                action = .renameColumn(old, try parseIdentifier())
            }
        } else if acceptWords("set", "schema") {
            action = .setSchema(try parseIdentifier())
        } else if acceptWords("owner", "to") {
            action = .owner(try parseIdentifier())
        } else {
            throw syntaxError(at: current)
        }
        return .alterTable(AlterTable(name: name, isView: isView, action: action, location: start.location))
    }
}

extension Parser {
    /// `OPERATOR(pg_catalog.~)` (how psql writes operators in its catalog queries) as the
    /// operator itself. Tokens without the word `operator` come back unchanged.
    static func foldQualifiedOperators(_ tokens: [Token]) -> [Token] {
        guard tokens.contains(where: { $0.kind == .word("operator") }) else { return tokens }
        var out: [Token] = []
        out.reserveCapacity(tokens.count)
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            if t.kind == .word("operator"), i + 5 < tokens.count, tokens[i + 1].kind == .symbol("("),
               tokens[i + 2].kind == .word("pg_catalog"), tokens[i + 3].kind == .symbol("."),
               case .symbol = tokens[i + 4].kind, tokens[i + 5].kind == .symbol(")") {
                out.append(Token(kind: tokens[i + 4].kind, location: t.location, endOffset: tokens[i + 5].endOffset))
                i += 6
                continue
            }
            out.append(t)
            i += 1
        }
        return out
    }
}

extension Parser {
    /// `(array)[n]` after a parenthesised expression, as drivers write
    /// `(current_schemas(true))[1]`: there is no array type, so an array is its text
    /// form `{a,b}` and the subscript takes its n-th element.
    mutating func parseArraySubscript(_ array: Expr) throws -> Expr {
        let open = advance()  // [
        let index = try parseExpr()
        try expectSymbol("]")
        let loc = open.location
        let elements = Expr(.function(FunctionCall(name: "btrim", args: [array, Expr(.literal(.string("{}")), at: loc)])), at: loc)
        let element = Expr(.function(FunctionCall(name: "split_part", args: [elements, Expr(.literal(.string(",")), at: loc), index])),
                           at: loc)
        return Expr(.function(FunctionCall(name: "nullif", args: [element, Expr(.literal(.string("")), at: loc)])), at: loc)
    }
}
