// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// DECODE, NEXT_DAY and DATE_CMP.
package enum ExtendedFunctions {
    // MARK: - DECODE

    /// Equality of row `i` of `a` and row `i` of `b` (same physical type), NULL equal to NULL.
    private struct RowEq {
        let a: Vector, b: Vector
        @inline(__always) func callAsFunction(_ i: Int) -> Bool {
            let ia = a.isConstant ? 0 : i, ib = b.isConstant ? 0 : i
            let na = a.isNull(ia), nb = b.isNull(ib)
            if na || nb { return na && nb }
            switch (a.data, b.data) {
            case (.int64(let x), .int64(let y)): return x[ia] == y[ib]
            case (.int128(let x), .int128(let y)): return x[ia] == y[ib]
            case (.double(let x), .double(let y)): return x[ia] == y[ib]
            case (.bool(let x), .bool(let y)): return x[ia] == y[ib]
            case (.string(let x), .string(let y)):
                return x.withBytes(ia) { p in y.withBytes(ib) { q in p.elementsEqual(q) } }
            default: return false
            }
        }
    }

    /// DECODE(expr, s1, r1, ..., [default]): the result of the first search equal to
    /// expr (NULL matches NULL), else the default or NULL.
    package static func decode(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let pairs = (args.count - 1) / 2
        let hasDefault = args.count % 2 == 0
        guard pairs + 1 <= Int(Int8.max) else { throw SQLError(.invalidParameter, "DECODE has too many arguments") }
        var key = args[0]
        if key.type.isString { key.type = .text }
        // Sources for Kern.pick: results then the default.
        var sources: [Vector] = []
        for k in 0..<pairs { sources.append(args[2 + 2 * k]) }
        if hasDefault { sources.append(args[args.count - 1]) }
        let allConstant = args.allSatisfy { $0.isConstant }
        let len = allConstant ? 1 : n
        var branch = [Int8](filled: hasDefault ? Int8(pairs) : -1, count: len)
        var decided = [Bool](filled: false, count: len)
        for k in 0..<pairs {
            var search = args[1 + 2 * k]
            if search.type.isString != key.type.isString || (search.type.physical != key.type.physical) {
                search = try CastKernels.cast(search, to: key.type)
            }
            let eq = RowEq(a: key, b: search)
            for i in 0..<len where !decided[i] && eq(i) {
                decided[i] = true
                branch[i] = Int8(k)
            }
        }
        if allConstant {
            let b = Int(branch[0])
            if b < 0 { return Kern.constNull(resultType) }
            var r = sources[b]
            if r.type != resultType { r = try CastKernels.cast(r, to: resultType) }
            return r
        }
        let cast = try sources.map { $0.type == resultType ? $0 : try CastKernels.cast($0, to: resultType) }
        return try Kern.pick(resultType, n: n, sources: cast, branch: branch)
    }

    // MARK: - NEXT_DAY, DATE_CMP

    /// Weekday number (0 = Sunday) from a name or an abbreviation of at least two letters.
    package static func weekday(_ p: UnsafeBufferPointer<UInt8>) -> Int64? {
        var s = String(decoding: p, as: UTF8.self).lowercased()
        s = s.trimmingBlanks()
        guard s.count >= 2 else { return nil }
        for (k, name) in DateTimeFormat.dayNames.enumerated() where name.lowercased().hasPrefix(s) {
            return Int64(k)
        }
        return nil
    }

    /// NEXT_DAY(date, day): the first date after `date` that falls on `day`.
    package static func nextDay(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let isTs = args[0].type == .timestamp
        let d = try IntInput(args[0])
        let names = try StringKernels.input(args[1])
        var cached: (Range<Int>, Int64)? = nil
        return try StringKernels.mapRowsInt(args, n: n, resultType: resultType) { i in
            let r = names.range(i)
            let wd: Int64
            if let c = cached, c.0 == r { wd = c.1 } else {
                guard let w = StringKernels.with(names, i, { weekday($0) }) else {
                    let raw = StringKernels.with(names, i) { String(decoding: $0, as: UTF8.self) }
                    throw SQLError(.invalidParameter, "invalid day of week: \"\(raw)\"")
                }
                wd = w
                if names.constant { cached = (r, w) }
            }
            let day = isTs ? DateFunctions.floorDiv(d[i], DateTime.microsPerDay) : d[i]
            let dow = DateFunctions.floorMod(day + 4, 7)
            var delta = DateFunctions.floorMod(wd - dow, 7)
            if delta == 0 { delta = 7 }
            return day + delta
        }
    }

    /// DATE_CMP(a, b): -1, 0 or 1.
    package static func dateCmp(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let a = try IntInput(args[0]), b = try IntInput(args[1])
        return try StringKernels.mapRowsInt(args, n: n, resultType: resultType) { i in
            a[i] < b[i] ? -1 : a[i] == b[i] ? 0 : 1
        }
    }
}

extension String {
    /// Without leading and trailing blanks and tabs.
    package func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
