// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Keeps the memory of written chunks for the next chunks.
///
/// Chunks are a few MiB each and a table is hundreds of them. Handing each
/// chunk's memory back to `malloc` lets it return the pages to the kernel,
/// and the next chunk then pays a page fault (and the kernel zeroing the
/// page) for every 4 KiB it writes. Reusing buffers avoids that.
final class BufferRecycler: @unchecked Sendable {
    static let shared = BufferRecycler(maxBytes: 256 << 20)

    private let lock = NSLock()
    private var free: [(base: UnsafeMutablePointer<UInt8>, capacity: Int)] = []
    private var freeBytes = 0
    private let maxBytes: Int

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// A buffer of at least `capacity` bytes, and its actual capacity.
    func take(capacity: Int) -> (UnsafeMutablePointer<UInt8>, Int) {
        lock.lock()
        if let index = free.lastIndex(where: { $0.capacity >= capacity }) {
            let buffer = free.remove(at: index)
            freeBytes -= buffer.capacity
            lock.unlock()
            return (buffer.base, buffer.capacity)
        }
        lock.unlock()
        return (.allocate(capacity: capacity), capacity)
    }

    /// Returns a buffer for reuse (or frees it if enough are kept).
    func give(_ base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        lock.lock()
        if freeBytes + capacity <= maxBytes {
            free.append((base, capacity))
            freeBytes += capacity
            lock.unlock()
            return
        }
        lock.unlock()
        base.deallocate()
    }
}
