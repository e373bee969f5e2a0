// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// COPY as a statement: options, prefixes, atomic failure, STL_LOAD_ERRORS.
final class CopyStatementTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ text: String) throws -> String {
        let p = dir.appendingPathComponent(name)
        try text.write(to: p, atomically: true, encoding: .utf8)
        return p.path
    }

    func session() throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table t (id int not null, name varchar(10), d date, amount decimal(8,2)) distkey(id)")
        return s
    }

    func count(_ s: Session, _ table: String = "t") throws -> String? {
        try s.execute("select count(*) from \(table)")[0].textRows()[0][0]
    }

    func testLoadsAndReportsRowCount() throws {
        let s = try session()
        let path = try write("a.txt", "1|one|2020-01-01|1.50|\n2|\\N|2020-01-02|2.00|\n3|three|\\N|\\N|\n")
        let r = try s.execute("copy t from '\(path)'")
        XCTAssertEqual(r[0].tag, "COPY 3")
        XCTAssertEqual(r[0].notices, ["Load into table 't' completed, 3 record(s) loaded successfully."])
        XCTAssertEqual(try s.execute("select id, name, d, amount from t order by id")[0].textRows(),
                       [["1", "one", "2020-01-01", "1.50"], ["2", nil, "2020-01-02", "2.00"], ["3", "three", nil, nil]])
    }

    /// A COPY into an empty table gathers its statistics as it loads (Redshift's
    /// STATUPDATE default); into a table with rows it leaves them as they were, unless
    /// STATUPDATE ON, which analyzes the whole table in the COPY's own commit.
    func testStatUpdateDefaultOnAndOff() throws {
        let s = try session()
        let path = try write("rows.txt", "1|a|2020-01-01|1.00\n2|b|2020-01-02|2.00\n3||2020-01-03|\n")
        let off = "select stats_off from svv_table_info where \"table\" = 't'"
        _ = try s.execute("copy t from '\(path)' delimiter '|'")
        XCTAssertEqual(try s.execute(off)[0].textRows(), [["0"]])
        // Not empty any more: 3 rows loaded against the 3 analyzed.
        _ = try s.execute("copy t from '\(path)' delimiter '|'")
        XCTAssertEqual(try s.execute(off)[0].textRows(), [["100"]])
        _ = try s.execute("copy t from '\(path)' delimiter '|' statupdate on")
        XCTAssertEqual(try s.execute(off)[0].textRows(), [["0"]])
        XCTAssertEqual(try count(s), "9")
        // STATUPDATE OFF: an empty table stays unanalyzed.
        _ = try s.execute("create table u (id int not null, name varchar(10), d date, amount decimal(8,2))")
        _ = try s.execute("copy u from '\(path)' delimiter '|' statupdate off")
        XCTAssertEqual(try s.execute("select stats_off from svv_table_info where \"table\" = 'u'")[0].textRows(), [["100"]])
    }

    /// The statistics a COPY gathers are the planner's: a GROUP BY over a column with 10
    /// values is estimated at 10 groups (a tenth of the input, 101, without them). A
    /// failed COPY before it leaves the table empty, so the second one still counts.
    func testLoadStatisticsReachThePlanner() throws {
        let s = try session()
        _ = try s.execute("create table g (id int not null, k int, label varchar(20)) distkey(id)")
        var text = ""
        for i in 0..<1000 { text += "\(i)|\(i % 10)|label \(i % 25)\n" }
        let path = try write("g.txt", text)
        let bad = try write("bad.txt", text + "x|1|y\n")
        XCTAssertThrowsError(try s.execute("copy g from '\(bad)' delimiter '|'"))
        XCTAssertEqual(try count(s, "g"), "0")
        _ = try s.execute("copy g from '\(path)' delimiter '|'")
        let plan = try s.execute("explain select k, count(*) from g group by k")[0].textRows().compactMap { $0.first ?? nil }
        XCTAssertTrue(plan.contains { $0.contains("HashAggregate") && $0.contains("rows=10 ") }, plan.joined(separator: "\n"))
        let labels = try s.execute("explain select label from g group by label")[0].textRows().compactMap { $0.first ?? nil }
        XCTAssertTrue(labels.contains { $0.contains("HashAggregate") && $0.contains("rows=25 ") }, labels.joined(separator: "\n"))
    }

    func testMalformedRowFailsAsAUnitAndNamesFileLineColumn() throws {
        let s = try session()
        let good = try write("good.txt", "1|a|2020-01-01|1.00\n")
        _ = try s.execute("copy t from '\(good)'")
        let bad = try write("bad.txt", "2|b|2020-01-02|2.00\n3|c|2020-13-45|3.00\n4|d|2020-01-04|4.00\n")
        XCTAssertThrowsError(try s.execute("copy t from '\(bad)'")) { error in
            guard let e = error as? SQLError else { return XCTFail("\(error)") }
            let text = e.message + " " + (e.detail ?? "")
            XCTAssertTrue(text.contains("Load into table 't' failed"), text)
            XCTAssertTrue(text.contains("bad.txt"), text)
            XCTAssertTrue(text.contains("line 2"), text)
            XCTAssertTrue(text.contains("column d") || text.contains("column 'd'") || text.contains("\"d\""), text)
        }
        // Nothing of the failed COPY is stored.
        XCTAssertEqual(try count(s), "1")
        let errs = try s.execute("select line_number, trim(colname), err_code from stl_load_errors")[0].textRows()
        XCTAssertEqual(errs.count, 1)
        XCTAssertEqual(errs.first?[0], "2")
        XCTAssertEqual(errs.first?[1], "d")
        XCTAssertEqual(errs.first?[2], "1205")
    }

    /// Every kind of malformed input: the COPY fails as a unit, the table keeps exactly
    /// the rows it had, and the rejected row is in STL_LOAD_ERRORS with Redshift's code,
    /// line and column (file-level problems, which have no row, name the file instead).
    func testEachKindOfMalformedInputLeavesTheTableUnchanged() throws {
        let s = try session()
        _ = try s.execute("copy t from '\(try write("good.txt", "1|a|2020-01-01|1.00\n"))'")
        let before = try s.execute("select id, name, d, amount from t order by id")[0].textRows()
        func unchanged(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
            XCTAssertEqual(try s.execute("select id, name, d, amount from t order by id")[0].textRows(), before,
                           what, file: file, line: line)
        }
        // (file, contents, options, err_code, line_number, colname)
        let rowLevel: [(String, [UInt8], String, String, String, String)] = [
            ("columns.txt", Array("2|b|2020-01-02|2.00\n3|c|2020-01-03|3.00|x|y\n".utf8), "", "1202", "2", ""),
            ("number.txt", Array("2|b|2020-01-02|2.00\n3|c|2020-01-03|3.x0\n".utf8), "", "1207", "2", "amount"),
            ("date.txt", Array("2|b|2020-02-30|2.00\n".utf8), "", "1205", "1", "d"),
            ("long.txt", Array("2|b|2020-01-02|2.00\n3|abcdefghijk|2020-01-03|3.00\n".utf8), "", "1204", "2", "name"),
            ("utf8.txt", Array("2|b".utf8) + [0xFF, 0xFE] + Array("|2020-01-02|2.00\n".utf8), "", "1220", "1", "name"),
            ("quote.csv", Array("2,b,2020-01-02,2.00\n3,\"c,2020-01-03,3.00\n".utf8), "csv", "1216", "2", ""),
            ("bad.json", Array("{\"id\": 2, \"name\": \"b\"}\n{\"id\": 3, \"name\": }\n".utf8), "json 'auto'",
             "1224", "2", ""),
        ]
        for (name, bytes, options, code, lineNumber, column) in rowLevel {
            let path = dir.appendingPathComponent(name).path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            XCTAssertThrowsError(try s.execute("copy t from '\(path)' \(options)"), name) { error in
                XCTAssertTrue("\(error)".contains("Load into table 't' failed"), "\(name): \(error)")
            }
            try unchanged(name)
            let rows = try s.execute("""
                select err_code, line_number, trim(colname), trim(filename) from stl_load_errors
                where trim(filename) = '\(path)'
                """)[0].textRows()
            XCTAssertEqual(rows.count, 1, name)
            XCTAssertEqual(rows.first?[0], code, name)
            XCTAssertEqual(rows.first?[1], lineNumber, name)
            if !column.isEmpty { XCTAssertEqual(rows.first?[2], column, name) }
        }

        // A truncated gzip file: UNLOAD writes a good one, then it loses its tail.
        _ = try s.execute("unload ('select * from t') to '\(dir.path)/gz_' gzip parallel off")
        let gz = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("gz_") }
        XCTAssertEqual(gz.count, 1)
        let gzPath = dir.appendingPathComponent(gz.first ?? "gz_").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: gzPath))
        try whole.prefix(whole.count - 6).write(to: URL(fileURLWithPath: gzPath))
        XCTAssertThrowsError(try s.execute("copy t from '\(gzPath)' gzip")) { error in
            XCTAssertTrue("\(error)".contains(gz.first ?? "gz_"), "\(error)")
        }
        try unchanged("truncated gzip")

        // A manifest naming a mandatory file that does not exist.
        let missing = dir.appendingPathComponent("missing.txt").path
        let manifest = try write("load.manifest", """
            {"entries": [{"url": "file://\(dir.appendingPathComponent("good.txt").path)", "mandatory": true},
                         {"url": "\(missing)", "mandatory": true}]}
            """)
        XCTAssertThrowsError(try s.execute("copy t from '\(manifest)' manifest")) { error in
            XCTAssertTrue("\(error)".contains("missing.txt"), "\(error)")
        }
        try unchanged("missing manifest file")
    }

    func testWrongColumnCountAndNotNull() throws {
        let s = try session()
        let extra = try write("extra.txt", "1|a|2020-01-01|1.00|x|y\n")
        XCTAssertThrowsError(try s.execute("copy t from '\(extra)'"))
        let null = try write("null.txt", "\\N|a|2020-01-01|1.00\n")
        XCTAssertThrowsError(try s.execute("copy t from '\(null)'")) { error in
            XCTAssertTrue("\(error)".contains("id") || ((error as? SQLError)?.detail ?? "").contains("id"))
        }
        XCTAssertEqual(try count(s), "0")
    }

    func testCSVHeaderNullAsAndColumnList() throws {
        let s = try session()
        let path = try write("c.csv", "id,name\n1,\"a, quoted\"\n2,NA\n")
        _ = try s.execute("copy t (id, name) from '\(path)' csv ignoreheader 1 null as 'NA'")
        XCTAssertEqual(try s.execute("select id, name, d from t order by id")[0].textRows(),
                       [["1", "a, quoted", nil], ["2", nil, nil]])
    }

    func testPrefixLoadsEveryMatchingFile() throws {
        let s = try session()
        _ = try write("part_1", "1|a\n")
        _ = try write("part_2", "2|b\n")
        _ = try write("other", "3|c\n")
        _ = try s.execute("copy t (id, name) from '\(dir.appendingPathComponent("part").path)'")
        XCTAssertEqual(try count(s), "2")
        XCTAssertEqual(try s.execute("select pg_last_copy_count()")[0].textRows(), [["2"]])
    }

    func testMissingFileIsAnError() throws {
        let s = try session()
        XCTAssertThrowsError(try s.execute("copy t from '\(dir.appendingPathComponent("nope").path)'"))
        XCTAssertThrowsError(try s.execute("copy t from 's3://bucket/key'"))
    }

    func testTrailingDelimiterOfTblFiles() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 1)).connect()
        for ddl in TPCH.schema(.keyed) { _ = try s.execute(ddl) }
        let nation = TPCH.dataDirectory + "/nation.tbl"
        let r = try s.execute("copy nation from '\(nation)'")
        XCTAssertEqual(r[0].tag, "COPY 25")
        // CHAR(25) prints blank-padded, as psql shows it; trailing blanks do not matter in comparisons.
        XCTAssertEqual(try s.execute("select n_name from nation where n_nationkey = 7")[0].textRows()[0][0],
                       "GERMANY" + String(repeating: " ", count: 18))
        XCTAssertEqual(try s.execute("select count(*) from nation where n_name = 'GERMANY'")[0].textRows()[0][0], "1")
    }

    /// A compressed file's inflated bytes count in the COPY's memory while it is parsed (a
    /// plain file is mapped and holds none): the gzip load's peak exceeds the plain one's
    /// by about the file's size.
    func testInflatedInputCountsInTheCopysMemory() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table big (k bigint, s varchar(60));
            insert into big select x, 'a fairly long text value ' || x from generate_series(1, 100000) as q(x);
            create table plain (like big);
            create table packed (like big);
            """)
        let p = dir.appendingPathComponent("big_").path
        _ = try s.execute("unload ('select * from big') to '\(p)' parallel off")
        _ = try s.execute("unload ('select * from big') to '\(p)gz_' parallel off gzip")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: p + "000")[.size] as? Int)
        func peak(_ sql: String) throws -> Int {
            _ = try s.execute(sql)
            let r = try s.execute("select est_peak_mem from stl_wlm_query order by query desc limit 1")[0].textRows()
            return Int(r.first?.first.flatMap { $0 } ?? "") ?? -1
        }
        let plainPeak = try peak("copy plain from '\(p)000'")
        let packedPeak = try peak("copy packed from '\(p)gz_000.gz' gzip")
        XCTAssertGreaterThan(plainPeak, 0)
        XCTAssertGreaterThanOrEqual(packedPeak - plainPeak, size * 9 / 10, "plain \(plainPeak), gzip \(packedPeak), file \(size)")
        XCTAssertEqual(try s.execute("select count(*), sum(k) from packed")[0].textRows(),
                       try s.execute("select count(*), sum(k) from plain")[0].textRows())
    }
}

/// Placement of rows on slices for every DISTSTYLE, seen through system tables.
final class DistributionTests: XCTestCase {
    func testSlicesAndPlacement() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2))
        let s = db.connect()
        XCTAssertEqual(try s.execute("select node, slice from stv_slices order by slice")[0].textRows(),
                       [["0", "0"], ["0", "1"], ["1", "2"], ["1", "3"]])
        _ = try s.execute("""
            create table k (a int distkey, b int);
            create table e (a int, b int) diststyle even;
            create table al (a int, b int) diststyle all;
            """)
        var values: [String] = []
        for i in 0..<400 { values.append("(\(i % 50), \(i))") }
        for t in ["k", "e", "al"] { _ = try s.execute("insert into \(t) values " + values.joined(separator: ",")) }

        func perSlice(_ t: String) throws -> [Int] {
            try s.execute("select slice, rows from stv_tbl_perm where trim(name) = '\(t)' order by slice")[0]
                .textRows().map { Int($0[1] ?? "") ?? -1 }
        }
        // EVEN: round robin, 100 per slice.
        XCTAssertEqual(try perSlice("e"), [100, 100, 100, 100])
        // ALL: a full copy on the first slice of each node.
        XCTAssertEqual(try perSlice("al"), [400, 0, 400, 0])
        // KEY: every slice used, and rows with equal keys share a slice (each key has 8 rows).
        let k = try perSlice("k")
        XCTAssertEqual(k.reduce(0, +), 400)
        XCTAssertTrue(k.allSatisfy { $0 > 0 && $0 % 8 == 0 }, "\(k)")
        XCTAssertEqual(try s.execute("select count(*), sum(b) from al")[0].textRows(), [["400", "79800"]])
        XCTAssertEqual(try s.execute("select diststyle, skew_rows from svv_table_info where \"table\" = 'e'")[0].textRows()[0][0], "EVEN")
    }

    func testClusterLayoutIsKeptByTheDataDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-db-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let db = try Database(directory: dir, cluster: ClusterConfig(nodes: 3, slicesPerNode: 2))
            XCTAssertEqual(db.cluster.sliceCount, 6)
        }
        let again = try Database(directory: dir, cluster: ClusterConfig(nodes: 1, slicesPerNode: 1))
        XCTAssertEqual(again.cluster, ClusterConfig(nodes: 3, slicesPerNode: 2))
        XCTAssertEqual(try again.connect().execute("select count(*) from stv_slices")[0].textRows()[0][0], "6")
    }
}
