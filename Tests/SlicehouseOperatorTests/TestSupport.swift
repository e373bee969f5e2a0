// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution

/// A row as plain values, for comparing operator output with reference results.
typealias Row = [Value]

/// Deterministic pseudo-random numbers (SplitMix64) so failures reproduce.
struct SeededRandom: RandomNumberGenerator {
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
    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) < p * 1_000_000 }
}

/// Builds a column of `type` from values (typed arrays directly; appending `Value`s one
/// at a time to a `Vector` is too slow for large test inputs).
func column(_ type: DataType, _ values: [Value]) -> Vector {
    let n = values.count
    var validity = Validity(allValid: n)
    var anyNull = false
    for (i, v) in values.enumerated() where v.isNull { validity.setInvalid(i); anyNull = true }
    let data: VectorData
    switch type.physical {
    case .int64: data = .int64(values.map { $0.asInt64 ?? 0 })
    case .int128: data = .int128(values.map { $0.asInt128 ?? 0 })
    case .double: data = .double(values.map { $0.asDouble ?? 0 })
    case .bool: data = .bool(values.map { $0.asBool ?? false })
    case .string: data = .string(StringArray(values.map { $0.asString ?? "" }))
    }
    return Vector(type: type, data: data, validity: anyNull ? validity : nil)
}

/// Columns from rows.
func columns(_ types: [DataType], _ rows: [Row]) -> [Vector] {
    types.enumerated().map { (c, t) in column(t, rows.map { $0[c] }) }
}

/// A source that replays `rows` in chunks of `chunkSize` rows. With `withSelection`,
/// every chunk carries extra junk rows that a selection vector hides, to exercise
/// selection handling.
func source(_ types: [DataType], _ rows: [Row], chunkSize: Int = Chunk.capacity, withSelection: Bool = false) -> ChunkSource {
    var chunks: [Chunk] = []
    var start = 0
    while start < rows.count {
        let end = min(rows.count, start + chunkSize)
        let part = Array(rows[start..<end])
        if withSelection {
            // Interleave a junk row before every real row; select the real ones.
            var physical: [Row] = []
            var sel: [Int32] = []
            for r in part {
                physical.append(types.map { junkValue($0) })
                sel.append(Int32(physical.count))
                physical.append(r)
            }
            chunks.append(Chunk(columns: columns(types, physical), count: physical.count, selection: sel))
        } else {
            chunks.append(Chunk(columns: columns(types, part), count: part.count))
        }
        start = end
    }
    return ChunkSource(chunks)
}

private func junkValue(_ t: DataType) -> Value {
    switch t.physical {
    case .int64: return .int(-987_654)
    case .int128: return .int128(-987_654)
    case .double: return .double(-987.5)
    case .bool: return .bool(true)
    case .string: return .string("junk")
    }
}

/// All logical rows an operator produces.
func drain(_ op: Operator, maxChunk: Int = Chunk.capacity) throws -> [Row] {
    var out: [Row] = []
    while let c = try op.next() {
        XCTAssertLessThanOrEqual(c.count, maxChunk, "output chunk too large")
        for i in 0..<c.count {
            out.append((0..<c.columns.count).map { c.value(row: i, column: $0) })
        }
    }
    return out
}

/// The chunks an operator produces.
func drainChunks(_ op: Operator) throws -> [Chunk] {
    var out: [Chunk] = []
    while let c = try op.next() { out.append(c) }
    return out
}

/// Order-insensitive comparison key for a multiset of rows.
func canonical(_ rows: [Row]) -> [String] {
    rows.map { r in r.map { "\($0)" }.joined(separator: "|") }.sorted()
}

/// A total order over values of mixed kinds (for sorting rows in tests).
private func rank(_ v: Value) -> Int {
    switch v {
    case .null: return 0
    case .bool: return 1
    case .int: return 2
    case .int128: return 3
    case .double: return 4
    case .string: return 5
    }
}

private func rowPrecedes(_ a: Row, _ b: Row) -> Bool {
    for (x, y) in zip(a, b) {
        let rx = rank(x), ry = rank(y)
        if rx != ry { return rx < ry }
        switch (x, y) {
        case (.bool(let p), .bool(let q)) where p != q: return !p
        case (.int(let p), .int(let q)) where p != q: return p < q
        case (.int128(let p), .int128(let q)) where p != q: return p < q
        case (.double(let p), .double(let q)) where p != q && !(p.isNaN && q.isNaN):
            return p < q || (q.isNaN && !p.isNaN)
        case (.string(let p), .string(let q)) where p != q: return p < q
        default: continue
        }
    }
    return a.count < b.count
}

func assertSameRows(_ actual: [Row], _ expected: [Row], _ message: String = "",
                    file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.count, expected.count, "row count \(message)", file: file, line: line)
    // Fast path: equal after sorting (no NaN involved).
    if actual.sorted(by: rowPrecedes) == expected.sorted(by: rowPrecedes) { return }
    let a = canonical(actual), e = canonical(expected)
    if a != e {
        let missing = Set(e).subtracting(a).prefix(5)
        let extra = Set(a).subtracting(e).prefix(5)
        XCTFail("rows differ \(message); missing e.g. \(Array(missing)), unexpected e.g. \(Array(extra))", file: file, line: line)
    }
}

let boundarySizes = [0, 1, 2047, 2048, 2049, 10000]
