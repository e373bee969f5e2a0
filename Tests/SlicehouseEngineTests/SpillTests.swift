// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// Queries whose operators need more memory than the database allows spill to disk and
/// still answer exactly as without a limit; SVL_QUERY_SUMMARY says they spilled.
final class SpillTests: XCTestCase {
    /// Two databases with the same tables: one without a memory limit, one with a limit
    /// far below what the joins, sorts and aggregations below hold.
    static func databases(slices: (Int, Int)) throws -> (free: Session, tight: Session) {
        let cluster = ClusterConfig(nodes: slices.0, slicesPerNode: slices.1)
        let freeDB = try Database(cluster: cluster)
        let tightDB = try Database(cluster: cluster)
        // The tests look at how each run went: a repeated query must run, not come from the result cache.
        freeDB.resultCacheBytes = 0
        tightDB.resultCacheBytes = 0
        let free = freeDB.connect()
        let tight = tightDB.connect()
        let setup = """
        create table a (k int, g int, s varchar(20), x bigint) diststyle even;
        create table b (k int, y varchar(20), z double precision) diststyle key distkey(y);
        insert into a select n, n % 97, 'a' || (n % 1000), n * 7 from generate_series(1, 40000) n;
        insert into a values (null, 1, 'null key', 0), (null, 2, null, 1);
        insert into b select n * 2, 'b' || n, n / 3.0 from generate_series(1, 30000) n;
        insert into b values (null, 'null key', 0);
        """
        _ = try free.execute(setup)
        _ = try tight.execute(setup)
        tightDB.memory.limit = 384 << 10
        return (free, tight)
    }

    static let queries: [String] = [
        // Hash joins of every kind, with and without a residual condition.
        "select a.k, a.s, b.y from a join b on a.k = b.k",
        "select a.k, b.y from a left join b on a.k = b.k",
        "select a.k, b.y from a right join b on a.k = b.k",
        "select a.k, a.g, b.k, b.y from a full join b on a.k = b.k",
        "select a.k, b.z from a left join b on a.k = b.k and b.z > 1000",
        "select count(*) from a where exists (select 1 from b where b.k = a.k)",
        "select count(*) from a where not exists (select 1 from b where b.k = a.k)",
        "select count(*) from a where a.k not in (select k from b where k is not null)",
        // NOT IN spills too: a NULL in the list leaves no row; a NULL probe key never qualifies.
        "select a.k, a.s from a where a.k not in (select k from b where k is not null)",
        "select count(*) from a where a.k not in (select k from b)",
        "select count(*) from a where a.k not in (select k from b where k > 100 or k is null) or a.g = 3",
        "select count(*), sum(a.x) from a join b on a.k = b.k join a a2 on a2.k = b.k / 2",
        // A nested loop join (no equality) whose inner side is over the budget.
        "select a.k, count(b.k), max(b.y) from (select k from a where k < 120) a left join b on a.k * 250 > b.k and a.k * 250 < b.k + 40 group by a.k",
        "select a.s, count(*) from a join b on a.k = b.k group by a.s",
    ]

    func check(slices: (Int, Int)) throws {
        let (free, tight) = try Self.databases(slices: slices)
        for sql in Self.queries {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }.sorted { $0.lexicographicallyPrecedes($1) }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }.sorted { $0.lexicographicallyPrecedes($1) }
            XCTAssertEqual(got.count, want.count, sql)
            XCTAssertEqual(got, want, sql)
        }
        // The first join spilled, and the summary says so for its join step.
        _ = try tight.execute(Self.queries[0])
        XCTAssertGreaterThan(tight.lastSpilledBytes, 0)
        let flags = try tight.execute("""
            select distinct is_diskbased from svl_query_summary where query = pg_last_query_id() and label = 'hjoin'
            """)[0].textRows()
        XCTAssertEqual(flags, [["t"]])
        _ = try free.execute(Self.queries[0])
        XCTAssertEqual(free.lastSpilledBytes, 0)
        // The nested loop join's inner side went to disk (a block nested loop).
        let nestedLoop = try XCTUnwrap(Self.queries.first { $0.contains("a.k * 250") })
        _ = try tight.execute(nestedLoop)
        XCTAssertEqual(try tight.execute("""
            select distinct is_diskbased from svl_query_summary where query = pg_last_query_id() and label = 'nloop'
            """)[0].textRows(), [["t"]])
        // So did NOT IN (a null-aware anti join), with and without a NULL in its list.
        for sql in [Self.queries[8], Self.queries[9]] {
            _ = try tight.execute(sql)
            XCTAssertEqual(try tight.execute("""
                select distinct is_diskbased from svl_query_summary where query = pg_last_query_id() and label = 'hjoin'
                """)[0].textRows(), [["t"]], sql)
        }
    }

    /// A large ORDER BY (order checked row by row) and GROUP BYs with many groups,
    /// aggregates of every family among them.
    static let ordered: [String] = [
        "select k, s, x from a order by s desc, k nulls first, x",
        "select s, k from a order by s, k desc limit 50 offset 20000",
    ]
    static let grouped: [String] = [
        "select k, count(*), sum(x), min(s), max(s) from a group by k",
        "select k % 5000, count(*), avg(x), stddev(x), bool_or(g > 50) from a group by 1",
        "select s, count(distinct g), median(x), listagg(g, ',') within group (order by g) from a where k < 3000 group by s",
        // Filtered aggregates (SUM(CASE WHEN c THEN x END)): their condition goes with the
        // rows a split or spill writes out, in two phases and (with DISTINCT) in one.
        "select k % 5000, sum(case when g < 40 then x end), count(case when s like 'a1%' then 1 end), max(case when g > 90 then s else null end), avg(case when k % 2 = 0 then x end) from a group by 1",
        "select s, count(distinct g), sum(case when g < 10 then x end), min(case when g > 50 then k end) from a group by s",
    ]

    func checkSortsAndAggregates(slices: (Int, Int)) throws {
        let (free, tight) = try Self.databases(slices: slices)
        for sql in Self.ordered {
            let want = try free.execute(sql)[0].textRows()
            let got = try tight.execute(sql)[0].textRows()
            XCTAssertEqual(got.count, want.count, sql)
            XCTAssertEqual(got, want, sql)
        }
        _ = try tight.execute(Self.ordered[0])
        XCTAssertGreaterThan(tight.lastSpilledBytes, 0, "the sort spilled")
        XCTAssertEqual(try tight.execute("""
            select distinct is_diskbased from svl_query_summary where query = pg_last_query_id() and label = 'sort'
            """)[0].textRows().contains(["t"]), true)
        for sql in Self.grouped {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }.sorted { $0.lexicographicallyPrecedes($1) }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }.sorted { $0.lexicographicallyPrecedes($1) }
            XCTAssertEqual(got.count, want.count, sql)
            XCTAssertEqual(got, want, sql)
        }
        _ = try tight.execute(Self.grouped[0])
        XCTAssertGreaterThan(tight.lastSpilledBytes, 0, "the aggregation spilled")
    }

    func testSortsAndAggregatesSpillAndAnswerTheSameOnOneSlice() throws { try checkSortsAndAggregates(slices: (1, 1)) }
    func testSortsAndAggregatesSpillAndAnswerTheSameOnFourSlices() throws { try checkSortsAndAggregates(slices: (2, 2)) }

    /// Exchanges beyond the budget spill: a redistribution of both join inputs, a
    /// broadcast, a gather to the leader, and a shared subplan (a CTE read twice, here by
    /// both sides of one join in one pipeline) answer the same, and the summary marks
    /// their `dist` / `bcast` steps disk-based.
    func testExchangesSpillAndAnswerTheSame() throws {
        let (free, tight) = try Self.databases(slices: (2, 2))
        let queries = [
            "select a.k, a.s, b.y, b.z from a join b on a.s = b.y || ''",
            "select a.k, b.y from a join b on a.k = b.k where b.z < 5000",
            "select k, s, x from a where k % 3 = 0",
            """
            with c as (select k, s, x from a where k % 2 = 0)
            select c1.k, c1.s, c2.x from c c1 join c c2 on c1.k = c2.k + 2
            """,
            "select s, count(*), sum(x) from a group by s",
        ]
        for sql in queries {
            let want = try free.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }.sorted { $0.lexicographicallyPrecedes($1) }
            let got = try tight.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } }.sorted { $0.lexicographicallyPrecedes($1) }
            XCTAssertEqual(got.count, want.count, sql)
            XCTAssertEqual(got, want, sql)
        }
        _ = try tight.execute(queries[0])
        XCTAssertEqual(try tight.execute("""
            select distinct is_diskbased from svl_query_summary where query = pg_last_query_id() and label = 'dist'
            """)[0].textRows(), [["t"]])
        _ = try free.execute(queries[0])
        XCTAssertEqual(try free.execute("""
            select distinct is_diskbased from svl_query_summary where query = pg_last_query_id() and label = 'dist'
            """)[0].textRows(), [["f"]])
    }

    func testJoinsSpillAndAnswerTheSameOnOneSlice() throws { try check(slices: (1, 1)) }
    func testJoinsSpillAndAnswerTheSameOnFourSlices() throws { try check(slices: (2, 2)) }
}
