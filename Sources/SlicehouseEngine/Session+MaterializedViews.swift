import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlanner
import SlicehouseExecution

/// Materialized views (docs/ARCHITECTURE.md, "Materialized views").
///
/// A materialized view is a table holding its query's rows (`TableDef.materializedView`:
/// the query text and the search path it was created under), and in its snapshot where
/// its last refresh left each base table (`MaterializedViewState`). REFRESH brings the
/// rows up to date:
/// - **incrementally** when only rows were appended to the base tables since (INSERT,
///   COPY) and the query is one `IncrementalRefresh` can fold: the query runs over the
///   appended rows alone (each changed base table's other rows hidden), and the partial
///   results are combined with the view's rows (SUM and COUNT added, MIN and MAX kept);
/// - **from scratch** otherwise (a DELETE, UPDATE, TRUNCATE or VACUUM of a base table,
///   another shape of query, or RECOMPUTE).
extension Session {
    /// Check the CREATE MATERIALIZED VIEW's query: it reads user tables only. Returns its
    /// definition for the table.
    func materializedViewDef(_ options: MaterializedViewOptions, _ c: CreateTable,
                             context ctx: StatementContext) throws -> MaterializedViewDef {
        if c.temporary { throw SQLError(.featureNotSupported, "a materialized view cannot be temporary") }
        if ctx.snapshots.keys.contains(where: { $0 < 0 }) || ctx.readsSessionState {
            throw SQLError(.featureNotSupported, "materialized views cannot be defined on system tables or session functions")
        }
        return MaterializedViewDef(queryText: options.queryText, searchPath: searchPathSchemas(transaction.catalog),
                                   autoRefresh: options.autoRefresh)
    }

    /// Where the base tables `ctx` read stand now (the state a refresh or the creation leaves).
    func refreshState(_ ctx: StatementContext, excluding view: Int) -> MaterializedViewState {
        let bases = ctx.snapshots.keys.filter { $0 >= 0 && $0 != view }.sorted().compactMap { id -> MaterializedViewState.Base? in
            guard let def = transaction.catalog.table(id: id), let snap = try? transaction.snapshot(of: def) else { return nil }
            return MaterializedViewState.Base(table: id, snapshot: snap)
        }
        return MaterializedViewState(bases: bases, refreshedAt: Clock.nowMicros(), xid: transaction.id)
    }

    /// `SET mv_enable_aqmv_for_session` (on unless turned off).
    var rewritesWithMaterializedViews: Bool {
        guard let value = settings["mv_enable_aqmv_for_session"]?.lowercased() else { return true }
        return !["off", "false", "0", "no", "f", "n"].contains(value)
    }

    /// Whether the view's rows are its query's over the base tables as this transaction
    /// sees them (no base table changed since the last refresh).
    func isFresh(_ view: TableDef) -> Bool {
        guard let state = transaction.peek(view.id)?.refreshState else { return false }
        let catalog = transaction.catalog
        return state.isCurrent { catalog.table(id: $0) == nil ? nil : transaction.peek($0) }
    }

    /// `q` (bound to outputs `outputs`) rewritten to read a materialized view instead of
    /// its base tables, bound in a context of its own; nil when no fresh view can answer
    /// it, or the session turned the rewriting off (`MaterializedViewRewrite`).
    func rewriteWithMaterializedView(_ q: Query, outputs: [PlanColumn])
        -> (logical: LogicalPlan, query: Query, context: StatementContext)? {
        guard rewritesWithMaterializedViews, !findingViewColumns else { return nil }
        let catalog = transaction.catalog
        let views = catalog.allTables.filter { $0.materializedView != nil }
        if views.isEmpty { return nil }
        let path = searchPathSchemas(catalog)
        for def in views.sorted(by: { ($0.schema, $0.name) < ($1.schema, $1.name) }) {
            // The view's names must mean what the query's mean: the same search path.
            guard let mv = def.materializedView, mv.searchPath == path, isFresh(def),
                  let viewQuery = try? Session.parseStoredQuery(mv.queryText),
                  let rewrite = MaterializedViewRewrite(view: ObjectName(schema: def.schema, name: def.name),
                                                        columns: def.columns.map(\.name), query: viewQuery),
                  let rewritten = rewrite.rewrite(q, names: outputs.map(\.name), types: outputs.map(\.type)) else { continue }
            let ctx = StatementContext(database: database, session: self)
            guard let (_, logical) = try? bindQuery(rewritten, ctx),
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
    private func incrementalShape(_ mv: MaterializedViewDef) -> (shape: IncrementalRefresh, tables: Set<Int>)? {
        guard let query = try? Session.parseStoredQuery(mv.queryText) else { return nil }
        let ctx = StatementContext(database: database, session: self)
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
        guard !autoRefreshing else { return }
        let views = database.committedCatalog.allTables.filter { $0.materializedView?.autoRefresh == true }
        if views.isEmpty { return }
        autoRefreshing = true
        let sessionUser = user
        defer {
            autoRefreshing = false
            user = sessionUser
        }
        for view in views.sorted(by: { $0.id < $1.id }) {
            let start = Clock.nowMicros()
            do {
                try inOwnTransaction {
                    guard let current = transaction.catalog.table(id: view.id), !isFresh(current) else { return }
                    user = security.owner(.table(view.id)) ?? Database.superuser
                    _ = try refreshMaterializedView(RefreshMaterializedView(name: ObjectName(schema: current.schema,
                                                                                               name: current.name)),
                                                    type: "Auto")
                }
            } catch {
                let message = (error as? SQLError)?.message ?? "\(error)"
                database.log(.mvRefreshStatus, [[.string(Session.databaseName), .int(Int64(currentUserID)),
                                                 .string(view.schema), .string(view.name), .int(Int64(transaction.id)),
                                                 .int(start), .int(Clock.nowMicros()),
                                                 .string("Refresh failed: \(message)"), .string("Auto")]])
            }
            user = sessionUser
        }
    }

    /// `REFRESH MATERIALIZED VIEW name [RECOMPUTE]` (`type` "Auto" for AUTO REFRESH).
    func refreshMaterializedView(_ r: RefreshMaterializedView, type: String = "Manual") throws -> StatementResult {
        let start = Clock.nowMicros()
        guard let found = try resolveTable(r.name), let mv = found.materializedView else {
            throw SQLError(.undefinedTable, "materialized view \"\(r.name.name.lowercased())\" does not exist",
                           line: r.location.line, column: r.location.column)
        }
        try requireOwner(of: found)
        let (def, current) = try transaction.beginWrite(found.qualifiedName, reads: true)
        let status: String
        if let state = current.refreshState, try isUpToDate(state) {
            status = "MV was already updated"
        } else if !r.recompute, let state = current.refreshState, try refreshIncrementally(def, mv, state, current) {
            status = "Refresh successfully updated MV incrementally"
        } else {
            try recompute(def, mv)
            status = "Refresh successfully recomputed MV from scratch"
        }
        database.log(.mvRefreshStatus, [[.string(Session.databaseName), .int(Int64(currentUserID)), .string(def.schema),
                                         .string(def.name), .int(Int64(transaction.id)), .int(start), .int(Clock.nowMicros()),
                                         .string(status), .string(type)]])
        let done: String
        switch status {
        case "MV was already updated": done = "already updated"
        case "Refresh successfully updated MV incrementally": done = "incrementally updated successfully"
        default: done = "recomputed successfully"
        }
        return StatementResult(tag: "REFRESH", notices: ["INFO:  Materialized view \(def.name) was \(done)."])
    }

    /// Every base table holds the rows the last refresh read.
    private func isUpToDate(_ state: MaterializedViewState) throws -> Bool {
        // Read as the refresh reads (recorded, for its commit's conflict check).
        try state.isCurrent { id in try transaction.catalog.table(id: id).map { try transaction.snapshot(of: $0) } }
    }

    /// Run the view's query from scratch and replace its rows.
    private func recompute(_ def: TableDef, _ mv: MaterializedViewDef) throws {
        let ctx = StatementContext(database: database, session: self)
        let (_, chunks) = try runStoredQuery(mv, ctx)
        var next = try placeAll(chunks, into: def)
        next.refreshState = refreshState(ctx, excluding: def.id)
        transaction.stage(def.id, next)
    }

    /// Fold the rows appended to the base tables since `state` into the view, when only
    /// appends happened and the query allows it. False (nothing done) otherwise.
    private func refreshIncrementally(_ def: TableDef, _ mv: MaterializedViewDef, _ state: MaterializedViewState,
                                      _ current: TableSnapshot) throws -> Bool {
        guard let (shape, tables) = incrementalShape(mv), tables == Set(state.bases.map(\.table)) else { return false }
        // Each base table now, and which of them only grew.
        var now: [Int: TableSnapshot] = [:]
        var changed: [MaterializedViewState.Base] = []
        for b in state.bases {
            guard let t = transaction.catalog.table(id: b.table) else { return false }
            let snap = try transaction.snapshot(of: t)
            now[b.table] = snap
            if b.unchanged(snap) { continue }
            guard b.onlyAppended(snap) else { return false }
            changed.append(b)
        }
        var rows = current
        for (i, b) in changed.enumerated() {
            guard let snap = now[b.table] else { return false }
            // Δ(T1 ⋈ … ⋈ Tn) for appends: for each changed table in turn, its new rows joined
            // with the tables before it as they are now and those after it as they were.
            let ctx = StatementContext(database: database, session: self)
            ctx.override(b.table, with: snap.onlyRows(appendedAfter: b.rows))
            for later in changed[(i + 1)...] {
                if let s = now[later.table] { ctx.override(later.table, with: s.onlyRows(before: later.rows)) }
            }
            let (_, delta) = try runStoredQuery(mv, ctx)
            guard delta.contains(where: { $0.count > 0 }) else { continue }
            if let columns = shape.columns {
                rows = try placeAll(try merge(def, viewRows: rows, delta: delta, columns: columns), into: def)
            } else {
                let sink = transaction.newSink()
                rows = try placeRows(try completeRows(def, targets: Array(def.columns.indices), provided: delta),
                                     onto: rows, of: def, sink: sink)
            }
        }
        let bases = now.keys.sorted().compactMap { id in
            now[id].map { MaterializedViewState.Base(table: id, snapshot: $0) }
        }
        rows.refreshState = MaterializedViewState(bases: bases, refreshedAt: Clock.nowMicros(), xid: transaction.id)
        transaction.stage(def.id, rows)
        return true
    }

    /// The view's rows `viewRows` combined with the partial results `delta` group by group:
    /// both placed in one snapshot of the view's table, then grouped by the keys with SUM
    /// for sums and counts, MIN and MAX for the others.
    private func merge(_ def: TableDef, viewRows: TableSnapshot, delta: [Chunk],
                       columns: [IncrementalRefresh.Column]) throws -> [Chunk] {
        func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var items: [String] = [], keys: [String] = []
        for (i, c) in columns.enumerated() {
            let name = quoted(def.columns[i].name)
            switch c {
            case .key: items.append(name); keys.append(String(i + 1))
            case .sum, .count: items.append("sum(\(name)) as \(name)")
            case .min: items.append("min(\(name)) as \(name)")
            case .max: items.append("max(\(name)) as \(name)")
            }
        }
        let both = try placeRows(try completeRows(def, targets: Array(def.columns.indices), provided: delta),
                                 onto: viewRows, of: def, sink: transaction.newSink())
        let sql = "select \(items.joined(separator: ", ")) from \(quoted(def.schema)).\(quoted(def.name))"
            + (keys.isEmpty ? "" : " group by \(keys.joined(separator: ", "))")
        guard let query = try Session.parseStoredQuery(sql) else { throw SQLError.internalError("materialized view merge") }
        let ctx = StatementContext(database: database, session: self)
        ctx.override(def.id, with: both)
        return try runQuery(query, ctx).1
    }

    /// A fresh snapshot of `def` holding `chunks`.
    private func placeAll(_ chunks: [Chunk], into def: TableDef) throws -> TableSnapshot {
        let empty = TableSnapshot.empty(layout: database.layout, columnCount: def.columns.count,
                                        distStyle: def.distStyle, distKey: def.distKey)
        let full = try completeRows(def, targets: Array(def.columns.indices), provided: chunks)
        return try placeRows(full, onto: empty, of: def, sink: transaction.newSink())
    }

    /// The view's query bound with its own search path in `ctx`, planned and run.
    func runStoredQuery(_ mv: MaterializedViewDef, _ ctx: StatementContext) throws -> ([ResultColumn], [Chunk]) {
        guard let q = try Session.parseStoredQuery(mv.queryText) else {
            throw SQLError(.internalError, "the query of a materialized view is not a query")
        }
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = mv.searchPath
        let logical = try binder.bind(query: q)
        try authorizeReads(binder)
        let physical = try planBound(logical, q, ctx)
        let executor = QueryExecutor(layout: database.layout, snapshots: ctx.snapshots, cache: database.cache,
                                     context: statementContext)
        let chunks = try executor.run(physical).map { $0.compacted() }
        return (logical.outputs.map { ResultColumn(name: $0.name, type: $0.type) }, chunks)
    }

    static func parseStoredQuery(_ text: String) throws -> Query? {
        guard let s = try parseStatements(text).first, case .query(let q) = s else { return nil }
        return q
    }
}

/// Which materialized views' rows can be brought up to date from appended rows alone, and
/// how each output column combines.
struct IncrementalRefresh {
    enum Column { case key, sum, count, min, max }
    /// Per output column; nil for a query without aggregation (new rows are appended).
    var columns: [Column]?

    /// `plan` is scans, filters, inner joins and projections, under at most one GROUP BY
    /// whose every key is an output column of its own and whose other outputs are SUM,
    /// COUNT, MIN or MAX (not DISTINCT) each as it is.
    init?(_ plan: LogicalPlan) {
        if IncrementalRefresh.isSelectProjectJoin(plan) {
            columns = nil
            return
        }
        let exprs: [BoundExpr]
        let groupOutputs: [PlanColumn], aggregates: [LogicalAggregate]
        switch plan {
        case .project(.aggregate(let input, _, let g, let a), let e, _):
            guard IncrementalRefresh.isSelectProjectJoin(input) else { return nil }
            exprs = e; groupOutputs = g; aggregates = a
        case .aggregate(let input, _, let g, let a):
            guard IncrementalRefresh.isSelectProjectJoin(input) else { return nil }
            exprs = (g + a.map(\.output)).map { BoundExpr.column($0.id, $0.type) }; groupOutputs = g; aggregates = a
        default:
            return nil
        }
        var out: [Column] = []
        var keysSeen = Set<Int>()
        for e in exprs {
            guard case .column(let id, _) = e else { return nil }
            if groupOutputs.contains(where: { $0.id == id }) {
                out.append(.key)
                keysSeen.insert(id)
            } else if let a = aggregates.first(where: { $0.output.id == id }), !a.distinct {
                switch a.function {
                case .sum: out.append(.sum)
                case .count, .countStar: out.append(.count)
                case .min: out.append(.min)
                case .max: out.append(.max)
                default: return nil
                }
            } else {
                return nil
            }
        }
        guard keysSeen.count == groupOutputs.count else { return nil }
        columns = out
    }

    static func isSelectProjectJoin(_ p: LogicalPlan) -> Bool {
        switch p {
        case .scan: return true
        case .filter(let c, _), .project(let c, _, _): return isSelectProjectJoin(c)
        case .join(let k, let l, let r, _): return (k == .inner || k == .cross) && isSelectProjectJoin(l) && isSelectProjectJoin(r)
        default: return false
        }
    }

    /// How many times the plan scans each table.
    static func scanCounts(_ p: LogicalPlan) -> [Int: Int] {
        var out: [Int: Int] = [:]
        func walk(_ p: LogicalPlan) {
            if case .scan(let t, _, _, _, _) = p { out[t.id, default: 0] += 1 }
            _ = p.mapChildren { c in walk(c); return c }
        }
        walk(p)
        return out
    }
}
