// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseStorage
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// Source resolution: prefixes, file:// URLs, unsupported schemes, manifests, ZSTD
/// (GZIP and BZIP2 are in CompressionTests).
final class SourceTests: XCTestCase {
    let cols = [col("a", .integer)]

    func testPrefixMatchesLikeS3Keys() throws {
        let d = try TempDir()
        try d.write("part.tbl", "1\n")
        try d.write("partsupp.tbl", "2\n3\n")
        try d.write("parts/x.tbl", "4\n")
        try d.write("other.tbl", "9\n")
        let r = try CopyLoader.load(table: "t", columns: cols, source: d.path + "/part", options: CopyOptions(), context: QueryContext())
        XCTAssertEqual(r.files, [d.path + "/part.tbl", d.path + "/parts/x.tbl", d.path + "/partsupp.tbl"])
        XCTAssertEqual(rows(r).map { $0[0] }, [.int(1), .int(4), .int(2), .int(3)])
    }

    func testExactFileAlsoMatchesLongerNames() throws {
        let d = try TempDir()
        try d.write("lineitem.tbl", "1\n")
        try d.write("lineitem.tbl.1", "2\n")
        try d.write("lineitem.tbl.2", "3\n")
        let r = try CopyLoader.load(table: "t", columns: cols, source: "file://" + d.path + "/lineitem.tbl",
                                    options: CopyOptions(), context: QueryContext())
        XCTAssertEqual(r.files.count, 3)
        XCTAssertEqual(r.rowCount, 3)
    }

    func testDirectoryWithTrailingSlash() throws {
        let d = try TempDir()
        try d.write("a/1.txt", "1\n")
        try d.write("a/2.txt", "2\n")
        let r = try CopyLoader.load(table: "t", columns: cols, source: d.path + "/a/", options: CopyOptions(), context: QueryContext())
        XCTAssertEqual(rows(r).map { $0[0] }, [.int(1), .int(2)])
    }

    func testNoMatch() throws {
        let d = try TempDir()
        let e = expectSQLError { try CopyLoader.load(table: "t", columns: self.cols, source: d.path + "/nothing",
                                                     options: CopyOptions(), context: QueryContext()) }
        XCTAssertEqual(e?.code, .loadError)
        XCTAssertTrue(e?.message.contains("does not match any file") ?? false, e?.message ?? "")
    }

    func testS3IsNotSupportedYet() throws {
        let e = expectSQLError { try CopyLoader.load(table: "t", columns: self.cols, source: "s3://bucket/key",
                                                     options: CopyOptions(), context: QueryContext()) }
        XCTAssertEqual(e?.code, .featureNotSupported)
        XCTAssertTrue(e?.message.contains("S3") ?? false)
    }

    func testManifest() throws {
        let d = try TempDir()
        let a = try d.write("a.txt", "1\n")
        let b = try d.write("b.txt", "2\n")
        let m = try d.write("load.manifest", """
            {"entries": [{"url": "file://\(b)", "mandatory": true}, {"url": "\(a)"},
                         {"url": "\(d.path)/missing.txt", "mandatory": false}]}
            """)
        let r = try CopyLoader.load(table: "t", columns: cols, source: m, options: opts(("MANIFEST", nil)), context: QueryContext())
        XCTAssertEqual(rows(r).map { $0[0] }, [.int(2), .int(1)])

        let bad = try d.write("bad.manifest", "{\"entries\": [{\"url\": \"\(d.path)/missing.txt\", \"mandatory\": true}]}")
        XCTAssertEqual(expectSQLError { try CopyLoader.load(table: "t", columns: self.cols, source: bad,
                                                            options: opts(("MANIFEST", nil)), context: QueryContext()) }?.code, .loadError)
    }

    func testZstdInput() throws {
        let d = try TempDir()
        var text = ""
        for i in 0..<5000 { text += "\(i)\n" }
        let path = try d.write("data.zst", bytes: try ZstdCodec.compress(Array(text.utf8)))
        let r = try CopyLoader.load(table: "t", columns: cols, source: path, options: opts(("ZSTD", nil)), context: QueryContext())
        XCTAssertEqual(r.rowCount, 5000)
        XCTAssertEqual(rows(r).last, [.int(4999)])
    }

    func testLzopIsNotSupportedYet() throws {
        let d = try TempDir()
        let path = try d.write("data.lzo", "x")
        XCTAssertEqual(expectSQLError { try CopyLoader.load(table: "t", columns: self.cols, source: path,
                                                            options: opts(("LZOP", nil)), context: QueryContext()) }?.code, .featureNotSupported)
    }
}
