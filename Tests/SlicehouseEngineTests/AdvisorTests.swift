// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseTypes

/// The key advisor on a small star schema with poor keys: it reads the logged workload,
/// recommends co-locating the join and sorting on the filtered column, predicts the
/// effect per query beside what the runs recorded, and its advice applied moves less.
final class AdvisorTests: XCTestCase {
    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        try s.execute(sql).last?.textRows() ?? []
    }

    static let workload = [
        "select c.region, sum(f.amount) from fact f join cust c on f.cust = c.cust where f.day between 10 and 12 group by c.region",
        "select c.region, count(*) from fact f join cust c on f.cust = c.cust where f.day < 5 group by c.region",
        "select count(*), max(f.amount) from fact f where f.day = 20",
        "select c.region, avg(f.amount) from fact f join cust c on f.cust = c.cust group by c.region",
    ]

    func session() throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2), blockBytes: 4096).connect()
        _ = try s.execute("set enable_result_cache_for_session to off")
        _ = try s.execute("create table fact (id int, cust int, day int, amount int) diststyle even")
        _ = try s.execute("create table cust (cust int, region varchar(10), name varchar(20)) diststyle even")
        _ = try s.execute("insert into cust select n, 'r' || (n % 7), 'customer ' || n from generate_series(1, 4000) n")
        _ = try s.execute("insert into fact select n, (n * 37) % 4000 + 1, (n * 13) % 365, n % 1000 from generate_series(1, 40000) n")
        _ = try s.execute("analyze")
        return s
    }

    func testItRecommendsCoLocatedJoinsAndASortKeyOnTheFilteredColumn() throws {
        let s = try session()
        for _ in 0..<2 { for q in Self.workload { _ = try s.execute(q) } }
        let advice = try s.adviseKeys()
        XCTAssertEqual(advice.replayed, Self.workload.count)
        let ddl = advice.changes.flatMap(\.ddl).sorted()
        XCTAssertEqual(ddl, ["ALTER TABLE cust ALTER DISTKEY cust", "ALTER TABLE fact ALTER DISTKEY cust",
                             "ALTER TABLE fact ALTER SORTKEY (day)"], advice.report)
        // Every query's effect: the joins move nothing once co-located, the filtered scans
        // read fewer blocks; each has its recorded figures beside the prediction.
        XCTAssertEqual(advice.queries.count, Self.workload.count)
        for q in advice.queries {
            XCTAssertEqual(q.runs, 2)
            XCTAssertNotNil(q.measuredBlocks, q.text)
            XCTAssertLessThanOrEqual(q.movedAfter, q.movedBefore, q.text)
            XCTAssertLessThanOrEqual(q.blocksAfter, q.blocksBefore, q.text)
            if q.text.contains("join") {
                XCTAssertGreaterThan(q.movedBefore, 0, q.text)
                XCTAssertGreaterThan(q.measuredMoved ?? 0, 0, q.text)
            }
            if q.text.contains("day") && !q.text.contains("join") { XCTAssertLessThan(q.blocksAfter, q.blocksBefore / 2, q.text) }
        }
        XCTAssertTrue(advice.report.contains("ALTER TABLE fact ALTER SORTKEY (day);"), advice.report)

        // The same from SQL.
        XCTAssertEqual(try rows(s, "select trim(type), trim(ddl) from svv_alter_table_recommendations order by ddl"), [
            ["diststyle", "ALTER TABLE cust ALTER DISTKEY cust"], ["diststyle", "ALTER TABLE fact ALTER DISTKEY cust"],
            ["sortkey", "ALTER TABLE fact ALTER SORTKEY (day)"]])
        let report = try rows(s, "select slicehouse_advise()").first?.first ?? nil
        XCTAssertTrue(report?.contains("ALTER TABLE cust ALTER DISTKEY cust;") ?? false, report ?? "")

        // Applied, the joins' runs move less (measured), and the advisor has nothing more to say.
        for d in ddl { _ = try s.execute(d) }
        _ = try s.execute("analyze")
        for q in Self.workload { _ = try s.execute(q) }
        let again = try s.adviseKeys()
        XCTAssertEqual(again.changes.flatMap(\.ddl), [], again.report)
        XCTAssertTrue(again.report.contains("No change recommended"), again.report)
        for q in advice.queries where q.text.contains("join") {
            let now = try XCTUnwrap(again.queries.first { $0.text == q.text })
            XCTAssertLessThan(now.measuredMoved ?? .infinity, (q.measuredMoved ?? 0) / 2, q.text)
            XCTAssertEqual(now.movedBefore, q.movedAfter, accuracy: 1, q.text)
        }
    }

    func testAnEmptyLogOrSystemQueriesGiveNoAdvice() throws {
        let s = try Database().connect()
        _ = try s.execute("select 1")
        _ = try s.execute("select count(*) from stv_slices")
        let advice = try s.adviseKeys()
        XCTAssertEqual(advice.replayed, 0)
        XCTAssertEqual(advice.changes.count, 0)
        XCTAssertTrue(advice.report.contains("No change recommended"))
        XCTAssertEqual(try rows(s, "select count(*) from svv_alter_table_recommendations"), [["0"]])
    }
}
