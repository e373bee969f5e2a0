// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// How a table's rows are placed on slices (Redshift's DISTSTYLE).
public enum DistStyle: String, Sendable, Equatable {
    case auto = "AUTO", even = "EVEN", key = "KEY", all = "ALL"
}

public enum SortKeyKind: String, Sendable, Equatable {
    case compound = "COMPOUND", interleaved = "INTERLEAVED"
}

/// One column of a table as declared.
public struct ColumnDef: Sendable, Equatable {
    public var name: String
    public var type: DataType
    public var notNull: Bool
    /// DEFAULT expression as SQL text (bound when rows are inserted).
    public var defaultSQL: String?
    /// IDENTITY(seed, step).
    public var identity: (seed: Int64, step: Int64)?
    /// ENCODE name as written (nil = AUTO).
    public var encoding: String?
    public var isPrimaryKey: Bool
    public var isUnique: Bool
    /// REFERENCES table(column), informational.
    public var references: String?

    public init(name: String, type: DataType, notNull: Bool = false, defaultSQL: String? = nil,
                identity: (seed: Int64, step: Int64)? = nil, encoding: String? = nil,
                isPrimaryKey: Bool = false, isUnique: Bool = false, references: String? = nil) {
        self.name = name; self.type = type; self.notNull = notNull; self.defaultSQL = defaultSQL
        self.identity = identity; self.encoding = encoding; self.isPrimaryKey = isPrimaryKey
        self.isUnique = isUnique; self.references = references
    }

    public static func == (a: ColumnDef, b: ColumnDef) -> Bool {
        a.name == b.name && a.type == b.type && a.notNull == b.notNull && a.defaultSQL == b.defaultSQL
            && a.identity?.seed == b.identity?.seed && a.identity?.step == b.identity?.step
            && a.encoding == b.encoding && a.isPrimaryKey == b.isPrimaryKey && a.isUnique == b.isUnique
            && a.references == b.references
    }
}

/// A table's definition: columns, distribution, sort key.
public struct TableDef: Sendable, Equatable {
    public var id: Int
    public var schema: String
    public var name: String
    public var columns: [ColumnDef]
    /// Distribution as declared (AUTO stays AUTO here; see `effectiveDistStyle` in storage).
    public var distStyle: DistStyle
    /// Column index of the DISTKEY (DISTSTYLE KEY).
    public var distKey: Int?
    /// Sort key column indices, in order.
    public var sortKey: [Int]
    public var sortKeyKind: SortKeyKind
    public var isTemporary: Bool
    /// Table-level PRIMARY KEY / UNIQUE column lists (informational).
    public var primaryKey: [Int]
    public var uniqueKeys: [[Int]]
    /// Set when the table is a materialized view's: the query it holds the rows of.
    public var materializedView: MaterializedViewDef?
    /// The database it belongs to (nil: the default database, `dev`). The catalog sets it.
    public var database: String?
    /// Set for an external table (Redshift Spectrum), found in an external schema's catalog
    /// when a statement names it; such a table is never in `Catalog`.
    public var external: ExternalTableDef?

    public init(id: Int, schema: String = "public", name: String, columns: [ColumnDef],
                distStyle: DistStyle = .auto, distKey: Int? = nil, sortKey: [Int] = [],
                sortKeyKind: SortKeyKind = .compound, isTemporary: Bool = false,
                primaryKey: [Int] = [], uniqueKeys: [[Int]] = [], materializedView: MaterializedViewDef? = nil) {
        self.id = id; self.schema = schema; self.name = name; self.columns = columns
        self.distStyle = distStyle; self.distKey = distKey; self.sortKey = sortKey
        self.sortKeyKind = sortKeyKind; self.isTemporary = isTemporary
        self.primaryKey = primaryKey; self.uniqueKeys = uniqueKeys; self.materializedView = materializedView
    }

    public var qualifiedName: QualifiedName { QualifiedName(schema: schema, name: name) }

    public func columnIndex(_ name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }
}

/// A materialized view: the table that holds its rows names the query (bound again at
/// each REFRESH, with unqualified names looked up through `searchPath`, the creating
/// session's) and whether it refreshes itself when its base tables change.
public struct MaterializedViewDef: Sendable, Equatable {
    public var queryText: String
    public var searchPath: [String]
    public var autoRefresh: Bool
    public init(queryText: String, searchPath: [String], autoRefresh: Bool) {
        self.queryText = queryText; self.searchPath = searchPath; self.autoRefresh = autoRefresh
    }
}

/// A view: its schema and name, optional column names and the SQL text of its query
/// (bound anew wherever the view is used, with unqualified names looked up through
/// `searchPath`, the schemas the creating session's search_path named then).
public struct ViewDef: Sendable, Equatable {
    public var schema: String
    public var name: String
    public var columns: [String]
    public var queryText: String
    public var searchPath: [String]
    /// `WITH NO SCHEMA BINDING` (a late-binding view).
    public var lateBinding: Bool
    /// Whether `enable_case_sensitive_identifier` was on when the view was made: its text
    /// is always read as it was then (a quoted name keeps its case, or is folded).
    public var caseSensitiveIdentifiers: Bool
    public init(schema: String = "public", name: String, columns: [String], queryText: String,
                searchPath: [String] = ["public"], lateBinding: Bool = false, caseSensitiveIdentifiers: Bool = false) {
        self.schema = schema; self.name = name; self.columns = columns; self.queryText = queryText
        self.searchPath = searchPath; self.lateBinding = lateBinding; self.caseSensitiveIdentifiers = caseSensitiveIdentifiers
    }
    public var qualifiedName: QualifiedName { QualifiedName(schema: schema, name: name) }
}

/// What the planner knows of an external table. Its columns (`TableDef.columns`) are the
/// data columns, then the partition columns, then the pseudo-columns `$path` and `$size`
/// (reached by name, never listed by `*`). Its rows are read from its files when the
/// statement runs (the engine's external scan).
public struct ExternalTableDef: Sendable, Equatable {
    /// The external schema's catalog database.
    public var catalogDatabase: String
    /// `LOCATION`: an `s3://` or `file://` folder (or a manifest).
    public var location: String
    /// As EXPLAIN and SVV_EXTERNAL_TABLES name it: PARQUET, TEXTFILE, JSON, ICEBERG.
    public var formatName: String
    /// How many of the columns before the pseudo-columns are partition columns.
    public var partitionColumns: Int
    /// The pseudo-columns at the end (`$path`, `$size`).
    public var pseudoColumns: Int
    /// The `numRows` table property (nil: not set; the planner then assumes a large table).
    public var numRows: Double?

    public init(catalogDatabase: String, location: String, formatName: String, partitionColumns: Int,
                pseudoColumns: Int = 2, numRows: Double? = nil) {
        self.catalogDatabase = catalogDatabase; self.location = location; self.formatName = formatName
        self.partitionColumns = partitionColumns; self.pseudoColumns = pseudoColumns; self.numRows = numRows
    }

    /// The names of the pseudo-columns, in order.
    public static let pseudoColumnNames = ["$path", "$size"]
}
