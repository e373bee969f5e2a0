// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
@testable import SlicehouseExecution

/// A query's operators, with the hash tables, groups and sort buffers they hold, are
/// freed when it ends. A reference cycle between a pipeline's step meters and its scan's
/// counter callback once kept every operator of every query alive: 185 MB per TPC-H Q18
/// at SF 1, so a process's memory grew with each query while its budget said otherwise.
final class OperatorLifetimeTests: XCTestCase {
    func testEveryPipelineIsFreedWhenItsQueryEnds() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        _ = try s.execute("""
            create table t (k int, v int, w varchar(10)) diststyle even;
            insert into t select n, n % 10, 'w' || (n % 100) from generate_series(1, 5000) n;
            """)
        let queries = [
            "select t.v, count(*) from t join t t2 on t.k = t2.k + 1 group by t.v order by 1",
            "select w, sum(k) from t where v > 2 group by w order by 2 desc limit 5",
            "select count(*) from t where k in (select k * 2 from t where w like 'w1%')",
        ]
        _ = try s.execute(queries[0])
        let before = PipelineMeters.live
        for _ in 0..<3 {
            for q in queries { XCTAssertFalse(try s.execute(q)[0].textRows().isEmpty, q) }
        }
        XCTAssertEqual(PipelineMeters.live, before, "pipelines outlived their queries")
    }
}
