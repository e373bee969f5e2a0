// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// How one Parquet column becomes one Slicehouse vector: chosen once per column chunk,
/// then applied to whole pages with tight loops (no per-value boxing).
///
/// Supported conversions (anything else is a `datatypeMismatch` error naming both types):
///
/// | Parquet values                          | into                                              |
/// |-----------------------------------------|---------------------------------------------------|
/// | INT32/INT64 integers (signed/unsigned)  | SMALLINT, INTEGER, BIGINT, DECIMAL, REAL, DOUBLE  |
/// | DECIMAL (INT32, INT64, FIXED, BINARY)   | same, rescaled to the target scale (half away from zero) |
/// | FLOAT, DOUBLE                           | REAL, DOUBLE; integers and DECIMAL (rounded)      |
/// | DATE                                    | DATE, TIMESTAMP (midnight)                        |
/// | TIMESTAMP millis/micros/nanos, INT96    | TIMESTAMP (floored to µs), DATE (floored to the day) |
/// | BOOLEAN                                 | BOOLEAN                                           |
/// | BYTE_ARRAY / FIXED (STRING, ENUM, JSON, none) | CHAR, VARCHAR (length and UTF-8 checked)    |
/// | NULL-typed columns                      | any type (all NULL)                               |
///
/// Every narrowing is range checked: a value that does not fit its column is a
/// `numericOutOfRange` error that shows the value.
struct ConversionPlan {
    enum Route {
        /// INT32/INT64 (integers, INT decimals, dates, timestamps) into an Int64 vector.
        case integers(Rescale)
        /// INT32/INT64 into an Int128 vector (wide decimals).
        case integersToWide(Rescale128)
        /// INT32/INT64 into a Double vector (`scale` divides decimals).
        case integersToDouble(scale: Int)
        /// INT96 timestamps into microseconds, or into days when `toDate`.
        case int96(toDate: Bool)
        /// FLOAT/DOUBLE into Int64 (integers and decimals): scaled, rounded, checked.
        case floatsToInteger(multiplier: Double, lo: Int64, hi: Int64)
        /// FLOAT/DOUBLE into Int128 (wide decimals).
        case floatsToWide(multiplier: Double, maxMagnitude: Int128)
        case floatsToDouble
        /// Big-endian decimal bytes into Int64 (then `lo...hi`).
        case bytesDecimal(Rescale128, lo: Int64, hi: Int64)
        /// Big-endian decimal bytes into Int128.
        case bytesDecimalToWide(Rescale128)
        case bytesDecimalToDouble(scale: Int)
        case booleans
        /// Byte arrays into strings of at most `limit` bytes (CHAR drops trailing blanks).
        case strings(limit: Int, trimTrailingBlanks: Bool)
    }

    let route: Route
    let source: SourceKind
    let physical: ParquetPhysicalType
    let target: DataType
    let options: ParquetReadOptions
    /// REAL targets round every value through Float.
    let roundToFloat: Bool

    var targetPhysical: PhysicalType { target.physical }

    init(column c: ParquetColumn, target: DataType, options: ParquetReadOptions) throws {
        let source = try SourceKind.of(c)
        guard let physical = c.physicalType else { throw ParquetError.unsupported("physical type") }
        self.source = source
        self.physical = physical
        self.target = target
        self.options = options
        self.roundToFloat = target == .real
        let incompatible = ParquetError(
            "cannot load Parquet \(physical)\(c.logicalType == .none ? "" : " \(c.logicalType)") values into a column of type \(target.sqlName)",
            code: .datatypeMismatch)

        if c.logicalType == .null {
            // Only NULLs: any target works; values are never converted.
            switch target.physical {
            case .int64: route = .integers(Rescale())
            case .int128: route = .integersToWide(Rescale128(fromScale: 0, toScale: 0, maxMagnitude: 0))
            case .double: route = .floatsToDouble
            case .bool: route = .booleans
            case .string: route = .strings(limit: Int.max, trimTrailingBlanks: false)
            }
            return
        }

        if case .decimal(let p, let s) = target {
            guard p >= 1, p <= DataType.maxDecimalPrecision, s >= 0, s <= p else {
                throw ParquetError("invalid target type \(target.sqlName)", code: .invalidParameter)
            }
        }
        switch target {
        case .smallint, .integer, .bigint, .decimal:
            let toScale = target.scale
            let wide = target.physical == .int128
            let lo: Int64, hi: Int64
            if let r = target.integerRange {
                lo = r.lowerBound; hi = r.upperBound
            } else if !wide {
                let m = Int64(DecimalMath.maxValue(precision: target.precision))
                lo = -m; hi = m
            } else {
                lo = .min; hi = .max
            }
            let maxWide = DecimalMath.maxValue(precision: target.precision)
            switch source {
            case .integer, .decimal:
                let fromScale: Int
                if case .decimal(let s) = source { fromScale = s } else { fromScale = 0 }
                if physical == .int32 || physical == .int64 {
                    if wide {
                        route = .integersToWide(Rescale128(fromScale: fromScale, toScale: toScale, maxMagnitude: maxWide))
                    } else {
                        var r = Rescale(lo: lo, hi: hi)
                        if toScale >= fromScale {
                            guard toScale - fromScale <= 18 else { throw ParquetError.unsupported("decimal rescaling by \(toScale - fromScale) digits") }
                            r.multiplier = DecimalMath.pow10Int64[toScale - fromScale]
                        } else {
                            guard fromScale - toScale <= 18 else { throw ParquetError.unsupported("decimal rescaling by \(fromScale - toScale) digits") }
                            r.divisor = DecimalMath.pow10Int64[fromScale - toScale]
                        }
                        route = .integers(r)
                    }
                } else {
                    // FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY decimals.
                    let r = Rescale128(fromScale: fromScale, toScale: toScale, maxMagnitude: wide ? maxWide : Int128(Int64.max))
                    route = wide ? .bytesDecimalToWide(r) : .bytesDecimal(r, lo: lo, hi: hi)
                }
            case .float, .double:
                let m = pow10Double(toScale)
                route = wide ? .floatsToWide(multiplier: m, maxMagnitude: maxWide) : .floatsToInteger(multiplier: m, lo: lo, hi: hi)
            default:
                throw incompatible
            }
        case .real, .double:
            switch source {
            case .integer: route = .integersToDouble(scale: 0)
            case .decimal(let s):
                route = (physical == .int32 || physical == .int64) ? .integersToDouble(scale: s) : .bytesDecimalToDouble(scale: s)
            case .float, .double: route = .floatsToDouble
            default: throw incompatible
            }
        case .boolean:
            guard source == .boolean else { throw incompatible }
            route = .booleans
        case .char(let n), .varchar(let n):
            guard source == .bytes else { throw incompatible }
            var trim = false
            if case .char = target { trim = true }
            route = .strings(limit: n, trimTrailingBlanks: trim)
        case .date:
            switch source {
            case .date: route = .integers(Rescale())
            case .timestamp(let unit):
                route = .integers(Rescale(divisor: unit.perSecond * 86_400, floorDivision: true))
            case .int96: route = .int96(toDate: true)
            default: throw incompatible
            }
        case .timestamp, .timestamptz:
            switch source {
            case .date: route = .integers(Rescale(multiplier: DateTime.microsPerDay))
            case .timestamp(.millis): route = .integers(Rescale(multiplier: 1_000))
            case .timestamp(.micros): route = .integers(Rescale())
            case .timestamp(.nanos): route = .integers(Rescale(divisor: 1_000, floorDivision: true))
            case .int96: route = .int96(toDate: false)
            default: throw incompatible
            }
        case .unknown, .time, .timetz, .interval, .superType, .varbyte, .hllsketch, .array:
            throw incompatible
        }
    }

    // MARK: - Error text

    /// A value that does not fit, described in the source's terms.
    func outOfRange(_ raw: Int128) -> ParquetError {
        var shown = String(raw)
        if case .decimal(let s) = source { shown = DecimalFormat.format(raw, scale: s) }
        return .outOfRange("value \(shown) is out of range for type \(target.sqlName)", value: shown)
    }

    func outOfRange(_ d: Double) -> ParquetError {
        .outOfRange("value \(d) is out of range for type \(target.sqlName)", value: "\(d)")
    }

    // MARK: - Int64 targets

    /// Convert `src` into `dst` (one slot per value).
    func convert(_ src: PhysicalValues, into dst: UnsafeMutablePointer<Int64>) throws {
        switch (route, src) {
        case (.integers(let r), .fixed(let p, let n, let w)):
            switch (w, source) {
            case (4, .integer(unsigned: true)): try integerLoop(p, n, UInt32.self, r, dst)
            case (4, _): try integerLoop(p, n, Int32.self, r, dst)
            case (8, .integer(unsigned: true)): try integerLoop(p, n, UInt64.self, r, dst)
            case (8, _):
                if r.isIdentity {
                    UnsafeMutableRawPointer(dst).copyMemory(from: p, byteCount: n * 8)
                } else {
                    try integerLoop(p, n, Int64.self, r, dst)
                }
            default: throw ParquetError.corrupt("unexpected value width \(w)")
            }
        case (.int96(let toDate), .fixed(let p, let n, 12)):
            for i in 0..<n {
                let nanos = p.loadUnaligned(fromByteOffset: i * 12, as: Int64.self).littleEndian
                let julian = p.loadUnaligned(fromByteOffset: i * 12 + 8, as: Int32.self).littleEndian
                let days = Int64(julian) - 2_440_588
                if toDate {
                    // nanos of day are below one day in valid data; floor anyway.
                    let extra = nanos >= 0 ? nanos / 86_400_000_000_000 : (nanos + 1) / 86_400_000_000_000 - 1
                    dst[i] = days + extra
                } else {
                    let (a, o1) = days.multipliedReportingOverflow(by: DateTime.microsPerDay)
                    let micros = nanos >= 0 ? nanos / 1_000 : (nanos + 1) / 1_000 - 1
                    let (t, o2) = a.addingReportingOverflow(micros)
                    if o1 || o2 { throw outOfRange(Int128(days)) }
                    dst[i] = t
                }
            }
        case (.floatsToInteger(let m, let lo, let hi), .fixed(let p, let n, let w)):
            for i in 0..<n {
                let d = w == 4 ? Double(Float(bitPattern: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian))
                               : Double(bitPattern: p.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self).littleEndian)
                let scaled = (d * m).rounded(.toNearestOrAwayFromZero)
                guard scaled.isFinite, let v = Int64(exactly: scaled), v >= lo, v <= hi else { throw outOfRange(d) }
                dst[i] = v
            }
        case (.bytesDecimal(let r, let lo, let hi), .binary(let base, let spans, let n)):
            for i in 0..<n {
                guard let v = bigEndianInteger(base + spans[2 * i], spans[2 * i + 1]) else {
                    throw ParquetError.outOfRange("decimal of \(spans[2 * i + 1]) bytes is out of range for type \(target.sqlName)")
                }
                guard let x = r.apply(v), let y = Int64(exactly: x), y >= lo, y <= hi else { throw outOfRange(v) }
                dst[i] = y
            }
        default:
            throw ParquetError.corrupt("\(physical) page values do not match the column type")
        }
    }

    @inline(__always)
    private func integerLoop<S: FixedWidthInteger>(_ p: UnsafeRawPointer, _ n: Int, _: S.Type, _ r: Rescale,
                                                   _ dst: UnsafeMutablePointer<Int64>) throws {
        let stride = MemoryLayout<S>.size
        if r.isIdentity {
            for i in 0..<n {
                let s = S(littleEndian: p.loadUnaligned(fromByteOffset: i * stride, as: S.self))
                guard let v = Int64(exactly: s) else { throw outOfRange(Int128(s)) }
                dst[i] = v
            }
            return
        }
        for i in 0..<n {
            let s = S(littleEndian: p.loadUnaligned(fromByteOffset: i * stride, as: S.self))
            guard let v = Int64(exactly: s), let x = r.apply(v) else { throw outOfRange(Int128(s)) }
            dst[i] = x
        }
    }

    // MARK: - Int128 targets

    func convert(_ src: PhysicalValues, into dst: UnsafeMutablePointer<Int128>) throws {
        switch (route, src) {
        case (.integersToWide(let r), .fixed(let p, let n, let w)):
            let unsigned = source == .integer(unsigned: true)
            for i in 0..<n {
                let v: Int128
                if w == 4 {
                    let raw = p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian
                    v = unsigned ? Int128(raw) : Int128(Int32(bitPattern: raw))
                } else {
                    let raw = p.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self).littleEndian
                    v = unsigned ? Int128(raw) : Int128(Int64(bitPattern: raw))
                }
                guard let x = r.apply(v) else { throw outOfRange(v) }
                dst[i] = x
            }
        case (.bytesDecimalToWide(let r), .binary(let base, let spans, let n)):
            for i in 0..<n {
                guard let v = bigEndianInteger(base + spans[2 * i], spans[2 * i + 1]) else {
                    throw ParquetError.outOfRange("decimal of \(spans[2 * i + 1]) bytes is out of range for type \(target.sqlName)")
                }
                guard let x = r.apply(v) else { throw outOfRange(v) }
                dst[i] = x
            }
        case (.floatsToWide(let m, let maxMagnitude), .fixed(let p, let n, let w)):
            for i in 0..<n {
                let d = w == 4 ? Double(Float(bitPattern: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian))
                               : Double(bitPattern: p.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self).littleEndian)
                let scaled = (d * m).rounded(.toNearestOrAwayFromZero)
                guard scaled.isFinite, scaled.magnitude < 1.7e38, let v = Int128(exactly: scaled),
                      v.magnitude <= maxMagnitude.magnitude else { throw outOfRange(d) }
                dst[i] = v
            }
        default:
            throw ParquetError.corrupt("\(physical) page values do not match the column type")
        }
    }

    // MARK: - Double targets

    func convert(_ src: PhysicalValues, into dst: UnsafeMutablePointer<Double>) throws {
        let toFloat = roundToFloat
        switch (route, src) {
        case (.floatsToDouble, .fixed(let p, let n, 4)):
            for i in 0..<n {
                dst[i] = Double(Float(bitPattern: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian))
            }
        case (.floatsToDouble, .fixed(let p, let n, 8)):
            if toFloat {
                for i in 0..<n {
                    let d = Double(bitPattern: p.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self).littleEndian)
                    dst[i] = Double(Float(d))
                }
            } else {
                UnsafeMutableRawPointer(dst).copyMemory(from: p, byteCount: n * 8)
            }
        case (.integersToDouble(let scale), .fixed(let p, let n, let w)):
            let unsigned = source == .integer(unsigned: true)
            let divisor = pow10Double(scale)
            for i in 0..<n {
                var d: Double
                if w == 4 {
                    let raw = p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian
                    d = unsigned ? Double(raw) : Double(Int32(bitPattern: raw))
                } else {
                    let raw = p.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self).littleEndian
                    d = unsigned ? Double(raw) : Double(Int64(bitPattern: raw))
                }
                if scale > 0 { d /= divisor }
                dst[i] = toFloat ? Double(Float(d)) : d
            }
        case (.bytesDecimalToDouble(let scale), .binary(let base, let spans, let n)):
            let divisor = pow10Double(scale)
            for i in 0..<n {
                guard let v = bigEndianInteger(base + spans[2 * i], spans[2 * i + 1]) else {
                    throw ParquetError.outOfRange("decimal of \(spans[2 * i + 1]) bytes is out of range for type \(target.sqlName)")
                }
                let d = Double(v) / divisor
                dst[i] = toFloat ? Double(Float(d)) : d
            }
        default:
            throw ParquetError.corrupt("\(physical) page values do not match the column type")
        }
    }

    // MARK: - Bool targets

    func convert(_ src: PhysicalValues, into dst: UnsafeMutablePointer<Bool>) throws {
        guard case .booleans(let p, let n) = src else {
            throw ParquetError.corrupt("\(physical) page values do not match the column type")
        }
        for i in 0..<n { dst[i] = p[i] != 0 }
    }

    // MARK: - String targets

    /// Upper bound of the bytes `convertStrings` appends for `src`.
    func stringBytes(_ src: PhysicalValues) -> Int {
        guard case .binary(_, let spans, let n) = src else { return 0 }
        var total = 0
        for i in 0..<n { total += spans[2 * i + 1] }
        return total
    }

    /// Append the strings of `src` to `bytes` (at `byteCount`, with room for
    /// `stringBytes(src)` more) and their end offsets to `ends`. Returns the new byte count.
    func convertStrings(_ src: PhysicalValues, bytes: UnsafeMutablePointer<UInt8>, byteCount: Int,
                        ends: UnsafeMutablePointer<Int32>) throws -> Int {
        guard case .strings(let limit, let trim) = route, case .binary(let base, let spans, let n) = src else {
            throw ParquetError.corrupt("\(physical) page values do not match the column type")
        }
        var at = byteCount
        for i in 0..<n {
            let p = (base + spans[2 * i]).assumingMemoryBound(to: UInt8.self)
            var length = spans[2 * i + 1]
            if trim { while length > 0 && p[length - 1] == 0x20 { length -= 1 } }
            if length > limit {
                guard options.truncateColumns else {
                    throw ParquetError("string of \(length) bytes exceeds DDL length of type \(target.sqlName)",
                                       code: .stringTooLong, value: UTF8Text.shown(p, length))
                }
                length = UTF8Text.truncationPoint(p, length, limit: limit)
            }
            if length > 0 { (bytes + at).update(from: p, count: length) }
            if !UTF8Text.isValid(bytes + at, length) {
                guard let replacement = options.invalidCharacterReplacement else {
                    throw ParquetError("invalid UTF-8 in a string value", code: .invalidText,
                                       value: UTF8Text.shown(UnsafePointer(bytes + at), length))
                }
                UTF8Text.replaceInvalid(bytes + at, length, with: replacement)
            }
            at += length
            guard at <= Int(Int32.max) else {
                throw ParquetError.unsupported("more than 2 GB of string data in one column of one row group")
            }
            ends[i] = Int32(truncatingIfNeeded: at)
        }
        return at
    }
}

extension ConversionPlan {
    /// The first value of `src` that does not convert, and why: the slow path taken only
    /// after a page failed, so that the error can name the row and show the value.
    func firstFailure(_ src: PhysicalValues) -> (index: Int, error: ParquetError)? {
        for i in 0..<src.count {
            let one = src.slice(i, 1)
            do {
                switch targetPhysical {
                case .int64:
                    var x: Int64 = 0
                    try withUnsafeMutablePointer(to: &x) { try convert(one, into: $0) }
                case .int128:
                    var x: Int128 = 0
                    try withUnsafeMutablePointer(to: &x) { try convert(one, into: $0) }
                case .double:
                    var x = 0.0
                    try withUnsafeMutablePointer(to: &x) { try convert(one, into: $0) }
                case .bool:
                    var x = false
                    try withUnsafeMutablePointer(to: &x) { try convert(one, into: $0) }
                case .string:
                    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(stringBytes(one), 1))
                    defer { bytes.deallocate() }
                    var end: Int32 = 0
                    _ = try withUnsafeMutablePointer(to: &end) { try convertStrings(one, bytes: bytes, byteCount: 0, ends: $0) }
                }
            } catch let e as ParquetError {
                return (i, e)
            } catch {
                return (i, ParquetError("\(error)"))
            }
        }
        return nil
    }
}
