// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// The databases of a cluster in its data directory: each one's schemas, tables, views,
/// comments, functions and grants survive a reopen (from the commit log and from a
/// checkpointed manifest), a dropped database's tables are gone, and a session connects
/// to the database it names.
final class DatabaseStorageTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-databases-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    /// Makes the databases; the session returned keeps the directory open (a copy taken
    /// then is what a crash leaves: every commit in the log).
    @discardableResult
    func make() throws -> Session {
        let s = try Database(directory: dir).connect()
        _ = try s.execute("""
            create user seller password 'Seller123x' createdb;
            create table t (a int);
            insert into t values (1);
            """)
        _ = try s.execute("create database sales owner seller connection limit 4")
        _ = try s.execute("create database gone")
        _ = try s.execute("""
            use sales;
            create schema crm authorization seller;
            create table crm.t (a int, b varchar(10));
            insert into crm.t values (2, 'two'), (3, 'three');
            create table t (a int);
            insert into t values (20);
            create view v as select a from t;
            comment on table crm.t is 'customers';
            create function twice(int) returns int stable as $$ select $1 * 2 $$ language sql;
            grant usage on schema crm to seller;
            grant select on crm.t to seller;
            use gone;
            create table g (x int);
            insert into g values (9);
            reset use;
            """)
        _ = try s.execute("drop database gone")
        return s
    }

    func check(_ db: Database) throws {
        let s = try db.connect(to: "sales")
        XCTAssertEqual(try rows(s, "select current_database()"), [["sales"]])
        XCTAssertEqual(try rows(s, "select sum(a) from crm.t"), [["5"]])
        XCTAssertEqual(try rows(s, "select a from v"), [["20"]])
        XCTAssertEqual(try rows(s, "select twice(a) from t"), [["40"]])
        XCTAssertEqual(try rows(s, "select obj_description('crm.t'::regclass)"), [["customers"]])
        XCTAssertEqual(try rows(s, "select a from dev.public.t"), [["1"]])
        XCTAssertEqual(try rows(s, "select datname, datconnlimit from pg_database_info order by 1"),
                       [["dev", "UNLIMITED"], ["sales", "4"]])
        _ = try s.execute("set session authorization seller")
        XCTAssertEqual(try rows(s, "select count(*) from crm.t"), [["2"]], "grants in sales are kept")
        XCTAssertThrowsError(try s.execute("select * from dev.public.t"), "and are not dev's") { e in
            XCTAssertEqual((e as? SQLError)?.code, .insufficientPrivilege)
        }
        let d = db.connect()
        XCTAssertEqual(try rows(d, "select a from t"), [["1"]])
        XCTAssertThrowsError(try d.execute("select * from crm.t"), "dev has no schema crm")
        XCTAssertThrowsError(try db.connect(to: "gone")) { e in
            XCTAssertEqual((e as? SQLError)?.code, .invalidCatalogName)
            XCTAssertEqual((e as? SQLError)?.message, "database \"gone\" does not exist")
        }
        XCTAssertEqual(try rows(d, "select count(*) from svv_redshift_tables where database_name = 'gone'"), [["0"]])
    }

    func testDatabasesSurviveReopenFromTheCommitLog() throws {
        let crashed = try crashCopy(of: dir) { try make() }
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        try check(try Database(directory: crashed))
    }

    func testDatabasesSurviveACheckpointedManifest() throws {
        try make()
        do {
            // Opening folds the log into manifest.json; the second open reads only that.
            let db = try Database(directory: dir)
            _ = try db.connect(to: "sales").execute("create table more (c int)")
        }
        let db = try Database(directory: dir)
        try check(db)
        XCTAssertEqual(try rows(try db.connect(to: "sales"), "select count(*) from more"), [["0"]])
        XCTAssertThrowsError(try db.connect().execute("select * from more"), "more is sales' table")
    }

    /// A renamed database keeps its tables and grants across a reopen (its tables are
    /// written again under the new name), from the commit log and from the manifest.
    func testARenamedDatabaseKeepsItsTablesAcrossReopen() throws {
        try make()
        // A copy taken while the database is open is what a crash leaves: the manifest,
        // and the rename only in the commit log.
        let crashed = try crashCopy(of: dir) {
            let db = try Database(directory: dir)
            _ = try db.connect().execute("alter database sales rename to revenue")
            return db
        }
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        for directory in [crashed, crashed, dir] {   // the log replayed, then the checkpoint it left; a clean close
            let db = try Database(directory: directory)
            let s = try db.connect(to: "revenue")
            XCTAssertEqual(try rows(s, "select sum(a) from crm.t"), [["5"]])
            XCTAssertEqual(try rows(s, "select a from v"), [["20"]])
            _ = try s.execute("set session authorization seller")
            XCTAssertEqual(try rows(s, "select count(*) from crm.t"), [["2"]])
            XCTAssertThrowsError(try db.connect(to: "sales"))
            XCTAssertEqual(try rows(db.connect(), "select a from revenue.crm.t order by a"), [["2"], ["3"]])
        }
    }

    /// CONNECTION LIMIT counts the sessions connected to the database.
    func testConnectionLimit() throws {
        let db = try Database(directory: nil)
        _ = try db.connect().execute("create database small connection limit 1")
        var first: Session? = try db.connect(to: "small")
        XCTAssertThrowsError(try db.connect(to: "small")) { e in
            XCTAssertEqual((e as? SQLError)?.code, .tooManyConnections)
        }
        XCTAssertEqual(try rows(XCTUnwrap(first), "select current_database()"), [["small"]])
        first = nil   // the session ends
        XCTAssertNoThrow(try db.connect(to: "small"))
        XCTAssertNoThrow(try db.connect(), "dev has no limit")
    }
}
