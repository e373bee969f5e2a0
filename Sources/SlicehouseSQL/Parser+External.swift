// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// CREATE EXTERNAL SCHEMA, CREATE EXTERNAL TABLE [AS], and the partition and location
// actions of ALTER TABLE on external tables (Redshift Spectrum).

extension Parser {
    /// After `CREATE EXTERNAL`: `SCHEMA …` or `TABLE …`.
    mutating func parseCreateExternal(start: Token) throws -> Statement {
        if acceptWord("schema") { return .external(.createSchema(try parseCreateExternalSchema(start: start))) }
        try expectWord("table")
        return .external(.createTable(try parseCreateExternalTable(start: start)))
    }

    /// After `CREATE EXTERNAL SCHEMA`: `[IF NOT EXISTS] name FROM [DATA CATALOG] [DATABASE 'db']
    /// [SCHEMA 'db'] [REGION 'r'] [IAM_ROLE {default | 'arn'}] [CATALOG_ROLE …] [CATALOG_ID '…']
    /// [CREATE EXTERNAL DATABASE IF NOT EXISTS]` — the clauses after FROM in any order.
    mutating func parseCreateExternalSchema(start: Token) throws -> CreateExternalSchema {
        let ifNotExists = acceptWords("if", "not", "exists")
        let name = try parseIdentifier()
        try expectWord("from")
        if acceptWord("data") {
            try expectWord("catalog")
        } else if isWord("hive") || isWord("postgres") || isWord("mysql") || isWord("kinesis") || isWord("msk")
                    || isWord("redshift") || isWord("kafka") {
            throw SQLError.unsupported("CREATE EXTERNAL SCHEMA other than FROM DATA CATALOG: only the data catalog (FROM DATA CATALOG) is supported")
        }
        var database: String?, region: String?, role: String?, create = false
        while !atEnd && !isSymbol(";") {
            if acceptWord("database") {
                database = try parseStringLiteral()
            } else if acceptWord("schema") {
                database = try parseStringLiteral()
            } else if acceptWord("region") {
                region = try parseStringLiteral()
            } else if acceptWord("iam_role") {
                if acceptWord("default") { role = "default" } else { role = try parseStringLiteral() }
            } else if acceptWord("catalog_role") || acceptWord("catalog_id") || acceptWord("uri") {
                if !acceptWord("session") { _ = try parseStringLiteral() }
            } else if acceptWord("create") {
                try expectWord("external")
                try expectWord("database")
                try expectWord("if")
                try expectWord("not")
                try expectWord("exists")
                create = true
            } else {
                throw syntaxError(at: current)
            }
        }
        guard let database else {
            throw error("CREATE EXTERNAL SCHEMA needs DATABASE 'name' (the data catalog's database)", at: current)
        }
        return CreateExternalSchema(name: name, ifNotExists: ifNotExists, database: database, region: region,
                                    iamRole: role, createDatabase: create, location: start.location)
    }

    /// After `CREATE EXTERNAL TABLE`.
    mutating func parseCreateExternalTable(start: Token) throws -> CreateExternalTable {
        let ifNotExists = acceptWords("if", "not", "exists")
        let name = try parseObjectName()
        var columns: [ColumnDefinition] = []
        if acceptSymbol("(") {
            repeat {
                let column = try parseIdentifier()
                columns.append(ColumnDefinition(name: column, type: try parseDataType()))
            } while acceptSymbol(",")
            try expectSymbol(")")
        }
        var partitions: [ColumnDefinition] = []
        if acceptWords("partitioned", "by") {
            try expectSymbol("(")
            repeat {
                let column = try parseIdentifier()
                // CREATE EXTERNAL TABLE AS names its partition columns without types.
                let type: DataType = isSymbol(",") || isSymbol(")") ? .unknown : try parseDataType()
                partitions.append(ColumnDefinition(name: column, type: type))
            } while acceptSymbol(",")
            try expectSymbol(")")
        }
        var format = ExternalFileFormat()
        var location: String?
        var properties: [KeyValue] = []
        var query: Query?
        while !atEnd && !isSymbol(";") {
            if acceptWords("row", "format") {
                if acceptWord("delimited") {
                    while true {
                        if acceptWords("fields", "terminated", "by") {
                            format.fieldDelimiter = try parseStringLiteral()
                        } else if acceptWords("lines", "terminated", "by") {
                            format.lineDelimiter = try parseStringLiteral()
                        } else {
                            break
                        }
                    }
                } else {
                    try expectWord("serde")
                    format.serde = try parseStringLiteral()
                    if acceptWords("with", "serdeproperties") { format.serdeProperties = try parseKeyValues() }
                }
            } else if acceptWords("stored", "as") {
                if acceptWord("inputformat") {
                    format.inputFormat = try parseStringLiteral()
                    try expectWord("outputformat")
                    format.outputFormat = try parseStringLiteral()
                } else {
                    format.storedAs = try parseLabel().uppercased()
                }
            } else if acceptWord("location") {
                location = try parseStringLiteral()
            } else if acceptWords("table", "properties") {
                properties = try parseKeyValues()
            } else if acceptWord("as") {
                query = try parseQuery()
            } else {
                throw syntaxError(at: current)
            }
        }
        guard let location else { throw error("CREATE EXTERNAL TABLE needs LOCATION 's3://bucket/folder/'", at: current) }
        if query == nil {
            guard !columns.isEmpty else { throw error("CREATE EXTERNAL TABLE needs its columns, or AS a query", at: current) }
            if let untyped = partitions.first(where: { $0.type == .unknown }) {
                throw error("partition column \"\(untyped.name)\" needs a data type", at: current)
            }
        } else if !columns.isEmpty {
            throw error("CREATE EXTERNAL TABLE AS takes its columns from the query: drop the column list", at: current)
        }
        return CreateExternalTable(name: name, ifNotExists: ifNotExists, columns: columns, partitionColumns: partitions,
                                   format: format, location: location, properties: properties, query: query,
                                   sourceLocation: start.location)
    }

    /// `( 'key' = 'value' [, …] )`.
    mutating func parseKeyValues() throws -> [KeyValue] {
        try expectSymbol("(")
        var out: [KeyValue] = []
        repeat {
            let key = try parseStringLiteral()
            try expectSymbol("=")
            out.append(KeyValue(key, try parseStringLiteral()))
        } while acceptSymbol(",")
        try expectSymbol(")")
        return out
    }

    /// After `PARTITION`: `( key = value [, …] )`, the values strings or numbers as written.
    mutating func parsePartitionValues() throws -> [KeyValue] {
        try expectSymbol("(")
        var out: [KeyValue] = []
        repeat {
            let key = try parseIdentifier()
            try expectSymbol("=")
            let value: String
            switch current.kind {
            case .string(let s): value = s; advance()
            case .integer(let d), .decimal(let d), .float(let d): value = d; advance()
            case .symbol("-"):
                advance()
                switch current.kind {
                case .integer(let d), .decimal(let d), .float(let d): value = "-" + d; advance()
                default: throw syntaxError(at: current)
                }
            default:
                if acceptWord("null") { value = HivePartitionDefaults.nullValue } else { throw syntaxError(at: current) }
            }
            out.append(KeyValue(key, value))
        } while acceptSymbol(",")
        try expectSymbol(")")
        return out
    }

    /// The external-table actions of ALTER TABLE after `ADD`: `[IF NOT EXISTS] PARTITION (…)
    /// LOCATION '…' [PARTITION (…) LOCATION '…' …]`; nil when `ADD` starts another action.
    mutating func parseAddPartitions() throws -> AlterTable.Action? {
        guard isWord("partition") || (isWord("if") && isWord("partition", at: 3)) else { return nil }
        let ifNotExists = acceptWords("if", "not", "exists")
        var specs: [PartitionSpec] = []
        while acceptWord("partition") {
            let values = try parsePartitionValues()
            try expectWord("location")
            specs.append(PartitionSpec(values: values, location: try parseStringLiteral()))
        }
        guard !specs.isEmpty else { throw syntaxError(at: current) }
        return .addPartitions(specs, ifNotExists: ifNotExists)
    }

    /// ALTER TABLE's external-table actions that start with `SET` or `PARTITION`; nil when
    /// the next words start none of them.
    mutating func parseExternalSetAction() throws -> AlterTable.Action? {
        if acceptWord("partition") {
            let values = try parsePartitionValues()
            try expectWords("set", "location")
            return .setLocation(try parseStringLiteral(), partition: PartitionSpec(values: values))
        }
        guard isWord("set") else { return nil }
        if isWord("location", at: 1) {
            advance(); advance()
            return .setLocation(try parseStringLiteral(), partition: nil)
        }
        if isWord("table", at: 1) && isWord("properties", at: 2) {
            advance(); advance(); advance()
            return .setTableProperties(try parseKeyValues())
        }
        if isWord("file", at: 1) && isWord("format", at: 2) {
            advance(); advance(); advance()
            return .setFileFormat(try parseLabel().uppercased())
        }
        return nil
    }

    private mutating func expectWords(_ words: String...) throws {
        for w in words { try expectWord(w) }
    }
}

/// Hive's names for what a partition folder cannot spell otherwise.
public enum HivePartitionDefaults {
    /// The value of a NULL partition key (`k=__HIVE_DEFAULT_PARTITION__`).
    public static let nullValue = "__HIVE_DEFAULT_PARTITION__"
}
