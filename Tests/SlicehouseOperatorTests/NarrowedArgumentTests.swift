// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
import SlicehouseRuntime
@testable import SlicehouseExecution

/// Replays `input` with the 128-bit columns `columns` narrowed (`Vector.isNarrowed`), as
/// a projection below an aggregate hands over the products it computed in 64 bits.
private final class NarrowingSource: Operator {
    private let input: Operator
    private let columns: [Int]
    private(set) var narrowedChunks = 0

    init(_ input: Operator, columns: [Int]) {
        self.input = input
        self.columns = columns
    }

    func next() throws -> Chunk? {
        guard var chunk = try input.next() else { return nil }
        for c in columns {
            guard case .int128(let values) = chunk.columns[c].data else { continue }
            chunk.columns[c].data = .int64(values.map { Int64(truncatingIfNeeded: $0) })
            XCTAssertTrue(chunk.columns[c].isNarrowed)
        }
        narrowedChunks += 1
        return chunk
    }
}

/// The SUM and AVG arguments a `HashAggregateOperator` takes narrowed, and the same
/// answers from narrowed and full-width arguments in every way the operator runs: one
/// table, partial, split in memory, spilled by partitions, spilled hybrid.
final class NarrowedArgumentTests: XCTestCase {
    private static let wide = DataType.decimal(precision: 38, scale: 4)
    private let types: [DataType] = [.bigint, wide, wide, .decimal(precision: 15, scale: 2), .bigint]

    /// `count` rows over `groups` groups: key, two wide decimals (NULLs in the first, both
    /// signs, magnitudes up to 10^15), a narrow decimal and a bigint.
    private func rows(_ count: Int, groups: Int, seed: UInt64) -> [Row] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { i in
            let a: Value = i % 11 == 0 ? .null : .int128(Int128(rng.int(-1_000_000_000_000_000...1_000_000_000_000_000)))
            let b: Value = .int128(Int128(rng.int(-99_999...99_999)))
            return [.int(Int64(rng.int(0...(groups - 1)))), a, b, .int(Int64(rng.int(0...9_999))), .int(Int64(i % 97))]
        }
    }

    private func aggregates(distinct: Bool = false) -> [BoundAggregate] {
        var aggs = [agg(.sum, 1, types), agg(.avg, 1, types), agg(.sum, 2, types), agg(.avg, 2, types),
                    agg(.countStar, nil, types), agg(.sum, 3, types)]
        if distinct { aggs.append(agg(.count, 4, types, distinct: true)) }
        return aggs
    }

    private func aggregate(_ rows: [Row], narrowed: Bool, mode: AggregateMode = .single, distinct: Bool = false,
                           context: QueryContext = QueryContext(),
                           splitGroups: Int = HashAggregateOperator.splitGroups) throws -> (rows: [Row], op: HashAggregateOperator) {
        var input: Operator = source(types, rows, chunkSize: 700, withSelection: true)
        if narrowed { input = NarrowingSource(input, columns: [1, 2]) }
        let op = HashAggregateOperator(input: input, groupColumns: [0], groupTypes: [.bigint],
                                       aggregates: aggregates(distinct: distinct), mode: mode,
                                       splitGroups: splitGroups, context: context)
        return (try drain(op), op)
    }

    func testNarrowableArguments() {
        let t = types + [Self.wide, Self.wide, Self.wide, .double]
        func narrowable(_ aggs: [BoundAggregate], groups: [Int] = [0], mode: AggregateMode = .partial) -> Set<Int> {
            HashAggregateOperator.narrowableArguments(groupColumns: groups, aggregates: aggs, mode: mode)
        }
        // Plain SUM and AVG of a wide DECIMAL only.
        XCTAssertEqual(narrowable([agg(.sum, 1, t), agg(.avg, 2, t), agg(.sum, 3, t), agg(.sum, 4, t),
                                   agg(.countStar, nil, t), agg(.avg, 8, t)]), [1, 2])
        XCTAssertEqual(narrowable([agg(.sum, 1, t)], mode: .single), [1])
        // A column any other aggregate, a DISTINCT, an ORDER BY or the key reads stays wide.
        XCTAssertEqual(narrowable([agg(.sum, 1, t), agg(.min, 1, t), agg(.sum, 2, t), agg(.max, 5, t)]), [2])
        XCTAssertEqual(narrowable([agg(.sum, 5, t), agg(.count, 5, t), agg(.sum, 6, t, distinct: true), agg(.avg, 7, t)],
                                  groups: [0, 7], mode: .single), [])
        var listagg = BoundAggregate(function: .listagg, argument: 3, argumentType: .decimal(precision: 15, scale: 2),
                                     distinct: false, resultType: AggregateFunction.listaggResultType)
        listagg.orderBy = [AggregateOrderKey(column: 1, type: Self.wide, ascending: true, nullsFirst: false)]
        XCTAssertEqual(narrowable([agg(.sum, 1, t), agg(.sum, 2, t), listagg], mode: .single), [2])
        // The final phase reads partial states, not arguments.
        XCTAssertEqual(narrowable([agg(.sum, 1, t)], mode: .final), [])
    }

    func testOneTableAndPartial() throws {
        let input = rows(6000, groups: 40, seed: 5)
        for mode in [AggregateMode.single, .partial] {
            let expected = try aggregate(input, narrowed: false, mode: mode).rows
            XCTAssertEqual(expected.count, 40)
            assertSameRows(try aggregate(input, narrowed: true, mode: mode).rows, expected, "\(mode)")
        }
        // Many groups, one table.
        let many = rows(6000, groups: 3000, seed: 6)
        assertSameRows(try aggregate(many, narrowed: true).rows, try aggregate(many, narrowed: false).rows)
    }

    func testSplitInMemory() throws {
        let input = rows(12_000, groups: 5000, seed: 7)
        let expected = try aggregate(input, narrowed: false, splitGroups: .max).rows
        let split = try aggregate(input, narrowed: true, splitGroups: 300)
        XCTAssertGreaterThan(split.op.partitionsHeld, 0)
        assertSameRows(split.rows, expected)
    }

    func testSpilledByPartitionsAndHybrid() throws {
        let input = rows(12_000, groups: 5000, seed: 8)
        for distinct in [false, true] {
            let expected = try aggregate(input, narrowed: false, distinct: distinct).rows
            let spill = TemporarySpill()
            let context = spill.context(budget: 64 << 10)
            let spilled = try aggregate(input, narrowed: true, distinct: distinct, context: context)
            XCTAssertGreaterThan(spilled.op.spilledBytes, 0, "distinct \(distinct)")
            assertSameRows(spilled.rows, expected, "distinct \(distinct)")
        }
    }
}
