// SPDX-License-Identifier: Apache-2.0
/// Progress of a table being written, reported after each chunk.
public struct DatagenProgress: Sendable {
    public let table: TPCHTable
    /// 1-based part being written, and the number of parts.
    public let part: Int
    public let parts: Int
    /// Generation units done and in total for this file (rows; parts for
    /// partsupp; orders for lineitem).
    public let unitsDone: Int64
    public let unitsTotal: Int64
    public let rowsWritten: Int64
    public let bytesWritten: Int64
}

/// What was written for one table.
public struct DatagenTableSummary: Sendable {
    public let table: TPCHTable
    public var rows: Int64
    public var bytes: Int64
    /// Paths of the files written, in part order.
    public var files: [String]
    /// Wall-clock seconds spent on this table.
    public var seconds: Double
}
