// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// CREATE TABLE (three forms), CREATE VIEW, DROP TABLE/VIEW.

extension Parser {
    /// `CREATE [OR REPLACE] VIEW ...` or `CREATE [LOCAL] [TEMP|TEMPORARY] TABLE ...`.
    mutating func parseCreate() throws -> Statement {
        let start = advance()  // CREATE
        if acceptWords("or", "replace") {
            if acceptWord("procedure") { return .procedure(.create(try parseCreateProcedure(start: start, orReplace: true))) }
            if acceptWord("function") { return .createFunction(try parseCreateFunction(start: start, orReplace: true)) }
            guard isWord("view") else { throw syntaxError(at: current) }
            return .createView(try parseCreateView(start: start, orReplace: true))
        }
        if acceptWord("function") { return .createFunction(try parseCreateFunction(start: start, orReplace: false)) }
        if acceptWord("materialized") { return .createTable(try parseCreateMaterializedView(start: start)) }
        if acceptWord("procedure") { return .procedure(.create(try parseCreateProcedure(start: start, orReplace: false))) }
        if isWord("view") { return .createView(try parseCreateView(start: start, orReplace: false)) }
        if let s = try parseCreatePrincipal() { return s }
        if isWord("schema") { return .createSchema(try parseCreateSchema(start: start)) }
        if acceptWord("external") { return try parseCreateExternal(start: start) }
        _ = acceptWord("local")
        let temporary = acceptWord("temp") || acceptWord("temporary")
        guard isWord("table") else { throw syntaxError(at: current) }
        return .createTable(try parseCreateTable(start: start, temporary: temporary))
    }

    // MARK: - CREATE FUNCTION

    /// After `CREATE [OR REPLACE] FUNCTION`.
    mutating func parseCreateFunction(start: Token, orReplace: Bool) throws -> CreateFunction {
        let name = try parseObjectName()
        try expectSymbol("(")
        let types = try parseParameterTypes()
        try expectWord("returns")
        let returnType = try parseDataType()
        var volatility = "volatile", body: String? = nil, language: String? = nil
        while !atEnd && !isSymbol(";") {
            if acceptWord("volatile") { volatility = "volatile" }
            else if acceptWord("stable") { volatility = "stable" }
            else if acceptWord("immutable") { volatility = "immutable" }
            else if acceptWord("as") { body = try parseStringLiteral() }
            else if acceptWord("language") { language = try parseLabel().lowercased() }
            else { throw syntaxError(at: current) }
        }
        guard let body else { throw error("CREATE FUNCTION needs AS $$ body $$", at: current) }
        guard let language else { throw error("CREATE FUNCTION needs LANGUAGE sql", at: current) }
        return CreateFunction(name: name, orReplace: orReplace, parameterTypes: types, returnType: returnType,
                              volatility: volatility, body: body, language: language, location: start.location)
    }

    /// After `(`: a function's parameter types up to `)`, each `[name] type` (a name is
    /// allowed and not kept: SQL functions read their arguments as $n).
    mutating func parseParameterTypes() throws -> [DataType] {
        var types: [DataType] = []
        if !isSymbol(")") {
            repeat {
                if atIdentifier, !isSymbol(",", at: 1), !isSymbol(")", at: 1), !isSymbol("(", at: 1),
                   (try? peekDataType(at: 1)) == true {
                    advance()
                }
                types.append(try parseDataType())
            } while acceptSymbol(",")
        }
        try expectSymbol(")")
        return types
    }

    /// Whether the token `offset` ahead starts a data type (a parameter's name comes first).
    private func peekDataType(at offset: Int) throws -> Bool {
        var copy = self
        for _ in 0..<offset { copy.advance() }
        return (try? copy.parseDataType()) != nil
    }

    // MARK: - CREATE TABLE

    private mutating func parseCreateTable(start: Token, temporary: Bool) throws -> CreateTable {
        try expectWord("table")
        let ifNotExists = acceptWords("if", "not", "exists")
        let name = try parseObjectName()
        var table = CreateTable(name: name, temporary: temporary || name.name.hasPrefix("#"),
                                ifNotExists: ifNotExists, source: .elements(columns: [], constraints: []),
                                location: start.location)
        var ctasColumns: [String]?
        if acceptWord("like") {
            table.source = .like(try parseLikeClause())
        } else if isSymbol("(") {
            if isWord("like", at: 1) {
                advance()
                advance()
                table.source = .like(try parseLikeClause())
                try expectSymbol(")")
            } else if isCTASColumnList() {
                ctasColumns = try parseParenthesizedIdentifiers()
            } else {
                table.source = try parseTableElements()
            }
        } else {
            ctasColumns = []  // must be CTAS
        }
        table.attributes = try parseTableAttributes()
        if let columns = ctasColumns {
            try expectWord("as")
            table.source = .query(columnNames: columns, try parseQuery())
        } else if isWord("as") {
            // `CREATE TABLE t (LIKE p) AS ...` / column definitions with AS are not valid.
            throw syntaxError(at: current)
        }
        return table
    }

    /// After `(`: is this a plain list of names, i.e. CTAS column names `(a, b) AS ...`?
    private func isCTASColumnList() -> Bool {
        var offset = 1
        while true {
            switch peek(offset).kind {
            case .word, .quotedIdentifier: break
            default: return false
            }
            if isSymbol(")", at: offset + 1) { return true }
            guard isSymbol(",", at: offset + 1) else { return false }
            offset += 2
        }
    }

    /// `parent [INCLUDING|EXCLUDING DEFAULTS]` (LIKE already consumed).
    private mutating func parseLikeClause() throws -> LikeClause {
        let parent = try parseObjectName()
        var including = false
        if acceptWord("including") {
            try expectWord("defaults")
            including = true
        } else if acceptWord("excluding") {
            try expectWord("defaults")
        }
        return LikeClause(parent: parent, includingDefaults: including)
    }

    /// `(column definitions and table constraints)`.
    private mutating func parseTableElements() throws -> CreateTableSource {
        try expectSymbol("(")
        var columns: [ColumnDefinition] = []
        var constraints: [TableConstraint] = []
        repeat {
            if isAnyWord(["constraint", "primary", "unique", "foreign"]) {
                constraints.append(try parseTableConstraint())
            } else {
                columns.append(try parseColumnDefinition())
            }
        } while acceptSymbol(",")
        try expectSymbol(")")
        return .elements(columns: columns, constraints: constraints)
    }

    /// `name type [column attributes and constraints, any order]`.
    mutating func parseColumnDefinition() throws -> ColumnDefinition {
        let start = current
        let name = try parseIdentifier()
        let type = try parseDataType()
        var column = ColumnDefinition(name: name, type: type, location: start.location)
        var sawNull = false
        while true {
            let token = current
            if acceptWord("default") {
                column.defaultValue = try parseExpr()
            } else if acceptWord("identity") {
                column.identity = try parseIdentityArguments(generatedByDefault: false)
            } else if acceptWords("generated", "by", "default", "as", "identity") {
                column.identity = try parseIdentityArguments(generatedByDefault: true)
            } else if acceptWord("encode") {
                column.encoding = try parseLabel().lowercased()
            } else if acceptWord("distkey") {
                column.distKey = true
            } else if acceptWord("sortkey") {
                column.sortKey = true
            } else if acceptWords("not", "null") {
                if sawNull && !column.notNull { throw conflictingNull(name, at: token) }
                sawNull = true
                column.notNull = true
            } else if acceptWord("null") {
                if sawNull && column.notNull { throw conflictingNull(name, at: token) }
                sawNull = true
            } else if acceptWords("primary", "key") {
                column.primaryKey = true
            } else if acceptWord("unique") {
                column.unique = true
            } else if acceptWord("references") {
                column.references = try parseForeignKeyTarget()
            } else if acceptWord("collate") {
                _ = try parseLabel()  // Redshift CASE_SENSITIVE / CASE_INSENSITIVE: accepted, ignored
            } else if acceptWord("constraint") {
                _ = try parseIdentifier()  // a name for the next column constraint
            } else {
                return column
            }
        }
    }

    private func conflictingNull(_ column: String, at token: Token) -> SQLError {
        error("conflicting NULL/NOT NULL declarations for column \"\(column)\"", at: token)
    }

    /// `(seed, step)` after IDENTITY.
    private mutating func parseIdentityArguments(generatedByDefault: Bool) throws -> IdentitySpec {
        try expectSymbol("(")
        let seed = try parseInteger()
        try expectSymbol(",")
        let stepToken = current
        let step = try parseInteger()
        guard step != 0 else { throw error("IDENTITY step cannot be 0", at: stepToken) }
        try expectSymbol(")")
        return IdentitySpec(seed: seed, step: step, generatedByDefault: generatedByDefault)
    }

    /// `table [(columns)]` after REFERENCES.
    private mutating func parseForeignKeyTarget() throws -> ForeignKeyTarget {
        let table = try parseObjectName()
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        return ForeignKeyTarget(table: table, columns: columns)
    }

    /// `[CONSTRAINT name] PRIMARY KEY (cols) | UNIQUE (cols) | FOREIGN KEY (cols) REFERENCES t [(cols)]`.
    mutating func parseTableConstraint() throws -> TableConstraint {
        let start = current
        let name = acceptWord("constraint") ? try parseIdentifier() : nil
        let kind: TableConstraintKind
        if acceptWords("primary", "key") {
            kind = .primaryKey(try parseParenthesizedIdentifiers())
        } else if acceptWord("unique") {
            kind = .unique(try parseParenthesizedIdentifiers())
        } else if acceptWords("foreign", "key") {
            let columns = try parseParenthesizedIdentifiers()
            try expectWord("references")
            kind = .foreignKey(columns, try parseForeignKeyTarget())
        } else {
            throw syntaxError(at: current)
        }
        return TableConstraint(name: name, kind: kind, location: start.location)
    }

    /// Table attributes in any order: BACKUP, DISTSTYLE, DISTKEY(col), [COMPOUND|INTERLEAVED] SORTKEY, ENCODE AUTO.
    private mutating func parseTableAttributes() throws -> TableAttributes {
        var attributes = TableAttributes()
        while true {
            if acceptWord("backup") {
                if acceptWord("yes") {
                    attributes.backup = true
                } else if acceptWord("no") {
                    attributes.backup = false
                } else {
                    throw syntaxError(at: current)
                }
            } else if acceptWord("diststyle") {
                guard let word = currentWord, let style = TableDistStyle(rawValue: word.uppercased()) else {
                    throw syntaxError(at: current)
                }
                advance()
                attributes.distStyle = style
            } else if acceptWord("distkey") {
                try expectSymbol("(")
                attributes.distKey = try parseIdentifier()
                try expectSymbol(")")
            } else if acceptWord("compound") {
                try expectWord("sortkey")
                attributes.sortKey = .compound(try parseParenthesizedIdentifiers())
            } else if acceptWord("interleaved") {
                try expectWord("sortkey")
                attributes.sortKey = .interleaved(try parseParenthesizedIdentifiers())
            } else if acceptWord("sortkey") {
                if acceptWord("auto") {
                    attributes.sortKey = .auto
                } else {
                    attributes.sortKey = .compound(try parseParenthesizedIdentifiers())
                }
            } else if acceptWord("encode") {
                try expectWord("auto")
                attributes.encodeAuto = true
            } else {
                return attributes
            }
        }
    }

    // MARK: - CREATE MATERIALIZED VIEW

    /// After `CREATE MATERIALIZED VIEW`: `name [BACKUP YES|NO] [DISTSTYLE ...] [DISTKEY(col)]
    /// [[COMPOUND] SORTKEY(cols)] [AUTO REFRESH YES|NO] AS query`, the options in any order.
    private mutating func parseCreateMaterializedView(start: Token) throws -> CreateTable {
        try expectWord("view")
        let name = try parseObjectName()
        var attributes = TableAttributes()
        var autoRefresh = false
        while true {
            let more = try parseTableAttributes()
            if more.backup != nil { attributes.backup = more.backup }
            if more.distStyle != nil { attributes.distStyle = more.distStyle }
            if more.distKey != nil { attributes.distKey = more.distKey }
            if more.sortKey != nil { attributes.sortKey = more.sortKey }
            if more.encodeAuto { attributes.encodeAuto = true }
            guard acceptWords("auto", "refresh") else { break }
            if acceptWord("yes") {
                autoRefresh = true
            } else if acceptWord("no") {
                autoRefresh = false
            } else {
                throw syntaxError(at: current)
            }
        }
        try expectWord("as")
        let queryStart = current.location.offset
        let query = try parseQuery()
        let queryText = text(from: queryStart, to: previousEnd)
        return CreateTable(name: name, source: .query(columnNames: [], query), attributes: attributes,
                           materialized: MaterializedViewOptions(queryText: queryText, autoRefresh: autoRefresh),
                           location: start.location)
    }

    // MARK: - CREATE VIEW

    /// `VIEW name [(cols)] AS query [WITH NO SCHEMA BINDING]`.
    private mutating func parseCreateView(start: Token, orReplace: Bool) throws -> CreateView {
        try expectWord("view")
        let name = try parseObjectName()
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        try expectWord("as")
        let queryStart = current.location.offset
        let query = try parseQuery()
        let queryText = text(from: queryStart, to: previousEnd)
        let noBinding = acceptWords("with", "no", "schema", "binding")
        return CreateView(name: name, orReplace: orReplace, columns: columns, query: query, queryText: queryText,
                          withNoSchemaBinding: noBinding, location: start.location)
    }

    // MARK: - DROP

    /// `DROP TABLE|VIEW [IF EXISTS] a, b [CASCADE|RESTRICT]`.
    mutating func parseDrop() throws -> Statement {
        let start = advance()  // DROP
        if let s = try parseDropPrincipal() { return s }
        if isWord("schema") { return .dropSchema(try parseDropSchema(start: start)) }
        if acceptWord("procedure") {
            let ifExists = acceptWords("if", "exists")
            return .procedure(.drop(DropProcedure(procedure: try parseProcedureReference(), ifExists: ifExists)))
        }
        if acceptWord("function") {
            let ifExists = acceptWords("if", "exists")
            let name = try parseObjectName()
            let types = acceptSymbol("(") ? try parseParameterTypes() : nil
            if !acceptWord("cascade") { _ = acceptWord("restrict") }
            return .dropFunction(DropFunction(name: name, parameterTypes: types, ifExists: ifExists, location: start.location))
        }
        let isView: Bool
        var materialized = false
        if acceptWord("table") {
            isView = false
        } else if acceptWords("materialized", "view") {
            isView = false
            materialized = true
        } else if acceptWord("view") {
            isView = true
        } else {
            throw syntaxError(at: current)
        }
        let ifExists = acceptWords("if", "exists")
        var names = [try parseObjectName()]
        while acceptSymbol(",") { names.append(try parseObjectName()) }
        var cascade = false
        if acceptWord("cascade") {
            cascade = true
        } else {
            _ = acceptWord("restrict")
        }
        let drop = DropStatement(names: names, ifExists: ifExists, cascade: cascade, materialized: materialized,
                                 location: start.location)
        return isView ? .dropView(drop) : .dropTable(drop)
    }
}
