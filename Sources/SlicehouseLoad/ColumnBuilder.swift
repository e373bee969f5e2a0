// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseTypes

/// Why one field was rejected (the record-level context is added by the caller).
struct FieldFailure: Error {
    var code: LoadErrorCode
    var reason: String
}

/// Accumulates one column's values straight into its physical buffer
/// (see `DataType`): integers, scaled decimals, days and microseconds as Int64,
/// wide decimals as Int128, REAL/DOUBLE as Double (REAL rounded through Float),
/// BOOLEAN as Bool, CHAR/VARCHAR as UTF-8 bytes + offsets (CHAR without trailing blanks).
/// NULLs are tracked in a validity bitmap started on the first NULL.
///
/// Noncopyable and free of class references so the per-field path does no reference
/// counting or exclusivity checking; the range parser keeps builders in a pointer array.
struct ColumnBuilder: ~Copyable {
    enum Kind {
        case integer(min: Int64, max: Int64)
        case decimal64(precision: Int, scale: Int)
        case decimal128(precision: Int, scale: Int)
        case float(real: Bool)
        case boolean
        case date
        case timestamp
        case string(maxBytes: Int, char: Bool)
        /// TIMESTAMPTZ, TIME, TIMETZ (Int64), INTERVAL (packed Int128).
        case timestamptz, time, timetz, interval
        /// SUPER: the field is JSON text, kept in compact form.
        case superJSON
        /// VARBYTE: the field is hexadecimal text.
        case varbyte(maxBytes: Int)
        /// HLLSKETCH: the sketch's JSON text.
        case sketch
    }

    let type: DataType
    let kind: Kind
    let notNull: Bool
    /// Rows appended since the last `takeVector`.
    private(set) var count = 0

    // Conversion settings (copied out of CopyOptions as plain values).
    private let emptyAsNull: Bool
    private let blanksAsNull: Bool
    private let trimBlanks: Bool
    private let truncateColumns: Bool
    private let roundDecimals: Bool
    private let acceptAnyDate: Bool
    private let acceptInvalidChars: UInt8?
    private let isoDates: Bool
    private let isoTimestamps: Bool
    private let dateFormat: CopyTimeFormat
    private let timeFormat: CopyTimeFormat

    private var ints: GrowableBuffer<Int64>
    private var wides: GrowableBuffer<Int128>
    private var doubles: GrowableBuffer<Double>
    private var bools: GrowableBuffer<Bool>
    private var bytes: GrowableBuffer<UInt8>
    private var offsets: GrowableBuffer<Int32>
    /// Validity words (bit set = valid); only meaningful when `hasNulls`.
    private var nullWords: GrowableBuffer<UInt64>
    private var hasNulls = false
    private var scratch: GrowableBuffer<UInt8>

    init(_ def: ColumnDef, options o: CopyOptions, reserve: Int) throws {
        type = def.type
        notNull = def.notNull
        emptyAsNull = o.emptyAsNull; blanksAsNull = o.blanksAsNull; trimBlanks = o.trimBlanks
        truncateColumns = o.truncateColumns; roundDecimals = o.roundDecimals; acceptAnyDate = o.acceptAnyDate
        acceptInvalidChars = o.acceptInvalidChars
        dateFormat = o.dateFormat; timeFormat = o.timeFormat
        isoDates = o.dateFormat.kind == .iso; isoTimestamps = o.timeFormat.kind == .iso
        switch def.type {
        case .smallint: kind = .integer(min: Int64(Int16.min), max: Int64(Int16.max))
        case .integer: kind = .integer(min: Int64(Int32.min), max: Int64(Int32.max))
        case .bigint: kind = .integer(min: Int64.min, max: Int64.max)
        case .decimal(let p, let s): kind = p > 18 ? .decimal128(precision: p, scale: s) : .decimal64(precision: p, scale: s)
        case .real: kind = .float(real: true)
        case .double: kind = .float(real: false)
        case .boolean: kind = .boolean
        case .date: kind = .date
        case .timestamp: kind = .timestamp
        case .char(let n): kind = .string(maxBytes: n, char: true)
        case .varchar(let n): kind = .string(maxBytes: n, char: false)
        case .timestamptz: kind = .timestamptz
        case .time: kind = .time
        case .timetz: kind = .timetz
        case .interval: kind = .interval
        case .superType: kind = .superJSON
        case .varbyte(let n): kind = .varbyte(maxBytes: n)
        case .hllsketch: kind = .sketch
        case .unknown, .array:
            throw SQLError(.datatypeMismatch, "COPY cannot load column \"\(def.name)\" of type \(def.type.sqlName)")
        }
        let physical = def.type.physical
        ints = GrowableBuffer(capacity: physical == .int64 ? reserve : 0)
        wides = GrowableBuffer(capacity: physical == .int128 ? reserve : 0)
        doubles = GrowableBuffer(capacity: physical == .double ? reserve : 0)
        bools = GrowableBuffer(capacity: physical == .bool ? reserve : 0)
        bytes = GrowableBuffer(capacity: physical == .string ? reserve * 16 : 0)
        offsets = GrowableBuffer(capacity: physical == .string ? reserve + 1 : 0)
        offsets.append(0)
        nullWords = GrowableBuffer(capacity: 0)
        scratch = GrowableBuffer(capacity: 0)
    }

    /// Bytes held by a string column (to cap chunks below the Int32 offset limit).
    var stringBytes: Int { bytes.count }

    // MARK: - Appending

    /// Append a NULL (a field that matched NULL AS, or an empty non-string field).
    @inline(__always)
    mutating func appendNull() throws(FieldFailure) {
        if notNull { throw FieldFailure(code: .notNullViolation, reason: "Missing data for not-null field") }
        let w = count >> 6
        while nullWords.count <= w { nullWords.append(~0) }
        nullWords[w] &= ~(1 << UInt64(count & 63))
        hasNulls = true
        switch kind {
        case .integer, .decimal64, .date, .timestamp, .timestamptz, .time, .timetz: ints.append(0)
        case .decimal128, .interval: wides.append(0)
        case .float: doubles.append(0)
        case .boolean: bools.append(false)
        case .string, .superJSON, .varbyte, .sketch: offsets.append(Int32(truncatingIfNeeded: bytes.count))
        }
        count += 1
    }

    /// Convert and append one field. `quoted` marks a CSV / REMOVEQUOTES quoted field
    /// (never NULL through EMPTYASNULL / BLANKSASNULL).
    @inline(__always)
    mutating func append(_ b: UnsafeBufferPointer<UInt8>, quoted: Bool) throws(FieldFailure) {
        switch kind {
        case .integer(let lo, let hi):
            switch FieldParsers.parseInteger(b) {
            case .ok(let v):
                guard v >= lo && v <= hi else { throw rangeFailure(b, lo, hi) }
                ints.append(v)
            case .empty: try appendNull(); return
            case .invalid(let at): throw invalidDigit(b, at, typeName: integerTypeName())
            case .overflow: throw rangeFailure(b, lo, hi)
            }
        case .decimal64(let p, let s):
            switch FieldParsers.parseDecimal64(b, precision: p, scale: s, round: roundDecimals) {
            case .ok(let v): ints.append(v)
            case .empty: try appendNull(); return
            case .invalid(let at): throw invalidDigit(b, at, typeName: "Decimal")
            case .overflow: throw decimalOverflow(b, p, s)
            }
        case .decimal128(let p, let s):
            switch FieldParsers.parseDecimal128(b, precision: p, scale: s, round: roundDecimals) {
            case .ok(let v): wides.append(v)
            case .empty: try appendNull(); return
            case .invalid(let at): throw invalidDigit(b, at, typeName: "Decimal")
            case .overflow: throw decimalOverflow(b, p, s)
            }
        case .float(let real):
            switch FieldParsers.parseDouble(b) {
            case .ok(let d):
                if real {
                    let f = Float(d)
                    if f.isInfinite && !d.isInfinite { throw floatOverflow(b) }
                    doubles.append(Double(f))
                } else {
                    doubles.append(d)
                }
            case .empty: try appendNull(); return
            case .invalid(let at): throw invalidDigit(b, at, typeName: real ? "Float" : "Double")
            case .overflow: throw floatOverflow(b)
            }
        case .boolean:
            guard let v = FieldParsers.parseBool(b) else {
                if FieldParsers.allBlank(b) { try appendNull(); return }
                throw Self.failure(.invalidBoolean, "Invalid boolean value '", b, "' (expected t/f, true/false, y/n, yes/no, 1/0)")
            }
            bools.append(v)
        case .date:
            guard let d = isoDates ? FieldParsers.parseISODate(b) : dateFormat.parseDate(b) else {
                if FieldParsers.allBlank(b) || acceptAnyDate { try appendNull(); return }
                throw Self.failure(.invalidDate, "Invalid date format or value '", b, "' [\(dateFormat.text)]")
            }
            ints.append(d)
        case .timestamp:
            guard let t = isoTimestamps ? DateTime.parseTimestamp(b) : timeFormat.parseTimestamp(b) else {
                if FieldParsers.allBlank(b) || acceptAnyDate { try appendNull(); return }
                throw Self.failure(.invalidTimestamp, "Invalid timestamp format or value '", b, "' [\(timeFormat.text)]")
            }
            ints.append(t)
        case .string(let maxBytes, let isChar):
            try appendString(b, quoted: quoted, maxBytes: maxBytes, isChar: isChar)
            return
        case .timestamptz, .time, .timetz, .interval, .superJSON, .varbyte, .sketch:
            try appendOther(b, quoted: quoted)
            return
        }
        count += 1
    }

    /// The types without a batch path of their own (TIMESTAMPTZ, TIME, TIMETZ, INTERVAL,
    /// SUPER, VARBYTE, HLLSKETCH).
    @inline(never)
    private mutating func appendOther(_ b: UnsafeBufferPointer<UInt8>, quoted: Bool) throws(FieldFailure) {
        if FieldParsers.allBlank(b) && !quoted { try appendNull(); return }
        switch kind {
        case .timestamptz:
            guard let t = DateTime.parseTimestampTZ(b) else {
                throw Self.failure(.invalidTimestamp, "Invalid timestamptz format or value '", b, "'")
            }
            ints.append(t)
        case .time, .timetz:
            guard let t = kind.isTimeTZ ? DateTime.parseTimeTZ(b) : DateTime.parseTimeOfDay(b) else {
                throw Self.failure(.invalidTimestamp, "Invalid time format or value '", b, "'")
            }
            ints.append(t)
        case .interval:
            guard let iv = DateTime.parseInterval(String(decoding: b, as: UTF8.self)), let v = iv.packed else {
                throw Self.failure(.invalidTimestamp, "Invalid interval value '", b, "'")
            }
            wides.append(v)
        case .superJSON:
            scratch.removeAll()
            var out: [UInt8] = []
            do {
                try SuperJSON.canonicalize(b, into: &out)
            } catch {
                throw FieldFailure(code: .invalidJSON, reason: "Invalid JSON for a SUPER column: \(error.message) at byte \(error.offset)")
            }
            if out == [0x6E, 0x75, 0x6C, 0x6C] { try appendNull(); return }   // null
            guard out.count <= DataType.maxSuperBytes else {
                throw FieldFailure(code: .valueOutOfRange, reason: "SUPER value exceeds the maximum size")
            }
            out.withUnsafeBufferPointer { bytes.appendBytes($0) }
            offsets.append(Int32(truncatingIfNeeded: bytes.count))
        case .varbyte(let maxBytes):
            guard let hex = VarbyteText.normalizedHex(b) else {
                throw Self.failure(.invalidDigit, "Invalid hexadecimal VARBYTE value '", b, "'")
            }
            guard hex.count / 2 <= maxBytes else { throw Self.tooLong() }
            hex.withUnsafeBufferPointer { bytes.appendBytes($0) }
            offsets.append(Int32(truncatingIfNeeded: bytes.count))
        case .sketch:
            bytes.appendBytes(b)
            offsets.append(Int32(truncatingIfNeeded: bytes.count))
        default:
            break
        }
        count += 1
    }

    /// One column of a batch of records: field `i` is `spans[i * stride]`, none of them
    /// escaped or with doubled quotes (the caller sends such records one at a time).
    /// The type is switched on once per batch rather than once per field. A failure
    /// leaves the rows appended before it (the caller truncates and redoes the batch
    /// record by record, which reports the right field of the right row).
    mutating func appendBatch(_ base: UnsafePointer<UInt8>, _ spans: UnsafePointer<FieldSpan>, stride: Int, count n: Int,
                              nullBytes: UnsafePointer<UInt8>, nullCount: Int) throws(FieldFailure) {
        @inline(__always) func field(_ i: Int) -> (raw: UnsafeBufferPointer<UInt8>, quoted: Bool, isNull: Bool) {
            let sp = spans[i &* stride]
            let raw = UnsafeBufferPointer(start: base + sp.start, count: sp.end &- sp.start)
            let quoted = sp.flags & FieldSpan.quoted != 0
            var isNull = false
            if !quoted && raw.count == nullCount {
                isNull = true
                for k in 0..<nullCount where raw[k] != nullBytes[k] { isNull = false; break }
            }
            return (raw, quoted, isNull)
        }
        // An Int64 column: the parser gives the value, or nil for anything the general
        // path must see (empty, invalid, out of range), which then converts or rejects
        // it. Generic over the parser so each loop is specialised with its parser inlined.
        @inline(__always) func appendInts<P: Int64FieldParser>(_ parser: P) throws(FieldFailure) {
            for i in 0..<n {
                let f = field(i)
                if f.isNull { try appendNull(); continue }
                guard let v = parser.parse(f.raw) else {
                    try append(f.raw, quoted: f.quoted)
                    continue
                }
                ints.append(v)
                count += 1
            }
        }
        switch kind {
        case .integer(let lo, let hi):
            try appendInts(IntegerFieldParser(lo: lo, hi: hi))
        case .decimal64(let p, let s):
            try appendInts(DecimalFieldParser(precision: p, scale: s, round: roundDecimals))
        case .date where isoDates:
            try appendInts(ISODateFieldParser())
        case .string(let maxBytes, let isChar) where !emptyAsNull && !blanksAsNull && (isChar || !trimBlanks):
            // The usual options, decided once a batch: a value that is ASCII and fits
            // (a CHAR without its trailing blanks) is stored as it is; any other goes
            // through `appendString`, which converts or rejects it.
            for i in 0..<n {
                let f = field(i)
                if f.isNull { try appendNull(); continue }
                var len = f.raw.count
                if isChar { while len > 0 && f.raw[len &- 1] == 32 { len &-= 1 } }
                let b = UnsafeBufferPointer(rebasing: f.raw[0..<len])
                guard len <= maxBytes, FieldParsers.isASCII(b) else {
                    try appendString(f.raw, quoted: f.quoted, maxBytes: maxBytes, isChar: isChar)
                    continue
                }
                bytes.appendBytes(b)
                offsets.append(Int32(truncatingIfNeeded: bytes.count))
                count += 1
            }
        case .string(let maxBytes, let isChar):
            for i in 0..<n {
                let f = field(i)
                if f.isNull { try appendNull(); continue }
                try appendString(f.raw, quoted: f.quoted, maxBytes: maxBytes, isChar: isChar)
            }
        default:
            for i in 0..<n {
                let f = field(i)
                if f.isNull { try appendNull(); continue }
                try append(f.raw, quoted: f.quoted)
            }
        }
    }

    /// Drop rows back to `n` (a batch that failed part-way).
    mutating func truncate(to n: Int) {
        while count > n { removeLast() }
    }

    @inline(__always)
    private mutating func appendString(_ field: UnsafeBufferPointer<UInt8>, quoted: Bool, maxBytes: Int,
                                       isChar: Bool) throws(FieldFailure) {
        if field.isEmpty && emptyAsNull && !quoted { try appendNull(); return }
        if blanksAsNull && !quoted && FieldParsers.allBlank(field) { try appendNull(); return }
        var b = field
        if isChar {
            var n = b.count
            while n > 0 && b[n - 1] == 32 { n -= 1 }
            b = UnsafeBufferPointer(rebasing: b[0..<n])
            if !FieldParsers.isASCII(b) { throw Self.multibyteInChar(b) }
        } else {
            if trimBlanks {
                var n = b.count
                while n > 0 && FieldParsers.isBlank(b[n - 1]) { n -= 1 }
                b = UnsafeBufferPointer(rebasing: b[0..<n])
            }
            if let bad = FieldParsers.firstInvalidUTF8(b) {
                guard let replacement = acceptInvalidChars else { throw Self.invalidUTF8(b, bad) }
                try appendReplacingInvalid(b, replacement: replacement, maxBytes: maxBytes)
                return
            }
        }
        if b.count > maxBytes {
            guard truncateColumns else { throw Self.tooLong() }
            b = UnsafeBufferPointer(rebasing: b[0..<Self.utf8Prefix(b, maxBytes)])
        }
        bytes.appendBytes(b)
        offsets.append(Int32(truncatingIfNeeded: bytes.count))
        count += 1
    }

    /// ACCEPTINVCHARS: every byte of an invalid UTF-8 sequence becomes `replacement`
    /// (so byte lengths do not change).
    private mutating func appendReplacingInvalid(_ b: UnsafeBufferPointer<UInt8>, replacement: UInt8,
                                                 maxBytes: Int) throws(FieldFailure) {
        scratch.removeAll()
        scratch.append(contentsOf: b)
        let s = UnsafeMutableBufferPointer(start: scratch.base, count: scratch.count)
        var start = 0
        while start < s.count {
            guard let bad = FieldParsers.firstInvalidUTF8(UnsafeBufferPointer(rebasing: s[start...])) else { break }
            s[start + bad.offset] = replacement
            start += bad.offset + 1
        }
        var fixed = UnsafeBufferPointer(s)
        if fixed.count > maxBytes {
            guard truncateColumns else {
                throw FieldFailure(code: .valueOutOfRange, reason: "String length exceeds DDL length")
            }
            fixed = UnsafeBufferPointer(rebasing: fixed[0..<Self.utf8Prefix(fixed, maxBytes)])
        }
        bytes.append(contentsOf: fixed)
        offsets.append(Int32(truncatingIfNeeded: bytes.count))
        count += 1
    }

    /// Longest prefix of at most `limit` bytes that does not split a UTF-8 character.
    static func utf8Prefix(_ b: UnsafeBufferPointer<UInt8>, _ limit: Int) -> Int {
        guard b.count > limit else { return b.count }
        var cut = limit
        while cut > 0 && (b[cut] & 0xC0) == 0x80 { cut -= 1 }
        return cut
    }

    // MARK: - Failures (kept out of line so the hot path stays small)

    @inline(never)
    private static func multibyteInChar(_ b: UnsafeBufferPointer<UInt8>) -> FieldFailure {
        var at = 0
        while at < b.count && b[at] < 0x80 { at += 1 }
        return FieldFailure(code: .invalidUTF8,
                            reason: "Multibyte character not supported for CHAR (Hint: try using VARCHAR). Invalid char: \(FieldParsers.hex(b, at, 4))")
    }

    @inline(never)
    private static func invalidUTF8(_ b: UnsafeBufferPointer<UInt8>, _ bad: (offset: Int, length: Int)) -> FieldFailure {
        FieldFailure(code: .invalidUTF8,
                     reason: "String contains invalid or unsupported UTF8 codepoints. Bad UTF8 hex sequence: \(FieldParsers.hex(b, bad.offset, bad.length))")
    }

    @inline(never)
    private static func tooLong() -> FieldFailure {
        FieldFailure(code: .valueOutOfRange, reason: "String length exceeds DDL length")
    }

    @inline(never)
    private static func failure(_ code: LoadErrorCode, _ before: String, _ b: UnsafeBufferPointer<UInt8>,
                                _ after: @autoclosure () -> String) -> FieldFailure {
        FieldFailure(code: code, reason: before + FieldParsers.text(b, limit: 64) + after())
    }

    @inline(never)
    private func integerTypeName() -> String {
        switch type {
        case .smallint: return "Short"
        case .bigint: return "Long"
        default: return "Integer"
        }
    }

    @inline(never)
    private func invalidDigit(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, typeName: String) -> FieldFailure {
        let shown = at < b.count ? FieldParsers.text(UnsafeBufferPointer(rebasing: b[at..<(at + 1)])) : ""
        return FieldFailure(code: .invalidDigit, reason: "Invalid digit, Value '\(shown)', Pos \(at), Type: \(typeName)")
    }

    @inline(never)
    private func rangeFailure(_ b: UnsafeBufferPointer<UInt8>, _ lo: Int64, _ hi: Int64) -> FieldFailure {
        FieldFailure(code: .valueOutOfRange,
                     reason: "Overflow, Value '\(FieldParsers.text(b, limit: 64))' out of range for type \(type.sqlName) (\(lo) to \(hi))")
    }

    @inline(never)
    private func decimalOverflow(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ s: Int) -> FieldFailure {
        FieldFailure(code: .valueOutOfRange,
                     reason: "Numeric data overflow (result precision), Value '\(FieldParsers.text(b, limit: 64))' does not fit numeric(\(p),\(s))")
    }

    @inline(never)
    private func floatOverflow(_ b: UnsafeBufferPointer<UInt8>) -> FieldFailure {
        FieldFailure(code: .valueOutOfRange,
                     reason: "Overflow, Value '\(FieldParsers.text(b, limit: 64))' out of range for type \(type.sqlName)")
    }

    // MARK: - Rollback and output

    /// Drop the last row (used when a later field of the same record is rejected).
    mutating func removeLast() {
        guard count > 0 else { return }
        count -= 1
        let r = count
        if hasNulls && (r >> 6) < nullWords.count { nullWords[r >> 6] |= 1 << UInt64(r & 63) }
        switch kind {
        case .integer, .decimal64, .date, .timestamp, .timestamptz, .time, .timetz: ints.removeLast()
        case .decimal128, .interval: wides.removeLast()
        case .float: doubles.removeLast()
        case .boolean: bools.removeLast()
        case .string, .superJSON, .varbyte, .sketch:
            offsets.removeLast()
            if let end = offsets.last { bytes.removeLast(bytes.count - Int(end)) }
        }
    }

    /// The accumulated rows as a vector (copied out); the builder starts over empty.
    mutating func takeVector() -> Vector {
        let data: VectorData
        switch kind {
        case .integer, .decimal64, .date, .timestamp, .timestamptz, .time, .timetz: data = .int64(ints.toArray()); ints.removeAll()
        case .decimal128, .interval: data = .int128(wides.toArray()); wides.removeAll()
        case .float: data = .double(doubles.toArray()); doubles.removeAll()
        case .boolean: data = .bool(bools.toArray()); bools.removeAll()
        case .string, .superJSON, .varbyte, .sketch:
            var s = StringArray()
            s.bytes = bytes.toArray()
            s.offsets = offsets.toArray()
            data = .string(s)
            bytes.removeAll(); offsets.removeAll(); offsets.append(0)
        }
        var validity: Validity? = nil
        if hasNulls {
            let words = (count + 63) >> 6
            while nullWords.count < words { nullWords.append(~0) }
            if nullWords.count > words { nullWords.removeLast(nullWords.count - words) }
            validity = Validity(words: nullWords.toArray())
        }
        nullWords.removeAll()
        hasNulls = false
        count = 0
        return Vector(type: type, data: data, validity: validity)
    }
}

extension ColumnBuilder.Kind {
    var isTimeTZ: Bool { if case .timetz = self { return true }; return false }
}

/// The batch path's parsers of Int64 columns: the value, or nil for the general path.
protocol Int64FieldParser {
    func parse(_ raw: UnsafeBufferPointer<UInt8>) -> Int64?
}

struct IntegerFieldParser: Int64FieldParser {
    let lo: Int64, hi: Int64
    @inline(__always) func parse(_ raw: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard case .ok(let v) = FieldParsers.parseInteger(raw), v >= lo && v <= hi else { return nil }
        return v
    }
}

struct DecimalFieldParser: Int64FieldParser {
    let precision: Int, scale: Int, round: Bool
    @inline(__always) func parse(_ raw: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard case .ok(let v) = FieldParsers.parseDecimal64(raw, precision: precision, scale: scale, round: round) else { return nil }
        return v
    }
}

struct ISODateFieldParser: Int64FieldParser {
    @inline(__always) func parse(_ raw: UnsafeBufferPointer<UInt8>) -> Int64? { FieldParsers.parseISODate(raw) }
}
