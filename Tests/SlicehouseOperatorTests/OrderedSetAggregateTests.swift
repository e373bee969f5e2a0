// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution
import SlicehouseRuntime

// MARK: - References

private func pow10(_ k: Int) -> Int128 { (0..<k).reduce(Int128(1)) { r, _ in r * 10 } }

/// PERCENTILE_CONT / PERCENTILE_DISC straight from the definitions, over `Value`s.
private func referencePercentile(_ agg: BoundAggregate, _ values: [Value]) -> Value {
    let vs = values.filter { !$0.isNull }.sorted(by: valueLess)
    let n = vs.count
    if n == 0 { return .null }
    let p = agg.parameters
    let den = pow10(p.fractionScale)
    let num = Int128(p.fractionNumerator)
    if agg.function == .percentileDisc {
        // The first value whose cumulative distribution j/N reaches P.
        var j = 1
        while Int128(j) * den < num * Int128(n) { j += 1 }
        return p.descending ? vs[n - j] : vs[j - 1]
    }
    // RN = 1 + P'(N - 1), P' = P ascending, 1 - P descending.
    let t = (p.descending ? den - num : num) * Int128(n - 1)
    let q = Int(t / den), r = t % den
    if r == 0 {
        if case .decimal(_, let s) = agg.resultType, let v = vs[q].asInt128 {
            return .int128(v * pow10(s - (agg.argumentType?.scale ?? 0)))
        }
        return vs[q]
    }
    let lo = vs[q], hi = vs[q + 1]
    switch agg.resultType {
    case .double:
        let a = lo.asDouble ?? 0, b = hi.asDouble ?? 0
        return .double(a + (b - a) * (Double(r) / Double(den)))
    case .date, .timestamp:
        let a = Int128(lo.asInt64 ?? 0), b = Int128(hi.asInt64 ?? 0)
        // floor(a + (b - a)·r/den), b ≥ a.
        return .int(Int64(a + (b - a) * r / den))
    default:
        // Exactly: (a·den + (b − a)·r) · 10^up / den, rounded half away from zero.
        let up = agg.resultType.scale - (agg.argumentType?.scale ?? 0)
        let a = lo.asInt128 ?? 0, b = hi.asInt128 ?? 0
        let x = (a * den + (b - a) * r) * pow10(up)
        var quotient = x / den
        let remainder = x % den
        if remainder.magnitude * 2 >= den.magnitude { quotient += x < 0 ? -1 : 1 }
        return .int128(quotient)
    }
}

/// Values as Int128 when the result is a decimal (the operator's Int64/Int128 both compare equal then).
private func normalized(_ rows: [Row]) -> [Row] {
    rows.map { $0.map { v in if case .int(let x) = v { return .int128(Int128(x)) }; return v } }
}

private func percentile(_ fn: AggregateFunction, _ arg: Int, _ types: [DataType], _ numerator: Int64, _ scale: Int,
                        descending: Bool = false) -> BoundAggregate {
    let t = types[arg]
    let result = try! AggregateFunction.percentileResultType(name: "p", argType: t, continuous: fn == .percentileCont)
    return BoundAggregate(function: fn, argument: arg, argumentType: t, distinct: false, resultType: result,
                          parameters: AggregateParameters(fractionNumerator: numerator, fractionScale: scale, descending: descending))
}

// MARK: - Tests

final class OrderedSetAggregateTests: XCTestCase {
    private let types: [DataType] = [.integer, .bigint, .decimal(precision: 12, scale: 2), .double, .date, .timestamp,
                                     .decimal(precision: 30, scale: 3)]

    private func rows(_ n: Int, groups: Int, seed: UInt64) -> [Row] {
        var rng = SeededRandom(seed: seed)
        func maybe(_ v: Value) -> Value { rng.chance(0.15) ? .null : v }
        return (0..<n).map { _ in
            [.int(Int64(rng.int(0...(groups - 1)))),
             maybe(.int(Int64(rng.int(-1000...1000)))),
             maybe(.int(Int64(rng.int(-99999...99999)))),
             maybe(.double(Double(rng.int(-5000...5000)) / 8)),
             maybe(.int(Int64(rng.int(0...20000)))),
             maybe(.int(Int64(rng.int(0...1_000_000_000)))),
             maybe(.int128(Int128(rng.int(-1_000_000_000...1_000_000_000)) * 1_000_000_000_000))]
        }
    }

    private func aggregates() -> [BoundAggregate] {
        var a: [BoundAggregate] = []
        for c in 1...6 {
            for (num, scale) in [(Int64(0), 0), (5, 1), (25, 2), (1, 0), (333, 3), (9999, 4)] {
                for desc in [false, true] {
                    a.append(percentile(.percentileCont, c, types, num, scale, descending: desc))
                    a.append(percentile(.percentileDisc, c, types, num, scale, descending: desc))
                }
            }
        }
        return a
    }

    private func reference(_ rows: [Row], _ aggs: [BoundAggregate]) -> [Row] {
        var order: [Value] = []
        var members: [Value: [Row]] = [:]
        for r in rows {
            if members[r[0]] == nil { order.append(r[0]) }
            members[r[0], default: []].append(r)
        }
        return order.map { g in [g] + aggs.map { a in referencePercentile(a, members[g]!.map { $0[a.argument!] }) } }
    }

    private func run(_ rows: [Row], _ aggs: [BoundAggregate], chunkSize: Int = Chunk.capacity, selection: Bool = false) throws -> [Row] {
        let op = HashAggregateOperator(input: source(types, rows, chunkSize: chunkSize, withSelection: selection),
                                       groupColumns: [0], groupTypes: [.integer], aggregates: aggs, mode: .single, context: QueryContext())
        return try drain(op)
    }

    func testPercentilesAgainstReference() throws {
        let aggs = aggregates()
        for (n, groups, size, selection) in [(3000, 40, 999, true), (500, 1, 128, false), (50, 30, 7, false)] {
            let data = rows(n, groups: groups, seed: UInt64(n))
            assertSameRows(normalized(try run(data, aggs, chunkSize: size, selection: selection)),
                           normalized(reference(data, aggs)), "\(n) rows, \(groups) groups")
        }
    }

    func testPercentileResultTypes() throws {
        let aggs = aggregates()
        let op = HashAggregateOperator(input: source(types, rows(10, groups: 2, seed: 1)), groupColumns: [0],
                                       groupTypes: [.integer], aggregates: aggs, mode: .single, context: QueryContext())
        let chunk = try XCTUnwrap(op.next())
        XCTAssertEqual(chunk.columns.map { $0.type }, [.integer] + aggs.map { $0.resultType })
        XCTAssertEqual(percentile(.percentileCont, 1, types, 5, 1).resultType, .decimal(precision: 20, scale: 1))
        XCTAssertEqual(percentile(.percentileCont, 0, types, 5, 1).resultType, .decimal(precision: 11, scale: 1))
        XCTAssertEqual(percentile(.percentileCont, 2, types, 5, 1).resultType, .decimal(precision: 13, scale: 3))
        XCTAssertEqual(percentile(.percentileDisc, 2, types, 5, 1).resultType, .decimal(precision: 12, scale: 2))
        XCTAssertEqual(percentile(.percentileCont, 4, types, 5, 1).resultType, .date)
        XCTAssertEqual(percentile(.percentileCont, 3, types, 5, 1).resultType, .double)
    }

    func testNegativeInterpolationRoundsHalfAwayFromZero() throws {
        let t: [DataType] = [.integer, .integer]
        let data: [Row] = [[.int(1), .int(-3)], [.int(1), .int(-2)]]
        let aggs = [percentile(.percentileCont, 1, t, 25, 2), percentile(.percentileCont, 1, t, 75, 2),
                    percentile(.percentileCont, 1, t, 5, 1)]
        let op = HashAggregateOperator(input: source(t, data), groupColumns: [0], groupTypes: [.integer],
                                       aggregates: aggs, mode: .single, context: QueryContext())
        // -2.75 → -2.8, -2.25 → -2.3, -2.5 exact.
        XCTAssertEqual(normalized(try drain(op)), [[.int128(1), .int128(-28), .int128(-23), .int128(-25)]])
    }

    func testSelectFindsEveryRank() {
        var rng = SeededRandom(seed: 21)
        for n in [1, 2, 3, 13, 25, 26, 64, 65, 127, 1000, 5000] {
            for shape in 0..<5 {
                let values: [Double] = (0..<n).map { i in
                    switch shape {
                    case 0: return Double(rng.int(-1000...1000))
                    case 1: return Double(rng.int(0...3))          // many duplicates
                    case 2: return Double(i)                       // sorted
                    case 3: return Double(n - i)                   // reversed
                    default: return i % 17 == 0 ? .nan : Double(i % 50)
                    }
                }
                let sorted = values.sorted(by: Double.precedes)
                for k in Set([0, n / 3, n / 2, n - 1, rng.int(0...(n - 1))]) {
                    var a = values
                    a.withUnsafeMutableBufferPointer { OrderStatistics.select($0, k, by: Double.precedes) }
                    let same = a[k] == sorted[k] || (a[k].isNaN && sorted[k].isNaN)
                    XCTAssertTrue(same, "n \(n) shape \(shape) k \(k): \(a[k]) vs \(sorted[k])")
                    XCTAssertTrue(a[..<k].allSatisfy { !Double.precedes(a[k], $0) }, "n \(n) shape \(shape) k \(k)")
                    XCTAssertTrue(a[(k + 1)...].allSatisfy { !Double.precedes($0, a[k]) }, "n \(n) shape \(shape) k \(k)")
                }
            }
        }
    }

    func testOrderedSetAggregatesRefuseTwoPhase() {
        let t: [DataType] = [.integer, .bigint]
        let op = HashAggregateOperator(input: source(t, [[.int(1), .int(2)]]), groupColumns: [0], groupTypes: [.integer],
                                       aggregates: [percentile(.percentileCont, 1, t, 5, 1)], mode: .partial, context: QueryContext())
        XCTAssertThrowsError(try op.next())
    }

    // MARK: LISTAGG

    private func listagg(_ arg: Int, _ delimiter: String, distinct: Bool = false, orderBy: [AggregateOrderKey] = []) -> BoundAggregate {
        BoundAggregate(function: .listagg, argument: arg, argumentType: .varchar(20), distinct: distinct,
                       resultType: AggregateFunction.listaggResultType,
                       parameters: AggregateParameters(delimiter: delimiter), orderBy: orderBy)
    }

    func testListAggOrderNullsAndDistinct() throws {
        let t: [DataType] = [.integer, .varchar(20), .integer]
        let data: [Row] = [
            [.int(1), .string("b"), .int(2)], [.int(1), .string("a"), .int(3)], [.int(1), .null, .int(0)],
            [.int(1), .string(""), .int(1)], [.int(1), .string("c"), .null], [.int(2), .null, .int(1)],
            [.int(1), .string("a "), .int(4)], [.int(3), .string("z"), .int(9)],
        ]
        let aggs = [
            listagg(1, ","),
            listagg(1, ", ", orderBy: [AggregateOrderKey(column: 2, type: .integer, ascending: true, nullsFirst: false)]),
            listagg(1, "", orderBy: [AggregateOrderKey(column: 2, type: .integer, ascending: false, nullsFirst: true)]),
            listagg(1, "|", distinct: true, orderBy: [AggregateOrderKey(column: 1, type: .varchar(20), ascending: true, nullsFirst: false)]),
        ]
        for size in [1, 3, 100] {
            let op = HashAggregateOperator(input: source(t, data, chunkSize: size), groupColumns: [0], groupTypes: [.integer],
                                           aggregates: aggs, mode: .single, context: QueryContext())
            assertSameRows(try drain(op), [
                [.int(1), .string("b,a,c,a "), .string("b, a, a , c"), .string("ca ab"), .string("a|b|c")],
                [.int(2), .null, .null, .null, .null],
                [.int(3), .string("z"), .string("z"), .string("z"), .string("z")],
            ], "chunk \(size)")
        }
    }

    func testListAggLimit() throws {
        let t: [DataType] = [.integer, .varchar(20000)]
        let big = String(repeating: "x", count: 13107)
        let exact: [Row] = (0..<5).map { _ in [.int(1), .string(big)] }
        let op = HashAggregateOperator(input: source(t, exact), groupColumns: [0], groupTypes: [.integer],
                                       aggregates: [listagg(1, "")], mode: .single, context: QueryContext())
        let out = try drain(op)
        XCTAssertEqual(out.first?[1].asString?.utf8.count, 65535)
        let over = HashAggregateOperator(input: source(t, exact), groupColumns: [0], groupTypes: [.integer],
                                         aggregates: [listagg(1, ",")], mode: .single, context: QueryContext())
        XCTAssertThrowsError(try drain(over)) { error in
            XCTAssertEqual((error as? SQLError)?.message, "Result size exceeds LISTAGG limit")
        }
    }

    // MARK: APPROXIMATE COUNT(DISTINCT)

    func testHyperLogLogExactThenEstimated() throws {
        var rng = SeededRandom(seed: 5)
        var groups = HyperLogLogGroups()
        groups.grow(to: 3)
        var distinct: [Set<UInt64>] = [[], [], []]
        let sizes = [1024, 300, 200_000]
        for g in 0..<3 {
            for _ in 0..<sizes[g] {
                let h = HyperLogLog.remix(rng.next() % UInt64(sizes[g] * 2))
                distinct[g].insert(h)
                groups.insert(g, h)
                groups.insert(g, h)  // duplicates do not count
            }
        }
        XCTAssertEqual(groups.count(0), Int64(distinct[0].count))
        XCTAssertEqual(groups.count(1), Int64(distinct[1].count))
        let estimate = Double(groups.count(2)), truth = Double(distinct[2].count)
        XCTAssertLessThan(abs(estimate / truth - 1), 0.03, "\(estimate) vs \(truth)")
    }

    func testHyperLogLogMergeEqualsUnion() throws {
        // Four "slices" each see part of the values (with overlaps); merging their
        // serialized states equals one sketch of everything.
        for total in [700, 5000, 150_000] {
            var parts = [HyperLogLogGroups](repeating: HyperLogLogGroups(), count: 4)
            var whole = HyperLogLogGroups()
            whole.grow(to: 1)
            for i in 0..<4 { parts[i].grow(to: 1) }
            for v in 0..<total {
                let h = HyperLogLog.remix(Hashing.hash(Int64(v)))
                whole.insert(0, h)
                parts[v % 4].insert(0, h)
                parts[(v * 7) % 4].insert(0, h)
            }
            var merged = HyperLogLogGroups()
            merged.grow(to: 1)
            for p in parts {
                var state = StringArray()
                p.serialize(0, into: &state)
                try state.bytes.withUnsafeBufferPointer { try merged.merge(0, $0) }
            }
            XCTAssertEqual(merged.count(0), whole.count(0), "\(total)")
            if total <= HyperLogLogGroups.exactLimit { XCTAssertEqual(merged.count(0), Int64(total)) }
        }
        var bad = HyperLogLogGroups()
        bad.grow(to: 1)
        XCTAssertThrowsError(try [UInt8(7), 1, 2].withUnsafeBufferPointer { try bad.merge(0, $0) })
        XCTAssertThrowsError(try [UInt8(0), 1, 2].withUnsafeBufferPointer { try bad.merge(0, $0) })
    }

    func testApproximateCountDistinctPartialFinalMatchesSingle() throws {
        let t: [DataType] = [.integer, .bigint, .varchar(12)]
        var rng = SeededRandom(seed: 11)
        // Group 0 large (estimated), groups 1...20 small (exact), NULLs mixed in.
        let data: [Row] = (0..<60_000).map { i in
            let g = i % 3 == 0 ? 0 : 1 + rng.int(0...19)
            let x: Value = rng.chance(0.05) ? .null : .int(Int64(g == 0 ? rng.int(0...40_000) : rng.int(0...50)))
            return [.int(Int64(g)), x, x.isNull ? .null : .string("v\(x.asInt64 ?? 0)")]
        }
        let aggs = [BoundAggregate(function: .approximateCountDistinct, argument: 1, argumentType: .bigint, distinct: false, resultType: .bigint),
                    BoundAggregate(function: .approximateCountDistinct, argument: 2, argumentType: .varchar(12), distinct: false, resultType: .bigint)]
        let single = try drain(HashAggregateOperator(input: source(t, data, chunkSize: 1000), groupColumns: [0], groupTypes: [.integer],
                                                      aggregates: aggs, mode: .single, context: QueryContext()))
        var slices: [[Row]] = [[], [], [], []]
        for r in data { slices[rng.int(0...3)].append(r) }
        var partials: [Chunk] = []
        for s in slices {
            let p = HashAggregateOperator(input: source(t, s, chunkSize: 777), groupColumns: [0], groupTypes: [.integer],
                                          aggregates: aggs, mode: .partial, context: QueryContext())
            XCTAssertEqual(p.outputTypes, [.integer, HashAggregateLayout.sketchType, HashAggregateLayout.sketchType])
            partials += try drainChunks(p)
        }
        partials.shuffle(using: &rng)
        let final = try drain(HashAggregateOperator(input: ChunkSource(partials), groupColumns: [0], groupTypes: [.integer],
                                                     aggregates: aggs, mode: .final, context: QueryContext()))
        assertSameRows(final, single)
        // Small groups are exact.
        var truth: [Int64: Set<Int64>] = [:]
        for r in data { if let x = r[1].asInt64, let g = r[0].asInt64 { truth[g, default: []].insert(x) } }
        for row in final {
            guard let g = row[0].asInt64, g != 0 else { continue }
            XCTAssertEqual(row[1], .int(Int64(truth[g]?.count ?? 0)))
            XCTAssertEqual(row[2], row[1])
        }
        let big = final.first { $0[0] == .int(0) }
        let estimate = Double(big?[1].asInt64 ?? 0), exact = Double(truth[0]?.count ?? 1)
        XCTAssertLessThan(abs(estimate / exact - 1), 0.03)
    }
}
