// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog
import SlicehousePlatform

/// One transaction: everything it has changed and not yet committed, and the snapshot
/// it reads.
///
/// Every statement runs in one: a `BEGIN ... COMMIT` block's, or its own (autocommit).
/// The snapshot (`DatabaseState`) is taken at the first statement, after the table
/// locks that statement needs, so a transaction that starts by writing a table sees
/// that table's latest rows. The transaction then sees that snapshot plus its own
/// changes: the catalog with its CREATE/DROP applied, and the next snapshot of every
/// table it wrote, whose new blocks are in files of its own sinks. Nobody else sees
/// any of it until `commit()`; `rollback()` throws it all away and removes its files.
///
/// Conflicts (Redshift's serializable isolation, at table granularity): a transaction
/// that writes may commit only if every table it read is still at the version it read.
/// A table it only appends to (INSERT, COPY) without reading it is rebased onto the
/// latest committed version instead, since appends commute. Anything else fails with
/// `1023 ... Serializable isolation violation on table ...` and must roll back.
public final class Transaction: @unchecked Sendable {
    /// The transaction id (xid), unique in the process.
    public let id: Int
    /// The session that runs it (its process id in STV_SESSIONS).
    public let process: Int
    public let startTime: Int64
    let store: DataStore
    /// The running statement's cancellation: lock waits without an `isCancelled` of
    /// their own give up when it is cancelled. Given when the transaction begins, and by
    /// each statement of a transaction block (`beginStatement`).
    public private(set) var cancellation: Cancellation
    private let lock = Lock()

    private var base: DatabaseState?
    /// The catalog it sees (set when the snapshot is taken; until then an empty one,
    /// shared: a transaction begins for every statement, and making a catalog is not free).
    private var view = Transaction.noCatalog
    private static let noCatalog = Catalog()
    private(set) var changes: [ScopedCatalogChange] = []
    /// The database whose objects `view` shows (`use(database:)`).
    private var scope = Catalog.defaultDatabase
    private(set) var pending: [Int: TableSnapshot] = [:]
    /// Version of each committed table this transaction has read (what commit checks).
    private(set) var reads: [Int: UInt64] = [:]
    /// The committed version each pending snapshot was built on (nil: created here).
    private var pendingBase: [Int: UInt64] = [:]
    private var created = Set<Int>()
    /// Pending tables whose contents are unchanged (`stageReorganized`).
    private(set) var reorganized = Set<Int>()
    private(set) var sinks: [BlockSink] = []
    private var files: [String] = []
    /// The commits its snapshot and its staged tables were built on (a commit that failed to
    /// reach the disk must take down whoever built on it).
    var builtOn: [UInt64] { lock.withLock { (base.map { [$0.sequence] } ?? []) + Array(pendingBase.values) } }
    /// An autocommit writer's: its snapshot, and what it writes on, may hold a commit whose
    /// log sync is under way (it answers only after its own, later commit is durable).
    private var buildsOnUndurable = false
    /// Deleted-row files this transaction wrote.
    var writtenFiles: [String] { lock.withLock { files } }
    public private(set) var isFinished = false

    init(id: Int, process: Int, store: DataStore, cancellation: Cancellation) {
        self.cancellation = cancellation
        self.id = id; self.process = process; self.store = store
        startTime = Int64(Date().timeIntervalSince1970 * 1_000_000)
    }

    deinit { if !isFinished { rollback() } }

    /// The next statement of a transaction block starts: its lock waits give up with its
    /// cancellation.
    public func beginStatement(cancellation: Cancellation) { self.cancellation = cancellation }

    /// True once it has changed data or the catalog.
    public var hasWrites: Bool { lock.withLock { !pending.isEmpty || !changes.isEmpty } }

    /// Take the snapshot now if this is the first statement.
    public func start() { lock.withLock { startLocked() } }

    /// `afterLock`: the snapshot is taken by a statement that took its table's lock first
    /// (see `DataStore.takeSnapshot`); `latestCommit`: and it is a statement of its own, which
    /// may build on a commit whose log sync has not returned yet.
    private func startLocked(afterLock: Bool = false, latestCommit: Bool = false) {
        if base == nil {
            buildsOnUndurable = afterLock && latestCommit
            // A finished transaction (a session between statements) reads the latest state
            // without registering a snapshot that nothing would ever release.
            let s = isFinished ? store.current : store.takeSnapshot(for: id, afterLock: afterLock, latestCommit: latestCommit)
            base = s
            view = s.catalog
            view.use(database: scope)
        }
    }

    /// A catalog change made here, in the database the transaction is in.
    private func record(_ change: CatalogChange) {
        changes.append(ScopedCatalogChange(database: view.database, change: change))
    }

    /// The database whose objects names find, and where catalog changes are made: the
    /// session's (its connection's, or the last `USE`).
    public var database: String { lock.withLock { scope } }

    /// Name objects in database `name` (which the caller checked exists) from now on.
    public func use(database name: String) {
        lock.withLock {
            scope = name
            if base != nil { view.use(database: name) }
        }
    }

    /// The table `name` as this transaction sees it (or would see it, before its first
    /// statement: the latest committed one), without taking the snapshot.
    public func resolve(_ name: QualifiedName) -> TableDef? {
        lock.withLock { base == nil ? store.current.catalog.using(database: scope)?.table(name) : view.table(name) }
    }

    /// The catalog as this transaction sees it.
    public var catalog: Catalog { lock.withLock { startLocked(); return view } }

    /// The catalog as this transaction sees it, or, before its first statement, as it
    /// would see it (the latest committed one) without taking the snapshot: where a
    /// statement finds the tables whose locks it takes before its snapshot.
    public var catalogBeforeSnapshot: Catalog {
        lock.withLock {
            if base != nil { return view }
            let c = store.current.catalog
            return c.using(database: scope) ?? c
        }
    }

    /// The committed catalog revision this transaction reads (`DatabaseState.catalogRevision`),
    /// or nil when it has changed the catalog itself: a plan made under one revision is
    /// valid under the same one only.
    public var catalogRevision: UInt64? {
        lock.withLock {
            startLocked()
            return changes.isEmpty ? base?.catalogRevision : nil
        }
    }

    /// Whether the snapshot has been taken (the transaction has run a statement).
    public var hasSnapshot: Bool { lock.withLock { base != nil } }

    func tableName(_ id: Int) -> String? {
        lock.withLock { view.tableInAnyDatabase(id: id)?.name ?? base?.catalog.tableInAnyDatabase(id: id)?.name }
    }

    /// The rows of `table` as this transaction sees them (its own changes included),
    /// recorded as read. Throws for a quarantined table.
    public func snapshot(of table: TableDef) throws -> TableSnapshot {
        try lock.withLock {
            startLocked()
            if let p = pending[table.id] {
                if let v = pendingBase[table.id], reads[table.id] == nil { reads[table.id] = v }
                return p
            }
            if let e = store.damage(of: table.id) { throw e }
            guard let b = base, let s = b.snapshots[table.id] else {
                throw SQLError(.undefinedTable, "relation \"\(table.name)\" does not exist")
            }
            if reads[table.id] == nil { reads[table.id] = b.versions[table.id] ?? 0 }
            return s
        }
    }

    /// The committed version (the commit that last changed its rows or definition) of
    /// table `id` this transaction reads, or nil when it reads rows of its own (it has
    /// changed the table, or created it): what a reused query result is checked against.
    public func readVersion(of tableID: Int) -> UInt64? {
        lock.withLock {
            startLocked()
            if pending[tableID] != nil || created.contains(tableID) { return nil }
            guard let b = base, b.snapshots[tableID] != nil else { return nil }
            return b.versions[tableID] ?? 0
        }
    }

    /// The rows of every table this transaction sees, without recording reads (system views).
    public func peek(_ tableID: Int) -> TableSnapshot? {
        lock.withLock { pending[tableID] ?? base?.snapshots[tableID] }
    }

    // MARK: - Writing

    /// Take `name`'s lock (waiting for another writer to finish) and return the table and
    /// the snapshot to build its next version on. `reads`: the statement reads the rows it
    /// changes (DELETE, UPDATE), so they must be the latest; a pure append may be rebased.
    public func beginWrite(_ name: QualifiedName, reads readsRows: Bool,
                           isCancelled: (() -> SQLError?)? = nil) throws -> (TableDef, TableSnapshot) {
        let def = try lockTable(name, isCancelled: isCancelled)
        return try lock.withLock {
            if let p = pending[def.id] {
                if readsRows, let v = pendingBase[def.id], reads[def.id] == nil { reads[def.id] = v }
                return (def, p)
            }
            if let e = store.damage(of: def.id) { throw e }
            guard let b = base else { throw SQLError.internalError("transaction without a snapshot") }
            // A transaction block answers its statements before it commits: it builds on the
            // table's last commit only once that is durable (with the lock held, no other
            // commit of the table can follow meanwhile).
            let latest = buildsOnUndurable ? store.latestSequenced : store.latestSequenced(durableFor: def.id)
            guard let committed = latest.catalog.tableInAnyDatabase(id: def.id), committed == def, let snap = latest.snapshots[def.id] else {
                throw Self.conflict(table: def.id, name: def.name, transaction: id, other: latest.writers[def.id])
            }
            // A write after a stale read can never commit: fail now rather than at COMMIT.
            for (t, seen) in reads where t != def.id && (latest.versions[t] ?? 0) != seen {
                throw Self.conflict(table: t, name: view.tableInAnyDatabase(id: t)?.name, transaction: id, other: latest.writers[t])
            }
            let version = latest.versions[def.id] ?? 0
            if version != (b.versions[def.id] ?? 0) || (reads[def.id].map { $0 != version } ?? false) {
                // Changed since this transaction's snapshot: only a blind append may go on.
                if readsRows || reads[def.id] != nil {
                    throw Self.conflict(table: def.id, name: def.name, transaction: id, other: latest.writers[def.id])
                }
            }
            if readsRows { reads[def.id] = version }
            pendingBase[def.id] = version
            // Same contents as this transaction's snapshot, perhaps laid out anew by a VACUUM
            // that committed since: read the rows through the latest layout, whose row
            // numbers the write will use.
            if version == (b.versions[def.id] ?? 0) { base?.snapshots[def.id] = snap }
            return (def, snap)
        }
    }

    /// Take the lock of the table `name` (LOCK, and every write) and, if this is the
    /// transaction's first statement, its snapshot after the lock. Returns the table as
    /// this transaction sees it.
    ///
    /// `autocommit`: the transaction is this one statement's, whose result is answered only
    /// after its commit is durable; its snapshot may then include the commit before it whose
    /// log sync is still under way (group commit). A transaction block's snapshot waits for
    /// that sync instead, as its statements answer before it commits.
    @discardableResult
    public func lockTable(_ name: QualifiedName, isCancelled: (() -> SQLError?)? = nil, autocommit: Bool = false) throws -> TableDef {
        guard let def = resolve(name) else { throw SQLError(.undefinedTable, "relation \"\(name.name)\" does not exist") }
        if !lock.withLock({ created.contains(def.id) }) {
            let statement = cancellation
            try store.locks.acquire(table: def.id, owner: LockManager.Owner(transaction: id, process: process, startTime: startTime),
                                    isCancelled: isCancelled ?? { statement.error })
        }
        return try lock.withLock {
            startLocked(afterLock: true, latestCommit: autocommit)
            guard let t = view.table(name), t.id == def.id else {
                // Dropped or replaced by a transaction that committed while this one waited.
                throw Self.conflict(table: def.id, name: def.name, transaction: id, other: store.current.writers[def.id])
            }
            return t
        }
    }

    /// Stage `snapshot` as the next version of table `id` (from `beginWrite` or `createTable`).
    public func stage(_ tableID: Int, _ snapshot: TableSnapshot) {
        lock.withLock { pending[tableID] = snapshot; reorganized.remove(tableID) }
    }

    /// Stage a new layout of the same rows (VACUUM) or new statistics (ANALYZE): committed
    /// like any change, but it does not count as a change of the table's contents, so
    /// transactions that read the table before stay serializable with it.
    public func stageReorganized(_ tableID: Int, _ snapshot: TableSnapshot) {
        lock.withLock {
            if pending[tableID] == nil || reorganized.contains(tableID) { reorganized.insert(tableID) }
            pending[tableID] = snapshot
        }
    }

    /// A new sink for this transaction's blocks (synced at commit, removed at rollback).
    public func newSink() -> BlockSink {
        let s = store.newSink()
        lock.withLock { sinks.append(s) }
        return s
    }

    /// Write the deleted-row bitmap of `slice` (nil in memory).
    public func writeDeletes(_ set: DeleteSet, table: Int, slice: Int) throws -> String? {
        let name = try store.writeDeletes(set, table: table, slice: slice)
        if let name { lock.withLock { files.append(name) } }
        return name
    }

    public func reserveIdentity(table: TableDef, column: Int, count: Int) -> (first: Int64, step: Int64) {
        store.reserveIdentity(table: table, column: column, count: count)
    }

    // MARK: - Catalog changes

    /// Create a table (it gets its id here); it is empty and seen only by this transaction until commit.
    public func createTable(_ def: TableDef) throws -> TableDef {
        start()
        var d = def
        d.id = store.allocateTableID()
        try lock.withLock {
            d.database = view.database == Catalog.defaultDatabase ? nil : view.database   // as the catalog records it
            try view.create(d)
            record(.createTable(d))
            created.insert(d.id)
            pending[d.id] = .empty(layout: store.layout, columnCount: d.columns.count, distStyle: d.distStyle, distKey: d.distKey)
        }
        return d
    }

    /// Drop a table (taking its lock first).
    public func dropTable(_ name: QualifiedName) throws {
        let def = try lockTable(name)
        try lock.withLock {
            try view.drop(def.qualifiedName)
            record(.dropTable(def))
            pending[def.id] = nil
        }
    }

    public func createView(_ v: ViewDef, orReplace: Bool) throws {
        try lock.withLock {
            startLocked()
            try view.createView(v, orReplace: orReplace)
            record(.createView(v, orReplace: orReplace))
        }
    }

    /// Rewrite view `old`'s definition as `new` (same name); the commit replays it only onto
    /// `old` (`CatalogChange.redefineView`).
    public func redefineView(_ old: ViewDef, as new: ViewDef) throws {
        try applyCatalogChange(.redefineView(old, new))
    }

    public func dropView(_ name: QualifiedName) throws {
        try lock.withLock {
            startLocked()
            try view.dropView(name)
            record(.dropView(name))
        }
    }

    /// Give a table a new name or schema (taking its lock first): same id, same rows.
    public func renameTable(_ name: QualifiedName, to new: QualifiedName) throws {
        // Staged as written, so that later writes of this transaction find it under its new name.
        let (def, snap) = try beginWrite(name, reads: false)
        stage(def.id, snap)
        var renamed = def
        renamed.schema = new.schema
        renamed.name = new.name
        try lock.withLock {
            let change = CatalogChange.renameTable(def, renamed)
            try view.apply(change)
            record(change)
        }
    }

    /// Replace a table's definition under the same id and name (a renamed column): the
    /// rows are unchanged.
    public func redefineTable(_ name: QualifiedName, as new: TableDef) throws {
        let (def, snap) = try beginWrite(name, reads: false)
        stage(def.id, snap)
        try lock.withLock {
            let change = CatalogChange.renameTable(def, new)
            try view.apply(change)
            record(change)
        }
    }

    /// CREATE [OR REPLACE] FUNCTION / DROP FUNCTION (by `FunctionDef.key`).
    public func createFunction(_ f: FunctionDef, orReplace: Bool) throws {
        try applyCatalogChange(.createFunction(f, orReplace: orReplace))
    }

    public func dropFunction(_ key: String) throws {
        try applyCatalogChange(.dropFunction(key))
    }

    /// CREATE DATABASE, DROP DATABASE (with everything in it), ALTER DATABASE.
    public func createDatabase(_ d: DatabaseDef) throws { try applyCatalogChange(.createDatabase(d)) }

    public func dropDatabase(_ name: String) throws {
        // Its tables' locks, as DROP TABLE takes them: a writer in the database goes first.
        for def in catalog.tables(inDatabase: name) {
            let statement = cancellation
            try store.locks.acquire(table: def.id, owner: LockManager.Owner(transaction: id, process: process, startTime: startTime),
                                    isCancelled: { statement.error })
        }
        lock.withLock {
            for def in view.tables(inDatabase: name) { pending[def.id] = nil }
        }
        try applyCatalogChange(.dropDatabase(name))
    }

    public func alterDatabase(_ name: String, _ new: DatabaseDef) throws { try applyCatalogChange(.alterDatabase(name, new)) }

    private func applyCatalogChange(_ change: CatalogChange) throws {
        try lock.withLock {
            startLocked()
            try view.apply(change)
            record(change)
        }
    }

    /// COMMENT ON: set (or with nil remove) the comment under `key`.
    public func setComment(_ key: String, _ text: String?) throws {
        try lock.withLock {
            startLocked()
            let change = CatalogChange.comment(key: key, text: text)
            try view.apply(change)
            record(change)
        }
    }

    public func createSchema(_ s: SchemaDef) throws {
        try lock.withLock {
            startLocked()
            try view.createSchema(s)
            record(.createSchema(s))
        }
    }

    /// Drop an empty schema (its objects dropped first for CASCADE).
    public func dropSchema(_ name: String) throws {
        try lock.withLock {
            startLocked()
            try view.dropSchema(name)
            record(.dropSchema(name))
        }
    }

    /// Change users, groups, roles, owners or grants: applied to this transaction's
    /// catalog now (so a failing change fails the statement) and replayed at commit.
    public func changeSecurity(_ change: SecurityChange) throws {
        try lock.withLock {
            startLocked()
            try view.apply(.security(change))
            record(.security(change))
        }
    }

    // MARK: - End

    /// Make every change durable and visible at once, or throw (nothing is committed then;
    /// call `rollback()`).
    public func commit() throws {
        guard !isFinished else { return }
        try store.commit(self)
        finish(discarding: false)
    }

    /// Throw away every change and remove the files written for them.
    public func rollback() {
        guard !isFinished else { return }
        finish(discarding: true)
    }

    private func finish(discarding: Bool) {
        let (sinks, files) = lock.withLock { () -> ([BlockSink], [String]) in
            isFinished = true
            return (self.sinks, self.files)
        }
        if discarding {
            for s in sinks { s.discard() }
            store.discard(files: files)
        }
        store.end(id)
    }

    /// Redshift's error for a transaction that cannot be serialized with one that committed.
    static func conflict(table: Int, name: String?, transaction: Int, other: Int?) -> SQLError {
        SQLError(.serializationFailure, "1023",
                 detail: "Serializable isolation violation on table - \(table)\(name.map { " (\($0))" } ?? ""),"
                    + " transactions forming the cycle are: \(transaction)\(other.map { ", \($0)" } ?? "")")
    }
}
