// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The column layout of partial aggregation states exchanged between the
/// per-slice (partial) and final phases of a two-phase aggregate.
public enum HashAggregateLayout {
    /// The column type carrying an `APPROXIMATE COUNT(DISTINCT)` sketch between phases
    /// (its bytes are the sketch, see `HyperLogLog` in SlicehouseExecution).
    public static let sketchType = DataType.varchar(DataType.maxVarcharLength)

    public static func partialStateTypes(_ agg: BoundAggregate) -> [DataType] {
        switch agg.function {
        case .countStar, .count: return [.bigint]
        case .sum: return [agg.resultType]
        case .min, .max: return [agg.argumentType ?? agg.resultType]
        case .bitAnd, .bitOr: return [agg.resultType]
        case .approximateCountDistinct, .hllCreateSketch, .hllCombine: return [sketchType]
        case .percentileCont, .percentileDisc, .listagg: return []  // single phase only
        case .avg:
            let sumType: DataType
            switch agg.argumentType {
            case .some(.decimal(_, let s)): sumType = .decimal(precision: 38, scale: s)
            case .some(.real), .some(.double): sumType = .double
            default: sumType = .decimal(precision: 38, scale: 0)
            }
            return [sumType, .bigint]
        }
    }
}
