// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// NULL AS, `\N`, empty and blank fields, EMPTYASNULL / BLANKSASNULL.
final class NullHandlingTests: XCTestCase {
    let cols = [col("i", .integer), col("v", .varchar(10)), col("d", .date), col("b", .boolean)]

    func testDefaultNullStringAndEmptyFields() throws {
        let r = try loadText("\\N|\\N|\\N|\\N\n|||\n  |  |  |  \n", columns: cols)
        XCTAssertEqual(rows(r), [
            [.null, .null, .null, .null],
            // Empty: NULL for non-strings, '' for strings.
            [.null, .string(""), .null, .null],
            // Blank: NULL for non-strings, kept for strings.
            [.null, .string("  "), .null, .null],
        ])
        let v = r.chunks[0].columns[1]
        XCTAssertTrue(v.isNull(0))
        XCTAssertFalse(v.isNull(1))
    }

    func testNullAs() throws {
        let r = try loadText("NULL|NULL|x|t\n5|\\N|NULL|f\n",
                             columns: [col("i", .integer), col("v", .varchar(10)), col("w", .varchar(10)), col("b", .boolean)],
                             options: opts(("NULL", "NULL")))
        // With NULL AS 'NULL', `\N` is ordinary data.
        XCTAssertEqual(rows(r), [
            [.null, .null, .string("x"), .bool(true)],
            [.int(5), .string("\\N"), .null, .bool(false)],
        ])
    }

    func testEmptyAsNullAndBlanksAsNull() throws {
        let r = try loadText("|  \n", columns: [col("v", .varchar(10)), col("w", .varchar(10))],
                             options: opts(("EMPTYASNULL", nil), ("BLANKSASNULL", nil)))
        XCTAssertEqual(rows(r), [[.null, .null]])
        let r2 = try loadText("||\n", columns: [col("v", .varchar(10)), col("w", .char(3))],
                              options: opts(("NULL", "")))
        XCTAssertEqual(rows(r2), [[.null, .null]])
    }

    func testNullsAcrossManyRowsSetValidityBits() throws {
        var text = ""
        for i in 0..<200 { text += i % 3 == 0 ? "\\N\n" : "\(i)\n" }
        let r = try loadText(text, columns: [col("i", .bigint)])
        let v = rows(r).map { $0[0] }
        for i in 0..<200 { XCTAssertEqual(v[i], i % 3 == 0 ? .null : .int(Int64(i)), "row \(i)") }
        XCTAssertEqual(r.chunks[0].columns[0].validity?.nullCount(200), 67)
    }

    func testNotNullColumnRejectsNull() throws {
        let e = expectLoadError { try loadText("1\n\\N\n", columns: [col("i", .integer, notNull: true)]) }
        XCTAssertEqual(e?.code, .notNullViolation)
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.column, "i")
        // An empty integer field is NULL too.
        XCTAssertEqual(expectLoadError { try loadText("\n", columns: [col("i", .integer, notNull: true)]) }?.code,
                       .notNullViolation)
    }
}
