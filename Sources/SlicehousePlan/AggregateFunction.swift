// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Built-in aggregate functions.
///
/// Besides the plain aggregates: the ordered-set aggregates PERCENTILE_CONT (MEDIAN is
/// PERCENTILE_CONT(0.5)), PERCENTILE_DISC and LISTAGG, which need every value of a
/// group at once, and `APPROXIMATE COUNT(DISTINCT x)` (a HyperLogLog sketch).
public enum AggregateFunction: String, Sendable, Equatable {
    case countStar, count, sum, avg, min, max
    case percentileCont, percentileDisc, listagg
    case approximateCountDistinct
    /// HLL_CREATE_SKETCH(x): the HyperLogLog sketch of x's values (HLLSKETCH).
    case hllCreateSketch
    /// HLL_COMBINE(sketch): the union of the sketches (HLLSKETCH).
    case hllCombine
    /// BIT_AND(x), BIT_OR(x): the bitwise AND / OR of a group's integers (of x's type).
    case bitAnd = "bit_and", bitOr = "bit_or"

    /// Ordered-set aggregates see all of a group's values at once, so they run in one
    /// phase, after the rows of each group have been brought to one slice.
    public var isOrderedSet: Bool {
        switch self {
        case .percentileCont, .percentileDisc, .listagg: return true
        default: return false
        }
    }

    /// The name used in messages (`PERCENTILE_CONT`, `APPROXIMATE COUNT(DISTINCT)`).
    public var sqlName: String {
        switch self {
        case .countStar, .count: return "COUNT"
        case .percentileCont: return "PERCENTILE_CONT"
        case .percentileDisc: return "PERCENTILE_DISC"
        case .approximateCountDistinct: return "APPROXIMATE COUNT(DISTINCT)"
        case .hllCreateSketch: return "HLL_CREATE_SKETCH"
        case .hllCombine: return "HLL_COMBINE"
        default: return rawValue.uppercased()
        }
    }
}

/// Constant parameters of the aggregates that take more than a column.
public struct AggregateParameters: Sendable, Equatable, Hashable {
    /// PERCENTILE_CONT/DISC: the percentile, exactly `fractionNumerator / 10^fractionScale`
    /// (between 0 and 1; `fractionScale` at most 18). MEDIAN is 5 / 10^1.
    public var fractionNumerator: Int64
    public var fractionScale: Int
    /// PERCENTILE_CONT/DISC: `WITHIN GROUP (ORDER BY x DESC)`.
    public var descending: Bool
    /// LISTAGG: the text put between values (empty when none was given).
    public var delimiter: String

    public init(fractionNumerator: Int64 = 0, fractionScale: Int = 0, descending: Bool = false, delimiter: String = "") {
        self.fractionNumerator = fractionNumerator; self.fractionScale = fractionScale
        self.descending = descending; self.delimiter = delimiter
    }
}

/// One `WITHIN GROUP (ORDER BY ...)` key of a LISTAGG, as an input column of the
/// aggregate operator.
public struct AggregateOrderKey: Sendable, Equatable {
    public var column: Int
    public var type: DataType
    public var ascending: Bool
    public var nullsFirst: Bool
    public init(column: Int, type: DataType, ascending: Bool, nullsFirst: Bool) {
        self.column = column; self.type = type; self.ascending = ascending; self.nullsFirst = nullsFirst
    }
}

/// One aggregate computed by a hash aggregate: `function(DISTINCT? input column)`.
public struct BoundAggregate: Sendable, Equatable {
    public var function: AggregateFunction
    /// Input column index (nil for COUNT(*)).
    public var argument: Int?
    public var argumentType: DataType?
    public var distinct: Bool
    public var resultType: DataType
    /// Percentile, direction, delimiter (see `AggregateParameters`).
    public var parameters: AggregateParameters
    /// LISTAGG's `WITHIN GROUP (ORDER BY ...)` keys (empty: the order rows arrive in).
    public var orderBy: [AggregateOrderKey]
    /// Input column index of a BOOLEAN: only the rows where it is TRUE are folded in (nil:
    /// every row). `SUM(CASE WHEN c THEN x END)` is planned as SUM(x) over the rows where
    /// c holds, rather than computing the CASE row by row (`PhysicalPlanner.planAggregate`).
    public var filter: Int?

    public init(function: AggregateFunction, argument: Int?, argumentType: DataType?, distinct: Bool, resultType: DataType,
                parameters: AggregateParameters = AggregateParameters(), orderBy: [AggregateOrderKey] = [],
                filter: Int? = nil) {
        self.function = function; self.argument = argument; self.argumentType = argumentType
        self.distinct = distinct; self.resultType = resultType
        self.parameters = parameters; self.orderBy = orderBy; self.filter = filter
    }

    /// Whether this aggregate has no mergeable partial state and must see each group's
    /// rows in one place: `f(DISTINCT x)` and the ordered-set aggregates.
    /// (`APPROXIMATE COUNT(DISTINCT x)` is not `distinct`: its sketches merge.)
    public var needsSinglePhase: Bool { distinct || function.isOrderedSet }
}
