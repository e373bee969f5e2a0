// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution
import SlicehousePlatform

/// A query's one path through the engine, whichever statement runs it — SELECT (and so
/// the server's and the shell's queries), CREATE TABLE AS, INSERT ... SELECT, UPDATE and
/// DELETE finding their rows, MERGE, UNLOAD, a materialized view's refresh, EXPLAIN
/// ANALYZE, and every one of these inside a stored procedure:
///
///     bind (and authorize) → result cache → materialized-view rewrite → optimize
///       → physical plan → WLM admission → execute → record in the system logs
///
/// A runner is made for one query of a statement, over the `StatementContext` it plans
/// against (the catalog and the table snapshots), and runs it in the statement's runtime
/// context (its memory budget, cancellation, WLM slot and metrics) — there is no other
/// way for a query to run. The result cache and the rewrite are SELECT's
/// (`select(_:sink:)`); the other statements plan and execute.
struct QueryRunner {
    let session: Session
    let scope: StatementContext
    /// The statement's runtime context.
    let context: QueryContext

    init(_ session: Session, _ scope: StatementContext, _ context: QueryContext) {
        self.session = session
        self.scope = scope
        self.context = context
    }

    var database: Database { session.database }

    // MARK: - Planning

    /// Bind `q` and check the session user may read what it reads. The binder tells what
    /// else the result depends on (`Binder.isDeterministic`). `viewSearchPath`: the search
    /// path a stored query (a materialized view's) was written under.
    func bind(_ q: Query, viewSearchPath: [String]? = nil) throws -> (Binder, LogicalPlan) {
        try QueryRunner.bind(q, session: session, scope: scope, viewSearchPath: viewSearchPath)
    }

    /// The first step alone, for what binds a query to learn its shape without running it
    /// (the key advisor, the materialized-view rewrite).
    static func bind(_ q: Query, session: Session, scope: StatementContext,
                     viewSearchPath: [String]? = nil) throws -> (Binder, LogicalPlan) {
        let binder = Binder(catalog: scope, evaluateConstant: evaluateConstant)
        if let viewSearchPath { binder.viewSearchPath = viewSearchPath }
        let logical = try binder.bind(query: q)
        try session.access.authorizeReads(binder)
        return (binder, logical)
    }

    /// Optimize and plan a bound query, and admit it to WLM when it is the statement's.
    func plan(_ logical: LogicalPlan, _ q: Query) throws -> PhysicalNode {
        let optimized = Optimizer(context: scope, evaluateConstant: evaluateConstant).optimize(logical)
        var planner = PhysicalPlanner(context: scope)
        let physical = try planner.planQuery(optimized)
        try WorkloadAdmission(session).admitPlannedQuery(physical, scope, q)
        return physical
    }

    /// Bind, optimize and plan a query (and admit it to WLM when it is the statement's).
    func plan(_ q: Query) throws -> (PhysicalNode, [PlanColumn]) {
        let (_, logical) = try bind(q)
        return (try plan(logical, q), logical.outputs)
    }

    // MARK: - Executing

    /// Where an executed query's rows go.
    enum Delivery {
        /// Kept and returned (compacted).
        case collect
        /// Handed to the closure as they are produced, from one queue.
        case stream((Chunk) throws -> Void)
        /// Handed to the closure with the slice (partition) that produced them.
        case partitioned((Int, Chunk) throws -> Void)
    }

    /// What a query's execution left: its rows when collected, and the executor whose
    /// step records EXPLAIN ANALYZE prints.
    struct Execution {
        var chunks: [Chunk]
        var rows: Int
        let executor: QueryExecutor
    }

    /// Run a planned query on the slices in the statement's runtime context, its steps
    /// shown in STV_EXEC_STATE while it runs; then give it its query id and log what it
    /// did (`record`). `returnsRows`: its rows go to a client (STL_RETURN counts them);
    /// `logged`: false for a query run inside another statement's work that is not a
    /// query of its own (a materialized view's refresh). `leaderOnly`: a SELECT that reads
    /// no table, which Redshift runs on the leader node alone — it has no steps on the
    /// slices, so it runs unmetered and only its query id is logged (STL_QUERY, by the
    /// statement), not steps, scans, a plan or alerts it cannot have.
    @discardableResult
    func execute(_ physical: PhysicalNode, _ delivery: Delivery, returnsRows: Bool = true,
                 logged: Bool = true, explain: [String]? = nil, leaderOnly: Bool = false) throws -> Execution {
        // The external tables' rows, read for this plan (Spectrum's S3 scan).
        if !leaderOnly { try ExternalScans(session: session, scope: scope, context: context).prepare(physical) }
        let executor = QueryExecutor(layout: database.layout, snapshots: scope.snapshots, cache: database.cache,
                                     context: context, metered: !leaderOnly)
        session.setRunningSteps(executor.steps)
        defer { session.setRunningSteps(nil) }
        let start = Clock.nowMicros()
        var chunks: [Chunk] = []
        var rows = 0
        switch delivery {
        case .collect:
            chunks = try executor.run(physical).map { $0.compacted() }
            rows = chunks.reduce(0) { $0 + $1.count }
            if returnsRows { context.metrics.addReturnRows(rows) }
        case .stream(let sink):
            try executor.stream(physical) { chunk in
                rows += chunk.count
                if returnsRows { context.metrics.addReturnRows(chunk.count) }
                try sink(chunk)
            }
        case .partitioned(let sink):
            try executor.streamPartitioned(physical) { slice, chunk in
                rows += chunk.count
                if returnsRows { context.metrics.addReturnRows(chunk.count) }
                try sink(slice, chunk)
            }
        }
        if logged {
            if leaderOnly {
                session.lastQueryID = session.newQueryID(context)
                session.lastSpilledBytes = context.memory.spilledBytes
            } else {
                record(executor, plan: physical, explain: explain, start: start)
            }
        }
        return Execution(chunks: chunks, rows: rows, executor: executor)
    }

    /// Plan and run `q`, collecting its rows.
    func run(_ q: Query) throws -> ([ResultColumn], [Chunk]) {
        let (physical, outputs) = try plan(q)
        let chunks = try execute(physical, .collect).chunks
        return (outputs.map { ResultColumn(name: $0.name, type: $0.type) }, chunks)
    }

    /// Run a bound query, collecting its rows.
    func run(_ logical: LogicalPlan, _ q: Query) throws -> [Chunk] {
        try execute(try plan(logical, q), .collect).chunks
    }

    /// Give the query its id and log what it scanned (STL_SCAN), what each of its steps
    /// did on each slice (SVL_QUERY_SUMMARY, SVL_QUERY_REPORT), its plan (STL_EXPLAIN) and
    /// what in its run suggests a better design (STL_ALERT_EVENT_LOG).
    private func record(_ executor: QueryExecutor, plan: PhysicalNode, explain: [String]?, start: Int64) {
        let query = session.newQueryID(context)
        session.lastQueryID = query
        database.recordScans(query: query, executor.counters)
        scope.logS3Requests(query: query)
        ExternalScans.log(scope.externalScans, query: query, session: session)
        let userID = session.currentUserID
        session.lastSpilledBytes = context.memory.spilledBytes
        let steps = executor.steps.steps
        database.recordSteps(QuerySteps(query: query, userID: userID, start: start, end: Clock.nowMicros(), steps: steps))
        database.logExplain(explain ?? ExplainPrinter.render(plan), query: query, userID: userID)
        let alerts = QueryAlerts.find(plan: plan, steps: steps, scans: executor.counters, snapshots: scope.snapshots)
        let process = session.process, xid = session.transaction.id
        database.log(.alertEventLog, alerts.map { a -> [Value] in
            [.int(Int64(userID)), .int(Int64(query)), .int(Int64(a.slice)), .int(Int64(a.segment)),
             .int(Int64(a.step)), .int(Int64(process)), .int(Int64(xid)), .string(a.event),
             .string(a.solution), .int(start)]
        })
    }

    // MARK: - SELECT

    /// Run the query of a SELECT statement: from the result cache when it can, else over
    /// a fresh materialized view that answers it, else over the base tables — with the
    /// plan kept from an earlier run of the same query when there is one (`PlanCache`);
    /// its rows go to `sink` as they are produced when there is one, and are then kept
    /// in the result cache if they may be reused.
    func select(_ q: Query, sink: RowSink?) throws -> StatementResult {
        let cacheKey = planCacheKey(q)
        if let (key, revision) = cacheKey, let entry = database.planCache.lookup(key, revision: revision),
           let result = try selectPlanned(entry, key: key, q, sink: sink) {
            return result
        }
        let (binder, logical) = try bind(q)
        let reuse = session.resultCacheEnabled ? reusableResult(q, binder, logical) : nil
        let columns = logical.outputs.map { ResultColumn(name: $0.name, type: $0.type) }
        if let reuse, let hit = database.resultCache.lookup(reuse.key, reuse.dependencies) {
            return try answerFromCache(hit, sink: sink)
        }
        // A fresh materialized view that can answer it is read instead of the base tables.
        var runner = self
        var (runLogical, runQuery) = (logical, q)
        let rewrite = MaterializedViews(session).rewriteWithMaterializedView(q, outputs: logical.outputs)
        if let r = rewrite {
            (runLogical, runQuery) = (r.logical, r.query)
            runner = QueryRunner(session, r.context, context)
        }
        let physical = try runner.plan(runLogical, runQuery)
        var explain: [String]?
        var kept: PlanCache.Entry?
        if let (key, revision) = cacheKey, rewrite == nil, binder.isDeterministic, let tables = plannedTables() {
            let lines = ExplainPrinter.render(physical)
            explain = lines
            let entry = PlanCache.Entry(revision: revision, plan: physical, outputs: logical.outputs, tables: tables,
                                        explain: lines, logical: logical, mayBeShort: PlanCache.mayBeShort(physical))
            database.planCache.store(key, entry)
            kept = entry
        }
        return try runner.timed(kept) { try runner.run(physical, columns: columns, reuse: reuse, explain: explain, sink: sink) }
    }

    /// Run `body` (a kept plan's run), noting in the plan cache how long it took when the
    /// plan may be a short statement's (`PlanCache.isShort`).
    private func timed(_ entry: PlanCache.Entry?, _ body: () throws -> StatementResult) rethrows -> StatementResult {
        guard let entry, entry.mayBeShort else { return try body() }
        let start = Clock.nowMicros()
        let result = try body()
        database.planCache.noteRun(entry, micros: Clock.nowMicros() - start)
        return result
    }

    /// Run a SELECT with a plan the cache kept: take the snapshots of the tables it reads
    /// (recorded as read, as binding would), answer from the result cache when it can,
    /// else admit the plan and run it. Nil when a table changed past what the plan was
    /// made for (the entry is dropped and the query planned again).
    private func selectPlanned(_ entry: PlanCache.Entry, key: PlanCache.Hashed, _ q: Query,
                               sink: RowSink?) throws -> StatementResult? {
        for t in entry.tables {
            let snapshot = try session.transaction.snapshot(of: t.def)
            guard PlanCache.stillValid(t, snapshot) else {
                database.planCache.discard(key)
                return nil
            }
            scope.override(t.def.id, with: snapshot)
        }
        let columns = entry.outputs.map { ResultColumn(name: $0.name, type: $0.type) }
        var reuse: (key: ResultCache.Key, dependencies: ResultCache.Dependencies)?
        // A kept plan depends on the tables alone (what `plannedTables` checked), so its
        // rows may be reused as `reusableResult` would allow.
        if session.resultCacheEnabled, let tables = readVersions() {
            reuse = (ResultCache.Key(query: q, parameters: session.statementParameters, settings: key.key.settings),
                     ResultCache.Dependencies(plan: entry.logical, tables: tables))
            if let reuse, let hit = database.resultCache.lookup(reuse.key, reuse.dependencies) {
                return try answerFromCache(hit, sink: sink)
            }
        }
        try WorkloadAdmission(session).admitPlannedQuery(entry.plan, scope, q)
        return try timed(entry) { try run(entry.plan, columns: columns, reuse: reuse, explain: entry.explain, sink: sink) }
    }

    /// Execute a SELECT's plan, streaming to `sink` or collecting, and keep its rows in the
    /// result cache under `reuse` when they fit.
    private func run(_ physical: PhysicalNode, columns: [ResultColumn],
                     reuse: (key: ResultCache.Key, dependencies: ResultCache.Dependencies)?,
                     explain: [String]?, sink: RowSink?) throws -> StatementResult {
        var result: StatementResult
        var kept: [Chunk]?
        let leaderOnly = physical.readsNoTable
        if let sink {
            // Stream, keeping the rows as they go by while they still fit an entry.
            var keep: [Chunk]? = reuse == nil ? nil : []
            var keptBytes = 0
            let limit = database.resultCache.maxEntryBytes
            try sink.start(columns)
            let n = try execute(physical, .stream { chunk in
                if keep != nil {
                    keptBytes += chunk.memoryBytes
                    if keptBytes > limit { keep = nil } else { keep?.append(chunk.compacted()) }
                }
                try sink.rows(chunk)
            }, explain: explain, leaderOnly: leaderOnly).rows
            result = StatementResult(tag: "SELECT \(n)", columns: columns)
            result.streamed = true
            kept = keep
        } else {
            let chunks = try execute(physical, .collect, explain: explain, leaderOnly: leaderOnly).chunks
            let n = chunks.reduce(0) { $0 + $1.count }
            result = StatementResult(tag: "SELECT \(n)", columns: columns, chunks: chunks)
            kept = chunks
        }
        if let reuse, let kept {
            database.resultCache.store(reuse.key, reuse.dependencies, columns: columns, chunks: kept,
                                       sourceQuery: session.lastQueryID, latest: database.store.current.versions)
        }
        return result
    }

    /// What the running SELECT's plan is found under in the plan cache, and the catalog
    /// revision it must have been made under; nil when plans are not kept for it (the
    /// transaction changed the catalog, or the session is inside a stored procedure or
    /// the advisor's replay, whose queries carry their own state).
    private func planCacheKey(_ q: Query) -> (PlanCache.Hashed, UInt64)? {
        // A short statement's key was found for this very query a moment ago: taken once.
        let found = session.shortStatementKey
        session.shortStatementKey = nil
        guard let revision = session.transaction.catalogRevision else { return nil }
        if let found, found.key.query == q { return (found, revision) }
        guard let key = Self.planCacheKey(q, parameters: session.statementParameters, session: session) else { return nil }
        return (PlanCache.Hashed(key), revision)
    }

    /// What `q` run by `session` with `parameters` bound is found under in the plan cache;
    /// nil when plans are not kept for it (inside a stored procedure, the advisor's replay
    /// or the binding of a view's columns).
    static func planCacheKey(_ q: Query, parameters: [ParameterValue]?, session: Session) -> PlanCache.Key? {
        guard session.procedureDepth == 0, !session.advising, !session.findingViewColumns else { return nil }
        let temporary = session.madeTemporaryTables ? session.process : 0
        return PlanCache.Key(query: q, parameters: parameters, user: session.user, database: session.databaseName,
                             settings: session.resultCacheSettings, temporaryOwner: temporary)
    }

    /// The tables a just-planned query read, as the plan cache keeps them; nil when its
    /// plan may not be kept: it read a system table, session state or an external table,
    /// planning warned, or a materialized view might answer it another time.
    private func plannedTables() -> [PlanCache.Table]? {
        guard !scope.readsSessionState, scope.externalTables.isEmpty, session.pendingNotices.isEmpty,
              !MaterializedViews(session).mayRewrite else { return nil }
        let catalog = session.transaction.catalog
        var tables: [PlanCache.Table] = []
        for (id, snapshot) in scope.snapshots.sorted(by: { $0.key < $1.key }) {
            guard id >= 0, let def = catalog.tableInAnyDatabase(id: id) else { return nil }
            tables.append(PlanCache.Table(def: def, analyzedAt: snapshot.analyzed?.time, liveRows: snapshot.rowCount))
        }
        return tables
    }

    /// The committed version of every table the query reads, or nil when one is not a
    /// committed table this transaction left unchanged (its result may not be reused).
    private func readVersions() -> [Int: UInt64]? {
        var tables: [Int: UInt64] = [:]
        for id in scope.snapshots.keys {
            guard id >= 0, let version = session.transaction.readVersion(of: id) else { return nil }
            tables[id] = version
        }
        return tables.isEmpty ? nil : tables
    }

    /// The key and dependencies under which the result of `q` (bound to `logical`) may be
    /// kept and found, or nil when it may not be reused: it reads system tables or session
    /// state, calls a function of time or chance, reads a table this transaction changed,
    /// or reads no table at all.
    private func reusableResult(_ q: Query, _ binder: Binder,
                                _ logical: LogicalPlan) -> (key: ResultCache.Key, dependencies: ResultCache.Dependencies)? {
        // External tables change outside the database: their rows are never kept.
        guard binder.isDeterministic, !scope.readsSessionState, scope.externalTables.isEmpty else { return nil }
        // A query of constants alone runs on the leader as fast as it is found.
        guard let tables = readVersions() else { return nil }
        return (ResultCache.Key(query: q, parameters: session.statementParameters, settings: session.resultCacheSettings),
                ResultCache.Dependencies(plan: logical, tables: tables))
    }

    /// Answer the running SELECT with rows from the cache: it takes a query id and is
    /// logged as any query is (SVL_QLOG names the query the rows came from), but runs on
    /// the leader alone, outside WLM.
    private func answerFromCache(_ hit: ResultCache.Hit, sink: RowSink?) throws -> StatementResult {
        WorkloadAdmission(session).runOutsideWorkload()
        let query = session.newQueryID(context)
        session.lastQueryID = query
        database.log(.resultCacheHits, [[.int(Int64(query)), .int(Int64(hit.sourceQuery))]])
        let n = hit.chunks.reduce(0) { $0 + $1.count }
        if let sink {
            try sink.start(hit.columns)
            for c in hit.chunks where c.count > 0 { try sink.rows(c) }
            var result = StatementResult(tag: "SELECT \(n)", columns: hit.columns)
            result.streamed = true
            return result
        }
        return StatementResult(tag: "SELECT \(n)", columns: hit.columns, chunks: hit.chunks)
    }
}
