// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// How a database's simulated cluster is laid out. Chosen when the database is created.
public struct ClusterConfig: Sendable, Equatable, Codable {
    public var nodes: Int
    public var slicesPerNode: Int
    public init(nodes: Int = 2, slicesPerNode: Int = 2) {
        self.nodes = nodes
        self.slicesPerNode = slicesPerNode
    }
    public var sliceCount: Int { nodes * slicesPerNode }
}

/// A column of a statement's result.
public struct ResultColumn: Sendable, Equatable {
    public var name: String
    public var type: DataType
    public init(name: String, type: DataType) { self.name = name; self.type = type }
}

/// The outcome of one statement.
public struct StatementResult: Sendable {
    /// psql command tag: "SELECT 3", "CREATE TABLE", "INSERT 0 5", "COPY 10", "DROP TABLE".
    public var tag: String
    /// Result columns; empty for commands that return no rows.
    public var columns: [ResultColumn]
    /// Result rows, in order, as chunks without selection.
    public var chunks: [Chunk]
    /// INFO/NOTICE lines printed before the result (e.g. COPY's "Load into table ... completed").
    public var notices: [String]
    /// The rows went to a `RowSink` as they were produced; `chunks` is empty.
    public var streamed = false
    /// The session's `timezone` when it is not UTC: TIMESTAMPTZ values are shown in it.
    public var timeZone: TimeZoneRule? = nil

    public init(tag: String, columns: [ResultColumn] = [], chunks: [Chunk] = [], notices: [String] = []) {
        self.tag = tag; self.columns = columns; self.chunks = chunks; self.notices = notices
    }

    /// True when the statement returns rows (a query, EXPLAIN, SHOW).
    public var returnsRows: Bool { !columns.isEmpty }

    public var rowCount: Int { chunks.reduce(0) { $0 + $1.count } }

    /// Rows as text, NULL as nil, formatted as PostgreSQL prints them (slow path, for display).
    public func textRows() -> [[String?]] {
        var out: [[String?]] = []
        out.reserveCapacity(rowCount)
        for chunk in chunks {
            for r in 0..<chunk.count {
                out.append((0..<columns.count).map { c in
                    chunk.value(row: r, column: c).formatted(as: columns[c].type, zone: timeZone)
                })
            }
        }
        return out
    }
}

/// Where a statement's rows go when a client reads them as they are produced (the
/// server). Calls come from the thread running the statement, in order.
public protocol RowSink: AnyObject {
    /// Once, before any rows, for a statement that returns rows.
    func start(_ columns: [ResultColumn]) throws
    /// The next rows (a chunk without selection). May block until the client has read
    /// earlier rows (backpressure); throwing stops the statement with that error.
    func rows(_ chunk: Chunk) throws
}
