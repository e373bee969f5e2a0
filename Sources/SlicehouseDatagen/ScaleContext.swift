// SPDX-License-Identifier: Apache-2.0
/// What every table generator needs to know about the scale factor.
///
/// dbgen sizes each table as `Int64(base × scale factor)` (truncated), and
/// several columns are keys into other tables, so their ranges depend on the
/// other tables' sizes: order customer keys range over the customers, line part
/// keys over the parts, partsupp and lineitem supplier keys over the suppliers.
struct ScaleContext: Sendable {
    let scaleFactor: Double
    let suppliers: Int64
    let customers: Int64
    let parts: Int64
    let orders: Int64
    /// Clerk numbers range over `max(1000 × SF, 1000)`.
    let clerks: Int32
    /// From SF 30,000 on, dbgen draws customer and part keys from its 64-bit stream.
    let usesLongKeys: Bool
    let textPool: TextPool

    init(scaleFactor: Double, textPool: TextPool) {
        self.scaleFactor = scaleFactor
        suppliers = ScaleContext.units(10_000, scaleFactor)
        customers = ScaleContext.units(150_000, scaleFactor)
        parts = ScaleContext.units(200_000, scaleFactor)
        orders = ScaleContext.units(1_500_000, scaleFactor)
        clerks = Int32(max(scaleFactor * 1000, 1000))
        usesLongKeys = scaleFactor >= 30_000
        self.textPool = textPool
    }

    static func units(_ base: Int64, _ scaleFactor: Double) -> Int64 {
        Int64(Double(base) * scaleFactor)
    }

    /// Generation units of a table at a scale factor (rows; parts for
    /// partsupp; orders for lineitem).
    static func units(of table: TPCHTable, scaleFactor: Double) -> Int64 {
        switch table {
        case .region: return Int64(DistributionData.regions.count)
        case .nation: return Int64(DistributionData.nations.count)
        default: return units(table.unitsPerScaleFactor ?? 0, scaleFactor)
        }
    }

    /// The supplier of the `supplierNumber`-th (0 ..< 4) partsupp row of a part:
    /// dbgen spreads a part's four suppliers a quarter of the suppliers apart.
    @inline(__always)
    func supplierKey(part partKey: Int64, supplierNumber: Int64) -> Int64 {
        (partKey + supplierNumber * (suppliers / 4 + (partKey - 1) / suppliers)) % suppliers + 1
    }

    /// A part's retail price in cents: 900.00 plus a part of the key's digits.
    @inline(__always)
    static func retailPriceCents(part partKey: Int64) -> Int64 {
        90_000 + (partKey / 10) % 20_001 + (partKey % 1000) * 100
    }
}
