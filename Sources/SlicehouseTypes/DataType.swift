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
    /// The type of an untyped NULL literal before coercion.
    case unknown

    public static let maxDecimalPrecision = 38
    public static let defaultDecimal = DataType.decimal(precision: 18, scale: 0)
    /// TEXT and a bare VARCHAR mean VARCHAR(256).
    public static let text = DataType.varchar(256)
    public static let maxVarcharLength = 65535
    public static let maxCharLength = 4096

    public var physical: PhysicalType {
        switch self {
        case .smallint, .integer, .bigint, .date, .timestamp: return .int64
        case .decimal(let p, _): return p > 18 ? .int128 : .int64
        case .real, .double: return .double
        case .boolean: return .bool
        case .char, .varchar: return .string
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
    public var isTemporal: Bool { self == .date || self == .timestamp }

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
        case .unknown: return "unknown"
        }
    }

    /// Short name used by sqllogictest type strings: I integer, R real/decimal, T text, etc.
    public var width: Int {
        switch self {
        case .smallint: return 2
        case .integer, .real, .date: return 4
        case .bigint, .double, .timestamp: return 8
        case .decimal(let p, _): return p > 18 ? 16 : 8
        case .boolean: return 1
        case .char(let n), .varchar(let n): return n
        case .unknown: return 0
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
        case "decimal", "numeric":
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
