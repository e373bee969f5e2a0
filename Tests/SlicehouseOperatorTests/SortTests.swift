// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution
import SlicehouseRuntime

/// Reference: a stable sort of rows by `keys` over `Value`s.
func referenceSort(_ rows: [Row], _ keys: [SortKey]) -> [Row] {
    let indexed = Array(rows.enumerated())
    return indexed.sorted { a, b in
        for k in keys {
            let x = a.element[k.column], y = b.element[k.column]
            if x.isNull && y.isNull { continue }
            if x.isNull { return k.nullsFirst }
            if y.isNull { return !k.nullsFirst }
            if valueLess(x, y) { return k.ascending }
            if valueLess(y, x) { return !k.ascending }
        }
        return a.offset < b.offset
    }.map { $0.element }
}

final class SortTests: XCTestCase {
    private func sort(_ rows: [Row], _ keys: [SortKey], types: [DataType] = mixedTypes, limit: Int? = nil,
                      offset: Int = 0, chunkSize: Int = Chunk.capacity, selection: Bool = false) throws -> [Row] {
        let op = SortOperator(input: source(types, rows, chunkSize: chunkSize, withSelection: selection),
                              keys: keys, limit: limit, offset: offset, context: QueryContext())
        return try drain(op)
    }

    /// Integers of a narrow span are sorted by counting: the same stable order as the
    /// radix sort of wide spans, ascending and descending, for spans at the ends of
    /// Int64, a second key refining equal values, NULLs, one row and no rows.
    func testCountingSortMatchesTheReference() throws {
        var x: UInt64 = 99
        func next() -> UInt64 { x = x &* 6364136223846793005 &+ 1442695040888963407; return x >> 33 }
        let n = 3_000
        // Spans counted and, from 4 × the non-NULL rows on, not (the radix sort's).
        for (lo, span) in [(Int64(0), 2_500), (-1_000, 10), (Int64.min, 300), (Int64.max - 200, 200),
                           (5, 4 * (n - 31) - 1), (5, 4 * n), (-7, 1 << 40)] {
            let values = (0..<n).map { i -> Int64 in
                let off = span >= 1 << 40 ? Int64(next() % 97) << 33 : Int64(next() % UInt64(span + 1))
                return i % 101 == 0 ? lo &+ Int64(span) : lo &+ off
            }
            let second = (0..<n).map { _ in Int64(next() % 5) }
            var validity = Validity(allValid: n)
            for i in stride(from: 3, to: n, by: 97) { validity.setInvalid(i) }
            let rows: [Row] = (0..<n).map { [validity.isValid($0) ? .int(values[$0]) : .null, .int(second[$0])] }
            let columns = [Vector(type: .bigint, data: .int64(values), validity: validity),
                           Vector(type: .bigint, data: .int64(second))]
            for keys in [[SortKey(column: 0)], [SortKey(column: 0, ascending: false)],
                         [SortKey(column: 0), SortKey(column: 1, ascending: false)],
                         [SortKey(column: 0, ascending: false, nullsFirst: false), SortKey(column: 1)]] {
                let perm = sortPermutation(columns: columns, keys: keys, count: n)
                let want = referenceSort(rows, keys)
                XCTAssertEqual(perm.map { rows[Int($0)] }, want, "from \(lo) spanning \(span), keys \(keys)")
            }
        }
        // The counting sort's own edges: too few rows, a span past the limit, one value.
        let tenK = (0..<10_000).map { Int64($0 % 37) }
        XCTAssertNil(RowSorter.countingSort(Array(0..<200), tenK, ascending: true, bounds: true))
        XCTAssertNil(RowSorter.countingSort(Array(0..<300), (0..<300).map { Int64($0) << 20 }, ascending: true, bounds: true))
        XCTAssertNil(RowSorter.countingSort(Array(0..<300), (0..<300).map { Int64($0) * 5 }, ascending: true, bounds: true),
                     "a span past four times the rows")
        XCTAssertNotNil(RowSorter.countingSort(Array(0..<300), (0..<300).map { Int64($0) * 3 }, ascending: true, bounds: true))
        let wide = (0..<100_000).map { Int64($0 % 70_000) }
        XCTAssertNil(RowSorter.countingSort(Array(0..<100_000), wide, ascending: true, bounds: false),
                     "a span past the cache-sized histogram")
        let same = try XCTUnwrap(RowSorter.countingSort(Array(0..<300), [Int64](repeating: -4, count: 300),
                                                        ascending: false, bounds: true))
        XCTAssertEqual(same.0, Array(0..<300))
        XCTAssertEqual(same.1, [0, 300])
        let picked: [Int32] = Array(stride(from: 0, to: 10_000, by: 3))
        let sorted = try XCTUnwrap(RowSorter.countingSort(picked, tenK, ascending: true, bounds: true))
        XCTAssertEqual(sorted.0, picked.sorted { (tenK[Int($0)], $0) < (tenK[Int($1)], $1) })
        XCTAssertEqual(sorted.1.count, 38, "a boundary per value and the end")
        XCTAssertEqual(try XCTUnwrap(RowSorter.countingSort(picked, tenK, ascending: true, bounds: false)).1, [])
        XCTAssertEqual(sortPermutation(columns: [Vector(type: .bigint, data: .int64([]))], keys: [SortKey(column: 0)], count: 0), [])
        XCTAssertEqual(sortPermutation(columns: [Vector(type: .bigint, data: .int64([8]))], keys: [SortKey(column: 0)], count: 1), [0])
    }

    func testDefaultNullOrdering() {
        XCTAssertFalse(SortKey(column: 0).nullsFirst)
        XCTAssertTrue(SortKey(column: 0, ascending: false).nullsFirst)
        XCTAssertTrue(SortKey(column: 0, ascending: true, nullsFirst: true).nullsFirst)
    }

    func testSmallExample() throws {
        let types: [DataType] = [.integer, .varchar(10)]
        let rows: [Row] = [[.int(3), .string("c")], [.null, .string("n")], [.int(1), .string("a")],
                           [.int(2), .string("b1")], [.int(2), .string("b2")]]
        let asc = try sort(rows, [SortKey(column: 0)], types: types)
        XCTAssertEqual(asc.map { $0[1] }, ["a", "b1", "b2", "c", "n"].map { Value.string($0) })
        let desc = try sort(rows, [SortKey(column: 0, ascending: false)], types: types)
        XCTAssertEqual(desc.map { $0[1] }, ["n", "c", "b1", "b2", "a"].map { Value.string($0) })
        let ascNullsFirst = try sort(rows, [SortKey(column: 0, ascending: true, nullsFirst: true)], types: types)
        XCTAssertEqual(ascNullsFirst.map { $0[1] }, ["n", "a", "b1", "b2", "c"].map { Value.string($0) })
        let descNullsLast = try sort(rows, [SortKey(column: 0, ascending: false, nullsFirst: false)], types: types)
        XCTAssertEqual(descNullsLast.map { $0[1] }, ["c", "b1", "b2", "a", "n"].map { Value.string($0) })
    }

    func testAgainstReferenceForEveryType() throws {
        let rows = mixedRows(3000, seed: 11)
        let keySets: [[SortKey]] = [
            [SortKey(column: 0)], [SortKey(column: 0, ascending: false)],
            [SortKey(column: 1)], [SortKey(column: 1, ascending: false, nullsFirst: false)],
            [SortKey(column: 2, ascending: true, nullsFirst: true)], [SortKey(column: 3, ascending: false)],
            [SortKey(column: 4)], [SortKey(column: 5)], [SortKey(column: 6, ascending: false)],
            [SortKey(column: 7)], [SortKey(column: 8, ascending: false)], [SortKey(column: 9)],
            [SortKey(column: 0), SortKey(column: 1, ascending: false)],
            [SortKey(column: 6), SortKey(column: 9, ascending: false, nullsFirst: false), SortKey(column: 5)],
        ]
        for keys in keySets {
            XCTAssertEqual(try sort(rows, keys), referenceSort(rows, keys), "keys \(keys)")
        }
        // Selection vectors and small chunks on the input.
        let keys = [SortKey(column: 1), SortKey(column: 2)]
        XCTAssertEqual(try sort(rows, keys, chunkSize: 77, selection: true), referenceSort(rows, keys))
    }

    func testStability() throws {
        let types: [DataType] = [.integer, .bigint]
        let rows: [Row] = (0..<5000).map { [.int(Int64(($0 * 7) % 5)), .int(Int64($0))] }
        for asc in [true, false] {
            let out = try sort(rows, [SortKey(column: 0, ascending: asc)], types: types)
            for i in 1..<out.count where out[i - 1][0] == out[i][0] {
                guard case .int(let a) = out[i - 1][1], case .int(let b) = out[i][1] else { return XCTFail() }
                XCTAssertLessThan(a, b)
            }
            XCTAssertEqual(out, referenceSort(rows, [SortKey(column: 0, ascending: asc)]))
            // Top-N keeps the same stable order.
            XCTAssertEqual(try sort(rows, [SortKey(column: 0, ascending: asc)], types: types, limit: 1500, offset: 700),
                           Array(out[700..<2200]))
        }
    }

    func testStrings() throws {
        let types: [DataType] = [.varchar(50), .bigint]
        let words = ["", "a", "a\u{0}", "ab", "abcdefgh", "abcdefgh", "abcdefghi", "abcdefgha", "abcdefgh\u{0}z",
                     "b", "B", "é", "zzzzzzzzzzzzzzzz", "abcdefgZ"]
        let rows: [Row] = words.enumerated().map { [.string($1), .int(Int64($0))] }
        for asc in [true, false] {
            let keys = [SortKey(column: 0, ascending: asc)]
            XCTAssertEqual(try sort(rows, keys, types: types), referenceSort(rows, keys))
        }
        let out = try sort(rows, [SortKey(column: 0)], types: types)
        XCTAssertEqual(out.first?[0], .string(""))
        XCTAssertEqual(out.last?[0], .string("é"))
    }

    func testDoublesWithNaN() throws {
        let types: [DataType] = [.double]
        let rows: [Row] = [[.double(1)], [.double(.nan)], [.null], [.double(-.infinity)], [.double(0)], [.double(.infinity)]]
        let out = try sort(rows, [SortKey(column: 0)], types: types)
        XCTAssertEqual(out[0][0], .double(-.infinity))
        XCTAssertEqual(out[3][0], .double(.infinity))
        if case .double(let d) = out[4][0] { XCTAssertTrue(d.isNaN) } else { XCTFail("NaN before NULL") }
        XCTAssertEqual(out[5][0], .null)
    }

    func testTopNMatchesSortPlusLimit() throws {
        let rows = mixedRows(20000, seed: 12, groups: 500)
        let keys = [SortKey(column: 0, ascending: false), SortKey(column: 1)]
        let full = referenceSort(rows, keys)
        for (limit, offset) in [(0, 0), (1, 0), (10, 0), (10, 5), (100, 2990), (5000, 100), (30000, 0), (10, 25000)] {
            let top = try sort(rows, keys, limit: limit, offset: offset, chunkSize: 1000)
            let lo = min(offset, full.count), hi = min(full.count, offset + limit)
            XCTAssertEqual(top, Array(full[lo..<hi]), "limit \(limit) offset \(offset)")
        }
        // Limits too large for Top-N: a full sort, truncated.
        XCTAssertEqual(try sort(rows, keys, limit: Int.max, offset: 5), Array(full[5...]))
        XCTAssertEqual(try sort(rows, keys, limit: 1 << 25), full)
        // Offset without limit.
        XCTAssertEqual(try sort(rows, keys, offset: 19990), Array(full[19990...]))
    }

    func testBoundarySizes() throws {
        let types: [DataType] = [.bigint, .varchar(20)]
        for n in boundarySizes {
            var rng = SeededRandom(seed: UInt64(n))
            let rows: [Row] = (0..<n).map { i in
                [rng.chance(0.05) ? .null : .int(Int64(rng.int(-500...500))), .string("r\(i)")]
            }
            let keys = [SortKey(column: 0)]
            let op = SortOperator(input: source(types, rows), keys: keys, context: QueryContext())
            let chunks = try drainChunks(op)
            XCTAssertTrue(chunks.allSatisfy { $0.count <= Chunk.capacity && $0.count > 0 })
            XCTAssertEqual(chunks.count, (n + Chunk.capacity - 1) / Chunk.capacity)
            XCTAssertEqual(try sort(rows, keys, types: types), referenceSort(rows, keys))
            XCTAssertEqual(try sort(rows, keys, types: types, limit: 3), Array(referenceSort(rows, keys).prefix(3)))
        }
    }

    func testTopKHeap() {
        // Direct test of the heap selection on integers.
        var rng = SeededRandom(seed: 5)
        let values = (0..<1000).map { _ in rng.int(0...50) }
        let less: (Int32, Int32) -> Bool = { a, b in
            let x = values[Int(a)], y = values[Int(b)]
            return x != y ? x < y : a < b
        }
        let all: [Int32] = (0..<Int32(values.count)).sorted(by: less)
        for k in [1, 2, 10, 999, 1000] {
            let top = SortOperator.topK(count: values.count, keep: k, less: less)
            XCTAssertEqual(top, Array(all.prefix(k)))
        }
    }
}
