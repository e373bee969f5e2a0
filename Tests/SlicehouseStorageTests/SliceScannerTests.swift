// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage

/// Rows that a scan's row checks keep sparsely (at most a quarter of a range) leave the
/// scanner coalesced into chunks of at least `SliceScanner.coalescedRows` rows, in order,
/// interleaved correctly with the dense ranges' own chunks.
final class SliceScannerTests: XCTestCase {
    /// One slice of `values` in column 0 and `values * 10` (NULL at every 7th row) in
    /// column 1, as decoded blocks of `blockRows` rows.
    func slice(_ values: [Int64], blockRows: Int) -> SliceData {
        var keys: [BlockRef] = [], tens: [BlockRef] = []
        var first = 0, uid: UInt64 = 1
        while first < values.count {
            let n = min(blockRows, values.count - first)
            let k = Vector(type: .bigint, data: .int64(Array(values[first..<(first + n)])))
            var bits = Validity(allValid: n)
            for i in 0..<n where (first + i) % 7 == 0 { bits.setInvalid(i) }
            let t = Vector(type: .bigint, data: .int64(values[first..<(first + n)].map { $0 * 10 }), validity: bits)
            keys.append(BlockRef(uid: uid, payload: .vector(k), encoding: .raw, firstRow: first,
                                 zone: ZoneMap.compute(k, start: 0, count: n)))
            tens.append(BlockRef(uid: uid + 1, payload: .vector(t), encoding: .raw, firstRow: first,
                                 zone: ZoneMap.compute(t, start: 0, count: n)))
            uid += 2
            first += n
        }
        return SliceData(rowCount: values.count, sortedRows: 0, columns: [keys, tens], deleted: DeleteSet(), deleteFile: nil)
    }

    func scan(_ data: [SliceData], _ predicate: ZonePredicate) throws -> [Chunk] {
        let scanner = SliceScanner(parts: data.enumerated().map { ($0.offset, $0.element) }, columns: [0, 1],
                                   types: [.bigint, .bigint], predicates: [predicate], cache: BlockCache(capacityBytes: 0))
        var chunks: [Chunk] = []
        while let c = try scanner.next() { chunks.append(c) }
        return chunks
    }

    /// The rows of the chunks (selections applied) as (key, tens or nil).
    func rows(_ chunks: [Chunk]) -> [[Int64?]] {
        var out: [[Int64?]] = []
        for c in chunks {
            let sel = c.selection.map { $0.map(Int.init) } ?? Array(0..<c.count)
            for r in sel {
                out.append(c.columns.map { v in
                    guard case .int64(let a) = v.data, v.validity?.isValid(r) ?? true else { return nil }
                    return a[r]
                })
            }
        }
        return out
    }

    func expected(_ values: [Int64], _ keep: (Int64) -> Bool) -> [[Int64?]] {
        values.enumerated().filter { keep($0.element) }.map { [$0.element, $0.offset % 7 == 0 ? nil : $0.element * 10] }
    }

    /// A range's rows of an encoded filter's block bitmap, and the rows set in it, word
    /// by word: any start bit, counts across words, bits past the bitmap read as unset.
    func testBitRangesAndTheirSetBits() {
        var rng = SystemRandomNumberGenerator()
        let words: [UInt64] = (0..<5).map { _ in rng.next() }
        func bit(_ i: Int) -> Bool { i < 320 && (words[i >> 6] >> UInt64(i & 63)) & 1 == 1 }
        for from in [0, 1, 63, 64, 65, 127, 200, 319] {
            for count in [1, 2, 63, 64, 65, 128, 130, 300] {
                let got = SliceScanner.bits(words, from: from, count: count)
                XCTAssertEqual(got.count, (count + 63) >> 6)
                for i in 0..<count {
                    XCTAssertEqual((got[i >> 6] >> UInt64(i & 63)) & 1 == 1, bit(from + i), "from \(from) count \(count) bit \(i)")
                }
                let expected = (0..<count).filter { bit(from + $0) }.map { Int32($0) }
                XCTAssertEqual(SliceScanner.setBits(got, count: count), expected, "from \(from) count \(count)")
            }
        }
        XCTAssertEqual(SliceScanner.setBits([~0, ~0], count: 70), (0..<70).map { Int32($0) })
        XCTAssertEqual(SliceScanner.setBits([], count: 0), [])
    }

    func testSparseRangesLeaveAsFewLargeChunks() throws {
        let values = (0..<50_000).map { Int64($0) }
        // Every 50th value: about 41 rows of each 2,048-row range.
        let list = stride(from: 3, to: 50_000, by: 50).map { ZoneBound.int(Int64($0)) }
        let chunks = try scan([slice(values, blockRows: 4_096)], ZonePredicate(column: 0, ops: [], inList: list))
        XCTAssertEqual(rows(chunks), expected(values) { $0 % 50 == 3 })
        XCTAssertEqual(chunks.map(\.count).reduce(0, +), 1_000)
        for c in chunks.dropLast() { XCTAssertGreaterThanOrEqual(c.count, SliceScanner.coalescedRows) }
        XCTAssertTrue(chunks.allSatisfy { $0.count <= Chunk.capacity })
        XCTAssertLessThanOrEqual(chunks.count, 1_000 / SliceScanner.coalescedRows + 1)
    }

    func testDenseRangesBetweenSparseOnesKeepTheirOrder() throws {
        // Values 10,240 ..< 11,264 all match: half of one 2,048-row range, which leaves
        // as its own chunk with a selection. Elsewhere every 100th does (carried), before
        // and after it. (A check that keeps over a quarter of the rows stops, leaving the
        // filter to the operator above: the matches stay fewer here.)
        let values = (0..<30_000).map { Int64($0) }
        let keep: (Int64) -> Bool = { (10_240..<11_264).contains($0) || $0 % 100 == 1 }
        let list = values.filter(keep).map { ZoneBound.int($0) }
        let chunks = try scan([slice(values, blockRows: 3_000)], ZonePredicate(column: 0, ops: [], inList: list))
        let got = rows(chunks), want = expected(values, keep)
        XCTAssertEqual(got.count, want.count)
        XCTAssertEqual(got.firstIndex { !want.contains($0) }, nil)
        XCTAssertTrue(got == want, "rows out of order")
        XCTAssertTrue(chunks.allSatisfy { $0.count <= Chunk.capacity })
        // The dense range's chunk comes between two carried ones.
        XCTAssertEqual(chunks.count, 3)
        XCTAssertEqual(chunks.map { $0.selection == nil }, [true, false, true])
    }

    func testCarriedRowsCrossSlicesAndEndTheScan() throws {
        // Three slices with few matches each: their rows leave together, once, at the end.
        let a = (0..<6_000).map { Int64($0) }, b = (6_000..<9_000).map { Int64($0) }, c = (9_000..<9_500).map { Int64($0) }
        let keep: (Int64) -> Bool = { $0 % 1_000 == 999 || $0 == 9_499 }
        let list = (a + b + c).filter(keep).map { ZoneBound.int($0) }
        let chunks = try scan([slice(a, blockRows: 2_048), slice(b, blockRows: 2_048), slice(c, blockRows: 2_048)],
                              ZonePredicate(column: 0, ops: [], inList: list))
        XCTAssertEqual(chunks.count, 1)
        XCTAssertEqual(rows(chunks).map { $0[0] }, [999, 1_999, 2_999, 3_999, 4_999, 5_999, 6_999, 7_999, 8_999, 9_499])
        // No match at all: no chunk.
        XCTAssertEqual(try scan([slice(a, blockRows: 2_048)], ZonePredicate(column: 0, ops: [(.eq, .int(-5))])).count, 0)
        // One row: one chunk of one row.
        let one = try scan([slice(a, blockRows: 2_048)], ZonePredicate(column: 0, ops: [(.eq, .int(17))]))
        XCTAssertEqual(rows(one), [[17, 170]])
    }
}
