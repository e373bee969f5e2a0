// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQLLogicTest
import XCTest

final class SQLLogicTestParserTests: XCTestCase {
    typealias Record = SQLLogicTestRecord

    private func parse(_ text: String) -> [Record] {
        SQLLogicTestParser().parse(text, path: "t.test").records
    }

    // MARK: - Classic SQLite corpus format

    private let classic = """
        hash-threshold 8

        statement ok
        CREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER)

        statement ok
        INSERT INTO t1(c,b,a) VALUES(102,100,104)

        query I nosort
        SELECT CASE WHEN c>(SELECT avg(c) FROM t1) THEN a*2 ELSE b*10 END
          FROM t1
         ORDER BY 1
        ----
        30 values hashing to 3c13dee48d9356ae19af2515e05e6b54

        query III rowsort label-1
        SELECT a, b, c FROM t1
        ----
        104
        100
        102

        skipif mysql
        onlyif sqlite
        query I valuesort
        SELECT 1
        ----
        1

        onlyif mssql
        halt

        halt

        statement ok
        SELECT 1
        """

    func testClassicRecordKindsAndLines() {
        let records = parse(classic)
        XCTAssertEqual(records.count, 9)
        // A record's line is that of its statement/query line, after any conditions.
        XCTAssertEqual(records.map(\.line), [1, 3, 6, 9, 16, 25, 31, 33, 35])
        XCTAssertEqual(records[0].kind, .hashThreshold(8))
        XCTAssertEqual(records[1].kind, .statement(.init(
            sql: "CREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER)", expectation: .ok)))
        XCTAssertEqual(records[7].kind, .halt)
        XCTAssertEqual(records[8].kind, .statement(.init(sql: "SELECT 1", expectation: .ok)))
    }

    func testClassicHashedQuery() {
        let records = parse(classic)
        guard case .query(let q) = records[3].kind else { return XCTFail("expected a query, got \(records[3].kind)") }
        XCTAssertEqual(q.columnTypes, [.integer])
        XCTAssertEqual(q.sortMode, .noSort)
        XCTAssertNil(q.label)
        XCTAssertEqual(q.sql, """
            SELECT CASE WHEN c>(SELECT avg(c) FROM t1) THEN a*2 ELSE b*10 END
              FROM t1
             ORDER BY 1
            """)
        XCTAssertEqual(q.expected, .hash(count: 30, md5: "3c13dee48d9356ae19af2515e05e6b54"))
    }

    func testClassicValuesOnePerLineWithLabel() {
        let records = parse(classic)
        guard case .query(let q) = records[4].kind else { return XCTFail("expected a query") }
        XCTAssertEqual(q.columnTypes, [.integer, .integer, .integer])
        XCTAssertEqual(q.sortMode, .rowSort)
        XCTAssertEqual(q.label, "label-1")
        XCTAssertEqual(q.expected, .values(["104", "100", "102"]))
    }

    func testConditionsAttachToTheFollowingRecordOnly() {
        let records = parse(classic)
        XCTAssertEqual(records[5].conditions, [.skipIf("mysql"), .onlyIf("sqlite")])
        guard case .query(let q) = records[5].kind else { return XCTFail("expected a query") }
        XCTAssertEqual(q.sortMode, .valueSort)
        XCTAssertEqual(records[6].conditions, [.onlyIf("mssql")])
        XCTAssertEqual(records[6].kind, .halt)
        XCTAssertEqual(records[7].conditions, [])
        XCTAssertEqual(records[8].conditions, [])
    }

    func testEngineExclusion() {
        let engines = SQLLogicTestRunner.defaultEngineNames
        XCTAssertTrue(engines.contains("postgresql"))
        XCTAssertTrue(Record(line: 1, conditions: [.skipIf("postgresql")], kind: .halt).isExcluded(forEngines: engines))
        XCTAssertTrue(Record(line: 1, conditions: [.skipIf("PostgreSQL")], kind: .halt).isExcluded(forEngines: engines))
        XCTAssertFalse(Record(line: 1, conditions: [.skipIf("mysql")], kind: .halt).isExcluded(forEngines: engines))
        for other in ["sqlite", "mysql", "mssql", "oracle"] {
            XCTAssertTrue(Record(line: 1, conditions: [.onlyIf(other)], kind: .halt).isExcluded(forEngines: engines))
        }
        XCTAssertFalse(Record(line: 1, conditions: [.onlyIf("postgresql")], kind: .halt).isExcluded(forEngines: engines))
        XCTAssertFalse(Record(line: 1, conditions: [.onlyIf("slicehouse")], kind: .halt).isExcluded(forEngines: engines))
    }

    // MARK: - DuckDB style

    private let duckdb = """
        # name: test/sql/basic.test
        # group: [sql]

        require parquet

        statement ok
        CREATE TABLE integers(i INTEGER, j VARCHAR)

        statement error
        SELECT * FROM nonexistent
        ----
        does not exist

        query IT
        SELECT i, j FROM integers ORDER BY i
        ----
        1\ta
        NULL\t(empty)

        mode skip

        query I
        SELECT 42
        ----
        42

        mode unskip

        loop i 0 3

        statement ok
        INSERT INTO integers VALUES (${i}, 'x')

        endloop

        foreach t integer bigint

        statement ok
        SELECT 1::${t}

        endloop

        statement count 3
        DELETE FROM integers

        query RBD rowsort
        SELECT 1.5, true, DATE '2024-01-02'
        ----
        1.500\ttrue\t2024-01-02
        """

    func testDuckDBRecords() {
        let records = parse(duckdb)
        XCTAssertEqual(records.count, 14)
        XCTAssertEqual(records[0].kind, .require("parquet"))
        XCTAssertEqual(records[1].kind, .statement(.init(sql: "CREATE TABLE integers(i INTEGER, j VARCHAR)",
                                                         expectation: .ok)))
        XCTAssertEqual(records[2].kind, .statement(.init(sql: "SELECT * FROM nonexistent",
                                                         expectation: .error(.contains("does not exist")))))
        XCTAssertEqual(records[2].line, 9)
        guard case .query(let q) = records[3].kind else { return XCTFail("expected a query") }
        XCTAssertEqual(q.columnTypes, [.integer, .text])
        XCTAssertEqual(q.sortMode, .noSort)
        XCTAssertEqual(q.expected, .values(["1\ta", "NULL\t(empty)"]))
        XCTAssertEqual(records[4].kind, .skipMode(true))
        XCTAssertEqual(records[6].kind, .skipMode(false))
    }

    func testLoopsAreExpanded() {
        let records = parse(duckdb)
        let inserts = records[7...9].map(\.kind)
        XCTAssertEqual(inserts, (0..<3).map {
            .statement(.init(sql: "INSERT INTO integers VALUES (\($0), 'x')", expectation: .ok))
        })
        // Expanded records keep the line numbers of the loop body.
        XCTAssertEqual(records[7...9].map(\.line), [31, 31, 31])
        XCTAssertEqual(records[10].kind, .statement(.init(sql: "SELECT 1::integer", expectation: .ok)))
        XCTAssertEqual(records[11].kind, .statement(.init(sql: "SELECT 1::bigint", expectation: .ok)))
    }

    func testStatementCountAndTypeLetters() {
        let records = parse(duckdb)
        XCTAssertEqual(records[12].kind, .statement(.init(sql: "DELETE FROM integers", expectation: .count(3))))
        guard case .query(let q) = records.last?.kind else { return XCTFail("expected a query") }
        XCTAssertEqual(q.columnTypes, [.real, .boolean, .date])
        XCTAssertEqual(q.columnTypes.map(\.letter), ["R", "B", "D"])
        XCTAssertEqual(q.sortMode, .rowSort)
    }

    func testStatementErrorVariants() {
        let records = parse("""
            statement error
            SELECT 1/0

            statement error division by zero
            SELECT 1/0

            statement error
            SELECT x
            ----
            <REGEX>:column "x" does not .*

            query error
            SELECT y
            """)
        XCTAssertEqual(records.map(\.kind), [
            .statement(.init(sql: "SELECT 1/0", expectation: .error(.any))),
            .statement(.init(sql: "SELECT 1/0", expectation: .error(.contains("division by zero")))),
            .statement(.init(sql: "SELECT x", expectation: .error(.regex("column \"x\" does not .*")))),
            .statement(.init(sql: "SELECT y", expectation: .error(.any))),
        ])
    }

    func testQueryWithoutResultSectionAndComments() {
        let records = parse("""
            query I
            # a comment inside the SQL is dropped
            SELECT 1 -- trailing SQL comment stays

            query T nosort
            SELECT ''
            ----
            (empty)
            """)
        guard case .query(let q0) = records[0].kind, case .query(let q1) = records[1].kind else {
            return XCTFail("expected two queries")
        }
        XCTAssertEqual(q0.sql, "SELECT 1 -- trailing SQL comment stays")
        XCTAssertNil(q0.expected)
        XCTAssertEqual(q1.expected, .values(["(empty)"]))
    }

    func testMalformedRecordsBecomeParseErrorsAndParsingResumes() {
        let records = parse("""
            frobnicate now
            SELECT 1

            statement sometimes
            SELECT 2

            query
            SELECT 3

            query I
            SELECT 4
            ----
            4
            """)
        XCTAssertEqual(records.count, 4)
        guard case .parseError(let m0) = records[0].kind, case .parseError = records[1].kind,
              case .parseError = records[2].kind else {
            return XCTFail("expected three parse errors, got \(records.map(\.kind))")
        }
        XCTAssertTrue(m0.contains("frobnicate"))
        XCTAssertEqual(records.map(\.line), [1, 4, 7, 10])
        guard case .query(let q) = records[3].kind else { return XCTFail("expected a query") }
        XCTAssertEqual(q.expected, .values(["4"]))
    }

    func testCRLFAndTrailingWhitespace() {
        let records = parse("statement ok\r\nSELECT 1\r\n\r\nquery I rowsort  \r\nSELECT 2\r\n----\r\n2\r\n")
        guard records.count == 2 else { return XCTFail("expected 2 records, got \(records)") }
        XCTAssertEqual(records[0].kind, .statement(.init(sql: "SELECT 1", expectation: .ok)))
        guard case .query(let q) = records[1].kind else { return XCTFail("expected a query") }
        XCTAssertEqual(q.sortMode, .rowSort)
        XCTAssertEqual(q.expected, .values(["2"]))
    }

    func testUnterminatedLoopIsAnError() {
        let records = parse("loop i 0 2\nstatement ok\nSELECT ${i}\n")
        XCTAssertEqual(records.count, 1)
        guard case .parseError = records[0].kind else { return XCTFail("expected a parse error") }
    }
}
