// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution
import SlicehousePlan
import SlicehousePlanner

/// The commands that define tables, views and schemas: CREATE TABLE (and CREATE TABLE AS,
/// SELECT INTO, CREATE MATERIALIZED VIEW's table), DROP TABLE, CREATE / DROP VIEW, CREATE /
/// DROP SCHEMA and ALTER TABLE / VIEW / SCHEMA (`DDLCommand+AlterTable.swift` has the
/// actions that change a table's columns or layout). It receives the session (names,
/// privileges, the transaction) and the statement's runtime context (a CTAS's query and
/// rows, a rebuilt table's rows, run in it).
struct DDLCommand {
    let session: Session
    let context: QueryContext

    func createTable(_ c: CreateTable) throws -> StatementResult {
        let writer = TableWriter(session: session, context: context)
        let qualified = try session.creationName(c.name, temporary: c.temporary, in: session.transaction.catalog)
        let name = qualified.name
        try session.checkIdentifier(name)
        if SystemTables.names.contains(name) {
            throw SQLError(.duplicateTable, "relation \"\(name)\" already exists")
        }
        if session.transaction.catalog.hasRelation(qualified) {
            if c.ifNotExists {
                return StatementResult(tag: "CREATE TABLE", notices: ["relation \"\(name)\" already exists, skipping"])
            }
            throw SQLError(.duplicateTable, "relation \"\(name)\" already exists")
        }
        var columns: [ColumnDef] = []
        var distKey: Int? = nil
        var sortKey: [Int] = []
        var primaryKey: [Int] = []
        var uniqueKeys: [[Int]] = []
        var ctasRows: ([ResultColumn], [Chunk])? = nil
        var inheritedDist: DistStyle? = nil
        var inheritedSortKind: SortKeyKind = .compound
        var materialized: MaterializedViewDef? = nil
        var queryContext: StatementContext? = nil

        func index(_ col: String) throws -> Int {
            guard let i = columns.firstIndex(where: { $0.name == col }) else {
                throw SQLError(.undefinedColumn, "column \"\(col)\" named in key does not exist")
            }
            return i
        }

        switch c.source {
        case .elements(let defs, let constraints):
            guard !defs.isEmpty else { throw SQLError(.syntax, "a table needs at least one column") }
            guard defs.count <= Session.maxColumns else {
                throw SQLError(.invalidParameter, "tables can have at most \(Session.maxColumns) columns")
            }
            for d in defs {
                try session.checkIdentifier(d.name)
                if columns.contains(where: { $0.name == d.name }) {
                    throw SQLError(.duplicateColumn, "column \"\(d.name)\" specified more than once",
                                   line: d.location.line, column: d.location.column)
                }
                var col = ColumnDef(name: d.name, type: d.type, notNull: d.notNull || d.primaryKey,
                                    encoding: d.encoding, isPrimaryKey: d.primaryKey, isUnique: d.unique,
                                    references: d.references.map(Self.referenceText))
                if let id = d.identity {
                    guard d.type == .integer || d.type == .bigint || d.type == .smallint else {
                        throw SQLError(.datatypeMismatch, "IDENTITY column \"\(d.name)\" must be SMALLINT, INTEGER or BIGINT")
                    }
                    guard d.defaultValue == nil else {
                        throw SQLError(.syntax, "column \"\(d.name)\" cannot have both IDENTITY and DEFAULT")
                    }
                    guard id.step != 0 else { throw SQLError(.invalidParameter, "IDENTITY step cannot be 0") }
                    col.identity = (id.seed, id.step)
                }
                if let dv = d.defaultValue {
                    let text = dv.description
                    _ = try session.bindStandalone(text, type: d.type)   // must bind and cast now
                    col.defaultSQL = text
                }
                if let enc = d.encoding { try checkEncoding(enc, d.type) }
                columns.append(col)
                if d.distKey {
                    if distKey != nil { throw SQLError(.syntax, "only one column can be the DISTKEY") }
                    distKey = columns.count - 1
                }
                if d.sortKey { sortKey.append(columns.count - 1) }
                if d.primaryKey { primaryKey = [columns.count - 1] }
                if d.unique { uniqueKeys.append([columns.count - 1]) }
            }
            for con in constraints {
                switch con.kind {
                case .primaryKey(let cols):
                    guard primaryKey.isEmpty else { throw SQLError(.syntax, "multiple primary keys for table \"\(name)\" are not allowed") }
                    primaryKey = try cols.map(index)
                    for i in primaryKey { columns[i].notNull = true; columns[i].isPrimaryKey = true }
                case .unique(let cols):
                    uniqueKeys.append(try cols.map(index))
                case .foreignKey(let cols, _):
                    _ = try cols.map(index)
                }
            }
        case .like(let like):
            guard let parent = try session.resolveTable(like.parent) else {
                throw SQLError(.undefinedTable, "relation \"\(like.parent.description)\" does not exist")
            }
            columns = parent.columns.map { col in
                var c = col
                if !like.includingDefaults { c.defaultSQL = nil }
                return c
            }
            distKey = parent.distKey
            sortKey = parent.sortKey
            inheritedDist = parent.distStyle
            inheritedSortKind = parent.sortKeyKind
        case .query(let names, let q):
            let ctx = StatementContext(database: session.database, session: session)
            let (cols, chunks) = try QueryRunner(session, ctx, context).run(q)
            queryContext = ctx
            if let options = c.materialized { materialized = try MaterializedViews(session).materializedViewDef(options, c, context: ctx) }
            guard names.isEmpty || names.count == cols.count else {
                throw SQLError(.syntax, "CREATE TABLE AS specifies \(names.count) column names, but the query returns \(cols.count)")
            }
            for (i, rc) in cols.enumerated() {
                let n = (names.isEmpty ? rc.name : names[i])
                if columns.contains(where: { $0.name == n }) {
                    throw SQLError(.duplicateColumn, "column \"\(n)\" specified more than once")
                }
                // The catalog's arrays are the leader's: no table column has one (Redshift's wording).
                if rc.type.isArray {
                    throw SQLError(.featureNotSupported, "Column \"\(n)\" has unsupported type \"\(rc.type.sqlName)\".")
                }
                columns.append(ColumnDef(name: n, type: rc.type == .unknown ? .text : rc.type))
            }
            ctasRows = (cols, chunks)
        }

        // Table attributes.
        let attrs = c.attributes
        if let dk = attrs.distKey {
            if let distKey, columns[distKey].name != dk {
                throw SQLError(.syntax, "a table can have only one DISTKEY")
            }
            distKey = try index(dk)
        }
        var style: DistStyle = inheritedDist ?? .auto
        if let ds = attrs.distStyle {
            style = DistStyle(rawValue: ds.rawValue) ?? .auto
            if style != .key && distKey != nil {
                throw SQLError(.syntax, "DISTSTYLE \(style.rawValue) cannot be used with a DISTKEY")
            }
            if style == .key && distKey == nil {
                throw SQLError(.syntax, "DISTSTYLE KEY requires a DISTKEY column")
            }
        } else if distKey != nil {
            style = .key
        }
        var sortKind = inheritedSortKind
        if let sk = attrs.sortKey {
            if !sortKey.isEmpty && inheritedDist == nil {
                throw SQLError(.syntax, "SORTKEY cannot be given both as a column attribute and a table attribute")
            }
            switch sk {
            case .auto: sortKey = []
            case .compound(let cols): sortKey = try cols.map(index); sortKind = .compound
            case .interleaved(let cols): sortKey = try cols.map(index); sortKind = .interleaved
            }
        }
        if sortKind == .interleaved && sortKey.count > 8 {
            throw SQLError(.invalidParameter, "an INTERLEAVED SORTKEY can have at most 8 columns")
        }
        if sortKey.count > 400 { throw SQLError(.invalidParameter, "a COMPOUND SORTKEY can have at most 400 columns") }
        if Set(sortKey).count != sortKey.count { throw SQLError(.syntax, "a column appears twice in the SORTKEY") }

        let def = TableDef(id: 0, schema: qualified.schema, name: name, columns: columns, distStyle: style, distKey: distKey, sortKey: sortKey,
                           sortKeyKind: sortKind, isTemporary: c.temporary, primaryKey: primaryKey, uniqueKeys: uniqueKeys,
                           materializedView: materialized)
        if !def.isTemporary { try session.access.requireCreate(inSchema: def.schema) }   // TEMP: every user may
        let created = try session.transaction.createTable(def)
        let owner = session.user, schema = def.schema
        try session.transaction.changeSecurity(SecurityChange { $0.created(.table(created.id), schema: schema, owner: owner) })
        if let (_, chunks) = ctasRows {
            let full = try writer.completeRows(created, targets: Array(0..<columns.count), provided: chunks)
            try writer.append(full, to: created)
            let n = chunks.reduce(0) { $0 + $1.count }
            // A CTAS writes its rows through an insert step, as Redshift logs it (STL_INSERT,
            // SYS_QUERY_DETAIL: dbt's source freshness reads a table's last insert there).
            session.database.logInserts(query: session.statementQueryID, userID: session.currentUserID, table: created.id,
                                        before: nil, after: session.transaction.peek(created.id),
                                        start: session.runningStatement?.start)
            if materialized != nil, let ctx = queryContext, var snap = session.transaction.peek(created.id) {
                // Where the base tables stood: the first REFRESH folds in what is appended after.
                snap.refreshState = MaterializedViews(session).refreshState(ctx, excluding: created.id,
                                                 meaning: materialized.flatMap { MaterializedViews(session).materializedViewMeaning($0) })
                session.transaction.stage(created.id, snap)
                return StatementResult(tag: "CREATE MATERIALIZED VIEW")
            }
            return StatementResult(tag: "SELECT \(n)")
        }
        return StatementResult(tag: "CREATE TABLE")
    }

    /// ENCODE as written: a known encoding that Redshift allows for the column's type.
    func checkEncoding(_ enc: String, _ type: DataType) throws {
        if enc.lowercased() == "auto" { return }
        guard let e = ColumnEncoding(sqlName: enc) else {
            throw SQLError(.invalidParameter, "invalid encoding type \"\(enc)\"")
        }
        if !BlockEncoder.isAllowed(e, for: type) {
            throw SQLError(.invalidParameter, "invalid encoding type \"\(enc)\" for column type \(type.sqlName)")
        }
    }

    func dropTables(_ d: DropStatement) throws -> StatementResult {
        var notices: [String] = []
        for n in d.names {
            if !d.materialized, let external = try ExternalCommand(session: session, context: context).dropTableIfExternal(n, ifExists: d.ifExists) {
                notices += external
                continue
            }
            guard let def = try session.resolveTable(n) else {
                if d.ifExists {
                    notices.append("NOTICE:  table \"\(n.name)\" does not exist, skipping")
                    continue
                }
                if try session.resolveView(n) != nil {
                    throw SQLError(.invalidParameter, "\"\(n.name.lowercased())\" is not a table",
                                   hint: "Use DROP VIEW to remove a view.")
                }
                throw SQLError(.undefinedTable, "table \"\(n.name.lowercased())\" does not exist")
            }
            if d.materialized != (def.materializedView != nil) {
                throw SQLError(.wrongObjectType, d.materialized ? "\"\(def.name)\" is not a materialized view"
                               : "\"\(def.name)\" is a materialized view",
                               hint: d.materialized ? "Use DROP TABLE to remove a table." : "Use DROP MATERIALIZED VIEW to remove it.")
            }
            try session.access.requireOwner(of: def, or: .drop)
            // Views that read the table hold it back (RESTRICT) or go with it (CASCADE).
            let views = try dependentViews(table: def.id)
            if !views.isEmpty && !d.cascade {
                throw SQLError(.dependentObjectsStillExist, "cannot drop table \(def.name) because other objects depend on it",
                               hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            notices += try cascadeToViews(views)
            try session.transaction.dropTable(def.qualifiedName)
        }
        return StatementResult(tag: d.materialized ? "DROP MATERIALIZED VIEW" : "DROP TABLE", notices: notices)
    }

    func dropViews(_ d: DropStatement) throws -> StatementResult {
        var notices: [String] = []
        for n in d.names {
            guard let v = try session.resolveView(n) else {
                if d.ifExists {
                    notices.append("NOTICE:  view \"\(n.name)\" does not exist, skipping")
                    continue
                }
                if try session.resolveTable(n) != nil {
                    throw SQLError(.invalidParameter, "\"\(n.name.lowercased())\" is not a view",
                                   hint: "Use DROP TABLE to remove a table.")
                }
                throw SQLError(.undefinedTable, "view \"\(n.name.lowercased())\" does not exist")
            }
            let object = SecuredObject.view(schema: v.schema, name: v.name)
            if !session.isSuperuser, session.security.owner(object) != session.user, !session.security.granted(to: session.user, on: object).table.contains(.drop) {
                throw SQLError(.insufficientPrivilege, "must be owner of relation \(v.name)")
            }
            let views = try dependentViews(view: v.qualifiedName)
            if !views.isEmpty && !d.cascade {
                throw SQLError(.dependentObjectsStillExist, "cannot drop view \(v.name) because other objects depend on it",
                               hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            notices += try cascadeToViews(views)
            if session.transaction.catalog.view(v.qualifiedName) != nil { try session.transaction.dropView(v.qualifiedName) }
        }
        return StatementResult(tag: "DROP VIEW", notices: notices)
    }

    /// `CREATE [OR REPLACE] VIEW v [(cols)] AS query`: the query must bind now; its text is
    /// stored and bound again wherever the view is used.
    func createView(_ v: CreateView) throws -> StatementResult {
        let qualified = try session.creationName(v.name, in: session.transaction.catalog)
        let name = qualified.name
        try session.checkIdentifier(name)
        if SystemTables.names.contains(name) { throw SQLError(.duplicateTable, "relation \"\(name)\" already exists") }
        let path = session.searchPathSchemas(session.transaction.catalog)
        let ctx = StatementContext(database: session.database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = path
        binder.requireQualifiedNames = v.withNoSchemaBinding
        let outs: [PlanColumn]
        do {
            outs = try binder.bind(query: v.query).outputs
        } catch let e as SQLError where v.withNoSchemaBinding && (e.code == .undefinedTable || e.code == .undefinedColumn) {
            // A late-binding view is bound when it is used: the relations it reads may
            // not exist yet (Redshift).
            try registerView(ViewDef(schema: qualified.schema, name: name, columns: v.columns,
                                     queryText: v.queryText, searchPath: path, lateBinding: true,
                                     caseSensitiveIdentifiers: session.parseOptions.caseSensitiveIdentifiers),
                             orReplace: v.orReplace)
            return StatementResult(tag: "CREATE VIEW")
        }
        if !v.columns.isEmpty && v.columns.count != outs.count {
            throw SQLError(.syntax, "CREATE VIEW specifies \(v.columns.count) column names, but the query returns \(outs.count)")
        }
        var seen = Set<String>()
        for n in (v.columns.isEmpty ? outs.map { $0.name } : v.columns) where !seen.insert(n).inserted {
            throw SQLError(.duplicateColumn, "column \"\(n)\" specified more than once")
        }
        try registerView(ViewDef(schema: qualified.schema, name: name, columns: v.columns,
                                 queryText: v.queryText, searchPath: path, lateBinding: v.withNoSchemaBinding,
                                 caseSensitiveIdentifiers: session.parseOptions.caseSensitiveIdentifiers),
                         orReplace: v.orReplace)
        return StatementResult(tag: "CREATE VIEW")
    }

    /// Create (or replace) a view the current user will own: CREATE on its schema; only
    /// its owner (or a superuser) may replace it.
    private func registerView(_ view: ViewDef, orReplace: Bool) throws {
        try session.access.requireCreate(inSchema: view.schema)
        let object = SecuredObject.view(schema: view.schema, name: view.name)
        let replacing = session.transaction.catalog.view(view.qualifiedName) != nil
        if orReplace, replacing, !session.isSuperuser, session.security.owner(object) != session.user {
            throw SQLError(.insufficientPrivilege, "must be owner of relation \(view.name)")
        }
        try session.transaction.createView(view, orReplace: orReplace)
        if !replacing {
            let owner = session.user, schema = view.schema
            try session.transaction.changeSecurity(SecurityChange { $0.created(object, schema: schema, owner: owner) })
        }
    }

    /// `TRUNCATE t`: the table emptied in the statement's transaction (Redshift commits an
    /// open block first: `Session.runInTransaction`).
    func truncate(_ name: ObjectName) throws -> StatementResult {
        let def = try session.lockedTable(name)
        try session.access.requireOwner(of: def, or: .truncate)
        let (_, base) = try session.transaction.beginWrite(def.qualifiedName, reads: false)
        var empty = TableSnapshot.empty(layout: session.database.layout, columnCount: def.columns.count,
                                        distStyle: def.distStyle, distKey: def.distKey)
        // Rows appended after this are not rows appended after the old ones.
        empty.reorganizations = base.reorganizations + 1
        session.transaction.stage(def.id, empty)
        return StatementResult(tag: "TRUNCATE TABLE")
    }
}

extension DDLCommand {
    /// What a column keeps of its REFERENCES target: the table's name, schema-qualified
    /// when written so (`sales.orders`), so a key into another schema is found again.
    static func referenceText(_ target: ForeignKeyTarget) -> String {
        target.table.schema.map { "\($0).\(target.table.name)" } ?? target.table.name
    }

    /// CREATE SCHEMA, DROP SCHEMA, ALTER TABLE / VIEW.
    func schemaStatement(_ statement: Statement) throws -> StatementResult {
        switch statement {
        case .createSchema(let c): return try createSchema(c)
        case .dropSchema(let d): return try dropSchemas(d)
        case .alterSchema(let a): return try alterSchema(a)
        case .alterTable(let a): return try alterTable(a)
        default: throw SQLError.internalError("not a schema statement")
        }
    }

    /// Refuse a name no new schema may have; whether a schema of that name exists already.
    static func checkNewSchemaName(_ name: String, _ session: Session) throws -> Bool {
        try session.checkIdentifier(name)
        if name.hasPrefix("pg_") {
            throw SQLError(.invalidParameter, "unacceptable schema name \"\(name)\"",
                           detail: "The prefix \"pg_\" is reserved for system schemas.")
        }
        return session.transaction.catalog.schema(name) != nil || Catalog.systemSchemas.contains(name)
    }

    func createSchema(_ c: CreateSchema) throws -> StatementResult {
        let name = c.name
        if try Self.checkNewSchemaName(name, session) {
            if c.ifNotExists {
                return StatementResult(tag: "CREATE SCHEMA", notices: ["NOTICE:  Schema \"\(name)\" already exists, skipping"])
            }
            throw SQLError(.duplicateSchema, "Schema \"\(name)\" already exists")
        }
        let owner = (c.authorization ?? session.user).lowercased()
        if owner != session.user {
            guard session.isSuperuser else { throw SQLError(.insufficientPrivilege, "must be superuser to create a schema for another user") }
            guard session.security.user(owner) != nil else { throw SQLError(.undefinedObject, "user \"\(owner)\" does not exist") }
        }
        try session.transaction.createSchema(SchemaDef(name: name, owner: owner))
        return StatementResult(tag: "CREATE SCHEMA")
    }

    func dropSchemas(_ d: DropSchema) throws -> StatementResult {
        var notices: [String] = []
        for raw in d.names {
            let name = raw
            // `public` may be dropped like any schema (as in Redshift); the system ones not.
            if Catalog.systemSchemas.contains(name) || Catalog.isTemporarySchema(name) {
                throw SQLError(.insufficientPrivilege, "cannot drop schema \(name) because it is required by the database system")
            }
            guard session.transaction.catalog.schema(name) != nil else {
                if d.ifExists {
                    notices.append("NOTICE:  Schema \"\(name)\" does not exist, skipping")
                    continue
                }
                throw SQLError(.invalidSchemaName, "Schema \"\(name)\" does not exist")
            }
            if !session.isSuperuser && session.transaction.catalog.schema(name)?.owner != session.user {
                throw SQLError(.insufficientPrivilege, "must be owner of schema \(name)")
            }
            if let schema = session.transaction.catalog.schema(name), let external = schema.external {
                notices += try ExternalCommand(session: session, context: context).dropSchema(schema, external, d)
            }
            let (tables, views) = session.transaction.catalog.objects(inSchema: name)
            // SQL functions and stored procedures in the schema go with it too.
            let routines = session.transaction.catalog.functions.values.filter { $0.schema == name }
            if !tables.isEmpty || !views.isEmpty || !routines.isEmpty {
                guard d.cascade else {
                    throw SQLError(.dependentObjectsStillExist, "cannot drop schema \(name) because other objects depend on it",
                                   hint: "Use DROP ... CASCADE to drop the dependent objects too.")
                }
                for v in views { try session.transaction.dropView(v.qualifiedName) }
                for t in tables { try session.transaction.dropTable(t.qualifiedName) }
                for f in routines { try session.transaction.dropFunction(f.key) }
                let n = tables.count + views.count + routines.count
                notices.append("NOTICE:  drop cascades to \(n) other object\(n == 1 ? "" : "s")")
            }
            try session.transaction.dropSchema(name)
        }
        return StatementResult(tag: "DROP SCHEMA", notices: notices)
    }

    func alterTable(_ a: AlterTable) throws -> StatementResult {
        let tag = a.isView ? "ALTER VIEW" : "ALTER TABLE"
        if !a.isView, !a.isMaterializedView, let done = try ExternalCommand(session: session, context: context).alterIfExternal(a) {
            return done
        }
        var notices: [String] = []
        let found = try session.lookup(a.name, in: session.transaction.catalog)
        switch found {
        case .table(let t):
            if a.isView { throw SQLError(.invalidParameter, "\"\(t.name)\" is not a view") }
            if case .owner(let u) = a.action { return try SecurityCommand(session: session).run(.alterOwner(.tables([a.name]), to: u.lowercased())) }
            try session.access.requireOwner(of: t, or: .alter)
            if a.isMaterializedView && t.materializedView == nil {
                throw SQLError(.wrongObjectType, "\"\(t.name)\" is not a materialized view")
            }
            if case .autoRefresh(let on) = a.action {
                guard var mv = t.materializedView else {
                    throw SQLError(.wrongObjectType, "\"\(t.name)\" is not a materialized view")
                }
                mv.autoRefresh = on
                var redefined = t
                redefined.materializedView = mv
                try session.transaction.redefineTable(t.qualifiedName, as: redefined)
                return StatementResult(tag: "ALTER MATERIALIZED VIEW")
            }
            if t.materializedView != nil {
                // A materialized view's columns are its query's: only its name, schema and layout change.
                switch a.action {
                case .rename, .setSchema, .alterDistribution, .alterSortKey: break
                default:
                    throw SQLError(.wrongObjectType, "cannot change the columns of materialized view \"\(t.name)\"",
                                   hint: "Drop it and create it with another query.")
                }
            }
            switch a.action {
            case .rename(let new):
                try session.checkIdentifier(new)
                let target = QualifiedName(schema: t.schema, name: new)
                if session.transaction.catalog.hasRelation(target) {
                    throw SQLError(.duplicateTable, "relation \"\(target.name)\" already exists")
                }
                let renamed = Renamed.table(id: t.id, from: t.qualifiedName, to: target)
                let followers = renameFollowers(of: renamed)
                try session.transaction.renameTable(t.qualifiedName, to: target)
                try follow(renamed, followers)
            case .setSchema(let s):
                let schema = session.schemaNamed(s)
                guard session.transaction.catalog.schema(schema) != nil else {
                    throw SQLError(.invalidSchemaName, "schema \"\(s)\" does not exist")
                }
                try moveTable(t, toSchema: schema)
            case .renameColumn(let old, let new):
                guard let i = t.columnIndex(old) else {
                    throw SQLError(.undefinedColumn, "column \"\(old)\" does not exist")
                }
                let n = new
                try session.checkIdentifier(n)
                if t.columnIndex(n) != nil {
                    throw SQLError(.duplicateColumn, "column \"\(n)\" of relation \"\(t.name)\" already exists")
                }
                var redefined = t
                redefined.columns[i].name = n
                let renamed = Renamed.column(table: t.id, column: i, from: t.columns[i].name, to: n)
                let followers = renameFollowers(of: renamed)
                try session.transaction.redefineTable(t.qualifiedName, as: redefined)
                try follow(renamed, followers)
            case .owner:
                break
            default:
                notices = try alterTableLayout(t, a.action)
            }
        case .view(let v):
            if case .owner(let u) = a.action { return try SecurityCommand(session: session).run(.alterOwner(.tables([a.name]), to: u.lowercased())) }
            let object = SecuredObject.view(schema: v.schema, name: v.name)
            let owner = session.security.owner(object)
            if !session.isSuperuser, owner != session.user, !session.security.granted(to: session.user, on: object).table.contains(.alter) {
                throw SQLError(.insufficientPrivilege, "must be owner of relation \(v.name)")
            }
            switch a.action {
            case .rename(let new):
                try session.checkIdentifier(new)
                var renamed = v
                renamed.name = new
                if session.transaction.catalog.hasRelation(renamed.qualifiedName) {
                    throw SQLError(.duplicateTable, "relation \"\(renamed.name)\" already exists")
                }
                try renameView(v, to: renamed)
            case .setSchema(let s):
                let schema = session.schemaNamed(s)
                guard session.transaction.catalog.schema(schema) != nil else {
                    throw SQLError(.invalidSchemaName, "schema \"\(s)\" does not exist")
                }
                var moved = v
                moved.schema = schema
                if session.transaction.catalog.hasRelation(moved.qualifiedName) {
                    throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists in schema \"\(schema)\"")
                }
                try renameView(v, to: moved)
            case .renameColumn(let old, let new):
                throw SQLError(.featureNotSupported, "renaming column \"\(old)\" of a view to \"\(new)\" is not supported")
            case .owner:
                break
            default:
                throw SQLError(.syntax, "this ALTER TABLE action applies to tables, and \"\(v.name)\" is a view")
            }
        case .system:
            throw SQLError(.insufficientPrivilege, "permission denied: \"\(a.name.name)\" is a system catalog")
        case nil:
            throw SQLError(.undefinedTable, "relation \"\(a.name.description)\" does not exist")
        }
        return StatementResult(tag: tag, notices: notices)
    }

    /// ALTER TABLE ... SET SCHEMA: the same table in `schema`, the views that read it following.
    func moveTable(_ t: TableDef, toSchema schema: String) throws {
        let target = QualifiedName(schema: schema, name: t.name)
        if session.transaction.catalog.hasRelation(target) {
            throw SQLError(.duplicateTable, "relation \"\(t.name)\" already exists in schema \"\(schema)\"")
        }
        let renamed = Renamed.table(id: t.id, from: t.qualifiedName, to: target)
        let followers = renameFollowers(of: renamed)
        try session.transaction.renameTable(t.qualifiedName, to: target)
        try follow(renamed, followers)
    }

    /// A view renamed or moved: dropped and created again under its new name, with its
    /// owner, grants and comments, and the views that read it rewritten to follow it.
    func renameView(_ v: ViewDef, to new: ViewDef) throws {
        let renamed = Renamed.view(v.qualifiedName, to: new.qualifiedName)
        let followers = renameFollowers(of: renamed)
        let comments = session.transaction.catalog.comments
        let oldObject = SecuredObject.view(schema: v.schema, name: v.name)
        let newObject = SecuredObject.view(schema: new.schema, name: new.name)
        try session.transaction.changeSecurity(SecurityChange { $0.rename(oldObject, to: newObject) })
        try session.transaction.dropView(v.qualifiedName)
        try session.transaction.createView(new, orReplace: false)
        if let text = comments[CommentKey.view(v.qualifiedName)] {
            try session.transaction.setComment(CommentKey.view(new.qualifiedName), text)
        }
        let columns = String(CommentKey.viewColumn(v.qualifiedName, 0).dropLast())
        for (key, text) in comments.sorted(by: { $0.key < $1.key }) where key.hasPrefix(columns) {
            guard let i = Int(key.dropFirst(columns.count)) else { continue }
            try session.transaction.setComment(CommentKey.viewColumn(new.qualifiedName, i), text)
        }
        try follow(renamed, followers)
    }
}
