import SlicehouseTypes

/// Built-in aggregate functions.
public enum AggregateFunction: String, Sendable, Equatable {
    case countStar, count, sum, avg, min, max
}

/// One aggregate computed by a hash aggregate: `function(DISTINCT? input column)`.
public struct BoundAggregate: Sendable, Equatable {
    public var function: AggregateFunction
    /// Input column index (nil for COUNT(*)).
    public var argument: Int?
    public var argumentType: DataType?
    public var distinct: Bool
    public var resultType: DataType
    public init(function: AggregateFunction, argument: Int?, argumentType: DataType?, distinct: Bool, resultType: DataType) {
        self.function = function; self.argument = argument; self.argumentType = argumentType
        self.distinct = distinct; self.resultType = resultType
    }
}
