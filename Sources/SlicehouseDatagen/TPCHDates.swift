// SPDX-License-Identifier: Apache-2.0
/// TPC-H's calendar: dates are day numbers counted from 1992-01-01.
///
/// dbgen draws dates as small integers and prints them through a table of the
/// 2,557 days from 1992-01-01 to 1998-12-31 (seven years, one of them leap). The
/// generators work with *generated day numbers*: `minGeneratedDay` (92001, dbgen's
/// "yyddd" spelling of 1992-01-01) plus the number of days since that date.
///
/// Order dates run from the first day to 151 days (the longest ship + receipt
/// delay) before the last one; ship, commit and receipt dates are offsets from
/// the order date, so every date stays inside the table.
///
/// "Now" for order and line status is 1995-06-17 (`currentDay`): a line shipped
/// on or before it is fulfilled, one received on or before it may be returned.
enum TPCHDates {
    static let minGeneratedDay: Int32 = 92001
    static let dayCount = 2557

    /// The generated day number of 1995-06-17.
    static let currentDay: Int32 = minGeneratedDay + Int32(daysFrom1992(year: 1995, month: 6, day: 17))

    /// `dayCount` dates, 10 bytes each, "YYYY-MM-DD".
    static let text: StaticBytes = {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(dayCount * 10)
        var (year, month, day) = (1992, 1, 1)
        for _ in 0..<dayCount {
            appendDigits(year, width: 4, to: &bytes)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(month, width: 2, to: &bytes)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(day, width: 2, to: &bytes)
            day += 1
            if day > daysInMonth(year: year, month: month) {
                day = 1
                month += 1
                if month > 12 { month = 1; year += 1 }
            }
        }
        return StaticBytes(String(decoding: bytes, as: UTF8.self))
    }()

    /// Whether a generated day is on or before 1995-06-17.
    @inline(__always)
    static func isInPast(_ generatedDay: Int32) -> Bool {
        generatedDay <= currentDay
    }

    /// The "YYYY-MM-DD" bytes of a generated day number.
    @inline(__always)
    static func textOffset(_ generatedDay: Int32) -> Int {
        Int(generatedDay - minGeneratedDay) * 10
    }

    /// The date of a generated day number, as a string (for tests and tools).
    static func string(_ generatedDay: Int32) -> String {
        let offset = textOffset(generatedDay)
        return String(decoding: UnsafeBufferPointer(start: text.base + offset, count: 10), as: UTF8.self)
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFrom1992(year: Int, month: Int, day: Int) -> Int {
        var days = day - 1
        for y in 1992..<year { days += isLeap(y) ? 366 : 365 }
        for m in 1..<month { days += daysInMonth(year: year, month: m) }
        return days
    }

    private static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var remaining = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(remaining / divisor))
            remaining %= divisor
            divisor /= 10
        }
    }
}
