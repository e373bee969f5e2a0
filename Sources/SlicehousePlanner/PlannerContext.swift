import SlicehouseTypes
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
    public init(rows: Int, placement: TablePlacement) { self.rows = rows; self.placement = placement }
}

/// What the planner needs to know about the cluster and the data.
public protocol PlannerContext {
    var sliceCount: Int { get }
    func statistics(_ table: TableDef) -> TableStatistics
}
