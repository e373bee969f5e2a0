// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine

/// What `slicehouse bench tpch` runs. Every field has a usable default except the scale factor.
public struct TPCHBenchOptions: Sendable {
    /// TPC-H scale factor (SF 1 is about 1 GB of .tbl text).
    public var scaleFactor: Double
    /// Query numbers (1...22), in the order they run.
    public var queries: [Int] = Array(1...22)
    /// Timed runs per query, after one untimed warm-up.
    public var runs: Int = 3
    /// Layout of the Slicehouse database (see `cluster(slices:)`).
    public var cluster: ClusterConfig
    /// Where the generated .tbl files are cached.
    public var dataDirectory: String
    /// `--data s3://bucket/prefix/`: the .tbl files are put there (once, in objects of
    /// about 16 MB) and Slicehouse's COPY reads them from S3 — the endpoint and keys the
    /// environment names — while the same COPYs from the local files are timed beside
    /// them. `dataDirectory` stays the local cache (DuckDB reads it).
    public var s3Data: String?
    /// The Slicehouse data directory to load into; nil: a temporary one, removed afterwards.
    /// A given directory must be missing or empty, and is kept.
    public var databaseDirectory: String?
    /// The limit on what the queries' operators hold at once (`Database.memory`'s limit,
    /// set after the load); beyond it they spill. nil: no limit.
    public var memoryBytes: Int?
    /// The block cache's capacity (`Database`'s `cacheBytes`; nil: its default).
    public var cacheBytes: Int?
    /// Run every query run (the warm-up too) in a fresh process over the loaded data
    /// directory (`executable bench tpch-query`), instead of in the loading process. With
    /// `databaseDirectory` naming a directory an earlier run loaded at this scale factor,
    /// that database is used as it is and not loaded again.
    public var fromDisk = false
    /// The `slicehouse` binary that runs each query under `fromDisk`.
    public var executable: String?
    /// Under `fromDisk`: a directory an earlier `fromDisk` run loaded at a smaller scale
    /// factor (`bench tpch --scale-db`). Every query then runs there too, its runs
    /// alternating with this scale factor's (smaller, larger, smaller, ...), and the report
    /// gives each query's growth between the two from those interleaved runs.
    public var scaleDatabaseDirectory: String?
    /// `--external`: the queries read every table as a Hive-partitioned Parquet external
    /// table under `externalLocation` on the environment's S3 endpoint (written there once),
    /// and DuckDB reads the same objects through httpfs.
    public var external = false
    /// Where `--external` keeps the Parquet (nil: s3://slicehouse-bench/tpch-sfN-parquet/).
    public var externalLocation: String?
    /// Run DuckDB on the same files and report ratios.
    public var compareDuckDB = false
    /// Without `compareDuckDB`, at a scale factor without reference answers, check the
    /// answers against DuckDB's when DuckDB is installed.
    public var checkWithDuckDBWhenAvailable = true
    /// Threads DuckDB gets: Slicehouse's worker pool has one per core.
    public var threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Seconds an earlier process of the same run spent generating the data (the CLI
    /// generates, then restarts itself so that the generator's memory is not counted).
    public var previousGenerationSeconds: Double?
    /// The Python interpreter that runs DuckDB.
    public var python: String = ProcessInfo.processInfo.environment["SLICEHOUSE_PYTHON"] ?? "python3"

    public init(scaleFactor: Double, cluster: ClusterConfig? = nil, dataDirectory: String? = nil) {
        self.scaleFactor = scaleFactor
        self.cluster = cluster ?? TPCHBenchOptions.cluster(slices: TPCHBenchOptions.defaultSlices())
        self.dataDirectory = dataDirectory ?? TPCHBenchOptions.defaultDataDirectory(scaleFactor: scaleFactor)
    }

    /// Total slices as a layout, the same shorthand as `slicehouse sqllogictest --slices`:
    /// 1 → 1 node × 1 slice; an even N → N/2 nodes × 2 slices (Redshift's smaller node
    /// types have 2 slices per node); an odd N → N nodes × 1 slice.
    public static func cluster(slices: Int) -> ClusterConfig {
        if slices <= 1 { return ClusterConfig(nodes: 1, slicesPerNode: 1) }
        if slices % 2 == 0 { return ClusterConfig(nodes: slices / 2, slicesPerNode: 2) }
        return ClusterConfig(nodes: slices, slicesPerNode: 1)
    }

    /// Default total slices: at least the shell's 2 × 2, and at least one per core
    /// (rounded up to an even number) so that every core has a slice to work on.
    public static func defaultSlices(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        let perCore = max(1, cores)
        return max(4, perCore + perCore % 2)
    }

    /// "1", "10", "0.1", "0.01": the scale factor as it appears in names.
    public static func scaleName(_ scaleFactor: Double) -> String {
        if scaleFactor == scaleFactor.rounded(), abs(scaleFactor) < 1e15 {
            return String(Int64(scaleFactor))
        }
        return String(scaleFactor)
    }

    /// The bench's cache directory: ~/.slicehouse/bench.
    public static var benchRoot: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".slicehouse/bench")
    }

    /// ~/.slicehouse/bench/tpch-sfN.
    public static func defaultDataDirectory(scaleFactor: Double) -> String {
        (benchRoot as NSString).appendingPathComponent("tpch-sf\(scaleName(scaleFactor))")
    }

    /// "1,3,5", "1-5,7" or "all": query numbers in the given order, duplicates dropped.
    public static func parseQueries(_ text: String) throws -> [Int] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "all" { return Array(1...22) }
        var out: [Int] = []
        func add(_ n: Int) throws {
            guard (1...22).contains(n) else { throw BenchError.invalidOption("query \(n) does not exist: TPC-H has queries 1 to 22") }
            if !out.contains(n) { out.append(n) }
        }
        for item in trimmed.split(separator: ",", omittingEmptySubsequences: true) {
            let body = item.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: "Q", with: "")
            let bounds = body.split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, let low = Int(bounds[0]), let high = Int(bounds[1]) {
                guard low <= high else { throw BenchError.invalidOption("empty query range '\(item)'") }
                for n in low...high { try add(n) }
            } else if let n = Int(body) {
                try add(n)
            } else {
                throw BenchError.invalidOption("'\(item)' in --queries is not a query number (use e.g. 1,3,5 or 1-22)")
            }
        }
        if out.isEmpty { throw BenchError.invalidOption("--queries names no query") }
        return out
    }
}

/// Errors of the bench runner, with messages meant for the user.
public enum BenchError: Error, CustomStringConvertible, Sendable, Equatable {
    case invalidOption(String)
    case io(String)
    case duckDBUnavailable(String)
    case duckDBFailed(String)
    case load(String)

    public var description: String {
        switch self {
        case .invalidOption(let m), .io(let m), .duckDBUnavailable(let m), .duckDBFailed(let m), .load(let m):
            return m
        }
    }
}
