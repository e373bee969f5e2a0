import SlicehouseTypes
import SlicehouseRuntime

/// One spilled partition of an operator that splits its rows by the hash of some key
/// columns (a hash aggregate's groups, a window's partitions): a spill file of tagged
/// chunks for the keys whose hash falls in it at `level`. A hash aggregate writes partial
/// states first, then raw rows; a window writes rows only.
struct SpillPartition {
    let file: SpillFile
    /// The level that wrote it: partitioning it again reads the next 4 bits of the hash.
    let level: Int
}

/// Splits chunks among `fanOut` spill files by the hash of their key columns
/// (`keyColumns`): a spilling `HashAggregateOperator` (its group keys) or
/// `WindowOperator` (its PARTITION BY columns).
///
/// Each chunk in a file is a tag byte (1: partial states, 0: raw rows) and a
/// `ChunkSpill` frame. A key's partition at level L is bits `32 + 4L ..< 36 + 4L` of its
/// remixed key hash: bits that neither the exchange (the hash modulo the slice count) nor
/// the group tables (low bits for the slot, the top 16 as salt) depend on, so the rows of
/// one slice spread evenly, and each level splits a partition by bits the levels above
/// did not use. Files are created when their first chunk arrives.
final class SpillPartitioner {
    /// The deepest level: its bits are the hash's last four.
    static let maxLevel = 7
    static let fanOut = 16
    static let statesTag: UInt8 = 1
    static let rowsTag: UInt8 = 0

    let level: Int
    private let keyColumns: [Int]
    private let context: QueryContext
    private var files: [SpillFile?]
    private var hashes: [UInt64] = []
    private var rowCache: [Int32] = []
    private var partitionRows: [[Int32]]

    init(level: Int, keyColumns: [Int], context: QueryContext?) throws {
        guard let context else { throw SQLError.internalError("spilling without a query context") }
        guard level >= 0 && level <= Self.maxLevel else {
            throw SQLError.internalError("spill partitioning level \(level) out of range")
        }
        self.level = level
        self.keyColumns = keyColumns
        self.context = context
        files = Array(repeating: nil, count: Self.fanOut)
        partitionRows = Array(repeating: [], count: Self.fanOut)
    }

    /// Bytes written to the files so far (after `finish`, all of them).
    private(set) var bytesWritten = 0

    /// Write the logical rows of `chunk` to their partitions.
    func add(_ chunk: Chunk, states: Bool) throws {
        let n = chunk.count
        if n == 0 { return }
        let physical = chunk.physicalCount
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        let keys = keyColumns.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
        KeyHashing.hash(keys, rows: rows, into: &hashes)
        let shift = UInt64(32 + 4 * level)
        let mask = UInt64(Self.fanOut - 1)
        // Filled as a local (no exclusivity checks on the property per row), then put back
        // to keep its capacity for the next chunk.
        var byPartition = partitionRows
        partitionRows = []
        defer { partitionRows = byPartition }
        for p in 0..<Self.fanOut { byPartition[p].removeAll(keepingCapacity: true) }
        hashes.withUnsafeBufferPointer { h in
            rows.withUnsafeBufferPointer { r in
                for k in 0..<n {
                    let p = Int(truncatingIfNeeded: (Hashing.hash(h[k]) &>> shift) & mask)
                    byPartition[p].append(r[k])
                }
            }
        }
        for p in 0..<Self.fanOut where !byPartition[p].isEmpty {
            let picked = byPartition[p]
            let part = Chunk(columns: chunk.columns.map { OperatorKernels.gather($0, picked) }, count: picked.count)
            let file = try context.spillFile(p, in: &files)
            try file.append(states ? Self.statesTag : Self.rowsTag)
            try file.appendChunk(part)
        }
    }

    /// The partitions written, in partition order (their buffers flushed).
    func finish() throws -> [SpillPartition] {
        var out: [SpillPartition] = []
        bytesWritten = 0
        for case let file? in files {
            try file.flush()
            bytesWritten += file.size
            out.append(SpillPartition(file: file, level: level))
        }
        return out
    }

    /// The next chunk of a partition file and whether it holds partial states, or nil at
    /// its end.
    static func read(_ reader: inout SpillReader) throws -> (Chunk, Bool)? {
        if reader.atEnd { return nil }
        let tag = try reader.read(UInt8.self)
        guard tag == statesTag || tag == rowsTag, let chunk = try reader.readChunk() else {
            throw SQLError.internalError("corrupt partition spill file")
        }
        return (chunk, tag == statesTag)
    }
}

extension QueryContext {
    /// `files[p]`, created in this statement's spill space on first use (a partitioned
    /// spill opens only the partitions that get rows).
    func spillFile(_ p: Int, in files: inout [SpillFile?]) throws -> SpillFile {
        if let f = files[p] { return f }
        let f = try spill.newFile(for: memory)
        files[p] = f
        return f
    }
}
