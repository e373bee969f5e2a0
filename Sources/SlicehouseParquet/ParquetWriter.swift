// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SlicehouseTypes

/// Page compression for written files.
public enum ParquetCompression: Sendable, Equatable {
    case none, snappy, gzip, zstd

    var codec: ParquetCodec {
        switch self {
        case .none: return .uncompressed
        case .snappy: return .snappy
        case .gzip: return .gzip
        case .zstd: return .zstd
        }
    }
}

/// Writes a Parquet file (UNLOAD ... FORMAT AS PARQUET).
///
/// Files are Parquet 1.0 compatible: v1 data pages, PLAIN values (strings dictionary
/// encoded while their dictionary stays under 1 MiB), RLE definition levels, every
/// column OPTIONAL, and both legacy converted types and logical types on the schema
/// (see `ColumnLayout`). Rows are buffered until the buffered columns reach
/// `rowGroupBytes` (uncompressed), then written as one row group with min/max/null-count
/// statistics per column chunk.
///
/// Usage: `append` chunks, then `close()` to write the footer. A writer that is not
/// closed, or that failed, leaves an incomplete file behind (the caller removes it).
public final class ParquetWriter {
    public let path: String
    public let compression: ParquetCompression
    public let rowGroupBytes: Int
    /// Rows appended so far.
    public private(set) var rowCount: Int64 = 0

    private let columnTypes: [(name: String, type: DataType)]
    private let writers: [ColumnChunkWriter]
    private let sink: OutputSink
    private var rowGroups: [RowGroup] = []
    private var rowsInGroup = 0
    private var closed = false
    private var failed = false
    /// Store a CRC-32 of every page (readers can then detect damaged pages).
    var pageChecksums = true

    /// Rows appended between two checks of the row-group size.
    static let batchRows = 4096

    /// Create (or truncate) the file at `path` and write its header.
    public convenience init(path: String, columns: [(name: String, type: DataType)], compression: ParquetCompression = .snappy,
                            rowGroupBytes: Int = 32 << 20) throws {
        guard !columns.isEmpty else {
            throw SQLError(.invalidParameter, "Parquet file '\(path)': a Parquet file needs at least one column")
        }
        try self.init(output: try LocalParquetOutput(path: path), name: path, columns: columns, compression: compression,
                      rowGroupBytes: rowGroupBytes)
    }

    /// Write a file to `output` (an S3 upload, say); `name` stands for it in errors.
    public init(output: any ParquetOutput, name: String, columns: [(name: String, type: DataType)],
                compression: ParquetCompression = .snappy, rowGroupBytes: Int = 32 << 20) throws {
        let path = name
        self.path = path
        self.compression = compression
        self.rowGroupBytes = max(rowGroupBytes, 1)
        self.columnTypes = columns
        guard !columns.isEmpty else {
            throw SQLError(.invalidParameter, "Parquet file '\(path)': a Parquet file needs at least one column")
        }
        do {
            writers = try columns.map { try ColumnChunkWriter(name: $0.name, type: $0.type) }
        } catch {
            throw SQLError.parquet(error, file: path)
        }
        sink = OutputSink(output)
        do {
            try sink.write(ParquetFile.magic)
        } catch {
            throw SQLError.parquet(error, file: path)
        }
    }

    deinit {
        if !closed { sink.abandon() }
    }

    /// Append the rows of `chunk` (its columns in the writer's column order; a selection
    /// is honoured, constant vectors are expanded).
    public func append(_ chunk: Chunk) throws {
        guard !closed else { throw SQLError(.internalError, "Parquet file '\(path)' is already closed") }
        guard !failed else { throw SQLError(.internalError, "Parquet file '\(path)': an earlier write failed") }
        guard chunk.columns.count == writers.count else {
            throw SQLError.internalError("Parquet writer has \(writers.count) columns, chunk has \(chunk.columns.count)")
        }
        let c = chunk.compacted()
        let n = c.count
        var start = 0
        while start < n {
            let count = min(n - start, Self.batchRows)
            for (i, w) in writers.enumerated() {
                do {
                    try w.append(c.columns[i], from: start, count: count)
                } catch {
                    failed = true
                    throw SQLError.parquet(error, file: path, column: w.name)
                }
            }
            rowsInGroup += count
            rowCount += Int64(count)
            start += count
            if bufferedBytes >= rowGroupBytes { try flushRowGroup() }
        }
    }

    /// Bytes of the file written so far (its size once closed).
    public var bytesWritten: Int64 { sink.offset }

    /// Bytes of rows buffered for the next row group.
    public var bufferedBytes: Int { writers.reduce(0) { $0 + $1.bufferedBytes } }

    /// Write the buffered rows as a row group.
    private func flushRowGroup() throws {
        guard rowsInGroup > 0 else { return }
        var group = RowGroup()
        group.numRows = Int64(rowsInGroup)
        group.fileOffset = sink.offset
        var compressed: Int64 = 0
        for w in writers {
            do {
                let chunk = try w.flush(codec: compression.codec, checksums: pageChecksums, to: sink)
                group.totalByteSize += chunk.metaData?.totalUncompressedSize ?? 0
                compressed += chunk.metaData?.totalCompressedSize ?? 0
                group.columns.append(chunk)
            } catch {
                failed = true
                throw SQLError.parquet(error, file: path, column: w.name)
            }
        }
        group.totalCompressedSize = compressed
        group.ordinal = Int16(truncatingIfNeeded: rowGroups.count)
        rowGroups.append(group)
        rowsInGroup = 0
    }

    /// Flush the last row group, write the footer and close the file.
    public func close() throws {
        guard !closed else { return }
        guard !failed else {
            closed = true
            sink.abandon()
            throw SQLError(.ioError, "Parquet file '\(path)' is incomplete: an earlier write failed")
        }
        do {
            try flushRowGroup()
            var meta = FileMetaData()
            meta.version = 1
            var root = SchemaElement()
            root.name = "schema"
            root.numChildren = Int32(writers.count)
            meta.schema = [root] + zip(columnTypes, writers).map { c, w in w.layout.schemaElement(name: c.name) }
            meta.numRows = rowCount
            meta.rowGroups = rowGroups
            meta.createdBy = "slicehouse version 1.0.0"
            meta.typeDefinedOrderColumns = writers.count
            let footer = meta.serialized()
            try sink.write(footer)
            var tail: [UInt8] = []
            appendUInt32(UInt32(footer.count), to: &tail)
            tail.append(contentsOf: ParquetFile.magic)
            try sink.write(tail)
            try sink.close()
            closed = true
        } catch {
            closed = true
            sink.abandon()
            throw SQLError.parquet(error, file: path)
        }
    }
}

/// Where a Parquet writer's bytes go, in order: a local file (`LocalParquetOutput`), or
/// anything else that takes appended bytes — UNLOAD's upload of an S3 object.
public protocol ParquetOutput: AnyObject {
    /// Append `bytes` (the writer hands over about 1 MB at a time).
    func write(_ bytes: [UInt8]) throws
    /// Every byte has been written: the file is complete.
    func close() throws
    /// Stop without completing (the writer failed); what was written is the caller's to remove.
    func abandon()
}

/// A local file, created (or truncated) when opened.
public final class LocalParquetOutput: ParquetOutput {
    let path: String
    private var fd: Int32

    public init(path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            throw SQLError(.ioError, "could not create Parquet file '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                guard let base = raw.baseAddress else { return }
                let r = systemWrite(fd, base + done, raw.count - done)
                if r < 0 {
                    if errno == EINTR { continue }
                    throw ParquetError("write failed: \(String(cString: strerror(errno)))", code: .ioError)
                }
                done += r
            }
        }
    }

    public func close() throws {
        guard fd >= 0 else { return }
        let r = systemClose(fd)
        fd = -1
        if r != 0 { throw ParquetError("close failed: \(String(cString: strerror(errno)))", code: .ioError) }
    }

    public func abandon() {
        if fd >= 0 { _ = systemClose(fd) }
        fd = -1
    }

    deinit { abandon() }
}

/// A buffered, append-only output: what the writer writes, in pieces of about 1 MB.
final class OutputSink {
    private let output: any ParquetOutput
    private var buffer: [UInt8] = []
    /// Bytes written so far (buffered included): the file offset of the next write.
    private(set) var offset: Int64 = 0
    static let bufferSize = 1 << 20

    init(_ output: any ParquetOutput) {
        self.output = output
        buffer.reserveCapacity(Self.bufferSize)
    }

    func write(_ bytes: [UInt8]) throws {
        offset += Int64(bytes.count)
        if buffer.count + bytes.count > Self.bufferSize {
            try drain()
            if bytes.count >= Self.bufferSize {
                try output.write(bytes)
                return
            }
        }
        buffer.append(contentsOf: bytes)
    }

    private func drain() throws {
        if buffer.isEmpty { return }
        try output.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        try drain()
        try output.close()
    }

    /// Stop without flushing (the file is left incomplete).
    func abandon() { output.abandon() }
}

// The C library's write/close, named apart from the methods above.
#if canImport(Glibc)
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Glibc.write(fd, p, n) }
private func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
#elseif canImport(Darwin)
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Darwin.write(fd, p, n) }
private func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
#endif
