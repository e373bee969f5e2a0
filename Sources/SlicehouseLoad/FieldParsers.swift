// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SlicehouseTypes

/// Outcome of parsing a number from field bytes.
enum NumberParse<T> {
    case ok(T)
    /// Nothing but blanks (an empty field): NULL for non-string columns.
    case empty
    /// The byte at this 0-based offset in the field cannot be part of the number.
    case invalid(at: Int)
    case overflow
}

/// Allocation-free parsers from field bytes to typed values.
///
/// All of them accept surrounding blanks (space, tab), like Redshift does for
/// numbers, dates and booleans.
enum FieldParsers {
    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 32 || c == 9 }

    /// True when every byte is a blank (also for an empty field).
    @inline(__always) static func allBlank(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in b where !isBlank(c) { return false }
        return true
    }

    /// `[blanks][+|-]digits[blanks]` into an Int64 (range checks by the caller).
    @inline(__always)
    static func parseInteger(_ b: UnsafeBufferPointer<UInt8>) -> NumberParse<Int64> {
        var i = 0, n = b.count
        while i < n && isBlank(b[i]) { i += 1 }
        while n > i && isBlank(b[n - 1]) { n -= 1 }
        guard i < n else { return .empty }
        var neg = false
        if b[i] == 45 { neg = true; i += 1 } else if b[i] == 43 { i += 1 }
        guard i < n else { return .invalid(at: i) }
        var acc: UInt64 = 0
        if n - i <= 19 {
            // At most 19 digits stay below 10^19 < 2^64: no overflow checks per digit.
            while i < n {
                let d = b[i] &- 48
                guard d < 10 else { return .invalid(at: i) }
                acc = acc &* 10 &+ UInt64(d)
                i += 1
            }
        } else {
            var overflow = false
            while i < n {
                let d = b[i] &- 48
                guard d < 10 else { return .invalid(at: i) }
                let (m, o1) = acc.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(UInt64(d))
                overflow = overflow || o1 || o2
                acc = a
                i += 1
            }
            if overflow { return .overflow }
        }
        if neg {
            if acc > UInt64(Int64.max) + 1 { return .overflow }
            return .ok(acc == UInt64(Int64.max) + 1 ? Int64.min : -Int64(acc))
        }
        if acc > UInt64(Int64.max) { return .overflow }
        return .ok(Int64(acc))
    }

    /// A decimal of precision <= 18 as `value * 10^scale`. Plain `[-]ddd[.ddd]` is parsed
    /// here; exponents and other rare forms go through `DecimalMath.parse`. Extra
    /// fractional digits are truncated, or rounded half away from zero when `round`.
    @inline(__always)
    static func parseDecimal64(_ b: UnsafeBufferPointer<UInt8>, precision: Int, scale: Int, round: Bool) -> NumberParse<Int64> {
        // Fast path for the usual shape: `[-]digits.digits` with exactly `scale`
        // fraction digits and at most 18 digits in all. Anything else, and anything
        // that fails a check here, takes the general path below.
        let n = b.count
        if scale > 0, n >= scale + 2, let base = b.baseAddress, base[n - scale - 1] == 46 {
            let neg = base[0] == 45
            let first = neg ? 1 : 0, dot = n - scale - 1
            if dot > first && n - first - 1 <= 18 {
                let whole = wholeDigits(base, first..<dot)
                var acc = whole.value, digits = whole.digits
                for k in (dot + 1)..<n {
                    let d = base[k] &- 48
                    digits = digits && d < 10
                    acc = acc &* 10 &+ UInt64(d)
                }
                if digits {
                    if dot - first - whole.leadingZeros > precision - scale { return .overflow }
                    return .ok(neg ? -Int64(acc) : Int64(acc))
                }
            }
        } else if n > 0, let base = b.baseAddress {
            // A whole number, `[-]digits` (how TPC-H writes l_quantity), of at most 18
            // digits with the scale's zeros: the value times 10^scale.
            let neg = base[0] == 45
            let first = neg ? 1 : 0
            if n > first && n - first + scale <= 18 {
                let (acc, digits, leadingZeros) = wholeDigits(base, first..<n)
                if digits {
                    if n - first - leadingZeros > precision - scale { return .overflow }
                    let v = acc &* pow10(scale)
                    return .ok(neg ? -Int64(v) : Int64(v))
                }
            }
        }
        return parseDecimal64General(b, precision: precision, scale: scale, round: round)
    }

    /// The bytes of `range` (at most 18) as a number, read without a branch per byte:
    /// whether every one is a digit, and how many leading zeros there are.
    @inline(__always)
    static func wholeDigits(_ base: UnsafePointer<UInt8>, _ range: Range<Int>)
        -> (value: UInt64, digits: Bool, leadingZeros: Int) {
        var acc: UInt64 = 0
        var digits = true
        var leadingZeros = 0, seenNonZero = false
        for k in range {
            let d = base[k] &- 48
            digits = digits && d < 10
            seenNonZero = seenNonZero || d != 0
            leadingZeros &+= seenNonZero ? 0 : 1
            acc = acc &* 10 &+ UInt64(d)
        }
        return (acc, digits, leadingZeros)
    }

    /// `parseDecimal64` for every accepted form (blanks, signs, any number of fraction
    /// digits, exponents through `DecimalMath`).
    static func parseDecimal64General(_ b: UnsafeBufferPointer<UInt8>, precision: Int, scale: Int, round: Bool) -> NumberParse<Int64> {
        var i = 0, n = b.count
        while i < n && isBlank(b[i]) { i += 1 }
        while n > i && isBlank(b[n - 1]) { n -= 1 }
        guard i < n else { return .empty }
        var neg = false
        if b[i] == 45 { neg = true; i += 1 } else if b[i] == 43 { i += 1 }
        var acc: UInt64 = 0
        var significant = 0
        var sawDigit = false
        while i < n {
            let d = b[i] &- 48
            if d >= 10 { break }
            if acc != 0 || d != 0 {
                significant += 1
                if significant > 18 { return overflowOrInvalid(b) }
            }
            acc = acc &* 10 &+ UInt64(d)
            sawDigit = true
            i += 1
        }
        var frac: UInt64 = 0
        var fracDigits = 0
        var roundUp = false
        if i < n && b[i] == 46 {
            i += 1
            while i < n {
                let d = b[i] &- 48
                if d >= 10 { break }
                if fracDigits < scale { frac = frac &* 10 &+ UInt64(d) }
                else if fracDigits == scale && round { roundUp = d >= 5 }
                fracDigits += 1
                sawDigit = true
                i += 1
            }
        }
        if i < n {
            if b[i] == 101 || b[i] == 69 { return viaDecimalMath(b, precision: precision, scale: scale, round: round) }
            return .invalid(at: i)
        }
        guard sawDigit else { return .invalid(at: min(i, b.count - 1)) }
        if significant > precision - scale { return .overflow }
        let filled = min(fracDigits, scale)
        var v = acc &* pow10(scale) &+ frac &* pow10(scale - filled)
        if roundUp {
            v &+= 1
            if v > pow10(precision) - 1 { return .overflow }
        }
        return .ok(neg ? -Int64(v) : Int64(v))
    }

    /// 10^k for 0 <= k <= 19.
    @inline(__always) static func pow10(_ k: Int) -> UInt64 {
        var v: UInt64 = 1
        for _ in 0..<k { v &*= 10 }
        return v
    }

    /// More than 18 significant digits: an overflow for a 64-bit decimal if the rest is
    /// well-formed, otherwise an invalid digit.
    static func overflowOrInvalid(_ b: UnsafeBufferPointer<UInt8>) -> NumberParse<Int64> {
        if let bad = firstNonNumeric(b) { return .invalid(at: bad) }
        return .overflow
    }

    static func viaDecimalMath(_ b: UnsafeBufferPointer<UInt8>, precision: Int, scale: Int, round: Bool) -> NumberParse<Int64> {
        switch parseDecimal128(b, precision: precision, scale: scale, round: round) {
        case .ok(let v): return .ok(Int64(truncatingIfNeeded: v))
        case .empty: return .empty
        case .invalid(let at): return .invalid(at: at)
        case .overflow: return .overflow
        }
    }

    /// Any decimal (precision up to 38) via `DecimalMath.parse`.
    static func parseDecimal128(_ b: UnsafeBufferPointer<UInt8>, precision: Int, scale: Int, round: Bool) -> NumberParse<Int128> {
        if allBlank(b) { return .empty }
        switch DecimalMath.parse(b, scale: scale, precision: precision, round: round) {
        case .ok(let v): return .ok(v)
        case .overflow: return .overflow
        case .invalid: return .invalid(at: firstNonNumeric(b) ?? 0)
        }
    }

    /// Offset of the first byte that breaks `[blanks][sign]digits[.digits][(e|E)[sign]digits][blanks]`.
    static func firstNonNumeric(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0, n = b.count
        while i < n && isBlank(b[i]) { i += 1 }
        while n > i && isBlank(b[n - 1]) { n -= 1 }
        if i == n { return i < b.count ? i : (b.isEmpty ? 0 : b.count - 1) }
        if b[i] == 45 || b[i] == 43 { i += 1 }
        var digits = 0
        while i < n, b[i] &- 48 < 10 { i += 1; digits += 1 }
        if i < n && b[i] == 46 {
            i += 1
            while i < n, b[i] &- 48 < 10 { i += 1; digits += 1 }
        }
        if digits == 0 { return min(i, b.count - 1) }
        if i < n && (b[i] == 101 || b[i] == 69) {
            i += 1
            if i < n && (b[i] == 45 || b[i] == 43) { i += 1 }
            var ed = 0
            while i < n, b[i] &- 48 < 10 { i += 1; ed += 1 }
            if ed == 0 { return min(i, b.count - 1) }
        }
        return i < n ? i : nil
    }

    /// A float (`1.5`, `-2e10`, `.5`, `NaN`, `Infinity`, `-inf`) as a Double.
    /// `.overflow` when a finite literal is too large for a double.
    static func parseDouble(_ b: UnsafeBufferPointer<UInt8>) -> NumberParse<Double> {
        var i = 0, n = b.count
        while i < n && isBlank(b[i]) { i += 1 }
        while n > i && isBlank(b[n - 1]) { n -= 1 }
        guard i < n else { return .empty }
        let start = i
        var neg = false
        if b[i] == 45 || b[i] == 43 { neg = b[i] == 45; i += 1 }
        // Special values.
        if i < n, b[i] | 0x20 == UInt8(ascii: "i") || b[i] | 0x20 == UInt8(ascii: "n") {
            if wordMatches(b, i, n, "infinity") || wordMatches(b, i, n, "inf") {
                return .ok(neg ? -Double.infinity : Double.infinity)
            }
            if wordMatches(b, i, n, "nan") { return .ok(Double.nan) }
            return .invalid(at: i)
        }
        // Validate the grammar first, so strtod never sees hex floats or junk.
        var digits = 0
        while i < n, b[i] &- 48 < 10 { i += 1; digits += 1 }
        if i < n && b[i] == 46 {
            i += 1
            while i < n, b[i] &- 48 < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return .invalid(at: min(i, n - 1)) }
        if i < n && (b[i] == 101 || b[i] == 69) {
            i += 1
            if i < n && (b[i] == 45 || b[i] == 43) { i += 1 }
            var ed = 0
            while i < n, b[i] &- 48 < 10 { i += 1; ed += 1 }
            guard ed > 0 else { return .invalid(at: min(i, n - 1)) }
        }
        guard i == n else { return .invalid(at: i) }
        let len = n - start
        let value: Double = withUnsafeTemporaryAllocation(of: CChar.self, capacity: len + 1) { tmp in
            guard let p = tmp.baseAddress else { return .nan }
            for k in 0..<len { p[k] = CChar(bitPattern: b[start + k]) }
            p[len] = 0
            return strtod(p, nil)
        }
        if value.isInfinite { return .overflow }
        return .ok(value)
    }

    @inline(__always)
    static func wordMatches(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ n: Int, _ word: StaticString) -> Bool {
        guard n - i == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for k in 0..<(n - i) where b[i + k] | 0x20 != w[k] { return false }
        return true
    }

    /// Days since 1970-01-01 for exactly `YYYY-MM-DD` (the common case); anything else
    /// goes to `DateTime.parseDate` (blanks, `/`, `YYYYMMDD`). The ten bytes are checked
    /// as two words and the calendar is arithmetic without branches, because dates in a
    /// file come in no order a branch predictor could learn.
    @inline(__always)
    static func parseISODate(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count == 10, let base = b.baseAddress else { return DateTime.parseDate(b) }
        let p = UnsafeRawPointer(base)
        let w = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))  // "YYYY-MM-"
        let t = UInt64(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt16.self)))  // "DD"
        guard (w >> 32) & 0xFF == 45, w >> 56 == 45 else { return DateTime.parseDate(b) }
        // Every digit byte c has c & 0xF0 == 0x30 and (c + 6) & 0xF0 == 0x30 (no carry
        // leaves a byte that passes the first test).
        let lanes: UInt64 = 0x00FF_FF00_FFFF_FFFF
        let high: UInt64 = 0xF0F0_F0F0_F0F0_F0F0, zeros: UInt64 = 0x3030_3030_3030_3030, six: UInt64 = 0x0606_0606_0606_0606
        guard w & high & lanes == zeros & lanes, (w &+ six) & high & lanes == zeros & lanes,
              t & 0xF0F0 == 0x3030, (t &+ 0x0606) & 0xF0F0 == 0x3030 else { return nil }
        @inline(__always) func digit(_ x: UInt64, _ k: UInt64) -> Int { Int((x >> (8 * k)) & 0x0F) }
        let year = digit(w, 0) * 1000 + digit(w, 1) * 100 + digit(w, 2) * 10 + digit(w, 3)
        let month = digit(w, 5) * 10 + digit(w, 6), day = digit(t, 0) * 10 + digit(t, 1)
        guard month >= 1 && month <= 12, day >= 1 else { return nil }
        guard year >= 1 else { return DateTime.parseDate(b) }
        let leap = (year & 3 == 0 ? 1 : 0) & (year % 100 != 0 || year % 400 == 0 ? 1 : 0)
        // Days in the month: 31 or 30 alternating (the parity flips at August), February 28 + leap.
        let dim = 28 + ((month + month >> 3) & 1) + (month >= 3 ? 2 : 0) + (month == 1 ? 2 : 0) + (month == 2 ? leap : 0)
        guard day <= dim else { return nil }
        // Leap years before `year`, minus those before 1970 (477).
        let y = year - 1
        let daysBeforeYear = (year - 1970) * 365 + (y / 4 - y / 100 + y / 400) - 477
        // Days before the month: (367m - 362) / 12, minus 2 (1 in a leap year) after February.
        let afterFebruary = (month + 9) / 12
        let cumulative = (367 * month - 362) / 12 - afterFebruary * (2 - leap)
        return Int64(daysBeforeYear + cumulative + day - 1)
    }

    /// t/f, true/false, y/n, yes/no, 1/0 (case-insensitive).
    static func parseBool(_ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        var i = 0, n = b.count
        while i < n && isBlank(b[i]) { i += 1 }
        while n > i && isBlank(b[n - 1]) { n -= 1 }
        guard i < n else { return nil }
        if n - i == 1 {
            switch b[i] | 0x20 {
            case UInt8(ascii: "t"), UInt8(ascii: "y"), UInt8(ascii: "1") | 0x20: return true
            case UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "0") | 0x20: return false
            default: return nil
            }
        }
        if wordMatches(b, i, n, "true") || wordMatches(b, i, n, "yes") { return true }
        if wordMatches(b, i, n, "false") || wordMatches(b, i, n, "no") { return false }
        return nil
    }

    /// The first invalid UTF-8 sequence in `b` (offset, and length up to and including
    /// the byte that made it invalid),
    /// or nil when `b` is valid UTF-8. Overlong forms, surrogates and code points above
    /// U+10FFFF are invalid.
    @inline(__always)
    static func firstInvalidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> (offset: Int, length: Int)? {
        isASCII(b) ? nil : firstInvalidUTF8Checked(b)  // ASCII, the usual case: words, no call
    }

    /// `firstInvalidUTF8` for values with a byte of 0x80 or more.
    static func firstInvalidUTF8Checked(_ b: UnsafeBufferPointer<UInt8>) -> (offset: Int, length: Int)? {
        let n = b.count
        var i = 0
        guard let base = b.baseAddress else { return nil }
        while i < n {
            // ASCII fast path, 8 bytes at a time.
            while i + 8 <= n {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if w & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < n else { return nil }
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            var need = 0
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return (i, 1)
            }
            guard i + need < n else { return (i, n - i) }
            let c1 = b[i + 1]
            guard c1 >= lo && c1 <= hi else { return (i, 2) }
            var k = 2
            while k <= need {
                let ck = b[i + k]
                guard ck >= 0x80 && ck <= 0xBF else { return (i, k + 1) }
                k += 1
            }
            i += need + 1
        }
        return nil
    }

    /// True when every byte is ASCII. Words only: the ragged end is read by a load
    /// that overlaps the previous one, never past the value.
    @inline(__always) static func isASCII(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        guard let base = b.baseAddress, n > 0 else { return true }
        let p = UnsafeRawPointer(base)
        if n >= 8 {
            var any: UInt64 = p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            var i = 0
            while i + 8 <= n {
                any |= p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            return any & 0x8080_8080_8080_8080 == 0
        }
        if n >= 4 {
            return (p.loadUnaligned(as: UInt32.self) | p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)) & 0x8080_8080 == 0
        }
        return (b[0] | b[n >> 1] | b[n - 1]) < 0x80
    }

    /// Bytes as text for error messages, at most `limit` bytes (invalid UTF-8 → U+FFFD).
    static func text(_ b: UnsafeBufferPointer<UInt8>, limit: Int = 1024) -> String {
        let m = min(b.count, limit)
        guard m > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: b[0..<m]), as: UTF8.self)
    }

    /// `c3 28` style hex of up to 4 bytes, for UTF-8 error reasons.
    static func hex(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int, _ length: Int) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        var parts: [String] = []
        for k in offset..<min(offset + max(length, 1), b.count, offset + 4) {
            parts.append(String([digits[Int(b[k] >> 4)], digits[Int(b[k] & 15)]]))
        }
        return parts.joined(separator: " ")
    }
}
