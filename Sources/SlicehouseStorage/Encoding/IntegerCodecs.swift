// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Encodings of the integer kinds (int64: SMALLINT … TIMESTAMP and DECIMAL(p≤18);
/// int128: DECIMAL(p>18)). Generic over the representation.
enum IntegerCodecs {
    static func encode<T: BlockInt>(_ v: UnsafeBufferPointer<T>, natural: Int, encoding: ColumnEncoding,
                                    into w: inout EncodingWriter) throws {
        switch encoding {
        case .raw: RawCodec.writeInts(v, width: RawCodec.intWidth(v, natural: natural), into: &w)
        case .az64: AZ64.encode(v, into: &w)
        case .delta: DeltaCodec.encode(v, natural: natural, step: 1, into: &w)
        case .delta32k: DeltaCodec.encode(v, natural: natural, step: 2, into: &w)
        case .mostly8: MostlyCodec.encode(v, natural: natural, narrow: 1, into: &w)
        case .mostly16: MostlyCodec.encode(v, natural: natural, narrow: 2, into: &w)
        case .mostly32: MostlyCodec.encode(v, natural: natural, narrow: 4, into: &w)
        case .runlength:
            RunLength.encode(count: v.count, equal: { v[$0] == v[$1] }, gather: { idx in T.wrap(idx.map { v[$0] }) },
                             natural: natural, real: false, into: &w)
        case .bytedict:
            ByteDict.encode(count: v.count, hash: { v[$0].blockHash }, equal: { v[$0] == v[$1] },
                            gather: { idx in T.wrap(idx.map { v[$0] }) }, natural: natural, real: false, into: &w)
        case .text255, .text32k, .zstd, .lzo:
            throw SQLError(.featureNotSupported, "encoding \(encoding.sqlName) is not supported for integer values")
        }
    }

    static func decode<T: BlockInt>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<T>,
                                    encoding: ColumnEncoding) throws {
        switch encoding {
        case .raw: try RawCodec.readInts(&r, n, out)
        case .az64: try AZ64.decode(&r, n, out)
        case .delta: try DeltaCodec.decode(&r, n, out, step: 1)
        case .delta32k: try DeltaCodec.decode(&r, n, out, step: 2)
        case .mostly8: try MostlyCodec.decode(&r, n, out, narrow: 1)
        case .mostly16: try MostlyCodec.decode(&r, n, out, narrow: 2)
        case .mostly32: try MostlyCodec.decode(&r, n, out, narrow: 4)
        case .runlength: try RunLength.decodeFixed(&r, n, out) { try T.readArray(&$0, $1) }
        case .bytedict: try ByteDict.decodeFixed(&r, n, out) { try T.readArray(&$0, $1) }
        case .text255, .text32k, .zstd, .lzo:
            throw corruptBlock("encoding \(encoding.sqlName) cannot hold integer values")
        }
    }
}

/// AZ64 (our design; Redshift's is proprietary). The values are a sequence of chunks,
/// each starting with a mode byte (0 frame of reference, 1 delta, 2 run; +4 when
/// the chunk has exceptions):
///   run (16 or more equal values in a row): zigzag varint (value − previous value),
///       varint length;
///   frame of reference over m = min(128, values left) values: u8 width b, zigzag
///       varint base, [varint exception count], m × b bits of (v − base), exceptions;
///   delta over the same m values: u8 width b, zigzag varint first, zigzag varint
///       delta base, [varint exception count], (m − 1) × b bits of
///       (delta − delta base), exceptions.
/// A packed chunk takes whichever of the two is smaller: delta wins on sorted or
/// slowly changing data (keys, dates, timestamps), runs cover sorted columns with
/// duplicates and constants. Exceptions make it a *patched* frame of reference: b
/// may be narrower than the group's range, and each value outside
/// [base, base + 2^b) is an exception (u8 index, zigzag varint of value − base; its
/// packed slot is ignored). The encoder tries keeping the low end (high outliers)
/// and the high end (low outliers, e.g. zero or sentinel values) and picks the
/// smaller, so a few outliers no longer widen the whole group.
/// A *scaled* chunk (+8 on a frame-of-reference or delta chunk) packs values z that
/// share a common factor: after the width come zigzag varint o (the smallest z) and
/// varint s ≥ 2, and what follows (base, exceptions, packed bits) describes
/// y = (z − o) / s, so z = o + s × y. z is the value (frame of reference) or the
/// delta (delta): DECIMAL amounts in whole units (quantities 1.00 … 50.00 take 6 bits,
/// not 13) and timestamps at whole seconds (a million microseconds apart).
/// Bits are packed LSB first; widths above 64 (int128 only) are two streams, low
/// 64 bits then the rest. Arithmetic wraps, so every value, including
/// Int64.min/max and Int128 extremes, round-trips. The payload ends with 8 zero
/// bytes so the decoder can always load whole 64-bit words.
enum AZ64 {
    static let groupSize = 128
    static let minRun = 16
    static let modeFOR: UInt8 = 0, modeDelta: UInt8 = 1, modeRun: UInt8 = 2, withExceptions: UInt8 = 4
    static let scaled: UInt8 = 8

    /// How one group's values are packed.
    struct Plan<T: BlockInt> {
        var base: T
        var width: Int
        var exceptions: Int
        var bytes: Int

        @inline(__always) func isException(_ x: T) -> Bool {
            width < T.bitWidth && T.Magnitude(truncatingIfNeeded: x &- base) >> width != 0
        }
    }

    /// The cheapest packing of `k` values: full range, or a narrower window at the
    /// low or the high end with the values outside it as exceptions.
    static func plan<T: BlockInt>(_ x: UnsafeMutablePointer<T>, _ k: Int, _ hist: UnsafeMutablePointer<Int>) -> Plan<T> {
        var lo = x[0], hi = x[0]
        if T.self == Int64.self, let r = MinMax.of(UnsafeRawPointer(x).assumingMemoryBound(to: Int64.self), k) {
            lo = T(truncatingIfNeeded: r.min)
            hi = T(truncatingIfNeeded: r.max)
        } else {
            for i in 1..<max(k, 1) {
                if x[i] < lo { lo = x[i] }
                if x[i] > hi { hi = x[i] }
            }
        }
        let full = bitsNeeded(T.Magnitude(truncatingIfNeeded: hi &- lo))
        var best = Plan(base: lo, width: full, exceptions: 0, bytes: BitPack.byteCount(k, full))
        if full <= 2 || k < 16 { return best }
        // How many offsets from each end are at least full-1 … full-4 bits wide. The
        // search below usually stops within those top widths (once a quarter of the
        // values would be exceptions), so they are counted first in one pass without
        // dependent histogram updates; the full histogram only when it goes deeper.
        let counts: (low: WidthCounts, high: WidthCounts)
        if T.self == Int64.self && full <= 32 {
            counts = Self.topWidthCounts32(UnsafeRawPointer(x).assumingMemoryBound(to: Int64.self), k,
                                           lo: Int64(truncatingIfNeeded: lo),
                                           range: UInt32(truncatingIfNeeded: hi &- lo), full: full)
        } else {
            counts = Self.topWidthCounts(x, k, lo: lo, hi: hi, full: full)
        }
        for side in 0..<2 {
            let highEnd = side == 1
            @inline(__always) func offset(_ i: Int) -> T.Magnitude {
                highEnd ? T.Magnitude(truncatingIfNeeded: hi &- x[i]) : T.Magnitude(truncatingIfNeeded: x[i] &- lo)
            }
            let atLeast = highEnd ? counts.high : counts.low
            var fullHistogram = false
            func exactly(_ w: Int) -> Int {
                switch full - w {
                case 0: return atLeast.0
                case 1: return atLeast.1 - atLeast.0
                case 2: return atLeast.2 - atLeast.1
                case 3 where full >= 4: return atLeast.3 - atLeast.2
                default:
                    if !fullHistogram {
                        hist.initialize(repeating: 0, count: full + 1)
                        for i in 0..<k { hist[bitsNeeded(offset(i))] += 1 }
                        fullHistogram = true
                    }
                    return hist[w]
                }
            }
            // Offsets wider than b become exceptions: index byte + varint of ~j + 1 bits.
            var b = full - 1
            var exc = 0, excBytes = 0
            while b >= 0 {
                let wide = exactly(b + 1)
                exc += wide
                excBytes += wide * (1 + (b + 1 + 7) / 7)
                if exc * 4 > k { break }  // a quarter of the values as exceptions never pays
                let bytes = BitPack.byteCount(k, b) + varintSize(UInt64(exc)) + excBytes
                if bytes < best.bytes {
                    let base = highEnd ? hi &- T(truncatingIfNeeded: (T.Magnitude(1) << b) &- 1) : lo
                    best = Plan(base: base, width: b, exceptions: exc, bytes: bytes)
                }
                b -= 1
            }
        }
        return best
    }

    /// Offsets of at least full-1, full-2, full-3 and max(full-4, 0) bits' magnitude.
    typealias WidthCounts = (Int, Int, Int, Int)

    /// `WidthCounts` of the offsets from `lo` (low) and from `hi` (high).
    @inline(__always)
    static func topWidthCounts<T: BlockInt>(_ x: UnsafeMutablePointer<T>, _ k: Int, lo: T, hi: T,
                                            full: Int) -> (low: WidthCounts, high: WidthCounts) {
        let t1 = full - 1, t2 = full - 2, t3 = full - 3, t4 = max(full - 4, 0)
        var low = (0, 0, 0, 0), high = (0, 0, 0, 0)
        for i in 0..<k {
            let d = T.Magnitude(truncatingIfNeeded: x[i] &- lo)
            low.0 &+= d &>> t1 != 0 ? 1 : 0
            low.1 &+= d &>> t2 != 0 ? 1 : 0
            low.2 &+= d &>> t3 != 0 ? 1 : 0
            low.3 &+= d &>> t4 != 0 ? 1 : 0
            let e = T.Magnitude(truncatingIfNeeded: hi &- x[i])
            high.0 &+= e &>> t1 != 0 ? 1 : 0
            high.1 &+= e &>> t2 != 0 ? 1 : 0
            high.2 &+= e &>> t3 != 0 ? 1 : 0
            high.3 &+= e &>> t4 != 0 ? 1 : 0
        }
        return (low, high)
    }

    /// `topWidthCounts` for 64-bit values whose range fits in 32 bits (nearly every
    /// group of real data): offsets from `lo` as UInt32, and every count a comparison
    /// of that offset with a constant (an offset from the high end is at least 2^t
    /// exactly when the offset from the low end is at most range - 2^t), which the
    /// compiler turns into 8-lane vector code.
    static func topWidthCounts32(_ x: UnsafePointer<Int64>, _ k: Int, lo: Int64, range: UInt32,
                                 full: Int) -> (low: WidthCounts, high: WidthCounts) {
        let t1 = full - 1, t2 = full - 2, t3 = full - 3, t4 = max(full - 4, 0)
        let a = SIMD4<UInt32>(1 << t1, 1 << t2, 1 << t3, 1 << t4)
        // range >= 2^(full-1) >= each threshold, so these do not wrap.
        let b = SIMD4<UInt32>(repeating: range) &- a
        // Unsigned comparisons as signed ones (what SSE2 has): flip the sign bits.
        let flip = SIMD4<UInt32>(repeating: 0x8000_0000)
        let sa = SIMD4<Int32>(truncatingIfNeeded: a ^ flip), sb = SIMD4<Int32>(truncatingIfNeeded: b ^ flip)
        typealias Lanes = SIMD8<Int32>
        let a1 = Lanes(repeating: sa[0]), a2 = Lanes(repeating: sa[1])
        let a3 = Lanes(repeating: sa[2]), a4 = Lanes(repeating: sa[3])
        let b1 = Lanes(repeating: sb[0]), b2 = Lanes(repeating: sb[1])
        let b3 = Lanes(repeating: sb[2]), b4 = Lanes(repeating: sb[3])
        var l1 = Lanes(), l2 = Lanes(), l3 = Lanes(), l4 = Lanes()
        var h1 = Lanes(), h2 = Lanes(), h3 = Lanes(), h4 = Lanes()
        let one = Lanes(repeating: 1), zero = Lanes()
        let lo32 = SIMD8<UInt32>(repeating: UInt32(truncatingIfNeeded: lo))
        let flip8 = SIMD8<UInt32>(repeating: 0x8000_0000)
        let raw = UnsafeRawPointer(x)
        var i = 0
        while i + 8 <= k {
            // Offsets fit in 32 bits, so the low halves' difference is the offset.
            let v = SIMD8<UInt32>(
                lowHalf: SIMD4<UInt32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: i &* 8, as: SIMD4<Int64>.self)),
                highHalf: SIMD4<UInt32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: i &* 8 &+ 32, as: SIMD4<Int64>.self)))
            let d = Lanes(truncatingIfNeeded: (v &- lo32) ^ flip8)
            l1 &+= zero.replacing(with: one, where: d .>= a1)
            l2 &+= zero.replacing(with: one, where: d .>= a2)
            l3 &+= zero.replacing(with: one, where: d .>= a3)
            l4 &+= zero.replacing(with: one, where: d .>= a4)
            h1 &+= zero.replacing(with: one, where: d .<= b1)
            h2 &+= zero.replacing(with: one, where: d .<= b2)
            h3 &+= zero.replacing(with: one, where: d .<= b3)
            h4 &+= zero.replacing(with: one, where: d .<= b4)
            i += 8
        }
        var low = (Int(l1.wrappedSum()), Int(l2.wrappedSum()), Int(l3.wrappedSum()), Int(l4.wrappedSum()))
        var high = (Int(h1.wrappedSum()), Int(h2.wrappedSum()), Int(h3.wrappedSum()), Int(h4.wrappedSum()))
        while i < k {
            let d = UInt32(truncatingIfNeeded: x[i] &- lo)
            low.0 += d >= a[0] ? 1 : 0; low.1 += d >= a[1] ? 1 : 0
            low.2 += d >= a[2] ? 1 : 0; low.3 += d >= a[3] ? 1 : 0
            high.0 += d <= b[0] ? 1 : 0; high.1 += d <= b[1] ? 1 : 0
            high.2 += d <= b[2] ? 1 : 0; high.3 += d <= b[3] ? 1 : 0
            i += 1
        }
        return (low, high)
    }

    static func encode<T: BlockInt>(_ v: UnsafeBufferPointer<T>, into w: inout EncodingWriter) {
        let n = v.count
        var deltaVals = [T](filled: 0, count: groupSize)
        var scaledVals = [T](filled: 0, count: groupSize)
        var hist = [Int](filled: 0, count: 130)
        guard n > 0, let vp = v.baseAddress else {
            w.extend(8) { _ in }
            return
        }
        deltaVals.withUnsafeMutableBufferPointer { db in
          scaledVals.withUnsafeMutableBufferPointer { sb in
            hist.withUnsafeMutableBufferPointer { hb in
                guard let d = db.baseAddress, let y = sb.baseAddress, let h = hb.baseAddress else { return }
                let src = UnsafeMutablePointer(mutating: vp)
                var g = 0
                while g < n {
                    var run = 1
                    while g + run < n && v[g + run] == v[g] { run += 1 }
                    if run >= minRun {
                        w.u8(modeRun)
                        w.varint((v[g] &- (g > 0 ? v[g - 1] : 0)).zigzag)
                        w.varint(UInt64(run))
                        g += run
                        continue
                    }
                    let m = min(groupSize, n - g)
                    let pf = plan(src + g, m, h)
                    let forBytes = varintSize(pf.base.zigzag) + pf.bytes
                    var pd = Plan<T>(base: 0, width: 0, exceptions: 0, bytes: Int.max)
                    var deltaBytes = Int.max
                    if m >= 3 && pf.bytes > 0 {
                        for i in 0..<(m - 1) { d[i] = v[g + i + 1] &- v[g + i] }
                        pd = plan(d, m - 1, h)
                        deltaBytes = varintSize(v[g].zigzag) + varintSize(pd.base.zigzag) + pd.bytes
                    }
                    // The same two with a common factor taken out (into `y`), when there is one.
                    let useDelta = deltaBytes < forBytes
                    let z = useDelta ? d : src + g, k = useDelta ? m - 1 : m
                    let plain = useDelta ? pd : pf
                    if plain.width >= 2, let f = factor(z, k) {
                        let (o, sc) = (f.origin, f.scale)
                        for i in 0..<k { y[i] = T(truncatingIfNeeded: UInt64(truncatingIfNeeded: z[i] &- o) / sc) }
                        let ps = plan(y, k, h)
                        let extra = varintSize(o.zigzag) + varintSize(sc)
                        if ps.bytes + extra + varintSize(ps.base.zigzag) < plain.bytes + varintSize(plain.base.zigzag) {
                            w.u8((useDelta ? modeDelta : modeFOR) | scaled | (ps.exceptions > 0 ? withExceptions : 0))
                            w.u8(UInt8(ps.width))
                            w.varint(o.zigzag)
                            w.varint(sc)
                            if useDelta { w.varint(v[g].zigzag) }
                            w.varint(ps.base.zigzag)
                            write(y, k, ps, into: &w)
                            g += m
                            continue
                        }
                    }
                    if useDelta {
                        w.u8(modeDelta | (pd.exceptions > 0 ? withExceptions : 0))
                        w.u8(UInt8(pd.width))
                        w.varint(v[g].zigzag)
                        w.varint(pd.base.zigzag)
                        write(d, m - 1, pd, into: &w)
                    } else {
                        w.u8(modeFOR | (pf.exceptions > 0 ? withExceptions : 0))
                        w.u8(UInt8(pf.width))
                        w.varint(pf.base.zigzag)
                        write(src + g, m, pf, into: &w)
                    }
                    g += m
                }
            }
          }
        }
        w.extend(8) { _ in }  // padding (zeros)
    }

    /// The smallest of `z[0..<k]` and the greatest common factor of every value's offset
    /// from it, when the offsets fit in 64 bits; nil when they do not or the first few
    /// already share no factor (nearly every group of data without one, found in a few steps).
    static func factor<T: BlockInt>(_ z: UnsafeMutablePointer<T>, _ k: Int) -> (origin: T, scale: UInt64)? {
        guard k >= 2 else { return nil }
        // A candidate from the first few values' distances to the first (their GCD is
        // the GCD of the offsets from the smallest value): most groups stop here.
        var g: UInt64 = 0
        for i in 1..<min(k, 9) {
            let (a, b) = (z[i], z[0])
            let d = a >= b ? T.Magnitude(truncatingIfNeeded: a &- b) : T.Magnitude(truncatingIfNeeded: b &- a)
            guard d <= T.Magnitude(UInt64.max) else { return nil }
            g = gcd(g, UInt64(truncatingIfNeeded: d))
            if g == 1 { return nil }
        }
        guard g > 1 else { return nil }
        var lo = z[0], hi = z[0]
        for i in 1..<k {
            lo = min(lo, z[i])
            hi = max(hi, z[i])
        }
        guard T.Magnitude(truncatingIfNeeded: hi &- lo) <= T.Magnitude(UInt64.max) else { return nil }
        @inline(__always) func offset(_ i: Int) -> UInt64 { UInt64(truncatingIfNeeded: z[i] &- lo) }
        // Every offset checked against the candidate (which shrinks when one is not a multiple).
        var test = ExactDivision(g)
        for i in 0..<k where !test.divides(offset(i)) {
            g = gcd(g, offset(i))
            if g == 1 { return nil }
            test = ExactDivision(g)
        }
        return (lo, g)
    }

    /// Binary GCD (`gcd(0, b) == b`).
    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        if a == 0 { return b }
        if b == 0 { return a }
        var a = a, b = b
        let shift = (a | b).trailingZeroBitCount
        a >>= UInt64(a.trailingZeroBitCount)
        repeat {
            b >>= UInt64(b.trailingZeroBitCount)
            if a > b { swap(&a, &b) }
            b -= a
        } while b != 0
        return a << UInt64(shift)
    }

    /// Whether a 64-bit value is a multiple of d, without a division: d = 2^s × q (q odd);
    /// x is a multiple exactly when its low s bits are zero and (x >> s) times q's
    /// inverse modulo 2^64 is at most (2^64 − 1) / q (Granlund and Montgomery).
    struct ExactDivision {
        let shift: UInt64
        let inverse: UInt64
        let limit: UInt64

        init(_ d: UInt64) {
            let s = d.trailingZeroBitCount
            let q = d >> UInt64(s)
            var x = q  // correct to 3 bits; each step doubles the correct bits
            for _ in 0..<5 { x = x &* (2 &- q &* x) }
            shift = UInt64(s)
            inverse = x
            limit = UInt64.max / q
        }

        @inline(__always) func divides(_ x: UInt64) -> Bool {
            x & ((1 << shift) &- 1) == 0 && (x >> shift) &* inverse <= limit
        }
    }

    static func write<T: BlockInt>(_ x: UnsafeMutablePointer<T>, _ k: Int, _ p: Plan<T>, into w: inout EncodingWriter) {
        let b = p.width, base = p.base
        if p.exceptions > 0 { w.varint(UInt64(p.exceptions)) }
        BitPack.pack(into: &w, count: k, width: min(b, 64)) { UInt64(truncatingIfNeeded: x[$0] &- base) }
        if b > 64 {
            BitPack.pack(into: &w, count: k, width: b - 64) { UInt64(truncatingIfNeeded: T.Magnitude(truncatingIfNeeded: x[$0] &- base) >> 64) }
        }
        if p.exceptions > 0 {
            for i in 0..<k where p.isException(x[i]) {
                w.u8(UInt8(i))
                w.varint((x[i] &- base).zigzag)
            }
        }
    }

    /// Unpack `k` values of width `b` as `base + packed` into `out`, then apply `exceptions`.
    static func unpack<T: BlockInt>(_ r: inout EncodingReader, count k: Int, width b: Int, base: T, exceptions: Int,
                                    _ out: UnsafeMutablePointer<T>,
                                    _ lo: UnsafeMutablePointer<UInt64>, _ hi: UnsafeMutablePointer<UInt64>) throws {
        let lw = min(b, 64)
        let b1 = BitPack.byteCount(k, lw)
        guard r.remaining >= b1 + 8 else { throw corruptBlock("truncated AZ64 group") }
        BitPack.unpack(r.pointer, count: k, width: lw, into: lo)
        r.pos += b1
        if b > 64 {
            let b2 = BitPack.byteCount(k, b - 64)
            guard r.remaining >= b2 + 8 else { throw corruptBlock("truncated AZ64 group") }
            BitPack.unpack(r.pointer, count: k, width: b - 64, into: hi)
            r.pos += b2
            for i in 0..<k { out[i] = base &+ T(truncatingIfNeeded: (UInt128(hi[i]) << 64) | UInt128(lo[i])) }
        } else {
            for i in 0..<k { out[i] = base &+ T(truncatingIfNeeded: lo[i]) }
        }
        for _ in 0..<exceptions {
            let idx = Int(try r.u8("AZ64 exception"))
            guard idx < k else { throw corruptBlock("AZ64 exception index \(idx) of \(k)") }
            out[idx] = base &+ T.unzigzag(try r.varint(T.Magnitude.self, "AZ64 exception"))
        }
    }

    static func decode<T: BlockInt>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<T>) throws {
        try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * groupSize) { tmp in
            try withUnsafeTemporaryAllocation(of: T.self, capacity: groupSize) { dtmp in
                let scratch = Scratch(lo: tmp.baseAddress!, hi: tmp.baseAddress! + groupSize, deltas: dtmp.baseAddress!)
                var g = 0
                while g < n {
                    switch try step(&r, left: n - g, previous: g > 0 ? out[g - 1] : 0, out + g, scratch) {
                    case .run(let value, let count):
                        (out + g).initialize(repeating: value, count: count)
                        g += count
                    case .group(let m):
                        g += m
                    }
                }
                try r.skip(8, "AZ64 padding")
            }
        }
    }

    /// Work space of `step`: `groupSize` words each for the low and high bits, and
    /// `groupSize` deltas.
    struct Scratch<T> {
        var lo: UnsafeMutablePointer<UInt64>
        var hi: UnsafeMutablePointer<UInt64>
        var deltas: UnsafeMutablePointer<T>
    }

    /// What one AZ64 chunk decoded to.
    enum Step<T> {
        /// `count` copies of `value` (nothing written).
        case run(T, count: Int)
        /// `m` values written to the output.
        case group(Int)
    }

    /// Decode the next chunk, with `left` values left in the block and `previous` the
    /// value before it: a run is returned, a packed group written to `out` (room for
    /// `groupSize` values).
    @inline(__always)
    static func step<T: BlockInt>(_ r: inout EncodingReader, left: Int, previous: T, _ out: UnsafeMutablePointer<T>,
                                  _ s: Scratch<T>) throws -> Step<T> {
        let header = try r.u8("AZ64 chunk header")
        let mode = header & 3
        let hasExceptions = header & withExceptions != 0
        let isScaled = header & scaled != 0
        guard header & ~(3 | withExceptions | scaled) == 0, mode != 3,
              !(mode == modeRun && (hasExceptions || isScaled)) else {
            throw corruptBlock("invalid AZ64 chunk header \(header)")
        }
        if mode == modeRun {
            let d = T.unzigzag(try r.varint(T.Magnitude.self, "AZ64 run value"))
            let len = try r.count(max: left, "AZ64 run length")
            guard len > 0 else { throw corruptBlock("empty AZ64 run") }
            return .run(previous &+ d, count: len)
        }
        let m = min(groupSize, left)
        let width = Int(try r.u8("AZ64 width"))
        guard width <= T.bitWidth else { throw corruptBlock("AZ64 bit width \(width) for \(T.bitWidth)-bit values") }
        var origin: T = 0, scale: T = 1
        if isScaled {
            origin = T.unzigzag(try r.varint(T.Magnitude.self, "AZ64 scale origin"))
            let sc = try r.varint(UInt64.self, "AZ64 scale")
            guard sc >= 2 else { throw corruptBlock("AZ64 scale \(sc)") }
            scale = T(truncatingIfNeeded: sc)
        }
        let first = T.unzigzag(try r.varint(T.Magnitude.self, "AZ64 group base"))
        if mode == modeDelta {
            let dBase = T.unzigzag(try r.varint(T.Magnitude.self, "AZ64 group delta"))
            let k = m - 1
            let exc = hasExceptions ? try r.count(max: k, "AZ64 exception count") : 0
            try unpack(&r, count: k, width: width, base: dBase, exceptions: exc, s.deltas, s.lo, s.hi)
            if isScaled { for i in 0..<k { s.deltas[i] = origin &+ scale &* s.deltas[i] } }
            var acc = first
            out[0] = acc
            for i in 0..<k {
                acc = acc &+ s.deltas[i]
                out[1 + i] = acc
            }
        } else if width == 0 && !hasExceptions {
            out.initialize(repeating: origin &+ scale &* first, count: m)
        } else {
            let exc = hasExceptions ? try r.count(max: m, "AZ64 exception count") : 0
            try unpack(&r, count: m, width: width, base: first, exceptions: exc, out, s.lo, s.hi)
            if isScaled { for i in 0..<m { out[i] = origin &+ scale &* out[i] } }
        }
        return .group(m)
    }
}

/// DELTA / DELTA32K (Redshift's design): u8 width W, the first value in W bytes,
/// then per value the difference from the previous one in 1 byte (−127…127) or
/// 2 bytes (−32767…32767); a difference outside that range is the marker −128 /
/// −32768 followed by the value itself in W bytes. W is the column's natural
/// width (2 SMALLINT, 4 INTEGER/DATE, 8, 16 DECIMAL(p>18)).
enum DeltaCodec {
    static func encode<T: BlockInt>(_ v: UnsafeBufferPointer<T>, natural: Int, step: Int, into w: inout EncodingWriter) {
        let width = RawCodec.intWidth(v, natural: natural)
        w.u8(UInt8(width))
        let n = v.count
        guard n > 0 else { return }
        let limit: T = step == 1 ? 127 : 32767
        @inline(__always) func small(_ i: Int) -> T? {
            let (d, o) = v[i].subtractingReportingOverflow(v[i - 1])
            return (o || d > limit || d < -limit) ? nil : d
        }
        var escapes = 0
        for i in 1..<n where small(i) == nil { escapes += 1 }
        w.extend(width + (n - 1) * step + escapes * width) { p in
            storeInt(v[0], width: width, p)
            var pos = width
            for i in 1..<n {
                if let d = small(i) {
                    if step == 1 {
                        p.storeBytes(of: UInt8(truncatingIfNeeded: d), toByteOffset: pos, as: UInt8.self)
                    } else {
                        p.storeBytes(of: UInt16(truncatingIfNeeded: d).littleEndian, toByteOffset: pos, as: UInt16.self)
                    }
                    pos += step
                } else {
                    if step == 1 {
                        p.storeBytes(of: UInt8(0x80), toByteOffset: pos, as: UInt8.self)
                    } else {
                        p.storeBytes(of: UInt16(0x8000).littleEndian, toByteOffset: pos, as: UInt16.self)
                    }
                    pos += step
                    storeInt(v[i], width: width, p + pos)
                    pos += width
                }
            }
        }
    }

    static func decode<T: BlockInt>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<T>, step: Int) throws {
        let width = try RawCodec.readIntWidth(&r, T.self)
        guard n > 0 else { return }
        try r.need(width, "delta first value")
        var acc: T = loadInt(r.pointer, width: width)
        r.pos += width
        out[0] = acc
        let p = r.buf.baseAddress!
        let end = r.buf.count
        var pos = r.pos
        if step == 1 {
            for i in 1..<n {
                guard pos < end else { throw corruptBlock("truncated delta values") }
                let d = Int8(bitPattern: p.load(fromByteOffset: pos, as: UInt8.self))
                pos += 1
                if d == -128 {
                    guard pos + width <= end else { throw corruptBlock("truncated delta values") }
                    acc = loadInt(p + pos, width: width)
                    pos += width
                } else {
                    acc = acc &+ T(truncatingIfNeeded: d)
                }
                out[i] = acc
            }
        } else {
            for i in 1..<n {
                guard pos + 2 <= end else { throw corruptBlock("truncated delta values") }
                let d = Int16(bitPattern: UInt16(littleEndian: p.loadUnaligned(fromByteOffset: pos, as: UInt16.self)))
                pos += 2
                if d == -32768 {
                    guard pos + width <= end else { throw corruptBlock("truncated delta values") }
                    acc = loadInt(p + pos, width: width)
                    pos += width
                } else {
                    acc = acc &+ T(truncatingIfNeeded: d)
                }
                out[i] = acc
            }
        }
        r.pos = pos
    }
}

/// MOSTLY8 / MOSTLY16 / MOSTLY32 (Redshift's idea): every value that fits the
/// narrow signed width (except its minimum, which marks an exception) is stored
/// narrow; the others are exceptions stored in full afterwards, in row order.
/// Layout: u8 width W, varint exception count, count × narrow slots, exceptions × W bytes.
enum MostlyCodec {
    static func encode<T: BlockInt>(_ v: UnsafeBufferPointer<T>, natural: Int, narrow nb: Int, into w: inout EncodingWriter) {
        let width = RawCodec.intWidth(v, natural: natural)
        let hi = T((1 as Int64) << (8 * nb - 1) - 1), lo = -hi
        let n = v.count
        var exceptions = 0
        for x in v where x < lo || x > hi { exceptions += 1 }
        w.u8(UInt8(width))
        w.varint(UInt64(exceptions))
        w.extend(n * nb) { p in
            for i in 0..<n {
                let x = v[i]
                let s: T = (x < lo || x > hi) ? lo - 1 : x
                switch nb {
                case 1: p.storeBytes(of: UInt8(truncatingIfNeeded: s), toByteOffset: i, as: UInt8.self)
                case 2: p.storeBytes(of: UInt16(truncatingIfNeeded: s).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
                default: p.storeBytes(of: UInt32(truncatingIfNeeded: s).littleEndian, toByteOffset: 4 * i, as: UInt32.self)
                }
            }
        }
        w.extend(exceptions * width) { p in
            var k = 0
            for x in v where x < lo || x > hi {
                storeInt(x, width: width, p + k * width)
                k += 1
            }
        }
    }

    static func decode<T: BlockInt>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<T>, narrow nb: Int) throws {
        let width = try RawCodec.readIntWidth(&r, T.self)
        let exceptions = try r.count(max: n, "exception count")
        let slots = try r.take(n * nb, "narrow values")
        let exc = try r.take(exceptions * width, "exception values")
        guard n > 0, let sp = slots.baseAddress else { return }
        let ep = exc.baseAddress
        var k = 0
        @inline(__always) func run<S: FixedWidthInteger & SignedInteger>(_: S.Type) throws {
            for i in 0..<n {
                let s = S(littleEndian: sp.loadUnaligned(fromByteOffset: i * nb, as: S.self))
                if s == S.min {
                    guard k < exceptions, let ep else { throw corruptBlock("more exception markers than exceptions") }
                    out[i] = loadInt(ep + k * width, width: width)
                    k += 1
                } else {
                    out[i] = T(truncatingIfNeeded: s)
                }
            }
        }
        switch nb {
        case 1: try run(Int8.self)
        case 2: try run(Int16.self)
        default: try run(Int32.self)
        }
        guard k == exceptions else { throw corruptBlock("\(exceptions - k) unused exception values") }
    }
}
