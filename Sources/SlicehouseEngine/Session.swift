// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution
import SlicehousePlatform

/// A session runs statements one after another, each inside a storage `Transaction`:
/// the open `BEGIN ... COMMIT` block's, or — in autocommit — one of its own that commits
/// when the statement succeeds and rolls back when it fails. A statement that fails
/// inside a block puts the block into the aborted state, as in Redshift and PostgreSQL:
/// every statement but COMMIT / ROLLBACK is refused until the block ends, and the block
/// then rolls back.
///
/// The session holds state — settings, the transaction, the user, the temporary schema,
/// the running statement — and dispatches: `run` makes the statement's `QueryContext` and
/// takes it through WLM and its transaction, and `perform` hands it to the command that
/// runs it (`Commands/`: a query to `QueryRunner`, COPY to `CopyCommand`, ...).
public final class Session: @unchecked Sendable {
    public let database: Database
    /// The database of the cluster the session connected to (`current_database()`), and
    /// the one `USE` chose since (nil: none); see Session+Databases.swift.
    public let connectedDatabase: String
    var usedDatabase: String? {
        get { runningLock.withLock { usedDatabaseName } }
        set { runningLock.withLock { usedDatabaseName = newValue } }
    }
    /// Read by other sessions (DROP DATABASE, STV_SESSIONS): under `runningLock`.
    private var usedDatabaseName: String?
    /// The session's process id (`pg_backend_pid()`, STV_SESSIONS, STV_LOCKS).
    public let process: Int
    let startTime = Int64(Date().timeIntervalSince1970 * 1_000_000)
    /// SET parameters (lower-case names).
    var settings: [String: String] = Session.defaultSettings {
        didSet { resultCacheSettingsMemo = nil }
    }
    /// `resultCacheSettings` as last computed (nil: the settings changed since).
    var resultCacheSettingsMemo: String?
    /// What the open transaction block undoes or restores of `settings` (Session+Settings).
    var settingsBlock = SettingsBlock()
    static let defaultSettings: [String: String] = ["datestyle": "ISO, MDY", "search_path": "$user, public",
                                                    "query_group": "unset", "timezone": "UTC"]
    var lastCopyCount = 0
    var lastCopyID = -1
    var lastQueryID = -1
    /// The id the running statement runs as (its first query's), once it has one.
    var statementQueryID: Int?
    /// Bytes the last query wrote to spill files (0 when it fit in memory).
    public internal(set) var lastSpilledBytes = 0
    /// Told how far each COPY this session runs has got, a few times a second (from the
    /// load's worker threads; calls do not overlap; a COPY that takes less than a quarter
    /// second reports nothing). The shell sets it around a statement to draw its progress
    /// line. (It was a task-local once; pushing a task-local from synchronous code
    /// crashed release builds, so it is plain session state.)
    public var copyProgress: (@Sendable (CopyProgress) -> Void)?

    /// The transaction of the running statement (the block's inside BEGIN ... COMMIT).
    private(set) var transaction: Transaction
    /// The transaction a statement of this session is running in, or its open block
    /// (SVV_TRANSACTIONS); nil between autocommit statements.
    var openTransaction: Transaction? {
        let t = transaction
        return t.isFinished ? nil : t
    }

    /// Inside BEGIN ... COMMIT.
    public private(set) var inTransactionBlock = false
    /// A statement failed inside the block: only COMMIT / ROLLBACK are accepted.
    public private(set) var transactionFailed = false
    /// The block is the implicit one of a multi-statement Query (`implicitTransaction`).
    private var implicitBlock = false

    /// Run `body` — the statements of one simple-protocol Query holding several — as one
    /// implicit transaction, as PostgreSQL and Redshift do: they commit together at the end,
    /// and if one fails, those before it roll back. A BEGIN among them makes the block an
    /// explicit one that outlives the message; COMMIT or ROLLBACK among them ends it.
    /// Inside an open block it just runs `body`.
    public func implicitTransaction<T>(_ body: () throws -> T) throws -> T {
        if inTransactionBlock { return try body() }
        // Each statement in it gives the block its own cancellation (`beginStatement`).
        transaction = beginTransaction(.none)
        inTransactionBlock = true
        transactionFailed = false
        implicitBlock = true
        settingsBlock.began(settings)
        let result: T
        do {
            result = try body()
        } catch {
            if implicitBlock {
                implicitBlock = false
                inTransactionBlock = false
                transactionFailed = false
                transaction.rollback()
                settingsBlock.ended(committed: false, &settings)
            }
            throw error
        }
        if implicitBlock {
            implicitBlock = false
            inTransactionBlock = false
            if transactionFailed {
                transactionFailed = false
                transaction.rollback()
                settingsBlock.ended(committed: false, &settings)
            } else {
                try commitBlock()
            }
        }
        return result
    }

    /// Who the session runs as (`current_user`): the user who logged in, or the one
    /// `SET SESSION AUTHORIZATION` names.
    public internal(set) var user = Database.superuser
    /// Who logged in (`session_user`).
    public private(set) var sessionUser = Database.superuser

    /// The user a server authenticated: `session_user` and `current_user`.
    public func authenticate(as name: String) {
        sessionUser = name
        user = name
        applyUserSettings()
    }

    /// The running statement's cancellation (nil between statements), and whether the
    /// session was terminated (`pg_terminate_backend`): its connection is to close.
    private let runningLock = Lock()
    private var running: Cancellation?
    /// The running statement's way through WLM (Session+Workload.swift).
    var workloadStatement: WorkloadStatement?
    private var terminated = false
    /// The statement running now, for STV_INFLIGHT and STV_RECENTS (other sessions read it).
    private var current: RunningStatement?
    /// The steps of the query running now, as its pipelines report them (STV_EXEC_STATE).
    private var runningSteps: QueryMetrics?

    /// Show `steps` (the running query's executor's) in STV_EXEC_STATE, or nothing (nil).
    func setRunningSteps(_ steps: QueryMetrics?) { runningLock.withLock { runningSteps = steps } }

    /// What the running query's steps have done so far, or nil between queries.
    var runningStepRecords: [StepRecord]? { runningLock.withLock { runningSteps }?.steps }

    init(database: Database, process: Int, connectedTo name: String = Catalog.defaultDatabase) {
        self.database = database
        self.process = process
        connectedDatabase = name
        transaction = database.store.begin(process: process, cancellation: .none)
        transaction.rollback()
        applyUserSettings()
    }

    /// The client is gone: roll back an open transaction block (its locks go with it).
    public func close() {
        inTransactionBlock = false
        transactionFailed = false
        transaction.rollback()
        settingsBlock.ended(committed: false, &settings)
        dropTemporaryTables()
    }

    deinit {
        transaction.rollback()
        dropTemporaryTables()
        database.disconnect(process)
    }

    /// Parse and run every statement in `sql`, in order. Throws at the first
    /// failing statement (statements before it have run; outside a transaction
    /// block they are committed).
    /// The work runs on a thread with a large stack (`LargeStack`), so that a legal but
    /// deep statement tree never overflows the caller's stack.
    public func execute(_ sql: String) throws -> [StatementResult] {
        try LargeStack.run {
            var script = try ScriptStatements(sql, session: self)
            var results: [StatementResult] = []
            while let s = try script.next(self) { results.append(try run(s.statement, text: s.text)) }
            return results
        }
    }

    /// Run one parsed statement in its transaction, and log it (STL_QUERY, STL_DDLTEXT,
    /// STL_UTILITYTEXT, ...) whether it succeeds or fails.
    func run(_ statement: Statement, text: String, sink: RowSink? = nil) throws -> StatementResult {
        if case .prepared(.execute(let name, let arguments)) = statement {
            // EXECUTE runs (and is logged as) the prepared statement with its arguments.
            let inner = try PreparedSQLCommand(session: self).statement(name, arguments)
            return try withParameters(inner.parameters) { try run(inner.statement, text: inner.text, sink: sink) }
        }
        let start = Clock.nowMicros()
        // What is kept or shown of the text (the logs, STV_RECENTS, STV_INFLIGHT) never
        // holds a password or credentials.
        let text = SecretMasking.mask(text)
        let kind = StatementKind(statement)
        // A query has its id from the start (WLM admits it under this id): STV_INFLIGHT
        // shows it, and STL_QUERY logs it, failed or not.
        statementQueryID = kind == .query ? database.allocateQueryID() : nil
        let group = settings["query_group"].flatMap { $0 == "unset" ? nil : $0 }
        runningLock.withLock {
            current = RunningStatement(text: text, start: start, kind: kind, query: statementQueryID, label: group)
        }
        defer { runningLock.withLock { current = nil } }
        do {
            let result = try runStatement(statement, sink: sink)
            logStatement(kind, text: text, label: group, start: start, error: nil)
            if !inTransactionBlock && MaterializedViews.mayChangeTables(statement) { MaterializedViews(self).autoRefreshMaterializedViews() }
            return result
        } catch {
            logStatement(kind, text: text, label: group, start: start, error: error)
            throw error
        }
    }

    /// What a statement running in a session is (STV_INFLIGHT, STV_RECENTS).
    struct RunningStatement: Sendable {
        var text: String
        var start: Int64
        var kind: StatementKind
        /// Its query id once it has one.
        var query: Int?
        /// The query group it runs under, if any.
        var label: String?
        var xid = 0
    }

    /// The statement this session is running, or nil.
    var runningStatement: RunningStatement? {
        runningLock.withLock { current }
    }

    /// A new query id for the running statement (the first is the one it is logged as,
    /// the one WLM admitted it under when it was: `context` holds that one).
    func newQueryID(_ context: QueryContext) -> Int {
        let id = database.nextQueryID(reserved: context.takeQueryID())
        if statementQueryID == nil {
            statementQueryID = id
            runningLock.withLock { current?.query = id }
        }
        return id
    }

    /// The session user's id (1, the first superuser's, when the user is gone).
    /// Asked for every statement's log rows: kept for the committed catalog's revision (a
    /// new user, a dropped one or any other catalog change asks the catalog again).
    var currentUserID: Int {
        let revision = database.store.currentCatalogRevision
        if let m = userIDMemo, m.revision == revision, m.user == user { return m.id }
        let id = database.committedCatalog.security.user(user)?.id ?? 1
        userIDMemo = (revision, user, id)
        return id
    }
    private var userIDMemo: (revision: UInt64, user: String, id: Int)?

    private func logStatement(_ kind: StatementKind, text: String, label: String?, start: Int64, error: Error?) {
        let sqlError = error as? SQLError
        if let e = sqlError, e.code == .internalError || e.code == .ioError {
            database.logError(e, text: text, userID: currentUserID, process: process)
        }
        let query = statementQueryID
        // The id of a query that succeeded is pg_last_query_id()'s.
        if kind == .query && error == nil, let query { lastQueryID = query }
        database.logStatement(kind, text: text, query: query, userID: currentUserID, xid: transaction.id,
                              process: process, database: databaseName, label: label, start: start, end: Clock.nowMicros(),
                              failed: error != nil)
    }

    private func runStatement(_ statement: Statement, sink: RowSink?) throws -> StatementResult {
        let cancellation = Cancellation(timeoutMilliseconds: statementTimeout)
        let workload = WorkloadAdmission(self).beginWorkload(statement, cancellation: cancellation)
        let context = workload.context
        let wasTerminated = runningLock.withLock { () -> Bool in
            running = cancellation
            return terminated
        }
        if wasTerminated { cancellation.cancel(Cancellation.terminated) }
        database.activity.begin()
        rowSink = WorkloadAdmission(self).workloadSink(sink, workload)
        workloadStatement = workload
        defer {
            rowSink = nil
            workloadStatement = nil
            database.activity.end()
            runningLock.withLock { running = nil }
            // A load or a query that held a lot leaves its freed pages in the allocator's
            // arenas: give them back, so the process's size follows what it holds.
            if case .copy = statement {
                SystemMemory.releaseFreePages()
            } else if context.memory.peakBytes >= SystemMemory.releaseAfterBytes {
                SystemMemory.releaseFreePages()
            }
        }
        pendingNotices = []
        try cancellation.check()
        var result: StatementResult
        do {
            result = try WorkloadAdmission(self).runWorkload(workload) { try runInTransaction(statement, context) }
        } catch var e as SQLError where !pendingNotices.isEmpty {
            // Notices raised before the error (a procedure's RAISE INFO) go out before it.
            e.notices = pendingNotices + e.notices
            throw e
        }
        result.timeZone = displayTimeZone
        if !pendingNotices.isEmpty { result.notices = pendingNotices + result.notices }
        if let sink, result.returnsRows, !result.streamed {
            try sink.start(result.columns)
            for c in result.chunks where c.count > 0 { try sink.rows(c.compacted()) }
            result.chunks = []
            result.streamed = true
        }
        return result
    }

    /// Run one statement of a client's (already parsed, parameters substituted), its
    /// rows handed to `sink` as they are produced (`StatementResult.chunks` stays empty
    /// then). On a thread with a large stack, as `execute`.
    public func run(_ statement: ParsedStatement, sink: RowSink?) throws -> StatementResult {
        try LargeStack.run {
            try withParameters(statement.parameters) { try run(statement.statement, text: statement.text, sink: sink) }
        }
    }

    /// The values bound to the running client statement's `$n` (nil: none); the binder
    /// reads them through `StatementContext.statementParameters()`.
    private(set) var statementParameters: [ParameterValue]?

    /// The plan cache key a short statement was found under (`ShortStatements`), taken by
    /// its SELECT's plan lookup instead of hashing the query's tree a second time.
    var shortStatementKey: PlanCache.Hashed?

    func withParameters<T>(_ parameters: [ParameterValue]?, _ body: () throws -> T) rethrows -> T {
        let outer = statementParameters
        statementParameters = parameters
        defer { statementParameters = outer }
        return try body()
    }

    /// The columns `statement` returns, without running it (the extended protocol's
    /// Describe), or nil when it returns no rows.
    public func describe(_ statement: ParsedStatement) throws -> [ResultColumn]? {
        try LargeStack.run {
            try withParameters(statement.parameters) { try describeColumns(statement) }
        }
    }

    private func describeColumns(_ statement: ParsedStatement) throws -> [ResultColumn]? {
        switch statement.statement {
        case .query(let q):
            // Bound outside any statement (as PostgreSQL analyses at Parse): nothing is
            // planned, admitted or run; the columns are the bound query's.
            let ctx = StatementContext(database: database, session: self)
            let (_, logical) = try QueryRunner.bind(q, session: self, scope: ctx)
            return logical.outputs.map { ResultColumn(name: $0.name, type: $0.type) }
        case .explain:
            return [ResultColumn(name: "QUERY PLAN", type: .text)]
        case .procedure(.call(let c)):
            return try ProcedureCommand(session: self).callColumns(c)
        case .procedure(.show):
            return [ResultColumn(name: "Stored Procedure Definition", type: .text)]
        case .show(let name):
            if name == "all" { return [ResultColumn(name: "name", type: .text), ResultColumn(name: "setting", type: .text)] }
            return [ResultColumn(name: name, type: .text)]
        default:
            return nil
        }
    }

    /// Stop the statement this session is running, if any, with `error` (CancelRequest,
    /// `pg_cancel_backend`, Ctrl-C). Between statements it does nothing, as in PostgreSQL.
    public func cancel(_ error: SQLError = Cancellation.userRequest) {
        runningLock.withLock { running }?.cancel(error)
    }

    /// End the session (`pg_terminate_backend`): the running statement stops, and the
    /// connection should close (`isTerminated`).
    public func terminate() {
        let r = runningLock.withLock { () -> Cancellation? in
            terminated = true
            return running
        }
        r?.cancel(Cancellation.terminated)
    }

    public var isTerminated: Bool { runningLock.withLock { terminated } }

    /// Whether a statement is running now.
    public var isRunning: Bool { runningLock.withLock { running != nil } }

    /// Why the running statement must stop (cancelled, timed out, terminated), or nil.
    /// A server's row writer waiting for a slow client checks it.
    public var runningStatementError: SQLError? { runningLock.withLock { running }?.error }

    /// Parse a client's SQL into statements (`$n` left as parameters).
    public func parse(_ sql: String) throws -> [ParsedStatement] {
        try LargeStack.run { try database.parseCache.parse(sql, options: parseOptions) }
    }

    /// Parse a client's SQL into statements run one after another (`ScriptStatements`).
    public func script(_ sql: String) throws -> ScriptStatements {
        try LargeStack.run { try ScriptStatements(sql, session: self) }
    }

    /// Parse a client's SQL with `$n` replaced by bound values.
    public func parse(_ sql: String, parameters: [ParameterValue]) throws -> [ParsedStatement] {
        try LargeStack.run { try parseScript(sql, parameters: parameters, options: parseOptions) }
    }

    /// Where the session stands, as ReadyForQuery reports it: idle, in a transaction
    /// block, or in a failed block.
    public var transactionStatus: TransactionStatus {
        if !inTransactionBlock { return .idle }
        return transactionFailed ? .failed : .inBlock
    }

    public enum TransactionStatus: Sendable { case idle, inBlock, failed }

    /// Where the running query's rows go when a client streams them.
    var rowSink: RowSink?
    /// pg_attribute and friends are binding views' queries to find their columns (a view
    /// that reads them does not recurse).
    var findingViewColumns = false
    /// Warnings raised while the statement was planned, put before its own notices.
    var pendingNotices: [String] = []
    /// An AUTO REFRESH of materialized views is running (it does not start another).
    var autoRefreshing = false
    /// The key advisor is replaying the log (a logged call of the advisor is not replayed).
    var advising = false
    /// Stored procedure calls running now (a CALL in a procedure nests).
    var procedureDepth = 0
    /// Parsed procedure bodies by their text (a procedure is parsed once per session).
    var procedureBodies: [String: PLBlock] = [:]
    /// The session has made a temporary table (its names may mean its own tables: its
    /// queries' plans are kept apart from other sessions', `PlanCache.Key`).
    var madeTemporaryTables = false
    /// Statements prepared with SQL's PREPARE.
    let preparedSQL = PreparedSQLStatements()

    private func runInTransaction(_ statement: Statement, _ context: QueryContext) throws -> StatementResult {
        switch statement {
        case .begin:
            if inTransactionBlock && implicitBlock {
                implicitBlock = false   // the Query's implicit block becomes an explicit one
                return StatementResult(tag: "BEGIN")
            }
            if inTransactionBlock {
                return StatementResult(tag: "BEGIN", notices: ["WARNING:  there is already a transaction in progress"])
            }
            transaction = beginTransaction(context.cancellation)
            inTransactionBlock = true
            transactionFailed = false
            settingsBlock.began(settings)
            return StatementResult(tag: "BEGIN")
        case .commit:
            guard inTransactionBlock else {
                return StatementResult(tag: "COMMIT", notices: ["WARNING:  there is no transaction in progress"])
            }
            inTransactionBlock = false
            implicitBlock = false
            if transactionFailed {
                transactionFailed = false
                transaction.rollback()
                settingsBlock.ended(committed: false, &settings)
                return StatementResult(tag: "ROLLBACK")
            }
            try commitBlock()
            return StatementResult(tag: "COMMIT")
        case .rollback:
            guard inTransactionBlock else {
                return StatementResult(tag: "ROLLBACK", notices: ["WARNING:  there is no transaction in progress"])
            }
            inTransactionBlock = false
            implicitBlock = false
            transactionFailed = false
            transaction.rollback()
            settingsBlock.ended(committed: false, &settings)
            return StatementResult(tag: "ROLLBACK")
        default:
            break
        }
        if inTransactionBlock {
            if transactionFailed {
                throw SQLError(.inFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
            }
            switch statement {
            case .vacuum:
                throw SQLError(.activeTransaction, "VACUUM cannot run inside a transaction block")
            case .database(.create):
                throw SQLError(.activeTransaction, "CREATE DATABASE cannot run inside a transaction block")
            case .database(.drop):
                throw SQLError(.activeTransaction, "DROP DATABASE cannot run inside a transaction block")
            case .truncate:
                // TRUNCATE commits the open transaction block (Redshift), then runs on its own.
                inTransactionBlock = false
                implicitBlock = false
                try commitBlock()
            default:
                do {
                    return try perform(statement, context)
                } catch {
                    transactionFailed = true
                    noteConflict(error)
                    throw error
                }
            }
        }
        transaction = beginTransaction(context.cancellation)
        let result: StatementResult
        do {
            try DMLCommand(session: self, context: context).lockTargetBeforeSnapshot(statement)
            result = try perform(statement, context)
        } catch {
            noteConflict(error)
            transaction.rollback()
            throw error
        }
        try commitOrRollback()
        return result
    }

    /// A serializable isolation violation (error 1023) goes to STL_TR_CONFLICT.
    private func noteConflict(_ error: Error) {
        guard let e = error as? SQLError, e.code == .serializationFailure else { return }
        database.logConflict(e, xid: transaction.id, process: process, transactionStart: transaction.startTime)
    }

    /// Run `body` in a transaction of its own, committed at its end (rolled back when it
    /// throws). Outside a transaction block only.
    func inOwnTransaction<T>(_ context: QueryContext, _ body: () throws -> T) throws -> T {
        transaction = beginTransaction(context.cancellation)
        do {
            let result = try body()
            try commitOrRollback()
            return result
        } catch {
            transaction.rollback()
            throw error
        }
    }

    /// A stored procedure's COMMIT / ROLLBACK (or TRUNCATE) outside a transaction block:
    /// end the CALL's transaction and begin the one the rest of the procedure runs in.
    func restartProcedureTransaction(commit: Bool, _ context: QueryContext) throws {
        if commit {
            try commitOrRollback()
        } else {
            transaction.rollback()
        }
        transaction = beginTransaction(context.cancellation)
    }

    /// Commit the transaction block that just ended (its settings with it: SET LOCAL
    /// values give way); if the commit fails, nothing of the block is kept.
    private func commitBlock() throws {
        do {
            try commitOrRollback()
        } catch {
            settingsBlock.ended(committed: false, &settings)
            throw error
        }
        settingsBlock.ended(committed: true, &settings)
    }

    /// Commit the current transaction; if that fails, nothing of it is kept.
    private func commitOrRollback() throws {
        let start = Clock.nowMicros()
        let wrote = transaction.hasWrites
        do {
            try transaction.commit()
        } catch {
            noteConflict(error)
            transaction.rollback()
            throw error
        }
        if wrote { database.logCommit(xid: transaction.id, start: start, end: Clock.nowMicros()) }
    }

    /// A table of the running statement's transaction (`relation ... does not exist`
    /// located at `location` when there is none), with its lock taken for a change.
    func lockedTable(_ name: ObjectName, location: SourceLocation? = nil, toChange: Bool = true) throws -> TableDef {
        guard let def = try resolveTable(name) else {
            if case .system = try lookup(name, in: transaction.catalog) {
                throw SQLError(.featureNotSupported, "cannot modify system table \"\(name.name)\"")
            }
            throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist",
                           line: location?.line, column: location?.column)
        }
        if toChange && def.materializedView != nil {
            // Its rows are its query's: REFRESH MATERIALIZED VIEW changes them.
            throw SQLError(.wrongObjectType, "cannot change materialized view \"\(def.name)\": its rows come from its query",
                           hint: "Use REFRESH MATERIALIZED VIEW.")
        }
        return try transaction.lockTable(def.qualifiedName)
    }

    /// `LOCK t, ...`: the tables' locks taken now, held to the end of the transaction.
    func lock(_ names: [ObjectName]) throws -> StatementResult {
        for n in names {
            let def = try lockedTable(n, toChange: false)
            if !Privilege.table.contains(where: { security.has(user, $0, on: .table(def.id)) }) {
                throw AccessControl.permissionDenied("relation \(def.name)")
            }
        }
        return StatementResult(tag: "LOCK TABLE")
    }

    /// Run one statement (not BEGIN / COMMIT / ROLLBACK) in `transaction`, as `context`'s
    /// work (the statement's runtime context: its budget, cancellation and WLM slot).
    func perform(_ statement: Statement, _ context: QueryContext) throws -> StatementResult {
        transaction.beginStatement(cancellation: context.cancellation)
        let xid = transaction.id
        runningLock.withLock { current?.xid = xid }
        switch statement {
        case .query(let q):
            let ctx = StatementContext(database: database, session: self)
            return try QueryRunner(self, ctx, context).select(q, sink: rowSink)
        case .explain(let e):
            return try ExplainCommand(session: self, context: context).run(e)
        case .createTable(let c):
            return try DDLCommand(session: self, context: context).createTable(c)
        case .dropTable(let d):
            return try DDLCommand(session: self, context: context).dropTables(d)
        case .insert(let i):
            return try DMLCommand(session: self, context: context).insert(i)
        case .copy(let c):
            return try CopyCommand(session: self, context: context).run(c)
        case .truncate(let name):
            return try DDLCommand(session: self, context: context).truncate(name)
        case .set(let set):
            return try self.set(set)
        case .reset(let name):
            return reset(name)
        case .show(let name):
            return try show(name)
        case .begin, .commit, .rollback:
            throw SQLError.internalError("transaction control reached perform")
        case .createView(let v):
            return try DDLCommand(session: self, context: context).createView(v)
        case .dropView(let d):
            return try DDLCommand(session: self, context: context).dropViews(d)
        case .update(let u):
            return try DMLCommand(session: self, context: context).update(u)
        case .delete(let d):
            return try DMLCommand(session: self, context: context).delete(d)
        case .merge(let m):
            return try DMLCommand(session: self, context: context).merge(m)
        case .comment(let c):
            return try CommentCommand(session: self).run(c)
        case .createFunction(let f):
            return try FunctionCommand(session: self).createFunction(f)
        case .dropFunction(let d):
            return try FunctionCommand(session: self).dropFunction(d)
        case .procedure(let p):
            return try ProcedureCommand(session: self).run(p, context)
        case .unload(let u):
            return try UnloadCommand(session: self, context: context).run(u)
        case .vacuum(let v):
            return try VacuumCommand(session: self, context: context).run(v)
        case .analyze(let a):
            return try AnalyzeCommand(session: self, context: context).run(a)
        case .createSchema, .dropSchema, .alterSchema, .alterTable:
            return try DDLCommand(session: self, context: context).schemaStatement(statement)
        case .lock(let names):
            return try lock(names)
        case .security(let s):
            return try SecurityCommand(session: self).run(s)
        case .refreshMaterializedView(let r):
            return try MaterializedViewRefresh(session: self, context: context).run(r)
        case .prepared(.prepare(let name, let types, let text)):
            return try PreparedSQLCommand(session: self).prepare(name, types, text)
        case .prepared(.deallocate(let name)):
            return try PreparedSQLCommand(session: self).deallocate(name)
        case .prepared(.execute):
            throw SQLError.internalError("EXECUTE reached perform")
        case .database(let d):
            return try DatabaseCommand(session: self).run(d)
        case .external(let e):
            return try ExternalCommand(session: self, context: context).run(e)
        }
    }

    /// The catalog for tools outside a statement (`\dt`, `\d`): the block's view inside
    /// a transaction block, the latest committed one otherwise.
    var toolCatalog: Catalog { inTransactionBlock ? transaction.catalog : committedCatalog }

    // MARK: - Queries (QueryRunner runs them)

    /// The session's `timezone` (SET timezone) when it is not UTC: TIMESTAMPTZ values are
    /// shown in it and local times read in it.
    public var displayTimeZone: TimeZoneRule? {
        guard let zone = settings["timezone"], zone.uppercased() != "UTC" else { return nil }
        return TimeZoneRules.rule(named: zone)
    }

    /// Bind a column-free expression (DEFAULT values) and cast it to `type`.
    func bindStandalone(_ sql: String, type: DataType) throws -> BoundExpr {
        let stmts = try parseStatements("SELECT " + sql)
        guard stmts.count == 1, case .query(let q) = stmts[0], case .select(let s) = q.body,
              s.items.count == 1, case .expr(let e, _) = s.items[0] else {
            throw SQLError(.syntax, "invalid DEFAULT expression: \(sql)")
        }
        let ctx = StatementContext(database: database, session: self)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        let b = try binder.bindScalar(e)
        return try binder.coerce(b, to: type)
    }
}

/// A script's statements, handed out one at a time. All are parsed at once, as the
/// session's settings read SQL then; when a statement changes that (SET
/// enable_case_sensitive_identifier), the statements after it are parsed again.
public struct ScriptStatements {
    private let source: [UInt8]
    private var pending: ArraySlice<ParsedStatement>
    private var options: ParseOptions
    /// How many statements the script held when parsed.
    public let count: Int

    init(_ sql: String, session: Session) throws {
        source = Array(sql.utf8)
        options = session.parseOptions
        pending = try session.database.parseCache.parse(sql, options: options)[...]
        count = pending.count
    }

    /// The next statement, or nil at the end.
    public mutating func next(_ session: Session) throws -> ParsedStatement? {
        if session.parseOptions != options, let first = pending.first {
            options = session.parseOptions
            let offset = first.location.offset
            guard offset >= 0, offset <= source.count else { return pending.popFirst() }
            pending = try parseScript(String(decoding: source[offset...], as: UTF8.self), options: options)[...]
        }
        return pending.popFirst()
    }
}
