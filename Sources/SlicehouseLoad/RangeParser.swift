// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseTypes
import SlicehousePlatform

/// What parsing one byte range of one file produced.
struct RangeOutput: Sendable {
    var chunks: [Chunk] = []
    var rows = 0
    /// `\n` bytes consumed (the range's physical line count when `complete`).
    var newlines = 0
    /// Rejected rows in range order; `line` is relative to the range start (1-based).
    var errors: [LoadError] = []
    /// Rejected rows beyond those kept in `errors`.
    var uncountedErrors = 0
    /// False when parsing stopped early (this or an earlier range failed the COPY).
    var complete = true
    /// When parsing began (`Clock.nowMicros`) and how long it took.
    var startMicros: Int64 = 0
    var micros: Int64 = 0
}

/// Shared state of one COPY's workers: the next range to take and the earliest range
/// known to fail the load (later ranges stop early).
final class LoadControl: @unchecked Sendable {
    private let lock = Lock()
    private var next = 0
    private var failedRange = Int.max

    func takeRange(_ count: Int) -> Int? {
        lock.withLock {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }
    func fail(_ range: Int) { lock.withLock { failedRange = min(failedRange, range) } }
    func shouldStop(_ range: Int) -> Bool { lock.withLock { failedRange < range } }
}

/// Parses byte ranges of input into chunks of typed vectors, one builder per target
/// column. One parser is used by one worker at a time.
///
/// This file holds the shared machinery (builders, NULL AS, rejections, chunking) and
/// the delimited text / CSV record loop; `RangeParser+FixedWidth` and
/// `RangeParser+JSON` hold the other formats' record loops.
final class RangeParser {
    let table: String
    let targets: [ColumnDef]
    let options: CopyOptions
    let chunkRows: Int
    /// Detailed error records kept per range (the rest are only counted).
    let keepErrors: Int
    /// One builder per target column (a pointer array: no ARC or exclusivity checks
    /// on the per-field path).
    let builders: UnsafeMutablePointer<ColumnBuilder>
    /// NULL AS bytes (`nullCount` of them).
    let nullBytes: UnsafeMutablePointer<UInt8>
    let nullCount: Int
    /// JSON: which values feed which columns (nil for other formats).
    let jsonMap: JSONFieldMap?
    /// Unescape / unquote buffer.
    var scratch: UnsafeMutableBufferPointer<UInt8>

    /// Flush a chunk before string offsets could overflow Int32 (checked every 64 rows:
    /// 64 rows of at most 65,535 bytes per value stay far below the remaining headroom).
    static let maxChunkStringBytes = 1 << 30

    /// - Parameter jsonMap: required for `FORMAT JSON` (built once per COPY).
    init(table: String, targets: [ColumnDef], options: CopyOptions, chunkRows: Int,
         jsonMap: JSONFieldMap? = nil) throws {
        if options.format == .json && jsonMap == nil {
            throw SQLError.internalError("JSON COPY without a field map")
        }
        if options.format == .fixedWidth && options.fixedWidth.count != targets.count {
            throw SQLError(.invalidParameter,
                           "FIXEDWIDTH specification has \(options.fixedWidth.count) column(s) but COPY loads \(targets.count)")
        }
        self.table = table
        self.targets = targets
        self.options = options
        self.chunkRows = max(chunkRows, 1)
        self.jsonMap = jsonMap
        self.keepErrors = options.maxError >= CopyOptions.maxErrorLimit ? CopyOptions.maxErrorLimit + 1 : options.maxError + 1
        let made = UnsafeMutablePointer<ColumnBuilder>.allocate(capacity: max(targets.count, 1))
        var initialized = 0
        do {
            for t in targets {
                (made + initialized).initialize(to: try ColumnBuilder(t, options: options, reserve: min(chunkRows, 1 << 13)))
                initialized += 1
            }
        } catch {
            made.deinitialize(count: initialized)
            made.deallocate()
            throw error
        }
        builders = made
        nullCount = options.nullString.count
        nullBytes = .allocate(capacity: max(nullCount, 1))
        for (i, c) in options.nullString.enumerated() { nullBytes[i] = c }
        scratch = .allocate(capacity: 256)
    }

    deinit {
        builders.deinitialize(count: targets.count)
        builders.deallocate()
        nullBytes.deallocate()
        scratch.deallocate()
    }

    /// Parse records in `[start, end)` of `data`; `start` is a record boundary.
    func run(_ data: FileData, start: Int, end: Int, rangeIndex: Int, control: LoadControl) -> RangeOutput {
        switch options.format {
        case .text, .csv: return runDelimited(data, start: start, end: end, rangeIndex: rangeIndex, control: control)
        case .fixedWidth: return runFixedWidth(data, start: start, end: end, rangeIndex: rangeIndex, control: control)
        case .json: return runJSON(data, start: start, end: end, rangeIndex: rangeIndex, control: control)
        case .parquet: return RangeOutput(complete: false)  // never: Parquet files are read by ParquetLoader
        }
    }

    /// Record a rejected row in `out` (a detailed record while under `keepErrors`,
    /// else just counted). Returns true when the rejections now exceed MAXERROR: the
    /// COPY has failed and the caller stops (later ranges are told to stop too).
    func reject(_ out: inout RangeOutput, _ code: LoadErrorCode, _ reason: String, field: Int, line: Int,
                record: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?, file: String,
                rangeIndex: Int, control: LoadControl) -> Bool {
        if out.errors.count >= keepErrors {
            out.uncountedErrors += 1
        } else {
            out.errors.append(loadError(code, reason, field: field, line: line, record: record, value: value, file: file))
        }
        if out.errors.count + out.uncountedErrors > options.maxError {
            control.fail(rangeIndex)
            out.complete = false
            return true
        }
        return false
    }

    /// The `LoadError` for field `field` (a target index; past the targets: no column)
    /// of a record at range-relative line `line` (0-based).
    func loadError(_ code: LoadErrorCode, _ reason: String, field: Int, line: Int, record: UnsafeBufferPointer<UInt8>,
                   value: UnsafeBufferPointer<UInt8>?, file: String) -> LoadError {
        let col = field >= 0 && field < targets.count ? targets[field] : nil
        var length = 0
        if let t = col?.type { if case .char(let n) = t { length = n } else if case .varchar(let n) = t { length = n } }
        return LoadError(table: table, file: file, line: line + 1, column: col?.name ?? "",
                         columnType: col?.type.sqlName ?? "", columnLength: length, position: max(field, 0),
                         rawLine: FieldParsers.text(record), rawFieldValue: value.map { FieldParsers.text($0) } ?? "",
                         code: code, reason: reason)
    }

    /// Count a completed row; flush a chunk when it is full (or its strings are large).
    @inline(__always)
    func rowDone(_ rows: inout Int, _ out: inout RangeOutput) {
        rows += 1
        if rows >= chunkRows || (rows & 63 == 0 && stringBytesExceeded()) {
            out.chunks.append(flush(rows))
            out.rows += rows
            rows = 0
        }
    }

    /// Flush the last partial chunk of a range.
    func finish(_ rows: Int, _ out: inout RangeOutput) {
        if rows > 0 {
            out.chunks.append(flush(rows))
            out.rows += rows
        }
    }

    /// Delimited text and CSV.
    func runDelimited(_ data: FileData, start: Int, end: Int, rangeIndex: Int, control: LoadControl) -> RangeOutput {
        var out = RangeOutput()
        guard start < end, let base = data.bytes.baseAddress else { return out }
        let ncols = targets.count
        var scanner = RecordScanner(options: options, capacity: ncols + 1)
        let maxError = options.maxError
        let ignoreBlankLines = options.ignoreBlankLines
        let fillRecord = options.fillRecord
        var rows = 0
        var p = start
        var line = 0
        var sinceCheck = 0
        let fileName = data.path

        func reject(_ code: LoadErrorCode, _ reason: String, field: Int, recStart: Int, recLine: Int,
                    contentEnd: Int, value: UnsafeBufferPointer<UInt8>?) {
            let lineBytes = UnsafeBufferPointer(start: base + recStart, count: max(contentEnd - recStart, 0))
            _ = self.reject(&out, code, reason, field: field, line: recLine, record: lineBytes, value: value,
                            file: fileName, rangeIndex: rangeIndex, control: control)
        }

        // Well-formed records are parsed in batches: the batch's fields are found
        // first, then converted column by column (one type switch per column and
        // batch). Anything unusual — a record with the wrong field count, a scan
        // problem, escapes or doubled quotes, a blank line, a field that fails to
        // convert — goes through the record-at-a-time path below, which rejects rows
        // exactly as before: `single` counts the records still to take that way.
        let batchRows = 128
        let batchSpans = UnsafeMutablePointer<FieldSpan>.allocate(capacity: batchRows * max(ncols, 1))
        defer { batchSpans.deallocate() }
        let slowFlags = FieldSpan.escaped | FieldSpan.doubledQuotes
        var single = 0
        // Where the record at `p` ends when the scanner already holds it (a batch
        // stopped at it), so the record path does not scan it again.
        var scannedNext = -1
        let plain = scanner.isPlain
        let delimiter = options.delimiter
        while p < end {
            if single == 0 {
                sinceCheck += 1
                if sinceCheck >= 8 {
                    sinceCheck = 0
                    if control.shouldStop(rangeIndex) { out.complete = false; break }
                }
                let batchStart = p, batchLine = line
                let limit = min(batchRows, chunkRows - rows)
                var nb = 0
                var stoppedAt = -1
                if plain {
                    (nb, p) = RecordScanner.scanPlainBatch(base, p, end, delimiter: delimiter, columns: ncols,
                                                           into: batchSpans, limit: limit)
                    line += nb
                }
                while nb < limit && p < end && !plain {
                    let next = scanner.scan(base, p, end)
                    stoppedAt = next
                    guard scanner.fields(forColumns: ncols) == ncols, scanner.problem == nil, scanner.contentEnd > p || ncols > 1 else { break }
                    let row = batchSpans + nb * ncols
                    var simple = true
                    for c in 0..<ncols {
                        let sp = scanner.spans[c]
                        if sp.flags & slowFlags != 0 { simple = false }
                        row[c] = sp
                    }
                    guard simple else { break }
                    p = next
                    line += scanner.newlines
                    nb += 1
                    stoppedAt = -1
                }
                if nb == 0 {
                    single = 1
                    scannedNext = stoppedAt
                } else {
                    var failed = false
                    do throws(FieldFailure) {
                        for c in 0..<ncols {
                            try builders[c].appendBatch(base, batchSpans + c, stride: ncols, count: nb,
                                                        nullBytes: nullBytes, nullCount: nullCount)
                        }
                    } catch {
                        failed = true
                    }
                    if failed {
                        for c in 0..<ncols { builders[c].truncate(to: rows) }
                        p = batchStart
                        line = batchLine
                        single = nb
                    } else {
                        if stoppedAt >= 0 {
                            single = 1
                            scannedNext = stoppedAt
                        } else if plain && nb < limit {
                            single = 1  // the plain scan stopped at a record `scan` must take
                        }
                        rows += nb
                        if rows >= chunkRows || stringBytesExceeded() {
                            out.chunks.append(flush(rows))
                            out.rows += rows
                            rows = 0
                        }
                    }
                    continue
                }
            }
            single -= 1
            let recStart = p
            if scannedNext >= 0 {
                p = scannedNext
                scannedNext = -1
            } else {
                p = scanner.scan(base, p, end)
            }
            let recLine = line
            line += scanner.newlines

            let spans = scanner.spans
            if scanner.fieldCount == 1 && scanner.contentEnd == recStart && ignoreBlankLines { continue }
            if let problem = scanner.problem {
                let f = problem.field
                let value: UnsafeBufferPointer<UInt8>? = f < scanner.capacity
                    ? UnsafeBufferPointer(start: base + spans[f].start, count: spans[f].end - spans[f].start) : nil
                reject(problem.code, problem.reason, field: f, recStart: recStart, recLine: recLine, contentEnd: scanner.contentEnd, value: value)
                if out.errors.count + out.uncountedErrors > maxError { out.complete = false; break }
                continue
            }
            let nf = scanner.fields(forColumns: ncols)
            if nf > ncols {
                let s = spans[ncols]
                reject(.extraColumns, "Extra column(s) found", field: ncols, recStart: recStart, recLine: recLine, contentEnd: scanner.contentEnd,
                       value: UnsafeBufferPointer(start: base + s.start, count: s.end - s.start))
                if out.errors.count + out.uncountedErrors > maxError { out.complete = false; break }
                continue
            }
            if nf < ncols && !fillRecord {
                reject(.missingColumns,
                       "Delimiter not found: input data had fewer columns than expected (\(nf) of \(ncols) fields)",
                       field: nf, recStart: recStart, recLine: recLine, contentEnd: scanner.contentEnd, value: nil)
                if out.errors.count + out.uncountedErrors > maxError { out.complete = false; break }
                continue
            }

            var c = 0
            do throws(FieldFailure) {
                while c < ncols {
                    if c < nf {
                        try convert(base, spans[c], builders + c)
                    } else {
                        try builders[c].append(UnsafeBufferPointer(start: base, count: 0), quoted: false)
                    }
                    c += 1
                }
            } catch {
                for k in 0..<c { builders[k].removeLast() }
                let value: UnsafeBufferPointer<UInt8>? = c < nf ? fieldValue(base, spans[c]) : nil
                reject(error.code, error.reason, field: c, recStart: recStart, recLine: recLine, contentEnd: scanner.contentEnd, value: value)
                if out.errors.count + out.uncountedErrors > maxError { out.complete = false; break }
                continue
            }
            rows += 1
            if rows >= chunkRows || (rows & 63 == 0 && stringBytesExceeded()) {
                out.chunks.append(flush(rows))
                out.rows += rows
                rows = 0
            }
        }
        if rows > 0 {
            out.chunks.append(flush(rows))
            out.rows += rows
        }
        out.newlines = line
        return out
    }

    /// NULL AS check, unescaping/unquoting when needed, then conversion.
    @inline(__always)
    func convert(_ base: UnsafePointer<UInt8>, _ span: FieldSpan,
                         _ builder: UnsafeMutablePointer<ColumnBuilder>) throws(FieldFailure) {
        let raw = UnsafeBufferPointer(start: base + span.start, count: span.end - span.start)
        let quoted = span.flags & FieldSpan.quoted != 0
        if !quoted && raw.count == nullCount && matchesNull(raw) {
            try builder.pointee.appendNull()
            return
        }
        if span.flags & (FieldSpan.escaped | FieldSpan.doubledQuotes) != 0 {
            try builder.pointee.append(unescaped(raw, span.flags), quoted: quoted)
        } else {
            try builder.pointee.append(raw, quoted: quoted)
        }
    }

    @inline(__always)
    func matchesNull(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in 0..<nullCount where raw[i] != nullBytes[i] { return false }
        return true
    }

    /// The field's value as loaded (escapes resolved), for error records.
    func fieldValue(_ base: UnsafePointer<UInt8>, _ span: FieldSpan) -> UnsafeBufferPointer<UInt8> {
        let raw = UnsafeBufferPointer(start: base + span.start, count: span.end - span.start)
        if span.flags & (FieldSpan.escaped | FieldSpan.doubledQuotes) != 0 { return unescaped(raw, span.flags) }
        return raw
    }

    /// Resolve backslash escapes (`\x` → `x`) or doubled CSV quotes into `scratch`.
    func unescaped(_ raw: UnsafeBufferPointer<UInt8>, _ flags: UInt8) -> UnsafeBufferPointer<UInt8> {
        if scratch.count < raw.count {
            scratch.deallocate()
            scratch = .allocate(capacity: max(raw.count, scratch.count * 2))
        }
        var o = 0, i = 0
        let n = raw.count
        if flags & FieldSpan.escaped != 0 {
            while i < n {
                var c = raw[i]
                if c == 92 && i + 1 < n { i += 1; c = raw[i] }
                scratch[o] = c; o += 1; i += 1
            }
        } else {
            let q = options.quote
            while i < n {
                let c = raw[i]
                scratch[o] = c; o += 1
                i += (c == q && i + 1 < n && raw[i + 1] == q) ? 2 : 1
            }
        }
        return UnsafeBufferPointer(rebasing: scratch[0..<o])
    }

    func stringBytesExceeded() -> Bool {
        for c in 0..<targets.count where builders[c].stringBytes > Self.maxChunkStringBytes { return true }
        return false
    }

    func flush(_ rows: Int) -> Chunk {
        Chunk(columns: (0..<targets.count).map { builders[$0].takeVector() }, count: rows)
    }
}
