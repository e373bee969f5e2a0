// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class ExpressionTests: XCTestCase {
    func testLiteralsKeepNumberText() throws {
        XCTAssertEqual(try selectExpr("1.50"), dec("1.50"))
        XCTAssertEqual(try selectExpr("42"), int("42"))
        XCTAssertEqual(try selectExpr("1e3"), Expr(.literal(.float("1e3"))))
        XCTAssertEqual(try selectExpr("'x'"), str("x"))
        XCTAssertEqual(try selectExpr("TRUE"), bool(true))
        XCTAssertEqual(try selectExpr("false"), bool(false))
        XCTAssertEqual(try selectExpr("NULL"), null)
        XCTAssertEqual(try selectExpr("$2"), Expr(.parameter(2)))
    }

    func testUnaryMinusFoldsIntoNumbers() throws {
        XCTAssertEqual(try selectExpr("-2147483648"), int("-2147483648"))
        XCTAssertEqual(try selectExpr("-1.5"), dec("-1.5"))
        XCTAssertEqual(try selectExpr("- -1"), int("1"))
        XCTAssertEqual(try selectExpr("-a"), neg(col("a")))
        XCTAssertEqual(try selectExpr("+a"), Expr(.unary(.plus, col("a"))))
        XCTAssertEqual(try selectExpr("~a"), Expr(.unary(.bitwiseNot, col("a"))))
    }

    func testTypedAndIntervalLiterals() throws {
        XCTAssertEqual(try selectExpr("DATE '1998-12-01'"), Expr(.typedLiteral(.date, "1998-12-01")))
        XCTAssertEqual(try selectExpr("timestamp '2020-01-02 03:04:05'"),
                       Expr(.typedLiteral(.timestamp, "2020-01-02 03:04:05")))
        XCTAssertEqual(try selectExpr("INTERVAL '90 day'"), Expr(.interval(IntervalLiteral(value: "90 day"))))
        XCTAssertEqual(try selectExpr("interval '3' MONTH"),
                       Expr(.interval(IntervalLiteral(value: "3", qualifier: "month"))))
        XCTAssertEqual(try selectExpr("interval '90' day (3)"),
                       Expr(.interval(IntervalLiteral(value: "90", qualifier: "day"))))
        XCTAssertEqual(try selectExpr("interval '1-2' year to month"),
                       Expr(.interval(IntervalLiteral(value: "1-2", qualifier: "year to month"))))
        XCTAssertEqual(try selectExpr("'1 day'::interval"), Expr(.interval(IntervalLiteral(value: "1 day"))))
        // Without a string after it, `interval` and `date` are just names.
        XCTAssertEqual(try selectExpr("date"), col("date"))
    }

    func testColumnReferences() throws {
        XCTAssertEqual(try selectExpr("a"), col("a"))
        XCTAssertEqual(try selectExpr("T.A"), col("t", "a"))
        // A quoted name is folded too unless enable_case_sensitive_identifier is on.
        XCTAssertEqual(try selectExpr(#"s."T".a"#), col("s", "t", "a"))
        let sensitive = try parseStatement(#"select s."T".a, "B" as "C""#, options: ParseOptions(caseSensitiveIdentifiers: true))
        guard case .query(let q) = sensitive, case .select(let s) = q.body, s.items.count == 2,
              case .expr(let first, _) = s.items[0], case .expr(let second, let alias) = s.items[1] else {
            return XCTFail("expected a SELECT of two items")
        }
        XCTAssertEqual(first, col("s", "T", "a"))
        XCTAssertEqual(second, col("B"))
        XCTAssertEqual(alias, "C")
        let ref = ColumnRef(["s", "t", "a"])
        XCTAssertEqual(ref.name, "a")
        XCTAssertEqual(ref.table, "t")
        XCTAssertEqual(ref.schema, "s")
        XCTAssertEqual(ColumnRef("a").table, nil)
    }

    func testIsTests() throws {
        XCTAssertEqual(try selectExpr("a IS NULL"), Expr(.isNull(col("a"), negated: false)))
        XCTAssertEqual(try selectExpr("a IS NOT NULL"), Expr(.isNull(col("a"), negated: true)))
        XCTAssertEqual(try selectExpr("a ISNULL"), Expr(.isNull(col("a"), negated: false)))
        XCTAssertEqual(try selectExpr("a NOTNULL"), Expr(.isNull(col("a"), negated: true)))
        XCTAssertEqual(try selectExpr("a IS UNKNOWN"), Expr(.isNull(col("a"), negated: false)))
        XCTAssertEqual(try selectExpr("a IS TRUE"), Expr(.isBoolean(col("a"), value: true, negated: false)))
        XCTAssertEqual(try selectExpr("a IS NOT FALSE"), Expr(.isBoolean(col("a"), value: false, negated: true)))
        XCTAssertEqual(try selectExpr("a IS DISTINCT FROM b"), Expr(.isDistinctFrom(col("a"), col("b"), negated: false)))
        XCTAssertEqual(try selectExpr("a IS NOT DISTINCT FROM b"),
                       Expr(.isDistinctFrom(col("a"), col("b"), negated: true)))
    }

    func testPredicates() throws {
        XCTAssertEqual(try selectExpr("a BETWEEN 1 AND 2"),
                       Expr(.between(col("a"), low: int("1"), high: int("2"), negated: false)))
        XCTAssertEqual(try selectExpr("a NOT BETWEEN b + 1 AND c"),
                       Expr(.between(col("a"), low: bin(.add, col("b"), int("1")), high: col("c"), negated: true)))
        XCTAssertEqual(try selectExpr("a IN (1, 2)"), Expr(.inList(col("a"), [int("1"), int("2")], negated: false)))
        XCTAssertEqual(try selectExpr("a NOT IN ('x')"), Expr(.inList(col("a"), [str("x")], negated: true)))
        let sub = try query("SELECT b FROM t")
        XCTAssertEqual(try selectExpr("a IN (SELECT b FROM t)"), Expr(.inSubquery(col("a"), sub, negated: false)))
        XCTAssertEqual(try selectExpr("a NOT IN (SELECT b FROM t)"), Expr(.inSubquery(col("a"), sub, negated: true)))
        // A list whose first element is a parenthesised subquery is still a list.
        XCTAssertEqual(try selectExpr("a IN ((SELECT b FROM t), 2)"),
                       Expr(.inList(col("a"), [Expr(.subquery(sub)), int("2")], negated: false)))
        XCTAssertEqual(try selectExpr("a LIKE 'x%'"),
                       Expr(.like(.like, col("a"), pattern: str("x%"), escape: nil, negated: false)))
        XCTAssertEqual(try selectExpr("a NOT ILIKE 'x%' ESCAPE '!'"),
                       Expr(.like(.ilike, col("a"), pattern: str("x%"), escape: str("!"), negated: true)))
        XCTAssertEqual(try selectExpr("a SIMILAR TO 'x'"),
                       Expr(.like(.similarTo, col("a"), pattern: str("x"), escape: nil, negated: false)))
        XCTAssertEqual(try selectExpr("a NOT SIMILAR TO 'x'"),
                       Expr(.like(.similarTo, col("a"), pattern: str("x"), escape: nil, negated: true)))
        XCTAssertEqual(try selectExpr("a ~~ 'x'"),
                       Expr(.like(.like, col("a"), pattern: str("x"), escape: nil, negated: false)))
        XCTAssertEqual(try selectExpr("a !~~* 'x'"),
                       Expr(.like(.ilike, col("a"), pattern: str("x"), escape: nil, negated: true)))
        XCTAssertEqual(try selectExpr("a ~ 'x'"), bin(.regexMatch, col("a"), str("x")))
        XCTAssertEqual(try selectExpr("a !~* 'x'"), bin(.regexNotMatchInsensitive, col("a"), str("x")))
    }

    func testSubqueryExpressions() throws {
        let sub = try query("SELECT 1")
        XCTAssertEqual(try selectExpr("EXISTS (SELECT 1)"), Expr(.exists(sub)))
        XCTAssertEqual(try selectExpr("NOT EXISTS (SELECT 1)"), not(Expr(.exists(sub))))
        XCTAssertEqual(try selectExpr("(SELECT 1)"), Expr(.subquery(sub)))
        XCTAssertEqual(try selectExpr("a = ANY (SELECT 1)"), Expr(.quantified(.equal, col("a"), .any, sub)))
        XCTAssertEqual(try selectExpr("a < SOME (SELECT 1)"), Expr(.quantified(.less, col("a"), .any, sub)))
        XCTAssertEqual(try selectExpr("a <> ALL (SELECT 1)"), Expr(.quantified(.notEqual, col("a"), .all, sub)))
        // A parenthesised expression that starts with a subquery.
        XCTAssertEqual(try selectExpr("((SELECT 1) + 1)"), bin(.add, Expr(.subquery(sub)), int("1")))
        XCTAssertEqual(try selectExpr("((SELECT 1))"), Expr(.subquery(sub)))
    }

    func testCase() throws {
        XCTAssertEqual(try selectExpr("CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END"), Expr(.caseWhen(CaseExpr(
            whens: [WhenClause(condition: col("a"), result: int("1")), WhenClause(condition: col("b"), result: int("2"))],
            elseResult: int("3")))))
        XCTAssertEqual(try selectExpr("CASE x WHEN 1 THEN 'a' END"), Expr(.caseWhen(CaseExpr(
            operand: col("x"), whens: [WhenClause(condition: int("1"), result: str("a"))]))))
    }

    func testCasts() throws {
        XCTAssertEqual(try selectExpr("CAST(a AS DECIMAL(15,2))"), Expr(.cast(col("a"), .decimal(precision: 15, scale: 2), .cast)))
        XCTAssertEqual(try selectExpr("a::int"), Expr(.cast(col("a"), .integer, .doubleColon)))
        // VARCHAR or TEXT without a length in a cast takes its operand's length (the binder's).
        XCTAssertEqual(try selectExpr("a::text::varchar(10)"),
                       Expr(.cast(Expr(.cast(col("a"), .unsizedVarchar, .doubleColon)), .varchar(10), .doubleColon)))
        XCTAssertEqual(try selectExpr("CONVERT(bigint, a)"), Expr(.cast(col("a"), .bigint, .convert)))
        XCTAssertEqual(try selectExpr("a::DOUBLE PRECISION"), Expr(.cast(col("a"), .double, .doubleColon)))
        XCTAssertEqual(try selectExpr("a::CHARACTER VARYING(30)"), Expr(.cast(col("a"), .varchar(30), .doubleColon)))
        XCTAssertEqual(try selectExpr("a::char varying"), Expr(.cast(col("a"), .unsizedVarchar, .doubleColon)))
        XCTAssertEqual(try selectExpr("a::TIMESTAMP WITHOUT TIME ZONE"), Expr(.cast(col("a"), .timestamp, .doubleColon)))
        XCTAssertEqual(try selectExpr("a::varchar(max)"), Expr(.cast(col("a"), .varchar(65535), .doubleColon)))
        XCTAssertEqual(try selectExpr("a::char(max)"), Expr(.cast(col("a"), .char(4096), .doubleColon)))
        XCTAssertEqual(try selectExpr("a::float8"), Expr(.cast(col("a"), .double, .doubleColon)))
        XCTAssertEqual(try selectExpr("a::numeric"), Expr(.cast(col("a"), .decimal(precision: 18, scale: 0), .doubleColon)))
    }

    func testFunctionCalls() throws {
        XCTAssertEqual(try selectExpr("f()"), call("f"))
        XCTAssertEqual(try selectExpr("Upper(a, 'x')"), call("upper", col("a"), str("x")))
        XCTAssertEqual(try selectExpr("pg_catalog.lower(a)"),
                       Expr(.function(FunctionCall(name: "lower", schema: "pg_catalog", args: [col("a")]))))
        XCTAssertEqual(try selectExpr("count(*)"), Expr(.function(FunctionCall(name: "count", star: true))))
        XCTAssertEqual(try selectExpr("count(DISTINCT a)"), call("count", col("a"), distinct: true))
        XCTAssertEqual(try selectExpr("sum(ALL a)"), call("sum", col("a")))
        XCTAssertEqual(try selectExpr("APPROXIMATE COUNT(DISTINCT a)"),
                       Expr(.function(FunctionCall(name: "count", args: [col("a")], distinct: true, approximate: true))))
        XCTAssertEqual(try selectExpr("left(a, 2)"), call("left", col("a"), int("2")))
        XCTAssertEqual(try selectExpr("coalesce(a, b, 0)"), call("coalesce", col("a"), col("b"), int("0")))
        XCTAssertEqual(try selectExpr("nvl(a, 0)"), call("nvl", col("a"), int("0")))
        XCTAssertEqual(try selectExpr("getdate()"), call("getdate"))
    }

    func testWithinGroupAndWindows() throws {
        XCTAssertEqual(try selectExpr("listagg(a, ',') WITHIN GROUP (ORDER BY b DESC)"), Expr(.function(FunctionCall(
            name: "listagg", args: [col("a"), str(",")], withinGroup: [OrderItem(expr: col("b"), descending: true)]))))
        XCTAssertEqual(try selectExpr("percentile_cont(0.5) within group (order by x)"), Expr(.function(FunctionCall(
            name: "percentile_cont", args: [dec("0.5")], withinGroup: [OrderItem(expr: col("x"))]))))
        XCTAssertEqual(try selectExpr("row_number() OVER (PARTITION BY a, b ORDER BY c NULLS FIRST)"),
                       Expr(.function(FunctionCall(name: "row_number", over: WindowSpec(
                           partitionBy: [col("a"), col("b")], orderBy: [OrderItem(expr: col("c"), nullsFirst: true)])))))
        XCTAssertEqual(try selectExpr("sum(x) over ()"),
                       Expr(.function(FunctionCall(name: "sum", args: [col("x")], over: WindowSpec()))))
        XCTAssertEqual(try selectExpr(
            "sum(x) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
            Expr(.function(FunctionCall(name: "sum", args: [col("x")], over: WindowSpec(
                orderBy: [OrderItem(expr: col("d"))],
                frame: WindowFrame(unit: .rows, start: .unboundedPreceding, end: .currentRow))))))
        XCTAssertEqual(try selectExpr(
            "avg(x) OVER (ORDER BY d RANGE BETWEEN 2 PRECEDING AND 3 FOLLOWING)"),
            Expr(.function(FunctionCall(name: "avg", args: [col("x")], over: WindowSpec(
                orderBy: [OrderItem(expr: col("d"))],
                frame: WindowFrame(unit: .range, start: .preceding(int("2")), end: .following(int("3"))))))))
        XCTAssertEqual(try selectExpr("max(x) OVER (ORDER BY d ROWS 5 PRECEDING)"),
            Expr(.function(FunctionCall(name: "max", args: [col("x")], over: WindowSpec(
                orderBy: [OrderItem(expr: col("d"))],
                frame: WindowFrame(unit: .rows, start: .preceding(int("5")), end: .currentRow))))))
        XCTAssertEqual(try selectExpr(
            "first_value(x) OVER (ORDER BY d ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"),
            Expr(.function(FunctionCall(name: "first_value", args: [col("x")], over: WindowSpec(
                orderBy: [OrderItem(expr: col("d"))],
                frame: WindowFrame(unit: .rows, start: .currentRow, end: .unboundedFollowing))))))
        let lag = FunctionCall(name: "lag", args: [col("x"), int("1")], nullTreatment: .ignoreNulls,
                               over: WindowSpec(orderBy: [OrderItem(expr: col("d"))]))
        XCTAssertEqual(try selectExpr("lag(x, 1) IGNORE NULLS OVER (ORDER BY d)"), Expr(.function(lag)))
        XCTAssertEqual(try selectExpr("lag(x, 1 IGNORE NULLS) OVER (ORDER BY d)"), Expr(.function(lag)))
        var respect = lag
        respect.nullTreatment = .respectNulls
        XCTAssertEqual(try selectExpr("lag(x, 1) RESPECT NULLS OVER (ORDER BY d)"), Expr(.function(respect)))
    }

    func testSpecialFunctionSyntaxes() throws {
        XCTAssertEqual(try selectExpr("EXTRACT(year FROM d)"), Expr(.function(FunctionCall(
            name: "date_part", args: [str("year"), col("d")], syntax: .extract))))
        XCTAssertEqual(try selectExpr("extract('Month' from d)"), Expr(.function(FunctionCall(
            name: "date_part", args: [str("month"), col("d")], syntax: .extract))))
        XCTAssertEqual(try selectExpr("POSITION('b' IN s)"), Expr(.function(FunctionCall(
            name: "position", args: [col("s"), str("b")], syntax: .position))))
        XCTAssertEqual(try selectExpr("SUBSTRING(s FROM 2 FOR 3)"), Expr(.function(FunctionCall(
            name: "substring", args: [col("s"), int("2"), int("3")], syntax: .substring))))
        XCTAssertEqual(try selectExpr("substring(s from 2)"), Expr(.function(FunctionCall(
            name: "substring", args: [col("s"), int("2")], syntax: .substring))))
        XCTAssertEqual(try selectExpr("substring(s for 2)"), Expr(.function(FunctionCall(
            name: "substring", args: [col("s"), int("1"), int("2")], syntax: .substring))))
        XCTAssertEqual(try selectExpr("substring(s, 1, 2)"), call("substring", col("s"), int("1"), int("2")))
        XCTAssertEqual(try selectExpr("TRIM(s)"), Expr(.function(FunctionCall(name: "btrim", args: [col("s")], syntax: .trim))))
        XCTAssertEqual(try selectExpr("TRIM(BOTH 'x' FROM s)"), Expr(.function(FunctionCall(
            name: "btrim", args: [col("s"), str("x")], syntax: .trim))))
        XCTAssertEqual(try selectExpr("trim(leading from s)"), Expr(.function(FunctionCall(
            name: "ltrim", args: [col("s")], syntax: .trim))))
        XCTAssertEqual(try selectExpr("trim(trailing 'x' from s)"), Expr(.function(FunctionCall(
            name: "rtrim", args: [col("s"), str("x")], syntax: .trim))))
        XCTAssertEqual(try selectExpr("ts AT TIME ZONE 'UTC'"), Expr(.function(FunctionCall(
            name: "timezone", args: [str("UTC"), col("ts")], syntax: .atTimeZone))))
        for keyword in ["current_date", "CURRENT_TIMESTAMP", "sysdate", "current_user", "localtimestamp"] {
            XCTAssertEqual(try selectExpr(keyword), Expr(.function(FunctionCall(name: keyword.lowercased(), syntax: .keyword))))
        }
    }

    func testLocationsOfExpressions() throws {
        let e = try parseExpression("a +\n  foo(b)")
        XCTAssertEqual(e.location.line, 1)
        XCTAssertEqual(e.location.column, 3)  // a binary operator is located at the operator
        guard case .binary(_, let left, let right) = e.kind else { return XCTFail() }
        XCTAssertEqual([left.location.line, left.location.column], [1, 1])
        XCTAssertEqual([right.location.line, right.location.column], [2, 3])
        guard case .function(let f) = right.kind else { return XCTFail() }
        XCTAssertEqual([f.args[0].location.line, f.args[0].location.column], [2, 7])
    }

    func testEqualityIgnoresLocations() throws {
        let a = try parseExpression("sum(x + 1)")
        let b = try parseExpression("  sum( x+1 )")
        XCTAssertNotEqual(a.location, b.location)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b]).count, 1)
    }

    func testDefaultOnlyWhereAllowed() {
        assertSyntaxError("SELECT DEFAULT", "syntax error at or near \"DEFAULT\"", line: 1, column: 8)
        assertSyntaxError("SELECT (1, 2,)", "syntax error at or near \")\"", line: 1, column: 14)
    }

    func testRowValuesAndOuterJoinMarks() throws {
        // `(a, b)` is a row value (the binder takes it in = / <> and IN only).
        let row = try parseExpression("(a, 1 + 2)")
        guard case .row(let items) = row.kind else { return XCTFail("not a row: \(row)") }
        XCTAssertEqual(items.count, 2)
        // `t.c(+)` is a marked column, equal to the unmarked one.
        let marked = try parseExpression("b.y(+)")
        guard case .column(let ref) = marked.kind else { return XCTFail("not a column: \(marked)") }
        XCTAssertTrue(ref.outerJoinMarker)
        XCTAssertEqual(marked, try parseExpression("b.y"))
    }
}
