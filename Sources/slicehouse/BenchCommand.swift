// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseBench
import SlicehouseEngine
import SlicehouseRuntime

/// `slicehouse bench`: benchmark runners.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run benchmarks (TPC-H, TPC-DS), optionally side by side with DuckDB.",
        subcommands: [BenchTPCHCommand.self, BenchTPCDSCommand.self, BenchTPCHQueryCommand.self],
        helpNames: [.short, .long])
}

/// `slicehouse bench tpch --sf N [--queries 1,3,5] [--runs 3] [--slices S] [--data DIR] [--db DIR]
/// [--output report.json] [--compare duckdb] [--chart chart.svg]`
struct BenchTPCHCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpch",
        abstract: "TPC-H end to end: generate (cached), COPY, the 22 queries timed and checked.",
        discussion: """
            Generates the data once into --data (default ~/.slicehouse/bench/tpch-sfN) with the \
            built-in generator, creates the schema of datasets/tpch/schema.sql (DISTKEY/SORTKEY as \
            documented in benchmarks/README.md) in a fresh data directory, loads it with COPY (timed \
            per table), then runs each query once to warm up and --runs times timed, reporting median \
            and min, rows, peak memory and the answer check: against the reference answers at SF 0.01 \
            and 0.1, else against DuckDB's answers when DuckDB is installed, else "unchecked". \
            --compare duckdb runs DuckDB (Python package: pip install duckdb) on the same files with \
            the same number of threads and prints per-query ratios. Exits with status 1 when an \
            answer is wrong or a query fails.
            """)

    @Option(name: .customLong("sf"), help: ArgumentHelp("Scale factor (SF 1 is about 1 GB of text).", valueName: "N"))
    var scaleFactor: Double = 1

    @Option(name: .customLong("queries"), help: ArgumentHelp("Queries to run, in order: 1,3,5 or 1-5,7.", valueName: "list"))
    var queries: String = "1-22"

    @Option(name: .customLong("runs"), help: ArgumentHelp("Timed runs per query, after one warm-up.", valueName: "N"))
    var runs: Int = 3

    @Option(name: .customLong("slices"),
            help: ArgumentHelp("Total slices: 1 → 1 node × 1 slice; even N → N/2 nodes × 2; odd N → N nodes × 1 "
                               + "(default: one per core, at least 4).", valueName: "S"))
    var slices: Int?

    @Option(name: .customLong("nodes"), help: ArgumentHelp("Compute nodes (overrides --slices' choice).", valueName: "N"))
    var nodes: Int?

    @Option(name: .customLong("slices-per-node"),
            help: ArgumentHelp("Slices per node (overrides --slices' choice).", valueName: "N"))
    var slicesPerNode: Int?

    @Option(name: .customLong("data"),
            help: ArgumentHelp("Cache of the generated .tbl files; or an s3:// prefix Slicehouse loads them from (the "
                               + "files are put there first), timed beside the same load from local files.",
                               valueName: "dir"))
    var data: String?

    @Option(name: .customLong("db"),
            help: ArgumentHelp("Load into this (missing or empty) directory and keep it; default: a temporary one.",
                               valueName: "dir"))
    var db: String?

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write the report as JSON.", valueName: "report.json"))
    var output: String?

    @Option(name: .customLong("memory"),
            help: ArgumentHelp("Limit what the queries and the block cache hold at once (4GB, 32MB); beyond it queries spill to disk.",
                               valueName: "size"))
    var memory: String?

    @Option(name: .customLong("cache"),
            help: ArgumentHelp("The block cache's capacity (default: a quarter of RAM, at most 4 GB).", valueName: "size"))
    var cache: String?

    @Flag(name: .customLong("from-disk"),
          help: ArgumentHelp("Run every query run in a fresh process over the loaded data directory; with --db naming "
                             + "a directory an earlier run loaded, use it without loading again."))
    var fromDisk = false

    @Option(name: .customLong("scale-from"),
            help: ArgumentHelp("A report (--output) of a run at a smaller scale factor: print how each query's time grew.",
                               valueName: "report.json"))
    var scaleFrom: String?

    @Option(name: .customLong("scale-db"),
            help: ArgumentHelp("With --from-disk: a --db directory an earlier --from-disk run loaded at a smaller scale "
                               + "factor. Each query's runs alternate between it and this run's database, and the "
                               + "report gives each query's growth from those runs.", valueName: "dir"))
    var scaleDB: String?

    @Option(name: .customLong("compare"), help: ArgumentHelp("Run another engine side by side: duckdb.", valueName: "engine"))
    var compare: String?

    @Flag(name: .customLong("external"),
          help: ArgumentHelp("Query the eight tables as Hive-partitioned Parquet external tables on the S3 endpoint of "
                             + "AWS_ENDPOINT_URL (written there once; lineitem and orders partitioned by month); "
                             + "DuckDB reads the same objects through httpfs."))
    var external = false

    @Option(name: .customLong("external-location"),
            help: ArgumentHelp("Where --external keeps the Parquet (default s3://slicehouse-bench/tpch-sfN-parquet/).",
                               valueName: "s3://bucket/prefix/"))
    var externalLocation: String?

    @Option(name: .customLong("chart"),
            help: ArgumentHelp("Write an SVG chart of the per-query times (with --compare, default "
                               + "~/.slicehouse/bench/tpch-sfN.svg).", valueName: "chart.svg"))
    var chart: String?

    @Option(name: .customLong("chart-scale"), help: ArgumentHelp("Chart axis: auto, log or linear.", valueName: "scale"))
    var chartScale: String = "auto"

    func validate() throws {
        if runs < 1 || runs > 1000 { throw ValidationError("--runs must be between 1 and 1000") }
        if let slices, slices < 1 || slices > 1024 { throw ValidationError("--slices must be between 1 and 1024") }
        if let nodes, nodes < 1 || nodes > 128 { throw ValidationError("--nodes must be between 1 and 128") }
        if let slicesPerNode, slicesPerNode < 1 || slicesPerNode > 64 {
            throw ValidationError("--slices-per-node must be between 1 and 64")
        }
        if let compare, compare.lowercased() != "duckdb" {
            throw ValidationError("--compare supports duckdb only")
        }
        if scaleFrom != nil && scaleDB != nil {
            throw ValidationError("--scale-from and --scale-db are two ways to the same table: give one")
        }
        if SVGChart.Scale(rawValue: chartScale.lowercased()) == nil {
            throw ValidationError("--chart-scale must be auto, log or linear")
        }
        do {
            _ = try TPCHBenchOptions.parseQueries(queries)
            try TPCHBenchmark(options: options()).validate()
        } catch let e as BenchError {
            throw ValidationError(e.description)
        }
    }

    func options() throws -> TPCHBenchOptions {
        var cluster = TPCHBenchOptions.cluster(slices: slices ?? TPCHBenchOptions.defaultSlices())
        if let nodes { cluster.nodes = nodes }
        if let slicesPerNode { cluster.slicesPerNode = slicesPerNode }
        let s3 = data.map { $0.lowercased().hasPrefix("s3://") } ?? false
        var o = TPCHBenchOptions(scaleFactor: scaleFactor, cluster: cluster, dataDirectory: s3 ? nil : data.map(Self.expand))
        if s3 { o.s3Data = data.map { $0.hasSuffix("/") ? $0 : $0 + "/" } }
        o.queries = try TPCHBenchOptions.parseQueries(queries)
        o.runs = runs
        o.databaseDirectory = db.map(Self.expand)
        o.compareDuckDB = compare != nil
        if let memory {
            guard let bytes = MemoryPool.parseSize(memory), bytes > 0 else {
                throw BenchError.invalidOption("--memory: not a size: \(memory) (for example 4GB or 32MB)")
            }
            o.memoryBytes = bytes
        }
        if let cache {
            guard let bytes = MemoryPool.parseSize(cache), bytes > 0 else {
                throw BenchError.invalidOption("--cache: not a size: \(cache) (for example 256MB or 4GB)")
            }
            o.cacheBytes = bytes
        }
        o.fromDisk = fromDisk
        o.external = external
        o.externalLocation = externalLocation.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        o.scaleDatabaseDirectory = scaleDB.map(Self.expand)
        o.executable = Bundle.main.executablePath
        return o
    }

    /// The earlier report of `--scale-from`.
    func earlierReport() throws -> TPCHBenchReport? {
        guard let scaleFrom else { return nil }
        let path = Self.expand(scaleFrom)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError.invalidOption("--scale-from: cannot read \(path)")
        }
        let report: TPCHBenchReport
        do {
            report = try JSONDecoder().decode(TPCHBenchReport.self, from: data)
        } catch {
            throw BenchError.invalidOption("--scale-from: \(path) is not a bench report: \(error)")
        }
        guard report.benchmark == "tpch", report.scaleFactor < scaleFactor else {
            throw BenchError.invalidOption("--scale-from: \(path) must be a TPC-H report at a scale factor below \(TPCHBenchOptions.scaleName(scaleFactor))"
                                           + " (it is \(report.benchmarkName) SF \(TPCHBenchOptions.scaleName(report.scaleFactor)))")
        }
        return report
    }

    func run() throws {
        var options: TPCHBenchOptions
        // Before any work (generating data takes minutes): the texts the bench reads.
        do { options = try self.options(); _ = try BenchResources.require() } catch let e as BenchError {
            printError("slicehouse bench: \(e.description)")
            throw ExitCode.failure
        }
        let progress = DatagenProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let events: (BenchEvent) -> Void = { event in
            switch event {
            case .step(let text):
                progress.clear()
                printError(text)
            case .progress(let text):
                progress.message(text)
            case .datagen(let update):
                progress.show(update)
            }
        }
        var report: TPCHBenchReport
        var generatedHere: Double?
        let earlier: TPCHBenchReport?
        do { earlier = try earlierReport() } catch let e as BenchError {
            printError("slicehouse bench: \(e.description)")
            throw ExitCode.failure
        }
        do {
            let env = ProcessInfo.processInfo.environment
            if let previous = env[Self.restartVariable].flatMap(Double.init) {
                // The restarted process: the data was generated by the one before.
                options.previousGenerationSeconds = previous
                unsetenv(Self.restartVariable)
            } else {
                // Find DuckDB (if asked for) before generating anything, then generate the data
                // here and restart, so that the generator's 300 MB text pool is not in the
                // memory figures.
                let bench = TPCHBenchmark(options: options)
                _ = try bench.preflight()
                let generation = try bench.prepareData(events: events)
                progress.clear()
                if !generation.cached {
                    Self.restart(generatedSeconds: generation.seconds)
                    generatedHere = generation.seconds  // the restart failed: go on in this process
                    options.previousGenerationSeconds = generation.seconds
                }
            }
            report = try TPCHBenchmark(options: options).run(command: Self.commandLine(), events: events)
        } catch let e as BenchError {
            progress.clear()
            printError("slicehouse bench: \(e.description)")
            throw ExitCode.failure
        }
        progress.clear()
        if let earlier { report.scaling = ScalingFigures(from: earlier, to: report) }
        if generatedHere != nil {
            report.notes.append("the data was generated in this process: Slicehouse's memory figures include the "
                                + "generator's 300 MB text pool (run again for clean figures)")
        }
        print(ReportText.render(report))

        if let output {
            let path = Self.expand(output)
            do {
                try report.json().write(to: URL(fileURLWithPath: path), options: .atomic)
                print("report: \(path)")
            } catch {
                printError("slicehouse bench: could not write \(path): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        let chartPath = chart.map(Self.expand) ?? (options.compareDuckDB
            ? (TPCHBenchOptions.benchRoot as NSString).appendingPathComponent("tpch-sf\(TPCHBenchOptions.scaleName(scaleFactor)).svg")
            : nil)
        if let chartPath {
            let scale = SVGChart.Scale(rawValue: chartScale.lowercased()) ?? .auto
            do {
                let dir = (chartPath as NSString).deletingLastPathComponent
                if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
                try Data(SVGChart.render(report, scale: scale).utf8).write(to: URL(fileURLWithPath: chartPath), options: .atomic)
                print("chart: \(chartPath)")
            } catch {
                printError("slicehouse bench: could not write \(chartPath): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        if !report.failedQueries.isEmpty {
            throw ExitCode(1)
        }
    }

    static let restartVariable = "SLICEHOUSE_BENCH_GENERATED_SECONDS"

    /// Replace this process by a fresh run of the same command (the data is cached now);
    /// returns only if that fails.
    static func restart(generatedSeconds: Double) {
        guard let executable = Bundle.main.executablePath else { return }
        setenv(restartVariable, String(generatedSeconds), 1)
        fflush(nil)
        var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) }
        argv.append(nil)
        execv(executable, argv)
        // Still here: exec failed.
        for p in argv { free(p) }
        unsetenv(restartVariable)
    }

    /// `~/x` → $HOME/x.
    static func expand(_ path: String) -> String { (path as NSString).expandingTildeInPath }

    static func commandLine() -> String {
        var args = CommandLine.arguments
        if let first = args.first { args[0] = (first as NSString).lastPathComponent }
        return args.joined(separator: " ")
    }
}

/// `slicehouse bench tpch-query --db DIR --query N [--memory BYTES] [--cache BYTES]`: the
/// process `bench tpch --from-disk` starts for each run of a query. Opens the data
/// directory, runs the query once and prints one line of JSON (`FreshProcessRun`).
struct BenchTPCHQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpch-query",
        abstract: "Run one TPC-H query once over a loaded data directory and print the run as JSON (for --from-disk).",
        shouldDisplay: false)

    @Option(name: .customLong("db"), help: ArgumentHelp("The loaded data directory.", valueName: "dir"))
    var db: String

    @Option(name: .customLong("query"), help: ArgumentHelp("The query number, 1 to 22.", valueName: "N"))
    var query: Int

    @Option(name: .customLong("memory"), help: ArgumentHelp("Memory limit (a size).", valueName: "size"))
    var memory: String?

    @Option(name: .customLong("cache"), help: ArgumentHelp("Block cache capacity (a size).", valueName: "size"))
    var cache: String?

    func run() throws {
        func size(_ text: String?, _ name: String) throws -> Int? {
            guard let text else { return nil }
            guard let bytes = MemoryPool.parseSize(text), bytes > 0 else {
                print(FreshProcessRun.failed("--\(name): not a size: \(text)").jsonLine())
                throw ExitCode.failure
            }
            return bytes
        }
        let run = FreshProcessRun.run(query: query, directory: BenchTPCHCommand.expand(db),
                                      memoryBytes: try size(memory, "memory"), cacheBytes: try size(cache, "cache"))
        print(run.jsonLine())
        if run.error != nil { throw ExitCode.failure }
    }
}

/// `slicehouse bench tpcds --sf N [--queries 1-99] [--runs 3] [--timeout 120] [--allow-fail 10,35]
/// [--slices S] [--data DIR] [--db DIR] [--output report.json] [--compare duckdb] [--chart chart.svg]`
struct BenchTPCDSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpcds",
        abstract: "TPC-DS end to end: generate (cached), COPY, the 99 queries timed and checked against DuckDB.",
        discussion: """
            Generates the data once into --data (default ~/.slicehouse/bench/tpcds-sfN) as Parquet \
            with DuckDB's tpcds extension (pip install duckdb duckdb-extension-tpcds; \
            scripts/setup-system.sh installs both), creates the schema of benchmarks/tpcds/schema.sql \
            in a fresh data directory, loads it with COPY ... FORMAT AS PARQUET (timed per table), then \
            runs each query once to warm up and --runs times timed, each under a statement_timeout of \
            --timeout seconds. Every answer is checked against DuckDB's on the same files (numbers \
            within a small tolerance, rows in the order the ORDER BY determines, ties at a LIMIT \
            accepted). --compare duckdb also times DuckDB (same threads, warm-up and runs) and prints \
            per-query ratios and an SVG chart. Exits with status 1 when a query not named by \
            --allow-fail gives a wrong answer, an error or times out.
            """)

    @Option(name: .customLong("sf"), help: ArgumentHelp("Scale factor (SF 1 is about 1 GB of data; at least 0.01).", valueName: "N"))
    var scaleFactor: Double = 1

    @Option(name: .customLong("queries"), help: ArgumentHelp("Queries to run, in order: 1,3,5 or 1-10,42.", valueName: "list"))
    var queries: String = "1-99"

    @Option(name: .customLong("runs"), help: ArgumentHelp("Timed runs per query, after one warm-up.", valueName: "N"))
    var runs: Int = 3

    @Option(name: .customLong("timeout"),
            help: ArgumentHelp("statement_timeout of each Slicehouse query in seconds (0: none).", valueName: "seconds"))
    var timeout: Double = 120

    @Option(name: .customLong("allow-fail"),
            help: ArgumentHelp("Queries expected to fail (wrong answer, error or timeout): reported, not counted.",
                               valueName: "list"))
    var allowFail: String = ""

    @Option(name: .customLong("slices"),
            help: ArgumentHelp("Total slices: 1 → 1 node × 1 slice; even N → N/2 nodes × 2; odd N → N nodes × 1 "
                               + "(default: one per core, at least 4).", valueName: "S"))
    var slices: Int?

    @Option(name: .customLong("nodes"), help: ArgumentHelp("Compute nodes (overrides --slices' choice).", valueName: "N"))
    var nodes: Int?

    @Option(name: .customLong("slices-per-node"),
            help: ArgumentHelp("Slices per node (overrides --slices' choice).", valueName: "N"))
    var slicesPerNode: Int?

    @Option(name: .customLong("data"), help: ArgumentHelp("Cache of the generated Parquet files.", valueName: "dir"))
    var data: String?

    @Option(name: .customLong("db"),
            help: ArgumentHelp("Load into this (missing or empty) directory and keep it; default: a temporary one.",
                               valueName: "dir"))
    var db: String?

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write the report as JSON.", valueName: "report.json"))
    var output: String?

    @Option(name: .customLong("compare"), help: ArgumentHelp("Time another engine side by side: duckdb.", valueName: "engine"))
    var compare: String?

    @Option(name: .customLong("chart"),
            help: ArgumentHelp("Write an SVG chart of the per-query times (with --compare, default "
                               + "~/.slicehouse/bench/tpcds-sfN.svg).", valueName: "chart.svg"))
    var chart: String?

    @Option(name: .customLong("chart-scale"), help: ArgumentHelp("Chart axis: auto, log or linear.", valueName: "scale"))
    var chartScale: String = "auto"

    func validate() throws {
        if let slices, slices < 1 || slices > 1024 { throw ValidationError("--slices must be between 1 and 1024") }
        if let nodes, nodes < 1 || nodes > 128 { throw ValidationError("--nodes must be between 1 and 128") }
        if let slicesPerNode, slicesPerNode < 1 || slicesPerNode > 64 {
            throw ValidationError("--slices-per-node must be between 1 and 64")
        }
        if let compare, compare.lowercased() != "duckdb" {
            throw ValidationError("--compare supports duckdb only")
        }
        if SVGChart.Scale(rawValue: chartScale.lowercased()) == nil {
            throw ValidationError("--chart-scale must be auto, log or linear")
        }
        do {
            try TPCDSBenchmark(options: options()).validate()
        } catch let e as BenchError {
            throw ValidationError(e.description)
        }
    }

    func options() throws -> TPCDSBenchOptions {
        var cluster = TPCHBenchOptions.cluster(slices: slices ?? TPCHBenchOptions.defaultSlices())
        if let nodes { cluster.nodes = nodes }
        if let slicesPerNode { cluster.slicesPerNode = slicesPerNode }
        var o = TPCDSBenchOptions(scaleFactor: scaleFactor, cluster: cluster, dataDirectory: data.map(BenchTPCHCommand.expand))
        o.queries = try TPCDSBenchOptions.parseQueries(queries)
        o.allowedFailures = Set(try TPCDSBenchOptions.parseNumbers(allowFail, what: "--allow-fail", allowEmpty: true))
        o.runs = runs
        o.timeoutSeconds = timeout
        o.databaseDirectory = db.map(BenchTPCHCommand.expand)
        o.compareDuckDB = compare != nil
        return o
    }

    func run() throws {
        let options: TPCDSBenchOptions
        // Before any work (generating data takes minutes): the texts the bench reads.
        do { options = try self.options(); _ = try BenchResources.require() } catch let e as BenchError {
            printError("slicehouse bench: \(e.description)")
            throw ExitCode.failure
        }
        let progress = DatagenProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let events: (BenchEvent) -> Void = { event in
            switch event {
            case .step(let text):
                progress.clear()
                printError(text)
            case .progress(let text):
                progress.message(text)
            case .datagen(let update):
                progress.show(update)
            }
        }
        let report: TPCHBenchReport
        do {
            report = try TPCDSBenchmark(options: options).run(command: BenchTPCHCommand.commandLine(), events: events)
        } catch let e as BenchError {
            progress.clear()
            printError("slicehouse bench: \(e.description)")
            throw ExitCode.failure
        }
        progress.clear()
        print(ReportText.render(report))

        if let output {
            let path = BenchTPCHCommand.expand(output)
            do {
                try report.json().write(to: URL(fileURLWithPath: path), options: .atomic)
                print("report: \(path)")
            } catch {
                printError("slicehouse bench: could not write \(path): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        let chartPath = chart.map(BenchTPCHCommand.expand) ?? (options.compareDuckDB
            ? (TPCHBenchOptions.benchRoot as NSString).appendingPathComponent("tpcds-sf\(TPCHBenchOptions.scaleName(scaleFactor)).svg")
            : nil)
        if let chartPath {
            let scale = SVGChart.Scale(rawValue: chartScale.lowercased()) ?? .auto
            do {
                let dir = (chartPath as NSString).deletingLastPathComponent
                if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
                try Data(SVGChart.render(report, scale: scale).utf8).write(to: URL(fileURLWithPath: chartPath), options: .atomic)
                print("chart: \(chartPath)")
            } catch {
                printError("slicehouse bench: could not write \(chartPath): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        if !report.unexpectedFailures.isEmpty {
            throw ExitCode(1)
        }
    }
}
