// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseStorage
import SlicehouseRuntime
import SlicehouseWorkload
import SlicehousePlatform

/// An STL log the database keeps in its `SystemLogStore` (`syslog/` in the data
/// directory): its name, its system table id and Redshift's columns. Rows are stored in
/// this shape and read back as they are (rows written by another version are fitted to
/// the columns: missing values read as NULL, values of another type as NULL).
struct LogTable: Sendable {
    let name: String
    let id: Int
    let columns: [(String, DataType)]

    /// Every log that is a system table of its own.
    static let tables: [LogTable] = [.loadErrors, .loadCommits, .fileScan, .s3Client, .s3ClientError, .query, .queryText, .ddlText, .utilityText, .error,
                                     .unloadLog, .explain, .alertEventLog, .vacuum, .wlmRuleAction, .mvRefreshStatus, .connectionLog,
                                     .insert, .delete, .trConflict, .commitStats, .s3QuerySummary, .s3Partition]

    /// One row per external table a query scanned (Redshift Spectrum's S3 scan): what it read
    /// from S3 (or local files) and what it handed the slices. Times are the scan's own.
    static let s3QuerySummary = LogTable(name: "svl_s3query_summary", id: -140, columns: [
        ("userid", .integer), ("query", .integer), ("xid", .bigint), ("pid", .integer), ("segment", .integer),
        ("step", .integer), ("starttime", .timestamp), ("endtime", .timestamp), ("elapsed", .integer),
        ("aborted", .integer), ("external_table_name", .char(136)), ("file_format", .char(16)),
        ("is_partitioned", .char(1)), ("is_rrscan", .char(1)), ("is_nested", .char(1)), ("s3_scanned_rows", .bigint),
        ("s3_scanned_bytes", .bigint), ("s3query_returned_rows", .bigint), ("s3query_returned_bytes", .bigint),
        ("files", .integer), ("files_max", .integer), ("files_avg", .integer), ("splits", .integer),
        ("splits_max", .integer), ("splits_avg", .integer), ("total_split_size", .bigint), ("max_split_size", .bigint),
        ("avg_split_size", .bigint), ("total_retries", .integer), ("max_retries", .integer),
        ("max_request_duration", .integer), ("avg_request_duration", .double), ("max_request_parallelism", .integer),
        ("avg_request_parallelism", .double), ("total_slowdown_count", .bigint), ("max_slowdown_count", .integer),
    ])

    /// One row per partitioned external table a query scanned: its partitions, and how many
    /// the query's predicates left to read.
    static let s3Partition = LogTable(name: "svl_s3partition", id: -141, columns: [
        ("query", .integer), ("segment", .integer), ("node", .integer), ("slice", .integer), ("starttime", .timestamp),
        ("endtime", .timestamp), ("duration", .bigint), ("total_partitions", .integer), ("qualified_partitions", .integer),
        ("assigned_partitions", .integer), ("assignment", .char(1)),
    ])

    static let loadErrors = LogTable(name: "stl_load_errors", id: -3, columns: [
        ("userid", .integer), ("slice", .integer), ("tbl", .integer), ("starttime", .timestamp), ("session", .integer),
        ("query", .integer), ("filename", .char(256)), ("line_number", .bigint), ("colname", .char(127)),
        ("type", .char(10)), ("col_length", .char(10)), ("position", .integer), ("raw_line", .char(1024)),
        ("raw_field_value", .char(1024)), ("err_code", .integer), ("err_reason", .char(100)), ("is_partial", .integer),
        ("start_offset", .bigint), ("copy_job_id", .bigint),
    ])

    static let loadCommits = LogTable(name: "stl_load_commits", id: -100, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("name", .char(256)), ("filename", .char(256)),
        ("byte_offset", .integer), ("lines_scanned", .integer), ("errors", .integer), ("curtime", .timestamp),
        ("status", .integer), ("file_format", .char(16)), ("is_partial", .integer), ("start_offset", .bigint),
        ("copy_job_id", .bigint),
    ])

    /// One row per file a COPY read: its bytes (before decompression), the time spent
    /// parsing it (summed over its ranges), when that began, and whether it was cut into
    /// ranges (`is_partial`).
    static let fileScan = LogTable(name: "stl_file_scan", id: -131, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("name", .char(90)), ("lines", .bigint),
        ("bytes", .bigint), ("loadtime", .bigint), ("curtime", .timestamp), ("is_partial", .integer),
        ("start_offset", .bigint),
    ])

    /// One row per S3 request a COPY or UNLOAD made that succeeded (`retries`: the failed
    /// tries it took); times in microseconds since 2000-01-01.
    static let s3Client = LogTable(name: "stl_s3client", id: -122, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("recordtime", .timestamp), ("pid", .integer),
        ("http_method", .char(64)), ("bucket", .char(64)), ("key", .char(256)), ("transfer_size", .bigint),
        ("data_size", .bigint), ("start_time", .bigint), ("end_time", .bigint), ("transfer_time", .bigint),
        ("compression_time", .bigint), ("connect_time", .bigint), ("app_connect_time", .bigint), ("retries", .bigint),
        ("request_id", .char(32)), ("extended_request_id", .char(128)), ("ip_address", .char(64)),
        ("is_partial", .integer), ("start_offset", .bigint),
    ])

    /// One row per try of an S3 request that failed (tried again, or failing the statement).
    static let s3ClientError = LogTable(name: "stl_s3client_error", id: -132, columns: [
        ("userid", .integer), ("query", .integer), ("sliceid", .integer), ("recordtime", .timestamp), ("pid", .integer),
        ("http_method", .char(64)), ("bucket", .char(64)), ("key", .char(256)), ("error", .char(1024)),
        ("is_partial", .integer), ("start_offset", .bigint),
    ])

    /// One row per table a query scanned (all slices together), behind STL_SCAN (not a
    /// table itself: STL_SCAN adds the query's user and times and its scan steps').
    /// is_rrscan: the scan was range-restricted (zone maps let it skip blocks);
    /// runtime_filtering: a hash join's build keys filtered it (rows_runtime_filtered rows
    /// dropped).
    static let scan = LogTable(name: "stl_scan", id: -7, columns: [
        ("query", .integer), ("tbl", .integer), ("rows", .bigint), ("is_rrscan", .boolean), ("blocks_read", .bigint),
        ("blocks_skipped", .bigint), ("runtime_filtering", .boolean), ("rows_runtime_filtered", .bigint),
    ])

    static let query = LogTable(name: "stl_query", id: -101, columns: [
        ("userid", .integer), ("query", .integer), ("label", .char(320)), ("xid", .bigint), ("pid", .integer),
        ("database", .char(32)), ("querytxt", .char(4000)), ("starttime", .timestamp), ("endtime", .timestamp),
        ("aborted", .integer), ("insert_pristine", .integer), ("concurrency_scaling_status", .integer),
    ])

    static let queryText = LogTable(name: "stl_querytext", id: -102, columns: [
        ("userid", .integer), ("xid", .bigint), ("pid", .integer), ("query", .integer), ("sequence", .integer),
        ("text", .char(200)),
    ])

    static let statementTextColumns: [(String, DataType)] = [
        ("userid", .integer), ("xid", .bigint), ("pid", .integer), ("label", .char(320)), ("starttime", .timestamp),
        ("endtime", .timestamp), ("sequence", .integer), ("text", .char(200)),
    ]
    static let ddlText = LogTable(name: "stl_ddltext", id: -103, columns: statementTextColumns)
    static let utilityText = LogTable(name: "stl_utilitytext", id: -104, columns: statementTextColumns)

    /// Internal errors (SQLSTATE class XX) and failures of the system itself; not SQL
    /// errors, as in Redshift.
    static let error = LogTable(name: "stl_error", id: -105, columns: [
        ("userid", .integer), ("process", .char(12)), ("recordtime", .timestamp), ("pid", .integer),
        ("errcode", .integer), ("file", .char(90)), ("linenum", .integer), ("context", .char(100)),
        ("error", .char(512)),
    ])

    static let unloadLog = LogTable(name: "stl_unload_log", id: -108, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("pid", .integer), ("path", .char(1280)),
        ("start_time", .timestamp), ("end_time", .timestamp), ("line_count", .bigint), ("transfer_size", .bigint),
        ("file_format", .char(10)),
    ])

    /// The plan each query ran, one row per step of EXPLAIN's tree (`nodeid` from 1 at the
    /// top, `parentid` 0 for the top).
    static let explain = LogTable(name: "stl_explain", id: -109, columns: [
        ("userid", .integer), ("query", .integer), ("nodeid", .integer), ("parentid", .integer),
        ("plannode", .char(400)), ("info", .char(400)),
    ])

    /// Conditions in a query's run that suggest a better design, with Redshift's solutions.
    static let alertEventLog = LogTable(name: "stl_alert_event_log", id: -110, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("segment", .integer), ("step", .integer),
        ("pid", .integer), ("xid", .bigint), ("event", .char(1024)), ("solution", .char(1024)),
        ("event_time", .timestamp),
    ])

    /// Each query monitoring rule that fired.
    static let wlmRuleAction = LogTable(name: "stl_wlm_rule_action", id: -207, columns: [
        ("userid", .integer), ("query", .integer), ("service_class", .integer), ("rule", .char(256)),
        ("action", .char(256)), ("recordtime", .timestamp),
    ])

    /// Each run of a query through a WLM queue, every field of `WLMHistoryRecord`: behind
    /// STL_WLM_QUERY, SYS_QUERY_HISTORY and STL_QUERY_METRICS' query rows (not a table itself).
    static let wlmRuns = LogTable(name: "wlm_runs", id: 0, columns: [
        ("query", .bigint), ("userid", .bigint), ("xid", .bigint), ("service_class", .bigint),
        ("service_class_name", .text), ("slots", .bigint), ("service_class_start", .bigint), ("queue_start", .bigint),
        ("queue_end", .bigint), ("queue_micros", .bigint), ("exec_start", .bigint), ("exec_end", .bigint),
        ("exec_micros", .bigint), ("end", .bigint), ("final_state", .text), ("peak_memory", .bigint),
        ("short_query_predicted", .boolean), ("prediction_source", .text), ("scan_rows", .bigint),
        ("join_rows", .bigint), ("return_rows", .bigint), ("cpu_nanos", .bigint), ("spilled_bytes", .bigint),
    ])

    /// The start (or skip) and end of each table's VACUUM.
    static let vacuum = LogTable(name: "stl_vacuum", id: -11, columns: [
        ("userid", .integer), ("xid", .bigint), ("table_id", .integer), ("status", .char(30)), ("rows", .bigint),
        ("sortedrows", .integer), ("blocks", .integer), ("max_merge_partitions", .integer), ("eventtime", .timestamp),
        ("reclaimable_rows", .bigint), ("reclaimable_space_mb", .bigint), ("cutoff_xid", .bigint),
        ("is_recluster", .integer),
    ])

    /// One row per table VACUUM that did work: SVV_VACUUM_SUMMARY (a view, not an STL table).
    static let vacuumSummary = LogTable(name: "vacuum_summary", id: 0, columns: [
        ("table_name", .text), ("xid", .bigint), ("sort_partitions", .bigint), ("merge_increments", .bigint),
        ("elapsed_time", .bigint), ("row_delta", .bigint), ("sortedrow_delta", .bigint), ("block_delta", .integer),
        ("max_merge_partitions", .integer),
    ])

    /// What each step of a query did on each slice: behind SVL_QUERY_REPORT,
    /// SVL_QUERY_SUMMARY and STL_QUERY_METRICS' step rows (not a table itself).
    static let steps = LogTable(name: "query_steps", id: 0, columns: [
        ("query", .integer), ("userid", .integer), ("start", .timestamp), ("end", .timestamp), ("stage", .integer),
        ("step", .integer), ("label", .text), ("slice", .integer), ("rows", .bigint), ("bytes", .bigint),
        ("nanos", .bigint), ("workmem", .bigint), ("spilled", .bigint), ("rows_pre_filter", .bigint),
        ("blocks_skipped", .bigint),
    ])

    /// Each REFRESH MATERIALIZED VIEW and what it did.
    static let mvRefreshStatus = LogTable(name: "svl_mv_refresh_status", id: -113, columns: [
        ("db_name", .char(128)), ("userid", .bigint), ("schema_name", .char(128)), ("mv_name", .char(128)),
        ("xid", .bigint), ("starttime", .timestamp), ("endtime", .timestamp), ("status", .text),
        ("refresh_type", .char(32)),
    ])

    /// Each query answered from the result cache, and the query whose rows it reused:
    /// SVL_QLOG's source_query (not a table itself).
    static let resultCacheHits = LogTable(name: "result_cache_hits", id: 0, columns: [
        ("query", .bigint), ("source_query", .bigint),
    ])

    /// Each connection the server authenticated, each session it began and ended, and
    /// each failed authentication: STL_CONNECTION_LOG.
    static let connectionLog = LogTable(name: "stl_connection_log", id: -117, columns: [
        ("event", .char(50)), ("recordtime", .timestamp), ("remotehost", .char(45)), ("remoteport", .char(32)),
        ("pid", .integer), ("dbname", .char(50)), ("username", .char(50)), ("authmethod", .char(32)), ("duration", .integer),
        ("sslversion", .char(50)), ("sslcipher", .char(128)), ("mtu", .integer), ("sslcompression", .char(64)),
        ("sslexpansion", .char(64)), ("iamauthguid", .char(36)), ("application_name", .char(250)), ("os_version", .char(64)),
        ("driver_version", .char(64)), ("plugin_name", .char(32)), ("protocol_version", .integer), ("sessionid", .char(36)),
        ("compression", .char(128)),
    ])

    /// The rows each INSERT statement added to each slice (its segment, step and task are
    /// not kept: NULL).
    static let insert = LogTable(name: "stl_insert", id: -119, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("segment", .integer), ("step", .integer),
        ("starttime", .timestamp), ("endtime", .timestamp), ("tasknum", .integer), ("rows", .bigint), ("tbl", .integer),
        ("inserted_mega_value", .char(1)),
    ])

    /// The rows each DELETE and UPDATE marked deleted on each slice (segment, step and task
    /// not kept: NULL).
    static let delete = LogTable(name: "stl_delete", id: -126, columns: [
        ("userid", .integer), ("query", .integer), ("slice", .integer), ("segment", .integer), ("step", .integer),
        ("starttime", .timestamp), ("endtime", .timestamp), ("tasknum", .integer), ("rows", .bigint), ("tbl", .integer),
    ])

    /// Each transaction rolled back by a serializable isolation violation (error 1023) and
    /// the table it met the conflict on. Superusers only, as in Redshift.
    static let trConflict = LogTable(name: "stl_tr_conflict", id: -127, columns: [
        ("xact_id", .bigint), ("process_id", .bigint), ("xact_start_ts", .timestamp), ("abort_time", .timestamp),
        ("table_id", .bigint),
    ])

    /// Each commit of a transaction that changed something: one row for the leader (node
    /// -1) and one per compute node, with the commit's start and end (the phases between
    /// are not timed apart: each phase's time is the commit's end). Superusers only.
    static let commitStats = LogTable(name: "stl_commit_stats", id: -128, columns: [
        ("xid", .bigint), ("node", .integer), ("startqueue", .timestamp), ("startwork", .timestamp),
        ("endflush", .timestamp), ("endstage", .timestamp), ("endlocal", .timestamp), ("startglobal", .timestamp),
        ("endtime", .timestamp), ("queuelen", .bigint), ("permblocks", .bigint), ("newblocks", .bigint),
        ("dirtyblocks", .bigint), ("headers", .bigint), ("numxids", .integer), ("oldestxid", .bigint),
        ("extwritelatency", .bigint), ("metadatawritten", .integer), ("tombstonedblocks", .bigint),
        ("tossedblocks", .bigint), ("batched_by", .bigint),
    ])

    static func named(_ name: String) -> LogTable? { tables.first { $0.name == name } }

    /// `row` with one value per column, each of the column's kind (else NULL).
    func fit(_ row: [Value]) -> [Value] {
        columns.indices.map { i -> Value in
            guard i < row.count else { return .null }
            let v = row[i]
            switch (v, columns[i].1) {
            case (.null, _): return v
            case (.int, .integer), (.int, .bigint), (.int, .smallint), (.int, .timestamp): return v
            case (.bool, .boolean): return v
            case (.double, .double): return v
            case (.string, .char), (.string, .varchar): return v
            default: return .null
            }
        }
    }
}

/// Which text log a statement's text goes to, as Redshift sorts them.
enum StatementKind: String, Sendable {
    /// A query that runs on the slices: STL_QUERY and STL_QUERYTEXT.
    case query = "QUERY"
    /// CREATE / ALTER / DROP of schemas, tables and views: STL_DDLTEXT.
    case ddl = "DDL"
    /// The rest (transactions, SET, GRANT, ANALYZE, VACUUM, users, ...): STL_UTILITYTEXT.
    case utility = "UTILITY"

    init(_ s: Statement) {
        switch s {
        case .query, .insert, .update, .delete, .merge, .copy, .unload:
            self = .query
        case .createTable(let c):
            if case .query = c.source { self = .query } else { self = .ddl }
        case .createView, .dropView, .dropTable, .createSchema, .dropSchema, .alterSchema, .alterTable,
             .database(.create), .database(.drop), .database(.alter):
            self = .ddl
        default:
            self = .utility
        }
    }
}

extension Database {
    func log(_ table: LogTable, _ rows: [[Value]]) { logs.append(table.name, rows) }

    /// The rows of `table`'s log, fitted to its columns.
    func logRows(_ table: LogTable) -> [[Value]] { logs.rows(table.name).map(table.fit) }

    /// The most of a statement's text the text logs keep (500 rows of STL_QUERYTEXT): a
    /// bulk INSERT of megabytes of VALUES must not fill the logs with itself.
    static let maxLoggedText = 100_000

    /// Redshift cuts statement texts into rows of 200 characters (newlines shown as `\n`).
    static func textPieces(_ text: String) -> [String] {
        // Most statements are one short line: no character to count or replace.
        if text.utf8.count <= 200, !text.utf8.contains(UInt8(ascii: "\n")) { return [text] }
        let flat = String(text.prefix(maxLoggedText)).replacingOccurrences(of: "\n", with: "\\n")
        var pieces: [String] = []
        var rest = Substring(flat)
        repeat {
            pieces.append(String(rest.prefix(200)))
            rest = rest.dropFirst(200)
        } while !rest.isEmpty
        return pieces
    }

    /// Log a finished statement: its text in STL_QUERY / STL_QUERYTEXT (with `query`,
    /// the id it ran as), STL_DDLTEXT or STL_UTILITYTEXT.
    func logStatement(_ kind: StatementKind, text: String, query: Int?, userID: Int, xid: Int, process: Int,
                      database: String, label: String?, start: Int64, end: Int64, failed: Bool) {
        let pieces = Self.textPieces(text)
        switch kind {
        case .query:
            guard let query else { return }
            log(.query, [[.int(Int64(userID)), .int(Int64(query)), .string(label ?? "default"), .int(Int64(xid)),
                          .int(Int64(process)), .string(database), .string(text.utf8.count <= 4000 ? text : String(text.prefix(4000))),
                          .int(start), .int(end), .int(failed ? 1 : 0), .int(0), .int(0)]])
            log(.queryText, pieces.enumerated().map { i, p -> [Value] in
                [.int(Int64(userID)), .int(Int64(xid)), .int(Int64(process)), .int(Int64(query)), .int(Int64(i)), .string(p)]
            })
        case .ddl, .utility:
            log(kind == .ddl ? .ddlText : .utilityText, pieces.enumerated().map { i, p -> [Value] in
                [.int(Int64(userID)), .int(Int64(xid)), .int(Int64(process)), .string(label ?? ""), .int(start), .int(end),
                 .int(Int64(i)), .string(p)]
            })
        }
    }

    /// Log a connection event in STL_CONNECTION_LOG (`authenticated`, `initiating session`,
    /// `disconnecting session`, `authentication failure`): the client's address and port,
    /// the session's process id, user and authentication method, the connection's id
    /// (`sessionid`, which admin views join a session's events by), and for a disconnection
    /// how long the session lasted (microseconds).
    public func logConnection(event: String, remoteHost: String, remotePort: String, process: Int, user: String,
                              authMethod: String, sessionID: String, duration: Int64 = 0, applicationName: String = "",
                              tls: Bool = false, database: String = Database.defaultDatabase) {
        log(.connectionLog, [[.string(event), .int(Clock.nowMicros()), .string(remoteHost), .string(remotePort),
                              .int(Int64(process)), .string(database), .string(user), .string(authMethod),
                              .int(duration), .string(tls ? "TLSv1.2" : ""), .string(""), .int(1500), .string("none"),
                              .string("none"), .string(""), .string(String(applicationName.prefix(250))), .string(""),
                              .string(""), .string(""), .int(0), .string(String(sessionID.prefix(36))), .string("off")]])
    }

    /// Log in STL_INSERT the rows an INSERT added to each slice of table `table`: the
    /// difference between its snapshot before and after.
    func logInserts(query: Int?, userID: Int, table: Int, before: TableSnapshot?, after: TableSnapshot?, start: Int64?) {
        guard let query, let after else { return }
        let end = Clock.nowMicros()
        var rows: [[Value]] = []
        for (s, d) in after.slices.enumerated() {
            let added = d.rowCount - (before.map { s < $0.slices.count ? $0.slices[s].rowCount : 0 } ?? 0)
            guard added > 0 else { continue }
            rows.append([.int(Int64(userID)), .int(Int64(query)), .int(Int64(s)), .null, .null, .int(start ?? end), .int(end), .null,
                         .int(Int64(added)), .int(Int64(table)), .string("f")])
        }
        log(.insert, rows)
    }

    /// Log in STL_DELETE the rows a DELETE or UPDATE marked deleted on each slice of table
    /// `table`: the difference between its snapshot before and after.
    func logDeletes(query: Int?, userID: Int, table: Int, before: TableSnapshot, after: TableSnapshot, start: Int64?) {
        guard let query else { return }
        let end = Clock.nowMicros()
        var rows: [[Value]] = []
        for (s, d) in after.slices.enumerated() {
            let marked = d.deleted.count - (s < before.slices.count ? before.slices[s].deleted.count : 0)
            guard marked > 0 else { continue }
            rows.append([.int(Int64(userID)), .int(Int64(query)), .int(Int64(s)), .null, .null, .int(start ?? end), .int(end), .null,
                         .int(Int64(marked)), .int(Int64(table))])
        }
        log(.delete, rows)
    }

    /// Log a commit in STL_COMMIT_STATS: the leader's row and each compute node's.
    func logCommit(xid: Int, start: Int64, end: Int64) {
        let rows = ([-1] + Array(0..<layout.nodes)).map { node -> [Value] in
            [.int(Int64(xid)), .int(Int64(node)), .int(start), .int(start), .int(end), .int(end), .int(end), .int(end), .int(end),
             .int(0), .null, .null, .null, .null, .null, .null, .null, .null, .null, .null, .null]
        }
        log(.commitStats, rows)
    }

    /// Log in STL_TR_CONFLICT a transaction rolled back by error 1023 (`e`), whose detail
    /// names the table (`Serializable isolation violation on table - 100234, ...`).
    func logConflict(_ e: SQLError, xid: Int, process: Int, transactionStart: Int64) {
        guard e.code == .serializationFailure, let detail = e.detail,
              let r = detail.range(of: "on table - ") else { return }
        let table = Int64(detail[r.upperBound...].prefix { $0.isNumber }) ?? 0
        log(.trConflict, [[.int(Int64(xid)), .int(Int64(process)), .int(transactionStart), .int(Clock.nowMicros()), .int(table)]])
    }

    /// Log an internal error (SQLSTATE class XX) in STL_ERROR.
    func logError(_ e: SQLError, text: String, userID: Int, process: Int) {
        log(.error, [[.int(Int64(userID)), .string("slicehouse"), .int(Clock.nowMicros()), .int(Int64(process)),
                      .int(Int64(Int(e.code.rawValue.dropFirst(2), radix: 16) ?? 0)), .string(""), .int(0),
                      .string(String(text.prefix(100))), .string(String(e.message.prefix(512)))]])
    }
}

/// WLM's history in the database's logs (`WorkloadManager.setRecorder`).
final class WLMLog: WLMRecorder, @unchecked Sendable {
    let logs: SystemLogStore
    init(logs: SystemLogStore) { self.logs = logs }

    static func micros(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1_000_000).rounded()) }
    static func date(_ v: Value) -> Date { Date(timeIntervalSince1970: Double(v.asInt64 ?? 0) / 1_000_000) }

    func record(_ r: WLMHistoryRecord) {
        let m = Self.micros
        logs.append(LogTable.wlmRuns.name, [[
            .int(Int64(r.query)), .int(Int64(r.userID)), .int(Int64(r.xid)), .int(Int64(r.serviceClass)),
            .string(r.serviceClassName), .int(Int64(r.slots)), .int(m(r.serviceClassStart)), .int(m(r.queueStart)),
            .int(m(r.queueEnd)), .int(r.queueMicros), .int(m(r.execStart)), .int(m(r.execEnd)), .int(r.execMicros),
            .int(m(r.end)), .string(r.finalState), .int(Int64(r.peakMemory)), r.shortQueryPredicted.map { .bool($0) } ?? .null,
            r.predictionSource.map { .string($0) } ?? .null, .int(Int64(r.live.scanRows)), .int(Int64(r.live.joinRows)),
            .int(Int64(r.live.returnRows)), .int(Int64(clamping: r.live.cpuNanos)), .int(Int64(r.spilledBytes)),
        ]])
    }

    func record(_ a: WLMRuleActionRecord) {
        logs.append(LogTable.wlmRuleAction.name, [[
            .int(Int64(a.userID)), .int(Int64(a.query)), .int(Int64(a.serviceClass)), .string(a.rule), .string(a.action),
            .int(Self.micros(a.time)),
        ]])
    }

    /// The runs logged, oldest first.
    static func runs(_ rows: [[Value]]) -> [WLMHistoryRecord] {
        rows.map { r in
            func int(_ i: Int) -> Int { Int(r[i].asInt64 ?? 0) }
            var live = LiveCounters()
            live.scanRows = int(18); live.joinRows = int(19); live.returnRows = int(20)
            live.cpuNanos = UInt64(max(0, int(21)))
            var predicted: Bool? = nil
            if case .bool(let b) = r[16] { predicted = b }
            return WLMHistoryRecord(
                query: int(0), userID: int(1), xid: int(2), serviceClass: int(3), serviceClassName: r[4].asString ?? "",
                slots: int(5), serviceClassStart: date(r[6]), queueStart: date(r[7]), queueEnd: date(r[8]),
                queueMicros: Int64(int(9)), execStart: date(r[10]), execEnd: date(r[11]), execMicros: Int64(int(12)),
                end: date(r[13]), finalState: r[14].asString ?? "", peakMemory: int(15), shortQueryPredicted: predicted,
                predictionSource: r[17].asString, live: live, spilledBytes: int(22))
        }
    }
}

extension Database {
    /// WLM's finished runs (STL_WLM_QUERY, SYS_QUERY_HISTORY, STL_QUERY_METRICS), oldest first.
    var wlmRuns: [WLMHistoryRecord] { WLMLog.runs(logRows(.wlmRuns)) }
}
