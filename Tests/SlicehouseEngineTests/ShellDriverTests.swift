// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseShell
import SlicehouseSQLLogicTest
import SlicehouseTypes
import XCTest

/// The shell's behaviour end to end, against a fake executor.
final class ShellDriverTests: XCTestCase {
    private var fake = ShellFakeExecutor()
    private var out = CapturedShellOutput()

    override func setUp() {
        fake = ShellFakeExecutor()
        out = CapturedShellOutput()
        fake.on("select 1", shellResult([("?column?", .integer)], rows: [[.int(1)]]))
        fake.on("create table t (a int)", StatementResult(tag: "CREATE TABLE"))
        fake.on("select x", error: SQLError(.undefinedColumn, "column \"x\" does not exist", line: 1, column: 8))
    }

    private func driver(_ configure: (inout ShellOptions) -> Void = { _ in }) -> ShellDriver {
        var options = ShellOptions()
        configure(&options)
        return ShellDriver(backend: fake, options: options, output: out)
    }

    func testCommandStringPrintsTableAndTag() {
        let d = driver()
        XCTAssertTrue(d.runCommandString("select 1"))
        XCTAssertTrue(d.runCommandString("create table t (a int)"))
        XCTAssertEqual(out.standardOutput, " ?column? \n----------\n        1\n(1 row)\n\nCREATE TABLE\n")
        XCTAssertEqual(out.standardError, "")
        XCTAssertEqual(d.exitCode, 0)
    }

    func testCommandStringErrorHasCaretAndExitStatus1() {
        let d = driver()
        XCTAssertFalse(d.runCommandString("select x"))
        XCTAssertEqual(out.standardError, "ERROR:  column \"x\" does not exist\nLINE 1: select x\n" +
                       String(repeating: " ", count: 15) + "^\n")
        XCTAssertEqual(d.exitCode, 1)
        // As in psql, the exit status is that of the last -c.
        d.runCommandString("select 1")
        XCTAssertEqual(d.exitCode, 0)
    }

    func testScriptErrorsCarryFileAndLineAndContinue() {
        fake.on("select\nx", error: SQLError(.undefinedColumn, "column \"x\" does not exist", line: 2, column: 1))
        let d = driver()
        XCTAssertTrue(d.runScript("select 1;\n\nselect\nx;\ncreate table t (a int);\n", name: "s.sql"))
        XCTAssertEqual(fake.executed, ["select 1", "select\nx", "create table t (a int)"])
        XCTAssertTrue(out.standardOutput.hasSuffix("(1 row)\n\nCREATE TABLE\n"))
        // The location is the line where the statement ended; LINE n counts within the statement.
        XCTAssertEqual(out.standardError, "slicehouse:s.sql:4: ERROR:  column \"x\" does not exist\nLINE 2: x\n        ^\n")
        XCTAssertEqual(d.exitCode, 0)
    }

    func testOnErrorStopStopsAtFirstError() {
        let d = driver()
        d.setVariable("ON_ERROR_STOP", "1")
        XCTAssertFalse(d.runScript("select 1;\nselect x;\ncreate table t (a int);\n", name: "s.sql"))
        XCTAssertEqual(fake.executed, ["select 1", "select x"])
        XCTAssertTrue(d.isFinished)
        XCTAssertEqual(d.exitCode, 1)
        // Nothing runs afterwards.
        XCTAssertFalse(d.runCommandString("select 1"))
        XCTAssertEqual(fake.executed.count, 2)
    }

    func testOnErrorStopInteractivelyReturnsToThePrompt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stop-\(UUID().uuidString).sql")
        try "select x;\nselect 1;\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let d = driver()
        d.interactive = true
        d.setVariable("ON_ERROR_STOP", "on")
        d.feed(line: "\\i \(file.path)")
        XCTAssertEqual(fake.executed, ["select x"])
        XCTAssertFalse(d.isFinished)
        d.feed(line: "select 1;")
        XCTAssertEqual(fake.executed, ["select x", "select 1"])
        XCTAssertEqual(d.exitCode, 0)
    }

    func testLineInputPromptsAndUnterminatedLastStatement() {
        let d = driver()
        XCTAssertEqual(d.prompt, "slicehouse=> ")
        d.feed(line: "select")
        XCTAssertEqual(d.prompt, "slicehouse-> ")
        d.feed(line: "1;")
        XCTAssertEqual(d.prompt, "slicehouse=> ")
        d.feed(line: "create table t (a int)")
        XCTAssertEqual(fake.executed, ["select\n1"])
        d.endOfInput()
        XCTAssertEqual(fake.executed, ["select\n1", "create table t (a int)"])
    }

    func testStdinErrorsArePrefixedWithStdin() {
        let d = driver()
        d.inputName = "<stdin>"
        d.feed(line: "select x;")
        XCTAssertTrue(out.standardError.hasPrefix("slicehouse:<stdin>:1: ERROR:  column \"x\""), out.standardError)
    }

    func testInteractiveHistoryHelpAndQuit() {
        let d = driver()
        d.interactive = true
        var history: [String] = []
        d.historyHandler = { history.append($0) }
        d.feed(line: "")
        d.feed(line: "select")
        d.feed(line: "1;")
        d.feed(line: "\\x")
        d.feed(line: "help")
        XCTAssertEqual(history, ["select\n1;", "\\x", "help"])
        XCTAssertTrue(out.standardOutput.contains("\\? for help"))
        d.feed(line: "quit")
        XCTAssertTrue(d.isFinished)
    }

    func testTimingUsesThePsqlFormat() {
        let d = driver()
        var now = 1000.0
        d.clock = {
            now += 1.5
            return now
        }
        XCTAssertTrue(d.run(.timing(nil)))
        d.runCommandString("create table t (a int)")
        XCTAssertEqual(out.standardOutput, "Timing is on.\nCREATE TABLE\nTime: 1.500 ms\n")
    }

    func testBarsDrawExplainAnalyzeSlicesAndSkippedBlocks() {
        let plan = [
            "XN Seq Scan on t  (cost=0.00..8.00 rows=800 width=4)",
            "  Actual: rows=2100 time=0.120 ms",
            "  Slices: rows min=0 max=1000 skew=1.905 by slice [1000,500,600,0]",
            "  Scanned: 9000 rows read, 3 of 12 blocks skipped by zone maps",
        ]
        fake.on("explain analyze select * from t", shellResult([("QUERY PLAN", .text)], rows: plan.map { [.string($0)] }))
        let d = driver()
        d.runCommandString("explain analyze select * from t")
        XCTAssertTrue(out.standardOutput.contains("by slice [1000,500,600,0]"), "off by default")
        XCTAssertTrue(d.run(.bars(nil)))
        d.runCommandString("explain analyze select * from t")
        XCTAssertTrue(out.standardOutput.contains("EXPLAIN ANALYZE bars are on."))
        XCTAssertTrue(out.standardOutput.contains("   Slices: █▅▅▁ rows min=0 max=1000 skew=1.905\n"), out.standardOutput)
        XCTAssertTrue(out.standardOutput.contains("   Scanned: 9000 rows read; blocks skipped ███░░░░░░░ 3 of 12\n"), out.standardOutput)
        XCTAssertEqual(MetaCommand.parse("bars off"), [.bars(false)])
    }

    func testNoticesGoToStandardErrorBeforeTheResult() {
        fake.on("copy t from 's3://b/k'", StatementResult(tag: "COPY 3", notices: ["Load into table 't' completed"]))
        let d = driver()
        d.runCommandString("copy t from 's3://b/k'")
        XCTAssertEqual(out.combined, "INFO:  Load into table 't' completed\nCOPY 3\n")
    }

    func testFormattingOptionsAndMetaCommands() {
        let d = driver { $0.format = .unaligned; $0.tuplesOnly = true }
        d.runCommandString("select 1")
        XCTAssertEqual(out.standardOutput, "1\n")
        d.runCommandString("\\a \\t off")
        d.runCommandString("\\pset format csv")
        d.runCommandString("select 1")
        XCTAssertEqual(out.standardOutput, "1\nOutput format is aligned.\nTuples only is off.\nOutput format is csv.\n?column?\n1\n")
        XCTAssertFalse(d.runCommandString("\\frobnicate"))
        XCTAssertEqual(out.standardError, "invalid command \\frobnicate\nTry \\? for help.\n")
        XCTAssertEqual(d.exitCode, 1)
    }

    func testListAndDescribeTables() {
        fake.tables = shellResult([("Schema", .text), ("Name", .text), ("Type", .text), ("Owner", .text)],
                                  rows: [[.string("public"), .string("lineitem"), .string("table"), .string("dev")],
                                         [.string("public"), .string("orders"), .string("table"), .string("dev")]])
        fake.descriptions["orders"] = shellResult([("Column", .text), ("Type", .text)],
                                                  rows: [[.string("o_orderkey"), .string("bigint")]])
        let d = driver { $0.format = .unaligned }
        d.runCommandString("\\dt")
        d.runCommandString("\\dt ord*")
        d.runCommandString("\\d ORDERS")
        d.runCommandString("\\dt nothing")
        XCTAssertEqual(out.standardOutput, """
            List of relations
            Schema|Name|Type|Owner
            public|lineitem|table|dev
            public|orders|table|dev
            (2 rows)
            List of relations
            Schema|Name|Type|Owner
            public|orders|table|dev
            (1 row)
            Table "public.orders"
            Column|Type
            o_orderkey|bigint

            """)
        XCTAssertEqual(out.standardError, "Did not find any relation named \"nothing\".\n")
        XCTAssertFalse(d.runCommandString("\\d missing"))
        XCTAssertTrue(out.standardError.hasSuffix("Did not find any relation named \"missing\".\n"))
    }

    func testGlobPatterns() {
        XCTAssertTrue(ShellDriver.matches(pattern: "ord*", name: "orders"))
        XCTAssertTrue(ShellDriver.matches(pattern: "ORD?RS", name: "orders"))
        XCTAssertTrue(ShellDriver.matches(pattern: "*", name: "x"))
        XCTAssertFalse(ShellDriver.matches(pattern: "\"Ord*\"", name: "orders"))
        XCTAssertFalse(ShellDriver.matches(pattern: "o*x", name: "orders"))
    }

    func testIncludeFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "\\ir inner.sql\nselect 1;\n".write(to: dir.appendingPathComponent("outer.sql"), atomically: true, encoding: .utf8)
        try "create table t (a int);\nselect x;\n".write(to: dir.appendingPathComponent("inner.sql"),
                                                        atomically: true, encoding: .utf8)
        let d = driver()
        XCTAssertTrue(d.runFile(dir.appendingPathComponent("outer.sql").path))
        XCTAssertEqual(fake.executed, ["create table t (a int)", "select x", "select 1"])
        XCTAssertTrue(out.standardError.hasPrefix("slicehouse:inner.sql:2: ERROR:"), out.standardError)

        XCTAssertFalse(d.runFile(dir.appendingPathComponent("missing.sql").path))
        XCTAssertTrue(out.standardError.contains("missing.sql: No such file or directory"))
        XCTAssertEqual(d.exitCode, 1)
    }

    func testSelfIncludeIsBounded() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID().uuidString).sql")
        try "\\i \(file.path)\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let d = driver()
        d.runFile(file.path)
        XCTAssertTrue(out.standardError.contains("too many nested includes"))
    }

    func testGoAndBufferCommands() {
        let d = driver()
        d.feed(line: "select 1")
        d.feed(line: "\\p")
        d.feed(line: "\\g")
        d.feed(line: "\\g")
        XCTAssertEqual(fake.executed, ["select 1", "select 1"])
        d.feed(line: "select 2")
        d.feed(line: "\\r")
        d.endOfInput()
        XCTAssertEqual(fake.executed.count, 2)
        XCTAssertTrue(out.standardOutput.hasPrefix("select 1\n ?column?"), out.standardOutput)
        XCTAssertTrue(out.standardOutput.hasSuffix("Query buffer reset (cleared).\n"))
    }
}

/// Recovering the order of -c and -f from the raw command line.
final class ShellActionTests: XCTestCase {
    func testInterleavedCommandsAndFilesKeepTheirOrder() {
        let args = ["-c", "select 1", "--csv", "-f", "a.sql", "--command=select 2", "-v", "X=1", "--file=b.sql",
                    "-Atc", "select 3"]
        XCTAssertEqual(ShellAction.ordered(arguments: args, commands: ["select 1", "select 2", "select 3"],
                                           files: ["a.sql", "b.sql"]),
                       [.command("select 1"), .file("a.sql"), .command("select 2"), .file("b.sql"), .command("select 3")])
    }

    func testValuesThatLookLikeOptionsAreNotReinterpreted() {
        XCTAssertEqual(ShellAction.ordered(arguments: ["-F", "-c", "-c", "-f"], commands: ["-f"], files: []),
                       [.command("-f")])
    }

    func testDisagreementFallsBackToCommandsThenFiles() {
        XCTAssertEqual(ShellAction.ordered(arguments: ["-f", "x.sql"], commands: ["select 1"], files: ["x.sql"]),
                       [.command("select 1"), .file("x.sql")])
    }

    func testRunActionsStopsAtQuit() {
        let fake = ShellFakeExecutor()
        let out = CapturedShellOutput()
        let d = ShellDriver(backend: fake, output: out)
        d.run([.command("select 1"), .command("\\q"), .command("select 2")])
        XCTAssertEqual(fake.executed, ["select 1"])
        XCTAssertTrue(d.isFinished)
    }

    func testConnectionOptionsAreNotTakenForCommands() {
        let args = ["-h", "-c", "-p", "5439", "-U", "-f", "-d", "dev", "-c", "select 1"]
        XCTAssertEqual(ShellAction.ordered(arguments: args, commands: ["select 1"], files: []), [.command("select 1")])
    }

    /// A lost server connection is psql's message (no `ERROR:`), and it ends a script with
    /// exit status 2 instead of going on to the next statement.
    func testLostConnectionStopsAScriptWithStatus2() {
        let fake = ShellFakeExecutor()
        fake.fallback = { _ in throw ShellConnectionLost.closed }
        let out = CapturedShellOutput()
        let d = ShellDriver(backend: fake, output: out)
        d.run([.command("select 1"), .command("select 2")])
        XCTAssertEqual(fake.executed, ["select 1"])
        XCTAssertEqual(d.exitCode, 2)
        XCTAssertTrue(out.standardError.hasPrefix("server closed the connection unexpectedly\n"), out.standardError)
        XCTAssertFalse(out.standardError.contains("ERROR:"))
    }
}
