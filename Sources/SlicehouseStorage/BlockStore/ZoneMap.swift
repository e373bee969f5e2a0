// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// One end of a block's value range, in the column's physical form. Strings keep a
/// prefix of at most `ZoneBound.stringPrefix` bytes (Redshift keeps 8): a truncated
/// minimum is still a lower bound, and a block's maximum is compared by prefix.
public enum ZoneBound: Sendable, Equatable {
    case int(Int64)
    case int128(Int128)
    case double(Double)
    case bytes([UInt8])

    public static let stringPrefix = 16

    /// Text form for the manifest and STV_BLOCKLIST.
    public var encoded: String {
        switch self {
        case .int(let v): return "i\(v)"
        case .int128(let v): return "w\(v)"
        case .double(let v): return "d\(v.bitPattern)"
        case .bytes(let b):
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            var s = [UInt8](); s.reserveCapacity(b.count * 2 + 1)
            s.append(UInt8(ascii: "x"))
            for c in b { s.append(hex[Int(c >> 4)]); s.append(hex[Int(c & 15)]) }
            return String(decoding: s, as: UTF8.self)
        }
    }

    /// The bound whose `encoded` text is exactly `text`'s bytes (`i`, `d` and `x` forms:
    /// no sign but a minus, no leading zeros, lowercase hex), or nil — for any other text,
    /// `init(encoded:)` decides.
    init?(canonical text: UnsafeBufferPointer<UInt8>) {
        guard let tag = text.first else { return nil }
        let rest = UnsafeBufferPointer(rebasing: text[1...])
        /// Digits without a leading zero (but "0" itself), as a magnitude within `limit`.
        func magnitude(_ d: UnsafeBufferPointer<UInt8>, limit: UInt64) -> UInt64? {
            guard !d.isEmpty, d.count <= 20, d[0] != UInt8(ascii: "0") || d.count == 1 else { return nil }
            var v: UInt64 = 0
            for c in d {
                guard c >= 48, c <= 57 else { return nil }
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(UInt64(c - 48))
                guard !o1, !o2, a <= limit else { return nil }
                v = a
            }
            return v
        }
        switch tag {
        case UInt8(ascii: "i"):
            if rest.first == UInt8(ascii: "-") {
                guard let m = magnitude(UnsafeBufferPointer(rebasing: rest[1...]), limit: UInt64(Int64.max) + 1), m > 0 else { return nil }
                self = .int(m == UInt64(Int64.max) + 1 ? Int64.min : -Int64(m))
            } else {
                guard let m = magnitude(rest, limit: UInt64(Int64.max)) else { return nil }
                self = .int(Int64(m))
            }
        case UInt8(ascii: "d"):
            guard let m = magnitude(rest, limit: UInt64.max) else { return nil }
            self = .double(Double(bitPattern: m))
        case UInt8(ascii: "x"):
            guard rest.count % 2 == 0 else { return nil }
            func nib(_ c: UInt8) -> UInt8? {
                switch c {
                case 48...57: return c - 48
                case 97...102: return c - 87
                default: return nil
                }
            }
            var out = [UInt8](repeating: 0, count: rest.count / 2)
            var k = 0
            while k < rest.count {
                guard let h = nib(rest[k]), let l = nib(rest[k + 1]) else { return nil }
                out[k / 2] = h << 4 | l
                k += 2
            }
            self = .bytes(out)
        default:
            return nil
        }
    }

    public init?(encoded s: String) {
        guard let tag = s.first else { return nil }
        let rest = s.dropFirst()
        switch tag {
        case "i": guard let v = Int64(rest) else { return nil }; self = .int(v)
        case "w": guard let v = Int128(String(rest)) else { return nil }; self = .int128(v)
        case "d": guard let v = UInt64(rest) else { return nil }; self = .double(Double(bitPattern: v))
        case "x":
            // The same text either way: lowercase hex digits, two a byte.
            var text = s
            guard let bound = text.withUTF8({ ZoneBound(canonical: $0) }) else { return nil }
            self = bound
        default: return nil
        }
    }
}

/// Comparison of a column against a constant, as zone maps and encoded filters use it.
public enum ZoneOp: Sendable, Equatable {
    case eq, lt, le, gt, ge
}

/// One conjunct a scan may use to skip blocks: `column op constant`, or
/// `column IN (constants)`. The scan still applies the full filter to the rows it reads.
public struct ZonePredicate: Sendable, Equatable {
    public var column: Int
    public var ops: [(ZoneOp, ZoneBound)]  // all must hold (BETWEEN = ge + le)
    public var inList: [ZoneBound]?        // any may hold
    /// `column IS NULL` (no ops, no list): a block may match when it holds a NULL. Only
    /// for zone maps whose null counts are exact — a table's own blocks — not for the
    /// statistics of other writers' files, which may leave them out.
    public var isNull: Bool

    public init(column: Int, ops: [(ZoneOp, ZoneBound)], inList: [ZoneBound]? = nil, isNull: Bool = false) {
        self.column = column; self.ops = ops; self.inList = inList; self.isNull = isNull
    }

    public static func == (a: ZonePredicate, b: ZonePredicate) -> Bool {
        a.column == b.column && a.inList == b.inList && a.isNull == b.isNull && a.ops.count == b.ops.count
            && zip(a.ops, b.ops).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// The constant of a predicate as a zone bound, for a column of `type`.
    public static func bound(_ v: Value, type: DataType) -> ZoneBound? {
        switch (type.physical, v) {
        case (.int64, .int(let x)): return .int(x)
        case (.int128, .int(let x)): return .int128(Int128(x))
        case (.int128, .int128(let x)): return .int128(x)
        case (.double, .double(let x)): return x.isNaN ? nil : .double(x)
        case (.double, .int(let x)): return .double(Double(x))
        case (.bool, .bool(let b)): return .int(b ? 1 : 0)
        case (.string, .string(let s)):
            let u = Array(s.utf8)
            return .bytes(u)
        default: return nil
        }
    }
}

/// A block's zone map: value count, NULL count and the range of its non-NULL values.
public struct ZoneMap: Sendable, Equatable {
    public var count: Int
    public var nullCount: Int
    public var min: ZoneBound?
    public var max: ZoneBound?
    /// Strings: whether some value may end in a blank (ASCII space). Redshift's compute
    /// nodes compare VARCHAR values without their trailing blanks; a column none of whose
    /// blocks holds such a value is compared as it is (`TableSnapshot.mayEndInBlank`).
    public var blankEnded: Bool

    public init(count: Int, nullCount: Int, min: ZoneBound?, max: ZoneBound?, blankEnded: Bool = false) {
        self.count = count; self.nullCount = nullCount; self.min = min; self.max = max
        self.blankEnded = blankEnded
    }

    /// Zone map of rows [start, start+count) of a flat vector.
    public static func compute(_ v: Vector, start: Int, count: Int) -> ZoneMap {
        var nulls = 0
        let validity = v.validity
        @inline(__always) func valid(_ i: Int) -> Bool { validity?.isValid(i) ?? true }
        if let validity { nulls = count - validity.validCount(from: start, count: count) }
        if nulls == count { return ZoneMap(count: count, nullCount: nulls, min: nil, max: nil) }
        switch v.data {
        case .int64(let a):
            var lo = Int64.max, hi = Int64.min
            a.withUnsafeBufferPointer { p in
                if let validity {
                    // A NULL row takes each side's identity: no branch per row.
                    validity.words.withUnsafeBufferPointer { w in
                        for i in start..<(start + count) {
                            let ok = (i >> 6) >= w.count || (w[i >> 6] >> UInt64(i & 63)) & 1 != 0
                            lo = Swift.min(lo, ok ? p[i] : .max)
                            hi = Swift.max(hi, ok ? p[i] : .min)
                        }
                    }
                } else {
                    for i in start..<(start + count) { let x = p[i]; if x < lo { lo = x }; if x > hi { hi = x } }
                }
            }
            return ZoneMap(count: count, nullCount: nulls, min: .int(lo), max: .int(hi))
        case .int128(let a):
            var lo = Int128.max, hi = Int128.min
            for i in start..<(start + count) where valid(i) { let x = a[i]; if x < lo { lo = x }; if x > hi { hi = x } }
            return ZoneMap(count: count, nullCount: nulls, min: .int128(lo), max: .int128(hi))
        case .double(let a):
            var lo = Double.infinity, hi = -Double.infinity
            var sawNaN = false, sawValue = false
            for i in start..<(start + count) where valid(i) {
                let x = a[i]
                if x.isNaN { sawNaN = true; continue }
                sawValue = true
                if x < lo { lo = x }
                if x > hi { hi = x }
            }
            // NaN sorts above every number: a block holding one has no usable upper bound.
            if sawNaN { hi = .nan }
            if !sawValue { return ZoneMap(count: count, nullCount: nulls, min: nil, max: nil) }
            return ZoneMap(count: count, nullCount: nulls, min: .double(lo), max: sawNaN ? nil : .double(hi))
        case .bool(let a):
            var lo: Int64 = 1, hi: Int64 = 0
            for i in start..<(start + count) where valid(i) { if a[i] { hi = 1 } else { lo = 0 } }
            return ZoneMap(count: count, nullCount: nulls, min: .int(lo), max: .int(hi))
        case .string(let s):
            // Indices of a smallest and a largest value. The bounds keep only the first
            // `ZoneBound.stringPrefix` (16) bytes, and cutting to a prefix keeps the order
            // (a <= b means prefix(a) <= prefix(b)), so values are compared by their
            // first 16 bytes alone: two big-endian words (zero padded) and the prefix
            // length, which breaks ties between "ab" and "ab\0".
            var lo: Int? = nil, hi: Int? = nil
            var blankEnded = false
            s.offsets.withUnsafeBufferPointer { o in
                s.bytes.withUnsafeBufferPointer { b in
                    guard let base = b.baseAddress else {
                        // No bytes at all: every value is empty.
                        var first = -1
                        for i in start..<(start + count) where valid(i) { first = i; break }
                        if first >= 0 { lo = first; hi = first }
                        return
                    }
                    // The first word (bytes 0..<8, zero padded) of a value of n bytes
                    // (n <= 16), with overlapping loads inside the value.
                    @inline(__always) func firstWord(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
                        if n >= 8 { return UInt64(bigEndian: p.loadUnaligned(as: UInt64.self)) }
                        if n >= 4 {
                            let a = UInt64(UInt32(bigEndian: p.loadUnaligned(as: UInt32.self)))
                            let b = UInt64(UInt32(bigEndian: p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)))
                            return a << 32 | b << (8 * (8 - n))
                        }
                        var w0: UInt64 = 0
                        if n > 0 { w0 |= UInt64(p.load(as: UInt8.self)) << 56 }
                        if n > 1 { w0 |= UInt64(p.load(fromByteOffset: 1, as: UInt8.self)) << 48 }
                        if n > 2 { w0 |= UInt64(p.load(fromByteOffset: 2, as: UInt8.self)) << 40 }
                        return w0
                    }
                    // The second word (bytes 8..<16, zero padded).
                    @inline(__always) func secondWord(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
                        if n <= 8 { return 0 }
                        let tail = UInt64(bigEndian: p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
                        return n == 16 ? tail : tail << (8 * (16 - n))
                    }
                    // A value whose first word lies strictly between those of the
                    // current extremes changes neither (the common case once a few
                    // values are seen); the rest compare both words as one 128-bit
                    // number, then the length between equal words.
                    var l = -1, h = -1
                    var lk: UInt128 = 0, hk: UInt128 = 0, ln = 0, hn = 0
                    var lw: UInt64 = 0, hw: UInt64 = 0
                    for i in start..<(start + count) where valid(i) {
                        let end = Int(o[i + 1])
                        if end > Int(o[i]) && b[end - 1] == 32 { blankEnded = true }
                        let n = Swift.min(end &- Int(o[i]), ZoneBound.stringPrefix)
                        let p = UnsafeRawPointer(base + Int(o[i]))
                        let w0 = firstWord(p, n)
                        if w0 > lw && w0 < hw { continue }
                        let k = UInt128(w0) << 64 | UInt128(secondWord(p, n))
                        if l < 0 { l = i; h = i; lk = k; hk = k; ln = n; hn = n; lw = w0; hw = w0; continue }
                        if k < lk || (k == lk && n < ln) {
                            l = i; lk = k; ln = n; lw = w0
                        } else if k > hk || (k == hk && n > hn) {
                            h = i; hk = k; hn = n; hw = w0
                        }
                    }
                    if l >= 0 { lo = l; hi = h }
                }
            }
            func prefix(_ i: Int?) -> ZoneBound? {
                guard let i else { return nil }
                let a = Int(s.offsets[i]), b = Int(s.offsets[i + 1])
                return .bytes(Array(s.bytes[a..<Swift.min(b, a + ZoneBound.stringPrefix)]))
            }
            return ZoneMap(count: count, nullCount: nulls, min: prefix(lo), max: prefix(hi), blankEnded: blankEnded)
        }
    }

    /// Zone map of `count` rows without NULLs whose distinct values are `distinct`.
    public static func compute(distinct: StringArray, type: DataType, count: Int) -> ZoneMap {
        var zone = compute(Vector(type: type, data: .string(distinct)), start: 0, count: distinct.count)
        zone.count = count
        return zone
    }

    /// Whether any row of the block may satisfy `p` (false = the block can be skipped).
    public func mayMatch(_ p: ZonePredicate) -> Bool {
        if p.isNull { return nullCount > 0 }
        if nullCount == count { return false }  // comparisons never hold for NULL
        guard let lo = min else { return true }
        let hi = max
        for (op, c) in p.ops where !Self.mayHold(op, c, lo, hi) { return false }
        if let list = p.inList {
            return list.contains { Self.mayHold(.eq, $0, lo, hi) }
        }
        return true
    }

    /// Whether `x op c` can hold for some x with lo <= x <= hi (hi nil: unbounded).
    static func mayHold(_ op: ZoneOp, _ c: ZoneBound, _ lo: ZoneBound, _ hi: ZoneBound?) -> Bool {
        // c < lo: no x equals or is below c; c > hi: no x equals or is above c.
        let belowMin = compare(c, lo, truncatedIsMax: false) < 0
        let aboveMax = hi.map { compare(c, $0, truncatedIsMax: true) > 0 } ?? false
        switch op {
        case .eq: return !belowMin && !aboveMax
        case .lt: return compare(lo, c, truncatedIsMax: false) < 0  // some x < c (stored lo <= true lo)
        case .le: return !belowMin
        case .gt: return hi.map { compare(c, $0, truncatedIsMax: true) < 0 || isPrefixBound($0) } ?? true
        case .ge: return !aboveMax
        }
    }

    /// String bounds are prefixes: treat them conservatively where equality matters.
    private static func isPrefixBound(_ b: ZoneBound) -> Bool {
        if case .bytes(let x) = b { return x.count >= ZoneBound.stringPrefix }
        return false
    }

    /// Three-way comparison of bounds of the same kind. For strings against a block's
    /// maximum (`truncatedIsMax`), the constant is cut to the stored prefix length, since
    /// the true maximum may be any string that starts with the stored prefix.
    static func compare(_ a: ZoneBound, _ b: ZoneBound, truncatedIsMax: Bool) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.int128(let x), .int128(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.int(let x), .int128(let y)): return Int128(x) < y ? -1 : (Int128(x) > y ? 1 : 0)
        case (.int128(let x), .int(let y)): return x < Int128(y) ? -1 : (x > Int128(y) ? 1 : 0)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.bytes(var x), .bytes(let y)):
            if truncatedIsMax, y.count >= ZoneBound.stringPrefix, x.count > y.count { x = Array(x[0..<y.count]) }
            return x.withUnsafeBufferPointer { xp in
                y.withUnsafeBufferPointer { yp in compareBytes(xp.baseAddress, xp.count, yp.baseAddress, yp.count) }
            }
        default: return 0  // mismatched kinds: never skip
        }
    }
}
