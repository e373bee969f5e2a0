// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseRuntime
@testable import SlicehouseExecution

/// A spill directory of its own for one test, removed afterwards.
final class TemporarySpill {
    let directory = NSTemporaryDirectory() + "slicehouse-spill-test-\(UUID().uuidString)"
    lazy var space = SpillSpace(directory: directory)
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A statement context with `budget` bytes that spills here.
    func context(budget: Int?) -> QueryContext {
        QueryContext(memory: QueryMemory(budget: budget, pool: MemoryPool(limit: nil)), spill: space)
    }
}

final class ChunkSpillTests: XCTestCase {
    /// Every value, type, NULL and row count of `actual` equals `expected`'s logical rows.
    private func assertSameChunk(_ actual: Chunk, _ expected: Chunk, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.count, expected.count, "rows", file: file, line: line)
        XCTAssertNil(actual.selection, file: file, line: line)
        XCTAssertEqual(actual.columns.count, expected.columns.count, "columns", file: file, line: line)
        for c in 0..<min(actual.columns.count, expected.columns.count) {
            let a = actual.columns[c], e = expected.columns[c]
            XCTAssertEqual(a.type, e.type, "type of column \(c)", file: file, line: line)
            XCTAssertFalse(a.isConstant, file: file, line: line)
            XCTAssertEqual(a.count, actual.count, "stored values of column \(c)", file: file, line: line)
            for i in 0..<min(actual.count, expected.count) {
                let x = a.value(at: i), y = expected.value(row: i, column: c)
                if case .double(let p) = x, case .double(let q) = y, p.isNaN && q.isNaN { continue }
                XCTAssertEqual(x, y, "row \(i) column \(c)", file: file, line: line)
            }
        }
    }

    private func roundTrip(_ chunks: [Chunk], file: StaticString = #filePath, line: UInt = #line) throws -> SpillFile {
        let spill = TemporarySpill()
        let memory = QueryMemory(budget: 0, pool: MemoryPool(limit: nil))
        let f = try spill.space.newFile(for: memory)
        for c in chunks { try f.appendChunk(c) }
        try f.flush()
        var r = f.reader()
        for c in chunks {
            guard let back = try r.readChunk() else { XCTFail("file ended early", file: file, line: line); return f }
            assertSameChunk(back, c, file: file, line: line)
        }
        XCTAssertNil(try r.readChunk(), file: file, line: line)
        XCTAssertTrue(r.atEnd, file: file, line: line)
        XCTAssertEqual(memory.spilledBytes, f.size, file: file, line: line)
        return f
    }

    func testEveryPhysicalKindWithNulls() throws {
        var rng = SeededRandom(seed: 7)
        let types: [DataType] = [.bigint, .decimal(precision: 30, scale: 4), .double, .boolean, .varchar(40),
                                 .date, .interval, .superType, .char(3)]
        for n in [1, 63, 64, 65, 2048, 3000] {
            let rows: [Row] = (0..<n).map { i in
                types.map { t -> Value in
                    if rng.chance(0.2) { return .null }
                    switch t.physical {
                    case .int64: return .int(Int64(rng.int(-1_000_000...1_000_000)) * 977)
                    case .int128: return .int128(Int128(rng.int(-1_000_000...1_000_000)) << 70 | Int128(i))
                    case .double: return .double(i % 17 == 0 ? .nan : Double(rng.int(-1000...1000)) / 7)
                    case .bool: return .bool(rng.chance(0.5))
                    case .string: return .string(i % 5 == 0 ? "" : String(repeating: "é\(i)", count: rng.int(0...6)))
                    }
                }
            }
            let chunk = Chunk(columns: columns(types, rows), count: n)
            _ = try roundTrip([chunk, chunk])
        }
    }

    func testNoNullsReadsBackWithoutABitmap() throws {
        var v = Vector.ints([1, 2, 3])
        v.validity = Validity(allValid: 3)   // a bitmap that marks nothing NULL
        let spill = TemporarySpill()
        let f = try spill.space.newFile(for: nil)
        try f.appendChunk(Chunk(columns: [v, .strings(["a", nil, ""])], count: 3))
        var r = f.reader()
        let back = try XCTUnwrap(try r.readChunk())
        XCTAssertNil(back.columns[0].validity)
        XCTAssertEqual(back.columns[0].data, .int64([1, 2, 3]))
        XCTAssertEqual(back.columns[1].validity?.isValid(1), false)
        XCTAssertEqual(back.columns[1].value(at: 2), .string(""))
        XCTAssertEqual(back.columns[1].value(at: 0), .string("a"))
    }

    func testSelectionAndConstantsAreFlattened() throws {
        let base = Chunk(columns: [.ints([10, 11, nil, 13, 14]),
                                   .strings(["a", "bb", "ccc", nil, "eeeee"]),
                                   .constant(.string("k"), type: .varchar(5)),
                                   .constant(.null, type: .bigint),
                                   .constant(.double(2.5), type: .double)],
                         count: 5, selection: [1, 2, 4])
        let f = try roundTrip([base])
        var r = f.reader()
        let back = try XCTUnwrap(try r.readChunk())
        XCTAssertEqual(back.count, 3)
        XCTAssertEqual(back.columns[0].data, .int64([11, 0, 14]))
        XCTAssertEqual(back.columns[1].data, .string(StringArray(["bb", "ccc", "eeeee"])))
        XCTAssertEqual(back.columns[2].data, .string(StringArray(["k", "k", "k"])))
        XCTAssertEqual(back.columns[3].validity?.nullCount(3), 3)
        XCTAssertEqual(back.columns[4].data, .double([2.5, 2.5, 2.5]))
    }

    func testSlicedStringsAndLongerVectors() throws {
        // Offsets that do not start at 0 and vectors holding more values than the chunk's rows.
        let s = StringArray(bytes: Array("xxabcdefgh".utf8), offsets: [2, 4, 4, 7])
        let v = Vector(type: .varchar(10), data: .string(s))
        let ints = Vector.ints([1, 2, 3, 4, 5])
        let f = try roundTrip([Chunk(columns: [v, ints.slice(0, 3)], count: 3)])
        var r = f.reader()
        let back = try XCTUnwrap(try r.readChunk())
        XCTAssertEqual(back.columns[0].data, .string(StringArray(["ab", "", "cde"])))
        let longer = Chunk(columns: [ints], count: 2)
        let g = try roundTrip([longer])
        var r2 = g.reader()
        XCTAssertEqual(try XCTUnwrap(try r2.readChunk()).columns[0].data, .int64([1, 2]))
    }

    func testZeroRowAndZeroColumnChunks() throws {
        let empty = Chunk(columns: [Vector(type: .bigint), Vector(type: .varchar(3)), Vector(type: .boolean)], count: 0)
        let selectedNothing = Chunk(columns: [.ints([1, 2]), .strings(["a", "b"]), column(.boolean, [.bool(true), .null])],
                                    count: 2, selection: [])
        let noColumns = Chunk(columns: [], count: 7)
        let f = try roundTrip([empty, selectedNothing, noColumns, empty])
        var r = f.reader()
        let back = try XCTUnwrap(try r.readChunk())
        XCTAssertEqual(back.columns.map(\.type), [.bigint, .varchar(3), .boolean])
        XCTAssertEqual(back.columns[1].data, .string(StringArray()))
    }

    func testTheWriteBufferIsCountedUntilFlushedAndSizedByTheBudget() throws {
        XCTAssertEqual(QueryMemory(budget: nil, pool: MemoryPool(limit: nil)).spillBufferBytes, 1 << 16)
        XCTAssertEqual(QueryMemory(budget: 384 << 10, pool: MemoryPool(limit: nil)).spillBufferBytes, 1 << 12)
        XCTAssertEqual(QueryMemory(budget: 8 << 20, pool: MemoryPool(limit: nil)).spillBufferBytes, 1 << 15)
        XCTAssertEqual(QueryMemory(budget: nil, pool: MemoryPool(limit: 2 << 20)).spillBufferBytes, 1 << 13)
        let spill = TemporarySpill()
        let memory = QueryMemory(budget: 8 << 20, pool: MemoryPool(limit: nil))
        do {
            let f = try spill.space.newFile(for: memory)
            XCTAssertEqual(memory.usedBytes, 0, "no buffer before the first append")
            try f.append(contentsOf: [Int64](repeating: 7, count: 100))
            XCTAssertGreaterThanOrEqual(memory.usedBytes, 1 << 15)
            XCTAssertEqual(memory.spilledBytes, 0)
            try f.flush()
            XCTAssertEqual(memory.usedBytes, 0, "flushing lets the buffer go")
            XCTAssertEqual(memory.spilledBytes, 800)
            try f.append(Int64(1))
            XCTAssertGreaterThan(memory.usedBytes, 0)
            var r = f.reader()
            XCTAssertEqual(try r.readArray(Int64.self, count: 101).last, 1)
        }
        XCTAssertEqual(memory.usedBytes, 0, "a file that goes returns its buffer")
    }

    func testManyChunksAcrossTheWriteBuffer() throws {
        // More than the file's write buffer: frames straddle flushes.
        var rng = SeededRandom(seed: 11)
        let chunks: [Chunk] = (0..<40).map { k in
            let n = rng.int(0...2048)
            let rows: [Row] = (0..<n).map { i in [.int(Int64(k * 10_000 + i)), .string(String(repeating: "z", count: i % 50))] }
            return Chunk(columns: columns([.bigint, .varchar(64)], rows), count: n)
        }
        let f = try roundTrip(chunks)
        XCTAssertGreaterThan(f.size, 1 << 18)
    }

    func testTruncatedFileIsAnErrorNotACrash() throws {
        let spill = TemporarySpill()
        let f = try spill.space.newFile(for: nil)
        try f.append(UInt64(1000))
        try f.append(Int64(3))
        var r = f.reader()
        XCTAssertThrowsError(try r.readChunk())
    }

    func testMemoryBytes() {
        let ints = Vector(type: .bigint, data: .int64([Int64](repeating: 1, count: 1000)))
        XCTAssertGreaterThanOrEqual(ints.memoryBytes, 8000)
        let strings = Vector.strings((0..<100).map { _ in String(repeating: "x", count: 100) })
        XCTAssertGreaterThanOrEqual(strings.memoryBytes, 100 * 100 + 101 * 4)
        let chunk = Chunk(columns: [ints, strings.slice(0, 100)], count: 100, selection: Array(0..<50))
        XCTAssertGreaterThanOrEqual(chunk.memoryBytes, ints.memoryBytes + 50 * 4)
        XCTAssertLessThan(Vector.constant(.int(1), type: .bigint).memoryBytes, 200)
    }
}
