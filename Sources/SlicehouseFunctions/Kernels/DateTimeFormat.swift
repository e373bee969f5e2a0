// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Redshift (PostgreSQL) datetime format strings for TO_CHAR, TO_DATE and TO_TIMESTAMP.
///
/// Supported patterns (matched longest first, case-insensitively; the case of the
/// name patterns picks the case of the output): `HH24 HH12 HH MI SS MS US AM PM A.M.
/// P.M. YYYY YYY YY Y IYYY MONTH MON MM DAY DY DDD DD D ID WW IW Q CC J`, the `FM` prefix
/// (no padding / leading zeros for the next pattern), text in double quotes (literal,
/// `\"` for a quote) and any other character (copied / skipped one-for-one).
package struct DateTimeFormat {
    package enum Field: Equatable {
        case hh24, hh12, mi, ss, ms, us, meridiem(upper: Bool, dots: Bool)
        case yyyy, yyy, yy, y, iyyy, cc, month(Case), mon(Case), mm, day(Case), dy(Case), ddd, dd, d, isoDay, ww, iw, q, j
    }
    package enum Case: Equatable { case upper, capital, lower }
    package enum Token: Equatable {
        case literal([UInt8])
        case field(Field, fillMode: Bool)
    }
    package let tokens: [Token]

    package init(_ format: UnsafeBufferPointer<UInt8>) {
        var out: [Token] = []
        var lit: [UInt8] = []
        var i = 0
        let f = format
        var fm = false
        func upperAt(_ k: Int) -> UInt8 { k < f.count ? (f[k] >= 97 && f[k] <= 122 ? f[k] - 32 : f[k]) : 0 }
        func matches(_ s: String) -> Bool {
            var k = i
            for c in s.utf8 { if upperAt(k) != c { return false }; k += 1 }
            return true
        }
        func caseOf(_ k: Int) -> Case {
            // "MONTH" → upper, "Month" → capital, "month" → lower (decided by the first two letters).
            let a = f[k], b = k + 1 < f.count ? f[k + 1] : 0
            if a >= 97 && a <= 122 { return .lower }
            if b >= 97 && b <= 122 { return .capital }
            return .upper
        }
        while i < f.count {
            if f[i] == 0x22 { // "literal"
                i += 1
                while i < f.count && f[i] != 0x22 {
                    if f[i] == 0x5C && i + 1 < f.count { i += 1 }
                    lit.append(f[i]); i += 1
                }
                i += 1
                continue
            }
            if matches("FM") { fm = true; i += 2; continue }
            let table: [(String, Field?)] = [
                ("HH24", .hh24), ("HH12", .hh12), ("HH", .hh12), ("MI", .mi), ("SS", .ss), ("MS", .ms), ("US", .us),
                ("A.M.", nil), ("P.M.", nil), ("AM", nil), ("PM", nil),
                ("IYYY", .iyyy), ("YYYY", .yyyy), ("YYY", .yyy), ("YY", .yy), ("Y", .y), ("CC", .cc),
                ("MONTH", nil), ("MON", nil), ("MM", .mm), ("DAY", nil), ("DY", nil), ("DDD", .ddd), ("DD", .dd), ("D", .d),
                ("WW", .ww), ("IW", .iw), ("ID", .isoDay), ("Q", .q), ("J", .j),
            ]
            var hit: (Int, Field)? = nil
            search: for (name, field) in table where matches(name) {
                let len = name.utf8.count
                let c = caseOf(i)
                switch name {
                case "A.M.", "P.M.": hit = (len, .meridiem(upper: c != .lower, dots: true))
                case "AM", "PM": hit = (len, .meridiem(upper: c != .lower, dots: false))
                case "MONTH": hit = (len, .month(c))
                case "MON": hit = (len, .mon(c))
                case "DAY": hit = (len, .day(c))
                case "DY": hit = (len, .dy(c))
                default: if let field { hit = (len, field) }
                }
                break search
            }
            if let (len, field) = hit {
                if !lit.isEmpty { out.append(.literal(lit)); lit = [] }
                out.append(.field(field, fillMode: fm))
                fm = false
                i += len
            } else {
                lit.append(f[i]); i += 1
            }
        }
        if !lit.isEmpty { out.append(.literal(lit)) }
        tokens = out
    }

    package static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                             "September", "October", "November", "December"]
    package static let dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    // MARK: - Formatting

    package static func appendName(_ name: String, _ c: Case, pad: Int, _ out: inout StringBuilder) {
        var written = 0
        for (k, b) in name.utf8.enumerated() {
            var x = b
            switch c {
            case .upper: if x >= 97 && x <= 122 { x -= 32 }
            case .lower: if x >= 65 && x <= 90 { x += 32 }
            case .capital: if k > 0, x >= 65 && x <= 90 { x += 32 }
            }
            out.append(x); written += 1
        }
        while written < pad { out.append(0x20); written += 1 }
    }

    @inline(__always) package static func appendNumber(_ v: Int64, width: Int, fill: Bool, _ out: inout StringBuilder) {
        if v < 0 { out.append(0x2D) }
        TextFormat.appendDigits(v.magnitude, minWidth: fill ? 1 : width, to: &out)
    }

    /// Append timestamp `t` (µs since 1970-01-01) formatted.
    package func append(micros t: Int64, to out: inout StringBuilder) {
        let days = DateFunctions.floorDiv(t, DateTime.microsPerDay)
        let tod = t - days * DateTime.microsPerDay
        let (year, month, day) = DateTime.civil(days)
        let hour = tod / 3_600_000_000, minute = (tod / 60_000_000) % 60, second = (tod / 1_000_000) % 60
        let dow = DateFunctions.floorMod(days + 4, 7) // 0 = Sunday (1970-01-01 was a Thursday)
        let doy = days - DateTime.days(year: year, month: 1, day: 1) + 1
        for tok in tokens {
            switch tok {
            case .literal(let bytes): out.append(contentsOf: bytes)
            case .field(let field, let fm):
                switch field {
                case .hh24: Self.appendNumber(hour, width: 2, fill: fm, &out)
                case .hh12: Self.appendNumber(hour % 12 == 0 ? 12 : hour % 12, width: 2, fill: fm, &out)
                case .mi: Self.appendNumber(minute, width: 2, fill: fm, &out)
                case .ss: Self.appendNumber(second, width: 2, fill: fm, &out)
                case .ms: Self.appendNumber((tod / 1000) % 1000, width: 3, fill: fm, &out)
                case .us: Self.appendNumber(tod % 1_000_000, width: 6, fill: fm, &out)
                case .meridiem(let upper, let dots):
                    let pm = hour >= 12
                    let s = dots ? (pm ? "P.M." : "A.M.") : (pm ? "PM" : "AM")
                    Self.appendName(s, upper ? .upper : .lower, pad: 0, &out)
                case .yyyy: Self.appendNumber(year, width: 4, fill: fm, &out)
                case .yyy: Self.appendNumber(year % 1000, width: 3, fill: fm, &out)
                case .yy: Self.appendNumber(year % 100, width: 2, fill: fm, &out)
                case .y: Self.appendNumber(year % 10, width: 1, fill: fm, &out)
                case .iyyy: Self.appendNumber(DateFunctions.isoWeek(days).year, width: 4, fill: fm, &out)
                case .cc: Self.appendNumber(year > 0 ? (year + 99) / 100 : year / 100 - 1, width: 2, fill: fm, &out)
                case .month(let c): Self.appendName(Self.monthNames[Int(month - 1)], c, pad: fm ? 0 : 9, &out)
                case .mon(let c): Self.appendName(String(Self.monthNames[Int(month - 1)].prefix(3)), c, pad: 0, &out)
                case .mm: Self.appendNumber(month, width: 2, fill: fm, &out)
                case .day(let c): Self.appendName(Self.dayNames[Int(dow)], c, pad: fm ? 0 : 9, &out)
                case .dy(let c): Self.appendName(String(Self.dayNames[Int(dow)].prefix(3)), c, pad: 0, &out)
                case .ddd: Self.appendNumber(doy, width: 3, fill: fm, &out)
                case .dd: Self.appendNumber(day, width: 2, fill: fm, &out)
                case .d: Self.appendNumber(dow + 1, width: 1, fill: fm, &out)
                case .isoDay: Self.appendNumber(dow == 0 ? 7 : dow, width: 1, fill: fm, &out)
                case .ww: Self.appendNumber((doy - 1) / 7 + 1, width: 2, fill: fm, &out)
                case .iw: Self.appendNumber(DateFunctions.isoWeek(days).week, width: 2, fill: fm, &out)
                case .q: Self.appendNumber((month - 1) / 3 + 1, width: 1, fill: fm, &out)
                case .j: Self.appendNumber(days + 2_440_588, width: 1, fill: fm, &out)
                }
            }
        }
    }

    // MARK: - Parsing (TO_DATE / TO_TIMESTAMP)

    /// Parse `s` with this format into µs since 1970. Throws 22007 on text that does not
    /// fit; with `strict` false, day overflow rolls into the next month (Redshift's
    /// default for TO_DATE), with `strict` true it is an error.
    package func parse(_ s: UnsafeBufferPointer<UInt8>, strict: Bool) throws -> Int64 {
        var i = 0
        var year: Int64 = 1970, month: Int64 = 1, day: Int64 = 1
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, micros: Int64 = 0
        var pm: Bool? = nil, sawHour12 = false
        var doy: Int64? = nil, julian: Int64? = nil
        func bad() -> SQLError {
            SQLError(.invalidDatetime, "invalid value for format: \"\(String(decoding: s, as: UTF8.self))\"")
        }
        func skipSpaces() { while i < s.count && s[i] == 0x20 { i += 1 } }
        func number(_ maxDigits: Int) throws -> (Int64, Int) {
            skipSpaces()
            var neg = false
            if i < s.count && s[i] == 0x2D { neg = true; i += 1 }
            var v: Int64 = 0, k = 0
            while i < s.count && k < maxDigits && s[i] >= 0x30 && s[i] <= 0x39 {
                v = v * 10 + Int64(s[i] - 0x30); i += 1; k += 1
            }
            if k == 0 { throw bad() }
            return (neg ? -v : v, k)
        }
        func name(_ names: [String], prefix: Int?) throws -> Int {
            skipSpaces()
            for (idx, full) in names.enumerated() {
                let cand = prefix.map { String(full.prefix($0)) } ?? full
                let cb = Array(cand.utf8)
                if i + cb.count <= s.count {
                    var ok = true
                    for (k, c) in cb.enumerated() where (s[i + k] | 0x20) != (c | 0x20) { ok = false; break }
                    if ok { i += cb.count; return idx }
                }
            }
            throw bad()
        }
        for (ti, tok) in tokens.enumerated() {
            switch tok {
            case .literal(let bytes):
                for b in bytes {
                    if b == 0x20 { skipSpaces(); continue }
                    if i < s.count { i += 1 }   // PostgreSQL skips one input character per literal one
                }
            case .field(let field, _):
                // A numeric field followed directly by another field reads a fixed width;
                // otherwise it reads up to its natural maximum.
                let nextIsField: Bool = { if ti + 1 < tokens.count, case .field = tokens[ti + 1] { return true }; return false }()
                switch field {
                case .yyyy, .iyyy:
                    let (v, k) = try number(nextIsField ? 4 : 9); year = v
                    _ = k
                case .yyy: let (v, _) = try number(3); year = 2000 + v
                case .yy: let (v, _) = try number(2); year = v < 70 ? 2000 + v : 1900 + v
                case .y: let (v, _) = try number(1); year = 2000 + v
                case .cc: _ = try number(2)
                case .mm: month = try number(2).0
                case .dd: day = try number(2).0
                case .ddd: doy = try number(3).0
                case .d, .isoDay, .q: _ = try number(1)
                case .ww, .iw: _ = try number(2)
                case .j: julian = try number(9).0
                case .hh24: hour = try number(2).0
                case .hh12: hour = try number(2).0; sawHour12 = true
                case .mi: minute = try number(2).0
                case .ss: second = try number(2).0
                case .ms:
                    let (v, k) = try number(3); var m = v
                    for _ in k..<3 { m *= 10 }
                    micros += m * 1000
                case .us:
                    let (v, k) = try number(6); var m = v
                    for _ in k..<6 { m *= 10 }
                    micros += m
                case .meridiem(_, let dots):
                    let idx = try name(dots ? ["A.M.", "P.M."] : ["AM", "PM"], prefix: nil)
                    pm = idx == 1
                case .month: month = Int64(try name(Self.monthNames, prefix: nil) + 1)
                case .mon: month = Int64(try name(Self.monthNames, prefix: 3) + 1)
                case .day: _ = try name(Self.dayNames, prefix: nil)
                case .dy: _ = try name(Self.dayNames, prefix: 3)
                }
            }
        }
        if let pm {
            guard hour >= 1 && hour <= 12 else { throw SQLError(.invalidDatetime, "hour \"\(hour)\" is invalid for the 12-hour clock") }
            if pm && hour < 12 { hour += 12 }
            if !pm && hour == 12 { hour = 0 }
        } else if sawHour12 {
            guard hour >= 1 && hour <= 12 else { throw SQLError(.invalidDatetime, "hour \"\(hour)\" is invalid for the 12-hour clock") }
            if hour == 12 { hour = 0 }
        }
        func outOfRange(_ what: String) -> SQLError {
            SQLError(.datetimeOverflow, "date/time field \(what) value out of range: \(year)-\(month)-\(day)")
        }
        guard hour <= 24, minute <= 59, second <= 60 else { throw outOfRange("time") }
        let days: Int64
        if let julian {
            days = julian - 2_440_588
        } else if let doy {
            guard doy >= 1 && doy <= 366 else { throw outOfRange("day of year") }
            days = DateTime.days(year: year, month: 1, day: 1) + doy - 1
        } else {
            guard month >= 1 && month <= 12 else { throw outOfRange("month") }
            guard day >= 1 && day <= 31 else { throw outOfRange("date") }
            if day > DateTime.daysInMonth(year, month) && strict { throw outOfRange("date") }
            days = DateTime.days(year: year, month: month, day: 1) + day - 1
        }
        guard days > -100_000_000 && days < 100_000_000 else { throw outOfRange("date") }
        return days * DateTime.microsPerDay + ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros
    }
}
