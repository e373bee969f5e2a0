// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// How the writer stores a Slicehouse type in Parquet: physical type plus annotations
/// (both the `LogicalType` union and the legacy converted type, so Parquet 1.0 readers
/// understand the file).
///
/// | Slicehouse            | physical                  | annotation                         |
/// |-----------------------|---------------------------|------------------------------------|
/// | SMALLINT              | INT32                     | INT(16, signed) / INT_16           |
/// | INTEGER               | INT32                     | INT(32, signed) / INT_32           |
/// | BIGINT                | INT64                     | INT(64, signed) / INT_64           |
/// | DECIMAL(p ≤ 9, s)     | INT32                     | DECIMAL(p, s)                      |
/// | DECIMAL(p ≤ 18, s)    | INT64                     | DECIMAL(p, s)                      |
/// | DECIMAL(p > 18, s)    | FIXED_LEN_BYTE_ARRAY(n)   | DECIMAL(p, s), n minimal for p     |
/// | REAL / DOUBLE         | FLOAT / DOUBLE            |                                    |
/// | BOOLEAN               | BOOLEAN                   |                                    |
/// | CHAR / VARCHAR        | BYTE_ARRAY                | STRING / UTF8                      |
/// | DATE                  | INT32                     | DATE                               |
/// | TIMESTAMP             | INT64                     | TIMESTAMP(micros, not UTC) / TIMESTAMP_MICROS |
struct ColumnLayout {
    enum Storage {
        case int32, int64, wideDecimal(bytes: Int), float, double, boolean, string
    }

    let storage: Storage
    let physical: ParquetPhysicalType
    let logical: ParquetLogicalType?
    let converted: ConvertedType?
    let typeLength: Int?
    let scale: Int?
    let precision: Int?

    init(_ type: DataType) throws {
        var scale: Int? = nil, precision: Int? = nil, typeLength: Int? = nil
        switch type {
        case .smallint:
            storage = .int32; physical = .int32
            logical = .integer(bitWidth: 16, signed: true); converted = .int16
        case .integer:
            storage = .int32; physical = .int32
            logical = .integer(bitWidth: 32, signed: true); converted = .int32
        case .bigint:
            storage = .int64; physical = .int64
            logical = .integer(bitWidth: 64, signed: true); converted = .int64
        case .decimal(let p, let s):
            if p <= 9 {
                storage = .int32; physical = .int32
            } else if p <= 18 {
                storage = .int64; physical = .int64
            } else {
                let n = Self.decimalBytes(precision: p)
                storage = .wideDecimal(bytes: n); physical = .fixedLenByteArray
                typeLength = n
            }
            logical = .decimal(precision: p, scale: s); converted = .decimal
            scale = s; precision = p
        case .real:
            storage = .float; physical = .float; logical = nil; converted = nil
        case .double:
            storage = .double; physical = .double; logical = nil; converted = nil
        case .boolean:
            storage = .boolean; physical = .boolean; logical = nil; converted = nil
        case .char, .varchar:
            storage = .string; physical = .byteArray; logical = .string; converted = .utf8
        case .date:
            storage = .int32; physical = .int32; logical = .date; converted = .date
        case .timestamp:
            storage = .int64; physical = .int64
            logical = .timestamp(unit: .micros, adjustedToUTC: false); converted = .timestampMicros
        case .timestamptz:
            storage = .int64; physical = .int64
            logical = .timestamp(unit: .micros, adjustedToUTC: true); converted = .timestampMicros
        case .superType, .hllsketch, .array:
            // The value's JSON text (an array's PostgreSQL text).
            storage = .string; physical = .byteArray; logical = .string; converted = .utf8
        case .time, .timetz, .interval, .varbyte:
            throw ParquetError.unsupported("writing a \(type.sqlName) column to Parquet")
        case .unknown:
            throw ParquetError.unsupported("writing a column of unknown type")
        }
        self.scale = scale
        self.precision = precision
        self.typeLength = typeLength
    }

    /// Fewest bytes whose two's complement holds every value of `precision` digits.
    static func decimalBytes(precision p: Int) -> Int {
        let maxValue = UInt128(DecimalMath.maxValue(precision: min(max(p, 1), 38)))
        var n = 1
        while n < 16 && maxValue > (UInt128(1) << UInt128(8 * n - 1)) - 1 { n += 1 }
        return n
    }

    /// The schema element for a column named `name` (every column is OPTIONAL).
    func schemaElement(name: String) -> SchemaElement {
        var e = SchemaElement()
        e.type = physical.rawValue
        e.typeLength = typeLength.map(Int32.init)
        e.repetition = Repetition.optional.rawValue
        e.name = name
        e.convertedType = converted?.rawValue
        e.scale = scale.map(Int32.init)
        e.precision = precision.map(Int32.init)
        e.logicalType = logical
        return e
    }
}
