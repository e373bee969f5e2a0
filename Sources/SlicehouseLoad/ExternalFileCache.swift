// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehousePlatform
import SlicehouseStorage
import SlicehouseTypes

/// The lake's Parquet objects kept in memory between queries (DuckDB keeps an external file
/// cache of their bytes): each file's footer, and each row group's columns as they were
/// decoded — so a table queried again costs its listing and catalog calls, not its bytes
/// or their decoding.
///
/// An entry is found only by the same S3 identity (endpoint and access key: what one role
/// could read is never handed to another), the same object, the same size and the same
/// version (the listing's ETag; an Iceberg data file, never rewritten in place, by path and
/// size) — an object written again is read again. Least recently used ranges go first when
/// the cache is full.
public final class ExternalFileCache: @unchecked Sendable {
    /// The process's cache: an eighth of physical memory, at most 1 GB.
    public static let shared = ExternalFileCache(
        capacity: Int(min(UInt64(1) << 30, ProcessInfo.processInfo.physicalMemory / 8)))

    public struct Key: Hashable, Sendable {
        public var identity: String
        public var object: String
        public var size: Int
        public var version: String?
        public var offset: Int
        public var count: Int

        public init(identity: String, object: String, size: Int, version: String?, offset: Int, count: Int) {
            self.identity = identity; self.object = object; self.size = size; self.version = version
            self.offset = offset; self.count = count
        }
    }

    /// A decoded column chunk: one file's (`file`: identity, object, size and version) row
    /// group's column, decoded as `type`.
    public struct VectorKey: Hashable, Sendable {
        public var file: String
        public var group: Int
        public var column: Int
        public var type: DataType

        public init(file: String, group: Int, column: Int, type: DataType) {
            self.file = file; self.group = group; self.column = column; self.type = type
        }
    }

    private struct Entry {
        var bytes: [UInt8]
        var used: UInt64
    }

    private struct VectorEntry {
        var vector: Vector
        var zone: ZoneMap
        var size: Int
        var used: UInt64
    }

    private let lock = Lock()
    private var entries: [Key: Entry] = [:]
    private var vectors: [VectorKey: VectorEntry] = [:]
    private var clock: UInt64 = 0
    private var held = 0
    public let capacity: Int

    public init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Bytes held now.
    public var bytes: Int { lock.withLock { held } }

    public func get(_ key: Key) -> [UInt8]? {
        lock.withLock {
            guard var e = entries[key] else { return nil }
            clock &+= 1
            e.used = clock
            entries[key] = e
            return e.bytes
        }
    }

    /// Keep `bytes` (a range larger than a quarter of the cache is not kept).
    public func put(_ key: Key, _ bytes: [UInt8]) {
        guard bytes.count <= capacity / 4 else { return }
        lock.withLock {
            clock &+= 1
            if let old = entries.updateValue(Entry(bytes: bytes, used: clock), forKey: key) { held -= old.bytes.count }
            held += bytes.count
            evictIfOver()
        }
    }

    /// A decoded column chunk with its zone map.
    public func vector(_ key: VectorKey) -> (Vector, ZoneMap)? {
        lock.withLock {
            guard var e = vectors[key] else { return nil }
            clock &+= 1
            e.used = clock
            vectors[key] = e
            return (e.vector, e.zone)
        }
    }

    public func put(_ key: VectorKey, _ vector: Vector, zone: ZoneMap) {
        let size = CopyLoader.chunkBytes(Chunk(columns: [vector], count: vector.count)) + 128
        guard size <= capacity / 4 else { return }
        lock.withLock {
            clock &+= 1
            if let old = vectors.updateValue(VectorEntry(vector: vector, zone: zone, size: size, used: clock), forKey: key) {
                held -= old.size
            }
            held += size
            evictIfOver()
        }
    }

    /// Over capacity: drop the least recently used entries of both kinds until a tenth is free.
    private func evictIfOver() {
        guard held > capacity else { return }
        let goal = capacity - capacity / 10
        var ages: [(used: UInt64, range: Key?, vector: VectorKey?)] = []
        ages.reserveCapacity(entries.count + vectors.count)
        for (k, e) in entries { ages.append((e.used, k, nil)) }
        for (k, e) in vectors { ages.append((e.used, nil, k)) }
        ages.sort { $0.used < $1.used }
        for a in ages where held > goal {
            if let k = a.range, let e = entries.removeValue(forKey: k) { held -= e.bytes.count }
            if let k = a.vector, let e = vectors.removeValue(forKey: k) { held -= e.size }
        }
    }

    public func removeAll() {
        lock.withLock { entries.removeAll(); vectors.removeAll(); held = 0 }
    }
}
