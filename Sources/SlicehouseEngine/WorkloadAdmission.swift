// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseWorkload
import SlicehouseSQL
import SlicehouseCatalog
import SlicehousePlan
import SlicehousePlanner

/// One statement's way through workload management (docs/ARCHITECTURE.md, "Workload
/// management").
///
/// - Queries that change or load data (INSERT, UPDATE, DELETE, MERGE, CTAS, COPY,
///   UNLOAD, CALL) are admitted before they start.
/// - A SELECT is admitted once planned, as Redshift queues a query after the leader has
///   planned it: the plan says whether it reads user tables at all (a query of system
///   tables and constants runs on the leader without WLM) and what it should cost (short
///   query acceleration's prediction).
/// - Everything else (SET, SHOW, transaction control, DDL, EXPLAIN, VACUUM, ANALYZE)
///   bypasses WLM.
final class WorkloadStatement: @unchecked Sendable {
    enum Mode { case bypass, admitNow, afterPlanning, admitted }

    let context: QueryContext
    var mode: Mode
    /// The query under WLM once admitted (kept across hops).
    var query: WLMQuery?
    /// A SELECT outside a transaction block: a hop or SQA's limit may restart it.
    let restartable: Bool
    /// A SELECT: its result can still be withheld when a rule fires at its end.
    let isSelect: Bool
    let timeLimited: Bool
    /// The client's row sink, wrapped so rows going out mark the query Returning (and,
    /// for a restartable query, so nothing goes out of a run WLM is about to restart).
    /// (Weak: the session's `rowSink` holds it while the statement runs; the sink refers
    /// back to this statement.)
    weak var sink: WorkloadSink?

    init(context: QueryContext, mode: Mode, isSelect: Bool, restartable: Bool, timeLimited: Bool) {
        self.context = context
        self.mode = mode
        self.isSelect = isSelect
        self.restartable = restartable
        self.timeLimited = timeLimited
    }
}

/// How the session's statements pass through workload management: each statement's
/// runtime context and WLM mode, the row sink under WLM, admission once planned, and
/// the retries WLM asks for.
struct WorkloadAdmission {
    let session: Session

    init(_ session: Session) { self.session = session }

    /// The runtime context of `statement` and how WLM is to treat it (`run` calls this
    /// where it used to make the context).
    func beginWorkload(_ statement: Statement, cancellation: Cancellation) -> WorkloadStatement {
        let context = session.database.newStatementContext(cancellation: cancellation)
        let mode: WorkloadStatement.Mode
        switch statement {
        case .query:
            mode = .afterPlanning
        case .explain(let e) where e.analyze:
            // EXPLAIN ANALYZE runs its query as the query would run: admitted once planned,
            // with its slot's memory (explained outside WLM, it had no budget at all).
            mode = .afterPlanning
        case .insert, .update, .delete, .merge, .copy, .unload, .procedure(.call):
            mode = .admitNow
        case .createTable(let c):
            if case .query = c.source { mode = .admitNow } else { mode = .bypass }
        default:
            mode = .bypass
        }
        var isCopy = false
        if case .copy = statement { isCopy = true }
        var isSelect = false
        if case .query = statement { isSelect = true }
        let w = WorkloadStatement(context: context, mode: mode, isSelect: isSelect,
                                  restartable: isSelect && !session.inTransactionBlock,
                                  timeLimited: !isCopy)
        return w
    }

    /// `sink` wrapped for `workload` (nil stays nil; a statement outside WLM keeps its sink).
    func workloadSink(_ sink: RowSink?, _ workload: WorkloadStatement) -> RowSink? {
        guard let sink, workload.mode != .bypass else { return sink }
        let wrapped = WorkloadSink(inner: sink, workload: workload, manager: session.database.workload)
        workload.sink = wrapped
        return wrapped
    }

    /// Run `body` (the statement) under WLM: admit it first when it is admitted before
    /// it starts, run it again when WLM hops it to another queue or moves it out of
    /// SQA, and give back its slots at the end.
    func runWorkload<T>(_ workload: WorkloadStatement, _ body: () throws -> T) throws -> T {
        if workload.mode == .admitNow {
            try admit(workload, shape: nil, estimatedCost: nil)
        }
        while true {
            do {
                let result = try body()
                if let q = workload.query, let stop = session.database.workload.checkAtEnd(q, mayStop: workload.isSelect) {
                    throw stop
                }
                try workload.sink?.finish()
                if let q = workload.query { session.database.workload.finish(q, error: nil, xid: session.transaction.id) }
                return result
            } catch {
                guard let q = workload.query else { throw error }
                if workload.restartable, session.database.workload.restartAfter(q, error: error) {
                    // Run again: the SELECT is admitted to its new queue once planned again.
                    workload.mode = .afterPlanning
                    continue
                }
                session.database.workload.finish(q, error: error, xid: session.transaction.id)
                throw error
            }
        }
    }

    /// The planner has planned a query of the running statement: a SELECT waiting for
    /// its plan is admitted now (or bypasses WLM when it reads no user table).
    func admitPlannedQuery(_ plan: PhysicalNode, _ ctx: StatementContext, _ query: Query) throws {
        guard !session.findingViewColumns, let workload = session.workloadStatement, workload.mode == .afterPlanning else { return }
        var readsUserTables = false
        var cost = 0.0
        plan.visit { node in
            cost += node.rows
            if case .scan(let table, _, _, _) = node.kind, table.id >= 0 {
                readsUserTables = true
                cost += Double(ctx.statistics(table).rows)
            }
        }
        guard readsUserTables || workload.query != nil else {
            runOutsideWorkload()
            return
        }
        try admit(workload, shape: WorkloadAdmission.queryShape(query), estimatedCost: cost)
    }

    /// The SELECT waiting for its plan runs on the leader without WLM (it reads no user
    /// table, or its rows come from the result cache). It takes its id now, as an
    /// admitted one does: STV_INFLIGHT shows it while it runs, and it is logged under
    /// the same id.
    func runOutsideWorkload() {
        guard !session.findingViewColumns, let workload = session.workloadStatement, workload.mode == .afterPlanning else { return }
        workload.mode = .bypass
        workload.context.reserveQueryID(session.statementQueryID ?? session.newQueryID(workload.context))
    }

    private func admit(_ workload: WorkloadStatement, shape: String?, estimatedCost: Double?) throws {
        if let q = workload.query {
            workload.mode = .admitted
            try session.database.workload.readmit(q)
            return
        }
        let security = session.toolCatalog.security
        let slots = session.settings["wlm_query_slot_count"].flatMap { Int($0) } ?? 1
        let xid = session.openTransaction?.id
        let holdsLocks = session.inTransactionBlock && xid.map { id in
            session.database.store.locks.entries.contains { $0.granted && $0.holder.transaction == id }
        } ?? false
        var request = WLMRequest(
            queryID: session.statementQueryID ?? session.newQueryID(workload.context), userID: security.allUsers.first { $0.name == session.user }?.id ?? 100,
            process: session.process, xid: xid ?? 0, isSuperuser: security.isSuperuser(session.user),
            userGroups: security.groups(of: session.user), queryGroup: session.settings["query_group"], slotCount: slots,
            restartable: workload.restartable, timeLimited: workload.timeLimited,
            shortQueryShape: workload.restartable ? shape : nil, estimatedCost: estimatedCost)
        request.holdsLocks = holdsLocks
        workload.mode = .admitted
        workload.query = try session.database.workload.admit(request, context: workload.context)
    }

    /// A query's text with its constants blanked: queries of one shape share SQA's history.
    static func queryShape(_ query: Query) -> String? {
        guard let tokens = try? Lexer.tokenize(query.description) else { return nil }
        var out = ""
        out.reserveCapacity(tokens.count * 4)
        for t in tokens {
            switch t.kind {
            case .word(let w): out += w
            case .quotedIdentifier(let q): out += "\"" + q + "\""
            case .integer, .decimal, .float, .string, .parameter: out += "?"
            case .symbol(let s): out += s
            case .endOfInput: continue
            }
            out += " "
        }
        return out
    }
}

/// The client's row sink under WLM. The first rows mark the query Returning; for a
/// query WLM may restart, the column description waits for the first rows too, so that
/// a restarted run can describe them again without the client seeing two descriptions.
final class WorkloadSink: RowSink {
    let inner: RowSink
    let workload: WorkloadStatement
    let manager: WorkloadManager
    private var pendingColumns: [ResultColumn]?
    private var started = false
    private var returning = false

    init(inner: RowSink, workload: WorkloadStatement, manager: WorkloadManager) {
        self.inner = inner
        self.workload = workload
        self.manager = manager
    }

    func start(_ columns: [ResultColumn]) throws {
        if workload.restartable && !started {
            pendingColumns = columns
            return
        }
        try inner.start(columns)
        started = true
    }

    func rows(_ chunk: Chunk) throws {
        if !returning {
            if let q = workload.query, !manager.beginReturning(q) {
                // WLM is restarting this run: stop it with its cancellation.
                try workload.context.cancellation.check()
                throw WorkloadManager.restartSignal
            }
            returning = true
        }
        if !started {
            if let c = pendingColumns { try inner.start(c) }
            pendingColumns = nil
            started = true
        }
        try inner.rows(chunk)
    }

    /// The statement completed: a description still held back goes out (no rows).
    func finish() throws {
        if !started, let c = pendingColumns {
            try inner.start(c)
            started = true
            pendingColumns = nil
        }
    }
}
