// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// Writer → reader round trips of every Slicehouse type.
final class RoundTripTests: XCTestCase {
    static let columns: [(name: String, type: DataType)] = [
        ("i16", .smallint),
        ("i32", .integer),
        ("i64", .bigint),
        ("d9", .decimal(precision: 9, scale: 2)),
        ("d18", .decimal(precision: 18, scale: 6)),
        ("d20", .decimal(precision: 20, scale: 0)),
        ("d38", .decimal(precision: 38, scale: 10)),
        ("r", .real),
        ("f", .double),
        ("b", .boolean),
        ("s", .varchar(200)),
        ("c", .char(12)),
        ("dt", .date),
        ("ts", .timestamp),
        ("wide", .varchar(4000)),
    ]

    /// Deterministic test rows: extremes first, then pseudo-random values with ~10% NULLs.
    static func makeData(rows n: Int, seed: UInt64 = 42) -> [Vector] {
        var rng = SplitMix64(state: seed)
        func maybe<T>(_ x: T) -> T? { rng.below(10) == 0 ? nil : x }
        let max38 = DecimalMath.maxValue(precision: 38)
        let max20 = DecimalMath.maxValue(precision: 20)
        var i16: [Int64?] = [Int64(Int16.min), Int64(Int16.max), 0, nil]
        var i32: [Int64?] = [Int64(Int32.min), Int64(Int32.max), -1, nil]
        var i64: [Int64?] = [Int64.min, Int64.max, 0, nil]
        var d9: [Int64?] = [-999_999_999, 999_999_999, 1, nil]
        var d18: [Int64?] = [-999_999_999_999_999_999, 999_999_999_999_999_999, -1, nil]
        var d20: [Int128?] = [-max20, max20, 0, nil]
        var d38: [Int128?] = [-max38, max38, -1, nil]
        var r: [Double?] = [Double(Float.greatestFiniteMagnitude), -0.0, Double(Float.leastNonzeroMagnitude), .infinity]
        var f: [Double?] = [.greatestFiniteMagnitude, -0.0, .leastNonzeroMagnitude, -.infinity]
        var b: [Bool?] = [true, false, nil, true]
        var s: [String?] = ["", "héllo wörld", "日本語テキスト🎉", nil]
        var c: [String?] = ["", "abc", "x y", nil]
        var dt: [Int64?] = [DateTime.days(year: 1, month: 1, day: 1), DateTime.days(year: 9999, month: 12, day: 31), -1, nil]
        var ts: [Int64?] = [DateTime.days(year: 1, month: 1, day: 1) * DateTime.microsPerDay, 253_402_300_799_999_999, -1, nil]
        var wide: [String?] = [String(repeating: "w", count: 4000), "", "x", nil]
        let words = ["alpha", "beta", "gamma", "delta", "ε", "ζήτα", "", "théta"]
        for k in 4..<n {
            i16.append(maybe(Int64(Int16(truncatingIfNeeded: rng.next()))))
            i32.append(maybe(Int64(Int32(truncatingIfNeeded: rng.next()))))
            i64.append(maybe(Int64(bitPattern: rng.next())))
            d9.append(maybe(Int64(rng.below(1_999_999_999)) - 999_999_999))
            d18.append(maybe(Int64(bitPattern: rng.next()) % 1_000_000_000_000_000_000))
            d20.append(maybe(Int128(Int64(bitPattern: rng.next())) * 10 % max20))
            d38.append(maybe(Int128(Int64(bitPattern: rng.next())) * Int128(Int32(truncatingIfNeeded: rng.next())) * 1_000))
            r.append(maybe(Double(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()) & 0x7F7F_FFFF | (k % 2 == 0 ? 0x8000_0000 : 0)))))
            f.append(maybe(Double(Int64(bitPattern: rng.next())) / 1e7))
            b.append(maybe(rng.below(3) == 0))
            s.append(maybe(words[rng.below(words.count)] + String(rng.below(50))))
            c.append(maybe(["A", "BB", "ccc dd", "é"][rng.below(4)]))
            dt.append(maybe(Int64(rng.below(200_000)) - 100_000))
            ts.append(maybe(Int64(bitPattern: rng.next()) % 100_000_000_000_000_000))
            wide.append(maybe(String(k) + String(repeating: "z", count: 300 + rng.below(200))))
        }
        return [
            makeVector(.smallint, ints: i16), makeVector(.integer, ints: i32), makeVector(.bigint, ints: i64),
            makeVector(.decimal(precision: 9, scale: 2), ints: d9), makeVector(.decimal(precision: 18, scale: 6), ints: d18),
            makeVector(.decimal(precision: 20, scale: 0), wides: d20), makeVector(.decimal(precision: 38, scale: 10), wides: d38),
            makeVector(.real, doubles: r), makeVector(.double, doubles: f), makeVector(.boolean, bools: b),
            makeVector(.varchar(200), strings: s), makeVector(.char(12), strings: c),
            makeVector(.date, ints: dt), makeVector(.timestamp, ints: ts), makeVector(.varchar(4000), strings: wide),
        ]
    }

    /// Write `data` in chunks of `chunkRows`, read it back and compare every value.
    func roundTrip(compression: ParquetCompression, rowGroupBytes: Int, rows: Int = 5000,
                   chunkRows: Int = 2048, file: StaticString = #filePath, line: UInt = #line) throws -> ParquetFile {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("t.parquet").path
        let data = Self.makeData(rows: rows)
        let writer = try ParquetWriter(path: path, columns: Self.columns, compression: compression, rowGroupBytes: rowGroupBytes)
        var start = 0
        while start < rows {
            let n = min(chunkRows, rows - start)
            try writer.append(Chunk(columns: data.map { $0.slice(start, n) }, count: n))
            start += n
        }
        try writer.close()
        XCTAssertEqual(writer.rowCount, Int64(rows), file: file, line: line)

        let pf = try ParquetFile(path: path)
        XCTAssertEqual(pf.numRows, Int64(rows), file: file, line: line)
        XCTAssertEqual(pf.columns.map(\.name), Self.columns.map(\.name), file: file, line: line)
        XCTAssertEqual(pf.rowGroups.reduce(0) { $0 + $1.numRows }, rows, file: file, line: line)
        let types = Self.columns.map(\.type)
        let back = try pf.readAll(columns: Array(types.indices), as: types)
        for (k, v) in back.enumerated() {
            XCTAssertEqual(v.count, rows, "column \(Self.columns[k].name)", file: file, line: line)
            XCTAssertEqual(v.type, types[k], file: file, line: line)
            let want = canonicalColumn(data[k], count: rows)
            let got = canonicalColumn(v, count: rows)
            if want != got {
                let firstBad = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }
                XCTFail("column \(Self.columns[k].name) differs at row \(firstBad?.offset ?? -1): "
                        + "want \(String(describing: firstBad?.element.0)), got \(String(describing: firstBad?.element.1))",
                        file: file, line: line)
            }
        }
        return pf
    }

    func testRoundTripEveryCompression() throws {
        for c in [ParquetCompression.none, .snappy, .gzip, .zstd] {
            let pf = try roundTrip(compression: c, rowGroupBytes: 32 << 20)
            XCTAssertEqual(pf.rowGroupCount, 1)
            let codec = pf.rowGroups[0].columns[0]?.codec
            XCTAssertEqual(codec, c.codec)
        }
    }

    func testSeveralRowGroups() throws {
        for c in [ParquetCompression.snappy, .none] {
            let pf = try roundTrip(compression: c, rowGroupBytes: 200_000, rows: 12_000, chunkRows: 1000)
            XCTAssertGreaterThan(pf.rowGroupCount, 3)
        }
    }

    func testDefaultCompressionIsSnappy() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("d.parquet").path
        let w = try ParquetWriter(path: path, columns: [("x", .bigint)])
        XCTAssertEqual(w.compression, .snappy)
        try w.append(Chunk(columns: [makeVector(.bigint, ints: [1, 2, nil])], count: 3))
        try w.close()
        let pf = try ParquetFile(path: path)
        XCTAssertEqual(pf.rowGroups[0].columns[0]?.codec, .snappy)
    }

    func testEncodingsChosen() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("e.parquet").path
        let w = try ParquetWriter(path: path, columns: [("few", .varchar(10)), ("many", .varchar(600)), ("n", .bigint)])
        var few: [String?] = [], many: [String?] = [], n: [Int64?] = []
        for i in 0..<4000 {
            few.append(["x", "y", "z"][i % 3])
            many.append(String(i) + String(repeating: "q", count: 400))
            n.append(Int64(i))
        }
        try w.append(Chunk(columns: [makeVector(.varchar(10), strings: few), makeVector(.varchar(600), strings: many),
                                     makeVector(.bigint, ints: n)], count: 4000))
        try w.close()
        let pf = try ParquetFile(path: path)
        let cols = pf.rowGroups[0].columns
        XCTAssertEqual(cols[0]?.encodings, [.plainDictionary, .rle], "a small dictionary is used")
        XCTAssertEqual(cols[1]?.encodings, [.plain, .rle], "a dictionary over 1 MiB is abandoned")
        XCTAssertEqual(cols[2]?.encodings, [.plain, .rle])
        let back = try pf.readAll(columns: [0, 1, 2], as: [.varchar(10), .varchar(600), .bigint])
        XCTAssertEqual(canonicalColumn(back[0], count: 4000), few)
        XCTAssertEqual(canonicalColumn(back[1], count: 4000), many)
    }

    func testStatistics() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("s.parquet").path
        let w = try ParquetWriter(path: path, columns: [("i", .integer), ("s", .varchar(10)), ("f", .double),
                                                        ("d", .decimal(precision: 30, scale: 2)), ("b", .boolean)])
        try w.append(Chunk(columns: [
            makeVector(.integer, ints: [5, nil, -7, 3]),
            makeVector(.varchar(10), strings: ["pear", "apple", nil, "zoo"]),
            makeVector(.double, doubles: [.nan, 0.0, 2.5, nil]),
            makeVector(.decimal(precision: 30, scale: 2), wides: [-300, 12, nil, nil]),
            makeVector(.boolean, bools: [true, true, nil, true]),
        ], count: 4))
        try w.close()
        let pf = try ParquetFile(path: path)
        let st = pf.rowGroups[0].columns.map { $0?.statistics }
        XCTAssertEqual(st[0]?.nullCount, 1)
        XCTAssertEqual(st[0]?.min, littleEndianBytes(Int32(-7)))
        XCTAssertEqual(st[0]?.max, littleEndianBytes(Int32(5)))
        XCTAssertEqual(st[1]?.min, Array("apple".utf8))
        XCTAssertEqual(st[1]?.max, Array("zoo".utf8))
        XCTAssertEqual(st[2]?.min, littleEndianBytes((-0.0).bitPattern), "NaN ignored, zero widened to -0.0")
        XCTAssertEqual(st[2]?.max, littleEndianBytes(2.5.bitPattern))
        XCTAssertEqual(st[3]?.nullCount, 2)
        XCTAssertEqual(st[3]?.min?.count, 13, "DECIMAL(30) is a 13-byte FIXED_LEN_BYTE_ARRAY")
        XCTAssertEqual(st[3]?.min.map { bigEndian($0) }, -300)
        XCTAssertEqual(st[3]?.max.map { bigEndian($0) }, 12)
        XCTAssertEqual(st[4]?.min, [1])
        XCTAssertEqual(st[4]?.max, [1])
    }

    private func bigEndian(_ b: [UInt8]) -> Int128? {
        b.withUnsafeBytes { bigEndianInteger($0.baseAddress!, b.count) }
    }

    func testSchemaAnnotations() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("a.parquet").path
        let w = try ParquetWriter(path: path, columns: Self.columns)
        try w.close()
        let pf = try ParquetFile(path: path)
        XCTAssertEqual(pf.numRows, 0)
        XCTAssertEqual(pf.rowGroupCount, 0)
        let c = pf.columns
        XCTAssertEqual(c[0].physicalType, .int32); XCTAssertEqual(c[0].logicalType, .integer(bitWidth: 16, signed: true))
        XCTAssertEqual(c[1].physicalType, .int32); XCTAssertEqual(c[1].logicalType, .integer(bitWidth: 32, signed: true))
        XCTAssertEqual(c[2].physicalType, .int64); XCTAssertEqual(c[2].logicalType, .integer(bitWidth: 64, signed: true))
        XCTAssertEqual(c[3].physicalType, .int32); XCTAssertEqual(c[3].logicalType, .decimal(precision: 9, scale: 2))
        XCTAssertEqual(c[4].physicalType, .int64); XCTAssertEqual(c[4].logicalType, .decimal(precision: 18, scale: 6))
        XCTAssertEqual(c[5].physicalType, .fixedLenByteArray); XCTAssertEqual(c[5].typeLength, 9)
        XCTAssertEqual(c[6].physicalType, .fixedLenByteArray); XCTAssertEqual(c[6].typeLength, 16)
        XCTAssertEqual(c[7].physicalType, .float)
        XCTAssertEqual(c[8].physicalType, .double)
        XCTAssertEqual(c[9].physicalType, .boolean)
        XCTAssertEqual(c[10].physicalType, .byteArray); XCTAssertEqual(c[10].logicalType, .string)
        XCTAssertEqual(c[12].physicalType, .int32); XCTAssertEqual(c[12].logicalType, .date)
        XCTAssertEqual(c[13].physicalType, .int64)
        XCTAssertEqual(c[13].logicalType, .timestamp(unit: .micros, adjustedToUTC: false))
        XCTAssertTrue(c.allSatisfy { $0.isNullable && !$0.isNested })
        XCTAssertEqual(c.map(\.naturalType), [.smallint, .integer, .bigint, .decimal(precision: 9, scale: 2),
                                              .decimal(precision: 18, scale: 6), .decimal(precision: 20, scale: 0),
                                              .decimal(precision: 38, scale: 10), .real, .double, .boolean,
                                              .varchar(65535), .varchar(65535), .date, .timestamp, .varchar(65535)])
    }

    func testConstantsSelectionsAndAllNullColumns() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("c.parquet").path
        let w = try ParquetWriter(path: path, columns: [("k", .bigint), ("s", .varchar(5)), ("n", .double)])
        let k = makeVector(.bigint, ints: [10, 11, 12, 13, 14])
        let s = Vector.constant(.string("abc"), type: .varchar(5))
        let n = Vector.constant(.null, type: .double)
        try w.append(Chunk(columns: [k, s, n], count: 5, selection: [1, 3, 4]))
        try w.close()
        let pf = try ParquetFile(path: path)
        let back = try pf.readAll(columns: [0, 1, 2], as: [.bigint, .varchar(5), .double])
        XCTAssertEqual(canonicalColumn(back[0], count: 3), ["11", "13", "14"])
        XCTAssertEqual(canonicalColumn(back[1], count: 3), ["abc", "abc", "abc"])
        XCTAssertEqual(canonicalColumn(back[2], count: 3), [nil, nil, nil])
        XCTAssertNil(back[0].validity, "no NULLs gives no bitmap")
    }

    func testWriterRejectsValuesThatDoNotFit() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("bad.parquet").path
        let w = try ParquetWriter(path: path, columns: [("d", .date)])
        XCTAssertThrowsError(try w.append(Chunk(columns: [makeVector(.date, ints: [Int64(Int32.max) + 1])], count: 1))) { e in
            XCTAssertTrue("\(e)".contains("INT32"), "\(e)")
        }
        XCTAssertThrowsError(try w.close())
    }
}
