// SPDX-License-Identifier: Apache-2.0
/// Unsigned LEB128 varints — Thrift's compact protocol (the footer and page headers) and
/// the RLE/bit-packed hybrid's run headers — and their zigzag-folded signed form. At most
/// 10 bytes; a longer or overflowing varint is corrupt data.
enum LEB128 {
    /// The varint whose bytes `next` hands out one at a time.
    @inline(__always)
    static func read(_ next: () throws -> UInt8) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try next()
            if shift == 63 && b > 1 { throw ParquetError.corrupt("varint overflows 64 bits") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw ParquetError.corrupt("varint longer than 10 bytes") }
        }
    }

    /// `v` appended to `out` as a varint.
    static func write(_ v: UInt64, into out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    @inline(__always) static func unzigzag(_ z: UInt64) -> Int64 { Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))) }
    @inline(__always) static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
}
