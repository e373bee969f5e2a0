// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution

final class SelectTests: XCTestCase {

    func testColumnConstantFastPath() throws {
        let c = chunk(dates(["1998-09-01", "1998-09-02", nil, "1998-12-01"]))
        let p = try E.bin(.lessEqual, E.col(0, .date), E.date("1998-09-02"))
        XCTAssertEqual(try ExpressionEvaluator.select(p, c), [0, 1])
        // Constant on the left is flipped.
        let q = try E.bin(.greaterEqual, E.date("1998-09-02"), E.col(0, .date))
        XCTAssertEqual(try ExpressionEvaluator.select(q, c), [0, 1])
        // Under a selection: only listed rows, physical indices returned.
        let s = chunk(dates(["1998-09-01", "1998-09-02", nil, "1998-12-01"]), selection: [1, 2, 3])
        XCTAssertEqual(try ExpressionEvaluator.select(p, s), [1])
    }

    func testBetweenAsAnd() throws {
        // l_discount between 0.05 and 0.07 on DECIMAL(15,2).
        let t = DataType.decimal(precision: 15, scale: 2)
        let c = chunk(decs(["0.04", "0.05", "0.06", "0.07", "0.08", nil], 15, 2), ints([1, 2, 3, 4, 5, 6]))
        let p = BoundExpr.and([
            try E.bin(.greaterEqual, E.col(0, t), E.dec("0.05", 3, 2)),
            try E.bin(.lessEqual, E.col(0, t), E.dec("0.07", 3, 2)),
            try E.bin(.less, E.col(1, .integer), E.int(4)),
        ])
        XCTAssertEqual(try ExpressionEvaluator.select(p, c), [1, 2])
    }

    func testOrUnionsSelections() throws {
        let c = chunk(ints([1, 2, 3, 4, 5, nil]))
        let x = E.col(0, .integer)
        let p = BoundExpr.or([try E.bin(.equal, x, E.int(5)), try E.bin(.less, x, E.int(3)), try E.bin(.equal, x, E.int(1))])
        XCTAssertEqual(try ExpressionEvaluator.select(p, c), [0, 1, 4])
    }

    func testStringEqualityAndLikeSelect() throws {
        let c = chunk(strs(["MAIL", "SHIP", "AIR", nil, "MAIL"]), selection: [0, 1, 2, 3])
        XCTAssertEqual(try ExpressionEvaluator.select(try E.bin(.equal, E.col(0, .text), E.str("MAIL")), c), [0])
        let like = BoundExpr.like(E.col(0, .text), pattern: E.str("%I%"), caseInsensitive: false, negated: false, escape: nil)
        XCTAssertEqual(try ExpressionEvaluator.select(like, c), [0, 1, 2])
        let notLike = BoundExpr.like(E.col(0, .text), pattern: E.str("%I%"), caseInsensitive: false, negated: true, escape: nil)
        XCTAssertEqual(try ExpressionEvaluator.select(notLike, chunk(strs(["MAIL", "SHOP", nil]))), [1])
        let inList = BoundExpr.inList(E.col(0, .text), [E.str("SHIP"), E.str("AIR")], negated: false)
        XCTAssertEqual(try ExpressionEvaluator.select(inList, c), [1, 2])
    }

    func testIsNullAndGeneralPaths() throws {
        let c = chunk(ints([1, nil, 3]))
        XCTAssertEqual(try ExpressionEvaluator.select(.isNull(E.col(0, .integer), negated: false), c), [1])
        XCTAssertEqual(try ExpressionEvaluator.select(.isNull(E.col(0, .integer), negated: true), c), [0, 2])
        // General path: an arithmetic predicate.
        let p = try E.bin(.greater, E.bin(.multiply, E.col(0, .integer), E.int(2)), E.int(3))
        XCTAssertEqual(try ExpressionEvaluator.select(p, c), [2])
        XCTAssertEqual(try ExpressionEvaluator.select(E.bool(true), c), [0, 1, 2])
        XCTAssertEqual(try ExpressionEvaluator.select(E.bool(nil), c), [])
        XCTAssertEqual(try ExpressionEvaluator.select(.unary(.not, try E.bin(.equal, E.col(0, .integer), E.int(1)), .boolean), c), [2])
    }

    func testConstantColumnsAndEmptyChunks() throws {
        let constCol = Vector.constant(.int(7), type: .integer)
        let c = Chunk(columns: [constCol], count: 3)
        XCTAssertEqual(try ExpressionEvaluator.select(try E.bin(.equal, E.col(0, .integer), E.int(7)), c), [0, 1, 2])
        XCTAssertEqual(try evalRows(E.bin(.add, E.col(0, .integer), E.int(1)), c), ["8", "8", "8"])
        let empty = chunk(ints([1, 2]), selection: [])
        XCTAssertEqual(try ExpressionEvaluator.select(try E.bin(.equal, E.col(0, .integer), E.int(1)), empty), [])
        XCTAssertEqual(try evalRows(E.bin(.add, E.col(0, .integer), E.int(1)), empty), [])
    }

    func testBadColumnIndexIsAnErrorNotACrash() {
        let c = chunk(ints([1]))
        XCTAssertThrowsError(try ExpressionEvaluator.evaluate(E.col(3, .integer), c))
        XCTAssertThrowsError(try ExpressionEvaluator.select(try E.bin(.equal, E.col(3, .integer), E.int(1)), c))
    }
}
