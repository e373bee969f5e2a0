// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseAWS
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseParquet
import SlicehouseRuntime
import SlicehouseStorage
import SlicehouseTestSupport
import SlicehouseTypes

/// COPY from S3 objects on moto's server, checked against loading the same bytes from a
/// local file: objects read segment by segment (segments of 64 KB here, so records, quoted
/// newlines, escapes and JSON documents straddle their ends), compressed objects, Parquet
/// by ranged reads, prefixes listed over several pages, manifests and JSONPaths on S3,
/// and S3's errors.
final class S3CopyTests: MotoTestCase {
    nonisolated(unsafe) static var bucketMade = false

    func client() throws -> S3Client {
        let c = try MotoServer.client(Self.server)
        if !Self.bucketMade { try c.createBucket("loads"); Self.bucketMade = true }
        return c
    }

    func put(_ key: String, _ bytes: [UInt8]) throws {
        try client().put(S3Location(bucket: "loads", key: key), body: bytes)
    }

    /// Load `source` with pieces (and so S3 segments) of 64 KB.
    func load(_ source: String, columns: [ColumnDef], options: CopyOptions, pieceBytes: Int = 1 << 16,
              pageSize: Int? = nil) throws -> CopyResult {
        let s3 = try client()
        let inputs = CopyInputs(s3: S3Connection { s3 }, listPageSize: pageSize)
        return try CopyLoader.load(table: "t", columns: columns, source: source, options: options,
                                   tuning: CopyTuning(chunkRows: 4096, workers: 2, pieceBytes: pieceBytes),
                                   inputs: inputs, context: QueryContext())
    }

    /// The same bytes loaded from a local file.
    func loadLocal(_ bytes: [UInt8], columns: [ColumnDef], options: CopyOptions) throws -> CopyResult {
        try loadBytes(bytes, columns: columns, options: options)
    }

    let columns = [col("id", .integer), col("name", .varchar(200)), col("v", .double)]

    /// Rows whose lengths vary, some with escaped delimiters and newlines.
    func textRows(_ n: Int) -> [UInt8] {
        var s = ""
        for i in 0..<n {
            let name = String(repeating: "n", count: i % 97) + (i % 13 == 0 ? "a\\|b\\\nc" : "x\(i)")
            s += "\(i)|\(name)|\(Double(i) * 0.5)\n"
        }
        return Array(s.utf8)
    }

    func testTextObjectReadInSegmentsLoadsAsTheLocalFile() throws {
        let bytes = textRows(20_000)   // about 1.2 MB: 19 segments of 64 KB
        try put("text/part_000", bytes)
        try put("text/part_001", Array("20000|last|1\n".utf8))
        let o = try opts(("ESCAPE", nil))
        let remote = try load("s3://loads/text/part", columns: columns, options: o)
        let local = try loadLocal(bytes + Array("20000|last|1\n".utf8), columns: columns, options: o)
        XCTAssertEqual(remote.rowCount, 20_001)
        XCTAssertEqual(rows(remote), rows(local))
        XCTAssertEqual(remote.files, ["s3://loads/text/part_000", "s3://loads/text/part_001"])
        XCTAssertEqual(remote.fileLines, [20_000, 1])
    }

    func testLineNumbersOfARejectedRowDeepInAnObject() throws {
        var bytes = textRows(8_000)
        bytes += Array("oops|bad|1\n".utf8)
        try put("bad/part_000", bytes)
        let o = try opts(("ESCAPE", nil))
        let remote = expectLoadError { try self.load("s3://loads/bad/", columns: self.columns, options: o) }
        let local = expectLoadError { try self.loadLocal(bytes, columns: self.columns, options: o) }
        XCTAssertEqual(remote?.file, "s3://loads/bad/part_000")
        XCTAssertEqual(remote?.line, local?.line)
        XCTAssertEqual(remote?.rawLine, "oops|bad|1")
    }

    func testCSVWithQuotedNewlinesAndAHeaderAcrossSegments() throws {
        var s = "id,name,v\n"
        for i in 0..<12_000 {
            s += i % 7 == 0 ? "\(i),\"multi\nline, \"\"quoted\"\" \(String(repeating: "z", count: i % 50))\",\(i)\n" : "\(i),plain \(i),\(i)\n"
        }
        try put("csv/data.csv", Array(s.utf8))
        let o = try opts(("CSV", nil), ("IGNOREHEADER", "1"))
        let remote = try load("s3://loads/csv/", columns: columns, options: o)
        let local = try loadLocal(Array(s.utf8), columns: columns, options: o)
        XCTAssertEqual(remote.rowCount, 12_000)
        XCTAssertEqual(rows(remote), rows(local))
    }

    func testJSONDocumentsAcrossSegments() throws {
        var s = ""
        for i in 0..<10_000 {
            s += i % 3 == 0 ? "{\n  \"id\": \(i),\n  \"name\": \"\(String(repeating: "j", count: i % 70))\",\n  \"v\": \(i)\n}\n"
                            : "{\"id\": \(i), \"name\": \"n\(i)\", \"v\": \(i)}\n"
        }
        try put("json/a.json", Array(s.utf8))
        try put("jsonpaths/paths.json", Array(#"{"jsonpaths": ["$.id", "$.name", "$.v"]}"#.utf8))
        let remote = try load("s3://loads/json/", columns: columns, options: try opts(("JSON", "s3://loads/jsonpaths/paths.json")))
        let local = try loadLocal(Array(s.utf8), columns: columns, options: try opts(("JSON", "auto")))
        XCTAssertEqual(remote.rowCount, 10_000)
        XCTAssertEqual(rows(remote), rows(local))
    }

    func testCompressedObjects() throws {
        let bytes = textRows(5_000)
        var gz = try GzipCodec.compress(bytes)
        try put("gz/a.gz", gz)
        gz = try GzipCodec.compress(Array("5000|z|1\n".utf8))
        try put("gz/b.gz", gz)
        let o = try opts(("ESCAPE", nil), ("GZIP", nil))
        let remote = try load("s3://loads/gz/", columns: columns, options: o)
        XCTAssertEqual(remote.rowCount, 5_001)
        XCTAssertEqual(rows(remote).prefix(5_000).map { $0 },
                       rows(try loadLocal(bytes, columns: columns, options: try opts(("ESCAPE", nil)))))
    }

    /// Compressed objects bigger than a segment are streamed: fetched in chunks, inflated as
    /// they arrive and parsed segment by segment (64 KB here), and load as the local file.
    func testLargeCompressedObjectsAreStreamed() throws {
        var s = "id|name|v\n"
        for i in 0..<60_000 { s += "\(i)|\(String(repeating: "q", count: i * 7 % 61))\(i * 7919 % 100_003)|\(i)\n" }
        let plain = Array(s.utf8)
        let o = try opts(("IGNOREHEADER", "1"))
        let local = try loadLocal(plain, columns: columns, options: o)
        func compress(_ name: String, _ bytes: [UInt8]) throws -> [UInt8] {
            switch name {
            case "GZIP": return try GzipCodec.compress(bytes)
            case "BZIP2": return try Bzip2Codec.compress(bytes)
            default: return try ZstdCodec.compress(bytes)
            }
        }
        for name in ["GZIP", "BZIP2", "ZSTD"] {
            let packed = try compress(name, plain)
            XCTAssertGreaterThan(packed.count, 3 << 16, "\(name): several chunks")
            try put("big\(name)/a", packed)
            try put("big\(name)/b", try compress(name, Array("hdr\n60000|z|1\n".utf8)))
            let remote = try load("s3://loads/big\(name)/", columns: columns, options: try opts(("IGNOREHEADER", "1"), (name, nil)))
            XCTAssertEqual(remote.rowCount, 60_001, name)
            XCTAssertEqual(Array(rows(remote).prefix(60_000)), rows(local), name)
            XCTAssertEqual(remote.fileLines, [60_001, 2], name)
        }
        // A rejected row deep in a streamed object is named by its line in the inflated file.
        let bad = plain + Array("oops|x|1\n".utf8)
        try put("badgz/a.gz", try GzipCodec.compress(bad))
        let e = expectLoadError {
            try self.load("s3://loads/badgz/", columns: self.columns, options: try opts(("GZIP", nil), ("IGNOREHEADER", "1")))
        }
        XCTAssertEqual(e?.file, "s3://loads/badgz/a.gz")
        XCTAssertEqual(e?.line, 60_002)
        // A truncated object fails the COPY, naming it.
        let packed = try GzipCodec.compress(plain)
        try put("cutgz/a.gz", Array(packed.prefix(packed.count - 1000)))
        let cut = expectSQLError { try self.load("s3://loads/cutgz/", columns: self.columns, options: try opts(("GZIP", nil), ("IGNOREHEADER", "1"))) }
        XCTAssertTrue(cut?.message.contains("invalid or truncated gzip data in file 's3://loads/cutgz/a.gz'") ?? false, "\(String(describing: cut))")
    }

    func testParquetByRangedReads() throws {
        let dir = try TempDir()
        let path = dir.path + "/p.parquet"
        let w = try ParquetWriter(path: path, columns: [("id", .bigint), ("label", .varchar(16))], rowGroupBytes: 64 << 10)
        for batch in 0..<20 {
            let ids = (0..<5_000).map { Int64(batch * 5_000 + $0) }
            var labels = StringArray()
            for id in ids { labels.append("L\(id)") }
            try w.append(Chunk(columns: [Vector(type: .bigint, data: .int64(ids)), Vector(type: .varchar(16), data: .string(labels))],
                               count: ids.count))
        }
        try w.close()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertGreaterThan(try ParquetFile(path: path).rowGroupCount, 4)
        try put("parquet/p.parquet", bytes)
        let cols = [col("id", .bigint), col("label", .varchar(16))]
        let remote = try load("s3://loads/parquet/", columns: cols, options: try opts(("PARQUET", nil)))
        XCTAssertEqual(remote.rowCount, 100_000)
        let all = rows(remote)
        XCTAssertEqual(all.first, [.int(0), .string("L0")])
        XCTAssertEqual(all.last, [.int(99_999), .string("L99999")])
        XCTAssertEqual(remote.files, ["s3://loads/parquet/p.parquet"])
    }

    func testAPrefixListedOverSeveralPages() throws {
        for i in 0..<45 { try put(String(format: "many/part_%03d", i), Array("\(i)|n\(i)|\(i)\n".utf8)) }
        let remote = try load("s3://loads/many/part_", columns: columns, options: CopyOptions(), pageSize: 10)
        XCTAssertEqual(remote.rowCount, 45)
        XCTAssertEqual(remote.files.count, 45)
        XCTAssertEqual(Set(rows(remote).map { $0[0] }), Set((0..<45).map { Value.int(Int64($0)) }))
    }

    func testManifestsOnS3() throws {
        try put("m/a", Array("1|a|1\n".utf8))
        try put("m/b", Array("2|b|2\n".utf8))
        try put("m/ok.manifest", Array(#"""
            {"entries": [{"url": "s3://loads/m/a", "mandatory": true},
                         {"url": "s3://loads/m/b", "mandatory": false, "meta": {"content_length": 6}},
                         {"url": "s3://loads/m/gone", "mandatory": false}]}
            """#.utf8))
        let ok = try load("s3://loads/m/ok.manifest", columns: columns, options: try opts(("MANIFEST", nil)))
        XCTAssertEqual(ok.rowCount, 2)
        XCTAssertEqual(ok.files, ["s3://loads/m/a", "s3://loads/m/b"])
        try put("m/bad.manifest", Array(#"{"entries": [{"url": "s3://loads/m/a"}, {"url": "s3://loads/m/gone", "mandatory": true}]}"#.utf8))
        let e = expectSQLError { try self.load("s3://loads/m/bad.manifest", columns: self.columns, options: try opts(("MANIFEST", nil))) }
        XCTAssertEqual(e?.message, "Manifest file 's3://loads/m/bad.manifest': mandatory file 's3://loads/m/gone' not found [8001]")
        let missing = expectSQLError { try self.load("s3://loads/m/none.manifest", columns: self.columns, options: try opts(("MANIFEST", nil))) }
        XCTAssertEqual(missing?.message, "Manifest file 's3://loads/m/none.manifest' does not exist or cannot be read")
    }

    func testS3ErrorsInRedshiftsWords() throws {
        let prefix = expectSQLError { try self.load("s3://loads/nothing/here", columns: self.columns, options: CopyOptions()) }
        XCTAssertEqual(prefix?.message, "The specified S3 prefix 'nothing/here' does not exist")
        let bucket = expectSQLError { try self.load("s3://no-such-bucket/x", columns: self.columns, options: CopyOptions()) }
        XCTAssertTrue(bucket?.message.hasPrefix("S3ServiceException:The specified bucket does not exist,Status 404,Error NoSuchBucket") == true,
                      bucket?.message ?? "")
        let invalid = expectSQLError { try self.load("s3://UPPER/x", columns: self.columns, options: CopyOptions()) }
        XCTAssertEqual(invalid?.code, .invalidParameter)
        // No S3 access set up for the statement.
        let none = expectSQLError {
            try CopyLoader.load(table: "t", columns: self.columns, source: "s3://loads/m/a", options: CopyOptions(), context: QueryContext())
        }
        XCTAssertEqual(none?.code, .featureNotSupported)
    }

    func testCancellationStopsAWaitingRead() throws {
        let bytes = textRows(20_000)
        try put("cancel/part", bytes)
        let cancellation = Cancellation()
        let context = QueryContext(cancellation: cancellation)
        cancellation.cancel()
        let e = expectSQLError { try self.loadWith(context, "s3://loads/cancel/") }
        XCTAssertEqual(e?.code, .queryCanceled)
    }

    func loadWith(_ context: QueryContext, _ source: String) throws -> CopyResult {
        let s3 = try client()
        return try CopyLoader.load(table: "t", columns: columns, source: source, options: try opts(("ESCAPE", nil)),
                                   tuning: CopyTuning(workers: 2, pieceBytes: 1 << 16),
                                   inputs: CopyInputs(s3: S3Connection { s3 }), context: context)
    }
}
