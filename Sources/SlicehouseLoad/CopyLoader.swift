// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import SlicehouseCatalog
import SlicehouseTypes
import SlicehouseAWS
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
                            tuning: CopyTuning = CopyTuning(), inputs: CopyInputs = CopyInputs(),
                            progress: LoadProgressHandler? = nil, context: QueryContext) throws -> CopyResult {
        var chunks: [Chunk] = []
        var result = try stream(table: table, columns: columns, columnList: columnList, source: source, options: options,
                                tuning: tuning, inputs: inputs, progress: progress,
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
                              inputs: CopyInputs = CopyInputs(), progress: LoadProgressHandler? = nil,
                              context: QueryContext, consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        try stream(table: table, columns: columns, columnList: columnList, source: source, options: options,
                   tuning: tuning, inputs: inputs, progress: progress, mergePieces: true, context: context,
                   consume: consume)
    }

    static func stream(table: String, columns: [ColumnDef], columnList: [String]?, source: String,
                       options: CopyOptions, tuning: CopyTuning, inputs: CopyInputs, progress: LoadProgressHandler?,
                       mergePieces: Bool, context: QueryContext, consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        try stream(table: table, columns: columns, columnList: columnList,
                   objects: { try CopySource.resolve(source, manifest: options.manifest, inputs: inputs) },
                   options: options, tuning: tuning, inputs: inputs, progress: progress, mergePieces: mergePieces,
                   context: context, consume: consume)
    }

    /// `stream` over the inputs `objects` gives (asked once, after the column list and the
    /// options are checked).
    static func stream(table: String, columns: [ColumnDef], columnList: [String]?, objects resolveObjects: () throws -> [CopyObject],
                       options: CopyOptions, tuning: CopyTuning, inputs: CopyInputs, progress: LoadProgressHandler?,
                       mergePieces: Bool, context: QueryContext, consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        let indices = try resolveColumns(table: table, columns: columns, columnList: columnList)
        let targets = indices.map { columns[$0] }
        if options.format == .parquet {
            let objects = try resolveObjects()
            return try ParquetLoader.stream(table: table, targets: targets, indices: indices, objects: objects, inputs: inputs,
                                            options: options, tuning: tuning, progress: progress, context: context,
                                            consume: consume)
        }
        let jsonMap = try jsonFieldMap(options, targets: targets, inputs: inputs)
        // Fail on unloadable column types or a mismatched FIXEDWIDTH spec before
        // touching any data file.
        _ = try RangeParser(table: table, targets: targets, options: options, chunkRows: 1, jsonMap: jsonMap)

        let objects = try resolveObjects()
        let reservation = MemoryReservation(context.memory)
        defer { reservation.free() }
        let piece = tuning.piece
        var files = FileQueue(objects: objects, compression: options.compression, workers: tuning.workers, inputs: inputs,
                              segmentBytes: min(piece, 64 << 20), context: context)
        defer { files.close() }
        // Plain files' sizes are known now; a compressed file counts its inflated size once open.
        let reporter = LoadProgressReporter(totalBytes: files.knownBytes, handler: progress)

        // Cut files into ranges: several per worker and piece, and at most 16 MB, so the
        // workers finish a piece within a small range of each other.
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
        /// Input bytes held in memory by the open inputs (inflated, or fetched), by serial.
        var inflated: [Int: Int] = [:]
        var serial = 0
        var rejected: [LoadError] = []
        var rejectedCount = 0
        var rowCount = 0
        var totalBytes = 0
        var lineBase = 0
        var currentFile = -1
        var fileLines = [Int](repeating: 0, count: objects.count)
        var fileScans = objects.map { o -> FileScan in var f = FileScan(); f.bytes = o.size; return f }
        // The last piece's checked rows, not yet consumed, and their bytes.
        var pending: [Chunk]? = nil
        var pendingHeld = 0
        while true {
            try context.cancellation.check()
            // Fill the next piece: ranges in file order, opening files as needed.
            while queued < piece, let opened = try files.next() {
                for file in opened {
                    serial += 1
                    totalBytes += file.newBytes
                    if file.data.heldBytes > 0 { inflated[serial] = file.data.heldBytes }
                    reporter.adjustTotal(by: file.newBytes - file.rawBytes)
                    let data = file.data
                    let plan = data.planRanges(planner, rangeBytes: rangeBytes, first: file.first, last: file.last)
                    if !file.last {
                        files.carry(file.index, UnsafeBufferPointer(rebasing: data.bytes[plan.end...]))
                    }
                    for i in 0..<(plan.cuts.count - 1) where plan.cuts[i] < plan.cuts[i + 1] || plan.cuts.count == 2 {
                        queue.append(PlannedRange(file: file.data, index: file.index, serial: serial,
                                                  headerNewlines: plan.headerNewlines,
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
                let live = Set(tasks.map(\.serial)).union(queue.map(\.serial))
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
                    let began = Clock.nowMicros()
                    var out = parser.run(t.file, start: t.start, end: t.end, rangeIndex: i, control: control)
                    out.startMicros = began
                    out.micros = Clock.nowMicros() - began
                    t.file.releaseAround(t.start, t.end)
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
                    fileScans[t.index].add(start: out.startMicros, micros: out.micros)
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
                          rejectedCount: rejectedCount, files: objects.map(\.name), bytesRead: totalBytes, fileLines: fileLines,
                          fileScans: fileScans)
    }

    /// A byte range of a file, to be parsed.
    struct PlannedRange: @unchecked Sendable {
        let file: FileData
        /// The file's place in the load order.
        let index: Int
        /// The opened input (file or segment) it is cut from.
        let serial: Int
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
                             inputs: CopyInputs = CopyInputs()) throws -> JSONFieldMap? {
        guard options.format == .json, let mapping = options.json else { return nil }
        switch mapping {
        case .auto(let ignoreCase):
            return JSONFieldMap.auto(columns: targets, ignoreCase: ignoreCase)
        case .paths(let file):
            guard let bytes = try inputs.smallFile(file) else {
                throw SQLError(.loadError, "JSONPaths file '\(file)' does not exist or cannot be read")
            }
            guard let paths = try JSONPathsFile.compile(Data(bytes), name: file, columnCount: targets.count) else {
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

/// One input opened for parsing: a whole file, or a piece of an S3 object read piece by
/// piece (`first`: it holds the object's start and header; `last`: its end).
struct OpenedInput {
    var data: FileData
    /// The input's place in the load order.
    var index: Int
    /// Bytes of the input this piece adds (on disk or on S3; compressed inputs: their
    /// compressed size), and of the piece once decompressed.
    var rawBytes: Int
    var newBytes: Int
    var first = true
    var last = true
}

/// The inputs of a COPY, opened in load order as the pieces reach them.
///
/// - A plain local file is only mapped, one at a time; compressed ones are inflated up to
///   `workers` at once (each by one thread).
/// - An S3 object is read by ranged GETs, several at once (`S3ParallelRead`), a
///   *segment* of about `segmentBytes` at a time: its ranges are parsed while the next
///   segment is fetched, so no object is downloaded whole before parsing begins and a COPY
///   holds about two segments of input whatever the objects' sizes. Small objects are
///   fetched up to `lookahead` at once. A segment's unparsed end (the record it cuts) is
///   handed back (`carry`) and goes in front of the next segment of the same object.
/// - A compressed S3 object up to `segmentBytes` is fetched whole (by ranges, in
///   parallel; up to `workers` such objects at once), then inflated like a local file. A
///   larger one is streamed (`S3InflatingRead`): fetched chunk by chunk, inflated as it
///   arrives, and handed out in segments of inflated bytes, with the same carry.
struct FileQueue {
    let objects: [CopyObject]
    let compression: CopyOptions.Compression
    let workers: Int
    let inputs: CopyInputs
    let context: QueryContext
    let segmentBytes: Int
    static let lookahead = 8
    private var nextIndex = 0

    /// S3 reads started and not yet handed out, in load order.
    private var pending: [PendingRead] = []
    /// Where the next read to start is: an object, and an offset in it.
    private var readIndex = 0
    private var readOffset = 0
    /// The unparsed end of the last segment handed out, and its object.
    private var carried: (index: Int, bytes: [UInt8])? = nil
    /// The compressed object being streamed, and whether its first segment is still to come.
    private var streaming: (index: Int, read: S3InflatingRead, first: Bool)? = nil

    final class PendingRead {
        let index: Int
        let offset: Int
        let read: S3ParallelRead
        let last: Bool
        init(index: Int, offset: Int, read: S3ParallelRead, last: Bool) {
            self.index = index; self.offset = offset; self.read = read; self.last = last
        }
    }

    init(objects: [CopyObject], compression: CopyOptions.Compression, workers: Int, inputs: CopyInputs = CopyInputs(),
         segmentBytes: Int = 64 << 20, context: QueryContext) {
        self.context = context
        self.objects = objects
        self.compression = compression
        self.workers = max(1, workers)
        self.inputs = inputs
        self.segmentBytes = max(1 << 16, segmentBytes)
    }

    /// Bytes of input known before opening anything (compressed files: their size on disk).
    var knownBytes: Int { objects.reduce(0) { $0 + $1.size } }

    /// The unparsed end of the segment just handed out, for the next segment of its object.
    mutating func carry(_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        carried = bytes.isEmpty ? nil : (index, Array(bytes))
    }

    /// Stop the reads under way (the COPY is over, or failed): their threads fetch no more.
    mutating func close() {
        for p in pending { p.read.cancel() }
        pending = []
        streaming?.read.cancel()
        streaming = nil
    }

    /// The next file or files, or nil when all are open.
    mutating func next() throws -> [OpenedInput]? {
        if let s = streaming {
            return try takeInflated(s)
        }
        if let head = pending.first {
            return [try takeSegment(head)]
        }
        guard nextIndex < objects.count else { return nil }
        if case .s3(let location) = objects[nextIndex].place {
            if compression == .none {
                try startReads()
                guard let head = pending.first else { return nil }
                return [try takeSegment(head)]
            }
            if objects[nextIndex].size > segmentBytes {
                let read = S3InflatingRead(client: try inputs.s3Client(for: objects[nextIndex].name), location: location,
                                           size: objects[nextIndex].size, compression: compression,
                                           path: objects[nextIndex].name, segmentBytes: segmentBytes)
                read.start()
                let s = (index: nextIndex, read: read, first: true)
                streaming = s
                return try takeInflated(s)
            }
            return try openCompressedS3()
        }
        // Local files: one plain file, or up to `workers` compressed ones (stopping at an S3 object).
        var end = nextIndex + 1
        if compression != .none {
            while end < objects.count && end - nextIndex < workers, case .local = objects[end].place { end += 1 }
        }
        let range = nextIndex..<end
        nextIndex = end
        readIndex = max(readIndex, end)
        let paths = range.map { objects[$0].name }
        let opened = try FileData.openAll(paths, compression: compression,
                                          workers: objects.count == 1 ? workers : min(workers, range.count), context: context)
        return zip(range, opened).map {
            OpenedInput(data: $1, index: $0, rawBytes: objects[$0].size, newBytes: $1.bytes.count)
        }
    }

    /// Wait for the first pending read, hand it out (after the carried bytes of its object),
    /// and start the reads that follow it.
    private mutating func takeSegment(_ head: PendingRead) throws -> OpenedInput {
        pending.removeFirst()
        try startReads()
        try Self.wait(head.read, context)
        let object = objects[head.index]
        var carry: [UInt8] = []
        if let c = carried, c.index == head.index { carry = c.bytes }
        carried = nil
        if head.last { nextIndex = max(nextIndex, head.index + 1) }
        let data = FileData.fetched(path: object.name, head.read, carry: carry)
        return OpenedInput(data: data, index: head.index, rawBytes: head.read.buffer.count,
                           newBytes: head.read.buffer.count, first: head.offset == 0, last: head.last)
    }

    /// The next segment of the object being streamed, after the carried bytes: none when
    /// it is an empty last segment with nothing carried.
    private mutating func takeInflated(_ s: (index: Int, read: S3InflatingRead, first: Bool)) throws -> [OpenedInput] {
        let segment = try s.read.next(stop: { [context] in context.cancellation.error })
        var carry: [UInt8] = []
        if let c = carried, c.index == s.index { carry = c.bytes }
        carried = nil
        if segment.last {
            streaming = nil
            nextIndex = max(nextIndex, s.index + 1)
            readIndex = max(readIndex, nextIndex)
        } else {
            streaming = (s.index, s.read, false)
        }
        if segment.last && segment.count == 0 && carry.isEmpty && !s.first {
            segment.storage.deallocate()
            return []
        }
        let data = FileData.inflated(path: objects[s.index].name, segment, carry: carry)
        return [OpenedInput(data: data, index: s.index, rawBytes: segment.compressedBytes, newBytes: segment.count,
                            first: s.first, last: segment.last)]
    }

    /// Start reads of the S3 objects ahead, uncompressed ones segment by segment, until a
    /// segment's bytes are in flight beyond the one handed out next, or `lookahead`
    /// reads, or a local object is next.
    private mutating func startReads() throws {
        readIndex = max(readIndex, nextIndex)
        while pending.count < Self.lookahead, readIndex < objects.count {
            let inFlight = pending.reduce(0) { $0 + $1.read.buffer.count }
            guard inFlight < segmentBytes else { break }
            guard case .s3(let location) = objects[readIndex].place else { break }
            let client = try inputs.s3Client(for: objects[readIndex].name)
            let size = objects[readIndex].size
            let count = min(segmentBytes, max(0, size - readOffset))
            let read = S3ParallelRead(client: client, location: location, offset: readOffset, count: count,
                                      headroom: readOffset == 0 ? 0 : 1 << 20)
            read.start()
            let last = readOffset + count >= size
            pending.append(PendingRead(index: readIndex, offset: readOffset, read: read, last: last))
            if last {
                readIndex += 1
                readOffset = 0
            } else {
                readOffset += count
            }
        }
    }

    /// Wait for `read` (giving up when the statement is cancelled or times out); S3's
    /// failure becomes the statement's.
    static func wait(_ read: S3ParallelRead, _ context: QueryContext) throws {
        do {
            try read.wait(stop: { context.cancellation.error })
        } catch let e as S3Error {
            throw e.sqlError
        }
    }

    /// The next compressed S3 objects (up to `workers`, stopping at a local one), each
    /// fetched whole by ranges and inflated, several at once.
    private mutating func openCompressedS3() throws -> [OpenedInput] {
        var end = nextIndex
        var reads: [(index: Int, read: S3ParallelRead)] = []
        while end < objects.count && end - nextIndex < workers, case .s3(let location) = objects[end].place,
              objects[end].size <= segmentBytes {
            let client = try inputs.s3Client(for: objects[end].name)
            let read = S3ParallelRead(client: client, location: location, offset: 0, count: objects[end].size)
            read.start()
            reads.append((end, read))
            end += 1
        }
        nextIndex = end
        readIndex = max(readIndex, end)
        for r in reads { try Self.wait(r.read, context) }
        let names = reads.map { objects[$0.index].name }
        let raws = reads.map { $0.read }
        let opened = try FileData.inflateAll(reads.count, compression: compression, workers: workers, context: context) {
            [compression, context] i, w in
            try FileData.inflate(FileData.fetched(path: names[i], raws[i], carry: []), compression: compression,
                                 workers: w, context: context)
        }
        return zip(reads, opened).map {
            OpenedInput(data: $1, index: $0.index, rawBytes: objects[$0.index].size, newBytes: $1.bytes.count)
        }
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
