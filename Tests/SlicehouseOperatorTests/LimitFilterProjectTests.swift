// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution

/// Counts how often its input is pulled.
final class CountingOperator: Operator {
    private let input: Operator
    private(set) var pulls = 0
    init(_ input: Operator) { self.input = input }
    func next() throws -> Chunk? {
        pulls += 1
        return try input.next()
    }
}

final class LimitTests: XCTestCase {
    let types: [DataType] = [.bigint, .varchar(10)]

    private func rows(_ n: Int) -> [Row] { (0..<n).map { [.int(Int64($0)), .string("v\($0)")] } }

    func testLimitOffsetAcrossChunks() throws {
        for n in boundarySizes {
            let all = rows(n)
            for (limit, offset) in [(nil, 0), (0, 0), (1, 0), (10, 2045), (3000, 1), (nil, 2048), (5, 20000), (2048, 2048)] as [(Int?, Int)] {
                for (size, sel) in [(Chunk.capacity, false), (100, true), (2048, true)] {
                    let op = LimitOperator(input: source(types, all, chunkSize: size, withSelection: sel), limit: limit, offset: offset)
                    let lo = min(offset, n), hi = limit.map { min(n, lo + $0) } ?? n
                    XCTAssertEqual(try drain(op), Array(all[lo..<hi]), "n \(n) limit \(String(describing: limit)) offset \(offset)")
                }
            }
        }
    }

    func testHugeLimitDoesNotOverflow() throws {
        let all = rows(3000)
        XCTAssertEqual(try drain(LimitOperator(input: source(types, all), limit: Int.max, offset: 10)), Array(all[10...]))
        XCTAssertEqual(try drain(LimitOperator(input: source(types, all), limit: Int.max - 1, offset: Int.max)).count, 0)
    }

    func testStopsPullingAtLimit() throws {
        let counting = CountingOperator(source(types, rows(10000), chunkSize: 1000))
        let op = LimitOperator(input: counting, limit: 1500)
        XCTAssertEqual(try drain(op).count, 1500)
        XCTAssertEqual(counting.pulls, 2)
    }

    func testNoCopy() throws {
        let op = LimitOperator(input: source(types, rows(100)), limit: 10, offset: 5)
        let chunk = try XCTUnwrap(op.next())
        XCTAssertEqual(chunk.physicalCount, 100)
        XCTAssertEqual(chunk.selection, (5..<15).map { Int32($0) })
    }
}

final class FilterProjectTests: XCTestCase {
    let types: [DataType] = [.bigint, .varchar(10)]

    private func rows(_ n: Int) -> [Row] { (0..<n).map { [$0 % 10 == 0 ? .null : .int(Int64($0)), .string("v\($0)")] } }

    func testProjectColumnsWithoutEvaluator() throws {
        let all = rows(3000)
        let op = ProjectOperator(input: source(types, all, chunkSize: 700, withSelection: true),
                                 expressions: [.column(1, .varchar(10)), .column(0, .bigint), .column(0, .bigint)])
        let out = try drainChunks(op)
        XCTAssertTrue(out.allSatisfy { $0.selection == nil })
        let flat = out.flatMap { c in (0..<c.count).map { i in (0..<3).map { c.value(row: i, column: $0) } } }
        XCTAssertEqual(flat, all.map { [$0[1], $0[0], $0[0]] })
    }

    func testConstantFilters() throws {
        let all = rows(100)
        let t = FilterOperator(input: source(types, all), predicate: .constant(.bool(true), .boolean))
        XCTAssertEqual(try drain(t), all)
        let f = FilterOperator(input: source(types, all), predicate: .constant(.bool(false), .boolean))
        XCTAssertEqual(try drain(f).count, 0)
        let n = FilterOperator(input: source(types, all), predicate: .constant(.null, .boolean))
        XCTAssertEqual(try drain(n).count, 0)
    }

    func testFilterSetsSelection() throws {
        let all = rows(5000)
        let pred = BoundExpr.binary(.greater, .column(0, .bigint), .constant(.int(4000), .bigint), .boolean)
        do {
            for sel in [false, true] {
                let op = FilterOperator(input: source(types, all, chunkSize: 1000, withSelection: sel), predicate: pred)
                let chunks = try drainChunks(op)
                XCTAssertTrue(chunks.allSatisfy { $0.selection != nil })
                let flat = chunks.flatMap { c in (0..<c.count).map { i in (0..<2).map { c.value(row: i, column: $0) } } }
                XCTAssertEqual(flat, all.filter { if case .int(let x) = $0[0] { return x > 4000 }; return false })
            }
        }
    }

    func testProjectExpressions() throws {
        let all = rows(3000)
        let plusOne = BoundExpr.binary(.add, .column(0, .bigint), .constant(.int(1), .bigint), .bigint)
        do {
            let op = ProjectOperator(input: source(types, all, chunkSize: 700, withSelection: true), expressions: [plusOne])
            let flat = try drain(op)
            XCTAssertEqual(flat, all.map { r in [r[0].asInt64.map { Value.int($0 + 1) } ?? .null] })
        }
    }
}
