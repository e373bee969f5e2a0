// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog
@testable import SlicehousePlanner

/// The ranges `Optimizer.resultRange` gives an aggregate's results, from which a HAVING
/// condition's selectivity is taken: scaled to the result's DECIMAL scale, a sum's spread
/// growing with √(rows per group), an average's shrinking, counts around the group size.
final class AggregateStatisticsTests: XCTestCase {
    let quantity = DataType.decimal(precision: 15, scale: 2)

    func aggregate(_ f: AggregateFunction, _ result: DataType, argument: DataType? = nil) -> LogicalAggregate {
        LogicalAggregate(function: f, argument: argument.map { .column(0, $0) }, distinct: false,
                         output: PlanColumn(id: 1, type: result, name: "r"))
    }

    /// l_quantity: 1.00 to 50.00, stored as 100 to 5000.
    var stats: [Int: ColumnStatistics] { [0: ColumnStatistics(distinct: 50, nullFraction: 0, min: 100, max: 5_000)] }

    func testSumSpreadsWithTheSquareRootOfTheGroupSize() throws {
        // Four rows a group: mean 4 × 25.5 = 102, σ = 49 / √12 ≈ 14.1, ± 3σ√4 ≈ 84.9.
        let r = try XCTUnwrap(Optimizer.resultRange(aggregate(.sum, .decimal(precision: 38, scale: 2), argument: quantity), perGroup: 4, stats))
        XCTAssertEqual(r.lowerBound, (102 - 3 * 49 / 12.0.squareRoot() * 2) * 100, accuracy: 1e-6)
        XCTAssertEqual(r.upperBound, (102 + 3 * 49 / 12.0.squareRoot() * 2) * 100, accuracy: 1e-6)
        // TPC-H Q18's `sum(l_quantity) > 300` lies above it: the condition keeps almost nothing.
        XCTAssertLessThan(r.upperBound, 300 * 100)
        let s = Selectivity.of([.binary(.greater, .column(1, .decimal(precision: 38, scale: 2)), .constant(.int(30_000), .decimal(precision: 38, scale: 2)), .boolean)],
                               [1: ColumnStatistics(distinct: 1_000, nullFraction: 0, min: r.lowerBound, max: r.upperBound)])
        XCTAssertLessThan(s, 0.001)
    }

    func testSumOfOneRowAGroupIsTheColumnsRange() throws {
        let r = try XCTUnwrap(Optimizer.resultRange(aggregate(.sum, .decimal(precision: 38, scale: 2), argument: quantity), perGroup: 1, stats))
        XCTAssertEqual(r.lowerBound, 100, accuracy: 1e-6)
        XCTAssertGreaterThan(r.upperBound, 5_000)
    }

    func testAverageNarrowsAndStaysWithinTheColumn() throws {
        // avg of DECIMAL(15,2) as DECIMAL(38,6): stored with six decimals.
        let r = try XCTUnwrap(Optimizer.resultRange(aggregate(.avg, .decimal(precision: 38, scale: 6), argument: quantity), perGroup: 100, stats))
        let spread = 3 * 49 / 12.0.squareRoot() / 10
        XCTAssertEqual(r.lowerBound, (25.5 - spread) * 1e6, accuracy: 1e-3)
        XCTAssertEqual(r.upperBound, (25.5 + spread) * 1e6, accuracy: 1e-3)
        let one = try XCTUnwrap(Optimizer.resultRange(aggregate(.avg, .decimal(precision: 38, scale: 6), argument: quantity), perGroup: 1, stats))
        XCTAssertEqual(one.lowerBound, 1e6, accuracy: 1e-3)
        XCTAssertEqual(one.upperBound, 50e6, accuracy: 1e-3)
    }

    func testCountsLieAroundTheGroupSize() throws {
        let star = try XCTUnwrap(Optimizer.resultRange(aggregate(.countStar, .bigint), perGroup: 16, [:]))
        XCTAssertEqual(star.lowerBound, 4)
        XCTAssertEqual(star.upperBound, 28)
        // A group has at least one row; count(x) may be 0 (every x NULL).
        let small = try XCTUnwrap(Optimizer.resultRange(aggregate(.countStar, .bigint), perGroup: 1, [:]))
        XCTAssertEqual(small.lowerBound, 1)
        let nullable = try XCTUnwrap(Optimizer.resultRange(aggregate(.count, .bigint, argument: .integer), perGroup: 1, [:]))
        XCTAssertEqual(nullable.lowerBound, 0)
    }

    func testMinimumAndMaximumKeepTheColumnsRange() throws {
        for f in [AggregateFunction.min, .max] {
            let r = try XCTUnwrap(Optimizer.resultRange(aggregate(f, quantity, argument: quantity), perGroup: 10, stats))
            XCTAssertEqual(r, 100...5_000)
        }
    }

    func testUnknownArgumentsGiveNoRange() {
        // No statistics for the argument, an expression argument, a result that is not a number.
        XCTAssertNil(Optimizer.resultRange(aggregate(.sum, .decimal(precision: 38, scale: 2), argument: quantity), perGroup: 4, [:]))
        let expression = LogicalAggregate(function: .sum,
                                          argument: .binary(.add, .column(0, quantity), .column(0, quantity), quantity),
                                          distinct: false, output: PlanColumn(id: 1, type: .decimal(precision: 38, scale: 2), name: "r"))
        XCTAssertNil(Optimizer.resultRange(expression, perGroup: 4, stats))
        XCTAssertNil(Optimizer.resultRange(aggregate(.max, .varchar(10), argument: .varchar(10)), perGroup: 4, stats))
        // A constant argument: no range (a point would keep all or nothing).
        let constant: [Int: ColumnStatistics] = [0: ColumnStatistics(distinct: 1, nullFraction: 0, min: 100, max: 100)]
        for f in [AggregateFunction.sum, .avg, .min, .max] {
            XCTAssertNil(Optimizer.resultRange(aggregate(f, .decimal(precision: 38, scale: 2), argument: quantity),
                                               perGroup: 4, constant), "\(f)")
        }
    }
}
