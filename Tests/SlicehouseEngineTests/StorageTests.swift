// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// The persistent column store: data directory, manifests, reopen, the directory
/// lock, leftovers, DELETE / UPDATE / TRUNCATE, sort keys and zone-map skipping.
final class StorageTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-store-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    func one(_ s: Session, _ sql: String) throws -> String? { try rows(s, sql).first?.first ?? nil }

    func testTablesViewsAndRowsSurviveReopen() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create table t (id int not null, name varchar(20) encode zstd, d date, amt decimal(10,2), f float8, b boolean)
                  distkey(id) sortkey(d);
                insert into t values (1, 'one', '2020-01-01', 1.50, 0.5, true), (2, null, '2020-01-02', null, null, false),
                                     (3, 'three', null, -3.25, 1e300, null);
                create view v as select id, name from t where id > 1;
                create table e (x int) diststyle even;
                insert into e select id from t;
                """)
        }
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select id, name, d, amt, f, b from t order by id"),
                       [["1", "one", "2020-01-01", "1.50", "0.5", "t"], ["2", nil, "2020-01-02", nil, nil, "f"],
                        ["3", "three", nil, "-3.25", "1e+300", nil]])
        XCTAssertEqual(try rows(s, "select * from v order by id"), [["2", nil], ["3", "three"]])
        XCTAssertEqual(try one(s, "select sum(x) from e"), "6")
        XCTAssertEqual(try rows(s, "select \"column\", encoding, sortkey from pg_table_def where tablename = 't' and \"column\" in ('name', 'd') order by 1"),
                       [["d", "none", "1"], ["name", "zstd", "0"]])
        // New tables get fresh ids after a reopen.
        _ = try s.execute("create table u (a int)")
        let ids = try rows(s, "select table_id from svv_table_info order by table_id").map { $0[0] }
        XCTAssertEqual(Set(ids).count, ids.count)
    }

    /// Single-row INSERTs grow the last block of each column instead of adding blocks, and
    /// replaced blocks' files are removed: blocks and bytes on disk stay proportional to the rows.
    func testSmallInsertsGrowTheTailBlock() throws {
        let s = try Database(directory: dir).connect()
        _ = try s.execute("create table t (id int, name varchar(30), d date) diststyle even")
        for i in 0..<300 { _ = try s.execute("insert into t values (\(i), 'name number \(i)', '2024-01-01'::date + \(i % 300))") }
        // Inside one block too: the files its earlier statements wrote and later ones replaced go at COMMIT.
        _ = try s.execute("begin")
        for i in 300..<400 { _ = try s.execute("insert into t values (\(i), 'name number \(i)', '2024-01-01'::date + \(i % 300))") }
        _ = try s.execute("commit")
        XCTAssertEqual(try one(s, "select count(*) from t"), "400")
        XCTAssertEqual(try one(s, "select count(distinct id) from t"), "400")
        // One block per column and slice (3 × 4), not one per statement (1,200).
        XCTAssertEqual(try one(s, "select count(*) from stv_blocklist where tbl = (select table_id from svv_table_info where \"table\" = 't')"), "12")
        var bytes = 0, files = 0
        for f in FileManager.default.subpaths(atPath: dir) ?? [] where f.hasPrefix("slice") && f.contains(".") {
            bytes += ((try? FileManager.default.attributesOfItem(atPath: (dir as NSString).appendingPathComponent(f)))?[.size] as? Int) ?? 0
            files += 1
        }
        XCTAssertLessThanOrEqual(files, 4, "replaced block files were not removed")
        XCTAssertLessThan(bytes, 20_000)
    }

    /// Commits go to wal.log; a clean close folds them into manifest.json, and both survive reopening.
    func testCommitLogIsCheckpointedAtClose() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("create table t (a int); insert into t values (1); insert into t values (2); delete from t where a = 1")
            let log = (dir as NSString).appendingPathComponent("wal.log")
            XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0, 0)
        }
        let log = (dir as NSString).appendingPathComponent("wal.log")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? -1, 0)
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select a from t"), [["2"]])
    }

    func testSecondOpenOfADirectoryIsRefused() throws {
        let db = try Database(directory: dir)
        XCTAssertThrowsError(try Database(directory: dir)) { e in
            XCTAssertTrue("\(e)".contains("is in use by another process"), "\(e)")
        }
        _ = db
    }

    func testLeftoverFilesAreRemovedAtOpen() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("create table t (a int); insert into t values (1), (2)")
        }
        // An interrupted statement's block file and manifest temp file.
        let stray = (dir as NSString).appendingPathComponent("slice0/t999_g77.blk")
        // (Two single-row INSERTs write no block file: the slice's directory may not exist yet.)
        try FileManager.default.createDirectory(atPath: (dir as NSString).appendingPathComponent("slice0"),
                                                withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: stray))
        try Data("{".utf8).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("manifest.json.tmp")))
        let s = try Database(directory: dir).connect()
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray))
        XCTAssertFalse(FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("manifest.json.tmp")))
        XCTAssertEqual(try one(s, "select count(*) from t"), "2")
    }

    func testDeleteUpdateTruncatePersist() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create table t (id int, v varchar(10), n int) distkey(id);
                insert into t values (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40);
                create table k (id int) diststyle all;
                insert into k values (2), (4);
                create table z (a int);
                insert into z values (1);
                """)
            XCTAssertEqual(try s.execute("delete from t using k where t.id = k.id")[0].tag, "DELETE 2")
            XCTAssertEqual(try s.execute("update t set n = n + 1, v = upper(v) where id = 3")[0].tag, "UPDATE 1")
            XCTAssertEqual(try s.execute("truncate z")[0].tag, "TRUNCATE TABLE")
            XCTAssertEqual(try rows(s, "select id, v, n from t order by id"), [["1", "a", "10"], ["3", "C", "31"]])
        }
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select id, v, n from t order by id"), [["1", "a", "10"], ["3", "C", "31"]])
        XCTAssertEqual(try one(s, "select count(*) from z"), "0")
        // Deleted rows stay in their blocks (VACUUM reclaims them).
        XCTAssertEqual(try one(s, "select sum(deleted_rows) from stv_tbl_perm where trim(name) = 't'"), "3")
        XCTAssertEqual(try one(s, "select tbl_rows, estimated_visible_rows from svv_table_info where \"table\" = 't'"), "5")
    }

    func testReadersKeepTheirSnapshotWhileAWriterDeletes() throws {
        let db = try Database(directory: dir)
        let s = db.connect()
        _ = try s.execute("create table t (a int); insert into t values (1), (2), (3)")
        // A statement's snapshot is taken when it binds; a DELETE committed later does not change it.
        let before = try s.execute("select a from t order by a")[0]
        _ = try db.connect().execute("delete from t where a = 2")
        XCTAssertEqual(before.textRows(), [["1"], ["2"], ["3"]])
        XCTAssertEqual(try rows(s, "select a from t order by a"), [["1"], ["3"]])
    }

    /// A point lookup on a table distributed and sorted by its key reads one block of each
    /// column it needs: the key's slice alone is scanned (the others hold no row with that
    /// key), and there the zone maps skip every other block. Keys of decimal and date
    /// types hash to the same slices as they were loaded to.
    func testPointLookupOnTheDistAndSortKeyReadsOneBlockPerColumn() throws {
        let s = try Database(directory: dir, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2), blockBytes: 16 << 10).connect()
        _ = try s.execute("""
            create table o (k bigint distkey sortkey, price decimal(12,2), note varchar(30));
            insert into o select x, x * 1.25, 'note ' || x from generate_series(1, 200000) as q(x);
            create table d (k decimal(10,2) distkey sortkey, day date, v int);
            insert into d select x * 0.5, date '2020-01-01' + x, x from generate_series(1, 40000) as q(x);
            create table t (day date distkey sortkey, v int);
            insert into t select date '2000-01-01' + x, x from generate_series(1, 40000) as q(x);
            """)
        func scanned() throws -> (read: Int, skipped: Int) {
            let r = try rows(s, "select blocks_read, blocks_skipped from stl_scan where query = pg_last_query_id()")
            return (Int(r.first?[0] ?? "") ?? -1, Int(r.first?[1] ?? "") ?? -1)
        }
        let blocks = Int(try one(s, "select count(*) from stv_blocklist b join svv_table_info i on b.tbl = i.table_id where i.\"table\" = 'o' and b.col = 0") ?? "0") ?? 0
        XCTAssertGreaterThanOrEqual(blocks, 12, "the key column should span several blocks per slice")
        XCTAssertEqual(try one(s, "select count(*) from o where k = 123457"), "1")
        XCTAssertEqual(try scanned().read, 1)
        XCTAssertEqual(try rows(s, "select price, note from o where k = 98765"), [["123456.25", "note 98765"]])
        XCTAssertEqual(try scanned().read, 3, "one block of each of the three columns")
        XCTAssertEqual(try rows(s, "select k from o where k in (7, 199999, 300000) order by k"), [["7"], ["199999"]])
        XCTAssertLessThan(try scanned().read, blocks / 2, "only the slices of the listed keys")
        XCTAssertEqual(try one(s, "select count(*) from o where k = 123457 and price > 0"), "1")
        XCTAssertLessThanOrEqual(try scanned().read, 2)
        // Not pinned to constants: every slice is read (and the answers stay right).
        XCTAssertEqual(try one(s, "select count(*) from o where k = 123457 or k = 5"), "2")
        XCTAssertEqual(try one(s, "select count(*) from o where k + 0 = 123457"), "1")
        XCTAssertGreaterThan(try scanned().read, 4)
        // Decimal and date keys.
        XCTAssertEqual(try rows(s, "select day, v from d where k = 5000.50"), [["2047-05-20", "10001"]])
        XCTAssertEqual(try scanned().read, 3, "k, day and v: one block each")
        XCTAssertEqual(try rows(s, "select v from d where k in (0.5, 1.0, 19999.5) order by v"), [["1"], ["2"], ["39999"]])
        XCTAssertEqual(try rows(s, "select v from t where day = date '2050-01-01'"), [["18263"]])
        XCTAssertEqual(try scanned().read, 1 + 1)
        XCTAssertEqual(try one(s, "select count(*) from t where day in ('2001-01-01', '2199-12-31')"), "1")
    }

    func testSelectiveSortKeyPredicateReadsFewBlocks() throws {
        // 16 KB blocks: many blocks from little data (the default is Redshift's 1 MB).
        let s = try Database(directory: dir, cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), blockBytes: 16 << 10).connect()
        _ = try s.execute("create table big (k bigint, pad varchar(64)) diststyle even sortkey(k)")
        _ = try s.execute("create table seed (i bigint); insert into seed values (0)")
        for p in 0..<9 { _ = try s.execute("insert into seed select i + \(1 << p) from seed") }
        _ = try s.execute("create table seed2 as select i, md5(i::varchar) as h from seed")
        // 262,144 rows arrive shuffled; the first load into the empty table is stored sorted.
        _ = try s.execute("insert into big select ((a.i * 512 + b.i) * 7919) % 262144, a.h || b.h from seed2 a cross join seed2 b")
        let blocks = Int(try one(s, "select count(*) from stv_blocklist b join svv_table_info i on b.tbl = i.table_id where i.\"table\" = 'big'") ?? "0") ?? 0
        XCTAssertGreaterThan(blocks, 40, "the table should span many blocks per column and slice")
        XCTAssertEqual(try one(s, "select count(pad) from big where k between 1000 and 1999"), "1000")
        let r = try rows(s, "select blocks_read, blocks_skipped, is_rrscan from stl_scan where query = pg_last_query_id()")
        XCTAssertEqual(r.count, 1)
        let read = Int(r[0][0] ?? "0") ?? 0, skipped = Int(r[0][1] ?? "0") ?? 0
        XCTAssertEqual(read + skipped, blocks)
        XCTAssertLessThanOrEqual(read * 10, blocks, "a selective sort-key predicate should read at most a tenth of the blocks")
        XCTAssertEqual(r[0][2], "t")
        // IN lists and equality skip blocks too; the answer is the same when zone maps cannot help.
        XCTAssertEqual(try one(s, "select count(pad) from big where k in (5, 6, 7)"), "3")
        XCTAssertGreaterThan(Int(try one(s, "select blocks_skipped from stl_scan where query = pg_last_query_id()") ?? "0") ?? 0, 0)
        XCTAssertEqual(try one(s, "select count(pad) from big where k + 0 between 1000 and 1999"), "1000")
        XCTAssertEqual(try one(s, "select blocks_skipped from stl_scan where query = pg_last_query_id()"), "0")
        // Sorted region: everything (one load into an empty table); a second load is unsorted.
        XCTAssertEqual(try one(s, "select unsorted from svv_table_info where \"table\" = 'big'"), "0")
        _ = try s.execute("insert into big values (5, 'x'), (3, 'y')")
        XCTAssertEqual(try one(s, "select sum(rows) - sum(sorted_rows) from stv_tbl_perm where trim(name) = 'big'"), "2")
        XCTAssertEqual(try one(s, "select count(*) from big where k = 5"), "2")
    }

    /// `column IS NULL` is tested by the scan itself (TPC-DS q76's `ss_store_sk IS NULL`):
    /// blocks whose zone maps count no NULL are skipped, and a range's NULL rows are kept
    /// before the other columns are read — for integers, strings and decimals, with a
    /// second filter, and with deleted rows. The NULLs sit in the last tenth of the sort
    /// order only; the expected counts and sums were computed apart.
    func testIsNullSkipsBlocksWithoutNulls() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), blockBytes: 16 << 10).connect()
        _ = try s.execute("""
            create table nb (k int sortkey, v int, t varchar(40), d decimal(12,2)) diststyle even;
            insert into nb select g, case when g > 18000 and g % 3 = 0 then null else g end,
              case when g > 18000 and g % 3 = 0 then null else md5(g::varchar) end,
              case when g > 18000 and g % 3 = 0 then null else g / 100.0 end from generate_series(1, 20000) g;
            """)
        func skipped() throws -> Int { Int(try one(s, "select blocks_skipped from stl_scan where query = pg_last_query_id()") ?? "") ?? -1 }
        for column in ["v", "t", "d"] {
            XCTAssertEqual(try rows(s, "select count(*), sum(k) from nb where \(column) is null"), [["666", "12654333"]], column)
            XCTAssertGreaterThan(try skipped(), 0, column)
            // Again, the blocks now kept decoded.
            XCTAssertEqual(try rows(s, "select count(*), sum(k) from nb where \(column) is null"), [["666", "12654333"]], column)
        }
        XCTAssertEqual(try rows(s, "select count(*), sum(k) from nb where d is null and k % 2 = 0"), [["333", "6327666"]])
        XCTAssertEqual(try rows(s, "select count(*), sum(k) from nb where v is null and k > 19000"), [["333", "6493500"]])
        XCTAssertEqual(try one(s, "select count(*) from nb where t is not null"), "19334")
        _ = try s.execute("delete from nb where k between 18001 and 18600")
        XCTAssertEqual(try rows(s, "select count(*), sum(k) from nb where v is null"), [["466", "8994033"]])
        XCTAssertEqual(try rows(s, "select count(*), sum(k) from nb where t is null and v is null"), [["466", "8994033"]])
    }

    /// A scan's row check over a cached integer column tests the cache's narrow values
    /// (`CompactBlock.keep`) without widening them: at 1, 2 and 4 bytes a value, with and
    /// without NULLs, as the first check and after another, with bounds outside the
    /// values, and with deleted rows. Every answer is the same on the first read (decoded),
    /// the second (kept) and the third (from the cache); the expected ones are computed
    /// here from the generated values.
    func testRangesOverCachedNarrowColumnsKeepTheRightRows() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), blockBytes: 16 << 10).connect()
        _ = try s.execute("""
            create table nr (k int, q int, n int, big bigint) diststyle even;
            insert into nr select g, g % 100, case when g % 7 = 0 then null else g % 1000 end, g::bigint * 100000
            from generate_series(1, 30000) g;
            """)
        var deleted = Set<Int>()
        func expect(_ keep: (Int) -> Bool) -> [[String?]] {
            var count = 0, sum = 0
            for g in 1...30000 where !deleted.contains(g) && keep(g) { count += 1; sum += g }
            return [["\(count)", count == 0 ? nil : "\(sum)"]]
        }
        func n(_ g: Int) -> Int? { g % 7 == 0 ? nil : g % 1000 }
        let cases: [(String, (Int) -> Bool)] = [
            ("q between 10 and 20", { (10...20).contains($0 % 100) }),
            ("q >= 95", { $0 % 100 >= 95 }),
            ("q between -5 and 3", { $0 % 100 <= 3 }),
            ("q < 0", { _ in false }),
            ("q between 10 and 20 and n < 50", { (10...20).contains($0 % 100) && (n($0).map { $0 < 50 } ?? false) }),
            ("n between 100 and 300", { n($0).map { (100...300).contains($0) } ?? false }),
            ("n > 998", { n($0).map { $0 > 998 } ?? false }),
            ("big between 500000000 and 900000000", { (500_000_000...900_000_000).contains($0 * 100_000) }),
            ("big > 2999900000 and q = 0", { $0 * 100_000 > 2_999_900_000 && $0 % 100 == 0 }),
        ]
        for round in 0..<2 {
            for (predicate, keep) in cases {
                let want = expect(keep)
                for read in 1...3 {
                    XCTAssertEqual(try rows(s, "select count(*), sum(k) from nr where \(predicate)"), want,
                                   "\(predicate), read \(read), round \(round)")
                }
            }
            XCTAssertGreaterThan(Int(try one(s, "select blocks from stv_block_cache where blocks is not null") ?? "") ?? 0, 0)
            // Deleted rows: the check then skips them as it tests.
            _ = try s.execute("delete from nr where k % 11 = 0")
            deleted = Set((1...30000).filter { $0 % 11 == 0 })
        }
    }

    /// A DECIMAL column compared with an integer (`price BETWEEN 8 AND 18`, TPC-DS's
    /// `s_gmt_offset = -5`) is compared as the column itself, not as its cast to the
    /// common type: the zone maps skip blocks for it, and the answers are those of the
    /// same comparison written with the column's own scale. A constant the column's
    /// precision cannot hold keeps the cast (and matches nothing).
    func testDecimalComparedWithAnIntegerUsesZoneMaps() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), blockBytes: 16 << 10).connect()
        _ = try s.execute("""
            create table dz (k int sortkey, price decimal(7,2), off decimal(5,2)) diststyle even;
            insert into dz select g, g / 100.0, case when g % 2 = 0 then -5 else -6 end from generate_series(1, 20000) g;
            """)
        func skipped() throws -> Int { Int(try one(s, "select blocks_skipped from stl_scan where query = pg_last_query_id()") ?? "") ?? -1 }
        let plan = try rows(s, "explain select count(*) from dz where price between 8 and 18").compactMap { $0.first ?? nil }.joined(separator: "\n")
        XCTAssertTrue(plan.contains("(price >= 8.00) AND (price <= 18.00)"), plan)
        XCTAssertFalse(plan.contains("::numeric"), plan)
        XCTAssertEqual(try rows(s, "select count(*), sum(k) from dz where price between 8 and 18"), [["1001", "1301300"]])
        XCTAssertGreaterThan(try skipped(), 0)
        XCTAssertEqual(try rows(s, "select count(*), sum(k) from dz where price between 8.00 and 18.00"), [["1001", "1301300"]])
        XCTAssertEqual(try one(s, "select count(*) from dz where off = -5"), "10000")
        XCTAssertEqual(try one(s, "select count(*) from dz where off in (-5, -6, 7)"), "20000")
        XCTAssertEqual(try one(s, "select count(*) from dz where -6 = off and price < 1"), "50")
        // 123456 does not fit DECIMAL(5,2): the cast stays, nothing matches, nothing fails.
        XCTAssertEqual(try one(s, "select count(*) from dz where off = 123456 or off > 123456"), "0")
        XCTAssertEqual(try one(s, "select count(*) from dz where off < 123456"), "20000")
        // A narrowing cast is not a widening one: it still fails on a value it cannot hold.
        XCTAssertThrowsError(try s.execute("select count(*) from dz where price::decimal(3,2) = 1.00")) { error in
            XCTAssertTrue("\(error)".contains("numeric field overflow"), "\(error)")
        }
    }

    /// VACUUM on disk: the unsorted loads are merged into sort-key order (each slice's blocks
    /// end up with ascending, non-overlapping zone maps, so range scans skip again), the
    /// deleted half is gone from the files, a reader that started before keeps its rows, and
    /// the result survives a reopen.
    func testVacuumSortsReclaimsAndReturnsSpace() throws {
        func blockBytes() -> Int {
            (FileManager.default.subpaths(atPath: dir) ?? []).filter { $0.hasSuffix(".blk") }.reduce(0) {
                $0 + ((try? FileManager.default.attributesOfItem(atPath: (dir as NSString).appendingPathComponent($1))[.size] as? Int) ?? 0)
            }
        }
        do {
            let db = try Database(directory: dir, cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), blockBytes: 4096)
            let s = db.connect(), reader = db.connect()
            _ = try s.execute("create table seed (i int) diststyle even; insert into seed values (0)")
            for p in 0..<15 { _ = try s.execute("insert into seed select i + \(1 << p) from seed") }
            _ = try s.execute("create table t (k int, pad varchar(40)) diststyle even sortkey(k)")
            // Ten loads of shuffled keys: the first is the sorted region, nine are unsorted.
            for j in 0..<10 {
                _ = try s.execute("insert into t select (i * 7919) % 32768, md5(i::varchar) from seed where i % 10 = \(j)")
            }
            XCTAssertNotEqual(try one(s, """
                select count(*) from stv_blocklist b join svv_table_info i on b.tbl = i.table_id
                where i."table" = 't' and b.col = 0 and b.unsorted = 1
                """), "0")
            _ = try reader.execute("begin; select count(*) from t")
            _ = try s.execute("delete from t where k % 2 = 0")
            func rangeScanReads() throws -> Int {
                XCTAssertEqual(try one(s, "select count(pad) from t where k between 1001 and 1099"), "50")
                return Int(try one(s, "select blocks_read from stl_scan where query = pg_last_query_id()") ?? "") ?? -1
            }
            let readUnsorted = try rangeScanReads()
            let before = blockBytes()
            _ = try s.execute("vacuum t")
            XCTAssertEqual(try rows(s, "select sum(rows), sum(sorted_rows), sum(deleted_rows) from stv_tbl_perm where trim(name) = 't'"),
                           [["16384", "16384", "0"]])
            // Within each slice the key column's blocks follow one another without overlapping.
            let overlaps = try one(s, """
                select count(*) from stv_blocklist a join stv_blocklist b on a.tbl = b.tbl and a.slice = b.slice and a.col = b.col
                  and b.blocknum = a.blocknum + 1
                where a.col = 0 and a.tbl = (select table_id from svv_table_info where "table" = 't') and a.maxvalue > b.minvalue
                """)
            XCTAssertEqual(overlaps, "0")
            let readSorted = try rangeScanReads()
            XCTAssertLessThan(readSorted * 3, readUnsorted * 2, "a range scan should skip more blocks once the table is sorted")
            // The reader still sees all 32,768 rows: the old files stay until it ends.
            XCTAssertEqual(try one(reader, "select count(*) from t"), "32768")
            let during = blockBytes()
            XCTAssertGreaterThan(during, before, "the old and the new files both exist while the reader runs")
            _ = try reader.execute("commit")
            let after = blockBytes()
            XCTAssertLessThan(Double(after), Double(before) * 0.75, "VACUUM should return the deleted half's space (\(before) → \(after) bytes)")
        }
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select count(*), sum(k), min(k), max(k) from t"), [["16384", "268435456", "1", "32767"]])
        XCTAssertEqual(try one(s, "select sum(sorted_rows) from stv_tbl_perm where trim(name) = 't'"), "16384")
    }

    func testInMemoryDatabaseSupportsDeleteAndUpdate() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table t (id int, v int) diststyle all; insert into t values (1, 1), (2, 2), (3, 3)")
        XCTAssertEqual(try s.execute("delete from t where id = 2")[0].tag, "DELETE 1")
        XCTAssertEqual(try s.execute("update t set v = v * 10")[0].tag, "UPDATE 2")
        XCTAssertEqual(try rows(s, "select id, v from t order by id"), [["1", "10"], ["3", "30"]])
        XCTAssertEqual(try one(s, "select tbl_rows from svv_table_info where \"table\" = 't'"), "5")
    }

    func testAnalyzeCompressionReportsBetterEncodings() throws {
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2)).connect()
        _ = try s.execute("create table ac (flag int encode raw, word varchar(20) encode raw, n bigint encode az64)")
        _ = try s.execute("insert into ac values (7, 'same word', 1)")
        for p in 0..<12 { _ = try s.execute("insert into ac select flag, word, n + \(1 << p) from ac") }
        let r = try s.execute("analyze compression ac")[0]
        XCTAssertEqual(r.columns.map { $0.name }, ["Table", "Column", "Encoding", "Est_reduction_pct"])
        let rows = r.textRows()
        XCTAssertEqual(rows.map { $0[1] }, ["flag", "word", "n"])
        for row in rows.prefix(2) {
            // A constant column: RAW is far from the best choice.
            XCTAssertNotEqual(row[2], "raw", "\(row)")
            XCTAssertGreaterThan(Double(row[3] ?? "0") ?? 0, 50, "\(row)")
        }
        XCTAssertEqual(try s.execute("analyze compression ac (n) comprows 1000")[0].textRows().count, 1)
        XCTAssertThrowsError(try s.execute("analyze compression nosuch"))
        XCTAssertEqual(try s.execute("analyze ac")[0].tag, "ANALYZE")
    }

    func testScansStreamThroughACacheSmallerThanTheTable() throws {
        // A 64 KB cache and 16 KB blocks: the table is many times the cache, so scans
        // decode block by block, evicting as they go, and answers stay right.
        let s = try Database(directory: dir, cluster: ClusterConfig(nodes: 1, slicesPerNode: 2), cacheBytes: 64 << 10,
                             blockBytes: 16 << 10).connect()
        _ = try s.execute("create table seed (i bigint); insert into seed values (0)")
        for p in 0..<16 { _ = try s.execute("insert into seed select i + \(1 << p) from seed") }
        _ = try s.execute("create table t (k bigint, v varchar(64)) distkey(k) sortkey(k)")
        _ = try s.execute("insert into t select i, 'value ' || i || ' ' || md5(i::varchar) from seed")
        XCTAssertGreaterThan(Int(try one(s, "select sum(size_bytes) from svv_table_info where \"table\" = 't'") ?? "0") ?? 0, 512 << 10)
        for _ in 0..<2 {
            XCTAssertEqual(try rows(s, "select count(*), sum(k), max(length(v)) from t"), [["65536", "2147450880", "44"]])
            XCTAssertEqual(try one(s, "select count(*) from t a join t b on a.k = b.k where a.k % 7 = 0"), "9363")
        }
    }

    func testDamagedManifestIsAnErrorNotACrash() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("create table t (a int, b varchar(10)); insert into t values (1, 'x'), (2, 'y')")
        }
        let path = (dir as NSString).appendingPathComponent("manifest.json")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // Claim more rows than the blocks hold.
        let damaged = text.replacingOccurrences(of: "\"rows\":2", with: "\"rows\":3")
            .replacingOccurrences(of: "\"rows\":1,", with: "\"rows\":5,")
        XCTAssertNotEqual(damaged, text)
        try damaged.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Database(directory: dir)) { e in
            XCTAssertTrue("\(e)".contains("damaged"), "\(e)")
        }
        try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Database(directory: dir)) { e in
            XCTAssertTrue("\(e)".contains("unreadable"), "\(e)")
        }
    }
}
