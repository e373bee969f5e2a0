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

/// REFRESH MATERIALIZED VIEW (and each AUTO REFRESH): a view's rows brought up to date
/// with its base tables — incrementally when the rows that changed can be told apart by
/// position and the query folds (`IncrementalRefresh`, `GroupDelta`), from scratch
/// otherwise — as the view's owner, in UTC, as the statement's work (`context`). What the
/// session knows of its views (their meaning, freshness, the rewrite of queries onto them)
/// stays in `Session+MaterializedViews.swift`.
struct MaterializedViewRefresh {
    let session: Session
    let context: QueryContext

    /// `REFRESH MATERIALIZED VIEW name [RECOMPUTE]` (`type` "Auto" for AUTO REFRESH).
    func run(_ r: RefreshMaterializedView, type: String = "Manual") throws -> StatementResult {
        let start = Clock.nowMicros()
        guard let found = try session.resolveTable(r.name), let mv = found.materializedView else {
            throw SQLError(.undefinedTable, "materialized view \"\(r.name.name)\" does not exist",
                           line: r.location.line, column: r.location.column)
        }
        try session.access.requireOwner(of: found)
        // A refresh reads with the view owner's privileges, whoever asks for it (a
        // superuser's REFRESH copies no row the owner may not read), and in fixed settings
        // (UTC), so the rows never depend on the session that triggered it.
        let asked = session.user, askedZone = session.settings["timezone"]
        session.user = session.security.owner(.table(found.id)) ?? session.user
        session.settings["timezone"] = "UTC"
        defer { session.user = asked; session.settings["timezone"] = askedZone }
        let (def, current) = try session.transaction.beginWrite(found.qualifiedName, reads: true)
        // A view or function under the query replaced, or a name that means another table
        // now: the rows are recomputed whole.
        let meaning = MaterializedViews(session).materializedViewMeaning(mv)
        let sameMeaning = current.refreshState.map { $0.meaning == nil || $0.meaning == meaning } ?? false
        let status: String
        if sameMeaning, let state = current.refreshState, try isUpToDate(state) {
            status = "MV was already updated"
        } else if sameMeaning, !r.recompute, let state = current.refreshState,
                  try refreshIncrementally(def, mv, state, current, meaning: meaning) {
            status = "Refresh successfully updated MV incrementally"
        } else {
            try recompute(def, mv, replacing: current, meaning: meaning)
            status = "Refresh successfully recomputed MV from scratch"
        }
        session.database.log(.mvRefreshStatus, [[.string(session.databaseName), .int(Int64(session.currentUserID)),
                                                 .string(def.schema), .string(def.name), .int(Int64(session.transaction.id)),
                                                 .int(start), .int(Clock.nowMicros()), .string(status), .string(type)]])
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
        let transaction = session.transaction
        return try state.isCurrent { id in try transaction.catalog.table(id: id).map { try transaction.snapshot(of: $0) } }
    }

    /// Run the view's query from scratch and replace its rows.
    private func recompute(_ def: TableDef, _ mv: MaterializedViewDef, replacing current: TableSnapshot,
                           meaning: String?) throws {
        let ctx = StatementContext(database: session.database, session: session)
        let (_, chunks) = try runStoredQuery(mv, ctx)
        var next = try replaced(current, with: chunks, of: def)
        next.refreshState = MaterializedViews(session).refreshState(ctx, excluding: def.id, meaning: meaning)
        session.transaction.stage(def.id, next)
    }

    /// Bring the view up to date from the rows of its base tables that changed since
    /// `state` (appended, deleted, or both, as UPDATE does), when the rows can be told
    /// apart by position and the query allows it. False (nothing done) otherwise.
    ///
    /// With S_k a table's rows then that are still there, D_k those deleted since, O_k =
    /// S_k + D_k its rows then and A_k those appended, for the changed tables 1…n in turn:
    /// - the query's rows that are gone are Σ_j Q(S_1…S_j-1, D_j, O_j+1…O_n);
    /// - its rows that are new are Σ_i Q(T_1…T_i-1, A_i, S_i+1…S_n), T being the tables now.
    /// Without aggregation, the view loses the rows gone (as a multiset) and gains the new
    /// ones. With it, a group that lost rows takes them back out where that is exact
    /// (`GroupDelta`) and is recomputed from the base tables otherwise (the query
    /// restricted to those groups' keys); the other groups are combined with the new
    /// rows' partial results.
    private func refreshIncrementally(_ def: TableDef, _ mv: MaterializedViewDef, _ state: MaterializedViewState,
                                      _ current: TableSnapshot, meaning: String?) throws -> Bool {
        let writer = TableWriter(session: session, context: context)
        guard let (shape, tables) = MaterializedViews(session).incrementalShape(mv), tables == Set(state.bases.map(\.table)) else { return false }
        // Each base table now, and how those that changed did.
        var now: [Int: TableSnapshot] = [:]
        var changed: [(table: Int, changes: MaterializedViewState.Base.Changes)] = []
        for b in state.bases {
            guard let t = session.transaction.catalog.table(id: b.table) else { return false }
            let snap = try session.transaction.snapshot(of: t)
            now[b.table] = snap
            if b.unchanged(snap) { continue }
            guard let c = b.changes(snap) else { return false }
            changed.append((b.table, c))
        }
        func snapshot(_ table: Int) throws -> TableSnapshot {
            guard let s = now[table] else { throw SQLError(.internalError, "materialized view base table \(table)") }
            return s
        }
        // The rows gone.
        var gone: [Chunk] = []
        for (j, (table, c)) in changed.enumerated() where c.hasDeletes {
            let ctx = StatementContext(database: session.database, session: session)
            for (t, e) in changed[..<j] { ctx.override(t, with: try snapshot(t).onlyRows(before: e.rows)) }
            ctx.override(table, with: try snapshot(table).onlyRows(in: c.deletedSince))
            for (t, l) in changed[(j + 1)...] {
                ctx.override(t, with: try snapshot(t).onlyRows(before: l.rows, deleted: l.deletedThen))
            }
            gone += try runStoredQuery(mv, ctx).1.filter { $0.count > 0 }
        }
        // The rows new.
        var fresh: [Chunk] = []
        for (i, (table, c)) in changed.enumerated() where c.appended {
            let ctx = StatementContext(database: session.database, session: session)
            ctx.override(table, with: try snapshot(table).onlyRows(appendedAfter: c.rows))
            for (t, l) in changed[(i + 1)...] { ctx.override(t, with: try snapshot(t).onlyRows(before: l.rows)) }
            fresh += try runStoredQuery(mv, ctx).1.filter { $0.count > 0 }
        }
        var rows = current
        if let columns = shape.columns {
            if !gone.isEmpty {
                // Groups that lost rows: their rows gone taken back where that is exact
                // (`GroupDelta`), recomputed otherwise; the other groups combined with the
                // new rows.
                let keys = columns.indices.filter { columns[$0] == .key }
                let delta = GroupDelta(shape, keys: keys)
                let goneBy = delta.partials(gone), freshBy = delta.partials(fresh)
                // A NaN key equals no other: groups could not be matched up.
                if goneBy.keys.contains(where: { $0.contains { $0.asDouble?.isNaN == true } }) { return false }
                var updated: [[Value]] = []
                var affected = Set(goneBy.keys), recompute = Set(goneBy.keys)
                let viewRows = try TableWriter.readRows(def, current, cache: session.database.cache)
                for row in RowKeys.rows(of: viewRows, columns: Array(columns.indices)) {
                    let key = keys.map { row[$0] }
                    guard let d = goneBy[key] else { continue }
                    switch delta.apply(view: row, gone: d, fresh: freshBy[key]) {
                    case .row(let next): updated.append(next); recompute.remove(key)
                    case .emptied: recompute.remove(key)
                    case .recompute: break
                    }
                }
                // The new rows of the groups taken back are in `updated` already.
                affected.formUnion(recompute)
                let others = RowKeys.filter(viewRows + fresh, columns: keys) { !affected.contains($0) }
                // (Nothing to group: no rows, even without GROUP BY.)
                let combined = others.isEmpty ? [] : try regroup(def, try placeAll(others, into: def), columns: columns)
                let recomputed = recompute.isEmpty ? [] :
                    RowKeys.filter(try runStoredQuery(mv, restrictedTo: recompute, keyColumns: keys),
                                   columns: keys) { recompute.contains($0) }
                rows = try replaced(current, with: combined + recomputed + RowKeys.chunk(updated, types: def.columns.map(\.type)),
                                    of: def)
            } else if !fresh.isEmpty {
                let both = try writer.placeRows(try writer.completeRows(def, targets: Array(def.columns.indices), provided: fresh),
                                         onto: rows, of: def, sink: session.transaction.newSink())
                rows = try replaced(current, with: try regroup(def, both, columns: columns), of: def)
            }
        } else {
            if !gone.isEmpty {
                // Each row gone takes one equal row of the view with it.
                let all = Array(def.columns.indices)
                var remaining: [[Value]: Int] = [:]
                for r in RowKeys.rows(of: gone, columns: all) { remaining[r, default: 0] += 1 }
                let kept = RowKeys.filter(try TableWriter.readRows(def, current, cache: session.database.cache), columns: all) { row in
                    guard let n = remaining[row], n > 0 else { return true }
                    remaining[row] = n - 1
                    return false
                }
                // A row gone that the view does not hold: its rows are not what the
                // state says; recompute.
                guard remaining.values.allSatisfy({ $0 == 0 }) else { return false }
                rows = try replaced(current, with: kept + fresh, of: def)
            } else if !fresh.isEmpty {
                rows = try writer.placeRows(try writer.completeRows(def, targets: Array(def.columns.indices), provided: fresh),
                                     onto: rows, of: def, sink: session.transaction.newSink())
            }
        }
        let bases = now.keys.sorted().compactMap { id in
            now[id].map { MaterializedViewState.Base(table: id, snapshot: $0) }
        }
        rows.refreshState = MaterializedViewState(bases: bases, refreshedAt: Clock.nowMicros(), xid: session.transaction.id)
        rows.refreshState?.meaning = meaning
        session.transaction.stage(def.id, rows)
        return true
    }

    /// The rows of `rows`, a snapshot of the view's table, grouped again by the keys: SUM
    /// for sums and counts, MIN and MAX for the others.
    private func regroup(_ def: TableDef, _ rows: TableSnapshot, columns: [IncrementalRefresh.Column]) throws -> [Chunk] {
        var items: [String] = [], keys: [String] = []
        for (i, c) in columns.enumerated() {
            let name = quoteIdentifierIfNeeded(def.columns[i].name)
            switch c {
            case .key: items.append(name); keys.append(String(i + 1))
            case .sum, .count: items.append("sum(\(name)) as \(name)")
            case .min: items.append("min(\(name)) as \(name)")
            case .max: items.append("max(\(name)) as \(name)")
            }
        }
        let sql = "select \(items.joined(separator: ", ")) from \(quoteIdentifierIfNeeded(def.schema)).\(quoteIdentifierIfNeeded(def.name))"
            + (keys.isEmpty ? "" : " group by \(keys.joined(separator: ", "))")
        guard let query = try MaterializedViews.parseStoredQuery(sql, options: ParseOptions(caseSensitiveIdentifiers: true)) else { throw SQLError.internalError("materialized view merge") }
        let ctx = StatementContext(database: session.database, session: session)
        ctx.override(def.id, with: rows)
        return try QueryRunner(session, ctx, context).run(query).1
    }

    /// The view's rows `current` replaced by `chunks`: a fresh snapshot whose rows are not
    /// the old ones at their old places, counted as a reorganization (so a view over this
    /// view does not take its rows for appended ones).
    private func replaced(_ current: TableSnapshot, with chunks: [Chunk], of def: TableDef) throws -> TableSnapshot {
        var next = try placeAll(chunks, into: def)
        next.reorganizations = current.reorganizations + 1
        next.modifications = current.modifications + current.rowCount + next.rowCount
        return next
    }

    /// A fresh snapshot of `def` holding `chunks`.
    private func placeAll(_ chunks: [Chunk], into def: TableDef) throws -> TableSnapshot {
        let writer = TableWriter(session: session, context: context)
        let empty = TableSnapshot.empty(layout: session.database.layout, columnCount: def.columns.count,
                                        distStyle: def.distStyle, distKey: def.distKey)
        let full = try writer.completeRows(def, targets: Array(def.columns.indices), provided: chunks)
        return try writer.placeRows(full, onto: empty, of: def, sink: session.transaction.newSink())
    }

    /// The view's query bound with its own search path in `ctx`, planned and run.
    func runStoredQuery(_ mv: MaterializedViewDef, _ ctx: StatementContext) throws -> ([ResultColumn], [Chunk]) {
        let (q, logical) = try bindStoredQuery(mv, ctx)
        return (logical.outputs.map { ResultColumn(name: $0.name, type: $0.type) }, try runBound(logical, q, ctx))
    }

    /// The view's query (an aggregation) over the base tables now, its groups restricted
    /// to those whose keys (output columns `keyColumns`) are in `keys` or near them: each
    /// key expression is filtered to the values it takes in `keys` below the GROUP BY,
    /// where the optimizer can push the filter down to the scans. Groups outside `keys`
    /// may come back too.
    private func runStoredQuery(_ mv: MaterializedViewDef, restrictedTo keys: Set<[Value]>,
                                keyColumns: [Int]) throws -> [Chunk] {
        let ctx = StatementContext(database: session.database, session: session)
        let (q, logical) = try bindStoredQuery(mv, ctx)
        return try runBound(IncrementalRefresh.restrict(logical, keys: keys, keyColumns: keyColumns) ?? logical, q, ctx)
    }

    private func bindStoredQuery(_ mv: MaterializedViewDef, _ ctx: StatementContext) throws -> (Query, LogicalPlan) {
        guard let q = try MaterializedViews.parseStoredQuery(mv.queryText, options: session.parseOptions) else {
            throw SQLError(.internalError, "the query of a materialized view is not a query")
        }
        return (q, try QueryRunner.bind(q, session: session, scope: ctx, viewSearchPath: mv.searchPath).1)
    }

    /// A refresh's own query: run as the statement's work, not logged as a query of its
    /// own (the REFRESH, or the statement an AUTO REFRESH follows, is what the logs show).
    private func runBound(_ logical: LogicalPlan, _ q: Query, _ ctx: StatementContext) throws -> [Chunk] {
        let runner = QueryRunner(session, ctx, context)
        return try runner.execute(try runner.plan(logical, q), .collect, returnsRows: false, logged: false).chunks
    }
}

/// Which materialized views' rows can be brought up to date from appended rows alone, and
/// how each output column combines.
struct IncrementalRefresh {
    enum Column: Equatable { case key, sum, count, min, max }
    /// Per output column; nil for a query without aggregation (new rows are appended).
    var columns: [Column]?
    /// The output column of COUNT(*), if the query has one: a group's rows.
    var countStar: Int?
    /// Per output column of a SUM, the output column counting the same argument's
    /// non-NULL values (COUNT(x) beside SUM(x)), if there is one.
    var nonNullCounts: [Int: Int] = [:]

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
        let neverNull: Set<Int>
        switch plan {
        case .project(.aggregate(let input, _, let g, let a), let e, _):
            guard IncrementalRefresh.isSelectProjectJoin(input) else { return nil }
            exprs = e; groupOutputs = g; aggregates = a
            neverNull = IncrementalRefresh.neverNull(input)
        case .aggregate(let input, _, let g, let a):
            guard IncrementalRefresh.isSelectProjectJoin(input) else { return nil }
            exprs = (g + a.map(\.output)).map { BoundExpr.column($0.id, $0.type) }; groupOutputs = g; aggregates = a
            neverNull = IncrementalRefresh.neverNull(input)
        default:
            return nil
        }
        var out: [Column] = []
        var arguments: [BoundExpr?] = []
        var keysSeen = Set<Int>()
        for (i, e) in exprs.enumerated() {
            guard case .column(let id, _) = e else { return nil }
            if groupOutputs.contains(where: { $0.id == id }) {
                out.append(.key)
                keysSeen.insert(id)
                arguments.append(nil)
            } else if let a = aggregates.first(where: { $0.output.id == id }), !a.distinct {
                switch a.function {
                case .sum: out.append(.sum)
                case .count: out.append(.count)
                case .countStar:
                    out.append(.count)
                    if countStar == nil { countStar = i }
                case .min: out.append(.min)
                case .max: out.append(.max)
                default: return nil
                }
                arguments.append(a.function == .countStar ? nil : a.argument)
            } else {
                return nil
            }
        }
        guard keysSeen.count == groupOutputs.count else { return nil }
        for (i, c) in out.enumerated() where c == .sum {
            if let j = out.indices.first(where: { out[$0] == .count && arguments[$0] != nil && arguments[$0] == arguments[i] }) {
                nonNullCounts[i] = j
            } else if let star = countStar, let a = arguments[i], IncrementalRefresh.isNeverNull(a, neverNull) {
                // Of NOT NULL columns only: counted by COUNT(*).
                nonNullCounts[i] = star
            }
        }
        columns = out
    }

    /// Output columns of `p` (scans, filters, inner joins, projections) that are never
    /// NULL: NOT NULL columns, and sums, differences, products and negations of them.
    static func neverNull(_ p: LogicalPlan) -> Set<Int> {
        switch p {
        case .scan(let t, _, let columns, let outputs, _):
            return Set(zip(columns, outputs).filter { $0.0 < t.columns.count && t.columns[$0.0].notNull }.map { $0.1.id })
        case .filter(let c, _):
            return neverNull(c)
        case .project(let c, let exprs, let outputs):
            let below = neverNull(c)
            return Set(zip(exprs, outputs).filter { isNeverNull($0.0, below) }.map { $0.1.id })
        case .join(let k, let l, let r, _) where k == .inner || k == .cross:
            return neverNull(l).union(neverNull(r))
        default:
            return []
        }
    }

    static func isNeverNull(_ e: BoundExpr, _ columns: Set<Int>) -> Bool {
        switch e {
        case .column(let id, _): return columns.contains(id)
        case .constant(let v, _): return !v.isNull
        case .cast(let x, _), .unary(.negate, let x, _): return isNeverNull(x, columns)
        case .binary(let op, let a, let b, _) where op == .add || op == .subtract || op == .multiply:
            return isNeverNull(a, columns) && isNeverNull(b, columns)
        default: return false
        }
    }

    static func isSelectProjectJoin(_ p: LogicalPlan) -> Bool {
        switch p {
        case .scan: return true
        case .filter(let c, _), .project(let c, _, _): return isSelectProjectJoin(c)
        case .join(let k, let l, let r, _): return (k == .inner || k == .cross) && isSelectProjectJoin(l) && isSelectProjectJoin(r)
        default: return false
        }
    }

    /// `plan` (an aggregation this type accepts) with a filter below its GROUP BY keeping
    /// the rows whose key expressions take the values they take in `keys` (rows of the
    /// output columns `keyColumns`). Keys of more than `maxListed` values are left
    /// unfiltered; nil when no key could be filtered.
    static func restrict(_ plan: LogicalPlan, keys: Set<[Value]>, keyColumns: [Int],
                         maxListed: Int = 1_000) -> LogicalPlan? {
        let outputs = plan.outputs
        func wrap(_ input: LogicalPlan, _ groups: [BoundExpr], _ groupOutputs: [PlanColumn]) -> LogicalPlan? {
            var conjuncts: [BoundExpr] = []
            for (k, column) in keyColumns.enumerated() where column < outputs.count {
                guard let g = groupOutputs.firstIndex(where: { $0.id == outputs[column].id }) else { continue }
                var values = Set<Value>()
                var null = false
                for key in keys where k < key.count {
                    if key[k].isNull { null = true } else { values.insert(key[k]) }
                }
                // NaN equals nothing an IN list holds.
                if values.count > maxListed || values.contains(where: { $0.asDouble?.isNaN == true }) { continue }
                let expr = groups[g], type = groupOutputs[g].type
                var either: [BoundExpr] = []
                if !values.isEmpty {
                    either.append(.inList(expr, values.map { BoundExpr.constant($0, type) }, negated: false))
                }
                if null { either.append(.isNull(expr, negated: false)) }
                if either.isEmpty { continue }
                conjuncts.append(either.count == 1 ? either[0] : .or(either))
            }
            if conjuncts.isEmpty { return nil }
            return .filter(input, conjuncts.count == 1 ? conjuncts[0] : .and(conjuncts))
        }
        switch plan {
        case .project(.aggregate(let input, let groups, let g, let a), let e, let o):
            return wrap(input, groups, g).map { .project(.aggregate($0, groups: groups, groupOutputs: g, aggregates: a), e, outputs: o) }
        case .aggregate(let input, let groups, let g, let a):
            return wrap(input, groups, g).map { .aggregate($0, groups: groups, groupOutputs: g, aggregates: a) }
        default:
            return nil
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

/// Rows of result chunks as values, for matching rows by their keys.
enum RowKeys {
    /// Each row's values in `columns`.
    static func rows(of chunks: [Chunk], columns: [Int]) -> [[Value]] {
        var out: [[Value]] = []
        for chunk in chunks {
            let c = chunk.compacted()
            for r in 0..<c.count { out.append(columns.map { c.columns[$0].value(at: r) }) }
        }
        return out
    }

    /// The rows of `chunks` whose values in `columns` pass `keep`.
    static func filter(_ chunks: [Chunk], columns: [Int], keep: ([Value]) -> Bool) -> [Chunk] {
        chunks.compactMap { chunk in
            let c = chunk.compacted()
            var rows: [Int32] = []
            for r in 0..<c.count where keep(columns.map { c.columns[$0].value(at: r) }) { rows.append(Int32(r)) }
            if rows.isEmpty { return nil }
            return rows.count == c.count ? c : Chunk(columns: c.columns.map { $0.gather(rows) }, count: rows.count)
        }
    }
}

extension RowKeys {
    /// `rows` as one chunk of columns of `types`.
    static func chunk(_ rows: [[Value]], types: [DataType]) -> [Chunk] {
        if rows.isEmpty { return [] }
        var columns = types.map { Vector(type: $0, capacity: rows.count) }
        for row in rows {
            for (i, v) in row.enumerated() where i < columns.count { columns[i].append(v) }
        }
        return [Chunk(columns: columns, count: rows.count)]
    }
}

/// Taking a group's rows gone back out of its aggregates, where the result is exact
/// without going back to the base tables:
/// - the query counts the group's rows (COUNT(*)), so a group left without rows is told;
/// - COUNT(x) is the view's count less the rows gone's, plus the new rows';
/// - SUM(x) likewise, when COUNT(x) is beside it or x is of NOT NULL columns (COUNT(*)
///   then counts its values: to tell a sum of no values, NULL), and not of floating point
///   (whose sums differ with the order added);
/// - MIN(x) stands when the rows gone held no value at or below it (MAX likewise), and
///   takes the new rows' MIN.
/// Anything else: the group is recomputed.
struct GroupDelta {
    enum Outcome { case row([Value]), emptied, recompute }
    let shape: IncrementalRefresh
    let keys: [Int]

    init(_ shape: IncrementalRefresh, keys: [Int]) { self.shape = shape; self.keys = keys }

    /// Partial results per group key: rows of one group combined (counts and sums added,
    /// MIN and MAX kept), or nil in a column that cannot be combined exactly.
    func partials(_ chunks: [Chunk]) -> [[Value]: [Value?]] {
        guard let columns = shape.columns else { return [:] }
        var out: [[Value]: [Value?]] = [:]
        for chunk in chunks {
            let c = chunk.compacted()
            for r in 0..<c.count {
                let row = c.columns.map { $0.value(at: r) }
                let key = keys.map { row[$0] }
                guard let seen = out[key] else { out[key] = row.map { Optional($0) }; continue }
                out[key] = columns.indices.map { i -> Value? in
                    guard let a = seen[i] else { return nil }
                    switch columns[i] {
                    case .key: return a
                    case .count, .sum: return GroupDelta.add(a, row[i])
                    case .min, .max:
                        // MIN and MAX pass NULLs over.
                        if a.isNull { return row[i] }
                        if row[i].isNull { return a }
                        return GroupDelta.less(row[i], a) == (columns[i] == .min) ? row[i] : a
                    }
                }
            }
        }
        return out
    }

    /// The group's row after its rows `gone` are taken out of the view's `view` and the
    /// partial results `fresh` of its new rows added.
    func apply(view: [Value], gone: [Value?], fresh: [Value?]?) -> Outcome {
        guard let columns = shape.columns, let star = shape.countStar,
              let n = GroupDelta.subtract(view[star], gone[star]).flatMap({ a in fresh.map { GroupDelta.add(a, $0[star]) } ?? a }),
              let rows = n.asInt64 else { return .recompute }
        // Without GROUP BY the one row stays, with the aggregates of no rows: recomputed.
        if rows == 0 { return keys.isEmpty ? .recompute : .emptied }
        var out = view
        // The new rows' partial result in column i: NULL without new rows, nil when it
        // could not be combined (an overflow).
        func added(_ i: Int) -> Value? {
            guard let fresh else { return .null }
            return i < fresh.count ? fresh[i] : nil
        }
        for i in columns.indices {
            guard let f = added(i) else { return .recompute }
            switch columns[i] {
            case .key:
                continue
            case .count:
                guard let v = GroupDelta.subtract(view[i], gone[i]).flatMap({ GroupDelta.add($0, f) }) else { return .recompute }
                out[i] = v
            case .sum:
                guard let counted = shape.nonNullCounts[i],
                      let v = GroupDelta.subtract(view[i], gone[i]).flatMap({ GroupDelta.add($0, f) }),
                      let values = GroupDelta.subtract(view[counted], gone[counted])
                        .flatMap({ GroupDelta.add($0, added(counted)) })?.asInt64 else { return .recompute }
                out[i] = values == 0 ? .null : v
            case .min, .max:
                guard let g = gone[i] else { return .recompute }
                let old = view[i]
                if !g.isNull {
                    // A value gone at the extreme (or past it): what is left is not known.
                    if old.isNull { return .recompute }
                    if columns[i] == .min ? !GroupDelta.less(old, g) : !GroupDelta.less(g, old) { return .recompute }
                }
                if f.isNull { out[i] = old } else if old.isNull {
                    out[i] = f
                } else {
                    out[i] = columns[i] == .min ? (GroupDelta.less(f, old) ? f : old) : (GroupDelta.less(old, f) ? f : old)
                }
            }
        }
        return .row(out)
    }

    /// a + b for counts and sums (NULL adds nothing); nil on overflow or floating point.
    static func add(_ a: Value?, _ b: Value?) -> Value? {
        guard let a, let b else { return nil }
        switch (a, b) {
        case (.null, _): return b.isDouble ? nil : b
        case (_, .null): return a.isDouble ? nil : a
        case (.int(let x), .int(let y)):
            let (r, o) = x.addingReportingOverflow(y)
            return o ? nil : .int(r)
        case (.int128(let x), .int128(let y)):
            let (r, o) = x.addingReportingOverflow(y)
            return o ? nil : .int128(r)
        default:
            return nil
        }
    }

    /// a − b for counts and sums; nil on overflow or floating point.
    static func subtract(_ a: Value?, _ b: Value?) -> Value? {
        guard let b else { return nil }
        switch b {
        case .null: return add(a, b)
        case .int(let y): return y == .min ? nil : add(a, .int(-y))
        case .int128(let y): return y == .min ? nil : add(a, .int128(-y))
        default: return nil
        }
    }

    /// a < b for two non-NULL values of one column's type (strings byte by byte, as the
    /// engine's MIN and MAX compare them).
    static func less(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, _), (_, .null): return false
        case (.int(let x), .int(let y)): return x < y
        case (.int128(let x), .int128(let y)): return x < y
        case (.double(let x), .double(let y)): return x < y
        case (.bool(let x), .bool(let y)): return !x && y
        case (.string(let x), .string(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        default: return false
        }
    }
}

private extension Value {
    var isDouble: Bool { if case .double = self { return true }; return false }
}
