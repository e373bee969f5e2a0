// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQL

/// Splits shell input into SQL statements and backslash meta-commands, line by
/// line, the way psql does: a statement ends at a `;` that is outside quotes
/// (`'...'`, `E'...'`, `"..."`, `$tag$...$tag$`), comments (`-- ...`, nested
/// `/* ... */`) and parentheses — `SQLTextScanner` decides, the scanner the whole-text
/// `splitStatements` uses too. A backslash outside quotes and comments starts a
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
    /// Where the statement being collected stands: in a quote, a comment, parentheses.
    private var scanner = SQLTextScanner()
    /// Number of lines fed so far.
    public private(set) var lineNumber = 0

    public init() {}

    /// True when no statement is being collected (psql's `=>` prompt rather than `->`).
    public var isEmpty: Bool { !scanner.hasContent && scanner.isAtTopLevel }

    /// The character psql shows in the continuation prompt: `'`, `"`, `*` (in a
    /// comment), `$` (in a dollar quote), `(` (open parenthesis) or `-`.
    public var continuationMarker: Character { scanner.continuationMarker }

    /// The statement collected so far (psql's query buffer), cleaned up as it would be sent.
    public var pendingText: String { StatementSplitter.clean(buffer) }

    /// Forget the statement being collected (`\r`).
    public mutating func reset() {
        buffer = ""
        scanner.reset()
    }

    /// Take the collected statement, if it has content, leaving the buffer empty (`\g`).
    public mutating func takePending() -> String? {
        let text = scanner.hasContent ? StatementSplitter.clean(buffer) : nil
        reset()
        return text
    }

    /// Feed one input line (without its newline); returns what it completed.
    public mutating func feed(line: String) -> [Event] {
        lineNumber += 1
        var events: [Event] = []
        // The line with its newline, which ends a `--` comment.
        let bytes = Array(line.utf8) + [UInt8(ascii: "\n")]
        let end = bytes.count - 1
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        var segmentStart = 0
        while let found = scanner.next(bytes, from: segmentStart, backslashes: true) {
            switch found.stop {
            case .semicolon:
                buffer += text(segmentStart..<found.offset)
                if found.content { events.append(.statement(StatementSplitter.clean(buffer), line: lineNumber)) }
                buffer = ""
                segmentStart = found.offset + 1
            case .backslash:
                let head = text(segmentStart..<found.offset)
                if found.content || !StatementSplitter.isBlank(head) { buffer += head + "\n" }
                events.append(.metaCommand(text((found.offset + 1)..<end), line: lineNumber))
                scanner.endLine()
                return events
            }
        }
        let rest = text(min(segmentStart, end)..<end)
        if !buffer.isEmpty || !StatementSplitter.isBlank(rest) || !isEmpty {
            buffer += rest + "\n"
        }
        return events
    }

    /// End of input: the unterminated last statement, if any (psql sends it too).
    public mutating func finish() -> [Event] {
        defer { reset() }
        guard scanner.hasContent else { return [] }
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
}
