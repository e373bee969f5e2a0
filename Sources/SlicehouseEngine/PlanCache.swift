// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehousePlatform

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
        /// When it was last used; a reference, so a hit marks it without storing the entry
        /// again (one dictionary lookup, not two).
        let lastUse = LastUse()
    }

    /// Entries kept at most; past it the least recently used quarter goes.
    let capacity: Int
    /// A table whose live rows differ from those planned for by more than this factor
    /// (either way, counting from 1,000 rows) is planned for again.
    static let rowDrift = 4.0

    private let lock = Lock()
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private var hits = 0
    private var misses = 0
    private var stale = 0

    init(capacity: Int = 4096) { self.capacity = max(1, capacity) }

    /// The entry for `key` made under `revision`, or nil.
    func lookup(_ key: Key, revision: UInt64) -> Entry? {
        lock.withLock {
            guard let e = entries[key] else {
                misses += 1
                return nil
            }
            guard e.revision == revision else {
                entries[key] = nil
                stale += 1
                misses += 1
                return nil
            }
            hits += 1
            clock += 1
            e.lastUse.tick = clock
            return e
        }
    }

    /// A found entry turned out stale against the tables' snapshots (ANALYZE, rows).
    func discard(_ key: Key) {
        lock.withLock {
            if entries.removeValue(forKey: key) != nil {
                stale += 1
                hits -= 1
                misses += 1
            }
        }
    }

    func store(_ key: Key, _ entry: Entry) {
        lock.withLock {
            if entries[key] == nil, entries.count >= capacity {
                let byAge = entries.sorted { $0.value.lastUse.tick < $1.value.lastUse.tick }
                for (k, _) in byAge.prefix(max(1, capacity / 4)) { entries[k] = nil }
            }
            clock += 1
            entry.lastUse.tick = clock
            entries[key] = entry
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
        lock.withLock { (hits, misses, stale, entries.count) }
    }
}

/// When a cache entry was last used, by the cache's own clock: a reference kept in the
/// entry, so a hit marks it in place (guarded by the cache's lock).
final class LastUse: @unchecked Sendable {
    var tick: UInt64 = 0
}
