// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlan

/// Date and time functions: DATE_PART/EXTRACT, DATE_TRUNC, DATEADD, DATEDIFF,
/// ADD_MONTHS, LAST_DAY, TRUNC(timestamp), CURRENT_DATE/GETDATE/SYSDATE.
///
/// Timestamp arguments arrive as TIMESTAMP (microseconds since 1970-01-01; the
/// registry casts dates); the part name is the first argument, a string that is
/// normally constant (a per-row part name works too, more slowly).
package enum DateFunctions {

    /// The date parts the kernels understand (canonical names from `DateParts.canonical`).
    package enum Part: String {
        case millennium, century, decade, year, quarter, month, week, day, dow, isodow, doy
        case hour, minute, second, millisecond, microsecond, epoch, isoyear

        init(_ raw: String) throws {
            // The binder made a constant part canonical; a part read per row is looked up.
            if let p = Part(rawValue: raw) { self = p; return }
            guard let c = DateParts.canonical(raw), let p = Part(rawValue: c) else {
                throw SQLError(.invalidParameter, "date part \"\(raw)\" is not supported")
            }
            self = p
        }
    }

    @inline(__always) package static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
    @inline(__always) package static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }

    package static let microsPerHour: Int64 = 3_600_000_000
    package static let microsPerMinute: Int64 = 60_000_000

    // MARK: - Field extraction

    /// ISO-8601 week number and ISO year of a day number.
    package static func isoWeek(_ days: Int64) -> (year: Int64, week: Int64) {
        let dow = floorMod(days + 3, 7) + 1          // 1 = Monday ... 7 = Sunday
        let thursday = days - dow + 4
        let (y, _, _) = DateTime.civil(thursday)
        let jan1 = DateTime.days(year: y, month: 1, day: 1)
        return (y, (thursday - jan1) / 7 + 1)
    }

    /// The value of `part` of timestamp `t`, as an integer (EXTRACT) — seconds truncated.
    package static func extract(_ part: Part, _ t: Int64) -> Int64 {
        let days = floorDiv(t, DateTime.microsPerDay)
        let rem = t - days * DateTime.microsPerDay
        switch part {
        case .hour: return rem / microsPerHour
        case .minute: return (rem / microsPerMinute) % 60
        case .second: return (rem / DateTime.microsPerSecond) % 60
        // Redshift's EXTRACT returns the named field alone: milliseconds without the
        // seconds and microseconds, microseconds without the seconds and milliseconds.
        case .millisecond: return (rem % DateTime.microsPerSecond) / 1000
        case .microsecond: return rem % 1000
        case .epoch: return floorDiv(t, DateTime.microsPerSecond)
        case .dow: return floorMod(days + 4, 7)
        case .isodow: let d = floorMod(days + 4, 7); return d == 0 ? 7 : d
        case .week: return isoWeek(days).week
        case .isoyear: return isoWeek(days).year
        default: break
        }
        let (y, m, _) = DateTime.civil(days)
        switch part {
        case .year: return y
        case .month: return m
        case .day: return DateTime.civil(days).day
        case .quarter: return (m - 1) / 3 + 1
        case .doy: return days - DateTime.days(year: y, month: 1, day: 1) + 1
        case .decade: return floorDiv(y, 10)
        case .century: return y > 0 ? (y + 99) / 100 : -((99 - y) / 100)
        case .millennium: return y > 0 ? (y + 999) / 1000 : -((999 - y) / 1000)
        default: return 0
        }
    }

    /// DATE_PART as a double: seconds, milliseconds and microseconds are the whole
    /// seconds field in that unit (Redshift: `date_part(ms, '...:03.189717')` is 3189.717);
    /// epoch keeps its fraction.
    package static func extractDouble(_ part: Part, _ t: Int64) -> Double {
        let days = floorDiv(t, DateTime.microsPerDay)
        let rem = t - days * DateTime.microsPerDay
        switch part {
        case .second: return Double(rem % microsPerMinute) / 1_000_000
        case .millisecond: return Double(rem % microsPerMinute) / 1000
        case .microsecond: return Double(rem % microsPerMinute)
        case .epoch: return Double(t) / 1_000_000
        default: return Double(extract(part, t))
        }
    }

    // MARK: - Truncation and calendar arithmetic

    /// DATE_TRUNC: the start of the `part` containing `t`.
    package static func trunc(_ part: Part, _ t: Int64) -> Int64 {
        let days = floorDiv(t, DateTime.microsPerDay)
        func start(_ d: Int64) -> Int64 { d * DateTime.microsPerDay }
        switch part {
        case .microsecond: return t
        case .millisecond: return floorDiv(t, 1000) * 1000
        case .second: return floorDiv(t, DateTime.microsPerSecond) * DateTime.microsPerSecond
        case .minute: return floorDiv(t, microsPerMinute) * microsPerMinute
        case .hour: return floorDiv(t, microsPerHour) * microsPerHour
        case .day, .dow, .isodow, .doy, .epoch: return start(days)
        case .week: return start(days - floorMod(days + 3, 7))
        default: break
        }
        let (y, m, _) = DateTime.civil(days)
        switch part {
        case .month: return start(DateTime.days(year: y, month: m, day: 1))
        case .quarter: return start(DateTime.days(year: y, month: ((m - 1) / 3) * 3 + 1, day: 1))
        case .year, .isoyear: return start(DateTime.days(year: y, month: 1, day: 1))
        case .decade: return start(DateTime.days(year: floorDiv(y, 10) * 10, month: 1, day: 1))
        case .century: return start(DateTime.days(year: floorDiv(y - 1, 100) * 100 + 1, month: 1, day: 1))
        case .millennium: return start(DateTime.days(year: floorDiv(y - 1, 1000) * 1000 + 1, month: 1, day: 1))
        default: return start(days)
        }
    }

    /// Largest |months| we add (keeps the civil-date arithmetic far from overflow).
    package static let maxMonths: Int64 = 12 * 300_000

    /// `t` plus `k` months; the day is clamped to the end of the target month, or
    /// (with `keepLastDay`, ADD_MONTHS) the last day stays the last day.
    package static func addMonths(_ t: Int64, _ k: Int64, keepLastDay: Bool) -> (Int64, Bool) {
        guard k >= -maxMonths && k <= maxMonths else { return (0, true) }
        let days = floorDiv(t, DateTime.microsPerDay)
        let rem = t - days * DateTime.microsPerDay
        let (y, m, d) = DateTime.civil(days)
        let total = y * 12 + (m - 1) + k
        let ny = floorDiv(total, 12), nm = total - ny * 12 + 1
        let dim = DateTime.daysInMonth(ny, nm)
        let lastDay = d == DateTime.daysInMonth(y, m)
        let nd = keepLastDay && lastDay ? dim : min(d, dim)
        let (r, o) = DateTime.days(year: ny, month: nm, day: nd).multipliedReportingOverflow(by: DateTime.microsPerDay)
        let (r2, o2) = r.addingReportingOverflow(rem)
        return (r2, o || o2)
    }

    /// DATEADD(part, k, t).
    package static func add(_ part: Part, _ k: Int64, _ t: Int64) -> (Int64, Bool) {
        func plus(_ unit: Int64) -> (Int64, Bool) {
            let (d, o1) = k.multipliedReportingOverflow(by: unit)
            let (r, o2) = t.addingReportingOverflow(d)
            return (r, o1 || o2)
        }
        switch part {
        case .millennium: return k.multipliedReportingOverflow(by: 12_000).overflow ? (0, true) : addMonths(t, k * 12_000, keepLastDay: false)
        case .century: return k.multipliedReportingOverflow(by: 1200).overflow ? (0, true) : addMonths(t, k * 1200, keepLastDay: false)
        case .decade: return k.multipliedReportingOverflow(by: 120).overflow ? (0, true) : addMonths(t, k * 120, keepLastDay: false)
        case .year, .isoyear: return k.multipliedReportingOverflow(by: 12).overflow ? (0, true) : addMonths(t, k * 12, keepLastDay: false)
        case .quarter: return k.multipliedReportingOverflow(by: 3).overflow ? (0, true) : addMonths(t, k * 3, keepLastDay: false)
        case .month: return addMonths(t, k, keepLastDay: false)
        case .week: return plus(7 * DateTime.microsPerDay)
        case .day, .dow, .isodow, .doy: return plus(DateTime.microsPerDay)
        case .hour: return plus(microsPerHour)
        case .minute: return plus(microsPerMinute)
        case .second, .epoch: return plus(DateTime.microsPerSecond)
        case .millisecond: return plus(1000)
        case .microsecond: return plus(1)
        }
    }

    /// DATEDIFF(part, a, b): the number of `part` boundaries crossed from a to b.
    package static func diff(_ part: Part, _ a: Int64, _ b: Int64) -> Int64 {
        func units(_ u: Int64) -> Int64 { floorDiv(b, u) - floorDiv(a, u) }
        let da = floorDiv(a, DateTime.microsPerDay), db = floorDiv(b, DateTime.microsPerDay)
        switch part {
        case .microsecond: return b &- a
        case .millisecond: return units(1000)
        case .second, .epoch: return units(DateTime.microsPerSecond)
        case .minute: return units(microsPerMinute)
        case .hour: return units(microsPerHour)
        case .day, .dow, .isodow, .doy: return db - da
        case .week: return ((db - floorMod(db + 3, 7)) - (da - floorMod(da + 3, 7))) / 7
        default: break
        }
        let (ya, ma, _) = DateTime.civil(da), (yb, mb, _) = DateTime.civil(db)
        switch part {
        case .month: return (yb * 12 + mb) - (ya * 12 + ma)
        case .quarter: return (yb * 4 + (mb - 1) / 3) - (ya * 4 + (ma - 1) / 3)
        case .year, .isoyear: return yb - ya
        case .decade: return floorDiv(yb, 10) - floorDiv(ya, 10)
        case .century: return floorDiv(yb - 1, 100) - floorDiv(ya - 1, 100)
        case .millennium: return floorDiv(yb - 1, 1000) - floorDiv(ya - 1, 1000)
        default: return 0
        }
    }

    // MARK: - Vector kernels

    /// Apply `f(part, rowIndex)` with the part taken from a constant (fast) or per row.
    package static func parts(_ partVector: Vector, _ len: Int) throws -> (constant: Part?, perRow: [Part?]) {
        let s = try Kern.strings(partVector)
        if partVector.isConstant { return (try Part(s[0]), []) }
        var rows: [Part?] = []
        rows.reserveCapacity(len)
        for i in 0..<len { rows.append(partVector.isNull(i) ? nil : try Part(s[i])) }
        return (nil, rows)
    }

    /// A DATE argument as a TIMESTAMP (midnight); timestamps pass through.
    package static func asTimestamp(_ v: Vector) throws -> Vector {
        v.type == .date ? try CastKernels.cast(v, to: .timestamp) : v
    }

    /// The year of a day number (the common EXTRACT(YEAR FROM date) case, without the full civil conversion).
    /// Between 1901-01-01 and 2099-12-31 every fourth year is a leap year, so the year is
    /// one multiply-and-divide away; other days take the general civil conversion.
    @inline(__always) package static func year(ofDay days: Int64) -> Int64 {
        let e = days &+ 25_202               // days since 1901-01-01
        if e >= 0 && e < 72_684 {            // before 2100-01-01
            return 1901 + (4 * e + 3) / 1461
        }
        return DateTime.civil(days).year
    }

    /// DATE_PART (double) and EXTRACT (integer/bigint).
    package static func datePart(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("date_part takes 2 arguments") }
        let pv = args[0]
        // EXTRACT(YEAR/MONTH/DAY FROM date) straight from day numbers.
        if args[1].type == .date, pv.isConstant, !Kern.isConstNull(pv), !Kern.isConstNull(args[1]),
           let part = try? Part(Kern.strings(pv)[0]), part == .year || part == .month || part == .day {
            let dv = args[1]
            let d = try Kern.int64s(dv)
            let out: [Int64]
            switch part {
            case .year: out = Kern.map(YearOfDay(), d)
            case .month: out = Kern.map(MonthOfDay(), d)
            default: out = Kern.map(DayOfDay(), d)
            }
            let data: VectorData = resultType.physical == .double ? .double(out.map { Double($0) }) : .int64(out)
            return Kern.result(resultType, data, validity: dv.validity, constant: dv.isConstant)
        }
        let tv = try asTimestamp(args[1])
        if Kern.isConstNull(pv) || Kern.isConstNull(tv) { return Kern.constNull(resultType) }
        let len = Kern.length(pv, tv, n: n)
        let constant = pv.isConstant && tv.isConstant
        let validity = constant ? nil : Kern.combinedValidity(pv, tv)
        let t = try Kern.int64s(tv)
        let (cp, rowParts) = try parts(pv, len)
        let tc = tv.isConstant
        if resultType == .double {
            let out: [Double]
            if let cp {
                out = tc ? [Double](filled: extractDouble(cp, t[0]), count: len) : Kern.map(ExtractDoubleOp(part: cp), t)
            } else {
                out = (0..<len).map { i in rowParts[i].map { extractDouble($0, t[tc ? 0 : i]) } ?? 0 }
            }
            return Kern.result(resultType, .double(out), validity: validity, constant: constant)
        }
        var out: [Int64]
        if let cp {
            out = tc ? [Int64](filled: extract(cp, t[0]), count: len) : Kern.map(ExtractOp(part: cp), t)
        } else {
            out = (0..<len).map { i in rowParts[i].map { extract($0, t[tc ? 0 : i]) } ?? 0 }
        }
        if let r = resultType.integerRange, r != Int64.min...Int64.max,
           Kern.anyValidRow(validity, len, { !r.contains(out[$0]) }) {
            throw SQLError.overflow(resultType)
        }
        _ = out.count
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    package static func dateTrunc(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("date_trunc takes 2 arguments") }
        let (pv, tv) = (args[0], try asTimestamp(args[1]))
        if Kern.isConstNull(pv) || Kern.isConstNull(tv) { return Kern.constNull(resultType) }
        let len = Kern.length(pv, tv, n: n)
        let constant = pv.isConstant && tv.isConstant
        let validity = constant ? nil : Kern.combinedValidity(pv, tv)
        let t = try Kern.int64s(tv)
        let (cp, rowParts) = try parts(pv, len)
        let tc = tv.isConstant
        let out: [Int64]
        if let cp {
            out = tc ? [Int64](filled: trunc(cp, t[0]), count: len) : Kern.map(TruncOp(part: cp), t)
        } else {
            out = (0..<len).map { i in rowParts[i].map { trunc($0, t[tc ? 0 : i]) } ?? 0 }
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    package static let timestampOutOfRange = SQLError(.datetimeOverflow, "timestamp out of range")

    /// A TIME's (or TIMETZ's) unit for DATEADD / DATEDIFF: hours and smaller parts only.
    static func timeUnit(_ p: Part) throws -> Int64 {
        switch p {
        case .hour: return microsPerHour
        case .minute: return microsPerMinute
        case .second: return 1_000_000
        case .millisecond: return 1_000
        case .microsecond: return 1
        default: throw SQLError(.invalidParameter, "date part \"\(p.rawValue)\" is not supported for a time value")
        }
    }

    /// DATEADD over TIME / TIMETZ (microseconds of the day): wraps around midnight.
    static func timeAdd(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let (pv, kv, tv) = (args[0], args[1], args[2])
        let k = try Kern.int64s(kv), t = try Kern.int64s(tv)
        let len = Kern.length(pv, kv, tv, n: n)
        let (cp, rowParts) = try parts(pv, len)
        let constantUnit = try cp.map(timeUnit)
        let day = DateTime.microsPerDay
        return try StringKernels.mapRowsInt(args, n: n, resultType: resultType) { i in
            guard let unit = try constantUnit ?? rowParts[i].map(timeUnit) else { return 0 }
            // (k mod a day's units) keeps the product in range for any k.
            let steps = floorMod(k[kv.isConstant ? 0 : i], day / unit)
            return floorMod(t[tv.isConstant ? 0 : i] + steps * unit, day)
        }
    }

    /// DATEDIFF over TIMEs / TIMETZs: the unit's boundaries crossed from a to b.
    static func timeDiff(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let (pv, av, bv) = (args[0], args[1], args[2])
        let a = try Kern.int64s(av), b = try Kern.int64s(bv)
        let len = Kern.length(pv, av, bv, n: n)
        let (cp, rowParts) = try parts(pv, len)
        let constantUnit = try cp.map(timeUnit)
        return try StringKernels.mapRowsInt(args, n: n, resultType: resultType) { i in
            guard let unit = try constantUnit ?? rowParts[i].map(timeUnit) else { return 0 }
            return floorDiv(b[bv.isConstant ? 0 : i], unit) - floorDiv(a[av.isConstant ? 0 : i], unit)
        }
    }

    package static func dateAdd(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 3 else { throw SQLError.internalError("dateadd takes 3 arguments") }
        let (pv, kv, tv) = (args[0], args[1], args[2])
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        if tv.type == .time || tv.type == .timetz { return try timeAdd(args, resultType: resultType, n: n) }
        let len = Kern.length(pv, kv, tv, n: n)
        let constant = pv.isConstant && kv.isConstant && tv.isConstant
        let validity = constant ? nil : Kern.combinedValidity(args)
        let k = try Kern.int64s(kv), t = try Kern.int64s(tv)
        let (cp, rowParts) = try parts(pv, len)
        var out: [Int64]
        var bad: Bool
        if let cp {
            (out, bad) = Kern.map2Checked(k, kv.isConstant, t, tv.isConstant, len) { add(cp, $0, $1) }
        } else {
            out = [Int64](filled: 0, count: len)
            bad = false
            for i in 0..<len {
                guard let p = rowParts[i] else { continue }
                let (r, o) = add(p, k[kv.isConstant ? 0 : i], t[tv.isConstant ? 0 : i])
                out[i] = r
                if o && Kern.valid(validity, i) { bad = true }
            }
        }
        if bad {
            let failing = Kern.anyValidRow(validity, len) { i in
                let p = cp ?? rowParts[i] ?? .day
                return add(p, k[kv.isConstant ? 0 : i], t[tv.isConstant ? 0 : i]).1
            }
            if failing { throw timestampOutOfRange }
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    package static func dateDiff(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 3 else { throw SQLError.internalError("datediff takes 3 arguments") }
        let (pv, av, bv) = (args[0], args[1], args[2])
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        if av.type == .time || av.type == .timetz { return try timeDiff(args, resultType: resultType, n: n) }
        let len = Kern.length(pv, av, bv, n: n)
        let constant = pv.isConstant && av.isConstant && bv.isConstant
        let validity = constant ? nil : Kern.combinedValidity(args)
        let a = try Kern.int64s(av), b = try Kern.int64s(bv)
        let (cp, rowParts) = try parts(pv, len)
        let out: [Int64]
        if let cp {
            out = Kern.map2(a, av.isConstant, b, bv.isConstant, len) { diff(cp, $0, $1) }
        } else {
            out = (0..<len).map { i in
                rowParts[i].map { diff($0, a[av.isConstant ? 0 : i], b[bv.isConstant ? 0 : i]) } ?? 0
            }
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    /// ADD_MONTHS(t, k): month arithmetic keeping month-end dates at month end.
    package static func addMonthsKernel(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("add_months takes 2 arguments") }
        let (tv, kv) = (args[0], args[1])
        if Kern.isConstNull(tv) || Kern.isConstNull(kv) { return Kern.constNull(resultType) }
        let len = Kern.length(tv, kv, n: n)
        let constant = tv.isConstant && kv.isConstant
        let validity = constant ? nil : Kern.combinedValidity(tv, kv)
        let t = try Kern.int64s(tv), k = try Kern.int64s(kv)
        let f: (Int64, Int64) -> (Int64, Bool) = { addMonths($0, $1, keepLastDay: true) }
        let out = try ArithmeticKernels.apply(t, tv.isConstant, k, kv.isConstant, len, validity, f) { _, _ in timestampOutOfRange }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    /// MONTHS_BETWEEN(a, b): whole months when both days are the same day of the month
    /// or both are month ends, otherwise with a fraction of a 31-day month (Redshift's rule).
    package static func monthsBetween(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("months_between takes 2 arguments") }
        let (av, bv) = (args[0], args[1])
        if Kern.isConstNull(av) || Kern.isConstNull(bv) { return Kern.constNull(resultType) }
        let len = Kern.length(av, bv, n: n)
        let constant = av.isConstant && bv.isConstant
        let validity = constant ? nil : Kern.combinedValidity(av, bv)
        let a = try Kern.int64s(av), b = try Kern.int64s(bv)
        let aTs = av.type == .timestamp, bTs = bv.type == .timestamp
        let out = Kern.map2(a, av.isConstant, b, bv.isConstant, len) { x, y -> Double in
            let dx = aTs ? floorDiv(x, DateTime.microsPerDay) : x
            let dy = bTs ? floorDiv(y, DateTime.microsPerDay) : y
            let (y1, m1, d1) = DateTime.civil(dx), (y2, m2, d2) = DateTime.civil(dy)
            let months = Double((y1 * 12 + m1) - (y2 * 12 + m2))
            let end1 = d1 == DateTime.daysInMonth(y1, m1), end2 = d2 == DateTime.daysInMonth(y2, m2)
            if d1 == d2 || (end1 && end2) { return months }
            return months + Double(d1 - d2) / 31
        }
        return Kern.result(resultType, .double(out), validity: validity, constant: constant)
    }

    /// LAST_DAY(date or timestamp) → DATE.
    package static func lastDay(_ v: Vector, resultType: DataType) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(resultType) }
        let x = try Kern.int64s(v)
        let isTimestamp = v.type == .timestamp
        let out = Kern.map1(x) { raw -> Int64 in
            let d = isTimestamp ? floorDiv(raw, DateTime.microsPerDay) : raw
            let (y, m, _) = DateTime.civil(d)
            return DateTime.days(year: y, month: m, day: DateTime.daysInMonth(y, m))
        }
        return Kern.result(resultType, .int64(out), validity: v.validity, constant: v.isConstant)
    }

    /// TRUNC(timestamp) → DATE.
    package static func truncToDate(_ v: Vector, resultType: DataType) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(resultType) }
        let x = try Kern.int64s(v)
        let out = v.type == .date ? x : Kern.map(TimestampToDate(), x)
        return Kern.result(resultType, .int64(out), validity: v.validity, constant: v.isConstant)
    }

    /// The current time in microseconds since 1970 (UTC).
    package static func nowMicros() -> Int64 {
        let t = Date().timeIntervalSince1970
        return Int64((t * 1_000_000).rounded(.down))
    }

    /// CURRENT_DATE, GETDATE() (whole seconds), SYSDATE (microseconds) as constants.
    package enum ClockKind: Sendable { case currentDate, getdate, sysdate }

    package static func clock(_ fn: ClockKind, resultType: DataType) -> Vector {
        let now = nowMicros()
        let v: Int64
        switch fn {
        case .currentDate: v = floorDiv(now, DateTime.microsPerDay)
        case .getdate: v = floorDiv(now, DateTime.microsPerSecond) * DateTime.microsPerSecond
        default: v = now
        }
        return Vector(type: resultType, data: .int64([v]), isConstant: true)
    }
}

// MARK: - Row operations

package struct YearOfDay: RowOp1 {
    @inline(__always) package func apply(_ d: Int64) -> (Int64, Bool) { (DateFunctions.year(ofDay: d), false) }
}
package struct MonthOfDay: RowOp1 {
    @inline(__always) package func apply(_ d: Int64) -> (Int64, Bool) { (DateTime.civil(d).month, false) }
}
package struct DayOfDay: RowOp1 {
    @inline(__always) package func apply(_ d: Int64) -> (Int64, Bool) { (DateTime.civil(d).day, false) }
}
package struct ExtractOp: RowOp1 {
    package let part: DateFunctions.Part
    @inline(__always) package func apply(_ t: Int64) -> (Int64, Bool) { (DateFunctions.extract(part, t), false) }
}
package struct ExtractDoubleOp: RowOp1 {
    package let part: DateFunctions.Part
    @inline(__always) package func apply(_ t: Int64) -> (Double, Bool) { (DateFunctions.extractDouble(part, t), false) }
}
package struct TruncOp: RowOp1 {
    package let part: DateFunctions.Part
    @inline(__always) package func apply(_ t: Int64) -> (Int64, Bool) { (DateFunctions.trunc(part, t), false) }
}
/// TIMESTAMP → DATE (floor to the day).
package struct TimestampToDate: RowOp1 {
    @inline(__always) package func apply(_ t: Int64) -> (Int64, Bool) { (DateFunctions.floorDiv(t, DateTime.microsPerDay), false) }
}
/// DATE → TIMESTAMP (midnight), failing past the timestamp range.
package struct DateToTimestamp: RowOp1 {
    @inline(__always) package func apply(_ d: Int64) -> (Int64, Bool) { d.multipliedReportingOverflow(by: DateTime.microsPerDay) }
}
