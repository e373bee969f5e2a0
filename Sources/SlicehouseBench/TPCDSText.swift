// SPDX-License-Identifier: Apache-2.0
/// The TPC-DS texts the bench needs, read from its resource files (`BenchResources`): the
/// schema (benchmarks/tpcds/schema.sql), the 99 queries (benchmarks/tpcds/queries, taken
/// from DuckDB's tpcds extension by benchmarks/tpcds/extract_queries.py) and the DuckDB
/// helper script (benchmarks/duckdb_tpcds.py).
public enum TPCDSText {
    /// The 24 tables in load order (small dimensions first, the big facts last).
    public static let tables = [
        "call_center", "catalog_page", "customer_address", "customer", "customer_demographics", "date_dim",
        "household_demographics", "income_band", "item", "promotion", "reason", "ship_mode", "store", "time_dim",
        "warehouse", "web_page", "web_site", "inventory", "store_returns", "catalog_returns", "web_returns",
        "web_sales", "catalog_sales", "store_sales",
    ]

    public static let queryNumbers = Array(1...99)

    /// benchmarks/tpcds/schema.sql.
    public static var schemaSQL: String { BenchResources.text("tpcds/schema.sql") ?? "" }

    /// benchmarks/tpcds/queries/qNN.sql (1...99), nil for another number.
    public static func query(_ number: Int) -> String? {
        guard queryNumbers.contains(number) else { return nil }
        return BenchResources.text("tpcds/queries/" + TPCHText.fileName(number, ".sql"))
    }

    /// benchmarks/duckdb_tpcds.py, written to a temporary file and run with python3.
    public static var duckDBScript: String { BenchResources.text("duckdb_tpcds.py") ?? "" }

    /// The schema's statements without comments or the trailing semicolon.
    public static var schemaStatements: [String] { TPCHText.statements(schemaSQL) }
}
