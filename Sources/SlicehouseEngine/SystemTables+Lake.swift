// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseLake
import SlicehouseRuntime
import SlicehouseStorage
import SlicehouseTypes

/// The lake's catalog views: SVV_EXTERNAL_SCHEMAS from the database's own catalog, and
/// SVV_EXTERNAL_TABLES, SVV_EXTERNAL_COLUMNS and SVV_EXTERNAL_PARTITIONS from each external
/// schema's catalog (Glue, or the data directory's), asked when the view is read. A user
/// sees the external schemas they own or have USAGE on (superusers: all); a catalog that
/// cannot be reached shows no tables rather than failing the query.
extension SystemTables {
    static let lakeNames = ["svv_external_schemas", "svv_external_tables", "svv_external_columns", "svv_external_partitions"]

    func lakeTable(named name: String) -> (TableDef, TableSnapshot)? {
        let text = DataType.varchar(128)
        switch name {
        case "svv_external_schemas":
            let rows = visibleExternalSchemas().map { s, e -> [Value] in
                var options: [String] = []
                if let role = e.iamRole { options.append("\"IAM_ROLE\":\"\(Self.jsonEscaped(role))\"") }
                if let region = e.region { options.append("\"REGION\":\"\(Self.jsonEscaped(region))\"") }
                options.append("\"CATALOG\":\"\(e.catalog == .glue ? "GLUE" : "DATA DIRECTORY")\"")
                let owner = transaction.catalog.security.user(s.owner)?.id ?? 1
                return [.int(Self.schemaOID(s.name)), .int(1), .string(s.name), .int(Int64(owner)), .string(e.database),
                        .string("{" + options.joined(separator: ",") + "}")]
            }
            return make(-58, name, [("esoid", .integer), ("eskind", .integer), ("schemaname", text), ("esowner", .integer),
                                    ("databasename", text), ("esoptions", .varchar(65535))], rows)
        case "svv_external_tables":
            var rows: [[Value]] = []
            for (schema, _, table) in externalTables() {
                let sd = table.storageDescriptor
                rows.append([.string(databaseName), .string(schema.name), .string(table.name.lowercased()),
                             .string(table.tableType ?? "EXTERNAL_TABLE"),
                             .string(sd?.location ?? ""), .string(sd?.inputFormat ?? ""), .string(sd?.outputFormat ?? ""),
                             .string(sd?.serdeInfo?.serializationLibrary ?? ""), .string(Self.json(sd?.serdeInfo?.parameters)),
                             .int(0), .string(Self.json(table.parameters))])
            }
            return make(-56, name, [("redshift_database_name", text), ("schemaname", text), ("tablename", text),
                                    ("tabletype", text), ("location", .varchar(65535)), ("input_format", .varchar(256)),
                                    ("output_format", .varchar(256)), ("serialization_lib", .varchar(256)),
                                    ("serde_parameters", .varchar(65535)), ("compressed", .integer),
                                    ("parameters", .varchar(65535))], rows)
        case "svv_external_columns":
            var rows: [[Value]] = []
            for (schema, _, table) in externalTables() {
                let columns = table.storageDescriptor?.columns ?? []
                let keys = table.partitionKeys ?? []
                for (i, c) in (columns + keys).enumerated() {
                    let partKey = i >= columns.count ? i - columns.count + 1 : 0
                    rows.append([.string(databaseName), .string(schema.name), .string(table.name.lowercased()),
                                 .string(c.name.lowercased()), .string(c.type), .int(Int64(i + 1)), .int(Int64(partKey)),
                                 .string("")])
                }
            }
            return make(-57, name, [("redshift_database_name", text), ("schemaname", text), ("tablename", text),
                                    ("columnname", text), ("external_type", text), ("columnnum", .integer),
                                    ("part_key", .integer), ("is_nullable", text)], rows)
        case "svv_external_partitions":
            var rows: [[Value]] = []
            for (schema, catalog, table) in externalTables() where !(table.partitionKeys ?? []).isEmpty {
                guard let external = schema.external,
                      let partitions = try? catalog.partitions(external.database, table.name) else { continue }
                for p in partitions.sorted(by: { $0.values.lexicographicallyPrecedes($1.values) }) {
                    let sd = p.storageDescriptor
                    let values = "[" + p.values.map { "\"\(Self.jsonEscaped($0))\"" }.joined(separator: ",") + "]"
                    rows.append([.string(schema.name), .string(table.name.lowercased()), .string(values), .string(sd?.location ?? ""), .string(sd?.inputFormat ?? ""),
                                 .string(sd?.outputFormat ?? ""), .string(sd?.serdeInfo?.serializationLibrary ?? ""),
                                 .string(Self.json(sd?.serdeInfo?.parameters)), .int(0),
                                 .string(Self.json(p.parameters))])
                }
            }
            return make(-142, name, [("schemaname", text), ("tablename", text), ("values", .varchar(65535)), ("location", .varchar(65535)), ("input_format", .varchar(256)),
                                    ("output_format", .varchar(256)), ("serialization_lib", .varchar(256)),
                                    ("serde_parameters", .varchar(65535)), ("compressed", .integer),
                                    ("parameters", .varchar(65535))], rows)
        default:
            return nil
        }
    }

    /// The external schemas the reading user may see: owned, or with USAGE (superusers: all).
    private func visibleExternalSchemas() -> [(SchemaDef, ExternalSchemaDef)] {
        let catalog = transaction.catalog
        let user = session?.user
        let superuser = user.map { catalog.security.isSuperuser($0) } ?? true
        return catalog.allSchemas.compactMap { s in
            guard let e = s.external else { return nil }
            if superuser || s.owner == user || user.map({ catalog.security.has($0, .usage, on: .schema(s.name)) }) == true {
                return (s, e)
            }
            return nil
        }
    }

    /// Every table of every visible external schema's catalog database, by schema and name.
    private func externalTables() -> [(SchemaDef, any ExternalCatalog, GlueTable)] {
        guard let session else { return [] }
        let lake = LakeAccess(session: session, context: QueryContext())
        var out: [(SchemaDef, any ExternalCatalog, GlueTable)] = []
        for (schema, external) in visibleExternalSchemas() {
            guard let catalog = try? lake.catalog(external),
                  let tables = try? catalog.tables(in: external.database) else { continue }
            for t in tables.sorted(by: { $0.name < $1.name }) { out.append((schema, catalog, t)) }
        }
        return out
    }

    /// Parameters as a JSON object with sorted keys (`{}` for none).
    static func json(_ parameters: [String: String]?) -> String {
        let pairs = (parameters ?? [:]).sorted { $0.key < $1.key }
            .map { "\"\(jsonEscaped($0.key))\":\"\(jsonEscaped($0.value))\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    static func jsonEscaped(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out
    }
}
