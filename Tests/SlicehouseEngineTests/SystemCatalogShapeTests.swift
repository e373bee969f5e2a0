// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseTypes

/// Every system table and view Slicehouse answers has Redshift's documented columns: the
/// same names in the same order, with compatible types, as `catalog/redshift_system_columns.tsv`
/// lists them (extracted from Redshift's documentation; see `catalog/README.md`). A column
/// missing, renamed or moved fails. What differs on purpose is listed below, each with its
/// reason (and in docs/DIFFERENCES.md).
final class SystemCatalogShapeTests: XCTestCase {
    /// PostgreSQL catalogs whose rows have a hidden `oid` system column (`select *` does
    /// not show it): Slicehouse has no hidden columns, so `oid` comes first, visibly.
    static let leadingOID: [String: String] = Dictionary(uniqueKeysWithValues: [
        "pg_type", "pg_namespace", "pg_class", "pg_attrdef", "pg_proc", "pg_database", "pg_rewrite", "pg_constraint",
        "pg_language", "pg_default_acl",
    ].map { ($0, "PostgreSQL's hidden oid column is an ordinary first column (Slicehouse has no hidden columns)") })

    /// Columns Slicehouse shows after Redshift's (the relation's name, the columns in order,
    /// and why).
    static let extraColumns: [String: (columns: [String], reason: String)] = [
        "stv_blocklist": (["num_nulls", "num_deleted", "encoding", "size_bytes", "first_row"],
                          "what Slicehouse knows of each block beyond Redshift's columns (its NULLs, rows marked deleted, "
                          + "encoding, encoded size, first row)"),
        "stv_tbl_perm": (["deleted_rows"], "rows of the slice marked deleted and not yet vacuumed"),
        "svv_table_info": (["size_bytes"], "the table's encoded bytes (size counts 1 MB blocks)"),
        "stl_scan": (["blocks_read", "blocks_skipped", "runtime_filtering", "rows_runtime_filtered"],
                     "Slicehouse's counts of a scan: blocks read and skipped through zone maps, and the rows a hash "
                     + "join's runtime filter removed"),
        "svv_alter_table_recommendations": (["reason"], "why the key advisor recommends the change"),
        "sys_query_history": (["short_query_prediction"], "short query acceleration's guess for the query (short or long)"),
        "information_schema.tables": (["is_insertable_into", "is_typed", "commit_action"],
                                      "columns of a later PostgreSQL's information_schema that clients ask for"),
        "information_schema.columns": (["is_updatable"], "a later PostgreSQL's column that clients ask for"),
        "sys_query_detail": (["blocks_read", "is_active"],
                             "blocks a scan read (STL_SCAN's count) and whether the step still runs, of the columns the "
                             + "documentation lists after output_rows (docs/DIFFERENCES.md)"),
        "pg_class": (["relpersistence", "relhastriggers", "reloftype", "reloptions"],
                     "later PostgreSQL's columns that SQLAlchemy 2's reflection filters on (pandas' to_sql) and psql's \\d reads"),
        "pg_attribute": (["attcollation"], "PostgreSQL 9.1's column that psql's \\d reads"),
        "pg_attribute_info": (["attcollation"], "PostgreSQL 9.1's column that psql's \\d reads"),
        "pg_type": (["typcollation"], "PostgreSQL 9.1's column that psql's \\d reads"),
        "pg_index": (["indisvalid"], "PostgreSQL 8.2's column that psql's \\d reads"),
        "pg_constraint": (["conindid"], "PostgreSQL 9.0's column that psql's \\d joins on"),
        "pg_proc": (["proiswindow"], "PostgreSQL 8.4's column that psql's \\df reads"),
        "pg_database": (["datcollate", "datctype"], "PostgreSQL 8.4's columns that psql's \\l reads (the C locale)"),
    ]

    /// Relations Slicehouse has that Redshift does not document (name: why).
    static let slicehouseOnly: [String: String] = [
        "pg_conf": "Redshift's undocumented key/value table, read by the admin view v_generate_tbl_ddl (key, value)",
        "pg_collation": "PostgreSQL 9.1's collations, which psql's \\d joins to (default, C, POSIX)",
        "pg_am": "PostgreSQL's index access methods, which pgjdbc's getIndexInfo joins to (btree, the keys' indexes')",
        "pg_inherits": "PostgreSQL's table inheritance, which psql's \\d asks for (empty: Redshift has none)",
        "pg_trigger": "PostgreSQL 9.0's triggers, which psql's \\d asks for (empty: Redshift has none)",
        "stv_block_cache": "Slicehouse's own: what the decoded-block cache and the external file cache hold",
        "stv_plan_cache": "Slicehouse's own: the SELECT plans kept for the next run of the same query",
    ]

    /// Columns whose type deliberately differs from the documented one ("relation.column": why).
    static let typeExceptions: [String: String] = [:]

    struct Column: Equatable {
        var name: String
        var type: String
    }

    /// The documented columns by relation, in order.
    static func reference() throws -> [String: [Column]] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("catalog/redshift_system_columns.tsv").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var out: [String: [(Int, Column)]] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4, let ordinal = Int(f[1]) else {
                XCTFail("bad line in the column list: \(line)")
                continue
            }
            out[f[0], default: []].append((ordinal, Column(name: f[2], type: f[3])))
        }
        return out.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }
    }

    /// Every relation Slicehouse answers, by the name a query gives it.
    static var relations: [String] {
        SystemTables.names + SystemTables.informationSchemaNames.sorted().map { "information_schema." + $0 }
    }

    /// A documented type's family, for comparison with a Slicehouse type.
    enum Family: Equatable { case integer, numeric(scale: Int), float, string, boolean, datetime, any }

    static func family(_ documented: String) -> Family {
        let t = documented.lowercased()
        if t.hasSuffix("[]") || ["oidvector", "int2vector", "anyarray", "bytea", "aclitem", "regproc"].contains(t) { return .any }
        if ["integer", "int", "int4", "smallint", "int2", "bigint", "int8", "oid", "xid", "cardinal_number"].contains(t) {
            return .integer
        }
        if t.hasPrefix("numeric") || t.hasPrefix("decimal") {
            let scale = t.split(separator: ",").last.flatMap { Int($0.filter(\.isNumber)) } ?? 0
            return .numeric(scale: t.contains(",") ? scale : 0)
        }
        if ["real", "double precision", "float", "float4", "float8"].contains(t) { return .float }
        if t == "boolean" || t == "bool" { return .boolean }
        if t.hasPrefix("timestamp") || t == "date" || t == "abstime" { return .datetime }
        if t.hasPrefix("character") || t.hasPrefix("char") || t.hasPrefix("varchar") || ["text", "name", "\"char\"",
            "sql_identifier", "character_data"].contains(t) {
            return .string
        }
        return .any
    }

    static func compatible(_ documented: String, _ actual: DataType) -> Bool {
        switch (family(documented), actual) {
        case (.any, _): return true
        case (.integer, .smallint), (.integer, .integer), (.integer, .bigint): return true
        case (.numeric, .decimal), (.numeric, .double), (.numeric, .real): return true
        case (.numeric(let scale), .smallint), (.numeric(let scale), .integer), (.numeric(let scale), .bigint): return scale == 0
        case (.float, .real), (.float, .double), (.float, .decimal): return true
        case (.string, .char), (.string, .varchar): return true
        case (.boolean, .boolean): return true
        case (.datetime, .date), (.datetime, .timestamp), (.datetime, .timestamptz): return true
        default: return false
        }
    }

    func testEverySystemRelationHasRedshiftsDocumentedColumns() throws {
        let reference = try Self.reference()
        let session = try Database().connect()
        let system = SystemTables(database: session.database, transaction: session.transaction, session: session)
        var problems: [String] = []
        for name in Self.relations {
            guard let (def, _) = system.table(named: name) else {
                problems.append("\(name): listed as a system relation but not answered")
                continue
            }
            if Self.slicehouseOnly[name] != nil { continue }
            guard let documented = reference[name] else {
                problems.append("\(name): not in the documented list (add its columns, or say why in slicehouseOnly)")
                continue
            }
            var actual = def.columns.map { (name: $0.name, type: $0.type) }
            if Self.leadingOID[name] != nil {
                guard actual.first?.name == "oid" else {
                    problems.append("\(name): expected the oid column first")
                    continue
                }
                actual.removeFirst()
            }
            for (i, d) in documented.enumerated() {
                guard i < actual.count else {
                    problems.append("\(name): missing \(documented[i...].map(\.name).joined(separator: ", "))")
                    break
                }
                if actual[i].name != d.name {
                    problems.append("\(name): column \(i + 1) is \(actual[i].name), documented \(d.name)")
                    break
                }
                if !Self.compatible(d.type, actual[i].type) && Self.typeExceptions["\(name).\(d.name)"] == nil {
                    problems.append("\(name).\(d.name): \(actual[i].type.sqlName), documented \(d.type)")
                }
            }
            let extra = actual.dropFirst(documented.count).map(\.name)
            if extra != (Self.extraColumns[name]?.columns ?? []) {
                problems.append("\(name): columns after Redshift's are \(extra), expected \(Self.extraColumns[name]?.columns ?? [])")
            }
        }
        XCTAssert(problems.isEmpty, "\n" + problems.joined(separator: "\n"))
    }

    /// The list holds exactly the relations Slicehouse answers, and each exception names one.
    func testTheListAndTheExceptionsNameRelationsSlicehouseAnswers() throws {
        let reference = try Self.reference()
        let answered = Set(Self.relations)
        XCTAssertEqual(Set(reference.keys).subtracting(answered), [], "documented relations Slicehouse does not answer")
        let named = Set(Self.leadingOID.keys).union(Self.extraColumns.keys).union(Self.slicehouseOnly.keys)
            .union(Self.typeExceptions.keys.map { String($0[..<($0.lastIndex(of: ".") ?? $0.endIndex)]) })
        XCTAssertEqual(named.subtracting(answered), [], "exceptions for relations Slicehouse does not answer")
        XCTAssertEqual(answered.count, Set(SystemTables.names).count + SystemTables.informationSchemaNames.count,
                       "a relation is listed twice in SystemTables.names")
    }

    /// The test itself notices a missing, renamed or moved column.
    func testTheComparisonNoticesChangedColumns() {
        XCTAssertTrue(Self.compatible("integer", .bigint))
        XCTAssertTrue(Self.compatible("character(72)", .varchar(128)))
        XCTAssertTrue(Self.compatible("numeric(38,0)", .bigint))
        XCTAssertFalse(Self.compatible("numeric(5,2)", .integer))
        XCTAssertFalse(Self.compatible("timestamp", .integer))
        XCTAssertFalse(Self.compatible("boolean", .char(1)))
        XCTAssertFalse(Self.compatible("text", .integer))
    }
}
