// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution
import SlicehouseRuntime

/// A row as plain values.
typealias Row = [Value]

/// Deterministic pseudo-random numbers (SplitMix64) so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) < p * 1_000_000 }
}

/// A column of `type` from values.
func column(_ type: DataType, _ values: [Value]) -> Vector {
    var v = Vector(type: type, capacity: values.count)
    for x in values { v.append(x) }
    return v
}

/// A DECIMAL(p,s) column (p ≤ 18) from scaled integers.
func decimals(_ values: [Int64?], precision: Int = 10, scale: Int = 2) -> Vector {
    Vector.ints(values, type: .decimal(precision: precision, scale: scale))
}

/// A DOUBLE PRECISION column.
func doubles(_ values: [Double?]) -> Vector {
    column(.double, values.map { $0.map { Value.double($0) } ?? .null })
}

/// A source replaying `columns` in chunks of `chunkSize` rows. With `withSelection`,
/// every chunk carries junk rows hidden by a selection vector.
func source(_ columns: [Vector], chunkSize: Int = Chunk.capacity, withSelection: Bool = false) -> ChunkSource {
    let n = columns.first?.count ?? 0
    var chunks: [Chunk] = []
    var start = 0
    while start < n {
        let end = min(n, start + chunkSize)
        let part = columns.map { $0.slice(start, end - start) }
        if withSelection {
            // Physical layout: junk row (a copy of the first row), then the real rows.
            let rows = end - start
            var physical: [Vector] = []
            for v in part {
                var w = Vector(type: v.type, capacity: rows + 1)
                w.append(v.value(at: 0))
                w.append(v)
                physical.append(w)
            }
            let sel = (1...rows).map { Int32($0) }
            chunks.append(Chunk(columns: physical, count: rows + 1, selection: sel))
        } else {
            chunks.append(Chunk(columns: part, count: end - start))
        }
        start = end
    }
    return ChunkSource(chunks)
}

/// All rows of the operator's output, checking the chunk size limit.
func drain(_ op: Operator) throws -> [Row] {
    var out: [Row] = []
    while let c = try op.next() {
        XCTAssertLessThanOrEqual(c.count, Chunk.capacity)
        XCTAssertGreaterThan(c.count, 0)
        for i in 0..<c.count {
            out.append((0..<c.columns.count).map { c.value(row: i, column: $0) })
        }
    }
    return out
}

/// A bound window function with its result type computed as the planner would.
func fn(_ kind: WindowFunctionKind, _ argument: Int? = nil, _ argumentType: DataType? = nil,
        parameter: Int = 1, defaultValue: Value = .null, ignoreNulls: Bool = false,
        frame: WindowFrame = .wholePartition) -> BoundWindowFunction {
    // A resultType failure here is a test bug; fall back to BIGINT so the operator reports it.
    let result = (try? BoundWindowFunction.resultType(kind, argumentType)) ?? .bigint
    return BoundWindowFunction(kind: kind, argument: argument, argumentType: argumentType, parameter: parameter,
                               defaultValue: defaultValue, ignoreNulls: ignoreNulls, frame: frame, resultType: result)
}

/// Frames used by the tests.
enum Frames {
    static let rows1p1f = WindowFrame(rows: true, start: .preceding(1), end: .following(1))
    static let rowsToCurrent = WindowFrame(rows: true, start: .unboundedPreceding, end: .currentRow)
    static let rangeToCurrent = WindowFrame.toCurrentPeer
    static let rowsFromCurrent = WindowFrame(rows: true, start: .currentRow, end: .unboundedFollowing)
    static let rangeFromCurrent = WindowFrame(rows: false, start: .currentRow, end: .unboundedFollowing)
    static let rangeCurrent = WindowFrame(rows: false, start: .currentRow, end: .currentRow)
    static let whole = WindowFrame.wholePartition
    static let all: [WindowFrame] = [
        rows1p1f, rowsToCurrent, rangeToCurrent, rowsFromCurrent, rangeFromCurrent, rangeCurrent, whole,
        WindowFrame(rows: true, start: .preceding(3), end: .currentRow),
        WindowFrame(rows: true, start: .currentRow, end: .following(2)),
        WindowFrame(rows: true, start: .preceding(2), end: .preceding(1)),
        WindowFrame(rows: true, start: .following(1), end: .following(3)),
        WindowFrame(rows: true, start: .preceding(50), end: .following(40)),
        WindowFrame(rows: true, start: .unboundedPreceding, end: .preceding(2)),
        WindowFrame(rows: true, start: .following(2), end: .unboundedFollowing),
        WindowFrame(rows: true, start: .following(2), end: .preceding(2)),
        WindowFrame(rows: true, start: .preceding(Int.max), end: .following(Int.max)),
    ]
}

/// Runs a window operator over `columns` and returns its rows.
func runWindow(_ columns: [Vector], partition: [Int] = [], order: [SortKey] = [],
               _ functions: [BoundWindowFunction], chunkSize: Int = Chunk.capacity,
               withSelection: Bool = false) throws -> [Row] {
    let op = WindowOperator(input: source(columns, chunkSize: chunkSize, withSelection: withSelection),
                            inputTypes: columns.map(\.type), partitionColumns: partition, orderKeys: order,
                            functions: functions, context: QueryContext())
    return try drain(op)
}

/// The result columns of `rows` (after the `inputWidth` input columns), keyed by the
/// value of the input column `idColumn` (an integer id unique per row).
func resultsById(_ rows: [Row], idColumn: Int, inputWidth: Int) -> [Int64: [Value]] {
    var out: [Int64: [Value]] = [:]
    for r in rows {
        guard case .int(let id) = r[idColumn] else { XCTFail("row without id: \(r)"); continue }
        out[id] = Array(r[inputWidth...])
    }
    return out
}

func ints(_ xs: [Int64?]) -> [Value] { xs.map { $0.map { Value.int($0) } ?? .null } }
func dbls(_ xs: [Double?]) -> [Value] { xs.map { $0.map { Value.double($0) } ?? .null } }

// MARK: - Reference implementation over Values

/// Three-way comparison of two non-NULL values of one physical type (strings by UTF-8
/// bytes, NaN last).
func compareValues(_ a: Value, _ b: Value) -> Int {
    switch (a, b) {
    case (.int(let x), .int(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.int128(let x), .int128(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.double(let x), .double(let y)):
        if x.isNaN || y.isNaN { return x.isNaN ? (y.isNaN ? 0 : 1) : -1 }
        return x < y ? -1 : (x > y ? 1 : 0)
    case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
    case (.string(let x), .string(let y)):
        let xa = Array(x.utf8), ya = Array(y.utf8)
        return xa.lexicographicallyPrecedes(ya) ? -1 : (xa == ya ? 0 : 1)
    default: return 0
    }
}

/// Compares with NULL placement and direction.
func compareKey(_ a: Value, _ b: Value, _ k: SortKey) -> Int {
    if a.isNull && b.isNull { return 0 }
    if a.isNull { return k.nullsFirst ? -1 : 1 }
    if b.isNull { return k.nullsFirst ? 1 : -1 }
    let c = compareValues(a, b)
    return k.ascending ? c : -c
}

/// A straightforward O(n²) evaluation of one window function, returning the result of
/// every input row (indexed by input row).
struct ReferenceWindow {
    let rows: [Row]
    let partition: [Int]
    let order: [SortKey]
    /// Input rows grouped into partitions, each sorted (stable) by the order keys.
    let parts: [[Int]]
    /// Per partition and index: the first and last index of the row's peer group.
    let peerRanges: [[ClosedRange<Int>]]

    init(rows: [Row], partition: [Int], order: [SortKey]) {
        self.rows = rows
        self.partition = partition
        self.order = order
        var groups: [[Int]] = []
        var keyOf: [[Value]] = []
        for (i, r) in rows.enumerated() {
            let key = partition.map { r[$0] }
            if let g = keyOf.firstIndex(where: { k in zip(k, key).allSatisfy { compareKey($0, $1, SortKey(column: 0)) == 0 } }) {
                groups[g].append(i)
            } else {
                keyOf.append(key)
                groups.append([i])
            }
        }
        parts = groups.map { g in
            g.enumerated().sorted { a, b in
                for k in order {
                    let c = compareKey(rows[a.element][k.column], rows[b.element][k.column], k)
                    if c != 0 { return c < 0 }
                }
                return a.offset < b.offset
            }.map { $0.element }
        }
        func peers(_ a: Int, _ b: Int) -> Bool {
            order.allSatisfy { compareKey(rows[a][$0.column], rows[b][$0.column], $0) == 0 }
        }
        peerRanges = parts.map { p in
            var ranges: [ClosedRange<Int>] = []
            var start = 0
            for i in 0..<p.count where i + 1 == p.count || !peers(p[i], p[i + 1]) {
                ranges.append(contentsOf: repeatElement(start...i, count: i - start + 1))
                start = i + 1
            }
            return ranges
        }
    }

    /// Frame `[lo, hi)` of index i in partition number `pi` (indices into the partition).
    func frame(_ f: WindowFrame, _ pi: Int, _ i: Int) -> Range<Int> {
        let n = parts[pi].count
        let first = peerRanges[pi][i].lowerBound, last = peerRanges[pi][i].upperBound
        func clamp(_ x: Int) -> Int { max(0, min(n, x)) }
        func off(_ k: Int) -> Int { min(k, 1 << 40) }
        let lo: Int
        switch f.start {
        case .unboundedPreceding: lo = 0
        case .preceding(let k): lo = clamp(i - off(k))
        case .currentRow: lo = f.rows ? i : first
        case .following(let k): lo = clamp(i + off(k))
        case .unboundedFollowing: lo = n
        }
        let hi: Int
        switch f.end {
        case .unboundedPreceding: hi = 0
        case .preceding(let k): hi = clamp(i - off(k) + 1)
        case .currentRow: hi = f.rows ? i + 1 : last + 1
        case .following(let k): hi = clamp(i + off(k) + 1)
        case .unboundedFollowing: hi = n
        }
        return lo < hi ? lo..<hi : lo..<lo
    }

    /// Result per input row; throws `SQLError.overflow` like the operator.
    func evaluate(_ f: BoundWindowFunction) throws -> [Value] {
        var out = [Value](repeating: .null, count: rows.count)
        for (pi, p) in parts.enumerated() {
            let n = p.count
            let ranges = peerRanges[pi]
            // RATIO_TO_REPORT's denominator: the partition's sum of non-NULL values.
            let partitionValues = f.kind == .ratioToReport ? p.map { rows[$0][f.argument ?? 0] }.filter { !$0.isNull } : []
            let doubleTotal = partitionValues.reduce(0.0) { $0 + ($1.asDouble ?? 0) }
            let exactTotal = partitionValues.reduce(Int128(0)) { $0 + ($1.asInt128 ?? 0) }
            for i in 0..<n {
                let row = p[i]
                let arg: (Int) -> Value = { rows[p[$0]][f.argument ?? 0] }
                let rank = ranges[i].lowerBound, lastPeer = ranges[i].upperBound
                switch f.kind {
                case .rowNumber: out[row] = .int(Int64(i + 1))
                case .rank: out[row] = .int(Int64(rank + 1))
                case .denseRank:
                    var d = 1
                    for j in 1..<(rank + 1) where ranges[j].lowerBound == j { d += 1 }
                    out[row] = .int(Int64(d))
                case .percentRank: out[row] = .double(n > 1 ? Double(rank) / Double(n - 1) : 0)
                case .cumeDist: out[row] = .double(Double(lastPeer + 1) / Double(n))
                case .ntile:
                    // Bucket b (0-based) gets n / k rows, plus one for b < n % k.
                    let k = f.parameter
                    var start = 0, b = 0
                    while true {
                        let size = n / k + (b < n % k ? 1 : 0)
                        if i < start + size { break }
                        start += size; b += 1
                    }
                    out[row] = .int(Int64(b + 1))
                case .lag, .lead:
                    let dir = f.kind == .lag ? -1 : 1
                    var target: Int? = nil
                    if f.ignoreNulls && f.parameter != 0 {
                        var seen = 0, j = i
                        while true {
                            j += dir
                            if j < 0 || j >= n { break }
                            if !arg(j).isNull { seen += 1; if seen == f.parameter { target = j; break } }
                        }
                    } else {
                        let j = i + dir * f.parameter
                        if j >= 0 && j < n { target = j }
                    }
                    out[row] = target.map(arg) ?? f.defaultValue
                case .firstValue, .lastValue, .nthValue:
                    var idx = Array(frame(f.frame, pi, i))
                    if f.ignoreNulls { idx = idx.filter { !arg($0).isNull } }
                    switch f.kind {
                    case .firstValue: out[row] = idx.first.map(arg) ?? .null
                    case .lastValue: out[row] = idx.last.map(arg) ?? .null
                    default: out[row] = f.parameter <= idx.count ? arg(idx[f.parameter - 1]) : .null
                    }
                case .ratioToReport:
                    let x = arg(i)
                    out[row] = .null
                    if case .double(let d) = x {
                        if doubleTotal != 0 { out[row] = .double(d / doubleTotal) }
                    } else if let xi = x.asInt128 {
                        if exactTotal != 0 { out[row] = .double(Double(xi) / Double(exactTotal)) }
                    }
                case .count, .countStar:
                    let r = frame(f.frame, pi, i)
                    out[row] = .int(Int64(f.kind == .countStar ? r.count : r.filter { !arg($0).isNull }.count))
                case .min, .max:
                    let vals = frame(f.frame, pi, i).map(arg).filter { !$0.isNull }
                    var best: Value = .null
                    for v in vals where best.isNull || (f.kind == .min ? compareValues(v, best) < 0 : compareValues(v, best) > 0) {
                        best = v
                    }
                    out[row] = best
                case .sum, .avg:
                    let vals = frame(f.frame, pi, i).map(arg).filter { !$0.isNull }
                    if vals.isEmpty { out[row] = .null; continue }
                    let t = f.argumentType ?? .bigint
                    if t.isFloat {
                        let s = vals.reduce(0.0) { $0 + ($1.asDouble ?? 0) }
                        out[row] = .double(f.kind == .sum ? s : s / Double(vals.count))
                    } else {
                        var s: Int128 = 0
                        for v in vals {
                            let (r, o) = s.addingReportingOverflow(v.asInt128 ?? 0)
                            if o { throw SQLError.overflow(t.isInteger ? .bigint : f.resultType) }
                            s = r
                        }
                        let c = Int128(vals.count)
                        if t.isInteger {
                            let r = f.kind == .sum ? s : s / c
                            guard let r64 = Int64(exactly: r) else { throw SQLError.overflow(.bigint) }
                            out[row] = .int(r64)
                        } else if f.kind == .sum {
                            out[row] = .int128(s)
                        } else {
                            var q = s / c
                            if (s % c).magnitude * 2 >= c.magnitude { q += s < 0 ? -1 : 1 }
                            out[row] = .int128(q)
                        }
                    }
                }
            }
        }
        return out
    }
}

/// Equal values, doubles within a relative tolerance (sliding float sums may differ in
/// the last bits from a left-to-right sum).
func valuesMatch(_ a: Value, _ b: Value) -> Bool {
    if case .double(let x) = a, case .double(let y) = b {
        if x.isNaN || y.isNaN { return x.isNaN && y.isNaN }
        if x == y { return true }
        return abs(x - y) <= 1e-9 * max(1, abs(x), abs(y))
    }
    return a == b
}
