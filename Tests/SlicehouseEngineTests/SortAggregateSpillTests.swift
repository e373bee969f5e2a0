// SPDX-License-Identifier: Apache-2.0
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
        let freeDB = try Database(cluster: cluster)
        let tightDB = try Database(cluster: cluster)
        // The tests look at how each run went: a repeated query must run, not come from the result cache.
        freeDB.resultCacheBytes = 0
        tightDB.resultCacheBytes = 0
        let free = freeDB.connect()
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
            ("select count(*), sum(rn) from (select row_number() over (order by k) rn from w) q", true),
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

    /// A window without PARTITION BY, and one window partition bigger than the budget, go
    /// through `WindowStream` (external sort, then cursors over the sorted spill): every
    /// function and frame shape answers as without a limit. ORDER BY k is unique, so the
    /// answers cannot depend on the order of ties; ties of g only meet functions whose
    /// results do not depend on it (REAL sums are of exact binary fractions).
    func testWindowsWithoutPartitionsOrOneHugePartitionStream() throws {
        let setup = """
            create table w (k bigint distkey, g int, s varchar(20), d decimal(12,2), f double precision);
            insert into w select x, x % 97, case when x % 11 = 0 then null else 'w' || (x % 3001) end,
                                 case when x % 5 = 0 then null else x * 0.37 end,
                                 case when x % 7 = 0 then null else x / 8.0 end
                          from generate_series(1, 24000) as q(x);
            insert into w values (null, null, null, null, null), (24001, null, 'w1', null, null), (24002, 5, null, 1.5, 2.5);
            """
        let (free, tight) = try Self.databases(setup)
        let frames = [
            "rows between unbounded preceding and current row", "rows between 3 preceding and 2 following",
            "rows between current row and unbounded following", "rows between unbounded preceding and unbounded following",
            "rows between 5 following and 40 following", "rows between 10 preceding and 4 preceding",
            "rows between 60 preceding and 50 following", "rows between 0 preceding and 0 following",
        ]
        let framed = ["count(d)", "count(*)", "sum(k)", "sum(d)", "avg(d)", "avg(k)", "sum(f)", "avg(f)", "min(s)",
                      "max(d)", "min(f)", "max(k)", "first_value(s)", "last_value(d)", "nth_value(k, 3)",
                      "first_value(f) ignore nulls", "last_value(s) ignore nulls", "nth_value(d, 2) ignore nulls"]
        let partitions = ["", "partition by g % 1", "partition by g % 2"]
        var queries: [String] = []
        for p in partitions {
            for frame in frames {
                let list = framed.map { "\($0) over (\(p) order by k \(frame))" }.joined(separator: ", ")
                queries.append("select k, \(list) from w order by k nulls first")
            }
            // RANGE frames over ties of g: only functions that do not depend on the order of peers.
            for frame in ["range between unbounded preceding and current row", "range between current row and unbounded following",
                          "range between current row and current row"] {
                let list = ["count(d)", "count(*)", "sum(k)", "avg(d)", "sum(f)", "min(s)", "max(d)"]
                    .map { "\($0) over (\(p) order by g \(frame))" }.joined(separator: ", ")
                queries.append("select k, \(list) from w order by k nulls first")
            }
            queries.append("""
                select k, row_number() over (\(p) order by k), rank() over (\(p) order by g), dense_rank() over (\(p) order by g nulls first),
                       percent_rank() over (\(p) order by g desc), cume_dist() over (\(p) order by g), ntile(7) over (\(p) order by k),
                       ntile(100000) over (\(p) order by k desc), lag(s) over (\(p) order by k), lag(d, 3, 0) over (\(p) order by k),
                       lead(k, 2, -1) over (\(p) order by k), lead(s, 40000) over (\(p) order by k),
                       lag(d, 2) ignore nulls over (\(p) order by k), lead(s, 3) ignore nulls over (\(p) order by k),
                       lag(f, 0) ignore nulls over (\(p) order by k), ratio_to_report(d) over (\(p)), ratio_to_report(k) over (\(p)),
                       ratio_to_report(f) over (\(p)), count(*) over (\(p)), max(s) over (\(p)),
                       sum(d) over (\(p) order by k rows unbounded preceding), avg(f) over (\(p))
                from w order by k nulls first
                """)
        }
        for sql in queries {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }
            XCTAssertEqual(got.count, want.count, sql)
            if got != want, let row = zip(got, want).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                XCTFail("\(sql)\nfirst difference at row \(row): \(got[row]) vs \(want[row])")
            }
            let window = try tight.execute("""
                select max(is_diskbased) from svl_query_summary where query = pg_last_query_id() and label = 'window'
                """)[0].textRows()
            XCTAssertEqual(window, [["t"]], sql)
        }
        // Over 400,000 rows the window holds a few chunks (and its sort's merge), not its rows.
        let more = "insert into w select x, x % 97, 'w' || (x % 3001), x * 0.37, x / 8.0 from generate_series(24003, 400000) as q(x)"
        _ = try free.execute(more)
        _ = try tight.execute(more)
        func windowMemory(_ session: Session) throws -> Int {
            _ = try session.execute("select count(*) from (select k, row_number() over (order by s, k), s, d, f from w order by k) q")
            let rows = try session.execute("""
                select max(workmem), max(is_diskbased) from svl_query_summary where query = pg_last_query_id() and label = 'window'
                """)[0].textRows()
            XCTAssertEqual(rows.first?.last, session === tight ? "t" : "f")
            return Int(rows.first?.first.flatMap { $0 } ?? "") ?? -1
        }
        let held = try windowMemory(free), streamed = try windowMemory(tight)
        XCTAssertGreaterThan(held, 4 << 20)
        XCTAssertLessThan(streamed, min(held / 2, 5 << 19), "window workmem")
    }
}
