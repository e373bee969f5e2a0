// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner

/// Users, groups, roles and privileges: the statements that change them and the checks
/// every statement passes. A superuser may do everything; an object's owner holds every
/// privilege on it; others hold what was granted to them, to PUBLIC, to a group they are
/// in or to a role they hold. Tables inside a view are read with the view owner's rights.
extension Session {
    /// Users, groups, roles and grants as the running statement's transaction sees them.
    var security: Security { transaction.catalog.security }

    var isSuperuser: Bool { security.isSuperuser(user) }

    /// The privilege checks, for this session's user.
    var access: AccessControl { AccessControl(self) }
}

/// The checks every statement passes, for the session's current user.
struct AccessControl {
    let session: Session

    init(_ session: Session) { self.session = session }


    // MARK: - Checks

    static func permissionDenied(_ object: String) -> SQLError {
        SQLError(.insufficientPrivilege, "permission denied for \(object)")
    }

    /// The secured object of a table definition (system tables have none).
    func securedObject(_ table: TableDef) -> SecuredObject? { table.id >= 0 ? .table(table.id) : nil }

    /// `privilege` on `table` for the current user, or `permission denied for relation t`.
    /// With `columns`, column-level grants of that privilege on every one of them suffice.
    func requirePrivilege(_ privilege: Privilege, on table: TableDef, columns: [String] = [], as who: String? = nil) throws {
        guard let object = securedObject(table) else { return }
        if !table.isTemporary { try requireUsage(ofSchema: table.schema, as: who ?? session.user) }
        try requirePrivilege(privilege, on: object, name: table.name, columns: columns, as: who ?? session.user)
    }

    /// USAGE on the schema of an object a statement names (PUBLIC has it on `public`; the
    /// schema's owner, and everyone on the system and temporary schemas).
    func requireUsage(ofSchema schema: String, as who: String) throws {
        if try schemaAllows(.usage, schema, who) { return }
        throw Self.permissionDenied("schema \(schema)")
    }

    private func schemaAllows(_ privilege: Privilege, _ schema: String, _ who: String, in other: Catalog? = nil) throws -> Bool {
        let s = schema
        if Catalog.systemSchemas.contains(s) || Catalog.isTemporarySchema(s) { return true }
        let catalog = other ?? session.transaction.catalog
        if catalog.schema(s)?.owner == who { return true }
        return catalog.security.has(who, privilege, on: .schema(s))
    }

    /// The catalog of the database `table` belongs to, when that is not the one in use (a
    /// query's three-part name): its grants decide who reads the table.
    private func otherDatabase(of table: TableDef) -> Catalog? {
        let db = table.database ?? Catalog.defaultDatabase
        return db == session.databaseName || table.id < 0 ? nil : session.transaction.catalog.using(database: db)
    }

    func requirePrivilege(_ privilege: Privilege, on object: SecuredObject, name: String, columns: [String] = [],
                          anyColumn: Bool = false, as who: String) throws {
        let sec = session.security
        if sec.has(who, privilege, on: object) { return }
        let granted = sec.granted(to: who, on: object)
        if !columns.isEmpty, columns.allSatisfy({ granted.columns[$0]?.contains(privilege) ?? false }) { return }
        if columns.isEmpty, anyColumn, granted.columns.values.contains(where: { $0.contains(privilege) }) { return }
        throw Self.permissionDenied("relation \(name)")
    }

    /// The owner's rights (or a superuser's): DROP, TRUNCATE, VACUUM, ANALYZE, ALTER ... OWNER.
    /// A grant of `privilege` also suffices where Redshift has one (DROP, TRUNCATE, ALTER).
    func requireOwner(of table: TableDef, or privilege: Privilege? = nil) throws {
        guard let object = securedObject(table) else { return }
        let sec = session.security
        if sec.isSuperuser(session.user) || sec.owner(object) == session.user { return }
        if let privilege, sec.granted(to: session.user, on: object).table.contains(privilege) { return }
        throw SQLError(.insufficientPrivilege, "must be owner of relation \(table.name)")
    }

    /// CREATE on the schema a new table or view goes into.
    func requireCreate(inSchema schema: String) throws {
        if try schemaAllows(.create, schema, session.user) { return }
        throw Self.permissionDenied("schema \(schema)")
    }

    /// Every table and view a bound statement reads: SELECT on it (for a table, SELECT on
    /// the columns it references suffices), as the session's user — or, inside a view, as
    /// the view's owner (even when a superuser reads the view, as in PostgreSQL).
    func authorizeReads(_ binder: Binder) throws {
        try session.authorizeFunctionCalls(binder)
        let sec = session.security
        for (access, columns) in binder.relationAccesses() {
            let who = access.enclosingView.flatMap { sec.owner(.view(schema: $0.schema, name: $0.name)) } ?? session.user
            if sec.isSuperuser(who) { continue }
            switch access.object {
            case .view(let v):
                try requireUsage(ofSchema: v.schema, as: who)
                try requirePrivilege(.select, on: .view(schema: v.schema, name: v.name), name: v.name, as: who)
            case .table(let t):
                // An external table: USAGE on its external schema is what lets one read it.
                if t.external != nil { try requireUsage(ofSchema: t.schema, as: who); continue }
                guard t.id >= 0 else { continue }
                let names = columns.filter { $0 < t.columns.count }.map { t.columns[$0].name }.filter { $0 != rowIDColumnName }
                if let other = otherDatabase(of: t) {
                    // Another database's table: USAGE on its schema and SELECT on it there.
                    if other.security.isSuperuser(who) { continue }
                    guard try schemaAllows(.usage, t.schema, who, in: other) else { throw Self.permissionDenied("schema \(t.schema)") }
                    let sec = other.security
                    if sec.has(who, .select, on: .table(t.id)) { continue }
                    let granted = sec.granted(to: who, on: .table(t.id)).columns
                    if names.isEmpty ? granted.values.contains(where: { $0.contains(.select) })
                        : names.allSatisfy({ granted[$0]?.contains(.select) ?? false }) { continue }
                    throw Self.permissionDenied("relation \(t.name)")
                }
                if !t.isTemporary { try requireUsage(ofSchema: t.schema, as: who) }
                // The target of a DELETE or UPDATE (it shows the row-id column) is read only
                // where the statement names its columns: `DELETE FROM t` needs no SELECT.
                if names.isEmpty, t.columns.last?.name == rowIDColumnName { continue }
                try requirePrivilege(.select, on: .table(t.id), name: t.name, columns: names, anyColumn: names.isEmpty, as: who)
            }
        }
    }

    // MARK: - Statements

    func requireSuperuser(_ what: String) throws {
        guard session.isSuperuser else { throw SQLError(.insufficientPrivilege, "permission denied: must be superuser to \(what)") }
    }

    /// The securable object `name` means (a table or a view).
    func objectOf(_ name: ObjectName) throws -> (object: SecuredObject, table: TableDef?) {
        if let t = try session.resolveTable(name) { return (.table(t.id), t) }
        if let v = try session.resolveView(name) { return (.view(schema: v.schema, name: v.name), nil) }
        throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
    }

    // MARK: - has_table_privilege, has_schema_privilege

    /// `has_schema_privilege([user,] schema, 'usage' | 'create')`.
    func hasSchemaPrivilege(_ args: [Value]) throws -> Value {
        guard args.count == 2 || args.count == 3 else {
            throw SQLError(.undefinedFunction, "function has_schema_privilege takes 2 or 3 arguments")
        }
        if args.contains(where: { $0.isNull }) { return .null }
        let texts = args.map { $0.asString ?? "" }
        let who = args.count == 3 ? texts[0].lowercased() : session.user
        let schemaText = texts[texts.count - 2]
        let schema = SystemTables.identifierParts(schemaText, caseSensitive: session.parseOptions.caseSensitiveIdentifiers)
            .first ?? schemaText
        guard session.security.user(who) != nil else { throw SQLError(.undefinedObject, "user \"\(who)\" does not exist") }
        guard session.transaction.catalog.schema(schema) != nil || Catalog.systemSchemas.contains(schema)
            || Catalog.isTemporarySchema(schema) else {
            throw SQLError(.invalidSchemaName, "schema \"\(schema)\" does not exist")
        }
        var any = false
        for word in texts[texts.count - 1].lowercased().split(separator: ",") {
            let w = word.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " with grant option", with: "")
            guard let p = Privilege(rawValue: w), Privilege.schema.contains(p) else {
                throw SQLError(.invalidParameter, "unrecognized privilege type: \"\(word)\"")
            }
            if try schemaAllows(p, schema, who) { any = true }
        }
        return .bool(any)
    }

    /// Every (user, object) pair `function` (`has_schema_privilege` or
    /// `has_table_privilege`) answers true for with `privilege` (one or more privilege
    /// words), as `user + "\u{1}" + object` — for a call whose user or object is a column
    /// (an admin view over every user and table). An object is named as the function
    /// accepts it: a schema by name; a table or view by `schema.name`, by `name` when the
    /// search path finds it, and a table by its OID.
    func privilegeKeys(_ function: String, privilege: String, object: String? = nil) throws -> [String] {
        let isSchema = function == "has_schema_privilege"
        // One object named as the call names it (`"dev"."s"."t"`, `s.t`, an oid, a system
        // view), the user a column: each user's own answer, keyed by the name as written.
        if let object {
            var keys: [String] = []
            for user in session.security.allUsers {
                let args: [Value] = [.string(user.name), .string(object), .string(privilege)]
                let answer = isSchema ? try hasSchemaPrivilege(args) : try hasTablePrivilege(args)
                if answer == .bool(true) { keys.append(user.name + "\u{1}" + object.lowercased()) }
            }
            return keys
        }
        var privileges: [Privilege] = []
        for word in privilege.lowercased().split(separator: ",") {
            let w = word.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " with grant option", with: "")
            guard let p = Privilege(rawValue: w), (isSchema ? Privilege.schema : Privilege.table).contains(p) else {
                throw SQLError(.invalidParameter, "unrecognized privilege type: \"\(word)\"")
            }
            privileges.append(p)
        }
        let catalog = session.transaction.catalog
        var keys: [String] = []
        if isSchema {
            let schemas = catalog.allSchemas.map { $0.name } + Array(Catalog.systemSchemas)
            for user in session.security.allUsers {
                for schema in schemas where try privileges.contains(where: { try schemaAllows($0, schema, user.name) }) {
                    keys.append(user.name + "\u{1}" + schema)
                }
            }
            return keys
        }
        // Each object with the names it may be given, found once for every user.
        var objects: [(SecuredObject, [String])] = []
        for t in catalog.allTables {
            var names = ["\(t.schema).\(t.name)".lowercased(), String(t.id)]
            if (try? session.resolveTable(ObjectName(name: t.name)))??.id == t.id { names.append(t.name.lowercased()) }
            objects.append((.table(t.id), names))
        }
        for v in catalog.allViews {
            var names = ["\(v.schema).\(v.name)".lowercased()]
            if let found = try? session.resolveView(ObjectName(name: v.name)), found.schema == v.schema {
                names.append(v.name.lowercased())
            }
            objects.append((.view(schema: v.schema, name: v.name), names))
        }
        for user in session.security.allUsers {
            for (object, names) in objects where privileges.contains(where: { session.security.has(user.name, $0, on: object) }) {
                keys += names.map { user.name + "\u{1}" + $0 }
            }
        }
        return keys
    }

    /// `has_table_privilege([user,] table, privilege)`.
    func hasTablePrivilege(_ args: [Value]) throws -> Value {
        guard args.count == 2 || args.count == 3 else {
            throw SQLError(.undefinedFunction, "function has_table_privilege takes 2 or 3 arguments")
        }
        if args.contains(where: { $0.isNull }) { return .null }
        func text(_ v: Value) -> String {
            switch v {
            case .string(let s): return s
            case .int(let i): return String(i)
            default: return ""
            }
        }
        let who = args.count == 3 ? text(args[0]).lowercased() : session.user
        let table = text(args[args.count - 2])
        let privilegeText = text(args[args.count - 1]).lowercased()
        guard session.security.user(who) != nil else { throw SQLError(.undefinedObject, "user \"\(who)\" does not exist") }
        let parts = SystemTables.identifierParts(table, caseSensitive: session.parseOptions.caseSensitiveIdentifiers)
        guard let last = parts.last, parts.count <= 3 else { throw SQLError(.invalidText, "invalid name syntax: \"\(table)\"") }
        let name = parts.count >= 2 ? ObjectName(schema: parts[parts.count - 2], name: last) : ObjectName(name: last)
        // A system table or view (dbt asks about SVV_TABLE_INFO before it reads it):
        // everyone may SELECT it, and the rows it shows depend on who asks; the other
        // privileges only a superuser has.
        let isSystem: Bool
        if case .system = try session.lookup(name, in: session.transaction.catalog) { isSystem = true } else { isSystem = false }
        let object = isSystem ? nil : try objectOf(name).object
        var any = false
        for word in privilegeText.split(separator: ",") {
            let w = word.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " with grant option", with: "")
            guard let p = Privilege(rawValue: w), Privilege.table.contains(p) else {
                throw SQLError(.invalidParameter, "unrecognized privilege type: \"\(word)\"")
            }
            if let object {
                if session.security.has(who, p, on: object) { any = true }
            } else if p == .select || session.security.user(who)?.superuser == true {
                any = true
            }
        }
        return .bool(any)
    }
}
