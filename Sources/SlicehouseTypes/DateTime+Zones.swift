// SPDX-License-Identifier: Apache-2.0
// TIMESTAMPTZ, TIME and TIMETZ text, and the packed form of INTERVAL values.

extension DateTime {
    // MARK: - UTC offsets

    /// Split a trailing UTC offset off `b`: `Z`, `+hh`, `-hh:mm`, `+hhmm`, ` UTC`, ` GMT`
    /// (after a time). Returns the text before it and the offset in microseconds (east
    /// positive), or nil for the offset when there is none.
    public static func splitOffset(_ b: UnsafeBufferPointer<UInt8>) -> (UnsafeBufferPointer<UInt8>, Int64?) {
        var n = b.count
        while n > 0 && b[n - 1] == 32 { n -= 1 }
        let t = UnsafeBufferPointer(rebasing: b[0..<n])
        if n > 0 && (t[n - 1] | 0x20) == 0x7A { return (UnsafeBufferPointer(rebasing: t[0..<(n - 1)]), 0) }  // Z
        if n >= 4 && t[n - 4] == 32 {
            // ` UTC` / ` GMT`, any case (compared byte by byte: this runs once per COPY field).
            let a = t[n - 3] | 0x20, b = t[n - 2] | 0x20, c = t[n - 1] | 0x20
            if (a == 0x75 && b == 0x74 && c == 0x63) || (a == 0x67 && b == 0x6D && c == 0x74) {
                return (UnsafeBufferPointer(rebasing: t[0..<(n - 4)]), 0)
            }
        }
        var i = n
        while i > 0 && ((t[i - 1] >= 48 && t[i - 1] <= 57) || t[i - 1] == 58) { i -= 1 }
        var digits = 0
        var v: (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
        for k in i..<n where t[k] != 58 {
            let d = Int64(t[k] - 48)
            switch digits {
            case 0: v.0 = d
            case 1: v.1 = d
            case 2: v.2 = d
            case 3: v.3 = d
            default: break
            }
            digits += 1
        }
        guard i > 0, digits == 1 || digits == 2 || digits == 4, t[i - 1] == 43 || t[i - 1] == 45 else { return (t, nil) }
        // A '-' after the date's digits belongs to the date: the offset must follow a time.
        let sign = i - 1
        guard t.prefix(sign).contains(58) else { return (t, nil) }
        let hours = digits == 1 ? v.0 : v.0 * 10 + v.1
        let minutes = digits == 4 ? v.2 * 10 + v.3 : 0
        guard hours <= 15, minutes < 60 else { return (t, nil) }
        var offset = (hours * 60 + minutes) * 60 * microsPerSecond
        if t[sign] == 45 { offset = -offset }
        var end = sign
        while end > 0 && t[end - 1] == 32 { end -= 1 }
        return (UnsafeBufferPointer(rebasing: t[0..<end]), offset)
    }

    /// A TIMESTAMPTZ from text: a timestamp with an optional offset; without one it is
    /// local time in `zone` (UTC when nil).
    public static func parseTimestampTZ(_ b: UnsafeBufferPointer<UInt8>, zone: TimeZoneRule? = nil) -> Int64? {
        let (text, offset) = splitOffset(b)
        guard let local = parseTimestamp(text) else { return nil }
        if let offset { return local &- offset }
        return zone?.toUTC(local: local) ?? local
    }

    public static func parseTimestampTZ(_ s: String, zone: TimeZoneRule? = nil) -> Int64? {
        var s = s
        return s.withUTF8 { parseTimestampTZ($0, zone: zone) }
    }

    /// `+hh`, `-hh:mm` as PostgreSQL prints an offset.
    public static func formatOffset(_ offset: Int64) -> String {
        let m = offset.magnitude / UInt64(60 * microsPerSecond)
        let sign = offset < 0 ? "-" : "+"
        let hh = pad(Int64(m / 60), 2)
        return m % 60 == 0 ? sign + hh : sign + hh + ":" + pad(Int64(m % 60), 2)
    }

    /// A TIMESTAMPTZ shown in `zone` (UTC when nil): `2024-01-02 03:04:05+00`.
    public static func formatTimestampTZ(_ utc: Int64, zone: TimeZoneRule? = nil) -> String {
        let offset = zone?.offset(atUTC: utc) ?? 0
        return formatTimestamp(utc &+ offset) + formatOffset(offset)
    }

    // MARK: - Times of day

    /// `hh:mm[:ss[.ffffff]]` (also `24:00:00`) as microseconds since midnight.
    public static func parseTime(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        func number(maxDigits: Int) -> Int64? {
            var v: Int64 = 0, d = 0
            while i < n, b[i] >= 48, b[i] <= 57, d < maxDigits { v = v * 10 + Int64(b[i] - 48); i += 1; d += 1 }
            return d > 0 ? v : nil
        }
        guard let hh = number(maxDigits: 2), i < n, b[i] == 58 else { return nil }
        i += 1
        guard let mi = number(maxDigits: 2), mi < 60 else { return nil }
        var ss: Int64 = 0, frac: Int64 = 0
        if i < n && b[i] == 58 {
            i += 1
            guard let s = number(maxDigits: 2), s < 60 else { return nil }
            ss = s
            if i < n && b[i] == 46 {
                i += 1
                var digits = 0
                while i < n, b[i] >= 48, b[i] <= 57 {
                    if digits < 6 { frac = frac * 10 + Int64(b[i] - 48) }
                    digits += 1; i += 1
                }
                guard digits > 0 else { return nil }
                for _ in min(digits, 6)..<6 { frac *= 10 }
            }
        }
        guard i == n else { return nil }
        let micros = ((hh * 60 + mi) * 60 + ss) * microsPerSecond + frac
        guard micros <= microsPerDay else { return nil }
        return micros
    }

    /// A TIME from text: a time, or the time of a timestamp (`2024-01-01 10:00`).
    public static func parseTimeOfDay(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        if let t = parseTime(b) { return t }
        guard let ts = parseTimestamp(b) else { return nil }
        return floorMod(ts, microsPerDay)
    }

    public static func parseTime(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parseTimeOfDay($0) }
    }

    /// A TIMETZ from text as microseconds since midnight UTC (an offset converts; none means UTC).
    public static func parseTimeTZ(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        let (text, offset) = splitOffset(b)
        guard let local = parseTimeOfDay(text) else { return nil }
        return floorMod(local &- (offset ?? 0), microsPerDay)
    }

    public static func parseTimeTZ(_ s: String) -> Int64? {
        var text = s
        if let v = text.withUTF8({ parseTimeTZ($0) }) { return v }
        // `13:24:55 PST`: a time zone abbreviation (a fixed offset) after the time.
        guard let space = s.lastIndex(of: " "),
              let offset = TimeZoneRules.abbreviations[s[s.index(after: space)...].lowercased()] else { return nil }
        var time = String(s[..<space])
        guard let local = time.withUTF8({ parseTimeOfDay($0) }) else { return nil }
        return floorMod(local &- offset, microsPerDay)
    }

    /// `hh:mm:ss[.ffffff]`.
    public static func formatTime(_ micros: Int64) -> String {
        let secs = micros / microsPerSecond, frac = micros % microsPerSecond
        var s = pad(secs / 3600, 2) + ":" + pad((secs / 60) % 60, 2) + ":" + pad(secs % 60, 2)
        if frac != 0 {
            var f = pad(frac, 6)
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        return s
    }

    /// A TIMETZ as Redshift shows it: the UTC time with `+00`.
    public static func formatTimeTZ(_ micros: Int64) -> String { formatTime(micros) + "+00" }

    @inlinable public static func floorMod(_ a: Int64, _ m: Int64) -> Int64 {
        let r = a % m
        return r < 0 ? r + m : r
    }
}

// MARK: - Packed intervals

extension IntervalValue {
    /// The INTERVAL column form: the comparable length in microseconds (a month is 30
    /// days, a day 24 hours) in the high 64 bits, then the months and days as two 32-bit
    /// halves. Ordering the packed integers orders intervals by length, as PostgreSQL
    /// compares them; nil when the length does not fit 64 bits or a field 32 bits.
    public var packed: Int128? {
        guard let length = comparableMicros,
              let m = Int32(exactly: months), let d = Int32(exactly: days) else { return nil }
        let low = UInt64(UInt32(bitPattern: m)) << 32 | UInt64(UInt32(bitPattern: d))
        return Int128(length) << 64 | Int128(low)
    }

    /// The interval of a packed value (see `packed`).
    public init(packed v: Int128) {
        let length = Int64(truncatingIfNeeded: v >> 64)
        let low = UInt64(truncatingIfNeeded: v)
        let m = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: low >> 32)))
        let d = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: low)))
        self.init(months: m, days: d, micros: length &- (m &* 30 &+ d) &* DateTime.microsPerDay)
    }

    /// `timestamp - timestamp`: whole days, then the rest (both with the same sign).
    public init(differenceMicros micros: Int64) {
        self.init(days: micros / DateTime.microsPerDay, micros: micros % DateTime.microsPerDay)
    }
}

// MARK: - VARBYTE text

/// VARBYTE values are kept as lower-case hexadecimal text (two characters a byte).
public enum VarbyteText {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Append the hexadecimal form of `bytes`.
    public static func appendHex(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + 2 * bytes.count)
        for c in bytes {
            out.append(digits[Int(c >> 4)])
            out.append(digits[Int(c & 15)])
        }
    }

    /// The canonical (lower-case) form of hexadecimal text, or nil when it is not an
    /// even number of hexadecimal digits.
    public static func normalizedHex(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard b.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        for c in b {
            switch c {
            case 48...57, 97...102: out.append(c)
            case 65...70: out.append(c | 0x20)
            default: return nil
            }
        }
        return out
    }

    /// The bytes of hexadecimal text (assumed valid).
    public static func bytes(fromHex h: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(h.count / 2)
        var i = 0
        while i + 1 < h.count {
            let hi = JSONGrammar.hexValue(h[i]) ?? 0, lo = JSONGrammar.hexValue(h[i + 1]) ?? 0
            out.append(UInt8(hi << 4 | lo))
            i += 2
        }
        return out
    }
}
