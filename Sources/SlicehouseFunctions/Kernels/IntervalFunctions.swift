// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// INTERVAL arithmetic and CONVERT_TIMEZONE.
///
/// INTERVAL values are packed Int128s (`IntervalValue.packed`). The common case, `t ±
/// INTERVAL '...'` with a constant interval, is `interval_add(t, months, micros)` with
/// constant months and microseconds (days are folded into the microseconds: without
/// time zones a day is 24 hours); any other interval goes through
/// `timestamp_pl_interval`. `t1 - t2` on timestamps is
/// `interval_from_micros(timestamp_mi(t1, t2))`.
package enum IntervalFunctions {
    package static let intervalOutOfRange = SQLError(.datetimeOverflow, "interval out of range")

    /// interval_add(ts, months, micros): months first (the day clamped to the end of
    /// the month, like PostgreSQL and Redshift), then the microseconds.
    package static func add(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
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
    package static func difference(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
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

    /// The functions of `evaluate` (the declarations in Builtins/Intervals.swift choose one).
    package enum Op: String, Sendable {
        case intervalFromMicros, intervalPart, timestampPlusInterval, timePlusInterval, intervalPlus
        case intervalLength, intervalMultiply, intervalDivide
    }

    package static func evaluate(_ fn: Op, _ args: [Vector], resultType t: DataType, n: Int) throws -> Vector {
        switch fn {
        case .intervalFromMicros:
            return try mapWide(args, n: n, resultType: t) { i in
                let m = try Kern.int64s(args[0])[args[0].isConstant ? 0 : i]
                guard let p = IntervalValue(differenceMicros: m).packed else { throw intervalOutOfRange }
                return p
            }
        case .intervalPart:
            return try part(args, resultType: t, n: n)
        case .timestampPlusInterval, .timePlusInterval:
            let ts = try Kern.int64s(args[0]), iv = try Kern.wideInts(args[1]), sign = try Kern.int64s(args[2])[0]
            return try StringKernels.mapRowsInt(args, n: n, resultType: t) { i in
                var v = IntervalValue(packed: iv[args[1].isConstant ? 0 : i])
                if sign < 0 { v = v.negated }
                let base = ts[args[0].isConstant ? 0 : i]
                if fn == .timePlusInterval {
                    return DateTime.floorMod(base &+ v.micros % DateTime.microsPerDay, DateTime.microsPerDay)
                }
                let (dayMicros, o1) = v.days.multipliedReportingOverflow(by: DateTime.microsPerDay)
                let (delta, o2) = dayMicros.addingReportingOverflow(v.micros)
                let (r, o3) = DateTime.addInterval(base, months: v.months, deltaMicros: delta)
                if o1 || o2 || o3 { throw DateFunctions.timestampOutOfRange }
                return r
            }
        case .intervalPlus:
            let a = try Kern.wideInts(args[0]), b = try Kern.wideInts(args[1]), sign = try Kern.int64s(args[2])[0]
            return try mapWide(args, n: n, resultType: t) { i in
                let x = IntervalValue(packed: a[args[0].isConstant ? 0 : i])
                var y = IntervalValue(packed: b[args[1].isConstant ? 0 : i])
                if sign < 0 { y = y.negated }
                let (m, o1) = x.months.addingReportingOverflow(y.months)
                let (d, o2) = x.days.addingReportingOverflow(y.days)
                let (u, o3) = x.micros.addingReportingOverflow(y.micros)
                guard !o1, !o2, !o3, let p = IntervalValue(months: m, days: d, micros: u).packed else { throw intervalOutOfRange }
                return p
            }
        case .intervalLength:
            let a = try Kern.wideInts(args[0])
            return try StringKernels.mapRowsInt(args, n: n, resultType: t) { i in Int64(truncatingIfNeeded: a[args[0].isConstant ? 0 : i] >> 64) }
        case .intervalMultiply, .intervalDivide:
            let a = try Kern.wideInts(args[0]), f = try Kern.doubles(args[1])
            return try mapWide(args, n: n, resultType: t) { i in
                var factor = f[args[1].isConstant ? 0 : i]
                if fn == .intervalDivide {
                    guard factor != 0 else { throw SQLError(.divisionByZero, "division by zero") }
                    factor = 1 / factor
                }
                guard let p = scaled(IntervalValue(packed: a[args[0].isConstant ? 0 : i]), factor).packed else {
                    throw intervalOutOfRange
                }
                return p
            }
        }
    }

    /// `iv * factor` as PostgreSQL's interval_mul computes it: a fraction of a month
    /// becomes days (30 a month), a fraction of a day becomes time.
    package static func scaled(_ iv: IntervalValue, _ factor: Double) -> IntervalValue {
        let months = Double(iv.months) * factor
        let wholeMonths = months.rounded(.towardZero)
        let days = Double(iv.days) * factor + (months - wholeMonths) * 30
        let wholeDays = days.rounded(.towardZero)
        let micros = Double(iv.micros) * factor + (days - wholeDays) * Double(DateTime.microsPerDay)
        guard wholeMonths.magnitude < 9e18, wholeDays.magnitude < 9e18, micros.magnitude < 9e18 else {
            return IntervalValue(months: Int64.max, days: 0, micros: 0)
        }
        return IntervalValue(months: Int64(wholeMonths), days: Int64(wholeDays), micros: Int64(micros.rounded()))
    }

    /// Rows of an INTERVAL result (NULL where any argument is NULL).
    package static func mapWide(_ args: [Vector], n: Int, resultType: DataType, _ body: (Int) throws -> Int128) throws -> Vector {
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(args)
        var out = [Int128](filled: 0, count: len)
        for i in 0..<len where Kern.valid(validity, i) { out[i] = try body(i) }
        return Kern.result(resultType, .int128(out), validity: validity, constant: constant)
    }

    /// interval_part(part, interval): DATE_PART / EXTRACT of an INTERVAL as PostgreSQL
    /// reads it: years and months from the months, `day` from the days, hours and
    /// smaller from the time (not normalised: `interval '36 hours'` has 36 hours);
    /// `epoch` counts a year as 365.25 days and a month as 30.
    package static func part(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count == 2 else { throw SQLError.internalError("interval_part takes 2 arguments") }
        let (pv, mv) = (args[0], args[1])
        if Kern.isConstNull(pv) || Kern.isConstNull(mv) { return Kern.constNull(resultType) }
        guard pv.isConstant else { throw SQLError(.featureNotSupported, "the date part of an interval must be a constant") }
        let part = try DateFunctions.Part(Kern.strings(pv)[0])
        let m = try Kern.wideInts(mv)
        let validity = Kern.rowValidity(mv)
        func value(_ x: Int128) throws -> Double {
            let v = IntervalValue(packed: x)
            switch part {
            case .millennium: return Double(v.months / 12 / 1000)
            case .century: return Double(v.months / 12 / 100)
            case .decade: return Double(v.months / 12 / 10)
            case .year: return Double(v.months / 12)
            case .quarter: return Double((v.months % 12) / 3 + 1)
            case .month: return Double(v.months % 12)
            case .day: return Double(v.days)
            case .hour: return Double(v.micros / DateFunctions.microsPerHour)
            case .minute: return Double((v.micros / DateFunctions.microsPerMinute) % 60)
            case .second: return Double(v.micros % DateFunctions.microsPerMinute) / 1_000_000
            case .millisecond: return Double(v.micros % DateFunctions.microsPerMinute) / 1000
            case .microsecond: return Double(v.micros % DateFunctions.microsPerMinute)
            case .epoch:
                let years = Double(v.months / 12), months = Double(v.months % 12)
                return years * 365.25 * 86_400 + months * 30 * 86_400 + Double(v.days) * 86_400 + Double(v.micros) / 1_000_000
            default:
                throw SQLError(.invalidParameter, "interval units \"\(part.rawValue)\" not supported")
            }
        }
        if resultType.physical == .double {
            var out = [Double](filled: 0, count: m.count)
            for i in 0..<m.count where Kern.valid(validity, i) { out[i] = try value(m[i]) }
            return Kern.result(resultType, .double(out), validity: validity, constant: mv.isConstant)
        }
        var out = [Int64](filled: 0, count: m.count)
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

    package static func zone(_ name: UnsafeBufferPointer<UInt8>) throws -> TimeZoneRule {
        let s = String(decoding: name, as: UTF8.self)
        guard let rule = TimeZoneRules.rule(named: s) else {
            throw SQLError(.invalidParameter, "time zone \"\(s)\" not recognized")
        }
        return rule
    }

    /// CONVERT_TIMEZONE([source,] target, ts): the wall-clock time in `target` of the
    /// instant that is `ts` in `source` (UTC when omitted).
    package static func convertTimezone(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
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
        var out = [Int64](filled: 0, count: len)
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
package struct AddMicrosOp: RowOp1 {
    package let delta: Int64
    @inline(__always) package func apply(_ t: Int64) -> (Int64, Bool) { t.addingReportingOverflow(delta) }
}

/// `t + months + delta` microseconds (month arithmetic clamps to the month's end).
package struct AddIntervalOp: RowOp1 {
    package let months: Int64, delta: Int64
    @inline(__always) package func apply(_ t: Int64) -> (Int64, Bool) {
        DateTime.addInterval(t, months: months, deltaMicros: delta)
    }
}
