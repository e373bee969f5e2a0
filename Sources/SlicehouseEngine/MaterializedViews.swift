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

/// Materialized views, what a session asks of them (docs/ARCHITECTURE.md, "Materialized
/// views"): their definition at creation, what their query means now, whether they are
/// fresh, the rewrite of a query to read one, and the automatic refresh after a statement.
///
/// A materialized view is a table holding its query's rows (`TableDef.materializedView`:
/// the query text and the search path it was created under), and in its snapshot where
/// its last refresh left each base table (`MaterializedViewState`). REFRESH brings the
/// rows up to date:
/// - **incrementally** when the base tables' rows can be matched up by position with
///   those the last refresh read (rows appended and deleted since: INSERT, COPY, DELETE,
///   UPDATE; `MaterializedViewState.Base.changes`) and the query is one
///   `IncrementalRefresh` can fold: the query runs over the rows gone and over the rows
///   new (`refreshIncrementally`), and the view takes them out and in — group by group
///   for an aggregation (`GroupDelta`, or the group recomputed);
/// - **from scratch** otherwise (a TRUNCATE, VACUUM or rewrite of a base table, another
///   shape of query, or RECOMPUTE).
struct MaterializedViews {
    let session: Session

    init(_ session: Session) { self.session = session }

    /// Check the CREATE MATERIALIZED VIEW's query: it reads user tables only. Returns its
    /// definition for the table.
    func materializedViewDef(_ options: MaterializedViewOptions, _ c: CreateTable,
                             context ctx: StatementContext) throws -> MaterializedViewDef {
        if c.temporary { throw SQLError(.featureNotSupported, "a materialized view cannot be temporary") }
        if ctx.snapshots.keys.contains(where: { $0 < 0 }) || ctx.readsSessionState {
            throw SQLError(.featureNotSupported, "materialized views cannot be defined on system tables or session functions")
        }
        return MaterializedViewDef(queryText: options.queryText, searchPath: session.searchPathSchemas(session.transaction.catalog),
                                   autoRefresh: options.autoRefresh)
    }

    /// Where the base tables `ctx` read stand now (the state a refresh or the creation
    /// leaves), with what the view's query means now (`materializedViewMeaning`).
    func refreshState(_ ctx: StatementContext, excluding view: Int, meaning: String?) -> MaterializedViewState {
        let bases = ctx.snapshots.keys.filter { $0 >= 0 && $0 != view }.sorted().compactMap { id -> MaterializedViewState.Base? in
            guard let def = session.transaction.catalog.table(id: id), let snap = try? session.transaction.snapshot(of: def) else { return nil }
            return MaterializedViewState.Base(table: id, snapshot: snap)
        }
        var state = MaterializedViewState(bases: bases, refreshedAt: Clock.nowMicros(), xid: session.transaction.id)
        state.meaning = meaning
        return state
    }

    /// What `mv`'s query means in this session now (see `MaterializedViewState.meaning`):
    /// the ids of the tables it reads, each view it expands with its definition, each SQL
    /// function with its body, and the session's time zone. Nil when it does not bind, or
    /// its result depends on the time or the session (GETDATE, RANDOM, CURRENT_USER, ...):
    /// no rewrite can stand for such a query.
    func materializedViewMeaning(_ mv: MaterializedViewDef) -> String? {
        guard let q = try? MaterializedViews.parseStoredQuery(mv.queryText, options: session.parseOptions) else { return nil }
        let ctx = StatementContext(database: session.database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = mv.searchPath
        guard (try? binder.bind(query: q)) != nil, binder.isDeterministic, !ctx.readsSessionState else { return nil }
        var parts: [String] = []
        for (access, _) in binder.relationAccesses() {
            switch access.object {
            case .table(let t): parts.append("table \(t.id)")
            case .view(let v): parts.append("view \(v.schema).\(v.name) \(v.queryText)")
            }
        }
        for call in binder.functionCalls {
            let f = session.transaction.catalog.functions[call.key]
            parts.append("function \(call.key) \(f?.volatility ?? "") \(f?.body ?? "")")
        }
        parts.sort()
        parts.append("timezone \(session.settings["timezone"]?.uppercased() ?? "UTC")")
        return parts.joined(separator: "\u{1}")
    }

    /// `SET mv_enable_aqmv_for_session` (on unless turned off).
    /// Whether a query might be answered from a materialized view: rewriting is on and
    /// a materialized view exists (a plan made without one is then not kept).
    var mayRewrite: Bool {
        rewritesWithMaterializedViews && session.transaction.catalog.allTables.contains { $0.materializedView != nil }
    }

    var rewritesWithMaterializedViews: Bool {
        guard let value = session.settings["mv_enable_aqmv_for_session"]?.lowercased() else { return true }
        return !["off", "false", "0", "no", "f", "n"].contains(value)
    }

    /// Whether the view's rows are its query's over the base tables as this transaction
    /// sees them (no base table changed since the last refresh).
    func isFresh(_ view: TableDef) -> Bool {
        guard let state = session.transaction.peek(view.id)?.refreshState else { return false }
        let catalog = session.transaction.catalog
        return state.isCurrent { catalog.table(id: $0) == nil ? nil : session.transaction.peek($0) }
    }

    /// `q` (bound to outputs `outputs`) rewritten to read a materialized view instead of
    /// its base tables, bound in a context of its own; nil when no fresh view can answer
    /// it, or the session turned the rewriting off (`MaterializedViewRewrite`).
    func rewriteWithMaterializedView(_ q: Query, outputs: [PlanColumn])
        -> (logical: LogicalPlan, query: Query, context: StatementContext)? {
        guard rewritesWithMaterializedViews, !session.findingViewColumns else { return nil }
        let catalog = session.transaction.catalog
        let views = catalog.allTables.filter { $0.materializedView != nil }
        if views.isEmpty { return nil }
        let path = session.searchPathSchemas(catalog)
        for def in views.sorted(by: { ($0.schema, $0.name) < ($1.schema, $1.name) }) {
            // The view's names must mean what the query's mean: the same search path.
            guard let mv = def.materializedView, mv.searchPath == path, isFresh(def),
                  let viewQuery = try? MaterializedViews.parseStoredQuery(mv.queryText, options: session.parseOptions),
                  let rewrite = MaterializedViewRewrite(view: ObjectName(schema: def.schema, name: def.name),
                                                        columns: def.columns.map(\.name), query: viewQuery),
                  let rewritten = rewrite.rewrite(q, names: outputs.map(\.name), types: outputs.map(\.type)) else { continue }
            // The view's names must still mean what they meant when its rows were computed
            // (a table renamed and another made in its place, a view or function replaced),
            // in the same time zone, and its rows must not depend on the time.
            guard let meaning = session.transaction.peek(def.id)?.refreshState?.meaning,
                  meaning == materializedViewMeaning(mv) else { continue }
            let ctx = StatementContext(database: session.database, session: session)
            guard let (_, logical) = try? QueryRunner.bind(rewritten, session: session, scope: ctx),
                  logical.outputs.map(\.type) == outputs.map(\.type),
                  logical.outputs.map(\.name) == outputs.map(\.name) else { continue }
            return (logical, rewritten, ctx)
        }
        return nil
    }

    /// Whether REFRESH can bring `mv` up to date from appended rows (STV_MV_INFO's state 1).
    func canRefreshIncrementally(_ mv: MaterializedViewDef) -> Bool { incrementalShape(mv) != nil }

    /// The view's query as it binds now, if REFRESH can fold appended rows into it: how its
    /// columns combine, and the tables it reads (each once).
    func incrementalShape(_ mv: MaterializedViewDef) -> (shape: IncrementalRefresh, tables: Set<Int>)? {
        guard let query = try? MaterializedViews.parseStoredQuery(mv.queryText, options: session.parseOptions) else { return nil }
        let ctx = StatementContext(database: session.database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = mv.searchPath
        guard let plan = try? binder.bind(query: query), let shape = IncrementalRefresh(plan),
              binder.isDeterministic, !ctx.readsSessionState,
              IncrementalRefresh.scanCounts(plan).values.allSatisfy({ $0 == 1 }) else { return nil }
        return (shape, Set(ctx.snapshots.keys))
    }

    /// Statements after which a base table may hold other rows (what AUTO REFRESH follows).
    static func mayChangeTables(_ s: Statement) -> Bool {
        switch s {
        case .insert, .update, .delete, .merge, .copy, .truncate, .vacuum, .alterTable, .commit, .procedure(.call):
            return true
        default:
            return false
        }
    }

    /// AUTO REFRESH YES: after a statement that may have changed tables commits, each such
    /// view whose base tables changed is refreshed in a transaction of its own, as its
    /// owner (Redshift does it in the background soon after). A failure is logged in
    /// SVL_MV_REFRESH_STATUS and never fails the statement.
    func autoRefreshMaterializedViews() {
        guard !session.autoRefreshing else { return }
        let views = session.committedCatalog.allTables.filter { $0.materializedView?.autoRefresh == true }
        if views.isEmpty { return }
        session.autoRefreshing = true
        let sessionUser = session.user
        defer {
            session.autoRefreshing = false
            session.user = sessionUser
        }
        for view in views.sorted(by: { $0.id < $1.id }) {
            let start = Clock.nowMicros()
            do {
                // Its own work, after the statement's: a context of its own, bounded by the
                // session's statement_timeout.
                let context = session.database.newStatementContext(cancellation: Cancellation(timeoutMilliseconds: session.statementTimeout))
                try session.inOwnTransaction(context) {
                    guard let current = session.transaction.catalog.table(id: view.id), !isFresh(current) else { return }
                    session.user = session.security.owner(.table(view.id)) ?? Database.superuser
                    let name = ObjectName(schema: current.schema, name: current.name)
                    _ = try MaterializedViewRefresh(session: session, context: context)
                        .run(RefreshMaterializedView(name: name), type: "Auto")
                }
            } catch {
                let message = (error as? SQLError)?.message ?? "\(error)"
                session.database.log(.mvRefreshStatus, [[.string(session.databaseName), .int(Int64(session.currentUserID)),
                                                 .string(view.schema), .string(view.name), .int(Int64(session.transaction.id)),
                                                 .int(start), .int(Clock.nowMicros()),
                                                 .string("Refresh failed: \(message)"), .string("Auto")]])
            }
            session.user = sessionUser
        }
    }

    /// A stored query's text (a materialized view's, one the advisor logged), read as the
    /// session reads SQL now (Redshift re-reads a materialized view's text at each refresh,
    /// with the refreshing session's enable_case_sensitive_identifier).
    static func parseStoredQuery(_ text: String, options: ParseOptions) throws -> Query? {
        guard let s = try parseStatements(text, options: options).first, case .query(let q) = s else { return nil }
        return q
    }
}
