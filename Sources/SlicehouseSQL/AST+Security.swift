// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Users, groups, roles and privileges: CREATE/ALTER/DROP USER, GROUP, ROLE, GRANT,
// REVOKE, ALTER DEFAULT PRIVILEGES, SET SESSION AUTHORIZATION.

/// A user's options as CREATE USER / ALTER USER write them; nil: not given.
public struct UserOptions: Sendable, Hashable {
    public enum Password: Sendable, Hashable {
        /// Clear text, or an `md5...` hash, as written.
        case text(String)
        case disable
    }
    public var password: Password?
    public var createDB: Bool?
    public var createUser: Bool?
    public var syslogUnrestricted: Bool?
    public var inGroups: [String] = []
    /// VALID UNTIL's text ('infinity' or a timestamp).
    public var validUntil: String?
    /// CONNECTION LIMIT n; -1 for UNLIMITED.
    public var connectionLimit: Int64?
    /// SESSION TIMEOUT n (seconds): accepted.
    public var sessionTimeout: Int64?
    public init() {}
}

/// Who a GRANT or REVOKE names: `name`, `GROUP name`, `ROLE name` or `PUBLIC`.
public enum GranteeName: Sendable, Hashable {
    case user(String)
    case group(String)
    case role(String)
    case `public`
}

/// What a GRANT or REVOKE is on.
public enum GrantTarget: Sendable, Hashable {
    /// `[TABLE] t1, t2`.
    case tables([ObjectName])
    /// `ALL TABLES IN SCHEMA s1, s2`.
    case allTablesInSchema([String])
    /// `SCHEMA s1, s2`.
    case schemas([String])
    /// `DATABASE d` (CREATE, TEMP, USAGE: accepted, nothing to enforce here).
    case database(String)
    /// `PROCEDURE p(types), ...` (EXECUTE; AST+Procedures.swift).
    case procedures([ProcedureReference])
    /// `FUNCTION f(types), ...` (EXECUTE on SQL functions).
    case functions([ProcedureReference])
}

/// One privilege as written, with its columns for column-level grants.
public struct PrivilegeItem: Sendable, Hashable {
    /// Lower case: select, insert, update, delete, drop, references, alter, truncate,
    /// create, usage, temp, temporary; `all` for ALL [PRIVILEGES].
    public var name: String
    public var columns: [String]
    public init(name: String, columns: [String] = []) { self.name = name; self.columns = columns }
}

public struct GrantStatement: Sendable, Hashable {
    public var privileges: [PrivilegeItem]
    public var target: GrantTarget
    public var grantees: [GranteeName]
    /// GRANT ... WITH GRANT OPTION, or REVOKE GRANT OPTION FOR ...
    public var grantOption: Bool
    /// REVOKE ... CASCADE: the grants others made on the strength of the revoked grant
    /// option go too (without it such grants refuse the REVOKE).
    public var cascade = false
    public var location: SourceLocation
    public init(privileges: [PrivilegeItem], target: GrantTarget, grantees: [GranteeName], grantOption: Bool,
                location: SourceLocation) {
        self.privileges = privileges; self.target = target; self.grantees = grantees; self.grantOption = grantOption
        self.location = location
    }
}

public enum SecurityStatement: Sendable, Hashable {
    case createUser(name: String, UserOptions)
    case alterUser(name: String, UserOptions)
    /// `ALTER USER name SET parameter {TO | =} value` (the user's sessions start with it)
    /// and `ALTER USER name RESET parameter | ALL` (`SET ... TO DEFAULT` too: no values).
    case alterUserSetting(name: String, SetStatement)
    case renameUser(name: String, to: String)
    case dropUser(names: [String], ifExists: Bool)
    case createGroup(name: String, users: [String])
    case alterGroup(name: String, add: [String], drop: [String])
    case renameGroup(name: String, to: String)
    case dropGroup(names: [String], ifExists: Bool)
    case createRole(name: String)
    case dropRole(names: [String], ifExists: Bool)
    case grantRole(roles: [String], to: [GranteeName])
    case revokeRole(roles: [String], from: [GranteeName])
    case grant(GrantStatement)
    case revoke(GrantStatement)
    /// ALTER DEFAULT PRIVILEGES [FOR USER u, ...] [IN SCHEMA s, ...] GRANT|REVOKE ... ON TABLES ...
    case alterDefaultPrivileges(forUsers: [String], schemas: [String], revoke: Bool, GrantStatement)
    /// SET SESSION AUTHORIZATION 'user' | DEFAULT (nil), RESET SESSION AUTHORIZATION.
    case setSessionAuthorization(String?)
    /// ALTER TABLE t OWNER TO u, ALTER SCHEMA s OWNER TO u.
    case alterOwner(GrantTarget, to: String)
}
