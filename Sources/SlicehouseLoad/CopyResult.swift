// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SlicehouseTypes

/// What a successful COPY parsed.
public struct CopyResult: Sendable {
    /// The loaded rows, in file order (files sorted by path, rows in file order).
    /// Each chunk has one vector per *loaded* column, in `columnIndices` order, with the
    /// column's exact `DataType` and physical representation; no selection vectors.
    public var chunks: [Chunk]
    /// For each vector of a chunk: the index of its column in the table's column list.
    /// Without a COPY column list this is `0..<columns.count`; with one it is the listed
    /// columns in list order — the engine fills the other columns (DEFAULT / IDENTITY / NULL).
    public var columnIndices: [Int]
    /// Rows loaded (sum of the chunks' counts).
    public var rowCount: Int
    /// Rows skipped under MAXERROR, in file order (for STL_LOAD_ERRORS); at most
    /// `CopyOptions.maxErrorLimit` records are kept.
    public var rejected: [LoadError]
    /// Total rows skipped (can exceed `rejected.count` with IGNOREALLERRORS).
    public var rejectedCount: Int
    /// The files read, in load order.
    public var files: [String]
    /// Input bytes read (after decompression).
    public var bytesRead: Int
    /// For each of `files`: the lines read from it (header lines included; Parquet: its rows).
    public var fileLines: [Int]
    /// For each of `files`: how it was read (STL_FILE_SCAN).
    public var fileScans: [FileScan]
    /// Parquet row groups left unread because their statistics rule out every row asked for
    /// (an external table's scan).
    public var rowGroupsSkipped = 0

    public init(chunks: [Chunk], columnIndices: [Int], rowCount: Int, rejected: [LoadError],
                rejectedCount: Int, files: [String], bytesRead: Int, fileLines: [Int] = [], fileScans: [FileScan] = []) {
        self.chunks = chunks; self.columnIndices = columnIndices; self.rowCount = rowCount
        self.rejected = rejected; self.rejectedCount = rejectedCount; self.files = files; self.bytesRead = bytesRead
        self.fileLines = fileLines.count == files.count ? fileLines : Array(repeating: 0, count: files.count)
        self.fileScans = fileScans.count == files.count ? fileScans : Array(repeating: FileScan(), count: files.count)
    }
}

/// How one input of a COPY was read: its bytes (on disk or on S3, before decompression),
/// the time spent parsing it (summed over its ranges, which run on several workers), when
/// the first of them started, and how many ranges it was cut into.
public struct FileScan: Sendable, Equatable {
    public var bytes = 0
    public var micros: Int64 = 0
    /// Microseconds since the epoch (`Clock.nowMicros`); 0 when nothing was parsed.
    public var startMicros: Int64 = 0
    public var ranges = 0

    public init() {}

    mutating func add(start: Int64, micros: Int64) {
        if startMicros == 0 || start < startMicros { startMicros = start }
        self.micros += micros
        ranges += 1
    }
}

/// Knobs for how a COPY is parallelised (defaults suit normal use; tests shrink them).
public struct CopyTuning: Sendable {
    /// Target rows per output chunk.
    public var chunkRows: Int
    /// Byte size at which files are cut into ranges parsed in parallel
    /// (nil: chosen from the total input size and the worker count, at least 1 MB).
    public var rangeBytes: Int?
    /// Worker threads.
    public var workers: Int
    /// Input bytes parsed together before their rows are handed on (a *piece*; nil:
    /// 32 MB per worker). A COPY holds at most about two pieces of parsed rows: one
    /// handed on while the next is parsed.
    public var pieceBytes: Int?

    public init(chunkRows: Int = 65_536, rangeBytes: Int? = nil, workers: Int? = nil, pieceBytes: Int? = nil) {
        self.chunkRows = chunkRows
        self.rangeBytes = rangeBytes
        self.workers = max(1, workers ?? CopyTuning.processorCount)
        self.pieceBytes = pieceBytes
    }

    /// Input bytes of one piece.
    var piece: Int { max(1, pieceBytes ?? workers * (16 << 20)) }

    static var processorCount: Int {
        #if canImport(Darwin) || canImport(Glibc)
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }
}
