// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseTypes
import SlicehouseRuntime

// How a procedure's interpreter runs SQL: statements and expressions with the variables
// they name bound as `$n` parameters, INTO targets, FOUND and ROW_COUNT, variables.

extension ProcedureInterpreter {
    // MARK: - SQL

    /// Run one SQL statement of the body (or of EXECUTE), storing INTO targets and FOUND.
    func runSQL(_ text: String, parameters: [ParameterValue]?, into: PLInto?, dynamic: Bool = false) throws {
        let parsed = try parseOne(text, parameters: parameters)
        switch parsed {
        case .commit, .rollback:
            if dynamic { throw SQLError(.featureNotSupported, "COMMIT and ROLLBACK cannot be run with EXECUTE in a procedure") }
            if case .commit = parsed { try endTransaction(commit: true, what: "COMMIT") } else { try endTransaction(commit: false, what: "ROLLBACK") }
            return
        case .begin:
            guard attributes.nonatomic else {
                throw SQLError(.featureNotSupported, "START TRANSACTION is supported only in NONATOMIC procedures")
            }
            if !inTransactionBlock { explicitTransaction = true }
            return
        default:
            break
        }
        let result = try runStatement(parsed)
        lastRowCount = Self.rowCount(result)
        if let into {
            try storeInto(into, result)
        } else if case .query = parsed {
            setFound(result.rowCount > 0)
        } else {
            switch parsed {
            case .insert, .update, .delete, .merge: setFound(lastRowCount > 0)
            default: break
            }
        }
    }

    func runOne(_ text: String, parameters: [ParameterValue]?) throws -> StatementResult {
        try runStatement(try parseOne(text, parameters: parameters))
    }

    func parseOne(_ text: String, parameters: [ParameterValue]?) throws -> Statement {
        let options = session.parseOptions
        let parsed = try parameters.map { try parseScript(text, parameters: $0, options: options) } ?? parseScript(text, options: options)
        guard parsed.count == 1, let s = parsed.first else {
            throw SQLError(.syntax, parsed.isEmpty ? "no SQL statement to run" : "cannot run several SQL statements at once in a procedure")
        }
        return s.statement
    }

    /// One statement in the session's current transaction.
    func runStatement(_ statement: Statement) throws -> StatementResult {
        switch statement {
        case .vacuum:
            throw SQLError(.activeTransaction, "VACUUM cannot run inside a stored procedure")
        case .truncate:
            // TRUNCATE commits (Redshift): the work so far and the truncation.
            if inTransactionBlock {
                throw SQLError(.invalidTransactionTermination,
                               "TRUNCATE cannot be run in a procedure called inside a transaction block")
            }
            let r = try session.perform(statement, context)
            explicitTransaction = false
            try session.restartProcedureTransaction(commit: true, context)
            return r
        default:
            let r = try session.perform(statement, context)
            if !r.notices.isEmpty { session.pendingNotices += r.notices }
            if attributes.nonatomic, !explicitTransaction, !inTransactionBlock {
                try session.restartProcedureTransaction(commit: true, context)
            }
            return r
        }
    }

    /// Rows a statement touched or returned (GET DIAGNOSTICS ROW_COUNT), from its tag.
    static func rowCount(_ r: StatementResult) -> Int {
        if r.returnsRows { return r.rowCount }
        let parts = r.tag.split(separator: " ")
        guard parts.count >= 2, let n = parts.last.flatMap({ Int($0) }) else { return 0 }
        return n
    }

    func storeInto(_ into: PLInto, _ result: StatementResult) throws {
        guard result.returnsRows else { throw SQLError(.syntax, "INTO used with a command that cannot return data") }
        let n = result.rowCount
        if into.strict && n == 0 { throw SQLError(.noDataFound, "query returned no rows") }
        if into.strict && n > 1 { throw SQLError(.tooManyRows, "query returned more than one row") }
        var row: [Value] = Array(repeating: .null, count: result.columns.count)
        if let chunk = result.chunks.first(where: { $0.count > 0 }) {
            row = (0..<result.columns.count).map { chunk.value(row: 0, column: $0) }
        }
        var targets: [PLVariable] = []
        for t in into.targets {
            guard let v = lookup(t.name) else { throw SQLError(.undefinedObject, "\"\(t.description)\" is not a known variable") }
            targets.append(v)
        }
        if into.targets.count == 1, into.targets[0].field == nil, targets[0].type == nil {
            try store(row: row, columns: result.columns, into: targets, names: [into.targets[0].name])
        } else {
            for (i, t) in into.targets.enumerated() {
                let value = i < row.count ? row[i] : .null
                let type = i < result.columns.count ? result.columns[i].type : .unknown
                try assign(t, value, type)
            }
        }
        setFound(n > 0)
    }

    /// A row into a record (all columns) or into scalars (by position).
    func store(row: [Value], columns: [ResultColumn], into targets: [PLVariable], names: [String]) throws {
        if targets.count == 1, targets[0].type == nil {
            targets[0].fields = zip(columns, row).map { (name: $0.name.lowercased(), type: $0.type, value: $1) }
            return
        }
        for (i, t) in targets.enumerated() {
            try assign(t, name: names[i], i < row.count ? row[i] : .null, i < columns.count ? columns[i].type : .unknown)
        }
    }

    func setFound(_ found: Bool) {
        scopes.first?["found"]?.value = .bool(found)
    }

    // MARK: - Variables

    func lookup(_ name: String) -> PLVariable? {
        for scope in scopes.reversed() { if let v = scope[name] { return v } }
        return nil
    }

    func declare(_ d: PLDeclaration) throws {
        let v: PLVariable
        switch d.type {
        case .record:
            v = PLVariable(type: nil)
        case .type(let t):
            v = PLVariable(type: t)
        case .columnType(let table, let column):
            guard let def = try session.resolveTable(table) else {
                throw SQLError(.undefinedTable, "relation \"\(table.description)\" does not exist")
            }
            guard let c = def.columns.first(where: { $0.name.lowercased() == column.lowercased() }) else {
                throw SQLError(.undefinedColumn, "column \"\(column)\" of relation \"\(table.name)\" does not exist")
            }
            v = PLVariable(type: c.type)
        }
        scopes[scopes.count - 1][d.name] = v
        if let e = d.defaultValue {
            let (value, type) = try evaluate(e)
            try assign(v, name: d.name, value, type)
        }
        v.constant = d.constant
        v.notNull = d.notNull
    }

    func assign(_ target: PLTarget, _ value: Value, _ type: DataType) throws {
        guard let v = lookup(target.name) else {
            throw SQLError(.undefinedObject, "\"\(target.description)\" is not a known variable")
        }
        if let field = target.field {
            guard v.type == nil else { throw SQLError(.undefinedObject, "\"\(target.description)\" is not a known variable") }
            guard var fields = v.fields else {
                throw SQLError(.objectNotInPrerequisiteState, "record \"\(target.name)\" is not assigned yet")
            }
            guard let i = fields.firstIndex(where: { $0.name == field }) else {
                throw SQLError(.undefinedColumn, "record \"\(target.name)\" has no field \"\(field)\"")
            }
            fields[i].value = try ProcedureCommand(session: session).castValue(value, from: type, to: fields[i].type)
            v.fields = fields
            return
        }
        try assign(v, name: target.name, value, type)
    }

    func assign(_ v: PLVariable, name: String, _ value: Value, _ type: DataType) throws {
        if v.constant { throw SQLError(.syntax, "variable \"\(name)\" is declared CONSTANT") }
        guard let declared = v.type else {
            throw SQLError(.datatypeMismatch, "cannot assign a single value to record variable \"\(name)\"")
        }
        let converted = try ProcedureCommand(session: session).castValue(value, from: type, to: declared)
        if v.notNull && converted.isNull {
            throw SQLError(.nullValueNotAllowed, "null value cannot be assigned to variable \"\(name)\" declared NOT NULL")
        }
        v.value = converted
    }

    // MARK: - Expressions

    static func truth(_ v: Value) -> Bool {
        switch v {
        case .bool(let b): return b
        case .int(let i): return i != 0
        default: return false
        }
    }

    func condition(_ e: PLExpr) throws -> Bool {
        let (v, t) = try evaluate(e)
        if !v.isNull, t != .boolean, t != .unknown {
            throw SQLError(.datatypeMismatch, "argument of a condition must be type boolean, not type \(t.sqlName)")
        }
        return Self.truth(v)
    }

    /// An expression's value and type, as `SELECT expression` gives them.
    func evaluate(_ e: PLExpr) throws -> (Value, DataType) {
        let (text, parameters) = try substitute(e.text)
        return try evaluateSQL("SELECT " + text, parameters: parameters, subqueries: text.lowercased().contains("select"))
    }

    func evaluateSQL(_ sql: String, parameters: [ParameterValue], subqueries: Bool = false) throws -> (Value, DataType) {
        let statement = try parseOne(sql, parameters: parameters)
        guard case .query(let q) = statement else { throw SQLError(.syntax, "expression expected") }
        // Without FROM or a subquery: bound and folded directly, without planning a query.
        if !subqueries, q.with == nil, q.orderBy.isEmpty, q.limit == nil, case .select(let s) = q.body, s.from.isEmpty,
           s.items.count == 1, case .expr(let expr, _) = s.items[0], s.whereClause == nil, s.groupBy.isEmpty, s.having == nil {
            let bound = try session.bindStandaloneExpr(expr)
            return (try evaluateConstant(bound), bound.type)
        }
        let r = try session.perform(statement, context)
        guard r.columns.count == 1 else {
            throw SQLError(.syntax, "query returned \(r.columns.count) columns where an expression needs one")
        }
        guard r.rowCount <= 1 else { throw SQLError(.cardinality, "query returned more than one row") }
        let v = r.chunks.first(where: { $0.count > 0 })?.value(row: 0, column: 0) ?? .null
        return (v, r.columns[0].type)
    }

    func parameter(_ v: Value, _ t: DataType) -> ParameterValue {
        ParameterValue(text: v.formatted(as: t), type: t == .unknown ? nil : t)
    }

    /// Tokens that name columns being defined or assigned, never variables: the column list
    /// of `INSERT INTO t (a, b)`, the targets of `UPDATE t SET a = ..., b = ...`, and column
    /// definitions of `CREATE TABLE t (a int, ...)`.
    static func columnNamePositions(_ tokens: [Token]) -> Set<Int> {
        var out: Set<Int> = []
        guard case .word(let first)? = tokens.first?.kind else { return out }
        func depthWalk(from start: Int, _ body: (Int, Int) -> Bool) {
            var depth = 0
            var i = start
            while i < tokens.count {
                if tokens[i].kind == .symbol("(") { depth += 1 }
                if tokens[i].kind == .symbol(")") { depth -= 1 }
                if !body(i, depth) { return }
                i += 1
            }
        }
        switch first {
        case "insert":
            // INSERT INTO name [(columns)]: the first parenthesis after the name.
            guard let open = tokens.firstIndex(where: { $0.kind == .symbol("(") }),
                  !tokens[..<open].contains(where: { $0.kind == .word("select") || $0.kind == .word("values") }) else { return out }
            depthWalk(from: open) { i, depth in
                if depth == 1, tokens[i].kind != .symbol(","), tokens[i].kind != .symbol("(") { out.insert(i) }
                return depth > 0
            }
        case "update":
            guard let set = tokens.firstIndex(where: { $0.kind == .word("set") }) else { return out }
            depthWalk(from: set + 1) { i, depth in
                if depth == 0, tokens[i].kind == .word("from") || tokens[i].kind == .word("where") { return false }
                if depth == 0, i + 1 < tokens.count, tokens[i + 1].kind == .symbol("="),
                   tokens[i - 1].kind == .word("set") || tokens[i - 1].kind == .symbol(",") {
                    out.insert(i)
                }
                return true
            }
        case "create":
            guard tokens.contains(where: { $0.kind == .word("table") }),
                  let open = tokens.firstIndex(where: { $0.kind == .symbol("(") }),
                  !tokens[..<open].contains(where: { $0.kind == .word("as") }) else { return out }
            depthWalk(from: open) { i, depth in
                // Also the keys after the columns: DISTKEY(a), SORTKEY(a, b).
                if depth == 1, i > 0, tokens[i - 1].kind == .symbol("(") || tokens[i - 1].kind == .symbol(",") { out.insert(i) }
                return true
            }
        default:
            break
        }
        return out
    }

    /// `text` with every variable it names replaced by `$n`, and the values to bind.
    /// A name after `.` or `AS`, or before `(` or `.`, is SQL's (a column, alias, table or
    /// function); `rec.field` of a record variable is the field.
    func substitute(_ text: String) throws -> (String, [ParameterValue]) {
        let bytes = Array(text.utf8)
        var lexer = Lexer(text)
        let tokens = try lexer.tokenize()
        var out: [UInt8] = []
        var parameters: [ParameterValue] = []
        var copied = 0
        var i = 0
        func name(_ t: Token) -> String? {
            switch t.kind {
            case .word(let w): return w
            case .quotedIdentifier(let q): return q
            default: return nil
            }
        }
        func replace(from start: Int, through end: Int, with p: ParameterValue) {
            out += bytes[copied..<tokens[start].location.offset]
            parameters.append(p)
            out += Array("$\(parameters.count)".utf8)
            copied = tokens[end].endOffset
        }
        let names = Self.columnNamePositions(tokens)
        while i < tokens.count {
            let t = tokens[i]
            let previous = i > 0 ? tokens[i - 1].kind : nil
            let next = i + 1 < tokens.count ? tokens[i + 1].kind : .endOfInput
            if names.contains(i) {
                i += 1
                continue
            }
            if case .parameter(let n) = t.kind, let v = lookup("$\(n)") {
                replace(from: i, through: i, with: parameter(v.value, v.type ?? .unknown))
                i += 1
                continue
            }
            guard let n = name(t), previous != .symbol("."), previous != .word("as"), next != .symbol("("),
                  let v = lookup(n) else {
                i += 1
                continue
            }
            if v.type == nil {
                // A record: `rec.field`.
                guard next == .symbol("."), i + 2 < tokens.count, let field = name(tokens[i + 2]) else {
                    i += 1
                    continue
                }
                guard let fields = v.fields else {
                    throw SQLError(.objectNotInPrerequisiteState, "record \"\(n)\" is not assigned yet",
                                   detail: "The tuple structure of a not-yet-assigned record is indeterminate.")
                }
                guard let f = fields.first(where: { $0.name == field }) else {
                    throw SQLError(.undefinedColumn, "record \"\(n)\" has no field \"\(field)\"")
                }
                replace(from: i, through: i + 2, with: parameter(f.value, f.type))
                i += 3
                continue
            }
            // `v.field` is a table's column unless `v` is a SUPER variable (PartiQL navigation).
            if next == .symbol("."), v.type != .superType {
                i += 1
                continue
            }
            replace(from: i, through: i, with: parameter(v.value, v.type ?? .unknown))
            i += 1
        }
        out += bytes[min(copied, bytes.count)...]
        return (String(decoding: out, as: UTF8.self), parameters)
    }
}

extension SQLError {
    /// The error with where in a procedure it happened (psql's CONTEXT), once.
    /// Its line and column pointed into a statement of the body, not into the CALL: dropped.
    func withContext(_ context: String) -> SQLError {
        var e = self
        if e.detail == nil {
            e.detail = context
            e.line = nil
            e.column = nil
        }
        return e
    }
}
