// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseRuntime
import SlicehouseWorkload
import SlicehousePlatform

/// A database: a catalog plus the data of every table, spread over a simulated
/// cluster of compute nodes and slices. One per data directory, shared by any number
/// of sessions in this process.
///
/// Persistence — the data directory, the manifest, recovery at open and the commit
/// protocol — belongs to storage's `DataStore`; every change goes through a storage
/// `Transaction` that a `Session` opens (see docs/ARCHITECTURE.md, "A transaction").
/// The database keeps what sessions share: the store, the decoded-block cache, the
/// session registry and the logs behind the system tables.
public final class Database: @unchecked Sendable {
    public let cluster: ClusterConfig
    /// The superuser every database starts with (Redshift's default admin user name);
    /// the shell, opening the directory itself, runs as this user.
    public static let superuser = "awsuser"
    /// The database every cluster starts with, and a connection's unless it names another.
    public static let defaultDatabase = Catalog.defaultDatabase
    public var directory: String? { store.directory }
    let store: DataStore
    let layout: SliceLayout
    /// Decoded blocks shared by every query of this database.
    let cache: BlockCache
    /// The rows of recent queries, for the same queries over unchanged tables (the
    /// leader's result cache).
    let resultCache: ResultCache
    /// SELECT plans kept for the next run of the same query.
    let planCache = PlanCache()
    /// Statement trees of recently sent texts.
    let parseCache = ParseCache()
    /// The memory all statements of this database draw their budgets from (`--memory`).
    public let memory: MemoryPool
    /// Where statements spill what does not fit their budget: `tmp` in the data
    /// directory (the system's temporary directory for an in-memory database).
    let spill: SpillSpace
    let blockBytes: Int
    /// Workload management: queues, slots, budgets, rules (`wlm.json` in the data
    /// directory, or `serve --wlm FILE`).
    public let workload: WorkloadManager
    /// The data directory's WLM configuration file.
    public static let wlmFileName = "wlm.json"
    private let lock = Lock()
    /// The STL logs (`syslog/` in the data directory; see `LogTable`).
    let logs: SystemLogStore
    /// The last query id given out, and the largest one reserved in the logs.
    private var queryCounter = 0
    private var reservedQueryIDs = 0
    /// Query ids are reserved in the logs this many at a time.
    static let queryIDReservation = 10_000
    private var nextProcess = 1_048_576
    /// VACUUM's lock, progress and history.
    let vacuumLog: VacuumLog
    /// Statements running and when the last one ended (the background vacuum waits for quiet).
    let activity = Activity()
    /// The background VACUUM DELETE.
    private(set) var autoVacuum: AutoVacuum?
    private var sessions: [Int: WeakSession] = [:]
    private var copyLimits: (pieceBytes: Int?, runBytes: Int?, gatherRows: Int?) = (nil, nil, nil)
    private var openedDirectories: [String] = []
    private var s3EndpointURL: String?
    private var glueEndpointURL: String?

    /// The S3 endpoint COPY and UNLOAD use (`serve --s3-endpoint`), ahead of the
    /// environment's `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`; nil: the environment's.
    public var s3Endpoint: String? {
        get { lock.withLock { s3EndpointURL } }
        set { lock.withLock { s3EndpointURL = newValue } }
    }

    /// The Glue Data Catalog endpoint external schemas use (`serve --glue-endpoint`), ahead of
    /// the environment's `AWS_ENDPOINT_URL_GLUE` / `AWS_ENDPOINT_URL`; nil: the environment's.
    public var glueEndpoint: String? {
        get { lock.withLock { glueEndpointURL } }
        set { lock.withLock { glueEndpointURL = newValue } }
    }

    /// Where the data directory's own external catalog keeps its databases (`lake/`); an
    /// in-memory database keeps them in a temporary directory of its own, removed with it.
    var lakeDirectory: String {
        if let directory { return (directory as NSString).appendingPathComponent("lake") }
        return memoryLakeDirectory
    }
    private let memoryLakeDirectory = (NSTemporaryDirectory() as NSString)
        .appendingPathComponent("slicehouse-lake-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")

    /// The directories every user may COPY from and UNLOAD to (`serve --copy-dir`; none
    /// unless set): a local stand-in for the buckets a Redshift user's IAM role reaches.
    /// Superusers and holders of `pg_read_server_files` / `pg_write_server_files` reach
    /// every path; nobody reaches the data directory (see `ServerFiles`).
    public var serverFileDirectories: [String] {
        get { lock.withLock { openedDirectories } }
        set { lock.withLock { openedDirectories = newValue } }
    }

    /// The server-file policy of this database's statements.
    var serverFiles: ServerFiles {
        ServerFiles(userDirectories: serverFileDirectories,
                    forbidden: (directory.map { [$0] } ?? []) + [spill.directory])
    }

    /// How much input a COPY parses before handing the rows on (nil: `CopyTuning`'s
    /// default), how many bytes of a sorted table's rows it sorts together at most (nil:
    /// `TableAppender.defaultRunBytes`), and in pieces of how many rows a sorted run's
    /// string columns are gathered and encoded (nil: `ReorderPlan.pieceRows`; a multiple of
    /// 4,096). Tests shrink them to get many pieces and runs.
    public var copyPieceBytes: Int? {
        get { lock.withLock { copyLimits.pieceBytes } }
        set { lock.withLock { copyLimits.pieceBytes = newValue } }
    }
    public var copyRunBytes: Int? {
        get { lock.withLock { copyLimits.runBytes } }
        set { lock.withLock { copyLimits.runBytes = newValue } }
    }
    public var copyGatherRows: Int? {
        get { lock.withLock { copyLimits.gatherRows } }
        set { lock.withLock { copyLimits.gatherRows = newValue } }
    }

    /// The most the result cache keeps (64 MB unless set; 0 turns it off for everyone).
    public var resultCacheBytes: Int {
        get { resultCache.capacityBytes }
        set { resultCache.capacityBytes = newValue }
    }

    /// Open (or create) a database. `directory` nil means a purely in-memory database.
    /// `cluster` is used when the database is created; an existing one keeps its own layout.
    /// A directory that another process (or another `Database` here) has open is refused.
    /// - blockBytes: target encoded size of a block (Redshift's 1 MB by default; tests use
    ///   small blocks to get many of them from little data).
    /// - memoryBytes: the limit on what all statements hold at once (nil: none).
    /// - logRetention: how long and how much of the STL logs are kept; `logClock` the
    ///   clock their rows are stamped with (tests move it).
    public init(directory: String? = nil, cluster: ClusterConfig = ClusterConfig(), cacheBytes: Int? = nil,
                blockBytes: Int = Distributor.defaultBlockBytes, memoryBytes: Int? = nil,
                logRetention: SystemLogStore.Retention = .standard,
                logClock: @escaping @Sendable () -> Int64 = { Clock.nowMicros() }) throws {
        self.blockBytes = max(1024, blockBytes)
        guard cluster.nodes >= 1, cluster.slicesPerNode >= 1, cluster.sliceCount <= 1024 else {
            throw SQLError(.invalidParameter, "a cluster needs at least 1 node and 1 slice per node (at most 1024 slices)")
        }
        // With a memory limit the cache takes at most a quarter of it by default, and
        // counts in the same pool as the queries (it yields to them).
        let pool = MemoryPool(limit: memoryBytes)
        memory = pool
        // An invalid wlm.json refuses the directory before anything else opens it.
        workload = WorkloadManager(pool: pool)
        if let directory {
            try workload.setConfigurationFile((directory as NSString).appendingPathComponent(Database.wlmFileName),
                                              required: false)
        }
        // Without a size of its own, the cache keeps at most half of the memory limit
        // (set now or later: `bench --memory` sets it after loading).
        cache = BlockCache(capacityBytes: cacheBytes ?? BlockCache.defaultCapacity(), pool: pool,
                           poolShare: cacheBytes == nil ? 2 : nil)
        resultCache = ResultCache(pool: pool)
        store = try DataStore(directory: directory, layout: SliceLayout(nodes: cluster.nodes, slicesPerNode: cluster.slicesPerNode))
        layout = store.layout
        store.onBlocksRetired { [cache] in cache.forget($0) }
        if cacheBytes == nil && BlockCache.environmentCapacity() == nil {
            // A default-sized cache follows what the database holds (`BlockCache.followData`).
            cache.followData { [weak store] in store?.currentDataBytes ?? 0 }
        }
        // Opened after the store, which refuses a directory another process has open.
        // In memory, each log keeps at most `memoryLogBytes`.
        var retention = logRetention
        if directory == nil && retention.maxBytes > Self.memoryLogBytes {
            retention = SystemLogStore.Retention(maxAgeMicros: retention.maxAgeMicros, maxBytes: Self.memoryLogBytes,
                                                 segmentBytes: retention.segmentBytes)
        }
        logs = SystemLogStore(directory: directory.map { ($0 as NSString).appendingPathComponent(Database.logDirectoryName) },
                              retention: retention, writeBehindMicros: directory == nil ? 0 : Self.logWriteBehindMicros,
                              now: logClock)
        queryCounter = logs.reserved(.query)
        reservedQueryIDs = queryCounter
        store.reserveTransactionIDs(after: logs.reserved(.transaction)) { [logs] in logs.reserve(.transaction, through: $0) }
        vacuumLog = VacuumLog(logs: logs)
        workload.setRecorder(WLMLog(logs: logs))
        if let directory {
            spill = SpillSpace(directory: (directory as NSString).appendingPathComponent("tmp"))
        } else {
            spill = .temporary
        }
        self.cluster = ClusterConfig(nodes: layout.nodes, slicesPerNode: layout.slicesPerNode)
        autoVacuum = AutoVacuum(vacuumer: Vacuumer(store: store, cache: cache, blockBytes: self.blockBytes, log: vacuumLog),
                                activity: activity)
    }

    deinit {
        autoVacuum?.stop()
        logs.flush()
        if directory == nil { try? FileManager.default.removeItem(atPath: memoryLakeDirectory) }
    }

    /// A size as `--memory` takes it (`4GB`, `512MB`, bytes), or nil.
    public static func parseMemorySize(_ text: String) -> Int? { MemoryPool.parseSize(text) }

    /// Use the `wlm_json_configuration` document `json` (embedding and tests; a server
    /// reads a file). Throws Redshift-style errors for an invalid document.
    public func configureWLM(_ json: String) throws {
        workload.configuration = try WLMConfiguration.parse(json)
    }

    /// Re-read the WLM configuration file if it changed (`serve` on SIGHUP; admission
    /// checks it too). An invalid new version is reported and the running one stays.
    public func reloadWLMConfiguration() { workload.reloadIfChanged() }

    /// Take the WLM configuration from `path` (`serve --wlm`) instead of the data
    /// directory's wlm.json; it is re-read whenever the file changes. Throws when the
    /// file is missing or invalid.
    public func useWLMConfigurationFile(_ path: String) throws {
        try workload.setConfigurationFile(path, required: true)
    }

    /// A new session (one per connection / shell).
    public func connect() -> Session { open(Catalog.defaultDatabase) }

    /// A new session connected to database `name` of the cluster (a client's startup
    /// `database`, the shell's `-d`): `database "x" does not exist` (3D000) when there is
    /// none, and Redshift's refusal when its CONNECTION LIMIT is reached.
    public func connect(to name: String) throws -> Session {
        guard let def = store.current.catalog.databaseDef(name) else {
            throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist")
        }
        if let limit = def.connectionLimit, openSessions.filter({ $0.connectedDatabase == name }).count >= limit {
            throw SQLError(.tooManyConnections, "too many connections for database \"\(name)\"")
        }
        return open(name)
    }

    private func open(_ name: String) -> Session {
        lock.withLock { () -> Session in
            nextProcess += 1
            let s = Session(database: self, process: nextProcess, connectedTo: name)
            sessions[s.process] = WeakSession(session: s)
            return s
        }
    }

    /// The open session with process id `process` (`pg_cancel_backend`, CancelRequest).
    public func session(process: Int) -> Session? { lock.withLock { sessions[process]?.session } }

    func disconnect(_ process: Int) { lock.withLock { sessions[process] = nil } }

    /// Every open session (STV_SESSIONS).
    var openSessions: [Session] { lock.withLock { sessions.values.compactMap { $0.session }.sorted { $0.process < $1.process } } }

    /// A user as the latest committed catalog has it (logins).
    public func user(named name: String) -> UserDef? { store.current.catalog.security.user(name) }

    /// How many sessions `user` has logged in (CONNECTION LIMIT).
    public func sessionCount(user: String) -> Int { openSessions.filter { $0.sessionUser == user }.count }

    /// Make sure the superuser a server was started as exists (a database starts with
    /// `awsuser`; `serve -U name` names another).
    /// With `password`, it becomes the superuser's (unless it already is).
    public func ensureSuperuser(_ name: String, password: PasswordCredential? = nil) throws {
        let name = name.lowercased()
        if let u = user(named: name) {
            guard u.superuser else {
                throw SQLError(.invalidParameter, "user \"\(name)\" exists and is not a superuser")
            }
            if password == nil || u.password?.md5 == password?.md5 { return }
        }
        let t = store.begin(process: 0, cancellation: .none)   // at start-up, before any statement
        do {
            try t.changeSecurity(SecurityChange { sec in
                if var u = sec.user(name) {
                    u.password = password
                    sec.replaceUser(u)
                } else {
                    try sec.createUser(UserDef(id: 0, name: name, superuser: true, createDB: true, password: password))
                }
            })
            try t.commit()
        } catch {
            t.rollback()
            throw error
        }
    }

    /// The latest committed catalog (tools and tests; statements use their transaction's).
    public var committedCatalog: Catalog { store.currentCatalog }

    /// The data directory's STL logs.
    public static let logDirectoryName = "syslog"
    /// The most bytes one log of an in-memory database keeps.
    static let memoryLogBytes = 8 << 20
    /// How long a data directory's system-log rows may wait in memory before they are
    /// written together (`SystemLogStore.writeBehindMicros`).
    static let logWriteBehindMicros: Int64 = 200_000

    /// Log what a query scanned (STL_SCAN).
    func recordScans(query: Int, _ counters: [Int: ScanCounters]) {
        log(.scan, counters.sorted(by: { $0.key < $1.key }).filter { $0.key >= 0 }.map { t, c -> [Value] in
            [.int(Int64(query)), .int(Int64(t)), .int(Int64(c.rowsRead)), .bool(c.blocksSkipped > 0),
             .int(Int64(c.blocksRead)), .int(Int64(c.blocksSkipped)), .bool(c.runtimeFiltering),
             .int(Int64(c.rowsRuntimeFiltered))]
        })
    }

    /// Log what each step of a query did on each slice (SVL_QUERY_SUMMARY, SVL_QUERY_REPORT).
    func recordSteps(_ q: QuerySteps) {
        // Many rows a query: encoded straight into frames.
        var frames = LogFrames(time: logs.currentTime)
        for r in q.steps {
            let m = r.metrics
            frames.begin()
            frames.int(q.query); frames.int(q.userID); frames.int(q.start); frames.int(q.end); frames.int(r.stage)
            frames.int(r.step); frames.string(r.label); frames.int(r.slice); frames.int(m.rows); frames.int(m.bytes)
            frames.int(Int64(clamping: m.nanos)); frames.int(m.peakMemory); frames.int(m.spilledBytes)
            frames.int(m.rowsPreFilter); frames.int(m.blocksSkipped)
            frames.end()
        }
        logs.append(LogTable.steps.name, frames)
    }

    /// The steps of the logged queries, oldest first.
    var stepLog: [QuerySteps] {
        var out: [QuerySteps] = []
        for r in logRows(.steps) {
            guard let query = r[0].asInt64, let stage = r[4].asInt64, let step = r[5].asInt64,
                  case .string(let label) = r[6], let slice = r[7].asInt64 else { continue }
            func int(_ i: Int) -> Int { Int(r[i].asInt64 ?? 0) }
            let record = StepRecord(stage: Int(stage), step: Int(step), label: label, slice: Int(slice),
                                    metrics: StepMetrics(rows: int(8), bytes: int(9), nanos: UInt64(max(0, int(10))),
                                                         peakMemory: int(11), spilledBytes: int(12),
                                                         rowsPreFilter: int(13), blocksSkipped: int(14)))
            if out.last?.query == Int(query) {
                out[out.count - 1].steps.append(record)
            } else {
                out.append(QuerySteps(query: Int(query), userID: int(1), start: r[2].asInt64 ?? 0, end: r[3].asInt64 ?? 0,
                                      steps: [record]))
            }
        }
        return out
    }

    /// A new query id: `reserved` (the id WLM admitted the statement under, its first
    /// query's) when there is one.
    func nextQueryID(reserved: Int?) -> Int {
        // What this query decodes again after an earlier one is worth caching.
        cache.beginStatement()
        if let reserved { return reserved }
        return allocateQueryID()
    }

    /// The runtime context of a statement about to run: no budget until WLM admits it (its
    /// slot's memory then), drawing on the process's memory pool, spilling into the
    /// database's spill space.
    func newStatementContext(cancellation: Cancellation) -> QueryContext {
        QueryContext(cancellation: cancellation, memory: QueryMemory(budget: nil, pool: memory), spill: spill)
    }

    /// A query id never given out before, in this process or an earlier one on the directory.
    func allocateQueryID() -> Int {
        let (id, reserve) = lock.withLock { () -> (Int, Int?) in
            queryCounter += 1
            guard queryCounter > reservedQueryIDs else { return (queryCounter, nil) }
            reservedQueryIDs = queryCounter + Self.queryIDReservation
            return (queryCounter, reservedQueryIDs)
        }
        if let reserve { logs.reserve(.query, through: reserve) }
        return id
    }
}

private struct WeakSession {
    weak var session: Session?
}

/// One query's steps as the runtime measured them.
struct QuerySteps: Sendable {
    var query: Int
    var userID: Int
    /// When the query started and ended (TIMESTAMP values: µs since 1970-01-01 UTC).
    var start: Int64
    var end: Int64
    var steps: [StepRecord]
}
