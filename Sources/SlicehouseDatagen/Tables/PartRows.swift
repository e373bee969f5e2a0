// SPDX-License-Identifier: Apache-2.0
/// PART rows: a name of five distinct colour words, manufacturer 1–5, brand
/// `manufacturer × 10 + 1–5`, type, size, container, the retail price derived
/// from the key, and a comment.
struct PartRows {
    static let manufacturerPrefix = StaticBytes("Manufacturer#")
    static let brandPrefix = StaticBytes("Brand#")

    private var name = WordSequenceColumn(seed: 709_314_158, words: Distributions.colors, count: 5)
    private var manufacturer = BoundedIntColumn(seed: 1, 1, 5)
    private var brand = BoundedIntColumn(seed: 46_831_694, 1, 5)
    private var type = PickColumn(seed: 1_841_581_359, Distributions.partTypes)
    private var size = BoundedIntColumn(seed: 1_193_163_244, 1, 50)
    private var container = PickColumn(seed: 727_633_698, Distributions.containers)
    private var comment: TextColumn

    init(context: ScaleContext, startUnit: Int64) {
        comment = TextColumn(seed: 804_159_733, pool: context.textPool, averageLength: 14)
        name.advanceRows(startUnit)
        manufacturer.advanceRows(startUnit)
        brand.advanceRows(startUnit)
        type.advanceRows(startUnit)
        size.advanceRows(startUnit)
        container.advanceRows(startUnit)
        comment.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        let wordCount = Distributions.colors.count
        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: wordCount)
        var comments = CommentPrefetch()
        defer {
            scratch.deallocate()
            comments.release()
        }
        for index in units {
            if (index - units.lowerBound) % Int64(CommentPrefetch.capacity) == 0 {
                comments.reset()
                for _ in index..<min(index + Int64(CommentPrefetch.capacity), units.upperBound) {
                    comments.draw(from: &comment)
                    comment.rowFinished()
                }
            }
            let key = index + 1
            buffer.reserve(1024)
            buffer.intField(key)
            name.writeField(into: &buffer, scratch: scratch)
            let maker = Int64(manufacturer.next())
            buffer.paddedField(PartRows.manufacturerPrefix, maker, width: 1)
            buffer.paddedField(PartRows.brandPrefix, maker * 10 + Int64(brand.next()), width: 1)
            buffer.textField(type.next())
            buffer.intField(Int64(size.next()))
            buffer.textField(container.next())
            buffer.moneyField(cents: ScaleContext.retailPriceCents(part: key))
            let (text, length) = comments.next()
            buffer.textField(text, length)
            buffer.endRow()

            name.rowFinished()
            manufacturer.rowFinished()
            brand.rowFinished()
            type.rowFinished()
            size.rowFinished()
            container.rowFinished()
        }
        buffer.touched &+= comments.touched
        return units.count
    }
}
