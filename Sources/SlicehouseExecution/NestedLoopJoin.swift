import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlanner

/// Joins without equality keys: every probe row against every build row, the
/// condition evaluated a block of pairs at a time. Used for CROSS JOIN and
/// non-equi conditions; the build side is materialized.
///
/// The output streams: each `next()` forms at most `Chunk.capacity` pairs, from where
/// the previous call stopped, and returns as soon as a block yields rows. A LIMIT above
/// stops pulling after its rows, so `a CROSS JOIN b LIMIT 10` forms one block instead of
/// every pair, and memory stays one block however large the product is.
final class NestedLoopJoinOperator: Operator {
    private let kind: PhysicalJoinKind
    private let probe: Operator
    private let buildInput: Operator
    private let condition: BoundExpr?
    private let singleRow: Bool
    private let probeTypes: [DataType]
    private let buildTypes: [DataType]
    private let cancellation: Cancellation
    private var build: Chunk?
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
         probeTypes: [DataType], buildTypes: [DataType], cancellation: Cancellation = .none) {
        self.cancellation = cancellation
        self.kind = kind; self.probe = probe; self.buildInput = build; self.condition = condition; self.singleRow = singleRow
        self.probeTypes = probeTypes; self.buildTypes = buildTypes
    }

    private func loadBuild() throws -> Chunk {
        if let build { return build }
        var cols = buildTypes.map { Vector(type: $0) }
        var n = 0
        while let c = try buildInput.next() {
            let cc = c.compacted()
            for i in 0..<cols.count { cols[i].append(cc.columns[i], rows: cc.count) }
            n += cc.count
        }
        if singleRow && n > 1 {
            throw SQLError(.cardinality, "more than one row returned by a subquery used as an expression")
        }
        let b = Chunk(columns: cols, count: n)
        build = b
        buildMatched = [Bool](repeating: false, count: n)
        return b
    }

    /// Whether matched pairs are output (as opposed to only marking rows matched).
    private var emitsPairs: Bool { kind == .inner || kind == .left || kind == .right || kind == .full }

    func next() throws -> Chunk? {
        let b = try loadBuild()
        while true {
            guard let pc = current else {
                if probeDone { return rightRemainder(b) }
                guard let next = try probe.next()?.compacted() else { probeDone = true; continue }
                if next.count == 0 { continue }
                current = next
                probeRow = 0
                buildRow = 0
                probeMatched = [Bool](repeating: false, count: next.count)
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
}
