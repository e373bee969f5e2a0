// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseSQL

final class TPCHTests: XCTestCase {
    /// All 22 TPC-H queries parse to a single query statement.
    func testAllTPCHQueriesParse() throws {
        XCTAssertEqual(TPCHQueries.all.count, 22)
        for (name, sql) in TPCHQueries.all {
            do {
                let statements = try parseStatements(sql)
                XCTAssertEqual(statements.count, 1, name)
                guard case .query = statements.first else { return XCTFail("\(name) is not a query") }
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
    }

    /// Printing a parsed TPC-H query and parsing the text again gives the same tree.
    func testTPCHQueriesRoundTripThroughPrinter() throws {
        for (name, sql) in TPCHQueries.all {
            guard case .query(let q) = try parseStatement(sql) else { return XCTFail(name) }
            let printed = q.description
            do {
                let reparsed = try parseStatement(printed)
                XCTAssertEqual(reparsed, .query(q), "\(name): \(printed)")
            } catch {
                XCTFail("\(name) printed as unparsable SQL: \(error)\n\(printed)")
            }
        }
    }

    func testQ1Shape() throws {
        let s = try select(TPCHQueries.all[0].sql)
        XCTAssertEqual(s.items.count, 10)
        XCTAssertEqual(s.items[9], item(Expr(.function(FunctionCall(name: "count", star: true))), "count_order"))
        XCTAssertEqual(s.from, [table("lineitem")])
        XCTAssertEqual(s.whereClause, bin(.lessOrEqual, col("l_shipdate"),
                                          Expr(.cast(str("1998-09-02"), .date, .cast))))
        XCTAssertEqual(s.groupBy, [.expr(col("l_returnflag")), .expr(col("l_linestatus"))])
        let q = try query(TPCHQueries.all[0].sql)
        XCTAssertEqual(q.orderBy, [OrderItem(expr: col("l_returnflag")), OrderItem(expr: col("l_linestatus"))])
    }
}
