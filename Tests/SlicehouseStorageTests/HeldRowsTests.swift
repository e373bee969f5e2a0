import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage

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
        narrow.append(contentsOf: chunks)
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
