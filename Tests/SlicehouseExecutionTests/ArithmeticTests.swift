// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

final class ArithmeticTests: XCTestCase {

    func testIntegerAddWithNullsAndConstants() throws {
        let c = chunk(ints([1, nil, 3, -4]))
        XCTAssertEqual(try evalRows(E.bin(.add, E.col(0, .integer), E.int(10)), c), ["11", nil, "13", "6"])
        XCTAssertEqual(try evalRows(E.bin(.subtract, E.int(10), E.col(0, .integer)), c), ["9", nil, "7", "14"])
        XCTAssertEqual(try evalRows(E.bin(.multiply, E.col(0, .integer), E.col(0, .integer)), c), ["1", nil, "9", "16"])
        XCTAssertEqual(try evalRows(E.bin(.add, E.col(0, .integer), E.null(.integer)), c), [nil, nil, nil, nil])
        XCTAssertEqual(try run1(E.bin(.add, E.int(2), E.int(3))), "5")
    }

    func testSelectionIsRespected() throws {
        let c = chunk(ints([1, 2, 3, 4, 5]), selection: [1, 3])
        XCTAssertEqual(try evalRows(E.bin(.multiply, E.col(0, .integer), E.int(100)), c), ["200", "400"])
    }

    func testIntegerDivisionAndModulo() throws {
        let c = chunk(ints([7, -7, 7, -7]), ints([2, 2, -3, 3]))
        XCTAssertEqual(try evalRows(E.bin(.divide, E.col(0, .integer), E.col(1, .integer)), c), ["3", "-3", "-2", "-2"])
        XCTAssertEqual(try evalRows(E.bin(.modulo, E.col(0, .integer), E.col(1, .integer)), c), ["1", "-1", "1", "-1"])
    }

    func testIntegerOverflowPerResultType() throws {
        assertError(try E.bin(.add, E.int(2_147_483_647), E.int(1)), "integer out of range")
        assertError(try E.bin(.add, E.int(32767, .smallint), E.int(1, .smallint)), "smallint out of range")
        assertError(try E.bin(.multiply, E.int(Int64.max, .bigint), E.int(2, .bigint)), "bigint out of range")
        assertError(try E.bin(.divide, E.int(Int64.min, .bigint), E.int(-1, .bigint)), "bigint out of range")
        // smallint + integer is integer: no overflow.
        XCTAssertEqual(try run1(E.bin(.add, E.int(32767, .smallint), E.int(1))), "32768")
        // Overflow in a column, only on a non-NULL row.
        let c = chunk(ints([1, 2_147_483_647]))
        assertError(try E.bin(.add, E.col(0, .integer), E.int(1)), "integer out of range", in: c)
    }

    func testDivisionByZeroOnlyForEvaluatedNonNullRows() throws {
        assertError(try E.bin(.divide, E.int(1), E.int(0)), "division by zero")
        assertError(try E.bin(.modulo, E.int(1), E.int(0)), "division by zero")
        // A NULL divisor (stored as 0) is not an error.
        let c = chunk(ints([10, 20]), ints([nil, 5]))
        XCTAssertEqual(try evalRows(E.bin(.divide, E.col(0, .integer), E.col(1, .integer)), c), [nil, "4"])
        // A zero divisor on a row the selection excludes is not an error.
        let s = chunk(ints([10, 20]), ints([0, 5]), selection: [1])
        XCTAssertEqual(try evalRows(E.bin(.divide, E.col(0, .integer), E.col(1, .integer)), s), ["4"])
        // A zero divisor on a NULL dividend row: NULL, no error.
        let z = chunk(ints([nil, 20]), ints([0, 5]))
        XCTAssertEqual(try evalRows(E.bin(.divide, E.col(0, .integer), E.col(1, .integer)), z), [nil, "4"])
    }

    func testDecimalMultiplyScales() throws {
        // 0.05 * 100.00 → numeric(9,4)
        let e = try E.bin(.multiply, E.dec("0.05", 3, 2), E.dec("100.00", 5, 2))
        XCTAssertEqual(e.type, .decimal(precision: 9, scale: 4))
        XCTAssertEqual(try run1(e), "5.0000")
    }

    func testDecimalDivisionRoundsHalfAwayFromZero() throws {
        let one = E.dec("1", 1, 0), two = E.dec("2", 1, 0), three = E.dec("3", 1, 0)
        let e = try E.bin(.divide, one, three)
        XCTAssertEqual(e.type, .decimal(precision: 5, scale: 4))
        XCTAssertEqual(try run1(e), "0.3333")
        XCTAssertEqual(try run1(E.bin(.divide, two, three)), "0.6667")
        XCTAssertEqual(try run1(E.bin(.divide, E.dec("-2", 1, 0), three)), "-0.6667")
        // Redshift's example: DECIMAL(8,2) / DECIMAL(8,2) → DECIMAL(17,9)
        let d = try E.bin(.divide, E.dec("10.00", 8, 2), E.dec("3.00", 8, 2))
        XCTAssertEqual(d.type, .decimal(precision: 17, scale: 9))
        XCTAssertEqual(try run1(d), "3.333333333")
        assertError(try E.bin(.divide, E.dec("1.00", 8, 2), E.dec("0.00", 8, 2)), "division by zero")
    }

    func testDecimalAddAlignsScales() throws {
        let e = try E.bin(.add, E.dec("1.5", 2, 1), E.dec("2.25", 3, 2))
        XCTAssertEqual(e.type, .decimal(precision: 4, scale: 2))
        XCTAssertEqual(try run1(e), "3.75")
        XCTAssertEqual(try run1(E.bin(.subtract, E.dec("1.5", 2, 1), E.dec("2.25", 3, 2))), "-0.75")
        // integer with decimal: 1 - 0.05 → numeric(13,2) (integer counts as numeric(10,0))
        let m = try E.bin(.subtract, E.int(1), E.dec("0.05", 3, 2))
        XCTAssertEqual(m.type, .decimal(precision: 13, scale: 2))
        XCTAssertEqual(try run1(m), "0.95")
        XCTAssertEqual(try run1(E.bin(.modulo, E.dec("7.5", 2, 1), E.dec("2", 1, 0))), "1.5")
    }

    func testDecimalOverflowAgainstResultPrecision() throws {
        // Force a narrow result type: 9.99 + 9.99 into numeric(3,2).
        let e = BoundExpr.binary(.add, E.dec("9.99", 3, 2), E.dec("9.99", 3, 2), .decimal(precision: 3, scale: 2))
        assertError(e, "numeric overflow for type numeric(3,2)")
        // Int128: 10^37 * 10 into numeric(38,0).
        let big = BoundExpr.constant(.int128(DecimalMath.pow10[37]), .decimal(precision: 38, scale: 0))
        let m = BoundExpr.binary(.multiply, big, E.dec("10", 2, 0), .decimal(precision: 38, scale: 0))
        assertError(m, "numeric overflow for type numeric(38,0)")
    }

    /// The 64-bit sum and difference read overflow off the operands' signs and test the
    /// result range with one unsigned compare: at the edges of the precision, at the edges
    /// of Int64 itself (a wrapped result inside the range must still fail), and for NULL
    /// rows, whose garbage never fails.
    func testDecimalAddSubtractAtTheEdges() throws {
        let t18 = DataType.decimal(precision: 18, scale: 0)
        let top = "999999999999999999"
        XCTAssertEqual(try run1(.binary(.add, E.dec(top, 18, 0), E.dec("0", 18, 0), t18)), top)
        XCTAssertEqual(try run1(.binary(.subtract, E.dec("-" + top, 18, 0), E.dec("0", 18, 0), t18)), "-" + top)
        assertError(.binary(.add, E.dec(top, 18, 0), E.dec("1", 18, 0), t18), "numeric overflow for type numeric(18,0)")
        assertError(.binary(.subtract, E.dec("-" + top, 18, 0), E.dec("1", 18, 0), t18), "numeric overflow for type numeric(18,0)")
        // Columns (the vector loop), with NULL rows whose stored values would overflow.
        var big = ints([Int64.max, 5, Int64.min, -5], t18)
        big.validity = Validity(allValid: 4)
        big.validity?.setInvalid(0)
        big.validity?.setInvalid(2)
        let one = ints([1, 1, 1, 1], t18)
        XCTAssertEqual(try evalRows(.binary(.add, E.col(0, t18), E.col(1, t18), t18), chunk(big, one)), [nil, "6", nil, "-4"])
        XCTAssertEqual(try evalRows(.binary(.subtract, E.col(0, t18), E.col(1, t18), t18), chunk(big, one)), [nil, "4", nil, "-6"])
        // Int64 wrap-around that lands inside ±maxAbs is still an overflow.
        let wrap = ints([Int64.max, 0], t18), minusOne = ints([-(Int64.max - 5), 0], t18)
        assertError(.binary(.subtract, E.col(0, t18), E.col(1, t18), t18), "numeric overflow for type numeric(18,0)",
                    in: chunk(wrap, minusOne))
        // Int128: 10^38 - 1 is the last value of numeric(38,0).
        let t38 = DataType.decimal(precision: 38, scale: 0)
        let max38 = BoundExpr.constant(.int128(DecimalMath.pow10[38] - 1), t38)
        let min38 = BoundExpr.constant(.int128(1 - DecimalMath.pow10[38]), t38)
        XCTAssertEqual(try run1(.binary(.add, max38, E.dec("0", 38, 0), t38)), String(repeating: "9", count: 38))
        assertError(.binary(.add, max38, E.dec("1", 38, 0), t38), "numeric overflow for type numeric(38,0)")
        assertError(.binary(.subtract, min38, E.dec("1", 38, 0), t38), "numeric overflow for type numeric(38,0)")
    }

    /// 64 × 64 → 128-bit products against the result precision, both signs.
    func testDecimalProductAtTheEdges() throws {
        let t18 = DataType.decimal(precision: 18, scale: 0)
        let t19 = DataType.decimal(precision: 19, scale: 0)
        let c = chunk(ints([999_999_999_999_999_999, -999_999_999_999_999_999, 10, 0], t18), ints([100, 100, -3, 7], t18))
        XCTAssertEqual(try evalRows(.binary(.multiply, E.col(0, t18), E.col(1, t18), .decimal(precision: 21, scale: 0)), c),
                       ["99999999999999999900", "-99999999999999999900", "-30", "0"])
        assertError(.binary(.multiply, E.col(0, t18), E.col(1, t18), t19), "numeric overflow for type numeric(19,0)", in: c)
    }

    func testQ1ChargeExpression() throws {
        // l_extendedprice * (1 - l_discount) * (1 + l_tax), DECIMAL(15,2) operands.
        let c = chunk(decs(["1000.00", "33.33", nil], 15, 2), decs(["0.05", "0.10", "0.00"], 15, 2),
                      decs(["0.08", "0.02", "0.01"], 15, 2))
        let price = E.col(0, .decimal(precision: 15, scale: 2))
        let disc = E.col(1, .decimal(precision: 15, scale: 2))
        let tax = E.col(2, .decimal(precision: 15, scale: 2))
        let discPrice = try E.bin(.multiply, price, E.bin(.subtract, E.int(1), disc))
        XCTAssertEqual(discPrice.type, .decimal(precision: 32, scale: 4))
        XCTAssertEqual(try evalRows(discPrice, c), ["950.0000", "29.9970", nil])
        let charge = try E.bin(.multiply, discPrice, E.bin(.add, E.int(1), tax))
        XCTAssertEqual(charge.type, .decimal(precision: 38, scale: 6))
        XCTAssertEqual(try evalRows(charge, c), ["1026.000000", "30.596940", nil])
    }

    func testProjectionListSharesSubexpressions() throws {
        let t = DataType.decimal(precision: 15, scale: 2)
        let c = chunk(decs(["1000.00", "10.00", "5.00"], 15, 2), decs(["0.05", "0.10", "0.00"], 15, 2),
                      decs(["0.08", "0.00", "0.01"], 15, 2), selection: [0, 2])
        let discPrice = try E.bin(.multiply, E.col(0, t), E.bin(.subtract, E.int(1), E.col(1, t)))
        let charge = try E.bin(.multiply, discPrice, E.bin(.add, E.int(1), E.col(2, t)))
        let random = try E.fn("random", [])
        let out = try ExpressionEvaluator.evaluate([discPrice, charge, E.col(0, t), random, random], c)
        XCTAssertEqual(texts(out[0], rows: 2), ["950.0000", "5.0000"])
        XCTAssertEqual(texts(out[1], rows: 2), ["1026.000000", "5.050000"])
        XCTAssertEqual(texts(out[2], rows: 2), ["1000.00", "5.00"])
        XCTAssertNotEqual(texts(out[3], rows: 2), texts(out[4], rows: 2))
    }

    /// The projection operator finds what recurs in its list (within one expression or
    /// across them) and computes it once per chunk; a volatile function never recurs, and
    /// a subexpression guarded by CASE is still evaluated only where the CASE reaches.
    func testProjectionOperatorSharesRecurringSubexpressions() throws {
        let t = DataType.decimal(precision: 15, scale: 2)
        let oneMinusDisc = try E.bin(.subtract, E.int(1), E.col(1, t))
        let discPrice = try E.bin(.multiply, E.col(0, t), oneMinusDisc)
        let charge = try E.bin(.multiply, discPrice, E.bin(.add, E.int(1), E.col(2, t)))
        let random = try E.fn("random", [])
        XCTAssertEqual(ExpressionEvaluator.sharedSubexpressions([discPrice, charge, E.col(0, t), random, random]),
                       [discPrice, oneMinusDisc])
        XCTAssertEqual(ExpressionEvaluator.sharedSubexpressions([discPrice, E.col(0, t)]), [])
        // Within one expression too; columns and constants are never "shared".
        let twice = try E.bin(.add, discPrice, discPrice)
        XCTAssertEqual(ExpressionEvaluator.sharedSubexpressions([twice]), [discPrice, oneMinusDisc])

        // 100 / x guarded by CASE in two columns: the rows where x = 0 never divide.
        let x = E.col(3, .integer)
        let quotient = try E.bin(.divide, E.int(100), x)
        let guarded = BoundExpr.caseWhen([WhenClause(condition: try E.bin(.notEqual, x, E.int(0)), result: quotient)],
                                         elseResult: E.int(-1), .integer)
        let exprs = [discPrice, charge, E.col(0, t), random, random, guarded, guarded]
        let c = chunk(decs(["1000.00", "10.00", "5.00"], 15, 2), decs(["0.05", "0.10", "0.00"], 15, 2),
                      decs(["0.08", "0.00", "0.01"], 15, 2), ints([4, 0, 0]), selection: [0, 2])
        let op = ProjectOperator(input: ChunkSource([c]), expressions: exprs)
        XCTAssertEqual(op.shared, [discPrice, oneMinusDisc, guarded, try E.bin(.notEqual, x, E.int(0)), quotient])
        let out = try XCTUnwrap(try op.next())
        XCTAssertEqual(out.count, 2)
        XCTAssertEqual(texts(out.columns[0], rows: 2), ["950.0000", "5.0000"])
        XCTAssertEqual(texts(out.columns[1], rows: 2), ["1026.000000", "5.050000"])
        XCTAssertEqual(texts(out.columns[2], rows: 2), ["1000.00", "5.00"])
        XCTAssertNotEqual(texts(out.columns[3], rows: 2), texts(out.columns[4], rows: 2))
        XCTAssertEqual(texts(out.columns[5], rows: 2), ["25", "-1"])
        XCTAssertEqual(texts(out.columns[6], rows: 2), ["25", "-1"])
        XCTAssertNil(try op.next())
        // Every expression as the evaluator gives it alone.
        for (i, e) in exprs.enumerated() where i != 3 && i != 4 {
            XCTAssertEqual(texts(out.columns[i], rows: 2), try evalRows(e, c), "expression \(i)")
        }
    }

    /// Wide DECIMAL + - * computed in 64 bits for a consumer that reads both widths
    /// (`ExpressionEvaluator.evaluate(_:_:narrowing:)`): only where every value fits,
    /// only for the arithmetic that reads it, and with the values of the 128-bit path.
    func testNarrowedWideDecimalArithmetic() throws {
        let t = DataType.decimal(precision: 15, scale: 2)
        let discPrice = try E.bin(.multiply, E.col(0, t), E.bin(.subtract, E.int(1), E.col(1, t)))
        let charge = try E.bin(.multiply, discPrice, E.bin(.add, E.int(1), E.col(2, t)))
        XCTAssertEqual(discPrice.type.physical, .int128)
        XCTAssertEqual(charge.type.physical, .int128)
        let c = chunk(decs(["1000.00", nil, "5.00", "-99999.99"], 15, 2), decs(["0.05", "0.10", "0.00", "0.07"], 15, 2),
                      decs(["0.08", "0.00", "0.01", nil], 15, 2), selection: [0, 1, 3])
        /// Narrowed where asked, never otherwise, and the same text either way.
        func check(_ e: BoundExpr, _ c: Chunk, narrowed: Bool, _ expected: [String?], line: UInt = #line) throws {
            let wide = try ExpressionEvaluator.evaluate(e, c)
            XCTAssertFalse(wide.isNarrowed, line: line)
            let v = try ExpressionEvaluator.evaluate(e, c, narrowing: true)
            XCTAssertEqual(v.isNarrowed, narrowed, line: line)
            XCTAssertEqual(v.type, e.type, line: line)
            XCTAssertEqual(texts(v, rows: c.count), expected, line: line)
            XCTAssertEqual(texts(wide, rows: c.count), expected, line: line)
            XCTAssertEqual(texts(v.widened(), rows: c.count), expected, line: line)
            XCTAssertFalse(v.widened().isNarrowed, line: line)
        }
        // Q1's products, through a selection, with NULLs on either side.
        try check(discPrice, c, narrowed: true, ["950.0000", nil, "-92999.9907"])
        try check(charge, c, narrowed: true, ["1026.000000", nil, nil])
        // A sum of two narrowed products at one scale is narrowed; a product and a column
        // at another scale is computed in 128 bits from the narrowed operand.
        try check(E.bin(.add, discPrice, discPrice), c, narrowed: true, ["1900.0000", nil, "-185999.9814"])
        try check(E.bin(.subtract, discPrice, E.col(0, t)), c, narrowed: false, ["-50.0000", nil, "6999.9993"])
        // Division, comparison and CAST read their operands at full width.
        try check(E.bin(.divide, discPrice, E.int(2)), c, narrowed: false, ["475.0000000000", nil, "-46499.9953500000"])
        XCTAssertEqual(texts(try ExpressionEvaluator.evaluate(E.bin(.greater, discPrice, E.int(0)), c, narrowing: true),
                             rows: 3), ["t", nil, "f"])
        try check(.cast(discPrice, .varchar(40)), c, narrowed: false, ["950.0000", nil, "-92999.9907"])
        // Constants only: a narrowed constant.
        let k = try E.bin(.multiply, E.dec("12.5", 15, 1), E.dec("-3.25", 15, 2))
        XCTAssertEqual(k.type.physical, .int128)
        let kv = try ExpressionEvaluator.evaluate(k, Chunk(columns: [], count: 2), narrowing: true)
        XCTAssertTrue(kv.isNarrowed && kv.isConstant)
        XCTAssertEqual(texts(kv, rows: 2), ["-40.625", "-40.625"])

        // Magnitudes whose product or sum could leave 64 bits: the chunk is computed in 128.
        let big = DataType.decimal(precision: 18, scale: 0)
        let product = try E.bin(.multiply, E.col(0, big), E.col(1, big))
        XCTAssertEqual(product.type.physical, .int128)
        let b = chunk(decs(["3", "999999999999999999", nil], 18, 0), decs(["10", "10", "7"], 18, 0))
        try check(product, b, narrowed: false, ["30", "9999999999999999990", nil])
        try check(product, chunk(decs(["3", "-4"], 18, 0), decs(["10", "10"], 18, 0)), narrowed: true, ["30", "-40"])
        // The bound (`Kern.magnitudeBits`): |x| ≤ 2^31 and |y| ≤ 2^31 keep a product within
        // 2^62. It is taken over all rows, so two rows can decide it though neither holds
        // both magnitudes, and it is conservative: a larger product that fits is computed in 128.
        try check(product, chunk(decs(["2147483647", "1"], 18, 0), decs(["-2147483648", "1"], 18, 0)), narrowed: true,
                  ["-4611686016279904256", "1"])
        try check(product, chunk(decs(["2147483648", "1"], 18, 0), decs(["1", "2147483647"], 18, 0)), narrowed: false,
                  ["2147483648", "2147483647"])
        try check(product, chunk(decs(["3037000500", "1"], 18, 0), decs(["3037000500", "1"], 18, 0)), narrowed: false,
                  ["9223372037000250000", "1"])
        let sum = try E.bin(.add, product, product)
        try check(sum, chunk(decs(["2147483647"], 18, 0), decs(["1073741823"], 18, 0)), narrowed: true,
                  ["4611686011984936962"])
        try check(sum, chunk(decs(["2147483647"], 18, 0), decs(["2147483647"], 18, 0)), narrowed: false,
                  ["9223372028264841218"])
        try check(sum, chunk(decs(["2147483648"], 18, 0), decs(["2147483648"], 18, 0)), narrowed: false,
                  ["9223372036854775808"])
    }

    /// Every |v| ≤ 2^magnitudeBits, at the edges of Int64.
    func testMagnitudeBits() {
        let cases: [([Int64], Int)] = [([], 0), ([0], 0), ([1], 1), ([-1], 0), ([-2], 1), ([2], 2), ([-3, 2], 2),
                                       ([Int64.max], 63), ([Int64.min], 63), ([0, -(1 << 40), 5], 40),
                                       ([1 << 40], 41)]
        for (values, bits) in cases {
            XCTAssertEqual(values.withUnsafeBufferPointer { Kern.magnitudeBits($0) }, bits, "\(values)")
            for v in values { XCTAssertLessThanOrEqual(v.magnitude, UInt64(1) << UInt64(bits), "\(v)") }
        }
        XCTAssertEqual(Kern.magnitudeBits([7, 1 << 50], count: 1), 3, "only the first count values")
    }

    /// A subexpression shared in a projection list is computed once, narrowed for the
    /// columns that take it so and widened for those that do not.
    func testProjectionNarrowsOnlyItsNarrowedColumns() throws {
        let t = DataType.decimal(precision: 15, scale: 2)
        let discPrice = try E.bin(.multiply, E.col(0, t), E.bin(.subtract, E.int(1), E.col(1, t)))
        let charge = try E.bin(.multiply, discPrice, E.bin(.add, E.int(1), E.col(2, t)))
        let c = chunk(decs(["1000.00", "10.00", "5.00"], 15, 2), decs(["0.05", "0.10", "0.00"], 15, 2),
                      decs(["0.08", "0.00", "0.01"], 15, 2), selection: [0, 2])
        // discPrice is computed narrowed for column 0, read so by charge (column 1) and
        // widened for column 2; computed at full width first, it stays so for charge.
        for (exprs, narrowed, expected) in [([discPrice, charge, discPrice], Set([0, 1]), [true, true, false]),
                                            ([discPrice, charge], Set([1]), [false, false])] {
            let op = ProjectOperator(input: ChunkSource([c]), expressions: exprs, narrowed: narrowed)
            XCTAssertEqual(op.shared.first, discPrice)
            let out = try XCTUnwrap(try op.next())
            XCTAssertEqual(out.columns.map { $0.isNarrowed }, expected)
            for (i, e) in exprs.enumerated() {
                XCTAssertEqual(texts(out.columns[i], rows: 2), try evalRows(e, c), "column \(i)")
            }
        }
        // Without a shared list (one expression), and without any narrowed column.
        let alone = ProjectOperator(input: ChunkSource([c]), expressions: [charge], narrowed: [0])
        XCTAssertTrue(try XCTUnwrap(try alone.next()).columns[0].isNarrowed)
        let none = ProjectOperator(input: ChunkSource([c]), expressions: [charge, discPrice])
        let out = try XCTUnwrap(try none.next())
        XCTAssertFalse(out.columns[0].isNarrowed || out.columns[1].isNarrowed)
    }

    func testMixedWidthDecimals() throws {
        let wide = decs(["12345678901234567890.12"], 30, 2)
        let narrow = decs(["0.50"], 5, 2)
        let c = chunk(wide, narrow)
        let e = try E.bin(.add, E.col(0, .decimal(precision: 30, scale: 2)), E.col(1, .decimal(precision: 5, scale: 2)))
        XCTAssertEqual(try evalRows(e, c), ["12345678901234567890.62"])
        let m = try E.bin(.multiply, E.col(1, .decimal(precision: 5, scale: 2)), E.col(0, .decimal(precision: 30, scale: 2)))
        XCTAssertEqual(try evalRows(m, c), ["6172839450617283945.0600"])
    }

    func testDoubleArithmetic() throws {
        let c = chunk(doubles([1.5, nil, -2]))
        XCTAssertEqual(try evalRows(E.bin(.multiply, E.col(0, .double), E.dbl(2)), c), ["3", nil, "-4"])
        XCTAssertEqual(try evalRows(E.bin(.add, E.col(0, .double), E.int(1)), c), ["2.5", nil, "-1"])
        assertError(try E.bin(.multiply, E.dbl(1e308), E.dbl(10)), "value out of range: overflow")
        assertError(try E.bin(.divide, E.dbl(1), E.dbl(0)), "division by zero")
        XCTAssertEqual(try run1(E.bin(.divide, E.dbl(1), E.dbl(4))), "0.25")
    }

    func testDateArithmetic() throws {
        let c = chunk(dates(["1998-12-01", nil]))
        let d = E.col(0, .date)
        XCTAssertEqual(try evalRows(E.bin(.subtract, d, E.int(90)), c), ["1998-09-02", nil])
        XCTAssertEqual(try evalRows(E.bin(.add, E.int(31), d), c), ["1999-01-01", nil])
        let diff = try E.bin(.subtract, d, E.date("1998-01-01"))
        XCTAssertEqual(diff.type, .integer)
        XCTAssertEqual(try evalRows(diff, c), ["334", nil])
        assertError(try E.bin(.add, E.date("2000-01-01"), E.int(2_147_000_000)), "date out of range")
    }

    func testUnaryMinus() throws {
        let c = chunk(ints([5, nil, -3]))
        XCTAssertEqual(try evalRows(.unary(.negate, E.col(0, .integer), .integer), c), ["-5", nil, "3"])
        assertError(.unary(.negate, E.int(-32768, .smallint), .smallint), "smallint out of range")
        XCTAssertEqual(try run1(.unary(.negate, E.dec("1.25", 3, 2), .decimal(precision: 3, scale: 2))), "-1.25")
        XCTAssertEqual(try run1(.unary(.negate, E.dbl(2.5), .double)), "-2.5")
    }

    func testConcatOperator() throws {
        let c = chunk(strs(["ab", nil, "é"]), strs(["cd", "x", "ü"]))
        let e = try E.bin(.concat, E.col(0, .text), E.col(1, .text))
        XCTAssertEqual(try evalRows(e, c), ["abcd", nil, "éü"])
        // Non-string operands are cast to text.
        XCTAssertEqual(try run1(E.bin(.concat, E.str("n="), E.int(42))), "n=42")
        XCTAssertEqual(try run1(E.bin(.concat, E.str("a"), E.null(.text))), nil)
    }

    func testTypeRulesForOperators() throws {
        XCTAssertEqual(try TypeRules.binaryOperator(.add, .smallint, .smallint).result, .smallint)
        XCTAssertEqual(try TypeRules.binaryOperator(.add, .integer, .bigint).result, .bigint)
        XCTAssertEqual(try TypeRules.binaryOperator(.add, .real, .real).result, .real)
        XCTAssertEqual(try TypeRules.binaryOperator(.add, .integer, .real).result, .double)
        XCTAssertEqual(try TypeRules.binaryOperator(.multiply, .decimal(precision: 8, scale: 2), .double).result, .double)
        XCTAssertEqual(try TypeRules.binaryOperator(.equal, .decimal(precision: 15, scale: 2), .decimal(precision: 3, scale: 2)).left,
                       .decimal(precision: 15, scale: 2))
        XCTAssertThrowsError(try TypeRules.binaryOperator(.add, .integer, .boolean)) { err in
            XCTAssertEqual((err as? SQLError)?.message, "operator does not exist: integer + boolean")
        }
        XCTAssertThrowsError(try TypeRules.binaryOperator(.add, .date, .date))
    }
}
