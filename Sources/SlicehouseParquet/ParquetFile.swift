// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Where a column chunk's pages are and what they hold, from the footer.
public struct ParquetColumnChunkInfo: Sendable {
    /// nil for a codec number this reader does not know.
    public let codec: ParquetCodec?
    /// Encodings used by the chunk's pages (unknown numbers are left out).
    public let encodings: [ParquetEncoding]
    public let numValues: Int64
    public let compressedSize: Int64
    public let uncompressedSize: Int64
    public let statistics: ParquetStatistics?
}

/// One row group: its size and, per top-level column, its column chunk.
public struct ParquetRowGroupInfo: Sendable {
    public let numRows: Int
    public let totalByteSize: Int64
    /// Indexed like `ParquetFile.columns`; nil for nested columns.
    public let columns: [ParquetColumnChunkInfo?]
}

/// Why a row group could not be decoded, in parts a loader can record
/// (`STL_LOAD_ERRORS`): the file, the column, and for a value that does not fit its
/// column (`isValueError`) the row and the value.
public struct ParquetReadError: Error, Sendable, CustomStringConvertible {
    public let file: String
    /// Name of the top-level column, when the problem is in one.
    public let column: String?
    public let columnIndex: Int?
    /// 0-based row within the file of the value that failed, when known.
    public let row: Int64?
    /// The value that failed, as text (at most 1024 bytes), when known.
    public let value: String?
    public let code: SQLError.Code
    /// What went wrong, without the file and column.
    public let reason: String
    public let detail: String?

    public init(file: String, column: String? = nil, columnIndex: Int? = nil, row: Int64? = nil, value: String? = nil,
                code: SQLError.Code, reason: String, detail: String? = nil) {
        self.file = file; self.column = column; self.columnIndex = columnIndex; self.row = row; self.value = value
        self.code = code; self.reason = reason; self.detail = detail
    }

    /// A value that does not fit its column (out of range, too long, invalid UTF-8), as
    /// opposed to a file that cannot be read or a column that cannot be converted at all.
    public var isValueError: Bool {
        code == .numericOutOfRange || code == .stringTooLong || code == .invalidText
    }

    /// The user-facing error: `Parquet file '…', column "…": reason`.
    public var sqlError: SQLError {
        let where_ = column.map { "Parquet file '\(file)', column \"\($0)\"" } ?? "Parquet file '\(file)'"
        return SQLError(code, "\(where_): \(reason)", detail: detail)
    }

    public var description: String { sqlError.message }
}

/// A Parquet file opened for reading.
///
/// Opening maps the file and parses its footer; nothing else is read until
/// `readRowGroup` decodes the requested columns of one row group. The value is
/// immutable and `Sendable`, so different row groups can be decoded on different
/// threads at the same time.
///
/// Every error is an `SQLError` naming the file, and the column where there is one.
/// Corrupt or truncated files produce errors, never crashes.
public struct ParquetFile: Sendable {
    /// The path (or the name given for in-memory data), used in error messages.
    public let path: String
    public let schema: ParquetSchema
    public let numRows: Int64
    public let createdBy: String?
    public let keyValueMetadata: [ParquetKeyValue]
    public let rowGroups: [ParquetRowGroupInfo]

    private let bytes: FileBytes
    private let metadata: FileMetaData

    /// The 4-byte magic at both ends of a Parquet file.
    static let magic: [UInt8] = Array("PAR1".utf8)
    /// Files with an encrypted footer end with this instead.
    static let encryptedMagic: [UInt8] = Array("PARE".utf8)

    /// Open the file at `path`.
    public init(path: String) throws {
        try self.init(bytes: try FileBytes(path: path), name: path)
    }

    /// Read a Parquet file held in memory; `name` stands for it in error messages.
    public init(bytes: [UInt8], name: String = "<memory>") throws {
        try self.init(bytes: FileBytes(bytes: bytes), name: name)
    }

    /// Open a file read by ranges (an S3 object): only its footer is read now, and each
    /// row group's column chunks when it is decoded (and let go after).
    public init(source: any ParquetByteSource) throws {
        let bytes = try FileBytes(source: source)
        let n = source.size
        if n >= 12 {
            // The footer's usual size at once; a longer one with a second read.
            let tail = min(n, 64 << 10)
            try bytes.fetch((n - tail)..<n)
            let length = Int(bytes.buffer.loadUnaligned(fromByteOffset: n - 8, as: UInt32.self).littleEndian)
            if length + 8 > tail, length <= n - 12 { try bytes.fetch((n - 8 - length)..<(n - tail)) }
            try bytes.fetch(0..<4)
        }
        try self.init(bytes: bytes, name: source.name)
    }

    private init(bytes: FileBytes, name: String) throws {
        self.path = name
        self.bytes = bytes
        do {
            metadata = try Self.readFooter(bytes.buffer)
            schema = try ParquetSchema(elements: metadata.schema)
            for (i, g) in metadata.rowGroups.enumerated() {
                guard g.numRows >= 0 else { throw ParquetError.corrupt("row group \(i) has \(g.numRows) rows") }
                guard g.columns.count == schema.leafCount else {
                    throw ParquetError.corrupt("row group \(i) has \(g.columns.count) column chunks for \(schema.leafCount) columns")
                }
            }
        } catch {
            throw SQLError.parquet(error, file: name)
        }
        numRows = metadata.numRows
        createdBy = metadata.createdBy
        keyValueMetadata = metadata.keyValueMetadata
        let schema = self.schema
        rowGroups = metadata.rowGroups.map { g in
            ParquetRowGroupInfo(
                numRows: Int(g.numRows),
                totalByteSize: g.totalByteSize,
                columns: schema.columns.map { c -> ParquetColumnChunkInfo? in
                    guard !c.isNested, let m = g.columns[c.leafIndex].metaData else { return nil }
                    let signed: Bool
                    switch c.physicalType {
                    case .int32, .int64, .float, .double, .boolean: signed = true
                    default: signed = false
                    }
                    return ParquetColumnChunkInfo(
                        codec: ParquetCodec(rawValue: m.codec),
                        encodings: m.encodings.compactMap(ParquetEncoding.init(rawValue:)),
                        numValues: m.numValues,
                        compressedSize: m.totalCompressedSize,
                        uncompressedSize: m.totalUncompressedSize,
                        statistics: m.statistics?.resolved(signedOrder: signed))
                })
        }
    }

    /// Top-level columns.
    public var columns: [ParquetColumn] { schema.columns }

    public var rowGroupCount: Int { rowGroups.count }

    /// Parse the footer: check both magics, find the metadata length before the final
    /// magic, and decode the metadata that precedes it.
    static func readFooter(_ buf: UnsafeRawBufferPointer) throws -> FileMetaData {
        let n = buf.count
        guard n >= 12 else { throw ParquetError("not a Parquet file (only \(n) bytes)") }
        let tail = Array(buf[(n - 4)..<n])
        if tail == encryptedMagic {
            throw ParquetError.unsupported("encrypted Parquet files")
        }
        guard Array(buf[0..<4]) == magic, tail == magic else {
            throw ParquetError("not a Parquet file (missing PAR1 magic bytes)")
        }
        let length = Int(buf.loadUnaligned(fromByteOffset: n - 8, as: UInt32.self).littleEndian)
        guard length > 0, length <= n - 12 else {
            throw ParquetError.corrupt("footer length \(length) does not fit a file of \(n) bytes")
        }
        let footer = UnsafeRawBufferPointer(rebasing: buf[(n - 8 - length)..<(n - 8)])
        var r = ThriftReader(footer)
        return try FileMetaData.read(&r)
    }

    /// Decode `columns` (indices into `self.columns`) of row group `index`, converting
    /// each to the matching type of `types`. Returns one vector per column, with as many
    /// rows as the row group has. Errors are `SQLError`s naming the file and column.
    public func readRowGroup(_ index: Int, columns: [Int], as types: [DataType],
                             options: ParquetReadOptions = ParquetReadOptions()) throws -> [Vector] {
        do {
            return try decodeRowGroup(index, columns: columns, as: types, options: options)
        } catch let e as ParquetReadError {
            throw e.sqlError
        }
    }

    /// `readRowGroup` for loaders that record what failed: every problem with the file's
    /// data is a `ParquetReadError`, which for a value that does not fit its column also
    /// gives the row (within the file) and the value. (Asking for a row group or column
    /// the file does not have is an `SQLError`, as with `readRowGroup`.)
    public func decodeRowGroup(_ index: Int, columns: [Int], as types: [DataType],
                               options: ParquetReadOptions = ParquetReadOptions()) throws -> [Vector] {
        guard index >= 0, index < metadata.rowGroups.count else {
            throw SQLError(.invalidParameter, "Parquet file '\(path)' has no row group \(index) (it has \(metadata.rowGroups.count))")
        }
        guard columns.count == types.count else {
            throw SQLError.internalError("readRowGroup: \(columns.count) columns but \(types.count) types")
        }
        let group = metadata.rowGroups[index]
        // A file read by ranges: this group's column chunks, fetched for the decode and let go after.
        let span = bytes.source == nil ? nil : Self.span(of: group, fileSize: bytes.buffer.count)
        if let span { try bytes.fetch(span) }   // its failure (S3's) is the statement's, as it is
        defer { if let span { bytes.release(span) } }
        let scratch = DecodeScratch()
        var out: [Vector] = []
        out.reserveCapacity(columns.count)
        for (k, ci) in columns.enumerated() {
            guard ci >= 0, ci < schema.columns.count else {
                throw SQLError(.invalidParameter, "Parquet file '\(path)' has no column \(ci) (it has \(schema.columns.count))")
            }
            let column = schema.columns[ci]
            do {
                out.append(try readColumn(column, group: group, as: types[k], options: options, scratch: scratch))
            } catch let e as ParquetError {
                var row: Int64? = nil
                if let r = e.row { row = firstRow(ofRowGroup: index) + Int64(r) }
                throw ParquetReadError(file: path, column: column.name, columnIndex: ci, row: row, value: e.value,
                                       code: e.code, reason: e.message)
            } catch let e as SQLError {
                throw ParquetReadError(file: path, column: column.name, columnIndex: ci, code: e.code, reason: e.message,
                                       detail: e.detail)
            } catch {
                throw ParquetReadError(file: path, column: column.name, columnIndex: ci, code: .loadError, reason: "\(error)")
            }
        }
        return out
    }

    /// The bytes from the first column chunk of `group` to the end of its last (inside the
    /// file; a chunk that points outside is reported when it is decoded).
    static func span(of group: RowGroup, fileSize: Int) -> Range<Int>? {
        var lo = Int64.max, hi = Int64.min
        for c in group.columns {
            guard let m = c.metaData else { continue }
            var start = m.dataPageOffset
            if let d = m.dictionaryPageOffset, d > 0, d < start { start = d }
            let (end, overflow) = start.addingReportingOverflow(m.totalCompressedSize)
            guard start >= 0, !overflow else { continue }
            lo = min(lo, start); hi = max(hi, end)
        }
        guard lo < hi else { return nil }
        let a = Int(clamping: lo), b = Int(clamping: min(hi, Int64(fileSize)))
        return a < b ? a..<b : nil
    }

    /// Rows in the row groups before `index`.
    public func firstRow(ofRowGroup index: Int) -> Int64 {
        var n: Int64 = 0
        for g in metadata.rowGroups.prefix(max(0, index)) {
            let (sum, overflow) = n.addingReportingOverflow(g.numRows)
            n = overflow ? .max : sum   // only a forged footer gets here
        }
        return n
    }

    private func readColumn(_ column: ParquetColumn, group: RowGroup, as type: DataType,
                            options: ParquetReadOptions, scratch: DecodeScratch) throws -> Vector {
        if column.isNested || type == .superType {
            // Record assembly into JSON: a path of its own, so flat columns pay nothing for it.
            return try readNestedColumn(column, group: group, as: type, options: options, scratch: scratch)
        }
        let chunk = group.columns[column.leafIndex]
        if chunk.encrypted { throw ParquetError.unsupported("encrypted Parquet columns") }
        if let p = chunk.filePath, !p.isEmpty { throw ParquetError.unsupported("column data in another file ('\(p)')") }
        guard let meta = chunk.metaData else { throw ParquetError.corrupt("column chunk without metadata") }
        if meta.type != column.physicalTypeRaw {
            throw ParquetError.corrupt("column chunk type #\(meta.type) differs from the schema")
        }
        let plan = try ConversionPlan(column: column, target: type, options: options)
        let rows = Int(group.numRows)
        // An empty row group may not even point at pages (pyarrow writes offset 0).
        if rows == 0 { return Vector(type: type) }
        let region = try chunkRegion(meta)
        let decoder = ColumnDecoder(column: column, plan: plan, expectedRows: rows, scratch: scratch)
        return try decoder.decode(chunk: region, codec: meta.codec)
    }

    /// The bytes of a column chunk: from its dictionary page (or first data page) for its
    /// compressed size, inside the file's data area.
    func chunkRegion(_ m: ColumnMetaData) throws -> UnsafeRawBufferPointer {
        var start = m.dataPageOffset
        if let d = m.dictionaryPageOffset, d > 0, d < start { start = d }
        let length = m.totalCompressedSize
        let fileSize = Int64(bytes.buffer.count)
        guard start >= 4, length >= 0, start <= fileSize, length <= fileSize - start else {
            throw ParquetError.corrupt("column chunk at offset \(start) with \(length) bytes lies outside the file")
        }
        return UnsafeRawBufferPointer(rebasing: bytes.buffer[Int(start)..<Int(start + length)])
    }

    /// Every row of `columns`, all row groups concatenated (convenience for small files
    /// and tests; COPY reads row group by row group).
    public func readAll(columns: [Int], as types: [DataType], options: ParquetReadOptions = ParquetReadOptions()) throws -> [Vector] {
        var out = types.map { Vector(type: $0) }
        for g in 0..<rowGroupCount {
            let part = try readRowGroup(g, columns: columns, as: types, options: options)
            for i in out.indices { out[i].append(part[i]) }
        }
        return out
    }
}
