// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Date and time functions. Timestamps arrive as TIMESTAMP (dates are cast, except where a
/// kernel reads a DATE as midnight itself); a date part is the first argument, a constant
/// the binder has made canonical (`DateParts`), or a column read per row.
public struct DateTimeFamily: FunctionFamily {
    /// EXTRACT(field FROM ts) → INTEGER (BIGINT for epoch).
    public let extract = ScalarFunction("extract", arguments: 2...2, columnName: "date_part", resolve: { c in
        try partResolve(c, extract: true)
    }, kernel: { a, t, n in try DateFunctions.datePart(a, resultType: t, n: n) })
    /// DATE_PART(field, ts) → DOUBLE PRECISION.
    public let datePart = ScalarFunction("date_part", aliases: ["datepart", "pgdate_part"], arguments: 2...2, resolve: { c in
        try partResolve(c, extract: false)
    }, kernel: { a, t, n in try DateFunctions.datePart(a, resultType: t, n: n) })
    public let dateTrunc = ScalarFunction("date_trunc", arguments: 2...2, resolve: { c in
        FunctionResolution([.text, c[1] == .date ? .date : try c.timestamp(c[1])], .timestamp, constants: try c.datePart(0))
    }, kernel: { a, t, n in try DateFunctions.dateTrunc(a, resultType: t, n: n) })
    /// DATEADD(part, n, x) → TIMESTAMP, or TIME / TIMETZ for a TIME / TIMETZ (wrapping
    /// around midnight; hours and smaller parts only).
    public let dateAdd = ScalarFunction("dateadd", aliases: ["date_add"], arguments: 3...3, columnName: "date_add", resolve: { c in
        if c[2] == .time || c[2] == .timetz {
            return FunctionResolution([.text, .bigint, c[2]], c[2], constants: try c.datePart(0))
        }
        return FunctionResolution([.text, .bigint, try c.timestamp(c[2])], .timestamp, constants: try c.datePart(0))
    }, kernel: { a, t, n in try DateFunctions.dateAdd(a, resultType: t, n: n) })
    /// DATEDIFF(part, a, b) → BIGINT: the part's boundaries crossed from a to b, of two
    /// timestamps (or dates) or of two TIMEs / TIMETZs.
    public let dateDiff = ScalarFunction("datediff", aliases: ["date_diff"], arguments: 3...3, columnName: "date_diff", resolve: { c in
        let times: [DataType] = [.time, .timetz]
        if times.contains(c[1]) || times.contains(c[2]) {
            // Both times (a string literal is read as the other's type); TIMETZ wins over TIME.
            let t: DataType = c[1] == .timetz || c[2] == .timetz ? .timetz : .time
            for x in [c[1], c[2]] where !(times.contains(x) || x == .unknown || x.isString) { throw c.noSuch() }
            return FunctionResolution([.text, t, t], .bigint, constants: try c.datePart(0))
        }
        return FunctionResolution([.text, try c.timestamp(c[1]), try c.timestamp(c[2])], .bigint, constants: try c.datePart(0))
    }, kernel: { a, t, n in try DateFunctions.dateDiff(a, resultType: t, n: n) })
    public let addMonths = ScalarFunction("add_months", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.timestamp(c[0]), .integer], .timestamp)
    }, kernel: { a, t, n in try DateFunctions.addMonthsKernel(a, resultType: t, n: n) })
    /// MONTHS_BETWEEN(a, b) → DOUBLE PRECISION.
    public let monthsBetween = ScalarFunction("months_between", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.date(c[0]), try c.date(c[1])], .double)
    }, kernel: { a, t, n in try DateFunctions.monthsBetween(a, resultType: t, n: n) })
    public let lastDay = ScalarFunction("last_day", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.date(c[0])], .date)
    }, kernel: { a, t, _ in try DateFunctions.lastDay(a[0], resultType: t) })

    // The clock: one instant per statement (the binder folds each call to it).
    public let currentDate = ScalarFunction("current_date", arguments: 0...0, volatility: .statementTime,
                                            resolve: { _ in FunctionResolution([], .date) },
                                            kernel: { _, t, _ in DateFunctions.clock(.currentDate, resultType: t) })
    /// GETDATE() in whole seconds.
    public let getdate = ScalarFunction("getdate", aliases: ["now", "current_timestamp"], arguments: 0...0,
                                        volatility: .statementTime, resolve: { _ in FunctionResolution([], .timestamp) },
                                        kernel: { _, t, _ in DateFunctions.clock(.getdate, resultType: t) })
    /// SYSDATE in microseconds.
    public let sysdate = ScalarFunction("sysdate", arguments: 0...0, volatility: .statementTime,
                                        resolve: { _ in FunctionResolution([], .timestamp) },
                                        kernel: { _, t, _ in DateFunctions.clock(.sysdate, resultType: t) })

    /// NEXT_DAY(date, 'weekday') → DATE.
    public let nextDay = ScalarFunction("next_day", arguments: 2...2, resolve: { c in
        let d: DataType = c[0] == .timestamp ? .timestamp : try c.date(c[0])
        return FunctionResolution([d, try c.string(c[1])], .date)
    }, kernel: { a, t, n in try ExtendedFunctions.nextDay(a, resultType: t, n: n) })
    /// DATE_CMP(a, b) → INTEGER -1/0/1 (also DATE_CMP_TIMESTAMP, TIMESTAMP_CMP, ...).
    public let dateCmp = ScalarFunction("date_cmp", aliases: ["date_cmp_timestamp", "timestamp_cmp", "timestamp_cmp_date"],
                                        arguments: 2...2, resolve: { c in
        if c[0] == .timestamp || c[1] == .timestamp || c.name != "date_cmp" {
            return FunctionResolution([try c.timestamp(c[0]), try c.timestamp(c[1])], .integer)
        }
        return FunctionResolution([try c.date(c[0]), try c.date(c[1])], .integer)
    }, kernel: { a, t, n in try ExtendedFunctions.dateCmp(a, resultType: t, n: n) })
    /// CONVERT_TIMEZONE([source,] target, ts) → TIMESTAMP; constant zone names are
    /// checked (and their rules cached) now.
    public let convertTimezone = ScalarFunction("convert_timezone", arguments: 2...3, resolve: { c in
        var targets: [DataType] = []
        for i in 0..<(c.count - 1) {
            targets.append(try c.string(c[i]))
            if let v = c.constant(i), case .string(let z) = v, TimeZoneRules.rule(named: z) == nil {
                throw SQLError(.invalidParameter, "time zone \"\(z)\" not recognized")
            }
        }
        targets.append(try c.timestamp(c[c.count - 1]))
        return FunctionResolution(targets, .timestamp)
    }, kernel: { a, t, n in try IntervalFunctions.convertTimezone(a, resultType: t, n: n) })
}

/// DATE_PART and EXTRACT: a DATE is read as midnight without a cast; an INTERVAL's (or a
/// TIME's, as the interval since midnight) fields are `interval_part`'s.
private func partResolve(_ c: ScalarCall, extract: Bool) throws -> FunctionResolution {
    let constants = try c.datePart(0)
    let isEpoch: Bool = {
        if case .string(let s)? = constants[0] { return s == "epoch" }
        return false
    }()
    if [.interval, .time, .timetz].contains(c[1]) {
        return FunctionResolution([.text, .interval], extract ? (isEpoch ? .bigint : .integer) : .double,
                                  function: Builtins.intervals.intervalPart, constants: constants)
    }
    let src: DataType = c[1] == .date ? .date : try c.timestamp(c[1])
    return FunctionResolution([.text, src], extract ? (isEpoch ? .bigint : .integer) : .double, constants: constants)
}
