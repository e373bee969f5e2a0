// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseSQL
import SlicehousePlanner
import SlicehouseFunctions

/// PostgreSQL 8.0's catalogs of constraints, dependencies, rules, locks, statistics and
/// languages, as Redshift inherits them, built from the reading statement's catalog.
///
/// Identifiers: a view's rewrite rule (`_RETURN`) is `ruleOIDBase` + the view's position
/// among the views; a materialized view's is `mvRuleOIDBase` + its table id. pg_depend
/// names those rules (classid pg_rewrite, 2618) as depending on their view (`i`) and on
/// the tables, columns and views their query reads (`n`), and each constraint
/// (pg_constraint, 2606) on its table's columns (`a`) and a foreign key on the table it
/// references (`n`), as PostgreSQL records them.
extension SystemTables {
    static let pgCatalogNames = ["pg_constraint", "pg_locks", "pg_statistic", "pg_language", "pg_database_info", "pg_index",
                                 "pg_depend", "pg_rewrite", "pg_stat_activity", "pg_library", "pg_conf", "pg_default_acl",
                                 "pg_inherits", "pg_trigger"]

    static let ruleOIDBase: Int64 = 920_000_000
    static let mvRuleOIDBase: Int64 = 930_000_000
    static let constraintOIDBase: Int64 = 800_000_000
    /// pg_class, pg_rewrite and pg_constraint's own oids (PostgreSQL's).
    static let pgClassOID: Int64 = 1259, pgRewriteOID: Int64 = 2618, pgConstraintOID: Int64 = 2606
    /// The oid of the database the statement names objects in (pg_database,
    /// pg_database_info, STV_TBL_PERM.db_id).
    var databaseOID: Int64 { Int64(transaction.catalog.databaseDef(databaseName)?.id ?? Catalog.defaultDatabaseDef.id) }

    /// pg_language's rows: (oid, name, procedural, trusted). SQL functions are `sql`,
    /// stored procedures `plpgsql`, built-in functions `internal`.
    static let languages: [(Int64, String, Bool, Bool)] = [
        (12, "internal", false, false), (13, "c", false, false), (14, "sql", false, true), (100_356, "plpgsql", true, true),
    ]

    /// A view's or materialized view's rewrite rule: its oid, the relation's, and the query.
    struct Rule {
        var oid: Int64
        var relation: Int64
        var queryText: String
        /// The tables and views the query reads directly, each with the columns it names
        /// (nil: a late-binding view, which holds nothing back).
        var reads: [(object: RelationAccess.Object, columns: [Int])]?
    }

    /// Every view's and materialized view's rule, in oid order.
    func rules(bindingReads: Bool) -> [Rule] {
        var out: [Rule] = []
        for (i, v) in transaction.catalog.allViews.enumerated() {
            let reads = bindingReads && !v.lateBinding ? directReads(v.queryText, searchPath: v.searchPath, options: v.parseOptions) : nil
            out.append(Rule(oid: Self.ruleOIDBase + Int64(i), relation: Int64(Self.viewOIDBase + i), queryText: v.queryText,
                            reads: reads))
        }
        for t in transaction.catalog.allTables.sorted(by: { $0.id < $1.id }) {
            guard let mv = t.materializedView else { continue }
            let reads = bindingReads ? directReads(mv.queryText, searchPath: mv.searchPath, options: session?.parseOptions ?? .standard) : nil
            out.append(Rule(oid: Self.mvRuleOIDBase + Int64(t.id), relation: Int64(t.id), queryText: mv.queryText, reads: reads))
        }
        return out
    }

    /// The tables and views `queryText` names itself (not those inside the views it
    /// reads), with the column numbers it references; nil when it does not bind.
    private func directReads(_ queryText: String, searchPath: [String], options: ParseOptions) -> [(object: RelationAccess.Object, columns: [Int])]? {
        guard let session, !session.findingViewColumns else { return nil }
        session.findingViewColumns = true
        defer { session.findingViewColumns = false }
        guard let stmts = try? parseStatements(queryText, options: options), stmts.count == 1, case .query(let q) = stmts[0] else { return nil }
        let binder = Binder(catalog: StatementContext(database: database, session: session), evaluateConstant: evaluateConstant)
        binder.viewSearchPath = searchPath
        guard (try? binder.bind(query: q)) != nil else { return nil }
        // System tables (negative ids) are not catalog objects of their own here.
        return binder.relationAccesses().filter { a in
            guard a.access.enclosingView == nil else { return false }
            if case .table(let t) = a.access.object { return t.id >= 0 }
            return true
        }.map { ($0.access.object, $0.columns) }
    }

    /// The oid pg_class gives a view.
    private func viewOID(_ v: ViewDef) -> Int64? {
        transaction.catalog.allViews.firstIndex { $0.qualifiedName == v.qualifiedName }.map { Int64(Self.viewOIDBase + $0) }
    }

    /// One informational constraint of a table.
    struct Constraint {
        var oid: Int64
        var name: String
        var kind: String
        var table: TableDef
        var columns: [Int]
        var referenced: TableDef?
        var referencedColumns: [Int]
    }

    /// The index PostgreSQL builds for a PRIMARY KEY or UNIQUE constraint, as the catalog
    /// shows it for one (pg_class relkind 'i', pg_index): Redshift builds none, but its
    /// leader catalog lists them, and JDBC's getPrimaryKeys / getImportedKeys and psql's
    /// `\\d` find keys through them. Its oid is `indexOIDBase` + the constraint's position.
    struct ConstraintIndex {
        var oid: Int64
        var constraint: Constraint
        var isPrimary: Bool { constraint.kind == "p" }
    }
    static let indexOIDBase: Int64 = 850_000_000

    func constraintIndexes(_ all: [Constraint]) -> [ConstraintIndex] {
        all.filter { $0.kind == "p" || $0.kind == "u" }.map {
            ConstraintIndex(oid: Self.indexOIDBase + ($0.oid - Self.constraintOIDBase), constraint: $0)
        }
    }

    /// The index a foreign key's referenced columns are the key of (pg_depend's and
    /// pg_constraint.conindid's link from the foreign key to it), if any.
    func referencedIndex(_ c: Constraint, _ indexes: [ConstraintIndex]) -> ConstraintIndex? {
        guard c.kind == "f", let ref = c.referenced else { return nil }
        return indexes.first { $0.constraint.table.id == ref.id && $0.constraint.columns == c.referencedColumns }
    }

    /// Every visible table's PRIMARY KEY, UNIQUE and REFERENCES constraints, with
    /// PostgreSQL's default names (as DROP CONSTRAINT takes them).
    func constraints() -> [Constraint] {
        var out: [Constraint] = []
        let catalog = transaction.catalog
        let own = session?.temporarySchema
        for t in catalog.allTables.sorted(by: { $0.id < $1.id }) where !t.isTemporary || t.schema == own {
            func add(_ name: String, _ kind: String, _ cols: [Int], _ ref: TableDef? = nil, _ refCols: [Int] = []) {
                out.append(Constraint(oid: Self.constraintOIDBase + Int64(out.count), name: name, kind: kind, table: t,
                                      columns: cols, referenced: ref, referencedColumns: refCols))
            }
            let primary = t.primaryKey.isEmpty ? t.columns.indices.filter { t.columns[$0].isPrimaryKey } : t.primaryKey
            if !primary.isEmpty { add("\(t.name)_pkey", "p", primary) }
            var unique = t.uniqueKeys
            for i in t.columns.indices where t.columns[i].isUnique && !unique.contains([i]) { unique.append([i]) }
            for key in unique {
                add("\(t.name)_\(key.map { t.columns[$0].name }.joined(separator: "_"))_key", "u", key)
            }
            for (i, c) in t.columns.enumerated() {
                guard let target = c.references else { continue }
                // `schema.table` when the REFERENCES named a schema; else the table's own
                // schema, then public.
                var qualified: TableDef? = nil
                if let dot = target.firstIndex(of: ".") {
                    qualified = catalog.table(QualifiedName(schema: String(target[..<dot]),
                                                            name: String(target[target.index(after: dot)...])))
                }
                let ref = qualified ?? catalog.table(QualifiedName(schema: t.schema, name: target))
                    ?? catalog.table(QualifiedName(schema: Catalog.publicSchema, name: target))
                let refPrimary = ref.map { r in
                    r.primaryKey.isEmpty ? r.columns.indices.filter { r.columns[$0].isPrimaryKey } : r.primaryKey
                }
                add("\(t.name)_\(c.name)_fkey", "f", [i], ref, refPrimary ?? [])
            }
        }
        return out
    }

    /// `pg_get_constraintdef(oid)`: each constraint as PostgreSQL prints it (`PRIMARY KEY
    /// (id)`, `UNIQUE (a, b)`, `FOREIGN KEY (venueid) REFERENCES venue(venueid)`; the
    /// referenced table schema-qualified when its schema is not on search_path).
    func constraintDefinitions() -> [(oid: Int64, definition: String)] {
        let path = session.map { $0.searchPathSchemas(transaction.catalog) + [$0.temporarySchema] } ?? [Catalog.publicSchema]
        func names(_ t: TableDef, _ cols: [Int]) -> String {
            cols.filter { $0 < t.columns.count }.map { Self.quotedIdentifier(t.columns[$0].name) }.joined(separator: ", ")
        }
        return constraints().map { c in
            switch c.kind {
            case "p": return (c.oid, "PRIMARY KEY (\(names(c.table, c.columns)))")
            case "u": return (c.oid, "UNIQUE (\(names(c.table, c.columns)))")
            default:
                var text = "FOREIGN KEY (\(names(c.table, c.columns))) REFERENCES "
                if let r = c.referenced {
                    let table = Self.quotedIdentifier(r.name)
                    text += (path.contains(r.schema) ? table : Self.quotedIdentifier(r.schema) + "." + table)
                    if !c.referencedColumns.isEmpty { text += "(\(names(r, c.referencedColumns)))" }
                } else {
                    text += "?"
                }
                return (c.oid, text)
            }
        }
    }

    /// `{1,2}`: a column list as PostgreSQL prints an int2[] (1-based column numbers).
    private static func arrayText(_ cols: [Int]) -> Value { .string("{" + cols.map { String($0 + 1) }.joined(separator: ",") + "}") }

    /// The system table `name` of this file, or nil.
    func pgCatalogTable(_ name: String) -> (TableDef, TableSnapshot)? {
        let nameType = DataType.varchar(128)
        switch name {
        case "pg_constraint":
            let all = constraints()
            let indexes = constraintIndexes(all)
            let own = Dictionary(indexes.map { ($0.constraint.oid, $0.oid) }, uniquingKeysWith: { a, _ in a })
            let rows = all.map { c -> [Value] in
                let fk = c.kind == "f"
                // conindid (PostgreSQL 9.0's, psql's `\\d` joins on it): a key's own index,
                // the referenced key's for a foreign key.
                let index = fk ? referencedIndex(c, indexes)?.oid ?? 0 : own[c.oid] ?? 0
                return [.int(c.oid), .string(c.name), .int(Self.schemaOID(c.table.schema)), .string(c.kind), .bool(false),
                        .bool(false), .int(Int64(c.table.id)), .int(0), .int(Int64(c.referenced?.id ?? 0)),
                        .string(fk ? "a" : " "), .string(fk ? "a" : " "), .string(fk ? "u" : " "), Self.arrayText(c.columns),
                        fk && !c.referencedColumns.isEmpty ? Self.arrayText(c.referencedColumns) : .null, .null, .null,
                        .int(index)]
            }
            return make(-62, name, [("oid", .integer), ("conname", nameType), ("connamespace", .integer), ("contype", .char(1)),
                                    ("condeferrable", .boolean), ("condeferred", .boolean), ("conrelid", .integer),
                                    ("contypid", .integer), ("confrelid", .integer), ("confupdtype", .char(1)),
                                    ("confdeltype", .char(1)), ("confmatchtype", .char(1)), ("conkey", .array(.smallint)),
                                    ("confkey", .array(.smallint)), ("conbin", .text), ("consrc", .text), ("conindid", .integer)], rows)
        case "pg_locks":
            // The lock manager's table locks (one exclusive lock per writing transaction,
            // held or waited for), then each open transaction's lock on its own id.
            var rows = database.store.locks.entries.map { e -> [Value] in
                [.int(Int64(e.table)), .int(databaseOID), .int(Int64(e.holder.transaction)), .int(Int64(e.holder.process)),
                 .string("AccessExclusiveLock"), .bool(e.granted)]
            }
            for s in database.openSessions {
                guard let t = s.openTransaction else { continue }
                rows.append([.null, .null, .int(Int64(t.id)), .int(Int64(s.process)), .string("ExclusiveLock"), .bool(true)])
            }
            return make(-63, name, [("relation", .integer), ("database", .integer), ("transaction", .bigint), ("pid", .integer),
                                    ("mode", .text), ("granted", .boolean)], rows)
        case "pg_stat_activity":
            // Every open session (PostgreSQL 8.0's columns): its statement running now, or
            // `<IDLE>`, and when that statement began.
            let security = transaction.catalog.security
            let rows = database.openSessions.map { s -> [Value] in
                let running = s.runningStatement
                return [.int(Int64(transaction.catalog.databaseDef(s.databaseName)?.id ?? 0)), .string(s.databaseName), .int(Int64(s.process)),
                        .int(Int64(security.user(s.user)?.id ?? 1)), .string(s.user),
                        .string(running.map { String($0.text.prefix(4000)) } ?? "<IDLE>"), running.map { .int($0.start) } ?? .null]
            }
            return make(-67, name, [("datid", .integer), ("datname", nameType), ("procpid", .integer), ("usesysid", .integer),
                                    ("usename", nameType), ("current_query", .varchar(4000)), ("query_start", .timestamp)], rows)
        case "pg_statistic":
            // What ANALYZE learned of each column (null share, distinct values).
            var rows: [[Value]] = []
            let own = session?.temporarySchema
            for t in transaction.catalog.allTables.sorted(by: { $0.id < $1.id }) where !t.isTemporary || t.schema == own {
                guard let analyzed = transaction.peek(t.id)?.analyzed else { continue }
                for (i, c) in t.columns.enumerated() {
                    guard let s = analyzed.columns[i] else { continue }
                    let width = c.type.width > 0 && !c.type.isString && !c.type.isDecimal ? c.type.width : -1
                    rows.append([.int(Int64(t.id)), .int(Int64(i + 1)), .double(s.nullFraction), .int(Int64(width)),
                                 .double(s.distinct.rounded()), .int(0), .int(0), .int(0), .int(0), .int(0), .int(0), .int(0),
                                 .int(0), .null, .null, .null, .null, .null, .null, .null, .null])
                }
            }
            return make(-64, name, [("starelid", .integer), ("staattnum", .smallint), ("stanullfrac", .real),
                                    ("stawidth", .integer), ("stadistinct", .real), ("stakind1", .smallint),
                                    ("stakind2", .smallint), ("stakind3", .smallint), ("stakind4", .smallint),
                                    ("staop1", .integer), ("staop2", .integer), ("staop3", .integer), ("staop4", .integer),
                                    ("stanumbers1", .text), ("stanumbers2", .text), ("stanumbers3", .text),
                                    ("stanumbers4", .text), ("stavalues1", .text), ("stavalues2", .text),
                                    ("stavalues3", .text), ("stavalues4", .text)], rows)
        case "pg_language":
            let rows = Self.languages.map { l -> [Value] in
                [.int(l.0), .string(l.1), .bool(l.2), .bool(l.3), .int(0), .int(0), .null]
            }
            return make(-65, name, [("oid", .integer), ("lanname", nameType), ("lanispl", .boolean), ("lanpltrusted", .boolean),
                                    ("lanplcallfoid", .integer), ("lanvalidator", .integer), ("lanacl", .text)], rows)
        case "pg_database_info":
            return make(-66, name, Array(Self.pgDatabaseColumns.dropFirst()) + [("datid", .integer), ("datconnlimit", .text)],
                        pgDatabaseRows.map { row in
                            let d = transaction.catalog.databaseDef(row[1].asString ?? "")
                            return Array(row.dropFirst()) + [row[0], .string(d?.connectionLimit.map(String.init) ?? "UNLIMITED")]
                        })
        case "pg_conf":
            // Redshift's undocumented key/value settings; `pg_class_backup_<db>_<table>`
            // keys mark BACKUP NO tables, which Slicehouse does not keep (every table is
            // backed up): no rows.
            return make(-130, name, [("key", .text), ("value", .text)], [])
        case "pg_default_acl":
            // ALTER DEFAULT PRIVILEGES (Redshift's columns, PostgreSQL's hidden oid first).
            return make(-211, name, [("oid", .integer), ("defacluser", .integer), ("defaclnamespace", .integer),
                                     ("defaclobjtype", .char(1)), ("defaclacl", Self.aclType)], defaultACLRows())
        case "pg_library":
            // User-defined libraries (CREATE LIBRARY, for Python UDFs): Slicehouse has none.
            return make(-129, name, [("name", .varchar(128)), ("language_oid", .integer), ("file_store_id", .integer),
                                     ("owner", .integer)], [])
        case "pg_index":
            // A PRIMARY KEY's or UNIQUE constraint's index (informational: nothing is built
            // or enforced). indkey is an int2vector's text (`1 3`); then PostgreSQL 8.2's
            // indisvalid, which psql's `\\d` reads.
            let rows = constraintIndexes(constraints()).map { i -> [Value] in
                let keys = i.constraint.columns.map { String($0 + 1) }
                return [.int(i.oid), .int(Int64(i.constraint.table.id)), .string(keys.joined(separator: " ")),
                        .string(Array(repeating: "0", count: keys.count).joined(separator: " ")), .int(Int64(keys.count)),
                        .bool(true), .bool(i.isPrimary), .bool(false), .null, .null, .bool(true)]
            }
            return make(-59, name, [("indexrelid", .integer), ("indrelid", .integer), ("indkey", .text), ("indclass", .text),
                                    ("indnatts", .smallint), ("indisunique", .boolean), ("indisprimary", .boolean),
                                    ("indisclustered", .boolean), ("indexprs", .text), ("indpred", .text),
                                    ("indisvalid", .boolean)], rows)
        case "pg_depend":
            var rows: [[Value]] = []
            func dep(_ classID: Int64, _ obj: Int64, _ refObj: Int64, _ refSub: Int, _ type: String,
                     refClass: Int64 = Self.pgClassOID) {
                rows.append([.int(classID), .int(obj), .int(0), .int(refClass), .int(refObj), .int(Int64(refSub)),
                             .string(type)])
            }
            for r in rules(bindingReads: true) {
                dep(Self.pgRewriteOID, r.oid, r.relation, 0, "i")
                for read in r.reads ?? [] {
                    switch read.object {
                    case .table(let t):
                        if read.columns.isEmpty { dep(Self.pgRewriteOID, r.oid, Int64(t.id), 0, "n") }
                        for c in read.columns { dep(Self.pgRewriteOID, r.oid, Int64(t.id), c + 1, "n") }
                    case .view(let v):
                        if let oid = viewOID(v) { dep(Self.pgRewriteOID, r.oid, oid, 0, "n") }
                    }
                }
            }
            let all = constraints()
            let indexes = constraintIndexes(all)
            // A key's index belongs to its constraint (internal); a foreign key depends on
            // the referenced key's index, as pgjdbc's getImportedKeys looks it up.
            for i in indexes { dep(Self.pgClassOID, i.oid, i.constraint.oid, 0, "i", refClass: Self.pgConstraintOID) }
            for c in all {
                if let i = referencedIndex(c, indexes) { dep(Self.pgConstraintOID, c.oid, i.oid, 0, "n") }
                for col in c.columns { dep(Self.pgConstraintOID, c.oid, Int64(c.table.id), col + 1, "a") }
                guard let ref = c.referenced else { continue }
                if c.referencedColumns.isEmpty { dep(Self.pgConstraintOID, c.oid, Int64(ref.id), 0, "n") }
                for col in c.referencedColumns { dep(Self.pgConstraintOID, c.oid, Int64(ref.id), col + 1, "n") }
            }
            return make(-60, name, [("classid", .integer), ("objid", .integer), ("objsubid", .integer),
                                    ("refclassid", .integer), ("refobjid", .integer), ("refobjsubid", .integer),
                                    ("deptype", .char(1))], rows)
        case "pg_inherits":
            // Table inheritance (psql's `\\d` asks for parents and children): none in Redshift.
            return make(-228, name, [("inhrelid", .integer), ("inhparent", .integer), ("inhseqno", .integer)], [])
        case "pg_trigger":
            // Redshift has no triggers; PostgreSQL 9.0's columns, which psql's `\\d` reads.
            return make(-229, name, [("oid", .integer), ("tgrelid", .integer), ("tgname", nameType), ("tgfoid", .integer),
                                     ("tgtype", .smallint), ("tgenabled", .char(1)), ("tgisinternal", .boolean),
                                     ("tgconstrrelid", .integer), ("tgconstrindid", .integer), ("tgconstraint", .integer),
                                     ("tgdeferrable", .boolean), ("tginitdeferred", .boolean), ("tgnargs", .smallint),
                                     ("tgattr", .text), ("tgargs", .text)], [])
        case "pg_rewrite":
            // Each view's and materialized view's `_RETURN` rule (ON SELECT DO INSTEAD).
            let rows = rules(bindingReads: false).map { r -> [Value] in
                [.int(r.oid), .string("_RETURN"), .int(r.relation), .int(-1), .string("1"), .bool(true), .string("<>"),
                 .string(r.queryText)]
            }
            return make(-61, name, [("oid", .integer), ("rulename", nameType), ("ev_class", .integer), ("ev_attr", .smallint),
                                    ("ev_type", .char(1)), ("is_instead", .boolean), ("ev_qual", .text),
                                    ("ev_action", .text)], rows)
        default:
            return nil
        }
    }

    /// pg_database's columns (PostgreSQL 8.0's, the oid first) and its one row.
    static let pgDatabaseColumns: [(String, DataType)] = [
        ("oid", .integer), ("datname", .varchar(128)), ("datdba", .integer), ("encoding", .integer), ("datistemplate", .boolean),
        ("datallowconn", .boolean), ("datlastsysoid", .integer), ("datvacuumxid", .bigint), ("datfrozenxid", .bigint),
        ("dattablespace", .integer), ("datconfig", .text), ("datacl", .text),
    ]
    /// One row a database of the cluster, its owner's user id in `datdba` (1, rdsdb's, for `dev`).
    var pgDatabaseRows: [[Value]] {
        let security = transaction.catalog.security
        return transaction.catalog.allDatabases.sorted { $0.id < $1.id }.map { d in
            [.int(Int64(d.id)), .string(d.name), .int(Int64(security.user(d.owner)?.id ?? 1)), .int(6), .bool(false), .bool(true),
             .int(Int64(Catalog.defaultDatabaseDef.id) - 1), .int(0), .int(0), .int(1663), .null, .null]
        }
    }

    /// One pg_class row (Redshift's columns; relukeys, relfkeys and relrefs are unused, as
    /// in PostgreSQL 8.0).
    /// One pg_class row. The last column, relpersistence ('p', or 't' for a temporary
    /// table), is PostgreSQL 9.1's, past Redshift's: SQLAlchemy 2's PostgreSQL reflection
    /// (pandas' to_sql with if_exists='replace') filters on it.
    func classRow(oid: Int64, name: String, schema: String, owner: Int64, fileNode: Int64, tuples: Double, kind: String,
                          columns: Int, distStyle: Int64, primaryKey: Bool, rules: Bool, acl: Value,
                          temporary: Bool = false, triggers: Bool = false) -> [Value] {
        [.int(oid), .string(name), .int(Self.schemaOID(schema)), .int(0), .int(owner), .int(0), .int(fileNode), .int(0),
         .int(0), .double(tuples), .int(0), .int(0), .bool(false), .bool(false), .string(kind), .int(Int64(columns)), .int(0),
         .bool(false), .bool(false), .int(distStyle), .int(0), .int(0), .int(0), .int(0), .int(0), .int(0), .bool(false),
         .bool(primaryKey), .bool(rules), .bool(false), acl, .string(temporary ? "t" : "p"), .bool(triggers), .int(0), .null]
    }

    /// Redshift's privilege letters in their bitmask order (PG_DEFAULT_ACL's page:
    /// `arwdRxtXUCTDPA`): INSERT, SELECT, UPDATE, DELETE, RULE, REFERENCES, TRIGGER,
    /// EXECUTE, USAGE, CREATE, TEMP, DROP, TRUNCATE, ALTER.
    static let aclLetterOrder: [Character] = Array("arwdRxtXUCTDPA")
    /// What an owner holds of each kind of object, as its ACL's first item prints it.
    static let ownerLettersRelation = "arwdRxtDPA", ownerLettersSchema = "UC", ownerLettersFunction = "X"

    /// The letters of `privileges` in Redshift's order, `*` after each grantable one. ALL
    /// on a table (every table privilege) carries RULE and TRIGGER too, as Redshift's does.
    static func aclLetters(_ privileges: Set<Privilege>, _ grantable: Set<Privilege>) -> String {
        var held: [Character: Bool] = [:]
        for p in privileges { held[p.aclLetter] = grantable.contains(p) }
        if Set(Privilege.table).isSubset(of: privileges) {
            let all = Set(Privilege.table).isSubset(of: grantable)
            held["R"] = all
            held["t"] = all
        }
        return aclLetterOrder.compactMap { c in held[c].map { $0 ? "\(c)*" : "\(c)" } }.joined()
    }

    /// A user or group name as an aclitem prints it: double-quoted (quotes doubled) unless
    /// it is letters, digits and underscores (PostgreSQL's `putid`).
    static func aclName(_ name: String) -> String {
        let safe = !name.isEmpty && name.unicodeScalars.allSatisfy { c in
            c.isASCII ? (c.properties.isAlphabetic || (c.value >= 48 && c.value <= 57) || c == "_") : c.properties.isAlphabetic
        }
        if safe { return name }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One aclitem's text: `grantee=letters/grantor`, `group g=...` / `role r=...` for a
    /// group or role, `=...` for PUBLIC.
    static func aclItem(_ grantee: Grantee, _ letters: String, grantor: String) -> String {
        let who: String
        switch grantee {
        case .user(let n): who = aclName(n)
        case .group(let n): who = "group " + aclName(n)
        case .role(let n): who = "role " + aclName(n)
        case .public: who = ""
        }
        return "\(who)=\(letters)/\(aclName(grantor))"
    }

    /// An aclitem[]'s text, as PostgreSQL's array output writes it.
    static func aclArray(_ items: [String]) -> String { ACLItem.arrayText(items) }

    /// An object's ACL as Redshift prints an aclitem[] (pg_class.relacl,
    /// pg_namespace.nspacl): NULL until a grant is made on it, then the owner's privileges
    /// and each grantee's table-level ones, `grantee=letters/grantor`.
    func aclText(_ object: SecuredObject, owner: String?, in security: Security? = nil) -> Value {
        let entries = (security ?? transaction.catalog.security).entries.filter { $0.object == object }
        guard !entries.isEmpty else { return .null }
        let ownerLetters: String
        if case .schema = object { ownerLetters = Self.ownerLettersSchema } else { ownerLetters = Self.ownerLettersRelation }
        var items: [String] = []
        if let owner { items.append(Self.aclItem(.user(owner), ownerLetters, grantor: owner)) }
        for e in entries where !e.privileges.isEmpty {
            items.append(Self.aclItem(e.grantee, Self.aclLetters(e.privileges, e.grantable), grantor: grantor(e, owner: owner)))
        }
        return .string(Self.aclArray(items))
    }

    /// Who an item names as its grantor: a superuser's grant on another user's object is
    /// recorded as the owner's, as PostgreSQL records it (`=UC/rdsdb` on schema public).
    func grantor(_ e: ACLEntry, owner: String?) -> String {
        guard let owner, owner != e.grantor, transaction.catalog.security.isSuperuser(e.grantor) else { return e.grantor }
        return owner
    }

    /// A column's ACL (PG_ATTRIBUTE_INFO.attacl): the column-level grants made on it
    /// (SELECT r, UPDATE w), NULL when there are none.
    func columnACLText(_ object: SecuredObject, column: String, owner: String?) -> Value {
        let name = column
        var items: [String] = []
        for e in transaction.catalog.security.entries where e.object == object {
            guard let privileges = e.columns[name], !privileges.isEmpty else { continue }
            items.append(Self.aclItem(e.grantee, Self.aclLetters(privileges, []), grantor: grantor(e, owner: owner)))
        }
        return items.isEmpty ? .null : .string(Self.aclArray(items))
    }

    /// A function's or procedure's ACL (pg_proc.proacl), EXECUTE being `X`. A SQL
    /// function's is NULL while EXECUTE is PUBLIC's by default (nobody granted or revoked
    /// it); a procedure's always names its owner (EXECUTE is the owner's alone until
    /// granted). Grants are recorded as the owner's, as PostgreSQL records a superuser's.
    func functionACLText(_ f: FunctionDef, owner: String) -> Value {
        let executors: [String]
        if let p = f.procedure {
            executors = p.executors ?? []
        } else {
            guard let e = f.executors else { return .null }
            executors = e
        }
        var items = [Self.aclItem(.user(owner), Self.ownerLettersFunction, grantor: owner)]
        for e in executors {
            let parts = e.split(separator: ":", maxSplits: 1).map(String.init)
            let grantee: Grantee
            switch (parts.first ?? "", parts.count == 2 ? parts[1] : "") {
            case ("public", _): grantee = .public
            case ("user", let n): grantee = .user(n)
            case ("group", let n): grantee = .group(n)
            case ("role", let n): grantee = .role(n)
            default: continue
            }
            if grantee == .user(owner) { continue }
            items.append(Self.aclItem(grantee, Self.ownerLettersFunction, grantor: owner))
        }
        return .string(Self.aclArray(items))
    }

    /// PG_DEFAULT_ACL's rows (ALTER DEFAULT PRIVILEGES, for tables: `defaclobjtype` r), one
    /// per user and schema (0 for none), the grantees' privileges granted by that user; a
    /// user-wide row (no schema) starts with the owner's own, which it stands in for.
    /// A user who is not a superuser sees only their own rows, as in Redshift.
    func defaultACLRows() -> [[Value]] {
        let sec = transaction.catalog.security
        var order: [String] = []
        var groups: [String: (owner: String, schema: String?, items: [String])] = [:]
        for d in sec.defaultPrivileges where !d.privileges.isEmpty {
            let key = d.owner.lowercased() + "\u{0}" + (d.schema?.lowercased() ?? "")
            if groups[key] == nil {
                order.append(key)
                let own = d.schema == nil ? [Self.aclItem(.user(d.owner), Self.ownerLettersRelation, grantor: d.owner)] : []
                groups[key] = (d.owner, d.schema?.lowercased(), own)
            }
            groups[key]?.items.append(Self.aclItem(d.grantee, Self.aclLetters(d.privileges, d.grantable), grantor: d.owner))
        }
        let me = session.map { $0.user }
        let everything = me.map { sec.isSuperuser($0) } ?? true
        var rows: [[Value]] = []
        for (i, key) in order.enumerated() {
            guard let g = groups[key] else { continue }
            if !everything, g.owner.lowercased() != me?.lowercased() { continue }
            rows.append([.int(Self.defaultACLOIDBase + Int64(i)), .int(userOID(g.owner)),
                         .int(g.schema.map { Self.schemaOID($0) } ?? 0), .string("r"), .string(Self.aclArray(g.items))])
        }
        return rows
    }

    /// The type of the aclitem[] columns: their text (PostgreSQL's array output), as long
    /// as a VARCHAR can be.
    static let aclType = DataType.varchar(DataType.maxVarcharLength)

    /// PG_DEFAULT_ACL's row oids: this + the row's position.
    static let defaultACLOIDBase: Int64 = 940_000_000

    /// pg_attribute.attencodingtype of an encoding: 0 for RAW ("none"), then Slicehouse's
    /// numbering of the others (see docs/DIFFERENCES.md), the positions of
    /// `Binder.encodingNames` (what `format_encoding` answers).
    static func encodingCode(_ e: ColumnEncoding) -> Int64 {
        Int64(Binder.encodingNames.firstIndex(of: e == .raw ? "none" : e.sqlName) ?? 0)
    }
}
