import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage

/// A database: a catalog plus the data of every table, spread over a simulated
/// cluster of compute nodes and slices. One per data directory.
///
/// Storage is in memory for now (the persistent column store replaces it
/// behind `TableStore`); the directory records the cluster layout chosen when
/// the database was created.
public final class Database: @unchecked Sendable {
    public let cluster: ClusterConfig
    public let directory: String?
    public let catalog = Catalog()
    let layout: SliceLayout
    private var stores: [Int: TableStore] = [:]
    private var identityNext: [Int: [Int: Int64]] = [:]
    private let lock = Lock()
    /// Rows rejected by COPY (STL_LOAD_ERRORS), newest last.
    var loadErrors: [LoadErrorRecord] = []
    var queryCounter = 0

    /// Open (or create) a database. `directory` nil means a purely in-memory database.
    /// `cluster` is used when the database is created; an existing one keeps its own layout.
    public init(directory: String? = nil, cluster: ClusterConfig = ClusterConfig()) throws {
        guard cluster.nodes >= 1, cluster.slicesPerNode >= 1, cluster.sliceCount <= 1024 else {
            throw SQLError(.invalidParameter, "a cluster needs at least 1 node and 1 slice per node (at most 1024 slices)")
        }
        var chosen = cluster
        if let directory {
            let fm = FileManager.default
            let configPath = (directory as NSString).appendingPathComponent("cluster.json")
            do {
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
                if let data = fm.contents(atPath: configPath) {
                    chosen = try JSONDecoder().decode(ClusterConfig.self, from: data)
                } else {
                    let data = try JSONEncoder().encode(cluster)
                    try data.write(to: URL(fileURLWithPath: configPath), options: .atomic)
                }
            } catch let e as SQLError {
                throw e
            } catch {
                throw SQLError(.ioError, "could not open database directory \"\(directory)\": \(error.localizedDescription)")
            }
        }
        self.directory = directory
        self.cluster = chosen
        self.layout = SliceLayout(nodes: chosen.nodes, slicesPerNode: chosen.slicesPerNode)
    }

    /// A new session (one per connection / shell).
    public func connect() -> Session { Session(database: self) }

    // MARK: Table storage

    func store(_ tableID: Int) -> TableStore? { lock.withLock { stores[tableID] } }

    func addStore(for def: TableDef) {
        let s = MemoryTableStore(layout: layout, distStyle: def.distStyle, distKey: def.distKey)
        lock.withLock { stores[def.id] = s }
    }

    func removeStore(_ tableID: Int) {
        lock.withLock {
            stores[tableID] = nil
            identityNext[tableID] = nil
        }
    }

    /// Reserve `count` identity values for column `column` of a table.
    func reserveIdentity(table: TableDef, column: Int, count: Int) -> (first: Int64, step: Int64) {
        let spec = table.columns[column].identity ?? (seed: 1, step: 1)
        return lock.withLock {
            let next = identityNext[table.id]?[column] ?? spec.seed
            identityNext[table.id, default: [:]][column] = next &+ spec.step &* Int64(count)
            return (next, spec.step)
        }
    }

    func nextQueryID() -> Int { lock.withLock { queryCounter += 1; return queryCounter } }

    func recordLoadErrors(_ records: [LoadErrorRecord]) {
        lock.withLock { loadErrors.append(contentsOf: records) }
    }
}

/// One row of STL_LOAD_ERRORS.
struct LoadErrorRecord: Sendable {
    var slice: Int
    var tableID: Int
    var query: Int
    var startTime: Int64
    var filename: String
    var lineNumber: Int
    var colname: String
    var type: String
    var colLength: String
    var position: Int
    var rawLine: String
    var rawFieldValue: String
    var errCode: Int
    var errReason: String
}
