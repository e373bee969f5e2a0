// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Redshift (PostgreSQL) numeric format strings for TO_CHAR and TO_NUMBER.
///
/// Supported: `9` (digit, blank when a leading zero), `0` (digit, zero shown), `.`/`D`
/// (decimal point), `,`/`G` (group separator, blank before the first digit), `S`
/// (sign `+`/`-`; anchored to the number when leading), `MI` (`-` or blank), `PR`
/// (`<n>` for negatives), `PL` (`+` or blank), `SG` (`+` or `-`), `$`/`L` (dollar sign),
/// `TH`/`th` (ordinal suffix of the integer part), `RN`/`rn` (the value as a Roman
/// numeral, 1 to 3999, in 15 positions), `FM` (no padding, trailing fraction zeros of
/// `9` positions dropped), double-quoted text and other characters (copied).
/// Without S/MI/PR one position is reserved for the sign before the first digit.
/// A value with more integer digits than the format has is shown as `#`s.
package struct NumberFormat {
    package enum Tok { case digit(zero: Bool), point, group, sign, minus, plus, plusMinus, currency, ordinal(upper: Bool), literal([UInt8]) }
    package var toks: [Tok] = []
    package var fm = false
    package var pr = false
    package var intDigits = 0
    package var fracDigits = 0
    /// Index in `toks` of a leading S (before any digit), if any.
    package var leadingSign = false
    package var hasSignToken = false
    /// PL: a `+` of its own, so no blank is reserved for the sign of a positive value.
    package var hasPlus = false
    /// RN / rn: the whole value as a Roman numeral (upper case for RN).
    package var roman: Bool? = nil

    package init(_ f: UnsafeBufferPointer<UInt8>) {
        var i = 0
        var afterPoint = false
        var sawDigit = false
        func up(_ k: Int) -> UInt8 { k < f.count ? (f[k] >= 97 && f[k] <= 122 ? f[k] - 32 : f[k]) : 0 }
        while i < f.count {
            let c = up(i)
            switch c {
            case 0x39, 0x30: // 9 0
                toks.append(.digit(zero: c == 0x30)); sawDigit = true
                if afterPoint { fracDigits += 1 } else { intDigits += 1 }
                i += 1
            case 0x2E where !afterPoint, 0x44 where !afterPoint: // . D
                toks.append(.point); afterPoint = true; i += 1
            case 0x2C, 0x47: // , G
                toks.append(afterPoint ? .literal([0x2C]) : .group); i += 1
            case 0x53 where up(i + 1) != 0x47: // S
                toks.append(.sign); hasSignToken = true
                if !sawDigit { leadingSign = true }
                i += 1
            case 0x4D where up(i + 1) == 0x49: // MI
                toks.append(.minus); hasSignToken = true; i += 2
            case 0x50 where up(i + 1) == 0x52: // PR
                pr = true; hasSignToken = true; i += 2
            case 0x50 where up(i + 1) == 0x4C: // PL
                toks.append(.plus); hasPlus = true; i += 2
            case 0x53 where up(i + 1) == 0x47: // SG
                toks.append(.plusMinus); hasSignToken = true; i += 2
            case 0x52 where up(i + 1) == 0x4E: // RN
                roman = f[i] == 0x52; i += 2
            case 0x54 where up(i + 1) == 0x48: // TH
                toks.append(.ordinal(upper: f[i] == 0x54)); i += 2
            case 0x46 where up(i + 1) == 0x4D: // FM
                fm = true; i += 2
            case 0x24, 0x4C: // $ L
                toks.append(.currency); i += 1
            case 0x22: // "literal"
                var lit: [UInt8] = []
                i += 1
                while i < f.count && f[i] != 0x22 { lit.append(f[i]); i += 1 }
                i += 1
                toks.append(.literal(lit))
            default:
                toks.append(.literal([f[i]])); i += 1
            }
        }
    }

    /// Append a value given as its sign, integer digits (ASCII, no leading zeros, empty
    /// for zero) and exactly `fracDigits` fraction digits.
    package func append(negative: Bool, int intPart: [UInt8], frac: [UInt8], to out: inout StringBuilder) {
        if let upper = roman {
            appendRoman(negative: negative, int: intPart, upper: upper, to: &out)
            return
        }
        var body: [UInt8] = []
        body.reserveCapacity(toks.count + 4)
        let overflow = intPart.count > intDigits
        let firstZero: Int = {
            var k = 0
            for t in toks { if case .digit(let z) = t { if z { return k }; k += 1 } else if case .point = t { break } }
            return Int.max
        }()
        var significantFrom = min(firstZero, intDigits - intPart.count)
        if intPart.isEmpty && fracDigits == 0 && intDigits > 0 { significantFrom = min(significantFrom, intDigits - 1) }
        // Fraction digits kept: FM drops trailing zeros of 9 positions.
        var fracKeep = fracDigits
        if fm {
            var fracToks: [Bool] = []
            var seenPoint = false
            for t in toks {
                if case .point = t { seenPoint = true } else if seenPoint, case .digit(let z) = t { fracToks.append(z) }
            }
            while fracKeep > 0 && !fracToks[fracKeep - 1] && frac[fracKeep - 1] == 0x30 { fracKeep -= 1 }
        }
        var anchor: Int? = nil      // where an anchored sign goes in `body`
        var intPos = 0, fracPos = 0, seenPoint = false
        for t in toks {
            switch t {
            case .digit:
                if seenPoint {
                    if fracPos < fracKeep { body.append(overflow ? 0x23 : frac[fracPos]) }
                    fracPos += 1
                } else {
                    let significant = intPos >= significantFrom
                    if overflow {
                        if anchor == nil { anchor = body.count }
                        body.append(0x23)
                    } else if significant {
                        if anchor == nil { anchor = body.count }
                        let k = intPos - (intDigits - intPart.count)
                        body.append(k >= 0 && k < intPart.count ? intPart[k] : 0x30)
                    } else if !fm {
                        body.append(0x20)
                    }
                    intPos += 1
                }
            case .point:
                if anchor == nil { anchor = body.count }
                body.append(0x2E); seenPoint = true
            case .group:
                if anchor != nil { body.append(0x2C) } else if !fm { body.append(0x20) }
            case .sign:
                if leadingSign && intPos == 0 && !seenPoint { continue } // anchored below
                body.append(negative ? 0x2D : 0x2B)
            case .minus:
                if negative { body.append(0x2D) } else if !fm { body.append(0x20) }
            case .plus:
                if !negative && !(intPart.isEmpty && frac.allSatisfy { $0 == 0x30 }) { body.append(0x2B) } else if !fm { body.append(0x20) }
            case .plusMinus:
                body.append(negative ? 0x2D : 0x2B)
            case .ordinal(let upper):
                body.append(contentsOf: Self.ordinalSuffix(intPart, upper: upper))
            case .currency:
                body.append(0x24)
            case .literal(let l):
                body.append(contentsOf: l)
            }
        }
        let at = anchor ?? body.count
        if leadingSign {
            body.insert(negative ? 0x2D : 0x2B, at: at)
        } else if !hasSignToken {
            if negative { body.insert(0x2D, at: at) } else if !fm && !hasPlus { body.insert(0x20, at: at) }
        }
        if pr {
            if negative { out.append(0x3C) } else if !fm { out.append(0x20) }
            out.append(contentsOf: body)
            if negative { out.append(0x3E) } else if !fm { out.append(0x20) }
        } else {
            out.append(contentsOf: body)
        }
    }

    /// `st`, `nd`, `rd` or `th` for the integer with digits `d` (11, 12 and 13 take `th`).
    static func ordinalSuffix(_ d: [UInt8], upper: Bool) -> [UInt8] {
        let last = d.last.map { Int($0) - 48 } ?? 0
        let tens = d.count >= 2 ? Int(d[d.count - 2]) - 48 : 0
        let s = tens == 1 ? "th" : (last == 1 ? "st" : last == 2 ? "nd" : last == 3 ? "rd" : "th")
        return Array((upper ? s.uppercased() : s).utf8)
    }

    /// RN: 1 to 3999 as a Roman numeral right-aligned in 15 positions (no padding with
    /// FM); any other value (after rounding to an integer) is 15 `#`s.
    func appendRoman(negative: Bool, int d: [UInt8], upper: Bool, to out: inout StringBuilder) {
        var v = 0
        for c in d.prefix(5) { v = v * 10 + Int(c) - 48 }
        guard !negative, d.count <= 4, (1...3999).contains(v) else {
            out.append(contentsOf: [UInt8](filled: 0x23, count: 15))
            return
        }
        let table: [(Int, String)] = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                                      (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
        var text = ""
        for (n, r) in table { while v >= n { text += r; v -= n } }
        if !upper { text = text.lowercased() }
        if !fm { out.append(contentsOf: [UInt8](filled: 0x20, count: 15 - text.utf8.count)) }
        out.append(contentsOf: Array(text.utf8))
    }

    /// Split an exact decimal (unscaled magnitude `digits` in ASCII, scale `scale`) into
    /// integer digits without leading zeros and exactly `fracDigits` fraction digits,
    /// rounding half away from zero.
    package func split(unscaled digits: [UInt8], scale: Int) -> (int: [UInt8], frac: [UInt8]) {
        var d = digits
        if d.count <= scale { d = [UInt8](filled: 0x30, count: scale - d.count + 1) + d }
        var intPart = Array(d[0..<(d.count - scale)])
        var frac = Array(d[(d.count - scale)...])
        if frac.count > fracDigits {
            let roundUp = frac[fracDigits] >= 0x35
            frac = Array(frac[0..<fracDigits])
            if roundUp {
                var all = intPart + frac
                var k = all.count - 1
                while k >= 0 {
                    if all[k] == 0x39 { all[k] = 0x30; k -= 1 } else { all[k] += 1; break }
                }
                if k < 0 { all.insert(0x31, at: 0) }
                intPart = Array(all[0..<(all.count - fracDigits)])
                frac = Array(all[(all.count - fracDigits)...])
            }
        }
        while frac.count < fracDigits { frac.append(0x30) }
        var z = 0
        while z < intPart.count && intPart[z] == 0x30 { z += 1 }
        return (Array(intPart[z...]), frac)
    }

    package func append(int128 v: Int128, scale: Int, to out: inout StringBuilder) {
        let (i, f) = split(unscaled: Array(String(v.magnitude).utf8), scale: scale)
        append(negative: v < 0 && !(i.isEmpty && f.allSatisfy { $0 == 0x30 }), int: i, frac: f, to: &out)
    }

    package func append(double v: Double, to out: inout StringBuilder) {
        guard v.isFinite else {
            append(negative: false, int: [UInt8](filled: 0x39, count: intDigits + 1),
                   frac: [UInt8](filled: 0x30, count: fracDigits), to: &out)
            return
        }
        let text = String(format: "%.\(min(fracDigits, 60))f", v.magnitude)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var intPart = Array((parts.first ?? "0").utf8)
        var frac = parts.count > 1 ? Array(parts[1].utf8) : []
        while frac.count < fracDigits { frac.append(0x30) }
        var z = 0
        while z < intPart.count && intPart[z] == 0x30 { z += 1 }
        intPart = Array(intPart[z...])
        let isZero = intPart.isEmpty && frac.allSatisfy { $0 == 0x30 }
        append(negative: v < 0 && !isZero, int: intPart, frac: frac, to: &out)
    }

    /// TO_NUMBER: read a number from `s` under this format: digits, one decimal point,
    /// a sign (`-`, `+`, or `<...>` with PR); group separators, currency signs and blanks
    /// are skipped. Returns the plain decimal text, or nil when `s` holds no digit or an
    /// unexpected character.
    package static func numberText(_ s: UnsafeBufferPointer<UInt8>) -> String? {
        var out: [UInt8] = []
        var negative = false, digits = 0, point = false
        for b in s {
            switch b {
            case 0x30...0x39: out.append(b); digits += 1
            case 0x2E:
                if point { return nil }
                point = true; out.append(b)
            case 0x2D, 0x3C: negative = true
            case 0x2B, 0x3E, 0x2C, 0x24, 0x20, 0x09: break
            default: return nil
            }
        }
        if digits == 0 { return nil }
        return (negative ? "-" : "") + String(decoding: out, as: UTF8.self)
    }
}
