// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class DMLTests: XCTestCase {
    func testInsertValuesWithDefault() throws {
        XCTAssertEqual(try parseStatement("INSERT INTO t (a, b) VALUES (1, DEFAULT), (-2, 'x')"), .insert(Insert(
            table: ObjectName(name: "t"), columns: ["a", "b"],
            source: .values([[int("1"), Expr(.defaultValue)], [int("-2"), str("x")]]))))
    }

    func testInsertQuery() throws {
        XCTAssertEqual(try parseStatement("INSERT INTO s.t SELECT * FROM u"), .insert(Insert(
            table: ObjectName(schema: "s", name: "t"), source: .query(try query("SELECT * FROM u")))))
        XCTAssertEqual(try parseStatement("INSERT INTO t (a) (SELECT 1)"), .insert(Insert(
            table: ObjectName(name: "t"), columns: ["a"], source: .query(try query("SELECT 1")))))
        XCTAssertEqual(try parseStatement("INSERT INTO t (SELECT 1)"), .insert(Insert(
            table: ObjectName(name: "t"), source: .query(try query("SELECT 1")))))
        XCTAssertEqual(try parseStatement("INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x"), .insert(Insert(
            table: ObjectName(name: "t"), source: .query(try query("WITH x AS (SELECT 1) SELECT * FROM x")))))
        XCTAssertEqual(try parseStatement("INSERT INTO t DEFAULT VALUES"),
                       .insert(Insert(table: ObjectName(name: "t"), source: .defaultValues)))
    }

    func testUpdate() throws {
        XCTAssertEqual(try parseStatement("UPDATE t AS x SET a = a + 1, b = DEFAULT FROM u WHERE x.id = u.id"),
                       .update(Update(table: ObjectName(name: "t"), alias: "x", assignments: [
                           Assignment(column: "a", value: bin(.add, col("a"), int("1"))),
                           Assignment(column: "b", value: Expr(.defaultValue)),
                       ], from: [table("u")], whereClause: bin(.equal, col("x", "id"), col("u", "id")))))
        XCTAssertEqual(try parseStatement("UPDATE t SET a = 1"), .update(Update(
            table: ObjectName(name: "t"), assignments: [Assignment(column: "a", value: int("1"))])))
    }

    func testDelete() throws {
        XCTAssertEqual(try parseStatement("DELETE FROM t USING a, b WHERE t.x = a.x"), .delete(Delete(
            table: ObjectName(name: "t"), using: [table("a"), table("b")],
            whereClause: bin(.equal, col("t", "x"), col("a", "x")))))
        XCTAssertEqual(try parseStatement("DELETE t"), .delete(Delete(table: ObjectName(name: "t"))))
        XCTAssertEqual(try parseStatement("delete from t x where x.a = 1"), .delete(Delete(
            table: ObjectName(name: "t"), alias: "x", whereClause: bin(.equal, col("x", "a"), int("1")))))
    }

    func testTruncate() throws {
        XCTAssertEqual(try parseStatement("TRUNCATE TABLE t"), .truncate(ObjectName(name: "t")))
        XCTAssertEqual(try parseStatement("truncate s.t"), .truncate(ObjectName(schema: "s", name: "t")))
    }
}
