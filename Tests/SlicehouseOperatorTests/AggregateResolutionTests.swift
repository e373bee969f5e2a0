// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner

final class AggregateResolutionTests: XCTestCase {
    private func result(_ name: String, _ t: DataType, distinct: Bool = false) throws -> DataType {
        try AggregateFunction.resolve(name: name, argTypes: [t], distinct: distinct, star: false).result
    }

    func testCount() throws {
        let star = try AggregateFunction.resolve(name: "COUNT", argTypes: [], distinct: false, star: true)
        XCTAssertEqual(star.0, .countStar)
        XCTAssertNil(star.argTarget)
        XCTAssertEqual(star.result, .bigint)
        for t: DataType in [.integer, .varchar(10), .boolean, .date, .decimal(precision: 30, scale: 4), .double] {
            let r = try AggregateFunction.resolve(name: "count", argTypes: [t], distinct: true, star: false)
            XCTAssertEqual(r.0, .count)
            XCTAssertEqual(r.argTarget, t)
            XCTAssertEqual(r.result, .bigint)
        }
    }

    func testSum() throws {
        XCTAssertEqual(try result("sum", .smallint), .bigint)
        XCTAssertEqual(try result("sum", .integer), .bigint)
        XCTAssertEqual(try result("sum", .bigint), .bigint)
        XCTAssertEqual(try result("sum", .decimal(precision: 12, scale: 2)), .decimal(precision: 38, scale: 2))
        XCTAssertEqual(try result("sum", .decimal(precision: 30, scale: 0)), .decimal(precision: 38, scale: 0))
        XCTAssertEqual(try result("sum", .real), .double)
        XCTAssertEqual(try result("sum", .double), .double)
    }

    func testAvg() throws {
        XCTAssertEqual(try result("avg", .smallint), .bigint)
        XCTAssertEqual(try result("avg", .integer), .bigint)
        XCTAssertEqual(try result("AVG", .bigint), .bigint)
        XCTAssertEqual(try result("avg", .decimal(precision: 5, scale: 3)), .decimal(precision: 38, scale: 3))
        XCTAssertEqual(try result("avg", .real), .double)
        XCTAssertEqual(try result("avg", .double), .double)
    }

    func testMinMaxKeepArgumentType() throws {
        for t: DataType in [.smallint, .integer, .bigint, .decimal(precision: 7, scale: 2), .decimal(precision: 25, scale: 5),
                            .real, .double, .boolean, .char(3), .varchar(20), .date, .timestamp] {
            XCTAssertEqual(try result("min", t), t)
            XCTAssertEqual(try result("max", t, distinct: true), t)
        }
        let unknown = try AggregateFunction.resolve(name: "max", argTypes: [.unknown], distinct: false, star: false)
        XCTAssertEqual(unknown.argTarget, .text)
        XCTAssertEqual(unknown.result, .text)
    }

    func testErrors() {
        func code(_ body: () throws -> Any) -> SQLError? {
            do { _ = try body(); return nil } catch let e as SQLError { return e } catch { return nil }
        }
        let e1 = code { try AggregateFunction.resolve(name: "foo", argTypes: [.integer], distinct: false, star: false) }
        XCTAssertEqual(e1?.code, .undefinedFunction)
        XCTAssertEqual(e1?.message, "function foo(integer) does not exist")
        let e2 = code { try AggregateFunction.resolve(name: "sum", argTypes: [.varchar(5)], distinct: false, star: false) }
        XCTAssertEqual(e2?.message, "function sum(character varying) does not exist")
        let e3 = code { try AggregateFunction.resolve(name: "avg", argTypes: [.boolean], distinct: false, star: false) }
        XCTAssertEqual(e3?.message, "function avg(boolean) does not exist")
        let e4 = code { try AggregateFunction.resolve(name: "sum", argTypes: [], distinct: false, star: true) }
        XCTAssertEqual(e4?.message, "function sum() does not exist")
        let e5 = code { try AggregateFunction.resolve(name: "count", argTypes: [.integer, .integer], distinct: false, star: false) }
        XCTAssertEqual(e5?.message, "function count(integer, integer) does not exist")
        let e6 = code { try AggregateFunction.resolve(name: "sum", argTypes: [.date], distinct: false, star: false) }
        XCTAssertEqual(e6?.code, .undefinedFunction)
        XCTAssertNotNil(code { try AggregateFunction.resolve(name: "count", argTypes: [], distinct: true, star: true) })
        XCTAssertNotNil(code { try AggregateFunction.resolve(name: "sum", argTypes: [.unknown], distinct: false, star: false) })
    }

    func testIsAggregateName() {
        for n in ["count", "SUM", "Avg", "min", "max"] { XCTAssertTrue(AggregateFunction.isAggregateName(n)) }
        for n in ["upper", "coalesce", "countx", ""] { XCTAssertFalse(AggregateFunction.isAggregateName(n)) }
    }
}
