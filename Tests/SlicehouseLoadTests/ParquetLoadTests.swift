// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseParquet
import SlicehouseTypes
import XCTest
import SlicehouseAWS
import SlicehouseRuntime

/// `CopyLoader` with `FORMAT PARQUET`: options, chunking, parallel order, progress.
final class ParquetLoadTests: XCTestCase {
    // MARK: - Options

    func testParquetOptionSpellings() throws {
        XCTAssertEqual(try opts(("PARQUET", nil)).format, .parquet)
        XCTAssertEqual(try opts(("FORMAT", "parquet")).format, .parquet)
        let o = try opts(("PARQUET", nil), ("ACCEPTINVCHARS", "^"), ("FILLRECORD", nil), ("MANIFEST", nil),
                         ("EXPLICIT_IDS", nil), ("STATUPDATE", "OFF"), ("ACCESS_KEY_ID", "AKID"), ("SECRET_ACCESS_KEY", "s"))
        XCTAssertEqual(o.acceptInvalidChars, UInt8(ascii: "^"))
        XCTAssertEqual(o.authorization, .keys(AWSCredentials(accessKeyID: "AKID", secretAccessKey: "s")))
        XCTAssertEqual(try opts(("PARQUET", nil), ("IAM_ROLE", "arn:aws:iam::1:role/r")).authorization, .role("arn:aws:iam::1:role/r"))
        XCTAssertTrue(o.fillRecord && o.manifest)
    }

    func testParquetRefusesTextParameters() {
        for (name, value) in [("DELIMITER", ","), ("IGNOREHEADER", "1"), ("GZIP", nil), ("BZIP2", nil), ("ZSTD", nil),
                              ("MAXERROR", "5"), ("IGNOREALLERRORS", nil), ("NULL", "x"), ("ESCAPE", nil),
                              ("REMOVEQUOTES", nil), ("TIMEFORMAT", "auto"), ("TRIMBLANKS", nil), ("ROUNDEC", nil),
                              ("REGION", "us-east-1"), ("ENCODING", "UTF8")] as [(String, String?)] {
            XCTAssertThrowsError(try opts(("PARQUET", nil), (name, value)), name) { e in
                let message = (e as? SQLError)?.message ?? ""
                XCTAssertTrue(message.hasSuffix("argument is not supported for PARQUET based COPY"), message)
            }
        }
        // MAXERROR 0 is what dlt sends with every Parquet COPY: accepted, as it changes nothing.
        XCTAssertEqual(try opts(("PARQUET", nil), ("MAXERROR", "0")).maxError, 0)
        XCTAssertThrowsError(try opts(("PARQUET", nil), ("NULL", "x"))) { e in
            XCTAssertEqual((e as? SQLError)?.message, "NULL AS argument is not supported for PARQUET based COPY")
        }
        XCTAssertThrowsError(try opts(("CSV", nil), ("PARQUET", nil)))
        XCTAssertThrowsError(try opts(("PARQUET", nil), ("JSON", "auto")))
        XCTAssertTrue(try opts(("PARQUET", nil), ("SERIALIZETOJSON", nil)).serializeToJSON)
        XCTAssertFalse(try opts(("PARQUET", nil)).serializeToJSON)
        XCTAssertThrowsError(try opts(("CSV", nil), ("SERIALIZETOJSON", nil)))
        XCTAssertThrowsError(try opts(("JSON", "auto"), ("SERIALIZETOJSON", nil)))
        XCTAssertThrowsError(try opts(("PARQUET", nil), ("SERIALIZETOJSON", "x"))) // no value
        XCTAssertThrowsError(try opts(("PARQUET", "x"))) // no value
        XCTAssertThrowsError(try opts(("FORMAT", "ORC"))) { e in
            XCTAssertEqual((e as? SQLError)?.code, .featureNotSupported)
        }
    }

    // MARK: - Loading

    /// A file of `rows` rows (id, label, nullable every 5th label) in row groups of about
    /// `groupBytes`, appended `batch` rows at a time.
    func writeFile(_ path: String, rows: Int, first: Int = 0, groupBytes: Int = 1 << 20, batch: Int = 1000) throws {
        let w = try ParquetWriter(path: path, columns: [("id", .bigint), ("label", .varchar(16))], rowGroupBytes: groupBytes)
        var start = 0
        while start < rows {
            let n = min(batch, rows - start)
            var ids: [Int64] = []
            var labels = StringArray()
            var validity = Validity(allValid: n)
            for r in 0..<n {
                let id = first + start + r
                ids.append(Int64(id))
                if id % 5 == 0 { validity.setInvalid(r); labels.appendEmpty() } else { labels.append("L\(id)") }
            }
            try w.append(Chunk(columns: [Vector(type: .bigint, data: .int64(ids)),
                                         Vector(type: .varchar(16), data: .string(labels), validity: validity)], count: n))
            start += n
        }
        try w.close()
    }

    let columns = [col("id", .bigint, notNull: true), col("label", .varchar(16))]

    func ids(_ r: CopyResult) -> [Int64] {
        var out: [Int64] = []
        for c in r.chunks { if case .int64(let a) = c.columns[0].data { out.append(contentsOf: a.prefix(c.count)) } }
        return out
    }

    /// A row group up to twice the tuning's chunk rows stays one chunk (cutting it would
    /// copy every value); a bigger one is cut into chunks of at most that.
    func testRowGroupsAreCutIntoChunksOfAtMostTwiceTheChunkRows() throws {
        let dir = try TempDir()
        try writeFile(dir.path + "/a.parquet", rows: 10_000, batch: 10_000)   // one big row group
        let r = try CopyLoader.load(table: "t", columns: columns, source: dir.path + "/a", options: opts(("PARQUET", nil)), context: QueryContext())
        XCTAssertEqual(r.rowCount, 10_000)
        XCTAssertEqual(r.chunks.count, 1, "the whole group, uncut")
        XCTAssertEqual(ids(r), (0..<10_000).map(Int64.init))
        let small = try CopyLoader.load(table: "t", columns: columns, source: dir.path + "/a", options: opts(("PARQUET", nil)),
                                        tuning: CopyTuning(chunkRows: 300, workers: 2), context: QueryContext())
        XCTAssertTrue(small.chunks.allSatisfy { $0.count <= 600 })
        XCTAssertEqual(small.chunks.count, (10_000 + 599) / 600)
        XCTAssertEqual(rows(small), rows(r))
        // NULL every 5th row, strings intact across chunk cuts.
        let all = rows(r)
        XCTAssertEqual(all[5][1], .null)
        XCTAssertEqual(all[2049][1], .string("L2049"))
    }

    func testManyFilesAndRowGroupsLoadInFileOrderWithAnyWorkerCount() throws {
        let dir = try TempDir()
        var first = 0
        for f in 0..<5 {
            let n = 3_000 + f * 777
            try writeFile(dir.path + "/part-\(f).parquet", rows: n, first: first, groupBytes: 8_000, batch: 400)
            first += n
        }
        XCTAssertGreaterThan(try ParquetFile(path: dir.path + "/part-0.parquet").rowGroupCount, 3)
        let one = try CopyLoader.load(table: "t", columns: columns, source: dir.path + "/part", options: opts(("PARQUET", nil)),
                                      tuning: CopyTuning(workers: 1), context: QueryContext())
        let many = try CopyLoader.load(table: "t", columns: columns, source: dir.path + "/part", options: opts(("PARQUET", nil)),
                                       tuning: CopyTuning(workers: 6), context: QueryContext())
        XCTAssertEqual(one.rowCount, first)
        XCTAssertEqual(ids(one), (0..<first).map(Int64.init))
        XCTAssertEqual(ids(many), ids(one))
        XCTAssertEqual(one.files.count, 5)
        XCTAssertEqual(one.columnIndices, [0, 1])
    }

    func testFirstErrorInFileOrderIsReportedWhateverTheWorkers() throws {
        let dir = try TempDir()
        try writeFile(dir.path + "/p-0.parquet", rows: 2_000, batch: 500)
        try writeFile(dir.path + "/p-1.parquet", rows: 2_000, first: 2_000, batch: 500)
        // VARCHAR(4) fails at the first 5-byte label ("L1001"; every 5th label is NULL) and
        // again in p-1: the first in file order is reported.
        let narrow = [col("id", .bigint), col("label", .varchar(4))]
        for workers in [1, 4] {
            XCTAssertThrowsError(try CopyLoader.load(table: "t", columns: narrow, source: dir.path + "/p-",
                                                     options: opts(("PARQUET", nil)), tuning: CopyTuning(workers: workers), context: QueryContext())) { e in
                guard let e = e as? LoadError else { return XCTFail("\(e)") }
                XCTAssertEqual(e.file, dir.path + "/p-0.parquet")
                XCTAssertEqual(e.line, 1_002)   // id 1001, rows are 1-based
                XCTAssertEqual(e.column, "label")
                XCTAssertEqual(e.rawFieldValue, "L1001")
                XCTAssertEqual(e.code, .valueOutOfRange)
                XCTAssertTrue(e.isColumnar)
            }
        }
    }

    func testAcceptInvCharsReplacesInvalidUTF8() throws {
        let dir = try TempDir()
        let w = try ParquetWriter(path: dir.path + "/u.parquet", columns: [("s", .varchar(10))])
        var s = StringArray()
        let bad: [UInt8] = [UInt8(ascii: "a"), 0xFF, UInt8(ascii: "b")]
        bad.withUnsafeBufferPointer { s.append(bytes: $0) }
        try w.append(Chunk(columns: [Vector(type: .varchar(10), data: .string(s))], count: 1))
        try w.close()
        XCTAssertThrowsError(try CopyLoader.load(table: "t", columns: [col("s", .varchar(10))], source: dir.path + "/u",
                                                 options: opts(("PARQUET", nil)), context: QueryContext())) { e in
            XCTAssertEqual((e as? LoadError)?.code, .invalidUTF8)
        }
        let r = try CopyLoader.load(table: "t", columns: [col("s", .varchar(10))], source: dir.path + "/u",
                                    options: opts(("PARQUET", nil), ("ACCEPTINVCHARS", nil)), context: QueryContext())
        XCTAssertEqual(rows(r), [[.string("a?b")]])
    }

    // MARK: - Progress

    func testProgressReporterAddsUpAndThrottles() {
        let seen = ProgressLog()
        let every = LoadProgressReporter(totalBytes: 300, handler: { seen.append($0) }, intervalNanos: 0)
        every.add(bytes: 100, rows: 10)
        every.add(bytes: 200, rows: 20)
        XCTAssertEqual(seen.all.last, LoadProgress(bytesRead: 300, totalBytes: 300, rows: 30))
        XCTAssertEqual(seen.all.count, 2)
        let throttled = ProgressLog()
        let slow = LoadProgressReporter(totalBytes: 300, handler: { throttled.append($0) }, intervalNanos: 3_600_000_000_000)
        for _ in 0..<100 { slow.add(bytes: 1, rows: 1) }
        XCTAssertTrue(throttled.all.isEmpty, "a load shorter than the interval reports nothing")
    }

    func testLoadPassesProgressOnWithoutChangingTheResult() throws {
        let dir = try TempDir()
        try writeFile(dir.path + "/a.parquet", rows: 5_000, groupBytes: 8_000, batch: 500)
        let seen = ProgressLog()
        let r = try CopyLoader.load(table: "t", columns: columns, source: dir.path + "/a", options: opts(("PARQUET", nil)),
                                    progress: { seen.append($0) }, context: QueryContext())
        XCTAssertEqual(r.rowCount, 5_000)
        // Reports (if the load was slow enough to get any) only grow and stay within the total.
        for (a, b) in zip(seen.all, seen.all.dropFirst()) { XCTAssertLessThanOrEqual(a.rows, b.rows) }
        XCTAssertTrue(seen.all.allSatisfy { $0.bytesRead <= $0.totalBytes && $0.rows <= 5_000 })
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [LoadProgress] = []
    func append(_ p: LoadProgress) { lock.lock(); items.append(p); lock.unlock() }
    var all: [LoadProgress] { lock.lock(); defer { lock.unlock() }; return items }
}
