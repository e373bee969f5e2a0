import SlicehouseTypes
import SlicehousePlanner

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
public final class HashAggregateOperator: Operator {
    // Configuration (immutable).
    private let input: Operator
    private let groupColumns: [Int]
    private let groupTypes: [DataType]
    private let aggregates: [BoundAggregate]
    private let mode: AggregateMode

    // Per-instance state.
    private let groups: GroupIndex
    private var accumulators: [Accumulator] = []
    private var setupError: Error?
    private var consumed = false
    private var emitted = 0
    private var rowCache: [Int32] = []
    private var groupIds: [Int32] = []

    /// - Parameters:
    ///   - input: the child operator.
    ///   - groupColumns: input column of each group key (see the layout table for `.final`).
    ///   - groupTypes: the type of each group key.
    ///   - aggregates: the aggregates, in output order.
    ///   - mode: single-phase, or one half of a two-phase aggregation.
    public init(input: Operator, groupColumns: [Int], groupTypes: [DataType],
                aggregates: [BoundAggregate], mode: AggregateMode) {
        self.input = input
        self.groupColumns = groupColumns
        self.groupTypes = groupTypes
        self.aggregates = aggregates
        self.mode = mode
        self.groups = GroupIndexFactory.make(groupTypes)
        if groupColumns.count != groupTypes.count {
            setupError = SQLError.internalError("aggregate with \(groupColumns.count) group columns and \(groupTypes.count) types")
        }
        do {
            accumulators = try aggregates.map { try AccumulatorFactory.make($0, mode: mode) }
        } catch {
            setupError = error
        }
    }

    /// The state columns `agg` contributes to a `.partial` output (and expects in `.final` input).
    public static func partialStateTypes(_ agg: BoundAggregate) -> [DataType] {
        // One definition, shared with the planner that lays out the exchange between phases.
        HashAggregateLayout.partialStateTypes(agg)
    }

    /// The types of this operator's output columns.
    public var outputTypes: [DataType] {
        groupTypes + aggregates.flatMap { mode == .partial ? Self.partialStateTypes($0) : [$0.resultType] }
    }

    public func next() throws -> Chunk? {
        if let setupError { throw setupError }
        if !consumed {
            try consume()
            consumed = true
        }
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

    // MARK: Sink

    private func consume() throws {
        let g = groupColumns.count
        let keyIndices = mode == .final ? Array(0..<g) : groupColumns
        // Where each aggregate reads its input.
        var stateColumns: [[Int]] = []
        var needed = keyIndices.max().map { $0 + 1 } ?? 0
        if mode == .final {
            var next = g
            for agg in aggregates {
                let w = Self.partialStateTypes(agg).count
                stateColumns.append(Array(next..<(next + w)))
                next += w
            }
            needed = max(needed, next)
        } else {
            for agg in aggregates {
                if let a = agg.argument { needed = max(needed, a + 1) }
                for k in agg.orderBy { needed = max(needed, k.column + 1) }
            }
        }

        while let chunk = try input.next() {
            if chunk.count == 0 { continue }
            guard chunk.columns.count >= needed else {
                throw SQLError.internalError("aggregate input has \(chunk.columns.count) columns, needs \(needed)")
            }
            let physical = chunk.physicalCount
            let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
            let keys = keyIndices.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
            try groups.assign(keys, rows: rows, groupIds: &groupIds)
            let total = groups.groupCount
            for (i, acc) in accumulators.enumerated() {
                acc.grow(to: total)
                if mode == .final {
                    let states = stateColumns[i].map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
                    try acc.merge(groups: groupIds, rows: rows, states: states)
                } else {
                    let arg = aggregates[i].argument.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
                    if aggregates[i].orderBy.isEmpty {
                        try acc.update(groups: groupIds, rows: rows, input: arg)
                    } else {
                        let keys = aggregates[i].orderBy.map { OperatorKernels.flat(chunk.columns[$0.column], physicalCount: physical) }
                        try acc.update(groups: groupIds, rows: rows, input: arg, orderKeys: keys)
                    }
                }
            }
        }
    }
}
