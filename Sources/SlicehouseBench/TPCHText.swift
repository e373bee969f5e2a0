// SPDX-License-Identifier: Apache-2.0
/// The TPC-H texts the bench needs, read from its resource files (`BenchResources`): the
/// schema (datasets/tpch/schema.sql), the 22 queries, the reference answers for SF 0.01
/// and 0.1, and the DuckDB helper script (benchmarks/duckdb_tpch.py). Each is empty or nil
/// when the resources are missing; the bench's commands call `BenchResources.require()`
/// first, which says so.
public enum TPCHText {
    /// The eight tables in load order (small ones first, as dbgen writes them).
    public static let tables = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]

    /// datasets/tpch/schema.sql.
    public static var schemaSQL: String { BenchResources.text("tpch/schema.sql") ?? "" }

    /// datasets/tpch/queries/qNN.sql (1...22), nil for another number.
    public static func query(_ number: Int) -> String? {
        guard (1...22).contains(number) else { return nil }
        return BenchResources.text("tpch/queries/" + fileName(number, ".sql"))
    }

    /// Scale factors with reference answers, as directory names under datasets/tpch/answers.
    public static var answerScales: [String] {
        BenchResources.names(in: "tpch/answers").filter { $0.hasPrefix("sf") }
    }

    /// datasets/tpch/answers/<scale>/qNN.csv, nil when there is none.
    public static func answer(scale: String, query: Int) -> String? {
        guard (1...22).contains(query), answerScales.contains(scale) else { return nil }
        return BenchResources.text("tpch/answers/\(scale)/" + fileName(query, ".csv"))
    }

    /// benchmarks/duckdb_tpch.py, written to a temporary file and run with python3.
    public static var duckDBScript: String { BenchResources.text("duckdb_tpch.py") ?? "" }

    /// "q07.sql": a query's file name.
    static func fileName(_ number: Int, _ suffix: String) -> String {
        (number < 10 ? "q0" : "q") + String(number) + suffix
    }

    /// The schema's statements without comments or the trailing semicolon.
    public static var schemaStatements: [String] {
        statements(schemaSQL)
    }

    /// Splits a script of simple statements (no semicolons inside literals) at `;`
    /// and drops `--` comment lines.
    static func statements(_ script: String) -> [String] {
        let lines = script.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
        return lines.joined(separator: "\n").split(separator: ";")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }

    /// The directory name of a scale factor's reference answers ("sf0.01"), if there are any.
    public static func answerScale(for scaleFactor: Double) -> String? {
        let name = "sf" + TPCHBenchOptions.scaleName(scaleFactor)
        return answerScales.contains(name) ? name : nil
    }
}
