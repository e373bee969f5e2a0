// SPDX-License-Identifier: Apache-2.0
/// MD5 message digest (RFC 1321).
///
/// sqllogictest hashes large results with MD5 ("N values hashing to <md5>"), and
/// swift-corelibs-foundation has no MD5, so this is a small self-contained
/// implementation. It is not meant for anything security related.
///
/// ```swift
/// var md5 = MD5()
/// md5.update("abc")
/// md5.hexDigest()   // "900150983cd24fb0d6963f7d28e17f72"
/// ```
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    /// Bytes not yet processed (always fewer than 64).
    private var buffer: [UInt8] = []
    /// Total message length in bytes.
    private var length: UInt64 = 0

    public init() {
        buffer.reserveCapacity(64)
    }

    /// Per-round left-rotation amounts.
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// `floor(abs(sin(i + 1)) * 2^32)`, as tabulated in RFC 1321.
    private static let constants: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    /// Feed more bytes.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: $0) }
        if handled == nil { Array(bytes).withUnsafeBufferPointer { update(buffer: $0) } }
    }

    private mutating func update(buffer input: UnsafeBufferPointer<UInt8>) {
        length &+= UInt64(input.count)
        var index = 0
        // Top up a partial block first.
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, input.count)
            buffer.append(contentsOf: input[0..<take])
            index = take
            if buffer.count < 64 { return }
            processBlock(buffer[...])
            buffer.removeAll(keepingCapacity: true)
        }
        // Whole blocks straight from the input.
        while input.count - index >= 64 {
            processBlock(input[index..<(index + 64)])
            index += 64
        }
        buffer.append(contentsOf: input[index...])
    }

    /// Feed the UTF-8 bytes of a string.
    public mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { update(buffer: $0) }
    }

    /// The 16-byte digest. Does not change `self`, so more data may follow.
    public func digest() -> [UInt8] {
        var copy = self
        let bitLength = length &* 8
        var padding: [UInt8] = [0x80]
        let afterMarker = (buffer.count + 1) % 64
        let zeros = afterMarker <= 56 ? 56 - afterMarker : 120 - afterMarker
        padding.append(contentsOf: repeatElement(0, count: zeros))
        for i in 0..<8 { padding.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }
        // Feed the padding without counting it in `length`.
        padding.withUnsafeBufferPointer { copy.update(buffer: $0) }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for word in [copy.state.0, copy.state.1, copy.state.2, copy.state.3] {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))) }
        }
        return out
    }

    /// The digest as 32 lower-case hexadecimal digits.
    public func hexDigest() -> String {
        let hex: [Character] = Array("0123456789abcdef")
        var s = ""
        s.reserveCapacity(32)
        for byte in digest() {
            s.append(hex[Int(byte >> 4)])
            s.append(hex[Int(byte & 0x0f)])
        }
        return s
    }

    /// One-shot hex digest of a string's UTF-8 bytes.
    public static func hex(_ string: String) -> String {
        var md5 = MD5()
        md5.update(string)
        return md5.hexDigest()
    }

    /// One 64-byte block (`block` is any 64-element slice).
    private mutating func processBlock<Block: Collection>(_ block: Block) where Block.Element == UInt8, Block.Index == Int {
        var m = [UInt32](filled: 0, count: 16)
        let base = block.startIndex
        for i in 0..<16 {
            let o = base + 4 * i
            m[i] = UInt32(block[o]) | UInt32(block[o + 1]) << 8 | UInt32(block[o + 2]) << 16 | UInt32(block[o + 3]) << 24
        }
        var a = state.0, b = state.1, c = state.2, d = state.3
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16:
                f = (b & c) | (~b & d)
                g = i
            case 16..<32:
                f = (d & b) | (~d & c)
                g = (5 * i + 1) % 16
            case 32..<48:
                f = b ^ c ^ d
                g = (3 * i + 5) % 16
            default:
                f = c ^ (b | ~d)
                g = (7 * i) % 16
            }
            f = f &+ a &+ MD5.constants[i] &+ m[g]
            a = d
            d = c
            c = b
            let s = MD5.shifts[i]
            b = b &+ ((f << s) | (f >> (32 - s)))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
