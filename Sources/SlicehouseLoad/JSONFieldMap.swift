// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseTypes

/// Which JSON values feed which loaded columns: a trie of JSONPath steps whose nodes
/// list the columns loaded from the value found there.
///
/// `JSON 'auto'` is the one-level case (a root child per column name); a JSONPaths
/// file may go deeper (`$.a.b`, `$['x'][2]`) and may address array records (`$[0]`).
/// Member keys are found through one flat open-addressing hash table keyed by
/// (parent node, key bytes) — ASCII case folded for `'auto ignorecase'` — so matching
/// a key costs one hash and usually one comparison, whatever the column count.
/// Immutable after construction and shared by all workers of a COPY.
final class JSONFieldMap: @unchecked Sendable {
    /// One step of a JSONPath expression.
    enum Step: Equatable {
        case key([UInt8])
        case index(Int)
    }

    /// Match keys ignoring ASCII case.
    let ignoreCase: Bool
    /// Records may be arrays (some path starts with an index), not only objects.
    let arrayRecords: Bool
    /// Nodes in the trie (node 0 is the record itself).
    let nodeCount: Int

    // Per node: columns loaded from its value, and whether it has key / index children.
    private let columnStart: UnsafeMutablePointer<Int32>
    private let columnCount: UnsafeMutablePointer<Int32>
    private let columnList: UnsafeMutablePointer<Int32>
    private let flags: UnsafeMutablePointer<UInt8>
    static let hasKeys: UInt8 = 1, hasIndices: UInt8 = 2

    // Key children: open addressing over (parent, folded key).
    private let slots: UnsafeMutablePointer<Int32>
    private let slotMask: Int
    private let entryParent: UnsafeMutablePointer<Int32>
    private let entryHash: UnsafeMutablePointer<UInt64>
    private let entryKeyStart: UnsafeMutablePointer<Int32>
    private let entryKeyLength: UnsafeMutablePointer<Int32>
    private let entryChild: UnsafeMutablePointer<Int32>
    private let keyBytes: UnsafeMutablePointer<UInt8>
    private let keyEntries: Int
    private let keyByteCount: Int

    // Index children: (parent, index, child), few, scanned linearly.
    private let indexChildren: [(parent: Int32, index: Int, child: Int32)]

    /// Build from one path per loaded column (`paths[c]` feeds column `c`).
    init(paths: [[Step]], ignoreCase: Bool) {
        self.ignoreCase = ignoreCase
        // Build the trie with Swift collections first.
        var columns: [[Int32]] = [[]]
        var nodeFlags: [UInt8] = [0]
        var keys: [(parent: Int32, key: [UInt8], child: Int32)] = []
        var keyIndex: [KeyID: Int32] = [:]
        var indices: [(parent: Int32, index: Int, child: Int32)] = []
        var arrays = false
        for (c, path) in paths.enumerated() {
            var node: Int32 = 0
            for (depth, step) in path.enumerated() {
                switch step {
                case .key(let raw):
                    let key = ignoreCase ? raw.map(Self.fold) : raw
                    let id = KeyID(parent: node, key: key)
                    if let child = keyIndex[id] {
                        node = child
                    } else {
                        let child = Int32(columns.count)
                        columns.append([]); nodeFlags.append(0)
                        nodeFlags[Int(node)] |= Self.hasKeys
                        keys.append((node, key, child))
                        keyIndex[id] = child
                        node = child
                    }
                case .index(let i):
                    if depth == 0 { arrays = true }
                    if let hit = indices.first(where: { $0.parent == node && $0.index == i }) {
                        node = hit.child
                    } else {
                        let child = Int32(columns.count)
                        columns.append([]); nodeFlags.append(0)
                        nodeFlags[Int(node)] |= Self.hasIndices
                        indices.append((node, i, child))
                        node = child
                    }
                }
            }
            columns[Int(node)].append(Int32(c))
        }
        arrayRecords = arrays
        indexChildren = indices
        nodeCount = columns.count

        // Flatten into raw buffers for the per-key lookups.
        columnStart = .allocate(capacity: nodeCount)
        columnCount = .allocate(capacity: nodeCount)
        flags = .allocate(capacity: nodeCount)
        let totalColumns = columns.reduce(0) { $0 + $1.count }
        columnList = .allocate(capacity: max(totalColumns, 1))
        var at: Int32 = 0
        for (n, cols) in columns.enumerated() {
            columnStart[n] = at
            columnCount[n] = Int32(cols.count)
            flags[n] = nodeFlags[n]
            for c in cols { columnList[Int(at)] = c; at += 1 }
        }

        keyEntries = keys.count
        var tableSize = 8
        while tableSize < keys.count * 2 { tableSize *= 2 }
        slotMask = tableSize - 1
        slots = .allocate(capacity: tableSize)
        slots.initialize(repeating: -1, count: tableSize)
        entryParent = .allocate(capacity: max(keys.count, 1))
        entryHash = .allocate(capacity: max(keys.count, 1))
        entryKeyStart = .allocate(capacity: max(keys.count, 1))
        entryKeyLength = .allocate(capacity: max(keys.count, 1))
        entryChild = .allocate(capacity: max(keys.count, 1))
        keyByteCount = keys.reduce(0) { $0 + $1.key.count }
        keyBytes = .allocate(capacity: max(keyByteCount, 1))
        var byteAt = 0
        for (e, k) in keys.enumerated() {
            entryParent[e] = k.parent
            entryChild[e] = k.child
            entryKeyStart[e] = Int32(byteAt)
            entryKeyLength[e] = Int32(k.key.count)
            for b in k.key { keyBytes[byteAt] = b; byteAt += 1 }
            let h = k.key.withUnsafeBufferPointer { Self.hash($0, parent: k.parent, fold: false) }
            entryHash[e] = h
            var s = Int(truncatingIfNeeded: h) & slotMask
            while slots[s] >= 0 { s = (s + 1) & slotMask }
            slots[s] = Int32(e)
        }
    }

    deinit {
        columnStart.deallocate(); columnCount.deallocate(); columnList.deallocate(); flags.deallocate()
        slots.deallocate(); entryParent.deallocate(); entryHash.deallocate(); entryKeyStart.deallocate()
        entryKeyLength.deallocate(); entryChild.deallocate(); keyBytes.deallocate()
    }

    /// `JSON 'auto'`: each loaded column is fed by the top-level key with its name.
    static func auto(columns: [ColumnDef], ignoreCase: Bool) -> JSONFieldMap {
        JSONFieldMap(paths: columns.map { [.key(Array($0.name.utf8))] }, ignoreCase: ignoreCase)
    }

    // MARK: - Lookups (hot path)

    @inline(__always) func hasKeyChildren(_ node: Int32) -> Bool { flags[Int(node)] & Self.hasKeys != 0 }
    @inline(__always) func hasIndexChildren(_ node: Int32) -> Bool { flags[Int(node)] & Self.hasIndices != 0 }

    /// Columns loaded from the value at `node`.
    @inline(__always) func columns(_ node: Int32) -> UnsafeBufferPointer<Int32> {
        UnsafeBufferPointer(start: columnList + Int(columnStart[Int(node)]), count: Int(columnCount[Int(node)]))
    }

    /// The child of `parent` for member key `key` (decoded bytes), or -1.
    @inline(__always)
    func child(of parent: Int32, key: UnsafeBufferPointer<UInt8>) -> Int32 {
        let e = entry(of: parent, key: key)
        return e < 0 ? -1 : entryChild[Int(e)]
    }

    /// The key-table entry of `parent`'s member `key`, or -1.
    @inline(__always)
    func entry(of parent: Int32, key: UnsafeBufferPointer<UInt8>) -> Int32 {
        let h = Self.hash(key, parent: parent, fold: ignoreCase)
        var s = Int(truncatingIfNeeded: h) & slotMask
        while true {
            let e = Int(slots[s])
            if e < 0 { return -1 }
            if entryHash[e] == h && entryParent[e] == parent && Int(entryKeyLength[e]) == key.count
                && keyEquals(keyBytes + Int(entryKeyStart[e]), key) {
                return Int32(e)
            }
            s = (s + 1) & slotMask
        }
    }

    /// True when entry `e` is `parent`'s member `key` (a cheap check of a guessed entry).
    @inline(__always)
    func entry(_ e: Int32, is key: UnsafeBufferPointer<UInt8>, of parent: Int32) -> Bool {
        let i = Int(e)
        return entryParent[i] == parent && Int(entryKeyLength[i]) == key.count
            && keyEquals(keyBytes + Int(entryKeyStart[i]), key)
    }

    /// The trie node an entry leads to.
    @inline(__always) func child(ofEntry e: Int32) -> Int32 { entryChild[Int(e)] }

    /// The child of `parent` for array element `index`, or -1.
    func child(of parent: Int32, index: Int) -> Int32 {
        for c in indexChildren where c.parent == parent && c.index == index { return c.child }
        return -1
    }

    @inline(__always)
    private func keyEquals(_ stored: UnsafeMutablePointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        if ignoreCase {
            for i in 0..<key.count where stored[i] != Self.fold(key[i]) { return false }
        } else {
            for i in 0..<key.count where stored[i] != key[i] { return false }
        }
        return true
    }

    /// ASCII lower-case.
    @inline(__always) static func fold(_ c: UInt8) -> UInt8 { c &- 65 < 26 ? c | 0x20 : c }

    /// FNV-1a over the (folded) key, seeded with the parent node.
    @inline(__always)
    static func hash(_ key: UnsafeBufferPointer<UInt8>, parent: Int32, fold: Bool) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ (UInt64(UInt32(bitPattern: parent)) &* 0x9E37_79B9_7F4A_7C15)
        if fold {
            for c in key { h = (h ^ UInt64(Self.fold(c))) &* 0x100_0000_01b3 }
        } else {
            for c in key { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        }
        return h ^ (h >> 29)
    }

    private struct KeyID: Hashable {
        var parent: Int32
        var key: [UInt8]
    }
}
