// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SlicehouseTypes
import SlicehouseRuntime

/// One file an UNLOAD wrote: its path (or `s3://` address), its size and its rows (the
/// manifest's `content_length` and `record_count`).
public struct UnloadedFile: Sendable, Equatable {
    public let path: String
    public let bytes: Int
    public let rows: Int
    /// The slice whose rows the file holds (0 with PARALLEL OFF).
    public let slice: Int
    /// What a manifest names it by (`file:///…`, `s3://…`).
    public let url: String

    public init(path: String, bytes: Int, rows: Int, slice: Int = 0, url: String? = nil) {
        self.path = path
        self.bytes = bytes
        self.rows = rows
        self.slice = slice
        self.url = url ?? path
    }
}

/// Writes an UNLOAD's text, CSV or JSON files as the query's rows arrive, in bounded
/// memory.
///
/// Rows go to a file set per (slice, partition folder): `<prefix><folder><name>` with the
/// name `SSSS_part_PP` (PARALLEL ON, slice and part) or `PPP` (PARALLEL OFF). Each set
/// formats its rows into a buffer; every `flushBytes` of formatted text is compressed
/// (GZIP, BZIP2, ZSTD: one gzip member, bzip2 stream or zstd frame per flush) and
/// appended to the set's current file. Concatenated members are one valid file to
/// every decoder, COPY's included. A file ends once the text written to it reaches
/// MAXFILESIZE (uncompressed, counted after each chunk); the set's next rows start the
/// next part, with the header again when HEADER is on. When all buffers together pass
/// `maxBufferedBytes` (many partition folders), every buffer is written out.
///
/// The files go to an `UnloadStore` (local files, S3 objects). The buffers are reserved
/// from the statement's memory (by force: they are small and bounded).
public final class UnloadWriter {
    /// Formatted bytes a file set buffers before compressing and writing them.
    public let flushBytes: Int
    /// Formatted bytes all file sets together buffer before every buffer is written.
    public let maxBufferedBytes: Int

    private final class FileSet {
        let slice: Int
        let folder: String
        var part = 0
        var buffer: [UInt8] = []
        /// The current file's name (under the prefix) once its first bytes are written, else "".
        var path = ""
        /// Text written to the current file (before compression), not counting `buffer`.
        var textBytes = 0
        /// Bytes on disk of the current file.
        var diskBytes = 0
        var rows = 0
        var files: [UnloadedFile] = []
        init(slice: Int, folder: String) { self.slice = slice; self.folder = folder }
    }

    private let store: any UnloadStore
    private let formatter: UnloadFormatter
    private let options: UnloadOptions
    private let reservation: MemoryReservation?
    private var sets: [FileSet] = []
    private var setIndex: [String: Int] = [:]
    private var buffered = 0
    /// Rows written (or buffered) so far.
    public private(set) var rowCount = 0

    /// - Parameters:
    ///   - store: where the files go (under the destination prefix).
    ///   - formatter: formats the columns that go in the files.
    ///   - reservation: the statement's memory the buffers are counted in, if any.
    ///   - flushBytes, maxBufferedBytes: the buffer sizes (smaller ones in tests).
    public init(store: any UnloadStore, formatter: UnloadFormatter, reservation: MemoryReservation?,
                flushBytes: Int = 4 << 20, maxBufferedBytes: Int = 32 << 20) {
        self.flushBytes = max(1, flushBytes)
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        self.store = store
        self.formatter = formatter
        self.options = formatter.options
        self.reservation = reservation
    }

    /// Append the rows of `chunk` (the file's columns) to the files of `slice` under
    /// `folder` ("" or `name=value/...`).
    public func append(_ chunk: Chunk, slice: Int, folder: String) throws {
        if chunk.count == 0 { return }
        let set = fileSet(slice: slice, folder: folder)
        let before = set.buffer.count
        if set.textBytes == 0 && set.buffer.isEmpty && options.header { set.buffer = formatter.header() }
        set.rows += formatter.append(chunk, into: &set.buffer)
        rowCount += chunk.count
        buffered += set.buffer.count - before
        if set.textBytes + set.buffer.count >= options.maxFileSize {
            try endFile(set)
        } else if set.buffer.count >= flushBytes {
            try flush(set)
        }
        if buffered > maxBufferedBytes {
            for s in sets where !s.buffer.isEmpty { try flush(s) }
        }
        reservation?.resize(to: buffered)
    }

    /// End every file and return them all, in slice order, then folder order of first
    /// rows, then part order. With no rows at all, one empty file (the header only, when
    /// HEADER is on) is written as slice 0's first.
    public func finish() throws -> [UnloadedFile] {
        for s in sets where !s.buffer.isEmpty || !s.path.isEmpty { try endFile(s) }
        if sets.allSatisfy({ $0.files.isEmpty }) {
            let s = fileSet(slice: 0, folder: "")
            if options.header { s.buffer = formatter.header() }
            try flush(s, evenIfEmpty: true)
            try endFile(s)
        }
        reservation?.resize(to: 0)
        let ordered = sets.enumerated().sorted { ($0.element.slice, $0.offset) < ($1.element.slice, $1.offset) }
        return ordered.flatMap { $0.element.files }
    }

    private func fileSet(slice: Int, folder: String) -> FileSet {
        let key = "\(slice)/\(folder)"
        if let i = setIndex[key] { return sets[i] }
        let s = FileSet(slice: slice, folder: folder)
        setIndex[key] = sets.count
        sets.append(s)
        return s
    }

    private func fileName(_ s: FileSet) -> String {
        let name = options.parallel ? String(format: "%04d_part_%02d", s.slice, s.part) : String(format: "%03d", s.part)
        return s.folder + options.fileNamePrefix + name + options.fileSuffix
    }

    /// Compress the set's buffer and append it to its current file (created on its first write).
    private func flush(_ s: FileSet, evenIfEmpty: Bool = false) throws {
        if s.buffer.isEmpty && !evenIfEmpty { return }
        if s.path.isEmpty { s.path = fileName(s) }
        let bytes = try formatter.compress(s.buffer)
        try store.append(bytes, to: s.path)
        s.textBytes += s.buffer.count
        s.diskBytes += bytes.count
        buffered -= s.buffer.count
        s.buffer = []
    }

    /// Write what is buffered and close the set's current file; its next rows start the next part.
    private func endFile(_ s: FileSet) throws {
        try flush(s)
        guard !s.path.isEmpty else { return }
        try store.finish(s.path)
        s.files.append(UnloadedFile(path: store.displayName(s.path), bytes: s.diskBytes, rows: s.rows, slice: s.slice,
                                    url: store.url(s.path)))
        s.part += 1
        s.path = ""
        s.textBytes = 0
        s.diskBytes = 0
        s.rows = 0
    }
}
