// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseRuntime

/// Which half of a (possibly two-phase) aggregation a `HashAggregateOperator` runs.
public enum AggregateMode: Sendable, Equatable {
    /// Raw rows in; group columns ++ final aggregate values out.
    case single
    /// Raw rows in (one slice's share); group columns ++ partial state columns out
    /// (layout: `HashAggregateOperator.partialStateTypes`).
    case partial
    /// Partial outputs in (from any number of slices, in any order); group columns ++
    /// final values out.
    case final
}

/// Hash aggregation (`GROUP BY` with COUNT/SUM/AVG/MIN/MAX, optionally DISTINCT; the
/// ordered-set aggregates PERCENTILE_CONT/DISC and LISTAGG; APPROXIMATE COUNT(DISTINCT)).
///
/// ## Input and output layout
///
/// | mode       | input                                         | output                        |
/// |------------|-----------------------------------------------|-------------------------------|
/// | `.single`  | any; keys at `groupColumns`, arguments at `aggregates[i].argument` | keys ++ one result per aggregate |
/// | `.partial` | as `.single`                                  | keys ++ the state columns of every aggregate |
/// | `.final`   | keys at `0..<groupColumns.count`, then the state columns of every aggregate in order (`groupColumns` and `argument` indices are not read) | keys ++ one result per aggregate |
///
/// State columns per aggregate (`partialStateTypes`): COUNT → `[count BIGINT]`;
/// SUM → `[sum]` in the result type, NULL when the slice saw no input; AVG →
/// `[sum, count BIGINT]` (sum DECIMAL(38,s) for exact arguments, DOUBLE for floats);
/// MIN/MAX → `[value]` in the argument type, NULL when no input; APPROXIMATE
/// COUNT(DISTINCT) → `[sketch VARCHAR]` (`HyperLogLogGroups`). PERCENTILE_CONT/DISC and
/// LISTAGG have no state columns: like DISTINCT aggregates they run only in `.single` mode.
///
/// ## Semantics
/// - NULL group keys form one group per key column value combination (NULLs group together).
/// - Aggregates skip NULL arguments; COUNT of no rows is 0, every other aggregate of
///   no rows (or only NULLs) is NULL.
/// - Without group columns, `.single` and `.final` always output exactly one row, even
///   on empty input. `.partial` also outputs one row of empty states on empty input
///   (count 0, SUM/MIN/MAX NULL, AVG sum 0 and count 0), so the final step always
///   sees at least one row per slice. With group columns, empty input gives no rows.
/// - DISTINCT aggregates (COUNT/SUM/AVG) run only in `.single` mode; other modes
///   raise `featureNotSupported` on the first `next()`. MIN/MAX(DISTINCT x) is MIN/MAX(x).
/// - SUM over integers is a BIGINT and raises `bigint out of range` on overflow;
///   exact sums accumulate in Int128 and raise `numeric overflow` beyond 38 digits.
///
/// ## Execution
/// Sink: every input chunk gets group ids from a `GroupIndex` (no keys → group 0;
/// one BOOLEAN/SMALLINT key → direct indexing; one other 64-bit key → an inline
/// Int64 hash table; otherwise the generic `GroupTable`), then each aggregate's
/// `Accumulator` folds the chunk in with a typed loop. Source: groups are emitted
/// in order of first appearance, `Chunk.capacity` rows per chunk.
///
/// ## Memory and spilling
/// With a `QueryContext`, the group table (index and states) is reserved from the
/// statement's budget after every input chunk. When the budget refuses and the table
/// holds at least `minSpillGroups` groups:
/// - `.partial` emits the groups it has and starts an empty table: the final phase
///   above the exchange merges any number of partial rows of a group (every aggregate
///   with a partial state merges exactly: counts and sums add, MIN/MAX compare, sketches
///   unite — only the order in which DOUBLE sums are added differs, as it already does
///   between slices);
/// - `.single` and `.final` spill by partitions: the table's groups are written as
///   partial states into `SpillPartitioner.fanOut` spill files chosen by the hash
///   of their keys, and every later input row goes, unaggregated, to its key's file.
///   At the end each file is aggregated on its own (states first, then rows — the
///   order every group's values arrived in, so even DOUBLE sums come out bit for bit as
///   without spilling); a file that is still too big is partitioned again by other bits
///   of the hash, up to `maxSpillLevels` deep. Output comes partition by partition, so
///   the order of the groups differs from the first-appearance order.
/// Aggregates without a mergeable state — COUNT/SUM/AVG(DISTINCT), PERCENTILE_CONT/DISC,
/// MEDIAN and LISTAGG (`Accumulator.mergeable`), always `.single` — cannot write their
/// groups out, so they spill the other way (hybrid hash aggregation): the table keeps
/// the groups it has, later rows of those groups are still folded into it, and rows of
/// any other group go, unaggregated (keys, arguments and ORDER BY columns), to their
/// key's spill file. The table's groups are emitted first, then each file is aggregated
/// on its own the same way; every group is whole in the table or in one file, its rows
/// in their original order. Their states can still grow beyond the budget (a group with
/// many distinct values), counted by a forced reservation (`MemoryReservation.resize`).
/// Tables with fewer than `minSpillGroups` groups, tables without group keys or with one
/// BOOLEAN/SMALLINT key (a bounded domain), and tables past `maxSpillLevels` are kept the
/// same way. Without a context nothing is reserved or checked; with one, cancellation is
/// checked between chunks.
public final class HashAggregateOperator: Operator, MemoryHolding {
    // Configuration (immutable).
    private let input: Operator
    private let groupColumns: [Int]
    private let groupTypes: [DataType]
    private let aggregates: [BoundAggregate]
    private let mode: AggregateMode
    private let context: QueryContext
    private let reservation: MemoryReservation

    /// The fewest groups worth spilling; a smaller table is kept by a forced reservation.
    static let minSpillGroups = 256
    /// How many times a partition may be partitioned again (each level reads 4 other bits
    /// of the key hash).
    static let maxSpillLevels = 4
    /// Groups past which a table has outgrown the caches: the rest of the input is split
    /// among partitions held in memory (`MemoryPartitioner`), each aggregated on its own
    /// with a table a sixty-fourth of the size.
    ///
    /// Half a million groups (a 64-bit key's slot table then has a million slots, 16 MB,
    /// besides the keys and states): measured at TPC-H SF 1 and SF 10, a table that size
    /// still runs from the shared cache and splitting it costs more than it saves; at SF 10
    /// (3.75 M groups a slice in Q18's subquery) splitting is 20% faster.
    public static let splitGroups = 1 << 19
    /// The deepest level a partition held in memory is split again at.
    static let maxSplitLevel = MemoryPartitioner.maxLevel
    /// A table that reaches this share of `splitGroups` (a quarter) bound for
    /// `earlySplitFactor` times `splitGroups` groups or more (`splitsEarly`) splits there,
    /// not at `splitGroups`: its rows until then run against a table four times smaller
    /// (TPC-H Q18's subquery six times at SF 10, 3.75 M groups a slice: 4% less CPU with
    /// the split point alone moved, 1.4% on top of `aggregate(_:)`'s runs of packed
    /// chunks). A table bound for fewer groups still splits at
    /// `splitGroups` or stays whole: at SF 1 the same subquery's 375 K groups a slice run
    /// 30% slower split at the quarter.
    static let earlySplitShare = 4
    static let earlySplitFactor = 4

    // Per-instance state.
    private var groups: GroupIndex
    private var accumulators: [Accumulator] = []
    private var setupError: Error?
    private var emitted = 0
    private var rowCache: [Int32] = []
    private var groupIds: [Int32] = []
    /// The batch ordered by group, when the table has at most `maxRunGroups` groups.
    private var runs = GroupRuns()
    /// The most groups for which a batch is folded group by group.
    static let maxRunGroups = 32
    /// The batch's groups over its physical rows, when the table has at most
    /// `GroupMask.maxGroups` groups.
    private var mask = GroupMask()

    /// Where input chunks, spilled states and spilled rows keep their keys and arguments.
    private var inputLayout = FoldLayout(keys: [], arguments: [], orderBy: [], states: nil)
    private var statesLayout = FoldLayout(keys: [], arguments: [], orderBy: [], states: nil)
    private var rowsLayout = FoldLayout(keys: [], arguments: [], orderBy: [], states: nil)
    /// The input columns a spilled row keeps (`rowsLayout` indexes into them).
    private var rowsProjection: [Int] = []
    /// Input columns a chunk must have.
    private var needed = 0

    private enum Phase {
        /// Reading the input (again, after `.partial` emitted groups early).
        case input
        /// Emitting the table's groups; then back to the input when `resume`.
        case output(resume: Bool)
        /// Aggregating spilled partitions one at a time.
        case partitions
        case done
    }
    private var phase = Phase.input
    /// While spilling the input: where its rows go.
    private var partitioner: SpillPartitioner?
    /// Whether the spilling is hybrid: the table keeps its groups and only rows of other
    /// groups are written out (aggregates without a mergeable state).
    private var hybrid = false
    /// While splitting the input in memory: where its rows go.
    private var radix: MemoryPartitioner?
    /// Groups past which the table splits the rest of its input (`splitGroups`).
    private let splitAt: Int
    /// Input rows this operator is expected to read and groups to make (the planner's
    /// estimates), for `splitsEarly`; nil: unknown, never early.
    private let expectedRows: Double?
    private let expectedGroups: Double?
    /// Input rows folded into the table so far (`splitsEarly`).
    private var rowsFolded = 0
    /// Whether the table was weighed for an early split (once, at `splitAt / earlySplitShare`).
    private var weighedEarly = false
    /// The groups the table held when it split its input (nil: it did not); tests read it.
    public private(set) var groupsAtSplit: Int?
    /// Partitions held in memory so far, at every level (tests read it).
    public private(set) var partitionsHeld = 0
    /// Chunks the partitions held in memory were aggregated in (tests read it).
    public private(set) var partitionBatches = 0
    /// Partitions still to aggregate (a stack: the last is next).
    private var pending: [PendingPartition] = []
    /// Bytes of the partitions held in memory in `pending`.
    private var pendingBytes = 0
    private var spilled = 0

    /// - Parameters:
    ///   - input: the child operator.
    ///   - groupColumns: input column of each group key (see the layout table for `.final`).
    ///   - groupTypes: the type of each group key.
    ///   - aggregates: the aggregates, in output order.
    ///   - mode: single-phase, or one half of a two-phase aggregation.
    ///   - context: the statement's context: memory budget, spill space, cancellation
    ///     (nil: no limit, no spilling).
    ///   - splitGroups: groups past which the rest of the input is split in memory.
    ///   - expectedRows, expectedGroups: the input rows the planner expects this operator
    ///     to read and the groups to make (nil: unknown), for an early split
    ///     (`earlySplitShare`).
    public init(input: Operator, groupColumns: [Int], groupTypes: [DataType],
                aggregates: [BoundAggregate], mode: AggregateMode,
                splitGroups: Int = HashAggregateOperator.splitGroups, expectedRows: Double? = nil,
                expectedGroups: Double? = nil, context: QueryContext) {
        self.input = input
        self.splitAt = max(1, splitGroups)
        self.expectedRows = expectedRows
        self.expectedGroups = expectedGroups
        self.groupColumns = groupColumns
        self.groupTypes = groupTypes
        self.aggregates = aggregates
        self.mode = mode
        self.context = context
        self.reservation = MemoryReservation(context.memory)
        self.groups = GroupIndexFactory.make(groupTypes)
        if groupColumns.count != groupTypes.count {
            setupError = SQLError.internalError("aggregate with \(groupColumns.count) group columns and \(groupTypes.count) types")
        }
        do {
            accumulators = try aggregates.map { try AccumulatorFactory.make($0, mode: mode) }
        } catch {
            setupError = error
        }
        makeLayouts()
    }

    /// The state columns `agg` contributes to a `.partial` output (and expects in `.final` input).
    public static func partialStateTypes(_ agg: BoundAggregate) -> [DataType] {
        // One definition, shared with the planner that lays out the exchange between phases.
        HashAggregateLayout.partialStateTypes(agg)
    }

    /// The input columns that may arrive narrowed (`Vector.isNarrowed`, a wide DECIMAL
    /// held in 64 bits): those read only as the argument of a plain SUM or AVG of a wide
    /// DECIMAL, whose accumulator (`WideSumAccumulator`) adds either width. A group key,
    /// any other aggregate's argument or ORDER BY key, and a `.final` input never are.
    /// Rows written to spill files or split in memory are widened first (`spillRows`).
    public static func narrowableArguments(groupColumns: [Int], aggregates: [BoundAggregate],
                                           mode: AggregateMode) -> Set<Int> {
        guard mode != .final else { return [] }
        var narrowable = Set<Int>(), excluded = Set(groupColumns)
        for agg in aggregates {
            for k in agg.orderBy { excluded.insert(k.column) }
            if let f = agg.filter { excluded.insert(f) }
            guard let a = agg.argument else { continue }
            if (agg.function == .sum || agg.function == .avg) && !agg.distinct && agg.orderBy.isEmpty,
               let t = agg.argumentType, t.isDecimal, t.physical == .int128 {
                narrowable.insert(a)
            } else {
                excluded.insert(a)
            }
        }
        return narrowable.subtracting(excluded)
    }

    /// The types of this operator's output columns.
    public var outputTypes: [DataType] {
        groupTypes + aggregates.flatMap { mode == .partial ? Self.partialStateTypes($0) : [$0.resultType] }
    }

    /// The most bytes this operator held reserved at once.
    public var memoryPeak: Int { reservation.peak }
    /// Bytes this operator wrote to spill files.
    public var spilledBytes: Int { spilled }

    private func makeLayouts() {
        let g = groupColumns.count
        var stateColumns: [[Int]] = []
        var next = g
        for agg in aggregates {
            let w = Self.partialStateTypes(agg).count
            stateColumns.append(Array(next..<(next + w)))
            next += w
        }
        statesLayout = FoldLayout(keys: Array(0..<g), arguments: [], orderBy: [], states: stateColumns)
        if mode == .final {
            inputLayout = statesLayout
            rowsLayout = statesLayout
            needed = max(g, next)
            rowsProjection = Array(0..<needed)
            return
        }
        inputLayout = FoldLayout(keys: groupColumns, arguments: aggregates.map { $0.argument },
                                 orderBy: aggregates.map { $0.orderBy.map { $0.column } }, states: nil,
                                 filters: aggregates.map { $0.filter })
        needed = groupColumns.max().map { $0 + 1 } ?? 0
        for agg in aggregates {
            if let a = agg.argument { needed = max(needed, a + 1) }
            if let f = agg.filter { needed = max(needed, f + 1) }
            for k in agg.orderBy { needed = max(needed, k.column + 1) }
        }
        // A spilled row keeps its keys and the distinct argument and ORDER BY columns.
        rowsProjection = groupColumns
        /// The position of input column `c` in a spilled row.
        func kept(_ c: Int) -> Int {
            if let i = rowsProjection[g...].firstIndex(of: c) { return i }
            rowsProjection.append(c)
            return rowsProjection.count - 1
        }
        var arguments: [Int?] = []
        var orderBy: [[Int]] = []
        var filters: [Int?] = []
        for agg in aggregates {
            arguments.append(agg.argument.map { kept($0) })
            orderBy.append(agg.orderBy.map { kept($0.column) })
            filters.append(agg.filter.map { kept($0) })
        }
        rowsLayout = FoldLayout(keys: Array(0..<g), arguments: arguments, orderBy: orderBy, states: nil, filters: filters)
    }

    /// Whether the table's groups may be written out and finished later. A direct index
    /// (one BOOLEAN or SMALLINT key) holds its whole domain from the start and at most
    /// 65,537 groups: writing them out would free little and cost a new index each time.
    private var canSpill: Bool {
        !groupColumns.isEmpty && !(groups is DirectGroupIndex)
            && (mergeable || mode == .single)
    }

    /// Whether every aggregate's state can be written out and merged later.
    private var mergeable: Bool { accumulators.allSatisfy { $0.mergeable } }

    /// Whether the table, already past half of `splitAt` groups, could pass it with
    /// `chunk`'s rows (each a new group at worst) and would grow for them: it splits
    /// before folding them rather than growing first.
    private func nearSplit(_ chunk: Chunk) -> Bool {
        let held = groups.groupCount
        return held >= splitAt / 2 && held + chunk.count > splitAt && groups.wouldGrow(adding: chunk.count)
    }

    /// Whether the table, just past `splitAt / earlySplitShare` groups, is bound for
    /// `earlySplitFactor * splitAt` groups or more (weighed once): the planner expects at
    /// least half that many, and the groups so far, grown in proportion to the rows still
    /// expected, reach it. The planner's estimate alone can be far too high; the table's
    /// own growth alone cannot tell a key whose rows arrive together (TPC-H Q18's
    /// subquery over lineitem in ship-date order: 131 K groups from the first 500 K rows
    /// of 15 M a slice at SF 10, 3.75 M in the end) from few keys repeated at random.
    private func splitsEarly() -> Bool {
        guard !weighedEarly, let expectedRows, let expectedGroups,
              groups.groupCount > splitAt / Self.earlySplitShare, rowsFolded > 0 else { return false }
        weighedEarly = true
        let bound = Double(Self.earlySplitFactor) * Double(splitAt)
        let grown = Double(groups.groupCount) * max(1, expectedRows / Double(rowsFolded))
        return 2 * expectedGroups >= bound && grown >= bound
    }

    /// Whether a table past `splitAt` groups splits the rest of its input in memory. Not in
    /// `.partial`: a partial table that outgrows the budget is emitted early instead.
    private var canSplit: Bool {
        mode != .partial && !groupColumns.isEmpty && !(groups is DirectGroupIndex) && mergeable
    }

    public func next() throws -> Chunk? {
        if let setupError { throw setupError }
        while true {
            switch phase {
            case .input:
                try consume()
            case .output(let resume):
                if let chunk = try emit() { return chunk }
                if resume {
                    try resetTable()
                    phase = .input
                } else {
                    phase = pending.isEmpty ? .done : .partitions
                    if !pending.isEmpty { try resetTable() }
                }
            case .partitions:
                guard var partition = pending.popLast() else {
                    phase = .done
                    continue
                }
                switch partition {
                case .file(let p):
                    var reader = p.file.reader()
                    try aggregate(level: p.level, splitAgain: false) { try SpillPartitioner.read(&reader) }
                case .memory(var p):
                    // `p` alone holds the chunks, to let them go as they are aggregated.
                    partition = .memory(MemoryPartition(chunks: [], level: p.level, bytes: 0))
                    try aggregate(&p)
                }
                if groups.groupCount > 0 { phase = .output(resume: false) }
            case .done:
                // Everything is out: the table goes with the operator, the budget now.
                reservation.free()
                return nil
            }
        }
    }

    /// The table's next output chunk, or nil when all its groups are out.
    private func emit() throws -> Chunk? {
        let total = groups.groupCount
        guard emitted < total else { return nil }
        let range = emitted..<min(total, emitted + Chunk.capacity)
        emitted = range.upperBound
        var columns = groups.keyColumns(range)
        for acc in accumulators {
            acc.grow(to: total)
            if mode == .partial {
                columns.append(contentsOf: acc.partialStates(range))
            } else {
                columns.append(try acc.results(range))
            }
        }
        return Chunk(columns: columns, count: range.count)
    }

    /// A fresh, empty table.
    private func resetTable() throws {
        groups = GroupIndexFactory.make(groupTypes)
        accumulators = try aggregates.map { try AccumulatorFactory.make($0, mode: mode) }
        emitted = 0
        reservation.resize(to: tableBytes)
    }

    /// Bytes to reserve: the table, and the partitions held in memory.
    private var tableBytes: Int {
        accumulators.reduce(groups.memoryBytes) { $0 + $1.memoryBytes } + pendingBytes + (radix?.memoryBytes ?? 0)
    }

    // MARK: Sink

    /// Read input until it ends (or, in `.partial`, until the table must be emitted early).
    private func consume() throws {
        while let chunk = try input.next() {
            try context.cancellation.check()
            if chunk.count == 0 { continue }
            guard chunk.columns.count >= needed else {
                throw SQLError.internalError("aggregate input has \(chunk.columns.count) columns, needs \(needed)")
            }
            if let partitioner {
                if hybrid {
                    try foldHeldGroups(chunk, inputLayout, projection: rowsProjection, spillingTo: partitioner)
                    continue
                }
                try partitioner.add(spillRows(chunk), states: false)
                continue
            }
            if let radix {
                try radix.add(spillRows(chunk), states: false)
                if !reservation.tryResize(to: tableBytes) {
                    // Over the budget: what is held goes to spill files, and so does the rest.
                    let p = try SpillPartitioner(level: radix.level, keyColumns: Array(0..<groupColumns.count),
                                                 context: context)
                    try radix.drain(into: p)
                    self.radix = nil
                    partitioner = p
                    reservation.resize(to: tableBytes)
                }
                continue
            }
            if canSplit && nearSplit(chunk) {
                // Split before the table grows for this chunk: every row of it might be a
                // new group, and a table at its last size before `splitAt` would double
                // (a 64-bit key's from 16 MB to 32 MB) only to be emptied into partitions.
                groupsAtSplit = groups.groupCount
                let r = try MemoryPartitioner(level: 0, keyColumns: Array(0..<groupColumns.count))
                try flushTable { try r.add($0, states: true) }
                radix = r
                reservation.resize(to: tableBytes)
                try r.add(spillRows(chunk), states: false)
                continue
            }
            try fold(chunk, inputLayout)
            rowsFolded += chunk.count
            if canSplit && (groups.groupCount > splitAt || splitsEarly()) {
                groupsAtSplit = groups.groupCount
                reservation.resize(to: tableBytes)  // the table as it grew, before it empties
                let r = try MemoryPartitioner(level: 0, keyColumns: Array(0..<groupColumns.count))
                try flushTable { try r.add($0, states: true) }
                radix = r
                reservation.resize(to: tableBytes)
                continue
            }
            if try mustSpill(reservation, level: 0) {
                if mode == .partial {
                    phase = .output(resume: true)
                    return
                }
                let p = try SpillPartitioner(level: 0, keyColumns: Array(0..<groupColumns.count), context: context)
                if mergeable {
                    try flushTable { try p.add($0, states: true) }
                } else {
                    hybrid = true
                }
                partitioner = p
            }
        }
        if let partitioner {
            pending = try partitioner.finish().reversed().map { .file($0) }
            spilled += partitioner.bytesWritten
            self.partitioner = nil
            // Hybrid: the table's own groups are out first, then the files.
            phase = hybrid ? .output(resume: false) : .partitions
        } else if let radix {
            hold(radix.finish())
            self.radix = nil
            phase = .partitions
        } else {
            phase = .output(resume: false)
        }
    }

    /// The columns of `chunk` a spilled or split row keeps (`rowsProjection`).
    /// Narrowed arguments (`narrowableArguments`) are widened: spill files and partitions
    /// hold every column in its type's own width.
    private func spillRows(_ chunk: Chunk) -> Chunk {
        Chunk(columns: rowsProjection.map { chunk.columns[$0].widened() }, count: chunk.physicalCount,
              selection: chunk.selection)
    }

    /// Fold one chunk into the table.
    private func fold(_ chunk: Chunk, _ layout: FoldLayout) throws {
        let physical = chunk.physicalCount
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        let keys = layout.keys.map { OperatorKernels.key(chunk.columns[$0], physicalCount: physical) }
        try groups.assign(keys, rows: rows, groupIds: &groupIds)
        let total = groups.groupCount
        // A few groups: fold the batch group by group (`GroupRuns`, built for the first
        // accumulator that takes them); at most four, and rows that select at least half
        // the physical ones: by a mask of groups over the physical rows (`GroupMask`).
        let byRuns = layout.states == nil && total <= Self.maxRunGroups && rows.count >= 4 * total
        let byMask = layout.states == nil && total <= GroupMask.maxGroups && 2 * rows.count >= physical
        if byMask { mask.build(groupIds: groupIds, rows: rows, physicalCount: physical, groupCount: total) }
        var runsBuilt = false
        for (i, acc) in accumulators.enumerated() {
            acc.grow(to: total)
            if let states = layout.states {
                let columns = states[i].map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
                try acc.merge(groups: groupIds, rows: rows, states: columns)
            } else {
                let arg = layout.arguments[i].map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
                if i < layout.filters.count, let f = layout.filters[i] {
                    // Only the rows the filter holds for (no mask, no runs: they count every row).
                    let picked = try Self.rowsWhereTrue(OperatorKernels.flat(chunk.columns[f], physicalCount: physical),
                                                        groups: groupIds, rows: rows)
                    try acc.update(groups: picked.groups, rows: picked.rows, input: arg)
                    continue
                }
                if layout.orderBy[i].isEmpty {
                    if byMask, try acc.update(mask: mask, input: arg) { continue }
                    if byRuns {
                        if !runsBuilt { runs.build(groupIds: groupIds, rows: rows, groupCount: total) }
                        runsBuilt = true
                        if try acc.update(runs: runs, input: arg) { continue }
                    }
                    try acc.update(groups: groupIds, rows: rows, input: arg)
                } else {
                    let keys = layout.orderBy[i].map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
                    try acc.update(groups: groupIds, rows: rows, input: arg, orderKeys: keys)
                }
            }
        }
    }

    /// The entries of `groups` and `rows` (parallel) whose row of `condition`, a flat
    /// BOOLEAN vector, is TRUE (not FALSE, not NULL).
    static func rowsWhereTrue(_ condition: Vector, groups: [Int32], rows: [Int32]) throws -> (groups: [Int32], rows: [Int32]) {
        guard case .bool(let b) = condition.data else {
            throw SQLError.internalError("an aggregate's filter is not BOOLEAN (\(condition.type.sqlName))")
        }
        let n = min(groups.count, rows.count)
        var outGroups = [Int32](repeating: 0, count: n), outRows = [Int32](repeating: 0, count: n)
        var k = 0
        // Every entry is written; the count moves on when the row holds.
        @inline(__always) func pick(_ holds: (Int) -> Bool) {
            b.withUnsafeBufferPointer { bp in
                groups.withUnsafeBufferPointer { gp in
                    rows.withUnsafeBufferPointer { rp in
                        outGroups.withUnsafeMutableBufferPointer { og in
                            outRows.withUnsafeMutableBufferPointer { orow in
                                for j in 0..<n {
                                    let r = Int(rp[j])
                                    og[k] = gp[j]
                                    orow[k] = rp[j]
                                    k &+= r < bp.count && bp[r] && holds(r) ? 1 : 0
                                }
                            }
                        }
                    }
                }
            }
        }
        if let validity = condition.validity {
            pick { validity.isValid($0) }
        } else {
            pick { _ in true }
        }
        outGroups.removeLast(n - k)
        outRows.removeLast(n - k)
        return (outGroups, outRows)
    }

    // MARK: Spilling

    /// Reserve the table; true when the budget refuses and the table should be spilled
    /// (or, in `.partial`, emitted). Either way the table is reserved, by force if need be:
    /// it is held until it is written out or emitted.
    private func mustSpill(_ reservation: MemoryReservation, level: Int) throws -> Bool {
        let bytes = tableBytes
        if reservation.tryResize(to: bytes) { return false }
        reservation.resize(to: bytes)
        return canSpill && groups.groupCount >= Self.minSpillGroups && level < Self.maxSpillLevels
    }

    /// Hybrid spilling: fold the rows of `chunk` whose group the table holds (`layout`), and
    /// write the others — the columns `projection` picks, or all — to `partitioner`.
    private func foldHeldGroups(_ chunk: Chunk, _ layout: FoldLayout, projection: [Int]?,
                                spillingTo partitioner: SpillPartitioner) throws {
        let physical = chunk.physicalCount
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        let keys = layout.keys.map { OperatorKernels.key(chunk.columns[$0], physicalCount: physical) }
        try groups.find(keys, rows: rows, groupIds: &groupIds)
        var held: [Int32] = [], other: [Int32] = []
        for (k, g) in groupIds.enumerated() {
            if g >= 0 { held.append(rows[k]) } else { other.append(rows[k]) }
        }
        if !held.isEmpty {
            try fold(Chunk(columns: chunk.columns, count: physical, selection: held), layout)
            reservation.resize(to: tableBytes)
        }
        if !other.isEmpty {
            let columns = (projection.map { $0.map { chunk.columns[$0] } } ?? chunk.columns).map { $0.widened() }
            try partitioner.add(Chunk(columns: columns, count: physical, selection: other), states: false)
        }
    }

    /// Hand every group of the table to `add` as chunks of partial states and empty the table.
    private func flushTable(_ add: (Chunk) throws -> Void) throws {
        let total = groups.groupCount
        var start = 0
        while start < total {
            let range = start..<min(total, start + Chunk.capacity)
            var columns = groups.keyColumns(range)
            for acc in accumulators {
                acc.grow(to: total)
                columns.append(contentsOf: acc.partialStates(range))
            }
            try add(Chunk(columns: columns, count: range.count))
            start = range.upperBound
        }
        try resetTable()
    }

    /// Aggregate one partition into the (empty) table: its chunks as `next` hands them
    /// over (states first, then rows). When the table outgrows the budget, the rest of
    /// the partition is spilled one level further (and the table left empty); with
    /// `splitAgain` (a partition held in memory), when it outgrows the caches the rest is
    /// split in memory one level further.
    private func aggregate(level: Int, splitAgain: Bool, _ next: () throws -> (Chunk, Bool)?) throws {
        var sub: SpillPartitioner?
        var split: MemoryPartitioner?
        while let (chunk, isStates) = try next() {
            try context.cancellation.check()
            if let sub {
                if hybrid && !isStates {
                    try foldHeldGroups(chunk, rowsLayout, projection: nil, spillingTo: sub)
                } else {
                    try sub.add(chunk, states: isStates)
                }
                continue
            }
            if let split {
                try split.add(chunk, states: isStates)
                continue
            }
            let canSplitAgain = splitAgain && level < Self.maxSplitLevel
            if canSplitAgain && nearSplit(chunk) {
                // As `consume` does: split before the table grows past its last size.
                let r = try MemoryPartitioner(level: level + 1, keyColumns: Array(0..<groupColumns.count))
                try flushTable { try r.add($0, states: true) }
                split = r
                try r.add(chunk, states: isStates)
                continue
            }
            try fold(chunk, isStates ? statesLayout : rowsLayout)
            if try mustSpill(reservation, level: level + 1) {
                let p = try SpillPartitioner(level: level + 1, keyColumns: Array(0..<groupColumns.count), context: context)
                if !hybrid { try flushTable { try p.add($0, states: true) } }
                sub = p
            } else if canSplitAgain && groups.groupCount > splitAt {
                let r = try MemoryPartitioner(level: level + 1, keyColumns: Array(0..<groupColumns.count))
                try flushTable { try r.add($0, states: true) }
                split = r
            }
        }
        if let split { hold(split.finish()) }
        if let sub {
            pending.append(contentsOf: try sub.finish().reversed().map { .file($0) })
            spilled += sub.bytesWritten
        }
    }

    /// Queue partitions held in memory (the first is aggregated first).
    private func hold(_ partitions: [MemoryPartition]) {
        partitionsHeld += partitions.count
        for p in partitions.reversed() {
            pending.append(.memory(p))
            pendingBytes += p.bytes
        }
        reservation.resize(to: tableBytes)
    }

    /// Aggregate one partition held in memory, each chunk let go (and its bytes no longer
    /// reserved) once it is handed over. Packed chunks in a row, of one layout, are handed
    /// over together, up to `Chunk.capacity` rows, unpacked into buffers used again for the
    /// next: a partition's rows arrive in chunks of `MemoryPartitioner.stageRows`, and each
    /// chunk costs the table its own calls and allocations besides its rows' work.
    private func aggregate(_ partition: inout MemoryPartition) throws {
        var held = partition.bytes
        defer { pendingBytes -= held }
        // The table at its size for the partition's keys (the estimate and a fifth more,
        // never more than its rows could make nor past `splitAt`, where it would split
        // again), instead of growing to it in steps.
        let rows = partition.chunks.reduce(0) { $0 + $1.count }
        groups.expect(groups: min(rows, splitAt, partition.groups + partition.groups / 5))
        var buffers = UnpackBuffers()
        var at = 0
        try aggregate(level: partition.level, splitAgain: true) {
            // `partition.chunks` read in place, never copied: the array is written below.
            guard at < partition.chunks.count else { return nil }
            let entry = partition.chunks[at]
            let lead = entry.packed
            var end = at + 1
            var count = entry.count
            if let lead {
                while end < partition.chunks.count, count + partition.chunks[end].count <= Chunk.capacity,
                      partition.chunks[end].isPacked(like: lead) {
                    count += partition.chunks[end].count
                    end += 1
                }
            }
            var bytes = 0
            for k in at..<end { bytes += partition.chunks[k].memoryBytes }
            bytes = min(held, bytes)
            held -= bytes
            pendingBytes -= bytes
            let chunk = lead == nil ? entry.unpacked()
                : PartitionChunk.unpack(partition.chunks[at..<end], rows: count, into: &buffers)
            // Let the handed-over chunks go (the partition holds the only reference).
            for k in at..<end { partition.chunks[k] = .empty }
            at = end
            partitionBatches += 1
            return (chunk, entry.states)
        }
    }
}

/// A partition a hash aggregate has still to aggregate: a spill file, or chunks in memory.
enum PendingPartition {
    case file(SpillPartition)
    case memory(MemoryPartition)
}

/// Where a chunk folded into an aggregate's table keeps its group keys and its
/// aggregates' arguments (raw rows: `arguments`, `orderBy`) or partial states (`states`).
struct FoldLayout {
    var keys: [Int]
    var arguments: [Int?]
    var orderBy: [[Int]]
    /// Per aggregate, its state columns; nil for raw rows.
    var states: [[Int]]?
    /// Per aggregate (raw rows only), the BOOLEAN column that picks the rows it folds
    /// (`BoundAggregate.filter`); empty or nil: every row.
    var filters: [Int?] = []
}
