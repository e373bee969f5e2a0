// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution
import SlicehouseRuntime

/// SUM/AVG/COUNT/COUNT(*) over frames, DECIMAL and DOUBLE arithmetic, overflow,
/// RATIO_TO_REPORT, and a randomized comparison with a naive reference.
final class WindowAggregateTests: XCTestCase {
    /// id 0...5; k (ORDER BY, with ties) 1, 2, 2, 3, 3, 3; x 1...6.
    private let frameColumns = [Vector.ints([0, 1, 2, 3, 4, 5]), Vector.ints([1, 2, 2, 3, 3, 3]),
                                Vector.ints([1, 2, 3, 4, 5, 6], type: .integer)]

    private func overFrames(_ f: [BoundWindowFunction]) throws -> [[Value]] {
        let rows = try runWindow(frameColumns, order: [SortKey(column: 1)], f)
        XCTAssertEqual(rows.map { $0[0] }, ints([0, 1, 2, 3, 4, 5]))
        return (0..<f.count).map { k in rows.map { $0[3 + k] } }
    }

    func testSumOverFramesRowsVersusRange() throws {
        let r = try overFrames([
            fn(.sum, 2, .integer, frame: Frames.rowsToCurrent), fn(.sum, 2, .integer, frame: Frames.rangeToCurrent),
            fn(.sum, 2, .integer, frame: Frames.rowsFromCurrent), fn(.sum, 2, .integer, frame: Frames.rangeFromCurrent),
            fn(.sum, 2, .integer, frame: Frames.rows1p1f), fn(.sum, 2, .integer, frame: Frames.rangeCurrent),
            fn(.sum, 2, .integer, frame: Frames.whole),
            fn(.sum, 2, .integer, frame: WindowFrame(rows: true, start: .preceding(2), end: .preceding(1))),
            fn(.sum, 2, .integer, frame: WindowFrame(rows: true, start: .following(1), end: .following(1))),
        ])
        XCTAssertEqual(r[0], ints([1, 3, 6, 10, 15, 21]))
        XCTAssertEqual(r[1], ints([1, 6, 6, 21, 21, 21]))
        XCTAssertEqual(r[2], ints([21, 20, 18, 15, 11, 6]))
        XCTAssertEqual(r[3], ints([21, 20, 20, 15, 15, 15]))
        XCTAssertEqual(r[4], ints([3, 6, 9, 12, 15, 11]))
        XCTAssertEqual(r[5], ints([1, 5, 5, 15, 15, 15]))
        XCTAssertEqual(r[6], ints([21, 21, 21, 21, 21, 21]))
        XCTAssertEqual(r[7], ints([nil, 1, 3, 5, 7, 9]))
        XCTAssertEqual(r[8], ints([2, 3, 4, 5, 6, nil]))
    }

    func testCountAvgMinMaxOverFrames() throws {
        let r = try overFrames([
            fn(.countStar, frame: Frames.rangeToCurrent), fn(.count, 2, .integer, frame: Frames.rows1p1f),
            fn(.avg, 2, .integer, frame: Frames.rows1p1f), fn(.avg, 2, .integer, frame: Frames.rangeToCurrent),
            fn(.countStar, frame: WindowFrame(rows: true, start: .following(2), end: .preceding(2))),
            fn(.count, 2, .integer, frame: WindowFrame(rows: true, start: .unboundedPreceding, end: .preceding(4))),
        ])
        XCTAssertEqual(r[0], ints([1, 3, 3, 6, 6, 6]))
        XCTAssertEqual(r[1], ints([2, 3, 3, 3, 3, 2]))
        XCTAssertEqual(r[2], ints([1, 2, 3, 4, 5, 5]))      // 3/2 and 11/2 truncate
        XCTAssertEqual(r[3], ints([1, 2, 2, 3, 3, 3]))      // 6/3 and 21/6
        XCTAssertEqual(r[4], ints([0, 0, 0, 0, 0, 0]))      // empty frames count 0
        XCTAssertEqual(r[5], ints([0, 0, 0, 0, 1, 2]))
    }

    func testNullsAreSkipped() throws {
        let cols = [Vector.ints([0, 1, 2, 3]), Vector.ints([nil, 4, nil, -7])]
        let rows = try runWindow(cols, order: [SortKey(column: 0)], [
            fn(.sum, 1, .bigint, frame: Frames.rowsToCurrent), fn(.avg, 1, .bigint, frame: Frames.rowsToCurrent),
            fn(.count, 1, .bigint, frame: Frames.rowsToCurrent), fn(.countStar, frame: Frames.rowsToCurrent),
            fn(.avg, 1, .bigint, frame: Frames.rowsFromCurrent),
        ])
        XCTAssertEqual(rows.map { $0[2] }, ints([nil, 4, 4, -3]))
        XCTAssertEqual(rows.map { $0[3] }, ints([nil, 4, 4, -1]))   // -3/2 truncates toward zero
        XCTAssertEqual(rows.map { $0[4] }, ints([0, 1, 1, 2]))
        XCTAssertEqual(rows.map { $0[5] }, ints([1, 2, 3, 4]))
        XCTAssertEqual(rows.map { $0[6] }, ints([-1, -1, -7, -7]))
    }

    func testDecimalSumAndAvg() throws {
        let dec = DataType.decimal(precision: 10, scale: 2)
        // 1.25, 2.50, NULL, 3.33 | 1.00, 2.00, 2.00 | -1.00, -2.00, -2.00 | 0.01, 0.02 | -0.01, -0.02
        let x = decimals([125, 250, nil, 333, 100, 200, 200, -100, -200, -200, 1, 2, -1, -2])
        let part = Vector.ints([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4])
        let ids = Vector.ints((0..<14).map { Int64($0) })
        let rows = try runWindow([ids, part, x], partition: [1], order: [SortKey(column: 0)], [
            fn(.sum, 2, dec), fn(.avg, 2, dec), fn(.sum, 2, dec, frame: Frames.rowsToCurrent),
            fn(.avg, 2, dec, frame: Frames.rows1p1f),
        ])
        XCTAssertEqual(rows.first.map { Array($0[3...]) }?.count, 4)
        let byId = resultsById(rows, idColumn: 0, inputWidth: 3)
        func col(_ k: Int, _ ids: ClosedRange<Int>) -> [Value] { ids.map { byId[Int64($0)]?[k] ?? .int(-999) } }
        XCTAssertEqual(col(0, 0...3), [Value](repeating: .int128(708), count: 4))
        XCTAssertEqual(col(1, 0...3), [Value](repeating: .int128(236), count: 4))
        XCTAssertEqual(col(2, 0...3), [.int128(125), .int128(375), .int128(375), .int128(708)])
        XCTAssertEqual(col(3, 0...3), [.int128(188), .int128(188), .int128(292), .int128(333)])  // 1.875, 1.875, 2.915 → half up
        XCTAssertEqual(col(1, 4...6), [Value](repeating: .int128(167), count: 3))   // 5/3 = 1.666…
        XCTAssertEqual(col(1, 7...9), [Value](repeating: .int128(-167), count: 3))
        XCTAssertEqual(col(1, 10...11), [.int128(2), .int128(2)])     // 0.015 → 0.02
        XCTAssertEqual(col(1, 12...13), [.int128(-2), .int128(-2)])   // -0.015 → -0.02
        // The result type is DECIMAL(38,2).
        let op = WindowOperator(input: source([ids, part, x]), inputTypes: [.bigint, .bigint, dec], partitionColumns: [1],
                                orderKeys: [], functions: [fn(.sum, 2, dec), fn(.avg, 2, dec)], context: QueryContext())
        let chunk = try op.next()
        XCTAssertEqual(chunk?.columns[3].type, .decimal(precision: 38, scale: 2))
        XCTAssertEqual(chunk?.columns[4].type, .decimal(precision: 38, scale: 2))
    }

    func testWideDecimalSums() throws {
        let dec = DataType.decimal(precision: 38, scale: 0)
        let big = Int128(85) * DecimalMath.pow10[36]   // 8.5e37; four of them exceed Int128
        let x = Vector(type: dec, data: .int128([big, big, big, big, -big]))
        let ids = Vector.ints([0, 1, 2, 3, 4])
        let current = WindowFrame(rows: true, start: .currentRow, end: .currentRow)
        // Each frame's own sum fits although the running total does not.
        let rows = try runWindow([ids, x], order: [SortKey(column: 0)], [
            fn(.sum, 1, dec, frame: current),
            fn(.avg, 1, dec, frame: WindowFrame(rows: true, start: .currentRow, end: .following(1))),
            fn(.sum, 1, dec, frame: WindowFrame(rows: true, start: .following(1), end: .following(1))),
        ])
        XCTAssertEqual(rows.map { $0[2] }, [.int128(big), .int128(big), .int128(big), .int128(big), .int128(-big)])
        // 2·8.5e37 exceeds 38 digits but fits the accumulator, so its mean is exact.
        XCTAssertEqual(rows.map { $0[3] }, [.int128(big), .int128(big), .int128(big), .int128(0), .int128(-big)])
        XCTAssertEqual(rows.map { $0[4] }, [.int128(big), .int128(big), .int128(big), .int128(-big), .null])
        // A frame sum beyond 38 digits is an error.
        XCTAssertThrowsError(try runWindow([ids, x], order: [SortKey(column: 0)],
                                           [fn(.sum, 1, dec, frame: Frames.rowsToCurrent)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .numericOutOfRange)
        }
        // AVG whose frame sum does not fit 128 bits (3·8.5e37) is reported as an overflow.
        XCTAssertThrowsError(try runWindow([ids, x], [fn(.avg, 1, dec)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .numericOutOfRange)
        }
    }

    func testBigintOverflow() throws {
        let ids = Vector.ints([0, 1, 2])
        let x = Vector.ints([Int64.max, Int64.max, -5])
        XCTAssertThrowsError(try runWindow([ids, x], [fn(.sum, 1, .bigint)])) { error in
            XCTAssertEqual(error as? SQLError, SQLError.overflow(.bigint))
        }
        XCTAssertThrowsError(try runWindow([ids, x], order: [SortKey(column: 0)],
                                           [fn(.sum, 1, .bigint, frame: Frames.rowsToCurrent)])) { error in
            XCTAssertEqual((error as? SQLError)?.message, "bigint out of range")
        }
        // Frames whose own sums fit do not overflow, whatever the running total.
        let rows = try runWindow([ids, x], order: [SortKey(column: 0)], [
            fn(.sum, 1, .bigint, frame: WindowFrame(rows: true, start: .currentRow, end: .currentRow)),
            fn(.avg, 1, .bigint, frame: Frames.rowsToCurrent),
            fn(.sum, 1, .bigint, frame: WindowFrame(rows: true, start: .following(1), end: .following(1))),
        ])
        XCTAssertEqual(rows.map { $0[2] }, ints([Int64.max, Int64.max, -5]))
        XCTAssertEqual(rows.map { $0[3] }, ints([Int64.max, Int64.max, 6_148_914_691_236_517_203]))   // (2·max - 5) / 3
        XCTAssertEqual(rows.map { $0[4] }, ints([Int64.max, -5, nil]))
    }

    func testDoubleSumAvg() throws {
        let ids = Vector.ints([0, 1, 2, 3, 4])
        let x = doubles([1.5, nil, 2.25, .infinity, -4])
        let rows = try runWindow([ids, x], order: [SortKey(column: 0)], [
            fn(.sum, 1, .double, frame: Frames.rowsToCurrent), fn(.avg, 1, .double, frame: Frames.rows1p1f),
            fn(.sum, 1, .double, frame: Frames.rangeFromCurrent), fn(.sum, 1, .double, frame: Frames.rowsFromCurrent),
        ])
        XCTAssertEqual(rows.map { $0[2] }, dbls([1.5, 1.5, 3.75, .infinity, .infinity]))
        XCTAssertEqual(rows.map { $0[3] }, dbls([1.5, 1.875, .infinity, .infinity, .infinity]))
        // Sliding (start moves, end unbounded): the infinity leaves the window cleanly.
        XCTAssertEqual(rows.map { $0[5] }, dbls([.infinity, .infinity, .infinity, .infinity, -4]))
        XCTAssertEqual(rows.map { $0[4] }, rows.map { $0[5] })
        // REAL arguments sum into DOUBLE PRECISION.
        let r = try runWindow([ids, column(.real, dbls([1, 2, nil, 4, 5]))], [fn(.sum, 1, .real), fn(.avg, 1, .real)])
        XCTAssertEqual(r[0][2], .double(12))
        XCTAssertEqual(r[0][3], .double(3))
    }

    func testSlidingDoubleSumWithLargeFrame() throws {
        // Magnitudes that cancel: a compensated sliding sum still returns the small values.
        let n = 300
        var values: [Double?] = []
        for i in 0..<n { values.append(i % 50 == 0 ? 1e20 : (i % 13 == 0 ? nil : Double(i) / 8)) }
        let ids = Vector.ints((0..<n).map { Int64($0) })
        let frame = WindowFrame(rows: true, start: .preceding(40), end: .following(40))
        let rows = try runWindow([ids, doubles(values)], order: [SortKey(column: 0)],
                                 [fn(.sum, 1, .double, frame: frame), fn(.avg, 1, .double, frame: frame)])
        for (i, r) in rows.enumerated() {
            let window = (max(0, i - 40)...min(n - 1, i + 40)).compactMap { values[$0] }
            let big = window.filter { $0 == 1e20 }.count
            let small = window.filter { $0 != 1e20 }.reduce(0, +)
            guard case .double(let s) = r[2] else { XCTFail("row \(i): \(r)"); continue }
            if big == 0 {
                XCTAssertEqual(s, small, accuracy: 1e-9, "row \(i)")
            } else {
                XCTAssertEqual(s, Double(big) * 1e20, accuracy: 1e6, "row \(i)")
            }
        }
    }

    func testRatioToReport() throws {
        let ids = Vector.ints([0, 1, 2, 3, 4, 5, 6, 7])
        let part = Vector.ints([0, 0, 0, 0, 0, 1, 1, 2])
        let x = Vector.ints([1, 2, 3, 4, nil, 1, -1, nil])
        let dec = decimals([150, 50, 100, 100, nil, 0, 0, 5])
        let dbl = doubles([0.5, 1.5, 1, 1, nil, 2, nil, 0])
        let rows = try runWindow([ids, part, x, dec, dbl], partition: [1], order: [SortKey(column: 0)], [
            fn(.ratioToReport, 2, .bigint), fn(.ratioToReport, 3, .decimal(precision: 10, scale: 2)),
            fn(.ratioToReport, 4, .double),
        ])
        let byId = resultsById(rows, idColumn: 0, inputWidth: 5)
        XCTAssertEqual(byId[0], dbls([0.1, 0.375, 0.125]))
        XCTAssertEqual(byId[3], dbls([0.4, 0.25, 0.25]))
        XCTAssertEqual(byId[4], dbls([nil, nil, nil]))
        XCTAssertEqual(byId[5], dbls([nil, nil, 1]))          // 1 + -1 = 0; decimal sum 0
        XCTAssertEqual(byId[6], dbls([nil, nil, nil]))
        XCTAssertEqual(byId[7], dbls([nil, 1, nil]))          // double sum 0
    }

    // MARK: - Randomized comparison with the reference

    func testAgainstReference() throws {
        var rng = SplitMix(seed: 42)
        let dec = DataType.decimal(precision: 12, scale: 2)
        let wide = DataType.decimal(precision: 30, scale: 3)
        let types: [DataType] = [.bigint, .integer, .integer, .text, .integer, dec, .double, .varchar(8), wide, .boolean]
        for round in 0..<6 {
            let n = [0, 1, 7, 60, 200, 400][round]
            var rows: [Row] = []
            for i in 0..<n {
                let part: Value = rng.chance(0.1) ? .null : .int(Int64(rng.int(0...(round < 3 ? 2 : 14))))
                let k1: Value = rng.chance(0.15) ? .null : .int(Int64(rng.int(0...6)))
                let k2: Value = rng.chance(0.1) ? .null : .string(["x", "y", "yy", "z"][rng.int(0...3)])
                let x: Value = rng.chance(0.2) ? .null : .int(Int64(rng.int(-1000...1000)))
                let d: Value = rng.chance(0.2) ? .null : .int(Int64(rng.int(-99999...99999)))
                let f: Value = rng.chance(0.2) ? .null : .double(Double(rng.int(-400...400)) / 4)
                let s: Value = rng.chance(0.2) ? .null : .string(String(rng.int(0...40)))
                let w: Value = rng.chance(0.2) ? .null : .int128(Int128(rng.int(-9999...9999)) * 1_000_000_000_000)
                let b: Value = rng.chance(0.2) ? .null : .bool(rng.chance(0.5))
                rows.append([.int(Int64(i)), part, k1, k2, x, d, f, s, w, b])
            }
            let columns = types.enumerated().map { c, t in column(t, rows.map { $0[c] }) }
            let orders: [[SortKey]] = [
                [], [SortKey(column: 2)], [SortKey(column: 2, ascending: false, nullsFirst: false)],
                [SortKey(column: 2, ascending: true, nullsFirst: true), SortKey(column: 3, ascending: false)],
            ]
            for order in orders {
                var functions: [BoundWindowFunction] = [
                    fn(.rowNumber), fn(.rank), fn(.denseRank), fn(.percentRank), fn(.cumeDist),
                    fn(.ntile, parameter: 4), fn(.ratioToReport, 4, .integer), fn(.ratioToReport, 6, .double),
                    fn(.ratioToReport, 8, wide),
                ]
                for (arg, type) in [(4, DataType.integer), (7, .varchar(8)), (9, .boolean)] {
                    for ignore in [false, true] {
                        functions.append(fn(.lag, arg, type, parameter: 2, ignoreNulls: ignore))
                        functions.append(fn(.lead, arg, type, ignoreNulls: ignore))
                    }
                }
                functions.append(fn(.lag, 4, .integer, parameter: 3, defaultValue: .int(-1)))
                for frame in Frames.all {
                    for (arg, type) in [(4, DataType.integer), (5, dec), (6, .double), (8, wide)] {
                        functions.append(fn(.sum, arg, type, frame: frame))
                        functions.append(fn(.avg, arg, type, frame: frame))
                    }
                    functions.append(fn(.count, 4, .integer, frame: frame))
                    functions.append(fn(.countStar, frame: frame))
                    for (arg, type) in [(4, DataType.integer), (6, .double), (7, .varchar(8)), (9, .boolean)] {
                        functions.append(fn(.min, arg, type, frame: frame))
                        functions.append(fn(.max, arg, type, frame: frame))
                    }
                    for ignore in [false, true] {
                        functions.append(fn(.firstValue, 7, .varchar(8), ignoreNulls: ignore, frame: frame))
                        functions.append(fn(.lastValue, 4, .integer, ignoreNulls: ignore, frame: frame))
                        functions.append(fn(.nthValue, 6, .double, parameter: 2, ignoreNulls: ignore, frame: frame))
                    }
                }
                let chunkSize = [1, 13, 100, 2048][rng.int(0...3)]
                let out = try runWindow(columns, partition: [1], order: order, functions,
                                        chunkSize: chunkSize, withSelection: rng.chance(0.5))
                XCTAssertEqual(out.count, n)
                let byId = resultsById(out, idColumn: 0, inputWidth: types.count)
                let reference = ReferenceWindow(rows: rows, partition: [1], order: order)
                for (k, f) in functions.enumerated() {
                    let expected = try reference.evaluate(f)
                    for i in 0..<n {
                        let actual = byId[Int64(i)]?[k] ?? .string("missing")
                        if !valuesMatch(actual, expected[i]) {
                            XCTFail("round \(round) order \(order) \(f.kind) frame \(f.frame) arg \(f.argument ?? -1) ignoreNulls \(f.ignoreNulls): row \(i) got \(actual), expected \(expected[i])")
                            return
                        }
                    }
                }
                checkOutputOrder(out, partitionColumn: 1, order: order)
            }
        }
    }

    /// Partitions are contiguous and each is sorted by the order keys.
    private func checkOutputOrder(_ rows: [Row], partitionColumn: Int, order: [SortKey]) {
        var finished: [Value] = []
        for i in 1..<max(1, rows.count) {
            let a = rows[i - 1], b = rows[i]
            if a[partitionColumn] != b[partitionColumn] {
                XCTAssertFalse(finished.contains(b[partitionColumn]), "partition \(b[partitionColumn]) is split")
                finished.append(a[partitionColumn])
                continue
            }
            for k in order {
                let c = compareKey(a[k.column], b[k.column], k)
                if c < 0 { break }
                XCTAssertEqual(c, 0, "rows out of order: \(a) before \(b)")
                if c != 0 { return }
            }
        }
    }
}
