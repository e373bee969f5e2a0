// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseSQLLogicTest

/// Runs every `.test` file under Tests/SlicehouseEngineTests/sql at 1 slice and at
/// 4 slices (2 nodes × 2 slices); both must give identical, expected results.
final class SQLLogicTestSuite: XCTestCase {
    static var sqlDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("sql").path
    }

    func run(cluster: ClusterConfig) throws {
        let (files, missing) = SQLLogicTestRunner.testFiles(in: [Self.sqlDirectory])
        XCTAssertTrue(missing.isEmpty)
        XCTAssertGreaterThan(files.count, 10, "the SQL test files were not found")
        let runner = SQLLogicTestRunner(cluster: cluster)
        var summary = SQLLogicTestSummary()
        for f in files { summary.add(runner.runFile(f)) }
        for failure in summary.failures { XCTFail(failure.detailedDescription) }
        XCTAssertGreaterThan(summary.passed, 100)
        print("sqllogictest at \(cluster.sliceCount) slice(s): \(summary.summaryLine)")
    }

    func testOneSlice() throws { try run(cluster: ClusterConfig(nodes: 1, slicesPerNode: 1)) }
    func testFourSlices() throws { try run(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)) }
}
