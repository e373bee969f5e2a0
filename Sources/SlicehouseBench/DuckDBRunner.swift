// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs TPC-H on DuckDB through its Python package: the embedded copy of
/// benchmarks/duckdb_tpch.py is written to a temporary directory and run with python3;
/// it prints one JSON document (`DuckDBOutput`).
public struct DuckDBRunner: Sendable {
    public var python: String

    public init(python: String = "python3") { self.python = python }

    /// The spec the script reads.
    struct Spec: Encodable {
        var data: String
        var database: String
        var threads: Int
        var runs: Int
        var warmup: Bool
        var tables: [String]
        var schema: [String]
        var queries: [SpecQuery]
        var external: External?
    }

    /// `bench tpch --external`: DuckDB reads views over Parquet on S3 (httpfs) instead of
    /// loading the .tbl files. The keys come from the environment the script inherits.
    public struct External: Encodable, Sendable {
        public var endpoint: String
        public var useSSL: Bool
        public var region: String
        /// Each table's CREATE VIEW.
        public var views: [String: String]
    }
    struct SpecQuery: Encodable { var number: Int; var sql: String }

    /// What the script prints.
    public struct Output: Decodable, Sendable {
        public var version: String
        public var threads: Int
        public var loadSeconds: [String: Double]
        public var loadTotalSeconds: Double
        public var loadPeakRSSBytes: Int64
        public var sizeBytes: Int64
        public var peakRSSBytes: Int64
        public var memoryKind: String
        public var queries: [Query]

        public struct Query: Decodable, Sendable {
            public var number: Int
            public var seconds: [Double]
            public var rows: Int
            public var columns: [String]
            public var result: [[String?]]
            public var error: String?
            public var peakRSSBytes: Int64
        }
    }

    /// The installed DuckDB's version, or why it cannot be used (with how to install it).
    public func probe() -> Result<String, BenchError> {
        let code = "import duckdb, sys; sys.stdout.write(duckdb.__version__)"
        let result: (status: Int32, stdout: String, stderr: String)
        do {
            result = try Self.run([python, "-c", code])
        } catch {
            return .failure(.duckDBUnavailable("could not run \(python): \(error). DuckDB runs through Python: install python3, then pip install duckdb"))
        }
        if result.status == 127 {  // /usr/bin/env: command not found
            return .failure(.duckDBUnavailable("\(python) was not found. DuckDB runs through Python: install python3, then pip install duckdb"))
        }
        guard result.status == 0, !result.stdout.isEmpty else {
            return .failure(.duckDBUnavailable("DuckDB's Python package is not installed for \(python): pip install duckdb"
                                               + " (or set SLICEHOUSE_PYTHON to a python3 that has it)"))
        }
        return .success(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Load the .tbl files of `dataDirectory` into a fresh DuckDB file under `workDirectory`
    /// and run `queries` (a warm-up when `warmup`, then `runs` timed runs; with `runs` 0 and
    /// no warm-up each query runs once, for its answer).
    public func run(dataDirectory: String, workDirectory: String, threads: Int, runs: Int, warmup: Bool,
                    external: External? = nil, queries: [(number: Int, sql: String)]) throws -> Output {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        } catch {
            throw BenchError.io("could not create \(workDirectory): \(error.localizedDescription)")
        }
        let script = (workDirectory as NSString).appendingPathComponent("duckdb_tpch.py")
        let specPath = (workDirectory as NSString).appendingPathComponent("spec.json")
        let spec = Spec(data: dataDirectory, database: (workDirectory as NSString).appendingPathComponent("tpch.duckdb"),
                        threads: threads, runs: runs, warmup: warmup, tables: TPCHText.tables,
                        schema: TPCHText.schemaStatements,
                        queries: queries.map { SpecQuery(number: $0.number, sql: $0.sql) }, external: external)
        do {
            try Data(TPCHText.duckDBScript.utf8).write(to: URL(fileURLWithPath: script))
            try JSONEncoder().encode(spec).write(to: URL(fileURLWithPath: specPath))
        } catch {
            throw BenchError.io("could not write the DuckDB script to \(workDirectory): \(error.localizedDescription)")
        }
        let result: (status: Int32, stdout: String, stderr: String)
        do {
            result = try Self.run([python, script, "--spec", specPath], workDirectory: workDirectory)
        } catch {
            throw BenchError.duckDBUnavailable("could not run \(python): \(error)")
        }
        if result.status == 3 {
            throw BenchError.duckDBUnavailable("DuckDB's Python package is not installed for \(python): pip install duckdb")
        }
        guard result.status == 0 else {
            throw BenchError.duckDBFailed("DuckDB run failed (exit status \(result.status)):\n" + String(result.stderr.suffix(3000)))
        }
        do {
            return try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        } catch {
            throw BenchError.duckDBFailed("could not read the DuckDB script's output: \(error)\n" + String(result.stdout.prefix(500)))
        }
    }

    /// Run a command (looked up in PATH by /usr/bin/env), standard output and error
    /// captured through files so that neither pipe can fill up.
    static func run(_ arguments: [String], workDirectory: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let fm = FileManager.default
        let dir = workDirectory ?? fm.temporaryDirectory.path
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let outPath = (dir as NSString).appendingPathComponent("stdout-\(tag)")
        let errPath = (dir as NSString).appendingPathComponent("stderr-\(tag)")
        guard fm.createFile(atPath: outPath, contents: nil), fm.createFile(atPath: errPath, contents: nil),
              let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw BenchError.io("could not create temporary files in \(dir)")
        }
        defer {
            try? out.close(); try? err.close()
            try? fm.removeItem(atPath: outPath); try? fm.removeItem(atPath: errPath)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, stdout, stderr)
    }
}
