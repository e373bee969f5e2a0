// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// COPY into a data directory streams: the input is parsed in pieces and the rows are
/// placed, encoded and written as they come (`TableAppender`). Loaded in tiny pieces, with
/// tiny sorted runs or a tiny memory budget, a table must hold what a load in one piece
/// stores; a failing or cancelled COPY must leave nothing, on disk included.
final class BoundedCopyTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "slicehouse-bounded-copy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    static let tables = [
        "create table tk (id int not null encode az64, k int encode raw, d date encode raw, s varchar(40) encode lzo, amount decimal(12,2) encode az64) distkey(id)",
        "create table te (id int not null encode az64, k int encode raw, d date encode raw, s varchar(40) encode lzo, amount decimal(12,2) encode az64) diststyle even",
        "create table ts (id int not null encode az64, k int encode raw, d date encode raw, s varchar(40) encode lzo, amount decimal(12,2) encode az64) distkey(id) sortkey(d)",
        "create table tc (id int not null encode az64, k int encode raw, d date encode raw, s varchar(40) encode lzo, amount decimal(12,2) encode az64) diststyle even compound sortkey(k, id)",
    ]

    /// Three files of `rows` rows in all (pseudo-random keys, dates and strings, some NULLs).
    func writeData(rows: Int, name: String = "data", badLastRow: Bool = false) throws -> String {
        let folder = dir + "/\(name)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { x = x &* 6364136223846793005 &+ 1442695040888963407; return x >> 33 }
        let perFile = (rows + 2) / 3
        var id = 0
        for f in 0..<3 {
            var text = ""
            text.reserveCapacity(perFile * 48)
            for _ in 0..<perFile where id < rows {
                id += 1
                let k = next() % 997
                let day = 1 + Int(next() % 28), month = 1 + Int(next() % 12), year = 1992 + Int(next() % 7)
                let d = String(format: "%04d-%02d-%02d", year, month, day)
                let s = next() % 10 == 0 ? "\\N" : "v\(next() % 5000)-" + String(repeating: "x", count: Int(next() % 20))
                let amount = next() % 17 == 0 ? "\\N" : "\(next() % 100000).\(String(format: "%02d", next() % 100))"
                text += "\(id)|\(k)|\(d)|\(s)|\(amount)\n"
            }
            if badLastRow && f == 2 { text += "\(id + 1)|1|1999-02-30|bad|1.00\n" }
            try text.write(toFile: folder + "/part\(f).tbl", atomically: true, encoding: .utf8)
        }
        return folder + "/part"
    }

    func database(_ name: String, pieceBytes: Int? = nil, runBytes: Int? = nil, memoryBytes: Int? = nil) throws -> Session {
        let db = try Database(directory: dir + "/\(name)", cluster: ClusterConfig(nodes: 2, slicesPerNode: 2),
                              blockBytes: 4096, memoryBytes: memoryBytes)
        db.copyPieceBytes = pieceBytes
        db.copyRunBytes = runBytes
        let s = db.connect()
        for t in Self.tables { _ = try s.execute(t) }
        return s
    }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] { try s.execute(sql)[0].textRows() }

    /// Where every row is: blocks per (slice, column) with their rows, ranges and NULLs.
    func blocks(_ s: Session, _ table: String) throws -> [[String?]] {
        try rows(s, """
            select b.slice, b.col, b.blocknum, b.num_values, b.minvalue, b.maxvalue, b.num_nulls, b.first_row
            from stv_blocklist b join stv_tbl_perm p on b.tbl = p.id and b.slice = p.slice
            where trim(p.name) = '\(table)' order by 1, 2, 3
            """)
    }

    func summary(_ s: Session, _ table: String) throws -> [[String?]] {
        try rows(s, """
            select count(*), count(s), sum(id), sum(k * id), sum(amount), min(d), max(d),
                   sum(length(s)), count(distinct s) from \(table)
            """)
    }

    func perSlice(_ s: Session, _ table: String) throws -> [[String?]] {
        try rows(s, "select slice, rows, sorted_rows from stv_tbl_perm where trim(name) = '\(table)' order by slice")
    }

    func load(_ s: Session, _ path: String) throws {
        for t in ["tk", "te", "ts", "tc"] {
            let r = try s.execute("copy \(t) from '\(path)' delimiter '|'")
            XCTAssertEqual(r[0].tag, "COPY 30000")
        }
    }

    /// Tiny pieces and flushes (unsorted tables write their full blocks and carry the rest
    /// into the next flush) store exactly the blocks of a load in one piece; sorted tables
    /// whose rows fit in one run are sorted exactly as before.
    func testPiecewiseCopyStoresTheSameBlocks() throws {
        let path = try writeData(rows: 30_000)
        let whole = try database("whole")
        try load(whole, path)
        let pieces = try database("pieces", pieceBytes: 4096, runBytes: 32 << 10)
        try load(pieces, path)
        let oneRun = try database("onerun", pieceBytes: 4096)
        try load(oneRun, path)
        for t in ["tk", "te"] {
            let expected = try blocks(whole, t)
            XCTAssertGreaterThan(expected.count, 40, t)
            XCTAssertEqual(try blocks(pieces, t), expected, t)
            XCTAssertEqual(try summary(pieces, t), try summary(whole, t), t)
            XCTAssertEqual(try perSlice(pieces, t), try perSlice(whole, t), t)
        }
        for t in ["ts", "tc"] {
            XCTAssertEqual(try blocks(oneRun, t), try blocks(whole, t), t)
            XCTAssertEqual(try perSlice(oneRun, t), try perSlice(whole, t), t)
        }
        // Appending to tables with rows continues their slices and blocks the same way.
        try load(whole, path)
        try load(pieces, path)
        for t in ["tk", "te"] {
            XCTAssertEqual(try blocks(pieces, t), try blocks(whole, t), t)
            XCTAssertEqual(try perSlice(pieces, t), try perSlice(whole, t), t)
        }
    }

    /// A sorted table whose rows exceed the run size (or the statement's memory budget)
    /// is written as sorted runs: the first is the sorted region, each later run sorted
    /// within itself; the rows and their slices are the same, and VACUUM SORT ONLY gives the
    /// one-piece load's order.
    func testSortedRunsHoldTheSameRowsAndVacuumToTheSameOrder() throws {
        let path = try writeData(rows: 30_000)
        let whole = try database("whole")
        try load(whole, path)
        let runs = try database("runs", pieceBytes: 4096, runBytes: 64 << 10)
        try load(runs, path)
        let budget = try database("budget", pieceBytes: 4096, memoryBytes: 256 << 10)
        try load(budget, path)
        for t in ["ts", "tc"] {
            let expected = try summary(whole, t)
            let full = try perSlice(whole, t)
            XCTAssertEqual(full.map { $0[1] }, full.map { $0[2] }, "\(t): one run sorts every row")
            for s in [runs, budget] {
                XCTAssertEqual(try summary(s, t), expected, t)
                let split = try perSlice(s, t)
                XCTAssertEqual(split.map { $0[1] }, full.map { $0[1] }, "\(t): rows per slice")
                for slice in split {
                    let total = Int(slice[1] ?? "") ?? 0, sorted = Int(slice[2] ?? "") ?? 0
                    XCTAssertGreaterThan(sorted, 0, t)
                    XCTAssertLessThan(sorted, total, "\(t): the later runs are unsorted")
                }
                _ = try s.execute("vacuum sort only \(t) to 100 percent")
                let after = try perSlice(s, t)
                XCTAssertEqual(after.map { $0[1] }, after.map { $0[2] }, t)
                let order = t == "ts" ? "d" : "k, id"
                XCTAssertEqual(try rows(s, "select id, k, d, s, amount from \(t) order by \(order), id"),
                               try rows(whole, "select id, k, d, s, amount from \(t) order by \(order), id"), t)
            }
        }
    }

    /// Rows that encode to almost nothing (one line repeated) fill a block only at
    /// `Distributor.maxBlockRows`: an unsorted table's load carried them toward full blocks
    /// past any budget (a 600 MB COPY under `--memory 256MB` held 650 MB). Refused by the
    /// budget, the appender writes what it carries as short blocks; the rows read back whole.
    func testRowsThatEncodeSmallAreWrittenWhenTheBudgetRefusesThem() throws {
        let folder = dir + "/repeated"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let line = "7|42|1999-03-04|the same words every time|12.50\n"
        try String(repeating: line, count: 200_000).write(toFile: folder + "/part0.tbl", atomically: true, encoding: .utf8)
        let s = try database("same", pieceBytes: 64 << 10, memoryBytes: 2 << 20)
        XCTAssertEqual(try s.execute("copy te from '\(folder)/part' delimiter '|'")[0].tag, "COPY 200000")
        // 200,000 rows held whole come to about 10 MB; the statement stays near its budget.
        XCTAssertLessThan(s.database.memory.peakBytes, 4 << 20)
        XCTAssertEqual(try rows(s, "select count(*), sum(id), min(s), max(amount), count(distinct d) from te"),
                       [["200000", "1400000", "the same words every time", "12.50", "1"]])
        XCTAssertGreaterThan(try blocks(s, "te").count, 20, "short blocks")
    }

    /// A sorted run's string columns are gathered and encoded in pieces (`copyGatherRows`),
    /// and strings of few values wait as dictionary codes — `mode`'s dictionary outgrown
    /// half-way, `flag` NULL in some chunks, `ship` coded throughout and BYTEDICT, so its
    /// blocks are made from the codes: the blocks are those of the run gathered whole,
    /// and every row reads back as an unsorted table (held without codes) holds it.
    func testStringsGatheredInPiecesAndHeldAsCodesReadBackAsLoaded() throws {
        let folder = dir + "/coded"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 { x = x &* 6364136223846793005 &+ 1442695040888963407; return x >> 33 }
        let modes = ["AIR", "REG AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
        // Twenty files: a chunk each (the chunks' dictionaries meet the values in their
        // own orders).
        var text = ""
        for id in 1...40_000 {
            let d = String(format: "1995-%02d-%02d", 1 + Int(next() % 12), 1 + Int(next() % 28))
            let flag = id > 30_000 && next() % 50 == 0 ? "\\N" : ["A", "N", "R"][Int(next() % 3)]
            let mode = id <= 20_000 ? modes[Int(next() % 7)] : "m\(next() % 400)"
            let comment = String(repeating: "c", count: Int(next() % 30)) + "\(next() % 100_000)"
            let ship = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"][Int(next() % 4)]
            text += "\(id)|\(d)|\(flag)|\(mode)|\(next() % 3 == 0 ? "" : comment)|\(ship)\n"
            if id % 2_000 == 0 {
                try text.write(toFile: folder + String(format: "/data%02d.tbl", id / 2_000), atomically: true, encoding: .utf8)
                text = ""
            }
        }
        let columns = "(id int not null, d date not null, flag char(1), mode varchar(12), s varchar(40), "
            + "ship varchar(20) not null encode bytedict)"
        func loaded(_ name: String, gatherRows: Int?) throws -> Session {
            let db = try Database(directory: dir + "/\(name)", cluster: ClusterConfig(nodes: 2, slicesPerNode: 2),
                                  blockBytes: 4096)
            db.copyPieceBytes = 64 << 10
            db.copyGatherRows = gatherRows
            let s = db.connect()
            _ = try s.execute("create table tg \(columns) distkey(id) sortkey(d)")
            _ = try s.execute("create table tu \(columns) diststyle even")
            for t in ["tg", "tu"] {
                XCTAssertEqual(try s.execute("copy \(t) from '\(folder)/data' delimiter '|'")[0].tag, "COPY 40000")
            }
            return s
        }
        let whole = try loaded("coded-whole", gatherRows: nil)
        let pieces = try loaded("coded-pieces", gatherRows: 4096)
        let expected = try blocks(whole, "tg")
        XCTAssertGreaterThan(expected.filter { $0[1] == "4" }.count, 20, "many string blocks per slice")
        XCTAssertEqual(try blocks(pieces, "tg"), expected)
        XCTAssertEqual(try descents(pieces, "tg", column: "1"), 0, "one sorted run")
        XCTAssertGreaterThanOrEqual(expected.filter { $0[1] == "5" }.count, 8, "two or more of ship's blocks a slice")
        XCTAssertEqual(try rows(whole, "select encoding from pg_table_def where tablename = 'tg' and \"column\" = 'ship'"),
                       [["bytedict"]])
        let all = "select id, d, flag, mode, s, ship from"
        let want = try rows(whole, "\(all) tu order by id")
        XCTAssertEqual(want.count, 40_000)
        XCTAssertEqual(try rows(whole, "\(all) tg order by id"), want)
        XCTAssertEqual(try rows(pieces, "\(all) tg order by id"), want)
        XCTAssertEqual(try rows(pieces, "select count(distinct mode), count(flag), count(*) - count(s) from tg"),
                       try rows(whole, "select count(distinct mode), count(flag), count(*) - count(s) from tu"))
        // Zone maps of the coded column skip blocks as the strings' would.
        for s in [whole, pieces] {
            XCTAssertEqual(try rows(s, "select count(*) from tg where ship = 'NONE'"),
                           try rows(whole, "select count(*) from tu where ship = 'NONE'"))
            XCTAssertEqual(try rows(s, "select min(ship), max(ship) from tg"), [["COLLECT COD", "TAKE BACK RETURN"]])
        }
    }

    /// Places where a slice's sort-key blocks go back down (a new run starts), per table.
    func descents(_ s: Session, _ table: String, column: String) throws -> Int {
        let b = try blocks(s, table).filter { $0[1] == column }
        var n = 0
        for i in 1..<b.count where b[i][0] == b[i - 1][0] {
            if let lo = Int(b[i][4] ?? ""), let hi = Int(b[i - 1][5] ?? ""), lo < hi { n += 1 }
        }
        return n
    }

    /// Each run of a split load is sorted: the sort key's blocks go down only where a run starts.
    func testEachSortedRunIsSorted() throws {
        let path = try writeData(rows: 30_000)
        let whole = try database("whole")
        try load(whole, path)
        let runs = try database("runs", pieceBytes: 64 << 10, runBytes: 160 << 10)
        try load(runs, path)
        XCTAssertEqual(try descents(whole, "ts", column: "2"), 0)
        XCTAssertEqual(try descents(whole, "tc", column: "1"), 0)
        for (t, c) in [("ts", "2"), ("tc", "1")] {
            let n = try descents(runs, t, column: c)
            let total = try blocks(runs, t).filter { $0[1] == c }.count
            XCTAssertGreaterThanOrEqual(n, 4, "\(t): a second run on every slice")
            XCTAssertLessThan(n * 2, total, "\(t): runs of many blocks, each sorted")
        }
    }

    func blockFiles(_ db: String) -> [String] {
        let root = dir + "/\(db)"
        guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
        return e.compactMap { $0 as? String }.filter { $0.hasSuffix(".blk") }.sorted()
    }

    /// A bad row in the last file fails the COPY after earlier pieces were written: nothing
    /// is visible, in autocommit or in a transaction block, and no block file is left.
    func testFailingCopyLeavesNothingVisibleOrOnDisk() throws {
        let good = try writeData(rows: 30_000)
        let bad = try writeData(rows: 30_000, name: "bad", badLastRow: true)
        let s = try database("fail", pieceBytes: 4096, runBytes: 32 << 10)
        _ = try s.execute("copy tk from '\(good)' delimiter '|'")
        let before = blockFiles("fail")
        let summaries = try ["tk", "te", "ts", "tc"].map { try summary(s, $0) }
        for t in ["tk", "te", "ts", "tc"] {
            XCTAssertThrowsError(try s.execute("copy \(t) from '\(bad)' delimiter '|'")) { error in
                guard let e = error as? SQLError else { return XCTFail("\(error)") }
                XCTAssertTrue(e.message.contains("Load into table '\(t)' failed"), e.message)
            }
            XCTAssertEqual(blockFiles("fail"), before, t)
        }
        let errors = try rows(s, "select trim(filename), line_number, trim(colname), trim(err_reason) from stl_load_errors order by starttime desc limit 1")
        XCTAssertEqual(errors.first?[0], dir + "/bad/part2.tbl")
        XCTAssertEqual(errors.first?[1], "10001")
        XCTAssertEqual(errors.first?[2], "d")
        _ = try s.execute("begin")
        _ = try s.execute("copy te from '\(good)' delimiter '|'")
        XCTAssertThrowsError(try s.execute("copy ts from '\(bad)' delimiter '|'"))
        _ = try s.execute("rollback")
        XCTAssertEqual(blockFiles("fail"), before)
        XCTAssertEqual(try ["tk", "te", "ts", "tc"].map { try summary(s, $0) }, summaries)
    }

    /// Cancelled while it runs, a COPY stops between pieces, loads nothing and leaves no files.
    /// (The statement's cancellation token is the one a CancelRequest or pg_cancel_backend
    /// trips; a statement_timeout far shorter than the load trips it mid-way whatever the
    /// build's speed — the progress callback comes only every 250 ms, after a fast load.)
    func testCancelledCopyStopsAndLoadsNothing() throws {
        let path = try writeData(rows: 200_000)
        let s = try database("cancel", pieceBytes: 16 << 10, runBytes: 1 << 20)
        // The same COPY, not cancelled: how long it takes.
        let full = Date()
        _ = try s.execute("copy ts from '\(path)' delimiter '|'")
        let fullSeconds = Date().timeIntervalSince(full)
        XCTAssertEqual(try rows(s, "select count(*) from ts"), [["200000"]])
        _ = try s.execute("truncate ts")
        let loaded = blockFiles("cancel")
        // A tenth of that as the statement's timeout: the COPY stops part way.
        let limit = max(1, Int(fullSeconds * 100))
        _ = try s.execute("set statement_timeout to \(limit)")
        XCTAssertThrowsError(try s.execute("copy ts from '\(path)' delimiter '|'")) { error in
            guard let e = error as? SQLError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.code, .queryCanceled, e.message)
        }
        _ = try s.execute("reset statement_timeout")
        XCTAssertEqual(try rows(s, "select count(*) from ts"), [["0"]])
        XCTAssertEqual(blockFiles("cancel"), loaded, "the cancelled COPY left no block files")
    }
}
