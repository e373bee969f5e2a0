// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Rows of every column type, used to write the seeds that targets make at run time
/// (Parquet files, column blocks): small and large values, NULLs, repeats (for
/// dictionaries and runs), empty and non-ASCII strings.
enum FuzzSampleData {
    static let columns: [(name: String, type: DataType)] = [
        ("i16", .smallint), ("i32", .integer), ("i64", .bigint), ("dec", .decimal(precision: 12, scale: 2)),
        ("wide", .decimal(precision: 38, scale: 6)), ("f32", .real), ("f64", .double), ("flag", .boolean),
        ("code", .char(4)), ("name", .varchar(40)), ("day", .date), ("ts", .timestamp),
    ]

    /// Number of rows in `chunk()`.
    static let rowCount = 40

    /// The value of column `column` in row `row` (physical form), NULL now and then.
    static func value(row: Int, column: Int) -> Value {
        if (row + column) % 7 == 3 { return .null }
        let r = Int64(row)
        switch columns[column].type {
        case .smallint: return .int([Int64(Int16.min), -1, 0, 1, Int64(Int16.max)][row % 5])
        case .integer: return .int(r % 3 == 0 ? Int64(Int32.max) - r : r * 1000)
        case .bigint: return .int(row % 9 == 0 ? Int64.min + r : r * r * 1_000_003)
        case .decimal(let p, _) where p > 18: return .int128(Int128(r) * 1_000_000_000_000_000_000 + 123_456)
        case .decimal: return .int(r * 12_345 - 99_999)
        case .real, .double: return .double(row % 11 == 0 ? -0.0 : Double(r) / 3.0)
        case .boolean: return .bool(row % 3 == 0)
        case .char: return .string(["AB", "", "ZZZZ", "x"][row % 4])
        case .varchar: return .string(row % 5 == 0 ? "é€😀 \(row)" : ["alpha", "beta", "", "gamma"][row % 4])
        case .date: return .int(r * 400 - 8000)
        case .timestamp, .timestamptz: return .int(r * 86_400_000_123 - 1_000_000)
        case .time, .timetz: return .int(r * 1_000_123 % DateTime.microsPerDay)
        case .interval: return .int128(IntervalValue(months: r, days: -r, micros: r * 1_001).packed ?? 0)
        case .superType: return .string(row % 2 == 0 ? "{\"a\":[\(row),\"x\"]}" : "\(row)")
        case .varbyte: return .string(String(repeating: "ab", count: row % 4))
        case .hllsketch, .array: return .null
        case .unknown: return .null
        }
    }

    /// All rows as one chunk.
    static func chunk() -> Chunk {
        let vectors = columns.enumerated().map { (c, column) -> Vector in
            var v = Vector(type: column.type, capacity: rowCount)
            for row in 0..<rowCount { v.append(value(row: row, column: c)) }
            return v
        }
        return Chunk(columns: vectors, count: rowCount)
    }
}
