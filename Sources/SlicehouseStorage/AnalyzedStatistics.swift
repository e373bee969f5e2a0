// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseCatalog

/// A table's statistics as of its last ANALYZE.
public struct AnalyzedTable: Sendable, Codable, Equatable {
    /// Live rows when analyzed.
    public var rows: Int
    /// The table's `modifications` when analyzed: what `staleness` compares against.
    public var modifications: Int
    /// When (microseconds since 1970).
    public var time: Int64
    /// By column number; columns not analyzed are absent.
    public var columns: [Int: ColumnStatistics]

    public init(rows: Int, modifications: Int, time: Int64, columns: [Int: ColumnStatistics]) {
        self.rows = rows; self.modifications = modifications; self.time = time; self.columns = columns
    }
}

extension TableSnapshot {
    /// SVV_TABLE_INFO's `stats_off`: the percent of rows inserted or deleted since the last
    /// ANALYZE (0 current … 100 stale); 100 for a table with rows that was never analyzed.
    public var statsOff: Double {
        guard let a = analyzed else { return rowCount == 0 ? 0 : 100 }
        let changed = Double(max(0, modifications - a.modifications))
        if changed == 0 { return 0 }
        return Swift.min(100, changed * 100 / Double(Swift.max(1, a.rows)))
    }
}
