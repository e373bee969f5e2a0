import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlanner
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
/// are padded there. A partition that still does not fit is split again by the join
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
    private var spilledBelow = 0
    private var written = 0
    /// NOT IN: whether a build row with a NULL key was written.
    private var buildHasNullKey = false

    init(join: HashJoinOperator, context: QueryContext, held: Chunk) throws {
        self.join = join
        self.context = context
        level = join.spillLevel
        buildFiles = Array(repeating: nil, count: Self.fanOut)
        probeFiles = Array(repeating: nil, count: Self.fanOut)
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
            for f in buildFiles { try f?.flush() }
            for f in probeFiles { try f?.flush() }
        }
        while true {
            if let current {
                if let c = try current.next() { return c }
                memoryPeak = max(memoryPeak, current.memoryPeak)
                spilledBelow += current.spilledBytes
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
                                       context: context, spillLevel: level + 1, readOutputs: join.readOutputs)
        }
    }

    static func keepsUnmatchedProbeRows(_ kind: JoinKind) -> Bool { kind == .left || kind == .full || kind == .anti }
    static func keepsUnmatchedBuildRows(_ kind: JoinKind) -> Bool {
        kind == .right || kind == .full || kind == .rightAnti
    }

    /// Split `chunk`'s rows by the hash of `keys` and append each part to its file
    /// (created on its first rows). For NOT IN, a build row with a NULL key is noted and
    /// a probe row with one is left out.
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
        }
        let rows = flat.count
        var hashes: [UInt64] = []
        for (i, k) in keys.enumerated() {
            guard k >= 0, k < flat.columns.count else { throw SQLError.internalError("hash join key \(k) out of range") }
            flat.columns[k].hash(rows: nil, count: rows, into: &hashes, combine: i > 0)
        }
        let shift = UInt64(64 - Self.bitsPerLevel * (level + 1))
        let mask = UInt64(Self.fanOut - 1)
        var parts = [[Int32]](repeating: [], count: Self.fanOut)
        for r in 0..<rows { parts[Int((hashes[r] >> shift) & mask)].append(Int32(r)) }
        for (p, selection) in parts.enumerated() where !selection.isEmpty {
            let file = try context.spillFile(p, in: &files)
            let before = file.size
            if selection.count == rows {
                try file.appendChunk(flat)
            } else {
                try file.appendChunk(Chunk(columns: flat.columns, count: rows, selection: selection))
            }
            written += file.size - before
        }
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
