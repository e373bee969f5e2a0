// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseDatagen
import SlicehouseEngine
import SlicehouseAWS
import SlicehouseTypes

/// What the runner reports while it works (the CLI shows steps as lines and progress
/// on one redrawn line).
public enum BenchEvent: Sendable {
    /// A stage begins ("loading into Slicehouse").
    case step(String)
    /// Transient progress ("Q05 run 2 of 3").
    case progress(String)
    /// The data generator's progress.
    case datagen(DatagenProgress)
}

/// `slicehouse bench tpch`: data (cached), schema, COPY, the queries with a warm-up and
/// timed runs, answer checks, and optionally the same on DuckDB.
public struct TPCHBenchmark: Sendable {
    public var options: TPCHBenchOptions

    public init(options: TPCHBenchOptions) { self.options = options }

    public func validate() throws {
        guard options.runs >= 1 && options.runs <= 1000 else {
            throw BenchError.invalidOption("--runs must be between 1 and 1000")
        }
        guard !options.queries.isEmpty, options.queries.allSatisfy({ (1...22).contains($0) }) else {
            throw BenchError.invalidOption("--queries must name queries between 1 and 22")
        }
        do {
            try TPCHGenerator(scaleFactor: options.scaleFactor).validate()
        } catch let e as DatagenError {
            throw BenchError.invalidOption(e.description)
        }
        let c = options.cluster
        guard c.nodes >= 1, c.slicesPerNode >= 1, c.sliceCount <= 1024 else {
            throw BenchError.invalidOption("the cluster needs at least 1 node and 1 slice per node, at most 1024 slices")
        }
        if let db = options.databaseDirectory {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: db, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else { throw BenchError.invalidOption("--db \(db) is a file, not a directory") }
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: db)) ?? []
                guard entries.isEmpty || reusableDatabase != nil else {
                    throw BenchError.invalidOption("--db \(db) is not empty: the bench loads into a fresh directory (remove it or choose another; "
                                                   + "with --from-disk, a directory an earlier run loaded at this scale factor is used as it is)")
                }
            }
        }
        if options.external && (options.fromDisk || options.s3Data != nil) {
            throw BenchError.invalidOption("--external runs in one process from local .tbl files: not with --from-disk or --data s3://")
        }
        if options.fromDisk && options.executable == nil {
            throw BenchError.invalidOption("--from-disk needs the slicehouse binary to start each query's process")
        }
        if options.scaleDatabaseDirectory != nil { _ = try smallerDatabase() }
    }

    /// The marker of `--scale-db`'s directory: a database an earlier `--from-disk` run
    /// loaded at a smaller scale factor than this run's.
    func smallerDatabase() throws -> LoadedDatabaseMarker? {
        guard let directory = options.scaleDatabaseDirectory else { return nil }
        guard options.fromDisk else {
            throw BenchError.invalidOption("--scale-db needs --from-disk (its runs alternate with this run's fresh processes)")
        }
        guard let marker = LoadedDatabaseMarker.read(directory: directory) else {
            throw BenchError.invalidOption("--scale-db \(directory) holds no database a bench run loaded "
                                           + "(load one with bench tpch --from-disk --db \(directory) --sf N)")
        }
        guard marker.scaleFactor < options.scaleFactor else {
            throw BenchError.invalidOption("--scale-db \(directory) was loaded at SF \(TPCHBenchOptions.scaleName(marker.scaleFactor)): "
                                           + "it must be a scale factor below \(TPCHBenchOptions.scaleName(options.scaleFactor))")
        }
        return marker
    }

    /// Under `fromDisk`, the marker of a `--db` directory an earlier run loaded at this
    /// scale factor: its database is used as it is.
    var reusableDatabase: LoadedDatabaseMarker? {
        guard options.fromDisk, let db = options.databaseDirectory else { return nil }
        return LoadedDatabaseMarker.read(directory: db, scaleFactor: options.scaleFactor)
    }

    /// Checks the options and finds DuckDB: the version to use (nil: none), or an error
    /// when `--compare duckdb` was asked for and DuckDB cannot run. Cheap; `run` calls it too.
    public func preflight() throws -> String? {
        try validate()
        let duck = DuckDBRunner(python: options.python)
        if options.compareDuckDB {
            switch duck.probe() {
            case .success(let v): return v
            case .failure(let e): throw e
            }
        }
        if TPCHText.answerScale(for: options.scaleFactor) == nil && options.checkWithDuckDBWhenAvailable,
           case .success(let v) = duck.probe() {
            return v
        }
        return nil
    }

    /// Generates the data unless the cache has it.
    public func prepareData(events: (BenchEvent) -> Void = { _ in }) throws -> GenerationFigures {
        try withoutActuallyEscaping(events) { events in
            try TPCHDataCache.prepare(
                scaleFactor: options.scaleFactor, directory: options.dataDirectory,
                beforeGenerating: { events(.step("generating TPC-H SF \(TPCHBenchOptions.scaleName(options.scaleFactor)) into \(options.dataDirectory)")) },
                progress: { events(.datagen($0)) })
        }
    }

    /// Runs everything and returns the report (it is also what `--output` writes).
    public func run(command: String = CommandLine.arguments.joined(separator: " "),
                    events: (BenchEvent) -> Void = { _ in }) throws -> TPCHBenchReport {
        _ = try BenchResources.require()
        // DuckDB first, so that a missing package is reported before any work.
        let duckVersion = try preflight()
        let duck = DuckDBRunner(python: options.python)
        let answerScale = TPCHText.answerScale(for: options.scaleFactor)

        var generation = try prepareData(events: events)
        var notes: [String] = []
        if !generation.cached {
            notes.append("the data was generated in this process: Slicehouse's memory figures include the generator's "
                         + "300 MB text pool (run again for clean figures)")
        } else if let previous = options.previousGenerationSeconds {
            generation.cached = false
            generation.seconds = previous
        }

        if let s3 = options.s3Data { try uploadToS3(s3, events: events) }
        // Both engines load from the page cache: DuckDB reads the files after
        // Slicehouse, so the files are read once here, before either timed load.
        warmPageCache(events: events)
        var slicehouse: EngineFigures, results: [Int: ResultText], runNotes: [String]
        var scaling: ScalingFigures?
        if options.external {
            (slicehouse, results, runNotes) = try runExternal(events: events)
        } else if options.fromDisk {
            (slicehouse, results, runNotes, scaling) = try runFromDisk(events: events)
        } else {
            (slicehouse, results, runNotes) = try runSlicehouse(events: events)
        }
        notes += runNotes
        if let s3 = options.s3Data {
            // The same COPYs from the local files, in this run, for the ratio.
            let scratch = Self.temporaryDirectory("local-load")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let local = try loadSlicehouse(into: scratch, events: events).1
            let fromS3 = slicehouse.load.totalSeconds
            notes.append(String(format: "Slicehouse loaded from %@ in %.2f s; the same COPYs from the local files took %.2f s (%.2f×)",
                                s3, fromS3, local.totalSeconds, local.totalSeconds > 0 ? fromS3 / local.totalSeconds : 0))
        }

        // Answers: the reference files, else DuckDB's results.
        var duckFigures: EngineFigures?
        var reference = "none"
        if let answerScale {
            reference = "reference answers \(answerScale)"
            for i in slicehouse.queries.indices where slicehouse.queries[i].check.status != .error {
                let n = slicehouse.queries[i].number
                guard let got = results[n] else { continue }
                slicehouse.queries[i].check = Self.checkAgainstReference(got, scale: answerScale, query: n)
            }
        }
        if let duckVersion, options.compareDuckDB || answerScale == nil {
            let timed = options.compareDuckDB
            events(.step(timed ? "loading and running the queries on DuckDB \(duckVersion) (\(options.threads) threads)"
                               : "computing DuckDB \(duckVersion)'s answers to check against"))
            let work = Self.temporaryDirectory("duckdb")
            defer { try? FileManager.default.removeItem(atPath: work) }
            let output = try duck.run(dataDirectory: options.dataDirectory, workDirectory: work, threads: options.threads,
                                      runs: timed ? options.runs : 0, warmup: timed,
                                      external: options.external ? try duckDBExternal() : nil,
                                      queries: options.queries.compactMap { n in TPCHText.query(n).map { (n, $0) } })
            var figures = Self.figures(output)
            if answerScale == nil {
                reference = "DuckDB \(output.version)"
                for i in slicehouse.queries.indices where slicehouse.queries[i].check.status != .error {
                    let n = slicehouse.queries[i].number
                    guard let got = results[n], let want = output.queries.first(where: { $0.number == n }) else { continue }
                    if let error = want.error {
                        slicehouse.queries[i].check = AnswerCheck(status: .unchecked, reference: reference,
                                                                  detail: "DuckDB failed: \(error)")
                    } else {
                        slicehouse.queries[i].check = AnswerChecker.compare(
                            got, with: ResultText(columns: want.columns, rows: want.result), reference: reference)
                    }
                }
            } else if let answerScale {
                for i in figures.queries.indices where figures.queries[i].check.status != .error {
                    let n = figures.queries[i].number
                    guard let q = output.queries.first(where: { $0.number == n }) else { continue }
                    figures.queries[i].check = Self.checkAgainstReference(
                        ResultText(columns: q.columns, rows: q.result), scale: answerScale, query: n)
                }
            }
            if timed { duckFigures = figures }
        }

        let c = reusableCluster ?? options.cluster
        var report = TPCHBenchReport(
            date: ISO8601DateFormatter().string(from: Date()), command: command, environment: .current(),
            scaleFactor: options.scaleFactor, slices: c.sliceCount, nodes: c.nodes, slicesPerNode: c.slicesPerNode,
            runs: options.runs, queries: options.queries, dataDirectory: options.dataDirectory,
            generation: generation, answerReference: reference, slicehouse: slicehouse, duckdb: duckFigures,
            notes: notes)
        report.fromDisk = options.fromDisk
        report.external = options.external ? externalLocation : nil
        report.scaling = scaling
        return report
    }

    /// Put the .tbl files under the `s3://` prefix `s3`, each cut at line ends into objects
    /// of about 16 MB (`lineitem.tbl.000`, `lineitem.tbl.001`, …: split, as Redshift's
    /// guide asks of load files, so that the objects load in parallel), through the
    /// endpoint and keys the environment names. A table whose upload finished before (its
    /// marker object `_uploaded/<table>-<size>` is there) is left as it is.
    func uploadToS3(_ s3: String, events: (BenchEvent) -> Void) throws {
        guard let prefix = S3Location(s3) else { throw BenchError.invalidOption("--data: not an s3:// prefix: \(s3)") }
        let client = try Self.ambientS3Client(what: "--data \(s3)")
        let present: Set<String>
        do {
            present = Set(try client.list(prefix.sibling(prefix.key + "_uploaded/")).map(\.key))
        } catch let e as S3Error {
            throw BenchError.io("--data \(s3): \(e)")
        }
        let objectBytes = 16 << 20
        for table in TPCHText.tables {
            let path = (options.dataDirectory as NSString).appendingPathComponent("\(table).tbl")
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let marker = prefix.key + "_uploaded/\(table)-\(size)"
            if present.contains(marker) { continue }
            events(.progress("putting \(table).tbl under \(s3)"))
            guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchError.io("cannot read \(path)") }
            defer { try? handle.close() }
            do {
                var pending: [UInt8] = []
                var part = 0
                func put(_ bytes: ArraySlice<UInt8>) throws {
                    try client.put(prefix.sibling(prefix.key + "\(table).tbl." + String(format: "%03d", part)), body: Array(bytes))
                    part += 1
                }
                while let data = try handle.read(upToCount: 8 << 20), !data.isEmpty {
                    pending.append(contentsOf: data)
                    while pending.count >= objectBytes,
                          let end = pending[objectBytes...].firstIndex(of: 10) ?? (pending.count > 4 * objectBytes ? pending.count - 1 : nil) {
                        try put(pending[...end])
                        pending.removeFirst(end + 1)
                    }
                }
                if !pending.isEmpty || part == 0 { try put(pending[...]) }
                try client.put(prefix.sibling(marker), body: [])
            } catch let e as S3Error {
                throw BenchError.io("putting \(path) under \(s3) failed: \(e)")
            }
        }
    }

    /// The layout of a reused `--db` (the database keeps the one it was created with).
    private var reusableCluster: ClusterConfig? {
        reusableDatabase.map { ClusterConfig(nodes: $0.nodes, slicesPerNode: $0.slicesPerNode) }
    }

    /// Read every data file once (1 MB at a time) so that no engine's load pays for
    /// reading it from disk.
    func warmPageCache(events: (BenchEvent) -> Void) {
        events(.progress("reading the data files into the page cache"))
        var buffer = [UInt8](filled: 0, count: 1 << 20)
        for table in TPCHText.tables {
            let path = (options.dataDirectory as NSString).appendingPathComponent("\(table).tbl")
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            let fd = handle.fileDescriptor
            buffer.withUnsafeMutableBytes { b in
                while read(fd, b.baseAddress, b.count) > 0 {}
            }
            try? handle.close()
        }
    }

    // MARK: Slicehouse

    /// Load into a fresh data directory and run the queries; the database is closed on return.
    func runSlicehouse(events: (BenchEvent) -> Void) throws -> (EngineFigures, [Int: ResultText], [String]) {
        var notes: [String] = []
        let fm = FileManager.default
        let directory = options.databaseDirectory ?? Self.temporaryDirectory("db")
        let temporary = options.databaseDirectory == nil
        defer { if temporary { try? fm.removeItem(atPath: directory) } }

        let resetWorks = MemoryProbe.resetPeak()
        let (db, load) = try loadSlicehouse(into: directory, s3Source: options.s3Data, events: events)
        let session = db.connect()
        let size = Self.diskUsage(directory)
        // Every query runs several times: from the result cache the runs after the first
        // would not run at all.
        _ = try session.execute("SET enable_result_cache_for_session TO off")
        try recordLoad(in: directory, load: load, size: size)
        if let limit = options.memoryBytes {
            db.memory.limit = limit
            notes.append(String(format: "queries ran with --memory %.2f MB: operators beyond it spill to disk",
                                Double(limit) / 1_048_576))
        }
        let (figures, results) = runQueries(session, load: load, size: size, resetWorks: resetWorks, notes: &notes, events: events)
        return (figures, results, notes)
    }

    /// Run the queries (a warm-up, then the timed runs) in `session`.
    func runQueries(_ session: Session, load: LoadFigures, size: Int64, resetWorks: Bool, notes: inout [String],
                    events: (BenchEvent) -> Void) -> (EngineFigures, [Int: ResultText]) {
        var queries: [QueryFigures] = []
        var results: [Int: ResultText] = [:]
        var peak = load.peakRSSBytes
        for n in options.queries {
            guard let sql = TPCHText.query(n) else { continue }
            MemoryProbe.resetPeak()
            var times: [Double] = []
            var last: StatementResult?
            do {
                for run in 0...options.runs {
                    events(.progress(String(format: "Q%02d ", n) + (run == 0 ? "warm-up" : "run \(run) of \(options.runs)")))
                    let start = ContinuousClock.now
                    let r = try session.execute(sql)
                    let elapsed = TPCHDataCache.elapsedSeconds(since: start)
                    if run > 0 { times.append(elapsed) }
                    last = r.last
                }
            } catch {
                let queryPeak = MemoryProbe.peakBytes()
                peak = max(peak, queryPeak)
                queries.append(QueryFigures(number: n, seconds: times, rows: 0, peakRSSBytes: queryPeak,
                                            check: .error(Self.message(error))))
                continue
            }
            let queryPeak = MemoryProbe.peakBytes()
            peak = max(peak, queryPeak)
            guard let last else {
                queries.append(QueryFigures(number: n, seconds: times, rows: 0, peakRSSBytes: queryPeak,
                                            check: .error("the query returned no result")))
                continue
            }
            results[n] = ResultText(columns: last.columns.map(\.name), types: last.columns.map(\.type), rows: last.textRows())
            var figures = QueryFigures(number: n, seconds: times, rows: last.rowCount, peakRSSBytes: queryPeak,
                                       check: .unchecked)
            if session.lastSpilledBytes > 0 {
                figures.spilledBytes = Int64(session.lastSpilledBytes)
                notes.append(String(format: "Q%02d spilled %.1f MB", n, Double(session.lastSpilledBytes) / 1_048_576))
            }
            queries.append(figures)
        }
        let figures = EngineFigures(engine: "Slicehouse", version: nil, threads: options.threads, load: load,
                                    sizeBytes: size, memoryKind: MemoryProbe.kind(resetWorks: resetWorks),
                                    peakRSSBytes: peak, queries: queries)
        return (figures, results)
    }


    /// Create a database in `directory` with the schema and COPY every table into it (from
    /// `s3Source` when given, else the local files). The caller closes the database by
    /// letting go of it.
    func loadSlicehouse(into directory: String, s3Source: String? = nil,
                        events: (BenchEvent) -> Void) throws -> (Database, LoadFigures) {
        events(.step("loading into Slicehouse (\(options.cluster.sliceCount) slices) in \(directory)"))
        let db: Database
        do {
            db = try Database(directory: directory, cluster: options.cluster, cacheBytes: options.cacheBytes)
        } catch {
            throw BenchError.io("could not create the database in \(directory): \(Self.message(error))")
        }
        let session = db.connect()
        let loadStart = ContinuousClock.now
        var loads: [TableLoad] = []
        do {
            for ddl in TPCHText.schemaStatements { _ = try session.execute(ddl) }
        } catch {
            throw BenchError.load("creating the schema failed: \(Self.message(error))")
        }
        for table in TPCHText.tables {
            let path = s3Source.map { "\($0)\(table).tbl." }
                ?? (options.dataDirectory as NSString).appendingPathComponent("\(table).tbl")
            events(.progress("COPY \(table)"))
            let start = ContinuousClock.now
            let result: [StatementResult]
            do {
                result = try session.execute("COPY \(table) FROM '\(path.replacingOccurrences(of: "'", with: "''"))' DELIMITER '|'")
            } catch {
                throw BenchError.load("COPY \(table) from \(path) failed: \(Self.message(error))")
            }
            let seconds = TPCHDataCache.elapsedSeconds(since: start)
            let rows = result.last.flatMap { Int64($0.tag.split(separator: " ").last ?? "") }
            loads.append(TableLoad(table: table, seconds: seconds, rows: rows))
        }
        let load = LoadFigures(tables: loads, totalSeconds: TPCHDataCache.elapsedSeconds(since: loadStart),
                               peakRSSBytes: MemoryProbe.peakBytes())
        return (db, load)
    }

    /// A kept `--db` directory records what its load measured, so that a `--from-disk`
    /// run can use it again.
    func recordLoad(in directory: String, load: LoadFigures, size: Int64) throws {
        guard options.databaseDirectory != nil else { return }
        try LoadedDatabaseMarker(scaleFactor: options.scaleFactor, nodes: options.cluster.nodes,
                                 slicesPerNode: options.cluster.slicesPerNode, load: load, sizeBytes: size)
            .write(directory: directory)
    }

    /// `fromDisk`: load (unless `--db` holds an earlier run's database), close the
    /// database, then run each query's warm-up and timed runs each in a process of its own
    /// over the data directory. A run's time is the child's `Session.execute`; its memory
    /// the child's peak RSS over its whole life.
    func runFromDisk(events: (BenchEvent) -> Void) throws -> (EngineFigures, [Int: ResultText], [String], ScalingFigures?) {
        guard let executable = options.executable else {
            throw BenchError.invalidOption("--from-disk needs the slicehouse binary to start each query's process")
        }
        var notes: [String] = []
        let fm = FileManager.default
        let directory = options.databaseDirectory ?? Self.temporaryDirectory("db")
        let temporary = options.databaseDirectory == nil
        defer { if temporary { try? fm.removeItem(atPath: directory) } }

        let load: LoadFigures
        let size: Int64
        if let marker = reusableDatabase {
            events(.step("using the database an earlier run loaded into \(directory)"))
            (load, size) = (marker.load, marker.sizeBytes)
            notes.append("the database in \(directory) was loaded by an earlier run: the load figures are that run's")
        } else {
            MemoryProbe.resetPeak()
            // The database closes (and lets go of the directory) at the end of this scope.
            load = try loadSlicehouse(into: directory, s3Source: options.s3Data, events: events).1
            size = Self.diskUsage(directory)
            try recordLoad(in: directory, load: load, size: size)
        }
        if let limit = options.memoryBytes {
            notes.append(String(format: "queries ran with --memory %.2f MB: operators beyond it spill to disk",
                                Double(limit) / 1_048_576))
        }
        notes.append("--from-disk: every run (the warm-up too) was a fresh process reading the data directory; "
                     + "times are the query's own, memory the peak RSS of its processes")
        events(.step("running each query in a fresh process over \(directory)"))
        let launcher = FreshProcessLauncher(executable: executable, directory: directory,
                                            memoryBytes: options.memoryBytes, cacheBytes: options.cacheBytes)
        // `--scale-db`: the smaller scale factor's runs alternate with this one's.
        let smallerMarker = try smallerDatabase()
        let smallerLauncher = options.scaleDatabaseDirectory.map {
            FreshProcessLauncher(executable: executable, directory: $0, memoryBytes: options.memoryBytes,
                                 cacheBytes: options.cacheBytes)
        }
        if let smallerMarker, let smaller = options.scaleDatabaseDirectory {
            events(.step("and each run alternating with one over \(smaller) (SF \(TPCHBenchOptions.scaleName(smallerMarker.scaleFactor)))"))
        }
        var queries: [QueryFigures] = []
        var smallerQueries: [QueryFigures] = []
        var results: [Int: ResultText] = [:]
        var peak: Int64 = 0
        var startup: [Double] = []
        var opening: [Double] = []
        for n in options.queries {
            var runs = FreshRuns(), smallerRuns = FreshRuns()
            for run in 0...options.runs {
                let label = String(format: "Q%02d ", n) + (run == 0 ? "warm-up" : "run \(run) of \(options.runs)")
                if let smallerLauncher, smallerRuns.error == nil {
                    events(.progress(label + " (fresh process, SF \(TPCHBenchOptions.scaleName(smallerMarker?.scaleFactor ?? 0)))"))
                    smallerRuns.add(smallerLauncher, query: n, timed: run > 0)
                }
                events(.progress(label + " (fresh process)"))
                runs.add(launcher, query: n, timed: run > 0)
                if runs.error != nil { break }
            }
            startup += runs.startup
            opening += runs.opening
            peak = max(peak, runs.peak)
            if smallerLauncher != nil { smallerQueries.append(smallerRuns.figures(query: n)) }
            guard let last = runs.last else { continue }
            if last.error == nil { results[n] = last.resultText }
            queries.append(runs.figures(query: n))
            if last.error == nil && last.spilledBytes > 0 {
                notes.append(String(format: "Q%02d spilled %.1f MB", n, Double(last.spilledBytes) / 1_048_576))
            }
        }
        if let median = Stats.median(startup) {
            notes.append(String(format: "a process's start, opening the data directory and exit took %.1f ms more per run (median), not counted",
                                median * 1000))
        }
        if let median = Stats.median(opening), let worst = opening.max() {
            notes.append(String(format: "opening the data directory (and connecting) took %.1f ms per run (median; at most %.1f ms), within the above",
                                median * 1000, worst * 1000))
        }
        let figures = EngineFigures(engine: "Slicehouse", version: nil, threads: options.threads, load: load,
                                    sizeBytes: size, memoryKind: "peak RSS of the query's own processes (VmHWM)",
                                    peakRSSBytes: peak, queries: queries)
        var scaling: ScalingFigures?
        if let smallerMarker, let smaller = options.scaleDatabaseDirectory {
            scaling = ScalingFigures(interleaved: smallerQueries, at: smallerMarker.scaleFactor, in: smaller,
                                     with: queries, at: options.scaleFactor)
            for q in smallerQueries where q.check.status == .error {
                notes.append(String(format: "Q%02d failed at SF %@: ", q.number, TPCHBenchOptions.scaleName(smallerMarker.scaleFactor))
                             + (q.check.detail ?? "") + "; it has no growth")
            }
        }
        return (figures, results, notes, scaling)
    }

    /// One query's fresh-process runs over one directory (`runFromDisk`).
    struct FreshRuns {
        var times: [Double] = []
        var cpu: [Double] = []
        var startup: [Double] = []
        /// The child's own time to open the data directory, per timed run.
        var opening: [Double] = []
        var peak: Int64 = 0
        var last: FreshProcessRun?
        var error: String? { last?.error }

        /// Run it once more; `timed`: not the warm-up.
        mutating func add(_ launcher: FreshProcessLauncher, query: Int, timed: Bool) {
            let started = ContinuousClock.now
            let r = launcher.run(query: query)
            let wall = TPCHDataCache.elapsedSeconds(since: started)
            peak = max(peak, r.peakRSSBytes)
            last = r
            guard r.error == nil, timed else { return }
            times.append(r.seconds)
            if let c = r.cpuSeconds { cpu.append(c) }
            startup.append(wall - r.seconds)
            if let o = r.openSeconds { opening.append(o) }
        }

        func figures(query: Int) -> QueryFigures {
            if let error { return QueryFigures(number: query, seconds: times, rows: 0, peakRSSBytes: peak, check: .error(error)) }
            var figures = QueryFigures(number: query, seconds: times, rows: last?.rows ?? 0, peakRSSBytes: peak, check: .unchecked)
            if let spilled = last?.spilledBytes, spilled > 0 { figures.spilledBytes = spilled }
            if !cpu.isEmpty && cpu.count == times.count { figures.cpuSeconds = cpu }
            return figures
        }
    }

    // MARK: Helpers

    static func checkAgainstReference(_ got: ResultText, scale: String, query: Int) -> AnswerCheck {
        let reference = "answers \(scale)"
        guard let text = TPCHText.answer(scale: scale, query: query) else { return .unchecked }
        do {
            return AnswerChecker.compare(got, with: try ResultText.parseAnswer(text), reference: reference)
        } catch {
            return .fail(reference, "reference answer unreadable: \(error)")
        }
    }

    static func figures(_ output: DuckDBRunner.Output, tables names: [String] = TPCHText.tables) -> EngineFigures {
        var tables: [TableLoad] = names.compactMap { t in output.loadSeconds[t].map { TableLoad(table: t, seconds: $0) } }
        if let checkpoint = output.loadSeconds["checkpoint"] { tables.append(TableLoad(table: "checkpoint", seconds: checkpoint)) }
        let queries = output.queries.map { q in
            QueryFigures(number: q.number, seconds: q.seconds, rows: q.rows, peakRSSBytes: q.peakRSSBytes,
                         check: q.error.map { .error($0) } ?? .unchecked)
        }
        return EngineFigures(engine: "DuckDB", version: output.version, threads: output.threads,
                             load: LoadFigures(tables: tables, totalSeconds: output.loadTotalSeconds,
                                               peakRSSBytes: output.loadPeakRSSBytes),
                             sizeBytes: output.sizeBytes, memoryKind: output.memoryKind,
                             peakRSSBytes: output.peakRSSBytes, queries: queries)
    }

    /// Bytes of every file under `path`.
    static func diskUsage(_ path: String) -> Int64 {
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: path) else { return 0 }
        var total: Int64 = 0
        while let entry = walker.nextObject() as? String {
            let full = (path as NSString).appendingPathComponent(entry)
            if let attributes = try? fm.attributesOfItem(atPath: full),
               (attributes[.type] as? FileAttributeType) == .typeRegular,
               let size = attributes[.size] as? NSNumber {
                total += size.int64Value
            }
        }
        return total
    }

    static func temporaryDirectory(_ kind: String) -> String {
        (FileManager.default.temporaryDirectory.path as NSString)
            .appendingPathComponent("slicehouse-bench-\(kind)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    }

    static func message(_ error: Error) -> String {
        if let e = error as? SQLError { return e.message }
        return "\(error)"
    }
}
