// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions


/// The HyperLogLog states of every group of one aggregate.
///
/// A group starts **exact**: the distinct hashes it has seen live in one open-addressing
/// set shared by all groups (entries chained per group), and its answer is their count —
/// exact, barring 64-bit hash collisions. Past `exactLimit` distinct hashes (about the
/// memory of a dense sketch) the group turns **dense**: its hashes are replayed into
/// 16 KB of registers and it is estimated from then on. So a query over many small
/// groups costs little memory, and small counts are exact.
///
/// Serialized state (the partial aggregate's VARCHAR column): tag byte 0 followed by the
/// exact hashes (8 bytes each, little-endian), or tag byte 1 followed by the registers.
struct HyperLogLogGroups {
    static let exactLimit = 1024
    private static let exactTag: UInt8 = 0
    private static let denseTag: UInt8 = 1

    // Per group.
    private var exactCount: [Int32] = []
    private var head: [Int32] = []
    private var denseBlock: [Int32] = []
    // Exact entries, chained per group.
    private var entryHash: [UInt64] = []
    private var entryGroup: [Int32] = []
    private var entryNext: [Int32] = []
    /// Open addressing over live entries: entry index, or -1.
    private var slots: [Int32] = []
    private var liveEntries = 0
    // Dense registers, `registerCount` per dense group.
    private var registers: [UInt8] = []

    var groupCount: Int { head.count }

    var memoryBytes: Int {
        arrayBytes(exactCount) + arrayBytes(head) + arrayBytes(denseBlock) + arrayBytes(entryHash)
            + arrayBytes(entryGroup) + arrayBytes(entryNext) + arrayBytes(slots) + arrayBytes(registers)
    }

    mutating func grow(to n: Int) {
        guard n > head.count else { return }
        let extra = n - head.count
        exactCount.append(contentsOf: repeatElement(0, count: extra))
        head.append(contentsOf: repeatElement(-1, count: extra))
        denseBlock.append(contentsOf: repeatElement(-1, count: extra))
    }

    /// Add a (re-mixed) hash to group `g`.
    @inline(__always)
    mutating func insert(_ g: Int, _ h: UInt64) {
        let block = Int(denseBlock[g])
        if block >= 0 {
            let i = block * HyperLogLog.registerCount + HyperLogLog.register(h)
            let r = HyperLogLog.rank(h)
            if registers[i] < r { registers[i] = r }
            return
        }
        if (liveEntries + 1) * 2 > slots.count { rehash() }
        let mask = slots.count - 1
        let g32 = Int32(truncatingIfNeeded: g)
        var s = Self.slot(h, g, mask)
        while true {
            let e = Int(slots[s])
            if e < 0 { break }
            if entryHash[e] == h && entryGroup[e] == g32 { return }
            s = (s + 1) & mask
        }
        let e = Int32(truncatingIfNeeded: entryHash.count)
        entryHash.append(h)
        entryGroup.append(g32)
        entryNext.append(head[g])
        head[g] = e
        slots[s] = e
        liveEntries += 1
        exactCount[g] += 1
        if Int(exactCount[g]) > Self.exactLimit { makeDense(g) }
    }

    /// Rebuild the set at twice the live entries' needs, dropping the entries of groups
    /// that have turned dense.
    private mutating func rehash() {
        var live = 0
        for g in entryGroup where denseBlock[Int(g)] < 0 { live += 1 }
        var capacity = 1024
        while capacity < 4 * (live + 1) { capacity *= 2 }
        var hashes: [UInt64] = [], groups: [Int32] = [], next: [Int32] = []
        hashes.reserveCapacity(live); groups.reserveCapacity(live); next.reserveCapacity(live)
        slots = [Int32](filled: -1, count: capacity)
        let mask = capacity - 1
        for g in 0..<head.count where denseBlock[g] < 0 { head[g] = -1 }
        for e in 0..<entryHash.count {
            let g = Int(entryGroup[e])
            if denseBlock[g] >= 0 { continue }
            let h = entryHash[e]
            let n = Int32(truncatingIfNeeded: hashes.count)
            hashes.append(h)
            groups.append(entryGroup[e])
            next.append(head[g])
            head[g] = n
            var s = Self.slot(h, g, mask)
            while slots[s] >= 0 { s = (s + 1) & mask }
            slots[s] = n
        }
        entryHash = hashes
        entryGroup = groups
        entryNext = next
        liveEntries = live
    }

    @inline(__always)
    private static func slot(_ h: UInt64, _ g: Int, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (h ^ (UInt64(truncatingIfNeeded: g) &* 0x9E37_79B9_7F4A_7C15)) >> 7) & mask
    }

    /// Move group `g` from its exact hashes to registers. Its entries stay in the set
    /// (dropped at the next rehash) but are no longer looked up.
    private mutating func makeDense(_ g: Int) {
        let block = registers.count / HyperLogLog.registerCount
        registers.append(contentsOf: repeatElement(0, count: HyperLogLog.registerCount))
        denseBlock[g] = Int32(truncatingIfNeeded: block)
        let base = block * HyperLogLog.registerCount
        var e = Int(head[g])
        while e >= 0 {
            let h = entryHash[e]
            let i = base + HyperLogLog.register(h)
            let r = HyperLogLog.rank(h)
            if registers[i] < r { registers[i] = r }
            e = Int(entryNext[e])
        }
        head[g] = -1
    }

    /// The distinct count of group `g`: exact while the group is exact, else the estimate.
    func count(_ g: Int) -> Int64 {
        let block = Int(denseBlock[g])
        if block < 0 { return Int64(exactCount[g]) }
        return registers.withUnsafeBufferPointer { r in
            let base = block * HyperLogLog.registerCount
            let e = HyperLogLog.estimate(UnsafeBufferPointer(rebasing: r[base..<(base + HyperLogLog.registerCount)]))
            return e.isFinite ? Int64(e.rounded()) : 0
        }
    }

    /// Group `g`'s registers (computed from its exact hashes while it is exact).
    func registers(_ g: Int) -> [UInt8] {
        let block = Int(denseBlock[g])
        if block >= 0 {
            let base = block * HyperLogLog.registerCount
            return Array(registers[base..<(base + HyperLogLog.registerCount)])
        }
        var out = [UInt8](filled: 0, count: HyperLogLog.registerCount)
        var e = Int(head[g])
        while e >= 0 {
            let h = entryHash[e]
            let i = HyperLogLog.register(h)
            out[i] = max(out[i], HyperLogLog.rank(h))
            e = Int(entryNext[e])
        }
        return out
    }

    /// Fold registers (a sketch of the same precision) into group `g`.
    mutating func mergeRegisters(_ g: Int, _ incoming: [UInt8]) {
        guard incoming.count == HyperLogLog.registerCount else { return }
        if denseBlock[g] < 0 { makeDense(g) }
        let base = Int(denseBlock[g]) * HyperLogLog.registerCount
        registers.withUnsafeMutableBufferPointer { r in
            for i in 0..<HyperLogLog.registerCount where r[base + i] < incoming[i] { r[base + i] = incoming[i] }
        }
    }

    /// Append group `g`'s state to `out` (format in the type's description).
    func serialize(_ g: Int, into out: inout StringArray) {
        let block = Int(denseBlock[g])
        if block >= 0 {
            var bytes = [UInt8](filled: 0, count: 1 + HyperLogLog.registerCount)
            bytes[0] = Self.denseTag
            let base = block * HyperLogLog.registerCount
            for i in 0..<HyperLogLog.registerCount { bytes[1 + i] = registers[base + i] }
            bytes.withUnsafeBufferPointer { out.append(bytes: $0) }
            return
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(1 + 8 * Int(exactCount[g]))
        bytes.append(Self.exactTag)
        var e = Int(head[g])
        while e >= 0 {
            var h = entryHash[e]
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: h))
                h >>= 8
            }
            e = Int(entryNext[e])
        }
        bytes.withUnsafeBufferPointer { out.append(bytes: $0) }
    }

    /// Fold a serialized state into group `g`.
    mutating func merge(_ g: Int, _ state: UnsafeBufferPointer<UInt8>) throws {
        guard let tag = state.first else { throw SQLError.internalError("empty HyperLogLog state") }
        if tag == Self.exactTag {
            guard (state.count - 1) % 8 == 0 else { throw SQLError.internalError("malformed HyperLogLog state") }
            var i = 1
            while i < state.count {
                var h: UInt64 = 0
                for k in 0..<8 { h |= UInt64(state[i + k]) << UInt64(8 * k) }
                insert(g, h)
                i += 8
            }
            return
        }
        guard tag == Self.denseTag, state.count == 1 + HyperLogLog.registerCount else {
            throw SQLError.internalError("malformed HyperLogLog state")
        }
        if denseBlock[g] < 0 { makeDense(g) }
        let base = Int(denseBlock[g]) * HyperLogLog.registerCount
        registers.withUnsafeMutableBufferPointer { r in
            for i in 0..<HyperLogLog.registerCount where r[base + i] < state[1 + i] { r[base + i] = state[1 + i] }
        }
    }
}

/// One column's distinct-value sketch (ANALYZE): the same dense HyperLogLog as
/// `APPROXIMATE COUNT(DISTINCT)`, fed with a vector's non-NULL values a chunk at a time.
public struct DistinctSketch: Sendable {
    private var registers = [UInt8](filled: 0, count: HyperLogLog.registerCount)
    private var hashes: [UInt64] = []
    /// A bitmap of the values present among a vector's, for `addFlat`'s narrow ranges.
    private var present: [UInt64] = []
    /// Short strings already offered (`memoSlots` entries of three words: the value's
    /// first and last 8 bytes, its length), so a low-cardinality column hashes each of its
    /// values about once.
    private var memo: [UInt64] = []
    static let memoSlots = 256
    /// The widest range of 64-bit values (max − min) that `addFlat` marks in a bitmap
    /// before hashing: 2^20 bits, 128 KB.
    static let bitmapSpan: Int64 = 1 << 20

    public init() {}

    /// The seed of the sketch's own hashes (`addFlat`): one mix a value, unrelated to the
    /// unseeded hashes that place rows on slices (a slice's values share those hashes'
    /// low bits, which a register's rank reads).
    static let seed: UInt64 = 0x5851_F42D_4C95_7F2D

    /// Offer the first `count` values of `v` (NULLs are skipped).
    public mutating func add(_ v: Vector, count: Int) {
        _ = addReturningRange(v, count: count)
    }

    /// The range of the values a sketch was offered, when it found it on its way.
    public enum OfferedRange: Sendable, Equatable {
        /// Not found (not a flat vector of 64-bit values).
        case unknown
        /// Every row was NULL.
        case empty
        /// The smallest and largest non-NULL value.
        case values(low: Int64, high: Int64)
    }

    /// `add`, and for a flat vector of 64-bit values the range of its non-NULL values,
    /// which the sketch finds on its way (a caller counting it needs no pass of its own).
    public mutating func addReturningRange(_ v: Vector, count: Int) -> OfferedRange {
        // Every value of a kind `addFlat` takes is hashed there (a constant flattened
        // first), so a value offered twice is hashed alike.
        if v.isConstant, count > 0, addFlat(v.flattened(count: count), count: count) { return .unknown }
        if !v.isConstant, let range = addFlatReturningRange(v, count: count) { return range }
        v.hash(rows: nil, count: count, into: &hashes, combine: false)
        let validity = v.validity
        registers.withUnsafeMutableBufferPointer { r in
            for i in 0..<min(count, hashes.count) {
                if let validity, !validity.isValid(v.isConstant ? 0 : i) { continue }
                let h = HyperLogLog.remix(hashes[i])
                let reg = HyperLogLog.register(h), rank = HyperLogLog.rank(h)
                if r[reg] < rank { r[reg] = rank }
            }
        }
        return .unknown
    }

    /// `add` for a flat vector of 64-bit values, 128-bit values or strings: each value is
    /// hashed once, seeded (`seed`), straight into its register, with no array of hashes
    /// and no branch per NULL (a NULL's rank is masked to 0, which changes no register).
    /// Returns false (nothing done) for other vectors.
    private mutating func addFlat(_ v: Vector, count: Int) -> Bool {
        addFlatReturningRange(v, count: count) != nil
    }

    /// `addFlat`: nil when the vector is not of a kind it takes; for 64-bit values the
    /// range of the non-NULL ones; for others `.unknown`.
    private mutating func addFlatReturningRange(_ v: Vector, count: Int) -> OfferedRange? {
        @inline(__always) func offer(_ r: UnsafeMutableBufferPointer<UInt8>, _ h: UInt64, _ keep: UInt8) {
            let reg = HyperLogLog.register(h), rank = HyperLogLog.rank(h) & (0 &- keep)
            r[reg] = max(r[reg], rank)
        }
        let seed = Self.seed
        @inline(__always) func hash(_ x: Int64) -> UInt64 { Hashing.hash(UInt64(bitPattern: x) ^ seed) }
        @inline(__always) func hash(_ x: Int128) -> UInt64 {
            Hashing.hash(UInt64(truncatingIfNeeded: x) ^ Hashing.hash(UInt64(truncatingIfNeeded: x >> 64) ^ seed))
        }
        // The NULL bits, when they cover the rows (else every row counts as valid).
        let words = v.validity?.words ?? []
        @inline(__always) func each(_ n: Int, _ body: (Int, UInt8) -> Void) {
            if words.isEmpty {
                for i in 0..<n { body(i, 1) }
                return
            }
            words.withUnsafeBufferPointer { w in
                let covered = min(n, w.count << 6)
                for i in 0..<covered { body(i, UInt8(truncatingIfNeeded: w[i >> 6] >> UInt64(i & 63)) & 1) }
                for i in covered..<max(n, covered) { body(i, 1) }
            }
        }
        switch v.data {
        case .int64(let a):
            let n = min(count, a.count)
            // A register keeps the largest rank of the values offered, so offering a value
            // twice changes nothing: values in a narrow range (dates, quantities, small
            // keys) are marked in a bitmap and each one present is hashed once.
            var lo = Int64.max, hi = Int64.min
            a.withUnsafeBufferPointer { p in
                each(n) { i, keep in
                    lo = Swift.min(lo, keep != 0 ? p[i] : .max)
                    hi = Swift.max(hi, keep != 0 ? p[i] : .min)
                }
            }
            if lo > hi { return .empty }   // every row NULL
            let (span, overflow) = hi.subtractingReportingOverflow(lo)
            if !overflow, span < Self.bitmapSpan, Int(span) <= 4 * n {
                let words = (Int(span) + 64) >> 6
                var single: UInt64 = 0
                // Successive values of a narrow range land on the same few words: four
                // copies of the bitmap (row i marks copy i % 4) keep each OR from waiting
                // on the one before it; one word lives in a register.
                let copies = words == 1 ? 0 : words <= 1024 ? 4 : 1
                if present.count < words * copies { present = [UInt64](filled: 0, count: words * copies) }
                present.withUnsafeMutableBufferPointer { bits in
                    a.withUnsafeBufferPointer { p in
                        // A NULL row sets no bit (its value may lie outside the range).
                        if copies == 0 {
                            each(n) { i, keep in
                                single |= UInt64(keep) &<< (UInt64(truncatingIfNeeded: p[i] &- lo) & 63)
                            }
                        } else {
                            let mask = copies - 1
                            each(n) { i, keep in
                                let d = keep != 0 ? Int(truncatingIfNeeded: p[i] &- lo) : 0
                                bits[(i & mask) &* words &+ (d >> 6)] |= UInt64(keep) &<< UInt64(d & 63)
                            }
                        }
                    }
                    registers.withUnsafeMutableBufferPointer { r in
                        for w in 0..<words {
                            var word = single
                            if copies > 0 {
                                word = 0
                                for k in 0..<copies {
                                    word |= bits[k * words + w]
                                    bits[k * words + w] = 0
                                }
                            }
                            while word != 0 {
                                let d = w << 6 | word.trailingZeroBitCount
                                word &= word &- 1
                                offer(r, hash(lo &+ Int64(d)), 1)
                            }
                        }
                    }
                }
                return .values(low: lo, high: hi)
            }
            registers.withUnsafeMutableBufferPointer { r in
                a.withUnsafeBufferPointer { p in
                    each(n) { i, keep in offer(r, hash(p[i]), keep) }
                }
            }
            return .values(low: lo, high: hi)
        case .int128(let a):
            registers.withUnsafeMutableBufferPointer { r in
                a.withUnsafeBufferPointer { p in
                    each(min(count, p.count)) { i, keep in offer(r, hash(p[i]), keep) }
                }
            }
            return .unknown
        case .string(let s):
            guard s.offsets.count > 0 else { return .unknown }
            if memo.isEmpty { memo = [UInt64](filled: .max, count: Self.memoSlots * 3) }
            registers.withUnsafeMutableBufferPointer { r in
                memo.withUnsafeMutableBufferPointer { m in
                    s.bytes.withUnsafeBufferPointer { bp in
                        s.offsets.withUnsafeBufferPointer { off in
                            each(min(count, off.count - 1)) { i, keep in
                                let st = Int(off[i]), len = Int(off[i + 1]) - st
                                let p = bp.baseAddress.map { $0 + st }
                                guard keep != 0 else { return }
                                // A value of at most 16 bytes is said exactly by its first and
                                // last 8 (overlapping inside it) and its length: one offered
                                // before changes no register and is not hashed again.
                                if len <= 16, let p, st >= 0, st + len <= bp.count {
                                    let (w0, w1) = Self.words(p, len)
                                    let slot = Int(truncatingIfNeeded: ((w0 &* 0x9E37_79B9_7F4A_7C15) ^ (w1 &* 0xC2B2_AE3D_27D4_EB4F)
                                                                         ^ UInt64(len)) >> 56) &* 3
                                    if m[slot] == w0 && m[slot + 1] == w1 && m[slot + 2] == UInt64(len) { return }
                                    m[slot] = w0; m[slot + 1] = w1; m[slot + 2] = UInt64(len)
                                }
                                offer(r, Hashing.hash(bytes: p, count: len, seed: seed), 1)
                            }
                        }
                    }
                }
            }
            return .unknown
        default:
            return nil
        }
    }

    /// The first and last 8 bytes of a value of `n` (at most 16) bytes at `p`, read from
    /// inside it (overlapping loads; shorter values packed from 4-byte or single loads):
    /// with `n`, they say the value exactly.
    @inline(__always)
    static func words(_ p: UnsafePointer<UInt8>, _ n: Int) -> (UInt64, UInt64) {
        let raw = UnsafeRawPointer(p)
        if n >= 8 {
            return (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        }
        if n >= 4 {
            let lo = UInt64(raw.loadUnaligned(as: UInt32.self)), hi = UInt64(raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            return (lo | hi << 32, 0)
        }
        if n > 0 { return (UInt64(p[0]) | UInt64(p[n / 2]) << 8 | UInt64(p[n - 1]) << 16, 0) }
        return (0, 0)
    }

    /// Combine with a sketch of other values (the larger of each register pair).
    public mutating func merge(_ other: DistinctSketch) {
        for i in registers.indices where other.registers[i] > registers[i] { registers[i] = other.registers[i] }
    }

    /// The estimated number of distinct values offered.
    public var estimate: Double { registers.withUnsafeBufferPointer { HyperLogLog.estimate($0) } }
}
