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

    /// Parse `YYYY-MM-DD` (also `YYYY/MM/DD`, `YYYYMMDD`, optional surrounding blanks).
    public static func parseDate(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        guard let (days, end) = parseDatePart(b, i, n), end == n else { return nil }
        return days
    }

    @usableFromInline static func parseDatePart(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ n: Int) -> (Int64, Int)? {
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
            guard let (d, _) = num(2) else { return nil }
            month = m; day = d
        }
        guard month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) else { return nil }
        return (days(year: year, month: month, day: day), i)
    }

    /// Parse `YYYY-MM-DD[ T]HH:MI:SS[.ffffff]` or a bare date.
    public static func parseTimestamp(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        guard let (days, end) = parseDatePart(b, i, n) else { return nil }
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

    public static func parseDate(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parseDate($0) }
    }
    public static func parseTimestamp(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parseTimestamp($0) }
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
