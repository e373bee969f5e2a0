// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseTypes
import SlicehouseStorage
import XCTest
import SlicehouseRuntime

/// GZIP and BZIP2 input: round trips, multi-member / multi-stream files, padding,
/// corrupt and truncated files (errors name the file; nothing is loaded).
final class CompressionTests: XCTestCase {
    let cols = [col("id", .integer), col("name", .varchar(20))]

    /// `n` rows `i|name i`.
    func text(_ n: Int, from: Int = 0) -> [UInt8] {
        var s = ""
        for i in from..<(from + n) { s += "\(i)|name \(i)\n" }
        return Array(s.utf8)
    }

    func gzip(_ b: [UInt8]) throws -> [UInt8] { try GzipCodec.compress(b) }
    func bzip2(_ b: [UInt8]) throws -> [UInt8] { try Bzip2Codec.compress(b) }

    /// Decode through the codec and return the bytes.
    func gunzip(_ b: [UInt8]) throws -> [UInt8] {
        try b.withUnsafeBufferPointer { try GzipCodec.decompress($0).toArray() }
    }
    func bunzip2(_ b: [UInt8]) throws -> [UInt8] {
        try b.withUnsafeBufferPointer { try Bzip2Codec.decompress($0).toArray() }
    }

    // MARK: - Codecs

    func testCodecRoundTrips() throws {
        var rng = SystemRandomNumberGenerator()
        let random = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let zeros = [UInt8](repeating: 0, count: 5_000_000)   // ratio ~1000:1: output must grow past the hint
        for input in [[], Array("x".utf8), text(10_000), random, zeros] {
            XCTAssertEqual(try gunzip(try gzip(input)), input)
            XCTAssertEqual(try bunzip2(try bzip2(input)), input)
        }
        let gz = try gzip(text(100))
        XCTAssertEqual(Array(gz.prefix(2)), [0x1F, 0x8B], "gzip magic")
        let bz = try bzip2(text(100))
        XCTAssertEqual(Array(bz.prefix(3)), Array("BZh".utf8), "bzip2 magic")
    }

    func testCodecsRejectGarbageWithoutCrashing() throws {
        var rng = SystemRandomNumberGenerator()
        let gz = try gzip(text(2000))
        let bz = try bzip2(text(2000))
        // Every truncation point of a small member, and random corruption of big ones.
        let small = try gzip(text(3))
        for cut in 0..<small.count where cut > 0 {
            XCTAssertThrowsError(try gunzip(Array(small.prefix(cut))), "gzip cut at \(cut)")
        }
        let smallBz = try bzip2(text(3))
        for cut in 1..<smallBz.count {
            XCTAssertThrowsError(try bunzip2(Array(smallBz.prefix(cut))), "bzip2 cut at \(cut)")
        }
        for _ in 0..<50 {
            var g = gz, b = bz
            let gi = Int.random(in: 10..<(g.count - 8), using: &rng)
            let bi = Int.random(in: 10..<b.count, using: &rng)
            g[gi] ^= 0x5A
            b[bi] ^= 0x5A
            // Corruption must be detected (deflate data or CRC) or, at worst, decode; never crash.
            _ = try? gunzip(g)
            _ = try? bunzip2(b)
        }
        XCTAssertThrowsError(try gunzip(Array("plain text, not gzip".utf8)))
        XCTAssertThrowsError(try bunzip2(Array("plain text, not bzip2".utf8)))
    }

    // MARK: - GZIP loads

    func testGzipLoad() throws {
        let r = try loadBytes(try gzip(text(20_000)), columns: cols, options: opts(("GZIP", nil)), file: "d.gz")
        XCTAssertEqual(r.rowCount, 20_000)
        XCTAssertEqual(rows(r).last, [.int(19_999), .string("name 19999")])
        XCTAssertEqual(r.bytesRead, text(20_000).count, "bytesRead counts decompressed bytes")
    }

    func testGzipIsCutIntoRangesAfterDecompression() throws {
        let tuning = CopyTuning(chunkRows: 1000, rangeBytes: 8 << 10, workers: 3)
        var plain = text(30_000)
        plain += Array("oops|bad\n".utf8)
        let e = expectLoadError { try loadBytes(try self.gzip(plain), columns: self.cols,
                                                options: opts(("GZIP", nil)), tuning: tuning, file: "d.gz") }
        XCTAssertEqual(e?.line, 30_001, "line numbers stay exact across ranges of a decompressed file")
        XCTAssertTrue(e?.file.hasSuffix("/d.gz") ?? false)
        let r = try loadBytes(try gzip(plain), columns: cols, options: opts(("GZIP", nil), ("MAXERROR", "1")),
                              tuning: tuning, file: "d.gz")
        XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<30_000).map(Int64.init))
    }

    func testMultiMemberGzip() throws {
        let data = try gzip(text(1000)) + gzip(text(500, from: 1000)) + gzip([]) + gzip(text(1, from: 1500))
        let r = try loadBytes(data, columns: cols, options: opts(("GZIP", nil)), file: "m.gz")
        XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<1501).map(Int64.init))
    }

    func testGzipTrailingZeroPaddingIsIgnoredButGarbageIsNot() throws {
        let padded = try gzip(text(10)) + [UInt8](repeating: 0, count: 512)
        XCTAssertEqual(try loadBytes(padded, columns: cols, options: opts(("GZIP", nil))).rowCount, 10)
        let garbage = try gzip(text(10)) + Array("junk".utf8)
        let e = expectSQLError { try loadBytes(garbage, columns: self.cols, options: opts(("GZIP", nil)), file: "g.gz") }
        XCTAssertEqual(e?.code, .loadError)
        XCTAssertTrue(e?.message.contains("g.gz") ?? false, e?.message ?? "")
    }

    func testTruncatedGzipNamesTheFile() throws {
        let full = try gzip(text(5000))
        let e = expectSQLError {
            try loadBytes(Array(full.prefix(full.count / 2)), columns: self.cols, options: opts(("GZIP", nil)),
                          file: "cut.gz")
        }
        XCTAssertEqual(e?.code, .loadError)
        let message = e?.message ?? ""
        XCTAssertTrue(message.hasPrefix("invalid or truncated gzip data in file '"), message)
        XCTAssertTrue(message.contains("/cut.gz'"), message)
        XCTAssertTrue(message.contains("truncated"), message)
        // Losing only the 8-byte trailer (CRC and length) is also caught.
        XCTAssertNotNil(expectSQLError { try self.loadBytes0(Array(full.dropLast(8))) })
    }

    func loadBytes0(_ b: [UInt8]) throws -> CopyResult {
        try loadBytes(b, columns: cols, options: opts(("GZIP", nil)), file: "x.gz")
    }

    func testCorruptGzipCRC() throws {
        var data = try gzip(text(100))
        data[data.count - 6] ^= 0xFF   // CRC32 in the trailer
        let e = expectSQLError { try self.loadBytes0(data) }
        XCTAssertTrue(e?.message.contains("invalid or truncated gzip data in file") ?? false, e?.message ?? "")
    }

    func testNotGzipAtAll() throws {
        let e = expectSQLError { try self.loadBytes0(self.text(10)) }
        XCTAssertEqual(e?.code, .loadError)
        XCTAssertTrue(e?.message.contains("x.gz") ?? false)
    }

    func testEmptyCompressedFilesLoadNothing() throws {
        XCTAssertEqual(try loadBytes([], columns: cols, options: opts(("GZIP", nil))).rowCount, 0)
        XCTAssertEqual(try loadBytes([], columns: cols, options: opts(("BZIP2", nil))).rowCount, 0)
        XCTAssertEqual(try loadBytes(try gzip([]), columns: cols, options: opts(("GZIP", nil))).rowCount, 0)
    }

    func testManyGzipFilesDecompressInParallelInPathOrder() throws {
        let d = try TempDir()
        for f in 0..<6 { try d.write("part_\(f).gz", bytes: try gzip(text(1000, from: f * 1000))) }
        let r = try CopyLoader.load(table: "t", columns: cols, source: d.path + "/part_", options: opts(("GZIP", nil)),
                                    tuning: CopyTuning(workers: 3), context: QueryContext())
        XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<6000).map(Int64.init))
        XCTAssertEqual(r.files.count, 6)

        // One bad file among them fails the COPY, naming that file.
        try d.write("part_3.gz", bytes: Array(try gzip(text(1000)).prefix(40)))
        let e = expectSQLError { try CopyLoader.load(table: "t", columns: self.cols, source: d.path + "/part_",
                                                     options: opts(("GZIP", nil)), tuning: CopyTuning(workers: 3), context: QueryContext()) }
        XCTAssertTrue(e?.message.contains("/part_3.gz'") ?? false, e?.message ?? "")
    }

    func testGzipWithCSVAndHeader() throws {
        let csv = Array("id,name\n1,\"a,b\"\n2,c\n".utf8)
        let r = try loadBytes(try gzip(csv), columns: cols, options: opts(("CSV", nil), ("IGNOREHEADER", "1"), ("GZIP", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .string("a,b")], [.int(2), .string("c")]])
    }

    // MARK: - Inflating through a temporary file

    /// A compressed file that inflates to more than `InflateDrain.memoryBytes` is written
    /// to a temporary file and mapped, for every codec (bzip2 also by parallel batches of
    /// blocks); a small one stays in memory. The bytes and the loaded rows are the same.
    func testLargeInflatedFilesGoThroughATemporaryFile() throws {
        let savedLimit = InflateDrain.memoryBytes, savedBatch = Bzip2Blocks.drainBatchBlocks
        defer { InflateDrain.memoryBytes = savedLimit; Bzip2Blocks.drainBatchBlocks = savedBatch }
        InflateDrain.memoryBytes = 64 << 10
        Bzip2Blocks.drainBatchBlocks = 2
        let plain = text(60_000)   // about 1 MB
        let d = try TempDir()
        let files: [(String, [UInt8], CopyOptions.Compression, String)] = [
            ("big.gz", try gzip(Array(plain[0..<300_000])) + gzip(Array(plain[300_000...])), .gzip, "GZIP"),
            ("big.bz2", try Bzip2Codec.compress(plain, blockSize100k: 1), .bzip2, "BZIP2"),
            ("big.zst", try ZstdCodec.compress(Array(plain[0..<500_000])) + ZstdCodec.compress(Array(plain[500_000...])), .zstd, "ZSTD"),
        ]
        for (name, bytes, compression, option) in files {
            let path = try d.write(name, bytes: bytes)
            for workers in [1, 2] {
                let data = try FileData.open(path, compression: compression, workers: workers, context: QueryContext())
                XCTAssertNotNil(data.temporary, "\(name), \(workers) workers: inflated in memory")
                XCTAssertEqual(Array(data.bytes), plain, "\(name), \(workers) workers")
            }
            let r = try CopyLoader.load(table: "t", columns: cols, source: path, options: opts((option, nil)),
                                        tuning: CopyTuning(chunkRows: 1000, rangeBytes: 32 << 10, workers: 2), context: QueryContext())
            XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<60_000).map(Int64.init), name)
        }
        // The parallel bzip2 path over a block that fails starts over and names the error.
        var bad = try Bzip2Codec.compress(plain, blockSize100k: 1)
        for i in stride(from: bad.count * 2 / 3, to: bad.count * 2 / 3 + 16, by: 1) { bad[i] ^= 0x5A }
        let badPath = try d.write("bad.bz2", bytes: bad)
        XCTAssertThrowsError(try FileData.open(badPath, compression: .bzip2, workers: 2, context: QueryContext())) { e in
            XCTAssertTrue("\(e)".contains("bad.bz2"), "\(e)")
        }
        // Under the limit nothing goes to disk.
        InflateDrain.memoryBytes = 4 << 20
        let small = try FileData.open(try d.write("small.gz", bytes: try gzip(plain)), compression: .gzip, context: QueryContext())
        XCTAssertNil(small.temporary)
        XCTAssertEqual(Array(small.bytes), plain)
    }

    // MARK: - BZIP2 loads

    func testBzip2Load() throws {
        let tuning = CopyTuning(chunkRows: 1000, rangeBytes: 16 << 10, workers: 2)
        let r = try loadBytes(try bzip2(text(20_000)), columns: cols, options: opts(("BZIP2", nil)), tuning: tuning,
                              file: "d.bz2")
        XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<20_000).map(Int64.init))
        XCTAssertEqual(rows(r)[123], [.int(123), .string("name 123")])
    }

    func testMultiStreamBzip2() throws {
        let data = try bzip2(text(700)) + bzip2(text(300, from: 700)) + [0, 0, 0, 0]
        let r = try loadBytes(data, columns: cols, options: opts(("BZIP2", nil)), file: "m.bz2")
        XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<1000).map(Int64.init))
    }

    func testCorruptBzip2NamesTheFile() throws {
        var data = try bzip2(text(3000))
        for i in stride(from: data.count / 3, to: data.count / 3 + 16, by: 1) { data[i] ^= 0xA5 }
        let e = expectSQLError { try loadBytes(data, columns: self.cols, options: opts(("BZIP2", nil)), file: "bad.bz2") }
        XCTAssertEqual(e?.code, .loadError)
        let message = e?.message ?? ""
        XCTAssertTrue(message.hasPrefix("invalid or truncated bzip2 data in file '"), message)
        XCTAssertTrue(message.contains("/bad.bz2'"), message)
    }

    func testTruncatedAndForeignBzip2() throws {
        let full = try bzip2(text(3000))
        let e = expectSQLError { try loadBytes(Array(full.dropLast(10)), columns: self.cols, options: opts(("BZIP2", nil)),
                                               file: "cut.bz2") }
        XCTAssertTrue(e?.message.contains("truncated") ?? false, e?.message ?? "")
        XCTAssertTrue(e?.message.contains("/cut.bz2'") ?? false, e?.message ?? "")
        // A gzip file loaded as BZIP2.
        let g = expectSQLError { try loadBytes(try self.gzip(self.text(10)), columns: self.cols, options: opts(("BZIP2", nil))) }
        XCTAssertTrue(g?.message.contains("not bzip2 data") ?? false, g?.message ?? "")
    }
}
