// SPDX-License-Identifier: Apache-2.0
/// Bit packing as Parquet does it (RLE/bit-packed hybrid runs, PLAIN booleans, delta
/// miniblocks): values of `bitWidth` bits are laid end to end starting at the least
/// significant bit of the first byte, so value `i` occupies bits `i*w ..< (i+1)*w` of the
/// little-endian bit stream. Reading one value is therefore an unaligned little-endian
/// load at byte `i*w/8`, a shift by `i*w%8` and a mask.
enum BitPacking {
    /// Unpack `count` values of `bitWidth` (0...32) bits, starting at value index `first`,
    /// from `src` (`srcCount` bytes). The caller has checked that the bits exist.
    @inline(__always)
    static func unpack32(_ src: UnsafePointer<UInt8>, srcCount: Int, bitWidth: Int, first: Int, count: Int,
                         into dst: UnsafeMutablePointer<UInt32>) {
        if bitWidth == 0 {
            dst.update(repeating: 0, count: count)
            return
        }
        let mask: UInt64 = (1 << UInt64(bitWidth)) - 1
        let raw = UnsafeRawPointer(src)
        var bit = first * bitWidth
        for k in 0..<count {
            let byte = bit >> 3
            let shift = UInt64(bit & 7)
            let word: UInt64
            if byte + 8 <= srcCount {
                word = raw.loadUnaligned(fromByteOffset: byte, as: UInt64.self).littleEndian
            } else {
                word = loadTail(src, srcCount: srcCount, at: byte)
            }
            dst[k] = UInt32(truncatingIfNeeded: (word >> shift) & mask)
            bit += bitWidth
        }
    }

    /// Unpack `count` values of `bitWidth` (0...64) bits starting at value index 0.
    @inline(__always)
    static func unpack64(_ src: UnsafePointer<UInt8>, srcCount: Int, bitWidth: Int, count: Int,
                         into dst: UnsafeMutablePointer<UInt64>) {
        if bitWidth == 0 {
            dst.update(repeating: 0, count: count)
            return
        }
        let mask: UInt64 = bitWidth == 64 ? ~0 : (1 << UInt64(bitWidth)) - 1
        let raw = UnsafeRawPointer(src)
        var bit = 0
        for k in 0..<count {
            let byte = bit >> 3
            let shift = bit & 7
            var word: UInt64
            if byte + 8 <= srcCount {
                word = raw.loadUnaligned(fromByteOffset: byte, as: UInt64.self).littleEndian
            } else {
                word = loadTail(src, srcCount: srcCount, at: byte)
            }
            word >>= UInt64(shift)
            if shift + bitWidth > 64 {
                // The value spills into a ninth byte.
                let next: UInt64 = byte + 8 < srcCount ? UInt64(src[byte + 8]) : 0
                word |= next << UInt64(64 - shift)
            }
            dst[k] = word & mask
            bit += bitWidth
        }
    }

    /// Up to 8 bytes at `at`, zero-filled past the end of the buffer.
    @inline(__always)
    static func loadTail(_ src: UnsafePointer<UInt8>, srcCount: Int, at: Int) -> UInt64 {
        var w: UInt64 = 0
        var i = 0
        while i < 8 && at + i < srcCount {
            w |= UInt64(src[at + i]) << UInt64(8 * i)
            i += 1
        }
        return w
    }

    /// Bits needed to represent `maxValue` (0 for 0).
    static func bitWidth(of maxValue: UInt64) -> Int { 64 - maxValue.leadingZeroBitCount }

    /// Append the values with `bitWidth` (1...32) bits each to `out`, LSB first, padding
    /// the last byte with zeros. (The writer packs levels, booleans and dictionary
    /// indices, which never need more than 32 bits.)
    static func pack<T: BinaryInteger>(_ values: UnsafeBufferPointer<T>, bitWidth: Int, into out: inout [UInt8]) {
        let w = min(bitWidth, 32)
        guard w > 0 else { return }
        var acc: UInt64 = 0
        var bits = 0
        let mask: UInt64 = (1 << UInt64(w)) - 1
        for v in values {
            // At most 7 pending bits + 32 new ones: always fits the accumulator.
            acc |= (UInt64(truncatingIfNeeded: v) & mask) << UInt64(bits)
            bits += w
            while bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: acc))
                acc >>= 8
                bits -= 8
            }
        }
        if bits > 0 { out.append(UInt8(truncatingIfNeeded: acc)) }
    }
}
