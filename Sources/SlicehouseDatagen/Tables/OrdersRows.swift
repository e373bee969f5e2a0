// SPDX-License-Identifier: Apache-2.0
/// ORDERS rows.
///
/// - Customer keys skip every third customer (dbgen's "customer mortality":
///   a third of the customers never order): a key divisible by 3 is moved
///   to its neighbours, alternately up and down, until it is not.
/// - The total price and status come from re-drawing the order's lines
///   (`SharedOrderStreams`): the sum over lines of
///   `extended price × (1 − discount) × (1 + tax)`, each step truncated to
///   cents as dbgen's integer arithmetic does; status F when every line has
///   shipped by 1995-06-17, O when none has, P otherwise.
struct OrdersRows {
    static let clerkPrefix = StaticBytes("Clerk#")
    static let customerMortality: Int64 = 3

    private let context: ScaleContext
    private var orderDate = SharedOrderStreams.orderDate()
    private var lineCount = SharedOrderStreams.lineCount()
    private var customerKey: BoundedLongColumn
    private var priority = PickColumn(seed: 591_449_447, Distributions.orderPriorities)
    private var clerk: BoundedIntColumn
    private var comment: TextColumn
    private var lineQuantity = SharedOrderStreams.quantity()
    private var lineDiscount = SharedOrderStreams.discount()
    private var lineTax = SharedOrderStreams.tax()
    private var linePartKey: BoundedLongColumn
    private var lineShipDelay = SharedOrderStreams.shipDelay()

    init(context: ScaleContext, startUnit: Int64) {
        self.context = context
        customerKey = BoundedLongColumn(seed: 851_767_375, 1, context.customers, uses64Bits: context.usesLongKeys)
        clerk = BoundedIntColumn(seed: 1_171_034_773, 1, context.clerks)
        comment = TextColumn(seed: 276_090_261, pool: context.textPool, averageLength: 49)
        linePartKey = SharedOrderStreams.partKey(context)

        orderDate.advanceRows(startUnit)
        lineCount.advanceRows(startUnit)
        customerKey.advanceRows(startUnit)
        priority.advanceRows(startUnit)
        clerk.advanceRows(startUnit)
        comment.advanceRows(startUnit)
        lineQuantity.advanceRows(startUnit)
        lineDiscount.advanceRows(startUnit)
        lineTax.advanceRows(startUnit)
        linePartKey.advanceRows(startUnit)
        lineShipDelay.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        var comments = CommentPrefetch()
        defer { comments.release() }
        var batchStart = units.lowerBound
        while batchStart < units.upperBound {
            let batchEnd = min(batchStart + Int64(CommentPrefetch.capacity), units.upperBound)
            comments.reset()
            for _ in batchStart..<batchEnd {
                comments.draw(from: &comment)
                comment.rowFinished()
            }
            for index in batchStart..<batchEnd { writeOrder(index: index, comments: &comments, into: &buffer) }
            batchStart = batchEnd
        }
        buffer.touched &+= comments.touched
        return units.count
    }

    private mutating func writeOrder(index: Int64, comments: inout CommentPrefetch, into buffer: inout RowBuffer) {
        let date = orderDate.next()
        let customer = nextCustomerKey()
        let lines = lineCount.next()
        var totalCents: Int64 = 0
        var shipped: Int32 = 0
        for _ in 0..<lines {
            let quantity = Int64(lineQuantity.next())
            let discount = Int64(lineDiscount.next())
            let tax = Int64(lineTax.next())
            let partKey = linePartKey.next()
            let extended = ScaleContext.retailPriceCents(part: partKey) * quantity
            let discounted = extended * (100 - discount)
            totalCents += (discounted / 100) * (100 + tax) / 100
            if TPCHDates.isInPast(lineShipDelay.next() + date) { shipped += 1 }
        }
        let status: UInt8 = shipped == lines ? UInt8(ascii: "F") : (shipped > 0 ? UInt8(ascii: "P") : UInt8(ascii: "O"))

        buffer.reserve(1024)
        buffer.intField(SharedOrderStreams.orderKey(index: index + 1))
        buffer.intField(customer)
        buffer.byteField(status)
        buffer.moneyField(cents: totalCents)
        buffer.dateField(date)
        buffer.textField(priority.next())
        buffer.paddedField(OrdersRows.clerkPrefix, Int64(clerk.next()))
        buffer.intField(0)
        let (text, length) = comments.next()
        buffer.textField(text, length)
        buffer.endRow()

        orderDate.rowFinished()
        lineCount.rowFinished()
        customerKey.rowFinished()
        priority.rowFinished()
        clerk.rowFinished()
        lineQuantity.rowFinished()
        lineDiscount.rowFinished()
        lineTax.rowFinished()
        linePartKey.rowFinished()
        lineShipDelay.rowFinished()
    }

    private mutating func nextCustomerKey() -> Int64 {
        var key = customerKey.next()
        var delta: Int64 = 1
        while key % OrdersRows.customerMortality == 0 {
            key = min(key + delta, context.customers)
            delta = -delta
        }
        return key
    }
}
