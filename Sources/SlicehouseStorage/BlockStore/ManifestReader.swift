// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Reads a manifest's bulk — every table's slices and their blocks, which grow with the
/// data (an SF 10 database names tens of thousands of blocks) — by hand, and the rest
/// (catalog, security, statistics: what grows with the schema) with `JSONDecoder`.
///
/// `JSONDecoder` reads about 10 MB a second through `Codable`, so opening a large
/// database spent most of its time there. The reader walks the manifest's top level to
/// the `tables` array, reads each table's `slices` value where it stands (noting where it
/// lies), and hands `JSONDecoder` the manifest with those values emptied (`[]`).
///
/// It reads the JSON the manifest writer (`ManifestJSON`) and `JSONEncoder` write — keys
/// in any order, any whitespace, every string escape — and nothing looser: a number with
/// a fraction or an exponent, a key with an escape or unknown in a slice or block, a
/// string that is not UTF-8, a missing member or a value of another type makes it give
/// up (`nil`), and `JSONDecoder` reads the whole manifest instead, with its own errors.
/// So the hand reader never accepts what the decoder would refuse, nor reads it
/// differently. (The walk to the slices skips the other values loosely: `JSONDecoder`
/// reads every one of them afterwards.)
enum ManifestReader {
    /// The manifest in `body` (its JSON, inside the checksummed envelope), or nil when it
    /// is not in the shape the reader knows or does not decode (the caller's `JSONDecoder`
    /// then reads it whole and reports what is wrong).
    static func decode(_ body: ArraySlice<UInt8>) -> Manifest? {
        // Read in place: offsets below are the buffer's, from 0.
        body.withUnsafeBufferPointer { bytes in
            // One walk: each table's slices read where they stand, and where they stood.
            var cursor = JSONCursor(bytes)
            guard let found = try? cursor.tableSlices(), !found.isEmpty else { return nil }
            // The manifest without its slices: each `slices` value replaced by `[]`.
            var stripped: [UInt8] = []
            stripped.reserveCapacity(bytes.count - found.reduce(0) { $0 + $1.range.count } + 2 * found.count)
            var at = 0
            for f in found {
                stripped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at..<f.range.lowerBound]))
                stripped.append(UInt8(ascii: "["))
                stripped.append(UInt8(ascii: "]"))
                at = f.range.upperBound
            }
            stripped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at...]))
            guard var m = try? JSONDecoder().decode(Manifest.self, from: Data(stripped)), m.tables.count == found.count else {
                return nil
            }
            for i in m.tables.indices { m.tables[i].slices = found[i].slices }
            return m
        }
    }
}

/// The reader gives up: the JSON is not in the shape it reads (the decoder reads it).
struct ManifestShape: Error {}

/// A position in JSON bytes, and the few readings the manifest's slices need.
struct JSONCursor {
    private let p: UnsafeBufferPointer<UInt8>
    private(set) var i: Int
    private let end: Int
    /// The last block file name and encoding read (where its bytes are, and the string):
    /// consecutive blocks mostly repeat both, which are then not made into strings again.
    private var lastFile: (start: Int, count: Int, value: String)?
    private var lastEncoding: (start: Int, count: Int, value: String)?

    init(_ p: UnsafeBufferPointer<UInt8>, at start: Int = 0, end: Int? = nil) {
        self.p = p
        i = start
        self.end = end ?? p.count
    }

    var atEnd: Bool {
        mutating get { skipSpace(); return i == end }
    }

    // MARK: The manifest's layout

    /// Each element of the top-level `tables` array's `slices`, read, with where its value
    /// lies, in order; throws unless the whole text is one object.
    mutating func tableSlices() throws -> [(range: Range<Int>, slices: [ManifestSlice])] {
        var found: [(range: Range<Int>, slices: [ManifestSlice])] = []
        try object { cursor, key in
            guard Self.equal(key, "tables") else { return try cursor.skipValue() }
            try cursor.array { cursor in
                var read: (range: Range<Int>, slices: [ManifestSlice])?
                try cursor.object { cursor, key in
                    guard Self.equal(key, "slices") else { return try cursor.skipValue() }
                    cursor.skipSpace()
                    let start = cursor.i
                    let slices = try cursor.slices()
                    read = (start..<cursor.i, slices)
                }
                guard let read else { throw ManifestShape() }
                found.append(read)
            }
        }
        guard atEnd else { throw ManifestShape() }
        return found
    }

    /// A table's `slices` array.
    mutating func slices() throws -> [ManifestSlice] {
        var out: [ManifestSlice] = []
        try array { cursor in out.append(try cursor.slice()) }
        return out
    }

    private mutating func slice() throws -> ManifestSlice {
        var rows: Int?, sorted: Int?, columns: [[ManifestBlock]]?, deletes: String?
        try object { cursor, key in
            if Self.equal(key, "rows") {
                rows = try cursor.int()
            } else if Self.equal(key, "sorted") {
                sorted = try cursor.int()
            } else if Self.equal(key, "deletes") {
                deletes = try cursor.optionalString()
            } else if Self.equal(key, "columns") {
                var chains: [[ManifestBlock]] = []
                try cursor.array { cursor in
                    var chain: [ManifestBlock] = []
                    try cursor.array { cursor in chain.append(try cursor.block()) }
                    chains.append(chain)
                }
                columns = chains
            } else {
                throw ManifestShape()
            }
        }
        guard let rows, let sorted, let columns else { throw ManifestShape() }
        return ManifestSlice(rows: rows, sorted: sorted, columns: columns, deletes: deletes)
    }

    private mutating func block() throws -> ManifestBlock {
        var f: String?, e: String?, o: Int?, l: Int?, r: Int?, n: Int?, z: Int?
        var lo: ManifestBlock.ZoneText?, hi: ManifestBlock.ZoneText?, tb: Bool?, d: String?
        try object { cursor, key in
            switch key.count {
            case 1:
                switch key[key.startIndex] {
                case UInt8(ascii: "f"): f = try cursor.repeatedString(file: true)
                case UInt8(ascii: "e"): e = try cursor.repeatedString(file: false)
                case UInt8(ascii: "o"): o = try cursor.int()
                case UInt8(ascii: "l"): l = try cursor.int()
                case UInt8(ascii: "r"): r = try cursor.int()
                case UInt8(ascii: "n"): n = try cursor.int()
                case UInt8(ascii: "z"): z = try cursor.int()
                case UInt8(ascii: "d"): d = try cursor.optionalString()
                default: throw ManifestShape()
                }
            case 2:
                if Self.equal(key, "lo") {
                    lo = try cursor.zoneText()
                } else if Self.equal(key, "hi") {
                    hi = try cursor.zoneText()
                } else if Self.equal(key, "tb") {
                    tb = try cursor.optionalBool()
                } else {
                    throw ManifestShape()
                }
            default:
                throw ManifestShape()
            }
        }
        guard let f, let e, let o, let l, let r, let n, let z else { throw ManifestShape() }
        return ManifestBlock(f: f, o: o, l: l, e: e, r: r, n: n, z: z, low: lo, high: hi, tb: tb, d: d)
    }

    /// A zone bound's string or null: the bound read from the bytes when they are exactly
    /// what `ZoneBound.encoded` writes (no escapes), else the string as `string()` reads it.
    private mutating func zoneText() throws -> ManifestBlock.ZoneText? {
        skipSpace()
        if literal("null") { return nil }
        if i < end, p[i] == UInt8(ascii: "\"") {
            var k = i + 1
            while k < end, p[k] != UInt8(ascii: "\""), p[k] != UInt8(ascii: "\\"), p[k] >= 0x20 { k += 1 }
            if k < end, p[k] == UInt8(ascii: "\""),
               let bound = ZoneBound(canonical: UnsafeBufferPointer(rebasing: p[(i + 1)..<k])) {
                i = k + 1
                return .bound(bound)
            }
        }
        return .text(try string())
    }

    // MARK: JSON

    /// Each member of an object: `body` reads its value, given the key's bytes.
    mutating func object(_ body: (inout JSONCursor, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        skipSpace()
        if peek() == UInt8(ascii: "}") { i += 1; return }
        while true {
            let key = try plainKey()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            skipSpace()
            guard i < end else { throw ManifestShape() }
            let c = p[i]
            i += 1
            if c == UInt8(ascii: "}") { return }
            guard c == UInt8(ascii: ",") else { throw ManifestShape() }
        }
    }

    /// Each element of an array, read by `body`.
    mutating func array(_ body: (inout JSONCursor) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        skipSpace()
        if peek() == UInt8(ascii: "]") { i += 1; return }
        while true {
            try body(&self)
            skipSpace()
            guard i < end else { throw ManifestShape() }
            let c = p[i]
            i += 1
            if c == UInt8(ascii: "]") { return }
            guard c == UInt8(ascii: ",") else { throw ManifestShape() }
        }
    }

    /// A key without escapes, as its bytes (the manifest's keys are plain ASCII names).
    private mutating func plainKey() throws -> UnsafeBufferPointer<UInt8> {
        try expect(UInt8(ascii: "\""))
        let start = i
        while i < end {
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return UnsafeBufferPointer(rebasing: p[start..<(i - 1)])
            }
            guard c != UInt8(ascii: "\\"), c >= 0x20 else { throw ManifestShape() }
            i += 1
        }
        throw ManifestShape()
    }

    /// An integer: `-`? digits, no fraction or exponent, within `Int`.
    mutating func int() throws -> Int {
        skipSpace()
        var negative = false
        if i < end, p[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        let start = i
        var v = 0
        while i < end, p[i] >= UInt8(ascii: "0"), p[i] <= UInt8(ascii: "9") {
            let digit = Int(p[i] - UInt8(ascii: "0"))
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            guard !o1, !o2 else { throw ManifestShape() }
            v = s
            i += 1
        }
        let digits = i - start
        // JSON has no leading zeros, and nothing numeric may follow the digits.
        guard digits > 0, !(digits > 1 && p[start] == UInt8(ascii: "0")) else { throw ManifestShape() }
        if i < end, p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
            throw ManifestShape()
        }
        return v
    }

    mutating func optionalBool() throws -> Bool? {
        skipSpace()
        if literal("true") { return true }
        if literal("false") { return false }
        if literal("null") { return nil }
        throw ManifestShape()
    }

    mutating func optionalString() throws -> String? {
        skipSpace()
        if literal("null") { return nil }
        return try string()
    }

    /// A block's file name (`file`) or encoding, which often repeats the last one read: the
    /// same bytes (without escapes) give the same string without making it again.
    mutating func repeatedString(file: Bool) throws -> String {
        skipSpace()
        let last = file ? lastFile : lastEncoding
        let start = i + 1
        var k = start
        while k < end, p[k] != UInt8(ascii: "\""), p[k] != UInt8(ascii: "\\") { k += 1 }
        if k < end, p[k] == UInt8(ascii: "\""), i < end, p[i] == UInt8(ascii: "\""), let l = last, l.count == k - start,
           let base = p.baseAddress, memcmp(base + start, base + l.start, l.count) == 0 {
            i = k + 1
            return l.value
        }
        let value = try string()
        // Kept only when it was read without escapes (its bytes are the string's).
        if i == k + 1 {
            if file { lastFile = (start, k - start, value) } else { lastEncoding = (start, k - start, value) }
        }
        return value
    }

    /// A string, its escapes read; its bytes must be UTF-8.
    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = i
        while i < end {
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                guard let s = String(validating: UnsafeBufferPointer(rebasing: p[start..<(i - 1)]), as: UTF8.self) else {
                    throw ManifestShape()
                }
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            guard c >= 0x20 else { throw ManifestShape() }
            i += 1
        }
        // Escapes: the plain run so far, then byte by byte.
        var out = Array(p[start..<i])
        while i < end {
            let c = p[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else { throw ManifestShape() }
                return s
            case UInt8(ascii: "\\"):
                guard i < end else { throw ManifestShape() }
                let e = p[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by its low one.
                        guard i + 1 < end, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u") else { throw ManifestShape() }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw ManifestShape() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw ManifestShape()
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw ManifestShape() }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw ManifestShape()
                }
            default:
                guard c >= 0x20 else { throw ManifestShape() }
                out.append(c)
            }
        }
        throw ManifestShape()
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= end else { throw ManifestShape() }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = p[i]
            i += 1
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = v << 4 | UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = v << 4 | UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = v << 4 | UInt32(c - UInt8(ascii: "A") + 10)
            default: throw ManifestShape()
            }
        }
        return v
    }

    /// Step over one value of any kind (strings' escapes honoured, nesting matched).
    mutating func skipValue() throws {
        skipSpace()
        guard i < end else { throw ManifestShape() }
        switch p[i] {
        case UInt8(ascii: "\""):
            i += 1
            while i < end {
                let c = p[i]
                i += 1
                if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { return }
            }
            throw ManifestShape()
        case UInt8(ascii: "{"):
            try object { cursor, _ in try cursor.skipValue() }
        case UInt8(ascii: "["):
            try array { cursor in try cursor.skipValue() }
        default:
            // A number or a literal: up to the next delimiter.
            let start = i
            while i < end {
                let c = p[i]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c == 0x20 || c == 0x0A
                    || c == 0x0D || c == 0x09 { break }
                i += 1
            }
            guard i > start else { throw ManifestShape() }
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= end else { return false }
        let w = word.utf8Start
        for k in 0..<n where p[i + k] != w[k] { return false }
        i += n
        return true
    }

    private mutating func expect(_ c: UInt8) throws {
        skipSpace()
        guard i < end, p[i] == c else { throw ManifestShape() }
        i += 1
    }

    private func peek() -> UInt8? { i < end ? p[i] : nil }

    private mutating func skipSpace() {
        while i < end {
            let c = p[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    static func equal(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        guard key.count == n else { return false }
        let w = name.utf8Start
        for k in 0..<n where key[k] != w[k] { return false }
        return true
    }
}
