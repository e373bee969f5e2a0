// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// CREATE / DROP / ALTER DATABASE, USE, SHOW USE, RESET USE.

extension Parser {
    /// After CREATE: `DATABASE name [WITH] [OWNER [=] user] [CONNECTION LIMIT {n | UNLIMITED}]
    /// [COLLATE {CASE_SENSITIVE | CASE_INSENSITIVE}] [ISOLATION LEVEL {SERIALIZABLE | SNAPSHOT}]`.
    /// Redshift's other forms (FROM DATASHARE, FROM ARN, FROM INTEGRATION) are refused.
    mutating func parseCreateDatabase() throws -> Statement {
        try expectWord("database")
        var d = CreateDatabase(name: try parseIdentifier())
        _ = acceptWord("with")
        while !atEnd && !isSymbol(";") {
            if acceptWord("owner") {
                _ = acceptSymbol("=")
                d.owner = try parseIdentifier()
            } else if acceptWords("connection", "limit") {
                d.connectionLimit = try parseConnectionLimit()
            } else if acceptWord("collate") {
                if acceptWord("case_insensitive") { d.caseInsensitive = true }
                else { try expectWord("case_sensitive"); d.caseInsensitive = false }
            } else if acceptWords("isolation", "level") {
                if acceptWord("snapshot") { d.snapshotIsolation = true }
                else { try expectWord("serializable"); d.snapshotIsolation = false }
            } else if isWord("from") || isWord("iam_role") || isWord("permissions") {
                throw SQLError(.featureNotSupported, "CREATE DATABASE from a datashare, an ARN or an integration is not supported")
            } else {
                throw syntaxError(at: current)
            }
        }
        return .database(.create(d))
    }

    /// `{n | UNLIMITED}` after CONNECTION LIMIT (nil: UNLIMITED).
    private mutating func parseConnectionLimit() throws -> Int? {
        if acceptWord("unlimited") { return nil }
        let n = try parseInteger()
        guard n >= 0, n <= Int64(Int32.max) else {
            throw SQLError(.invalidParameter, "CONNECTION LIMIT must be UNLIMITED or a number from 0")
        }
        return Int(n)
    }

    /// After DROP: `DATABASE [IF EXISTS] name [FORCE]`.
    mutating func parseDropDatabase() throws -> Statement {
        try expectWord("database")
        let ifExists = acceptWords("if", "exists")
        let name = try parseIdentifier()
        let force = acceptWord("force")
        return .database(.drop(name: name, ifExists: ifExists, force: force))
    }

    /// After ALTER: `DATABASE name {RENAME TO new | OWNER TO user | CONNECTION LIMIT {n | UNLIMITED}}`.
    mutating func parseAlterDatabase() throws -> Statement {
        try expectWord("database")
        let name = try parseIdentifier()
        if acceptWords("rename", "to") { return .database(.alter(name: name, .rename(try parseIdentifier()))) }
        if acceptWords("owner", "to") { return .database(.alter(name: name, .owner(try parseIdentifier()))) }
        if acceptWords("connection", "limit") { return .database(.alter(name: name, .connectionLimit(try parseConnectionLimit()))) }
        throw syntaxError(at: current)
    }
}
