// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Where a table's rows are right now (AUTO resolved).
public enum TablePlacement: Sendable, Equatable {
    case even
    case key(column: Int)
    case all
}

public struct TableStatistics: Sendable, Equatable {
    public var rows: Int
    public var placement: TablePlacement
    /// By column number, for analyzed columns (empty before ANALYZE).
    public var columns: [Int: ColumnStatistics]
    /// String columns (by number) some value of which may end in a blank: the others are
    /// compared as they are where Redshift ignores trailing blanks
    /// (`Optimizer.trailingBlanksInsignificant`). Every string column, when not known.
    public var blankEnded: Set<Int>?
    public init(rows: Int, placement: TablePlacement, columns: [Int: ColumnStatistics] = [:], blankEnded: Set<Int>? = nil) {
        self.rows = rows; self.placement = placement; self.columns = columns; self.blankEnded = blankEnded
    }

    /// Statistics of a scan's output columns (`columns[i]` of the table is `ids[i]`).
    func byOutput(columns tableColumns: [Int], ids: [Int]) -> [Int: ColumnStatistics] {
        if columns.isEmpty { return [:] }
        var out: [Int: ColumnStatistics] = [:]
        out.reserveCapacity(min(ids.count, columns.count))
        for (c, id) in zip(tableColumns, ids) { if let s = columns[c] { out[id] = s } }
        return out
    }
}

/// What the planner needs to know about the cluster and the data.
public protocol PlannerContext {
    var sliceCount: Int { get }
    func statistics(_ table: TableDef) -> TableStatistics
}
