// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution

/// LAG/LEAD, FIRST_VALUE/LAST_VALUE/NTH_VALUE, MIN/MAX.
final class WindowValueTests: XCTestCase {
    /// id 0...5, x = 1, NULL, 3, NULL, NULL, 6.
    private let lagColumns = [Vector.ints([0, 1, 2, 3, 4, 5]), Vector.ints([1, nil, 3, nil, nil, 6], type: .integer)]

    private func lagLead(_ f: [BoundWindowFunction]) throws -> [[Value]] {
        let rows = try runWindow(lagColumns, order: [SortKey(column: 0)], f)
        return (0..<f.count).map { k in rows.map { $0[2 + k] } }
    }

    func testLagLeadOffsetsAndDefaults() throws {
        let r = try lagLead([
            fn(.lag, 1, .integer), fn(.lag, 1, .integer, parameter: 2, defaultValue: .int(-1)),
            fn(.lead, 1, .integer), fn(.lead, 1, .integer, parameter: 2, defaultValue: .int(99)),
            fn(.lag, 1, .integer, parameter: 0), fn(.lag, 1, .integer, parameter: -1),
            fn(.lead, 1, .integer, parameter: 100, defaultValue: .int(7)), fn(.lag, 1, .integer, parameter: Int.max),
            fn(.lead, 1, .integer, parameter: Int.min, defaultValue: .int(5)),
        ])
        XCTAssertEqual(r[0], ints([nil, 1, nil, 3, nil, nil]))
        XCTAssertEqual(r[1], ints([-1, -1, 1, nil, 3, nil]))
        XCTAssertEqual(r[2], ints([nil, 3, nil, nil, 6, nil]))
        XCTAssertEqual(r[3], ints([3, nil, nil, 6, 99, 99]))
        XCTAssertEqual(r[4], ints([1, nil, 3, nil, nil, 6]))
        XCTAssertEqual(r[5], r[2])
        XCTAssertEqual(r[6], ints([7, 7, 7, 7, 7, 7]))
        XCTAssertEqual(r[7], ints([nil, nil, nil, nil, nil, nil]))
        XCTAssertEqual(r[8], ints([5, 5, 5, 5, 5, 5]))
    }

    func testLagLeadIgnoreNulls() throws {
        let r = try lagLead([
            fn(.lag, 1, .integer, ignoreNulls: true), fn(.lag, 1, .integer, parameter: 2, ignoreNulls: true),
            fn(.lead, 1, .integer, ignoreNulls: true),
            fn(.lead, 1, .integer, defaultValue: .int(0), ignoreNulls: true),
            fn(.lead, 1, .integer, parameter: 2, defaultValue: .int(-5), ignoreNulls: true),
            fn(.lag, 1, .integer, parameter: 0, ignoreNulls: true),
            fn(.lag, 1, .integer, parameter: -1, ignoreNulls: true),
        ])
        XCTAssertEqual(r[0], ints([nil, 1, 1, 3, 3, 3]))
        XCTAssertEqual(r[1], ints([nil, nil, nil, 1, 1, 1]))
        XCTAssertEqual(r[2], ints([3, 3, 6, 6, 6, nil]))
        XCTAssertEqual(r[3], ints([3, 3, 6, 6, 6, 0]))
        XCTAssertEqual(r[4], ints([6, 6, -5, -5, -5, -5]))
        XCTAssertEqual(r[5], ints([1, nil, 3, nil, nil, 6]))
        XCTAssertEqual(r[6], r[2])
    }

    func testLagStaysInsidePartitions() throws {
        let cols = [Vector.ints([0, 1, 2, 3, 4, 5]), Vector.strings(["a", "b", "a", "b", "a", nil]),
                    Vector.strings(["x0", "x1", "x2", nil, "x4", "x5"], type: .varchar(10))]
        let rows = try runWindow(cols, partition: [1], order: [SortKey(column: 0)],
                                 [fn(.lag, 2, .varchar(10), defaultValue: .string("none")),
                                  fn(.lead, 2, .varchar(10), ignoreNulls: true),
                                  fn(.lead, 2, .varchar(10), parameter: 2)])
        let byId = resultsById(rows, idColumn: 0, inputWidth: 3)
        XCTAssertEqual(byId[0], [.string("none"), .string("x2"), .string("x4")])
        XCTAssertEqual(byId[2], [.string("x0"), .string("x4"), .null])
        XCTAssertEqual(byId[4], [.string("x2"), .null, .null])
        XCTAssertEqual(byId[1], [.string("none"), .null, .null])
        XCTAssertEqual(byId[3], [.string("x1"), .null, .null])
        XCTAssertEqual(byId[5], [.string("none"), .null, .null])
        XCTAssertEqual(rows.first?.count, 6)
    }

    func testLagDecimalAndDoubleDefaults() throws {
        let cols = [Vector.ints([0, 1, 2]), decimals([125, nil, 300]), doubles([0.5, 1.5, nil]),
                    column(.boolean, [.bool(true), .bool(false), .null])]
        let dec = DataType.decimal(precision: 10, scale: 2)
        let rows = try runWindow(cols, order: [SortKey(column: 0)],
                                 [fn(.lag, 1, dec, defaultValue: .int(150)), fn(.lead, 2, .double, defaultValue: .double(-1)),
                                  fn(.lag, 3, .boolean, parameter: 1, defaultValue: .bool(false))])
        XCTAssertEqual(rows.map { $0[4] }, ints([150, 125, nil]))
        XCTAssertEqual(rows.map { $0[5] }, dbls([1.5, nil, -1]))
        XCTAssertEqual(rows.map { $0[6] }, [.bool(false), .bool(true), .bool(false)])
        // A default of the wrong physical kind is a planner bug, reported (not a crash).
        XCTAssertThrowsError(try runWindow(cols, [fn(.lag, 1, dec, defaultValue: .string("x"))]))
    }

    /// id 0...4, x = NULL, 2, NULL, 4, 5.
    private let valueColumns = [Vector.ints([0, 1, 2, 3, 4]), Vector.ints([nil, 2, nil, 4, 5])]

    private func values(_ f: BoundWindowFunction) throws -> [Value] {
        try runWindow(valueColumns, order: [SortKey(column: 0)], [f]).map { $0[2] }
    }

    func testFirstLastNthValue() throws {
        XCTAssertEqual(try values(fn(.firstValue, 1, .bigint)), ints([nil, nil, nil, nil, nil]))
        XCTAssertEqual(try values(fn(.firstValue, 1, .bigint, ignoreNulls: true)), ints([2, 2, 2, 2, 2]))
        XCTAssertEqual(try values(fn(.lastValue, 1, .bigint)), ints([5, 5, 5, 5, 5]))
        XCTAssertEqual(try values(fn(.lastValue, 1, .bigint, frame: Frames.rowsToCurrent)), ints([nil, 2, nil, 4, 5]))
        XCTAssertEqual(try values(fn(.lastValue, 1, .bigint, ignoreNulls: true, frame: Frames.rowsToCurrent)),
                       ints([nil, 2, 2, 4, 5]))
        XCTAssertEqual(try values(fn(.firstValue, 1, .bigint, frame: Frames.rows1p1f)), ints([nil, nil, 2, nil, 4]))
        XCTAssertEqual(try values(fn(.firstValue, 1, .bigint, ignoreNulls: true, frame: Frames.rows1p1f)),
                       ints([2, 2, 2, 4, 4]))
        XCTAssertEqual(try values(fn(.lastValue, 1, .bigint, frame: Frames.rows1p1f)), ints([2, nil, 4, 5, 5]))
        XCTAssertEqual(try values(fn(.lastValue, 1, .bigint, ignoreNulls: true,
                                     frame: WindowFrame(rows: true, start: .preceding(1), end: .currentRow))),
                       ints([nil, 2, 2, 4, 5]))
        XCTAssertEqual(try values(fn(.firstValue, 1, .bigint, frame: Frames.rowsFromCurrent)), ints([nil, 2, nil, 4, 5]))
        XCTAssertEqual(try values(fn(.nthValue, 1, .bigint, parameter: 2)), ints([2, 2, 2, 2, 2]))
        XCTAssertEqual(try values(fn(.nthValue, 1, .bigint, parameter: 2, ignoreNulls: true)), ints([4, 4, 4, 4, 4]))
        XCTAssertEqual(try values(fn(.nthValue, 1, .bigint, parameter: 2, frame: Frames.rowsToCurrent)),
                       ints([nil, 2, 2, 2, 2]))
        XCTAssertEqual(try values(fn(.nthValue, 1, .bigint, parameter: 4, frame: Frames.rowsToCurrent)),
                       ints([nil, nil, nil, 4, 4]))
        XCTAssertEqual(try values(fn(.nthValue, 1, .bigint, parameter: 9)), ints([nil, nil, nil, nil, nil]))
        // Empty frames give NULL.
        let before = WindowFrame(rows: true, start: .unboundedPreceding, end: .preceding(1))
        XCTAssertEqual(try values(fn(.firstValue, 1, .bigint, frame: before)), ints([nil, nil, nil, nil, nil]))
        XCTAssertEqual(try values(fn(.lastValue, 1, .bigint, frame: before)), ints([nil, nil, 2, nil, 4]))
    }

    func testValueFunctionsWithRangePeers() throws {
        // k: 1, 2, 2, 3; x: a, b, c, d.
        let cols = [Vector.ints([0, 1, 2, 3]), Vector.ints([1, 2, 2, 3]), Vector.strings(["a", "b", "c", "d"])]
        let rows = try runWindow(cols, order: [SortKey(column: 1)],
                                 [fn(.lastValue, 2, .text, frame: Frames.rangeToCurrent),
                                  fn(.firstValue, 2, .text, frame: Frames.rangeFromCurrent),
                                  fn(.lastValue, 2, .text, frame: Frames.rowsToCurrent)])
        XCTAssertEqual(rows.map { $0[3] }, ["a", "c", "c", "d"].map { Value.string($0) })
        XCTAssertEqual(rows.map { $0[4] }, ["a", "b", "b", "d"].map { Value.string($0) })
        XCTAssertEqual(rows.map { $0[5] }, ["a", "b", "c", "d"].map { Value.string($0) })
    }

    func testMinMaxOverFrames() throws {
        let cols = [Vector.ints([0, 1, 2, 3, 4, 5]), Vector.ints([1, 2, 3, 4, 5, 6]).retyped(.integer),
                    Vector.strings(["pear", "apple", nil, "zoo", "banana", "apple"]),
                    doubles([1.5, .nan, -2, nil, .infinity, 0])]
        let rows = try runWindow(cols, order: [SortKey(column: 0)], [
            fn(.min, 1, .integer, frame: Frames.rows1p1f), fn(.max, 1, .integer, frame: Frames.rows1p1f),
            fn(.min, 2, .text, frame: Frames.rows1p1f), fn(.max, 2, .text, frame: Frames.rowsToCurrent),
            fn(.max, 3, .double), fn(.min, 3, .double, frame: Frames.rowsFromCurrent),
            fn(.max, 3, .double, frame: WindowFrame(rows: true, start: .currentRow, end: .following(1))),
            fn(.min, 2, .text, frame: WindowFrame(rows: true, start: .following(5), end: .unboundedFollowing)),
        ])
        XCTAssertEqual(rows.map { $0[4] }, ints([1, 1, 2, 3, 4, 5]))
        XCTAssertEqual(rows.map { $0[5] }, ints([2, 3, 4, 5, 6, 6]))
        XCTAssertEqual(rows.map { $0[6] }, ["apple", "apple", "apple", "banana", "apple", "apple"].map { Value.string($0) })
        XCTAssertEqual(rows.map { $0[7] }, ["pear", "pear", "pear", "zoo", "zoo", "zoo"].map { Value.string($0) })
        XCTAssertTrue(rows.allSatisfy { $0[8].asDouble?.isNaN == true }, "NaN is the largest double")
        XCTAssertEqual(rows.map { $0[9] }, dbls([-2, -2, -2, 0, 0, 0]))
        XCTAssertTrue(rows[0][10].asDouble?.isNaN == true && rows[1][10].asDouble?.isNaN == true)
        XCTAssertEqual(rows[2...].map { $0[10] }, dbls([-2, .infinity, .infinity, 0]))
        XCTAssertEqual(rows.map { $0[11] }, [.string("apple"), .null, .null, .null, .null, .null])
    }

    func testMinMaxAllNullFrames() throws {
        let cols = [Vector.ints([0, 1, 2, 3]), Vector.ints([nil, nil, 5, nil]),
                    column(.boolean, [.bool(true), .null, .bool(false), .null])]
        let rows = try runWindow(cols, order: [SortKey(column: 0)], [
            fn(.min, 1, .bigint, frame: Frames.rowsToCurrent),
            fn(.max, 1, .bigint, frame: WindowFrame(rows: true, start: .currentRow, end: .currentRow)),
            fn(.min, 2, .boolean), fn(.max, 2, .boolean, frame: Frames.rowsFromCurrent),
        ])
        XCTAssertEqual(rows.map { $0[3] }, ints([nil, nil, 5, 5]))
        XCTAssertEqual(rows.map { $0[4] }, ints([nil, nil, 5, nil]))
        XCTAssertEqual(rows.map { $0[5] }, [Value](repeating: .bool(false), count: 4))
        XCTAssertEqual(rows.map { $0[6] }, [.bool(true), .bool(false), .bool(false), .null])
    }
}
