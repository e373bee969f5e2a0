// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
import SlicehouseRuntime
@testable import SlicehouseExecution

/// A hash aggregate whose table passes `splitGroups` splits the rest of its input among
/// partitions held in memory and aggregates each on its own (radix partitioning): the
/// answers must be those of the operator that never splits, for every key kind and mode,
/// at a second level, and when the held rows outgrow the memory budget.
final class AggregateSplitTests: XCTestCase {
    private func op(_ input: Operator, groups: [Int], types: [DataType], aggs: [BoundAggregate],
                    mode: AggregateMode = .single, context: QueryContext = QueryContext(),
                    splitGroups: Int) -> HashAggregateOperator {
        HashAggregateOperator(input: input, groupColumns: mode == .final ? Array(0..<groups.count) : groups,
                              groupTypes: groups.map { types[$0] }, aggregates: aggs, mode: mode,
                              splitGroups: splitGroups, context: context)
    }

    /// The answers with a split at `splitGroups` equal those without one; returns the
    /// splitting operator (drained).
    @discardableResult
    private func check(_ rows: [Row], groups: [Int], aggs: [BoundAggregate], types: [DataType] = mixedTypes,
                       splitGroups: Int, context: QueryContext = QueryContext(),
                       file: StaticString = #filePath, line: UInt = #line) throws -> HashAggregateOperator {
        let expected = try drain(op(source(types, rows, chunkSize: 700), groups: groups, types: types, aggs: aggs,
                                    splitGroups: .max))
        let split = op(source(types, rows, chunkSize: 700, withSelection: true), groups: groups, types: types, aggs: aggs,
                       context: context, splitGroups: splitGroups)
        assertSameRows(try drain(split), expected, "groups \(groups)", file: file, line: line)
        return split
    }

    func testSplitInMemoryForEveryKeyKind() throws {
        let rows = mixedRows(12_000, seed: 61, groups: 5000)
        // Integer key (NULLs included), string key, two keys, key + bool + smallint.
        for groups in [[0], [5], [0, 1], [1, 6, 9, 0]] {
            let split = try check(rows, groups: groups, aggs: mixedAggregates, splitGroups: 300)
            XCTAssertGreaterThan(split.partitionsHeld, 0, "groups \(groups)")
            XCTAssertEqual(split.spilledBytes, 0)
        }
    }

    func testNoSplitBelowTheThreshold() throws {
        let rows = mixedRows(4000, seed: 62, groups: 500)
        let split = try check(rows, groups: [0], aggs: mixedAggregates, splitGroups: 100_000)
        XCTAssertEqual(split.partitionsHeld, 0)
    }

    func testDoubleSumsAreBitIdenticalWhenSplit() throws {
        // A group's values are added in their original order: its state from the table
        // before the split, then its rows as they came.
        var rng = SeededRandom(seed: 78)
        let types: [DataType] = [.bigint, .double]
        let rows: [Row] = (0..<40_000).map { _ in
            [.int(Int64(rng.int(0...12_000))), rng.chance(0.1) ? .null : .double(Double(rng.next() % 1_000_000) / 7.3 - 60_000)]
        }
        let aggs = [agg(.sum, 1, types), agg(.avg, 1, types), agg(.countStar, nil, types)]
        let split = try check(rows, groups: [0], aggs: aggs, types: types, splitGroups: 500)
        XCTAssertGreaterThan(split.partitionsHeld, 0)
    }

    /// The same without NULLs: the rows after the split are scattered and packed (the
    /// DOUBLE column kept as its bits).
    func testDoubleSumsAreBitIdenticalWhenScattered() throws {
        var rng = SeededRandom(seed: 79)
        let types: [DataType] = [.bigint, .double]
        let rows: [Row] = (0..<40_000).map { _ in
            [.int(Int64(rng.int(0...12_000)) * 1_000_003), .double(Double(rng.next() % 1_000_000) / 7.3 - 60_000)]
        }
        let aggs = [agg(.sum, 1, types), agg(.avg, 1, types), agg(.min, 1, types), agg(.countStar, nil, types)]
        let split = try check(rows, groups: [0], aggs: aggs, types: types, splitGroups: 500)
        XCTAssertGreaterThan(split.partitionsHeld, 0)
    }

    func testPartitionsStillTooBigAreSplitAgain() throws {
        // 60,000 keys split past 100 groups: each of the 64 first partitions has ~940.
        let types: [DataType] = [.bigint, .varchar(20), .bigint]
        var rng = SeededRandom(seed: 6)
        let rows: [Row] = (0..<60_000).map { i in
            [.int(Int64(i)), .string("k\(i % 977)"), .int(Int64(rng.int(-100...100)))]
        }
        let aggs = [agg(.sum, 2, types), agg(.max, 1, types), agg(.countStar, nil, types)]
        let split = try check(rows, groups: [0], aggs: aggs, types: types, splitGroups: 100)
        XCTAssertGreaterThan(split.partitionsHeld, MemoryPartitioner.fanOut, "a second level")
        try check(rows, groups: [1, 0], aggs: aggs, types: types, splitGroups: 100)
    }

    func testFinalSplitsPartialStates() throws {
        let rows = mixedRows(12_000, seed: 63, groups: 5000)
        let groups = [0, 5]
        var partials: [Chunk] = []
        for s in 0..<4 {
            let slice = rows.enumerated().filter { $0.offset % 4 == s }.map { $0.element }
            partials += try drainChunks(op(source(mixedTypes, slice, chunkSize: 900), groups: groups, types: mixedTypes,
                                           aggs: mixedAggregates, mode: .partial, splitGroups: 50))
        }
        let expected = try drain(op(ChunkSource(partials), groups: groups, types: mixedTypes, aggs: mixedAggregates,
                                    mode: .final, splitGroups: .max))
        let final = op(ChunkSource(partials), groups: groups, types: mixedTypes, aggs: mixedAggregates, mode: .final,
                       splitGroups: 200)
        assertSameRows(try drain(final), expected)
        XCTAssertGreaterThan(final.partitionsHeld, 0)
    }

    func testPartialNeverSplits() throws {
        let rows = mixedRows(6000, seed: 64, groups: 3000)
        let partial = op(source(mixedTypes, rows), groups: [0], types: mixedTypes, aggs: mixedAggregates,
                         mode: .partial, splitGroups: 10)
        _ = try drain(partial)
        XCTAssertEqual(partial.partitionsHeld, 0)
    }

    func testAggregatesWithoutAMergeableStateNeverSplit() throws {
        let rows = mixedRows(6000, seed: 65, groups: 3000)
        let t = mixedTypes
        let split = try check(rows, groups: [0], aggs: [agg(.count, 2, t, distinct: true), agg(.sum, 3, t)],
                              splitGroups: 10)
        XCTAssertEqual(split.partitionsHeld, 0)
    }

    func testHeldRowsOverTheBudgetGoToSpillFiles() throws {
        // Splitting past 300 groups, then the held rows pass 64 kB: they are written to
        // spill files and the rest of the input follows them.
        let rows = mixedRows(30_000, seed: 66, groups: 12_000)
        let spill = TemporarySpill()
        let context = spill.context(budget: 64 << 10)
        let split = try check(rows, groups: [0], aggs: mixedAggregates, splitGroups: 300, context: context)
        XCTAssertGreaterThan(split.spilledBytes, 0)
        XCTAssertEqual(context.memory.usedBytes, 0, "reservation returned at the end")
    }

    /// A table about to pass `splitGroups` splits before it grows for the next chunk: a
    /// 64-bit key's slots never grow past the size that `splitGroups` groups fill (32,768
    /// groups: 65,536 packed slots of 8 bytes, 512 KB, not the 2 MB of the next size).
    func testSplitsBeforeTheTableGrowsPastItsLastSize() throws {
        let types: [DataType] = [.bigint, .bigint]
        let rows: [Row] = (0..<40_000).map { i in [.int(Int64(i)), .int(1)] }
        let aggs = [agg(.countStar, nil, types), agg(.sum, 1, types)]
        let spill = TemporarySpill()
        let context = spill.context(budget: 1 << 30)
        let split = try check(rows, groups: [0], aggs: aggs, types: types, splitGroups: 1 << 15, context: context)
        XCTAssertGreaterThan(split.partitionsHeld, 0)
        XCTAssertEqual(split.spilledBytes, 0)
        XCTAssertGreaterThan(split.memoryPeak, 1 << 20, "the table at its last size is reserved")
        // Besides the partitioner's staging rows (two 64-bit columns), the table at its
        // last size with its keys and states, and the rows held, stay under 4 MB (4.0 MB
        // measured); the next size's slots would add 1.5 MB.
        let staging = 2 * MemoryPartitioner.fanOut * MemoryPartitioner.stageRows * 8
        XCTAssertLessThan(split.memoryPeak, (4 << 20) + staging, "never the next size")
        XCTAssertEqual(context.memory.usedBytes, 0)
    }

    /// A partition's table is sized once from its estimate: a 64-bit key's index expecting
    /// 234,000 groups takes 524,288 slots at once (its 4x steps would reach 1,048,576)
    /// and holds them all without growing; aggregated partitions, each sized from its
    /// estimate, give the answers of the operator that never splits. (The keys fit the
    /// packed slots, 8 bytes each.)
    func testPartitionTablesAreSizedFromTheirEstimates() throws {
        let index = Int64GroupIndex(type: .bigint)
        index.expect(groups: 234_000)
        let sized = index.memoryBytes
        XCTAssertGreaterThanOrEqual(sized, 524_288 * 8, "half full at most")
        XCTAssertLessThan(sized, 1_048_576 * 8, "not the next size")
        var ids: [Int32] = []
        var at: Int64 = 0
        while at < 234_000 {
            let n = min(Int64(Chunk.capacity), 234_000 - at)
            let keys = Vector(type: .bigint, data: .int64((at..<(at + n)).map { $0 * 3 + 1 }))
            try index.assign([keys], rows: Array(0..<Int32(n)), groupIds: &ids)
            XCTAssertEqual(ids, (0..<Int32(n)).map { Int32(at) + $0 })
            at += n
        }
        XCTAssertEqual(index.groupCount, 234_000)
        XCTAssertTrue(index.isPacked)
        XCTAssertLessThan(index.memoryBytes, 1_048_576 * 8, "no growth past the expected size")
        // An expectation below what it holds changes nothing; the keys are still found.
        index.expect(groups: 10)
        try index.assign([Vector(type: .bigint, data: .int64([1, 2, 4]))], rows: [0, 1, 2], groupIds: &ids)
        XCTAssertEqual(ids, [0, 234_000, 1])

        let types: [DataType] = [.bigint, .bigint]
        let rows: [Row] = (0..<80_000).map { i in [.int(Int64(i % 40_000) * 13), .int(Int64(i))] }
        let aggs = [agg(.countStar, nil, types), agg(.sum, 1, types)]
        let spill = TemporarySpill()
        let context = spill.context(budget: 1 << 30)
        let split = try check(rows, groups: [0], aggs: aggs, types: types, splitGroups: 10_000, context: context)
        XCTAssertEqual(split.partitionsHeld, MemoryPartitioner.fanOut, "one level: partitions of about 625 keys")
        XCTAssertEqual(split.spilledBytes, 0)
        XCTAssertEqual(context.memory.usedBytes, 0)
    }

    /// A partition's packed chunks (1,024 rows each, `MemoryPartitioner.stageRows`) are
    /// aggregated two at a time, up to `Chunk.capacity` rows: 300,000 rows split past 1,000
    /// groups give each of the 64 partitions about 4,600 rows in five packed chunks,
    /// handed over in three batches after the partition's states; the answers are those
    /// of the operator that never splits, and the held rows' reservation is returned.
    func testPackedChunksAreAggregatedTogether() throws {
        let types: [DataType] = [.bigint, .bigint, .double]
        var rng = SeededRandom(seed: 93)
        let rows: [Row] = (0..<300_000).map { i in
            [.int(Int64(rng.int(0...49_999)) * 7 - 90_000), .int(Int64(i)), .double(Double(rng.int(-5000...5000)) / 8)]
        }
        let aggs = [agg(.countStar, nil, types), agg(.sum, 1, types), agg(.sum, 2, types), agg(.max, 1, types)]
        let spill = TemporarySpill()
        let context = spill.context(budget: 1 << 30)
        let split = try check(rows, groups: [0], aggs: aggs, types: types, splitGroups: 1000, context: context)
        XCTAssertEqual(split.partitionsHeld, MemoryPartitioner.fanOut)
        XCTAssertEqual(split.spilledBytes, 0)
        XCTAssertEqual(context.memory.usedBytes, 0)
        // One chunk at a time: 513 batches (a partition split again among them).
        XCTAssertLessThanOrEqual(split.partitionBatches, 4 * MemoryPartitioner.fanOut, "packed chunks in pairs")
        XCTAssertGreaterThanOrEqual(split.partitionBatches, 2 * MemoryPartitioner.fanOut)
    }

    /// A table a quarter of the way to `splitGroups` splits there when the planner expects
    /// at least twice `splitGroups` groups and the table's growth, in proportion to the
    /// rows still expected, reaches four times `splitGroups`; otherwise it splits at
    /// `splitGroups` as before (or never). The answers are always those of the operator
    /// that never splits.
    func testSplitsEarlyWhenBoundForManyGroups() throws {
        let types: [DataType] = [.bigint, .bigint]
        let aggs = [agg(.countStar, nil, types), agg(.sum, 1, types)]
        func run(_ rows: [Row], expectedRows: Double?, expectedGroups: Double?) throws -> HashAggregateOperator {
            let expected = try drain(op(source(types, rows, chunkSize: 500), groups: [0], types: types, aggs: aggs,
                                        splitGroups: .max))
            let split = HashAggregateOperator(input: source(types, rows, chunkSize: 500), groupColumns: [0],
                                              groupTypes: [.bigint], aggregates: aggs, mode: .single,
                                              splitGroups: 4000, expectedRows: expectedRows,
                                              expectedGroups: expectedGroups, context: QueryContext())
            assertSameRows(try drain(split), expected)
            return split
        }
        // 40,000 keys, four rows each, arriving near their kind (as lineitem's order keys
        // do in ship-date order): 1,000 groups after about 4,000 rows of 160,000.
        var rng = SeededRandom(seed: 97)
        let clustered: [Row] = (0..<160_000).map { i in
            [.int(Int64(min(39_999, max(0, i / 4 + rng.int(-200...200))))), .int(Int64(i))]
        }
        let early = try run(clustered, expectedRows: 160_000, expectedGroups: 40_000)
        XCTAssertGreaterThan(early.partitionsHeld, 0)
        XCTAssertEqual(early.groupsAtSplit.map { $0 > 1000 && $0 <= 1000 + 500 }, true, "at the quarter: \(String(describing: early.groupsAtSplit))")
        // The planner expecting few groups: the split waits for `splitGroups`.
        let planned = try run(clustered, expectedRows: 160_000, expectedGroups: 3000)
        XCTAssertEqual(planned.groupsAtSplit.map { $0 > 4000 }, true, "\(String(describing: planned.groupsAtSplit))")
        // Nothing expected: the same.
        let unknown = try run(clustered, expectedRows: nil, expectedGroups: nil)
        XCTAssertEqual(unknown.groupsAtSplit.map { $0 > 4000 }, true)
        // 3,000 keys repeated at random, the planner expecting 40,000 groups: 1,000 groups
        // after about 1,200 rows of 12,000 grow to about 10,000 in proportion, short of
        // 16,000: no early split, and 3,000 groups never reach `splitGroups`.
        let repeated: [Row] = (0..<12_000).map { i in [.int(Int64(rng.int(0...2999))), .int(Int64(i))] }
        let few = try run(repeated, expectedRows: 12_000, expectedGroups: 40_000)
        XCTAssertNil(few.groupsAtSplit)
        XCTAssertEqual(few.partitionsHeld, 0)
    }

    func testHeldPartitionsAreReservedAndReturned() throws {
        let rows = mixedRows(20_000, seed: 67, groups: 8000)
        let spill = TemporarySpill()
        let context = spill.context(budget: 1 << 30)
        let split = try check(rows, groups: [0], aggs: mixedAggregates, splitGroups: 300, context: context)
        XCTAssertGreaterThan(split.partitionsHeld, 0)
        XCTAssertEqual(split.spilledBytes, 0)
        // The held rows were reserved: the peak is above what the small tables alone take.
        XCTAssertGreaterThan(split.memoryPeak, 20_000 * 8)
        XCTAssertEqual(context.memory.usedBytes, 0)
    }
}

/// `MemoryPartitioner`: every row lands in its partition (whose rows all belong in one
/// partition of a spill of the same level), in arrival order, in sealed chunks of at most
/// `Chunk.capacity` rows with their tags, whether gathered or scattered and packed.
final class MemoryPartitionerTests: XCTestCase {
    /// Each partition estimates its distinct keys (to size its table): within 20% of the
    /// true count at every level, from a few keys to tens of thousands, repeats and NULLs
    /// included; a partitioner used again after `finish` starts its estimates afresh.
    func testPartitionsEstimateTheirDistinctKeys() throws {
        for level in [0, 2] {
            let p = try MemoryPartitioner(level: level, keyColumns: [0])
            for distinct in [40, 3_000, 200_000] {
                var rng = SeededRandom(seed: UInt64(distinct + level))
                var hashes: [UInt64] = []
                var truth = [Int: Set<Int64>]()
                var sawNull = [Int: Bool]()
                var cache: [Int32] = []
                // Every key at least once, then as many again drawn at random.
                let keys: [Int64?] = (0..<distinct).map { Int64($0) * 7_919 } + (0..<distinct).map { _ in
                    rng.int(0...49) == 0 ? nil : Int64(rng.int(0...(distinct - 1))) * 7_919
                }
                var at = 0
                while at < keys.count {
                    let n = min(Chunk.capacity, keys.count - at)
                    var v = Vector(type: .bigint)
                    for k in keys[at..<(at + n)] { v.append(k.map { .int($0) } ?? .null) }
                    let chunk = Chunk(columns: [v], count: n)
                    KeyHashing.hash([v], rows: OperatorKernels.physicalRows(chunk, cache: &cache), into: &hashes)
                    for i in 0..<n {
                        let q = MemoryPartitioner.partition(hashes[i], level: level)
                        if let k = keys[at + i] { truth[q, default: []].insert(k) } else { sawNull[q] = true }
                    }
                    try p.add(chunk, states: false)
                    at += n
                }
                let parts = p.finish()
                XCTAssertEqual(parts.count, Set(truth.keys).union(sawNull.keys).count)
                for part in parts {
                    KeyHashing.hash([part.chunks[0].unpacked().columns[0]], rows: [0], into: &hashes)
                    let q = MemoryPartitioner.partition(hashes[0], level: level)
                    let exact = (truth[q]?.count ?? 0) + (sawNull[q] == true ? 1 : 0)
                    let what = "level \(level), \(distinct) keys, partition \(q): \(part.groups) for \(exact)"
                    // 512 registers: a standard error of 4.6%; 20% is over four of them,
                    // across the 384 partitions checked.
                    XCTAssertLessThanOrEqual(abs(part.groups - exact), max(2, exact * 20 / 100), what)
                }
            }
        }
    }

    /// Chunks of 64-bit integer and DOUBLE columns without NULLs are scattered into
    /// staging rows and sealed packed; others are gathered. Mixed in one partitioner, in
    /// chunks larger than the staging rows (several windows, partitions sealed part-way),
    /// every value comes back exact: narrow columns (a span under 2^32, offsets from a
    /// negative base), wide ones (the whole Int64 range in one block), DOUBLE bits (-0.0,
    /// infinities, NaN payloads), one-row chunks and selections. Every row is in the
    /// partition its `KeyHashing` hash gives, whether its key column had NULLs (hashed by
    /// `KeyHashing`) or not (hashed and remixed in one loop).
    func testScatteredRowsArePackedAndComeBackInOrder() throws {
        let p = try MemoryPartitioner(level: 1, keyColumns: [0])
        var rng = SeededRandom(seed: 91)
        var seq: Int64 = 0
        // Sequence number -> the row's values (key, wide, double bits) and tag.
        var added: [Int64: (key: Int64?, wide: Int64, bits: UInt64, states: Bool)] = [:]
        let specials: [Double] = [-0.0, .infinity, -.infinity, Double(nan: 5, signaling: false), 1e300, 5e-324]
        // (rows, NULL keys, with a selection, states)
        let rounds: [(Int, Bool, Bool, Bool)] = [(900, false, false, true), (5000, false, false, false), (1, false, false, false),
                                                 (3000, true, false, false), (7000, false, true, false), (2048, false, false, false)]
        var cache: [Int32] = []
        for (n, nullKeys, withSelection, states) in rounds {
            var keys = Vector(type: .bigint), seqs = Vector(type: .bigint), wide = Vector(type: .bigint)
            var doubles = Vector(type: .double)
            for i in 0..<n {
                let key: Int64? = nullKeys && rng.int(0...9) == 0 ? nil : Int64(rng.int(0...3000)) - 1500
                keys.append(key.map { .int($0) } ?? .null)
                seqs.append(.int(seq))
                let w: Int64 = i % 3 == 0 ? .min : (i % 3 == 1 ? .max : Int64(bitPattern: rng.next()))
                wide.append(.int(w))
                let d = i % 11 == 0 ? specials[i % specials.count] : Double(rng.int(-1_000_000...1_000_000)) / 3.0
                doubles.append(.double(d))
                seq += 1
            }
            let columns = [keys, seqs, wide, doubles]
            let chunk = withSelection
                ? Chunk(columns: columns, count: n, selection: (0..<Int32(n)).filter { $0 % 4 != 2 })
                : Chunk(columns: columns, count: n)
            for r in OperatorKernels.physicalRows(chunk, cache: &cache) {
                let i = Int(r)
                guard case .int(let s) = seqs.value(at: i), case .int(let w) = wide.value(at: i),
                      case .double(let d) = doubles.value(at: i) else { return XCTFail("row \(i)") }
                var key: Int64?
                if case .int(let k) = keys.value(at: i) { key = k }
                added[s] = (key, w, d.bitPattern, states)
            }
            try p.add(chunk, states: states)
        }
        // An empty chunk adds nothing (and seals nothing).
        let before = p.memoryBytes
        try p.add(Chunk(columns: [Vector(type: .bigint), Vector(type: .bigint), Vector(type: .bigint),
                                  Vector(type: .double)], count: 0), states: false)
        XCTAssertEqual(p.memoryBytes, before)
        XCTAssertGreaterThan(p.memoryBytes, 0)
        let parts = p.finish()
        XCTAssertEqual(p.memoryBytes, 0, "emptied by finish")
        var seen = 0, packed = 0, gathered = 0
        var hashes: [UInt64] = []
        for part in parts {
            var lastSeq = Int64(-1)
            var sawRows = false
            var partition: Int?
            for entry in part.chunks {
                if entry.isPacked { packed += 1 } else { gathered += 1 }
                let chunk = entry.unpacked()
                XCTAssertEqual(chunk.count, entry.count)
                XCTAssertLessThanOrEqual(chunk.count, Chunk.capacity)
                XCTAssertEqual(chunk.columns.map { $0.type }, [.bigint, .bigint, .bigint, .double])
                if entry.states { XCTAssertFalse(sawRows, "states before rows") } else { sawRows = true }
                KeyHashing.hash([chunk.columns[0]], rows: Array(0..<Int32(chunk.count)), into: &hashes)
                for i in 0..<chunk.count {
                    let q = MemoryPartitioner.partition(hashes[i], level: 1)
                    if let partition { XCTAssertEqual(q, partition) } else { partition = q }
                    guard case .int(let s) = chunk.columns[1].value(at: i), let row = added[s] else {
                        return XCTFail("row \(i) has no sequence number")
                    }
                    XCTAssertGreaterThan(s, lastSeq, "arrival order")
                    lastSeq = s
                    XCTAssertEqual(chunk.columns[0].value(at: i), row.key.map { .int($0) } ?? .null, "key of \(s)")
                    XCTAssertEqual(chunk.columns[2].value(at: i), .int(row.wide), "wide value of \(s)")
                    guard case .double(let d) = chunk.columns[3].value(at: i) else { return XCTFail("double of \(s)") }
                    XCTAssertEqual(d.bitPattern, row.bits, "double bits of \(s)")
                    XCTAssertEqual(entry.states, row.states)
                    seen += 1
                }
            }
        }
        XCTAssertEqual(seen, added.count, "every row once")
        XCTAssertGreaterThan(packed, 0, "scattered rows")
        XCTAssertGreaterThan(gathered, 0, "gathered rows: states, NULL keys")
    }

    /// One 64-bit key without NULLs, every column scatterable: rows are placed and written
    /// to their staging rows in one loop (`scatterPlacing`), for one, two, three and five
    /// columns (each its own writer), with and without a selection. Partitions fill their
    /// 1,024 staging rows part-way through a chunk many times over; each partition's rows
    /// come back exactly as the input's rows of that partition, in order, in packed chunks
    /// of at most 1,024 rows; and each partition's estimate is within 20% of its keys.
    func testPlacingLoopFillsPartitionsMidChunk() throws {
        for width in [1, 2, 3, 5] {
            for withSelection in [false, true] {
                let p = try MemoryPartitioner(level: 0, keyColumns: [0])
                var rng = SeededRandom(seed: UInt64(width * 10 + (withSelection ? 1 : 0)))
                var expected = [Int: [[UInt64]]]()
                var distinct = [Int: Set<Int64>]()
                var hashes: [UInt64] = []
                var cache: [Int32] = []
                for _ in 0..<80 {
                    let n = Chunk.capacity
                    var columns: [Vector] = []
                    for j in 0..<width {
                        if j == 3 {
                            columns.append(Vector(type: .double, data: .double((0..<n).map { _ in
                                Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) })))
                        } else if j == 0 {
                            columns.append(Vector(type: .bigint, data: .int64((0..<n).map { _ in Int64(rng.int(0...40_000)) * 7 - 9 })))
                        } else {
                            columns.append(Vector(type: .bigint, data: .int64((0..<n).map { _ in Int64(bitPattern: rng.next()) })))
                        }
                    }
                    let chunk = withSelection
                        ? Chunk(columns: columns, count: n, selection: (0..<Int32(n)).filter { $0 % 3 != 1 })
                        : Chunk(columns: columns, count: n)
                    let rows = OperatorKernels.physicalRows(chunk, cache: &cache)
                    KeyHashing.hash([columns[0]], rows: rows, into: &hashes)
                    for (i, r) in rows.enumerated() {
                        let q = MemoryPartitioner.partition(hashes[i], level: 0)
                        expected[q, default: []].append(columns.map { Self.bits($0, Int(r)) })
                        if case .int(let k) = columns[0].value(at: Int(r)) { distinct[q, default: []].insert(k) }
                    }
                    try p.add(chunk, states: false)
                }
                let parts = p.finish()
                XCTAssertEqual(parts.count, expected.count, "width \(width)")
                for part in parts {
                    var got: [[UInt64]] = []
                    for entry in part.chunks {
                        XCTAssertTrue(entry.isPacked)
                        XCTAssertLessThanOrEqual(entry.count, MemoryPartitioner.stageRows)
                        let chunk = entry.unpacked()
                        for i in 0..<chunk.count { got.append(chunk.columns.map { Self.bits($0, i) }) }
                    }
                    guard let first = got.first else { return XCTFail("an empty partition") }
                    let key = Vector(type: .bigint, data: .int64([Int64(bitPattern: first[0])]))
                    KeyHashing.hash([key], rows: [0], into: &hashes)
                    let q = MemoryPartitioner.partition(hashes[0], level: 0)
                    let what = "width \(width), selection \(withSelection), partition \(q)"
                    XCTAssertGreaterThan(got.count, MemoryPartitioner.stageRows, what + ": filled at least once")
                    XCTAssertEqual(got, expected[q] ?? [], what)
                    let exact = distinct[q]?.count ?? 0
                    XCTAssertLessThanOrEqual(abs(part.groups - exact), exact * 20 / 100, what + ": \(part.groups) for \(exact)")
                }
            }
        }
    }

    /// Value `i` of `v` as its 64 bits (a DOUBLE by its bit pattern).
    private static func bits(_ v: Vector, _ i: Int) -> UInt64 {
        switch v.value(at: i) {
        case .int(let x): return UInt64(bitPattern: x)
        case .double(let d): return d.bitPattern
        default: return 0xDEAD
        }
    }

    /// A packed column is offsets from its smallest value only when the values span less
    /// than 2^32; a span of exactly 2^32 - 1 is packed, 2^32 is not, and either way the
    /// values come back.
    func testPackedColumnsAtTheSpanLimit() {
        for span in [Int64(0), Int64(UInt32.max), Int64(UInt32.max) + 1] {
            let values: [UInt64] = [-7, -7 + span, -7 + span / 2].map { UInt64(bitPattern: $0) }
            let rows = values.withUnsafeBufferPointer { v in
                PackedRows([v.baseAddress!], count: 3, types: [.bigint], doubles: [false])
            }
            XCTAssertEqual(rows.narrowColumnCount, span <= Int64(UInt32.max) ? 1 : 0, "span \(span)")
            XCTAssertEqual(rows.chunk().columns[0].value(at: 1), .int(-7 + span))
            XCTAssertEqual(rows.chunk().columns[0].value(at: 0), .int(-7))
        }
    }

    /// Of 70 columns, the first 64 can be held narrow and the rest are kept wide; a
    /// DOUBLE and a wide span among them stay wide; every value comes back, in its
    /// column, also for no rows.
    func testPackedRowsOfManyColumns() {
        let width = 70
        let types: [DataType] = (0..<width).map { $0 == 5 ? .double : .bigint }
        let doubles = (0..<width).map { $0 == 5 }
        for n in [0, 1, 5] {
            // Column j, row i: j * 1000 + i (column 7 spans 2^40, column 5 is a DOUBLE).
            let columns: [[UInt64]] = (0..<width).map { j in
                (0..<n).map { i in
                    if j == 5 { return (Double(i) + 0.5).bitPattern }
                    if j == 7 { return UInt64(bitPattern: i % 2 == 0 ? Int64(i) << 40 : -Int64(i)) }
                    return UInt64(bitPattern: Int64(j * 1000 + i))
                }
            }
            let pointers = columns.map { c -> UnsafeMutablePointer<UInt64> in
                let p = UnsafeMutablePointer<UInt64>.allocate(capacity: max(n, 1))
                p.initialize(from: c, count: n)
                return p
            }
            defer { pointers.forEach { $0.deallocate() } }
            let rows = PackedRows(pointers.map { UnsafePointer($0) }, count: n, types: types, doubles: doubles)
            XCTAssertEqual(rows.narrowColumnCount, n == 0 ? 0 : n == 1 ? 63 : 62, "\(n) rows")
            let chunk = rows.chunk()
            XCTAssertEqual(chunk.count, n)
            XCTAssertEqual(chunk.columns.count, width)
            for j in 0..<width {
                for i in 0..<n {
                    let expected: Value = j == 5 ? .double(Double(i) + 0.5)
                        : j == 7 ? .int(i % 2 == 0 ? Int64(i) << 40 : -Int64(i)) : .int(Int64(j * 1000 + i))
                    XCTAssertEqual(chunk.columns[j].value(at: i), expected, "column \(j) row \(i) of \(n)")
                }
            }
        }
    }

    /// Packed chunks of one layout unpack as one chunk, whichever columns each keeps narrow
    /// or wide, into buffers used again: a chunk still held when the buffers are written
    /// for the next keeps its values, and a shorter run after a longer one has its own count.
    func testPackedRunsUnpackIntoBuffersUsedAgain() {
        let types: [DataType] = [.bigint, .bigint, .double]
        let doubles = [false, false, true]
        func packed(_ rows: [(Int64, Int64, Double)]) -> PartitionChunk {
            let flat = rows.flatMap { [UInt64(bitPattern: $0.0), UInt64(bitPattern: $0.1), $0.2.bitPattern] }
            var columns: [[UInt64]] = [[], [], []]
            for (i, v) in flat.enumerated() { columns[i % 3].append(v) }
            let p = columns[0].withUnsafeBufferPointer { a in
                columns[1].withUnsafeBufferPointer { b in
                    columns[2].withUnsafeBufferPointer { c in
                        PackedRows([a.baseAddress!, b.baseAddress!, c.baseAddress!], count: rows.count, types: types,
                                   doubles: doubles)
                    }
                }
            }
            return PartitionChunk(packed: p)
        }
        // The first: both integer columns narrow; the second: a key spanning 2^40 (wide)
        // and a narrow second column; the third: one row.
        let a: [(Int64, Int64, Double)] = (0..<700).map { (i: Int) -> (Int64, Int64, Double) in
            let x = Int64(i)
            return (x - 300, x * 1000, Double(i) / 3)
        }
        let b: [(Int64, Int64, Double)] = (0..<900).map { (i: Int) -> (Int64, Int64, Double) in
            let key: Int64 = i % 2 == 0 ? 1 << 40 : -5
            return (key, Int64.max - Int64(i), -Double(i))
        }
        let c: [(Int64, Int64, Double)] = [(Int64.min, Int64.min, Double.infinity)]
        let chunks = [packed(a), packed(b), packed(c)]
        XCTAssertTrue(chunks[0].packed!.sameLayout(as: chunks[1].packed!))
        var buffers = UnpackBuffers()
        func values(_ chunk: Chunk) -> [(Int64, Int64, Double)] {
            (0..<chunk.count).map { i in
                guard case .int(let x) = chunk.columns[0].value(at: i), case .int(let y) = chunk.columns[1].value(at: i),
                      case .double(let z) = chunk.columns[2].value(at: i) else { return (0, 0, .nan) }
                return (x, y, z)
            }
        }
        func same(_ x: [(Int64, Int64, Double)], _ y: [(Int64, Int64, Double)], _ what: String) {
            XCTAssertEqual(x.count, y.count, what)
            for (u, v) in zip(x, y) where u.0 != v.0 || u.1 != v.1 || u.2.bitPattern != v.2.bitPattern {
                return XCTFail("\(what): \(u) for \(v)")
            }
        }
        let all = PartitionChunk.unpack(chunks[0...], rows: 1601, into: &buffers)
        XCTAssertEqual(all.count, 1601)
        XCTAssertEqual(all.columns.map { $0.type }, types)
        same(values(all), a + b + c, "three packed chunks as one")
        // Held while the buffers are written again: its values stay.
        let held = all
        let second = PartitionChunk.unpack(chunks[1...1], rows: 900, into: &buffers)
        same(values(second), b, "a shorter run")
        same(values(held), a + b + c, "the chunk held keeps its values")
        let last = PartitionChunk.unpack(chunks[2...2], rows: 1, into: &buffers)
        same(values(last), c, "one row")
    }

    func testRowsLandInTheirSpillPartitionInOrder() throws {
        for level in [0, 1, 3] {
            let p = try MemoryPartitioner(level: level, keyColumns: [0])
            var rng = SeededRandom(seed: UInt64(level) + 3)
            // Sequence number -> (key, tag) of every logical row added.
            var added: [Int64: (key: Value, states: Bool)] = [:]
            var seq: Int64 = 0
            var cache: [Int32] = []
            // States first, then rows, in chunks of varying size, the last with a selection.
            for (round, states) in [(0, true), (1, false), (2, false), (3, false)] {
                let n = [3000, 1, 5000, 2500][round]
                var keys = Vector(type: .bigint), seqs = Vector(type: .bigint)
                for _ in 0..<n {
                    keys.append(rng.int(0...19) == 0 ? .null : .int(Int64(rng.int(0...5000))))
                    seqs.append(.int(seq))
                    seq += 1
                }
                var chunk = Chunk(columns: [keys, seqs], count: n)
                if round == 3 { chunk = Chunk(columns: [keys, seqs], count: n, selection: (0..<Int32(n)).filter { $0 % 3 != 1 }) }
                for r in OperatorKernels.physicalRows(chunk, cache: &cache) {
                    guard case .int(let s) = seqs.value(at: Int(r)) else { return XCTFail("sequence") }
                    added[s] = (keys.value(at: Int(r)), states)
                }
                try p.add(chunk, states: states)
            }
            XCTAssertGreaterThan(p.memoryBytes, 0)
            let parts = p.finish()
            XCTAssertEqual(p.memoryBytes, 0, "emptied by finish")
            XCTAssertGreaterThan(parts.count, 8)
            var seen = 0
            var hashes: [UInt64] = []
            var partitions = Set<Int>()
            for part in parts {
                XCTAssertEqual(part.level, level)
                XCTAssertEqual(part.bytes, part.chunks.reduce(0) { $0 + $1.memoryBytes })
                var lastSeq = Int64(-1)
                var sawRows = false
                var partition: Int?
                for entry in part.chunks {
                    let chunk = entry.unpacked(), states = entry.states
                    XCTAssertEqual(entry.count, chunk.count)
                    XCTAssertGreaterThan(chunk.count, 0)
                    XCTAssertLessThanOrEqual(chunk.count, Chunk.capacity)
                    XCTAssertNil(chunk.selection)
                    if states { XCTAssertFalse(sawRows, "states before rows") } else { sawRows = true }
                    KeyHashing.hash([chunk.columns[0]], rows: Array(0..<Int32(chunk.count)), into: &hashes)
                    for i in 0..<chunk.count {
                        let q = MemoryPartitioner.partition(hashes[i], level: level)
                        // A memory partition's rows all belong in one spill partition of its level.
                        XCTAssertEqual(q % SpillPartitioner.fanOut, SpillPartitioner.partition(hashes[i], level: level))
                        if let partition { XCTAssertEqual(q, partition) } else { partition = q }
                        guard case .int(let s) = chunk.columns[1].value(at: i), let row = added[s] else {
                            return XCTFail("row \(i) has no sequence number")
                        }
                        XCTAssertGreaterThan(s, lastSeq, "arrival order")
                        lastSeq = s
                        XCTAssertEqual(chunk.columns[0].value(at: i), row.key)
                        XCTAssertEqual(states, row.states)
                        seen += 1
                    }
                }
                if let partition { XCTAssertTrue(partitions.insert(partition).inserted, "one partition each") }
            }
            XCTAssertEqual(seen, added.count, "every row once")
        }
    }

    /// The identity row list follows each chunk's size when one cache serves chunks of
    /// changing sizes (a split aggregate's partitions are sealed at sizes that vary by a
    /// few rows): longer, shorter, empty, and the same size again.
    func testIdentityRowsFollowTheChunkSize() {
        var cache: [Int32] = []
        for n in [1_024, 1_019, 5, 0, 2_048, 2_048, 1] {
            XCTAssertEqual(OperatorKernels.identity(n, cache: &cache), (0..<Int32(n)).map { $0 }, "\(n) rows")
        }
    }
}

/// `Vector.append(gathering:from:)`: the rows at the indices, in order, for every physical
/// type, with NULLs, from a constant, and onto a vector that already has rows.
final class VectorAppendGatheredTests: XCTestCase {
    func testEveryPhysicalType() {
        let columns: [Vector] = [
            .ints([1, nil, 3, 4, 5], type: .bigint),
            Vector(type: .decimal(precision: 38, scale: 2), data: .int128([10, 20, 30, 40, 50]),
                   validity: Validity(words: [0b11011])),
            Vector(type: .double, data: .double([0.5, 1.5, 2.5, 3.5, 4.5])),
            Vector(type: .boolean, data: .bool([true, false, true, false, true]), validity: Validity(words: [0b01111])),
            Vector(type: .varchar(10), data: .string(StringArray(["a", "", "ccc", "dd", "e"])), validity: Validity(words: [0b10111])),
        ]
        let picks: [Int32] = [4, 0, 2, 2, 1]
        for v in columns {
            // Onto a vector with 70 rows (the validity crosses a word), one of them NULL.
            var out = Vector(type: v.type)
            for i in 0..<70 { out.append(i == 65 ? .null : v.value(at: i % 2 == 0 ? 0 : 2)) }
            picks.withUnsafeBufferPointer { out.append(gathering: $0, from: v) }
            XCTAssertEqual(out.count, 75)
            for i in 0..<70 {
                XCTAssertEqual(out.value(at: i), i == 65 ? .null : v.value(at: i % 2 == 0 ? 0 : 2), "\(v.type) row \(i)")
            }
            for (k, r) in picks.enumerated() {
                XCTAssertEqual(out.value(at: 70 + k), v.value(at: Int(r)), "\(v.type) pick \(k)")
            }
        }
    }

    func testFromAConstantAndNoIndices() {
        let constant = Vector(type: .bigint, data: .int64([7]), isConstant: true)
        let nullConstant = Vector(type: .bigint, data: .int64([0]), validity: Validity(allNull: 1), isConstant: true)
        var out = Vector(type: .bigint)
        let picks: [Int32] = [5, 9, 0]
        picks.withUnsafeBufferPointer { out.append(gathering: $0, from: constant) }
        picks.withUnsafeBufferPointer { out.append(gathering: $0, from: nullConstant) }
        [Int32]().withUnsafeBufferPointer { out.append(gathering: $0, from: constant) }
        XCTAssertEqual((0..<out.count).map { out.value(at: $0) }, [.int(7), .int(7), .int(7), .null, .null, .null])
    }
}
