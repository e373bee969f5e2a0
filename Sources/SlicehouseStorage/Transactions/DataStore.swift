// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog
import SlicehousePlatform

/// Everything committed at one moment: the catalog and every table's snapshot. A
/// transaction reads one `DatabaseState` (its snapshot) from its first statement to
/// its end; a commit publishes the next one. Values, so taking one is a copy of a few
/// dictionaries that share their storage.
public struct DatabaseState: Sendable {
    /// Commits so far (the manifest's generation).
    public var sequence: UInt64
    public var catalog: Catalog
    public var snapshots: [Int: TableSnapshot]
    /// The commit that last changed each table's rows or definition (dropped tables keep
    /// theirs), and the transaction that made it: what conflict checks compare.
    public var versions: [Int: UInt64]
    public var writers: [Int: Int]
    /// Commits that changed the catalog since the store was opened (DDL, GRANT/REVOKE, a
    /// view or function): what a plan made against the catalog is valid for (`PlanCache`).
    public var catalogRevision: UInt64 = 0

    public init(sequence: UInt64, catalog: Catalog, snapshots: [Int: TableSnapshot]) {
        self.sequence = sequence; self.catalog = catalog; self.snapshots = snapshots
        versions = [:]; writers = [:]
    }
}

/// The data directory of one database and its commit protocol: the committed state,
/// recovery at open, block-file generations, deleted-row files, the manifest, and the
/// removal of files no snapshot needs any more. The engine reaches it only through
/// `Transaction` (see docs/STORAGE.md, "Transactions").
///
/// Without a directory the same state is kept in memory and nothing is written.
public final class DataStore: @unchecked Sendable {
    public let directory: String?
    public let layout: SliceLayout
    /// Table locks of every transaction of this database.
    public let locks = LockManager()

    /// The latest durable commit's state: what snapshots read (`current`, `takeSnapshot`).
    private var state: DatabaseState
    /// The latest commit's state, durable or not: `state` and the commits whose records are
    /// written but whose log sync has not returned yet. Commits build on it, and so does a
    /// writer that took its table's lock (it reads what the commit before it wrote, and its
    /// own commit, durable after that one, is answered only once both are). Under `lock`.
    private var latest: DatabaseState
    private let lock = Lock()
    /// Serializes commits (validation, the record's write, the sequencing of the next state).
    private let commitLock = Lock()
    /// The last commit sequence given out (under `commitLock`). Never given twice, even to
    /// a commit that failed to reach the disk, so a version seen is never another's.
    private var issuedSequence: UInt64 = 0
    /// Group commit: commits sequenced whose log records are not yet durable, oldest first,
    /// and the sync that makes them so. Under `durability`.
    private let durability = NSCondition()
    private var undurable: [SequencedCommit] = []
    private var sequencedThrough: UInt64 = 0
    private var durableThrough: UInt64 = 0
    /// The log's size after the last durable record (where a failed sync cuts it back to).
    private var durableLogSize = 0
    private var syncing = false
    /// Commits a failed sync took down, with its error: their waiters fail, and so does any
    /// transaction whose snapshot included one of them.
    private var failedCommits: [(sequences: ClosedRange<UInt64>, error: SQLError)] = []
    /// Log syncs and the commits they made durable (what `GroupCommitTests` checks; no
    /// system view shows them).
    private var syncs = 0
    private var syncedCommits = 0
    /// Tests only: called by a commit about to sync the log for the others; an error it
    /// returns is taken as the sync's failure (nothing is synced).
    var beforeLogSync: (@Sendable () -> SQLError?)? {
        get { durability.withLock { syncHook } }
        set { durability.withLock { syncHook = newValue } }
    }
    private var syncHook: (@Sendable () -> SQLError?)?
    private var fileGeneration: UInt64 = 0
    private var nextTableID: Int
    private var nextTransactionID = 1000
    /// Transaction ids up to this one are reserved (`reserveTransactionIDs`).
    private var reservedTransactionIDs = Int.max
    private var transactionIDReserver: (@Sendable (Int) -> Void)?
    private var identityNext: [Int: [Int: Int64]] = [:]
    private var damaged: [Int: DamagedTable] = [:]
    /// Snapshot sequence of every transaction that has taken one.
    private var active: [Int: UInt64] = [:]
    /// Files and blocks the commit `sequence` stopped naming; the files are removed and the
    /// blocks forgotten by the block cache once no snapshot older than it remains.
    private var garbage: [(sequence: UInt64, files: [String], blocks: [UInt64])] = []
    /// Told the blocks no snapshot can read any more (the block cache drops them), outside
    /// the store's lock.
    private var blocksRetired: (@Sendable ([UInt64]) -> Void)?
    private var lockFD: Int32 = -1
    /// `wal.log`: each commit's record (nil in memory).
    private var log: CommitLog?

    /// Open (or create) the database in `directory` (nil: in memory). `layout` is used when
    /// the database is created; an existing one keeps the layout in its `cluster.json`.
    /// A directory that another process (or another open `DataStore`) holds is refused.
    public init(directory: String?, layout proposed: SliceLayout) throws {
        self.directory = directory
        var chosen = proposed
        if let directory {
            let fm = FileManager.default
            let configPath = (directory as NSString).appendingPathComponent("cluster.json")
            do {
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
                // Private to the server's OS user, as PostgreSQL keeps its data directory:
                // blocks, logs and the catalog's password hashes are nobody else's.
                _ = chmod(directory, 0o700)
            } catch {
                throw SQLError(.ioError, "could not open database directory \"\(directory)\": \(error.localizedDescription)")
            }
            lockFD = try Self.lockDirectory(directory)
            do {
                if let data = fm.contents(atPath: configPath) {
                    chosen = try JSONDecoder().decode(SliceLayout.self, from: data)
                    guard chosen.nodes >= 1, chosen.slicesPerNode >= 1, chosen.sliceCount <= 1024 else {
                        throw SQLError(.ioError, "cluster.json in \"\(directory)\" names an impossible layout"
                            + " (\(chosen.nodes) nodes × \(chosen.slicesPerNode) slices)")
                    }
                } else if fm.fileExists(atPath: (directory as NSString).appendingPathComponent(Manifest.fileName))
                            || !Self.dataFiles(in: directory).isEmpty {
                    // An existing database lost its layout: writing the default one would
                    // misplace every table's slices.
                    throw SQLError(.ioError, "cluster.json, the database's layout of nodes and slices, is missing in \"\(directory)\";"
                        + " nothing was changed. Restore it from a backup ({\"nodes\":N,\"slicesPerNode\":M} as the database was created).")
                } else {
                    try DurableFiles.replace(configPath, with: Array(try JSONEncoder().encode(proposed)))
                }
            } catch let e as SQLError {
                close(lockFD)
                throw e
            } catch {
                close(lockFD)
                throw SQLError(.ioError, "could not read \"\(configPath)\": \(error.localizedDescription)")
            }
        }
        layout = chosen
        state = DatabaseState(sequence: 0, catalog: Catalog(), snapshots: [:])
        latest = state
        nextTableID = state.catalog.nextTableID
        if let directory {
            do {
                let created = try recover(directory)
                let log = try CommitLog(directory: directory)
                self.log = log
                if created || log.size > 0 {
                    // A new database gets its (empty) manifest at once; an existing one folds the
                    // commits its log holds into the manifest (a checkpoint) and starts a new log.
                    try writeManifest(state, directory: directory)
                    try log.reset()
                }
                DurableFiles.syncDirectory(directory)
                latest = state
                issuedSequence = state.sequence
                sequencedThrough = state.sequence
                durableThrough = state.sequence
            } catch {
                close(lockFD)
                lockFD = -1
                throw error
            }
        }
    }

    deinit {
        // A clean close folds the commit log into the manifest (a crash leaves it to the next open).
        if let directory, let log, log.size > 0, (try? writeManifest(state, directory: directory)) != nil {
            try? log.reset()
        }
        if lockFD >= 0 { close(lockFD) }
    }

    // MARK: - Transactions

    /// The latest committed state.
    public var current: DatabaseState { lock.withLock { state } }
    /// The latest committed catalog (without copying the rest of the state).
    public var currentCatalog: Catalog { lock.withLock { state.catalog } }
    /// The latest committed catalog's revision (`DatabaseState.catalogRevision`).
    public var currentCatalogRevision: UInt64 { lock.withLock { state.catalogRevision } }

    /// The encoded bytes of every committed table's current blocks (an ALL table's one
    /// copy per slice counted as it is stored).
    public var currentDataBytes: Int {
        current.snapshots.values.reduce(0) { $0 + $1.encodedBytes }
    }

    /// A new transaction of the process (session) `process`; its snapshot is taken at its first statement.
    public func begin(process: Int, cancellation: Cancellation) -> Transaction {
        let (id, reserve) = lock.withLock { () -> (Int, (@Sendable (Int) -> Void, Int)?) in
            nextTransactionID += 1
            guard nextTransactionID > reservedTransactionIDs, let reserver = transactionIDReserver else {
                return (nextTransactionID, nil)
            }
            reservedTransactionIDs = nextTransactionID + Self.transactionIDBatch
            return (nextTransactionID, (reserver, reservedTransactionIDs))
        }
        if let (reserver, through) = reserve { reserver(through) }
        return Transaction(id: id, process: process, store: self, cancellation: cancellation)
    }

    /// Transaction ids are reserved this many at a time.
    static let transactionIDBatch = 10_000

    /// Give out transaction ids above `after` (those up to it were reserved by an earlier
    /// process), and call `reserver` with the new limit before passing each batch of ids,
    /// so that xids stay unique in logs that outlive the process.
    public func reserveTransactionIDs(after: Int, reserver: @escaping @Sendable (Int) -> Void) {
        lock.withLock {
            nextTransactionID = max(nextTransactionID, after)
            reservedTransactionIDs = nextTransactionID
            transactionIDReserver = reserver
        }
    }

    /// The latest commit's state, durable or not (a writer holding the locks of what it
    /// writes checks against it; a commit builds on it).
    var latestSequenced: DatabaseState { lock.withLock { latest } }

    /// The latest commit's state once `table`'s last commit in it is durable (or failed).
    func latestSequenced(durableFor table: Int) -> DatabaseState {
        waitUntilDurable(lock.withLock { latest.versions[table] ?? 0 })
        return lock.withLock { latest }
    }

    /// The latest durable state, registered as `transaction`'s snapshot until `end(_:)`.
    ///
    /// A transaction that starts by taking a table's lock (`afterLock`) must see the commit
    /// of the writer it waited for, which released the lock once its record was written: an
    /// autocommit statement (`latestCommit`) takes the latest commit's state, durable or not
    /// (it answers only once its own commit, after that one, is durable); a transaction
    /// block waits for that commit's sync first, as its statements answer before it commits.
    func takeSnapshot(for transaction: Int, afterLock: Bool = false, latestCommit: Bool = false) -> DatabaseState {
        if afterLock && !latestCommit { waitUntilDurable(lock.withLock { latest.sequence }) }
        return lock.withLock {
            let s = afterLock && latestCommit ? latest : state
            active[transaction] = s.sequence
            return s
        }
    }

    /// Commits whose records are written and whose sync has not returned yet.
    var undurableCommits: Int { durability.withLock { undurable.count } }

    /// Log syncs so far, and the commits they made durable (more commits than syncs: group commit).
    var groupCommitCounters: (syncs: Int, commits: Int) {
        durability.lock(); defer { durability.unlock() }
        return (syncs, syncedCommits)
    }

    /// Call `body` with the blocks of each superseded table version once no snapshot can
    /// read them (the block cache forgets them, so it holds only what can still be read).
    public func onBlocksRetired(_ body: @escaping @Sendable ([UInt64]) -> Void) {
        lock.withLock { blocksRetired = body }
    }

    /// The transaction is over: forget its snapshot, remove the files nobody needs now and
    /// retire the blocks nobody can read.
    func end(_ transaction: Int) {
        locks.releaseAll(transaction)
        let (doomed, retired, tell) = lock.withLock { () -> ([String], [UInt64], (@Sendable ([UInt64]) -> Void)?) in
            active[transaction] = nil
            let oldest = active.values.min() ?? state.sequence
            var files: [String] = [], blocks: [UInt64] = []
            garbage.removeAll { g in
                if g.sequence <= oldest { files += g.files; blocks += g.blocks; return true }
                return false
            }
            return (files, blocks, blocksRetired)
        }
        if let directory {
            for f in doomed { unlink((directory as NSString).appendingPathComponent(f)) }
        }
        if !retired.isEmpty { tell?(retired) }
    }

    /// A table id never used before in this database.
    func allocateTableID() -> Int { lock.withLock { nextTableID += 1; return nextTableID - 1 } }

    /// The error of a quarantined table, nil for a healthy one.
    public func damage(of tableID: Int) -> SQLError? { lock.withLock { damaged[tableID]?.error } }

    /// Where a transaction writes new blocks: a file per table and slice of a new generation.
    func newSink() -> BlockSink {
        guard let directory else { return MemoryBlockSink() }
        let g = lock.withLock { fileGeneration += 1; return fileGeneration }
        return FileBlockSink(directory: directory, generation: g)
    }

    /// Write a deleted-row bitmap for `slice` of `table` (durable before a commit names it).
    func writeDeletes(_ set: DeleteSet, table: Int, slice: Int) throws -> String? {
        guard let directory else { return nil }
        let g = lock.withLock { fileGeneration += 1; return fileGeneration }
        let name = "slice\(slice)/t\(table)_g\(g).\(DeleteFile.fileExtension)"
        let dir = (directory as NSString).appendingPathComponent("slice\(slice)")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try DurableFiles.replace((directory as NSString).appendingPathComponent(name), with: try DeleteFile.encode(set))
        return name
    }

    /// Remove files written by a transaction that will never commit.
    func discard(files: [String]) {
        guard let directory else { return }
        for f in files { unlink((directory as NSString).appendingPathComponent(f)) }
    }

    /// Reserve `count` identity values of column `column` (not returned on rollback, as in Redshift).
    public func reserveIdentity(table: TableDef, column: Int, count: Int) -> (first: Int64, step: Int64) {
        let spec = table.columns[column].identity ?? (seed: 1, step: 1)
        return lock.withLock {
            let next = identityNext[table.id]?[column] ?? spec.seed
            identityNext[table.id, default: [:]][column] = next &+ spec.step &* Int64(count)
            return (next, spec.step)
        }
    }

    // MARK: - Commit

    /// A commit whose record is written, not yet known durable, and what its publication does.
    private struct SequencedCommit {
        var state: DatabaseState
        /// The log's size after its record (0 when a checkpoint made it durable).
        var logSize: Int
        var dropped: Set<Int>
        var unreferenced: [String]
        var retired: [UInt64]
        var sequence: UInt64 { state.sequence }
    }

    /// Commit `t`: check that nothing it read has changed since (Redshift's serializable
    /// isolation), replay its catalog changes and install its table snapshots onto the
    /// latest state, make its blocks durable, write its record, and — once the log is
    /// synced — publish.
    ///
    /// Group commit: the record is written under `commitLock`, the sync is not. The first
    /// commit to wait syncs the log for every record written so far; those written while it
    /// syncs wait for the next sync, which one of them runs — one `fdatasync` for every commit
    /// that arrived during the one before. The table locks are released once the record is
    /// written, so the next writer of the same table runs during the sync and builds on this
    /// commit (`latest`); readers see a commit only when it is durable, and every commit
    /// returns only when durable. A failed sync fails every commit not yet durable, and
    /// every transaction that built on one; nothing acknowledged is lost.
    func commit(_ t: Transaction) throws {
        guard t.hasWrites else { return }
        // The transaction's own block files: synced before its turn, beside other commits.
        if directory != nil { for sink in t.sinks { try sink.sync() } }
        let ticket: UInt64? = try commitLock.withLock {
            let latest = lock.withLock { self.latest }
            let builtOn = t.builtOn
            if let f = durability.withLock({ failedCommits.first { f in builtOn.contains { f.sequences.contains($0) } } }) {
                throw SQLError(.ioError, "could not commit: a commit this transaction read was not written to disk (\(f.error.message))")
            }
            for (table, seen) in t.reads.sorted(by: { $0.key < $1.key }) where (latest.versions[table] ?? 0) != seen {
                throw Transaction.conflict(table: table, name: t.tableName(table) ?? latest.catalog.table(id: table)?.name,
                                           transaction: t.id, other: latest.writers[table])
            }
            var next = latest
            next.sequence = max(latest.sequence, issuedSequence) + 1
            if !t.changes.isEmpty { next.catalogRevision += 1 }
            var changed = Set<Int>()
            for scoped in t.changes {
                let change = scoped.change
                next.catalog.use(database: scoped.database)
                if case .dropDatabase(let name) = change {
                    for def in next.catalog.tables(inDatabase: name) { changed.insert(def.id); next.snapshots[def.id] = nil }
                }
                if case .alterDatabase(let name, let new) = change, new.name != name {
                    // Its tables are kept under the database's name: written again under the new one.
                    for def in next.catalog.tables(inDatabase: name) { changed.insert(def.id) }
                }
                try next.catalog.apply(change)
                switch change {
                case .createTable(let def): changed.insert(def.id)
                case .dropTable(let def): changed.insert(def.id); next.snapshots[def.id] = nil
                case .renameTable(let def, _): changed.insert(def.id)
                case .createView, .redefineView, .dropView, .createSchema, .dropSchema, .security, .comment, .createFunction,
                     .dropFunction, .createDatabase, .dropDatabase, .alterDatabase: break
                }
            }
            next.catalog.use(database: Catalog.defaultDatabase)
            for (id, snap) in t.pending where next.catalog.tableInAnyDatabase(id: id) != nil {
                next.snapshots[id] = snap
                changed.insert(id)
            }
            for id in changed where !t.reorganized.contains(id) {
                next.versions[id] = next.sequence
                next.writers[id] = t.id
            }
            let dropped = changed.filter { next.catalog.tableInAnyDatabase(id: $0) == nil }
            let droppedDamage: [String] = lock.withLock { dropped.flatMap { damaged[$0]?.entry.fileNames ?? [] } }
            // The log's size after the record, or nil when it is durable already (in memory,
            // or a checkpoint: the whole manifest written and synced).
            var logSize: Int?
            if let directory {
                let elsewhere = t.changes.contains { $0.database != Catalog.defaultDatabase || $0.change.changesDatabases }
                logSize = try persist(next, changed: changed, viewsChanged: t.changes.contains { $0.change.changesViews },
                                      schemasChanged: t.changes.contains { $0.change.changesSchemas }, databasesChanged: elsewhere,
                                      securityChanged: next.catalog.security != latest.catalog.security,
                                      commentsChanged: next.catalog.comments != latest.catalog.comments,
                                      functionsChanged: next.catalog.functions != latest.catalog.functions, directory: directory)
            }
            issuedSequence = next.sequence
            // Files the new state no longer names (replaced deleted-row files, dropped tables),
            // and files of this transaction that a later statement of it replaced (a tail block
            // re-encoded, a bitmap written twice): those no committed state ever named.
            var unreferenced = Set(droppedDamage).union(t.sinks.flatMap { $0.fileNames }).union(t.writtenFiles)
            for id in changed { if let old = latest.snapshots[id] { unreferenced.formUnion(old.fileNames) } }
            for id in changed { if let new = next.snapshots[id] { unreferenced.subtract(new.fileNames) } }
            // Blocks of the versions this commit superseded that the new versions do not keep.
            var retired = Set<UInt64>()
            for id in changed { if let old = latest.snapshots[id] { retired.formUnion(old.blockIDs) } }
            for id in changed { if let new = next.snapshots[id] { retired.subtract(new.blockIDs) } }
            let sequenced = SequencedCommit(state: next, logSize: logSize ?? 0, dropped: dropped,
                                            unreferenced: unreferenced.sorted(), retired: Array(retired))
            lock.withLock { self.latest = next }
            durability.lock()
            undurable.append(sequenced)
            sequencedThrough = next.sequence
            if logSize == nil { publish(through: next.sequence, logReset: directory != nil) }
            durability.unlock()
            if logSize == nil { durability.broadcast() }
            return logSize == nil ? nil : next.sequence
        }
        // The next writer of these tables may go on now: it builds on this commit.
        locks.releaseAll(t.id)
        if let ticket { try awaitDurable(ticket) }
    }

    /// Wait until commit `sequence` is durable (or failed), without syncing: its committer does.
    private func waitUntilDurable(_ sequence: UInt64) {
        durability.lock()
        while durableThrough < sequence, sequencedThrough >= sequence { durability.wait() }
        durability.unlock()
    }

    /// Wait until commit `ticket` is durable: sync the log for it and whoever wrote before
    /// it, or wait for the sync under way and then perhaps run the next.
    private func awaitDurable(_ ticket: UInt64) throws {
        durability.lock()
        while durableThrough < ticket {
            if let f = failedCommits.first(where: { $0.sequences.contains(ticket) }) {
                durability.unlock()
                throw f.error
            }
            if syncing { durability.wait(); continue }
            syncing = true
            let hook = syncHook
            durability.unlock()
            let injected = hook?()
            durability.lock()
            let target = sequencedThrough
            durability.unlock()
            let failure = injected ?? log?.sync()
            if let failure { failCommits(after: failure) }
            durability.lock()
            syncing = false
            if failure == nil {
                let published = publish(through: target, logReset: false)
                if published > 0 { syncs += 1; syncedCommits += published }
            }
            durability.broadcast()
        }
        durability.unlock()
    }

    /// Publish the commits through `sequence` (now durable), in order; under `durability`.
    /// Returns how many.
    @discardableResult
    private func publish(through sequence: UInt64, logReset: Bool) -> Int {
        let count = undurable.prefix { $0.sequence <= sequence }.count
        let published = undurable.prefix(count)
        undurable.removeFirst(count)
        if sequence > durableThrough { durableThrough = sequence }
        if logReset { durableLogSize = 0 } else if let newest = published.last { durableLogSize = newest.logSize }
        guard let newest = published.last else { return 0 }
        lock.withLock {
            state = newest.state
            for c in published {
                for id in c.dropped {
                    damaged[id] = nil
                    identityNext[id] = nil
                }
                if !c.unreferenced.isEmpty || !c.retired.isEmpty {
                    garbage.append((c.sequence, c.unreferenced, c.retired))
                }
            }
        }
        return count
    }

    /// A log sync failed: every commit not yet durable fails (those it covered and those
    /// written since, which may have built on them), the latest state goes back to the
    /// durable one, and the log is cut back to its last durable record.
    private func failCommits(after failure: SQLError) {
        commitLock.withLock {
            durability.lock()
            defer { durability.unlock() }
            guard sequencedThrough > durableThrough else { return }
            failedCommits.append((durableThrough + 1...sequencedThrough, failure))
            undurable.removeAll()
            sequencedThrough = durableThrough
            lock.withLock { latest = state }
            log?.cutBack(to: durableLogSize)
        }
    }

    /// Write the commit of `next`: its record appended to the commit log (durable once the
    /// log is synced; returns the log's size after it), or — when the log has grown past
    /// `CommitLog.checkpointBytes`, or a failed sync left it in doubt — a checkpoint, durable
    /// at once (nil): the whole manifest rewritten and the log emptied.
    private func persist(_ next: DatabaseState, changed: Set<Int>, viewsChanged: Bool, schemasChanged: Bool,
                         databasesChanged: Bool, securityChanged: Bool, commentsChanged: Bool, functionsChanged: Bool,
                         directory: String) throws -> Int? {
        guard let log, !log.needsCheckpoint, log.size < CommitLog.checkpointBytes else {
            try writeManifest(next, directory: directory)
            // Records left in the log are older than the manifest now and are skipped at open.
            try? log?.reset()
            return nil
        }
        let (identities, nextID) = lock.withLock { (identityNext, nextTableID) }
        var tables: [ManifestTable] = [], dropped: [Int] = []
        for id in changed.sorted() {
            if let def = next.catalog.tableInAnyDatabase(id: id) {
                guard !def.isTemporary, let snap = next.snapshots[id] else { continue }
                tables.append(try ManifestTable(def: def, snapshot: snap, identityNext: identities[id] ?? [:]))
            } else {
                dropped.append(id)
            }
        }
        return try log.write(CommitRecord(sequence: next.sequence, nextTableID: max(nextID, next.catalog.nextTableID), tables: tables,
                                    dropped: dropped, views: viewsChanged ? next.catalog.allViews.map(ManifestView.init) : nil,
                                    schemas: schemasChanged ? next.catalog.allSchemas : nil,
                                    security: securityChanged ? next.catalog.security : nil,
                                    comments: commentsChanged ? next.catalog.comments : nil,
                                    functions: functionsChanged ? next.catalog.functions.values.sorted { $0.key < $1.key } : nil,
                                    databases: databasesChanged ? next.catalog.savedDatabases.map(ManifestDatabase.init) : nil,
                                    defaultDatabase: databasesChanged ? next.catalog.databaseDef(Catalog.defaultDatabase) : nil))
    }

    private func writeManifest(_ s: DatabaseState, directory: String) throws {
        var tables: [ManifestTable] = []
        let (damagedNow, identities, nextID) = lock.withLock { (damaged, identityNext, nextTableID) }
        for def in s.catalog.tablesOfEveryDatabase where !def.isTemporary {
            if let d = damagedNow[def.id] {
                tables.append(d.entry)  // kept as it was until it is dropped
                continue
            }
            guard let snap = s.snapshots[def.id] else { continue }
            tables.append(try ManifestTable(def: def, snapshot: snap, identityNext: identities[def.id] ?? [:]))
        }
        let m = Manifest(generation: s.sequence, nextTableID: max(nextID, s.catalog.nextTableID), tables: tables,
                         views: s.catalog.allViews.map(ManifestView.init), schemas: s.catalog.allSchemas,
                         security: s.catalog.security, comments: s.catalog.comments,
                         functions: s.catalog.functions.values.sorted { $0.key < $1.key },
                         databases: s.catalog.savedDatabases.map(ManifestDatabase.init),
                         defaultDatabase: s.catalog.savedDefaultDatabase)
        try DurableFiles.replace((directory as NSString).appendingPathComponent(Manifest.fileName), with: try m.fileBytes())
    }

    // MARK: - Opening

    /// Take the directory's lock file (released when the process ends or the store is freed).
    private static func lockDirectory(_ directory: String) throws -> Int32 {
        let path = (directory as NSString).appendingPathComponent("LOCK")
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw SQLError(.ioError, "could not open \"\(path)\": \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var holder = ""
            var buf = [UInt8](filled: 0, count: 32)
            let n = pread(fd, &buf, 32, 0)
            if n > 0 { holder = " (process \(String(decoding: buf[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))" }
            close(fd)
            throw SQLError(.ioError, "database directory \"\(directory)\" is in use by another process\(holder)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    /// A file's bytes read straight into an array (`FileManager.contents` and a copy of
    /// its `Data` took a millisecond of SF 10's opening for its 1.3 MB manifest), or nil.
    static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        var complete = true
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            if let base = buffer.baseAddress {
                while done < size {
                    let r = read(fd, base + done, size - done)
                    if r < 0 && errno == EINTR { continue }
                    guard r > 0 else { break }
                    done += r
                }
            }
            complete = done == size
            count = done
        }
        return complete ? bytes : nil
    }

    /// Read the committed manifest and remove leftovers of interrupted transactions.
    ///
    /// Opening never deletes what it cannot account for. Without a readable, intact
    /// `manifest.json` nothing is removed: a directory that holds data files (or a
    /// `manifest.json.tmp`) but no manifest is refused with an error saying how to
    /// recover, and so is a damaged manifest. Only files that a valid manifest proves
    /// to be leftovers (under `slice*/`, not named by it) are removed.
    ///
    /// A table whose own files are damaged (a deleted-row file that fails its checksum)
    /// is kept in the catalog but quarantined: statements that read or change it fail
    /// with the damage named, DROP TABLE removes it, and every other table works.
    /// Returns true for a new database (nothing committed yet).
    private func recover(_ directory: String) throws -> Bool {
        let fm = FileManager.default
        let manifestPath = (directory as NSString).appendingPathComponent(Manifest.fileName)
        let tmpPath = manifestPath + ".tmp"
        let logPath = (directory as NSString).appendingPathComponent(CommitLog.fileName)
        var isDirectory: ObjCBool = false
        let manifestExists = fm.fileExists(atPath: manifestPath, isDirectory: &isDirectory)
        let dataFiles = Self.dataFiles(in: directory)
        let logBytes = fm.contents(atPath: logPath).map { Array($0) } ?? []
        guard manifestExists else {
            let tmpExists = fm.fileExists(atPath: tmpPath)
            if dataFiles.isEmpty && !tmpExists && logBytes.isEmpty { return true }  // a new database
            var message = "manifest.json, the record of what is committed, "
                + "is missing, but the directory holds \(dataFiles.count) data file\(dataFiles.count == 1 ? "" : "s") under slice*/"
            if !logBytes.isEmpty { message += " and wal.log, the commits since the manifest was last written" }
            if tmpExists {
                message += " and manifest.json.tmp, the manifest of a commit that was being written when a process stopped"
                    + " (if it is complete, renaming it to manifest.json recovers the database as of that commit; opening"
                    + " checks its checksum)"
            }
            message += ". Nothing was changed or deleted. Restore manifest.json from a backup, or move the directory aside"
                + " to start a new database."
            throw SQLError(.ioError, message)
        }
        guard !isDirectory.boolValue, let data = Self.readBytes(manifestPath) else {
            throw SQLError(.ioError, "manifest.json in \"\(directory)\" is "
                + (isDirectory.boolValue ? "a directory" : "unreadable") + ". Nothing was changed or deleted.")
        }
        let m: Manifest
        do {
            m = try Manifest.decode(data, path: manifestPath)
        } catch let e as SQLError {
            throw SQLError(.ioError, "\(e.message). Nothing was changed or"
                + " deleted; restore manifest.json from a backup, or move the directory aside to start a new database.")
        }
        var files: [String: BlockFile] = [:]
        func file(_ name: String) -> BlockFile {
            if let f = files[name] { return f }
            let f = BlockFile(name: name, directory: directory)
            files[name] = f
            return f
        }
        // The commits recorded in the log since the manifest was written, in order.
        var entries = m.tables, views = m.views, nextID = m.nextTableID, generation = m.generation, schemas = m.schemas
        var security = m.security
        var comments = m.comments
        var functions = m.functions
        var databases = m.databases ?? [], defaultDatabase = m.defaultDatabase
        for r in CommitLog.records(logBytes, path: logPath).records where r.sequence > generation {
            guard r.sequence == generation + 1 else { break }
            let replaced = Set(r.tables.map { $0.id }).union(r.dropped)
            entries = entries.filter { !replaced.contains($0.id) } + r.tables
            if let v = r.views { views = v }
            if let s = r.schemas { schemas = s }
            if let sec = r.security { security = sec }
            if let c = r.comments { comments = c }
            if let f = r.functions { functions = f }
            if let d = r.databases { databases = d; defaultDatabase = r.defaultDatabase }
            nextID = max(nextID, r.nextTableID)
            generation = r.sequence
        }
        var referenced = Set<String>()
        var defs: [TableDef] = []
        var snapshots: [Int: TableSnapshot] = [:]
        var ids = Set<Int>(), names = Set<String>()
        for t in entries {
            // Ids key every per-table structure and names the catalog: each must be unique.
            guard t.id >= 0, ids.insert(t.id).inserted,
                  names.insert((t.database ?? "") + "." + t.schema + "." + t.name).inserted else {
                throw SQLError(.ioError, "manifest \"\(manifestPath)\" is inconsistent: table \"\(t.name)\" (id \(t.id)) is"
                    + " listed twice or has a negative id. Nothing was changed or deleted.")
            }
            let def = try t.tableDef()
            defs.append(def)
            referenced.formUnion(t.fileNames)
            identityNext[def.id] = t.identityNext
            do {
                let snap = try t.snapshot(files: file, readDeletes: { try Self.readDeletes($0, directory: directory) },
                                         validated: true)
                guard snap.slices.count == layout.sliceCount else {
                    throw SQLError(.ioError, "manifest \"\(manifestPath)\": table \(t.name) has \(snap.slices.count) slices, the cluster \(layout.sliceCount)")
                }
                snapshots[def.id] = snap
            } catch let e as SQLError {
                damaged[def.id] = DamagedTable(entry: t, error: SQLError(.ioError,
                    "table \"\(t.name)\" is damaged and cannot be used: \(e.message). Other tables are not affected;"
                    + " DROP TABLE \(t.name) removes it."))
            }
        }
        let catalog = Catalog(tables: defs, views: views.map { $0.def }, nextTableID: nextID, schemas: schemas,
                              security: security, comments: comments, functions: functions,
                              databases: databases.map { $0.saved }, defaultDatabase: defaultDatabase)
        state = DatabaseState(sequence: generation, catalog: catalog, snapshots: snapshots)
        nextTableID = catalog.nextTableID
        // Leftovers: files under slice*/ that the valid manifest does not name.
        var maxGen = generation
        for name in dataFiles {
            let f = (name as NSString).lastPathComponent
            if referenced.contains(name) {
                if let g = Self.generation(of: f) { maxGen = max(maxGen, g) }
            } else {
                unlink((directory as NSString).appendingPathComponent(name))
            }
        }
        unlink(tmpPath)
        fileGeneration = maxGen
        return false
    }

    /// Files under `slice*/` of `directory`, as `sliceN/name`.
    public static func dataFiles(in directory: String) -> [String] {
        let fm = FileManager.default
        var out: [String] = []
        for entry in (try? fm.contentsOfDirectory(atPath: directory)) ?? [] where entry.hasPrefix("slice") {
            let sub = (directory as NSString).appendingPathComponent(entry)
            for f in (try? fm.contentsOfDirectory(atPath: sub)) ?? [] { out.append(entry + "/" + f) }
        }
        return out
    }

    /// The generation in a data file name `t<table>_g<gen>.blk` / `.dbm` / `.del`.
    static func generation(of file: String) -> UInt64? {
        guard let g = file.range(of: "_g") else { return nil }
        let digits = file[g.upperBound...].prefix { $0.isNumber }
        return UInt64(digits)
    }

    private static func readDeletes(_ name: String, directory: String) throws -> DeleteSet {
        let path = (directory as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SQLError(.ioError, "deleted-row file \"\(path)\" named by the manifest is missing")
        }
        // `.del` files are format 1 (before checksums), still named by upgraded manifests.
        return try DeleteFile.decode(Array(data), path: path, legacy: name.hasSuffix(".del"))
    }

    /// A table whose files could not be read at open: its manifest entry (written back
    /// unchanged by every commit until the table is dropped) and the error it gives.
    struct DamagedTable {
        var entry: ManifestTable
        var error: SQLError
    }
}

extension TableSnapshot {
    /// Every file the snapshot's blocks and deleted-row bitmaps are in.
    public var fileNames: Set<String> {
        var out = Set<String>()
        for s in slices {
            for chain in s.columns {
                for b in chain { if case .file(let f, _, _) = b.payload { out.insert(f.name) } }
            }
            if let d = s.deleteFile { out.insert(d) }
        }
        return out
    }

    /// Every block's id (the block cache's key).
    var blockIDs: Set<UInt64> {
        var out = Set<UInt64>()
        for s in slices { for chain in s.columns { for b in chain { out.insert(b.uid) } } }
        return out
    }
}
