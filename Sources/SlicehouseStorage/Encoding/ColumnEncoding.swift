// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A column's compression encoding, as named in `CREATE TABLE ... ENCODE x`.
///
/// The block format of each encoding is described in docs/STORAGE-ENCODINGS.md;
/// `BlockEncoder` encodes and decodes blocks.
public enum ColumnEncoding: String, CaseIterable, Sendable, Codable {
    case raw, az64, bytedict, delta, delta32k, mostly8, mostly16, mostly32, runlength, text255, text32k, zstd, lzo

    /// Parse a name as written after ENCODE (case-insensitive). `NONE` is Redshift's
    /// older spelling of RAW (and what PG_TABLE_DEF shows). nil if unknown;
    /// `AUTO` is not an encoding (see `BlockEncoder.chooseAuto`).
    public init?(sqlName: String) {
        var name = sqlName.lowercased()
        name.removeAll { $0 == " " || $0 == "\t" || $0 == "\n" }
        if name == "none" { self = .raw; return }
        self.init(rawValue: name)
    }

    /// Redshift's spelling (lower case): "raw", "az64", "bytedict", "delta32k", ...
    public var sqlName: String { rawValue }

    /// The id stored in block headers. Never renumber: blocks on disk record it.
    var blockID: UInt8 {
        switch self {
        case .raw: return 0
        case .az64: return 1
        case .bytedict: return 2
        case .delta: return 3
        case .delta32k: return 4
        case .mostly8: return 5
        case .mostly16: return 6
        case .mostly32: return 7
        case .runlength: return 8
        case .text255: return 9
        case .text32k: return 10
        case .zstd: return 11
        case .lzo: return 12
        }
    }

    init?(blockID: UInt8) {
        switch blockID {
        case 0: self = .raw
        case 1: self = .az64
        case 2: self = .bytedict
        case 3: self = .delta
        case 4: self = .delta32k
        case 5: self = .mostly8
        case 6: self = .mostly16
        case 7: self = .mostly32
        case 8: self = .runlength
        case 9: self = .text255
        case 10: self = .text32k
        case 11: self = .zstd
        case 12: self = .lzo
        default: return nil
        }
    }
}

/// The comparison of an encoded-block filter (`column op constant`).
public enum CompareOp: Sendable, Hashable, CaseIterable {
    case eq, ne, lt, le, gt, ge

    @inline(__always) func holds(_ c: Int) -> Bool {
        switch self {
        case .eq: return c == 0
        case .ne: return c != 0
        case .lt: return c < 0
        case .le: return c <= 0
        case .gt: return c > 0
        case .ge: return c >= 0
        }
    }
}

extension BlockEncoder {
    /// Whether Redshift accepts encoding `e` for a column of `type` (its table of
    /// encodings and data types). `CREATE TABLE` / `ALTER TABLE` reject other pairs
    /// with `invalid encoding type specified for column "x"`.
    ///
    /// | encoding | types |
    /// |---|---|
    /// | RAW, RUNLENGTH, ZSTD | all |
    /// | AZ64 | SMALLINT, INTEGER, BIGINT, DECIMAL, DATE, TIMESTAMP |
    /// | BYTEDICT | all but BOOLEAN |
    /// | DELTA | SMALLINT, INTEGER, BIGINT, DECIMAL, DATE, TIMESTAMP |
    /// | DELTA32K | INTEGER, BIGINT, DECIMAL, DATE, TIMESTAMP |
    /// | LZO | all but BOOLEAN, REAL, DOUBLE PRECISION |
    /// | MOSTLY8 | SMALLINT, INTEGER, BIGINT, DECIMAL |
    /// | MOSTLY16 | INTEGER, BIGINT, DECIMAL |
    /// | MOSTLY32 | BIGINT, DECIMAL |
    /// | TEXT255, TEXT32K | VARCHAR only |
    public static func isAllowed(_ e: ColumnEncoding, for type: DataType) -> Bool {
        let intLike = type.isInteger || type.isDecimal || type.isDateTimeFamily
        switch e {
        case .raw, .runlength, .zstd: return true
        case .lzo: return type != .boolean && !type.isFloat
        case .az64, .delta: return intLike
        case .bytedict: return type != .boolean
        case .delta32k: return intLike && type != .smallint
        case .mostly8: return type.isInteger || type.isDecimal
        case .mostly16: return type == .integer || type == .bigint || type.isDecimal
        case .mostly32: return type == .bigint || type.isDecimal
        case .text255, .text32k: if case .varchar = type { return true }; return false
        }
    }

    /// Whether this library can store physical kind `p` with encoding `e` at all
    /// (wider than `isAllowed`: e.g. MOSTLY8 works on any integer representation).
    public static func canEncode(_ e: ColumnEncoding, physical p: PhysicalType) -> Bool {
        switch e {
        case .raw, .runlength, .zstd, .lzo: return true
        case .az64, .delta, .delta32k, .mostly8, .mostly16, .mostly32: return p == .int64 || p == .int128
        case .bytedict: return p != .bool
        case .text255, .text32k: return p == .string
        }
    }

    /// The encoding Redshift assigns when none is given (ENCODE AUTO before any data
    /// is seen): RAW for sort keys, BOOLEAN, REAL and DOUBLE PRECISION; AZ64 for
    /// integers, decimals, dates and timestamps; LZO for CHAR and VARCHAR.
    public static func defaultEncoding(for type: DataType, isSortKeyColumn: Bool) -> ColumnEncoding {
        if isSortKeyColumn { return .raw }
        switch type.physical {
        case .bool, .double: return .raw
        case .string: return type == .superType ? .zstd : .lzo
        case .int64, .int128: return (type.isInteger || type.isDecimal || type.isDateTimeFamily) ? .az64 : .raw
        }
    }
}
