// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// MARK: - Public entry points
//
// All parse functions throw `SQLError` with code 42601 (syntax) and PostgreSQL's
// wording: `syntax error at or near "tok"` / `syntax error at end of input`, with
// the 1-based line and column of the offending token in the text passed in. Type
// names are resolved while parsing, so an unknown or malformed type is reported
// with `DataType.named`'s error at the type's position.

/// How a session's settings change what its text means to the parser.
public struct ParseOptions: Sendable, Hashable {
    /// `enable_case_sensitive_identifier`: a double-quoted identifier keeps its case.
    /// Off (Redshift's default), quoted identifiers are folded to lower case as unquoted
    /// ones are, so every name the parser gives the stages after it is already in the
    /// form the catalog keeps: nothing after the parser folds a name again.
    public var caseSensitiveIdentifiers: Bool

    public init(caseSensitiveIdentifiers: Bool = false) {
        self.caseSensitiveIdentifiers = caseSensitiveIdentifiers
    }

    /// Redshift's defaults.
    public static let standard = ParseOptions()
}

/// Parse `;`-separated SQL statements. Empty statements are skipped.
public func parseStatements(_ sql: String, options: ParseOptions = .standard) throws -> [Statement] {
    try parseScript(sql, options: options).map(\.statement)
}

/// Parse `;`-separated SQL statements, keeping each statement's source text
/// (for EXPLAIN, STL_QUERY and error messages).
public func parseScript(_ sql: String, options: ParseOptions = .standard) throws -> [ParsedStatement] {
    var parser = try Parser(sql, options: options)
    return try parser.parseScript()
}

/// A value a client binds to `$n` (the extended protocol's Bind): its text, or nil for
/// NULL, and the type the client declared — nil for an untyped value, which behaves as
/// a string literal does (it takes the type its context needs).
public struct ParameterValue: Sendable, Hashable {
    public var text: String?
    public var type: DataType?
    public init(text: String?, type: DataType?) { self.text = text; self.type = type }

    /// The value as the expression the binder reads in place of its `$n`: the same tree
    /// the parser makes of the literal `Parser.substitute` writes for it — `'text'`,
    /// `'text'::type` when the client gave a type, `NULL` or `NULL::type`, an interval
    /// literal, and SUPER and VARBYTE text through `json_parse` and `to_varbyte`.
    public func expression(at location: SourceLocation) -> Expr {
        guard let text else {
            let null = Expr(.literal(.null), at: location)
            guard let type else { return null }
            return Expr(.cast(null, type, .doubleColon), at: location)
        }
        let string = Expr(.literal(.string(text)), at: location)
        guard let type else { return string }
        if type == .superType {
            return Expr(.function(FunctionCall(name: "json_parse", args: [string])), at: location)
        }
        if type.isVarbyte {
            return Expr(.function(FunctionCall(name: "to_varbyte", args: [string, Expr(.literal(.string("hex")), at: location)])),
                        at: location)
        }
        if type == .interval { return Expr(.interval(IntervalLiteral(value: text)), at: location) }
        return Expr(.cast(string, type, .doubleColon), at: location)
    }
}

/// Parse `sql` with `$1 ... $n` replaced by `parameters`: each becomes a literal —
/// `'text'`, `'text'::type` when the client gave a type, `NULL` or `NULL::type` —
/// before parsing, so a parameter stands wherever a literal may. A `$n` beyond the
/// list is an error (`there is no parameter $n`).
public func parseScript(_ sql: String, parameters: [ParameterValue],
                        options: ParseOptions = .standard) throws -> [ParsedStatement] {
    var parser = try Parser(sql, parameters: parameters, options: options)
    return try parser.parseScript()
}

/// The highest `$n` in `sql` (0 when there is none): how many parameters a statement
/// prepared from it takes.
public func parameterCount(_ sql: String) throws -> Int {
    var lexer = Lexer(bytes: Array(sql.utf8))
    var n = 0
    for t in try lexer.tokenize() { if case .parameter(let k) = t.kind { n = max(n, k) } }
    return n
}

/// Parse exactly one statement (a trailing `;` is allowed).
public func parseStatement(_ sql: String, options: ParseOptions = .standard) throws -> Statement {
    var parser = try Parser(sql, options: options)
    let all = try parser.parseScript()
    guard let first = all.first else {
        throw parser.syntaxError(at: parser.current)
    }
    guard all.count == 1 else {
        throw SQLError.syntax("cannot insert multiple commands into a prepared statement")
    }
    return first.statement
}

/// Parse a single expression, e.g. a stored column DEFAULT.
public func parseExpression(_ sql: String, options: ParseOptions = .standard) throws -> Expr {
    var parser = try Parser(sql, options: options)
    let expr = try parser.parseExpr()
    try parser.expectEnd()
    return expr
}

// MARK: - Parser core

/// A hand-written recursive-descent parser over the token list of one input.
///
/// Statements are in Parser+Statements.swift (and +DDL, +CopyUnload), queries in
/// Parser+Query.swift, FROM items in Parser+From.swift, expressions in
/// Parser+Expressions.swift (operators, precedence climbing), Parser+Primary.swift
/// and Parser+Functions.swift, type names in Parser+Types.swift.
///
/// The token list always ends with `.endOfInput` and `index` never moves past it,
/// so `current` is always valid. Backtracking (used only to tell a parenthesised
/// query from a parenthesised expression or join) resets `index`.
struct Parser {
    let source: [UInt8]
    let tokens: [Token]
    var index = 0
    /// `SELECT ... INTO [TEMP] [TABLE] name`: the table the statement's query creates
    /// (set by the select that has the INTO clause; the statement becomes CREATE TABLE AS).
    /// (Three plain fields, not an optional tuple: a tuple's metadata is made at run time,
    /// the first time it is needed, which can be deep in the recursion.)
    var selectInto = false
    var selectIntoName = ObjectName(name: "")
    var selectIntoTemporary = false
    var selectIntoLocation = SourceLocation.unknown
    /// Whether the query being parsed is a statement of its own (SELECT INTO allowed).
    var allowSelectInto = false
    /// How many queries enclose the current token (1: the statement's own query).
    var queryLevel = 0
    /// Current nesting depth of recursive constructs, bounded by `maxDepth`.
    var depth = 0
    /// Deeper nesting than this is rejected, whatever the stack size.
    static let maxDepth = 200
    /// The height of the tree being built: nesting levels plus the operators of
    /// left-deep chains above them (`1 + 1 + ... + 1` is as tall as it is long).
    var height = 0
    /// Taller trees than this are rejected: every recursive pass after the parser
    /// walks the tree. Binding and planning run on a thread with a large stack
    /// (`LargeStack`), but the slices evaluate expressions on the worker pool's threads
    /// (8 MB stacks, about 2 KB a level in a debug build), so left-deep chains stop at
    /// a thousand levels. Runs of AND, OR, `||` and UNION are balanced and never get near it.
    static let maxHeight = 1_000
    var stackGuard = StackGuard()
    /// `( query )` parsed at a token index, or the error it gave. Telling a parenthesised
    /// query from an expression or a join backtracks; without this, every level of
    /// `((((SELECT ...` nested in such places parsed the levels inside it again, and
    /// the time grew exponentially with the nesting.
    var parenthesizedQueries: [Int: ParenthesizedQuery] = [:]

    enum ParenthesizedQuery {
        case parsed(Query, end: Int)
        case failed(any Error, end: Int)
    }

    /// For each token: is it a reserved word? (Computed once; checked often.)
    let reserved: [Bool]

    init(_ sql: String, parameters: [ParameterValue]? = nil, options: ParseOptions = .standard) throws {
        let bytes = Array(sql.utf8)
        source = bytes
        var lexer = Lexer(bytes: bytes)
        var tokens = try lexer.tokenize()
        if !options.caseSensitiveIdentifiers {
            for i in tokens.indices {
                if case .quotedIdentifier(let s) = tokens[i].kind { tokens[i].kind = .quotedIdentifier(s.lowercased()) }
            }
        }
        if let parameters { tokens = try Parser.substitute(parameters, into: tokens) }
        tokens = Parser.foldQualifiedOperators(tokens)
        self.tokens = tokens
        reserved = tokens.map { token in
            if case .word(let w) = token.kind { return Keywords.isReserved(w) }
            return false
        }
        // The memo's storage (a generic class) is made here, on a shallow stack: made at
        // its first insertion, deep in nested parentheses, the runtime's metadata lookup
        // needed more stack than the guard's margin leaves.
        parenthesizedQueries.reserveCapacity(4)
    }

    /// `tokens` with each `$n` replaced by the tokens of its value's literal, all placed
    /// at the parameter (errors about the value point at the `$n`).
    static func substitute(_ parameters: [ParameterValue], into tokens: [Token]) throws -> [Token] {
        var out: [Token] = []
        out.reserveCapacity(tokens.count)
        for t in tokens {
            guard case .parameter(let n) = t.kind else { out.append(t); continue }
            guard n >= 1, n <= parameters.count else {
                throw SQLError(.undefinedParameter, "there is no parameter $\(n)", line: t.location.line, column: t.location.column)
            }
            let p = parameters[n - 1]
            func at(_ kind: TokenKind) -> Token { Token(kind: kind, location: t.location, endOffset: t.endOffset) }
            // SUPER and VARBYTE values are given in their stored text (JSON, hexadecimal),
            // which a cast from text would read as a string: they go through their parsers.
            if let text = p.text, p.type == .superType || p.type?.isVarbyte == true {
                let isSuper = p.type == .superType
                out.append(at(.symbol("(")))
                out.append(at(.word(isSuper ? "json_parse" : "to_varbyte")))
                out.append(at(.symbol("(")))
                out.append(at(.string(text)))
                if !isSuper { out.append(at(.symbol(","))); out.append(at(.string("hex"))) }
                out.append(at(.symbol(")")))
                out.append(at(.symbol(")")))
                continue
            }
            let typed = p.type != nil
            if typed { out.append(at(.symbol("("))) }
            if let text = p.text { out.append(at(.string(text))) } else { out.append(at(.word("null"))) }
            if let type = p.type {
                out.append(at(.symbol("::")))
                var typeLexer = Lexer(bytes: Array(type.sqlName.utf8))
                for tt in try typeLexer.tokenize() where tt.kind != .endOfInput { out.append(at(tt.kind)) }
                out.append(at(.symbol(")")))
            }
        }
        return out
    }

    // MARK: Cursor

    var current: Token { tokens[index] }

    func peek(_ n: Int = 1) -> Token {
        tokens[min(index + n, tokens.count - 1)]
    }

    var atEnd: Bool { current.kind == .endOfInput }

    /// Consume the current token and return it (never moves past end of input).
    @discardableResult
    mutating func advance() -> Token {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    /// The end offset of the last consumed token.
    var previousEnd: Int { index > 0 ? tokens[index - 1].endOffset : 0 }

    func text(from start: Int, to end: Int) -> String {
        guard start < end, end <= source.count else { return "" }
        return String(decoding: source[start..<end], as: UTF8.self)
    }

    /// The token as written in the source.
    func text(of token: Token) -> String {
        text(from: token.location.offset, to: token.endOffset)
    }

    // MARK: Matching words and symbols

    /// The current token is the unquoted word `word` (lower case).
    func isWord(_ word: String) -> Bool {
        current.kind == .word(word)
    }

    func isWord(_ word: String, at offset: Int) -> Bool {
        peek(offset).kind == .word(word)
    }

    /// The current token is one of these words.
    func isAnyWord(_ words: Set<String>) -> Bool {
        if case .word(let w) = current.kind { return words.contains(w) }
        return false
    }

    /// The current word, if the current token is an unquoted word.
    var currentWord: String? {
        if case .word(let w) = current.kind { return w }
        return nil
    }

    mutating func acceptWord(_ word: String) -> Bool {
        guard isWord(word) else { return false }
        advance()
        return true
    }

    /// Accept a sequence of words (`SORT ONLY`), all or nothing.
    mutating func acceptWords(_ words: String...) -> Bool {
        for (i, w) in words.enumerated() where !isWord(w, at: i) { return false }
        for _ in words { advance() }
        return true
    }

    mutating func expectWord(_ word: String) throws {
        guard acceptWord(word) else { throw syntaxError(at: current) }
    }

    func isSymbol(_ symbol: String) -> Bool {
        current.kind == .symbol(symbol)
    }

    func isSymbol(_ symbol: String, at offset: Int) -> Bool {
        peek(offset).kind == .symbol(symbol)
    }

    mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expectSymbol(_ symbol: String) throws {
        guard acceptSymbol(symbol) else { throw syntaxError(at: current) }
    }

    /// Require that all input has been consumed (a trailing `;` is allowed).
    mutating func expectEnd() throws {
        while acceptSymbol(";") {}
        guard atEnd else { throw syntaxError(at: current) }
    }

    // MARK: Errors

    /// PostgreSQL's message: `syntax error at or near "tok"` / `syntax error at end of input`.
    func syntaxError(at token: Token) -> SQLError {
        let loc = token.location
        if token.kind == .endOfInput {
            return SQLError.syntax("syntax error at end of input", line: loc.line, column: loc.column)
        }
        return SQLError.syntax("syntax error at or near \"\(text(of: token))\"", line: loc.line, column: loc.column)
    }

    /// An error with a custom message at a token's position.
    func error(_ message: String, at token: Token) -> SQLError {
        SQLError.syntax(message, line: token.location.line, column: token.location.column)
    }

    /// Enter one level of a recursive construct (expression, query, FROM item).
    /// Fails cleanly, instead of overflowing the stack, on absurdly deep nesting.
    /// Every successful call must be paired with `leaveNesting()` (use `defer`).
    mutating func enterNesting() throws {
        guard depth < Parser.maxDepth, height < Parser.maxHeight, stackGuard.hasRoom(depth: depth) else {
            throw error("statement is too deeply nested", at: current)
        }
        depth += 1
        height += 1
    }

    mutating func leaveNesting() {
        depth -= 1
        height -= 1
    }

    /// One more level of a left-deep chain (an operator, a set operation); the caller
    /// restores `height` when the chain ends.
    mutating func growHeight() throws {
        guard height < Parser.maxHeight else { throw error("statement is too deeply nested", at: current) }
        height += 1
    }

    // MARK: Names

    /// An identifier usable as a column or table name: a non-reserved word or a quoted identifier.
    mutating func parseIdentifier() throws -> String {
        switch current.kind {
        case .word(let w) where !reserved[index]:
            advance()
            return w
        case .quotedIdentifier(let s):
            advance()
            return s
        default:
            throw syntaxError(at: current)
        }
    }

    /// A quoted identifier's text as written (case kept, `""` read as `"`), whether or
    /// not the parse folded it.
    func rawQuotedIdentifier(_ token: Token) -> String {
        let start = token.location.offset + 1, end = token.endOffset - 1
        guard start <= end, end <= source.count else { return "" }
        return String(decoding: source[start..<end], as: UTF8.self).replacingOccurrences(of: "\"\"", with: "\"")
    }

    /// True if the token `offset` ahead can be an identifier.
    func isIdentifier(at offset: Int) -> Bool {
        let i = min(index + offset, tokens.count - 1)
        switch tokens[i].kind {
        case .word: return !reserved[i]
        case .quotedIdentifier: return true
        default: return false
        }
    }

    /// True if the current token can start an identifier.
    var atIdentifier: Bool { atIdentifier(at: 0) }

    /// Whether the token `offset` places ahead is an identifier.
    func atIdentifier(at offset: Int) -> Bool {
        let i = index + offset
        guard i < tokens.count else { return false }
        switch tokens[i].kind {
        case .word: return !reserved[i]
        case .quotedIdentifier: return true
        default: return false
        }
    }

    /// A label after `AS`: any word, even a reserved one, or a quoted identifier.
    /// Whether the token `offset` places ahead can be a label (a word or a quoted identifier).
    func atLabel(at offset: Int) -> Bool {
        switch peek(offset).kind {
        case .word, .quotedIdentifier: return true
        default: return false
        }
    }

    mutating func parseLabel() throws -> String {
        switch current.kind {
        case .word(let w):
            advance()
            return w
        case .quotedIdentifier(let s):
            advance()
            return s
        default:
            throw syntaxError(at: current)
        }
    }

    /// `(a, b, c)`.
    mutating func parseParenthesizedIdentifiers() throws -> [String] {
        try expectSymbol("(")
        var names = [try parseIdentifier()]
        while acceptSymbol(",") { names.append(try parseIdentifier()) }
        try expectSymbol(")")
        return names
    }

    /// `name`, `schema.name` or `db.schema.name`.
    mutating func parseObjectName() throws -> ObjectName {
        var parts = [try parseIdentifier()]
        while isSymbol("."), parts.count < 3 {
            advance()
            parts.append(try parseIdentifier())
        }
        switch parts.count {
        case 1: return ObjectName(name: parts[0])
        case 2: return ObjectName(schema: parts[0], name: parts[1])
        default: return ObjectName(database: parts[0], schema: parts[1], name: parts[2])
        }
    }

    /// An integer literal (optionally negative) that fits in Int64.
    mutating func parseInteger() throws -> Int64 {
        let start = current
        let negative = acceptSymbol("-")
        guard case .integer(let digits) = current.kind, let value = Int64((negative ? "-" : "") + digits) else {
            throw syntaxError(at: negative ? current : start)
        }
        advance()
        return value
    }

    /// A string literal's value.
    mutating func parseStringLiteral() throws -> String {
        guard case .string(let s) = current.kind else { throw syntaxError(at: current) }
        advance()
        return s
    }
}

