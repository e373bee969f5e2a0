// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The kinds of random column dbgen generates. Each owns one random stream
// (`RowRandom`) with its own seed and per-row draw budget; a table generator
// holds one of these per random column, calls `rowFinished()` on all of them
// after each row, and `advanceRows(_:)` on all of them to start mid-table.

/// An integer uniformly drawn from a closed range (one draw per value).
struct BoundedIntColumn {
    private var random: RowRandom
    let lowerBound: Int32
    let upperBound: Int32

    init(seed: Int64, _ lowerBound: Int32, _ upperBound: Int32, seedsPerRow: Int32 = 1) {
        random = RowRandom(seed: seed, seedsPerRow: seedsPerRow)
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    @inline(__always)
    mutating func next() -> Int32 { random.nextInt(lowerBound, upperBound) }
    mutating func rowFinished() { random.rowFinished() }
    mutating func advanceRows(_ rows: Int64) { random.advanceRows(rows) }
}

/// A key drawn from a range that may outgrow 32 bits: the 32-bit stream below
/// scale factor 30,000, dbgen's 64-bit stream from there on.
struct BoundedLongColumn {
    private var random32: RowRandom
    private var random64: RowRandomLong
    let uses64Bits: Bool
    let lowerBound: Int64
    let upperBound: Int64

    init(seed: Int64, _ lowerBound: Int64, _ upperBound: Int64, uses64Bits: Bool, seedsPerRow: Int32 = 1) {
        random32 = RowRandom(seed: seed, seedsPerRow: seedsPerRow)
        random64 = RowRandomLong(seed: seed, seedsPerRow: seedsPerRow)
        self.uses64Bits = uses64Bits
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    @inline(__always)
    mutating func next() -> Int64 {
        if uses64Bits { return random64.nextLong(lowerBound, upperBound) }
        return Int64(random32.nextInt(Int32(truncatingIfNeeded: lowerBound), Int32(truncatingIfNeeded: upperBound)))
    }

    mutating func rowFinished() {
        if uses64Bits { random64.rowFinished() } else { random32.rowFinished() }
    }

    mutating func advanceRows(_ rows: Int64) {
        if uses64Bits { random64.advanceRows(rows) } else { random32.advanceRows(rows) }
    }
}

/// A weighted pick from a `dists.dss` list (one draw per value).
struct PickColumn {
    private var random: RowRandom
    let distribution: Distribution

    init(seed: Int64, _ distribution: Distribution, seedsPerRow: Int32 = 1) {
        random = RowRandom(seed: seed, seedsPerRow: seedsPerRow)
        self.distribution = distribution
    }

    @inline(__always)
    mutating func next() -> StaticBytes { distribution.pick(&random) }
    mutating func rowFinished() { random.rowFinished() }
    mutating func advanceRows(_ rows: Int64) { random.advanceRows(rows) }
}

/// Random alphanumeric text (addresses): a length in `[0.4, 1.6] × average`,
/// then characters from a 64-symbol alphabet, five characters per draw (six
/// bits each, low bits first).
///
/// The budget is nine draws per row (a length and up to eight character
/// draws). As in the reference generator, the character draws come from a copy
/// of the stream taken after the length draw, so the stream itself advances
/// only by the length draw until the row is finished.
struct AlphaNumericColumn {
    static let alphabet = StaticBytes("0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,")
    static let drawsPerRow: Int32 = 9

    private var random: RowRandom
    let minLength: Int32
    let maxLength: Int32

    init(seed: Int64, averageLength: Int) {
        random = RowRandom(seed: seed, seedsPerRow: AlphaNumericColumn.drawsPerRow)
        minLength = Int32(Double(averageLength) * 0.4)
        maxLength = Int32(Double(averageLength) * 1.6)
    }

    /// Writes the next value as a text field.
    @inline(__always)
    mutating func writeField(into buffer: inout RowBuffer) {
        let length = Int(random.nextInt(minLength, maxLength))
        var characters = random
        let start = buffer.count
        var bits: Int64 = 0
        let alphabet = AlphaNumericColumn.alphabet.base
        for index in 0..<length {
            if index % 5 == 0 { bits = Int64(characters.nextInt(0, Int32.max)) }
            buffer.byte(alphabet[Int(bits & 0x3F)])
            bits >>= 6
        }
        buffer.finishTextField(startingAt: start)
    }

    mutating func rowFinished() { random.rowFinished() }
    mutating func advanceRows(_ rows: Int64) { random.advanceRows(rows) }
}

/// Phone numbers `CC-LLL-LLL-LLLL`: the country code is 10 + nation key, the
/// three local groups are three draws.
struct PhoneColumn {
    private var random: RowRandom

    init(seed: Int64) {
        random = RowRandom(seed: seed, seedsPerRow: 3)
    }

    @inline(__always)
    mutating func writeField(nationKey: Int64, into buffer: inout RowBuffer) {
        let dash = UInt8(ascii: "-")
        buffer.digits(10 + nationKey % 90, minWidth: 2)
        buffer.byte(dash)
        buffer.digits(Int64(random.nextInt(100, 999)), minWidth: 3)
        buffer.byte(dash)
        buffer.digits(Int64(random.nextInt(100, 999)), minWidth: 3)
        buffer.byte(dash)
        buffer.digits(Int64(random.nextInt(1000, 9999)), minWidth: 4)
        buffer.separator()
    }

    mutating func rowFinished() { random.rowFinished() }
    mutating func advanceRows(_ rows: Int64) { random.advanceRows(rows) }
}

/// Part names: `count` distinct words of a list, chosen by the first `count`
/// steps of a Fisher–Yates shuffle of the whole list (one draw per step), joined
/// by spaces. The budget is one draw per list entry.
struct WordSequenceColumn {
    private var random: RowRandom
    let words: [StaticBytes]
    let count: Int

    init(seed: Int64, words: Distribution, count: Int) {
        random = RowRandom(seed: seed, seedsPerRow: Int32(words.count))
        self.words = words.values
        self.count = count
    }

    @inline(__always)
    mutating func writeField(into buffer: inout RowBuffer, scratch: UnsafeMutablePointer<Int32>) {
        let total = words.count
        for index in 0..<total { scratch[index] = Int32(index) }
        for position in 0..<count {
            let swap = Int(random.nextInt(Int32(position), Int32(total - 1)))
            let chosen = scratch[swap]
            scratch[swap] = scratch[position]
            scratch[position] = chosen
        }
        let start = buffer.count
        for position in 0..<count {
            if position > 0 { buffer.byte(UInt8(ascii: " ")) }
            buffer.bytes(words[Int(scratch[position])])
        }
        buffer.finishTextField(startingAt: start)
    }

    mutating func rowFinished() { random.rowFinished() }
    mutating func advanceRows(_ rows: Int64) { random.advanceRows(rows) }
}

/// Comments: a slice of the text pool. Two draws — an offset in
/// `[0, pool size − max length]`, then a length in `[0.4, 1.6] × average`.
struct TextColumn {
    private var random: RowRandom
    let pool: UnsafePointer<UInt8>
    let maxOffset: Int32
    let minLength: Int32
    let maxLength: Int32

    /// `valuesPerRow` is how many comments one generator row holds (4 for
    /// partsupp's four suppliers per part, 7 for lineitem's lines per order).
    init(seed: Int64, pool: TextPool, averageLength: Double, valuesPerRow: Int32 = 1) {
        random = RowRandom(seed: seed, seedsPerRow: 2 * valuesPerRow)
        self.pool = pool.base
        minLength = Int32(averageLength * 0.4)
        maxLength = Int32(averageLength * 1.6)
        maxOffset = Int32(pool.size) - maxLength
    }

    /// The next comment, as a pointer into the pool and a length.
    @inline(__always)
    mutating func next() -> (UnsafePointer<UInt8>, Int) {
        let offset = Int(random.nextInt(0, maxOffset))
        let length = Int(random.nextInt(minLength, maxLength))
        return (pool + offset, length)
    }

    mutating func rowFinished() { random.rowFinished() }
    mutating func advanceRows(_ rows: Int64) { random.advanceRows(rows) }
}
