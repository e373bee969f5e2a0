// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseSQL
import SlicehousePlan
import SlicehouseFunctions
import SlicehousePlanner

/// What clients ask the catalog: PostgreSQL's pg_catalog tables (pg_namespace, pg_class,
/// pg_attribute, ...), information_schema's views, and Redshift's SVV_TABLES /
/// SVV_COLUMNS and `pg_get_late_binding_view_cols()`, with PostgreSQL's column names and
/// types, built from the reading statement's catalog when a statement reads them.
///
/// Identifiers: a table's oid is its table id; a view's too (views have none of their
/// own, so they get `viewOIDBase` + their position among the views); a schema's oid is
/// PostgreSQL's for `pg_catalog` (11) and `public` (2200), a stable hash of its name for
/// the others.
extension SystemTables {
    /// System tables in pg_catalog that this file answers.
    static let clientCatalogNames = ["pg_class", "pg_attribute", "pg_attribute_info", "pg_attrdef", "pg_description", "pg_proc", "pg_settings",
                                     "pg_database", "pg_tables", "pg_views", "svv_tables", "svv_columns",
                                     "pg_get_late_binding_view_cols", "pg_collation", "pg_am"]
    /// `names` as a set (name lookups test it for every table a statement names).
    static let nameSet = Set(names)
    /// Views of information_schema (reached only as `information_schema.name`).
    static let informationSchemaNames: Set<String> = ["tables", "columns", "schemata", "views"]

    static let viewOIDBase = 900_000_000

    /// A schema's oid.
    static func schemaOID(_ name: String) -> Int64 {
        switch name {
        case "pg_catalog": return 11
        case "public": return 2200
        case "information_schema": return 14_000
        default:
            if Catalog.isTemporarySchema(name), let p = Int64(name.dropFirst("pg_temp_".count)) { return 16_000_000 + p }
            var h: UInt32 = 2_166_136_261
            for b in name.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
            return 200_000 + Int64(h % 10_000_000)
        }
    }

    /// pg_attribute.attstorage as PostgreSQL's types have it: numeric 'm' (main), the
    /// character types 'x' (extended), the fixed-width types 'p' (plain).
    static func storageCode(_ t: DataType) -> String {
        if t.isDecimal { return "m" }
        switch t { case .varbyte, .superType, .hllsketch: return "x"; default: break }
        if t.isString { return "x" }
        return "p"
    }

    /// The collation of a column of type `t` (pg_attribute.attcollation, pg_type.typcollation):
    /// the default one (100) for the character types, none (0) for the others.
    static func collationOID(_ t: DataType) -> Int64 { t.isString ? 100 : 0 }

    /// A user's id as pg_user shows it (rdsdb, the system's own user, is 1).
    func userOID(_ name: String) -> Int64 { Int64(transaction.catalog.security.user(name)?.id ?? 1) }

    /// PostgreSQL's type oid of a column type.
    static func typeOID(_ t: DataType) -> Int64 { Int64(t.typeOID) }

    /// pg_attribute's atttypmod: length + 4 for character types, (precision << 16 | scale) + 4 for numeric.
    static func typeModifier(_ t: DataType) -> Int64 {
        switch t {
        case .char(let n), .varchar(let n): return Int64(n) + 4
        case .decimal(let p, let s): return Int64(p << 16 | s) + 4
        default: return -1
        }
    }

    /// information_schema's data_type: the type's name without modifiers.
    static func dataTypeName(_ t: DataType) -> String {
        switch t {
        case .decimal: return "numeric"
        case .char: return "character"
        case .varchar: return "character varying"
        case .varbyte: return "varbyte"
        default: return t.sqlName
        }
    }

    /// The relations of the reading statement's catalog that this session may see: every
    /// table and view but other sessions' temporary tables.
    var visibleTables: [TableDef] {
        let own = session?.temporarySchema
        return transaction.catalog.allTables.filter { !$0.isTemporary || $0.schema == own }
    }

    /// Every view with its oid.
    private var viewsWithOIDs: [(oid: Int64, view: ViewDef)] {
        transaction.catalog.allViews.enumerated().map { (Int64(Self.viewOIDBase + $0.offset), $0.element) }
    }

    /// A materialized view shows itself as Redshift shows one: a view (relkind 'v', its oid
    /// the table id; in pg_views and information_schema.views with its CREATE statement)
    /// whose rows are kept in a table named `mv_tbl__<name>__0` (in pg_class and
    /// pg_attribute, with the distribution and sort key: dbt reads them there).
    static let materializedViewTableOIDBase = 800_000_000

    static func materializedViewTableName(_ t: TableDef) -> String { "mv_tbl__\(t.name)__0" }

    /// The internal columns Redshift keeps in a materialized view's table, after the view's
    /// own (their types are not documented: Slicehouse shows BIGINT and INTEGER).
    static let materializedViewInternalColumns = [ColumnDef(name: "padb_internal_txn_id_col", type: .bigint),
                                                  ColumnDef(name: "padb_internal_txn_seq_col", type: .integer)]

    /// The CREATE MATERIALIZED VIEW statement pg_views shows, rebuilt from what the
    /// catalog keeps (BACKUP is not kept: always YES).
    func materializedViewDefinition(_ t: TableDef) -> String {
        guard let mv = t.materializedView else { return "" }
        var query = mv.queryText.trimmingCharacters(in: .whitespacesAndNewlines)
        while query.hasSuffix(";") { query = String(query.dropLast()).trimmingCharacters(in: .whitespacesAndNewlines) }
        if Self.isWrappedInParentheses(query) {
            query = String(query.dropFirst().dropLast()).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var lines = ["create materialized view \(t.name)", "    backup yes"]
        switch t.distStyle {
        case .even: lines.append("    diststyle even")
        case .all: lines.append("    diststyle all")
        case .auto: lines.append("    diststyle auto")
        case .key:
            lines.append("    diststyle key")
            if let k = t.distKey { lines.append("    distkey (\(t.columns[k].name))") }
        }
        if !t.sortKey.isEmpty {
            let kind = t.sortKeyKind == .interleaved ? "interleaved " : ""
            lines.append("    \(kind)sortkey (\(t.sortKey.map { t.columns[$0].name }.joined(separator: ", ")))")
        }
        lines.append("    auto refresh \(mv.autoRefresh ? "yes" : "no")")
        lines.append("as (")
        lines.append("    " + query)
        lines.append(");")
        return lines.joined(separator: "\n")
    }

    /// Whether `text`'s first parenthesis closes at its last character (`(select 1)`, not
    /// `(select 1) union (select 2)`), parentheses inside quotes aside.
    static func isWrappedInParentheses(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "("), bytes.last == UInt8(ascii: ")") else { return false }
        var depth = 0
        var quote: UInt8? = nil
        for (i, b) in bytes.enumerated() {
            if let q = quote {
                if b == q { quote = nil }
                continue
            }
            switch b {
            case UInt8(ascii: "'"), UInt8(ascii: "\""): quote = b
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return i == bytes.count - 1 }
            default: break
            }
        }
        return false
    }

    /// COMMENT ON's texts as pg_description holds them: tables and their columns (pg_class,
    /// 1259), views and their columns, schemas (pg_namespace, 2615) and the database
    /// (pg_database, 1262).
    var descriptions: [(objoid: Int64, classoid: Int64, objsubid: Int64, text: String)] {
        var rows: [(objoid: Int64, classoid: Int64, objsubid: Int64, text: String)] = []
        let comments = transaction.catalog.comments
        for t in visibleTables {
            if let c = comments[CommentKey.table(t.id)] { rows.append((Int64(t.id), 1259, 0, c)) }
            for i in t.columns.indices {
                if let c = comments[CommentKey.column(t.id, i)] {
                    rows.append((Int64(t.id), 1259, Int64(i + 1), c))
                }
            }
        }
        for (oid, v) in viewsWithOIDs {
            if let c = comments[CommentKey.view(v.qualifiedName)] { rows.append((oid, 1259, 0, c)) }
            let prefix = CommentKey.viewColumn(v.qualifiedName, 0).dropLast()
            for (key, c) in comments.sorted(by: { $0.key < $1.key }) where key.hasPrefix(prefix) {
                if let i = Int(key.dropFirst(prefix.count)) { rows.append((oid, 1259, Int64(i + 1), c)) }
            }
        }
        for schema in transaction.catalog.allSchemas {
            if let c = comments[CommentKey.schema(schema.name)] {
                rows.append((Self.schemaOID(schema.name), 2615, 0, c))
            }
        }
        if let c = comments[CommentKey.database] { rows.append((16_384, 1262, 0, c)) }
        return rows
    }

    /// A view's column names: its column list, else its query's output names.
    func viewColumnNames(_ v: ViewDef) -> [String] {
        columns(of: v)?.map(\.name) ?? v.columns
    }

    /// A view's columns (names and types), by binding its query; nil when it does not bind
    /// (a table it reads was dropped) or while another view's columns are being found.
    private func columns(of view: ViewDef) -> [(name: String, type: DataType)]? {
        guard let session, !session.findingViewColumns else { return nil }
        session.findingViewColumns = true
        defer { session.findingViewColumns = false }
        guard let q = try? view.parsedQuery() else { return nil }
        let ctx = StatementContext(database: database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = view.searchPath
        guard let plan = try? binder.bind(query: q) else { return nil }
        return plan.outputs.enumerated().map { i, c in
            (view.columns.count > i ? view.columns[i] : c.name, c.type == .unknown ? .varchar(256) : c.type)
        }
    }

    /// Every schema a client sees, with owner: the catalog's, pg_catalog, information_schema,
    /// and the session's temporary schema when it holds tables.
    private var schemaRows: [(name: String, owner: String)] {
        var out = transaction.catalog.allSchemas.map { ($0.name, $0.owner) }
        out += [("pg_catalog", "rdsdb"), ("information_schema", "rdsdb")]
        if let own = session?.temporarySchema, visibleTables.contains(where: { $0.schema == own }) {
            out.append((own, session?.user ?? "rdsdb"))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// One row per column of every visible table and view: (schema, relation, oid, kind,
    /// column number, column, default).
    private var allColumns: [(schema: String, relation: String, oid: Int64, kind: String, number: Int, column: ColumnDef)] {
        var out: [(String, String, Int64, String, Int, ColumnDef)] = []
        for t in visibleTables {
            let kind = t.materializedView == nil ? "r" : "v"
            for (i, c) in t.columns.enumerated() { out.append((t.schema, t.name, Int64(t.id), kind, i + 1, c)) }
        }
        for (oid, v) in viewsWithOIDs {
            for (i, c) in (columns(of: v) ?? []).enumerated() {
                out.append((v.schema, v.name, oid, "v", i + 1, ColumnDef(name: c.name, type: c.type)))
            }
        }
        return out
    }

    /// A column's default as pg_attrdef and information_schema show it: an IDENTITY column's
    /// is Redshift's `"identity"(table oid, column index, 'seed,step'::text)`, which
    /// clients parse (sqlalchemy-redshift reads the seed and step from it).
    private static func defaultText(_ c: ColumnDef, table: Int64, index: Int) -> String? {
        if let id = c.identity { return "\"identity\"(\(table), \(index), '\(id.seed),\(id.step)'::text)" }
        return c.defaultSQL
    }

    private func opt(_ s: String?) -> Value { s.map { .string($0) } ?? .null }
    private func lengthValue(_ t: DataType) -> Value {
        switch t { case .char(let n), .varchar(let n): return .int(Int64(n)); default: return .null }
    }
    private func precisionValue(_ t: DataType) -> Value {
        switch t {
        case .smallint: return .int(16)
        case .integer: return .int(32)
        case .bigint: return .int(64)
        case .decimal(let p, _): return .int(Int64(p))
        case .real: return .int(24)
        case .double: return .int(53)
        default: return .null
        }
    }
    private func radixValue(_ t: DataType) -> Value {
        switch t {
        case .smallint, .integer, .bigint, .real, .double: return .int(2)
        case .decimal: return .int(10)
        default: return .null
        }
    }
    private func scaleValue(_ t: DataType) -> Value {
        switch t {
        case .smallint, .integer, .bigint: return .int(0)
        case .decimal(_, let s): return .int(Int64(s))
        default: return .null
        }
    }
    private func datetimePrecision(_ t: DataType) -> Value {
        switch t { case .date: return .int(0); case .timestamp: return .int(6); default: return .null }
    }

    /// The system table `name` of this file, or nil.
    func clientCatalogTable(_ name: String) -> (TableDef, TableSnapshot)? {
        let nameType = DataType.varchar(128)
        switch name {
        case "pg_namespace":
            let rows = schemaRows.map { s -> [Value] in
                [.int(Self.schemaOID(s.name)), .string(s.name), .int(userOID(s.owner)),
                 aclText(.schema(s.name), owner: s.owner)]
            }
            return make(-21, name, [("oid", .integer), ("nspname", nameType), ("nspowner", .integer), ("nspacl", Self.aclType)],
                        rows)
        case "pg_class":
            // PostgreSQL 8.0's columns with Redshift's own (relexternid .. relprojbaseid):
            // reldiststyle is 0 EVEN, 1 KEY, 8 ALL, 9 AUTO; relacl the grants made on it.
            // Then later PostgreSQL's that clients read: relpersistence (SQLAlchemy),
            // relhastriggers, reloftype and reloptions (psql's `\\d`; no typed tables or
            // storage parameters here).
            var rows: [[Value]] = []
            // relhastriggers as PostgreSQL sets it: on both tables of a foreign key (its
            // checks are triggers there; psql shows a table's foreign keys only then).
            var triggered = Set<Int>(), indexed = Set<Int>()
            for c in constraints() {
                if let r = c.referenced { triggered.insert(c.table.id); triggered.insert(r.id) }
                if c.kind == "p" || c.kind == "u" { indexed.insert(c.table.id) }
            }
            for t in visibleTables {
                let tuples = Double(transaction.peek(t.id)?.rowCount ?? 0)
                let owner = transaction.catalog.security.owner(.table(t.id)).map { userOID($0) } ?? 1
                let style: Int64
                switch t.distStyle { case .even: style = 0; case .key: style = 1; case .all: style = 8; case .auto: style = 9 }
                let primaryKey = !t.primaryKey.isEmpty || t.columns.contains { $0.isPrimaryKey }
                let acl = aclText(.table(t.id), owner: transaction.catalog.security.owner(.table(t.id)))
                if t.materializedView != nil {
                    rows.append(classRow(oid: Int64(t.id), name: t.name, schema: t.schema, owner: owner, fileNode: 0, tuples: 0,
                                         kind: "v", columns: t.columns.count, distStyle: 0, primaryKey: false, rules: true, acl: acl))
                    let oid = Int64(Self.materializedViewTableOIDBase + t.id)
                    rows.append(classRow(oid: oid, name: Self.materializedViewTableName(t), schema: t.schema, owner: owner,
                                         fileNode: oid, tuples: tuples, kind: "r",
                                         columns: t.columns.count + Self.materializedViewInternalColumns.count, distStyle: style,
                                         primaryKey: false, rules: false, acl: acl))
                    continue
                }
                var row = classRow(oid: Int64(t.id), name: t.name, schema: t.schema, owner: owner, fileNode: Int64(t.id),
                                   tuples: tuples, kind: "r", columns: t.columns.count, distStyle: style,
                                   primaryKey: primaryKey, rules: false, acl: acl, temporary: t.isTemporary,
                                   triggers: triggered.contains(t.id))
                row[12] = .bool(indexed.contains(t.id))   // relhasindex: a key's index (pg_index)
                rows.append(row)
            }
            for i in constraintIndexes(constraints()) {
                let t = i.constraint.table
                let owner = transaction.catalog.security.owner(.table(t.id)).map { userOID($0) } ?? 1
                var row = classRow(oid: i.oid, name: i.constraint.name, schema: t.schema, owner: owner, fileNode: 0, tuples: 0,
                                   kind: "i", columns: i.constraint.columns.count, distStyle: 0, primaryKey: false, rules: false,
                                   acl: .null, temporary: t.isTemporary)
                row[5] = .int(403)   // relam: btree
                rows.append(row)
            }
            for (oid, v) in viewsWithOIDs {
                let object = SecuredObject.view(schema: v.schema, name: v.name)
                let owner = transaction.catalog.security.owner(object).map { userOID($0) } ?? 1
                rows.append(classRow(oid: oid, name: v.name, schema: v.schema, owner: owner, fileNode: 0, tuples: 0, kind: "v",
                                     columns: v.columns.count, distStyle: 0, primaryKey: false, rules: true,
                                     acl: aclText(object, owner: transaction.catalog.security.owner(object))))
            }
            return make(-40, name, [("oid", .integer), ("relname", nameType), ("relnamespace", .integer), ("reltype", .integer),
                                    ("relowner", .integer), ("relam", .integer), ("relfilenode", .integer),
                                    ("reltablespace", .integer), ("relpages", .integer), ("reltuples", .real),
                                    ("reltoastrelid", .integer), ("reltoastidxid", .integer), ("relhasindex", .boolean),
                                    ("relisshared", .boolean), ("relkind", .char(1)), ("relnatts", .smallint),
                                    ("relexternid", .integer), ("relisreplicated", .boolean), ("relispinned", .boolean),
                                    ("reldiststyle", .smallint), ("relprojbaseid", .integer), ("relchecks", .smallint),
                                    ("reltriggers", .smallint), ("relukeys", .smallint), ("relfkeys", .smallint),
                                    ("relrefs", .smallint), ("relhasoids", .boolean), ("relhaspkey", .boolean),
                                    ("relhasrules", .boolean), ("relhassubclass", .boolean), ("relacl", Self.aclType),
                                    ("relpersistence", .char(1)), ("relhastriggers", .boolean), ("reloftype", .integer),
                                    ("reloptions", .text)], rows)
        case "pg_attribute", "pg_attribute_info":
            // PostgreSQL 8.0's columns with Redshift's: attisdistkey, attsortkeyord (the
            // column's place in the sort key, negative in an interleaved one) and
            // attencodingtype (`encodingCode`: 0 for RAW). PG_ATTRIBUTE_INFO adds attacl,
            // the column-level grants.
            let info = name == "pg_attribute_info"
            let attacl: [(String, DataType)] = info ? [("attacl", Self.aclType)] : []
            let views = Dictionary(viewsWithOIDs.map { ($0.oid, $0.view) }, uniquingKeysWith: { a, _ in a })
            // Tables by their oid: a materialized view's under its table's (mv_tbl__...).
            var tables: [Int64: TableDef] = [:]
            var encodings: [Int64: [ColumnEncoding]] = [:]
            var backing: [(schema: String, relation: String, oid: Int64, kind: String, number: Int, column: ColumnDef)] = []
            for t in visibleTables {
                let oid = Int64(t.materializedView == nil ? t.id : Self.materializedViewTableOIDBase + t.id)
                if tables[oid] == nil { tables[oid] = t }
                encodings[oid] = transaction.peek(t.id)?.encodings
                if t.materializedView != nil {
                    for (i, c) in t.columns.enumerated() {
                        backing.append((t.schema, Self.materializedViewTableName(t), oid, "r", i + 1, c))
                    }
                    // Redshift's own bookkeeping columns of the table after the view's
                    // (`SELECT *` from the view never shows them; dbt's catalog counts them).
                    for (k, extra) in Self.materializedViewInternalColumns.enumerated() {
                        backing.append((t.schema, Self.materializedViewTableName(t), oid, "r", t.columns.count + k + 1, extra))
                    }
                }
            }
            // A key's index has its key columns, numbered from 1 (pgjdbc's getIndexInfo).
            for i in constraintIndexes(constraints()) {
                let t = i.constraint.table
                for (k, column) in i.constraint.columns.enumerated() where column < t.columns.count {
                    backing.append((t.schema, i.constraint.name, i.oid, "i", k + 1, t.columns[column]))
                }
            }
            let materializedViews = Dictionary(visibleTables.filter { $0.materializedView != nil }.map { (Int64($0.id), $0) },
                                               uniquingKeysWith: { a, _ in a })
            // A late-binding view's columns are not known until it is read: Redshift lists
            // none (pg_get_late_binding_view_cols() gives them).
            let rows = (allColumns + backing).filter { !($0.kind == "v" && views[$0.oid]?.lateBinding == true) }.map { c -> [Value] in
                let i = c.number - 1
                let t = c.kind == "r" ? tables[c.oid] : nil
                let sortPos = t.flatMap { t in
                    t.sortKey.firstIndex(of: i).map { t.sortKeyKind == .interleaved ? -($0 + 1) : $0 + 1 }
                } ?? 0
                var encoding: Int64 = 0
                if let t {
                    let e = encodings[c.oid].flatMap { i < $0.count ? $0[i] : nil }
                        ?? c.column.encoding.flatMap { ColumnEncoding(sqlName: $0) }
                        ?? (t.sortKey.first == i ? .raw : ColumnEncoding(sqlName: defaultEncoding(c.column.type)) ?? .raw)
                    encoding = Self.encodingCode(e)
                }
                var row: [Value] = [.int(c.oid), .string(c.column.name), .int(Self.typeOID(c.column.type)), .int(-1),
                        .int(Int64(c.column.type.width > 0 && !c.column.type.isString && !c.column.type.isDecimal ? c.column.type.width : -1)),
                        .int(Int64(c.number)), .int(0), .int(-1), .int(Self.typeModifier(c.column.type)), .bool(false),
                        .string(Self.storageCode(c.column.type)), .string("i"), .bool(c.column.notNull), .bool(Self.defaultText(c.column, table: c.oid, index: i) != nil),
                        .bool(false), .bool(true), .int(0), .bool(t?.distKey == i), .bool(false), .int(Int64(sortPos)),
                        .int(encoding), .int(0)]
                if info {
                    var object: SecuredObject? = nil
                    if c.kind == "r" {
                        object = tables[c.oid].map { SecuredObject.table($0.id) }
                    } else if let t = materializedViews[c.oid] {
                        object = SecuredObject.table(t.id)
                    } else if let v = views[c.oid] {
                        object = SecuredObject.view(schema: v.schema, name: v.name)
                    }
                    row.append(object.map { columnACLText($0, column: c.column.name,
                                                          owner: transaction.catalog.security.owner($0)) } ?? .null)
                }
                row.append(.int(Self.collationOID(c.column.type)))
                return row
            }
            return make(info ? -212 : -41, name, [("attrelid", .integer), ("attname", nameType), ("atttypid", .integer),
                                    ("attstattarget", .integer), ("attlen", .smallint), ("attnum", .smallint),
                                    ("attndims", .integer), ("attcacheoff", .integer), ("atttypmod", .integer),
                                    ("attbyval", .boolean), ("attstorage", .char(1)), ("attalign", .char(1)),
                                    ("attnotnull", .boolean), ("atthasdef", .boolean), ("attisdropped", .boolean),
                                    ("attislocal", .boolean), ("attinhcount", .integer), ("attisdistkey", .boolean),
                                    ("attispreloaded", .boolean), ("attsortkeyord", .integer),
                                    ("attencodingtype", .smallint), ("attencrypttype", .smallint)] + attacl
                                    // PostgreSQL 9.1's, which psql's `\\d` reads.
                                    + [("attcollation", .integer)], rows)
        case "pg_am":
            // The one access method the keys' indexes name (pg_class.relam): btree.
            return make(-230, name, [("oid", .integer), ("amname", nameType), ("amcanunique", .boolean),
                                     ("amcanmulticol", .boolean), ("amcanorder", .boolean)],
                        [[.int(403), .string("btree"), .bool(true), .bool(true), .bool(true)]])
        case "pg_collation":
            // PostgreSQL 9.1's collations, which psql's `\\d` joins to: text compares by its
            // bytes here, so the default is C's.
            let rows: [[Value]] = [(100, "default"), (950, "C"), (951, "POSIX")].map { oid, name in
                [.int(oid), .string(name), .int(11), .int(1), .string("c"), .int(-1),
                 .string(name == "default" ? "" : name), .string(name == "default" ? "" : name)]
            }
            return make(-227, name, [("oid", .integer), ("collname", nameType), ("collnamespace", .integer),
                                     ("collowner", .integer), ("collprovider", .char(1)), ("collencoding", .integer),
                                     ("collcollate", nameType), ("collctype", nameType)], rows)
        case "pg_attrdef":
            var rows: [[Value]] = []
            var n: Int64 = 0
            for t in visibleTables {
                for (i, c) in t.columns.enumerated() {
                    guard let d = Self.defaultText(c, table: Int64(t.id), index: i) else { continue }
                    n += 1
                    rows.append([.int(700_000 + n), .int(Int64(t.id)), .int(Int64(i + 1)), .string(d), .string(d)])
                }
            }
            return make(-42, name, [("oid", .integer), ("adrelid", .integer), ("adnum", .smallint), ("adbin", .text),
                                    ("adsrc", .text)], rows)
        case "pg_description":
            let rows = descriptions.map { d -> [Value] in [.int(d.objoid), .int(d.classoid), .int(d.objsubid), .string(d.text)] }
            return make(-43, name, [("objoid", .integer), ("classoid", .integer), ("objsubid", .integer),
                                    ("description", .text)], rows)
        case "pg_proc":
            var rows = FunctionRegistry.knownNames.enumerated().map { i, f -> [Value] in
                [.int(Int64(5000 + i)), .string(f), .int(11), .int(1), .int(12), .bool(false), .bool(false), .bool(false),
                 .bool(false), .string("i"), .int(0), .int(25), .string(""), .null, .string(f), .null, .null]
            }
            // SQL functions (language sql) and stored procedures (plpgsql, no return type:
            // prorettype 0), with their bodies as prosrc and argument types as oids.
            let functions = transaction.catalog.functions.values.sorted { $0.key < $1.key }
            for (i, f) in functions.enumerated() {
                let argTypes = f.parameterTypes.map { t in (try? session?.parseTypeName(t)).map { String(Self.typeOID($0)) } ?? "0" }
                let ownerName = f.procedure?.owner ?? f.owner ?? transaction.catalog.schema(f.schema)?.owner ?? "rdsdb"
                let owner = f.owner.map { userOID($0) } ?? transaction.catalog.schema(f.schema).map { userOID($0.owner) } ?? 1
                let acl = functionACLText(f, owner: ownerName)
                if let p = f.procedure {
                    rows.append([.int(Int64(900_000 + i)), .string(f.name), .int(Self.schemaOID(f.schema)), .int(owner),
                                 .int(100_356), .bool(false), .bool(p.securityDefiner), .bool(false), .bool(false), .string("v"),
                                 .int(Int64(f.parameterTypes.count)), .int(0), .string(argTypes.joined(separator: " ")),
                                 .string("{" + p.arguments.map(\.name).joined(separator: ",") + "}"), .string(f.body), .null, acl])
                } else {
                    let result = (try? session?.parseTypeName(f.returnType)).map { Self.typeOID($0) } ?? 0
                    let volatility: String
                    switch f.volatility.lowercased() {
                    case "immutable": volatility = "i"
                    case "stable": volatility = "s"
                    default: volatility = "v"
                    }
                    rows.append([.int(Int64(900_000 + i)), .string(f.name), .int(Self.schemaOID(f.schema)), .int(owner), .int(14),
                                 .bool(false), .bool(false), .bool(false), .bool(false), .string(volatility),
                                 .int(Int64(f.parameterTypes.count)), .int(result), .string(argTypes.joined(separator: " ")), .null,
                                 .string(f.body), .null, acl])
                }
            }
            return make(-44, name, [("oid", .integer), ("proname", nameType), ("pronamespace", .integer), ("proowner", .integer),
                                    ("prolang", .integer), ("proisagg", .boolean), ("prosecdef", .boolean),
                                    ("proisstrict", .boolean), ("proretset", .boolean), ("provolatile", .char(1)),
                                    ("pronargs", .smallint), ("prorettype", .integer), ("proargtypes", .text),
                                    ("proargnames", .text), ("prosrc", .text), ("probin", .text), ("proacl", Self.aclType),
                                    // PostgreSQL 8.4's, which psql's `\\df` reads (no window functions are user-made).
                                    ("proiswindow", .boolean)], rows.map { $0 + [.bool(false)] })
        case "pg_settings":
            var all = Session.fixedSettings
            for (k, v) in session?.settings ?? [:] { all[k] = v }
            let rows = all.keys.sorted().map { k -> [Value] in
                let fixed = Session.fixedSettings[k] != nil && session?.settings[k] == nil
                return [.string(k), .string(all[k] ?? ""), .string("Client Connection Defaults"), .string(""), .null,
                        .string(fixed ? "internal" : "user"), .string("string"), .string(fixed ? "default" : "session"),
                        .null, .null]
            }
            return make(-45, name, [("name", .text), ("setting", .text), ("category", .text),
                                    ("short_desc", .text), ("extra_desc", .text), ("context", .text), ("vartype", .text),
                                    ("source", .text), ("min_val", .text), ("max_val", .text)], rows)
        case "pg_database":
            // Redshift's columns, then PostgreSQL 8.4's collation and ctype (psql's `\\l`
            // reads them): Slicehouse compares text by its bytes, the C locale.
            return make(-46, name, Self.pgDatabaseColumns + [("datcollate", .varchar(128)), ("datctype", .varchar(128))],
                        pgDatabaseRows.map { $0 + [.string("C"), .string("C")] })
        case "pg_tables":
            // A materialized view's rows are in its table (mv_tbl__<name>__0), listed here.
            let rows = visibleTables.map { t -> [Value] in
                let tableName = t.materializedView == nil ? t.name : Self.materializedViewTableName(t)
                return [.string(t.schema), .string(tableName), .string(transaction.catalog.security.owner(.table(t.id)) ?? owner(of: t.schema)),
                 .null, .bool(false), .bool(false), .bool(false)]
            }
            return make(-47, name, [("schemaname", nameType), ("tablename", nameType), ("tableowner", nameType),
                                    ("tablespace", nameType), ("hasindexes", .boolean), ("hasrules", .boolean),
                                    ("hastriggers", .boolean)], rows)
        case "pg_views":
            var rows = transaction.catalog.allViews.map { v -> [Value] in
                [.string(v.schema), .string(v.name),
                 .string(transaction.catalog.security.owner(.view(schema: v.schema, name: v.name)) ?? owner(of: v.schema)),
                 .string(v.queryText + ";")]
            }
            for t in visibleTables where t.materializedView != nil {
                rows.append([.string(t.schema), .string(t.name),
                             .string(transaction.catalog.security.owner(.table(t.id)) ?? owner(of: t.schema)),
                             .string(materializedViewDefinition(t))])
            }
            return make(-48, name, [("schemaname", nameType), ("viewname", nameType), ("viewowner", nameType),
                                    ("definition", .text)], rows)
        case "svv_tables", "information_schema.tables":
            var rows: [[Value]] = []
            for t in visibleTables {
                rows.append([.string(databaseName), .string(t.schema), .string(t.name),
                             .string(t.materializedView != nil ? "VIEW" : t.isTemporary ? "LOCAL TEMPORARY" : "BASE TABLE")])
            }
            for v in transaction.catalog.allViews {
                rows.append([.string(databaseName), .string(v.schema), .string(v.name), .string("VIEW")])
            }
            if name == "svv_tables" {
                return make(-49, name, [("table_catalog", nameType), ("table_schema", nameType), ("table_name", nameType),
                                        ("table_type", .varchar(64)), ("remarks", .varchar(256))], rows.map { $0 + [.null] })
            }
            return make(-50, "tables", [("table_catalog", nameType), ("table_schema", nameType), ("table_name", nameType),
                                        ("table_type", .varchar(64)), ("self_referencing_column_name", nameType),
                                        ("reference_generation", .varchar(64)), ("user_defined_type_catalog", nameType),
                                        ("user_defined_type_schema", nameType), ("user_defined_type_name", nameType),
                                        ("is_insertable_into", .varchar(3)), ("is_typed", .varchar(3)),
                                        ("commit_action", .varchar(64))],
                        rows.map { r in
                            let isTable: Bool = { if case .string(let s) = r[3] { return s != "VIEW" }; return false }()
                            return r + [.null, .null, .null, .null, .null, .string(isTable ? "YES" : "NO"), .string("NO"),
                                        r[3] == .string("LOCAL TEMPORARY") ? .string("PRESERVE") : .null]
                        })
        case "svv_columns", "information_schema.columns":
            let columns = allColumns
            let rows = columns.map { c -> [Value] in
                let t = c.column.type
                return [.string(databaseName), .string(c.schema), .string(c.relation), .string(c.column.name),
                        .int(Int64(c.number)), opt(Self.defaultText(c.column, table: c.oid, index: c.number - 1)), .string(c.column.notNull ? "NO" : "YES"),
                        .string(Self.dataTypeName(t)), lengthValue(t), precisionValue(t), radixValue(t), scaleValue(t),
                        datetimePrecision(t)]
            }
            let common: [(String, DataType)] = [
                ("table_catalog", nameType), ("table_schema", nameType), ("table_name", nameType), ("column_name", nameType),
                ("ordinal_position", .integer), ("column_default", .varchar(4000)), ("is_nullable", .varchar(3)),
                ("data_type", .varchar(128)), ("character_maximum_length", .integer), ("numeric_precision", .integer),
                ("numeric_precision_radix", .integer), ("numeric_scale", .integer), ("datetime_precision", .integer)]
            if name == "svv_columns" {
                return make(-51, name, common + [("interval_type", .varchar(128)), ("interval_precision", .varchar(128)),
                                                 ("character_set_catalog", nameType), ("character_set_schema", nameType),
                                                 ("character_set_name", nameType), ("collation_catalog", nameType),
                                                 ("collation_schema", nameType), ("collation_name", nameType),
                                                 ("domain_name", nameType), ("remarks", .varchar(256))],
                            rows.map { $0 + Array(repeating: Value.null, count: 10) })
            }
            // PostgreSQL 8.0's columns (character_octet_length after the length; the
            // interval, character set, collation, domain, scope and dtd columns NULL),
            // then is_updatable (a later PostgreSQL's).
            let octets: [(String, DataType)] = [("character_octet_length", .integer)]
            let unused: [(String, DataType)] = ["interval_type", "interval_precision", "character_set_catalog",
                                                "character_set_schema", "character_set_name", "collation_catalog",
                                                "collation_schema", "collation_name", "domain_catalog", "domain_schema",
                                                "domain_name"].map { ($0, nameType) }
            let scope: [(String, DataType)] = [("scope_catalog", nameType), ("scope_schema", nameType), ("scope_name", nameType),
                                               ("maximum_cardinality", .integer), ("dtd_identifier", nameType),
                                               ("is_self_referencing", .varchar(3))]
            let udt: [(String, DataType)] = [("udt_catalog", nameType), ("udt_schema", nameType), ("udt_name", nameType)]
            return make(-52, "columns", Array(common[..<9]) + octets + Array(common[9...]) + unused + udt + scope
                                        + [("is_updatable", .varchar(3))],
                        zip(rows, columns).map { r, c in
                            var octetLength = Value.null
                            if case .int(let n) = r[8] { octetLength = .int(n * 4) }
                            var out = Array(r[..<9])
                            out.append(octetLength)
                            out += r[9...]
                            out += Array(repeating: Value.null, count: unused.count)
                            out += [.string(databaseName), .string("pg_catalog"), .string(udtName(c.column.type))]
                            out += [.null, .null, .null, .null, .string(String(c.number)), .string("NO")]
                            out.append(.string(c.kind == "r" ? "YES" : "NO"))
                            return out
                        })
        case "information_schema.schemata":
            let rows = schemaRows.map { s -> [Value] in
                [.string(databaseName), .string(s.name), .string(s.owner), .null, .null, .null, .null]
            }
            return make(-53, "schemata", [("catalog_name", nameType), ("schema_name", nameType), ("schema_owner", nameType),
                                          ("default_character_set_catalog", nameType),
                                          ("default_character_set_schema", nameType),
                                          ("default_character_set_name", nameType), ("sql_path", .varchar(256))], rows)
        case "information_schema.views":
            var rows = transaction.catalog.allViews.map { v -> [Value] in
                [.string(databaseName), .string(v.schema), .string(v.name), .string(v.queryText + ";"),
                 .string("NONE"), .string("NO"), .string("NO")]
            }
            for t in visibleTables where t.materializedView != nil {
                rows.append([.string(databaseName), .string(t.schema), .string(t.name), .string(materializedViewDefinition(t)),
                             .string("NONE"), .string("NO"), .string("NO")])
            }
            return make(-54, "views", [("table_catalog", nameType), ("table_schema", nameType), ("table_name", nameType),
                                       ("view_definition", .varchar(65535)), ("check_option", .varchar(32)),
                                       ("is_updatable", .varchar(3)), ("is_insertable_into", .varchar(3))], rows)
        case "pg_get_late_binding_view_cols":
            var rows: [[Value]] = []
            for (_, v) in viewsWithOIDs where v.lateBinding {
                for (i, c) in (columns(of: v) ?? []).enumerated() {
                    rows.append([.string(v.schema), .string(v.name), .string(c.name), .string(c.type.sqlName), .int(Int64(i + 1))])
                }
            }
            return make(-55, name, [("view_schema", nameType), ("view_name", nameType), ("col_name", nameType),
                                    ("col_type", .varchar(128)), ("col_num", .integer)], rows)
        default:
            return nil
        }
    }

    private func owner(of schema: String) -> String {
        transaction.catalog.schema(schema)?.owner ?? session?.user ?? "rdsdb"
    }

    private func udtName(_ t: DataType) -> String { t.internalName }

}
