// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Exact integer arithmetic used by conversions: rescaling between decimal scales and
/// time units with range checks, and decoding big-endian decimal bytes.

/// Integer rescaling with a range check, on Int64: multiply (overflow-checked), then
/// divide (rounding half away from zero for decimals, flooring for time units).
struct Rescale {
    var multiplier: Int64 = 1
    var divisor: Int64 = 1
    var floorDivision = false
    var lo: Int64 = .min
    var hi: Int64 = .max

    var isIdentity: Bool { multiplier == 1 && divisor == 1 && lo == .min && hi == .max }

    @inline(__always)
    func apply(_ v: Int64) -> Int64? {
        var x = v
        if multiplier != 1 {
            let (m, o) = x.multipliedReportingOverflow(by: multiplier)
            if o { return nil }
            x = m
        }
        if divisor != 1 {
            let q = x / divisor, r = x % divisor
            if floorDivision {
                x = (r != 0 && (r < 0) != (divisor < 0)) ? q - 1 : q
            } else {
                // |r| * 2 >= divisor, computed without overflow.
                let ar = r.magnitude
                x = ar >= divisor.magnitude - ar ? (r < 0 ? q - 1 : (r > 0 ? q + 1 : q)) : q
            }
        }
        return x >= lo && x <= hi ? x : nil
    }
}

/// The same on Int128, for wide decimals.
struct Rescale128 {
    var fromScale: Int
    var toScale: Int
    /// Largest magnitude allowed after rescaling.
    var maxMagnitude: Int128

    @inline(__always)
    func apply(_ v: Int128) -> Int128? {
        var x = v
        if toScale > fromScale {
            let (m, o) = x.multipliedReportingOverflow(by: DecimalMath.pow10[toScale - fromScale])
            if o { return nil }
            x = m
        } else if toScale < fromScale {
            x = DecimalMath.rescale(x, from: fromScale, to: toScale)
        }
        return x.magnitude <= maxMagnitude.magnitude ? x : nil
    }
}

/// A big-endian two's-complement integer of `n` bytes, or nil when it does not fit
/// 128 bits. Zero bytes mean 0.
@inline(__always)
func bigEndianInteger(_ raw: UnsafeRawPointer, _ n: Int) -> Int128? {
    let p = raw.assumingMemoryBound(to: UInt8.self)
    if n == 0 { return 0 }
    var start = 0
    if n > 16 {
        // Leading bytes must be pure sign extension.
        let fill: UInt8 = p[n - 16] & 0x80 != 0 ? 0xFF : 0x00
        for i in 0..<(n - 16) where p[i] != fill { return nil }
        start = n - 16
    }
    var v: UInt128 = p[start] & 0x80 != 0 ? ~0 : 0
    for i in start..<n { v = (v << 8) | UInt128(p[i]) }
    return Int128(bitPattern: v)
}

/// 10^n as the Double nearest to it (n in 0...38).
func pow10Double(_ n: Int) -> Double {
    powersOfTen[min(max(n, 0), powersOfTen.count - 1)]
}

/// Correctly rounded powers of ten (parsed from text, so 10^23 and up are the nearest
/// Doubles rather than an accumulation of rounding errors).
private let powersOfTen: [Double] = (0...38).map { Double("1e\($0)") ?? 0 }
