import SlicehouseTypes
import SlicehousePlanner

/// Interval arithmetic on timestamps and CONVERT_TIMEZONE.
///
/// There is no INTERVAL column type: the binder turns `t ± INTERVAL '...'` into
/// `interval_add(t, months, micros)` with constant months and microseconds (days are
/// folded into the microseconds: without time zones a day is 24 hours), and
/// `t1 - t2` on timestamps into `interval_out(timestamp_mi(t1, t2))`, the difference
/// in microseconds shown as PostgreSQL shows an interval (`1 day 02:00:00`).
enum IntervalFunctions {
    static let intervalOutOfRange = SQLError(.datetimeOverflow, "interval out of range")

    /// interval_add(ts, months, micros): months first (the day clamped to the end of
    /// the month, like PostgreSQL and Redshift), then the microseconds.
    static func add(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 3 else { throw SQLError.internalError("interval_add takes 3 arguments") }
        let (tv, mv, dv) = (args[0], args[1], args[2])
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        guard mv.isConstant, dv.isConstant else {
            throw SQLError.internalError("interval_add needs a constant interval")
        }
        let months = try Kern.int64s(mv)[0], delta = try Kern.int64s(dv)[0]
        let t = try Kern.int64s(tv)
        let validity = Kern.rowValidity(tv)
        let out: [Int64]
        if months == 0 {
            out = try Kern.checked1(AddMicrosOp(delta: delta), t, validity) { _ in DateFunctions.timestampOutOfRange }
        } else {
            out = try Kern.checked1(AddIntervalOp(months: months, delta: delta), t, validity) { _ in
                DateFunctions.timestampOutOfRange
            }
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: tv.isConstant)
    }

    /// timestamp_mi(a, b): a - b in microseconds.
    static func difference(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("timestamp_mi takes 2 arguments") }
        let (a, b) = (args[0], args[1])
        if Kern.isConstNull(a) || Kern.isConstNull(b) { return Kern.constNull(resultType) }
        let x = try Kern.int64s(a), y = try Kern.int64s(b)
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let out = try Kern.checked2(IntSub(lo: Int64.min, hi: Int64.max), x, a.isConstant, y, b.isConstant, len, validity) { _, _ in
            intervalOutOfRange
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    /// interval_out(micros): the text PostgreSQL prints for `timestamp - timestamp`.
    static func text(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 1 else { throw SQLError.internalError("interval_out takes 1 argument") }
        let v = args[0]
        if Kern.isConstNull(v) { return Kern.constNull(resultType) }
        let m = try Kern.int64s(v)
        let len = v.isConstant ? 1 : n
        let validity = Kern.rowValidity(v)
        var out = StringBuilder(rows: len, bytes: len * 16)
        for i in 0..<len {
            if Kern.valid(validity, i) { appendInterval(m[i], to: &out) }
            out.finishRow()
        }
        return Kern.result(resultType, .string(out.array), validity: validity, constant: v.isConstant)
    }

    /// `[-]N day[s] [-]HH:MM:SS[.ffffff]` (days and time share the sign; PostgreSQL's
    /// `interval_justify_hours` form), written without creating a `String`.
    static func appendInterval(_ micros: Int64, to out: inout StringBuilder) {
        let days = micros / DateTime.microsPerDay
        let rest = micros % DateTime.microsPerDay
        if days != 0 {
            TextFormat.appendInt(days, to: &out)
            out.append(contentsOf: days == 1 ? [32, 100, 97, 121] : [32, 100, 97, 121, 115])   // " day" / " days"
            if rest == 0 { return }
            out.append(32)
        }
        if rest < 0 { out.append(45) }
        let mag = rest.magnitude
        let secs = mag / 1_000_000
        var frac = mag % 1_000_000
        TextFormat.appendDigits(secs / 3600, minWidth: 2, to: &out)
        out.append(58)
        TextFormat.appendDigits((secs / 60) % 60, minWidth: 2, to: &out)
        out.append(58)
        TextFormat.appendDigits(secs % 60, minWidth: 2, to: &out)
        if frac != 0 {
            var width = 6
            while frac % 10 == 0 { frac /= 10; width -= 1 }
            out.append(46)
            TextFormat.appendDigits(frac, minWidth: width, to: &out)
        }
    }

    /// interval_part(part, micros): DATE_PART / EXTRACT of `timestamp - timestamp`.
    /// The interval has days and a time (no months): `day` is the whole days, `hour`,
    /// `minute`, `second` the time's fields, `epoch` the total seconds.
    static func part(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("interval_part takes 2 arguments") }
        let (pv, mv) = (args[0], args[1])
        if Kern.isConstNull(pv) || Kern.isConstNull(mv) { return Kern.constNull(resultType) }
        guard pv.isConstant else { throw SQLError(.featureNotSupported, "the date part of an interval must be a constant") }
        let part = try DateFunctions.Part(Kern.strings(pv)[0])
        let m = try Kern.int64s(mv)
        let validity = Kern.rowValidity(mv)
        let day = DateTime.microsPerDay
        func value(_ x: Int64) throws -> Double {
            let rest = x % day
            switch part {
            case .epoch: return Double(x) / 1_000_000
            case .day: return Double(x / day)
            case .hour: return Double(rest / DateFunctions.microsPerHour)
            case .minute: return Double((rest / DateFunctions.microsPerMinute) % 60)
            case .second: return Double(rest % DateFunctions.microsPerMinute) / 1_000_000
            case .millisecond: return Double(rest % DateFunctions.microsPerMinute) / 1000
            case .microsecond: return Double(rest % DateFunctions.microsPerMinute)
            case .year, .month, .quarter, .decade, .century, .millennium: return 0
            default:
                throw SQLError(.invalidParameter, "interval units \"\(part.rawValue)\" not supported")
            }
        }
        if resultType.physical == .double {
            var out = [Double](repeating: 0, count: m.count)
            for i in 0..<m.count where Kern.valid(validity, i) { out[i] = try value(m[i]) }
            return Kern.result(resultType, .double(out), validity: validity, constant: mv.isConstant)
        }
        var out = [Int64](repeating: 0, count: m.count)
        for i in 0..<m.count where Kern.valid(validity, i) {
            let d = try value(m[i]).rounded(.towardZero)
            guard let r = resultType.integerRange, d >= Double(r.lowerBound), d <= Double(r.upperBound) else {
                throw SQLError.overflow(resultType)
            }
            out[i] = Int64(d)
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: mv.isConstant)
    }

    // MARK: - CONVERT_TIMEZONE

    static func zone(_ name: UnsafeBufferPointer<UInt8>) throws -> TimeZoneRule {
        let s = String(decoding: name, as: UTF8.self)
        guard let rule = TimeZoneRules.rule(named: s) else {
            throw SQLError(.invalidParameter, "time zone \"\(s)\" not recognized")
        }
        return rule
    }

    /// CONVERT_TIMEZONE([source,] target, ts): the wall-clock time in `target` of the
    /// instant that is `ts` in `source` (UTC when omitted).
    static func convertTimezone(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 || args.count == 3 else {
            throw SQLError.internalError("convert_timezone takes 2 or 3 arguments")
        }
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let tv = args[args.count - 1]
        let srcV: Vector? = args.count == 3 ? args[0] : nil
        let dstV = args[args.count - 2]
        let t = try Kern.int64s(tv)
        let len = Kern.length(args[0], args[args.count - 1], args[args.count - 2], n: n)
        let constant = args.allSatisfy { $0.isConstant }
        let validity = constant ? nil : Kern.combinedValidity(args)
        let utc = TimeZoneRules.rule(named: "UTC")
        let srcIn = try srcV.map { try StringInput($0) }
        let dstIn = try StringInput(dstV)

        // Constant zones: resolved once (the binder already resolved and cached them).
        if srcV?.isConstant ?? true, dstV.isConstant {
            let src = try srcIn.map { try StringKernels.with($0, 0, zone) } ?? utc
            let dst = try StringKernels.with(dstIn, 0, zone)
            guard let src else { throw SQLError.internalError("UTC is not a time zone") }
            let out: [Int64]
            if let so = src.fixedOffset, let dso = dst.fixedOffset {
                let (delta, o) = dso.subtractingReportingOverflow(so)
                if o { throw DateFunctions.timestampOutOfRange }
                out = try Kern.checked1(AddMicrosOp(delta: delta), t, validity) { _ in DateFunctions.timestampOutOfRange }
            } else {
                out = Kern.map1(t) { dst.fromUTC(src.toUTC(local: $0)) }
            }
            return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
        }
        // Zones given per row (cold path): resolve each distinct name once in a row.
        var out = [Int64](repeating: 0, count: len)
        var lastSrc: (Range<Int>, TimeZoneRule)? = nil, lastDst: (Range<Int>, TimeZoneRule)? = nil
        for i in 0..<len where Kern.valid(validity, i) {
            var src: TimeZoneRule
            if let srcIn {
                let r = srcIn.range(i)
                if let c = lastSrc, rangesEqual(srcIn, c.0, r) { src = c.1 } else {
                    src = try StringKernels.with(srcIn, i, zone)
                    lastSrc = (r, src)
                }
            } else {
                guard let u = utc else { throw SQLError.internalError("UTC is not a time zone") }
                src = u
            }
            let r = dstIn.range(i)
            let dst: TimeZoneRule
            if let c = lastDst, rangesEqual(dstIn, c.0, r) { dst = c.1 } else {
                dst = try StringKernels.with(dstIn, i, zone)
                lastDst = (r, dst)
            }
            out[i] = dst.fromUTC(src.toUTC(local: t[tv.isConstant ? 0 : i]))
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    /// Whether two byte ranges of one string input hold the same bytes.
    private static func rangesEqual(_ s: StringInput, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        if a == b { return true }
        guard a.count == b.count else { return false }
        return s.array.bytes.withUnsafeBufferPointer { p in p[a].elementsEqual(p[b]) }
    }
}

/// `t + delta` microseconds, failing on overflow.
struct AddMicrosOp: RowOp1 {
    let delta: Int64
    @inline(__always) func apply(_ t: Int64) -> (Int64, Bool) { t.addingReportingOverflow(delta) }
}

/// `t + months + delta` microseconds (month arithmetic clamps to the month's end).
struct AddIntervalOp: RowOp1 {
    let months: Int64, delta: Int64
    @inline(__always) func apply(_ t: Int64) -> (Int64, Bool) {
        DateTime.addInterval(t, months: months, deltaMicros: delta)
    }
}
