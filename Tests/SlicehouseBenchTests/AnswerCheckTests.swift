// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseBench

final class AnswerCheckTests: XCTestCase {
    func testFieldRules() {
        let dec2 = DataType.decimal(precision: 15, scale: 2)
        XCTAssertTrue(AnswerChecker.matches("10.00", "10.00", dec2))
        XCTAssertTrue(AnswerChecker.matches("10.00", "10.009", dec2))
        XCTAssertFalse(AnswerChecker.matches("10.00", "10.02", dec2))
        // A DECIMAL average against DuckDB's double.
        XCTAssertTrue(AnswerChecker.matches("25.5752", "25.575154611454693", .decimal(precision: 38, scale: 4)))
        // Big sums compare in decimal arithmetic, not doubles.
        XCTAssertTrue(AnswerChecker.matches("52616593400.083900", "52616593400.083900", .decimal(precision: 38, scale: 6)))
        XCTAssertFalse(AnswerChecker.matches("52616593400.083902", "52616593400.083900", .decimal(precision: 38, scale: 6)))
        XCTAssertTrue(AnswerChecker.matches("52616593400.0839005", "52616593400.083900", .decimal(precision: 38, scale: 6)))
        XCTAssertTrue(AnswerChecker.matches("3", "3.4", .decimal(precision: 10, scale: 0)))
        XCTAssertFalse(AnswerChecker.matches("abc", "1", dec2))
        // Floating point: relative 1e-6.
        XCTAssertTrue(AnswerChecker.matches("1000000.5", "1000000.0", .double))
        XCTAssertFalse(AnswerChecker.matches("1000010", "1000000", .double))
        // Integers: within one (an integer AVG against DuckDB's double).
        XCTAssertTrue(AnswerChecker.matches("25", "25.57", .bigint))
        XCTAssertFalse(AnswerChecker.matches("24", "25.57", .bigint))
        // Text: CHAR's trailing blanks do not count.
        XCTAssertTrue(AnswerChecker.matches("BUILDING  ", "BUILDING", .char(10)))
        XCTAssertFalse(AnswerChecker.matches(" BUILDING", "BUILDING", .char(10)))
        XCTAssertTrue(AnswerChecker.matches("1995-03-15", "1995-03-15", .date))
        XCTAssertFalse(AnswerChecker.matches("1995-03-16", "1995-03-15", .date))
        // NULLs.
        XCTAssertTrue(AnswerChecker.matches(nil, nil, .integer))
        XCTAssertFalse(AnswerChecker.matches(nil, "1", .integer))
        // Without a type (DuckDB's results against the reference): numbers by the reference's places.
        XCTAssertTrue(AnswerChecker.matches("0.0500813390696", "0.05008133906964238", nil))
        XCTAssertTrue(AnswerChecker.matches("12.004", "12.00", nil))
        XCTAssertFalse(AnswerChecker.matches("12.02", "12.00", nil))
        XCTAssertTrue(AnswerChecker.matches("MAIL ", "MAIL", nil))
        XCTAssertFalse(AnswerChecker.matches("MAIL", "SHIP", nil))
    }

    func testParseAnswer() throws {
        let r = try ResultText.parseAnswer("a|b|c\n1|x|\n2|y|NULL\n")
        XCTAssertEqual(r.columns, ["a", "b", "c"])
        XCTAssertEqual(r.rows, [["1", "x", ""], ["2", "y", nil]])
        XCTAssertThrowsError(try ResultText.parseAnswer(""))
        // Every embedded answer parses, with as many fields per row as columns.
        for scale in TPCHText.answerScales {
            for n in 1...22 {
                guard let text = TPCHText.answer(scale: scale, query: n) else { return XCTFail("\(scale) Q\(n) missing") }
                let a = try ResultText.parseAnswer(text)
                XCTAssertTrue(a.rows.allSatisfy { $0.count == a.columns.count }, "\(scale) Q\(n)")
            }
        }
    }

    func testCompare() {
        let want = ResultText(columns: ["l_returnflag", "sum(l_quantity)", "avg_qty"],
                              rows: [["A", "380456.00", "25.575154611454693"], ["N", "8971.00", "25.77"]])
        let types: [DataType] = [.char(1), .decimal(precision: 38, scale: 2), .decimal(precision: 38, scale: 4)]
        let good = ResultText(columns: ["l_returnflag", "sum", "avg_qty"], types: types,
                              rows: [["A", "380456.00", "25.5752"], ["N", "8971.00", "25.7700"]])
        XCTAssertEqual(AnswerChecker.compare(good, with: want, reference: "ref"), .pass("ref"))

        var wrongValue = good
        wrongValue.rows[1][1] = "8972.00"
        let failed = AnswerChecker.compare(wrongValue, with: want, reference: "ref")
        XCTAssertEqual(failed.status, .fail)
        XCTAssertEqual(failed.detail, "row 2 column sum(l_quantity): got 8972.00, want 8971.00")

        var fewerRows = good
        fewerRows.rows.removeLast()
        XCTAssertEqual(AnswerChecker.compare(fewerRows, with: want, reference: "ref").detail, "1 rows, want 2")

        var renamed = good
        renamed.columns[0] = "flag"
        XCTAssertEqual(AnswerChecker.compare(renamed, with: want, reference: "ref").detail,
                       "column flag should be named l_returnflag")

        var narrow = good
        narrow.columns.removeLast()
        XCTAssertEqual(AnswerChecker.compare(narrow, with: want, reference: "ref").detail, "2 columns, want 3")

        // Rows are compared in order.
        var swapped = good
        swapped.rows.swapAt(0, 1)
        XCTAssertEqual(AnswerChecker.compare(swapped, with: want, reference: "ref").status, .fail)
    }

    func testLabels() {
        XCTAssertEqual(AnswerCheck.pass("x").label, "pass")
        XCTAssertEqual(AnswerCheck.fail("x", "y").label, "FAIL")
        XCTAssertEqual(AnswerCheck.unchecked.label, "unchecked")
        XCTAssertEqual(AnswerCheck.error("boom").label, "ERROR")
    }
}
