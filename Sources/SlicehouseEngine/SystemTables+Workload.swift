// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseRuntime
import SlicehouseWorkload

/// Workload management's views, with Redshift's column names and types. Times are in
/// microseconds. Metric rows report at three levels, as Redshift's do: the query
/// (segment and step_type -1), a segment (step_type and step -1) and a step (STL only,
/// for a query's last run; step_type is Redshift's code for the step's label).
extension SystemTables {
    static let workloadNames = ["stv_wlm_service_class_config", "stv_wlm_service_class_state", "stv_wlm_query_state",
                                "stv_wlm_query_queue_state", "stl_wlm_query", "stv_query_metrics", "stl_query_metrics",
                                "sys_query_history", "stv_wlm_classification_config", "svl_query_metrics_summary"]

    private static let metricColumns: [(String, DataType)] = [
        ("userid", .integer), ("service_class", .integer), ("query", .integer), ("segment", .integer),
        ("step_type", .integer), ("starttime", .timestamp), ("slices", .integer), ("max_rows", .bigint), ("rows", .bigint),
        ("max_cpu_time", .bigint), ("cpu_time", .bigint), ("max_blocks_read", .bigint), ("blocks_read", .bigint),
        ("max_run_time", .bigint), ("run_time", .bigint), ("max_blocks_to_disk", .bigint), ("blocks_to_disk", .bigint),
        ("step", .integer), ("max_query_scan_size", .bigint), ("query_scan_size", .bigint), ("query_priority", .char(20)),
        ("query_queue_time", .bigint), ("service_class_name", .char(64)),
    ]

    func workloadTable(named name: String) -> (TableDef, TableSnapshot)? {
        let wlm = database.workload
        func time(_ d: Date) -> Value { .int(Int64(d.timeIntervalSince1970 * 1_000_000)) }
        let slices = Int64(database.layout.sliceCount)
        let names = Dictionary(wlm.serviceClasses().map { ($0.queue.serviceClass, $0.queue.name) }, uniquingKeysWith: { a, _ in a })
        func priority(_ serviceClass: Int) -> Value {
            .string(serviceClass == WLMConfiguration.shortQueryServiceClass ? "Highest" : "Normal")
        }
        switch name {
        case "stv_wlm_service_class_config":
            let rows = wlm.serviceClasses().map { s -> [Value] in
                let q = s.queue
                return [.int(Int64(q.serviceClass)), .string("FIFO"), .int(Int64(q.concurrency)), .int(Int64(q.concurrency)),
                        .string(q.maxExecutionTime > 0 ? "true" : "false"), .int(Int64(q.maxExecutionTime)),
                        .int(Int64(s.slotBytes >> 20)), .int(Int64(s.slotBytes >> 20)), .int(5), .string(q.name),
                        .int(Int64(q.maxExecutionTime)), .bool(q.userGroupWildcard), .bool(q.queryGroupWildcard),
                        .string(q.concurrencyScaling), .string(q.kind == .shortQuery ? "Highest" : "Normal"), .bool(false)]
            }
            return make(-200, name, [("service_class", .integer), ("queueing_strategy", .char(32)),
                                     ("num_query_tasks", .integer), ("target_num_query_tasks", .integer),
                                     ("evictable", .char(8)), ("eviction_threshold", .bigint),
                                     ("query_working_mem", .integer), ("target_query_working_mem", .integer),
                                     ("min_step_mem", .integer), ("name", .char(64)), ("max_execution_time", .bigint),
                                     ("user_group_wild_card", .boolean), ("query_group_wild_card", .boolean),
                                     ("concurrency_scaling", .char(20)), ("query_priority", .char(20)),
                                     ("user_role_wild_card", .boolean)], rows)
        case "stv_wlm_service_class_state":
            let rows = wlm.serviceClasses().map { s -> [Value] in
                [.int(Int64(s.queue.serviceClass)), .int(Int64(s.queued)), .int(Int64(s.executing)), .int(Int64(s.serviced)),
                 .int(Int64(s.executed)), .int(Int64(s.restarted))]
            }
            return make(-201, name, [("service_class", .integer), ("num_queued_queries", .integer),
                                     ("num_executing_queries", .integer), ("num_serviced_queries", .integer),
                                     ("num_executed_queries", .integer), ("num_restarted_queries", .integer)], rows)
        case "stv_wlm_query_state":
            let rows = wlm.activeQueries().map { q -> [Value] in
                [.int(Int64(q.xid)), .int(Int64(q.query)), .int(Int64(q.query)), .int(Int64(q.serviceClass)),
                 .int(Int64(q.slots)), time(q.start), .string(q.state), .int(q.queueMicros), .int(q.execMicros),
                 priority(q.serviceClass)]
            }
            return make(-202, name, [("xid", .integer), ("task", .integer), ("query", .integer), ("service_class", .integer),
                                     ("slot_count", .integer), ("wlm_start_time", .timestamp), ("state", .char(16)),
                                     ("queue_time", .bigint), ("exec_time", .bigint), ("query_priority", .char(20))], rows)
        case "stv_wlm_query_queue_state":
            let rows = wlm.activeQueries().compactMap { q -> [Value]? in
                guard let position = q.position else { return nil }
                return [.int(Int64(q.serviceClass)), .int(Int64(position)), .int(Int64(q.query)), .int(Int64(q.query)),
                        .int(Int64(q.slots)), time(q.start), .int(q.queueMicros)]
            }
            return make(-203, name, [("service_class", .integer), ("position", .integer), ("task", .integer),
                                     ("query", .integer), ("slot_count", .integer), ("start_time", .timestamp),
                                     ("queue_time", .bigint)], rows)
        case "stl_wlm_query":
            let rows = database.wlmRuns.map { r -> [Value] in
                [.int(Int64(r.userID)), .int(Int64(r.xid)), .int(Int64(r.query)), .int(Int64(r.query)),
                 .int(Int64(r.serviceClass)), .int(Int64(r.slots)), time(r.serviceClassStart), time(r.queueStart),
                 time(r.queueEnd), .int(r.queueMicros), time(r.execStart), time(r.execEnd), .int(r.execMicros), time(r.end),
                 .string(r.finalState), .int(Int64(r.peakMemory)), priority(r.serviceClass), .string(r.serviceClassName)]
            }
            return make(-204, name, [("userid", .integer), ("xid", .integer), ("task", .integer), ("query", .integer),
                                     ("service_class", .integer), ("slot_count", .integer),
                                     ("service_class_start_time", .timestamp), ("queue_start_time", .timestamp),
                                     ("queue_end_time", .timestamp), ("total_queue_time", .bigint),
                                     ("exec_start_time", .timestamp), ("exec_end_time", .timestamp),
                                     ("total_exec_time", .bigint), ("service_class_end_time", .timestamp),
                                     ("final_state", .char(16)), ("est_peak_mem", .bigint), ("query_priority", .char(20)),
                                     ("service_class_name", .char(64))], rows)
        case "stv_query_metrics":
            let rows = wlm.activeQueries().filter { $0.position == nil }.map { q -> [Value] in
                metricRow(userID: q.userID, serviceClass: q.serviceClass, query: q.query, start: q.start, slices: slices,
                          live: q.live, runMicros: q.execMicros, spilled: q.spilledBytes, queueMicros: q.queueMicros,
                          className: names[q.serviceClass] ?? "", priority: priority(q.serviceClass))
            }
            return make(-205, name, Self.metricColumns, rows)
        case "stl_query_metrics":
            // Query-level rows for every run; the segment- and step-level rows of a query's
            // last run (what its steps did, from SVL_QUERY_REPORT's records).
            var stepsByQuery: [Int: [StepRecord]] = [:]
            for q in database.stepLog { stepsByQuery[q.query] = q.steps }
            var lastRun: [Int: Int] = [:]
            let runs = database.wlmRuns
            for (i, r) in runs.enumerated() { lastRun[r.query] = i }
            var rows: [[Value]] = []
            for (i, r) in runs.enumerated() {
                rows.append(metricRow(userID: r.userID, serviceClass: r.serviceClass, query: r.query, start: r.execStart,
                                      slices: slices, live: r.live, runMicros: r.execMicros, spilled: r.spilledBytes,
                                      queueMicros: r.queueMicros, className: r.serviceClassName,
                                      priority: priority(r.serviceClass)))
                guard lastRun[r.query] == i, let steps = stepsByQuery[r.query] else { continue }
                rows += stepMetricRows(steps, userID: r.userID, serviceClass: r.serviceClass, query: r.query,
                                       start: r.execStart, slices: slices, queueMicros: r.queueMicros,
                                       className: r.serviceClassName, priority: priority(r.serviceClass))
            }
            return make(-206, name, Self.metricColumns, rows)
        case "stv_wlm_classification_config":
            // The routing rules in the order WLM applies them.
            let config = wlm.configuration
            var conditions: [(String, Int)] = [("(super user) and (query group: superuser)", config.superuser.serviceClass)]
            for q in config.queues.dropLast() {
                for g in q.queryGroups { conditions.append(("(query group: \(g))", q.serviceClass)) }
                for g in q.userGroups { conditions.append(("(user group: \(g))", q.serviceClass)) }
            }
            conditions.append(("(querytype: any)", config.defaultQueue.serviceClass))
            let rows = conditions.enumerated().map { i, c -> [Value] in
                [.int(Int64(i + 1)), .string(c.0), .int(0), .string("assign"), .int(Int64(c.1))]
            }
            return make(-209, name, [("id", .integer), ("condition", .char(128)), ("action_seq", .integer),
                                     ("action", .char(64)), ("action_service_class", .integer)], rows)
        case "sys_query_history":
            // Redshift's columns, one row per query WLM ran (its last run: a hopped query
            // shows the queue it finished in), its label, session and text from STL_QUERY;
            // then short_query_prediction (SQA's guess, `short` or `long`). What Slicehouse
            // does not keep (error message, bytes returned, hashes, planning and lock-wait
            // times) is NULL; result_cache_hit is false (answers from the cache bypass WLM).
            var last: [Int: WLMHistoryRecord] = [:]
            var first: [Int: WLMHistoryRecord] = [:]
            var order: [Int] = []
            for r in database.wlmRuns {
                if first[r.query] == nil { first[r.query] = r; order.append(r.query) }
                last[r.query] = r
            }
            var logged: [Int: [Value]] = [:]
            for q in database.logRows(.query) { if let id = q[1].asInt64 { logged[Int(id)] = q } }
            let rows = order.compactMap { id -> [Value]? in
                guard let r = last[id], let f = first[id] else { return nil }
                let q = logged[id]
                let text = q?[6].asString ?? ""
                let status = r.finalState == "Completed" ? "success" : "failed"
                let accelerated = r.serviceClass == WLMConfiguration.shortQueryServiceClass
                return [.int(Int64(r.userID)), .int(Int64(r.query)), q?[2] ?? .null, .int(Int64(r.xid)), q?[4] ?? .null,
                        .string(databaseName), .string(Self.queryType(text)), .string(status), .bool(false),
                        time(f.queueStart), time(r.end), .int(Int64(r.end.timeIntervalSince(f.queueStart) * 1_000_000)),
                        .int(r.queueMicros), .int(r.execMicros), .null, .int(Int64(r.live.returnRows)), .null,
                        q == nil ? .null : .string(text), .string("1.0.0"), .null, .string("primary"), .int(0), .null, .null,
                        .int(Int64(r.serviceClass)), .string(r.serviceClassName), priority(r.serviceClass),
                        .string(accelerated ? "true" : "false"), .null, .null, .null, .null,
                        f.shortQueryPredicted.map { .string($0 ? "short" : "long") } ?? .null]
            }
            return make(-208, name, [("user_id", .integer), ("query_id", .bigint), ("query_label", .char(320)),
                                     ("transaction_id", .bigint), ("session_id", .integer), ("database_name", .char(128)),
                                     ("query_type", .char(32)), ("status", .char(10)), ("result_cache_hit", .boolean),
                                     ("start_time", .timestamp), ("end_time", .timestamp), ("elapsed_time", .bigint),
                                     ("queue_time", .bigint), ("execution_time", .bigint), ("error_message", .char(512)),
                                     ("returned_rows", .bigint), ("returned_bytes", .bigint), ("query_text", .char(4000)),
                                     ("redshift_version", .char(256)), ("usage_limit", .char(150)), ("compute_type", .char(32)),
                                     ("compile_time", .bigint), ("planning_time", .bigint), ("lock_wait_time", .bigint),
                                     ("service_class_id", .integer), ("service_class_name", .char(64)),
                                     ("query_priority", .char(20)), ("short_query_accelerated", .char(10)),
                                     ("user_query_hash", .char(40)), ("generic_query_hash", .char(40)),
                                     ("query_hash_version", .integer), ("result_cache_query_id", .bigint),
                                     ("short_query_prediction", .char(10))], rows)
        case "svl_query_metrics_summary":
            // Per query (its last run), the largest of STL_QUERY_METRICS' figures, in
            // seconds and MB as Redshift gives them: CPU and run time, MB spilled, the
            // longest segment and its CPU skew (the slowest slice against the average),
            // rows scanned, joined and returned, and time queued. Blocks read, I/O skew
            // and nested-loop and Spectrum rows are not counted: NULL (blocks read 0).
            var stepsByQuery: [Int: [StepRecord]] = [:]
            for q in database.stepLog { stepsByQuery[q.query] = q.steps }
            var last: [Int: WLMHistoryRecord] = [:]
            var order: [Int] = []
            for r in database.wlmRuns {
                if last[r.query] == nil { order.append(r.query) }
                last[r.query] = r
            }
            let rows = order.compactMap { id -> [Value]? in
                guard let r = last[id] else { return nil }
                let cpu = Int64(r.live.cpuNanos / 1_000)
                let usage = r.execMicros > 0 ? Double(cpu) * 100 / Double(r.execMicros) / Double(max(1, slices)) : 0
                var longest: Int64 = 0
                var skew: Value = .null
                var stages: [Int: [Int: Int64]] = [:]
                for st in stepsByQuery[id] ?? [] { stages[st.stage, default: [:]][st.slice, default: 0] += Int64(st.metrics.nanos / 1000) }
                for perSlice in stages.values {
                    let times = Array(perSlice.values)
                    let top = times.max() ?? 0
                    longest = max(longest, top)
                    let average = Double(times.reduce(0, +)) / Double(max(1, times.count))
                    if average > 0 { skew = .double(max(skew.asDouble ?? 0, (Double(top) / average * 100).rounded() / 100)) }
                }
                return [.int(Int64(r.userID)), .int(Int64(r.query)), .int(Int64(r.serviceClass)), .int(cpu / 1_000_000), .int(0),
                        .int(r.execMicros / 1_000_000), .double((usage * 100).rounded() / 100), .int(Int64(r.spilledBytes >> 20)),
                        .int(longest / 1_000_000), skew, .null, .int(Int64(r.live.scanRows)), .int(Int64(r.live.joinRows)), .null,
                        .int(Int64(r.live.returnRows)), .null, .null, .int(r.queueMicros / 1_000_000), .string(r.serviceClassName)]
            }
            return make(-210, name, [("userid", .integer), ("query", .integer), ("service_class", .integer),
                                     ("query_cpu_time", .bigint), ("query_blocks_read", .bigint),
                                     ("query_execution_time", .bigint), ("query_cpu_usage_percent", .double),
                                     ("query_temp_blocks_to_disk", .bigint), ("segment_execution_time", .bigint),
                                     ("cpu_skew", .double), ("io_skew", .double), ("scan_row_count", .bigint),
                                     ("join_row_count", .bigint), ("nested_loop_join_row_count", .bigint),
                                     ("return_row_count", .bigint), ("spectrum_scan_row_count", .bigint),
                                     ("spectrum_scan_size_mb", .bigint), ("query_queue_time", .bigint),
                                     ("service_class_name", .char(64))], rows)
        default:
            return nil
        }
    }

    /// SYS_QUERY_HISTORY.query_type of a statement's text: its first keyword (CREATE TABLE
    /// ... AS is CTAS), OTHER for the rest.
    static func queryType(_ text: String) -> String {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }).prefix(8)
            .map { $0.uppercased() }
        guard let head = words.first else { return "OTHER" }
        switch head {
        case "SELECT", "WITH", "VALUES": return "SELECT"
        case "INSERT", "UPDATE", "DELETE", "COPY", "UNLOAD", "MERGE": return head
        case "CALL": return "COMMAND"
        case "CREATE": return words.contains("AS") ? "CTAS" : "DDL"
        default: return "OTHER"
        }
    }

    /// Redshift's step_type codes (its table of step types) for our step labels; -1 for
    /// a step Redshift has no type for.
    static func stepType(_ label: String) -> Int64 {
        let name = label.split(separator: " ").first.map(String.init) ?? label
        switch name {
        case "scan": return 1
        case "insert": return 2
        case "aggr": return 3
        case "sort": return 6
        case "merge": return 7
        case "dist": return 8
        case "bcast": return 9
        case "hjoin": return 10
        case "save": return 12
        case "hash": return 14
        case "nloop": return 15
        case "project", "filter", "unnest", "values", "union": return 16
        case "limit": return 17
        case "unique": return 18
        case "delete": return 20
        case "window": return 29
        case "return": return 37
        default: return -1
        }
    }

    /// A query's segment-level rows (step_type and step -1) and step-level rows, from its
    /// per-slice step records: `max_*` is the largest slice's figure, the others the sum
    /// over slices; a segment's rows are its last step's; blocks to disk are the MB spilled.
    private func stepMetricRows(_ records: [StepRecord], userID: Int, serviceClass: Int, query: Int, start: Date,
                                slices: Int64, queueMicros: Int64, className: String, priority: Value) -> [[Value]] {
        struct Totals {
            var maxRows = 0, rows = 0, maxMicros: Int64 = 0, micros: Int64 = 0, maxDisk = 0, disk = 0
            mutating func add(perSlice: [Int: (rows: Int, micros: Int64, spilled: Int)]) {
                for v in perSlice.values {
                    maxRows = max(maxRows, v.rows); rows += v.rows
                    maxMicros = max(maxMicros, v.micros); micros += v.micros
                    maxDisk = max(maxDisk, v.spilled >> 20); disk += v.spilled >> 20
                }
            }
        }
        let startMicros = Int64(start.timeIntervalSince1970 * 1_000_000)
        func row(segment: Int, stepType: Int64, step: Int, _ t: Totals) -> [Value] {
            [.int(Int64(userID)), .int(Int64(serviceClass)), .int(Int64(query)), .int(Int64(segment)), .int(stepType),
             .int(startMicros), .int(slices), .int(Int64(t.maxRows)), .int(Int64(t.rows)), .int(t.maxMicros), .int(t.micros),
             .int(0), .int(0), .int(t.maxMicros), .int(t.micros), .int(Int64(t.maxDisk)), .int(Int64(t.disk)),
             .int(Int64(step)), .int(0), .int(0), priority, .int(queueMicros), .string(className)]
        }
        var stages: [Int] = []
        var byStep: [Int: [Int: [StepRecord]]] = [:]
        for r in records {
            if byStep[r.stage] == nil { stages.append(r.stage) }
            byStep[r.stage, default: [:]][r.step, default: []].append(r)
        }
        var out: [[Value]] = []
        for stage in stages.sorted() {
            guard let steps = byStep[stage] else { continue }
            let ordered = steps.keys.sorted()
            var segmentSlices: [Int: (rows: Int, micros: Int64, spilled: Int)] = [:]
            var stepRows: [[Value]] = []
            for (i, step) in ordered.enumerated() {
                guard let group = steps[step], let first = group.first else { continue }
                var perSlice: [Int: (rows: Int, micros: Int64, spilled: Int)] = [:]
                for r in group {
                    let micros = Int64(r.metrics.nanos / 1000)
                    let p = perSlice[r.slice] ?? (0, 0, 0)
                    perSlice[r.slice] = (p.rows + r.metrics.rows, p.micros + micros, p.spilled + r.metrics.spilledBytes)
                    let s = segmentSlices[r.slice] ?? (0, 0, 0)
                    segmentSlices[r.slice] = (i == ordered.count - 1 ? s.rows + r.metrics.rows : s.rows,
                                              s.micros + micros, s.spilled + r.metrics.spilledBytes)
                }
                var t = Totals()
                t.add(perSlice: perSlice)
                stepRows.append(row(segment: stage, stepType: Self.stepType(first.label), step: step, t))
            }
            var t = Totals()
            t.add(perSlice: segmentSlices)
            out.append(row(segment: stage, stepType: -1, step: -1, t))
            out += stepRows
        }
        return out
    }

    private func metricRow(userID: Int, serviceClass: Int, query: Int, start: Date, slices: Int64, live: LiveCounters,
                           runMicros: Int64, spilled: Int, queueMicros: Int64, className: String, priority: Value) -> [Value] {
        let cpu = Int64(live.cpuNanos / 1_000)
        let rows = Int64(live.returnRows)
        let blocks = Int64(spilled >> 20)
        return [.int(Int64(userID)), .int(Int64(serviceClass)), .int(Int64(query)), .int(-1), .int(-1),
                .int(Int64(start.timeIntervalSince1970 * 1_000_000)), .int(slices), .int(rows), .int(rows), .int(cpu), .int(cpu),
                .int(0), .int(0), .int(runMicros), .int(runMicros), .int(blocks), .int(blocks), .int(-1), .int(0),
                .int(0), priority, .int(queueMicros), .string(className)]
    }
}
