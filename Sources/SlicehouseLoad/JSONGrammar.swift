/// A JSON syntax error: what was wrong, and the byte offset where it was found.
struct JSONSyntaxError: Error {
    var offset: Int
    var message: String
}

/// Byte-level JSON (RFC 8259) scanning over raw input: whitespace, strings, numbers,
/// literals and whole values, validated without building anything. Strict: no
/// comments, no trailing commas, no raw control characters inside strings, no
/// leading zeros or `+` in numbers.
///
/// Every scanner takes the input base, a start offset and the end of the bytes it may
/// read, and returns the offset just past what it scanned; none reads at or beyond
/// `end`. Newlines are only ever skipped as whitespace (strings cannot hold raw ones),
/// so callers count physical lines through `skipWhitespace`.
enum JSONGrammar {
    static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C
    static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    static let comma: UInt8 = 0x2C, colon: UInt8 = 0x3A

    /// Nesting deeper than this is rejected (skipping never recurses, so this only
    /// bounds the skip stack's memory).
    static let maxDepth = 100_000

    // MARK: - Whitespace

    /// Skip spaces, tabs, CR and LF from `p`; `newlines` counts the LFs.
    @inline(__always)
    static func skipWhitespace(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int, _ newlines: inout Int) -> Int {
        var p = p
        while p < end {
            let c = b[p]
            if c == 32 || c == 9 || c == 13 {
                p += 1
            } else if c == 10 {
                newlines += 1
                p += 1
            } else {
                break
            }
        }
        return p
    }

    /// `\n` bytes in `[from, to)`, eight bytes at a time.
    static func countNewlines(_ b: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let nMask = ones &* 10
        var p = from, n = 0
        while p + 8 <= to {
            let y = UnsafeRawPointer(b + p).loadUnaligned(as: UInt64.self) ^ nMask
            // Exact per-byte zero test (no borrow across bytes).
            let t = ((y & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F | y) & 0x8080_8080_8080_8080
            n += 8 - t.nonzeroBitCount
            p += 8
        }
        while p < to {
            if b[p] == 10 { n += 1 }
            p += 1
        }
        return n
    }

    /// 1-based character column of offset `at` in its line (error messages only).
    static func column(_ b: UnsafePointer<UInt8>, _ at: Int) -> Int {
        var p = at
        var chars = 1
        while p > 0 && b[p - 1] != 10 {
            p -= 1
            if b[p] & 0xC0 != 0x80 { chars += 1 }
        }
        return chars
    }

    // MARK: - Scalars

    /// A string starting on its opening quote at `start`. Returns the offset after the
    /// closing quote, and whether the contents hold escapes (to decode with `unescape`).
    @inline(__always)
    static func scanString(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws(JSONSyntaxError) -> (end: Int, escaped: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let qMask = ones &* UInt64(quote), bMask = ones &* UInt64(backslash), ctl = ones &* 0x20
        var p = start + 1
        var escaped = false
        while true {
            // Skip plain bytes eight at a time: stop near a quote, backslash or control byte.
            while p + 8 <= end {
                let w = UnsafeRawPointer(b + p).loadUnaligned(as: UInt64.self)
                let x = w ^ qMask, y = w ^ bMask
                let hit = (((x &- ones) & ~x) | ((y &- ones) & ~y) | ((w &- ctl) & ~w)) & highs
                if hit != 0 { break }
                p += 8
            }
            guard p < end else { throw JSONSyntaxError(offset: end, message: "unterminated string") }
            let c = b[p]
            if c == quote { return (p + 1, escaped) }
            if c == backslash {
                escaped = true
                guard p + 1 < end else { throw JSONSyntaxError(offset: end, message: "unterminated string") }
                switch b[p + 1] {
                case quote, backslash, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:  // " \ / b f n r t
                    p += 2
                case 0x75:  // u
                    guard p + 6 <= end else { throw JSONSyntaxError(offset: end, message: "unterminated string") }
                    for k in 2..<6 where hexValue(b[p + k]) == nil {
                        throw JSONSyntaxError(offset: p + k, message: "invalid \\u escape (expected 4 hex digits)")
                    }
                    p += 6
                default:
                    throw JSONSyntaxError(offset: p + 1, message: "invalid escape sequence in string")
                }
                continue
            }
            if c < 0x20 {
                throw JSONSyntaxError(offset: p, message: c == 10 ? "unescaped newline in string" : "unescaped control character in string")
            }
            p += 1
        }
    }

    /// A number at `start`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    @inline(__always)
    static func scanNumber(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws(JSONSyntaxError) -> Int {
        var p = start
        if p < end && b[p] == 0x2D { p += 1 }
        guard p < end, b[p] &- 48 < 10 else { throw JSONSyntaxError(offset: min(p, end), message: "invalid number") }
        if b[p] == 48 {
            p += 1
        } else {
            while p < end && b[p] &- 48 < 10 { p += 1 }
        }
        if p < end && b[p] == 0x2E {
            p += 1
            guard p < end, b[p] &- 48 < 10 else { throw JSONSyntaxError(offset: min(p, end), message: "invalid number (digits must follow '.')") }
            while p < end && b[p] &- 48 < 10 { p += 1 }
        }
        if p < end && (b[p] | 0x20) == 0x65 {
            p += 1
            if p < end && (b[p] == 0x2B || b[p] == 0x2D) { p += 1 }
            guard p < end, b[p] &- 48 < 10 else { throw JSONSyntaxError(offset: min(p, end), message: "invalid number (digits must follow the exponent)") }
            while p < end && b[p] &- 48 < 10 { p += 1 }
        }
        return p
    }

    /// `true`, `false` or `null` at `start` (on its first letter).
    @inline(__always)
    static func scanLiteral(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws(JSONSyntaxError) -> Int {
        let word: StaticString
        switch b[start] {
        case 0x74: word = "true"
        case 0x66: word = "false"
        default: word = "null"
        }
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        guard start + n <= end else { throw JSONSyntaxError(offset: start, message: "invalid literal (expected true, false or null)") }
        for k in 0..<n where b[start + k] != w[k] {
            throw JSONSyntaxError(offset: start, message: "invalid literal (expected true, false or null)")
        }
        return start + n
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 48...57: return UInt32(c - 48)
        case 65...70: return UInt32(c - 55)
        case 97...102: return UInt32(c - 87)
        default: return nil
        }
    }

    // MARK: - Whole values

    /// Validate and skip one complete value of any kind starting at `start` (not on
    /// whitespace). Iterative: the container stack lives in `stack`, not on the call stack.
    static func skipValue(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ newlines: inout Int,
                          _ stack: inout GrowableBuffer<UInt8>) throws(JSONSyntaxError) -> Int {
        stack.removeAll()
        var p = start
        var needValue = true
        while true {
            if needValue {
                guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected a value)") }
                let c = b[p]
                switch c {
                case openBrace, openBracket:
                    p = skipWhitespace(b, p + 1, end, &newlines)
                    guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input") }
                    let close = c == openBrace ? closeBrace : closeBracket
                    if b[p] == close {
                        p += 1
                        needValue = false
                    } else {
                        guard stack.count < maxDepth else { throw JSONSyntaxError(offset: p, message: "JSON nested too deeply") }
                        stack.append(c)
                        if c == openBrace { p = try memberKey(b, p, end, &newlines) }
                        continue
                    }
                case quote: p = try scanString(b, p, end).end
                case 0x2D, 48...57: p = try scanNumber(b, p, end)
                case 0x74, 0x66, 0x6E: p = try scanLiteral(b, p, end)
                default: throw unexpected(b, p)
                }
                needValue = false
            }
            // After a value.
            guard let top = stack.last else { return p }
            p = skipWhitespace(b, p, end, &newlines)
            guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (unclosed \(top == openBrace ? "object" : "array"))") }
            let c = b[p]
            if c == comma {
                p = skipWhitespace(b, p + 1, end, &newlines)
                if top == openBrace { p = try memberKey(b, p, end, &newlines) }
                needValue = true
            } else if c == (top == openBrace ? closeBrace : closeBracket) {
                stack.removeLast()
                p += 1
            } else {
                throw JSONSyntaxError(offset: p, message: top == openBrace ? "expected ',' or '}' in object" : "expected ',' or ']' in array")
            }
        }
    }

    /// An object member's `"key" :` at `p`; returns the offset of its value (whitespace skipped).
    @inline(__always)
    static func memberKey(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int, _ newlines: inout Int) throws(JSONSyntaxError) -> Int {
        guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected an object key)") }
        guard b[p] == quote else { throw JSONSyntaxError(offset: p, message: "expected a double-quoted object key") }
        var q = skipWhitespace(b, try scanString(b, p, end).end, end, &newlines)
        guard q < end, b[q] == colon else { throw JSONSyntaxError(offset: min(q, end), message: "expected ':' after object key") }
        q = skipWhitespace(b, q + 1, end, &newlines)
        return q
    }

    /// The error for a byte that cannot start a value.
    static func unexpected(_ b: UnsafePointer<UInt8>, _ p: Int) -> JSONSyntaxError {
        let c = b[p]
        let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
        return JSONSyntaxError(offset: p, message: "unexpected \(shown) (expected a value)")
    }

    // MARK: - Decoding

    /// Decode the escapes of string contents `src` (between the quotes, already
    /// validated by `scanString`) into `dst`, which has room for `src.count` bytes
    /// (decoding never grows). Returns the decoded length, or nil for a `\u` escape
    /// that is an unpaired surrogate.
    static func unescape(_ src: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>) -> Int? {
        var i = 0, o = 0
        let n = src.count
        while i < n {
            let c = src[i]
            if c != backslash {
                dst[o] = c; o += 1; i += 1
                continue
            }
            guard i + 1 < n else { return nil }
            let e = src[i + 1]
            i += 2
            switch e {
            case 0x62: dst[o] = 8
            case 0x66: dst[o] = 12
            case 0x6E: dst[o] = 10
            case 0x72: dst[o] = 13
            case 0x74: dst[o] = 9
            case 0x75:
                guard var scalar = hex4(src, i) else { return nil }
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // High surrogate: a low one must follow as `\uDC00`...`\uDFFF`.
                    guard i + 6 <= n, src[i] == backslash, src[i + 1] == 0x75, let low = hex4(src, i + 2),
                          low >= 0xDC00 && low < 0xE000 else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    return nil
                }
                o += encodeUTF8(scalar, dst + o)
                continue
            default: dst[o] = e  // " \ /
            }
            o += 1
        }
        return o
    }

    @inline(__always)
    static func hex4(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32? {
        guard i + 4 <= s.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(s[i + k]) else { return nil }
            v = v << 4 | h
        }
        return v
    }

    /// Write `scalar` as UTF-8 at `dst`; returns the byte count (1...4).
    @inline(__always)
    static func encodeUTF8(_ scalar: UInt32, _ dst: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case ..<0x80:
            dst[0] = UInt8(scalar)
            return 1
        case ..<0x800:
            dst[0] = UInt8(0xC0 | scalar >> 6)
            dst[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            dst[0] = UInt8(0xE0 | scalar >> 12)
            dst[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            dst[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            dst[0] = UInt8(0xF0 | scalar >> 18)
            dst[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            dst[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            dst[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    // MARK: - Record boundaries

    /// Record starts at roughly every `target` bytes of `[start, end)`: safe places to
    /// cut a file into ranges parsed independently, found locally (no pass over the
    /// whole file).
    ///
    /// A cut is a `{` or `[` that follows a `}` or `]` with only whitespace, including
    /// a newline, in between. In valid JSON that is always the start of a top-level
    /// value: a string cannot hold a raw newline (so neither bracket is inside one),
    /// and inside an object or array two values must be separated by a comma. Records
    /// written one after another on a single line give no cuts (the file is then
    /// parsed in fewer ranges); malformed input is reported by the parser.
    static func recordCuts(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, target: Int) -> [Int] {
        var cuts: [Int] = []
        var nominal = start + target
        while end - nominal > target / 2 {
            guard let cut = nextRecordStart(b, from: nominal, lowerBound: start, end), end - cut > target / 2 else { break }
            cuts.append(cut)
            nominal = cut + target
        }
        return cuts
    }

    /// The first record start (see `recordCuts`) after a newline at or after `from`.
    static func nextRecordStart(_ b: UnsafePointer<UInt8>, from: Int, lowerBound: Int, _ end: Int) -> Int? {
        var p = from
        while true {
            p = RecordScanner.findDelimiterOrNewline(b, p, end, 10)
            guard p < end else { return nil }
            var q = p + 1
            while q < end && isWhitespace(b[q]) { q += 1 }
            guard q < end else { return nil }
            if b[q] == openBrace || b[q] == openBracket {
                var r = p - 1
                while r >= lowerBound && isWhitespace(b[r]) { r -= 1 }
                if r >= lowerBound && (b[r] == closeBrace || b[r] == closeBracket) { return q }
            }
            p = q
        }
    }

    @inline(__always) static func isWhitespace(_ c: UInt8) -> Bool { c == 32 || c == 10 || c == 13 || c == 9 }

    /// Where to resume after a malformed record that started at `recordStart` and
    /// failed at `errorOffset`: the first line (at or after the error) that begins with
    /// `{` (or `[` when records may be arrays) in its first column, else `end`.
    static func resyncPoint(_ b: UnsafePointer<UInt8>, recordStart: Int, errorOffset: Int, _ end: Int,
                            arrays: Bool) -> Int {
        var q = max(errorOffset, recordStart + 1)
        while q < end {
            if b[q - 1] == 10 && (b[q] == openBrace || (arrays && b[q] == openBracket)) { return q }
            q += 1
        }
        return end
    }
}
