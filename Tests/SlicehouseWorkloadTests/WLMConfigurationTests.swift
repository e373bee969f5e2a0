// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseTypes
import SlicehouseRuntime
@testable import SlicehouseWorkload
import SlicehousePlatform

/// Parsing and checking `wlm_json_configuration` documents, routing, memory shares.
final class WLMConfigurationTests: XCTestCase {
    func testAFullDocumentParses() throws {
        let c = try WLMConfiguration.parse("""
            [
              {"name": "etl", "user_group": ["etl_users", "loader*"], "user_group_wild_card": 1,
               "query_concurrency": 2, "memory_percent_to_use": 40, "max_execution_time": 60000,
               "concurrency_scaling": "auto",
               "rules": [{"rule_name": "big_scan", "action": "hop",
                          "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 1000000},
                                        {"metric_name": "query_execution_time", "operator": ">", "value": 10}]}]},
              {"query_group": ["report", "dash?"], "query_group_wild_card": 1, "query_concurrency": 3},
              {"query_concurrency": 5},
              {"short_query_queue": true, "max_execution_time": 4000}
            ]
            """)
        XCTAssertEqual(c.queues.map { $0.serviceClass }, [6, 7, 8])
        XCTAssertEqual(c.queues.map { $0.concurrency }, [2, 3, 5])
        XCTAssertEqual(c.queues[0].name, "etl")
        XCTAssertEqual(c.queues[1].name, "Queue 2")
        XCTAssertEqual(c.defaultQueue.kind, .defaultQueue)
        XCTAssertEqual(c.queues[0].maxExecutionTime, 60000)
        XCTAssertEqual(c.queues[0].concurrencyScaling, "auto")
        XCTAssertEqual(c.queues[0].rules, [QueryMonitoringRule(name: "big_scan", predicates: [
            QMRPredicate(metric: .scanRowCount, comparison: .greater, value: 1_000_000),
            QMRPredicate(metric: .queryExecutionTime, comparison: .greater, value: 10)], action: .hop)])
        // 40% given; the other two queues share the remaining 60% evenly.
        XCTAssertEqual(c.queues.map { $0.memoryPercent }, [40, 30, 30])
        XCTAssertEqual(c.shortQuery?.serviceClass, 14)
        XCTAssertEqual(c.shortQuery?.maxExecutionTime, 4000)
        XCTAssertEqual(c.superuser.serviceClass, 5)
        XCTAssertEqual(c.superuser.concurrency, 1)
    }

    func testTheDefaultConfigurationIsOneQueueOfFiveSlots() throws {
        let c = WLMConfiguration.default
        XCTAssertEqual(c.queues.count, 1)
        XCTAssertEqual(c.defaultQueue.concurrency, 5)
        XCTAssertEqual(c.defaultQueue.serviceClass, 6)
        XCTAssertNil(c.shortQuery)
        // A queue without query_concurrency has 5 slots; all memory when alone.
        let one = try WLMConfiguration.parse("[{}]")
        XCTAssertEqual(one.defaultQueue.concurrency, 5)
        XCTAssertEqual(one.defaultQueue.memoryPercent, 100)
        // SQA with a dynamic limit (0) gets the documented default.
        let sqa = try WLMConfiguration.parse(#"[{"query_concurrency": 2}, {"short_query_queue": true, "max_execution_time": 0}]"#)
        XCTAssertEqual(sqa.shortQuery?.maxExecutionTime, WLMConfiguration.defaultShortQueryMilliseconds)
    }

    func testUnallocatedMemoryStaysUnallocatedWhenEveryQueueHasAShare() throws {
        let c = try WLMConfiguration.parse(#"[{"query_group": ["a"], "memory_percent_to_use": 30}, {"memory_percent_to_use": 50}]"#)
        XCTAssertEqual(c.queues.map { $0.memoryPercent }, [30, 50])
    }

    func testInvalidDocumentsAreRefusedWithClearErrors() {
        let rule = #"{"rule_name": "r", "action": "log", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 1}]}"#
        let cases: [(String, String)] = [
            ("not json", "not valid JSON"),
            (#"{"query_concurrency": 5}"#, "must be a JSON array"),
            ("[]", "at least one queue"),
            ("[5]", "element 1 is not a JSON object"),
            (#"[{"auto_wlm": true}]"#, "auto_wlm"),
            ("[" + Array(repeating: #"{"query_group": ["g"], "query_concurrency": 1}"#, count: 8).joined(separator: ",") + ", {}]",
             "at most 8 queues"),
            (#"[{"query_group": ["a"], "query_concurrency": 30}, {"query_concurrency": 25}]"#, "can't exceed 50"),
            (#"[{"query_concurrency": 0}]"#, "query_concurrency in queue 1 must be an integer from 1 to 50"),
            (#"[{"query_concurrency": 51}]"#, "from 1 to 50"),
            (#"[{"query_concurrency": "five"}]"#, "query_concurrency in queue 1"),
            (#"[{"query_group": ["a"], "memory_percent_to_use": 70}, {"memory_percent_to_use": 40}]"#, "adds up to 110; it can't exceed 100"),
            (#"[{"memory_percent_to_use": 120}]"#, "memory_percent_to_use in queue 1 must be a number from 0 to 100"),
            (#"[{"query_group": ["a"]}]"#, "the default queue (the last queue, queue 1) can't have a user_group or query_group"),
            (#"[{"user_group": ["a"]}]"#, "default queue"),
            (#"[{"query_group": [1]}, {}]"#, "query_group in queue 1 must be a list of names"),
            (#"[{"query_group": ["a"], "query_group_wild_card": 2}, {}]"#, "query_group_wild_card in queue 1 must be 0 or 1"),
            (#"[{"max_execution_time": -1}]"#, "max_execution_time in queue 1"),
            (#"[{"concurrency_scaling": "on"}]"#, "concurrency_scaling"),
            (#"[{"query_concurency": 5}]"#, "unknown property \"query_concurency\" in queue 1"),
            (#"[{}, {"short_query_queue": true, "max_execution_time": 500}]"#, "1000 to 20000"),
            (#"[{}, {"short_query_queue": "yes"}]"#, "short_query_queue must be true or false"),
            (#"[{"rules": {}}]"#, "rules in queue 1 must be an array"),
            (#"[{"rules": [{"action": "log", "predicate": []}]}]"#, "has no rule_name"),
            (#"[{"rules": [{"rule_name": "bad name", "action": "log"}]}]"#, "must be 1 to 32 letters"),
            (#"[{"rules": [{"rule_name": "r", "action": "log", "predicate": []}]}]"#, "needs a predicate"),
            (#"[{"rules": [{"rule_name": "r", "action": "log", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 1},{"metric_name": "scan_row_count", "operator": ">", "value": 1},{"metric_name": "scan_row_count", "operator": ">", "value": 1},{"metric_name": "scan_row_count", "operator": ">", "value": 1}]}]}]"#,
             "has 4 predicates; a rule can have at most 3"),
            (#"[{"rules": [{"rule_name": "r", "action": "log", "predicate": [{"metric_name": "disk_spill", "operator": ">", "value": 1}]}]}]"#,
             "unknown metric_name \"disk_spill\""),
            (#"[{"rules": [{"rule_name": "r", "action": "log", "predicate": [{"metric_name": "scan_row_count", "operator": ">=", "value": 1}]}]}]"#,
             "must be \">\", \"<\" or \"=\""),
            (#"[{"rules": [{"rule_name": "r", "action": "log", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": -3}]}]}]"#,
             "must be a whole number of at least 0"),
            (#"[{"rules": [{"rule_name": "r", "action": "kill", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 1}]}]}]"#,
             "unknown action \"kill\""),
            (#"[{"rules": [{"rule_name": "r", "action": "change_query_priority", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 1}]}]}]"#,
             "needs automatic WLM"),
            ("[{\"rules\": [\(rule), \(rule)]}]", "rule name \"r\" appears twice in queue 1"),
            ("[{\"query_group\": [\"a\"], \"rules\": [" + (0..<13).map { rule.replacingOccurrences(of: "\"r\"", with: "\"a\($0)\"") }.joined(separator: ",")
             + "]}, {\"rules\": [" + (0..<13).map { rule.replacingOccurrences(of: "\"r\"", with: "\"b\($0)\"") }.joined(separator: ",") + "]}]",
             "at most 25 query monitoring rules in all queues, this one has 26"),
        ]
        for (document, expected) in cases {
            XCTAssertThrowsError(try WLMConfiguration.parse(document), document) { error in
                guard let e = error as? SQLError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.code, .invalidParameter)
                XCTAssertTrue(e.message.hasPrefix("invalid wlm_json_configuration: "), e.message)
                XCTAssertTrue(e.message.contains(expected), "\(e.message) does not contain \(expected)")
            }
        }
    }

    func testRoutingByQueryGroupThenUserGroupWithWildcards() throws {
        let c = try WLMConfiguration.parse("""
            [{"user_group": ["admin*"], "user_group_wild_card": 1, "query_concurrency": 1},
             {"query_group": ["rep?rt", "dash*"], "query_group_wild_card": 1, "query_concurrency": 1},
             {"query_group": ["exact*"], "query_concurrency": 1},
             {"query_concurrency": 2}]
            """)
        func sc(_ group: String?, _ users: [String] = [], superuser: Bool = false) -> Int {
            c.route(queryGroup: group, userGroups: users, isSuperuser: superuser).serviceClass
        }
        XCTAssertEqual(sc("report"), 7)
        XCTAssertEqual(sc("REPORT"), 7)
        XCTAssertEqual(sc("repxrt"), 7)
        XCTAssertEqual(sc("repoort"), 9)       // ? is one character
        XCTAssertEqual(sc("dashboards"), 7)
        XCTAssertEqual(sc("exact*"), 8)        // no wildcards: the name itself
        XCTAssertEqual(sc("exactly"), 9)
        XCTAssertEqual(sc(nil, ["administrators"]), 6)
        XCTAssertEqual(sc(nil, ["staff"]), 9)
        XCTAssertEqual(sc("unset", []), 9)
        // The first queue that matches either wins (Redshift's rule).
        XCTAssertEqual(sc("report", ["admins"]), 6)
        XCTAssertEqual(sc("superuser", superuser: true), 5)
        XCTAssertEqual(sc("superuser", superuser: false), 9)
        // A hop goes to the next matching queue, never to the default queue.
        XCTAssertEqual(c.hopTarget(from: 6, queryGroup: "report", userGroups: ["admins"])?.serviceClass, 7)
        XCTAssertNil(c.hopTarget(from: 7, queryGroup: "report", userGroups: ["admins"]))
        XCTAssertNil(c.hopTarget(from: 9, queryGroup: "report", userGroups: []))
    }

    func testWildcardMatching() {
        XCTAssertTrue(WLMQueue.match("*", "", wildcards: true))
        XCTAssertTrue(WLMQueue.match("a*b*c", "axxbyyc", wildcards: true))
        XCTAssertFalse(WLMQueue.match("a*b*c", "axxbyy", wildcards: true))
        XCTAssertTrue(WLMQueue.match("?", "x", wildcards: true))
        XCTAssertFalse(WLMQueue.match("?", "", wildcards: true))
        XCTAssertFalse(WLMQueue.match("a*", "ab", wildcards: false))
    }

    func testMemoryBudgetIsQueueMemoryOverSlotsTimesSlotCount() throws {
        let c = try WLMConfiguration.parse(#"[{"query_group": ["a"], "query_concurrency": 4, "memory_percent_to_use": 50}, {"query_concurrency": 2}]"#)
        let gb = 1 << 30
        XCTAssertEqual(c.slotBytes(c.queues[0], limit: 8 * gb), gb)        // 8 GB × 50% ÷ 4
        XCTAssertEqual(c.slotBytes(c.queues[1], limit: 8 * gb), 2 * gb)    // 8 GB × 50% ÷ 2
        XCTAssertEqual(c.slotBytes(c.superuser, limit: 8 * gb), 2 * gb)    // a default-queue slot

        // Through admission: the context's budget is the slot size × wlm_query_slot_count.
        let pool = MemoryPool(limit: 8 * gb)
        let manager = WorkloadManager(pool: pool)
        manager.configuration = c
        let context = QueryContext(cancellation: Cancellation(), memory: QueryMemory(budget: nil, pool: pool))
        let q = try manager.admit(WLMRequest(queryID: 1, queryGroup: "a", slotCount: 3), context: context)
        XCTAssertEqual(context.memory.budget, 3 * gb)
        XCTAssertEqual(context.serviceClass, 6)
        XCTAssertEqual(context.takeQueryID(), 1)
        manager.finish(q, error: nil)
        // Without a limit of its own the pool's share of RAM is divided.
        XCTAssertEqual(WorkloadManager(pool: MemoryPool(limit: nil)).memoryLimit, MemoryPool.defaultLimit)
    }

    func testASlotCountAboveTheQueueConcurrencyIsRefused() throws {
        let manager = WorkloadManager(pool: MemoryPool(limit: 1 << 30))
        XCTAssertThrowsError(try manager.admit(WLMRequest(queryID: 1, slotCount: 6), context: QueryContext(cancellation: Cancellation()))) { e in
            XCTAssertEqual((e as? SQLError)?.message,
                           "wlm_query_slot_count (6) exceeds the concurrency of the queue it runs in (service class 6, 5 slots); "
                           + "set wlm_query_slot_count to 5 or less")
        }
        let q = try manager.admit(WLMRequest(queryID: 2, slotCount: 5), context: QueryContext(cancellation: Cancellation()))
        manager.finish(q, error: nil)
    }
}

/// Admission, waiting, the monitor's actions, on the manager alone (the engine's tests
/// run the same on real queries).
final class WorkloadManagerTests: XCTestCase {
    func manager(_ json: String) throws -> WorkloadManager {
        let m = WorkloadManager(pool: MemoryPool(limit: 1 << 30))
        m.configuration = try WLMConfiguration.parse(json)
        return m
    }

    func testQueriesWaitForSlotsInOrderAndCancellationEndsAWait() throws {
        let m = try manager(#"[{"query_concurrency": 1}]"#)
        let first = try m.admit(WLMRequest(queryID: 1), context: QueryContext(cancellation: Cancellation()))
        let order = Recorder()
        let cancelled = Cancellation()
        let threads = (2...3).map { id in
            Thread {
                do {
                    let q = try m.admit(WLMRequest(queryID: id), context: QueryContext(cancellation: Cancellation()))
                    order.add("\(id)")
                    Thread.sleep(forTimeInterval: 0.05)
                    m.finish(q, error: nil)
                } catch {
                    order.add("error \(id)")
                }
            }
        }
        // Poll up to 10 s (the machine may be busy).
        func until(_ condition: () -> Bool) {
            let end = Date().addingTimeInterval(10)
            while !condition() && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        }
        threads[0].start()
        until { m.activeQueries().count == 2 }
        threads[1].start()
        until { m.activeQueries().count == 3 }
        let waiter = Thread {
            do {
                _ = try m.admit(WLMRequest(queryID: 4), context: QueryContext(cancellation: cancelled))
                order.add("4 admitted")
            } catch {
                order.add((error as? SQLError)?.message ?? "\(error)")
            }
        }
        waiter.start()
        until { m.activeQueries().count == 4 }
        let waiting = m.activeQueries()
        XCTAssertEqual(waiting.map { "\($0.query) \($0.state) \($0.position.map(String.init) ?? "-")" },
                       ["2 Queued 0", "3 Queued 1", "4 Queued 2", "1 Running -"])
        cancelled.cancel()
        until { !order.values.isEmpty }
        XCTAssertEqual(order.values, ["canceling statement due to user request"])
        m.finish(first, error: nil)
        let deadline = Date().addingTimeInterval(5)
        while order.values.count < 3 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(order.values, ["canceling statement due to user request", "2", "3"])
        while m.history.count < 4 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let states = m.history.map { "\($0.query) \($0.finalState)" }
        XCTAssertEqual(Set(states), ["1 Completed", "2 Completed", "3 Completed", "4 Aborted"])
    }

    func testAStatementTimeoutEndsAWait() throws {
        let m = try manager(#"[{"query_concurrency": 1}]"#)
        let first = try m.admit(WLMRequest(queryID: 1), context: QueryContext(cancellation: Cancellation()))
        let started = Date()
        XCTAssertThrowsError(try m.admit(WLMRequest(queryID: 2), context: QueryContext(cancellation: Cancellation(timeoutMilliseconds: 150)))) {
            XCTAssertEqual(($0 as? SQLError)?.message, "canceling statement due to statement timeout")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        m.finish(first, error: nil)
    }

    func testMaxExecutionTimeCancelsWhenThereIsNoQueueToHopTo() throws {
        let m = try manager(#"[{"query_concurrency": 1, "max_execution_time": 200}]"#)
        let context = QueryContext(cancellation: Cancellation())
        let q = try m.admit(WLMRequest(queryID: 7, restartable: true), context: context)
        let deadline = Date().addingTimeInterval(5)
        while !context.cancellation.isCancelled && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(context.cancellation.error?.message,
                       "Query (7) cancelled on user's request and ran out of wlm queues for restart.")
        m.finish(q, error: context.cancellation.error)
        // COPY is not subject to the timeout.
        let copy = QueryContext(cancellation: Cancellation())
        let c = try m.admit(WLMRequest(queryID: 8, timeLimited: false), context: copy)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertFalse(copy.cancellation.isCancelled)
        m.finish(c, error: nil)
    }

    func testMaxExecutionTimeHopsARestartableQueryToTheNextMatchingQueue() throws {
        let m = try manager(#"[{"query_group": ["g"], "max_execution_time": 100}, {"query_group": ["g"]}, {}]"#)
        let context = QueryContext(cancellation: Cancellation())
        let q = try m.admit(WLMRequest(queryID: 9, queryGroup: "g", restartable: true), context: context)
        XCTAssertEqual(context.serviceClass, 6)
        let deadline = Date().addingTimeInterval(5)
        while !context.cancellation.isCancelled && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let error = try XCTUnwrap(context.cancellation.error)
        XCTAssertTrue(m.restartAfter(q, error: error))
        XCTAssertFalse(context.cancellation.isCancelled)
        try m.readmit(q)
        XCTAssertEqual(context.serviceClass, 7)
        m.finish(q, error: nil)
        XCTAssertEqual(m.history.map { "\($0.serviceClass) \($0.finalState)" }, ["6 Evicted", "7 Completed"])
        XCTAssertEqual(m.serviceClasses().first { $0.queue.serviceClass == 6 }?.restarted, 1)
    }

    func testRulesLogHopAndAbortTheMostSevereWinning() throws {
        let m = try manager("""
            [{"query_group": ["g"], "rules": [
                {"rule_name": "many_rows", "action": "log", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 100}]},
                {"rule_name": "too_many", "action": "abort", "predicate": [{"metric_name": "scan_row_count", "operator": ">", "value": 1000},
                                                                            {"metric_name": "join_row_count", "operator": "=", "value": 0}]}]},
             {}]
            """)
        let context = QueryContext(cancellation: Cancellation())
        let q = try m.admit(WLMRequest(queryID: 3, queryGroup: "g"), context: context)
        context.metrics.addScanRows(500)
        m.checkRunning()
        XCTAssertFalse(context.cancellation.isCancelled)
        XCTAssertEqual(m.ruleActions.map { "\($0.query) \($0.serviceClass) \($0.rule) \($0.action)" }, ["3 6 many_rows log"])
        context.metrics.addScanRows(1000)
        m.checkRunning()
        XCTAssertEqual(context.cancellation.error?.message,
                       "Query (3) cancelled by WLM abort action of Query Monitoring Rule \"too_many\".")
        XCTAssertEqual(m.ruleActions.map { $0.rule }, ["many_rows", "too_many"])   // each rule fires once
        m.finish(q, error: context.cancellation.error)

        // Temp blocks: 1 MB blocks spilled.
        let m2 = try manager(#"[{"rules": [{"rule_name": "spill", "action": "hop", "predicate": [{"metric_name": "query_temp_blocks_to_disk", "operator": ">", "value": 1}]}]}]"#)
        let memory = QueryMemory(budget: nil)
        let spilling = QueryContext(cancellation: Cancellation(), memory: memory)
        let q2 = try m2.admit(WLMRequest(queryID: 4, restartable: true), context: spilling)
        let file = try SpillSpace.temporary.newFile(for: memory)
        try file.append(contentsOf: [UInt8](repeating: 1, count: 3 << 20))
        try file.flush()
        m2.checkRunning()
        // No queue to hop to: cancelled.
        XCTAssertEqual(spilling.cancellation.error?.message, "Query (4) cancelled on user's request and ran out of wlm queues for restart.")
        m2.finish(q2, error: spilling.cancellation.error)
    }

    func testShortQueriesRunInTheSQASpaceAndMoveOutPastItsLimit() throws {
        let m = try manager(#"[{"query_concurrency": 1}, {"short_query_queue": true, "max_execution_time": 1000}]"#)
        m.predictor.costLimit = 100
        let long = try m.admit(WLMRequest(queryID: 1, restartable: true, shortQueryShape: "select ? from t", estimatedCost: 1e6),
                               context: QueryContext(cancellation: Cancellation()))
        XCTAssertEqual(long.prediction?.isShort, false)
        XCTAssertEqual(long.context.serviceClass, 6)
        // The only slot of queue 6 is taken; a short query does not wait for it.
        let shortContext = QueryContext(cancellation: Cancellation())
        let short = try m.admit(WLMRequest(queryID: 2, restartable: true, shortQueryShape: "select ? from u", estimatedCost: 10),
                                context: shortContext)
        XCTAssertEqual(shortContext.serviceClass, 14)
        XCTAssertEqual(short.prediction?.source, "plan")
        XCTAssertGreaterThan(shortContext.priority, long.context.priority)
        // Past SQA's 1 s it is moved to its normal queue (which it then waits for).
        let deadline = Date().addingTimeInterval(5)
        while !shortContext.cancellation.isCancelled && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let error = try XCTUnwrap(shortContext.cancellation.error)
        XCTAssertTrue(m.restartAfter(short, error: error))
        m.finish(long, error: nil)
        try m.readmit(short)
        XCTAssertEqual(shortContext.serviceClass, 6)
        m.finish(short, error: nil)
        XCTAssertEqual(m.history.map { "\($0.query) \($0.serviceClass) \($0.finalState)" },
                       ["2 14 Evicted", "1 6 Completed", "2 6 Completed"])
        // History: that shape is no longer predicted short.
        let again = try m.admit(WLMRequest(queryID: 3, restartable: true, shortQueryShape: "select ? from u", estimatedCost: 10),
                                context: QueryContext(cancellation: Cancellation()))
        XCTAssertEqual(again.prediction?.isShort, false)
        XCTAssertEqual(again.prediction?.source, "history")
        m.finish(again, error: nil)
    }

    func testTheConfigurationFileIsReloadedWhenItChanges() throws {
        let dir = NSTemporaryDirectory() + "wlm-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/wlm.json"
        let m = WorkloadManager(pool: MemoryPool(limit: 1 << 30))
        try m.setConfigurationFile(path, required: false)
        XCTAssertEqual(m.configuration, .default)
        XCTAssertThrowsError(try m.setConfigurationFile(path, required: true))
        try #"[{"query_concurrency": 3}]"#.write(toFile: path, atomically: true, encoding: .utf8)
        m.reloadIfChanged()
        XCTAssertEqual(m.configuration.defaultQueue.concurrency, 3)
        // An invalid change keeps the running configuration.
        try #"[{"query_concurrency": 300}]"#.write(toFile: path, atomically: true, encoding: .utf8)
        m.reloadIfChanged()
        XCTAssertEqual(m.configuration.defaultQueue.concurrency, 3)
        XCTAssertNotNil(m.reloadError)
        try #"[{"query_concurrency": 4}, {"short_query_queue": true}]"#.write(toFile: path, atomically: true, encoding: .utf8)
        m.reloadIfChanged()
        XCTAssertEqual(m.configuration.defaultQueue.concurrency, 4)
        XCTAssertNotNil(m.configuration.shortQuery)
    }
}

/// Strings added from several threads, in the order they came.
final class Recorder: @unchecked Sendable {
    private let lock = Lock()
    private var items: [String] = []
    func add(_ s: String) { lock.withLock { items.append(s) } }
    var values: [String] { lock.withLock { items } }
}
