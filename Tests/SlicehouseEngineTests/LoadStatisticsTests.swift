// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution
import SlicehouseRuntime

/// The statistics COPY gathers as it loads (`Analyzer.LoadStatistics`): NULLs, range and
/// a distinct-value sketch of every value, as ANALYZE counts them; the sketch's fast paths.
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
        assertNear(p.distinct, 1000, within: 0.02, "1,000 distinct values")
        XCTAssertEqual(p.low, 0)
        XCTAssertEqual(p.high, 999)
        // 128-bit values (a wide DECIMAL): their range is counted too.
        let wide = Analyzer.LoadStatistics(columns: 1, context: QueryContext())
        try wide.add([Chunk(columns: [Vector(type: .decimal(precision: 30, scale: 2), data: .int128([5, -3, 7]))], count: 3)])
        XCTAssertEqual(wide.partials[0].low, -3)
        XCTAssertEqual(wide.partials[0].high, 7)
        XCTAssertEqual(wide.partials[0].distinct, 3)
        let one = try load(1) { _ in 42 }
        XCTAssertEqual(one.distinct, 1)
        XCTAssertEqual(try load(0) { Int64($0) }.distinct, 0)
    }

    /// Every value of a big load is offered to the sketch: its estimate is the one ANALYZE
    /// makes of the same values, whatever their pattern.
    func testBigLoadsOfferEveryValue() throws {
        let p = try load(400_000) { Int64($0) * 7 }
        XCTAssertEqual(p.rows, 400_000)
        XCTAssertEqual(p.high, Double(399_999 * 7), "minimum and maximum see every row")
        assertNear(p.distinct, 400_000, within: 0.03, "a key")
        let names = try strings(300_000) { "customer#\($0)" }
        assertNear(names.distinct, 300_000, within: 0.03, "string keys")
        assertNear(try load(400_000) { Int64($0 % 7) }.distinct, 7, within: 0, "7 values")
        assertNear(try load(400_000) { Int64(($0 &* 2_654_435_761) % 20_000) }.distinct, 20_000, within: 0.03,
                   "20,000 values spread over the load")
        assertNear(try strings(300_000) { "mode \($0 % 5)" }.distinct, 5, within: 0, "5 strings")
        // Values repeated in runs (a line item's order key): a sample would see most once.
        assertNear(try load(400_000) { Int64($0 / 4) }.distinct, 100_000, within: 0.03, "runs of four")
        // The same values, offered in any chunking, make the same sketch as ANALYZE's.
        var whole = Analyzer.ColumnPartial()
        whole.add(Vector(type: .bigint, data: .int64((0..<400_000).map { Int64($0 / 4) })), count: 400_000)
        XCTAssertEqual(try load(400_000, chunk: 4_096) { Int64($0 / 4) }.distinct, whole.distinct)
    }

    func testNullsAreCountedAndNotOffered() throws {
        let stats = Analyzer.LoadStatistics(columns: 2, context: QueryContext())
        for c in 0..<4 {
            let n = 50_000
            var validity = Validity(allValid: n)
            for i in stride(from: 0, to: n, by: 2) { validity.setInvalid(i) }
            // NULL rows hold values outside the others' range: they must count for nothing.
            let ints = (0..<n).map { $0 % 2 == 0 ? Int64(-1_000_000 - $0) : Int64(c * n + $0) }
            let v = Vector(type: .bigint, data: .int64(ints), validity: validity)
            let s = Vector(type: .varchar(20), data: .string(StringArray((0..<n).map { $0 % 2 == 0 ? "null \($0)" : "v\(c * n + $0)" })),
                           validity: validity)
            try stats.add([Chunk(columns: [v, s], count: n)])
        }
        let p = stats.partials[0]
        XCTAssertEqual(p.rows, 200_000)
        XCTAssertEqual(p.nulls, 100_000)
        XCTAssertEqual(p.low, 1)
        XCTAssertEqual(p.high, 199_999)
        assertNear(p.distinct, 100_000, within: 0.03, "the odd rows")
        XCTAssertEqual(stats.partials[1].nulls, 100_000)
        assertNear(stats.partials[1].distinct, 100_000, within: 0.03, "the odd rows' strings")
        // Every row NULL: no range, nothing distinct.
        let none = Analyzer.LoadStatistics(columns: 1, context: QueryContext())
        try none.add([Chunk(columns: [Vector(type: .bigint, data: .int64([5, 6, 7]), validity: Validity(allNull: 3))], count: 3)])
        XCTAssertNil(none.partials[0].low)
        XCTAssertEqual(none.partials[0].nulls, 3)
        XCTAssertEqual(none.partials[0].distinct, 0)
    }

    /// The sketch's fast paths (64-bit, 128-bit, strings, narrow ranges marked in a bitmap)
    /// skip NULL rows whatever they hold, and make the sketch the values alone make.
    func testSketchFastPathsSkipNullsAndAgree() {
        func sketch(_ vectors: [Vector]) -> Double {
            var s = DistinctSketch()
            for v in vectors { s.add(v, count: v.count) }
            return s.estimate
        }
        let n = 20_000
        var validity = Validity(allValid: n)
        for i in stride(from: 0, to: n, by: 3) { validity.setInvalid(i) }
        let valid = (0..<n).filter { $0 % 3 != 0 }
        // Each kind: its values with NULLs in every third row (holding other values), and
        // the non-NULL values alone.
        let ints: (Int) -> Int64 = { Int64($0 * 13) }
        let narrow: (Int) -> Int64 = { Int64($0 % 997) - 500 }
        let wide: (Int) -> Int128 = { Int128($0) << 70 }
        let text: (Int) -> String = { "value \($0 % 5_000)" }
        let short: (Int) -> String = { "v\($0 % 7)" }
        func pair(_ f: @escaping (Int) -> Int64, null: Int64) -> (Vector, Vector) {
            (Vector(type: .bigint, data: .int64((0..<n).map { $0 % 3 == 0 ? null : f($0) }), validity: validity),
             Vector(type: .bigint, data: .int64(valid.map(f))))
        }
        func pair(_ f: @escaping (Int) -> String) -> (Vector, Vector) {
            (Vector(type: .varchar(20), data: .string(StringArray((0..<n).map { $0 % 3 == 0 ? "NULL row" : f($0) })), validity: validity),
             Vector(type: .varchar(20), data: .string(StringArray(valid.map(f)))))
        }
        let pairs: [(String, Vector, Vector)] = [
            ("64-bit", pair(ints, null: 1).0, pair(ints, null: 1).1),
            ("narrow, NULLs far outside", pair(narrow, null: .min).0, pair(narrow, null: .min).1),
            ("narrow, NULLs inside", pair(narrow, null: 600).0, pair(narrow, null: 600).1),
            ("128-bit", Vector(type: .decimal(precision: 30, scale: 2), data: .int128((0..<n).map { $0 % 3 == 0 ? 7 : wide($0) }), validity: validity),
             Vector(type: .decimal(precision: 30, scale: 2), data: .int128(valid.map(wide)))),
            ("strings", pair(text).0, pair(text).1),
            ("short strings", pair(short).0, pair(short).1),
        ]
        for (what, withNulls, alone) in pairs {
            XCTAssertEqual(sketch([withNulls]), sketch([alone]), what)
        }
        // A narrow range marked in a bitmap (span within 4× the rows) makes the sketch of
        // its values hashed one by one (each vector's span beyond 4× its rows).
        let repeated = Vector(type: .bigint, data: .int64((0..<n).map { Int64($0 % 1_000) }))
        let spread = stride(from: 0, to: 1_000, by: 100).map { start in
            Vector(type: .bigint, data: .int64((start..<start + 100).map { Int64(($0 * 7) % 1_000) }))
        }
        XCTAssertEqual(sketch([repeated]), sketch(spread))
        assertNear(sketch([repeated]), 1_000, within: 0.02, "1,000 values")
        // Short strings already offered are not hashed again (a memo of their bytes): values
        // of every length up to 20 that differ in one byte anywhere, repeated and
        // shuffled, make the sketch of each value offered once.
        var distinct: [String] = []
        for length in 0...20 {
            for position in 0..<max(length, 1) {
                for c in ["a", "b", "é"] {
                    var chars = Array(repeating: "x", count: length)
                    if length > 0 { chars[position] = c }
                    distinct.append(chars.joined())
                }
            }
        }
        distinct = Array(Set(distinct)).sorted()
        var rng = SystemRandomNumberGenerator()
        let repeats = (0..<5).flatMap { _ in distinct }.shuffled(using: &rng)
        XCTAssertEqual(sketch([Vector(type: .varchar(40), data: .string(StringArray(repeats)))]),
                       sketch([Vector(type: .varchar(40), data: .string(StringArray(distinct)))]))
        assertNear(sketch([Vector(type: .varchar(40), data: .string(StringArray(repeats)))]), Double(distinct.count),
                   within: 0.03, "\(distinct.count) strings")
        // A constant vector counts as its value (hashed as a flat one would be).
        let constant = Vector.constant(.int(42), type: .bigint)
        XCTAssertEqual(sketch([Vector(type: .bigint, data: .int64([42, 42, 42])), constant]).rounded(), 1)
    }

    func testEstimateAtItsEdges() {
        var p = Analyzer.ColumnPartial()
        XCTAssertEqual(p.distinct, 0, "nothing seen")
        p.rows = 100
        XCTAssertEqual(p.distinct, 0, "rows but no values offered")
        p.nulls = 100
        XCTAssertEqual(p.distinct, 0, "every row NULL")
    }
}
