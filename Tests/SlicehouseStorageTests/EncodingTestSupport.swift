// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseStorage
import SlicehouseTypes
import XCTest

/// Deterministic data for the encoding tests (xorshift; failures reproduce).
struct EncRNG {
    var x: UInt64
    init(_ seed: UInt64) { x = seed | 1 }
    mutating func next() -> UInt64 {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17
        return x
    }
    mutating func int(_ r: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(bitPattern: r.upperBound &- r.lowerBound)
        if span == UInt64.max { return Int64(bitPattern: next()) }
        return r.lowerBound &+ Int64(bitPattern: next() % (span + 1))
    }
    mutating func int128(_ bound: Int128) -> Int128 {
        let v = Int128(truncatingIfNeeded: (UInt128(next()) << 64) | UInt128(next()))
        return v % (bound + 1)
    }
    mutating func chance(_ percent: Int) -> Bool { Int(next() % 100) < percent }
}

enum DataPattern: CaseIterable {
    case boundary, random, sorted, lowCardinality, constant
}

enum NullPattern: CaseIterable {
    case none, some, all
}

enum EncodingFixtures {
    static let types: [DataType] = [
        .smallint, .integer, .bigint, .decimal(precision: 15, scale: 2), .decimal(precision: 38, scale: 4),
        .date, .timestamp, .real, .double, .boolean, .char(12), .varchar(300), .varchar(65535),
    ]

    static let pow10_38m1: Int128 = {
        var p: Int128 = 1
        for _ in 0..<38 { p *= 10 }
        return p - 1
    }()

    static func intRange(_ t: DataType) -> ClosedRange<Int64> {
        switch t {
        case .smallint: return Int64(Int16.min)...Int64(Int16.max)
        case .integer: return Int64(Int32.min)...Int64(Int32.max)
        case .date: return -2_000_000...2_000_000
        case .decimal(let p, _) where p <= 18:
            var m: Int64 = 1
            for _ in 0..<p { m *= 10 }
            return -(m - 1)...(m - 1)
        default: return Int64.min...Int64.max
        }
    }

    static let unicode = ["héllo wörld", "日本語のテキスト", "🎉 party 🎉", "Ωmega ∑ ∫", "naïve café"]

    static func longString(_ n: Int, seed: UInt64) -> String {
        var rng = EncRNG(seed)
        let words = ["alpha", "beta", "gamma", "delta", "épsilon", "zeta", "η", "theta"]
        var s = ""
        while s.utf8.count < n { s += words[Int(rng.next() % 8)] + " " }
        return String(decoding: Array(s.utf8.prefix(n)).filter { $0 < 0x80 }, as: UTF8.self)
    }

    /// `n` values of `type` following `pattern`, with NULLs per `nulls`.
    static func vector(_ type: DataType, _ n: Int, _ pattern: DataPattern, _ nulls: NullPattern, seed: UInt64 = 42) -> Vector {
        var rng = EncRNG(seed &+ UInt64(n))
        var v = Vector(type: type, capacity: n)
        let values = self.values(type, n, pattern, &rng)
        for i in 0..<n {
            let isNull: Bool
            switch nulls {
            case .none: isNull = false
            case .all: isNull = true
            case .some: isNull = i % 7 == 3 || rng.chance(10)
            }
            v.append(isNull ? .null : values[i])
        }
        return v
    }

    static func values(_ type: DataType, _ n: Int, _ pattern: DataPattern, _ rng: inout EncRNG) -> [Value] {
        switch type.physical {
        case .int64:
            let r = intRange(type)
            let boundary: [Int64] = [r.lowerBound, r.upperBound, 0, -1, 1, r.lowerBound + 1, r.upperBound - 1, 127, -128, 32767, -32768]
                .filter { r.contains($0) }
            switch pattern {
            case .boundary: return (0..<n).map { .int(boundary[$0 % boundary.count]) }
            case .random: return (0..<n).map { _ in .int(rng.int(r)) }
            case .sorted:
                var x = max(r.lowerBound, -1000)
                return (0..<n).map { _ in
                    x = min(r.upperBound, x &+ rng.int(0...3))
                    return .int(x)
                }
            case .lowCardinality:
                let pool = (0..<7).map { _ in rng.int(r) }
                return (0..<n).map { _ in .int(pool[Int(rng.next() % 7)]) }
            case .constant:
                let c = rng.int(r)
                return [Value](repeating: .int(c), count: n)
            }
        case .int128:
            let m = pow10_38m1
            let boundary: [Int128] = [-m, m, 0, -1, 1, Int128(Int64.min), Int128(Int64.max), Int128(Int64.max) + 1, -m + 1]
            switch pattern {
            case .boundary: return (0..<n).map { .int128(boundary[$0 % boundary.count]) }
            case .random: return (0..<n).map { _ in .int128(rng.int128(m)) }
            case .sorted:
                var x: Int128 = Int128(Int64.max) - 500
                return (0..<n).map { _ in
                    x += Int128(rng.int(0...1000))
                    return .int128(x)
                }
            case .lowCardinality:
                let pool = (0..<5).map { _ in rng.int128(m) }
                return (0..<n).map { _ in .int128(pool[Int(rng.next() % 5)]) }
            case .constant:
                return [Value](repeating: .int128(-m), count: n)
            }
        case .double:
            let real = type == .real
            let boundary: [Double] = real
                ? [0.0, -0.0, .nan, .infinity, -.infinity, Double(Float.greatestFiniteMagnitude),
                   Double(Float.leastNonzeroMagnitude), 1.5, -2.25, Double(Float.pi)]
                : [0.0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                   -.greatestFiniteMagnitude, 1.5, -2.25, .pi, 0.1]
            func r(_ d: Double) -> Double { real ? Double(Float(d)) : d }
            switch pattern {
            case .boundary: return (0..<n).map { .double(boundary[$0 % boundary.count]) }
            case .random: return (0..<n).map { _ in .double(r(Double(Int64(bitPattern: rng.next()) >> 11) * 0.001)) }
            case .sorted: return (0..<n).map { .double(r(Double($0) * 0.25)) }
            case .lowCardinality:
                let pool = [1.25, 99.5, -3.75, 0.0]
                return (0..<n).map { _ in .double(pool[Int(rng.next() % 4)]) }
            case .constant: return [Value](repeating: .double(r(42.5)), count: n)
            }
        case .bool:
            switch pattern {
            case .boundary: return (0..<n).map { .bool($0 % 2 == 0) }
            case .random, .lowCardinality: return (0..<n).map { _ in .bool(rng.chance(50)) }
            case .sorted: return (0..<n).map { .bool($0 >= n / 2) }
            case .constant: return [Value](repeating: .bool(true), count: n)
            }
        case .string:
            let maxLen: Int
            switch type { case .char(let k): maxLen = k; case .varchar(let k): maxLen = k; default: maxLen = 256 }
            var boundary = ["", "a", " ", "  two  spaces ", "x y z", "trailing "] + unicode
            if maxLen >= 300 { boundary.append(longString(300, seed: 1)) }
            if maxLen >= 40000 { boundary.append(longString(40000, seed: 2)); boundary.append(String(repeating: "w", count: 65535)) }
            boundary = boundary.map { String(decoding: Array($0.utf8.prefix(maxLen)), as: UTF8.self) }
            switch pattern {
            case .boundary: return (0..<n).map { .string(boundary[$0 % boundary.count]) }
            case .random:
                return (0..<n).map { _ in
                    let len = Int(rng.next() % UInt64(min(maxLen, 40) + 1))
                    var bytes = [UInt8]()
                    for _ in 0..<len {
                        let c = rng.next() % 30
                        bytes.append(c < 3 ? 0x20 : UInt8(0x61 + c % 26))
                    }
                    return .string(String(decoding: bytes, as: UTF8.self))
                }
            case .sorted: return (0..<n).map { .string(String(String(format6($0)).prefix(maxLen))) }
            case .lowCardinality:
                let pool = ["AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"]
                return (0..<n).map { _ in .string(pool[Int(rng.next() % 7)]) }
            case .constant: return [Value](repeating: .string("constant"), count: n)
            }
        }
    }

    static func format6(_ i: Int) -> String {
        let s = String(i)
        return String(repeating: "0", count: max(0, 6 - s.count)) + s
    }

    /// Row-by-row equality of two vectors (doubles by bit pattern; NaNs alike).
    /// Returns a description of the first difference, or nil.
    static func difference(_ a: Vector, _ b: Vector) -> String? {
        guard a.count == b.count else { return "count \(a.count) vs \(b.count)" }
        for i in 0..<a.count where a.isNull(i) != b.isNull(i) {
            return "row \(i): null \(a.isNull(i)) vs \(b.isNull(i))"
        }
        switch (a.data, b.data) {
        case (.int64(let x), .int64(let y)):
            for i in 0..<x.count where !a.isNull(i) && x[i] != y[i] { return "row \(i): \(x[i]) vs \(y[i])" }
        case (.int128(let x), .int128(let y)):
            for i in 0..<x.count where !a.isNull(i) && x[i] != y[i] { return "row \(i): \(x[i]) vs \(y[i])" }
        case (.double(let x), .double(let y)):
            for i in 0..<x.count where !a.isNull(i) {
                if x[i].isNaN && y[i].isNaN { continue }
                if x[i].bitPattern != y[i].bitPattern { return "row \(i): \(x[i]) vs \(y[i])" }
            }
        case (.bool(let x), .bool(let y)):
            for i in 0..<x.count where !a.isNull(i) && x[i] != y[i] { return "row \(i): \(x[i]) vs \(y[i])" }
        case (.string(let x), .string(let y)):
            for i in 0..<x.count where !a.isNull(i) && !StringArray.equal(x, i, y, i) {
                return "row \(i): \"\(x[i].prefix(40))\" vs \"\(y[i].prefix(40))\""
            }
        default:
            return "different physical kinds"
        }
        return nil
    }

    static func roundTrip(_ v: Vector, _ e: ColumnEncoding, start: Int = 0, count: Int? = nil) throws -> (Vector, Int) {
        let n = count ?? v.count
        let bytes = try BlockEncoder.encode(v, start: start, count: n, encoding: e)
        let out = try bytes.withUnsafeBytes { try BlockEncoder.decode($0, type: v.type, encoding: e) }
        return (out, bytes.count)
    }
}
