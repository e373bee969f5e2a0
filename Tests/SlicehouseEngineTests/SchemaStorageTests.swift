// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// Schemas in the data directory: created, dropped, renamed tables and views in them
/// survive a reopen (from the commit log and from a checkpointed manifest), and a data
/// directory written before schemas existed (no `schemas` in manifest.json, views without
/// a schema) still opens with its tables in `public`.
final class SchemaStorageTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-schemas-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    /// Makes the schemas; the session returned keeps the directory open (a copy taken then
    /// is what a crash leaves: every commit in the log).
    @discardableResult
    func make() throws -> Session {
        let s = try Database(directory: dir).connect()
        _ = try s.execute("""
            create user seller password 'Seller123x';
            create schema sales authorization seller;
            create schema gone;
            create schema empty;
            create table sales.t (a int);
            create table public.t (a int);
            insert into sales.t values (1), (2);
            insert into public.t values (10);
            create view sales.v as select a from t;
            create table gone.x (a int);
            drop schema gone cascade;
            create table sales.old (b int);
            alter table sales.old rename to renamed;
            insert into sales.renamed values (7);
            create temp table tmp (a int);
            """)
        return s
    }

    func check(_ s: Session) throws {
        XCTAssertEqual(try rows(s, "select sum(a) from sales.t"), [["3"]])
        XCTAssertEqual(try rows(s, "select sum(a) from t"), [["10"]])
        XCTAssertEqual(try rows(s, "select a from sales.v"), [["10"]], "the view keeps the search_path it was made with")
        XCTAssertEqual(try rows(s, "select b from sales.renamed"), [["7"]])
        XCTAssertEqual(try rows(s, "select schema_name, schema_owner from information_schema.schemata"
                                  + " where schema_name in ('sales', 'gone', 'empty', 'public') order by 1"),
                       [["empty", "awsuser"], ["public", "rdsdb"], ["sales", "seller"]])
        XCTAssertThrowsError(try s.execute("select * from tmp"))
        XCTAssertThrowsError(try s.execute("select * from sales.old"))
    }

    func testSchemasSurviveReopenFromTheCommitLog() throws {
        let crashed = try crashCopy(of: dir) { try make() }
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        try check(try Database(directory: crashed).connect())
        try check(try Database(directory: dir).connect())   // and after a clean close
    }

    func testSchemasSurviveACheckpointedManifest() throws {
        try make()
        do {
            // Opening folds the log into manifest.json; the second open reads only that.
            let db = try Database(directory: dir)
            _ = try db.connect().execute("create table sales.more (c int)")
        }
        let s = try Database(directory: dir).connect()
        try check(s)
        XCTAssertEqual(try rows(s, "select count(*) from sales.more"), [["0"]])
    }

    /// COPY and UNLOAD name tables the way every statement does: qualified, or through
    /// search_path.
    func testCopyAndUnloadResolveSchemas() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let input = (dir as NSString).appendingPathComponent("in.txt")
        try "1|one\n2|two\n".write(toFile: input, atomically: true, encoding: .utf8)
        let s = try Database(directory: nil).connect()
        _ = try s.execute("""
            create schema s;
            create table s.t (a int, b varchar(5));
            create table public.t (a int);
            copy s.t from '\(input)' delimiter '|';
            set search_path to s;
            copy t from '\(input)' delimiter '|';
            """)
        XCTAssertEqual(try rows(s, "select count(*) from s.t"), [["4"]])
        XCTAssertEqual(try rows(s, "select count(*) from public.t"), [["0"]])
        let prefix = (dir as NSString).appendingPathComponent("out_")
        _ = try s.execute("unload ('select a, b from t where a = 2') to '\(prefix)' delimiter '|' parallel off")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("out_") }
        XCTAssertEqual(files.count, 1)
        let text = try String(contentsOfFile: (dir as NSString).appendingPathComponent(files[0]), encoding: .utf8)
        XCTAssertEqual(text, "2|two\n2|two\n")
        XCTAssertThrowsError(try s.execute("copy nosuch.t from '\(input)' delimiter '|'")) { e in
            XCTAssertEqual((e as? SQLError)?.code, .undefinedTable)
        }
    }

    func testADirectoryWithoutSchemasOpens() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("create table t (a int); insert into t values (5); create view v as select a from t")
        }
        // Make the manifest look like one written before schemas: no "schemas", views
        // without "schema" / "searchPath".
        let path = (dir as NSString).appendingPathComponent("manifest.json")
        let log = (dir as NSString).appendingPathComponent("wal.log")
        if let d = FileManager.default.contents(atPath: log), !d.isEmpty {
            _ = try Database(directory: dir)   // checkpoint the log into the manifest at close
        }
        guard let data = FileManager.default.contents(atPath: path),
              var json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              var manifest = json["manifest"] as? [String: Any] else {
            return XCTFail("manifest.json is not the expected envelope")
        }
        manifest["schemas"] = nil
        manifest["formatVersion"] = 1
        if var views = manifest["views"] as? [[String: Any]] {
            for i in views.indices { views[i]["schema"] = nil; views[i]["searchPath"] = nil }
            manifest["views"] = views
        }
        json = manifest
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: log)
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select a from public.t"), [["5"]])
        XCTAssertEqual(try rows(s, "select a from v"), [["5"]])
        XCTAssertEqual(try rows(s, "select nspname from pg_namespace where nspname = 'public'"), [["public"]])
        _ = try s.execute("create schema s2; create table s2.t (a int)")
    }

    /// COMMENT ON texts are catalog changes: committed, kept in the commit log and in a
    /// checkpointed manifest, gone with a rollback, with their table, and following a
    /// column when an earlier column is dropped.
    func testCommentsSurviveReopenAndFollowTheirObjects() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create schema docs;
                create table docs.orders (id int, note varchar(10), total int);
                create view docs.v as select id from docs.orders;
                comment on table docs.orders is 'one row per order';
                comment on column docs.orders.total is 'in cents';
                comment on view docs.v is 'ids';
                comment on schema docs is 'documented';
                create table gone (a int);
                comment on table gone is 'dropped';
                drop table gone;
                begin;
                comment on column docs.orders.id is 'rolled back';
                rollback;
                alter table docs.orders drop column note;
                """)
        }
        let q = "select classoid, objsubid, description from pg_description order by description"
        let expected: [[String?]] = [["1259", "0", "ids"], ["1259", "2", "in cents"], ["2615", "0", "documented"],
                                     ["1259", "0", "one row per order"]].sorted { ($0[2] ?? "") < ($1[2] ?? "") }
        do {
            let reopened = try Database(directory: dir).connect()
            XCTAssertEqual(try rows(reopened, q), expected)
            _ = try reopened.execute("comment on table docs.orders is null")
        }
        let again = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(again, q), expected.filter { $0[2] != "one row per order" })
    }

    /// A rename rewrites the views that read the renamed object in the same transaction:
    /// the rewritten texts, and a renamed view's grants and comments, survive a reopen
    /// from the commit log and from a checkpointed manifest; a rolled-back rename rewrites
    /// nothing.
    func testViewsFollowingRenamesSurviveReopen() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create user reader password 'Reader123x';
                create table t (a int);
                insert into t values (1);
                create view y as select a from t;
                create view x as select a from y;
                grant select on y to reader;
                comment on view y is 'the y';
                alter table t rename to t_old;
                create table t (a int);
                insert into t values (5);
                alter view y rename to y_old;
                alter table t_old rename column a to b;
                begin;
                alter table t_old rename to t_gone;
                rollback;
                """)
        }
        let defs = "select viewname, definition from pg_views where schemaname = 'public' order by 1"
        let expected: [[String?]] = [["x", "select a from y_old AS y;"], ["y_old", "select b AS a from t_old AS t;"]]
        for _ in 0..<2 {   // the second open reads the manifest the first one checkpointed
            let s = try Database(directory: dir).connect()
            XCTAssertEqual(try rows(s, defs), expected)
            XCTAssertEqual(try rows(s, "select a from x"), [["1"]])
            XCTAssertEqual(try rows(s, "select has_table_privilege('reader', 'y_old', 'select')"), [["t"]])
            XCTAssertEqual(try rows(s, "select obj_description(c.oid) from pg_class c where c.relname = 'y_old'"), [["the y"]])
        }
    }

    /// SQL functions are catalog changes: they survive a reopen from the commit log and
    /// from a checkpointed manifest, and a rolled-back CREATE FUNCTION leaves nothing.
    func testSQLFunctionsSurviveReopen() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create function f_double (int) returns int immutable as $$ select $1 * 2 $$ language sql;
                begin;
                create function f_gone (int) returns int immutable as $$ select $1 $$ language sql;
                rollback;
                """)
        }
        do {
            let s = try Database(directory: dir).connect()
            XCTAssertEqual(try rows(s, "select f_double(21)"), [["42"]])
            XCTAssertThrowsError(try s.execute("select f_gone(1)"))
            _ = try s.execute("create function f_triple (int) returns int immutable as $$ select $1 * 3 $$ language sql")
        }
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "select f_double(1), f_triple(1)"), [["2", "3"]])
    }
}
