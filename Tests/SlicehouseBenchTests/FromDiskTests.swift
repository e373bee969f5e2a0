// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes
@testable import SlicehouseBench

/// `bench tpch --from-disk` (a fresh process per run) and `--scale-from` (the growth table).
final class FromDiskTests: XCTestCase {
    /// The same sample at a ten times larger scale factor, each time multiplied by `growth`.
    func scaled(_ report: TPCHBenchReport, by growth: [Int: Double], duckGrowth: Double = 10) -> TPCHBenchReport {
        var later = report
        later.scaleFactor = report.scaleFactor * 10
        later.command = "later"
        for i in later.slicehouse.queries.indices {
            let n = later.slicehouse.queries[i].number
            let q = later.slicehouse.queries[i]
            later.slicehouse.queries[i] = QueryFigures(number: n, seconds: q.seconds.map { $0 * (growth[n] ?? 1) },
                                                       rows: q.rows, peakRSSBytes: q.peakRSSBytes, check: q.check)
        }
        if let duck = later.duckdb {
            later.duckdb?.queries = duck.queries.map {
                QueryFigures(number: $0.number, seconds: $0.seconds.map { $0 * duckGrowth }, rows: $0.rows,
                             peakRSSBytes: $0.peakRSSBytes, check: $0.check)
            }
        }
        return later
    }

    func testScalingFiguresPerQuery() throws {
        let earlier = sampleReport()
        let later = scaled(earlier, by: [1: 12, 2: 8, 3: 10])
        let scaling = try XCTUnwrap(ScalingFigures(from: earlier, to: later))
        XCTAssertEqual(scaling.workGrowth, 10, accuracy: 1e-9)
        XCTAssertEqual(scaling.queries.map(\.number), [1, 2, 3])
        XCTAssertEqual(try XCTUnwrap(scaling.queries[0].growth), 12, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(scaling.queries[1].growth), 8, accuracy: 1e-9)
        XCTAssertEqual(scaling.queries[0].fromSeconds, 0.2, accuracy: 1e-12)
        XCTAssertEqual(scaling.queries[0].toSeconds, 2.4, accuracy: 1e-12)
        XCTAssertEqual(scaling.superlinear, [1])
        // Q3 failed on DuckDB: no DuckDB growth for it, and none in total.
        XCTAssertEqual(try XCTUnwrap(scaling.queries[0].duckdbGrowth), 10, accuracy: 1e-9)
        XCTAssertNil(scaling.queries[2].duckdbGrowth)
        XCTAssertNil(scaling.duckdbTotalGrowth)
        // (0.2·12 + 0.03·8 + 0.05·10) / (0.2 + 0.03 + 0.05)
        XCTAssertEqual(try XCTUnwrap(scaling.totalGrowth), (2.4 + 0.24 + 0.5) / 0.28, accuracy: 1e-9)

        // Not a smaller scale factor, or another benchmark: no table.
        XCTAssertNil(ScalingFigures(from: later, to: earlier))
        XCTAssertNil(ScalingFigures(from: earlier, to: earlier))
        var tpcds = later
        tpcds.benchmark = "tpcds"
        XCTAssertNil(ScalingFigures(from: earlier, to: tpcds))
        // A query that errored at either scale is left out.
        var broken = later
        broken.slicehouse.queries[1].check = .error("boom")
        XCTAssertEqual(ScalingFigures(from: earlier, to: broken)?.queries.map(\.number), [1, 3])
    }

    func testScalingTableText() throws {
        let earlier = sampleReport(withDuckDB: false)
        var later = scaled(earlier, by: [1: 12, 2: 8, 3: 10])
        later.scaling = ScalingFigures(from: earlier, to: later)
        let text = ReportText.render(later)
        let lines = text.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("scaling SF 0.1 → SF 1 (the work grows 10.00×") })
        XCTAssertEqual(lines[header + 1].split(separator: " "), ["query", "SF", "0.1", "SF", "1", "growth"])
        XCTAssertEqual(lines[header + 2].split(separator: " "), ["Q01", "200.0", "2400.0", "12.00*"])
        XCTAssertEqual(lines[header + 3].split(separator: " "), ["Q02", "30.0", "240.0", "8.00"])
        XCTAssertEqual(lines[header + 5].split(separator: " ").first, "total")
        XCTAssertEqual(lines[header + 6], "* grew more than the work: Q01")
        // The JSON report carries it.
        let decoded = try JSONDecoder().decode(TPCHBenchReport.self, from: try later.json())
        XCTAssertEqual(decoded.scaling?.superlinear, [1])
        XCTAssertEqual(decoded.scaling?.fromCommand, earlier.command)
        // A report written before these fields existed still reads.
        var old = try JSONSerialization.jsonObject(with: try earlier.json()) as? [String: Any] ?? [:]
        old["scaling"] = nil
        old["fromDisk"] = nil
        let reread = try JSONDecoder().decode(TPCHBenchReport.self, from: try JSONSerialization.data(withJSONObject: old))
        XCTAssertNil(reread.scaling)
        XCTAssertNil(reread.fromDisk)
    }

    /// `--scale-db`: the growth from runs that alternated, with each run pair's spread.
    func testInterleavedScalingFigures() throws {
        func q(_ n: Int, _ seconds: [Double], cpu: [Double]? = nil, error: String? = nil) -> QueryFigures {
            var f = QueryFigures(number: n, seconds: seconds, rows: 1, peakRSSBytes: 1, check: error.map { .error($0) } ?? .pass("x"))
            f.cpuSeconds = cpu
            return f
        }
        let smaller = [q(1, [0.10, 0.12, 0.20], cpu: [0.15, 0.16, 0.30]), q(2, [0.05, 0.05, 0.05]), q(3, [], error: "boom"),
                       q(5, [0.01])]
        let larger = [q(1, [1.10, 1.08, 1.60], cpu: [1.9, 2.0, 2.4]), q(2, [0.45, 0.55, 0.50], cpu: [0.9, 0.9, 0.9]),
                      q(3, [0.3]), q(4, [0.2]), q(5, [0.2], error: "x")]
        let scaling = try XCTUnwrap(ScalingFigures(interleaved: smaller, at: 1, in: "/db1", with: larger, at: 10))
        XCTAssertEqual(scaling.interleaved, true)
        XCTAssertEqual(scaling.fromCommand, "runs alternating with these over /db1")
        // Q3 failed at the smaller scale, Q4 did not run there, Q5 failed at the larger: left out.
        XCTAssertEqual(scaling.queries.map(\.number), [1, 2])
        let q1 = scaling.queries[0]
        XCTAssertEqual(try XCTUnwrap(q1.growth), 1.10 / 0.12, accuracy: 1e-9)  // median over median
        XCTAssertEqual(try XCTUnwrap(q1.lowestPairGrowth), 1.60 / 0.20, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(q1.highestPairGrowth), 1.10 / 0.10, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(scaling.queries[1].lowestPairGrowth), 9, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(scaling.queries[1].highestPairGrowth), 11, accuracy: 1e-9)
        XCTAssertNil(q1.duckdbGrowth)
        XCTAssertEqual(try XCTUnwrap(q1.cpuGrowth), 2.0 / 0.16, accuracy: 1e-9)  // median over median
        XCTAssertNil(scaling.queries[1].cpuGrowth)  // no CPU times at SF 1
        XCTAssertEqual(try XCTUnwrap(scaling.totalGrowth), (1.10 + 0.50) / (0.12 + 0.05), accuracy: 1e-9)
        XCTAssertEqual(scaling.superlinear, [])
        // Not a larger scale factor, or nothing timed at both: no table.
        XCTAssertNil(ScalingFigures(interleaved: smaller, at: 10, in: "/db1", with: larger, at: 10))
        XCTAssertNil(ScalingFigures(interleaved: [q(3, [], error: "boom")], at: 1, in: "/db1", with: larger, at: 10))

        // The text table gains the pairs' spread, the footnote says what it is.
        var report = sampleReport(withDuckDB: false)
        report.scaleFactor = 10
        report.scaling = scaling
        let lines = ReportText.render(report).split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.firstIndex {
            $0.hasPrefix("scaling SF 1 → SF 10 (the work grows 10.00×; medians in ms, SF 1 from: runs alternating with these over /db1)")
        })
        XCTAssertEqual(lines[header + 1].split(separator: " "),
                       ["query", "SF", "1", "SF", "10", "growth", "run", "pairs", "CPU", "growth"])
        XCTAssertEqual(lines[header + 2].split(separator: " "), ["Q01", "120.0", "1100.0", "9.17", "8.00–11.00", "12.50"])
        XCTAssertEqual(lines[header + 3].split(separator: " "), ["Q02", "50.0", "500.0", "10.00", "9.00–11.00", "-"])
        XCTAssertEqual(lines[header + 4].split(separator: " ").first, "total")
        XCTAssertEqual(lines[header + 5], "no query grew more than the work")
        XCTAssertTrue(lines[header + 6].hasPrefix("growth = median over median; run pairs: the lowest and highest growth"))
        XCTAssertTrue(lines[header + 7].hasPrefix("CPU growth = the medians of the runs' CPU seconds"))
        let decoded = try JSONDecoder().decode(TPCHBenchReport.self, from: try report.json())
        XCTAssertEqual(decoded.scaling?.interleaved, true)
        XCTAssertEqual(decoded.scaling?.queries.first?.highestPairGrowth ?? 0, 11, accuracy: 1e-9)
        XCTAssertEqual(decoded.scaling?.queries.first?.cpuGrowth ?? 0, 12.5, accuracy: 1e-9)
    }

    /// `--scale-db` names a smaller scale factor's loaded database, and runs from disk.
    func testTheSmallerDatabaseIsChecked() throws {
        let dir = EndToEndTests.scratch("scale-db")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var options = TPCHBenchOptions(scaleFactor: 1, dataDirectory: dir + "/data")
        options.fromDisk = true
        options.executable = "/bin/false"
        options.scaleDatabaseDirectory = dir
        func refusal() -> String {
            do { try TPCHBenchmark(options: options).validate() } catch { return "\(error)" }
            return "accepted"
        }
        XCTAssertTrue(refusal().contains("holds no database a bench run loaded"), refusal())
        let marker = LoadedDatabaseMarker(scaleFactor: 1, nodes: 2, slicesPerNode: 2,
                                          load: LoadFigures(tables: [], totalSeconds: 1, peakRSSBytes: 1), sizeBytes: 5)
        try marker.write(directory: dir)
        XCTAssertTrue(refusal().contains("was loaded at SF 1: it must be a scale factor below 1"), refusal())
        options.scaleFactor = 10
        XCTAssertEqual(refusal(), "accepted")
        XCTAssertEqual(try TPCHBenchmark(options: options).smallerDatabase()?.scaleFactor, 1)
        options.fromDisk = false
        XCTAssertTrue(refusal().contains("--scale-db needs --from-disk"), refusal())
    }

    func testCheckTypesCrossTheProcessBoundary() {
        XCTAssertEqual(CheckType.code(of: .decimal(precision: 15, scale: 2)), "decimal:2")
        XCTAssertEqual(CheckType.type(of: "decimal:2"), .decimal(precision: 38, scale: 2))
        XCTAssertEqual(CheckType.type(of: CheckType.code(of: .double)), .double)
        XCTAssertEqual(CheckType.type(of: CheckType.code(of: .integer)), .bigint)
        XCTAssertEqual(CheckType.type(of: CheckType.code(of: .char(25))), .varchar(DataType.maxVarcharLength))
        XCTAssertEqual(CheckType.code(of: .date), "other")
        // Nonsense compares as exact text.
        XCTAssertEqual(CheckType.type(of: "decimal:99"), .date)
        XCTAssertEqual(CheckType.type(of: "?"), .date)
        // A decimal answer within the last place passes as it would in-process; text is trimmed.
        let run = FreshProcessRun(seconds: 0.5, rows: 1, peakRSSBytes: 1 << 20, spilledBytes: 0,
                                  columns: ["revenue", "name"], checkTypes: ["decimal:2", "text"],
                                  result: [["10.004", "abc   "]])
        let back = try? JSONDecoder().decode(FreshProcessRun.self, from: Data(run.jsonLine().utf8))
        XCTAssertEqual(back, run)
        XCTAssertFalse(run.jsonLine().contains("\n"))
        let check = AnswerChecker.compare(run.resultText,
                                          with: ResultText(columns: ["revenue", "name"], rows: [["10.00", "abc"]]),
                                          reference: "x")
        XCTAssertEqual(check.status, .pass, check.detail ?? "")
    }

    /// A query run in this process over a closed data directory, as the child does it.
    func testOneRunOverADataDirectory() throws {
        let dir = EndToEndTests.scratch("fresh-run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let db = try Database(directory: dir)
            let s = db.connect()
            for ddl in TPCHText.schemaStatements { _ = try s.execute(ddl) }
            _ = try s.execute("insert into region values (0, 'AFRICA', 'x'), (1, 'AMERICA', 'y')")
        }
        let missing = FreshProcessRun.run(query: 23, directory: dir, memoryBytes: nil, cacheBytes: nil)
        XCTAssertEqual(missing.error, "query 23 does not exist")
        // Q6 over empty lineitem: one row, a NULL revenue.
        let q6 = FreshProcessRun.run(query: 6, directory: dir, memoryBytes: 64 << 20, cacheBytes: 1 << 20)
        XCTAssertNil(q6.error)
        XCTAssertEqual(q6.rows, 1)
        XCTAssertEqual(q6.columns, ["revenue"])
        XCTAssertEqual(q6.result, [[nil]])
        XCTAssertGreaterThan(q6.peakRSSBytes, 0)
        // The child measures the process's CPU seconds around the query.
        let cpu = try XCTUnwrap(q6.cpuSeconds)
        XCTAssertTrue(cpu >= 0 && cpu < 60, "\(cpu)")
        // And the time it took to open the directory, before the query (and across the
        // process boundary).
        let open = try XCTUnwrap(q6.openSeconds)
        XCTAssertTrue(open > 0 && open < 60, "\(open)")
        let crossed = try JSONDecoder().decode(FreshProcessRun.self, from: Data(q6.jsonLine().utf8))
        XCTAssertEqual(crossed.openSeconds, q6.openSeconds)
        // A directory in use by another open database is refused with a message.
        let holder = try Database(directory: dir)
        let busy = FreshProcessRun.run(query: 6, directory: dir, memoryBytes: nil, cacheBytes: nil)
        XCTAssertTrue(busy.error?.contains("in use") == true, busy.error ?? "")
        _ = holder
    }

    /// Under --from-disk a kept --db directory that an earlier run loaded is used as it is;
    /// otherwise a non-empty --db is still refused.
    func testALoadedDatabaseIsReusedOnlyFromDisk() throws {
        let dir = EndToEndTests.scratch("reuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dir + "/manifest.json", contents: Data("{}".utf8))
        var options = TPCHBenchOptions(scaleFactor: 0.01, dataDirectory: dir + "/data")
        options.databaseDirectory = dir
        options.fromDisk = true
        options.executable = "/bin/false"
        XCTAssertThrowsError(try TPCHBenchmark(options: options).validate())
        let marker = LoadedDatabaseMarker(scaleFactor: 0.01, nodes: 3, slicesPerNode: 1,
                                          load: LoadFigures(tables: [], totalSeconds: 1, peakRSSBytes: 1), sizeBytes: 5)
        try marker.write(directory: dir)
        XCTAssertNoThrow(try TPCHBenchmark(options: options).validate())
        XCTAssertEqual(TPCHBenchmark(options: options).reusableDatabase?.nodes, 3)
        // Another scale factor, or not from disk: refused.
        options.scaleFactor = 0.1
        XCTAssertThrowsError(try TPCHBenchmark(options: options).validate())
        options.scaleFactor = 0.01
        options.fromDisk = false
        XCTAssertThrowsError(try TPCHBenchmark(options: options).validate())
        // From disk needs the binary.
        options.fromDisk = true
        options.executable = nil
        XCTAssertThrowsError(try TPCHBenchmark(options: options).validate())
    }

    /// A child that cannot start, or ends without its line, is an error naming why.
    func testALauncherFailureIsReported() {
        let missing = FreshProcessLauncher(executable: "/nonexistent/slicehouse", directory: "/tmp").run(query: 1)
        XCTAssertTrue(missing.error?.hasPrefix("could not start /nonexistent/slicehouse") == true, missing.error ?? "")
        let silent = FreshProcessLauncher(executable: "/bin/false", directory: "/tmp").run(query: 1)
        XCTAssertEqual(silent.error, "the query's process ended without an answer (exit status 1)")
    }
}
