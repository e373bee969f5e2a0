// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// CSV: quoting, doubled quotes, delimiters and newlines inside quotes, custom quote.
final class CSVTests: XCTestCase {
    let cols = [col("i", .integer), col("s", .varchar(30)), col("t", .varchar(30))]

    func testQuotedFields() throws {
        let csv = "1,\"a,b\",plain\n2,\"say \"\"hi\"\"\",\"multi\nline\"\n3,,\"\"\n4,\\N,\"\\N\"\r\n"
        let r = try loadText(csv, columns: cols, options: opts(("CSV", nil)))
        XCTAssertEqual(rows(r), [
            [.int(1), .string("a,b"), .string("plain")],
            [.int(2), .string("say \"hi\""), .string("multi\nline")],
            [.int(3), .string(""), .string("")],
            // Only unquoted fields match NULL AS.
            [.int(4), .null, .string("\\N")],
        ])
    }

    func testEmptyAsNullOnlyForUnquotedEmptyFields() throws {
        let r = try loadText("1,,\"\"\n", columns: cols, options: opts(("CSV", nil), ("EMPTYASNULL", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .null, .string("")]])
    }

    func testFormatAsCSVWithCustomQuoteAndDelimiter() throws {
        let r = try loadText("1|'x|y'|'it''s'\n", columns: cols,
                             options: opts(("FORMAT", "csv"), ("QUOTE", "'"), ("DELIMITER", "|")))
        XCTAssertEqual(rows(r), [[.int(1), .string("x|y"), .string("it's")]])
    }

    func testQuoteInsideUnquotedFieldIsData() throws {
        let r = try loadText("1,ab\"c,d\n", columns: cols, options: opts(("CSV", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .string("ab\"c"), .string("d")]])
    }

    func testIgnoreHeaderSkipsRecordsAndKeepsLineNumbers() throws {
        // The header record spans two lines; the bad row is on physical line 4.
        let csv = "\"id\",\"two\nline header\",t\n1,a,b\nx,a,b\n"
        let e = expectLoadError {
            try loadText(csv, columns: self.cols, options: opts(("CSV", nil), ("IGNOREHEADER", "1")))
        }
        XCTAssertEqual(e?.line, 4)
        XCTAssertEqual(e?.code, .invalidDigit)
    }

    func testQuotedNewlinesAcrossParallelRanges() throws {
        // Many records with embedded newlines; cut into tiny ranges the boundaries must
        // still fall between records, and line numbers must stay exact.
        var csv = ""
        for i in 0..<3000 { csv += "\(i),\"row \(i)\nsecond, line\",\"x\"\"y\"\n" }
        csv += "oops,\"a\",\"b\"\n"
        let o = try opts(("CSV", nil), ("MAXERROR", "1"))
        let r = try loadText(csv, columns: cols, options: o, tuning: CopyTuning(chunkRows: 500, rangeBytes: 4096, workers: 4))
        XCTAssertEqual(r.rowCount, 3000)
        let v = rows(r)
        XCTAssertEqual(v[2999], [.int(2999), .string("row 2999\nsecond, line"), .string("x\"y")])
        XCTAssertEqual(r.rejected.map(\.line), [6001])
    }

    func testUnterminatedQuote() throws {
        let e = expectLoadError { try loadText("1,a,b\n2,\"open,c\n3,d,e\n", columns: self.cols, options: opts(("CSV", nil))) }
        XCTAssertEqual(e?.code, .invalidLine)
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.position, 1)
    }

    func testJunkAfterClosingQuote() throws {
        let e = expectLoadError { try loadText("1,\"a\"x,b\n", columns: self.cols, options: opts(("CSV", nil))) }
        XCTAssertEqual(e?.code, .delimiterNotFound)
        XCTAssertEqual(e?.position, 1)
        XCTAssertEqual(e?.rawLine, "1,\"a\"x,b")
    }
}
