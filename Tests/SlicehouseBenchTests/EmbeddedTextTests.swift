// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseBench

/// The texts carried in the binary are the checkout's files (regenerate with
/// `python3 benchmarks/embed_tpch.py`).
final class EmbeddedTextTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func file(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    func testSchemaAndQueries() throws {
        XCTAssertEqual(TPCHText.schemaSQL, try file("datasets/tpch/schema.sql"), "run python3 benchmarks/embed_tpch.py")
        for n in 1...22 {
            XCTAssertEqual(TPCHText.query(n), try file(String(format: "datasets/tpch/queries/q%02d.sql", n)),
                           "Q\(n): run python3 benchmarks/embed_tpch.py")
        }
    }

    func testAnswers() throws {
        let dirs = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("datasets/tpch/answers").path).filter { $0.hasPrefix("sf") }
        XCTAssertEqual(Set(dirs), Set(TPCHText.answerScales))
        for scale in TPCHText.answerScales {
            for n in 1...22 {
                XCTAssertEqual(TPCHText.answer(scale: scale, query: n),
                               try file(String(format: "datasets/tpch/answers/\(scale)/q%02d.csv", n)),
                               "\(scale) Q\(n): run python3 benchmarks/embed_tpch.py")
            }
        }
        XCTAssertNil(TPCHText.answer(scale: "sf1", query: 1))
    }

    func testDuckDBScript() throws {
        XCTAssertEqual(TPCHText.duckDBScript, try file("benchmarks/duckdb_tpch.py"), "run python3 benchmarks/embed_tpch.py")
    }
}

/// The TPC-DS texts carried in the binary are the checkout's files (regenerate with
/// `python3 benchmarks/embed_tpcds.py`).
final class TPCDSEmbeddedTextTests: XCTestCase {
    func file(_ path: String) throws -> String {
        try String(contentsOf: EmbeddedTextTests.root.appendingPathComponent(path), encoding: .utf8)
    }

    func testSchemaQueriesAndScript() throws {
        XCTAssertEqual(TPCDSText.schemaSQL, try file("benchmarks/tpcds/schema.sql"), "run python3 benchmarks/embed_tpcds.py")
        for n in 1...99 {
            XCTAssertEqual(TPCDSText.query(n), try file(String(format: "benchmarks/tpcds/queries/q%02d.sql", n)),
                           "Q\(n): run python3 benchmarks/embed_tpcds.py")
        }
        XCTAssertNil(TPCDSText.query(100))
        XCTAssertEqual(TPCDSText.duckDBScript, try file("benchmarks/duckdb_tpcds.py"), "run python3 benchmarks/embed_tpcds.py")
        XCTAssertEqual(TPCDSText.schemaStatements.count, 24)
        XCTAssertEqual(Set(TPCDSText.tables).count, 24)
    }
}
