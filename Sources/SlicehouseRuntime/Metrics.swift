// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// What one step (operator) of a statement did on one slice.
public struct StepMetrics: Sendable, Equatable {
    /// Rows the step produced.
    public var rows = 0
    /// Bytes of the rows it produced (fixed-width values at their width, strings at
    /// their length).
    public var bytes = 0
    /// Time spent in the step itself (its inputs' time excluded), in nanoseconds.
    public var nanos: UInt64 = 0
    /// The most memory it held at once.
    public var peakMemory = 0
    /// Bytes it wrote to spill files.
    public var spilledBytes = 0
    /// A scan's rows before its filter (SVL_QUERY_SUMMARY.rows_pre_filter).
    public var rowsPreFilter = 0
    /// Blocks a scan skipped by their zone maps (a range-restricted scan, is_rrscan).
    public var blocksSkipped = 0
    /// Blocks a scan read.
    public var blocksRead = 0

    public init(rows: Int = 0, bytes: Int = 0, nanos: UInt64 = 0, peakMemory: Int = 0, spilledBytes: Int = 0,
                rowsPreFilter: Int = 0, blocksSkipped: Int = 0, blocksRead: Int = 0) {
        self.rows = rows
        self.bytes = bytes
        self.nanos = nanos
        self.peakMemory = peakMemory
        self.spilledBytes = spilledBytes
        self.rowsPreFilter = rowsPreFilter
        self.blocksSkipped = blocksSkipped
        self.blocksRead = blocksRead
    }

    public var isDiskBased: Bool { spilledBytes > 0 }
}

/// One step of a statement on one slice, as the system views list it.
public struct StepRecord: Sendable {
    /// The stage: the part of the plan between two exchanges (Redshift's stream and
    /// segment).
    public var stage: Int
    /// The step's position within its stage, from the bottom.
    public var step: Int
    /// Redshift's label for the step (`scan`, `hjoin`, `aggr`, `sort`, `dist`, ...).
    public var label: String
    /// The slice, or -1 for the leader.
    public var slice: Int
    public var metrics: StepMetrics

    public init(stage: Int, step: Int, label: String, slice: Int, metrics: StepMetrics) {
        self.stage = stage; self.step = step; self.label = label; self.slice = slice; self.metrics = metrics
    }
}

/// Running totals of a statement, updated while it runs: what query monitoring rules
/// and STV_QUERY_METRICS read.
public struct LiveCounters: Sendable, Equatable {
    /// Rows read by scans (before their filters).
    public var scanRows = 0
    /// Rows produced by joins.
    public var joinRows = 0
    /// Rows returned to the client.
    public var returnRows = 0
    /// CPU time of the statement's tasks on the worker pool, in nanoseconds.
    public var cpuNanos: UInt64 = 0
    public init() {}
}

/// The per-step, per-slice metrics of one statement, filled as its operators finish,
/// and its running totals.
public final class QueryMetrics: @unchecked Sendable {
    private struct Key: Hashable { var stage: Int; var step: Int; var slice: Int }
    private let lock = Lock()
    private var records: [Key: StepRecord] = [:]
    private var counters = LiveCounters()

    public init() {}

    /// The running totals now.
    public var live: LiveCounters { lock.withLock { counters } }

    public func addScanRows(_ n: Int) { lock.withLock { counters.scanRows += n } }
    public func addJoinRows(_ n: Int) { lock.withLock { counters.joinRows += n } }
    public func addReturnRows(_ n: Int) { lock.withLock { counters.returnRows += n } }
    public func addCPU(nanos: UInt64) { lock.withLock { counters.cpuNanos &+= nanos } }

    /// Add `metrics` to the step's figures on `slice` (a step may report in pieces).
    public func record(stage: Int, step: Int, slice: Int, label: String, _ metrics: StepMetrics) {
        let key = Key(stage: stage, step: step, slice: slice)
        lock.withLock {
            if var r = records[key] {
                r.metrics.rows += metrics.rows
                r.metrics.bytes += metrics.bytes
                r.metrics.nanos += metrics.nanos
                r.metrics.peakMemory = max(r.metrics.peakMemory, metrics.peakMemory)
                r.metrics.spilledBytes += metrics.spilledBytes
                r.metrics.rowsPreFilter += metrics.rowsPreFilter
                r.metrics.blocksSkipped += metrics.blocksSkipped
                r.metrics.blocksRead += metrics.blocksRead
                records[key] = r
            } else {
                records[key] = StepRecord(stage: stage, step: step, label: label, slice: slice, metrics: metrics)
            }
        }
    }

    /// Every record, by stage, step and slice.
    public var steps: [StepRecord] {
        lock.withLock { Array(records.values) }.sorted {
            ($0.stage, $0.step, $0.slice) < ($1.stage, $1.step, $1.slice)
        }
    }

    /// Whether any step spilled.
    public var isDiskBased: Bool { lock.withLock { records.values.contains { $0.metrics.isDiskBased } } }
}
