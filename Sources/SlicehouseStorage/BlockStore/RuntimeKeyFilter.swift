// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The build keys of a hash join, handed to a scan on the join's probe side before the
/// scan reads its first block (a runtime filter, also called a join-derived or
/// semi-join filter): probe rows whose key is not among them cannot produce output.
///
/// The range `low...high` skips blocks by their zone maps (on a table sorted by the key
/// it skips nearly every block). Then, before the scan decodes any other column, rows
/// are dropped by `bits`, one bit per key in the range, when the range is small enough
/// (or the keys dense enough in it); by a coarse `bits`, one bit per `1 << shift` values,
/// for a few keys over a wider range; else by `bloom`, a Bloom filter of the keys: a key
/// of a distributed table (an order key at SF 10 runs to 60 million) spreads each
/// slice's keys over a range far wider than their number. Keys are the 64-bit integer form of integer, date and timestamp
/// columns.
public struct RuntimeKeyFilter: Sendable {
    /// Smallest and largest key; `low > high` when the build side has no key (nothing matches).
    public var low: Int64
    public var high: Int64
    /// Bit `(k - low) >> shift` is set when key `k` is present; nil when the range was
    /// too wide.
    public var bits: [UInt64]?
    /// 0: `bits` is exact, one bit per value of the range. Above 0: each bit stands for
    /// `1 << shift` consecutive values (a coarse bitmap, for a few keys spread over a wide
    /// range), so a key near a present one passes too, as a Bloom filter's false
    /// positives do: the join drops it.
    public var shift: Int = 0
    /// When there are no `bits`: a register-blocked Bloom filter (`mayContain`), a
    /// power-of-two number of 64-bit words with 4 bits set per key in one word; nil when
    /// the keys are too many for one.
    public var bloom: [UInt64]?
    /// With an exact bitmap bigger than the caches (`summaryMinimumBytes`): one bit per
    /// `1 << summaryShift` values, set when any of them is a key (a coarse bitmap of the
    /// same range), that a scan tests first (`SliceScanner.keep`), so only the rows it
    /// passes load their line of `bits`; nil otherwise, or when more than half its bits
    /// are set (it would pass most rows). Its bytes are reserved with the bitmap's either way.
    public var summary: [UInt64]?

    /// A range spanning under 8 M values (1 MB of bitmap) is always a bitmap.
    public static let maximumBitmapSpan: Int64 = 1 << 23
    /// A range spanning under 64 M values (8 MB, the largest Bloom filter's size) is a
    /// bitmap too when it holds a key for every `denseSpanPerKey` values or fewer; a
    /// wider or sparser one keeps the range check and a Bloom filter. A bitmap's test is
    /// a subtraction and one load; a Bloom filter's hashes the key first, and at SF 10
    /// that hashing was a fifth of Q3's and Q21's time: one slice's order keys span 60 M
    /// values, the lineitem scans test 15 M rows a slice, and Q3, Q4, Q5 and Q21 ran
    /// 20–39% faster with a bitmap. A few keys spread wide (Q18's
    /// 150 orders a slice) keep a Bloom filter of a few words instead of a bitmap's 8 MB.
    public static let maximumDenseBitmapSpan: Int64 = 1 << 26
    public static let denseSpanPerKey: Int64 = 4_096
    /// At most 2^20 words (8 MB) of Bloom filter: from 8 to 16 bits per key (about 1%
    /// false positives), up to 8 million keys. (32 bits per key kept Q5's at SF 10 at
    /// 2 MB a slice, and its tests waited on memory, not the caches.)
    public static let maximumBloomWords = 1 << 20
    /// A coarse bitmap has at most 2^20 bits (128 KB, within a core's L2 cache)...
    public static let maximumCoarseBits: Int64 = 1 << 20
    /// ...at least 64 of them per key (so under 1/64 of keys far from every build key
    /// pass)...
    public static let coarseBitsPerKey: Int64 = 64
    /// ...and a bit stands for at most 64 values, so only values within 63 of a build
    /// key can pass by being near one. Below `maximumDenseBitmapSpan` this holds of every
    /// range. A coarse bitmap's test is the exact one's plus a shift, where a Bloom
    /// filter hashes every key: Q18 at SF 10 tests 75 M probe keys against 150 order
    /// keys a slice, and its Bloom filter's hashing grew its scans 16× from SF 1 (where
    /// the range is under 8 M values, an exact bitmap).
    public static let maximumCoarseShift = 6
    /// An exact bitmap of more than 2 MB (a span of more than 16 M values: TPC-H's order
    /// keys at SF 10, one slice's 815 K keys of Q9's orders join over 60 M values, 7.5 MB
    /// a slice) gets a summary, a sixteenth of its size: the summary stays in a core's
    /// L2 cache where the bitmap's random lines come from the shared cache or memory, and
    /// at a key density of about 1% it passes a fifth of the rows that are not keys.
    public static let summaryMinimumBytes = 2 << 20
    public static let summaryShift: UInt64 = 4

    public init(low: Int64, high: Int64, bits: [UInt64]?, bloom: [UInt64]? = nil, shift: Int = 0,
                summary: [UInt64]? = nil) {
        self.low = low; self.high = high; self.bits = bits; self.bloom = bloom; self.shift = shift
        self.summary = summary
    }

    /// The filter of `keys` (rows where `valid` is false are left out; nil: all valid).
    /// A bitmap over a wide range of dense keys (`maximumDenseBitmapSpan`) can take up to
    /// 512 bytes a key, more than the hash table holds per row: it is built only when
    /// `reserve` grants its bytes (a join's memory reservation), else a Bloom filter is.
    public static func of(_ keys: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>?,
                          reserve: (Int) -> Bool = { _ in true }) -> RuntimeKeyFilter {
        var lo = Int64.max, hi = Int64.min
        var n = 0
        for r in 0..<keys.count where valid?[r] ?? true {
            lo = min(lo, keys[r]); hi = max(hi, keys[r])
            n += 1
        }
        if lo > hi { return RuntimeKeyFilter(low: 1, high: 0, bits: nil) }
        let (span, overflow) = hi.subtractingReportingOverflow(lo)
        let bitmapBytes = overflow ? 0 : (Int(span) / 64 + 1) * 8
        let summarized = bitmapBytes > summaryMinimumBytes
        guard !overflow, span < maximumBitmapSpan
                || (span < maximumDenseBitmapSpan && Int64(n) >= span / denseSpanPerKey
                    && reserve(bitmapBytes + (summarized ? bitmapBytes >> summaryShift : 0))) else {
            if !overflow, let shift = coarseShift(span: span, keys: n) {
                return RuntimeKeyFilter(low: lo, high: hi, bits: bitmap(keys, valid: valid, low: lo, span: span, shift: shift),
                                        shift: shift)
            }
            return RuntimeKeyFilter(low: lo, high: hi, bits: nil, bloom: bloomFilter(keys, valid: valid, count: n))
        }
        let bits = bitmap(keys, valid: valid, low: lo, span: span, shift: 0)
        let summary = summarized ? summary(keys, valid: valid, low: lo, span: span) : nil
        return RuntimeKeyFilter(low: lo, high: hi, bits: bits, summary: summary)
    }

    /// The summary of the exact bitmap of `keys` over `low...low + span`: bit c set when a
    /// key lies in `c << summaryShift ..< (c + 1) << summaryShift` above `low`, that is the
    /// coarse bitmap of shift `summaryShift`, built from the keys (each key's write lands in
    /// a table a sixteenth of the bitmap's size, in L2). Reading the bitmap back to
    /// summarize it took a quarter more of Q21's filter building at SF 10 (177 K build rows
    /// a slice against 940 K bitmap words); writing both bitmaps in one pass was no faster.
    /// nil when more than half of the exact bitmap's groups of `1 << summaryShift` values
    /// would be set.
    static func summary(_ keys: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>?,
                        low lo: Int64, span: Int64) -> [UInt64]? {
        let groups = (Int(span) / 64 + 1) * (64 >> Int(summaryShift))
        let coarse = bitmap(keys, valid: valid, low: lo, span: span, shift: Int(summaryShift))
        var set = 0
        for w in coarse { set &+= w.nonzeroBitCount }
        return set * 2 > groups ? nil : coarse
    }

    /// The shift of a coarse bitmap for `n` keys over `span + 1` values, or nil when a
    /// coarse bitmap would be too big, too full or too coarse for them.
    static func coarseShift(span: Int64, keys n: Int) -> Int? {
        guard span >= 0 else { return nil }
        var shift = 0
        while shift < maximumCoarseShift && (span >> Int64(shift)) >= maximumCoarseBits { shift += 1 }
        let bits = (span >> Int64(shift)) + 1
        guard bits <= maximumCoarseBits, Int64(n) <= bits / coarseBitsPerKey else { return nil }
        return shift
    }

    /// The bitmap of the valid `keys`, bit `(k - low) >> shift` for key `k` (every key
    /// within `low...low + span`).
    static func bitmap(_ keys: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>?,
                       low lo: Int64, span: Int64, shift: Int) -> [UInt64] {
        var bits = [UInt64](filled: 0, count: Int(span >> Int64(shift)) / 64 + 1)
        bits.withUnsafeMutableBufferPointer { bw in
            for r in 0..<keys.count where valid?[r] ?? true {
                let d = Int(UInt64(bitPattern: keys[r] &- lo) >> UInt64(shift))
                bw[d >> 6] |= 1 << UInt64(d & 63)
            }
        }
        return bits
    }

    /// The Bloom filter of the `count` valid `keys`, or nil when they are too many.
    static func bloomFilter(_ keys: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>?,
                            count n: Int) -> [UInt64]? {
        var words = 64
        while words * 8 < n { words *= 2 }
        guard words <= maximumBloomWords else { return nil }
        var bloom = [UInt64](filled: 0, count: words)
        let mask = words - 1
        bloom.withUnsafeMutableBufferPointer { bw in
            for r in 0..<keys.count where valid?[r] ?? true {
                let h = bloomHash(keys[r])
                bw[Int(truncatingIfNeeded: h) & mask] |= bloomBits(h)
            }
        }
        return bloom
    }

    /// A 64-bit mix of `key` (the low bits pick the word, the high bits the bits in it).
    @inline(__always)
    public static func bloomHash(_ key: Int64) -> UInt64 {
        var h = UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        h &*= 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }

    /// The 4 bits of the word a key with hash `h` sets.
    @inline(__always)
    public static func bloomBits(_ h: UInt64) -> UInt64 {
        (1 << ((h >> 40) & 63)) | (1 << ((h >> 46) & 63)) | (1 << ((h >> 52) & 63)) | (1 << ((h >> 58) & 63))
    }

    /// False when `key` is certainly not among the keys of `bloom` (a power-of-two count of words).
    @inline(__always)
    public static func mayContain(_ bloom: UnsafeBufferPointer<UInt64>, _ key: Int64) -> Bool {
        let h = bloomHash(key)
        let want = bloomBits(h)
        return bloom[Int(truncatingIfNeeded: h) & (bloom.count - 1)] & want == want
    }

    /// No key at all: no probe row can match.
    public var isEmpty: Bool { low > high }

    /// The zone-map form of the range, on table column `column`.
    public func zonePredicate(column: Int) -> ZonePredicate {
        ZonePredicate(column: column, ops: [(.ge, .int(low)), (.le, .int(high))])
    }
}

/// Where a hash join leaves its runtime filter for the scans of the same pipeline
/// (one per filter and partition). The join fills it when its build side is complete,
/// which in a pull pipeline is before the probe side reads anything; a scan that starts
/// with the slot still empty reads without it.
public final class RuntimeFilterSlot: @unchecked Sendable {
    public var filter: RuntimeKeyFilter?
    public init() {}
}

/// Rows checked and kept by a scan's runtime filters (for the query summary).
public struct RuntimeFilterCounters: Sendable {
    public var rowsChecked = 0
    public var rowsKept = 0
    public init() {}
}
