// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// CREATE/ALTER/DROP USER, GROUP, ROLE; GRANT and REVOKE; ALTER DEFAULT PRIVILEGES;
// SET/RESET SESSION AUTHORIZATION; ALTER TABLE/SCHEMA ... OWNER TO.

extension Parser {
    /// A user, group or role name: an identifier or a reserved word (names are folded to
    /// lower case as identifiers are).
    private mutating func parsePrincipalName() throws -> String {
        try parseLabel().lowercased()
    }

    private mutating func parsePrincipalNames() throws -> [String] {
        var names = [try parsePrincipalName()]
        while acceptSymbol(",") { names.append(try parsePrincipalName()) }
        return names
    }

    /// After CREATE: USER, GROUP or ROLE (nil when it is none of them).
    mutating func parseCreatePrincipal() throws -> Statement? {
        if acceptWord("user") {
            let name = try parsePrincipalName()
            return .security(.createUser(name: name, try parseUserOptions()))
        }
        if acceptWord("group") {
            let name = try parsePrincipalName()
            var users: [String] = []
            if acceptWords("with", "user") || acceptWord("user") { users = try parsePrincipalNames() }
            return .security(.createGroup(name: name, users: users))
        }
        if acceptWord("role") {
            let name = try parsePrincipalName()
            if acceptWord("externalid") { _ = try parseLabel() }
            return .security(.createRole(name: name))
        }
        return nil
    }

    /// After DROP: USER, GROUP or ROLE (nil when it is none of them).
    mutating func parseDropPrincipal() throws -> Statement? {
        let kind: String
        if acceptWord("user") { kind = "user" } else if acceptWord("group") { kind = "group" } else if acceptWord("role") {
            kind = "role"
        } else { return nil }
        let ifExists = acceptWords("if", "exists")
        let names = try parsePrincipalNames()
        if kind == "role" { _ = acceptWord("force") || acceptWord("restrict") }
        switch kind {
        case "user": return .security(.dropUser(names: names, ifExists: ifExists))
        case "group": return .security(.dropGroup(names: names, ifExists: ifExists))
        default: return .security(.dropRole(names: names, ifExists: ifExists))
        }
    }

    /// `[WITH] option ...` of CREATE USER / ALTER USER.
    private mutating func parseUserOptions() throws -> UserOptions {
        var o = UserOptions()
        _ = acceptWord("with")
        while true {
            if acceptWord("password") {
                if acceptWord("disable") {
                    o.password = .disable
                } else {
                    o.password = .text(try parseStringLiteral())
                }
            } else if acceptWord("createdb") {
                o.createDB = true
            } else if acceptWord("nocreatedb") {
                o.createDB = false
            } else if acceptWord("createuser") {
                o.createUser = true
            } else if acceptWord("nocreateuser") {
                o.createUser = false
            } else if acceptWords("syslog", "access") {
                if acceptWord("unrestricted") { o.syslogUnrestricted = true } else {
                    try expectWord("restricted")
                    o.syslogUnrestricted = false
                }
            } else if acceptWords("in", "group") {
                o.inGroups += try parsePrincipalNames()
            } else if acceptWords("valid", "until") {
                o.validUntil = try parseStringLiteral()
            } else if acceptWords("connection", "limit") {
                o.connectionLimit = acceptWord("unlimited") ? -1 : try parseInteger()
            } else if acceptWords("session", "timeout") {
                o.sessionTimeout = try parseInteger()
            } else if acceptWord("externalid") {
                _ = try parseLabel()
            } else {
                return o
            }
        }
    }

    /// After ALTER: USER, GROUP, DEFAULT PRIVILEGES, or `TABLE|SCHEMA name OWNER TO u`
    /// (nil when it is none of them; the caller rewinds nothing: only the first word was read).
    mutating func parseAlterSecurity() throws -> Statement? {
        if acceptWord("user") {
            let name = try parsePrincipalName()
            if acceptWords("rename", "to") { return .security(.renameUser(name: name, to: try parsePrincipalName())) }
            if acceptWord("set") { return .security(.alterUserSetting(name: name, try parseSet(after: true))) }
            if acceptWord("reset") {
                let parameter = acceptWord("all") ? "all" : try parseParameterName()
                return .security(.alterUserSetting(name: name, SetStatement(name: parameter, values: [], local: false)))
            }
            return .security(.alterUser(name: name, try parseUserOptions()))
        }
        if acceptWord("group") {
            let name = try parsePrincipalName()
            if acceptWords("rename", "to") { return .security(.renameGroup(name: name, to: try parsePrincipalName())) }
            if acceptWord("add") {
                try expectWord("user")
                return .security(.alterGroup(name: name, add: try parsePrincipalNames(), drop: []))
            }
            try expectWord("drop")
            try expectWord("user")
            return .security(.alterGroup(name: name, add: [], drop: try parsePrincipalNames()))
        }
        if acceptWords("default", "privileges") {
            var users: [String] = [], schemas: [String] = []
            while true {
                if acceptWords("for", "user") || acceptWords("for", "role") {
                    users += try parsePrincipalNames()
                } else if acceptWords("in", "schema") {
                    schemas += try parsePrincipalNames()
                } else {
                    break
                }
            }
            let start = current
            let revoke: Bool
            if acceptWord("grant") { revoke = false } else {
                try expectWord("revoke")
                revoke = true
            }
            let grantOption = revoke && acceptWords("grant", "option", "for")
            let privileges = try parsePrivileges()
            try expectWord("on")
            guard acceptWord("tables") || acceptWord("functions") || acceptWord("procedures") else {
                throw syntaxError(at: current)
            }
            if revoke { try expectWord("from") } else { try expectWord("to") }
            let grantees = try parseGrantees()
            let withGrant = !revoke && acceptWords("with", "grant", "option")
            if revoke { _ = acceptWord("cascade") || acceptWord("restrict") }
            let g = GrantStatement(privileges: privileges, target: .tables([]), grantees: grantees,
                                   grantOption: grantOption || withGrant, location: start.location)
            return .security(.alterDefaultPrivileges(forUsers: users, schemas: schemas, revoke: revoke, g))
        }
        if isWord("table") || isWord("schema"), isOwnerClause() {
            let isTable = acceptWord("table")
            if !isTable { advance() }
            let target: GrantTarget = isTable ? .tables([try parseObjectName()]) : .schemas([try parsePrincipalName()])
            try expectWord("owner")
            try expectWord("to")
            return .security(.alterOwner(target, to: try parsePrincipalName()))
        }
        return nil
    }

    /// `TABLE name OWNER TO` / `SCHEMA name OWNER TO` ahead (a qualified name has up to 3 parts).
    private func isOwnerClause() -> Bool {
        for offset in [2, 4, 6] where isWord("owner", at: offset) && isWord("to", at: offset + 1) { return true }
        return false
    }

    /// `GRANT ...` (privileges or roles).
    mutating func parseGrant() throws -> Statement {
        let start = advance()  // GRANT
        if acceptWord("role") {
            let roles = try parsePrincipalNames()
            try expectWord("to")
            return .security(.grantRole(roles: roles, to: try parseGrantees(rolesAllowed: true)))
        }
        let privileges = try parsePrivileges()
        try expectWord("on")
        let target = try parseGrantTarget()
        try expectWord("to")
        let grantees = try parseGrantees()
        let grantOption = acceptWords("with", "grant", "option")
        return .security(.grant(GrantStatement(privileges: privileges, target: target, grantees: grantees,
                                               grantOption: grantOption, location: start.location)))
    }

    /// `REVOKE ...` (privileges or roles).
    mutating func parseRevoke() throws -> Statement {
        let start = advance()  // REVOKE
        if acceptWord("role") {
            let roles = try parsePrincipalNames()
            try expectWord("from")
            let grantees = try parseGrantees(rolesAllowed: true)
            _ = acceptWord("cascade") || acceptWord("restrict")
            return .security(.revokeRole(roles: roles, from: grantees))
        }
        let grantOption = acceptWords("grant", "option", "for")
        let privileges = try parsePrivileges()
        try expectWord("on")
        let target = try parseGrantTarget()
        try expectWord("from")
        let grantees = try parseGrantees()
        let cascade = acceptWord("cascade")
        if !cascade { _ = acceptWord("restrict") }
        var statement = GrantStatement(privileges: privileges, target: target, grantees: grantees,
                                       grantOption: grantOption, location: start.location)
        statement.cascade = cascade
        return .security(.revoke(statement))
    }

    /// `SET SESSION AUTHORIZATION ...` after `SET SESSION` was seen, or nil.
    mutating func parseSessionAuthorization() throws -> Statement? {
        guard isWord("session", at: 0), isWord("authorization", at: 1) else { return nil }
        advance()
        advance()
        if acceptWord("default") { return .security(.setSessionAuthorization(nil)) }
        if case .string(let s) = current.kind {
            advance()
            return .security(.setSessionAuthorization(s.lowercased()))
        }
        return .security(.setSessionAuthorization(try parsePrincipalName()))
    }

    private static let privilegeWords: Set<String> = [
        "select", "insert", "update", "delete", "drop", "references", "alter", "truncate", "create", "usage",
        "temp", "temporary", "execute", "rule", "trigger",
    ]

    /// `ALL [PRIVILEGES] [(cols)]` or `priv [(cols)], ...`.
    private mutating func parsePrivileges() throws -> [PrivilegeItem] {
        if acceptWord("all") {
            _ = acceptWord("privileges")
            var item = PrivilegeItem(name: "all")
            if isSymbol("(") { item.columns = try parseParenthesizedIdentifiers() }
            return [item]
        }
        var items: [PrivilegeItem] = []
        repeat {
            guard let w = currentWord, Self.privilegeWords.contains(w) else { throw syntaxError(at: current) }
            advance()
            var item = PrivilegeItem(name: w == "temporary" ? "temp" : w)
            if isSymbol("(") { item.columns = try parseParenthesizedIdentifiers() }
            items.append(item)
        } while acceptSymbol(",")
        return items
    }

    private mutating func parseGrantTarget() throws -> GrantTarget {
        if acceptWords("all", "tables", "in", "schema") { return .allTablesInSchema(try parsePrincipalNames()) }
        if acceptWord("schema") { return .schemas(try parsePrincipalNames()) }
        if acceptWord("database") { return .database(try parsePrincipalName()) }
        if acceptWord("procedure") {
            var references = [try parseProcedureReference()]
            while acceptSymbol(",") { references.append(try parseProcedureReference()) }
            return .procedures(references)
        }
        if acceptWord("function") {
            var references = [try parseProcedureReference()]
            while acceptSymbol(",") { references.append(try parseProcedureReference()) }
            return .functions(references)
        }
        _ = acceptWord("table")
        var names = [try parseObjectName()]
        while acceptSymbol(",") { names.append(try parseObjectName()) }
        return .tables(names)
    }

    /// `name | GROUP name | ROLE name | PUBLIC [, ...]` (`USER name` too).
    private mutating func parseGrantees(rolesAllowed: Bool = true) throws -> [GranteeName] {
        var out: [GranteeName] = []
        repeat {
            if acceptWord("group") {
                out.append(.group(try parsePrincipalName()))
            } else if acceptWord("role") {
                out.append(.role(try parsePrincipalName()))
            } else if acceptWord("public") {
                out.append(.public)
            } else {
                _ = acceptWord("user")
                out.append(.user(try parsePrincipalName()))
            }
        } while acceptSymbol(",")
        return out
    }
}
