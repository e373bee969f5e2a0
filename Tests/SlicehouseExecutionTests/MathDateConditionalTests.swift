// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

final class MathFunctionTests: XCTestCase {

    func testAbsSign() throws {
        let c = chunk(ints([-3, nil, 4]))
        XCTAssertEqual(try evalRows(E.fn("abs", [E.col(0, .integer)]), c), ["3", nil, "4"])
        XCTAssertEqual(try evalRows(E.fn("sign", [E.col(0, .integer)]), c), ["-1", nil, "1"])
        XCTAssertEqual(try run1(E.fn("abs", [E.dec("-1.25", 3, 2)])), "1.25")
        XCTAssertEqual(try run1(E.fn("abs", [E.dbl(-0.5)])), "0.5")
        assertError(try E.fn("abs", [E.int(-32768, .smallint)]), "smallint out of range")
        // Redshift: the sign of a DECIMAL is DECIMAL(1,0).
        XCTAssertEqual(try run1(E.fn("sign", [E.dec("-8.40", 3, 2)])), "-1")
    }

    func testRounding() throws {
        let r1 = try E.fn("round", [E.dec("28.05", 4, 2)])
        XCTAssertEqual(r1.type, .decimal(precision: 3, scale: 0))
        XCTAssertEqual(try run1(r1), "28")
        let r2 = try E.fn("round", [E.dec("28.05", 4, 2), E.int(1)])
        XCTAssertEqual(r2.type, .decimal(precision: 4, scale: 1))
        XCTAssertEqual(try run1(r2), "28.1")
        XCTAssertEqual(try run1(E.fn("round", [E.dec("28.05", 4, 2), E.int(-1)])), "30")
        XCTAssertEqual(try run1(E.fn("round", [E.dec("-2.5", 2, 1)])), "-3")
        XCTAssertEqual(try run1(E.fn("round", [E.dec("9.96", 3, 2), E.int(1)])), "10.0")
        XCTAssertEqual(try run1(E.fn("trunc", [E.dec("-2.78", 3, 2), E.int(1)])), "-2.7")
        XCTAssertEqual(try run1(E.fn("ceil", [E.dec("-2.5", 2, 1)])), "-2")
        XCTAssertEqual(try run1(E.fn("ceiling", [E.dec("2.1", 2, 1)])), "3")
        XCTAssertEqual(try run1(E.fn("floor", [E.dec("-2.1", 2, 1)])), "-3")
        XCTAssertEqual(try run1(E.fn("round", [E.dbl(2.5)])), "3")
        XCTAssertEqual(try run1(E.fn("round", [E.dbl(-2.345), E.int(2)])), "-2.35")
        XCTAssertEqual(try run1(E.fn("trunc", [E.dbl(-2.99)])), "-2")
        XCTAssertEqual(try run1(E.fn("floor", [E.dbl(-2.01)])), "-3")
        XCTAssertEqual(try run1(E.fn("round", [E.int(1234), E.int(-2)])), "1200")
        // Non-constant digits keep the input scale.
        let c = chunk(decs(["1.2345", "1.2355"], 6, 4), ints([2, 3]))
        let e = try E.fn("round", [E.col(0, .decimal(precision: 6, scale: 4)), E.col(1, .integer)])
        XCTAssertEqual(try evalRows(e, c), ["1.2300", "1.2360"])
    }

    func testModPowerRoots() throws {
        XCTAssertEqual(try run1(E.fn("mod", [E.int(10), E.int(3)])), "1")
        XCTAssertEqual(try run1(E.fn("mod", [E.dec("10.5", 3, 1), E.int(3)])), "1.5")
        assertError(try E.fn("mod", [E.int(10), E.int(0)]), "division by zero")
        XCTAssertEqual(try run1(E.fn("power", [E.int(2), E.int(10)])), "1024")
        XCTAssertEqual(try run1(E.fn("pow", [E.dbl(4), E.dbl(0.5)])), "2")
        assertError(try E.fn("power", [E.int(0), E.int(-1)]), "zero raised to a negative power is undefined")
        assertError(try E.fn("power", [E.int(-8), E.dbl(0.5)]),
                    "a negative number raised to a non-integer power yields a complex result")
        assertError(try E.fn("power", [E.dbl(10), E.dbl(400)]), "value out of range: overflow")
        XCTAssertEqual(try run1(E.fn("sqrt", [E.int(16)])), "4")
        assertError(try E.fn("sqrt", [E.int(-1)]), "cannot take square root of a negative number")
        XCTAssertEqual(try run1(E.fn("cbrt", [E.int(27)])), "3")
        XCTAssertEqual(try run1(E.fn("exp", [E.int(0)])), "1")
        XCTAssertEqual(try run1(E.fn("ln", [E.int(1)])), "0")
        XCTAssertEqual(try run1(E.fn("log", [E.int(1000)])), "3")
        assertError(try E.fn("ln", [E.int(0)]), "cannot take logarithm of zero")
        assertError(try E.fn("log", [E.int(-1)]), "cannot take logarithm of a negative number")
        XCTAssertEqual(try run1(E.fn("pi", [])), "3.141592653589793")
        // NULL rows skip domain checks.
        let c = chunk(doubles([nil, 4]))
        XCTAssertEqual(try evalRows(E.fn("sqrt", [E.col(0, .double)]), c), [nil, "2"])
    }

    func testRandomIsVolatileAndInRange() throws {
        let r = try E.fn("random", [])
        guard case .function(let f, _, _) = r else { return XCTFail() }
        XCTAssertTrue(f.isVolatile)
        XCTAssertFalse(r.isConstant)
        let c = chunk(ints([1, 2, 3, 4]))
        let v = try ExpressionEvaluator.evaluate(r, c)
        XCTAssertEqual(v.count, 4)
        for i in 0..<4 {
            guard case .double(let d) = v.value(at: i) else { return XCTFail() }
            XCTAssertTrue(d >= 0 && d < 1)
        }
    }
}

final class DateFunctionTests: XCTestCase {
    let ts = E.ts("2021-03-14 15:09:26.5")

    func testDatePartAndExtract() throws {
        let parts: [(String, String)] = [("year", "2021"), ("month", "3"), ("day", "14"), ("quarter", "1"),
                                         ("week", "10"), ("dow", "0"), ("doy", "73"), ("hour", "15"), ("minute", "9"),
                                         ("second", "26"), ("epoch", "1615734566")]
        for (p, expected) in parts {
            XCTAssertEqual(try run1(E.fn("extract", [E.str(p), ts])), expected, p)
        }
        XCTAssertEqual(try run1(E.fn("date_part", [E.str("second"), ts])), "26.5")
        XCTAssertEqual(try run1(E.fn("date_part", [E.str("epoch"), ts])), "1615734566.5")
        XCTAssertEqual(try run1(E.fn("date_part", [E.str("yr"), E.date("1995-06-17")])), "1995")
        XCTAssertEqual(try run1(E.fn("date_part", [E.str("month"), E.date("1995-06-17")])), "6")
        XCTAssertEqual(try run1(E.fn("extract", [E.str("day"), E.date("1995-06-17")])), "17")
        XCTAssertEqual(try run1(E.fn("extract", [E.str("dow"), E.date("1995-06-17")])), "6")
        XCTAssertEqual(E.fnType("extract", [E.str("year"), ts]), .integer)
        XCTAssertEqual(E.fnType("extract", [E.str("epoch"), ts]), .bigint)
        XCTAssertEqual(E.fnType("date_part", [E.str("year"), ts]), .double)
        // ISO week at a year boundary: 2021-01-03 is in week 53 of 2020.
        XCTAssertEqual(try run1(E.fn("extract", [E.str("week"), E.date("2021-01-03")])), "53")
        let c = chunk(dates(["1995-01-01", nil, "1996-12-31"]))
        XCTAssertEqual(try evalRows(E.fn("extract", [E.str("year"), E.col(0, .date)]), c), ["1995", nil, "1996"])
    }

    func testFastYearMatchesCivilConversion() {
        var d = DateTime.days(year: 1890, month: 1, day: 1)
        let end = DateTime.days(year: 2110, month: 1, day: 1)
        while d < end {
            XCTAssertEqual(DateFunctions.year(ofDay: d), DateTime.civil(d).year, "day \(d)")
            d += 1
        }
    }

    func testDateTrunc() throws {
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("month"), ts])), "2021-03-01 00:00:00")
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("week"), ts])), "2021-03-08 00:00:00")
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("quarter"), ts])), "2021-01-01 00:00:00")
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("hour"), ts])), "2021-03-14 15:00:00")
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("second"), ts])), "2021-03-14 15:09:26")
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("year"), E.date("1998-09-02")])), "1998-01-01 00:00:00")
        XCTAssertEqual(try run1(E.fn("date_trunc", [E.str("century"), E.date("2000-09-02")])), "1901-01-01 00:00:00")
    }

    func testDateAddDiff() throws {
        XCTAssertEqual(try run1(E.fn("dateadd", [E.str("month"), E.int(1), E.date("2008-01-31")])), "2008-02-29 00:00:00")
        XCTAssertEqual(try run1(E.fn("dateadd", [E.str("day"), E.int(-1), E.date("2008-03-01")])), "2008-02-29 00:00:00")
        XCTAssertEqual(try run1(E.fn("dateadd", [E.str("year"), E.int(1), E.date("2008-02-29")])), "2009-02-28 00:00:00")
        XCTAssertEqual(try run1(E.fn("dateadd", [E.str("hour"), E.int(25), ts])), "2021-03-15 16:09:26.5")
        assertError(try E.fn("dateadd", [E.str("year"), E.int(1_000_000_000), ts]), "timestamp out of range")
        XCTAssertEqual(try run1(E.fn("datediff", [E.str("year"), E.date("2019-12-31"), E.date("2020-01-01")])), "1")
        XCTAssertEqual(try run1(E.fn("datediff", [E.str("day"), E.date("2020-01-01"), E.date("2019-12-31")])), "-1")
        XCTAssertEqual(try run1(E.fn("datediff", [E.str("month"), E.date("2020-01-31"), E.date("2020-02-01")])), "1")
        XCTAssertEqual(try run1(E.fn("datediff", [E.str("quarter"), E.date("2020-03-31"), E.date("2020-04-01")])), "1")
        XCTAssertEqual(try run1(E.fn("datediff", [E.str("week"), E.date("2009-01-01"), E.date("2009-12-31")])), "52")
        XCTAssertEqual(try run1(E.fn("datediff", [E.str("hour"), E.ts("2020-01-01 10:59:00"), E.ts("2020-01-01 11:00:00")])), "1")
    }

    func testAddMonthsLastDayTrunc() throws {
        XCTAssertEqual(try run1(E.fn("add_months", [E.date("2008-02-29"), E.int(1)])), "2008-03-31 00:00:00")
        XCTAssertEqual(try run1(E.fn("add_months", [E.date("2008-01-15"), E.int(-2)])), "2007-11-15 00:00:00")
        XCTAssertEqual(try run1(E.fn("last_day", [E.date("2000-02-10")])), "2000-02-29")
        XCTAssertEqual(try run1(E.fn("last_day", [E.ts("2001-02-10 10:00:00")])), "2001-02-28")
        XCTAssertEqual(try run1(E.fn("trunc", [E.ts("2001-02-10 10:00:00")])), "2001-02-10")
        XCTAssertEqual(try run1(E.fn("months_between", [E.date("1969-03-18"), E.date("1969-02-18")])), "1")
        XCTAssertEqual(try run1(E.fn("months_between", [E.date("2000-02-29"), E.date("2000-01-31")])), "1")
        XCTAssertEqual(try run1(E.fn("months_between", [E.date("2000-03-01"), E.date("2000-01-16")])), "1.5161290322580645")
    }

    func testClockFunctions() throws {
        let today = try ExpressionEvaluator.evaluate(E.fn("current_date", []), Chunk(columns: [], count: 1))
        guard case .int(let d) = today.value(at: 0) else { return XCTFail() }
        XCTAssertGreaterThan(d, DateTime.days(year: 2024, month: 1, day: 1))
        let now = try ExpressionEvaluator.evaluate(E.fn("getdate", []), Chunk(columns: [], count: 1))
        guard case .int(let t) = now.value(at: 0) else { return XCTFail() }
        XCTAssertEqual(t % DateTime.microsPerSecond, 0)
        XCTAssertEqual(DateFunctions.floorDiv(t, DateTime.microsPerDay), d)
    }
}

final class ConditionalFunctionTests: XCTestCase {

    func testCoalesceNvlLazy() throws {
        let c = chunk(ints([nil, 2, nil]), ints([0, 0, 5]))
        let a = E.col(0, .integer), b = E.col(1, .integer)
        XCTAssertEqual(try evalRows(E.fn("coalesce", [a, b]), c), ["0", "2", "5"])
        XCTAssertEqual(try evalRows(E.fn("nvl", [a, E.int(-1)]), c), ["-1", "2", "-1"])
        XCTAssertEqual(try evalRows(E.fn("nvl", [a, E.null(.integer), b]), c), ["0", "2", "5"])
        XCTAssertEqual(try evalRows(E.fn("coalesce", [a, E.null(.integer)]), c), [nil, "2", nil])
        // The second argument only runs on the rows where the first is NULL: 10/b with b = 0 on row 1 is never evaluated.
        let lazy = try E.fn("coalesce", [a, E.bin(.divide, E.int(10), E.col(1, .integer))])
        let c2 = chunk(ints([nil, 2]), ints([5, 0]))
        XCTAssertEqual(try evalRows(lazy, c2), ["2", "2"])
        XCTAssertEqual(try evalRows(E.fn("coalesce", [E.col(0, .text), E.str("none")]), chunk(strs(["x", nil]))), ["x", "none"])
    }

    func testNullifNvl2() throws {
        let c = chunk(ints([1, 2, nil]))
        let x = E.col(0, .integer)
        XCTAssertEqual(try evalRows(E.fn("nullif", [x, E.int(2)]), c), ["1", nil, nil])
        XCTAssertEqual(try run1(E.fn("nullif", [E.int(3), E.int(2)])), "3")
        XCTAssertEqual(try evalRows(E.fn("nvl2", [x, E.str("has"), E.str("none")]), c), ["has", "has", "none"])
    }

    func testGreatestLeast() throws {
        let c = chunk(ints([1, nil, 7]), ints([5, nil, 3]))
        let a = E.col(0, .integer), b = E.col(1, .integer)
        XCTAssertEqual(try evalRows(E.fn("greatest", [a, b, E.int(4)]), c), ["5", "4", "7"])
        XCTAssertEqual(try evalRows(E.fn("least", [a, b]), c), ["1", nil, "3"])
        XCTAssertEqual(try run1(E.fn("greatest", [E.str("apple"), E.str("pear")])), "pear")
        XCTAssertEqual(try run1(E.fn("least", [E.dec("1.5", 2, 1), E.int(1)])), "1.0")
    }
}

extension E {
    /// The result type the registry gives a call.
    static func fnType(_ name: String, _ args: [BoundExpr]) -> DataType? { (try? fn(name, args))?.type }
}
