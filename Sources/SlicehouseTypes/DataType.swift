// SPDX-License-Identifier: Apache-2.0
/// A SQL data type as Redshift knows it.
///
/// Every logical type maps onto one of five *physical* representations used by
/// vectors and kernels (see `PhysicalType`). Keeping the physical set small keeps
/// the number of specialised kernels small:
///
/// | logical                         | physical | meaning of the stored value            |
/// |---------------------------------|----------|----------------------------------------|
/// | SMALLINT, INTEGER, BIGINT       | int64    | the integer                            |
/// | DECIMAL(p,s), p <= 18           | int64    | value * 10^s                           |
/// | DECIMAL(p,s), p > 18            | int128   | value * 10^s                           |
/// | DATE                            | int64    | days since 1970-01-01                  |
/// | TIMESTAMP                       | int64    | microseconds since 1970-01-01 00:00:00 |
/// | REAL, DOUBLE PRECISION          | double   | the number (REAL rounded to Float)     |
/// | BOOLEAN                         | bool     |                                        |
/// | CHAR(n), VARCHAR(n)             | string   | UTF-8 bytes; CHAR without trailing blanks |
/// | TIMESTAMPTZ                     | int64    | microseconds since 1970-01-01 00:00:00 UTC |
/// | TIME                            | int64    | microseconds since midnight            |
/// | TIMETZ                          | int64    | microseconds since midnight, UTC       |
/// | INTERVAL                        | int128   | `IntervalValue.packed`: comparable microseconds, months and days |
/// | SUPER                           | string   | one JSON value in compact text (`SuperJSON`) |
/// | VARBYTE(n)                      | string   | the bytes as lower-case hexadecimal text |
/// | HLLSKETCH                       | string   | the sketch in Redshift's JSON form     |
/// | SMALLINT[], INTEGER[], BIGINT[] | string   | PostgreSQL's array text (`{1,2}`)      |
public enum DataType: Hashable, Sendable {
    case smallint
    case integer
    case bigint
    case decimal(precision: Int, scale: Int)
    case real
    case double
    case boolean
    case char(Int)
    case varchar(Int)
    case date
    case timestamp
    /// TIMESTAMP WITH TIME ZONE: an instant, shown in the session's time zone.
    case timestamptz
    /// TIME [WITHOUT TIME ZONE]: a time of day.
    case time
    /// TIME WITH TIME ZONE: a time of day in UTC, shown with its offset.
    case timetz
    /// INTERVAL: months, days and microseconds, as PostgreSQL keeps them.
    case interval
    /// SUPER: a semi-structured value (a scalar, an array or an object).
    case superType
    /// VARBYTE(n): up to n bytes.
    case varbyte(Int)
    /// HLLSKETCH: a HyperLogLog sketch.
    case hllsketch
    /// A one-dimensional array of integers, as the leader's catalog keeps them
    /// (pg_constraint.conkey is SMALLINT[]; `ARRAY[1::smallint]`). Only catalog queries
    /// make one: no table column has this type (Redshift's compute nodes have none).
    case array(ArrayElement)
    /// The type of an untyped NULL literal before coercion.
    case unknown

    public static let maxDecimalPrecision = 38
    public static let defaultDecimal = DataType.decimal(precision: 18, scale: 0)
    /// TEXT and a bare VARCHAR mean VARCHAR(256).
    public static let text = DataType.varchar(256)
    /// The target of a CAST to VARCHAR or TEXT without a length (`Parser.parseCastType`):
    /// the binder gives it the operand's length. Never the type of a value or a column.
    public static let unsizedVarchar = DataType.varchar(maxVarcharLength + 1)
    public static let maxVarcharLength = 65535
    public static let maxCharLength = 4096
    /// VARBYTE without a length is VARBYTE(64000); at most 1,024,000 bytes.
    public static let defaultVarbyteLength = 64000
    public static let maxVarbyteLength = 1_024_000
    /// The largest SUPER value, in bytes of its JSON text (Redshift's 16 MB).
    public static let maxSuperBytes = 16 * 1024 * 1024

    public var physical: PhysicalType {
        switch self {
        case .smallint, .integer, .bigint, .date, .timestamp, .timestamptz, .time, .timetz: return .int64
        case .decimal(let p, _): return p > 18 ? .int128 : .int64
        case .interval: return .int128
        case .real, .double: return .double
        case .boolean: return .bool
        case .char, .varchar, .superType, .varbyte, .hllsketch, .array: return .string
        case .unknown: return .int64
        }
    }

    public var isInteger: Bool {
        switch self { case .smallint, .integer, .bigint: return true; default: return false }
    }
    public var isDecimal: Bool { if case .decimal = self { return true }; return false }
    public var isFloat: Bool { self == .real || self == .double }
    public var isNumeric: Bool { isInteger || isDecimal || isFloat }
    public var isString: Bool {
        switch self { case .char, .varchar: return true; default: return false }
    }
    public var isTemporal: Bool { self == .date || self == .timestamp || self == .timestamptz }
    public var isVarbyte: Bool { if case .varbyte = self { return true }; return false }
    public var isArray: Bool { if case .array = self { return true }; return false }
    /// DATE, TIMESTAMP, TIMESTAMPTZ, TIME or TIMETZ.
    public var isDateTimeFamily: Bool {
        switch self { case .date, .timestamp, .timestamptz, .time, .timetz: return true; default: return false }
    }
    /// Types whose values a string converts to implicitly (besides numbers, DATE and
    /// TIMESTAMP): TIMESTAMPTZ, TIME, TIMETZ, INTERVAL, VARBYTE, SUPER.
    public var isTextInput: Bool {
        switch self {
        case .timestamptz, .time, .timetz, .interval, .varbyte, .superType: return true
        default: return false
        }
    }
    /// Types a SUPER value converts to (its scalar read as that type, NULL when it is not one).
    public var isSuperScalarTarget: Bool {
        isNumeric || isString || self == .boolean || isDateTimeFamily
    }

    /// Scale of a decimal (0 for integers).
    public var scale: Int {
        if case .decimal(_, let s) = self { return s }
        return 0
    }
    /// Precision of an exact numeric type.
    public var precision: Int {
        switch self {
        case .smallint: return 5
        case .integer: return 10
        case .bigint: return 19
        case .decimal(let p, _): return p
        default: return 0
        }
    }

    /// Inclusive value range of an integer type.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .smallint: return Int64(Int16.min)...Int64(Int16.max)
        case .integer: return Int64(Int32.min)...Int64(Int32.max)
        case .bigint: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// The name PostgreSQL/Redshift print for this type (`\d`, PG_TABLE_DEF).
    public var sqlName: String {
        switch self {
        case .smallint: return "smallint"
        case .integer: return "integer"
        case .bigint: return "bigint"
        case .decimal(let p, let s): return "numeric(\(p),\(s))"
        case .real: return "real"
        case .double: return "double precision"
        case .boolean: return "boolean"
        case .char(let n): return "character(\(n))"
        case .varchar(let n): return "character varying(\(n))"
        case .date: return "date"
        case .timestamp: return "timestamp without time zone"
        case .timestamptz: return "timestamp with time zone"
        case .time: return "time without time zone"
        case .timetz: return "time with time zone"
        case .interval: return "interval"
        case .superType: return "super"
        case .varbyte(let n): return "varbyte(\(n))"
        case .hllsketch: return "hllsketch"
        case .array(let e): return e.type.sqlName + "[]"
        case .unknown: return "unknown"
        }
    }

    /// Short name used by sqllogictest type strings: I integer, R real/decimal, T text, etc.
    public var width: Int {
        switch self {
        case .smallint: return 2
        case .integer, .real, .date: return 4
        case .bigint, .double, .timestamp, .timestamptz, .time: return 8
        case .timetz: return 12
        case .interval: return 16
        case .decimal(let p, _): return p > 18 ? 16 : 8
        case .boolean: return 1
        case .char(let n), .varchar(let n), .varbyte(let n): return n
        case .superType, .hllsketch, .array: return 64
        case .unknown: return 0
        }
    }
}

extension DataType {
    /// The type oid clients see (pg_type, RowDescription): PostgreSQL's for the types it
    /// shares, Redshift's for SUPER (4000), VARBYTE (6551) and HLLSKETCH (2935).
    public var typeOID: Int32 {
        switch self {
        case .smallint: return 21
        case .integer: return 23
        case .bigint: return 20
        case .decimal: return 1700
        case .real: return 700
        case .double: return 701
        case .boolean: return 16
        case .char: return 1042
        case .varchar: return 1043
        case .date: return 1082
        case .timestamp: return 1114
        case .timestamptz: return 1184
        case .time: return 1083
        case .timetz: return 1266
        case .interval: return 1186
        case .superType: return 4000
        case .varbyte: return 6551
        case .hllsketch: return 2935
        case .array(let e): return e.arrayOID
        case .unknown: return 705
        }
    }

    /// PostgreSQL's internal name of the type (pg_type.typname, information_schema's udt_name).
    public var internalName: String {
        switch self {
        case .smallint: return "int2"
        case .integer: return "int4"
        case .bigint: return "int8"
        case .decimal: return "numeric"
        case .real: return "float4"
        case .double: return "float8"
        case .boolean: return "bool"
        case .char: return "bpchar"
        case .varchar: return "varchar"
        case .date: return "date"
        case .timestamp: return "timestamp"
        case .timestamptz: return "timestamptz"
        case .time: return "time"
        case .timetz: return "timetz"
        case .interval: return "interval"
        case .superType: return "super"
        case .varbyte: return "varbyte"
        case .hllsketch: return "hllsketch"
        case .array(let e): return "_" + e.type.internalName
        case .unknown: return "unknown"
        }
    }
}

/// The element type of an `array` (PostgreSQL's int2[], int4[], int8[]).
public enum ArrayElement: Hashable, Sendable, CaseIterable {
    case smallint, integer, bigint

    public init?(_ t: DataType) {
        switch t {
        case .smallint: self = .smallint
        case .integer: self = .integer
        case .bigint: self = .bigint
        default: return nil
        }
    }

    public var type: DataType {
        switch self {
        case .smallint: return .smallint
        case .integer: return .integer
        case .bigint: return .bigint
        }
    }

    /// pg_type's oid of the array type (`_int2` 1005, `_int4` 1007, `_int8` 1016).
    public var arrayOID: Int32 {
        switch self {
        case .smallint: return 1005
        case .integer: return 1007
        case .bigint: return 1016
        }
    }
}

public enum PhysicalType: Hashable, Sendable {
    case int64, int128, double, bool, string
}

extension DataType: CustomStringConvertible {
    public var description: String { sqlName }
}

extension DataType {
    /// Resolve a type name as written in SQL (with Redshift's aliases).
    /// `args` are the parenthesised modifiers, e.g. `[15, 2]` for `DECIMAL(15,2)`.
    public static func named(_ rawName: String, _ args: [Int]) throws -> DataType {
        let name = rawName.lowercased()
        func noArgs(_ t: DataType) throws -> DataType {
            guard args.isEmpty else { throw SQLError.syntax("type \(rawName) does not take modifiers") }
            return t
        }
        switch name {
        case "smallint", "int2": return try noArgs(.smallint)
        // PostgreSQL's catalog types, as catalog queries write them: a name is a
        // VARCHAR(128) (Redshift's identifier length), an oid an INTEGER.
        case "name": return try noArgs(.varchar(128))
        case "oid", "regclass", "regproc", "regtype", "regnamespace", "xid", "cid": return try noArgs(.integer)
        case "integer", "int", "int4": return try noArgs(.integer)
        case "bigint", "int8": return try noArgs(.bigint)
        case "real", "float4": return try noArgs(.real)
        case "double precision", "float8", "double": return try noArgs(.double)
        case "float":
            // FLOAT(p): p <= 24 is REAL, otherwise DOUBLE PRECISION.
            if let p = args.first, p <= 24 { return .real }
            return .double
        case "boolean", "bool": return try noArgs(.boolean)
        case "date": return try noArgs(.date)
        case "timestamp", "timestamp without time zone": return try noArgs(.timestamp)
        case "timestamptz", "timestamp with time zone": return try noArgs(.timestamptz)
        case "time", "time without time zone": return try noArgs(.time)
        case "timetz", "time with time zone": return try noArgs(.timetz)
        case "interval", "interval year to month", "interval day to second", "interval year", "interval month",
             "interval day", "interval hour", "interval minute", "interval second", "interval day to hour",
             "interval day to minute", "interval hour to minute", "interval hour to second", "interval minute to second":
            return .interval
        case "super": return try noArgs(.superType)
        case "hllsketch": return try noArgs(.hllsketch)
        case "varbyte", "varbinary", "binary varying":
            let n = args.first ?? defaultVarbyteLength
            guard args.count <= 1 else { throw SQLError.syntax("too many modifiers for type \(rawName)") }
            guard n >= 1 && n <= maxVarbyteLength else {
                throw SQLError(.invalidParameter, "length for type varbyte must be between 1 and \(maxVarbyteLength)")
            }
            return .varbyte(n)
        case "decimal", "numeric", "dec":
            let p = args.count > 0 ? args[0] : 18
            let s = args.count > 1 ? args[1] : 0
            guard args.count <= 2 else { throw SQLError.syntax("too many modifiers for type \(rawName)") }
            guard p >= 1 && p <= maxDecimalPrecision else {
                throw SQLError(.invalidParameter, "NUMERIC precision \(p) must be between 1 and \(maxDecimalPrecision)")
            }
            guard s >= 0 && s <= p else {
                throw SQLError(.invalidParameter, "NUMERIC scale \(s) must be between 0 and precision \(p)")
            }
            return .decimal(precision: p, scale: s)
        case "char", "character", "nchar", "bpchar":
            let n = args.first ?? 1
            guard args.count <= 1 else { throw SQLError.syntax("too many modifiers for type \(rawName)") }
            guard n >= 1 && n <= maxCharLength else {
                throw SQLError(.invalidParameter, "length for type char must be between 1 and \(maxCharLength)")
            }
            return .char(n)
        case "varchar", "character varying", "nvarchar", "text", "char varying":
            if name == "text" { return try noArgs(.text) }
            let n = args.first ?? 256
            guard args.count <= 1 else { throw SQLError.syntax("too many modifiers for type \(rawName)") }
            guard n >= 1 && n <= maxVarcharLength else {
                throw SQLError(.invalidParameter, "length for type varchar must be between 1 and \(maxVarcharLength)")
            }
            return .varchar(n)
        default:
            throw SQLError(.undefinedObject, "type \"\(rawName)\" does not exist")
        }
    }
}
