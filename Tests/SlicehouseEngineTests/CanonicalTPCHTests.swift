// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine

/// TPC-H queries as TPC writes them (interval arithmetic, Q15 with CREATE VIEW) run
/// unchanged and give the reference answers.
final class CanonicalTPCHTests: XCTestCase {
    static let q1 = """
        select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price,
               sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
               sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
               avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc,
               count(*) as count_order
        from lineitem
        where l_shipdate <= date '1998-12-01' - interval '90' day (3)
        group by l_returnflag, l_linestatus
        order by l_returnflag, l_linestatus;
        """
    static let q4 = """
        select o_orderpriority, count(*) as order_count
        from orders
        where o_orderdate >= date '1993-07-01' and o_orderdate < date '1993-07-01' + interval '3' month
          and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
        group by o_orderpriority
        order by o_orderpriority;
        """
    static let q15 = """
        create view revenue0 (supplier_no, total_revenue) as
            select l_suppkey, sum(l_extendedprice * (1 - l_discount))
            from lineitem
            where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-01-01' + interval '3' month
            group by l_suppkey;

        select s_suppkey, s_name, s_address, s_phone, total_revenue
        from supplier, revenue0
        where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue0)
        order by s_suppkey;

        drop view revenue0;
        """

    func testCanonicalText() throws {
        let s = try TPCH.load(.keyed, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        for (n, sql) in [(1, Self.q1), (4, Self.q4)] {
            guard let r = try s.execute(sql).last else { return XCTFail("Q\(n)") }
            try TPCH.check(r, answer: n)
        }
        let results = try s.execute(Self.q15)
        XCTAssertEqual(results.first?.tag, "CREATE VIEW")
        XCTAssertEqual(results.last?.tag, "DROP VIEW")
        try TPCH.check(results[1], answer: 15)
        XCTAssertThrowsError(try s.execute("select * from revenue0"))
    }

    func testViews() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2)).connect()
        _ = try s.execute("create table t (a int, b int); insert into t values (1, 10), (2, 20), (3, 30)")
        _ = try s.execute("create view v (x, y) as select a, b * 2 from t where a > 1")
        XCTAssertEqual(try s.execute("select x, y from v order by x")[0].textRows(), [["2", "40"], ["3", "60"]])
        XCTAssertEqual(try s.execute("select count(*) from v a join v b on a.x = b.x")[0].textRows(), [["2"]])
        XCTAssertThrowsError(try s.execute("create view v as select 1"))
        _ = try s.execute("create or replace view v as select a from t")
        XCTAssertEqual(try s.execute("select count(*) from v")[0].textRows(), [["3"]])
        XCTAssertThrowsError(try s.execute("create table v (a int)"))
        _ = try s.execute("drop view v")
        _ = try s.execute("drop view if exists v")
        XCTAssertThrowsError(try s.execute("drop view v"))
    }
}
