// SPDX-License-Identifier: Apache-2.0
import SlicehouseShell
import SlicehouseSQL
import SlicehouseSQLLogicTest
import XCTest

/// Statement splitting and meta-command parsing.
final class ShellSplitterTests: XCTestCase {
    typealias Event = StatementSplitter.Event

    /// The shell's splitter and the whole-text one share their scanner: on scripts without
    /// meta-commands they find the same statements.
    func testShellAndWholeTextSplittersAgree() {
        let scripts = [
            "select 1; select\n  2;\nselect 3",
            "select 'a;\nb'; select \"x;\"\n;select E'\\';'; select 4",
            "create function f() returns int as $$\n select 1;\n$$ language sql; select f()",
            "select a$b$c; select $1; select (1;\n2); select 3 /* c; /* d; */ ; */ + 1",
            "select 1 -- trailing; comment\n; ;; select 2",
            "insert into t values ('it''s; here'); select 'unterminated; still",
        ]
        for script in scripts {
            let shell = StatementSplitter.split(script).compactMap { event -> String? in
                if case .statement(let text, _) = event { return text }
                return nil
            }
            XCTAssertEqual(shell, splitStatements(script), script)
        }
    }

    func testSplitsOnSemicolonsAcrossLines() {
        XCTAssertEqual(StatementSplitter.split("select 1; select\n  2;\nselect 3"), [
            .statement("select 1", line: 1),
            .statement("select\n  2", line: 2),
            .statement("select 3", line: 3),
        ])
    }

    func testQuotesCommentsAndParenthesesHideSemicolons() {
        let script = """
            select 'a;b', "c;d", E'it\\'s;', $$x;y$$, $tag$ $$;$$ $tag$; -- comment; here
            select /* ; /* nested ; */ still ; */ 1;
            select (1;
            2);
            """
        XCTAssertEqual(StatementSplitter.split(script), [
            .statement("select 'a;b', \"c;d\", E'it\\'s;', $$x;y$$, $tag$ $$;$$ $tag$", line: 1),
            .statement("select /* ; /* nested ; */ still ; */ 1", line: 2),
            .statement("select (1;\n2)", line: 4),
        ])
    }

    /// Redshift's literals are not standard conforming: a backslash escapes the next
    /// character in every one, so `\'` does not end it and `\\` is one backslash.
    func testBackslashEscapesInEveryLiteral() {
        XCTAssertEqual(StatementSplitter.split("select 'C:\\\\'; select 'it\\'s;'; select 2;"), [
            .statement("select 'C:\\\\'", line: 1),
            .statement("select 'it\\'s;'", line: 1),
            .statement("select 2", line: 1),
        ])
        XCTAssertEqual(StatementSplitter.split("select 'it''s'; select a$b$c;"), [
            .statement("select 'it''s'", line: 1),
            .statement("select a$b$c", line: 1),
        ])
    }

    func testLeadingCommentsAndBlankStatementsAreDropped() {
        XCTAssertEqual(StatementSplitter.split("\n-- setup\n\n  select 1 ;\n;\n-- only a comment\n"), [
            .statement("select 1", line: 4),
        ])
    }

    func testMetaCommands() {
        XCTAssertEqual(StatementSplitter.split("\\d t\nselect 1; \\x\n"), [
            .metaCommand("d t", line: 1),
            .statement("select 1", line: 2),
            .metaCommand("x", line: 2),
        ])
        // A backslash inside quotes is not a meta-command.
        XCTAssertEqual(StatementSplitter.split("select '\\x';"), [.statement("select '\\x'", line: 1)])
    }

    func testQueryBufferSurvivesMetaCommands() {
        var splitter = StatementSplitter()
        XCTAssertEqual(splitter.feed(line: "select 1"), [])
        XCTAssertFalse(splitter.isEmpty)
        XCTAssertEqual(splitter.feed(line: "\\g"), [.metaCommand("g", line: 2)])
        XCTAssertEqual(splitter.takePending(), "select 1")
        XCTAssertTrue(splitter.isEmpty)
        XCTAssertNil(splitter.takePending())
    }

    func testContinuationMarkers() {
        var splitter = StatementSplitter()
        XCTAssertTrue(splitter.isEmpty)
        _ = splitter.feed(line: "-- nothing yet")
        XCTAssertTrue(splitter.isEmpty)
        _ = splitter.feed(line: "select 'abc")
        XCTAssertEqual(splitter.continuationMarker, "'")
        _ = splitter.feed(line: "def' , (")
        XCTAssertEqual(splitter.continuationMarker, "(")
        _ = splitter.feed(line: "/* open")
        XCTAssertEqual(splitter.continuationMarker, "*")
        _ = splitter.feed(line: "*/ 1) , $$")
        XCTAssertEqual(splitter.continuationMarker, "$")
        _ = splitter.feed(line: "$$ , \"x")
        XCTAssertEqual(splitter.continuationMarker, "\"")
        XCTAssertEqual(splitter.feed(line: "\";"), [
            .statement("select 'abc\ndef' , (\n/* open\n*/ 1) , $$\n$$ , \"x\n\"", line: 7),
        ])
        XCTAssertTrue(splitter.isEmpty)
        XCTAssertEqual(splitter.continuationMarker, "-")
    }

    func testFinishReturnsUnterminatedStatement() {
        var splitter = StatementSplitter()
        _ = splitter.feed(line: "select 42")
        XCTAssertEqual(splitter.finish(), [.statement("select 42", line: 1)])
        XCTAssertEqual(splitter.finish(), [])
    }

    // MARK: - Meta-commands

    func testMetaCommandParsing() {
        XCTAssertEqual(MetaCommand.parse("q"), [.quit])
        XCTAssertEqual(MetaCommand.parse("?"), [.help])
        XCTAssertEqual(MetaCommand.parse("timing"), [.timing(nil)])
        XCTAssertEqual(MetaCommand.parse("timing off"), [.timing(false)])
        XCTAssertEqual(MetaCommand.parse("x"), [.expanded(nil)])
        XCTAssertEqual(MetaCommand.parse("x auto"), [.expanded(.auto)])
        XCTAssertEqual(MetaCommand.parse("x on"), [.expanded(.on)])
        XCTAssertEqual(MetaCommand.parse("d"), [.listTables(pattern: nil, tablesOnly: false)])
        XCTAssertEqual(MetaCommand.parse("dt"), [.listTables(pattern: nil, tablesOnly: true)])
        XCTAssertEqual(MetaCommand.parse("dt+ lineitem*"), [.listTables(pattern: "lineitem*", tablesOnly: true)])
        XCTAssertEqual(MetaCommand.parse("d orders"), [.describe("orders")])
        XCTAssertEqual(MetaCommand.parse("d+ \"Mixed Case\""), [.describe("\"Mixed Case\"")])
        XCTAssertEqual(MetaCommand.parse("i 'my file.sql'"), [.include("my file.sql", relativeToScript: false)])
        XCTAssertEqual(MetaCommand.parse("ir sub/x.sql"), [.include("sub/x.sql", relativeToScript: true)])
        XCTAssertEqual(MetaCommand.parse("echo hello   'big world'"), [.echo("hello big world")])
        XCTAssertEqual(MetaCommand.parse("pset format csv"), [.pset("format", "csv")])
        XCTAssertEqual(MetaCommand.parse("set ON_ERROR_STOP on"), [.set("ON_ERROR_STOP", "on")])
        XCTAssertEqual(MetaCommand.parse("f ','"), [.fieldSeparator(",")])
        XCTAssertEqual(MetaCommand.parse("x \\timing"), [.expanded(nil), .timing(nil)])
        XCTAssertEqual(MetaCommand.parse("a \\t on"), [.toggleAligned, .tuplesOnly(true)])
    }

    func testBadMetaCommands() {
        XCTAssertEqual(MetaCommand.parse("frob"), [.invalid("invalid command \\frob")])
        XCTAssertEqual(MetaCommand.parse("i"), [.invalid("\\i: missing required argument")])
        guard case .invalid = MetaCommand.parse("timing maybe").first else { return XCTFail("expected invalid") }
        XCTAssertEqual(MetaCommand.parse(""), [.invalid("invalid command \\")])
    }

    func testBooleans() {
        for word in ["on", "ON", "true", "t", "yes", "y", "1"] { XCTAssertEqual(MetaCommand.parseBoolean(word), true, word) }
        for word in ["off", "of", "false", "f", "no", "n", "0"] { XCTAssertEqual(MetaCommand.parseBoolean(word), false, word) }
        for word in ["o", "", "maybe"] { XCTAssertNil(MetaCommand.parseBoolean(word), word) }
    }
}
