// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseSQL
import SlicehousePlan
import SlicehousePlanner

/// The statements a session prepared with SQL's PREPARE: each name's parameter types and
/// text (with `$n` for the parameters), until DEALLOCATE or the session ends.
final class PreparedSQLStatements {
    struct Entry {
        let parameterTypes: [DataType]
        let text: String
        /// The statement as parsed at PREPARE (`$n` left in it), when EXECUTE binds the
        /// values in its tree (`Statement.bindsParameterValues`); nil: EXECUTE parses the
        /// text with the values written in.
        var parsed: ParsedStatement? = nil
    }
    private(set) var entries: [String: Entry] = [:]

    func add(_ name: String, _ entry: Entry) throws {
        guard entries[name] == nil else {
            throw SQLError(.duplicatePreparedStatement, "prepared statement \"\(name)\" already exists")
        }
        entries[name] = entry
    }

    func entry(_ name: String) throws -> Entry {
        guard let e = entries[name] else {
            throw SQLError(.invalidStatementName, "prepared statement \"\(name)\" does not exist")
        }
        return e
    }

    func remove(_ name: String?) throws {
        guard let name else { entries.removeAll(); return }
        guard entries.removeValue(forKey: name) != nil else {
            throw SQLError(.invalidStatementName, "prepared statement \"\(name)\" does not exist")
        }
    }
}

/// PREPARE, EXECUTE and DEALLOCATE, as Redshift runs them: PREPARE checks the statement
/// parses and keeps it; EXECUTE evaluates its arguments (constant expressions), casts
/// them to the declared types and runs the statement with them in place of `$1 ... $n`.
struct PreparedSQLCommand {
    let session: Session

    /// `text` is one statement: the parser read it as PREPARE's body.
    func prepare(_ name: String, _ types: [DataType], _ text: String) throws -> StatementResult {
        var entry = PreparedSQLStatements.Entry(parameterTypes: types, text: text)
        if let parsed = try parseScript(text, options: session.parseOptions).first, parsed.statement.bindsParameterValues {
            entry.parsed = parsed
        }
        try session.preparedSQL.add(name, entry)
        return StatementResult(tag: "PREPARE")
    }

    func deallocate(_ name: String?) throws -> StatementResult {
        try session.preparedSQL.remove(name)
        return StatementResult(tag: "DEALLOCATE")
    }

    /// The prepared statement `name` with `arguments` in place of its parameters.
    func statement(_ name: String, _ arguments: [Expr]) throws -> ParsedStatement {
        let entry = try session.preparedSQL.entry(name)
        let needed = try parameterCount(entry.text)
        let declared = entry.parameterTypes.count
        guard arguments.count == max(declared, needed) else {
            throw SQLError(.syntax, "wrong number of parameters for prepared statement \"\(name)\"",
                           detail: "Expected \(max(declared, needed)) parameters but got \(arguments.count).")
        }
        let ctx = StatementContext(database: session.database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        var values: [ParameterValue] = []
        for (i, a) in arguments.enumerated() {
            var bound = try binder.bindScalar(a)
            let type = i < declared ? entry.parameterTypes[i] : (bound.type == .unknown ? nil : bound.type)
            if let type { bound = try binder.coerce(bound, to: type) }
            let value = try evaluateConstant(bound)
            values.append(ParameterValue(text: value == .null ? nil : (value.asString ?? value.formatted(as: bound.type)),
                                         type: type))
        }
        if var parsed = entry.parsed {
            // The tree PREPARE parsed, the values beside it for the binder.
            parsed.parameters = values
            return parsed
        }
        let parsed = try parseScript(entry.text, parameters: values, options: session.parseOptions)
        guard parsed.count == 1, let first = parsed.first else {
            throw SQLError.internalError("prepared statement \"\(name)\" does not hold one statement")
        }
        return first
    }
}
