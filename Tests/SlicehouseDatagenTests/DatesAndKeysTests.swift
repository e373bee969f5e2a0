// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseDatagen
import XCTest

/// The calendar, order keys, prices and supplier keys: dbgen's formulas.
final class DatesAndKeysTests: XCTestCase {
    func testCalendar() {
        XCTAssertEqual(TPCHDates.string(92001), "1992-01-01")
        XCTAssertEqual(TPCHDates.string(92001 + 59), "1992-02-29")
        XCTAssertEqual(TPCHDates.string(92001 + 2556), "1998-12-31")
        XCTAssertEqual(TPCHDates.string(TPCHDates.currentDay), "1995-06-17")
        XCTAssertTrue(TPCHDates.isInPast(TPCHDates.currentDay))
        XCTAssertFalse(TPCHDates.isInPast(TPCHDates.currentDay + 1))
        // Order dates leave room for the longest ship and receipt delays.
        let orderDate = SharedOrderStreams.orderDate()
        XCTAssertEqual(TPCHDates.string(orderDate.upperBound + 121 + 30), "1998-12-31")
    }

    func testSparseOrderKeys() {
        XCTAssertEqual((1...10).map { SharedOrderStreams.orderKey(index: $0) }, [1, 2, 3, 4, 5, 6, 7, 32, 33, 34])
        XCTAssertEqual(SharedOrderStreams.orderKey(index: 15_000), 60_000)
        XCTAssertEqual(SharedOrderStreams.orderKey(index: 1_500_000), 6_000_000)
    }

    func testRetailPrice() {
        XCTAssertEqual(ScaleContext.retailPriceCents(part: 1), 90_100)
        XCTAssertEqual(ScaleContext.retailPriceCents(part: 10), 91_001)
        XCTAssertEqual(ScaleContext.retailPriceCents(part: 1000), 90_100)
        XCTAssertEqual(ScaleContext.retailPriceCents(part: 200_000), 110_000)
    }

    func testPartSuppliersAreSpreadOut() {
        let context = ScaleContext(scaleFactor: 0.01, textPool: TextPool(size: 1024, workers: 1))
        XCTAssertEqual((0..<4).map { context.supplierKey(part: 1, supplierNumber: $0) }, [2, 27, 52, 77])
        XCTAssertEqual((0..<4).map { context.supplierKey(part: 2000, supplierNumber: $0) }.count, 4)
        XCTAssertEqual(Set((0..<4).map { context.supplierKey(part: 1999, supplierNumber: $0) }).count, 4)
    }

    func testScaleFactorValidation() {
        for bad in [0, -1, 0.00001, .nan, .infinity, 100_001] {
            XCTAssertThrowsError(try TPCHGenerator(scaleFactor: bad).validate(), "\(bad)") { error in
                XCTAssertTrue("\(error)".contains("invalid scale factor"))
            }
        }
        for good in [0.0001, 0.01, 1, 100, 100_000] {
            XCTAssertNoThrow(try TPCHGenerator(scaleFactor: good).validate(), "\(good)")
        }
        XCTAssertEqual(try TPCHGenerator(scaleFactor: 0.0001).unitCount(of: .supplier), 1)
    }

    func testTableNames() {
        XCTAssertEqual(TPCHTable(name: "lineitem"), .lineitem)
        XCTAssertEqual(TPCHTable(name: " Orders "), .orders)
        XCTAssertEqual(TPCHTable(name: "S"), .partsupp)
        XCTAssertEqual(TPCHTable(name: "s"), .supplier)
        XCTAssertEqual(TPCHTable(name: "P"), .part)
        XCTAssertNil(TPCHTable(name: "items"))
    }
}
