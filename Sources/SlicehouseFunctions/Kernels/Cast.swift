// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// CAST between all types.
///
/// - numeric ↔ numeric: rescaling rounds half away from zero; integer targets are
///   range-checked (`integer out of range`), decimal targets precision-checked
///   (`numeric field overflow`); float → exact rounds half away from zero;
/// - anything → CHAR/VARCHAR: PostgreSQL text forms; a value longer than the target
///   is truncated (explicit cast) or, with `assignment` (INSERT/UPDATE), an error
///   `value too long for type character varying(n)` unless only blanks are cut;
///   CHAR values are stored without trailing blanks;
/// - CHAR/VARCHAR → numbers, dates, timestamps, booleans: parsed, with
///   `invalid input syntax for type integer: "abc"` (22P02) on bad text;
/// - DATE ↔ TIMESTAMP; BOOLEAN ↔ integers;
/// - the catalog's integer arrays ↔ text (`ArrayCasts`).
package enum CastKernels {

    /// Cast every stored value of `v` to `target` (a constant stays constant).
    package static func cast(_ v: Vector, to target: DataType, assignment: Bool = false) throws -> Vector {
        let source = v.type
        if Kern.isConstNull(v) { return Kern.constNull(target) }
        if source == target { return v }
        if source == .unknown {
            return v.isConstant ? Kern.constNull(target) : Vector.nulls(target, count: v.count)
        }
        if ArrayCasts.handles(source, target) {
            return try ArrayCasts.cast(v, to: target, assignment: assignment)
        }
        if ExtendedCasts.handles(source, target) {
            return try ExtendedCasts.cast(v, to: target, assignment: assignment)
        }
        if target.isString { return try toString(v, target, assignment: assignment) }
        if source.isString { return try fromString(v, target) }
        let isExact: (DataType) -> Bool = { $0.isInteger || $0.isDecimal }
        switch (source, target) {
        case _ where isExact(source) && isExact(target):
            return try exactToExact(v, target)
        case _ where isExact(source) && target.isFloat:
            return try exactToFloat(v, target)
        case _ where source.isFloat && isExact(target):
            return try floatToExact(v, target)
        case _ where source.isFloat && target.isFloat:
            if target == .double { return v.retyped(.double) }
            let x = try Kern.doubles(v)
            let (out, bad) = Kern.map1Checked(x) { d -> (Double, Bool) in
                let f = Float(d)
                return (Double(f), f.isInfinite && d.isFinite)
            }
            if bad && Kern.anyValidRow(v.validity, x.count, { Float(x[$0]).isInfinite && x[$0].isFinite }) {
                throw ArithmeticKernels.floatOverflow
            }
            return Vector(type: target, data: .double(out), validity: v.validity, isConstant: v.isConstant)
        case (.boolean, _) where target.isInteger:
            let x = try Kern.bools(v)
            return Vector(type: target, data: .int64(Kern.map1(x) { $0 ? 1 : 0 }), validity: v.validity, isConstant: v.isConstant)
        case (_, .boolean) where source.isInteger:
            let x = try Kern.int64s(v)
            return Vector(type: target, data: .bool(Kern.map1(x) { $0 != 0 }), validity: v.validity, isConstant: v.isConstant)
        case (.date, .timestamp):
            let x = try Kern.int64s(v)
            let out = try Kern.checked1(DateToTimestamp(), x, v.validity) { _ in
                SQLError(.datetimeOverflow, "date out of range for timestamp")
            }
            return Vector(type: target, data: .int64(out), validity: v.validity, isConstant: v.isConstant)
        case (.timestamp, .date):
            let x = try Kern.int64s(v)
            let out = Kern.map(TimestampToDate(), x)
            return Vector(type: target, data: .int64(out), validity: v.validity, isConstant: v.isConstant)
        default:
            throw SQLError(.datatypeMismatch, "cannot cast type \(source.sqlName) to \(target.sqlName)")
        }
    }

    // MARK: - Numbers

    /// The error for a value that does not fit an exact numeric target.
    package static func exactOverflow(_ target: DataType) -> SQLError {
        if case .decimal(let p, let s) = target {
            return SQLError(.numericOutOfRange, "numeric field overflow",
                            detail: "A field with precision \(p), scale \(s) must round to an absolute value less than 10^\(p - s).")
        }
        return SQLError.overflow(target)
    }

    /// Inclusive bound of the absolute value of a target (integer ranges are asymmetric:
    /// `lo` is returned separately).
    package static func bounds(_ t: DataType) -> (lo: Int128, hi: Int128) {
        if let r = t.integerRange { return (Int128(r.lowerBound), Int128(r.upperBound)) }
        let m = DecimalMath.maxValue(precision: t.precision)
        return (-m, m)
    }

    /// Whether every value of `s` is representable unchanged in `t` (same physical form and scale).
    package static func isWidening(_ s: DataType, _ t: DataType) -> Bool {
        guard s.physical == t.physical, s.scale == t.scale else { return false }
        let sb = bounds(s), tb = bounds(t)
        return tb.lo <= sb.lo && sb.hi <= tb.hi
    }

    package static func exactToExact(_ v: Vector, _ target: DataType) throws -> Vector {
        if isWidening(v.type, target) { return v.retyped(target) }
        let ss = v.type.scale, ts = target.scale
        let (lo, hi) = bounds(target)
        if abs(ts - ss) > 38 { throw exactOverflow(target) }
        let up: Int128 = ts > ss ? DecimalMath.pow10[ts - ss] : 1
        let down: Int128 = ss > ts ? DecimalMath.pow10[ss - ts] : 1
        // Int64 → Int64 with small factors: stay in 64 bits.
        if case .int64(let x) = v.data, target.physical == .int64, up <= Int128(Int64.max), down <= Int128(Int64.max) {
            let op = Rescale64(up: Int64(up), down: Int64(down), lo: Int64(lo), hi: Int64(hi))
            let out = try Kern.checked1(op, x, v.validity) { _ in exactOverflow(target) }
            return Vector(type: target, data: .int64(out), validity: v.validity, isConstant: v.isConstant)
        }
        let x = try Kern.wideInts(v)
        let f: (Int128) -> (Int128, Bool) = { a in
            var r = a
            var o = false
            if down != 1 { r = ArithmeticKernels.divRound(r, down) }
            if up != 1 { (r, o) = r.multipliedReportingOverflow(by: up) }
            return (r, o || r < lo || r > hi)
        }
        let (out, bad) = Kern.map1Checked(x, f)
        if bad && Kern.anyValidRow(v.validity, x.count, { f(x[$0]).1 }) { throw exactOverflow(target) }
        let data: VectorData = target.physical == .int128 ? .int128(out) : .int64(Kern.map1(out) { Int64(truncatingIfNeeded: $0) })
        return Vector(type: target, data: data, validity: v.validity, isConstant: v.isConstant)
    }

    package static func exactToFloat(_ v: Vector, _ target: DataType) throws -> Vector {
        let s = v.type.scale
        let div = pow10Double(s)
        var out: [Double]
        switch v.data {
        case .int64(let x): out = Kern.map(Int64ToDouble(div: div), x)
        case .int128(let x): out = Kern.map1(x) { Self.double($0) / div }
        default: throw Kern.mismatch(v, "int64/int128")
        }
        if target == .real { out = Kern.map1(out) { Double(Float($0)) } }
        return Vector(type: target, data: .double(out), validity: v.validity, isConstant: v.isConstant)
    }

    /// `Double(x)`, rounded as it rounds: through Int64 when x fits in one (the standard
    /// library's conversion from Int128 is generic and unspecialized, about 40 ns a value:
    /// TPC-DS q39's `stddev_samp(...) * 1.000`, a NUMERIC(38) cast to DOUBLE per row).
    @inline(__always) package static func double(_ x: Int128) -> Double {
        let low = Int64(truncatingIfNeeded: x)
        return Int128(low) == x ? Double(low) : Double(x)
    }

    /// 10^e as a Double (exact up to 10^22).
    package static func pow10Double(_ e: Int) -> Double {
        var r = 1.0
        for _ in 0..<max(0, e) { r *= 10 }
        return r
    }

    package static func floatToExact(_ v: Vector, _ target: DataType) throws -> Vector {
        let x = try Kern.doubles(v)
        let scale = pow10Double(target.scale)
        let (lo, hi) = bounds(target)
        if target.physical == .int64 {
            // Compare in Double before converting (a Double at or beyond 2^63 would trap).
            let dlo = Double(Int64(truncatingIfNeeded: lo)), dhi = Double(Int64(truncatingIfNeeded: hi))
            let l = Int64(truncatingIfNeeded: lo), h = Int64(truncatingIfNeeded: hi)
            let f: (Double) -> (Int64, Bool) = { d in
                let r = (d * scale).rounded(.toNearestOrAwayFromZero)
                guard r.isFinite, r >= dlo, r <= dhi, r < 9.223372036854775807e18 else { return (0, true) }
                let i = Int64(r)
                return (i, i < l || i > h)
            }
            let (out, bad) = Kern.map1Checked(x, f)
            if bad && Kern.anyValidRow(v.validity, x.count, { f(x[$0]).1 }) { throw exactOverflow(target) }
            return Vector(type: target, data: .int64(out), validity: v.validity, isConstant: v.isConstant)
        }
        let dlim = 1e38
        let f: (Double) -> (Int128, Bool) = { d in
            let r = (d * scale).rounded(.toNearestOrAwayFromZero)
            guard r.isFinite, r > -dlim, r < dlim else { return (0, true) }
            let i = Int128(r)
            return (i, i < lo || i > hi)
        }
        let (out, bad) = Kern.map1Checked(x, f)
        if bad && Kern.anyValidRow(v.validity, x.count, { f(x[$0]).1 }) { throw exactOverflow(target) }
        return Vector(type: target, data: .int128(out), validity: v.validity, isConstant: v.isConstant)
    }

    // MARK: - To text

    /// The byte length limit of a string type.
    package static func maxLength(_ t: DataType) -> Int {
        switch t {
        case .char(let n), .varchar(let n): return n
        default: return DataType.maxVarcharLength
        }
    }

    package static func tooLong(_ t: DataType) -> SQLError {
        SQLError(.stringTooLong, "value too long for type \(t.sqlName)")
    }

    /// Length of the longest prefix of `p` of at most `limit` bytes that ends on a character boundary.
    @inline(__always) package static func truncatedLength(_ p: UnsafeBufferPointer<UInt8>, _ limit: Int) -> Int {
        if p.count <= limit { return p.count }
        var k = limit
        while k > 0 && (p[k] & 0xC0) == 0x80 { k -= 1 }
        return k
    }

    package static func toString(_ v: Vector, _ target: DataType, assignment: Bool) throws -> Vector {
        let limit = maxLength(target)
        let isChar: Bool = { if case .char = target { return true }; return false }()
        let rows = v.count
        let validity = v.validity
        // String → string: keep the buffer when nothing needs changing.
        if case .string(let s) = v.data {
            var needsWork = false
            for i in 0..<rows where s.length(i) > limit || (isChar && s.length(i) > 0 && s.bytes[Int(s.offsets[i + 1]) - 1] == 32) {
                if Kern.valid(validity, i) || v.isConstant { needsWork = true; break }
            }
            if !needsWork { return v.retyped(target) }
            var out = StringBuilder(rows: rows, bytes: s.bytes.count)
            try s.bytes.withUnsafeBufferPointer { b in
                for i in 0..<rows {
                    let st = Int(s.offsets[i]), en = Int(s.offsets[i + 1])
                    let p = UnsafeBufferPointer(rebasing: b[st..<en])
                    try appendFitted(p, limit: limit, isChar: isChar, assignment: assignment,
                                     checked: Kern.valid(validity, i), target: target, to: &out)
                    out.finishRow()
                }
            }
            return Vector(type: target, data: .string(out.array), validity: validity, isConstant: v.isConstant)
        }
        // Other types: format each value, then fit it.
        var out = StringBuilder(rows: rows, bytes: rows * 12)
        var scratch = StringBuilder(rows: 1, bytes: 48)
        let t = v.type
        for i in 0..<rows {
            scratch.bytes.removeAll(keepingCapacity: true)
            if Kern.valid(validity, i) {
                switch v.data {
                case .int64(let x):
                    switch t {
                    case .date: TextFormat.appendDate(x[i], to: &scratch)
                    case .timestamp: TextFormat.appendTimestamp(x[i], to: &scratch)
                    case .decimal(_, let sc): TextFormat.appendDecimal(x[i], scale: sc, to: &scratch)
                    default: TextFormat.appendInt(x[i], to: &scratch)
                    }
                case .int128(let x): TextFormat.appendDecimal(x[i], scale: t.scale, to: &scratch)
                case .double(let x): TextFormat.appendDouble(x[i], real: t == .real, to: &scratch)
                case .bool(let x): TextFormat.appendBool(x[i], to: &scratch)
                case .string: break
                }
            }
            try scratch.bytes.withUnsafeBufferPointer { p in
                try appendFitted(p, limit: limit, isChar: isChar, assignment: assignment,
                                 checked: Kern.valid(validity, i), target: target, to: &out)
            }
            out.finishRow()
        }
        return Vector(type: target, data: .string(out.array), validity: validity, isConstant: v.isConstant)
    }

    /// Append `p` fitted to a string target: truncated (or an error for assignments when
    /// non-blank characters would be lost); CHAR without trailing blanks.
    @inline(__always)
    package static func appendFitted(_ p: UnsafeBufferPointer<UInt8>, limit: Int, isChar: Bool, assignment: Bool,
                             checked: Bool, target: DataType, to out: inout StringBuilder) throws {
        var len = p.count
        if len > limit {
            if assignment && checked {
                for k in limit..<len where p[k] != 32 { throw tooLong(target) }
            }
            len = truncatedLength(p, limit)
        }
        if isChar { while len > 0 && p[len - 1] == 32 { len -= 1 } }
        if len > 0 { out.append(UnsafeBufferPointer(rebasing: p[0..<len])) }
    }

    // MARK: - From text

    package static func invalidText(_ t: DataType, _ p: UnsafeBufferPointer<UInt8>) -> SQLError {
        SQLError(.invalidText, "invalid input syntax for type \(typeWord(t)): \"\(String(decoding: p, as: UTF8.self))\"")
    }
    package static func typeWord(_ t: DataType) -> String {
        switch t {
        case .decimal: return "numeric"
        case .timestamp: return "timestamp"
        default: return t.sqlName
        }
    }

    package enum IntParse { case ok(Int64), invalid, overflow }

    /// Parse an integer: blanks around, an optional sign, digits.
    package static func parseInt(_ b: UnsafeBufferPointer<UInt8>) -> IntParse {
        var i = 0, n = b.count
        while i < n && (b[i] == 32 || b[i] == 9 || b[i] == 10 || b[i] == 13) { i += 1 }
        while n > i && (b[n - 1] == 32 || b[n - 1] == 9 || b[n - 1] == 10 || b[n - 1] == 13) { n -= 1 }
        guard i < n else { return .invalid }
        var neg = false
        if b[i] == 45 { neg = true; i += 1 } else if b[i] == 43 { i += 1 }
        guard i < n else { return .invalid }
        var v: Int64 = 0
        var overflow = false
        while i < n {
            let c = b[i]
            guard c >= 48 && c <= 57 else { return .invalid }
            let d = Int64(c - 48)
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (r, o2) = neg ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { overflow = true }
            v = r
            i += 1
        }
        return overflow ? .overflow : .ok(v)
    }

    /// Parse a boolean the way PostgreSQL does: t/true/y/yes/on/1, f/false/n/no/off/0
    /// (any unique prefix, case-insensitive, blanks around).
    package static func parseBool(_ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        guard i < n else { return nil }
        var word: [UInt8] = []
        for k in i..<n { let c = b[k]; word.append(c >= 65 && c <= 90 ? c + 32 : c) }
        func prefix(of full: String, min: Int) -> Bool {
            let f = Array(full.utf8)
            return word.count >= min && word.count <= f.count && Array(f[0..<word.count]) == word
        }
        if prefix(of: "true", min: 1) || prefix(of: "yes", min: 1) || prefix(of: "on", min: 2) || word == [49] { return true }
        if prefix(of: "false", min: 1) || prefix(of: "no", min: 1) || prefix(of: "off", min: 2) || word == [48] { return false }
        return nil
    }

    /// Parse a double (also `Infinity`, `-Infinity`, `NaN`).
    package static func parseDouble(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0, n = b.count
        while i < n && (b[i] == 32 || b[i] == 9) { i += 1 }
        while n > i && (b[n - 1] == 32 || b[n - 1] == 9) { n -= 1 }
        guard i < n else { return nil }
        // Reject hexadecimal forms that Swift would accept.
        for k in i..<n where b[k] == 120 || b[k] == 88 { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: b[i..<n]), as: UTF8.self))
    }

    package static func fromString(_ v: Vector, _ target: DataType) throws -> Vector {
        let s = try Kern.strings(v)
        let rows = v.count
        let validity = v.validity
        let data: VectorData = try s.bytes.withUnsafeBufferPointer { bytes -> VectorData in
            @inline(__always) func value(_ i: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: bytes[Int(s.offsets[i])..<Int(s.offsets[i + 1])])
            }
            switch target {
            case .smallint, .integer, .bigint:
                let range = target.integerRange ?? (Int64.min...Int64.max)
                var out = [Int64](filled: 0, count: rows)
                for i in 0..<rows where Kern.valid(validity, i) {
                    let p = value(i)
                    switch parseInt(p) {
                    case .ok(let x):
                        guard range.contains(x) else {
                            throw SQLError(.numericOutOfRange,
                                           "value \"\(String(decoding: p, as: UTF8.self))\" is out of range for type \(target.sqlName)")
                        }
                        out[i] = x
                    case .overflow:
                        throw SQLError(.numericOutOfRange,
                                       "value \"\(String(decoding: p, as: UTF8.self))\" is out of range for type \(target.sqlName)")
                    case .invalid:
                        throw invalidText(target, p)
                    }
                }
                return .int64(out)
            case .decimal(let p, let sc):
                var out = [Int128](filled: 0, count: rows)
                for i in 0..<rows where Kern.valid(validity, i) {
                    switch DecimalMath.parse(value(i), scale: sc, precision: p) {
                    case .ok(let x): out[i] = x
                    case .invalid: throw invalidText(target, value(i))
                    case .overflow: throw exactOverflow(target)
                    }
                }
                return target.physical == .int128 ? .int128(out) : .int64(Kern.map1(out) { Int64(truncatingIfNeeded: $0) })
            case .real, .double:
                var out = [Double](filled: 0, count: rows)
                for i in 0..<rows where Kern.valid(validity, i) {
                    guard let d = parseDouble(value(i)) else { throw invalidText(target, value(i)) }
                    if Double.isOutOfRange(d, text: value(i)) {
                        throw SQLError(.numericOutOfRange,
                                       "\"\(String(decoding: value(i), as: UTF8.self))\" is out of range for type \(target == .real ? "real" : "double precision")")
                    }
                    if target == .real {
                        let f = Float(d)
                        if f.isInfinite && d.isFinite {
                            throw SQLError(.numericOutOfRange,
                                           "\"\(String(decoding: value(i), as: UTF8.self))\" is out of range for type real")
                        }
                        out[i] = Double(f)
                    } else {
                        out[i] = d
                    }
                }
                return .double(out)
            case .boolean:
                var out = [Bool](filled: false, count: rows)
                for i in 0..<rows where Kern.valid(validity, i) {
                    guard let b = parseBool(value(i)) else { throw invalidText(target, value(i)) }
                    out[i] = b
                }
                return .bool(out)
            case .date:
                var out = [Int64](filled: 0, count: rows)
                for i in 0..<rows where Kern.valid(validity, i) {
                    guard let d = DateTime.parseDateOfTimestamp(value(i)) ?? DateTime.withoutZone(value(i), DateTime.parseDateOfTimestamp) else {
                        throw invalidText(target, value(i))
                    }
                    out[i] = d
                }
                return .int64(out)
            case .timestamp:
                var out = [Int64](filled: 0, count: rows)
                for i in 0..<rows where Kern.valid(validity, i) {
                    guard let d = DateTime.parseTimestamp(value(i)) ?? DateTime.withoutZone(value(i), DateTime.parseTimestamp) else {
                        throw invalidText(target, value(i))
                    }
                    out[i] = d
                }
                return .int64(out)
            default:
                throw SQLError(.datatypeMismatch, "cannot cast type \(v.type.sqlName) to \(target.sqlName)")
            }
        }
        return Vector(type: target, data: data, validity: validity, isConstant: v.isConstant)
    }
}

// MARK: - Row operations

/// Rescale an Int64 exact numeric (divide with rounding, or multiply) and range-check it.
package struct Rescale64: RowOp1 {
    package let up: Int64, down: Int64, lo: Int64, hi: Int64
    @inline(__always) package func apply(_ a: Int64) -> (Int64, Bool) {
        var r = a
        var o = false
        if down != 1 { r = ArithmeticKernels.divRound(r, down) }
        if up != 1 { (r, o) = r.multipliedReportingOverflow(by: up) }
        return (r, o || r < lo || r > hi)
    }
}
/// A scaled Int64 as a Double.
package struct Int64ToDouble: RowOp1 {
    package let div: Double
    @inline(__always) package func apply(_ a: Int64) -> (Double, Bool) { (div == 1 ? Double(a) : Double(a) / div, false) }
}
