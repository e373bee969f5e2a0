// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseLake
import SlicehouseLoad
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseTypes

/// Writing the lake: `CREATE EXTERNAL TABLE … AS query` and `INSERT INTO` an external table.
/// The rows are written as UNLOAD writes Parquet (`UnloadCommand.write`: one file per slice
/// and partition folder, Hive-style `key=value/` folders under the table's location), each
/// file named `<date>_<time>_<microseconds>_<query>_<slice>_part_<nn>.parquet` so that later
/// inserts never meet earlier files; then the table (CTAS) and every partition the rows
/// fell into (both) are registered in the schema's catalog. Parquet only; the schema's owner
/// or a superuser, outside a transaction block.
struct ExternalWrite {
    let session: Session
    let context: QueryContext

    /// CREATE EXTERNAL TABLE AS: `c.query` is set.
    func createTableAs(_ c: CreateExternalTable, schema: SchemaDef, external: ExternalSchemaDef,
                       location: String, name: String, properties: [String: String],
                       command: ExternalCommand) throws -> StatementResult {
        guard let query = c.query else { throw SQLError.internalError("CREATE EXTERNAL TABLE AS without a query") }
        let catalog = try LakeAccess(session: session, context: context).catalog(external)
        if try LakeAccess.mapped({ try catalog.table(external.database, name) }) != nil {
            if c.ifNotExists {
                return StatementResult(tag: "CREATE EXTERNAL TABLE", notices: ["INFO:  External table \"\(name)\" already exists"])
            }
            throw ExternalCatalogError.tableExists(database: external.database, table: name).sqlError
        }
        try requireParquet(c.format)
        let keys = c.partitionColumns.map { $0.name.lowercased() }
        let written = try write(query, location: location, partitionKeys: keys, external: external)
        var data: [GlueColumn] = [], partitions: [GlueColumn] = []
        for (n, type) in written.columns {
            let column = n.lowercased()
            guard let hive = HiveTypes.hiveName(type) else {
                throw SQLError(.featureNotSupported, "column \"\(column)\" has type \(type.sqlName), which an external table cannot hold")
            }
            if !keys.contains(column) { data.append(GlueColumn(name: column, type: hive)) }
        }
        for k in keys {
            guard let (_, type) = written.columns.first(where: { $0.name.lowercased() == k }), let hive = HiveTypes.hiveName(type) else {
                throw SQLError(.undefinedColumn, "partition column \"\(k)\" is not in the query's result")
            }
            partitions.append(GlueColumn(name: k, type: hive))
        }
        var parameters = properties
        parameters["numRows"] = String(written.files.reduce(0) { $0 + $1.rows })
        let sd = try command.storage(ExternalFileFormat(storedAs: "PARQUET"), columns: data, location: location)
        parameters["classification"] = "parquet"
        let table = GlueTable(name: name, databaseName: external.database, tableType: "EXTERNAL_TABLE", storageDescriptor: sd,
                              partitionKeys: partitions, parameters: parameters)
        try LakeAccess.mapped { try catalog.createTable(external.database, table) }
        try register(written.files, table: table, location: location, catalog: catalog, database: external.database)
        let rows = written.files.reduce(0) { $0 + $1.rows }
        return StatementResult(tag: "CREATE EXTERNAL TABLE", notices: ["INFO:  \(rows) row(s) written to \(location)"])
    }

    /// INSERT INTO an external table: every column, data columns then partition columns, in order.
    func insert(_ ins: Insert, schema: SchemaDef, external: ExternalSchemaDef, command: ExternalCommand) throws -> StatementResult {
        let catalog = try LakeAccess(session: session, context: context).catalog(external)
        let name = ins.table.name.lowercased()
        guard let glue = try LakeAccess.mapped({ try catalog.table(external.database, name) }) else {
            throw SQLError(.undefinedTable, "External table \"\(schema.name).\(name)\" does not exist")
        }
        let lake = LakeAccess(session: session, context: context)
        let inputs = lake.inputs(external)
        let table = try ExternalTable(schema: schema, external: external, glue: glue, id: -1) {
            try LakeAccess.object($0, inputs: inputs)
        }
        guard table.def.external?.formatName == "PARQUET" else {
            throw SQLError.unsupported("INSERT into a \(table.def.external?.formatName ?? "") external table (PARQUET tables take rows)")
        }
        let targets = Array(table.def.columns.prefix(table.dataColumns + table.partitionKeys.count))
        if !ins.columns.isEmpty && ins.columns.map({ $0.lowercased() }) != targets.map(\.name) {
            throw SQLError.unsupported("INSERT into an external table with a column list other than all its columns in order")
        }
        let source: Query
        switch ins.source {
        case .query(let q): source = q
        case .values(let rows): source = Query(body: .values(rows))
        case .defaultValues: throw SQLError(.featureNotSupported, "an external table has no DEFAULT values")
        }
        // The source's columns by position, cast to the table's types under the table's names.
        let aliases = targets.indices.map { "__c\($0)" }
        let items = zip(targets, aliases).map { t, a in "CAST(\(a) AS \(t.type.sqlName)) AS \"\(t.name)\"" }
        let text = "SELECT \(items.joined(separator: ", ")) FROM (\(source.description)) AS __source(\(aliases.joined(separator: ", ")))"
        let statements = try parseStatements(text, options: session.parseOptions)
        guard statements.count == 1, case .query(let wrapped) = statements[0] else {
            throw SQLError.internalError("the rows of an INSERT into an external table could not be read")
        }
        let location = glue.storageDescriptor?.location ?? ""
        try checkPartitionLocations(glue, location: location, catalog: catalog, database: external.database, table: table)
        let written = try write(wrapped, location: location, partitionKeys: table.partitionKeys, external: external)
        try register(written.files, table: glue, location: location, catalog: catalog, database: external.database)
        let rows = written.files.reduce(0) { $0 + $1.rows }
        return StatementResult(tag: "INSERT 0 \(rows)")
    }

    /// INSERT writes each row under `<location>/key=value/`: a partition registered
    /// elsewhere (ALTER TABLE … ADD PARTITION … LOCATION) would not see the rows written for
    /// it, so such a table is refused before anything is written.
    private func checkPartitionLocations(_ glue: GlueTable, location: String, catalog: any ExternalCatalog,
                                         database: String, table: ExternalTable) throws {
        guard !table.partitionKeys.isEmpty else { return }
        let base = location.hasSuffix("/") ? location : location + "/"
        let keys = table.partitionKeys
        for p in try LakeAccess.mapped({ try catalog.partitions(database, glue.name, columns: false) }) {
            let values = p.values.map { $0 == HivePartitionPath.nullValue ? nil : $0 }
            let expected = base + HivePartitionPath.path(keys: keys, values: values)
            var actual = p.storageDescriptor?.location ?? ""
            if !actual.hasSuffix("/") { actual += "/" }
            if actual != expected {
                throw SQLError.unsupported("INSERT into external table \"\(table.schema.name).\(table.def.name)\": its partition (\(p.values.joined(separator: ", "))) is at '\(actual)', not under the table's location as '\(expected)' (rows are written under the table's location)")
            }
        }
    }

    private func requireParquet(_ f: ExternalFileFormat) throws {
        let stored = f.storedAs ?? (f.inputFormat?.lowercased().contains("parquet") == true ? "PARQUET" : "TEXTFILE")
        guard stored == "PARQUET", f.serde == nil || f.serde?.lowercased().contains("parquet") == true else {
            throw SQLError.unsupported("CREATE EXTERNAL TABLE AS writing \(stored) files (STORED AS PARQUET is)")
        }
    }

    /// Write `query`'s rows as Parquet under `location`, partitioned by `partitionKeys`.
    private func write(_ query: Query, location: String, partitionKeys: [String],
                       external: ExternalSchemaDef) throws -> UnloadCommand.Written {
        var options = UnloadOptions()
        options.format = .parquet
        options.partitionBy = partitionKeys
        options.allowOverwrite = true   // the folders hold earlier files; the names are new
        options.authorization = external.iamRole.map { .role($0) }
        options.region = external.region
        let now = Date()
        let stamp = Self.stamp.string(from: now)
        let micros = Int(now.timeIntervalSince1970 * 1_000_000) % 1_000_000
        options.fileNamePrefix = "\(stamp)_\(String(format: "%06d", micros))_\(session.statementQueryID ?? 0)_"
        return try UnloadCommand(session: session, context: context).write(query, to: location, options: options, delegated: true)
    }

    private static let stamp: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd_HHmmss"
        return f
    }()

    /// Register the partitions the files fell into (those already registered are kept).
    private func register(_ files: [UnloadedFile], table: GlueTable, location: String, catalog: any ExternalCatalog,
                          database: String) throws {
        let keys = (table.partitionKeys ?? []).map(\.name)
        guard !keys.isEmpty else { return }
        var folders: [String] = []
        var seen = Set<String>()
        for f in files {
            guard f.url.hasPrefix(location) else { continue }
            let relative = f.url.dropFirst(location.count)
            guard let slash = relative.lastIndex(of: "/") else { continue }
            let folder = String(relative[...slash])
            if seen.insert(folder).inserted { folders.append(folder) }
        }
        var partitions: [GluePartition] = []
        for folder in folders {
            guard let values = HivePartitionPath.values(folder, keys: keys) else { continue }
            var sd = table.storageDescriptor ?? GlueStorageDescriptor()
            sd.location = location + folder
            partitions.append(GluePartition(values: values.map { $0 ?? HivePartitionPath.nullValue }, storageDescriptor: sd))
        }
        if !partitions.isEmpty {
            try LakeAccess.mapped { try catalog.addPartitions(database, table.name, partitions, ignoreExisting: true) }
        }
    }
}
