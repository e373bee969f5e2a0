// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseCatalog

/// How a physical node's output rows are spread over the cluster.
public enum Distribution: Sendable, Equatable {
    /// Partitioned over slices by the hash of these output columns.
    case hashed([Int])
    /// Partitioned over slices with no useful property (EVEN, or arbitrary).
    case random
    /// Every slice holds all rows (an ALL table read per node, or a broadcast).
    case replicated
    /// All rows on the leader (one partition).
    case single

    public var isPartitioned: Bool {
        switch self { case .hashed, .random: return true; default: return false }
    }
}

/// How a scan reads a table.
public enum ScanMode: Sendable, Equatable {
    /// Each slice reads its own rows (KEY / EVEN tables).
    case perSlice
    /// ALL table: every slice reads its node's copy (for joins against it).
    case replicated
    /// ALL table: the rows are read once, on the first slice.
    case oneCopy
    /// Read every row on the leader (one partition).
    case leader
}

public enum ExchangeKind: Sendable, Equatable {
    /// Redistribute rows by the hash of these columns.
    case redistribute([Int])
    /// Send every row to every slice.
    case broadcast
    /// Send every row to the leader.
    case gather
    /// Keep each partition where it is: a materialization point for a subplan that
    /// several parents read (`SharedSubplans`).
    case materialize
}

/// Redshift's labels for the data movement of a join.
public enum JoinDistributionLabel: String, Sendable, Equatable {
    case none = "DS_DIST_NONE"
    case allNone = "DS_DIST_ALL_NONE"
    case broadcastInner = "DS_BCAST_INNER"
    case distInner = "DS_DIST_INNER"
    case distOuter = "DS_DIST_OUTER"
    case distBoth = "DS_DIST_BOTH"
    case allInner = "DS_DIST_ALL_INNER"
}

public enum PhysicalJoinKind: String, Sendable, Equatable {
    case inner, left, right, full, semi, anti
    /// Semi / anti join built on its preserved side: the output is the build (inner)
    /// child's rows that have (`rightSemi`) or lack (`rightAnti`) a match in the probe child.
    case rightSemi, rightAnti

    /// The output holds the build child's columns only.
    public var keepsBuildOnly: Bool { self == .rightSemi || self == .rightAnti }
    /// The output holds the probe child's columns only.
    public var keepsProbeOnly: Bool { self == .semi || self == .anti }
    /// Every build row reaches the output or decides about itself: the build side must be
    /// partitioned, never broadcast or replicated.
    public var preservesBuild: Bool { self == .right || self == .full || keepsBuildOnly }
}

public enum SetOperationKind: String, Sendable, Equatable {
    case union = "UNION", intersect = "INTERSECT", except = "EXCEPT"
}

public enum AggregatePhase: String, Sendable, Equatable {
    case single, partial, final
}

public struct PhysicalSortKey: Sendable, Equatable {
    public var column: Int
    public var ascending: Bool
    public var nullsFirst: Bool
    public init(column: Int, ascending: Bool, nullsFirst: Bool) {
        self.column = column; self.ascending = ascending; self.nullsFirst = nullsFirst
    }
}

/// Runtime filter `id` of a hash join: the values of its build key `buildKey` (a position
/// in the build child's columns) once the build side is complete.
public struct RuntimeFilterSpec: Sendable, Equatable {
    public var id: Int
    public var buildKey: Int
    public init(id: Int, buildKey: Int) { self.id = id; self.buildKey = buildKey }
}

/// A scan's use of runtime filter `id` on its output column `column`.
public struct RuntimeFilterTarget: Sendable, Equatable {
    public var id: Int
    public var column: Int
    public init(id: Int, column: Int) { self.id = id; self.column = column }
}

/// One node of a physical plan. Expressions reference input columns by position
/// (for joins: probe columns, then build columns).
public final class PhysicalNode: Sendable {
    public enum Kind: Sendable, Equatable {
        case scan(table: TableDef, columns: [Int], filter: BoundExpr?, mode: ScanMode)
        case filter(BoundExpr)
        case project([BoundExpr])
        /// children[0] is the probe (outer) side, children[1] the build (inner) side.
        case hashJoin(PhysicalJoinKind, probeKeys: [Int], buildKeys: [Int], residual: BoundExpr?,
                      label: JoinDistributionLabel, nullAware: Bool)
        /// Nested loop for joins without equality keys (children[1] is materialized).
        /// `singleRow`: the inner side must have at most one row (scalar subqueries).
        case nestedLoopJoin(PhysicalJoinKind, condition: BoundExpr?, label: JoinDistributionLabel, singleRow: Bool)
        case aggregate(groups: [Int], aggregates: [BoundAggregate], phase: AggregatePhase)
        /// Window functions sharing one PARTITION BY / ORDER BY; output = input ++ results.
        case window(partition: [Int], order: [PhysicalSortKey], functions: [BoundWindowFunction])
        case sort([PhysicalSortKey], limit: Int?, offset: Int)
        case limit(Int?, offset: Int)
        case exchange(ExchangeKind)
        case unionAll
        case setOperation(SetOperationKind, all: Bool)
        case values([[Value]])
        /// PartiQL unnesting: output = input ++ the element of `array` (++ its position; a
        /// VARCHAR position column means UNPIVOT: the attributes of an object).
        case unnest(array: BoundExpr, withPosition: Bool)
    }

    public let kind: Kind
    public let children: [PhysicalNode]
    public let types: [DataType]
    public let names: [String]
    public let distribution: Distribution
    /// Estimated output rows.
    public let rows: Double
    /// Column ids of the logical columns each output position carries (planner bookkeeping).
    public let columnIDs: [Int]
    /// What the planner's last passes found about the node (runtime filters, the outputs
    /// read above it).
    public let annotations: Annotations
    /// Hash joins: build keys whose values are handed to scans on the probe side
    /// (`RuntimeFilters`); scans: the runtime filters they apply.
    public var runtimeFilters: [RuntimeFilterSpec] { annotations.runtimeFilters }
    public var runtimeFilterTargets: [RuntimeFilterTarget] { annotations.runtimeFilterTargets }
    /// Hash joins: which output positions the plan above reads (`OutputUse`); empty when
    /// it reads all of them. The join leaves a constant NULL placeholder in the others.
    public var readOutputs: [Bool] { annotations.readOutputs }

    /// The results of the passes that run on the finished physical plan. A plan is never
    /// changed once made: a pass returns a new plan with new annotations (`annotated`).
    public struct Annotations: Sendable, Equatable {
        public var runtimeFilters: [RuntimeFilterSpec] = []
        public var runtimeFilterTargets: [RuntimeFilterTarget] = []
        public var readOutputs: [Bool] = []
        public init(runtimeFilters: [RuntimeFilterSpec] = [], runtimeFilterTargets: [RuntimeFilterTarget] = [],
                    readOutputs: [Bool] = []) {
            self.runtimeFilters = runtimeFilters; self.runtimeFilterTargets = runtimeFilterTargets
            self.readOutputs = readOutputs
        }
    }

    public init(_ kind: Kind, children: [PhysicalNode], types: [DataType], names: [String],
                distribution: Distribution, rows: Double, columnIDs: [Int], annotations: Annotations = Annotations()) {
        self.kind = kind; self.children = children; self.types = types; self.names = names
        self.distribution = distribution; self.rows = rows; self.columnIDs = columnIDs
        self.annotations = annotations
    }

    /// This plan with the annotations `annotate` gives (nil: a node's stay as they are).
    /// Nodes are rebuilt bottom-up; a subplan shared by several parents is rebuilt once
    /// and stays shared, and an unchanged subtree is reused as it is.
    public func annotated(_ annotate: (PhysicalNode) -> Annotations?) -> PhysicalNode {
        var done: [ObjectIdentifier: PhysicalNode] = [:]
        func rebuild(_ node: PhysicalNode) -> PhysicalNode {
            if let d = done[ObjectIdentifier(node)] { return d }
            let children = node.children.map(rebuild)
            let changedChildren = zip(children, node.children).contains { $0 !== $1 }
            let newAnnotations = annotate(node)
            let result: PhysicalNode
            if !changedChildren && (newAnnotations == nil || newAnnotations == node.annotations) {
                result = node
            } else {
                result = PhysicalNode(node.kind, children: children, types: node.types, names: node.names,
                                      distribution: node.distribution, rows: node.rows, columnIDs: node.columnIDs,
                                      annotations: newAnnotations ?? node.annotations)
            }
            done[ObjectIdentifier(node)] = result
            return result
        }
        return rebuild(self)
    }

    /// Average row width in bytes (for EXPLAIN).
    public var width: Int {
        types.reduce(0) { w, t in
            switch t {
            case .varchar(let n): return w + min(n, 32)
            case .char(let n): return w + n
            default: return w + t.width
            }
        }
    }

    /// All nodes, pre-order.
    public func visit(_ f: (PhysicalNode) -> Void) {
        f(self)
        for c in children { c.visit(f) }
    }

    /// Whether no node of the plan scans a table — user, system or external: a query of
    /// constants and VALUES, which Redshift runs on the leader node alone.
    public var readsNoTable: Bool {
        if case .scan = kind { return false }
        return children.allSatisfy { $0.readsNoTable }
    }
}
