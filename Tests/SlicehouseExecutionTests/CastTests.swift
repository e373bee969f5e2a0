// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

final class CastTests: XCTestCase {

    func testNumericToNumeric() throws {
        XCTAssertEqual(try run1(.cast(E.dec("2.345", 4, 3), .decimal(precision: 3, scale: 2))), "2.35")
        XCTAssertEqual(try run1(.cast(E.dec("-2.345", 4, 3), .decimal(precision: 3, scale: 2))), "-2.35")
        XCTAssertEqual(try run1(.cast(E.dec("2.5", 2, 1), .integer)), "3")
        XCTAssertEqual(try run1(.cast(E.dec("-2.5", 2, 1), .integer)), "-3")
        XCTAssertEqual(try run1(.cast(E.int(42), .decimal(precision: 5, scale: 2))), "42.00")
        XCTAssertEqual(try run1(.cast(E.int(42), .decimal(precision: 25, scale: 5))), "42.00000")
        XCTAssertEqual(try run1(.cast(E.int(70000), .bigint)), "70000")
        assertError(.cast(E.int(70000), .smallint), "smallint out of range")
        assertError(.cast(E.int(1000), .decimal(precision: 4, scale: 2)), "numeric field overflow")
        XCTAssertEqual(try run1(.cast(E.dec("123456789012345678901234.5", 25, 1), .decimal(precision: 30, scale: 0))),
                       "123456789012345678901235")
    }

    func testFloatConversions() throws {
        XCTAssertEqual(try run1(.cast(E.dbl(2.5), .integer)), "3")
        XCTAssertEqual(try run1(.cast(E.dbl(-2.5), .integer)), "-3")
        XCTAssertEqual(try run1(.cast(E.dbl(1.005), .decimal(precision: 5, scale: 1))), "1.0")
        XCTAssertEqual(try run1(.cast(E.dbl(0.125), .decimal(precision: 5, scale: 2))), "0.13")
        assertError(.cast(E.dbl(3e9), .integer), "integer out of range")
        assertError(.cast(E.dbl(.nan), .bigint), "bigint out of range")
        assertError(.cast(E.dbl(1e19), .bigint), "bigint out of range")
        XCTAssertEqual(try run1(.cast(E.dec("12.50", 4, 2), .double)), "12.5")
        XCTAssertEqual(try run1(.cast(E.int(3), .real)), "3")
        assertError(.cast(E.dbl(1e300), .real), "value out of range: overflow")
        XCTAssertEqual(try run1(.cast(E.dbl(1e20), .decimal(precision: 38, scale: 0))), "100000000000000000000")
    }

    func testToText() throws {
        XCTAssertEqual(try run1(.cast(E.int(-123), .text)), "-123")
        XCTAssertEqual(try run1(.cast(E.dec("-0.05", 3, 2), .text)), "-0.05")
        XCTAssertEqual(try run1(.cast(E.dec("12345678901234567890.123", 30, 3), .text)), "12345678901234567890.123")
        XCTAssertEqual(try run1(.cast(E.date("1998-09-02"), .text)), "1998-09-02")
        XCTAssertEqual(try run1(.cast(E.ts("2020-02-29 13:04:05.120"), .text)), "2020-02-29 13:04:05.12")
        XCTAssertEqual(try run1(.cast(E.ts("2020-02-29 00:00:00"), .text)), "2020-02-29 00:00:00")
        XCTAssertEqual(try run1(.cast(E.bool(true), .text)), "true")
        XCTAssertEqual(try run1(.cast(E.dbl(0.1), .text)), "0.1")
        XCTAssertEqual(try run1(.cast(E.int(Int64.min, .bigint), .text)), "-9223372036854775808")
        let c = chunk(ints([1, nil, 300]))
        XCTAssertEqual(try evalRows(.cast(E.col(0, .integer), .varchar(10)), c), ["1", nil, "300"])
    }

    func testStringLengthRules() throws {
        // Explicit cast truncates (at a character boundary).
        XCTAssertEqual(try run1(.cast(E.str("abcdefgh"), .varchar(5))), "abcde")
        XCTAssertEqual(try run1(.cast(E.str("ééé"), .varchar(5))), "éé")
        XCTAssertEqual(try run1(.cast(E.str("abc  "), .char(5))), "abc  ")
        // Assignment cast (INSERT) rejects it.
        let assign = BoundExpr.function(Builtins.internals.assignmentCast, [E.str("abcdefgh")], .varchar(5))
        assertError(assign, "value too long for type character varying(5)")
        let assignChar = BoundExpr.function(Builtins.internals.assignmentCast, [E.str("abcdefgh")], .char(3))
        assertError(assignChar, "value too long for type character(3)")
        // ... except for trailing blanks.
        XCTAssertEqual(try run1(.function(Builtins.internals.assignmentCast, [E.str("abc   ")], .varchar(4))), "abc ")
        XCTAssertEqual(try run1(.function(Builtins.internals.assignmentCast, [E.int(123456)], .varchar(6))), "123456")
        assertError(.function(Builtins.internals.assignmentCast, [E.int(1234567)], .varchar(6)), "value too long for type character varying(6)")
        // NULL rows never fail.
        let c = chunk(strs([nil, "ok"]))
        XCTAssertEqual(try evalRows(.function(Builtins.internals.assignmentCast, [E.col(0, .text)], .varchar(2)), c), [nil, "ok"])
        // CHAR is stored without trailing blanks.
        let v = try ExpressionEvaluator.evaluate(.cast(E.str("ab   "), .char(5)), Chunk(columns: [], count: 1))
        XCTAssertEqual(v.value(at: 0), .string("ab"))
    }

    func testAssignmentCastOfNumbers() throws {
        XCTAssertEqual(try run1(.function(Builtins.internals.assignmentCast, [E.dec("12.345", 5, 3)], .decimal(precision: 5, scale: 2))), "12.35")
        assertError(.function(Builtins.internals.assignmentCast, [E.int(100_000)], .smallint), "smallint out of range")
        XCTAssertEqual(try run1(.function(Builtins.internals.assignmentCast, [E.str("2020-01-02")], .date)), "2020-01-02")
    }

    func testFromText() throws {
        XCTAssertEqual(try run1(.cast(E.str(" 42 "), .integer)), "42")
        XCTAssertEqual(try run1(.cast(E.str("-32768"), .smallint)), "-32768")
        assertError(.cast(E.str("abc"), .integer), "invalid input syntax for type integer: \"abc\"")
        assertError(.cast(E.str("1.5"), .bigint), "invalid input syntax for type bigint: \"1.5\"")
        assertError(.cast(E.str("99999999999"), .integer), "value \"99999999999\" is out of range for type integer")
        XCTAssertEqual(try run1(.cast(E.str("12.345"), .decimal(precision: 5, scale: 2))), "12.35")
        assertError(.cast(E.str("12x"), .decimal(precision: 5, scale: 2)), "invalid input syntax for type numeric: \"12x\"")
        assertError(.cast(E.str("12345"), .decimal(precision: 5, scale: 2)), "numeric field overflow")
        XCTAssertEqual(try run1(.cast(E.str("1e3"), .double)), "1000")
        XCTAssertEqual(try run1(.cast(E.str("-Infinity"), .double)), "-Infinity")
        assertError(.cast(E.str("one"), .double), "invalid input syntax for type double precision: \"one\"")
        XCTAssertEqual(try run1(.cast(E.str("yes"), .boolean)), "t")
        XCTAssertEqual(try run1(.cast(E.str("F"), .boolean)), "f")
        assertError(.cast(E.str("maybe"), .boolean), "invalid input syntax for type boolean: \"maybe\"")
        XCTAssertEqual(try run1(.cast(E.str("1998-12-01"), .date)), "1998-12-01")
        assertError(.cast(E.str("1998-13-01"), .date), "invalid input syntax for type date: \"1998-13-01\"")
        XCTAssertEqual(try run1(.cast(E.str("2001-02-03 04:05:06.5"), .timestamp)), "2001-02-03 04:05:06.5")
        // Bad text on a NULL row is not an error.
        let c = chunk(strs(["7", nil]))
        XCTAssertEqual(try evalRows(.cast(E.col(0, .text), .integer), c), ["7", nil])
    }

    func testDateTimestampAndBool() throws {
        XCTAssertEqual(try run1(.cast(E.date("2000-01-01"), .timestamp)), "2000-01-01 00:00:00")
        XCTAssertEqual(try run1(.cast(E.ts("1969-12-31 23:00:00"), .date)), "1969-12-31")
        XCTAssertEqual(try run1(.cast(E.bool(true), .integer)), "1")
        XCTAssertEqual(try run1(.cast(E.int(0), .boolean)), "f")
        assertError(.cast(E.date("2000-01-01"), .integer), "cannot cast type date to integer")
    }

    func testCastRules() {
        XCTAssertTrue(TypeRules.canCast(.varchar(10), .date))
        XCTAssertTrue(TypeRules.canCast(.boolean, .integer))
        XCTAssertFalse(TypeRules.canCast(.date, .integer))
        XCTAssertTrue(TypeRules.canImplicitlyCast(.integer, .decimal(precision: 18, scale: 2)))
        XCTAssertTrue(TypeRules.canImplicitlyCast(.date, .timestamp))
        XCTAssertFalse(TypeRules.canImplicitlyCast(.boolean, .integer))
    }

    func testCommonTypes() {
        XCTAssertEqual(TypeRules.commonType(.smallint, .integer), .integer)
        XCTAssertEqual(TypeRules.commonType(.integer, .decimal(precision: 5, scale: 2)), .decimal(precision: 12, scale: 2))
        XCTAssertEqual(TypeRules.commonType(.decimal(precision: 15, scale: 2), .decimal(precision: 10, scale: 4)),
                       .decimal(precision: 17, scale: 4))
        XCTAssertEqual(TypeRules.commonType(.bigint, .double), .double)
        XCTAssertEqual(TypeRules.commonType(.real, .double), .double)
        XCTAssertEqual(TypeRules.commonType(.char(3), .varchar(10)), .varchar(10))
        XCTAssertEqual(TypeRules.commonType(.char(3), .char(5)), .char(5))
        XCTAssertEqual(TypeRules.commonType(.unknown, .date), .date)
        XCTAssertEqual(TypeRules.commonType(.date, .timestamp), .timestamp)
        XCTAssertEqual(TypeRules.commonType(.varchar(10), .date), .date)
        XCTAssertEqual(TypeRules.commonType(.varchar(4), .boolean, leftIsUntypedLiteral: true), .boolean)
        XCTAssertNil(TypeRules.commonType(.varchar(4), .boolean))
        XCTAssertNil(TypeRules.commonType(.integer, .boolean))
        XCTAssertEqual(TypeRules.commonType([.integer, .unknown, .decimal(precision: 3, scale: 1)]), .decimal(precision: 11, scale: 1))
    }

    /// A wide NUMERIC's Int128 to Double goes through Int64 when it fits; it must round
    /// as the standard library's conversion does, at the Int64 edges, beyond them, and
    /// where a Double cannot hold every integer (above 2^53).
    func testInt128ToDoubleRoundsAsTheStandardLibrary() {
        var values: [Int128] = [0, 1, -1, 42, -42, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, (1 << 63) - 1, -(1 << 63),
                                1 << 63, -(1 << 63) - 1, (1 << 64) + 3, Int128.max, Int128.min, 123_456_789_012_345_678_901_234_567]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            values.append(Int128(Int64.random(in: .min ... .max, using: &rng)))
            values.append(Int128(Int64.random(in: .min ... .max, using: &rng)) << Int.random(in: 1...60, using: &rng))
        }
        for v in values { XCTAssertEqual(CastKernels.double(v), Double(v), "\(v)") }
        // Through the cast: a NUMERIC(38, 3) column to DOUBLE PRECISION.
        let wide = Vector(type: .decimal(precision: 38, scale: 3), data: .int128([12_345, -1, (1 << 70) + 7]))
        let out = try? CastKernels.exactToFloat(wide, .double)
        if case .double(let d)? = out?.data {
            XCTAssertEqual(d, [12.345, -0.001, Double((Int128(1) << 70) + 7) / 1000])
        } else {
            XCTFail("no doubles")
        }
    }
}
