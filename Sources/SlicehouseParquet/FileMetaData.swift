// SPDX-License-Identifier: Apache-2.0
/// The footer of a Parquet file: `FileMetaData` from `parquet.thrift`, serialised with
/// the Thrift compact protocol.
///
/// A file is laid out as
///
///     "PAR1" | column chunk | column chunk | ... | FileMetaData | footer length (4 bytes LE) | "PAR1"
///
/// Rows are split into *row groups*; within a row group every column is stored as one
/// contiguous *column chunk*, a sequence of pages (an optional dictionary page, then data
/// pages). The footer lists the schema (a depth-first flattened tree of `SchemaElement`s
/// whose first element is the root), and for every row group the location, size, codec,
/// encodings and statistics of each of its column chunks.
///
/// Only the fields this package uses are kept; everything else is skipped by type.

/// One node of the schema tree.
struct SchemaElement: Sendable {
    var type: Int32?
    var typeLength: Int32?
    var repetition: Int32?
    var name: String = ""
    var numChildren: Int32?
    var convertedType: Int32?
    var scale: Int32?
    var precision: Int32?
    var fieldID: Int32?
    var logicalType: ParquetLogicalType?

    /// The merged annotation: the `LogicalType` union when present, else the converted type.
    var resolvedLogicalType: ParquetLogicalType {
        if let logicalType {
            // A DECIMAL union must agree with the legacy fields; the union wins.
            return logicalType
        }
        if let convertedType { return .fromConverted(convertedType, precision: precision, scale: scale) }
        return .none
    }
}

/// Min/max/null-count statistics of a column chunk (or page).
///
/// `min`/`max` are the plain encoding of one value (without the length prefix for byte
/// arrays), ordered by the column's sort order. Older writers filled only the deprecated
/// `min`/`max` fields, which are ordered by *signed* comparison; those are exposed only
/// for physical types where signed order is the correct order.
public struct ParquetStatistics: Sendable, Equatable {
    public var nullCount: Int64?
    public var distinctCount: Int64?
    public var min: [UInt8]?
    public var max: [UInt8]?

    public init(nullCount: Int64? = nil, distinctCount: Int64? = nil, min: [UInt8]? = nil, max: [UInt8]? = nil) {
        self.nullCount = nullCount
        self.distinctCount = distinctCount
        self.min = min
        self.max = max
    }
}

/// Raw statistics fields as stored.
struct StatisticsFields: Sendable {
    var legacyMax: [UInt8]?
    var legacyMin: [UInt8]?
    var nullCount: Int64?
    var distinctCount: Int64?
    var maxValue: [UInt8]?
    var minValue: [UInt8]?

    static func read(_ r: inout ThriftReader) throws -> StatisticsFields {
        var s = StatisticsFields()
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.binary): s.legacyMax = try r.readBytes()
            case (2, ThriftType.binary): s.legacyMin = try r.readBytes()
            case (3, ThriftType.i64): s.nullCount = try r.readI64()
            case (4, ThriftType.i64): s.distinctCount = try r.readI64()
            case (5, ThriftType.binary): s.maxValue = try r.readBytes()
            case (6, ThriftType.binary): s.minValue = try r.readBytes()
            default: return false
            }
            return true
        }
        return s
    }

    func write(_ w: inout ThriftWriter, id: Int16) {
        w.structBegin(id)
        if let legacyMax { w.binary(1, legacyMax) }
        if let legacyMin { w.binary(2, legacyMin) }
        if let nullCount { w.i64(3, nullCount) }
        if let distinctCount { w.i64(4, distinctCount) }
        if let maxValue { w.binary(5, maxValue) }
        if let minValue { w.binary(6, minValue) }
        w.structEnd()
    }

    /// The public view: the exact fields when set, else the legacy ones when `signedOrder`
    /// makes them trustworthy.
    func resolved(signedOrder: Bool) -> ParquetStatistics {
        var out = ParquetStatistics(nullCount: nullCount, distinctCount: distinctCount)
        if minValue != nil || maxValue != nil {
            out.min = minValue
            out.max = maxValue
        } else if signedOrder {
            out.min = legacyMin
            out.max = legacyMax
        }
        return out
    }
}

/// Where a column chunk's pages are and how they are stored.
struct ColumnMetaData: Sendable {
    var type: Int32 = 0
    var encodings: [Int32] = []
    var pathInSchema: [String] = []
    var codec: Int32 = 0
    var numValues: Int64 = 0
    var totalUncompressedSize: Int64 = 0
    var totalCompressedSize: Int64 = 0
    var dataPageOffset: Int64 = 0
    var indexPageOffset: Int64?
    var dictionaryPageOffset: Int64?
    var statistics: StatisticsFields?

    static func read(_ r: inout ThriftReader) throws -> ColumnMetaData {
        var m = ColumnMetaData()
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.i32): m.type = try r.readI32()
            case (2, ThriftType.list): m.encodings = try r.readList(of: ThriftType.i32) { try $0.readI32() }
            case (3, ThriftType.list): m.pathInSchema = try r.readList(of: ThriftType.binary) { try $0.readString() }
            case (4, ThriftType.i32): m.codec = try r.readI32()
            case (5, ThriftType.i64): m.numValues = try r.readI64()
            case (6, ThriftType.i64): m.totalUncompressedSize = try r.readI64()
            case (7, ThriftType.i64): m.totalCompressedSize = try r.readI64()
            case (9, ThriftType.i64): m.dataPageOffset = try r.readI64()
            case (10, ThriftType.i64): m.indexPageOffset = try r.readI64()
            case (11, ThriftType.i64): m.dictionaryPageOffset = try r.readI64()
            case (12, ThriftType.struct): m.statistics = try StatisticsFields.read(&r)
            default: return false
            }
            return true
        }
        return m
    }

    func write(_ w: inout ThriftWriter, id: Int16) {
        w.structBegin(id)
        w.i32(1, type)
        w.i32List(2, encodings)
        w.stringList(3, pathInSchema)
        w.i32(4, codec)
        w.i64(5, numValues)
        w.i64(6, totalUncompressedSize)
        w.i64(7, totalCompressedSize)
        w.i64(9, dataPageOffset)
        if let dictionaryPageOffset { w.i64(11, dictionaryPageOffset) }
        if let statistics { statistics.write(&w, id: 12) }
        w.structEnd()
    }
}

/// One column of one row group.
struct ColumnChunk: Sendable {
    var filePath: String?
    var fileOffset: Int64 = 0
    var metaData: ColumnMetaData?
    var encrypted = false

    static func read(_ r: inout ThriftReader) throws -> ColumnChunk {
        var c = ColumnChunk()
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.binary): c.filePath = try r.readString()
            case (2, ThriftType.i64): c.fileOffset = try r.readI64()
            case (3, ThriftType.struct): c.metaData = try ColumnMetaData.read(&r)
            case (8, _), (9, _): c.encrypted = true; return false
            default: return false
            }
            return true
        }
        return c
    }

    func write(_ w: inout ThriftWriter) {
        w.elementStructBegin()
        w.i64(2, fileOffset)
        metaData?.write(&w, id: 3)
        w.structEnd()
    }
}

struct RowGroup: Sendable {
    var columns: [ColumnChunk] = []
    var totalByteSize: Int64 = 0
    var numRows: Int64 = 0
    var fileOffset: Int64?
    var totalCompressedSize: Int64?
    var ordinal: Int16?

    static func read(_ r: inout ThriftReader) throws -> RowGroup {
        var g = RowGroup()
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.list): g.columns = try r.readList(of: ThriftType.struct) { try ColumnChunk.read(&$0) }
            case (2, ThriftType.i64): g.totalByteSize = try r.readI64()
            case (3, ThriftType.i64): g.numRows = try r.readI64()
            case (5, ThriftType.i64): g.fileOffset = try r.readI64()
            case (6, ThriftType.i64): g.totalCompressedSize = try r.readI64()
            case (7, ThriftType.i16): g.ordinal = try r.readI16()
            default: return false
            }
            return true
        }
        return g
    }

    func write(_ w: inout ThriftWriter) {
        w.elementStructBegin()
        w.listBegin(1, elementType: ThriftType.struct, count: columns.count)
        for c in columns { c.write(&w) }
        w.i64(2, totalByteSize)
        w.i64(3, numRows)
        if let fileOffset { w.i64(5, fileOffset) }
        if let totalCompressedSize { w.i64(6, totalCompressedSize) }
        if let ordinal { w.i16(7, ordinal) }
        w.structEnd()
    }
}

/// A key/value pair of the footer's free-form metadata (pyarrow stores its schema here).
public struct ParquetKeyValue: Sendable, Equatable {
    public var key: String
    public var value: String?

    public init(key: String, value: String?) {
        self.key = key
        self.value = value
    }
}

struct FileMetaData: Sendable {
    var version: Int32 = 1
    var schema: [SchemaElement] = []
    var numRows: Int64 = 0
    var rowGroups: [RowGroup] = []
    var keyValueMetadata: [ParquetKeyValue] = []
    var createdBy: String?
    /// Number of leaf columns with a TYPE_ORDER column order (writing only).
    var typeDefinedOrderColumns = 0

    static func read(_ r: inout ThriftReader) throws -> FileMetaData {
        var f = FileMetaData()
        var sawSchema = false
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.i32): f.version = try r.readI32()
            case (2, ThriftType.list):
                f.schema = try r.readList(of: ThriftType.struct) { try readSchemaElement(&$0) }
                sawSchema = true
            case (3, ThriftType.i64): f.numRows = try r.readI64()
            case (4, ThriftType.list): f.rowGroups = try r.readList(of: ThriftType.struct) { try RowGroup.read(&$0) }
            case (5, ThriftType.list):
                f.keyValueMetadata = try r.readList(of: ThriftType.struct) { r in
                    var kv = ParquetKeyValue(key: "", value: nil)
                    try r.readStruct { r, id, t in
                        switch (id, t) {
                        case (1, ThriftType.binary): kv.key = try r.readString()
                        case (2, ThriftType.binary): kv.value = try r.readString()
                        default: return false
                        }
                        return true
                    }
                    return kv
                }
            case (6, ThriftType.binary): f.createdBy = try r.readString()
            default: return false
            }
            return true
        }
        guard sawSchema, !f.schema.isEmpty else { throw ParquetError.corrupt("the footer has no schema") }
        return f
    }

    static func readSchemaElement(_ r: inout ThriftReader) throws -> SchemaElement {
        var e = SchemaElement()
        try r.readStruct { r, id, t in
            switch (id, t) {
            case (1, ThriftType.i32): e.type = try r.readI32()
            case (2, ThriftType.i32): e.typeLength = try r.readI32()
            case (3, ThriftType.i32): e.repetition = try r.readI32()
            case (4, ThriftType.binary): e.name = try r.readString()
            case (5, ThriftType.i32): e.numChildren = try r.readI32()
            case (6, ThriftType.i32): e.convertedType = try r.readI32()
            case (7, ThriftType.i32): e.scale = try r.readI32()
            case (8, ThriftType.i32): e.precision = try r.readI32()
            case (9, ThriftType.i32): e.fieldID = try r.readI32()
            case (10, ThriftType.struct): e.logicalType = try ParquetLogicalType.read(&r)
            default: return false
            }
            return true
        }
        return e
    }

    static func writeSchemaElement(_ e: SchemaElement, _ w: inout ThriftWriter) {
        w.elementStructBegin()
        if let type = e.type { w.i32(1, type) }
        if let typeLength = e.typeLength { w.i32(2, typeLength) }
        if let repetition = e.repetition { w.i32(3, repetition) }
        w.string(4, e.name)
        if let numChildren = e.numChildren { w.i32(5, numChildren) }
        if let convertedType = e.convertedType { w.i32(6, convertedType) }
        if let scale = e.scale { w.i32(7, scale) }
        if let precision = e.precision { w.i32(8, precision) }
        if let logicalType = e.logicalType { logicalType.write(&w, id: 10) }
        w.structEnd()
    }

    func serialized() -> [UInt8] {
        var w = ThriftWriter()
        w.i32(1, version)
        w.listBegin(2, elementType: ThriftType.struct, count: schema.count)
        for e in schema { Self.writeSchemaElement(e, &w) }
        w.i64(3, numRows)
        w.listBegin(4, elementType: ThriftType.struct, count: rowGroups.count)
        for g in rowGroups { g.write(&w) }
        if !keyValueMetadata.isEmpty {
            w.listBegin(5, elementType: ThriftType.struct, count: keyValueMetadata.count)
            for kv in keyValueMetadata {
                w.elementStructBegin()
                w.string(1, kv.key)
                if let v = kv.value { w.string(2, v) }
                w.structEnd()
            }
        }
        if let createdBy { w.string(6, createdBy) }
        if typeDefinedOrderColumns > 0 {
            // ColumnOrder is a union; TYPE_ORDER (field 1) is an empty struct.
            w.listBegin(7, elementType: ThriftType.struct, count: typeDefinedOrderColumns)
            for _ in 0..<typeDefinedOrderColumns {
                w.elementStructBegin()
                w.emptyStruct(1)
                w.structEnd()
            }
        }
        return w.finish()
    }
}
