// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Casts to and from TIMESTAMPTZ, TIME, TIMETZ, INTERVAL, SUPER, VARBYTE and HLLSKETCH.
///
/// These run value by value (`Value`), which is simple and fast enough for the types
/// that only appear around the edges of a query; the numeric, string, DATE and
/// TIMESTAMP casts of the hot paths stay in `CastKernels`.
///
/// SUPER follows PartiQL's dynamic typing: a SUPER value cast to a scalar type is
/// converted when it holds a value of a matching kind and is NULL otherwise (a string
/// to a number, an object to anything but SUPER, a fraction to BOOLEAN, ...), never an
/// error.
package enum ExtendedCasts {
    /// Whether `CastKernels.cast` should hand the cast from `s` to `t` here.
    package static func handles(_ s: DataType, _ t: DataType) -> Bool {
        s.isTextInput || t.isTextInput || s == .hllsketch || t == .hllsketch
    }

    /// Cast `v` to `target`; times of day and local timestamps are read in `zone` (UTC when nil).
    package static func cast(_ v: Vector, to target: DataType, assignment: Bool, zone: TimeZoneRule? = nil) throws -> Vector {
        let source = v.type
        guard TypeRules.canCast(source, target) || source == target else {
            throw SQLError(.datatypeMismatch, "cannot cast type \(source.sqlName) to \(target.sqlName)")
        }
        let n = v.isConstant ? 1 : v.count
        var out = Vector(type: target, capacity: n)
        for i in 0..<n {
            let x = v.value(at: i)
            if x.isNull { out.appendNull(); continue }
            out.append(try convert(x, from: source, to: target, assignment: assignment, zone: zone) ?? .null)
        }
        out.isConstant = v.isConstant
        return out
    }

    /// One value; nil is NULL (SUPER values of the wrong kind).
    package static func convert(_ x: Value, from source: DataType, to target: DataType, assignment: Bool,
                        zone: TimeZoneRule?) throws -> Value? {
        if source == target { return x }
        if source == .superType { return try fromSuper(x, to: target, assignment: assignment, zone: zone) }
        if source.isVarbyte, case .varbyte(let limit) = target {
            guard let hex = x.asString else { return nil }
            if hex.utf8.count <= 2 * limit { return x }
            if assignment { throw SQLError(.stringTooLong, "value too long for type varbyte(\(limit))") }
            return .string(String(hex.prefix(2 * limit)))
        }
        if target == .superType { return try toSuper(x, from: source) }
        if target.isString {
            guard let text = text(x, source, zone: zone) else { return nil }
            return .string(try fit(text, target, assignment: assignment))
        }
        if source.isString || source == .hllsketch {
            guard let s = x.asString else { return nil }
            return try fromText(s, to: target, assignment: assignment, zone: zone)
        }
        guard let t = x.asInt64 else {
            if source == .interval, target == .time, let w = x.asInt128 {
                let iv = IntervalValue(packed: w)
                return .int(DateTime.floorMod(iv.micros, DateTime.microsPerDay))
            }
            throw cannot(source, target)
        }
        let day = DateTime.microsPerDay
        switch (source, target) {
        case (.timestamp, .timestamptz): return .int(zone?.toUTC(local: t) ?? t)
        case (.timestamptz, .timestamp): return .int(zone?.fromUTC(t) ?? t)
        case (.date, .timestamptz):
            let local = t &* day
            return .int(zone?.toUTC(local: local) ?? local)
        case (.timestamptz, .date):
            let local = zone?.fromUTC(t) ?? t
            return .int(local >= 0 ? local / day : (local - day + 1) / day)
        case (.timestamp, .time): return .int(DateTime.floorMod(t, day))
        case (.timestamptz, .time): return .int(DateTime.floorMod(zone?.fromUTC(t) ?? t, day))
        case (.timestamptz, .timetz): return .int(DateTime.floorMod(t, day))
        case (.time, .timetz), (.timetz, .time): return .int(t)
        case (.date, .timestamp): return .int(t &* day)
        case (.timestamp, .date): return .int(t >= 0 ? t / day : (t - day + 1) / day)
        case (.time, .interval):
            return IntervalValue(micros: t).packed.map { .int128($0) }
        default:
            throw cannot(source, target)
        }
    }

    package static func cannot(_ s: DataType, _ t: DataType) -> SQLError {
        SQLError(.datatypeMismatch, "cannot cast type \(s.sqlName) to \(t.sqlName)")
    }

    /// The text form of a non-SUPER value.
    package static func text(_ x: Value, _ t: DataType, zone: TimeZoneRule?) -> String? {
        switch t {
        case .timestamptz:
            guard let v = x.asInt64 else { return nil }
            return DateTime.formatTimestampTZ(v, zone: zone)
        case .varbyte:
            // VARBYTE to VARCHAR reads the bytes as UTF-8 text.
            guard let hex = x.asString else { return nil }
            let bytes = Array(hex.utf8).withUnsafeBufferPointer { VarbyteText.bytes(fromHex: $0) }
            return String(decoding: bytes, as: UTF8.self)
        default:
            return x.formatted(as: t)
        }
    }

    /// A string target: truncated, or an error for an assignment that would lose characters.
    package static func fit(_ s: String, _ target: DataType, assignment: Bool) throws -> String {
        var out = StringBuilder(rows: 1, bytes: s.utf8.count)
        let isChar: Bool = { if case .char = target { return true }; return false }()
        try Array(s.utf8).withUnsafeBufferPointer { p in
            try CastKernels.appendFitted(p, limit: CastKernels.maxLength(target), isChar: isChar, assignment: assignment,
                                         checked: true, target: target, to: &out)
        }
        return String(decoding: out.bytes, as: UTF8.self)
    }

    package static func invalid(_ t: DataType, _ s: String) -> SQLError {
        let word: String
        switch t {
        case .timestamptz: word = "timestamp with time zone"
        case .time: word = "time"
        case .timetz: word = "time with time zone"
        default: word = t.sqlName
        }
        return SQLError(.invalidText, "invalid input syntax for type \(word): \"\(s)\"")
    }

    /// Text to a TIMESTAMPTZ, TIME, TIMETZ, INTERVAL, VARBYTE or HLLSKETCH.
    package static func fromText(_ s: String, to target: DataType, assignment: Bool, zone: TimeZoneRule?) throws -> Value? {
        switch target {
        case .timestamptz:
            guard let v = DateTime.parseTimestampTZ(s, zone: zone) else { throw invalid(target, s) }
            return .int(v)
        case .time:
            // A time with an offset reads as the time alone, as PostgreSQL's does.
            guard let v = DateTime.parseTime(s) ?? Array(s.utf8).withUnsafeBufferPointer({ DateTime.parseTimeOfDay(DateTime.splitOffset($0).0) }) else {
                throw invalid(target, s)
            }
            return .int(v)
        case .timetz:
            guard let v = DateTime.parseTimeTZ(s) else { throw invalid(target, s) }
            return .int(v)
        case .interval:
            guard let iv = DateTime.parseInterval(s) else {
                throw SQLError(.invalidDatetime, "invalid input syntax for type interval: \"\(s)\"")
            }
            guard let p = iv.packed else { throw SQLError(.datetimeOverflow, "interval out of range") }
            return .int128(p)
        case .varbyte(let limit):
            // The text's UTF-8 bytes ('abc'::varbyte is 616263).
            var bytes = Array(s.utf8)
            if bytes.count > limit {
                if assignment { throw SQLError(.stringTooLong, "value too long for type varbyte(\(limit))") }
                bytes.removeLast(bytes.count - limit)
            }
            var hex: [UInt8] = []
            bytes.withUnsafeBufferPointer { VarbyteText.appendHex($0, to: &hex) }
            return .string(String(decoding: hex, as: UTF8.self))
        case .hllsketch:
            return .string(s)
        default:
            // A number, DATE, TIMESTAMP or BOOLEAN from HLLSKETCH text: through the string casts.
            let v = try CastKernels.cast(Vector.constant(.string(s), type: .text), to: target, assignment: assignment)
            return v.value(at: 0)
        }
    }

    // MARK: - SUPER

    /// A scalar as a SUPER value: numbers and booleans as JSON, strings quoted.
    package static func toSuper(_ x: Value, from source: DataType) throws -> Value? {
        if source.isString {
            guard let s = x.asString else { return nil }
            var out: [UInt8] = []
            Array(s.utf8).withUnsafeBufferPointer { SuperJSON.appendQuoted($0, to: &out) }
            return .string(String(decoding: out, as: UTF8.self))
        }
        if source.isNumeric {
            if case .double(let d) = x, !d.isFinite { return nil }
            return x.formatted(as: source).map { .string($0) }
        }
        if source == .boolean, let b = x.asBool { return .string(b ? "true" : "false") }
        throw cannot(source, .superType)
    }

    /// A SUPER value as a scalar type (NULL when it holds something else).
    package static func fromSuper(_ x: Value, to target: DataType, assignment: Bool, zone: TimeZoneRule?) throws -> Value? {
        guard let s = x.asString else { return nil }
        let bytes = Array(s.utf8)
        return try bytes.withUnsafeBufferPointer { v -> Value? in
            guard let kind = SuperJSON.kind(v) else { return nil }
            switch target {
            case _ where target.isString:
                guard kind == .string || kind == .number || kind == .boolean, let t = SuperJSON.scalarText(v) else { return nil }
                return .string(try fit(String(decoding: t, as: UTF8.self), target, assignment: false))
            case _ where target.isNumeric:
                guard kind == .number else { return nil }
                let text = String(decoding: v, as: UTF8.self)
                if target.isInteger && !SuperJSON.isIntegerText(v) {
                    // A number with a fraction rounds, as a NUMERIC cast to an integer does.
                    guard let d = Double(text), let i = Int64(exactly: d.rounded(.toNearestOrAwayFromZero)),
                          target.integerRange?.contains(i) ?? true else { return nil }
                    return .int(i)
                }
                return try? CastKernels.cast(Vector.constant(.string(text), type: .text), to: target).value(at: 0)
            case .boolean:
                if kind == .boolean { return .bool(v.first == 0x74) }
                // An integer converts (5 is true); a number with a fraction does not.
                guard kind == .number, SuperJSON.isIntegerText(v), let i = Int64(String(decoding: v, as: UTF8.self)) else { return nil }
                return .bool(i != 0)
            case _ where target.isDateTimeFamily:
                guard kind == .string, let t = SuperJSON.scalarText(v) else { return nil }
                let text = String(decoding: t, as: UTF8.self)
                if target == .date || target == .timestamp {
                    return try? CastKernels.cast(Vector.constant(.string(text), type: .text), to: target).value(at: 0)
                }
                return try? fromText(text, to: target, assignment: false, zone: zone)
            default:
                throw cannot(.superType, target)
            }
        }
    }
}
