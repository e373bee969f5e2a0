// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseFunctions
import SlicehouseStorage

/// A hash join's build side as the probe reads it: the build rows column by column and
/// the index over their keys, built once (`build`) and never written after. The
/// partitions of a broadcast join share one (`SharedHashBuild`); what changes while a
/// join probes — the rows matched, the prefilter switching itself off — is the
/// operator's (`HashJoinOperator`).
///
/// The index is a bucket-ordered array: `entries` holds one `BuildEntry` per row with a
/// valid key, grouped by bucket (`bucketStart[b]` is bucket b's first entry), its `match`
/// the key itself when the key is one 64-bit integer or several packed into one
/// (`directKeys`, `packing`), else the key's hash. Unique keys over a narrow range also
/// get a direct index (`directIndex`), and a join that only filters by a set of keys
/// gets no index at all (`keySetOnly`: the key bitmap is the join).
final class JoinHashTable: @unchecked Sendable {
    /// The build rows, every build column (those not kept are one-row constant NULL
    /// placeholders).
    let columns: [Vector]
    /// The key columns, in key order.
    let keyColumns: [Vector]
    /// Build rows.
    let count: Int
    let bucketStart: [Int32]
    let entries: [BuildEntry]
    let bucketMask: Int
    /// One 64-bit key, or several packed into one (`packing`): `BuildEntry.match` holds
    /// the key value (or code) itself.
    let directKeys: Bool
    /// Several 64-bit keys whose build-side ranges fit in 64 bits together: each row's
    /// code (`KeyPacking`) is its key and its hash is the code's.
    let packing: KeyPacking?
    /// `directKeys` and no key value occurs twice on the build side.
    let uniqueDirectKeys: Bool
    /// Unique keys (or codes) spread over a narrow range: entry `key - directLow` is the
    /// build row + 1 of that key, 0 when none. A probe then loads one slot instead of
    /// hashing, its bucket's start and its entry. Empty: none.
    let directIndex: [Int32]
    let directLow: Int64
    /// Some build row has a NULL key (it is in no bucket).
    let hasNullKey: Bool
    /// The join is its exact `keyFilter` alone: a probe row it keeps has exactly one
    /// match (inner, unique keys, no build column read) or at least one (semi), so there
    /// are no entries and no row is probed.
    let keySetOnly: Bool
    /// The single 64-bit key's filter (a bitmap or a Bloom filter), when the probe may
    /// drop the rows it rules out before hashing.
    let keyFilter: RuntimeKeyFilter?
    /// With `packing`: the packed codes' filter, for the same use.
    let codeFilter: RuntimeKeyFilter?
    /// The filters for the scans below the probe side, in the order of the build key
    /// columns asked for (`build`'s `filterColumns`).
    let published: [RuntimeKeyFilter?]

    private init(columns: [Vector], keyColumns: [Vector], count: Int, bucketStart: [Int32] = [],
                 entries: [BuildEntry] = [], bucketMask: Int = 0, directKeys: Bool = false,
                 packing: KeyPacking? = nil, uniqueDirectKeys: Bool = false, directIndex: [Int32] = [],
                 directLow: Int64 = 0, hasNullKey: Bool = false, keySetOnly: Bool = false,
                 keyFilter: RuntimeKeyFilter? = nil, codeFilter: RuntimeKeyFilter? = nil,
                 published: [RuntimeKeyFilter?]) {
        self.columns = columns
        self.keyColumns = keyColumns
        self.count = count
        self.bucketStart = bucketStart
        self.entries = entries
        self.bucketMask = bucketMask
        self.directKeys = directKeys
        self.packing = packing
        self.uniqueDirectKeys = uniqueDirectKeys
        self.directIndex = directIndex
        self.directLow = directLow
        self.hasNullKey = hasNullKey
        self.keySetOnly = keySetOnly
        self.keyFilter = keyFilter
        self.codeFilter = codeFilter
        self.published = published
    }

    /// No table (before the build, and after the join is done with it).
    static let none = JoinHashTable(columns: [], keyColumns: [], count: 0, published: [])

    /// When the join may be its key set alone (`keySetOnly`), for a single 64-bit key.
    enum KeySetUse {
        /// A semi join: a kept probe row has at least one match.
        case semi
        /// An inner join whose build columns nothing reads: only when the keys are unique.
        case innerUnique
    }

    /// The table over `count` build rows held in `columns`, keyed on `keys`.
    /// - Parameters:
    ///   - keySet: whether the join, as the operator sees it, may be its key set alone.
    ///   - filterProbe: whether the probe may drop rows the key filter rules out (the
    ///     kinds where an unmatched probe row produces nothing).
    ///   - filterColumns: the build key columns whose filters the scans below the probe
    ///     side wait for (`published`, in this order; rows with a NULL in any key column
    ///     never match, so they are left out).
    ///   - reserve: holds more bytes with the table (a filter's, the direct index's);
    ///     false when the statement's budget refuses them.
    static func build(columns: [Vector], count n: Int, keys: [Int], keySet: KeySetUse?, filterProbe: Bool,
                      filterColumns: [Int], reserve: (Int) -> Bool) throws -> JoinHashTable {
        guard n < Int(Int32.max) else {
            throw SQLError(.featureNotSupported, "a hash join build side of more than \(Int32.max) rows")
        }
        for k in keys where k < 0 || k >= columns.count {
            throw SQLError.internalError("hash join build key \(k) out of range")
        }
        guard !keys.isEmpty else { throw SQLError.internalError("hash join without build keys") }
        let keyColumns = keys.map { OperatorKernels.hashForm(columns[$0]) }
        if n == 0 {
            let empty = RuntimeKeyFilter(low: 1, high: 0, bits: nil)
            return JoinHashTable(columns: columns, keyColumns: keyColumns, count: 0,
                                 published: filterColumns.map { _ in empty })
        }

        // Rows with a NULL in any key column never match: keep them out of the table.
        var keyValid = [Bool](filled: true, count: n)
        for key in keyColumns {
            guard let validity = key.validity else { continue }
            validity.words.withUnsafeBufferPointer { w in
                keyValid.withUnsafeMutableBufferPointer { kv in
                    for r in 0..<n where !OperatorKernels.bit(w, r) { kv[r] = false }
                }
            }
        }
        var directKeys = keyColumns.count == 1 && keyColumns[0].type.physical == .int64
        var keyColumnFilter: RuntimeKeyFilter?
        if directKeys, let keySet,
           let f = keySetFilter(keyColumns[0], count: n, keyValid: keyValid, use: keySet,
                                computed: &keyColumnFilter, reserve: reserve) {
            // No index: the filter is the join. The runtime filters are its own.
            return JoinHashTable(columns: columns, keyColumns: keyColumns, count: n, directKeys: true,
                                 uniqueDirectKeys: keySet == .innerUnique, hasNullKey: keyValid.contains(false),
                                 keySetOnly: true, keyFilter: f,
                                 published: filterColumns.map { $0 == keys[0] ? f : nil })
        }
        var matchValues: [UInt64] = []
        var hashes: [UInt64] = []
        var packing: KeyPacking?
        if directKeys, case .int64(let values) = keyColumns[0].data {
            matchValues = values.map { UInt64(bitPattern: $0) }
        } else if let p = KeyPacking.covering(keyColumns, count: n, valid: keyValid) {
            // Several integer keys whose ranges fit in 64 bits together: their packed code
            // is the key, matched as a single 64-bit key is.
            var inRange: [Bool] = []
            let rows = (0..<Int32(truncatingIfNeeded: n)).map { $0 }
            if p.pack(keyColumns, rows: rows, codes: &matchValues, inRange: &inRange) {
                packing = p
                directKeys = true
                hashes = matchValues.map { Hashing.hash($0) }
            } else {
                directKeys = false
                matchValues = []
            }
        } else {
            directKeys = false
        }
        if packing == nil {
            for (i, key) in keyColumns.enumerated() {
                key.hash(rows: nil, count: n, into: &hashes, combine: i > 0)
            }
        }
        if !directKeys { matchValues = hashes }
        var buckets = 16
        while buckets < n { buckets *= 2 }
        var start = [Int32](filled: 0, count: buckets + 1)
        var table = [BuildEntry](filled: BuildEntry(match: 0, row: 0), count: n)
        let used = layOut(hashes: hashes, matches: matchValues, valid: keyValid, buckets: buckets,
                          start: &start, table: &table)
        table.removeLast(n - used)
        // Unique 64-bit keys (the usual foreign key -> primary key join): a probe row has
        // at most one match, found in a single scan of its bucket run.
        var unique = false
        if directKeys {
            unique = true
            start.withUnsafeBufferPointer { st in
                table.withUnsafeBufferPointer { tb in
                    for b in 0..<buckets where st[b + 1] - st[b] > 1 {
                        let lo = Int(st[b]), hi = Int(st[b + 1])
                        for x in lo..<hi {
                            for y in (x + 1)..<hi where tb[x].match == tb[y].match { unique = false }
                        }
                        if !unique { break }
                    }
                }
            }
        }
        let direct = directKeys && unique ? directIndex(table, reserve: reserve) : nil
        // Build keys as a range and bitmap: the probe's prefilter (single 64-bit key) and
        // the runtime filters handed to scans below the probe side (one per key column).
        var byColumn: [Int: RuntimeKeyFilter] = [:]
        if let f = keyColumnFilter { byColumn[keys[0]] = f }
        // A wide bitmap's bytes join the table's reservation (`reserve`; a Bloom filter
        // when the budget refuses them) and are returned with the table.
        func filter(_ k: Int) -> RuntimeKeyFilter? {
            if let f = byColumn[k] { return f }
            guard k >= 0, k < columns.count, case .int64(let values) = columns[k].data,
                  !columns[k].isConstant, values.count >= n else { return nil }
            let f = values.withUnsafeBufferPointer { vp in
                keyValid.withUnsafeBufferPointer { kv in
                    RuntimeKeyFilter.of(UnsafeBufferPointer(rebasing: vp[0..<n]), valid: kv, reserve: reserve)
                }
            }
            byColumn[k] = f
            return f
        }
        var codeFilter: RuntimeKeyFilter?
        if packing != nil && used > 0 && filterProbe {
            let f = matchValues.withUnsafeBufferPointer { mv in
                keyValid.withUnsafeBufferPointer { kv in
                    mv.withMemoryRebound(to: Int64.self) { codes in
                        RuntimeKeyFilter.of(UnsafeBufferPointer(rebasing: codes[0..<n]), valid: kv, reserve: reserve)
                    }
                }
            }
            if f.bits != nil || f.bloom != nil { codeFilter = f }
        }
        var keyFilter: RuntimeKeyFilter?
        if codeFilter == nil && directKeys && used > 0 && filterProbe, let f = filter(keys[0]),
           f.bits != nil || f.bloom != nil {
            keyFilter = f
        }
        let published = filterColumns.map(filter)
        return JoinHashTable(columns: columns, keyColumns: keyColumns, count: n, bucketStart: start,
                             entries: table, bucketMask: buckets - 1, directKeys: directKeys, packing: packing,
                             uniqueDirectKeys: unique, directIndex: direct?.index ?? [], directLow: direct?.low ?? 0,
                             hasNullKey: used < n, keyFilter: keyFilter, codeFilter: codeFilter,
                             published: published)
    }

    /// Unique keys (or packed codes) spanning fewer than `directSpanPerKey` values per key,
    /// at most `maximumDirectIndex`: the index from key to build row + 1, its bytes
    /// reserved with the table (refused: no index). A dimension's surrogate keys are the
    /// usual case: TPC-H's suppliers, parts and customers, TPC-DS's every dimension.
    private static func directIndex(_ table: [BuildEntry], reserve: (Int) -> Bool) -> (index: [Int32], low: Int64)? {
        guard !table.isEmpty else { return nil }
        var lo = Int64.max, hi = Int64.min
        table.withUnsafeBufferPointer { tb in
            for e in tb {
                let k = Int64(bitPattern: e.match)
                lo = min(lo, k)
                hi = max(hi, k)
            }
        }
        let (span, overflow) = hi.subtractingReportingOverflow(lo)
        guard !overflow, span < Int64(maximumDirectIndex),
              span < Int64(table.count) * directSpanPerKey else { return nil }
        let slots = Int(span) + 1
        guard reserve(slots * MemoryLayout<Int32>.stride) else { return nil }
        var index = [Int32](filled: 0, count: slots)
        index.withUnsafeMutableBufferPointer { ix in
            table.withUnsafeBufferPointer { tb in
                for e in tb { ix[Int(Int64(bitPattern: e.match) &- lo)] = e.row &+ 1 }
            }
        }
        return (index, lo)
    }

    /// The exact filter of the single 64-bit build key when it can stand for the whole
    /// join, else nil: a bitmap with one bit per value (`RuntimeKeyFilter`, shift 0), whose
    /// set bits then number the distinct keys; for `innerUnique`, only when no key occurs
    /// twice. A dimension joined only to filter (TPC-H Q3's customers of one segment, Q21's
    /// orders of status F, TPC-DS's dates of one year) needs no index.
    /// `computed`: the key column's filter, when this computed it (whether or not it
    /// stands for the join), for the table's own use: its bytes are reserved once.
    private static func keySetFilter(_ column: Vector, count n: Int, keyValid: [Bool], use: KeySetUse,
                                     computed: inout RuntimeKeyFilter?,
                                     reserve: (Int) -> Bool) -> RuntimeKeyFilter? {
        guard case .int64(let values) = column.data, !column.isConstant, values.count >= n else { return nil }
        let f = values.withUnsafeBufferPointer { vp in
            keyValid.withUnsafeBufferPointer { kv in
                RuntimeKeyFilter.of(UnsafeBufferPointer(rebasing: vp[0..<n]), valid: kv, reserve: reserve)
            }
        }
        computed = f
        guard let bits = f.bits, f.shift == 0, !f.isEmpty else { return nil }
        if use == .innerUnique {
            var distinct = 0
            for w in bits { distinct &+= w.nonzeroBitCount }
            var valid = 0
            for v in keyValid where v { valid &+= 1 }
            guard distinct == valid else { return nil }
        }
        return f
    }

    /// A direct index takes keys spread over fewer than this many values per key (at most
    /// 32 bytes a key, against the table's 16-byte entry and its bucket).
    static let directSpanPerKey: Int64 = 8
    /// The most slots of a direct index (32 MB).
    static let maximumDirectIndex = 1 << 23

    /// Counting sort of the build rows by bucket into `table`, with `start[b]` the first
    /// entry of bucket b (`start[buckets]` = entries used). Rows keep ascending order
    /// within a bucket. Returns the number of entries (rows with a valid key).
    ///
    /// A large build side is first partitioned by the top 8 bits of the bucket number
    /// (256 sequential output streams), so that the counting and filling passes then
    /// touch one cache-sized slice of `start` and `table` at a time instead of jumping
    /// across the whole table for every row.
    static func layOut(hashes: [UInt64], matches: [UInt64], valid: [Bool], buckets: Int,
                       start: inout [Int32], table: inout [BuildEntry]) -> Int {
        let n = hashes.count
        let m = buckets - 1
        let bucketBits = buckets.trailingZeroBitCount
        if n < (1 << 16) || bucketBits <= 8 {
            var used = 0
            start.withUnsafeMutableBufferPointer { st in
                hashes.withUnsafeBufferPointer { hs in
                    valid.withUnsafeBufferPointer { kv in
                        for r in 0..<n where kv[r] {
                            st[Hashing.slot(hs[r], m) + 1] &+= 1
                            used += 1
                        }
                        for b in 0..<buckets { st[b + 1] &+= st[b] }
                        var fill = Array(st[0..<buckets])
                        fill.withUnsafeMutableBufferPointer { fl in
                            matches.withUnsafeBufferPointer { mv in
                                table.withUnsafeMutableBufferPointer { tb in
                                    for r in 0..<n where kv[r] {
                                        let b = Hashing.slot(hs[r], m)
                                        let pos = Int(fl[b])
                                        fl[b] = Int32(truncatingIfNeeded: pos + 1)
                                        tb[pos] = BuildEntry(match: mv[r], row: Int32(truncatingIfNeeded: r))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return used
        }
        // Partitioned: (bucket, row, match) records grouped by the bucket's top 8 bits.
        struct Staged { var match: UInt64; var bucket: UInt32; var row: Int32 }
        let shift = bucketBits - 8
        var partStart = [Int](filled: 0, count: 257)
        var used = 0
        hashes.withUnsafeBufferPointer { hs in
            valid.withUnsafeBufferPointer { kv in
                partStart.withUnsafeMutableBufferPointer { ps in
                    for r in 0..<n where kv[r] {
                        ps[(Hashing.slot(hs[r], m) &>> shift) + 1] &+= 1
                        used += 1
                    }
                    for p in 0..<256 { ps[p + 1] &+= ps[p] }
                }
            }
        }
        var staged = [Staged](filled: Staged(match: 0, bucket: 0, row: 0), count: used)
        var cursor = Array(partStart[0..<256])
        hashes.withUnsafeBufferPointer { hs in
            valid.withUnsafeBufferPointer { kv in
                matches.withUnsafeBufferPointer { mv in
                    cursor.withUnsafeMutableBufferPointer { cu in
                        staged.withUnsafeMutableBufferPointer { sg in
                            for r in 0..<n where kv[r] {
                                let b = Hashing.slot(hs[r], m)
                                let p = b &>> shift
                                sg[cu[p]] = Staged(match: mv[r], bucket: UInt32(truncatingIfNeeded: b),
                                                   row: Int32(truncatingIfNeeded: r))
                                cu[p] &+= 1
                            }
                        }
                    }
                }
            }
        }
        staged.withUnsafeBufferPointer { sg in
            start.withUnsafeMutableBufferPointer { st in
                // Counts in partition order: each partition's buckets are one contiguous slice.
                for i in 0..<used { st[Int(sg[i].bucket) + 1] &+= 1 }
                for b in 0..<buckets { st[b + 1] &+= st[b] }
                var fill = Array(st[0..<buckets])
                fill.withUnsafeMutableBufferPointer { fl in
                    table.withUnsafeMutableBufferPointer { tb in
                        for i in 0..<used {
                            let e = sg[i]
                            let b = Int(e.bucket)
                            let pos = Int(fl[b])
                            fl[b] = Int32(truncatingIfNeeded: pos + 1)
                            tb[pos] = BuildEntry(match: e.match, row: e.row)
                        }
                    }
                }
            }
        }
        return used
    }
}

/// One build row in the bucket-ordered table.
struct BuildEntry {
    /// The key hash, or the key value itself for a single 64-bit key.
    var match: UInt64
    var row: Int32
}
