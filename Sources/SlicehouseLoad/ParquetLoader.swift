// SPDX-License-Identifier: Apache-2.0
import Dispatch
import SlicehouseCatalog
import SlicehouseParquet
import SlicehouseAWS
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseStorage
import SlicehousePlatform

/// `COPY t FROM 'prefix' FORMAT [AS] PARQUET`: every file under the prefix is opened
/// (mapped, footer parsed), its schema checked against the loaded columns, and its row
/// groups decoded in parallel — each straight into typed vectors of the columns' types
/// by `SlicehouseParquet` — then cut into chunks of at most `Chunk.capacity` rows.
///
/// Redshift's rules for columnar files (dg:copy-usage_notes-copy-from-columnar):
/// - Columns map **by position**: the file's i-th top-level column loads into the i-th
///   loaded column (the table's columns, or the COPY column list). Names are not looked
///   at. The counts must match; with FILLRECORD a file may have fewer columns, and the
///   missing trailing ones load as NULL.
/// - Any error fails the COPY (no MAXERROR). The failing file, column and — for a value
///   that does not fit — row and value are recorded like a rejected text row
///   (`LoadError`, `isColumnar`), so the engine puts them in STL_LOAD_ERRORS.
enum ParquetLoader {
    /// Decode the row groups piece by piece (`CopyTuning.pieceBytes` of column chunks, at
    /// least one row group per worker), each piece's groups in parallel, handing each
    /// piece's rows to `consume` in file order (see `CopyLoader.stream`).
    static func stream(table: String, targets: [ColumnDef], indices: [Int], objects: [CopyObject], inputs: CopyInputs,
                       options: CopyOptions, tuning: CopyTuning, progress: LoadProgressHandler?,
                       context: QueryContext, consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        try stream(table: table, targets: targets, indices: indices, objects: objects, inputs: inputs, options: options,
                   tuning: tuning, mapping: .position, progress: progress, context: context) { pieces in
            try consume(pieces.map(\.chunk))
        }
    }

    /// How the file's columns meet the loaded ones.
    enum Mapping {
        /// COPY's: by position (see the type's notes).
        case position
        /// An external table's: by name, ignoring case; a column the file lacks reads as
        /// NULL, the file's other columns are not read. `keep` decides, from the file's
        /// footer, whether a row group is read at all (row-group pruning); `chunkRows`
        /// may exceed `Chunk.capacity` (the rows become blocks, not pipeline chunks).
        /// With `fieldIDs` (an Iceberg table's, one per target), a file whose schema
        /// carries field ids is matched by id instead — renamed columns keep their data,
        /// a column added after the file was written reads NULL.
        case name(keep: (@Sendable (ParquetFile, Int, [Int?]) -> Bool)?, chunkRows: Int, fieldIDs: [Int]? = nil)
    }

    /// One piece of a file's rows: its object (the index in `objects`), the position of its
    /// first row in the file, and the rows.
    struct Piece {
        var object: Int
        var firstRow: Int64
        var chunk: Chunk
        /// Each column's zone map, when known (see `GroupOutput.zones`).
        var zones: [ZoneMap]? = nil
    }

    /// `stream` with each chunk's object and its first row's position beside it.
    static func stream(table: String, targets: [ColumnDef], indices: [Int], objects: [CopyObject], inputs: CopyInputs,
                       options: CopyOptions, tuning: CopyTuning, mapping: Mapping, progress: LoadProgressHandler?,
                       context: QueryContext, consume: ([Piece]) throws -> Void) throws -> CopyResult {
        let paths = objects.map(\.name)
        let files = try openAll(objects, table: table, inputs: inputs, workers: tuning.workers, context: context)
        var fileMaps: [[Int?]] = []
        for file in files {
            switch mapping {
            case .position:
                try checkSchema(file, table: table, targets: targets, fillRecord: options.fillRecord,
                                serializeToJSON: options.serializeToJSON)
                let present = min(file.columns.count, targets.count)
                fileMaps.append(targets.indices.map { $0 < present ? $0 : nil })
            case .name(_, _, let ids?) where file.columns.contains(where: { $0.fieldID != nil }):
                fileMaps.append(try mapByFieldID(file, table: table, targets: targets, ids: ids))
            case .name:
                fileMaps.append(try mapByName(file, table: table, targets: targets))
            }
        }
        let maps = fileMaps
        // External tables' S3 files: decoded columns are kept by the file's identity and version.
        var keys: [String?] = Array(repeating: nil, count: objects.count)
        var usedCache: ExternalFileCache?
        if case .name = mapping, let cache = inputs.fileCache {
            usedCache = cache
            for (i, o) in objects.enumerated() {
                guard case .s3(let location) = o.place, let client = try? inputs.s3Client(for: o.name) else { continue }
                keys[i] = "\(client.identity)|\(location)|\(o.size)|\(o.version ?? "")"
            }
        }
        let fileKeys = keys
        let fileCache = usedCache

        // One task per row group, in file order.
        var tasks: [(file: Int, group: Int, bytes: Int)] = []
        var totalBytes = 0
        var fileRows = [Int](repeating: 0, count: paths.count)
        var fileScans = objects.map { o -> FileScan in var f = FileScan(); f.bytes = o.size; return f }
        var skipped = 0
        for (f, file) in files.enumerated() {
            for g in 0..<file.rowGroupCount {
                if case .name(let keep?, _, _) = mapping, !keep(file, g, maps[f]) { skipped += 1; continue }
                let bytes = groupBytes(file, g, columns: maps[f].compactMap { $0 })
                tasks.append((f, g, bytes))
                let (sum, overflow) = totalBytes.addingReportingOverflow(bytes)
                totalBytes = overflow ? .max : sum   // sizes come from the footer: do not trust them to add up
            }
        }
        let readOptions = ParquetReadOptions(truncateColumns: false,
                                             invalidCharacterReplacement: options.acceptInvalidChars)
        let chunkRows: Int
        // A COPY's chunks are as big as a text load's, or a whole row group up to twice that
        // (DuckDB writes 122,880 rows a group): cutting a group copies every value once more.
        if case .name(_, let rows, _) = mapping { chunkRows = max(1, rows) } else { chunkRows = max(1, tuning.chunkRows * 2) }
        let reporter = LoadProgressReporter(totalBytes: totalBytes, handler: progress)
        let reservation = MemoryReservation(context.memory)
        defer { reservation.free() }
        let piece = tuning.piece
        var rowCount = 0
        var next = 0
        while next < tasks.count {
            try context.cancellation.check()
            var end = next, bytes = 0
            while end < tasks.count && (end - next < tuning.workers || bytes < piece) {
                bytes = bytes &+ max(tasks[end].bytes, 0)
                end += 1
            }
            let wave = Array(tasks[next..<end])
            next = end
            let control = LoadControl()
            let results = Slots<GroupOutput>(count: wave.count)
            let work = { @Sendable () -> Void in
                while let i = control.takeRange(wave.count) {
                    if control.shouldStop(i) { continue }
                    let t = wave[i]
                    let file = files[t.file]
                    do {
                        let began = Clock.nowMicros()
                        var out = try readGroup(file, t.group, table: table, targets: targets, map: maps[t.file],
                                                options: readOptions, chunkRows: chunkRows,
                                                cache: fileCache.flatMap { c in fileKeys[t.file].map { (c, $0) } })
                        out.startMicros = began
                        out.micros = Clock.nowMicros() - began
                        results.set(i, .success(out))
                        reporter.add(bytes: t.bytes, rows: out.rows)
                    } catch {
                        control.fail(i)
                        results.set(i, .failure(error))
                    }
                }
            }
            let workers = min(tuning.workers, max(wave.count, 1))
            if workers <= 1 {
                work()
            } else {
                parallelFor(workers, context: context) { _ in work() }
            }

            // Assemble in file order; the first failing row group (in file order) fails the COPY.
            var chunks: [Piece] = []
            var held = 0
            for i in wave.indices {
                switch results.get(i) {
                case .success(let out)?:
                    if wave[i].file < fileRows.count {
                        fileRows[wave[i].file] += out.rows
                        fileScans[wave[i].file].add(start: out.startMicros, micros: out.micros)
                    }
                    var row = files[wave[i].file].firstRow(ofRowGroup: wave[i].group)
                    for c in out.chunks {
                        chunks.append(Piece(object: wave[i].file, firstRow: row, chunk: c,
                                            zones: out.chunks.count == 1 ? out.zones : nil))
                        row &+= Int64(c.count)
                    }
                    for c in out.chunks { held += CopyLoader.chunkBytes(c) }
                    rowCount += out.rows
                case .failure(let error)?:
                    throw error
                case nil:
                    throw SQLError.internalError("COPY Parquet row group \(i) produced no result")
                }
            }
            reservation.resize(to: held)
            if !chunks.isEmpty { try consume(chunks) }
            reservation.resize(to: 0)
        }
        var result = CopyResult(chunks: [], columnIndices: indices, rowCount: rowCount, rejected: [],
                                rejectedCount: 0, files: paths, bytesRead: totalBytes, fileLines: fileRows, fileScans: fileScans)
        result.rowGroupsSkipped = skipped
        return result
    }

    struct GroupOutput: Sendable {
        var chunks: [Chunk]
        var rows: Int
        /// With the external file cache and the row group as one chunk: each column's zone
        /// map (kept with the decoded column, so a later query need not compute it).
        var zones: [ZoneMap]? = nil
        var startMicros: Int64 = 0
        var micros: Int64 = 0
    }

    // MARK: - Files and schemas

    /// Open every file, several at once; the first failure in path order is thrown.
    static func openAll(_ objects: [CopyObject], table: String, inputs: CopyInputs, workers: Int,
                        context: QueryContext) throws -> [ParquetFile] {
        let paths = objects.map(\.name)
        let slots = Slots<ParquetFile>(count: paths.count)
        let next = LoadControl()
        let work = { @Sendable () -> Void in
            while let i = next.takeRange(paths.count) {
                do {
                    switch objects[i].place {
                    case .local(let path):
                        slots.set(i, .success(try ParquetFile(path: path)))
                    case .s3(let location):
                        let source = S3ParquetSource(client: try inputs.s3Client(for: paths[i]), location: location,
                                                     size: objects[i].size, context: context, cache: inputs.fileCache,
                                                     version: objects[i].version)
                        slots.set(i, .success(try ParquetFile(source: source)))
                    }
                } catch let e as S3Error {
                    slots.set(i, .failure(e.sqlError))
                } catch {
                    slots.set(i, .failure(error))
                }
            }
        }
        let n = min(workers, paths.count)
        if n <= 1 { work() } else { parallelFor(n, context: context) { _ in work() } }
        var files: [ParquetFile] = []
        files.reserveCapacity(paths.count)
        for (i, path) in paths.enumerated() {
            switch slots.get(i) {
            case .success(let f)?:
                files.append(f)
            case .failure(let error)?:
                guard let e = error as? SQLError, e.code != .ioError, !e.message.hasPrefix("S3") else { throw error }
                // Not Parquet, truncated, corrupt footer, encrypted, ...
                let prefix = "Parquet file '\(path)': "
                let reason = e.message.hasPrefix(prefix) ? String(e.message.dropFirst(prefix.count)) : e.message
                throw fileError(table: table, file: path, code: .unreadableColumnarFile, reason: reason)
            case nil:
                throw SQLError.internalError("COPY Parquet file \(i) was not opened")
            }
        }
        return files
    }

    /// The file's top-level columns against the loaded columns: same count (fewer with
    /// FILLRECORD), every type convertible. A nested column (struct, list, map) loads only
    /// with SERIALIZETOJSON (Redshift's rule, dg:copy_json): into a SUPER column as its
    /// JSON value, or into a VARCHAR column as that JSON's text. A flat column loads into a
    /// SUPER column as the matching JSON scalar, with or without it.
    static func checkSchema(_ file: ParquetFile, table: String, targets: [ColumnDef], fillRecord: Bool,
                            serializeToJSON: Bool = false) throws {
        let columns = file.columns
        if columns.isEmpty {
            throw fileError(table: table, file: file.path, code: .incompatibleColumnarSchema, reason: "the file has no columns")
        }
        if columns.count > targets.count || (columns.count < targets.count && !fillRecord) {
            throw fileError(table: table, file: file.path, code: .incompatibleColumnarSchema,
                            reason: "Unmatched number of columns between table and file. Table columns: \(targets.count), Data columns: \(columns.count) (columns are matched by position"
                                + (columns.count < targets.count ? "; FILLRECORD loads NULL into missing trailing columns)" : ")"))
        }
        for (k, column) in columns.enumerated() {
            if column.isNested && !serializeToJSON {
                throw columnError(table: table, file: file.path, target: targets[k], position: k,
                                  code: .incompatibleColumnarSchema,
                                  reason: "incompatible Parquet schema: column \"\(column.name)\" is nested (a list, map or struct); "
                                      + "it loads only with SERIALIZETOJSON, into a SUPER column (or as JSON text into a VARCHAR column)")
            }
            guard let problem = column.conversionProblem(to: targets[k].type) else { continue }
            throw columnError(table: table, file: file.path, target: targets[k], position: k,
                              code: .incompatibleColumnarSchema,
                              reason: "incompatible Parquet schema: \(problem)" + parquetName(column.name, targets[k]))
        }
    }

    /// Each target's column in the file by name (ignoring case), nil when the file has none
    /// of that name; a column found must be flat and convertible to the target's type.
    static func mapByName(_ file: ParquetFile, table: String, targets: [ColumnDef]) throws -> [Int?] {
        var byName: [String: Int] = [:]
        for (i, c) in file.columns.enumerated() where byName[c.name.lowercased()] == nil { byName[c.name.lowercased()] = i }
        return try checkedMap(file, table: table, targets: targets) { _, target in byName[target.name.lowercased()] }
    }

    /// The file column carrying each target's field id (Iceberg's column identity).
    static func mapByFieldID(_ file: ParquetFile, table: String, targets: [ColumnDef], ids: [Int]) throws -> [Int?] {
        var byID: [Int: Int] = [:]
        for (i, c) in file.columns.enumerated() {
            if let id = c.fieldID, byID[Int(id)] == nil { byID[Int(id)] = i }
        }
        return try checkedMap(file, table: table, targets: targets) { k, _ in k < ids.count ? byID[ids[k]] : nil }
    }

    /// The file column `find` names for each target, checked to be flat and convertible.
    private static func checkedMap(_ file: ParquetFile, table: String, targets: [ColumnDef],
                                   find: (Int, ColumnDef) -> Int?) throws -> [Int?] {
        try targets.enumerated().map { k, target -> Int? in
            guard let i = find(k, target) else { return nil }
            let column = file.columns[i]
            if column.isNested {
                throw columnError(table: table, file: file.path, target: target, position: k, code: .incompatibleColumnarSchema,
                                  reason: "incompatible Parquet schema: column \"\(column.name)\" is nested (a list, map or struct)")
            }
            if let problem = column.conversionProblem(to: target.type) {
                throw columnError(table: table, file: file.path, target: target, position: k, code: .incompatibleColumnarSchema,
                                  reason: "incompatible Parquet schema: \(problem)")
            }
            return i
        }
    }

    /// Compressed bytes of the column chunks a COPY reads from row group `g`.
    static func groupBytes(_ file: ParquetFile, _ g: Int, columns: [Int]) -> Int {
        var n: Int64 = 0
        let chunks = file.rowGroups[g].columns
        for i in columns where i < chunks.count {
            let (sum, overflow) = n.addingReportingOverflow(max(0, chunks[i]?.compressedSize ?? 0))
            n = overflow ? .max : sum
        }
        return Int(clamping: n)
    }

    // MARK: - Row groups

    /// Decode one row group into chunks (NULL vectors for FILLRECORD's missing columns),
    /// checking NOT NULL and CHAR's single-byte rule.
    static func readGroup(_ file: ParquetFile, _ g: Int, table: String, targets: [ColumnDef], map: [Int?],
                          options: ParquetReadOptions, chunkRows: Int,
                          cache: (ExternalFileCache, file: String)? = nil) throws -> GroupOutput {
        let rows = file.rowGroups[g].numRows
        if rows == 0 { return GroupOutput(chunks: [], rows: 0) }
        var read = targets.indices.filter { map[$0] != nil }
        // Columns an earlier query decoded (external tables' files, by version).
        var cached: [Int: (Vector, ZoneMap)] = [:]
        func key(_ k: Int) -> ExternalFileCache.VectorKey? {
            guard let cache, let column = map[k] else { return nil }
            return ExternalFileCache.VectorKey(file: cache.file, group: g, column: column, type: targets[k].type)
        }
        if let cache {
            for k in read { if let key = key(k), let v = cache.0.vector(key), v.0.count == rows { cached[k] = v } }
            read = read.filter { cached[$0] == nil }
        }
        var decoded: [Vector]
        do {
            decoded = read.isEmpty ? [] : try file.decodeRowGroup(g, columns: read.map { map[$0] ?? 0 },
                                                                  as: read.map { targets[$0].type }, options: options)
            if let cache {
                for (i, k) in read.enumerated() {
                    guard let key = key(k) else { continue }
                    let zone = ZoneMap.compute(decoded[i], start: 0, count: rows)
                    cached[k] = (decoded[i], zone)
                    cache.0.put(key, decoded[i], zone: zone)
                }
            }
        } catch let e as ParquetReadError {
            // The reader numbers the file's columns: name the target that column loads into.
            let k = e.columnIndex.flatMap { ci in targets.indices.first { map[$0] == ci } }
            let named = ParquetReadError(file: e.file, column: e.column, columnIndex: k, row: e.row, value: e.value,
                                         code: e.code, reason: e.reason, detail: e.detail)
            throw loadError(named, table: table, targets: targets, columns: file.columns)
        }
        var vectors: [Vector] = []
        vectors.reserveCapacity(targets.count)
        var next = 0
        for k in targets.indices {
            if let v = cached[k] {
                vectors.append(v.0)
            } else if map[k] != nil {
                vectors.append(decoded[next]); next += 1
            } else {
                vectors.append(Vector.nulls(targets[k].type, count: rows))
            }
        }
        let firstRow = file.firstRow(ofRowGroup: g)
        for (k, v) in vectors.enumerated() {
            if targets[k].notNull, let validity = v.validity, let r = firstNull(validity, rows) {
                var e = columnError(table: table, file: file.path, target: targets[k], position: k,
                                    code: .notNullViolation, reason: "Missing data for not-null field")
                e.line = Int(firstRow) + r + 1
                throw e
            }
            if case .char = targets[k].type, case .string(let s) = v.data, let r = firstMultibyte(s) {
                var e = columnError(table: table, file: file.path, target: targets[k], position: k,
                                    code: .invalidUTF8, reason: "Multibyte character not supported for CHAR (Hint: try using VARCHAR)")
                e.line = Int(firstRow) + r + 1
                e.rawFieldValue = s[r]
                throw e
            }
        }
        if chunkRows >= rows {
            var out = GroupOutput(chunks: [Chunk(columns: vectors, count: rows)], rows: rows)
            if cache != nil {
                out.zones = targets.indices.map { k in
                    cached[k]?.1 ?? ZoneMap.compute(vectors[k], start: 0, count: rows)
                }
            }
            return out
        }
        var chunks: [Chunk] = []
        chunks.reserveCapacity((rows + chunkRows - 1) / chunkRows)
        var start = 0
        while start < rows {
            let n = min(chunkRows, rows - start)
            chunks.append(Chunk(columns: vectors.map { $0.slice(start, n) }, count: n))
            start += n
        }
        return GroupOutput(chunks: chunks, rows: rows)
    }

    /// The first NULL among `n` rows.
    static func firstNull(_ validity: Validity, _ n: Int) -> Int? {
        for (w, word) in validity.words.enumerated() where word != ~0 {
            let r = w * 64 + (~word).trailingZeroBitCount
            return r < n ? r : nil
        }
        return nil
    }

    /// The first string with a byte above ASCII (NULL rows hold no bytes).
    static func firstMultibyte(_ s: StringArray) -> Int? {
        let bad: Int? = s.bytes.withUnsafeBufferPointer { b in
            for i in b.indices where b[i] >= 0x80 { return i }
            return nil
        }
        guard let at = bad else { return nil }
        // The row whose bytes hold `at`: the first whose end offset is past it.
        var lo = 0, hi = s.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(s.offsets[mid + 1]) <= at { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    // MARK: - Errors

    /// The text COPY records for `e` (a problem the reader found in a file or a value).
    static func loadError(_ e: ParquetReadError, table: String, targets: [ColumnDef], columns: [ParquetColumn]) -> Error {
        let code: LoadErrorCode
        switch e.code {
        case .internalError: return e.sqlError
        case .numericOutOfRange, .stringTooLong: code = .valueOutOfRange
        case .invalidText: code = .invalidUTF8
        case .datatypeMismatch: code = .incompatibleColumnarSchema
        default: code = .unreadableColumnarFile
        }
        guard let k = e.columnIndex, k < targets.count else {
            return fileError(table: table, file: e.file, code: code, reason: e.reason)
        }
        var reason = e.reason
        if code == .unreadableColumnarFile, !reason.hasPrefix("corrupt") && !reason.hasPrefix("not supported") {
            reason = "cannot read the column: " + reason
        }
        if let name = e.column { reason += parquetName(name, targets[k]) }
        var out = columnError(table: table, file: e.file, target: targets[k], position: k, code: code, reason: reason)
        if let row = e.row { out.line = Int(row) + 1 }
        out.rawFieldValue = e.value ?? ""
        return out
    }

    /// ` (Parquet column "x")` when the file's name for the column differs from the table's.
    static func parquetName(_ name: String, _ target: ColumnDef) -> String {
        name.lowercased() == target.name.lowercased() ? "" : " (Parquet column \"\(name)\")"
    }

    static func fileError(table: String, file: String, code: LoadErrorCode, reason: String) -> LoadError {
        var e = LoadError(table: table, file: file, line: 0, column: "", position: 0, rawLine: "", rawFieldValue: "",
                          code: code, reason: reason)
        e.isColumnar = true
        return e
    }

    static func columnError(table: String, file: String, target: ColumnDef, position: Int, code: LoadErrorCode,
                            reason: String) -> LoadError {
        var length = 0
        switch target.type {
        case .char(let n), .varchar(let n): length = n
        default: break
        }
        var e = LoadError(table: table, file: file, line: 0, column: target.name, columnType: target.type.sqlName,
                          columnLength: length, position: position, rawLine: "", rawFieldValue: "",
                          code: code, reason: reason)
        e.isColumnar = true
        return e
    }
}

/// Results written by workers (each slot once) and read after they finish.
final class Slots<T: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var slots: [Result<T, any Error>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<T, any Error>) { lock.withLock { slots[i] = value } }
    func get(_ i: Int) -> Result<T, any Error>? { lock.withLock { slots[i] } }
}

/// A Parquet object on S3, read by ranges: the footer when the file is opened, each row
/// group's column chunks when it is decoded (`ParquetFile(source:)`), by several ranged
/// GETs at once; a read gives up when the statement is cancelled.
struct S3ParquetSource: ParquetByteSource {
    let client: S3Client
    let location: S3Location
    let size: Int
    let context: QueryContext
    /// External tables' reads are kept (`ExternalFileCache`), by the object's version.
    var cache: ExternalFileCache? = nil
    var version: String? = nil
    var name: String { location.description }

    func read(offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
        let key = cache.map { _ in
            ExternalFileCache.Key(identity: client.identity, object: location.description, size: size, version: version,
                                  offset: offset, count: buffer.count)
        }
        if let cache, let key, let bytes = cache.get(key), bytes.count == buffer.count {
            // (Only the footer is kept — the ranges that reach the file's last 8 bytes, its
            // length and magic number — and the few bytes of the magic number at the start.
            // Column chunks are kept decoded, by ParquetLoader.)
            bytes.withUnsafeBytes { if let d = buffer.baseAddress, let s = $0.baseAddress { d.copyMemory(from: s, byteCount: buffer.count) } }
            return
        }
        let read = S3ParallelRead(client: client, location: location, offset: offset, count: buffer.count)
        try FileQueue.wait({ read.start(); return read }(), context)
        if let d = buffer.baseAddress, let s = read.buffer.baseAddress { d.copyMemory(from: s, byteCount: buffer.count) }
        if let cache, let key, offset + buffer.count >= size - 8 || buffer.count <= 64 {
            cache.put(key, Array(UnsafeRawBufferPointer(buffer)))
        }
    }
}
