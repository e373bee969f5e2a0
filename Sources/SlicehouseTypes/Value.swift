// SPDX-License-Identifier: Apache-2.0
/// One scalar value in its physical form, used for constants, the leader's
/// results and catalog defaults — never inside per-row kernel loops.
///
/// The meaning of an `.int` depends on the `DataType` it travels with
/// (see `DataType`: integer, scaled decimal, days, microseconds).
public enum Value: Hashable, Sendable {
    case null
    case int(Int64)
    case int128(Int128)
    case double(Double)
    case bool(Bool)
    case string(String)

    public var isNull: Bool { if case .null = self { return true }; return false }

    public var asInt64: Int64? {
        switch self {
        case .int(let v): return v
        case .int128(let v): return Int64(exactly: v)
        default: return nil
        }
    }
    public var asInt128: Int128? {
        switch self {
        case .int(let v): return Int128(v)
        case .int128(let v): return v
        default: return nil
        }
    }
    public var asDouble: Double? {
        if case .double(let v) = self { return v }
        return nil
    }
    public var asBool: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }
    public var asString: String? {
        if case .string(let v) = self { return v }
        return nil
    }
}

extension Value {
    /// Text form of a value of type `type`, as the shell and the wire protocol show it
    /// (PostgreSQL's output conventions). NULL gives nil.
    public func formatted(as type: DataType) -> String? { formatted(as: type, zone: nil) }

    /// Text form with TIMESTAMPTZ values shown in `zone` (the session's `timezone`; UTC when nil).
    public func formatted(as type: DataType, zone: TimeZoneRule?) -> String? {
        switch self {
        case .null: return nil
        case .bool(let b): return b ? "t" : "f"
        case .string(let s):
            if case .char(let n) = type {
                let len = s.utf8.count
                return len < n ? s + String(repeating: " ", count: n - len) : s
            }
            return s
        case .double(let d): return FloatFormat.format(d, real: type == .real)
        case .int(let v):
            switch type {
            case .date: return DateTime.formatDate(v)
            case .timestamp: return DateTime.formatTimestamp(v)
            case .timestamptz: return DateTime.formatTimestampTZ(v, zone: zone)
            case .time: return DateTime.formatTime(v)
            case .timetz: return DateTime.formatTimeTZ(v)
            case .decimal(_, let s): return DecimalFormat.format(Int128(v), scale: s)
            case .boolean: return v != 0 ? "t" : "f"
            default: return String(v)
            }
        case .int128(let v):
            if case .decimal(_, let s) = type { return DecimalFormat.format(v, scale: s) }
            if type == .interval { return DateTime.formatInterval(IntervalValue(packed: v)) }
            return String(v)
        }
    }
}

/// PostgreSQL-compatible float output: shortest round-trip digits,
/// `Infinity`, `-Infinity`, `NaN`, and exponent form for very large/small numbers.
public enum FloatFormat {
    public static func format(_ d: Double, real: Bool) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == 0 { return d.sign == .minus ? "-0" : "0" }
        var s = real ? "\(Float(d))" : "\(d)"
        // Swift prints "1.0" for integral values; PostgreSQL prints "1".
        if s.hasSuffix(".0") { s.removeLast(2) }
        // Swift uses "1e+20"/"1e-05" forms; PostgreSQL uses "1e+20" / "1e-05" too.
        return s
    }
}
