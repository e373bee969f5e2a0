// SPDX-License-Identifier: Apache-2.0

/// The statements about a cluster's databases (Parser+Databases.swift).
public enum DatabaseStatement: Sendable, Hashable {
    /// `CREATE DATABASE name [WITH] [OWNER [=] user] [CONNECTION LIMIT {n | UNLIMITED}]
    /// [COLLATE {CASE_SENSITIVE | CASE_INSENSITIVE}] [ISOLATION LEVEL {SERIALIZABLE | SNAPSHOT}]`.
    case create(CreateDatabase)
    /// `DROP DATABASE [IF EXISTS] name [FORCE]`.
    case drop(name: String, ifExists: Bool, force: Bool)
    /// `ALTER DATABASE name {RENAME TO new | OWNER TO user | CONNECTION LIMIT {n | UNLIMITED}}`.
    case alter(name: String, AlterDatabaseAction)
    /// `USE name`; nil for `RESET USE`.
    case use(String?)
    /// `SHOW USE`.
    case showUse
}

public struct CreateDatabase: Sendable, Hashable {
    public var name: String
    public var owner: String?
    /// nil: UNLIMITED (or not given).
    public var connectionLimit: Int?
    public var caseInsensitive: Bool
    public var snapshotIsolation: Bool
    public init(name: String, owner: String? = nil, connectionLimit: Int? = nil, caseInsensitive: Bool = false,
                snapshotIsolation: Bool = false) {
        self.name = name; self.owner = owner; self.connectionLimit = connectionLimit
        self.caseInsensitive = caseInsensitive; self.snapshotIsolation = snapshotIsolation
    }
}

public enum AlterDatabaseAction: Sendable, Hashable {
    case rename(String)
    case owner(String)
    /// nil: UNLIMITED.
    case connectionLimit(Int?)
}
