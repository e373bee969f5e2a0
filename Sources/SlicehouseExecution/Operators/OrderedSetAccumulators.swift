// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

// Accumulators of the aggregates that are not a running value:
// PERCENTILE_CONT / PERCENTILE_DISC (MEDIAN), LISTAGG, and APPROXIMATE COUNT(DISTINCT).
//
// The ordered-set ones keep every non-NULL input of every group (in flat typed arrays
// tagged with the group id) and order them when results are asked for; they run in
// `.single` mode only (the planner brings each group's rows to one slice first).
// APPROXIMATE COUNT(DISTINCT) keeps mergeable HyperLogLog states and runs in any mode.

// MARK: - PERCENTILE_CONT / PERCENTILE_DISC

/// A fixed-width type a percentile can be computed over.
protocol PercentileValue: MinMaxValue {
    /// The scaled integer (integers, decimals, dates, timestamps); unused for doubles.
    static func exact(_ x: Self) -> Int128
    static func real(_ x: Self) -> Double
}

extension Int64: PercentileValue {
    @inline(__always) static func exact(_ x: Int64) -> Int128 { Int128(x) }
    @inline(__always) static func real(_ x: Int64) -> Double { Double(x) }
}

extension Int128: PercentileValue {
    @inline(__always) static func exact(_ x: Int128) -> Int128 { x }
    @inline(__always) static func real(_ x: Int128) -> Double { Double(x) }
}

extension Double: PercentileValue {
    @inline(__always) static func exact(_ x: Double) -> Int128 { 0 }
    @inline(__always) static func real(_ x: Double) -> Double { x }
}

/// PERCENTILE_CONT (`continuous`) or PERCENTILE_DISC of one physical type.
///
/// Sink: the group id and value of every non-NULL input row are appended to two flat
/// arrays. Results: the values are bucketed by group (a counting sort); within a group's
/// run only the one or two ranks needed are found by selection (`OrderStatistics`),
/// in linear time, not by sorting. With N values in a group and the percentile P:
/// - CONT: RN = 1 + P·(N − 1); the result interpolates linearly between the values at
///   rows floor(RN) and ceil(RN) (`DESC` reads the run backwards, i.e. P becomes 1 − P).
///   Exact types compute exactly in scaled integers (P is a decimal fraction), rounded
///   half away from zero to the result's scale; dates and timestamps round down to a day
///   or a microsecond; doubles interpolate in double precision.
/// - DISC: the value at row max(1, ceil(P·N)) of the run, in the WITHIN GROUP order.
/// Groups without a non-NULL value give NULL.
struct PercentileCore<T: PercentileValue> {
    let continuous: Bool
    let parameters: AggregateParameters
    let inputType: DataType
    let resultType: DataType
    private var groupOf: [Int32] = []
    private var values: [T] = []
    private var groupCount = 0
    // Set by `prepare()`: values bucketed by group, and each group's start.
    private var buckets: [T] = []
    private var starts: [Int] = []
    private var prepared = false

    init(continuous: Bool, parameters: AggregateParameters, inputType: DataType, resultType: DataType) {
        self.continuous = continuous; self.parameters = parameters
        self.inputType = inputType; self.resultType = resultType
    }

    mutating func grow(to n: Int) { groupCount = max(groupCount, n) }

    var memoryBytes: Int { arrayBytes(groupOf) + arrayBytes(values) + arrayBytes(buckets) + arrayBytes(starts) }

    mutating func update(_ groups: [Int32], _ rows: [Int32], _ input: Vector?) throws {
        guard let input, let source = T.values(input.data) else { throw stateMismatch("percentile argument") }
        if prepared { throw SQLError.internalError("percentile input after its results") }
        var g = groupOf, v = values
        groupOf = []; values = []
        defer { groupOf = g; values = v }
        source.withUnsafeBufferPointer { sp in
            forEachValid(input, groups, rows) { group, row in
                g.append(Int32(truncatingIfNeeded: group))
                v.append(sp[row])
            }
        }
    }

    /// Counting sort by group.
    private mutating func prepare() {
        prepared = true
        var counts = [Int](filled: 0, count: groupCount + 1)
        for g in groupOf { counts[Int(g) + 1] += 1 }
        for i in 0..<groupCount { counts[i + 1] += counts[i] }
        starts = counts
        var out = [T](filled: T.zero, count: values.count)
        var next = counts
        groupOf.withUnsafeBufferPointer { gp in
            values.withUnsafeBufferPointer { vp in
                out.withUnsafeMutableBufferPointer { op in
                    for k in 0..<gp.count {
                        let g = Int(gp[k])
                        op[next[g]] = vp[k]
                        next[g] += 1
                    }
                }
            }
        }
        buckets = out
        groupOf = []
        values = []
    }

    mutating func results(_ range: Range<Int>) throws -> Vector {
        if !prepared { prepare() }
        var valid = [Bool](filled: false, count: range.count)
        let denominator = DecimalMath.pow10[parameters.fractionScale]
        let p = Int128(parameters.fractionNumerator)
        let data: VectorData
        if !continuous {
            var out = [T](filled: T.zero, count: range.count)
            for (k, g) in range.enumerated() {
                let start = starts[g], n = starts[g + 1] - start
                if n == 0 { continue }
                // j = max(1, ceil(P·N)), 1-based in the WITHIN GROUP order.
                let pn = p * Int128(n)
                let j = max(1, Int((pn + denominator - 1) / denominator))
                out[k] = rank(start, n, parameters.descending ? n - j : j - 1, andNext: false).0
                valid[k] = true
            }
            data = T.data(out)
        } else {
            // RN - 1 = P'·(N - 1) = q + r / 10^scale, P' = P ascending, 1 - P descending.
            let pp = parameters.descending ? denominator - p : p
            if resultType.physical == .double {
                var out = [Double](filled: 0, count: range.count)
                for (k, g) in range.enumerated() {
                    let start = starts[g], n = starts[g + 1] - start
                    if n == 0 { continue }
                    let t = pp * Int128(n - 1)
                    let q = Int(t / denominator), r = t % denominator
                    let (a, b) = rank(start, n, q, andNext: r != 0)
                    let lo = T.real(a)
                    out[k] = r == 0 ? lo : lo + (T.real(b) - lo) * (Double(r) / Double(denominator))
                    valid[k] = true
                }
                data = .double(out)
            } else {
                let scaleUp = max(0, resultType.scale - inputType.scale)
                let factor = DecimalMath.pow10[scaleUp]
                let roundsDown = inputType.isTemporal
                let limit = resultType.isDecimal ? DecimalMath.maxValue(precision: resultType.precision) : Int128(Int64.max)
                var out = [Int128](filled: 0, count: range.count)
                for (k, g) in range.enumerated() {
                    let start = starts[g], n = starts[g + 1] - start
                    if n == 0 { continue }
                    let t = pp * Int128(n - 1)
                    let q = Int(t / denominator), r = t % denominator
                    let (a, b) = rank(start, n, q, andNext: r != 0)
                    let lo = T.exact(a)
                    let (base, overflow) = lo.multipliedReportingOverflow(by: factor)
                    if overflow { throw SQLError.overflow(resultType) }
                    var value = base
                    if r != 0 {
                        let hi = T.exact(b)
                        value = try Self.interpolate(base, hi, lo, factor, r, denominator, roundsDown: roundsDown, resultType)
                    }
                    guard value <= limit && value >= -limit else { throw SQLError.overflow(resultType) }
                    out[k] = value
                    valid[k] = true
                }
                data = resultType.physical == .int128 ? .int128(out) : .int64(out.map { Int64(truncatingIfNeeded: $0) })
            }
        }
        return Vector(type: resultType, data: data, validity: OperatorKernels.validity(from: valid))
    }

    /// The value of rank `k` (0-based, ascending) among the `n` values of the bucket at
    /// `start`, and with `andNext` the value of rank `k + 1` (else the same value again).
    /// Reorders the bucket.
    private mutating func rank(_ start: Int, _ n: Int, _ k: Int, andNext: Bool) -> (T, T) {
        buckets.withUnsafeMutableBufferPointer { all in
            let run = UnsafeMutableBufferPointer(rebasing: all[start..<(start + n)])
            OrderStatistics.select(run, k, by: T.precedes)
            let value = run[k]
            guard andNext, k + 1 < n else { return (value, value) }
            // Everything after position k ranks at or above it: the next rank is their minimum.
            var next = run[k + 1]
            for i in (k + 2)..<n where T.precedes(run[i], next) { next = run[i] }
            return (value, next)
        }
    }

    /// base + (hi − lo)·factor·r / denominator (base = lo·factor, hi ≥ lo), rounded half
    /// away from zero, or down for dates and timestamps. Falls back to double precision
    /// for the fraction when the exact product would not fit 128 bits.
    private static func interpolate(_ base: Int128, _ hi: Int128, _ lo: Int128, _ factor: Int128, _ r: Int128,
                                    _ denominator: Int128, roundsDown: Bool, _ resultType: DataType) throws -> Int128 {
        let (diff, o1) = hi.subtractingReportingOverflow(lo)
        if o1 { throw SQLError.overflow(resultType) }
        let whole: Int128
        // The fraction of the result's last unit, in [0, 1), against one half: -1, 0, 1.
        let versusHalf: Int
        let (scaled, o2) = diff.multipliedReportingOverflow(by: factor)
        let (product, o3) = scaled.multipliedReportingOverflow(by: r)
        if !o2 && !o3 {
            whole = product / denominator
            let twice = (product % denominator) * 2  // < 2·10^18
            versusHalf = twice < denominator ? -1 : (twice == denominator ? 0 : 1)
        } else {
            let d = Double(diff) * Double(factor) * (Double(r) / Double(denominator))
            guard d.isFinite, d < 1.0e38 else { throw SQLError.overflow(resultType) }
            let w = d.rounded(.down)
            whole = Int128(w)
            versusHalf = d - w < 0.5 ? -1 : (d - w == 0.5 ? 0 : 1)
        }
        let (value, o4) = base.addingReportingOverflow(whole)
        if o4 { throw SQLError.overflow(resultType) }
        if roundsDown { return value }
        // value + fraction, rounded half away from zero (value + fraction < 0 iff value < 0).
        if value >= 0 { return versusHalf >= 0 ? value + 1 : value }
        return versusHalf > 0 ? value + 1 : value
    }
}

/// Selection of one order statistic (introselect).
enum OrderStatistics {
    /// Reorders `a` so that `a[k]` holds the value of rank `k` under `precedes` (a strict
    /// weak order), everything before it not above it and everything after not below.
    /// Quickselect with median-of-three pivots (linear on average); after 2·log2(n) + 4
    /// partitioning rounds the remaining range is sorted, so the worst case stays O(n log n).
    @inline(__always)
    static func select<T>(_ a: UnsafeMutableBufferPointer<T>, _ k: Int, by precedes: (T, T) -> Bool) {
        var lo = 0, hi = a.count - 1
        guard k >= lo && k <= hi else { return }
        var budget = 2 * (Int.bitWidth - a.count.leadingZeroBitCount) + 4
        while hi - lo > 24 {
            if budget == 0 {
                var rest = UnsafeMutableBufferPointer(rebasing: a[lo...hi])
                rest.sort(by: precedes)
                return
            }
            budget -= 1
            let mid = lo + (hi - lo) / 2
            if precedes(a[mid], a[lo]) { a.swapAt(mid, lo) }
            if precedes(a[hi], a[lo]) { a.swapAt(hi, lo) }
            if precedes(a[hi], a[mid]) { a.swapAt(hi, mid) }
            let pivot = a[mid]
            var i = lo, j = hi
            // Hoare partition: stops on values equal to the pivot, so runs of duplicates split evenly.
            while i <= j {
                while precedes(a[i], pivot) { i += 1 }
                while precedes(pivot, a[j]) { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // a[lo...j] ≤ pivot, a[i...hi] ≥ pivot, anything between equals the pivot.
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                return
            }
        }
        // Insertion sort of the small remainder.
        if hi > lo {
            for x in (lo + 1)...hi {
                let v = a[x]
                var y = x
                while y > lo && precedes(v, a[y - 1]) {
                    a[y] = a[y - 1]
                    y -= 1
                }
                a[y] = v
            }
        }
    }
}

final class Int64PercentileAccumulator: Accumulator {
    private var core: PercentileCore<Int64>
    init(_ core: PercentileCore<Int64>) { self.core = core }
    func grow(to n: Int) { core.grow(to: n) }
    var memoryBytes: Int { core.memoryBytes }
    var mergeable: Bool { false }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { throw singlePhaseOnly("PERCENTILE") }
    func partialStates(_ range: Range<Int>) -> [Vector] { [] }
    func results(_ range: Range<Int>) throws -> Vector { try core.results(range) }
}

final class Int128PercentileAccumulator: Accumulator {
    private var core: PercentileCore<Int128>
    init(_ core: PercentileCore<Int128>) { self.core = core }
    func grow(to n: Int) { core.grow(to: n) }
    var memoryBytes: Int { core.memoryBytes }
    var mergeable: Bool { false }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { throw singlePhaseOnly("PERCENTILE") }
    func partialStates(_ range: Range<Int>) -> [Vector] { [] }
    func results(_ range: Range<Int>) throws -> Vector { try core.results(range) }
}

final class DoublePercentileAccumulator: Accumulator {
    private var core: PercentileCore<Double>
    init(_ core: PercentileCore<Double>) { self.core = core }
    func grow(to n: Int) { core.grow(to: n) }
    var memoryBytes: Int { core.memoryBytes }
    var mergeable: Bool { false }
    func update(groups: [Int32], rows: [Int32], input: Vector?) throws { try core.update(groups, rows, input) }
    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { throw singlePhaseOnly("PERCENTILE") }
    func partialStates(_ range: Range<Int>) -> [Vector] { [] }
    func results(_ range: Range<Int>) throws -> Vector { try core.results(range) }
}

private func singlePhaseOnly(_ name: String) -> SQLError {
    SQLError.internalError("\(name) has no partial state (it runs in one phase)")
}

// MARK: - LISTAGG

/// `LISTAGG([DISTINCT] x, delimiter) [WITHIN GROUP (ORDER BY keys)]`, as Redshift:
/// NULLs and empty strings are skipped; DISTINCT ignores trailing blanks (`'a'` and
/// `'a '` are one value, the first one seen is kept); a group without values gives NULL;
/// a result longer than 65,535 bytes is an error (`Result size exceeds LISTAGG limit`),
/// raised as soon as a group's values add up to more.
///
/// Sink: per kept row its group, its bytes (in one arena) and its ORDER BY key values
/// (appended to flat key vectors). Results: one stable sort of the kept rows by (group,
/// keys...) (`RowSorter`), then each group's bytes are joined. Without ORDER BY the
/// values keep the order they arrived in.
final class ListAggAccumulator: Accumulator {
    private let distinct: Bool
    private let delimiter: [UInt8]
    private let orderBy: [AggregateOrderKey]
    private let resultType: DataType
    private let limit = AggregateFunction.listaggLimit

    private var groupOf: [Int64] = []
    private var arena: [UInt8] = []
    private var starts: [Int] = []
    private var lengths: [Int32] = []
    private var keys: [Vector]
    /// Per group: bytes of the result so far (values and delimiters).
    private var resultBytes: [Int] = []
    private var seenPairs: GroupTable?
    private var hashes: [UInt64] = []
    private var pairIds: [Int32] = []
    private var identityCache: [Int32] = []
    // Set on the first `results`: kept rows in (group, keys) order, each group's start.
    private var order: [Int32] = []
    private var groupStarts: [Int] = []
    private var prepared = false

    init(distinct: Bool, delimiter: String, orderBy: [AggregateOrderKey], resultType: DataType) {
        self.distinct = distinct
        self.delimiter = Array(delimiter.utf8)
        self.orderBy = orderBy
        self.resultType = resultType
        self.keys = orderBy.map { Vector(type: $0.type) }
        if distinct { seenPairs = GroupTable(keyTypes: [.bigint, .text]) }
    }

    func grow(to n: Int) { growArray(&resultBytes, to: n, 0) }

    var memoryBytes: Int {
        arrayBytes(groupOf) + arrayBytes(arena) + arrayBytes(starts) + arrayBytes(lengths) + arrayBytes(resultBytes)
            + keys.reduce(0) { $0 + $1.memoryBytes } + (seenPairs?.memoryBytes ?? 0) + arrayBytes(order)
            + arrayBytes(groupStarts)
    }
    var mergeable: Bool { false }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        try update(groups: groups, rows: rows, input: input, orderKeys: [])
    }

    func update(groups: [Int32], rows: [Int32], input: Vector?, orderKeys: [Vector]) throws {
        guard let input, case .string(let s) = input.data, orderKeys.count == orderBy.count else {
            throw stateMismatch("LISTAGG argument")
        }
        if prepared { throw SQLError.internalError("LISTAGG input after its results") }
        var kept = nonEmptyRows(input, s, rows)
        if distinct && !kept.isEmpty { kept = try firstOccurrences(kept, groups, rows, s) }
        if kept.isEmpty { return }
        // Append into locals (no per-row access to class properties).
        var groupOf = self.groupOf, arena = self.arena, starts = self.starts
        var lengths = self.lengths, resultBytes = self.resultBytes
        self.groupOf = []; self.arena = []; self.starts = []; self.lengths = []; self.resultBytes = []
        defer {
            self.groupOf = groupOf; self.arena = arena; self.starts = starts
            self.lengths = lengths; self.resultBytes = resultBytes
        }
        let delimiterCount = delimiter.count, limit = self.limit
        var overflow = false
        var keptRows: [Int32] = []
        keptRows.reserveCapacity(kept.count)
        s.bytes.withUnsafeBufferPointer { b in
            s.offsets.withUnsafeBufferPointer { off in
                for k in kept {
                    let g = Int(groups[Int(k)]), r = rows[Int(k)]
                    keptRows.append(r)
                    let st = Int(off[Int(r)]), len = Int(off[Int(r) + 1]) - st
                    groupOf.append(Int64(g))
                    starts.append(arena.count)
                    lengths.append(Int32(truncatingIfNeeded: len))
                    arena.append(contentsOf: UnsafeBufferPointer(rebasing: b[st..<(st + len)]))
                    resultBytes[g] += (resultBytes[g] > 0 ? delimiterCount : 0) + len
                    if resultBytes[g] > limit { overflow = true }
                }
            }
        }
        if overflow { throw Self.limitError() }
        for j in 0..<keys.count {
            try OperatorKernels.append(&keys[j], orderKeys[j], rows: keptRows, count: keptRows.count)
        }
    }

    /// Logical rows `k` whose value is not NULL and not empty.
    private func nonEmptyRows(_ input: Vector, _ s: StringArray, _ rows: [Int32]) -> [Int32] {
        var kept: [Int32] = []
        kept.reserveCapacity(rows.count)
        let words = input.validity?.words ?? []
        let hasNulls = input.validity != nil
        s.offsets.withUnsafeBufferPointer { off in
            words.withUnsafeBufferPointer { w in
                rows.withUnsafeBufferPointer { rp in
                    for k in 0..<rp.count {
                        let r = Int(rp[k])
                        if off[r + 1] > off[r] && (!hasNulls || OperatorKernels.bit(w, r)) {
                            kept.append(Int32(truncatingIfNeeded: k))
                        }
                    }
                }
            }
        }
        return kept
    }

    /// The rows of `kept` whose (group, value without trailing blanks) was not seen before.
    private func firstOccurrences(_ kept: [Int32], _ groups: [Int32], _ rows: [Int32], _ s: StringArray) throws -> [Int32] {
        guard let seenPairs else { return kept }
        var trimmed = StringArray(reservingCount: kept.count, bytes: 0)
        s.bytes.withUnsafeBufferPointer { b in
            for k in kept {
                let r = Int(rows[Int(k)])
                let st = Int(s.offsets[r])
                var en = Int(s.offsets[r + 1])
                while en > st && b[en - 1] == 32 { en -= 1 }
                trimmed.append(bytes: UnsafeBufferPointer(rebasing: b[st..<en]))
            }
        }
        let keyColumns = [Vector(type: .bigint, data: .int64(kept.map { Int64(groups[Int($0)]) })),
                          Vector(type: .text, data: .string(trimmed))]
        let local = OperatorKernels.identity(kept.count, cache: &identityCache)
        KeyHashing.hash(keyColumns, rows: local, into: &hashes)
        let firsts = try seenPairs.findOrInsert(keyColumns, rows: local, hashes: hashes, insert: true, groupIds: &pairIds)
        return firsts.map { kept[Int($0)] }
    }

    static func limitError() -> SQLError {
        SQLError(.stringTooLong, "Result size exceeds LISTAGG limit",
                 detail: "LISTAGG limit: \(AggregateFunction.listaggLimit)")
    }

    func merge(groups: [Int32], rows: [Int32], states: [Vector]) throws { throw singlePhaseOnly("LISTAGG") }

    func partialStates(_ range: Range<Int>) -> [Vector] { [] }

    private func prepare() {
        prepared = true
        let n = groupOf.count
        let columns = [Vector(type: .bigint, data: .int64(groupOf))] + keys
        let sortKeys = [SortKey(column: 0)]
            + orderBy.enumerated().map { SortKey(column: $0.offset + 1, ascending: $0.element.ascending, nullsFirst: $0.element.nullsFirst) }
        order = RowSorter(columns: columns, keys: sortKeys).sortedRows(n)
        var bounds = [Int](filled: 0, count: resultBytes.count + 1)
        for g in groupOf { bounds[Int(g) + 1] += 1 }
        for i in 0..<resultBytes.count { bounds[i + 1] += bounds[i] }
        groupStarts = bounds
        keys = []
    }

    func results(_ range: Range<Int>) throws -> Vector {
        if !prepared { prepare() }
        var out = StringArray(reservingCount: range.count, bytes: 0)
        var valid = [Bool](filled: false, count: range.count)
        var buffer: [UInt8] = []
        for (k, g) in range.enumerated() {
            let lo = groupStarts[g], hi = groupStarts[g + 1]
            if lo == hi {
                out.appendEmpty()
                continue
            }
            if resultBytes[g] > limit { throw Self.limitError() }
            buffer.removeAll(keepingCapacity: true)
            arena.withUnsafeBufferPointer { a in
                for i in lo..<hi {
                    if i > lo { buffer.append(contentsOf: delimiter) }
                    let row = Int(order[i])
                    let st = starts[row]
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: a[st..<(st + Int(lengths[row]))]))
                }
            }
            buffer.withUnsafeBufferPointer { out.append(bytes: $0) }
            valid[k] = true
        }
        return Vector(type: resultType, data: .string(out), validity: OperatorKernels.validity(from: valid))
    }
}

// MARK: - APPROXIMATE COUNT(DISTINCT)

/// `APPROXIMATE COUNT(DISTINCT x)`: one HyperLogLog state per group
/// (`HyperLogLogGroups`); the partial state is the serialized sketch (VARCHAR), merged
/// register by register in the final phase. NULLs are not counted; no input gives 0.
final class ApproximateCountDistinctAccumulator: Accumulator {
    /// What the rows bring: values to count, or HLLSKETCH values to combine (HLL_COMBINE).
    enum Input { case values, sketches }
    /// What a group gives: its count, or its sketch (HLL_CREATE_SKETCH, HLL_COMBINE).
    enum Output { case count, sketch }

    private var states = HyperLogLogGroups()
    private var hashes: [UInt64] = []
    private let input: Input
    private let output: Output

    init(input: Input = .values, output: Output = .count) {
        self.input = input
        self.output = output
    }

    func grow(to n: Int) { states.grow(to: n) }

    var memoryBytes: Int { states.memoryBytes + arrayBytes(hashes) }

    func update(groups: [Int32], rows: [Int32], input: Vector?) throws {
        guard let input else { throw stateMismatch("APPROXIMATE COUNT argument") }
        let n = groups.count
        if n == 0 { return }
        if self.input == .sketches {
            guard case .string(let sk) = input.data else { throw stateMismatch("HLL_COMBINE argument") }
            for k in 0..<n {
                let r = Int(rows[k])
                if input.isNull(r) { continue }
                let (registers, logm) = try sk.withBytes(r) { try HLLSketchText.registers($0) }
                guard logm == HyperLogLog.precision else {
                    throw SQLError(.featureNotSupported, "HLLSKETCH with logm \(logm): only logm \(HyperLogLog.precision) sketches combine here")
                }
                states.mergeRegisters(Int(groups[k]), registers)
            }
            return
        }
        input.hash(rows: rows, count: n, into: &hashes, combine: false)
        var s = states
        states = HyperLogLogGroups()
        defer { states = s }
        hashes.withUnsafeBufferPointer { h in
            groups.withUnsafeBufferPointer { g in
                if let validity = input.validity {
                    validity.words.withUnsafeBufferPointer { w in
                        rows.withUnsafeBufferPointer { r in
                            for k in 0..<n where OperatorKernels.bit(w, Int(r[k])) {
                                s.insert(Int(g[k]), HyperLogLog.remix(h[k]))
                            }
                        }
                    }
                } else {
                    for k in 0..<n { s.insert(Int(g[k]), HyperLogLog.remix(h[k])) }
                }
            }
        }
    }

    func merge(groups: [Int32], rows: [Int32], states sketches: [Vector]) throws {
        guard sketches.count == 1, case .string(let sk) = sketches[0].data else {
            throw stateMismatch("APPROXIMATE COUNT state")
        }
        var s = states
        states = HyperLogLogGroups()
        defer { states = s }
        try sk.bytes.withUnsafeBufferPointer { b in
            for k in 0..<groups.count {
                let r = Int(rows[k])
                if sketches[0].isNull(r) { continue }
                let st = Int(sk.offsets[r]), en = Int(sk.offsets[r + 1])
                try s.merge(Int(groups[k]), UnsafeBufferPointer(rebasing: b[st..<en]))
            }
        }
    }

    func partialStates(_ range: Range<Int>) -> [Vector] {
        var out = StringArray(reservingCount: range.count, bytes: range.count)
        for g in range { states.serialize(g, into: &out) }
        return [Vector(type: HashAggregateLayout.sketchType, data: .string(out))]
    }

    func results(_ range: Range<Int>) throws -> Vector {
        if output == .count { return Vector(type: .bigint, data: .int64(range.map { states.count($0) })) }
        var out = StringArray(reservingCount: range.count, bytes: range.count * 32)
        for g in range {
            let registers = states.registers(g)
            let text = registers.withUnsafeBufferPointer { HLLSketchText.text($0, logm: HyperLogLog.precision) }
            out.append(text)
        }
        return Vector(type: .hllsketch, data: .string(out))
    }
}
