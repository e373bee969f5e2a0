// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehousePlatform

/// The UTC offset of one time zone over time, for CONVERT_TIMEZONE.
///
/// A zone is resolved once per process from its name (the binder resolves the
/// constant names of a statement, so unknown names fail at bind time) and cached;
/// kernels then convert timestamps with integer arithmetic only: a fixed zone adds
/// one offset, a named zone looks its offset up in a table of transitions with a
/// binary search. Names are read as PostgreSQL and Redshift read them:
/// - an abbreviation with a fixed offset (`UTC`, `GMT`, `EST`, `PDT`, `CET`, ...);
/// - a POSIX-style offset `NAME±h[:mm[:ss]]` or `±h[:mm]`, where a positive offset is
///   *west* of Greenwich (`UTC+3` is three hours behind UTC), as in PostgreSQL;
/// - an IANA zone name (`America/New_York`, `Europe/London`, `Singapore`; case does
///   not matter), with its daylight-saving rules, from Foundation's time zone data.
public final class TimeZoneRule: Sendable {
    /// The name as written when the rule was first resolved.
    public let name: String
    /// UTC instants (µs since 1970) at which a new offset starts, ascending.
    let transitions: [Int64]
    /// Offsets east of UTC in µs: `offsets[0]` before the first transition,
    /// `offsets[k + 1]` from `transitions[k]` on. Never empty.
    let offsets: [Int64]

    /// The fixed offset of a zone without transitions.
    public var fixedOffset: Int64? { transitions.isEmpty ? offsets[0] : nil }

    init(name: String, transitions: [Int64], offsets: [Int64]) {
        self.name = name
        self.transitions = transitions
        self.offsets = offsets.isEmpty ? [0] : offsets
    }

    /// End of the transition table: 2300-01-01 00:00 UTC.
    static let tableEnd: Int64 = 10_413_792_000 * 1_000_000

    /// The offset (µs east of UTC) in force at UTC instant `t`.
    @inline(__always) public func offset(atUTC t: Int64) -> Int64 {
        if transitions.isEmpty { return offsets[0] }
        if t >= TimeZoneRule.tableEnd { return offsetBeyondTable(t) }
        var lo = 0, hi = transitions.count      // first transition > t
        while lo < hi {
            let mid = (lo + hi) >> 1
            if transitions[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return offsets[lo]
    }

    /// After 2300 a zone keeps its last rules: read them in a year of 2272...2299 that
    /// starts on the same weekday and has the same length (no century year lies between).
    func offsetBeyondTable(_ t: Int64) -> Int64 {
        let day = t / DateTime.microsPerDay
        let (y, _, _) = DateTime.civil(day)
        let jan1 = DateTime.days(year: y, month: 1, day: 1)
        let weekday = ((jan1 % 7) + 7) % 7
        for candidate in Int64(2272)...2299 where DateTime.isLeap(candidate) == DateTime.isLeap(y) {
            let c1 = DateTime.days(year: candidate, month: 1, day: 1)
            if ((c1 % 7) + 7) % 7 == weekday {
                return offset(atUTC: t - (jan1 - c1) * DateTime.microsPerDay)
            }
        }
        return offsets[offsets.count - 1]
    }

    /// UTC instant of a wall-clock time `local` in this zone. As in PostgreSQL, a time
    /// that a change skips (spring forward) is read with the offset from before the
    /// change, a time that it repeats (fall back) with the offset from after it.
    @inline(__always) public func toUTC(local: Int64) -> Int64 {
        if transitions.isEmpty { return local &- offsets[0] }
        // Offsets a day either side: changes are far apart, and every zone is within ±1 day.
        let before = offset(atUTC: local &- DateTime.microsPerDay)
        let after = offset(atUTC: local &+ DateTime.microsPerDay)
        if before == after { return local &- before }
        let asAfter = local &- after
        if offset(atUTC: asAfter) == after { return asAfter }
        return local &- before
    }

    /// Wall-clock time in this zone of UTC instant `t`.
    @inline(__always) public func fromUTC(_ t: Int64) -> Int64 { t &+ offset(atUTC: t) }
}

public enum TimeZoneRules {
    private final class Cache: @unchecked Sendable {
        let lock = Lock()
        var rules: [String: TimeZoneRule] = [:]
        var lowerCasedIdentifiers: [String: String]? = nil
    }
    private static let cache = Cache()

    /// The rule for a zone name, or nil when the name is not a zone (see `TimeZoneRule`).
    public static func rule(named raw: String) -> TimeZoneRule? {
        var trimmed = Substring(raw)
        while trimmed.first == " " { trimmed.removeFirst() }
        while trimmed.last == " " { trimmed.removeLast() }
        let key = trimmed.lowercased()
        if let r = cache.lock.withLock({ cache.rules[key] }) { return r }
        guard let rule = resolve(String(trimmed), key) else { return nil }
        cache.lock.withLock { cache.rules[key] = rule }
        return rule
    }

    static let hour: Int64 = 3_600_000_000
    static let minute: Int64 = 60_000_000

    /// Fixed-offset abbreviations (PostgreSQL's default set, µs east of UTC).
    static let abbreviations: [String: Int64] = [
        "utc": 0, "gmt": 0, "z": 0, "zulu": 0, "uct": 0, "ut": 0, "universal": 0,
        "est": -5 * hour, "edt": -4 * hour, "cst": -6 * hour, "cdt": -5 * hour,
        "mst": -7 * hour, "mdt": -6 * hour, "pst": -8 * hour, "pdt": -7 * hour,
        "akst": -9 * hour, "akdt": -8 * hour, "hst": -10 * hour, "ast": -4 * hour, "adt": -3 * hour,
        "nst": -(3 * hour + 30 * minute), "ndt": -(2 * hour + 30 * minute),
        "wet": 0, "west": hour, "bst": hour, "cet": hour, "cest": 2 * hour, "met": hour, "mest": 2 * hour,
        "eet": 2 * hour, "eest": 3 * hour, "msk": 3 * hour, "ist": 2 * hour,
        "hkt": 8 * hour, "sgt": 8 * hour, "awst": 8 * hour, "jst": 9 * hour, "kst": 9 * hour,
        "acst": 9 * hour + 30 * minute, "acdt": 10 * hour + 30 * minute,
        "aest": 10 * hour, "aedt": 11 * hour, "nzst": 12 * hour, "nzdt": 13 * hour,
    ]

    private static func resolve(_ name: String, _ key: String) -> TimeZoneRule? {
        if key.isEmpty { return nil }
        if let off = abbreviations[key] { return TimeZoneRule(name: name, transitions: [], offsets: [off]) }
        if let off = posixOffset(key) { return TimeZoneRule(name: name, transitions: [], offsets: [off]) }
        guard let tz = foundationZone(name, key) else { return nil }
        return table(tz, name: name)
    }

    /// POSIX-style `STDoffset` (positive hours west of UTC): `NAME±h[:mm[:ss]]`,
    /// `NAMEh` (`EST5`) or `±h[:mm[:ss]]`. As in Redshift's CONVERT_TIMEZONE examples, the
    /// name is only a label — any letters, also with `/`, `_` or spaces (`NEWZONE +2`,
    /// `America/Los_Angeles+2`: two hours west, whatever the name's own rules). A name
    /// followed by a daylight-saving part (`EST5EDT`) is not a fixed offset: nil.
    static func posixOffset(_ key: String) -> Int64? {
        let label = key.prefix(while: { $0.isLetter || $0 == "/" || $0 == "_" || $0 == " " })
        let letters = label.filter { $0.isLetter }.count
        var rest = key.dropFirst(label.count)
        guard letters == 0 || letters >= 3, let first = rest.first else { return nil }
        let west: Bool
        if first == "+" || first == "-" {
            west = first == "+"
            rest = rest.dropFirst()
        } else if first.isASCII && first.isNumber && letters > 0 {
            west = true   // `EST5`: an unsigned offset is west
        } else {
            return nil
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total: Int64 = 0
        let scales: [Int64] = [hour, minute, 1_000_000]
        for (k, p) in parts.enumerated() {
            guard !p.isEmpty, p.count <= 2, p.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int64(p) else { return nil }
            if k > 0 && v >= 60 { return nil }
            total += v * scales[k]
        }
        guard total <= 15 * hour else { return nil }
        return west ? -total : total
    }

    private static func foundationZone(_ name: String, _ key: String) -> TimeZone? {
        if let tz = TimeZone(identifier: name) { return tz }
        // Names are case-insensitive in PostgreSQL and Redshift.
        let ids = cache.lock.withLock { () -> [String: String] in
            if let m = cache.lowerCasedIdentifiers { return m }
            var m: [String: String] = [:]
            for id in TimeZone.knownTimeZoneIdentifiers { m[id.lowercased()] = id }
            cache.lowerCasedIdentifiers = m
            return m
        }
        if let id = ids[key], let tz = TimeZone(identifier: id) { return tz }
        // Not in the list (it lags the database): try the usual spellings,
        // `Asia/Kolkata`, `America/New_York`, `EST5EDT`.
        var capitalized = "", upperNext = true
        for ch in key {
            capitalized += upperNext ? ch.uppercased() : String(ch)
            upperNext = ch == "/" || ch == "_" || ch == "-"
        }
        return TimeZone(identifier: capitalized) ?? TimeZone(identifier: key.uppercased())
    }

    /// Transitions of `tz` from 1900 to 2300 (beyond, `TimeZoneRule` repeats the last 400 years).
    private static func table(_ tz: TimeZone, name: String) -> TimeZoneRule {
        let start = Date(timeIntervalSince1970: -2_208_988_800)       // 1900-01-01
        let end = Date(timeIntervalSince1970: 10_413_792_000)         // 2300-01-01
        var transitions: [Int64] = []
        var offsets: [Int64] = [Int64(tz.secondsFromGMT(for: start)) * 1_000_000]
        var at = start
        while let next = tz.nextDaylightSavingTimeTransition(after: at), next < end, next > at {
            let off = Int64(tz.secondsFromGMT(for: next)) * 1_000_000
            if off != offsets[offsets.count - 1] {
                transitions.append(Int64((next.timeIntervalSince1970 * 1_000_000).rounded()))
                offsets.append(off)
            }
            at = next
            if transitions.count > 100_000 { break }
        }
        return TimeZoneRule(name: name, transitions: transitions, offsets: offsets)
    }
}
