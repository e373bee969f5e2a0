// SPDX-License-Identifier: Apache-2.0
/// CUSTOMER rows: name from the key, random address, nation, phone, balance,
/// market segment and comment.
struct CustomerRows {
    static let namePrefix = StaticBytes("Customer#")

    private var address = AlphaNumericColumn(seed: 881_155_353, averageLength: 25)
    private var nationKey = BoundedIntColumn(seed: 1_489_529_863, 0, 24)
    private var phone = PhoneColumn(seed: 1_521_138_112)
    private var accountBalance = BoundedIntColumn(seed: 298_370_230, -99_999, 999_999)
    private var segment = PickColumn(seed: 1_140_279_430, Distributions.marketSegments)
    private var comment: TextColumn

    init(context: ScaleContext, startUnit: Int64) {
        comment = TextColumn(seed: 1_335_826_707, pool: context.textPool, averageLength: 73)
        address.advanceRows(startUnit)
        nationKey.advanceRows(startUnit)
        phone.advanceRows(startUnit)
        accountBalance.advanceRows(startUnit)
        segment.advanceRows(startUnit)
        comment.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        var comments = CommentPrefetch()
        defer { comments.release() }
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
            buffer.paddedField(CustomerRows.namePrefix, key)
            address.writeField(into: &buffer)
            let nation = Int64(nationKey.next())
            buffer.intField(nation)
            phone.writeField(nationKey: nation, into: &buffer)
            buffer.moneyField(cents: Int64(accountBalance.next()))
            buffer.textField(segment.next())
            let (text, length) = comments.next()
            buffer.textField(text, length)
            buffer.endRow()

            address.rowFinished()
            nationKey.rowFinished()
            phone.rowFinished()
            accountBalance.rowFinished()
            segment.rowFinished()
        }
        buffer.touched &+= comments.touched
        return units.count
    }
}
