// SPDX-License-Identifier: Apache-2.0
/// The enumerations of `parquet.thrift`, as this package uses them.
///
/// Files carry them as plain i32 values; unknown values must not stop a file from
/// opening (a newer writer may add encodings we never meet), so each enum has an
/// `init?(raw:)` and the metadata keeps the raw number.

/// How the bytes of a column's values are laid out (the "physical" type). Logical types
/// (strings, decimals, dates, ...) are annotations on top of one of these.
public enum ParquetPhysicalType: Int32, Sendable, CustomStringConvertible {
    case boolean = 0
    case int32 = 1
    case int64 = 2
    /// 12 bytes: nanoseconds within the day (8, little-endian) then the Julian day (4).
    /// Only legacy timestamps use it.
    case int96 = 3
    case float = 4
    case double = 5
    /// Length-prefixed bytes (strings, binary, big decimals).
    case byteArray = 6
    /// Bytes of a length fixed by the schema (`type_length`).
    case fixedLenByteArray = 7

    public var description: String {
        switch self {
        case .boolean: return "BOOLEAN"
        case .int32: return "INT32"
        case .int64: return "INT64"
        case .int96: return "INT96"
        case .float: return "FLOAT"
        case .double: return "DOUBLE"
        case .byteArray: return "BYTE_ARRAY"
        case .fixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY"
        }
    }
}

/// Value encodings of data and dictionary pages (and of levels).
public enum ParquetEncoding: Int32, Sendable, CustomStringConvertible {
    case plain = 0
    /// Parquet 1.0's name for dictionary encoding (same layout as `rleDictionary`).
    case plainDictionary = 2
    case rle = 3
    /// Deprecated MSB-first bit packing, only for levels.
    case bitPacked = 4
    case deltaBinaryPacked = 5
    case deltaLengthByteArray = 6
    case deltaByteArray = 7
    case rleDictionary = 8
    case byteStreamSplit = 9

    public var description: String {
        switch self {
        case .plain: return "PLAIN"
        case .plainDictionary: return "PLAIN_DICTIONARY"
        case .rle: return "RLE"
        case .bitPacked: return "BIT_PACKED"
        case .deltaBinaryPacked: return "DELTA_BINARY_PACKED"
        case .deltaLengthByteArray: return "DELTA_LENGTH_BYTE_ARRAY"
        case .deltaByteArray: return "DELTA_BYTE_ARRAY"
        case .rleDictionary: return "RLE_DICTIONARY"
        case .byteStreamSplit: return "BYTE_STREAM_SPLIT"
        }
    }

    static func name(_ raw: Int32) -> String {
        ParquetEncoding(rawValue: raw)?.description ?? "encoding #\(raw)"
    }
}

/// Compression of page bodies (`CompressionCodec` in the format).
public enum ParquetCodec: Int32, Sendable, CustomStringConvertible {
    case uncompressed = 0
    case snappy = 1
    case gzip = 2
    case lzo = 3
    case brotli = 4
    case lz4 = 5
    case zstd = 6
    case lz4Raw = 7

    public var description: String {
        switch self {
        case .uncompressed: return "UNCOMPRESSED"
        case .snappy: return "SNAPPY"
        case .gzip: return "GZIP"
        case .lzo: return "LZO"
        case .brotli: return "BROTLI"
        case .lz4: return "LZ4"
        case .zstd: return "ZSTD"
        case .lz4Raw: return "LZ4_RAW"
        }
    }
}

/// Kinds of pages in a column chunk.
enum PageType: Int32 {
    case dataPage = 0
    case indexPage = 1
    case dictionaryPage = 2
    case dataPageV2 = 3
}

/// Whether a schema field is required, optional (nullable) or repeated (a list).
enum Repetition: Int32 {
    case required = 0
    case optional = 1
    case repeated = 2
}

/// The deprecated `ConvertedType` annotations still written for old readers.
enum ConvertedType: Int32 {
    case utf8 = 0, map = 1, mapKeyValue = 2, list = 3, enumType = 4, decimal = 5, date = 6
    case timeMillis = 7, timeMicros = 8, timestampMillis = 9, timestampMicros = 10
    case uint8 = 11, uint16 = 12, uint32 = 13, uint64 = 14
    case int8 = 15, int16 = 16, int32 = 17, int64 = 18
    case json = 19, bson = 20, interval = 21
}
