// SPDX-License-Identifier: Apache-2.0
import NIOCore
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseEngine

/// PostgreSQL type OIDs and sizes for Slicehouse's types, and the text and binary
/// forms of their values on the wire.
enum WireType {
    static let bool: Int32 = 16, int8: Int32 = 20, int2: Int32 = 21, int4: Int32 = 23, text: Int32 = 25
    static let oid: Int32 = 26, float4: Int32 = 700, float8: Int32 = 701, unknown: Int32 = 705
    static let bpchar: Int32 = 1042, varchar: Int32 = 1043, date: Int32 = 1082, time: Int32 = 1083
    static let timestamp: Int32 = 1114, timestamptz: Int32 = 1184, numeric: Int32 = 1700, name: Int32 = 19
    static let bytea: Int32 = 17, char: Int32 = 18

    static func oid(_ t: DataType) -> Int32 {
        t == .unknown ? text : t.typeOID
    }

    /// pg_type.typlen: the fixed size, or -1 for variable-length types.
    static func size(_ t: DataType) -> Int16 {
        switch t {
        case .smallint: return 2
        case .integer, .real, .date: return 4
        case .bigint, .double, .timestamp, .timestamptz, .time: return 8
        case .timetz: return 12
        case .interval: return 16
        case .boolean: return 1
        default: return -1
        }
    }

    /// The type modifier PostgreSQL reports (`atttypmod`): length + 4 for character
    /// types, (precision << 16 | scale) + 4 for numeric, -1 otherwise.
    static func modifier(_ t: DataType) -> Int32 {
        switch t {
        case .char(let n), .varchar(let n): return Int32(clamping: n + 4)
        case .decimal(let p, let s): return Int32(clamping: (p << 16 | s) + 4)
        default: return -1
        }
    }

    /// The Slicehouse type a parameter declared with `oid` becomes, nil for one that is
    /// untyped (unspecified, text, varchar, unknown: it behaves as a string literal).
    static func parameterType(_ oid: Int32) -> DataType? {
        switch oid {
        case int2: return .smallint
        case int4, Self.oid: return .integer
        case int8: return .bigint
        case numeric: return .decimal(precision: 38, scale: 10)
        case float4: return .real
        case float8: return .double
        case bool: return .boolean
        case date: return .date
        case timestamp, timestamptz: return .timestamp
        default: return nil
        }
    }

    /// The text of a parameter sent in binary form (format 1) with type `oid`.
    static func decodeBinary(_ value: ByteBuffer, oid: Int32) throws -> String {
        var b = value
        func bad() -> ProtocolError { ProtocolError("incorrect binary data format in bind parameter") }
        switch oid {
        case bool:
            guard b.readableBytes == 1, let v = b.readInteger(as: UInt8.self) else { throw bad() }
            return v != 0 ? "true" : "false"
        case int2:
            guard b.readableBytes == 2, let v = b.readInteger(as: Int16.self) else { throw bad() }
            return String(v)
        case int4, Self.oid:
            guard b.readableBytes == 4, let v = b.readInteger(as: Int32.self) else { throw bad() }
            return String(v)
        case int8:
            guard b.readableBytes == 8, let v = b.readInteger(as: Int64.self) else { throw bad() }
            return String(v)
        case float4:
            guard b.readableBytes == 4, let v = b.readInteger(as: UInt32.self) else { throw bad() }
            return FloatFormat.format(Double(Float(bitPattern: v)), real: true)
        case float8:
            guard b.readableBytes == 8, let v = b.readInteger(as: UInt64.self) else { throw bad() }
            return FloatFormat.format(Double(bitPattern: v), real: false)
        case date:
            guard b.readableBytes == 4, let v = b.readInteger(as: Int32.self) else { throw bad() }
            return DateTime.formatDate(Int64(v) + postgresEpochDays)
        case timestamp, timestamptz:
            guard b.readableBytes == 8, let v = b.readInteger(as: Int64.self) else { throw bad() }
            return DateTime.formatTimestamp(v &+ postgresEpochMicros)
        case numeric:
            return try decodeNumeric(&b)
        default:
            guard let s = b.readString(length: b.readableBytes) else { throw bad() }
            return s
        }
    }

    /// Days and microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
    static let postgresEpochDays: Int64 = 10_957
    static let postgresEpochMicros: Int64 = 946_684_800_000_000

    /// NUMERIC's binary form: ndigits, weight, sign, dscale, then base-10000 digits.
    static func decodeNumeric(_ b: inout ByteBuffer) throws -> String {
        guard let n = b.readInteger(as: Int16.self), let weight = b.readInteger(as: Int16.self),
              let sign = b.readInteger(as: UInt16.self), let dscale = b.readInteger(as: Int16.self),
              n >= 0, dscale >= 0, b.readableBytes == Int(n) * 2 else {
            throw ProtocolError("incorrect binary data format in bind parameter")
        }
        if sign == 0xC000 { return "NaN" }
        var digits: [Int] = []
        for _ in 0..<n {
            guard let d = b.readInteger(as: Int16.self), d >= 0, d < 10000 else {
                throw ProtocolError("incorrect binary data format in bind parameter")
            }
            digits.append(Int(d))
        }
        var intPart = ""
        var fracPart = ""
        let w = Int(weight)
        if w < 0 {
            intPart = "0"
        } else {
            for i in 0...w {
                let d = i < digits.count ? digits[i] : 0
                intPart += i == 0 ? String(d) : pad4(d)
            }
        }
        var i = w + 1
        while fracPart.count < Int(dscale) {
            let d = (i >= 0 && i < digits.count) ? digits[i] : 0
            fracPart += pad4(d)
            i += 1
        }
        fracPart = String(fracPart.prefix(Int(dscale)))
        let text = fracPart.isEmpty ? intPart : intPart + "." + fracPart
        return sign == 0x4000 ? "-" + text : text
    }

    private static func pad4(_ d: Int) -> String {
        let s = String(d)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}

/// Appends DataRow messages for the rows of a chunk, each column in the format the
/// client asked for (0 text, 1 binary).
struct RowEncoder {
    let types: [DataType]
    let binary: [Bool]
    /// The session's time zone for TIMESTAMPTZ text (UTC when nil).
    let zone: TimeZoneRule?

    init(types: [DataType], formats: [Int16], zone: TimeZoneRule? = nil) {
        self.types = types
        self.zone = zone
        binary = types.indices.map { i in
            let f = formats.count == 1 ? formats[0] : (i < formats.count ? formats[i] : 0)
            return f == 1
        }
    }

    /// DataRows for rows `from..<to` of `chunk` (a chunk without selection).
    func encode(_ chunk: Chunk, from: Int, to: Int, into out: inout ByteBuffer) {
        let columns = chunk.columns.map { $0.flattened(count: chunk.count) }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(64)
        for r in from..<to {
            out.writeInteger(UInt8(ascii: "D"))
            let lengthAt = out.writerIndex
            out.writeInteger(Int32(0))
            out.writeInteger(Int16(truncatingIfNeeded: columns.count))
            for (c, v) in columns.enumerated() {
                if v.isNull(r) { out.writeInteger(Int32(-1)); continue }
                if binary[c] { writeBinary(v, r, types[c], &out) } else { writeText(v, r, types[c], &out, &scratch) }
            }
            out.setInteger(Int32(out.writerIndex - lengthAt), at: lengthAt)
        }
    }

    private func writeText(_ v: Vector, _ r: Int, _ type: DataType, _ out: inout ByteBuffer, _ scratch: inout [UInt8]) {
        switch v.data {
        case .string(let s):
            let len = s.length(r)
            if case .char(let n) = type, len < n {
                out.writeInteger(Int32(n))
                s.withBytes(r) { _ = out.writeBytes($0) }
                out.writeRepeatingByte(32, count: n - len)
            } else {
                out.writeInteger(Int32(len))
                s.withBytes(r) { _ = out.writeBytes($0) }
            }
        case .int64(let a) where type.isInteger:
            writeDigits(a[r], &out, &scratch)
        case .bool(let a):
            out.writeInteger(Int32(1)); out.writeInteger(a[r] ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        default:
            let text = v.value(at: r).formatted(as: type, zone: zone) ?? ""
            out.writeInteger(Int32(text.utf8.count))
            out.writeString(text)
        }
    }

    private func writeDigits(_ value: Int64, _ out: inout ByteBuffer, _ scratch: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        var m = value.magnitude
        repeat {
            scratch.append(UInt8(48 + m % 10))
            m /= 10
        } while m > 0
        if value < 0 { scratch.append(UInt8(ascii: "-")) }
        out.writeInteger(Int32(scratch.count))
        for b in scratch.reversed() { out.writeInteger(b) }
    }

    private func writeBinary(_ v: Vector, _ r: Int, _ type: DataType, _ out: inout ByteBuffer) {
        switch (v.data, type) {
        case (.int64(let a), .smallint): out.writeInteger(Int32(2)); out.writeInteger(Int16(truncatingIfNeeded: a[r]))
        case (.int64(let a), .integer): out.writeInteger(Int32(4)); out.writeInteger(Int32(truncatingIfNeeded: a[r]))
        case (.int64(let a), .bigint): out.writeInteger(Int32(8)); out.writeInteger(a[r])
        case (.int64(let a), .date):
            out.writeInteger(Int32(4)); out.writeInteger(Int32(truncatingIfNeeded: a[r] - WireType.postgresEpochDays))
        case (.int64(let a), .timestamp), (.int64(let a), .timestamptz):
            out.writeInteger(Int32(8)); out.writeInteger(a[r] &- WireType.postgresEpochMicros)
        case (.int64(let a), .time):
            out.writeInteger(Int32(8)); out.writeInteger(a[r])
        case (.int128(let a), .interval):
            let iv = IntervalValue(packed: a[r])
            out.writeInteger(Int32(16)); out.writeInteger(iv.micros)
            out.writeInteger(Int32(truncatingIfNeeded: iv.days)); out.writeInteger(Int32(truncatingIfNeeded: iv.months))
        case (.double(let a), .real): out.writeInteger(Int32(4)); out.writeInteger(Float(a[r]).bitPattern)
        case (.double(let a), .double): out.writeInteger(Int32(8)); out.writeInteger(a[r].bitPattern)
        case (.bool(let a), _): out.writeInteger(Int32(1)); out.writeInteger(UInt8(a[r] ? 1 : 0))
        case (.int64(let a), .decimal(_, let scale)): writeNumeric(Int128(a[r]), scale: scale, &out)
        case (.int128(let a), .decimal(_, let scale)): writeNumeric(a[r], scale: scale, &out)
        case (.string(let s), .array(let element)): writeArray(s, r, element, &out)
        default:
            // Strings (and anything else) in binary are their text bytes.
            var scratch: [UInt8] = []
            writeText(v, r, type, &out, &scratch)
        }
    }

    /// An integer array's binary form (PostgreSQL's array_send) from its text (`{1,NULL,3}`,
    /// canonical: the catalog and ArrayCasts write it): dimensions, a NULL flag, the element
    /// type, then the length and lower bound (1) of the one dimension, then each element.
    private func writeArray(_ s: StringArray, _ r: Int, _ element: ArrayElement, _ out: inout ByteBuffer) {
        var values: [Int64?] = []
        s.withBytes(r) { p in
            let inner = p.drop(while: { $0 != UInt8(ascii: "{") }).dropFirst().prefix(while: { $0 != UInt8(ascii: "}") })
            for item in inner.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                let text = String(decoding: item, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                values.append(Int64(text))   // NULL (or anything unreadable) is NULL
            }
        }
        let width: Int32
        switch element {
        case .smallint: width = 2
        case .integer: width = 4
        case .bigint: width = 8
        }
        let lengthAt = out.writerIndex
        out.writeInteger(Int32(0))
        out.writeInteger(Int32(values.isEmpty ? 0 : 1))
        out.writeInteger(Int32(values.contains(where: { $0 == nil }) ? 1 : 0))
        out.writeInteger(element.type.typeOID)
        if !values.isEmpty {
            out.writeInteger(Int32(values.count))
            out.writeInteger(Int32(1))
        }
        for v in values {
            guard let v else { out.writeInteger(Int32(-1)); continue }
            out.writeInteger(width)
            switch element {
            case .smallint: out.writeInteger(Int16(truncatingIfNeeded: v))
            case .integer: out.writeInteger(Int32(truncatingIfNeeded: v))
            case .bigint: out.writeInteger(v)
            }
        }
        out.setInteger(Int32(out.writerIndex - lengthAt - 4), at: lengthAt)
    }

    /// NUMERIC's binary form of `unscaled / 10^scale`.
    private func writeNumeric(_ unscaled: Int128, scale: Int, _ out: inout ByteBuffer) {
        var m = unscaled.magnitude
        // Digits of the magnitude in base 10, least significant first, then regrouped
        // around the decimal point into base-10000 digits.
        var decimal: [UInt8] = []
        repeat { decimal.append(UInt8(m % 10)); m /= 10 } while m > 0
        // Every fraction digit present, then both parts padded to whole base-10000 digits
        // around the decimal point.
        while decimal.count < scale { decimal.append(0) }
        let intDigits = decimal.count - scale
        let fracPad = (4 - scale % 4) % 4
        let intPad = (4 - intDigits % 4) % 4
        var digits10 = [UInt8](filled: 0, count: fracPad) + decimal   // least significant first
        digits10 += [UInt8](filled: 0, count: intPad)
        var groups: [Int16] = []   // most significant first
        var i = digits10.count
        while i >= 4 {
            let g = Int16(digits10[i - 1]) * 1000 + Int16(digits10[i - 2]) * 100 + Int16(digits10[i - 3]) * 10 + Int16(digits10[i - 4])
            groups.append(g)
            i -= 4
        }
        let intGroups = (intDigits + intPad) / 4
        var weight = intGroups - 1
        // Strip leading and trailing zero groups (PostgreSQL's canonical form).
        while let f = groups.first, f == 0 { groups.removeFirst(); weight -= 1 }
        while let l = groups.last, l == 0 { groups.removeLast() }
        if groups.isEmpty { weight = 0 }
        out.writeInteger(Int32(8 + 2 * groups.count))
        out.writeInteger(Int16(groups.count))
        out.writeInteger(Int16(truncatingIfNeeded: weight))
        out.writeInteger(UInt16(unscaled < 0 ? 0x4000 : 0))
        out.writeInteger(Int16(scale))
        for g in groups { out.writeInteger(g) }
    }
}

/// RowDescription for `columns`, with the result formats a Bind asked for.
func rowDescription(_ columns: [ResultColumn], formats: [Int16], into w: inout BackendWriter) {
    w.message(UInt8(ascii: "T")) { b in
        b.writeInteger(Int16(truncatingIfNeeded: columns.count))
        for (i, c) in columns.enumerated() {
            b.writeCString(c.name)
            b.writeInteger(Int32(0))      // table OID
            b.writeInteger(Int16(0))      // column number
            b.writeInteger(WireType.oid(c.type))
            b.writeInteger(WireType.size(c.type))
            b.writeInteger(WireType.modifier(c.type))
            let f = formats.count == 1 ? formats[0] : (i < formats.count ? formats[i] : 0)
            b.writeInteger(f)
        }
    }
}
