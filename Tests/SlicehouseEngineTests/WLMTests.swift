// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// Workload management on real queries: routing, slot waits seen from another session,
/// wlm_query_slot_count, max_execution_time, each query monitoring rule action, SQA, and
/// the configuration file of a data directory.
final class WLMTests: XCTestCase {
    func rows(_ s: Session, _ sql: String) throws -> [[String?]] { try Self.rows(s, sql) }

    static func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    func database(_ wlm: String) throws -> Database {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2), memoryBytes: 1 << 30)
        // WLM's tests look at how each run went: a repeated query must run, not come from the result cache.
        db.resultCacheBytes = 0
        try db.configureWLM(wlm)
        let s = db.connect()
        _ = try s.execute("create table t (a int, b int); create table u (a int, b int)")
        _ = try s.execute("insert into u values " + (1...100).map { "(\($0), \($0 % 7))" }.joined(separator: ","))
        return db
    }

    /// The service class the session's last query ran in (its last run, for a hopped one).
    func lastServiceClass(_ s: Session) throws -> String? {
        try rows(s, "select service_class from stl_wlm_query where query = pg_last_query_id() order by service_class_end_time desc limit 1").first?.first ?? nil
    }

    /// Run `body` on a thread with a large stack; returns a way to wait for it.
    func background(_ body: @escaping @Sendable () -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        group.enter()
        let t = Thread { body(); group.leave() }
        t.stackSize = 8 << 20
        t.start()
        return group
    }

    /// Poll `condition` up to 10 seconds.
    func eventually(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTFail("timed out waiting for \(what)")
    }

    func testRoutingByQueryGroupAndUserGroupWithWildcards() throws {
        let db = try database("""
            [{"user_group": ["etl*"], "user_group_wild_card": 1, "query_concurrency": 2},
             {"query_group": ["rep*"], "query_group_wild_card": 1, "query_concurrency": 3, "memory_percent_to_use": 50},
             {"query_concurrency": 4}]
            """)
        let admin = db.connect()
        _ = try admin.execute("create user bob password 'Bob12345x'; create group etl_team with user bob; grant select on u to bob")
        XCTAssertEqual(try rows(admin, "select count(*) from u"), [["100"]])
        XCTAssertEqual(try lastServiceClass(admin), "8")
        _ = try admin.execute("set query_group to 'reports'")
        _ = try rows(admin, "select count(*) from u")
        XCTAssertEqual(try lastServiceClass(admin), "7")
        _ = try admin.execute("set query_group to 'superuser'")
        _ = try rows(admin, "select count(*) from u")
        XCTAssertEqual(try lastServiceClass(admin), "5")
        _ = try admin.execute("reset query_group")
        _ = try rows(admin, "select count(*) from u")
        XCTAssertEqual(try lastServiceClass(admin), "8")

        let bob = db.connect()
        bob.authenticate(as: "bob")
        _ = try rows(bob, "select count(*) from u")
        XCTAssertEqual(try lastServiceClass(bob), "6")
        // Not a superuser: 'superuser' is an ordinary query group.
        _ = try bob.execute("set query_group to 'superuser'")
        _ = try rows(bob, "select count(*) from u")
        XCTAssertEqual(try lastServiceClass(bob), "6")
        // The first matching queue wins: bob's group (queue 1) before the query group (queue 2).
        _ = try bob.execute("set query_group to 'report'")
        _ = try rows(bob, "select count(*) from u")
        XCTAssertEqual(try lastServiceClass(bob), "6")

        // Other statements under WLM; catalog-only queries and utility statements are not.
        let before = try rows(admin, "select count(*) from stl_wlm_query").first?.first ?? nil
        _ = try admin.execute("insert into t select * from u; update t set b = 0 where a = 1; delete from t where a = 2")
        _ = try admin.execute("select count(*) from stv_slices; show query_group; create table v (x int); select 1")
        let after = try rows(admin, "select count(*) from stl_wlm_query").first?.first ?? nil
        XCTAssertEqual((Int(after ?? "") ?? 0) - (Int(before ?? "") ?? 0), 3)

        XCTAssertEqual(try rows(admin, "select id, trim(condition), action_service_class from stv_wlm_classification_config order by id"),
                       [["1", "(super user) and (query group: superuser)", "5"], ["2", "(user group: etl*)", "6"],
                        ["3", "(query group: rep*)", "7"], ["4", "(querytype: any)", "8"]])
        // Budgets: 1 GB; queue 2 has 50% over 3 slots; the others share the other 50%.
        XCTAssertEqual(try rows(admin, "select service_class, num_query_tasks, query_working_mem, trim(name) "
                                  + "from stv_wlm_service_class_config order by service_class"),
                       [["5", "1", "64", "Superuser queue"], ["6", "2", "128", "Queue 1"], ["7", "3", "170", "Queue 2"],
                        ["8", "4", "64", "Default queue"]])
    }

    func testASecondQueryWaitsForTheOnlySlotAndShowsAsQueued() throws {
        let db = try database(#"[{"query_concurrency": 1}]"#)
        let holder = db.connect(), writer = db.connect(), reader = db.connect(), observer = db.connect()
        // The holder's open block keeps t's lock: the writer's INSERT takes the queue's only
        // slot and then waits for the lock, so the reader's SELECT must wait for the slot.
        _ = try holder.execute("begin; insert into t values (0, 0)")
        let writing = background { _ = try? writer.execute("insert into t select * from u") }
        try eventually("the writer to run") {
            try rows(observer, "select trim(state) from stv_wlm_query_state").map { $0[0] ?? "" } == ["Running"]
        }
        let result = WLMRecorder()
        let reading = background {
            do { result.add(try WLMTests.rows(reader, "select count(*) from u")[0][0] ?? "") } catch { result.add("\(error)") }
        }
        try eventually("the reader to queue") {
            try rows(observer, "select count(*) from stv_wlm_query_state where state = 'Queued'") == [["1"]]
        }
        XCTAssertEqual(try rows(observer, "select service_class, trim(state), slot_count from stv_wlm_query_state order by state"),
                       [["6", "Queued", "1"], ["6", "Running", "1"]])
        XCTAssertEqual(try rows(observer, "select service_class, position, slot_count from stv_wlm_query_queue_state"),
                       [["6", "0", "1"]])
        XCTAssertEqual(try rows(observer, "select num_queued_queries, num_executing_queries from stv_wlm_service_class_state "
                                     + "where service_class = 6"), [["1", "1"]])
        XCTAssertEqual(try rows(observer, "select count(*) from stv_query_metrics where segment = -1"), [["1"]])
        XCTAssertEqual(result.values, [])
        // The holder's block keeps the lock the slot's holder waits for: its own next
        // query must not wait for that slot (it would never get it).
        _ = try holder.execute("set statement_timeout to 5000")
        XCTAssertEqual(try rows(holder, "select count(*) from t"), [["1"]])
        Thread.sleep(forTimeInterval: 0.2)
        _ = try holder.execute("commit")
        XCTAssertEqual(writing.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(reading.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(result.values, ["100"])
        XCTAssertEqual(try rows(observer, "select count(*) from stv_wlm_query_state"), [["0"]])
        // The reader's wait is in its queue time.
        XCTAssertEqual(try rows(observer, "select count(*) from stl_wlm_query where total_queue_time > 200000 and final_state = 'Completed'"),
                       [["1"]])
    }

    /// A session of a 6 MB database (1 MB a slot of the default queue's 5) with table `n`
    /// of 100,000 rows, whose self-join needs more than one slot and less than five.
    func sessionWithSmallSlots() throws -> Session {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2), memoryBytes: 6 << 20)
        db.resultCacheBytes = 0
        let s = db.connect()
        _ = try s.execute("""
            create table d (x int); insert into d values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
            create table n as select a.x * 10000 + b.x * 1000 + c.x * 100 + e.x * 10 + f.x as a, 'padding-' || a.x as s
            from d a, d b, d c, d e, d f
            """)
        return s
    }

    func testTheBudgetIsTheQueueMemoryOverItsSlotsTimesTheSlotCount() throws {
        // 6 MB for the database, the default queue's 5 slots: 1 MB a slot (the least a slot
        // gets). A hash join of 100,000 rows needs more than one slot and less than five.
        let s = try sessionWithSmallSlots()
        let join = "select count(*) from n x join n y on x.a = y.a"
        XCTAssertEqual(try rows(s, join), [["100000"]])
        XCTAssertGreaterThan(s.lastSpilledBytes, 0)
        _ = try s.execute("set wlm_query_slot_count to 5")
        XCTAssertEqual(try rows(s, join), [["100000"]])
        XCTAssertEqual(s.lastSpilledBytes, 0)
        XCTAssertEqual(try rows(s, "select slot_count from stl_wlm_query order by query desc limit 2"), [["5"], ["1"]])
    }

    func testExplainAnalyzeRunsWithItsSlotsMemory() throws {
        // As above: one slot's 1 MB is too little for the join, five slots are enough.
        // EXPLAIN ANALYZE is admitted like the query it runs (it ran outside WLM, without
        // a budget, so it never spilled where the query did).
        let s = try sessionWithSmallSlots()
        let explain = "explain analyze select count(*) from n x join n y on x.a = y.a"
        let spilling = try rows(s, explain).compactMap { $0.first ?? nil }
        XCTAssertTrue(spilling.contains { $0.contains("Hash Join") }, "\(spilling)")
        XCTAssertTrue(spilling.contains { $0.contains("Actual: ") && $0.contains(" spilled=") }, "\(spilling)")
        XCTAssertGreaterThan(s.lastSpilledBytes, 0)
        XCTAssertEqual(try rows(s, "select count(*) from stl_wlm_query where query = pg_last_query_id() and slot_count = 1"),
                       [["1"]])
        _ = try s.execute("set wlm_query_slot_count to 5")
        let whole = try rows(s, explain).compactMap { $0.first ?? nil }
        XCTAssertFalse(whole.contains { $0.contains(" spilled=") }, "\(whole)")
        XCTAssertEqual(s.lastSpilledBytes, 0)
        XCTAssertEqual(try rows(s, "select slot_count from stl_wlm_query where query = pg_last_query_id()"), [["5"]])
        // Plain EXPLAIN runs nothing and is not admitted.
        let before = try rows(s, "select count(*) from stl_wlm_query")
        _ = try s.execute("explain select count(*) from n x join n y on x.a = y.a")
        XCTAssertEqual(try rows(s, "select count(*) from stl_wlm_query"), before)
    }

    func testSlotCountAboveTheQueueConcurrencyIsAnError() throws {
        let db = try database(#"[{"query_concurrency": 3}]"#)
        let s = db.connect()
        _ = try s.execute("set wlm_query_slot_count to 3")
        XCTAssertEqual(try rows(s, "select count(*) from u"), [["100"]])
        XCTAssertEqual(try rows(s, "select slot_count from stl_wlm_query where query = pg_last_query_id()"), [["3"]])
        _ = try s.execute("set wlm_query_slot_count to 4")
        XCTAssertThrowsError(try s.execute("select count(*) from u")) { e in
            XCTAssertEqual((e as? SQLError)?.message,
                           "wlm_query_slot_count (4) exceeds the concurrency of the queue it runs in (service class 6, 3 slots); "
                           + "set wlm_query_slot_count to 3 or less")
        }
        // A query of system tables alone runs on the leader, outside WLM.
        XCTAssertEqual(try rows(s, "select count(*) from stv_slices"), [["4"]])
    }

    func testMaxExecutionTimeCancelsAQueryThatCannotHop() throws {
        let db = try database(#"[{"query_concurrency": 2, "max_execution_time": 300}]"#)
        let holder = db.connect(), writer = db.connect()
        _ = try holder.execute("begin; insert into t values (0, 0)")
        let started = Date()
        XCTAssertThrowsError(try writer.execute("insert into t select * from u")) { e in
            let message = (e as? SQLError)?.message ?? "\(e)"
            XCTAssertTrue(message.hasPrefix("Query ("), message)
            XCTAssertTrue(message.hasSuffix(") cancelled on user's request and ran out of wlm queues for restart."), message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        _ = try holder.execute("commit")
        XCTAssertEqual(try rows(writer, "select count(*) from t"), [["1"]])
        // statement_timeout still applies alongside.
        _ = try holder.execute("begin; insert into t values (0, 0)")
        _ = try writer.execute("set statement_timeout to 100")
        XCTAssertThrowsError(try writer.execute("insert into t select * from u")) { e in
            XCTAssertEqual((e as? SQLError)?.message, "canceling statement due to statement timeout")
        }
        _ = try holder.execute("commit")
    }

    func testMaxExecutionTimeHopsARunningSelectThenCancelsIt() throws {
        // Two queues for the query group, each with a 1 ms limit: the cross join (10^8
        // pairs) runs past it in the first, is restarted in the second, runs past it again
        // and, with no queue left to hop to, is cancelled.
        let db = try database("""
            [{"query_group": ["g"], "max_execution_time": 1}, {"query_group": ["g"], "max_execution_time": 1}, {}]
            """)
        let s = db.connect()
        _ = try s.execute("set query_group to 'g'")
        var id = ""
        let started = Date()
        XCTAssertThrowsError(try s.execute("select count(*) from u a, u b, u c, u d where a.a + b.a + c.a + d.a < 0")) { e in
            let message = (e as? SQLError)?.message ?? "\(e)"
            XCTAssertTrue(message.hasSuffix(" cancelled on user's request and ran out of wlm queues for restart."), message)
            id = message.dropFirst("Query (".count).prefix { $0.isNumber }.description
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        XCTAssertEqual(try rows(s, "select service_class, trim(final_state) from stl_wlm_query where query = \(id) order by service_class"),
                       [["6", "Evicted"], ["7", "Aborted"]])
    }

    func testRuleActionsLogHopAndAbort() throws {
        // query_execution_time is in whole seconds: "= 0" holds for every query under a
        // second, so each rule fires on a quick query, checked when it ends.
        let db = try database("""
            [{"query_group": ["logged"], "rules": [{"rule_name": "quick_log", "action": "log",
                "predicate": [{"metric_name": "query_execution_time", "operator": "=", "value": 0}]}]},
             {"query_group": ["hopping"], "rules": [{"rule_name": "quick_hop", "action": "hop",
                "predicate": [{"metric_name": "query_queue_time", "operator": "<", "value": 100},
                              {"metric_name": "spectrum_scan_row_count", "operator": "=", "value": 0}]}]},
             {"query_group": ["hopping", "aborting"], "rules": [
                {"rule_name": "quick_abort", "action": "abort",
                 "predicate": [{"metric_name": "query_cpu_time", "operator": "<", "value": 1000}]},
                {"rule_name": "also_log", "action": "log",
                 "predicate": [{"metric_name": "query_temp_blocks_to_disk", "operator": "=", "value": 0}]}]},
             {}]
            """)
        let s = db.connect()
        _ = try s.execute("set query_group to 'logged'")
        XCTAssertEqual(try rows(s, "select count(*) from u"), [["100"]])
        let logged = try XCTUnwrap(rows(s, "select pg_last_query_id()").first?.first ?? nil)
        XCTAssertEqual(try rows(s, "select service_class, trim(rule), trim(action) from stl_wlm_rule_action where query = \(logged)"),
                       [["6", "quick_log", "log"]])

        // Hop: stopped in queue 2 and run again in queue 3, the next that matches; there
        // the abort rule (the most severe of the two that fire) ends it.
        _ = try s.execute("set query_group to 'hopping'")
        var hopped = ""
        XCTAssertThrowsError(try s.execute("select count(*) from u")) { e in
            let message = (e as? SQLError)?.message ?? "\(e)"
            XCTAssertTrue(message.hasSuffix(" cancelled by WLM abort action of Query Monitoring Rule \"quick_abort\"."), message)
            hopped = message.dropFirst("Query (".count).prefix { $0.isNumber }.description
        }
        XCTAssertEqual(try rows(s, "select service_class, trim(rule), trim(action) from stl_wlm_rule_action where query = \(hopped) "
                                  + "order by recordtime, rule"),
                       [["7", "quick_hop", "hop"], ["8", "also_log", "log"], ["8", "quick_abort", "abort"]])
        XCTAssertEqual(try rows(s, "select service_class, trim(final_state) from stl_wlm_query where query = \(hopped) order by service_class"),
                       [["7", "Evicted"], ["8", "Aborted"]])
        XCTAssertEqual(try rows(s, "select num_restarted_queries from stv_wlm_service_class_state where service_class = 7"), [["1"]])

        // A hop inside a transaction block cannot restart the query: it is cancelled.
        _ = try s.execute("begin")
        XCTAssertThrowsError(try s.execute("select count(*) from u")) { e in
            XCTAssertTrue(((e as? SQLError)?.message ?? "").hasSuffix("ran out of wlm queues for restart."), "\(e)")
        }
        _ = try s.execute("rollback")
    }

    func testRulesOnRowCounts() throws {
        let db = try database("""
            [{"query_group": ["scans"], "rules": [{"rule_name": "big_scan", "action": "abort",
                "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 50}]}]},
             {"query_group": ["returns"], "rules": [{"rule_name": "many_rows", "action": "log",
                "predicate": [{"metric_name": "return_row_count", "operator": ">", "value": 10}]}]},
             {}]
            """)
        let s = db.connect()
        _ = try s.execute("set query_group to 'scans'")
        // 100 rows scanned: over the limit.
        XCTAssertThrowsError(try s.execute("select count(*) from u")) { e in
            XCTAssertTrue(((e as? SQLError)?.message ?? "").hasSuffix("by WLM abort action of Query Monitoring Rule \"big_scan\"."), "\(e)")
        }
        _ = try s.execute("set query_group to 'returns'")
        XCTAssertEqual(try rows(s, "select count(*) from u where a <= 20"), [["20"]])   // one row returned
        XCTAssertEqual(try rows(s, "select count(*) from stl_wlm_rule_action where trim(rule) = 'many_rows'"), [["0"]])
        XCTAssertEqual(try rows(s, "select a from u where a <= 20").count, 20)
        let id = try XCTUnwrap(rows(s, "select pg_last_query_id()").first?.first ?? nil)
        XCTAssertEqual(try rows(s, "select service_class, trim(action) from stl_wlm_rule_action where query = \(id)"),
                       [["7", "log"]])
        XCTAssertEqual(try rows(s, "select rows from stl_query_metrics where query = \(id) and segment = -1"), [["20"]])
    }

    func testAHopRerunsTheQueryAndItsRowsComeOnce() throws {
        let db = try database("""
            [{"query_group": ["g"], "rules": [{"rule_name": "hop_quick", "action": "hop",
                "predicate": [{"metric_name": "query_execution_time", "operator": "<", "value": 100}]}]},
             {"query_group": ["g"]},
             {}]
            """)
        let s = db.connect()
        _ = try s.execute("set query_group to 'g'")
        XCTAssertEqual(try rows(s, "select a from u where a <= 3 order by a"), [["1"], ["2"], ["3"]])
        let id = try XCTUnwrap(rows(s, "select pg_last_query_id()").first?.first ?? nil)
        XCTAssertEqual(try rows(s, "select service_class, trim(final_state) from stl_wlm_query where query = \(id) "
                                  + "order by service_class"), [["6", "Evicted"], ["7", "Completed"]])
    }

    func testShortQueriesRunInTheSQASpace() throws {
        let db = try database(#"[{"query_concurrency": 2}, {"short_query_queue": true, "max_execution_time": 2000}]"#)
        let s = db.connect()
        XCTAssertEqual(try rows(s, "select b from u where a = 5"), [["5"]])
        let id = try XCTUnwrap(rows(s, "select pg_last_query_id()").first?.first ?? nil)
        XCTAssertEqual(try rows(s, "select service_class_id, trim(short_query_accelerated), trim(short_query_prediction) "
                                  + "from sys_query_history where query_id = \(id)"), [["14", "true", "short"]])
        XCTAssertEqual(try rows(s, "select num_query_tasks, trim(query_priority) from stv_wlm_service_class_config where service_class = 14"),
                       [["6", "Highest"]])
        // Only SELECTs are accelerated.
        _ = try s.execute("insert into t select * from u where a = 5")
        XCTAssertEqual(try rows(s, "select count(*) from stl_wlm_query where service_class = 14"), [["1"]])
    }

    func testTheDataDirectoryConfigurationIsReadAndAnInvalidOneRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-wlm-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"[{"query_group": ["x"], "query_concurrency": 2}, {"query_concurrency": 3}]"#
            .write(toFile: dir + "/wlm.json", atomically: true, encoding: .utf8)
        do {
            let db = try Database(directory: dir)
            let s = db.connect()
            XCTAssertEqual(try rows(s, "select service_class, num_query_tasks from stv_wlm_service_class_config order by 1"),
                           [["5", "1"], ["6", "2"], ["7", "3"]])
        }
        try #"[{"query_group": ["x"]}]"#.write(toFile: dir + "/wlm.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Database(directory: dir)) { e in
            XCTAssertTrue("\(e)".contains("the default queue (the last queue, queue 1) can't have a user_group or query_group"), "\(e)")
        }
    }
}

final class WLMRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var values: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
