// SPDX-License-Identifier: Apache-2.0
/// LINEITEM rows: one to seven per order, generated per order.
///
/// Quantity, discount, tax, part key and ship delay come from the streams the
/// orders table re-draws (`SharedOrderStreams`), so the two tables agree.
/// The supplier is one of the part's four (`ScaleContext.supplierKey`); commit
/// and receipt dates are 30–90 days after the order and 1–30 days after
/// shipping; the return flag is R or A if the line was received by 1995-06-17
/// and N otherwise; the line status is F if it shipped by then, else O.
struct LineItemRows {
    private let context: ScaleContext
    private var orderDate = SharedOrderStreams.orderDate()
    private var lineCount = SharedOrderStreams.lineCount()
    private var quantity = SharedOrderStreams.quantity()
    private var discount = SharedOrderStreams.discount()
    private var tax = SharedOrderStreams.tax()
    private var partKey: BoundedLongColumn
    private var supplierNumber = BoundedIntColumn(seed: 2_095_021_727, 0, 3, seedsPerRow: 7)
    private var shipDelay = SharedOrderStreams.shipDelay()
    private var commitDelay = BoundedIntColumn(seed: 904_914_315, 30, 90, seedsPerRow: 7)
    private var receiptDelay = BoundedIntColumn(seed: 373_135_028, 1, 30, seedsPerRow: 7)
    private var returnFlag = PickColumn(seed: 717_419_739, Distributions.returnFlags, seedsPerRow: 7)
    private var shipInstruction = PickColumn(seed: 1_371_272_478, Distributions.shipInstructions, seedsPerRow: 7)
    private var shipMode = PickColumn(seed: 675_466_456, Distributions.shipModes, seedsPerRow: 7)
    private var comment: TextColumn

    init(context: ScaleContext, startUnit: Int64) {
        self.context = context
        partKey = SharedOrderStreams.partKey(context)
        comment = TextColumn(seed: 1_095_462_486, pool: context.textPool, averageLength: 27, valuesPerRow: 7)

        orderDate.advanceRows(startUnit)
        lineCount.advanceRows(startUnit)
        quantity.advanceRows(startUnit)
        discount.advanceRows(startUnit)
        tax.advanceRows(startUnit)
        partKey.advanceRows(startUnit)
        supplierNumber.advanceRows(startUnit)
        shipDelay.advanceRows(startUnit)
        commitDelay.advanceRows(startUnit)
        receiptDelay.advanceRows(startUnit)
        returnFlag.advanceRows(startUnit)
        shipInstruction.advanceRows(startUnit)
        shipMode.advanceRows(startUnit)
        comment.advanceRows(startUnit)
    }

    /// Orders whose line counts and comments are drawn ahead together.
    static let batchOrders = 16

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        var comments = CommentPrefetch()
        let lineCounts = UnsafeMutablePointer<Int32>.allocate(capacity: LineItemRows.batchOrders)
        defer {
            comments.release()
            lineCounts.deallocate()
        }
        var rows = 0
        var batchStart = units.lowerBound
        while batchStart < units.upperBound {
            let batchEnd = min(batchStart + Int64(LineItemRows.batchOrders), units.upperBound)
            comments.reset()
            for slot in 0..<Int(batchEnd - batchStart) {
                let lines = lineCount.next()
                lineCount.rowFinished()
                lineCounts[slot] = lines
                for _ in 0..<lines { comments.draw(from: &comment) }
                comment.rowFinished()
            }
            for index in batchStart..<batchEnd {
                let lines = lineCounts[Int(index - batchStart)]
                writeOrder(index: index, lines: lines, comments: &comments, into: &buffer)
                rows += Int(lines)
            }
            batchStart = batchEnd
        }
        buffer.touched &+= comments.touched
        return rows
    }

    /// The lines of one order (its line count and comments already drawn).
    private mutating func writeOrder(index: Int64, lines: Int32, comments: inout CommentPrefetch,
                                     into buffer: inout RowBuffer) {
        let orderKey = SharedOrderStreams.orderKey(index: index + 1)
        let date = orderDate.next()
        for line in 1...Int64(lines) {
            let lineQuantity = Int64(quantity.next())
            let lineDiscount = Int64(discount.next())
            let lineTax = Int64(tax.next())
            let part = partKey.next()
            let supplier = context.supplierKey(part: part, supplierNumber: Int64(supplierNumber.next()))
            let extended = ScaleContext.retailPriceCents(part: part) * lineQuantity
            let shipDate = date + shipDelay.next()
            let commitDate = date + commitDelay.next()
            let receiptDate = shipDate + receiptDelay.next()

            buffer.reserve(1024)
            buffer.intField(orderKey)
            buffer.intField(part)
            buffer.intField(supplier)
            buffer.intField(line)
            buffer.intField(lineQuantity)
            buffer.moneyField(cents: extended)
            buffer.moneyField(cents: lineDiscount)
            buffer.moneyField(cents: lineTax)
            if TPCHDates.isInPast(receiptDate) {
                buffer.textField(returnFlag.next())
            } else {
                buffer.byteField(UInt8(ascii: "N"))
            }
            buffer.byteField(TPCHDates.isInPast(shipDate) ? UInt8(ascii: "F") : UInt8(ascii: "O"))
            buffer.dateField(shipDate)
            buffer.dateField(commitDate)
            buffer.dateField(receiptDate)
            buffer.textField(shipInstruction.next())
            buffer.textField(shipMode.next())
            let (text, length) = comments.next()
            buffer.textField(text, length)
            buffer.endRow()
        }

        orderDate.rowFinished()
        quantity.rowFinished()
        discount.rowFinished()
        tax.rowFinished()
        partKey.rowFinished()
        supplierNumber.rowFinished()
        shipDelay.rowFinished()
        commitDelay.rowFinished()
        receiptDelay.rowFinished()
        returnFlag.rowFinished()
        shipInstruction.rowFinished()
        shipMode.rowFinished()
    }
}
