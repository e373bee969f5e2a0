// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

/// Interval arithmetic kernels (`interval_add`, `timestamp_mi`, `interval_out`,
/// `interval_part`), CONVERT_TIMEZONE, and the interval parser and time zone rules
/// they rest on.
final class IntervalTimezoneTests: XCTestCase {

    func interval(_ text: String, _ qualifier: String? = nil) -> IntervalValue? {
        DateTime.parseInterval(text, qualifier: qualifier)
    }

    func testParseInterval() {
        let hour: Int64 = 3_600_000_000
        XCTAssertEqual(interval("3 days"), IntervalValue(days: 3))
        XCTAssertEqual(interval("7 days, 3 hours, 59 minutes"), IntervalValue(days: 7, micros: 3 * hour + 59 * 60_000_000))
        XCTAssertEqual(interval("1w 1h 1m 1s"), IntervalValue(days: 7, micros: hour + 61_000_000))
        XCTAssertEqual(interval("1 year 2 mons"), IntervalValue(months: 14))
        XCTAssertEqual(interval("0.5 days"), IntervalValue(micros: 12 * hour))
        XCTAssertEqual(interval("1.5 months"), IntervalValue(months: 1, days: 15))
        XCTAssertEqual(interval("-2 hours"), IntervalValue(micros: -2 * hour))
        XCTAssertEqual(interval("1 day ago"), IntervalValue(days: -1))
        XCTAssertEqual(interval("1 day 02:30:00"), IntervalValue(days: 1, micros: 2 * hour + 30 * 60_000_000))
        XCTAssertEqual(interval("-01:00"), IntervalValue(micros: -hour))
        XCTAssertEqual(interval("90"), IntervalValue(micros: 90_000_000))
        XCTAssertEqual(interval("3", "month"), IntervalValue(months: 3))
        XCTAssertEqual(interval("1-2", "year to month"), IntervalValue(months: 14))
        XCTAssertEqual(interval("1 day 5 hours", "day"), IntervalValue(days: 1))
        for bad in ["", "abc", "3 parsecs", "1 day day", "nan days", "1e400 days", "25:99", "ago"] {
            XCTAssertNil(interval(bad), bad)
        }
    }

    func testFormatInterval() {
        let hour: Int64 = 3_600_000_000
        XCTAssertEqual(DateTime.formatInterval(IntervalValue(days: 364)), "364 days")
        XCTAssertEqual(DateTime.formatInterval(IntervalValue(micros: 12 * hour)), "12:00:00")
        XCTAssertEqual(DateTime.formatInterval(IntervalValue(days: -1, micros: 2 * hour)), "-1 days +02:00:00")
        XCTAssertEqual(DateTime.formatInterval(IntervalValue(months: 14, days: 1)), "1 year 2 mons 1 day")
        XCTAssertEqual(DateTime.formatInterval(IntervalValue()), "00:00:00")
        XCTAssertEqual(DateTime.formatInterval(IntervalValue(micros: 500_000)), "00:00:00.5")
        XCTAssertEqual(DateTime.formatMicrosInterval(-(26 * hour)), "-1 days -02:00:00")
    }

    /// The kernel behind `t + INTERVAL '1 month 1 day'` on a column: NULLs stay NULL,
    /// month arithmetic clamps, the result is a flat vector.
    func testIntervalAddKernel() throws {
        let t = ints([DateTime.parseTimestamp("2024-01-31 10:00:00"), nil, DateTime.parseTimestamp("2023-12-31 00:00:00")], .timestamp)
        let e = BoundExpr.function(Builtins.intervals.intervalAdd, [E.col(0, .timestamp), E.int(1, .bigint), E.int(DateTime.microsPerDay, .bigint)],
                                   .timestamp)
        XCTAssertEqual(try evalRows(e, chunk(t)), ["2024-03-01 10:00:00", nil, "2024-02-01 00:00:00"])
        let minus = BoundExpr.function(Builtins.intervals.intervalAdd, [E.col(0, .timestamp), E.int(0, .bigint), E.int(-3_600_000_000, .bigint)],
                                       .timestamp)
        XCTAssertEqual(try evalRows(minus, chunk(t)), ["2024-01-31 09:00:00", nil, "2023-12-30 23:00:00"])
        let overflow = BoundExpr.function(Builtins.intervals.intervalAdd, [E.col(0, .timestamp), E.int(0, .bigint), E.int(Int64.max, .bigint)],
                                          .timestamp)
        assertError(overflow, "timestamp out of range", in: chunk(t))
    }

    func testTimestampDifferenceInterval() throws {
        let a = ints([DateTime.parseTimestamp("2024-01-02 03:00:00"), nil, DateTime.parseTimestamp("2024-01-01 00:00:00")], .timestamp)
        let b = E.ts("2024-01-01 01:00:00")
        let diff = BoundExpr.function(Builtins.intervals.timestampDiff, [E.col(0, .timestamp), b], .bigint)
        let interval = BoundExpr.function(Builtins.intervals.intervalFromMicros, [diff], .interval)
        XCTAssertEqual(try evalRows(interval, chunk(a)), ["1 day 02:00:00", nil, "-01:00:00"])
        let epoch = BoundExpr.function(Builtins.intervals.intervalPart, [E.str("epoch"), interval], .double)
        XCTAssertEqual(try evalRows(epoch, chunk(a)), ["93600", nil, "-3600"])
        let hours = BoundExpr.function(Builtins.intervals.intervalPart, [E.str("hour"), interval], .integer)
        XCTAssertEqual(try evalRows(hours, chunk(a)), ["2", nil, "-1"])
    }

    func testTimeZoneRules() throws {
        let utc = try XCTUnwrap(TimeZoneRules.rule(named: "UTC"))
        XCTAssertEqual(utc.fixedOffset, 0)
        XCTAssertEqual(TimeZoneRules.rule(named: "UTC+3")?.fixedOffset, -3 * 3_600_000_000)
        XCTAssertEqual(TimeZoneRules.rule(named: "-05:30")?.fixedOffset, 5 * 3_600_000_000 + 30 * 60_000_000)
        XCTAssertEqual(TimeZoneRules.rule(named: "pst")?.fixedOffset, -8 * 3_600_000_000)
        XCTAssertNil(TimeZoneRules.rule(named: "Mars/Olympus_Mons"))
        XCTAssertNil(TimeZoneRules.rule(named: ""))
        let ny = try XCTUnwrap(TimeZoneRules.rule(named: "america/new_york"))
        XCTAssertNil(ny.fixedOffset)
        let jan = try XCTUnwrap(DateTime.parseTimestamp("2024-01-15 12:00:00"))
        let jul = try XCTUnwrap(DateTime.parseTimestamp("2024-07-15 12:00:00"))
        XCTAssertEqual(ny.offset(atUTC: jan), -5 * 3_600_000_000)
        XCTAssertEqual(ny.offset(atUTC: jul), -4 * 3_600_000_000)
        // Beyond the table (2300), the zone keeps its daylight-saving rules.
        let far = try XCTUnwrap(DateTime.parseTimestamp("2400-07-15 12:00:00"))
        XCTAssertEqual(ny.offset(atUTC: far), -4 * 3_600_000_000)
        XCTAssertEqual(ny.toUTC(local: jan), jan + 5 * 3_600_000_000)
        // Extreme inputs never trap.
        _ = ny.offset(atUTC: Int64.max)
        _ = ny.toUTC(local: Int64.min)
        _ = ny.fromUTC(Int64.max)
    }

    func testConvertTimezoneKernel() throws {
        let t = ints([DateTime.parseTimestamp("2024-01-15 12:00:00"), nil, DateTime.parseTimestamp("2024-07-15 12:00:00")], .timestamp)
        let toNY = BoundExpr.function(Builtins.dates.convertTimezone, [E.str("America/New_York"), E.col(0, .timestamp)], .timestamp)
        XCTAssertEqual(try evalRows(toNY, chunk(t)), ["2024-01-15 07:00:00", nil, "2024-07-15 08:00:00"])
        let fixed = BoundExpr.function(Builtins.dates.convertTimezone, [E.str("EST"), E.str("UTC"), E.col(0, .timestamp)], .timestamp)
        XCTAssertEqual(try evalRows(fixed, chunk(t)), ["2024-01-15 17:00:00", nil, "2024-07-15 17:00:00"])
        let zones = strs(["Asia/Kolkata", "UTC", nil])
        let perRow = BoundExpr.function(Builtins.dates.convertTimezone, [E.col(1, .text), E.col(0, .timestamp)], .timestamp)
        XCTAssertEqual(try evalRows(perRow, chunk(t, zones)), ["2024-01-15 17:30:00", nil, nil])
        assertError(.function(Builtins.dates.convertTimezone, [E.str("Nowhere"), E.col(0, .timestamp)], .timestamp),
                    "time zone \"Nowhere\" not recognized", in: chunk(t))
        XCTAssertThrowsError(try E.fn("convert_timezone", [E.str("Nowhere"), E.ts("2024-01-01 00:00:00")]))
    }
}
