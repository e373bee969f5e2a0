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
            _ = try s.execute("create materialized view mv auto refresh yes as \(Self.query)")
        }
        do {
            let s = try open()
            XCTAssertEqual(try rows(s, "select * from mv order by k"), [["1", "2", "15", "5", "10"], ["2", "1", "20", "20", "20"]])
            XCTAssertEqual(try rows(s, "select is_stale, state, autorefresh from stv_mv_info"), [["f", "1", "t"]])
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
            // A VACUUM in another process: the rows' positions changed, so the next refresh
            // recomputes (the layout count is kept in the manifest).
            let s = try open()
            _ = try s.execute("delete from t where k = 3")
            _ = try s.execute("refresh materialized view mv")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully recomputed MV from scratch")
            _ = try s.execute("vacuum delete only t to 100 percent")
        }
        do {
            let s = try open()
            _ = try s.execute("insert into t values (4, 4)")
            _ = try s.execute("refresh materialized view mv")
            XCTAssertEqual(try lastStatus(s), "Refresh successfully recomputed MV from scratch")
            XCTAssertEqual(try rows(s, "select * from mv order by k"), try rows(s, Self.query + " order by k"))
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
}
