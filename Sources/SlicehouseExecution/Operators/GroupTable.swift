// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// An open-addressing hash table that maps key rows (one or more columns) to dense
/// group ids `0, 1, 2, ...` in order of first appearance. Used by hash aggregation,
/// DISTINCT aggregates and set operations.
///
/// Layout:
///
///     slots:  [UInt64]   capacity = power of two, load factor <= 1/2
///             0 = empty, else  | salt: top 16 bits of the hash | group id + 1: low 48 bits |
///     hashes: [UInt64]   per group, to rehash on growth without touching keys
///     keys:   [Vector]   per key column, row g = the key of group g (flat, typed)
///
/// Lookups run a batch at a time: every row walks the linear probe sequence until
/// it finds an empty slot (a new group) or a slot whose salt matches; the salt-matched
/// candidates are then compared column by column with typed kernels, and the rows
/// whose keys differ continue probing in the next pass. NULLs compare equal, so all
/// NULL keys of a column form one group.
final class GroupTable {
    let keyTypes: [DataType]
    /// Key values of every group, column-wise.
    private(set) var keys: [Vector]
    private var groupHashes: [UInt64] = []
    private var slots: [UInt64] = []
    private var mask = 0
    /// Number of groups.
    private(set) var count = 0

    private static let saltMask: UInt64 = 0xFFFF_0000_0000_0000
    private static let idMask: UInt64 = 0x0000_FFFF_FFFF_FFFF

    // Scratch buffers reused across batches.
    private var slotOf: [Int] = []
    private var pending: [Int32] = []
    private var nextPending: [Int32] = []
    private var candRows: [Int32] = []
    private var candLogical: [Int32] = []
    private var candGroups: [Int32] = []
    private var eq: [Bool] = []

    init(keyTypes: [DataType]) {
        self.keyTypes = keyTypes
        self.keys = keyTypes.map { Vector(type: $0) }
    }

    /// Bytes the table holds: keys, hashes, slots and scratch buffers.
    var memoryBytes: Int {
        keys.reduce(0) { $0 + $1.memoryBytes } + arrayBytes(groupHashes) + arrayBytes(slots) + arrayBytes(slotOf)
            + arrayBytes(pending) + arrayBytes(nextPending) + arrayBytes(candRows) + arrayBytes(candLogical)
            + arrayBytes(candGroups) + arrayBytes(eq)
    }

    /// Grow so that `total` groups fit at load factor 1/2.
    private func reserve(_ total: Int) {
        if total * 2 <= slots.count { return }
        var cap = max(64, slots.count)
        while cap < total * 2 { cap *= 2 }
        var fresh = [UInt64](filled: 0, count: cap)
        let m = cap - 1
        fresh.withUnsafeMutableBufferPointer { sl in
            groupHashes.withUnsafeBufferPointer { hs in
                for g in 0..<count {
                    let h = hs[g]
                    var s = Hashing.slot(h, m)
                    while sl[s] != 0 { s = (s + 1) & m }
                    sl[s] = (h & Self.saltMask) | UInt64(g + 1)
                }
            }
        }
        slots = fresh
        mask = m
    }

    /// Find the group of each row, creating missing groups when `insert`.
    ///
    /// - Parameters:
    ///   - keyColumns: flat key vectors (same types as `keyTypes`).
    ///   - rows: the physical row in `keyColumns` of each logical row k.
    ///   - hashes: the combined key hash of each logical row k (`Vector.hash`).
    ///   - insert: create groups for keys not yet present.
    ///   - groupIds: receives the group of each logical row, or -1 when absent and not inserted.
    /// - Returns: the logical rows that created a group, in creation order.
    @discardableResult
    func findOrInsert(_ keyColumns: [Vector], rows: [Int32], hashes: [UInt64], insert: Bool,
                      groupIds: inout [Int32]) throws -> [Int32] {
        let n = rows.count
        groupIds = [Int32](filled: -1, count: n)
        if n == 0 { return [] }
        guard keyColumns.count == keys.count else {
            throw SQLError.internalError("group table with \(keys.count) keys probed with \(keyColumns.count)")
        }
        if insert {
            guard count + n < Int(Int32.max) else {
                throw SQLError(.featureNotSupported, "more than \(Int32.max) groups in one operator")
            }
            reserve(count + n)
        } else if count == 0 {
            return []
        }
        var created: [Int32] = []
        let m = mask
        // Hot loops touch only locals and unsafe pointers (class properties would pay
        // a dynamic exclusivity check per access); scratch arrays are moved out and back.
        var slotOf = self.slotOf, pending = self.pending, nextPending = self.nextPending
        var candRows = self.candRows, candLogical = self.candLogical, candGroups = self.candGroups
        var eq = self.eq, slots = self.slots, groupHashes = self.groupHashes
        var count = self.count
        self.slotOf = []; self.pending = []; self.nextPending = []
        self.candRows = []; self.candLogical = []; self.candGroups = []; self.eq = []
        self.slots = []; self.groupHashes = []
        defer {
            self.slotOf = slotOf; self.pending = pending; self.nextPending = nextPending
            self.candRows = candRows; self.candLogical = candLogical; self.candGroups = candGroups
            self.eq = eq; self.slots = slots; self.groupHashes = groupHashes
            self.count = count
        }
        slotOf.removeAll(keepingCapacity: true)
        for h in hashes { slotOf.append(Hashing.slot(h, m)) }
        pending.removeAll(keepingCapacity: true)
        for k in 0..<Int32(truncatingIfNeeded: n) { pending.append(k) }

        while !pending.isEmpty {
            candRows.removeAll(keepingCapacity: true)
            candLogical.removeAll(keepingCapacity: true)
            candGroups.removeAll(keepingCapacity: true)
            let firstCreated = created.count
            // Pass 1: walk probe sequences to an empty slot or a salt match.
            slots.withUnsafeMutableBufferPointer { sl in
                hashes.withUnsafeBufferPointer { hs in
                    rows.withUnsafeBufferPointer { rw in
                        slotOf.withUnsafeMutableBufferPointer { so in
                            groupIds.withUnsafeMutableBufferPointer { gid in
                                for k32 in pending {
                                    let k = Int(k32)
                                    let h = hs[k], salt = h & Self.saltMask
                                    var s = so[k]
                                    while true {
                                        let e = sl[s]
                                        if e == 0 {
                                            if insert {
                                                let g = count
                                                count += 1
                                                sl[s] = salt | UInt64(g + 1)
                                                groupHashes.append(h)
                                                gid[k] = Int32(truncatingIfNeeded: g)
                                                created.append(k32)
                                            }
                                            break
                                        }
                                        if e & Self.saltMask == salt {
                                            candLogical.append(k32)
                                            candRows.append(rw[k])
                                            candGroups.append(Int32(truncatingIfNeeded: Int(e & Self.idMask) - 1))
                                            break
                                        }
                                        s = (s + 1) & m
                                    }
                                    so[k] = s
                                }
                            }
                        }
                    }
                }
            }
            // New groups store their keys before candidates are compared (a later row
            // of this batch may have matched a group created earlier in this pass).
            if created.count > firstCreated {
                let newRows = created[firstCreated...].map { rows[Int($0)] }
                for c in 0..<keys.count {
                    try OperatorKernels.append(&keys[c], keyColumns[c], rows: newRows, count: newRows.count)
                }
            }
            if candLogical.isEmpty { break }
            // Pass 2: compare candidate keys column by column.
            eq.removeAll(keepingCapacity: true)
            eq.append(contentsOf: repeatElement(true, count: candLogical.count))
            try candRows.withUnsafeBufferPointer { ar in
                try candGroups.withUnsafeBufferPointer { br in
                    try eq.withUnsafeMutableBufferPointer { e in
                        for c in 0..<keys.count {
                            try OperatorKernels.andEqual(keyColumns[c], ar, keys[c], br, e)
                        }
                    }
                }
            }
            nextPending.removeAll(keepingCapacity: true)
            candLogical.withUnsafeBufferPointer { cl in
                candGroups.withUnsafeBufferPointer { cg in
                    eq.withUnsafeBufferPointer { e in
                        slotOf.withUnsafeMutableBufferPointer { so in
                            groupIds.withUnsafeMutableBufferPointer { gid in
                                for j in 0..<cl.count {
                                    let k = Int(cl[j])
                                    if e[j] {
                                        gid[k] = cg[j]
                                    } else {
                                        so[k] = (so[k] + 1) & m
                                        nextPending.append(cl[j])
                                    }
                                }
                            }
                        }
                    }
                }
            }
            swap(&pending, &nextPending)
        }
        return created
    }

    /// Rows `range` of the key columns.
    func keyColumns(_ range: Range<Int>) -> [Vector] {
        keys.map { OperatorKernels.slice($0, range) }
    }
}

/// Computes the combined key hash of logical rows (`rows` = physical indices).
enum KeyHashing {
    static func hash(_ keyColumns: [Vector], rows: [Int32], into hashes: inout [UInt64]) {
        if keyColumns.isEmpty { hashes = [UInt64](filled: 0, count: rows.count); return }
        for (i, col) in keyColumns.enumerated() {
            col.hash(rows: rows, count: rows.count, into: &hashes, combine: i > 0)
        }
    }
}
