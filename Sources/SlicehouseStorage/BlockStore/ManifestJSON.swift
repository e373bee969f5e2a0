// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Writes the manifest's and the commit records' JSON without `JSONEncoder` for the parts
/// every commit writes (tables, their columns, slices and blocks): Foundation's encoder
/// builds a tree of boxed values first and took a fifth of a single-row INSERT's CPU.
/// What it writes decodes with `JSONDecoder` to the same values as `JSONEncoder`'s output
/// (keys sorted as `.sortedKeys` sorts them; absent optionals omitted); rarer parts
/// (statistics, views, security, …) are `JSONEncoder`'s bytes spliced in.
struct ManifestJSON {
    private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written has a member yet (one entry per level).
    private var started: [Bool] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); started.append(false) }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); started.removeLast() }
    mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); started.append(false) }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); started.removeLast() }

    /// A member's key (the value follows with one of the value writers).
    mutating func key(_ k: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        // The value that follows is not a new member.
        started[started.count - 1] = false
        pendingValue = true
    }

    private var pendingValue = false

    private mutating func separate() {
        if pendingValue { pendingValue = false; started[started.count - 1] = true; return }
        guard !started.isEmpty else { return }
        if started[started.count - 1] { bytes.append(UInt8(ascii: ",")) }
        started[started.count - 1] = true
    }

    mutating func string(_ s: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var s = s
        let plain = s.withUTF8 { u -> Bool in
            // Most strings (base64, file names, zone bounds) need no escape: copied at once.
            guard !u.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: u)
            return true
        }
        if plain {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func int<T: BinaryInteger>(_ v: T) {
        separate()
        bytes.append(contentsOf: String(v).utf8)
    }

    mutating func bool(_ v: Bool) {
        separate()
        bytes.append(contentsOf: (v ? "true" : "false").utf8)
    }

    /// `Data(raw).base64EncodedString()`, without Foundation's detour.
    static func base64(_ raw: [UInt8]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity((raw.count + 2) / 3 * 4)
        let table = Self.base64Digits
        var i = 0
        while i + 3 <= raw.count {
            let n = UInt32(raw[i]) << 16 | UInt32(raw[i + 1]) << 8 | UInt32(raw[i + 2])
            bytes.append(table[Int(n >> 18 & 63)]); bytes.append(table[Int(n >> 12 & 63)])
            bytes.append(table[Int(n >> 6 & 63)]); bytes.append(table[Int(n & 63)])
            i += 3
        }
        let left = raw.count - i
        if left > 0 {
            let n = UInt32(raw[i]) << 16 | (left == 2 ? UInt32(raw[i + 1]) << 8 : 0)
            bytes.append(table[Int(n >> 18 & 63)]); bytes.append(table[Int(n >> 12 & 63)])
            bytes.append(left == 2 ? table[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            bytes.append(UInt8(ascii: "="))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let base64Digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `value` as `JSONEncoder` (sorted keys) writes it.
    mutating func encoded<T: Encodable>(_ value: T) throws {
        separate()
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        bytes.append(contentsOf: try e.encode(value))
    }

    mutating func ints(_ v: [Int]) {
        beginArray()
        for x in v { int(x) }
        endArray()
    }
}

extension ManifestTable {
    /// This entry's JSON (`ManifestJSON`).
    func write(_ out: inout ManifestJSON) throws {
        out.beginObject()
        if let a = analyzed { out.key("analyzed"); try out.encoded(a) }
        out.key("columns"); out.beginArray()
        for c in columns { c.write(&out) }
        out.endArray()
        if let d = database { out.key("database"); out.string(d) }
        if let k = distKey { out.key("distKey"); out.int(k) }
        out.key("distStyle"); out.string(distStyle)
        if let e = encodings {
            out.key("encodings"); out.beginArray()
            for x in e { out.string(x) }
            out.endArray()
        }
        out.key("evenCursor"); out.int(evenCursor)
        out.key("id"); out.int(id)
        out.key("identityNext"); out.beginObject()
        for (c, v) in identityNext.sorted(by: { String($0.key) < String($1.key) }) {
            out.keyString(String(c)); out.int(v)
        }
        out.endObject()
        if let m = materializedView { out.key("materializedView"); try out.encoded(m) }
        if let m = modifications { out.key("modifications"); out.int(m) }
        out.key("name"); out.string(name)
        out.key("placement"); out.string(placement)
        out.key("primaryKey"); out.ints(primaryKey)
        if let r = refreshState { out.key("refreshState"); try out.encoded(r) }
        if let r = reorganizations { out.key("reorganizations"); out.int(r) }
        out.key("schema"); out.string(schema)
        out.key("slices"); out.beginArray()
        for s in slices { s.write(&out) }
        out.endArray()
        out.key("sortKey"); out.ints(sortKey)
        out.key("sortKeyKind"); out.string(sortKeyKind)
        out.key("uniqueKeys"); out.beginArray()
        for u in uniqueKeys { out.ints(u) }
        out.endArray()
        out.endObject()
    }
}

extension ManifestJSON {
    /// A member's key that is not a literal (a dictionary's).
    mutating func keyString(_ k: String) {
        string(k)
        bytes.append(UInt8(ascii: ":"))
        started[started.count - 1] = false
        pendingValue = true
    }
}

extension ManifestColumn {
    func write(_ out: inout ManifestJSON) {
        out.beginObject()
        if let d = defaultSQL { out.key("defaultSQL"); out.string(d) }
        if let e = encoding { out.key("encoding"); out.string(e) }
        if let s = identitySeed { out.key("identitySeed"); out.int(s) }
        if let s = identityStep { out.key("identityStep"); out.int(s) }
        out.key("name"); out.string(name)
        out.key("notNull"); out.bool(notNull)
        if let p = precision { out.key("precision"); out.int(p) }
        out.key("primaryKey"); out.bool(primaryKey)
        if let r = references { out.key("references"); out.string(r) }
        if let s = scale { out.key("scale"); out.int(s) }
        out.key("type"); out.string(type)
        out.key("unique"); out.bool(unique)
        out.endObject()
    }
}

extension ManifestSlice {
    func write(_ out: inout ManifestJSON) {
        out.beginObject()
        out.key("columns"); out.beginArray()
        for chain in columns {
            out.beginArray()
            for b in chain { b.write(&out) }
            out.endArray()
        }
        out.endArray()
        if let d = deletes { out.key("deletes"); out.string(d) }
        out.key("rows"); out.int(rows)
        out.key("sorted"); out.int(sorted)
        out.endObject()
    }
}

extension ManifestBlock {
    func write(_ out: inout ManifestJSON) {
        out.beginObject()
        if let d { out.key("d"); out.string(d) }
        out.key("e"); out.string(e)
        out.key("f"); out.string(f)
        if let hi { out.key("hi"); out.string(hi) }
        out.key("l"); out.int(l)
        if let lo { out.key("lo"); out.string(lo) }
        out.key("n"); out.int(n)
        out.key("o"); out.int(o)
        out.key("r"); out.int(r)
        if let tb { out.key("tb"); out.bool(tb) }
        out.key("z"); out.int(z)
        out.endObject()
    }
}
