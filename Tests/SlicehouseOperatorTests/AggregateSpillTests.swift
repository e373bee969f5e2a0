// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
import SlicehouseRuntime
@testable import SlicehouseExecution

/// HashAggregateOperator under a memory budget far below its group table: `.single` and
/// `.final` spill by partitions, `.partial` emits early; the answers must be those of the
/// unlimited operator.
final class AggregateSpillTests: XCTestCase {
    private let budget = 64 << 10

    /// Every aggregate with a partial state, over `mixedTypes`: COUNT(*), COUNT/SUM/AVG/MIN/MAX
    /// of integers, DECIMAL (64 and 128 bits) and DOUBLE, MIN/MAX of strings, booleans and
    /// dates, APPROXIMATE COUNT(DISTINCT) (HLL_CREATE_SKETCH and HLL_COMBINE: `testHLLSketchesSpill`).
    private let aggregates: [BoundAggregate] = mixedAggregates + [
        BoundAggregate(function: .approximateCountDistinct, argument: 2, argumentType: .bigint, distinct: false, resultType: .bigint),
        BoundAggregate(function: .approximateCountDistinct, argument: 5, argumentType: .varchar(40), distinct: false, resultType: .bigint),
        agg(.min, 9, mixedTypes), agg(.max, 7, mixedTypes),
    ]

    private func operatorFor(_ input: Operator, groups: [Int], types: [DataType], aggs: [BoundAggregate],
                             mode: AggregateMode, context: QueryContext) -> HashAggregateOperator {
        HashAggregateOperator(input: input, groupColumns: mode == .final ? Array(0..<groups.count) : groups,
                              groupTypes: groups.map { types[$0] }, aggregates: aggs, mode: mode, context: context)
    }

    /// Single-phase result without a budget, and with one (asserting it spilled).
    private func checkSingle(_ rows: [Row], groups: [Int], aggs: [BoundAggregate], types: [DataType] = mixedTypes,
                             expectSpill: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws -> QueryContext {
        let expected = try drain(operatorFor(source(types, rows, chunkSize: 1000), groups: groups, types: types, aggs: aggs,
                                             mode: .single, context: QueryContext()))
        let spill = TemporarySpill()
        let context = spill.context(budget: budget)
        let op = operatorFor(source(types, rows, chunkSize: 1000, withSelection: true), groups: groups, types: types,
                             aggs: aggs, mode: .single, context: context)
        let out = try drain(op)
        assertSameRows(out, expected, "groups \(groups)", file: file, line: line)
        if expectSpill {
            XCTAssertGreaterThan(context.memory.spilledBytes, 0, "groups \(groups)", file: file, line: line)
            XCTAssertEqual(op.spilledBytes, context.memory.spilledBytes, file: file, line: line)
        }
        XCTAssertGreaterThan(op.memoryPeak, 0, file: file, line: line)
        XCTAssertEqual(context.memory.usedBytes, 0, "reservation returned at the end", file: file, line: line)
        return context
    }

    func testSingleSpillsByPartitionsForEveryKeyKind() throws {
        let rows = mixedRows(12_000, seed: 31, groups: 5000)
        // Integer key (NULLs included), string key, two keys (generic table), key + bool + smallint.
        for groups in [[0], [5], [0, 1], [1, 6, 9, 0]] {
            _ = try checkSingle(rows, groups: groups, aggs: aggregates)
        }
    }

    func testDoubleSumsAreBitIdenticalWhenSpilled() throws {
        // Sums of arbitrary doubles depend on the order of addition: a spilled group must
        // see its values in their original order.
        var rng = SeededRandom(seed: 77)
        let types: [DataType] = [.bigint, .double]
        let rows: [Row] = (0..<40_000).map { _ in
            [.int(Int64(rng.int(0...12_000))), rng.chance(0.1) ? .null : .double(Double(rng.next() % 1_000_000) / 7.3 - 60_000)]
        }
        let aggs = [agg(.sum, 1, types), agg(.avg, 1, types), agg(.countStar, nil, types)]
        let context = try checkSingle(rows, groups: [0], aggs: aggs, types: types)
        XCTAssertGreaterThan(context.memory.spillFileCount, 0)
    }

    func testPartitionsTooBigArePartitionedAgain() throws {
        // 60,000 distinct keys at 64 kB: each of the 16 first-level partitions still holds
        // thousands of groups.
        let types: [DataType] = [.bigint, .varchar(20), .bigint]
        var rng = SeededRandom(seed: 5)
        let rows: [Row] = (0..<60_000).map { i in
            [.int(Int64(i)), .string("k\(i % 977)"), .int(Int64(rng.int(-100...100)))]
        }
        let aggs = [agg(.sum, 2, types), agg(.max, 1, types), agg(.countStar, nil, types)]
        let context = try checkSingle(rows, groups: [0], aggs: aggs, types: types)
        XCTAssertGreaterThan(context.memory.spillFileCount, SpillPartitioner.fanOut, "a second level of partitions")
        _ = try checkSingle(rows, groups: [1, 0], aggs: aggs, types: types)
    }

    func testPartialEmitsEarlyAndFinalMergesIt() throws {
        let rows = mixedRows(12_000, seed: 41, groups: 5000)
        for groups in [[0], [1, 0]] {
            let expected = try drain(operatorFor(source(mixedTypes, rows, chunkSize: 1000), groups: groups, types: mixedTypes,
                                                 aggs: aggregates, mode: .single, context: QueryContext()))
            // Four "slices", each with its own partial aggregate under the budget.
            let spill = TemporarySpill()
            let context = spill.context(budget: budget)
            var partials: [Chunk] = []
            var partialRows = 0, unlimitedPartialRows = 0
            for s in 0..<4 {
                let slice = rows.enumerated().filter { $0.offset % 4 == s }.map { $0.element }
                let p = operatorFor(source(mixedTypes, slice, chunkSize: 1000), groups: groups, types: mixedTypes,
                                    aggs: aggregates, mode: .partial, context: context)
                let out = try drainChunks(p)
                partialRows += out.reduce(0) { $0 + $1.count }
                partials += out
                XCTAssertEqual(p.spilledBytes, 0, "partial never spills")
                XCTAssertGreaterThan(p.memoryPeak, 0)
                unlimitedPartialRows += try drain(operatorFor(source(mixedTypes, slice, chunkSize: 1000), groups: groups,
                                                              types: mixedTypes, aggs: aggregates, mode: .partial,
                                                              context: QueryContext())).count
            }
            XCTAssertEqual(context.memory.spilledBytes, 0)
            XCTAssertEqual(context.memory.usedBytes, 0)
            // Emitting early repeats groups (those that recur across chunks: with one key,
            // most of them) — more partial rows than one per group and slice.
            XCTAssertGreaterThanOrEqual(partialRows, unlimitedPartialRows, "groups \(groups)")
            if groups == [0] { XCTAssertGreaterThan(partialRows, unlimitedPartialRows + 500) }
            // Final without a budget, and final with one (it spills).
            let final = try drain(operatorFor(ChunkSource(partials), groups: groups, types: mixedTypes, aggs: aggregates,
                                              mode: .final, context: QueryContext()))
            assertSameRows(final, expected, "final, groups \(groups)")
            let finalContext = spill.context(budget: budget)
            let spilledFinal = operatorFor(ChunkSource(partials), groups: groups, types: mixedTypes, aggs: aggregates,
                                           mode: .final, context: finalContext)
            assertSameRows(try drain(spilledFinal), expected, "spilled final, groups \(groups)")
            XCTAssertGreaterThan(finalContext.memory.spilledBytes, 0)
            XCTAssertEqual(spilledFinal.spilledBytes, finalContext.memory.spilledBytes)
        }
    }

    func testFinalSpillsOverUnlimitedPartials() throws {
        let rows = mixedRows(12_000, seed: 43, groups: 5000)
        let groups = [0, 5]
        var partials: [Chunk] = []
        for s in 0..<4 {
            let slice = rows.enumerated().filter { $0.offset % 4 == s }.map { $0.element }
            partials += try drainChunks(operatorFor(source(mixedTypes, slice, chunkSize: 900), groups: groups, types: mixedTypes,
                                                    aggs: aggregates, mode: .partial, context: QueryContext()))
        }
        let expected = try drain(operatorFor(ChunkSource(partials), groups: groups, types: mixedTypes, aggs: aggregates,
                                             mode: .final, context: QueryContext()))
        let spill = TemporarySpill()
        let context = spill.context(budget: budget)
        let op = operatorFor(ChunkSource(partials), groups: groups, types: mixedTypes, aggs: aggregates, mode: .final,
                             context: context)
        assertSameRows(try drain(op), expected)
        XCTAssertGreaterThan(context.memory.spilledBytes, 0)
    }

    func testHLLSketchesSpill() throws {
        // Sketches made per (a, b) under the budget, then combined per a under the budget.
        // (A sketch is 16 kB of registers: a few hundred groups are plenty.)
        var rng = SeededRandom(seed: 9)
        let types: [DataType] = [.bigint, .bigint, .bigint]
        let rows: [Row] = (0..<6000).map { _ in
            [.int(Int64(rng.int(0...400))), .int(Int64(rng.int(0...1))), .int(Int64(rng.int(0...2000)))]
        }
        let create = [BoundAggregate(function: .hllCreateSketch, argument: 2, argumentType: .bigint, distinct: false,
                                     resultType: .hllsketch), agg(.countStar, nil, types)]
        _ = try checkSingle(rows, groups: [0, 1], aggs: create, types: types)
        let sketches = try drainChunks(HashAggregateOperator(input: source(types, rows), groupColumns: [0, 1],
                                                            groupTypes: [.bigint, .bigint], aggregates: create, mode: .single, context: QueryContext()))
        let sketchRows = sketches.flatMap { c in (0..<c.count).map { i in (0..<3).map { c.value(row: i, column: $0) } } }
        let combine = [BoundAggregate(function: .hllCombine, argument: 2, argumentType: .hllsketch, distinct: false,
                                      resultType: .hllsketch)]
        _ = try checkSingle(sketchRows, groups: [0], aggs: combine, types: [.bigint, .bigint, .hllsketch])
    }

    /// DISTINCT aggregates, LISTAGG (rows in arrival order) and LISTAGG WITHIN GROUP
    /// (ORDER BY) have no mergeable state: the table keeps its groups and the rows of
    /// other groups are spilled unaggregated (hybrid), for every key kind and at a second
    /// level of partitions, with the same answers.
    func testNonMergeableAggregatesSpillHybrid() throws {
        let rows = mixedRows(8000, seed: 51, groups: 3000)
        let t = mixedTypes
        let listagg = BoundAggregate(function: .listagg, argument: 1, argumentType: .varchar(40), distinct: false,
                                     resultType: AggregateFunction.listaggResultType,
                                     parameters: AggregateParameters())
        var ordered = listagg
        ordered.orderBy = [AggregateOrderKey(column: 2, type: .bigint, ascending: false, nullsFirst: true)]
        for aggs in [[agg(.count, 2, t, distinct: true), agg(.sum, 3, t)],
                     [agg(.sum, 2, t, distinct: true), agg(.avg, 8, t, distinct: true), agg(.countStar, nil, t)],
                     [listagg], [ordered, agg(.max, 4, t)]] {
            for groups in [[0], [5], [0, 1]] {
                let context = try checkSingle(rows, groups: groups, aggs: aggs)
                XCTAssertGreaterThan(context.memory.spilledBytes, 0)
            }
        }
        // Short string keys (the packed index), two of them.
        var short: [Row] = []
        for i in 0..<20_000 {
            let row: [Value] = [.string(String(i / 20)), .string(String(i % 3)), .int(Int64(i % 37)), .int(Int64(i))]
            short.append(row)
        }
        let shortTypes: [DataType] = [.varchar(3), .char(1), .bigint, .bigint]
        for groups in [[0], [0, 1]] {
            _ = try checkSingle(short, groups: groups, aggs: [agg(.count, 2, shortTypes, distinct: true), agg(.sum, 3, shortTypes)],
                                types: shortTypes)
        }
        // 60,000 groups at 64 kB: the first-level files are split again.
        let many: [Row] = (0..<60_000).map { i in [.int(Int64(i % 20_000)), .string("v\(i % 7)"), .int(Int64(i))] }
        let types: [DataType] = [.bigint, .varchar(20), .bigint]
        let context = try checkSingle(many, groups: [0], aggs: [agg(.count, 1, types, distinct: true), agg(.sum, 2, types)],
                                      types: types)
        XCTAssertGreaterThan(context.memory.spillFileCount, SpillPartitioner.fanOut, "a second level of partitions")
    }

    func testFewGroupsAndNoGroupsDoNotSpill() throws {
        let rows = mixedRows(8000, seed: 52, groups: 100)
        for groups in [[], [0], [6], [9]] {
            let context = try checkSingle(rows, groups: groups, aggs: aggregates, expectSpill: false)
            XCTAssertEqual(context.memory.spilledBytes, 0, "groups \(groups)")
        }
        // Empty input: one row without keys, none with.
        for groups in [[], [0]] {
            let spill = TemporarySpill()
            let op = operatorFor(source(mixedTypes, []), groups: groups, types: mixedTypes, aggs: aggregates, mode: .single,
                                 context: spill.context(budget: 1))
            XCTAssertEqual(try drain(op).count, groups.isEmpty ? 1 : 0)
        }
    }

    func testCancellationStopsTheAggregate() throws {
        let rows = mixedRows(5000, seed: 4)
        let spill = TemporarySpill()
        let cancellation = Cancellation()
        let context = QueryContext(cancellation: cancellation, memory: QueryMemory(budget: budget, pool: MemoryPool(limit: nil)),
                                   spill: spill.space)
        cancellation.cancel(Cancellation.timeout)
        let op = operatorFor(source(mixedTypes, rows), groups: [0], types: mixedTypes, aggs: aggregates, mode: .single,
                             context: context)
        XCTAssertThrowsError(try op.next()) { error in
            XCTAssertEqual((error as? SQLError)?.message, Cancellation.timeout.message)
        }
    }

    func testPoolExhaustionSpillsToo() throws {
        // The statement has no budget of its own, but the database's pool is small.
        let rows = mixedRows(12_000, seed: 61, groups: 5000)
        let expected = try drain(operatorFor(source(mixedTypes, rows), groups: [0], types: mixedTypes, aggs: aggregates,
                                             mode: .single, context: QueryContext()))
        let spill = TemporarySpill()
        let pool = MemoryPool(limit: 96 << 10)
        let context = QueryContext(memory: QueryMemory(budget: nil, pool: pool), spill: spill.space)
        let op = operatorFor(source(mixedTypes, rows), groups: [0], types: mixedTypes, aggs: aggregates, mode: .single,
                             context: context)
        assertSameRows(try drain(op), expected)
        XCTAssertGreaterThan(context.memory.spilledBytes, 0)
        XCTAssertEqual(pool.usedBytes, 0)
    }
}
