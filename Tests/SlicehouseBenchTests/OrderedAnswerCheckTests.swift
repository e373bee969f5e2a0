// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseBench

/// The TPC-DS answer checker: ORDER BY / LIMIT read from the SQL, multisets, ties, tolerances.
final class OrderedAnswerCheckTests: XCTestCase {
    func result(_ columns: [String], _ rows: [[String?]], types: [DataType]? = nil) -> ResultText {
        ResultText(columns: columns, types: types, rows: rows)
    }

    func check(_ got: ResultText, _ want: ResultText, _ order: ResultOrder) -> AnswerCheck {
        OrderedAnswerChecker.compare(got, with: want, order: order, reference: "DuckDB")
    }

    // MARK: Reading ORDER BY and LIMIT

    func testParseOrderByNamesPositionsAndQualifiedNames() {
        let sql = """
            SELECT a, sum(x) AS total, t.c
            FROM t -- ORDER BY nothing here
            WHERE s = 'ORDER BY z' GROUP BY a, t.c
            ORDER BY total DESC NULLS FIRST, t.a, 3 ASC
            LIMIT 100
            """
        let order = ResultOrder.parse(sql, columns: ["a", "total", "c"])
        XCTAssertEqual(order, ResultOrder(ordered: true, keys: [1, 0, 2], limit: 100,
                                          descending: [true, false, false], nullsFirst: [true, false, false]))
        XCTAssertEqual(ResultOrder.parse("SELECT a FROM t ORDER BY a DESC NULLS LAST", columns: ["a"]).nullsFirst, [false])
    }

    func testParseIgnoresWindowAndSubqueryOrderBy() {
        let sql = """
            SELECT * FROM (SELECT a, rank() OVER (PARTITION BY b ORDER BY c) r FROM t ORDER BY a LIMIT 5) x
            """
        XCTAssertEqual(ResultOrder.parse(sql, columns: ["a", "r"]), .unordered)
    }

    func testParseStopsAtFirstKeyThatIsNotAnOutputColumn() {
        let sql = "SELECT a, b FROM t ORDER BY a, sum(c), b LIMIT 10"
        XCTAssertEqual(ResultOrder.parse(sql, columns: ["a", "b"]), ResultOrder(ordered: true, keys: [0], limit: 10))
    }

    func testParseQuotedNameAndUnion() {
        let sql = #"SELECT x AS "30 days" FROM t UNION ALL SELECT y FROM u ORDER BY "30 days""#
        XCTAssertEqual(ResultOrder.parse(sql, columns: ["30 days"]), ResultOrder(ordered: true, keys: [0], limit: nil))
        // An ORDER BY inside a branch before UNION orders nothing of the result.
        XCTAssertEqual(ResultOrder.parse("(SELECT a FROM t ORDER BY a) UNION SELECT b FROM u", columns: ["a"]).ordered, false)
    }

    // MARK: Comparing

    func testUnorderedComparesMultisets() {
        let want = result(["a", "b"], [["1", "x"], ["2", nil], ["3", "z"]])
        let got = result(["a", "b"], [["3", "z"], ["1", "x"], ["2", nil]])
        XCTAssertEqual(check(got, want, .unordered).status, .pass)
        let wrong = result(["a", "b"], [["3", "z"], ["1", "x"], ["2", "y"]])
        let c = check(wrong, want, .unordered)
        XCTAssertEqual(c.status, .fail)
        XCTAssertTrue(c.detail?.contains("want NULL") ?? false, c.detail ?? "")
    }

    func testOrderedDetectsWrongOrder() {
        let want = result(["a", "b"], [["1", "x"], ["2", "y"], ["3", "z"]])
        let got = result(["a", "b"], [["2", "y"], ["1", "x"], ["3", "z"]])
        let order = ResultOrder(ordered: true, keys: [0], limit: nil)
        XCTAssertEqual(check(got, want, order).status, .fail)
        XCTAssertEqual(check(got, want, .unordered).status, .pass)
    }

    func testTiesInTheMiddleCompareAsMultisets() {
        let order = ResultOrder(ordered: true, keys: [0], limit: 100)
        let want = result(["k", "v"], [["1", "a"], ["1", "b"], ["2", "c"]])
        XCTAssertEqual(check(result(["k", "v"], [["1", "b"], ["1", "a"], ["2", "c"]]), want, order).status, .pass)
        // A tie group in the middle must hold the same rows.
        XCTAssertEqual(check(result(["k", "v"], [["1", "b"], ["1", "d"], ["2", "c"]]), want, order).status, .fail)
    }

    func testTiesAtTheLimitCutMayDiffer() {
        let order = ResultOrder(ordered: true, keys: [0], limit: 3)
        let want = result(["k", "v"], [["1", "a"], ["2", "b"], ["2", "c"]])
        // Another row of key 2 made the cut: accepted.
        XCTAssertEqual(check(result(["k", "v"], [["1", "a"], ["2", "b"], ["2", "d"]]), want, order).status, .pass)
        // But not another key.
        XCTAssertEqual(check(result(["k", "v"], [["1", "a"], ["2", "b"], ["3", "d"]]), want, order).status, .fail)
        // Without the cut (fewer rows than the LIMIT), the last group is compared too.
        let short = ResultOrder(ordered: true, keys: [0], limit: 100)
        XCTAssertEqual(check(result(["k", "v"], [["1", "a"], ["2", "b"], ["2", "d"]]), want, short).status, .fail)
    }

    func testRowCountDifferenceNamesAMissingRow() {
        let want = result(["a"], [["1"], ["2"]])
        let c = check(result(["a"], [["1"]]), want, .unordered)
        XCTAssertEqual(c.status, .fail)
        XCTAssertEqual(c.detail, "1 rows, want 2; missing e.g. 2")
    }

    func testNumbersWithinTolerance() {
        // A decimal AVG against DuckDB's double; Redshift's integer AVG against a double.
        let want = result(["avg_d", "avg_i", "ratio"], [["12.345000001", "3.4", "0.333333333333"]])
        let got = result(["avg_d", "avg_i", "ratio"], [["12.35", "3", "0.3333333"]],
                         types: [.decimal(precision: 38, scale: 2), .integer, .double])
        XCTAssertEqual(check(got, want, .unordered).status, .pass)
        let off = result(["avg_d", "avg_i", "ratio"], [["12.37", "3", "0.3333333"]],
                         types: [.decimal(precision: 38, scale: 2), .integer, .double])
        XCTAssertEqual(check(off, want, .unordered).status, .fail)
        // Untyped: a relative 1e-6 between any two numbers.
        XCTAssertTrue(OrderedAnswerChecker.fieldMatches("1000000.5", "1000000.9", nil))
        XCTAssertFalse(OrderedAnswerChecker.fieldMatches("1.5", "1.6", nil))
    }

    func testRedshiftIntegerAverageReordersTies() {
        // ORDER BY qoh, name: Redshift's AVG(int) truncates 4.6 and 4.2 to 4, so the names
        // order them; DuckDB ordered them by the doubles.
        let sql = "SELECT name, avg(q) qoh FROM t GROUP BY name ORDER BY qoh, name LIMIT 100"
        let want = result(["name", "qoh"], [["b", "4.2"], ["a", "4.6"], ["c", "5.0"]])
        let got = result(["name", "qoh"], [["a", "4"], ["b", "4"], ["c", "5"]], types: [.varchar(10), .bigint])
        XCTAssertEqual(check(got, want, ResultOrder.parse(sql, columns: got.columns)).status, .pass)
        // Descending, NULLs first.
        let descSQL = "SELECT name, avg(q) qoh FROM t GROUP BY name ORDER BY qoh DESC, name"
        let wantDesc = result(["name", "qoh"], [[ "z", nil], ["c", "5.0"], ["a", "4.6"], ["b", "4.2"]])
        let gotDesc = result(["name", "qoh"], [["z", nil], ["c", "5"], ["a", "4"], ["b", "4"]], types: [.varchar(10), .bigint])
        XCTAssertEqual(check(gotDesc, wantDesc, ResultOrder.parse(descSQL, columns: gotDesc.columns)).status, .pass)
        let wrong = result(["name", "qoh"], [["z", nil], ["c", "5"], ["b", "4"], ["a", "4"]], types: [.varchar(10), .bigint])
        XCTAssertEqual(check(wrong, wantDesc, ResultOrder.parse(descSQL, columns: wrong.columns)).status, .fail)
    }

    func testNullsMatchOnlyNulls() {
        XCTAssertTrue(OrderedAnswerChecker.fieldMatches(nil, nil, .integer))
        XCTAssertFalse(OrderedAnswerChecker.fieldMatches(nil, "0", .integer))
        XCTAssertFalse(OrderedAnswerChecker.fieldMatches("", nil, .varchar(10)))
    }

    func testColumnNames() {
        let want = result(["i_item_id", "sum(ss_net_profit)"], [["a", "1"]])
        XCTAssertEqual(check(result(["i_item_id", "sum"], [["a", "1"]]), want, .unordered).status, .pass)
        XCTAssertEqual(check(result(["item", "sum"], [["a", "1"]]), want, .unordered).status, .fail)
        XCTAssertEqual(check(result(["i_item_id"], [["a"]]), want, .unordered).status, .fail)
    }
}
