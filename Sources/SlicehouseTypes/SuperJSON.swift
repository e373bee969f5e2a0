// SPDX-License-Identifier: Apache-2.0
/// SUPER values as they are stored: one JSON value in compact text (no whitespace
/// outside strings, strings and numbers exactly as written), validated once when the
/// value is made (`JSON_PARSE`, a cast, COPY). Everything that reads a stored value —
/// PartiQL navigation, unnesting, casts, the JSON functions — scans these bytes in
/// place without building a tree and without allocating per value.
///
/// Top-level JSON `null` is not stored: a SUPER `null` is SQL NULL, as navigation to a
/// missing attribute is.
public enum SuperJSON {
    /// The kind of a stored value, from its first byte.
    public enum Kind: UInt8, Sendable {
        case null, boolean, number, string, array, object

        /// The names `JSON_TYPEOF` returns.
        public var typeName: String {
            switch self {
            case .null: return "null"
            case .boolean: return "boolean"
            case .number: return "number"
            case .string: return "string"
            case .array: return "array"
            case .object: return "object"
            }
        }
    }

    /// The deepest nesting of arrays and objects a value may have (Redshift's limit).
    public static let maxDepth = 1000

    // MARK: - Parsing

    /// Validate `b` as one JSON document (RFC 8259; whitespace around it) and append
    /// its compact form to `out`.
    public static func canonicalize(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(JSONSyntaxError) {
        guard let base = b.baseAddress, b.count > 0 else { throw JSONSyntaxError(offset: 0, message: "empty input") }
        let end = b.count
        var newlines = 0
        var stack: [UInt8] = []
        var p = JSONGrammar.skipWhitespace(base, 0, end, &newlines)
        var needValue = true
        func key(_ at: Int) throws(JSONSyntaxError) -> Int {
            guard at < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected an object key)") }
            guard base[at] == JSONGrammar.quote else { throw JSONSyntaxError(offset: at, message: "expected a double-quoted object key") }
            let e = try JSONGrammar.scanString(base, at, end).end
            out.append(contentsOf: b[at..<e])
            var q = JSONGrammar.skipWhitespace(base, e, end, &newlines)
            guard q < end, base[q] == JSONGrammar.colon else { throw JSONSyntaxError(offset: min(q, end), message: "expected ':' after object key") }
            out.append(JSONGrammar.colon)
            q = JSONGrammar.skipWhitespace(base, q + 1, end, &newlines)
            return q
        }
        while true {
            if needValue {
                guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected a value)") }
                let c = base[p]
                switch c {
                case JSONGrammar.openBrace, JSONGrammar.openBracket:
                    out.append(c)
                    p = JSONGrammar.skipWhitespace(base, p + 1, end, &newlines)
                    guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input") }
                    let close = c == JSONGrammar.openBrace ? JSONGrammar.closeBrace : JSONGrammar.closeBracket
                    if base[p] == close {
                        out.append(close)
                        p += 1
                    } else {
                        guard stack.count < maxDepth else { throw JSONSyntaxError(offset: p, message: "JSON nested more than \(maxDepth) levels deep") }
                        stack.append(c)
                        if c == JSONGrammar.openBrace { p = try key(p) }
                        continue
                    }
                case JSONGrammar.quote:
                    let e = try JSONGrammar.scanString(base, p, end).end
                    out.append(contentsOf: b[p..<e])
                    p = e
                case 0x2D, 48...57:
                    let e = try JSONGrammar.scanNumber(base, p, end)
                    out.append(contentsOf: b[p..<e])
                    p = e
                case 0x74, 0x66, 0x6E:
                    let e = try JSONGrammar.scanLiteral(base, p, end)
                    out.append(contentsOf: b[p..<e])
                    p = e
                default:
                    let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
                    throw JSONSyntaxError(offset: p, message: "unexpected \(shown) (expected a value)")
                }
                needValue = false
            }
            guard let top = stack.last else {
                p = JSONGrammar.skipWhitespace(base, p, end, &newlines)
                guard p == end else { throw JSONSyntaxError(offset: p, message: "unexpected data after the JSON value") }
                return
            }
            p = JSONGrammar.skipWhitespace(base, p, end, &newlines)
            guard p < end else {
                throw JSONSyntaxError(offset: end, message: "unexpected end of input (unclosed \(top == JSONGrammar.openBrace ? "object" : "array"))")
            }
            let c = base[p]
            if c == JSONGrammar.comma {
                out.append(c)
                p = JSONGrammar.skipWhitespace(base, p + 1, end, &newlines)
                if top == JSONGrammar.openBrace { p = try key(p) }
                needValue = true
            } else if c == (top == JSONGrammar.openBrace ? JSONGrammar.closeBrace : JSONGrammar.closeBracket) {
                stack.removeLast()
                out.append(c)
                p += 1
            } else {
                throw JSONSyntaxError(offset: p, message: top == JSONGrammar.openBrace ? "expected ',' or '}' in object" : "expected ',' or ']' in array")
            }
        }
    }

    // MARK: - Reading stored values

    /// The kind of the stored value `v` (nil for empty bytes).
    @inlinable public static func kind(_ v: UnsafeBufferPointer<UInt8>) -> Kind? {
        guard let c = v.first else { return nil }
        switch c {
        case JSONGrammar.openBrace: return .object
        case JSONGrammar.openBracket: return .array
        case JSONGrammar.quote: return .string
        case 0x74, 0x66: return .boolean
        case 0x6E: return .null
        default: return .number
        }
    }

    /// The offset just past the closing quote of the string starting at `p`.
    @inlinable static func stringEnd(_ v: UnsafeBufferPointer<UInt8>, _ p: Int) -> Int {
        var q = p + 1
        while q < v.count {
            let c = v[q]
            if c == JSONGrammar.backslash { q += 2; continue }
            if c == JSONGrammar.quote { return q + 1 }
            q += 1
        }
        return v.count
    }

    /// The offset just past the compact value starting at `p`.
    @inlinable public static func skip(_ v: UnsafeBufferPointer<UInt8>, _ p: Int) -> Int {
        var q = p
        var depth = 0
        repeat {
            guard q < v.count else { return v.count }
            let c = v[q]
            switch c {
            case JSONGrammar.quote: q = stringEnd(v, q)
            case JSONGrammar.openBrace, JSONGrammar.openBracket: depth += 1; q += 1
            case JSONGrammar.closeBrace, JSONGrammar.closeBracket: depth -= 1; q += 1
            default:
                if depth == 0 {
                    while q < v.count, v[q] != JSONGrammar.comma, v[q] != JSONGrammar.closeBrace, v[q] != JSONGrammar.closeBracket { q += 1 }
                } else {
                    q += 1
                }
            }
        } while depth > 0
        return q
    }

    /// The range of the value of attribute `key` (raw, unescaped bytes) in the object
    /// `v`; nil when `v` is not an object or has no such attribute. With duplicate keys
    /// the last one counts, as Redshift's JSON_PARSE keeps it.
    public static func member(_ v: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard v.count >= 2, v[0] == JSONGrammar.openBrace, v[1] != JSONGrammar.closeBrace else { return nil }
        var p = 1
        var found: Range<Int>? = nil
        while p < v.count {
            let ke = stringEnd(v, p)
            let matches = keyEquals(UnsafeBufferPointer(rebasing: v[(p + 1)..<max(p + 1, ke - 1)]), key)
            let vs = ke + 1
            let ve = skip(v, vs)
            if matches { found = vs..<ve }
            guard ve < v.count, v[ve] == JSONGrammar.comma else { break }
            p = ve + 1
        }
        return found
    }

    /// `member`, and when no key equals `key`, the last whose letters equal `key`'s
    /// ignoring ASCII case (`enable_case_sensitive_super_attribute` off: `c.name` finds
    /// `"Name"`, and an exact `"name"` first).
    public static func memberIgnoringCase(_ v: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard v.count >= 2, v[0] == JSONGrammar.openBrace, v[1] != JSONGrammar.closeBrace else { return nil }
        var p = 1
        var exact: Range<Int>? = nil, folded: Range<Int>? = nil
        while p < v.count {
            let ke = stringEnd(v, p)
            let stored = UnsafeBufferPointer(rebasing: v[(p + 1)..<max(p + 1, ke - 1)])
            let vs = ke + 1
            let ve = skip(v, vs)
            if keyEquals(stored, key) {
                exact = vs..<ve
            } else if exact == nil, !stored.contains(JSONGrammar.backslash), stored.count == key.count,
                      zip(stored, key).allSatisfy({ asciiLower($0) == asciiLower($1) }) {
                folded = vs..<ve
            }
            guard ve < v.count, v[ve] == JSONGrammar.comma else { break }
            p = ve + 1
        }
        return exact ?? folded
    }

    @inline(__always) private static func asciiLower(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
    }

    /// Whether the stored key contents `stored` (escapes as written) equal `key`.
    static func keyEquals(_ stored: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        if !stored.contains(JSONGrammar.backslash) { return stored.elementsEqual(key) }
        guard let decoded = unescaped(stored) else { return false }
        return decoded.elementsEqual(key)
    }

    /// The range of element `index` (0-based) of the array `v`; nil when `v` is not an
    /// array or the index is out of range.
    public static func element(_ v: UnsafeBufferPointer<UInt8>, index: Int) -> Range<Int>? {
        guard index >= 0, v.count >= 2, v[0] == JSONGrammar.openBracket, v[1] != JSONGrammar.closeBracket else { return nil }
        var p = 1
        var k = 0
        while p < v.count {
            let e = skip(v, p)
            if k == index { return p..<e }
            guard e < v.count, v[e] == JSONGrammar.comma else { return nil }
            p = e + 1
            k += 1
        }
        return nil
    }

    /// Calls `body` with the range of each element of the array `v`, or of each
    /// attribute value of the object `v` (with the key's contents); nothing for scalars.
    public static func forEachChild(_ v: UnsafeBufferPointer<UInt8>,
                                    _ body: (_ key: Range<Int>?, _ value: Range<Int>) throws -> Void) rethrows {
        guard v.count >= 2 else { return }
        let object = v[0] == JSONGrammar.openBrace
        guard object || v[0] == JSONGrammar.openBracket else { return }
        guard v[1] != JSONGrammar.closeBrace && v[1] != JSONGrammar.closeBracket else { return }
        var p = 1
        while p < v.count {
            var key: Range<Int>? = nil
            if object {
                let ke = stringEnd(v, p)
                key = (p + 1)..<max(p + 1, ke - 1)
                p = ke + 1
            }
            let e = skip(v, p)
            try body(key, p..<e)
            guard e < v.count, v[e] == JSONGrammar.comma else { return }
            p = e + 1
        }
    }

    /// The number of elements of the array `v`; nil when it is not an array.
    public static func arrayLength(_ v: UnsafeBufferPointer<UInt8>) -> Int? {
        guard v.first == JSONGrammar.openBracket else { return nil }
        var n = 0
        forEachChild(v) { _, _ in n += 1 }
        return n
    }

    // MARK: - Strings

    /// The decoded contents of string contents `s` (between the quotes, escapes as
    /// written); nil for an unpaired surrogate escape.
    public static func unescaped(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        if !s.contains(JSONGrammar.backslash) { return Array(s) }
        var out = [UInt8](filled: 0, count: s.count)
        let n: Int? = out.withUnsafeMutableBufferPointer { d in
            guard let base = d.baseAddress else { return 0 }
            return JSONGrammar.unescape(s, into: base)
        }
        guard let n else { return nil }
        out.removeLast(out.count - n)
        return out
    }

    /// The text of a scalar value as SQL sees it: a string's decoded contents, a
    /// number's digits, `true`/`false`; nil for null, arrays and objects.
    public static func scalarText(_ v: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        switch kind(v) {
        case .string?: return unescaped(UnsafeBufferPointer(rebasing: v[1..<max(1, v.count - 1)]))
        case .number?, .boolean?: return Array(v)
        default: return nil
        }
    }

    /// Append `s` as a JSON string literal (quotes, escapes for `"`, `\` and control characters).
    public static func appendQuoted(_ s: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(JSONGrammar.quote)
        for c in s {
            switch c {
            case JSONGrammar.quote: out.append(JSONGrammar.backslash); out.append(c)
            case JSONGrammar.backslash: out.append(JSONGrammar.backslash); out.append(c)
            case 10: out.append(JSONGrammar.backslash); out.append(0x6E)
            case 13: out.append(JSONGrammar.backslash); out.append(0x72)
            case 9: out.append(JSONGrammar.backslash); out.append(0x74)
            case 8: out.append(JSONGrammar.backslash); out.append(0x62)
            case 12: out.append(JSONGrammar.backslash); out.append(0x66)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [JSONGrammar.backslash, 0x75, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]])
            default: out.append(c)
            }
        }
        out.append(JSONGrammar.quote)
    }

    /// Whether the number text `v` is an integer (no fraction, no exponent).
    public static func isIntegerText(_ v: UnsafeBufferPointer<UInt8>) -> Bool {
        !v.contains(0x2E) && !v.contains(0x65) && !v.contains(0x45)
    }
}

// MARK: - Equality form

extension SuperJSON {
    /// Whether the stored value `v` can differ in bytes from an equal value: it holds an
    /// object (attribute order), a decimal point or exponent (`1.0` = `1`), `-0`, or an
    /// escape. Conservative for arrays (any such byte anywhere).
    @inlinable public static func mayHaveOtherSpelling(_ v: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let k = kind(v) else { return false }
        switch k {
        case .null, .boolean: return false
        case .object: return true
        case .string: return v.contains(JSONGrammar.backslash)
        case .number, .array:
            for c in v where c == JSONGrammar.openBrace || c == 0x2E || c == JSONGrammar.backslash || c == 0x65
                || c == 0x45 || c == 0x2D {
                return true
            }
            return false
        }
    }

    /// `v` (a SUPER vector) with each value in its `equalityForm`; `v` itself when no
    /// value needs it (the usual case: scalars and arrays of integers and plain strings).
    public static func equalityForms(_ v: Vector) -> Vector {
        guard case .string(let s) = v.data else { return v }
        let n = s.count
        let needed = s.bytes.withUnsafeBufferPointer { b in
            (0..<n).contains { i in
                mayHaveOtherSpelling(UnsafeBufferPointer(rebasing: b[Int(s.offsets[i])..<Int(s.offsets[i + 1])]))
            }
        }
        guard needed else { return v }
        var out = StringArray(reservingCount: n, bytes: s.bytes.count)
        var buffer: [UInt8] = []
        s.bytes.withUnsafeBufferPointer { b in
            for i in 0..<n {
                buffer.removeAll(keepingCapacity: true)
                equalityForm(UnsafeBufferPointer(rebasing: b[Int(s.offsets[i])..<Int(s.offsets[i + 1])]), into: &buffer)
                buffer.withUnsafeBufferPointer { out.append(bytes: $0) }
            }
        }
        var r = v
        r.data = .string(out)
        return r
    }

    /// The form in which two equal SUPER values have the same bytes, for `=`, grouping,
    /// DISTINCT and set operations: an object's attributes sorted by name (a repeated
    /// name keeps its last value, as navigation does), strings decoded and re-escaped,
    /// numbers without trailing fractional zeros (`1.50` is `1.5`, `1.0` is `1`). Order
    /// is kept in what is stored and shown; only comparisons use this form.
    public static func equalityForm(_ v: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard let k = kind(v) else { return }
        switch k {
        case .null, .boolean:
            out.append(contentsOf: v)
        case .number:
            appendNumber(v, to: &out)
        case .string:
            if let decoded = unescaped(UnsafeBufferPointer(rebasing: v[1..<max(1, v.count - 1)])) {
                decoded.withUnsafeBufferPointer { appendQuoted($0, to: &out) }
            } else {
                out.append(contentsOf: v)
            }
        case .array:
            out.append(JSONGrammar.openBracket)
            var first = true
            forEachChild(v) { _, r in
                if !first { out.append(JSONGrammar.comma) }
                first = false
                equalityForm(UnsafeBufferPointer(rebasing: v[r]), into: &out)
            }
            out.append(JSONGrammar.closeBracket)
        case .object:
            var members: [(key: [UInt8], value: Range<Int>)] = []
            forEachChild(v) { key, r in
                guard let key else { return }
                let name = unescaped(UnsafeBufferPointer(rebasing: v[key])) ?? Array(v[key])
                if let i = members.firstIndex(where: { $0.key == name }) { members.remove(at: i) }
                members.append((name, r))
            }
            members.sort { $0.key.lexicographicallyPrecedes($1.key) }
            out.append(JSONGrammar.openBrace)
            for (i, m) in members.enumerated() {
                if i > 0 { out.append(JSONGrammar.comma) }
                m.key.withUnsafeBufferPointer { appendQuoted($0, to: &out) }
                out.append(JSONGrammar.colon)
                equalityForm(UnsafeBufferPointer(rebasing: v[m.value]), into: &out)
            }
            out.append(JSONGrammar.closeBrace)
        }
    }

    /// A number's digits with trailing fractional zeros (and a bare point) removed, and
    /// `-0` as `0`; exponent forms as written.
    static func appendNumber(_ v: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var end = v.count
        if v.contains(0x2E) && !v.contains(0x65) && !v.contains(0x45) {
            while end > 0 && v[end - 1] == 0x30 { end -= 1 }
            if end > 0 && v[end - 1] == 0x2E { end -= 1 }
        }
        let digits = UnsafeBufferPointer(rebasing: v[0..<end])
        if digits.count >= 2, digits[0] == 0x2D, digits.dropFirst().allSatisfy({ $0 == 0x30 }) {
            out.append(0x30)
        } else {
            out.append(contentsOf: digits)
        }
    }
}
