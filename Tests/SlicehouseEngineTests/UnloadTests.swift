// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes
import SlicehouseParquet

/// UNLOAD writes files Redshift's way; UNLOAD then COPY gives back the same rows.
final class UnloadTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-unload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func session() throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table src (i int, b bigint, d decimal(20,4), f double precision, t boolean, dt date, ts timestamp,
                              s varchar(40), c char(6)) diststyle even;
            insert into src values
              (1, 9223372036854775807, 1234567890123456.7891, 1.5, true, '2020-02-29', '2020-02-29 12:34:56.5', 'plain', 'ab'),
              (-2, -9223372036854775807, -0.0001, -2.25e10, false, '1969-12-31', '1969-12-31 23:59:59', 'pipe|comma,quote"', 'x'),
              (null, null, null, null, null, null, null, null, null),
              (4, 0, 0, 0, true, '2000-01-01', '2000-01-01 00:00:00', '', ''),
              (5, 5, 5, 5, false, '2001-01-01', '2001-01-01 00:00:00', 'new
            line and back\\slash', 'u-n-i'),
              (6, 6, 6, 6, true, '2002-01-01', '2002-01-01 00:00:00', 'héllo wörld ✓', 'z');
            create table dst (like src);
            """)
        return s
    }

    func assertSameRows(_ s: Session, file: StaticString = #filePath, line: UInt = #line) throws {
        let a = try s.execute("select count(*) from dst")[0].textRows()
        XCTAssertEqual(a, [["6"]], file: file, line: line)
        let diff1 = try s.execute("select count(*) from (select * from src except select * from dst) x")[0].textRows()
        let diff2 = try s.execute("select count(*) from (select * from dst except select * from src) x")[0].textRows()
        XCTAssertEqual(diff1, [["0"]], file: file, line: line)
        XCTAssertEqual(diff2, [["0"]], file: file, line: line)
        // NULL stays NULL and '' stays ''.
        XCTAssertEqual(try s.execute("select count(*) from dst where s is null")[0].textRows(), [["1"]], file: file, line: line)
        XCTAssertEqual(try s.execute("select count(*) from dst where s = ''")[0].textRows(), [["1"]], file: file, line: line)
    }

    func testTextRoundTrip() throws {
        let s = try session()
        let p = dir.appendingPathComponent("text_").path
        _ = try s.execute("unload ('select * from src') to '\(p)' escape null as '\\N'")
        _ = try s.execute("copy dst from '\(p)' escape")
        try assertSameRows(s)
    }

    func testCSVRoundTrip() throws {
        let s = try session()
        let p = dir.appendingPathComponent("csv_").path
        _ = try s.execute("unload ('select * from src') to '\(p)' format csv header null as '\\N' parallel off")
        _ = try s.execute("copy dst from '\(p)' csv ignoreheader 1")
        try assertSameRows(s)
    }

    func testJSONRoundTripCompressed() throws {
        let s = try session()
        let p = dir.appendingPathComponent("json_").path
        _ = try s.execute("unload ('select * from src') to '\(p)' format json gzip")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("json_") }
        XCTAssertTrue(files.allSatisfy { $0.hasSuffix(".gz") && $0.contains("_part_00") }, "\(files)")
        _ = try s.execute("copy dst from '\(p)' json 'auto' gzip")
        try assertSameRows(s)
    }

    func testFileNamesOverwriteAndManifest() throws {
        let s = try session()
        let p = dir.appendingPathComponent("v_").path
        _ = try s.execute("unload ('select i from src') to '\(p)' manifest")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(names, ["v_0000_part_00", "v_0001_part_00", "v_0002_part_00", "v_0003_part_00", "v_manifest"])
        let manifest = try String(contentsOfFile: p + "manifest", encoding: .utf8)
        XCTAssertTrue(manifest.contains("\"entries\"") && manifest.contains("v_0003_part_00"), manifest)
        XCTAssertThrowsError(try s.execute("unload ('select i from src') to '\(p)'")) { e in
            XCTAssertTrue("\(e)".contains("ALLOWOVERWRITE"))
        }
        _ = try s.execute("unload ('select i from src') to '\(p)' allowoverwrite")
        _ = try s.execute("unload ('select i from src order by i') to '\(p)' cleanpath parallel off")
        let after = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(after, ["v_000"])
        XCTAssertEqual(try String(contentsOfFile: p + "000", encoding: .utf8), "-2\n1\n4\n5\n6\n\n")
        XCTAssertThrowsError(try s.execute("unload ('select i from src') to 's3://bucket/x'"))
    }

    /// ALLOWOVERWRITE replaces a file of the same name (it once appended to it), and an
    /// UNLOAD that fails removes the files it wrote.
    func testOverwriteReplacesAndAFailureLeavesNothing() throws {
        let s = try session()
        let p = dir.appendingPathComponent("o_").path
        _ = try s.execute("unload ('select i from src where i = 1') to '\(p)' parallel off")
        _ = try s.execute("unload ('select i from src where i = 4') to '\(p)' parallel off allowoverwrite")
        XCTAssertEqual(try String(contentsOfFile: p + "000", encoding: .utf8), "4\n")
        // 393,216 rows in order (one copy, sorted): 12 MB of text has gone to the file by
        // the time row 390,000 fails.
        _ = try s.execute("create table w as select i from src")
        for _ in 0..<12 { _ = try s.execute("insert into w select * from w") }
        _ = try s.execute("""
            create table w3 (n int) diststyle all sortkey(n);
            insert into w3 select row_number() over (order by a.i, b.i) from w a, (select i from w limit 16) b;
            """)
        let f = dir.appendingPathComponent("fail").path + "/"
        XCTAssertThrowsError(try s.execute("unload ('select repeat(''x'', 40), 1 / (n - 390000) from w3') to '\(f)' parallel off")) { e in
            XCTAssertTrue("\(e)".contains("division by zero"), "\(e)")
        }
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: f)) ?? [], [])
        // The same UNLOAD without the failure writes them.
        _ = try s.execute("unload ('select repeat(''x'', 40), n from w3') to '\(f)' parallel off")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f), ["000"])
    }

    /// Parquet files end at MAXFILESIZE (counted in written row groups) and the next part begins.
    func testParquetFilesEndAtMaxFileSize() throws {
        let s = try session()
        _ = try s.execute("create table w as select i from src")
        for _ in 0..<16 { _ = try s.execute("insert into w select * from w") }
        let p = dir.appendingPathComponent("big_").path
        _ = try s.execute("""
            unload ('select md5(n::varchar) as h, n from (select row_number() over () as n from w) s')
            to '\(p)' format parquet maxfilesize 5 mb rowgroupsize 1 mb parallel off
            """)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("big_") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 2, "\(files)")
        XCTAssertEqual(files, (0..<files.count).map { String(format: "big_%03d.parquet", $0) })
        var rows = 0
        for f in files {
            let path = dir.appendingPathComponent(f).path
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            XCTAssertLessThan(size, 5 * 1024 * 1024 + 2 * 1024 * 1024, f)
            rows += Int(try ParquetFile(path: path).numRows)
        }
        XCTAssertEqual(rows, 6 << 16)
    }

    func testParquetPartitionBy() throws {
        let s = try session()
        let p = dir.appendingPathComponent("pqparts").path + "/"
        _ = try s.execute("unload ('select t, i from src') to '\(p)' format parquet partition by (t)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: p).sorted()
        XCTAssertEqual(folders, ["t=__HIVE_DEFAULT_PARTITION__", "t=f", "t=t"])
        var ids: [Value] = []
        for f in try FileManager.default.contentsOfDirectory(atPath: p + "t=t") {
            let file = try ParquetFile(path: p + "t=t/" + f)
            XCTAssertEqual(file.columns.map(\.name), ["i"])
            let v = try file.readAll(columns: [0], as: [.integer])[0]
            for r in 0..<v.count { ids.append(v.value(at: r)) }
        }
        XCTAssertEqual(ids.sorted { "\($0)" < "\($1)" }, [.int(1), .int(4), .int(6)])
    }

    func testPartitionBy() throws {
        let s = try session()
        let p = dir.appendingPathComponent("parts").path + "/"
        _ = try s.execute("unload ('select t, i from src') to '\(p)' partition by (t)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: p).sorted()
        XCTAssertEqual(folders, ["t=__HIVE_DEFAULT_PARTITION__", "t=f", "t=t"])
        var all = ""
        for f in try FileManager.default.contentsOfDirectory(atPath: p + "t=t") { all += try String(contentsOfFile: p + "t=t/" + f, encoding: .utf8) }
        XCTAssertEqual(all.split(separator: "\n").sorted(), ["1", "4", "6"])
    }

    func testParquetRoundTripThroughOurReader() throws {
        let s = try session()
        let p = dir.appendingPathComponent("pq_").path
        _ = try s.execute("unload ('select i, d, dt, ts, s from src') to '\(p)' format as parquet")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".parquet") }.sorted()
        XCTAssertEqual(files.count, 4, "\(files)")
        var rows: [[Value]] = []
        let types: [DataType] = [.integer, .decimal(precision: 20, scale: 4), .date, .timestamp, .varchar(40)]
        for f in files {
            let file = try ParquetFile(path: dir.appendingPathComponent(f).path)
            for g in 0..<file.rowGroups.count {
                let cols = try file.readRowGroup(g, columns: Array(0..<5), as: types)
                for r in 0..<(cols.first?.count ?? 0) { rows.append(cols.map { $0.value(at: r) }) }
            }
        }
        XCTAssertEqual(rows.count, 6)
        let expected = try s.execute("select i, d, dt, ts, s from src")[0]
        let want = Set(expected.textRows().map { $0.map { $0 ?? "NULL" }.joined(separator: "|") })
        let got = Set(rows.map { r in zip(r, types).map { $0.formatted(as: $1) ?? "NULL" }.joined(separator: "|") })
        XCTAssertEqual(got, want)
        XCTAssertThrowsError(try s.execute("unload ('select i from src') to '\(p)x' format parquet delimiter ','"))
    }

    /// UNLOAD streams: files end at MAXFILESIZE and the next part starts (with the header
    /// again), compressed files are written a member at a time and still read back as one,
    /// and the statement holds the writers' buffers, not the result.
    func testLargeUnloadStreamsAndRotatesFiles() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table big (k bigint, s varchar(60)) diststyle even;
            insert into big select x, 'a fairly long text value to fill the files ' || x from generate_series(1, 250000) as q(x);
            create table back (like big);
            """)
        let want = try s.execute("select count(*), sum(k), sum(length(s)) from big")[0].textRows()
        let p = dir.appendingPathComponent("big_").path
        // About 13 MB of text: three 5 MB files in order, each with its header.
        _ = try s.execute("unload ('select * from big order by k') to '\(p)' parallel off maxfilesize 5 mb header format csv")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("big_0") }.sorted()
        XCTAssertEqual(files, ["big_000", "big_001", "big_002"])
        for f in files {
            let text = try String(contentsOfFile: dir.appendingPathComponent(f).path, encoding: .utf8)
            XCTAssertTrue(text.hasPrefix("k,s\n"), f)
            XCTAssertEqual(text.components(separatedBy: "k,s\n").count, 2, "\(f): one header")
        }
        // Without ORDER BY nothing holds the rows: the statement's peak is the writer's
        // buffer and a few chunks, not the 14 MB result (a gathered result was held whole).
        _ = try s.execute("unload ('select * from big') to '\(p)unordered_' parallel off")
        let peak = try s.execute("select est_peak_mem from stl_wlm_query order by query desc limit 1")[0].textRows()
        XCTAssertLessThan(Int(peak.first?.first.flatMap { $0 } ?? "") ?? .max, 8 << 20, "held the result: \(peak)")
        _ = try s.execute("copy back from '\(p)0' csv ignoreheader 1")
        XCTAssertEqual(try s.execute("select count(*), sum(k), sum(length(s)) from back")[0].textRows(), want)
        XCTAssertEqual(try s.execute("select k from back order by k limit 1 offset 123456")[0].textRows(), [["123457"]])

        // Compressed: one 13 MB file written as several gzip members, zstd frames or bzip2 streams.
        for (option, suffix) in [("gzip", ".gz"), ("zstd", ".zst"), ("bzip2", ".bz2")] {
            _ = try s.execute("truncate back")
            let q = dir.appendingPathComponent("c\(option)_").path
            _ = try s.execute("unload ('select * from big') to '\(q)' \(option) manifest verbose parallel off")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("c\(option)_") }.sorted()
            XCTAssertEqual(names, ["c\(option)_000\(suffix)", "c\(option)_manifest"])
            let manifest = try String(contentsOfFile: q + "manifest", encoding: .utf8)
            XCTAssertTrue(manifest.contains("\"record_count\":250000}"), manifest)
            _ = try s.execute("copy back from '\(q)manifest' \(option) manifest")
            XCTAssertEqual(try s.execute("select count(*), sum(k), sum(length(s)) from back")[0].textRows(), want, option)
        }
        // An empty result writes one empty file.
        let e = dir.appendingPathComponent("empty_").path
        _ = try s.execute("unload ('select * from big where k < 0') to '\(e)' gzip")
        let empty = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("empty_") }
        XCTAssertEqual(empty, ["empty_0000_part_00.gz"])
        _ = try s.execute("truncate back")
        _ = try s.execute("copy back from '\(e)' gzip")
        XCTAssertEqual(try s.execute("select count(*) from back")[0].textRows(), [["0"]])
    }
}
