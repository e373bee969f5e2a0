// SPDX-License-Identifier: Apache-2.0
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

    /// A GROUP BY key equal (through an inner join's or a filter's `=`) to the column the
    /// input is hashed on aggregates in one phase where the rows are; an outer join's
    /// padded side, or a key of another type, does not.
    func testKeysEqualToTheDistributionAggregateInPlace() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        _ = try s.execute("""
            create table fact (item int, qty int) distkey(item);
            create table dim (item int, name varchar(10)) distkey(item);
            create table wide (item bigint, tag int) distkey(item);
            create table codes (code varchar(5), n int) distkey(code);
            create table names (code varchar(5), label varchar(10)) distkey(code);
            insert into codes values ('a', 1), ('a ', 2), ('b', 3);
            insert into names values ('a', 'x'), ('b', 'y');
            insert into fact values (1, 10), (2, 20), (2, 5), (3, 7), (4, 1), (4, 2), (9, 3);
            insert into dim values (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e');
            insert into wide values (1, 1), (2, 2), (3, 3);
            """)
        // dim.item = fact.item: grouped where the rows are (the join too).
        for sql in ["select dim.item, dim.name, sum(qty) from fact join dim on fact.item = dim.item group by dim.item, dim.name",
                    "select d.item, count(*) from fact f, dim d where f.item = d.item and f.qty > 1 group by d.item",
                    "select x.i, sum(x.q) from (select dim.item as i, qty as q from fact join dim on fact.item = dim.item) x group by x.i"] {
            let plan = try explain(s, sql)
            XCTAssertFalse(plan.contains("Phase: partial"), plan)
            XCTAssertFalse(plan.contains("Distribute by"), plan)
        }
        // The padded side of a LEFT JOIN is NULL where the other side is not; another type
        // may hash apart: two phases.
        for sql in ["select dim.item, count(*) from fact left join dim on fact.item = dim.item group by dim.item",
                    "select wide.item, count(*) from fact join wide on fact.item = wide.item group by wide.item",
                    "select names.code, sum(n) from codes join names on codes.code = names.code group by names.code"] {
            let plan = try explain(s, sql)
            XCTAssertTrue(plan.contains("Phase: partial") || plan.contains("Distribute by"), plan)
        }
        let rows = { (sql: String) throws -> [[String]] in try s.execute(sql)[0].textRows().map { $0.map { $0 ?? "NULL" } } }
        XCTAssertEqual(try rows("select dim.item, dim.name, sum(qty) from fact join dim on fact.item = dim.item group by dim.item, dim.name order by 1"),
                       [["1", "a", "10"], ["2", "b", "25"], ["3", "c", "7"], ["4", "d", "3"]])
        // Strings equal but for trailing blanks: grouped by the value the query names.
        XCTAssertEqual(try rows("select names.code, sum(n) from codes join names on codes.code = names.code group by names.code order by 1"),
                       try rows("select code, sum(n) from (select names.code, n from codes join names on codes.code = names.code) x group by code order by 1"))
        XCTAssertEqual(try rows("select dim.item, count(*) from fact left join dim on fact.item = dim.item group by dim.item order by 1 nulls last"),
                       [["1", "1"], ["2", "2"], ["3", "1"], ["4", "2"], ["NULL", "1"]])
    }
    /// Text keys from a dimension's build side are grouped by codes (`GroupKeyCoding`):
    /// EXPLAIN names them under the aggregate. A LEFT join's build columns, a key an
    /// aggregate reads, a computed key and a column whose values end in blanks stay text.
    func testCodedKeysOfADimensionJoin() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        _ = try s.execute("""
            create table item (i_sk int, i_category varchar(20), i_brand varchar(20)) diststyle all;
            create table center (c_sk int, c_name varchar(20)) diststyle all;
            create table sales (s_item int distkey, s_center int, s_qty int);
            insert into item values (1, 'Men', 'amalg'), (2, 'Men', 'edu'), (3, 'Women', 'amalg'), (4, null, 'b');
            insert into center values (1, 'North'), (2, 'South');
            insert into sales values (1, 1, 5), (2, 2, 6), (3, 1, 7), (4, 2, 8), (1, 2, 9), (2, 1, 10), (3, 2, 11), (4, 1, 12);
            """)
        for _ in 0..<6 { _ = try s.execute("insert into sales select s_item, s_center, s_qty + 1 from sales") }
        _ = try s.execute("analyze item; analyze center; analyze sales")
        let q57 = try explain(s, """
            select i_category, i_brand, c_name, sum(s_qty) from sales, item, center
            where s_item = i_sk and s_center = c_sk group by i_category, i_brand, c_name
            """)
        XCTAssertTrue(q57.contains("Coded Keys: i_category, i_brand, c_name"), q57)
        let left = try explain(s, "select i_brand, c_name, count(*) from sales join center on s_center = c_sk left join item on s_item = i_sk group by i_brand, c_name")
        XCTAssertTrue(left.contains("Coded Keys: c_name\n"), left)
        let read = try explain(s, "select i_brand, max(i_brand), sum(s_qty) from sales join item on s_item = i_sk group by i_brand")
        XCTAssertFalse(read.contains("Coded Keys"), read)
        let computed = try explain(s, "select upper(i_brand) u, sum(s_qty) from sales join item on s_item = i_sk group by u")
        XCTAssertFalse(computed.contains("Coded Keys"), computed)
        // The answers are the text's (each first row's quantity q in 64 copies: 64q + 192).
        let r = try s.execute("select i_category, i_brand, c_name, sum(s_qty) from sales, item, center where s_item = i_sk and s_center = c_sk group by i_category, i_brand, c_name order by 1, 2, 3")
        XCTAssertEqual(r[0].textRows().map { $0.map { $0 ?? "NULL" }.joined(separator: " ") }, [
            "Men amalg North 512", "Men amalg South 768", "Men edu North 832", "Men edu South 576",
            "Women amalg North 640", "Women amalg South 896", "NULL b North 960", "NULL b South 704"])
        _ = try s.execute("insert into item values (5, 'Men ', 'amalg')")
        let blanks = try explain(s, "select i_category, sum(s_qty) from sales join item on s_item = i_sk group by i_category")
        XCTAssertFalse(blanks.contains("Coded Keys"), blanks)
    }
}
