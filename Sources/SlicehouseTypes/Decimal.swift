// SPDX-License-Identifier: Apache-2.0
/// Fixed-point decimals stored as scaled integers (value * 10^scale).
public enum DecimalMath {
    /// 10^0 ... 10^38 as Int128.
    public static let pow10: [Int128] = {
        var a: [Int128] = [1]
        for _ in 1...38 { a.append(a[a.count - 1] * 10) }
        return a
    }()
    public static let pow10Int64: [Int64] = (0...18).map { i in
        var v: Int64 = 1
        for _ in 0..<i { v *= 10 }
        return v
    }

    /// Largest absolute scaled value that fits precision `p`.
    @inlinable public static func maxValue(precision p: Int) -> Int128 { pow10[min(p, 38)] - 1 }

    public enum ParseResult: Equatable { case ok(Int128), invalid, overflow }

    /// Parse text like `-123.456`, `1e3`, `.5` into a value scaled by `scale`.
    /// Extra fractional digits are rounded half away from zero when `round`, else truncated.
    public static func parse(_ b: UnsafeBufferPointer<UInt8>, scale: Int, precision: Int, round: Bool = true) -> ParseResult {
        var i = 0, n = b.count
        while i < n && (b[i] == 32 || b[i] == 9) { i += 1 }
        while n > i && (b[n - 1] == 32 || b[n - 1] == 9) { n -= 1 }
        guard i < n else { return .invalid }
        var neg = false
        if b[i] == 45 { neg = true; i += 1 } else if b[i] == 43 { i += 1 }
        var intPart: Int128 = 0
        var digits = 0, fracDigits = 0
        var frac: Int128 = 0
        var roundUp = false
        var sawDigit = false
        var overflow = false
        while i < n, b[i] >= 48 && b[i] <= 57 {
            // Past 38 digits nothing fits; stop before `intPart * 10 + 9` could trap.
            if intPart > (Int128.max - 9) / 10 { overflow = true }
            else { intPart = intPart * 10 + Int128(b[i] - 48) }
            if intPart != 0 { digits += 1 }
            sawDigit = true
            i += 1
        }
        if i < n && b[i] == 46 {
            i += 1
            while i < n, b[i] >= 48 && b[i] <= 57 {
                if fracDigits < scale { frac = frac * 10 + Int128(b[i] - 48) }
                else if fracDigits == scale && round { roundUp = b[i] >= 53 }
                fracDigits += 1
                sawDigit = true
                i += 1
            }
        }
        guard sawDigit else { return .invalid }
        var exp = 0
        if i < n && (b[i] == 101 || b[i] == 69) {
            i += 1
            var eneg = false
            if i < n && (b[i] == 45 || b[i] == 43) { eneg = b[i] == 45; i += 1 }
            var e = 0, ed = 0
            while i < n, b[i] >= 48 && b[i] <= 57 { e = min(e * 10 + Int(b[i] - 48), 1000); ed += 1; i += 1 }
            guard ed > 0 else { return .invalid }
            exp = eneg ? -e : e
        }
        guard i == n else { return .invalid }
        if overflow { return .overflow }
        if exp != 0 {
            // Rare path: rebuild through Double-free digit shifting.
            var digitsStr: [UInt8] = []
            var j = 0
            var k = 0
            while k < b.count && (b[k] == 32 || b[k] == 45 || b[k] == 43) { k += 1 }
            j = k
            var pointPos = -1
            while j < b.count, b[j] != 101 && b[j] != 69 {
                if b[j] == 46 { pointPos = digitsStr.count } else if b[j] >= 48 && b[j] <= 57 { digitsStr.append(b[j]) }
                j += 1
            }
            if pointPos < 0 { pointPos = digitsStr.count }
            let newPoint = pointPos + exp
            var v: Int128 = 0
            var rnd = false
            // integer digits = digitsStr[0..<newPoint], fractional after
            let total = newPoint + scale
            if total > 60 { return .overflow }
            for idx in 0..<max(total, 0) {
                let d: Int128 = (idx >= 0 && idx < digitsStr.count) ? Int128(digitsStr[idx] - 48) : 0
                if v > maxValue(precision: 38) / 10 { return .overflow }
                v = v * 10 + d
            }
            if round, total >= 0, total < digitsStr.count { rnd = digitsStr[total] >= 53 }
            if rnd { v += 1 }
            if v > maxValue(precision: precision) { return .overflow }
            return .ok(neg ? -v : v)
        }
        for _ in fracDigits..<max(scale, fracDigits) { frac *= 10 }
        guard digits + scale <= 38 else { return .overflow }
        var v = intPart * pow10[scale] + frac
        if roundUp { v += 1 }
        if v > maxValue(precision: precision) { return .overflow }
        return .ok(neg ? -v : v)
    }

    public static func parse(_ s: String, scale: Int, precision: Int = 38) -> ParseResult {
        var s = s
        return s.withUTF8 { parse($0, scale: scale, precision: precision) }
    }

    /// Rescale `v` from scale `from` to scale `to`, rounding half away from zero.
    @inlinable public static func rescale(_ v: Int128, from: Int, to: Int) -> Int128 {
        if to == from { return v }
        if to > from { return v * pow10[to - from] }
        let d = pow10[from - to]
        let q = v / d, r = v % d
        if r * 2 >= d { return q + 1 }
        if r * 2 <= -d { return q - 1 }
        return q
    }
}

public enum DecimalFormat {
    /// `12345` with scale 2 → `"123.45"`.
    public static func format(_ v: Int128, scale: Int) -> String {
        let neg = v < 0
        let mag = neg ? (v == Int128.min ? UInt128(Int128.max) + 1 : UInt128(-v)) : UInt128(v)
        var digits = String(mag)
        if scale > 0 {
            if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
            let idx = digits.index(digits.endIndex, offsetBy: -scale)
            digits = String(digits[..<idx]) + "." + String(digits[idx...])
        }
        return neg ? "-" + digits : digits
    }
}

extension Double {
    /// Whether `value`, parsed from the decimal text `text`, is only an overflow to ±∞ or
    /// an underflow to 0 of a number that is neither: `1e400`, `-1e400`, `1e-400`.
    /// PostgreSQL and Redshift reject those (`"1e400" is out of range for type double
    /// precision`) where a plain parse would quietly give `Infinity` or `0`. `Infinity`
    /// spelled out, and denormals, are in range.
    public static func isOutOfRange<Text: Collection>(_ value: Double, text: Text) -> Bool where Text.Element == UInt8 {
        if value.isInfinite {
            // Only the spelled-out forms (`inf`, `Infinity`) contain an `i`.
            return !text.contains { $0 | 0x20 == UInt8(ascii: "i") }
        }
        if value == 0 {
            for byte in text {
                if byte | 0x20 == UInt8(ascii: "e") { break }
                if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return true }
            }
        }
        return false
    }
}
