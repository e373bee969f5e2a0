// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// Every column type parsed from text into its exact physical representation.
final class TypeConversionTests: XCTestCase {
    func testIntegers() throws {
        let r = try loadText("1|-32768|2147483647|-9223372036854775808\n +7 |32767|-2147483648|9223372036854775807\n",
                             columns: [col("a", .integer), col("s", .smallint), col("i", .integer), col("b", .bigint)])
        XCTAssertEqual(rows(r), [
            [.int(1), .int(-32768), .int(2_147_483_647), .int(Int64.min)],
            [.int(7), .int(32767), .int(-2_147_483_648), .int(Int64.max)],
        ])
        guard case .int64 = r.chunks[0].columns[0].data else { return XCTFail("integers must be Int64") }
        XCTAssertEqual(r.chunks[0].columns[1].type, .smallint)
    }

    func testDecimals() throws {
        let cols = [col("d", .decimal(precision: 15, scale: 2)), col("w", .decimal(precision: 38, scale: 4)),
                    col("z", .decimal(precision: 5, scale: 0))]
        let r = try loadText("24710.35|12345678901234567890123.4567|-0\n-0.5|1e3|+12\n.07|-0.00001|99999\n7.|3|00012\n",
                             columns: cols)
        XCTAssertEqual(rows(r), [
            [.int(2_471_035), .int128(123_456_789_012_345_678_901_234_567), .int(0)],
            [.int(-50), .int128(10_000_000), .int(12)],
            [.int(7), .int128(0), .int(99999)],
            [.int(700), .int128(30_000), .int(12)],
        ])
        guard case .int128 = r.chunks[0].columns[1].data else { return XCTFail("DECIMAL(38,4) must be Int128") }
    }

    func testDecimalTruncatesByDefaultAndRoundsWithROUNDEC() throws {
        let cols = [col("d", .decimal(precision: 10, scale: 2)), col("w", .decimal(precision: 30, scale: 1))]
        let data = "1.239|2.25\n-1.235|-2.25\n"
        XCTAssertEqual(rows(try loadText(data, columns: cols)), [[.int(123), .int128(22)], [.int(-123), .int128(-22)]])
        XCTAssertEqual(rows(try loadText(data, columns: cols, options: opts(("ROUNDEC", nil)))),
                       [[.int(124), .int128(23)], [.int(-124), .int128(-23)]])
    }

    func testFloats() throws {
        let r = try loadText("1.5|0.1\n-2e3|1e-300\nNaN|-Infinity\ninf| 3 \n",
                             columns: [col("r", .real), col("d", .double)])
        let v = rows(r)
        XCTAssertEqual(v[0], [.double(1.5), .double(0.1)])
        XCTAssertEqual(v[1], [.double(-2000), .double(1e-300)])
        XCTAssertEqual(v[2][0].asDouble?.isNaN, true)
        XCTAssertEqual(v[2][1], .double(-.infinity))
        XCTAssertEqual(v[3], [.double(.infinity), .double(3)])
        // REAL is rounded through Float.
        let real = try loadText("0.1\n", columns: [col("r", .real)])
        XCTAssertEqual(rows(real), [[.double(Double(Float(0.1)))]])
    }

    func testBooleans() throws {
        let r = try loadText("t\nF\nTRUE\nfalse\n1\n0\ny\nN\nyes\nNo\n", columns: [col("b", .boolean)])
        XCTAssertEqual(rows(r).map { $0[0] },
                       [true, false, true, false, true, false, true, false, true, false].map { .bool($0) })
    }

    func testDatesAndTimestamps() throws {
        let r = try loadText("1996-03-13|1996-03-13 10:11:12\n1970-01-01|1970-01-01 00:00:00.5\n1969-12-31|2000-02-29T23:59:59.123456\n",
                             columns: [col("d", .date), col("ts", .timestamp)])
        XCTAssertEqual(rows(r), [
            [.int(DateTime.days(year: 1996, month: 3, day: 13)),
             .int(DateTime.days(year: 1996, month: 3, day: 13) * DateTime.microsPerDay + 36_672_000_000)],
            [.int(0), .int(500_000)],
            [.int(-1), .int(DateTime.days(year: 2000, month: 2, day: 29) * DateTime.microsPerDay + 86_399_123_456)],
        ])
    }

    func testDateFormatAndTimeFormat() throws {
        let o = try opts(("DATEFORMAT", "MM/DD/YYYY"), ("TIMEFORMAT", "DD-MON-YYYY HH12:MI:SS AM"))
        let r = try loadText("03/13/1996|13-Mar-1996 01:02:03 PM\n", columns: [col("d", .date), col("ts", .timestamp)], options: o)
        let day = DateTime.days(year: 1996, month: 3, day: 13)
        XCTAssertEqual(rows(r), [[.int(day), .int(day * DateTime.microsPerDay + (13 * 3600 + 2 * 60 + 3) * 1_000_000)]])

        let auto = try opts(("DATEFORMAT", "auto"), ("TIMEFORMAT", "auto"))
        let r2 = try loadText("March 13, 1996|1996-03-13 01:02\n1996-03-13|03/13/1996 13:02:00\n",
                              columns: [col("d", .date), col("ts", .timestamp)], options: auto)
        XCTAssertEqual(rows(r2), [
            [.int(day), .int(day * DateTime.microsPerDay + 3_720_000_000)],
            [.int(day), .int(day * DateTime.microsPerDay + (13 * 3600 + 120) * 1_000_000)],
        ])

        let epoch = try opts(("TIMEFORMAT", "epochsecs"))
        XCTAssertEqual(rows(try loadText("86400\n1.5\n", columns: [col("ts", .timestamp)], options: epoch)),
                       [[.int(86_400_000_000)], [.int(1_500_000)]])
        let millis = try opts(("TIMEFORMAT", "epochmillisecs"))
        XCTAssertEqual(rows(try loadText("1500\n", columns: [col("ts", .timestamp)], options: millis)), [[.int(1_500_000)]])
    }

    func testAcceptAnyDateLoadsUnparseableDatesAsNull() throws {
        let o = try opts(("ACCEPTANYDATE", nil), ("DATEFORMAT", "YYYY-MM-DD"))
        let r = try loadText("00/00/00|2020-01-01 00:00:00\n2020-01-02|garbage\n",
                             columns: [col("d", .date), col("ts", .timestamp)], options: o)
        XCTAssertEqual(rows(r), [
            [.null, .int(DateTime.days(year: 2020, month: 1, day: 1) * DateTime.microsPerDay)],
            [.int(DateTime.days(year: 2020, month: 1, day: 2)), .null],
        ])
    }

    func testQuotedCSVNumbersBooleansAndDates() throws {
        let r = try loadText("\"1.5\",\"t\",\"2020-01-01\",\"\"\n", columns: [col("d", .double), col("b", .boolean),
                                                                            col("day", .date), col("i", .integer)],
                             options: opts(("CSV", nil)))
        XCTAssertEqual(rows(r), [[.double(1.5), .bool(true), .int(DateTime.days(year: 2020, month: 1, day: 1)), .null]])
    }

    func testHeaderOnlyFile() throws {
        let r = try loadText("a|b\n", columns: [col("a", .integer), col("b", .integer)], options: opts(("IGNOREHEADER", "1")))
        XCTAssertEqual(r.rowCount, 0)
    }

    func testISODateFastPathAgreesWithDateTime() throws {
        var text = ""
        var expected: [Value] = []
        for (y, m, d) in [(1, 1, 1), (1600, 2, 29), (1899, 12, 31), (1900, 3, 1), (1969, 12, 31), (1970, 1, 1),
                          (2000, 2, 29), (2023, 12, 31), (2100, 3, 1), (9999, 12, 31)] as [(Int64, Int64, Int64)] {
            text += String(format: "%04d-%02d-%02d\n", y, m, d)
            expected.append(.int(DateTime.days(year: y, month: m, day: d)))
        }
        XCTAssertEqual(rows(try loadText(text, columns: [col("d", .date)])).map { $0[0] }, expected)
        for bad in ["2023-02-29", "1900-02-29", "2023-13-01", "2023-00-10", "2023-04-31", "2023-1a-01"] {
            XCTAssertEqual(expectLoadError { try loadText(bad + "\n", columns: [col("d", .date)]) }?.code, .invalidDate, bad)
        }
    }

    func testStrings() throws {
        let r = try loadText("abc  |abc  |héllo\n|  |\n", columns: [col("c", .char(5)), col("v", .varchar(5)), col("u", .varchar(6))])
        XCTAssertEqual(rows(r), [
            [.string("abc"), .string("abc  "), .string("héllo")],
            [.string(""), .string("  "), .string("")],
        ])
    }

    func testCharLengthIsCheckedAfterTrailingBlanks() throws {
        XCTAssertEqual(rows(try loadText("ab     \n", columns: [col("c", .char(2))])), [[.string("ab")]])
    }

    func testTrimBlanksAndTruncateColumns() throws {
        let r = try loadText("ab \t|héllo world\n", columns: [col("v", .varchar(2)), col("w", .varchar(2))],
                             options: opts(("TRIMBLANKS", nil), ("TRUNCATECOLUMNS", nil)))
        // 'h' fits, 'é' (2 bytes) would cross the 2-byte limit: cut at the character boundary.
        XCTAssertEqual(rows(r), [[.string("ab"), .string("h")]])
    }

    func testAcceptInvCharsReplacesEachInvalidByte() throws {
        var bytes = Array("a".utf8)
        bytes += [0xFF, 0xC3]  // invalid byte, truncated 2-byte sequence
        bytes += Array("b\n".utf8)
        let d = try TempDir()
        let path = try d.write("inv.txt", bytes: bytes)
        let r = try CopyLoader.load(table: "t", columns: [col("v", .varchar(10))], source: path,
                                    options: opts(("ACCEPTINVCHARS", nil)), context: QueryContext())
        XCTAssertEqual(rows(r), [[.string("a??b")]])
        let r2 = try CopyLoader.load(table: "t", columns: [col("v", .varchar(10))], source: path,
                                     options: opts(("ACCEPTINVCHARS", "^")), context: QueryContext())
        XCTAssertEqual(rows(r2), [[.string("a^^b")]])
    }

    func testColumnListReturnsOnlyListedColumnsInListOrder() throws {
        let cols = [col("a", .integer), col("b", .varchar(10)), col("c", .date)]
        let r = try loadText("x|7\n", columns: cols, columnList: ["B", "a"])
        XCTAssertEqual(r.columnIndices, [1, 0])
        XCTAssertEqual(rows(r), [[.string("x"), .int(7)]])
        XCTAssertEqual(r.chunks[0].columns.map(\.type), [.varchar(10), .integer])

        XCTAssertEqual(expectSQLError { try loadText("1\n", columns: cols, columnList: ["nope"]) }?.code, .undefinedColumn)
        XCTAssertEqual(expectSQLError { try loadText("1|2\n", columns: cols, columnList: ["a", "A"]) }?.code, .duplicateColumn)
    }

    func testEscape() throws {
        let r = try loadText("a\\|b|c\\\\\nline\\\nbreak|x\n", columns: [col("v", .varchar(20)), col("w", .varchar(20))],
                             options: opts(("ESCAPE", nil)))
        XCTAssertEqual(rows(r), [[.string("a|b"), .string("c\\")], [.string("line\nbreak"), .string("x")]])
        // Without ESCAPE a backslash is data.
        XCTAssertEqual(rows(try loadText("a\\b|c\n", columns: [col("v", .varchar(20)), col("w", .varchar(20))])),
                       [[.string("a\\b"), .string("c")]])
    }

    func testRemoveQuotes() throws {
        let r = try loadText("\"a|b\"|'c'\n\"\"|d\n", columns: [col("v", .varchar(20)), col("w", .varchar(20))],
                             options: opts(("REMOVEQUOTES", nil)))
        XCTAssertEqual(rows(r), [[.string("a|b"), .string("c")], [.string(""), .string("d")]])
    }

    func testCustomDelimiterAndCRLF() throws {
        let r = try loadText("1\tx\r\n2\ty\r\n", columns: [col("a", .integer), col("b", .varchar(5))],
                             options: opts(("DELIMITER", "\\t")))
        XCTAssertEqual(rows(r), [[.int(1), .string("x")], [.int(2), .string("y")]])
    }

    func testLastLineWithoutNewline() throws {
        XCTAssertEqual(rows(try loadText("1|a\n2|b", columns: [col("a", .integer), col("b", .varchar(5))])),
                       [[.int(1), .string("a")], [.int(2), .string("b")]])
    }

    func testTrailingDelimiterIsAccepted() throws {
        let r = try loadText("1|a|\n2|b|\n", columns: [col("a", .integer), col("b", .varchar(5))])
        XCTAssertEqual(rows(r), [[.int(1), .string("a")], [.int(2), .string("b")]])
    }

    func testFillRecord() throws {
        let r = try loadText("1\n2|x\n", columns: [col("a", .integer), col("b", .varchar(5)), col("c", .integer)],
                             options: opts(("FILLRECORD", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .string(""), .null], [.int(2), .string("x"), .null]])
    }

    func testIgnoreHeaderAndBlankLines() throws {
        let r = try loadText("a|b\nheader 2\n1|x\n\n2|y\n", columns: [col("a", .integer), col("b", .varchar(5))],
                             options: opts(("IGNOREHEADER", "2"), ("IGNOREBLANKLINES", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .string("x")], [.int(2), .string("y")]])
    }

    func testEmptyFileLoadsNothing() throws {
        let r = try loadText("", columns: [col("a", .integer)])
        XCTAssertEqual(r.rowCount, 0)
        XCTAssertTrue(r.chunks.isEmpty)
    }

    func testUnknownTypeIsRejected() throws {
        XCTAssertEqual(expectSQLError { try loadText("1\n", columns: [col("a", .unknown)]) }?.code, .datatypeMismatch)
    }
}
