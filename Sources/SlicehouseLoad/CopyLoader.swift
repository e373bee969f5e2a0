import Dispatch
import SlicehouseCatalog
import SlicehouseTypes
import SlicehouseRuntime

/// COPY from local files: resolves the source, opens (and decompresses, several files
/// at once) every file, parses them — large ones cut into ranges at record boundaries —
/// in parallel straight into typed vectors, and returns the rows, or fails the whole
/// COPY as a unit. Formats: delimited text, CSV, FIXEDWIDTH, JSON; compression: GZIP,
/// BZIP2, ZSTD (whole files are decompressed into memory first, then cut into ranges
/// like plain files); Parquet files are read row group by row group (`ParquetLoader`).
public enum CopyLoader {
    /// Parse the files named by `source` into chunks for `table`.
    ///
    /// - Parameters:
    ///   - table: the target table's name (used in error messages and `LoadError.table`).
    ///   - columns: the table's columns, in table order.
    ///   - columnList: the COPY column list (`COPY t (a, c) FROM ...`), or nil for all
    ///     columns. Names match case-insensitively; unknown or repeated names throw.
    ///     The input must have exactly these fields, in this order.
    ///   - source: a local path prefix or `file://` URL (see `CopySource`), or the
    ///     manifest file when `options.manifest`.
    ///   - options: parsed COPY parameters (`CopyOptions(options:)`).
    ///   - progress: told how far the load has got, now and then (see `LoadProgressHandler`).
    /// - Returns: chunks holding **only the loaded columns**: the listed columns in list
    ///   order, or every table column in table order without a list
    ///   (`CopyResult.columnIndices` maps vectors to table columns). The engine fills
    ///   the columns that were not listed, and stores nothing when this throws.
    /// - Throws: `LoadError` when input rows are rejected beyond MAXERROR (the thrown
    ///   error is the first row over the limit; `earlierRejections` holds the others;
    ///   `asSQLError()` gives the user-facing error); `SQLError` for everything else
    ///   (bad column list, missing files, unsupported sources or compression, corrupt
    ///   or truncated compressed files, a bad FIXEDWIDTH spec or JSONPaths file, I/O).
    public static func load(table: String, columns: [ColumnDef], columnList: [String]? = nil,
                            source: String, options: CopyOptions,
                            tuning: CopyTuning = CopyTuning(), progress: LoadProgressHandler? = nil) throws -> CopyResult {
        let indices = try resolveColumns(table: table, columns: columns, columnList: columnList)
        let targets = indices.map { columns[$0] }
        if options.format == .parquet {
            let paths = try CopySource.resolve(source, manifest: options.manifest)
            return try ParquetLoader.load(table: table, targets: targets, indices: indices, paths: paths,
                                          options: options, tuning: tuning, progress: progress)
        }
        let jsonMap = try jsonFieldMap(options, targets: targets)
        // Fail on unloadable column types or a mismatched FIXEDWIDTH spec before
        // touching any data file.
        _ = try RangeParser(table: table, targets: targets, options: options, chunkRows: 1, jsonMap: jsonMap)

        let paths = try CopySource.resolve(source, manifest: options.manifest)
        let files = try FileData.openAll(paths, compression: options.compression, workers: tuning.workers)
        let totalBytes = files.reduce(0) { $0 + $1.bytes.count }

        // Cut files into ranges: several per worker and at most 16 MB, so the workers
        // finish within a small range of each other.
        let rangeBytes = tuning.rangeBytes
            ?? min(max(totalBytes / (tuning.workers * 8), 1 << 20), 16 << 20)
        let planner = RangePlanner(options: options, columnCount: targets.count)
        var planned: [(file: Int, start: Int, end: Int)] = []
        var headerNewlines: [Int] = []
        for (f, file) in files.enumerated() {
            let plan = planner.plan(file.bytes, rangeBytes: rangeBytes)
            headerNewlines.append(plan.headerNewlines)
            for i in 0..<(plan.cuts.count - 1) where plan.cuts[i] < plan.cuts[i + 1] || plan.cuts.count == 2 {
                planned.append((f, plan.cuts[i], plan.cuts[i + 1]))
            }
        }
        let tasks = planned

        // Parse ranges concurrently; workers take ranges in file order.
        let control = LoadControl()
        let results = ResultSlots(count: tasks.count)
        let workers = min(tuning.workers, max(tasks.count, 1))
        let failure = ResultSlots(count: 1)
        let reporter = LoadProgressReporter(totalBytes: totalBytes, handler: progress)
        let work = { @Sendable () -> Void in
            let parser: RangeParser
            do {
                parser = try RangeParser(table: table, targets: targets, options: options, chunkRows: tuning.chunkRows,
                                         jsonMap: jsonMap)
            } catch {
                control.fail(-1)
                failure.setError(error)
                return
            }
            while let i = control.takeRange(tasks.count) {
                let t = tasks[i]
                if control.shouldStop(i) {
                    results.set(i, RangeOutput(complete: false))
                    continue
                }
                let out = parser.run(files[t.file], start: t.start, end: t.end, rangeIndex: i, control: control)
                files[t.file].release(t.start, t.end)
                results.set(i, out)
                reporter.add(bytes: t.end - t.start, rows: out.rows)
            }
        }
        if workers <= 1 {
            work()
        } else {
            parallelFor(workers) { _ in work() }
        }
        if let error = failure.error { throw error }

        // Assemble in file order, fixing up line numbers and applying MAXERROR.
        var chunks: [Chunk] = []
        var rejected: [LoadError] = []
        var rejectedCount = 0
        var rowCount = 0
        var lineBase = 0
        var currentFile = -1
        for (i, t) in tasks.enumerated() {
            if t.file != currentFile {
                currentFile = t.file
                lineBase = headerNewlines[t.file]
            }
            guard let out = results.get(i) else {
                throw SQLError.internalError("COPY range \(i) produced no result")
            }
            for var e in out.errors {
                e.line += lineBase
                if rejectedCount >= options.maxError {
                    e.earlierRejections = rejected
                    throw e
                }
                rejectedCount += 1
                if rejected.count < CopyOptions.maxErrorLimit { rejected.append(e) }
            }
            rejectedCount += out.uncountedErrors
            guard out.complete else {
                // Only a range after a failing one stops early; the failure is thrown above.
                throw SQLError.internalError("COPY range \(i) stopped without a recorded failure")
            }
            lineBase += out.newlines
            rowCount += out.rows
            chunks.append(contentsOf: out.chunks)
        }

        return CopyResult(chunks: mergeSmallChunks(chunks, target: tuning.chunkRows),
                          columnIndices: indices, rowCount: rowCount, rejected: rejected,
                          rejectedCount: rejectedCount, files: paths, bytesRead: totalBytes)
    }

    /// The JSON field map for `options.json` (nil for other formats): the loaded
    /// columns' names for `'auto'`, or the compiled JSONPaths file.
    static func jsonFieldMap(_ options: CopyOptions, targets: [ColumnDef]) throws -> JSONFieldMap? {
        guard options.format == .json, let mapping = options.json else { return nil }
        switch mapping {
        case .auto(let ignoreCase):
            return JSONFieldMap.auto(columns: targets, ignoreCase: ignoreCase)
        case .paths(let file):
            guard let paths = try JSONPathsFile.load(file, columnCount: targets.count) else {
                // Redshift: a file whose object is not named "jsonpaths" means 'auto'.
                return JSONFieldMap.auto(columns: targets, ignoreCase: false)
            }
            return JSONFieldMap(paths: paths, ignoreCase: false)
        case .noshred:
            guard targets.count == 1, targets[0].type == .superType else {
                throw SQLError(.invalidParameter, "COPY with JSON 'noshred' loads one SUPER column; the column list has \(targets.count) column(s)"
                               + (targets.count == 1 ? " of type \(targets[0].type.sqlName)" : ""))
            }
            // An empty path: the whole record.
            return JSONFieldMap(paths: [[]], ignoreCase: false)
        }
    }

    /// Table column indices for the COPY column list (or all columns).
    static func resolveColumns(table: String, columns: [ColumnDef], columnList: [String]?) throws -> [Int] {
        guard !columns.isEmpty else { throw SQLError(.invalidParameter, "COPY target table \"\(table)\" has no columns") }
        guard let columnList else { return Array(columns.indices) }
        guard !columnList.isEmpty else { throw SQLError.syntax("COPY column list is empty") }
        var out: [Int] = []
        for name in columnList {
            let lower = name.lowercased()
            guard let idx = columns.firstIndex(where: { $0.name.lowercased() == lower }) else {
                throw SQLError(.undefinedColumn, "column \"\(name)\" of relation \"\(table)\" does not exist")
            }
            guard !out.contains(idx) else {
                throw SQLError(.duplicateColumn, "column \"\(name)\" specified more than once")
            }
            out.append(idx)
        }
        return out
    }

    /// Concatenate runs of tiny adjacent chunks (small files, range tails) up to
    /// `target` rows; chunks of `max(Chunk.capacity, target / 16)` rows or more are kept
    /// as they are, without copying.
    static func mergeSmallChunks(_ chunks: [Chunk], target: Int) -> [Chunk] {
        guard chunks.count > 1 else { return chunks }
        let small = max(Chunk.capacity, target / 16)
        var out: [Chunk] = []
        var pending: Chunk? = nil
        for c in chunks {
            if c.physicalCount >= small {
                if let p = pending { out.append(p); pending = nil }
                out.append(c)
                continue
            }
            guard var p = pending else { pending = c; continue }
            if p.physicalCount + c.physicalCount <= target {
                for k in 0..<p.columns.count { p.columns[k].append(c.columns[k]) }
                p.physicalCount += c.physicalCount
                pending = p
            } else {
                out.append(p)
                pending = c
            }
        }
        if let pending { out.append(pending) }
        return out
    }
}

/// Per-range results written by workers (each slot once) and read after they finish.
final class ResultSlots: @unchecked Sendable {
    private let lock = Lock()
    private var slots: [RangeOutput?]
    private(set) var error: (any Error)?

    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: RangeOutput) { lock.withLock { slots[i] = value } }
    func get(_ i: Int) -> RangeOutput? { lock.withLock { slots[i] } }
    func setError(_ e: any Error) { lock.withLock { if error == nil { error = e } } }
}
