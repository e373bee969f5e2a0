// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// A column produced by a logical plan node. Column ids are unique within one
/// statement, so rewrites (pushdown, join reordering) never need renumbering;
/// the physical planner turns ids into positions.
public struct PlanColumn: Sendable, Equatable {
    public var id: Int
    public var type: DataType
    public var name: String
    public init(id: Int, type: DataType, name: String) { self.id = id; self.type = type; self.name = name }
}

public enum LogicalJoinKind: String, Sendable, Equatable {
    case inner, left, right, full, cross, semi, anti
    /// NOT IN: an anti join where a NULL on the inner side rejects every row.
    case antiNullAware
    /// A scalar subquery: a left join against at most one row (more is an error).
    case leftSingle

    /// Joins whose output is the left side's columns only.
    public var keepsLeftOnly: Bool { self == .semi || self == .anti || self == .antiNullAware }
}

/// An aggregate in a logical aggregate node.
public struct LogicalAggregate: Sendable, Equatable {
    public var function: AggregateFunction
    public var argument: BoundExpr?
    public var distinct: Bool
    public var output: PlanColumn
    /// LISTAGG's `WITHIN GROUP (ORDER BY ...)` (PERCENTILE_* order by their argument).
    public var orderBy: [LogicalSortKey]
    /// Percentile, direction, delimiter.
    public var parameters: AggregateParameters
    public init(function: AggregateFunction, argument: BoundExpr?, distinct: Bool, output: PlanColumn,
                orderBy: [LogicalSortKey] = [], parameters: AggregateParameters = AggregateParameters()) {
        self.function = function; self.argument = argument; self.distinct = distinct; self.output = output
        self.orderBy = orderBy; self.parameters = parameters
    }

    /// Every expression the aggregate reads: the argument, then the ORDER BY keys.
    public var expressions: [BoundExpr] { (argument.map { [$0] } ?? []) + orderBy.map { $0.expr } }

    /// The aggregate with `f` applied to each of its expressions.
    public func mapExpressions(_ f: (BoundExpr) -> BoundExpr) -> LogicalAggregate {
        var a = self
        a.argument = argument.map(f)
        a.orderBy = orderBy.map { LogicalSortKey(expr: f($0.expr), ascending: $0.ascending, nullsFirst: $0.nullsFirst) }
        return a
    }

    /// Same computation (the output column aside).
    public func computesSame(as other: LogicalAggregate) -> Bool {
        function == other.function && argument == other.argument && distinct == other.distinct
            && orderBy == other.orderBy && parameters == other.parameters
    }
}

public struct LogicalSortKey: Sendable, Equatable {
    public var expr: BoundExpr
    public var ascending: Bool
    public var nullsFirst: Bool
    public init(expr: BoundExpr, ascending: Bool, nullsFirst: Bool) {
        self.expr = expr; self.ascending = ascending; self.nullsFirst = nullsFirst
    }
}

/// A window function in a logical window node.
public struct LogicalWindow: Sendable, Equatable {
    public var kind: WindowFunctionKind
    public var argument: BoundExpr?
    public var parameter: Int
    public var defaultValue: Value
    public var ignoreNulls: Bool
    public var partitionBy: [BoundExpr]
    public var orderBy: [LogicalSortKey]
    public var frame: WindowFrame
    public var output: PlanColumn
}

/// The logical plan of a query. Expressions reference columns by id
/// (`BoundExpr.column(id, type)`), never by position. Binding one query text twice
/// gives equal plans unless a table, a view or a setting it depends on changed (what
/// the result cache checks).
public indirect enum LogicalPlan: Sendable, Equatable {
    /// Read `columns` (indices into the table's columns) of `table`; `filters` are ANDed.
    case scan(table: TableDef, alias: String, columns: [Int], outputs: [PlanColumn], filters: [BoundExpr])
    case filter(LogicalPlan, BoundExpr)
    case project(LogicalPlan, [BoundExpr], outputs: [PlanColumn])
    case join(LogicalJoinKind, LogicalPlan, LogicalPlan, condition: BoundExpr?)
    case aggregate(LogicalPlan, groups: [BoundExpr], groupOutputs: [PlanColumn], aggregates: [LogicalAggregate])
    case sort(LogicalPlan, [LogicalSortKey])
    case limit(LogicalPlan, limit: Int?, offset: Int)
    case distinct(LogicalPlan)
    /// Window functions over the input; outputs are the input's columns then one per function.
    case window(LogicalPlan, [LogicalWindow])
    case setOperation(SetOperationKind, all: Bool, LogicalPlan, LogicalPlan, outputs: [PlanColumn])
    /// Constant rows (VALUES, or SELECT without FROM as one empty row).
    case values([[BoundExpr]], outputs: [PlanColumn])
    /// PartiQL unnesting (`FROM t AS c, c.orders AS o [AT i]`): each input row once per
    /// element of the SUPER array `array` (an expression over the input), with the
    /// element and, when asked, its 0-based position as new columns. A row whose value
    /// is not an array, or is an empty one, produces nothing. With a VARCHAR `position`
    /// it is PartiQL's UNPIVOT: each attribute of an object, `position` its name.
    case unnest(LogicalPlan, array: BoundExpr, element: PlanColumn, position: PlanColumn?)

    /// The columns this node produces, in order.
    public var outputs: [PlanColumn] {
        switch self {
        case .scan(_, _, _, let o, _): return o
        case .filter(let p, _), .sort(let p, _), .limit(let p, _, _), .distinct(let p): return p.outputs
        case .project(_, _, let o): return o
        case .join(let k, let l, let r, _):
            return k.keepsLeftOnly ? l.outputs : l.outputs + r.outputs
        case .aggregate(_, _, let g, let a): return g + a.map { $0.output }
        case .window(let p, let ws): return p.outputs + ws.map { $0.output }
        case .setOperation(_, _, _, _, let o): return o
        case .values(_, let o): return o
        case .unnest(let p, _, let e, let i): return p.outputs + [e] + (i.map { [$0] } ?? [])
        }
    }

    public var outputIDs: Set<Int> { Set(outputs.map { $0.id }) }

    /// The node with `f` applied to each of its inputs, everything else kept: the
    /// recursion of a rewrite that changes only some kinds of node.
    public func mapChildren(_ f: (LogicalPlan) -> LogicalPlan) -> LogicalPlan {
        switch self {
        case .scan, .values: return self
        case .filter(let p, let e): return .filter(f(p), e)
        case .project(let p, let es, let o): return .project(f(p), es, outputs: o)
        case .join(let k, let l, let r, let c): return .join(k, f(l), f(r), condition: c)
        case .aggregate(let p, let g, let go, let a): return .aggregate(f(p), groups: g, groupOutputs: go, aggregates: a)
        case .sort(let p, let k): return .sort(f(p), k)
        case .limit(let p, let l, let o): return .limit(f(p), limit: l, offset: o)
        case .distinct(let p): return .distinct(f(p))
        case .window(let p, let ws): return .window(f(p), ws)
        case .setOperation(let k, let all, let l, let r, let o): return .setOperation(k, all: all, f(l), f(r), outputs: o)
        case .unnest(let p, let a, let e, let i): return .unnest(f(p), array: a, element: e, position: i)
        }
    }
}
