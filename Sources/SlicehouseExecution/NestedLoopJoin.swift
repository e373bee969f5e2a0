// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions

/// Joins without equality keys: every probe row against every build row, the
/// condition evaluated a block of pairs at a time. Used for CROSS JOIN and
/// non-equi conditions; the build side is materialized.
///
/// The output streams: each `next()` forms at most `Chunk.capacity` pairs, from where
/// the previous call stopped, and returns as soon as a block yields rows. A LIMIT above
/// stops pulling after its rows, so `a CROSS JOIN b LIMIT 10` forms one block instead of
/// every pair, and memory stays one block however large the product is.
///
/// ## Memory
/// With a statement context the build side reserves what it holds as it is read. When
/// the budget refuses it, the join becomes a block nested loop: the build rows (those
/// held and the rest) go to a spill file, and are read back a block at a time (about
/// what was held when the budget refused); the probe side is joined with the first block
/// as it is read and written to a second file, which every later block reads again.
/// Matches are recorded per probe row over all blocks (LEFT, FULL, SEMI, ANTI: those rows
/// come after the last block, from one more read of the probe file) and per build row
/// within its block (RIGHT, FULL: after the block's pass). The output order differs from
/// the in-memory join's. A scalar subquery's build side (`singleRow`) never spills.
final class NestedLoopJoinOperator: Operator, MemoryHolding {
    private let kind: PhysicalJoinKind
    private let probe: Operator
    private let buildInput: Operator
    private let condition: BoundExpr?
    private let singleRow: Bool
    private let probeTypes: [DataType]
    private let buildTypes: [DataType]
    private let cancellation: Cancellation
    private let context: QueryContext
    private let reservation: MemoryReservation
    private var loaded = false
    private var build: Chunk?
    /// The block nested loop's state, once the build side went to disk.
    private var blocked: BlockedState?
    private var buildMatched: [Bool] = []
    private var probeDone = false
    private var emittedRightRemainder = false
    private var unmatchedBuild: [Int32] = []
    private var unmatchedBuildOffset = 0

    // Where the pairing stands: the probe chunk being joined, its next row, the next
    // build row for that probe row, and which of its rows have found a match.
    private var current: Chunk?
    private var probeRow = 0
    private var buildRow = 0
    private var probeMatched: [Bool] = []

    init(kind: PhysicalJoinKind, probe: Operator, build: Operator, condition: BoundExpr?, singleRow: Bool = false,
         probeTypes: [DataType], buildTypes: [DataType], context: QueryContext) {
        cancellation = context.cancellation
        self.context = context
        reservation = MemoryReservation(context.memory)
        self.kind = kind; self.probe = probe; self.buildInput = build; self.condition = condition; self.singleRow = singleRow
        self.probeTypes = probeTypes; self.buildTypes = buildTypes
    }

    var memoryPeak: Int { reservation.peak }
    var spilledBytes: Int { blocked.map { $0.buildFile.size + $0.probeFile.size } ?? 0 }

    /// Read the build side into `build`, or, when the budget refuses it, into a spill file
    /// (`blocked`).
    private func loadBuild() throws {
        loaded = true
        var cols = buildTypes.map { Vector(type: $0) }
        var n = 0
        var held = 0
        while let c = try buildInput.next() {
            let cc = c.compacted()
            for i in 0..<cols.count { cols[i].append(cc.columns[i], rows: cc.count) }
            n += cc.count
            if singleRow && n > 1 {
                throw SQLError(.cardinality, "more than one row returned by a subquery used as an expression")
            }
            guard cc.count > 0 else { continue }
            held += cc.approximateBytes
            if reservation.tryResize(to: held) { continue }
            guard !singleRow else {
                reservation.resize(to: held)   // cannot spill: hold it anyway, counted
                continue
            }
            try cancellation.check()
            let state = BlockedState(buildFile: try context.spill.newFile(for: context.memory),
                                     probeFile: try context.spill.newFile(for: context.memory), blockBytes: held)
            try state.buildFile.appendChunk(Chunk(columns: cols, count: n))
            cols = []
            reservation.free()
            while let rest = try buildInput.next() {
                try cancellation.check()
                if rest.count > 0 { try state.buildFile.appendChunk(rest) }
            }
            try state.buildFile.flush()
            state.buildReader = state.buildFile.reader()
            blocked = state
            return
        }
        build = Chunk(columns: cols, count: n)
        buildMatched = [Bool](filled: false, count: n)
    }

    /// Whether matched pairs are output (as opposed to only marking rows matched).
    private var emitsPairs: Bool { kind == .inner || kind == .left || kind == .right || kind == .full }

    func next() throws -> Chunk? {
        if !loaded { try loadBuild() }
        if let blocked { return try nextBlocked(blocked) }
        guard let b = build else { return nil }
        while true {
            guard let pc = current else {
                if probeDone { return rightRemainder(b) }
                guard let next = try probe.next()?.compacted() else { probeDone = true; continue }
                if next.count == 0 { continue }
                current = next
                probeRow = 0
                buildRow = 0
                probeMatched = [Bool](filled: false, count: next.count)
                continue
            }
            if probeRow < pc.count && b.count > 0 {
                try cancellation.check()
                if let out = try joinBlock(pc, b) { return out }
                continue
            }
            // This probe chunk is done: its unmatched (LEFT/FULL/ANTI) or matched (SEMI) rows.
            current = nil
            if let out = probeRemainder(pc) { return out }
        }
    }

    /// Pair the next block of (probe row, build row) combinations and evaluate the
    /// condition on it; the matched pairs when this join outputs pairs and has some.
    private func joinBlock(_ pc: Chunk, _ b: Chunk) throws -> Chunk? {
        let capacity = Chunk.capacity
        var pIdx: [Int32] = [], bIdx: [Int32] = []
        pIdx.reserveCapacity(capacity)
        bIdx.reserveCapacity(capacity)
        let onlyMarks = kind == .semi || kind == .anti
        while probeRow < pc.count && pIdx.count < capacity {
            if onlyMarks && probeMatched[probeRow] {
                // A SEMI/ANTI row needs one match; skip the rest of its build rows.
                probeRow += 1
                buildRow = 0
                continue
            }
            let take = min(b.count - buildRow, capacity - pIdx.count)
            let p = Int32(truncatingIfNeeded: probeRow)
            for j in buildRow..<(buildRow + take) {
                pIdx.append(p)
                bIdx.append(Int32(truncatingIfNeeded: j))
            }
            buildRow += take
            if buildRow == b.count {
                buildRow = 0
                probeRow += 1
            }
        }
        if pIdx.isEmpty { return nil }
        let pairs = Chunk(columns: pc.columns.map { $0.gather(pIdx) } + b.columns.map { $0.gather(bIdx) }, count: pIdx.count)
        let sel: [Int32] = try condition.map { try ExpressionEvaluator.select($0, pairs) } ?? (0..<Int32(pIdx.count)).map { $0 }
        for s in sel {
            probeMatched[Int(pIdx[Int(s)])] = true
            buildMatched[Int(bIdx[Int(s)])] = true
        }
        guard emitsPairs, !sel.isEmpty else { return nil }
        return Chunk(columns: pairs.columns, count: pairs.physicalCount, selection: sel).compacted()
    }

    /// The rows of a finished probe chunk that this kind of join outputs on their own.
    private func probeRemainder(_ pc: Chunk) -> Chunk? {
        switch kind {
        case .left, .full:
            let rows = (0..<pc.count).filter { !probeMatched[$0] }.map { Int32($0) }
            if rows.isEmpty { return nil }
            return Chunk(columns: pc.columns.map { $0.gather(rows) } + buildTypes.map { Vector.nulls($0, count: rows.count) },
                         count: rows.count)
        case .semi, .anti:
            let want = kind == .semi
            let rows = (0..<pc.count).filter { probeMatched[$0] == want }.map { Int32($0) }
            if rows.isEmpty { return nil }
            return Chunk(columns: pc.columns.map { $0.gather(rows) }, count: rows.count)
        default:
            return nil
        }
    }

    /// RIGHT/FULL: the build rows no probe row matched, once the probe side is done,
    /// a block at a time.
    private func rightRemainder(_ b: Chunk) -> Chunk? {
        guard kind == .right || kind == .full else { return nil }
        if !emittedRightRemainder {
            emittedRightRemainder = true
            unmatchedBuild = (0..<b.count).filter { !buildMatched[$0] }.map { Int32($0) }
        }
        guard unmatchedBuildOffset < unmatchedBuild.count else { return nil }
        let end = min(unmatchedBuild.count, unmatchedBuildOffset + Chunk.capacity)
        let rows = Array(unmatchedBuild[unmatchedBuildOffset..<end])
        unmatchedBuildOffset = end
        let left = probeTypes.map { Vector.nulls($0, count: rows.count) }
        return Chunk(columns: left + b.columns.map { $0.gather(rows) }, count: rows.count)
    }

    // MARK: - Block nested loop

    /// Where a block nested loop stands.
    final class BlockedState {
        let buildFile: SpillFile
        let probeFile: SpillFile
        /// Bytes of build rows per block.
        let blockBytes: Int
        var buildReader: SpillReader?
        /// The build block being joined.
        var block: Chunk?
        /// The first pass reads the probe operator (and writes the probe file); later
        /// passes read the file.
        var firstPass = true
        var probeReader: SpillReader?
        /// Global index of the current probe chunk's first row.
        var probeBase = 0
        /// Per probe row, over all blocks: matched.
        var matched: [Bool] = []
        /// After the last block: reading the probe file for LEFT/FULL/SEMI/ANTI rows.
        var remainderReader: SpillReader?
        var done = false

        init(buildFile: SpillFile, probeFile: SpillFile, blockBytes: Int) {
            self.buildFile = buildFile
            self.probeFile = probeFile
            self.blockBytes = max(blockBytes, 1)
        }
    }

    private func nextBlocked(_ s: BlockedState) throws -> Chunk? {
        while true {
            if s.done { reservation.free(); return nil }
            if let b = s.block {
                if let pc = current {
                    if probeRow < pc.count && b.count > 0 {
                        try cancellation.check()
                        if let out = try joinBlock(pc, b) { return out }
                        continue
                    }
                    for i in 0..<pc.count where probeMatched[i] { s.matched[s.probeBase + i] = true }
                    s.probeBase += pc.count
                    current = nil
                    continue
                }
                if let pc = try nextProbeChunk(s) {
                    current = pc
                    probeRow = 0
                    buildRow = 0
                    probeMatched = Array(s.matched[s.probeBase..<(s.probeBase + pc.count)])
                    continue
                }
                // The block has met every probe row: its unmatched rows (RIGHT, FULL).
                if let out = rightRemainder(b) { return out }
                s.block = nil
                s.firstPass = false
                continue
            }
            if let block = try readBlock(s) {
                s.block = block
                s.probeBase = 0
                s.probeReader = s.firstPass ? nil : s.probeFile.reader()
                buildMatched = [Bool](filled: false, count: block.count)
                emittedRightRemainder = false
                unmatchedBuild = []
                unmatchedBuildOffset = 0
                continue
            }
            // Every block is done: the probe rows this kind outputs on their own.
            reservation.free()
            guard kind == .left || kind == .full || kind == .semi || kind == .anti else { s.done = true; continue }
            if s.firstPass {
                // No block at all cannot happen (the build side overflowed), but be exact.
                while try nextProbeChunk(s) != nil {}
                s.firstPass = false
            }
            if s.remainderReader == nil {
                s.remainderReader = s.probeFile.reader()
                s.probeBase = 0
            }
            guard var reader = s.remainderReader, let pc = try reader.readChunk() else { s.done = true; continue }
            s.remainderReader = reader
            probeMatched = Array(s.matched[s.probeBase..<(s.probeBase + pc.count)])
            s.probeBase += pc.count
            if let out = probeRemainder(pc) { return out }
        }
    }

    /// The next probe chunk of this pass: from the probe operator on the first pass
    /// (written to the probe file), from the file on later ones.
    private func nextProbeChunk(_ s: BlockedState) throws -> Chunk? {
        if s.firstPass {
            while let c = try probe.next() {
                let pc = c.compacted()
                if pc.count == 0 { continue }
                try s.probeFile.appendChunk(pc)
                s.matched.append(contentsOf: repeatElement(false, count: pc.count))
                return pc
            }
            try s.probeFile.flush()
            return nil
        }
        guard var reader = s.probeReader else { return nil }
        let c = try reader.readChunk()
        s.probeReader = reader
        return c
    }

    /// The next block of build rows from the build file (at least one chunk, about
    /// `blockBytes`), reserved; nil when all are done.
    private func readBlock(_ s: BlockedState) throws -> Chunk? {
        guard var reader = s.buildReader else { return nil }
        var cols = buildTypes.map { Vector(type: $0) }
        var n = 0, bytes = 0
        while bytes < s.blockBytes, let c = try reader.readChunk() {
            for i in 0..<cols.count { cols[i].append(c.columns[i], rows: c.count) }
            n += c.count
            bytes += c.approximateBytes
        }
        s.buildReader = n == 0 ? nil : reader
        if n == 0 { return nil }
        reservation.resize(to: bytes)
        return Chunk(columns: cols, count: n)
    }
}
