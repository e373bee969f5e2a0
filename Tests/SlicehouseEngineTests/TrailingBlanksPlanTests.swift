// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine

/// Trailing blanks in VARCHAR values do not count where the compute nodes compare them
/// (types/varchar_trailing_blanks.test has the answers). A column none of whose stored
/// values ends in a blank is compared as it is — a join on it stays co-located — and the
/// blocks keep knowing that across a reopen of the data directory; once such a value is
/// stored, the same join moves rows by the key without its blanks.
final class TrailingBlanksPlanTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-blanks-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func explain(_ s: Session, _ sql: String) throws -> String {
        try s.execute("EXPLAIN " + sql)[0].textRows().map { $0[0] ?? "" }.joined(separator: "\n")
    }

    let join = "select v, w from k1 join k2 on k1.k = k2.k"

    func testBlankFreeColumnsStayColocatedAcrossReopen() throws {
        do {
            let s = try Database(directory: dir, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
            _ = try s.execute("""
                create table k1 (k varchar(10), v int) distkey(k);
                create table k2 (k varchar(10), w int) distkey(k);
                insert into k1 values ('a', 1), ('b', 2);
                insert into k2 values ('a', 10), ('c', 30);
                """)
            let plan = try explain(s, join)
            XCTAssertTrue(plan.contains("DS_DIST_NONE"), plan)
            XCTAssertTrue(try explain(s, "select k, count(*) from k1 group by k").contains("HashAggregate"))
        }
        // Reopened twice (the first folds the commit log into the manifest, the second
        // reads only that): the manifest's blocks still say no value ends in a blank.
        _ = try Database(directory: dir, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let db = try Database(directory: dir, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        XCTAssertTrue(try explain(s, join).contains("DS_DIST_NONE"))
        _ = try s.execute("insert into k2 values ('b  ', 20)")
        let moved = try explain(s, join)
        XCTAssertFalse(moved.contains("DS_DIST_NONE"), moved)
        XCTAssertEqual(try s.execute(join + " order by 1")[0].textRows(), [["1", "10"], ["2", "20"]])
        // Statements reading no table keep PostgreSQL's byte-wise comparison.
        XCTAssertEqual(try s.execute("select 'b  '::varchar(5) = 'b'")[0].textRows(), [["f"]])
    }
}
