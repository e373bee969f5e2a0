// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseStorage
import SlicehousePlatform

/// An operator that holds memory (sort, hash aggregate, hash join, window) reports the
/// most it held and what it spilled, for SVL_QUERY_SUMMARY's workmem and is_diskbased.
public protocol MemoryHolding: AnyObject {
    var memoryPeak: Int { get }
    var spilledBytes: Int { get }
}

/// Where a plan node sits among the statement's steps: its stage (the part of the
/// plan between exchanges, Redshift's stream and segment, numbered in the order they
/// run) and its position in the stage from the bottom, with Redshift's label.
struct StepID: Sendable {
    var stage: Int
    var step: Int
    var label: String
}

enum StepNumbering {
    /// Number every node of the plan under `root`.
    static func number(_ root: PhysicalNode) -> [ObjectIdentifier: StepID] {
        var ids: [ObjectIdentifier: StepID] = [:]
        var nextStage = 0
        func visitStage(_ top: PhysicalNode, exchange: PhysicalNode?) {
            var steps: [PhysicalNode] = []
            var seen = Set<ObjectIdentifier>()
            func walk(_ n: PhysicalNode) {
                for c in n.children {
                    if case .exchange = c.kind, let input = c.children.first {
                        if ids[ObjectIdentifier(c)] == nil { visitStage(input, exchange: c) }
                    } else {
                        walk(c)
                    }
                }
                if seen.insert(ObjectIdentifier(n)).inserted { steps.append(n) }
            }
            walk(top)
            if let exchange { steps.append(exchange) }
            let stage = nextStage
            nextStage += 1
            for (i, n) in steps.enumerated() {
                ids[ObjectIdentifier(n)] = StepID(stage: stage, step: i, label: label(n))
            }
        }
        if case .exchange = root.kind, let input = root.children.first {
            visitStage(input, exchange: root)
        } else {
            visitStage(root, exchange: nil)
        }
        return ids
    }

    /// Redshift's step labels (SVL_QUERY_SUMMARY.label): `scan   tbl=108 name=lineitem`,
    /// `hjoin`, `aggr`, `sort`, `dist`, `bcast`, `return`, ...
    static func label(_ n: PhysicalNode) -> String {
        switch n.kind {
        case .scan(let table, _, _, _): return "scan   tbl=\(table.id) name=\(table.name)"
        case .filter: return "filter"
        case .project: return "project"
        case .unnest: return "unnest"
        case .hashJoin: return "hjoin"
        case .nestedLoopJoin: return "nloop"
        case .aggregate: return "aggr"
        case .window: return "window"
        case .sort: return "sort"
        case .limit: return "limit"
        case .unionAll: return "union"
        case .setOperation: return "unique"
        case .values: return "values"
        case .exchange(let kind):
            switch kind {
            case .materialize: return "save"
            case .gather: return "return"
            case .broadcast: return "bcast"
            case .redistribute: return "dist"
            }
        }
    }
}

/// Counts what a step produces on one slice and how long it takes (its inputs' time
/// included; the executor subtracts them when it records the step).
final class MeteredOperator: Operator {
    let input: Operator
    let node: PhysicalNode
    let id: StepID
    private let holder: MemoryHolding?
    /// Join output counts toward the statement's live join_row_count.
    private let liveJoinRows: QueryMetrics?
    var rows = 0
    var bytes = 0
    var nanos: UInt64 = 0

    init(input: Operator, node: PhysicalNode, id: StepID, metrics: QueryMetrics) {
        self.input = input
        self.node = node
        self.id = id
        holder = input as? MemoryHolding
        switch node.kind {
        case .hashJoin, .nestedLoopJoin: liveJoinRows = metrics
        default: liveJoinRows = nil
        }
    }

    func next() throws -> Chunk? {
        let start = DispatchTime.now().uptimeNanoseconds
        let c = try input.next()
        nanos &+= DispatchTime.now().uptimeNanoseconds &- start
        if let c {
            rows += c.count
            bytes += c.approximateBytes
            liveJoinRows?.addJoinRows(c.count)
        }
        return c
    }

    var memoryPeak: Int { holder?.memoryPeak ?? 0 }
    var spilledBytes: Int { holder?.spilledBytes ?? 0 }
}

/// The metered steps of one partition's pipeline.
final class PipelineMeters {
    /// How many pipelines' meters exist now (tests: each query's are freed at its end).
    static var live: Int { liveLock.withLock { liveCount } }
    nonisolated(unsafe) private static var liveCount = 0
    private static let liveLock = Lock()

    init() { Self.liveLock.withLock { Self.liveCount += 1 } }
    deinit { Self.liveLock.withLock { Self.liveCount -= 1 } }

    private var meters: [ObjectIdentifier: MeteredOperator] = [:]
    private var order: [MeteredOperator] = []
    /// What each scan of the pipeline read, by scan node.
    var scans: [ObjectIdentifier: ScanCounters] = [:]

    func add(_ m: MeteredOperator) {
        meters[ObjectIdentifier(m.node)] = m
        order.append(m)
    }

    /// Drop the operators (the pipeline is done).
    func clear() {
        meters = [:]
        order = []
    }

    /// Record each step's figures on `slice`, its own time without its inputs'.
    func report(into metrics: QueryMetrics, slice: Int) {
        for m in order {
            var inputs: UInt64 = 0
            for c in m.node.children { if let cm = meters[ObjectIdentifier(c)] { inputs &+= cm.nanos } }
            let own = m.nanos > inputs ? m.nanos - inputs : 0
            let scan = scans[ObjectIdentifier(m.node)]
            metrics.record(stage: m.id.stage, step: m.id.step, slice: slice, label: m.id.label,
                           StepMetrics(rows: m.rows, bytes: m.bytes, nanos: own,
                                       peakMemory: m.memoryPeak, spilledBytes: m.spilledBytes,
                                       rowsPreFilter: scan?.rowsRead ?? 0, blocksSkipped: scan?.blocksSkipped ?? 0,
                                       blocksRead: scan?.blocksRead ?? 0))
        }
    }
}

extension Chunk {
    /// About how many bytes the selected rows take: fixed-width values at their width,
    /// strings at their average length. Computed per chunk, never per row.
    var approximateBytes: Int {
        let n = count
        guard n > 0 else { return 0 }
        var total = 0
        for v in columns {
            switch v.data {
            case .int64, .double: total += 8 * n
            case .int128: total += 16 * n
            case .bool: total += n
            case .string(let s):
                let stored = max(1, s.count)
                total += v.isConstant ? s.bytes.count * n : s.bytes.count * n / stored
            }
        }
        return total
    }
}
