// SPDX-License-Identifier: Apache-2.0
/// Walks the pages of one column chunk: parses each page header, bounds-checks the body
/// against the chunk, verifies its CRC-32 when the header has one, and decompresses it
/// into scratch space.
///
/// For dictionary pages and v1 data pages the whole body is one compressed block. A v2
/// data page keeps its repetition and definition levels uncompressed in front of the
/// (possibly) compressed values, so they are handed out separately. Index pages and page
/// kinds this reader does not know are skipped.
struct PageReader {
    struct Page {
        enum Kind {
            case dictionary(DictionaryPageHeader)
            case dataV1(DataPageHeaderV1)
            case dataV2(DataPageHeaderV2)
        }
        var kind: Kind
        /// Dictionary and v1 pages: the decompressed body. v2 pages: the values section.
        var body: UnsafeRawBufferPointer
        /// v2 pages only: the definition-level section (RLE, no length prefix).
        var definitionLevels: UnsafeRawBufferPointer
        /// v2 pages only: the repetition-level section.
        var repetitionLevels: UnsafeRawBufferPointer
    }

    private let chunk: UnsafeRawBufferPointer
    private var position = 0
    let codec: ParquetCodec
    private let scratch: DecodeScratch

    init(chunk: UnsafeRawBufferPointer, codec raw: Int32, scratch: DecodeScratch) throws {
        guard let codec = ParquetCodec(rawValue: raw) else {
            throw ParquetError.unsupported("compression codec #\(raw)")
        }
        self.chunk = chunk
        self.codec = codec
        self.scratch = scratch
    }

    /// The next dictionary or data page, or nil at the end of the chunk. The page's
    /// buffers stay valid until the next call.
    mutating func next() throws -> Page? {
        while position < chunk.count {
            var r = ThriftReader(UnsafeRawBufferPointer(rebasing: chunk[position...]))
            let header = try PageHeader.read(&r)
            position += r.position
            let size = Int(header.compressedPageSize)
            guard size <= chunk.count - position else {
                throw ParquetError.corrupt("page of \(size) bytes runs past the end of its column chunk")
            }
            let payload = UnsafeRawBufferPointer(rebasing: chunk[position..<(position + size)])
            position += size
            if let crc = header.crc, PageCompression.crc32(payload) != UInt32(bitPattern: crc) {
                throw ParquetError.corrupt("page checksum mismatch")
            }
            let uncompressed = Int(header.uncompressedPageSize)
            guard uncompressed <= maxPageBytes else {
                throw ParquetError.corrupt("page claims \(uncompressed) uncompressed bytes")
            }
            let empty = UnsafeRawBufferPointer(start: nil, count: 0)
            switch PageType(rawValue: header.type) {
            case .dictionaryPage:
                guard let d = header.dictionaryPage else { throw ParquetError.corrupt("dictionary page without its header") }
                return Page(kind: .dictionary(d), body: try inflate(payload, size: uncompressed),
                            definitionLevels: empty, repetitionLevels: empty)
            case .dataPage:
                guard let d = header.dataPage else { throw ParquetError.corrupt("data page without its header") }
                return Page(kind: .dataV1(d), body: try inflate(payload, size: uncompressed),
                            definitionLevels: empty, repetitionLevels: empty)
            case .dataPageV2:
                guard let d = header.dataPageV2 else { throw ParquetError.corrupt("data page v2 without its header") }
                let repLength = Int(d.repetitionLevelsByteLength), defLength = Int(d.definitionLevelsByteLength)
                guard repLength >= 0, defLength >= 0, repLength + defLength <= size, repLength + defLength <= uncompressed else {
                    throw ParquetError.corrupt("data page v2 level sizes exceed the page")
                }
                let rep = UnsafeRawBufferPointer(rebasing: payload[0..<repLength])
                let def = UnsafeRawBufferPointer(rebasing: payload[repLength..<(repLength + defLength)])
                let values = UnsafeRawBufferPointer(rebasing: payload[(repLength + defLength)...])
                let valuesSize = uncompressed - repLength - defLength
                let body: UnsafeRawBufferPointer
                if !d.isCompressed || codec == .uncompressed {
                    body = values
                } else {
                    body = try inflate(values, size: valuesSize)
                }
                return Page(kind: .dataV2(d), body: body, definitionLevels: def, repetitionLevels: rep)
            case .indexPage, .none:
                continue
            }
        }
        return nil
    }

    /// Decompress a page body of known size into scratch space.
    private func inflate(_ payload: UnsafeRawBufferPointer, size: Int) throws -> UnsafeRawBufferPointer {
        if codec == .uncompressed {
            guard payload.count == size else {
                throw ParquetError.corrupt("uncompressed page of \(payload.count) bytes claims \(size)")
            }
            return payload
        }
        if size == 0 && payload.count <= 32 { return UnsafeRawBufferPointer(start: nil, count: 0) }
        // Check the claimed size against the compressed data before allocating for it.
        try PageCompression.checkPlausible(codec, payload, size: size)
        let dst = UnsafeMutableRawBufferPointer(start: scratch.page.reserve(size), count: size)
        try PageCompression.decompress(codec, payload, into: dst)
        return UnsafeRawBufferPointer(dst)
    }
}
