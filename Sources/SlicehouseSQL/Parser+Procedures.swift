// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// CREATE / DROP / SHOW / ALTER PROCEDURE and CALL (AST+Procedures.swift). A procedure's
// PL/pgSQL body is parsed here too (PLpgSQL.swift), so that a bad body fails at CREATE.

extension Parser {
    /// After `CREATE [OR REPLACE] PROCEDURE`.
    mutating func parseCreateProcedure(start: Token, orReplace: Bool) throws -> CreateProcedure {
        let name = try parseObjectName()
        try expectSymbol("(")
        let parameters = try parseProcedureParameters()
        var nonatomic = false, body: String?, bodyToken = current, language: String?, definer = false
        var settings: [String: String] = [:]
        while !atEnd && !isSymbol(";") {
            if acceptWord("nonatomic") {
                nonatomic = true
            } else if acceptWord("as") {
                bodyToken = current
                body = try parseStringLiteral()
            } else if acceptWord("language") {
                language = try parseLabel().lowercased()
            } else if acceptWord("security") {
                if acceptWord("definer") { definer = true } else { try expectWord("invoker"); definer = false }
            } else if acceptWord("set") {
                let setting = try parseLabel().lowercased()
                guard acceptWord("to") || acceptSymbol("=") else { throw syntaxError(at: current) }
                let value = current
                switch value.kind {
                case .string(let s): settings[setting] = s
                case .word(let w): settings[setting] = w
                case .integer(let d), .decimal(let d): settings[setting] = d
                default: throw syntaxError(at: value)
                }
                advance()
            } else {
                throw syntaxError(at: current)
            }
        }
        guard let body else { throw error("CREATE PROCEDURE needs AS $$ body $$", at: current) }
        guard let language else { throw error("CREATE PROCEDURE needs LANGUAGE plpgsql", at: current) }
        if language == "plpgsql" {
            do {
                _ = try parsePLpgSQL(body)
            } catch let e as SQLError {
                // Lines of the body are reported as lines of the statement, with the body's line.
                let bodyLine = e.line ?? 1
                throw SQLError(e.code, e.message, line: bodyToken.location.line + bodyLine - 1 + plBodyLineOffset(body), column: e.column,
                               detail: "compilation of PL/pgSQL procedure \"\(name.name)\" near line \(bodyLine)")
            }
        }
        return CreateProcedure(name: name, orReplace: orReplace, parameters: parameters, nonatomic: nonatomic, body: body,
                               language: language, securityDefiner: definer, settings: settings, location: start.location)
    }

    /// After `(`: `[argname] [argmode] argtype` (name and mode in either order), up to `)`.
    mutating func parseProcedureParameters() throws -> [ProcedureParameter] {
        var out: [ProcedureParameter] = []
        if acceptSymbol(")") { return out }
        repeat {
            var mode = parseParameterMode()
            var name: String?
            if isNameToken(at: 0), !isSymbol(",", at: 1), !isSymbol(")", at: 1), !isSymbol("(", at: 1),
               parameterMode(at: 1) != nil || startsDataType(at: 1) {
                name = try parseLabel()
                if mode == nil { mode = parseParameterMode() }
            }
            if isWord("refcursor") {
                throw SQLError(.featureNotSupported, "refcursor arguments are not supported: return rows with a temporary table",
                               line: current.location.line, column: current.location.column)
            }
            out.append(ProcedureParameter(name: name, mode: mode ?? .in, type: try parseDataType()))
        } while acceptSymbol(",")
        try expectSymbol(")")
        return out
    }

    private func isNameToken(at offset: Int) -> Bool {
        switch peek(offset).kind {
        case .word, .quotedIdentifier: return true
        default: return false
        }
    }

    private func parameterMode(at offset: Int) -> ParameterMode? {
        guard case .word(let w) = peek(offset).kind else { return nil }
        switch w {
        case "in": return .in
        case "out": return .out
        case "inout": return .inout
        default: return nil
        }
    }

    private mutating func parseParameterMode() -> ParameterMode? {
        // A mode word followed by `,` or `)` is a parameter's name (`out int` is not one).
        guard let m = parameterMode(at: 0), !isSymbol(",", at: 1), !isSymbol(")", at: 1) else { return nil }
        advance()
        return m
    }

    /// Whether the token `offset` ahead starts a data type.
    private func startsDataType(at offset: Int) -> Bool {
        var copy = self
        for _ in 0..<offset { copy.advance() }
        return (try? copy.parseDataType()) != nil
    }

    /// `name [( [[argname] [argmode] argtype, ...] )]`: the input types when parenthesised.
    mutating func parseProcedureReference() throws -> ProcedureReference {
        let name = try parseObjectName()
        guard acceptSymbol("(") else { return ProcedureReference(name: name, inputTypes: nil) }
        let parameters = try parseProcedureParameters()
        return ProcedureReference(name: name, inputTypes: parameters.filter { $0.mode.isInput }.map(\.type))
    }

    /// `CALL name ( [argument, ...] )`.
    mutating func parseCall() throws -> CallProcedure {
        let start = advance()  // CALL
        let name = try parseObjectName()
        try expectSymbol("(")
        var arguments: [Expr] = []
        if !isSymbol(")") {
            repeat { arguments.append(try parseExpr()) } while acceptSymbol(",")
        }
        try expectSymbol(")")
        return CallProcedure(name: name, arguments: arguments, location: start.location)
    }

    /// After `ALTER PROCEDURE`: `name(types) RENAME TO new` or `OWNER TO user`.
    mutating func parseAlterProcedure() throws -> ProcedureStatement {
        let reference = try parseProcedureReference()
        if acceptWord("rename") {
            try expectWord("to")
            return .rename(reference, to: try parseIdentifier())
        }
        if acceptWord("owner") {
            try expectWord("to")
            return .owner(reference, to: try parseLabel())
        }
        throw syntaxError(at: current)
    }
}
