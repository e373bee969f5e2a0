// SPDX-License-Identifier: Apache-2.0
/// REGION and NATION: fixed tables (5 and 25 rows) whose names come from
/// `dists.dss` and whose comments come from the text pool.
///
/// A nation's region key is the running sum of the weights of the `nations`
/// list up to that nation (the list stores region adjustments, not weights).
struct RegionRows {
    static let commentSeed: Int64 = 1_500_869_201
    private var comment: TextColumn

    init(context: ScaleContext, startUnit: Int64) {
        comment = TextColumn(seed: RegionRows.commentSeed, pool: context.textPool, averageLength: 72)
        comment.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        let regions = Distributions.regions
        for key in units {
            buffer.reserve(1024)
            buffer.intField(key)
            buffer.textField(regions.values[Int(key)])
            let (text, length) = comment.next()
            buffer.textField(text, length)
            buffer.endRow()
            comment.rowFinished()
        }
        return units.count
    }
}

struct NationRows {
    static let commentSeed: Int64 = 606_179_079
    private var comment: TextColumn

    init(context: ScaleContext, startUnit: Int64) {
        comment = TextColumn(seed: NationRows.commentSeed, pool: context.textPool, averageLength: 72)
        comment.advanceRows(startUnit)
    }

    mutating func write(units: Range<Int64>, into buffer: inout RowBuffer) -> Int {
        let nations = Distributions.nations
        for key in units {
            buffer.reserve(1024)
            buffer.intField(key)
            buffer.textField(nations.values[Int(key)])
            buffer.intField(Int64(nations.runningWeights[Int(key)]))
            let (text, length) = comment.next()
            buffer.textField(text, length)
            buffer.endRow()
            comment.rowFinished()
        }
        return units.count
    }
}
