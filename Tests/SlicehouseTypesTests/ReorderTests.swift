// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseTypes

/// `ReorderPlan` must give exactly what the plain gather gives for the permuted
/// references, for every physical type and across window edges.
final class ReorderPlanTests: XCTestCase {
    /// A seeded linear congruential generator (the high bits are used).
    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11 | state << 53
        }
        mutating func below(_ n: Int) -> Int { Int((next() >> 11) % UInt64(n)) }
    }

    /// Parts of `sizes` rows of every type; strings of 0 to 100 bytes, some multibyte;
    /// short strings (at most 15 bytes: the packed gather); short strings but for one
    /// long value in the last part (the packed gather gives up part-way).
    func parts(_ sizes: [Int], rng: inout Rng) -> [[Vector]] {
        sizes.enumerated().map { part, n in
            var strings = StringArray(), short = StringArray(), mostlyShort = StringArray()
            for i in 0..<n {
                let len = [0, 1, 3, 7, 8, 15, 16, 17, 40, 64, 65, 100][rng.below(12)]
                strings.append(String((0..<len).map { _ in ["a", "é", "z", "Q", " "][rng.below(5)] }))
                var value = ""
                let target = rng.below(16)
                while value.utf8.count < target {
                    let c = ["b", "é", "Y", "0", " "][rng.below(5)]
                    if value.utf8.count + c.utf8.count > 15 { break }
                    value += c
                }
                short.append(value)
                mostlyShort.append(part == sizes.count - 1 && i == n * 3 / 4 ? String(repeating: "L", count: 16) : value)
            }
            return [
                Vector(type: .bigint, data: .int64((0..<n).map { _ in Int64(bitPattern: rng.next()) })),
                Vector(type: .decimal(precision: 30, scale: 2), data: .int128((0..<n).map { _ in Int128(Int64(bitPattern: rng.next())) << 20 })),
                Vector(type: .double, data: .double((0..<n).map { _ in Double(rng.below(1_000_000)) / 7 })),
                Vector(type: .boolean, data: .bool((0..<n).map { _ in rng.below(2) == 0 })),
                Vector(type: .varchar(400), data: .string(strings)),
                Vector(type: .varchar(15), data: .string(short)),
                Vector(type: .varchar(16), data: .string(mostlyShort)),
            ]
        }
    }

    /// A plan over about two thirds of the rows of parts of `sizes` rows (in source
    /// order, as a slice sees them), in a random order.
    func randomPlan(_ sizes: [Int], rng: inout Rng) throws -> ReorderPlan {
        var chunk: [Int32] = [], row: [Int32] = []
        for (c, n) in sizes.enumerated() {
            for r in 0..<n where rng.below(3) != 0 { chunk.append(Int32(c)); row.append(Int32(r)) }
        }
        var order = Array(0..<Int32(chunk.count))
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.below(i + 1)) }
        return try XCTUnwrap(ReorderPlan(chunk: chunk, row: row, order: order))
    }

    func testMatchesThePlainGather() throws {
        var rng = Rng(state: 42)
        for (sizes, picked) in [([5], 5), ([3000, 5000, 1], 6000), ([10_000, 9_000], 19_000), ([4096, 4096], 8192),
                                ([70_000], 50_000)] {
            let data = parts(sizes, rng: &rng)
            // Source references in source order (a subset of the rows, as a slice sees them).
            var chunk: [Int32] = [], row: [Int32] = []
            for (c, n) in sizes.enumerated() {
                for r in 0..<n where chunk.count < picked && (n <= picked / sizes.count || rng.below(4) != 0) {
                    chunk.append(Int32(c)); row.append(Int32(r))
                }
            }
            var order = Array(0..<Int32(chunk.count))
            for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.below(i + 1)) }
            let plan = try XCTUnwrap(ReorderPlan(chunk: chunk, row: row, order: order))
            XCTAssertEqual(plan.count, chunk.count)
            let refs = plan.orderedReferences
            XCTAssertEqual(refs.chunk, order.map { chunk[Int($0)] })
            for column in 0..<7 {
                let columnParts = data.map { $0[column] }
                let type = columnParts[0].type
                let want = Vector.gather(from: columnParts, type: type, chunk: refs.chunk, row: refs.row)
                let got = plan.gather(from: columnParts, type: type)
                XCTAssertEqual(got.data, want.data, "sizes \(sizes), column \(column)")
                XCTAssertNil(got.validity)
            }
        }
    }

    /// A plan's pieces (window-aligned ranges of output rows) gather, one after another,
    /// exactly what the whole plan gathers; a range off the windows has no piece.
    func testPiecesGatherWhatTheWholePlanGathers() throws {
        var rng = Rng(state: 7)
        let sizes = [6_000, 9_000, 3]
        let data = parts(sizes, rng: &rng)
        let plan = try randomPlan(sizes, rng: &rng)
        let w = ReorderPlan.windowRows
        XCTAssertGreaterThan(plan.count, 2 * w + 1, "a last window that is not full")
        for pieceRows in [w, 2 * w] {
            for column in 0..<7 {
                let columnParts = data.map { $0[column] }
                let type = columnParts[0].type
                let want = plan.gather(from: columnParts, type: type)
                var got = Vector(type: type)
                var start = 0
                while start < plan.count {
                    let end = min(start + pieceRows, plan.count)
                    let piece = try XCTUnwrap(plan.piece(start..<end))
                    XCTAssertEqual(piece.count, end - start)
                    got.append(piece.gather(from: columnParts, type: type), rows: end - start)
                    start = end
                }
                XCTAssertEqual(got.flattened(count: plan.count).data, want.data, "pieces of \(pieceRows), column \(column)")
            }
        }
        XCTAssertNil(plan.piece(1..<w), "not at a window's start")
        XCTAssertNil(plan.piece(0..<(w + 1)), "not at a window's end")
        XCTAssertNil(plan.piece(0..<(plan.count + 1)))
        XCTAssertEqual(plan.piece(0..<0)?.count, 0)
    }

    /// Integer parts held narrowed (1 to 4 bytes above a base) or wide, gathered
    /// without widening them first: the plain gather's values of the widened parts; rows
    /// past a part's end read 0 as the plain gather's do. Three-byte parts end with an
    /// extra byte (`NarrowIntegers.byteCount`), here not 0: it is never part of a value.
    func testNarrowIntPartsMatchTheWideGather() throws {
        var rng = Rng(state: 7)
        let sizes = [3000, 1, 5000, 4096, 700, 1500]
        let widths = [1, 3, 4, 8, 2, 3]
        var wide: [Vector] = [], parts: [ReorderPlan.IntPart] = []
        for (n, w) in zip(sizes, widths) {
            let base = Int64(bitPattern: rng.next()) >> 2
            let span: UInt64 = w == 8 ? UInt64.max : (1 << UInt64(8 * w)) - 1
            var values: [Int64] = [], bytes: [UInt8] = []
            for _ in 0..<n {
                let d = w == 8 ? rng.next() : rng.next() & span
                values.append(w == 8 ? Int64(bitPattern: d) : base &+ Int64(d))
                for b in 0..<min(w, 4) { bytes.append(UInt8(truncatingIfNeeded: d >> UInt64(8 * b))) }
            }
            if w == 3 { bytes.append(0xAB) }
            if w < 8 { XCTAssertEqual(bytes.count, NarrowIntegers.byteCount(count: n, width: w)) }
            wide.append(Vector(type: .bigint, data: .int64(values)))
            parts.append(w == 8 ? .wide(values) : .narrow(base: base, width: w, bytes: bytes))
        }
        let plan = try randomPlan(sizes, rng: &rng)
        let want = plan.gather(from: wide, type: .bigint)
        let got = plan.gather(ints: parts, type: .date)
        XCTAssertEqual(got.data, want.data)
        XCTAssertEqual(got.type, .date)
        XCTAssertNil(got.validity)
        // A reference past a part's end reads 0, as in the plain gather.
        let short = try XCTUnwrap(ReorderPlan(chunk: [0, 1], row: [2, 0], order: [1, 0]))
        XCTAssertEqual(short.gather(ints: [.narrow(base: 5, width: 1, bytes: [1, 2]), .wide([9])], type: .bigint).data,
                       .int64([9, 0]))
        XCTAssertEqual(ReorderPlan(chunk: [], row: [], order: [])?.gather(ints: [], type: .bigint).count, 0)
    }

    /// The row-by-row gather of narrow parts (a sorted COPY's sort keys, `Distributor`)
    /// reads every width; a row at or past its part's end reads 0 — for three bytes too,
    /// whose array's extra byte (here not 0) is no row and no part of one.
    func testRowByRowGatherOfNarrowParts() {
        let wide: [Int64] = [70_000, 5, 16_777_215 + 5, 1_000]
        var three: [UInt8] = wide.flatMap { v in (0..<3).map { UInt8(truncatingIfNeeded: (v - 5) >> (8 * $0)) } }
        three.append(0xCD)
        let parts: [ReorderPlan.IntPart] = [.narrow(base: 5, width: 3, bytes: three), .narrow(base: -1, width: 1, bytes: [0, 2]),
                                            .wide([42]), .narrow(base: 7, width: 4, bytes: [1, 0, 0, 1])]
        let chunk: [Int32] = [0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4]
        let row: [Int32] = [3, 0, 2, 1, 4, 1, 0, 2, 0, 1, 0, 1, 0]
        let want: [Int64] = [1_000, 70_000, 16_777_220, 5, 0, 1, -1, 0, 42, 0, 7 + (1 << 24) + 1, 0, 0]
        XCTAssertEqual(ReorderPlan.gather(ints: parts, type: .bigint, chunk: chunk, row: row).data, .int64(want))
    }

    /// One-byte values (a COPY's held dictionary codes) gathered as bytes: the values the
    /// integer gather gives for the same parts; past a part's end, 0.
    func testByteGatherMatchesTheIntegerGather() throws {
        var rng = Rng(state: 11)
        let sizes = [3000, 1, 5000, 4096, 700]
        let bytes = sizes.map { n in (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        let plan = try randomPlan(sizes, rng: &rng)
        let ints = plan.gather(ints: bytes.map { .narrow(base: 0, width: 1, bytes: $0) }, type: .bigint)
        XCTAssertEqual(.int64(plan.gather(bytes: bytes).map { Int64($0) }), ints.data)
        let short = try XCTUnwrap(ReorderPlan(chunk: [0, 1], row: [2, 0], order: [1, 0]))
        XCTAssertEqual(short.gather(bytes: [[1, 2], [9]]), [9, 0])
        XCTAssertEqual(ReorderPlan(chunk: [], row: [], order: [])?.gather(bytes: []), [])
    }

    /// The gathers take their references a run of one part at a time: a part may come
    /// back after others (runs of one row included), and a reference to a part that is
    /// missing, or past its part's end, reads 0 as in the plain gather.
    func testRunsOfOnePartInAnyOrder() throws {
        var rng = Rng(state: 13)
        let sizes = [50, 1, 70, 20]
        let values = sizes.map { n in (0..<n).map { _ in Int64(bitPattern: rng.next()) >> 1 } }
        let narrow: [ReorderPlan.IntPart] = values.enumerated().map { c, vs in
            c == 1 ? .wide(vs) : .narrow(base: -3, width: [1, 0, 2, 4][c],
                                          bytes: vs.indices.flatMap { i in (0..<[1, 0, 2, 4][c]).map { UInt8(truncatingIfNeeded: i >> (8 * $0)) } })
        }
        var chunk: [Int32] = [], row: [Int32] = [], want: [Int64] = []
        for (c, r) in [(2, 5), (2, 6), (0, 1), (2, 69), (1, 0), (0, 49), (0, 2), (3, 19), (2, 0), (4, 0), (4, 3), (0, 50), (3, 0), (1, 1)] {
            chunk.append(Int32(c))
            row.append(Int32(r))
            let inPart = c < sizes.count && r < sizes[c]
            want.append(!inPart ? 0 : c == 1 ? values[1][r] : -3 + Int64(r))
        }
        var order = Array(0..<Int32(chunk.count))
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.below(i + 1)) }
        let plan = try XCTUnwrap(ReorderPlan(chunk: chunk, row: row, order: order))
        let expected = order.map { want[Int($0)] }
        XCTAssertEqual(plan.gather(ints: narrow, type: .bigint).data, .int64(expected))
        // The fixed-width gather of the same positions, as bytes (row numbers) and as wide values.
        let rowBytes = sizes.map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0) } }
        XCTAssertEqual(plan.gather(bytes: rowBytes), order.map { j -> UInt8 in
            let (c, r) = (Int(chunk[Int(j)]), Int(row[Int(j)]))
            return c < sizes.count && r < sizes[c] ? UInt8(truncatingIfNeeded: r) : 0
        })
        let wide = values.map { Vector(type: .bigint, data: .int64($0)) }
        XCTAssertEqual(plan.gather(from: wide, type: .bigint).data, .int64(order.map { j -> Int64 in
            let (c, r) = (Int(chunk[Int(j)]), Int(row[Int(j)]))
            return c < sizes.count && r < sizes[c] ? values[c][r] : 0
        }))
    }

    func testNullsAreGatheredWithTheirRows() throws {
        var validity = Validity(allValid: 4)
        validity.setInvalid(2)
        let v = Vector(type: .bigint, data: .int64([10, 11, 12, 13]), validity: validity)
        let plan = try XCTUnwrap(ReorderPlan(chunk: [0, 0, 0, 0], row: [0, 1, 2, 3], order: [2, 0, 3, 1]))
        let got = plan.gather(from: [v], type: .bigint)
        XCTAssertEqual(got.data, .int64([12, 10, 13, 11]))
        XCTAssertEqual((0..<4).map { got.validity?.isValid($0) ?? true }, [false, true, true, true])
    }

    /// NULLs in some parts (every kind, across windows; a part without NULLs beside them):
    /// the windowed gather's values and NULLs are the plain gather's, and the narrow
    /// integer gather with the parts' NULLs beside them gives the same.
    func testNullsMatchThePlainGatherForEveryKind() throws {
        var rng = Rng(state: 17)
        let sizes = [3000, 1, 5000, 4096, 700]
        var vectors = parts(sizes, rng: &rng)
        for (p, n) in sizes.enumerated() where p != 2 {
            var validity = Validity(allValid: n)
            for r in 0..<n where rng.below(5) == 0 { validity.setInvalid(r) }
            vectors[p] = vectors[p].map { Vector(type: $0.type, data: $0.data, validity: validity) }
        }
        let plan = try randomPlan(sizes, rng: &rng)
        let refs = plan.orderedReferences
        for k in vectors[0].indices {
            let column = vectors.map { $0[k] }
            let want = Vector.gather(from: column, type: column[0].type, chunk: refs.chunk, row: refs.row)
            let got = plan.gather(from: column, type: column[0].type)
            XCTAssertEqual(got.data, want.data, "column \(k)")
            XCTAssertNotNil(got.validity)
            XCTAssertEqual((0..<got.count).map { got.validity?.isValid($0) ?? true },
                           (0..<want.count).map { want.validity?.isValid($0) ?? true }, "column \(k)")
        }
        let ints = vectors.map { $0[0] }
        let narrow: [ReorderPlan.IntPart] = ints.map { v in
            if case .int64(let a) = v.data { return .wide(a) }
            return .wide([])
        }
        let got = plan.gather(ints: narrow, type: .bigint, validities: ints.map(\.validity))
        let want = plan.gather(from: ints, type: .bigint)
        XCTAssertEqual(got.data, want.data)
        XCTAssertEqual(got.validity, want.validity)
        // No NULL among the rows gathered: no bitmap.
        let plain = vectors.map { Vector(type: .bigint, data: $0[0].data) }
        XCTAssertNil(plan.gatherValidity(plain.map(\.validity), rows: plain.map(\.count)))
    }

    func testRejectsAnOrderThatIsNotAPermutation() {
        XCTAssertNil(ReorderPlan(chunk: [0, 0], row: [0, 1], order: [0, 0]))
        XCTAssertNil(ReorderPlan(chunk: [0, 0], row: [0, 1], order: [0, 2]))
        XCTAssertNil(ReorderPlan(chunk: [0, 0], row: [0, 1], order: [1, -1]))
        XCTAssertNil(ReorderPlan(chunk: [0], row: [0, 1], order: [1, 0]))
        XCTAssertNotNil(ReorderPlan(chunk: [], row: [], order: []))
    }
}

final class ByteHelperTests: XCTestCase {
    /// `equalBytes` (hash-table key checks on strings) at every length around its word
    /// paths and at unaligned offsets: equal bytes match, and a change in any one byte
    /// does not.
    func testEqualBytesAtEveryLengthAndDifferingByte() {
        var state: UInt64 = 11
        func next() -> UInt8 { state = state &* 6364136223846793005 &+ 1442695040888963407; return UInt8(state >> 56) }
        for length in 0...40 {
            for offset in 0..<3 {
                let a = (0..<(length + offset)).map { _ in next() }
                var b = Array(a)
                a.withUnsafeBufferPointer { x in
                    b.withUnsafeBufferPointer { y in
                        XCTAssertTrue(equalBytes(x.baseAddress! + offset, y.baseAddress! + offset, length), "length \(length)")
                    }
                }
                // One differing byte at each position: every byte must take part.
                for p in offset..<(length + offset) {
                    b[p] ^= 0x20
                    a.withUnsafeBufferPointer { x in
                        b.withUnsafeBufferPointer { y in
                            XCTAssertFalse(equalBytes(x.baseAddress! + offset, y.baseAddress! + offset, length),
                                           "length \(length), byte \(p - offset)")
                        }
                    }
                    b[p] ^= 0x20
                }
            }
        }
    }

    /// Values of every length up to 40, the last one ending at the byte buffer's end.
    func testStringArrayGatherShortAndLongValues() {
        var values: [String] = []
        for n in 0...40 { values.append(String(repeating: Character(UnicodeScalar(UInt8(97 + n % 26))), count: n)) }
        values.append("end")
        var a = StringArray()
        for v in values { a.append(v) }
        let indices: [Int32] = (0..<Int32(values.count)).reversed() + [Int32(values.count - 1), 5, 0, 17, 16, 15, 8, 7]
        let got = a.gather(indices)
        XCTAssertEqual(got.count, indices.count)
        for (k, i) in indices.enumerated() { XCTAssertEqual(got[k], values[Int(i)], "row \(k)") }
    }

    func testCopyShortBytesEveryLength() {
        let source = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0..<150 {
            for offset in [0, 1, 7] {
                var out = [UInt8](repeating: 0xEE, count: 200)
                source.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        copyShortBytes(o.baseAddress! + offset, s.baseAddress! + offset, length)
                    }
                }
                XCTAssertEqual(Array(out[offset..<(offset + length)]), Array(source[offset..<(offset + length)]), "length \(length)")
                XCTAssertTrue(out[..<offset].allSatisfy { $0 == 0xEE }, "length \(length): wrote before")
                XCTAssertTrue(out[(offset + length)...].allSatisfy { $0 == 0xEE }, "length \(length): wrote past the end")
            }
        }
    }

    /// The byte hash reads a value's last partial word with overlapping loads; the
    /// result must equal the plain little-endian packing of those bytes (hash values
    /// decide DISTKEY slices of stored rows, so they must never change).
    func testByteHashTailMatchesBytewisePacking() {
        func reference(_ b: [UInt8]) -> UInt64 {
            let n = b.count
            var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(n)
            if n == 0 { return Hashing.hash(h) }
            var i = 0
            while i + 8 <= n {
                var w: UInt64 = 0
                for k in 0..<8 { w |= UInt64(b[i + k]) << UInt64(8 * k) }
                h = (h ^ w) &* 0x1000_0000_01B3
                h = (h << 31) | (h >> 33)
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n { tail |= UInt64(b[i]) << shift; shift += 8; i += 1 }
            h = (h ^ tail) &* 0x1000_0000_01B3
            return Hashing.hash(h)
        }
        let source = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 5) }
        for length in 0..<40 {
            for offset in [0, 3] {
                let value = Array(source[offset..<(offset + length)])
                let got = value.withUnsafeBufferPointer { Hashing.hash(bytes: $0.baseAddress, count: length) }
                XCTAssertEqual(got, reference(value), "length \(length), offset \(offset)")
            }
        }
    }

    func testCompareBytesIsLexicographic() {
        var state: UInt64 = 7
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        for _ in 0..<5_000 {
            // Shared prefixes of every length, so the word and byte loops both decide.
            let prefix = (0..<(next() % 20)).map { _ in UInt8(next() % 256) }
            let a = prefix + (0..<(next() % 12)).map { _ in UInt8([0, 1, 127, 128, 255][next() % 5]) }
            let b = prefix + (0..<(next() % 12)).map { _ in UInt8([0, 1, 127, 128, 255][next() % 5]) }
            let want = a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
            let got = a.withUnsafeBufferPointer { x in
                b.withUnsafeBufferPointer { y in compareBytes(x.baseAddress, x.count, y.baseAddress, y.count) }
            }
            XCTAssertEqual(got, want, "\(a) vs \(b)")
        }
    }
}
