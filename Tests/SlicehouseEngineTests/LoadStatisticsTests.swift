// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution
import SlicehouseRuntime

/// The statistics COPY gathers as it loads (`Analyzer.LoadStatistics`): exact counts for
/// small loads, a sample and the Good–Turing estimate for big ones, and the sketch's
/// sampling at its edges.
final class LoadStatisticsTests: XCTestCase {

    /// `rows` values of `value(i)` in chunks of `chunk` rows, one column each.
    func load(_ rows: Int, chunk: Int = 50_000, _ value: (Int) -> Int64) throws -> Analyzer.ColumnPartial {
        let stats = Analyzer.LoadStatistics(columns: 1, context: QueryContext())
        var start = 0
        while start < rows {
            let n = min(chunk, rows - start)
            let v = Vector(type: .bigint, data: .int64((start..<start + n).map(value)))
            try stats.add([Chunk(columns: [v], count: n)])
            start += n
        }
        return stats.partials[0]
    }

    func strings(_ rows: Int, chunk: Int = 50_000, _ value: (Int) -> String) throws -> Analyzer.ColumnPartial {
        let stats = Analyzer.LoadStatistics(columns: 1, context: QueryContext())
        var start = 0
        while start < rows {
            let n = min(chunk, rows - start)
            let v = Vector(type: .varchar(20), data: .string(StringArray((start..<start + n).map(value))))
            try stats.add([Chunk(columns: [v], count: n)])
            start += n
        }
        return stats.partials[0]
    }

    func assertNear(_ got: Double, _ want: Double, within share: Double, _ what: String,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(abs(got - want), want * share, "\(what): \(got) against \(want)", file: file, line: line)
    }

    func testSmallLoadsAreCountedWhole() throws {
        let p = try load(1000) { Int64($0) }
        XCTAssertEqual(p.rows, 1000)
        XCTAssertEqual(p.sampled, 1000)
        assertNear(p.distinct, 1000, within: 0.02, "1,000 distinct values")
        XCTAssertEqual(p.low, 0)
        XCTAssertEqual(p.high, 999)
        let one = try load(1) { _ in 42 }
        XCTAssertEqual(one.distinct, 1)
        XCTAssertEqual(try load(0) { Int64($0) }.distinct, 0)
    }

    func testSampledKeyColumnScalesToItsRows() throws {
        let p = try load(400_000) { Int64($0) * 7 }
        XCTAssertLessThan(p.sampled, 200_000, "a big load is sampled")
        XCTAssertEqual(p.rows, 400_000)
        XCTAssertEqual(p.high, Double(399_999 * 7), "minimum and maximum see every row")
        assertNear(p.distinct, 400_000, within: 0.05, "a key")
        let names = try strings(300_000) { "customer#\($0)" }
        assertNear(names.distinct, 300_000, within: 0.05, "string keys")
    }

    func testSampledRepeatingColumnsStayNearTheirValues() throws {
        assertNear(try load(400_000) { Int64($0 % 7) }.distinct, 7, within: 0.15, "7 values")
        assertNear(try load(400_000) { Int64(($0 &* 2_654_435_761) % 20_000) }.distinct, 20_000, within: 0.1,
                   "20,000 values spread over the load")
        assertNear(try strings(300_000) { "mode \($0 % 5)" }.distinct, 5, within: 0.2, "5 strings")
    }

    /// Values repeated in runs (a line item's order key) are sampled every third row: the
    /// sample sees most of them once, so the estimate runs high, but within a small factor.
    func testClusteredRepeatsAreEstimatedWithinAFactor() throws {
        let p = try load(400_000) { Int64($0 / 4) }
        XCTAssertGreaterThan(p.distinct, 100_000 * 0.5)
        XCTAssertLessThan(p.distinct, 100_000 * 2.5)
    }

    func testNullsAreCountedAndNotSampled() throws {
        let stats = Analyzer.LoadStatistics(columns: 1, context: QueryContext())
        for c in 0..<4 {
            let n = 50_000
            var validity = Validity(allValid: n)
            for i in stride(from: 0, to: n, by: 2) { validity.setInvalid(i) }
            let v = Vector(type: .bigint, data: .int64((0..<n).map { Int64(c * n + $0) }), validity: validity)
            try stats.add([Chunk(columns: [v], count: n)])
        }
        let p = stats.partials[0]
        XCTAssertEqual(p.rows, 200_000)
        XCTAssertEqual(p.nulls, 100_000)
        assertNear(p.distinct, 100_000, within: 0.05, "the odd rows")
    }

    func testSketchSampleOffersEveryKthValue() {
        var sketch = DistinctSketch()
        let v = Vector(type: .bigint, data: .int64(Array(0..<10)))
        XCTAssertEqual(sketch.addSample(v, count: 10, every: 3), 4)     // rows 0, 3, 6, 9
        XCTAssertEqual(sketch.estimate.rounded(), 4)
        XCTAssertEqual(sketch.addSample(v, count: 0, every: 3), 0)
        XCTAssertEqual(sketch.addSample(v, count: 1, every: 5), 1)
        XCTAssertEqual(sketch.addSample(v, count: 10, every: 0), 10, "every is at least 1")
        var validity = Validity(allValid: 10)
        validity.setInvalid(3)
        let nulls = Vector(type: .bigint, data: .int64(Array(0..<10)), validity: validity)
        XCTAssertEqual(DistinctSketch().addingSample(nulls, count: 10, every: 3), 9, "with NULLs: every non-NULL value")
        let s = Vector(type: .varchar(4), data: .string(StringArray(["a", "b", "a", "c", "a"])))
        var strings = DistinctSketch()
        XCTAssertEqual(strings.addSample(s, count: 5, every: 2), 3)      // a, a, a
        XCTAssertEqual(strings.estimate.rounded(), 1)
    }

    func testEstimateAtItsEdges() {
        var p = Analyzer.ColumnPartial()
        XCTAssertEqual(p.distinct, 0, "nothing seen")
        p.rows = 100
        XCTAssertEqual(p.distinct, 0, "rows but no sample")
        p.nulls = 100
        XCTAssertEqual(p.distinct, 0, "every row NULL")
    }
}

private extension DistinctSketch {
    func addingSample(_ v: Vector, count: Int, every: Int) -> Int {
        var copy = self
        return copy.addSample(v, count: count, every: every)
    }
}
