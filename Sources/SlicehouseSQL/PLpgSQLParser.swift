// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// The parser of a procedure's PL/pgSQL body (PLpgSQL.swift has the tree it builds).

/// A recursive-descent parser over the SQL lexer's tokens of a procedure body.
struct PLParser {
    let source: [UInt8]
    let tokens: [Token]
    var index = 0
    var depth = 0
    static let maxDepth = 100

    init(_ body: String) throws {
        source = Array(body.utf8)
        var lexer = Lexer(bytes: source)
        tokens = try lexer.tokenize()
    }

    // MARK: - Cursor

    var current: Token { tokens[index] }
    func peek(_ n: Int = 1) -> Token { tokens[min(index + n, tokens.count - 1)] }
    var atEnd: Bool { current.kind == .endOfInput }
    @discardableResult mutating func advance() -> Token {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }
    func isWord(_ w: String, at n: Int = 0) -> Bool { peek(n).kind == .word(w) }
    func isSymbol(_ s: String, at n: Int = 0) -> Bool { peek(n).kind == .symbol(s) }
    mutating func acceptWord(_ w: String) -> Bool {
        guard isWord(w) else { return false }
        advance()
        return true
    }
    mutating func acceptSymbol(_ s: String) -> Bool {
        guard isSymbol(s) else { return false }
        advance()
        return true
    }
    mutating func expectWord(_ w: String) throws { guard acceptWord(w) else { throw syntaxError(at: current) } }
    mutating func expectSymbol(_ s: String) throws { guard acceptSymbol(s) else { throw syntaxError(at: current) } }

    /// `:=` (two tokens) or `=`.
    mutating func acceptAssignment() -> Bool {
        if isSymbol(":"), isSymbol("=", at: 1), peek().location.offset == current.endOffset {
            advance(); advance()
            return true
        }
        return acceptSymbol("=")
    }
    func atAssignment(_ n: Int) -> Bool {
        (isSymbol(":", at: n) && isSymbol("=", at: n + 1)) || isSymbol("=", at: n)
    }

    func text(from start: Int, to end: Int) -> String {
        guard start < end, end <= source.count else { return "" }
        return String(decoding: source[start..<end], as: UTF8.self)
    }
    func text(of t: Token) -> String { text(from: t.location.offset, to: t.endOffset) }

    func syntaxError(at t: Token) -> SQLError {
        if t.kind == .endOfInput {
            return SQLError.syntax("syntax error at end of input", line: t.location.line, column: t.location.column)
        }
        return SQLError.syntax("syntax error at or near \"\(text(of: t))\"", line: t.location.line, column: t.location.column)
    }
    func error(_ message: String, at t: Token) -> SQLError {
        SQLError.syntax(message, line: t.location.line, column: t.location.column)
    }

    /// A name: a word or a quoted identifier.
    mutating func parseName() throws -> String {
        switch current.kind {
        case .word(let w): advance(); return w
        case .quotedIdentifier(let s): advance(); return s
        default: throw syntaxError(at: current)
        }
    }

    // MARK: - Blocks

    mutating func parseBody() throws -> PLBlock {
        var label: String?
        if isSymbol("<<") { label = try parseLabel() }
        guard isWord("declare") || isWord("begin") else { throw syntaxError(at: current) }
        let block = try parseBlock(label: label)
        while acceptSymbol(";") {}
        guard atEnd else { throw syntaxError(at: current) }
        return block
    }

    mutating func parseLabel() throws -> String {
        try expectSymbol("<<")
        let name = try parseName()
        try expectSymbol(">>")
        return name
    }

    mutating func parseBlock(label: String?) throws -> PLBlock {
        let line = current.location.line
        var declarations: [PLDeclaration] = []
        if acceptWord("declare") {
            while !isWord("begin") {
                if atEnd { throw syntaxError(at: current) }
                declarations.append(try parseDeclaration())
            }
        }
        try expectWord("begin")
        let body = try parseStatements(until: ["end", "exception"])
        var handler: [PLStatement]?
        if acceptWord("exception") {
            try expectWord("when")
            guard acceptWord("others") else {
                throw error("only WHEN OTHERS is supported in an exception block", at: current)
            }
            try expectWord("then")
            handler = try parseStatements(until: ["end"])
        }
        try expectWord("end")
        if case .word(let w) = current.kind, w == label { advance() }
        if !atEnd { try expectSymbol(";") }
        return PLBlock(label: label, declarations: declarations, body: body, handler: handler, line: line)
    }

    mutating func parseDeclaration() throws -> PLDeclaration {
        let line = current.location.line
        let name = try parseName()
        let constant = acceptWord("constant")
        let type: PLType
        if acceptWord("record") {
            type = .record
        } else if isWord("refcursor") || isWord("cursor") || (isWord("alias") && isWord("for", at: 1)) {
            throw SQLError(.featureNotSupported, "\(text(of: current).uppercased()) declarations are not supported",
                           line: current.location.line, column: current.location.column)
        } else {
            let start = current
            var end = index
            var percentType: (ObjectName, String)?
            while !(isSymbol(";", at: end - index) || isWord("not", at: end - index) || isWord("default", at: end - index)
                    || atAssignment(end - index)) {
                if peek(end - index).kind == .endOfInput { throw syntaxError(at: peek(end - index)) }
                if isSymbol("%", at: end - index), isWord("type", at: end - index + 1) {
                    // table.column%TYPE
                    let parts = tokens[index..<end].compactMap { t -> String? in
                        switch t.kind {
                        case .word(let w): return w
                        case .quotedIdentifier(let q): return q
                        default: return nil
                        }
                    }
                    guard parts.count >= 2, let column = parts.last else { throw syntaxError(at: peek(end - index)) }
                    let table = parts.dropLast()
                    let object = table.count == 1 ? ObjectName(name: table[table.startIndex])
                        : ObjectName(schema: table[table.startIndex], name: table[table.startIndex + 1])
                    percentType = (object, column)
                    end += 2
                    break
                }
                end += 1
            }
            if let percentType {
                type = .columnType(percentType.0, column: percentType.1)
            } else {
                let typeText = text(from: start.location.offset, to: tokens[max(end - 1, index)].endOffset)
                guard end > index else { throw syntaxError(at: current) }
                do {
                    var p = try Parser(typeText)
                    let t = try p.parseDataType()
                    try p.expectEnd()
                    type = .type(t)
                } catch let e as SQLError {
                    throw SQLError(.syntax, e.message, line: start.location.line, column: start.location.column)
                }
            }
            index = end
        }
        var notNull = false
        if acceptWord("not") {
            try expectWord("null")
            notNull = true
        }
        var defaultValue: PLExpr?
        if acceptWord("default") || acceptAssignment() {
            defaultValue = try parseExpression(until: [], symbols: [";"])
        }
        try expectSymbol(";")
        if (constant || notNull) && defaultValue == nil {
            throw error("variable \"\(name)\" must have a default value, since it's declared \(constant ? "CONSTANT" : "NOT NULL")",
                        at: tokens[max(index - 1, 0)])
        }
        return PLDeclaration(name: name, type: type, constant: constant, notNull: notNull, defaultValue: defaultValue, line: line)
    }

    // MARK: - Statements

    mutating func parseStatements(until terminators: Set<String>) throws -> [PLStatement] {
        depth += 1
        defer { depth -= 1 }
        guard depth < PLParser.maxDepth else { throw error("procedure body is too deeply nested", at: current) }
        var out: [PLStatement] = []
        while true {
            while acceptSymbol(";") {}
            if atEnd { throw syntaxError(at: current) }
            if case .word(let w) = current.kind, terminators.contains(w) { return out }
            out.append(try parseStatement())
        }
    }

    mutating func parseStatement() throws -> PLStatement {
        let line = current.location.line
        var label: String?
        if isSymbol("<<") { label = try parseLabel() }
        let first = current
        guard case .word(let word) = first.kind else {
            if label == nil, case .quotedIdentifier = first.kind { return try parseAssignmentOrSQL(line: line) }
            throw syntaxError(at: first)
        }
        if label != nil, !["declare", "begin", "loop", "while", "for"].contains(word) { throw syntaxError(at: first) }
        switch word {
        case "declare", "begin":
            return PLStatement(.block(try parseBlock(label: label)), line: line)
        case "if":
            return PLStatement(try parseIf(), line: line)
        case "case":
            return PLStatement(try parseCase(), line: line)
        case "loop":
            advance()
            let body = try parseLoopBody(label: label)
            return PLStatement(.loop(label: label, body: body), line: line)
        case "while":
            advance()
            let condition = try parseExpression(until: ["loop"])
            try expectWord("loop")
            let body = try parseLoopBody(label: label)
            return PLStatement(.whileLoop(label: label, condition: condition, body: body), line: line)
        case "for":
            return PLStatement(try parseFor(label: label), line: line)
        case "exit", "continue":
            advance()
            var target: String?
            if case .word(let w) = current.kind, w != "when" { target = w; advance() }
            var when: PLExpr?
            if acceptWord("when") { when = try parseExpression(until: [], symbols: [";"]) }
            try expectSymbol(";")
            return PLStatement(word == "exit" ? .exit(label: target, when: when) : .continueLoop(label: target, when: when), line: line)
        case "return":
            advance()
            guard acceptSymbol(";") else {
                throw error("RETURN cannot have a parameter in a stored procedure", at: current)
            }
            return PLStatement(.returnStatement, line: line)
        case "raise":
            return PLStatement(try parseRaise(), line: line)
        case "get":
            return PLStatement(try parseGetDiagnostics(), line: line)
        case "commit", "rollback":
            if isSymbol(";", at: 1) || isWord("work", at: 1) || isWord("transaction", at: 1) || peek().kind == .endOfInput {
                advance()
                _ = acceptWord("work") || acceptWord("transaction")
                try expectSymbol(";")
                return PLStatement(word == "commit" ? .commit : .rollback, line: line)
            }
        case "null":
            if isSymbol(";", at: 1) {
                advance(); advance()
                return PLStatement(.null, line: line)
            }
        case "execute":
            advance()
            let e = try parseExpression(until: ["into"], symbols: [";"])
            var into: PLInto?
            if acceptWord("into") { into = try parseInto() }
            if isWord("using") { throw SQLError(.featureNotSupported, "EXECUTE ... USING is not supported", line: current.location.line) }
            try expectSymbol(";")
            return PLStatement(.execute(e, into: into), line: line)
        case "open", "fetch", "close", "move":
            if !atAssignment(1) {
                throw SQLError(.featureNotSupported, "cursor statements (\(word.uppercased())) are not supported in stored procedures",
                               line: line, column: first.location.column)
            }
        case "elsif", "elseif", "else", "when", "end", "exception", "then":
            throw syntaxError(at: first)
        default:
            break
        }
        return try parseAssignmentOrSQL(line: line)
    }

    /// `target := expression;` or any SQL statement up to `;`.
    mutating func parseAssignmentOrSQL(line: Int) throws -> PLStatement {
        if (isSymbol(".", at: 1) && atAssignment(3)) || atAssignment(1) {
            let name = try parseName()
            var field: String?
            if acceptSymbol(".") { field = try parseName() }
            _ = acceptAssignment()
            let e = try parseExpression(until: [], symbols: [";"])
            try expectSymbol(";")
            return PLStatement(.assign(PLTarget(name: name, field: field), e), line: line)
        }
        return try parseSQL(line: line)
    }

    /// A SQL statement up to `;`; for SELECT / WITH, a top-level `INTO [STRICT] targets`
    /// is taken out. PERFORM runs as SELECT with its rows discarded.
    mutating func parseSQL(line: Int) throws -> PLStatement {
        let start = current
        let isSelect = isWord("select") || isWord("with") || isWord("perform")
        var pieces: [(Int, Int)] = []
        var pieceStart = start.location.offset
        var into: PLInto?
        var parens = 0
        if isWord("perform") {
            advance()
            pieceStart = current.location.offset
            pieces.append((-1, -1))   // marks "SELECT " in front
        }
        while !(parens == 0 && isSymbol(";")) && !atEnd {
            if isSymbol("(") { parens += 1 } else if isSymbol(")") { parens -= 1 }
            if isSelect, parens == 0, into == nil, isWord("into") {
                pieces.append((pieceStart, current.location.offset))
                advance()
                into = try parseInto()
                pieceStart = current.location.offset
                continue
            }
            advance()
        }
        let end = tokens[max(index - 1, 0)].endOffset
        pieces.append((pieceStart, max(end, pieceStart)))
        var sql = ""
        for (a, b) in pieces { sql += a < 0 ? "SELECT " : text(from: a, to: b) + " " }
        if !atEnd { try expectSymbol(";") }
        let e = PLExpr(text: sql.trimmingCharacters(in: .whitespaces), line: start.location.line, column: start.location.column)
        try checkSQL(e, statement: true)
        return PLStatement(.sql(e, into: into), line: line)
    }

    mutating func parseInto() throws -> PLInto {
        let strict = acceptWord("strict")
        var targets: [PLTarget] = []
        repeat {
            let name = try parseName()
            var field: String?
            if acceptSymbol(".") { field = try parseName() }
            targets.append(PLTarget(name: name, field: field))
        } while acceptSymbol(",")
        return PLInto(targets: targets, strict: strict)
    }

    mutating func parseLoopBody(label: String?) throws -> [PLStatement] {
        let body = try parseStatements(until: ["end"])
        try expectWord("end")
        try expectWord("loop")
        if case .word(let w) = current.kind, w == label { advance() }
        try expectSymbol(";")
        return body
    }

    mutating func parseIf() throws -> PLStatementKind {
        try expectWord("if")
        var branches: [PLConditional] = []
        var otherwise: [PLStatement]?
        var condition = try parseExpression(until: ["then"])
        try expectWord("then")
        while true {
            let body = try parseStatements(until: ["elsif", "elseif", "else", "end"])
            branches.append(PLConditional(condition: condition, body: body))
            if acceptWord("elsif") || acceptWord("elseif") {
                condition = try parseExpression(until: ["then"])
                try expectWord("then")
                continue
            }
            if acceptWord("else") { otherwise = try parseStatements(until: ["end"]) }
            try expectWord("end")
            try expectWord("if")
            try expectSymbol(";")
            return .ifThen(branches, otherwise: otherwise)
        }
    }

    mutating func parseCase() throws -> PLStatementKind {
        try expectWord("case")
        var subject: PLExpr?
        if !isWord("when") { subject = try parseExpression(until: ["when"]) }
        var whens: [PLCaseWhen] = []
        var otherwise: [PLStatement]?
        while acceptWord("when") {
            var expressions = [try parseExpression(until: ["then"], symbols: subject == nil ? [] : [","])]
            while subject != nil, acceptSymbol(",") { expressions.append(try parseExpression(until: ["then"], symbols: [","])) }
            try expectWord("then")
            whens.append(PLCaseWhen(expressions: expressions, body: try parseStatements(until: ["when", "else", "end"])))
        }
        guard !whens.isEmpty else { throw syntaxError(at: current) }
        if acceptWord("else") { otherwise = try parseStatements(until: ["end"]) }
        try expectWord("end")
        try expectWord("case")
        try expectSymbol(";")
        return .caseStatement(subject: subject, whens: whens, otherwise: otherwise)
    }

    mutating func parseFor(label: String?) throws -> PLStatementKind {
        try expectWord("for")
        let variable = try parseName()
        try expectWord("in")
        if acceptWord("execute") {
            let q = try parseExpression(until: ["loop"])
            try expectWord("loop")
            let body = try parseLoopBody(label: label)
            return .forQuery(label: label, variable: variable, query: q, dynamic: true, body: body)
        }
        let reverse = acceptWord("reverse")
        // Find `..` (and BY) before LOOP at the top level: an integer range; otherwise a query.
        var i = index, parens = 0
        var dots: Int?
        var by: Int?
        while tokens[i].kind != .endOfInput {
            let t = tokens[i]
            if t.kind == .symbol("(") { parens += 1 } else if t.kind == .symbol(")") { parens -= 1 }
            if parens == 0 {
                if t.kind == .word("loop") { break }
                if dots == nil, t.kind == .symbol("."), i + 1 < tokens.count, tokens[i + 1].location.offset == t.endOffset {
                    if tokens[i + 1].kind == .symbol(".") { dots = i }
                    if case .decimal(let d) = tokens[i + 1].kind, d.hasPrefix(".") { dots = i }
                }
                if dots != nil, t.kind == .word("by") { by = i }
            }
            i += 1
        }
        guard tokens[i].kind == .word("loop") else { throw syntaxError(at: tokens[i]) }
        let loopIndex = i
        if let dots {
            let lowText = text(from: current.location.offset, to: tokens[dots].location.offset)
            let highStart = tokens[dots].location.offset + 2
            let highEnd = by.map { tokens[$0].location.offset } ?? tokens[loopIndex].location.offset
            let line = current.location.line
            let low = PLExpr(text: lowText.trimmingCharacters(in: .whitespacesAndNewlines), line: line)
            let high = PLExpr(text: text(from: highStart, to: highEnd).trimmingCharacters(in: .whitespacesAndNewlines), line: line)
            var step: PLExpr?
            if let by {
                step = PLExpr(text: text(from: tokens[by].endOffset, to: tokens[loopIndex].location.offset)
                    .trimmingCharacters(in: .whitespacesAndNewlines), line: line)
            }
            for e in [low, high] + (step.map { [$0] } ?? []) {
                guard !e.text.isEmpty else { throw syntaxError(at: tokens[dots]) }
                try checkSQL(e, statement: false)
            }
            index = loopIndex
            try expectWord("loop")
            let body = try parseLoopBody(label: label)
            return .forRange(label: label, variable: variable, reverse: reverse, low: low, high: high, step: step, body: body)
        }
        if reverse { throw syntaxError(at: current) }
        let q = PLExpr(text: text(from: current.location.offset, to: tokens[max(loopIndex - 1, index)].endOffset),
                       line: current.location.line)
        guard loopIndex > index else { throw syntaxError(at: current) }
        try checkSQL(q, statement: true)
        index = loopIndex
        try expectWord("loop")
        let body = try parseLoopBody(label: label)
        return .forQuery(label: label, variable: variable, query: q, dynamic: false, body: body)
    }

    mutating func parseRaise() throws -> PLStatementKind {
        try expectWord("raise")
        if acceptSymbol(";") { return .raise(level: nil, format: nil, arguments: []) }
        var level = PLRaiseLevel.exception
        if case .word(let w) = current.kind {
            guard let l = PLRaiseLevel(rawValue: w.uppercased()) else { throw syntaxError(at: current) }
            level = l
            advance()
        }
        guard case .string(let format) = current.kind else {
            throw error("RAISE needs a format string", at: current)
        }
        advance()
        var arguments: [PLExpr] = []
        while acceptSymbol(",") { arguments.append(try parseExpression(until: ["using"], symbols: [",", ";"])) }
        if isWord("using") { throw SQLError(.featureNotSupported, "RAISE ... USING is not supported", line: current.location.line) }
        try expectSymbol(";")
        let placeholders = PLParser.placeholderCount(format)
        if placeholders > arguments.count { throw error("too few parameters specified for RAISE", at: tokens[max(index - 1, 0)]) }
        if placeholders < arguments.count { throw error("too many parameters specified for RAISE", at: tokens[max(index - 1, 0)]) }
        return .raise(level: level, format: format, arguments: arguments)
    }

    /// The `%` placeholders of a RAISE format (`%%` is a percent sign).
    static func placeholderCount(_ format: String) -> Int {
        var n = 0
        var chars = format.makeIterator()
        while let c = chars.next() {
            guard c == "%" else { continue }
            // `%%` is a literal percent sign; anything else after `%` is not consumed.
            var copy = chars
            if copy.next() == "%" { chars = copy } else { n += 1 }
        }
        return n
    }

    mutating func parseGetDiagnostics() throws -> PLStatementKind {
        try expectWord("get")
        _ = acceptWord("current")
        try expectWord("diagnostics")
        var items: [(PLTarget, String)] = []
        repeat {
            let name = try parseName()
            guard acceptAssignment() else { throw syntaxError(at: current) }
            guard case .word(let item) = current.kind, item == "row_count" else {
                throw error("unrecognized GET DIAGNOSTICS item (Redshift has ROW_COUNT)", at: current)
            }
            advance()
            items.append((PLTarget(name: name, field: nil), item))
        } while acceptSymbol(",")
        try expectSymbol(";")
        return .getDiagnostics(items)
    }

    // MARK: - Expressions

    /// Text up to one of `words` or `symbols` at the top level (outside parentheses and
    /// CASE ... END), which is not consumed.
    mutating func parseExpression(until words: Set<String>, symbols: Set<String> = []) throws -> PLExpr {
        let start = current
        var parens = 0, cases = 0
        while true {
            let t = current
            if t.kind == .endOfInput { throw syntaxError(at: t) }
            if parens == 0 && cases == 0 {
                if case .word(let w) = t.kind, words.contains(w) { break }
                if case .symbol(let s) = t.kind, symbols.contains(s) { break }
                if t.kind == .symbol(";") { throw syntaxError(at: t) }
            }
            switch t.kind {
            case .symbol("("), .symbol("["): parens += 1
            case .symbol(")"), .symbol("]"): parens -= 1
            case .word("case"): cases += 1
            case .word("end"): cases -= 1
            default: break
            }
            advance()
        }
        guard index > 0, current.location.offset > start.location.offset else { throw syntaxError(at: current) }
        let e = PLExpr(text: text(from: start.location.offset, to: tokens[index - 1].endOffset), line: start.location.line,
                       column: start.location.column)
        try checkSQL(e, statement: false)
        return e
    }

    /// Check an embedded expression's or statement's SQL syntax, reporting the body's line.
    func checkSQL(_ e: PLExpr, statement: Bool) throws {
        // Pad with newlines so that the SQL parser's lines are the body's.
        let padded = String(repeating: "\n", count: max(e.line - 1, 0)) + String(repeating: " ", count: max(e.column - 1, 0)) + e.text
        do {
            if statement {
                let all = try parseScript(padded)
                guard all.count == 1 else { throw SQLError.syntax("one SQL statement expected", line: e.line) }
            } else {
                _ = try SlicehouseSQL.parseExpression(padded)
            }
        } catch let err as SQLError where err.code == .syntax {
            throw err
        } catch {
            // Other errors (an unknown type name...) are reported when the statement runs.
        }
    }
}
