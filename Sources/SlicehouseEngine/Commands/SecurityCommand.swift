// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog

/// The security commands: CREATE / ALTER / DROP USER and GROUP, SET SESSION
/// AUTHORIZATION, ALTER ... OWNER TO, GRANT and REVOKE (on tables, views, schemas,
/// functions, procedures and roles, WITH GRANT OPTION, CASCADE). Each changes the
/// catalog's `Security` in the statement's transaction (`SecurityChange`), checked as
/// Redshift checks it (superusers, owners, grant options). The checks a statement makes
/// of what the session user may do stay with the session (`Session+Security.swift`).
struct SecurityCommand {
    let session: Session

    func run(_ s: SecurityStatement) throws -> StatementResult {
        switch s {
        case .createUser(let name, let o):
            try session.access.requireSuperuser("create users")
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
            try session.transaction.changeSecurity(SecurityChange { sec in
                try sec.createUser(newUser)
                for g in groups { try sec.alterGroup(g, add: [name], drop: []) }
            })
            return StatementResult(tag: "CREATE USER")
        case .alterUser(let name, let o):
            guard var u = session.security.user(name) else { throw SQLError(.undefinedObject, "user \"\(name)\" does not exist") }
            // A user may change its own password; everything else is a superuser's.
            let onlyOwnPassword = name == session.user && o.createDB == nil && o.createUser == nil && o.syslogUnrestricted == nil
                && o.validUntil == nil && o.connectionLimit == nil && o.inGroups.isEmpty
                && { if case .text? = o.password { return true }; return false }()
            if !onlyOwnPassword { try session.access.requireSuperuser("alter users") }
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
            try session.transaction.changeSecurity(SecurityChange { $0.replaceUser(changed) })
            return StatementResult(tag: "ALTER USER")
        case .alterUserSetting(let name, let s):
            guard var u = session.security.user(name) else { throw SQLError(.undefinedObject, "user \"\(name)\" does not exist") }
            // A user may set its own defaults; another user's are a superuser's to set.
            if name != session.user { try session.access.requireSuperuser("alter users") }
            var settings = u.settings ?? [:]
            if s.name == "all" && s.values.isEmpty {
                settings = [:]
            } else {
                guard Session.settableParameters[s.name] != nil || Session.clientParameters.contains(s.name) else {
                    throw SQLError(.undefinedObject, "unrecognized configuration parameter \"\(s.name)\"")
                }
                settings[s.name] = s.isDefault ? nil : try session.settingValue(s)
            }
            u.settings = settings.isEmpty ? nil : settings
            let changed = u
            try session.transaction.changeSecurity(SecurityChange { $0.replaceUser(changed) })
            return StatementResult(tag: "ALTER USER")
        case .renameUser(let old, let new):
            try session.access.requireSuperuser("rename users")
            try checkPrincipalName(new)
            if old == session.sessionUser { throw SQLError(.featureNotSupported, "session user cannot be renamed") }
            // The md5 hash includes the name: Redshift clears the password of a renamed user.
            try session.transaction.changeSecurity(SecurityChange { sec in
                try sec.renameUser(old, to: new)
                if var u = sec.user(new), u.password.map({ $0.scram == nil }) ?? false {
                    u.password = nil
                    sec.replaceUser(u)
                }
            })
            // The databases it owns follow it.
            for var d in session.transaction.catalog.allDatabases where d.owner == old {
                d.owner = new
                try session.transaction.alterDatabase(d.name, d)
            }
            return StatementResult(tag: "ALTER USER", notices: ["NOTICE:  MD5 password cleared because of user rename"])
        case .dropUser(let names, let ifExists):
            try session.access.requireSuperuser("drop users")
            var notices: [String] = []
            for n in names {
                if session.security.user(n) == nil {
                    if ifExists { notices.append("NOTICE:  user \"\(n)\" does not exist, skipping"); continue }
                    throw SQLError(.undefinedObject, "user \"\(n)\" does not exist")
                }
                if n == session.user || n == session.sessionUser { throw SQLError(.objectInUse, "current user cannot be dropped") }
                if session.database.openSessions.contains(where: { $0.sessionUser == n && $0 !== session }) {
                    throw SQLError(.objectInUse, "user \"\(n)\" cannot be dropped because it is connected")
                }
                let catalog = session.transaction.catalog
                if let owned = catalog.allDatabases.first(where: { $0.owner == n }) {
                    throw SQLError(.dependentObjectsStillExist, "user \"\(n)\" cannot be dropped because the user owns some object",
                                   detail: "owner of database \(owned.name)")
                }
                try session.transaction.changeSecurity(SecurityChange { try $0.dropUser(n, objectName: { catalog.objectName($0) }) })
            }
            return StatementResult(tag: "DROP USER", notices: notices)
        case .createGroup(let name, let users):
            try session.access.requireSuperuser("create groups")
            try checkPrincipalName(name)
            try session.transaction.changeSecurity(SecurityChange { try $0.createGroup(name, members: users) })
            return StatementResult(tag: "CREATE GROUP")
        case .alterGroup(let name, let add, let drop):
            try session.access.requireSuperuser("alter groups")
            try session.transaction.changeSecurity(SecurityChange { try $0.alterGroup(name, add: add, drop: drop) })
            return StatementResult(tag: "ALTER GROUP")
        case .renameGroup(let old, let new):
            try session.access.requireSuperuser("rename groups")
            try session.transaction.changeSecurity(SecurityChange { try $0.renameGroup(old, to: new) })
            return StatementResult(tag: "ALTER GROUP")
        case .dropGroup(let names, let ifExists):
            try session.access.requireSuperuser("drop groups")
            for n in names where !(ifExists && session.security.group(n) == nil) {
                try session.transaction.changeSecurity(SecurityChange { try $0.dropGroup(n) })
            }
            return StatementResult(tag: "DROP GROUP")
        case .createRole(let name):
            try session.access.requireSuperuser("create roles")
            try checkPrincipalName(name)
            let owner = session.user
            try session.transaction.changeSecurity(SecurityChange { try $0.createRole(name, owner: owner) })
            return StatementResult(tag: "CREATE ROLE")
        case .dropRole(let names, let ifExists):
            try session.access.requireSuperuser("drop roles")
            for n in names where !(ifExists && session.security.role(n) == nil) {
                try session.transaction.changeSecurity(SecurityChange { try $0.dropRole(n) })
            }
            return StatementResult(tag: "DROP ROLE")
        case .grantRole(let roles, let grantees):
            try session.access.requireSuperuser("grant roles")
            let targets = try grantees.map { try roleGrantee($0) }
            try session.transaction.changeSecurity(SecurityChange { sec in
                for r in roles { for g in targets { try sec.grantRole(r, to: g) } }
            })
            return StatementResult(tag: "GRANT")
        case .revokeRole(let roles, let grantees):
            try session.access.requireSuperuser("revoke roles")
            let targets = try grantees.map { try roleGrantee($0) }
            try session.transaction.changeSecurity(SecurityChange { sec in
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
            let owners = forUsers.isEmpty ? [session.user] : forUsers
            if owners != [session.user] { try session.access.requireSuperuser("alter default privileges for other users") }
            for o in owners where session.security.user(o) == nil { throw SQLError(.undefinedObject, "user \"\(o)\" does not exist") }
            let privileges = try privilegeSet(g.privileges, onSchema: false).reduce(into: Set<Privilege>()) { $0.formUnion($1.0) }
            let grantees = try g.grantees.map { try grantee($0) }
            let grantable = g.grantOption && !revoke ? privileges : []
            try session.transaction.changeSecurity(SecurityChange { sec in
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
            guard session.security.isSuperuser(session.sessionUser) else {
                throw SQLError(.insufficientPrivilege, "permission denied to set session authorization")
            }
            let target = name ?? session.sessionUser
            guard session.security.user(target) != nil else { throw SQLError(.undefinedObject, "user \"\(target)\" does not exist") }
            session.user = target
            return StatementResult(tag: "SET")
        case .alterOwner(let target, let newOwner):
            guard session.security.user(newOwner) != nil else { throw SQLError(.undefinedObject, "user \"\(newOwner)\" does not exist") }
            switch target {
            case .tables(let names):
                for n in names {
                    let object = try session.access.objectOf(n)
                    if !session.isSuperuser && session.security.owner(object.object) != session.user {
                        throw SQLError(.insufficientPrivilege, "must be owner of relation \(n.name)")
                    }
                    try session.transaction.changeSecurity(SecurityChange { $0.setOwner(object.object, newOwner) })
                }
                return StatementResult(tag: "ALTER TABLE")
            case .schemas(let names):
                try session.access.requireSuperuser("change a schema's owner")
                for n in names {
                    try session.transaction.changeSecurity(SecurityChange { $0.setOwner(.schema(n), newOwner) })
                }
                return StatementResult(tag: "ALTER SCHEMA")
            default:
                throw SQLError(.syntax, "syntax error in ALTER ... OWNER TO")
            }
        }
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
        let sec = session.security
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
    private func grantOrRevoke(_ g: GrantStatement, revoke: Bool) throws {
        let grantees = try g.grantees.map { try grantee($0) }
        var objects: [(SecuredObject, String)] = []
        var onSchema = false
        switch g.target {
        case .tables(let names):
            for n in names { objects.append((try session.access.objectOf(n).object, n.name)) }
        case .allTablesInSchema(let schemas):
            let catalog = session.transaction.catalog
            for s in schemas {
                for t in catalog.allTables where t.schema == s && !t.isTemporary {
                    objects.append((.table(t.id), t.name))
                }
                // Views count as tables here, as in Redshift.
                for v in catalog.allViews where v.schema == s {
                    objects.append((.view(schema: v.schema, name: v.name), v.name))
                }
            }
        case .schemas(let schemas):
            onSchema = true
            for s in schemas { objects.append((.schema(s), s)) }
        case .database:
            return   // CREATE / TEMP / USAGE on the database: every user has them here
        case .procedures(let references):
            return try ProcedureCommand(session: session).grantExecute(on: references, g.privileges, to: grantees, revoke: revoke)
        case .functions(let references):
            return try FunctionCommand(session: session).grantFunctionExecute(on: references, g.privileges, to: grantees, revoke: revoke)
        }
        let items = try privilegeSet(g.privileges, onSchema: onSchema)
        let columns = items.flatMap { $0.1 }
        if !columns.isEmpty, case .tables(let names) = g.target {
            for n in names {
                guard let t = try session.access.objectOf(n).table else { continue }
                for c in columns where t.columnIndex(c) == nil {
                    throw SQLError(.undefinedColumn, "column \"\(c)\" of relation \"\(t.name)\" does not exist")
                }
            }
        }
        let sec = session.security, who = session.user
        let all = items.reduce(into: Set<Privilege>()) { $0.formUnion($1.0) }
        for (object, name) in objects where !sec.isSuperuser(who) && sec.owner(object) != who {
            // Others may grant only what they hold WITH GRANT OPTION.
            if !all.isSubset(of: sec.granted(to: who, on: object).grantable) {
                throw AccessControl.permissionDenied(onSchema ? "schema \(name)" : "relation \(name)")
            }
        }
        let grantOption = g.grantOption, targets = objects, cascade = g.cascade
        try session.transaction.changeSecurity(SecurityChange { sec in
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
}
