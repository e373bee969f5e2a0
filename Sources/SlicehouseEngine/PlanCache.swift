// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehousePlatform
import Synchronization

/// Physical plans of SELECTs kept for the next run of the same query: a prepared
/// statement's every Execute, and the same text sent again (a dashboard's refresh, a
/// health check's `select 1`). A hit skips binding, authorization, the optimizer, the
/// physical planner and the rendering of STL_EXPLAIN's text; the plan is then admitted
/// to WLM, executed and logged as any other.
///
/// An entry is found by what can change a query's meaning — its tree, the values bound
/// to its `$n`, the user, the database, the settings the result cache keys on (search_path
/// among them) and, for a session with temporary tables, the session — and is valid for
/// one catalog revision (`DatabaseState.catalogRevision`): any committed DDL, GRANT or
/// REVOKE, view or function change makes every entry stale. Per table read it also keeps
/// the last ANALYZE's time and the live rows planned for: a new ANALYZE, or rows grown or
/// shrunk past `rowDrift`, plans the query again (PostgreSQL replans a generic plan on
/// ANALYZE too). A transaction that has changed the catalog itself neither reads nor
/// stores entries.
///
/// Only plans that depend on nothing else are kept: deterministic queries (no clock, no
/// random), reading no system table, session state or external table, planned without
/// a warning, and not answerable from a materialized view (a view that became fresh
/// would not be used by a kept plan). The plans are immutable (`PhysicalNode`), so one
/// entry serves every session at once. `STV_PLAN_CACHE` reports its counters.
final class PlanCache: @unchecked Sendable {
    struct Key: Hashable, Sendable {
        var query: Query
        var parameters: [ParameterValue]?
        var user: String
        var database: String
        /// `Session.resultCacheSettings`: the settings that can change a query's meaning.
        var settings: String
        /// The session's process once it has made a temporary table (its names may mean
        /// its own tables), else 0.
        var temporaryOwner: Int
    }

    /// A table the plan reads, as it was when the plan was made.
    struct Table: Sendable {
        var def: TableDef
        var analyzedAt: Int64?
        var liveRows: Int
    }

    struct Entry: @unchecked Sendable {
        var revision: UInt64
        var plan: PhysicalNode
        var outputs: [PlanColumn]
        var tables: [Table]
        /// STL_EXPLAIN's lines for the plan.
        var explain: [String]
        /// The bound plan (what the result cache compares its entries by).
        var logical: LogicalPlan
        /// Whether the plan may be a short statement's (`mayBeShort`).
        var mayBeShort: Bool
        /// When it was last used; a reference, so a hit marks it without storing the entry
        /// again (one dictionary lookup, not two).
        let lastUse = LastUse()
        /// How long its last run took (`noteRun`), in µs; -1 before its first.
        let lastRun = LastRun()
    }

    /// Entries kept at most (over all shards); past a shard's share the least recently
    /// used quarter of that shard goes.
    let capacity: Int
    /// A table whose live rows differ from those planned for by more than this factor
    /// (either way, counting from 1,000 rows) is planned for again.
    static let rowDrift = 4.0

    /// A key with its hash computed once, outside any lock (hashing a query's tree is the
    /// costly part of a lookup).
    struct Hashed: Hashable, @unchecked Sendable {
        let key: Key
        let hash: Int
        init(_ key: Key) { self.key = key; hash = key.hashValue }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Hashed, b: Hashed) -> Bool { a.hash == b.hash && a.key == b.key }
    }

    /// One part of the cache, with its own lock: sessions looking up different queries
    /// rarely wait for each other.
    private final class Shard: @unchecked Sendable {
        let lock = Lock()
        var entries: [Hashed: Entry] = [:]
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
        var stale = 0
    }

    private static let shardCount = 16
    private let shards: [Shard]
    private let shardCapacity: Int

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
        shardCapacity = max(1, (capacity + Self.shardCount - 1) / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    private func shard(_ key: Hashed) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) % UInt(Self.shardCount))]
    }

    /// A plan that reads no table and whose last run took at most this long is a short
    /// statement's (`isShort`).
    static let shortRunMicros: Int64 = 250

    /// The entry for `key` made under `revision`, or nil.
    func lookup(_ key: Hashed, revision: UInt64) -> Entry? {
        let s = shard(key)
        return s.lock.withLock {
            guard let e = s.entries[key] else {
                s.misses += 1
                return nil
            }
            guard e.revision == revision else {
                s.entries[key] = nil
                s.stale += 1
                s.misses += 1
                return nil
            }
            s.hits += 1
            s.clock += 1
            e.lastUse.tick = s.clock
            return e
        }
    }

    /// The entry for `key` made under `revision`, or nil, without counting a hit or a miss
    /// or marking its use (a look to decide where the statement runs; its run looks it up).
    func peek(_ key: Hashed, revision: UInt64) -> Entry? {
        let s = shard(key)
        return s.lock.withLock {
            guard let e = s.entries[key], e.revision == revision else { return nil }
            return e
        }
    }

    /// The entry's plan ran, taking `micros` (rows handed to the client included).
    func noteRun(_ entry: Entry, micros: Int64) {
        let micros = max(0, micros), last = entry.lastRun.micros
        // Written only when it changes what the entry is (short or not): a plan every
        // session runs is not a cache line they all write.
        if last < 0 || (last <= Self.shortRunMicros) != (micros <= Self.shortRunMicros) { entry.lastRun.set(micros) }
    }

    /// A found entry turned out stale against the tables' snapshots (ANALYZE, rows).
    func discard(_ key: Hashed) {
        let s = shard(key)
        s.lock.withLock {
            if s.entries.removeValue(forKey: key) != nil {
                s.stale += 1
                s.hits -= 1
                s.misses += 1
            }
        }
    }

    func store(_ key: Hashed, _ entry: Entry) {
        let s = shard(key)
        s.lock.withLock {
            if s.entries[key] == nil, s.entries.count >= shardCapacity {
                let byAge = s.entries.sorted { $0.value.lastUse.tick < $1.value.lastUse.tick }
                for (k, _) in byAge.prefix(max(1, shardCapacity / 4)) { s.entries[k] = nil }
            }
            s.clock += 1
            entry.lastUse.tick = s.clock
            s.entries[key] = entry
        }
    }

    /// Whether `snapshot` still is what `table` was planned against.
    static func stillValid(_ table: Table, _ snapshot: TableSnapshot) -> Bool {
        guard snapshot.analyzed?.time == table.analyzedAt else { return false }
        let planned = Double(max(table.liveRows, 1_000)), now = Double(max(snapshot.rowCount, 1_000))
        return now <= planned * rowDrift && planned <= now * rowDrift
    }

    /// Hits, misses, stale entries dropped, entries now.
    var counters: (hits: Int, misses: Int, stale: Int, entries: Int) {
        var total = (hits: 0, misses: 0, stale: 0, entries: 0)
        for s in shards {
            s.lock.withLock {
                total.hits += s.hits
                total.misses += s.misses
                total.stale += s.stale
                total.entries += s.entries.count
            }
        }
        return total
    }

    /// Whether `plan` is small and scans no table at all (a query of constants and VALUES,
    /// which runs on the leader alone): what a short statement's plan must be.
    static func mayBeShort(_ plan: PhysicalNode) -> Bool {
        guard plan.readsNoTable else { return false }
        var nodes = 0
        plan.visit { _ in nodes += 1 }
        return nodes <= 16
    }

    /// Whether the entry's plan is a short statement's: it reads no table — so it takes no
    /// lock, no WLM slot and no slice, and being deterministic (or it would not be kept) its
    /// work is the same each run — and its last run took at most `shortRunMicros`. Such a
    /// statement may run on the thread that received it (`ShortStatements`).
    func isShort(_ entry: Entry) -> Bool {
        guard entry.mayBeShort else { return false }
        let micros = entry.lastRun.micros
        return micros >= 0 && micros <= Self.shortRunMicros
    }
}

/// How long a plan cache entry's last run took, in µs (-1: it has not run). Sessions
/// running the same plan read and write it at once, without a lock.
final class LastRun: Sendable {
    private let value = Atomic<Int64>(-1)
    var micros: Int64 { value.load(ordering: .relaxed) }
    func set(_ micros: Int64) { value.store(micros, ordering: .relaxed) }
}

/// When a cache entry was last used, by the cache's own clock (a plan cache shard's): a
/// reference kept in the entry, so a hit marks it in place (guarded by the cache's lock).
final class LastUse: @unchecked Sendable {
    var tick: UInt64 = 0
}
