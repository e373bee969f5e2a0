// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage
import SlicehouseRuntime

/// A sorted COPY's run waits in `HeldRows` with its integers narrowed: every column reads
/// back exactly as it came in (selections applied, constants expanded, NULLs kept), and a
/// column placed on every slice lets its values go.
final class HeldRowsTests: XCTestCase {
    let types: [DataType] = [.integer, .date, .bigint, .varchar(300), .decimal(precision: 12, scale: 2)]

    func chunk(_ n: Int, seed: Int64, nulls: Bool) -> Chunk {
        let ints = Vector(type: .integer, data: .int64((0..<n).map { Int64($0 % 200) + seed }))
        let dates = Vector(type: .date, data: .int64((0..<n).map { 9_000 + Int64($0 * 7 % 3_000) }))
        let big = Vector(type: .bigint, data: .int64((0..<n).map { $0 % 2 == 0 ? Int64.min + Int64($0) : Int64.max - Int64($0) }))
        var s = StringArray(reservingCount: n, bytes: n * 3)
        // Short strings, an empty one, and in the chunks with NULLs one of 300 bytes (held
        // with offsets: lengths of one byte cannot say 300).
        for i in 0..<n { s.append(i == 2 ? "" : nulls && i == n - 1 ? String(repeating: "é", count: 150) : "s\(i % 37)") }
        var validity = Validity(allValid: n)
        for r in stride(from: 0, to: n, by: 4) { validity.setInvalid(r) }
        let amounts = Vector(type: .decimal(precision: 12, scale: 2), data: .int64((0..<n).map { Int64($0) * 101 - 5_000 }),
                             validity: nulls ? validity : nil)
        return Chunk(columns: [ints, dates, big, Vector(type: .varchar(300), data: .string(s), validity: nulls ? validity : nil),
                               amounts], count: n)
    }

    func testNarrowedColumnsReadBackAsTheyCame() {
        let plain = chunk(3_000, seed: 40, nulls: false)
        let withNulls = chunk(1_000, seed: -7, nulls: true)
        let selected = Chunk(columns: chunk(500, seed: 3, nulls: true).columns, count: 500, selection: [1, 5, 7, 499])
        let constant = Chunk(columns: [Vector(type: .integer, data: .int64([42]), isConstant: true)] + chunk(3, seed: 0, nulls: false).columns.dropFirst(),
                             count: 3)
        let chunks = [plain, withNulls, selected, constant, Chunk(columns: plain.columns, count: 0)]
        let narrow = HeldRows(types: types, narrow: true)
        narrow.append(contentsOf: chunks, context: QueryContext())
        let wide = HeldRows(chunks, types: types)
        XCTAssertEqual(narrow.counts, [3_000, 1_000, 4, 3], "empty chunks are left out, selections applied")
        XCTAssertEqual(wide.counts, narrow.counts)
        XCTAssertLessThan(narrow.bytes, wide.bytes)
        for c in types.indices {
            let got = narrow.parts(c), want = wide.parts(c)
            XCTAssertEqual(got.count, want.count)
            for (g, w) in zip(got, want) {
                XCTAssertEqual(g.count, w.count, "column \(c)")
                for r in 0..<w.count { XCTAssertEqual(g.value(at: r), w.value(at: r), "column \(c) row \(r)") }
                XCTAssertEqual(g.type, types[c])
            }
        }
        XCTAssertEqual(narrow.vector(0, chunk: 3).value(at: 2), .int(42), "a constant is expanded")
        XCTAssertEqual(narrow.vector(3, chunk: 1).value(at: 0), .null, "a NULL string stays NULL")
        XCTAssertEqual(narrow.vector(3, chunk: 0).value(at: 2), .string(""))
        XCTAssertEqual(narrow.vector(3, chunk: 1).value(at: 999), .string(String(repeating: "é", count: 150)))
        // Integer parts for the reorder gather: not for strings or a column with NULLs.
        XCTAssertNotNil(narrow.intParts(0))
        XCTAssertNotNil(narrow.intParts(2), "wide parts (spans beyond 4 bytes) too")
        XCTAssertNil(narrow.intParts(3))
        XCTAssertNil(narrow.intParts(4))
        // Only the chunks a sample reads are widened.
        let sample = narrow.parts(1, only: [1])
        XCTAssertEqual(sample.map(\.count), [0, 1_000, 0, 0])
        let again = narrow.chunks()
        XCTAssertEqual(again.map(\.count), narrow.counts)
        XCTAssertEqual(again[1].columns[4].value(at: 0), .null)
        XCTAssertEqual(again[1].columns[4].value(at: 1), withNulls.columns[4].value(at: 1))
        // A placed column lets its values go.
        narrow.drop(3)
        XCTAssertTrue(narrow.parts(3).isEmpty)
    }

    /// Strings of few values wait as a byte each into one dictionary per column, the
    /// chunks' own dictionaries (met in another order) merged into it; a column whose
    /// dictionary would pass 256 strings holds its later chunks as text, and a chunk with
    /// NULLs is held as text. Every value reads back as it came.
    func testFewDistinctStringsWaitAsCodes() throws {
        let types: [DataType] = [.char(8), .varchar(20), .varchar(20)]
        func strings(_ n: Int, _ value: (Int) -> String?) -> Vector {
            var s = StringArray()
            var validity = Validity(allValid: n)
            for i in 0..<n {
                if let v = value(i) { s.append(v) } else { s.append(""); validity.setInvalid(i) }
            }
            return Vector(type: .varchar(20), data: .string(s), validity: (0..<n).allSatisfy { value($0) != nil } ? nil : validity)
        }
        let flags = ["N", "R", "A", ""]
        let first = Chunk(columns: [strings(1_000) { flags[$0 % 3] }, strings(1_000) { "m\($0 % 200)" },
                                    strings(1_000) { $0 % 7 == 3 ? "DELIVER IN PERSON, \($0 % 2)" : "x\($0 % 7)" }], count: 1_000)
        // Met in another order, with a new value; 200 more modes pass 256 in all.
        let second = Chunk(columns: [strings(600) { flags[3 - $0 % 4] }, strings(600) { "n\($0 % 200)" },
                                     strings(600) { $0 == 5 ? nil : "x\($0 % 7)" }], count: 600)
        let third = Chunk(columns: [strings(700) { flags[$0 % 4] }, strings(700) { "m\($0 % 3)" },
                                    strings(700) { "x\($0 % 9)" }], count: 700)
        let small = Chunk(columns: [strings(10) { flags[$0 % 2] }, strings(10) { "m\($0)" }, strings(10) { _ in "y" }], count: 10)
        let chunks = [first, second, third, small]
        let narrow = HeldRows(types: types, narrow: true)
        narrow.append(contentsOf: chunks, context: QueryContext())
        let wide = HeldRows(chunks, types: types)
        XCTAssertLessThan(narrow.bytes, wide.bytes)
        for c in types.indices {
            for (i, (g, w)) in zip(narrow.parts(c), wide.parts(c)).enumerated() {
                XCTAssertEqual(g.count, w.count)
                for r in 0..<w.count { XCTAssertEqual(g.value(at: r), w.value(at: r), "column \(c) chunk \(i) row \(r)") }
            }
        }
        XCTAssertNil(narrow.codeParts(0), "a chunk of 10 rows is held as text")
        XCTAssertNil(narrow.codeParts(1), "the dictionary was outgrown")
        XCTAssertNil(narrow.codeParts(2), "a chunk with a NULL")
        // Without the small chunk the flags are all codes into one dictionary.
        let coded = HeldRows(types: types, narrow: true)
        coded.append(contentsOf: [first, second, third], context: QueryContext())
        let withLong = HeldRows(types: types, narrow: true)
        withLong.append(contentsOf: [first, third], context: QueryContext())
        XCTAssertNotNil(withLong.codeParts(2), "strings longer than 16 bytes among them")
        if let (_, long) = withLong.codeParts(2) {
            XCTAssertEqual(long.count, 11)
            let codes: [UInt8] = Array(0..<UInt8(long.count)) + [3, 0, 2]
            XCTAssertEqual(HeldRows.Part.expand(codes: codes, dictionary: long),
                           StringArray(codes.map { long[Int($0)] }))
        }
        let (parts, dictionary) = try XCTUnwrap(coded.codeParts(0))
        XCTAssertEqual(dictionary.count, 4)
        XCTAssertEqual(parts.count, 3)
        for (i, part) in parts.enumerated() {
            guard case .narrow(let base, let width, let bytes) = part else { return XCTFail("not codes") }
            XCTAssertEqual(base, 0)
            XCTAssertEqual(width, 1)
            let want = coded.parts(0)[i]
            XCTAssertEqual(bytes.count, want.count)
            for r in 0..<bytes.count { XCTAssertEqual(Value.string(dictionary[Int(bytes[r])]), want.value(at: r)) }
        }
        XCTAssertEqual(HeldRows.Part.expand(codes: [UInt8](repeating: 9, count: 3), dictionary: dictionary), StringArray(["", "", ""]),
                       "a code past the dictionary reads as an empty string")
        XCTAssertEqual(HeldRows.Part.expand(codes: [Int64](), dictionary: dictionary), StringArray())
    }

    /// A column held for several uses is widened once and stays until the last release.
    func testAHeldColumnIsWidenedOnceForItsUses() {
        let rows = HeldRows(types: types, narrow: true)
        rows.append(chunk(100, seed: 1, nulls: false))
        rows.hold(0, uses: 2)
        let a = rows.parts(0), b = rows.parts(0)
        guard case .int64(let x) = a[0].data, case .int64(let y) = b[0].data else { return XCTFail("not integers") }
        XCTAssertTrue(x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { $0.baseAddress == p.baseAddress } },
                      "the same widened copy")
        rows.release(0)
        rows.release(0)
        let c = rows.parts(0)
        guard case .int64(let z) = c[0].data else { return XCTFail("not integers") }
        XCTAssertEqual(z, x)
    }
}
