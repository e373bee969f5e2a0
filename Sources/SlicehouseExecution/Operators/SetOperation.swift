// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// INTERSECT [ALL] and EXCEPT [ALL] by hashing whole rows.
///
/// Both inputs have the same column types (`types`). Rows compare equal when every
/// column is equal, NULL equal to NULL (set operations treat NULLs as not distinct).
///
/// | kind         | `all: false` (DISTINCT)                  | `all: true`                       |
/// |--------------|------------------------------------------|-----------------------------------|
/// | `.intersect` | each row in both inputs, once            | each row min(left, right) times   |
/// | `.except`    | each left row absent from the right, once | each row max(left − right, 0) times |
///
/// Sink: the left input's distinct rows go into a `GroupTable` with a count per row;
/// the right input is looked up (never inserted) and counted. Source: the qualifying
/// rows in order of first appearance on the left, `Chunk.capacity` rows per chunk.
public final class SetOperationOperator: Operator {
    public enum Kind: String, Sendable, Equatable {
        case intersect, except
    }

    // Configuration (immutable).
    private let kind: Kind
    private let all: Bool
    private let left: Operator
    private let right: Operator
    private let types: [DataType]

    // Per-instance state.
    private let table: GroupTable
    private var leftCounts: [Int64] = []
    private var rightCounts: [Int64] = []
    private var consumed = false
    /// Output rows: group ids, repeated for ALL.
    private var emitOrder: [Int32] = []
    private var position = 0
    private var rowCache: [Int32] = []
    private var hashes: [UInt64] = []
    private var groupIds: [Int32] = []

    /// - Parameters:
    ///   - kind: INTERSECT or EXCEPT.
    ///   - all: multiset (ALL) semantics instead of DISTINCT.
    ///   - left: the first query.
    ///   - right: the second query.
    ///   - types: the column types of both inputs and of the output.
    public init(kind: Kind, all: Bool, left: Operator, right: Operator, types: [DataType]) {
        self.kind = kind
        self.all = all
        self.left = left
        self.right = right
        self.types = types
        self.table = GroupTable(keyTypes: types)
    }

    public func next() throws -> Chunk? {
        if !consumed {
            try consume()
            consumed = true
        }
        guard position < emitOrder.count else { return nil }
        let end = min(emitOrder.count, position + Chunk.capacity)
        let rows = Array(emitOrder[position..<end])
        position = end
        return Chunk(columns: table.keys.map { OperatorKernels.gather($0, rows) }, count: rows.count)
    }

    private func consume() throws {
        while let chunk = try left.next() {
            if chunk.count == 0 { continue }
            try probe(chunk, insert: true)
            let n = table.count
            if leftCounts.count < n { leftCounts.append(contentsOf: repeatElement(0, count: n - leftCounts.count)) }
            leftCounts.withUnsafeMutableBufferPointer { lc in
                for g in groupIds { lc[Int(g)] &+= 1 }
            }
        }
        rightCounts = [Int64](filled: 0, count: table.count)
        if table.count > 0 {
            while let chunk = try right.next() {
                if chunk.count == 0 { continue }
                try probe(chunk, insert: false)
                rightCounts.withUnsafeMutableBufferPointer { rc in
                    for g in groupIds where g >= 0 { rc[Int(g)] &+= 1 }
                }
            }
        }
        for g in 0..<table.count {
            let l = leftCounts[g], r = rightCounts[g]
            let times: Int64
            switch (kind, all) {
            case (.intersect, false): times = l > 0 && r > 0 ? 1 : 0
            case (.except, false): times = l > 0 && r == 0 ? 1 : 0
            case (.intersect, true): times = min(l, r)
            case (.except, true): times = max(l - r, 0)
            }
            for _ in 0..<times { emitOrder.append(Int32(truncatingIfNeeded: g)) }
        }
    }

    private func probe(_ chunk: Chunk, insert: Bool) throws {
        guard chunk.columns.count == types.count else {
            throw SQLError.internalError("set operation input has \(chunk.columns.count) columns, expected \(types.count)")
        }
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        let keys = chunk.columns.map { OperatorKernels.key($0, physicalCount: chunk.physicalCount) }
        KeyHashing.hash(keys, rows: rows, into: &hashes)
        try table.findOrInsert(keys, rows: rows, hashes: hashes, insert: insert, groupIds: &groupIds)
    }
}
