// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution
import SlicehouseRuntime
import SlicehousePlatform

/// VACUUM's state and history in one database: at most one VACUUM at a time, its
/// progress (SVV_VACUUM_PROGRESS), and the rows of STL_VACUUM and SVV_VACUUM_SUMMARY.
final class VacuumLog: @unchecked Sendable {
    /// One row of STL_VACUUM: the start (or skip) and the end of one table's VACUUM.
    struct Event: Sendable {
        var xid: Int, table: Int, status: String
        var rows: Int, sortedRows: Int, blocks: Int
        var time: Int64
        var reclaimableRows: Int, reclaimableMB: Int
        var isRecluster: Bool
    }

    /// One row of SVV_VACUUM_SUMMARY: one table's VACUUM that did work.
    struct Summary: Sendable {
        var table: String, xid: Int
        var sortPartitions: Int, mergeIncrements: Int
        var elapsedMicros: Int64
        var rowDelta: Int, sortedRowDelta: Int, blockDelta: Int
        var maxMergePartitions: Int
    }

    /// SVV_VACUUM_PROGRESS: the running VACUUM's table, or the last one's.
    struct Progress: Sendable {
        var table: String
        var status: String
        var started: Date
        var fraction: Double
        var running: Bool
    }

    private let condition = NSCondition()
    private var holder: (background: Bool, id: Int)?
    private var nextHolder = 0
    /// A VACUUM statement waits for the background vacuum to step aside.
    private var foregroundWaiting = false
    private var current: Progress?
    /// Where STL_VACUUM's rows and SVV_VACUUM_SUMMARY's are kept.
    private let logs: SystemLogStore

    init(logs: SystemLogStore) { self.logs = logs }

    /// Become the database's one VACUUM. A statement fails with Redshift's error while
    /// another statement's VACUUM runs, and waits for the background vacuum to stop.
    /// Returns a token for `end`, or nil (background only) when one is running.
    func begin(background: Bool) throws -> Int? {
        condition.lock(); defer { condition.unlock() }
        if let h = holder {
            if background { return nil }
            guard h.background else {
                throw SQLError(.objectInUse, "VACUUM is running", hint: "re-execute after other vacuum finished")
            }
            foregroundWaiting = true
            while holder != nil { condition.wait() }
            foregroundWaiting = false
        }
        nextHolder += 1
        holder = (background, nextHolder)
        return nextHolder
    }

    func end(_ token: Int) {
        condition.lock()
        if holder?.id == token { holder = nil }
        condition.broadcast()
        condition.unlock()
    }

    var backgroundShouldYield: Bool { condition.lock(); defer { condition.unlock() }; return foregroundWaiting }

    func record(_ e: Event) {
        logs.append(LogTable.vacuum.name, [[
            .int(100), .int(Int64(e.xid)), .int(Int64(e.table)), .string(e.status), .int(Int64(e.rows)),
            .int(Int64(e.sortedRows)), .int(Int64(e.blocks)), .int(0), .int(e.time), .int(Int64(e.reclaimableRows)),
            .int(Int64(e.reclaimableMB)), .int(Int64(e.xid)), .int(e.isRecluster ? 1 : 0),
        ]])
    }

    func record(_ s: Summary) {
        logs.append(LogTable.vacuumSummary.name, [[
            .string(s.table), .int(Int64(s.xid)), .int(Int64(s.sortPartitions)), .int(Int64(s.mergeIncrements)),
            .int(s.elapsedMicros), .int(Int64(s.rowDelta)), .int(Int64(s.sortedRowDelta)), .int(Int64(s.blockDelta)),
            .int(Int64(s.maxMergePartitions)),
        ]])
    }

    func setProgress(_ p: Progress) { condition.lock(); current = p; condition.unlock() }

    func update(fraction: Double, status: String) {
        condition.lock(); defer { condition.unlock() }
        current?.fraction = fraction
        current?.status = status
    }

    var progress: Progress? { condition.lock(); defer { condition.unlock() }; return current }
}

/// Runs VACUUM on one table at a time, each in a transaction of its own (as Redshift
/// vacuums each table in a separate transaction). Shared by the VACUUM statement and the
/// background vacuum, so it holds the database's parts, not the database.
struct Vacuumer: Sendable {
    let store: DataStore
    let cache: BlockCache
    let blockBytes: Int
    let log: VacuumLog

    /// VACUUM table `name`. The table's lock is taken first (writers wait, readers go on
    /// with their snapshots); `background` gives up at once when the lock is held.
    /// The work runs as `context`'s (a statement's, or the background vacuum's own); its
    /// cancellation stops the lock wait and the work between pieces, and is what is thrown
    /// then. `isCancelled` is the background vacuum's reason to give up.
    func vacuum(_ name: QualifiedName, in database: String, mode: TableVacuum.Mode, threshold: Int, process: Int, background: Bool,
                context: QueryContext, isCancelled: @escaping @Sendable () -> Bool) throws {
        let cancellation = context.cancellation
        let t = store.begin(process: process, cancellation: cancellation)
        t.use(database: database)
        defer { t.rollback() }
        let lockCancel: () -> SQLError? = background ? { SQLError(.objectInUse, "table is in use") } : { cancellation.error }
        let (def, snap) = try t.beginWrite(name, reads: true, isCancelled: lockCancel)
        let plan = TableVacuum.plan(snap, table: def, mode: mode, threshold: threshold)
        let before = TableVacuum.Counts(snap)
        let bytes = snap.encodedBytes
        let prefix = background ? "[VacuumBG] " : ""
        let started = Date()
        func event(_ status: String, _ c: TableVacuum.Counts) -> VacuumLog.Event {
            let reclaimable = c.rows == 0 ? 0 : Int(Double(bytes) * Double(c.deleted) / Double(c.rows) / 1_048_576)
            return VacuumLog.Event(xid: t.id, table: def.id, status: prefix + status, rows: c.rows, sortedRows: c.sorted,
                                   blocks: c.blocks, time: Int64(Date().timeIntervalSince1970 * 1_000_000),
                                   reclaimableRows: c.deleted, reclaimableMB: reclaimable, isRecluster: mode == .recluster)
        }
        log.record(event(plan.status, before))
        guard plan.runs else {
            // Nothing to sort or reclaim: the rows of the tail buffer still go to block files.
            let sink = t.newSink()
            if let folded = try TableVacuum.foldHeld(snap, table: def, sink: sink) {
                t.stageReorganized(def.id, folded)
                try t.commit()
            }
            return
        }
        let phase = plan.sort == nil ? "delete" : (plan.sort == .merge ? "merge" : "sort")
        log.setProgress(VacuumLog.Progress(table: def.name, status: "Vacuum: initialize \(def.name)", started: started,
                                           fraction: 0, running: true))
        let sink = t.newSink()
        let log = self.log
        let next: TableSnapshot
        do {
            next = try TableVacuum.run(
                snap, table: def, plan: plan, sink: sink, sorter: Vacuumer.vacuumSorter(for: def), blockBytes: blockBytes,
                readBlock: { [cache] b, type in try cache.vector(b, type: type) },
                writeDeletes: { set, slice in try t.writeDeletes(set, table: def.id, slice: slice) },
                progress: { f in log.update(fraction: f, status: "Vacuum: \(phase) \(def.name)") },
                context: context, isCancelled: isCancelled)
        } catch {
            sink.discard()
            log.setProgress(VacuumLog.Progress(table: def.name, status: "Canceled", started: started, fraction: 0, running: false))
            throw cancellation.error ?? error
        }
        try cancellation.check()
        // Blocks the rewrite kept as they were may include the tail buffer's: to files too.
        t.stageReorganized(def.id, try TableVacuum.foldHeld(next, table: def, sink: sink) ?? next)
        try t.commit()
        let after = TableVacuum.Counts(next)
        log.record(event("Finished", after))
        let changedSlices = zip(snap.slices, next.slices).filter { $0.0.blockCount != $0.1.blockCount || $0.0.rowCount != $0.1.rowCount
            || $0.0.sortedRows != $0.1.sortedRows }.count
        log.record(VacuumLog.Summary(table: def.name, xid: t.id, sortPartitions: plan.sort == nil ? 0 : changedSlices,
                                     mergeIncrements: plan.sort == .merge ? 1 : 0,
                                     elapsedMicros: Int64(Date().timeIntervalSince(started) * 1_000_000),
                                     rowDelta: after.rows - before.rows, sortedRowDelta: after.sorted - before.sorted,
                                     blockDelta: after.blocks - before.blocks, maxMergePartitions: plan.sort == .merge ? 2 : 0))
        log.setProgress(VacuumLog.Progress(table: def.name, status: "Complete", started: started, fraction: 1, running: false))
    }
}

extension Database {
    var vacuumer: Vacuumer { Vacuumer(store: store, cache: cache, blockBytes: blockBytes, log: vacuumLog) }
}

extension Vacuumer {
    /// How VACUUM orders a slice: compound keys sort the unsorted region and merge it with
    /// the sorted one; interleaved keys re-sort every row by the z-order; RECLUSTER sorts
    /// the unsorted region alone.
    static func vacuumSorter(for table: TableDef) -> VacuumSorter? {
        guard let full = TableWriter.sorter(for: table) else { return nil }
        let keys = table.sortKey.map { SortKey(column: $0) }
        return { columns, sortedPrefix, n, kind in
            if kind == .resort || sortedPrefix <= 0 { return (full(columns, n), n) }
            let suffix = columns.map { $0.count == 0 ? $0 : $0.flattened(count: n).slice(sortedPrefix, n - sortedPrefix) }
            let sortedSuffix = full(suffix, n - sortedPrefix).map { $0 + Int32(sortedPrefix) }
            let order = Array(0..<Int32(sortedPrefix)) + sortedSuffix
            let arranged = columns.map { $0.count == 0 ? $0 : $0.flattened(count: n).gather(order) }
            if kind == .suffixOnly {
                let follows = sortedSuffix.isEmpty
                    || rowsInOrder(columns: arranged, keys: keys, sortedPrefix - 1, sortedPrefix, count: n)
                return (order, follows ? n : sortedPrefix)
            }
            let merged = mergeSortedRuns(columns: arranged, keys: keys, split: sortedPrefix, count: n)
            return (merged.map { order[Int($0)] }, n)
        }
    }
}

/// The background vacuum (Redshift's automatic VACUUM DELETE): after deletes, a table
/// whose rows marked deleted reach `deletedFraction` of its rows (and at least
/// `minimumDeletedRows`) is vacuumed DELETE ONLY once the database has been idle for
/// `idleSeconds`. It never waits: it skips a table whose lock is held, steps aside for a
/// VACUUM statement, and abandons its work (nothing is committed) when a statement starts
/// waiting for the table or the database closes. See docs/STORAGE.md, "VACUUM".
final class AutoVacuum: @unchecked Sendable {
    static let deletedFraction = 0.10
    static let minimumDeletedRows = 1_000
    static let idleSeconds = 1.0
    static let process = 1

    private let condition = NSCondition()
    private var context: (vacuumer: Vacuumer, activity: Activity)?
    private var stopping = false
    private var finished = false
    private var thread: Thread?

    init(vacuumer: Vacuumer, activity: Activity) {
        context = (vacuumer, activity)
        let t = Thread { [self] in loop() }
        t.name = "slicehouse-autovacuum"
        t.stackSize = 8 << 20
        thread = t
        t.start()
    }

    /// Stop the worker and wait until it has let go of the database's parts.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        context = nil
        thread = nil
        condition.unlock()
    }

    private var isStopping: Bool { condition.lock(); defer { condition.unlock() }; return stopping }

    private func loop() {
        while true {
            condition.lock()
            if stopping { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.5))
            if stopping { break }
            let ctx = context
            condition.unlock()
            if let ctx { pass(ctx.vacuumer, ctx.activity) }
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Vacuum the tables over the threshold, one at a time, while the database stays idle.
    private func pass(_ vacuumer: Vacuumer, _ activity: Activity) {
        let state = vacuumer.store.current
        let due = state.catalog.tablesOfEveryDatabase.filter { t in
            guard let snap = state.snapshots[t.id], vacuumer.store.damage(of: t.id) == nil else { return false }
            let c = TableVacuum.Counts(snap)
            return c.deleted >= Self.minimumDeletedRows && Double(c.deleted) >= Double(c.rows) * Self.deletedFraction
        }
        for t in due {
            guard !isStopping, activity.idleFor >= Self.idleSeconds else { return }
            guard let token = try? vacuumer.log.begin(background: true) else { return }
            defer { vacuumer.log.end(token) }
            let locks = vacuumer.store.locks
            let log = vacuumer.log
            do {
                // Its own context: no statement's budget or cancellation; it yields through
                // `isCancelled`.
                try vacuumer.vacuum(t.qualifiedName, in: t.database ?? Catalog.defaultDatabase, mode: .deleteOnly, threshold: 100, process: Self.process, background: true,
                                    context: QueryContext(), isCancelled: { [weak self] in
                    (self?.isStopping ?? true) || log.backgroundShouldYield || locks.hasWaiters(table: t.id)
                })
            } catch {
                // Busy or given up: the next pass tries again.
            }
        }
    }
}

/// When the database last ran a statement: the background vacuum works only when idle.
final class Activity: @unchecked Sendable {
    private let lock = Lock()
    private var running = 0
    private var lastEnd = Date()

    func begin() { lock.withLock { running += 1 } }
    func end() { lock.withLock { running -= 1; lastEnd = Date() } }

    /// Seconds since the last statement ended (0 while one runs).
    var idleFor: Double {
        lock.withLock { running > 0 ? 0 : Date().timeIntervalSince(lastEnd) }
    }
}
