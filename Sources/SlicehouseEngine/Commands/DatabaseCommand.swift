// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseTypes

/// CREATE / DROP / ALTER DATABASE and USE: the databases of the cluster, kept in the
/// catalog (`Catalog.allDatabases`) and changed by transactions like any catalog change.
/// A superuser, or a user made with CREATEDB, creates databases; the owner (or a
/// superuser) drops, renames or limits one; only a superuser gives it to another owner.
/// A database that sessions use can be neither dropped (unless FORCE, which ends those
/// sessions) nor renamed; `dev`, the one every cluster starts with, stays.
struct DatabaseCommand {
    let session: Session

    func run(_ statement: DatabaseStatement) throws -> StatementResult {
        switch statement {
        case .create(let c): return try create(c)
        case .drop(let name, let ifExists, let force): return try drop(name, ifExists: ifExists, force: force)
        case .alter(let name, let action): return try alter(name, action)
        case .use(let name): return try session.use(database: name)
        case .showUse:
            var v = Vector(type: .text)
            v.append(.string(session.usedDatabase ?? ""))
            return StatementResult(tag: "SHOW", columns: [ResultColumn(name: "Use Database", type: .text)],
                                   chunks: [Chunk(columns: [v], count: 1)])
        }
    }

    private var catalog: Catalog { session.transaction.catalog }

    private func create(_ c: CreateDatabase) throws -> StatementResult {
        let security = catalog.security
        guard security.isSuperuser(session.user) || security.user(session.user)?.createDB == true else {
            throw SQLError(.insufficientPrivilege, "permission denied to create database")
        }
        guard !c.name.isEmpty, c.name.utf8.count <= 127 else {
            throw SQLError(.invalidParameter, "database name must be 1 to 127 bytes long")
        }
        if Self.reserved.contains(c.name) {
            throw SQLError(.duplicateDatabase, "database \"\(c.name)\" already exists")
        }
        let given = c.owner ?? session.user
        guard let owner = security.user(given)?.name else { throw SQLError(.undefinedObject, "user \"\(given)\" does not exist") }
        if owner != session.user, !security.isSuperuser(session.user) {
            throw SQLError(.insufficientPrivilege, "permission denied: must be superuser to create a database for another user")
        }
        var def = DatabaseDef(name: c.name, id: (catalog.allDatabases.map(\.id).max() ?? 16_384) + 1, owner: owner,
                              connectionLimit: c.connectionLimit)
        def.caseInsensitive = c.caseInsensitive ? true : nil
        def.snapshotIsolation = c.snapshotIsolation ? true : nil
        try session.transaction.createDatabase(def)
        return StatementResult(tag: "CREATE DATABASE")
    }

    /// Databases every Redshift cluster has, which cannot be made or dropped.
    static let reserved: Set<String> = ["padb_harvest", "template0", "template1", "sys:internal"]

    private func existing(_ name: String) throws -> DatabaseDef {
        guard let d = catalog.databaseDef(name) else { throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist") }
        return d
    }

    private func requireOwner(_ d: DatabaseDef) throws {
        if session.isSuperuser || d.owner == session.user { return }
        throw SQLError(.insufficientPrivilege, "must be owner of database \(d.name)")
    }

    /// The other sessions connected to `name` or using it.
    private func otherSessions(in name: String) -> [Session] {
        session.database.openSessions.filter { $0 !== session && ($0.databaseName == name || $0.connectedDatabase == name) }
    }

    private func drop(_ name: String, ifExists: Bool, force: Bool) throws -> StatementResult {
        guard catalog.databaseDef(name) != nil else {
            if ifExists {
                session.pendingNotices.append("NOTICE:  database \"\(name)\" does not exist, skipping")
                return StatementResult(tag: "DROP DATABASE")
            }
            throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist")
        }
        let d = try existing(name)
        try requireOwner(d)
        if name == Catalog.defaultDatabase || Self.reserved.contains(name) {
            throw SQLError(.insufficientPrivilege, "cannot drop database \(name): it is the cluster's initial database")
        }
        if name == session.databaseName || name == session.connectedDatabase {
            throw SQLError(.objectInUse, "cannot drop the currently open database")
        }
        let others = otherSessions(in: name)
        if !others.isEmpty {
            guard force else {
                throw SQLError(.objectInUse, "database \"\(name)\" is being accessed by other users",
                               detail: "There \(others.count == 1 ? "is 1 other session" : "are \(others.count) other sessions") using the database.",
                               hint: "DROP DATABASE \(name) FORCE ends them.")
            }
            for s in others { s.terminate() }
        }
        try session.transaction.dropDatabase(name)
        return StatementResult(tag: "DROP DATABASE")
    }

    private func alter(_ name: String, _ action: AlterDatabaseAction) throws -> StatementResult {
        var d = try existing(name)
        switch action {
        case .rename(let new):
            try requireOwner(d)
            if name == Catalog.defaultDatabase {
                throw SQLError(.featureNotSupported, "database \(name) cannot be renamed: it is the cluster's initial database")
            }
            if name == session.databaseName || name == session.connectedDatabase {
                throw SQLError(.featureNotSupported, "current database cannot be renamed")
            }
            if !otherSessions(in: name).isEmpty {
                throw SQLError(.objectInUse, "database \"\(name)\" is being accessed by other users")
            }
            guard !new.isEmpty, new.utf8.count <= 127 else { throw SQLError(.invalidParameter, "database name must be 1 to 127 bytes long") }
            if Self.reserved.contains(new) { throw SQLError(.duplicateDatabase, "database \"\(new)\" already exists") }
            d.name = new
        case .owner(let owner):
            guard session.isSuperuser else {
                throw SQLError(.insufficientPrivilege, "permission denied: must be superuser to change the owner of a database")
            }
            guard let user = catalog.security.user(owner) else { throw SQLError(.undefinedObject, "user \"\(owner)\" does not exist") }
            d.owner = user.name
        case .connectionLimit(let limit):
            try requireOwner(d)
            d.connectionLimit = limit
        }
        try session.transaction.alterDatabase(name, d)
        return StatementResult(tag: "ALTER DATABASE")
    }
}
