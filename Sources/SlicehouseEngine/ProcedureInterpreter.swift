import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseTypes

/// One variable of a running procedure: a scalar of a declared type, or a record that
/// takes the columns of the row assigned to it.
final class PLVariable {
    /// nil for a RECORD.
    var type: DataType?
    var value: Value = .null
    /// A record's columns and values (nil until a row is assigned).
    var fields: [(name: String, type: DataType, value: Value)]?
    var constant = false
    var notNull = false

    init(type: DataType?, value: Value = .null) { self.type = type; self.value = value }
}

/// Non-error exits from statements: EXIT, CONTINUE, RETURN.
enum PLControl: Error {
    case exit(String?)
    case continueLoop(String?)
    case returnFromProcedure
}

/// An error an atomic procedure's exception handler re-throws after it ran (Redshift):
/// it leaves the procedure without being caught by enclosing exception blocks.
struct PLRethrow: Error {
    var error: SQLError
}

/// Runs a stored procedure's PL/pgSQL body in its session. Every expression and SQL
/// statement goes through the session's normal statement path: the variables they name
/// are replaced by `$n` parameters bound to typed literals (as the extended protocol binds
/// them), then the text is parsed and run in the session's current transaction.
/// Transaction control follows Redshift: COMMIT / ROLLBACK / TRUNCATE end the CALL's
/// transaction and begin a new one (refused when the CALL is inside a transaction block);
/// entering an exception handler rolls back, and in the default (atomic) mode the handler's
/// work is committed and the error re-thrown; NONATOMIC procedures commit each statement.
final class ProcedureInterpreter {
    let session: Session
    let procedure: FunctionDef
    let attributes: ProcedureAttributes
    let block: PLBlock
    /// Innermost scope last.
    var scopes: [[String: PLVariable]] = []
    /// The errors being handled (SQLERRM, `RAISE;`), innermost last.
    var handling: [SQLError] = []
    var lastRowCount = 0
    /// A NONATOMIC procedure's own START TRANSACTION is open.
    var explicitTransaction = false

    init(session: Session, procedure: FunctionDef, attributes: ProcedureAttributes, block: PLBlock) {
        self.session = session; self.procedure = procedure; self.attributes = attributes; self.block = block
    }

    var name: String { procedure.name }
    var inTransactionBlock: Bool { session.inTransactionBlock }

    // MARK: - Entry

    /// Run with the IN / INOUT arguments' values (already of their types); returns the
    /// OUT / INOUT arguments' names, types and final values.
    func run(arguments: [Value]) throws -> [(name: String, type: DataType, value: Value)] {
        var top: [String: PLVariable] = [:]
        var outputs: [(String, PLVariable)] = []
        var next = 0
        for (i, a) in attributes.arguments.enumerated() {
            let type = try session.parseTypeName(a.type)
            let v = PLVariable(type: type)
            let mode = ParameterMode(rawValue: a.mode) ?? .in
            if mode.isInput, next < arguments.count {
                v.value = arguments[next]
                next += 1
            }
            if !a.name.isEmpty { top[a.name] = v }
            top["$\(i + 1)"] = v
            if mode.isOutput { outputs.append((a.name, v)) }
        }
        top["found"] = PLVariable(type: .boolean, value: .bool(false))
        scopes = [top]
        do {
            try runBlock(block)
        } catch PLControl.returnFromProcedure {
        } catch let c as PLControl {
            switch c {
            case .exit: throw SQLError(.syntax, "EXIT cannot be used outside a loop, unless it has a label")
            case .continueLoop: throw SQLError(.syntax, "CONTINUE cannot be used outside a loop")
            case .returnFromProcedure: break
            }
        } catch let r as PLRethrow {
            throw r.error
        }
        if explicitTransaction { try session.restartProcedureTransaction(commit: true) }
        return outputs.map { (name: $0.0, type: $0.1.type ?? .text, value: $0.1.value) }
    }

    // MARK: - Blocks and statements

    func runBlock(_ b: PLBlock) throws {
        scopes.append([:])
        defer { scopes.removeLast() }
        for d in b.declarations { try declare(d) }
        do {
            try runStatements(b.body)
        } catch let c as PLControl {
            if case .exit(let label?) = c, label == b.label { return }
            throw c
        } catch let r as PLRethrow {
            throw r
        } catch {
            guard let handler = b.handler else { throw error }
            let e = Self.sqlError(error)
            // Cancellation and termination are not caught (WHEN OTHERS excludes them).
            if e.code == .queryCanceled || e.code == .adminShutdown { throw e }
            try handle(e, with: handler)
        }
    }

    /// An exception block's handler: Redshift rolls the transaction back and runs the
    /// handler in a new one; an atomic procedure then commits it and re-throws.
    func handle(_ e: SQLError, with handler: [PLStatement]) throws {
        if !inTransactionBlock {
            explicitTransaction = false
            try session.restartProcedureTransaction(commit: false)
        }
        scopes.append(["sqlerrm": PLVariable(type: .varchar(65_535), value: .string(e.message)),
                       "sqlstate": PLVariable(type: .char(5), value: .string(e.code.rawValue))])
        handling.append(e)
        defer {
            scopes.removeLast()
            handling.removeLast()
        }
        try runStatements(handler)
        if !attributes.nonatomic {
            if !inTransactionBlock { try session.restartProcedureTransaction(commit: true) }
            throw PLRethrow(error: e)
        }
    }

    static func sqlError(_ error: any Error) -> SQLError {
        if let e = error as? SQLError { return e }
        return SQLError(.internalError, "\(error)")
    }

    func runStatements(_ statements: [PLStatement]) throws {
        for s in statements {
            try session.statementCancellation.check()
            do {
                try runStatement(s)
            } catch let e as SQLError {
                throw e.withContext("PL/pgSQL function \"\(name)\" line \(s.line)")
            }
        }
    }

    func runStatement(_ s: PLStatement) throws {
        switch s.kind {
        case .block(let b):
            try runBlock(b)
        case .null:
            break
        case .assign(let target, let e):
            let (v, t) = try evaluate(e)
            try assign(target, v, t)
        case .sql(let e, let into):
            let (text, parameters) = try substitute(e.text)
            try runSQL(text, parameters: parameters, into: into)
        case .execute(let e, let into):
            let (v, _) = try evaluate(e)
            guard let text = v.formatted(as: .text) else {
                throw SQLError(.invalidParameter, "query string argument of EXECUTE is null")
            }
            try runSQL(text, parameters: nil, into: into, dynamic: true)
        case .ifThen(let branches, let otherwise):
            for b in branches where try condition(b.condition) {
                try runStatements(b.body)
                return
            }
            if let otherwise { try runStatements(otherwise) }
        case .caseStatement(let subject, let whens, let otherwise):
            try runCase(subject: subject, whens: whens, otherwise: otherwise)
        case .loop(let label, let body):
            while true {
                guard try iterate(label, body) else { break }
            }
        case .whileLoop(let label, let cond, let body):
            while try condition(cond) {
                guard try iterate(label, body) else { break }
            }
        case .forRange(let label, let variable, let reverse, let low, let high, let step, let body):
            try runForRange(label: label, variable: variable, reverse: reverse, low: low, high: high, step: step, body: body)
        case .forQuery(let label, let variable, let query, let dynamic, let body):
            let result: StatementResult
            if dynamic {
                let (v, _) = try evaluate(query)
                guard let text = v.formatted(as: .text) else {
                    throw SQLError(.invalidParameter, "query string argument of EXECUTE is null")
                }
                result = try runOne(text, parameters: nil)
            } else {
                let (text, parameters) = try substitute(query.text)
                result = try runOne(text, parameters: parameters)
            }
            guard result.returnsRows else { throw SQLError(.syntax, "cannot open a FOR loop over a statement that returns no rows") }
            try runForRows(label: label, variable: variable, result: result, body: body)
        case .exit(let label, let when):
            if let when, !(try condition(when)) { return }
            throw PLControl.exit(label)
        case .continueLoop(let label, let when):
            if let when, !(try condition(when)) { return }
            throw PLControl.continueLoop(label)
        case .returnStatement:
            throw PLControl.returnFromProcedure
        case .raise(let level, let format, let arguments):
            try raise(level: level, format: format, arguments: arguments)
        case .getDiagnostics(let items):
            for (target, _) in items { try assign(target, .int(Int64(lastRowCount)), .integer) }
        case .commit, .rollback:
            let commit: Bool
            if case .commit = s.kind { commit = true } else { commit = false }
            try endTransaction(commit: commit, what: commit ? "COMMIT" : "ROLLBACK")
        }
    }

    /// One pass of a loop body: false when the loop is to end (EXIT).
    func iterate(_ label: String?, _ body: [PLStatement]) throws -> Bool {
        try session.statementCancellation.check()
        do {
            try runStatements(body)
        } catch PLControl.exit(let l) where l == nil || l == label {
            return false
        } catch PLControl.continueLoop(let l) where l == nil || l == label {
            return true
        }
        return true
    }

    func runCase(subject: PLExpr?, whens: [PLCaseWhen], otherwise: [PLStatement]?) throws {
        let value = try subject.map { try evaluate($0) }
        for w in whens {
            for e in w.expressions {
                let matched: Bool
                if let (sv, st) = value {
                    // subject = value, compared by SQL.
                    let (v, t) = try evaluate(e)
                    matched = try compare(sv, st, v, t)
                } else {
                    matched = try condition(e)
                }
                if matched {
                    try runStatements(w.body)
                    return
                }
            }
        }
        guard let otherwise else { throw SQLError(.caseNotFound, "case not found", hint: "CASE statement is missing ELSE part.") }
        try runStatements(otherwise)
    }

    func compare(_ a: Value, _ at: DataType, _ b: Value, _ bt: DataType) throws -> Bool {
        if a.isNull || b.isNull { return false }
        let p = [parameter(a, at), parameter(b, bt)]
        let (v, _) = try evaluateSQL("SELECT $1 = $2", parameters: p)
        return Self.truth(v)
    }

    func runForRange(label: String?, variable: String, reverse: Bool, low: PLExpr, high: PLExpr, step: PLExpr?,
                     body: [PLStatement]) throws {
        func integer(_ e: PLExpr, _ what: String) throws -> Int64 {
            let (v, t) = try evaluate(e)
            let c = try session.castValue(v, from: t, to: .bigint)
            guard let n = c.asInt64 else { throw SQLError(.nullValueNotAllowed, "\(what) bound of FOR loop cannot be null") }
            return n
        }
        let from = try integer(low, "lower"), to = try integer(high, "upper")
        let by = try step.map { try integer($0, "BY value") } ?? 1
        guard by > 0 else { throw SQLError(.invalidParameter, "BY value of FOR loop must be greater than zero") }
        let loopVariable = PLVariable(type: .integer)
        scopes.append([variable: loopVariable])
        defer { scopes.removeLast() }
        var i = from
        while reverse ? i >= to : i <= to {
            loopVariable.value = .int(i)
            guard try iterate(label, body) else { break }
            let (n, overflow) = reverse ? i.subtractingReportingOverflow(by) : i.addingReportingOverflow(by)
            if overflow { break }
            i = n
        }
    }

    func runForRows(label: String?, variable: String, result: StatementResult, body: [PLStatement]) throws {
        // The loop variable: a declared variable (a record takes the row), or a new record.
        var target = lookup(variable)
        var pushed = false
        if target == nil {
            let v = PLVariable(type: nil)
            scopes.append([variable: v])
            target = v
            pushed = true
        }
        defer { if pushed { scopes.removeLast() } }
        guard let target else { return }
        var any = false
        outer: for chunk in result.chunks {
            for r in 0..<chunk.count {
                any = true
                let row = (0..<result.columns.count).map { chunk.value(row: r, column: $0) }
                try store(row: row, columns: result.columns, into: [target], names: [variable])
                guard try iterate(label, body) else { break outer }
            }
        }
        setFound(any)
    }

    // MARK: - RAISE

    func raise(level: PLRaiseLevel?, format: String?, arguments: [PLExpr]) throws {
        guard let level, let format else {
            guard let current = handling.last else {
                throw SQLError(.syntax, "RAISE without parameters cannot be used outside an exception handler")
            }
            throw current
        }
        var values: [String] = []
        for a in arguments {
            let (v, t) = try evaluate(a)
            values.append(v.formatted(as: t) ?? "<NULL>")
        }
        var message = ""
        var rest = values.makeIterator()
        var chars = Array(format)[...]
        while let c = chars.popFirst() {
            if c == "%" {
                if chars.first == "%" {
                    chars.removeFirst()
                    message.append("%")
                } else {
                    message += rest.next() ?? ""
                }
            } else {
                message.append(c)
            }
        }
        switch level {
        case .exception:
            throw SQLError(.raiseException, message)
        case .info, .notice, .warning:
            session.pendingNotices.append("\(level.rawValue):  \(message)")
        case .log, .debug:
            break   // server log only (client_min_messages is NOTICE)
        }
    }

    // MARK: - Transactions

    func endTransaction(commit: Bool, what: String) throws {
        if inTransactionBlock {
            throw SQLError(.invalidTransactionTermination,
                           "\(what) cannot be run in a procedure called inside a transaction block",
                           hint: "Call the procedure outside BEGIN ... END to let it commit or roll back.")
        }
        if !attributes.settings.isEmpty {
            throw SQLError(.invalidTransactionTermination, "\(what) cannot be run in a procedure created with SET configuration options")
        }
        explicitTransaction = false
        try session.restartProcedureTransaction(commit: commit)
    }

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
        let parsed = try parameters.map { try parseScript(text, parameters: $0) } ?? parseScript(text)
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
            let r = try session.perform(statement)
            explicitTransaction = false
            try session.restartProcedureTransaction(commit: true)
            return r
        default:
            let r = try session.perform(statement)
            if !r.notices.isEmpty { session.pendingNotices += r.notices }
            if attributes.nonatomic, !explicitTransaction, !inTransactionBlock {
                try session.restartProcedureTransaction(commit: true)
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
            fields[i].value = try session.castValue(value, from: type, to: fields[i].type)
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
        let converted = try session.castValue(value, from: type, to: declared)
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
        let r = try session.perform(statement)
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
            if next == .symbol(".") {
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
