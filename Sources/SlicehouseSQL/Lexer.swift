// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Splits SQL text into tokens, working directly on its UTF-8 bytes.
///
/// Whitespace and comments (`-- ...` to end of line, nestable `/* ... */`) are
/// skipped. Every token records its byte offset and 1-based line and column
/// (columns count characters). The token list always ends with `.endOfInput`.
public struct Lexer {
    private let bytes: [UInt8]
    private var pos = 0
    private var line = 1
    private var column = 1

    public init(_ sql: String) {
        self.bytes = Array(sql.utf8)
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Tokenize all of `sql`.
    public static func tokenize(_ sql: String) throws -> [Token] {
        var lexer = Lexer(sql)
        return try lexer.tokenize()
    }

    /// Tokenize the whole input. Throws `SQLError` (42601) for an unterminated
    /// string, identifier or comment, or a character that starts no token.
    public mutating func tokenize() throws -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 4 + 1)
        while true {
            try skipWhitespaceAndComments()
            let start = location
            guard pos < bytes.count else {
                tokens.append(Token(kind: .endOfInput, location: start, endOffset: pos))
                return tokens
            }
            let kind = try nextToken(start: start)
            tokens.append(Token(kind: kind, location: start, endOffset: pos))
        }
    }

    // MARK: - Cursor

    private var location: SourceLocation { SourceLocation(offset: pos, line: line, column: column) }

    private func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private var current: UInt8? { byte(at: pos) }

    private func peek(_ n: Int = 1) -> UInt8? { byte(at: pos + n) }

    /// Step over one byte, keeping line and column up to date.
    private mutating func advance() {
        guard pos < bytes.count else { return }
        let b = bytes[pos]
        pos += 1
        if b == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            // Count characters, not bytes: UTF-8 continuation bytes don't move the column.
            column += 1
        }
    }

    private mutating func advance(_ n: Int) {
        for _ in 0..<n { advance() }
    }

    private func text(from start: Int, to end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }

    // MARK: - Whitespace and comments

    private mutating func skipWhitespaceAndComments() throws {
        while let b = current {
            if b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n")
                || b == UInt8(ascii: "\r") || b == 0x0C {
                advance()
            } else if b == UInt8(ascii: "-") && peek() == UInt8(ascii: "-") {
                while let c = current, c != UInt8(ascii: "\n") { advance() }
            } else if b == UInt8(ascii: "/") && peek() == UInt8(ascii: "*") {
                try skipBlockComment()
            } else {
                return
            }
        }
    }

    /// `/* ... */`, nesting as in PostgreSQL.
    private mutating func skipBlockComment() throws {
        let start = location
        advance(2)
        var depth = 1
        while depth > 0 {
            guard let b = current else {
                throw SQLError.syntax("unterminated /* comment at or near \"\(text(from: start.offset, to: bytes.count))\"",
                                      line: start.line, column: start.column)
            }
            if b == UInt8(ascii: "*") && peek() == UInt8(ascii: "/") {
                depth -= 1
                advance(2)
            } else if b == UInt8(ascii: "/") && peek() == UInt8(ascii: "*") {
                depth += 1
                advance(2)
            } else {
                advance()
            }
        }
    }

    // MARK: - Tokens

    private mutating func nextToken(start: SourceLocation) throws -> TokenKind {
        guard let b = current else { return .endOfInput }
        switch b {
        case UInt8(ascii: "'"):
            return .string(try scanQuoted(start: start, escapes: false))
        case UInt8(ascii: "E") where peek() == UInt8(ascii: "'"),
             UInt8(ascii: "e") where peek() == UInt8(ascii: "'"):
            advance()
            return .string(try scanQuoted(start: start, escapes: true))
        case UInt8(ascii: "\""):
            return .quotedIdentifier(try scanQuotedIdentifier(start: start))
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return scanNumber()
        case UInt8(ascii: ".") where isDigit(peek()):
            return scanNumber()
        case UInt8(ascii: "$"):
            return try scanDollar(start: start)
        case UInt8(ascii: "#") where isIdentifierStart(peek()):
            advance()
            return .word("#" + scanWordText())
        default:
            if isIdentifierStart(b) { return .word(scanWordText()) }
            if let op = operatorHere() {
                advance(op.utf8.count)
                return .symbol(op)
            }
            // A character that starts no token: report it as PostgreSQL does.
            var end = pos + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            throw SQLError.syntax("syntax error at or near \"\(text(from: pos, to: end))\"",
                                  line: start.line, column: start.column)
        }
    }

    /// Operators and punctuation.
    static let operators: [String] = [
        "!~~*", "!~~", "~~*", "!~*",
        "::", "<=", ">=", "<>", "!=", "||", "<<", ">>", "~~", "!~", "~*",
        "(", ")", ",", ".", ";", ":", "[", "]", "+", "-", "*", "/", "%", "^", "=", "<", ">",
        "~", "&", "|", "#", "!", "@", "?",
    ]

    /// The longest operator starting at `pos`, if any.
    private func operatorHere() -> String? {
        guard let b = current else { return nil }
        let next = peek()
        switch b {
        case UInt8(ascii: ":"): return next == UInt8(ascii: ":") ? "::" : ":"
        case UInt8(ascii: "<"):
            if next == UInt8(ascii: "=") { return "<=" }
            if next == UInt8(ascii: ">") { return "<>" }
            if next == UInt8(ascii: "<") { return "<<" }
            return "<"
        case UInt8(ascii: ">"):
            if next == UInt8(ascii: "=") { return ">=" }
            if next == UInt8(ascii: ">") { return ">>" }
            return ">"
        case UInt8(ascii: "|"): return next == UInt8(ascii: "|") ? "||" : "|"
        case UInt8(ascii: "~"):
            if next == UInt8(ascii: "~") { return peek(2) == UInt8(ascii: "*") ? "~~*" : "~~" }
            return next == UInt8(ascii: "*") ? "~*" : "~"
        case UInt8(ascii: "!"):
            if next == UInt8(ascii: "=") { return "!=" }
            guard next == UInt8(ascii: "~") else { return "!" }
            if peek(2) == UInt8(ascii: "~") { return peek(3) == UInt8(ascii: "*") ? "!~~*" : "!~~" }
            return peek(2) == UInt8(ascii: "*") ? "!~*" : "!~"
        default:
            return Lexer.singleCharacterOperators[Int(b)]
        }
    }

    /// One-byte operators and punctuation, indexed by byte.
    private static let singleCharacterOperators: [String?] = {
        var table = [String?](repeating: nil, count: 256)
        for op in operators where op.utf8.count == 1 {
            if let byte = op.utf8.first { table[Int(byte)] = op }
        }
        return table
    }()

    private func isDigit(_ b: UInt8?) -> Bool {
        guard let b else { return false }
        return b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    private func isIdentifierStart(_ b: UInt8?) -> Bool {
        guard let b else { return false }
        return (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
            || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || b == UInt8(ascii: "_") || b >= 0x80
    }

    private func isIdentifierPart(_ b: UInt8?) -> Bool {
        isIdentifierStart(b) || isDigit(b) || b == UInt8(ascii: "$")
    }

    /// An unquoted word, ASCII letters folded to lower case.
    private mutating func scanWordText() -> String {
        var out: [UInt8] = []
        while let b = current, isIdentifierPart(b) {
            out.append(b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b)
            advance()
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `123`, `1.5`, `.5`, `1.`, `1e10`, `2.5E-3`.
    private mutating func scanNumber() -> TokenKind {
        let start = pos
        var sawPoint = false
        while isDigit(current) { advance() }
        if current == UInt8(ascii: ".") && peek() != UInt8(ascii: ".") {
            sawPoint = true
            advance()
            while isDigit(current) { advance() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            // Only an exponent if digits follow (optionally signed); otherwise `1e` is `1` then `e`.
            let signed = peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-")
            if isDigit(peek(signed ? 2 : 1)) {
                advance(signed ? 2 : 1)
                while isDigit(current) { advance() }
                return .float(text(from: start, to: pos))
            }
        }
        let digits = text(from: start, to: pos)
        return sawPoint ? .decimal(digits) : .integer(digits)
    }

    /// A single-quoted string; `''` is a quote. Backslash escapes are resolved as in
    /// Redshift, whose strings are not "standard conforming": in every literal `\\` is a
    /// backslash, `\'` a quote and `\n \t \r \b \f` control characters (so `like 'a\\_b'`
    /// is the documented `a\_b`). A backslash before any other character stays as it is
    /// (`'\d'`, `'\N'`, `'\1'`), so regular expressions, back-references and COPY's
    /// `NULL AS '\N'` read as written. E'...' also resolves `\ooo \xhh \uXXXX`.
    private mutating func scanQuoted(start: SourceLocation, escapes: Bool) throws -> String {
        advance()  // opening quote
        var out: [UInt8] = []
        while true {
            guard let b = current else {
                throw SQLError.syntax("unterminated quoted string at or near \"\(text(from: start.offset, to: bytes.count))\"",
                                      line: start.line, column: start.column)
            }
            if b == UInt8(ascii: "'") {
                if peek() == UInt8(ascii: "'") {
                    out.append(b)
                    advance(2)
                    continue
                }
                advance()
                return String(decoding: out, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\"), let next = peek() {
                advance(2)
                if escapes {
                    scanEscape(next, into: &out)
                } else {
                    scanPlainEscape(next, into: &out)
                }
                continue
            }
            out.append(b)
            advance()
        }
    }

    /// Resolve one backslash escape of a plain literal whose character `c` has been
    /// consumed: the quote, the backslash and the control letters; otherwise both stay.
    private func scanPlainEscape(_ c: UInt8, into out: inout [UInt8]) {
        switch c {
        case UInt8(ascii: "\\"), UInt8(ascii: "'"): out.append(c)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        default:
            out.append(UInt8(ascii: "\\"))
            out.append(c)
        }
    }

    /// Resolve one backslash escape whose letter `c` has been consumed.
    private mutating func scanEscape(_ c: UInt8, into out: inout [UInt8]) {
        switch c {
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(c - UInt8(ascii: "0"))
            var n = 1
            while n < 3, let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "7") {
                value = value * 8 + UInt32(d - UInt8(ascii: "0"))
                advance()
                n += 1
            }
            out.append(UInt8(truncatingIfNeeded: value))
        case UInt8(ascii: "x"):
            var value: UInt32 = 0
            var n = 0
            while n < 2, let d = current, let h = hexValue(d) {
                value = value * 16 + h
                advance()
                n += 1
            }
            if n == 0 { out.append(c) } else { out.append(UInt8(truncatingIfNeeded: value)) }
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let width = c == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            var n = 0
            while n < width, let d = current, let h = hexValue(d) {
                value = value * 16 + h
                advance()
                n += 1
            }
            if n == width, let scalar = Unicode.Scalar(value) {
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            } else {
                out.append(c)
            }
        default:
            out.append(c)  // \\, \', and any other character stand for themselves
        }
    }

    private func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// `"Quoted Identifier"`; `""` is a quote. Case is kept.
    private mutating func scanQuotedIdentifier(start: SourceLocation) throws -> String {
        advance()
        var out: [UInt8] = []
        while true {
            guard let b = current else {
                throw SQLError.syntax("unterminated quoted identifier at or near \"\(text(from: start.offset, to: bytes.count))\"",
                                      line: start.line, column: start.column)
            }
            advance()
            if b == UInt8(ascii: "\"") {
                if current == UInt8(ascii: "\"") {
                    out.append(b)
                    advance()
                    continue
                }
                guard !out.isEmpty else {
                    throw SQLError.syntax("zero-length delimited identifier at or near \"\"\"\"",
                                          line: start.line, column: start.column)
                }
                return String(decoding: out, as: UTF8.self)
            }
            out.append(b)
        }
    }

    /// `$1` (parameter), `$$...$$` or `$tag$...$tag$` (dollar-quoted string).
    private mutating func scanDollar(start: SourceLocation) throws -> TokenKind {
        if isDigit(peek()) {
            advance()
            let digitsStart = pos
            while isDigit(current) { advance() }
            guard let n = Int(text(from: digitsStart, to: pos)) else {
                throw SQLError.syntax("syntax error at or near \"\(text(from: start.offset, to: pos))\"",
                                      line: start.line, column: start.column)
            }
            return .parameter(n)
        }
        // Opening delimiter: $ [tag] $
        var end = pos + 1
        while end < bytes.count, isIdentifierPart(bytes[end]), bytes[end] != UInt8(ascii: "$") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "$") else {
            throw SQLError.syntax("syntax error at or near \"$\"", line: start.line, column: start.column)
        }
        let delimiter = Array(bytes[pos...end])
        advance(delimiter.count)
        let bodyStart = pos
        while pos < bytes.count {
            if bytes[pos] == UInt8(ascii: "$") && bytes[pos...].starts(with: delimiter) {
                let body = text(from: bodyStart, to: pos)
                advance(delimiter.count)
                return .string(body)
            }
            advance()
        }
        throw SQLError.syntax("unterminated dollar-quoted string at or near \"\(text(from: start.offset, to: bytes.count))\"",
                              line: start.line, column: start.column)
    }
}
