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

    /// The partition at `level` of a row whose key hash (`KeyHashing`) is `keyHash`.
    @inline(__always)
    static func partition(_ keyHash: UInt64, level: Int) -> Int {
        Int(truncatingIfNeeded: (Hashing.hash(keyHash) &>> UInt64(32 + 4 * level)) & UInt64(fanOut - 1))
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
        // Filled as a local (no exclusivity checks on the property per row), then put back
        // to keep its capacity for the next chunk.
        var byPartition = partitionRows
        partitionRows = []
        defer { partitionRows = byPartition }
        for p in 0..<Self.fanOut { byPartition[p].removeAll(keepingCapacity: true) }
        hashes.withUnsafeBufferPointer { h in
            rows.withUnsafeBufferPointer { r in
                for k in 0..<n { byPartition[Self.partition(h[k], level: level)].append(r[k]) }
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

/// One partition of an operator's rows held in memory (`MemoryPartitioner`): its chunks,
/// each tagged as partial states or raw rows, in the order they were added.
struct MemoryPartition {
    var chunks: [(chunk: Chunk, states: Bool)]
    /// The level that split it: splitting it again reads the next 4 bits of the hash.
    let level: Int
    /// Bytes its chunks hold (`Chunk.memoryBytes`).
    let bytes: Int
    /// About how many distinct keys its rows have (a HyperLogLog estimate, within a few
    /// percent), for sizing its table before it is aggregated.
    var groups: Int = 0
}

/// Splits chunks among `SpillPartitioner.fanOut` partitions held in memory, by the same
/// bits of the key hash as a `SpillPartitioner` of the same level: a hash aggregate whose
/// table has outgrown the caches splits the rest of its input so that each partition's
/// table, aggregated on its own afterwards, is a sixteenth of the size (radix
/// partitioning). Each partition fills one open chunk at a time, sealed at
/// `Chunk.capacity` rows; a chunk's rows are ordered by partition first, so each
/// partition's share is appended column by column in one pass.
final class MemoryPartitioner {
    let level: Int
    private let keyColumns: [Int]
    private var sealed: [[(chunk: Chunk, states: Bool)]]
    private var sealedBytes: [Int]
    /// Per partition: the open chunk's columns (empty: none open), rows and tag.
    private var open: [[Vector]]
    private var openRows: [Int]
    private var openStates: [Bool]
    private var hashes: [UInt64] = []
    private var rowCache: [Int32] = []
    private var order: [Int32] = []
    /// Per partition, `sketchRegisters` HyperLogLog registers of its keys' hashes.
    private var sketches: [UInt8]
    static let sketchPrecision = 9
    static let sketchRegisters = 1 << sketchPrecision

    init(level: Int, keyColumns: [Int]) throws {
        guard level >= 0 && level <= SpillPartitioner.maxLevel else {
            throw SQLError.internalError("partitioning level \(level) out of range")
        }
        self.level = level
        self.keyColumns = keyColumns
        let f = SpillPartitioner.fanOut
        sealed = Array(repeating: [], count: f)
        sealedBytes = Array(repeating: 0, count: f)
        open = Array(repeating: [], count: f)
        openRows = Array(repeating: 0, count: f)
        openStates = Array(repeating: false, count: f)
        sketches = [UInt8](filled: 0, count: f * Self.sketchRegisters)
    }

    /// Bytes held: the sealed chunks, and the open ones' buffers.
    var memoryBytes: Int {
        var n = 0
        for p in 0..<SpillPartitioner.fanOut {
            n += sealedBytes[p]
            for v in open[p] { n += v.memoryBytes }
        }
        return n
    }

    /// Add the logical rows of `chunk` to their partitions.
    func add(_ chunk: Chunk, states: Bool) throws {
        let n = chunk.count
        if n == 0 { return }
        let fanOut = SpillPartitioner.fanOut
        let physical = chunk.physicalCount
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        for k in keyColumns where k < 0 || k >= chunk.columns.count {
            throw SQLError.internalError("partition key \(k) out of range")
        }
        let keys = keyColumns.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
        KeyHashing.hash(keys, rows: rows, into: &hashes)
        // The chunk's rows ordered by partition (a counting sort).
        var start = [Int](repeating: 0, count: fanOut + 1)
        order = [Int32](filled: 0, count: n)
        let level = self.level
        // Pointers only inside the loops: a counter array captured by the closures would
        // be boxed and checked on every row (this pass was a third of the split's time).
        let precision = Self.sketchPrecision
        hashes.withUnsafeBufferPointer { h in
            rows.withUnsafeBufferPointer { r in
                order.withUnsafeMutableBufferPointer { o in
                    start.withUnsafeMutableBufferPointer { st in
                      sketches.withUnsafeMutableBufferPointer { sk in
                        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { partOf in
                            withUnsafeTemporaryAllocation(of: Int.self, capacity: fanOut) { fill in
                                for k in 0..<n {
                                    let p = SpillPartitioner.partition(h[k], level: level)
                                    partOf[k] = UInt8(truncatingIfNeeded: p)
                                    st[p &+ 1] &+= 1
                                    // The key's register in its partition's sketch (bits
                                    // of the hash mixed again: the partition's rows share
                                    // the bits that chose it).
                                    let x = HyperLogLog.remix(h[k])
                                    let reg = p &<< precision | HyperLogLog.register(x, precision: precision)
                                    sk[reg] = max(sk[reg], HyperLogLog.rank(x, precision: precision))
                                }
                                for p in 0..<fanOut {
                                    st[p &+ 1] &+= st[p]
                                    fill[p] = st[p]
                                }
                                for k in 0..<n {
                                    let p = Int(partOf[k])
                                    o[fill[p]] = r[k]
                                    fill[p] &+= 1
                                }
                            }
                        }
                      }
                    }
                }
            }
        }
        for p in 0..<fanOut where start[p + 1] > start[p] {
            var from = start[p]
            let end = start[p + 1]
            while from < end {
                if !open[p].isEmpty && (openStates[p] != states || open[p].count != chunk.columns.count) {
                    seal(p)
                }
                if open[p].isEmpty {
                    open[p] = chunk.columns.map { Vector(type: $0.type, capacity: Chunk.capacity) }
                    openStates[p] = states
                }
                let take = min(end - from, Chunk.capacity - openRows[p])
                var columns = open[p]
                open[p] = []
                order.withUnsafeBufferPointer { o in
                    let picked = UnsafeBufferPointer(rebasing: o[from..<(from + take)])
                    for j in columns.indices { columns[j].append(gathering: picked, from: chunk.columns[j]) }
                }
                open[p] = columns
                openRows[p] += take
                from += take
                if openRows[p] >= Chunk.capacity { seal(p) }
            }
        }
    }

    private func seal(_ p: Int) {
        guard !open[p].isEmpty else { return }
        let chunk = Chunk(columns: open[p], count: openRows[p])
        sealed[p].append((chunk, openStates[p]))
        sealedBytes[p] += chunk.memoryBytes
        open[p] = []
        openRows[p] = 0
    }

    /// The partitions that got rows, in partition order; the partitioner is left empty.
    func finish() -> [MemoryPartition] {
        var out: [MemoryPartition] = []
        for p in 0..<SpillPartitioner.fanOut {
            seal(p)
            if !sealed[p].isEmpty {
                let registers = p * Self.sketchRegisters..<(p + 1) * Self.sketchRegisters
                let groups = sketches.withUnsafeBufferPointer { sk in
                    HyperLogLog.estimate(UnsafeBufferPointer(rebasing: sk[registers]), rankBits: 64 - Self.sketchPrecision)
                }
                out.append(MemoryPartition(chunks: sealed[p], level: level, bytes: sealedBytes[p],
                                           groups: groups.isFinite ? Int(groups.rounded()) : 0))
            }
            sealed[p] = []
            sealedBytes[p] = 0
        }
        sketches = [UInt8](filled: 0, count: SpillPartitioner.fanOut * Self.sketchRegisters)
        return out
    }

    /// Write everything held to `partitioner` (of the same level: each partition's rows
    /// land in the file of the same number) and empty this one.
    func drain(into partitioner: SpillPartitioner) throws {
        for part in finish() {
            for (chunk, states) in part.chunks { try partitioner.add(chunk, states: states) }
        }
    }
}
