// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class PrinterTests: XCTestCase {
    /// `sql` parses, prints as `expected`, and the printed text parses to the same tree.
    private func assertPrints(_ sql: String, _ expected: String, options: ParseOptions = .standard,
                              file: StaticString = #filePath, line: UInt = #line) {
        do {
            let e = try parseExpression(sql, options: options)
            XCTAssertEqual(e.description, expected, file: file, line: line)
            XCTAssertEqual(try parseExpression(e.description, options: options), e, "round trip", file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }

    func testExpressionsPrintReadably() {
        assertPrints("a+b*c", "a + b * c")
        assertPrints("(a+b)*c", "(a + b) * c")
        assertPrints("a-(b-c)", "a - (b - c)")
        assertPrints("(a-b)-c", "a - b - c")
        assertPrints("not (a and b) or c", "NOT (a AND b) OR c")
        assertPrints("a = b is null", "a = b IS NULL")
        assertPrints("(a is null) = false", "(a IS NULL) = FALSE")
        assertPrints("-(a+b)", "-(a + b)")
        assertPrints("- -a", "-(-a)")
        assertPrints("-1", "-1")
        assertPrints("(-1)::int", "(-1)::integer")
        assertPrints("-(1::int)", "-1::integer")
        assertPrints("(a + 1)::text", "(a + 1)::varchar")
        assertPrints("'it''s'", "'it''s'")
        // Quoted names keep their case only with enable_case_sensitive_identifier on.
        assertPrints("\"Mixed Case\".\"order\"", "\"mixed case\".\"order\"")
        assertPrints("\"Mixed Case\".\"order\"", "\"Mixed Case\".\"order\"", options: ParseOptions(caseSensitiveIdentifiers: true))
        assertPrints("date '1998-12-01' - interval '90' day", "DATE '1998-12-01' - INTERVAL '90' DAY")
        assertPrints("cast(x as decimal(12, 2))", "CAST(x AS numeric(12,2))")
        assertPrints("convert(int, x)", "CONVERT(integer, x)")
        assertPrints("x::double precision", "x::double precision")
        assertPrints("a not between 1 and 2", "a NOT BETWEEN 1 AND 2")
        assertPrints("a in (1, 2)", "a IN (1, 2)")
        assertPrints("a not like 'x' escape '!'", "a NOT LIKE 'x' ESCAPE '!'")
        assertPrints("a is not distinct from b", "a IS NOT DISTINCT FROM b")
        assertPrints("a is not true", "a IS NOT TRUE")
        assertPrints("a || b || c", "a || b || c")
        assertPrints("case when a then 1 else 2 end", "CASE WHEN a THEN 1 ELSE 2 END")
        assertPrints("case x when 1 then 'a' end", "CASE x WHEN 1 THEN 'a' END")
        assertPrints("count(*)", "count(*)")
        assertPrints("count(distinct x)", "count(DISTINCT x)")
        assertPrints("approximate count(distinct x)", "APPROXIMATE count(DISTINCT x)")
        assertPrints("listagg(x, ',') within group (order by y desc)", "listagg(x, ',') WITHIN GROUP (ORDER BY y DESC)")
        assertPrints("sum(x) over (partition by a order by b rows between unbounded preceding and current row)",
                     "sum(x) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)")
        assertPrints("lag(x) ignore nulls over (order by d)", "lag(x) IGNORE NULLS OVER (ORDER BY d)")
        assertPrints("extract(year from d)", "EXTRACT(year FROM d)")
        assertPrints("position('a' in s)", "POSITION('a' IN s)")
        assertPrints("substring(s from 1 for 2)", "SUBSTRING(s FROM 1 FOR 2)")
        assertPrints("trim(leading 'x' from s)", "TRIM(LEADING 'x' FROM s)")
        assertPrints("current_date", "CURRENT_DATE")
        assertPrints("ts at time zone 'UTC'", "ts AT TIME ZONE 'UTC'")
        assertPrints("exists (select 1)", "EXISTS (SELECT 1)")
        assertPrints("a = any (select b from t)", "a = ANY (SELECT b FROM t)")
        assertPrints("a in (select b from t)", "a IN (SELECT b FROM t)")
        assertPrints("(select max(b) from t) + 1", "(SELECT max(b) FROM t) + 1")
        assertPrints("$1 + 1", "$1 + 1")
        assertPrints("a ~~ 'x'", "a LIKE 'x'")
        assertPrints("true and null", "TRUE AND NULL")
    }

    func testQueriesPrint() throws {
        let cases: [(String, String)] = [
            ("select a as x, t.* from s.t as u (p) where a > 1", "SELECT a AS x, t.* FROM s.t AS u (p) WHERE a > 1"),
            ("select 1 union select 2 intersect select 3", "SELECT 1 UNION SELECT 2 INTERSECT SELECT 3"),
            ("(select 1 union select 2) intersect select 3", "(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3"),
            ("select 1 except (select 2 except select 3)", "SELECT 1 EXCEPT (SELECT 2 EXCEPT SELECT 3)"),
            ("with x as (select 1) select * from x order by 1 desc limit 5 offset 1",
             "WITH x AS (SELECT 1) SELECT * FROM x ORDER BY 1 DESC LIMIT 5 OFFSET 1"),
            ("select top 3 a from a left join b on a.x = b.x cross join c",
             "SELECT TOP 3 a FROM a LEFT JOIN b ON a.x = b.x CROSS JOIN c"),
            ("select * from a join (b join c using (k)) on true", "SELECT * FROM a JOIN (b JOIN c USING (k)) ON TRUE"),
            ("select a from t group by rollup(a, (b, c)), grouping sets ((a), ())",
             "SELECT a FROM t GROUP BY ROLLUP (a, (b, c)), GROUPING SETS ((a), ())"),
            ("values (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')"),
            ("select distinct a from t having count(*) > 1 qualify x = 1",
             "SELECT DISTINCT a FROM t HAVING count(*) > 1 QUALIFY x = 1"),
        ]
        for (sql, expected) in cases {
            let q = try query(sql)
            XCTAssertEqual(q.description, expected)
            XCTAssertEqual(try query(q.description), q, "round trip of \(sql)")
        }
    }

    func testDefaultValueDescriptionParsesBack() throws {
        guard case .createTable(let ct) = try parseStatement("create table t (a varchar(10) default 'it''s' || 'x')"),
              case .elements(let columns, _) = ct.source, let value = columns[0].defaultValue else { return XCTFail() }
        XCTAssertEqual(value.description, "'it''s' || 'x'")
        XCTAssertEqual(try parseExpression(value.description), value)
    }

    func testDefaultColumnNames() throws {
        let cases: [(String, String)] = [
            ("a", "a"), ("t.a", "a"), ("sum(x)", "sum"), ("COUNT(*)", "count"), ("count(distinct x)", "count"),
            ("a + 1", "?column?"), ("1", "?column?"), ("'x'", "?column?"), ("NULL", "?column?"),
            ("CASE WHEN a THEN 1 END", "case"), ("EXTRACT(year FROM d)", "date_part"), ("TRIM(s)", "btrim"),
            ("SUBSTRING(s FROM 1)", "substring"), ("a::int", "a"), ("1::integer", "int4"), ("CAST('1' AS bigint)", "int8"),
            ("DATE '2020-01-01'", "date"), ("TRUE", "bool"), ("coalesce(a, b)", "coalesce"),
            ("(SELECT max(x) FROM t)", "max"), ("(SELECT x AS y FROM t)", "y"), ("EXISTS (SELECT 1)", "exists"),
            ("row_number() OVER ()", "row_number"), ("current_date", "date"), ("SYSDATE", "timestamp"),
            ("current_user", "current_user"), ("getdate()", "getdate"), ("-a", "?column?"),
            ("INTERVAL '1 day'", "interval"), ("\"MiXed\"", "mixed"),
        ]
        for (sql, name) in cases {
            XCTAssertEqual(defaultColumnName(try parseExpression(sql)), name, sql)
        }
        XCTAssertEqual(defaultColumnName(try parseExpression("\"MiXed\"", options: ParseOptions(caseSensitiveIdentifiers: true))), "MiXed")
    }

    func testTypeNamesPrintParsably() throws {
        let types: [DataType] = [.smallint, .integer, .bigint, .decimal(precision: 7, scale: 3), .real, .double, .boolean,
                                 .char(5), .varchar(100), .date, .timestamp]
        for type in types {
            XCTAssertEqual(try parseExpression("x::" + sqlTypeName(type)), Expr(.cast(col("x"), type, .doubleColon)))
        }
    }
}
