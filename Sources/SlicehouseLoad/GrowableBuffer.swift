// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A growable buffer of plain values for hot append loops: no reference counting,
/// no uniqueness or exclusivity checks. Owned by exactly one builder (noncopyable).
struct GrowableBuffer<T: BitwiseCopyable>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<T>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    mutating func append(_ v: T) {
        if count == capacity { grow(count + 1) }
        base[count] = v
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf b: UnsafeBufferPointer<T>) {
        let n = b.count
        guard n > 0, let src = b.baseAddress else { return }
        if count + n > capacity { grow(count + n) }
        let dst = base + count
        if n <= 16 {
            // Short runs (most CHAR/VARCHAR values): a plain loop beats a memmove call.
            for i in 0..<n { dst[i] = src[i] }
        } else {
            dst.update(from: src, count: n)
        }
        count += n
    }

    @inline(__always)
    mutating func removeLast(_ n: Int = 1) { count = max(count - n, 0) }

    mutating func removeAll() { count = 0 }

    /// Element `i` (unchecked; callers stay below `count`).
    @inline(__always) subscript(i: Int) -> T {
        get { base[i] }
        set { base[i] = newValue }
    }

    var last: T? { count > 0 ? base[count - 1] : nil }

    /// A copy of the contents as an array.
    func toArray() -> [T] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Room for at least `n` more elements (growing by doubling); returns the first
    /// free slot. Write up to `freeCapacity` elements there, then `commit` them.
    mutating func reserveFree(_ n: Int) -> UnsafeMutablePointer<T> {
        if count + n > capacity { grow(count + n) }
        return base + count
    }

    /// Elements that fit after `count` without growing.
    var freeCapacity: Int { capacity - count }

    /// Count `n` elements written into the free space returned by `reserveFree`.
    mutating func commit(_ n: Int) {
        precondition(n >= 0 && count + n <= capacity, "GrowableBuffer.commit beyond capacity")
        count += n
    }

    /// Hand the storage over to the caller, who must `deallocate()` `base`
    /// (`count` elements are initialized; the allocation may be larger).
    consuming func takeStorage() -> (base: UnsafeMutablePointer<T>, count: Int) {
        let result = (base: base, count: count)
        discard self
        return result
    }

    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let p = UnsafeMutablePointer<T>.allocate(capacity: newCapacity)
        p.update(from: base, count: count)
        base.deallocate()
        base = p
        capacity = newCapacity
    }
}

extension GrowableBuffer where T == UInt8 {
    /// Append bytes; values up to 64 bytes (nearly every CHAR/VARCHAR field) are copied
    /// inline with word loads and stores instead of a `memmove` call.
    @inline(__always)
    mutating func appendBytes(_ b: UnsafeBufferPointer<UInt8>) {
        let n = b.count
        guard n > 0, let src = b.baseAddress else { return }
        copyShortBytes(reserveFree(n), src, n)
        commit(n)
    }
}
