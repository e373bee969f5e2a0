// SPDX-License-Identifier: Apache-2.0
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import SlicehouseBench

/// A small hand-made report: three queries, DuckDB optional.
func sampleReport(withDuckDB: Bool = true, failQ3: Bool = false) -> TPCHBenchReport {
    let load = LoadFigures(tables: [TableLoad(table: "region", seconds: 0.001, rows: 5),
                                    TableLoad(table: "lineitem", seconds: 0.5, rows: 600_000)],
                           totalSeconds: 0.6, peakRSSBytes: 300_000_000)
    let sh = EngineFigures(
        engine: "Slicehouse", version: nil, threads: 2, load: load, sizeBytes: 40_000_000,
        memoryKind: "per-query peak RSS", peakRSSBytes: 400_000_000,
        queries: [
            QueryFigures(number: 1, seconds: [0.30, 0.10, 0.20], rows: 4, peakRSSBytes: 350_000_000, check: .pass("answers sf0.1")),
            QueryFigures(number: 2, seconds: [0.02, 0.04], rows: 100, peakRSSBytes: 320_000_000, check: .pass("answers sf0.1")),
            QueryFigures(number: 3, seconds: [0.05], rows: 10, peakRSSBytes: 310_000_000,
                         check: failQ3 ? .fail("answers sf0.1", "row 1 column revenue: got 1, want 2") : .pass("answers sf0.1")),
        ])
    let duck = EngineFigures(
        engine: "DuckDB", version: "1.5.6", threads: 2,
        load: LoadFigures(tables: [TableLoad(table: "region", seconds: 0.002), TableLoad(table: "lineitem", seconds: 1.0),
                                   TableLoad(table: "checkpoint", seconds: 0.1)],
                          totalSeconds: 1.2, peakRSSBytes: 500_000_000),
        sizeBytes: 20_000_000, memoryKind: "per-query peak (VmHWM)", peakRSSBytes: 600_000_000,
        queries: [
            QueryFigures(number: 1, seconds: [0.05, 0.05, 0.05], rows: 4, peakRSSBytes: 1, check: .pass("answers sf0.1")),
            QueryFigures(number: 2, seconds: [0.01, 0.01], rows: 100, peakRSSBytes: 1, check: .pass("answers sf0.1")),
            QueryFigures(number: 3, seconds: [], rows: 0, peakRSSBytes: 1, check: .error("Binder Error: <oops> & \"x\"")),
        ])
    return TPCHBenchReport(
        date: "2025-01-01T00:00:00Z", command: "slicehouse bench tpch --sf 0.1",
        environment: BenchEnvironment(os: "Linux", cpu: "Test CPU", cores: 2, memoryBytes: 1 << 30, build: "debug"),
        scaleFactor: 0.1, slices: 4, nodes: 2, slicesPerNode: 2, runs: 3, queries: [1, 2, 3],
        dataDirectory: "/tmp/tpch-sf0.1", generation: GenerationFigures(cached: true, seconds: 0, bytes: 1, rows: [:]),
        answerReference: "reference answers sf0.1", slicehouse: sh, duckdb: withDuckDB ? duck : nil)
}

final class ReportTests: XCTestCase {
    func testStats() {
        XCTAssertNil(Stats.median([]))
        XCTAssertEqual(Stats.median([3]), 3)
        XCTAssertEqual(Stats.median([3, 1, 2]), 2)
        XCTAssertEqual(Stats.median([4, 1, 3, 2]), 2.5)
        XCTAssertEqual(Stats.ratio(2, 4), 0.5)
        XCTAssertNil(Stats.ratio(1, 0))
        XCTAssertNil(Stats.ratio(0, 1))
        XCTAssertNil(Stats.ratio(.nan, 1))
        let q = QueryFigures(number: 1, seconds: [0.3, 0.1, 0.2], rows: 1, peakRSSBytes: 0, check: .unchecked)
        XCTAssertEqual(q.medianSeconds, 0.2)
        XCTAssertEqual(q.minSeconds, 0.1)
    }

    func testRatios() throws {
        let report = sampleReport()
        let ratios = try XCTUnwrap(report.ratios)
        XCTAssertEqual(try XCTUnwrap(ratios.query(1)), 4, accuracy: 1e-9)        // 0.2 / 0.05
        XCTAssertEqual(try XCTUnwrap(ratios.query(2)), 3, accuracy: 1e-9)        // 0.03 / 0.01
        XCTAssertNil(ratios.query(3))                                             // DuckDB failed Q3
        // Total over the queries both ran: (0.2 + 0.03) / (0.05 + 0.01).
        XCTAssertEqual(try XCTUnwrap(ratios.total), 0.23 / 0.06, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(ratios.load), 0.5, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(ratios.size), 2, accuracy: 1e-9)
        XCTAssertNil(sampleReport(withDuckDB: false).ratios)
        XCTAssertEqual(report.slicehouse.totalMedianSeconds, 0.28, accuracy: 1e-9)
    }

    func testJSONRoundTrip() throws {
        let report = sampleReport()
        let data = try report.json()
        let back = try JSONDecoder().decode(TPCHBenchReport.self, from: data)
        XCTAssertEqual(back.scaleFactor, 0.1)
        XCTAssertEqual(back.slicehouse.queries.map(\.number), [1, 2, 3])
        XCTAssertEqual(back.duckdb?.version, "1.5.6")
        XCTAssertEqual(back.ratios?.queries["1"] ?? 0, 4, accuracy: 1e-9)
        XCTAssertEqual(back.slicehouse.queries[0].check, .pass("answers sf0.1"))
        // Machine-readable fields are where a script expects them.
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["environment", "scaleFactor", "slices", "runs", "slicehouse", "duckdb", "ratios", "generation"] {
            XCTAssertNotNil(object[key], key)
        }
    }

    func testTextTable() {
        let text = ReportText.render(sampleReport())
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].contains("TPC-H SF 0.1"), lines[0])
        XCTAssertTrue(lines[0].contains("4 slices: 2 nodes × 2 slices per node"), lines[0])
        XCTAssertTrue(lines[0].contains("DuckDB 1.5.6"), lines[0])
        let q1 = try? XCTUnwrap(lines.first { $0.hasPrefix("Q01") })
        XCTAssertEqual(q1?.split(separator: " ").map(String.init),
                       ["Q01", "200.0", "100.0", "4", "350.0", "MB", "pass", "50.0", "50.0", "0.0", "MB", "4.00"])
        let q3 = lines.first { $0.hasPrefix("Q03") } ?? ""
        XCTAssertTrue(q3.hasSuffix("-"), q3)                        // no ratio without DuckDB's time
        let total = lines.first { $0.hasPrefix("total ") && $0.contains("3.83") } ?? ""
        XCTAssertTrue(total.contains("280.0"), total)              // sum of Slicehouse medians
        XCTAssertTrue(text.contains("checkpoint"))
        XCTAssertTrue(text.contains("answers: 3 of 3 passed against reference answers sf0.1"), text)
        XCTAssertTrue(text.contains("DuckDB Q03 ERROR"), text)

        let failing = ReportText.render(sampleReport(withDuckDB: false, failQ3: true))
        XCTAssertFalse(failing.contains("ratio"))
        XCTAssertTrue(failing.contains("2 of 3 passed against reference answers sf0.1, 1 FAILED"), failing)
        XCTAssertTrue(failing.contains("Q03 FAIL: row 1 column revenue: got 1, want 2"), failing)
        XCTAssertEqual(sampleReport(withDuckDB: false, failQ3: true).failedQueries, [3])
        XCTAssertEqual(sampleReport().failedQueries, [])
    }

    /// Cells wider than a column's usual width widen it: 4 rows in 10,112.2 MB used to
    /// print as `410112.2 MB`.
    func testTextTableStaysAlignedForWideCells() throws {
        var report = sampleReport()
        report.slicehouse.queries[0].peakRSSBytes = 10_112_200_000
        report.slicehouse.queries[1] = QueryFigures(number: 2, seconds: [1234.5], rows: 100, peakRSSBytes: 320_000_000,
                                                    check: .pass("answers sf0.1"))
        report.slicehouse.peakRSSBytes = 123_456_789_000
        let lines = ReportText.render(report).split(separator: "\n").map(String.init)
        let q1 = try XCTUnwrap(lines.first { $0.hasPrefix("Q01") })
        XCTAssertEqual(q1.split(separator: " ").map(String.init),
                       ["Q01", "200.0", "100.0", "4", "10112.2", "MB", "pass", "50.0", "50.0", "0.0", "MB", "4.00"])
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("query") })
        let q2 = try XCTUnwrap(lines.first { $0.hasPrefix("Q02") })
        let total = try XCTUnwrap(lines.first { $0.hasPrefix("total ") && $0.contains("123456.8 MB") })
        XCTAssertTrue(q2.contains(" 1234500 "), q2)
        // Every line of the table ends its columns at the same places as the header.
        for line in [q1, q2, total] {
            for word in ["median", "min", "rows", "memory"] {
                guard let r = header.range(of: " " + word) else { return XCTFail(word) }
                let end = header.distance(from: header.startIndex, to: r.upperBound)
                let index = line.index(line.startIndex, offsetBy: end - 1)
                XCTAssertNotEqual(line[index], " ", "\(word) column of \(line)")
                if end < line.count {
                    XCTAssertEqual(line[line.index(after: index)], " ", "\(word) column of \(line)")
                }
            }
        }
        let groups = try XCTUnwrap(lines.first { $0.contains(" Slicehouse -") })
        XCTAssertEqual(groups.count, header.count, groups)
    }

    func testChartIsWellFormedSVG() throws {
        for scale in [SVGChart.Scale.auto, .linear, .log] {
            let svg = SVGChart.render(sampleReport(), scale: scale)
            XCTAssertTrue(svg.hasPrefix("<?xml"))
            let parser = XMLParser(data: Data(svg.utf8))
            let counter = ElementCounter()
            parser.delegate = counter
            XCTAssertTrue(parser.parse(), "\(scale): \(parser.parserError.map { "\($0)" } ?? "")")
            XCTAssertEqual(counter.root, "svg")
            // Background, two legend swatches, then 2 + 2 + 1 bars (DuckDB has no Q3).
            XCTAssertEqual(counter.counts["rect"], 1 + 2 + 5, "\(scale)")
            XCTAssertEqual(counter.titles.filter { $0.hasPrefix("Q1 ") }.count, 2)
            XCTAssertTrue(counter.titles.contains("Q1 Slicehouse: 200.0 ms"), "\(counter.titles)")
            XCTAssertTrue(svg.contains(scale == .log ? "log scale" : "linear scale"), "\(scale)")
        }
        // Auto picks log when bars differ by more than 30 times.
        let wide = SVGChart.render(title: "t", queries: [1, 2], series: [
            SVGChart.Series(name: "a", color: "#000", values: [1: 1, 2: 1000])])
        XCTAssertTrue(wide.contains("log scale"))
        // Text is escaped.
        let escaped = SVGChart.render(title: "a < b & \"c\"", queries: [1], series: [
            SVGChart.Series(name: "x<y>", color: "#000", values: [1: 5])])
        XCTAssertTrue(escaped.contains("a &lt; b &amp; &quot;c&quot;"))
        XCTAssertTrue(escaped.contains("x&lt;y&gt;"))
        XCTAssertTrue(XMLParser(data: Data(escaped.utf8)).parse())
        // No values at all still gives a valid document.
        XCTAssertTrue(XMLParser(data: Data(SVGChart.render(title: "empty", queries: [], series: []).utf8)).parse())
    }

    func testChartHelpers() {
        XCTAssertEqual(SVGChart.niceStep(0.7), 1)
        XCTAssertEqual(SVGChart.niceStep(1.5), 2)
        XCTAssertEqual(SVGChart.niceStep(31), 50)
        XCTAssertEqual(SVGChart.niceStep(600), 1000)
        XCTAssertEqual(SVGChart.timeLabel(20), "20 ms")
        XCTAssertEqual(SVGChart.timeLabel(0.1), "0.1 ms")
        XCTAssertEqual(SVGChart.timeLabel(2000), "2 s")
        XCTAssertEqual(SVGChart.timeLabel(1234.5, precise: true), "1.23 s")
    }
}

final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var root: String?
    var titles: [String] = []
    private var inTitle = false
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if root == nil { root = name }
        counts[name, default: 0] += 1
        if name == "title" { inTitle = true; text = "" }
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { if inTitle { text += string } }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "title" { inTitle = false; titles.append(text) }
    }
}
