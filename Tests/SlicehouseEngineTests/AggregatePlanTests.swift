import XCTest
import SlicehouseEngine

/// How the ordered-set aggregates and APPROXIMATE COUNT(DISTINCT) are distributed:
/// the former in one phase after the rows of a group are brought together, the latter
/// in two phases (per-slice HyperLogLog sketches merged by the final aggregate).
final class AggregatePlanTests: XCTestCase {
    func explain(_ s: Session, _ sql: String) throws -> String {
        let r = try s.execute("EXPLAIN " + sql)
        return r[0].textRows().map { $0[0] ?? "" }.joined(separator: "\n")
    }

    func testOrderedSetSinglePhaseApproximateTwoPhase() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        _ = try s.execute("""
            create table f (k int distkey, g int, v int, name varchar(10));
            insert into f values (1, 1, 10, 'a'), (2, 1, 20, 'b'), (3, 2, 30, 'c'), (4, 2, 40, 'd'), (5, 3, 50, 'e');
            """)
        for sql in ["select g, median(v) from f group by g",
                    "select g, percentile_cont(0.9) within group (order by v desc), sum(v) from f group by g",
                    "select g, listagg(name, ',') within group (order by v) from f group by g",
                    "select g, approximate count(distinct v), median(v) from f group by g"] {
            let plan = try explain(s, sql)
            XCTAssertFalse(plan.contains("Phase: partial"), plan)
            XCTAssertTrue(plan.contains("Distribute by"), plan)
        }
        // Without GROUP BY: everything on the leader.
        let gathered = try explain(s, "select median(v), listagg(name) from f")
        XCTAssertFalse(gathered.contains("Phase: partial"), gathered)
        XCTAssertTrue(gathered.contains("Send to leader"), gathered)
        // Grouped on the DISTKEY: no movement at all.
        let local = try explain(s, "select k, median(v), listagg(name) from f group by k")
        XCTAssertFalse(local.contains("Distribute by"), local)
        XCTAssertFalse(local.contains("Phase: partial"), local)
        // Sketches merge: two phases.
        for sql in ["select g, approximate count(distinct v) from f group by g",
                    "select approximate count(distinct name), count(*) from f"] {
            let plan = try explain(s, sql)
            XCTAssertTrue(plan.contains("Phase: partial") && plan.contains("Phase: final"), plan)
        }
        // Same answers whatever the plan.
        let rows = try s.execute("""
            select g, median(v), percentile_disc(0.5) within group (order by v desc), listagg(name, '') within group (order by v desc),
                   approximate count(distinct v) from f group by g order by g
            """)[0].textRows()
        XCTAssertEqual(rows.map { $0.map { $0 ?? "NULL" } }, [["1", "15.0", "20", "ba", "2"], ["2", "35.0", "40", "dc", "2"],
                                                              ["3", "50.0", "50", "e", "1"]])
    }
}
