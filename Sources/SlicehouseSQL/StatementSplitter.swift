// SPDX-License-Identifier: Apache-2.0
/// Split SQL text into statements at top-level `;`, without parsing.
///
/// Quotes (`'...'`, `E'...'`, `"..."`, `$tag$...$tag$`) and comments (`--`, nested
/// `/* */`) are respected, so a `;` inside them does not split. Each statement is
/// returned trimmed, without its `;`; statements that are empty or only comments
/// are skipped. Never throws: unterminated quotes simply run to the end.
public func splitStatements(_ sql: String) -> [String] {
    let (statements, remainder) = splitStatementsKeepingRemainder(sql)
    var all = statements
    if let last = trimmedStatement(remainder) { all.append(last) }
    return all
}

/// Like `splitStatements`, but text after the last top-level `;` is returned
/// separately and untrimmed (an interactive shell keeps reading until it ends).
public func splitStatementsKeepingRemainder(_ sql: String) -> (statements: [String], remainder: String) {
    let bytes = Array(sql.utf8)
    var scanner = StatementScanner(bytes: bytes)
    var statements: [String] = []
    var start = 0
    while let end = scanner.nextTopLevelSemicolon() {
        if let s = trimmedStatement(String(decoding: bytes[start..<end], as: UTF8.self)) { statements.append(s) }
        start = end + 1
    }
    return (statements, String(decoding: bytes[start...], as: UTF8.self))
}

/// The statement trimmed of surrounding whitespace, or nil if it has no tokens
/// (only whitespace and comments).
private func trimmedStatement(_ text: String) -> String? {
    let trimmed = text.trimmingWhitespace()
    guard !trimmed.isEmpty else { return nil }
    var scanner = StatementScanner(bytes: Array(trimmed.utf8))
    return scanner.hasContent() ? trimmed : nil
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

/// A byte scanner that skips over quoted text and comments.
private struct StatementScanner {
    let bytes: [UInt8]
    var pos = 0

    /// The offset of the next `;` outside quotes and comments, or nil at the end.
    mutating func nextTopLevelSemicolon() -> Int? {
        while pos < bytes.count {
            if bytes[pos] == UInt8(ascii: ";") {
                pos += 1
                return pos - 1
            }
            skipElement()
        }
        return nil
    }

    /// True if the text contains anything but whitespace and comments.
    mutating func hasContent() -> Bool {
        while pos < bytes.count {
            let b = bytes[pos]
            let isSpace = b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n")
                || b == UInt8(ascii: "\r") || b == 0x0C
            let isComment = (b == UInt8(ascii: "-") && at(pos + 1) == UInt8(ascii: "-"))
                || (b == UInt8(ascii: "/") && at(pos + 1) == UInt8(ascii: "*"))
            if !isSpace && !isComment { return true }
            skipElement()
        }
        return false
    }

    private func at(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    private func isWordByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c >= 0x80
    }

    /// Skip one byte, or a whole quoted string / identifier / comment starting here.
    private mutating func skipElement() {
        let b = bytes[pos]
        switch b {
        case UInt8(ascii: "'"):
            // E'...' only when the E is a word of its own (not the end of `namE'`).
            let escapes = pos > 0 && (bytes[pos - 1] == UInt8(ascii: "E") || bytes[pos - 1] == UInt8(ascii: "e"))
                && !(pos > 1 && isWordByte(bytes[pos - 2]))
            skipQuoted(UInt8(ascii: "'"), backslashEscapes: escapes)
        case UInt8(ascii: "\""):
            skipQuoted(UInt8(ascii: "\""), backslashEscapes: false)
        case UInt8(ascii: "-") where at(pos + 1) == UInt8(ascii: "-"):
            while pos < bytes.count && bytes[pos] != UInt8(ascii: "\n") { pos += 1 }
        case UInt8(ascii: "/") where at(pos + 1) == UInt8(ascii: "*"):
            pos += 2
            var depth = 1
            while pos < bytes.count && depth > 0 {
                if bytes[pos] == UInt8(ascii: "*") && at(pos + 1) == UInt8(ascii: "/") {
                    depth -= 1
                    pos += 2
                } else if bytes[pos] == UInt8(ascii: "/") && at(pos + 1) == UInt8(ascii: "*") {
                    depth += 1
                    pos += 2
                } else {
                    pos += 1
                }
            }
        case UInt8(ascii: "$"):
            skipDollarQuoted()
        default:
            pos += 1
        }
    }

    /// From an opening quote to just past the closing one (a doubled quote is not a close).
    private mutating func skipQuoted(_ quote: UInt8, backslashEscapes: Bool) {
        pos += 1
        while pos < bytes.count {
            let c = bytes[pos]
            if backslashEscapes && c == UInt8(ascii: "\\") {
                pos += 2
            } else if c == quote {
                if at(pos + 1) == quote {
                    pos += 2
                } else {
                    pos += 1
                    return
                }
            } else {
                pos += 1
            }
        }
        pos = bytes.count
    }

    /// `$tag$ ... $tag$`; a `$` that opens no such string is skipped alone.
    private mutating func skipDollarQuoted() {
        var end = pos + 1
        while end < bytes.count {
            let c = bytes[end]
            let isTagByte = (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || c == UInt8(ascii: "_") || c >= 0x80
                || (end > pos + 1 && c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
            if !isTagByte { break }
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "$") else {
            pos += 1
            return
        }
        let delimiter = Array(bytes[pos...end])
        pos = end + 1
        while pos < bytes.count {
            if bytes[pos] == UInt8(ascii: "$") && bytes[pos...].starts(with: delimiter) {
                pos += delimiter.count
                return
            }
            pos += 1
        }
    }
}
