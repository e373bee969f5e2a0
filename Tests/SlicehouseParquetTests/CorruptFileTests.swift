// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// Truncated and damaged files must give errors, never crashes or runaway allocations.
final class CorruptFileTests: XCTestCase {
    /// A small valid file with every column type (a few pages per column chunk).
    func sampleFile(compression: ParquetCompression, rows: Int = 200, checksums: Bool = false) throws -> [UInt8] {
        try Self.sample(self, compression: compression, rows: rows, checksums: checksums)
    }

    /// Without page checksums by default, so that damage reaches the page decoders.
    static func sample(_ test: XCTestCase, compression: ParquetCompression = .none, rows: Int = 200,
                       checksums: Bool = false) throws -> [UInt8] {
        let dir = try makeTempDir(test)
        let path = dir.appendingPathComponent("sample.parquet").path
        // Every type but the 4000-byte strings (they only make the file slow to fuzz).
        let columns = Array(RoundTripTests.columns.dropLast())
        let w = try ParquetWriter(path: path, columns: columns, compression: compression, rowGroupBytes: 4_000)
        w.pageChecksums = checksums
        let data = RoundTripTests.makeData(rows: rows, seed: 9).dropLast()
        try w.append(Chunk(columns: Array(data), count: rows))
        try w.close()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Open and fully decode `bytes`; returns whether it worked. Any error must be an
    /// `SQLError` naming the Parquet file.
    @discardableResult
    func decodeAll(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        do {
            let pf = try ParquetFile(bytes: bytes, name: "fuzz.parquet")
            let types = pf.columns.map { $0.naturalType ?? .varchar(65535) }
            for g in 0..<pf.rowGroupCount {
                let vs = try pf.readRowGroup(g, columns: Array(types.indices), as: types)
                for v in vs { XCTAssertEqual(v.count, pf.rowGroups[g].numRows, file: file, line: line) }
            }
            return true
        } catch let e as SQLError {
            XCTAssertTrue(e.message.contains("fuzz.parquet"), "error does not name the file: \(e.message)", file: file, line: line)
            return false
        } catch {
            XCTFail("unexpected error type: \(error)", file: file, line: line)
            return false
        }
    }

    func testSampleFilesDecode() throws {
        for c in [ParquetCompression.none, .snappy, .gzip, .zstd] {
            XCTAssertTrue(decodeAll(try sampleFile(compression: c)))
        }
    }

    func testNotParquet() throws {
        for bytes in [[], Array("PAR1".utf8), Array("hello, world, this is a CSV file\n".utf8),
                      Array("PAR1PAR1PAR1".utf8), [UInt8](repeating: 0, count: 100)] {
            XCTAssertThrowsError(try ParquetFile(bytes: bytes, name: "x.parquet")) { e in
                XCTAssertTrue("\(e)".contains("x.parquet"), "\(e)")
            }
        }
        XCTAssertThrowsError(try ParquetFile(path: "/nonexistent/file.parquet")) { e in
            XCTAssertEqual((e as? SQLError)?.code, .ioError)
        }
    }

    func testEncryptedFooterIsReported() throws {
        var bytes = try sampleFile(compression: .none, rows: 10)
        bytes.replaceSubrange((bytes.count - 4)..., with: Array("PARE".utf8))
        XCTAssertThrowsError(try ParquetFile(bytes: bytes)) { e in
            XCTAssertTrue("\(e)".contains("encrypted"), "\(e)")
        }
    }

    func testForgedFooterLength() throws {
        var bytes = try sampleFile(compression: .none, rows: 10)
        let n = bytes.count
        for length: UInt32 in [0, 1, UInt32(n - 11), UInt32(n), UInt32.max] {
            withUnsafeBytes(of: length.littleEndian) { bytes.replaceSubrange((n - 8)..<(n - 4), with: $0) }
            XCTAssertFalse(decodeAll(bytes))
        }
    }

    func testEveryTruncation() throws {
        for c in [ParquetCompression.none, .snappy] {
            let bytes = try sampleFile(compression: c, rows: 60)
            for cut in 0..<bytes.count {
                // A truncated file loses its footer: it must not open.
                XCTAssertFalse(decodeAll(Array(bytes[0..<cut])), "truncated to \(cut) bytes")
            }
        }
    }

    /// Truncating the data while keeping the footer makes column chunks point past the end.
    func testDataShorterThanFooterSays() throws {
        let bytes = try sampleFile(compression: .none, rows: 60)
        let footerLength = Int(bytes[bytes.count - 8]) | Int(bytes[bytes.count - 7]) << 8
            | Int(bytes[bytes.count - 6]) << 16 | Int(bytes[bytes.count - 5]) << 24
        let footer = Array(bytes[(bytes.count - 8 - footerLength)...])
        let dataEnd = bytes.count - footer.count
        for keep in stride(from: 4, to: dataEnd, by: 37) {
            let ok = decodeAll(Array(bytes[0..<keep]) + footer)
            if keep + footer.count < dataEnd {
                // Some column chunk now runs past the end of the file.
                XCTAssertFalse(ok, "data cut to \(keep) bytes")
            }
        }
    }

    /// Random byte damage anywhere in the file, for every codec.
    func testRandomDamage() throws {
        var rng = SplitMix64(state: 1234)
        for c in [ParquetCompression.none, .snappy, .gzip, .zstd] {
            let original = try sampleFile(compression: c)
            let mutations = c == .none ? 2000 : 500
            var survived = 0
            for _ in 0..<mutations {
                var bytes = original
                for _ in 0..<(1 + rng.below(3)) {
                    let at = rng.below(bytes.count)
                    switch rng.below(4) {
                    case 0: bytes[at] ^= UInt8(1 << rng.below(8))
                    case 1: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                    case 2: bytes[at] = 0xFF
                    default: bytes[at] = 0
                    }
                }
                if decodeAll(bytes) { survived += 1 }
            }
            // Some damage hits only values (still decodable); most must be detected.
            XCTAssertLessThan(survived, mutations, "\(c)")
        }
    }

    /// Page checksums catch damage to page bytes that would otherwise decode as
    /// different values: damaged files either fail or (damage to fields that do not
    /// matter, such as the unused repetition-level encoding) decode to the same values.
    func testChecksumsDetectDamagedValues() throws {
        let original = try sampleFile(compression: .none, rows: 50, checksums: true)
        let expected = try values(original)
        var detected = 0, tried = 0
        for at in stride(from: 4, to: original.count - 100, by: 23) {
            var bytes = original
            bytes[at] ^= 0x10
            tried += 1
            if let got = try? values(bytes) {
                XCTAssertEqual(got, expected, "damage at byte \(at) changed values unnoticed")
            } else {
                detected += 1
            }
        }
        XCTAssertGreaterThan(detected, tried * 3 / 4)
    }

    private func values(_ bytes: [UInt8]) throws -> [[String?]] {
        let pf = try ParquetFile(bytes: bytes)
        let types = pf.columns.map { $0.naturalType ?? .varchar(65535) }
        return try pf.readAll(columns: Array(types.indices), as: types).map { canonicalColumn($0, count: $0.count) }
    }

    /// Damage to files written by pyarrow: data page v2, delta encodings, byte stream
    /// split, dictionaries (skipped without pyarrow).
    func testRandomDamageToPyarrowFiles() throws {
        guard let python = pyarrowPython else { throw XCTSkip("python3 with pyarrow is not installed") }
        let dir = try makeTempDir(self)
        let script = #"""
import sys, datetime, decimal, pyarrow as pa, pyarrow.parquet as pq
n = 120
t = pa.table({
    "i": pa.array([None if i % 7 == 0 else i * 1000003 for i in range(n)], pa.int64()),
    "j": pa.array([i - 60 for i in range(n)], pa.int32()),
    "f": pa.array([i / 3 for i in range(n)], pa.float64()),
    "s": pa.array([None if i % 5 == 0 else "v%d" % (i % 13) for i in range(n)], pa.string()),
    "d": pa.array([decimal.Decimal(i).scaleb(-2) for i in range(n)], pa.decimal128(20, 2)),
    "b": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
})
out = sys.argv[1]
pq.write_table(t, out + "/a.parquet", compression="none", data_page_version="2.0", row_group_size=50,
               data_page_size=256)
pq.write_table(t, out + "/b.parquet", compression="none", use_dictionary=False, row_group_size=60,
               column_encoding={"i": "DELTA_BINARY_PACKED", "j": "DELTA_BINARY_PACKED", "f": "BYTE_STREAM_SPLIT",
                                "s": "DELTA_BYTE_ARRAY", "d": "DELTA_BYTE_ARRAY", "b": "RLE"})
pq.write_table(t, out + "/c.parquet", compression="none", row_group_size=40,
               column_encoding=None, use_dictionary=True, data_page_version="1.0")
"""#
        let path = dir.appendingPathComponent("gen.py")
        try script.write(to: path, atomically: true, encoding: .utf8)
        let r = try runProcess(python, [path.path, dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        var rng = SplitMix64(state: 77)
        for name in ["a", "b", "c"] {
            let original = Array(try Data(contentsOf: dir.appendingPathComponent(name + ".parquet")))
            XCTAssertTrue(decodeAll(original), name)
            for _ in 0..<1500 {
                var bytes = original
                for _ in 0..<(1 + rng.below(2)) {
                    let at = rng.below(bytes.count)
                    bytes[at] = rng.below(2) == 0 ? bytes[at] ^ UInt8(1 << rng.below(8)) : UInt8(truncatingIfNeeded: rng.next())
                }
                decodeAll(bytes)
            }
        }
    }

    /// Damage confined to the footer exercises the Thrift decoder.
    func testFooterDamage() throws {
        var rng = SplitMix64(state: 99)
        let original = try sampleFile(compression: .none, rows: 50)
        let n = original.count
        let footerLength = Int(original[n - 8]) | Int(original[n - 7]) << 8 | Int(original[n - 6]) << 16 | Int(original[n - 5]) << 24
        let footerStart = n - 8 - footerLength
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<(1 + rng.below(4)) {
                let at = footerStart + rng.below(footerLength)
                bytes[at] = rng.below(2) == 0 ? bytes[at] ^ UInt8(1 << rng.below(8)) : UInt8(truncatingIfNeeded: rng.next())
            }
            decodeAll(bytes)
        }
    }

    /// Thrift nested far deeper than any real metadata is refused, not recursed into.
    func testDeeplyNestedThriftIsRefused() throws {
        // FileMetaData { 1: i32 version = 1, 99: struct { 1: struct { 1: struct ... } } }
        var footer: [UInt8] = [0x15, 0x02]  // field 1, i32, zigzag(1)
        footer += [0x0C, 0xC6, 0x01]          // long-form header: struct, field id 99
        for _ in 0..<10_000 { footer.append(0x1C) }  // field 1, struct
        footer += [UInt8](repeating: 0, count: 10_001)
        footer.append(0)
        var file = Array("PAR1".utf8) + footer
        withUnsafeBytes(of: UInt32(footer.count).littleEndian) { file += $0 }
        file += Array("PAR1".utf8)
        XCTAssertThrowsError(try ParquetFile(bytes: file)) { e in
            XCTAssertTrue("\(e)".contains("nested too deeply"), "\(e)")
        }
    }

    func testListCountLargerThanFooterIsRefused() throws {
        // FileMetaData { 2: list<struct> with 2^31 elements } in a few bytes.
        let footer: [UInt8] = [0x29, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00]
        var file = Array("PAR1".utf8) + footer
        withUnsafeBytes(of: UInt32(footer.count).littleEndian) { file += $0 }
        file += Array("PAR1".utf8)
        XCTAssertThrowsError(try ParquetFile(bytes: file))
    }
}
