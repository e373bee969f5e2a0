// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlanner

/// Users, groups, roles and privileges: the statements that change them and the checks
/// every statement passes. A superuser may do everything; an object's owner holds every
/// privilege on it; others hold what was granted to them, to PUBLIC, to a group they are
/// in or to a role they hold. Tables inside a view are read with the view owner's rights.
extension Session {
    /// Users, groups, roles and grants as the running statement's transaction sees them.
    var security: Security { transaction.catalog.security }

    var isSuperuser: Bool { security.isSuperuser(user) }

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
        if !table.isTemporary { try requireUsage(ofSchema: table.schema, as: who ?? user) }
        try requirePrivilege(privilege, on: object, name: table.name, columns: columns, as: who ?? user)
    }

    /// USAGE on the schema of an object a statement names (PUBLIC has it on `public`; the
    /// schema's owner, and everyone on the system and temporary schemas).
    func requireUsage(ofSchema schema: String, as who: String) throws {
        if try schemaAllows(.usage, schema, who) { return }
        throw Self.permissionDenied("schema \(schema)")
    }

    private func schemaAllows(_ privilege: Privilege, _ schema: String, _ who: String) throws -> Bool {
        let s = schema.lowercased()
        if Catalog.systemSchemas.contains(s) || Catalog.isTemporarySchema(s) { return true }
        if transaction.catalog.schema(s)?.owner == who { return true }
        return security.has(who, privilege, on: .schema(s))
    }

    func requirePrivilege(_ privilege: Privilege, on object: SecuredObject, name: String, columns: [String] = [],
                          anyColumn: Bool = false, as who: String) throws {
        let sec = security
        if sec.has(who, privilege, on: object) { return }
        let granted = sec.granted(to: who, on: object)
        if !columns.isEmpty, columns.allSatisfy({ granted.columns[$0.lowercased()]?.contains(privilege) ?? false }) { return }
        if columns.isEmpty, anyColumn, granted.columns.values.contains(where: { $0.contains(privilege) }) { return }
        throw Self.permissionDenied("relation \(name)")
    }

    /// The owner's rights (or a superuser's): DROP, TRUNCATE, VACUUM, ANALYZE, ALTER ... OWNER.
    /// A grant of `privilege` also suffices where Redshift has one (DROP, TRUNCATE, ALTER).
    func requireOwner(of table: TableDef, or privilege: Privilege? = nil) throws {
        guard let object = securedObject(table) else { return }
        let sec = security
        if sec.isSuperuser(user) || sec.owner(object) == user { return }
        if let privilege, sec.granted(to: user, on: object).table.contains(privilege) { return }
        throw SQLError(.insufficientPrivilege, "must be owner of relation \(table.name)")
    }

    /// CREATE on the schema a new table or view goes into.
    func requireCreate(inSchema schema: String) throws {
        if try schemaAllows(.create, schema, user) { return }
        throw Self.permissionDenied("schema \(schema)")
    }

    /// Every table and view a bound statement reads: SELECT on it (for a table, SELECT on
    /// the columns it references suffices), as the session's user — or, inside a view, as
    /// the view's owner (even when a superuser reads the view, as in PostgreSQL).
    func authorizeReads(_ binder: Binder) throws {
        try authorizeFunctionCalls(binder)
        let sec = security
        for (access, columns) in binder.relationAccesses() {
            let who = access.enclosingView.flatMap { sec.owner(.view(schema: $0.schema, name: $0.name.lowercased())) } ?? user
            if sec.isSuperuser(who) { continue }
            switch access.object {
            case .view(let v):
                try requireUsage(ofSchema: v.schema, as: who)
                try requirePrivilege(.select, on: .view(schema: v.schema, name: v.name.lowercased()), name: v.name, as: who)
            case .table(let t):
                guard t.id >= 0 else { continue }
                if !t.isTemporary { try requireUsage(ofSchema: t.schema, as: who) }
                let names = columns.filter { $0 < t.columns.count }.map { t.columns[$0].name }.filter { $0 != rowIDColumnName }
                // The target of a DELETE or UPDATE (it shows the row-id column) is read only
                // where the statement names its columns: `DELETE FROM t` needs no SELECT.
                if names.isEmpty, t.columns.last?.name == rowIDColumnName { continue }
                try requirePrivilege(.select, on: .table(t.id), name: t.name, columns: names, anyColumn: names.isEmpty, as: who)
            }
        }
    }

    // MARK: - Statements

    func runSecurity(_ s: SecurityStatement) throws -> StatementResult {
        switch s {
        case .createUser(let name, let o):
            try requireSuperuser("create users")
            try checkPrincipalName(name)
            var u = UserDef(id: 0, name: name, superuser: o.createUser ?? false, createDB: o.createDB ?? false, password: nil,
                            syslogUnrestricted: o.syslogUnrestricted ?? false)
            switch o.password {
            case .text(let p)?: u.password = try PasswordRules.credential(p, user: name)
            case .disable?, nil: u.password = nil
            }
            u.validUntil = try validUntil(o.validUntil)
            u.connectionLimit = try connectionLimit(o.connectionLimit)
            let groups = o.inGroups, newUser = u
            try transaction.changeSecurity(SecurityChange { sec in
                try sec.createUser(newUser)
                for g in groups { try sec.alterGroup(g, add: [name], drop: []) }
            })
            return StatementResult(tag: "CREATE USER")
        case .alterUser(let name, let o):
            guard var u = security.user(name) else { throw SQLError(.undefinedObject, "user \"\(name)\" does not exist") }
            // A user may change its own password; everything else is a superuser's.
            let onlyOwnPassword = name == user && o.createDB == nil && o.createUser == nil && o.syslogUnrestricted == nil
                && o.validUntil == nil && o.connectionLimit == nil && o.inGroups.isEmpty
                && { if case .text? = o.password { return true }; return false }()
            if !onlyOwnPassword { try requireSuperuser("alter users") }
            switch o.password {
            case .text(let p)?: u.password = try PasswordRules.credential(p, user: name)
            case .disable?:
                if u.superuser { throw SQLError(.invalidParameter, "cannot disable the password of a superuser") }
                u.password = nil
            case nil: break
            }
            if let v = o.createDB { u.createDB = v }
            if let v = o.createUser { u.superuser = v }
            if let v = o.syslogUnrestricted { u.syslogUnrestricted = v }
            if let v = o.validUntil { u.validUntil = try validUntil(v) }
            if o.connectionLimit != nil { u.connectionLimit = try connectionLimit(o.connectionLimit) }
            let changed = u
            try transaction.changeSecurity(SecurityChange { $0.replaceUser(changed) })
            return StatementResult(tag: "ALTER USER")
        case .renameUser(let old, let new):
            try requireSuperuser("rename users")
            try checkPrincipalName(new)
            if old == sessionUser { throw SQLError(.featureNotSupported, "session user cannot be renamed") }
            // The md5 hash includes the name: Redshift clears the password of a renamed user.
            try transaction.changeSecurity(SecurityChange { sec in
                try sec.renameUser(old, to: new)
                if var u = sec.user(new), u.password.map({ $0.scram == nil }) ?? false {
                    u.password = nil
                    sec.replaceUser(u)
                }
            })
            return StatementResult(tag: "ALTER USER", notices: ["NOTICE:  MD5 password cleared because of user rename"])
        case .dropUser(let names, let ifExists):
            try requireSuperuser("drop users")
            var notices: [String] = []
            for n in names {
                if security.user(n) == nil {
                    if ifExists { notices.append("NOTICE:  user \"\(n)\" does not exist, skipping"); continue }
                    throw SQLError(.undefinedObject, "user \"\(n)\" does not exist")
                }
                if n == user || n == sessionUser { throw SQLError(.objectInUse, "current user cannot be dropped") }
                if database.openSessions.contains(where: { $0.sessionUser == n && $0 !== self }) {
                    throw SQLError(.objectInUse, "user \"\(n)\" cannot be dropped because it is connected")
                }
                let catalog = transaction.catalog
                try transaction.changeSecurity(SecurityChange { try $0.dropUser(n, objectName: { catalog.objectName($0) }) })
            }
            return StatementResult(tag: "DROP USER", notices: notices)
        case .createGroup(let name, let users):
            try requireSuperuser("create groups")
            try checkPrincipalName(name)
            try transaction.changeSecurity(SecurityChange { try $0.createGroup(name, members: users) })
            return StatementResult(tag: "CREATE GROUP")
        case .alterGroup(let name, let add, let drop):
            try requireSuperuser("alter groups")
            try transaction.changeSecurity(SecurityChange { try $0.alterGroup(name, add: add, drop: drop) })
            return StatementResult(tag: "ALTER GROUP")
        case .renameGroup(let old, let new):
            try requireSuperuser("rename groups")
            try transaction.changeSecurity(SecurityChange { try $0.renameGroup(old, to: new) })
            return StatementResult(tag: "ALTER GROUP")
        case .dropGroup(let names, let ifExists):
            try requireSuperuser("drop groups")
            for n in names where !(ifExists && security.group(n) == nil) {
                try transaction.changeSecurity(SecurityChange { try $0.dropGroup(n) })
            }
            return StatementResult(tag: "DROP GROUP")
        case .createRole(let name):
            try requireSuperuser("create roles")
            try checkPrincipalName(name)
            let owner = user
            try transaction.changeSecurity(SecurityChange { try $0.createRole(name, owner: owner) })
            return StatementResult(tag: "CREATE ROLE")
        case .dropRole(let names, let ifExists):
            try requireSuperuser("drop roles")
            for n in names where !(ifExists && security.role(n) == nil) {
                try transaction.changeSecurity(SecurityChange { try $0.dropRole(n) })
            }
            return StatementResult(tag: "DROP ROLE")
        case .grantRole(let roles, let grantees):
            try requireSuperuser("grant roles")
            let targets = try grantees.map { try roleGrantee($0) }
            try transaction.changeSecurity(SecurityChange { sec in
                for r in roles { for g in targets { try sec.grantRole(r, to: g) } }
            })
            return StatementResult(tag: "GRANT")
        case .revokeRole(let roles, let grantees):
            try requireSuperuser("revoke roles")
            let targets = try grantees.map { try roleGrantee($0) }
            try transaction.changeSecurity(SecurityChange { sec in
                for r in roles { for g in targets { try sec.revokeRole(r, from: g) } }
            })
            return StatementResult(tag: "REVOKE")
        case .grant(let g):
            try grantOrRevoke(g, revoke: false)
            return StatementResult(tag: "GRANT")
        case .revoke(let g):
            try grantOrRevoke(g, revoke: true)
            return StatementResult(tag: "REVOKE")
        case .alterDefaultPrivileges(let forUsers, let schemas, let revoke, let g):
            let owners = forUsers.isEmpty ? [user] : forUsers
            if owners != [user] { try requireSuperuser("alter default privileges for other users") }
            for o in owners where security.user(o) == nil { throw SQLError(.undefinedObject, "user \"\(o)\" does not exist") }
            let privileges = try privilegeSet(g.privileges, onSchema: false).reduce(into: Set<Privilege>()) { $0.formUnion($1.0) }
            let grantees = try g.grantees.map { try grantee($0) }
            let grantable = g.grantOption && !revoke ? privileges : []
            try transaction.changeSecurity(SecurityChange { sec in
                for o in owners {
                    for s in (schemas.isEmpty ? [nil] : schemas.map { Optional($0) }) {
                        for who in grantees {
                            sec.alterDefaults(owner: o, schema: s, grantee: who, privileges: privileges, grantable: grantable,
                                              revoke: revoke)
                        }
                    }
                }
            })
            return StatementResult(tag: "ALTER DEFAULT PRIVILEGES")
        case .setSessionAuthorization(let name):
            guard security.isSuperuser(sessionUser) else {
                throw SQLError(.insufficientPrivilege, "permission denied to set session authorization")
            }
            let target = name ?? sessionUser
            guard security.user(target) != nil else { throw SQLError(.undefinedObject, "user \"\(target)\" does not exist") }
            user = target
            return StatementResult(tag: "SET")
        case .alterOwner(let target, let newOwner):
            guard security.user(newOwner) != nil else { throw SQLError(.undefinedObject, "user \"\(newOwner)\" does not exist") }
            switch target {
            case .tables(let names):
                for n in names {
                    let object = try objectOf(n)
                    if !isSuperuser && security.owner(object.object) != user {
                        throw SQLError(.insufficientPrivilege, "must be owner of relation \(n.name)")
                    }
                    try transaction.changeSecurity(SecurityChange { $0.setOwner(object.object, newOwner) })
                }
                return StatementResult(tag: "ALTER TABLE")
            case .schemas(let names):
                try requireSuperuser("change a schema's owner")
                for n in names {
                    try transaction.changeSecurity(SecurityChange { $0.setOwner(.schema(n.lowercased()), newOwner) })
                }
                return StatementResult(tag: "ALTER SCHEMA")
            default:
                throw SQLError(.syntax, "syntax error in ALTER ... OWNER TO")
            }
        }
    }

    func requireSuperuser(_ what: String) throws {
        guard isSuperuser else { throw SQLError(.insufficientPrivilege, "permission denied: must be superuser to \(what)") }
    }

    private func checkPrincipalName(_ name: String) throws {
        if name == "public" { throw SQLError(.reservedName, "user name \"public\" is reserved") }
        if name.isEmpty || name.utf8.count > 127 { throw SQLError(.invalidParameter, "invalid name \"\(name)\"") }
    }

    private func validUntil(_ text: String?) throws -> Int64? {
        guard let text else { return nil }
        if text.lowercased() == "infinity" { return nil }
        guard let t = DateTime.parseTimestamp(text) ?? DateTime.parseDate(text).map({ $0 * DateTime.microsPerDay }) else {
            throw SQLError(.invalidDatetime, "invalid input syntax for type abstime: \"\(text)\"")
        }
        return t
    }

    private func connectionLimit(_ n: Int64?) throws -> Int? {
        guard let n, n >= 0 else { return nil }
        guard n <= 500 else { throw SQLError(.invalidParameter, "CONNECTION LIMIT must be at most 500 or UNLIMITED") }
        return Int(n)
    }

    private func grantee(_ g: GranteeName) throws -> Grantee {
        let sec = security
        switch g {
        case .user(let n):
            if sec.user(n) != nil { return .user(n) }
            if sec.role(n) != nil { return .role(n) }
            throw SQLError(.undefinedObject, "user \"\(n)\" does not exist")
        case .group(let n):
            guard sec.group(n) != nil else { throw SQLError(.undefinedObject, "group \"\(n)\" does not exist") }
            return .group(n)
        case .role(let n):
            guard sec.role(n) != nil else { throw SQLError(.undefinedObject, "role \"\(n)\" does not exist") }
            return .role(n)
        case .public:
            return .public
        }
    }

    private func roleGrantee(_ g: GranteeName) throws -> Grantee {
        switch try grantee(g) {
        case .user(let n): return .user(n)
        case .role(let n): return .role(n)
        default: throw SQLError(.invalidRoleSpecification, "a role can be granted to a user or a role only")
        }
    }

    /// The privileges a GRANT names: one table-level set (no columns), then one entry
    /// per column-level privilege with its columns.
    private func privilegeSet(_ items: [PrivilegeItem], onSchema: Bool) throws -> [(Set<Privilege>, [String])] {
        var whole = Set<Privilege>(), perColumn: [(Set<Privilege>, [String])] = []
        for item in items {
            var set = Set<Privilege>()
            if item.name == "all" {
                set = Set(onSchema ? Privilege.schema : Privilege.table)
            } else if item.name == "temp" || item.name == "execute" || item.name == "rule" || item.name == "trigger" {
                continue   // database TEMP, function EXECUTE: nothing to enforce here
            } else if let p = Privilege(rawValue: item.name) {
                let allowed = onSchema ? Privilege.schema : Privilege.table
                guard allowed.contains(p) else {
                    throw SQLError(.invalidGrantOperation, "invalid privilege type \(item.name.uppercased()) for \(onSchema ? "schema" : "relation")")
                }
                set = [p]
            }
            if item.columns.isEmpty {
                whole.formUnion(set)
            } else {
                guard item.name == "select" || item.name == "update" || item.name == "all" else {
                    throw SQLError(.invalidGrantOperation, "column privileges are only valid for SELECT and UPDATE")
                }
                perColumn.append((set.intersection([.select, .update]), item.columns))
            }
        }
        return (whole.isEmpty ? [] : [(whole, [])]) + perColumn
    }

    /// A table or view by name, as a secured object, or `relation ... does not exist`.
    private func objectOf(_ name: ObjectName) throws -> (object: SecuredObject, table: TableDef?) {
        if let t = try resolveTable(name) { return (.table(t.id), t) }
        if let v = try resolveView(name) { return (.view(schema: v.schema, name: v.name.lowercased()), nil) }
        throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
    }

    private func grantOrRevoke(_ g: GrantStatement, revoke: Bool) throws {
        let grantees = try g.grantees.map { try grantee($0) }
        var objects: [(SecuredObject, String)] = []
        var onSchema = false
        switch g.target {
        case .tables(let names):
            for n in names { objects.append((try objectOf(n).object, n.name)) }
        case .allTablesInSchema(let schemas):
            let catalog = transaction.catalog
            for s in schemas {
                for t in catalog.allTables where t.schema.lowercased() == s.lowercased() && !t.isTemporary {
                    objects.append((.table(t.id), t.name))
                }
                // Views count as tables here, as in Redshift.
                for v in catalog.allViews where v.schema == s.lowercased() {
                    objects.append((.view(schema: v.schema, name: v.name.lowercased()), v.name))
                }
            }
        case .schemas(let schemas):
            onSchema = true
            for s in schemas { objects.append((.schema(s.lowercased()), s)) }
        case .database:
            return   // CREATE / TEMP / USAGE on the database: every user has them here
        case .procedures(let references):
            return try grantExecute(on: references, g.privileges, to: grantees, revoke: revoke)
        case .functions(let references):
            return try grantFunctionExecute(on: references, g.privileges, to: grantees, revoke: revoke)
        }
        let items = try privilegeSet(g.privileges, onSchema: onSchema)
        let columns = items.flatMap { $0.1 }
        if !columns.isEmpty, case .tables(let names) = g.target {
            for n in names {
                guard let t = try objectOf(n).table else { continue }
                for c in columns where t.columnIndex(c) == nil {
                    throw SQLError(.undefinedColumn, "column \"\(c)\" of relation \"\(t.name)\" does not exist")
                }
            }
        }
        let sec = security, who = user
        let all = items.reduce(into: Set<Privilege>()) { $0.formUnion($1.0) }
        for (object, name) in objects where !sec.isSuperuser(who) && sec.owner(object) != who {
            // Others may grant only what they hold WITH GRANT OPTION.
            if !all.isSubset(of: sec.granted(to: who, on: object).grantable) {
                throw Self.permissionDenied(onSchema ? "schema \(name)" : "relation \(name)")
            }
        }
        let grantOption = g.grantOption, targets = objects, cascade = g.cascade
        try transaction.changeSecurity(SecurityChange { sec in
            for (object, name) in targets {
                for target in grantees {
                    for (privileges, columns) in items {
                        if revoke {
                            sec.revoke(privileges, grantOptionOnly: grantOption, columns: columns, on: object, from: target)
                            // Grants the revoked user made with the grant option it lost.
                            guard case .user(let u) = target, columns.isEmpty else { continue }
                            if sec.dependentGrants(of: u, privileges, on: object).isEmpty { continue }
                            guard cascade else {
                                throw SQLError(.dependentObjectsStillExist, "dependent privileges exist",
                                               detail: "\(u) granted privileges on \(name) to other users with the grant option being revoked",
                                               hint: "Use CASCADE to revoke them too.")
                            }
                            sec.revokeDependents(of: u, privileges, on: object)
                        } else {
                            sec.grant(privileges, grantable: grantOption && columns.isEmpty ? privileges : [], columns: columns,
                                      on: object, to: target, by: who)
                        }
                    }
                }
            }
        })
    }

    // MARK: - has_table_privilege, has_schema_privilege

    /// `has_schema_privilege([user,] schema, 'usage' | 'create')`.
    func hasSchemaPrivilege(_ args: [Value]) throws -> Value {
        guard args.count == 2 || args.count == 3 else {
            throw SQLError(.undefinedFunction, "function has_schema_privilege takes 2 or 3 arguments")
        }
        if args.contains(where: { $0.isNull }) { return .null }
        let texts = args.map { $0.asString ?? "" }
        let who = args.count == 3 ? texts[0].lowercased() : user
        let schema = texts[texts.count - 2].lowercased()
        guard security.user(who) != nil else { throw SQLError(.undefinedObject, "user \"\(who)\" does not exist") }
        guard transaction.catalog.schema(schema) != nil || Catalog.systemSchemas.contains(schema)
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
        let who = args.count == 3 ? text(args[0]).lowercased() : user
        let table = text(args[args.count - 2]).lowercased()
        let privilegeText = text(args[args.count - 1]).lowercased()
        guard security.user(who) != nil else { throw SQLError(.undefinedObject, "user \"\(who)\" does not exist") }
        let parts = table.split(separator: ".").map(String.init)
        let name = parts.count >= 2 ? ObjectName(schema: parts[parts.count - 2], name: parts[parts.count - 1])
            : ObjectName(name: table)
        let object = try objectOf(name).object
        var any = false
        for word in privilegeText.split(separator: ",") {
            let w = word.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " with grant option", with: "")
            guard let p = Privilege(rawValue: w), Privilege.table.contains(p) else {
                throw SQLError(.invalidParameter, "unrecognized privilege type: \"\(word)\"")
            }
            if security.has(who, p, on: object) { any = true }
        }
        return .bool(any)
    }
}
