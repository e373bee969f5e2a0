// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// How a user's password is kept: PostgreSQL's `md5` hash (md5 of password + user
/// name, as Redshift's `CREATE USER ... PASSWORD 'md5...'` gives it) and, when the
/// clear text was known, a SCRAM-SHA-256 verifier. The clear text itself is never kept.
/// (The hashing lives in the engine, which has the crypto library.)
public struct PasswordCredential: Codable, Sendable, Equatable {
    /// "md5" followed by 32 hex digits.
    public var md5: String
    public var scram: ScramVerifier?

    public init(md5: String, scram: ScramVerifier?) { self.md5 = md5; self.scram = scram }
}

/// SCRAM-SHA-256's stored form of a password (RFC 5802, RFC 7677).
public struct ScramVerifier: Codable, Sendable, Equatable {
    public var salt: [UInt8]
    public var iterations: Int
    public var storedKey: [UInt8]
    public var serverKey: [UInt8]

    public init(salt: [UInt8], iterations: Int, storedKey: [UInt8], serverKey: [UInt8]) {
        self.salt = salt; self.iterations = iterations; self.storedKey = storedKey; self.serverKey = serverKey
    }
}

/// A database user (Redshift's pg_user row).
public struct UserDef: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    /// CREATEUSER: a superuser (Redshift's CREATEUSER makes one).
    public var superuser: Bool
    public var createDB: Bool
    /// nil: PASSWORD DISABLE (no password logins).
    public var password: PasswordCredential?
    /// VALID UNTIL, microseconds since 1970 (nil: forever).
    public var validUntil: Int64?
    /// CONNECTION LIMIT (nil: UNLIMITED).
    public var connectionLimit: Int?
    /// SYSLOG ACCESS UNRESTRICTED.
    public var syslogUnrestricted: Bool
    /// `ALTER USER name SET parameter TO value`: the values the user's sessions start
    /// with (nil in catalogs written before, and when there are none).
    public var settings: [String: String]?

    public init(id: Int, name: String, superuser: Bool = false, createDB: Bool = false, password: PasswordCredential?,
                validUntil: Int64? = nil, connectionLimit: Int? = nil, syslogUnrestricted: Bool = false) {
        self.id = id; self.name = name; self.superuser = superuser; self.createDB = createDB; self.password = password
        self.validUntil = validUntil; self.connectionLimit = connectionLimit; self.syslogUnrestricted = syslogUnrestricted
    }
}

/// A user group (CREATE GROUP): a named set of users that privileges can be granted to.
public struct GroupDef: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var members: [String]
    public init(id: Int, name: String, members: [String]) { self.id = id; self.name = name; self.members = members }
}

/// A role (CREATE ROLE): granted to users and to other roles, privileges granted to it
/// reach every user it is granted to, directly or through other roles.
public struct RoleDef: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var owner: String
    /// Users this role is granted to.
    public var users: [String]
    /// Roles this role is granted to.
    public var roles: [String]
    public init(id: Int, name: String, owner: String, users: [String] = [], roles: [String] = []) {
        self.id = id; self.name = name; self.owner = owner; self.users = users; self.roles = roles
    }
}

/// Who a privilege is granted to.
public enum Grantee: Codable, Sendable, Hashable, CustomStringConvertible {
    case user(String)
    case group(String)
    case role(String)
    case `public`

    public var description: String {
        switch self {
        case .user(let n): return n
        case .group(let n): return "group \(n)"
        case .role(let n): return "role \(n)"
        case .public: return "public"
        }
    }
}

/// A privilege on a table, view or schema (Redshift's GRANT).
public enum Privilege: String, Codable, Sendable, CaseIterable, Comparable {
    case select, insert, update, delete, drop, references, alter, truncate
    case create, usage

    /// What `ALL [PRIVILEGES]` means on a table or view.
    public static let table: [Privilege] = [.select, .insert, .update, .delete, .drop, .references, .alter, .truncate]
    /// What `ALL [PRIVILEGES]` means on a schema.
    public static let schema: [Privilege] = [.create, .usage]

    /// Redshift's one-letter ACL code (`relacl`; PG_DEFAULT_ACL's page lists them:
    /// TRUNCATE is `P`, ALTER `A`, DROP `D`).
    public var aclLetter: Character {
        switch self {
        case .select: return "r"
        case .insert: return "a"
        case .update: return "w"
        case .delete: return "d"
        case .drop: return "D"
        case .references: return "x"
        case .alter: return "A"
        case .truncate: return "P"
        case .create: return "C"
        case .usage: return "U"
        }
    }

    public static func < (a: Privilege, b: Privilege) -> Bool {
        Privilege.allCases.firstIndex(of: a) ?? 0 < Privilege.allCases.firstIndex(of: b) ?? 0
    }
}

/// What a privilege is on. Tables are named by id (so a rename keeps its grants), views
/// and schemas by their lower-case names.
public enum SecuredObject: Codable, Sendable, Hashable {
    case table(Int)
    case view(schema: String, name: String)
    case schema(String)
}

/// One grantee's privileges on one object.
public struct ACLEntry: Codable, Sendable, Equatable {
    public var object: SecuredObject
    public var grantee: Grantee
    public var privileges: Set<Privilege>
    /// The privileges it may grant on (WITH GRANT OPTION).
    public var grantable: Set<Privilege>
    /// Column-level grants (SELECT and UPDATE), by column name.
    public var columns: [String: Set<Privilege>]
    /// Who granted them.
    public var grantor: String

    public init(object: SecuredObject, grantee: Grantee, privileges: Set<Privilege> = [], grantable: Set<Privilege> = [],
                columns: [String: Set<Privilege>] = [:], grantor: String) {
        self.object = object; self.grantee = grantee; self.privileges = privileges; self.grantable = grantable
        self.columns = columns; self.grantor = grantor
    }

    var isEmpty: Bool { privileges.isEmpty && columns.values.allSatisfy { $0.isEmpty } }
}

/// ALTER DEFAULT PRIVILEGES: privileges given to `grantee` on tables that `owner`
/// creates later (in `schema`, or anywhere when nil).
public struct DefaultPrivilege: Codable, Sendable, Equatable {
    public var owner: String
    public var schema: String?
    public var grantee: Grantee
    public var privileges: Set<Privilege>
    public var grantable: Set<Privilege>
    public init(owner: String, schema: String?, grantee: Grantee, privileges: Set<Privilege>, grantable: Set<Privilege> = []) {
        self.owner = owner; self.schema = schema; self.grantee = grantee; self.privileges = privileges; self.grantable = grantable
    }
}

/// One database's owners, grants and default privileges (`Security` keeps one for each
/// database of the cluster; users, groups and roles are the cluster's).
public struct ObjectGrants: Codable, Sendable, Equatable {
    /// Owners of tables, views and schemas (user names).
    var owners: [SecuredObject: String] = [:]
    var acl: [ACLEntry] = []
    var defaults: [DefaultPrivilege] = []

    /// A new database's: the `public` schema, owned by `owner`, usable and open for
    /// creating by everyone, as in Redshift.
    static func initial(owner: String) -> ObjectGrants {
        var g = ObjectGrants()
        g.acl.append(ACLEntry(object: .schema("public"), grantee: .public, privileges: [.create, .usage], grantor: owner))
        g.owners[.schema("public")] = owner
        return g
    }
}

/// Users, groups, roles, owners and privileges: the part of the catalog that decides
/// who may do what. Kept whole in the manifest and in a commit record when it changes.
///
/// Users, groups and roles belong to the cluster; owners and grants to one database
/// each. Like `Catalog`, the value shows one database's grants at a time (`database`,
/// chosen with `use(database:)`); the others wait in `elsewhere`.
public struct Security: Codable, Sendable, Equatable {
    public private(set) var users: [String: UserDef] = [:]
    public private(set) var groups: [String: GroupDef] = [:]
    public private(set) var roles: [String: RoleDef] = [:]
    /// The current database's owners, grants and default privileges.
    private var grants = ObjectGrants()
    private var owners: [SecuredObject: String] {
        get { grants.owners }
        _modify { yield &grants.owners }
    }
    private var acl: [ACLEntry] {
        get { grants.acl }
        _modify { yield &grants.acl }
    }
    private var defaults: [DefaultPrivilege] {
        get { grants.defaults }
        _modify { yield &grants.defaults }
    }
    /// Every other database's.
    private var elsewhere: [String: ObjectGrants] = [:]
    /// The database whose grants this value shows.
    public private(set) var database = Security.defaultDatabase
    public private(set) var nextID = 101

    /// The database every cluster starts with (Redshift's `dev`).
    public static let defaultDatabase = "dev"

    /// Show `name`'s grants (a database without any yet starts with none).
    /// `keepingCurrent` false: the database shown now no longer exists; its grants go.
    public mutating func use(database name: String, keepingCurrent: Bool = true) {
        guard name != database else { return }
        if keepingCurrent { elsewhere[database] = grants }
        grants = elsewhere.removeValue(forKey: name) ?? ObjectGrants()
        database = name
    }

    /// A new database: its `public` schema owned by `owner` and open to everyone.
    public mutating func createDatabase(_ name: String, owner: String) {
        if name == database { grants = .initial(owner: owner) } else { elsewhere[name] = .initial(owner: owner) }
    }

    /// A dropped database's owners and grants go with it.
    public mutating func dropDatabase(_ name: String) {
        if name == database { grants = ObjectGrants() } else { elsewhere[name] = nil }
    }

    /// A renamed database keeps its owners and grants.
    public mutating func renameDatabase(_ old: String, to new: String) {
        guard old != new else { return }
        if old == database {
            database = new
        } else if let g = elsewhere.removeValue(forKey: old) {
            elsewhere[new] = g
        }
    }

    /// Every database's grants (the current one's included), by database name.
    private var everyDatabase: [String: ObjectGrants] {
        var all = elsewhere
        all[database] = grants
        return all
    }

    /// Apply `body` to every database's grants.
    private mutating func forEveryDatabase(_ body: (inout ObjectGrants) -> Void) {
        body(&grants)
        for k in Array(elsewhere.keys) { body(&elsewhere[k, default: ObjectGrants()]) }
    }

    private enum CodingKeys: String, CodingKey {
        case users, groups, roles, owners, acl, defaults, nextID, databases
    }

    /// The default database's grants at the top level (as before there were databases),
    /// every other database's under `databases`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(users, forKey: .users)
        try c.encode(groups, forKey: .groups)
        try c.encode(roles, forKey: .roles)
        var all = everyDatabase
        let main = all.removeValue(forKey: Self.defaultDatabase) ?? ObjectGrants()
        try c.encode(main.owners, forKey: .owners)
        try c.encode(main.acl, forKey: .acl)
        try c.encode(main.defaults, forKey: .defaults)
        try c.encode(nextID, forKey: .nextID)
        if !all.isEmpty { try c.encode(all, forKey: .databases) }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        users = try c.decode([String: UserDef].self, forKey: .users)
        groups = try c.decode([String: GroupDef].self, forKey: .groups)
        roles = try c.decode([String: RoleDef].self, forKey: .roles)
        grants = ObjectGrants(owners: try c.decode([SecuredObject: String].self, forKey: .owners),
                              acl: try c.decode([ACLEntry].self, forKey: .acl),
                              defaults: try c.decode([DefaultPrivilege].self, forKey: .defaults))
        nextID = try c.decode(Int.self, forKey: .nextID)
        elsewhere = try c.decodeIfPresent([String: ObjectGrants].self, forKey: .databases) ?? [:]
    }

    /// Equal when every database's grants are (whichever database each shows).
    public static func == (a: Security, b: Security) -> Bool {
        a.users == b.users && a.groups == b.groups && a.roles == b.roles && a.nextID == b.nextID
            && a.everyDatabase == b.everyDatabase
    }

    /// The superuser every database starts with (Redshift's default admin user).
    public static let bootstrapSuperuser = "awsuser"

    /// A new database's: its superuser (no password yet: a server gives it one), and
    /// the `public` schema usable and open for creating by everyone, as in Redshift.
    public static func initial(superuser: String = bootstrapSuperuser) -> Security {
        var s = Security()
        s.users[superuser] = UserDef(id: 100, name: superuser, superuser: true, createDB: true, password: nil)
        s.grants = .initial(owner: superuser)
        return s
    }

    public init() {}

    // MARK: Reading

    public func user(_ name: String) -> UserDef? { users[name.lowercased()] }
    public func group(_ name: String) -> GroupDef? { groups[name.lowercased()] }
    public func role(_ name: String) -> RoleDef? { roles[name.lowercased()] }
    public func owner(_ object: SecuredObject) -> String? { owners[object] }

    public var allUsers: [UserDef] { users.values.sorted { $0.id < $1.id } }
    public var allGroups: [GroupDef] { groups.values.sorted { $0.id < $1.id } }
    public var allRoles: [RoleDef] { roles.values.sorted { $0.id < $1.id } }

    public func isSuperuser(_ name: String) -> Bool { users[name.lowercased()]?.superuser ?? false }

    /// The groups `user` belongs to.
    public func groups(of user: String) -> [String] {
        groups.values.filter { $0.members.contains(user) }.map { $0.name }.sorted()
    }

    /// Every role `user` holds, directly or through roles granted to its roles.
    public func roles(of user: String) -> Set<String> {
        var held = Set(roles.values.filter { $0.users.contains(user) }.map { $0.name })
        var frontier = Array(held)
        while let r = frontier.popLast() {
            for other in roles.values where other.roles.contains(r) && !held.contains(other.name) {
                held.insert(other.name)
                frontier.append(other.name)
            }
        }
        return held
    }

    /// The grantees whose privileges `user` has: itself, PUBLIC, its groups and roles.
    public func grantees(of user: String) -> Set<Grantee> {
        var g: Set<Grantee> = [.user(user), .public]
        for n in groups(of: user) { g.insert(.group(n)) }
        for r in roles(of: user) { g.insert(.role(r)) }
        return g
    }

    /// `user`'s privileges on `object` from grants (not counting ownership or superuser),
    /// with the column-level ones.
    public func granted(to user: String, on object: SecuredObject) -> (table: Set<Privilege>, columns: [String: Set<Privilege>],
                                                                         grantable: Set<Privilege>) {
        let who = grantees(of: user)
        var p = Set<Privilege>(), g = Set<Privilege>(), cols: [String: Set<Privilege>] = [:]
        for e in acl where e.object == object && who.contains(e.grantee) {
            p.formUnion(e.privileges)
            g.formUnion(e.grantable)
            for (c, cp) in e.columns { cols[c, default: []].formUnion(cp) }
        }
        return (p, cols, g)
    }

    /// Whether `user` holds `privilege` on the whole of `object`: a superuser and the
    /// owner hold every privilege.
    public func has(_ user: String, _ privilege: Privilege, on object: SecuredObject) -> Bool {
        if isSuperuser(user) || owners[object] == user { return true }
        return granted(to: user, on: object).table.contains(privilege)
    }

    /// The entries of the ACL, for system views.
    public var entries: [ACLEntry] { acl }

    // MARK: Changing

    public mutating func createUser(_ u: UserDef) throws {
        let key = u.name.lowercased()
        if users[key] != nil || roles[key] != nil {
            throw SQLError(.duplicateObject, "user \"\(u.name)\" already exists")
        }
        var u = u
        u.id = nextID
        nextID += 1
        users[key] = u
    }

    public mutating func replaceUser(_ u: UserDef) { users[u.name.lowercased()] = u }

    public mutating func renameUser(_ old: String, to new: String) throws {
        guard var u = users[old] else { throw SQLError(.undefinedObject, "user \"\(old)\" does not exist") }
        if users[new] != nil { throw SQLError(.duplicateObject, "user \"\(new)\" already exists") }
        users[old] = nil
        u.name = new
        users[new] = u
        for (k, g) in groups { groups[k]?.members = g.members.map { $0 == old ? new : $0 } }
        for (k, r) in roles {
            roles[k]?.users = r.users.map { $0 == old ? new : $0 }
            if r.owner == old { roles[k]?.owner = new }
        }
        forEveryDatabase { g in
            for (o, owner) in g.owners where owner == old { g.owners[o] = new }
            for i in g.acl.indices {
                if g.acl[i].grantee == .user(old) { g.acl[i].grantee = .user(new) }
                if g.acl[i].grantor == old { g.acl[i].grantor = new }
            }
            for i in g.defaults.indices {
                if g.defaults[i].owner == old { g.defaults[i].owner = new }
                if g.defaults[i].grantee == .user(old) { g.defaults[i].grantee = .user(new) }
            }
        }
    }

    /// Drop a user: refused while it owns objects (Redshift: `user "x" cannot be dropped
    /// because the user owns some object`); its grants and memberships go with it.
    public mutating func dropUser(_ name: String, objectName: (SecuredObject) -> String) throws {
        guard users[name] != nil else { throw SQLError(.undefinedObject, "user \"\(name)\" does not exist") }
        if let owned = owners.first(where: { $0.value == name }) {
            throw SQLError(.dependentObjectsStillExist, "user \"\(name)\" cannot be dropped because the user owns some object",
                           detail: "owner of \(objectName(owned.key))")
        }
        for (db, g) in elsewhere.sorted(by: { $0.key < $1.key }) where g.owners.values.contains(name) {
            throw SQLError(.dependentObjectsStillExist, "user \"\(name)\" cannot be dropped because the user owns some object",
                           detail: "owner of objects in database \(db)")
        }
        users[name] = nil
        for (k, g) in groups { groups[k]?.members = g.members.filter { $0 != name } }
        for (k, r) in roles { roles[k]?.users = r.users.filter { $0 != name } }
        forEveryDatabase { g in
            g.acl.removeAll { $0.grantee == .user(name) }
            g.defaults.removeAll { $0.owner == name || $0.grantee == .user(name) }
        }
    }

    public mutating func createGroup(_ name: String, members: [String]) throws {
        if groups[name] != nil { throw SQLError(.duplicateObject, "group \"\(name)\" already exists") }
        for m in members where users[m] == nil { throw SQLError(.undefinedObject, "user \"\(m)\" does not exist") }
        groups[name] = GroupDef(id: nextID, name: name, members: Self.unique(members))
        nextID += 1
    }

    public mutating func alterGroup(_ name: String, add: [String], drop: [String]) throws {
        guard var g = groups[name] else { throw SQLError(.undefinedObject, "group \"\(name)\" does not exist") }
        for m in add + drop where users[m] == nil { throw SQLError(.undefinedObject, "user \"\(m)\" does not exist") }
        g.members = Self.unique(g.members + add).filter { !drop.contains($0) }
        groups[name] = g
    }

    public mutating func renameGroup(_ old: String, to new: String) throws {
        guard var g = groups[old] else { throw SQLError(.undefinedObject, "group \"\(old)\" does not exist") }
        if groups[new] != nil { throw SQLError(.duplicateObject, "group \"\(new)\" already exists") }
        groups[old] = nil
        g.name = new
        groups[new] = g
        forEveryDatabase { g in
            for i in g.acl.indices where g.acl[i].grantee == .group(old) { g.acl[i].grantee = .group(new) }
            for i in g.defaults.indices where g.defaults[i].grantee == .group(old) { g.defaults[i].grantee = .group(new) }
        }
    }

    public mutating func dropGroup(_ name: String) throws {
        guard groups[name] != nil else { throw SQLError(.undefinedObject, "group \"\(name)\" does not exist") }
        groups[name] = nil
        forEveryDatabase { g in
            g.acl.removeAll { $0.grantee == .group(name) }
            g.defaults.removeAll { $0.grantee == .group(name) }
        }
    }

    public mutating func createRole(_ name: String, owner: String) throws {
        if Self.predefinedRoles.contains(name) { throw SQLError(.duplicateObject, "role \"\(name)\" already exists") }
        if roles[name] != nil || users[name] != nil { throw SQLError(.duplicateObject, "role \"\(name)\" already exists") }
        roles[name] = RoleDef(id: nextID, name: name, owner: owner)
        nextID += 1
    }

    public mutating func dropRole(_ name: String) throws {
        if Self.predefinedRoles.contains(name) {
            throw SQLError(.insufficientPrivilege, "role \"\(name)\" is predefined and cannot be dropped")
        }
        guard roles[name] != nil else { throw SQLError(.undefinedObject, "role \"\(name)\" does not exist") }
        roles[name] = nil
        for (k, r) in roles { roles[k]?.roles = r.roles.filter { $0 != name } }
        forEveryDatabase { g in
            g.acl.removeAll { $0.grantee == .role(name) }
            g.defaults.removeAll { $0.grantee == .role(name) }
        }
    }

    /// Roles every database has without CREATE ROLE (PostgreSQL's predefined roles that
    /// Slicehouse gives a meaning): a holder of `pg_read_server_files` may COPY from any
    /// server file, of `pg_write_server_files` UNLOAD to any (the data directory excepted),
    /// as superusers may. Each is made when it is first granted, owned by the bootstrap
    /// superuser, and cannot be dropped.
    public static let predefinedRoles: Set<String> = ["pg_read_server_files", "pg_write_server_files"]

    /// Whether `user` is a superuser or holds `role` (directly or through other roles).
    public func isSuperuserOrHolds(_ user: String, role: String) -> Bool {
        isSuperuser(user) || roles(of: user.lowercased()).contains(role)
    }

    /// GRANT ROLE `role` TO a user or another role (a cycle is refused).
    public mutating func grantRole(_ role: String, to grantee: Grantee) throws {
        if roles[role] == nil, Self.predefinedRoles.contains(role) {
            roles[role] = RoleDef(id: nextID, name: role, owner: Self.bootstrapSuperuser)
            nextID += 1
        }
        guard roles[role] != nil else { throw SQLError(.undefinedObject, "role \"\(role)\" does not exist") }
        switch grantee {
        case .user(let u):
            guard users[u] != nil else { throw SQLError(.undefinedObject, "user \"\(u)\" does not exist") }
            if roles[role]?.users.contains(u) == false { roles[role]?.users.append(u) }
        case .role(let r):
            guard roles[r] != nil else { throw SQLError(.undefinedObject, "role \"\(r)\" does not exist") }
            // A cycle: `r` is already granted, directly or not, to `role`.
            if r == role || rolesGranted(to: r).contains(role) {
                throw SQLError(.invalidGrantOperation, "granting role \"\(role)\" to role \"\(r)\" would create a cycle")
            }
            if roles[role]?.roles.contains(r) == false { roles[role]?.roles.append(r) }
        default:
            throw SQLError(.syntax, "a role can be granted to a user or a role")
        }
    }

    public mutating func revokeRole(_ role: String, from grantee: Grantee) throws {
        if roles[role] == nil, Self.predefinedRoles.contains(role) { return }
        guard roles[role] != nil else { throw SQLError(.undefinedObject, "role \"\(role)\" does not exist") }
        switch grantee {
        case .user(let u): roles[role]?.users.removeAll { $0 == u }
        case .role(let r): roles[role]?.roles.removeAll { $0 == r }
        default: break
        }
    }

    /// Roles that `role` is granted to, transitively (the roles that hold it).
    private func rolesGranted(to role: String) -> Set<String> {
        var out = Set<String>(), frontier = [role]
        while let r = frontier.popLast() {
            for h in roles[r]?.roles ?? [] where out.insert(h).inserted { frontier.append(h) }
        }
        return out
    }

    public mutating func setOwner(_ object: SecuredObject, _ owner: String?) { owners[object] = owner }

    /// A new table or view owned by `owner`: default privileges for its tables apply.
    public mutating func created(_ object: SecuredObject, schema: String, owner: String) {
        owners[object] = owner
        for d in defaults where d.owner == owner && (d.schema == nil || d.schema == schema) {
            grant(d.privileges, grantable: d.grantable, columns: [], on: object, to: d.grantee, by: owner)
        }
    }

    /// Forget an object (dropped): its owner and every grant on it.
    public mutating func forget(_ object: SecuredObject) {
        owners[object] = nil
        acl.removeAll { $0.object == object }
    }

    /// An object known by its name (a view) renamed: its owner and grants go with it.
    public mutating func rename(_ old: SecuredObject, to new: SecuredObject) {
        guard old != new else { return }
        if let o = owners.removeValue(forKey: old) { owners[new] = o }
        acl.removeAll { $0.object == new }
        for i in acl.indices where acl[i].object == old { acl[i].object = new }
    }

    /// ALTER SCHEMA ... RENAME TO: the schema's owner, grants and default privileges follow
    /// it (its tables' are by id; its views' follow each view as it moves).
    public mutating func renameSchema(_ old: String, to new: String) {
        rename(.schema(old), to: .schema(new))
        for i in defaults.indices where defaults[i].schema == old { defaults[i].schema = new }
    }

    /// Forget every object `exists` says is gone.
    public mutating func prune(_ exists: (SecuredObject) -> Bool) {
        for o in owners.keys where !exists(o) { owners[o] = nil }
        acl.removeAll { !exists($0.object) }
    }

    public mutating func grant(_ privileges: Set<Privilege>, grantable: Set<Privilege>, columns: [String],
                               on object: SecuredObject, to grantee: Grantee, by grantor: String) {
        var i = acl.firstIndex { $0.object == object && $0.grantee == grantee }
        if i == nil {
            acl.append(ACLEntry(object: object, grantee: grantee, grantor: grantor))
            i = acl.count - 1
        }
        guard let i else { return }
        if columns.isEmpty {
            acl[i].privileges.formUnion(privileges)
            acl[i].grantable.formUnion(grantable)
        } else {
            for c in columns { acl[i].columns[c, default: []].formUnion(privileges) }
        }
    }

    public mutating func revoke(_ privileges: Set<Privilege>, grantOptionOnly: Bool, columns: [String],
                                on object: SecuredObject, from grantee: Grantee) {
        for i in acl.indices where acl[i].object == object && acl[i].grantee == grantee {
            if columns.isEmpty {
                acl[i].grantable.subtract(privileges)
                if !grantOptionOnly {
                    acl[i].privileges.subtract(privileges)
                    // Revoking a table privilege revokes it on every column too (PostgreSQL).
                    for c in acl[i].columns.keys { acl[i].columns[c]?.subtract(privileges) }
                }
            } else if !grantOptionOnly {
                for c in columns { acl[i].columns[c]?.subtract(privileges) }
            }
        }
        acl.removeAll { $0.isEmpty && $0.grantable.isEmpty }
    }

    /// The grants of `privileges` on `object` that `grantor` made and could make only
    /// with a grant option it no longer holds (not its own object's, nor a superuser's):
    /// (grantee, privileges) pairs. PostgreSQL's "dependent privileges".
    public func dependentGrants(of grantor: String, _ privileges: Set<Privilege>, on object: SecuredObject)
        -> [(grantee: Grantee, privileges: Set<Privilege>)] {
        if isSuperuser(grantor) || owners[object] == grantor { return [] }
        let stillGrantable = granted(to: grantor, on: object).grantable
        let lost = privileges.subtracting(stillGrantable)
        if lost.isEmpty { return [] }
        return acl.compactMap { e in
            guard e.object == object, e.grantor == grantor, e.grantee != .user(grantor) else { return nil }
            let held = e.privileges.union(e.columns.values.reduce(into: Set<Privilege>()) { $0.formUnion($1) })
            let p = held.intersection(lost)
            return p.isEmpty ? nil : (e.grantee, p)
        }
    }

    /// REVOKE ... CASCADE: take `privileges` (and their grant option) from the grants that
    /// depended on `grantor`'s, and from the grants that depended on those, transitively.
    public mutating func revokeDependents(of grantor: String, _ privileges: Set<Privilege>, on object: SecuredObject) {
        var frontier = [grantor]
        var seen = Set<String>()
        while let g = frontier.popLast(), seen.insert(g).inserted {
            for d in dependentGrants(of: g, privileges, on: object) {
                revoke(d.privileges, grantOptionOnly: false, columns: [], on: object, from: d.grantee)
                if case .user(let u) = d.grantee { frontier.append(u) }
            }
        }
    }

    public mutating func alterDefaults(owner: String, schema: String?, grantee: Grantee, privileges: Set<Privilege>,
                                       grantable: Set<Privilege>, revoke: Bool) {
        if let i = defaults.firstIndex(where: { $0.owner == owner && $0.schema == schema && $0.grantee == grantee }) {
            if revoke {
                defaults[i].privileges.subtract(privileges)
                defaults[i].grantable.subtract(privileges)
                if defaults[i].privileges.isEmpty { defaults.remove(at: i) }
            } else {
                defaults[i].privileges.formUnion(privileges)
                defaults[i].grantable.formUnion(grantable)
            }
        } else if !revoke {
            defaults.append(DefaultPrivilege(owner: owner, schema: schema, grantee: grantee, privileges: privileges,
                                             grantable: grantable))
        }
    }

    public var defaultPrivileges: [DefaultPrivilege] { defaults }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}

/// A change to `Security`, replayed at commit onto the latest committed catalog (which
/// may hold other transactions' changes made meanwhile).
public struct SecurityChange: Sendable {
    public let apply: @Sendable (inout Security) throws -> Void
    public init(_ apply: @escaping @Sendable (inout Security) throws -> Void) { self.apply = apply }
}
