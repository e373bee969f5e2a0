// SPDX-License-Identifier: Apache-2.0
/// Logical types say what the physical bytes mean: an INT32 may be a plain integer, a
/// DATE (days since 1970-01-01) or a DECIMAL (unscaled value); a BYTE_ARRAY may be a
/// UTF-8 STRING or opaque binary.
///
/// Two generations of annotations exist. The old `ConvertedType` enum (field 6 of a
/// schema element, with `scale`/`precision` in fields 7/8 for decimals) and the newer
/// `LogicalType` union (field 10), which adds parameters such as the unit of a timestamp
/// and whether it is adjusted to UTC. Writers set both for compatibility; readers prefer
/// the union and fall back to the converted type.

/// Resolution of a time or timestamp.
public enum ParquetTimeUnit: Sendable, Equatable {
    case millis, micros, nanos

    /// Units in one second.
    var perSecond: Int64 {
        switch self {
        case .millis: return 1_000
        case .micros: return 1_000_000
        case .nanos: return 1_000_000_000
        }
    }
}

/// The meaning of a column's physical values, merged from both annotation generations.
public enum ParquetLogicalType: Sendable, Equatable, CustomStringConvertible {
    case none
    case string
    case enumeration
    case json
    case bson
    case uuid
    case decimal(precision: Int, scale: Int)
    case date
    case time(unit: ParquetTimeUnit, adjustedToUTC: Bool)
    case timestamp(unit: ParquetTimeUnit, adjustedToUTC: Bool)
    case integer(bitWidth: Int, signed: Bool)
    case interval
    case map
    case list
    /// Always NULL (the `UNKNOWN` logical type).
    case null
    case float16
    /// An annotation this reader does not know (newer format versions).
    case other(String)

    public var description: String {
        switch self {
        case .none: return "none"
        case .string: return "STRING"
        case .enumeration: return "ENUM"
        case .json: return "JSON"
        case .bson: return "BSON"
        case .uuid: return "UUID"
        case .decimal(let p, let s): return "DECIMAL(\(p),\(s))"
        case .date: return "DATE"
        case .time(let u, let utc): return "TIME(\(u), utc=\(utc))"
        case .timestamp(let u, let utc): return "TIMESTAMP(\(u), utc=\(utc))"
        case .integer(let b, let s): return "INT(\(b), \(s ? "signed" : "unsigned"))"
        case .interval: return "INTERVAL"
        case .map: return "MAP"
        case .list: return "LIST"
        case .null: return "NULL"
        case .float16: return "FLOAT16"
        case .other(let s): return s
        }
    }
}

extension ParquetLogicalType {
    /// Decode the `LogicalType` union (the reader is positioned at its first field).
    static func read(_ r: inout ThriftReader) throws -> ParquetLogicalType {
        var result = ParquetLogicalType.other("unknown logical type")
        try r.readStruct { r, id, type in
            guard type == ThriftType.struct else { return false }
            switch id {
            case 1: result = .string
            case 2: result = .map
            case 3: result = .list
            case 4: result = .enumeration
            case 5:
                var scale: Int32 = 0, precision: Int32 = 0
                try r.readStruct { r, id, t in
                    switch (id, t) {
                    case (1, ThriftType.i32): scale = try r.readI32(); return true
                    case (2, ThriftType.i32): precision = try r.readI32(); return true
                    default: return false
                    }
                }
                result = .decimal(precision: Int(precision), scale: Int(scale))
                return true
            case 6: result = .date
            case 7, 8:
                var utc = false
                var unit = ParquetTimeUnit.micros
                var unitKnown = false
                try r.readStruct { r, fid, t in
                    switch (fid, t) {
                    case (1, ThriftType.boolTrue), (1, ThriftType.boolFalse):
                        utc = r.boolFieldValue(t); return true
                    case (2, ThriftType.struct):
                        try r.readStruct { r, uid, ut in
                            guard ut == ThriftType.struct else { return false }
                            switch uid {
                            case 1: unit = .millis; unitKnown = true
                            case 2: unit = .micros; unitKnown = true
                            case 3: unit = .nanos; unitKnown = true
                            default: return false
                            }
                            try r.skip(ut)
                            return true
                        }
                        return true
                    default: return false
                    }
                }
                if !unitKnown {
                    result = .other(id == 7 ? "TIME with an unknown unit" : "TIMESTAMP with an unknown unit")
                } else {
                    result = id == 7 ? .time(unit: unit, adjustedToUTC: utc) : .timestamp(unit: unit, adjustedToUTC: utc)
                }
                return true
            case 10:
                var bits: Int8 = 0
                var signed = true
                try r.readStruct { r, fid, t in
                    switch (fid, t) {
                    case (1, ThriftType.i8): bits = try r.readI8(); return true
                    case (2, ThriftType.boolTrue), (2, ThriftType.boolFalse): signed = r.boolFieldValue(t); return true
                    default: return false
                    }
                }
                result = .integer(bitWidth: Int(bits), signed: signed)
                return true
            case 11: result = .null
            case 12: result = .json
            case 13: result = .bson
            case 14: result = .uuid
            case 15: result = .float16
            default: result = .other("logical type #\(id)")
            }
            try r.skip(type)
            return true
        }
        return result
    }

    /// The annotation from the deprecated converted type (decimals take their
    /// parameters from the schema element).
    static func fromConverted(_ raw: Int32, precision: Int32?, scale: Int32?) -> ParquetLogicalType {
        guard let c = ConvertedType(rawValue: raw) else { return .other("converted type #\(raw)") }
        switch c {
        case .utf8: return .string
        case .map, .mapKeyValue: return .map
        case .list: return .list
        case .enumType: return .enumeration
        case .decimal: return .decimal(precision: Int(precision ?? 0), scale: Int(scale ?? 0))
        case .date: return .date
        case .timeMillis: return .time(unit: .millis, adjustedToUTC: true)
        case .timeMicros: return .time(unit: .micros, adjustedToUTC: true)
        case .timestampMillis: return .timestamp(unit: .millis, adjustedToUTC: true)
        case .timestampMicros: return .timestamp(unit: .micros, adjustedToUTC: true)
        case .uint8: return .integer(bitWidth: 8, signed: false)
        case .uint16: return .integer(bitWidth: 16, signed: false)
        case .uint32: return .integer(bitWidth: 32, signed: false)
        case .uint64: return .integer(bitWidth: 64, signed: false)
        case .int8: return .integer(bitWidth: 8, signed: true)
        case .int16: return .integer(bitWidth: 16, signed: true)
        case .int32: return .integer(bitWidth: 32, signed: true)
        case .int64: return .integer(bitWidth: 64, signed: true)
        case .json: return .json
        case .bson: return .bson
        case .interval: return .interval
        }
    }

    /// Encode as the `LogicalType` union (field `id` of the enclosing struct). Only the
    /// annotations this package writes are supported.
    func write(_ w: inout ThriftWriter, id: Int16) {
        w.structBegin(id)
        switch self {
        case .string: w.emptyStruct(1)
        case .decimal(let p, let s):
            w.structBegin(5)
            w.i32(1, Int32(s))
            w.i32(2, Int32(p))
            w.structEnd()
        case .date: w.emptyStruct(6)
        case .timestamp(let unit, let utc), .time(let unit, let utc):
            if case .time = self { w.structBegin(7) } else { w.structBegin(8) }
            w.bool(1, utc)
            w.structBegin(2)
            switch unit {
            case .millis: w.emptyStruct(1)
            case .micros: w.emptyStruct(2)
            case .nanos: w.emptyStruct(3)
            }
            w.structEnd()
            w.structEnd()
        case .integer(let bits, let signed):
            w.structBegin(10)
            w.i8(1, Int8(truncatingIfNeeded: bits))
            w.bool(2, signed)
            w.structEnd()
        case .json: w.emptyStruct(12)
        case .enumeration: w.emptyStruct(4)
        default: break
        }
        w.structEnd()
    }
}
