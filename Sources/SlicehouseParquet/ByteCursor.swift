// SPDX-License-Identifier: Apache-2.0
/// A bounds-checked read position in a byte buffer, for the binary encodings inside
/// pages (varints of the RLE and delta encodings, length prefixes, raw values).
/// Every read checks what is left, so a truncated page throws instead of reading past
/// its end.
struct ByteCursor {
    let base: UnsafeRawPointer?
    let count: Int
    var position = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress
        count = buffer.count
    }

    var remaining: Int { count - position }

    /// The unread rest of the buffer.
    var rest: UnsafeRawBufferPointer {
        guard let base else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + position, count: count - position)
    }

    mutating func readByte() throws -> UInt8 {
        guard position < count, let base else { throw ParquetError.corrupt("page data ends unexpectedly") }
        let b = base.load(fromByteOffset: position, as: UInt8.self)
        position += 1
        return b
    }

    /// Unsigned LEB128 (at most 10 bytes).
    mutating func readULEB128() throws -> UInt64 {
        try LEB128.read { try readByte() }
    }

    /// Zigzag-folded signed LEB128.
    mutating func readZigzag() throws -> Int64 {
        LEB128.unzigzag(try readULEB128())
    }

    /// A 4-byte little-endian length (as the PLAIN and level encodings use).
    mutating func readUInt32LE() throws -> UInt32 {
        guard remaining >= 4, let base else { throw ParquetError.corrupt("page data ends inside a length prefix") }
        let v = base.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
        position += 4
        return v
    }

    /// `n` bytes as a view, advancing past them.
    mutating func take(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n >= 0, n <= remaining else { throw ParquetError.corrupt("page data ends inside a \(n)-byte section") }
        guard let base else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let r = UnsafeRawBufferPointer(start: base + position, count: n)
        position += n
        return r
    }
}

/// A reusable growable raw buffer: decompressed pages and decoded values live here
/// between pages, so a column chunk allocates only a few times however many pages it has.
final class ScratchBuffer {
    private(set) var pointer: UnsafeMutableRawPointer
    private(set) var capacity: Int

    init(capacity: Int = 1 << 12) {
        self.capacity = max(capacity, 16)
        pointer = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { pointer.deallocate() }

    /// At least `n` bytes; the old contents are not kept when it grows.
    func reserve(_ n: Int) -> UnsafeMutableRawPointer {
        if n > capacity {
            pointer.deallocate()
            capacity = max(n, capacity * 2)
            pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }
        return pointer
    }

    /// At least `count` elements of `T` (old contents not kept).
    func reserve<T>(_ count: Int, of: T.Type) -> UnsafeMutablePointer<T> {
        let p = reserve(count * MemoryLayout<T>.stride)
        return p.bindMemory(to: T.self, capacity: max(count, 1))
    }
}

/// Largest page (or decoded page section) this reader will allocate for. Pages are
/// normally around a megabyte; the limit stops forged sizes from exhausting memory.
let maxPageBytes = 1 << 30
