// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseRuntime
@testable import SlicehouseExecution

/// SortOperator under a memory budget far below its input: it must write runs and merge
/// them into exactly the order (stable) the unlimited sort gives.
final class SortSpillTests: XCTestCase {
    private let budget = 64 << 10

    private func unlimited(_ rows: [Row], _ keys: [SortKey], types: [DataType], limit: Int? = nil, offset: Int = 0) throws -> [Row] {
        try drain(SortOperator(input: source(types, rows, chunkSize: 1000), keys: keys, limit: limit, offset: offset, context: QueryContext()))
    }

    /// The spilling sort's rows, with its context and operator for the counters.
    private func spilling(_ rows: [Row], _ keys: [SortKey], types: [DataType], limit: Int? = nil, offset: Int = 0,
                          fanIn: Int? = nil, selection: Bool = false,
                          spill: TemporarySpill) throws -> (rows: [Row], context: QueryContext, op: SortOperator) {
        let context = spill.context(budget: budget)
        let op = SortOperator(input: source(types, rows, chunkSize: 1000, withSelection: selection), keys: keys,
                              limit: limit, offset: offset, context: context)
        if let fanIn { op.mergeFanIn = fanIn }
        let out = try drain(op)
        XCTAssertEqual(context.memory.usedBytes, 0, "reservation returned at the end")
        return (out, context, op)
    }

    func testSpillingSortMatchesUnlimitedForEveryKeyKind() throws {
        let rows = mixedRows(30_000, seed: 3, groups: 5000)
        let keySets: [[SortKey]] = [
            [SortKey(column: 0)],                                                     // integer, NULLs last
            [SortKey(column: 1, ascending: false, nullsFirst: true), SortKey(column: 2)], // string DESC NULLS FIRST
            [SortKey(column: 5), SortKey(column: 4, ascending: false)],               // strings, doubles DESC
            [SortKey(column: 8, ascending: false, nullsFirst: false)],                // DECIMAL(30,3) (Int128) DESC NULLS LAST
            [SortKey(column: 6, nullsFirst: true), SortKey(column: 7), SortKey(column: 3, ascending: false)], // bool, date, decimal
            [SortKey(column: 9), SortKey(column: 1)],                                 // many equal keys: stability across runs
        ]
        for keys in keySets {
            let spill = TemporarySpill()
            let expected = try unlimited(rows, keys, types: mixedTypes)
            let (out, context, op) = try spilling(rows, keys, types: mixedTypes, selection: true, spill: spill)
            XCTAssertEqual(out, expected, "keys \(keys)")
            XCTAssertEqual(out, referenceSort(rows, keys), "keys \(keys)")
            XCTAssertGreaterThan(context.memory.spilledBytes, 0)
            XCTAssertGreaterThan(context.memory.spillFileCount, 2, "several runs")
            XCTAssertEqual(op.spilledBytes, context.memory.spilledBytes)
            XCTAssertGreaterThan(op.memoryPeak, 0)
        }
    }

    func testStringKeysThatNormalizeTrickily() throws {
        // Prefixes, embedded zero bytes, bytes above 0x7F, empty strings and NULLs.
        var rng = SeededRandom(seed: 5)
        let pieces = ["", "a", "a\u{0}", "a\u{0}\u{0}", "a\u{1}", "ab", "\u{0}", "ü", "zz", "a\u{0}b", "ÿ"]
        let types: [DataType] = [.varchar(64), .bigint]
        let rows: [Row] = (0..<20_000).map { i in
            let s = rng.chance(0.05) ? Value.null : .string((0..<rng.int(0...3)).map { _ in pieces[rng.int(0...pieces.count - 1)] }.joined())
            return [s, .int(Int64(i))]
        }
        for keys in [[SortKey(column: 0)], [SortKey(column: 0, ascending: false)], [SortKey(column: 0, nullsFirst: true)]] {
            let spill = TemporarySpill()
            let (out, context, _) = try spilling(rows, keys, types: types, spill: spill)
            XCTAssertEqual(out, try unlimited(rows, keys, types: types), "keys \(keys)")
            XCTAssertGreaterThan(context.memory.spilledBytes, 0)
        }
    }

    func testDoublesNaNAndSignedZeroAcrossRuns() throws {
        var rng = SeededRandom(seed: 8)
        let specials: [Double] = [.nan, -0.0, 0.0, .infinity, -.infinity, 1e-300, -1e300]
        let types: [DataType] = [.double, .bigint]
        let rows: [Row] = (0..<20_000).map { i in
            let d: Value = rng.chance(0.05) ? .null
                : .double(rng.chance(0.1) ? specials[rng.int(0...specials.count - 1)] : Double(rng.int(-5000...5000)) / 3)
            return [d, .int(Int64(i))]
        }
        for keys in [[SortKey(column: 0)], [SortKey(column: 0, ascending: false, nullsFirst: false)]] {
            let spill = TemporarySpill()
            let (out, context, _) = try spilling(rows, keys, types: types, spill: spill)
            let expected = try unlimited(rows, keys, types: types)
            XCTAssertEqual(canonical(out.map { [$0[1]] }), canonical(expected.map { [$0[1]] }))
            // Row ids in the same order (NaN != NaN, so compare the ids).
            XCTAssertEqual(out.map { $0[1] }, expected.map { $0[1] }, "keys \(keys)")
            XCTAssertGreaterThan(context.memory.spilledBytes, 0)
        }
    }

    func testLimitAndOffsetAcrossRuns() throws {
        let rows = mixedRows(30_000, seed: 12, groups: 3000)
        let keys = [SortKey(column: 0, ascending: false), SortKey(column: 1)]
        for (limit, offset): (Int?, Int) in [(5000, 3000), (2500, 0), (nil, 20_000), (100_000, 10), (3000, 29_000), (nil, 40_000)] {
            let spill = TemporarySpill()
            let (out, context, _) = try spilling(rows, keys, types: mixedTypes, limit: limit, offset: offset, spill: spill)
            XCTAssertEqual(out, try unlimited(rows, keys, types: mixedTypes, limit: limit, offset: offset),
                           "limit \(String(describing: limit)) offset \(offset)")
            XCTAssertGreaterThan(context.memory.spilledBytes, 0, "limit \(String(describing: limit)) offset \(offset)")
        }
    }

    func testSmallTopNDoesNotSpill() throws {
        let rows = mixedRows(50_000, seed: 13, groups: 10_000)
        let keys = [SortKey(column: 3), SortKey(column: 0, ascending: false)]
        for (limit, offset) in [(10, 0), (10, 5), (100, 200), (0, 0)] {
            let spill = TemporarySpill()
            let (out, context, op) = try spilling(rows, keys, types: mixedTypes, limit: limit, offset: offset, spill: spill)
            XCTAssertEqual(out, try unlimited(rows, keys, types: mixedTypes, limit: limit, offset: offset))
            XCTAssertEqual(context.memory.spilledBytes, 0, "limit \(limit)")
            XCTAssertEqual(op.spilledBytes, 0)
        }
    }

    func testMergeInPassesWhenRunsExceedTheFanIn() throws {
        let rows = mixedRows(40_000, seed: 21, groups: 40_000)
        let keys = [SortKey(column: 5, ascending: false), SortKey(column: 0)]
        let expected = try unlimited(rows, keys, types: mixedTypes)
        for fanIn in [2, 3, 5] {
            let spill = TemporarySpill()
            let (out, context, _) = try spilling(rows, keys, types: mixedTypes, fanIn: fanIn, spill: spill)
            XCTAssertEqual(out, expected, "fan-in \(fanIn)")
            XCTAssertGreaterThan(context.memory.spillFileCount, 8, "runs and merged runs")
            let limited = try spilling(rows, keys, types: mixedTypes, limit: 4000, offset: 1500, fanIn: fanIn, spill: spill)
            XCTAssertEqual(limited.rows, Array(expected[1500..<5500]))
        }
    }

    func testOutputChunksAreFullAndBounded() throws {
        let rows = mixedRows(12_345, seed: 2, groups: 10_000)
        let spill = TemporarySpill()
        let context = spill.context(budget: budget)
        let op = SortOperator(input: source(mixedTypes, rows, chunkSize: 700), keys: [SortKey(column: 0)], context: context)
        let chunks = try drainChunks(op)
        XCTAssertGreaterThan(context.memory.spilledBytes, 0)
        XCTAssertEqual(chunks.reduce(0) { $0 + $1.count }, rows.count)
        XCTAssertTrue(chunks.dropLast().allSatisfy { $0.count == Chunk.capacity })
        XCTAssertTrue(chunks.allSatisfy { c in c.columns.allSatisfy { $0.count == c.count } })
    }

    func testNoBudgetDoesNotSpill() throws {
        let rows = mixedRows(20_000, seed: 4, groups: 5000)
        let spill = TemporarySpill()
        let context = spill.context(budget: nil)
        let op = SortOperator(input: source(mixedTypes, rows), keys: [SortKey(column: 1)], context: context)
        XCTAssertEqual(try drain(op), try unlimited(rows, [SortKey(column: 1)], types: mixedTypes))
        XCTAssertEqual(context.memory.spilledBytes, 0)
        XCTAssertGreaterThan(op.memoryPeak, 20_000 * 8)
        XCTAssertEqual(context.memory.usedBytes, 0)
    }

    func testCancellationStopsTheSort() throws {
        let rows = mixedRows(10_000, seed: 4)
        let spill = TemporarySpill()
        let cancellation = Cancellation()
        let context = QueryContext(cancellation: cancellation, memory: QueryMemory(budget: budget, pool: MemoryPool(limit: nil)),
                                   spill: spill.space)
        cancellation.cancel()
        let op = SortOperator(input: source(mixedTypes, rows), keys: [SortKey(column: 0)], context: context)
        XCTAssertThrowsError(try op.next()) { error in
            XCTAssertEqual((error as? SQLError)?.message, Cancellation.userRequest.message)
        }
    }
}
