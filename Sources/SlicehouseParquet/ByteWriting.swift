// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Little helpers for building page and footer bytes.

/// Room for `additional` more elements, growing geometrically (a plain
/// `reserveCapacity(count + n)` reallocates to the exact size every time, which makes
/// repeated appends quadratic).
@inline(__always)
func reserveGrowing<T>(_ a: inout [T], _ additional: Int) {
    let needed = a.count + additional
    if needed > a.capacity { a.reserveCapacity(max(needed, a.capacity * 2)) }
}

@inline(__always)
func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
    out.append(UInt8(truncatingIfNeeded: v))
    out.append(UInt8(truncatingIfNeeded: v >> 8))
    out.append(UInt8(truncatingIfNeeded: v >> 16))
    out.append(UInt8(truncatingIfNeeded: v >> 24))
}

/// Append fixed-width values as little-endian bytes.
func appendLittleEndian<T>(_ values: UnsafeBufferPointer<T>, to out: inout [UInt8]) {
    // Every supported host (x86-64, arm64) is little-endian: the memory is the encoding.
    out.append(contentsOf: UnsafeRawBufferPointer(values))
}

func littleEndianBytes<T: FixedWidthInteger>(_ v: T) -> [UInt8] {
    withUnsafeBytes(of: v.littleEndian) { Array($0) }
}

/// The low `bytes` bytes of `v`'s two's complement, most significant first.
func appendBigEndian(_ v: Int128, bytes n: Int, to out: inout [UInt8]) {
    let u = UInt128(bitPattern: v)
    for k in stride(from: n - 1, through: 0, by: -1) {
        out.append(UInt8(truncatingIfNeeded: u >> UInt128(8 * k)))
    }
}

extension BitPacking {
    /// Pack booleans (as 0/1 bytes) LSB first.
    static func pack<S: Sequence>(_ bits: S, into out: inout [UInt8]) where S.Element == UInt8 {
        var acc: UInt8 = 0
        var k = 0
        for b in bits {
            acc |= (b & 1) << UInt8(k)
            k += 1
            if k == 8 {
                out.append(acc)
                acc = 0
                k = 0
            }
        }
        if k > 0 { out.append(acc) }
    }
}
