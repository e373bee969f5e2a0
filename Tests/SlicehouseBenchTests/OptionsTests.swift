// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
@testable import SlicehouseBench

final class OptionsTests: XCTestCase {
    func testParseQueries() throws {
        XCTAssertEqual(try TPCHBenchOptions.parseQueries("1,3,5"), [1, 3, 5])
        XCTAssertEqual(try TPCHBenchOptions.parseQueries("5, 1-3"), [5, 1, 2, 3])
        XCTAssertEqual(try TPCHBenchOptions.parseQueries("q2,Q02,2"), [2])
        XCTAssertEqual(try TPCHBenchOptions.parseQueries("Q1-Q3"), [1, 2, 3])
        XCTAssertEqual(try TPCHBenchOptions.parseQueries("all"), Array(1...22))
        XCTAssertEqual(try TPCHBenchOptions.parseQueries("1-22"), Array(1...22))
        for bad in ["0", "23", "x", "", ",", "3-1", "1-", "1-30"] {
            XCTAssertThrowsError(try TPCHBenchOptions.parseQueries(bad), bad)
        }
    }

    func testSlicesToCluster() {
        XCTAssertEqual(TPCHBenchOptions.cluster(slices: 1), ClusterConfig(nodes: 1, slicesPerNode: 1))
        XCTAssertEqual(TPCHBenchOptions.cluster(slices: 2), ClusterConfig(nodes: 1, slicesPerNode: 2))
        XCTAssertEqual(TPCHBenchOptions.cluster(slices: 4), ClusterConfig(nodes: 2, slicesPerNode: 2))
        XCTAssertEqual(TPCHBenchOptions.cluster(slices: 16), ClusterConfig(nodes: 8, slicesPerNode: 2))
        XCTAssertEqual(TPCHBenchOptions.cluster(slices: 3), ClusterConfig(nodes: 3, slicesPerNode: 1))
        XCTAssertEqual(TPCHBenchOptions.defaultSlices(cores: 1), 4)
        XCTAssertEqual(TPCHBenchOptions.defaultSlices(cores: 2), 4)
        XCTAssertEqual(TPCHBenchOptions.defaultSlices(cores: 7), 8)
        XCTAssertEqual(TPCHBenchOptions.defaultSlices(cores: 16), 16)
    }

    func testScaleNames() {
        XCTAssertEqual(TPCHBenchOptions.scaleName(1), "1")
        XCTAssertEqual(TPCHBenchOptions.scaleName(10), "10")
        XCTAssertEqual(TPCHBenchOptions.scaleName(0.1), "0.1")
        XCTAssertEqual(TPCHBenchOptions.scaleName(0.01), "0.01")
        XCTAssertTrue(TPCHBenchOptions.defaultDataDirectory(scaleFactor: 0.1).hasSuffix(".slicehouse/bench/tpch-sf0.1"))
        XCTAssertEqual(TPCHText.answerScale(for: 0.01), "sf0.01")
        XCTAssertEqual(TPCHText.answerScale(for: 0.1), "sf0.1")
        XCTAssertNil(TPCHText.answerScale(for: 1))
    }

    func testValidation() throws {
        var o = TPCHBenchOptions(scaleFactor: 0.01, dataDirectory: "/nonexistent")
        o.runs = 0
        XCTAssertThrowsError(try TPCHBenchmark(options: o).validate())
        o.runs = 1
        o.scaleFactor = 0
        XCTAssertThrowsError(try TPCHBenchmark(options: o).validate())
        o.scaleFactor = 0.01
        XCTAssertNoThrow(try TPCHBenchmark(options: o).validate())
        // --db must be missing or empty.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-validate-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        o.databaseDirectory = dir
        XCTAssertNoThrow(try TPCHBenchmark(options: o).validate())
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/x", contents: Data()))
        XCTAssertThrowsError(try TPCHBenchmark(options: o).validate()) { error in
            XCTAssertTrue("\(error)".contains("not empty"), "\(error)")
        }
    }

    func testSchemaStatements() {
        let statements = TPCHText.schemaStatements
        XCTAssertEqual(statements.count, 8)
        XCTAssertTrue(statements.allSatisfy { $0.hasPrefix("CREATE TABLE") && !$0.contains(";") && !$0.contains("--") })
        XCTAssertTrue(statements[7].contains("DISTKEY(l_orderkey) SORTKEY(l_shipdate)"))
        for n in 1...22 { XCTAssertNotNil(TPCHText.query(n), "Q\(n)") }
        XCTAssertNil(TPCHText.query(23))
    }
}
