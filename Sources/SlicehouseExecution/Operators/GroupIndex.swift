// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import CPrefetch

/// Assigns dense group ids to the rows of a batch by their group-key values.
/// One instance per aggregate operator; one dynamic call per batch.
protocol GroupIndex: AnyObject {
    /// Number of groups so far.
    var groupCount: Int { get }
    /// `groupIds[k]` = group of logical row k, whose keys sit at physical row
    /// `rows[k]` of the flat `keys` vectors; creates groups for new keys.
    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws
    /// `groupIds[k]` = group of logical row k if its keys have one, else -1; creates no
    /// group (a hash aggregate spilling aggregates without a mergeable state folds the
    /// rows of the groups it holds and writes the others out).
    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws
    /// The key columns of groups `range`.
    func keyColumns(_ range: Range<Int>) -> [Vector]
    /// Bytes the index holds (keys, slots, scratch), for the operator's memory reservation.
    var memoryBytes: Int { get }
    /// About `groups` groups are coming (an estimate): an index that grows in steps may
    /// take its final size at once. Nothing changes but the memory held.
    func expect(groups: Int)
    /// Whether `n` more groups could make the index grow (true when it cannot tell).
    func wouldGrow(adding n: Int) -> Bool
}

extension GroupIndex {
    func expect(groups: Int) {}
    func wouldGrow(adding n: Int) -> Bool { true }

    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        throw SQLError.internalError("\(type(of: self)) cannot look keys up without inserting them")
    }
}

/// Picks the fastest index for the key types.
enum GroupIndexFactory {
    static func make(_ keyTypes: [DataType]) -> GroupIndex {
        if keyTypes.isEmpty { return SingleGroupIndex() }
        if keyTypes.count == 1 {
            let t = keyTypes[0]
            if t == .smallint || t == .boolean { return DirectGroupIndex(type: t) }
            if t.physical == .int64 { return Int64GroupIndex(type: t) }
        }
        if PackedStringGroupIndex.fits(keyTypes) { return PackedStringGroupIndex(keyTypes: keyTypes) }
        if PackedIntGroupIndex.fits(keyTypes) { return PackedIntGroupIndex(keyTypes: keyTypes) }
        return HashGroupIndex(keyTypes: keyTypes)
    }
}

/// No group keys: every row belongs to group 0, which exists from the start
/// (so an aggregate without GROUP BY yields one row even on empty input).
final class SingleGroupIndex: GroupIndex {
    var groupCount: Int { 1 }
    var memoryBytes: Int { 0 }
    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        groupIds = [Int32](filled: 0, count: rows.count)
    }
    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        groupIds = [Int32](filled: 0, count: rows.count)
    }
    func keyColumns(_ range: Range<Int>) -> [Vector] { [] }
}

/// Any number and types of keys, through `GroupTable`.
final class HashGroupIndex: GroupIndex {
    private let table: GroupTable
    private var hashes: [UInt64] = []
    init(keyTypes: [DataType]) { table = GroupTable(keyTypes: keyTypes) }
    var groupCount: Int { table.count }
    var memoryBytes: Int { table.memoryBytes + arrayBytes(hashes) }
    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        KeyHashing.hash(keys, rows: rows, into: &hashes)
        try table.findOrInsert(keys, rows: rows, hashes: hashes, insert: true, groupIds: &groupIds)
    }
    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        KeyHashing.hash(keys, rows: rows, into: &hashes)
        try table.findOrInsert(keys, rows: rows, hashes: hashes, insert: false, groupIds: &groupIds)
    }
    func keyColumns(_ range: Range<Int>) -> [Vector] { table.keyColumns(range) }
}

/// One 64-bit integer key (integers, DATE, TIMESTAMP, DECIMAL p <= 18): keys stored
/// inline in the slots, so a lookup is one hash and (usually) one cache line. The NULL
/// key is a group of its own outside the table.
///
///     slots: power of two, load factor <= 1/2, linear probing, in one of two layouts:
///       packed (8 bytes): | group + 1: 24 bits (0 = empty) | key - keyBase: 40 bits |
///       wide (16 bytes):  | key: Int64 | group + 1: Int32 (0 = empty) |
///
/// The packed layout is used while every key lies within 2^40 values from `keyBase` (set
/// from the first keys, half that range below them) and the groups number under 2^24:
/// half the bytes, so a table twice as large stays in the caches (TPC-H Q18's 375 K
/// order keys a slice at SF 1: 8 MB of slots, not 16). The first key outside the range,
/// or the group past the limit, moves the table to the wide layout for good.
final class Int64GroupIndex: GroupIndex {
    struct Int64Slot {
        var key: Int64 = 0
        var group: Int32 = 0
    }

    private let type: DataType
    /// The wide layout's slots (`wide`), else empty.
    private var slots: [Int64Slot] = []
    /// The packed layout's slots (not `wide`), else empty.
    private var packedSlots: [UInt64] = []
    private var wide = false
    /// What packed slots' keys are offsets from (`hasBase` once set).
    private var keyBase: Int64 = 0
    private var hasBase = false
    private var mask = 0
    private var groupKeys: [Int64] = []
    private var nullGroup: Int32 = -1
    /// Scratch: home slot of each row of a batch.
    private var home: [Int32] = []
    /// Sink for the touch pass (keeps it from being optimized away).
    private var touch: Int32 = 0
    /// Direct mode (`isDirect`, `slots` empty): group + 1 of key `directLow + i` at
    /// `direct[i]`, 0 while the key has none. Keys that turn out dense — a customer key
    /// grouped per slice, most of 1.5 M values taken by 954 K groups in TPC-H Q13 at SF 10
    /// — take 4 bytes a value instead of 32 to 64 a group, and a lookup is one load, no
    /// hashing or probing: the table fits the shared cache where the slots (32 MB a
    /// slice) did not.
    private var direct: [Int32] = []
    private var directLow: Int64 = 0
    private(set) var isDirect = false

    /// The groups the packed layout numbers at most (group + 1 in 24 bits); a test sets less.
    private let packedGroupLimit: Int

    init(type: DataType, packedGroupLimit: Int = (1 << 24) - 1) {
        self.type = type
        self.packedGroupLimit = min(packedGroupLimit, (1 << 24) - 1)
    }

    /// Groups past which a growing table checks whether its keys are dense enough for
    /// direct mode (a smaller table stays in the caches anyway)...
    static let directCheckGroups = 1 << 16
    /// ...at most this many values of the keys' range per group (4 bytes a value: no more
    /// than the slots would take)...
    static let directSpanPerGroup: Int64 = 8
    /// ...and at most this many values (64 MB).
    static let maximumDirect: Int64 = 1 << 24

    /// The NULL key's group, made on its first row as group `made` in the room `groupKeys`
    /// has for new groups (its key slot holds 0).
    @inline(__always)
    private static func groupOfNull(_ nullGroup: inout Int32, _ groupKeys: UnsafeMutableBufferPointer<Int64>,
                                    _ made: inout Int) -> Int32 {
        if nullGroup < 0 {
            nullGroup = Int32(truncatingIfNeeded: made)
            groupKeys[made] = 0
            made &+= 1
        }
        return nullGroup
    }

    /// The NULL key's group (`nullGroup`, made on its first row: its key slot holds 0).
    @inline(__always)
    private static func groupOfNull(_ nullGroup: inout Int32, _ groupKeys: inout [Int64]) -> Int32 {
        if nullGroup < 0 {
            nullGroup = Int32(truncatingIfNeeded: groupKeys.count)
            groupKeys.append(0)
        }
        return nullGroup
    }

    /// Tables with fewer groups are probed in one plain pass.
    static let fewGroups = 1024

    var groupCount: Int { groupKeys.count }
    var memoryBytes: Int {
        arrayBytes(slots) + arrayBytes(packedSlots) + arrayBytes(groupKeys) + arrayBytes(home) + arrayBytes(direct)
    }

    /// Slots in the table (of the layout in use).
    private var slotCount: Int { wide ? slots.count : packedSlots.count }

    /// Whether the layout in use is the packed one (for tests).
    var isPacked: Bool { !wide && !isDirect }

    /// Slots for `groups` groups at most half full (the next power of two), taken now
    /// rather than in 4x steps: a table sized from an estimate is half the size the
    /// steps can reach (a partition of 234 K groups: 512 Ki slots, not 1 Mi).
    func expect(groups: Int) {
        guard !isDirect, groups > 0, groups < Int(Int32.max) else { return }
        let cap = max(64, 1 << (Int.bitWidth - (groups * 2 - 1).leadingZeroBitCount))
        if cap > slotCount { resize(cap) }
    }

    func wouldGrow(adding n: Int) -> Bool { !isDirect && (groupKeys.count + n) * 2 > slotCount }

    /// The smallest and largest valid key of the groups and of `values` at `rows` (nil:
    /// none), skipping the NULL group and NULL rows.
    private func keyRange(_ values: [Int64], rows: [Int32], validity: Validity?) -> (Int64, Int64)? {
        var lo = Int64.max, hi = Int64.min
        let nullGroup = Int(self.nullGroup)
        groupKeys.withUnsafeBufferPointer { gk in
            for g in 0..<gk.count where g != nullGroup {
                lo = min(lo, gk[g]); hi = max(hi, gk[g])
            }
        }
        values.withUnsafeBufferPointer { vp in
            for r in rows where validity?.isValid(Int(r)) ?? true {
                lo = min(lo, vp[Int(r)]); hi = max(hi, vp[Int(r)])
            }
        }
        return lo <= hi ? (lo, hi) : nil
    }

    /// The direct array for keys `lo...hi` and `groups` groups, or nil when the range is
    /// too wide or too sparse for it.
    private static func directSize(low lo: Int64, high hi: Int64, groups: Int) -> Int? {
        let (span, overflow) = hi.subtractingReportingOverflow(lo)
        guard !overflow, span < maximumDirect, span < directSpanPerGroup * Int64(max(groups, 1)) else { return nil }
        return Int(span) + 1
    }

    /// Place every group in a direct array over `lo...hi` (`size` values) and drop the slots.
    private func enterDirect(low lo: Int64, size: Int) {
        var fresh = [Int32](filled: 0, count: size)
        let nullGroup = Int(self.nullGroup)
        fresh.withUnsafeMutableBufferPointer { dp in
            groupKeys.withUnsafeBufferPointer { gk in
                for g in 0..<gk.count where g != nullGroup {
                    dp[Int(gk[g] &- lo)] = Int32(truncatingIfNeeded: g + 1)
                }
            }
        }
        direct = fresh
        directLow = lo
        isDirect = true
        slots = []
        packedSlots = []
        mask = 0
    }

    /// Back from direct mode to slots for `total` groups.
    private func leaveDirect(total: Int) {
        direct = []
        isDirect = false
        var cap = 64
        while cap < total * 2 { cap *= 2 }
        resize(cap)
    }

    /// Before a batch of `n` rows: direct mode as the keys allow. A direct table whose
    /// batch has keys outside its range widens it while the keys stay dense, else goes
    /// back to slots; a table of slots about to grow past `directCheckGroups` moves to a
    /// direct array when its keys and the batch's are dense.
    private func chooseMode(_ values: [Int64], rows: [Int32], validity: Validity?) {
        let n = rows.count
        if isDirect {
            let lo = directLow, size = UInt64(direct.count)
            var inside = true
            values.withUnsafeBufferPointer { vp in
                for r in rows where validity?.isValid(Int(r)) ?? true {
                    if UInt64(bitPattern: vp[Int(r)] &- lo) >= size { inside = false; break }
                }
            }
            if inside { return }
            guard let (newLo, newHi) = keyRange(values, rows: rows, validity: validity),
                  Self.directSize(low: newLo, high: newHi, groups: groupKeys.count + n) != nil else {
                leaveDirect(total: groupKeys.count + n)
                return
            }
            // Widened by half the range again on the side that grew, so keys arriving in
            // order do not widen it batch after batch.
            let span = newHi - newLo
            let oldHi = lo + Int64(size) - 1
            var low = newLo, high = newHi
            if newLo < lo, case (let l, false) = newLo.subtractingReportingOverflow(span / 2) { low = l }
            if newHi > oldHi, case (let h, false) = newHi.addingReportingOverflow(span / 2) { high = h }
            if high &- low >= Self.maximumDirect { low = newLo; high = newHi }
            enterDirect(low: low, size: Int(high - low) + 1)
            return
        }
        let total = groupKeys.count + n
        guard total >= Self.directCheckGroups, total * 2 > slotCount,
              let (lo, hi) = keyRange(values, rows: rows, validity: validity),
              let size = Self.directSize(low: lo, high: hi, groups: groupKeys.count) else { return }
        enterDirect(low: lo, size: size)
    }

    private func reserve(_ total: Int) {
        if total * 2 <= slotCount { return }
        var cap = max(64, slotCount)
        // Grow 4x while the table is below 1M slots (a third of the rehashing of
        // doubling, for at most twice the slots), then 2x.
        while cap < total * 2 { cap *= cap < (1 << 20) ? 4 : 2 }
        resize(cap)
    }

    /// The table with `cap` slots (a power of two), every group placed again: packed
    /// while every group's key fits it, else wide.
    private func resize(_ cap: Int) {
        let m = cap - 1
        if !wide && !packedFits(groupKeys, adding: 0) { wide = true }
        if wide {
            var fresh = [Int64Slot](filled: WideSlots.empty, count: cap)
            Self.place(WideSlots.self, &fresh, groupKeys, nullGroup: nullGroup, base: 0, mask: m)
            slots = fresh
            packedSlots = []
        } else {
            var fresh = [UInt64](filled: PackedSlots.empty, count: cap)
            Self.place(PackedSlots.self, &fresh, groupKeys, nullGroup: nullGroup, base: keyBase, mask: m)
            packedSlots = fresh
            slots = []
        }
        mask = m
    }

    /// Every group of `groupKeys` (but the NULL group) in its slot of `table`.
    private static func place<L: Int64SlotLayout>(_ layout: L.Type, _ table: inout [L.Slot], _ groupKeys: [Int64],
                                                  nullGroup: Int32, base: Int64, mask m: Int) {
        let nullGroup = Int(nullGroup)
        table.withUnsafeMutableBufferPointer { sl in
            groupKeys.withUnsafeBufferPointer { gk in
                for g in 0..<gk.count where g != nullGroup {
                    var s = Hashing.slot(Hashing.hash(gk[g]), m)
                    while L.group(sl[s]) != 0 { s = (s + 1) & m }
                    sl[s] = L.slot(gk[g], group: Int32(truncatingIfNeeded: g + 1), base: base)
                }
            }
        }
    }

    /// Whether the valid keys of `values` at `rows` (every value of `values` when `rows`
    /// is nil), with `n` more groups, still fit the packed layout. Sets `keyBase` from the
    /// first keys it sees: the smallest, less 2^39.
    private func packedFits(_ values: [Int64], rows: [Int32]? = nil, validity: Validity? = nil,
                            adding n: Int) -> Bool {
        guard groupKeys.count + n < packedGroupLimit else { return false }
        let nullGroup = rows == nil ? Int(self.nullGroup) : -1
        if !hasBase {
            var lo = Int64.max
            values.withUnsafeBufferPointer { vp in
                if let rows {
                    for r in rows where validity?.isValid(Int(r)) ?? true { lo = min(lo, vp[Int(r)]) }
                } else {
                    for g in 0..<vp.count where g != nullGroup { lo = min(lo, vp[g]) }
                }
            }
            if lo == Int64.max { return true }  // no key yet
            let (b, overflow) = lo.subtractingReportingOverflow(1 << (PackedSlots.keyBits - 1))
            keyBase = overflow ? Int64.min : b
            hasBase = true
        }
        let base = keyBase
        var outside: UInt64 = 0
        values.withUnsafeBufferPointer { vp in
            if let rows {
                if let validity {
                    for r in rows where validity.isValid(Int(r)) {
                        outside |= UInt64(bitPattern: vp[Int(r)] &- base) &>> UInt64(PackedSlots.keyBits)
                    }
                } else {
                    for r in rows { outside |= UInt64(bitPattern: vp[Int(r)] &- base) &>> UInt64(PackedSlots.keyBits) }
                }
            } else {
                for g in 0..<vp.count where g != nullGroup {
                    outside |= UInt64(bitPattern: vp[g] &- base) &>> UInt64(PackedSlots.keyBits)
                }
            }
        }
        return outside == 0
    }

    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        let n = rows.count
        guard keys.count == 1, case .int64(let values) = keys[0].data else {
            throw SQLError.internalError("64-bit group index given another key layout")
        }
        guard groupKeys.count + n < Int(Int32.max) else {
            throw SQLError(.featureNotSupported, "more than \(Int32.max) groups in one operator")
        }
        chooseMode(values, rows: rows, validity: keys[0].validity)
        if isDirect {
            assignDirect(values, rows: rows, validity: keys[0].validity, groupIds: &groupIds)
            return
        }
        if !wide && !packedFits(values, rows: rows, validity: keys[0].validity, adding: n) {
            // A key outside the packed range, or too many groups: wide slots from now on.
            wide = true
            if !packedSlots.isEmpty { resize(packedSlots.count) }
        }
        reserve(groupKeys.count + n)
        // Every row's id is written below: the array is resized in place, not made again.
        groupIds.resize(to: n, padding: 0)
        // Locals only inside the loops (no per-access exclusivity checks on class properties).
        var groupKeys = self.groupKeys, nullGroup = self.nullGroup, home = self.home
        self.groupKeys = []; self.home = []
        defer { self.groupKeys = groupKeys; self.nullGroup = nullGroup; self.home = home }
        if wide {
            var slots = self.slots
            self.slots = []
            defer { self.slots = slots }
            touch ^= Self.probeAssign(WideSlots.self, &slots, base: 0, mask: mask, values, rows: rows,
                                      validity: keys[0].validity, groupIds: &groupIds, groupKeys: &groupKeys,
                                      nullGroup: &nullGroup, home: &home)
        } else {
            var slots = self.packedSlots
            self.packedSlots = []
            defer { self.packedSlots = slots }
            touch ^= Self.probeAssign(PackedSlots.self, &slots, base: keyBase, mask: mask, values, rows: rows,
                                      validity: keys[0].validity, groupIds: &groupIds, groupKeys: &groupKeys,
                                      nullGroup: &nullGroup, home: &home)
        }
    }

    /// The group of key `v`, probed linearly from slot `s`: the one its slot holds, or a new
    /// group numbered `made`, its key written at `groupKeys[made]` (room `probeAssign` made).
    @inline(__always)
    private static func probe<L: Int64SlotLayout>(
        _ layout: L.Type, _ sl: UnsafeMutableBufferPointer<L.Slot>, from s: Int, mask m: Int, _ v: Int64,
        base: Int64, _ groupKeys: UnsafeMutableBufferPointer<Int64>, _ made: inout Int
    ) -> Int32 {
        var s = s
        while true {
            let slot = sl[s]
            let g = L.group(slot)
            if g == 0 {
                let ng = Int32(truncatingIfNeeded: made)
                groupKeys[made] = v
                made &+= 1
                sl[s] = L.slot(v, group: ng + 1, base: base)
                return ng
            }
            if L.holds(slot, v, base: base) { return g - 1 }
            s = (s + 1) & m
        }
    }

    /// A direct array of at least this many bytes is probed with prefetches rather than a
    /// touch pass over windows of rows: past what a core's share of the caches holds, as
    /// for the hash join's tables (`HashJoinOperator`). TPC-H Q13 at SF 10 (customer keys,
    /// 6 MB a slice): 4% less CPU. The slot tables keep their touch pass: prefetching
    /// Q18's (order keys) cost 2% at SF 10.
    static let prefetchedBytes = 4 << 20
    /// Rows ahead of the one being assigned whose entry is prefetched.
    static let prefetchDistance = 24

    /// `assign` over the slots of either layout (the batch's keys fit it); returns the
    /// touch pass's sink.
    @inline(__always)
    private static func probeAssign<L: Int64SlotLayout>(
        _ layout: L.Type, _ slots: inout [L.Slot], base: Int64, mask m: Int, _ values: [Int64], rows: [Int32],
        validity: Validity?, groupIds: inout [Int32], groupKeys: inout [Int64], nullGroup: inout Int32,
        home: inout [Int32]
    ) -> Int32 {
        let n = rows.count
        let empty: [UInt64] = []
        // Room for a new group per row, written through a pointer (no append, with its
        // uniqueness and capacity checks, per new group); trimmed to the groups made.
        var made = groupKeys.count
        let few = made < Self.fewGroups
        groupKeys.append(contentsOf: repeatElement(0, count: n))
        defer { groupKeys.removeLast(groupKeys.count - made) }
        if few {
            // Few groups so far: the slots in use stay cached, so one pass, without the home
            // slots and the touch pass (they only pay off when the probes miss the cache).
            values.withUnsafeBufferPointer { vp in
                (validity?.words ?? empty).withUnsafeBufferPointer { vw in
                    rows.withUnsafeBufferPointer { rw in
                        slots.withUnsafeMutableBufferPointer { sl in
                            groupIds.withUnsafeMutableBufferPointer { out in
                                groupKeys.withUnsafeMutableBufferPointer { gk in
                                    let hasNulls = validity != nil
                                    for k in 0..<n {
                                        let r = Int(rw[k])
                                        if hasNulls && !OperatorKernels.bit(vw, r) {
                                            out[k] = Self.groupOfNull(&nullGroup, gk, &made)
                                            continue
                                        }
                                        let v = vp[r]
                                        out[k] = Self.probe(L.self, sl, from: Hashing.slot(Hashing.hash(v), m), mask: m,
                                                            v, base: base, gk, &made)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return 0
        }
        home.removeAll(keepingCapacity: true)
        var touch: Int32 = 0
        values.withUnsafeBufferPointer { vp in
            (validity?.words ?? empty).withUnsafeBufferPointer { vw in
                rows.withUnsafeBufferPointer { rw in
                    slots.withUnsafeMutableBufferPointer { sl in
                        // Home slot of every row first; then windows of rows: a loop without
                        // branches touches a window's slots (the CPU overlaps their cache
                        // misses), then the window is probed while those lines are still
                        // cached (a whole large batch would evict them again first).
                        for k in 0..<n {
                            home.append(Int32(truncatingIfNeeded: Hashing.slot(Hashing.hash(vp[Int(rw[k])]), m)))
                        }
                        let window = 256
                        groupIds.withUnsafeMutableBufferPointer { out in
                            groupKeys.withUnsafeMutableBufferPointer { gk in
                                home.withUnsafeBufferPointer { hm in
                                    let hasNulls = validity != nil
                                    var lo = 0
                                    while lo < n {
                                        let hi = min(n, lo + window)
                                        for k in lo..<hi { touch ^= L.group(sl[Int(hm[k])]) }
                                        for k in lo..<hi {
                                            let r = Int(rw[k])
                                            if hasNulls && !OperatorKernels.bit(vw, r) {
                                                out[k] = Self.groupOfNull(&nullGroup, gk, &made)
                                                continue
                                            }
                                            out[k] = Self.probe(L.self, sl, from: Int(hm[k]), mask: m, vp[r],
                                                                base: base, gk, &made)
                                        }
                                        lo = hi
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return touch
    }

    /// `assign` in direct mode (every valid key of the batch is within the array).
    private func assignDirect(_ values: [Int64], rows: [Int32], validity: Validity?, groupIds: inout [Int32]) {
        let n = rows.count
        groupIds = [Int32](filled: 0, count: n)
        let lo = directLow
        let empty: [UInt64] = []
        var direct = self.direct, groupKeys = self.groupKeys, nullGroup = self.nullGroup
        self.direct = []; self.groupKeys = []
        defer { self.direct = direct; self.groupKeys = groupKeys; self.nullGroup = nullGroup }
        let hasNulls = validity != nil
        var touch: Int32 = 0
        values.withUnsafeBufferPointer { vp in
            (validity?.words ?? empty).withUnsafeBufferPointer { vw in
                rows.withUnsafeBufferPointer { rw in
                    direct.withUnsafeMutableBufferPointer { dp in
                        groupIds.withUnsafeMutableBufferPointer { out in
                            // Windows of rows: their entries are touched first (a loop without
                            // branches, so the misses overlap), then assigned.
                            // An array past the caches: the entry of the row `prefetchDistance`
                            // on is prefetched instead, the whole batch in one window.
                            let prefetching = dp.count * MemoryLayout<Int32>.stride >= Self.prefetchedBytes
                            let window = prefetching ? n : 256
                            let ahead = Self.prefetchDistance
                            let last = dp.count - 1
                            @inline(__always) func entry(_ k: Int) -> Int {
                                min(max(Int(truncatingIfNeeded: vp[Int(rw[k])] &- lo), 0), last)
                            }
                            var from = 0
                            while from < n {
                                let to = min(n, from + window)
                                if prefetching {
                                    if let base = dp.baseAddress {
                                        for k in from..<min(to, from + ahead) { slicehouse_prefetch(base + entry(k)) }
                                    }
                                } else {
                                    for k in from..<to { touch ^= dp[entry(k)] }
                                }
                                for k in from..<to {
                                    if prefetching && k + ahead < to, let base = dp.baseAddress {
                                        slicehouse_prefetch(base + entry(k + ahead))
                                    }
                                    let r = Int(rw[k])
                                    if hasNulls && !OperatorKernels.bit(vw, r) {
                                        out[k] = Self.groupOfNull(&nullGroup, &groupKeys)
                                        continue
                                    }
                                    let v = vp[r]
                                    let d = Int(truncatingIfNeeded: v &- lo)
                                    var g = dp[d]
                                    if g == 0 {
                                        groupKeys.append(v)
                                        g = Int32(truncatingIfNeeded: groupKeys.count)
                                        dp[d] = g
                                    }
                                    out[k] = g &- 1
                                }
                                from = to
                            }
                        }
                    }
                }
            }
        }
        self.touch ^= touch
    }

    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        let n = rows.count
        guard keys.count == 1, case .int64(let values) = keys[0].data else {
            throw SQLError.internalError("64-bit group index given another key layout")
        }
        groupIds = [Int32](filled: -1, count: n)
        if groupKeys.isEmpty || n == 0 { return }
        if isDirect {
            let lo = directLow, size = UInt64(direct.count)
            let validity = keys[0].validity
            let nullGroup = self.nullGroup
            values.withUnsafeBufferPointer { vp in
                direct.withUnsafeBufferPointer { dp in
                    for k in 0..<n {
                        let r = Int(rows[k])
                        if let validity, !validity.isValid(r) { groupIds[k] = nullGroup; continue }
                        let d = UInt64(bitPattern: vp[r] &- lo)
                        if d < size { groupIds[k] = dp[Int(d)] &- 1 }
                    }
                }
            }
            return
        }
        if wide {
            Self.probeFind(WideSlots.self, slots, base: 0, mask: mask, values, rows: rows,
                           validity: keys[0].validity, nullGroup: nullGroup, groupIds: &groupIds)
        } else {
            Self.probeFind(PackedSlots.self, packedSlots, base: keyBase, mask: mask, values, rows: rows,
                           validity: keys[0].validity, nullGroup: nullGroup, groupIds: &groupIds)
        }
    }

    /// `find` over the slots of either layout; a key the layout cannot hold (outside the
    /// packed range) has no group.
    @inline(__always)
    private static func probeFind<L: Int64SlotLayout>(
        _ layout: L.Type, _ slots: [L.Slot], base: Int64, mask m: Int, _ values: [Int64], rows: [Int32],
        validity: Validity?, nullGroup: Int32, groupIds: inout [Int32]
    ) {
        if slots.isEmpty { return }
        let n = rows.count
        let hasNulls = validity != nil
        let empty: [UInt64] = []
        values.withUnsafeBufferPointer { vp in
            (validity?.words ?? empty).withUnsafeBufferPointer { vw in
                rows.withUnsafeBufferPointer { rw in
                    slots.withUnsafeBufferPointer { sl in
                        groupIds.withUnsafeMutableBufferPointer { out in
                            for k in 0..<n {
                                let r = Int(rw[k])
                                if hasNulls && !OperatorKernels.bit(vw, r) { out[k] = nullGroup; continue }
                                let v = vp[r]
                                if !L.canHold(v, base: base) { continue }
                                var s = Hashing.slot(Hashing.hash(v), m)
                                while true {
                                    let slot = sl[s]
                                    let g = L.group(slot)
                                    if g == 0 { break }
                                    if L.holds(slot, v, base: base) { out[k] = g - 1; break }
                                    s = (s + 1) & m
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    func keyColumns(_ range: Range<Int>) -> [Vector] {
        let values = Array(groupKeys[range])
        var validity: Validity? = nil
        if nullGroup >= 0 && range.contains(Int(nullGroup)) {
            var v = Validity(allValid: range.count)
            v.setInvalid(Int(nullGroup) - range.lowerBound)
            validity = v
        }
        return [Vector(type: type, data: .int64(values), validity: validity)]
    }
}

/// Perfect hashing for keys with a tiny domain (SMALLINT: 65,536 values; BOOLEAN: 2),
/// plus one slot for NULL: the key value indexes an array of group ids directly.
final class DirectGroupIndex: GroupIndex {
    private let type: DataType
    private let lowest: Int64
    private let domain: Int
    /// Group id + 1 per key value (0 = no group yet); slot `domain` is NULL.
    private var slotGroups: [Int32]
    /// Slot of every group, in group order.
    private var groupSlots: [Int32] = []

    init(type: DataType) {
        self.type = type
        if type == .boolean {
            lowest = 0; domain = 2
        } else {
            lowest = Int64(Int16.min); domain = 1 << 16
        }
        slotGroups = [Int32](filled: 0, count: domain + 1)
    }

    var groupCount: Int { groupSlots.count }
    var memoryBytes: Int { arrayBytes(slotGroups) + arrayBytes(groupSlots) }

    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        let n = rows.count
        groupIds = [Int32](filled: 0, count: n)
        guard keys.count == 1 else { throw SQLError.internalError("direct group index given \(keys.count) keys") }
        let validity = keys[0].validity
        let empty: [UInt64] = []
        var outOfRange = false
        let nullSlot = domain
        let lowest = self.lowest, domain = self.domain
        // Slot of each row first (typed per physical representation), then group ids.
        var slotOfRow = [Int32](filled: 0, count: n)
        let hasNulls = validity != nil
        (validity?.words ?? empty).withUnsafeBufferPointer { vw in
            rows.withUnsafeBufferPointer { rows in
                slotOfRow.withUnsafeMutableBufferPointer { so in
                    switch keys[0].data {
                    case .bool(let b):
                        b.withUnsafeBufferPointer { bp in
                            for k in 0..<n {
                                let r = Int(rows[k])
                                so[k] = hasNulls && !OperatorKernels.bit(vw, r) ? Int32(nullSlot) : (bp[r] ? 1 : 0)
                            }
                        }
                    case .int64(let a):
                        a.withUnsafeBufferPointer { ap in
                            for k in 0..<n {
                                let r = Int(rows[k])
                                if hasNulls && !OperatorKernels.bit(vw, r) { so[k] = Int32(nullSlot); continue }
                                let d = ap[r] &- lowest
                                if d < 0 || d >= Int64(domain) { outOfRange = true; so[k] = Int32(nullSlot); continue }
                                so[k] = Int32(truncatingIfNeeded: d)
                            }
                        }
                    default:
                        outOfRange = true
                    }
                }
            }
        }
        if outOfRange {
            throw SQLError.internalError("group key outside the domain of type \(type)")
        }
        var slotGroups = self.slotGroups, groupSlots = self.groupSlots
        self.slotGroups = []; self.groupSlots = []
        defer { self.slotGroups = slotGroups; self.groupSlots = groupSlots }
        slotGroups.withUnsafeMutableBufferPointer { sg in
            slotOfRow.withUnsafeBufferPointer { so in
                groupIds.withUnsafeMutableBufferPointer { out in
                    for k in 0..<n {
                        let s = Int(so[k])
                        var g = sg[s]
                        if g == 0 {
                            groupSlots.append(Int32(truncatingIfNeeded: s))
                            g = Int32(truncatingIfNeeded: groupSlots.count)
                            sg[s] = g
                        }
                        out[k] = g - 1
                    }
                }
            }
        }
    }

    func keyColumns(_ range: Range<Int>) -> [Vector] {
        let slots = groupSlots[range]
        let valid = slots.map { Int($0) != domain }
        let validity = OperatorKernels.validity(from: valid)
        let data: VectorData
        if type == .boolean {
            data = .bool(slots.map { $0 == 1 })
        } else {
            data = .int64(slots.map { Int64($0) &+ lowest })
        }
        return [Vector(type: type, data: data, validity: validity)]
    }
}

/// One or two short string keys (CHAR/VARCHAR of at most 3 bytes: TPC-H Q1's
/// l_returnflag, l_linestatus) packed into one 64-bit value per row, grouped by an
/// `Int64GroupIndex`: no per-column hashing and byte comparison.
///
///     per key, 27 bits: | valid: 1 | length: 2 | bytes: 24 (little-endian) |   (NULL = 0)
///
/// A value longer than 3 bytes (possible only if a stored value exceeds its declared
/// length) switches the index to a `HashGroupIndex`, fed the groups so far in id order so
/// that their ids stay the same.
final class PackedStringGroupIndex: GroupIndex {
    static let maxBytes = 3
    static let bitsPerKey = 27

    static func fits(_ keyTypes: [DataType]) -> Bool {
        guard !keyTypes.isEmpty && keyTypes.count <= 2 else { return false }
        return keyTypes.allSatisfy { t in
            switch t {
            case .char(let n), .varchar(let n): return n >= 1 && n <= maxBytes && t.physical == .string
            default: return false
            }
        }
    }

    private let keyTypes: [DataType]
    private let packedIndex = Int64GroupIndex(type: .bigint)
    private var fallback: HashGroupIndex?
    private var packed: [Int64] = []
    private var identity: [Int32] = []

    init(keyTypes: [DataType]) { self.keyTypes = keyTypes }

    var groupCount: Int { fallback?.groupCount ?? packedIndex.groupCount }
    func expect(groups: Int) {
        if fallback == nil { packedIndex.expect(groups: groups) }
    }
    func wouldGrow(adding n: Int) -> Bool { fallback != nil || packedIndex.wouldGrow(adding: n) }
    var memoryBytes: Int {
        packedIndex.memoryBytes + (fallback?.memoryBytes ?? 0) + arrayBytes(packed) + arrayBytes(identity)
            + arrayBytes(byteGroups)
    }

    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        if let fallback { return try fallback.assign(keys, rows: rows, groupIds: &groupIds) }
        if try assignSingleBytes(keys, rows: rows, groupIds: &groupIds) { return }
        if try !pack(keys, rows: rows) {
            return try switchToFallback().assign(keys, rows: rows, groupIds: &groupIds)
        }
        let (vector, packedRows) = packedKeys(rows.count)
        try packedIndex.assign([vector], rows: packedRows, groupIds: &groupIds)
    }

    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        if let fallback { return try fallback.find(keys, rows: rows, groupIds: &groupIds) }
        if try !pack(keys, rows: rows) {
            return try switchToFallback().find(keys, rows: rows, groupIds: &groupIds)
        }
        let (vector, packedRows) = packedKeys(rows.count)
        try packedIndex.find([vector], rows: packedRows, groupIds: &groupIds)
    }

    /// The group of each pair of one-byte keys seen so far, at `first | second << 8`
    /// (-1: not seen yet); empty until a chunk takes `assignSingleBytes`.
    private var byteGroups: [Int32] = []

    /// When every key of every row in `rows` is exactly one byte (no NULLs, Q1's flags),
    /// each row's group is read from `byteGroups` by its bytes: no packing and no hashing
    /// per row. A pair seen for the first time goes through `packedIndex` as `pack` would
    /// code it, so that ids agree with the other paths. False (nothing done) otherwise.
    private func assignSingleBytes(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws -> Bool {
        guard keys.count == keyTypes.count, keys.count <= 2 else { return false }
        var columns: [StringArray] = []
        for key in keys {
            guard case .string(let strings) = key.data, key.validity == nil, !key.isConstant else { return false }
            columns.append(strings)
        }
        // Every row's value one byte long: its byte is at its offset. When every value
        // from the lowest row to the highest is (CHAR(1) flags, selected or not), the check
        // runs over those offsets in order and row r's byte is at `off[lo] + r - lo`;
        // otherwise it runs over `rows`.
        guard let lo = rows.withUnsafeBufferPointer({ $0.min() }), let hi = rows.withUnsafeBufferPointer({ $0.max() }),
              lo >= 0 else {
            if rows.isEmpty { groupIds = []; return true }
            return false
        }
        var bases: [Int] = []
        for strings in columns {
            if Int(hi) + 1 >= strings.offsets.count { return false }
            if let base = Self.everyValueOneByte(strings, rows: Int(lo)...Int(hi)) {
                bases.append(base)
                continue
            }
            let oneByte = strings.offsets.withUnsafeBufferPointer { off in
                rows.withUnsafeBufferPointer { rw in
                    // The lengths are OR-ed without a branch.
                    var bad: Int32 = 0
                    for r in rw {
                        let i = Int(r)
                        bad |= (off[i + 1] &- off[i]) ^ 1
                    }
                    return bad == 0
                }
            }
            if !oneByte { return false }
        }
        if byteGroups.isEmpty { byteGroups = [Int32](filled: -1, count: 1 << 16) }
        let first = columns[0], second = columns.count > 1 ? columns[1] : columns[0]
        let shift = columns.count > 1 ? 8 : 0
        let n = rows.count
        var ids = [Int32](filled: 0, count: n)
        var missing: [Int] = []
        byteGroups.withUnsafeMutableBufferPointer { table in
            first.bytes.withUnsafeBufferPointer { b0 in
                second.bytes.withUnsafeBufferPointer { b1 in
                    rows.withUnsafeBufferPointer { rw in
                        ids.withUnsafeMutableBufferPointer { out in
                            if bases.count == columns.count, let a0 = b0.baseAddress, let a1 = b1.baseAddress {
                                // Bytes in row order: no offsets to read.
                                let p0 = a0 + bases[0], p1 = a1 + bases[bases.count - 1], first = Int(lo)
                                for k in 0..<n {
                                    let r = Int(rw[k]) &- first
                                    let slot = Int(p0[r]) | (Int(p1[r]) &<< shift) & 0xFF00
                                    let g = table[slot]
                                    out[k] = g
                                    if g < 0 { missing.append(k) }
                                }
                                return
                            }
                            first.offsets.withUnsafeBufferPointer { o0 in
                                second.offsets.withUnsafeBufferPointer { o1 in
                                    for k in 0..<n {
                                        let r = Int(rw[k])
                                        let slot = Int(b0[Int(o0[r])]) | (Int(b1[Int(o1[r])]) &<< shift) & 0xFF00
                                        let g = table[slot]
                                        out[k] = g
                                        if g < 0 { missing.append(k) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        for k in missing where ids[k] < 0 {
            // First sight of this pair (or of a later row of it in this chunk).
            let r = Int(rows[k])
            let x = first.withBytes(r) { $0[0] }, y = second.withBytes(r) { $0[0] }
            let slot = Int(x) | (Int(y) &<< shift) & 0xFF00
            var g = byteGroups[slot]
            if g < 0 {
                var code: Int64 = 0
                let bytes: [UInt8] = columns.count > 1 ? [x, y] : [x]
                for (c, byte) in bytes.enumerated() {
                    code |= (Int64(1) << 26 | Int64(1) << 24 | Int64(byte)) &<< Int64(c * Self.bitsPerKey)
                }
                var one: [Int32] = []
                try packedIndex.assign([Vector(type: .bigint, data: .int64([code]))], rows: [0], groupIds: &one)
                guard let id = one.first else { throw SQLError.internalError("packed group index returned no group") }
                g = id
                byteGroups[slot] = g
            }
            ids[k] = g
        }
        groupIds = ids
        return true
    }

    /// The offset of value `rows.lowerBound` when every value in `rows` is one byte long
    /// (value i's byte is then at that offset + i - rows.lowerBound); nil otherwise.
    /// `rows` must lie within the values `strings` holds.
    static func everyValueOneByte(_ strings: StringArray, rows: ClosedRange<Int>) -> Int? {
        strings.offsets.withUnsafeBufferPointer { off in
            guard rows.lowerBound >= 0, rows.upperBound + 1 < off.count else { return nil }
            var bad: Int32 = 0
            for i in rows { bad |= (off[i + 1] &- off[i]) ^ 1 }
            return bad == 0 ? Int(off[rows.lowerBound]) : nil
        }
    }

    /// The `n` codes `pack` wrote, as a key vector, and its rows `0..<n`.
    private func packedKeys(_ n: Int) -> (Vector, [Int32]) {
        PackedCodes.keys(packed, n, identity: &identity)
    }

    /// The generic index, fed the groups so far in id order (their ids stay the same).
    private func switchToFallback() throws -> HashGroupIndex {
        let generic = try PackedCodes.generic(keyTypes, groups: packedIndex.groupCount, keyColumns: keyColumns)
        fallback = generic
        return generic
    }

    /// Pack the keys of `rows` into `packed`; false when a value is too long to pack.
    private func pack(_ keys: [Vector], rows: [Int32]) throws -> Bool {
        guard keys.count == keyTypes.count else {
            throw SQLError.internalError("packed group index given \(keys.count) keys for \(keyTypes.count)")
        }
        let n = rows.count
        packed.removeAll(keepingCapacity: true)
        packed.append(contentsOf: repeatElement(0, count: n))
        var tooLong = false
        for (c, key) in keys.enumerated() {
            guard case .string(let strings) = key.data else {
                throw SQLError.internalError("packed group index given a non-string key")
            }
            let shift = Int64(c * Self.bitsPerKey)
            let validity = key.validity
            let empty: [UInt64] = []
            strings.offsets.withUnsafeBufferPointer { off in
                strings.bytes.withUnsafeBufferPointer { bytes in
                    (validity?.words ?? empty).withUnsafeBufferPointer { vw in
                        rows.withUnsafeBufferPointer { rw in
                            packed.withUnsafeMutableBufferPointer { out in
                                let hasNulls = validity != nil
                                for k in 0..<n {
                                    let r = Int(rw[k])
                                    if hasNulls && !OperatorKernels.bit(vw, r) { continue }
                                    let start = Int(off[r]), len = Int(off[r + 1]) - start
                                    if len == 1 {
                                        // One byte (CHAR(1) flags): no byte loop.
                                        out[k] |= (Int64(1) << 26 | Int64(1) << 24 | Int64(bytes[start])) << shift
                                        continue
                                    }
                                    if len > Self.maxBytes { tooLong = true; continue }
                                    var code = Int64(1) << 26 | Int64(len) << 24
                                    var b = 0
                                    while b < len { code |= Int64(bytes[start + b]) << Int64(8 * b); b += 1 }
                                    out[k] |= code << shift
                                }
                            }
                        }
                    }
                }
            }
        }
        return !tooLong
    }

    func keyColumns(_ range: Range<Int>) -> [Vector] {
        if let fallback { return fallback.keyColumns(range) }
        guard let codes = packedIndex.keyColumns(range).first, case .int64(let values) = codes.data else { return [] }
        var columns: [Vector] = []
        for (c, t) in keyTypes.enumerated() {
            var strings = StringArray(reservingCount: values.count, bytes: values.count * Self.maxBytes)
            var validity = Validity(allValid: values.count)
            var anyNull = false
            for (i, v) in values.enumerated() {
                let code = (v >> Int64(c * Self.bitsPerKey)) & ((1 << Int64(Self.bitsPerKey)) - 1)
                if code == 0 {
                    validity.setInvalid(i)
                    anyNull = true
                } else {
                    let len = Int((code >> 24) & 3)
                    for b in 0..<len { strings.bytes.append(UInt8(truncatingIfNeeded: code >> Int64(8 * b))) }
                }
                strings.offsets.append(Int32(truncatingIfNeeded: strings.bytes.count))
            }
            columns.append(Vector(type: t, data: .string(strings), validity: anyNull ? validity : nil))
        }
        return columns
    }
}

/// Two to four integer-backed keys (integers, DATE, TIMESTAMP, DECIMAL p <= 18) packed
/// into one 64-bit code per row and grouped by an `Int64GroupIndex`: one hash and one
/// inline comparison per row instead of a hash per column and a comparison per column
/// (TPC-DS q78 groups by year, item and customer; TPC-H Q3 by order key, date and
/// priority).
///
///     code = c0 | c1 << w | c2 << 2w | ...     w = 64 / keys (32, 21 or 16 bits)
///     c = 0 for NULL, else v - base (1 ... 2^w - 1)
///
/// Each column's window `base + 1 ... base + 2^w - 1` is centred on the first batch's
/// values. A value outside its window (or a first batch wider than one) switches the index
/// to a `HashGroupIndex`, fed the groups so far in id order so that their ids stay the same.
final class PackedIntGroupIndex: GroupIndex {
    static func fits(_ keyTypes: [DataType]) -> Bool {
        (2...4).contains(keyTypes.count) && keyTypes.allSatisfy { $0.physical == .int64 }
    }

    private let keyTypes: [DataType]
    /// Bits per key.
    private let width: Int
    private let packedIndex = Int64GroupIndex(type: .bigint)
    private var fallback: HashGroupIndex?
    /// Per key: values code as `v - base`; empty until the first batch.
    private var bases: [Int64] = []
    private var packed: [Int64] = []
    private var identity: [Int32] = []

    init(keyTypes: [DataType]) {
        self.keyTypes = keyTypes
        self.width = 64 / max(1, keyTypes.count)
    }

    var groupCount: Int { fallback?.groupCount ?? packedIndex.groupCount }
    func expect(groups: Int) {
        if fallback == nil { packedIndex.expect(groups: groups) }
    }
    func wouldGrow(adding n: Int) -> Bool { fallback != nil || packedIndex.wouldGrow(adding: n) }
    var memoryBytes: Int {
        packedIndex.memoryBytes + (fallback?.memoryBytes ?? 0) + arrayBytes(packed) + arrayBytes(identity)
    }

    /// The largest code of a key (all ones in `width` bits).
    private var maxCode: UInt64 { width >= 64 ? UInt64.max : (UInt64(1) << UInt64(width)) - 1 }

    func assign(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        if let fallback { return try fallback.assign(keys, rows: rows, groupIds: &groupIds) }
        if rows.isEmpty {
            groupIds = []
            return
        }
        if bases.isEmpty && !chooseBases(keys, rows) {
            return try switchToFallback().assign(keys, rows: rows, groupIds: &groupIds)
        }
        guard try pack(keys, rows: rows) else {
            return try switchToFallback().assign(keys, rows: rows, groupIds: &groupIds)
        }
        let (vector, packedRows) = packedKeys(rows.count)
        try packedIndex.assign([vector], rows: packedRows, groupIds: &groupIds)
    }

    func find(_ keys: [Vector], rows: [Int32], groupIds: inout [Int32]) throws {
        if let fallback { return try fallback.find(keys, rows: rows, groupIds: &groupIds) }
        if bases.isEmpty {
            groupIds = [Int32](filled: -1, count: rows.count)
            return
        }
        guard try pack(keys, rows: rows) else {
            return try switchToFallback().find(keys, rows: rows, groupIds: &groupIds)
        }
        let (vector, packedRows) = packedKeys(rows.count)
        try packedIndex.find([vector], rows: packedRows, groupIds: &groupIds)
    }

    /// Windows centred on the values of the first batch; false when one column's values
    /// span more than a window holds.
    private func chooseBases(_ keys: [Vector], _ rows: [Int32]) -> Bool {
        guard keys.count == keyTypes.count else { return false }
        let room = Int128(maxCode) - 1
        var chosen: [Int64] = []
        for key in keys {
            guard case .int64(let values) = key.data else { return false }
            let stride = key.isConstant ? 0 : 1
            var lo = Int64.max, hi = Int64.min
            values.withUnsafeBufferPointer { vp in
                for r in rows {
                    let i = Int(r) &* stride
                    if let v = key.validity, !v.isValid(i) { continue }
                    lo = min(lo, vp[i])
                    hi = max(hi, vp[i])
                }
            }
            if lo > hi { lo = 0; hi = 0 }   // only NULLs so far
            let span = Int128(hi) - Int128(lo)
            if span > room { return false }
            // base + 1 ... base + maxCode holds lo ... hi with the room left split evenly.
            let base = Int128(lo) - 1 - (room - span) / 2
            chosen.append(Int64(clamping: base))
        }
        bases = chosen
        return true
    }

    /// The codes of `rows` into `packed`; false when a value lies outside its window.
    private func pack(_ keys: [Vector], rows: [Int32]) throws -> Bool {
        guard keys.count == keyTypes.count, bases.count == keyTypes.count else {
            throw SQLError.internalError("packed integer group index given \(keys.count) keys for \(keyTypes.count)")
        }
        let n = rows.count
        packed.removeAll(keepingCapacity: true)
        packed.append(contentsOf: repeatElement(0, count: n))
        let top = maxCode
        var outside = false
        for (c, key) in keys.enumerated() {
            guard case .int64(let values) = key.data else {
                throw SQLError.internalError("packed integer group index given a non-integer key")
            }
            let base = bases[c], shift = UInt64(c * width)
            let stride = key.isConstant ? 0 : 1
            let validity = key.validity
            let empty: [UInt64] = []
            var bad = false
            values.withUnsafeBufferPointer { vp in
                (validity?.words ?? empty).withUnsafeBufferPointer { vw in
                    rows.withUnsafeBufferPointer { rw in
                        packed.withUnsafeMutableBufferPointer { out in
                            let hasNulls = validity != nil
                            for k in 0..<n {
                                let i = Int(rw[k]) &* stride
                                if hasNulls && !OperatorKernels.bit(vw, i) { continue }   // code 0
                                let (d, o) = vp[i].subtractingReportingOverflow(base)
                                let code = UInt64(bitPattern: d)
                                // In the window: no overflow and 1 <= code <= top.
                                bad = bad || o || code &- 1 >= top
                                out[k] |= Int64(bitPattern: code << shift)
                            }
                        }
                    }
                }
            }
            if bad { outside = true; break }
        }
        return !outside
    }

    private func packedKeys(_ n: Int) -> (Vector, [Int32]) {
        PackedCodes.keys(packed, n, identity: &identity)
    }

    /// The generic index, fed the groups so far in id order (their ids stay the same).
    private func switchToFallback() throws -> HashGroupIndex {
        let generic = try PackedCodes.generic(keyTypes, groups: packedIndex.groupCount, keyColumns: keyColumns)
        fallback = generic
        return generic
    }

    func keyColumns(_ range: Range<Int>) -> [Vector] {
        if let fallback { return fallback.keyColumns(range) }
        guard let codes = packedIndex.keyColumns(range).first, case .int64(let values) = codes.data else {
            return keyTypes.map { Vector(type: $0) }
        }
        let mask = maxCode
        var columns: [Vector] = []
        for (c, t) in keyTypes.enumerated() {
            let base = c < bases.count ? bases[c] : 0
            let shift = UInt64(c * width)
            var out = [Int64](filled: 0, count: values.count)
            var validity = Validity(allValid: values.count)
            var anyNull = false
            for (i, v) in values.enumerated() {
                let code = (UInt64(bitPattern: v) >> shift) & mask
                if code == 0 {
                    validity.setInvalid(i)
                    anyNull = true
                } else {
                    out[i] = base &+ Int64(bitPattern: code)
                }
            }
            columns.append(Vector(type: t, data: .int64(out), validity: anyNull ? validity : nil))
        }
        return columns
    }
}

/// What the packed indexes (`PackedStringGroupIndex`, `PackedIntGroupIndex`) share.
enum PackedCodes {
    /// The first `n` of `codes` as a key vector, and its rows `0..<n` (`identity` grown as needed).
    static func keys(_ codes: [Int64], _ n: Int, identity: inout [Int32]) -> (Vector, [Int32]) {
        if identity.count < n { identity = (0..<Int32(truncatingIfNeeded: n)).map { $0 } }
        return (Vector(type: .bigint, data: .int64(codes)), n == identity.count ? identity : Array(identity[0..<n]))
    }

    /// A generic index fed groups `0..<groups` (their keys from `keyColumns`) in id order,
    /// so that their ids stay the same.
    static func generic(_ keyTypes: [DataType], groups: Int,
                        keyColumns: (Range<Int>) -> [Vector]) throws -> HashGroupIndex {
        let index = HashGroupIndex(keyTypes: keyTypes)
        if groups > 0 {
            var ignored: [Int32] = []
            try index.assign(keyColumns(0..<groups), rows: (0..<Int32(truncatingIfNeeded: groups)).map { $0 },
                             groupIds: &ignored)
        }
        return index
    }
}

/// How `Int64GroupIndex` lays out a slot: its group + 1 (0: an empty slot) and its key.
protocol Int64SlotLayout {
    associatedtype Slot
    static var empty: Slot { get }
    /// The slot's group + 1; 0 when the slot is empty.
    static func group(_ slot: Slot) -> Int32
    /// Whether the (occupied) slot holds `key`.
    static func holds(_ slot: Slot, _ key: Int64, base: Int64) -> Bool
    /// Whether the layout can hold `key` at all.
    static func canHold(_ key: Int64, base: Int64) -> Bool
    static func slot(_ key: Int64, group: Int32, base: Int64) -> Slot
}

/// 16 bytes a slot: the key and the group + 1.
enum WideSlots: Int64SlotLayout {
    static var empty: Int64GroupIndex.Int64Slot { Int64GroupIndex.Int64Slot() }
    @inline(__always) static func group(_ slot: Int64GroupIndex.Int64Slot) -> Int32 { slot.group }
    @inline(__always) static func holds(_ slot: Int64GroupIndex.Int64Slot, _ key: Int64, base: Int64) -> Bool {
        slot.key == key
    }
    @inline(__always) static func canHold(_ key: Int64, base: Int64) -> Bool { true }
    @inline(__always) static func slot(_ key: Int64, group: Int32, base: Int64) -> Int64GroupIndex.Int64Slot {
        Int64GroupIndex.Int64Slot(key: key, group: group)
    }
}

/// 8 bytes a slot: the group + 1 in the top 24 bits, the key's offset from the index's
/// base in the low 40 (every key of the table within 2^40 values of the base).
enum PackedSlots: Int64SlotLayout {
    static let keyBits = 40
    static let keyMask: UInt64 = (1 << 40) - 1
    static var empty: UInt64 { 0 }
    @inline(__always) static func group(_ slot: UInt64) -> Int32 { Int32(truncatingIfNeeded: slot &>> 40) }
    @inline(__always) static func holds(_ slot: UInt64, _ key: Int64, base: Int64) -> Bool {
        slot & keyMask == UInt64(bitPattern: key &- base)
    }
    @inline(__always) static func canHold(_ key: Int64, base: Int64) -> Bool {
        UInt64(bitPattern: key &- base) <= keyMask
    }
    @inline(__always) static func slot(_ key: Int64, group: Int32, base: Int64) -> UInt64 {
        UInt64(UInt32(bitPattern: group)) &<< 40 | UInt64(bitPattern: key &- base)
    }
}
