// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// The record-level half of the JSON grammar (the scalar scanners and string decoding
// are in SlicehouseTypes/JSONGrammar.swift, shared with the SUPER functions).
extension JSONGrammar {
    /// Nesting deeper than this is rejected (skipping never recurses, so this only
    /// bounds the skip stack's memory).
    static let maxDepth = 100_000

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
