// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Byte-level helpers of the block encodings: a growing writer, a bounds-checked
// reader, LEB128 varints, zigzag, bit packing and the block checksum.
// Everything on disk is little-endian.

@inline(never)
func corruptBlock(_ message: String) -> SQLError {
    SQLError(.ioError, "corrupt column block: \(message)")
}

/// The integer representations the integer encodings work on (int64 and int128 kinds).
protocol BlockInt: FixedWidthInteger, SignedInteger, Hashable, Sendable
where Magnitude: FixedWidthInteger & UnsignedInteger {
    static func wrap(_ a: [Self]) -> DenseValues
    static func readArray(_ r: inout EncodingReader, _ n: Int) throws -> [Self]
}
extension Int64: BlockInt {
    static func wrap(_ a: [Int64]) -> DenseValues { .int64(a) }
    static func readArray(_ r: inout EncodingReader, _ n: Int) throws -> [Int64] { try RawCodec.readIntArray(&r, n, Int64.self) }
}
extension Int128: BlockInt {
    static func wrap(_ a: [Int128]) -> DenseValues { .int128(a) }
    static func readArray(_ r: inout EncodingReader, _ n: Int) throws -> [Int128] { try RawCodec.readIntArray(&r, n, Int128.self) }
}
extension BlockInt {
    /// A hash of the value (for dictionaries; not persisted).
    @inline(__always) var blockHash: UInt64 {
        Hashing.hash(UInt64(truncatingIfNeeded: self) ^ Hashing.hash(UInt64(truncatingIfNeeded: self >> 64)))
    }
}

extension BlockInt {
    /// Whether the value survives a round trip through `width` bytes (sign-extended).
    @inline(__always) func fits(width: Int) -> Bool {
        switch width {
        case 1: return Self(truncatingIfNeeded: Int8(truncatingIfNeeded: self)) == self
        case 2: return Self(truncatingIfNeeded: Int16(truncatingIfNeeded: self)) == self
        case 4: return Self(truncatingIfNeeded: Int32(truncatingIfNeeded: self)) == self
        case 8: return Self(truncatingIfNeeded: Int64(truncatingIfNeeded: self)) == self
        default: return true
        }
    }
    @inline(__always) var zigzag: Magnitude {
        Magnitude(truncatingIfNeeded: (self << 1) ^ (self >> (Self.bitWidth - 1)))
    }
    @inline(__always) static func unzigzag(_ u: Magnitude) -> Self {
        Self(truncatingIfNeeded: u >> 1) ^ (0 - Self(truncatingIfNeeded: u & 1))
    }
}

/// Store `v` as `width` little-endian bytes (1, 2, 4, 8 or 16) at `p` (unaligned).
@inline(__always)
func storeInt<T: BlockInt>(_ v: T, width: Int, _ p: UnsafeMutableRawPointer) {
    switch width {
    case 1: p.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
    case 2: p.storeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian, as: UInt16.self)
    case 4: p.storeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian, as: UInt32.self)
    case 8: p.storeBytes(of: UInt64(truncatingIfNeeded: v).littleEndian, as: UInt64.self)
    default:
        p.storeBytes(of: UInt64(truncatingIfNeeded: v).littleEndian, as: UInt64.self)
        p.storeBytes(of: UInt64(truncatingIfNeeded: v >> 64).littleEndian, toByteOffset: 8, as: UInt64.self)
    }
}

/// Load a sign-extended integer of `width` bytes from `p` (unaligned).
@inline(__always)
func loadInt<T: BlockInt>(_ p: UnsafeRawPointer, width: Int) -> T {
    switch width {
    case 1: return T(truncatingIfNeeded: Int8(bitPattern: p.load(as: UInt8.self)))
    case 2: return T(truncatingIfNeeded: Int16(bitPattern: UInt16(littleEndian: p.loadUnaligned(as: UInt16.self))))
    case 4: return T(truncatingIfNeeded: Int32(bitPattern: UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))))
    case 8: return T(truncatingIfNeeded: Int64(bitPattern: UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))))
    default:
        let lo = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        let hi = Int64(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        return T(truncatingIfNeeded: (Int128(hi) << 64) | Int128(lo))
    }
}

/// Number of bits needed for an unsigned value (0 for 0).
@inline(__always) func bitsNeeded<U: FixedWidthInteger & UnsignedInteger>(_ x: U) -> Int {
    U.bitWidth - x.leadingZeroBitCount
}

// MARK: - Writer

struct EncodingWriter {
    var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    @inline(__always) mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }
    mutating func u32(_ v: UInt32) {
        for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
    }
    mutating func varint<U: FixedWidthInteger & UnsignedInteger>(_ v: U) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
    mutating func append(_ p: UnsafeRawBufferPointer) { bytes.append(contentsOf: p) }
    mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }

    /// Append `n` bytes written by `body` (which must fill all of them).
    mutating func extend(_ n: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        extend(upTo: n) { p in
            guard let base = p.baseAddress else { return 0 }
            body(base)
            return n
        }
    }
    /// Append up to `n` bytes written by `body`, which returns how many it wrote.
    mutating func extend(upTo n: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        guard n > 0 else { return }
        let start = bytes.count
        appendZeros(n)
        let used = try bytes.withUnsafeMutableBytes { try body(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        bytes.removeLast(n - min(max(used, 0), n))
    }
    /// `n` zero bytes, copied from a page of zeros: appending `repeatElement(0, count:)`
    /// wrote them one at a time (a zstd block's bound is megabytes).
    private mutating func appendZeros(_ n: Int) {
        var left = n  // (appends grow the array geometrically; reserveCapacity would not)
        Self.zeros.withUnsafeBufferPointer { z in
            while left > 0 {
                let k = min(left, z.count)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: z[0..<k]))
                left -= k
            }
        }
    }
    private static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Overwrite a u32 written earlier at `offset`.
    mutating func patchU32(_ v: UInt32, at offset: Int) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }
}

@inline(__always) func varintSize<U: FixedWidthInteger & UnsignedInteger>(_ v: U) -> Int {
    max(1, (bitsNeeded(v) + 6) / 7)
}

// MARK: - Reader

/// A bounds-checked cursor over a block's bytes. Every read that would leave the
/// buffer throws `SQLError(.ioError, "corrupt column block: ...")`.
struct EncodingReader {
    let buf: UnsafeRawBufferPointer
    var pos: Int = 0

    init(_ buf: UnsafeRawBufferPointer) { self.buf = buf }

    @inline(__always) var remaining: Int { buf.count - pos }
    /// The address of the cursor (only valid when `remaining > 0`).
    @inline(__always) var pointer: UnsafeRawPointer { buf.baseAddress! + pos }

    @inline(__always) func need(_ n: Int, _ what: @autoclosure () -> String) throws {
        if n < 0 || n > buf.count - pos { throw corruptBlock("truncated \(what())") }
    }
    @inline(__always) mutating func u8(_ what: @autoclosure () -> String = "block") throws -> UInt8 {
        try need(1, what())
        let v = buf[pos]
        pos += 1
        return v
    }
    mutating func u16(_ what: @autoclosure () -> String = "block") throws -> UInt16 {
        try need(2, what())
        let v = UInt16(buf[pos]) | UInt16(buf[pos + 1]) << 8
        pos += 2
        return v
    }
    mutating func u32(_ what: @autoclosure () -> String = "block") throws -> UInt32 {
        try need(4, what())
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(buf[pos + k]) << (8 * UInt32(k)) }
        pos += 4
        return v
    }
    /// A LEB128 varint; rejects encodings longer than the type allows or overflowing it.
    @inline(__always)
    mutating func varint<U: FixedWidthInteger & UnsignedInteger>(_: U.Type = UInt64.self,
                                                                  _ what: @autoclosure () -> String = "varint") throws -> U {
        var result: U = 0
        var shift = 0
        while true {
            guard pos < buf.count else { throw corruptBlock("truncated \(what())") }
            let b = buf[pos]
            pos += 1
            let part = U(b & 0x7F)
            if shift + 7 > U.bitWidth {
                // The last byte a U can use: only its low (bitWidth - shift) bits may be set.
                if shift >= U.bitWidth || part >> (U.bitWidth - shift) != 0 {
                    throw corruptBlock("\(what()) out of range")
                }
            }
            result |= part << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }
    /// A varint that must fit a non-negative `Int` no larger than `limit`.
    mutating func count(max limit: Int, _ what: @autoclosure () -> String) throws -> Int {
        let v: UInt64 = try varint(UInt64.self, what())
        guard v <= UInt64(limit) else { throw corruptBlock("\(what()) \(v) exceeds \(limit)") }
        return Int(v)
    }
    /// The next `n` bytes as a buffer; advances the cursor.
    mutating func take(_ n: Int, _ what: @autoclosure () -> String) throws -> UnsafeRawBufferPointer {
        try need(n, what())
        let r = UnsafeRawBufferPointer(rebasing: buf[pos..<(pos + n)])
        pos += n
        return r
    }
    mutating func skip(_ n: Int, _ what: @autoclosure () -> String) throws {
        try need(n, what())
        pos += n
    }
    func expectEnd(_ what: @autoclosure () -> String) throws {
        if pos != buf.count { throw corruptBlock("\(buf.count - pos) unexpected trailing bytes in \(what())") }
    }
}

// MARK: - Checksum

/// A fast 32-bit checksum of a block (four interleaved multiply-rotate lanes over
/// 8-byte words; defined here so the on-disk format does not depend on other code).
func blockChecksum(_ parts: UnsafeRawBufferPointer...) -> UInt32 {
    var a: UInt64 = 0x9E37_79B9_7F4A_7C15, b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    var c: UInt64 = 0x1656_67B1_9E37_79F9, d: UInt64 = 0x27D4_EB2F_1656_67C5
    let m: UInt64 = 0x9FB2_1C65_1E98_DF25
    var total = 0
    for p in parts {
        let n = p.count
        total &+= n
        guard n > 0, let base = p.baseAddress else { continue }
        var i = 0
        while i + 32 <= n {
            a = ((a ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m).rotl(29)
            b = ((b ^ base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* m).rotl(29)
            c = ((c ^ base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* m).rotl(29)
            d = ((d ^ base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* m).rotl(29)
            i += 32
        }
        while i + 8 <= n {
            a = ((a ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m).rotl(29)
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n { tail |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift; shift += 8; i += 1 }
        b = ((b ^ tail ^ UInt64(n)) &* m).rotl(29)
        // Separate the parts so moving bytes across a boundary changes the sum.
        c = ((c ^ UInt64(total)) &* m).rotl(31)
    }
    var h = a ^ b.rotl(17) ^ c.rotl(34) ^ d.rotl(51) ^ UInt64(total)
    h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
    h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
    h ^= h >> 31
    return UInt32(truncatingIfNeeded: h ^ (h >> 32))
}

extension UInt64 {
    @inline(__always) func rotl(_ k: UInt64) -> UInt64 { (self << k) | (self >> (64 - k)) }
}

// MARK: - Bit packing

enum BitPack {
    /// Bytes used by `count` values of `width` bits.
    @inline(__always) static func byteCount(_ count: Int, _ width: Int) -> Int { (count * width + 7) >> 3 }

    /// Append `count` values of `width` bits (0...64) produced by `value(i)`, LSB first.
    @inline(__always)
    static func pack(into w: inout EncodingWriter, count: Int, width: Int, _ value: (Int) -> UInt64) {
        let n = byteCount(count, width)
        guard n > 0 else { return }
        let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) &- 1
        w.extend(n) { p in
            var acc: UInt64 = 0
            var bits = 0
            var out = 0
            for i in 0..<count {
                let x = value(i) & mask
                acc |= x << UInt64(bits)  // bits < 64
                if bits + width >= 64 {
                    p.storeBytes(of: acc.littleEndian, toByteOffset: out, as: UInt64.self)
                    out += 8
                    acc = bits == 0 ? 0 : x >> UInt64(64 - bits)
                    bits = bits + width - 64
                } else {
                    bits += width
                }
            }
            var k = 0
            while out < n {
                p.storeBytes(of: UInt8(truncatingIfNeeded: acc >> UInt64(8 * k)), toByteOffset: out, as: UInt8.self)
                out += 1
                k += 1
            }
        }
    }

    /// Unpack the first `count / 8 * 8` values of `width` bits (1...56) from `p` into
    /// `out`, eight at a time: eight values take exactly `width` bytes. Returns how many.
    @inline(__always)
    static func unpackEights(_ p: UnsafeRawPointer, _ count: Int, _ width: Int,
                             _ out: UnsafeMutablePointer<UInt64>) -> Int {
        let mask: UInt64 = (1 << UInt64(width)) &- 1
        let eights = count >> 3
        var src = p
        var dst = out
        for _ in 0..<eights {
            for j in 0..<8 {
                let bit = j * width
                let word = UInt64(littleEndian: src.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self))
                dst[j] = (word >> UInt64(bit & 7)) & mask
            }
            src += width
            dst += 8
        }
        return eights << 3
    }

    /// Unpack `count` values of `width` bits from `p` into `out`.
    /// `p` must be readable for `byteCount(count, width) + 8` bytes (the payload pads).
    @inline(__always)
    static func unpack(_ p: UnsafeRawPointer, count: Int, width: Int, into out: UnsafeMutablePointer<UInt64>) {
        if width == 0 {
            out.update(repeating: 0, count: count)
            return
        }
        let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) &- 1
        var bit = 0
        if width <= 56 {
            // Eight values at a time with the width a constant (one copy of the loop per
            // width): every load offset and shift is then fixed, so the eight loads do not
            // wait on a running bit position. The values left over go one by one below.
            var done = 0
            switch width {
            case 1: done = unpackEights(p, count, 1, out)
            case 2: done = unpackEights(p, count, 2, out)
            case 3: done = unpackEights(p, count, 3, out)
            case 4: done = unpackEights(p, count, 4, out)
            case 5: done = unpackEights(p, count, 5, out)
            case 6: done = unpackEights(p, count, 6, out)
            case 7: done = unpackEights(p, count, 7, out)
            case 8: done = unpackEights(p, count, 8, out)
            case 9: done = unpackEights(p, count, 9, out)
            case 10: done = unpackEights(p, count, 10, out)
            case 11: done = unpackEights(p, count, 11, out)
            case 12: done = unpackEights(p, count, 12, out)
            case 13: done = unpackEights(p, count, 13, out)
            case 14: done = unpackEights(p, count, 14, out)
            case 15: done = unpackEights(p, count, 15, out)
            case 16: done = unpackEights(p, count, 16, out)
            case 17: done = unpackEights(p, count, 17, out)
            case 18: done = unpackEights(p, count, 18, out)
            case 19: done = unpackEights(p, count, 19, out)
            case 20: done = unpackEights(p, count, 20, out)
            case 21: done = unpackEights(p, count, 21, out)
            case 22: done = unpackEights(p, count, 22, out)
            case 23: done = unpackEights(p, count, 23, out)
            case 24: done = unpackEights(p, count, 24, out)
            case 25: done = unpackEights(p, count, 25, out)
            case 26: done = unpackEights(p, count, 26, out)
            case 27: done = unpackEights(p, count, 27, out)
            case 28: done = unpackEights(p, count, 28, out)
            case 29: done = unpackEights(p, count, 29, out)
            case 30: done = unpackEights(p, count, 30, out)
            case 31: done = unpackEights(p, count, 31, out)
            case 32: done = unpackEights(p, count, 32, out)
            case 33: done = unpackEights(p, count, 33, out)
            case 34: done = unpackEights(p, count, 34, out)
            case 35: done = unpackEights(p, count, 35, out)
            case 36: done = unpackEights(p, count, 36, out)
            case 37: done = unpackEights(p, count, 37, out)
            case 38: done = unpackEights(p, count, 38, out)
            case 39: done = unpackEights(p, count, 39, out)
            case 40: done = unpackEights(p, count, 40, out)
            case 41: done = unpackEights(p, count, 41, out)
            case 42: done = unpackEights(p, count, 42, out)
            case 43: done = unpackEights(p, count, 43, out)
            case 44: done = unpackEights(p, count, 44, out)
            case 45: done = unpackEights(p, count, 45, out)
            case 46: done = unpackEights(p, count, 46, out)
            case 47: done = unpackEights(p, count, 47, out)
            case 48: done = unpackEights(p, count, 48, out)
            case 49: done = unpackEights(p, count, 49, out)
            case 50: done = unpackEights(p, count, 50, out)
            case 51: done = unpackEights(p, count, 51, out)
            case 52: done = unpackEights(p, count, 52, out)
            case 53: done = unpackEights(p, count, 53, out)
            case 54: done = unpackEights(p, count, 54, out)
            case 55: done = unpackEights(p, count, 55, out)
            case 56: done = unpackEights(p, count, 56, out)
            default: break
            }
            bit = done * width
            for i in done..<count {
                let word = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self))
                out[i] = (word >> UInt64(bit & 7)) & mask
                bit += width
            }
        } else {
            for i in 0..<count {
                let byte = bit >> 3, sh = UInt64(bit & 7)
                var x = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: byte, as: UInt64.self)) >> sh
                if sh > 0 { x |= UInt64(p.load(fromByteOffset: byte + 8, as: UInt8.self)) << (64 - sh) }
                out[i] = x & mask
                bit += width
            }
        }
    }
}
