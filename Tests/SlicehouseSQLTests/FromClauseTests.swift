// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class FromClauseTests: XCTestCase {
    private func from(_ sql: String) throws -> [TableRef] {
        try select("SELECT * FROM " + sql).from
    }

    private func join(_ kind: JoinKind, _ l: TableRef, _ r: TableRef, _ c: JoinCondition) -> TableRef {
        TableRef(.join(Join(kind: kind, left: l, right: r, condition: c)))
    }

    func testTableNamesAndAliases() throws {
        XCTAssertEqual(try from("public.t AS x (a, b), u y, v"), [
            TableRef(.table(ObjectName(schema: "public", name: "t"), alias: TableAlias(name: "x", columns: ["a", "b"]))),
            table("u", alias: "y"),
            table("v"),
        ])
        XCTAssertEqual(try from("db.s.t"), [TableRef(.table(ObjectName(database: "db", schema: "s", name: "t"), alias: nil))])
        XCTAssertEqual(try from("#temp"), [table("#temp")])
    }

    func testDerivedTable() throws {
        let sub = try query("SELECT 1 AS a")
        XCTAssertEqual(try from("(SELECT 1 AS a) AS s (b)"),
                       [TableRef(.subquery(sub, alias: TableAlias(name: "s", columns: ["b"])))])
        XCTAssertEqual(try from("(SELECT 1 AS a) s"), [TableRef(.subquery(sub, alias: TableAlias(name: "s")))])
        // A set operation starting with a parenthesised query, as a derived table.
        let union = try query("(SELECT 1) UNION (SELECT 2)")
        XCTAssertEqual(try from("((SELECT 1) UNION (SELECT 2)) u"),
                       [TableRef(.subquery(union, alias: TableAlias(name: "u")))])
    }

    func testJoins() throws {
        let on = JoinCondition.on(bin(.equal, col("a", "x"), col("b", "x")))
        XCTAssertEqual(try from("a JOIN b ON a.x = b.x"), [join(.inner, table("a"), table("b"), on)])
        XCTAssertEqual(try from("a INNER JOIN b ON a.x = b.x"), [join(.inner, table("a"), table("b"), on)])
        XCTAssertEqual(try from("a LEFT OUTER JOIN b ON a.x = b.x"), [join(.left, table("a"), table("b"), on)])
        XCTAssertEqual(try from("a LEFT JOIN b ON a.x = b.x"), [join(.left, table("a"), table("b"), on)])
        XCTAssertEqual(try from("a RIGHT JOIN b ON a.x = b.x"), [join(.right, table("a"), table("b"), on)])
        XCTAssertEqual(try from("a FULL OUTER JOIN b ON a.x = b.x"), [join(.full, table("a"), table("b"), on)])
        XCTAssertEqual(try from("a CROSS JOIN b"), [join(.cross, table("a"), table("b"), .none)])
        XCTAssertEqual(try from("a JOIN b USING (x, y)"), [join(.inner, table("a"), table("b"), .using(["x", "y"]))])
        XCTAssertEqual(try from("a NATURAL JOIN b"), [join(.inner, table("a"), table("b"), .natural)])
        XCTAssertEqual(try from("a NATURAL LEFT JOIN b"), [join(.left, table("a"), table("b"), .natural)])
    }

    func testJoinChainsAreLeftDeepAndCommasSeparateItems() throws {
        let refs = try from("a JOIN b USING (x) LEFT JOIN c USING (y), d")
        XCTAssertEqual(refs, [
            join(.left, join(.inner, table("a"), table("b"), .using(["x"])), table("c"), .using(["y"])),
            table("d"),
        ])
    }

    func testParenthesisedJoins() throws {
        let refs = try from("a JOIN (b JOIN c ON true) ON true")
        XCTAssertEqual(refs, [join(.inner, table("a"), join(.inner, table("b"), table("c"), .on(bool(true))), .on(bool(true)))])
        let nestedFirst = try from("((a CROSS JOIN b)) CROSS JOIN c")
        XCTAssertEqual(nestedFirst, [join(.cross, join(.cross, table("a"), table("b"), .none), table("c"), .none)])
        let derivedInJoin = try from("((SELECT 1) s JOIN b ON true)")
        XCTAssertEqual(derivedInJoin, [join(.inner, TableRef(.subquery(try query("SELECT 1"), alias: TableAlias(name: "s"))),
                                            table("b"), .on(bool(true)))])
    }

    func testJoinWithoutConditionIsAnError() {
        assertSyntaxError("SELECT * FROM a JOIN b WHERE true", "syntax error at or near \"WHERE\"", line: 1, column: 24)
        assertSyntaxError("SELECT * FROM a JOIN b", "syntax error at end of input", line: 1, column: 23)
    }

    func testJoinLocationIsTheJoinKeyword() throws {
        let refs = try from("a\n  LEFT JOIN b ON true")
        XCTAssertEqual([refs[0].location.line, refs[0].location.column], [2, 3])
    }
}
