import XCTest
import SlicehouseEngine

/// ORDER BY and GROUP BY under a database memory limit far below what their sorts and
/// group tables hold: they spill (runs; partitions) and answer exactly as without a
/// limit, and SVL_QUERY_SUMMARY marks their steps disk-based. Aggregates without a
/// mergeable state (MEDIAN, COUNT(DISTINCT)) keep their memory instead (the exchanges
/// that feed them still spill).
final class SortAggregateSpillTests: XCTestCase {
    func testSortsAndAggregatesSpillAndAnswerAsWithoutALimit() throws {
        let setup = """
            create table t (k bigint distkey, g int, s varchar(20), d decimal(12,2), f double precision);
            insert into t select x, x % 7919, 'w' || (x % 3001), x * 0.37, x / 7.0 from generate_series(1, 60000) as q(x);
            insert into t values (null, null, null, null, null), (60001, null, 'w1', null, 0);
            """
        // Each query with the labels of the steps that must have spilled.
        let queries: [(String, [String])] = [
            ("select g, count(*), sum(d), avg(d), min(s), max(f) from t group by g order by g", ["aggr", "sort"]),
            ("select s, g % 13, count(*), sum(k) from t group by s, g % 13 order by 1 desc, 2 nulls first", ["aggr", "sort"]),
            ("select k, s from t order by s desc, k limit 100 offset 20000", ["sort"]),
            ("select count(*), sum(k) from (select k, s from t order by s, d desc) q", ["sort"]),
            ("select count(distinct g), count(*) from (select g, s from t group by g, s) q", ["aggr"]),
            ("select g, median(d), count(distinct s) from t group by g order by g limit 50", []),
        ]
        let cluster = ClusterConfig(nodes: 2, slicesPerNode: 2)
        let free = try Database(cluster: cluster).connect()
        let tightDB = try Database(cluster: cluster)
        let tight = tightDB.connect()
        _ = try free.execute(setup)
        _ = try tight.execute(setup)
        tightDB.memory.limit = 384 << 10
        for (sql, spilling) in queries {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            XCTAssertEqual(got, want, sql)
            let spilled = tight.lastSpilledBytes
            let diskBased = try tight.execute("""
                select distinct label from svl_query_summary where query = pg_last_query_id() and is_diskbased = 't'
                """)[0].textRows().compactMap { $0[0] }
            for label in spilling { XCTAssertTrue(diskBased.contains(label), "\(sql): \(diskBased)") }
            if spilling.isEmpty {
                // The aggregate keeps its groups (counted beyond the budget); only the
                // exchanges around it, which can always spill, may go to disk.
                XCTAssertFalse(diskBased.contains("aggr"), "\(sql): \(diskBased)")
                XCTAssertEqual(diskBased.filter { $0 != "dist" && $0 != "return" && $0 != "bcast" }, [], sql)
            } else {
                XCTAssertGreaterThan(spilled, 0, sql)
            }
        }
    }
}
