// SPDX-License-Identifier: Apache-2.0
/// What ANALYZE learned about one column: kept with the table's data (storage) and read
/// by the planner's estimates.
public struct ColumnStatistics: Sendable, Codable, Equatable {
    /// Estimated distinct non-NULL values (from a HyperLogLog sketch of every live row).
    public var distinct: Double
    /// Share of the rows that are NULL.
    public var nullFraction: Double
    /// Smallest and largest value in the column's stored form (numbers, a DATE's days, a
    /// TIMESTAMP's microseconds; nil for other types), for the share a range keeps.
    public var min: Double?
    public var max: Double?

    public init(distinct: Double, nullFraction: Double, min: Double?, max: Double?) {
        self.distinct = distinct; self.nullFraction = nullFraction; self.min = min; self.max = max
    }
}
