// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseRuntime
@testable import SlicehouseWorkload

/// Within short query acceleration the shortest go first: a query whose shape has run in
/// a few milliseconds gets the scheduler's instant priority, however long contention has
/// made its recent runs; heavier queries SQA lets through stay urgent (issue 80: lookups
/// waited behind 200 ms TPC-H queries that SQA had also admitted).
final class ShortQueryPriorityTests: XCTestCase {
    func testTheShortestRunDecidesNotTheAverage() {
        let predictor = ShortQueryPredictor()
        predictor.record(shape: "lookup", milliseconds: 3)
        for _ in 0..<20 { predictor.record(shape: "lookup", milliseconds: 80) }   // under load
        let p = predictor.predict(shape: "lookup", estimatedCost: 1_500_000, shortLimitMilliseconds: 5_000)
        XCTAssertTrue(p.isShort)
        XCTAssertEqual(p.minimumMilliseconds, 3)
        XCTAssertGreaterThan(p.averageMilliseconds ?? 0, 50)
        XCTAssertEqual(WorkloadManager.shortQueryPriority(p), Scheduler.instantPriority)
    }

    func testHeavierShortQueriesStayUrgent() {
        let predictor = ShortQueryPredictor()
        predictor.record(shape: "q1", milliseconds: 45)
        let p = predictor.predict(shape: "q1", estimatedCost: 6_000_000, shortLimitMilliseconds: 5_000)
        XCTAssertTrue(p.isShort)
        XCTAssertEqual(WorkloadManager.shortQueryPriority(p), Scheduler.urgentPriority)
    }

    func testWithoutHistoryThePlanDecides() {
        let predictor = ShortQueryPredictor()
        let small = predictor.predict(shape: "new", estimatedCost: 200, shortLimitMilliseconds: 5_000)
        XCTAssertEqual(WorkloadManager.shortQueryPriority(small), Scheduler.instantPriority)
        let large = predictor.predict(shape: "new", estimatedCost: 500_000, shortLimitMilliseconds: 5_000)
        XCTAssertEqual(WorkloadManager.shortQueryPriority(large), Scheduler.urgentPriority)
        XCTAssertEqual(WorkloadManager.shortQueryPriority(nil), Scheduler.urgentPriority)
    }
}
