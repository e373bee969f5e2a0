// SPDX-License-Identifier: Apache-2.0
/// Where one field of a record lies in the input.
struct FieldSpan {
    var start: Int
    var end: Int
    var flags: UInt8

    /// Quoted (CSV, or REMOVEQUOTES): never matches NULL AS / EMPTYASNULL.
    static let quoted: UInt8 = 1
    /// Contains backslash escapes to resolve (ESCAPE).
    static let escaped: UInt8 = 2
    /// Contains doubled quotes to collapse (CSV).
    static let doubledQuotes: UInt8 = 4
}

/// A record that cannot be split into fields correctly.
struct ScanProblem {
    var code: LoadErrorCode
    var reason: String
    var field: Int
}

/// Splits input into records and fields without copying: text format (delimiter,
/// optional ESCAPE and REMOVEQUOTES) and CSV (quote, doubled quotes, delimiters and
/// newlines inside quotes).
///
/// A record ends at an unquoted, unescaped `\n` (a `\r` before it is dropped) or at the
/// end of the input. The same routine finds record boundaries when a file is cut into
/// ranges, so parsing and cutting always agree.
struct RecordScanner: ~Copyable {
    let delimiter: UInt8
    let quote: UInt8
    let csv: Bool
    let escape: Bool
    let removeQuotes: Bool
    /// Spans kept per record; fields beyond it are only counted.
    let capacity: Int
    let spans: UnsafeMutablePointer<FieldSpan>

    /// Fields in the last record (may exceed `capacity`).
    var fieldCount = 0
    /// `\n` bytes the last record consumed (its terminator and any inside it).
    var newlines = 0
    /// End of the last record's text (before `\r\n`).
    var contentEnd = 0
    var problem: ScanProblem? = nil

    init(options: CopyOptions, capacity: Int) {
        delimiter = options.delimiter
        quote = options.quote
        csv = options.format == .csv
        escape = options.escape
        removeQuotes = options.removeQuotes
        self.capacity = max(capacity, 1)
        spans = .allocate(capacity: self.capacity)
    }

    deinit { spans.deallocate() }

    /// Fields of the last record for a target of `columns` fields: one trailing
    /// delimiter (TPC-H .tbl style) ends with an empty, unquoted extra field, which
    /// does not count.
    @inline(__always)
    func fields(forColumns columns: Int) -> Int {
        if fieldCount == columns + 1 && columns < capacity
            && spans[columns].start == spans[columns].end && spans[columns].flags == 0 { return columns }
        return fieldCount
    }

    @inline(__always)
    private mutating func add(_ s: Int, _ e: Int, _ flags: UInt8) {
        if fieldCount < capacity { spans[fieldCount] = FieldSpan(start: s, end: e, flags: flags) }
        fieldCount += 1
    }

    @inline(__always)
    private mutating func flag(_ code: LoadErrorCode, _ reason: String) {
        if problem == nil { problem = ScanProblem(code: code, reason: reason, field: fieldCount - 1) }
    }

    /// Scan one record starting at `start` (< `end`); returns where the next one starts.
    @inline(__always)
    mutating func scan(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        fieldCount = 0
        newlines = 0
        problem = nil
        let delim = delimiter
        var p = start
        while true {
            let fs = p
            if p < end && ((csv && b[p] == quote) || (removeQuotes && (b[p] == 34 || b[p] == 39))) {
                p = csv ? scanCSVQuoted(b, p, end) : scanRemoveQuoted(b, p, end)
            } else if escape {
                var flags: UInt8 = 0
                while p < end {
                    let c = b[p]
                    if c == delim || c == 10 { break }
                    if c == 92 {
                        flags = FieldSpan.escaped
                        if p + 1 < end {
                            if b[p + 1] == 10 { newlines += 1 }
                            p += 2
                            continue
                        }
                    }
                    p += 1
                }
                add(fs, p, flags)
            } else {
                p = Self.findDelimiterOrNewline(b, p, end, delim)
                add(fs, p, 0)
            }
            if p < end && b[p] == delim {
                p += 1
                continue
            }
            // End of record: newline or end of input. Drop a `\r` before it.
            var ce = p
            if ce > start && b[ce - 1] == 13 {
                ce -= 1
                let last = fieldCount - 1
                if last < capacity && spans[last].flags & FieldSpan.quoted == 0 && spans[last].end == p {
                    spans[last].end = ce
                }
            }
            contentEnd = ce
            if p < end {
                newlines += 1
                return p + 1
            }
            return p
        }
    }

    /// First `delim` or `\n` at or after `p` (or `end`), eight bytes at a time.
    @inline(__always)
    static func findDelimiterOrNewline(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ delim: UInt8) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let dMask = ones &* UInt64(delim)
        let nMask = ones &* 10
        var p = start
        while p + 8 <= end {
            let w = UnsafeRawPointer(b + p).loadUnaligned(as: UInt64.self)
            let x = w ^ dMask, y = w ^ nMask
            // Classic "has zero byte": exact for the lowest matching byte (little endian).
            let hit = (((x &- ones) & ~x) | ((y &- ones) & ~y)) & highs
            if hit != 0 { return p + hit.littleEndian.trailingZeroBitCount >> 3 }
            p += 8
        }
        while p < end {
            let c = b[p]
            if c == delim || c == 10 { return p }
            p += 1
        }
        return end
    }

    /// Whether `scanPlainBatch` may stand in for `scan`: no quoting, no escapes, and a
    /// delimiter that is not itself part of a line end.
    var isPlain: Bool { !csv && !removeQuotes && !escape && delimiter != 10 && delimiter != 13 }

    /// Plain text (`isPlain`): the fields of up to `limit` consecutive one-line records
    /// of exactly `columns` fields (one trailing delimiter allowed, as in
    /// `fields(forColumns:)`), written to `spans` at `columns` per record. Returns the
    /// records found and where the next record starts. Stops before the first record
    /// that does not fit that shape or that is not followed by at least eight bytes of
    /// input, which `scan` then takes; every record it accepts, `scan` splits the same.
    ///
    /// Separators are found 64 bytes at a time (eight words, each byte's match turned
    /// into one bit of a 64-bit mask; eight bytes at a time in the last 64) and the hit
    /// bits are consumed one by one, so a short field costs a few instructions rather than
    /// a scan of its own. The newlines have their own mask, so telling a newline from a
    /// delimiter reads no byte, and a new mask is needed every 64 bytes, not every 8.
    static func scanPlainBatch(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, delimiter: UInt8, columns: Int,
                               into spans: UnsafeMutablePointer<FieldSpan>, limit: Int) -> (records: Int, next: Int) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let dMask = ones &* UInt64(delimiter), nMask = ones &* 10
        // High bit of each byte that is zero (exact: no borrows between bytes).
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { ~(((x & low7) &+ low7) | x | low7) }
        // The eight high bits of `x` (nothing else set) as the low byte: bit k from byte k.
        @inline(__always) func gathered(_ x: UInt64) -> UInt64 { ((x &>> 7) &* 0x0102_0408_1020_4080) &>> 56 }
        let raw = UnsafeRawPointer(b)
        // The masks of the bytes at `at` (bit i: byte at + i): delimiters and newlines
        // (`hits`), newlines alone (`lines`), and how many bytes they cover (64, 8, or 0
        // when not even a word is left before `end`).
        @inline(__always) func masks(_ at: Int) -> (hits: UInt64, lines: UInt64, width: Int) {
            if at &+ 64 <= end {
                var hits: UInt64 = 0, lines: UInt64 = 0
                for k in 0..<8 {
                    let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at &+ 8 &* k, as: UInt64.self))
                    let n = zeroBytes(w ^ nMask)
                    hits |= gathered(zeroBytes(w ^ dMask) | n) &<< UInt64(8 &* k)
                    lines |= gathered(n) &<< UInt64(8 &* k)
                }
                return (hits, lines, 64)
            }
            guard at &+ 8 <= end else { return (0, 0, 0) }
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            let n = zeroBytes(w ^ nMask)
            return (gathered(zeroBytes(w ^ dMask) | n), gathered(n), 8)
        }
        guard columns > 0, start + 8 <= end else { return (0, start) }
        var block = start
        var (bits, lines, width) = masks(block)
        var records = 0
        var p = start
        records: while records < limit {
            let row = spans + records * columns
            var fieldStart = p
            var field = 0
            while true {
                while bits == 0 {
                    block &+= width
                    (bits, lines, width) = masks(block)
                    guard width > 0 else { break records }
                }
                let i = bits.trailingZeroBitCount
                let at = block &+ i
                let isLine = lines &>> UInt64(i) & 1 != 0
                bits &= bits &- 1
                if !isLine {
                    if field < columns { row[field] = FieldSpan(start: fieldStart, end: at, flags: 0) }
                    field += 1
                    fieldStart = at + 1
                    if field > columns { break records }
                    continue
                }
                // The record's newline: drop a `\r` before it, from the last field.
                var fieldEnd = at
                if at > p && b[at - 1] == 13 && fieldEnd > fieldStart { fieldEnd -= 1 }
                if field == columns - 1 {
                    // A single empty field is a blank line, which `scan`'s caller handles.
                    if columns == 1 && fieldEnd == p { break records }
                    row[field] = FieldSpan(start: fieldStart, end: fieldEnd, flags: 0)
                } else if !(field == columns && fieldEnd == fieldStart) {
                    break records
                }
                records += 1
                p = at + 1
                continue records
            }
        }
        return (records, p)
    }

    /// CSV quoted field at `p` (on the opening quote). Returns the position after the
    /// field's trailing junk, i.e. at a delimiter, newline or the end.
    @inline(__always)
    private mutating func scanCSVQuoted(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var p = start + 1
        let cs = p
        var flags = FieldSpan.quoted
        while true {
            if p >= end {
                add(cs, p, flags)
                flag(.invalidLine, "Unterminated quoted field (missing closing quote)")
                return p
            }
            let c = b[p]
            if c == quote {
                if p + 1 < end && b[p + 1] == quote {
                    flags |= FieldSpan.doubledQuotes
                    p += 2
                    continue
                }
                break
            }
            if c == 10 { newlines += 1 }
            p += 1
        }
        add(cs, p, flags)
        p += 1  // closing quote
        return afterClosingQuote(b, p, end)
    }

    /// REMOVEQUOTES: a field in single or double quotes; delimiters inside are data,
    /// an (unescaped) newline before the closing quote is an error.
    @inline(__always)
    private mutating func scanRemoveQuoted(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        let q = b[start]
        var p = start + 1
        let cs = p
        var flags = FieldSpan.quoted
        while p < end {
            let c = b[p]
            if c == q || c == 10 { break }
            if escape && c == 92 && p + 1 < end {
                flags |= FieldSpan.escaped
                if b[p + 1] == 10 { newlines += 1 }
                p += 2
                continue
            }
            p += 1
        }
        add(cs, p, flags)
        if p >= end || b[p] == 10 {
            flag(.invalidLine, "Unterminated quoted field (missing closing quote)")
            return p
        }
        p += 1
        return afterClosingQuote(b, p, end)
    }

    /// After a closing quote only a delimiter or the end of the record may follow;
    /// anything else is reported and skipped up to the next delimiter or newline.
    @inline(__always)
    private mutating func afterClosingQuote(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var p = start
        if p >= end || b[p] == delimiter || b[p] == 10 { return p }
        if b[p] == 13 && (p + 1 == end || b[p + 1] == 10) { return p + 1 == end ? end : p + 1 }
        flag(.delimiterNotFound, "Delimiter not found after closing quote")
        while p < end && b[p] != delimiter && b[p] != 10 { p += 1 }
        return p
    }
}
