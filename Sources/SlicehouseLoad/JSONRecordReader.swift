// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
/// What a loaded column received from one JSON record.
enum JSONValueKind: UInt8 {
    /// No value at the column's path (absent key, short array): loads as NULL.
    case missing
    /// JSON `null`.
    case null
    /// String contents without escapes (the slot spans the bytes between the quotes).
    case string
    /// String contents with escapes to decode.
    case escapedString
    /// A number, `true` or `false`: its text.
    case scalar
    /// An object or array: its JSON text, as written.
    case nested
}

/// Parses one JSON record at a time and notes, per loaded column, where its value is
/// (`slotStart`/`slotEnd`, `slotKind`) — nothing is copied or allocated per value.
///
/// Only members on a path of the field map are looked at; everything else is
/// validated and skipped by `JSONGrammar.skipValue`. Recursion follows the field map
/// (a few levels at most), never the input's nesting. Used by one worker for one range.
struct JSONRecordReader: ~Copyable {
    let map: JSONFieldMap
    let columnCount: Int
    let slotStart: UnsafeMutablePointer<Int>
    let slotEnd: UnsafeMutablePointer<Int>
    let slotKind: UnsafeMutablePointer<JSONValueKind>
    /// Skip stack for `JSONGrammar.skipValue`.
    private var stack = GrowableBuffer<UInt8>(capacity: 64)
    /// Decoded member keys that contained escapes.
    private var keyScratch = GrowableBuffer<UInt8>(capacity: 64)
    /// Member-order guesses: for the `m`-th member of an object at node `n`, the key
    /// entry it matched last time (`memberGuess[n * guessWidth + m]`, -1: none).
    /// Records of one file usually list their keys in the same order, so most keys
    /// are matched by one comparison, without hashing.
    private let memberGuess: UnsafeMutablePointer<Int32>
    private let guessedNodes: Int
    static let guessWidth = 32
    static let maxGuessedNodes = 64

    init(map: JSONFieldMap, columnCount: Int) {
        self.map = map
        self.columnCount = columnCount
        let n = max(columnCount, 1)
        slotStart = .allocate(capacity: n)
        slotEnd = .allocate(capacity: n)
        slotKind = .allocate(capacity: n)
        slotStart.initialize(repeating: 0, count: n)
        slotEnd.initialize(repeating: 0, count: n)
        slotKind.initialize(repeating: .missing, count: n)
        guessedNodes = min(map.nodeCount, Self.maxGuessedNodes)
        memberGuess = .allocate(capacity: max(guessedNodes * Self.guessWidth, 1))
        memberGuess.initialize(repeating: -1, count: max(guessedNodes * Self.guessWidth, 1))
    }

    deinit {
        slotStart.deallocate()
        slotEnd.deallocate()
        slotKind.deallocate()
        memberGuess.deallocate()
    }

    /// Parse the record starting at `p` (its first byte, not whitespace), filling the
    /// slots. Returns the offset just past the record.
    mutating func read(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int,
                       newlines: inout Int) throws(JSONSyntaxError) -> Int {
        for c in 0..<columnCount { slotKind[c] = .missing }
        let first = b[p]
        guard first == JSONGrammar.openBrace || (first == JSONGrammar.openBracket && map.arrayRecords) else {
            if first == JSONGrammar.openBracket {
                throw JSONSyntaxError(offset: p, message: "a record is an array, but the JSON mapping expects objects (use a JSONPaths file with $[n] paths for array records)")
            }
            throw JSONSyntaxError(offset: p, message: "expected '{' at the start of a JSON record")
        }
        return try value(b, p, end, node: 0, &newlines)
    }

    /// The value at `p` for trie node `node`: descend where the map goes deeper, note
    /// it for the node's columns. Returns the offset after the value.
    private mutating func value(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int, node: Int32,
                                _ newlines: inout Int) throws(JSONSyntaxError) -> Int {
        guard p < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected a value)") }
        var start = p, stop: Int, after: Int
        var kind: JSONValueKind
        switch b[p] {
        case JSONGrammar.openBrace:
            after = map.hasKeyChildren(node) ? try object(b, p, end, node: node, &newlines)
                                             : try JSONGrammar.skipValue(b, p, end, &newlines, &stack)
            stop = after
            kind = .nested
        case JSONGrammar.openBracket:
            after = map.hasIndexChildren(node) ? try array(b, p, end, node: node, &newlines)
                                               : try JSONGrammar.skipValue(b, p, end, &newlines, &stack)
            stop = after
            kind = .nested
        case JSONGrammar.quote:
            let s = try JSONGrammar.scanString(b, p, end)
            after = s.end
            start = p + 1
            stop = s.end - 1
            kind = s.escaped ? .escapedString : .string
        case 0x2D, 48...57:
            after = try JSONGrammar.scanNumber(b, p, end)
            stop = after
            kind = .scalar
        case 0x74, 0x66:
            after = try JSONGrammar.scanLiteral(b, p, end)
            stop = after
            kind = .scalar
        case 0x6E:
            after = try JSONGrammar.scanLiteral(b, p, end)
            stop = after
            kind = .null
        default:
            throw JSONGrammar.unexpected(b, p)
        }
        for c in map.columns(node) {
            let i = Int(c)
            slotStart[i] = start
            slotEnd[i] = stop
            slotKind[i] = kind
        }
        return after
    }

    /// An object whose members may feed columns (`node` has key children).
    private mutating func object(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int, node: Int32,
                                 _ newlines: inout Int) throws(JSONSyntaxError) -> Int {
        var q = JSONGrammar.skipWhitespace(b, p + 1, end, &newlines)
        guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (unclosed object)") }
        if b[q] == JSONGrammar.closeBrace { return q + 1 }
        var member = 0
        while true {
            guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected an object key)") }
            guard b[q] == JSONGrammar.quote else { throw JSONSyntaxError(offset: q, message: "expected a double-quoted object key") }
            let key = try JSONGrammar.scanString(b, q, end)
            let child = lookup(b, q + 1, key.end - 1, escaped: key.escaped, node: node, member: member)
            member += 1
            q = JSONGrammar.skipWhitespace(b, key.end, end, &newlines)
            guard q < end, b[q] == JSONGrammar.colon else {
                throw JSONSyntaxError(offset: min(q, end), message: "expected ':' after object key")
            }
            q = JSONGrammar.skipWhitespace(b, q + 1, end, &newlines)
            guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected a value)") }
            q = child >= 0 ? try value(b, q, end, node: child, &newlines)
                           : try JSONGrammar.skipValue(b, q, end, &newlines, &stack)
            q = JSONGrammar.skipWhitespace(b, q, end, &newlines)
            guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (unclosed object)") }
            if b[q] == JSONGrammar.comma {
                q = JSONGrammar.skipWhitespace(b, q + 1, end, &newlines)
                continue
            }
            if b[q] == JSONGrammar.closeBrace { return q + 1 }
            throw JSONSyntaxError(offset: q, message: "expected ',' or '}' in object")
        }
    }

    /// An array whose elements may feed columns (`node` has index children).
    private mutating func array(_ b: UnsafePointer<UInt8>, _ p: Int, _ end: Int, node: Int32,
                                _ newlines: inout Int) throws(JSONSyntaxError) -> Int {
        var q = JSONGrammar.skipWhitespace(b, p + 1, end, &newlines)
        guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (unclosed array)") }
        if b[q] == JSONGrammar.closeBracket { return q + 1 }
        var index = 0
        while true {
            guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (expected a value)") }
            let child = map.child(of: node, index: index)
            q = child >= 0 ? try value(b, q, end, node: child, &newlines)
                           : try JSONGrammar.skipValue(b, q, end, &newlines, &stack)
            index += 1
            q = JSONGrammar.skipWhitespace(b, q, end, &newlines)
            guard q < end else { throw JSONSyntaxError(offset: end, message: "unexpected end of input (unclosed array)") }
            if b[q] == JSONGrammar.comma {
                q = JSONGrammar.skipWhitespace(b, q + 1, end, &newlines)
                continue
            }
            if b[q] == JSONGrammar.closeBracket { return q + 1 }
            throw JSONSyntaxError(offset: q, message: "expected ',' or ']' in array")
        }
    }

    /// The trie child for the `member`-th key of an object at `node`, in `[start, stop)`
    /// (decoding escapes first), or -1.
    @inline(__always)
    private mutating func lookup(_ b: UnsafePointer<UInt8>, _ start: Int, _ stop: Int, escaped: Bool,
                                 node: Int32, member: Int) -> Int32 {
        let raw = UnsafeBufferPointer(start: b + start, count: stop - start)
        if !escaped {
            guard Int(node) < guessedNodes && member < Self.guessWidth else { return map.child(of: node, key: raw) }
            let slot = memberGuess + (Int(node) * Self.guessWidth + member)
            let guess = slot.pointee
            if guess >= 0 && map.entry(guess, is: raw, of: node) { return map.child(ofEntry: guess) }
            let e = map.entry(of: node, key: raw)
            slot.pointee = e
            return e < 0 ? -1 : map.child(ofEntry: e)
        }
        keyScratch.removeAll()
        let dst = keyScratch.reserveFree(raw.count)
        guard let n = JSONGrammar.unescape(raw, into: dst) else { return -1 }
        return map.child(of: node, key: UnsafeBufferPointer(start: dst, count: n))
    }
}
