// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine
import SlicehouseShell
import SlicehouseSQLLogicTest
import SlicehouseTypes
import XCTest

/// psql's output formats, byte for byte.
final class ShellFormatTests: XCTestCase {
    private let mixed = shellResult([("a", .integer), ("b", .text)],
                                    rows: [[.int(1), .string("x")], [.int(22), .string("hello")], [.null, .null]])

    private func printer(_ configure: (inout ShellOptions) -> Void = { _ in }) -> ResultPrinter {
        var options = ShellOptions()
        configure(&options)
        return ResultPrinter(options: options)
    }

    func testAlignedTable() {
        XCTAssertEqual(printer().render(mixed), """
             a  |   b   \n\
            ----+-------
              1 | x
             22 | hello
                | \n\
            (3 rows)


            """)
    }

    func testSingleRowFooterAndCentredHeader() {
        let one = shellResult([("?column?", .integer)], rows: [[.int(2)]])
        XCTAssertEqual(printer().render(one), " ?column? \n----------\n        2\n(1 row)\n\n")
        let empty = shellResult([("name", .text), ("n", .bigint)], rows: [])
        XCTAssertEqual(printer().render(empty), " name | n \n------+---\n(0 rows)\n\n")
    }

    func testNumbersRightTextLeftAndDecimals() {
        let result = shellResult([("price", .decimal(precision: 10, scale: 2)), ("f", .double), ("ok", .boolean), ("d", .date)],
                                 rows: [[.int(12345), .double(0.5), .bool(true), .int(0)],
                                        [.int(-5), .double(100), .bool(false), .int(366)]])
        XCTAssertEqual(printer().render(result), """
             price  |  f  | ok |     d      \n\
            --------+-----+----+------------
             123.45 | 0.5 | t  | 1970-01-01
              -0.05 | 100 | f  | 1971-01-02
            (2 rows)


            """)
    }

    func testMultiLineCellsUsePlusMarks() {
        let result = shellResult([("k", .integer), ("v", .text)], rows: [[.int(1), .string("one\ntwo")], [.int(2), .string("x")]])
        XCTAssertEqual(printer().render(result), """
             k |  v  \n\
            ---+-----
             1 | one+
               | two
             2 | x
            (2 rows)


            """)
    }

    func testWideCharactersCountTwoColumns() {
        let result = shellResult([("s", .text)], rows: [[.string("日本")], [.string("abc")]])
        XCTAssertEqual(printer().render(result), "  s   \n------\n 日本\n abc\n(2 rows)\n\n")
    }

    func testTuplesOnly() {
        XCTAssertEqual(printer { $0.tuplesOnly = true }.render(mixed), "  1 | x\n 22 | hello\n    | \n\n")
    }

    func testUnalignedAndFieldSeparator() {
        XCTAssertEqual(printer { $0.format = .unaligned }.render(mixed), "a|b\n1|x\n22|hello\n|\n(3 rows)\n")
        XCTAssertEqual(printer { $0.format = .unaligned; $0.tuplesOnly = true }.render(mixed), "1|x\n22|hello\n|\n")
        XCTAssertEqual(printer { $0.format = .unaligned; $0.tuplesOnly = true; $0.fieldSeparator = "\t" }.render(mixed),
                       "1\tx\n22\thello\n\t\n")
        let none = shellResult([("a", .integer)], rows: [])
        XCTAssertEqual(printer { $0.format = .unaligned; $0.tuplesOnly = true }.render(none), "")
    }

    func testCSV() {
        let tricky = shellResult([("id", .integer), ("note", .text)],
                                 rows: [[.int(1), .string("plain")], [.int(2), .string("a,b")],
                                        [.int(3), .string("say \"hi\"")], [.int(4), .string("two\nlines")],
                                        [.int(5), .null], [.int(6), .string("")]])
        XCTAssertEqual(printer { $0.format = .csv }.render(tricky), """
            id,note
            1,plain
            2,"a,b"
            3,"say ""hi\"""
            4,"two
            lines"
            5,
            6,

            """)
        XCTAssertEqual(printer { $0.format = .csv; $0.tuplesOnly = true }.render(shellResult([("a", .integer)], rows: [[.int(1)]])),
                       "1\n")
        XCTAssertEqual(ResultPrinter.csvField("\\."), "\"\\.\"")
        XCTAssertEqual(ResultPrinter.csvField("a;b", separator: ";"), "\"a;b\"")
        XCTAssertEqual(ResultPrinter.csvField("cr\r\nlf"), "\"cr\r\nlf\"")
    }

    func testExpanded() {
        let result = shellResult([("a", .integer), ("b", .text)], rows: [[.int(1), .string("x")], [.int(2), .null]])
        XCTAssertEqual(printer { $0.expanded = .on }.render(result),
                       "-[ RECORD 1 ]\na | 1\nb | x\n-[ RECORD 2 ]\na | 2\nb | \n\n")
        let wide = shellResult([("name", .text), ("description", .text)],
                               rows: [[.string("alpha"), .string("a much longer value here")]])
        XCTAssertEqual(printer { $0.expanded = .on }.render(wide),
                       "-[ RECORD 1 ]" + String(repeating: "-", count: 25) + "\n"
                       + "name        | alpha\n"
                       + "description | a much longer value here\n\n")
        XCTAssertEqual(printer { $0.expanded = .on }.render(shellResult([("a", .integer)], rows: [])), "(0 rows)\n\n")
    }

    func testRecordLineMatchesPsql() {
        // Header wider than the record label: the "+" under the column divider shows.
        XCTAssertEqual(ResultPrinter.recordLine(record: 1, headerWidth: 14, dataWidth: 5), "-[ RECORD 1 ]--+------\n")
        XCTAssertEqual(ResultPrinter.recordLine(record: 1, headerWidth: 13, dataWidth: 3), "-[ RECORD 1 ]-+----\n")
        // Tuples-only separators between records.
        XCTAssertEqual(ResultPrinter.recordLine(record: 0, headerWidth: 1, dataWidth: 1), "--+--\n")
    }

    func testExpandedTuplesOnlyUnalignedAndCSV() {
        let result = shellResult([("a", .integer), ("b", .text)], rows: [[.int(1), .string("x")], [.int(2), .string("y")]])
        XCTAssertEqual(printer { $0.expanded = .on; $0.tuplesOnly = true }.render(result), """
            a | 1
            b | x
            --+--
            a | 2
            b | y


            """)
        XCTAssertEqual(printer { $0.expanded = .on; $0.format = .unaligned }.render(result), "a|1\nb|x\n\na|2\nb|y\n")
        XCTAssertEqual(printer { $0.expanded = .on; $0.format = .csv }.render(result), "a,1\nb,x\na,2\nb,y\n")
    }

    func testExpandedAutoSwitchesOnWidth() {
        let result = shellResult([("a", .integer), ("b", .text)], rows: [[.int(1), .string("a rather long value")]])
        let narrow = printer { $0.expanded = .auto; $0.terminalColumns = 10 }.render(result)
        XCTAssertTrue(narrow.hasPrefix("-[ RECORD 1 ]"), narrow)
        let wide = printer { $0.expanded = .auto; $0.terminalColumns = 200 }.render(result)
        XCTAssertTrue(wide.hasPrefix(" a |"), wide)
    }

    func testTitleIsCentred() {
        let table = ResultTable(title: "List of relations", headers: ["Schema", "Name", "Type", "Owner"],
                                rows: [["public", "t", "table", "slicehouse"]])
        XCTAssertEqual(printer().render(table),
                       String(repeating: " ", count: 9) + "List of relations\n"
                       + " Schema | Name | Type  |   Owner    \n"
                       + "--------+------+-------+------------\n"
                       + " public | t    | table | slicehouse\n"
                       + "(1 row)\n\n")
        XCTAssertEqual(printer { $0.format = .unaligned }.render(table),
                       "List of relations\nSchema|Name|Type|Owner\npublic|t|table|slicehouse\n(1 row)\n")
    }

    func testNullDisplayAndFooterOff() {
        XCTAssertEqual(printer { $0.format = .unaligned; $0.nullDisplay = "(null)"; $0.showFooter = false }.render(mixed),
                       "a|b\n1|x\n22|hello\n(null)|(null)\n")
    }

    func testCommandTagsNoticesAndTiming() {
        XCTAssertEqual(printer().render(StatementResult(tag: "CREATE TABLE")), "CREATE TABLE\n")
        XCTAssertEqual(printer().render(StatementResult(tag: "INSERT 0 5")), "INSERT 0 5\n")
        XCTAssertEqual(printer { $0.quiet = true }.render(StatementResult(tag: "COPY 10")), "")
        let copy = StatementResult(tag: "COPY 10", notices: ["Load into table 't' completed, 10 record(s) loaded successfully.",
                                                             "WARNING:  already prefixed"])
        XCTAssertEqual(ResultPrinter.notices(copy),
                       "INFO:  Load into table 't' completed, 10 record(s) loaded successfully.\nWARNING:  already prefixed\n")
        XCTAssertEqual(ResultPrinter.timing(milliseconds: 12.3456), "Time: 12.346 ms\n")
        XCTAssertEqual(ResultPrinter.timing(milliseconds: 61250), "Time: 61250.000 ms (01:01.250)\n")
        XCTAssertEqual(ResultPrinter.timing(milliseconds: 3_723_500), "Time: 3723500.000 ms (01:02:03.500)\n")
        XCTAssertEqual(ResultPrinter.timing(milliseconds: 90_061_000), "Time: 90061000.000 ms (1 d 01:01:01.000)\n")
    }

    // MARK: - Errors

    func testErrorWithCaret() {
        let error = SQLError.syntax("syntax error at or near \"fromm\"", line: 1, column: 10)
        XCTAssertEqual(ErrorReport.format(error, statement: "select * fromm t"),
                       "ERROR:  syntax error at or near \"fromm\"\n"
                       + "LINE 1: select * fromm t\n"
                       + String(repeating: " ", count: 17) + "^\n")
    }

    func testErrorOnLaterLineWithPrefixAndDetail() {
        let error = SQLError(.undefinedColumn, "column \"zz\" does not exist", line: 3, column: 14, detail: "Some detail.")
        XCTAssertEqual(ErrorReport.format(error, statement: "select a,\n  b\nfrom t where zz > 1",
                                          location: "slicehouse:q.sql:7: "),
                       "slicehouse:q.sql:7: ERROR:  column \"zz\" does not exist\n"
                       + "LINE 3: from t where zz > 1\n"
                       + String(repeating: " ", count: 21) + "^\n"
                       + "DETAIL:  Some detail.\n")
    }

    func testErrorWithoutPositionAndNonSQLErrors() {
        XCTAssertEqual(ErrorReport.format(SQLError.divisionByZero, statement: "select 1/0"), "ERROR:  division by zero\n")
        struct Odd: Error, CustomStringConvertible { var description: String { "odd failure" } }
        XCTAssertEqual(ErrorReport.format(Odd(), statement: nil), "ERROR:  odd failure\n")
        // Positions outside the statement are ignored rather than trusted.
        XCTAssertEqual(ErrorReport.positionLines(statement: "select 1", line: 2, column: 1), [])
        XCTAssertEqual(ErrorReport.positionLines(statement: "select 1", line: 1, column: 20), [])
        // The end of the line is a valid position (e.g. "at end of input").
        XCTAssertEqual(ErrorReport.positionLines(statement: "select", line: 1, column: 7), ["LINE 1: select", "              ^"])
    }

    func testLongLinesAreCutAroundTheCaret() {
        let line = String(repeating: "a", count: 50) + "BAD" + String(repeating: "b", count: 47)
        let lines = ErrorReport.positionLines(statement: line, line: 1, column: 81)
        XCTAssertEqual(lines.count, 2)
        // Cut 10 columns after the caret, then from the left to keep 60 columns.
        XCTAssertEqual(lines[0], "LINE 1: ..." + String(repeating: "a", count: 20) + "BAD" + String(repeating: "b", count: 37) + "...")
        XCTAssertEqual(lines[1], String(repeating: " ", count: 61) + "^")
        // Near the end of the line only the left side is cut.
        let late = ErrorReport.positionLines(statement: line, line: 1, column: 91)
        XCTAssertEqual(late[0], "LINE 1: ..." + String(repeating: "a", count: 10) + "BAD" + String(repeating: "b", count: 47))
        XCTAssertEqual(late[1], String(repeating: " ", count: 61) + "^")
        // A caret near the start only cuts the right side.
        let early = ErrorReport.positionLines(statement: line, line: 1, column: 3)
        XCTAssertEqual(early[0], "LINE 1: " + String(repeating: "a", count: 50) + "BAD" + String(repeating: "b", count: 7) + "...")
        XCTAssertEqual(early[1], String(repeating: " ", count: 10) + "^")
    }
}
