// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

/// PostgreSQL's operator precedence, lowest first:
/// OR, AND, NOT, IS, comparisons, BETWEEN/IN/LIKE, other operators (||), + -, * / %, ^,
/// AT TIME ZONE, unary minus, ::.
final class PrecedenceTests: XCTestCase {
    private func e(_ sql: String) throws -> Expr { try parseExpression(sql) }

    func testArithmetic() throws {
        XCTAssertEqual(try e("1 + 2 * 3"), bin(.add, int("1"), bin(.multiply, int("2"), int("3"))))
        XCTAssertEqual(try e("1 - 2 - 3"), bin(.subtract, bin(.subtract, int("1"), int("2")), int("3")))
        XCTAssertEqual(try e("a / b % c"), bin(.modulo, bin(.divide, col("a"), col("b")), col("c")))
        XCTAssertEqual(try e("(1 + 2) * 3"), bin(.multiply, bin(.add, int("1"), int("2")), int("3")))
        XCTAssertEqual(try e("2 * 3 ^ 2"), bin(.multiply, int("2"), bin(.exponent, int("3"), int("2"))))
        XCTAssertEqual(try e("2 ^ 3 ^ 2"), bin(.exponent, bin(.exponent, int("2"), int("3")), int("2")))
    }

    func testUnaryMinusAndCast() throws {
        // Unary minus binds tighter than ^, but :: binds tighter than unary minus.
        XCTAssertEqual(try e("-2 ^ 2"), bin(.exponent, int("-2"), int("2")))
        XCTAssertEqual(try e("-a ^ 2"), bin(.exponent, neg(col("a")), int("2")))
        XCTAssertEqual(try e("-1::int"), neg(Expr(.cast(int("1"), .integer, .doubleColon))))
        XCTAssertEqual(try e("a + b::int"), bin(.add, col("a"), Expr(.cast(col("b"), .integer, .doubleColon))))
        XCTAssertEqual(try e("a - -b"), bin(.subtract, col("a"), neg(col("b"))))
    }

    func testConcatIsBelowAdditionAndAboveComparison() throws {
        XCTAssertEqual(try e("'a' || 1 + 2"), bin(.concat, str("a"), bin(.add, int("1"), int("2"))))
        XCTAssertEqual(try e("a || b = c"), bin(.equal, bin(.concat, col("a"), col("b")), col("c")))
        XCTAssertEqual(try e("a LIKE b || '%'"),
                       Expr(.like(.like, col("a"), pattern: bin(.concat, col("b"), str("%")), escape: nil, negated: false)))
    }

    func testBooleanOperators() throws {
        XCTAssertEqual(try e("a OR b AND c"), bin(.or, col("a"), bin(.and, col("b"), col("c"))))
        XCTAssertEqual(try e("a AND b OR c"), bin(.or, bin(.and, col("a"), col("b")), col("c")))
        XCTAssertEqual(try e("NOT a = b"), not(bin(.equal, col("a"), col("b"))))
        XCTAssertEqual(try e("NOT a AND b"), bin(.and, not(col("a")), col("b")))
        XCTAssertEqual(try e("NOT NOT a"), not(not(col("a"))))
        XCTAssertEqual(try e("a = 1 AND NOT b IS NULL"),
                       bin(.and, bin(.equal, col("a"), int("1")), not(Expr(.isNull(col("b"), negated: false)))))
    }

    func testIsAndComparison() throws {
        // IS binds looser than comparison ...
        XCTAssertEqual(try e("a = b IS NULL"), Expr(.isNull(bin(.equal, col("a"), col("b")), negated: false)))
        // ... but a completed IS test can be a comparison operand, as in PostgreSQL.
        XCTAssertEqual(try e("a IS NULL = false"), bin(.equal, Expr(.isNull(col("a"), negated: false)), bool(false)))
        // Comparisons do not chain.
        XCTAssertThrowsError(try e("a < b = true"))
        assertSyntaxError("SELECT a < b < c", "syntax error at or near \"<\"", line: 1, column: 14)
        assertSyntaxError("SELECT a LIKE b LIKE c", "syntax error at or near \"LIKE\"", line: 1, column: 17)
    }

    func testAtTimeZone() throws {
        let tz = Expr(.function(FunctionCall(name: "timezone", args: [str("UTC"), col("ts")], syntax: .atTimeZone)))
        XCTAssertEqual(try e("ts AT TIME ZONE 'UTC' + i"), bin(.add, tz, col("i")))
        XCTAssertEqual(try e("ts AT TIME ZONE 'UTC' ^ 2"), bin(.exponent, tz, int("2")))
    }

    func testBetweenAndIn() throws {
        XCTAssertEqual(try e("a BETWEEN 1 AND 2 AND b"),
                       bin(.and, Expr(.between(col("a"), low: int("1"), high: int("2"), negated: false)), col("b")))
        XCTAssertEqual(try e("a + 1 BETWEEN b AND c * 2"),
                       Expr(.between(bin(.add, col("a"), int("1")), low: col("b"),
                                     high: bin(.multiply, col("c"), int("2")), negated: false)))
        XCTAssertEqual(try e("a IN (1) = b NOT IN (2)"),
                       bin(.equal, Expr(.inList(col("a"), [int("1")], negated: false)),
                           Expr(.inList(col("b"), [int("2")], negated: true))))
    }
}
