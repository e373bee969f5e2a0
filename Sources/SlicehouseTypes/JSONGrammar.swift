// SPDX-License-Identifier: Apache-2.0
/// A JSON syntax error: what was wrong, and the byte offset where it was found.
public struct JSONSyntaxError: Error, Sendable {
    public var offset: Int
    public var message: String
    @inlinable public init(offset: Int, message: String) { self.offset = offset; self.message = message }
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
public enum JSONGrammar {
    public static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C
    public static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    public static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    public static let comma: UInt8 = 0x2C, colon: UInt8 = 0x3A

    // MARK: - Whitespace

    /// Skip spaces, tabs, CR and LF from `p`; `newlines` counts the LFs.
    @inlinable
    public static func skipWhitespace(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int, _ newlines: inout Int) -> Int {
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

    // MARK: - Scalars

    /// A string starting on its opening quote at `start`. Returns the offset after the
    /// closing quote, and whether the contents hold escapes (to decode with `unescape`).
    @inlinable
    public static func scanString(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws(JSONSyntaxError) -> (end: Int, escaped: Bool) {
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
    @inlinable
    public static func scanNumber(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws(JSONSyntaxError) -> Int {
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
    @inlinable
    public static func scanLiteral(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws(JSONSyntaxError) -> Int {
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

    @inlinable
    public static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 48...57: return UInt32(c - 48)
        case 65...70: return UInt32(c - 55)
        case 97...102: return UInt32(c - 87)
        default: return nil
        }
    }

    // MARK: - Decoding

    /// Decode the escapes of string contents `src` (between the quotes, already
    /// validated by `scanString`) into `dst`, which has room for `src.count` bytes
    /// (decoding never grows). Returns the decoded length, or nil for a `\u` escape
    /// that is an unpaired surrogate.
    @inlinable
    public static func unescape(_ src: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>) -> Int? {
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

    @inlinable
    public static func hex4(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32? {
        guard i + 4 <= s.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(s[i + k]) else { return nil }
            v = v << 4 | h
        }
        return v
    }

    /// Write `scalar` as UTF-8 at `dst`; returns the byte count (1...4).
    @inlinable
    public static func encodeUTF8(_ scalar: UInt32, _ dst: UnsafeMutablePointer<UInt8>) -> Int {
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

}
