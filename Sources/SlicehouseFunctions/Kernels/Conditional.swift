// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// IN lists, GREATEST/LEAST, NULLIF and row-wise blending of two vectors.
/// (CASE, COALESCE and NVL2 evaluate their branches lazily in the evaluator.)
package enum ConditionalKernels {

    // MARK: - IN (constant list)

    /// A set of constant list values of one physical type, plus whether the list had a NULL.
    package struct ConstantSet {
        var ints: Set<Int64> = []
        var wides: Set<Int128> = []
        var doubles: [Double] = []
        var bools: (hasTrue: Bool, hasFalse: Bool) = (false, false)
        var strings: [UInt64: [[UInt8]]] = [:]
        /// Every string of the list, when it is short (`smallListLimit`): compared one by
        /// one (length first), which beats hashing each row for `l_shipmode IN ('MAIL', 'SHIP')`.
        var smallStrings: [[UInt8]]? = []
        static let smallListLimit = 8
        /// The list as `ShortStringSet` when every string has at most 8 bytes and there
        /// are at most 8 of them: one masked 8-byte load per row and a compare per item.
        var shortStrings: ShortStringSet? { smallStrings.flatMap(ShortStringSet.init) }
        var hasNull = false
        var count = 0

        init(_ items: [Vector], type: DataType) throws {
            for item in items {
                let sameRepresentation = (item.type.isString && type.isString)
                    || ComparisonKernels.sameRepresentation(item.type, type)
                let v = sameRepresentation ? item : try CastKernels.cast(item, to: type)
                if v.isNull(0) { hasNull = true; continue }
                count += 1
                switch v.data {
                case .int64(let a): ints.insert(a[0])
                case .int128(let a): wides.insert(a[0])
                case .double(let a): doubles.append(a[0])
                case .bool(let a): if a[0] { bools.hasTrue = true } else { bools.hasFalse = true }
                case .string(let a):
                    let bytes = a.withBytes(0) { Array($0) }
                    let h = bytes.withUnsafeBufferPointer { Hashing.hash(bytes: $0.baseAddress, count: $0.count) }
                    strings[h, default: []].append(bytes)
                    if let small = smallStrings {
                        smallStrings = small.count < Self.smallListLimit ? small + [bytes] : nil
                    }
                }
            }
        }

        @inline(__always) func contains(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
            if let small = smallStrings {
                for b in small where b.count == p.count {
                    if b.withUnsafeBufferPointer({ Self.equal($0, p) }) { return true }
                }
                return false
            }
            guard let bucket = strings[Hashing.hash(bytes: p.baseAddress, count: p.count)] else { return false }
            for b in bucket where b.count == p.count {
                if b.withUnsafeBufferPointer({ Self.equal($0, p) }) { return true }
            }
            return false
        }

        /// Two byte strings of one length, equal (`equalBytes`: no byte loop).
        @inline(__always) package static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard a.count > 0, let x = a.baseAddress, let y = b.baseAddress else { return true }
            return equalBytes(x, y, a.count)
        }
    }

    /// `v [NOT] IN (items)` where every item is a constant vector.
    package static func inList(_ v: Vector, items: [Vector], negated: Bool, n: Int) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(.boolean) }
        let set = try ConstantSet(items, type: v.type)
        let len = v.isConstant ? 1 : n
        let found: [Bool]
        switch v.data {
        case .int64(let x):
            if set.ints.count <= 8 {
                let small = Array(set.ints)
                found = Kern.map(InSmallList(values: small, negated: false), x)
            } else {
                found = Kern.map(InIntSet(values: set.ints, negated: false), x)
            }
        case .int128(let x): found = Kern.map1(x) { set.wides.contains($0) }
        case .double(let x):
            found = Kern.map1(x) { d in set.doubles.contains { ComparisonKernels.doubleEqual($0, d) } }
        case .bool(let x): found = Kern.map1(x) { $0 ? set.bools.hasTrue : set.bools.hasFalse }
        case .string(let s):
            if let short = set.shortStrings {
                found = short.marks(s, count: len)
                break
            }
            var f = [Bool](filled: false, count: len)
            s.bytes.withUnsafeBufferPointer { b in
                for i in 0..<len {
                    f[i] = set.contains(UnsafeBufferPointer(rebasing: b[Int(s.offsets[i])..<Int(s.offsets[i + 1])]))
                }
            }
            found = f
        }
        // TRUE on a match; otherwise NULL when the list had a NULL, else FALSE; NOT flips.
        var validity = Kern.rowValidity(v)
        if set.hasNull {
            var val = validity ?? Validity(allValid: len)
            for i in 0..<len where !found[i] { val.setInvalid(i) }
            validity = val
        }
        let out = negated ? Kern.map1(found) { !$0 } : found
        if v.isConstant {
            let isNull = v.isNull(0) || (set.hasNull && !found[0])
            return Kern.boolResult(out, validity: isNull ? Validity(allNull: 1) : nil, constant: true)
        }
        return Kern.boolResult(out, validity: validity, constant: false)
    }

    /// Selection fast path for `column [NOT] IN (constants)` on a chunk column.
    package static func selectIn(column: Vector, items: [Vector], negated: Bool, selection: [Int32]?, count: Int) throws -> [Int32]? {
        let set = try ConstantSet(items, type: column.type)
        if negated && set.hasNull { return [] }     // x NOT IN (..., NULL) is never TRUE
        switch column.data {
        case .int64(let x):
            let small = Array(set.ints)
            if small.count <= 8 {
                return ComparisonKernels.selectValues(x, column.validity, selection, count, InSmallList(values: small, negated: negated))
            }
            return ComparisonKernels.selectValues(x, column.validity, selection, count, InIntSet(values: set.ints, negated: negated))
        case .string(let s):
            if let short = set.shortStrings {
                return short.select(s, column.validity, selection, count, negated: negated)
            }
            return ComparisonKernels.selectStrings(s, column.validity, selection, count, InSetPredicate(set: set, negated: negated))
        default:
            return nil
        }
    }

    // MARK: - Blending

    /// Row i from `a` where `takeA[i]`, else from `b` (both flat with n rows or constant).
    package static func blend(_ takeA: [Bool], _ a: Vector, _ b: Vector, type: DataType, n: Int) throws -> Vector {
        let a = a.isConstant ? a.flattened(count: n) : a
        let b = b.isConstant ? b.flattened(count: n) : b
        var validity: Validity? = nil
        if a.validity != nil || b.validity != nil {
            var v = Validity(allValid: n)
            for i in 0..<n where (takeA[i] ? a.isNull(i) : b.isNull(i)) { v.setInvalid(i) }
            validity = v
        }
        let data: VectorData
        switch (a.data, b.data) {
        case (.int64(let x), .int64(let y)): data = .int64((0..<n).map { takeA[$0] ? x[$0] : y[$0] })
        case (.int128(let x), .int128(let y)): data = .int128((0..<n).map { takeA[$0] ? x[$0] : y[$0] })
        case (.double(let x), .double(let y)): data = .double((0..<n).map { takeA[$0] ? x[$0] : y[$0] })
        case (.bool(let x), .bool(let y)): data = .bool((0..<n).map { takeA[$0] ? x[$0] : y[$0] })
        case (.string(let x), .string(let y)):
            var out = StringArray(reservingCount: n, bytes: x.bytes.count)
            for i in 0..<n { if takeA[i] { out.append(from: x, i) } else { out.append(from: y, i) } }
            data = .string(out)
        default:
            throw SQLError.internalError("blend of \(a.type.sqlName) and \(b.type.sqlName)")
        }
        return Vector(type: type, data: data, validity: validity)
    }

    // MARK: - GREATEST / LEAST / NULLIF

    /// GREATEST/LEAST ignoring NULLs (NULL only when every argument is NULL).
    package static func extreme(_ args: [Vector], greatest: Bool, resultType: DataType, n: Int) throws -> Vector {
        let live = args.filter { !Kern.isConstNull($0) }
        guard var acc = live.first else { return Kern.constNull(resultType) }
        acc = try align(acc, resultType)
        for next0 in live.dropFirst() {
            let next = try align(next0, resultType)
            let len = Kern.length(acc, next, n: n)
            let better = try ComparisonKernels.compare(greatest ? .greater : .less, next, acc, n: len)
            let bv = try Kern.bools(better)
            let takeNext = (0..<len).map { i -> Bool in
                let accNull = acc.isNull(i)
                let nextNull = next.isNull(i)
                if accNull { return !nextNull }
                if nextNull { return false }
                return bv[better.isConstant ? 0 : i]
            }
            if acc.isConstant && next.isConstant {
                acc = takeNext[0] ? next : acc
            } else {
                acc = try blend(takeNext, next, acc, type: resultType, n: len)
            }
        }
        return acc.retyped(resultType)
    }

    /// An argument in the result's representation (the binder normally casts already).
    package static func align(_ v: Vector, _ t: DataType) throws -> Vector {
        if v.type == t || (v.type.isString && t.isString) { return v.retyped(t) }
        return try CastKernels.cast(v, to: t)
    }

    /// NULLIF(a, b): NULL where a = b, else a.
    package static func nullif(_ a: Vector, _ b: Vector, resultType: DataType, n: Int) throws -> Vector {
        if Kern.isConstNull(a) { return Kern.constNull(resultType) }
        if Kern.isConstNull(b) { return a.retyped(resultType) }
        let eq = try ComparisonKernels.compare(.equal, a, b, n: n)
        let ev = try Kern.bools(eq)
        if a.isConstant && eq.isConstant {
            return (ev[0] && !eq.isNull(0)) ? Kern.constNull(resultType) : a.retyped(resultType)
        }
        var out = a.isConstant ? a.flattened(count: n) : a
        var validity = out.validity ?? Validity(allValid: n)
        var changed = false
        for i in 0..<n {
            let k = eq.isConstant ? 0 : i
            if ev[k] && !eq.isNull(k) { validity.setInvalid(i); changed = true }
        }
        if changed || out.validity != nil { out.validity = validity }
        out.type = resultType
        return out
    }
}

/// At most 8 strings of at most 8 bytes each (`l_shipmode IN ('MAIL', 'SHIP')`,
/// `substring(c_phone, 1, 2) IN ('13', '31', ...)`): a row's bytes are read with one
/// 8-byte load, masked to its length, and compared with each item's word and length;
/// the results are OR-ed, so nothing branches on the row's bytes or on which item
/// matched. (A loop over `[[UInt8]]` items, length first, was 38% of TPC-H Q12; SIMD
/// vectors of the 8 words compiled to lane-by-lane code on this target.)
package struct ShortStringSet {
    package static let capacity = 8
    /// Each item's bytes, little-endian and zero-padded to 8, then its length; unused
    /// entries have length `UInt64.max`, which no string has. 16 words in all.
    private let table: [UInt64]
    /// The number of items.
    private let count: Int

    package init?(_ items: [[UInt8]]) {
        guard items.count <= Self.capacity, items.allSatisfy({ $0.count <= 8 }) else { return nil }
        var t = [UInt64](filled: 0, count: 2 * Self.capacity)
        for i in 0..<Self.capacity { t[Self.capacity + i] = .max }
        for (i, item) in items.enumerated() {
            var word: UInt64 = 0
            for (b, byte) in item.enumerated() { word |= UInt64(byte) &<< UInt64(8 * b) }
            t[i] = word
            t[Self.capacity + i] = UInt64(item.count)
        }
        table = t
        count = items.count
    }

    /// Whether the string `bytes[s..<e]` (of a buffer of `total` bytes) is one of the
    /// `items` entries of `table`: each is compared, without a branch on the outcome.
    @inline(__always)
    package static func contains(_ table: UnsafePointer<UInt64>, items: Int, _ bytes: UnsafePointer<UInt8>, total: Int,
                         _ s: Int, _ e: Int) -> Bool {
        let len = e &- s
        var word: UInt64
        if s &+ 8 <= total {
            word = UInt64(littleEndian: UnsafeRawPointer(bytes + s).loadUnaligned(as: UInt64.self))
            let mask = len >= 8 ? UInt64.max : (UInt64(1) &<< UInt64(truncatingIfNeeded: 8 &* len)) &- 1
            word &= mask
        } else {
            // The last few bytes of the buffer: no 8-byte load past its end.
            word = 0
            var b = 0
            while b < min(len, 8) { word |= UInt64(bytes[s &+ b]) &<< UInt64(8 &* b); b &+= 1 }
        }
        let l = UInt64(truncatingIfNeeded: len)
        var hit: UInt8 = 0
        for k in 0..<items {
            hit |= unsafeBitCast(table[k] == word, to: UInt8.self) & unsafeBitCast(table[capacity + k] == l, to: UInt8.self)
        }
        return hit != 0
    }

    /// `body` given the membership test of each row of `x` (by physical row), with the
    /// table and `x`'s buffers held for its duration. No bytes at all: every string is
    /// empty, a member when '' is an item.
    @inline(__always)
    private func withMembership<R>(_ x: StringArray, _ body: ((Int) -> Bool) -> R) -> R {
        let emptyMatches = table[Self.capacity...].contains(0)
        return table.withUnsafeBufferPointer { t in
            x.bytes.withUnsafeBufferPointer { bytes in
                x.offsets.withUnsafeBufferPointer { offs in
                    guard let tp = t.baseAddress, let base = bytes.baseAddress else { return body { _ in emptyMatches } }
                    let total = bytes.count
                    return body { i in Self.contains(tp, items: count, base, total: total, Int(offs[i]), Int(offs[i + 1])) }
                }
            }
        }
    }

    /// Whether each of the first `n` strings of `x` is one of the items.
    package func marks(_ x: StringArray, count n: Int) -> [Bool] {
        if n == 0 { return [] }
        return withMembership(x) { member in
            [Bool].building(capacity: n, placeholder: false) { out, k in
                for i in 0..<n { out[i] = member(i) }
                k = n
            }
        }
    }

    /// The rows (of `selection`, else `0..<n`) whose string is not NULL and is
    /// (`negated`: is not) one of the items.
    package func select(_ x: StringArray, _ validity: Validity?, _ selection: [Int32]?, _ n: Int, negated: Bool) -> [Int32] {
        if n == 0 { return [] }
        return withMembership(x) { member in
            [Int32].building(capacity: n, placeholder: 0) { out, k in
                var m = 0
                for j in 0..<n {
                    let i = selection.map { Int($0[j]) } ?? j
                    out[m] = Int32(truncatingIfNeeded: i)
                    m &+= (member(i) != negated && Kern.valid(validity, i)) ? 1 : 0
                }
                k = m
            }
        }
    }
}

/// Membership in a constant string set, for the IN selection path.
package struct InSetPredicate: BytesPredicate {
    package let set: ConditionalKernels.ConstantSet
    package let negated: Bool
    @inline(__always) package func test(_ p: UnsafeBufferPointer<UInt8>) -> Bool { set.contains(p) != negated }
}

/// Membership in a short list of integers (linear scan).
package struct InSmallList: RowOp1, ValuePredicate {
    package let values: [Int64]
    package let negated: Bool
    @inline(__always) package func test(_ v: Int64) -> Bool {
        var hit = false
        for c in values { hit = hit || c == v }
        return hit != negated
    }
    @inline(__always) package func apply(_ v: Int64) -> (Bool, Bool) { (test(v), false) }
}
/// Membership in a hash set of integers.
package struct InIntSet: RowOp1, ValuePredicate {
    package let values: Set<Int64>
    package let negated: Bool
    @inline(__always) package func test(_ v: Int64) -> Bool { values.contains(v) != negated }
    @inline(__always) package func apply(_ v: Int64) -> (Bool, Bool) { (test(v), false) }
}
