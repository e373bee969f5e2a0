// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution
import SlicehouseRuntime
import SlicehousePlatform

/// The leader's result cache, as Redshift has it: the rows of a query kept, so that the
/// same query over the same committed data is answered without running it again
/// (`enable_result_cache_for_session`; SVL_QLOG.source_query names the query whose rows
/// were reused).
///
/// An entry is found by the query's text (its parsed form, so a client's bound
/// parameters count) and the settings that change what a query means, then must match
/// on everything else a result depends on:
/// - the logical plan, bound again for the query that asks: a view replaced, a table
///   altered, another table found on the search path, or a privilege revoked (binding
///   checks privileges) all make it miss;
/// - the committed version of every table the query reads, as the asking transaction
///   sees them: any INSERT, UPDATE, DELETE, COPY or TRUNCATE committed to one of them
///   since invalidates the entry, and a transaction reading rows it changed itself
///   neither uses nor fills the cache. (VACUUM and ANALYZE leave versions alone: the
///   rows are the same.)
///
/// Queries whose result depends on more than their tables are never cached: system
/// tables, session functions (CURRENT_USER, PG_LAST_QUERY_ID, ...), GETDATE, SYSDATE,
/// CURRENT_DATE and RANDOM.
///
/// Bounded: at most `capacityBytes` of rows in all (least recently used dropped first),
/// and a result larger than a quarter of that is not kept. Entries made stale by a
/// commit are dropped when the next result is stored. What it holds counts in the
/// database's memory pool (`--memory`): a result that does not fit is not kept, and
/// queries short of memory make it drop its least recently used entries.
final class ResultCache: @unchecked Sendable {
    /// What an entry is found by.
    struct Key: Hashable, Sendable {
        var query: Query
        /// The values bound to the query's `$n` (a prepared statement's Bind), if any.
        var parameters: [ParameterValue]?
        /// The session settings that can change a query's meaning (`name=value;...`).
        var settings: String
    }

    /// Everything a stored result depends on besides its key.
    struct Dependencies: Equatable {
        var plan: LogicalPlan
        /// Committed version of each table read, by table id.
        var tables: [Int: UInt64]
    }

    struct Entry {
        var id: Int
        var dependencies: Dependencies
        var columns: [ResultColumn]
        var chunks: [Chunk]
        var bytes: Int
        /// The query whose run produced the rows.
        var sourceQuery: Int
        /// Marked in place by a hit.
        let lastUse: LastUse
    }

    /// What a lookup returns: the rows and the query they came from.
    struct Hit {
        var columns: [ResultColumn]
        var chunks: [Chunk]
        var sourceQuery: Int
    }

    static let defaultCapacity = 64 << 20
    /// What an entry counts besides its rows (its key, plan and columns).
    static let entryOverhead = 4096

    private let lock = Lock()
    private var entries: [Key: [Entry]] = [:]
    /// The entries that read each table (entry id → its key), and the table's version
    /// they read: every entry is of the version its tables had when it was stored.
    private var byTable: [Int: (version: UInt64, entries: [Int: Key])] = [:]
    private var totalBytes = 0
    private var count = 0
    private var nextID = 0
    private var useCounter: UInt64 = 0
    private var capacity: Int
    private let pool: MemoryPool?

    init(capacityBytes: Int = ResultCache.defaultCapacity, pool: MemoryPool? = nil) {
        capacity = max(0, capacityBytes)
        self.pool = pool
        pool?.addReclaimer { [weak self] bytes in self?.shrink(by: bytes) }
    }

    /// Drop least recently used entries until about `bytes` are given back to the pool.
    func shrink(by bytes: Int) {
        lock.withLock { evictLocked(toFit: 0, below: max(0, totalBytes - bytes)) }
    }

    /// The most a cache keeps; lowering it drops entries until they fit.
    var capacityBytes: Int {
        get { lock.withLock { capacity } }
        set {
            lock.withLock {
                capacity = max(0, newValue)
                evictLocked(toFit: 0)
            }
        }
    }

    /// The largest result kept.
    var maxEntryBytes: Int { capacityBytes / 4 }

    /// Bytes of rows held now, and the number of results.
    var usage: (bytes: Int, entries: Int) { lock.withLock { (totalBytes, count) } }

    /// The stored result for `key` whose dependencies are `dependencies`, if any.
    func lookup(_ key: Key, _ dependencies: Dependencies) -> Hit? {
        lock.withLock {
            guard let list = entries[key], let i = list.firstIndex(where: { $0.dependencies == dependencies }) else {
                return nil
            }
            useCounter += 1
            let e = list[i]
            e.lastUse.tick = useCounter
            return Hit(columns: e.columns, chunks: e.chunks, sourceQuery: e.sourceQuery)
        }
    }

    /// Keep the rows of query `sourceQuery`, unless they are larger than `maxEntryBytes`
    /// or were read from a table version other than the latest committed one (`latest`,
    /// every table's version now: an older snapshot's rows can serve few). Entries that
    /// read a table changed since are dropped first.
    func store(_ key: Key, _ dependencies: Dependencies, columns: [ResultColumn], chunks: [Chunk], sourceQuery: Int,
               latest: [Int: UInt64]) {
        let bytes = ResultCache.bytes(of: chunks) + ResultCache.entryOverhead
        lock.withLock {
            dropStaleLocked(latest)
            guard bytes <= capacity / 4,
                  dependencies.tables.allSatisfy({ (latest[$0.key] ?? 0) == $0.value }) else { return }
            if let old = entries[key]?.first(where: { $0.dependencies == dependencies }) { removeLocked(old, key) }
            evictLocked(toFit: bytes)
            // Counted in the pool without asking it to reclaim (that would call back here).
            if let pool, !pool.tryReserve(bytes, reclaim: false) { return }
            useCounter += 1
            nextID += 1
            let entry = Entry(id: nextID, dependencies: dependencies, columns: columns, chunks: chunks, bytes: bytes,
                              sourceQuery: sourceQuery, lastUse: LastUse())
            entry.lastUse.tick = useCounter
            entries[key, default: []].append(entry)
            for (table, version) in dependencies.tables {
                byTable[table, default: (version, [:])].entries[entry.id] = key
            }
            totalBytes += bytes
            count += 1
        }
    }

    /// Heap bytes of `chunks`.
    static func bytes(of chunks: [Chunk]) -> Int {
        chunks.reduce(0) { $0 + $1.memoryBytes }
    }

    private func removeLocked(_ entry: Entry, _ key: Key) {
        guard var list = entries[key], let i = list.firstIndex(where: { $0.id == entry.id }) else { return }
        list.remove(at: i)
        entries[key] = list.isEmpty ? nil : list
        for table in entry.dependencies.tables.keys {
            byTable[table]?.entries[entry.id] = nil
            if byTable[table]?.entries.isEmpty ?? false { byTable[table] = nil }
        }
        totalBytes -= entry.bytes
        count -= 1
        pool?.release(entry.bytes)
    }

    /// Drop every entry that read a table whose latest committed version is another.
    private func dropStaleLocked(_ latest: [Int: UInt64]) {
        let stale = byTable.filter { (latest[$0.key] ?? 0) != $0.value.version }
        for (_, t) in stale {
            for (id, key) in t.entries {
                if let e = entries[key]?.first(where: { $0.id == id }) { removeLocked(e, key) }
            }
        }
    }

    /// Make room for `bytes` more: when they do not fit, drop the least recently used
    /// entries until what is kept fills at most three quarters of the capacity (in one
    /// sort, so that a full cache of small results does not search them all per store).
    /// With `target`, drop them until at most `target` bytes are kept.
    private func evictLocked(toFit bytes: Int, below target: Int? = nil) {
        guard totalBytes + bytes > (target ?? capacity) else { return }
        var all: [(use: UInt64, key: Key, entry: Entry)] = []
        all.reserveCapacity(count)
        for (key, list) in entries { for e in list { all.append((e.lastUse.tick, key, e)) } }
        all.sort { $0.use < $1.use }
        let target = target ?? capacity / 4 * 3
        for item in all {
            if totalBytes + bytes <= target { break }
            removeLocked(item.entry, item.key)
        }
    }
}
