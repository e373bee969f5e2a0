// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// The syntax tree of a stored procedure's body: Redshift's PL/pgSQL. Expressions and SQL
// statements stay text (`PLExpr`): the interpreter substitutes the variables in scope when
// it runs them (`ProcedureInterpreter`). Lines are 1-based within the body.

/// `[<<label>>] [DECLARE declarations] BEGIN statements [EXCEPTION WHEN OTHERS THEN
/// statements] END [label];`
public struct PLBlock: Sendable {
    public var label: String?
    public var declarations: [PLDeclaration]
    public var body: [PLStatement]
    /// The statements of `EXCEPTION WHEN OTHERS THEN`, nil without an exception section.
    public var handler: [PLStatement]?
    public var line: Int
}

/// A variable's declared type.
public enum PLType: Sendable {
    case type(DataType)
    /// `RECORD`: takes the columns of the row assigned to it.
    case record
    /// `table.column%TYPE`.
    case columnType(ObjectName, column: String)
}

/// `name [CONSTANT] type [NOT NULL] [{DEFAULT | := | =} expression];`
public struct PLDeclaration: Sendable {
    public var name: String
    public var type: PLType
    public var constant: Bool
    public var notNull: Bool
    public var defaultValue: PLExpr?
    public var line: Int
}

/// Expression or SQL text from the body, with the line it starts on.
public struct PLExpr: Sendable {
    public var text: String
    public var line: Int
    /// Where on its line it starts (for syntax errors found at CREATE).
    public var column: Int
    public init(text: String, line: Int, column: Int = 1) { self.text = text; self.line = line; self.column = column }
}

/// What is assigned: a variable, or a field of a record variable (`rec.field`).
public struct PLTarget: Sendable {
    public var name: String
    public var field: String?
    public var description: String { field.map { "\(name).\($0)" } ?? name }
}

/// `INTO [STRICT] target [, target ...]` of SELECT or EXECUTE.
public struct PLInto: Sendable {
    public var targets: [PLTarget]
    public var strict: Bool
}

/// RAISE's levels.
public enum PLRaiseLevel: String, Sendable {
    case debug = "DEBUG", log = "LOG", info = "INFO", notice = "NOTICE", warning = "WARNING", exception = "EXCEPTION"
}

public struct PLStatement: Sendable {
    public var kind: PLStatementKind
    public var line: Int
    public init(_ kind: PLStatementKind, line: Int) { self.kind = kind; self.line = line }
}

public struct PLConditional: Sendable {
    public var condition: PLExpr
    public var body: [PLStatement]
}

/// One `WHEN` of a CASE statement: values (with a subject) or one condition (without).
public struct PLCaseWhen: Sendable {
    public var expressions: [PLExpr]
    public var body: [PLStatement]
}

public indirect enum PLStatementKind: Sendable {
    case block(PLBlock)
    case assign(PLTarget, PLExpr)
    /// Any SQL statement (SELECT ... INTO with its INTO clause taken out).
    case sql(PLExpr, into: PLInto?)
    /// `EXECUTE expression [INTO [STRICT] targets]`.
    case execute(PLExpr, into: PLInto?)
    case ifThen([PLConditional], otherwise: [PLStatement]?)
    case caseStatement(subject: PLExpr?, whens: [PLCaseWhen], otherwise: [PLStatement]?)
    case loop(label: String?, body: [PLStatement])
    case whileLoop(label: String?, condition: PLExpr, body: [PLStatement])
    /// `FOR name IN [REVERSE] low .. high [BY step] LOOP`.
    case forRange(label: String?, variable: String, reverse: Bool, low: PLExpr, high: PLExpr, step: PLExpr?,
                  body: [PLStatement])
    /// `FOR name IN query LOOP` / `FOR name IN EXECUTE text LOOP`.
    case forQuery(label: String?, variable: String, query: PLExpr, dynamic: Bool, body: [PLStatement])
    case exit(label: String?, when: PLExpr?)
    case continueLoop(label: String?, when: PLExpr?)
    case returnStatement
    /// `RAISE level 'format' [, args]`; level and format nil: `RAISE;` (re-raise in a handler).
    case raise(level: PLRaiseLevel?, format: String?, arguments: [PLExpr])
    /// `GET DIAGNOSTICS target := ROW_COUNT [, ...]`.
    case getDiagnostics([(PLTarget, String)])
    case commit
    case rollback
    case null
}

/// Parse a procedure body. Throws `SQLError` (42601) with the line within the body; the
/// SQL statements and expressions in it are checked for SQL syntax too.
public func parsePLpgSQL(_ body: String) throws -> PLBlock {
    // A newline right after `$$` does not count: line 1 is the first line of code (as in
    // PostgreSQL and Redshift's messages).
    var p = try PLParser(plBodyLineOffset(body) == 1 ? String(body.dropFirst()) : body)
    return try p.parseBody()
}

/// 1 when the body starts with a newline that line numbers skip, else 0.
public func plBodyLineOffset(_ body: String) -> Int {
    body.hasPrefix("\n") || body.hasPrefix("\r\n") ? 1 : 0
}
