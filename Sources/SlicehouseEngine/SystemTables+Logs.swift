// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseRuntime
import SlicehousePlatform

/// The STL logs (`LogTable`), read from the database's `SystemLogStore`, and the views
/// Redshift builds on them: SVL_QLOG (STL_QUERY's summary) and SVL_STATEMENTTEXT (every
/// statement's text: STL_QUERYTEXT, STL_DDLTEXT and STL_UTILITYTEXT together).
///
/// As in Redshift, a superuser sees every row; any other user sees only the rows with
/// their own `userid` (`SystemTables.ownRows`, applied to every system relation).
extension SystemTables {
    static let logNames = LogTable.tables.map(\.name) + ["stl_scan", "svl_qlog", "svl_statementtext", "stv_inflight", "stv_recents",
                                                          "stv_mv_info", "svv_alter_table_recommendations", "stv_exec_state",
                                                          "stl_plan_info", "stv_active_cursors", "sys_query_detail",
                                                          "svv_mv_info"]

    /// STV_RECENTS shows this many finished queries, the most recent.
    static let recentQueries = 100

    func logTable(named name: String) -> (TableDef, TableSnapshot)? {
        if let t = LogTable.named(name) { return make(t.id, name, t.columns, database.logRows(t)) }
        switch name {
        case "stl_scan":
            // One row per table a query scanned, its slices together (slice is NULL): the
            // query's user and times from STL_QUERY, segment, step, bytes and rows before
            // filters from its scan step's records (SVL_QUERY_REPORT). Redshift's columns,
            // then what Slicehouse counts of the scan: blocks read and skipped, and rows a
            // hash join's runtime filter removed.
            var queries: [Int64: [Value]] = [:]
            for q in database.logRows(.query) { if let id = q[1].asInt64 { queries[id] = q } }
            let scans = database.logRows(.scan)
            let scanned = Set(scans.compactMap { $0[0].asInt64 })
            var steps: [Int64: [StepRecord]] = [:]
            for q in database.stepLog where scanned.contains(Int64(q.query)) { steps[Int64(q.query)] = q.steps }
            let names = Dictionary(transaction.catalog.allTables.map { (Int64($0.id), $0.name) }, uniquingKeysWith: { a, _ in a })
            let rows = scans.map { r -> [Value] in
                let q = r[0].asInt64.flatMap { queries[$0] }
                let table = r[1].asInt64 ?? -1
                let mine = (r[0].asInt64.flatMap { steps[$0] } ?? []).filter {
                    $0.label.hasPrefix("scan") && $0.label.contains("tbl=\(table) ")
                }
                let first = mine.first
                let rrscan: Value = r[3] == .bool(true) ? .string("t") : r[3] == .null ? .null : .string("f")
                return [q?[0] ?? .null, r[0], .null, first.map { .int(Int64($0.stage)) } ?? .null,
                        first.map { .int(Int64($0.step)) } ?? .null, q?[7] ?? .null, q?[8] ?? .null, .null, r[2],
                        first == nil ? .null : .int(Int64(mine.reduce(0) { $0 + $1.metrics.bytes })), .int(0), .int(2), r[1], rrscan,
                        .string("f"), first == nil ? .null : .int(Int64(mine.reduce(0) { $0 + $1.metrics.rowsPreFilter })), .null,
                        names[table].map { .string($0) } ?? .null, .string("f"), .int(0), r[4], r[5], r[6], r[7]]
            }
            return make(LogTable.scan.id, name, [("userid", .integer), ("query", .integer), ("slice", .integer),
                                                 ("segment", .integer), ("step", .integer), ("starttime", .timestamp),
                                                 ("endtime", .timestamp), ("tasknum", .integer), ("rows", .bigint),
                                                 ("bytes", .bigint), ("fetches", .bigint), ("type", .integer), ("tbl", .integer),
                                                 ("is_rrscan", .char(1)), ("is_delayed_scan", .char(1)),
                                                 ("rows_pre_filter", .bigint), ("rows_pre_user_filter", .bigint),
                                                 ("perm_table_name", .char(136)), ("is_rlf_scan", .char(1)),
                                                 ("is_rlf_scan_reason", .integer), ("blocks_read", .bigint),
                                                 ("blocks_skipped", .bigint), ("runtime_filtering", .boolean),
                                                 ("rows_runtime_filtered", .bigint)], rows)
        case "sys_query_detail":
            // One row per step that touched a permanent table: each INSERT's and COPY's
            // insert step (STL_INSERT) and each DELETE's and UPDATE's delete step
            // (STL_DELETE), their slices summed, and each scan (STL_SCAN). dbt's source
            // freshness reads a table's last insert here. Redshift's columns through
            // output_rows, then blocks_read and is_active; streams and segments are not
            // kept apart (NULL). The rows of a DISTSTYLE ALL table are counted once (each
            // node's slice holds a copy).
            var queries: [Int64: [Value]] = [:]
            for q in database.logRows(.query) { if let id = q[1].asInt64 { queries[id] = q } }
            let names = Dictionary(transaction.catalog.allTables.map { (Int64($0.id), $0.name) }, uniquingKeysWith: { a, _ in a })
            func micros(_ start: Value, _ end: Value) -> Value {
                guard let s = start.asInt64, let e = end.asInt64 else { return .null }
                return .int(e - s)
            }
            var rows: [[Value]] = []
            for (step, log) in [("insert", LogTable.insert), ("delete", LogTable.delete)] {
                // (query, table) -> (user, first start, last end, rows), in the log's order
                var order: [[Int64]] = []
                var merged: [[Int64]: (user: Value, start: Value, end: Value, rows: Int64, most: Int64)] = [:]
                for r in database.logRows(log) {
                    guard let query = r[1].asInt64, let table = r[9].asInt64 else { continue }
                    let key = [query, table]
                    let n = r[8].asInt64 ?? 0
                    if var m = merged[key] {
                        if let s = r[5].asInt64, let ms = m.start.asInt64, s < ms { m.start = r[5] }
                        if let e = r[6].asInt64, let me = m.end.asInt64, e > me { m.end = r[6] }
                        m.rows += n
                        m.most = max(m.most, n)
                        merged[key] = m
                    } else {
                        merged[key] = (r[0], r[5], r[6], n, n)
                        order.append(key)
                    }
                }
                for key in order {
                    guard let m = merged[key] else { continue }
                    let copies = transaction.catalog.table(id: Int(key[1])).flatMap { transaction.peek($0.id) }?.distribution == .all
                    let n = copies ? m.most : m.rows
                    rows.append([m.user, .int(key[0]), .int(1), .null, .null, .null, .string(step), .int(key[1]),
                                 names[key[1]].map { .string($0) } ?? .null, .string("f"), m.start, m.end,
                                 micros(m.start, m.end), .null, .null, .int(n), .null, .int(n), .null, .string("f")])
                }
            }
            for r in database.logRows(.scan) {
                guard let query = r[0].asInt64, let table = r[1].asInt64 else { continue }
                let q = queries[query]
                let start = q?[7] ?? .null, end = q?[8] ?? .null
                rows.append([q?[0] ?? .null, .int(query), .int(1), .null, .null, .null, .string("scan"), .int(table),
                             names[table].map { .string($0) } ?? .null,
                             .string(r[3] == .bool(true) ? "t" : "f"), start, end, micros(start, end), .null, .null, .null,
                             .null, r[2], r[4], .string("f")])
            }
            return make(-225, name, [("user_id", .integer), ("query_id", .bigint), ("child_query_sequence", .integer),
                                     ("stream_id", .integer), ("segment_id", .integer), ("step_id", .integer),
                                     ("step_name", .text), ("table_id", .integer), ("table_name", .char(136)),
                                     ("is_rrscan", .char(1)), ("start_time", .timestamp), ("end_time", .timestamp),
                                     ("duration", .bigint), ("alert", .text), ("input_bytes", .bigint), ("input_rows", .bigint),
                                     ("output_bytes", .bigint), ("output_rows", .bigint), ("blocks_read", .bigint),
                                     ("is_active", .char(1))], rows)
        case "stl_plan_info":
            // STL_EXPLAIN's steps as numbers: each step's costs, rows and bytes (rows times
            // width) from its `(cost=a..b rows=r width=w)`; locus 1 for a step on the leader
            // (no `XN` prefix). Redshift's plannode codes and the steps' segments are not
            // kept: NULL.
            let rows = database.logRows(.explain).map { e -> [Value] in
                let text = (e[4].asString ?? "").trimmingCharacters(in: .whitespaces)
                let figures = Self.planFigures(text)
                return [e[0], e[1], e[2], .null, .null, .int(text.hasPrefix("XN") ? 0 : 1), .null,
                        figures.map { .double($0.startup) } ?? .null, figures.map { .double($0.total) } ?? .null,
                        figures.map { .int($0.rows) } ?? .null, figures.map { .int($0.rows * $0.width) } ?? .null]
            }
            return make(-118, name, [("userid", .integer), ("query", .integer), ("nodeid", .integer), ("segment", .integer),
                                     ("step", .integer), ("locus", .integer), ("plannode", .integer), ("startupcost", .double),
                                     ("totalcost", .double), ("rows", .bigint), ("bytes", .bigint)], rows)
        case "stv_active_cursors":
            // Slicehouse has no cursors (DECLARE): no rows.
            return make(-123, name, [("userid", .integer), ("name", .char(256)), ("xid", .bigint), ("pid", .integer),
                                     ("starttime", .timestamp), ("row_count", .bigint), ("byte_count", .bigint),
                                     ("fetched_rows", .bigint)], [])
        case "svl_qlog":
            var sources: [Int64: Int64] = [:]
            for h in database.logRows(.resultCacheHits) {
                if let q = h[0].asInt64, let source = h[1].asInt64 { sources[q] = source }
            }
            let rows = database.logRows(.query).map { q -> [Value] in
                let text = q[6].asString ?? ""
                let elapsed: Value = q[7].asInt64.flatMap { s in q[8].asInt64.map { .int($0 - s) } } ?? .null
                let source: Value = q[1].asInt64.flatMap { sources[$0] }.map { .int($0) } ?? .null
                return [q[0], q[1], q[3], q[4], q[7], q[8], elapsed, q[9], q[2],
                        .string(String(Database.textPieces(text)[0].prefix(60))), source,
                        .string("0 - Ran on the main cluster"), .null]
            }
            return make(-106, name, [("userid", .integer), ("query", .integer), ("xid", .bigint), ("pid", .integer),
                                     ("starttime", .timestamp), ("endtime", .timestamp), ("elapsed", .bigint),
                                     ("aborted", .integer), ("label", .char(320)), ("substring", .char(60)),
                                     ("source_query", .integer), ("concurrency_scaling_status_txt", .text),
                                     ("from_sp_call", .integer)], rows)
        case "stv_exec_state":
            // The steps of the queries running now, in every session, as far as their
            // pipelines have reported on each slice (a step appears when its pipeline has
            // finished on that slice).
            let now = Clock.nowMicros()
            var rows: [[Value]] = []
            for s in database.openSessions {
                guard let r = s.runningStatement, let query = r.query, let steps = s.runningStepRecords else { continue }
                for st in steps {
                    let m = st.metrics
                    rows.append([.int(Int64(s.currentUserID)), .int(Int64(query)), .int(Int64(st.slice)),
                                 .int(Int64(st.stage)), .int(Int64(st.step)), .int(r.start), .int(now), .int(0),
                                 .int(Int64(m.rows)), .int(Int64(m.bytes)), .string(st.label),
                                 .string(m.isDiskBased ? "t" : "f"), .int(Int64(m.peakMemory)), .int(1),
                                 .string(m.blocksSkipped > 0 ? "t" : "f"), .string("f")])
                }
            }
            let columns: [(String, DataType)] = [("userid", .integer), ("query", .integer), ("slice", .integer),
                                                 ("segment", .integer), ("step", .integer), ("starttime", .timestamp),
                                                 ("currenttime", .timestamp), ("tasknum", .integer), ("rows", .bigint),
                                                 ("bytes", .bigint), ("label", .char(256)), ("is_diskbased", .char(1)),
                                                 ("workmem", .bigint), ("num_parts", .integer), ("is_rrscan", .char(1)),
                                                 ("is_delayed_scan", .char(1))]
            return make(-116, name, columns, rows)
        case "stv_mv_info", "svv_mv_info":
            // Every materialized view: stale when a base table changed since its last refresh.
            // SVV_MV_INFO shows the same in other columns (dbt reads autorefresh there).
            // A superuser (or SYSLOG ACCESS UNRESTRICTED) sees every one; another user those
            // whose schema they may use (STV_MV_INFO) or that they own (SVV_MV_INFO).
            let catalog = transaction.catalog
            let viewer = session.flatMap { catalog.security.user($0.user) }
            let seesAll = session == nil || viewer.map { $0.superuser || $0.syslogUnrestricted } ?? false
            var rows: [[Value]] = []
            for def in catalog.allTables.sorted(by: { ($0.schema, $0.name) < ($1.schema, $1.name) }) {
                guard let mv = def.materializedView else { continue }
                if !seesAll, let session {
                    if name == "svv_mv_info" {
                        guard catalog.security.owner(.table(def.id)) == session.user else { continue }
                    } else if (try? session.access.requireUsage(ofSchema: def.schema, as: session.user)) == nil {
                        continue
                    }
                }
                let state = transaction.peek(def.id)?.refreshState
                let stale = !(state?.isCurrent { catalog.table(id: $0) == nil ? nil : transaction.peek($0) } ?? false)
                let incremental = session.map { MaterializedViews($0).canRefreshIncrementally(mv) } ?? false
                let owner = catalog.security.owner(.table(def.id)) ?? ""
                rows.append([.string(databaseName), .string(def.schema), .string(def.name),
                             .int(Int64(state?.xid ?? 0)), .string(stale ? "t" : "f"), .string(owner),
                             .int(incremental ? 1 : 0), .string(mv.autoRefresh ? "t" : "f"), .string("t")])
            }
            if name == "svv_mv_info" {
                return make(-226, name, [("database_name", .char(128)), ("schema_name", .char(128)), ("user_name", .char(128)),
                                         ("name", .char(128)), ("is_stale", .char(1)), ("state", .integer),
                                         ("autorefresh", .char(1)), ("autorewrite", .char(1))],
                            rows.map { [$0[0], $0[1], $0[5], $0[2], $0[4], $0[6], $0[7], $0[8]] })
            }
            return make(-114, name, [("db_name", .char(128)), ("schema", .char(128)), ("name", .char(128)),
                                     ("updated_upto_xid", .bigint), ("is_stale", .char(1)),
                                     ("owner_user_name", .char(128)), ("state", .integer), ("autorefresh", .char(1)),
                                     ("autorewrite", .char(1))], rows)
        case "svv_alter_table_recommendations":
            // The key advisor's changes (Redshift's columns, and why).
            var rows: [[Value]] = []
            if let session, let advice = try? session.adviseKeys() {
                for (group, change) in advice.changes.enumerated() {
                    for ddl in change.ddl {
                        rows.append([.string(ddl.contains("SORTKEY") ? "sortkey" : "diststyle"), .string(databaseName),
                                     .int(Int64(change.tableID)), .int(Int64(group)), .string(ddl), .string("f"),
                                     .string(change.reason)])
                    }
                }
            }
            return make(-115, name, [("type", .char(30)), ("database", .char(128)), ("table_id", .integer),
                                     ("group_id", .integer), ("ddl", .char(2048)), ("auto_eligible", .char(1)),
                                     ("reason", .varchar(1024))], rows)
        case "svl_statementtext":
            // Query texts take their label and times from STL_QUERY.
            var queries: [Int64: [Value]] = [:]
            for q in database.logRows(.query) { if let id = q[1].asInt64 { queries[id] = q } }
            var rows: [[Value]] = []
            for t in database.logRows(.queryText) {
                guard let id = t[3].asInt64, let q = queries[id] else { continue }
                rows.append([t[0], t[1], t[2], q[2], q[7], q[8], t[4], .string(StatementKind.query.rawValue), t[5]])
            }
            for (table, kind) in [(LogTable.ddlText, StatementKind.ddl), (.utilityText, .utility)] {
                for t in database.logRows(table) {
                    rows.append([t[0], t[1], t[2], t[3], t[4], t[5], t[6], .string(kind.rawValue), t[7]])
                }
            }
            // In the order the statements ran, each one's pieces in sequence.
            let ordered = rows.enumerated().sorted { a, b in
                let (x, y) = (a.element[4].asInt64 ?? 0, b.element[4].asInt64 ?? 0)
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
            let columns: [(String, DataType)] = [("userid", .integer), ("xid", .bigint), ("pid", .integer),
                                                 ("label", .char(320)), ("starttime", .timestamp), ("endtime", .timestamp),
                                                 ("sequence", .integer), ("type", .varchar(10)), ("text", .char(200))]
            return make(-107, name, columns, ordered)
        case "stv_inflight":
            // Queries running now (this one too), in every session.
            var rows: [[Value]] = []
            for s in database.openSessions {
                guard let r = s.runningStatement, r.kind == .query, let query = r.query else { continue }
                rows.append([.int(Int64(s.currentUserID)), .int(0), .int(Int64(query)), .string(r.label ?? "default"),
                             .int(Int64(r.xid)), .int(Int64(s.process)), .int(r.start), .string(String(r.text.prefix(100))),
                             .int(0), .int(0), .int(0)])
            }
            let columns: [(String, DataType)] = [("userid", .integer), ("slice", .integer), ("query", .integer),
                                                 ("label", .char(320)), ("xid", .bigint), ("pid", .integer),
                                                 ("starttime", .timestamp), ("text", .char(100)), ("suspended", .integer),
                                                 ("insert_pristine", .integer), ("concurrency_scaling_status", .integer)]
            return make(-111, name, columns, rows)
        case "stv_recents":
            // Statements running now, then the latest finished queries.
            let now = Clock.nowMicros()
            let users = Dictionary(transaction.catalog.security.allUsers.map { (Int64($0.id), $0.name) },
                                   uniquingKeysWith: { a, _ in a })
            var rows: [[Value]] = []
            for s in database.openSessions {
                guard let r = s.runningStatement else { continue }
                rows.append([.int(Int64(s.currentUserID)), .string("Running"), .int(r.start), .int(now - r.start),
                             .string(s.user), .string(s.databaseName), .string(String(r.text.prefix(600))),
                             .int(Int64(s.process))])
            }
            for q in database.logRows(.query).suffix(Self.recentQueries).reversed() {
                let user = q[0].asInt64.flatMap { users[$0] }
                let duration: Value = q[7].asInt64.flatMap { s in q[8].asInt64.map { .int($0 - s) } } ?? .null
                rows.append([q[0], .string("Done"), q[7], duration, user.map { .string($0) } ?? .null,
                             q[5], .string(String((q[6].asString ?? "").prefix(600))), q[4]])
            }
            let columns: [(String, DataType)] = [("userid", .integer), ("status", .char(20)), ("starttime", .timestamp),
                                                 ("duration", .bigint), ("user_name", .char(50)), ("db_name", .char(50)),
                                                 ("query", .char(600)), ("pid", .integer)]
            return make(-112, name, columns, rows)
        default:
            return nil
        }
    }

    /// The figures of an EXPLAIN line's `(cost=a..b rows=r width=w)`.
    static func planFigures(_ line: String) -> (startup: Double, total: Double, rows: Int64, width: Int64)? {
        guard let open = line.range(of: "(cost="), let close = line[open.upperBound...].firstIndex(of: ")") else { return nil }
        let parts = line[open.upperBound..<close].split(separator: " ")
        guard parts.count == 3, let dots = parts[0].range(of: ".."),
              let startup = Double(parts[0][..<dots.lowerBound]), let total = Double(parts[0][dots.upperBound...]),
              parts[1].hasPrefix("rows="), let rows = Int64(parts[1].dropFirst(5)),
              parts[2].hasPrefix("width="), let width = Int64(parts[2].dropFirst(6)) else { return nil }
        return (startup, total, rows, width)
    }
}
