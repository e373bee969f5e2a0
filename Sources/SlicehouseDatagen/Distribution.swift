// SPDX-License-Identifier: Apache-2.0
/// A weighted list of values from `dists.dss`.
///
/// dbgen picks from a distribution by drawing a uniform integer in
/// `[0, total weight)` and returning the first value whose running weight
/// exceeds it. Expanding the list into a table with one slot per unit of weight
/// turns that scan into one array lookup, with the same result.
struct Distribution: Sendable {
    let values: [StaticBytes]
    /// Running sums of the weights, in list order.
    let runningWeights: [Int]
    /// `valueIndexForDraw[r]` is the value picked by the draw `r`.
    let valueIndexForDraw: [Int32]

    init(_ entries: [(String, Int)]) {
        values = entries.map { StaticBytes($0.0) }
        var running = 0
        var sums: [Int] = []
        var lookup: [Int32] = []
        for (index, entry) in entries.enumerated() {
            running += entry.1
            sums.append(running)
            if entry.1 > 0 { lookup.append(contentsOf: repeatElement(Int32(index), count: entry.1)) }
        }
        runningWeights = sums
        valueIndexForDraw = lookup
    }

    var count: Int { values.count }

    /// The index of a weighted random value (one draw from `random`).
    @inline(__always)
    func pickIndex(_ random: inout RowRandom) -> Int {
        Int(valueIndexForDraw[Int(random.nextInt(0, Int32(valueIndexForDraw.count) - 1))])
    }

    /// A weighted random value (one draw from `random`).
    @inline(__always)
    func pick(_ random: inout RowRandom) -> StaticBytes {
        values[pickIndex(&random)]
    }
}

/// The distributions the table generators use, built once per process.
enum Distributions {
    static let nations = Distribution(DistributionData.nations)
    static let regions = Distribution(DistributionData.regions)
    static let marketSegments = Distribution(DistributionData.marketSegments)
    static let orderPriorities = Distribution(DistributionData.orderPriorities)
    static let shipInstructions = Distribution(DistributionData.shipInstructions)
    static let shipModes = Distribution(DistributionData.shipModes)
    static let returnFlags = Distribution(DistributionData.returnFlags)
    static let containers = Distribution(DistributionData.containers)
    static let partTypes = Distribution(DistributionData.partTypes)
    static let colors = Distribution(DistributionData.colors.map { ($0, 1) })
}
