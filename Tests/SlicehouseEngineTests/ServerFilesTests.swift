// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// COPY and UNLOAD on the server's files (issue 74): an ordinary user reaches the
/// directories opened for users only, a superuser or a holder of the server-file roles
/// anywhere, nobody the data directory; CLEANPATH removes only what the prefix names.
final class ServerFilesTests: XCTestCase {
    var root = ""
    var database: Database!
    var admin: Session!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-files-\(UUID().uuidString)").path
        for d in ["share", "outside", "db"] {
            try FileManager.default.createDirectory(atPath: root + "/" + d, withIntermediateDirectories: true)
        }
        try "1\n2\n".write(toFile: root + "/share/rows.txt", atomically: true, encoding: .utf8)
        try "3\n".write(toFile: root + "/outside/rows.txt", atomically: true, encoding: .utf8)
        database = try Database(directory: root + "/db", cluster: ClusterConfig(nodes: 1, slicesPerNode: 2))
        database.serverFileDirectories = [root + "/share"]
        admin = database.connect()
        _ = try admin.execute("create user bob password 'B0b-passw'; create table t (x int); grant select, insert on t to bob")
        _ = try admin.execute("insert into t values (10)")
    }

    override func tearDownWithError() throws {
        admin = nil
        database = nil
        try? FileManager.default.removeItem(atPath: root)
    }

    func bob() throws -> Session {
        let s = database.connect()
        _ = try s.execute("set session authorization bob")
        return s
    }

    func assertRefused(_ s: Session, _ sql: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try s.execute(sql), sql, file: file, line: line) { e in
            XCTAssertEqual((e as? SQLError)?.code, .insufficientPrivilege, "\(e)", file: file, line: line)
        }
    }

    func testAnOrdinaryUserUsesOnlyTheOpenedDirectory() throws {
        let b = try bob()
        _ = try b.execute("copy t from '\(root)/share/rows.txt'")
        assertRefused(b, "copy t from '\(root)/outside/rows.txt'")
        assertRefused(b, "copy t from '\(root)/share/../outside/rows.txt'")
        assertRefused(b, "copy t from '/etc/hostname'")
        _ = try b.execute("unload ('select x from t') to '\(root)/share/out_' parallel off")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/share/out_000"))
        assertRefused(b, "unload ('select x from t') to '\(root)/outside/out_'")
        assertRefused(b, "unload ('select x from t') to '\(root)/share/../outside/out_'")
        XCTAssertEqual(try b.execute("select count(*) from t")[0].textRows(), [["3"]])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/outside/out_000"))
    }

    func testNobodyReadsOrWritesTheDataDirectory() throws {
        _ = try admin.execute("vacuum t")   // the row goes from the tail buffer to a block file
        let blocks = try FileManager.default.subpathsOfDirectory(atPath: root + "/db").filter { $0.hasPrefix("slice") }
        XCTAssertFalse(blocks.isEmpty)
        for s in [admin!, try bob()] {
            assertRefused(s, "copy t from '\(root)/db/slice0/'")
            assertRefused(s, "copy t from '\(root)/db/syslog/'")
            assertRefused(s, "unload ('select 1') to '\(root)/db/slice' cleanpath")
            assertRefused(s, "unload ('select 1') to '\(root)/db/' allowoverwrite")
        }
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: root + "/db").filter { $0.hasPrefix("slice") }, blocks)
        XCTAssertEqual(try admin.execute("select x from t")[0].textRows(), [["10"]])
        // Private to the server's OS user.
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/db")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
    }

    func testTheServerFileRolesReachOutside() throws {
        let b = try bob()
        assertRefused(b, "copy t from '\(root)/outside/rows.txt'")
        _ = try admin.execute("grant role pg_read_server_files to bob")
        _ = try b.execute("copy t from '\(root)/outside/rows.txt'")
        assertRefused(b, "unload ('select 1') to '\(root)/outside/o_'")
        _ = try admin.execute("grant role pg_write_server_files to bob")
        _ = try b.execute("unload ('select 1') to '\(root)/outside/o_' parallel off")
        _ = try admin.execute("revoke role pg_read_server_files from bob")
        assertRefused(b, "copy t from '\(root)/outside/rows.txt'")
        XCTAssertThrowsError(try admin.execute("drop role pg_read_server_files"))
    }

    func testCleanpathRemovesOnlyWhatThePrefixNames() throws {
        let share = root + "/share"
        try FileManager.default.createDirectory(atPath: share + "/run_dir", withIntermediateDirectories: true)
        for f in ["run_old", "run_dir/keep", "other"] { try "x".write(toFile: share + "/" + f, atomically: true, encoding: .utf8) }
        try FileManager.default.createSymbolicLink(atPath: share + "/run_link", withDestinationPath: root + "/outside/rows.txt")
        _ = try admin.execute("unload ('select 5') to '\(share)/run_' cleanpath parallel off")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: share))
        XCTAssertFalse(left.contains("run_old"))
        XCTAssertFalse(left.contains("run_link"))   // the link itself, not what it names
        XCTAssertTrue(left.contains("other") && left.contains("run_dir") && left.contains("run_000"))
        XCTAssertEqual(try String(contentsOfFile: root + "/outside/rows.txt", encoding: .utf8), "3\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: share + "/run_dir/keep"))
    }

    func testVacuumStopsAtItsStatementTimeout() throws {
        _ = try admin.execute("create table v (k int, pad varchar(64)) sortkey(k)")
        let values = (0..<2000).map { "(\(($0 * 7919) % 10007), 'padding padding padding')" }.joined(separator: ", ")
        _ = try admin.execute("insert into v values \(values)")
        for _ in 0..<4 { _ = try admin.execute("insert into v select k + 1, pad from v") }
        _ = try admin.execute("delete from v where k % 3 = 0")
        _ = try admin.execute("set statement_timeout to 1")
        XCTAssertThrowsError(try admin.execute("vacuum full v to 100 percent")) { e in
            XCTAssertEqual((e as? SQLError)?.code, .queryCanceled, "\(e)")
        }
        _ = try admin.execute("set statement_timeout to 0")
        let before = try admin.execute("select count(*) from v")[0].textRows()
        _ = try admin.execute("vacuum full v to 100 percent")
        XCTAssertEqual(try admin.execute("select count(*) from v")[0].textRows(), before)
    }
}
