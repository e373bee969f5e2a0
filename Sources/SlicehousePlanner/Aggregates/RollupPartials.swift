// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// The aggregates of a grouping-sets query rewritten to roll up from partial results:
/// the input is aggregated once by every key (`partials`), and each set then merges
/// those partial rows (`merges`), so ROLLUP (a, b, c, d) reads its input's rows once
/// rather than once per set. COUNT merges by SUM (COALESCE to 0 for the grand total over
/// no rows), SUM by SUM, MIN by MIN, MAX by MAX, and AVG from a merged sum and count with
/// AVG's own rounding (`?avg_merge?`). Any other aggregate (DISTINCT, ordered-set,
/// APPROXIMATE) makes the rewrite inapplicable (`init` returns nil).
struct RollupPartials {
    enum Merge {
        /// The value is the merged partial: SUM, MIN, MAX.
        case same(AggregateFunction)
        /// COUNT: the sum of partial counts, 0 when there is none.
        case count
        /// AVG: sum and count partials.
        case average(DataType)
    }

    /// Per query aggregate: the partial aggregates over the input (one or two) and how
    /// they merge.
    let partials: [LogicalAggregate]
    let merges: [(first: Int, merge: Merge)]

    /// `newColumn` makes each new column (the binder's, or the optimizer's for eager
    /// aggregation below a join).
    init?(_ aggregates: [LogicalAggregate], newColumn: (DataType, String) -> PlanColumn) {
        var partials: [LogicalAggregate] = []
        var merges: [(first: Int, merge: Merge)] = []
        for a in aggregates {
            if a.distinct || !a.orderBy.isEmpty { return nil }
            let first = partials.count
            func partial(_ f: AggregateFunction, _ arg: BoundExpr?, _ t: DataType) {
                partials.append(LogicalAggregate(function: f, argument: arg, distinct: false,
                                                 output: newColumn(t, "?partial?")))
            }
            switch a.function {
            case .countStar, .count:
                partial(a.function, a.argument, .bigint)
                merges.append((first, .count))
            case .sum, .min, .max:
                partial(a.function, a.argument, a.output.type)
                merges.append((first, .same(a.function)))
            case .avg:
                guard let arg = a.argument else { return nil }
                switch arg.type {
                case _ where arg.type.isInteger:
                    // Summed exactly (as AVG's own accumulator does), truncated at the end.
                    let wide = DataType.decimal(precision: DataType.maxDecimalPrecision, scale: 0)
                    partial(.sum, .cast(arg, wide), wide)
                case .decimal(_, let s):
                    partial(.sum, arg, .decimal(precision: DataType.maxDecimalPrecision, scale: s))
                case _ where arg.type.isFloat:
                    partial(.sum, arg, .double)
                default:
                    return nil
                }
                partial(.count, arg, .bigint)
                merges.append((first, .average(a.output.type)))
            default:
                return nil
            }
        }
        self.partials = partials
        self.merges = merges
    }

    /// Per query aggregate, the expression giving its value from partial columns that
    /// need no merging (`columns[k]` holds partial `k`: rows grouped by every key).
    func values(_ columns: [PlanColumn]) -> [BoundExpr] {
        merges.map { first, merge in
            let c = BoundExpr.column(columns[first].id, columns[first].type)
            switch merge {
            case .same: return c
            case .count: return .function(Builtins.conditional.coalesce, [c, .constant(.int(0), .bigint)], .bigint)
            case .average(let t):
                return .function(Builtins.internals.avgMerge, [c, .column(columns[first + 1].id, columns[first + 1].type)], t)
            }
        }
    }

    /// The merging aggregates over a copy of the pre-aggregate whose partial columns
    /// `map` renames, and per query aggregate the expression giving its value. The
    /// aggregates' outputs are partials again, one per partial and in the same order, so a
    /// coarser set can merge them in turn.
    func merges(_ map: [Int: PlanColumn], newColumn: (DataType, String) -> PlanColumn) -> ([LogicalAggregate], [BoundExpr]) {
        var aggs: [LogicalAggregate] = []
        var values: [BoundExpr] = []
        func merged(_ f: AggregateFunction, _ k: Int) -> BoundExpr {
            let p = map[partials[k].output.id] ?? partials[k].output
            let out = newColumn(p.type, p.name)
            aggs.append(LogicalAggregate(function: f, argument: .column(p.id, p.type), distinct: false, output: out))
            return .column(out.id, out.type)
        }
        for (first, merge) in merges {
            switch merge {
            case .same(let f):
                values.append(merged(f, first))
            case .count:
                values.append(.function(Builtins.conditional.coalesce, [merged(.sum, first), .constant(.int(0), .bigint)], .bigint))
            case .average(let t):
                values.append(.function(Builtins.internals.avgMerge, [merged(.sum, first), merged(.sum, first + 1)], t))
            }
        }
        return (aggs, values)
    }
}
