// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseRuntime
import SlicehouseStorage
import SlicehouseTypes

/// The STL logs as a user reads them across restarts of the database: what a statement
/// run in one process leaves for a later one, retention, ids that never repeat, and who
/// sees which rows.
final class SystemLogTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-logs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "-files", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: dir + "-files")
    }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    final class FakeClock: @unchecked Sendable {
        var micros: Int64 = 1_800_000_000_000_000
    }

    func open(_ clock: FakeClock? = nil) throws -> Session {
        if let clock {
            return try Database(directory: dir, logClock: { clock.micros }).connect()
        }
        return try Database(directory: dir).connect()
    }

    /// The automatic VACUUM DELETE would reclaim deleted rows under the test's feet.
    func openWithoutAutoVacuum() throws -> Session {
        let database = try Database(directory: dir)
        database.autoVacuum?.stop()
        return database.connect()
    }

    /// The issue's case: `slicehouse -c "copy ..."`, then `slicehouse -c "select * from stl_load_errors"`.
    func testACopysErrorsAndCommitsOutliveTheProcess() throws {
        let file = dir + "-files/rows.txt"
        try "1|one\nx|two\n3|three\n4\n".write(toFile: file, atomically: true, encoding: .utf8)
        var copyID: String?
        do {
            let s = try open()
            _ = try s.execute("create table t (a int, b varchar(10))")
            _ = try s.execute("copy t from '\(file)' delimiter '|' maxerror 10")
            copyID = try rows(s, "select pg_last_copy_id()").first?.first ?? nil
        }
        let s = try open()
        XCTAssertEqual(try rows(s, """
            select query, trim(filename), line_number, trim(colname), err_code, trim(raw_line)
            from stl_load_errors order by line_number
            """), [[copyID, file, "2", "a", "1207", "x|two"], [copyID, file, "4", "b", "1203", "4"]])
        XCTAssertEqual(try rows(s, "select query, trim(name), trim(filename), lines_scanned, status, trim(file_format) from stl_load_commits"),
                       [[copyID, "t", file, "4", "1", "Text"]])
        // STL_FILE_SCAN: the file, its lines and bytes, one range (not partial), parsed after the COPY began.
        XCTAssertEqual(try rows(s, "select query, trim(name), lines, bytes, is_partial, start_offset, loadtime >= 0 from stl_file_scan"),
                       [[copyID, String(file.prefix(90)), "4", "22", "0", "0", "t"]])
        XCTAssertEqual(try rows(s, """
            select count(*) from stl_file_scan f join stl_query q on f.query = q.query where f.curtime >= q.starttime
            """), [["1"]])
        XCTAssertEqual(try rows(s, "select aborted, trim(querytxt) from stl_query where query = \(copyID ?? "0")"),
                       [["0", "copy t from '\(file)' delimiter '|' maxerror 10"]])
    }

    func testStatementTextsAndQueryIDsAcrossRestarts() throws {
        var first: [String?] = []
        do {
            let s = try open()
            _ = try s.execute("create table t (a int)")
            _ = try s.execute("insert into t values (1), (2)")
            _ = try s.execute("set query_group to 'nightly'")
            _ = try s.execute("select count(*)\nfrom t")
            first = try rows(s, "select query from stl_query order by query").map { $0[0] }
            XCTAssertEqual(first.count, 2)
        }
        let s = try open()
        _ = try s.execute("select sum(a) from t")
        let all = try rows(s, "select query, xid, trim(label), aborted, trim(querytxt) from stl_query order by starttime")
        XCTAssertEqual(all.map { $0[4] }, ["insert into t values (1), (2)", "select count(*)\nfrom t",
                                           "select query from stl_query order by query", "select sum(a) from t"])
        XCTAssertEqual(all.map { $0[2] }, ["default", "nightly", "nightly", "default"])
        // Ids and xids of the second process never repeat the first's.
        XCTAssertEqual(Set(all.map { $0[0] }).count, 4)
        XCTAssertEqual(Set(all.map { $0[1] }).count, 4)
        let ids = all.compactMap { $0[0].flatMap { Int($0) } }
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertEqual(first, all.prefix(2).map { $0[0] })
        // Texts: newlines shown as \n; DDL and utility statements in their own logs.
        XCTAssertEqual(try rows(s, "select sequence, trim(text) from stl_querytext where query = \(ids[1])"),
                       [["0", "select count(*)\\nfrom t"]])
        XCTAssertEqual(try rows(s, "select trim(text) from stl_ddltext"), [["create table t (a int)"]])
        XCTAssertEqual(try rows(s, "select trim(text) from stl_utilitytext"), [["set query_group to 'nightly'"]])
        XCTAssertEqual(try rows(s, """
            select trim(type), trim(text) from svl_statementtext where text not like '%stl_%' order by starttime, sequence
            """), [["DDL", "create table t (a int)"], ["QUERY", "insert into t values (1), (2)"],
                   ["UTILITY", "set query_group to 'nightly'"], ["QUERY", "select count(*)\\nfrom t"],
                   ["QUERY", "select sum(a) from t"]])
        XCTAssertEqual(try rows(s, "select query, aborted, elapsed >= 0, trim(substring) from svl_qlog where query = \(ids[3])"),
                       [["\(ids[3])", "0", "t", "select sum(a) from t"]])
    }

    func testLongTextIsCutInto200CharacterPieces() throws {
        let s = try open()
        let long = "select " + (0..<120).map { "\($0) as c\($0)" }.joined(separator: ", ")
        _ = try s.execute(long)
        let pieces = try rows(s, "select sequence, text from stl_querytext where query = pg_last_query_id() order by sequence")
        XCTAssertEqual(pieces.map { $0[0] }, (0..<((long.count + 199) / 200)).map { String($0) })
        // CHAR(200): the last piece is padded with blanks.
        let joined = pieces.compactMap { $0[1] }.joined()
        XCTAssertEqual(String(joined.prefix(long.count)), long)
        XCTAssertTrue(joined.dropFirst(long.count).allSatisfy { $0 == " " })
        XCTAssertTrue(pieces.dropLast().allSatisfy { $0[1]?.count == 200 })
        // A text past 100,000 characters keeps its first 100,000 (500 rows).
        _ = try s.execute("select '" + String(repeating: "x", count: 150_000) + "' as v")
        XCTAssertEqual(try rows(s, "select count(*), max(sequence) from stl_querytext where query = pg_last_query_id()"),
                       [["500", "499"]])
    }

    func testFailedQueriesAreAbortedAndInternalErrorsGoToSTLError() throws {
        let s = try open()
        _ = try s.execute("create table t (a int)")
        _ = try s.execute("insert into t values (0)")
        XCTAssertThrowsError(try s.execute("select 1 / a from t"))
        XCTAssertEqual(try rows(s, "select aborted, trim(querytxt) from stl_query order by query desc limit 1"),
                       [["1", "select 1 / a from t"]])
        // A SQL error is not an internal error: STL_ERROR stays empty, as in Redshift.
        XCTAssertEqual(try rows(s, "select count(*) from stl_error"), [["0"]])
    }

    func testRowsPastTheRetentionAreGoneAfterARestart() throws {
        let clock = FakeClock()
        do {
            let s = try open(clock)
            _ = try s.execute("create table t (a int)")
            _ = try s.execute("select count(*) from t")
        }
        clock.micros += 6 * 86_400 * 1_000_000
        do {
            let s = try open(clock)
            XCTAssertEqual(try rows(s, "select trim(querytxt) from stl_query"), [["select count(*) from t"]])
        }
        clock.micros += 2 * 86_400 * 1_000_000
        let s = try open(clock)
        // The first process's rows are eight days old now; the one reading stl_query six days in is two.
        XCTAssertEqual(try rows(s, "select trim(querytxt) from stl_query"), [["select trim(querytxt) from stl_query"]])
        XCTAssertEqual(try rows(s, "select count(*) from stl_ddltext"), [["0"]])
        XCTAssertEqual(try rows(s, "select count(*) from svl_query_report where query = 1"), [["0"]])
    }

    func testOrdinaryUsersSeeOnlyTheirOwnRows() throws {
        let s = try open()
        _ = try s.execute("create user alice password 'Secret123'")
        _ = try s.execute("create table t (a int)")
        _ = try s.execute("grant select on t to alice")
        _ = try s.execute("select count(*) from t")
        let alice = s.database.connect()
        alice.authenticate(as: "alice")
        _ = try alice.execute("select a from t")
        XCTAssertEqual(try rows(alice, "select trim(querytxt) from stl_query order by query"), [["select a from t"]])
        XCTAssertEqual(try rows(s, "select count(*) from stl_query where trim(querytxt) like 'select%from t'"), [["2"]])
    }

    func testStepsOfAQueryOutliveTheProcess() throws {
        var query: String?
        do {
            let s = try open()
            _ = try s.execute("create table t (a int, b int)")
            _ = try s.execute("insert into t select x, x % 3 from generate_series(1, 100) as g(x)")
            _ = try s.execute("select b, count(*) from t group by b")
            query = try rows(s, "select pg_last_query_id()").first?.first ?? nil
        }
        let s = try open()
        let steps = try rows(s, "select trim(label), sum(rows) from svl_query_summary where query = \(query ?? "0") and label like 'scan%' group by 1")
        XCTAssertEqual(steps.count, 1)
        XCTAssertEqual(steps.first?[1], "100")
        XCTAssertEqual(try rows(s, "select count(*) > 0 from svl_query_report where query = \(query ?? "0")"), [["t"]])
        XCTAssertEqual(try rows(s, "select rows from stl_scan where query = \(query ?? "0")"), [["100"]])
    }

    func testUnloadLogsEveryFileItWrote() throws {
        let s = try open()
        _ = try s.execute("create table t (a int, b varchar(10)) diststyle even")
        _ = try s.execute("insert into t select x, 'v' || x from generate_series(1, 1000) g(x)")
        let prefix = dir + "-files/out_"
        _ = try s.execute("unload ('select * from t') to '\(prefix)'")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "-files").filter { $0.hasPrefix("out_") }.sorted()
        let logged = try rows(s, "select trim(path), line_count, transfer_size, trim(file_format) from stl_unload_log order by path")
        XCTAssertEqual(logged.map { $0[0] }, files.map { dir + "-files/" + $0 })
        XCTAssertEqual(logged.compactMap { $0[1].flatMap { Int($0) } }.reduce(0, +), 1000)
        for (row, file) in zip(logged, files) {
            let size = try FileManager.default.attributesOfItem(atPath: dir + "-files/" + file)[.size] as? Int
            XCTAssertEqual(row[2], size.map { String($0) })
            XCTAssertEqual(row[3], "Text")
        }
        // The UNLOAD's own row in STL_QUERY has the id its files were logged under.
        XCTAssertEqual(try rows(s, """
            select count(*) from stl_unload_log u join stl_query q on q.query = u.query where q.querytxt like 'unload%'
            """), [[String(files.count)]])
        // Its query is logged as any query is (QueryRunner): its plan and its scan, under that id.
        XCTAssertEqual(try rows(s, """
            select (select count(*) > 0 from stl_explain e where e.query = q.query),
                   (select sum(rows) from stl_scan c where c.query = q.query)
            from stl_query q where q.querytxt like 'unload%'
            """), [["t", "1000"]])
    }

    func testAScanOfATableWithManyDeletedRowsRaisesAnAlert() throws {
        let s = try openWithoutAutoVacuum()
        _ = try s.execute("create table t (a int) diststyle even")
        _ = try s.execute("insert into t select x from generate_series(1, 10000) g(x)")
        _ = try s.execute("analyze t")
        _ = try s.execute("select count(*) from t")
        XCTAssertEqual(try rows(s, "select count(*) from stl_alert_event_log"), [["0"]])
        _ = try s.execute("delete from t where a <= 2000")
        _ = try s.execute("select count(*) from t")
        XCTAssertEqual(try rows(s, """
            select trim(event), trim(solution) from stl_alert_event_log
            where query = (select max(query) from stl_query where querytxt = 'select count(*) from t')
            """), [["Scanned a large number of deleted rows", "Run the VACUUM command to reclaim deleted space"]])
        _ = try s.execute("vacuum delete only t")
        _ = try s.execute("select count(*) from t")
        XCTAssertEqual(try rows(s, """
            select count(*) from stl_alert_event_log
            where query = (select max(query) from stl_query where querytxt = 'select count(*) from t')
            """), [["0"]])
    }

    /// The network alerts need more than a million rows moved: checked on a run's step
    /// records rather than by moving them.
    func testLargeDistributionsAndBroadcastsRaiseAlerts() {
        func step(_ label: String, stage: Int, step: Int, rows: Int) -> [StepRecord] {
            (0..<4).map { StepRecord(stage: stage, step: step, label: label, slice: $0, metrics: StepMetrics(rows: rows)) }
        }
        let alerts = QueryAlerts.find(nestedLoop: false,
                                      steps: step("dist", stage: 1, step: 2, rows: 400_000) + step("bcast", stage: 2, step: 1, rows: 250_000)
                                          + step("bcast", stage: 3, step: 1, rows: 300_000) + step("hjoin", stage: 3, step: 2, rows: 9_000_000),
                                      scans: [:], snapshots: [:])
        XCTAssertEqual(alerts, [
            QueryAlerts.Alert(slice: 0, segment: 1, step: 2,
                              event: "Distributed a large number of rows across the network:1600000 rows were distributed in order to process the join or aggregation",
                              solution: "Review the choice of distribution key to collocate the join or aggregation"),
            QueryAlerts.Alert(slice: 0, segment: 3, step: 1,
                              event: "Broadcasted a large number of rows across the network:1200000 rows were broadcasted",
                              solution: "Review the choice of distribution key to collocate the join and consider using distributed tables"),
        ])
        // Exactly a million is not more than a million; a nested loop is always reported.
        XCTAssertEqual(QueryAlerts.find(nestedLoop: true, steps: step("dist", stage: 1, step: 0, rows: 250_000),
                                        scans: [:], snapshots: [:]).map(\.event),
                       ["Nested Loop Join in the query plan"])
    }

    func testVacuumHistoryOutlivesTheProcess() throws {
        do {
            let s = try openWithoutAutoVacuum()
            _ = try s.execute("create table t (a int) diststyle even sortkey(a)")
            _ = try s.execute("insert into t select x from generate_series(1, 5000) g(x)")
            _ = try s.execute("delete from t where a % 2 = 0")
            _ = try s.execute("vacuum delete only t")
        }
        let s = try open()
        XCTAssertEqual(try rows(s, "select trim(status), rows from stl_vacuum order by eventtime"),
                       [["Started Delete Only", "5000"], ["Finished", "2500"]])
        XCTAssertEqual(try rows(s, "select trim(table_name), row_delta from svv_vacuum_summary"), [["t", "-2500"]])
    }

    func testWLMHistoryAndRuleActionsOutliveTheProcess() throws {
        var query: String?
        do {
            let database = try Database(directory: dir)
            try database.configureWLM("""
                [{"query_group": ["logged"], "rules": [{"rule_name": "quick_log", "action": "log",
                    "predicate": [{"metric_name": "query_execution_time", "operator": "=", "value": 0}]}]}, {}]
                """)
            let s = database.connect()
            _ = try s.execute("create table t (a int)")
            _ = try s.execute("insert into t values (1), (2)")
            _ = try s.execute("set query_group to 'logged'")
            _ = try s.execute("select count(*) from t")
            query = try rows(s, "select pg_last_query_id()").first?.first ?? nil
        }
        let s = try open()
        let q = try XCTUnwrap(query)
        XCTAssertEqual(try rows(s, "select service_class, trim(final_state), slot_count from stl_wlm_query where query = \(q)"),
                       [["6", "Completed", "1"]])
        XCTAssertEqual(try rows(s, "select trim(status), returned_rows, service_class_id from sys_query_history where query_id = \(q)"),
                       [["success", "1", "6"]])
        XCTAssertEqual(try rows(s, "select service_class, trim(rule), trim(action) from stl_wlm_rule_action where query = \(q)"),
                       [["6", "quick_log", "log"]])
        XCTAssertEqual(try rows(s, "select count(*) from stl_query_metrics where query = \(q) and segment = -1"), [["1"]])
    }
}
