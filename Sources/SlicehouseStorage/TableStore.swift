import SlicehouseTypes
import SlicehouseCatalog

/// Where a table's rows live right now. AUTO starts as ALL and becomes EVEN
/// once the table holds more than `autoAllMaxRows` rows (see docs/DISTRIBUTION.md).
public enum EffectiveDistribution: Sendable, Equatable {
    case even
    case key(column: Int)
    case all
}

/// An immutable run of rows of one slice: one vector per column, all the same length.
/// Segments are at most `Chunk.capacity` rows so a scan hands them out without copying.
public struct Segment: Sendable {
    public var columns: [Vector]
    public var count: Int
    public init(columns: [Vector], count: Int) { self.columns = columns; self.count = count }
}

/// A consistent, immutable view of a table's data: per slice, a list of segments.
/// Readers keep the snapshot they started with while writers build the next one.
public struct TableSnapshot: Sendable {
    public var slices: [[Segment]]
    public var distribution: EffectiveDistribution
    /// Rounds of EVEN placement so far (the next row goes to slice `evenCursor % sliceCount`).
    public var evenCursor: Int

    public init(slices: [[Segment]], distribution: EffectiveDistribution, evenCursor: Int) {
        self.slices = slices; self.distribution = distribution; self.evenCursor = evenCursor
    }

    public var rowCount: Int {
        // ALL tables hold one copy per node; count one copy.
        if distribution == .all { return slices.first.map { $0.reduce(0) { $0 + $1.count } } ?? 0 }
        return slices.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
    }

    public func rowCount(slice: Int) -> Int { slices[slice].reduce(0) { $0 + $1.count } }
}

/// Describes the simulated cluster to the storage layer.
public struct SliceLayout: Sendable, Equatable {
    public var nodes: Int
    public var slicesPerNode: Int
    public init(nodes: Int, slicesPerNode: Int) { self.nodes = nodes; self.slicesPerNode = slicesPerNode }
    public var sliceCount: Int { nodes * slicesPerNode }
    public func node(ofSlice s: Int) -> Int { s / slicesPerNode }
    /// The slice that holds a node's copy of an ALL table.
    public func firstSlice(ofNode n: Int) -> Int { n * slicesPerNode }
}

/// The storage interface the engine uses. The in-memory implementation below is
/// the first one; the persistent column store implements the same operations.
public protocol TableStore: AnyObject, Sendable {
    var layout: SliceLayout { get }
    /// The current committed snapshot.
    func snapshot() -> TableSnapshot
    /// Atomically replace the committed snapshot (one statement's commit).
    func commit(_ snapshot: TableSnapshot)
}

/// In-memory column segments per slice.
public final class MemoryTableStore: TableStore, @unchecked Sendable {
    public let layout: SliceLayout
    private var current: TableSnapshot
    private let lock = Lock()

    public init(layout: SliceLayout, distStyle: DistStyle, distKey: Int?) {
        self.layout = layout
        let dist: EffectiveDistribution
        switch distStyle {
        case .all, .auto: dist = .all
        case .even: dist = .even
        case .key: dist = distKey.map { .key(column: $0) } ?? .even
        }
        current = TableSnapshot(slices: Array(repeating: [], count: layout.sliceCount), distribution: dist, evenCursor: 0)
    }

    public func snapshot() -> TableSnapshot { lock.withLock { current } }
    public func commit(_ snapshot: TableSnapshot) { lock.withLock { current = snapshot } }
}
