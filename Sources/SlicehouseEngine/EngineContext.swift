// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution
import SlicehouseRuntime

/// The view of the database one statement plans and runs against: the catalog,
/// system tables, and a snapshot of every table taken when the statement started.
final class StatementContext: BinderCatalog, PlannerContext {
    let database: Database
    private(set) var snapshots: [Int: TableSnapshot] = [:] {
        didSet { statisticsMemo.removeAll() }
    }
    /// `statistics(_:)` by table id, for the snapshots as they are (the planner asks again
    /// and again while it orders joins).
    private var statisticsMemo: [Int: TableStatistics] = [:]
    let system: SystemTables

    let session: Session

    init(database: Database, session: Session) {
        self.database = database
        self.session = session
        self.system = SystemTables(database: database, transaction: session.transaction, session: session)
    }

    var sliceCount: Int { database.layout.sliceCount }

    /// The rows the planner assumes of an external table whose `numRows` is not set.
    static let externalRowsAssumed: Double = 1_000_000_000

    /// DELETE / UPDATE: this table also shows its hidden row-id column.
    var rowIDTable: Int?
    /// Set when the statement reads a system table or a session's state (CURRENT_USER,
    /// PG_LAST_QUERY_ID, privilege functions, ...): its result depends on more than the
    /// user tables it reads, so it may not be reused.
    private(set) var readsSessionState = false

    /// Read table `id` as `snapshot` instead of the transaction's (a materialized view's
    /// refresh reads a base table's appended rows alone, or its rows before them). Set
    /// before the statement is bound.
    func override(_ id: Int, with snapshot: TableSnapshot) { snapshots[id] = snapshot }

    /// The external tables the statement names, by their (negative, per-statement) ids;
    /// their rows are read once the plan is made (`ExternalScans`).
    private(set) var externalTables: [Int: ExternalTable] = [:]
    private var externalIDs: [QualifiedName: Int] = [:]
    /// What the statement's external scans did (SVL_S3QUERY_SUMMARY).
    private(set) var externalScans: [ExternalScans.Summary] = []
    /// The statement's S3 access for external tables (its requests go to STL_S3CLIENT).
    private var s3: S3Access?
    /// The statement's memory the external tables' rows hold (released with the statement).
    private var externalReservation: MemoryReservation?

    func externalMemory(_ context: QueryContext) -> MemoryReservation {
        if let externalReservation { return externalReservation }
        let made = MemoryReservation(context.memory)
        externalReservation = made
        return made
    }

    /// Whether table `id` has its rows for this statement.
    func hasSnapshot(_ id: Int) -> Bool { snapshots[id] != nil }

    func noteExternalScan(_ summary: ExternalScans.Summary) { externalScans.append(summary) }

    func s3Access(_ context: QueryContext) -> S3Access {
        if let s3 { return s3 }
        let made = S3Access(session: session, context: context)
        s3 = made
        return made
    }

    /// The statement's S3 requests into STL_S3CLIENT, as query `query`.
    func logS3Requests(query: Int) { s3?.logRequests(query: query) }

    /// The external table `name` means, when it names none of the database's own: in its
    /// schema when qualified, else in the first external schema of the search path that has
    /// it. The table is looked up in the schema's catalog once per statement.
    private func externalRelation(_ name: ObjectName, searchPath: [String]?) throws -> TableDef? {
        guard name.database == nil || name.database == session.databaseName else { return nil }
        let catalog = session.transaction.catalog
        let schemas: [SchemaDef]
        if let s = name.schema {
            guard let def = catalog.schema(s), def.external != nil else { return nil }
            schemas = [def]
        } else {
            schemas = (searchPath ?? session.searchPathSchemas(catalog)).compactMap { catalog.schema($0) }
                .filter { $0.external != nil }
        }
        for schema in schemas {
            guard let external = schema.external else { continue }
            let key = QualifiedName(schema: schema.name, name: name.name)
            if let id = externalIDs[key], let known = externalTables[id] { return known.def }
            // Binding has no runtime context yet: the catalog's own timeouts bound the lookup.
            let lake = LakeAccess(session: session, context: QueryContext())
            let source = try lake.catalog(external)
            guard let glue = try LakeAccess.mapped({ try source.table(external.database, name.name) }) else { continue }
            let id = -1_000_000 - externalTables.count
            let inputs = lake.inputs(external)
            let table = try ExternalTable(schema: schema, external: external, glue: glue, id: id) {
                try LakeAccess.object($0, inputs: inputs)
            }
            externalTables[id] = table
            externalIDs[key] = id
            return table.def
        }
        return nil
    }

    func relation(_ name: ObjectName, searchPath: [String]?) throws -> CatalogRelation? {
        let catalog = session.transaction.catalog
        var path = searchPath
        if name.schema == nil {
            // An external schema on the search path is searched in its place: the schemas
            // before it first, then its catalog.
            let full = searchPath ?? session.searchPathSchemas(catalog)
            if let k = full.firstIndex(where: { catalog.schema($0)?.external != nil }) {
                if let found = try session.lookup(name, in: catalog, path: Array(full[..<k]), acrossDatabases: true) {
                    return try relation(found)
                }
                for s in full[k...] {
                    if catalog.schema(s)?.external != nil {
                        if let external = try externalRelation(ObjectName(schema: s, name: name.name), searchPath: nil) {
                            return .table(external)
                        }
                    } else if let found = try session.lookup(name, in: catalog, path: [s], acrossDatabases: true) {
                        return try relation(found)
                    }
                }
                return nil
            }
            path = full
        }
        let found = try session.lookup(name, in: catalog, path: path, acrossDatabases: true)
        if found == nil, let external = try externalRelation(name, searchPath: searchPath) { return .table(external) }
        guard let found else { return nil }
        return try relation(found)
    }

    /// What a name the database's own catalog resolved stands for in this statement.
    private func relation(_ found: Session.NamedObject) throws -> CatalogRelation? {
        switch found {
        case .table(var t):
            if snapshots[t.id] == nil { snapshots[t.id] = try session.transaction.snapshot(of: t) }
            if t.id == rowIDTable { t.columns.append(ColumnDef(name: rowIDColumnName, type: .bigint)) }
            return .table(t)
        case .view(let v):
            return .view(v)
        case .system(let n):
            readsSessionState = true
            guard let (def, snap) = system.table(named: n) else { return nil }
            snapshots[def.id] = snap
            return .table(def)
        }
    }

    func sessionParseOptions() -> ParseOptions { session.parseOptions }

    func sessionCaseSensitiveSuperAttributes() -> Bool {
        Session.boolean(session.settings["enable_case_sensitive_super_attribute"] ?? "off") ?? false
    }

    func sessionDayFirst() -> Bool {
        guard let style = session.settings["datestyle"]?.uppercased() else { return false }
        return style.contains("DMY") || style.contains("EURO") && !style.contains("NONEURO")
    }

    func sessionTimeZone() -> String? {
        guard let zone = session.settings["timezone"], zone.uppercased() != "UTC" else { return nil }
        return zone
    }

    func userFunctions(named name: String, schema: String?) -> [UserFunction] {
        session.userFunctions(named: name, schema: schema)
    }

    func sessionFunction(_ name: String) -> (Value, DataType)? {
        let value = sessionValue(name)
        if value != nil { readsSessionState = true }
        return value
    }

    private func sessionValue(_ name: String) -> (Value, DataType)? {
        switch name {
        case "pg_last_copy_count": return (.int(Int64(session.lastCopyCount)), .integer)
        case "pg_last_copy_id": return (.int(Int64(session.lastCopyID)), .integer)
        case "pg_last_query_id": return (.int(Int64(session.lastQueryID)), .integer)
        case "version":
            return (.string("PostgreSQL 8.0.2 on x86_64-pc-linux-gnu, compiled by GCC gcc (GCC) 3.4.2, Redshift 1.0.0 (Slicehouse)"), .varchar(256))
        case "current_user", "user": return (.string(session.user), .varchar(128))
        case "session_user": return (.string(session.sessionUser), .varchar(128))
        case "pg_backend_pid": return (.int(Int64(session.process)), .integer)
        case "current_user_id":
            let id = session.security.allUsers.first { $0.name == session.user }?.id ?? 1
            return (.int(Int64(id)), .integer)
        case "timeofday":
            return (.string(Session.timeOfDay(Date())), .varchar(64))
        case "current_database": return (.string(session.databaseName), .varchar(128))
        case "current_schema": return (session.currentSchema.map { .string($0) } ?? .null, .varchar(128))
        case "slicehouse_advise":
            // The key advisor's report on the logged workload (`Session.adviseKeys`).
            do {
                // VARCHAR(65535) at most, as Redshift's longest text; the CLI prints it whole.
                return (.string(String(try session.adviseKeys().report.prefix(65535))), .varchar(65535))
            } catch {
                return (.string("the key advisor failed: \((error as? SQLError)?.message ?? "\(error)")"), .varchar(65535))
            }
        default: return nil
        }
    }

    func privilegeKeys(_ function: String, privilege: String, object: String?) throws -> [String] {
        readsSessionState = true
        return try session.access.privilegeKeys(function, privilege: privilege, object: object)
    }

    func viewDefinitions() -> [(oid: Int64, definition: String)] {
        readsSessionState = true
        return session.transaction.catalog.allViews.enumerated().map {
            (Int64(SystemTables.viewOIDBase + $0.offset), $0.element.queryText + ";")
        }
    }

    func objectOID(_ kind: String, _ text: String) throws -> Int64 {
        readsSessionState = true
        return try system.objectOID(kind, text)
    }

    func objectNames(_ kind: String) -> [(oid: Int64, name: String)] {
        readsSessionState = true
        return system.objectNames(kind)
    }

    func descriptions() -> [(objoid: Int64, classoid: Int64, objsubid: Int64, text: String)] {
        readsSessionState = true
        return system.descriptions
    }

    func constraintDefinitions() -> [(oid: Int64, definition: String)] {
        readsSessionState = true
        return system.constraintDefinitions()
    }

    func statementParameters() -> [ParameterValue]? { session.statementParameters }

    func sessionSignal(_ function: String) -> ScalarFunction.Kernel? {
        guard function == "pg_cancel_backend" || function == "pg_terminate_backend" else { return nil }
        readsSessionState = true
        // The signalling user as the statement is bound; each row's process is looked up
        // and signalled as the statement runs (Session.cancel / terminate are thread-safe).
        let database = self.database, caller = session, user = session.user, superuser = session.isSuperuser
        let cancel = function == "pg_cancel_backend"
        return { args, type, n in
            var out = Vector(type: type, capacity: n)
            for i in 0..<n {
                guard let pid = args[0].value(at: args[0].isConstant ? 0 : i).asInt64 else { out.append(.null); continue }
                guard let target = database.session(process: Int(pid)) else { out.append(.int(0)); continue }
                if target.sessionUser != user && !superuser {
                    throw SQLError(.insufficientPrivilege,
                                   "permission denied to \(cancel ? "cancel the query of" : "terminate") process \(pid): it belongs to another user",
                                   hint: "Only superusers and the session's own user may signal it.")
                }
                if cancel {
                    if target !== caller { target.cancel() }
                } else {
                    target.terminate()
                }
                out.append(.int(1))
            }
            return out
        }
    }

    func catalogValues(_ function: String) -> [(oid: Int64, value: Value)] {
        readsSessionState = true
        return system.catalogValues(function)
    }

    func sessionCall(_ name: String, _ args: [Value]) throws -> (Value, DataType)? {
        readsSessionState = true
        switch name {
        case "has_table_privilege":
            return (try session.access.hasTablePrivilege(args), .boolean)
        case "has_schema_privilege":
            return (try session.access.hasSchemaPrivilege(args), .boolean)
        case "pg_user_ids":
            let users = session.security.allUsers.map { "\($0.id)=\($0.name)" }
            return (.string(users.joined(separator: ",")), .text)
        case "pg_group_ids":
            let groups = session.security.allGroups.map { "\($0.id)=\($0.name)" }
            return (.string(groups.joined(separator: ",")), .text)
        case "current_schemas":
            guard args.count == 1 else { throw SQLError(.undefinedFunction, "function current_schemas takes one argument (a boolean)") }
            if args[0].isNull { return (.null, .varchar(256)) }
            guard case .bool(let implicit) = args[0] else {
                throw SQLError(.datatypeMismatch, "current_schemas needs a boolean argument")
            }
            return (.string(session.currentSchemas(implicit: implicit)), .varchar(256))
        case "pg_visible_relation_oids":
            return (.string(session.visibleRelationOIDs().map(String.init).joined(separator: ",")), .text)
        case "pg_get_viewdef":
            guard args.count == 1 || args.count == 2 else {
                throw SQLError(.undefinedFunction, "function pg_get_viewdef takes a view's oid or name")
            }
            return (try session.viewDefinition(args[0]).map { .string($0) } ?? .null, .varchar(65535))
        case "pg_cancel_backend", "pg_terminate_backend":
            guard args.count == 1 else {
                throw SQLError(.undefinedFunction, "function \(name) takes one argument (a process id)")
            }
            guard case .int(let pid) = args[0] else {
                if args[0].isNull { return (.null, .integer) }
                throw SQLError(.datatypeMismatch, "\(name) needs an integer process id")
            }
            guard let target = database.session(process: Int(pid)) else {
                session.pendingNotices.append("WARNING:  PID \(pid) is not a Slicehouse server process")
                return (.int(0), .integer)
            }
            // A user signals only their own sessions; a superuser any (Redshift, PostgreSQL).
            if target.sessionUser != session.user && !session.isSuperuser {
                throw SQLError(.insufficientPrivilege,
                               "permission denied to \(name == "pg_cancel_backend" ? "cancel the query of" : "terminate")"
                                + " process \(pid): it belongs to another user",
                               hint: "Only superusers and the session's own user may signal it.")
            }
            if name == "pg_cancel_backend" {
                if target !== session { target.cancel() }
            } else {
                target.terminate()
            }
            return (.int(1), .integer)
        default:
            return nil
        }
    }

    func statistics(_ table: TableDef) -> TableStatistics {
        if let known = statisticsMemo[table.id] { return known }
        let s = computeStatistics(table)
        statisticsMemo[table.id] = s
        return s
    }

    private func computeStatistics(_ table: TableDef) -> TableStatistics {
        if let external = table.external, snapshots[table.id] == nil {
            // Redshift plans an external table without `numRows` as the larger side of a join.
            return TableStatistics(rows: Int(external.numRows ?? Self.externalRowsAssumed), placement: .even)
        }
        guard let snap = snapshots[table.id] else { return TableStatistics(rows: 0, placement: .even) }
        let placement: TablePlacement
        switch snap.distribution {
        case .all: placement = .all
        case .even: placement = .even
        case .key(let c): placement = .key(column: c)
        }
        // Rows deleted since the ANALYZE can leave fewer rows than distinct values counted.
        let rows = Double(snap.rowCount)
        let columns = (snap.analyzed?.columns ?? [:]).mapValues { s -> ColumnStatistics in
            var s = s
            s.distinct = max(1, min(s.distinct, rows))
            return s
        }
        let strings = table.columns.indices.filter { table.columns[$0].type.physical == .string }
        return TableStatistics(rows: snap.rowCount, placement: placement, columns: columns,
                               blankEnded: Set(strings.filter { snap.mayEndInBlank(column: $0) }))
    }
}

/// Evaluate a constant expression on the leader.
func evaluateConstant(_ e: BoundExpr) throws -> Value {
    let v = try ExpressionEvaluator.evaluate(e, Chunk(columns: [], count: 1))
    return v.value(at: 0)
}
