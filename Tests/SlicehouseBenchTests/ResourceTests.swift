// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseBench

/// The texts the bench reads from the resource directory beside its binary are the
/// checkout's files (SwiftPM copies them at each build; `swift build` again when one differs).
final class ResourceTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func file(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    func testSchemaAndQueries() throws {
        XCTAssertEqual(TPCHText.schemaSQL, try file("datasets/tpch/schema.sql"), "rebuild")
        for n in 1...22 {
            XCTAssertEqual(TPCHText.query(n), try file(String(format: "datasets/tpch/queries/q%02d.sql", n)),
                           "Q\(n): rebuild")
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
                               "\(scale) Q\(n): rebuild")
            }
        }
        XCTAssertNil(TPCHText.answer(scale: "sf1", query: 1))
    }

    /// The directory is found beside the binary (here the test bundle's), in a directory an
    /// environment variable names, and not where there is none.
    func testTheDirectoryIsLocated() throws {
        let found = try XCTUnwrap(BenchResources.directory, "no \(BenchResources.bundleName) beside the test binary")
        XCTAssertEqual(found.lastPathComponent, "Resources")
        let checkout = Self.root.appendingPathComponent("Sources/SlicehouseBench")
        XCTAssertEqual(BenchResources.locate(environment: checkout.path, executable: nil)?.standardizedFileURL,
                       checkout.appendingPathComponent("Resources").standardizedFileURL)
        XCTAssertEqual(BenchResources.locate(environment: checkout.appendingPathComponent("Resources").path,
                                             executable: nil)?.standardizedFileURL,
                       checkout.appendingPathComponent("Resources").standardizedFileURL)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-resources-\(getpid())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        XCTAssertNil(BenchResources.locate(environment: empty.path,
                                           executable: empty.appendingPathComponent("slicehouse").path))
    }

    func testDuckDBScript() throws {
        XCTAssertEqual(TPCHText.duckDBScript, try file("benchmarks/duckdb_tpch.py"), "rebuild")
    }
}

/// The TPC-DS texts the bench reads are the checkout's files.
final class TPCDSResourceTests: XCTestCase {
    func file(_ path: String) throws -> String {
        try String(contentsOf: ResourceTests.root.appendingPathComponent(path), encoding: .utf8)
    }

    func testSchemaQueriesAndScript() throws {
        XCTAssertEqual(TPCDSText.schemaSQL, try file("benchmarks/tpcds/schema.sql"), "rebuild")
        for n in 1...99 {
            XCTAssertEqual(TPCDSText.query(n), try file(String(format: "benchmarks/tpcds/queries/q%02d.sql", n)),
                           "Q\(n): rebuild")
        }
        XCTAssertNil(TPCDSText.query(100))
        XCTAssertEqual(TPCDSText.duckDBScript, try file("benchmarks/duckdb_tpcds.py"), "rebuild")
        XCTAssertEqual(TPCDSText.schemaStatements.count, 24)
        XCTAssertEqual(Set(TPCDSText.tables).count, 24)
    }
}
