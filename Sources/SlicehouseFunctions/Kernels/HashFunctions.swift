// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import Crypto

/// SHA-224 (FIPS 180-4: SHA-256's compression from other start values) and FNV-1a, written
/// out here because swift-crypto has neither; MD5, SHA-256, SHA-384 and SHA-512 are
/// swift-crypto's. Not constant-time; for SQL functions, not for security.
package enum Digest {
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

    package static func sha256(_ msg: UnsafeBufferPointer<UInt8>, is224: Bool = false) -> [UInt8] {
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

    // MARK: FNV-1a

    package static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    package static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

    @inline(__always) package static func fnv1a(_ p: UnsafeBufferPointer<UInt8>, seed: UInt64 = fnvOffset) -> UInt64 {
        var h = seed
        for b in p { h = (h ^ UInt64(b)) &* fnvPrime }
        return h
    }

    package static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    package static func appendHex(_ bytes: [UInt8], to out: inout StringBuilder) {
        for b in bytes { out.append(hexDigits[Int(b >> 4)]); out.append(hexDigits[Int(b & 15)]) }
    }
}

/// MD5(text), SHA2(text, bits), FNV_HASH(value [, seed]).
package enum HashFunctions {
    package static func md5(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        let s = try StringKernels.input(v)
        return try StringKernels.mapRows([v], n: n, resultType: resultType) { i, out in
            Digest.appendHex(StringKernels.with(s, i) { Array(Insecure.MD5.hash(data: UnsafeRawBufferPointer($0))) }, to: &out)
        }
    }

    /// SHA2(text, bits): bits 0 or 256 → SHA-256, 224, 384, 512; any other bit count gives NULL.
    package static func sha2(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let s = try StringKernels.input(args[0])
        let bits = try StringKernels.intInput(args[1])
        var r = try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
            let digest: [UInt8]? = StringKernels.with(s, i) { p in
                switch bits[i] {
                case 0, 256: return Array(SHA256.hash(data: UnsafeRawBufferPointer(p)))
                case 224: return Digest.sha256(p, is224: true)
                case 384: return Array(SHA384.hash(data: UnsafeRawBufferPointer(p)))
                case 512: return Array(SHA512.hash(data: UnsafeRawBufferPointer(p)))
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

    /// CHECKSUM(x) → INTEGER: an integer is its own checksum and a DECIMAL its unscaled
    /// digits (Redshift's example: commission 109.20 gives 10920), folded into 32 bits
    /// when wider; text hashes to 32 bits (FNV-1a folded: Redshift's text checksum is
    /// undocumented, see docs/DIFFERENCES.md).
    package static func checksum(_ v: Vector, resultType: DataType, n: Int) throws -> Vector {
        @inline(__always) func fold(_ x: Int64) -> Int64 {
            Int64(Int32(exactly: x) ?? Int32(truncatingIfNeeded: x ^ (x >> 32)))
        }
        switch v.data {
        case .int64(let a):
            return try StringKernels.mapRowsInt([v], n: n, resultType: resultType) { i in fold(a[i]) }
        case .int128(let a):
            return try StringKernels.mapRowsInt([v], n: n, resultType: resultType) { i in
                let x = a[i]
                return fold(Int64(exactly: x) ?? (Int64(truncatingIfNeeded: x) ^ Int64(truncatingIfNeeded: x >> 64)))
            }
        default:
            let s = try StringKernels.input(v)
            return try StringKernels.mapRowsInt([v], n: n, resultType: resultType) { i in
                let h = StringKernels.with(s, i) { Digest.fnv1a($0) }
                return Int64(Int32(truncatingIfNeeded: h ^ (h >> 32)))
            }
        }
    }

    /// FNV_HASH(value [, seed]): 64-bit FNV-1a over the value's text form (integers and
    /// decimals as their decimal text, dates/timestamps in ISO form), as BIGINT. The
    /// seed, when given, replaces the offset basis (Redshift chains hashes this way).
    /// Redshift hashes some types' binary form, so values can differ from Redshift's.
    package static func fnv(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
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
