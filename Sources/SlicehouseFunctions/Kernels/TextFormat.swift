// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Byte-level text forms of values (PostgreSQL output conventions, the same text as
/// `Value.formatted(as:)`), written straight into a `StringBuilder` without creating
/// `String`s on the common paths.
package enum TextFormat {

    /// Decimal digits of `v` (no sign), most significant first.
    @inline(__always) package static func appendDigits(_ v: UInt64, minWidth: Int = 1, to out: inout StringBuilder) {
        var buf: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes of scratch
        withUnsafeMutableBytes(of: &buf) { raw in
            var k = 24
            var x = v
            repeat {
                k -= 1
                raw[k] = UInt8(truncatingIfNeeded: x % 10) &+ 48
                x /= 10
            } while x != 0
            while 24 - k < minWidth && k > 0 { k -= 1; raw[k] = 48 }
            for j in k..<24 { out.append(raw[j]) }
        }
    }

    package static func appendInt(_ v: Int64, to out: inout StringBuilder) {
        if v < 0 { out.append(45) }
        appendDigits(v.magnitude, to: &out)
    }

    /// A scaled Int64 decimal: `12345`, scale 2 → `123.45`; `-5`, scale 2 → `-0.05`.
    package static func appendDecimal(_ v: Int64, scale: Int, to out: inout StringBuilder) {
        if scale <= 0 { appendInt(v, to: &out); return }
        if scale > 18 { appendDecimal(Int128(v), scale: scale, to: &out); return }
        if v < 0 { out.append(45) }
        let mag = v.magnitude
        let p = UInt64(DecimalMath.pow10Int64[scale])
        appendDigits(mag / p, to: &out)
        out.append(46)
        appendDigits(mag % p, minWidth: scale, to: &out)
    }

    /// A scaled Int128 decimal.
    package static func appendDecimal(_ v: Int128, scale: Int, to out: inout StringBuilder) {
        if v < 0 { out.append(45) }
        let mag = v.magnitude
        // Split into base-10^18 limbs, least significant first.
        var limbs: [UInt64] = []
        var x = mag
        let base: UInt128 = 1_000_000_000_000_000_000
        repeat {
            limbs.append(UInt64(truncatingIfNeeded: x % base))
            x /= base
        } while x != 0
        // Render all digits, then place the point.
        var digits = StringBuilder(rows: 1, bytes: 40)
        appendDigits(limbs[limbs.count - 1], to: &digits)
        for i in stride(from: limbs.count - 2, through: 0, by: -1) { appendDigits(limbs[i], minWidth: 18, to: &digits) }
        let d = digits.bytes
        if scale <= 0 { out.append(contentsOf: d); return }
        if d.count <= scale {
            out.append(48); out.append(46)
            for _ in 0..<(scale - d.count) { out.append(48) }
            out.append(contentsOf: d)
        } else {
            out.append(contentsOf: d[0..<(d.count - scale)])
            out.append(46)
            out.append(contentsOf: d[(d.count - scale)...])
        }
    }

    /// `YYYY-MM-DD` (years outside 1...9999 take the slow, general path).
    package static func appendDate(_ days: Int64, to out: inout StringBuilder) {
        let (y, m, d) = DateTime.civil(days)
        if y < 1 || y > 9999 {
            out.append(contentsOf: DateTime.formatDate(days).utf8)
            return
        }
        appendDigits(UInt64(y), minWidth: 4, to: &out)
        out.append(45)
        appendDigits(UInt64(m), minWidth: 2, to: &out)
        out.append(45)
        appendDigits(UInt64(d), minWidth: 2, to: &out)
    }

    /// `YYYY-MM-DD HH:MI:SS[.ffffff]` with trailing fractional zeros removed.
    package static func appendTimestamp(_ micros: Int64, to out: inout StringBuilder) {
        var days = micros / DateTime.microsPerDay
        var rem = micros % DateTime.microsPerDay
        if rem < 0 { rem += DateTime.microsPerDay; days -= 1 }
        let (y, _, _) = DateTime.civil(days)
        if y < 1 || y > 9999 {
            out.append(contentsOf: DateTime.formatTimestamp(micros).utf8)
            return
        }
        appendDate(days, to: &out)
        out.append(32)
        let secs = rem / DateTime.microsPerSecond
        var frac = rem % DateTime.microsPerSecond
        appendDigits(UInt64(secs / 3600), minWidth: 2, to: &out)
        out.append(58)
        appendDigits(UInt64((secs / 60) % 60), minWidth: 2, to: &out)
        out.append(58)
        appendDigits(UInt64(secs % 60), minWidth: 2, to: &out)
        if frac != 0 {
            var width = 6
            while frac % 10 == 0 { frac /= 10; width -= 1 }
            out.append(46)
            appendDigits(UInt64(frac), minWidth: width, to: &out)
        }
    }

    package static func appendDouble(_ d: Double, real: Bool, to out: inout StringBuilder) {
        out.append(contentsOf: FloatFormat.format(d, real: real).utf8)
    }

    package static func appendBool(_ b: Bool, to out: inout StringBuilder) {
        if b { out.append(contentsOf: [116, 114, 117, 101]) } else { out.append(contentsOf: [102, 97, 108, 115, 101]) }
    }
}
