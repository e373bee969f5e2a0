// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// TPC-H on SF 0.01 data loaded with COPY, against the reference answers:
/// the spine's queries (1, 3, 5, 6, 10) with every DISTSTYLE, and all 22 queries
/// at 1 and at 4 slices.
final class TPCHTests: XCTestCase {
    static let spineQueries = [1, 3, 5, 6, 10]

    func runQueries(_ p: TPCH.Placement, _ cluster: ClusterConfig, _ queries: [Int]) throws {
        let s = try TPCH.load(p, cluster: cluster)
        XCTAssertEqual(try s.execute("SELECT count(*) FROM lineitem")[0].textRows()[0][0], "60175")
        for q in queries {
            let results = try s.execute(try TPCH.query(q))
            guard let r = results.last else { return XCTFail("Q\(q) returned nothing") }
            try TPCH.check(r, answer: q)
        }
    }

    func testSpineKeyedOneSlice() throws { try runQueries(.keyed, ClusterConfig(nodes: 1, slicesPerNode: 1), Self.spineQueries) }
    func testSpineEvenFourSlices() throws { try runQueries(.even, ClusterConfig(nodes: 2, slicesPerNode: 2), Self.spineQueries) }
    func testSpineAllFourSlices() throws { try runQueries(.all, ClusterConfig(nodes: 2, slicesPerNode: 2), Self.spineQueries) }
    func testSpineAutoFourSlices() throws { try runQueries(.auto, ClusterConfig(nodes: 2, slicesPerNode: 2), Self.spineQueries) }

    func testAll22KeyedOneSlice() throws { try runQueries(.keyed, ClusterConfig(nodes: 1, slicesPerNode: 1), Array(1...22)) }
    func testAll22KeyedFourSlices() throws { try runQueries(.keyed, ClusterConfig(nodes: 2, slicesPerNode: 2), Array(1...22)) }
    /// 64 slices on this machine's cores (docs/SCALING.md): the same answers.
    func testAll22EvenSixtyFourSlices() throws {
        try runQueries(.even, ClusterConfig(nodes: 16, slicesPerNode: 4), Array(1...22))
    }

    /// On demand: SF 0.1 files in $SLICEHOUSE_TPCH_SF01 (e.g. `tpchgen-cli tbl -s 0.1 --output-dir DIR`).
    func testAll22ScaleFactor01() throws {
        guard let dir = ProcessInfo.processInfo.environment["SLICEHOUSE_TPCH_SF01"] else {
            throw XCTSkip("set SLICEHOUSE_TPCH_SF01 to a directory of SF 0.1 .tbl files to run this test")
        }
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        for ddl in TPCH.schema(.keyed) { _ = try s.execute(ddl) }
        for t in TPCH.tables { _ = try s.execute("COPY \(t) FROM '\(dir)/\(t).tbl'") }
        for q in 1...22 {
            let start = Date()
            let r = try s.execute(try TPCH.query(q))
            print(String(format: "SF0.1 Q%02d %.1f ms", q, Date().timeIntervalSince(start) * 1000))
            guard let last = r.last else { return XCTFail("Q\(q) returned nothing") }
            try TPCH.check(last, answer: q, scale: "sf0.1")
        }
    }

    /// Correlated subqueries become joins: the plans of Q2, Q17, Q20, Q21 and Q22 show
    /// joins and no per-row subquery.
    func testCorrelatedSubqueriesAreJoins() throws {
        let s = try TPCH.load(.keyed, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let expectations: [Int: [String]] = [
            2: ["Hash Join", "HashAggregate"],          // min(ps_supplycost) per part, joined back
            // 0.2 * avg(l_quantity) per part: a left join, inner since the WHERE rejects its NULLs
            17: ["Hash Join", "HashAggregate"],
            20: ["Hash IN Join", "Hash Join"],          // IN (IN (...)) and sum per (part, supplier)
            // EXISTS and NOT EXISTS, built on the (smaller) outer side, lineitem streams past it
            21: ["Hash Right Semi Join", "Hash Right Anti Join"],
            // NOT EXISTS against orders' distinct customer keys; avg(c_acctbal) as a one-row side
            22: ["Hash NOT IN Join", "HashAggregate", "Nested Loop"],
        ]
        for (q, needles) in expectations {
            let plan = try s.execute("EXPLAIN " + (try TPCH.query(q)))[0].textRows().map { $0[0] ?? "" }.joined(separator: "\n")
            for n in needles { XCTAssertTrue(plan.contains(n), "Q\(q) plan lacks \(n):\n\(plan)") }
            XCTAssertFalse(plan.contains("SubPlan"), "Q\(q)")
        }
    }
}
