// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseEngine
import SlicehouseTypes

/// STV_EXEC_STATE: the steps of a query while it runs, read from another session.
final class ExecStateTests: XCTestCase {
    /// Holds the query at its first rows until the test lets it go.
    final class HoldingSink: RowSink, @unchecked Sendable {
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var held = false
        var rows = 0
        func start(_ columns: [ResultColumn]) throws {}
        func rows(_ chunk: Chunk) throws {
            rows += chunk.count
            if !held {
                held = true
                arrived.signal()
                _ = release.wait(timeout: .now() + 60)
            }
        }
    }

    func testARunningQuerysStepsShowUntilItEnds() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        db.resultCacheBytes = 0
        let s = db.connect(), observer = db.connect()
        _ = try s.execute("create table t (a int, b int) diststyle even")
        _ = try s.execute("insert into t select n, n % 7 from generate_series(1, 20000) n")
        let statement = try XCTUnwrap(try s.parse("select b, count(*) from t group by b").first)
        let sink = HoldingSink()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? s.run(statement, sink: sink)
            done.signal()
        }
        thread.start()
        XCTAssertEqual(sink.arrived.wait(timeout: .now() + 60), .success)
        // The scans have finished on every slice: one row each, all 20,000 rows between them.
        let scans = try observer.execute("""
            select count(*), sum(rows), count(distinct slice), count(distinct query) from stv_exec_state where label like 'scan%'
            """).last?.textRows()
        XCTAssertEqual(scans, [["4", "20000", "4", "1"]])
        let running = try observer.execute("""
            select count(*) from stv_exec_state e join stv_inflight i on e.query = i.query
            """).last?.textRows()
        XCTAssertNotEqual(running, [["0"]])
        sink.release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(sink.rows, 7)
        XCTAssertEqual(try observer.execute("select count(*) from stv_exec_state").last?.textRows(), [["0"]])
    }
}
