// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlanner

/// MD5 (RFC 1321), SHA-2 (FIPS 180-4) and FNV-1a, written out here (no package
/// dependency). Not constant-time; for SQL functions, not for security.
enum Digest {
    // MARK: MD5

    private static let md5Shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]
    private static let md5K: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    /// Message padded to a multiple of `block` bytes with the bit length in `lenBytes`
    /// bytes (big- or little-endian).
    private static func pad(_ msg: UnsafeBufferPointer<UInt8>, block: Int, lenBytes: Int, bigEndian: Bool) -> [UInt8] {
        var m = Array(msg)
        let bitLen = UInt64(msg.count) &* 8
        m.append(0x80)
        while (m.count + lenBytes) % block != 0 { m.append(0) }
        var len = [UInt8](filled: 0, count: lenBytes)
        for k in 0..<8 {
            let byte = UInt8(truncatingIfNeeded: bitLen >> (8 * UInt64(k)))
            if bigEndian { len[lenBytes - 1 - k] = byte } else { len[k] = byte }
        }
        m.append(contentsOf: len)
        return m
    }

    static func md5(_ msg: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let m = pad(msg, block: 64, lenBytes: 8, bigEndian: false)
        var a0: UInt32 = 0x6745_2301, b0: UInt32 = 0xefcd_ab89, c0: UInt32 = 0x98ba_dcfe, d0: UInt32 = 0x1032_5476
        var w = [UInt32](filled: 0, count: 16)
        for chunk in stride(from: 0, to: m.count, by: 64) {
            for k in 0..<16 {
                let o = chunk + 4 * k
                w[k] = UInt32(m[o]) | UInt32(m[o + 1]) << 8 | UInt32(m[o + 2]) << 16 | UInt32(m[o + 3]) << 24
            }
            var a = a0, b = b0, c = c0, d = d0
            for i in 0..<64 {
                var f: UInt32, g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * i) % 16
                }
                f = f &+ a &+ md5K[i] &+ w[g]
                a = d; d = c; c = b
                let s = md5Shifts[i]
                b = b &+ ((f << s) | (f >> (32 - s)))
            }
            a0 = a0 &+ a; b0 = b0 &+ b; c0 = c0 &+ c; d0 = d0 &+ d
        }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for word in [a0, b0, c0, d0] { for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(k)))) } }
        return out
    }

    // MARK: SHA-256 / SHA-224

    private static let k256: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    private static let h256: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private static let h224: [UInt32] = [0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4]

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    @inline(__always) private static func rotr(_ x: UInt64, _ n: UInt64) -> UInt64 { (x >> n) | (x << (64 - n)) }

    static func sha256(_ msg: UnsafeBufferPointer<UInt8>, is224: Bool = false) -> [UInt8] {
        let m = pad(msg, block: 64, lenBytes: 8, bigEndian: true)
        var h = is224 ? h224 : h256
        var w = [UInt32](filled: 0, count: 64)
        for chunk in stride(from: 0, to: m.count, by: 64) {
            for t in 0..<16 {
                let o = chunk + 4 * t
                w[t] = UInt32(m[o]) << 24 | UInt32(m[o + 1]) << 16 | UInt32(m[o + 2]) << 8 | UInt32(m[o + 3])
            }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for t in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k256[t] &+ w[t]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
            h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
        }
        var out: [UInt8] = []
        for word in h.prefix(is224 ? 7 : 8) { for k in (0..<4).reversed() { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(k)))) } }
        return out
    }

    // MARK: SHA-512 / SHA-384

    private static let k512: [UInt64] = [
        0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
        0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
        0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
        0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
        0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
        0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
        0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
        0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
        0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
        0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
        0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
        0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
        0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
        0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
        0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
        0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    ]
    private static let h512: [UInt64] = [
        0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
        0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
    ]
    private static let h384: [UInt64] = [
        0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
        0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4,
    ]

    static func sha512(_ msg: UnsafeBufferPointer<UInt8>, is384: Bool = false) -> [UInt8] {
        // The length field is 128 bits; messages here are far below 2^64 bits.
        let m = pad(msg, block: 128, lenBytes: 16, bigEndian: true)
        var h = is384 ? h384 : h512
        var w = [UInt64](filled: 0, count: 80)
        for chunk in stride(from: 0, to: m.count, by: 128) {
            for t in 0..<16 {
                var x: UInt64 = 0
                for k in 0..<8 { x = x << 8 | UInt64(m[chunk + 8 * t + k]) }
                w[t] = x
            }
            for t in 16..<80 {
                let s0 = rotr(w[t - 15], 1) ^ rotr(w[t - 15], 8) ^ (w[t - 15] >> 7)
                let s1 = rotr(w[t - 2], 19) ^ rotr(w[t - 2], 61) ^ (w[t - 2] >> 6)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for t in 0..<80 {
                let s1 = rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k512[t] &+ w[t]
                let s0 = rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
            h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
        }
        var out: [UInt8] = []
        for word in h.prefix(is384 ? 6 : 8) { for k in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(k)))) } }
        return out
    }

    // MARK: FNV-1a

    static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

    @inline(__always) static func fnv1a(_ p: UnsafeBufferPointer<UInt8>, seed: UInt64 = fnvOffset) -> UInt64 {
        var h = seed
        for b in p { h = (h ^ UInt64(b)) &* fnvPrime }
        return h
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    static func appendHex(_ bytes: [UInt8], to out: inout StringBuilder) {
        for b in bytes { out.append(hexDigits[Int(b >> 4)]); out.append(hexDigits[Int(b & 15)]) }
    }
}

/// MD5(text), SHA2(text, bits), FNV_HASH(value [, seed]).
enum HashFunctions {
    static func md5(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let s = try StringKernels.input(v)
        return try StringKernels.mapRows([v], n: n, resultType: resultType) { i, out in
            Digest.appendHex(StringKernels.with(s, i) { Digest.md5($0) }, to: &out)
        }
    }

    /// SHA2(text, bits): bits 0 or 256 → SHA-256, 224, 384, 512; any other bit count gives NULL.
    static func sha2(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try StringKernels.input(args[0])
        let bits = try StringKernels.intInput(args[1])
        var r = try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
            let digest: [UInt8]? = StringKernels.with(s, i) { p in
                switch bits[i] {
                case 0, 256: return Digest.sha256(p)
                case 224: return Digest.sha256(p, is224: true)
                case 384: return Digest.sha512(p, is384: true)
                case 512: return Digest.sha512(p)
                default: return nil
                }
            }
            if let digest { Digest.appendHex(digest, to: &out) }
        }
        // Unsupported bit counts are NULL.
        let len = r.isConstant ? 1 : n
        var validity = r.validity
        for i in 0..<len where Kern.valid(r.validity, i) && !r.isNull(i) {
            switch bits[i] {
            case 0, 224, 256, 384, 512: continue
            default:
                if validity == nil { validity = Validity(allValid: len) }
                validity?.setInvalid(i)
            }
        }
        r.validity = validity
        return r
    }

    /// FNV_HASH(value [, seed]): 64-bit FNV-1a over the value's text form (integers and
    /// decimals as their decimal text, dates/timestamps in ISO form), as BIGINT. The
    /// seed, when given, replaces the offset basis (Redshift chains hashes this way).
    /// Redshift hashes some types' binary form, so values can differ from Redshift's.
    static func fnv(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let v = args[0].type.isString ? args[0] : try CastKernels.cast(args[0], to: .varchar(DataType.maxVarcharLength))
        let s = try StringKernels.input(v)
        let seed: IntInput? = args.count > 1 ? try StringKernels.intInput(args[1]) : nil
        var all = args
        all[0] = v
        return try StringKernels.mapRowsInt(all, n: n, resultType: resultType) { i in
            let basis = seed.map { UInt64(bitPattern: $0[i]) } ?? Digest.fnvOffset
            return Int64(bitPattern: StringKernels.with(s, i) { Digest.fnv1a($0, seed: basis) })
        }
    }
}
