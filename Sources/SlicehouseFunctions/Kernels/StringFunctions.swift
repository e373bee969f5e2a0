// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehousePlan

/// UTF-8 helpers on raw bytes.
package enum UTF8Bytes {
    /// True when every byte is ASCII (one byte per character).
    @inline(__always) package static func isASCII(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var acc: UInt8 = 0
        for b in p { acc |= b }
        return acc < 0x80
    }
    /// Number of characters (bytes that do not continue a character).
    @inline(__always) package static func count(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 0
        for b in p { n += (b & 0xC0) != 0x80 ? 1 : 0 }
        return n
    }
    /// Byte length of the character whose first byte is `b` (1 for stray bytes).
    @inline(__always) package static func width(_ b: UInt8) -> Int {
        if b < 0xC0 { return 1 }
        if b < 0xE0 { return 2 }
        if b < 0xF0 { return 3 }
        return 4
    }
    /// Byte offset of character `k` (0-based; the byte count when past the end).
    @inline(__always) package static func offset(ofChar k: Int, in p: UnsafeBufferPointer<UInt8>, ascii: Bool) -> Int {
        if k <= 0 { return 0 }
        if ascii { return min(k, p.count) }
        var i = 0, c = 0
        while i < p.count && c < k { i += min(width(p[i]), p.count - i); c += 1 }
        return i
    }
    /// Byte offsets where each character starts, plus the byte count at the end.
    package static func boundaries(_ p: UnsafeBufferPointer<UInt8>) -> [Int] {
        var r: [Int] = []
        r.reserveCapacity(p.count + 1)
        var i = 0
        while i < p.count { r.append(i); i += min(width(p[i]), p.count - i) }
        r.append(p.count)
        return r
    }
    /// First byte index of `needle` in `hay` at or after `from`, or nil; a needle of two
    /// bytes or more is screened by its first and last bytes (`find(_:in:from:probes:)`).
    @inline(__always) package static func find(_ needle: UnsafeBufferPointer<UInt8>, in hay: UnsafeBufferPointer<UInt8>, from: Int = 0) -> Int? {
        find(needle, in: hay, from: from, probes: (0, needle.count - 1))
    }

    /// First byte index of `needle` in `hay` at or after `from`, or nil.
    ///
    /// A needle of two bytes or more is looked for 16 positions at a time: the 16 bytes
    /// at each position's offset `probes.0` and the 16 at its offset `probes.1` (two
    /// offsets in the needle, `0 <= probes.0 < probes.1 < needle.count`; else its first
    /// and last bytes) are compared with the needle's bytes there in two vector compares
    /// (SSE2's 16-byte lanes). Only a step where some position agrees on both is looked
    /// at closer, 8 positions at a time (SWAR: one 64-bit load at each offset), and only
    /// the positions agreeing there are compared in full. Short strings (comments, names)
    /// pay no library call per candidate, and a position costs nothing more unless both
    /// of its probed bytes agree: probing bytes that are rare in text (`rareProbes`)
    /// keeps those few.
    @inline(__always) package static func find(_ needle: UnsafeBufferPointer<UInt8>, in hay: UnsafeBufferPointer<UInt8>,
                                       from: Int, probes: (Int, Int)) -> Int? {
        let m = needle.count, n = hay.count
        if m == 0 { return from <= n ? from : nil }
        if from < 0 || m > n - from { return nil }
        guard let hb = hay.baseAddress, let nb = needle.baseAddress else { return nil }
        let last = n - m
        var i = from
        if m >= 2 {
            let (p, q) = probes.0 >= 0 && probes.0 < probes.1 && probes.1 < m ? probes : (0, m - 1)
            let ones: UInt64 = 0x0101_0101_0101_0101, lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            let atP = ones &* UInt64(nb[p]), atQ = ones &* UInt64(nb[q])
            let raw = UnsafeRawPointer(hb)
            /// The first match at positions `at ... at + 7`, which all exist (`at + 7 <= last`):
            /// both 8-byte loads end at most 7 bytes past a needle's offset, inside the haystack.
            @inline(__always) func eight(_ at: Int) -> Int? {
                let x = (raw.loadUnaligned(fromByteOffset: at + p, as: UInt64.self) ^ atP)
                    | (raw.loadUnaligned(fromByteOffset: at + q, as: UInt64.self) ^ atQ)
                // A high bit for every zero byte of x and for no other byte: adding 0x7F
                // to each byte's low seven bits carries into its high bit unless they are
                // all zero, and no carry crosses into the next byte. (The shorter
                // `(x - ones) & ~x & highs` also flags a 0x01 byte above a zero byte,
                // whose probed bytes need not agree.)
                var z = ~(((x & lows) &+ lows) | x | lows)
                while z != 0 {
                    let k = at + z.trailingZeroBitCount >> 3
                    if m == 2 || memcmp(hb + k, nb, m) == 0 { return k }
                    z &= z &- 1
                }
                return nil
            }
            // Positions i ... i + 15 all exist: both 16-byte loads stay inside the haystack.
            let vp = SIMD16<UInt8>(repeating: nb[p]), vq = SIMD16<UInt8>(repeating: nb[q])
            while i + 15 <= last {
                let a = raw.loadUnaligned(fromByteOffset: i + p, as: SIMD16<UInt8>.self)
                let b = raw.loadUnaligned(fromByteOffset: i + q, as: SIMD16<UInt8>.self)
                if any((a .== vp) .& (b .== vq)) {
                    if let k = eight(i) { return k }
                    if let k = eight(i + 8) { return k }
                }
                i += 16
            }
            while i + 7 <= last {
                if let k = eight(i) { return k }
                i += 8
            }
        }
        // The few positions left after the 8-byte steps: byte by byte.
        if m >= 2 {
            let firstByte = nb[0]
            while i <= last {
                if hb[i] == firstByte && memcmp(hb + i + 1, nb + 1, m - 1) == 0 { return i }
                i += 1
            }
            return nil
        }
        let firstByte = Int32(nb[0])
        while i <= last {
            guard let hit = memchr(hb + i, firstByte, last - i + 1) else { return nil }
            let idx = UnsafeRawPointer(hb).distance(to: UnsafeRawPointer(hit))
            if m == 1 || memcmp(hb + idx + 1, nb + 1, m - 1) == 0 { return idx }
            i = idx + 1
        }
        return nil
    }

    /// Two offsets in `needle` (the lower first) whose bytes are the rarest in text by
    /// `textFrequency`, for `find`'s screen: TPC-H Q13's `special` is screened by its `p`
    /// and `c` instead of its first and last bytes, `s` and `l`, both common in English
    /// (its `NOT LIKE '%special%requests%'` over SF 1's 1.5 M comments, warm: 13.9 ms →
    /// 12.2). (0, count - 1) for two bytes or fewer.
    package static func rareProbes(_ needle: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
        let m = needle.count
        guard m > 2 else { return (0, max(0, m - 1)) }
        var best = 0, second = 1
        if textFrequency(needle[1]) < textFrequency(needle[0]) { (best, second) = (1, 0) }
        for k in 2..<m {
            let f = textFrequency(needle[k])
            if f < textFrequency(needle[best]) {
                second = best
                best = k
            } else if f < textFrequency(needle[second]) {
                second = k
            }
        }
        return (min(best, second), max(best, second))
    }

    /// How common byte `b` is in text, on a scale where higher is commoner: the space,
    /// then lower-case letters by their frequency in English, punctuation, digits and
    /// capitals; control and non-ASCII bytes rarest. Only the order matters.
    package static func textFrequency(_ b: UInt8) -> Int {
        switch b {
        case 0x20: return 255
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            // e t a o i n s h r d l c u m w f g y p b v k j x q z, commonest first.
            let order: StaticString = "etaoinshrdlcumwfgypbvkjxqz"
            return order.withUTF8Buffer { o in
                for (k, c) in o.enumerated() where c == b { return 250 - 4 * k }
                return 100
            }
        case UInt8(ascii: "."), UInt8(ascii: ","): return 180
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 120
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return 60 + textFrequency(b | 0x20) / 4
        case 0x21...0x7E: return 90
        default: return 20
        }
    }
}

/// String functions on UTF-8 bytes (character semantics, ASCII fast paths).
package enum StringKernels {

    /// Run `body` for every valid row, building a string result. Strict: any NULL
    /// argument gives NULL.
    package static func mapRows(_ args: [Vector], n: Int, resultType: DataType,
                        _ body: (Int, inout StringBuilder) throws -> Void) throws -> Vector {
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(args)
        var out = StringBuilder(rows: len, bytes: len * 16)
        for i in 0..<len {
            if Kern.valid(validity, i) { try body(i, &out) }
            out.finishRow()
        }
        return Kern.result(resultType, .string(out.array), validity: validity, constant: constant)
    }

    /// Run `body` for every valid row, building an integer result.
    package static func mapRowsInt(_ args: [Vector], n: Int, resultType: DataType, _ body: (Int) throws -> Int64) throws -> Vector {
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(args)
        var out = [Int64](filled: 0, count: len)
        for i in 0..<len where Kern.valid(validity, i) { out[i] = try body(i) }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    /// Bytes of row `i` of a string input.
    @inline(__always)
    package static func with<R>(_ s: StringInput, _ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let r = s.range(i)
        return try s.array.bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[r])) }
    }

    /// Strings as string inputs (the registry casts other types to VARCHAR; casts here are defensive).
    package static func input(_ v: Vector) throws -> StringInput {
        if v.type.isString || v.type.isArray { return try StringInput(v) }
        return try StringInput(CastKernels.cast(v, to: .varchar(TypeRules.stringLength(v.type))))
    }
    package static func intInput(_ v: Vector) throws -> IntInput {
        if v.type.physical == .int64 && !v.type.isDecimal { return try IntInput(v) }
        return try IntInput(CastKernels.cast(v, to: .bigint))
    }

    package static let maxResultBytes = DataType.maxVarcharLength
    package static func tooLarge() -> SQLError { SQLError(.invalidParameter, "requested length too large") }

    // MARK: - Concatenation

    /// `a || b` and CONCAT(a, b): NULL when either is NULL (Redshift).
    package static func concat(_ a: Vector, _ b: Vector, resultType: DataType, n: Int) throws -> Vector {
        let x = try input(a), y = try input(b)
        return try mapRows([a, b], n: n, resultType: resultType) { i, out in
            with(x, i) { out.append($0) }
            with(y, i) { out.append($0) }
        }
    }

    // MARK: - Case mapping

    package enum CaseMap { case upper, lower, initcap }

    package static func mapCase(_ v: Vector, _ mode: CaseMap, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(v)
        return try mapRows([v], n: n, resultType: resultType) { i, out in
            with(s, i) { p in appendCase(p, mode, to: &out) }
        }
    }

    @inline(__always) package static func isAlnumASCII(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
    }

    package static func appendCase(_ p: UnsafeBufferPointer<UInt8>, _ mode: CaseMap, to out: inout StringBuilder) {
        if UTF8Bytes.isASCII(p) {
            switch mode {
            case .upper: for b in p { out.append(b >= 97 && b <= 122 ? b - 32 : b) }
            case .lower: for b in p { out.append(b >= 65 && b <= 90 ? b + 32 : b) }
            case .initcap:
                var inWord = false
                for b in p {
                    if isAlnumASCII(b) {
                        if inWord { out.append(b >= 65 && b <= 90 ? b + 32 : b) } else { out.append(b >= 97 && b <= 122 ? b - 32 : b) }
                        inWord = true
                    } else {
                        out.append(b)
                        inWord = false
                    }
                }
            }
            return
        }
        let s = String(decoding: p, as: UTF8.self)
        switch mode {
        case .upper: out.append(contentsOf: s.uppercased().utf8)
        case .lower: out.append(contentsOf: s.lowercased().utf8)
        case .initcap:
            var inWord = false
            for ch in s {
                let alnum = ch.isLetter || ch.isNumber
                if alnum { out.append(contentsOf: (inWord ? ch.lowercased() : ch.uppercased()).utf8) } else { out.append(contentsOf: String(ch).utf8) }
                inWord = alnum
            }
        }
    }

    // MARK: - Lengths

    /// LEN/LENGTH/CHAR_LENGTH count characters: trailing blanks count in a VARCHAR and
    /// not in a CHAR (Redshift). OCTET_LENGTH counts bytes; a CHAR(n) value is n bytes
    /// (blank-padded).
    /// LENGTH and LEN count characters, OCTET_LENGTH bytes.
    package enum LengthKind: Sendable { case length, len, octetLength }

    package static func length(_ v: Vector, _ fn: LengthKind, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(v)
        var charWidth: Int? = nil
        if case .char(let w) = v.type { charWidth = w }
        let isChar = charWidth != nil
        return try mapRowsInt([v], n: n, resultType: resultType) { i in
            with(s, i) { p in
                switch fn {
                case .octetLength: return Int64(max(charWidth ?? 0, p.count))
                default:
                    var e = p.count
                    if isChar { while e > 0 && p[e - 1] == 32 { e -= 1 } }
                    return Int64(UTF8Bytes.count(UnsafeBufferPointer(rebasing: p[0..<e])))
                }
            }
        }
    }

    // MARK: - Substrings

    /// SUBSTRING(s, start [, count]) with PostgreSQL's rules (1-based characters; a
    /// start before 1 shortens the window; a negative count is an error).
    package static func substring(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), st = try intInput(args[1])
        let cnt: IntInput? = args.count > 2 ? try intInput(args[2]) : nil
        // A constant window over a column (`substring(c_phone FROM 1 FOR 2)`): byte ranges
        // from each row's prefix, copied into one buffer.
        if !s.constant, st.constant, cnt?.constant ?? true, !args.contains(where: Kern.isConstNull),
           s.array.count >= n {
            let start = st[0]
            var endChar = Int64.max
            var valid = true
            if let cnt {
                let c = cnt[0]
                if c < 0 { valid = false }
                let (e, o) = start.addingReportingOverflow(c)
                endChar = o ? Int64.max : e
            }
            let from = max(start, 1)
            if valid && endChar > from {
                let skip = Int(min(from - 1, Int64(Int32.max)))
                let stop = endChar == Int64.max ? Int.max : Int(min(endChar - 1, Int64(Int32.max)))
                let validity = Kern.combinedValidity(args)
                let out = substringWindow(s.array, count: n, skip: skip, stop: stop, validity: validity)
                return Kern.result(resultType, .string(out), validity: validity, constant: false)
            }
        }
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            let start = st[i]
            var endChar = Int64.max   // exclusive, 1-based
            if let cnt {
                let c = cnt[i]
                if c < 0 { throw SQLError(.invalidParameter, "negative substring length not allowed") }
                let (e, o) = start.addingReportingOverflow(c)
                endChar = o ? Int64.max : e
            }
            let from = max(start, 1)
            if endChar <= from { return }
            with(s, i) { p in
                let ascii = UTF8Bytes.isASCII(p)
                let b0 = UTF8Bytes.offset(ofChar: Int(min(from - 1, Int64(p.count))), in: p, ascii: ascii)
                let b1 = endChar == Int64.max ? p.count
                    : UTF8Bytes.offset(ofChar: Int(min(endChar - 1, Int64(p.count))), in: p, ascii: ascii)
                if b1 > b0 { out.append(UnsafeBufferPointer(rebasing: p[b0..<b1])) }
            }
        }
    }

    /// The characters `skip ..< stop` (0-based; `stop` may be `Int.max`) of the first `n`
    /// rows of `a`, empty for rows `validity` marks NULL. A row whose bytes before `stop`
    /// are ASCII (one byte per character) is cut at byte offsets without counting.
    package static func substringWindow(_ a: StringArray, count n: Int, skip: Int, stop: Int, validity: Validity?) -> StringArray {
        let base = n > 0 ? Int(a.offsets[0]) : 0
        let total = n > 0 ? Int(a.offsets[n]) - base : 0
        var offsets = [Int32](filled: 0, count: n + 1)
        var written = 0
        let bytes = [UInt8].building(capacity: max(total, 1), placeholder: 0) { outBuf, initialized in
            a.bytes.withUnsafeBufferPointer { inBuf in
                a.offsets.withUnsafeBufferPointer { off in
                    offsets.withUnsafeMutableBufferPointer { o in
                        guard let src = inBuf.baseAddress, let dst = outBuf.baseAddress else { return }
                        for i in 0..<n {
                            if let validity, !validity.isValid(i) {
                                o[i + 1] = Int32(truncatingIfNeeded: written)
                                continue
                            }
                            let st = Int(off[i]), len = Int(off[i + 1]) - st
                            let p = src + st
                            let need = min(len, stop)
                            var high: UInt8 = 0
                            var k = 0
                            while k < need { high |= p[k]; k += 1 }
                            let b0: Int, b1: Int
                            if high < 0x80 {
                                b0 = min(skip, len)
                                b1 = need
                            } else {
                                let row = UnsafeBufferPointer(start: p, count: len)
                                b0 = UTF8Bytes.offset(ofChar: skip, in: row, ascii: false)
                                b1 = stop == Int.max ? len : UTF8Bytes.offset(ofChar: stop, in: row, ascii: false)
                            }
                            if b1 > b0 {
                                (dst + written).update(from: p + b0, count: b1 - b0)
                                written += b1 - b0
                            }
                            o[i + 1] = Int32(truncatingIfNeeded: written)
                        }
                    }
                }
            }
            initialized = written
        }
        return StringArray(rawBytes: bytes, rawOffsets: offsets)
    }

    /// LEFT(s, k) / RIGHT(s, k); a negative k drops |k| characters from the other end.
    package static func leftRight(_ args: [Vector], left: Bool, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), k = try intInput(args[1])
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                let ascii = UTF8Bytes.isASCII(p)
                let total = ascii ? p.count : UTF8Bytes.count(p)
                let kk = k[i]
                let keep: Int
                if kk >= 0 {
                    keep = Int(min(kk, Int64(total)))
                } else {
                    let drop = kk == Int64.min ? Int64(total) : min(-kk, Int64(total))
                    keep = total - Int(drop)
                }
                if left {
                    let e = UTF8Bytes.offset(ofChar: keep, in: p, ascii: ascii)
                    out.append(UnsafeBufferPointer(rebasing: p[0..<e]))
                } else {
                    let b = UTF8Bytes.offset(ofChar: total - keep, in: p, ascii: ascii)
                    out.append(UnsafeBufferPointer(rebasing: p[b...]))
                }
            }
        }
    }

    // MARK: - Search

    /// POSITION/STRPOS (s, sub) and CHARINDEX (sub, s): 1-based character index, 0 when absent.
    package static func position(_ args: [Vector], haystackFirst: Bool, resultType: DataType, n: Int) throws -> Vector {
        let h = try input(args[haystackFirst ? 0 : 1]), nd = try input(args[haystackFirst ? 1 : 0])
        return try mapRowsInt(args, n: n, resultType: resultType) { i in
            with(h, i) { hay in
                with(nd, i) { needle in
                    guard let at = UTF8Bytes.find(needle, in: hay) else { return 0 }
                    return Int64(UTF8Bytes.count(UnsafeBufferPointer(rebasing: hay[0..<at])) + 1)
                }
            }
        }
    }

    // MARK: - Trimming

    /// BTRIM/LTRIM/RTRIM with an optional set of characters (default: blanks).
    package enum TrimKind: Sendable { case btrim, ltrim, rtrim }

    package static func trim(_ args: [Vector], fn: TrimKind, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0])
        let chars: StringInput? = args.count > 1 ? try input(args[1]) : nil
        let leading = fn != .rtrim, trailing = fn != .ltrim
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                var b = 0, e = p.count
                if let chars {
                    with(chars, i) { set in
                        if UTF8Bytes.isASCII(set) {
                            var table = [Bool](filled: false, count: 128)
                            for c in set { table[Int(c)] = true }
                            if leading { while b < e && p[b] < 128 && table[Int(p[b])] { b += 1 } }
                            if trailing { while e > b && p[e - 1] < 128 && table[Int(p[e - 1])] { e -= 1 } }
                        } else {
                            // Character-level trimming for multi-byte sets.
                            let members = Set(String(decoding: set, as: UTF8.self).unicodeScalars.map { $0.value })
                            let bounds = UTF8Bytes.boundaries(p)
                            var lo = 0, hi = bounds.count - 1
                            func scalar(_ k: Int) -> UInt32 {
                                let bytes = UnsafeBufferPointer(rebasing: p[bounds[k]..<bounds[k + 1]])
                                return String(decoding: bytes, as: UTF8.self).unicodeScalars.first?.value ?? 0
                            }
                            if leading { while lo < hi && members.contains(scalar(lo)) { lo += 1 } }
                            if trailing { while hi > lo && members.contains(scalar(hi - 1)) { hi -= 1 } }
                            b = bounds[lo]; e = bounds[hi]
                        }
                    }
                } else {
                    if leading { while b < e && p[b] == 32 { b += 1 } }
                    if trailing { while e > b && p[e - 1] == 32 { e -= 1 } }
                }
                if e > b { out.append(UnsafeBufferPointer(rebasing: p[b..<e])) }
            }
        }
    }

    /// The values without their trailing blanks (ASCII spaces), as Redshift's compute nodes
    /// compare, group and join VARCHAR values (`Optimizer.trailingBlanksInsignificant`):
    /// `v` itself when no value ends in a blank, which is what a scan of real data finds.
    package static func withoutTrailingBlanks(_ v: Vector, n: Int) throws -> Vector {
        guard case .string(let s) = v.data else { return v }
        let rows = min(v.isConstant ? 1 : n, s.offsets.count - 1)
        var blankEnded = false
        s.offsets.withUnsafeBufferPointer { o in
            s.bytes.withUnsafeBufferPointer { b in
                for i in 0..<rows {
                    let e = Int(o[i + 1])
                    if e > Int(o[i]) && b[e - 1] == 32 { blankEnded = true; break }
                }
            }
        }
        if !blankEnded { return v }
        var out = StringBuilder(rows: rows, bytes: s.bytes.count)
        s.offsets.withUnsafeBufferPointer { o in
            s.bytes.withUnsafeBufferPointer { b in
                for i in 0..<rows {
                    let start = Int(o[i])
                    var e = Int(o[i + 1])
                    while e > start && b[e - 1] == 32 { e -= 1 }
                    if e > start { out.append(UnsafeBufferPointer(rebasing: b[start..<e])) }
                    out.finishRow()
                }
            }
        }
        return Vector(type: v.type, data: .string(out.array), validity: v.validity, isConstant: v.isConstant)
    }

    // MARK: - Padding, repetition, reversal

    /// LPAD/RPAD(s, length [, fill]): characters; a longer s is truncated to `length`.
    package static func pad(_ args: [Vector], left: Bool, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), k = try intInput(args[1])
        let fill: StringInput? = args.count > 2 ? try input(args[2]) : nil
        let blank: [UInt8] = [32]
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            let target = k[i]
            if target <= 0 { return }
            if target > Int64(maxResultBytes) { throw tooLarge() }
            let want = Int(target)
            try with(s, i) { p in
                let ascii = UTF8Bytes.isASCII(p)
                let have = ascii ? p.count : UTF8Bytes.count(p)
                if have >= want {
                    out.append(UnsafeBufferPointer(rebasing: p[0..<UTF8Bytes.offset(ofChar: want, in: p, ascii: ascii)]))
                    return
                }
                func appendFill(_ f: UnsafeBufferPointer<UInt8>) {
                    let fb = UTF8Bytes.boundaries(f)
                    let fc = fb.count - 1
                    if fc == 0 { return }
                    var need = want - have
                    while need > 0 {
                        let take = min(need, fc)
                        out.append(UnsafeBufferPointer(rebasing: f[0..<fb[take]]))
                        need -= take
                    }
                }
                func appendPadding() {
                    if let fill { with(fill, i) { appendFill($0) } } else { blank.withUnsafeBufferPointer { appendFill($0) } }
                }
                if left { appendPadding(); out.append(p) } else { out.append(p); appendPadding() }
                if out.currentRowLength > maxResultBytes * 4 { throw tooLarge() }
            }
        }
    }

    package static func repeatString(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), k = try intInput(args[1])
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            let times = k[i]
            if times <= 0 { return }
            try with(s, i) { p in
                if p.isEmpty { return }
                if Int64(p.count).multipliedReportingOverflow(by: times).partialValue > Int64(maxResultBytes)
                    || Int64(p.count).multipliedReportingOverflow(by: times).overflow { throw tooLarge() }
                for _ in 0..<Int(times) { out.append(p) }
            }
        }
    }

    package static func reverse(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(v)
        return try mapRows([v], n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                if UTF8Bytes.isASCII(p) {
                    var k = p.count
                    while k > 0 { k -= 1; out.append(p[k]) }
                    return
                }
                let b = UTF8Bytes.boundaries(p)
                var k = b.count - 1
                while k > 0 { out.append(UnsafeBufferPointer(rebasing: p[b[k - 1]..<b[k]])); k -= 1 }
            }
        }
    }

    // MARK: - Replacement

    /// REPLACE(s, from, to): every occurrence of `from` (bytes) replaced.
    package static func replace(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), f = try input(args[1]), t = try input(args[2])
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                with(f, i) { from in
                    if from.isEmpty { out.append(p); return }
                    with(t, i) { to in
                        var pos = 0
                        while let at = UTF8Bytes.find(from, in: p, from: pos) {
                            out.append(UnsafeBufferPointer(rebasing: p[pos..<at]))
                            out.append(to)
                            pos = at + from.count
                        }
                        out.append(UnsafeBufferPointer(rebasing: p[pos...]))
                    }
                }
            }
        }
    }

    /// TRANSLATE(s, from, to): characters of `from` become the character at the same
    /// position of `to`, or are removed when `to` is shorter.
    package static func translate(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), f = try input(args[1]), t = try input(args[2])
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                with(f, i) { from in
                    with(t, i) { to in
                        let fs = Array(String(decoding: from, as: UTF8.self).unicodeScalars)
                        let ts = Array(String(decoding: to, as: UTF8.self).unicodeScalars)
                        var map: [UInt32: Unicode.Scalar?] = [:]
                        for (k, c) in fs.enumerated() where map[c.value] == nil {
                            map[c.value] = k < ts.count ? .some(ts[k]) : .some(nil)
                        }
                        for c in String(decoding: p, as: UTF8.self).unicodeScalars {
                            if let m = map[c.value] {
                                if let r = m { out.append(contentsOf: String(r).utf8) }
                            } else {
                                out.append(contentsOf: String(c).utf8)
                            }
                        }
                    }
                }
            }
        }
    }

    /// SPLIT_PART(s, delimiter, k): the k-th field (1-based); empty past the end.
    package static func splitPart(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), d = try input(args[1]), k = try intInput(args[2])
        return try mapRows(args, n: n, resultType: resultType) { i, out in
            let field = k[i]
            if field <= 0 { throw SQLError(.invalidParameter, "field position must be greater than zero") }
            with(s, i) { p in
                with(d, i) { delim in
                    if delim.isEmpty {
                        if field == 1 { out.append(p) }
                        return
                    }
                    var start = 0
                    var current: Int64 = 1
                    while current < field {
                        guard let at = UTF8Bytes.find(delim, in: p, from: start) else { return }
                        start = at + delim.count
                        current += 1
                    }
                    let end = UTF8Bytes.find(delim, in: p, from: start) ?? p.count
                    out.append(UnsafeBufferPointer(rebasing: p[start..<end]))
                }
            }
        }
    }

    // MARK: - Code points

    package static func ascii(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(v)
        return try mapRowsInt([v], n: n, resultType: resultType) { i in
            with(s, i) { p in
                guard let first = p.first else { return 0 }
                if first < 0x80 { return Int64(first) }
                let w = min(UTF8Bytes.width(first), p.count)
                let str = String(decoding: UnsafeBufferPointer(rebasing: p[0..<w]), as: UTF8.self)
                return Int64(str.unicodeScalars.first?.value ?? 0)
            }
        }
    }

    // MARK: - Quoting and bases

    /// QUOTE_IDENT: unquoted when the text reads back as itself (a lower-case letter or
    /// underscore, then lower-case letters, digits, `_` or `$`, not a reserved word).
    package static func quoteIdent(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(v)
        return try mapRows([v], n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                var plain = !p.isEmpty && (p[0] == UInt8(ascii: "_") || (p[0] >= 0x61 && p[0] <= 0x7A))
                if plain {
                    for b in p where !((b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x24) {
                        plain = false
                        break
                    }
                }
                if plain && !SQLKeywords.isReserved(String(decoding: p, as: UTF8.self)) { out.append(p); return }
                out.append(0x22)
                for b in p {
                    if b == 0x22 { out.append(0x22) }
                    out.append(b)
                }
                out.append(0x22)
            }
        }
    }

    /// `x = ANY(a)` with `a` an array's text form `{e1,e2,...}`: true when an element
    /// (unquoted, `\` escapes resolved) equals `x`'s text; false for no match; NULL when
    /// either is NULL or there is no match and an element is NULL.
    package static func arrayTextContains(_ x: Vector, _ a: Vector, resultType: DataType, n: Int) throws -> Vector {
        if Kern.isConstNull(x) || Kern.isConstNull(a) { return Kern.constNull(.boolean) }
        let xs = try input(x), arrays = try input(a)
        let constant = x.isConstant && a.isConstant
        let len = constant ? 1 : n
        var validity = constant ? nil : Kern.combinedValidity([x, a])
        var out = [Bool](filled: false, count: len)
        var unknown: [Int] = []
        for i in 0..<len where Kern.valid(validity, i) {
            let needle = with(xs, i) { Array($0) }
            var sawNull = false
            out[i] = with(arrays, i) { p in
                var found = false
                forEachArrayElement(p) { e, isNull in
                    if isNull { sawNull = true } else if e == needle { found = true }
                }
                return found
            }
            if !out[i] && sawNull { unknown.append(i) }
        }
        if !unknown.isEmpty {
            var v = validity ?? Validity(allValid: len)
            for i in unknown { v.setInvalid(i) }
            validity = v
        }
        return Kern.boolResult(out, validity: validity, constant: constant)
    }

    /// `ARRAY[e1, e2, ...]`'s text form from its elements' texts: `{1,2,NULL}`, an element
    /// quoted (`"a b"`, `\` before `"` and `\`) when it is empty, reads as NULL or holds
    /// a blank, comma, brace, quote or backslash. Never NULL itself.
    package static func arrayConstruct(_ elements: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let constant = elements.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let inputs = try elements.map { Kern.isConstNull($0) ? nil : try input($0) }
        var out = StringBuilder(rows: len, bytes: len * (2 + 4 * elements.count))
        // Bytes that make an element quoted: blank, tab, newline, comma, braces, quote, backslash.
        var special = [Bool](filled: false, count: 256)
        for b: UInt8 in [0x20, 0x09, 0x0A, 0x2C, 0x7B, 0x7D, 0x22, 0x5C] { special[Int(b)] = true }
        for i in 0..<len {
            out.append(0x7B)
            for (k, e) in elements.enumerated() {
                if k > 0 { out.append(0x2C) }
                guard let s = inputs[k], !e.isNull(e.isConstant ? 0 : i) else {
                    out.append(contentsOf: "NULL".utf8)
                    continue
                }
                with(s, i) { p in
                    let readsAsNull = p.count == 4 && (p[0] | 0x20) == 0x6E && (p[1] | 0x20) == 0x75
                        && (p[2] | 0x20) == 0x6C && (p[3] | 0x20) == 0x6C
                    let quote = p.isEmpty || readsAsNull || p.contains { special[Int($0)] }
                    if !quote { out.append(p); return }
                    out.append(0x22)
                    for b in p {
                        if b == 0x22 || b == 0x5C { out.append(0x5C) }
                        out.append(b)
                    }
                    out.append(0x22)
                }
            }
            out.append(0x7D)
            out.finishRow()
        }
        return Kern.result(resultType, .string(out.array), validity: nil, constant: constant)
    }

    /// ARRAY_TO_STRING over an array's text form.
    package static func arrayToString(_ a: Vector, _ sep: Vector, resultType: DataType, n: Int) throws -> Vector {
        let arrays = try input(a), seps = try input(sep)
        return try mapRows([a, sep], n: n, resultType: resultType) { i, out in
            let separator = with(seps, i) { Array($0) }
            var first = true
            with(arrays, i) { p in
                forEachArrayElement(p) { e, isNull in
                    if isNull { return }
                    if !first { out.append(contentsOf: separator) }
                    first = false
                    out.append(contentsOf: e)
                }
            }
        }
    }

    /// An array's text form (`{a,"b c",NULL}`) as a SUPER array of strings
    /// (`["a","b c",null]`): what `unnest` in FROM iterates over.
    package static func arrayTextToSuper(_ a: Vector, resultType: DataType, n: Int) throws -> Vector {
        let arrays = try input(a)
        return try mapRows([a], n: n, resultType: resultType) { i, out in
            out.append(0x5B)   // [
            var first = true
            with(arrays, i) { p in
                forEachArrayElement(p) { e, isNull in
                    if !first { out.append(0x2C) }
                    first = false
                    if isNull { out.append(contentsOf: "null".utf8); return }
                    appendJSONString(e, to: &out)
                }
            }
            out.append(0x5D)   // ]
        }
    }

    /// `_pg_expandarray`'s rows as a SUPER array of `{"x": element, "n": position}`
    /// objects: an element that reads as an integer is a number, any other a string. The
    /// input is an array's text form (`{1,3}`) or an int2vector's, numbers apart (`1 3`).
    package static func expandArray(_ a: Vector, resultType: DataType, n: Int) throws -> Vector {
        let arrays = try input(a)
        return try mapRows([a], n: n, resultType: resultType) { i, out in
            var elements: [(bytes: [UInt8], isNull: Bool)] = []
            with(arrays, i) { p in
                var k = 0
                while k < p.count && p[k] == 0x20 { k += 1 }
                if k < p.count && p[k] == 0x7B {
                    forEachArrayElement(p) { e, isNull in elements.append((e, isNull)) }
                } else {
                    for word in p.split(separator: 0x20) { elements.append((Array(word), false)) }
                }
            }
            out.append(0x5B)
            for (position, e) in elements.enumerated() {
                if position > 0 { out.append(0x2C) }
                out.append(contentsOf: "{\"x\":".utf8)
                let digits = e.bytes.first == 0x2D ? e.bytes.dropFirst() : e.bytes[...]
                let isInteger = !digits.isEmpty && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                    && !(digits.count > 1 && digits.first == 0x30)   // JSON numbers have no leading zero
                if e.isNull {
                    out.append(contentsOf: "null".utf8)
                } else if isInteger {
                    out.append(contentsOf: e.bytes)
                } else {
                    appendJSONString(e.bytes, to: &out)
                }
                out.append(contentsOf: ",\"n\":\(position + 1)}".utf8)
            }
            out.append(0x5D)
        }
    }

    /// `bytes` as a JSON string, quoted and escaped (SuperJSON's quoting).
    static func appendJSONString(_ bytes: [UInt8], to out: inout StringBuilder) {
        var quoted: [UInt8] = []
        bytes.withUnsafeBufferPointer { SuperJSON.appendQuoted($0, to: &quoted) }
        out.append(contentsOf: quoted)
    }

    /// ARRAY_UPPER / ARRAY_LOWER over an array's text form (one dimension).
    package static func arrayBound(_ a: Vector, _ dim: Vector, upper: Bool, resultType: DataType, n: Int) throws -> Vector {
        let arrays = try input(a), dims = try intInput(dim)
        var empty: [Int] = []
        var result = try mapRowsInt([a, dim], n: n, resultType: resultType) { i in
            var count = 0
            with(arrays, i) { p in forEachArrayElement(p) { _, _ in count += 1 } }
            if count == 0 || dims[i] != 1 { empty.append(i) }
            return upper ? Int64(count) : 1
        }
        if !empty.isEmpty {
            var v = result.validity ?? Validity(allValid: result.isConstant ? 1 : n)
            for i in empty { v.setInvalid(i) }
            result.validity = v
        }
        return result
    }

    /// `a[i]` over an array's text form: its i-th element (from 1), quotes and escapes
    /// removed; NULL past either end, for a NULL element or a NULL argument.
    package static func arrayElement(_ a: Vector, _ index: Vector, resultType: DataType, n: Int) throws -> Vector {
        var out = Vector(type: resultType, capacity: n)
        for i in 0..<n {
            guard case .string(let s) = a.value(at: a.isConstant ? 0 : i),
                  let k = index.value(at: index.isConstant ? 0 : i).asInt64, k >= 1 else {
                out.append(.null)
                continue
            }
            var found: Value = .null
            var position: Int64 = 0
            Array(s.utf8).withUnsafeBufferPointer { p in
                forEachArrayElement(p) { e, isNull in
                    position += 1
                    if position == k { found = isNull ? .null : .string(String(decoding: e, as: UTF8.self)) }
                }
            }
            out.append(found)
        }
        return out
    }

    /// Each element of an array's text form: its bytes and whether it is an unquoted NULL.
    static func forEachArrayElement(_ p: UnsafeBufferPointer<UInt8>, _ body: ([UInt8], Bool) -> Void) {
        var i = 0
        while i < p.count && p[i] == 0x20 { i += 1 }
        guard i < p.count, p[i] == 0x7B else { return }   // {
        i += 1
        var element: [UInt8] = [], quoted = false, inQuotes = false, any = false
        while i < p.count {
            let c = p[i]
            if inQuotes {
                if c == 0x5C, i + 1 < p.count { element.append(p[i + 1]); i += 2; continue }
                if c == 0x22 { inQuotes = false } else { element.append(c) }
                i += 1
                continue
            }
            switch c {
            case 0x22: inQuotes = true; quoted = true; any = true
            case 0x2C, 0x7D:   // , }
                if any || c == 0x2C {
                    let isNull = !quoted && element.count == 4 && element.map({ $0 | 0x20 }) == Array("null".utf8)
                    body(element, isNull)
                }
                if c == 0x7D { return }
                element = []; quoted = false; any = false
            case 0x20 where !any: break
            default: element.append(c); any = true
            }
            i += 1
        }
    }

    /// QUOTE_LITERAL: in single quotes, each quote and backslash inside doubled, so the
    /// result reads back as the value (literals read backslash escapes).
    package static func quoteLiteral(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let s = try input(v)
        return try mapRows([v], n: n, resultType: resultType) { i, out in
            with(s, i) { p in
                out.append(0x27)
                for b in p {
                    if b == 0x27 || b == 0x5C { out.append(b) }
                    out.append(b)
                }
                out.append(0x27)
            }
        }
    }

    /// STRTOL(s, base): blanks around, an optional sign, for base 16 an optional `0x`, then
    /// digits of the base (letters for 10 and up, either case). Anything else, a base
    /// outside 2...36 or a value past BIGINT is an error.
    package static func strtol(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try input(args[0]), base = try intInput(args[1])
        return try mapRowsInt(args, n: n, resultType: resultType) { i in
            let b = base[i]
            guard (2...36).contains(b) else { throw SQLError(.invalidParameter, "STRTOL base must be between 2 and 36, not \(b)") }
            return try with(s, i) { p -> Int64 in
                var k = 0, end = p.count
                while k < end && (p[k] == 0x20 || p[k] == 0x09) { k += 1 }
                while end > k && (p[end - 1] == 0x20 || p[end - 1] == 0x09) { end -= 1 }
                var negative = false
                if k < end && (p[k] == 0x2B || p[k] == 0x2D) { negative = p[k] == 0x2D; k += 1 }
                if b == 16, end - k > 2, p[k] == 0x30, p[k + 1] | 0x20 == 0x78 { k += 2 }
                func invalid() -> SQLError {
                    SQLError(.invalidText, "invalid input for STRTOL in base \(b): \"\(String(decoding: p, as: UTF8.self))\"")
                }
                guard k < end else { throw invalid() }
                var value: Int64 = 0
                while k < end {
                    let c = p[k] | (p[k] >= 0x41 && p[k] <= 0x5A ? 0x20 : 0)
                    let d: Int64
                    if c >= 0x30 && c <= 0x39 { d = Int64(c - 0x30) } else if c >= 0x61 && c <= 0x7A { d = Int64(c - 0x61 + 10) } else { throw invalid() }
                    guard d < b else { throw invalid() }
                    let (m, o1) = value.multipliedReportingOverflow(by: b)
                    let (a, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                    guard !o1 && !o2 else { throw SQLError(.numericOutOfRange, "value out of range for type bigint") }
                    value = a
                    k += 1
                }
                return value
            }
        }
    }

    /// PostgreSQL 15's pg_size_pretty: bytes below 10 kB, then each larger unit while the
    /// value (rounded half away from zero) stays below 20 of the next, up to PB.
    package static func sizePretty(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let k = try intInput(v)
        return try mapRows([v], n: n, resultType: resultType) { i, out in
            out.append(contentsOf: prettySize(k[i]).utf8)
        }
    }

    package static func prettySize(_ bytes: Int64) -> String {
        let limit: Int64 = 10 * 1024, limit2 = limit * 2 - 1
        func halfRounded(_ x: Int64) -> Int64 { (x + (x > 0 ? 1 : -1)) / 2 }
        if bytes.magnitude < UInt64(limit) { return "\(bytes) bytes" }
        var size = bytes / 512   // one extra bit for rounding
        for unit in ["kB", "MB", "GB", "TB"] {
            if size.magnitude < UInt64(limit2) { return "\(halfRounded(size)) \(unit)" }
            size /= 1024
        }
        return "\(halfRounded(size)) PB"
    }

    package static func chr(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let k = try intInput(v)
        return try mapRows([v], n: n, resultType: resultType) { i, out in
            let code = k[i]
            if code == 0 { throw SQLError(.invalidParameter, "null character not permitted") }
            guard code > 0, code <= 0x10FFFF, let scalar = Unicode.Scalar(UInt32(code)) else {
                throw SQLError(.invalidParameter, "requested character too large for encoding: \(code)")
            }
            out.append(contentsOf: String(scalar).utf8)
        }
    }
}
