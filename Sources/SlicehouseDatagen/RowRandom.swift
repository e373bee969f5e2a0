// SPDX-License-Identifier: Apache-2.0
/// dbgen's random number stream: the Park–Miller "minimal standard" generator.
///
/// Every random column of every TPC-H table draws from its own stream. A stream
/// is the sequence `seed ← seed × 16807 mod (2³¹ − 1)`, started from a constant
/// that dbgen assigns to that column (the seeds live in the table generators).
///
/// **Fixed budget per row.** dbgen gives each row of a table a fixed number of
/// draws from each stream (`seedsPerRow`), whether or not the row uses them all:
/// a comment of random length uses two draws, an address up to nine, a
/// lineitem column up to seven (one per line of its order). When a row is done,
/// the stream jumps over the draws the row left unused. That makes the stream
/// position of row *n* exactly `n × seedsPerRow` draws from the start.
///
/// **Skip-ahead.** Because the position of every row is known, a generator can
/// start at any row without producing the rows before it: advancing a
/// multiplicative congruential generator by *k* steps is one multiplication by
/// `16807ᵏ mod (2³¹ − 1)`, computed by square-and-multiply in O(log k). This is
/// what lets row ranges be generated independently (parallel chunks, `--parts`).
///
/// **Bounded values.** `nextInt(lo, hi)` scales the new seed into `[lo, hi]` with
/// double arithmetic, `lo + Int((seed / M) × (hi − lo + 1))`. The range is
/// computed with 32-bit wrap-around, as the reference generator does; for the
/// one caller that asks for `[0, Int32.max]` that wraps to −2³¹, which the
/// alphanumeric column depends on.
struct RowRandom {
    static let multiplier: Int64 = 16807
    static let modulus: Int64 = 2_147_483_647

    /// The current seed, always in `1 ..< modulus`.
    private(set) var seed: Int64
    /// Draws taken in the current row.
    private var usage: Int32 = 0
    /// The per-row draw budget.
    let seedsPerRow: Int32

    init(seed: Int64, seedsPerRow: Int32) {
        self.seed = seed
        self.seedsPerRow = seedsPerRow
    }

    /// Advances the stream one step and returns the new seed.
    @inline(__always)
    mutating func nextRand() -> Int64 {
        // seed × 16807 < 2⁴⁶; reduce mod 2³¹ − 1 with the Mersenne fold.
        let product = seed &* RowRandom.multiplier
        var folded = (product & RowRandom.modulus) &+ (product >> 31)
        if folded >= RowRandom.modulus { folded &-= RowRandom.modulus }
        seed = folded
        usage &+= 1
        return folded
    }

    /// A value uniformly drawn from `lowerBound ... upperBound`.
    ///
    /// For ranges below 2²¹ values the same result comes from integer
    /// arithmetic: `seed × range / M` is never closer than 1/M to an integer
    /// (M is prime), and the double computation errs by less than
    /// `range × 2⁻⁵²`, which is below 1/M for such ranges — so both truncate to
    /// the same integer. Most columns take that cheaper path.
    @inline(__always)
    mutating func nextInt(_ lowerBound: Int32, _ upperBound: Int32) -> Int32 {
        let s = nextRand()
        let exactRange = Int64(upperBound) - Int64(lowerBound) + 1
        if exactRange > 0 && exactRange < RowRandom.exactIntegerRangeLimit {
            return lowerBound &+ Int32(truncatingIfNeeded: (s &* exactRange) / RowRandom.modulus)
        }
        let range = Double(upperBound &- lowerBound &+ 1)
        let scaled = (Double(s) / 2_147_483_647.0) * range
        return lowerBound &+ Int32(scaled)
    }

    /// Ranges below this take the integer path of `nextInt`.
    static let exactIntegerRangeLimit: Int64 = 1 << 21

    /// `nextInt` by dbgen's double formula alone (for tests of the fast path).
    mutating func nextIntByDouble(_ lowerBound: Int32, _ upperBound: Int32) -> Int32 {
        let s = nextRand()
        let range = Double(upperBound &- lowerBound &+ 1)
        return lowerBound &+ Int32((Double(s) / 2_147_483_647.0) * range)
    }

    /// Ends the current row: skips the draws the row did not use.
    mutating func rowFinished() {
        advance(by: Int64(seedsPerRow - usage))
        usage = 0
    }

    /// Skips `rowCount` whole rows (after finishing the current one, if started).
    mutating func advanceRows(_ rowCount: Int64) {
        if usage != 0 { rowFinished() }
        advance(by: Int64(seedsPerRow) * rowCount)
    }

    /// Moves the stream `count` steps forward in O(log count).
    private mutating func advance(by count: Int64) {
        seed = RowRandom.skip(seed: seed, steps: count)
    }

    /// `seed × 16807^steps mod (2³¹ − 1)`, by square-and-multiply.
    /// Non-positive step counts leave the seed unchanged.
    static func skip(seed: Int64, steps: Int64) -> Int64 {
        var result = seed
        var factor = multiplier
        var remaining = steps
        while remaining > 0 {
            if remaining & 1 != 0 { result = (factor &* result) % modulus }
            remaining >>= 1
            factor = (factor &* factor) % modulus
        }
        return result
    }
}
