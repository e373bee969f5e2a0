// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseTypes

/// Materialized views across restarts of the database (what SQL files cannot do): the
/// definition, the rows and where the last refresh left the base tables all outlive the
/// process, so the first REFRESH after a restart is still incremental — unless a base
/// table was laid out anew meanwhile.
final class MaterializedViewTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-mv-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        try s.execute(sql).last?.textRows() ?? []
    }

    func open() throws -> Session {
        let database = try Database(directory: dir)
        database.autoVacuum?.stop()
        return database.connect()
    }

    func lastStatus(_ s: Session) throws -> String? {
        try rows(s, "select trim(status) from svl_mv_refresh_status order by starttime desc limit 1").first?.first ?? nil
    }

    static let query = "select k, count(*) as n, sum(v) as total, min(v) as lo, max(v) as hi from t group by k"

    func testAViewAndItsRefreshStateOutliveTheProcess() throws {
        do {
            let s = try open()
            _ = try s.execute("create table t (k int, v bigint) diststyle even")
            _ = try s.execute("insert into t values (1, 10), (2, 20), (1, 5)")
            _ = try s.execute("create materialized view mv auto refresh no as \(Self.query)")
        }
        do {
            let s = try open()
            XCTAssertEqual(try rows(s, "select * from mv order by k"), [["1", "2", "15", "5", "10"], ["2", "1", "20", "20", "20"]])
            XCTAssertEqual(try rows(s, "select is_stale, state, autorefresh from stv_mv_info"), [["f", "1", "f"]])
            _ = try s.execute("insert into t values (2, 1), (3, 7)")
            XCTAssertEqual(try rows(s, "select is_stale from stv_mv_info"), [["t"]])
        }
        do {
            // The appended rows are folded in after a restart too.
            let s = try open()
            _ = try s.execute("refresh materialized view mv")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully updated MV incrementally")
            XCTAssertEqual(try rows(s, "select * from mv order by k"), try rows(s, Self.query + " order by k"))
            XCTAssertEqual(try rows(s, "select count(*) from svl_mv_refresh_status"), [["1"]])
        }
        do {
            let s = try open()
            _ = try s.execute("delete from t where k = 3")
            _ = try s.execute("update t set v = v + 1 where k = 1 and v = 5")
        }
        do {
            // Deleted and updated rows are told from those deleted before the refresh
            // after a restart too (the deleted rows then are kept in the manifest).
            let s = try open()
            _ = try s.execute("refresh materialized view mv")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully updated MV incrementally")
            XCTAssertEqual(try rows(s, "select * from mv order by k"), [["1", "2", "16", "6", "10"], ["2", "2", "21", "1", "20"]])
            _ = try s.execute("delete from t where v = 20")
        }
        do {
            let s = try open()
            _ = try s.execute("refresh materialized view mv")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully updated MV incrementally")
            XCTAssertEqual(try rows(s, "select * from mv order by k"), try rows(s, Self.query + " order by k"))
            // A VACUUM in another process: the rows' positions changed, so the next refresh
            // recomputes (the layout count is kept in the manifest).
            _ = try s.execute("vacuum delete only t to 100 percent")
        }
        do {
            let s = try open()
            _ = try s.execute("insert into t values (4, 4)")
            _ = try s.execute("refresh materialized view mv")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully recomputed MV from scratch")
            XCTAssertEqual(try rows(s, "select * from mv order by k"), try rows(s, Self.query + " order by k"))
            _ = try s.execute("alter materialized view mv auto refresh yes")
        }
        do {
            // ALTER MATERIALIZED VIEW ... AUTO REFRESH is kept too.
            let s = try open()
            XCTAssertEqual(try rows(s, "select autorefresh from stv_mv_info"), [["t"]])
            _ = try s.execute("insert into t values (5, 50)")
            XCTAssertEqual(try rows(s, "select n, total from mv where k = 5"), [["1", "50"]])
        }
    }

    /// Many appends between refreshes, over many blocks and slices: the incremental
    /// refresh agrees with a recompute.
    func testIncrementalRefreshAgreesWithARecompute() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 3), blockBytes: 4096).connect()
        _ = try s.execute("create table f (id int, d int, v decimal(12,2)) distkey(id) sortkey(id)")
        _ = try s.execute("create table dim (d int, name varchar(20)) diststyle all")
        _ = try s.execute("insert into dim values " + (0..<20).map { "(\($0), 'd\($0 % 7)')" }.joined(separator: ","))
        let mvQuery = """
            select dim.name, count(*) as n, sum(f.v) as total, min(f.v) as lo, max(f.id) as hi
            from f join dim on f.d = dim.d where f.v > 1 group by dim.name
            """
        _ = try s.execute("create materialized view inc as \(mvQuery)")
        _ = try s.execute("create materialized view full_mv as \(mvQuery)")
        var next = 0
        for round in 0..<6 {
            let values = (0..<400).map { i -> String in
                let id = next + i
                return "(\(id), \((id * 7 + round) % 23), \(Double((id * 37) % 1000) / 10))"
            }
            next += 400
            _ = try s.execute("insert into f values " + values.joined(separator: ","))
            if round == 3 {
                _ = try s.execute("insert into dim values (20, 'late'), (21, 'd1')")
            }
            _ = try s.execute("refresh materialized view inc")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully updated MV incrementally", "round \(round)")
            _ = try s.execute("refresh materialized view full_mv recompute")
            XCTAssertEqual(try rows(s, "select * from inc order by name"), try rows(s, "select * from full_mv order by name"),
                           "round \(round)")
        }
        XCTAssertEqual(try rows(s, "select * from inc order by name"), try rows(s, mvQuery + " order by name"))
    }

    /// Rounds of inserts, deletes and updates of both tables between refreshes, over many
    /// blocks and slices: the incremental refresh agrees with a recompute, for a view with
    /// aggregation (groups found again) and one without (rows taken out one for one).
    func testIncrementalRefreshAfterDeletesAgreesWithARecompute() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 3), blockBytes: 4096).connect()
        _ = try s.execute("set enable_result_cache_for_session to off")
        _ = try s.execute("create table f (id int, d int, v decimal(12,2), q int) distkey(id)")
        _ = try s.execute("create table dim (d int, name varchar(20))")
        _ = try s.execute("insert into dim values " + (0..<20).map { "(\($0), 'd\($0 % 7)')" }.joined(separator: ","))
        let aggQuery = """
            select dim.name, f.q, count(*) as n, count(f.v) as nv, sum(f.v) as total, min(f.v) as lo, max(f.id) as hi
            from f join dim on f.d = dim.d where f.id % 5 <> 0 group by dim.name, f.q
            """
        let plainQuery = "select f.q, f.v, dim.name from f join dim on f.d = dim.d where f.q < 3"
        _ = try s.execute("create materialized view agg as \(aggQuery)")
        _ = try s.execute("create materialized view agg_full as \(aggQuery)")
        _ = try s.execute("create materialized view plain as \(plainQuery)")
        _ = try s.execute("create materialized view plain_full as \(plainQuery)")
        var next = 0
        var rng = SystemRandomNumberGenerator()
        for round in 0..<8 {
            let values = (0..<300).map { i -> String in
                let id = next + i
                let v = id % 11 == 0 ? "null" : String(Double((id * 37) % 1000) / 10)
                return "(\(id), \((id * 7 + round) % 23), \(v), \(id % 4))"
            }
            next += 300
            _ = try s.execute("insert into f values " + values.joined(separator: ","))
            let a = Int.random(in: 0..<next, using: &rng), b = Int.random(in: 0..<next, using: &rng)
            _ = try s.execute("delete from f where id between \(min(a, b)) and \(min(a, b) + 40)")
            _ = try s.execute("update f set q = q + 1, v = v * 2 where id % 97 = \(round)")
            switch round {
            case 2: _ = try s.execute("delete from dim where d = 3")
            case 4: _ = try s.execute("insert into dim values (3, 'back'), (21, 'd1')")
            case 5: _ = try s.execute("update dim set name = 'moved' where d = 4")
            case 6: _ = try s.execute("delete from f where q = 1")
            default: break
            }
            for view in ["agg", "plain"] {
                _ = try s.execute("refresh materialized view \(view)")
                XCTAssertEqual(try lastStatus(s), "Refresh successfully updated MV incrementally", "\(view), round \(round)")
                _ = try s.execute("refresh materialized view \(view)_full recompute")
                XCTAssertEqual(try rows(s, "select * from \(view) order by 1, 2, 3"),
                               try rows(s, "select * from \(view)_full order by 1, 2, 3"), "\(view), round \(round)")
            }
        }
        XCTAssertEqual(try rows(s, "select * from agg order by 1, 2"), try rows(s, aggQuery + " order by 1, 2"))
    }

    /// Queries over the view's tables, answered with and without the rewrite: the same
    /// rows every time, and the view read where it can answer.
    func testRewrittenQueriesAnswerAsTheBaseTables() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("set enable_result_cache_for_session to off")
        _ = try s.execute("create table f (id int, d int, g varchar(5), v decimal(12,2), q int)")
        _ = try s.execute("create table dim (d int, name varchar(20), region varchar(5))")
        _ = try s.execute("insert into dim values " + (0..<12).map { "(\($0), 'n\($0 % 5)', 'r\($0 % 3)')" }.joined(separator: ","))
        _ = try s.execute("insert into f values " + (0..<500).map { i in
            "(\(i), \(i % 13), \(i % 4 == 0 ? "null" : "'g\(i % 3)'"), \(i % 7 == 0 ? "null" : String(Double(i % 97) / 4)), \(i % 11))"
        }.joined(separator: ","))
        _ = try s.execute("""
            create materialized view agg as select dim.region, dim.name, f.g, count(*) as n, count(f.v) as nv,
              sum(f.v) as total, min(f.q) as lo, max(f.v) as hi
            from f join dim on f.d = dim.d where f.q > 1 group by dim.region, dim.name, f.g
            """)
        _ = try s.execute("create materialized view plain as select f.id, f.v, dim.region from f join dim on f.d = dim.d")
        let from = "from f join dim on f.d = dim.d"
        let queries: [(String, Bool)] = [
            ("select dim.region, count(*), sum(f.v), min(f.q), max(f.v) \(from) where f.q > 1 group by dim.region", true),
            ("select dim.name, f.g, count(f.v) \(from) where f.q > 1 and dim.region <> 'r1' group by dim.name, f.g", true),
            ("select count(*), sum(f.v) \(from) where f.q > 1", true),
            ("select f.g, max(f.v) \(from) where f.q > 1 and f.g is not null group by f.g having count(*) > 10", true),
            ("select upper(dim.region) as r, sum(f.v) as s \(from) where f.q > 1 group by upper(dim.region)", true),
            ("select dim.region, count(*) \(from) where f.q > 1 group by 1 order by 2 desc, 1 limit 2", true),
            ("select dim.region, avg(f.v) \(from) where f.q > 1 group by dim.region", false),
            ("select dim.region, count(*) \(from) where f.q > 2 group by dim.region", false),
            ("select dim.region, count(*) \(from) group by dim.region", true),   // the plain view
            ("select f.id, f.v \(from) where dim.region = 'r2' and f.v > 10", true),
            ("select dim.region, sum(f.v), count(*) \(from) where f.id < 100 group by dim.region", true),
            ("select dim.name, count(*) \(from) group by dim.name", false),
        ]
        for (sql, rewritten) in queries {
            let ordered = sql.contains("order by") ? sql : sql + " order by 1, 2"
            _ = try s.execute("set mv_enable_aqmv_for_session to off")
            let want = try rows(s, ordered)
            _ = try s.execute("set mv_enable_aqmv_for_session to on")
            XCTAssertEqual(try rows(s, ordered), want, sql)
            let views = try rows(s, """
                select count(*) from stl_scan where query = pg_last_query_id()
                and tbl in (select table_id from svv_table_info where "table" in ('agg', 'plain'))
                """)
            XCTAssertEqual(views, [[rewritten ? "1" : "0"]], sql)
        }
    }
}
