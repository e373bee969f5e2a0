// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

/// Syntax errors use PostgreSQL's wording and point at the offending token.
final class ErrorTests: XCTestCase {
    func testErrorAtToken() {
        assertSyntaxError("select * FROMM t", "syntax error at or near \"FROMM\"", line: 1, column: 10)
        assertSyntaxError("SELEC 1", "syntax error at or near \"SELEC\"", line: 1, column: 1)
        assertSyntaxError("select a,\n  b\n  from t wher x = 1", "syntax error at or near \"x\"", line: 3, column: 15)
        assertSyntaxError("select 1 + * 2", "syntax error at or near \"*\"", line: 1, column: 12)
        assertSyntaxError("select 'x' 'y'", "syntax error at or near \"'y'\"", line: 1, column: 12)
        assertSyntaxError("select from t", "syntax error at or near \"from\"", line: 1, column: 8)
        assertSyntaxError("select * from t where", "syntax error at end of input", line: 1, column: 22)
        assertSyntaxError("select * from select", "syntax error at or near \"select\"", line: 1, column: 15)
        assertSyntaxError("create tabel t (a int)", "syntax error at or near \"tabel\"", line: 1, column: 8)
        assertSyntaxError("insert t values (1)", "syntax error at or near \"t\"", line: 1, column: 8)
        assertSyntaxError("select (1", "syntax error at end of input", line: 1, column: 10)
        assertSyntaxError("select case end", "syntax error at or near \"end\"", line: 1, column: 13)
        assertSyntaxError("select a from t order by", "syntax error at end of input", line: 1, column: 25)
        assertSyntaxError("select * from t; select 1 1", "syntax error at or near \"1\"", line: 1, column: 27)
    }

    func testErrorAtEndOfInput() {
        assertSyntaxError("select 1 +", "syntax error at end of input", line: 1, column: 11)
        assertSyntaxError("select\n", "syntax error at end of input", line: 2, column: 1)
        assertSyntaxError("select a from t where a in (", "syntax error at end of input")
    }

    func testErrorsInSubqueriesReportTheInnerToken() {
        assertSyntaxError("select * from t where a in (select b fromm u)", "syntax error at or near \"u\"",
                          line: 1, column: 44)
        assertSyntaxError("select * from t where exists (select from)", "syntax error at or near \"from\"",
                          line: 1, column: 38)
    }

    func testErrorCodeIsSyntax() {
        XCTAssertThrowsError(try parseStatement("select * FROMM t")) { error in
            XCTAssertEqual((error as? SQLError)?.code, .syntax)
            XCTAssertEqual(String(describing: error),
                           "ERROR:  syntax error at or near \"FROMM\" (line 1, column 10)")
        }
    }

    func testReservedWordsAreNotIdentifiers() {
        assertSyntaxError("create table select (a int)", "syntax error at or near \"select\"", line: 1, column: 14)
        assertSyntaxError("select a from t where order = 1", "syntax error at or near \"order\"", line: 1, column: 23)
        // ... unless quoted.
        XCTAssertNoThrow(try parseStatement(#"select "order" from "select""#))
    }

    func testParseStatementWantsExactlyOne() {
        XCTAssertThrowsError(try parseStatement("select 1; select 2")) { error in
            XCTAssertEqual((error as? SQLError)?.message, "cannot insert multiple commands into a prepared statement")
        }
        XCTAssertThrowsError(try parseStatement(" ; -- nothing")) { error in
            XCTAssertEqual((error as? SQLError)?.message, "syntax error at end of input")
        }
        XCTAssertNoThrow(try parseStatement("select 1;"))
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000)
        XCTAssertThrowsError(try parseStatement("select " + deep)) { error in
            XCTAssertEqual((error as? SQLError)?.message, "statement is too deeply nested")
        }
        let minuses = "select " + String(repeating: "- ", count: 5000) + "1"
        XCTAssertThrowsError(try parseStatement(minuses))
        let nots = "select " + String(repeating: "not ", count: 5000) + "true"
        XCTAssertThrowsError(try parseStatement(nots))
        let subqueries = "select " + String(repeating: "(select ", count: 3000) + "1" + String(repeating: ")", count: 3000)
        XCTAssertThrowsError(try parseStatement(subqueries))
        // Moderate nesting is fine.
        let ok = String(repeating: "(", count: 50) + "1" + String(repeating: ")", count: 50)
        XCTAssertNoThrow(try parseStatement("select " + ok))
    }

    func testGarbageNeverCrashes() {
        // Every prefix of a rich statement either parses or throws an SQLError.
        let sql = """
            WITH a (x) AS (SELECT 1) SELECT DISTINCT TOP 5 t.*, CAST(x AS DECIMAL(5,2)) c, count(DISTINCT y) OVER
            (PARTITION BY z ORDER BY w DESC NULLS LAST ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), 'it''s', $1,
            E'\\n', INTERVAL '3' MONTH, EXTRACT(year FROM d), TRIM(BOTH 'x' FROM s) FROM a LEFT JOIN (b JOIN c USING (k))
            ON a.x = b.x WHERE x NOT BETWEEN 1 AND 2 AND y IN (SELECT 1) GROUP BY ROLLUP(a, (b, c)) HAVING sum(x) > 0
            QUALIFY rank() OVER (ORDER BY x) = 1 UNION ALL (SELECT 1 ORDER BY 1 LIMIT 1) ORDER BY 1 LIMIT 10 OFFSET 2;
            COPY t FROM 'x' CSV QUOTE AS '"' IGNOREHEADER 1; CREATE TABLE #t (a INT IDENTITY(1,1) ENCODE az64) SORTKEY(a)
            """
        let bytes = Array(sql.utf8)
        for end in 0...bytes.count {
            let prefix = String(decoding: bytes[0..<end], as: UTF8.self)
            do {
                _ = try parseStatements(prefix)
            } catch is SQLError {
            } catch {
                XCTFail("unexpected error type \(error)")
            }
            _ = splitStatements(prefix)
        }
    }
}

import Foundation

final class StackGuardTests: XCTestCase {
    /// On a thread with a small stack, deep nesting is reported before the stack runs out.
    func testDeepNestingOnASmallStackIsAnError() {
        let done = expectation(description: "parsed")
        nonisolated(unsafe) var messages: [String?] = []
        let thread = Thread {
            let n = 190
            let inputs = [
                "select " + String(repeating: "(select ", count: n) + "1" + String(repeating: ")", count: n),
                "select " + String(repeating: "f(", count: n) + "1" + String(repeating: ")", count: n),
                "select * from " + String(repeating: "(select * from ", count: n) + "a" + String(repeating: ") x", count: n),
            ]
            for sql in inputs {
                do {
                    _ = try parseStatement(sql)
                    messages.append(nil)
                } catch {
                    messages.append((error as? SQLError)?.message)
                }
            }
            done.fulfill()
        }
        thread.stackSize = 256 * 1024
        thread.start()
        wait(for: [done], timeout: 60)
        XCTAssertEqual(messages, Array(repeating: "statement is too deeply nested", count: 3))
    }
}
