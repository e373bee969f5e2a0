// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Statement dispatch, DML (INSERT/UPDATE/DELETE), and the small utility statements.
// CREATE/DROP are in Parser+DDL.swift, COPY/UNLOAD in Parser+CopyUnload.swift.

extension Parser {
    /// All statements of the input, each with its source text.
    mutating func parseScript() throws -> [ParsedStatement] {
        var result: [ParsedStatement] = []
        while true {
            while acceptSymbol(";") {}
            if atEnd { return result }
            let start = current
            let statement = try parseStatementBody()
            guard atEnd || isSymbol(";") else { throw syntaxError(at: current) }
            result.append(ParsedStatement(statement: statement,
                                          text: text(from: start.location.offset, to: previousEnd),
                                          location: start.location))
        }
    }

    /// One statement, starting at the current token.
    mutating func parseStatementBody() throws -> Statement {
        if isSymbol("(") { return .query(try parseQuery()) }
        guard let word = currentWord else { throw syntaxError(at: current) }
        switch word {
        case "select", "with", "values":
            selectInto = false
            allowSelectInto = true
            defer { allowSelectInto = false }
            let query = try parseQuery()
            if selectInto {
                // SELECT ... INTO t: CREATE TABLE t AS the query (without the INTO).
                selectInto = false
                return .createTable(CreateTable(name: selectIntoName, temporary: selectIntoTemporary,
                                                source: .query(columnNames: [], query), location: selectIntoLocation))
            }
            return .query(query)
        case "create":
            if isWord("database", at: 1) { advance(); return try parseCreateDatabase() }
            return try parseCreate()
        case "drop":
            if isWord("database", at: 1) { advance(); return try parseDropDatabase() }
            return try parseDrop()
        case "use":
            advance()
            return .database(.use(try parseIdentifier()))
        case "call": return .procedure(.call(try parseCall()))
        case "prepare", "execute", "deallocate": return .prepared(try parsePreparedSQL())
        case "alter":
            if isWord("database", at: 1) { advance(); return try parseAlterDatabase() }
            if isWord("schema", at: 1), isWord("rename", at: 3) || isWord("quota", at: 3) {
                advance()
                return .alterSchema(try parseAlterSchema())
            }
            if isWord("procedure", at: 1) {
                advance(); advance()
                return .procedure(try parseAlterProcedure())
            }
            if isWord("user", at: 1) || isWord("group", at: 1) || isWord("default", at: 1) || isWord("schema", at: 1) {
                advance()
                if let s = try parseAlterSecurity() { return s }
                throw syntaxError(at: current)
            }
            return try parseAlter()
        case "grant": return try parseGrant()
        case "revoke": return try parseRevoke()
        case "insert": return .insert(try parseInsert())
        case "update": return .update(try parseUpdate())
        case "merge": return .merge(try parseMerge())
        case "comment": return .comment(try parseComment())
        case "delete": return .delete(try parseDelete())
        case "truncate":
            advance()
            _ = acceptWord("table")
            return .truncate(try parseObjectName())
        case "copy": return .copy(try parseCopy())
        case "unload": return .unload(try parseUnload())
        case "explain":
            advance()
            // EXPLAIN [ANALYZE] [VERBOSE], in either order.
            var verbose = false, analyze = false
            while true {
                if !verbose && acceptWord("verbose") { verbose = true; continue }
                if !analyze && (acceptWord("analyze") || acceptWord("analyse")) { analyze = true; continue }
                break
            }
            try enterNesting()
            defer { leaveNesting() }
            return .explain(Explain(verbose: verbose, analyze: analyze, statement: try parseStatementBody()))
        case "begin":
            advance()
            try parseTransactionOptions()
            return .begin
        case "start":
            advance()
            try expectWord("transaction")
            try parseTransactionOptions()
            return .begin
        case "commit", "end":
            advance()
            _ = acceptWord("transaction") || acceptWord("work")
            return .commit
        case "rollback", "abort":
            advance()
            _ = acceptWord("transaction") || acceptWord("work")
            return .rollback
        case "set":
            if isWord("session", at: 1) {
                advance()
                if let s = try parseSessionAuthorization() { return s }
                return .set(try parseSet(after: true))
            }
            return .set(try parseSet())
        case "reset":
            advance()
            if acceptWords("session", "authorization") { return .security(.setSessionAuthorization(nil)) }
            if acceptWord("use") { return .database(.use(nil)) }
            return .reset(try parseParameterName())
        case "show":
            advance()
            if acceptWord("procedure") { return .procedure(.show(try parseProcedureReference())) }
            if acceptWords("time", "zone") { return .show("timezone") }
            if acceptWord("use") { return .database(.showUse) }
            if acceptWords("transaction", "isolation", "level") { return .show("transaction_isolation") }
            return .show(try parseParameterName())
        case "refresh":
            let start = advance()
            try expectWord("materialized")
            try expectWord("view")
            let name = try parseObjectName()
            let recompute = acceptWord("recompute")
            return .refreshMaterializedView(RefreshMaterializedView(name: name, recompute: recompute, location: start.location))
        case "vacuum": return .vacuum(try parseVacuum())
        case "analyze", "analyse": return .analyze(try parseAnalyze())
        case "lock":
            advance()
            _ = acceptWord("table")
            var names = [try parseObjectName()]
            while acceptSymbol(",") { names.append(try parseObjectName()) }
            return .lock(names)
        default:
            throw syntaxError(at: current)
        }
    }

    // MARK: - Transactions

    /// `[TRANSACTION|WORK] [ISOLATION LEVEL ...] [READ WRITE|READ ONLY]`, accepted and ignored
    /// (Slicehouse, like Redshift, is always serializable).
    private mutating func parseTransactionOptions() throws {
        _ = acceptWord("transaction") || acceptWord("work")
        while true {
            if acceptWords("isolation", "level") {
                if acceptWord("serializable") { continue }
                if acceptWords("repeatable", "read") || acceptWords("read", "committed")
                    || acceptWords("read", "uncommitted") { continue }
                throw syntaxError(at: current)
            }
            if acceptWords("read", "write") || acceptWords("read", "only") {
                _ = acceptSymbol(",")
                continue
            }
            return
        }
    }

    // MARK: - INSERT / UPDATE / DELETE

    /// `INSERT INTO t [(cols)] VALUES (...), ... | query | DEFAULT VALUES`.
    mutating func parseInsert() throws -> Insert {
        let start = advance()  // INSERT
        try expectWord("into")
        let table = try parseObjectName()
        var columns: [String] = []
        if isSymbol("(") && !startsParenthesizedQuery() {
            columns = try parseParenthesizedIdentifiers()
        }
        let source: InsertSource
        if acceptWords("default", "values") {
            source = .defaultValues
        } else if isWord("values") {
            advance()
            source = .values(try parseValuesRows(allowDefault: true))
        } else {
            source = .query(try parseQuery())
        }
        return Insert(table: table, columns: columns, source: source, location: start.location)
    }

    /// After `(`: does a query follow (`(SELECT`, `(WITH`, `(VALUES`, `((SELECT` ...)?
    func startsParenthesizedQuery() -> Bool {
        var offset = 1
        while isSymbol("(", at: offset) { offset += 1 }
        return isWord("select", at: offset) || isWord("with", at: offset) || isWord("values", at: offset)
    }

    /// `UPDATE t [[AS] alias] SET c = e, ... [FROM ...] [WHERE ...]`.
    mutating func parseUpdate() throws -> Update {
        let start = advance()  // UPDATE
        let table = try parseObjectName()
        let alias = try parseOptionalAlias()
        try expectWord("set")
        var assignments: [Assignment] = []
        repeat {
            let columnToken = current
            let column = try parseIdentifier()
            try expectSymbol("=")
            let value = try parseExprOrDefault(allowDefault: true)
            assignments.append(Assignment(column: column, value: value, location: columnToken.location))
        } while acceptSymbol(",")
        var from: [TableRef] = []
        if acceptWord("from") { from = try parseFromList() }
        let whereClause = acceptWord("where") ? try parseExpr() : nil
        return Update(table: table, alias: alias, assignments: assignments, from: from,
                      whereClause: whereClause, location: start.location)
    }

    /// `MERGE INTO target [[AS] alias] USING source [[AS] alias] ON condition` and
    /// `WHEN MATCHED THEN {UPDATE SET c = e, ... | DELETE} WHEN NOT MATCHED THEN INSERT
    /// [(cols)] VALUES (e, ...)` (both, in this order, as Redshift requires) or `REMOVE DUPLICATES`.
    mutating func parseMerge() throws -> Merge {
        let start = advance()  // MERGE
        try expectWord("into")
        let target = try parseObjectName()
        let targetAlias = isWord("using") ? nil : try parseOptionalAlias()
        try expectWord("using")
        let sources = try parseFromList()
        guard sources.count == 1, let source = sources.first else {
            throw error("MERGE takes one source table or subquery", at: current)
        }
        try expectWord("on")
        let condition = try parseExpr()
        if acceptWords("remove", "duplicates") {
            return Merge(target: target, targetAlias: targetAlias, source: source, condition: condition, matched: nil,
                         removeDuplicates: true, location: start.location)
        }
        try expectWord("when")
        try expectWord("matched")
        try expectWord("then")
        let matched: Merge.Matched
        if acceptWord("delete") {
            matched = .delete
        } else {
            try expectWord("update")
            try expectWord("set")
            var assignments: [Assignment] = []
            repeat {
                let columnToken = current
                var column = try parseIdentifier()
                // `SET target.col = ...` names the target's column.
                if acceptSymbol(".") { column = try parseIdentifier() }
                try expectSymbol("=")
                assignments.append(Assignment(column: column, value: try parseExprOrDefault(allowDefault: true),
                                              location: columnToken.location))
            } while acceptSymbol(",")
            matched = .update(assignments)
        }
        try expectWord("when")
        try expectWord("not")
        try expectWord("matched")
        try expectWord("then")
        try expectWord("insert")
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        try expectWord("values")
        try expectSymbol("(")
        var values: [Expr] = []
        repeat { values.append(try parseExprOrDefault(allowDefault: true)) } while acceptSymbol(",")
        try expectSymbol(")")
        return Merge(target: target, targetAlias: targetAlias, source: source, condition: condition, matched: matched,
                     insertColumns: columns, insertValues: values, location: start.location)
    }

    /// `COMMENT ON kind name IS 'text' | NULL`.
    mutating func parseComment() throws -> CommentStatement {
        let start = advance()  // COMMENT
        try expectWord("on")
        let target: CommentStatement.Target
        if acceptWord("table") {
            target = .table(try parseObjectName())
        } else if acceptWord("view") {
            target = .view(try parseObjectName())
        } else if acceptWord("column") {
            var parts = [try parseIdentifier()]
            while acceptSymbol(".") { parts.append(try parseIdentifier()) }
            guard parts.count >= 2, parts.count <= 4 else { throw error("COMMENT ON COLUMN needs table.column", at: current) }
            let column = parts.removeLast()
            let table = parts.count == 1 ? ObjectName(name: parts[0])
                : parts.count == 2 ? ObjectName(schema: parts[0], name: parts[1])
                : ObjectName(database: parts[0], schema: parts[1], name: parts[2])
            target = .column(table, column)
        } else if acceptWord("schema") {
            target = .schema(try parseIdentifier())
        } else if acceptWord("database") {
            target = .database(try parseIdentifier())
        } else if acceptWord("constraint") {
            let name = try parseIdentifier()
            try expectWord("on")
            target = .constraint(name, try parseObjectName())
        } else if acceptWord("function") {
            let name = try parseObjectName()
            if isSymbol("(") {   // argument types, not kept
                var depth = 0
                repeat {
                    if isSymbol("(") { depth += 1 } else if isSymbol(")") { depth -= 1 }
                    if atEnd { throw syntaxError(at: current) }
                    advance()
                } while depth > 0
            }
            target = .function(name)
        } else {
            throw syntaxError(at: current)
        }
        try expectWord("is")
        if acceptWord("null") { return CommentStatement(target: target, text: nil, location: start.location) }
        return CommentStatement(target: target, text: try parseStringLiteral(), location: start.location)
    }

    /// `DELETE [FROM] t [[AS] alias] [USING a, b] [WHERE ...]`.
    mutating func parseDelete() throws -> Delete {
        let start = advance()  // DELETE
        _ = acceptWord("from")
        let table = try parseObjectName()
        let alias = try parseOptionalAlias()
        var using: [TableRef] = []
        if acceptWord("using") { using = try parseFromList() }
        let whereClause = acceptWord("where") ? try parseExpr() : nil
        return Delete(table: table, alias: alias, using: using, whereClause: whereClause, location: start.location)
    }

    /// `[AS] alias` after a DML target table.
    private mutating func parseOptionalAlias() throws -> String? {
        if acceptWord("as") { return try parseIdentifier() }
        // `set` is not reserved but ends the table part of UPDATE.
        if atIdentifier && !isWord("set") { return try parseIdentifier() }
        return nil
    }

    // MARK: - SET / RESET / SHOW

    /// `SET [SESSION|LOCAL] name {TO|=} value[, ...]`, `SET TIME ZONE value`.
    mutating func parseSet(after sessionWord: Bool = false) throws -> SetStatement {
        if !sessionWord { advance() }  // SET
        var local = false
        if sessionWord {
            _ = acceptWord("session")   // `SET SESSION name ...`: SET was read
        } else if acceptWord("local") {
            local = true
        } else {
            _ = acceptWord("session")
        }
        let name: String
        if acceptWords("time", "zone") {
            name = "timezone"
            if acceptWord("local") || acceptWord("default") {
                return SetStatement(name: name, values: [], local: local)
            }
        } else {
            name = try parseParameterName()
            guard acceptWord("to") || acceptSymbol("=") else { throw syntaxError(at: current) }
        }
        if acceptWord("default") { return SetStatement(name: name, values: [], local: local) }
        var values = [try parseSetValue()]
        while acceptSymbol(",") { values.append(try parseSetValue()) }
        return SetStatement(name: name, values: values, local: local)
    }

    private mutating func parseSetValue() throws -> SetValue {
        let negative = acceptSymbol("-")
        switch current.kind {
        case .integer(let s), .decimal(let s), .float(let s):
            advance()
            return .number(negative ? "-" + s : s)
        case .string(let s) where !negative:
            advance()
            return .string(s)
        case .word(let w) where !negative:
            advance()
            return .identifier(w)
        case .quotedIdentifier where !negative:
            // A setting's value keeps the case it was written in, whatever
            // enable_case_sensitive_identifier says (a time zone name, a query group).
            let raw = rawQuotedIdentifier(current)
            advance()
            return .identifier(raw)
        default:
            throw syntaxError(at: current)
        }
    }

    /// A configuration parameter name (`query_group`, `ALL`, `a.b`), lower-cased.
    mutating func parseParameterName() throws -> String {
        var name = try parseLabel()
        while acceptSymbol(".") { name += "." + (try parseLabel()) }
        return name
    }

    // MARK: - VACUUM / ANALYZE

    /// `VACUUM [FULL|SORT ONLY|DELETE ONLY|REINDEX|RECLUSTER] [t] [TO n PERCENT] [BOOST]`.
    mutating func parseVacuum() throws -> Vacuum {
        advance()  // VACUUM
        var vacuum = Vacuum()
        if acceptWord("full") {
            vacuum.mode = .full
        } else if acceptWords("sort", "only") {
            vacuum.mode = .sortOnly
        } else if acceptWords("delete", "only") {
            vacuum.mode = .deleteOnly
        } else if acceptWord("reindex") {
            vacuum.mode = .reindex
        } else if acceptWord("recluster") {
            vacuum.mode = .recluster
        }
        if atIdentifier && !isWord("boost") { vacuum.table = try parseObjectName() }
        if acceptWord("to") {
            let token = current
            let n = try parseInteger()
            guard (0...100).contains(n) else { throw error("threshold must be between 0 and 100 percent", at: token) }
            vacuum.toPercent = Int(n)
            try expectWord("percent")
        }
        vacuum.boost = acceptWord("boost")
        return vacuum
    }

    /// `ANALYZE [VERBOSE] [t [(cols)]] [PREDICATE COLUMNS|ALL COLUMNS]`,
    /// `ANALYZE COMPRESSION [t [(cols)]] [COMPROWS n]`.
    mutating func parseAnalyze() throws -> Analyze {
        advance()  // ANALYZE
        var analyze = Analyze()
        analyze.compression = acceptWord("compression")
        analyze.verbose = acceptWord("verbose")
        if atIdentifier && !isWord("predicate") && !isWord("comprows") {
            analyze.table = try parseObjectName()
            if isSymbol("(") { analyze.columns = try parseParenthesizedIdentifiers() }
        }
        if acceptWords("predicate", "columns") {
            analyze.predicateColumns = true
        } else {
            _ = acceptWords("all", "columns")
        }
        if acceptWord("comprows") {
            let token = current
            let n = try parseInteger()
            guard n > 0, let rows = Int(exactly: n) else { throw error("COMPROWS must be positive", at: token) }
            analyze.compRows = rows
        }
        return analyze
    }

    /// `PREPARE name [(type, ...)] AS statement`, `EXECUTE name [(expr, ...)]`,
    /// `DEALLOCATE [PREPARE] {name | ALL}`.
    mutating func parsePreparedSQL() throws -> PreparedSQLStatement {
        if acceptWord("deallocate") {
            _ = acceptWord("prepare")
            if acceptWord("all") { return .deallocate(name: nil) }
            return .deallocate(name: try parseIdentifier().lowercased())
        }
        if acceptWord("execute") {
            let name = try parseIdentifier().lowercased()
            var arguments: [Expr] = []
            if acceptSymbol("(") {
                repeat { arguments.append(try parseExpr()) } while acceptSymbol(",")
                try expectSymbol(")")
            }
            return .execute(name: name, arguments: arguments)
        }
        try expectWord("prepare")
        let name = try parseIdentifier().lowercased()
        var types: [DataType] = []
        if acceptSymbol("(") { types = try parseParameterTypes() }
        try expectWord("as")
        let start = current
        _ = try parseStatementBody()
        return .prepare(name: name, parameterTypes: types, text: text(from: start.location.offset, to: previousEnd))
    }
}
