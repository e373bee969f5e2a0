// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import SlicehouseCatalog
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlatform

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
                            tuning: CopyTuning = CopyTuning(), access: LocalFileAccess = .unrestricted,
                            progress: LoadProgressHandler? = nil, context: QueryContext) throws -> CopyResult {
        var chunks: [Chunk] = []
        var result = try stream(table: table, columns: columns, columnList: columnList, source: source, options: options,
                                tuning: tuning, access: access, progress: progress,
                                mergePieces: false, context: context) { chunks.append(contentsOf: $0) }
        // Parquet's chunks are cut from row groups as they are; text ranges' small tails merge.
        result.chunks = options.format == .parquet ? chunks : mergeSmallChunks(chunks, target: tuning.chunkRows)
        return result
    }

    /// Parse the files named by `source` piece by piece, handing each piece's rows to
    /// `consume` as soon as it is parsed and checked, so that a COPY of any size holds
    /// at most about two pieces of parsed rows (`CopyTuning.pieceBytes` of input each).
    ///
    /// Files are opened as the pieces reach them (compressed ones are inflated then, up
    /// to `workers` at once) and let go once parsed. Each piece's byte ranges are parsed in
    /// parallel; its rows then go to `consume`, in file order, as chunks like `load`'s,
    /// while the next piece is parsed (the two overlap, so neither's last tasks leave a
    /// core idle; `consume` is called once at a time, piece after piece, on a worker
    /// thread, as `context`'s work). MAXERROR counts over the whole load: the
    /// piece where the rejections pass it throws, and rows of earlier pieces have been
    /// consumed by then — the caller stores nothing when this throws. An error of
    /// `consume` is thrown as it is, before anything of a later piece is judged. The
    /// statement's cancellation (`context`'s) is checked before every piece,
    /// and a piece's parsed rows are reserved from the statement's memory until `consume`
    /// returns (two pieces' while they overlap), as are the inflated bytes a compressed
    /// file holds in memory while it is parsed.
    ///
    /// Returns what `load` returns, with no chunks.
    public static func stream(table: String, columns: [ColumnDef], columnList: [String]? = nil,
                              source: String, options: CopyOptions, tuning: CopyTuning = CopyTuning(),
                              access: LocalFileAccess = .unrestricted, progress: LoadProgressHandler? = nil,
                              context: QueryContext, consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        try stream(table: table, columns: columns, columnList: columnList, source: source, options: options,
                   tuning: tuning, access: access, progress: progress, mergePieces: true, context: context,
                   consume: consume)
    }

    static func stream(table: String, columns: [ColumnDef], columnList: [String]?, source: String,
                       options: CopyOptions, tuning: CopyTuning, access: LocalFileAccess, progress: LoadProgressHandler?,
                       mergePieces: Bool, context: QueryContext, consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        let indices = try resolveColumns(table: table, columns: columns, columnList: columnList)
        let targets = indices.map { columns[$0] }
        if options.format == .parquet {
            let paths = try CopySource.resolve(source, manifest: options.manifest, access: access)
            return try ParquetLoader.stream(table: table, targets: targets, indices: indices, paths: paths,
                                            options: options, tuning: tuning, progress: progress, context: context,
                                            consume: consume)
        }
        let jsonMap = try jsonFieldMap(options, targets: targets, access: access)
        // Fail on unloadable column types or a mismatched FIXEDWIDTH spec before
        // touching any data file.
        _ = try RangeParser(table: table, targets: targets, options: options, chunkRows: 1, jsonMap: jsonMap)

        let paths = try CopySource.resolve(source, manifest: options.manifest, access: access)
        let reservation = MemoryReservation(context.memory)
        defer { reservation.free() }
        var files = FileQueue(paths: paths, compression: options.compression, workers: tuning.workers, context: context)
        // Plain files' sizes are known now; a compressed file counts its inflated size once open.
        let reporter = LoadProgressReporter(totalBytes: files.knownBytes, handler: progress)

        // Cut files into ranges: several per worker and piece, and at most 16 MB, so the
        // workers finish a piece within a small range of each other.
        let piece = tuning.piece
        let rangeBytes = tuning.rangeBytes
            ?? min(max(min(files.knownBytes / (tuning.workers * 8), piece / (tuning.workers * 4)), 1 << 20), 16 << 20)
        let planner = RangePlanner(options: options, columnCount: targets.count)
        let workers = tuning.workers
        var parsers: [RangeParser] = []
        for _ in 0..<workers {
            parsers.append(try RangeParser(table: table, targets: targets, options: options,
                                           chunkRows: tuning.chunkRows, jsonMap: jsonMap))
        }
        let parserList = parsers

        var queue: [PlannedRange] = []
        var queued = 0
        /// Inflated bytes held in memory by the open files, by file index.
        var inflated: [Int: Int] = [:]
        var rejected: [LoadError] = []
        var rejectedCount = 0
        var rowCount = 0
        var totalBytes = 0
        var lineBase = 0
        var currentFile = -1
        var fileLines = [Int](repeating: 0, count: paths.count)
        // The last piece's checked rows, not yet consumed, and their bytes.
        var pending: [Chunk]? = nil
        var pendingHeld = 0
        while true {
            try context.cancellation.check()
            // Fill the next piece: ranges in file order, opening files as needed.
            while queued < piece, let opened = try files.next() {
                for file in opened {
                    totalBytes += file.data.bytes.count
                    if file.data.heldBytes > 0 { inflated[file.index] = file.data.heldBytes }
                    reporter.adjustTotal(by: file.data.bytes.count - file.rawBytes)
                    // Finding the cuts reads a little at every range, yet an inflated file's
                    // mapping was measured to become resident whole while they were found
                    // (`FileData.releaseAround`). Its pages leave the process as the planner
                    // passes them and come back range by range as they are parsed (each
                    // released after), so a compressed input holds what is being parsed,
                    // not its inflated size.
                    let data = file.data
                    let inflatedFile = data.temporary != nil
                    let plan = planner.plan(data.bytes, rangeBytes: rangeBytes,
                                            done: inflatedFile ? { data.releaseAround($0, $1) } : nil)
                    if inflatedFile { data.release(0, data.bytes.count) }
                    for i in 0..<(plan.cuts.count - 1) where plan.cuts[i] < plan.cuts[i + 1] || plan.cuts.count == 2 {
                        queue.append(PlannedRange(file: file.data, index: file.index, headerNewlines: plan.headerNewlines,
                                                  start: plan.cuts[i], end: plan.cuts[i + 1]))
                        queued += plan.cuts[i + 1] - plan.cuts[i]
                    }
                }
            }
            if queue.isEmpty { break }
            var take = 0, bytes = 0
            while take < queue.count && (take == 0 || bytes < piece) {
                bytes += queue[take].end - queue[take].start
                take += 1
            }
            let tasks = Array(queue[0..<take])
            queue.removeFirst(take)
            queued -= bytes
            // The inflated files this piece or a later one still reads stay reserved.
            if !inflated.isEmpty {
                let live = Set(tasks.map(\.index)).union(queue.map(\.index))
                inflated = inflated.filter { live.contains($0.key) }
            }
            let inflatedBytes = inflated.values.reduce(0, +)
            reservation.resize(to: inflatedBytes)

            // Parse the piece's ranges concurrently; workers take ranges in file order.
            let control = LoadControl()
            let results = ResultSlots(count: tasks.count)
            let work = { @Sendable (parser: RangeParser) -> Void in
                while let i = control.takeRange(tasks.count) {
                    let t = tasks[i]
                    if control.shouldStop(i) {
                        results.set(i, RangeOutput(complete: false))
                        continue
                    }
                    let out = parser.run(t.file, start: t.start, end: t.end, rangeIndex: i, control: control)
                    if t.file.temporary != nil {
                        t.file.releaseAround(t.start, t.end)
                    } else {
                        t.file.release(t.start, t.end)
                    }
                    results.set(i, out)
                    reporter.add(bytes: t.end - t.start, rows: out.rows)
                }
            }
            let n = min(workers, tasks.count)
            let parse = {
                if n <= 1 {
                    work(parserList[0])
                } else {
                    parallelFor(n, context: context) { w in work(parserList[w]) }
                }
            }
            if let previous = pending {
                // The last piece's rows go on while this one is parsed.
                reservation.resize(to: inflatedBytes + pendingHeld)
                _ = try parallelMap(2, context: context) { i -> Bool in
                    if i == 0 { try consume(previous) } else { parse() }
                    return true
                }
                pending = nil
            } else {
                parse()
            }

            // Assemble in file order, fixing up line numbers and applying MAXERROR.
            var chunks: [Chunk] = []
            var held = 0
            for (i, t) in tasks.enumerated() {
                if t.index != currentFile {
                    currentFile = t.index
                    lineBase = t.headerNewlines
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
                if t.index < fileLines.count {
                    // Header lines skipped, then every record loaded or rejected.
                    if fileLines[t.index] == 0 { fileLines[t.index] = t.headerNewlines }
                    fileLines[t.index] += out.rows + out.errors.count + out.uncountedErrors
                }
                rowCount += out.rows
                for c in out.chunks { held += chunkBytes(c) }
                chunks.append(contentsOf: out.chunks)
            }
            reservation.resize(to: inflatedBytes + held)
            if !chunks.isEmpty {
                pending = mergePieces ? mergeSmallChunks(chunks, target: tuning.chunkRows) : chunks
                pendingHeld = held
            }
        }
        if let last = pending { try consume(last) }
        reservation.resize(to: 0)

        return CopyResult(chunks: [], columnIndices: indices, rowCount: rowCount, rejected: rejected,
                          rejectedCount: rejectedCount, files: paths, bytesRead: totalBytes, fileLines: fileLines)
    }

    /// A byte range of a file, to be parsed.
    struct PlannedRange: @unchecked Sendable {
        let file: FileData
        /// The file's place in the load order.
        let index: Int
        /// `\n` bytes of the file's skipped header.
        let headerNewlines: Int
        let start: Int
        let end: Int
    }

    /// Approximate bytes of a parsed chunk's vectors.
    static func chunkBytes(_ c: Chunk) -> Int {
        var total = 0
        for v in c.columns {
            switch v.data {
            case .int64(let a): total += a.count * 8
            case .int128(let a): total += a.count * 16
            case .double(let a): total += a.count * 8
            case .bool(let a): total += a.count
            case .string(let a): total += a.bytes.count + a.offsets.count * 4
            }
            total += (v.validity?.words.count ?? 0) * 8
        }
        return total
    }

    /// The JSON field map for `options.json` (nil for other formats): the loaded
    /// columns' names for `'auto'`, or the compiled JSONPaths file.
    static func jsonFieldMap(_ options: CopyOptions, targets: [ColumnDef],
                             access: LocalFileAccess = .unrestricted) throws -> JSONFieldMap? {
        guard options.format == .json, let mapping = options.json else { return nil }
        switch mapping {
        case .auto(let ignoreCase):
            return JSONFieldMap.auto(columns: targets, ignoreCase: ignoreCase)
        case .paths(let file):
            if access != .unrestricted { _ = try access.authorizeRead(file) }
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
    public static func resolveColumns(table: String, columns: [ColumnDef], columnList: [String]?) throws -> [Int] {
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

/// The files of a COPY, opened in load order as the pieces reach them: a plain file one
/// at a time (it is only mapped), compressed ones up to `workers` at once (each is
/// inflated into memory by one thread).
struct FileQueue {
    let paths: [String]
    let compression: CopyOptions.Compression
    let workers: Int
    let context: QueryContext
    private var nextIndex = 0
    /// Sizes of the files on disk.
    let rawSizes: [Int]

    init(paths: [String], compression: CopyOptions.Compression, workers: Int, context: QueryContext) {
        self.context = context
        self.paths = paths
        self.compression = compression
        self.workers = max(1, workers)
        rawSizes = paths.map { p in
            var st = stat()
            return stat(p, &st) == 0 ? Int(st.st_size) : 0
        }
    }

    /// Bytes of input known before opening anything (compressed files: their size on disk).
    var knownBytes: Int { rawSizes.reduce(0, +) }

    /// The next file or files, or nil when all are open.
    mutating func next() throws -> [(data: FileData, index: Int, rawBytes: Int)]? {
        guard nextIndex < paths.count else { return nil }
        let count = compression == .none ? 1 : min(workers, paths.count - nextIndex)
        let range = nextIndex..<(nextIndex + count)
        nextIndex += count
        let opened = try FileData.openAll(Array(paths[range]), compression: compression,
                                          workers: paths.count == 1 ? workers : min(workers, count), context: context)
        return zip(range, opened).map { (data: $1, index: $0, rawBytes: rawSizes[$0]) }
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
