// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class UtilityStatementTests: XCTestCase {
    func testTransactions() throws {
        XCTAssertEqual(try parseStatements("""
            BEGIN; BEGIN TRANSACTION; BEGIN WORK ISOLATION LEVEL SERIALIZABLE; START TRANSACTION READ WRITE;
            COMMIT; COMMIT WORK; END; END TRANSACTION; ROLLBACK; ROLLBACK TRANSACTION; ABORT
            """), [.begin, .begin, .begin, .begin, .commit, .commit, .commit, .commit, .rollback, .rollback, .rollback])
    }

    func testSetResetShow() throws {
        XCTAssertEqual(try parseStatement("SET query_group TO 'etl'"),
                       .set(SetStatement(name: "query_group", values: [.string("etl")])))
        XCTAssertEqual(try parseStatement("SET wlm_query_slot_count = 3"),
                       .set(SetStatement(name: "wlm_query_slot_count", values: [.number("3")])))
        XCTAssertEqual(try parseStatement("set enable_result_cache_for_session to off"),
                       .set(SetStatement(name: "enable_result_cache_for_session", values: [.identifier("off")])))
        XCTAssertEqual(try parseStatement("SET search_path TO '$user', public"),
                       .set(SetStatement(name: "search_path", values: [.string("$user"), .identifier("public")])))
        XCTAssertEqual(try parseStatement("SET SESSION extra_float_digits = -3"),
                       .set(SetStatement(name: "extra_float_digits", values: [.number("-3")])))
        XCTAssertEqual(try parseStatement("SET LOCAL statement_timeout TO DEFAULT"),
                       .set(SetStatement(name: "statement_timeout", values: [], local: true)))
        XCTAssertEqual(try parseStatement("SET TIME ZONE 'UTC'"), .set(SetStatement(name: "timezone", values: [.string("UTC")])))
        XCTAssertEqual(try parseStatement("SET DATESTYLE TO ISO, MDY"),
                       .set(SetStatement(name: "datestyle", values: [.identifier("iso"), .identifier("mdy")])))
        XCTAssertTrue(SetStatement(name: "x", values: []).isDefault)
        XCTAssertEqual(try parseStatement("RESET query_group"), .reset("query_group"))
        XCTAssertEqual(try parseStatement("RESET ALL"), .reset("all"))
        XCTAssertEqual(try parseStatement("SHOW search_path"), .show("search_path"))
        XCTAssertEqual(try parseStatement("SHOW ALL"), .show("all"))
        XCTAssertEqual(try parseStatement("SHOW TIME ZONE"), .show("timezone"))
    }

    func testVacuum() throws {
        XCTAssertEqual(try parseStatement("VACUUM"), .vacuum(Vacuum()))
        XCTAssertEqual(try parseStatement("VACUUM FULL t TO 75 PERCENT BOOST"),
                       .vacuum(Vacuum(mode: .full, table: ObjectName(name: "t"), toPercent: 75, boost: true)))
        XCTAssertEqual(try parseStatement("VACUUM SORT ONLY s.t"),
                       .vacuum(Vacuum(mode: .sortOnly, table: ObjectName(schema: "s", name: "t"))))
        XCTAssertEqual(try parseStatement("VACUUM DELETE ONLY"), .vacuum(Vacuum(mode: .deleteOnly)))
        XCTAssertEqual(try parseStatement("VACUUM REINDEX t"), .vacuum(Vacuum(mode: .reindex, table: ObjectName(name: "t"))))
        XCTAssertEqual(try parseStatement("VACUUM t"), .vacuum(Vacuum(table: ObjectName(name: "t"))))
        XCTAssertEqual(try parseStatement("VACUUM TO 99 PERCENT"), .vacuum(Vacuum(toPercent: 99)))
        assertSyntaxError("VACUUM t TO 101 PERCENT", "threshold must be between 0 and 100 percent", line: 1, column: 13)
    }

    func testAnalyze() throws {
        XCTAssertEqual(try parseStatement("ANALYZE"), .analyze(Analyze()))
        XCTAssertEqual(try parseStatement("ANALYZE VERBOSE t (a, b) PREDICATE COLUMNS"), .analyze(Analyze(
            verbose: true, table: ObjectName(name: "t"), columns: ["a", "b"], predicateColumns: true)))
        XCTAssertEqual(try parseStatement("analyse t all columns"), .analyze(Analyze(table: ObjectName(name: "t"))))
        XCTAssertEqual(try parseStatement("ANALYZE COMPRESSION t COMPROWS 1000"), .analyze(Analyze(
            compression: true, table: ObjectName(name: "t"), compRows: 1000)))
        XCTAssertEqual(try parseStatement("ANALYZE COMPRESSION"), .analyze(Analyze(compression: true)))
    }

    func testExplain() throws {
        XCTAssertEqual(try parseStatement("EXPLAIN SELECT 1"),
                       .explain(Explain(statement: .query(try query("SELECT 1")))))
        XCTAssertEqual(try parseStatement("EXPLAIN VERBOSE DELETE FROM t"),
                       .explain(Explain(verbose: true, statement: .delete(Delete(table: ObjectName(name: "t"))))))
    }

    func testLock() throws {
        XCTAssertEqual(try parseStatement("LOCK TABLE a, b"), .lock([ObjectName(name: "a"), ObjectName(name: "b")]))
        XCTAssertEqual(try parseStatement("lock a"), .lock([ObjectName(name: "a")]))
    }
}
