// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
@testable import SlicehouseBench

/// The whole bench at SF 0.01: generate, COPY into a data directory, the 22 queries
/// (warm-up + 1 run), every answer checked against datasets/tpch/answers/sf0.01.
final class EndToEndTests: XCTestCase {
    static func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-bench-test-\(name)-\(getpid())").path
    }

    func testSF001AllAnswersPass() throws {
        let data = Self.scratch("data"), db = Self.scratch("db")
        defer {
            try? FileManager.default.removeItem(atPath: data)
            try? FileManager.default.removeItem(atPath: db)
        }
        var options = TPCHBenchOptions(scaleFactor: 0.01, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2),
                                       dataDirectory: data)
        options.runs = 1
        options.databaseDirectory = db
        options.compareDuckDB = false
        var steps: [String] = []
        var progressed = false
        let report = try TPCHBenchmark(options: options).run(command: "test") { event in
            switch event {
            case .step(let s): steps.append(s)
            case .progress, .datagen: progressed = true
            }
        }
        XCTAssertTrue(progressed)
        XCTAssertTrue(steps.contains { $0.hasPrefix("generating TPC-H SF 0.01") }, "\(steps)")
        XCTAssertFalse(report.generation.cached)
        XCTAssertEqual(report.generation.rows["lineitem"], 60175)
        XCTAssertEqual(report.answerReference, "reference answers sf0.01")
        XCTAssertEqual(report.slicehouse.queries.map(\.number), Array(1...22))
        for q in report.slicehouse.queries {
            XCTAssertEqual(q.check.status, .pass, "Q\(q.number): \(q.check.detail ?? "")")
            XCTAssertEqual(q.seconds.count, 1)
            XCTAssertGreaterThan(q.peakRSSBytes, 0)
        }
        XCTAssertEqual(report.failedQueries, [])
        XCTAssertEqual(report.slicehouse.query(1)?.rows, 4)
        XCTAssertEqual(report.slicehouse.load.tables.map(\.table), TPCHText.tables)
        XCTAssertEqual(report.slicehouse.load.tables.last?.rows, 60175)
        XCTAssertGreaterThan(report.slicehouse.sizeBytes, 100_000)
        XCTAssertNil(report.duckdb)
        XCTAssertNil(report.ratios)
        // --db is kept, and holds the loaded database.
        XCTAssertTrue(FileManager.default.fileExists(atPath: db + "/manifest.json"))
        let text = ReportText.render(report)
        XCTAssertTrue(text.contains("answers: 22 of 22 passed"), text)

        // A second run uses the cached data and refuses the now non-empty --db.
        XCTAssertThrowsError(try TPCHBenchmark(options: options).run(command: "test"))
        options.databaseDirectory = nil
        options.queries = [6]
        let again = try TPCHBenchmark(options: options).run(command: "test")
        XCTAssertTrue(again.generation.cached)
        XCTAssertEqual(again.slicehouse.query(6)?.check.status, .pass)
    }
}

final class DataCacheTests: XCTestCase {
    /// A marker that no longer matches the files (or another scale factor) means generating again.
    func testMarkerValidation() throws {
        let dir = EndToEndTests.scratch("cache")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try TPCHDataCache.prepare(scaleFactor: 0.0001, directory: dir)
        XCTAssertFalse(first.cached)
        XCTAssertEqual(first.rows["nation"], 25)
        XCTAssertTrue(try TPCHDataCache.prepare(scaleFactor: 0.0001, directory: dir).cached)
        XCTAssertNil(TPCHDataCache.validMarker(scaleFactor: 0.001, directory: dir))
        // A truncated file invalidates the cache.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/orders.tbl"))
        try handle.truncate(atOffset: 10)
        try handle.close()
        XCTAssertNil(TPCHDataCache.validMarker(scaleFactor: 0.0001, directory: dir))
        var generated = false
        let again = try TPCHDataCache.prepare(scaleFactor: 0.0001, directory: dir, beforeGenerating: { generated = true })
        XCTAssertTrue(generated)
        XCTAssertFalse(again.cached)
        XCTAssertEqual(again.rows, first.rows)
    }
}

final class DuckDBRunnerTests: XCTestCase {
    func testMissingPythonIsExplained() {
        let runner = DuckDBRunner(python: "python3-that-does-not-exist")
        guard case .failure(let e) = runner.probe() else { return XCTFail("probe succeeded") }
        XCTAssertTrue(e.description.contains("pip install duckdb"), e.description)
    }

    /// The embedded helper on SF 0.01, when DuckDB is installed: it loads, runs, and its
    /// answers match the reference.
    func testDuckDBHelper() throws {
        let runner = DuckDBRunner()
        guard case .success(let version) = runner.probe() else { throw XCTSkip("DuckDB is not installed (pip install duckdb)") }
        let data = EndToEndTests.scratch("duck-data"), work = EndToEndTests.scratch("duck-work")
        defer {
            try? FileManager.default.removeItem(atPath: data)
            try? FileManager.default.removeItem(atPath: work)
        }
        _ = try TPCHDataCache.prepare(scaleFactor: 0.01, directory: data)
        let out = try runner.run(dataDirectory: data, workDirectory: work, threads: 2, runs: 2, warmup: true,
                                 queries: [1, 13, 15].compactMap { n in TPCHText.query(n).map { (n, $0) } })
        XCTAssertEqual(out.version, version)
        XCTAssertEqual(out.threads, 2)
        XCTAssertEqual(Set(out.loadSeconds.keys), Set(TPCHText.tables + ["checkpoint"]))
        XCTAssertGreaterThan(out.sizeBytes, 0)
        let figures = TPCHBenchmark.figures(out)
        XCTAssertEqual(figures.load.tables.last?.table, "checkpoint")
        for q in out.queries {
            XCTAssertNil(q.error)
            XCTAssertEqual(q.seconds.count, 2)
            let check = TPCHBenchmark.checkAgainstReference(ResultText(columns: q.columns, rows: q.result),
                                                            scale: "sf0.01", query: q.number)
            XCTAssertEqual(check.status, .pass, "Q\(q.number): \(check.detail ?? "")")
        }
    }
}
