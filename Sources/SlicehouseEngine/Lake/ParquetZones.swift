// SPDX-License-Identifier: Apache-2.0
import SlicehouseParquet
import SlicehouseStorage
import SlicehouseTypes

/// A Parquet column chunk's footer statistics as a zone map of the column it loads into,
/// so a row group is judged by the same `ZoneMap.mayMatch` as a local block. Only the
/// statistics whose meaning is certain are used: integers, dates, timestamps, decimals of
/// the target's scale, floating point numbers and strings; anything else has no zone
/// (the row group is read).
enum ParquetZones {
    static func zone(_ file: ParquetFile, group: Int, column: Int, type: DataType) -> ZoneMap? {
        guard group < file.rowGroups.count, column < file.columns.count else { return nil }
        let chunks = file.rowGroups[group].columns
        let pc = file.columns[column]
        guard !pc.isNested, column < chunks.count, let info = chunks[column], let stats = info.statistics,
              let lo = stats.min, let hi = stats.max, let physical = pc.physicalType else { return nil }
        let rows = file.rowGroups[group].numRows
        let nulls = Int(clamping: stats.nullCount ?? 0)
        guard rows > 0, nulls < rows else { return nil }
        func zone(_ a: ZoneBound, _ b: ZoneBound) -> ZoneMap {
            ZoneMap(count: rows, nullCount: max(0, nulls), min: a, max: b)
        }
        switch (physical, type) {
        case (.int32, _), (.int64, _):
            guard let a = integer(lo, physical), let b = integer(hi, physical) else { return nil }
            switch (pc.logicalType, type) {
            case (.none, .smallint), (.none, .integer), (.none, .bigint), (.integer(_, true), .smallint),
                 (.integer(_, true), .integer), (.integer(_, true), .bigint), (.date, .date):
                return zone(.int(a), .int(b))
            case (.decimal(_, let s), .decimal(let p, let t)) where s == t && p <= 18:
                return zone(.int(a), .int(b))
            case (.timestamp(let unit, _), .timestamp):
                switch unit {
                case .micros: return zone(.int(a), .int(b))
                case .millis:
                    let (x, o1) = a.multipliedReportingOverflow(by: 1000), (y, o2) = b.multipliedReportingOverflow(by: 1000)
                    return o1 || o2 ? nil : zone(.int(x), .int(y))
                case .nanos:
                    return zone(.int(a / 1000 - (a % 1000 < 0 ? 1 : 0)), .int(b / 1000 + (b % 1000 > 0 ? 1 : 0)))
                }
            default:
                return nil
            }
        case (.double, .double), (.double, .real), (.float, .double), (.float, .real):
            guard let a = floating(lo, physical), let b = floating(hi, physical), !a.isNaN, !b.isNaN else { return nil }
            // REAL values are kept rounded through Float: a Float bound is one already.
            return zone(.double(a), .double(b))
        case (.byteArray, .varchar), (.byteArray, .char):
            switch pc.logicalType {
            case .string, .none, .enumeration, .json:
                // Bounds are cut to the zone map's prefix, which keeps their order; CHAR
                // keeps values without trailing blanks, so its bounds are not used.
                // A value may end in blanks, which VARCHAR comparisons ignore.
                if case .char = type { return nil }
                return ZoneMap(count: rows, nullCount: max(0, nulls), min: .bytes(Array(lo.prefix(ZoneBound.stringPrefix))),
                               max: .bytes(Array(hi.prefix(ZoneBound.stringPrefix))), blankEnded: true)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// A PLAIN-encoded statistic of 4 or 8 bytes, little-endian, as its bits.
    private static func bits(_ bytes: [UInt8], width: Int) -> UInt64? {
        guard bytes.count == width else { return nil }
        var v: UInt64 = 0
        for (i, b) in bytes.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }

    private static func integer(_ bytes: [UInt8], _ physical: ParquetPhysicalType) -> Int64? {
        switch physical {
        case .int32: return bits(bytes, width: 4).map { Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: $0))) }
        case .int64: return bits(bytes, width: 8).map { Int64(bitPattern: $0) }
        default: return nil
        }
    }

    private static func floating(_ bytes: [UInt8], _ physical: ParquetPhysicalType) -> Double? {
        switch physical {
        case .float: return bits(bytes, width: 4).map { Double(Float(bitPattern: UInt32(truncatingIfNeeded: $0))) }
        case .double: return bits(bytes, width: 8).map { Double(bitPattern: $0) }
        default: return nil
        }
    }
}
