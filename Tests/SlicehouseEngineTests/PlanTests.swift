// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine

/// EXPLAIN output: Redshift-style nodes, join labels and exchanges that follow from
/// the tables' distribution.
final class PlanTests: XCTestCase {
    func explain(_ s: Session, _ sql: String) throws -> String {
        let r = try s.execute("EXPLAIN " + sql)
        return r[0].textRows().map { $0[0] ?? "" }.joined(separator: "\n")
    }

    /// A session on 2 nodes of 2 slices whose table `seed (i int)` holds 0 ..< 2^`bits`.
    func seeded(_ bits: Int) throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table seed (i int) diststyle even; insert into seed values (0)")
        for p in 0..<bits { _ = try s.execute("insert into seed select i + \(1 << p) from seed") }
        return s
    }

    func testTPCHQ3PlanKeyed() throws {
        let s = try TPCH.load(.keyed, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let plan = try explain(s, try TPCH.query(3))
        // lineitem and orders share their DISTKEY (orderkey): joined where they lie.
        XCTAssertTrue(plan.contains("XN Hash Join DS_DIST_NONE"), plan)
        XCTAssertTrue(plan.contains("Hash Cond: (\"outer\".l_orderkey = \"inner\".o_orderkey)"), plan)
        // customer is distributed on c_custkey, not the join's orders side: the small filtered inner side is broadcast.
        XCTAssertTrue(plan.contains("DS_BCAST_INNER"), plan)
        XCTAssertTrue(plan.contains("XN Seq Scan on lineitem"), plan)
        XCTAssertTrue(plan.contains("Filter: (l_shipdate > '1995-03-15'::date)"), plan)
        XCTAssertTrue(plan.contains("XN Seq Scan on customer"), plan)
        XCTAssertTrue(plan.contains("XN HashAggregate"), plan)
        // Top-N per slice, merged on the leader.
        XCTAssertTrue(plan.hasPrefix("XN Limit"), plan)
        XCTAssertTrue(plan.contains("Send to leader"), plan)
        XCTAssertTrue(plan.contains("XN Top-N Sort"), plan)
        let lines = plan.split(separator: "\n")
        XCTAssertTrue(lines.allSatisfy { $0.contains("XN ") == $0.contains("(cost=") }, plan)
    }

    /// ORDER BY an expression outside the select list (TPC-DS q47, q57): the projection
    /// dropping the hidden key lies between LIMIT and the sort, and the slices still sort
    /// only their best rows (Top-N) for the leader to merge, not every row.
    func testLimitReachesTheSortThroughTheHiddenKeyProjection() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table t (k int, v int) diststyle even")
        for sql in ["select k from t order by v - k limit 5", "select k from t order by v - k limit 5 offset 2"] {
            let plan = try explain(s, sql)
            XCTAssertTrue(plan.contains("XN Top-N Sort"), plan)
            XCTAssertFalse(plan.contains("XN Sort "), plan)
        }
    }

    /// An inner join of a few distributed rows against an ALL table four times their size
    /// or more (TPC-DS q76: 170 web sales against the whole date dimension) builds on the
    /// few rows and reads the ALL table past them, its scan filtered by their keys; on a
    /// key no runtime filter can take (a string), the ALL table stays the build side.
    func testSmallSideBuildsAgainstALargeAllTable() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table big_all (d int, label varchar(10)) diststyle all;
            insert into big_all select g, 'd' || g::varchar from generate_series(1, 3000) g;
            create table fact (id int distkey, d int, x int, tag varchar(10));
            insert into fact select g, g % 3000 + 1, case when g % 1000 = 0 then null else g end, 'd' || (g % 3000)::varchar
              from generate_series(1, 20000) g;
            analyze;
            """)
        let plan = try explain(s, "select f.id, b.label from fact f, big_all b where f.x is null and f.d = b.d")
        let lines = plan.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let join = lines.firstIndex(where: { $0.contains("XN Hash Join DS_DIST_ALL_NONE") }) else {
            return XCTFail(plan)
        }
        // The probe (first) child is the ALL table's scan, filtered by the build keys.
        let probe = lines[(join + 1)...].first { $0.contains("XN Seq Scan") }
        XCTAssertTrue(probe?.contains("XN Seq Scan on big_all") == true, plan)
        XCTAssertTrue(plan.contains("Runtime Filter: d (from hash join build keys)"), plan)
        XCTAssertEqual(try s.execute("select count(*), sum(f.id) from fact f, big_all b where f.x is null and f.d = b.d")[0]
                        .textRows()[0], ["20", "210000"])

        let strings = try explain(s, "select f.id, b.label from fact f, big_all b where f.x is null and f.tag = b.label")
        let stringLines = strings.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let firstScan = stringLines.first { $0.contains("XN Seq Scan") }
        XCTAssertTrue(firstScan?.contains("XN Seq Scan on fact") == true, strings)
    }

    /// A column read only for a scan's filter (Q13's `o_comment NOT LIKE …`) is dropped
    /// after the filter: the hash table above holds the two keys, not the comment.
    func testFilterOnlyColumnsDoNotReachTheJoin() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table c (ck int distkey);
            create table o (ok int distkey, ck int, note varchar(80));
            insert into c values (1), (2), (3);
            insert into o values (10, 1, 'plain'), (11, 1, 'special requests'), (12, 2, 'x');
            """)
        let q = """
            select c.ck, count(o.ok) from c left join (select * from o where note not like '%special%requests%') o
            on c.ck = o.ck group by c.ck order by c.ck
            """
        let plan = try explain(s, q)
        let hash = plan.split(separator: "\n").first { $0.contains("XN Hash ") && !$0.contains("Join") }
        XCTAssertNotNil(hash, plan)
        XCTAssertTrue(hash?.contains("width=8)") ?? false, plan)   // ok and ck: 4 bytes each
        XCTAssertTrue(plan.contains("Filter: (note !~~ '%special%requests%'"), plan)
        XCTAssertEqual(try s.execute(q)[0].textRows(), [["1", "1"], ["2", "1"], ["3", "0"]])
    }

    /// A hash join produces only the columns the plan above reads (`OutputUse`): its keys
    /// and the columns the joins below it carried up stay behind, unless something reads
    /// them — a residual, a join above, a grouping, an ORDER BY, the select list.
    func testJoinsProduceOnlyTheColumnsReadAbove() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table fact (fk int distkey, dk int, qty int, price int);
            create table dim (dk int distkey, name varchar(10), grp int);
            create table grp (gk int distkey, label varchar(10));
            insert into fact values (1, 1, 5, 100), (2, 2, 6, 200), (3, 1, 7, 300), (4, 3, 8, 400);
            insert into dim values (1, 'one', 10), (2, 'two', 20), (3, 'three', 10);
            insert into grp values (10, 'ten'), (20, 'twenty');
            """)
        func joinOutputs(_ q: String) throws -> [String] {
            let plan = try explain(s, "verbose " + q)
            let lines = plan.split(separator: "\n").map(String.init)
            var outputs: [String] = []
            for (i, l) in lines.enumerated() where l.contains("Hash Join") && i + 1 < lines.count {
                outputs.append(lines[i + 1].trimmingCharacters(in: .whitespaces))
            }
            return outputs
        }
        let q = "select g.label, sum(f.qty * f.price) from fact f join dim d on f.dk = d.dk join grp g on d.grp = g.gk group by g.label order by 1"
        let outputs = try joinOutputs(q)
        // Neither join's keys nor dim's name reach the aggregate; the lower join keeps the
        // upper one's key.
        func columns(_ o: String) -> Set<String> {
            Set(o.replacingOccurrences(of: "Output: ", with: "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        }
        XCTAssertEqual(Set(outputs.map(columns)), [["qty", "price", "grp"], ["qty", "price", "label"]], "\(outputs)")
        XCTAssertEqual(try s.execute(q)[0].textRows(), [["ten", "5800"], ["twenty", "1200"]])
        // A residual reads its columns; the key read by the select list stays.
        let r = "select f.fk, d.name from fact f join dim d on f.dk = d.dk and f.qty + d.grp > 16 order by 1"
        let ro = try joinOutputs(r)
        XCTAssertEqual(ro.count, 1, "\(ro)")
        XCTAssertTrue(ro.first.map { $0.contains("fk") && $0.contains("name") && !$0.contains("price") } ?? false, "\(ro)")
        XCTAssertEqual(try s.execute(r)[0].textRows(), [["2", "two"], ["3", "one"], ["4", "three"]])
    }

    /// DECIMAL arithmetic over several columns of one join input is computed below the
    /// join (`Optimizer.pushComputations`): the joins carry its result, not its columns.
    /// A division, or a product that could overflow its type, stays above the join.
    func testArithmeticOfOneJoinInputIsComputedBelowTheJoin() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table fact (fk int distkey, dk int, price decimal(12,2), disc decimal(12,2), big decimal(38,0));
            create table dim (dk int distkey, name varchar(10), grp int);
            create table grp (gk int distkey, label varchar(10));
            insert into fact values (1, 1, 10.00, 0.10, 1), (2, 2, 20.00, 0.20, 2), (3, 1, 30.00, 0.00, 3), (4, 3, 40.00, 0.50, 4);
            insert into dim values (1, 'one', 10), (2, 'two', 20), (3, 'three', 10);
            insert into grp values (10, 'ten'), (20, 'twenty');
            """)
        func joinOutputs(_ q: String) throws -> [Set<String>] {
            let lines = try explain(s, "verbose " + q).split(separator: "\n").map(String.init)
            var outputs: [Set<String>] = []
            for (i, l) in lines.enumerated() where l.contains("Hash Join") && i + 1 < lines.count {
                outputs.append(Set(lines[i + 1].replacingOccurrences(of: "Output: ", with: "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }))
            }
            return outputs
        }
        let q = """
            select g.label, sum(f.price * (1 - f.disc)) from fact f join dim d on f.dk = d.dk
            join grp g on d.grp = g.gk group by g.label order by 1
            """
        let outputs = try joinOutputs(q)
        XCTAssertEqual(outputs.count, 2, "\(outputs)")
        for o in outputs {
            XCTAssertTrue(o.isDisjoint(with: ["price", "disc"]) && o.count == 2, "\(outputs)")
        }
        XCTAssertEqual(try s.execute(q)[0].textRows(), [["ten", "59.0000"], ["twenty", "16.0000"]])
        // Division and a DECIMAL(38,0) product stay above: the joins carry their columns.
        for (e, columns) in [("f.price / f.disc", ["price", "disc"]), ("f.big * f.big", ["big"])] {
            let o = try joinOutputs("select d.name, \(e) from fact f join dim d on f.dk = d.dk")
            XCTAssertEqual(o.count, 1, "\(o)")
            XCTAssertTrue(o.first.map { $0.isSuperset(of: columns) } ?? false, "\(e): \(o)")
        }
    }

    /// NOT EXISTS / EXISTS over a table with many rows per compared value reads its
    /// distinct values (`Optimizer.distinctExistenceInputs`): an aggregate under the join;
    /// none when the condition reads another column of the inner side.
    func testExistenceSubqueriesReadDistinctKeys() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table cust (ck int distkey, name varchar(10));
            create table ord (ok int distkey, ck int, amt int);
            insert into cust values (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e');
            insert into ord select s.i * 10 + t.i, 1 + s.i, t.i from
              (select 0 as i union all select 1 union all select 2 union all select 3) s,
              (select 0 as i union all select 1 union all select 2 union all select 3 union all select 4
               union all select 5 union all select 6 union all select 7 union all select 8 union all select 9) t;
            analyze cust;
            analyze ord;
            """)
        func aggregateUnderJoin(_ q: String) throws -> Bool {
            let lines = try explain(s, q).split(separator: "\n").map(String.init)
            guard let j = lines.firstIndex(where: { $0.contains("Join") }) else { return false }
            return lines[j...].contains { $0.contains("Aggregate") }
        }
        let anti = "select name from cust where not exists (select * from ord where ord.ck = cust.ck) order by 1"
        XCTAssertTrue(try aggregateUnderJoin(anti), (try? explain(s, anti)) ?? "")
        XCTAssertEqual(try s.execute(anti)[0].textRows(), [["e"]])
        let semi = "select name from cust where ck in (select ck from ord) order by 1"
        XCTAssertTrue(try aggregateUnderJoin(semi), (try? explain(s, semi)) ?? "")
        XCTAssertEqual(try s.execute(semi)[0].textRows(), [["a"], ["b"], ["c"], ["d"]])
        let correlated = "select name from cust where exists (select * from ord where ord.ck = cust.ck and ord.amt > cust.ck * 2) order by 1"
        XCTAssertFalse(try aggregateUnderJoin(correlated), (try? explain(s, correlated)) ?? "")
        XCTAssertEqual(try s.execute(correlated)[0].textRows(), [["a"], ["b"], ["c"], ["d"]])
    }

    /// Under NOT EXISTS and IN, the inner rows that are reduced to distinct keys are first
    /// semi-joined with a copy of the small, filtered outer input (`restrictedToOuterKeys`):
    /// an IN join under the aggregate under the join, which the copy's runtime filter makes
    /// cheap. NOT IN keeps every inner row (a NULL among them must still empty it), and an
    /// unfiltered outer input restricts nothing.
    func testExistenceInputsKeepOnlyTheOuterKeys() throws {
        let s = try seeded(14)
        _ = try s.execute("""
            create table cust (ck int distkey, region int, name varchar(10));
            insert into cust select i, i % 8, 'c' || i from seed where i < 1024;
            insert into cust values (null, 3, 'nul');
            create table ord (ok int distkey, ck int);
            insert into ord select i, i % 768 from seed;
            analyze;
            """)
        /// Whether the plan has a join below an aggregate below its first join.
        func restricted(_ q: String) throws -> Bool {
            let lines = try explain(s, q).split(separator: "\n").map(String.init)
            guard let j = lines.firstIndex(where: { $0.contains("Join") }),
                  let a = lines[(j + 1)...].firstIndex(where: { $0.contains("Aggregate") }) else { return false }
            return lines[(a + 1)...].contains { $0.contains("IN Join") && !$0.contains("NOT IN") }
        }
        let anti = "select count(*), min(ck), max(ck) from cust where region = 3 and not exists (select * from ord where ord.ck = cust.ck)"
        XCTAssertTrue(try restricted(anti), (try? explain(s, anti)) ?? "")
        XCTAssertEqual(try s.execute(anti)[0].textRows(), [["33", "771", "1019"]])
        let semi = "select count(*), min(ck), max(ck) from cust where region = 3 and ck in (select ck from ord)"
        XCTAssertTrue(try restricted(semi), (try? explain(s, semi)) ?? "")
        XCTAssertEqual(try s.execute(semi)[0].textRows(), [["96", "3", "763"]])
        let notIn = "select count(*) from cust where region = 3 and ck not in (select ck from ord)"
        XCTAssertFalse(try restricted(notIn), (try? explain(s, notIn)) ?? "")
        XCTAssertEqual(try s.execute(notIn)[0].textRows(), [["32"]])
        let unfiltered = "select count(*) from cust where not exists (select * from ord where ord.ck = cust.ck)"
        XCTAssertFalse(try restricted(unfiltered), (try? explain(s, unfiltered)) ?? "")
        XCTAssertEqual(try s.execute(unfiltered)[0].textRows(), [["257"]])
    }

    /// ANALYZE's statistics reach the planner: a range filter on a unique column keeps 20
    /// rows, not 40% of them, so the inner side is broadcast instead of both sides moved;
    /// and a many-to-many join (2 distinct keys) is put after the selective one.
    func testAnalyzeStatisticsChangeBroadcastAndJoinOrder() throws {
        let s = try seeded(12)
        _ = try s.execute("""
            create table f (x int, y int, g int) diststyle even;
            insert into f select i % 2, i % 1000, i from seed;
            create table d (g int, name varchar(20)) diststyle even;
            insert into d select i, 'n' || i from seed;
            create table a (x int, label varchar(10)) diststyle even;
            insert into a select i % 2, 'a' from seed where i < 1000;
            create table b (y int, label varchar(10)) diststyle even;
            insert into b select i, 'b' from seed where i < 1000;
            """)
        let range = "select count(*) from f join d on f.g = d.g where d.g < 20"
        let star = "select count(*) from f join a on f.x = a.x join b on f.y = b.y"
        func firstJoinKey(_ plan: String) -> String? {
            plan.split(separator: "\n").filter { $0.contains("Hash Cond") }.last.map { String($0) }
        }
        XCTAssertTrue(try explain(s, range).contains("DS_DIST_BOTH"))
        XCTAssertEqual(firstJoinKey(try explain(s, star))?.contains("\"outer\".x = \"inner\".x"), true)
        _ = try s.execute("analyze")
        let ranged = try explain(s, range)
        XCTAssertTrue(ranged.contains("DS_BCAST_INNER"), ranged)
        XCTAssertTrue(ranged.contains("rows=20 "), ranged)
        let starred = try explain(s, star)
        XCTAssertEqual(firstJoinKey(starred)?.contains("\"outer\".y = \"inner\".y"), true, starred)
        XCTAssertEqual(try s.execute(range)[0].textRows(), [["20"]])
        XCTAssertEqual(try s.execute(star)[0].textRows(), [["2048000"]])
    }

    /// TPC-DS q82's shape: a dozen filtered items joined to a fact table on the item key
    /// (unique in item, by ANALYZE), then to a second fact table. The first join keeps a
    /// dozen items' rows, so the second builds its hash table on that result and streams
    /// the large fact table past it, instead of building on the fact table.
    func testKeyJoinEstimateBuildsOnTheSmallSide() throws {
        let s = try seeded(14)
        _ = try s.execute("""
            create table item (i_item_sk int distkey, i_manufact_id int, i_desc varchar(20));
            insert into item select i, i % 100, 'item ' || i from seed where i < 1000;
            create table inventory (inv_item_sk int distkey, inv_qty int);
            insert into inventory select i % 1000, i % 500 from seed;
            create table sales (ss_item_sk int distkey, ss_qty int);
            insert into sales select (i * 7) % 1000, i from seed where i < 2048;
            insert into sales select ss_item_sk, ss_qty + 1 from sales;
            analyze;
            """)
        let q = """
            select i_desc, count(*) from item, inventory, sales
            where inv_item_sk = i_item_sk and ss_item_sk = i_item_sk and i_manufact_id = 7 and inv_qty between 100 and 300
            group by i_desc order by i_desc limit 3
            """
        let plan = try explain(s, q)
        // The hash (build) side of the join with sales is not sales (6,500 filtered
        // inventory rows outnumber its 4,096, but only about 65 meet the item filter).
        let lines = plan.split(separator: "\n").map(String.init)
        guard let salesScan = lines.firstIndex(where: { $0.contains("Seq Scan on sales") }) else { return XCTFail(plan) }
        XCTAssertFalse(lines[salesScan - 1].contains("XN Hash  ") || lines[salesScan - 1].contains("XN Network"), plan)
        XCTAssertEqual(try s.execute(q)[0].textRows(), [["item 107", "68"], ["item 207", "68"], ["item 607", "64"]])   // as PostgreSQL
    }

    /// TPC-H Q18's shape: orders IN the orders whose lines sum to more than 300, with their
    /// customers. The HAVING condition is estimated from the summed column's range and the
    /// rows a group holds (four lines of 1 to 50: a sum around 102, not above 300), so it
    /// keeps a few groups, not 40% of them; the IN keeps that share of orders, and a key
    /// join of lines to those orders keeps a few rows. The customer join then builds on
    /// those rows and streams the customers past them (filtered by their keys), instead of
    /// building a hash table of every customer.
    func testHavingEstimateBuildsOnTheFewQualifyingGroups() throws {
        let s = try seeded(12)
        _ = try s.execute("""
            create table cust (ck int distkey, name varchar(10));
            insert into cust select i, 'c' || i from seed where i < 1000;
            create table ord (ok int distkey, ck int);
            insert into ord select i, i % 1000 from seed;
            create table line (ok int distkey, qty decimal(15,2));
            """)
        for k in 0..<4 { _ = try s.execute("insert into line select i, (i * 7 + \(k)) % 50 + 1 from seed") }
        // Every 512th order has seven more lines of 50: 350 on top of its four.
        for _ in 0..<7 { _ = try s.execute("insert into line select i, 50 from seed where i % 512 = 0") }
        _ = try s.execute("analyze")
        let q = """
            select name, ord.ok, sum(qty) from cust, ord, line
            where ord.ok in (select ok from line group by ok having sum(qty) > 300)
              and cust.ck = ord.ck and ord.ok = line.ok
            group by name, ord.ok order by ord.ok
            """
        let plan = try explain(s, q)
        let lines = plan.split(separator: "\n").map(String.init)
        let filter = try XCTUnwrap(lines.firstIndex { $0.contains("XN Filter") }, plan)
        let rows = lines[filter].split(separator: " ").first { $0.hasPrefix("rows=") }.flatMap { Int($0.dropFirst(5)) }
        XCTAssertLessThanOrEqual(try XCTUnwrap(rows, plan), 20, plan)
        let customers = try XCTUnwrap(lines.firstIndex { $0.contains("Seq Scan on cust") }, plan)
        XCTAssertTrue(lines[customers + 1].contains("Runtime Filter: ck"), plan)
        XCTAssertFalse(lines[customers - 1].contains("XN Hash "), plan)
        var expected: [[String?]] = []
        for i in stride(from: 0, to: 4096, by: 512) {
            let sum = (0..<4).reduce(350) { $0 + (i * 7 + $1) % 50 + 1 }
            expected.append(["c\(i % 1000)", "\(i)", "\(sum).00"])
        }
        XCTAssertEqual(try s.execute(q)[0].textRows(), expected)
    }

    func testJoinLabelsFollowDistribution() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        _ = try s.execute("""
            create table f (k int distkey, d int, v int);
            create table dk (k int distkey, name varchar(10));
            create table da (d int, label varchar(10)) diststyle all;
            create table de (k int, x int) diststyle even;
            create table fe (k int, d int) diststyle even;
            """)
        // Enough rows that broadcasting a big side is not the cheap choice.
        _ = try s.execute("insert into f values (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4)")
        for i in 0..<8 { _ = try s.execute("insert into f select k + \(4 << i), d, v from f") }
        _ = try s.execute("insert into dk select k, 'x' from f")
        _ = try s.execute("insert into de select k, v from f")
        _ = try s.execute("insert into fe select k, d from f")
        _ = try s.execute("insert into da values (1, 'a'), (2, 'b')")

        XCTAssertTrue(try explain(s, "select count(*) from f join dk on f.k = dk.k").contains("DS_DIST_NONE"))
        XCTAssertTrue(try explain(s, "select count(*) from f join da on f.d = da.d").contains("DS_DIST_ALL_NONE"))
        XCTAssertTrue(try explain(s, "select count(*) from f join de on f.k = de.k").contains("DS_DIST_INNER"))
        XCTAssertTrue(try explain(s, "select count(*) from fe join dk on fe.k = dk.k").contains("DS_DIST_OUTER"))
        XCTAssertTrue(try explain(s, "select count(*) from fe join de on fe.k = de.k").contains("DS_DIST_BOTH"))
        let bcast = try explain(s, "select count(*) from fe join de on fe.k = de.k where de.x = 3")
        XCTAssertTrue(bcast.contains("DS_BCAST_INNER"), bcast)
        // Two-phase aggregation: partial per slice, redistributed by the group key, final.
        let agg = try explain(s, "select d, sum(v) from f group by d")
        XCTAssertTrue(agg.contains("Phase: partial") && agg.contains("Phase: final") && agg.contains("Distribute by"), agg)
        // Grouping on the DISTKEY needs no exchange before the aggregate.
        let local = try explain(s, "select k, sum(v) from f group by k")
        XCTAssertFalse(local.contains("Distribute by"), local)
        // Same answers whatever the movement.
        let a = try s.execute("select count(*) from fe join de on fe.k = de.k")[0].textRows()
        XCTAssertEqual(a[0][0], "1024")
    }

    /// A correlated aggregate is computed only for the keys its join can match (Q17: the
    /// lineitem rows of the filtered parts), and an IN over a grouped subquery filters
    /// orders before the joins (Q18).
    func testSemiJoinRewritesTPCH() throws {
        let s = try TPCH.load(.keyed, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let q17 = try explain(s, try TPCH.query(17))
        let lines17 = q17.split(separator: "\n").map(String.init)
        // The scalar subquery's left join is inner (the WHERE rejects its NULL-padded rows).
        guard let left = lines17.firstIndex(where: { $0.contains("XN Hash Join") }),
              let semi = lines17.firstIndex(where: { $0.contains("Hash IN Join") }) else {
            return XCTFail(q17)
        }
        XCTAssertFalse(q17.contains("Left Join"), q17)
        // The semi join feeds the per-part aggregate below the join.
        XCTAssertTrue(semi > left && lines17[left..<semi].contains { $0.contains("HashAggregate") }, q17)
        XCTAssertTrue(lines17[semi...].contains { $0.contains("Seq Scan on part") }, q17)

        let q18 = try explain(s, try TPCH.query(18))
        let lines18 = q18.split(separator: "\n").map(String.init)
        guard let in18 = lines18.firstIndex(where: { $0.contains("Hash IN Join") }) else { return XCTFail(q18) }
        // orders is filtered by the IN before it meets lineitem and customer.
        XCTAssertTrue(lines18[(in18 + 1)...].dropFirst().first?.contains("Seq Scan on orders") ?? false, q18)
        XCTAssertTrue(lines18[..<in18].contains { $0.contains("XN Hash Join") }, q18)

        // Q20: sum(l_quantity) per (part, supplier) only for the partsupp rows of 'forest%' parts.
        let q20 = try explain(s, try TPCH.query(20)).split(separator: "\n").map(String.init)
        guard let agg20 = q20.firstIndex(where: { $0.contains("HashAggregate") }) else { return XCTFail(q20.joined(separator: "\n")) }
        XCTAssertTrue(q20[agg20...].contains { $0.contains("Hash IN Join") }, q20.joined(separator: "\n"))

        // Q5: customer keeps only the customers of the nations in region 'ASIA' (semi-joined with
        // nation semi-joined with region) before it meets orders' rows.
        let q5 = try explain(s, try TPCH.query(5)).split(separator: "\n").map(String.init)
        guard let cust5 = q5.firstIndex(where: { $0.contains("Seq Scan on customer") }) else {
            return XCTFail(q5.joined(separator: "\n"))
        }
        XCTAssertTrue(q5[..<cust5].last { $0.contains("XN ") && $0.contains("Join") }?.contains("Hash IN Join") ?? false,
                      q5.joined(separator: "\n"))
        XCTAssertEqual(q5[(cust5 + 1)...].filter { $0.contains("Seq Scan") }.prefix(2).map { $0.contains("nation") || $0.contains("region") },
                       [true, true], q5.joined(separator: "\n"))

        // EXISTS with the small side preserved: the hash table is built on orders, lineitem streams.
        let q4 = try explain(s, try TPCH.query(4))
        XCTAssertTrue(q4.contains("Hash Right Semi Join"), q4)
        // customer LEFT JOIN orders: the orders are counted by customer below the join
        // (eager aggregation of the padded side), which then meets customer collocated.
        let q13 = try explain(s, try TPCH.query(13))
        let lines13 = q13.split(separator: "\n").map(String.init)
        guard let join13 = lines13.firstIndex(where: { $0.contains("Hash Left Join") }) else { return XCTFail(q13) }
        XCTAssertTrue(lines13[join13].contains("DS_DIST_NONE"), q13)
        XCTAssertTrue(lines13[join13...].contains { $0.contains("HashAggregate") }, q13)

        // Q21: supplier meets the filtered nation first; lineitem is filtered by that pair
        // before it meets orders.
        let q21 = try explain(s, try TPCH.query(21)).split(separator: "\n").map(String.init)
        guard let sup = q21.firstIndex(where: { $0.contains("Seq Scan on supplier") }),
              let ord = q21.firstIndex(where: { $0.contains("Seq Scan on orders") }) else { return XCTFail(q21.joined(separator: "\n")) }
        let nextScan = q21[(sup + 1)...].first { $0.contains("Seq Scan") }
        XCTAssertTrue((nextScan?.contains("Seq Scan on nation") ?? false) && sup < ord, q21.joined(separator: "\n"))
    }

    /// A scan whose filter matches a LIKE pattern, read in two places (TPC-H Q9's green
    /// parts: for the part join and for the IN that restricts partsupp), is read once and
    /// shared; the same scan without a pattern is read twice (cheaper than holding it).
    func testAPatternMatchingScanReadTwiceIsShared() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table pt (pk int distkey, name varchar(20));
            create table ps (pk int distkey, sk int, cost int);
            create table li (ok int distkey, pk int, sk int, qty int);
            insert into pt values (1, 'green apple'), (2, 'red plum'), (3, 'dark green'), (4, 'blue');
            insert into ps values (1, 10, 5), (1, 11, 6), (2, 10, 7), (3, 12, 8), (4, 11, 9);
            insert into li values (100, 1, 10, 2), (101, 1, 11, 3), (102, 2, 10, 4), (103, 3, 12, 5), (104, 4, 11, 6);
            """)
        func query(_ filter: String) -> String {
            """
            select sum(li.qty * ps.cost) from li, ps, pt
            where li.pk = ps.pk and li.sk = ps.sk and li.pk = pt.pk and \(filter)
              and ps.pk in (select pk from pt where \(filter))
            """
        }
        let green = query("pt.name like '%green%'")
        let plan = try explain(s, green)
        XCTAssertTrue(plan.contains("Shared Subplan 1: computed once"), plan)
        XCTAssertEqual(plan.components(separatedBy: "XN Seq Scan on pt").count - 1, 1, plan)
        XCTAssertEqual(try s.execute(green)[0].textRows(), [["68"]])
        let plain = query("pt.pk <> 2")
        let own = try explain(s, plain)
        XCTAssertFalse(own.contains("Shared Subplan"), own)
        XCTAssertEqual(try s.execute(plain)[0].textRows(), [["122"]])
    }

    /// A CTE read in two places is computed once: the second place reads the first's
    /// materialized result. References that get different filters keep their own plans.
    func testCTEReadTwiceIsComputedOnce() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table f (k int distkey, g int, v int);
            insert into f values (1, 1, 10), (2, 1, 20), (3, 2, 30), (4, 2, 40), (5, 3, 50);
            """)
        let twice = "with t as (select g, sum(v) as s from f group by g) select a.g, b.g from t a join t b on a.s < b.s"
        let plan = try explain(s, twice)
        XCTAssertTrue(plan.contains("Shared Subplan 1: computed once, read by 2 parents"), plan)
        XCTAssertTrue(plan.contains("XN Shared Subplan 1 "), plan)
        XCTAssertEqual(plan.components(separatedBy: "XN Seq Scan on f").count - 1, 1, plan)
        XCTAssertEqual(try s.execute(twice + " order by 1, 2")[0].textRows(),
                       [["1", "2"], ["1", "3"], ["3", "2"]])
        let filtered = "with t as (select g, sum(v) as s from f group by g) select * from t where g = 1 union all select * from t where g = 2"
        let own = try explain(s, filtered)
        XCTAssertFalse(own.contains("Shared Subplan"), own)
        XCTAssertEqual(own.components(separatedBy: "XN Seq Scan on f").count - 1, 2, own)
    }

    /// An inner join only tested for existence (TPC-DS q95's self-join under IN) is a semi
    /// join that keeps the join filter; where its rows are counted it stays an inner join.
    func testJoinTestedForExistenceIsASemiJoin() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table w (ord int, wh int, amt int) diststyle even;
            insert into w values (1, 1, 10), (1, 2, 20), (1, 2, 30), (2, 1, 5), (2, 1, 6), (3, 3, 7);
            """)
        let pairs = "select o1.ord from w o1, w o2 where o1.ord = o2.ord and o1.wh <> o2.wh"
        let inQuery = "select count(*), sum(amt) from w where ord in (\(pairs))"
        let plan = try explain(s, inQuery)
        let lines = plan.split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.contains { $0.contains("XN Hash Join") }, plan)
        XCTAssertEqual(lines.filter { $0.contains("IN Join") || $0.contains("Semi Join") }.count, 2, plan)
        XCTAssertTrue(plan.contains("Join Filter: (wh <> wh)"), plan)
        XCTAssertEqual(try s.execute(inQuery)[0].textRows(), [["3", "60"]])
        // Distinct rows only: the same rewrite.
        let distinct = try explain(s, "select distinct o1.ord from w o1 join w o2 on o1.ord = o2.ord and o1.amt < o2.amt")
        XCTAssertFalse(distinct.contains("XN Hash Join"), distinct)
        // Every pair counts: an inner join.
        let counted = "select o1.ord, count(*) from w o1 join w o2 on o1.ord = o2.ord and o1.wh <> o2.wh group by o1.ord"
        XCTAssertTrue(try explain(s, counted).contains("XN Hash Join"))
        XCTAssertEqual(try s.execute(counted + " order by 1")[0].textRows(), [["1", "4"]])
    }

    /// A GROUP BY of a dimension's strings over a fact joined to it (TPC-DS q04's
    /// year_total) pre-aggregates the fact by its join key below the join; not when the
    /// join filters the fact (its rows must meet the filter first), nor before ANALYZE.
    func testEagerAggregationBelowAJoin() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        let dims = (1...50).map { "(\($0), 'first\($0 % 7)', 'last\($0 % 5)')" }.joined(separator: ", ")
        let facts = (0..<4000).map { "(\($0 % 50 + 1), \($0 % 3), \($0 % 101))" }.joined(separator: ", ")
        _ = try s.execute("""
            create table cust (ck int distkey, fname varchar(20), lname varchar(20));
            create table sale (ck int, yr int, amt int) diststyle even;
            insert into cust values \(dims);
            insert into sale values \(facts);
            """)
        let query = "select fname, lname, yr, sum(amt), count(*) from cust join sale on cust.ck = sale.ck group by fname, lname, yr"
        func aggregateBelowJoin(_ plan: String) -> Bool {
            let lines = plan.split(separator: "\n").map(String.init)
            guard let join = lines.firstIndex(where: { $0.contains("Hash Join") }) else { return false }
            return lines[join...].contains { $0.contains("HashAggregate") }
        }
        XCTAssertFalse(aggregateBelowJoin(try explain(s, query)))
        let before = try s.execute(query + " order by 1, 2, 3")[0].textRows()
        _ = try s.execute("analyze cust; analyze sale")
        let plan = try explain(s, query)
        XCTAssertTrue(aggregateBelowJoin(plan), plan)
        XCTAssertEqual(try s.execute(query + " order by 1, 2, 3")[0].textRows(), before)
        XCTAssertEqual(before.count, 35 * 3)
        XCTAssertEqual(before.first, ["first0", "last0", "0", "1287", "27"])
        // A grouping key computed from the sales alone is computed in the pre-aggregate.
        let computed = "select fname, lname, yr * 10 + 1, sum(amt), count(*) from cust join sale on cust.ck = sale.ck group by fname, lname, yr * 10 + 1"
        XCTAssertTrue(aggregateBelowJoin(try explain(s, computed)))
        XCTAssertEqual(try s.execute(computed + " order by 1, 2, 3")[0].textRows(),
                       before.map { [$0[0], $0[1], String((Int($0[2] ?? "") ?? 0) * 10 + 1), $0[3], $0[4]] })
        let filtered = try explain(s, "select fname, lname, sum(amt) from cust join sale on cust.ck = sale.ck where cust.ck = 3 group by fname, lname")
        XCTAssertFalse(aggregateBelowJoin(filtered), filtered)
        // A third table that only filters (TPC-DS q22's dates) may be joined last: the
        // sales meet it first, and the pre-aggregate of both meets cust.
        _ = try s.execute("create table yrs (yr int, keep boolean) diststyle all; insert into yrs values (0, true), (1, false), (2, true); analyze yrs")
        let three = "select fname, lname, sum(amt) from sale, cust, yrs where sale.ck = cust.ck and sale.yr = yrs.yr and keep group by fname, lname"
        let threePlan = try explain(s, three)
        XCTAssertTrue(aggregateBelowJoin(threePlan), threePlan)
        XCTAssertEqual(try s.execute(three + " order by 1, 2 limit 1")[0].textRows(), [["first0", "last0", "2415"]])
    }

    /// TPC-DS q04's and q11's catalog branch: a year's sales grouped by a customer's seven
    /// strings, where ANALYZE's distinct customers are a third of the sales (the sales of
    /// one order share their customer, so there are fewer still). Grouping by the customer
    /// key first pays at half as many groups as rows when the query's keys are strings; at
    /// two thirds it does not, and the join stays below the aggregate.
    func testEagerAggregationAtAThirdAsManyGroupsAsRows() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        let customers = (1...1000).map { i in
            "(\(i), 'id\(i)', 'first\(i % 37)', 'last\(i % 41)', '\(i % 2 == 0 ? "Y" : "N")', 'country\(i % 11)', 'login\(i)', 'mail\(i)')"
        }.joined(separator: ", ")
        _ = try s.execute("""
            create table c7 (ck int distkey, id varchar(16), f varchar(20), l varchar(20), p char(1), b varchar(20), lg varchar(13), m varchar(50));
            create table s3 (ck int, amt int) diststyle even;
            create table s15 (ck int, amt int) diststyle even;
            insert into c7 values \(customers);
            insert into s3 select ck, ck % 13 from c7;
            insert into s3 select ck, ck % 7 from c7;
            insert into s3 select ck, ck % 5 from c7;
            insert into s15 select ck, ck % 13 from c7;
            insert into s15 select ck, ck % 7 from c7 where ck % 2 = 0;
            analyze;
            """)
        func query(_ sales: String) -> String {
            "select id, f, l, p, b, lg, m, sum(amt), count(*) from c7 join \(sales) on c7.ck = \(sales).ck group by id, f, l, p, b, lg, m"
        }
        func aggregateBelowJoin(_ plan: String) -> Bool {
            let lines = plan.split(separator: "\n").map(String.init)
            guard let join = lines.firstIndex(where: { $0.contains("Hash Join") }) else { return false }
            return lines[join...].contains { $0.contains("HashAggregate") }
        }
        let third = try explain(s, query("s3"))
        XCTAssertTrue(aggregateBelowJoin(third), third)
        XCTAssertFalse(aggregateBelowJoin(try explain(s, query("s15"))))
        let rows = try s.execute(query("s3") + " order by 1")[0].textRows()
        XCTAssertEqual(rows.count, 1000)
        XCTAssertEqual(rows.first, ["id1", "first1", "last1", "N", "country1", "login1", "mail1", "3", "3"])
        XCTAssertEqual(rows.last, ["id999", "first0", "last15", "N", "country9", "login999", "mail999", "20", "3"])
        XCTAssertEqual(rows.reduce(0) { $0 + (Int($1[8] ?? "") ?? 0) }, 3000)
    }

    /// A filter of the kept side's join key is carried to the other side of a LEFT, RIGHT,
    /// semi or anti join, through grouping columns and renamings (TPC-DS q78: the web sales
    /// of one year aggregated, not all five years'); not to NOT IN's subquery, not across
    /// VARCHAR keys (equal values may differ in trailing blanks), not across a cast.
    func testFiltersOnAKeptJoinKeyAreCarriedToTheOtherSide() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table ka (k int, v int, s varchar(4)) distkey(v);
            create table kb (k int, w int, s varchar(4)) distkey(w);
            create table kc (k bigint, x int);
            insert into ka values (1, 10, 'x'), (2, 20, 'y'), (null, 30, null), (4, 40, 'w');
            insert into kb values (1, 100, 'x '), (2, 200, 'y'), (3, 300, 'z'), (null, 400, null);
            insert into kc values (1, 7), (null, 9);
            """)
        /// The filters on kb's scan (or `table`'s).
        func filters(_ sql: String, on table: String = "kb") throws -> [String] {
            let lines = try explain(s, sql).split(separator: "\n").map(String.init)
            guard let scan = lines.firstIndex(where: { $0.contains("Seq Scan on \(table)") }) else { return ["no scan"] }
            return lines[(scan + 1)...].prefix { !$0.contains("->") }
                .filter { $0.contains("Filter:") && !$0.contains("Runtime Filter") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        XCTAssertEqual(try filters("select * from ka left join kb on ka.k = kb.k where ka.k = 2"), ["Filter: (k = 2)"])
        XCTAssertEqual(try filters("select * from ka right join kb on ka.k = kb.k where kb.k between 1 and 2", on: "ka"),
                       ["Filter: ((k >= 1) AND (k <= 2))"])
        XCTAssertEqual(try filters("""
            select * from ka left join (select k as gk, sum(w) from kb group by k) g on g.gk = ka.k where ka.k = 2
            """), ["Filter: (k = 2)"])
        XCTAssertEqual(try filters("select * from ka left join (select * from kb where k = 2) b on ka.k = b.k where ka.k = 2"),
                       ["Filter: (k = 2)"], "not added twice")
        XCTAssertEqual(try filters("select * from ka where k = 2 and exists (select 1 from kb where kb.k = ka.k)"),
                       ["Filter: (k = 2)"])
        XCTAssertEqual(try filters("select * from ka where k = 2 and not exists (select 1 from kb where kb.k = ka.k)"),
                       ["Filter: (k = 2)"])
        XCTAssertEqual(try filters("select * from ka where k = 4 and k not in (select k from kb)"), [])
        XCTAssertEqual(try filters("select * from ka left join kb on ka.s = kb.s where length(ka.s) = 1"), [])
        XCTAssertEqual(try filters("select * from ka left join kc on ka.k = kc.k where ka.k = 1", on: "kc"), [])
        // The answers: 'x' meets 'x ', NOT IN sees kb's NULL.
        XCTAssertEqual(try s.execute("select ka.s, kb.s from ka left join kb on ka.s = kb.s where length(ka.s) = 1 order by 1")[0].textRows(),
                       [["w", nil], ["x", "x "], ["y", "y"]])
        XCTAssertEqual(try s.execute("select v from ka where k = 4 and k not in (select k from kb)")[0].textRows(), [])
        XCTAssertEqual(try s.execute("select v from ka where k = 4 and k not in (select k from kb where k > 1)")[0].textRows(), [["40"]])
        XCTAssertEqual(try s.execute("select v, w from ka left join kb on ka.k = kb.k where ka.k = 2")[0].textRows(),
                       [["20", "200"]])
    }

    /// A subplan repeated under two joins whose runtime filters reach a table's leading
    /// sort-key column is not shared: each occurrence's scan skips blocks by its own date
    /// range (TPC-DS q75's two years), where the shared one read every block. Without the
    /// sort key, it is shared as before; the answers are the same.
    func testNoSharedSubplanBetweenARuntimeFilterAndItsSortKey() throws {
        func session(sorted: Bool) throws -> Session {
            let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
            _ = try s.execute("""
                create table dd (d_sk int, yr int) diststyle all sortkey(d_sk);
                create table it (i_sk int, cat varchar(10)) diststyle all;
                create table sl (s_date int, s_item int, amt int) distkey(s_item) \(sorted ? "sortkey(s_date)" : "");
                insert into dd select n, n / 1000 from generate_series(0, 1999) n;
                insert into it select n, case when n % 100 = 0 then 'Books' else 'Music' end from generate_series(0, 999) n;
                insert into sl select (n * 7) % 2000, n % 1000, n % 97 from generate_series(1, 200000) n;
                vacuum sl to 100 percent;
                analyze;
                """)
            return s
        }
        let query = """
            with x as (select d.yr, s.amt from sl s join it on s.s_item = it.i_sk join dd d on s.s_date = d.d_sk
                       where it.cat = 'Books')
            select a.t, b.t from (select sum(amt) t from x where yr = 1) a, (select sum(amt) t from x where yr = 0) b
            """
        let sorted = try session(sorted: true)
        let plan = try explain(sorted, query)
        XCTAssertFalse(plan.contains("Shared Subplan"), plan)
        XCTAssertEqual(plan.components(separatedBy: "Runtime Filter: s_item, s_date").count - 1, 2, plan)
        let unsorted = try session(sorted: false)
        XCTAssertTrue(try explain(unsorted, query).contains("Shared Subplan"))
        for s in [sorted, unsorted] {
            XCTAssertEqual(try s.execute(query)[0].textRows(), [["47940", "47954"]])
        }
    }

    /// A filter keeping ranks up to a bound ranks within each slice first and drops what is
    /// past the bound there, before the rows move (TPC-DS q67: 505 K rows went to the leader
    /// for 100 per category); not when another function of the window reads every row, nor
    /// past `localRankMaxLimit`, nor for few rows. A union's small leader-side branch (a
    /// ROLLUP's grand total) goes out to the slices instead of the slices' rows coming in,
    /// so the window above runs on every slice.
    func testRanksBoundedByAFilterAreCutOnEachSliceFirst() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table sales (cat varchar(8), item int, amt int) diststyle even;
            insert into sales select 'c' || (n % 9)::varchar, n % 20000, (n * 7919) % 1000 from generate_series(1, 40000) n;
            analyze;
            """)
        /// Whether a slice-local ranking filter sits below the rows' move.
        func cutFirst(_ plan: String) -> Bool {
            let lines = plan.split(separator: "\n").map(String.init)
            guard let move = lines.firstIndex(where: { $0.contains("Distribute by") || $0.contains("Send to leader") }) else {
                return false
            }
            return lines[move...].contains { $0.contains("Filter: (?column? <= ") }
        }
        let ranked = "select cat, item, amt, r from (select cat, item, amt, rank() over (partition by cat order by amt desc) r from sales) x"
        XCTAssertTrue(cutFirst(try explain(s, ranked + " where r <= 3")))
        XCTAssertTrue(cutFirst(try explain(s, ranked + " where 4 > r")))
        XCTAssertFalse(cutFirst(try explain(s, ranked + " where r > 3")))
        XCTAssertFalse(cutFirst(try explain(s, ranked + " where r <= 20000")), "past the largest bound")
        XCTAssertFalse(cutFirst(try explain(s, ranked.replacingOccurrences(of: "from sales", with: "from sales where item < 100") + " where r <= 3")),
                       "too few rows")
        let running = "select cat, r from (select cat, rank() over (partition by cat order by amt desc) r, "
            + "sum(amt) over (partition by cat order by amt desc rows unbounded preceding) t from sales) x where r <= 3"
        XCTAssertFalse(cutFirst(try explain(s, running)))
        let top = try s.execute(ranked + " where r <= 3 order by cat, amt desc, item")[0].textRows()
        // The answers of the plan without the cut (ties included).
        XCTAssertEqual(top.count, 40)
        XCTAssertEqual(Array(top.prefix(3)), [["c0", "1321", "999", "1"], ["c0", "3321", "999", "1"], ["c0", "10321", "999", "1"]])
        XCTAssertTrue(top.allSatisfy { (Int($0[3] ?? "") ?? 99) <= 3 })

        // A union of the slices' rows and a leader-side count: the count goes out to the
        // slices, and the window's rows move between slices, not to the leader.
        let union = """
            select cat, amt, r from (select cat, amt, rank() over (partition by cat order by amt desc) r
            from (select cat, amt from sales union all select 'all', count(*)::int from sales) u) x where r <= 2
            """
        let plan = try explain(s, union)
        XCTAssertTrue(cutFirst(plan), plan)
        let lines = plan.split(separator: "\n").map(String.init)
        let window = lines.firstIndex { $0.contains("XN Window") } ?? lines.count
        let move = lines[window...].firstIndex { $0.contains("XN Network") } ?? lines.count - 1
        XCTAssertTrue(lines[move + 1].contains("Distribute by"), plan)
        let counts = try s.execute("select cat, count(*) from (\(union)) y group by cat order by cat")[0].textRows()
        XCTAssertEqual(counts, [["all", "1"], ["c0", "5"], ["c1", "4"], ["c2", "4"], ["c3", "4"], ["c4", "4"], ["c5", "4"],
                                ["c6", "5"], ["c7", "5"], ["c8", "5"]])
        XCTAssertEqual(try s.execute("select amt from (\(union)) y where cat = 'all'")[0].textRows(), [["40000"]])
    }

    /// TPC-H Q13's shape: each customer LEFT JOIN its orders, COUNT(o_orderkey) by
    /// customer. The orders are counted by customer below the outer join (after ANALYZE),
    /// customers without orders count 0, the answers are those of the plan without the
    /// rewrite; COUNT(*), which counts a customer's padded row, keeps the join first.
    func testEagerAggregationBelowAnOuterJoinThatPadsTheAggregatedSide() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        let customers = (1...300).map { "(\($0), 'c\($0 % 9)')" }.joined(separator: ", ")
        let orders = (0..<6000).map { "(\($0), \($0 % 7 == 0 ? "NULL" : String($0 % 250 + 1)), \($0 % 13))" }.joined(separator: ", ")
        _ = try s.execute("""
            create table cus (ck int distkey, seg varchar(10));
            create table ord (ok int distkey, ck int, pri int);
            insert into cus values \(customers), (7, 'dup');
            insert into ord values \(orders);
            """)
        let q13 = """
            select c_count, count(*) from (select cus.ck, count(ord.ok) as c_count from cus left join ord on cus.ck = ord.ck
            and ord.pri <> 3 group by cus.ck) as c group by c_count
            """
        func aggregateBelowJoin(_ plan: String) -> Bool {
            let lines = plan.split(separator: "\n").map(String.init)
            guard let join = lines.firstIndex(where: { $0.contains("Hash Left Join") || $0.contains("Hash Right Join") }) else { return false }
            return lines[join...].contains { $0.contains("HashAggregate") }
        }
        let before = try s.execute(q13 + " order by 1")[0].textRows()
        XCTAssertFalse(aggregateBelowJoin(try explain(s, q13)))
        _ = try s.execute("analyze cus; analyze ord")
        let plan = try explain(s, q13)
        XCTAssertTrue(aggregateBelowJoin(plan), plan)
        let after = try s.execute(q13 + " order by 1")[0].textRows()
        XCTAssertEqual(after, before)
        // 50 customers (251..300) have no order; customer 7 is there twice.
        XCTAssertEqual(after.first, ["0", "50"])
        // Sums, minima, averages of the padded side: NULL for a customer without orders.
        let sums = "select cus.ck, sum(ord.pri), min(ord.pri), avg(ord.pri), count(ord.pri) from cus left join ord on cus.ck = ord.ck group by cus.ck"
        XCTAssertTrue(aggregateBelowJoin(try explain(s, sums)))
        XCTAssertEqual(try s.execute(sums + " order by 1 desc limit 1")[0].textRows(), [["300", nil, nil, nil, "0"]])
        XCTAssertEqual(try s.execute(sums + " order by 1 limit 1")[0].textRows(), try s.execute("""
            select cus.ck, sum(ord.pri), min(ord.pri), avg(ord.pri), count(ord.pri) from cus left join ord on cus.ck = ord.ck
            where cus.ck = 1 group by cus.ck limit 100
            """)[0].textRows())
        // COUNT(*) counts the padded row: not rewritten, and 1 for a customer without orders.
        let star = "select cus.ck, count(*) from cus left join ord on cus.ck = ord.ck group by cus.ck"
        XCTAssertFalse(aggregateBelowJoin(try explain(s, star)))
        XCTAssertEqual(try s.execute(star + " order by 1 desc limit 1")[0].textRows(), [["300", "1"]])
    }

    /// Eager aggregation below several joins (TPC-DS q99's shape): the sales joined to a
    /// filtering date table are pre-aggregated by the three dimension keys, below the three
    /// joins that bring the grouping strings; with the statistics only.
    func testEagerAggregationBelowSeveralJoins() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        let facts = (0..<6000).map { "(\($0 % 120 + 1), \($0 % 97), \($0 % 5 + 1), \($0 % 7 + 1), \($0 % 4 + 1))" }.joined(separator: ", ")
        _ = try s.execute("""
            create table pw (w_sk int, w_name varchar(30)) diststyle all;
            create table psm (sm_sk int, sm_type varchar(10)) diststyle all;
            create table pcc (cc_sk int, cc_name varchar(20)) diststyle all;
            create table pdd (d_sk int, d_seq int) diststyle all;
            create table pf (f_ship int, f_lag int, f_w int, f_sm int, f_cc int) diststyle even;
            insert into pw values (1, 'north warehouse'), (2, 'south warehouse'), (3, 'east'), (4, 'west'), (5, 'central');
            insert into psm values (1, 'EXPRESS'), (2, 'NEXT DAY'), (3, 'EXPRESS'), (4, 'OVERNIGHT'), (5, 'TWO DAY'), (6, 'LIBRARY'), (7, 'REGULAR');
            insert into pcc values (1, 'NY Metro'), (2, 'Mid Atlantic'), (3, 'NY Metro'), (4, 'North Midwest');
            insert into pf values \(facts);
            """)
        _ = try s.execute("insert into pdd values " + (1...120).map { "(\($0), \(1190 + $0 / 10))" }.joined(separator: ", "))
        let query = """
            select substring(w_name, 1, 5), sm_type, cc_name, sum(case when f_lag <= 30 then 1 else 0 end), count(*)
            from pf, pw, psm, pcc, pdd
            where d_seq between 1192 and 1200 and f_ship = d_sk and f_w = w_sk and f_sm = sm_sk and f_cc = cc_sk
            group by substring(w_name, 1, 5), sm_type, cc_name
            """
        /// Whether an aggregate sits below the joins to all three dimensions.
        func preAggregatedBelowDimensions(_ plan: String) -> Bool {
            let lines = plan.split(separator: "\n").map(String.init)
            func indent(_ l: String) -> Int { l.prefix { $0 == " " }.count }
            var deepestJoin = 0
            for key in ["w_sk", "sm_sk", "cc_sk"] {
                guard let cond = lines.firstIndex(where: { $0.contains("Hash Cond") && $0.contains(key) }), cond > 0 else { return false }
                deepestJoin = max(deepestJoin, indent(lines[cond - 1]))
            }
            return lines.contains { $0.contains("HashAggregate") && indent($0) > deepestJoin }
        }
        XCTAssertFalse(preAggregatedBelowDimensions(try explain(s, query)))
        let before = try s.execute(query + " order by 1, 2, 3")[0].textRows()
        _ = try s.execute("analyze")
        let plan = try explain(s, query)
        XCTAssertTrue(preAggregatedBelowDimensions(plan), plan)
        XCTAssertEqual(try s.execute(query + " order by 1, 2, 3")[0].textRows(), before)
        XCTAssertEqual(before.count, 5 * 6 * 3)
        XCTAssertEqual(before.reduce(0) { $0 + (Int($1[4] ?? "") ?? 0) }, 6000 * 90 / 120)
    }

    /// TPC-H Q9: the nation's name, joined to the supplier below the joins to the line
    /// items and orders, is a grouping key and nothing else reads it. Over enough rows
    /// (SF 0.01's line items inserted again until there are 16 copies) the nation join is
    /// lifted to the top and the rest pre-aggregated under it by the supplier's nation key
    /// and the order's year (a computed key, through the derived table's select list); over
    /// SF 0.01's own rows it is not. Every sum of the lifted plan is 16 times the sum of the
    /// plan without the rewrite, to the last digit. A name an aggregate reads as well keeps
    /// the nation where it was.
    func testEagerAggregationUnderALiftedDimension() throws {
        let s = try TPCH.load(.keyed, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        _ = try s.execute("analyze")
        let q9 = try TPCH.query(9)
        /// Whether an aggregate sits below the join to the nations.
        func preAggregatedBelowNations(_ plan: String) -> Bool {
            let lines = plan.split(separator: "\n").map(String.init)
            func indent(_ l: String) -> Int { l.prefix { $0 == " " }.count }
            guard let cond = lines.firstIndex(where: { $0.contains("Hash Cond") && $0.contains("n_nationkey") }),
                  cond > 0 else { return false }
            let join = indent(lines[cond - 1])
            var below = cond + 1
            while below < lines.count && indent(lines[below]) > join {
                if lines[below].contains("HashAggregate") { return true }
                below += 1
            }
            return false
        }
        /// A decimal's digits as an integer (every sum has the same scale).
        func digits(_ v: String?) -> Int? { Int((v ?? "").replacingOccurrences(of: ".", with: "")) }
        XCTAssertFalse(preAggregatedBelowNations(try explain(s, q9)))
        let once = try s.execute(q9)[0].textRows()
        XCTAssertEqual(once.count, 173)
        for _ in 0..<4 { _ = try s.execute("insert into lineitem select * from lineitem") }
        _ = try s.execute("analyze lineitem")
        let plan = try explain(s, q9)
        XCTAssertTrue(preAggregatedBelowNations(plan), plan)
        let sixteen = try s.execute(q9)[0].textRows()
        XCTAssertEqual(sixteen.count, once.count)
        for (a, b) in zip(once, sixteen) {
            XCTAssertEqual(Array(a.prefix(2)), Array(b.prefix(2)))
            XCTAssertEqual(digits(a[2]).map { $0 * 16 }, digits(b[2]), "\(a) \(b)")
        }
        // The name read by an aggregate as well: the nation stays joined to the supplier.
        let read = q9.replacingOccurrences(of: "sum(amount) AS sum_profit",
                                           with: "sum(CASE WHEN nation = 'BRAZIL' THEN amount ELSE 0 END) AS sum_profit")
        XCTAssertNotEqual(read, q9)
        XCTAssertFalse(preAggregatedBelowNations(try explain(s, read)))
        let brazil = try s.execute(read)[0].textRows()
        XCTAssertEqual(brazil.count, once.count)
        for (a, b) in zip(once, brazil) {
            let isBrazil = a[0]?.trimmingCharacters(in: .whitespaces) == "BRAZIL"
            XCTAssertEqual(digits(b[2]), isBrazil ? digits(a[2]).map { $0 * 16 } : 0, "\(a) \(b)")
        }
    }

    /// A left join under a filter that wants its right join key NULL is an anti join (its
    /// matched rows are dropped as the probe runs, not joined and filtered); a NULL wanted
    /// in a column that is no join key, or an OR, keeps the left join.
    func testLeftJoinKeepingUnmatchedRowsIsAnAntiJoin() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table al (k int, j int, v int);
            create table ar (k int, j int, w int);
            insert into al values (1, 1, 10), (2, 1, 20), (3, 2, 30), (NULL, 1, 40), (5, 2, 50);
            insert into ar values (1, 1, NULL), (1, 1, 7), (3, 1, 8), (5, 2, NULL);
            """)
        let anti = "select al.k, al.v, ar.w from al left join ar on al.k = ar.k and al.j = ar.j where ar.j is null and al.v > 15"
        let plan = try explain(s, anti)
        // An anti join with al probing, or a right anti join with al as the build side.
        XCTAssertTrue((plan.contains("NOT IN Join") || plan.contains("Right Anti Join")) && !plan.contains("Left Join"), plan)
        XCTAssertEqual(try s.execute(anti + " order by 2")[0].textRows(), [["2", "20", nil], ["3", "30", nil], [nil, "40", nil]])
        for kept in ["select count(*) from al left join ar on al.k = ar.k where ar.w is null",
                     "select count(*) from al left join ar on al.k = ar.k where ar.k is null or al.v > 40"] {
            let p = try explain(s, kept)
            XCTAssertTrue(p.contains("Left Join"), p)
        }
        XCTAssertEqual(try s.execute("select count(*) from al left join ar on al.k = ar.k where ar.w is null")[0].textRows(), [["4"]])
    }

    /// Rows hashed on one key of an inner join are hashed on the other key too: a join on
    /// that other key finds them in place (DS_DIST_NONE) instead of broadcasting its build
    /// side (TPC-DS q72: catalog returns joined on cs_item_sk after inventory's rows, hashed
    /// on inv_item_sk, met catalog sales on inv_item_sk = cs_item_sk). A left join's build
    /// keys may be NULL where the probe's are not, so it gives no such equality.
    func testJoinOnAnInnerJoinsOtherKeyMovesNoRows() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table ei (i_item int, i_qty int) distkey(i_item);
            create table es (s_item int, s_order int, s_qty int) distkey(s_item);
            create table er (r_item int, r_order int, r_amt int) distkey(r_item);
            insert into ei values (1, 5), (2, 1), (3, 9), (1, 0), (NULL, 4);
            insert into es values (1, 10, 7), (2, 20, 2), (3, 30, 1), (1, 11, 3), (NULL, 12, 9), (4, 40, 9);
            insert into er values (1, 10, 100), (1, 11, 110), (2, 20, 200), (3, 31, 300), (NULL, 12, 5);
            """)
        // ei's rows are hashed on i_item; after the inner join they also are on s_item.
        let q = """
            select es.s_item, es.s_order, ei.i_qty, er.r_amt
            from es join ei on ei.i_item = es.s_item
            left join er on er.r_item = es.s_item and er.r_order = es.s_order
            where ei.i_qty < es.s_qty
            """
        let plan = try explain(s, q)
        XCTAssertTrue(plan.contains("Hash Left Join DS_DIST_NONE"), plan)
        XCTAssertFalse(plan.contains("DS_BCAST_INNER"), plan)
        XCTAssertEqual(try s.execute(q + " order by 1, 2, 3")[0].textRows(), [
            ["1", "10", "0", "100"], ["1", "10", "5", "100"], ["1", "11", "0", "110"], ["2", "20", "1", "200"]])
        // Through a left join: es.s_item may be NULL where ei.i_item is not, so a join on
        // es.s_item cannot use ei's placement.
        let left = "select count(*), count(er.r_amt) from ei left join es on ei.i_item = es.s_item join er on er.r_item = es.s_item"
        XCTAssertEqual(try s.execute(left)[0].textRows(), [["10", "10"]])
    }

    /// Uncorrelated scalar subqueries over the same table and filter share one aggregate
    /// over one scan (TPC-DS q09: 15 subqueries, 5 filters, 5 scans); other filters, other
    /// tables and DISTINCT aggregates keep their own.
    func testScalarSubqueriesOverTheSameRowsShareOneScan() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table sq (q int, a decimal(7,2), b decimal(7,2));
            create table sq2 (q int, a decimal(7,2));
            create table sr (k int);
            insert into sq values (1, 1.50, 2.00), (5, 3.00, NULL), (25, 10.00, 1.00), (30, NULL, 4.00);
            insert into sq2 values (1, 7.00);
            insert into sr values (1), (2);
            """)
        let q = """
            select k,
                   case when (select count(*) from sq where q between 1 and 20) > 1
                        then (select sum(a) from sq where q between 1 and 20)
                        else (select sum(b) from sq where q between 1 and 20) end,
                   (select count(*) from sq where q between 21 and 40),
                   (select max(b) from sq where q between 21 and 40),
                   (select sum(a) from sq2 where q between 1 and 20),
                   (select count(distinct b) from sq where q between 1 and 20)
            from sr
            """
        let plan = try explain(s, q)
        // One scan of sq per filter, one of sq2, and the DISTINCT subquery's own.
        XCTAssertEqual(plan.components(separatedBy: "XN Seq Scan on sq ").count - 1, 3, plan)
        XCTAssertEqual(plan.components(separatedBy: "XN Seq Scan on sq2 ").count - 1, 1, plan)
        XCTAssertEqual(try s.execute(q + " order by k")[0].textRows(), [
            ["1", "4.50", "2", "4.00", "7.00", "1"], ["2", "4.50", "2", "4.00", "7.00", "1"]])
    }

    /// SELECT DISTINCT of a dimension's strings over a fact table is made distinct on the
    /// fact side's integer columns first (TPC-DS q38, q87): two more aggregate steps below
    /// the join to the dimension, the same rows. Not without a string from the dimension.
    func testDistinctOverJoinsDedupesTheFactSideFirst() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table ds_sales (s_cust int, s_date int, s_item int);
            create table ds_date (d_sk int, d_date date, d_year int);
            create table ds_cust (c_sk int, c_last varchar(10), c_first varchar(10));
            insert into ds_sales select i % 97, i % 13, i from generate_series(1, 30000) as s(i);
            insert into ds_date select i, cast('2001-01-01' as date) + (i % 5), 2001 + i % 2 from generate_series(0, 12) as s(i);
            insert into ds_cust select i, 'L' || (i % 7), 'F' || (i % 5) from generate_series(0, 95) as s(i);
            analyze;
            """)
        let q = """
            select distinct c_last, c_first, d_date from ds_sales, ds_date, ds_cust
            where s_date = d_sk and s_cust = c_sk and d_year = 2001
            """
        let plan = try explain(s, q)
        XCTAssertEqual(plan.components(separatedBy: "XN HashAggregate").count - 1, 4, plan)
        XCTAssertEqual(try s.execute("select count(*), count(distinct c_last) from (\(q)) t")[0].textRows(), [["175", "7"]])
        let ints = try explain(s, "select distinct s_cust, d_date from ds_sales, ds_date where s_date = d_sk")
        XCTAssertEqual(ints.components(separatedBy: "XN HashAggregate").count - 1, 2, ints)
    }

    /// ROLLUP aggregates its input once by all keys; every set, and the grand total, is
    /// merged from that pre-aggregate, which is computed once.
    func testRollupMergesOnePreAggregate() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table f (k int distkey, g int, h int, v int);
            insert into f values (1, 1, 1, 10), (2, 1, 2, 20), (3, 2, 1, 30), (4, 2, 2, 40), (5, 3, 1, 50);
            """)
        let q = "select g, h, sum(v), avg(v), count(*) from f group by rollup (g, h)"
        let plan = try explain(s, q)
        XCTAssertEqual(plan.components(separatedBy: "XN Seq Scan on f").count - 1, 1, plan)
        XCTAssertTrue(plan.contains("Shared Subplan 1: computed once, read by 2 parents"), plan)
        XCTAssertEqual(try s.execute(q + " order by g nulls last, h nulls last")[0].textRows(), [
            ["1", "1", "10", "10", "1"], ["1", "2", "20", "20", "1"], ["1", nil, "30", "15", "2"],
            ["2", "1", "30", "30", "1"], ["2", "2", "40", "40", "1"], ["2", nil, "70", "35", "2"],
            ["3", "1", "50", "50", "1"], ["3", nil, "50", "50", "1"], [nil, nil, "150", "30", "5"]])
        // COUNT(DISTINCT) has no partial state to merge: each set reads the input.
        let distinct = try explain(s, "select g, h, count(distinct v) from f group by rollup (g, h)")
        XCTAssertFalse(distinct.contains("Shared Subplan"), distinct)
    }

    /// INTERSECT and EXCEPT drop each slice's duplicates before the rows are
    /// redistributed; the ALL forms keep them (they count).
    func testIntersectDropsDuplicatesBeforeMoving() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table a (k int distkey, g int);
            create table b (k int distkey, g int);
            insert into a values (1, 1), (2, 1), (3, 2), (4, 2), (5, 3);
            insert into b values (1, 1), (2, 2), (3, 2), (6, 4);
            """)
        for op in ["intersect", "except"] {
            let plan = try explain(s, "select g from a \(op) select g from b")
            XCTAssertEqual(plan.components(separatedBy: "Phase: partial").count - 1, 2, plan)
            let all = try explain(s, "select g from a \(op) all select g from b")
            XCTAssertFalse(all.contains("Phase: partial"), all)
        }
        XCTAssertEqual(try s.execute("select g from a intersect select g from b order by 1")[0].textRows(), [["1"], ["2"]])
        XCTAssertEqual(try s.execute("select g from a except select g from b order by 1")[0].textRows(), [["3"]])
        XCTAssertEqual(try s.execute("select g from a intersect all select g from b order by 1")[0].textRows(),
                       [["1"], ["2"], ["2"]])
    }

    /// TPC-DS q06's shape: `d.m = (SELECT ...)` keeps one month of an analyzed dimension
    /// (1 / distinct months, not a tenth), so the fact table meets that dimension first.
    func testScalarSubqueryEqualityUsesDistinctCount() throws {
        let s = try seeded(12)
        _ = try s.execute("""
            create table f (dk int, ek int) diststyle even;
            insert into f select i % 600, i % 60 from seed;
            create table d (k int, m int) diststyle all;
            insert into d select i, i / 10 from seed where i < 600;
            create table e (k int, name varchar(10)) diststyle all;
            insert into e select i, 'e' || (i % 7) from seed where i < 60;
            analyze;
            """)
        // e keeps 3 of 60 rows (1/20); d one month of 60 (1/60): d first. With a tenth
        // for the equality, e would go first.
        let q = "select count(*) from f join d on f.dk = d.k join e on f.ek = e.k where d.m = (select min(m) from d where k < 100) and e.k < 3"
        let plan = try explain(s, q)
        let conds = plan.split(separator: "\n").filter { $0.contains("Hash Cond") }
        XCTAssertEqual(conds.last?.contains("dk = \"inner\".k"), true, plan)
        XCTAssertEqual(try s.execute(q)[0].textRows(), [["21"]])
    }

    /// A lower and an upper bound on one analyzed column are estimated as one range
    /// (`d_month_seq BETWEEN 1200 AND 1211`), not as two independent half-ranges.
    func testRangeOnOneColumnIsOneRange() throws {
        let s = try seeded(12)
        _ = try s.execute("create table m (i int, m int) diststyle even; insert into m select i, i / 10 from seed; analyze m")
        let plan = try explain(s, "select count(*) from m where m between 100 and 109")
        guard let scan = plan.split(separator: "\n").first(where: { $0.contains("Seq Scan on m") }),
              let rows = scan.split(separator: " ").first(where: { $0.hasPrefix("rows=") }).flatMap({ Int($0.dropFirst(5)) })
        else { return XCTFail(plan) }
        // 10 of 410 values: about 100 rows (two halves taken apart would give about 820).
        XCTAssertTrue(rows >= 50 && rows <= 150, plan)
        XCTAssertEqual(try s.execute("select count(*) from m where m between 100 and 109")[0].textRows(), [["100"]])
    }

    /// A hash join hands its build keys to the scan below its probe side: on a table
    /// sorted by the key, the keys' range skips nearly every block, the bitmap drops the
    /// rows in between, and STL_SCAN says so. The answer is that of the same query
    /// without the filter (the join itself is unchanged).
    func testRuntimeFilterSkipsBlocksOfTheProbeScan() throws {
        let dir = NSTemporaryDirectory() + "rf-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 16 KB blocks: many blocks from little data.
        let s = try Database(directory: dir, cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), blockBytes: 16 << 10).connect()
        _ = try s.execute("create table seed (i bigint); insert into seed values (0)")
        for p in 0..<9 { _ = try s.execute("insert into seed select i + \(1 << p) from seed") }
        _ = try s.execute("create table big (k bigint encode raw, v bigint encode raw) diststyle even sortkey(k)")
        _ = try s.execute("insert into big select ((a.i * 512 + b.i) * 7919) % 262144, a.i from seed a cross join seed b")
        _ = try s.execute("create table dim (k bigint, keep boolean) diststyle all")
        _ = try s.execute("insert into dim select i * 2 + 100000, i % 3 = 0 from seed")
        let q = "select count(*), sum(big.v) from big join dim on big.k = dim.k where dim.keep"
        let plan = try explain(s, q)
        XCTAssertTrue(plan.contains("Runtime Filter: k (from hash join build keys)"), plan)
        let answer = try s.execute(q)[0].textRows()
        let scan = try s.execute("select blocks_read, blocks_skipped, runtime_filtering, rows_runtime_filtered, rows from stl_scan s join svv_table_info i on s.tbl = i.table_id where s.query = pg_last_query_id() and i.\"table\" = 'big'")[0].textRows()
        XCTAssertEqual(scan.count, 1)
        let read = Int(scan[0][0] ?? "") ?? -1, skipped = Int(scan[0][1] ?? "") ?? -1
        // dim's keys span 100000 ..< 101024: a fraction of a percent of big's key range.
        XCTAssertGreaterThan(skipped, 10 * read, "\(scan)")
        XCTAssertEqual(scan[0][2], "t")
        XCTAssertGreaterThan(Int(scan[0][3] ?? "") ?? 0, 0, "odd keys in the range are dropped by the bitmap")
        // The same join written so no runtime filter applies (k + 0 is not a column).
        let plain = try s.execute("select count(*), sum(big.v) from big join dim on big.k + 0 = dim.k where dim.keep")[0].textRows()
        XCTAssertEqual(answer, plain)
        XCTAssertEqual(answer.first?.first, "171")
    }

    /// Only joins whose unmatched probe rows produce nothing filter, and only scans in
    /// the same pipeline: not a LEFT JOIN's probe, not an anti join's, not across a
    /// redistribution.
    func testRuntimeFilterPlacement() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table f (k int, d int) distkey(k);
            create table g (d int, x int) distkey(x);
            create table dim (k int, name varchar(8)) diststyle all;
            insert into f values (1, 1), (2, 2);
            insert into g values (1, 1), (2, 2);
            insert into dim values (1, 'a'), (2, 'b');
            """)
        func filtered(_ q: String) throws -> Bool { try explain(s, q).contains("Runtime Filter") }
        XCTAssertTrue(try filtered("select * from f join dim on f.k = dim.k where dim.name = 'a'"))
        XCTAssertTrue(try filtered("select * from f where k in (select k from dim where name = 'a')"))
        XCTAssertFalse(try filtered("select * from f left join dim on f.k = dim.k and dim.name = 'a'"))
        XCTAssertFalse(try filtered("select * from f where not exists (select 1 from dim where dim.k = f.k and name = 'a')"))
        // f is redistributed on d to meet g: the scan of f runs in an earlier stage.
        let plan = try explain(s, "select * from f join g on f.d = g.d")
        let scanOfF = plan.split(separator: "\n").drop(while: { !$0.contains("Seq Scan on f") }).dropFirst().first ?? ""
        XCTAssertFalse(scanOfF.contains("Runtime Filter"), plan)
    }

    /// Outer joins whose NULL-padded rows cannot pass a filter above become inner (or
    /// one-sided) joins; the others keep their kind (answers: sql/optimizer/outer_joins.test).
    func testOuterJoinSimplification() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table l (a int, b int); create table r (a int, c int); create table s (a int, d varchar(5));
            insert into l values (1, 10), (2, 20); insert into r values (1, 100), (3, 300); insert into s values (1, 'x');
            """)
        XCTAssertFalse(try explain(s, "select * from l left join r on l.a = r.a where r.c > 100").contains("Left Join"))
        XCTAssertTrue(try explain(s, "select * from l left join r on l.a = r.a where r.c is null").contains("Left Join"))
        XCTAssertTrue(try explain(s, "select * from l left join r on l.a = r.a where coalesce(r.c, 0) = 0").contains("Left Join"))
        XCTAssertFalse(try explain(s, "select * from l right join r on l.a = r.a where l.b < 25").contains("Right Join"))
        let full = try explain(s, "select * from l full join r on l.a = r.a where l.b > 0")
        XCTAssertFalse(full.contains("Full Join"), full)
        XCTAssertTrue(try explain(s, "select * from l full join r on l.a = r.a where coalesce(l.a, r.a) > 1").contains("Full Join"))
        // An inner join's condition above rejects the NULL-padded rows of the left join below.
        let chained = try explain(s, "select * from l left join r on l.a = r.a join s on r.a = s.a")
        XCTAssertFalse(chained.contains("Left Join"), chained)
        // A LIMIT in between: the filter above cannot change which rows the limit takes.
        XCTAssertTrue(try explain(s, "select * from (select l.a, r.c from l left join r on l.a = r.a limit 3) x where x.c > 0").contains("Left Join"))
    }

    /// DISTINCT / GROUP BY over a declared key, a GROUP BY over a GROUP BY's keys, and a
    /// LEFT JOIN on a unique key of a right side nothing reads are dropped; the look-alikes
    /// that could merge or repeat rows keep them (answers: sql/optimizer/keys.test).
    func testRedundantGroupingAndJoins() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table dim (k int primary key, name varchar(10), code int unique);
            create table pk2 (a int, b int, c int, primary key (a, b));
            create table fact (id int, k int, v int);
            """)
        func aggregates(_ q: String) throws -> Int {
            try explain(s, q).split(separator: "\n").filter { $0.contains("Aggregate") && !$0.contains("Phase: partial") }.count
        }
        XCTAssertEqual(try aggregates("select distinct k, name from dim"), 0)
        XCTAssertEqual(try aggregates("select k from dim group by k"), 0)
        XCTAssertEqual(try aggregates("select distinct a, b from pk2"), 0)
        XCTAssertGreaterThan(try aggregates("select distinct a from pk2"), 0)
        XCTAssertGreaterThan(try aggregates("select distinct code from dim"), 0, "a nullable UNIQUE column repeats NULL")
        // One aggregate (its two phases), not two.
        let nested = try explain(s, "select k, s from (select k, sum(v) s from fact group by k) x group by k, s")
        XCTAssertEqual(nested.split(separator: "\n").filter { $0.contains("HashAggregate") }.count, 2, nested)
        XCTAssertFalse(try explain(s, "select f.id from fact f left join dim d on f.k = d.k").contains("Join"))
        XCTAssertFalse(try explain(s, "select count(*) from fact f left join pk2 p on f.k = p.a and f.v = p.b").contains("Join"))
        XCTAssertTrue(try explain(s, "select f.id from fact f left join pk2 p on f.k = p.a").contains("Left Join"))
        XCTAssertTrue(try explain(s, "select f.id, d.name from fact f left join dim d on f.k = d.k").contains("Left Join"))
    }

    /// An input restricted by a filtered one it meets restricts, in turn, the inputs its
    /// key is equated with (TPC-H Q5): customer meets supplier on the nation, supplier
    /// meets nation, nation meets the one region 'ASIA'; customer is semi-joined with
    /// (nation semi-joined with region) before the joins. Answers:
    /// sql/optimizer/transitive_semijoins.test.
    func testFilteredInputRestrictsThroughTheInputItMeets() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table digits (d int);
            insert into digits values (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
            create table region (r_regionkey int, r_name varchar(10));
            insert into region values (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE'), (4, 'MIDEAST'), (5, 'ASIA');
            create table nation (n_nationkey int, n_name varchar(10), n_regionkey int);
            insert into nation select a.d * 10 + b.d, 'N' || (a.d * 10 + b.d), (a.d * 10 + b.d) % 6 from digits a, digits b where a.d < 2;
            create table supplier (s_suppkey int, s_nationkey int);
            insert into supplier select a.d * 10 + b.d + 1, (a.d * 10 + b.d) % 20 from digits a, digits b where a.d < 4;
            create table customer (c_custkey int, c_nationkey int);
            insert into customer select a.d * 100 + b.d * 10 + c.d + 1, case when (a.d * 100 + b.d * 10 + c.d) % 37 = 5 then null else (a.d * 100 + b.d * 10 + c.d) % 23 end from digits a, digits b, digits c where a.d < 3;
            create table orders (o_orderkey int, o_custkey int, o_suppkey int, o_amount int);
            insert into orders select k, (k * 7) % 300 + 1, k % 40 + 1, k % 13 from (select a.d * 100 + b.d * 10 + c.d + 1 as k from digits a, digits b, digits c) t;
            """)
        func shape(_ region: String) -> String {
            """
            select n_name, sum(o_amount) from customer, orders, supplier, nation, region
            where c_custkey = o_custkey and o_suppkey = s_suppkey and c_nationkey = s_nationkey
              and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = \(region)
            group by n_name
            """
        }
        /// The join node right above `customer`'s scan, and the scans after it (its build side first).
        func aboveCustomer(_ plan: String) -> (join: String, next: [String]) {
            let lines = plan.split(separator: "\n").map(String.init)
            guard let c = lines.firstIndex(where: { $0.contains("Seq Scan on customer") }) else { return ("", []) }
            let join = lines[..<c].last { $0.contains("XN ") && $0.contains("Join") } ?? ""
            return (join, lines[(c + 1)...].filter { $0.contains("Seq Scan") }.prefix(2).map { $0 })
        }
        let plan = try explain(s, shape("'ASIA'"))
        let (join, next) = aboveCustomer(plan)
        XCTAssertTrue(join.contains("Hash IN Join"), plan)
        XCTAssertEqual(next.count, 2, plan)
        XCTAssertTrue(next.first?.contains("Seq Scan on nation") ?? false, plan)
        XCTAssertTrue(next.last?.contains("Seq Scan on region") ?? false, plan)
        // A filter that cannot be run again (it would draw other random numbers) is not copied.
        let volatile = try explain(s, shape("'ASIA' and r_regionkey + random() < 100"))
        XCTAssertFalse(aboveCustomer(volatile).join.contains("IN Join"), volatile)
        // orders restricted by the few digits it meets is not copied to restrict `big`
        // (2,000 rows, not ten times orders' 1,000): it would scan orders a second time.
        _ = try s.execute("""
            create table big (b_suppkey int);
            insert into big select (a.d * 100 + b.d * 10 + c.d) % 40 + 1 from digits a, digits b, digits c, digits e where e.d < 2;
            """)
        let fact = try explain(s, """
            select count(*) from orders, digits, supplier, big
            where o_amount = d and d < 3 and o_suppkey = s_suppkey and s_suppkey = b_suppkey
            """)
        XCTAssertFalse(fact.contains("IN Join"), fact)
    }

    /// TPC-DS q72's shape: sales of one year and one household class meet inventory on
    /// item and week. The left-deep order from the largest table (inventory) multiplies
    /// each inventory row by the days of its week before it meets the few sales; the bushy
    /// order (Optimizer+JoinOrder.swift) joins the sales to the dates of their weeks first
    /// and builds on them, so the inventory scan meets them on item and date at once.
    func testBushyOrderMeetsInventoryOnItemAndDate() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table seed (i int) diststyle even;
            insert into seed values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
            create table dates (d_sk int, week int, yr int) diststyle all;
            insert into dates select a.i * 100 + b.i * 10 + c.i, (a.i * 100 + b.i * 10 + c.i) / 7, (a.i * 100 + b.i * 10 + c.i) / 350
              from seed a, seed b, seed c where a.i * 100 + b.i * 10 + c.i < 700;
            create table hd (hd_sk int, pot varchar(8)) diststyle all;
            insert into hd select i, case when i = 0 then 'high' else 'low' end from seed;
            create table inv (item int, d_sk int, qty int) distkey(item) sortkey(d_sk);
            insert into inv select a.i * 10 + b.i, (c.i * 10 + d.i) * 7, e.i from seed a, seed b, seed c, seed d, seed e;
            create table sales (item int, sold_sk int, hd int, qty int) distkey(item) sortkey(sold_sk);
            insert into sales select (a.i * 37 + b.i * 11 + c.i * 7 + d.i) % 100, (a.i * 97 + b.i * 31 + c.i * 13 + d.i * 3) % 700,
              (a.i + b.i * 3 + c.i * 7 + d.i) % 10, d.i from seed a, seed b, seed c, seed d;
            analyze;
            """)
        let q = """
            select count(*) from sales s join inv on s.item = inv.item join dates d1 on s.sold_sk = d1.d_sk
            join dates d2 on inv.d_sk = d2.d_sk join hd on s.hd = hd.hd_sk
            where d1.week = d2.week and d1.yr = 0 and hd.pot = 'high' and inv.qty < s.qty
            """
        let plan = try explain(s, q)
        let lines = plan.split(separator: "\n").map(String.init)
        guard let scan = lines.firstIndex(where: { $0.contains("Seq Scan on inv") }),
              let cond = lines[..<scan].last(where: { $0.contains("Hash Cond") }) else { return XCTFail(plan) }
        XCTAssertTrue(cond.contains("item") && cond.contains("d_sk"), plan)
        XCTAssertEqual(try s.execute(q)[0].textRows(), [["2435"]])
    }

    /// EXPLAIN of DELETE and UPDATE shows the plan that finds their rows; of CREATE TABLE
    /// AS and SELECT ... INTO the plan of their query; EXPLAIN VERBOSE adds each step's
    /// output columns. Nothing is changed or created.
    func testExplainOfWritesAndVerbose() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table ex (id int, v int) distkey(id); insert into ex values (1, 3), (2, 4), (3, 3)")
        let delete = try explain(s, "delete from ex where v = 3")
        XCTAssertTrue(delete.contains("XN Seq Scan on ex") && delete.contains("Filter: (v = 3)"), delete)
        let update = try explain(s, "update ex set v = v + 1 where id < 3")
        XCTAssertTrue(update.contains("XN Seq Scan on ex") && update.contains("Filter: (id < 3)"), update)
        let ctas = try explain(s, "create table ex2 as select v, count(*) from ex group by v")
        XCTAssertTrue(ctas.contains("XN HashAggregate"), ctas)
        let into = try explain(s, "select id into ex3 from ex where v > 3")
        XCTAssertTrue(into.contains("Filter: (v > 3)"), into)
        let verbose = try s.execute("EXPLAIN VERBOSE select v, count(*) as n from ex group by v")[0].textRows().map { $0[0] ?? "" }
        XCTAssertTrue(verbose.contains { $0.trimmingCharacters(in: .whitespaces) == "Output: v, n" }, "\(verbose)")
        XCTAssertTrue(verbose.contains { $0.trimmingCharacters(in: .whitespaces) == "Output: v" }, "\(verbose)")
        // Nothing ran.
        XCTAssertEqual(try s.execute("select count(*), sum(v) from ex")[0].textRows(), [["3", "10"]])
        XCTAssertThrowsError(try s.execute("select * from ex2"))
        XCTAssertThrowsError(try s.execute("select * from ex3"))
    }
}
