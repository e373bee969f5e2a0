// SPDX-License-Identifier: Apache-2.0
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseIceberg
import SlicehouseLake
import SlicehouseLoad
import SlicehouseTypes

/// An external table as a statement found it in its schema's catalog: the catalog's
/// definition, the `TableDef` the planner sees (data columns, partition columns, `$path`,
/// `$size`) and how its files are read.
struct ExternalTable: Sendable {
    let schema: SchemaDef
    let external: ExternalSchemaDef
    let glue: GlueTable
    let def: TableDef
    /// The data columns (the files' columns): `def.columns[0..<dataColumns]`.
    let dataColumns: Int
    /// The partition keys' names, in order (`def.columns[dataColumns...]`).
    let partitionKeys: [String]
    /// An Apache Iceberg table's metadata as of this statement (its columns are the current
    /// schema's, its files the current snapshot's); nil for a Hive-style table.
    let iceberg: IcebergMetadata?

    /// The table as the catalog describes it; an Iceberg table's metadata file is read
    /// with `read` (so each statement sees the table's current snapshot).
    init(schema: SchemaDef, external: ExternalSchemaDef, glue: GlueTable, id: Int,
         read: (String) throws -> [UInt8]) throws {
        if Self.isIceberg(glue) {
            let parameters = glue.parameters ?? [:]
            guard let location = parameters["metadata_location"] ?? parameters["METADATA_LOCATION"], !location.isEmpty else {
                throw SQLError(.invalidParameter, "Iceberg table \"\(schema.name).\(glue.name)\" has no metadata_location in the catalog")
            }
            do {
                let metadata = try IcebergMetadata(json: try read(location), name: location)
                try self.init(schema: schema, external: external, glue: glue, id: id, iceberg: metadata)
            } catch let e as IcebergError {
                throw e.sqlError
            }
        } else {
            try self.init(schema: schema, external: external, glue: glue, id: id, iceberg: nil)
        }
    }

    private init(schema: SchemaDef, external: ExternalSchemaDef, glue: GlueTable, id: Int, iceberg: IcebergMetadata?) throws {
        self.schema = schema
        self.external = external
        self.glue = glue
        self.iceberg = iceberg
        var sd = glue.storageDescriptor
        if let iceberg {
            // An Iceberg table's columns are its metadata's current schema (by field id), not Glue's copy.
            sd = sd ?? GlueStorageDescriptor()
            sd?.columns = iceberg.fields.map { GlueColumn(name: $0.name, type: "string") }
            if (sd?.location ?? "").isEmpty { sd?.location = iceberg.location }
        }
        func columns(_ list: [GlueColumn]) throws -> [ColumnDef] {
            if let iceberg, list.count == iceberg.fields.count {
                return iceberg.fields.map { ColumnDef(name: $0.name.lowercased(), type: $0.type.dataType) }
            }
            return try list.map { c in
                do {
                    return ColumnDef(name: c.name.lowercased(), type: try HiveTypes.dataType(c.type, column: c.name))
                } catch let e as SQLError {
                    throw SQLError(e.code, "External table \"\(schema.name).\(glue.name)\": \(e.message)")
                }
            }
        }
        let data = try columns(sd?.columns ?? [])
        // Iceberg's partitioning is hidden: no partition columns.
        let partitions = iceberg == nil ? try columns(glue.partitionKeys ?? []) : []
        dataColumns = data.count
        partitionKeys = partitions.map(\.name)
        let pseudo = [ColumnDef(name: ExternalTableDef.pseudoColumnNames[0], type: .varchar(512)),
                      ColumnDef(name: ExternalTableDef.pseudoColumnNames[1], type: .bigint)]
        var def = TableDef(id: id, schema: schema.name, name: glue.name.lowercased(), columns: data + partitions + pseudo,
                           distStyle: .even)
        def.external = ExternalTableDef(catalogDatabase: external.database, location: sd?.location ?? "",
                                        formatName: Self.formatName(glue), partitionColumns: partitions.count,
                                        numRows: glue.parameters?["numRows"].flatMap { Double($0) }
                                            ?? glue.parameters?["numrows"].flatMap { Double($0) })
        self.def = def
    }

    var location: String { def.external?.location ?? glue.storageDescriptor?.location ?? "" }

    /// The Iceberg field id of each data column (nil for a Hive-style table).
    var fieldIDs: [Int]? { iceberg.map { $0.fields.map(\.id) } }

    /// Whether the table is an Apache Iceberg table (Glue's `table_type` parameter).
    static func isIceberg(_ t: GlueTable) -> Bool {
        (t.parameters?["table_type"] ?? t.parameters?["TABLE_TYPE"])?.uppercased() == "ICEBERG"
    }

    /// How EXPLAIN and SVV_EXTERNAL_TABLES name the files' format.
    static func formatName(_ t: GlueTable) -> String {
        if isIceberg(t) { return "ICEBERG" }
        let sd = t.storageDescriptor
        let serde = (sd?.serdeInfo?.serializationLibrary ?? "").lowercased()
        let input = (sd?.inputFormat ?? "").lowercased()
        let classification = (t.parameters?["classification"] ?? "").lowercased()
        if serde.contains("parquet") || input.contains("parquet") || classification == "parquet" { return "PARQUET" }
        if serde.contains("json") || classification == "json" { return "JSON" }
        if serde.contains("orc") || input.contains("orc") { return "ORC" }
        if serde.contains("avro") || input.contains("avro") { return "AVRO" }
        if input.contains("rcfile") { return "RCFILE" }
        if input.contains("sequencefile") { return "SEQUENCEFILE" }
        return "TEXTFILE"
    }

    /// How the files are read (the SerDe's options as COPY's).
    func format() throws -> ExternalFileReader.Format {
        let name = def.external?.formatName ?? "TEXTFILE"
        let where_ = "external table \"\(schema.name).\(def.name)\""
        switch name {
        case "PARQUET":
            return .parquet()
        case "ICEBERG" where iceberg != nil:
            return .parquet(fieldIDs: fieldIDs)
        case "TEXTFILE", "JSON":
            let sd = glue.storageDescriptor
            let serde = (sd?.serdeInfo?.serializationLibrary ?? "").lowercased()
            let params = sd?.serdeInfo?.parameters ?? [:]
            var options: [(name: String, value: String?)] = []
            if name == "JSON" {
                options.append(("JSON", "auto ignorecase"))
            } else if serde.contains("opencsvserde") {
                options.append(("CSV", nil))
                options.append(("DELIMITER", params["separatorChar"] ?? ","))
                options.append(("QUOTE", params["quoteChar"] ?? "\""))
            } else {
                // Hive's `serialization.format` is the delimiter too, unless it is a digit (a format code).
                let format = params["serialization.format"].flatMap { f in f.count == 1 && !(f.first?.isNumber ?? true) ? f : nil }
                let delimiter = params["field.delim"] ?? format
                options.append(("DELIMITER", delimiter ?? "\u{1}"))
                options.append(("NULL", glue.parameters?["serialization.null.format"] ?? params["serialization.null.format"] ?? "\\N"))
            }
            // Hive reads a short line's missing fields as NULL.
            if name != "JSON" { options.append(("FILLRECORD", nil)) }
            let skip = glue.parameters?["skip.header.line.count"] ?? params["skip.header.line.count"]
            if let skip, let n = Int(skip), n > 0 { options.append(("IGNOREHEADER", String(n))) }
            do {
                return .text(try CopyOptions(options: options))
            } catch let e as SQLError {
                throw SQLError(e.code, "\(where_): \(e.message)")
            }
        case "ICEBERG":
            throw SQLError.unsupported("reading the Apache Iceberg \(where_)")
        default:
            throw SQLError.unsupported("reading \(name) files (\(where_)): Slicehouse reads PARQUET, TEXTFILE (delimited and OpenCSVSerde) and JSON external tables")
        }
    }
}
