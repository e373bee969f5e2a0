// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseSQL

final class SplitterTests: XCTestCase {
    func testSplitsAtTopLevelSemicolons() {
        XCTAssertEqual(splitStatements("select 1; select 2;\n\n select 3"), ["select 1", "select 2", "select 3"])
        XCTAssertEqual(splitStatements(";;  ;"), [])
        XCTAssertEqual(splitStatements(""), [])
    }

    func testRespectsQuotesAndComments() {
        let sql = """
            select ';' as "a;b", E'\\';' -- comment; here
            from t /* block ; /* nested; */ still; */ ; select $$x;y$$, $tag$a;$tag$; select 'it''s;'
            """
        XCTAssertEqual(splitStatements(sql), [
            "select ';' as \"a;b\", E'\\';' -- comment; here\nfrom t /* block ; /* nested; */ still; */",
            "select $$x;y$$, $tag$a;$tag$",
            "select 'it''s;'",
        ])
        // A backslash escapes the next character in every literal, as Redshift reads them.
        XCTAssertEqual(splitStatements(#"select name='\'; select 2"#), [#"select name='\'; select 2"#])
        XCTAssertEqual(splitStatements(#"select 'C:\\'; select 'it\'s;'"#), [#"select 'C:\\'"#, #"select 'it\'s;'"#])
    }

    /// As psql splits: a `;` inside parentheses does not end the statement, and a `$`
    /// inside a word (`a$b`) or before a digit (`$1`) opens no dollar quote.
    func testParenthesesAndDollarsInWords() {
        XCTAssertEqual(splitStatements("select (1; 2); select 3"), ["select (1; 2)", "select 3"])
        XCTAssertEqual(splitStatements("select a$b$c; select 2"), ["select a$b$c", "select 2"])
        XCTAssertEqual(splitStatements("select $1; select $2"), ["select $1", "select $2"])
        XCTAssertEqual(splitStatements("select 1 -- a comment; with a semicolon\n; select 2"),
                       ["select 1 -- a comment; with a semicolon", "select 2"])
    }

    /// The scanner fed in pieces keeps its state across them.
    func testScannerCarriesStateAcrossPieces() {
        var scanner = SQLTextScanner()
        XCTAssertNil(scanner.next(Array("select 'a;".utf8), from: 0))
        XCTAssertEqual(scanner.continuationMarker, "'")
        let found = scanner.next(Array("b'; select 2".utf8), from: 0)
        XCTAssertEqual(found?.offset, 2)
        XCTAssertEqual(found?.content, true)
        XCTAssertFalse(scanner.hasContent)
        XCTAssertNil(scanner.next(Array(" /* x;".utf8), from: 0))
        XCTAssertEqual(scanner.continuationMarker, "*")
        XCTAssertFalse(scanner.hasContent)
    }

    func testSkipsCommentOnlyStatements() {
        XCTAssertEqual(splitStatements("-- just a comment\n; /* and */ ; select 1 -- trailing"),
                       ["select 1 -- trailing"])
    }

    func testUnterminatedQuoteRunsToTheEnd() {
        XCTAssertEqual(splitStatements("select 'abc; select 2"), ["select 'abc; select 2"])
        let (done, rest) = splitStatementsKeepingRemainder("select 1; select 'a;\n")
        XCTAssertEqual(done, ["select 1"])
        XCTAssertEqual(rest, " select 'a;\n")
    }

    func testParseScriptKeepsStatementText() throws {
        let script = try parseScript("  select 1 ;\n-- c\nEXPLAIN select  a from t;; insert into t values (1)")
        XCTAssertEqual(script.map(\.text), ["select 1", "EXPLAIN select  a from t", "insert into t values (1)"])
        XCTAssertEqual(script.map { [$0.location.line, $0.location.column] }, [[1, 3], [3, 1], [3, 28]])
        XCTAssertEqual(try parseStatements("select 1; ; select 2").count, 2)
        XCTAssertEqual(try parseStatements(" ; -- nothing\n"), [])
    }
}
