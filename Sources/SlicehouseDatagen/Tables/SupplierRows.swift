// SPDX-License-Identifier: Apache-2.0
/// SUPPLIER rows.
///
/// Besides the usual columns, dbgen plants the Better Business Bureau remarks
/// that query 16 looks for: for about 10 suppliers in 10,000 (a draw in
/// 1 ... 10,000 that is at most 10), "Customer " and then "Complaints" or
/// "Recommends" are written over the comment at random places, keeping its
/// length — a random gap ("noise") of the original text stays between them.
struct SupplierRows {
    static let customerText = StaticBytes("Customer ")
    static let complaintsText = StaticBytes("Complaints")
    static let recommendsText = StaticBytes("Recommends")
    static let namePrefix = StaticBytes("Supplier#")

    private var address = AlphaNumericColumn(seed: 706_178_559, averageLength: 25)
    private var nationKey = BoundedIntColumn(seed: 110_356_601, 0, 24)
    private var phone = PhoneColumn(seed: 884_434_366)
    private var accountBalance = BoundedIntColumn(seed: 962_338_209, -99_999, 999_999)
    private var comment: TextColumn
    private var bbbChance = BoundedIntColumn(seed: 202_794_285, 1, 10_000)
    private var bbbNoise = RowRandom(seed: 263_032_577, seedsPerRow: 1)
    private var bbbOffset = RowRandom(seed: 715_851_524, seedsPerRow: 1)
    private var bbbKind = BoundedIntColumn(seed: 753_643_799, 0, 100)

    init(context: ScaleContext, startUnit: Int64) {
        comment = TextColumn(seed: 1_341_315_363, pool: context.textPool, averageLength: 63)
        address.advanceRows(startUnit)
        nationKey.advanceRows(startUnit)
        phone.advanceRows(startUnit)
        accountBalance.advanceRows(startUnit)
        comment.advanceRows(startUnit)
        bbbChance.advanceRows(startUnit)
        bbbNoise.advanceRows(startUnit)
        bbbOffset.advanceRows(startUnit)
        bbbKind.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        for index in units {
            let key = index + 1
            buffer.reserve(1024)
            buffer.intField(key)
            buffer.paddedField(SupplierRows.namePrefix, key)
            address.writeField(into: &buffer)
            let nation = Int64(nationKey.next())
            buffer.intField(nation)
            phone.writeField(nationKey: nation, into: &buffer)
            buffer.moneyField(cents: Int64(accountBalance.next()))
            writeComment(into: &buffer)
            buffer.endRow()

            address.rowFinished()
            nationKey.rowFinished()
            phone.rowFinished()
            accountBalance.rowFinished()
            comment.rowFinished()
            bbbChance.rowFinished()
            bbbNoise.rowFinished()
            bbbOffset.rowFinished()
            bbbKind.rowFinished()
        }
        return units.count
    }

    private mutating func writeComment(into buffer: inout RowBuffer) {
        let (text, length) = comment.next()
        guard bbbChance.next() <= 10 else {
            buffer.textField(text, length)
            return
        }
        let base = SupplierRows.customerText.count
        let remarkLength = base + SupplierRows.complaintsText.count
        let noise = Int(bbbNoise.nextInt(0, Int32(length - remarkLength)))
        let offset = Int(bbbOffset.nextInt(0, Int32(length - (remarkLength + noise))))
        let remark = bbbKind.next() < 50 ? SupplierRows.complaintsText : SupplierRows.recommendsText
        let start = buffer.count
        buffer.bytes(text, offset)
        buffer.bytes(SupplierRows.customerText)
        buffer.bytes(text + offset + base, noise)
        buffer.bytes(remark)
        let tail = offset + base + noise + remark.count
        buffer.bytes(text + tail, length - tail)
        buffer.finishTextField(startingAt: start)
    }
}
