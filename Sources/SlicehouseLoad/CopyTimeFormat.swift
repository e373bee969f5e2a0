// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A COPY `DATEFORMAT` / `TIMEFORMAT` specification, compiled once and applied to
/// field bytes without allocation.
///
/// Supported: the default ISO forms (`YYYY-MM-DD`, `YYYY-MM-DD HH:MI:SS[.ffffff]`, also
/// with `/`, `T` or as `YYYYMMDD`), `'auto'` (ISO first, then common US/European/
/// month-name forms), `'epochsecs'` / `'epochmillisecs'` (TIMEFORMAT only) and patterns
/// built from `YYYY YY MM MON MONTH DD HH HH24 HH12 MI SS AM PM` plus literal separators
/// (a blank in the pattern matches one or more blanks; `.SSS…` after `SS`, or any
/// `.digits` after seconds in the data, is a fraction kept to microseconds).
public struct CopyTimeFormat: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case iso, auto, epochSeconds, epochMilliseconds, pattern }
    enum Token: Sendable, Equatable {
        case year4, year2, month, monthName, day, hour24, hour12, minute, second, fraction, meridiem
        case literal(UInt8)
        case blank
    }

    /// The format as written.
    public let text: String
    let kind: Kind
    let tokens: [Token]

    init(text: String, kind: Kind, tokens: [Token] = []) {
        self.text = text; self.kind = kind; self.tokens = tokens
    }

    public static let isoDate = CopyTimeFormat(text: "YYYY-MM-DD", kind: .iso)
    public static let isoTimestamp = CopyTimeFormat(text: "YYYY-MM-DD HH:MI:SS", kind: .iso)

    /// Compile a format string. `timestamp` selects TIMEFORMAT rules (epoch forms allowed).
    public init(_ text: String, timestamp: Bool) throws {
        let upper = text.uppercased()
        switch upper {
        case "AUTO":
            self.init(text: text, kind: .auto); return
        case "EPOCHSECS" where timestamp:
            self.init(text: text, kind: .epochSeconds); return
        case "EPOCHMILLISECS" where timestamp:
            self.init(text: text, kind: .epochMilliseconds); return
        case "YYYY-MM-DD" where !timestamp, "YYYY-MM-DD HH:MI:SS" where timestamp,
             "YYYY-MM-DD HH24:MI:SS" where timestamp:
            self.init(text: text, kind: .iso); return
        default:
            break
        }
        guard let tokens = Self.compile(Array(upper.utf8)) else {
            throw SQLError(.invalidParameter,
                           "invalid \(timestamp ? "TIMEFORMAT" : "DATEFORMAT") '\(text)'")
        }
        self.init(text: text, kind: .pattern, tokens: tokens)
    }

    static func compile(_ f: [UInt8]) -> [Token]? {
        var out: [Token] = []
        var i = 0
        func at(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= f.count else { return false }
            for k in 0..<u.count where f[i + k] != u[k] { return false }
            return true
        }
        while i < f.count {
            let c = f[i]
            if at("YYYY") { out.append(.year4); i += 4 }
            else if at("YY") { out.append(.year2); i += 2 }
            else if at("MONTH") { out.append(.monthName); i += 5 }
            else if at("MON") { out.append(.monthName); i += 3 }
            else if at("MM") { out.append(.month); i += 2 }
            else if at("MI") { out.append(.minute); i += 2 }
            else if at("DD") { out.append(.day); i += 2 }
            else if at("HH24") { out.append(.hour24); i += 4 }
            else if at("HH12") { out.append(.hour12); i += 4 }
            else if at("HH") { out.append(.hour24); i += 2 }
            else if at("SS") {
                out.append(.second); i += 2
                // `.S…`, `.US`, `.MS` after seconds: fractional part.
                if i + 1 < f.count, f[i] == UInt8(ascii: "."), f[i + 1] == UInt8(ascii: "S") {
                    i += 1
                    while i < f.count && f[i] == UInt8(ascii: "S") { i += 1 }
                    out.append(.fraction)
                } else if i + 2 < f.count, f[i] == UInt8(ascii: "."),
                          f[i + 2] == UInt8(ascii: "S"), f[i + 1] == UInt8(ascii: "U") || f[i + 1] == UInt8(ascii: "M") {
                    i += 3
                    out.append(.fraction)
                }
            }
            else if at("AM") || at("PM") { out.append(.meridiem); i += 2 }
            else if c == UInt8(ascii: "T") { out.append(.literal(c)); i += 1 }
            else if c == 32 { out.append(.blank); i += 1; while i < f.count && f[i] == 32 { i += 1 } }
            else if (c >= 65 && c <= 90) || (c >= 48 && c <= 57) { return nil }
            else { out.append(.literal(c)); i += 1 }
        }
        return out.isEmpty ? nil : out
    }

    // MARK: - Parsing field bytes

    /// Days since 1970-01-01, or nil when `b` does not match.
    func parseDate(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        switch kind {
        case .iso: return DateTime.parseDate(b)
        case .pattern: return Self.match(tokens, b).map { floorDiv($0, DateTime.microsPerDay) }
        case .auto:
            if let d = DateTime.parseDate(b) { return d }
            for p in Self.autoDatePatterns { if let t = Self.match(p, b) { return floorDiv(t, DateTime.microsPerDay) } }
            return nil
        case .epochSeconds, .epochMilliseconds:
            return parseTimestamp(b).map { floorDiv($0, DateTime.microsPerDay) }
        }
    }

    /// Microseconds since 1970-01-01 00:00:00, or nil when `b` does not match.
    func parseTimestamp(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        switch kind {
        case .iso: return DateTime.parseTimestamp(b)
        case .pattern: return Self.match(tokens, b)
        case .auto:
            if let t = DateTime.parseTimestamp(b) { return t }
            for p in Self.autoTimestampPatterns { if let t = Self.match(p, b) { return t } }
            return nil
        case .epochSeconds: return Self.epoch(b, unit: DateTime.microsPerSecond)
        case .epochMilliseconds: return Self.epoch(b, unit: 1000)
        }
    }

    func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `[-]digits[.digits]` times `unit` microseconds.
    static func epoch(_ b: UnsafeBufferPointer<UInt8>, unit: Int64) -> Int64? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        var neg = false
        if i < n && (b[i] == 45 || b[i] == 43) { neg = b[i] == 45; i += 1 }
        var whole: Int64 = 0, digits = 0
        while i < n, b[i] >= 48 && b[i] <= 57 {
            guard digits < 15 else { return nil }
            whole = whole * 10 + Int64(b[i] - 48); digits += 1; i += 1
        }
        var frac: Int64 = 0, scale: Int64 = 1
        if i < n && b[i] == 46 {
            i += 1
            while i < n, b[i] >= 48 && b[i] <= 57 {
                if scale < unit { frac = frac * 10 + Int64(b[i] - 48); scale *= 10; digits += 1 }
                i += 1
            }
        }
        guard digits > 0, i == n else { return nil }
        // Up to 15 whole digits of seconds do not fit in microseconds: out of range, not a trap.
        let (micros, overflow) = whole.multipliedReportingOverflow(by: unit)
        guard !overflow, micros <= Int64.max - unit else { return nil }
        let v = micros + frac * (unit / scale)
        return neg ? -v : v
    }

    static let monthNames: [[UInt8]] = ["JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY",
                                        "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"].map { Array($0.utf8) }

    static let autoDatePatterns: [[Token]] = [
        "MM/DD/YYYY", "MM-DD-YYYY", "DD-MON-YYYY", "DD MON YYYY", "MON DD YYYY", "MON DD, YYYY",
        "YYYY-MON-DD", "YYYY MON DD", "DD.MM.YYYY", "YYYY.MM.DD",
    ].compactMap { compile(Array($0.utf8)) }

    static let autoTimestampPatterns: [[Token]] = {
        let times = [" HH:MI:SS", " HH:MI", " HH12:MI:SS AM", " HH12:MI AM", "THH:MI:SS"]
        var out: [[Token]] = []
        let dates = ["YYYY-MM-DD", "MM/DD/YYYY", "MM-DD-YYYY", "DD-MON-YYYY", "DD MON YYYY", "MON DD YYYY",
                     "MON DD, YYYY", "YYYY-MON-DD", "YYYY MON DD", "DD.MM.YYYY", "YYYY.MM.DD"]
        for d in dates {
            for t in times { if let p = compile(Array((d + t).utf8)) { out.append(p) } }
            if let p = compile(Array(d.utf8)) { out.append(p) }
        }
        return out
    }()

    /// Match `tokens` against the whole of `b` (surrounding blanks ignored).
    static func match(_ tokens: [Token], _ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0, n = b.count
        while i < n && b[i] == 32 { i += 1 }
        while n > i && b[n - 1] == 32 { n -= 1 }
        var year: Int64 = 1970, month: Int64 = 1, day: Int64 = 1
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, micros: Int64 = 0
        var pm: Bool? = nil
        var twelveHour = false

        func number(_ maxDigits: Int) -> Int64? {
            var v: Int64 = 0, d = 0
            while i < n && d < maxDigits, b[i] >= 48 && b[i] <= 57 {
                v = v * 10 + Int64(b[i] - 48); i += 1; d += 1
            }
            return d == 0 ? nil : v
        }
        func fraction() -> Int64? {
            guard i < n, b[i] == 46 else { return nil }
            i += 1
            var v: Int64 = 0, d = 0
            while i < n, b[i] >= 48 && b[i] <= 57 {
                if d < 6 { v = v * 10 + Int64(b[i] - 48) }
                d += 1; i += 1
            }
            guard d > 0 else { return nil }
            for _ in min(d, 6)..<6 { v *= 10 }
            return v
        }
        func upper(_ c: UInt8) -> UInt8 { (c >= 97 && c <= 122) ? c - 32 : c }

        for (k, tok) in tokens.enumerated() {
            switch tok {
            case .year4: guard let v = number(4) else { return nil }; year = v
            case .year2:
                guard let v = number(2) else { return nil }
                year = v < 70 ? 2000 + v : 1900 + v
            case .month: guard let v = number(2) else { return nil }; month = v
            case .day: guard let v = number(2) else { return nil }; day = v
            case .hour24: guard let v = number(2) else { return nil }; hour = v
            case .hour12: guard let v = number(2) else { return nil }; hour = v; twelveHour = true
            case .minute: guard let v = number(2) else { return nil }; minute = v
            case .second:
                guard let v = number(2) else { return nil }
                second = v
                let nextIsDot: Bool = {
                    if k + 1 < tokens.count, case .literal(46) = tokens[k + 1] { return true }
                    if k + 1 < tokens.count, case .fraction = tokens[k + 1] { return true }
                    return false
                }()
                if !nextIsDot, i + 1 < n, b[i] == 46, b[i + 1] >= 48 && b[i + 1] <= 57 {
                    guard let f = fraction() else { return nil }
                    micros = f
                }
            case .fraction:
                guard let f = fraction() else { return nil }
                micros = f
            case .meridiem:
                guard i + 1 < n, upper(b[i + 1]) == 77 else { return nil }  // 'M'
                switch upper(b[i]) {
                case 65: pm = false
                case 80: pm = true
                default: return nil
                }
                i += 2
            case .monthName:
                guard i + 2 < n else { return nil }
                var found: Int? = nil
                for (m, name) in monthNames.enumerated()
                where upper(b[i]) == name[0] && upper(b[i + 1]) == name[1] && upper(b[i + 2]) == name[2] {
                    found = m; break
                }
                guard let m = found else { return nil }
                i += 3
                // Accept the full month name too.
                let name = monthNames[m]
                var j = 3
                var k2 = i
                while j < name.count && k2 < n && upper(b[k2]) == name[j] { j += 1; k2 += 1 }
                if j == name.count { i = k2 }
                month = Int64(m + 1)
            case .literal(let c):
                guard i < n, b[i] == c else { return nil }
                i += 1
            case .blank:
                guard i < n, b[i] == 32 else { return nil }
                while i < n && b[i] == 32 { i += 1 }
            }
        }
        guard i == n else { return nil }
        if let pm {
            guard twelveHour || hour <= 12, hour >= 1 && hour <= 12 else { return nil }
            hour = (hour % 12) + (pm ? 12 : 0)
        } else if twelveHour {
            guard hour >= 1 && hour <= 12 else { return nil }
        }
        guard month >= 1 && month <= 12, day >= 1, day <= DateTime.daysInMonth(year, month),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = DateTime.days(year: year, month: month, day: day)
        return days * DateTime.microsPerDay + ((hour * 60 + minute) * 60 + second) * DateTime.microsPerSecond + micros
    }
}
