// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehouseRuntime
@testable import SlicehouseStorage

/// The cache keeps integer blocks narrow (`CompactBlock`): every piece widens back to
/// exactly the decoded piece, at every width, with NULLs, extremes and any first row.
final class CompactBlockTests: XCTestCase {
    /// Values spanning `span` above `base`, NULL at every 5th row when `nulls`.
    func vector(_ n: Int, base: Int64, span: UInt64, nulls: Bool, seed: UInt64) -> Vector {
        var state = seed
        let values = (0..<n).map { i -> Int64 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let d = span == 0 ? 0 : (state >> 1) % span
            return i == 0 ? base : base &+ Int64(bitPattern: i == 1 ? span &- 1 : d)
        }
        guard nulls else { return Vector(type: .bigint, data: .int64(values)) }
        var validity = Validity(allValid: n)
        for r in stride(from: 0, to: n, by: 5) { validity.setInvalid(r) }
        return Vector(type: .bigint, data: .int64(values), validity: validity)
    }

    func assertSame(_ a: Vector, _ b: Vector, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        for i in 0..<min(a.count, b.count) where a.value(at: i) != b.value(at: i) {
            return XCTFail("\(message): row \(i) is \(a.value(at: i)), want \(b.value(at: i))", file: file, line: line)
        }
    }

    /// The bytes a piece's values take as differences from its smallest (nil: 8).
    func expectedWidth(_ v: Vector) -> Int? {
        guard case .int64(let a) = v.data, let lo = a.min(), let hi = a.max() else { return nil }
        let span = UInt64(bitPattern: hi &- lo)
        if hi.subtractingReportingOverflow(lo).overflow { return nil }
        return span <= 0xFF ? 1 : span <= 0xFFFF ? 2 : span <= 0xFF_FFFF ? 3 : span <= 0xFFFF_FFFF ? 4 : nil
    }

    func testEveryWidthWidensToTheDecodedValues() {
        let c = Chunk.capacity
        let cases: [(base: Int64, span: UInt64, width: Int?)] = [
            (0, 1, 1), (-5, 256, 1), (1_000_000, 257, 2), (Int64.min, 65_536, 2), (-1, 65_537, 3),
            (0, 1 << 24, 3), (Int64.max - (1 << 24) + 1, 1 << 24, 3), (5, (1 << 24) + 1, 4),
            (Int64.max - (1 << 32) + 1, 1 << 32, 4), (0, (1 << 32) + 1, nil), (Int64.min, UInt64.max, nil),
        ]
        for (base, span, width) in cases {
            for n in [1, 2, c + 1, 2 * c + 100] {
                for firstRow in [0, 5, c - 1, 3 * c + 17] {
                    for nulls in [false, true] where n > 1 || !nulls {
                        let v = vector(n, base: base, span: span, nulls: nulls, seed: UInt64(n + firstRow))
                        let d = DecodedBlock(v, firstRow: firstRow)
                        let label = "base \(base) span \(span) n \(n) first \(firstRow) nulls \(nulls)"
                        let widths = d.pieces.map(expectedWidth)
                        if n > 1, firstRow % c + 2 <= c { XCTAssertEqual(widths.first ?? nil, width, "\(label): the first piece's width") }
                        guard let compact = CompactBlock.make(d, type: .bigint) else {
                            XCTAssertTrue(widths.allSatisfy { $0 == nil }, "\(label): narrows")
                            continue
                        }
                        XCTAssertEqual(compact.pieces.count, d.pieces.count, label)
                        for (i, piece) in d.pieces.enumerated() {
                            assertSame(compact.vector(i), piece, "\(label) piece \(i)")
                            XCTAssertEqual(compact.vector(i).validity, piece.validity, "\(label) piece \(i) NULLs")
                            if case .narrow(_, let w, _, _, _) = compact.pieces[i] {
                                XCTAssertEqual(w, widths[i], "\(label) piece \(i)")
                            } else {
                                XCTAssertNil(widths[i], "\(label): piece \(i) kept wide")
                            }
                        }
                        // Rows map to the same piece and offset; a reader widens each piece once.
                        let reader = CompactReader(compact)
                        for row in [firstRow, firstRow + n / 2, firstRow + n - 1] {
                            let (p, offset) = reader.piece(containing: row)
                            let (want, wantOffset) = d.piece(containing: row)
                            XCTAssertEqual(offset, wantOffset, "\(label) row \(row)")
                            XCTAssertEqual(p.value(at: offset), want.value(at: wantOffset), "\(label) row \(row)")
                        }
                        // A few rows of a piece, straight from the narrow values.
                        let (wantPiece, wantOffset) = d.piece(containing: firstRow + n - 1)
                        let rows = [Int32(0)]
                        assertSame(compact.gather(rows, first: firstRow + n - 1), wantPiece.gather([Int32(wantOffset)]),
                                   "\(label) gather")
                        let whole = compact.decoded()
                        XCTAssertEqual(whole.count, n, label)
                        assertSame(whole.joined(), v, "\(label) decoded again")
                    }
                }
            }
        }
    }

    /// A range tested on the narrow values (`CompactBlock.keep`, a scan's row check over a
    /// cached column) keeps exactly the rows a test of the widened values keeps: every
    /// width, bounds below, inside, across and above the piece's values, bounds at the
    /// extremes of Int64, NULLs, a selection, a range that starts inside a piece. Several
    /// rows gathered from the narrow values are the widened piece's rows.
    func testRangesTestedOnNarrowValuesKeepTheWidenedValuesRows() {
        let c = Chunk.capacity
        for (base, span) in [(Int64(-5), UInt64(256)), (1_000_000, 60_000), (-1, 1 << 31), (Int64.min, 200), (Int64.max - 300, 300),
                             (100, 1 << 24), (Int64.min, 70_000), (Int64.max - 5_000_000, 5_000_000)] {
            for nulls in [false, true] {
                let n = 2 * c + 100, firstRow = 7
                let v = vector(n, base: base, span: span, nulls: nulls, seed: span)
                let d = DecodedBlock(v, firstRow: firstRow)
                guard let compact = CompactBlock.make(d, type: .bigint) else { return XCTFail("\(base) \(span): narrows") }
                let mid = base &+ Int64(span / 2)
                let bounds: [(Int64, Int64)] = [
                    (Int64.min, Int64.max), (Int64.min, base &- 1), (base, base), (mid, mid &+ Int64(span / 8)),
                    (base &+ 3, mid), (mid, Int64.max), (mid &+ 1, mid), (Int64.min, mid), (base &+ Int64(span), Int64.max),
                ]
                // Ranges of a chunk's rows, each within one piece as a scan cuts them.
                for (start, count) in [(firstRow, c - firstRow), (c, c), (c + 100, 900), (2 * c, 100 + firstRow)] {
                    let (piece, offset) = d.piece(containing: start)
                    let values = (0..<count).map { piece.isNull(offset + $0) ? nil : piece.value(at: offset + $0) }
                    for (low, high) in bounds {
                        for selection in [nil, Array(stride(from: Int32(1), to: Int32(count), by: 3))] {
                            let label = "base \(base) span \(span) nulls \(nulls) rows \(start)+\(count) \(low)...\(high) selected \(selection != nil)"
                            let want = (selection ?? (0..<Int32(count)).map { $0 }).filter { r in
                                guard case .int(let x)? = values[Int(r)] else { return false }
                                return low <= x && x <= high
                            }
                            guard let got = compact.keep(from: start, count: count, low: low, high: high, selection: selection) else {
                                XCTFail("\(label): kept wide"); continue
                            }
                            XCTAssertEqual(got, want, label)
                        }
                    }
                    let rows: [Int32] = [0, Int32(count / 2), Int32(count - 1)]
                    assertSame(compact.gather(rows, first: start), piece.gather(rows.map { $0 + Int32(offset) }),
                               "base \(base) span \(span) gather at \(start)")
                }
            }
        }
        // A wide piece is left to the caller.
        let wide = DecodedBlock(vector(100, base: 0, span: UInt64.max, nulls: false, seed: 3), firstRow: 0)
        XCTAssertNil(CompactBlock.make(wide, type: .bigint)?.keep(from: 0, count: 100, low: 0, high: 5, selection: nil))
    }

    /// Only 64-bit integer blocks narrow; constant pieces stay as they are.
    func testOtherTypesAndConstantsStayDecoded() {
        let doubles = Vector(type: .double, data: .double([1, 2, 3]))
        XCTAssertNil(CompactBlock.make(DecodedBlock(doubles, firstRow: 0), type: .double))
        var s = StringArray(reservingCount: 2, bytes: 2)
        s.append("a"); s.append("b")
        XCTAssertNil(CompactBlock.make(DecodedBlock(Vector(type: .varchar(1), data: .string(s)), firstRow: 0), type: .varchar(1)))
        let constant = Vector(type: .bigint, data: .int64([7]), isConstant: true)
        XCTAssertNil(CompactBlock.make(DecodedBlock(constant, firstRow: 0, cut: false), type: .bigint))
    }

    /// Through the cache and a scan: the third statement reads the narrowed block; dense
    /// and sparse ranges (a few rows kept by a filter) give the same rows as the first.
    func testScansOfANarrowedBlockReadTheSameRows() throws {
        let n = 3 * Chunk.capacity + 500
        let v = vector(n, base: 19_000, span: 3_000, nulls: true, seed: 3)
        let bytes = try BlockEncoder.encode(v, start: 0, count: n, encoding: .az64)
        let ref = BlockRef(uid: BlockIDs.make(), payload: .memory(EncodedBytes(bytes)), encoding: .az64, firstRow: 0,
                           zone: ZoneMap.compute(v, start: 0, count: n))
        let data = SliceData(rowCount: n, sortedRows: 0, columns: [[ref]], deleted: DeleteSet(), deleteFile: nil)
        let cache = BlockCache(capacityBytes: 1 << 24)
        func scan(_ predicates: [ZonePredicate]) throws -> [Value] {
            cache.beginStatement()
            let scanner = SliceScanner(parts: [(0, data)], columns: [0], types: [.integer], predicates: predicates,
                                       cache: cache)
            var out: [Value] = []
            while let c = try scanner.next() {
                let rows = c.selection.map { $0.map(Int.init) } ?? Array(0..<c.count)
                for r in rows { out.append(c.columns[0].value(at: r)) }
            }
            return out
        }
        let few = [ZonePredicate(column: 0, ops: [(.le, .int(19_020))])]
        let all = try scan([]), some = try scan(few)
        XCTAssertGreaterThan(cache.usedBytes, 0, "kept by the second statement")
        XCTAssertLessThan(cache.usedBytes, n * 3, "2 bytes a value and the NULL bitmap")
        XCTAssertEqual(try scan([]), all)
        XCTAssertEqual(try scan(few), some)
        XCTAssertEqual(all.count, n)
        XCTAssertEqual(some, all.filter { if case .int(let x) = $0 { return x <= 19_020 } else { return false } })
        XCTAssertGreaterThan(some.count, 0)
        XCTAssertEqual(try cache.vector(ref, type: .integer).count, n)
        guard case .compact = try cache.forScan(ref, type: .integer) else { return XCTFail("kept narrow") }
    }
}
