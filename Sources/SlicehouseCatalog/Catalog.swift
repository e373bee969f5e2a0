// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A schema (namespace) of the database: its name and its owner.
public struct SchemaDef: Sendable, Equatable, Codable {
    public var name: String
    /// The user who created it (or was named in `AUTHORIZATION`).
    public var owner: String
    /// Set for an external schema (`CREATE EXTERNAL SCHEMA`): where its tables are catalogued.
    public var external: ExternalSchemaDef?
    public init(name: String, owner: String, external: ExternalSchemaDef? = nil) {
        self.name = name; self.owner = owner; self.external = external
    }
}

/// An external schema: a database of an external catalog, and how it is reached. Its tables
/// are the catalog's, read when a statement names them (nothing of them is kept here).
public struct ExternalSchemaDef: Sendable, Equatable, Codable {
    public enum Catalog: String, Sendable, Equatable, Codable {
        /// The AWS Glue Data Catalog (its endpoint from the server's settings or environment).
        case glue
        /// The catalog kept in the data directory (`lake/`), for use without AWS.
        case directory
    }
    /// The catalog's database (`DATABASE 'db'`).
    public var database: String
    public var catalog: Catalog
    public var region: String?
    /// `IAM_ROLE` as written (`default`, or role ARNs): how the schema's tables and files are read.
    public var iamRole: String?
    public init(database: String, catalog: Catalog, region: String? = nil, iamRole: String? = nil) {
        self.database = database; self.catalog = catalog; self.region = region; self.iamRole = iamRole
    }
}

/// A relation's name within the database: schema and name, as the parser gave them
/// (lower case unless quoted with enable_case_sensitive_identifier on).
public struct QualifiedName: Sendable, Hashable, CustomStringConvertible {
    public var schema: String
    public var name: String
    public init(schema: String, name: String) { self.schema = schema; self.name = name }
    public var description: String { "\(schema).\(name)" }
}

/// A database of the cluster (`CREATE DATABASE`): what pg_database and
/// SVV_REDSHIFT_DATABASES list. Its objects are in `Catalog`.
public struct DatabaseDef: Sendable, Equatable, Codable {
    public var name: String
    /// Its oid (pg_database).
    public var id: Int
    public var owner: String
    /// `CONNECTION LIMIT n` (nil: UNLIMITED).
    public var connectionLimit: Int?
    /// `COLLATE CASE_INSENSITIVE` (kept and shown; names and values still compare as written).
    public var caseInsensitive: Bool?
    /// `ISOLATION LEVEL SNAPSHOT` (kept and shown; every database is serializable).
    public var snapshotIsolation: Bool?
    public init(name: String, id: Int, owner: String, connectionLimit: Int? = nil) {
        self.name = name; self.id = id; self.owner = owner; self.connectionLimit = connectionLimit
    }
}

/// One database's objects (`Catalog` shows one database's at a time).
public struct ObjectSpace: Sendable, Equatable {
    var schemas: [String: SchemaDef]
    var tables: [QualifiedName: TableDef] = [:]
    var views: [QualifiedName: ViewDef] = [:]
    var comments: [String: String] = [:]
    var functions: [String: FunctionDef] = [:]

    /// A new database's: only `public`, owned by `owner`.
    static func initial(owner: String) -> ObjectSpace {
        ObjectSpace(schemas: [Catalog.publicSchema: SchemaDef(name: Catalog.publicSchema, owner: owner)])
    }

    /// What a data directory keeps of a database other than the default one (its tables
    /// are kept with the others, each naming its database).
    public struct Saved: Sendable, Equatable {
        public var database: DatabaseDef
        public var schemas: [SchemaDef]
        public var views: [ViewDef]
        public var comments: [String: String]
        public var functions: [FunctionDef]
        public init(database: DatabaseDef, schemas: [SchemaDef], views: [ViewDef], comments: [String: String],
                    functions: [FunctionDef]) {
            self.database = database; self.schemas = schemas; self.views = views; self.comments = comments
            self.functions = functions
        }
    }
}

/// The catalog: databases, their schemas, and table and view definitions by (schema,
/// name), as one value.
///
/// The value shows one database's objects (`database`, chosen with `use(database:)`):
/// every lookup below is in that database, as a session connected to it sees it. The
/// other databases' objects wait in `elsewhere`; users and table ids are the cluster's.
///
/// A transaction works on its own copy (the catalog of its snapshot with its own
/// changes applied); a commit replays the transaction's `CatalogChange`s onto the
/// latest committed catalog. Names are stored and compared as the parser gives them:
/// unquoted identifiers fold to lower case, and quoted ones too unless the session has
/// enable_case_sensitive_identifier on (`ParseOptions`), as in Redshift. `public` always exists; a session's temporary
/// tables live in its own `pg_temp_<process>` schema, which is not registered.
public struct Catalog: Sendable {
    private var schemas: [String: SchemaDef] = [Catalog.publicSchema: SchemaDef(name: Catalog.publicSchema, owner: "rdsdb")]
    private var tables: [QualifiedName: TableDef] = [:]
    private var views: [QualifiedName: ViewDef] = [:]
    /// At least one more than every table id in use (the data store hands ids out).
    public private(set) var nextTableID = 100_000
    /// Users, groups, roles, owners and privileges.
    public private(set) var security = Security.initial()
    /// The database whose objects this value shows.
    public private(set) var database = Catalog.defaultDatabase
    /// Every other database's objects.
    private var elsewhere: [String: ObjectSpace] = [:]
    /// Every database of the cluster, by name.
    private var databaseDefs: [String: DatabaseDef] = [Catalog.defaultDatabase: Catalog.defaultDatabaseDef]

    public static let publicSchema = "public"
    /// Schemas that hold the system tables and views (never user objects).
    public static let systemSchemas: Set<String> = ["pg_catalog", "information_schema"]
    /// The database every cluster starts with, which cannot be dropped (Redshift's `dev`).
    public static let defaultDatabase = Security.defaultDatabase
    /// Its oid (pg_database), as before there were other databases.
    public static let defaultDatabaseDef = DatabaseDef(name: defaultDatabase, id: 16_384, owner: "rdsdb")

    public init() {}

    // MARK: - Databases

    /// Every database, by name.
    public var allDatabases: [DatabaseDef] { databaseDefs.values.sorted { $0.name < $1.name } }

    public func databaseDef(_ name: String) -> DatabaseDef? { databaseDefs[name] }

    /// Show database `name`'s objects. A database that does not exist (dropped since a
    /// session chose it) shows nothing, and leaves nothing behind when left.
    public mutating func use(database name: String) {
        guard name != database else { return }
        let keep = databaseDefs[database] != nil
        if keep {
            elsewhere[database] = ObjectSpace(schemas: schemas, tables: tables, views: views, comments: comments, functions: functions)
        }
        let next = elsewhere.removeValue(forKey: name) ?? ObjectSpace(schemas: [:])
        schemas = next.schemas; tables = next.tables; views = next.views; comments = next.comments; functions = next.functions
        database = name
        security.use(database: name, keepingCurrent: keep)
    }

    /// This catalog showing database `name` (nil when there is none).
    public func using(database name: String) -> Catalog? {
        guard databaseDefs[name] != nil else { return nil }
        var c = self
        c.use(database: name)
        return c
    }

    /// The table with id `id` in whichever database holds it (storage: ids are the cluster's).
    public func tableInAnyDatabase(id: Int) -> TableDef? {
        table(id: id) ?? elsewhere.values.lazy.compactMap { $0.tables.values.first { $0.id == id } }.first
    }

    /// Every table of every database (storage, VACUUM).
    public var tablesOfEveryDatabase: [TableDef] {
        allTables + elsewhere.keys.sorted().flatMap { k in
            (elsewhere[k]?.tables.values.map { $0 } ?? []).sorted { ($0.schema, $0.name) < ($1.schema, $1.name) }
        }
    }

    /// The tables of database `name`.
    public func tables(inDatabase name: String) -> [TableDef] {
        name == database ? allTables : (elsewhere[name]?.tables.values.sorted { ($0.schema, $0.name) < ($1.schema, $1.name) } ?? [])
    }

    /// What a data directory keeps of every database but the default one.
    public var savedDatabases: [ObjectSpace.Saved] {
        var c = self
        return allDatabases.filter { $0.name != Catalog.defaultDatabase }.map { d in
            c.use(database: d.name)
            return ObjectSpace.Saved(database: d, schemas: c.allSchemas, views: c.allViews,
                                     comments: c.comments, functions: c.functions.values.sorted { $0.key < $1.key })
        }
    }

    /// The default database's definition as kept (its owner or connection limit changed).
    public var savedDefaultDatabase: DatabaseDef? {
        let d = databaseDefs[Catalog.defaultDatabase]
        return d == Catalog.defaultDatabaseDef ? nil : d
    }

    private mutating func createDatabase(_ d: DatabaseDef) throws {
        if databaseDefs[d.name] != nil { throw SQLError(.duplicateDatabase, "database \"\(d.name)\" already exists") }
        databaseDefs[d.name] = d
        let space = ObjectSpace.initial(owner: d.owner)
        if d.name == database {   // shown while it did not exist (dropped under a session using it)
            schemas = space.schemas; tables = space.tables; views = space.views; comments = space.comments
            functions = space.functions
        } else {
            elsewhere[d.name] = space
        }
        security.createDatabase(d.name, owner: d.owner)
    }

    private mutating func dropDatabase(_ name: String) throws {
        guard databaseDefs[name] != nil else { throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist") }
        if name == database || name == Catalog.defaultDatabase {
            throw SQLError(.objectInUse, "cannot drop the currently open database")
        }
        databaseDefs[name] = nil
        elsewhere[name] = nil
        security.dropDatabase(name)
    }

    private mutating func alterDatabase(_ name: String, _ new: DatabaseDef) throws {
        guard databaseDefs[name] != nil else { throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist") }
        if new.name != name {
            if databaseDefs[new.name] != nil { throw SQLError(.duplicateDatabase, "database \"\(new.name)\" already exists") }
            if name == database || name == Catalog.defaultDatabase {
                throw SQLError(.featureNotSupported, "current database may not be renamed")
            }
            if let space = elsewhere.removeValue(forKey: name) {
                elsewhere[new.name] = ObjectSpace(schemas: space.schemas,
                                                  tables: space.tables.mapValues { var t = $0; t.database = new.name; return t },
                                                  views: space.views, comments: space.comments, functions: space.functions)
            }
            security.renameDatabase(name, to: new.name)
        }
        databaseDefs[name] = nil
        databaseDefs[new.name] = new
    }

    /// A persisted catalog (tables keep their ids). `schemas` nil: a data directory written
    /// before schemas existed (only `public`, plus every schema its objects name). `security`
    /// nil: one written before users existed, whose tables and views are the superuser's.
    ///
    /// `databases`: every other database's objects (their tables are among `ts`, each
    /// naming its database), and the default database's own definition when it changed.
    public init(tables allTables: [TableDef], views vs: [ViewDef], nextTableID n: Int, schemas ss: [SchemaDef]? = nil,
                security sec: Security? = nil, comments cs: [String: String]? = nil, functions fs: [FunctionDef]? = nil,
                databases: [ObjectSpace.Saved] = [], defaultDatabase: DatabaseDef? = nil) {
        if let defaultDatabase { databaseDefs[Catalog.defaultDatabase] = defaultDatabase }
        for d in databases {
            databaseDefs[d.database.name] = d.database
            var space = ObjectSpace(schemas: [:], comments: d.comments)
            for s in d.schemas { space.schemas[s.name] = s }
            for v in d.views { space.views[v.qualifiedName] = v }
            for f in d.functions { space.functions[f.key] = f }
            elsewhere[d.database.name] = space
        }
        var ts: [TableDef] = []
        for t in allTables {
            if let db = t.database, db != Catalog.defaultDatabase {
                elsewhere[db]?.tables[t.qualifiedName] = t
            } else {
                ts.append(t)
            }
        }
        nextTableID = max(nextTableID, (allTables.map { $0.id }.max() ?? 0) + 1)
        if let cs { comments = cs }
        for f in fs ?? [] { functions[f.key] = f }
        if let ss {
            schemas = [:]   // exactly the schemas kept (`public` too may have been dropped)
            for s in ss { schemas[s.name] = s }
        }
        for t in ts {
            tables[t.qualifiedName] = t
            if schemas[t.schema] == nil, !t.isTemporary { schemas[t.schema] = SchemaDef(name: t.schema, owner: "rdsdb") }
        }
        for v in vs {
            views[v.qualifiedName] = v
            if schemas[v.schema] == nil { schemas[v.schema] = SchemaDef(name: v.schema, owner: "rdsdb") }
        }
        nextTableID = max(n, (ts.map { $0.id }.max() ?? 0) + 1, nextTableID)
        if let sec {
            security = sec
            // TEMP tables' owners and grants outlive them in the saved copy: forget them.
            let ids = Set(allTables.map { $0.id })
            for db in [Catalog.defaultDatabase] + databases.map(\.database.name) {
                let viewNames = db == Catalog.defaultDatabase ? Set(vs.map { $0.qualifiedName })
                    : Set(elsewhere[db]?.views.keys.map { $0 } ?? [])
                security.use(database: db)
                security.prune { object in
                    switch object {
                    case .table(let id): return ids.contains(id)
                    case .view(let schema, let name): return viewNames.contains(QualifiedName(schema: schema, name: name))
                    case .schema: return true
                    }
                }
            }
            security.use(database: Catalog.defaultDatabase)
        } else {
            for t in ts { security.setOwner(.table(t.id), Security.bootstrapSuperuser) }
            for v in vs { security.setOwner(.view(schema: v.schema, name: v.name), Security.bootstrapSuperuser) }
        }
    }

    /// The secured object a table or view stands for.
    public func securedObject(_ name: QualifiedName) -> SecuredObject? {
        if let t = table(name) { return .table(t.id) }
        if view(name) != nil { return .view(schema: name.schema, name: name.name) }
        return nil
    }

    /// The name of a secured object, as error messages and system views show it.
    public func objectName(_ o: SecuredObject) -> String {
        switch o {
        case .table(let id): return "relation \(table(id: id)?.name ?? String(id))"
        case .view(_, let name): return "relation \(name)"
        case .schema(let name): return "schema \(name)"
        }
    }

    /// Whether `name` is a temporary schema (`pg_temp_<process>`).
    public static func isTemporarySchema(_ name: String) -> Bool { name.hasPrefix("pg_temp_") }

    // MARK: - Schemas

    public func schema(_ name: String) -> SchemaDef? { schemas[name] }

    public var allSchemas: [SchemaDef] { schemas.values.sorted { $0.name < $1.name } }

    public mutating func createSchema(_ s: SchemaDef) throws {
        if schemas[s.name] != nil || Catalog.systemSchemas.contains(s.name) {
            throw SQLError(.duplicateSchema, "Schema \"\(s.name)\" already exists")
        }
        schemas[s.name] = s
    }

    /// Drop an empty schema (the session drops its objects first for CASCADE).
    public mutating func dropSchema(_ name: String) throws {
        let n = name
        guard schemas[n] != nil else { throw SQLError(.invalidSchemaName, "Schema \"\(n)\" does not exist") }
        if tables.keys.contains(where: { $0.schema == n }) || views.keys.contains(where: { $0.schema == n }) {
            throw SQLError(.dependentObjectsStillExist, "cannot drop schema \(n) because other objects depend on it",
                           hint: "Use DROP ... CASCADE to drop the dependent objects too.")
        }
        schemas[n] = nil
    }

    /// The tables and views of a schema.
    public func objects(inSchema name: String) -> (tables: [TableDef], views: [ViewDef]) {
        let n = name
        return (tables.values.filter { $0.schema == n }.sorted { $0.name < $1.name },
                views.values.filter { $0.schema == n }.sorted { $0.name < $1.name })
    }

    // MARK: - Relations

    public func table(_ name: QualifiedName) -> TableDef? { tables[name] }

    public func table(id: Int) -> TableDef? { tables.values.first { $0.id == id } }

    public var allTables: [TableDef] {
        tables.values.sorted { ($0.schema, $0.name) < ($1.schema, $1.name) }
    }

    public func view(_ name: QualifiedName) -> ViewDef? { views[name] }

    public var allViews: [ViewDef] { views.values.sorted { ($0.schema, $0.name) < ($1.schema, $1.name) } }

    /// Whether a table or view `name` exists.
    public func hasRelation(_ name: QualifiedName) -> Bool { tables[name] != nil || views[name] != nil }

    private func checkSchema(_ schema: String) throws {
        if schemas[schema] == nil && !Catalog.isTemporarySchema(schema) {
            throw SQLError(.invalidSchemaName, "schema \"\(schema)\" does not exist")
        }
    }

    /// Register a new table under the id it already has.
    public mutating func create(_ def: TableDef) throws {
        let key = def.qualifiedName
        try checkSchema(key.schema)
        if hasRelation(key) { throw SQLError(.duplicateTable, "relation \"\(def.name)\" already exists") }
        var def = def
        def.database = database == Catalog.defaultDatabase ? nil : database
        tables[key] = def
        nextTableID = max(nextTableID, def.id + 1)
    }

    public mutating func drop(_ name: QualifiedName) throws {
        guard tables.removeValue(forKey: name) != nil else {
            throw SQLError(.undefinedTable, "table \"\(name.name)\" does not exist")
        }
    }

    /// Register a view (`orReplace` replaces an existing one).
    public mutating func createView(_ v: ViewDef, orReplace: Bool) throws {
        let key = v.qualifiedName
        try checkSchema(key.schema)
        if tables[key] != nil { throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists") }
        if views[key] != nil && !orReplace { throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists") }
        views[key] = v
    }

    public mutating func dropView(_ name: QualifiedName) throws {
        guard views.removeValue(forKey: name) != nil else {
            throw SQLError(.undefinedTable, "view \"\(name.name)\" does not exist")
        }
    }

    /// Replace a table's definition (same id and name).
    public mutating func replace(_ def: TableDef) { tables[def.qualifiedName] = def }

    /// Apply one change made by a transaction.
    public mutating func apply(_ change: CatalogChange) throws {
        switch change {
        case .createTable(let def): try create(def)
        case .dropTable(let def):
            guard let t = table(def.qualifiedName), t.id == def.id else {
                throw SQLError(.undefinedTable, "table \"\(def.name)\" does not exist")
            }
            try drop(def.qualifiedName)
            security.forget(.table(def.id))
            comments = comments.filter { !($0.key == CommentKey.table(def.id) || $0.key.hasPrefix("column:\(def.id):")) }
        case .renameTable(let old, let new):
            guard let t = table(old.qualifiedName), t.id == old.id else {
                throw SQLError(.undefinedTable, "table \"\(old.name)\" does not exist")
            }
            try checkSchema(new.schema)
            tables[old.qualifiedName] = nil
            if hasRelation(new.qualifiedName) {
                tables[old.qualifiedName] = t
                throw SQLError(.duplicateTable, "relation \"\(new.name)\" already exists")
            }
            var new = new
            new.database = t.database
            tables[new.qualifiedName] = new
        case .createView(let v, let orReplace): try createView(v, orReplace: orReplace)
        case .redefineView(let old, let new):
            // Only onto the definition it was made from: a view another transaction dropped
            // or changed meanwhile (CREATE OR REPLACE, a concurrent rename's rewrite) keeps
            // what that one made of it, neither brought back nor undone.
            if old.qualifiedName == new.qualifiedName, views[old.qualifiedName] == old { views[new.qualifiedName] = new }
        case .dropView(let name):
            try dropView(name)
            security.forget(.view(schema: name.schema, name: name.name))
            comments[CommentKey.view(name)] = nil
            let columns = CommentKey.viewColumn(name, 0).dropLast()
            for key in comments.keys where key.hasPrefix(columns) { comments[key] = nil }
        case .createSchema(let s): try createSchema(s)
        case .dropSchema(let name):
            try dropSchema(name)
            security.forget(.schema(name))
            comments[CommentKey.schema(name)] = nil
        case .security(let change): try change.apply(&security)
        case .comment(let key, let text):
            if let text { comments[key] = text } else { comments[key] = nil }
        case .createFunction(let f, let orReplace):
            if functions[f.key] != nil && !orReplace {
                throw SQLError(.duplicateObject, "function \(f.key) already exists with same argument types")
            }
            try checkSchema(f.schema)
            functions[f.key] = f
        case .dropFunction(let key):
            guard functions[key] != nil else { throw SQLError(.undefinedFunction, "function \(key) does not exist") }
            functions[key] = nil
        case .createDatabase(let d): try createDatabase(d)
        case .dropDatabase(let name): try dropDatabase(name)
        case .alterDatabase(let name, let new): try alterDatabase(name, new)
        }
    }

    // MARK: - Comments

    /// COMMENT ON's texts by object (`CommentKey`).
    public private(set) var comments: [String: String] = [:]

    // MARK: - SQL functions

    /// `CREATE FUNCTION ... LANGUAGE sql` definitions by `FunctionDef.key`.
    public private(set) var functions: [String: FunctionDef] = [:]

    /// The SQL functions called `name` in `schema`.
    public func functions(named name: String, inSchema schema: String) -> [FunctionDef] {
        functions.values.filter { $0.name == name && $0.schema == schema }
            .sorted { $0.key < $1.key }
    }
}

/// A scalar SQL user-defined function (`CREATE [OR REPLACE] FUNCTION name(types) RETURNS
/// type ... AS $$ SELECT expression $$ LANGUAGE sql`): types as their SQL names, the body
/// as the expression's text.
public struct FunctionDef: Sendable, Codable, Equatable {
    public var schema: String
    public var name: String
    public var parameterTypes: [String]
    public var returnType: String
    public var body: String
    /// VOLATILE, STABLE or IMMUTABLE, as written.
    public var volatility: String

    public init(schema: String, name: String, parameterTypes: [String], returnType: String, body: String, volatility: String) {
        self.schema = schema; self.name = name; self.parameterTypes = parameterTypes
        self.returnType = returnType; self.body = body; self.volatility = volatility
    }

    /// `schema.name(type, ...)`: a function is its name and parameter types.
    public var key: String { "\(schema).\(name)(\(parameterTypes.joined(separator: ", ")))" }

    /// Set for a stored procedure (`CREATE PROCEDURE ... LANGUAGE plpgsql`), whose
    /// `parameterTypes` are the types of its IN and INOUT arguments (the signature), whose
    /// `returnType` is empty and whose `volatility` is "volatile". Nil for a SQL function
    /// (and in directories written before procedures).
    public var procedure: ProcedureAttributes?
    /// A SQL function's owner (nil in directories written before functions had owners:
    /// the schema's owner stands in), who alone (with superusers) replaces, alters or
    /// drops it.
    public var owner: String?
    /// Who may call a SQL function besides its owner and superusers: `public`,
    /// `user:name`, `group:name`, `role:name`. Nil: PUBLIC, Redshift's default for a new
    /// function (REVOKE EXECUTE ... FROM PUBLIC takes it away).
    public var executors: [String]?

    public var isProcedure: Bool { procedure != nil }
}

/// What a stored procedure keeps beyond a function's fields.
public struct ProcedureAttributes: Sendable, Codable, Equatable {
    /// Every argument, OUT ones too.
    public var arguments: [ProcedureArgument]
    public var nonatomic: Bool
    public var securityDefiner: Bool
    /// `SET name TO value` applied while it runs.
    public var settings: [String: String]
    public var owner: String
    /// Who was granted EXECUTE besides the owner and superusers: `public`, `user:name`,
    /// `group:name`, `role:name` (nil: nobody).
    public var executors: [String]?

    public init(arguments: [ProcedureArgument], nonatomic: Bool, securityDefiner: Bool, settings: [String: String], owner: String) {
        self.arguments = arguments; self.nonatomic = nonatomic; self.securityDefiner = securityDefiner
        self.settings = settings; self.owner = owner
    }
}

/// One argument of a stored procedure: its name (may be empty), mode (IN, OUT, INOUT) and
/// type's SQL name.
public struct ProcedureArgument: Sendable, Codable, Equatable {
    public var name: String
    public var mode: String
    public var type: String
    public init(name: String, mode: String, type: String) { self.name = name; self.mode = mode; self.type = type }
}

/// The keys comments are kept under: tables and columns by table id (they follow renames;
/// a dropped table's comments go with it), views and schemas by name, the database alone.
public enum CommentKey {
    public static func table(_ id: Int) -> String { "table:\(id)" }
    public static func column(_ id: Int, _ column: Int) -> String { "column:\(id):\(column)" }
    public static func view(_ name: QualifiedName) -> String { "view:\(name.schema).\(name.name)" }
    /// A view's column, by its position (0-based) among the view's columns.
    public static func viewColumn(_ name: QualifiedName, _ column: Int) -> String { "viewcolumn:\(name.schema).\(name.name):\(column)" }
    public static func schema(_ name: String) -> String { "schema:\(name)" }
    public static let database = "database"
}

/// One change a transaction makes to the catalog, replayed at commit onto the latest
/// committed catalog (which may hold other transactions' changes made meanwhile).
public enum CatalogChange: Sendable {
    case createTable(TableDef)
    case dropTable(TableDef)
    /// `ALTER TABLE ... RENAME TO` / `SET SCHEMA`: the same table (same id and rows) under a new name.
    case renameTable(TableDef, TableDef)
    case createView(ViewDef, orReplace: Bool)
    /// A view's query (or column list) rewritten in place, from the first definition to the
    /// second (a rename of what it reads); nothing when the view is no longer the first.
    case redefineView(ViewDef, ViewDef)
    case dropView(QualifiedName)
    case createSchema(SchemaDef)
    case dropSchema(String)
    /// Users, groups, roles, owners, grants.
    case security(SecurityChange)
    /// COMMENT ON: the text under `key` (`CommentKey`), nil to remove it.
    case comment(key: String, text: String?)
    case createFunction(FunctionDef, orReplace: Bool)
    /// By `FunctionDef.key`.
    case dropFunction(String)
    /// CREATE DATABASE: a database with only `public`.
    case createDatabase(DatabaseDef)
    /// DROP DATABASE: the database and every object in it.
    case dropDatabase(String)
    /// ALTER DATABASE: its new definition (RENAME TO, OWNER TO, CONNECTION LIMIT).
    case alterDatabase(String, DatabaseDef)

    /// Whether the change touches views or schemas (what a commit record then carries whole).
    public var changesViews: Bool {
        switch self { case .createView, .redefineView, .dropView: return true; default: return false }
    }
    public var changesSchemas: Bool {
        switch self { case .createSchema, .dropSchema: return true; default: return false }
    }
    /// Whether the change adds, drops or alters a database.
    public var changesDatabases: Bool {
        switch self { case .createDatabase, .dropDatabase, .alterDatabase: return true; default: return false }
    }
}

/// A change and the database it was made in (`Catalog.use(database:)`).
public struct ScopedCatalogChange: Sendable {
    public var database: String
    public var change: CatalogChange
    public init(database: String, change: CatalogChange) { self.database = database; self.change = change }
}
