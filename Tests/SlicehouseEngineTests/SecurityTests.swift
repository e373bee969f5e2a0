// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// Users, groups, roles and grants survive a restart, both from the commit log (a process
/// that never closed the database) and from the checkpointed manifest (a clean close).
final class SecurityTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-security-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: dir + "-crash")
    }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    static let setup = """
        create user alice password 'Alice123x' connection limit 3;
        create group readers with user alice;
        create role auditor;
        grant role auditor to alice;
        create table t (a int, b int);
        insert into t values (1, 2);
        grant select (a) on t to alice;
        grant insert on t to group readers;
        alter default privileges grant select on tables to role auditor;
        create table later (x int);
        """

    func check(_ s: Session, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try rows(s, "select usename, usesuper from pg_user order by usesysid"),
                       [["awsuser", "t"], ["alice", "f"]], file: file, line: line)
        XCTAssertEqual(try rows(s, "select connection_limit from svv_user_info where user_name = 'alice'"), [["3"]],
                       file: file, line: line)
        XCTAssertEqual(try rows(s, "select groname from pg_group"), [["readers"]], file: file, line: line)
        XCTAssertEqual(try rows(s, "select role_name from svv_user_grants"), [["auditor"]], file: file, line: line)
        _ = try s.execute("set session authorization alice")
        XCTAssertEqual(try rows(s, "select a from t where a = 1"), [["1"]], file: file, line: line)
        XCTAssertThrowsError(try s.execute("select b from t"), file: file, line: line) { e in
            XCTAssertTrue("\(e)".contains("permission denied for relation t"), "\(e)")
        }
        _ = try s.execute("insert into t values (3, 4)")
        XCTAssertEqual(try rows(s, "select count(*) from later"), [["0"]], file: file, line: line)
        _ = try s.execute("reset session authorization")
    }

    func testSecuritySurvivesCleanCloseAndCrash() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute(Self.setup)
            // A copy taken while the database is open: the manifest plus the commit log, as a
            // killed process leaves them.
            let fm = FileManager.default
            try fm.createDirectory(atPath: dir + "-crash", withIntermediateDirectories: true)
            for f in try fm.contentsOfDirectory(atPath: dir) where f != "LOCK" {
                try fm.copyItem(atPath: (dir as NSString).appendingPathComponent(f),
                                toPath: ((dir + "-crash") as NSString).appendingPathComponent(f))
            }
            try check(s)
        }
        try check(try Database(directory: dir).connect())
        try check(try Database(directory: dir + "-crash").connect())
    }

    func testDroppedTableTakesItsGrantsAlong() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create user bob password 'Bob12345x';
                create table t (a int);
                grant select on t to bob;
                drop table t;
                create table t (a int);
                """)
            XCTAssertEqual(try rows(s, "select count(*) from svv_relation_privileges"), [["0"]])
            _ = try s.execute("set session authorization bob")
            XCTAssertThrowsError(try s.execute("select * from t"))
        }
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("set session authorization bob; create temp table tmp (x int); reset session authorization")
            _ = try s.execute("create user carol password 'Carol123x'; grant select on tmp to carol")
            XCTAssertEqual(try rows(s, "select count(*) from svv_relation_privileges"), [["1"]])
            XCTAssertThrowsError(try s.execute("drop user bob"))   // owns tmp while it exists
        }
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select count(*) from svv_relation_privileges"), [["0"]])
        _ = try s.execute("drop user bob")                          // owns nothing after the restart
        XCTAssertEqual(try rows(s, "select usename from pg_user order by usesysid"), [["awsuser"], ["carol"]])
    }
}
