// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// The lake (Redshift Spectrum): external schemas and external tables.

/// `CREATE EXTERNAL SCHEMA` and `CREATE EXTERNAL TABLE` (with or without AS query).
/// ALTER TABLE's partition and location actions are `AlterTable.Action`s; DROP SCHEMA's
/// `DROP EXTERNAL DATABASE` is `DropSchema.dropExternalDatabase`.
public enum ExternalStatement: Sendable, Hashable {
    case createSchema(CreateExternalSchema)
    case createTable(CreateExternalTable)
}

/// `CREATE EXTERNAL SCHEMA [IF NOT EXISTS] s FROM [DATA CATALOG] DATABASE 'db' [REGION 'r']
/// IAM_ROLE {default | 'arn'} [CATALOG_ROLE …] [CREATE EXTERNAL DATABASE IF NOT EXISTS]`.
public struct CreateExternalSchema: Sendable, Hashable {
    public var name: String
    public var ifNotExists: Bool
    /// The catalog's database (`DATABASE 'db'`).
    public var database: String
    public var region: String?
    /// `IAM_ROLE 'arn'` (several chained roles as written, comma-separated); `default`.
    public var iamRole: String?
    public var createDatabase: Bool
    @IgnoredInComparison public var location: SourceLocation

    public init(name: String, ifNotExists: Bool = false, database: String, region: String? = nil,
                iamRole: String? = nil, createDatabase: Bool = false, location: SourceLocation = .unknown) {
        self.name = name; self.ifNotExists = ifNotExists; self.database = database; self.region = region
        self.iamRole = iamRole; self.createDatabase = createDatabase; self.location = location
    }
}

/// How an external table's files are laid out: `ROW FORMAT DELIMITED FIELDS TERMINATED BY …`,
/// `ROW FORMAT SERDE '…' [WITH SERDEPROPERTIES (…)]`, `STORED AS …` or
/// `STORED AS INPUTFORMAT '…' OUTPUTFORMAT '…'`.
public struct ExternalFileFormat: Sendable, Hashable {
    /// `FIELDS TERMINATED BY` (nil: not written).
    public var fieldDelimiter: String?
    /// `LINES TERMINATED BY`.
    public var lineDelimiter: String?
    /// `ROW FORMAT SERDE 'class'`.
    public var serde: String?
    public var serdeProperties: [KeyValue]
    /// `STORED AS` word, upper-cased (PARQUET, TEXTFILE, …); nil with INPUTFORMAT or not written.
    public var storedAs: String?
    public var inputFormat: String?
    public var outputFormat: String?

    public init(fieldDelimiter: String? = nil, lineDelimiter: String? = nil, serde: String? = nil,
                serdeProperties: [KeyValue] = [], storedAs: String? = nil, inputFormat: String? = nil,
                outputFormat: String? = nil) {
        self.fieldDelimiter = fieldDelimiter; self.lineDelimiter = lineDelimiter; self.serde = serde
        self.serdeProperties = serdeProperties; self.storedAs = storedAs; self.inputFormat = inputFormat
        self.outputFormat = outputFormat
    }
}

/// `'name' = 'value'` of TABLE PROPERTIES and SERDEPROPERTIES, in the order written.
public struct KeyValue: Sendable, Hashable {
    public var key: String
    public var value: String
    public init(_ key: String, _ value: String) { self.key = key; self.value = value }
}

/// `CREATE EXTERNAL TABLE s.t (cols) [PARTITIONED BY (cols)] format LOCATION '…'
/// [TABLE PROPERTIES (…)]`, or with `AS query` (columns from the query; PARTITIONED BY
/// names some of them, without types).
public struct CreateExternalTable: Sendable, Hashable {
    public var name: ObjectName
    public var ifNotExists: Bool
    /// Data columns (empty with AS).
    public var columns: [ColumnDefinition]
    /// Partition columns: typed without AS, named only (type `.unknown`) with AS.
    public var partitionColumns: [ColumnDefinition]
    public var format: ExternalFileFormat
    public var location: String
    public var properties: [KeyValue]
    public var query: Query?
    @IgnoredInComparison public var sourceLocation: SourceLocation

    public init(name: ObjectName, ifNotExists: Bool = false, columns: [ColumnDefinition], partitionColumns: [ColumnDefinition] = [],
                format: ExternalFileFormat, location: String, properties: [KeyValue] = [], query: Query? = nil,
                sourceLocation: SourceLocation = .unknown) {
        self.name = name; self.ifNotExists = ifNotExists; self.columns = columns; self.partitionColumns = partitionColumns
        self.format = format; self.location = location; self.properties = properties; self.query = query
        self.sourceLocation = sourceLocation
    }
}

/// One `PARTITION (k = 'v', …) [LOCATION '…']` of ALTER TABLE ADD / DROP PARTITION.
public struct PartitionSpec: Sendable, Hashable {
    /// The keys and their values as written (literals' text).
    public var values: [KeyValue]
    public var location: String?
    public init(values: [KeyValue], location: String? = nil) { self.values = values; self.location = location }
}
