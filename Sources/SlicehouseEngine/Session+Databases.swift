// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseRuntime

/// The databases of the cluster, as a session sees them. A connection names its
/// database (`dev` unless the client asks for another); `USE db` makes names find
/// objects in `db` from then on without reconnecting. Every transaction of the session
/// works in the database in use: names without a database part find its objects, and
/// CREATE, DROP and grants change it. A query may read a table of another database
/// with a three-part name (`db.schema.table`), in the same snapshot as everything else
/// it reads; anything else names only the database in use.
extension Session {
    /// The database names find objects in: the one `USE` chose, else the connection's.
    public var databaseName: String { usedDatabase ?? connectedDatabase }

    /// A new transaction in the database in use.
    func beginTransaction(_ cancellation: Cancellation) -> Transaction {
        let t = database.store.begin(process: process, cancellation: cancellation)
        t.use(database: databaseName)
        return t
    }

    /// The latest committed catalog, showing the database in use.
    var committedCatalog: Catalog {
        let c = database.store.currentCatalog
        return c.using(database: databaseName) ?? c
    }

    /// `USE db` (nil: `RESET USE`, back to the connection's database).
    func use(database name: String?) throws -> StatementResult {
        if let name {
            guard transaction.catalog.databaseDef(name) != nil else {
                throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist")
            }
            usedDatabase = name == connectedDatabase ? nil : name
        } else {
            usedDatabase = nil
        }
        transaction.use(database: databaseName)
        return StatementResult(tag: name == nil ? "RESET" : "USE")
    }

    /// The table or view `name` (`db.schema.name`) stands for in database `db`, as a
    /// query reads it: the same snapshot as the rest of the statement, the other
    /// database's schemas (a schema-qualified name only).
    func lookup(_ name: ObjectName, inDatabase db: String, _ catalog: Catalog) throws -> NamedObject? {
        guard let other = catalog.using(database: db) else {
            throw SQLError(.invalidCatalogName, "database \"\(db)\" does not exist")
        }
        guard let schema = name.schema, !Catalog.systemSchemas.contains(schema), schema != "pg_temp",
              !Catalog.isTemporarySchema(schema) else {
            throw SQLError(.featureNotSupported, "cross-database reference to \"\(name.description)\" is not supported",
                           detail: "Another database's tables are named database.schema.table; its system tables are not reachable.")
        }
        let q = QualifiedName(schema: schema, name: name.name)
        if let t = other.table(q) { return .table(t) }
        if other.view(q) != nil {
            throw SQLError(.featureNotSupported, "cross-database reference to view \"\(name.description)\" is not supported",
                           detail: "A query reads another database's tables; connect to \(db) (or USE \(db)) to read its views.")
        }
        return nil
    }
}

extension SystemTables {
    /// The database the statement names objects in (`current_database()` aside).
    var databaseName: String { transaction.database }
}
