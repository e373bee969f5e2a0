// SPDX-License-Identifier: Apache-2.0
/// dbgen's 64-bit random stream, used for keys whose range outgrows 32 bits.
///
/// At scale factor 30,000 and above, customer keys drawn by orders and part keys
/// drawn by lineitems can exceed what the 32-bit stream can address, so dbgen
/// switches those two columns to a 64-bit linear congruential generator
/// (`seed ← seed × 6364136223846793005 + 1`, wrapping) and reduces into the
/// range with a remainder instead of a scaled double.
///
/// A quirk kept for byte-compatibility: skipping unused draws at the end of a row
/// (and skipping rows) still uses the 32-bit Park–Miller jump, applied to the
/// 64-bit seed with wrapping multiplication.
struct RowRandomLong {
    static let multiplier: Int64 = 6_364_136_223_846_793_005
    static let increment: Int64 = 1

    private(set) var seed: Int64
    private var usage: Int32 = 0
    let seedsPerRow: Int32

    init(seed: Int64, seedsPerRow: Int32) {
        self.seed = seed
        self.seedsPerRow = seedsPerRow
    }

    /// A value drawn from `lowerBound ... upperBound`.
    mutating func nextLong(_ lowerBound: Int64, _ upperBound: Int64) -> Int64 {
        seed = seed &* RowRandomLong.multiplier &+ RowRandomLong.increment
        usage &+= 1
        let magnitude = seed < 0 ? 0 &- seed : seed
        return lowerBound &+ magnitude % (upperBound &- lowerBound &+ 1)
    }

    mutating func rowFinished() {
        advance32(by: Int64(seedsPerRow - usage))
        usage = 0
    }

    mutating func advanceRows(_ rowCount: Int64) {
        if usage != 0 { rowFinished() }
        advance32(by: Int64(seedsPerRow) * rowCount)
    }

    private mutating func advance32(by count: Int64) {
        var factor = RowRandom.multiplier
        var remaining = count
        while remaining > 0 {
            if remaining & 1 != 0 { seed = (factor &* seed) % RowRandom.modulus }
            remaining >>= 1
            factor = (factor &* factor) % RowRandom.modulus
        }
    }
}
