// SPDX-License-Identifier: Apache-2.0
/// Every page of a column chunk starts with a Thrift-compact `PageHeader` giving the
/// page kind, its compressed and uncompressed body sizes, and a kind-specific header:
///
/// - **Dictionary page**: the number of dictionary entries and their encoding (PLAIN, or
///   PLAIN_DICTIONARY in Parquet 1.0 files, which means the same). Data pages of the
///   chunk then store indices into it.
/// - **Data page v1**: the number of values (rows, NULLs included) and the encodings of
///   the values and of the levels. The whole body — repetition levels, definition levels,
///   values — is compressed as one block.
/// - **Data page v2**: also the counts of NULLs and rows, and the byte lengths of the two
///   level sections, which come first and are never compressed; only the values section
///   after them is (unless `is_compressed` is false).

struct DataPageHeaderV1: Sendable {
    var numValues: Int32 = 0
    var encoding: Int32 = 0
    var definitionLevelEncoding: Int32 = 3
    var repetitionLevelEncoding: Int32 = 3
}

struct DataPageHeaderV2: Sendable {
    var numValues: Int32 = 0
    var numNulls: Int32 = 0
    var numRows: Int32 = 0
    var encoding: Int32 = 0
    var definitionLevelsByteLength: Int32 = 0
    var repetitionLevelsByteLength: Int32 = 0
    var isCompressed = true
}

struct DictionaryPageHeader: Sendable {
    var numValues: Int32 = 0
    var encoding: Int32 = 0
}

struct PageHeader: Sendable {
    var type: Int32 = -1
    var uncompressedPageSize: Int32 = 0
    var compressedPageSize: Int32 = 0
    var crc: Int32?
    var dataPage: DataPageHeaderV1?
    var dictionaryPage: DictionaryPageHeader?
    var dataPageV2: DataPageHeaderV2?

    static func read(_ r: inout ThriftReader) throws -> PageHeader {
        var h = PageHeader()
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.i32): h.type = try r.readI32()
            case (2, ThriftType.i32): h.uncompressedPageSize = try r.readI32()
            case (3, ThriftType.i32): h.compressedPageSize = try r.readI32()
            case (4, ThriftType.i32): h.crc = try r.readI32()
            case (5, ThriftType.struct):
                var d = DataPageHeaderV1()
                try r.readStruct { r, id, t in
                    switch (id, t) {
                    case (1, ThriftType.i32): d.numValues = try r.readI32()
                    case (2, ThriftType.i32): d.encoding = try r.readI32()
                    case (3, ThriftType.i32): d.definitionLevelEncoding = try r.readI32()
                    case (4, ThriftType.i32): d.repetitionLevelEncoding = try r.readI32()
                    default: return false
                    }
                    return true
                }
                h.dataPage = d
            case (7, ThriftType.struct):
                var d = DictionaryPageHeader()
                try r.readStruct { r, id, t in
                    switch (id, t) {
                    case (1, ThriftType.i32): d.numValues = try r.readI32()
                    case (2, ThriftType.i32): d.encoding = try r.readI32()
                    default: return false
                    }
                    return true
                }
                h.dictionaryPage = d
            case (8, ThriftType.struct):
                var d = DataPageHeaderV2()
                try r.readStruct { r, id, t in
                    switch (id, t) {
                    case (1, ThriftType.i32): d.numValues = try r.readI32()
                    case (2, ThriftType.i32): d.numNulls = try r.readI32()
                    case (3, ThriftType.i32): d.numRows = try r.readI32()
                    case (4, ThriftType.i32): d.encoding = try r.readI32()
                    case (5, ThriftType.i32): d.definitionLevelsByteLength = try r.readI32()
                    case (6, ThriftType.i32): d.repetitionLevelsByteLength = try r.readI32()
                    case (7, ThriftType.boolTrue), (7, ThriftType.boolFalse): d.isCompressed = r.boolFieldValue(t)
                    default: return false
                    }
                    return true
                }
                h.dataPageV2 = d
            default: return false
            }
            return true
        }
        guard h.compressedPageSize >= 0, h.uncompressedPageSize >= 0 else {
            throw ParquetError.corrupt("negative page size in a page header")
        }
        return h
    }

    /// Serialise (the writer produces dictionary pages and v1 data pages; v2 headers are
    /// written by tests).
    func serialized() -> [UInt8] {
        var w = ThriftWriter()
        w.i32(1, type)
        w.i32(2, uncompressedPageSize)
        w.i32(3, compressedPageSize)
        if let crc { w.i32(4, crc) }
        if let d = dataPage {
            w.structBegin(5)
            w.i32(1, d.numValues)
            w.i32(2, d.encoding)
            w.i32(3, d.definitionLevelEncoding)
            w.i32(4, d.repetitionLevelEncoding)
            w.structEnd()
        }
        if let d = dictionaryPage {
            w.structBegin(7)
            w.i32(1, d.numValues)
            w.i32(2, d.encoding)
            w.structEnd()
        }
        if let d = dataPageV2 {
            w.structBegin(8)
            w.i32(1, d.numValues)
            w.i32(2, d.numNulls)
            w.i32(3, d.numRows)
            w.i32(4, d.encoding)
            w.i32(5, d.definitionLevelsByteLength)
            w.i32(6, d.repetitionLevelsByteLength)
            w.bool(7, d.isCompressed)
            w.structEnd()
        }
        return w.finish()
    }
}
