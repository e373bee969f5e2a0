// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine
import SlicehouseSQLLogicTest
import SlicehouseTypes
import XCTest

/// The runner's comparison rules, against a fake executor.
final class SQLLogicTestRunnerTests: XCTestCase {
    private var fake = ShellFakeExecutor()

    override func setUp() {
        fake = ShellFakeExecutor()
    }

    private func run(_ script: String) -> SQLLogicTestSummary {
        let parsed = SQLLogicTestParser().parse(script, path: "x.test")
        return SQLLogicTestRunner(makeExecutor: { self.fake }).run(parsed)
    }

    private let ints3x2 = shellResult([("a", .integer), ("b", .integer), ("c", .integer)],
                                      rows: [[.int(4), .int(5), .int(6)], [.int(1), .int(2), .int(3)]])

    func testRowsortWithTabSeparatedRows() {
        fake.on("SELECT a, b, c FROM t", ints3x2)
        let summary = run("""
            query III rowsort
            SELECT a, b, c FROM t
            ----
            1\t2\t3
            4\t5\t6
            """)
        XCTAssertEqual(summary.passed, 1)
        XCTAssertEqual(summary.failed, 0, summary.failures.map(\.description).joined())
    }

    func testExpectedRowsAreSortedToo() {
        fake.on("SELECT a, b, c FROM t", ints3x2)
        let summary = run("query III rowsort\nSELECT a, b, c FROM t\n----\n4\t5\t6\n1\t2\t3\n")
        XCTAssertEqual(summary.failed, 0)
    }

    func testNosortComparesInOrder() {
        fake.on("SELECT a, b, c FROM t", ints3x2)
        let summary = run("query III nosort\nSELECT a, b, c FROM t\n----\n1\t2\t3\n4\t5\t6\n")
        XCTAssertEqual(summary.failed, 1)
        XCTAssertEqual(summary.failures.first?.line, 1)
        XCTAssertEqual(summary.failures.first?.message, "wrong result in row 1: expected \"1\t2\t3\", got \"4\t5\t6\"")
        XCTAssertEqual(summary.failures.first?.actual, ["4\t5\t6", "1\t2\t3"])
        XCTAssertEqual(summary.summaryLine, "0 passed, 1 failed")
    }

    func testClassicValuePerLineLayoutAndHash() {
        fake.on("SELECT a, b, c FROM t", ints3x2)
        let summary = run("""
            query III rowsort
            SELECT a, b, c FROM t
            ----
            1
            2
            3
            4
            5
            6

            query III rowsort
            SELECT a, b, c FROM t
            ----
            6 values hashing to f3a4562cd2134c76b4ff170ce6f28fee

            query III nosort
            SELECT a, b, c FROM t
            ----
            6 values hashing to f3a4562cd2134c76b4ff170ce6f28fee

            query III valuesort
            SELECT a, b, c FROM t
            ----
            6 values hashing to f3a4562cd2134c76b4ff170ce6f28fee
            """)
        XCTAssertEqual(summary.passed, 3)
        XCTAssertEqual(summary.failed, 1)
        XCTAssertEqual(summary.failures.first?.line, 16)
        XCTAssertTrue(summary.failures.first?.message.hasPrefix("wrong result hash") ?? false)
    }

    func testValueFormattingRules() {
        fake.on("q", shellResult([("n", .integer), ("s", .text), ("b", .boolean)],
                                 rows: [[.null, .string(""), .bool(true)]]))
        fake.on("r", shellResult([("d", .decimal(precision: 10, scale: 4)), ("f", .double), ("i", .integer)],
                                 rows: [[.int(12345), .double(1.0 / 3.0), .int(7)]]))
        let summary = run("""
            query ITB
            q
            ----
            NULL\t(empty)\ttrue

            query RRR
            r
            ----
            1.235\t0.333\t7.000

            query TRI
            r
            ----
            1.2345\t0.333\t7

            query III
            q
            ----
            NULL\t(empty)\t1
            """)
        XCTAssertEqual(summary.failed, 0, summary.failures.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(summary.passed, 4)
    }

    func testFormatterDirectly() {
        typealias F = SQLLogicTestValueFormatter
        XCTAssertEqual(F.render(.null, type: .integer, as: .integer), "NULL")
        XCTAssertEqual(F.render(.string(""), type: .text, as: .text), "(empty)")
        XCTAssertEqual(F.render(.bool(false), type: .boolean, as: .text), "false")
        XCTAssertEqual(F.render(.bool(false), type: .boolean, as: .integer, style: .classic), "0")
        XCTAssertEqual(F.render(.double(2.0 / 3.0), type: .double, as: .real), "0.667")
        XCTAssertEqual(F.render(.double(-0.5), type: .double, as: .real), "-0.500")
        XCTAssertEqual(F.render(.int(-12345), type: .decimal(precision: 10, scale: 4), as: .real), "-1.235")
        XCTAssertEqual(F.render(.int(5), type: .decimal(precision: 10, scale: 1), as: .real), "0.500")
        XCTAssertEqual(F.render(.int(-25), type: .decimal(precision: 10, scale: 1), as: .integer, style: .classic), "-2")
        XCTAssertEqual(F.render(.double(2.9), type: .double, as: .integer, style: .classic), "2")
        XCTAssertEqual(F.render(.int(-25), type: .decimal(precision: 10, scale: 1), as: .integer), "-2.5")
        XCTAssertEqual(F.render(.int(42), type: .bigint, as: .real), "42.000")
        XCTAssertEqual(F.render(.int(0), type: .date, as: .date), "1970-01-01")
        XCTAssertEqual(F.decimalFixed3(Int128.max, scale: 0), nil)
    }

    func testStatementsAndErrors() {
        fake.on("CREATE TABLE t (a int)", StatementResult(tag: "CREATE TABLE"))
        fake.on("SELECT x", error: SQLError(.undefinedColumn, "column \"x\" does not exist"))
        fake.on("DELETE FROM t", StatementResult(tag: "DELETE 3"))
        let summary = run("""
            statement ok
            CREATE TABLE t (a int)

            statement error
            SELECT x
            ----
            does not exist

            statement error
            SELECT x
            ----
            <REGEX>:column "[a-z]" does

            statement error
            SELECT x
            ----
            division by zero

            statement error
            CREATE TABLE t (a int)

            statement ok
            SELECT x

            statement count 3
            DELETE FROM t

            statement count 4
            DELETE FROM t
            """)
        XCTAssertEqual(summary.passed, 4)
        XCTAssertEqual(summary.failed, 4)
        XCTAssertEqual(summary.failures.map(\.line), [14, 19, 22, 28])
        XCTAssertEqual(summary.failures[0].message,
                       "expected an error containing \"division by zero\", got: ERROR:  column \"x\" does not exist")
        XCTAssertEqual(summary.failures[1].message, "statement succeeded but an error was expected")
        XCTAssertEqual(summary.failures[2].message, "statement failed: ERROR:  column \"x\" does not exist")
        XCTAssertEqual(summary.failures[3].message, "expected 4 affected rows, got 3")
        XCTAssertEqual(summary.failures[0].description,
                       "x.test:14: expected an error containing \"division by zero\", got: ERROR:  column \"x\" does not exist")
    }

    func testSkipifOnlyifHaltAndModeSkip() {
        fake.fallback = { _ in [shellResult([("x", .integer)], rows: [[.int(1)]])] }
        let summary = run("""
            skipif postgresql
            query I
            SELECT 2
            ----
            2

            onlyif sqlite
            query I
            SELECT 3
            ----
            3

            onlyif postgresql
            query I
            SELECT 1
            ----
            1

            mode skip

            query I
            SELECT 4
            ----
            4

            mode unskip

            onlyif mysql
            halt

            query I
            SELECT 1
            ----
            1

            halt

            query I
            SELECT 5
            ----
            5
            """)
        XCTAssertEqual(summary.passed, 2)
        XCTAssertEqual(summary.failed, 0)
        XCTAssertEqual(summary.skipped, 3)
        XCTAssertEqual(fake.executed, ["SELECT 1", "SELECT 1"])
    }

    func testWrongColumnCountAndRowCount() {
        fake.on("SELECT a, b, c FROM t", ints3x2)
        let summary = run("""
            query II
            SELECT a, b, c FROM t
            ----
            1\t2

            query III rowsort
            SELECT a, b, c FROM t
            ----
            1\t2\t3
            """)
        XCTAssertEqual(summary.failed, 2)
        XCTAssertEqual(summary.failures[0].message, "wrong number of columns: expected 2 (II), got 3")
        XCTAssertEqual(summary.failures[1].message, "wrong result: expected 1 row (3 values), got 2 rows (6 values)")
    }

    func testLabelsMustAgree() {
        fake.on("SELECT a, b, c FROM t", ints3x2)
        fake.on("SELECT a, b, c FROM u", shellResult([("a", .integer), ("b", .integer), ("c", .integer)],
                                                     rows: [[.int(1), .int(2), .int(3)]]))
        let summary = run("""
            query III rowsort same
            SELECT a, b, c FROM t

            query III rowsort same
            SELECT a, b, c FROM t

            query III rowsort same
            SELECT a, b, c FROM u
            """)
        XCTAssertEqual(summary.passed, 2)
        XCTAssertEqual(summary.failed, 1)
        XCTAssertEqual(summary.failures.first?.message,
                       "result differs from the query labelled \"same\" at line 1")
    }

    func testParseErrorsAndQueryErrorsAreFailures() {
        fake.on("SELECT broken", error: SQLError.syntax("syntax error at or near \"broken\"", line: 1, column: 8))
        let summary = run("""
            bogus record

            query I
            SELECT broken
            ----
            1
            """)
        XCTAssertEqual(summary.failed, 2)
        XCTAssertEqual(summary.failures[0].message, "parse error: unknown record type \"bogus\"")
        XCTAssertEqual(summary.failures[1].message, "query failed: ERROR:  syntax error at or near \"broken\"")
    }

    func testTrailingBlanksAndWhitespaceSeparatedRows() {
        fake.on("q", shellResult([("c", .char(5)), ("n", .integer)], rows: [[.string("ab"), .int(1)]]))
        let summary = run("query TI\nq\n----\nab 1\n")
        XCTAssertEqual(summary.failed, 0, summary.failures.map(\.description).joined())
    }

    func testFilesAndDirectories() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "statement ok\nSELECT 1\n".write(to: dir.appendingPathComponent("b.test"), atomically: true, encoding: .utf8)
        try "statement ok\nSELECT 2\n\nstatement ok\nSELECT 3\n"
            .write(to: dir.appendingPathComponent("sub/a.test"), atomically: true, encoding: .utf8)
        try "not a test".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)

        let (files, missing) = SQLLogicTestRunner.testFiles(in: [dir.path, dir.path + "/nope"])
        XCTAssertEqual(files.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted(), ["a.test", "b.test"])
        XCTAssertEqual(missing, [dir.path + "/nope"])

        var seen: [String] = []
        let summary = SQLLogicTestRunner(makeExecutor: { self.fake }).runFiles([dir.path]) { file, _ in
            seen.append(file)
        }
        XCTAssertEqual(summary.passed, 3)
        XCTAssertEqual(summary.files, 2)
        XCTAssertEqual(seen.count, 2)
    }

    func testExecutorCreationFailureIsReported() {
        struct Boom: Error {}
        let parsed = SQLLogicTestParser().parse("statement ok\nSELECT 1\n", path: "y.test")
        let summary = SQLLogicTestRunner(makeExecutor: { throw Boom() }).run(parsed)
        XCTAssertEqual(summary.failed, 1)
        XCTAssertEqual(summary.failures.first?.line, 0)
    }
}
