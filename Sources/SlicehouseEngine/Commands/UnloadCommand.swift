// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseLake
import SlicehouseLoad
import SlicehouseExecution
import SlicehouseParquet
import SlicehousePlatform
import SlicehouseAWS

/// The UNLOAD statement: a query's result written to files (text, CSV, JSON or Parquet,
/// compressed, partitioned, one file per slice or one in all) under a destination prefix,
/// with a manifest when asked. It receives the session (the user's server-file access,
/// the logs) and the statement's runtime context (the query runs in it, the writers'
/// buffers are reserved from its memory); its query goes the one way every query goes
/// (`QueryRunner`).
struct UnloadCommand {
    let session: Session
    let context: QueryContext

    /// `UNLOAD ('select ...') TO 'prefix' [options]`: writes the query's result to local
    /// files, or S3 objects, named as Redshift names its S3 objects. A failure removes
    /// every file the UNLOAD wrote (and aborts its uploads): it leaves nothing behind.
    func run(_ u: Unload) throws -> StatementResult {
        let options = try UnloadOptions(options: u.options.map { (name: $0.name, args: $0.args.map { $0.text }) })
        let stmts = try parseStatements(u.query, options: session.parseOptions)
        guard stmts.count == 1, case .query(let q) = stmts[0] else {
            throw SQLError(.syntax, "UNLOAD needs exactly one SELECT statement")
        }
        return try write(q, to: u.destination, options: options).result
    }

    /// What `write` wrote: the statement's answer, the query's columns and the files.
    struct Written {
        var result: StatementResult
        var columns: [(name: String, type: DataType)]
        var files: [UnloadedFile]
    }

    /// The query's result written under `destination` as `options` say: UNLOAD's work,
    /// which INSERT into an external table (and CREATE EXTERNAL TABLE AS) also does.
    /// `delegated`: the S3 authorization was judged before (an external schema's role).
    func write(_ q: Query, to destination: String, options: UnloadOptions, delegated: Bool = false) throws -> Written {
        let database = session.database
        let start = Clock.nowMicros()
        var prefix = destination
        let ctx = StatementContext(database: database, session: session)
        let runner = QueryRunner(session, ctx, context)
        let (physical, outputs) = try runner.plan(q)
        let names = outputs.map { $0.name }, types = outputs.map { $0.type }

        // Partition columns (Hive-style folders).
        var partCols: [Int] = []
        for p in options.partitionBy {
            guard let i = names.firstIndex(of: p) else { throw SQLError(.undefinedColumn, "PARTITION BY column \"\(p)\" is not in the query result") }
            partCols.append(i)
        }
        if !partCols.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        let store: any UnloadStore
        var s3: S3Access? = nil
        defer { s3?.logRequests(query: session.statementQueryID ?? 0) }
        if prefix.lowercased().hasPrefix("s3://") {
            guard let location = S3Location(prefix) else { throw S3Location.invalid(prefix) }
            let access = S3Access(session: session, context: context)
            s3 = access
            let client = try access.connection(authorization: options.authorization, region: options.region,
                                               delegated: delegated).client()
            store = S3UnloadStore(client: client, prefix: location)
        } else {
            if prefix.hasPrefix("file://") { prefix.removeFirst("file://".count) }
            guard !prefix.isEmpty else { throw SQLError(.invalidParameter, "UNLOAD needs a destination") }
            // The destination resolved (links followed, `..` applied) and judged before anything
            // runs: the files are written under the resolved prefix only.
            prefix = try database.serverFiles.access(for: session.user, in: session.security).authorizeWritePrefix(prefix)
            store = LocalUnloadStore(prefix: prefix)
        }
        let fileCols = partCols.isEmpty || options.partitionInclude ? Array(names.indices) : names.indices.filter { !partCols.contains($0) }

        try store.prepare(cleanPath: options.cleanPath, allowOverwrite: options.allowOverwrite)
        // The rows stream from the query into the files: what is held at once is the
        // writers' buffers (reserved here), not the result.
        let reservation = MemoryReservation(context.memory)
        defer { reservation.free() }
        /// Runs the query, handing each chunk to `write` with its slice (PARALLEL ON) or 0,
        /// split by partition folder ("" without PARTITION BY), with the file's columns.
        func run(_ write: (Int, String, Chunk) throws -> Void) throws {
            let split = { (slice: Int, chunk: Chunk) throws -> Void in
                let c = chunk.compacted()
                if partCols.isEmpty {
                    try write(slice, "", Chunk(columns: fileCols.map { c.columns[$0] }, count: c.count))
                    return
                }
                // The chunk's rows by partition folder, folders in the order of their first row.
                var rowsByFolder: [String: [Int32]] = [:]
                var folders: [String] = []
                for r in 0..<c.count {
                    let folder = partCols.map { i -> String in
                        // Hive's folder names (what Spark, Athena and Glue read back): its few
                        // special characters as %XX, everything else — UTF-8 text too — as it is.
                        guard let v = c.columns[i].value(at: r).formatted(as: types[i]) else {
                            return names[i] + "=" + HivePartitionPath.nullValue
                        }
                        return names[i] + "=" + HivePartitionPath.escape(v)
                    }.joined(separator: "/") + "/"
                    if rowsByFolder[folder] == nil { folders.append(folder) }
                    rowsByFolder[folder, default: []].append(Int32(r))
                }
                for folder in folders {
                    guard let rows = rowsByFolder[folder] else { continue }
                    try write(slice, folder, Chunk(columns: fileCols.map { c.columns[$0] }, count: c.count, selection: rows).compacted())
                }
            }
            try withoutActuallyEscaping(split) { split in
                if options.parallel {
                    _ = try runner.execute(physical, .partitioned(split), returnsRows: false)
                } else {
                    _ = try runner.execute(physical, .stream { try split(0, $0) }, returnsRows: false)
                }
            }
        }
        do {
            let written: [UnloadedFile]
            let format: String
            if options.format == .parquet {
                written = try unloadParquet(run, store: store, names: fileCols.map { names[$0] },
                                            types: fileCols.map { types[$0] }, options: options, reservation: reservation)
                format = "Parquet"
            } else {
                let formatter = try UnloadFormatter(names: fileCols.map { names[$0] }, types: fileCols.map { types[$0] },
                                                    options: options)
                let writer = UnloadWriter(store: store, formatter: formatter, reservation: reservation)
                try run { slice, folder, chunk in try writer.append(chunk, slice: slice, folder: folder) }
                written = try writer.finish()
                format = "Text"
            }
            if options.manifest { try writeManifest(store, written, options, names: names, types: types) }
            // The files an S3 store completes in the background are all in place.
            try store.settle()
            logUnload(written, format: format, start: start)
            let rows = written.reduce(0) { $0 + $1.rows }
            return Written(result: StatementResult(tag: "UNLOAD", notices: ["UNLOAD completed, \(rows) record(s) unloaded successfully."]),
                           columns: Array(zip(names, types)), files: written)
        } catch {
            store.abort()
            throw error
        }
    }

    private func writeManifest(_ store: any UnloadStore, _ files: [UnloadedFile], _ options: UnloadOptions,
                               names: [String], types: [DataType]) throws {
        func quote(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var entries: [String] = []
        for f in files {
            let url = quote(f.url)
            if options.manifestVerbose {
                entries.append("{\"url\":\(url),\"meta\":{\"content_length\":\(f.bytes),\"record_count\":\(f.rows)}}")
            } else {
                entries.append("{\"url\":\(url)}")
            }
        }
        var json = "{\"entries\":[" + entries.joined(separator: ",") + "]"
        if options.manifestVerbose {
            let cols = zip(names, types).map { "{\"name\":\(quote($0)),\"type\":{\"base\":\(quote($1.sqlName))}}" }
            json += ",\"schema\":{\"elements\":[" + cols.joined(separator: ",") + "]}"
            json += ",\"meta\":{\"content_length\":\(files.reduce(0) { $0 + $1.bytes }),\"record_count\":\(files.reduce(0) { $0 + $1.rows })}"
        }
        json += "}\n"
        try store.write(Array(json.utf8), to: "manifest")
    }

    /// PARQUET: files per slice and partition folder
    /// (`<prefix>[<folder>]<slice>_part_<nn>.parquet`), the next part begun once a file's
    /// row groups reach MAXFILESIZE; Snappy unless ZSTD/GZIP is asked for; each writer
    /// holds at most one row group (ROWGROUPSIZE) of rows, reserved from the statement's
    /// memory.
    private func unloadParquet(_ run: ((Int, String, Chunk) throws -> Void) throws -> Void, store: any UnloadStore,
                               names: [String], types: [DataType], options: UnloadOptions,
                               reservation: MemoryReservation) throws -> [UnloadedFile] {
        let compression: ParquetCompression
        switch options.parquetCompression {
        case "zstd": compression = .zstd
        case "gzip": compression = .gzip
        default: compression = .snappy
        }
        /// File sets by slice and folder, in the order they were opened: the part being
        /// written (nil after a file ended at MAXFILESIZE, until the set's next rows).
        var sets: [(slice: Int, folder: String, part: Int, name: String, writer: ParquetWriter?)] = []
        var index: [String: Int] = [:]
        /// Files ended, with their set's place for the final order.
        var ended: [(set: Int, file: UnloadedFile)] = []
        func fileName(_ slice: Int, _ folder: String, _ part: Int) -> String {
            folder + options.fileNamePrefix
                + (options.parallel ? String(format: "%04d_part_%02d", slice, part) : String(format: "%03d", part))
                + options.fileSuffix
        }
        func open(_ slice: Int, _ folder: String, _ part: Int) throws -> (String, ParquetWriter) {
            let name = fileName(slice, folder, part)
            return (name, try ParquetWriter(output: store.parquetOutput(name), name: store.displayName(name),
                                            columns: Array(zip(names, types)), compression: compression,
                                            rowGroupBytes: options.rowGroupSize))
        }
        /// The writer of `slice`'s file in `folder`, opened when needed.
        func writer(_ slice: Int, _ folder: String) throws -> (Int, ParquetWriter) {
            let key = "\(slice)/\(folder)"
            if let i = index[key] {
                if let w = sets[i].writer { return (i, w) }
                let (name, w) = try open(slice, folder, sets[i].part + 1)
                sets[i].part += 1
                sets[i].name = name
                sets[i].writer = w
                return (i, w)
            }
            let (name, w) = try open(slice, folder, 0)
            index[key] = sets.count
            sets.append((slice, folder, 0, name, w))
            return (sets.count - 1, w)
        }
        func end(_ i: Int) throws {
            guard let w = sets[i].writer else { return }
            try w.close()
            ended.append((i, UnloadedFile(path: store.displayName(sets[i].name), bytes: Int(w.bytesWritten),
                                          rows: Int(w.rowCount), slice: sets[i].slice, url: store.url(sets[i].name))))
            sets[i].writer = nil
        }
        try run { slice, folder, chunk in
            if chunk.count == 0 { return }
            let (i, w) = try writer(slice, folder)
            try w.append(chunk)
            // A file ends once its row groups reach MAXFILESIZE (the one being filled can
            // take it past by up to ROWGROUPSIZE); the set's next rows start the next part.
            if w.bytesWritten >= Int64(options.maxFileSize) { try end(i) }
            reservation.resize(to: sets.reduce(0) { $0 + ($1.writer?.bufferedBytes ?? 0) })
        }
        if sets.isEmpty { _ = try writer(0, "") }
        for i in sets.indices { try end(i) }
        reservation.resize(to: 0)
        // In slice order, then the order the sets were opened, then part order.
        return ended.enumerated().sorted { a, b in
            (sets[a.element.set].slice, a.element.set, a.offset) < (sets[b.element.set].slice, b.element.set, b.offset)
        }.map { $0.element.file }
    }

    /// STL_UNLOAD_LOG: one row per file the UNLOAD wrote.
    private func logUnload(_ files: [UnloadedFile], format: String, start: Int64) {
        let end = Clock.nowMicros()
        let query = Int64(session.statementQueryID ?? 0)
        let userID = session.currentUserID, process = session.process
        session.database.log(.unloadLog, files.map { f -> [Value] in
            [.int(Int64(userID)), .int(query), .int(Int64(f.slice)), .int(Int64(process)),
             .string(String(f.path.prefix(1280))), .int(start), .int(end), .int(Int64(f.rows)), .int(Int64(f.bytes)),
             .string(format)]
        })
    }
}
