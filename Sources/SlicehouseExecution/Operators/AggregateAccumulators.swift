// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// The per-group state of one aggregate inside a hash aggregate.
///
/// States live in typed arrays indexed by group id. Every method handles a whole
/// batch: `groups[k]` is the group of logical row k and `rows[k]` its physical row
/// in the (flat) input vectors. The operator calls `grow(to:)` before a batch that
/// may refer to new groups.
protocol Accumulator: AnyObject {
    /// Make room for groups `0..<count`; new groups start empty.
    func grow(to count: Int)
    /// Fold raw argument values into the states (`input` is nil for COUNT(*)).
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws
    /// The same for an aggregate with `WITHIN GROUP (ORDER BY ...)` keys (LISTAGG):
    /// `orderKeys` are the key columns, flat like `input`.
    func update(groups: [Int32], rows: [Int32], input: Vector?, orderKeys: [Vector]) throws
    /// Fold partial states (as `partialStates` produced them) into the states.
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws
    /// The state columns of groups `range` (layout: `HashAggregateOperator.partialStateTypes`).
    func partialStates(_ range: Range<Int>) -> [Vector]
    /// The final values of groups `range`.
    func results(_ range: Range<Int>) throws -> Vector
    /// Bytes the states hold (array capacities), for the operator's memory reservation.
    var memoryBytes: Int { get }
    /// Whether `partialStates` of a group folded in with `merge` continue it exactly, so
    /// a spilling aggregate may write a group out and finish it later. False for the
    /// aggregates whose state is not a partial state (DISTINCT, ordered-set).
    var mergeable: Bool { get }
    /// Fold raw argument values given group by group (`GroupRuns`); false when this
    /// accumulator has no such path (the caller then uses `update(groups:rows:input:)`).
    /// Each group's values are folded in their original order, so the states come out
    /// exactly as row by row (floating-point sums too).
    func update(runs: GroupRuns, input: Vector?) throws -> Bool
    /// Fold raw argument values given as a mask of groups over the physical rows
    /// (`GroupMask`, a table of at most `GroupMask.maxGroups` groups); false when this
    /// accumulator has no such path for `input` (the caller then uses the runs or rows).
    /// Only for states that do not depend on the order of the values (exact sums, counts).
    func update(mask: GroupMask, input: Vector?) throws -> Bool
}

extension Accumulator {
    func update(groups: [Int32], rows: [Int32], input: Vector?, orderKeys: [Vector]) throws {
        try update(groups: groups, rows: rows, input: input)
    }
    var mergeable: Bool { true }
    func update(runs: GroupRuns, input: Vector?) throws -> Bool { false }
    func update(mask: GroupMask, input: Vector?) throws -> Bool { false }
}

/// A batch's groups as a mask over its physical rows, for a table of at most `maxGroups`
/// groups (Q1's four): `ids[r]` is the group of physical row r, -1 for a row the batch
/// does not select, and `counts[g]` the rows of group g. A sum then reads its argument in
/// physical order, one pass per group present that the compiler vectorizes (compare,
/// select, add), where the runs (`GroupRuns`) would gather it row by row.
struct GroupMask {
    static let maxGroups = 4
    private(set) var ids: [Int32] = []
    private(set) var counts: [Int64] = []

    /// Groups `0..<counts.count`; those with no row in the batch are skipped by `forEach`.
    var groupCount: Int { counts.count }

    /// Logical row k is physical row `rows[k]` in group `groupIds[k]` (every id below
    /// `groupCount`, at most `maxGroups`; rows distinct and below `physicalCount`).
    mutating func build(groupIds: [Int32], rows: [Int32], physicalCount: Int, groupCount: Int) {
        ids.removeAll(keepingCapacity: true)
        ids.append(contentsOf: repeatElement(-1, count: physicalCount))
        var c0: Int64 = 0, c1: Int64 = 0, c2: Int64 = 0, c3: Int64 = 0
        ids.withUnsafeMutableBufferPointer { out in
            groupIds.withUnsafeBufferPointer { gp in
                rows.withUnsafeBufferPointer { rp in
                    for k in 0..<min(gp.count, rp.count) { out[Int(rp[k])] = gp[k] }
                }
                for g in gp {
                    c0 &+= Self.isEqual(g, 0)
                    c1 &+= Self.isEqual(g, 1)
                    c2 &+= Self.isEqual(g, 2)
                    c3 &+= Self.isEqual(g, 3)
                }
            }
        }
        counts.removeAll(keepingCapacity: true)
        for (g, c) in [c0, c1, c2, c3].enumerated() where g < min(groupCount, Self.maxGroups) { counts.append(c) }
    }

    /// -1 when `a != b`, 0 when equal, computed without a branch (a compare the compiler
    /// would otherwise turn into one: the groups of a batch interleave at random).
    @inline(__always)
    static func differs(_ a: Int32, _ b: Int32) -> Int32 {
        let x = a ^ b
        return (x | (0 &- x)) >> 31
    }

    /// 1 when `a == b`, else 0, without a branch.
    @inline(__always)
    static func isEqual(_ a: Int32, _ b: Int32) -> Int64 { 1 &+ Int64(differs(a, b)) }

    /// `body(group, its rows in the batch)` for every group with rows in it.
    @inline(__always)
    func forEach(_ body: (Int, Int64) -> Void) {
        for (g, n) in counts.enumerated() where n > 0 { body(g, n) }
    }

    /// The sum of `values[r]` over the physical rows r of group `g`.
    @inline(__always)
    func sum(_ values: UnsafeBufferPointer<Int64>, group g: Int) -> Int64 {
        ids.withUnsafeBufferPointer { m in
            let key = Int32(truncatingIfNeeded: g)
            var s: Int64 = 0
            for r in 0..<min(m.count, values.count) { s &+= values[r] & ~Int64(Self.differs(m[r], key)) }
            return s
        }
    }

    /// Whether sums of any of the physical rows of `values` stay within Int64: their
    /// magnitude bound (`Kern.magnitudeBits`) times their number stays within 2^62.
    func sumsFitInt64(_ values: UnsafeBufferPointer<Int64>) -> Bool {
        let n = min(ids.count, values.count)
        let b = Kern.magnitudeBits(UnsafeBufferPointer(rebasing: values.prefix(n)))
        return b + (Int.bitWidth - n.leadingZeroBitCount) <= 62
    }
}

/// The rows of one batch ordered by group, for a table with few groups: run `i` is
/// group `groups[i]` with the physical rows `rows[bounds[i]..<bounds[i + 1]]`, in their
/// original order. Folding a run keeps its group's state in registers: row by row, a
/// batch spread over a few groups updates the same few states again and again, and
/// every update waits for the store of the one before.
struct GroupRuns {
    private(set) var groups: [Int32] = []
    private(set) var bounds: [Int32] = []
    private(set) var rows: [Int32] = []
    /// Scratch: rows per group id, then each group's next position.
    private var next: [Int32] = []

    var count: Int { groups.count }

    /// Order the batch's rows by group (a stable counting sort): logical row k is physical
    /// row `rows[k]` in group `groupIds[k]`, every id below `groupCount`.
    mutating func build(groupIds: [Int32], rows input: [Int32], groupCount: Int) {
        let n = groupIds.count
        next.removeAll(keepingCapacity: true)
        next.append(contentsOf: repeatElement(0, count: groupCount))
        groups.removeAll(keepingCapacity: true)
        bounds.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        rows.append(contentsOf: repeatElement(0, count: n))
        next.withUnsafeMutableBufferPointer { nx in
            groupIds.withUnsafeBufferPointer { gp in
                for k in 0..<n { nx[Int(gp[k])] &+= 1 }
                var at: Int32 = 0
                for g in 0..<groupCount where nx[g] > 0 {
                    let size = nx[g]
                    groups.append(Int32(truncatingIfNeeded: g))
                    bounds.append(at)
                    nx[g] = at
                    at &+= size
                }
                bounds.append(at)
                input.withUnsafeBufferPointer { ip in
                    rows.withUnsafeMutableBufferPointer { out in
                        for k in 0..<n {
                            let g = Int(gp[k])
                            out[Int(nx[g])] = ip[k]
                            nx[g] &+= 1
                        }
                    }
                }
            }
        }
    }

    /// `body(group, rows of the group)` for every run.
    @inline(__always)
    func forEach(_ body: (Int, UnsafeBufferPointer<Int32>) -> Void) {
        groups.withUnsafeBufferPointer { gp in
            bounds.withUnsafeBufferPointer { bp in
                rows.withUnsafeBufferPointer { rp in
                    for i in 0..<gp.count {
                        body(Int(gp[i]), UnsafeBufferPointer(rebasing: rp[Int(bp[i])..<Int(bp[i + 1])]))
                    }
                }
            }
        }
    }
}

/// Non-NULL values among `rows` (physical rows of `v`).
@inline(__always)
func validCount(_ v: Vector, _ rows: UnsafeBufferPointer<Int32>) -> Int64 {
    guard let validity = v.validity else { return Int64(rows.count) }
    return validity.words.withUnsafeBufferPointer { w in
        var n: Int64 = 0
        for r in rows where OperatorKernels.bit(w, Int(r)) { n &+= 1 }
        return n
    }
}

/// `body(physicalRow)` for the rows among `rows` whose value in `v` is not NULL.
@inline(__always)
func forEachValid(_ v: Vector, _ rows: UnsafeBufferPointer<Int32>, _ body: (Int) -> Void) {
    if let validity = v.validity {
        validity.words.withUnsafeBufferPointer { w in
            for r in rows where OperatorKernels.bit(w, Int(r)) { body(Int(r)) }
        }
    } else {
        for r in rows { body(Int(r)) }
    }
}

/// Bytes of an array's storage.
@inline(__always)
func arrayBytes<T>(_ a: [T]) -> Int { a.capacity * MemoryLayout<T>.stride }

/// Runs `body(group, physicalRow)` for every logical row whose value in `v` is not NULL.
@inline(__always)
func forEachValid(_ v: Vector, _ groups: [Int32], _ rows: [Int32], _ body: (Int, Int) -> Void) {
    groups.withUnsafeBufferPointer { g in
        rows.withUnsafeBufferPointer { r in
            let n = g.count
            if let validity = v.validity {
                validity.words.withUnsafeBufferPointer { w in
                    for k in 0..<n {
                        let row = Int(r[k])
                        if OperatorKernels.bit(w, row) { body(Int(g[k]), row) }
                    }
                }
            } else {
                for k in 0..<n { body(Int(g[k]), Int(r[k])) }
            }
        }
    }
}

@inline(__always)
func growArray<T>(_ a: inout [T], to n: Int, _ zero: T) {
    if n > a.count { a.append(contentsOf: repeatElement(zero, count: n - a.count)) }
}

func stateMismatch(_ what: String) -> SQLError {
    SQLError.internalError("unexpected \(what) layout in aggregate")
}

// MARK: - COUNT

/// COUNT(*) and COUNT(x): one BIGINT per group; the partial state is the count.
final class CountAccumulator: Accumulator {
    private let star: Bool
    private let resultType: DataType
    private var counts: [Int64] = []

    init(star: Bool, resultType: DataType) { self.star = star; self.resultType = resultType }

    var memoryBytes: Int { arrayBytes(counts) }

    func grow(to n: Int) { growArray(&counts, to: n, 0) }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        counts.withUnsafeMutableBufferPointer { c in
            if star || input == nil || input?.validity == nil {
                groups.withUnsafeBufferPointer { g in
                    for k in 0..<g.count { c[Int(g[k])] &+= 1 }
                }
            } else if let input {
                forEachValid(input, groups, rows) { g, _ in c[g] &+= 1 }
            }
        }
    }

    func update(mask: GroupMask, input: Vector?) throws -> Bool {
        guard star || input == nil || input?.validity == nil else { return false }
        counts.withUnsafeMutableBufferPointer { c in
            mask.forEach { g, n in c[g] &+= n }
        }
        return true
    }

    func update(runs: GroupRuns, input: Vector?) throws -> Bool {
        counts.withUnsafeMutableBufferPointer { c in
            runs.forEach { g, rows in
                if !star, let input {
                    c[g] &+= validCount(input, rows)
                } else {
                    c[g] &+= Int64(rows.count)
                }
            }
        }
        return true
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        guard states.count == 1, case .int64(let partial) = states[0].data else { throw stateMismatch("COUNT state") }
        counts.withUnsafeMutableBufferPointer { c in
            partial.withUnsafeBufferPointer { p in
                forEachValid(states[0], groups, rows) { g, r in c[g] &+= p[r] }
            }
        }
    }

    func partialStates(_ range: Range<Int>) -> [Vector] {
        [Vector(type: .bigint, data: .int64(Array(counts[range])))]
    }

    func results(_ range: Range<Int>) throws -> Vector {
        Vector(type: resultType, data: .int64(Array(counts[range])))
    }
}

// MARK: - SUM of integers

/// SUM of SMALLINT/INTEGER/BIGINT into a BIGINT, with overflow detection
/// (`bigint out of range`). The partial state is the (nullable) sum.
final class SumInt64Accumulator: Accumulator {
    private let resultType: DataType
    private var sums: [Int64] = []
    private var seen: [Bool] = []

    init(resultType: DataType) { self.resultType = resultType }

    var memoryBytes: Int { arrayBytes(sums) + arrayBytes(seen) }

    func grow(to n: Int) { growArray(&sums, to: n, 0); growArray(&seen, to: n, false) }

    private func add(_ v: Vector, _ groups: [Int32], _ rows: [Int32]) throws {
        guard case .int64(let values) = v.data else { throw stateMismatch("SUM argument") }
        var overflow = false
        sums.withUnsafeMutableBufferPointer { s in
            seen.withUnsafeMutableBufferPointer { sn in
                values.withUnsafeBufferPointer { vp in
                    forEachValid(v, groups, rows) { g, r in
                        let (x, o) = s[g].addingReportingOverflow(vp[r])
                        s[g] = x
                        overflow = overflow || o
                        sn[g] = true
                    }
                }
            }
        }
        if overflow { throw SQLError.overflow(.bigint) }
    }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("SUM argument") }
        try add(input, groups, rows)
    }

    func update(runs: GroupRuns, input: Vector?) throws -> Bool {
        guard let v = input, case .int64(let values) = v.data else { throw stateMismatch("SUM argument") }
        var overflow = false
        sums.withUnsafeMutableBufferPointer { s in
            seen.withUnsafeMutableBufferPointer { sn in
                values.withUnsafeBufferPointer { vp in
                    runs.forEach { g, rows in
                        var acc = s[g], any = false, o = false
                        forEachValid(v, rows) { r in
                            let (x, bad) = acc.addingReportingOverflow(vp[r])
                            acc = x
                            o = o || bad
                            any = true
                        }
                        s[g] = acc
                        if any { sn[g] = true }
                        overflow = overflow || o
                    }
                }
            }
        }
        if overflow { throw SQLError.overflow(.bigint) }
        return true
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        guard states.count == 1 else { throw stateMismatch("SUM state") }
        try add(states[0], groups, rows)
    }

    func partialStates(_ range: Range<Int>) -> [Vector] { [result(range)] }

    func results(_ range: Range<Int>) throws -> Vector { result(range) }

    private func result(_ range: Range<Int>) -> Vector {
        Vector(type: resultType, data: .int64(Array(sums[range])),
               validity: OperatorKernels.validity(from: seen, range))
    }
}

// MARK: - SUM/AVG of exact numbers in 128 bits

/// SUM of DECIMAL (result DECIMAL(38,s)), AVG of integers (result BIGINT, truncated)
/// and AVG of DECIMAL (result DECIMAL(38,s), rounded half away from zero), all
/// accumulated as an Int128 sum plus a count of non-NULL inputs.
///
/// A SUM starts in 64-bit lanes (`narrow`): while every value it is given is held in
/// 64 bits and no group's sum leaves them, a group's state is its sum in `narrowSums`
/// and whether it has seen a value in `seen`, 9 bytes instead of 24, so a table of
/// many groups (TPC-H Q18's order keys) keeps nearly three times as many states in
/// the caches. The first sum that would leave 64 bits or a value held in 128 (partial
/// states' valid values are read as 64-bit ones when they fit: `mergeNarrow`) widens
/// every group to the Int128 sums and counts for good (a group seen counts 1: SUM
/// reads its count only as "some input seen"). A batch whose adds overflowed is
/// first taken back, by subtracting the same values with the same wrapping arithmetic,
/// then added again in 128 bits.
///
/// Partial states: SUM → `[sum DECIMAL(38,s), NULL when no input]`;
/// AVG → `[sum DECIMAL(38,s), count BIGINT]` (never NULL; count 0 means no input).
final class WideSumAccumulator: Accumulator {
    enum Kind { case sum, avgInteger, avgDecimal }
    private let kind: Kind
    private let resultType: DataType
    private let sumType: DataType
    private var sums: [Int128] = []
    private var counts: [Int64] = []
    /// Whether the states are still the 64-bit ones (`narrowSums`, `seen`).
    private(set) var narrow: Bool
    private var narrowSums: [Int64] = []
    private var seen: [Bool] = []

    init(kind: Kind, resultType: DataType, sumType: DataType) {
        self.kind = kind; self.resultType = resultType; self.sumType = sumType
        narrow = kind == .sum
    }

    var memoryBytes: Int { arrayBytes(sums) + arrayBytes(counts) + arrayBytes(narrowSums) + arrayBytes(seen) }

    func grow(to n: Int) {
        if narrow {
            growArray(&narrowSums, to: n, 0); growArray(&seen, to: n, false)
        } else {
            growArray(&sums, to: n, 0); growArray(&counts, to: n, 0)
        }
    }

    /// Leave the 64-bit states for the Int128 ones, for good.
    private func widen() {
        guard narrow else { return }
        sums = narrowSums.map { Int128($0) }
        counts = seen.map { $0 ? 1 : 0 }
        narrowSums = []
        seen = []
        narrow = false
    }

    /// Add the valid `values` (64-bit) at `rows` into the 64-bit sums of `groups`; false,
    /// with every sum as before, when one would leave 64 bits.
    private func addNarrow(_ v: Vector, _ values: [Int64], _ groups: [Int32], _ rows: [Int32]) -> Bool {
        var wrapped: Int64 = 0
        narrowSums.withUnsafeMutableBufferPointer { s in
            seen.withUnsafeMutableBufferPointer { sn in
                values.withUnsafeBufferPointer { vp in
                    forEachValid(v, groups, rows) { g, r in
                        let x = vp[r], a = s[g], sum = a &+ x
                        // Wrapped: both addends of one sign, the sum of the other.
                        wrapped |= (a ^ sum) & (x ^ sum)
                        s[g] = sum
                        sn[g] = true
                    }
                    if wrapped < 0 {
                        // Take the batch back: wrapping adds undo exactly.
                        forEachValid(v, groups, rows) { g, r in s[g] = s[g] &- vp[r] }
                    }
                }
            }
        }
        return wrapped >= 0
    }

    /// Add `v` (int64 or int128 physical) into the sums; `countEach` adds 1 per value.
    private func addValues(_ v: Vector, _ groups: [Int32], _ rows: [Int32], countEach: Bool) throws {
        var overflow = false
        try sums.withUnsafeMutableBufferPointer { s in
            try counts.withUnsafeMutableBufferPointer { c in
                let step: Int64 = countEach ? 1 : 0
                switch v.data {
                case .int64(let values):
                    // |Int64| sums cannot overflow Int128 before 2^63 rows.
                    values.withUnsafeBufferPointer { vp in
                        forEachValid(v, groups, rows) { g, r in
                            s[g] &+= Int128(vp[r])
                            c[g] &+= step
                        }
                    }
                case .int128(let values):
                    values.withUnsafeBufferPointer { vp in
                        forEachValid(v, groups, rows) { g, r in
                            let (x, o) = s[g].addingReportingOverflow(vp[r])
                            s[g] = x
                            overflow = overflow || o
                            c[g] &+= step
                        }
                    }
                default:
                    throw stateMismatch("SUM/AVG argument")
                }
            }
        }
        if overflow { throw SQLError.overflow(resultType) }
    }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("SUM/AVG argument") }
        if narrow {
            if case .int64(let values) = input.data, addNarrow(input, values, groups, rows) { return }
            widen()
        }
        try addValues(input, groups, rows, countEach: true)
    }

    /// The sum of `values` at `rows`, in two accumulators, so that one add-with-carry
    /// chain does not wait on the other.
    @inline(__always)
    static func sum(_ values: UnsafeBufferPointer<Int64>, _ rows: UnsafeBufferPointer<Int32>) -> Int128 {
        var a: Int128 = 0, b: Int128 = 0
        var k = 0
        let n = rows.count
        while k &+ 1 < n {
            a &+= Int128(values[Int(rows[k])])
            b &+= Int128(values[Int(rows[k &+ 1])])
            k &+= 2
        }
        if k < n { a &+= Int128(values[Int(rows[k])]) }
        return a &+ b
    }

    /// Values held in 64 bits without NULLs, whose sums fit 64 bits: one masked pass per group.
    func update(mask: GroupMask, input v: Vector?) throws -> Bool {
        guard let v else { throw stateMismatch("SUM/AVG argument") }
        guard v.validity == nil, !v.isConstant, case .int64(let values) = v.data else { return false }
        return values.withUnsafeBufferPointer { vp in
            guard mask.sumsFitInt64(vp) else { return false }
            if narrow {
                // Every group's new sum first: all of them fit 64 bits, or none is stored.
                var fits = true
                var totals: [(group: Int, sum: Int64)] = []
                mask.forEach { g, _ in
                    let (t, o) = narrowSums[g].addingReportingOverflow(mask.sum(vp, group: g))
                    fits = fits && !o
                    totals.append((g, t))
                }
                if fits {
                    for (g, t) in totals { narrowSums[g] = t; seen[g] = true }
                    return true
                }
                widen()
            }
            sums.withUnsafeMutableBufferPointer { s in
                counts.withUnsafeMutableBufferPointer { c in
                    mask.forEach { g, n in
                        s[g] &+= Int128(mask.sum(vp, group: g))
                        c[g] &+= n
                    }
                }
            }
            return true
        }
    }

    func update(runs: GroupRuns, input v: Vector?) throws -> Bool {
        guard let v else { throw stateMismatch("SUM/AVG argument") }
        if narrow {
            if case .int64(let values) = v.data {
                // Every group's new sum first: all of them fit 64 bits, or none is stored.
                var fits = true
                var totals: [(group: Int, sum: Int64, any: Bool)] = []
                values.withUnsafeBufferPointer { vp in
                    runs.forEach { g, rows in
                        var batch: Int128 = 0
                        if v.validity == nil {
                            batch = Self.sum(vp, rows)
                        } else {
                            forEachValid(v, rows) { r in batch &+= Int128(vp[r]) }
                        }
                        let any = validCount(v, rows) > 0
                        guard let x = Int64(exactly: batch) else { fits = false; return }
                        let (t, o) = narrowSums[g].addingReportingOverflow(x)
                        fits = fits && !o
                        totals.append((g, t, any))
                    }
                }
                if fits {
                    for (g, t, any) in totals {
                        narrowSums[g] = t
                        if any { seen[g] = true }
                    }
                    return true
                }
            }
            widen()
        }
        var overflow = false
        try sums.withUnsafeMutableBufferPointer { s in
            try counts.withUnsafeMutableBufferPointer { c in
                switch v.data {
                case .int64(let values):
                    // |Int64| sums cannot overflow Int128 before 2^63 rows.
                    values.withUnsafeBufferPointer { vp in
                        runs.forEach { g, rows in
                            if v.validity == nil {
                                s[g] &+= Self.sum(vp, rows)
                            } else {
                                var acc = s[g]
                                forEachValid(v, rows) { r in acc &+= Int128(vp[r]) }
                                s[g] = acc
                            }
                            c[g] &+= validCount(v, rows)
                        }
                    }
                case .int128(let values):
                    values.withUnsafeBufferPointer { vp in
                        runs.forEach { g, rows in
                            var acc = s[g], o: UInt8 = 0
                            forEachValid(v, rows) { r in
                                let x = vp[r], sum = acc &+ x
                                // Wrapped: both addends of one sign, the sum of the other.
                                o |= UInt8(truncatingIfNeeded: UInt128(bitPattern: (acc ^ sum) & (x ^ sum)) >> 127)
                                acc = sum
                            }
                            s[g] = acc
                            c[g] &+= validCount(v, rows)
                            overflow = overflow || o != 0
                        }
                    }
                default:
                    throw stateMismatch("SUM/AVG argument")
                }
            }
        }
        if overflow { throw SQLError.overflow(resultType) }
        return true
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        if narrow, states.count == 1, mergeNarrow(states[0], groups, rows) { return }
        widen()
        switch kind {
        case .sum:
            guard states.count == 1 else { throw stateMismatch("SUM state") }
            // A non-NULL partial sum counts as "some input seen".
            try addValues(states[0], groups, rows, countEach: true)
        case .avgInteger, .avgDecimal:
            guard states.count == 2, case .int64(let partialCounts) = states[1].data else {
                throw stateMismatch("AVG state")
            }
            try addValues(states[0], groups, rows, countEach: false)
            counts.withUnsafeMutableBufferPointer { c in
                partialCounts.withUnsafeBufferPointer { p in
                    forEachValid(states[1], groups, rows) { g, r in c[g] &+= p[r] }
                }
            }
        }
    }

    /// Merge partial sums into the 64-bit states (SUM only, `narrow`): false, with every
    /// state as before, when a valid partial sum or a merged sum would leave 64 bits. An
    /// aggregate split in memory merges the states of the table it had first, in every
    /// partition: widening there made each partition's table keep 24 bytes a group, not 9.
    private func mergeNarrow(_ state: Vector, _ groups: [Int32], _ rows: [Int32]) -> Bool {
        switch state.data {
        case .int64(let values):
            return addNarrow(state, values, groups, rows)
        case .int128(let wide):
            // NULL states are never read: only the valid rows are narrowed and checked.
            var fits = true
            var values = [Int64](filled: 0, count: wide.count)
            wide.withUnsafeBufferPointer { w in
                values.withUnsafeMutableBufferPointer { out in
                    forEachValid(state, groups, rows) { _, r in
                        let x = w[r], t = Int64(truncatingIfNeeded: x)
                        if Int128(t) != x { fits = false }
                        out[r] = t
                    }
                }
            }
            return fits && addNarrow(state, values, groups, rows)
        default:
            return false
        }
    }

    func partialStates(_ range: Range<Int>) -> [Vector] {
        if narrow {
            return [Vector(type: sumType, data: .int128(narrowSums[range].map { Int128($0) }),
                           validity: OperatorKernels.validity(from: Array(seen[range])))]
        }
        let sumVector = Vector(type: sumType, data: .int128(Array(sums[range])),
                               validity: kind == .sum ? validity(range) : nil)
        if kind == .sum { return [sumVector] }
        return [sumVector, Vector(type: .bigint, data: .int64(Array(counts[range])))]
    }

    private func validity(_ range: Range<Int>) -> Validity? {
        OperatorKernels.validity(from: counts[range].map { $0 > 0 })
    }

    func results(_ range: Range<Int>) throws -> Vector {
        let n = range.count
        if narrow {
            // Always within 38 digits.
            return Vector(type: resultType, data: .int128(narrowSums[range].map { Int128($0) }),
                          validity: OperatorKernels.validity(from: Array(seen[range])))
        }
        switch kind {
        case .sum:
            let limit = DecimalMath.maxValue(precision: DataType.maxDecimalPrecision)
            for g in range where counts[g] > 0 && (sums[g] > limit || sums[g] < -limit) {
                throw SQLError.overflow(resultType)
            }
            return Vector(type: resultType, data: .int128(Array(sums[range])), validity: validity(range))
        case .avgInteger:
            var out = [Int64](filled: 0, count: n)
            for (k, g) in range.enumerated() where counts[g] > 0 {
                // Truncating division; the mean of 64-bit values fits 64 bits.
                out[k] = Int64(truncatingIfNeeded: sums[g] / Int128(counts[g]))
            }
            return Vector(type: resultType, data: .int64(out), validity: validity(range))
        case .avgDecimal:
            var out = [Int128](filled: 0, count: n)
            for (k, g) in range.enumerated() where counts[g] > 0 {
                let c = Int128(counts[g]), s = sums[g]
                var q = s / c
                let r = s % c
                if r.magnitude * 2 >= c.magnitude { q += s < 0 ? -1 : 1 }
                out[k] = q
            }
            return Vector(type: resultType, data: .int128(out), validity: validity(range))
        }
    }
}

// MARK: - SUM/AVG of floating point

/// SUM and AVG of REAL/DOUBLE PRECISION into DOUBLE PRECISION.
/// Partial states: SUM → `[sum, NULL when no input]`; AVG → `[sum, count BIGINT]`.
final class DoubleSumAccumulator: Accumulator {
    private let isAvg: Bool
    private let resultType: DataType
    private var sums: [Double] = []
    private var counts: [Int64] = []

    init(isAvg: Bool, resultType: DataType) { self.isAvg = isAvg; self.resultType = resultType }

    var memoryBytes: Int { arrayBytes(sums) + arrayBytes(counts) }

    func grow(to n: Int) { growArray(&sums, to: n, 0); growArray(&counts, to: n, 0) }

    private func addValues(_ v: Vector, _ groups: [Int32], _ rows: [Int32], countEach: Bool) throws {
        guard case .double(let values) = v.data else { throw stateMismatch("SUM/AVG argument") }
        let step: Int64 = countEach ? 1 : 0
        sums.withUnsafeMutableBufferPointer { s in
            counts.withUnsafeMutableBufferPointer { c in
                values.withUnsafeBufferPointer { vp in
                    forEachValid(v, groups, rows) { g, r in
                        s[g] += vp[r]
                        c[g] &+= step
                    }
                }
            }
        }
    }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("SUM/AVG argument") }
        try addValues(input, groups, rows, countEach: true)
    }

    func update(runs: GroupRuns, input v: Vector?) throws -> Bool {
        guard let v, case .double(let values) = v.data else { throw stateMismatch("SUM/AVG argument") }
        sums.withUnsafeMutableBufferPointer { s in
            counts.withUnsafeMutableBufferPointer { c in
                values.withUnsafeBufferPointer { vp in
                    runs.forEach { g, rows in
                        // The same additions in the same order as row by row.
                        var acc = s[g]
                        forEachValid(v, rows) { r in acc += vp[r] }
                        s[g] = acc
                        c[g] &+= validCount(v, rows)
                    }
                }
            }
        }
        return true
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        if !isAvg {
            guard states.count == 1 else { throw stateMismatch("SUM state") }
            try addValues(states[0], groups, rows, countEach: true)
            return
        }
        guard states.count == 2, case .int64(let partialCounts) = states[1].data else { throw stateMismatch("AVG state") }
        try addValues(states[0], groups, rows, countEach: false)
        counts.withUnsafeMutableBufferPointer { c in
            partialCounts.withUnsafeBufferPointer { p in
                forEachValid(states[1], groups, rows) { g, r in c[g] &+= p[r] }
            }
        }
    }

    private func validity(_ range: Range<Int>) -> Validity? {
        OperatorKernels.validity(from: counts[range].map { $0 > 0 })
    }

    func partialStates(_ range: Range<Int>) -> [Vector] {
        if !isAvg { return [Vector(type: .double, data: .double(Array(sums[range])), validity: validity(range))] }
        return [Vector(type: .double, data: .double(Array(sums[range]))),
                Vector(type: .bigint, data: .int64(Array(counts[range])))]
    }

    func results(_ range: Range<Int>) throws -> Vector {
        if !isAvg {
            return Vector(type: resultType, data: .double(Array(sums[range])), validity: validity(range))
        }
        var out = [Double](filled: 0, count: range.count)
        for (k, g) in range.enumerated() where counts[g] > 0 { out[k] = sums[g] / Double(counts[g]) }
        return Vector(type: resultType, data: .double(out), validity: validity(range))
    }
}

// MARK: - MIN/MAX of fixed-width values

/// A fixed-width physical type MIN/MAX can keep per group.
protocol MinMaxValue {
    static var zero: Self { get }
    static func values(_ d: VectorData) -> [Self]?
    static func data(_ a: [Self]) -> VectorData
    /// SQL ordering: `a` sorts before `b`.
    static func precedes(_ a: Self, _ b: Self) -> Bool
}

extension Int64: MinMaxValue {
    static var zero: Int64 { 0 }
    static func values(_ d: VectorData) -> [Int64]? { if case .int64(let a) = d { return a }; return nil }
    static func data(_ a: [Int64]) -> VectorData { .int64(a) }
    @inline(__always) static func precedes(_ a: Int64, _ b: Int64) -> Bool { a < b }
}

extension Int128: MinMaxValue {
    static var zero: Int128 { 0 }
    static func values(_ d: VectorData) -> [Int128]? { if case .int128(let a) = d { return a }; return nil }
    static func data(_ a: [Int128]) -> VectorData { .int128(a) }
    @inline(__always) static func precedes(_ a: Int128, _ b: Int128) -> Bool { a < b }
}

extension Double: MinMaxValue {
    static var zero: Double { 0 }
    static func values(_ d: VectorData) -> [Double]? { if case .double(let a) = d { return a }; return nil }
    static func data(_ a: [Double]) -> VectorData { .double(a) }
    /// NaN sorts after every other value, as in PostgreSQL.
    @inline(__always) static func precedes(_ a: Double, _ b: Double) -> Bool { a < b || (b.isNaN && !a.isNaN) }
}

extension Bool: MinMaxValue {
    static var zero: Bool { false }
    static func values(_ d: VectorData) -> [Bool]? { if case .bool(let a) = d { return a }; return nil }
    static func data(_ a: [Bool]) -> VectorData { .bool(a) }
    @inline(__always) static func precedes(_ a: Bool, _ b: Bool) -> Bool { !a && b }
}

/// MIN or MAX over a fixed-width type; the partial state is the (nullable) extreme.
/// The logic lives in this generic struct; the concrete classes below forward to it, so
/// every method is compiled specialised for its type (a generic class called through the
/// `Accumulator` existential would run unspecialised).
struct MinMaxCore<T: MinMaxValue> {
    let isMin: Bool
    let type: DataType
    var values: [T] = []
    var seen: [Bool] = []

    init(isMin: Bool, type: DataType) { self.isMin = isMin; self.type = type }

    var memoryBytes: Int { arrayBytes(values) + arrayBytes(seen) }

    @inline(__always)
    mutating func grow(to n: Int) { growArray(&values, to: n, T.zero); growArray(&seen, to: n, false) }

    @inline(__always)
    mutating func fold(_ v: Vector, _ groups: [Int32], _ rows: [Int32]) throws {
        guard let input = T.values(v.data) else { throw stateMismatch("MIN/MAX argument") }
        let isMin = self.isMin
        values.withUnsafeMutableBufferPointer { cur in
            seen.withUnsafeMutableBufferPointer { sn in
                input.withUnsafeBufferPointer { vp in
                    forEachValid(v, groups, rows) { g, r in
                        let x = vp[r]
                        if !sn[g] || (isMin ? T.precedes(x, cur[g]) : T.precedes(cur[g], x)) {
                            cur[g] = x
                            sn[g] = true
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    mutating func update(_ groups: [Int32], _ rows: [Int32], _ input: Vector?) throws {
        guard let input else { throw stateMismatch("MIN/MAX argument") }
        try fold(input, groups, rows)
    }

    @inline(__always)
    mutating func merge(_ groups: [Int32], _ rows: [Int32], _ states: [Vector]) throws {
        guard states.count == 1 else { throw stateMismatch("MIN/MAX state") }
        try fold(states[0], groups, rows)
    }

    func result(_ range: Range<Int>) -> Vector {
        Vector(type: type, data: T.data(Array(values[range])), validity: OperatorKernels.validity(from: seen, range))
    }
}

final class Int64MinMaxAccumulator: Accumulator {
    private var core: MinMaxCore<Int64>
    init(isMin: Bool, type: DataType) { core = MinMaxCore(isMin: isMin, type: type) }
    var memoryBytes: Int { core.memoryBytes }
    func grow(to n: Int) { core.grow(to: n) }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { try core.merge(groups, rows, states) }
    func partialStates(_ range: Range<Int>) -> [Vector] { [core.result(range)] }
    func results(_ range: Range<Int>) throws -> Vector { core.result(range) }
}

final class Int128MinMaxAccumulator: Accumulator {
    private var core: MinMaxCore<Int128>
    init(isMin: Bool, type: DataType) { core = MinMaxCore(isMin: isMin, type: type) }
    var memoryBytes: Int { core.memoryBytes }
    func grow(to n: Int) { core.grow(to: n) }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { try core.merge(groups, rows, states) }
    func partialStates(_ range: Range<Int>) -> [Vector] { [core.result(range)] }
    func results(_ range: Range<Int>) throws -> Vector { core.result(range) }
}

final class DoubleMinMaxAccumulator: Accumulator {
    private var core: MinMaxCore<Double>
    init(isMin: Bool, type: DataType) { core = MinMaxCore(isMin: isMin, type: type) }
    var memoryBytes: Int { core.memoryBytes }
    func grow(to n: Int) { core.grow(to: n) }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { try core.merge(groups, rows, states) }
    func partialStates(_ range: Range<Int>) -> [Vector] { [core.result(range)] }
    func results(_ range: Range<Int>) throws -> Vector { core.result(range) }
}

final class BoolMinMaxAccumulator: Accumulator {
    private var core: MinMaxCore<Bool>
    init(isMin: Bool, type: DataType) { core = MinMaxCore(isMin: isMin, type: type) }
    var memoryBytes: Int { core.memoryBytes }
    func grow(to n: Int) { core.grow(to: n) }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { try core.merge(groups, rows, states) }
    func partialStates(_ range: Range<Int>) -> [Vector] { [core.result(range)] }
    func results(_ range: Range<Int>) throws -> Vector { core.result(range) }
}

// MARK: - BIT_AND / BIT_OR

/// BIT_AND or BIT_OR of integers: per group the bits so far and whether a value was seen
/// (NULL for a group of NULLs). A partial state is the result itself.
final class BitAccumulator: Accumulator {
    private let isAnd: Bool
    private let type: DataType
    private var values: [Int64] = []
    private var seen: [Bool] = []

    init(isAnd: Bool, type: DataType) { self.isAnd = isAnd; self.type = type }

    var memoryBytes: Int { arrayBytes(values) + arrayBytes(seen) }
    func grow(to n: Int) { growArray(&values, to: n, 0); growArray(&seen, to: n, false) }

    private func fold(_ v: Vector, _ groups: [Int32], _ rows: [Int32]) throws {
        guard case .int64(let input) = v.data else { throw stateMismatch("\(isAnd ? "BIT_AND" : "BIT_OR") argument") }
        let isAnd = self.isAnd
        values.withUnsafeMutableBufferPointer { cur in
            seen.withUnsafeMutableBufferPointer { sn in
                input.withUnsafeBufferPointer { vp in
                    forEachValid(v, groups, rows) { g, r in
                        let x = vp[r]
                        cur[g] = !sn[g] ? x : (isAnd ? cur[g] & x : cur[g] | x)
                        sn[g] = true
                    }
                }
            }
        }
    }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("BIT_AND/BIT_OR argument") }
        try fold(input, groups, rows)
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        guard states.count == 1 else { throw stateMismatch("BIT_AND/BIT_OR state") }
        try fold(states[0], groups, rows)
    }

    func partialStates(_ range: Range<Int>) -> [Vector] { [result(range)] }
    func results(_ range: Range<Int>) throws -> Vector { result(range) }

    private func result(_ range: Range<Int>) -> Vector {
        Vector(type: type, data: .int64(Array(values[range])), validity: OperatorKernels.validity(from: seen, range))
    }
}

// MARK: - MIN/MAX of strings

/// MIN or MAX of CHAR/VARCHAR: each group's current extreme lives in a byte arena
/// (offset + length per group). Within a batch the best candidate per group is
/// tracked as an input row and copied into the arena once at the end of the batch;
/// the arena is compacted when replaced values make up most of it.
final class StringMinMaxAccumulator: Accumulator {
    private let isMin: Bool
    private let type: DataType
    private var arena: [UInt8] = []
    private var starts: [Int] = []
    private var lengths: [Int] = []
    private var seen: [Bool] = []
    private var liveBytes = 0
    /// Per group: the input row holding the best value of the current batch, or -1.
    private var batchBest: [Int32] = []
    private var touched: [Int32] = []

    init(isMin: Bool, type: DataType) { self.isMin = isMin; self.type = type }

    var memoryBytes: Int {
        arrayBytes(arena) + arrayBytes(starts) + arrayBytes(lengths) + arrayBytes(seen) + arrayBytes(batchBest)
            + arrayBytes(touched)
    }

    func grow(to n: Int) {
        growArray(&starts, to: n, 0); growArray(&lengths, to: n, 0)
        growArray(&seen, to: n, false); growArray(&batchBest, to: n, -1)
    }

    private func fold(_ v: Vector, _ groups: [Int32], _ rows: [Int32]) throws {
        guard case .string(let s) = v.data else { throw stateMismatch("MIN/MAX argument") }
        let isMin = self.isMin
        var touched = self.touched
        self.touched = []
        defer { self.touched = touched }
        touched.removeAll(keepingCapacity: true)
        s.offsets.withUnsafeBufferPointer { off in
            s.bytes.withUnsafeBufferPointer { inBytes in
                arena.withUnsafeBufferPointer { ar in
                    starts.withUnsafeBufferPointer { st in
                        lengths.withUnsafeBufferPointer { ln in
                            seen.withUnsafeBufferPointer { sn in
                                batchBest.withUnsafeMutableBufferPointer { best in
                                    let inBase = inBytes.baseAddress, arBase = ar.baseAddress
                                    forEachValid(v, groups, rows) { g, r in
                                        let xs = Int(off[r]), xl = Int(off[r + 1]) - xs
                                        let b = Int(best[g])
                                        let c: Int
                                        if b >= 0 {
                                            let bs = Int(off[b]), bl = Int(off[b + 1]) - bs
                                            c = compareBytes(inBase.map { $0 + xs }, xl, inBase.map { $0 + bs }, bl)
                                        } else if sn[g] {
                                            c = compareBytes(inBase.map { $0 + xs }, xl, arBase.map { $0 + st[g] }, ln[g])
                                        } else {
                                            best[g] = Int32(truncatingIfNeeded: r)
                                            touched.append(Int32(truncatingIfNeeded: g))
                                            return
                                        }
                                        if isMin ? c < 0 : c > 0 {
                                            if b < 0 { touched.append(Int32(truncatingIfNeeded: g)) }
                                            best[g] = Int32(truncatingIfNeeded: r)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Copy the batch winners into the arena.
        for g32 in touched {
            let g = Int(g32)
            let r = Int(batchBest[g])
            batchBest[g] = -1
            let xs = Int(s.offsets[r]), xe = Int(s.offsets[r + 1])
            if seen[g] { liveBytes -= lengths[g] }
            starts[g] = arena.count
            lengths[g] = xe - xs
            liveBytes += xe - xs
            seen[g] = true
            s.bytes.withUnsafeBufferPointer { arena.append(contentsOf: UnsafeBufferPointer(rebasing: $0[xs..<xe])) }
        }
        if arena.count > 2 * liveBytes + (1 << 20) { compact() }
    }

    private func compact() {
        var fresh: [UInt8] = []
        fresh.reserveCapacity(liveBytes)
        arena.withUnsafeBufferPointer { ar in
            for g in 0..<starts.count where seen[g] {
                let st = starts[g]
                starts[g] = fresh.count
                fresh.append(contentsOf: UnsafeBufferPointer(rebasing: ar[st..<(st + lengths[g])]))
            }
        }
        arena = fresh
    }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("MIN/MAX argument") }
        try fold(input, groups, rows)
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        guard states.count == 1 else { throw stateMismatch("MIN/MAX state") }
        try fold(states[0], groups, rows)
    }

    func partialStates(_ range: Range<Int>) -> [Vector] { [result(range)] }

    func results(_ range: Range<Int>) throws -> Vector { result(range) }

    private func result(_ range: Range<Int>) -> Vector {
        var out = StringArray(reservingCount: range.count, bytes: 0)
        arena.withUnsafeBufferPointer { ar in
            for g in range {
                if seen[g] {
                    out.append(bytes: UnsafeBufferPointer(rebasing: ar[starts[g]..<(starts[g] + lengths[g])]))
                } else {
                    out.appendEmpty()
                }
            }
        }
        return Vector(type: type, data: .string(out), validity: OperatorKernels.validity(from: seen, range))
    }
}

// MARK: - DISTINCT

/// `f(DISTINCT x)`: a hash set of (group, value) pairs in front of the plain
/// accumulator; only the first occurrence of a value in a group reaches it.
/// Single-phase only (the set is not a mergeable partial state), so a spilling aggregate
/// with one keeps its groups in memory (`HashAggregateOperator`).
final class DistinctAccumulator: Accumulator {
    private let inner: Accumulator
    private let seenPairs: GroupTable
    private var hashes: [UInt64] = []
    private var pairIds: [Int32] = []
    private var identityCache: [Int32] = []

    init(inner: Accumulator, argumentType: DataType) {
        self.inner = inner
        self.seenPairs = GroupTable(keyTypes: [.bigint, argumentType])
    }

    func grow(to n: Int) { inner.grow(to: n) }

    var memoryBytes: Int { inner.memoryBytes + seenPairs.memoryBytes + arrayBytes(hashes) + arrayBytes(pairIds) }
    var mergeable: Bool { false }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("DISTINCT argument") }
        let n = groups.count
        if n == 0 { return }
        let groupVector = Vector(type: .bigint, data: .int64(groups.map { Int64($0) }))
        let values = OperatorKernels.gather(input, rows)
        // SUPER values equal in content are one value (`SuperJSON.equalityForms`).
        let keys = [groupVector, values.type == .superType ? SuperJSON.equalityForms(values) : values]
        let local = OperatorKernels.identity(n, cache: &identityCache)
        KeyHashing.hash(keys, rows: local, into: &hashes)
        let firsts = try seenPairs.findOrInsert(keys, rows: local, hashes: hashes, insert: true, groupIds: &pairIds)
        if firsts.isEmpty { return }
        if firsts.count == n {
            try inner.update(groups: groups, rows: rows, input: input)
        } else {
            try inner.update(groups: firsts.map { groups[Int($0)] }, rows: firsts.map { rows[Int($0)] }, input: input)
        }
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {
        throw SQLError.unsupported("merging DISTINCT aggregate states")
    }

    func partialStates(_ range: Range<Int>) -> [Vector] { inner.partialStates(range) }

    func results(_ range: Range<Int>) throws -> Vector { try inner.results(range) }
}

// MARK: - Untyped NULL argument

/// MIN/MAX of an untyped NULL (`MAX(NULL)`): every value is NULL, so is the result.
final class AllNullAccumulator: Accumulator {
    private let type: DataType
    private var groups = 0
    init(type: DataType) { self.type = type }
    var memoryBytes: Int { 0 }
    func grow(to n: Int) { groups = max(groups, n) }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {}
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws {}
    func partialStates(_ range: Range<Int>) -> [Vector] { [Vector.nulls(type, count: range.count)] }
    func results(_ range: Range<Int>) throws -> Vector { Vector.nulls(type, count: range.count) }
}

// MARK: - Factory

enum AccumulatorFactory {
    /// The accumulator for `agg` in `mode`, after checking its types against
    /// `AggregateFunction.resolve`.
    static func make(_ agg: BoundAggregate, mode: AggregateMode) throws -> Accumulator {
        if agg.function == .countStar { return CountAccumulator(star: true, resultType: agg.resultType) }
        guard let argType = agg.argumentType else {
            throw SQLError.internalError("aggregate \(agg.function.rawValue) without an argument type")
        }
        if argType == .unknown && (agg.function == .min || agg.function == .max) {
            return AllNullAccumulator(type: agg.resultType)
        }
        switch agg.function {
        case .percentileCont, .percentileDisc, .listagg:
            guard mode == .single else {
                throw SQLError.unsupported("\(agg.function.sqlName) in a two-phase aggregation")
            }
            return try makeOrderedSet(agg, argType: argType)
        case .approximateCountDistinct:
            guard agg.resultType == .bigint else {
                throw SQLError.internalError("APPROXIMATE COUNT(DISTINCT) planned as \(agg.resultType)")
            }
            return ApproximateCountDistinctAccumulator()
        case .hllCreateSketch:
            return ApproximateCountDistinctAccumulator(output: .sketch)
        case .hllCombine:
            return ApproximateCountDistinctAccumulator(input: .sketches, output: .sketch)
        default:
            break
        }
        let resolved = try AggregateFunction.resolve(name: agg.function.rawValue, argTypes: [argType],
                                                     distinct: agg.distinct, star: false)
        guard resolved.result.physical == agg.resultType.physical else {
            throw SQLError.internalError("aggregate \(agg.function.rawValue)(\(argType)) planned as \(agg.resultType)")
        }
        let acc: Accumulator
        switch agg.function {
        case .countStar, .count:
            acc = CountAccumulator(star: false, resultType: agg.resultType)
        case .sum, .avg:
            let isAvg = agg.function == .avg
            if argType.isFloat {
                acc = DoubleSumAccumulator(isAvg: isAvg, resultType: agg.resultType)
            } else if argType.isInteger && !isAvg {
                acc = SumInt64Accumulator(resultType: agg.resultType)
            } else {
                let kind: WideSumAccumulator.Kind = !isAvg ? .sum : (argType.isInteger ? .avgInteger : .avgDecimal)
                let sumType = DataType.decimal(precision: DataType.maxDecimalPrecision, scale: argType.scale)
                acc = WideSumAccumulator(kind: kind, resultType: agg.resultType, sumType: isAvg ? sumType : agg.resultType)
            }
        case .percentileCont, .percentileDisc, .listagg, .approximateCountDistinct, .hllCreateSketch, .hllCombine:
            throw SQLError.internalError("aggregate \(agg.function.rawValue) reached the plain accumulators")
        case .min, .max:
            let isMin = agg.function == .min
            switch argType.physical {
            case .int64: acc = Int64MinMaxAccumulator(isMin: isMin, type: argType)
            case .int128: acc = Int128MinMaxAccumulator(isMin: isMin, type: argType)
            case .double: acc = DoubleMinMaxAccumulator(isMin: isMin, type: argType)
            case .bool: acc = BoolMinMaxAccumulator(isMin: isMin, type: argType)
            case .string: acc = StringMinMaxAccumulator(isMin: isMin, type: argType)
            }
            // MIN/MAX(DISTINCT x) = MIN/MAX(x).
            return acc
        case .bitAnd, .bitOr:
            guard argType.physical == .int64 else {
                throw SQLError.internalError("\(agg.function.sqlName) of \(argType)")
            }
            // Duplicates change neither AND nor OR: BIT_AND/BIT_OR(DISTINCT x) = BIT_AND/BIT_OR(x).
            return BitAccumulator(isAnd: agg.function == .bitAnd, type: agg.resultType)
        }
        guard agg.distinct else { return acc }
        guard mode == .single else {
            throw SQLError.unsupported("\(agg.function.rawValue.uppercased())(DISTINCT ...) in a two-phase aggregation")
        }
        return DistinctAccumulator(inner: acc, argumentType: argType)
    }

    /// PERCENTILE_CONT/DISC and LISTAGG, after checking the planned types.
    private static func makeOrderedSet(_ agg: BoundAggregate, argType: DataType) throws -> Accumulator {
        if agg.function == .listagg {
            guard argType.isString, agg.resultType == AggregateFunction.listaggResultType else {
                throw SQLError.internalError("LISTAGG(\(argType)) planned as \(agg.resultType)")
            }
            return ListAggAccumulator(distinct: agg.distinct, delimiter: agg.parameters.delimiter, orderBy: agg.orderBy,
                                      resultType: agg.resultType)
        }
        let continuous = agg.function == .percentileCont
        let expected = try AggregateFunction.percentileResultType(name: agg.function.sqlName, argType: argType,
                                                                  continuous: continuous)
        guard expected == agg.resultType, agg.parameters.fractionScale >= 0, agg.parameters.fractionScale <= 18,
              agg.parameters.fractionNumerator >= 0,
              Int128(agg.parameters.fractionNumerator) <= DecimalMath.pow10[agg.parameters.fractionScale] else {
            throw SQLError.internalError("\(agg.function.sqlName)(\(argType)) planned as \(agg.resultType)")
        }
        switch argType.physical {
        case .int64:
            return Int64PercentileAccumulator(PercentileCore(continuous: continuous, parameters: agg.parameters,
                                                             inputType: argType, resultType: agg.resultType))
        case .int128:
            return Int128PercentileAccumulator(PercentileCore(continuous: continuous, parameters: agg.parameters,
                                                              inputType: argType, resultType: agg.resultType))
        case .double:
            return DoublePercentileAccumulator(PercentileCore(continuous: continuous, parameters: agg.parameters,
                                                              inputType: argType, resultType: agg.resultType))
        case .bool, .string:
            throw SQLError.internalError("\(agg.function.sqlName) of \(argType)")
        }
    }
}
