// SPDX-License-Identifier: Apache-2.0
/// The random streams that ORDERS and LINEITEM share.
///
/// dbgen generates an order and its lines together: the order's total price
/// and status are computed from its lines. Generating the two tables
/// separately (and in any row range) therefore means re-drawing, for each
/// order, the same line values from the same streams — same seeds, same
/// per-order budget of seven values (the most lines an order can have).
enum SharedOrderStreams {
    static let maxLinesPerOrder: Int32 = 7
    /// The longest ship delay plus the longest receipt delay, in days.
    static let maxShipAndReceiptDays: Int32 = 121 + 30

    static func orderDate() -> BoundedIntColumn {
        let first = TPCHDates.minGeneratedDay
        let last = first + Int32(TPCHDates.dayCount) - maxShipAndReceiptDays - 1
        return BoundedIntColumn(seed: 1_066_728_069, first, last)
    }

    static func lineCount() -> BoundedIntColumn {
        BoundedIntColumn(seed: 1_434_868_289, 1, maxLinesPerOrder)
    }

    static func quantity() -> BoundedIntColumn {
        BoundedIntColumn(seed: 209_208_115, 1, 50, seedsPerRow: maxLinesPerOrder)
    }

    /// Discount in hundredths (0.00 – 0.10).
    static func discount() -> BoundedIntColumn {
        BoundedIntColumn(seed: 554_590_007, 0, 10, seedsPerRow: maxLinesPerOrder)
    }

    /// Tax in hundredths (0.00 – 0.08).
    static func tax() -> BoundedIntColumn {
        BoundedIntColumn(seed: 721_958_466, 0, 8, seedsPerRow: maxLinesPerOrder)
    }

    static func partKey(_ context: ScaleContext) -> BoundedLongColumn {
        BoundedLongColumn(seed: 1_808_217_256, 1, context.parts, uses64Bits: context.usesLongKeys,
                          seedsPerRow: maxLinesPerOrder)
    }

    /// Ship delay after the order date, 1 – 121 days.
    static func shipDelay() -> BoundedIntColumn {
        BoundedIntColumn(seed: 1_769_349_045, 1, 121, seedsPerRow: maxLinesPerOrder)
    }

    /// Orders use 8 of every 32 keys: the low three bits of the order's index
    /// are kept and the rest is shifted up by two bits, leaving gaps for the
    /// refresh functions' new orders.
    @inline(__always)
    static func orderKey(index: Int64) -> Int64 {
        let low = index & 7
        return ((index >> 3) << 5) + low
    }
}
