// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution
import SlicehouseRuntime

// MARK: - Reference implementation (slow, obviously correct)

/// SQL ordering of two non-NULL values of one type.
func valueLess(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.int(let x), .int(let y)): return x < y
    case (.int128(let x), .int128(let y)): return x < y
    case (.double(let x), .double(let y)): return x < y || (y.isNaN && !x.isNaN)
    case (.bool(let x), .bool(let y)): return !x && y
    case (.string(let x), .string(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
    default: return false
    }
}

func referenceAggregate(_ rows: [Row], groups: [Int], aggs: [BoundAggregate]) -> [Row] {
    var order: [[Value]] = []
    var members: [[Value]: [Row]] = [:]
    if groups.isEmpty { order.append([]); members[[]] = [] }
    for r in rows {
        let key = groups.map { r[$0] }
        if members[key] == nil { order.append(key); members[key] = [] }
        members[key]!.append(r)
    }
    return order.map { key in
        let rs = members[key]!
        return key + aggs.map { referenceValue($0, rs) }
    }
}

private func referenceValue(_ agg: BoundAggregate, _ all: [Row]) -> Value {
    // A filtered aggregate folds the rows whose filter column is TRUE.
    let rows = agg.filter.map { f in all.filter { $0[f] == .bool(true) } } ?? all
    if agg.function == .countStar { return .int(Int64(rows.count)) }
    var values = rows.map { $0[agg.argument!] }.filter { !$0.isNull }
    if agg.distinct {
        var seen = Set<Value>()
        values = values.filter { seen.insert($0).inserted }
    }
    let t = agg.argumentType!
    switch agg.function {
    case .countStar, .count:
        return .int(Int64(values.count))
    case .min:
        return values.min(by: valueLess) ?? .null
    case .max:
        return values.max(by: valueLess) ?? .null
    case .sum, .avg:
        if values.isEmpty { return .null }
        let isAvg = agg.function == .avg
        if t.isFloat {
            let s = values.reduce(0.0) { $0 + $1.asDouble! }
            return .double(isAvg ? s / Double(values.count) : s)
        }
        let s = values.reduce(Int128(0)) { $0 + $1.asInt128! }
        let c = Int128(values.count)
        if t.isInteger {
            return .int(Int64(isAvg ? s / c : s))
        }
        if !isAvg { return .int128(s) }
        var q = s / c
        let r = s % c
        if r.magnitude * 2 >= c.magnitude { q += s < 0 ? -1 : 1 }
        return .int128(q)
    case .bitAnd, .bitOr:
        guard let first = values.first?.asInt64 else { return .null }
        return .int(values.dropFirst().reduce(first) { agg.function == .bitAnd ? $0 & ($1.asInt64 ?? 0) : $0 | ($1.asInt64 ?? 0) })
    case .percentileCont, .percentileDisc, .listagg, .approximateCountDistinct, .hllCreateSketch, .hllCombine:
        return .null  // OrderedSetAggregateTests has their references
    }
}

func agg(_ fn: AggregateFunction, _ arg: Int?, _ types: [DataType], distinct: Bool = false) -> BoundAggregate {
    guard let arg else {
        return BoundAggregate(function: .countStar, argument: nil, argumentType: nil, distinct: false, resultType: .bigint)
    }
    let t = types[arg]
    let r = try! AggregateFunction.resolve(name: fn.rawValue, argTypes: [t], distinct: distinct, star: false)
    return BoundAggregate(function: fn, argument: arg, argumentType: t, distinct: distinct, resultType: r.result)
}

// MARK: - Test data

/// Columns: 0 g INTEGER, 1 s VARCHAR, 2 x BIGINT, 3 d DECIMAL(12,2), 4 f DOUBLE,
/// 5 t VARCHAR, 6 b BOOLEAN, 7 dt DATE, 8 w DECIMAL(30,3), 9 sm SMALLINT.
let mixedTypes: [DataType] = [.integer, .varchar(40), .bigint, .decimal(precision: 12, scale: 2), .double,
                              .varchar(40), .boolean, .date, .decimal(precision: 30, scale: 3), .smallint]

func mixedRows(_ n: Int, seed: UInt64 = 1, groups: Int = 20) -> [Row] {
    var rng = SeededRandom(seed: seed)
    let words = ["a", "bb", "ccc", "", "prefix-equal-1", "prefix-equal-2", "zz", "Mixed Case", "ü-utf8"]
    return (0..<n).map { _ in
        func maybe(_ p: Double, _ v: Value) -> Value { rng.chance(p) ? .null : v }
        let g = maybe(0.1, .int(Int64(rng.int(0...groups))))
        let s = maybe(0.1, .string(words[rng.int(0...words.count - 1)]))
        let x = maybe(0.2, .int(Int64(rng.int(-1000...1000))))
        let d = maybe(0.2, .int(Int64(rng.int(-100_000...100_000))))
        let f = maybe(0.2, .double(Double(rng.int(-200...200)) * 0.5))
        let t = maybe(0.3, .string(words[rng.int(0...words.count - 1)] + String(rng.int(0...99))))
        let b = maybe(0.2, .bool(rng.chance(0.5)))
        let dt = maybe(0.2, .int(Int64(rng.int(18000...18100))))
        let w = maybe(0.2, .int128(Int128(rng.int(-1_000_000...1_000_000)) * 1_000_000_000_000))
        let sm = maybe(0.1, .int(Int64(rng.int(-5...5))))
        return [g, s, x, d, f, t, b, dt, w, sm]
    }
}

/// Every aggregate over every interesting column of `mixedTypes`.
let mixedAggregates: [BoundAggregate] = {
    let t = mixedTypes
    var a: [BoundAggregate] = [agg(.countStar, nil, t)]
    for c in [2, 3, 4, 8] {
        a += [agg(.count, c, t), agg(.sum, c, t), agg(.avg, c, t), agg(.min, c, t), agg(.max, c, t)]
    }
    for c in [1, 5, 6, 7] {
        a += [agg(.count, c, t), agg(.min, c, t), agg(.max, c, t)]
    }
    for c in [2, 9] {
        a += [agg(.bitAnd, c, t), agg(.bitOr, c, t)]
    }
    return a
}()

// MARK: - Tests

final class HashAggregateTests: XCTestCase {

    private func run(_ rows: [Row], types: [DataType] = mixedTypes, groups: [Int], aggs: [BoundAggregate],
                     mode: AggregateMode = .single, chunkSize: Int = Chunk.capacity, selection: Bool = false) throws -> [Row] {
        let op = HashAggregateOperator(input: source(types, rows, chunkSize: chunkSize, withSelection: selection),
                                       groupColumns: groups, groupTypes: groups.map { types[$0] },
                                       aggregates: aggs, mode: mode, context: QueryContext())
        return try drain(op)
    }

    func testAllAggregatesAgainstReference() throws {
        let rows = mixedRows(3000)
        for groups in [[], [0], [1], [0, 1], [6], [9], [7], [1, 6, 9]] {
            let actual = try run(rows, groups: groups, aggs: mixedAggregates)
            assertSameRows(actual, referenceAggregate(rows, groups: groups, aggs: mixedAggregates), "groups \(groups)")
        }
    }

    /// Aggregates filtered by a BOOLEAN column (`SUM(CASE WHEN c THEN x END)` as planned)
    /// fold only the rows where it is TRUE, beside unfiltered ones: with few groups (the
    /// others folded by a mask or by runs), many, none, selections and odd chunk sizes.
    func testFilteredAggregatesAgainstReference() throws {
        let t = mixedTypes
        var aggs: [BoundAggregate] = [agg(.countStar, nil, t), agg(.sum, 2, t)]
        for c in [2, 3, 4, 8] {
            for f in [AggregateFunction.count, .sum, .avg, .min, .max] {
                var a = agg(f, c, t)
                a.filter = 6
                aggs.append(a)
            }
        }
        var text = agg(.max, 1, t)
        text.filter = 6
        aggs.append(text)
        let rows = mixedRows(3000, seed: 11)
        for groups in [[], [0], [6], [9], [1, 6, 9]] {
            for (size, selection) in [(Chunk.capacity, false), (7, true), (1000, true)] {
                let actual = try run(rows, groups: groups, aggs: aggs, chunkSize: size, selection: selection)
                assertSameRows(actual, referenceAggregate(rows, groups: groups, aggs: aggs), "groups \(groups) chunk \(size)")
            }
        }
        // Few groups, many rows: the unfiltered sum goes by runs, the filtered ones by rows.
        let many = (0..<20_000).map { i -> Row in
            let condition: Value = i % 4 == 0 ? .bool(true) : (i % 4 == 1 ? .null : .bool(false))
            var row: Row = Array(repeating: .null, count: 10)
            row[0] = .int(Int64(i % 3))
            row[1] = .string("s")
            row[2] = .int(Int64(i))
            row[6] = condition
            return row
        }
        assertSameRows(try run(many, groups: [0], aggs: aggs), referenceAggregate(many, groups: [0], aggs: aggs), "runs")

        // A NULL condition whose value slot holds TRUE still leaves its row out.
        var cols = columns(mixedTypes, rows)
        let conditions = rows.map { $0[6] }
        cols[6] = Vector(type: .boolean, data: .bool(conditions.map { $0.asBool ?? true }), validity: cols[6].validity)
        XCTAssertNotNil(cols[6].validity)
        let op = HashAggregateOperator(input: ChunkSource([Chunk(columns: cols, count: rows.count)]), groupColumns: [0],
                                       groupTypes: [mixedTypes[0]], aggregates: aggs, mode: .single, context: QueryContext())
        assertSameRows(try drain(op), referenceAggregate(rows, groups: [0], aggs: aggs), "NULL over TRUE")
    }

    func testSelectionAndOddChunkSizes() throws {
        let rows = mixedRows(2500, seed: 7)
        for (size, sel) in [(1, false), (7, true), (1000, true), (4096, false)] {
            let actual = try run(rows, groups: [0, 1], aggs: mixedAggregates, chunkSize: size, selection: sel)
            assertSameRows(actual, referenceAggregate(rows, groups: [0, 1], aggs: mixedAggregates), "chunk \(size)")
        }
    }

    func testResultTypes() throws {
        let rows = mixedRows(10)
        let op = HashAggregateOperator(input: source(mixedTypes, rows), groupColumns: [0], groupTypes: [.integer],
                                       aggregates: mixedAggregates, mode: .single, context: QueryContext())
        let chunk = try XCTUnwrap(op.next())
        XCTAssertEqual(chunk.columns.map { $0.type }, [.integer] + mixedAggregates.map { $0.resultType })
        XCTAssertEqual(op.outputTypes, [.integer] + mixedAggregates.map { $0.resultType })
        // SUM(BIGINT) is BIGINT, SUM(DECIMAL(12,2)) is DECIMAL(38,2), AVG(DOUBLE) is DOUBLE.
        XCTAssertEqual(agg(.sum, 2, mixedTypes).resultType, .bigint)
        XCTAssertEqual(agg(.sum, 3, mixedTypes).resultType, .decimal(precision: 38, scale: 2))
        XCTAssertEqual(agg(.avg, 4, mixedTypes).resultType, .double)
    }

    /// Short string keys (CHAR(1), VARCHAR(3): the packed index) group exactly like the
    /// generic table: NULL apart from '', multi-byte values; a value longer than its
    /// declared length switches to the generic table mid-stream without renumbering groups.
    func testShortStringKeysAgainstReference() throws {
        let types: [DataType] = [.char(1), .varchar(3), .bigint]
        var rng = SystemRandomNumberGenerator()
        let firsts: [Value] = [.null, .string(""), .string("A"), .string("N"), .string("R")]
        let seconds: [Value] = [.null, .string(""), .string("F"), .string("O"), .string("é"), .string("abc")]
        var rows: [Row] = (0..<3000).map { i in
            [firsts.randomElement(using: &rng) ?? .null, seconds.randomElement(using: &rng) ?? .null, .int(Int64(i))]
        }
        let aggs = [agg(.countStar, nil, types), agg(.sum, 2, types), agg(.min, 1, types)]
        for groups in [[0], [1], [0, 1], [1, 0]] {
            for size in [7, Chunk.capacity] {
                let actual = try run(rows, types: types, groups: groups, aggs: aggs, chunkSize: size, selection: size == 7)
                assertSameRows(actual, referenceAggregate(rows, groups: groups, aggs: aggs), "groups \(groups) chunk \(size)")
            }
        }
        // Over-long values late in the input.
        rows += (0..<50).map { i in [.string("Q"), .string(i % 2 == 0 ? "toolong" : "F"), .int(Int64(i))] }
        for groups in [[1], [0, 1]] {
            let actual = try run(rows, types: types, groups: groups, aggs: aggs, chunkSize: 100)
            assertSameRows(actual, referenceAggregate(rows, groups: groups, aggs: aggs), "fallback groups \(groups)")
        }
    }

    func testNullKeysGroupTogether() throws {
        let types: [DataType] = [.integer, .varchar(10), .bigint]
        let rows: [Row] = [
            [.null, .string("a"), .int(1)], [.int(1), .null, .int(2)], [.null, .string("a"), .int(3)],
            [.null, .null, .int(4)], [.int(1), .null, .int(5)], [.null, .null, .int(6)],
        ]
        let sum = agg(.sum, 2, types)
        let out = try run(rows, types: types, groups: [0, 1], aggs: [sum])
        assertSameRows(out, [
            [.null, .string("a"), .int(4)], [.int(1), .null, .int(7)], [.null, .null, .int(10)],
        ])
        let single = try run(rows, types: types, groups: [0], aggs: [sum])
        assertSameRows(single, [[.null, .int(14)], [.int(1), .int(7)]])
    }

    func testNullHandling() throws {
        let types: [DataType] = [.integer, .bigint, .double, .decimal(precision: 10, scale: 2), .varchar(5)]
        let rows: [Row] = [
            [.int(1), .null, .null, .null, .null],
            [.int(1), .null, .null, .null, .null],
            [.int(2), .int(5), .double(1.5), .int(250), .string("x")],
            [.int(2), .null, .null, .null, .null],
        ]
        let aggs = [agg(.countStar, nil, types), agg(.count, 1, types), agg(.sum, 1, types), agg(.avg, 1, types),
                    agg(.sum, 2, types), agg(.avg, 3, types), agg(.min, 4, types), agg(.max, 1, types)]
        let out = try run(rows, types: types, groups: [0], aggs: aggs)
        assertSameRows(out, [
            [.int(1), .int(2), .int(0), .null, .null, .null, .null, .null, .null],
            [.int(2), .int(2), .int(1), .int(5), .int(5), .double(1.5), .int128(250), .string("x"), .int(5)],
        ])
    }

    func testNoGroupsEmptyInput() throws {
        let aggs = mixedAggregates
        let single = try run([], groups: [], aggs: aggs)
        XCTAssertEqual(single.count, 1)
        XCTAssertEqual(single[0][0], .int(0))   // COUNT(*)
        XCTAssertEqual(single[0][1], .int(0))   // COUNT(x)
        XCTAssertEqual(single[0][2], .null)     // SUM(x)
        XCTAssertEqual(single[0], referenceAggregate([], groups: [], aggs: aggs)[0])

        // Partial over empty input still yields one row of empty states.
        let partialOp = HashAggregateOperator(input: source(mixedTypes, []), groupColumns: [], groupTypes: [],
                                              aggregates: aggs, mode: .partial, context: QueryContext())
        let partial = try drainChunks(partialOp)
        XCTAssertEqual(partial.map { $0.count }, [1])
        XCTAssertEqual(partial[0].columns.map { $0.type }, aggs.flatMap { HashAggregateOperator.partialStateTypes($0) })
        let final = HashAggregateOperator(input: ChunkSource(partial + partial + partial), groupColumns: [], groupTypes: [],
                                          aggregates: aggs, mode: .final, context: QueryContext())
        XCTAssertEqual(try drain(final), single)

        // With group columns, empty input gives no rows in every mode.
        for mode in [AggregateMode.single, .partial, .final] {
            XCTAssertEqual(try run([], groups: [0], aggs: mode == .final ? [] : aggs, mode: mode).count, 0)
        }
    }

    func testPartialFinalMatchesSingleAcrossThreeSlices() throws {
        let rows = mixedRows(6000, seed: 3, groups: 3000)
        var rng = SeededRandom(seed: 99)
        var slices: [[Row]] = [[], [], []]
        for r in rows { slices[rng.int(0...2)].append(r) }
        for groups in [[], [0], [1, 0], [9], [6]] {
            let single = try run(rows, groups: groups, aggs: mixedAggregates)
            var partials: [Chunk] = []
            for s in slices {
                let p = HashAggregateOperator(input: source(mixedTypes, s, chunkSize: 999), groupColumns: groups,
                                              groupTypes: groups.map { mixedTypes[$0] }, aggregates: mixedAggregates,
                                              mode: .partial, context: QueryContext())
                let chunks = try drainChunks(p)
                for c in chunks {
                    XCTAssertEqual(c.columns.map { $0.type },
                                   groups.map { mixedTypes[$0] } + mixedAggregates.flatMap { HashAggregateOperator.partialStateTypes($0) })
                }
                partials += chunks
            }
            // Interleave partial chunks from different slices.
            partials.shuffle(using: &rng)
            let final = HashAggregateOperator(input: ChunkSource(partials), groupColumns: Array(0..<groups.count),
                                              groupTypes: groups.map { mixedTypes[$0] }, aggregates: mixedAggregates,
                                              mode: .final, context: QueryContext())
            assertSameRows(try drain(final), single, "groups \(groups)")
        }
    }

    func testPartialStateTypesMatchPlannerLayout() {
        for a in mixedAggregates {
            XCTAssertEqual(HashAggregateOperator.partialStateTypes(a), HashAggregateLayoutMirror.types(a))
        }
    }

    func testCountSumAvgDistinct() throws {
        let types: [DataType] = [.integer, .bigint, .varchar(10), .decimal(precision: 8, scale: 1)]
        let rows: [Row] = [
            [.int(1), .int(5), .string("a"), .int(10)], [.int(1), .int(5), .string("a"), .int(10)],
            [.int(1), .int(6), .string("b"), .int(11)], [.int(1), .null, .null, .null],
            [.int(2), .int(5), .string("a"), .int(10)], [.int(2), .int(7), .string("a"), .int(15)],
            [.null, .int(1), .string("c"), .int(20)], [.null, .int(1), .string("c"), .int(20)],
        ]
        let aggs = [agg(.count, 1, types, distinct: true), agg(.sum, 1, types, distinct: true),
                    agg(.avg, 1, types, distinct: true), agg(.count, 2, types, distinct: true),
                    agg(.avg, 3, types, distinct: true), agg(.max, 2, types, distinct: true), agg(.count, 1, types)]
        let out = try run(rows, types: types, groups: [0], aggs: aggs, chunkSize: 3)
        assertSameRows(out, [
            [.int(1), .int(2), .int(11), .int(5), .int(2), .int128(11), .string("b"), .int(3)],
            [.int(2), .int(2), .int(12), .int(6), .int(1), .int128(13), .string("a"), .int(2)],
            [.null, .int(1), .int(1), .int(1), .int(1), .int128(20), .string("c"), .int(2)],
        ])
        assertSameRows(out, referenceAggregate(rows, groups: [0], aggs: aggs))
        // Many distinct values across chunk boundaries.
        let big = mixedRows(10000, seed: 5)
        let daggs = [agg(.count, 2, mixedTypes, distinct: true), agg(.sum, 3, mixedTypes, distinct: true),
                     agg(.count, 5, mixedTypes, distinct: true), agg(.avg, 8, mixedTypes, distinct: true)]
        for groups in [[], [0]] {
            assertSameRows(try run(big, groups: groups, aggs: daggs), referenceAggregate(big, groups: groups, aggs: daggs))
        }
    }

    func testDistinctRejectedInTwoPhase() {
        let a = agg(.count, 2, mixedTypes, distinct: true)
        for mode in [AggregateMode.partial, .final] {
            let op = HashAggregateOperator(input: source(mixedTypes, mixedRows(5)), groupColumns: [], groupTypes: [],
                                           aggregates: [a], mode: mode, context: QueryContext())
            XCTAssertThrowsError(try op.next())
        }
    }

    func testBigintSumOverflow() {
        let types: [DataType] = [.bigint]
        let rows: [Row] = [[.int(Int64.max)], [.int(1)]]
        let op = HashAggregateOperator(input: source(types, rows), groupColumns: [], groupTypes: [],
                                       aggregates: [agg(.sum, 0, types)], mode: .single, context: QueryContext())
        XCTAssertThrowsError(try op.next()) { e in
            XCTAssertEqual((e as? SQLError)?.message, "bigint out of range")
            XCTAssertEqual((e as? SQLError)?.code, .numericOutOfRange)
        }
        // AVG of the same values does not overflow (128-bit sum).
        let avg = HashAggregateOperator(input: source(types, [[.int(Int64.max)], [.int(Int64.max)]]), groupColumns: [],
                                        groupTypes: [], aggregates: [agg(.avg, 0, types)], mode: .single, context: QueryContext())
        XCTAssertEqual(try drain(avg), [[.int(Int64.max)]])
        // Overflow in the final merge of partial sums.
        let partial = HashAggregateOperator(input: source(types, [[.int(Int64.max)]]), groupColumns: [], groupTypes: [],
                                            aggregates: [agg(.sum, 0, types)], mode: .partial, context: QueryContext())
        let chunks = (try? drainChunks(partial)) ?? []
        let final = HashAggregateOperator(input: ChunkSource(chunks + chunks), groupColumns: [], groupTypes: [],
                                          aggregates: [agg(.sum, 0, types)], mode: .final, context: QueryContext())
        XCTAssertThrowsError(try final.next())
    }

    func testAverageRounding() throws {
        let types: [DataType] = [.integer, .integer, .decimal(precision: 10, scale: 2)]
        // AVG of integers truncates toward zero; AVG of decimals rounds half away from zero.
        let rows: [Row] = [
            [.int(1), .int(1), .int(1)], [.int(1), .int(2), .int(2)],
            [.int(2), .int(-1), .int(-1)], [.int(2), .int(-2), .int(-2)],
            [.int(3), .int(1), .int(1)], [.int(3), .int(1), .int(1)], [.int(3), .int(2), .int(2)],
        ]
        let out = try run(rows, types: types, groups: [0], aggs: [agg(.avg, 1, types), agg(.avg, 2, types)])
        assertSameRows(out, [
            [.int(1), .int(1), .int128(2)],
            [.int(2), .int(-1), .int128(-2)],
            [.int(3), .int(1), .int128(1)],
        ])
    }

    func testBoundarySizesAndManyGroups() throws {
        let types: [DataType] = [.bigint, .bigint]
        for n in boundarySizes {
            let rows: [Row] = (0..<n).map { [.int(Int64($0)), .int(Int64($0 % 7))] }
            // One group per row: output spans several chunks.
            let op = HashAggregateOperator(input: source(types, rows), groupColumns: [0], groupTypes: [.bigint],
                                           aggregates: [agg(.countStar, nil, types), agg(.sum, 1, types)], mode: .single, context: QueryContext())
            let chunks = try drainChunks(op)
            XCTAssertTrue(chunks.allSatisfy { $0.count <= Chunk.capacity && $0.count > 0 })
            XCTAssertEqual(chunks.reduce(0) { $0 + $1.count }, n)
            var seen = Set<Int64>()
            for c in chunks {
                for i in 0..<c.count {
                    guard case .int(let k) = c.value(row: i, column: 0) else { return XCTFail("bad key") }
                    seen.insert(k)
                    XCTAssertEqual(c.value(row: i, column: 1), .int(1))
                    XCTAssertEqual(c.value(row: i, column: 2), .int(k % 7))
                }
            }
            XCTAssertEqual(seen.count, n)
            // Multi-column key (string + int) over the same sizes.
            let srows: [Row] = (0..<n).map { [.string("k\($0 % 1000)"), .int(Int64($0 % 3))] }
            let stypes: [DataType] = [.varchar(10), .bigint]
            let sop = HashAggregateOperator(input: source(stypes, srows), groupColumns: [0, 1], groupTypes: stypes,
                                            aggregates: [agg(.countStar, nil, stypes)], mode: .single, context: QueryContext())
            assertSameRows(try drain(sop), referenceAggregate(srows, groups: [0, 1], aggs: [agg(.countStar, nil, stypes)]))
        }
    }

    func testConstantInputVectors() throws {
        let types: [DataType] = [.integer, .bigint]
        let c1 = Vector.constant(.int(4), type: .integer)
        let c2 = Vector.ints([1, 2, 3, nil])
        let chunk = Chunk(columns: [c1, c2], count: 4)
        let op = HashAggregateOperator(input: ChunkSource([chunk, chunk]), groupColumns: [0], groupTypes: [.integer],
                                       aggregates: [agg(.sum, 1, types), agg(.count, 0, types)], mode: .single, context: QueryContext())
        XCTAssertEqual(try drain(op), [[.int(4), .int(12), .int(8)]])
    }

    func testStringMinMaxManyUpdates() throws {
        // Monotone inputs replace the extreme on every row (exercises arena compaction).
        let types: [DataType] = [.integer, .varchar(300)]
        let pad = String(repeating: "x", count: 200)
        let rows: [Row] = (0..<12000).map { i in [.int(Int64(i % 3)), .string(String(format: "%06d", 20000 - i) + pad)] }
        let aggs = [agg(.min, 1, types), agg(.max, 1, types)]
        assertSameRows(try run(rows, types: types, groups: [0], aggs: aggs), referenceAggregate(rows, groups: [0], aggs: aggs))
    }

    func testMinMaxOfUntypedNull() throws {
        let types: [DataType] = [.integer, .unknown]
        let rows: [Row] = [[.int(1), .null], [.int(2), .null], [.int(1), .null]]
        let mx = BoundAggregate(function: .max, argument: 1, argumentType: .unknown, distinct: false, resultType: .text)
        let cnt = BoundAggregate(function: .count, argument: 1, argumentType: .unknown, distinct: false, resultType: .bigint)
        let out = try run(rows, types: types, groups: [0], aggs: [mx, cnt])
        assertSameRows(out, [[.int(1), .null, .int(0)], [.int(2), .null, .int(0)]])
    }

    func testDoubleKeysAndNaN() throws {
        let types: [DataType] = [.double, .double]
        let rows: [Row] = [[.double(.nan), .double(1)], [.double(.nan), .double(.nan)], [.double(0), .double(2)],
                           [.double(1.5), .double(3)], [.double(1.5), .null], [.null, .double(4)]]
        let out = try run(rows, types: types, groups: [0], aggs: [agg(.max, 1, types), agg(.min, 1, types), agg(.countStar, nil, types)])
        XCTAssertEqual(out.count, 4)
        let nanRow = out.first { if case .double(let d) = $0[0] { return d.isNaN }; return false }
        XCTAssertEqual(nanRow?[3], .int(2))
        if case .double(let mx)? = nanRow?[1] { XCTAssertTrue(mx.isNaN) } else { XCTFail("max NaN") }
        XCTAssertEqual(nanRow?[2], .double(1))
    }
}

/// The planner's partial-state layout (`HashAggregateLayout` in SlicehousePlanner), restated
/// so the two must agree.
enum HashAggregateLayoutMirror {
    static func types(_ agg: BoundAggregate) -> [DataType] {
        switch agg.function {
        case .countStar, .count: return [.bigint]
        case .sum: return [agg.resultType]
        case .min, .max: return [agg.argumentType ?? agg.resultType]
        case .bitAnd, .bitOr: return [agg.resultType]
        case .approximateCountDistinct, .hllCreateSketch, .hllCombine: return [.varchar(65535)]
        case .percentileCont, .percentileDisc, .listagg: return []
        case .avg:
            switch agg.argumentType {
            case .some(.decimal(_, let s)): return [.decimal(precision: 38, scale: s), .bigint]
            case .some(.real), .some(.double): return [.double, .bigint]
            default: return [.decimal(precision: 38, scale: 0), .bigint]
            }
        }
    }
}

/// `got` and `want` (the same aggregate `a`, folded two ways) hold the same results and
/// partial states for groups `0..<groups`; with `bitForBit`, DOUBLE results to the bit.
private func assertSameStates(_ got: Accumulator, _ want: Accumulator, groups: Int, _ a: BoundAggregate,
                              bitForBit: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
    let w = try want.results(0..<groups), g = try got.results(0..<groups)
    XCTAssertEqual(g.type, w.type, file: file, line: line)
    for k in 0..<groups {
        XCTAssertEqual(g.value(at: k), w.value(at: k), "\(a.function)(\(a.argument ?? -1)) group \(k)", file: file, line: line)
    }
    if bitForBit, case .double(let x) = g.data, case .double(let y) = w.data {
        XCTAssertEqual(x.map(\.bitPattern), y.map(\.bitPattern), "bit for bit", file: file, line: line)
    }
    XCTAssertEqual(got.partialStates(0..<groups).map { v in (0..<groups).map { v.value(at: $0) } },
                   want.partialStates(0..<groups).map { v in (0..<groups).map { v.value(at: $0) } }, file: file, line: line)
}

/// Folding a batch group by group (`GroupRuns`, tables with few groups) gives exactly the
/// states of folding it row by row: NULLs, a selection, floating-point sums bit for bit,
/// and the same overflows.
final class GroupRunsTests: XCTestCase {
    func testRunsOrderRowsByGroupStably() {
        var runs = GroupRuns()
        runs.build(groupIds: [2, 0, 2, 2, 0, 3], rows: [10, 11, 12, 13, 14, 15], groupCount: 5)
        var seen: [(Int, [Int32])] = []
        runs.forEach { g, rows in seen.append((g, Array(rows))) }
        XCTAssertEqual(seen.map(\.0), [0, 2, 3])
        XCTAssertEqual(seen.map(\.1), [[11, 14], [10, 12, 13], [15]])
        // Reused for an empty batch and a batch of one group.
        runs.build(groupIds: [], rows: [], groupCount: 5)
        XCTAssertEqual(runs.count, 0)
        runs.build(groupIds: [1, 1], rows: [0, 1], groupCount: 2)
        seen = []
        runs.forEach { g, rows in seen.append((g, Array(rows))) }
        XCTAssertEqual(seen.map(\.0), [1])
        XCTAssertEqual(seen.map(\.1), [[0, 1]])
    }

    /// The accumulators with a run path, fed the same batches both ways.
    func testRunsMatchRowByRow() throws {
        let types: [DataType] = [.bigint, .decimal(precision: 12, scale: 2), .decimal(precision: 30, scale: 3), .double]
        var rng = SeededRandom(seed: 11)
        let n = 3000
        var columns: [Vector] = []
        for (c, t) in types.enumerated() {
            var validity = Validity(allValid: n)
            for r in 0..<n where rng.chance(0.2) { validity.setInvalid(r) }
            let data: VectorData
            switch c {
            case 0, 1: data = .int64((0..<n).map { _ in Int64(rng.int(-1_000_000...1_000_000)) })
            case 2: data = .int128((0..<n).map { _ in Int128(rng.int(-1_000_000...1_000_000)) * 1_000_000_000_000 })
            default: data = .double((0..<n).map { _ in Double(rng.int(-1_000_000...1_000_000)) / 7 })
            }
            // Column 1 without NULLs: the counts come from the run lengths.
            columns.append(Vector(type: t, data: data, validity: c == 1 ? nil : validity))
        }
        let groupIds = (0..<n).map { _ in Int32(rng.int(0...5)) }
        // Every third row (a selection), and all rows.
        for rows in [(0..<n).map { Int32($0) }, stride(from: 0, to: n, by: 3).map { Int32($0) }] {
            let ids = rows.map { groupIds[Int($0)] }
            var runs = GroupRuns()
            runs.build(groupIds: ids, rows: rows, groupCount: 6)
            var aggs: [BoundAggregate] = [agg(.countStar, nil, types)]
            for c in 0..<types.count { aggs += [agg(.count, c, types), agg(.sum, c, types), agg(.avg, c, types)] }
            for a in aggs {
                let byRows = try AccumulatorFactory.make(a, mode: .single)
                let byRuns = try AccumulatorFactory.make(a, mode: .single)
                byRows.grow(to: 6)
                byRuns.grow(to: 6)
                let input = a.argument.map { columns[$0] }
                for _ in 0..<2 {
                    try byRows.update(groups: ids, rows: rows, input: input)
                    XCTAssertTrue(try byRuns.update(runs: runs, input: input), "\(a.function) has a run path")
                }
                try assertSameStates(byRuns, byRows, groups: 6, a, bitForBit: true)
            }
        }
    }

    func testRunsOverflowLikeRows() throws {
        var runs = GroupRuns()
        runs.build(groupIds: [0, 1, 0], rows: [0, 1, 2], groupCount: 2)
        let bigints = Vector(type: .bigint, data: .int64([Int64.max, 5, 1]))
        let sum = try AccumulatorFactory.make(agg(.sum, 0, [.bigint]), mode: .single)
        sum.grow(to: 2)
        XCTAssertThrowsError(try sum.update(runs: runs, input: bigints)) { e in
            XCTAssertEqual((e as? SQLError)?.message, "bigint out of range")
        }
        // 128-bit sums past Int128 (the wrapped sum is detected).
        let wideType = DataType.decimal(precision: 38, scale: 0)
        let wide = Vector(type: wideType, data: .int128([Int128.max, 1, Int128.max]))
        let wideSum = try AccumulatorFactory.make(agg(.sum, 0, [wideType]), mode: .single)
        wideSum.grow(to: 2)
        XCTAssertThrowsError(try wideSum.update(runs: runs, input: wide))
        // An AVG of BIGINTs near the limit does not overflow (128-bit sum).
        let avg = try AccumulatorFactory.make(agg(.avg, 0, [.bigint]), mode: .single)
        avg.grow(to: 2)
        runs.build(groupIds: [0, 0, 1], rows: [0, 1, 2], groupCount: 2)
        XCTAssertTrue(try avg.update(runs: runs, input: Vector(type: .bigint, data: .int64([Int64.max, Int64.max, 3]))))
        XCTAssertEqual(try avg.results(0..<2).value(at: 0), .int(Int64.max))
    }
}

/// Folding a batch of a table with at most four groups by a mask over its physical rows
/// (`GroupMask`): the states of folding it row by row, for the accumulators that take
/// it (exact sums and averages held in 64 bits without NULLs, counts); the others, and
/// sums that could leave 64 bits, decline and are folded the other ways.
final class GroupMaskTests: XCTestCase {
    func testMaskMarksGroupsAndCounts() {
        var mask = GroupMask()
        mask.build(groupIds: [2, 0, 2, 2, 0], rows: [1, 2, 4, 5, 7], physicalCount: 8, groupCount: 4)
        XCTAssertEqual(mask.ids, [-1, 2, 0, -1, 2, 2, -1, 0])
        XCTAssertEqual(mask.counts, [2, 0, 3, 0])
        var seen: [(Int, Int64)] = []
        mask.forEach { seen.append(($0, $1)) }
        XCTAssertEqual(seen.map(\.0), [0, 2])
        XCTAssertEqual(seen.map(\.1), [2, 3])
        let values: [Int64] = [100, 1, 2, -1000, 4, 8, 1000, 16]
        values.withUnsafeBufferPointer { v in
            XCTAssertEqual(mask.sum(v, group: 0), 18)
            XCTAssertEqual(mask.sum(v, group: 2), 13)
            XCTAssertEqual(mask.sum(v, group: 1), 0)
        }
        // Reused: fewer rows and groups, every row selected.
        mask.build(groupIds: [1, 1, 0], rows: [0, 1, 2], physicalCount: 3, groupCount: 2)
        XCTAssertEqual(mask.ids, [1, 1, 0])
        XCTAssertEqual(mask.counts, [1, 2])
        mask.build(groupIds: [], rows: [], physicalCount: 2, groupCount: 1)
        XCTAssertEqual(mask.ids, [-1, -1])
        XCTAssertEqual(mask.counts, [0])
        XCTAssertEqual(GroupMask.differs(5, 5), 0)
        XCTAssertEqual(GroupMask.differs(-1, 3), -1)
        XCTAssertEqual(GroupMask.differs(Int32.min, 0), -1)
        XCTAssertEqual(GroupMask.isEqual(-1, -1), 1)
    }

    /// The accumulators fed the same batches by mask and row by row.
    func testMaskMatchesRowByRow() throws {
        let wide = DataType.decimal(precision: 38, scale: 4)
        let types: [DataType] = [.bigint, .decimal(precision: 12, scale: 2), .decimal(precision: 12, scale: 2), wide, wide, .double]
        var rng = SeededRandom(seed: 17)
        let n = 3000
        var columns: [Vector] = []
        for (c, t) in types.enumerated() {
            var validity = Validity(allValid: n)
            for r in 0..<n where rng.chance(0.2) { validity.setInvalid(r) }
            let data: VectorData
            switch c {
            case 4: data = .int128((0..<n).map { _ in Int128(rng.int(-1_000_000...1_000_000)) })
            case 5: data = .double((0..<n).map { _ in Double(rng.int(-1_000_000...1_000_000)) / 7 })
            default: data = .int64((0..<n).map { _ in Int64(rng.int(-1_000_000_000_000...1_000_000_000_000)) })
            }
            // Column 2 holds NULLs; column 3 is a narrowed wide DECIMAL.
            columns.append(Vector(type: t, data: data, validity: c == 2 ? validity : nil))
        }
        XCTAssertTrue(columns[3].isNarrowed)
        // Groups 0-2 at random, group 3 never: a group without rows.
        let groupIds = (0..<n).map { _ in Int32(rng.int(0...2)) }
        // All rows, and every third one (a selection).
        for rows in [(0..<n).map { Int32($0) }, stride(from: 0, to: n, by: 3).map { Int32($0) }] {
            let ids = rows.map { groupIds[Int($0)] }
            var mask = GroupMask()
            mask.build(groupIds: ids, rows: rows, physicalCount: n, groupCount: 4)
            var aggs: [(BoundAggregate, takesMask: Bool)] = [(agg(.countStar, nil, types), true)]
            aggs += [(agg(.sum, 1, types), true), (agg(.avg, 1, types), true), (agg(.count, 1, types), true),
                     (agg(.sum, 3, types), true), (agg(.avg, 3, types), true), (agg(.avg, 0, types), true),
                     (agg(.sum, 0, types), false), (agg(.sum, 2, types), false), (agg(.count, 2, types), false),
                     (agg(.avg, 2, types), false), (agg(.sum, 4, types), false), (agg(.sum, 5, types), false),
                     (agg(.min, 1, types), false)]
            for (a, takesMask) in aggs {
                let byRows = try AccumulatorFactory.make(a, mode: .single)
                let byMask = try AccumulatorFactory.make(a, mode: .single)
                byRows.grow(to: 4)
                byMask.grow(to: 4)
                let input = a.argument.map { columns[$0] }
                for _ in 0..<2 {
                    try byRows.update(groups: ids, rows: rows, input: input)
                    let took = try byMask.update(mask: mask, input: input)
                    XCTAssertEqual(took, takesMask, "\(a.function)(\(a.argument ?? -1)) by mask")
                    if !took { try byMask.update(groups: ids, rows: rows, input: input) }
                }
                try assertSameStates(byMask, byRows, groups: 4, a, bitForBit: false)
            }
        }
    }

    /// A sum that could leave 64 bits — by its selected rows or by rows the batch does not
    /// select — is declined; through the operator the sums come out whole.
    func testSumsThatMightLeave64BitsAreDeclined() throws {
        let t = DataType.decimal(precision: 18, scale: 0)
        let sum = try AccumulatorFactory.make(agg(.sum, 0, [t]), mode: .single)
        sum.grow(to: 2)
        var mask = GroupMask()
        mask.build(groupIds: [0, 1, 0], rows: [0, 1, 2], physicalCount: 3, groupCount: 2)
        // Three rows (2 bits) of magnitudes up to 2^58 (59 bits): within 2^62; up to 2^60, not.
        let big: Int64 = 1 << 58
        XCTAssertTrue(try sum.update(mask: mask, input: Vector(type: t, data: .int64([big, -big, big]))))
        XCTAssertFalse(try sum.update(mask: mask, input: Vector(type: t, data: .int64([big << 2, 0, 0]))))
        mask.build(groupIds: [0, 1], rows: [0, 2], physicalCount: 3, groupCount: 2)
        XCTAssertFalse(try sum.update(mask: mask, input: Vector(type: t, data: .int64([1, Int64.min, 1]))))
        XCTAssertEqual(try sum.results(0..<2).value(at: 0), .int128(Int128(big) * 2))

        // 999,999,999,999,999,999 in every row of four groups: sums far past 64 bits.
        let rows: [Row] = (0..<5000).map { i in [.int(Int64(i % 4)), .int(999_999_999_999_999_999)] }
        let types: [DataType] = [.bigint, t]
        let op = HashAggregateOperator(input: source(types, rows, chunkSize: 2048, withSelection: true), groupColumns: [0],
                                       groupTypes: [.bigint], aggregates: [agg(.sum, 1, types), agg(.avg, 1, types)],
                                       mode: .single, context: QueryContext())
        let out = try drain(op)
        XCTAssertEqual(out.count, 4)
        for row in out {
            XCTAssertEqual(row[1], .int128(Int128(1250) * 999_999_999_999_999_999))
            XCTAssertEqual(row[2], .int128(999_999_999_999_999_999))
        }
    }
}
