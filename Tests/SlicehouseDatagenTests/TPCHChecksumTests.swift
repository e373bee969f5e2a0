// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseDatagen
import XCTest

/// Every table, byte for byte, against the SHA-256 of dbgen's output.
///
/// SF 0.01 runs always. SF 0.1 and SF 1 take longer (SF 1 is about 1 GB)
/// and run only with `SLICEHOUSE_SLOW_TESTS=1`.
final class TPCHChecksumTests: XCTestCase {
    func testScaleFactor0_01MatchesDbgen() throws {
        try checkAllTables(scaleFactor: 0.01, expected: ReferenceChecksums.sf0_01)
    }

    func testScaleFactor0_1MatchesDbgen() throws {
        try requireSlowTests()
        try checkAllTables(scaleFactor: 0.1, expected: ReferenceChecksums.sf0_1)
    }

    func testScaleFactor1MatchesDbgen() throws {
        try requireSlowTests()
        try checkAllTables(scaleFactor: 1, expected: ReferenceChecksums.sf1)
    }

    /// Row counts are known without generating (lineitem draws line counts only).
    func testRowCountsWithoutGenerating() throws {
        for (scaleFactor, expected) in [(0.01, ReferenceChecksums.sf0_01), (0.1, ReferenceChecksums.sf0_1),
                                        (1.0, ReferenceChecksums.sf1)] {
            let generator = TPCHGenerator(scaleFactor: scaleFactor)
            for entry in expected {
                XCTAssertEqual(try generator.rowCount(of: entry.table), entry.rows, "SF \(scaleFactor) \(entry.table)")
            }
        }
    }

    private func requireSlowTests() throws {
        guard ProcessInfo.processInfo.environment["SLICEHOUSE_SLOW_TESTS"] == "1" else {
            throw XCTSkip("slow test: set SLICEHOUSE_SLOW_TESTS=1 to check SF 0.1 and SF 1 against dbgen")
        }
    }

    private func checkAllTables(scaleFactor: Double, expected: [ReferenceChecksums.Entry]) throws {
        let generator = TPCHGenerator(scaleFactor: scaleFactor)
        XCTAssertEqual(expected.map(\.table), TPCHTable.allCases)
        for entry in expected {
            var hasher = SHA256()
            var rows: Int64 = 0
            try generator.generate(entry.table) { bytes, chunkRows in
                hasher.update(bytes)
                rows += Int64(chunkRows)
            }
            XCTAssertEqual(hasher.finalizeHex(), entry.sha256, "SF \(scaleFactor) \(entry.table).tbl differs from dbgen")
            XCTAssertEqual(rows, entry.rows, "SF \(scaleFactor) \(entry.table) rows")
        }
    }
}
