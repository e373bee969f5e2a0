// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage

/// The views that list every database of the cluster and what is in each (Redshift's
/// SVV_REDSHIFT_*; pg_database is in SystemTables+ClientCatalog.swift): the databases,
/// their schemas, and their tables and views. Each database is read as the statement's
/// snapshot has it.
extension SystemTables {
    static let databaseNames = ["svv_redshift_databases", "svv_redshift_schemas", "svv_redshift_tables"]

    /// Every database's catalog, by name.
    private var everyDatabase: [(DatabaseDef, Catalog)] {
        transaction.catalog.allDatabases.compactMap { d in transaction.catalog.using(database: d.name).map { (d, $0) } }
    }

    func databaseTable(named name: String) -> (TableDef, TableSnapshot)? {
        let name128 = DataType.varchar(128)
        switch name {
        case "svv_redshift_databases":
            let security = transaction.catalog.security
            let rows = transaction.catalog.allDatabases.map { d -> [Value] in
                [.string(d.name), .int(Int64(security.user(d.owner)?.id ?? 1)), .string("local"), .null,
                 d.caseInsensitive == true ? .string("COLLATE CASE_INSENSITIVE") : .null,
                 .string(d.snapshotIsolation == true ? "Snapshot Isolation" : "Serializable")]
            }
            return make(-222, name, [("database_name", name128), ("database_owner", .integer), ("database_type", .varchar(32)),
                                     ("database_acl", name128), ("database_options", name128),
                                     ("database_isolation_level", name128)], rows)
        case "svv_redshift_schemas":
            var rows: [[Value]] = []
            for (d, c) in everyDatabase {
                for s in c.allSchemas {
                    rows.append([.string(d.name), .string(s.name), .int(Int64(c.security.user(s.owner)?.id ?? 1)),
                                 .string("local"), aclText(.schema(s.name), owner: s.owner, in: c.security), .null])
                }
            }
            return make(-223, name, [("database_name", name128), ("schema_name", name128), ("schema_owner", .integer),
                                     ("schema_type", .varchar(16)), ("schema_acl", name128), ("schema_option", name128)], rows)
        case "svv_redshift_tables":
            var rows: [[Value]] = []
            let own = session?.temporarySchema
            for (d, c) in everyDatabase {
                for t in c.allTables where !t.isTemporary || t.schema == own {
                    let owner = c.security.owner(.table(t.id))
                    rows.append([.string(d.name), .string(t.schema), .string(t.name), .string("TABLE"),
                                 aclText(.table(t.id), owner: owner, in: c.security),
                                 c.comments[CommentKey.table(t.id)].map { .string($0) } ?? .null, owner.map { .string($0) } ?? .null])
                }
                for v in c.allViews {
                    let owner = c.security.owner(.view(schema: v.schema, name: v.name))
                    rows.append([.string(d.name), .string(v.schema), .string(v.name), .string("VIEW"),
                                 aclText(.view(schema: v.schema, name: v.name), owner: owner, in: c.security),
                                 c.comments[CommentKey.view(v.qualifiedName)].map { .string($0) } ?? .null,
                                 owner.map { .string($0) } ?? .null])
                }
            }
            return make(-224, name, [("database_name", name128), ("schema_name", name128), ("table_name", name128),
                                     ("table_type", name128), ("table_acl", name128), ("remarks", name128),
                                     ("table_owner", name128)], rows)
        default:
            return nil
        }
    }
}
