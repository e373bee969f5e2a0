// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// Stored procedures beyond what the sqllogictest files can check: RAISE's notices on the
/// CALL's result, SHOW PROCEDURE's text, definitions surviving a reopen of the data
/// directory, and procedures in pg_proc. (Behaviour is in sql/procedures/*.test.)
final class ProcedureTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-procedures-\(UUID().uuidString)").path
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        guard let r = try s.execute(sql).last else { return [] }
        return r.textRows()
    }

    /// RAISE INFO / NOTICE / WARNING reach the client as notices (`INFO:  text`), in order,
    /// nested calls' too; LOG and DEBUG do not.
    func testRaiseNotices() throws {
        let s = try Database(directory: nil).connect()
        _ = try s.execute("""
            create procedure sp_inner(n int) as $$ begin raise notice 'inner %', n; end; $$ language plpgsql;
            create procedure sp_notices(n int, out doubled int) as $$
            begin
              raise info 'start %', n;
              raise log 'not sent';
              call sp_inner(n + 1);
              raise warning 'careful: %%';
              doubled := n * 2;
            end;
            $$ language plpgsql;
            """)
        let r = try XCTUnwrap(try s.execute("call sp_notices(20)").last)
        XCTAssertEqual(r.notices, ["INFO:  start 20", "NOTICE:  inner 21", "WARNING:  careful: %"])
        XCTAssertEqual(r.tag, "CALL")
        XCTAssertEqual(r.columns.map(\.name), ["doubled"])
        XCTAssertEqual(r.textRows(), [["40"]])
        // A procedure without OUT arguments returns no rows.
        let plain = try XCTUnwrap(try s.execute("call sp_inner(1)").last)
        XCTAssertFalse(plain.returnsRows)
        XCTAssertEqual(plain.notices, ["NOTICE:  inner 1"])
    }

    /// Notices raised before an error travel with it (the client sees them first), as in
    /// Redshift's trapping-errors example.
    func testNoticesBeforeAnError() throws {
        let s = try Database(directory: nil).connect()
        _ = try s.execute("""
            create procedure sp_fail() as $$
            begin
              raise info 'about to fail';
              execute 'select invalid';
            exception when others then
              raise info 'An exception occurred.';
            end;
            $$ language plpgsql
            """)
        XCTAssertThrowsError(try s.execute("call sp_fail()")) { error in
            let e = error as? SQLError
            XCTAssertEqual(e?.message, "column \"invalid\" does not exist")
            XCTAssertEqual(e?.notices, ["INFO:  about to fail", "INFO:  An exception occurred."])
            XCTAssertEqual(e?.detail, "PL/pgSQL function \"sp_fail\" line 3")
        }
    }

    /// Every prefix of a body, and the body with each token dropped, is refused or accepted
    /// cleanly (a SQLError, never a crash); the ones accepted run or fail cleanly too.
    func testDamagedBodiesFailCleanly() throws {
        let s = try Database(directory: nil).connect()
        // Some variants loop forever (the increment dropped): statement_timeout ends them.
        _ = try s.execute("create table dmg (a int, b varchar(10)); set statement_timeout to 300")
        let body = """
            <<top>>
            declare
              i int := 0; r record; t varchar(20) default 'x';
            begin
              for i in reverse 3..1 by 1 loop insert into dmg values (i, t); end loop;
              for r in select * from dmg loop t := r.b || r.a; end loop;
              while i < 2 loop i := i + 1; continue when i = 1; exit top when i > 5; end loop;
              case i when 1, 2 then null; else raise info 'i %', i; end case;
              if found then execute 'select 1' into i; elsif i is null then return; else get diagnostics i := row_count; end if;
              begin select into strict i a from dmg where a = 1; exception when others then raise notice '%', sqlerrm; end;
            end top;
            """
        let words = body.split(separator: " ", omittingEmptySubsequences: false)
        var variants = (0...body.count).map { String(body.prefix($0)) }
        for k in words.indices { variants.append(words.enumerated().filter { $0.offset != k }.map { String($0.element) }.joined(separator: " ")) }
        var accepted = 0
        for (n, v) in variants.enumerated() {
            do {
                _ = try s.execute("create or replace procedure sp_dmg() as $$\(v)$$ language plpgsql")
                accepted += 1
                _ = try? s.execute("call sp_dmg()")
            } catch {
                XCTAssertTrue(error is SQLError, "variant \(n): \(error)")
            }
        }
        XCTAssertGreaterThan(accepted, 0)
    }

    func testShowProcedure() throws {
        let s = try Database(directory: nil).connect()
        _ = try s.execute("""
            create procedure sp_show(a int, inout b varchar(10), out c int) nonatomic as $$
            begin
              c := a;
            end;
            $$ language plpgsql security definer
            """)
        XCTAssertEqual(try rows(s, "show procedure sp_show"), [["""
            CREATE OR REPLACE PROCEDURE public.sp_show(a IN integer, b INOUT character varying(10), c OUT integer)
             NONATOMIC
             LANGUAGE plpgsql
             SECURITY DEFINER
            AS $$
            begin
              c := a;
            end;
            $$
            """]])
    }

    /// Procedures are catalog changes: they survive a reopen from the commit log and from
    /// a checkpointed manifest; a rolled-back CREATE PROCEDURE leaves nothing; DROP persists.
    func testProceduresSurviveReopen() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("""
                create table log (v int);
                create procedure sp_keep(x int, out y int) as $$ begin insert into log values (x); y := x + 1; end; $$ language plpgsql;
                create procedure sp_drop() as $$ begin null; end; $$ language plpgsql;
                begin;
                create procedure sp_gone() as $$ begin null; end; $$ language plpgsql;
                rollback;
                """)
        }
        do {
            let s = try Database(directory: dir).connect()
            XCTAssertEqual(try rows(s, "call sp_keep(41)"), [["42"]])
            XCTAssertThrowsError(try s.execute("call sp_gone()"))
            _ = try s.execute("drop procedure sp_drop(); create procedure sp_new() as $$ begin insert into log values (7); end; $$ language plpgsql")
        }
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try rows(s, "call sp_keep(1)"), [["2"]])
        _ = try s.execute("call sp_new()")
        XCTAssertThrowsError(try s.execute("call sp_drop()"))
        XCTAssertEqual(try rows(s, "select v from log order by v"), [["1"], ["7"], ["41"]])
    }

    func testProceduresInPgProc() throws {
        let s = try Database(directory: nil).connect()
        _ = try s.execute("create procedure sp_listed(a int, b varchar(5)) as $$ begin null; end; $$ language plpgsql")
        XCTAssertEqual(try rows(s, "select proname, pronargs, prorettype from pg_proc where proname = 'sp_listed'"),
                       [["sp_listed", "2", "0"]])
    }
}
