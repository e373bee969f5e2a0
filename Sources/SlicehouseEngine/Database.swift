import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage

/// A database: a catalog plus the data of every table, spread over a simulated
/// cluster of compute nodes and slices. One per data directory.
///
/// With a directory, the column blocks live in files under `slice<N>/` and
/// `manifest.json` names the committed catalog and blocks (see docs/STORAGE.md).
/// A statement writes new immutable block files, then replaces the manifest
/// atomically; anything a valid manifest does not name is a leftover of an interrupted
/// statement and is removed when the database is opened. Without a directory the
/// same encoded blocks are kept in memory.
public final class Database: @unchecked Sendable {
    public let cluster: ClusterConfig
    public let directory: String?
    public let catalog = Catalog()
    let layout: SliceLayout
    /// Decoded blocks shared by every query of this database.
    let cache: BlockCache
    let blockBytes: Int
    private var stores: [Int: TableStore] = [:]
    private var identityNext: [Int: [Int: Int64]] = [:]
    private let lock = Lock()
    /// Serializes commits (manifest writes and snapshot swaps).
    private let commitLock = Lock()
    private var generation: UInt64 = 0
    private var fileGeneration: UInt64 = 0
    private var lockFD: Int32 = -1
    /// Rows rejected by COPY (STL_LOAD_ERRORS), newest last.
    var loadErrors: [LoadErrorRecord] = []
    var queryCounter = 0

    /// Open (or create) a database. `directory` nil means a purely in-memory database.
    /// `cluster` is used when the database is created; an existing one keeps its own layout.
    /// A directory that another process (or another `Database` here) has open is refused.
    /// - blockBytes: target encoded size of a block (Redshift's 1 MB by default; tests use
    ///   small blocks to get many of them from little data).
    public init(directory: String? = nil, cluster: ClusterConfig = ClusterConfig(), cacheBytes: Int? = nil,
                blockBytes: Int = Distributor.defaultBlockBytes) throws {
        self.blockBytes = max(1024, blockBytes)
        guard cluster.nodes >= 1, cluster.slicesPerNode >= 1, cluster.sliceCount <= 1024 else {
            throw SQLError(.invalidParameter, "a cluster needs at least 1 node and 1 slice per node (at most 1024 slices)")
        }
        cache = BlockCache(capacityBytes: cacheBytes ?? BlockCache.defaultCapacity())
        var chosen = cluster
        self.directory = directory
        if let directory {
            let fm = FileManager.default
            let configPath = (directory as NSString).appendingPathComponent("cluster.json")
            do {
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw SQLError(.ioError, "could not open database directory \"\(directory)\": \(error.localizedDescription)")
            }
            lockFD = try Self.lockDirectory(directory)
            do {
                if let data = fm.contents(atPath: configPath) {
                    chosen = try JSONDecoder().decode(ClusterConfig.self, from: data)
                } else if fm.fileExists(atPath: (directory as NSString).appendingPathComponent(Manifest.fileName))
                            || !Self.dataFiles(in: directory).isEmpty {
                    // An existing database lost its layout: writing the default one would
                    // misplace every table's slices.
                    throw SQLError(.ioError, "cluster.json, the database's layout of nodes and slices, is missing in \"\(directory)\";"
                        + " nothing was changed. Restore it from a backup ({\"nodes\":N,\"slicesPerNode\":M} as the database was created).")
                } else {
                    try DurableFiles.replace(configPath, with: Array(try JSONEncoder().encode(cluster)))
                }
            } catch let e as SQLError {
                close(lockFD)
                throw e
            } catch {
                close(lockFD)
                throw SQLError(.ioError, "could not read \"\(configPath)\": \(error.localizedDescription)")
            }
        }
        self.cluster = chosen
        self.layout = SliceLayout(nodes: chosen.nodes, slicesPerNode: chosen.slicesPerNode)
        if let directory {
            do {
                try load(directory)
            } catch {
                close(lockFD)
                lockFD = -1
                throw error
            }
        }
    }

    deinit { if lockFD >= 0 { close(lockFD) } }

    /// Take the directory's lock file (released when the process ends or the database is freed).
    private static func lockDirectory(_ directory: String) throws -> Int32 {
        let path = (directory as NSString).appendingPathComponent("LOCK")
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw SQLError(.ioError, "could not open \"\(path)\": \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var holder = ""
            var buf = [UInt8](repeating: 0, count: 32)
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

    /// Read the committed manifest and remove leftovers of interrupted statements.
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
    private func load(_ directory: String) throws {
        let fm = FileManager.default
        let manifestPath = (directory as NSString).appendingPathComponent(Manifest.fileName)
        let tmpPath = manifestPath + ".tmp"
        var isDirectory: ObjCBool = false
        let manifestExists = fm.fileExists(atPath: manifestPath, isDirectory: &isDirectory)
        let dataFiles = Self.dataFiles(in: directory)
        guard manifestExists else {
            let tmpExists = fm.fileExists(atPath: tmpPath)
            if dataFiles.isEmpty && !tmpExists { return }  // a new database: nothing committed yet
            var message = "manifest.json, the record of what is committed, "
                + "is missing, but the directory holds \(dataFiles.count) data file\(dataFiles.count == 1 ? "" : "s") under slice*/"
            if tmpExists {
                message += " and manifest.json.tmp, the manifest of a commit that was being written when a process stopped"
                    + " (if it is complete, renaming it to manifest.json recovers the database as of that commit; opening"
                    + " checks its checksum)"
            }
            message += ". Nothing was changed or deleted. Restore manifest.json from a backup, or move the directory aside"
                + " to start a new database."
            throw SQLError(.ioError, message)
        }
        guard !isDirectory.boolValue, let data = fm.contents(atPath: manifestPath) else {
            throw SQLError(.ioError, "manifest.json in \"\(directory)\" is "
                + (isDirectory.boolValue ? "a directory" : "unreadable") + ". Nothing was changed or deleted.")
        }
        let m: Manifest
        do {
            m = try Manifest.decode(Array(data), path: manifestPath)
        } catch let e as SQLError {
            throw SQLError(.ioError, "\(e.message). Nothing was changed or"
                + " deleted; restore manifest.json from a backup, or move the directory aside to start a new database.")
        }
        generation = m.generation
        var files: [String: BlockFile] = [:]
        func file(_ name: String) -> BlockFile {
            if let f = files[name] { return f }
            let f = BlockFile(name: name, directory: directory)
            files[name] = f
            return f
        }
        var referenced = Set<String>()
        var defs: [TableDef] = []
        var ids = Set<Int>(), names = Set<String>()
        for t in m.tables {
            // Ids key every per-table structure and names the catalog: each must be unique.
            guard t.id >= 0, ids.insert(t.id).inserted,
                  names.insert(t.schema.lowercased() + "." + t.name.lowercased()).inserted else {
                throw SQLError(.ioError, "manifest \"\(manifestPath)\" is inconsistent: table \"\(t.name)\" (id \(t.id)) is"
                    + " listed twice or has a negative id. Nothing was changed or deleted.")
            }
            let def = try t.tableDef()
            defs.append(def)
            referenced.formUnion(t.fileNames)
            identityNext[def.id] = t.identityNext
            do {
                let snap = try t.snapshot(files: file, readDeletes: { try self.readDeletes($0) })
                guard snap.slices.count == layout.sliceCount else {
                    throw SQLError(.ioError, "manifest \"\(manifestPath)\": table \(t.name) has \(snap.slices.count) slices, the cluster \(layout.sliceCount)")
                }
                stores[def.id] = TableStore(layout: layout, snapshot: snap)
            } catch let e as SQLError {
                damaged[def.id] = DamagedTable(entry: t, error: SQLError(.ioError,
                    "table \"\(t.name)\" is damaged and cannot be used: \(e.message). Other tables are not affected;"
                    + " DROP TABLE \(t.name) removes it."))
            }
        }
        catalog.restore(tables: defs, views: m.views.map { $0.def }, nextID: m.nextTableID)
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
    }

    /// Files under `slice*/` of `directory`, as `sliceN/name`.
    static func dataFiles(in directory: String) -> [String] {
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

    private func readDeletes(_ name: String) throws -> DeleteSet {
        guard let directory else { return DeleteSet() }
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
    private var damaged: [Int: DamagedTable] = [:]

    /// The store of `table` for a statement that reads or changes it: the quarantine
    /// error for a damaged table, `relation does not exist` when there is none.
    func requireStore(_ table: TableDef) throws -> TableStore {
        if let s = store(table.id) { return s }
        if let d = lock.withLock({ damaged[table.id] }) { throw d.error }
        throw SQLError(.undefinedTable, "relation \"\(table.name)\" does not exist")
    }

    /// The error of a quarantined table, nil for a healthy one.
    func damage(of tableID: Int) -> SQLError? { lock.withLock { damaged[tableID]?.error } }

    /// A new session (one per connection / shell).
    public func connect() -> Session { Session(database: self) }

    // MARK: Table storage

    func store(_ tableID: Int) -> TableStore? { lock.withLock { stores[tableID] } }

    func addStore(for def: TableDef) {
        let s = TableStore(layout: layout, snapshot: .empty(layout: layout, columnCount: def.columns.count,
                                                             distStyle: def.distStyle, distKey: def.distKey))
        lock.withLock { stores[def.id] = s }
    }

    func removeStore(_ tableID: Int) {
        lock.withLock {
            stores[tableID] = nil
            identityNext[tableID] = nil
            damaged[tableID] = nil
        }
    }

    /// Where a statement writes its new blocks.
    func newSink() -> BlockSink {
        guard let directory else { return MemoryBlockSink() }
        let g = lock.withLock { fileGeneration += 1; return fileGeneration }
        return FileBlockSink(directory: directory, generation: g)
    }

    /// Write a deleted-row bitmap for `slice` of `table` (durable before the commit names it).
    func writeDeletes(_ set: DeleteSet, table: Int, slice: Int) throws -> String? {
        guard let directory else { return nil }
        let g = lock.withLock { fileGeneration += 1; return fileGeneration }
        let name = "slice\(slice)/t\(table)_g\(g).\(DeleteFile.fileExtension)"
        let dir = (directory as NSString).appendingPathComponent("slice\(slice)")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try DurableFiles.replace((directory as NSString).appendingPathComponent(name), with: try DeleteFile.encode(set))
        return name
    }

    /// Commit one statement: make `sink`'s blocks durable, write the manifest naming the
    /// catalog as it is now and every table's snapshot (with `changes` applied), then
    /// publish the changed snapshots. Readers that started earlier keep theirs.
    func commit(_ changes: [Int: TableSnapshot] = [:], sink: BlockSink? = nil) throws {
        try commitLock.withLock {
            if let directory {
                try sink?.sync()
                var tables: [ManifestTable] = []
                for def in catalog.allTables where !def.isTemporary {
                    if let d = lock.withLock({ damaged[def.id] }) {
                        tables.append(d.entry)  // kept as it was until it is dropped
                        continue
                    }
                    guard let snap = changes[def.id] ?? store(def.id)?.snapshot() else { continue }
                    tables.append(try ManifestTable(def: def, snapshot: snap,
                                                    identityNext: lock.withLock { identityNext[def.id] ?? [:] }))
                }
                let m = Manifest(generation: generation + 1, nextTableID: catalog.nextTableID, tables: tables,
                                 views: catalog.allViews.map(ManifestView.init))
                try DurableFiles.replace((directory as NSString).appendingPathComponent(Manifest.fileName), with: try m.fileBytes())
                generation += 1
            }
            for (id, snap) in changes { store(id)?.commit(snap) }
        }
    }

    /// Reserve `count` identity values for column `column` of a table.
    func reserveIdentity(table: TableDef, column: Int, count: Int) -> (first: Int64, step: Int64) {
        let spec = table.columns[column].identity ?? (seed: 1, step: 1)
        return lock.withLock {
            let next = identityNext[table.id]?[column] ?? spec.seed
            identityNext[table.id, default: [:]][column] = next &+ spec.step &* Int64(count)
            return (next, spec.step)
        }
    }

    /// Scan counters of recent queries (STL_SCAN), the last `scanLogLimit` scans kept.
    private(set) var scanLog: [(query: Int, table: Int, counters: ScanCounters)] = []
    static let scanLogLimit = 10_000

    func recordScans(query: Int, _ counters: [Int: ScanCounters]) {
        lock.withLock {
            for (t, c) in counters.sorted(by: { $0.key < $1.key }) where t >= 0 { scanLog.append((query, t, c)) }
            if scanLog.count > Self.scanLogLimit { scanLog.removeFirst(scanLog.count - Self.scanLogLimit) }
        }
    }

    func nextQueryID() -> Int { lock.withLock { queryCounter += 1; return queryCounter } }

    func recordLoadErrors(_ records: [LoadErrorRecord]) {
        lock.withLock { loadErrors.append(contentsOf: records) }
    }
}

/// One row of STL_LOAD_ERRORS.
struct LoadErrorRecord: Sendable {
    var slice: Int
    var tableID: Int
    var query: Int
    var startTime: Int64
    var filename: String
    var lineNumber: Int
    var colname: String
    var type: String
    var colLength: String
    var position: Int
    var rawLine: String
    var rawFieldValue: String
    var errCode: Int
    var errReason: String
}
