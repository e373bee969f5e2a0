// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehousePlanner
import SlicehouseExecution

/// A SELECT's way through the leader's result cache (`ResultCache`): bound first, then
/// answered from the cache when an equal plan over the same table versions has run,
/// otherwise planned, run, and its rows kept for the next time.
extension Session {
    /// Settings that steer how a query runs but not what it answers: they are left out
    /// of the cache's key, so changing them still finds the cached rows.
    static let settingsOutsideResultCacheKey: Set<String> = [
        "enable_result_cache_for_session", "query_group", "statement_timeout", "wlm_query_slot_count",
        "describe_field_name_in_uppercase", "extra_float_digits", "max_concurrency_scaling_clusters",
        "analyze_threshold_percent", "auto_analyze", "enable_vacuum_boost", "stored_proc_log_min_messages",
    ]

    /// `SET enable_result_cache_for_session` (on unless turned off).
    var resultCacheEnabled: Bool {
        guard let value = settings["enable_result_cache_for_session"]?.lowercased() else { return true }
        return !["off", "false", "0", "no", "f", "n"].contains(value)
    }

    /// The settings a cached result is found under, `name=value;` in name order.
    var resultCacheSettings: String {
        var out = ""
        for key in settings.keys.sorted() where !Session.settingsOutsideResultCacheKey.contains(key) {
            out += key + "=" + (settings[key] ?? "") + ";"
        }
        return out
    }

    /// Run the query of a SELECT statement: from the result cache when it can, otherwise
    /// planned and run (its rows streamed to the client's sink when there is one), its
    /// rows then kept in the cache if they may be reused.
    func runSelect(_ q: Query, _ ctx: StatementContext) throws -> StatementResult {
        let (binder, logical) = try bindQuery(q, ctx)
        let reuse = resultCacheEnabled ? reusableResult(q, binder, logical, ctx) : nil
        let columns = logical.outputs.map { ResultColumn(name: $0.name, type: $0.type) }
        if let reuse, let hit = database.resultCache.lookup(reuse.key, reuse.dependencies) {
            return try answerFromCache(hit)
        }
        // A fresh materialized view that can answer it is read instead of the base tables.
        var (runLogical, runQuery, runContext) = (logical, q, ctx)
        if let r = rewriteWithMaterializedView(q, outputs: logical.outputs) {
            (runLogical, runQuery, runContext) = (r.logical, r.query, r.context)
        }
        let physical = try planBound(runLogical, runQuery, runContext)
        let executor = QueryExecutor(layout: database.layout, snapshots: runContext.snapshots, cache: database.cache,
                                     context: statementContext)
        setRunningSteps(executor.steps)
        defer { setRunningSteps(nil) }
        let start = Clock.nowMicros()
        var result: StatementResult
        var kept: [Chunk]?
        if let sink = rowSink {
            // Stream, keeping the rows as they go by while they still fit an entry.
            var keep: [Chunk]? = reuse == nil ? nil : []
            var keptBytes = 0
            let limit = database.resultCache.maxEntryBytes
            try sink.start(columns)
            var n = 0
            try executor.stream(physical) { chunk in
                n += chunk.count
                executor.context.metrics.addReturnRows(chunk.count)
                if keep != nil {
                    keptBytes += chunk.memoryBytes
                    if keptBytes > limit { keep = nil } else { keep?.append(chunk.compacted()) }
                }
                try sink.rows(chunk)
            }
            recordExecution(executor, plan: physical, snapshots: runContext.snapshots, start: start)
            result = StatementResult(tag: "SELECT \(n)", columns: columns)
            result.streamed = true
            kept = keep
        } else {
            let chunks = try executor.run(physical).map { $0.compacted() }
            for c in chunks { executor.context.metrics.addReturnRows(c.count) }
            recordExecution(executor, plan: physical, snapshots: runContext.snapshots, start: start)
            let n = chunks.reduce(0) { $0 + $1.count }
            result = StatementResult(tag: "SELECT \(n)", columns: columns, chunks: chunks)
            kept = chunks
        }
        if let reuse, let kept {
            database.resultCache.store(reuse.key, reuse.dependencies, columns: columns, chunks: kept,
                                       sourceQuery: lastQueryID, latest: database.store.current.versions)
        }
        return result
    }

    /// The key and dependencies under which the result of `q` (bound to `logical`) may be
    /// kept and found, or nil when it may not be reused: it reads system tables or session
    /// state, calls a function of time or chance, reads a table this transaction changed,
    /// or reads no table at all.
    private func reusableResult(_ q: Query, _ binder: Binder, _ logical: LogicalPlan,
                                _ ctx: StatementContext) -> (key: ResultCache.Key, dependencies: ResultCache.Dependencies)? {
        guard binder.isDeterministic, !ctx.readsSessionState else { return nil }
        var tables: [Int: UInt64] = [:]
        for id in ctx.snapshots.keys {
            guard id >= 0, let version = transaction.readVersion(of: id) else { return nil }
            tables[id] = version
        }
        // A query of constants alone runs on the leader as fast as it is found.
        if tables.isEmpty { return nil }
        return (ResultCache.Key(query: q, settings: resultCacheSettings),
                ResultCache.Dependencies(plan: logical, tables: tables))
    }

    /// Answer the running SELECT with rows from the cache: it takes a query id and is
    /// logged as any query is (SVL_QLOG names the query the rows came from), but runs on
    /// the leader alone, outside WLM.
    private func answerFromCache(_ hit: ResultCache.Hit) throws -> StatementResult {
        runOutsideWorkload()
        lastQueryID = newQueryID()
        database.log(.resultCacheHits, [[.int(Int64(lastQueryID)), .int(Int64(hit.sourceQuery))]])
        let n = hit.chunks.reduce(0) { $0 + $1.count }
        if let sink = rowSink {
            try sink.start(hit.columns)
            for c in hit.chunks where c.count > 0 { try sink.rows(c) }
            var result = StatementResult(tag: "SELECT \(n)", columns: hit.columns)
            result.streamed = true
            return result
        }
        return StatementResult(tag: "SELECT \(n)", columns: hit.columns, chunks: hit.chunks)
    }
}
