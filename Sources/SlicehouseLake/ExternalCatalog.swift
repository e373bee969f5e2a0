// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseTypes

/// Where an external schema (`CREATE EXTERNAL SCHEMA … FROM DATA CATALOG DATABASE 'db'`)
/// finds its database's tables and their partitions: the AWS Glue Data Catalog
/// (`GlueCatalog`, so tables Spark, Athena or pyiceberg registered are seen), or a catalog
/// kept in the data directory (`DirectoryCatalog`) for use without AWS. Both speak in
/// Glue's shapes (`GlueDatabase`, `GlueTable`, `GluePartition`), so the planner cannot
/// tell where a table was registered.
public protocol ExternalCatalog: Sendable {
    /// The database, or nil when there is none of that name.
    func database(_ name: String) throws -> GlueDatabase?
    func createDatabase(_ database: GlueDatabase) throws
    /// Drop the database with its tables and their partitions (the files stay where they are).
    func dropDatabase(_ name: String) throws
    func tables(in database: String) throws -> [GlueTable]
    /// The table, or nil when the database has none of that name.
    func table(_ database: String, _ name: String) throws -> GlueTable?
    func createTable(_ database: String, _ table: GlueTable) throws
    /// Replace the table's definition (ALTER TABLE … SET LOCATION, table properties).
    func updateTable(_ database: String, _ table: GlueTable) throws
    func dropTable(_ database: String, _ name: String) throws
    /// The table's partitions, in no particular order. Without `columns`, a catalog may
    /// leave each partition's column list out (what a scan needs is its values and location;
    /// Glue's `ExcludeColumnSchema`).
    func partitions(_ database: String, _ table: String, columns: Bool) throws -> [GluePartition]
    /// Register partitions; one already registered is an error unless `ignoreExisting`.
    func addPartitions(_ database: String, _ table: String, _ partitions: [GluePartition], ignoreExisting: Bool) throws
    /// Forget the partitions with these values (missing ones are ignored).
    func dropPartitions(_ database: String, _ table: String, _ values: [[String]]) throws
}

extension ExternalCatalog {
    /// The table's partitions with everything the catalog keeps of them.
    public func partitions(_ database: String, _ table: String) throws -> [GluePartition] {
        try partitions(database, table, columns: true)
    }
}

/// A catalog failure, in the words Redshift uses for external schemas and tables.
public enum ExternalCatalogError: Error, Equatable, CustomStringConvertible, Sendable {
    case noDatabase(String)
    case noTable(database: String, table: String)
    case databaseExists(String)
    case tableExists(database: String, table: String)
    case partitionExists(table: String, values: [String])
    case invalidName(String)
    /// Anything else the catalog said (Glue's error, a file that cannot be read).
    case failed(String)

    public var description: String {
        switch self {
        case .noDatabase(let d): return "External database \"\(d)\" does not exist"
        case .noTable(let d, let t): return "External table \"\(d).\(t)\" does not exist"
        case .databaseExists(let d): return "External database \"\(d)\" already exists"
        case .tableExists(let d, let t): return "External table \"\(d).\(t)\" already exists"
        case .partitionExists(let t, let v): return "Partition (\(v.joined(separator: ", "))) of external table \"\(t)\" already exists"
        case .invalidName(let n): return "\"\(n)\" is not a valid name for an external database or table"
        case .failed(let why): return why
        }
    }

    public var sqlError: SQLError {
        switch self {
        case .noDatabase: return SQLError(.invalidSchemaName, description)
        case .noTable: return SQLError(.undefinedTable, description)
        case .databaseExists: return SQLError(.duplicateSchema, description)
        case .tableExists, .partitionExists: return SQLError(.duplicateTable, description)
        case .invalidName: return SQLError(.invalidParameter, description)
        case .failed: return SQLError(.ioError, description)
        }
    }
}

/// The AWS Glue Data Catalog through `GlueClient`; Glue's errors become the catalog's.
public struct GlueCatalog: ExternalCatalog {
    public let client: GlueClient

    public init(client: GlueClient) { self.client = client }

    public func database(_ name: String) throws -> GlueDatabase? {
        try mapped { try client.getDatabase(name) }
    }

    public func createDatabase(_ database: GlueDatabase) throws {
        try mapped(exists: .databaseExists(database.name)) { try client.createDatabase(database) }
    }

    public func dropDatabase(_ name: String) throws {
        try mapped(missing: .noDatabase(name)) { try client.deleteDatabase(name) }
    }

    public func tables(in database: String) throws -> [GlueTable] {
        try mapped(missing: .noDatabase(database)) { try client.getTables(database: database) }
    }

    public func table(_ database: String, _ name: String) throws -> GlueTable? {
        try mapped { try client.getTable(database: database, name: name) }
    }

    public func createTable(_ database: String, _ table: GlueTable) throws {
        try mapped(missing: .noDatabase(database), exists: .tableExists(database: database, table: table.name)) {
            try client.createTable(database: database, table)
        }
    }

    public func updateTable(_ database: String, _ table: GlueTable) throws {
        try mapped(missing: .noTable(database: database, table: table.name)) { try client.updateTable(database: database, table) }
    }

    public func dropTable(_ database: String, _ name: String) throws {
        try mapped(missing: .noTable(database: database, table: name)) { try client.deleteTable(database: database, name: name) }
    }

    public func partitions(_ database: String, _ table: String, columns: Bool) throws -> [GluePartition] {
        try mapped(missing: .noTable(database: database, table: table)) {
            try client.getPartitions(database: database, table: table, excludeColumnSchema: !columns)
        }
    }

    public func addPartitions(_ database: String, _ table: String, _ partitions: [GluePartition], ignoreExisting: Bool) throws {
        try mapped(missing: .noTable(database: database, table: table)) {
            do {
                try client.batchCreatePartition(database: database, table: table, partitions, ignoreExisting: ignoreExisting)
            } catch let e as GlueError where e.isAlreadyExists {
                throw ExternalCatalogError.partitionExists(table: table, values: partitions.first?.values ?? [])
            }
        }
    }

    public func dropPartitions(_ database: String, _ table: String, _ values: [[String]]) throws {
        try mapped(missing: .noTable(database: database, table: table)) {
            try client.batchDeletePartition(database: database, table: table, values: values)
        }
    }

    private func mapped<T>(missing: ExternalCatalogError? = nil, exists: ExternalCatalogError? = nil,
                           _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as GlueError {
            if e.isNotFound, let missing { throw missing }
            if e.isAlreadyExists, let exists { throw exists }
            throw ExternalCatalogError.failed(e.description)
        }
    }
}
