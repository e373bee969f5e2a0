// SPDX-License-Identifier: Apache-2.0
import NIOCore
import SlicehouseEngine
import SlicehouseTypes

/// A server's result values back into Slicehouse's types, so that the shell prints rows
/// from a server with the same code — and so byte for byte the same text — as rows from
/// the database it opens itself (and as the server's own text format, which uses that
/// code too).
///
/// PostgresNIO asks for every result column in binary form, so each value is decoded by
/// its type OID: integers, `float4`/`float8`, `bool`, `numeric` (base-10000 digits,
/// weight, sign, display scale), `date` (days since 2000-01-01), `timestamp[tz]`
/// (microseconds since 2000-01-01); every other type's bytes are its text (what
/// `slicehouse serve` sends for strings in binary, and PostgreSQL for text types).
public enum WireValues {
    /// The Slicehouse type a result column of `oid` (with `modifier`, atttypmod) is shown as:
    /// numbers right-aligned, everything else as text.
    public static func type(oid: UInt32, modifier: Int32) -> DataType {
        switch oid {
        case 16: return .boolean
        case 20: return .bigint
        case 21: return .smallint
        case 23, 26: return .integer
        case 700: return .real
        case 701: return .double
        case 1700:
            // (precision << 16 | scale) + 4; always 38 digits wide here (Int128), which
            // holds every DECIMAL and prints the same.
            let scale = modifier >= 4 ? Int((modifier - 4) & 0xFFFF) : 0
            return .decimal(precision: 38, scale: min(scale, 37))
        case 1082: return .date
        case 1114: return .timestamp
        case 1184: return .timestamptz
        case 1083: return .time
        case 1186: return .interval
        default: return .varchar(65535)
        }
    }

    /// Days and microseconds from 1970-01-01 (Slicehouse's epoch) to 2000-01-01 (PostgreSQL's).
    static let epochDays: Int64 = 10_957
    static let epochMicros: Int64 = 946_684_800_000_000

    /// The value of one binary cell of a column of type `oid` shown as `type`; NULL for nil.
    public static func value(binary bytes: ByteBuffer?, oid: UInt32, type: DataType) throws -> Value {
        guard var b = bytes else { return .null }
        func bad() -> SQLError {
            SQLError(.protocolViolation, "cannot read a value of type \(oid) in binary form (\(bytes?.readableBytes ?? 0) bytes)")
        }
        switch oid {
        case 16:
            guard b.readableBytes == 1, let v = b.readInteger(as: UInt8.self) else { throw bad() }
            return .bool(v != 0)
        case 21:
            guard b.readableBytes == 2, let v = b.readInteger(as: Int16.self) else { throw bad() }
            return .int(Int64(v))
        case 23, 26:
            guard b.readableBytes == 4, let v = b.readInteger(as: Int32.self) else { throw bad() }
            return .int(oid == 26 ? Int64(UInt32(bitPattern: v)) : Int64(v))
        case 20:
            guard b.readableBytes == 8, let v = b.readInteger(as: Int64.self) else { throw bad() }
            return .int(v)
        case 700:
            guard b.readableBytes == 4, let v = b.readInteger(as: UInt32.self) else { throw bad() }
            return .double(Double(Float(bitPattern: v)))
        case 701:
            guard b.readableBytes == 8, let v = b.readInteger(as: UInt64.self) else { throw bad() }
            return .double(Double(bitPattern: v))
        case 1082:
            guard b.readableBytes == 4, let v = b.readInteger(as: Int32.self) else { throw bad() }
            return .int(Int64(v) + epochDays)
        case 1083:
            guard b.readableBytes == 8, let v = b.readInteger(as: Int64.self) else { throw bad() }
            return .int(v)
        case 1186:
            guard b.readableBytes == 16, let micros = b.readInteger(as: Int64.self), let days = b.readInteger(as: Int32.self),
                  let months = b.readInteger(as: Int32.self),
                  let packed = IntervalValue(months: Int64(months), days: Int64(days), micros: micros).packed else { throw bad() }
            return .int128(packed)
        case 1114, 1184:
            guard b.readableBytes == 8, let v = b.readInteger(as: Int64.self) else { throw bad() }
            let (micros, overflow) = v.addingReportingOverflow(epochMicros)
            guard !overflow else { throw bad() }
            return .int(micros)
        case 1700:
            guard let unscaled = numeric(&b, scale: type.scale) else { throw bad() }
            return .int128(unscaled)
        default:
            return .string(b.readString(length: b.readableBytes) ?? "")
        }
    }

    /// NUMERIC's binary form (ndigits, weight, sign, dscale, base-10000 digits) as the
    /// unscaled integer at `scale` (digits past it are cut); nil when malformed, NaN or
    /// too large for 38 digits.
    static func numeric(_ b: inout ByteBuffer, scale: Int) -> Int128? {
        guard let n = b.readInteger(as: Int16.self), let weight = b.readInteger(as: Int16.self),
              let sign = b.readInteger(as: UInt16.self), b.readInteger(as: Int16.self) != nil,
              n >= 0, b.readableBytes == Int(n) * 2, sign == 0 || sign == 0x4000 else { return nil }
        var value: Int128 = 0
        var p10: [Int128] = [1]
        for _ in 0..<38 { p10.append(p10[p10.count - 1] * 10) }
        for i in 0..<Int(n) {
            guard let d = b.readInteger(as: Int16.self), d >= 0, d < 10_000 else { return nil }
            // This digit is worth d × 10^(4 × (weight − i)); at `scale`, × 10^scale.
            let exponent = 4 * (Int(weight) - i) + scale
            let term: Int128
            if exponent >= 0 {
                guard exponent < p10.count else { if d == 0 { continue } else { return nil } }
                let (t, overflow) = Int128(d).multipliedReportingOverflow(by: p10[exponent])
                guard !overflow else { return nil }
                term = t
            } else {
                guard -exponent < p10.count else { continue }
                term = Int128(d) / p10[-exponent]
            }
            let (sum, overflow) = value.addingReportingOverflow(term)
            guard !overflow else { return nil }
            value = sum
        }
        return sign == 0x4000 ? -value : value
    }

    /// The display scale of a NUMERIC value in binary form (for a column without a type modifier).
    static func numericScale(_ bytes: ByteBuffer) -> Int? {
        guard let s = bytes.getInteger(at: bytes.readerIndex + 6, as: Int16.self), s >= 0 else { return nil }
        return min(Int(s), 37)
    }
}
