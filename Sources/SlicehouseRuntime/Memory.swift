// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// The memory the whole database may use for query work (`slicehouse --memory`).
///
/// Every statement's `QueryMemory` draws from it, and so does the decoded-block cache,
/// so the sum of what queries hold and what the cache keeps stays under one limit.
public final class MemoryPool: @unchecked Sendable {
    /// The process's pool (no limit until one is set).
    public static let shared = MemoryPool(limit: nil)

    private let lock = Lock()
    private var limitBytes: Int?
    private var used = 0
    private var peak = 0

    public init(limit: Int?) { limitBytes = limit }

    /// The limit in bytes, or nil for none.
    public var limit: Int? {
        get { lock.withLock { limitBytes } }
        set { lock.withLock { limitBytes = newValue } }
    }

    public var usedBytes: Int { lock.withLock { used } }
    public var peakBytes: Int { lock.withLock { peak } }

    /// Take `bytes` if they fit under the limit. When they do not, the pool first asks
    /// its reclaimers (the block cache) to give memory back, unless `reclaim` is false
    /// (a reclaimer's own reservations: it holds its lock).
    public func tryReserve(_ bytes: Int, reclaim: Bool = true) -> Bool {
        if take(bytes) { return true }
        guard reclaim else { return false }
        let reclaimers = lock.withLock { self.reclaimers }
        guard !reclaimers.isEmpty else { return false }
        for r in reclaimers {
            r(bytes)
            if take(bytes) { return true }
        }
        return false
    }

    private func take(_ bytes: Int) -> Bool {
        lock.withLock {
            if let limitBytes, used + bytes > limitBytes, bytes > 0 { return false }
            used += bytes
            if used > peak { peak = used }
            return true
        }
    }

    private var reclaimers: [@Sendable (Int) -> Void] = []

    /// Register memory the pool may ask back: `reclaim(n)` should release about `n`
    /// bytes to the pool (called without the pool's lock held).
    public func addReclaimer(_ reclaim: @escaping @Sendable (Int) -> Void) {
        lock.withLock { reclaimers.append(reclaim) }
    }

    /// Take `bytes` whether or not they fit (memory an operator cannot give back).
    public func reserve(_ bytes: Int) {
        lock.withLock {
            used += bytes
            if used > peak { peak = used }
        }
    }

    public func release(_ bytes: Int) {
        lock.withLock { used = max(0, used - bytes) }
    }

    /// The default limit for a database: 60% of the machine's physical memory.
    public static var defaultLimit: Int {
        Int(Double(ProcessInfo.processInfo.physicalMemory) * 0.6)
    }

    /// Parse a size as `--memory` and `workmem` settings take it: `4GB`, `512MB`,
    /// `64kB`, or a number of bytes.
    public static func parseSize(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Int)] = [("tb", 1 << 40), ("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10),
                                      ("t", 1 << 40), ("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10), ("b", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            let number = t.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let v = Double(number), v >= 0, v * Double(factor) < 9e18 else { return nil }
            return Int(v * Double(factor))
        }
        guard let v = Int(t), v >= 0 else { return nil }
        return v
    }
}

/// One statement's memory: a budget (WLM gives it queue memory ÷ slots × slot count)
/// drawn from the database's pool, what its operators hold now and at most, and what
/// they wrote to disk when the budget ran out.
public final class QueryMemory: @unchecked Sendable {
    public let pool: MemoryPool
    private let lock = Lock()
    private var budgetBytes: Int?
    private var used = 0
    private var peak = 0
    private var spilled = 0
    private var spillFiles = 0

    public init(budget: Int?, pool: MemoryPool = .shared) {
        budgetBytes = budget
        self.pool = pool
    }

    /// Bytes the statement may hold, or nil for no limit of its own. WLM sets it when it
    /// admits the statement (queue memory ÷ slots × `wlm_query_slot_count`).
    public var budget: Int? {
        get { lock.withLock { budgetBytes } }
        set { lock.withLock { budgetBytes = newValue } }
    }

    public var usedBytes: Int { lock.withLock { used } }
    public var peakBytes: Int { lock.withLock { peak } }
    /// Bytes written to spill files.
    public var spilledBytes: Int { lock.withLock { spilled } }
    public var spillFileCount: Int { lock.withLock { spillFiles } }
    /// Whether any operator spilled (SVL_QUERY_SUMMARY.is_diskbased).
    public var isDiskBased: Bool { spilledBytes > 0 }

    /// Take `bytes` if they fit in the budget and in the pool.
    public func tryReserve(_ bytes: Int) -> Bool {
        lock.withLock {
            if bytes > 0, let budgetBytes, used + bytes > budgetBytes { return false }
            guard pool.tryReserve(bytes) else { return false }
            used += bytes
            if used > peak { peak = used }
            return true
        }
    }

    /// Take `bytes` regardless of the budget (memory that cannot be spilled, such as a
    /// chunk in flight); it still counts, so the next `tryReserve` sees it.
    public func reserve(_ bytes: Int) {
        lock.withLock {
            pool.reserve(bytes)
            used += bytes
            if used > peak { peak = used }
        }
    }

    public func release(_ bytes: Int) {
        lock.withLock {
            let n = min(bytes, used)
            used -= n
            pool.release(n)
        }
    }

    /// The write buffer of each of the statement's spill files: 1/256 of the smaller of
    /// its budget and the pool's limit, between 4 kB and 64 kB (a grace hash join opens
    /// dozens of files; under a tiny budget their buffers must not take it all).
    public var spillBufferBytes: Int {
        let cap = min(budget ?? .max, pool.limit ?? .max)
        return min(1 << 16, max(1 << 12, cap / 256))
    }

    func recordSpill(bytes: Int, newFile: Bool) {
        lock.withLock {
            spilled += bytes
            if newFile { spillFiles += 1 }
        }
    }
}

/// What one operator on one slice holds of its statement's memory. Owned by one
/// operator (one thread at a time); released when it is freed or deinitialized.
public final class MemoryReservation: @unchecked Sendable {
    public let memory: QueryMemory
    public private(set) var bytes = 0
    public private(set) var peak = 0

    public init(_ memory: QueryMemory) { self.memory = memory }

    /// Hold `total` bytes in all: growing asks the budget and may be refused (the
    /// operator then spills); shrinking always succeeds.
    public func tryResize(to total: Int) -> Bool {
        if total <= bytes {
            memory.release(bytes - total)
            bytes = total
            return true
        }
        guard memory.tryReserve(total - bytes) else { return false }
        bytes = total
        if bytes > peak { peak = bytes }
        return true
    }

    /// Hold `total` bytes whatever the budget says.
    public func resize(to total: Int) {
        if total <= bytes {
            memory.release(bytes - total)
        } else {
            memory.reserve(total - bytes)
        }
        bytes = total
        if bytes > peak { peak = bytes }
    }

    public func free() { resize(to: 0) }

    deinit { if bytes > 0 { memory.release(bytes) } }
}
