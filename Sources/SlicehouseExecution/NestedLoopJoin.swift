import SlicehouseTypes
import SlicehousePlanner

/// Joins without equality keys: every probe row against every build row, the
/// condition evaluated a block of pairs at a time. Used for CROSS JOIN and
/// non-equi conditions; the build side is materialized.
final class NestedLoopJoinOperator: Operator {
    private let kind: PhysicalJoinKind
    private let probe: Operator
    private let buildInput: Operator
    private let condition: BoundExpr?
    private let singleRow: Bool
    private let probeTypes: [DataType]
    private let buildTypes: [DataType]
    private var build: Chunk?
    private var buildMatched: [Bool] = []
    private var pending: [Chunk] = []
    private var probeDone = false
    private var emittedRightRemainder = false

    init(kind: PhysicalJoinKind, probe: Operator, build: Operator, condition: BoundExpr?, singleRow: Bool = false,
         probeTypes: [DataType], buildTypes: [DataType]) {
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

    func next() throws -> Chunk? {
        let b = try loadBuild()
        while pending.isEmpty {
            if probeDone {
                if (kind == .right || kind == .full) && !emittedRightRemainder {
                    emittedRightRemainder = true
                    let rows = (0..<b.count).filter { !buildMatched[$0] }.map { Int32($0) }
                    if rows.isEmpty { return nil }
                    let left = probeTypes.map { Vector.nulls($0, count: rows.count) }
                    return Chunk(columns: left + b.columns.map { $0.gather(rows) }, count: rows.count)
                }
                return nil
            }
            guard let pc = try probe.next()?.compacted() else { probeDone = true; continue }
            try joinChunk(pc, b)
        }
        return pending.removeFirst()
    }

    private func joinChunk(_ pc: Chunk, _ b: Chunk) throws {
        var probeMatched = [Bool](repeating: false, count: pc.count)
        if b.count > 0 {
            // Pairs in blocks of about Chunk.capacity rows: probe rows repeated × all build rows.
            let perBlock = max(1, Chunk.capacity / max(1, b.count))
            var start = 0
            while start < pc.count {
                let end = min(pc.count, start + perBlock)
                var pIdx: [Int32] = [], bIdx: [Int32] = []
                for i in start..<end { for j in 0..<b.count { pIdx.append(Int32(i)); bIdx.append(Int32(j)) } }
                let pairs = Chunk(columns: pc.columns.map { $0.gather(pIdx) } + b.columns.map { $0.gather(bIdx) }, count: pIdx.count)
                let sel: [Int32] = try condition.map { try ExpressionEvaluator.select($0, pairs) } ?? (0..<Int32(pIdx.count)).map { $0 }
                for s in sel {
                    probeMatched[Int(pIdx[Int(s)])] = true
                    buildMatched[Int(bIdx[Int(s)])] = true
                }
                if (kind == .inner || kind == .left || kind == .right || kind == .full) && !sel.isEmpty {
                    pending.append(Chunk(columns: pairs.columns, count: pairs.physicalCount, selection: sel).compacted())
                }
                start = end
            }
        }
        switch kind {
        case .left, .full:
            let rows = (0..<pc.count).filter { !probeMatched[$0] }.map { Int32($0) }
            if !rows.isEmpty {
                pending.append(Chunk(columns: pc.columns.map { $0.gather(rows) } + buildTypes.map { Vector.nulls($0, count: rows.count) }, count: rows.count))
            }
        case .semi, .anti:
            let want = kind == .semi
            let rows = (0..<pc.count).filter { probeMatched[$0] == want }.map { Int32($0) }
            if !rows.isEmpty { pending.append(Chunk(columns: pc.columns.map { $0.gather(rows) }, count: rows.count)) }
        default: break
        }
    }
}
