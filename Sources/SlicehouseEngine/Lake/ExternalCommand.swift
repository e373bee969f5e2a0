// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseLake
import SlicehouseLoad
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseTypes

/// The statements that define the lake's objects: CREATE EXTERNAL SCHEMA (and DROP SCHEMA
/// of one, with its catalog database), CREATE EXTERNAL TABLE, DROP TABLE of an external
/// table, and ALTER TABLE's partition, location, property and format actions on one.
///
/// An external schema is the database's own object (in its catalog, in transactions); its
/// tables and their partitions live in the schema's external catalog, which is not
/// transactional — so, as in Redshift, the statements that change them do not run inside a
/// transaction block.
struct ExternalCommand {
    let session: Session
    let context: QueryContext

    private var lake: LakeAccess { LakeAccess(session: session, context: context) }

    func run(_ statement: ExternalStatement) throws -> StatementResult {
        switch statement {
        case .createSchema(let c): return try createSchema(c)
        case .createTable(let c): return try createTable(c)
        }
    }

    // MARK: - Schemas

    func createSchema(_ c: CreateExternalSchema) throws -> StatementResult {
        let name = c.name
        if try DDLCommand.checkNewSchemaName(name, session) {
            if c.ifNotExists {
                return StatementResult(tag: "CREATE SCHEMA", notices: ["INFO:  External schema \"\(name)\" already exists"])
            }
            throw SQLError(.duplicateSchema, "Schema \"\(name)\" already exists")
        }
        let database = c.database.lowercased()
        try DirectoryCatalogNames.check(database)
        let def = ExternalSchemaDef(database: database, catalog: lake.defaultCatalog, region: c.region, iamRole: c.iamRole)
        try lake.checkRole(def)
        let catalog = try lake.catalog(def)
        var notices: [String] = []
        if try LakeAccess.mapped({ try catalog.database(database) }) == nil {
            guard c.createDatabase else {
                throw SQLError(.invalidSchemaName, "External database \"\(database)\" does not exist",
                               hint: "Add CREATE EXTERNAL DATABASE IF NOT EXISTS to make it.")
            }
            try LakeAccess.mapped { try catalog.createDatabase(GlueDatabase(name: database)) }
            notices.append("INFO:  External database \"\(database)\" created")
        }
        try session.transaction.createSchema(SchemaDef(name: name, owner: session.user, external: def))
        return StatementResult(tag: "CREATE SCHEMA", notices: notices)
    }

    /// DROP SCHEMA of an external schema: the schema goes; with DROP EXTERNAL DATABASE its
    /// catalog database goes too, and with it its tables' definitions (CASCADE needed when
    /// it has any) — never their files.
    func dropSchema(_ schema: SchemaDef, _ external: ExternalSchemaDef, _ d: DropSchema) throws -> [String] {
        guard d.dropExternalDatabase else { return [] }
        if session.inTransactionBlock {
            throw SQLError(.activeTransaction, "DROP EXTERNAL DATABASE cannot run inside a transaction block")
        }
        let catalog = try lake.catalog(external)
        guard try LakeAccess.mapped({ try catalog.database(external.database) }) != nil else { return [] }
        let tables = try LakeAccess.mapped { try catalog.tables(in: external.database) }
        if !tables.isEmpty && !d.cascade {
            throw SQLError(.dependentObjectsStillExist,
                           "cannot drop external database \(external.database) because other objects depend on it",
                           hint: "Use DROP ... CASCADE to drop the dependent objects too.")
        }
        try LakeAccess.mapped { try catalog.dropDatabase(external.database) }
        return tables.isEmpty ? [] : ["NOTICE:  drop cascades to \(tables.count) external table\(tables.count == 1 ? "" : "s")"]
    }

    // MARK: - Tables

    /// The external schema `name` is in, when it names one (or, unqualified, when the
    /// first schema of the search path is external).
    private func externalSchema(of name: ObjectName) -> (SchemaDef, ExternalSchemaDef)? {
        let catalog = session.transaction.catalog
        let schemaName = name.schema ?? session.searchPathSchemas(catalog).first
        guard let s = schemaName, let def = catalog.schema(s), let external = def.external else { return nil }
        return (def, external)
    }

    private func requireOwner(_ schema: SchemaDef) throws {
        guard session.isSuperuser || schema.owner == session.user else {
            throw SQLError(.insufficientPrivilege, "must be owner of external schema \(schema.name)")
        }
    }

    private func outsideBlock(_ what: String) throws {
        if session.inTransactionBlock {
            throw SQLError(.activeTransaction, "\(what) cannot run inside a transaction block")
        }
    }

    func createTable(_ c: CreateExternalTable) throws -> StatementResult {
        guard let (schema, external) = externalSchema(of: c.name) else {
            throw SQLError(.invalidSchemaName, "External schema \"\(c.name.schema ?? "")\" does not exist",
                           hint: "CREATE EXTERNAL TABLE makes a table in an external schema (CREATE EXTERNAL SCHEMA).")
        }
        try outsideBlock("CREATE EXTERNAL TABLE")
        try requireOwner(schema)
        let name = c.name.name.lowercased()
        try session.checkIdentifier(name)
        try DirectoryCatalogNames.check(name)
        if c.query != nil {
            var properties: [String: String] = ["EXTERNAL": "TRUE"]
            for p in c.properties { properties[p.key] = p.value }
            return try ExternalWrite(session: session, context: context)
                .createTableAs(c, schema: schema, external: external, location: try checkedLocation(c.location, writing: true),
                               name: name, properties: properties, command: self)
        }
        var seen = Set<String>()
        func column(_ d: ColumnDefinition) throws -> GlueColumn {
            let n = d.name.lowercased()
            guard seen.insert(n).inserted else { throw SQLError(.duplicateColumn, "column \"\(n)\" specified more than once") }
            guard let hive = HiveTypes.hiveName(d.type) else {
                throw SQLError(.featureNotSupported, "column \"\(n)\" has type \(d.type.sqlName), which an external table cannot hold")
            }
            return GlueColumn(name: n, type: hive)
        }
        let columns = try c.columns.map(column)
        let partitions = try c.partitionColumns.map(column)
        let location = try checkedLocation(c.location)
        var parameters: [String: String] = ["EXTERNAL": "TRUE"]
        for p in c.properties { parameters[p.key] = p.value }
        let sd = try storage(c.format, columns: columns, location: location)
        parameters["classification"] = parameters["classification"] ?? Self.classification(sd)
        let table = GlueTable(name: name, databaseName: external.database, tableType: "EXTERNAL_TABLE", storageDescriptor: sd,
                              partitionKeys: partitions, parameters: parameters)
        let catalog = try lake.catalog(external)
        do {
            try catalog.createTable(external.database, table)
        } catch ExternalCatalogError.tableExists where c.ifNotExists {
            return StatementResult(tag: "CREATE EXTERNAL TABLE", notices: ["INFO:  External table \"\(name)\" already exists"])
        } catch {
            throw LakeAccess.sqlError(error)
        }
        return StatementResult(tag: "CREATE EXTERNAL TABLE")
    }

    /// INSERT INTO a name in an external schema; nil when the name is not in one.
    func insertIfExternal(_ ins: Insert) throws -> StatementResult? {
        guard ins.table.schema != nil, let (schema, external) = externalSchema(of: ins.table) else { return nil }
        try outsideBlock("INSERT INTO an external table")
        try requireOwner(schema)
        return try ExternalWrite(session: session, context: context).insert(ins, schema: schema, external: external, command: self)
    }

    /// DROP TABLE of a name in an external schema; nil when the name is not in one.
    func dropTableIfExternal(_ name: ObjectName, ifExists: Bool) throws -> [String]? {
        guard name.schema != nil, let (schema, external) = externalSchema(of: name) else { return nil }
        try outsideBlock("DROP EXTERNAL TABLE")
        try requireOwner(schema)
        let catalog = try lake.catalog(external)
        do {
            try catalog.dropTable(external.database, name.name.lowercased())
        } catch ExternalCatalogError.noTable where ifExists {
            return ["NOTICE:  table \"\(name.name)\" does not exist, skipping"]
        } catch {
            throw LakeAccess.sqlError(error)
        }
        return []
    }

    /// ALTER TABLE on a name in an external schema; nil when the name is not in one.
    func alterIfExternal(_ a: AlterTable) throws -> StatementResult? {
        guard a.name.schema != nil, let (schema, external) = externalSchema(of: a.name) else { return nil }
        try outsideBlock("ALTER EXTERNAL TABLE")
        try requireOwner(schema)
        let catalog = try lake.catalog(external)
        let db = external.database, name = a.name.name.lowercased()
        guard var table = try LakeAccess.mapped({ try catalog.table(db, name) }) else {
            throw SQLError(.undefinedTable, "External table \"\(schema.name).\(name)\" does not exist")
        }
        let keys = (table.partitionKeys ?? []).map { $0.name.lowercased() }
        func values(_ spec: PartitionSpec) throws -> [String] {
            guard !keys.isEmpty else {
                throw SQLError(.invalidParameter, "External table \"\(schema.name).\(name)\" is not partitioned")
            }
            var byKey: [String: String] = [:]
            for kv in spec.values {
                let k = kv.key.lowercased()
                guard keys.contains(k) else {
                    throw SQLError(.undefinedColumn, "\"\(k)\" is not a partition column of external table \"\(schema.name).\(name)\"")
                }
                guard byKey[k] == nil else { throw SQLError(.duplicateColumn, "partition column \"\(k)\" given twice") }
                byKey[k] = kv.value
            }
            return try keys.map { k in
                guard let v = byKey[k] else {
                    throw SQLError(.invalidParameter, "the partition needs a value for every partition column: \"\(k)\" has none")
                }
                return v
            }
        }
        switch a.action {
        case .addPartitions(let specs, let ifNotExists):
            var partitions: [GluePartition] = []
            for spec in specs {
                var sd = table.storageDescriptor ?? GlueStorageDescriptor()
                sd.location = try checkedLocation(spec.location ?? "")
                partitions.append(GluePartition(values: try values(spec), storageDescriptor: sd))
            }
            try LakeAccess.mapped { try catalog.addPartitions(db, name, partitions, ignoreExisting: ifNotExists) }
        case .dropPartition(let spec):
            try LakeAccess.mapped { try catalog.dropPartitions(db, name, [try values(spec)]) }
        case .setLocation(let location, let spec?):
            let v = try values(spec)
            guard var p = try LakeAccess.mapped({ try catalog.partitions(db, name) }).first(where: { $0.values == v }) else {
                throw SQLError(.undefinedObject, "Partition (\(v.joined(separator: ", "))) of external table \"\(schema.name).\(name)\" does not exist")
            }
            var sd = p.storageDescriptor ?? table.storageDescriptor ?? GlueStorageDescriptor()
            sd.location = try checkedLocation(location)
            p.storageDescriptor = sd
            try LakeAccess.mapped {
                try catalog.dropPartitions(db, name, [v])
                try catalog.addPartitions(db, name, [p], ignoreExisting: false)
            }
        case .setLocation(let location, nil):
            var sd = table.storageDescriptor ?? GlueStorageDescriptor()
            sd.location = try checkedLocation(location)
            table.storageDescriptor = sd
            try LakeAccess.mapped { try catalog.updateTable(db, table) }
        case .setTableProperties(let properties):
            var parameters = table.parameters ?? [:]
            for p in properties { parameters[p.key] = p.value }
            table.parameters = parameters
            try LakeAccess.mapped { try catalog.updateTable(db, table) }
        case .setFileFormat(let word):
            let columns = table.storageDescriptor?.columns ?? []
            let location = table.storageDescriptor?.location ?? ""
            table.storageDescriptor = try storage(ExternalFileFormat(storedAs: word), columns: columns, location: location)
            try LakeAccess.mapped { try catalog.updateTable(db, table) }
        default:
            throw SQLError.unsupported("this ALTER TABLE action on an external table (ADD/DROP PARTITION, SET LOCATION, SET TABLE PROPERTIES and SET FILE FORMAT are)")
        }
        return StatementResult(tag: "ALTER EXTERNAL TABLE")
    }

    // MARK: - Definitions

    /// A table's or partition's location as kept: an `s3://` or `file://` folder, ending in
    /// `/`. A local folder must be one the user may read (and write, for CREATE EXTERNAL
    /// TABLE AS: UNLOAD judges the files it writes again).
    func checkedLocation(_ raw: String, writing: Bool = false) throws -> String {
        var location = raw.trimmingCharacters(in: .whitespaces)
        let lower = location.lowercased()
        if lower.hasPrefix("s3://") {
            guard S3Location(location) != nil else { throw S3Location.invalid(location) }
        } else if lower.hasPrefix("file://") || location.hasPrefix("/") {
            if location.hasPrefix("/") { location = "file://" + location }
            let access = session.database.serverFiles.access(for: session.user, in: session.security)
            let path = String(location.dropFirst("file://".count))
            if access != .unrestricted && !writing { _ = try access.authorizeReadPrefix(path.hasSuffix("/") ? path : path + "/") }
        } else {
            throw SQLError(.invalidParameter, "LOCATION must be an s3:// or file:// folder: '\(raw)'")
        }
        if !location.hasSuffix("/") { location += "/" }
        return location
    }

    /// The storage descriptor of a format as Hive (and so Glue, Spark, Athena) writes it.
    func storage(_ f: ExternalFileFormat, columns: [GlueColumn], location: String) throws -> GlueStorageDescriptor {
        var serde = GlueStorageDescriptor.SerDe()
        var input = f.inputFormat, output = f.outputFormat
        let stored = f.storedAs ?? (f.inputFormat == nil ? "TEXTFILE" : nil)
        switch stored {
        case "PARQUET"?:
            serde.serializationLibrary = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
            input = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
            output = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
        case "TEXTFILE"?:
            input = "org.apache.hadoop.mapred.TextInputFormat"
            output = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"
        case "ORC"?:
            serde.serializationLibrary = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
            input = "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
            output = "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"
        case "AVRO"?:
            serde.serializationLibrary = "org.apache.hadoop.hive.serde2.avro.AvroSerDe"
            input = "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat"
            output = "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat"
        case "RCFILE"?:
            input = "org.apache.hadoop.hive.ql.io.RCFileInputFormat"
            output = "org.apache.hadoop.hive.ql.io.RCFileOutputFormat"
        case "SEQUENCEFILE"?:
            input = "org.apache.hadoop.mapred.SequenceFileInputFormat"
            output = "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat"
        case nil:
            break
        case let other?:
            throw SQLError(.syntax, "STORED AS \(other) is not a file format (PARQUET, TEXTFILE, ORC, AVRO, RCFILE, SEQUENCEFILE)")
        }
        if let lib = f.serde {
            serde.serializationLibrary = lib
            var params: [String: String] = [:]
            for p in f.serdeProperties { params[p.key] = p.value }
            serde.parameters = params
        } else if stored == "TEXTFILE" || f.fieldDelimiter != nil {
            serde.serializationLibrary = serde.serializationLibrary ?? "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
            let delimiter = Self.unescape(f.fieldDelimiter ?? "\u{1}")
            serde.parameters = ["field.delim": delimiter, "serialization.format": delimiter]
        }
        return GlueStorageDescriptor(columns: columns, location: location, inputFormat: input, outputFormat: output,
                                     serdeInfo: serde)
    }

    /// `FIELDS TERMINATED BY '\t'` and its kin as the character they mean.
    static func unescape(_ s: String) -> String {
        switch s {
        case "\\t": return "\t"
        case "\\n": return "\n"
        case "\\\\": return "\\"
        default:
            if s.hasPrefix("\\"), s.count == 4, let n = UInt8(s.dropFirst(), radix: 8) { return String(UnicodeScalar(n)) }
            if s.lowercased().hasPrefix("\\u"), s.count == 6, let n = UInt32(s.dropFirst(2), radix: 16),
               let scalar = UnicodeScalar(n) { return String(scalar) }
            return s
        }
    }

    static func classification(_ sd: GlueStorageDescriptor) -> String {
        let lib = (sd.serdeInfo?.serializationLibrary ?? "").lowercased()
        if lib.contains("parquet") { return "parquet" }
        if lib.contains("json") { return "json" }
        if lib.contains("orc") { return "orc" }
        if lib.contains("avro") { return "avro" }
        return "csv"
    }
}

/// The names an external catalog keeps: Glue's rule (lower-case letters, digits, `_`),
/// which the data directory's catalog also needs to keep its paths inside `lake/`.
enum DirectoryCatalogNames {
    static func check(_ name: String) throws {
        guard !name.isEmpty, name.count <= 255,
              name.unicodeScalars.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }) else {
            throw SQLError(.invalidParameter, "\"\(name)\" is not a valid name for an external database or table (letters, digits and _)")
        }
    }
}
