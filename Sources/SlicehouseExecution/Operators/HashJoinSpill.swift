// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseStorage

/// A hash join whose build side did not fit in the statement's memory budget (grace
/// hash join).
///
/// Both inputs are split by the hash of their join keys into `fanOut` partitions, each
/// written to a spill file: first the build rows already read (handed over by the
/// join) and the rest of the build input, then the whole probe input. Equal keys hash
/// alike on both sides, so a build row can only match probe rows of its own partition;
/// each partition pair is then joined by an ordinary `HashJoinOperator` of the same
/// kind, one pair at a time, so the memory needed is about a partition's build side.
/// Every kind that decides per partition works unchanged: unmatched probe rows (left,
/// full, anti) and unmatched build rows (right, full, rightSemi, rightAnti) are found
/// within their partition; NULL keys, which never match, land in some partition and
/// are padded there (rows with a NULL key on a side whose unmatched rows the join does
/// not keep are not written at all). A partition that still does not fit is split again by the join
/// below, on the next bits of the hash (`spillLevel`), up to `maxLevel` times.
///
/// NOT IN (`nullAware`) depends on the whole build side, which no partition sees, so it
/// is settled while partitioning: the build side is non-empty (it overflowed), so when
/// any build row has a NULL key no probe row qualifies and the probe side is not read;
/// otherwise a probe row with a NULL key never qualifies and is dropped, and each
/// partition pair is an ordinary anti join (no build row has a NULL key).
///
/// Partitions use the hash's top bits, which neither the table's buckets (low bits)
/// nor a redistribution across slices (hash modulo the slice count) depend on, so the
/// rows of one slice spread evenly over the partitions.
final class GraceHashJoin {
    static let fanOut = 16
    static let bitsPerLevel = 4
    static let maxLevel = 3
    /// What the hash table adds per build row beyond the row itself: its entry (match
    /// and row number) and its share of the bucket array.
    static let tableBytesPerRow = 24

    /// Bytes of build side below which a join refused memory keeps its table anyway
    /// (counted against the budget, so other operators see it): an eighth of the
    /// statement's budget. Memory the plan holds elsewhere (other joins' tables,
    /// exchanges, the other slices' operators) can leave a join only a few megabytes;
    /// partitioning a table that small again splits it into partitions the same
    /// shortage refuses too, so every level spilled again down to the last. TPC-H Q9
    /// at SF 10 with `--memory 200MB` (a 42 MB budget, 40 MB of it held by the plan)
    /// spilled 963 MB over three levels in 5.5 s, its 3.6 MB partitions refused at
    /// level 1 after 1.4 MB each.
    static func spillFloor(_ memory: QueryMemory) -> Int { (memory.budget ?? 0) / 8 }

    /// Whether a join of `kind` can be partitioned (again) at `level`.
    static func canPartition(kind: JoinKind, nullAware: Bool, level: Int) -> Bool {
        level < maxLevel
    }

    private unowned let join: HashJoinOperator
    private let context: QueryContext
    private let level: Int
    private var buildFiles: [SpillFile?] = []
    private var probeFiles: [SpillFile?] = []
    private var partitioned = false
    private var current: HashJoinOperator?
    private var nextPartition = 0
    private(set) var memoryPeak = 0
    /// Bytes the partitions' joins wrote (they spilled again), and frames written here
    /// and by them (tests read both).
    private(set) var spilledBelow = 0
    private(set) var frames = 0
    private var written = 0
    /// NOT IN: whether a build row with a NULL key was written.
    private var buildHasNullKey = false
    /// Per partition: rows of the side being written that wait for a frame of their own
    /// (`frameRows`), and how many. An input chunk gives each of 16 partitions a
    /// sixteenth of its rows, and a partition joined by a join that spills again a
    /// sixteenth of that: written as they came, frames of 8 rows made every later step
    /// pay its per-chunk costs for 8 rows.
    private var pending: [[Vector]] = []
    private var pendingRows: [Int] = []
    /// What the waiting rows hold of the statement's memory (taken whatever the budget
    /// says: at most `fanOut` frames' rows, as a chunk in flight is).
    private let pendingReservation: MemoryReservation
    private var pendingBytes = 0
    /// Rows a partition's frame gathers before it is written.
    static let frameRows = 1024

    init(join: HashJoinOperator, context: QueryContext, held: Chunk) throws {
        self.join = join
        self.context = context
        level = join.spillLevel
        buildFiles = Array(repeating: nil, count: Self.fanOut)
        probeFiles = Array(repeating: nil, count: Self.fanOut)
        pending = Array(repeating: [], count: Self.fanOut)
        pendingRows = Array(repeating: 0, count: Self.fanOut)
        pendingReservation = MemoryReservation(context.memory)
        try write(held, keys: join.buildKeys, to: &buildFiles, isBuild: true)
    }

    /// Bytes this join and its partitions' joins wrote to spill files.
    var spilledBytes: Int { written + spilledBelow }

    func next() throws -> Chunk? {
        if !partitioned {
            while let chunk = try join.buildInput.next() {
                try context.cancellation.check()
                try write(chunk, keys: join.buildKeys, to: &buildFiles, isBuild: true)
            }
            try writePending(to: &buildFiles)
            partitioned = true
            if join.nullAware && buildHasNullKey {
                // NOT IN against a list holding NULL: no row qualifies.
                buildFiles = []
                nextPartition = Self.fanOut
                return nil
            }
            while let chunk = try join.probe.next() {
                try context.cancellation.check()
                try write(chunk, keys: join.probeKeys, to: &probeFiles, isBuild: false)
            }
            try writePending(to: &probeFiles)
            for f in buildFiles { try f?.flush() }
            for f in probeFiles { try f?.flush() }
        }
        while true {
            if let current {
                if let c = try current.next() { return c }
                memoryPeak = max(memoryPeak, current.memoryPeak)
                spilledBelow += current.spilledBytes
                frames += current.spilledFrames
                self.current = nil
            }
            guard nextPartition < Self.fanOut else { return nil }
            let p = nextPartition
            nextPartition += 1
            // The partition's files are dropped (and their disk space freed) once read.
            // A partition with no rows on one side produces nothing unless the join
            // keeps that side's unmatched rows.
            let buildFile = buildFiles[p], probeFile = probeFiles[p]
            buildFiles[p] = nil
            probeFiles[p] = nil
            if buildFile == nil && probeFile == nil { continue }
            if buildFile == nil && !Self.keepsUnmatchedProbeRows(join.kind) { continue }
            if probeFile == nil && !Self.keepsUnmatchedBuildRows(join.kind) { continue }
            let build = buildFile.map { SpilledChunks($0) } ?? SpilledChunks(nil)
            let probe = probeFile.map { SpilledChunks($0) } ?? SpilledChunks(nil)
            current = HashJoinOperator(kind: join.kind, probe: probe, build: build, probeKeys: join.probeKeys,
                                       buildKeys: join.buildKeys, residual: join.residual, buildTypes: join.buildTypes,
                                       probeTypes: join.probeTypes, nullAware: false, runtimeFilters: [],
                                       spillLevel: level + 1, readOutputs: join.readOutputs, coding: join.coding,
                                       context: context)
        }
    }

    static func keepsUnmatchedProbeRows(_ kind: JoinKind) -> Bool { kind == .left || kind == .full || kind == .anti }
    static func keepsUnmatchedBuildRows(_ kind: JoinKind) -> Bool {
        kind == .right || kind == .full || kind == .rightAnti
    }

    /// Split `chunk`'s rows by the hash of `keys` and add each part to its partition's
    /// waiting rows, writing them to its file (created on its first frame) once they make
    /// a frame (`frameRows`). For NOT IN, a build row with a NULL key is noted and a
    /// probe row with one is left out.
    private func write(_ chunk: Chunk, keys: [Int], to files: inout [SpillFile?], isBuild: Bool) throws {
        guard chunk.count > 0 else { return }
        var flat = chunk.compacted()
        if join.nullAware, let nonNull = try Self.rowsWithoutNullKeys(flat, keys: keys) {
            if isBuild {
                buildHasNullKey = true
            } else {
                if nonNull.isEmpty { return }
                flat = Chunk(columns: flat.columns, count: flat.count, selection: nonNull).compacted()
            }
        } else if !join.nullAware, !(isBuild ? Self.keepsUnmatchedBuildRows(join.kind) : Self.keepsUnmatchedProbeRows(join.kind)),
                  let nonNull = try Self.rowsWithoutNullKeys(flat, keys: keys) {
            // A row with a NULL key matches nothing, and the join does not keep this side's
            // unmatched rows: it is not written. (Written, every such row of the side went
            // to one partition, which outgrew the others and was split again.)
            if nonNull.isEmpty { return }
            flat = Chunk(columns: flat.columns, count: flat.count, selection: nonNull).compacted()
        }
        let rows = flat.count
        var hashes: [UInt64] = []
        for (i, k) in keys.enumerated() {
            guard k >= 0, k < flat.columns.count else { throw SQLError.internalError("hash join key \(k) out of range") }
            OperatorKernels.hashForm(flat.columns[k]).hash(rows: nil, count: rows, into: &hashes, combine: i > 0)
        }
        let shift = UInt64(64 - Self.bitsPerLevel * (level + 1))
        let mask = UInt64(Self.fanOut - 1)
        var parts = [[Int32]](repeating: [], count: Self.fanOut)
        for r in 0..<rows { parts[Int((hashes[r] >> shift) & mask)].append(Int32(r)) }
        let rowBytes = flat.approximateBytes / rows
        for (p, selection) in parts.enumerated() where !selection.isEmpty {
            if pendingRows[p] == 0 && selection.count >= Self.frameRows {
                // A frame's worth already: written as it is, without waiting.
                try writeFrame(selection.count == rows ? flat : Chunk(columns: flat.columns, count: rows, selection: selection),
                               partition: p, to: &files)
                continue
            }
            if pending[p].isEmpty { pending[p] = flat.columns.map { Vector(type: $0.type, capacity: Self.frameRows) } }
            guard pending[p].count == flat.columns.count else {
                throw SQLError.internalError("spilled chunk has \(flat.columns.count) columns, expected \(pending[p].count)")
            }
            selection.withUnsafeBufferPointer { picked in
                for j in pending[p].indices { pending[p][j].append(gathering: picked, from: flat.columns[j]) }
            }
            pendingRows[p] += selection.count
            pendingBytes += selection.count * rowBytes
            if pendingRows[p] >= Self.frameRows { try writePending(p, to: &files) }
        }
        pendingReservation.resize(to: pendingBytes)
    }

    /// Write partition `p`'s waiting rows as one frame.
    private func writePending(_ p: Int, to files: inout [SpillFile?]) throws {
        let n = pendingRows[p]
        guard n > 0 else { return }
        let chunk = Chunk(columns: pending[p], count: n)
        pending[p] = []
        pendingRows[p] = 0
        pendingBytes = max(0, pendingBytes - chunk.approximateBytes)
        try writeFrame(chunk, partition: p, to: &files)
    }

    /// Write every partition's waiting rows (the side is complete).
    private func writePending(to files: inout [SpillFile?]) throws {
        for p in 0..<Self.fanOut { try writePending(p, to: &files) }
        pendingBytes = 0
        pendingReservation.free()
    }

    private func writeFrame(_ chunk: Chunk, partition p: Int, to files: inout [SpillFile?]) throws {
        let file = try context.spillFile(p, in: &files)
        let before = file.size
        try file.appendChunk(chunk)
        written += file.size - before
        frames += 1
    }
}

extension GraceHashJoin {
    /// The rows of `chunk` (compacted) with no NULL in any of `keys`, or nil when no row
    /// has a NULL key.
    static func rowsWithoutNullKeys(_ chunk: Chunk, keys: [Int]) throws -> [Int32]? {
        let n = chunk.count
        var withNulls: [Validity] = []
        for k in keys {
            guard k >= 0, k < chunk.columns.count else { throw SQLError.internalError("hash join key \(k) out of range") }
            let v = OperatorKernels.flat(chunk.columns[k], physicalCount: n)
            if OperatorKernels.anyNull(v, rows: nil, count: n), let validity = v.validity { withNulls.append(validity) }
        }
        if withNulls.isEmpty { return nil }
        var rows: [Int32] = []
        for r in 0..<n where withNulls.allSatisfy({ $0.isValid(r) }) { rows.append(Int32(r)) }
        return rows
    }
}

/// Reads back the chunks a spill file holds, once, front to back.
final class SpilledChunks: Operator {
    private var reader: SpillReader?

    /// nil: no rows.
    init(_ file: SpillFile?) { reader = file?.reader() }

    func next() throws -> Chunk? {
        guard var r = reader else { return nil }
        let c = try r.readChunk()
        reader = c == nil ? nil : r
        return c
    }
}
