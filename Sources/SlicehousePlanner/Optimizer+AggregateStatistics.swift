// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
import SlicehouseTypes
import SlicehousePlan

/// Estimated statistics of an aggregate's results, for the selectivity of a condition on
/// them (`HAVING sum(l_quantity) > 300`, or a filter on a derived table's `count(*)`).
///
/// With nothing known of a result column a comparison keeps 40% of the groups, which for
/// TPC-H Q18's `HAVING sum(l_quantity) > 300` is 2.4 million orders at SF 10 (of the 6
/// million the aggregate is estimated at) where 624 pass: the join order built on it
/// broadcast all 1.5 million customers to meet 4,368 rows. Here each group holds `g` rows (input rows over groups), the argument's
/// values are taken as spread evenly over its analyzed range `[lo, hi]` (mean μ, standard
/// deviation σ = (hi - lo) / √12), and by the central limit theorem:
///
/// - `sum(x)` lies about `g·μ ± 3·σ·√g`;
/// - `avg(x)` about `μ ± 3·σ / √g`, within `[lo, hi]`;
/// - `count(*)` and `count(x)` about `g ± 3·√g`;
/// - `min(x)` and `max(x)` within `[lo, hi]`.
///
/// The range is given as the result column's `min` and `max` in its stored form (scaled to
/// its DECIMAL scale), so that `Selectivity` takes the share of it a comparison keeps, as
/// it does for a table's column.
extension Optimizer {
    /// Statistics of the aggregate results of `plan` when it is an aggregate whose
    /// arguments are analyzed columns (`[:]` otherwise).
    func aggregateStatistics(_ plan: LogicalPlan) -> [Int: ColumnStatistics] {
        guard case .aggregate(let input, let groups, _, let aggregates) = plan, !groups.isEmpty else { return [:] }
        let groupCount = estimate(plan)
        // Rows a group holds: from the groups' distinct values when ANALYZE counted them
        // (the aggregate's own estimate is capped at a tenth of its input).
        let inputRows = estimate(input)
        let distinct = groupsAtMost(groups, of: input)
        let perGroup = max(1, inputRows / max(1, min(inputRows, distinct.isFinite ? distinct : groupCount)))
        let inputStats = columnStatistics(input)
        var out: [Int: ColumnStatistics] = [:]
        for a in aggregates where !a.distinct {
            if let range = Self.resultRange(a, perGroup: perGroup, inputStats) {
                out[a.output.id] = ColumnStatistics(distinct: groupCount, nullFraction: 0, min: range.lowerBound,
                                                    max: range.upperBound)
            }
        }
        return out
    }

    /// Statistics for a condition over `plan`: its columns' own, and its aggregate results'.
    func conditionStatistics(_ plan: LogicalPlan) -> [Int: ColumnStatistics] {
        let own = columnStatistics(plan)
        let results = aggregateStatistics(plan)
        return results.isEmpty ? own : own.merging(results) { a, _ in a }
    }

    /// The range a group's result of `a` lies in, in the result's stored form; nil when it
    /// cannot be told (an argument that is not an analyzed numeric column, a result that
    /// is not a number).
    static func resultRange(_ a: LogicalAggregate, perGroup g: Double,
                            _ stats: [Int: ColumnStatistics]) -> ClosedRange<Double>? {
        let out = a.output.type
        guard out.isNumeric else { return nil }
        let outScale = pow(10, Double(out.scale))
        // A single value (a constant argument) is no range: `Selectivity` would keep all or
        // nothing of it whatever the comparison's constant, where the group sizes vary.
        func stored(_ lo: Double, _ hi: Double) -> ClosedRange<Double>? {
            let l = lo * outScale, h = hi * outScale
            guard l.isFinite, h.isFinite, l < h else { return nil }
            return l...h
        }
        switch a.function {
        case .countStar:
            return stored(max(1, g - 3 * g.squareRoot()), g + 3 * g.squareRoot())
        case .count:
            return stored(max(0, g - 3 * g.squareRoot()), g + 3 * g.squareRoot())
        case .sum, .avg, .min, .max:
            guard case .column(let id, let t)? = a.argument, t.isNumeric, let s = stats[id],
                  let storedLo = s.min, let storedHi = s.max, storedLo <= storedHi else { return nil }
            let inScale = pow(10, Double(t.scale))
            let lo = storedLo / inScale, hi = storedHi / inScale
            let mean = (lo + hi) / 2
            let sd = (hi - lo) / 12.0.squareRoot()
            switch a.function {
            case .sum:
                let spread = 3 * sd * g.squareRoot()
                return stored(max(g * mean - spread, min(lo, g * lo)), g * mean + spread)
            case .avg:
                let spread = 3 * sd / g.squareRoot()
                return stored(max(lo, mean - spread), min(hi, mean + spread))
            default:
                return stored(lo, hi)
            }
        default:
            return nil
        }
    }
}
