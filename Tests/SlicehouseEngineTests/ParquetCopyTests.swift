// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes
import SlicehouseParquet

/// COPY ... FORMAT [AS] PARQUET without any other tool: UNLOAD's and `ParquetWriter`'s
/// files loaded back, Redshift's parameter rules, positional mapping, and the errors
/// (recorded in STL_LOAD_ERRORS, table unchanged).
final class ParquetCopyTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-pqcopy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A table of every type with awkward values: NULLs, '', Unicode, delimiters, quotes,
    /// newlines, extremes.
    func session() throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table src (sm smallint, i int, b bigint, d decimal(20,4), n decimal(10,2), r real, f double precision,
                              t boolean, dt date, ts timestamp, s varchar(60), c char(6)) diststyle even;
            insert into src values
              (32767, 2147483647, 9223372036854775807, 1234567890123456.7891, 12345678.91, 1.5, 1.5, true,
               '2020-02-29', '2020-02-29 12:34:56.123456', 'plain', 'ab'),
              (-32768, -2147483648, -9223372036854775807, -0.0001, -0.01, -2.25, -2.25e10, false,
               '1969-12-31', '1969-12-31 23:59:59.999999', 'pipe|comma,quote"tab\tend', 'x'),
              (null, null, null, null, null, null, null, null, null, null, null, null),
              (0, 0, 0, 0, 0, 0, 0, true, '2000-01-01', '2000-01-01 00:00:00', '', ''),
              (5, 5, 5, 5, 5, 3.25, 5e-300, false, '0001-01-01', '1900-01-01 00:00:00', 'new
            line and back\\\\slash \\\\N', 'u-n-i'),
              (6, 6, 6, 99999999999999.9999, 6, 1e30, 1e300, true, '9999-12-31', '2262-04-11 23:47:16', 'héllo wörld ✓ 日本語 🎉', 'z  ');
            create table dst (like src);
            """)
        return s
    }

    func count(_ s: Session, _ sql: String) throws -> String? {
        try s.execute(sql)[0].textRows().first?.first ?? nil
    }

    func assertSameRows(_ s: Session, _ a: String = "src", _ b: String = "dst", rows: Int = 6,
                        file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try count(s, "select count(*) from \(b)"), String(rows), file: file, line: line)
        XCTAssertEqual(try count(s, "select count(*) from (select * from \(a) except select * from \(b)) x"), "0", file: file, line: line)
        XCTAssertEqual(try count(s, "select count(*) from (select * from \(b) except select * from \(a)) x"), "0", file: file, line: line)
    }

    // MARK: - Round trips

    func testUnloadThenCopyRoundTripsEveryType() throws {
        let s = try session()
        let p = path("all_")
        _ = try s.execute("unload ('select * from src') to '\(p)' format as parquet")
        let r = try s.execute("copy dst from '\(p)' format as parquet")[0]
        XCTAssertEqual(r.tag, "COPY 6")
        XCTAssertEqual(r.notices, ["Load into table 'dst' completed, 6 record(s) loaded successfully."])
        try assertSameRows(s)
        // NULL stays NULL, '' stays '', Unicode and control characters survive.
        XCTAssertEqual(try count(s, "select count(*) from dst where s is null and c is null and dt is null"), "1")
        XCTAssertEqual(try count(s, "select count(*) from dst where s = '' and c = ''"), "1")
        XCTAssertEqual(try count(s, "select s from dst where i = 6"), "héllo wörld ✓ 日本語 🎉")
        XCTAssertEqual(try count(s, "select s from dst where i = 5"), "new\nline and back\\slash \\N")
        XCTAssertEqual(try count(s, "select s from dst where i = 0 - 2147483648"), "pipe|comma,quote\"tab\tend")
        XCTAssertEqual(try count(s, "select pg_last_copy_count()"), "6")
    }

    func testCompressionsAndSyntaxVariants() throws {
        let s = try session()
        for (k, (unload, copy)) in [("", "format as parquet"), (" zstd", "format parquet"), ("", "parquet"),
                                    ("", "format as parquet iam_role 'arn:aws:iam::0:role/x' statupdate off")].enumerated() {
            let p = path("v\(k)_")
            _ = try s.execute("unload ('select * from src') to '\(p)' format as parquet\(unload)")
            _ = try s.execute("truncate dst")
            _ = try s.execute("copy dst from 'file://\(p)' \(copy)")
            try assertSameRows(s)
        }
    }

    func testManyFilesManyRowGroupsCutIntoChunks() throws {
        // 3 files × several row groups each, written with a tiny row group size.
        let types: [(String, DataType)] = [("id", .bigint), ("name", .varchar(20)), ("amount", .decimal(precision: 12, scale: 2))]
        var expectedSum: Int64 = 0
        var total = 0
        for f in 0..<3 {
            let w = try ParquetWriter(path: path("many_part-\(f).parquet"),
                                      columns: types, rowGroupBytes: 20_000)
            let rows = 5_000 + f * 1_234
            var ids: [Int64] = [], amounts: [Int64] = []
            var names = StringArray()
            var validity = Validity(allValid: rows)
            for r in 0..<rows {
                let id = Int64(total + r)
                ids.append(id)
                amounts.append(id * 3)
                expectedSum += id
                if r % 7 == 0 { validity.setInvalid(r); names.appendEmpty() } else { names.append("n\(id)") }
            }
            total += rows
            let chunk = Chunk(columns: [Vector(type: .bigint, data: .int64(ids)),
                                        Vector(type: .varchar(20), data: .string(names), validity: validity),
                                        Vector(type: .decimal(precision: 12, scale: 2), data: .int64(amounts))], count: rows)
            var start = 0
            while start < rows {
                let n = min(500, rows - start)
                try w.append(Chunk(columns: chunk.columns.map { $0.slice(start, n) }, count: n))
                start += n
            }
            try w.close()
        }
        let file0 = try ParquetFile(path: path("many_part-0.parquet"))
        XCTAssertGreaterThan(file0.rowGroupCount, 2, "the test wants several row groups per file")
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 3)).connect()
        _ = try s.execute("create table m (id bigint not null, name varchar(20), amount decimal(12,2))")
        let r = try s.execute("copy m from '\(path("many_"))' format as parquet")[0]
        XCTAssertEqual(r.tag, "COPY \(total)")
        XCTAssertEqual(try count(s, "select sum(id) from m"), String(expectedSum))
        XCTAssertEqual(try count(s, "select count(distinct id) from m"), String(total))
        var nulls = 0
        for f in 0..<3 { nulls += (5_000 + f * 1_234 + 6) / 7 }
        XCTAssertEqual(try count(s, "select count(*) from m where name is null"), String(nulls))
        XCTAssertEqual(try count(s, "select count(*) from m where amount <> id * 0.03"), "0")
        XCTAssertEqual(try count(s, "select name from m where id = 8"), "n8")
    }

    func testColumnsMapByPositionNotName() throws {
        let s = try Database().connect()
        _ = try s.execute("create table a (x int, y varchar(10)); insert into a values (1, 'one'), (2, 'two')")
        _ = try s.execute("unload ('select x as y, y as x from a') to '\(path("pos_"))' format parquet parallel off")
        // The file's names are swapped; positions decide.
        _ = try s.execute("create table b (p int, q varchar(10))")
        _ = try s.execute("copy b from '\(path("pos_"))' format as parquet")
        XCTAssertEqual(try s.execute("select p, q from b order by p")[0].textRows(), [["1", "one"], ["2", "two"]])
        // A column list takes the file's columns in list order; the others get DEFAULT / NULL.
        _ = try s.execute("create table c (q varchar(10), z int default 7, p int)")
        _ = try s.execute("copy c (p, q) from '\(path("pos_"))' format as parquet")
        XCTAssertEqual(try s.execute("select p, q, z from c order by p")[0].textRows(), [["1", "one", "7"], ["2", "two", "7"]])
    }

    func testFillRecordLoadsNullIntoMissingTrailingColumns() throws {
        let s = try Database().connect()
        _ = try s.execute("create table a (x int, y varchar(10)); insert into a values (1, 'one'), (2, null)")
        _ = try s.execute("unload ('select x, y from a') to '\(path("fill_"))' format parquet")
        _ = try s.execute("create table b (x int, y varchar(10), z date, w bigint)")
        XCTAssertThrowsError(try s.execute("copy b from '\(path("fill_"))' format as parquet")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("Table columns: 4, Data columns: 2") ?? false, "\(e)")
        }
        _ = try s.execute("copy b from '\(path("fill_"))' format as parquet fillrecord")
        XCTAssertEqual(try s.execute("select x, y, z, w from b order by x")[0].textRows(),
                       [["1", "one", nil, nil], ["2", nil, nil, nil]])
    }

    func testConversionsIntoWiderAndRescaledTypes() throws {
        let s = try Database().connect()
        _ = try s.execute("""
            create table a (i int, d decimal(6,2), dt date, ts timestamp, f real);
            insert into a values (7, 1234.56, '2024-02-29', '2024-02-29 13:14:15.678901', 0.5), (null, -0.05, null, null, null)
            """)
        _ = try s.execute("unload ('select * from a') to '\(path("conv_"))' format parquet")
        // int→bigint/decimal, decimal(6,2)→decimal(12,4), date→timestamp, timestamp→date, real→double.
        _ = try s.execute("create table b (i decimal(12,1), d decimal(12,4), dt timestamp, ts date, f double precision)")
        _ = try s.execute("copy b from '\(path("conv_"))' format as parquet")
        XCTAssertEqual(try s.execute("select * from b order by i")[0].textRows(),
                       [["7.0", "1234.5600", "2024-02-29 00:00:00", "2024-02-29", "0.5"],
                        [nil, "-0.0500", nil, nil, nil]])
        // Fewer decimal places: rounded half away from zero.
        _ = try s.execute("create table c (i bigint, d decimal(8,1), dt date, ts timestamp, f real)")
        _ = try s.execute("copy c from '\(path("conv_"))' format as parquet")
        XCTAssertEqual(try s.execute("select d from c order by d")[0].textRows(), [["-0.1"], ["1234.6"]])
    }

    // MARK: - Parameters

    func testParametersRedshiftRefusesWithParquet() throws {
        let s = try session()
        let p = path("opt_")
        _ = try s.execute("unload ('select * from src') to '\(p)' format as parquet")
        for option in ["delimiter ','", "ignoreheader 1", "gzip", "maxerror 10", "acceptanydate", "dateformat 'auto'",
                       "null as 'x'", "truncatecolumns", "region 'us-east-1'", "noload", "emptyasnull", "compupdate off"] {
            XCTAssertThrowsError(try s.execute("copy dst from '\(p)' format as parquet \(option)"), option) { e in
                let m = (e as? SQLError)?.message ?? "\(e)"
                XCTAssertTrue(m.hasSuffix("argument is not supported for PARQUET based COPY"), "\(option): \(m)")
            }
        }
        XCTAssertThrowsError(try s.execute("copy dst from '\(p)' format as parquet csv")) { e in
            XCTAssertTrue("\(e)".contains("select different data formats"), "\(e)")
        }
        XCTAssertEqual(try count(s, "select count(*) from dst"), "0")
        // Accepted: ACCEPTINVCHARS, MANIFEST, EXPLICIT_IDS, STATUPDATE, credentials.
        _ = try s.execute("copy dst from '\(p)' format as parquet acceptinvchars '?' explicit_ids statupdate on credentials 'aws_access_key_id=AKID;aws_secret_access_key=s'")
        try assertSameRows(s)
    }

    func testManifestListsParquetFiles() throws {
        let s = try session()
        let p = path("man_")
        _ = try s.execute("unload ('select * from src') to '\(p)' format as parquet manifest")
        _ = try s.execute("copy dst from '\(p)manifest' format as parquet manifest")
        try assertSameRows(s)
    }

    // MARK: - Errors

    /// The STL_LOAD_ERRORS rows of the last COPY.
    func loadErrors(_ s: Session) throws -> [[String?]] {
        try s.execute("""
            select trim(filename), line_number, trim(colname), trim(type), trim(col_length), position, trim(raw_field_value), err_code,
                   trim(err_reason)
            from stl_load_errors where query = pg_last_copy_id() order by line_number
            """)[0].textRows()
    }

    func testTypeMismatchFailsBeforeLoadingAnything() throws {
        let s = try Database().connect()
        _ = try s.execute("create table a (x int, y varchar(10)); insert into a values (1, 'one')")
        _ = try s.execute("unload ('select x, y from a') to '\(path("mm_"))' format parquet parallel off")
        _ = try s.execute("create table b (x int, y int); insert into b values (42, 42)")
        XCTAssertThrowsError(try s.execute("copy b from '\(path("mm_"))' format as parquet")) { e in
            guard let e = e as? SQLError else { return XCTFail("\(e)") }
            XCTAssertEqual(e.message, "Load into table 'b' failed. Check 'stl_load_errors' system table for details.")
            XCTAssertTrue(e.detail?.contains("column y (position 1)") ?? false, e.detail ?? "")
            XCTAssertTrue(e.detail?.contains("cannot load Parquet BYTE_ARRAY") ?? false, e.detail ?? "")
            XCTAssertTrue(e.detail?.contains("integer") ?? false, e.detail ?? "")
            XCTAssertTrue(e.detail?.contains("[15007]") ?? false, e.detail ?? "")
        }
        let errs = try loadErrors(s)
        XCTAssertEqual(errs.count, 1)
        XCTAssertEqual(errs.first?[0], path("mm_000.parquet"))
        XCTAssertEqual(errs.first?[2], "y")
        XCTAssertEqual(errs.first?[7], "15007")
        XCTAssertEqual(try s.execute("select * from b")[0].textRows(), [["42", "42"]])
        XCTAssertEqual(try count(s, "select pg_last_copy_count()"), "0")
    }

    func testValueErrorsNameTheRowAndValue() throws {
        let s = try Database().connect()
        _ = try s.execute("""
            create table a (k int, big bigint, s varchar(20), c varchar(10));
            insert into a values (1, 5, 'short', 'abc'), (2, 40000, 'a longer string', 'é'), (3, null, null, null)
            """)
        _ = try s.execute("unload ('select * from a order by k') to '\(path("val_"))' format parquet parallel off")
        let file = path("val_000.parquet")
        _ = try s.execute("create table b (k int, big smallint, s varchar(20), c varchar(10)); insert into b values (0, 0, 'keep', 'me')")
        XCTAssertThrowsError(try s.execute("copy b from '\(path("val_"))' format as parquet")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("row 2, column big") ?? false, "\(e)")
        }
        XCTAssertEqual(try loadErrors(s), [[file, "2", "big", "smallint", "0", "1", "40000", "1204",
                                            "value 40000 is out of range for type smallint"]])

        _ = try s.execute("create table c (k int, big bigint, s varchar(10), c varchar(10))")
        XCTAssertThrowsError(try s.execute("copy c from '\(path("val_"))' format as parquet"))
        XCTAssertEqual(try loadErrors(s), [[file, "2", "s", "character varying(10)", "10", "2", "a longer string", "1204",
                                            "string of 15 bytes exceeds DDL length of type character varying(10)"]])

        _ = try s.execute("create table d (k int not null, big bigint not null, s varchar(20), c varchar(10))")
        XCTAssertThrowsError(try s.execute("copy d from '\(path("val_"))' format as parquet"))
        XCTAssertEqual(try loadErrors(s).first?[1...3], ["3", "big", "bigint"])
        XCTAssertEqual(try loadErrors(s).first?[7], "1213")

        _ = try s.execute("create table e (k int, big bigint, s varchar(20), c char(10))")
        XCTAssertThrowsError(try s.execute("copy e from '\(path("val_"))' format as parquet"))
        XCTAssertEqual(try loadErrors(s).first?[1...2], ["2", "c"])
        XCTAssertEqual(try loadErrors(s).first?[7], "1220")
        for t in ["c", "d", "e"] { XCTAssertEqual(try count(s, "select count(*) from \(t)"), "0") }
        XCTAssertEqual(try s.execute("select * from b")[0].textRows(), [["0", "0", "keep", "me"]])
    }

    func testTruncatedAndCorruptFilesFailTheWholeCopy() throws {
        let s = try session()
        let p = path("bad_")
        _ = try s.execute("unload ('select * from src') to '\(p)' format as parquet parallel off")
        let good = try Data(contentsOf: URL(fileURLWithPath: path("bad_000.parquet")))
        // A second, good file first in the prefix, so the bad one is not the only one.
        try good.write(to: URL(fileURLWithPath: path("bad_0.parquet")))

        // Truncated: the footer is gone.
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path("bad_000.parquet")))
        XCTAssertThrowsError(try s.execute("copy dst from '\(p)' format as parquet")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("file '\(self.path("bad_000.parquet"))'") ?? false, "\(e)")
            XCTAssertTrue((e as? SQLError)?.detail?.contains("[15001]") ?? false, "\(e)")
        }
        XCTAssertEqual(try loadErrors(s).first?[0], path("bad_000.parquet"))
        XCTAssertEqual(try loadErrors(s).first?[7], "15001")

        // Corrupt: the first column's first page overwritten (footer intact).
        var corrupt = good
        for i in 4..<40 { corrupt[i] = UInt8(truncatingIfNeeded: i &* 37) }
        try corrupt.write(to: URL(fileURLWithPath: path("bad_000.parquet")))
        XCTAssertThrowsError(try s.execute("copy dst from '\(p)' format as parquet")) { e in
            let detail = (e as? SQLError)?.detail ?? "\(e)"
            XCTAssertTrue(detail.contains("bad_000.parquet', column sm (position 0): corrupt file"), detail)
            XCTAssertTrue(detail.hasSuffix("[15001]"), detail)
        }
        XCTAssertEqual(try loadErrors(s).first?[2], "sm")
        // Not Parquet at all.
        try Data("a|b|c\n".utf8).write(to: URL(fileURLWithPath: path("bad_000.parquet")))
        XCTAssertThrowsError(try s.execute("copy dst from '\(p)' format as parquet")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("not a Parquet file") ?? false, "\(e)")
        }
        XCTAssertEqual(try count(s, "select count(*) from dst"), "0")
        // The good file alone loads.
        _ = try s.execute("copy dst from '\(path("bad_0.parquet"))' format as parquet")
        try assertSameRows(s)
    }

    func testTooManyColumnsInTheFile() throws {
        let s = try session()
        _ = try s.execute("unload ('select * from src') to '\(path("wide_"))' format as parquet")
        _ = try s.execute("create table narrow (sm smallint, i int)")
        XCTAssertThrowsError(try s.execute("copy narrow from '\(path("wide_"))' format as parquet fillrecord")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("Unmatched number of columns between table and file. Table columns: 2, Data columns: 12") ?? false, "\(e)")
        }
    }
}
