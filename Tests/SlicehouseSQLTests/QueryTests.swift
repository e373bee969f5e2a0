// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class QueryTests: XCTestCase {
    func testSelectClauses() throws {
        let s = try select("""
            SELECT DISTINCT a, b AS x, c y, t.*, * FROM t WHERE a > 1 GROUP BY a, 2
            HAVING count(*) > 1 QUALIFY row_number() OVER (ORDER BY a) = 1
            """)
        XCTAssertTrue(s.distinct)
        XCTAssertEqual(s.items, [item(col("a")), item(col("b"), "x"), item(col("c"), "y"),
                                 .wildcard(Wildcard(qualifier: ["t"])), .wildcard(Wildcard())])
        XCTAssertEqual(s.from, [table("t")])
        XCTAssertEqual(s.whereClause, bin(.greater, col("a"), int("1")))
        XCTAssertEqual(s.groupBy, [.expr(col("a")), .expr(int("2"))])
        XCTAssertEqual(s.having, bin(.greater, Expr(.function(FunctionCall(name: "count", star: true))), int("1")))
        XCTAssertEqual(s.qualify, bin(.equal, Expr(.function(FunctionCall(
            name: "row_number", over: WindowSpec(orderBy: [OrderItem(expr: col("a"))])))), int("1")))
    }

    func testSelectWithoutFrom() throws {
        let s = try select("SELECT 1, 'a' AS \"Name\"")
        XCTAssertEqual(s.items, [item(int("1")), item(str("a"), "name")])   // enable_case_sensitive_identifier off
        XCTAssertEqual(s.from, [])
    }

    func testAliasAfterAsMayBeAKeyword() throws {
        XCTAssertEqual(try select("SELECT 1 AS from").items, [item(int("1"), "from")])
    }

    func testTop() throws {
        let s = try select("SELECT TOP 10 a FROM t")
        XCTAssertEqual(s.top, int("10"))
        XCTAssertEqual(s.items, [item(col("a"))])
        // `top` is an ordinary name when no number follows.
        XCTAssertEqual(try select("SELECT top FROM t").items, [item(col("top"))])
    }

    func testOrderByLimitOffset() throws {
        let q = try query("SELECT a FROM t ORDER BY 1 DESC NULLS LAST, b ASC, c NULLS FIRST LIMIT 10 OFFSET 5")
        XCTAssertEqual(q.orderBy, [OrderItem(expr: int("1"), descending: true, nullsFirst: false),
                                   OrderItem(expr: col("b")), OrderItem(expr: col("c"), nullsFirst: true)])
        XCTAssertEqual(q.limit, int("10"))
        XCTAssertEqual(q.offset, int("5"))
        let all = try query("SELECT a FROM t OFFSET 2 ROWS LIMIT ALL")
        XCTAssertNil(all.limit)
        XCTAssertEqual(all.offset, int("2"))
    }

    func testGroupingSets() throws {
        let s = try select("""
            SELECT a FROM t GROUP BY ROLLUP (a, (b, c)), CUBE (d), GROUPING SETS ((a, b), (a), ()), (e + 1) * 2, ()
            """)
        XCTAssertEqual(s.groupBy, [
            .rollup([[col("a")], [col("b"), col("c")]]),
            .cube([[col("d")]]),
            .groupingSets([[col("a"), col("b")], [col("a")], []]),
            .expr(bin(.multiply, bin(.add, col("e"), int("1")), int("2"))),
            .groupingSets([[]]),
        ])
    }

    func testRollupItemThatIsAParenthesisedExpression() throws {
        let s = try select("SELECT 1 FROM t GROUP BY ROLLUP ((a + b) * 2, c)")
        XCTAssertEqual(s.groupBy, [.rollup([[bin(.multiply, bin(.add, col("a"), col("b")), int("2"))], [col("c")]])])
    }

    func testWith() throws {
        let q = try query("WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r), s AS (SELECT 2) SELECT * FROM r, s")
        XCTAssertEqual(q.with?.recursive, true)
        XCTAssertEqual(q.with?.ctes.map(\.name), ["r", "s"])
        XCTAssertEqual(q.with?.ctes.first?.columns, ["n"])
        guard case .setOperation(let op) = q.with?.ctes.first?.query.body else { return XCTFail() }
        XCTAssertEqual(op.op, .union)
        XCTAssertTrue(op.all)
    }

    func testSetOperationPrecedence() throws {
        // INTERSECT binds tighter; UNION and EXCEPT are left-associative; MINUS is EXCEPT.
        let q = try query("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT ALL SELECT 4 MINUS SELECT 5")
        func sel(_ n: String) -> QueryBody { .select(Select(items: [item(int(n))])) }
        let intersect = QueryBody.setOperation(SetOperation(op: .intersect, all: false, left: sel("2"), right: sel("3")))
        let union = QueryBody.setOperation(SetOperation(op: .union, all: false, left: sel("1"), right: intersect))
        let except1 = QueryBody.setOperation(SetOperation(op: .except, all: true, left: union, right: sel("4")))
        let except2 = QueryBody.setOperation(SetOperation(op: .except, all: false, left: except1, right: sel("5")))
        XCTAssertEqual(q.body, except2)
    }

    func testParenthesisedQueries() throws {
        func sel(_ n: String) -> QueryBody { .select(Select(items: [item(int(n))])) }
        // Grouping parentheses disappear.
        let grouped = try query("SELECT 1 UNION (SELECT 2 UNION DISTINCT SELECT 3)")
        XCTAssertEqual(grouped.body, .setOperation(SetOperation(
            op: .union, all: false, left: sel("1"),
            right: .setOperation(SetOperation(op: .union, all: false, left: sel("2"), right: sel("3"))))))
        XCTAssertEqual(try query("((SELECT 1))").body, sel("1"))
        // Parentheses with their own ORDER BY / LIMIT stay as a nested query.
        let nested = try query("(SELECT 1 ORDER BY 1 LIMIT 1) UNION ALL SELECT 2 ORDER BY 1")
        XCTAssertEqual(nested.body, .setOperation(SetOperation(
            op: .union, all: true,
            left: .nested(Query(body: sel("1"), orderBy: [OrderItem(expr: int("1"))], limit: int("1"))),
            right: sel("2"))))
        XCTAssertEqual(nested.orderBy, [OrderItem(expr: int("1"))])
    }

    func testValuesAsQuery() throws {
        let q = try query("VALUES (1, 'a'), (2, 'b') ORDER BY 1")
        XCTAssertEqual(q.body, .values([[int("1"), str("a")], [int("2"), str("b")]]))
        XCTAssertEqual(q.orderBy.count, 1)
        assertSyntaxError("VALUES (1), (2, 3)", "VALUES lists must all be the same length", line: 1, column: 13)
    }

    func testQueryLocations() throws {
        let q = try query("\n  SELECT a FROM t")
        XCTAssertEqual([q.location.line, q.location.column], [2, 3])
        guard case .select(let s) = q.body else { return XCTFail() }
        XCTAssertEqual([s.from[0].location.line, s.from[0].location.column], [2, 17])
    }
}
