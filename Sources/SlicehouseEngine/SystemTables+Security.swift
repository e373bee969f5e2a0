// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage

/// The catalog views of users, groups, roles and privileges, in Redshift's shape.
extension SystemTables {
    static let securityNames = ["pg_user", "pg_group", "pg_roles", "svv_user_info", "svv_roles", "svv_user_grants",
                                "svv_relation_privileges"]

    func securityTable(named name: String) -> (TableDef, TableSnapshot)? {
        let sec = transaction.catalog.security
        func until(_ u: UserDef) -> Value { u.validUntil.map { .int($0) } ?? .null }
        switch name {
        case "pg_user":
            let rows = sec.allUsers.map { u -> [Value] in
                // useconfig: `ALTER USER ... SET`'s values as PostgreSQL lists them (`{name=value,...}`).
                let config = (u.settings ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return [.string(u.name), .int(Int64(u.id)), .bool(u.createDB), .bool(u.superuser), .bool(u.superuser),
                        .string("********"), until(u), config.isEmpty ? .null : .string("{" + config.joined(separator: ",") + "}")]
            }
            return make(-80, name, [("usename", .varchar(128)), ("usesysid", .integer), ("usecreatedb", .boolean),
                                    ("usesuper", .boolean), ("usecatupd", .boolean), ("passwd", .varchar(128)),
                                    ("valuntil", .timestamp), ("useconfig", .varchar(256))], rows)
        case "pg_group":
            let rows = sec.allGroups.map { g -> [Value] in
                let ids = g.members.compactMap { sec.user($0)?.id }.map(String.init).joined(separator: ",")
                return [.string(g.name), .int(Int64(g.id)), .string("{\(ids)}")]
            }
            return make(-81, name, [("groname", .varchar(128)), ("grosysid", .integer), ("grolist", .array(.integer))], rows)
        case "pg_roles":
            var rows = sec.allUsers.map { u -> [Value] in
                [.string(u.name), .bool(u.superuser), .bool(true), .bool(u.superuser), .bool(u.createDB), .bool(u.superuser),
                 .bool(true), .int(Int64(u.connectionLimit ?? -1)), .string("********"), until(u), .null, .int(Int64(u.id))]
            }
            rows += sec.allRoles.map { r -> [Value] in
                [.string(r.name), .bool(false), .bool(true), .bool(false), .bool(false), .bool(false), .bool(false), .int(-1),
                 .string("********"), .null, .null, .int(Int64(r.id))]
            }
            return make(-82, name, [("rolname", .varchar(128)), ("rolsuper", .boolean), ("rolinherit", .boolean),
                                    ("rolcreaterole", .boolean), ("rolcreatedb", .boolean), ("rolcatupdate", .boolean),
                                    ("rolcanlogin", .boolean), ("rolconnlimit", .integer), ("rolpassword", .varchar(128)),
                                    ("rolvaliduntil", .timestamp), ("rolconfig", .varchar(256)), ("oid", .integer)], rows)
        case "svv_user_info":
            let rows = sec.allUsers.map { u -> [Value] in
                [.string(u.name), .int(Int64(u.id)), .bool(u.createDB), .bool(u.superuser), .bool(u.superuser),
                 .string(u.connectionLimit.map(String.init) ?? "UNLIMITED"),
                 .string(u.syslogUnrestricted ? "UNRESTRICTED" : "RESTRICTED"), .null, .int(0), .null]
            }
            return make(-83, name, [("user_name", .text), ("user_id", .integer), ("createdb", .boolean), ("superuser", .boolean),
                                    ("catalog_update", .boolean), ("connection_limit", .text), ("syslog_access", .text),
                                    ("last_updated_password", .timestamp), ("user_session_timeout", .integer),
                                    ("external_user_id", .text)], rows)
        case "svv_roles":
            let rows = sec.allRoles.map { r -> [Value] in [.int(Int64(r.id)), .string(r.name), .string(r.owner), .null] }
            return make(-84, name, [("role_id", .integer), ("role_name", .varchar(128)), ("role_owner", .varchar(128)),
                                    ("external_id", .varchar(256))], rows)
        case "svv_user_grants":
            var rows: [[Value]] = []
            for u in sec.allUsers {
                for r in sec.allRoles where sec.roles(of: u.name).contains(r.name) {
                    rows.append([.int(Int64(u.id)), .string(u.name), .int(Int64(r.id)), .string(r.name), .bool(false)])
                }
            }
            return make(-85, name, [("user_id", .integer), ("user_name", .varchar(128)), ("role_id", .integer),
                                    ("role_name", .varchar(128)), ("admin_option", .boolean)], rows)
        case "svv_relation_privileges":
            var rows: [[Value]] = []
            let catalog = transaction.catalog
            for e in sec.entries {
                let relation: (String, String)
                switch e.object {
                case .table(let id):
                    guard let t = catalog.table(id: id) else { continue }
                    relation = (t.schema, t.name)
                case .view(let schema, let n): relation = (schema, n)
                case .schema: continue
                }
                let (identity, type, id): (String, String, Int)
                switch e.grantee {
                case .user(let n): (identity, type, id) = (n, "user", sec.user(n)?.id ?? 0)
                case .group(let n): (identity, type, id) = (n, "group", sec.group(n)?.id ?? 0)
                case .role(let n): (identity, type, id) = (n, "role", sec.role(n)?.id ?? 0)
                case .public: (identity, type, id) = ("public", "public", 0)
                }
                for p in e.privileges.sorted() {
                    rows.append([.string(relation.0), .string(relation.1), .string(p.rawValue.uppercased()), .int(Int64(id)),
                                 .string(identity), .string(type), .bool(e.grantable.contains(p))])
                }
            }
            return make(-86, name, [("namespace_name", .varchar(128)), ("relation_name", .varchar(128)),
                                    ("privilege_type", .varchar(32)), ("identity_id", .integer), ("identity_name", .varchar(128)),
                                    ("identity_type", .varchar(32)), ("admin_option", .boolean)], rows)
        default:
            return nil
        }
    }
}
