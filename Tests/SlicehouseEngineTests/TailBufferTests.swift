// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// The tail buffer of a table on disk (`Distributor.tailBufferSliceBytes`): the rows of
/// single-row INSERTs are kept as one held block per slice and column, written into the
/// commit record instead of a block file; more rows fold them into a block file, as do
/// COPY and VACUUM; the rows survive a crash (the commit log replayed) and a clean close
/// (the manifest), and DELETE, UPDATE and ROLLBACK treat them as any rows.
final class TailBufferTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-tail-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: dir + "-crashed")
    }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    /// Block files (`.blk`) under the directory's slices.
    func blockFiles(_ directory: String) throws -> [String] {
        var out: [String] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: directory) where entry.hasPrefix("slice") {
            out += try FileManager.default.contentsOfDirectory(atPath: (directory as NSString).appendingPathComponent(entry))
                .filter { $0.hasSuffix(".blk") }
        }
        return out
    }

    static let create = "create table t (id int, k bigint, name varchar(40), note varchar(100)) diststyle even"

    static func insert(_ i: Int) -> String {
        "insert into t values (\(i), \(i * 7919 % 100_003), 'customer#\(i)', 'note \(i % 13) of a row')"
    }

    /// Per (slice, column): the held blocks (on_disk = 0) are at most one, and the last.
    func assertHeldBlocksAreLast(_ s: Session, file: StaticString = #filePath, line: UInt = #line) throws {
        let bad = try rows(s, """
            select b.slice, b.col from stv_blocklist b join svv_table_info i on b.tbl = i.table_id
            where i."table" = 't' and b.col < 4
            group by b.slice, b.col
            having sum(case when on_disk = 0 then 1 else 0 end) > 1
                or max(case when on_disk = 0 then blocknum end) < max(blocknum)
            """)
        XCTAssertEqual(bad, [], "held blocks that are not their column's last", file: file, line: line)
    }

    func heldBlocks(_ s: Session) throws -> Int {
        Int(try rows(s, """
            select count(*) from stv_blocklist b join svv_table_info i on b.tbl = i.table_id
            where i."table" = 't' and on_disk = 0 and b.col < 4
            """).first?.first??.description ?? "") ?? -1
    }

    func testSingleRowInsertsWriteNoBlockFile() throws {
        let s = try Database(directory: dir).connect()
        _ = try s.execute(Self.create)
        let before = try blockFiles(dir)
        for i in 0..<20 { _ = try s.execute(Self.insert(i)) }
        XCTAssertEqual(try blockFiles(dir), before, "twenty single-row INSERTs wrote no block file")
        XCTAssertEqual(try rows(s, "select count(*), sum(id), min(name), max(note) from t"),
                       [["20", "190", "customer#0", "note 9 of a row"]])
        // EVEN: the rows went round the four slices, each slice's columns one held block.
        XCTAssertEqual(try heldBlocks(s), 16)
        try assertHeldBlocksAreLast(s)
    }

    func testManyInsertsFoldHeldRowsIntoFiles() throws {
        let s = try Database(directory: dir).connect()
        _ = try s.execute(Self.create)
        for i in 0..<600 { _ = try s.execute(Self.insert(i)) }
        XCTAssertFalse(try blockFiles(dir).isEmpty, "the held rows went to block files once they passed the buffer's size")
        XCTAssertEqual(try rows(s, "select count(*), count(distinct id), sum(id), max(name) from t"),
                       [["600", "600", "179700", "customer#99"]])
        try assertHeldBlocksAreLast(s)
        // Files hold one block per column and slice so far: the folded rows and the file's
        // small block before them were written together.
        XCTAssertEqual(try rows(s, """
            select max(n) from (select b.slice, b.col, count(*) n from stv_blocklist b join svv_table_info i
            on b.tbl = i.table_id where i."table" = 't' and on_disk = 1 group by 1, 2)
            """), [["1"]])
        // A filter on a held block's rows, and a zone map over them.
        XCTAssertEqual(try rows(s, "select id, k from t where id in (5, 599) order by id"), [["5", "39595"], ["599", "43340"]])
    }

    func testCopyAndVacuumFoldTheBuffer() throws {
        let s = try Database(directory: dir).connect()
        _ = try s.execute(Self.create)
        for i in 0..<8 { _ = try s.execute(Self.insert(i)) }
        XCTAssertGreaterThan(try heldBlocks(s), 0)
        // COPY never reads the database's own directory.
        let csv = dir + "-more.csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try (100..<300).map { "\($0),\($0),c\($0),n\($0)\n" }.joined().write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try s.execute("copy t from '\(csv)' csv")
        XCTAssertEqual(try heldBlocks(s), 0, "COPY wrote the held rows to its block files")
        XCTAssertEqual(try rows(s, "select count(*), sum(id) from t"), [["208", "39928"]])
        for i in 8..<12 { _ = try s.execute(Self.insert(i)) }
        XCTAssertGreaterThan(try heldBlocks(s), 0)
        _ = try s.execute("vacuum t to 100 percent")
        XCTAssertEqual(try heldBlocks(s), 0, "VACUUM rewrote the held rows into block files")
        XCTAssertEqual(try rows(s, "select count(*), sum(id) from t"), [["212", "39966"]])
    }

    func testDeleteUpdateAndRollbackOfHeldRows() throws {
        let s = try Database(directory: dir).connect()
        _ = try s.execute(Self.create)
        for i in 0..<10 { _ = try s.execute(Self.insert(i)) }
        _ = try s.execute("delete from t where id % 3 = 0")
        _ = try s.execute("update t set note = 'changed' where id = 4")
        _ = try s.execute("begin; \(Self.insert(100)); \(Self.insert(101))")
        XCTAssertEqual(try rows(s, "select count(*) from t"), [["8"]], "the block sees its own held rows")
        _ = try s.execute("rollback")
        _ = try s.execute(Self.insert(10))
        XCTAssertEqual(try rows(s, "select id, note from t order by id"),
                       [["1", "note 1 of a row"], ["2", "note 2 of a row"], ["4", "changed"], ["5", "note 5 of a row"],
                        ["7", "note 7 of a row"], ["8", "note 8 of a row"], ["10", "note 10 of a row"]])
        try assertHeldBlocksAreLast(s)
    }

    /// A crash leaves the held rows in the commit log only: replayed at open. A clean close
    /// writes them into the manifest; both open to the same rows, which take more INSERTs.
    func testHeldRowsSurviveACrashAndACleanClose() throws {
        let expected = [["300", "44850", "customer#99"]]
        let crashed = try crashCopy(of: dir) {
            let db = try Database(directory: dir)
            let s = db.connect()
            _ = try s.execute(Self.create)
            _ = try s.execute("create table a (x int, y varchar(20)) diststyle all")
            for i in 0..<300 {
                _ = try s.execute(Self.insert(i))
                if i % 50 == 0 { _ = try s.execute("insert into a values (\(i), 'all \(i)')") }
            }
            return db
        }
        for directory in [crashed, crashed, dir!] {   // the log replayed; the checkpoint it left; a clean close
            let s = try Database(directory: directory).connect()
            XCTAssertEqual(try rows(s, "select count(*), sum(id), max(name) from t"), expected, directory)
            XCTAssertEqual(try rows(s, "select count(*), sum(x), max(y) from a"), [["6", "750", "all 50"]], directory)
            try assertHeldBlocksAreLast(s)
        }
        let s = try Database(directory: dir).connect()
        _ = try s.execute(Self.insert(300))
        XCTAssertEqual(try rows(s, "select count(*), max(id) from t"), [["301", "300"]])
    }

    /// A database without a directory keeps every block in memory, as before: nothing held.
    func testInMemoryDatabaseHasNoBuffer() throws {
        let s = try Database().connect()
        _ = try s.execute(Self.create)
        for i in 0..<5 { _ = try s.execute(Self.insert(i)) }
        XCTAssertEqual(try rows(s, "select count(*), sum(id) from t"), [["5", "10"]])
    }
}
