// SPDX-License-Identifier: Apache-2.0
/// Hash functions shared by data placement (DISTKEY), exchanges, joins and
/// aggregation. They must be deterministic across runs: a row's slice is a
/// function of its DISTKEY value alone.
public enum Hashing {
    public static let nullHash: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// A strong 64-bit mix of an integer (murmur3 finalizer).
    @inlinable public static func hash(_ x: UInt64) -> UInt64 {
        var h = x &+ 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }
    @inlinable public static func hash(_ x: Int64) -> UInt64 { hash(UInt64(bitPattern: x)) }
    @inlinable public static func hash(_ x: Int128) -> UInt64 {
        hash(UInt64(truncatingIfNeeded: x) ^ hash(UInt64(truncatingIfNeeded: x >> 64)))
    }
    @inlinable public static func hash(_ x: Double) -> UInt64 {
        // -0.0 and 0.0 are equal in SQL; NaNs hash alike.
        if x == 0 { return hash(UInt64(0)) }
        if x.isNaN { return hash(UInt64(0x7FF8_0000_0000_0000)) }
        return hash(x.bitPattern)
    }
    /// Bytes hashed 8 at a time.
    @inlinable public static func hash(bytes p: UnsafePointer<UInt8>?, count n: Int) -> UInt64 {
        hash(bytes: p, count: n, seed: 0)
    }
    /// `hash(bytes:count:)` of another family: a different `seed` gives hashes unrelated to
    /// the unseeded ones (a distinct-value sketch of a slice's rows, whose unseeded hashes
    /// share the bits that chose the slice).
    @inlinable public static func hash(bytes p: UnsafePointer<UInt8>?, count n: Int, seed: UInt64) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(n) ^ seed
        guard let p, n > 0 else { return hash(h) }
        var i = 0
        let raw = UnsafeRawPointer(p)
        while i + 8 <= n {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = (h ^ w) &* 0x1000_0000_01B3
            h = (h << 31) | (h >> 33)
            i += 8
        }
        // The last n - i (< 8) bytes as a little-endian word, without a byte loop:
        // overlapping loads inside the value, shifted so each byte lands once.
        let r = n - i
        var tail: UInt64 = 0
        if r > 0 {
            if n >= 8 {
                tail = raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self).littleEndian >> UInt64(8 * (8 - r))
            } else if r >= 4 {
                let lo = UInt64(raw.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian)
                let hi = UInt64(raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self).littleEndian)
                tail = lo | (hi >> UInt64(8 * (8 - r))) << 32
            } else {
                tail = UInt64(p[i]) | UInt64(p[i + r / 2]) << UInt64(8 * (r / 2)) | UInt64(p[n - 1]) << UInt64(8 * (r - 1))
            }
        }
        h = (h ^ tail) &* 0x1000_0000_01B3
        return hash(h)
    }
    /// The slot (or bucket) of hash `h` in a table of `mask + 1`, a power of two: the
    /// hash's bits from 20 up. Not its low bits: a row's slice is its key hash modulo the
    /// slice count, so the rows of one slice share those bits, and a table indexed by
    /// them would use a quarter of its slots on four slices (runs of four times the
    /// length to probe); nor its top 16, which a group table keeps as a salt.
    @inlinable public static func slot(_ h: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: h &>> 20) & mask
    }

    /// Each hash's bucket among `n` (`hash % n`: a row's slice or target partition),
    /// written to `out[i]`; a mask when `n` is a power of two (no division per row).
    @inlinable public static func buckets(_ hashes: UnsafeBufferPointer<UInt64>, of n: Int,
                                          into out: UnsafeMutableBufferPointer<Int32>) {
        precondition(n > 0 && out.count >= hashes.count, "bucket count or output size")
        let m = UInt64(n)
        if n & (n - 1) == 0 {
            let mask = m - 1
            for i in 0..<hashes.count { out[i] = Int32(truncatingIfNeeded: hashes[i] & mask) }
        } else {
            for i in 0..<hashes.count { out[i] = Int32(truncatingIfNeeded: hashes[i] % m) }
        }
    }

    @inlinable public static func combine(_ a: UInt64, _ b: UInt64) -> UInt64 {
        (a ^ (b &+ 0x9E37_79B9_7F4A_7C15 &+ (a << 6) &+ (a >> 2)))
    }
}

extension Vector {
    /// Hash every row listed by `rows` (or all `count` rows when nil) into `hashes`
    /// (one entry per listed row). With `combine`, mixes into the existing values.
    public func hash(rows: [Int32]?, count n: Int, into hashes: inout [UInt64], combine: Bool) {
        if !combine { hashes.resize(to: n, padding: 0) }
        @inline(__always) func put(_ k: Int, _ h: UInt64) {
            hashes[k] = combine ? Hashing.combine(hashes[k], h) : h
        }
        let const = isConstant
        // The common case, a flat 64-bit column without NULLs: one tight loop.
        if !const, validity == nil, case .int64(let a) = data {
            Self.hashInt64(a, rows: rows, count: n, into: &hashes, combine: combine)
            return
        }
        switch data {
        case .int64(let a):
            a.withUnsafeBufferPointer { p in
                for k in 0..<n {
                    let i = const ? 0 : (rows.map { Int($0[k]) } ?? k)
                    put(k, isNull(i) ? Hashing.nullHash : Hashing.hash(p[i]))
                }
            }
        case .int128(let a):
            for k in 0..<n {
                let i = const ? 0 : (rows.map { Int($0[k]) } ?? k)
                put(k, isNull(i) ? Hashing.nullHash : Hashing.hash(a[i]))
            }
        case .double(let a):
            for k in 0..<n {
                let i = const ? 0 : (rows.map { Int($0[k]) } ?? k)
                put(k, isNull(i) ? Hashing.nullHash : Hashing.hash(a[i]))
            }
        case .bool(let a):
            for k in 0..<n {
                let i = const ? 0 : (rows.map { Int($0[k]) } ?? k)
                put(k, isNull(i) ? Hashing.nullHash : Hashing.hash(UInt64(a[i] ? 1 : 0)))
            }
        case .string(let s):
            s.bytes.withUnsafeBufferPointer { bp in
                for k in 0..<n {
                    let i = const ? 0 : (rows.map { Int($0[k]) } ?? k)
                    if isNull(i) { put(k, Hashing.nullHash); continue }
                    let st = Int(s.offsets[i]), en = Int(s.offsets[i + 1])
                    put(k, Hashing.hash(bytes: bp.baseAddress.map { $0 + st }, count: en - st))
                }
            }
        }
    }

    /// `hash(rows:count:into:combine:)` for a flat Int64 column without NULLs.
    @inline(__always)
    static func hashInt64(_ a: [Int64], rows: [Int32]?, count n: Int, into hashes: inout [UInt64], combine: Bool) {
        if !combine { hashes.resize(to: n, padding: 0) }
        precondition(hashes.count >= n, "hash buffer shorter than its rows")
        a.withUnsafeBufferPointer { p in
            hashes.withUnsafeMutableBufferPointer { h in
                if let rows {
                    precondition(rows.count >= n, "fewer row numbers than rows")
                    rows.withUnsafeBufferPointer { r in
                        for k in 0..<n {
                            let x = Hashing.hash(p[Int(r[k])])
                            h[k] = combine ? Hashing.combine(h[k], x) : x
                        }
                    }
                } else {
                    precondition(p.count >= n, "fewer values than rows")
                    for k in 0..<n {
                        let x = Hashing.hash(p[k])
                        h[k] = combine ? Hashing.combine(h[k], x) : x
                    }
                }
            }
        }
    }
}
