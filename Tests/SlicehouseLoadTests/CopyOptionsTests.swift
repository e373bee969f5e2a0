// SPDX-License-Identifier: Apache-2.0
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

    func testFormatsAndCompression() throws {
        let fw = try opts(("fixedwidth", "id:3, name : 10"), ("gzip", nil))
        XCTAssertEqual(fw.format, .fixedWidth)
        XCTAssertEqual(fw.fixedWidth, [FixedWidthField(label: "id", width: 3), FixedWidthField(label: "name", width: 10)])
        XCTAssertEqual(fw.compression, .gzip)
        let json = try opts(("json", "auto"), ("bzip2", nil), ("TIMEFORMAT", "auto"))
        XCTAssertEqual(json.format, .json)
        XCTAssertEqual(json.json, .auto(ignoreCase: false))
        XCTAssertEqual(json.compression, .bzip2)
        XCTAssertEqual(try opts(("json", "/tmp/paths.json")).json, .paths(file: "/tmp/paths.json"))
        XCTAssertEqual(try opts(("json", "file:///tmp/p%20q.json")).json, .paths(file: "/tmp/p q.json"))
        // FORMAT CSV and CSV together are redundant but agree.
        XCTAssertEqual(try opts(("FORMAT", "CSV"), ("CSV", nil)).format, .csv)
        XCTAssertNil(try opts(("CSV", nil)).json)
        XCTAssertEqual(try opts(("CSV", nil)).fixedWidth, [])
    }

    func testFormatConflicts() {
        let cases: [[(String, String?)]] = [
            [("json", "auto"), ("CSV", nil)],
            [("json", "auto"), ("DELIMITER", ",")],
            [("json", "auto"), ("NULL", "x")],
            [("json", "auto"), ("IGNOREHEADER", "1")],
            [("json", "auto"), ("FIXEDWIDTH", "a:1")],
            [("FIXEDWIDTH", "a:1"), ("CSV", nil)],
            [("FIXEDWIDTH", "a:1"), ("DELIMITER", ",")],
            [("FIXEDWIDTH", "a:1"), ("ESCAPE", nil)],
            [("FIXEDWIDTH", "a:1"), ("REMOVEQUOTES", nil)],
            [("FIXEDWIDTH", "a:1"), ("QUOTE", "'")],
            [("FORMAT", "FIXEDWIDTH")],
            [("FORMAT", "JSON")],
            [("GZIP", nil), ("GZIP", nil)],
        ]
        for c in cases {
            XCTAssertThrowsError(try CopyOptions(options: c.map { (name: $0.0, value: $0.1) }), "\(c)") { e in
                XCTAssertTrue(e is SQLError, "\(c): \(e)")
            }
        }
        let e = expectSQLError { try opts(("json", "auto"), ("DELIMITER", ",")) }
        XCTAssertEqual(e?.message, "JSON cannot be used with DELIMITER")
        let f = expectSQLError { try opts(("CSV", nil), ("FIXEDWIDTH", "a:1")) }
        XCTAssertEqual(f?.message, "COPY options CSV and FIXEDWIDTH select different data formats")
    }

    func testJSONNoshred() throws {
        XCTAssertEqual(try opts(("JSON", "noshred")).json, .noshred)
        XCTAssertEqual(try opts(("JSON", " NoShred ")).json, .noshred)
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
            [("JSON", nil)],
            [("FORMAT", "AVRO")],
            [("DELIMITER", "\\n")],
        ]
        for c in cases {
            XCTAssertThrowsError(try CopyOptions(options: c.map { (name: $0.0, value: $0.1) }), "\(c)") { e in
                XCTAssertTrue(e is SQLError, "\(c): \(e)")
            }
        }
    }
}
