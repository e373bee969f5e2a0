// SPDX-License-Identifier: Apache-2.0
/// A batch of rows: one vector per column plus an optional selection vector.
///
/// When `selection` is set, only the rows it lists (indices into the vectors,
/// ascending) are part of the chunk; a filter produces a selection instead of
/// copying columns. `count` is the number of *logical* rows.
public struct Chunk: Sendable {
    public var columns: [Vector]
    /// Physical row count of the (non-constant) vectors.
    public var physicalCount: Int
    public var selection: [Int32]?

    /// Rows per chunk produced by scans and operators.
    public static let capacity = 2048

    public init(columns: [Vector], count: Int, selection: [Int32]? = nil) {
        self.columns = columns
        self.physicalCount = count
        self.selection = selection
    }

    /// Logical number of rows.
    @inlinable public var count: Int { selection?.count ?? physicalCount }

    /// The physical index of logical row `i`.
    @inlinable public func row(_ i: Int) -> Int {
        if let selection { return Int(selection[i]) }
        return i
    }

    /// A chunk with no selection (selected rows gathered).
    public func compacted() -> Chunk {
        guard let selection else { return self }
        return Chunk(columns: columns.map { $0.gather(selection) }, count: selection.count)
    }

    /// Only the columns at `indices`.
    public func projecting(_ indices: [Int]) -> Chunk {
        Chunk(columns: indices.map { columns[$0] }, count: physicalCount, selection: selection)
    }

    /// Value at logical row `i`, column `c` (slow path).
    public func value(row i: Int, column c: Int) -> Value {
        columns[c].value(at: row(i))
    }
}
