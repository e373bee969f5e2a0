// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

/// CREATE / DROP SCHEMA, ALTER TABLE / VIEW, and the forms catalog queries of drivers
/// and psql use: OPERATOR(pg_catalog.op), (array)[n], a function in FROM with a column
/// definition list.
final class SchemaStatementTests: XCTestCase {
    func testCreateSchema() throws {
        XCTAssertEqual(try parseStatement("CREATE SCHEMA sales"), .createSchema(CreateSchema(name: "sales")))
        XCTAssertEqual(try parseStatement("create schema if not exists \"Sales\" authorization joe quota 50 gb"),
                       .createSchema(CreateSchema(name: "sales", ifNotExists: true, authorization: "joe")))
        XCTAssertEqual(try parseStatement("create schema authorization joe quota unlimited"),
                       .createSchema(CreateSchema(name: "joe", authorization: "joe")))
        XCTAssertThrowsError(try parseStatement("create schema"))
    }

    func testDropSchema() throws {
        XCTAssertEqual(try parseStatement("DROP SCHEMA IF EXISTS a, b CASCADE"),
                       .dropSchema(DropSchema(names: ["a", "b"], ifExists: true, cascade: true)))
        XCTAssertEqual(try parseStatement("drop schema a restrict"), .dropSchema(DropSchema(names: ["a"])))
    }

    func testAlterTable() throws {
        XCTAssertEqual(try parseStatement("alter table \"dev\".\"analytics\".\"t__dbt_tmp\" rename to \"t\""),
                       .alterTable(AlterTable(name: ObjectName(database: "dev", schema: "analytics", name: "t__dbt_tmp"),
                                              action: .rename("t"))))
        XCTAssertEqual(try parseStatement("ALTER TABLE s.t RENAME COLUMN a TO b"),
                       .alterTable(AlterTable(name: ObjectName(schema: "s", name: "t"), action: .renameColumn("a", "b"))))
        XCTAssertEqual(try parseStatement("alter table t rename a to b"),
                       .alterTable(AlterTable(name: ObjectName(name: "t"), action: .renameColumn("a", "b"))))
        XCTAssertEqual(try parseStatement("alter view v set schema s2"),
                       .alterTable(AlterTable(name: ObjectName(name: "v"), isView: true, action: .setSchema("s2"))))
        XCTAssertEqual(try parseStatement("alter table t owner to joe"),
                       .alterTable(AlterTable(name: ObjectName(name: "t"), action: .owner("joe"))))
        XCTAssertThrowsError(try parseStatement("alter table t"))
        XCTAssertThrowsError(try parseStatement("alter index i rename to j"))
    }

    func testQualifiedOperatorIsTheOperator() throws {
        XCTAssertEqual(try parseStatement("select a OPERATOR(pg_catalog.~) '^x'"), try parseStatement("select a ~ '^x'"))
        XCTAssertEqual(try parseStatement("select a operator(pg_catalog.!~) b"), try parseStatement("select a !~ b"))
    }

    func testArraySubscriptOfAParenthesisedExpression() throws {
        guard case .query(let q) = try parseStatement("select (current_schemas(true))[1]"), case .select(let s) = q.body,
              case .expr(let e, _) = s.items[0], case .function(let f) = e.kind else { return XCTFail("not a call") }
        // A subscript call the binder reads as a text array's element (1-based) or, on SUPER, PartiQL's.
        XCTAssertEqual(f.name, "super_index")
        XCTAssertEqual(f.args.count, 2)
        guard case .function(let inner) = f.args[0].kind else { return XCTFail("not a call inside") }
        XCTAssertEqual(inner.name, "current_schemas")
    }

    func testAclitemCastsAreCalls() throws {
        // `x::aclitem[]` is the call `_aclitem(x)` (the brackets are the type's, not a
        // subscript), `x::aclitem` and CAST(x AS aclitem[]) likewise.
        for (sql, name) in [("select '{}'::aclitem[]", "_aclitem"), ("select cast(a as aclitem[])", "_aclitem"),
                            ("select 'u=r/o'::aclitem", "aclitem")] {
            guard case .query(let q) = try parseStatement(sql), case .select(let s) = q.body,
                  case .expr(let e, _) = s.items[0], case .function(let f) = e.kind else { return XCTFail("not a call: \(sql)") }
            XCTAssertEqual(f.name, name, sql)
            XCTAssertEqual(f.args.count, 1, sql)
        }
        guard case .query(let q) = try parseStatement("select a::aclitem[] = '{}'::aclitem[]"), case .select(let s) = q.body,
              case .expr(let e, _) = s.items[0], case .binary(.equal, let l, let r) = e.kind,
              case .function(let lf) = l.kind, case .function(let rf) = r.kind else { return XCTFail("not a comparison of calls") }
        XCTAssertEqual([lf.name, rf.name], ["_aclitem", "_aclitem"])
    }

    func testFunctionInFromWithColumnDefinitions() throws {
        guard case .query(let q) = try parseStatement(
            "select * from pg_get_late_binding_view_cols() cols(view_schema name, view_name name, col_num int)"),
              case .select(let s) = q.body, case .table(let name, let alias) = s.from[0].kind else { return XCTFail("not a table") }
        XCTAssertEqual(name, ObjectName(name: "pg_get_late_binding_view_cols"))
        XCTAssertEqual(alias, TableAlias(name: "cols", columns: ["view_schema", "view_name", "col_num"]))
    }
}
