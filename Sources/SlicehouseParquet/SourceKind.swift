// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// What a column's physical values mean, as far as conversion cares.
enum SourceKind: Equatable {
    /// INT32/INT64 integers (signed unless annotated unsigned).
    case integer(unsigned: Bool)
    /// Unscaled decimal: INT32, INT64, or big-endian two's complement bytes.
    case decimal(scale: Int)
    /// INT32 days since 1970-01-01.
    case date
    /// INT64 instants since 1970-01-01 00:00:00 in `unit`s.
    case timestamp(ParquetTimeUnit)
    /// Legacy INT96 timestamps.
    case int96
    case float
    case double
    case boolean
    /// BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY read as text.
    case bytes

    static func of(_ c: ParquetColumn) throws -> SourceKind {
        guard let physical = c.physicalType else {
            throw ParquetError.unsupported("physical type #\(c.physicalTypeRaw ?? -1)")
        }
        switch (physical, c.logicalType) {
        case (.boolean, _): return .boolean
        case (.int96, _): return .int96
        case (.float, _): return .float
        case (.double, _): return .double
        case (.int32, .decimal(let p, let s)), (.int64, .decimal(let p, let s)),
             (.fixedLenByteArray, .decimal(let p, let s)), (.byteArray, .decimal(let p, let s)):
            guard s >= 0, s <= DataType.maxDecimalPrecision, p >= 0 else {
                throw ParquetError.unsupported("DECIMAL(\(p),\(s)) annotation")
            }
            if physical == .fixedLenByteArray && c.typeLength <= 0 {
                throw ParquetError.corrupt("FIXED_LEN_BYTE_ARRAY column without a length")
            }
            return .decimal(scale: s)
        case (.int32, .date): return .date
        case (.int64, .timestamp(let unit, _)): return .timestamp(unit)
        case (.int32, .integer(_, let signed)), (.int64, .integer(_, let signed)): return .integer(unsigned: !signed)
        case (.int32, .none), (.int64, .none): return .integer(unsigned: false)
        case (.byteArray, .none), (.byteArray, .string), (.byteArray, .enumeration), (.byteArray, .json),
             (.byteArray, .bson), (.fixedLenByteArray, .none), (.fixedLenByteArray, .string):
            return .bytes
        case (_, .null):
            // All-NULL columns: the values are never looked at.
            return .bytes
        default:
            throw ParquetError.unsupported("\(physical) values annotated \(c.logicalType)")
        }
    }
}
