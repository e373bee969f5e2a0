// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The writer's dictionary for one string column chunk: distinct values in first-seen
/// order, and for every non-NULL value its index. Lookups go through an open-addressing
/// hash table keyed by the bytes (no per-value allocation).
///
/// Dictionary encoding only pays while the dictionary stays small; once its PLAIN size
/// passes `maxBytes` the writer abandons it and writes the chunk PLAIN.
struct StringDictionary {
    /// PLAIN size above which the dictionary is abandoned (as parquet-mr and Arrow do, 1 MiB).
    static let maxBytes = 1 << 20

    private(set) var bytes: [UInt8] = []
    /// Entry `i` is `bytes[ends[i] ..< ends[i + 1]]`.
    private(set) var ends: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Entry index + 1 per slot; 0 marks an empty slot. Size is a power of two.
    private var slots: [Int32] = [Int32](filled: 0, count: 1024)
    /// Dictionary index of every non-NULL value appended so far.
    private(set) var indices: [UInt32] = []

    var count: Int { ends.count - 1 }

    /// PLAIN-encoded size of the dictionary page.
    var plainSize: Int { bytes.count + 4 * count }

    /// Record one value; false when the dictionary grew too large (it should then be dropped).
    mutating func insert(_ p: UnsafePointer<UInt8>?, _ n: Int) -> Bool {
        let h = Hashing.hash(bytes: p, count: n)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let e = Int(slots[slot])
            if e == 0 { break }
            let i = e - 1
            if hashes[i] == h && equals(i, p, n) {
                indices.append(UInt32(i))
                return true
            }
            slot = (slot + 1) & mask
        }
        let index = count
        slots[slot] = Int32(index + 1)
        hashes.append(h)
        if let p, n > 0 { bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: n)) }
        ends.append(bytes.count)
        indices.append(UInt32(index))
        if count * 2 > slots.count { grow() }
        return plainSize <= Self.maxBytes
    }

    private func equals(_ i: Int, _ p: UnsafePointer<UInt8>?, _ n: Int) -> Bool {
        let s = ends[i], e = ends[i + 1]
        guard e - s == n else { return false }
        if n == 0 { return true }
        return bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, let p else { return false }
            return compareBytes(base + s, n, p, n) == 0
        }
    }

    private mutating func grow() {
        var newSlots = [Int32](filled: 0, count: slots.count * 2)
        let mask = newSlots.count - 1
        for i in 0..<count {
            var slot = Int(truncatingIfNeeded: hashes[i]) & mask
            while newSlots[slot] != 0 { slot = (slot + 1) & mask }
            newSlots[slot] = Int32(i + 1)
        }
        slots = newSlots
    }
}
