// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseLoad
import SlicehouseExecution
import SlicehouseParquet
import SlicehousePlatform

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
    /// files named as Redshift names its S3 objects.
    func run(_ u: Unload) throws -> StatementResult {
        let database = session.database
        let start = Clock.nowMicros()
        let options = try UnloadOptions(options: u.options.map { (name: $0.name, args: $0.args.map { $0.text }) })
        var prefix = u.destination
        if prefix.hasPrefix("s3://") {
            throw SQLError(.featureNotSupported, "UNLOAD to S3 is not supported yet: use a local path or file:// URL")
        }
        if prefix.hasPrefix("file://") { prefix.removeFirst("file://".count) }
        guard !prefix.isEmpty else { throw SQLError(.invalidParameter, "UNLOAD needs a destination") }
        let stmts = try parseStatements(u.query, options: session.parseOptions)
        guard stmts.count == 1, case .query(let q) = stmts[0] else {
            throw SQLError(.syntax, "UNLOAD needs exactly one SELECT statement")
        }
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
        // The destination resolved (links followed, `..` applied) and judged before anything
        // runs: the files are written under the resolved prefix only.
        prefix = try database.serverFiles.access(for: session.user, in: session.security).authorizeWritePrefix(prefix)
        let fileCols = partCols.isEmpty || options.partitionInclude ? Array(names.indices) : names.indices.filter { !partCols.contains($0) }

        try UnloadDestination.prepare(prefix, cleanPath: options.cleanPath, allowOverwrite: options.allowOverwrite)
        // The rows stream from the query into the files: what is held at once is the
        // writers' buffers (reserved here), not the result.
        let reservation = MemoryReservation(context.memory)
        defer { reservation.free() }
        /// Runs the query, handing each chunk to `write` with its slice (PARALLEL ON) or 0.
        func run(_ write: (Int, Chunk) throws -> Void) throws {
            try withoutActuallyEscaping(write) { write in
                if options.parallel {
                    _ = try runner.execute(physical, .partitioned(write), returnsRows: false)
                } else {
                    _ = try runner.execute(physical, .stream { try write(0, $0) }, returnsRows: false)
                }
            }
        }
        if options.format == .parquet {
            return try unloadParquet(run, prefix: prefix, names: names, types: types, options: options,
                                     reservation: reservation, start: start)
        }
        let formatter = try UnloadFormatter(names: fileCols.map { names[$0] }, types: fileCols.map { types[$0] }, options: options)
        let writer = UnloadWriter(prefix: prefix, formatter: formatter, reservation: reservation)
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_. :"))
        try run { slice, chunk in
            let c = chunk.compacted()
            if partCols.isEmpty {
                try writer.append(Chunk(columns: fileCols.map { c.columns[$0] }, count: c.count), slice: slice, folder: "")
                return
            }
            // The chunk's rows by partition folder, folders in the order of their first row.
            var rowsByFolder: [String: [Int32]] = [:]
            var folders: [String] = []
            for r in 0..<c.count {
                let folder = partCols.map { i -> String in
                    let v = c.columns[i].value(at: r).formatted(as: types[i]) ?? "__HIVE_DEFAULT_PARTITION__"
                    return names[i] + "=" + (v.addingPercentEncoding(withAllowedCharacters: allowed) ?? v)
                }.joined(separator: "/") + "/"
                if rowsByFolder[folder] == nil { folders.append(folder) }
                rowsByFolder[folder, default: []].append(Int32(r))
            }
            for folder in folders {
                guard let rows = rowsByFolder[folder] else { continue }
                let part = Chunk(columns: fileCols.map { c.columns[$0] }, count: c.count, selection: rows).compacted()
                try writer.append(part, slice: slice, folder: folder)
            }
        }
        let written = try writer.finish()
        if options.manifest { try writeManifest(prefix, written, options, names: names, types: types) }
        logUnload(written, format: "Text", start: start)
        return StatementResult(tag: "UNLOAD", notices: ["UNLOAD completed, \(writer.rowCount) record(s) unloaded successfully."])
    }

    private func writeManifest(_ prefix: String, _ files: [UnloadedFile], _ options: UnloadOptions,
                       names: [String], types: [DataType]) throws {
        func quote(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var entries: [String] = []
        for f in files {
            let url = quote("file://" + (f.path.hasPrefix("/") ? f.path : FileManager.default.currentDirectoryPath + "/" + f.path))
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
        let path = prefix + "manifest"
        guard FileManager.default.createFile(atPath: path, contents: Data(json.utf8)) else {
            throw SQLError(.ioError, "could not write manifest '\(path)'")
        }
    }

    /// PARQUET: one file per slice (`<prefix><slice>_part_00.parquet`), Snappy unless
    /// ZSTD/GZIP is asked for; each writer holds at most one row group (ROWGROUPSIZE) of
    /// rows, reserved from the statement's memory.
    private func unloadParquet(_ run: ((Int, Chunk) throws -> Void) throws -> Void, prefix: String, names: [String],
                       types: [DataType], options: UnloadOptions, reservation: MemoryReservation,
                       start: Int64) throws -> StatementResult {
        guard options.partitionBy.isEmpty else {
            throw SQLError(.featureNotSupported, "PARTITION BY with FORMAT PARQUET is not supported yet")
        }
        let compression: ParquetCompression
        switch options.parquetCompression {
        case "zstd": compression = .zstd
        case "gzip": compression = .gzip
        default: compression = .snappy
        }
        var writers: [Int: ParquetWriter] = [:]
        func writer(_ slice: Int) throws -> ParquetWriter {
            if let w = writers[slice] { return w }
            let name = options.parallel ? String(format: "%04d_part_00", slice) : "000"
            let path = prefix + name + options.fileSuffix
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let w = try ParquetWriter(path: path, columns: Array(zip(names, types)), compression: compression,
                                      rowGroupBytes: options.rowGroupSize)
            writers[slice] = w
            return w
        }
        try run { slice, chunk in
            if chunk.count == 0 { return }
            try writer(slice).append(chunk)
            reservation.resize(to: writers.values.reduce(0) { $0 + $1.bufferedBytes })
        }
        if writers.isEmpty { _ = try writer(0) }
        var written: [UnloadedFile] = []
        var total = 0
        for slice in writers.keys.sorted() {
            guard let w = writers[slice] else { continue }
            try w.close()
            let rows = Int(w.rowCount)
            total += rows
            let size = (try? FileManager.default.attributesOfItem(atPath: w.path)[.size] as? Int) ?? 0
            written.append(UnloadedFile(path: w.path, bytes: size, rows: rows, slice: slice))
        }
        reservation.resize(to: 0)
        if options.manifest { try writeManifest(prefix, written, options, names: names, types: types) }
        logUnload(written, format: "Parquet", start: start)
        return StatementResult(tag: "UNLOAD", notices: ["UNLOAD completed, \(total) record(s) unloaded successfully."])
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
