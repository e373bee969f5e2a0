// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions

/// Feeds an operator from a closure (the rows a window hands to its external sort).
final class WindowClosureSource: Operator {
    private let body: () throws -> Chunk?
    init(_ body: @escaping () throws -> Chunk?) { self.body = body }
    func next() throws -> Chunk? { try body() }
}

/// Window functions (`f(...) OVER (PARTITION BY ... ORDER BY ... frame)`) over the rows
/// of one slice; the planner guarantees that every partition is whole on one slice.
///
/// ## Layout
/// Output: every input column, then one column per entry of `functions` (of its
/// `resultType`). Rows come out grouped by partition and ordered by `orderKeys` inside
/// each partition (ties keep their input order); the order of the partitions themselves
/// is unspecified. Chunks hold at most `Chunk.capacity` rows and have no selection.
///
/// ## Semantics (Redshift, which follows PostgreSQL here)
/// - Partitions: rows with equal partition keys; NULL keys form one partition. Peers:
///   rows of a partition with equal ORDER BY values (NULLs are peers of each other and
///   are placed by each key's `nullsFirst`); without ORDER BY all rows are peers.
/// - ROW_NUMBER; RANK / DENSE_RANK by peer groups; PERCENT_RANK = (rank-1)/(rows-1), 0 for
///   one row; CUME_DIST = rows up to the last peer / rows; NTILE(n) buckets as even as
///   possible, larger first. Frames do not apply to these, nor to LAG/LEAD and
///   RATIO_TO_REPORT.
/// - LAG/LEAD(x, offset = `parameter`, default = `defaultValue`) inside the partition
///   (a negative offset looks the other way); with `ignoreNulls` only non-NULL values
///   count.
/// - FIRST_VALUE / LAST_VALUE (`ignoreNulls` honoured) / NTH_VALUE(x, `parameter`)
///   (`ignoreNulls` counts non-NULL values only) over the frame.
/// - RATIO_TO_REPORT(x) = x / SUM(x) over the partition as DOUBLE; NULL when x is NULL or
///   the sum is 0.
/// - SUM / AVG / COUNT / COUNT(*) / MIN / MAX over the frame, NULLs skipped; an empty
///   frame gives NULL (COUNT 0). Result types per `BoundWindowFunction.resultType`; SUM of
///   integers raises `bigint out of range`, decimal sums beyond 38 digits `numeric
///   overflow`. See `WindowAggregates`.
/// - Frames: ROWS with UNBOUNDED PRECEDING / n PRECEDING / CURRENT ROW / n FOLLOWING /
///   UNBOUNDED FOLLOWING; RANGE with the unbounded bounds and CURRENT ROW (= the peer
///   group). A RANGE offset raises `featureNotSupported`, a negative offset
///   `invalidParameter`.
///
/// ## Execution
/// Blocking. The input is appended to flat column stores. On the first `next()`:
/// 1. a permutation is sorted by (partition columns, order keys) with `RowSorter` (the
///    sort operator's stable typed-digit sort; no values are boxed);
/// 2. one typed pass per key column over adjacent sorted rows (`WindowKernels.markChanges`)
///    finds partition boundaries (partition columns) and peer-group boundaries (all keys);
/// 3. each function is evaluated over whole typed buffers in sorted order into one result
///    vector: ranking functions by walking peer groups; value functions pick a source row
///    per position and gather once; aggregates use per-position frame bounds with prefix
///    sums (exact types), running/sliding sums (floats) or a monotonic deque (MIN/MAX),
///    all O(n) per function for every frame shape;
/// 4. each output chunk gathers the input columns at the next `Chunk.capacity` sorted
///    positions and slices the result vectors.
///
/// Errors (bad column indices, type mismatches with `inputTypes`, invalid parameters,
/// overflow) are thrown from `next()`; nothing in the operator traps on data.
///
/// ## Memory and spilling
/// With a statement context, the rows it holds are reserved from the statement's memory
/// chunk by chunk. When the budget refuses a chunk and the window has PARTITION BY, the
/// rows held so far and the rest of the input are written to `SpillPartitioner.fanOut`
/// spill files chosen by the hash of the partition columns, so that every window
/// partition is whole in one file. The files are then evaluated one at a time as above
/// (a file still too big is split again by further bits of the hash, up to
/// `SpillPartitioner.maxLevel`; a file that one split does not divide holds one huge
/// window partition). Without PARTITION BY, past the last level, or for one huge
/// partition, the rows held so far and the rest go to `WindowStream` instead: an external
/// sort, then evaluation over the sorted spill with forward-only cursors, in memory
/// bounded by a few chunks whatever the partition's size and the frames. Without a
/// context nothing is reserved and nothing spills.
public final class WindowOperator: Operator, MemoryHolding {
    // Configuration (immutable).
    private let input: Operator
    private let inputTypes: [DataType]
    private let partitionColumns: [Int]
    private let orderKeys: [SortKey]
    private let functions: [BoundWindowFunction]

    // Per-instance state.
    private var columns: [Vector] = []
    private var order: [Int32] = []
    private var results: [Vector] = []
    private var position = 0
    private var started = false
    private let context: QueryContext
    private let reservation: MemoryReservation
    /// Spilled sets of whole window partitions still to evaluate (last first).
    private var pending: [SpillPartition] = []
    private var spilled = 0
    /// The set being evaluated from sorted spill files, when it did not fit.
    private var stream: WindowStream?
    private var streamPeak = 0

    /// - Parameters:
    ///   - input: the child operator; its chunks have one column per `inputTypes` entry.
    ///   - inputTypes: the input's column types.
    ///   - partitionColumns: input columns of PARTITION BY (may be empty).
    ///   - orderKeys: ORDER BY keys within a partition (may be empty).
    ///   - functions: the window functions; their argument indices refer to the input.
    public init(input: Operator, inputTypes: [DataType], partitionColumns: [Int], orderKeys: [SortKey],
                functions: [BoundWindowFunction], context: QueryContext) {
        self.context = context
        reservation = MemoryReservation(context.memory)
        self.input = input
        self.inputTypes = inputTypes
        self.partitionColumns = partitionColumns
        self.orderKeys = orderKeys
        self.functions = functions
    }

    public var memoryPeak: Int { max(reservation.peak, streamPeak) }
    /// Bytes this operator wrote to spill files.
    public var spilledBytes: Int { spilled }

    /// The output column types: the input types, then each function's result type.
    public var outputTypes: [DataType] { inputTypes + functions.map(\.resultType) }

    /// The next chunk of at most `Chunk.capacity` rows, or nil when done. The first call
    /// consumes the whole input and evaluates every function (over the rows held, or over
    /// the first spilled partition set).
    public func next() throws -> Chunk? {
        if !started {
            started = true
            try validate()
            try load(level: -1) { try input.next() }
        }
        while true {
            if let stream {
                if let chunk = try stream.next() { return chunk }
                self.stream = nil
            }
            if position < order.count {
                let end = min(order.count, position + Chunk.capacity)
                let rows = Array(order[position..<end])
                var out = columns.map { OperatorKernels.gather($0, rows) }
                for r in results { out.append(WindowKernels.slice(r, position..<end)) }
                position = end
                return Chunk(columns: out, count: rows.count)
            }
            // This set of rows is done: release it, then evaluate the next spilled set.
            release()
            guard let partition = pending.popLast() else { return nil }
            try context.cancellation.check()
            var reader = partition.file.reader()
            try load(level: partition.level) {
                try SpillPartitioner.read(&reader)?.0
            }
        }
    }

    /// Drop the rows and results of the set just emitted and return their memory.
    private func release() {
        if !columns.isEmpty || !results.isEmpty { columns = []; results = []; order = [] }
        position = 0
        reservation.free()
    }

    // MARK: - Checks

    /// Column indices, argument and result types, and parameters.
    private func validate() throws {
        let width = inputTypes.count
        func checkColumn(_ c: Int, _ what: String) throws {
            guard c >= 0 && c < width else {
                throw SQLError.internalError("window \(what) column \(c) out of range (input has \(width) columns)")
            }
        }
        for c in partitionColumns { try checkColumn(c, "partition") }
        for k in orderKeys { try checkColumn(k.column, "order") }
        for f in functions {
            let name = f.kind.rawValue.uppercased()
            let argType: DataType?
            if let a = f.argument {
                try checkColumn(a, "\(name) argument")
                let t = inputTypes[a]
                if let declared = f.argumentType, declared.physical != t.physical {
                    throw SQLError.internalError("\(name) argument declared \(declared), input column is \(t)")
                }
                argType = f.argumentType ?? t
            } else {
                argType = nil
            }
            switch f.kind {
            case .rowNumber, .rank, .denseRank, .percentRank, .cumeDist, .ntile, .countStar: break
            default:
                guard f.argument != nil else { throw SQLError.internalError("\(name) without an argument") }
            }
            let expected = try BoundWindowFunction.resultType(f.kind, f.kind == .countStar ? nil : argType)
            guard expected.physical == f.resultType.physical else {
                throw SQLError.internalError("\(name)(\(argType?.sqlName ?? "")) planned as \(f.resultType), expected \(expected)")
            }
            switch f.kind {
            case .ntile where f.parameter < 1:
                throw SQLError(.invalidParameter, "argument of ntile must be greater than zero")
            case .nthValue where f.parameter < 1:
                throw SQLError(.invalidParameter, "argument of nth_value must be greater than zero")
            default: break
            }
        }
    }

    // MARK: - Sink

    /// Read a set of rows — the input (`level` -1) or one spilled partition set written at
    /// `level` — into `columns` and evaluate the functions over it. When the budget refuses
    /// a chunk and the set can be split, its rows go to spill files of the next level
    /// instead (queued in `pending`) and nothing is evaluated yet.
    private func load(level: Int, _ nextChunk: () throws -> Chunk?) throws {
        columns = inputTypes.map { Vector(type: $0) }
        var rowCount = 0
        var partitioner: SpillPartitioner?
        while let chunk = try nextChunk() {
            try context.cancellation.check()
            if chunk.count == 0 { continue }
            if let partitioner {
                try partitioner.add(chunk, states: false)
                continue
            }
            try OperatorKernels.append(&columns, chunk)
            rowCount += chunk.count
            guard rowCount <= Int(Int32.max) else {
                throw SQLError(.featureNotSupported, "a window partition set of more than \(Int32.max) rows on one slice is not supported")
            }
            let want = reservation.bytes + chunk.approximateBytes
            if reservation.tryResize(to: want) { continue }
            guard canSplit(level) else {
                try startStream(heldRows: rowCount, context: context, reservation: reservation, nextChunk)
                return
            }
            let p = try SpillPartitioner(level: level + 1, keyColumns: partitionColumns, context: context)
            try writeHeld(rowCount, into: p)
            partitioner = p
        }
        guard let partitioner else {
            try compute(rowCount: rowCount)
            return
        }
        var written = try partitioner.finish()
        spilled += partitioner.bytesWritten
        // A spilled set that one more split leaves whole is one window partition (or a few
        // with colliding hashes): splitting it again would only rewrite it. Hold it instead.
        if level >= 0 && written.count == 1 {
            written = [SpillPartition(file: written[0].file, level: SpillPartitioner.maxLevel)]
        }
        pending.append(contentsOf: written.reversed())
    }

    /// Hands the `heldRows` rows in `columns` and the rest of `nextChunk` to a
    /// `WindowStream` (sorted through spill files); the held rows stay reserved until the
    /// sort has taken them.
    private func startStream(heldRows: Int, context: QueryContext, reservation: MemoryReservation,
                             _ nextChunk: () throws -> Chunk?) throws {
        var held = columns
        columns = []
        var start = 0
        try withoutActuallyEscaping(nextChunk) { rest in
            let source = WindowClosureSource {
                if start < heldRows {
                    let end = min(heldRows, start + Chunk.capacity)
                    let chunk = Chunk(columns: held.map { WindowKernels.slice($0, start..<end) }, count: end - start)
                    start = end
                    if start == heldRows { held = []; reservation.free() }
                    return chunk
                }
                return try rest()
            }
            stream = try WindowStream(input: source, inputTypes: inputTypes, partitionColumns: partitionColumns,
                                      orderKeys: orderKeys, functions: functions, context: context,
                                      reservation: reservation) { sortSpilled, sortPeak in
                spilled += sortSpilled
                streamPeak = max(streamPeak, sortPeak)
            }
        }
        held = []
        if let stream { spilled += stream.spilledBytes }
    }

    /// Whether a set read at `level` may be split into spill files of the next level.
    private func canSplit(_ level: Int) -> Bool {
        !partitionColumns.isEmpty && level + 1 <= SpillPartitioner.maxLevel
    }

    /// Write the `rowCount` rows held in `columns` to `partitioner` and let them go.
    private func writeHeld(_ rowCount: Int, into partitioner: SpillPartitioner) throws {
        var start = 0
        while start < rowCount {
            let end = min(rowCount, start + Chunk.capacity)
            try partitioner.add(Chunk(columns: columns.map { WindowKernels.slice($0, start..<end) }, count: end - start),
                                states: false)
            start = end
        }
        columns = []
        reservation.free()
    }

    // MARK: - Evaluation

    private func compute(rowCount n: Int) throws {
        guard n > 0 else { order = []; return }
        let layout = sortAndGroup(n)
        order = layout.order
        var frames: [(WindowFrame, [Int], [Int])] = []
        /// Frame bounds, computed once per distinct frame.
        func bounds(_ frame: WindowFrame) throws -> ([Int], [Int]) {
            if let hit = frames.first(where: { $0.0 == frame }) { return (hit.1, hit.2) }
            let b = try layout.frameBounds(frame)
            frames.append((frame, b.lo, b.hi))
            return b
        }
        results = []
        results.reserveCapacity(functions.count)
        for f in functions {
            results.append(try evaluate(f, layout, bounds))
        }
    }

    /// The sorted permutation and its partition and peer-group boundaries.
    private func sortAndGroup(_ n: Int) -> WindowLayout {
        let keyColumns = partitionColumns.map { columns[$0] } + orderKeys.map { columns[$0.column] }
        let keys = partitionColumns.map { SortKey(column: $0, ascending: true, nullsFirst: false) } + orderKeys
        let order: [Int32] = keys.isEmpty
            ? (0..<Int32(truncatingIfNeeded: n)).map { $0 }
            : RowSorter(columns: keyColumns, keys: keys).sortedRows(n)
        var changed = [Bool](filled: false, count: n)
        var partitionBounds: [Int] = [0, n]
        var peerBounds: [Int] = [0, n]
        order.withUnsafeBufferPointer { ord in
            changed.withUnsafeMutableBufferPointer { ch in
                for c in 0..<partitionColumns.count {
                    WindowKernels.markChanges(keyColumns[c], order: ord, changed: ch)
                }
                if !partitionColumns.isEmpty { partitionBounds = WindowKernels.bounds(UnsafeBufferPointer(ch)) }
                for c in partitionColumns.count..<keyColumns.count {
                    WindowKernels.markChanges(keyColumns[c], order: ord, changed: ch)
                }
                if !keyColumns.isEmpty { peerBounds = WindowKernels.bounds(UnsafeBufferPointer(ch)) }
            }
        }
        return WindowLayout(order: order, partitionBounds: partitionBounds, peerBounds: peerBounds)
    }

    /// One function's result over all positions, in sorted order.
    private func evaluate(_ f: BoundWindowFunction, _ layout: WindowLayout,
                          _ bounds: (WindowFrame) throws -> ([Int], [Int])) throws -> Vector {
        let n = layout.count
        let argument = f.argument.map { columns[$0] }
        let argumentType = f.argument.map { f.argumentType ?? inputTypes[$0] }
        /// The argument (checked present by `validate`).
        func arg() throws -> Vector {
            guard let argument else { throw SQLError.internalError("\(f.kind.rawValue) without an argument") }
            return argument
        }
        /// Gathers the argument at the chosen input rows (-1 → NULL).
        func pick(_ rows: [Int32]) throws -> Vector {
            OperatorKernels.gather(try arg(), rows).retyped(f.resultType)
        }
        switch f.kind {
        case .rowNumber:
            return Vector(type: f.resultType, data: .int64(layout.rowNumber()))
        case .rank, .denseRank:
            return Vector(type: f.resultType, data: .int64(layout.rank(dense: f.kind == .denseRank)))
        case .percentRank:
            return Vector(type: f.resultType, data: .double(layout.percentRank()))
        case .cumeDist:
            return Vector(type: f.resultType, data: .double(layout.cumeDist()))
        case .ntile:
            return Vector(type: f.resultType, data: .int64(layout.ntile(f.parameter)))
        case .lag, .lead:
            let a = try arg()
            // Offsets beyond the row count all mean "outside the partition"; clamping first
            // keeps the negation for LEAD from overflowing.
            let offset = max(-(n + 1), min(n + 1, f.parameter))
            let back = f.kind == .lag ? offset : -offset
            let nonNull = f.ignoreNulls ? WindowKernels.nonNullPrefix(a, order: layout.order) : nil
            let rows = WindowValueFunctions.shifted(layout, back: back, ignoreNulls: f.ignoreNulls, nonNull: nonNull)
            return try WindowKernels.gather(a, rows, fill: f.defaultValue).retyped(f.resultType)
        case .firstValue, .lastValue, .nthValue:
            let a = try arg()
            let (lo, hi) = try bounds(f.frame)
            let nonNull = f.ignoreNulls ? WindowKernels.nonNullPrefix(a, order: layout.order) : nil
            let rows: [Int32]
            switch f.kind {
            case .firstValue:
                rows = WindowValueFunctions.firstValue(layout, lo: lo, hi: hi, ignoreNulls: f.ignoreNulls, nonNull: nonNull)
            case .lastValue:
                rows = WindowValueFunctions.lastValue(layout, lo: lo, hi: hi, ignoreNulls: f.ignoreNulls, nonNull: nonNull)
            default:
                rows = WindowValueFunctions.nthValue(layout, lo: lo, hi: hi, n: f.parameter,
                                                     ignoreNulls: f.ignoreNulls, nonNull: nonNull)
            }
            return try pick(rows)
        case .min, .max:
            let (lo, hi) = try bounds(f.frame)
            return try pick(WindowValueFunctions.minMax(layout, try arg(), isMin: f.kind == .min, lo: lo, hi: hi))
        case .count, .countStar:
            let (lo, hi) = try bounds(f.frame)
            return WindowAggregates.count(layout, argument: f.kind == .count ? try arg() : nil, lo: lo, hi: hi,
                                          resultType: f.resultType)
        case .sum, .avg:
            let (lo, hi) = try bounds(f.frame)
            guard let argumentType else { throw SQLError.internalError("\(f.kind.rawValue) without an argument type") }
            return try WindowAggregates.sumOrAvg(layout, argument: try arg(), argumentType: argumentType,
                                                 isAvg: f.kind == .avg, frame: f.frame, lo: lo, hi: hi,
                                                 resultType: f.resultType)
        case .ratioToReport:
            return try WindowAggregates.ratioToReport(layout, argument: try arg(), resultType: f.resultType)
        }
    }
}
