// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseLoad
import SlicehouseStorage
import SlicehousePlatform

/// How far a running COPY has got: what a progress display shows
/// (`COPY lineitem: 3.1 GB/7.6 GB read, 2,345,000 rows`).
public struct CopyProgress: Sendable, Equatable {
    /// The table being loaded.
    public var table: String
    /// Input bytes processed so far, and what that reaches at the end (text formats: bytes
    /// after decompression; Parquet: the column chunks' bytes).
    public var bytesRead: Int64
    public var totalBytes: Int64
    /// Rows parsed so far.
    public var rows: Int

    public init(table: String, bytesRead: Int64, totalBytes: Int64, rows: Int) {
        self.table = table; self.bytesRead = bytesRead; self.totalBytes = totalBytes; self.rows = rows
    }
}

/// The COPY statement: a load from files (a local path prefix, `file://`, a manifest) into
/// a table, parsed piece by piece in parallel, placed on the slices as it goes, committed
/// with the statement. It receives what it needs — the session (the table's lock, the
/// user's privileges and server-file access, the transaction, STL logs) and the
/// statement's runtime context (its memory, cancellation and worker-pool share) — and
/// is all of COPY: `Session.perform` only dispatches to it.
struct CopyCommand {
    let session: Session
    let context: QueryContext

    /// `COPY t [(cols)] FROM 'path' [options]`: one statement, one commit. On a
    /// rejected row (beyond MAXERROR) nothing is stored and the rejected rows are
    /// recorded in STL_LOAD_ERRORS.
    func run(_ c: Copy) throws -> StatementResult {
        let database = session.database
        let transaction = session.transaction
        let writer = TableWriter(session: session, context: context)
        let table = try session.lockedTable(c.table, location: c.location)
        try session.access.requirePrivilege(.insert, on: table)
        let options = try CopyOptions(options: c.options.map { (name: $0.name, value: $0.stringValue) })
        let queryID = session.newQueryID(context)
        let s3 = S3Access(session: session, context: context)
        defer { s3.logRequests(query: queryID) }
        let start = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let result: CopyResult
        var progress: LoadProgressHandler? = nil
        if let report = session.copyProgress {
            let name = table.name
            progress = { p in
                report(CopyProgress(table: name, bytesRead: p.bytesRead, totalBytes: p.totalBytes, rows: p.rows))
            }
        }
        // The rows go to the table's slices piece by piece as they are parsed, encoded into
        // blocks of the statement's sink (invisible until commit; removed if the COPY fails).
        let targets = try CopyLoader.resolveColumns(table: table.name, columns: table.columns,
                                                    columnList: c.columns.isEmpty ? nil : c.columns)
        var appender: TableAppender? = nil
        var sink: BlockSink? = nil
        var def = table
        let statUpdate = options.statUpdate?.uppercased()
        let statisticsOn = statUpdate == "ON" || statUpdate == "TRUE"
        let statisticsOff = statUpdate == "OFF" || statUpdate == "FALSE"
        // STATUPDATE's default: a table empty before the load gets the statistics of the
        // rows it loads, counted as they go by (Redshift analyzes it at the end of the COPY).
        var statistics: Analyzer.LoadStatistics? = nil
        if !options.noLoad {
            let (d, base) = try transaction.beginWrite(table.qualifiedName, reads: false)
            def = d
            let s = transaction.newSink()
            sink = s
            appender = makeAppender(onto: base, of: d, sink: s)
            if !statisticsOn && !statisticsOff && base.rowCount == 0 {
                statistics = Analyzer.LoadStatistics(columns: d.columns.count, context: context)
            }
        }
        do {
            result = try CopyLoader.stream(table: table.name, columns: table.columns,
                                           columnList: c.columns.isEmpty ? nil : c.columns,
                                           source: c.source, options: options, tuning: CopyTuning(pieceBytes: database.copyPieceBytes),
                                           inputs: CopyInputs(access: database.serverFiles.access(for: session.user, in: session.security),
                                                              s3: s3.connection(
                                                                authorization: options.authorization, region: options.region)),
                                           progress: progress, context: context) { chunks in
                guard let appender else { return }
                let rows = try writer.completeRows(def, targets: targets, provided: chunks)
                try statistics?.add(rows)
                try appender.add(rows)
            }
            if let appender {
                var loaded = try appender.finish()
                if let statistics {
                    loaded.analyzed = statistics.analyzed(loaded)
                    // The table was empty: every block is new.
                    database.cache.noteWritten(loaded.slices.flatMap { $0.columns.flatMap { $0.map(\.uid) } })
                }
                transaction.stage(def.id, loaded)
            }
        } catch let e as LoadError {
            sink?.discard()
            database.log(.loadErrors, (e.earlierRejections + [e]).map { loadErrorRow($0, table, queryID, start) })
            session.lastCopyID = queryID
            session.lastCopyCount = 0
            throw e.asSQLError()
        } catch {
            sink?.discard()
            throw error
        }
        database.log(.loadErrors, result.rejected.map { loadErrorRow($0, table, queryID, start) })
        logLoadCommits(result, options, table, queryID)
        if !options.noLoad && statisticsOn {
            // STATUPDATE ON: the whole table analyzed (it may have held rows before), the
            // statistics committed with the rows.
            try database.analyzer.analyze(table.qualifiedName, columns: Array(table.columns.indices), transaction: transaction,
                                          context: context)
        }
        session.lastCopyID = queryID
        session.lastCopyCount = options.noLoad ? 0 : result.rowCount
        var notices: [String] = []
        if result.rejectedCount > 0 {
            notices.append("Load into table '\(table.name)' completed, \(result.rowCount) record(s) loaded successfully, \(result.rejectedCount) record(s) could not be loaded.  Check 'stl_load_errors' system table for details.")
        } else if options.noLoad {
            notices.append("Load into table '\(table.name)' completed, \(result.rowCount) record(s) checked (NOLOAD), nothing stored.")
        } else {
            notices.append("Load into table '\(table.name)' completed, \(result.rowCount) record(s) loaded successfully.")
        }
        return StatementResult(tag: "COPY \(session.lastCopyCount)", notices: notices)
    }

    /// A streaming append of rows to `table` (see `TableAppender`): the statement's memory
    /// bounds what it holds, as `placeRows` would place them all at once.
    private func makeAppender(onto base: TableSnapshot, of table: TableDef, sink: BlockSink) -> TableAppender {
        let database = session.database
        return TableAppender(snapshot: base, table: table, layout: database.layout, sink: sink,
                      sorter: TableWriter.sorter(for: table), blockBytes: database.blockBytes,
                      readBlock: { [cache = database.cache] b, t in try cache.vector(b, type: t) },
                      runBytes: database.copyRunBytes ?? TableAppender.defaultRunBytes,
                      gatherRows: database.copyGatherRows ?? ReorderPlan.pieceRows,
                      context: context, existing: { [database] snap, slice in
            try SliceScanner.readAll([(slice, snap.slices[slice])], types: table.columns.map { $0.type },
                                     cache: database.cache)
        })
    }

    /// STL_LOAD_ERRORS' row for a rejected record.
    private func loadErrorRow(_ e: LoadError, _ table: TableDef, _ query: Int, _ start: Int64) -> [Value] {
        [.int(Int64(session.currentUserID)), .int(0), .int(Int64(table.id)), .int(start), .int(Int64(session.process)),
         .int(Int64(query)),
         .string(e.file), .int(Int64(e.line)), .string(e.column), .string(e.columnType), .string(String(e.columnLength)),
         .int(Int64(e.position)), .string(String(e.rawLine.prefix(1024))), .string(String(e.rawFieldValue.prefix(1024))),
         .int(Int64(e.code.rawValue)), .string(String(e.reason.prefix(100))), .int(0), .int(0), .int(0)]
    }

    /// STL_LOAD_COMMITS' rows: one per file the COPY loaded.
    private func logLoadCommits(_ result: CopyResult, _ options: CopyOptions, _ table: TableDef, _ query: Int) {
        let format: String
        switch options.format {
        case .parquet: format = "Parquet"
        case .json: format = "JSON"
        default: format = "Text"
        }
        let now = Clock.nowMicros()
        let userID = session.currentUserID
        session.database.log(.fileScan, result.files.enumerated().map { i, file -> [Value] in
            let scan = result.fileScans[i]
            return [.int(Int64(userID)), .int(Int64(query)), .int(0), .string(String(file.prefix(90))),
                    .int(Int64(result.fileLines[i])), .int(Int64(scan.bytes)), .int(scan.micros),
                    .int(scan.startMicros == 0 ? now : scan.startMicros), .int(scan.ranges > 1 ? 1 : 0), .int(0)]
        })
        session.database.log(.loadCommits, result.files.enumerated().map { i, file -> [Value] in
            [.int(Int64(userID)), .int(Int64(query)), .int(0), .string(table.name), .string(file), .int(0),
             .int(Int64(result.fileLines[i])), .int(0), .int(now), .int(1), .string(format), .int(0), .int(0), .int(0)]
        })
    }
}
