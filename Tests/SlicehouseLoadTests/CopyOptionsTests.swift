@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// Parsing the COPY parameter list.
final class CopyOptionsTests: XCTestCase {
    func testDefaults() throws {
        let o = try opts()
        XCTAssertEqual(o.format, .text)
        XCTAssertEqual(o.delimiter, UInt8(ascii: "|"))
        XCTAssertEqual(o.nullString, Array("\\N".utf8))
        XCTAssertEqual(o.maxError, 0)
        let csv = try opts(("csv", nil))
        XCTAssertEqual(csv.format, .csv)
        XCTAssertEqual(csv.delimiter, UInt8(ascii: ","))
        XCTAssertEqual(csv.quote, UInt8(ascii: "\""))
    }

    func testValues() throws {
        let o = try opts(("delimiter", "\\t"), ("IgnoreHeader", "2"), ("NULL", "nil"), ("maxerror", "10"),
                         ("ACCEPTINVCHARS", "_"), ("COMPUPDATE", "OFF"), ("STATUPDATE", nil),
                         ("IAM_ROLE", "arn:aws:iam::1:role/x"), ("REGION", "us-east-1"), ("ENCODING", "UTF8"))
        XCTAssertEqual(o.delimiter, 9)
        XCTAssertEqual(o.ignoreHeader, 2)
        XCTAssertEqual(o.nullString, Array("nil".utf8))
        XCTAssertEqual(o.maxError, 10)
        XCTAssertEqual(o.acceptInvalidChars, UInt8(ascii: "_"))
        XCTAssertEqual(o.compUpdate, "OFF")
        XCTAssertEqual(try opts(("DELIMITER", "\\011")).delimiter, 9)
        XCTAssertEqual(try opts(("IGNOREALLERRORS", nil)).maxError, Int.max)
        XCTAssertEqual(try opts(("NULL", "\\0")).nullString, [0])
    }

    func testErrors() {
        let cases: [[(String, String?)]] = [
            [("BOGUS", nil)],
            [("DELIMITER", "ab")],
            [("DELIMITER", nil)],
            [("DELIMITER", "|"), ("delimiter", ",")],
            [("QUOTE", "'")],                       // QUOTE without CSV
            [("CSV", nil), ("ESCAPE", nil)],
            [("CSV", nil), ("REMOVEQUOTES", nil)],
            [("CSV", nil), ("QUOTE", ",")],          // quote == delimiter
            [("MAXERROR", "-1")],
            [("MAXERROR", "100001")],
            [("IGNOREHEADER", "x")],
            [("EMPTYASNULL", "yes")],
            [("DATEFORMAT", "YYYY-QQ")],
            [("ENCODING", "LATIN1")],
            [("JSON", "auto")],
            [("FORMAT", "PARQUET")],
            [("DELIMITER", "\\n")],
        ]
        for c in cases {
            XCTAssertThrowsError(try CopyOptions(options: c.map { (name: $0.0, value: $0.1) }), "\(c)") { e in
                XCTAssertTrue(e is SQLError, "\(c): \(e)")
            }
        }
    }
}
