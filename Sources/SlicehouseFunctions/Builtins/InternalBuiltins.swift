// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// INTERVAL arithmetic: functions the binder builds for `±`, `*`, `/`, EXTRACT and
/// comparisons of intervals, and casts in the session's time zone (not callable from SQL).
public struct IntervalFamily: FunctionFamily {
    /// interval_add(ts, months, micros) → TIMESTAMP: `ts ± INTERVAL '...'` with constant
    /// months and microseconds.
    public let intervalAdd = ScalarFunction("interval_add", internal: true, arguments: 3...3,
                                            kernel: { a, t, n in try IntervalFunctions.add(a, resultType: t, n: n) })
    /// timestamp_mi(a, b) → BIGINT: a - b in microseconds.
    public let timestampDiff = ScalarFunction("timestamp_mi", internal: true, arguments: 2...2,
                                              kernel: { a, t, n in try IntervalFunctions.difference(a, resultType: t, n: n) })
    /// interval_from_micros(micros) → INTERVAL: `timestamp - timestamp` (whole days, then
    /// the rest, as PostgreSQL's `interval_justify_hours` leaves it).
    public let intervalFromMicros = ScalarFunction("interval_from_micros", internal: true, arguments: 1...1,
                                                   kernel: interval(.intervalFromMicros))
    /// interval_part(part, interval) → DATE_PART/EXTRACT of an INTERVAL (or a TIME).
    public let intervalPart = ScalarFunction("interval_part", internal: true, arguments: 2...2, kernel: interval(.intervalPart))
    /// timestamp_pl_interval(ts, interval, sign) → TIMESTAMP or TIMESTAMPTZ: `ts ± i` for an
    /// interval that is not a constant (sign 1 or -1).
    public let timestampPlusInterval = ScalarFunction("timestamp_pl_interval", internal: true, arguments: 3...3,
                                                      kernel: interval(.timestampPlusInterval))
    /// time_pl_interval(time, interval, sign) → TIME (wrapping around midnight).
    public let timePlusInterval = ScalarFunction("time_pl_interval", internal: true, arguments: 3...3,
                                                 kernel: interval(.timePlusInterval))
    /// interval_pl(a, b, sign) → INTERVAL: `a ± b` field by field.
    public let intervalPlus = ScalarFunction("interval_pl", internal: true, arguments: 3...3, kernel: interval(.intervalPlus))
    /// interval_mul(interval, factor) → INTERVAL (fractions of months and days cascade down).
    public let intervalMultiply = ScalarFunction("interval_mul", internal: true, arguments: 2...2,
                                                 kernel: interval(.intervalMultiply))
    /// interval_div(interval, divisor) → INTERVAL.
    public let intervalDivide = ScalarFunction("interval_div", internal: true, arguments: 2...2, kernel: interval(.intervalDivide))
    /// interval_length(interval) → BIGINT: the comparable length in microseconds.
    public let intervalLength = ScalarFunction("interval_length", internal: true, arguments: 1...1,
                                               kernel: interval(.intervalLength))
    /// cast_in_zone(x, zone) → the call's type: a cast that reads or shows local time in the
    /// session's time zone (TIMESTAMPTZ to and from TIMESTAMP, DATE, TIME, text).
    public let castInZone = ScalarFunction("cast_in_zone", internal: true, arguments: 2...2, kernel: { a, t, _ in
        let zone = a[1].value(at: 0).asString.flatMap { TimeZoneRules.rule(named: $0) }
        return try ExtendedCasts.cast(a[0], to: t, assignment: false, zone: zone)
    })
    /// cast_day_first(text, zone) → DATE, TIMESTAMP or TIMESTAMPTZ: text read with the day
    /// before the month (`01-02-2008` is 1 February), as under DATESTYLE DMY; a
    /// TIMESTAMPTZ without an offset is local time in `zone`.
    public let castDayFirst = ScalarFunction("cast_day_first", internal: true, arguments: 2...2, kernel: { a, t, n in
        let zone = a[1].value(at: 0).asString.flatMap { TimeZoneRules.rule(named: $0) }
        let v = a[0]
        var out = Vector(type: t, capacity: n)
        for i in 0..<(v.isConstant ? 1 : n) {
            guard let text = v.value(at: i).asString else { out.appendNull(); continue }
            var s = text
            let parsed: Int64? = s.withUTF8 { b in
                switch t {
                case .date:
                    return DateTime.withoutZone(b, { DateTime.parseDateOfTimestamp($0, dayFirst: true) })
                        ?? DateTime.parseDateOfTimestamp(b, dayFirst: true)
                case .timestamp:
                    return DateTime.parseTimestamp(b, dayFirst: true)
                        ?? DateTime.withoutZone(b, { DateTime.parseTimestamp($0, dayFirst: true) })
                default:
                    let (local, offset) = DateTime.splitOffset(b)
                    guard let ts = DateTime.parseTimestamp(local, dayFirst: true) else { return nil }
                    if let offset { return ts &- offset }
                    return zone?.toUTC(local: ts) ?? ts
                }
            }
            guard let parsed else { throw ExtendedCasts.invalid(t, text) }
            out.append(.int(parsed))
        }
        out.isConstant = v.isConstant
        return out
    })
}

private func interval(_ op: IntervalFunctions.Op) -> ScalarFunction.Kernel {
    { a, t, n in try IntervalFunctions.evaluate(op, a, resultType: t, n: n) }
}

/// Functions the planner builds for itself (not callable from SQL).
public struct InternalFamily: FunctionFamily {
    /// array_text_contains(x, a) → BOOLEAN: `x = ANY(a)` over an array in PostgreSQL's
    /// text form (`{1,2,"a b"}`, as the catalog's `grolist` and ACL columns hold them).
    public let arrayTextContains = ScalarFunction("array_text_contains", internal: true, arguments: 2...2, kernel: { a, t, n in
        try StringKernels.arrayTextContains(a[0], a[1], resultType: t, n: n)
    })
    /// ?significant?(s) → s without its trailing blanks: what a VARCHAR comparison, grouping
    /// or join key on the compute nodes reads (`Optimizer.trailingBlanksInsignificant`).
    /// EXPLAIN shows its argument alone.
    public let withoutTrailingBlanks = ScalarFunction("?significant?", internal: true, arguments: 1...1, kernel: { a, _, n in
        try StringKernels.withoutTrailingBlanks(a[0], n: n)
    })
    /// ?array?(e1, e2, ...) → an array's text form (`{1,2,NULL}`): `ARRAY[e1, e2, ...]`
    /// with its elements already cast to text (the binder's `?array?`).
    public let arrayConstruct = ScalarFunction("?array_construct?", internal: true, arguments: 0...Int.max, kernel: { a, t, n in
        try StringKernels.arrayConstruct(a, resultType: t, n: n)
    })
    /// ?array_text_element?(a, i) → VARCHAR: `a[i]` over an array in PostgreSQL's text
    /// form, the element from 1 without its quotes; NULL past either end.
    public let arrayTextElement = ScalarFunction("?array_text_element?", internal: true, arguments: 2...2, kernel: { a, t, n in
        try StringKernels.arrayElement(a[0], a[1], resultType: t, n: n)
    })
    /// ?array_text_to_super?(a) → SUPER: an array in PostgreSQL's text form as a SUPER
    /// array of its elements' texts (`unnest(a)` in FROM iterates over it).
    public let arrayTextToSuper = ScalarFunction("?array_text_to_super?", internal: true, arguments: 1...1, kernel: { a, t, n in
        try StringKernels.arrayTextToSuper(a[0], resultType: t, n: n)
    })
    /// ?expand_array?(a) → SUPER: an array's elements with their positions, as
    /// `information_schema._pg_expandarray` returns them (`[{"x":1,"n":1},{"x":3,"n":2}]`);
    /// `a` is an array's text form (`{1,3}`) or an int2vector's (`1 3`).
    public let expandArray = ScalarFunction("?expand_array?", internal: true, arguments: 1...1, kernel: { a, t, n in
        try StringKernels.expandArray(a[0], resultType: t, n: n)
    })
    /// ?aclcontains?(acl, item) → BOOLEAN: PostgreSQL's `aclcontains` over the aclitem
    /// texts (the binder's `aclcontains`).
    public let aclContains = ScalarFunction("?aclcontains?", internal: true, arguments: 2...2, kernel: { a, t, n in
        try ACLKernels.aclContains(a, resultType: t, n: n)
    })
    /// ?makeaclitem?(user id, group id, grantor id, privileges, grant option, user name,
    /// group name, grantor name) → the aclitem's text (the binder's `makeaclitem`).
    public let makeACLItem = ScalarFunction("?makeaclitem?", internal: true, arguments: 8...8, kernel: { a, t, n in
        try ACLKernels.makeACLItem(a, resultType: t, n: n)
    })
    /// ?series_array?(start, stop [, step]) → SUPER: the integers from `start` to `stop` by
    /// `step` as an array, per row: `generate_series` in a select list over catalog rows
    /// (each row once per value, through the unnest operator). NULL for a NULL argument.
    public let seriesArray = ScalarFunction("?series_array?", internal: true, arguments: 2...3, kernel: { a, t, n in
        var out = Vector(type: t, capacity: n)
        var text: [UInt8] = []
        for i in 0..<n {
            var args: [Int64] = []
            for v in a {
                guard case .int(let x) = v.value(at: v.isConstant ? 0 : i) else { break }
                args.append(x)
            }
            guard args.count == a.count else { out.appendNull(); continue }
            let start = args[0], stop = args[1], step = args.count == 3 ? args[2] : 1
            guard step != 0 else { throw SQLError(.invalidParameter, "step size cannot equal zero") }
            text.removeAll(keepingCapacity: true)
            text.append(UInt8(ascii: "["))
            var v = start, count = 0
            while step > 0 ? v <= stop : v >= stop {
                count += 1
                guard count <= InternalFamily.seriesMaxValues else {
                    throw SQLError(.invalidParameter, "generate_series makes at most \(InternalFamily.seriesMaxValues) rows")
                }
                if count > 1 { text.append(UInt8(ascii: ",")) }
                text.append(contentsOf: String(v).utf8)
                let (next, overflow) = v.addingReportingOverflow(step)
                if overflow { break }
                v = next
            }
            text.append(UInt8(ascii: "]"))
            out.append(.string(String(decoding: text, as: UTF8.self)))
        }
        return out
    })
    /// The most values one row's generate_series makes.
    public static let seriesMaxValues = 1_000_000
    /// ?unrecognized_privilege?(p) → BOOLEAN: `has_table_privilege` / `has_schema_privilege`
    /// with the privilege from a column, for a value that is no privilege word: PostgreSQL's
    /// error; NULL for NULL.
    public let unrecognizedPrivilege = ScalarFunction("?unrecognized_privilege?", internal: true, arguments: 1...1,
                                                      kernel: { a, t, n in
        var out = Vector(type: t, capacity: n)
        for i in 0..<n {
            let v = a[0].value(at: a[0].isConstant ? 0 : i)
            if v.isNull { out.appendNull(); continue }
            throw SQLError(.invalidParameter, "unrecognized privilege type: \"\(v.asString ?? "")\"")
        }
        return out
    })
    /// A cast with assignment (INSERT/UPDATE) rules: a string longer than the target is an
    /// error instead of being truncated.
    public let assignmentCast = ScalarFunction("assignment_cast", internal: true, arguments: 1...1, kernel: { a, t, _ in
        try CastKernels.cast(a[0], to: t, assignment: true)
    })
    /// TRUE for a row count of at most one, else the statement fails with Redshift's `more
    /// than one row returned by a subquery used as an expression` (a correlated scalar
    /// subquery's check).
    public let singleRowCheck = ScalarFunction("?single_row_check?", internal: true, arguments: 1...1, kernel: { a, _, n in
        let counts = a[0]
        for i in 0..<(counts.isConstant ? min(n, 1) : n) where !counts.isNull(i) {
            if case .int(let c) = counts.value(at: i), c > 1 {
                throw SQLError(.cardinality, "more than one row returned by a subquery used as an expression")
            }
        }
        return Vector.constant(.bool(true), type: .boolean)
    })
    /// AVG from a merged sum and count (`RollupPartials`), rounded as AVG's accumulator
    /// rounds: truncated to BIGINT for integer arguments, half away from zero at the
    /// argument's scale for DECIMAL, plain division for floating point; NULL for a count of
    /// 0. Runs once per group of a grouping-sets query, not per input row.
    public let avgMerge = ScalarFunction("?avg_merge?", internal: true, arguments: 2...2, kernel: { a, t, n in
        let sum = a[0], count = a[1]
        var out = Vector(type: t, capacity: n)
        for i in 0..<n {
            let s = sum.value(at: sum.isConstant ? 0 : i)
            let cv = count.value(at: count.isConstant ? 0 : i)
            guard let c = cv.asInt64, c > 0, !s.isNull else { out.appendNull(); continue }
            if t.isFloat {
                out.append(.double((s.asDouble ?? 0) / Double(c)))
                continue
            }
            guard let v = s.asInt128 else { out.appendNull(); continue }
            let c128 = Int128(c)
            if case .decimal = t {
                var q = v / c128
                let r = v % c128
                if r.magnitude * 2 >= c128.magnitude { q += v < 0 ? -1 : 1 }
                out.append(.int128(q))
            } else {
                out.append(.int(Int64(truncatingIfNeeded: v / c128)))
            }
        }
        return out
    })
}
