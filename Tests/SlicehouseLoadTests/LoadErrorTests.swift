// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// Every rejection kind with its exact file / line / column / position, MAXERROR,
/// and the user-facing SQLError.
final class LoadErrorTests: XCTestCase {
    let cols = [col("id", .integer), col("name", .varchar(5)), col("day", .date)]

    func check(_ data: String, columns: [ColumnDef]? = nil, options: CopyOptions = CopyOptions(),
               code: LoadErrorCode, line: Int, column: String, position: Int, value: String? = nil,
               reasonContains: String? = nil, file: StaticString = #filePath, at: UInt = #line) {
        let e = expectLoadError({ try loadText(data, columns: columns ?? self.cols, options: options) }, file: file, line: at)
        guard let e else { return }
        XCTAssertEqual(e.code, code, "\(e)", file: file, line: at)
        XCTAssertEqual(e.line, line, "\(e)", file: file, line: at)
        XCTAssertEqual(e.column, column, "\(e)", file: file, line: at)
        XCTAssertEqual(e.position, position, "\(e)", file: file, line: at)
        XCTAssertTrue(e.file.hasSuffix("/data.txt"), e.file, file: file, line: at)
        if let value { XCTAssertEqual(e.rawFieldValue, value, "\(e)", file: file, line: at) }
        if let reasonContains { XCTAssertTrue(e.reason.contains(reasonContains), e.reason, file: file, line: at) }
    }

    func testExtraColumns() {
        check("1|a|2020-01-01\n2|b|2020-01-01|x\n", code: .extraColumns, line: 2, column: "", position: 3, value: "x")
        // Two trailing delimiters are not "one trailing delimiter".
        check("1|a|2020-01-01||\n", code: .extraColumns, line: 1, column: "", position: 3)
    }

    func testMissingColumns() {
        check("1|a|2020-01-01\n\n2|b\n", code: .missingColumns, line: 2, column: "name", position: 1)
        check("1|a|2020-01-01\n2|b\n", code: .missingColumns, line: 2, column: "day", position: 2)
    }

    func testInvalidDigit() {
        check("1|a|2020-01-01\n1x|b|2020-01-01\n", code: .invalidDigit, line: 2, column: "id", position: 0,
              value: "1x", reasonContains: "Invalid digit, Value 'x', Pos 1, Type: Integer")
        check("1,5\n", columns: [col("d", .decimal(precision: 5, scale: 1))], code: .invalidDigit, line: 1,
              column: "d", position: 0, reasonContains: "Pos 1, Type: Decimal")
        check("abc\n", columns: [col("f", .double)], code: .invalidDigit, line: 1, column: "f", position: 0)
    }

    func testOutOfRange() {
        check("40000\n", columns: [col("s", .smallint)], code: .valueOutOfRange, line: 1, column: "s", position: 0)
        check("2147483648\n", columns: [col("i", .integer)], code: .valueOutOfRange, line: 1, column: "i", position: 0)
        check("99999999999999999999\n", columns: [col("b", .bigint)], code: .valueOutOfRange, line: 1, column: "b", position: 0)
        check("1000.0\n", columns: [col("d", .decimal(precision: 5, scale: 2))], code: .valueOutOfRange, line: 1,
              column: "d", position: 0)
        check("1e39\n", columns: [col("r", .real)], code: .valueOutOfRange, line: 1, column: "r", position: 0)
        check("1e400\n", columns: [col("r", .double)], code: .valueOutOfRange, line: 1, column: "r", position: 0)
        check("1|toolong|2020-01-01\n", code: .valueOutOfRange, line: 1, column: "name", position: 1,
              value: "toolong", reasonContains: "String length exceeds DDL length")
        // Length is in bytes: 3 characters, 6 bytes.
        check("1|ééé|2020-01-01\n", code: .valueOutOfRange, line: 1, column: "name", position: 1)
    }

    func testInvalidDateAndTimestamp() {
        check("1|a|2020-02-30\n", code: .invalidDate, line: 1, column: "day", position: 2, value: "2020-02-30")
        check("2020-01-01 25:00:00\n", columns: [col("ts", .timestamp)], code: .invalidTimestamp, line: 1,
              column: "ts", position: 0)
    }

    func testInvalidBoolean() {
        check("maybe\n", columns: [col("b", .boolean)], code: .invalidBoolean, line: 1, column: "b", position: 0)
    }

    func testInvalidUTF8() throws {
        let d = try TempDir()
        var bytes = Array("1|ok|2020-01-01\n2|a".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("|2020-01-01\n".utf8)
        let path = try d.write("bad.txt", bytes: bytes)
        let e = expectLoadError { try CopyLoader.load(table: "t", columns: self.cols, source: path, options: CopyOptions(), context: QueryContext()) }
        XCTAssertEqual(e?.code, .invalidUTF8)
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.column, "name")
        XCTAssertTrue(e?.reason.contains("c3 28") ?? false, e?.reason ?? "")
        // CHAR columns take single-byte characters only.
        check("é\n", columns: [col("c", .char(4))], code: .invalidUTF8, line: 1, column: "c", position: 0,
              reasonContains: "Multibyte character not supported for CHAR")
    }

    func testNotNull() {
        check("1|a|2020-01-01\n\\N|b|2020-01-01\n", columns: [col("id", .integer, notNull: true), col("name", .varchar(5)),
                                                            col("day", .date)],
              code: .notNullViolation, line: 2, column: "id", position: 0)
    }

    func testAsSQLError() throws {
        let e = expectLoadError { try loadText("1|a|2020-01-01\nxx|b|2020-01-01\n", columns: self.cols) }
        let s = try XCTUnwrap(e).asSQLError()
        XCTAssertEqual(s.code, .loadError)
        XCTAssertEqual(s.message, "Load into table 't' failed. Check 'stl_load_errors' system table for details.")
        let detail = try XCTUnwrap(s.detail)
        XCTAssertTrue(detail.hasPrefix("file '"), detail)
        XCTAssertTrue(detail.hasSuffix("data.txt', line 2, column id (position 0): Invalid digit, Value 'x', Pos 0, Type: Integer [1207] — raw field value 'xx'"), detail)
        XCTAssertEqual(e?.rawLine, "xx|b|2020-01-01")
        XCTAssertEqual(e?.columnType, "integer")
    }

    func testRawLineIsTruncated() throws {
        let long = String(repeating: "y", count: 3000)
        let e = expectLoadError { try loadText("1|\(long)|2020-01-01\n", columns: self.cols) }
        XCTAssertEqual(e?.rawLine.utf8.count, 1024)
        XCTAssertEqual(e?.rawFieldValue.utf8.count, 1024)
        XCTAssertEqual(e?.columnLength, 5)
    }

    func testMaxErrorSkipsAndRecordsRows() throws {
        let data = "1|a|2020-01-01\nx|b|2020-01-01\n3|c|2020-13-01\n4|d|2020-01-04\n"
        let r = try loadText(data, columns: cols, options: opts(("MAXERROR", "2")))
        XCTAssertEqual(rows(r).map { $0[0] }, [.int(1), .int(4)])
        XCTAssertEqual(r.rejected.map(\.line), [2, 3])
        XCTAssertEqual(r.rejected.map(\.code), [.invalidDigit, .invalidDate])
        XCTAssertEqual(r.rejectedCount, 2)
        // A rejected row leaves no partial values behind in earlier columns.
        XCTAssertEqual(r.chunks[0].columns.map(\.count), [2, 2, 2])

        let e = expectLoadError { try loadText(data, columns: self.cols, options: opts(("MAXERROR", "1"))) }
        XCTAssertEqual(e?.line, 3)
        XCTAssertEqual(e?.earlierRejections.map(\.line), [2])
    }

    func testIgnoreAllErrors() throws {
        let r = try loadText("x\n1\ny\n", columns: [col("a", .integer)], options: opts(("IGNOREALLERRORS", nil)))
        XCTAssertEqual(r.rowCount, 1)
        XCTAssertEqual(r.rejectedCount, 2)
    }

    /// A bad line deep in a file cut into many ranges parsed in parallel: the line
    /// number must be exact, and the first bad line in file order wins.
    func testDeepErrorInParallelRanges() throws {
        var text = ""
        for i in 1...50_000 {
            if i == 37_123 { text += "\(i)|bad|2020-01-0x|\n"; continue }
            if i == 45_000 { text += "oops|x|2020-01-01|\n"; continue }
            text += "\(i)|n\(i % 1000)|2020-01-01|\n"
        }
        let tuning = CopyTuning(chunkRows: 4096, rangeBytes: 16 << 10, workers: 4)
        let e = expectLoadError { try loadText(text, columns: self.cols, options: opts(("IGNOREHEADER", "0")), tuning: tuning) }
        XCTAssertEqual(e?.line, 37_123)
        XCTAssertEqual(e?.column, "day")
        XCTAssertEqual(e?.position, 2)
        XCTAssertEqual(e?.code, .invalidDate)
        XCTAssertEqual(e?.rawLine, "37123|bad|2020-01-0x|")

        // With MAXERROR both are skipped and reported at their exact lines; the rest loads.
        let r = try loadText("h1\nh2\n" + text, columns: cols, options: opts(("MAXERROR", "5"), ("IGNOREHEADER", "2")),
                             tuning: tuning)
        XCTAssertEqual(r.rowCount, 49_998)
        XCTAssertEqual(r.rejected.map(\.line), [37_125, 45_002])
        let ids = rows(r).map { $0[0].asInt64 ?? -1 }
        XCTAssertEqual(ids.first, 1)
        XCTAssertEqual(ids.last, 50_000)
        XCTAssertFalse(ids.contains(37_123))
        XCTAssertEqual(ids, ids.sorted(), "rows come back in file order")
        XCTAssertTrue(r.chunks.allSatisfy { $0.count <= 4096 })
    }

    func testEscapedNewlinesAcrossRangeCuts() throws {
        // Backslash-escaped newlines must never be taken as range cuts.
        var text = ""
        for i in 0..<20_000 { text += "\(i)|a\\\nb\\\\|2020-01-01\n" }
        text += "z|a|2020-01-01\n"
        let tuning = CopyTuning(chunkRows: 1000, rangeBytes: 8 << 10, workers: 3)
        let e = expectLoadError { try loadText(text, columns: self.cols, options: opts(("ESCAPE", nil)), tuning: tuning) }
        XCTAssertEqual(e?.line, 40_001)
        let r = try loadText(text, columns: cols, options: opts(("ESCAPE", nil), ("MAXERROR", "1")), tuning: tuning)
        XCTAssertEqual(r.rowCount, 20_000)
        XCTAssertEqual(rows(r)[19_999], [.int(19_999), .string("a\nb\\"), .int(DateTime.days(year: 2020, month: 1, day: 1))])
    }
}
