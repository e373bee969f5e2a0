// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Window functions (`f(...) OVER (PARTITION BY ... ORDER BY ... frame)`).
public enum WindowFunctionKind: String, Sendable, Equatable {
    case rowNumber = "row_number", rank, denseRank = "dense_rank", percentRank = "percent_rank"
    case cumeDist = "cume_dist", ntile
    case lag, lead, firstValue = "first_value", lastValue = "last_value", nthValue = "nth_value"
    case ratioToReport = "ratio_to_report"
    case sum, avg, count, countStar = "count(*)", min, max
}

/// One bound of a ROWS frame.
public enum WindowFrameBound: Sendable, Equatable {
    case unboundedPreceding
    case preceding(Int)
    case currentRow
    case following(Int)
    case unboundedFollowing
}

/// The frame of an aggregate or value window function.
public struct WindowFrame: Sendable, Equatable {
    /// ROWS (physical rows) or RANGE (peers — rows with equal ORDER BY values — count as one).
    public var rows: Bool
    public var start: WindowFrameBound
    public var end: WindowFrameBound
    public init(rows: Bool, start: WindowFrameBound, end: WindowFrameBound) {
        self.rows = rows; self.start = start; self.end = end
    }
    /// Whole partition.
    public static let wholePartition = WindowFrame(rows: true, start: .unboundedPreceding, end: .unboundedFollowing)
    /// SQL's default with ORDER BY: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
    public static let toCurrentPeer = WindowFrame(rows: false, start: .unboundedPreceding, end: .currentRow)
}

/// One window function computed by a window operator. Column indices refer to the
/// operator's input; partition and order keys are shared by all functions of one operator.
public struct BoundWindowFunction: Sendable, Equatable {
    public var kind: WindowFunctionKind
    /// Input column of the argument (nil for ROW_NUMBER, RANK, COUNT(*), ...).
    public var argument: Int?
    public var argumentType: DataType?
    /// NTILE's bucket count, LAG/LEAD's offset (default 1), NTH_VALUE's n.
    public var parameter: Int
    /// LAG/LEAD default value (a constant), NULL when not given.
    public var defaultValue: Value
    public var ignoreNulls: Bool
    public var frame: WindowFrame
    public var resultType: DataType

    public init(kind: WindowFunctionKind, argument: Int?, argumentType: DataType?, parameter: Int = 1,
                defaultValue: Value = .null, ignoreNulls: Bool = false, frame: WindowFrame, resultType: DataType) {
        self.kind = kind; self.argument = argument; self.argumentType = argumentType; self.parameter = parameter
        self.defaultValue = defaultValue; self.ignoreNulls = ignoreNulls; self.frame = frame; self.resultType = resultType
    }

    /// Redshift's result type of a window function over `arg`.
    public static func resultType(_ kind: WindowFunctionKind, _ arg: DataType?) throws -> DataType {
        switch kind {
        case .rowNumber, .rank, .denseRank, .ntile, .count, .countStar: return .bigint
        case .percentRank, .cumeDist: return .double
        case .ratioToReport:
            guard let arg, arg.isNumeric else { throw SQLError(.undefinedFunction, "function ratio_to_report(\(arg?.sqlName ?? "")) does not exist") }
            return .double
        case .lag, .lead, .firstValue, .lastValue, .nthValue, .min, .max:
            guard let arg else { throw SQLError(.undefinedFunction, "function \(kind.rawValue)() does not exist") }
            return arg
        case .sum, .avg:
            guard let arg, arg.isNumeric else {
                throw SQLError(.undefinedFunction, "function \(kind.rawValue)(\(arg?.sqlName ?? "")) does not exist")
            }
            if arg.isFloat { return .double }
            if arg.isDecimal { return .decimal(precision: 38, scale: arg.scale) }
            return .bigint
        }
    }
}
