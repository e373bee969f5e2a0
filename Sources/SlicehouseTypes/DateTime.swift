// SPDX-License-Identifier: Apache-2.0
/// Calendar arithmetic for DATE (days since 1970-01-01) and TIMESTAMP
/// (microseconds since 1970-01-01 00:00:00), proleptic Gregorian, no time zones.
public enum DateTime {
    public static let microsPerSecond: Int64 = 1_000_000
    public static let microsPerDay: Int64 = 86_400_000_000

    /// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
    @inlinable public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Civil date of a day number.
    @inlinable public static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    public static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    public static func daysInMonth(_ y: Int64, _ m: Int64) -> Int64 {
        switch m {
        case 2: return isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // MARK: Parsing (bytes, no allocation)

    /// Parse `YYYY-MM-DD` (also `YYYY/MM/DD`, `YYYYMMDD`, `MM-DD-YYYY`, `M/D/YYYY`, or
    /// with `dayFirst` `DD-MM-YYYY`; optional surrounding blanks).
    public static func parseDate(_ b: UnsafeBufferPointer<UInt8>) -> Int64? { parseDate(b, dayFirst: false) }

    public static func parseDate(_ b: UnsafeBufferPointer<UInt8>, dayFirst: Bool) -> Int64? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        guard let (days, end) = parseDatePart(b, i, n, dayFirst: dayFirst), end == n else { return nil }
        return days
    }

    @usableFromInline static func parseDatePart(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ n: Int,
                                                dayFirst: Bool = false) -> (Int64, Int)? {
        var i = start
        func num(_ maxDigits: Int) -> (Int64, Int)? {
            var v: Int64 = 0, d = 0
            while i < n && d < maxDigits, b[i] >= 48 && b[i] <= 57 {
                v = v * 10 + Int64(b[i] - 48); i += 1; d += 1
            }
            return d == 0 ? nil : (v, d)
        }
        guard let (y, yd) = num(8) else { return nil }
        var year = y, month: Int64, day: Int64
        if yd == 8 && (i >= n || b[i] < 48 || b[i] > 57) && (i >= n || (b[i] != 45 && b[i] != 47)) {
            year = y / 10000; month = (y / 100) % 100; day = y % 100
        } else {
            guard yd >= 1 && yd <= 4, i < n, b[i] == 45 || b[i] == 47 else { return nil }
            let sep = b[i]; i += 1
            guard let (m, _) = num(2), i < n, b[i] == sep else { return nil }
            i += 1
            guard let (last, lastDigits) = num(4) else { return nil }
            if yd <= 2 && lastDigits == 4 {
                // `12-31-2008`, `8/2/2003`: month first (DATESTYLE MDY, Redshift's
                // default), or day first under DMY.
                year = last
                (month, day) = dayFirst ? (m, y) : (y, m)
            } else {
                guard lastDigits <= 2 else { return nil }
                month = m; day = last
            }
        }
        guard month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) else { return nil }
        return (days(year: year, month: month, day: day), i)
    }

    /// Parse `YYYY-MM-DD[ T]HH:MI:SS[.ffffff]` (the date in any form `parseDate` reads), a
    /// bare date, or `epoch`.
    public static func parseTimestamp(_ b: UnsafeBufferPointer<UInt8>) -> Int64? { parseTimestamp(b, dayFirst: false) }

    public static func parseTimestamp(_ b: UnsafeBufferPointer<UInt8>, dayFirst: Bool) -> Int64? {
        if b.count >= 5, b.count <= 16, isEpochWord(b) { return 0 }
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        guard let (days, end) = parseDatePart(b, i, n, dayFirst: dayFirst) else { return nil }
        i = end
        var micros: Int64 = 0
        if i < n {
            guard b[i] == 32 || b[i] == 84 else { return nil }
            i += 1
            func two() -> Int64? {
                guard i + 1 < n + 0, i + 1 <= n - 1 || i + 1 == n - 1 else { return nil }
                guard b[i] >= 48 && b[i] <= 57 && b[i + 1] >= 48 && b[i + 1] <= 57 else { return nil }
                let v = Int64(b[i] - 48) * 10 + Int64(b[i + 1] - 48)
                i += 2
                return v
            }
            guard let hh = two(), hh < 24 else { return nil }
            guard i < n, b[i] == 58 else { return nil }
            i += 1
            guard let mi = two(), mi < 60 else { return nil }
            var ss: Int64 = 0
            if i < n && b[i] == 58 {
                i += 1
                guard let s = two(), s < 60 else { return nil }
                ss = s
            }
            var frac: Int64 = 0
            if i < n && b[i] == 46 {
                i += 1
                var digits = 0
                while i < n, b[i] >= 48 && b[i] <= 57 {
                    if digits < 6 { frac = frac * 10 + Int64(b[i] - 48) }
                    digits += 1; i += 1
                }
                guard digits > 0 else { return nil }
                for _ in min(digits, 6)..<6 { frac *= 10 }
            }
            guard i == n else { return nil }
            micros = ((hh * 60 + mi) * 60 + ss) * microsPerSecond + frac
        }
        return days * microsPerDay + micros
    }

    /// `parse` of `b` without a trailing UTC offset (`+00`, ` -05:30`, `+0100`, `Z`): a
    /// DATE or TIMESTAMP (without time zone) cast ignores the zone, as PostgreSQL's does
    /// (drivers such as JDBC send dates and timestamps with the client's offset).
    public static func withoutZone(_ b: UnsafeBufferPointer<UInt8>, _ parse: (UnsafeBufferPointer<UInt8>) -> Int64?) -> Int64? {
        var n = b.count
        while n > 0 && b[n - 1] == 32 { n -= 1 }
        if n > 0 && (b[n - 1] == 90 || b[n - 1] == 122) { return parse(UnsafeBufferPointer(rebasing: b[0..<(n - 1)])) }  // Z
        var i = n
        while i > 0 && ((b[i - 1] >= 48 && b[i - 1] <= 57) || b[i - 1] == 58) { i -= 1 }
        let digits = n - i
        guard i > 0, digits >= 1, digits <= 5, b[i - 1] == 43 || b[i - 1] == 45 else { return nil }
        // A '-' right after the date's digits would be part of the date: need a time or a blank before it.
        let before = i - 1
        guard before > 0, b[before - 1] == 32 || b.prefix(before).contains(58) else { return nil }
        return parse(UnsafeBufferPointer(rebasing: b[0..<before]))
    }

    /// The date of `b` read as a date or as a timestamp (`2020-01-05 10:11:12` is
    /// 2020-01-05, as PostgreSQL and Redshift read a DATE).
    public static func parseDateOfTimestamp(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        parseDateOfTimestamp(b, dayFirst: false)
    }

    public static func parseDateOfTimestamp(_ b: UnsafeBufferPointer<UInt8>, dayFirst: Bool) -> Int64? {
        if let d = parseDate(b, dayFirst: dayFirst) { return d }
        guard let t = parseTimestamp(b, dayFirst: dayFirst) else { return nil }
        return t >= 0 ? t / microsPerDay : -((-t + microsPerDay - 1) / microsPerDay)
    }

    public static func parseDate(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parseDate($0) }
    }
    public static func parseTimestamp(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parseTimestamp($0) }
    }

    /// PostgreSQL's special input `epoch` (1970-01-01 00:00:00), for DATE, TIMESTAMP and
    /// TIMESTAMPTZ text.
    public static func isEpochWord(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        guard n - i == 5 else { return false }
        return zip(b[i..<n], "epoch".utf8).allSatisfy { ($0 | 0x20) == $1 }
    }

    // MARK: Formatting

    public static func formatDate(_ days: Int64) -> String {
        let (y, m, d) = civil(days)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + (y <= 0 ? " BC" : "")
    }

    public static func formatTimestamp(_ micros: Int64) -> String {
        var days = micros / microsPerDay
        var rem = micros % microsPerDay
        if rem < 0 { rem += microsPerDay; days -= 1 }
        let secs = rem / microsPerSecond
        let frac = rem % microsPerSecond
        var s = formatDate(days) + " " + pad(secs / 3600, 2) + ":" + pad((secs / 60) % 60, 2) + ":" + pad(secs % 60, 2)
        if frac != 0 {
            var f = pad(frac, 6)
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        return s
    }

    @usableFromInline static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v < 0 ? -v : v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

// MARK: - Intervals

/// An interval value as PostgreSQL and Redshift keep it: months, days and
/// microseconds are separate because a month and a day have no fixed length
/// (`timestamp + interval` adds the months first, clamping to the month's end,
/// then the days, then the microseconds).
public struct IntervalValue: Sendable, Hashable {
    public var months: Int64
    public var days: Int64
    public var micros: Int64

    public init(months: Int64 = 0, days: Int64 = 0, micros: Int64 = 0) {
        self.months = months
        self.days = days
        self.micros = micros
    }

    public var negated: IntervalValue { IntervalValue(months: -months, days: -days, micros: -micros) }

    /// The interval as microseconds with PostgreSQL's comparison convention:
    /// a month is 30 days, a day is 24 hours. nil when it does not fit.
    public var comparableMicros: Int64? {
        let (d1, o1) = months.multipliedReportingOverflow(by: 30)
        let (d2, o2) = d1.addingReportingOverflow(days)
        let (m1, o3) = d2.multipliedReportingOverflow(by: DateTime.microsPerDay)
        let (m2, o4) = m1.addingReportingOverflow(micros)
        return o1 || o2 || o3 || o4 ? nil : m2
    }
}

extension DateTime {
    /// Parse interval text as PostgreSQL and Redshift accept it: quantity/unit pairs
    /// separated by blanks or commas (`'7 days, 3 hours'`, `'1w 1h 1m 1s'`, `'0.5 days'`,
    /// `'-2 hours'`), a time `[-]hh:mm[:ss[.ffffff]]`, a year-month `'1-2'`, a trailing
    /// `ago`, a bare number (seconds, or the qualifier's last field: `INTERVAL '3' MONTH`).
    /// `qualifier` is the lower-cased field qualifier (`"day"`, `"year to month"`, ...);
    /// fields below its last field are dropped. nil when the text is not an interval.
    public static func parseInterval(_ text: String, qualifier: String? = nil) -> IntervalValue? {
        var s = String(text.lowercased().map { $0 == "," || $0 == "\t" || $0 == "\n" ? " " : $0 })
        if s.hasPrefix("@") { s.removeFirst() }
        // Split "10days" / "1h" into number and unit.
        var tokens: [String] = []
        for word in s.split(separator: " ") {
            var w = Substring(word)
            while !w.isEmpty {
                if let first = w.first, first.isLetter {
                    let unit = w.prefix(while: { $0.isLetter })
                    tokens.append(String(unit))
                    w = w.dropFirst(unit.count)
                } else {
                    let num = w.prefix(while: { !$0.isLetter })
                    tokens.append(String(num))
                    w = w.dropFirst(num.count)
                }
            }
        }
        guard !tokens.isEmpty else { return nil }
        var ago = false
        if tokens.last == "ago" { ago = true; tokens.removeLast() }
        guard !tokens.isEmpty else { return nil }

        let qualifierFields = (qualifier ?? "").split(separator: " ").filter { $0 != "to" }.map { String($0) }
        let lastField = qualifierFields.last.flatMap { intervalUnit(String($0)) }
        // Accumulate exact values: months, days, micros (fractions cascade downwards).
        var months: Double = 0, days: Double = 0, micros: Double = 0
        var i = 0
        var sawAnything = false
        while i < tokens.count {
            let tok = tokens[i]
            if tok.contains(":") {
                guard let t = parseIntervalTime(tok) else { return nil }
                micros += t
                i += 1; sawAnything = true
                continue
            }
            if let dash = tok.dropFirst().firstIndex(of: "-"), !tok.contains("."),
               let y = Double(tok[tok.startIndex..<dash]), let m = Double(tok[tok.index(after: dash)...]) {
                // SQL-standard year-month: '1-2' = 1 year 2 months.
                let sign: Double = y < 0 || tok.hasPrefix("-") ? -1 : 1
                months += y * 12 + sign * m
                i += 1; sawAnything = true
                continue
            }
            guard let value = Double(tok), value.isFinite else { return nil }
            var unit: IntervalUnit
            if i + 1 < tokens.count, let u = intervalUnit(tokens[i + 1]) {
                unit = u
                i += 2
            } else if i + 1 < tokens.count, tokens[i + 1].first?.isLetter == true {
                return nil
            } else {
                unit = lastField ?? .second
                i += 1
            }
            sawAnything = true
            switch unit {
            case .millennium: months += value * 12_000
            case .century: months += value * 1200
            case .decade: months += value * 120
            case .year: months += value * 12
            case .quarter: months += value * 3
            case .month: months += value
            case .week: days += value * 7
            case .day: days += value
            case .hour: micros += value * 3_600_000_000
            case .minute: micros += value * 60_000_000
            case .second: micros += value * 1_000_000
            case .millisecond: micros += value * 1000
            case .microsecond: micros += value
            }
        }
        guard sawAnything else { return nil }
        // Cascade fractions: a fraction of a month is 30 days, of a day 24 hours.
        let wholeMonths = months.rounded(.towardZero)
        days += (months - wholeMonths) * 30
        let wholeDays = days.rounded(.towardZero)
        micros += (days - wholeDays) * Double(microsPerDay)
        let limit = 9.2e18
        guard abs(wholeMonths) < 1e15, abs(wholeDays) < 1e15, abs(micros) < limit else { return nil }
        var r = IntervalValue(months: Int64(wholeMonths), days: Int64(wholeDays), micros: Int64(micros.rounded()))
        if let lastField {
            switch lastField {
            case .millennium, .century, .decade, .year: r.months = r.months / 12 * 12; r.days = 0; r.micros = 0
            case .quarter, .month: r.days = 0; r.micros = 0
            case .week, .day: r.micros = 0
            case .hour: r.micros = r.micros / 3_600_000_000 * 3_600_000_000
            case .minute: r.micros = r.micros / 60_000_000 * 60_000_000
            default: break
            }
        }
        return ago ? r.negated : r
    }

    enum IntervalUnit {
        case millennium, century, decade, year, quarter, month, week, day, hour, minute, second, millisecond, microsecond
    }

    static func intervalUnit(_ raw: String) -> IntervalUnit? {
        switch raw {
        case "millennium", "millennia", "millenniums", "mil", "mils": return .millennium
        case "century", "centuries", "c", "cent": return .century
        case "decade", "decades", "dec", "decs": return .decade
        case "year", "years", "y", "yr", "yrs": return .year
        case "quarter", "quarters", "qtr", "qtrs": return .quarter
        case "month", "months", "mon", "mons": return .month
        case "week", "weeks", "w", "wk", "wks": return .week
        case "day", "days", "d": return .day
        case "hour", "hours", "h", "hr", "hrs": return .hour
        case "minute", "minutes", "m", "min", "mins": return .minute
        case "second", "seconds", "s", "sec", "secs": return .second
        case "millisecond", "milliseconds", "ms", "msec", "msecs": return .millisecond
        case "microsecond", "microseconds", "us", "usec", "usecs": return .microsecond
        default: return nil
        }
    }

    /// `[-+]h:mm[:ss[.ffffff]]` as microseconds.
    static func parseIntervalTime(_ tok: String) -> Double? {
        var t = Substring(tok)
        var sign: Double = 1
        if t.hasPrefix("-") { sign = -1; t = t.dropFirst() } else if t.hasPrefix("+") { t = t.dropFirst() }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]),
              !parts[0].contains("."), !parts[1].contains("."), m < 60 else { return nil }
        var sec: Double = 0
        if parts.count == 3 {
            guard let s = Double(parts[2]), s < 60, s >= 0 else { return nil }
            sec = s
        }
        return sign * ((h * 3600 + m * 60) * 1_000_000 + (sec * 1_000_000).rounded())
    }

    /// PostgreSQL's output of an interval (IntervalStyle `postgres`), e.g.
    /// `1 year 2 mons`, `3 days 04:05:06`, `-1 days -02:00:00`, `00:00:00.5`.
    public static func formatInterval(_ iv: IntervalValue) -> String {
        var out = ""
        var isZero = true, isBefore = false
        func part(_ value: Int64, _ unit: String) {
            guard value != 0 else { return }
            out += (isZero ? "" : " ") + (isBefore && value > 0 ? "+" : "") + String(value) + " " + unit + (value != 1 ? "s" : "")
            isBefore = value < 0
            isZero = false
        }
        part(iv.months / 12, "year")
        part(iv.months % 12, "mon")
        part(iv.days, "day")
        if isZero || iv.micros != 0 {
            let minus = iv.micros < 0
            let m = iv.micros.magnitude
            let totalSecs = m / 1_000_000, frac = m % 1_000_000
            out += (isZero ? "" : " ") + (minus ? "-" : (isBefore ? "+" : ""))
            out += pad(Int64(totalSecs / 3600), 2) + ":" + pad(Int64(totalSecs / 60 % 60), 2) + ":" + pad(Int64(totalSecs % 60), 2)
            if frac != 0 {
                var f = pad(Int64(frac), 6)
                while f.hasSuffix("0") { f.removeLast() }
                out += "." + f
            }
        }
        return out
    }

    /// `timestamp - timestamp` as PostgreSQL shows it: whole days, then the rest of
    /// the time (`interval_justify_hours`; both parts carry the same sign).
    public static func formatMicrosInterval(_ micros: Int64) -> String {
        formatInterval(IntervalValue(differenceMicros: micros))
    }

    /// `t + iv` for a timestamp `t` (months first, clamped to the month's end, then
    /// days, then microseconds); the flag reports overflow.
    @inlinable public static func addInterval(_ t: Int64, months: Int64, deltaMicros: Int64) -> (Int64, Bool) {
        var base = t
        if months != 0 {
            guard months >= -3_600_000 && months <= 3_600_000 else { return (0, true) }
            var days = t / microsPerDay
            var rem = t % microsPerDay
            if rem < 0 { rem += microsPerDay; days -= 1 }
            let (y, m, d) = civil(days)
            let total = y * 12 + (m - 1) + months
            let ny = total >= 0 ? total / 12 : (total - 11) / 12
            let nm = total - ny * 12 + 1
            let nd = min(d, daysInMonth(ny, nm))
            let (b, o1) = DateTime.days(year: ny, month: nm, day: nd).multipliedReportingOverflow(by: microsPerDay)
            let (b2, o2) = b.addingReportingOverflow(rem)
            if o1 || o2 { return (0, true) }
            base = b2
        }
        return base.addingReportingOverflow(deltaMicros)
    }
}
