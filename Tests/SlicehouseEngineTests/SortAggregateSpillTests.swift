import XCTest
import SlicehouseEngine

/// ORDER BY and GROUP BY under a database memory limit far below what their sorts and
/// group tables hold: they spill (runs; partitions) and answer exactly as without a
/// limit, and SVL_QUERY_SUMMARY marks their steps disk-based. Aggregates without a
/// mergeable state (MEDIAN, COUNT(DISTINCT), LISTAGG, PERCENTILE_CONT) spill the rows of
/// the groups their table does not hold.
final class SortAggregateSpillTests: XCTestCase {
    /// Two four-slice databases after `setup`: one without a memory limit, one limited to
    /// 384 kB.
    static func databases(_ setup: String) throws -> (free: Session, tight: Session) {
        let cluster = ClusterConfig(nodes: 2, slicesPerNode: 2)
        let free = try Database(cluster: cluster).connect()
        let tightDB = try Database(cluster: cluster)
        let tight = tightDB.connect()
        _ = try free.execute(setup)
        _ = try tight.execute(setup)
        tightDB.memory.limit = 384 << 10
        return (free, tight)
    }

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
            ("select g, median(d), count(distinct s) from t group by g order by g limit 50", ["aggr"]),
            ("select s, listagg(k::varchar, ',') within group (order by d desc, k), count(distinct g % 100), percentile_cont(0.25) within group (order by f) from t group by s order by s limit 40", ["aggr"]),
        ]
        let (free, tight) = try Self.databases(setup)
        for (sql, spilling) in queries {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            XCTAssertEqual(got, want, sql)
            let spilled = tight.lastSpilledBytes
            let diskBased = try tight.execute("""
                select distinct label from svl_query_summary where query = pg_last_query_id() and is_diskbased = 't'
                """)[0].textRows().compactMap { $0[0] }
            for label in spilling { XCTAssertTrue(diskBased.contains(label), "\(sql): \(diskBased)") }
            XCTAssertGreaterThan(spilled, 0, sql)
        }
    }

    /// Window functions with PARTITION BY spill their rows by partition-key hash and
    /// answer exactly as without a limit (ranking, frames, LAG/LEAD, NULL partition
    /// keys); a window without PARTITION BY, or one huge partition, is held instead.
    func testWindowsSpillAndAnswerAsWithoutALimit() throws {
        let setup = """
            create table w (k bigint distkey, g int, s varchar(20), d decimal(12,2));
            insert into w select x, x % 997, 'w' || (x % 3001), x * 0.37 from generate_series(1, 60000) as q(x);
            insert into w values (null, null, null, null), (60001, null, 'w1', null), (60002, 5, null, 1.5);
            """
        let queries: [(String, Bool)] = [
            ("""
             select k, row_number() over (partition by g order by k), rank() over (partition by s order by d desc nulls last),
                    sum(d) over (partition by g order by k rows between 3 preceding and current row),
                    lag(s, 2) over (partition by g order by k), count(*) over (partition by g)
             from w order by k nulls first limit 200 offset 30000
             """, true),
            ("""
             select count(*), sum(rn), sum(r), sum(c), max(l) from (
               select row_number() over (partition by s order by k) rn, dense_rank() over (partition by g % 50, s order by d) r,
                      count(d) over (partition by g) c, last_value(k) over (partition by s order by k rows between unbounded preceding and unbounded following) l
               from w) q
             """, true),
            ("select count(*), sum(rn) from (select row_number() over (order by k) rn from w) q", false),
            ("select count(*), sum(rn), max(c) from (select row_number() over (partition by g % 1 order by k) rn, count(*) over (partition by 1) c from w) q", true),
        ]
        let (free, tight) = try Self.databases(setup)
        for (sql, spills) in queries {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            XCTAssertEqual(got, want, sql)
            let window = try tight.execute("""
                select max(is_diskbased) from svl_query_summary where query = pg_last_query_id() and label = 'window'
                """)[0].textRows()
            XCTAssertEqual(window, [[spills ? "t" : "f"]], sql)
        }
        // Without a limit nothing spills.
        _ = try free.execute(queries[0].0)
        XCTAssertEqual(try free.execute("""
            select max(is_diskbased) from svl_query_summary where query = pg_last_query_id() and label = 'window'
            """)[0].textRows(), [["f"]])
    }
}
