// SPDX-License-Identifier: Apache-2.0
/// PARTSUPP rows: four per part, one for each of the part's suppliers
/// (`ScaleContext.supplierKey`). The random streams budget four values per
/// part, so a generation unit is a part.
struct PartSuppRows {
    static let suppliersPerPart = 4

    private let context: ScaleContext
    private var availableQuantity = BoundedIntColumn(seed: 1_671_059_989, 1, 9_999, seedsPerRow: 4)
    private var supplyCost = BoundedIntColumn(seed: 1_051_288_424, 100, 100_000, seedsPerRow: 4)
    private var comment: TextColumn

    init(context: ScaleContext, startUnit: Int64) {
        self.context = context
        comment = TextColumn(seed: 1_961_692_154, pool: context.textPool, averageLength: 124, valuesPerRow: 4)
        availableQuantity.advanceRows(startUnit)
        supplyCost.advanceRows(startUnit)
        comment.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        let batchParts = Int64(CommentPrefetch.capacity / PartSuppRows.suppliersPerPart)
        var comments = CommentPrefetch()
        defer { comments.release() }
        for index in units {
            if (index - units.lowerBound) % batchParts == 0 {
                comments.reset()
                for _ in index..<min(index + batchParts, units.upperBound) {
                    for _ in 0..<PartSuppRows.suppliersPerPart { comments.draw(from: &comment) }
                    comment.rowFinished()
                }
            }
            let partKey = index + 1
            for supplier in 0..<PartSuppRows.suppliersPerPart {
                buffer.reserve(1024)
                buffer.intField(partKey)
                buffer.intField(context.supplierKey(part: partKey, supplierNumber: Int64(supplier)))
                buffer.intField(Int64(availableQuantity.next()))
                buffer.moneyField(cents: Int64(supplyCost.next()))
                let (text, length) = comments.next()
                buffer.textField(text, length)
                buffer.endRow()
            }
            availableQuantity.rowFinished()
            supplyCost.rowFinished()
        }
        buffer.touched &+= comments.touched
        return units.count * PartSuppRows.suppliersPerPart
    }
}
