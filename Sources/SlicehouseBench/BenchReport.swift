// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Everything one `slicehouse bench tpch` run measured; `--output` writes it as JSON.
public struct TPCHBenchReport: Codable, Sendable {
    /// "tpch" or "tpcds".
    public var benchmark = "tpch"
    /// ISO 8601, UTC.
    public var date: String
    public var command: String
    public var environment: BenchEnvironment
    public var scaleFactor: Double
    public var slices: Int
    public var nodes: Int
    public var slicesPerNode: Int
    /// Timed runs per query (after one warm-up).
    public var runs: Int
    public var warmup = true
    /// Every run was a fresh process over the data directory (`bench tpch --from-disk`).
    public var fromDisk: Bool? = nil
    /// Every table was read as Parquet external tables under this S3 prefix (`--external`).
    public var external: String? = nil
    public var queries: [Int]
    public var dataDirectory: String
    public var generation: GenerationFigures
    /// What the answers were checked against: "answers sf0.1", "DuckDB 1.5.6" or "none".
    public var answerReference: String
    public var slicehouse: EngineFigures
    public var duckdb: EngineFigures?
    public var ratios: Ratios?
    /// Caveats about the figures, printed under the table.
    public var notes: [String] = []
    /// Queries expected to fail (`bench tpcds --allow-fail`); nil for TPC-H.
    public var allowedFailures: [Int]?
    /// Growth per query from an earlier run at a smaller scale factor (`--scale-from`).
    public var scaling: ScalingFigures?

    public init(date: String, command: String, environment: BenchEnvironment, scaleFactor: Double, slices: Int,
                nodes: Int, slicesPerNode: Int, runs: Int, queries: [Int], dataDirectory: String,
                generation: GenerationFigures, answerReference: String, slicehouse: EngineFigures,
                duckdb: EngineFigures? = nil, notes: [String] = []) {
        self.date = date; self.command = command; self.environment = environment; self.scaleFactor = scaleFactor
        self.slices = slices; self.nodes = nodes; self.slicesPerNode = slicesPerNode; self.runs = runs
        self.queries = queries; self.dataDirectory = dataDirectory; self.generation = generation
        self.answerReference = answerReference; self.slicehouse = slicehouse; self.duckdb = duckdb
        self.ratios = duckdb.map { Ratios(slicehouse: slicehouse, duckdb: $0) }
        self.notes = notes
    }

    /// Slicehouse queries whose answer failed, that raised an error or timed out.
    public var failedQueries: [Int] {
        slicehouse.queries.filter { $0.check.status == .fail || $0.check.status == .error || $0.check.status == .timeout }
            .map(\.number)
    }

    /// Failed queries that are not among the allowed failures.
    public var unexpectedFailures: [Int] {
        let allowed = Set(allowedFailures ?? [])
        return failedQueries.filter { !allowed.contains($0) }
    }

    /// Allowed failures that ran and passed: the list can shrink.
    public var unexpectedPasses: [Int] {
        let passed = Set(slicehouse.queries.filter { $0.check.status == .pass }.map(\.number))
        return (allowedFailures ?? []).filter { passed.contains($0) }
    }

    /// "TPC-H" or "TPC-DS".
    public var benchmarkName: String { benchmark == "tpcds" ? "TPC-DS" : "TPC-H" }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// The machine the figures come from.
public struct BenchEnvironment: Codable, Sendable {
    public var os: String
    public var cpu: String
    public var cores: Int
    public var memoryBytes: Int64
    /// "release" or "debug": how this binary was built.
    public var build: String

    public init(os: String, cpu: String, cores: Int, memoryBytes: Int64, build: String) {
        self.os = os; self.cpu = cpu; self.cores = cores; self.memoryBytes = memoryBytes; self.build = build
    }

    public static func current() -> BenchEnvironment {
        var cpu = "unknown"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        return BenchEnvironment(os: ProcessInfo.processInfo.operatingSystemVersionString, cpu: cpu,
                                cores: ProcessInfo.processInfo.activeProcessorCount,
                                memoryBytes: Int64(ProcessInfo.processInfo.physicalMemory), build: build)
    }
}

/// Data generation: cached, or generated in this run.
public struct GenerationFigures: Codable, Sendable {
    public var cached: Bool
    public var seconds: Double
    public var bytes: Int64
    public var rows: [String: Int64]
    public init(cached: Bool, seconds: Double, bytes: Int64, rows: [String: Int64]) {
        self.cached = cached; self.seconds = seconds; self.bytes = bytes; self.rows = rows
    }
}

/// One engine's load and queries.
public struct EngineFigures: Codable, Sendable {
    public var engine: String
    public var version: String?
    public var threads: Int
    public var load: LoadFigures
    /// Size of the loaded database on disk.
    public var sizeBytes: Int64
    /// What `QueryFigures.peakRSSBytes` measures.
    public var memoryKind: String
    /// Peak resident set size over the whole run of this engine.
    public var peakRSSBytes: Int64
    public var queries: [QueryFigures]

    public init(engine: String, version: String?, threads: Int, load: LoadFigures, sizeBytes: Int64,
                memoryKind: String, peakRSSBytes: Int64, queries: [QueryFigures]) {
        self.engine = engine; self.version = version; self.threads = threads; self.load = load
        self.sizeBytes = sizeBytes; self.memoryKind = memoryKind; self.peakRSSBytes = peakRSSBytes
        self.queries = queries
    }

    public var name: String { version.map { "\(engine) \($0)" } ?? engine }

    public func query(_ number: Int) -> QueryFigures? { queries.first { $0.number == number } }

    /// Sum of the medians of the queries that ran.
    public var totalMedianSeconds: Double { queries.compactMap(\.medianSeconds).reduce(0, +) }
    public var totalMinSeconds: Double { queries.compactMap(\.minSeconds).reduce(0, +) }
}

/// COPY times per table (plus DuckDB's checkpoint) and in total.
public struct LoadFigures: Codable, Sendable {
    public var tables: [TableLoad]
    /// Wall-clock time of the whole load.
    public var totalSeconds: Double
    public var peakRSSBytes: Int64
    public init(tables: [TableLoad], totalSeconds: Double, peakRSSBytes: Int64) {
        self.tables = tables; self.totalSeconds = totalSeconds; self.peakRSSBytes = peakRSSBytes
    }
    public func seconds(_ table: String) -> Double? { tables.first { $0.table == table }?.seconds }
}

public struct TableLoad: Codable, Sendable, Equatable {
    public var table: String
    public var seconds: Double
    public var rows: Int64?
    public init(table: String, seconds: Double, rows: Int64? = nil) {
        self.table = table; self.seconds = seconds; self.rows = rows
    }
}

/// One query on one engine.
public struct QueryFigures: Codable, Sendable {
    public var number: Int
    /// The timed runs (the warm-up excluded), in seconds.
    public var seconds: [Double]
    public var medianSeconds: Double?
    public var minSeconds: Double?
    public var rows: Int
    public var peakRSSBytes: Int64
    public var check: AnswerCheck
    /// Bytes the last run wrote to spill files (nil: none, or not measured).
    public var spilledBytes: Int64?
    /// CPU seconds (user + system, every thread) of each timed run, beside `seconds`
    /// (`--from-disk` measures them in the child; nil: not measured).
    public var cpuSeconds: [Double]?

    public init(number: Int, seconds: [Double], rows: Int, peakRSSBytes: Int64, check: AnswerCheck) {
        self.number = number; self.seconds = seconds; self.rows = rows
        self.peakRSSBytes = peakRSSBytes; self.check = check
        self.medianSeconds = Stats.median(seconds)
        self.minSeconds = seconds.min()
    }
}

/// Slicehouse ÷ DuckDB: below 1 means Slicehouse is faster (or smaller).
public struct Ratios: Codable, Sendable {
    /// Per query, median over median; keys are query numbers as text ("1"...).
    public var queries: [String: Double]
    /// Sum of Slicehouse's medians over the sum of DuckDB's, over the queries both ran.
    public var total: Double?
    public var load: Double?
    public var size: Double?

    public init(slicehouse: EngineFigures, duckdb: EngineFigures) {
        var perQuery: [String: Double] = [:]
        var sumS = 0.0, sumD = 0.0
        for q in slicehouse.queries {
            guard let s = q.medianSeconds, let d = duckdb.query(q.number)?.medianSeconds else { continue }
            sumS += s; sumD += d
            if let r = Stats.ratio(s, d) { perQuery[String(q.number)] = r }
        }
        queries = perQuery
        total = sumD > 0 && sumS > 0 ? sumS / sumD : nil
        load = Stats.ratio(slicehouse.load.totalSeconds, duckdb.load.totalSeconds)
        size = Stats.ratio(Double(slicehouse.sizeBytes), Double(duckdb.sizeBytes))
    }

    public func query(_ number: Int) -> Double? { queries[String(number)] }
}

public enum Stats {
    /// The median (mean of the middle two for an even count); nil when empty.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// a / b, nil unless both are positive and finite.
    public static func ratio(_ a: Double, _ b: Double) -> Double? {
        guard a.isFinite, b.isFinite, a > 0, b > 0 else { return nil }
        return a / b
    }
}

/// How each query's time grew from a run at a smaller scale factor to this one
/// (`bench tpch --scale-from earlier.json`): the work grows by the ratio of the scale
/// factors, so a query whose time grows more scales worse than linearly.
public struct ScalingFigures: Codable, Sendable {
    public struct Query: Codable, Sendable {
        public var number: Int
        /// Slicehouse's medians at the smaller and at this scale factor.
        public var fromSeconds: Double
        public var toSeconds: Double
        /// toSeconds ÷ fromSeconds.
        public var growth: Double?
        /// The same for DuckDB, when both reports timed it.
        public var duckdbGrowth: Double?
        /// With interleaved runs (`bench tpch --scale-db`), the lowest and highest growth of
        /// one run pair (the i-th run at each scale factor, taken one after the other).
        public var lowestPairGrowth: Double?
        public var highestPairGrowth: Double?
        /// With CPU times at both scale factors (`--from-disk`), the growth of their medians:
        /// time growing more than the CPU did means the cores were less busy at the larger
        /// scale (a slice's tail, a build on one core), not more work.
        public var cpuGrowth: Double?
    }
    public var fromScaleFactor: Double
    public var toScaleFactor: Double
    /// The command of the earlier report; with interleaved runs, where they ran.
    public var fromCommand: String
    /// The smaller scale factor's runs alternated with this report's (`--scale-db`),
    /// rather than coming from an earlier report (`--scale-from`).
    public var interleaved: Bool?
    public var queries: [Query]
    /// Growth of the sum of medians over the queries both runs timed.
    public var totalGrowth: Double?
    public var duckdbTotalGrowth: Double?

    /// The ratio of the scale factors: how much the work grew.
    public var workGrowth: Double { toScaleFactor / fromScaleFactor }

    /// The queries whose time grew more than the work did.
    public var superlinear: [Int] { queries.filter { ($0.growth ?? 0) > workGrowth }.map(\.number) }

    /// nil when `earlier` is not a run of the same benchmark at a smaller scale factor.
    public init?(from earlier: TPCHBenchReport, to later: TPCHBenchReport) {
        guard earlier.benchmark == later.benchmark, earlier.scaleFactor > 0,
              later.scaleFactor > earlier.scaleFactor else { return nil }
        fromScaleFactor = earlier.scaleFactor
        toScaleFactor = later.scaleFactor
        fromCommand = earlier.command
        var rows: [Query] = []
        var sums = (from: 0.0, to: 0.0), duckSums = (from: 0.0, to: 0.0)
        var duckComplete = earlier.duckdb != nil && later.duckdb != nil
        for n in later.queries {
            guard let a = earlier.slicehouse.query(n), a.check.status != .error, let from = a.medianSeconds,
                  let b = later.slicehouse.query(n), b.check.status != .error, let to = b.medianSeconds else { continue }
            var duckGrowth: Double?
            if let da = earlier.duckdb?.query(n)?.medianSeconds, let db = later.duckdb?.query(n)?.medianSeconds {
                duckGrowth = Stats.ratio(db, da)
                duckSums.from += da; duckSums.to += db
            } else {
                duckComplete = false
            }
            sums.from += from; sums.to += to
            rows.append(Query(number: n, fromSeconds: from, toSeconds: to, growth: Stats.ratio(to, from),
                              duckdbGrowth: duckGrowth))
        }
        guard !rows.isEmpty else { return nil }
        queries = rows
        totalGrowth = Stats.ratio(sums.to, sums.from)
        duckdbTotalGrowth = duckComplete ? Stats.ratio(duckSums.to, duckSums.from) : nil
    }

    /// From runs that alternated (`bench tpch --scale-db`): `smaller` at `fromScaleFactor`
    /// over the directory `directory`, `larger` at `toScaleFactor`, run i of one taken
    /// just before run i of the other. nil unless the scale factors grow and some query
    /// has times at both.
    public init?(interleaved smaller: [QueryFigures], at fromScaleFactor: Double, in directory: String,
                 with larger: [QueryFigures], at toScaleFactor: Double) {
        guard fromScaleFactor > 0, toScaleFactor > fromScaleFactor else { return nil }
        self.fromScaleFactor = fromScaleFactor
        self.toScaleFactor = toScaleFactor
        fromCommand = "runs alternating with these over " + directory
        interleaved = true
        var rows: [Query] = []
        var sums = (from: 0.0, to: 0.0)
        for b in larger where b.check.status != .error {
            guard let a = smaller.first(where: { $0.number == b.number }), a.check.status != .error,
                  let from = a.medianSeconds, let to = b.medianSeconds else { continue }
            let pairs = zip(a.seconds, b.seconds).compactMap { Stats.ratio($1, $0) }
            sums.from += from; sums.to += to
            var cpuGrowth: Double?
            if let ca = a.cpuSeconds.flatMap(Stats.median), let cb = b.cpuSeconds.flatMap(Stats.median) {
                cpuGrowth = Stats.ratio(cb, ca)
            }
            rows.append(Query(number: b.number, fromSeconds: from, toSeconds: to, growth: Stats.ratio(to, from),
                              duckdbGrowth: nil, lowestPairGrowth: pairs.min(), highestPairGrowth: pairs.max(),
                              cpuGrowth: cpuGrowth))
        }
        guard !rows.isEmpty else { return nil }
        queries = rows
        totalGrowth = Stats.ratio(sums.to, sums.from)
        duckdbTotalGrowth = nil
    }
}
