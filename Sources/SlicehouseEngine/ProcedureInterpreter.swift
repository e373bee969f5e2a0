// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseTypes
import SlicehouseRuntime

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
    /// The CALL's runtime context: every statement of the body runs in it.
    let context: QueryContext
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

    init(session: Session, procedure: FunctionDef, attributes: ProcedureAttributes, block: PLBlock, context: QueryContext) {
        self.context = context
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
        if explicitTransaction { try session.restartProcedureTransaction(commit: true, context) }
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
            try session.restartProcedureTransaction(commit: false, context)
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
            if !inTransactionBlock { try session.restartProcedureTransaction(commit: true, context) }
            throw PLRethrow(error: e)
        }
    }

    static func sqlError(_ error: any Error) -> SQLError {
        if let e = error as? SQLError { return e }
        return SQLError(.internalError, "\(error)")
    }

    func runStatements(_ statements: [PLStatement]) throws {
        for s in statements {
            try context.cancellation.check()
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
        try context.cancellation.check()
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
            let c = try ProcedureCommand(session: session).castValue(v, from: t, to: .bigint)
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
        try session.restartProcedureTransaction(commit: commit, context)
    }
}
