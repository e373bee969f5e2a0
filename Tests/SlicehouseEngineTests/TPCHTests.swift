import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// TPC-H queries 1, 3, 5, 6 and 10 on SF 0.01 data loaded with COPY, at 1 and
/// 4 slices and with every DISTSTYLE, against the reference answers.
final class TPCHTests: XCTestCase {
    static let spineQueries = [1, 3, 5, 6, 10]

    func runQueries(_ p: TPCH.Placement, _ cluster: ClusterConfig) throws {
        let s = try TPCH.load(p, cluster: cluster)
        let counts = try s.execute("SELECT count(*) FROM lineitem")[0].textRows()
        XCTAssertEqual(counts[0][0], "60175")
        for q in Self.spineQueries {
            let results = try s.execute(try TPCH.query(q))
            guard let r = results.last else { return XCTFail("Q\(q) returned nothing") }
            try TPCH.check(r, answer: q)
        }
    }

    func testKeyedOneSlice() throws { try runQueries(.keyed, ClusterConfig(nodes: 1, slicesPerNode: 1)) }
    func testKeyedFourSlices() throws { try runQueries(.keyed, ClusterConfig(nodes: 2, slicesPerNode: 2)) }
    func testEvenFourSlices() throws { try runQueries(.even, ClusterConfig(nodes: 2, slicesPerNode: 2)) }
    func testAllFourSlices() throws { try runQueries(.all, ClusterConfig(nodes: 2, slicesPerNode: 2)) }
    func testAutoFourSlices() throws { try runQueries(.auto, ClusterConfig(nodes: 2, slicesPerNode: 2)) }
}
