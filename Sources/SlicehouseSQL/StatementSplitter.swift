// SPDX-License-Identifier: Apache-2.0

/// Where SQL text stands lexically — inside a quoted string (`'...'`, `E'...'`), a
/// quoted identifier (`"..."`), a dollar-quoted string (`$tag$...$tag$`), a comment
/// (`-- ...`, nested `/* */`) or parentheses — which is what decides whether a `;` ends a
/// statement. The one scanner both splitters share: `splitStatements` (whole text) and
/// the shell's `StatementSplitter` (a line at a time, with meta-commands). It reads UTF-8
/// bytes and may be fed in pieces; the state carries over from one piece to the next.
/// Every byte it stops at is ASCII, so a stop is always a character boundary.
public struct SQLTextScanner: Sendable {
    private var inSingleQuote = false
    private var inDoubleQuote = false
    private var inLineComment = false
    private var commentDepth = 0
    private var dollarTag: [UInt8]?
    private var parenDepth = 0
    /// The two bytes before the current position (a newline before the text's first).
    private var previous: UInt8 = newline
    /// Something other than blanks and comments since the last statement ended.
    public private(set) var hasContent = false

    public init() {}

    /// What stopped `next`.
    public enum Stop: Sendable, Equatable {
        /// A `;` outside quotes, comments and parentheses: the statement ends.
        case semicolon
        /// A backslash outside quotes and comments (the shell's meta-commands).
        case backslash
    }

    /// True outside every quote and comment.
    public var isAtTopLevel: Bool {
        !inSingleQuote && !inDoubleQuote && !inLineComment && commentDepth == 0 && dollarTag == nil
    }

    /// The character psql shows in the continuation prompt: `'`, `"`, `*` (in a
    /// comment), `$` (in a dollar quote), `(` (open parenthesis) or `-`.
    public var continuationMarker: Character {
        if inSingleQuote { return "'" }
        if inDoubleQuote { return "\"" }
        if commentDepth > 0 { return "*" }
        if dollarTag != nil { return "$" }
        if parenDepth > 0 { return "(" }
        return "-"
    }

    /// Back to the start of a statement (a statement ended, or the shell's `\r`).
    public mutating func reset() {
        self = SQLTextScanner()
    }

    /// The next stop in `bytes[from...]` — a top-level `;`, or with `backslashes` a
    /// top-level backslash — as its offset, with whether the statement it ends (or
    /// interrupts) has content; nil when the text ends first. After a `;` a new statement
    /// starts (`hasContent` is false again).
    public mutating func next(_ bytes: UnsafeBufferPointer<UInt8>, from: Int,
                              backslashes: Bool = false) -> (offset: Int, stop: Stop, content: Bool)? {
        let n = bytes.count
        var i = from
        while i < n {
            let c = bytes[i]
            let next: UInt8? = i + 1 < n ? bytes[i + 1] : nil
            var width = 1
            defer {
                previous = bytes[i + width - 1]
                i += width
            }
            if inLineComment {
                if c == Self.newline { inLineComment = false }
                continue
            }
            if inSingleQuote {
                // A backslash escapes the next byte in every literal (Redshift's strings
                // are not standard conforming): `'It\'s'` is one string.
                if c == UInt8(ascii: "\\") {
                    width = min(2, n - i)
                } else if c == UInt8(ascii: "'") {
                    if next == UInt8(ascii: "'") { width = 2 } else { inSingleQuote = false }
                }
                continue
            }
            if inDoubleQuote {
                if c == UInt8(ascii: "\"") { inDoubleQuote = false }
                continue
            }
            if commentDepth > 0 {
                if c == UInt8(ascii: "*") && next == UInt8(ascii: "/") {
                    commentDepth -= 1
                    width = 2
                } else if c == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                    commentDepth += 1
                    width = 2
                }
                continue
            }
            if let tag = dollarTag {
                if c == UInt8(ascii: "$") && i + tag.count <= n && tag.elementsEqual(bytes[i..<(i + tag.count)]) {
                    dollarTag = nil
                    width = tag.count
                }
                continue
            }
            switch c {
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                inLineComment = true
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                commentDepth = 1
                width = 2
            case UInt8(ascii: "'"):
                inSingleQuote = true
                hasContent = true
            case UInt8(ascii: "\""):
                inDoubleQuote = true
                hasContent = true
            case UInt8(ascii: "$"):
                hasContent = true
                // Part of an identifier (`a$b`) or a parameter (`$1`): no quote.
                if Self.isIdentifierPart(previous) || next.map(Self.isDigit) == true { break }
                var j = i + 1
                while j < n && Self.isIdentifierPart(bytes[j]) && bytes[j] != UInt8(ascii: "$") { j += 1 }
                if j < n && bytes[j] == UInt8(ascii: "$") {
                    dollarTag = Array(bytes[i...j])
                    width = j + 1 - i
                }
            case UInt8(ascii: "("):
                parenDepth += 1
                hasContent = true
            case UInt8(ascii: ")"):
                parenDepth = max(0, parenDepth - 1)
                hasContent = true
            case UInt8(ascii: ";") where parenDepth == 0:
                defer { hasContent = false }
                return (i, .semicolon, hasContent)
            case UInt8(ascii: "\\") where backslashes:
                return (i, .backslash, hasContent)
            default:
                if !Self.isBlank(c) { hasContent = true }
            }
        }
        return nil
    }

    /// `next` over an array.
    public mutating func next(_ bytes: [UInt8], from: Int,
                              backslashes: Bool = false) -> (offset: Int, stop: Stop, content: Bool)? {
        bytes.withUnsafeBufferPointer { next($0, from: from, backslashes: backslashes) }
    }

    /// The line ended where the scan stopped (the shell's meta-command takes the rest of
    /// its line unscanned): the next byte is a line's first.
    public mutating func endLine() {
        inLineComment = false
        previous = Self.newline
    }

    static let newline = UInt8(ascii: "\n")

    static func isBlank(_ c: UInt8) -> Bool {
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r") || c == 0x0C || c == newline
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    static func isIdentifierPart(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || isDigit(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || c >= 0x80
    }
}

/// Split SQL text into statements at top-level `;` (`SQLTextScanner`), without parsing.
///
/// A `;` inside quotes, comments or parentheses does not split. Each statement is
/// returned trimmed, without its `;`; statements that are empty or only comments are
/// skipped. Never throws: unterminated quotes simply run to the end.
public func splitStatements(_ sql: String) -> [String] {
    let (statements, remainder, content) = split(sql)
    return content ? statements + [remainder.trimmingWhitespace()] : statements
}

/// Like `splitStatements`, but text after the last top-level `;` is returned
/// separately and untrimmed (an interactive shell keeps reading until it ends).
public func splitStatementsKeepingRemainder(_ sql: String) -> (statements: [String], remainder: String) {
    let (statements, remainder, _) = split(sql)
    return (statements, remainder)
}

/// The statements ended by a top-level `;` that have content, trimmed; the text after
/// the last one and whether it has content.
private func split(_ sql: String) -> (statements: [String], remainder: String, content: Bool) {
    let bytes = Array(sql.utf8)
    var scanner = SQLTextScanner()
    var statements: [String] = []
    var start = 0
    while let found = scanner.next(bytes, from: start) {
        if found.content {
            statements.append(String(decoding: bytes[start..<found.offset], as: UTF8.self).trimmingWhitespace())
        }
        start = found.offset + 1
    }
    return (statements, String(decoding: bytes[start...], as: UTF8.self), scanner.hasContent)
}

extension String {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
