// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// A pull-based operator running on one slice (or on the leader).
///
/// `next()` returns the next chunk or nil when exhausted. Operators of one slice
/// run on one thread; different slices run in parallel, each with its own
/// operator instances (operators hold per-slice state only).
public protocol Operator: AnyObject {
    func next() throws -> Chunk?
}

/// Replays materialized chunks (exchange outputs, build sides, tests).
public final class ChunkSource: Operator {
    private var chunks: [Chunk]
    private var index = 0
    public init(_ chunks: [Chunk]) { self.chunks = chunks }
    public func next() throws -> Chunk? {
        while index < chunks.count {
            let c = chunks[index]
            chunks[index] = Chunk(columns: [], count: 0)   // release memory as we go
            index += 1
            if c.count > 0 { return c }
        }
        return nil
    }
}

extension Operator {
    /// Drain into an array of chunks.
    public func collect() throws -> [Chunk] {
        var out: [Chunk] = []
        while let c = try next() { out.append(c) }
        return out
    }
}
