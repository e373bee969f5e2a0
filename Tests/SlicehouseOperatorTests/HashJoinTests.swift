// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseRuntime
import SlicehousePlanner
import SlicehouseStorage
@testable import SlicehouseExecution

/// Reference join: hash on `[Value]` keys, NULL keys never match.
func referenceJoin(_ kind: JoinKind, probe: [Row], build: [Row], probeKeys: [Int], buildKeys: [Int],
                   probeWidth: Int, buildWidth: Int, nullAware: Bool = false,
                   residual: ((Row, Row) -> Bool)? = nil) -> [Row] {
    var index: [[Value]: [Int]] = [:]
    var buildHasNull = false
    for (i, b) in build.enumerated() {
        let key = buildKeys.map { b[$0] }
        if key.contains(where: { $0.isNull }) { buildHasNull = true; continue }
        index[key, default: []].append(i)
    }
    var out: [Row] = []
    var buildMatched = [Bool](repeating: false, count: build.count)
    let nullBuild = [Value](repeating: .null, count: buildWidth)
    let nullProbe = [Value](repeating: .null, count: probeWidth)
    for p in probe {
        let key = probeKeys.map { p[$0] }
        let keyNull = key.contains(where: { $0.isNull })
        var matches = keyNull ? [] : (index[key] ?? [])
        if let residual { matches = matches.filter { residual(p, build[$0]) } }
        switch kind {
        case .inner, .left, .right, .full:
            for m in matches { out.append(p + build[m]); buildMatched[m] = true }
            if matches.isEmpty && (kind == .left || kind == .full) { out.append(p + nullBuild) }
        case .semi:
            if !matches.isEmpty { out.append(p) }
        case .anti:
            if !matches.isEmpty { continue }
            if nullAware && !build.isEmpty && (buildHasNull || keyNull) { continue }
            out.append(p)
        case .rightSemi, .rightAnti:
            for m in matches { buildMatched[m] = true }
        }
    }
    if kind == .right || kind == .full {
        for (i, b) in build.enumerated() where !buildMatched[i] { out.append(nullProbe + b) }
    }
    if kind == .rightSemi || kind == .rightAnti {
        for (i, b) in build.enumerated() where buildMatched[i] == (kind == .rightSemi) { out.append(b) }
    }
    return out
}

let joinTypes: [DataType] = [.integer, .varchar(20), .bigint]

/// Rows (key INTEGER, key VARCHAR, payload BIGINT) with duplicate and NULL keys.
func joinRows(_ n: Int, seed: UInt64, keys: Int, nullRate: Double = 0.1) -> [Row] {
    var rng = SeededRandom(seed: seed)
    let tags = ["x", "y", "long-tag-beyond-8-bytes"]
    return (0..<n).map { i in
        let k: Value = rng.chance(nullRate) ? .null : .int(Int64(rng.int(0...keys)))
        let s: Value = rng.chance(nullRate) ? .null : .string(tags[rng.int(0...2)])
        return [k, s, .int(Int64(i))]
    }
}

final class HashJoinTests: XCTestCase {
    private let allKinds: [JoinKind] = [.inner, .left, .right, .full, .semi, .anti, .rightSemi, .rightAnti]

    private func join(_ kind: JoinKind, _ probe: [Row], _ build: [Row], probeKeys: [Int] = [0], buildKeys: [Int] = [0],
                      residual: BoundExpr? = nil, nullAware: Bool = false, chunkSize: Int = Chunk.capacity,
                      selection: Bool = false, probeTypes: [DataType]? = joinTypes) throws -> [Row] {
        let op = HashJoinOperator(kind: kind, probe: source(joinTypes, probe, chunkSize: chunkSize, withSelection: selection),
                                  build: source(joinTypes, build, chunkSize: chunkSize, withSelection: selection),
                                  probeKeys: probeKeys, buildKeys: buildKeys, residual: residual,
                                  buildTypes: joinTypes, probeTypes: probeTypes, nullAware: nullAware, context: QueryContext())
        return try drain(op, maxChunk: 2 * Chunk.capacity)
    }

    private func check(_ kind: JoinKind, _ probe: [Row], _ build: [Row], keys: [Int] = [0],
                       chunkSize: Int = Chunk.capacity, selection: Bool = false, nullAware: Bool = false,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let actual = try join(kind, probe, build, probeKeys: keys, buildKeys: keys, nullAware: nullAware,
                              chunkSize: chunkSize, selection: selection)
        let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: keys, buildKeys: keys,
                                     probeWidth: 3, buildWidth: 3, nullAware: nullAware)
        assertSameRows(actual, expected, "\(kind) keys \(keys) probe \(probe.count) build \(build.count)", file: file, line: line)
    }

    func testAllKindsWithNullsAndDuplicates() throws {
        let probe = joinRows(700, seed: 1, keys: 40)
        let build = joinRows(300, seed: 2, keys: 60)
        for kind in allKinds {
            try check(kind, probe, build)
            try check(kind, probe, build, keys: [0, 1])
            try check(kind, Array(probe.prefix(60)), build, keys: [1])
            try check(kind, probe, build, chunkSize: 13, selection: true)
        }
    }

    func testUniqueBuildKeys() throws {
        // Distinct 64-bit build keys (plus NULLs) take the single-pass path.
        var rng = SeededRandom(seed: 77)
        var build: [Row] = []
        for i in 0..<3000 {
            let key: Value = i % 50 == 0 ? .null : .int(Int64(i * 3))
            build.append([key, .string("b"), .int(Int64(i))])
        }
        var probe: [Row] = []
        for i in 0..<5000 {
            let key: Value = rng.chance(0.05) ? .null : .int(Int64(rng.int(0...9000)))
            probe.append([key, .string("p"), .int(Int64(i))])
        }
        for kind in allKinds {
            try check(kind, probe, build)
            try check(kind, probe, build, chunkSize: 500, selection: true)
            try check(kind, probe, build, nullAware: kind == .anti)
        }
        let residual = BoundExpr.binary(.greater, .column(5, .bigint), .constant(.int(1500), .bigint), .boolean)
        for kind in allKinds {
            let actual = try join(kind, probe, build, residual: residual)
            let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                         probeWidth: 3, buildWidth: 3) { _, b in
                if case .int(let x) = b[2] { return x > 1500 }
                return false
            }
            assertSameRows(actual, expected, "\(kind) unique keys with residual")
        }
    }

    /// Unique keys over a narrow range go through the direct index (key - low → build
    /// row): every kind, NULLs on both sides, negative keys, probe keys just outside the
    /// range and at the extremes of Int64, selections, a residual; keys spread wider than
    /// eight values per key keep the hash table. Two packed integer keys, unique, too.
    func testDirectIndexOfUniqueNarrowKeys() throws {
        var rng = SeededRandom(seed: 31)
        let keys = (-1_000..<1_000).filter { $0 % 3 != 0 }.map { Int64($0) }      // 1,333 keys over 2,000 values
        let build: [Row] = keys.enumerated().map { i, k in
            [i % 40 == 0 ? .null : .int(k), .string("b\(i % 3)"), .int(Int64(i))]
        }
        let specials: [Value] = [.int(-1_001), .int(-1_000), .int(998), .int(999), .int(1_000), .int(.min), .int(.max), .null]
        let probe: [Row] = (0..<4_000).map { i in
            let k: Value = i < specials.count ? specials[i] : rng.chance(0.05) ? .null : .int(Int64(rng.int(-1_100...1_100)))
            return [k, .string("p"), .int(Int64(i))]
        }
        func op(_ kind: JoinKind, _ build: [Row], residual: BoundExpr? = nil, selection: Bool = false) -> HashJoinOperator {
            HashJoinOperator(kind: kind, probe: source(joinTypes, probe, chunkSize: 700, withSelection: selection),
                             build: source(joinTypes, build), probeKeys: [0], buildKeys: [0], residual: residual,
                             buildTypes: joinTypes, probeTypes: joinTypes, context: QueryContext())
        }
        let residual = BoundExpr.binary(.greater, .column(5, .bigint), .constant(.int(600), .bigint), .boolean)
        for kind in allKinds {
            for selection in [false, true] {
                let j = op(kind, build, selection: selection)
                let actual = try drain(j, maxChunk: 2 * Chunk.capacity)
                // A semi join without a residual is its key bitmap alone: no table at all.
                XCTAssertTrue(kind == .semi ? j.keySetOnly && !j.usedDirectIndex : j.usedDirectIndex, "\(kind)")
                assertSameRows(actual, referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                                     probeWidth: 3, buildWidth: 3), "\(kind) selection \(selection)")
            }
            let withResidual = op(kind, build, residual: residual)
            let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                         probeWidth: 3, buildWidth: 3) { _, b in
                if case .int(let x) = b[2] { return x > 600 }
                return false
            }
            assertSameRows(try drain(withResidual, maxChunk: 2 * Chunk.capacity), expected, "\(kind) with residual")
            XCTAssertTrue(withResidual.usedDirectIndex)
        }
        // Eight values or more per key, or a key twice: the hash table.
        let wide: [Row] = (0..<100).map { [.int(Int64($0) * 9), .string("w"), .int(Int64($0))] }
        let twice: [Row] = build + [build[1]]
        for (rows, name) in [(wide, "wide"), (twice, "duplicate")] {
            for kind in allKinds {
                let j = op(kind, rows)
                assertSameRows(try drain(j, maxChunk: 2 * Chunk.capacity),
                               referenceJoin(kind, probe: probe, build: rows, probeKeys: [0], buildKeys: [0],
                                             probeWidth: 3, buildWidth: 3), "\(kind) \(name)")
                XCTAssertFalse(j.usedDirectIndex, "\(kind) \(name)")
            }
        }
        let narrow: [Row] = (0..<100).map { [.int(Int64($0) * 7 - 50), .string("n"), .int(Int64($0))] }
        let j = op(.inner, narrow)
        _ = try drain(j, maxChunk: 2 * Chunk.capacity)
        XCTAssertTrue(j.usedDirectIndex, "seven values per key")
        // A broadcast's partitions share one build, index included.
        for kind in [JoinKind.inner, .left, .semi, .anti] {
            let memory = QueryMemory(budget: nil)
            let shared = SharedHashBuild(users: 3, memory: memory)
            let builds = (0..<3).map { _ in CountingSource(source(joinTypes, build, chunkSize: 500)) }
            let ops = (0..<3).map { p in
                HashJoinOperator(kind: kind, probe: source(joinTypes, probe), build: builds[p], probeKeys: [0],
                                 buildKeys: [0], residual: nil, buildTypes: joinTypes, probeTypes: joinTypes, shared: shared, context: QueryContext(memory: memory))
            }
            let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                         probeWidth: 3, buildWidth: 3)
            for (p, j) in ops.enumerated() {
                assertSameRows(try drain(j, maxChunk: 2 * Chunk.capacity), expected, "\(kind) shared, partition \(p)")
                XCTAssertTrue(kind == .semi ? j.keySetOnly : j.usedDirectIndex, "\(kind) partition \(p)")
            }
            XCTAssertEqual(builds.filter { $0.reads > 0 }.count, 1, "\(kind): one partition builds")
            XCTAssertEqual(memory.usedBytes, 0)
        }
        // Two integer keys packed into one code, unique pairs.
        let pairs: [Row] = (0..<600).map { i in [.int(Int64(i % 30)), .string("q"), .int(Int64(i / 30))] }
        let pairProbe: [Row] = (0..<2_000).map { i in
            [rng.chance(0.05) ? .null : .int(Int64(rng.int(-2...32))), .string("p"), .int(Int64(rng.int(-1...21)))]
        }
        for kind in allKinds {
            let j = HashJoinOperator(kind: kind, probe: source(joinTypes, pairProbe, chunkSize: 300),
                                     build: source(joinTypes, pairs), probeKeys: [0, 2], buildKeys: [0, 2], residual: nil,
                                     buildTypes: joinTypes, probeTypes: joinTypes, context: QueryContext())
            assertSameRows(try drain(j, maxChunk: 2 * Chunk.capacity),
                           referenceJoin(kind, probe: pairProbe, build: pairs, probeKeys: [0, 2], buildKeys: [0, 2],
                                         probeWidth: 3, buildWidth: 3), "\(kind) packed pairs")
            XCTAssertTrue(j.usedDirectIndex, "\(kind) packed pairs")
        }
    }

    func testLargeBuildSidePartitionedLayout() throws {
        // 70,000 build rows: the table is laid out through 256 partitions.
        var rng = SeededRandom(seed: 5)
        var build: [Row] = []
        for i in 0..<70_000 {
            let key: Value = i % 97 == 0 ? .null : .int(Int64(rng.int(0...60_000)))
            build.append([key, .string(i % 2 == 0 ? "x" : "y"), .int(Int64(i))])
        }
        var probe: [Row] = []
        for i in 0..<3000 {
            let key: Value = i % 31 == 0 ? .null : .int(Int64(rng.int(0...70_000)))
            probe.append([key, .string(i % 3 == 0 ? "x" : "y"), .int(Int64(i))])
        }
        for kind in [JoinKind.inner, .left, .semi, .anti] {
            try check(kind, probe, build)
            try check(kind, probe, build, keys: [0, 1])
        }
        try check(.right, Array(probe.prefix(300)), build)
    }

    /// Tables of `prefetchedEntries` or more are probed with prefetches instead of a touch
    /// pass: unique keys spread too wide for a direct index (the one-pass match) and
    /// duplicate keys (the rounds), NULLs on both sides, probe keys missing and outside
    /// the range, pieces of a selection, against the reference join.
    func testLargeTablesAreProbedWithPrefetches() throws {
        let n = HashJoinOperator.prefetchedEntries + 20_000
        var rng = SeededRandom(seed: 9)
        let unique: [Row] = (0..<n).map { i -> Row in
            let key: Value = i % 1_000 == 7 ? .null : .int(Int64(i) * 37 - 5_000)
            return [key, .string(i % 2 == 0 ? "x" : "y"), .int(Int64(i))]
        }
        let duplicated: [Row] = (0..<n).map { i -> Row in
            let key: Value = i % 1_000 == 7 ? .null : .int(Int64(rng.int(0...(n / 2))))
            return [key, .string("d"), .int(Int64(i))]
        }
        let probe: [Row] = (0..<4_000).map { i in
            let key: Value
            switch i % 5 {
            case 0: key = .null
            case 1: key = .int(Int64(rng.int(0...(n - 1))) * 37 - 5_000)
            case 2: key = .int(Int64(rng.int(0...(n / 2))))
            case 3:
                let edges: [Int64] = [Int64.min, Int64.max, -5_001, Int64(n) * 37]
                key = .int(edges[i % 4])
            default: key = .int(Int64(rng.int(-10_000...(n * 37))))
            }
            return [key, .string("p"), .int(Int64(i))]
        }
        for build in [unique, duplicated] {
            for kind in [JoinKind.inner, .left, .semi, .anti] {
                try check(kind, probe, build)
            }
            try check(.inner, probe, build, chunkSize: 700, selection: true)
        }
    }

    func testSmallExample() throws {
        let probe: [Row] = [[.int(1), .string("a"), .int(10)], [.int(2), .string("b"), .int(20)],
                            [.null, .string("c"), .int(30)], [.int(1), .string("d"), .int(40)]]
        let build: [Row] = [[.int(1), .string("p"), .int(100)], [.int(1), .string("q"), .int(200)],
                            [.int(3), .string("r"), .int(300)], [.null, .string("s"), .int(400)]]
        let n3: Row = [.null, .null, .null]
        assertSameRows(try join(.inner, probe, build), [
            [.int(1), .string("a"), .int(10), .int(1), .string("p"), .int(100)],
            [.int(1), .string("a"), .int(10), .int(1), .string("q"), .int(200)],
            [.int(1), .string("d"), .int(40), .int(1), .string("p"), .int(100)],
            [.int(1), .string("d"), .int(40), .int(1), .string("q"), .int(200)],
        ])
        let left = try join(.left, probe, build)
        XCTAssertEqual(left.count, 6)
        XCTAssertTrue(left.contains([.int(2), .string("b"), .int(20)] + n3))
        XCTAssertTrue(left.contains([.null, .string("c"), .int(30)] + n3))
        let right = try join(.right, probe, build)
        XCTAssertEqual(right.count, 6)
        XCTAssertTrue(right.contains(n3 + [.int(3), .string("r"), .int(300)]))
        XCTAssertTrue(right.contains(n3 + [.null, .string("s"), .int(400)]))
        XCTAssertEqual(try join(.full, probe, build).count, 8)
        assertSameRows(try join(.semi, probe, build), [probe[0], probe[3]])
        assertSameRows(try join(.anti, probe, build), [probe[1], probe[2]])
        // NOT IN: the build side has a NULL key, so nothing qualifies.
        XCTAssertEqual(try join(.anti, probe, build, nullAware: true).count, 0)
        // Without the NULL build key, the NULL probe key still does not qualify.
        XCTAssertEqual(try join(.anti, probe, Array(build.prefix(3)), nullAware: true), [probe[1]])
        // Against an empty build side every probe row qualifies, NULL keys included.
        assertSameRows(try join(.anti, probe, [], nullAware: true), probe)
    }

    /// A single BIGINT build key over a small range drops probe rows by a bitmap before
    /// hashing: keys below, above and inside the range (extremes, NULLs) agree with the reference.
    func testKeyBitmapPrefilter() throws {
        let build: [Row] = [5, 7, 1_000, 7, -3].map { [.int(0), .string("b"), .int($0)] } + [[.int(1), .null, .null]]
        let probeKeys: [Value] = [.int(Int64.min), .int(Int64.max), .int(-5), .int(-3), .int(6), .int(7), .int(5),
                                  .int(1_000), .int(1_001), .null, .int(Int64.min + 2), .int(999)]
        let probe: [Row] = probeKeys.enumerated().map { [.int(Int64($0.offset)), .string("p"), $0.element] }
        for kind in allKinds {
            for sel in [false, true] {
                let actual = try join(kind, probe, build, probeKeys: [2], buildKeys: [2], chunkSize: 5, selection: sel)
                let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [2], buildKeys: [2],
                                             probeWidth: 3, buildWidth: 3)
                assertSameRows(actual, expected, "\(kind) selection \(sel)")
            }
        }
    }

    /// Build keys dense over a range too wide for the plain bitmap (a key every 2,000 of 40 M
    /// values, as a slice's order keys at SF 10): the runtime filter is a 5 MB bitmap whose
    /// bytes the join reserves and returns; a budget that holds the table but not the
    /// bitmap gets a Bloom filter, and the same answer.
    func testAWideBitmapIsReservedOrRefused() throws {
        let build: [Row] = (0..<20_000).map { i in [.int(Int64(i) * 2_000 + 11), .string("b"), .int(Int64(i))] }
        let probe: [Row] = (0..<6_000).map { i in [.int(Int64(i) * 6_661 + 11), .string("p"), .int(Int64(i))] }
        let expected = referenceJoin(.inner, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                     probeWidth: 3, buildWidth: 3)
        XCTAssertFalse(expected.isEmpty)
        func run(budget: Int?) throws -> (filter: RuntimeKeyFilter?, peak: Int) {
            let memory = QueryMemory(budget: budget, pool: MemoryPool(limit: nil))
            let slot = RuntimeFilterSlot()
            let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: source(joinTypes, build),
                                      probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes,
                                      runtimeFilters: [(buildKey: 0, slot: slot)], context: QueryContext(memory: memory))
            assertSameRows(try drain(op, maxChunk: 2 * Chunk.capacity), expected, "budget \(budget ?? -1)")
            XCTAssertEqual(memory.usedBytes, 0, "the table and its filter are returned")
            return (slot.filter, memory.peakBytes)
        }
        let bitmapBytes = (39_998_000 / 64 + 1) * 8
        let free = try run(budget: nil)
        XCTAssertNotNil(free.filter?.bits)
        XCTAssertNil(free.filter?.bloom)
        XCTAssertEqual(free.filter?.bits.map { $0.count * 8 }, bitmapBytes)
        XCTAssertGreaterThanOrEqual(free.peak, bitmapBytes, "the bitmap is reserved")
        let tight = try run(budget: free.peak - bitmapBytes / 2)
        XCTAssertNil(tight.filter?.bits)
        XCTAssertNotNil(tight.filter?.bloom)
        XCTAssertLessThan(tight.peak, free.peak - bitmapBytes / 2 + 1)
    }

    func testEmptySides() throws {
        let rows = joinRows(50, seed: 3, keys: 10)
        for kind in allKinds {
            try check(kind, rows, [])
            try check(kind, [], rows)
            try check(kind, [], [])
        }
        // RIGHT/FULL over an empty probe side need the probe types to pad.
        let op = HashJoinOperator(kind: .right, probe: source(joinTypes, []), build: source(joinTypes, rows),
                                  probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        XCTAssertThrowsError(try op.collect())
    }

    func testNullAwareAgainstReference() throws {
        let probe = joinRows(500, seed: 4, keys: 30)
        for build in [joinRows(100, seed: 5, keys: 40, nullRate: 0), joinRows(100, seed: 6, keys: 40), []] {
            try check(.anti, probe, build, nullAware: true)
        }
    }

    func testBoundarySizes() throws {
        for n in boundarySizes {
            let probe = joinRows(n, seed: UInt64(n) + 10, keys: 3000)
            let build = joinRows(min(n, 2049), seed: UInt64(n) + 20, keys: 3000)
            for kind in allKinds { try check(kind, probe, build) }
            let buildBig = joinRows(n, seed: UInt64(n) + 30, keys: 3000)
            try check(.full, Array(probe.prefix(100)), buildBig)
        }
    }

    func testLargeManyToManySpansManyChunks() throws {
        // 10,000 probe rows x 3 matches each = 30,000 output rows.
        let probe: [Row] = (0..<10000).map { [.int(Int64($0 % 100)), .string("p"), .int(Int64($0))] }
        let build: [Row] = (0..<300).map { [.int(Int64($0 % 100)), .string("b"), .int(Int64($0))] }
        let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: source(joinTypes, build),
                                  probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let chunks = try drainChunks(op)
        XCTAssertEqual(chunks.reduce(0) { $0 + $1.count }, 30000)
        XCTAssertGreaterThan(chunks.count, 7)
        XCTAssertTrue(chunks.allSatisfy { $0.count <= 2 * Chunk.capacity })

        // Skew: 3 probe rows hit 5,000 build rows each, in one probe chunk.
        let hot: [Row] = (0..<5000).map { [.int(1), .string("b"), .int(Int64($0))] }
        let probe2: [Row] = (0..<2048).map { [.int($0 < 3 ? 1 : Int64($0) + 10), .string("p"), .int(Int64($0))] }
        for kind in [JoinKind.inner, .left, .full] {
            let op2 = HashJoinOperator(kind: kind, probe: source(joinTypes, probe2), build: source(joinTypes, hot),
                                       probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
            let chunks2 = try drainChunks(op2)
            XCTAssertTrue(chunks2.allSatisfy { $0.count <= 2 * Chunk.capacity }, "\(kind)")
            let expected = 15000 + (kind == .inner ? 0 : 2045)
            XCTAssertEqual(chunks2.reduce(0) { $0 + $1.count }, expected, "\(kind)")
        }
        // Probe chunks larger than Chunk.capacity are cut into pieces.
        let wide = Chunk(columns: columns(joinTypes, probe), count: probe.count)
        let op3 = HashJoinOperator(kind: .left, probe: ChunkSource([wide]), build: source(joinTypes, build),
                                   probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let chunks3 = try drainChunks(op3)
        XCTAssertEqual(chunks3.reduce(0) { $0 + $1.count }, 30000)
        XCTAssertTrue(chunks3.allSatisfy { $0.count <= 2 * Chunk.capacity })
    }

    func testSemiAntiPassProbeChunkThroughWithSelection() throws {
        let probe: [Row] = (0..<1_000).map { [.int(Int64($0)), .string("p"), .int(Int64($0))] }
        let build: [Row] = (0..<500).map { [.int(Int64($0 * 2)), .string("b"), .int(0)] }
        let op = HashJoinOperator(kind: .semi, probe: source(joinTypes, probe), build: source(joinTypes, build),
                                  probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let chunks = try drainChunks(op)
        XCTAssertEqual(chunks.count, 1)
        XCTAssertEqual(chunks[0].selection?.count, 500)
        XCTAssertEqual(chunks[0].columns.count, 3)
        // Fewer rows than `smallOutput` are merged into a chunk of their own (a copy).
        let few = HashJoinOperator(kind: .anti, probe: source(joinTypes, Array(probe.prefix(100))),
                                   build: source(joinTypes, build), probeKeys: [0], buildKeys: [0], residual: nil,
                                   buildTypes: joinTypes, context: QueryContext())
        let merged = try drainChunks(few)
        XCTAssertEqual(merged.count, 1)
        XCTAssertNil(merged[0].selection)
        XCTAssertEqual(merged[0].count, 50)
        XCTAssertEqual((0..<50).map { merged[0].value(row: $0, column: 0) }, (0..<50).map { .int(Int64($0 * 2 + 1)) })
    }

    func testConstantProbeKeyAndRightJoinTypesFromProbe() throws {
        let build: [Row] = (0..<10).map { [.int(Int64($0 % 4)), .string("b"), .int(Int64($0))] }
        let constKey = Chunk(columns: [Vector.constant(.int(2), type: .integer), column(.varchar(20), [.string("p"), .string("q")]),
                                       column(.bigint, [.int(7), .int(8)])], count: 2)
        let op = HashJoinOperator(kind: .right, probe: ChunkSource([constKey]), build: source(joinTypes, build),
                                  probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let out = try drain(op)
        let probeRows: [Row] = [[.int(2), .string("p"), .int(7)], [.int(2), .string("q"), .int(8)]]
        assertSameRows(out, referenceJoin(.right, probe: probeRows, build: build, probeKeys: [0], buildKeys: [0],
                                          probeWidth: 3, buildWidth: 3))
    }

    func testTypedKeys() throws {
        // DATE, DECIMAL(25,2) (Int128), DOUBLE, BOOLEAN keys.
        for t: DataType in [.date, .decimal(precision: 25, scale: 2), .double, .boolean, .char(4)] {
            let types: [DataType] = [t, .bigint]
            func v(_ i: Int) -> Value {
                switch t.physical {
                case .int64: return .int(Int64(i))
                case .int128: return .int128(Int128(i) * 1_000_000_000_000_000_000)
                case .double: return .double(Double(i) / 4)
                case .bool: return .bool(i % 2 == 0)
                case .string: return .string("k\(i)")
                }
            }
            let probe: [Row] = (0..<200).map { [$0 % 11 == 0 ? .null : v($0 % 17), .int(Int64($0))] }
            let build: [Row] = (0..<60).map { [$0 % 13 == 0 ? .null : v($0 % 23), .int(Int64($0))] }
            for kind in allKinds {
                let op = HashJoinOperator(kind: kind, probe: source(types, probe), build: source(types, build),
                                          probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: types, context: QueryContext())
                assertSameRows(try drain(op, maxChunk: 2 * Chunk.capacity),
                               referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                             probeWidth: 2, buildWidth: 2), "\(t) \(kind)")
            }
        }
    }

    func testResidualPredicate() throws {
        // ON p.k = b.k AND b.payload > 150 (build payload is column 5 of the combined row).
        let residual = BoundExpr.binary(.greater, .column(5, .bigint), .constant(.int(150), .bigint), .boolean)
        let probe = joinRows(400, seed: 8, keys: 20)
        let build = joinRows(300, seed: 9, keys: 20)
        do {
            for kind in allKinds {
                let actual = try join(kind, probe, build, residual: residual)
                let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                             probeWidth: 3, buildWidth: 3) { _, b in
                    if case .int(let x) = b[2] { return x > 150 }
                    return false
                }
                assertSameRows(actual, expected, "\(kind) with residual")
            }
            // Many key matches per probe row, few passing the residual: several flushes per piece.
            let hot: [Row] = (0..<2000).map { [.int(Int64($0 % 2)), .string("b"), .int(Int64($0))] }
            let probe2: [Row] = (0..<300).map { [.int(Int64($0 % 3)), .string("p"), .int(Int64($0))] }
            let late = BoundExpr.binary(.greater, .column(5, .bigint), .constant(.int(1990), .bigint), .boolean)
            for kind in allKinds {
                let actual = try join(kind, probe2, hot, residual: late)
                let expected = referenceJoin(kind, probe: probe2, build: hot, probeKeys: [0], buildKeys: [0],
                                             probeWidth: 3, buildWidth: 3) { _, b in
                    if case .int(let x) = b[2] { return x > 1990 }
                    return false
                }
                assertSameRows(actual, expected, "\(kind) with selective residual")
            }
        }
    }

    /// Two integer keys whose build-side ranges fit in 64 bits together are matched by one
    /// packed code (`KeyPacking`): negative keys, keys beyond the build side's ranges on
    /// either end, NULLs in either key, duplicates, unique keys, a residual, and ranges too
    /// wide to pack (hashed as before) all agree with the reference.
    /// Probe rows whose keys each occur on the build side, but not as a pair (TPC-DS q72:
    /// items and dates of inventory against the sales of those items in those weeks), are
    /// dropped by the packed codes' filter before hashing; the answer is the same.
    func testPackedKeyPairsFilterTheProbeSide() throws {
        var rng = SeededRandom(seed: 17)
        var pairs = Set<[Int64]>()
        while pairs.count < 500 { pairs.insert([Int64(rng.int(0...199)), Int64(rng.int(0...99))]) }
        let build: [Row] = pairs.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }.map { [.int($0[0]), .string("b"), .int($0[1])] }
        var probe: [Row] = (0..<40_000).map { i in [.int(Int64(rng.int(0...199))), .string("p\(i % 5)"), .int(Int64(rng.int(0...99)))] }
        probe += [[.null, .string("n"), .int(3)], [.int(3), .string("n"), .null]]
        for kind in allKinds {
            try check(kind, probe, build, keys: [0, 2])
        }
        let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: source(joinTypes, build),
                                  probeKeys: [0, 2], buildKeys: [0, 2], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let rows = try drain(op, maxChunk: 2 * Chunk.capacity)
        let expected = referenceJoin(.inner, probe: probe, build: build, probeKeys: [0, 2], buildKeys: [0, 2],
                                     probeWidth: 3, buildWidth: 3)
        assertSameRows(rows, expected, "inner join on packed pairs")
        XCTAssertEqual(op.codeFilterChecked, probe.count, "every probe row is checked")
        XCTAssertLessThan(op.codeFilterKept, probe.count / 10, "about 2.5% of the pairs exist: the rest are dropped")
        XCTAssertGreaterThanOrEqual(op.codeFilterKept, expected.count)

        // Pairs that nearly all exist: the filter keeps most rows and switches itself off.
        var all: [Row] = []
        for a in 0..<200 { for b in 0..<100 { all.append([.int(Int64(a)), .string("b"), .int(Int64(b))]) } }
        let dense = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: source(joinTypes, all),
                                     probeKeys: [0, 2], buildKeys: [0, 2], residual: nil, buildTypes: joinTypes, context: QueryContext())
        XCTAssertEqual(try drain(dense, maxChunk: 2 * Chunk.capacity).count, probe.count - 2)
        XCTAssertLessThan(dense.codeFilterChecked, probe.count, "off once it has kept most of 32 Ki rows")
    }

    /// The partitions of a broadcast join share one hash table (`SharedHashBuild`): one
    /// reads its build side and builds, the others wait and probe that table without
    /// reading theirs; each partition's answer is the reference's, and the table's memory
    /// is returned once the last partition is done. Kinds that mark build rows never share.
    func testPartitionsOfABroadcastShareOneBuild() throws {
        var rng = SeededRandom(seed: 23)
        let build: [Row] = (0..<3_000).map { i in
            [rng.chance(0.03) ? .null : .int(Int64(rng.int(0...999))), .string("b\(i % 3)"), .int(Int64(i))]
        }
        let probes: [[Row]] = (0..<4).map { p in
            (0..<5_000).map { i in [rng.chance(0.02) ? .null : .int(Int64(rng.int(0...1_999))), .string("p\(p)"), .int(Int64(i))] }
        }
        for kind in allKinds {
            let memory = QueryMemory(budget: nil)
            let context = QueryContext(memory: memory)
            let shared = SharedHashBuild(users: probes.count, memory: memory)
            let builds = probes.map { _ in CountingSource(source(joinTypes, build, chunkSize: 500)) }
            let ops = probes.indices.map { p in
                HashJoinOperator(kind: kind, probe: source(joinTypes, probes[p]), build: builds[p], probeKeys: [0],
                                 buildKeys: [0], residual: nil, buildTypes: joinTypes, shared: shared, context: context)
            }
            let results = ResultBox(count: ops.count)
            let operators = UncheckedOperators(ops)
            DispatchQueue.concurrentPerform(iterations: ops.count) { p in
                results.set(p, Result { try drain(operators.ops[p], maxChunk: 2 * Chunk.capacity) })
            }
            for p in ops.indices {
                let expected = referenceJoin(kind, probe: probes[p], build: build, probeKeys: [0], buildKeys: [0],
                                             probeWidth: 3, buildWidth: 3)
                assertSameRows(try results.get(p), expected, "\(kind) join, partition \(p)")
            }
            let readers = builds.filter { $0.reads > 0 }.count
            switch kind {
            case .inner, .left, .semi, .anti:
                XCTAssertEqual(readers, 1, "\(kind): one partition builds")
            default:
                XCTAssertEqual(readers, ops.count, "\(kind) marks build rows: every partition builds its own")
            }
            XCTAssertEqual(memory.usedBytes, 0, "\(kind): the table's memory is returned")
            XCTAssertGreaterThan(memory.peakBytes, 0)
        }
    }

    /// A builder that fails hands the build back: the other partitions build their own.
    func testAFailedSharedBuildLeavesTheOthersToBuildTheirOwn() throws {
        let build: [Row] = (0..<100).map { i in [.int(Int64(i)), .string("b"), .int(Int64(i))] }
        let probe: [Row] = (0..<300).map { i in [.int(Int64(i % 150)), .string("p"), .int(Int64(i))] }
        let shared = SharedHashBuild(users: 3, memory: QueryMemory(budget: nil))
        let failing = FailingSource()
        let first = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: failing, probeKeys: [0],
                                     buildKeys: [0], residual: nil, buildTypes: joinTypes, shared: shared, context: QueryContext())
        XCTAssertThrowsError(try first.next())
        let expected = referenceJoin(.inner, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                     probeWidth: 3, buildWidth: 3)
        for _ in 0..<2 {
            let own = CountingSource(source(joinTypes, build))
            let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: own, probeKeys: [0],
                                      buildKeys: [0], residual: nil, buildTypes: joinTypes, shared: shared, context: QueryContext())
            assertSameRows(try drain(op), expected, "after a failed build")
            XCTAssertGreaterThan(own.reads, 0, "built its own")
        }
    }

    func testTwoIntegerKeysPacked() throws {
        var rng = SeededRandom(seed: 91)
        func rows(_ n: Int, _ k0: ClosedRange<Int>, _ k2: ClosedRange<Int>, nulls: Double) -> [Row] {
            (0..<n).map { i in
                let a: Value = rng.chance(nulls) ? .null : .int(Int64(rng.int(k0)))
                let b: Value = rng.chance(nulls) ? .null : .int(Int64(rng.int(k2)))
                return [a, .string("r\(i % 7)"), b]
            }
        }
        let build = rows(900, -20...40, -1_000...1_000, nulls: 0.05)
        let probe = rows(2_500, -30...50, -1_200...1_200, nulls: 0.05)
        for kind in allKinds {
            try check(kind, probe, build, keys: [0, 2])
            try check(kind, probe, build, keys: [0, 2], chunkSize: 97, selection: true)
            try check(kind, probe, build, keys: [2, 0])
        }
        // Unique pairs on the build side (the single-pass path), probed with extremes.
        var unique: [Row] = []
        for a in 0..<30 { for b in 0..<40 { unique.append([.int(Int64(a * 3)), .string("u"), .int(Int64(b * 1_000 - 7_000))]) } }
        let extremes: [Value] = [.int(Int64.min), .int(Int64.max), .int(-7_000), .int(32_000), .int(33_000), .int(-7_001), .null]
        var edge: [Row] = []
        for (i, x) in extremes.enumerated() {
            for a in [Int64.min, -3, 0, 3, 87, 88, 90, Int64.max] { edge.append([.int(a), .string("e\(i)"), x]) }
        }
        for kind in allKinds {
            try check(kind, edge + probe, unique, keys: [0, 2])
        }
        // The residual sees the right pairs.
        let residual = BoundExpr.binary(.greater, .column(5, .bigint), .constant(.int(0), .bigint), .boolean)
        for kind in allKinds {
            let actual = try join(kind, probe, build, probeKeys: [0, 2], buildKeys: [0, 2], residual: residual)
            let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [0, 2], buildKeys: [0, 2],
                                         probeWidth: 3, buildWidth: 3) { _, b in
                if case .int(let x) = b[2] { return x > 0 }
                return false
            }
            assertSameRows(actual, expected, "\(kind) packed keys with residual")
        }
        // Build keys spanning all of Int64 in one column: too wide to pack, hashed instead.
        let wide: [Row] = [[.int(1), .string("w"), .int(Int64.min)], [.int(1), .string("w"), .int(Int64.max)],
                           [.int(2), .string("w"), .int(0)]]
        let wideProbe: [Row] = [[.int(1), .string("p"), .int(Int64.min)], [.int(1), .string("p"), .int(Int64.max)],
                                [.int(2), .string("p"), .int(0)], [.int(2), .string("p"), .int(Int64.max)]]
        for kind in allKinds {
            try check(kind, wideProbe, wide, keys: [0, 2])
        }
    }

    /// A selective join's few rows per probe chunk go up merged into larger chunks, in the
    /// order the probe side produced them, large chunks included.
    func testSmallOutputChunksAreMergedInOrder() throws {
        // Unique build keys 0, 100, 200, ...; probe rows 0..<20_000 in chunks of 2,048.
        let build: [Row] = (0..<200).map { [.int(Int64($0 * 100)), .string("b"), .int(Int64($0))] }
        let probe: [Row] = (0..<20_000).map { [.int(Int64($0)), .string("p"), .int(Int64($0))] }
        let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: source(joinTypes, build),
                                  probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let chunks = try drainChunks(op)
        XCTAssertEqual(chunks.map { $0.count }.reduce(0, +), 200)
        XCTAssertEqual(chunks.count, 1, "200 rows from 10 probe chunks arrive as one chunk")
        var keys: [Value] = []
        for c in chunks { for i in 0..<c.count { keys.append(c.value(row: i, column: 0)) } }
        XCTAssertEqual(keys, (0..<200).map { .int(Int64($0 * 100)) })

        // Probe chunks that match wholly and ones that match a few rows, alternating: the
        // output keeps the probe order exactly.
        let dense: [Row] = (0..<4_000).map { [.int(Int64($0)), .string("d"), .int(Int64($0))] }
        var mixed: [Row] = []
        for part in 0..<6 {
            if part % 2 == 0 {
                mixed += (0..<Chunk.capacity).map { [.int(Int64(($0 + part * 37) % 4_000)), .string("m"), .int(Int64(part))] }
            } else {
                mixed += (0..<Chunk.capacity).map { [.int(Int64($0 % 500 == 0 ? $0 : 10_000 + $0)), .string("m"), .int(Int64(part))] }
            }
        }
        let op2 = HashJoinOperator(kind: .inner, probe: source(joinTypes, mixed), build: source(joinTypes, dense),
                                   probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes, context: QueryContext())
        let out = try drain(op2, maxChunk: 2 * Chunk.capacity)
        let expected = referenceJoin(.inner, probe: mixed, build: dense, probeKeys: [0], buildKeys: [0],
                                     probeWidth: 3, buildWidth: 3)
        XCTAssertEqual(out, expected, "rows in probe order")
    }

    /// A join whose exact key bitmap is the whole join builds no table (`keySetOnly`): an
    /// inner join with unique keys and no build column read, or a semi join (duplicate
    /// keys and all). NULL keys on either side never match, probe chunks with selections
    /// pass through, and unread positions stay placeholders. Duplicate keys in an inner
    /// join, a build column read, a residual, an outer kind or keys too sparse for an exact
    /// bitmap keep the table, with the same answers.
    func testAJoinThatIsItsKeyBitmapBuildsNoTable() throws {
        var rng = SeededRandom(seed: 31)
        let unique: [Row] = (0..<1_000).map { i in
            [i % 97 == 5 ? .null : .int(Int64(i) * 3), .string("b"), .int(Int64(i))]
        }
        let duplicated = unique + unique.prefix(10)
        let sparse: [Row] = (0..<1_000).map { i in [.int(Int64(i) * 100_003), .string("b"), .int(Int64(i))] }
        let probe: [Row] = (0..<5_000).map { i in
            [rng.chance(0.05) ? .null : .int(Int64(rng.int(-10...3_100))), .string("p"), .int(Int64(i))]
        }
        let probeOfSparse: [Row] = (0..<3_000).map { i in
            [.int(Int64(rng.int(0...1_100)) * 100_003 + (i % 2 == 0 ? 0 : 1)), .string("p"), .int(Int64(i))]
        }
        let residual = BoundExpr.binary(.greater, .column(2, .bigint), .column(5, .bigint), .boolean)
        let innerMask = [true, false, true, false, false, false]
        struct Case {
            var kind: JoinKind; var build: [Row]; var probe: [Row]; var mask: [Bool]?
            var residual: Bool = false; var keySet: Bool; var label: String
        }
        let cases = [
            Case(kind: .inner, build: unique, probe: probe, mask: innerMask, keySet: true, label: "inner, unique"),
            Case(kind: .semi, build: duplicated, probe: probe, mask: nil, keySet: true, label: "semi, duplicates"),
            Case(kind: .semi, build: unique, probe: probe, mask: [false, true, true], keySet: true, label: "semi, masked"),
            Case(kind: .inner, build: duplicated, probe: probe, mask: innerMask, keySet: false, label: "inner, duplicates"),
            Case(kind: .inner, build: unique, probe: probe, mask: [true, false, true, false, false, true], keySet: false,
                 label: "inner, a build column read"),
            Case(kind: .inner, build: unique, probe: probe, mask: nil, keySet: false, label: "inner, every column read"),
            Case(kind: .inner, build: unique, probe: probe, mask: innerMask, residual: true, keySet: false,
                 label: "inner, residual"),
            Case(kind: .left, build: unique, probe: probe, mask: innerMask, keySet: false, label: "left"),
            Case(kind: .anti, build: unique, probe: probe, mask: nil, keySet: false, label: "anti"),
            Case(kind: .inner, build: sparse, probe: probeOfSparse, mask: innerMask, keySet: false, label: "sparse keys"),
        ]
        func payloadGreater(_ p: Row, _ b: Row) -> Bool {
            if case .int(let x) = p[2], case .int(let y) = b[2] { return x > y }
            return false
        }
        for c in cases {
            for selection in [false, true] {
                let label = "\(c.label), selection \(selection)"
                let op = HashJoinOperator(kind: c.kind, probe: source(joinTypes, c.probe, chunkSize: 300, withSelection: selection),
                                          build: source(joinTypes, c.build, chunkSize: 300), probeKeys: [0], buildKeys: [0],
                                          residual: c.residual ? residual : nil, buildTypes: joinTypes,
                                          probeTypes: joinTypes, readOutputs: c.mask, context: QueryContext())
                let width = c.kind == .semi || c.kind == .anti ? 3 : 6
                let mask = c.mask ?? [Bool](repeating: true, count: width)
                var actual: [Row] = []
                for chunk in try drainChunks(op) {
                    XCTAssertEqual(chunk.columns.count, width, label)
                    XCTAssertLessThanOrEqual(chunk.count, Chunk.capacity, label)
                    for (i, v) in chunk.columns.enumerated() where !mask[i] {
                        XCTAssertTrue(v.isConstant && v.isNull(0), "position \(i) is a placeholder: \(label)")
                    }
                    for r in 0..<chunk.count {
                        actual.append((0..<width).map { mask[$0] ? chunk.value(row: r, column: $0) : .null })
                    }
                }
                XCTAssertEqual(op.keySetOnly, c.keySet, label)
                let expected = referenceJoin(c.kind, probe: c.probe, build: c.build, probeKeys: [0], buildKeys: [0],
                                             probeWidth: 3, buildWidth: 3, residual: c.residual ? payloadGreater : nil)
                    .map { row in row.enumerated().map { mask[$0.offset] ? $0.element : .null } }
                XCTAssertFalse(expected.isEmpty, label)
                assertSameRows(actual, expected, label)
            }
        }
        // Empty probe side; one probe row; a build side of NULL keys only (matches nothing).
        let one: [Row] = [[.int(3), .string("p"), .int(0)]]
        for (p, b, rows) in [([Row](), unique, 0), (one, unique, 1), (one, [[.null, .string("b"), .int(1)]] as [Row], 0)] {
            let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, p), build: source(joinTypes, b),
                                      probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes,
                                      probeTypes: joinTypes, readOutputs: innerMask, context: QueryContext())
            XCTAssertEqual(try drain(op).count, rows)
        }
        // Partitions sharing a build: the one that builds and the ones that read it alike.
        let shared = SharedHashBuild(users: 3, memory: QueryMemory(budget: nil))
        let expected = referenceJoin(.inner, probe: probe, build: unique, probeKeys: [0], buildKeys: [0],
                                     probeWidth: 3, buildWidth: 3).map { row in row.enumerated().map { innerMask[$0.offset] ? $0.element : .null } }
        for partition in 0..<3 {
            let op = HashJoinOperator(kind: .inner, probe: source(joinTypes, probe), build: source(joinTypes, unique),
                                      probeKeys: [0], buildKeys: [0], residual: nil, buildTypes: joinTypes,
                                      probeTypes: joinTypes, shared: shared, readOutputs: innerMask, context: QueryContext())
            let rows = try drain(op).map { row in row.enumerated().map { innerMask[$0.offset] ? $0.element : .null } }
            XCTAssertTrue(op.keySetOnly, "partition \(partition)")
            assertSameRows(rows, expected, "partition \(partition)")
        }
    }

    /// Output positions nothing above reads (`readOutputs` false) are one-row constant
    /// NULL placeholders in every output chunk, for every kind and path (pairs, unmatched
    /// probe and build rows, semi/anti pass-through, merged small chunks, a build side that
    /// spills); the read positions carry the reference join's values, also when the
    /// residual reads a column nothing above reads, and the table keeps only the build
    /// columns it needs.
    func testUnreadOutputsArePlaceholders() throws {
        let probe = joinRows(900, seed: 11, keys: 50)
        let build = joinRows(400, seed: 12, keys: 70)
        // Probe column 2 > build column 2 (combined positions 2 and 5).
        let residual = BoundExpr.binary(.greater, .column(2, .bigint), .column(5, .bigint), .boolean)
        func payloadGreater(_ p: Row, _ b: Row) -> Bool {
            if case .int(let x) = p[2], case .int(let y) = b[2] { return x > y }
            return false
        }
        for kind in allKinds {
            let width = kind == .semi || kind == .anti || kind == .rightSemi || kind == .rightAnti ? 3 : 6
            let masks: [[Bool]] = width == 3
                ? [[true, false, false], [false, false, true], [false, false, false]]
                : [[false, true, false, false, false, true], [true, false, false, false, true, false],
                   [false, false, false, false, false, false]]
            for mask in masks {
                for withResidual in [false, true] {
                    for budget in [nil, 8 << 10] as [Int?] {
                        let spill = TemporarySpill()
                        let context = budget.map { spill.context(budget: $0) } ?? QueryContext()
                        let op = HashJoinOperator(kind: kind, probe: source(joinTypes, probe, chunkSize: 300, withSelection: true),
                                                  build: source(joinTypes, build, chunkSize: 300), probeKeys: [0], buildKeys: [0],
                                                  residual: withResidual ? residual : nil, buildTypes: joinTypes,
                                                  probeTypes: joinTypes, readOutputs: mask, context: context)
                        var actual: [Row] = []
                        let label = "\(kind) mask \(mask) residual \(withResidual) budget \(budget.map(String.init) ?? "none")"
                        for c in try drainChunks(op) {
                            XCTAssertEqual(c.columns.count, width, label)
                            for (i, v) in c.columns.enumerated() where !mask[i] {
                                XCTAssertTrue(v.isConstant && v.isNull(0), "position \(i) is a placeholder: \(label)")
                            }
                            for r in 0..<c.count {
                                actual.append((0..<width).map { mask[$0] ? c.value(row: r, column: $0) : .null })
                            }
                        }
                        let expected = referenceJoin(kind, probe: probe, build: build, probeKeys: [0], buildKeys: [0],
                                                     probeWidth: 3, buildWidth: 3,
                                                     residual: withResidual ? payloadGreater : nil)
                            .map { row in row.enumerated().map { mask[$0.offset] ? $0.element : .null } }
                        assertSameRows(actual, expected, label)
                        if budget != nil { XCTAssertGreaterThan(op.spilledBytes, 0, "the build side spills: \(label)") }
                    }
                }
            }
        }
    }
}

/// A grace hash join's spill files: partitions' rows gathered into whole frames, and a
/// join short of memory the rest of the plan holds.
final class GraceHashJoinTests: XCTestCase {
    // No NULL keys: they all land in one partition, which then outgrows the others.
    let probe = joinRows(40_000, seed: 21, keys: 30_000, nullRate: 0)
    let build = joinRows(40_000, seed: 22, keys: 30_000, nullRate: 0)

    func join(_ context: QueryContext, build rows: [Row]) -> HashJoinOperator {
        HashJoinOperator(kind: .inner, probe: source(joinTypes, probe, chunkSize: 300),
                         build: source(joinTypes, rows, chunkSize: 300), probeKeys: [0], buildKeys: [0],
                         residual: nil, buildTypes: joinTypes, probeTypes: joinTypes, context: context)
    }

    func expected(_ rows: [Row]) -> [Row] {
        referenceJoin(.inner, probe: probe, build: rows, probeKeys: [0], buildKeys: [0], probeWidth: 3, buildWidth: 3)
    }

    /// Chunks of 300 rows give each of 16 partitions about 19: written as they came, a
    /// side took 134 × 16 frames. Gathered, each partition's 2,500 rows are 3 frames.
    func testPartitionsAreWrittenInWholeFrames() throws {
        let spill = TemporarySpill()
        let op = join(spill.context(budget: 1 << 20), build: build)
        assertSameRows(try drain(op), expected(build))
        XCTAssertGreaterThan(op.spilledBytes, 0)
        XCTAssertEqual(op.spilledBelowTopLevel, 0, "each partition fits the budget")
        // Both sides, 16 partitions, 1 to 3 frames each (the hash spreads the rows unevenly).
        XCTAssertGreaterThanOrEqual(op.spilledFrames, 2 * 16)
        XCTAssertLessThanOrEqual(op.spilledFrames, 2 * 16 * 3)
    }

    /// Rows with a NULL key never match: a side whose unmatched rows the join does not
    /// keep writes none of them; a side whose unmatched rows it keeps writes them, and
    /// they come out padded. Half the rows of each side have one: a full join writes
    /// every row, a left join a quarter less (the build side's half), an inner join half.
    func testRowsWithANullKeyAreNotSpilledUnlessKept() throws {
        let p = joinRows(40_000, seed: 31, keys: 30_000, nullRate: 0.5)
        let b = joinRows(40_000, seed: 32, keys: 30_000, nullRate: 0.5)
        var spilled: [JoinKind: Int] = [:]
        for kind in [JoinKind.full, .left, .inner] {
            let spill = TemporarySpill()
            let op = HashJoinOperator(kind: kind, probe: source(joinTypes, p, chunkSize: 300),
                                      build: source(joinTypes, b, chunkSize: 300), probeKeys: [0], buildKeys: [0],
                                      residual: nil, buildTypes: joinTypes, probeTypes: joinTypes, context: spill.context(budget: 1 << 20))
            assertSameRows(try drain(op), referenceJoin(kind, probe: p, build: b, probeKeys: [0], buildKeys: [0],
                                                        probeWidth: 3, buildWidth: 3), "\(kind)")
            XCTAssertGreaterThan(op.spilledBytes, 0, "\(kind)")
            spilled[kind] = op.spilledBytes
        }
        let full = spilled[.full] ?? 0, left = spilled[.left] ?? 0, inner = spilled[.inner] ?? 0
        XCTAssertLessThan(inner, full * 6 / 10, "both sides leave their NULL keys out")
        XCTAssertLessThan(left, full * 9 / 10, "the build side leaves them out")
        XCTAssertGreaterThan(left, full * 6 / 10, "the probe side keeps them")
    }

    /// The budget is 1 MB and the rest of the plan holds all but 32 KB of it. A table
    /// under an eighth of the budget is held anyway (counted); a bigger one spills once,
    /// and its partitions, each under the eighth, are joined without spilling again (they
    /// spilled down to the last level, each refused after a few kilobytes).
    func testAJoinShortOfMemoryTheRestOfThePlanHoldsSpillsOnlyOnce() throws {
        let budget = 1 << 20
        for (rows, spills) in [(2_000, false), (20_000, true)] {
            let spill = TemporarySpill()
            let context = spill.context(budget: budget)
            let elsewhere = MemoryReservation(context.memory)
            XCTAssertTrue(elsewhere.tryResize(to: budget - (32 << 10)))
            let side = Array(build.prefix(rows))
            let op = join(context, build: side)
            assertSameRows(try drain(op), expected(side), "\(rows) build rows")
            XCTAssertEqual(op.spilledBytes > 0, spills, "\(rows) build rows")
            XCTAssertEqual(op.spilledBelowTopLevel, 0, "\(rows) build rows")
            if !spills { XCTAssertGreaterThan(op.memoryPeak, 32 << 10, "held past the budget, counted") }
            elsewhere.free()
        }
    }
}

/// Counts the chunks read from a source (from several threads).
final class CountingSource: Operator, @unchecked Sendable {
    private let input: Operator
    private let lock = NSLock()
    private var count = 0
    init(_ input: Operator) { self.input = input }
    var reads: Int { lock.lock(); defer { lock.unlock() }; return count }
    func next() throws -> Chunk? {
        lock.lock(); count += 1; lock.unlock()
        return try input.next()
    }
}

/// A build side that fails on its first read.
final class FailingSource: Operator {
    func next() throws -> Chunk? { throw SQLError.internalError("build side failed") }
}

/// Results set from concurrent workers.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<[Row], Error>?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<[Row], Error>) { lock.lock(); results[i] = r; lock.unlock() }
    func get(_ i: Int) throws -> [Row] {
        lock.lock(); defer { lock.unlock() }
        guard let r = results[i] else { throw SQLError.internalError("no result") }
        return try r.get()
    }
}

/// Operators handed to concurrent workers, one each.
struct UncheckedOperators: @unchecked Sendable {
    let ops: [HashJoinOperator]
    init(_ ops: [HashJoinOperator]) { self.ops = ops }
}
