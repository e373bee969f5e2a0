// SPDX-License-Identifier: Apache-2.0
import Foundation

/// TPC-H data generation, byte for byte identical to TPC's `dbgen`.
///
/// ```swift
/// let generator = TPCHGenerator(scaleFactor: 1)
/// let bytes = try generator.generate(.nation)                     // in memory
/// let summary = try generator.writeTables(TPCHTable.allCases, to: "/data/tpch")
/// ```
///
/// Tables are generated in chunks of *generation units* (rows; parts for
/// partsupp; orders for lineitem). Every chunk starts its random streams by
/// skip-ahead, so chunks are produced concurrently on `threadCount` threads
/// and written in order. Parts (`part` of `parts`) are dbgen's `-C parts -S
/// part` split: `units / parts` units each, the remainder going to the last.
///
/// The first call that generates rows builds the 300 MiB text pool that all
/// comments are cut from (about a second with optimizations); it is shared by
/// every generator in the process.
public struct TPCHGenerator: Sendable {
    /// The smallest scale factor with at least one supplier.
    public static let minimumScaleFactor = 0.0001
    /// The largest scale factor TPC-H defines.
    public static let maximumScaleFactor = 100_000.0

    public let scaleFactor: Double
    /// Worker threads for generation (default: active processors).
    public var threadCount: Int
    /// Approximate bytes per chunk of parallel work.
    public var chunkBytes: Int = 4 << 20

    public init(scaleFactor: Double) {
        self.scaleFactor = scaleFactor
        self.threadCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Throws `invalidScaleFactor` unless the scale factor is usable.
    public func validate() throws {
        guard scaleFactor.isFinite, scaleFactor <= TPCHGenerator.maximumScaleFactor,
              ScaleContext.units(10_000, scaleFactor) >= 1 else {
            throw DatagenError.invalidScaleFactor(scaleFactor)
        }
    }

    /// Builds the shared 300 MiB text pool now (it is otherwise built by the
    /// first generation), so that later timings measure the tables alone.
    public static func prepareTextPool() {
        _ = TextPool.shared.size
    }

    // MARK: Sizes

    /// Generation units of a table: rows, except partsupp (parts; four rows
    /// each) and lineitem (orders; one to seven rows each).
    public func unitCount(of table: TPCHTable) throws -> Int64 {
        try validate()
        return ScaleContext.units(of: table, scaleFactor: scaleFactor)
    }

    /// The units of part `part` (1-based) of `parts`: dbgen's split.
    public func units(of table: TPCHTable, part: Int, of parts: Int) throws -> Range<Int64> {
        guard parts >= 1 else { throw DatagenError.invalidPartCount(parts) }
        guard part >= 1 && part <= parts else { throw DatagenError.invalidPart(part: part, parts: parts) }
        let total = try unitCount(of: table)
        let perPart = total / Int64(parts)
        let start = perPart * Int64(part - 1)
        let count = part == parts ? perPart + total % Int64(parts) : perPart
        return start..<(start + count)
    }

    /// Rows of a table. Exact; for lineitem this draws every order's line
    /// count (fast, but proportional to the number of orders).
    public func rowCount(of table: TPCHTable) throws -> Int64 {
        let units = try unitCount(of: table)
        switch table {
        case .partsupp: return units * 4
        case .lineitem:
            var lineCount = SharedOrderStreams.lineCount()
            var rows: Int64 = 0
            for _ in 0..<units {
                rows += Int64(lineCount.next())
                lineCount.rowFinished()
            }
            return rows
        default: return units
        }
    }

    // MARK: In memory

    /// A whole table (or one part of it) as text. CSV starts with a header line.
    public func generate(_ table: TPCHTable, format: DatagenFormat = .tbl,
                         part: Int = 1, of parts: Int = 1) throws -> [UInt8] {
        let range = try units(of: table, part: part, of: parts)
        return try generate(table, units: range, format: format, includeHeader: true)
    }

    /// The rows of a range of generation units, exactly as they appear in the
    /// full table. `includeHeader` adds the CSV header line (CSV only).
    public func generate(_ table: TPCHTable, units range: Range<Int64>, format: DatagenFormat = .tbl,
                         includeHeader: Bool = false) throws -> [UInt8] {
        let layout = try format.layout()
        let available = try unitCount(of: table)
        guard range.lowerBound >= 0 && range.upperBound <= available else {
            throw DatagenError.invalidUnitRange(table: table, lower: range.lowerBound, upper: range.upperBound,
                                                available: available)
        }
        var output: [UInt8] = []
        try run(table, range: range, layout: layout, header: includeHeader && layout == .csv) { chunk in
            output.append(contentsOf: chunk.bytes)
        }
        return output
    }

    /// Streams a table (or one part of it) chunk by chunk, in order: `body`
    /// gets each chunk's bytes and row count on the calling thread while later
    /// chunks are generated in parallel. CSV starts with a header line.
    public func generate(_ table: TPCHTable, format: DatagenFormat = .tbl, part: Int = 1, of parts: Int = 1,
                         chunks body: (_ bytes: UnsafeBufferPointer<UInt8>, _ rows: Int) throws -> Void) throws {
        let layout = try format.layout()
        let range = try units(of: table, part: part, of: parts)
        try run(table, range: range, layout: layout, header: layout == .csv) { chunk in
            try body(chunk.bytes, chunk.rows)
        }
    }

    // MARK: Files

    /// The file name of a table (part), dbgen style: `lineitem.tbl`, or
    /// `lineitem.tbl.3` for part 3 when there are several parts.
    public static func fileName(for table: TPCHTable, format: DatagenFormat, part: Int = 1, of parts: Int = 1) -> String {
        let base = "\(table.rawValue).\(format.fileExtension)"
        return parts > 1 ? "\(base).\(part)" : base
    }

    /// Writes part `part` of `parts` of a table to `path`.
    public func write(_ table: TPCHTable, toFile path: String, format: DatagenFormat = .tbl,
                      part: Int = 1, of parts: Int = 1,
                      progress: ((DatagenProgress) -> Void)? = nil) throws -> DatagenTableSummary {
        let layout = try format.layout()
        let range = try units(of: table, part: part, of: parts)
        let started = ContinuousClock.now
        let file = try OutputFile(path: path)
        var rows: Int64 = 0
        var unitsDone: Int64 = 0
        let unitsPerChunk = chunkUnits(table, range.count)
        try run(table, range: range, layout: layout, header: layout == .csv) { chunk in
            try file.append(chunk)
            rows += Int64(chunk.rows)
            unitsDone = min(unitsDone + unitsPerChunk, Int64(range.count))
            progress?(DatagenProgress(table: table, part: part, parts: parts, unitsDone: unitsDone,
                                      unitsTotal: Int64(range.count), rowsWritten: rows,
                                      bytesWritten: file.bytesWritten))
        }
        try file.finish()
        return DatagenTableSummary(table: table, rows: rows, bytes: file.bytesWritten, files: [path],
                                   seconds: TPCHGenerator.seconds(since: started))
    }

    /// Writes tables into `directory` (created if missing), each as `parts`
    /// files named by `fileName(for:format:part:of:)`. REGION and NATION are
    /// never split (they are a handful of rows): they are always one file.
    public func writeTables(_ tables: [TPCHTable], to directory: String, format: DatagenFormat = .tbl,
                            parts: Int = 1,
                            progress: ((DatagenProgress) -> Void)? = nil) throws -> [DatagenTableSummary] {
        try validate()
        _ = try format.layout()
        guard parts >= 1 else { throw DatagenError.invalidPartCount(parts) }
        try OutputFile.makeDirectory(directory)
        var summaries: [DatagenTableSummary] = []
        for table in tables {
            let started = ContinuousClock.now
            let fileCount = (table == .region || table == .nation) ? 1 : parts
            var summary = DatagenTableSummary(table: table, rows: 0, bytes: 0, files: [], seconds: 0)
            for part in 1...fileCount {
                let name = TPCHGenerator.fileName(for: table, format: format, part: part, of: fileCount)
                let path = (directory as NSString).appendingPathComponent(name)
                let written = try write(table, toFile: path, format: format, part: part, of: fileCount,
                                        progress: progress)
                summary.rows += written.rows
                summary.bytes += written.bytes
                summary.files.append(path)
            }
            summary.seconds = TPCHGenerator.seconds(since: started)
            summaries.append(summary)
        }
        return summaries
    }

    // MARK: Engine

    /// Units per chunk: about `chunkBytes` of output, but small enough that
    /// every thread gets a few chunks of a small table.
    func chunkUnits(_ table: TPCHTable, _ units: Int) -> Int64 {
        let bySize = max(1, chunkBytes / ChunkGenerator.estimatedBytesPerUnit(table))
        let byThreads = max(256, (units + threadCount * 4 - 1) / (threadCount * 4))
        return Int64(max(1, min(bySize, byThreads)))
    }

    /// Generates `range` in chunks on `threadCount` threads, handing the chunks
    /// to `consume` in order on the calling thread.
    func run(_ table: TPCHTable, range: Range<Int64>, layout: RowLayout, header: Bool,
             consume: (OutputChunk) throws -> Void) throws {
        try validate()
        let context = ScaleContext(scaleFactor: scaleFactor, textPool: TextPool.shared)
        let step = chunkUnits(table, range.count)
        let chunkCount = max(1, Int((Int64(range.count) + step - 1) / step))
        let lower = range.lowerBound
        let upper = range.upperBound
        try OrderedParallel.run(count: chunkCount, workers: threadCount, window: threadCount * 2 + 2,
                                produce: { index in
                                    let start = lower + Int64(index) * step
                                    let end = min(start + step, upper)
                                    return ChunkGenerator.generate(table, context: context, units: start..<end,
                                                                   layout: layout, header: header && index == 0)
                                },
                                consume: { _, chunk in try consume(chunk) })
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
