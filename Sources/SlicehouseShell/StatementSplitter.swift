// SPDX-License-Identifier: Apache-2.0
/// Splits shell input into SQL statements and backslash meta-commands, line by
/// line, the way psql does: a statement ends at a `;` that is outside quotes
/// (`'...'`, `E'...'`, `"..."`, `$tag$...$tag$`), comments (`-- ...`, nested
/// `/* ... */`) and parentheses. A backslash outside those starts a
/// meta-command that runs to the end of the line; text typed before it stays
/// in the query buffer (so `select 1 \g` works).
public struct StatementSplitter: Sendable {
    public enum Event: Sendable, Equatable {
        /// A complete statement, without its terminating `;` and without leading
        /// blanks and `--` comment lines. `line` is the input line where it ended.
        case statement(String, line: Int)
        /// A meta-command: the text after the backslash (`d t`, `x`, `i file.sql`).
        case metaCommand(String, line: Int)
    }

    /// Text of the statement being collected (complete lines joined by newlines).
    private var buffer = ""
    /// True once the buffer holds something other than blanks and comments.
    private var hasContent = false
    private var inSingleQuote = false
    private var singleQuoteEscapes = false
    private var inDoubleQuote = false
    private var commentDepth = 0
    private var dollarTag: [Unicode.Scalar]? = nil
    private var parenDepth = 0
    /// Number of lines fed so far.
    public private(set) var lineNumber = 0

    public init() {}

    /// True when no statement is being collected (psql's `=>` prompt rather than `->`).
    public var isEmpty: Bool {
        !hasContent && !inSingleQuote && !inDoubleQuote && commentDepth == 0 && dollarTag == nil
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

    /// The statement collected so far (psql's query buffer), cleaned up as it would be sent.
    public var pendingText: String { StatementSplitter.clean(buffer) }

    /// Forget the statement being collected (`\r`).
    public mutating func reset() {
        buffer = ""
        hasContent = false
        inSingleQuote = false
        singleQuoteEscapes = false
        inDoubleQuote = false
        commentDepth = 0
        dollarTag = nil
        parenDepth = 0
    }

    /// Take the collected statement, if it has content, leaving the buffer empty (`\g`).
    public mutating func takePending() -> String? {
        let text = hasContent ? StatementSplitter.clean(buffer) : nil
        reset()
        return text
    }

    /// Feed one input line (without its newline); returns what it completed.
    public mutating func feed(line: String) -> [Event] {
        lineNumber += 1
        var events: [Event] = []
        let s = Array(line.unicodeScalars)
        let n = s.count
        var segmentStart = 0
        var i = 0
        /// The scalar before index `k` on this line (a newline before the first).
        func before(_ k: Int) -> Unicode.Scalar { k > 0 ? s[k - 1] : "\n" }

        scan: while i < n {
            let c = s[i]
            let next: Unicode.Scalar? = i + 1 < n ? s[i + 1] : nil
            if inSingleQuote {
                if singleQuoteEscapes && c == "\\" {
                    i += 2
                } else if c == "'" {
                    if next == "'" { i += 2 } else { inSingleQuote = false; i += 1 }
                } else {
                    i += 1
                }
                continue
            }
            if inDoubleQuote {
                if c == "\"" { inDoubleQuote = false }
                i += 1
                continue
            }
            if commentDepth > 0 {
                if c == "*" && next == "/" {
                    commentDepth -= 1
                    i += 2
                } else if c == "/" && next == "*" {
                    commentDepth += 1
                    i += 2
                } else {
                    i += 1
                }
                continue
            }
            if let tag = dollarTag {
                if c == "$" && i + tag.count <= n && Array(s[i..<(i + tag.count)]) == tag {
                    dollarTag = nil
                    i += tag.count
                } else {
                    i += 1
                }
                continue
            }
            switch c {
            case "-" where next == "-":
                break scan
            case "/" where next == "*":
                commentDepth = 1
                i += 2
            case "'":
                let p = before(i)
                singleQuoteEscapes = (p == "E" || p == "e") && !StatementSplitter.isIdentifierPart(before(i - 1))
                inSingleQuote = true
                hasContent = true
                i += 1
            case "\"":
                inDoubleQuote = true
                hasContent = true
                i += 1
            case "$":
                hasContent = true
                if StatementSplitter.isIdentifierPart(before(i)) || next.map(StatementSplitter.isDigit) == true {
                    i += 1
                } else {
                    var j = i + 1
                    while j < n && StatementSplitter.isIdentifierPart(s[j]) && s[j] != "$" { j += 1 }
                    if j < n && s[j] == "$" {
                        dollarTag = Array(s[i...j])
                        i = j + 1
                    } else {
                        i += 1
                    }
                }
            case "(":
                parenDepth += 1
                hasContent = true
                i += 1
            case ")":
                parenDepth = max(0, parenDepth - 1)
                hasContent = true
                i += 1
            case ";" where parenDepth == 0:
                buffer += String(String.UnicodeScalarView(s[segmentStart..<i]))
                if hasContent { events.append(.statement(StatementSplitter.clean(buffer), line: lineNumber)) }
                buffer = ""
                hasContent = false
                segmentStart = i + 1
                i += 1
            case "\\":
                let head = String(String.UnicodeScalarView(s[segmentStart..<i]))
                if hasContent || !StatementSplitter.isBlank(head) { buffer += head + "\n" }
                let command = String(String.UnicodeScalarView(s[(i + 1)...]))
                events.append(.metaCommand(command, line: lineNumber))
                return events
            default:
                if c != " " && c != "\t" && c != "\r" && c != "\u{0C}" { hasContent = true }
                i += 1
            }
        }
        let rest = String(String.UnicodeScalarView(s[min(segmentStart, n)...]))
        if !buffer.isEmpty || !StatementSplitter.isBlank(rest) || !isEmpty {
            buffer += rest + "\n"
        }
        return events
    }

    /// End of input: the unterminated last statement, if any (psql sends it too).
    public mutating func finish() -> [Event] {
        defer { reset() }
        guard hasContent else { return [] }
        return [.statement(StatementSplitter.clean(buffer), line: lineNumber)]
    }

    /// Split a whole script.
    public static func split(_ text: String) -> [Event] {
        var splitter = StatementSplitter()
        var events: [Event] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var l = String(line)
            if l.hasSuffix("\r") { l.removeLast() }
            events += splitter.feed(line: l)
        }
        return events + splitter.finish()
    }

    // MARK: - Helpers

    /// Drops leading blank and `--` comment lines and surrounding whitespace.
    static func clean(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        while let first = lines.first {
            let t = first.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            if t.isEmpty || t.hasPrefix("--") { lines.removeFirst() } else { break }
        }
        var result = lines.joined(separator: "\n")
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" || last == "\n" || last == "\r" { result.removeLast() }
        return result
    }

    static func isBlank(_ text: String) -> Bool {
        text.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || isDigit(c) || c == "_" || c == "$" || c.value >= 0x80
    }
}
