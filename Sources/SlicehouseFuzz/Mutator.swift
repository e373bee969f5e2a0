// SPDX-License-Identifier: Apache-2.0
/// A small deterministic pseudo-random generator (SplitMix64). The fuzzer draws every
/// choice from it through `below`, never through the standard library's
/// `random(in:using:)`, so a seed gives the same inputs with every Swift version.
public struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (0 when `n` ≤ 1).
    public mutating func below(_ n: Int) -> Int {
        n <= 1 ? 0 : Int(next() % UInt64(n))
    }

    /// True one time in `n`.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }
}

/// Mutates fuzz inputs the way libFuzzer and AFL do, without coverage feedback:
/// bit and byte flips, arithmetic on bytes, "interesting" integers written in
/// either byte order, insertion, deletion, duplication and copying of byte ranges,
/// splicing with another corpus input, the target's dictionary tokens, and
/// replacement of decimal numbers in text with boundary values. Several mutations
/// are stacked on each input.
public struct Mutator {
    /// Tokens to insert or overwrite with (see `FuzzTarget.dictionary`).
    public let dictionary: [[UInt8]]
    /// Mutated inputs are cut to this length.
    public let maxLength: Int

    public init(dictionary: [[UInt8]], maxLength: Int) {
        self.dictionary = dictionary
        self.maxLength = max(1, maxLength)
    }

    /// Integers at the edges of the usual widths (as unsigned bit patterns).
    static let interestingIntegers: [UInt64] = [
        0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 100, 127, 128, 255, 256, 511, 512, 1000, 1024, 4096,
        32767, 32768, 65535, 65536, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x1_0000_0000,
        0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, UInt64.max, UInt64.max - 1,
        UInt64(bitPattern: -2), UInt64(bitPattern: -128), UInt64(bitPattern: -129), UInt64(bitPattern: -32768),
        UInt64(bitPattern: -32769), UInt64(bitPattern: Int64(Int32.min)), UInt64(bitPattern: Int64(Int32.min) - 1),
    ]

    /// Decimal texts at the edges of SQL's numeric types (for text formats).
    static let interestingNumbers: [String] = [
        "0", "-0", "1", "-1", "127", "128", "-129", "255", "32767", "32768", "-32768", "-32769",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "99999999999999999999999999999999999999", "100000000000000000000000000000000000000",
        "50000000000000000000000000000000000000000", "0.000000000000000000000000000000000000001", "1e308", "1e309",
        "-1e309", "1e-400", "NaN", "Infinity", "-Infinity", "0x10", "1.5e10", ".5", "5.", "00000000000000000001", "1_000",
    ]

    /// A mutated copy of `input`; `corpus` supplies splicing partners.
    public func mutate(_ input: [UInt8], corpus: [[UInt8]], rng: inout FuzzRandom) -> [UInt8] {
        var data = input
        let stack = 1 + rng.below(rng.oneIn(4) ? 16 : 4)
        for _ in 0..<stack { mutateOnce(&data, corpus: corpus, rng: &rng) }
        if data.count > maxLength { data.removeLast(data.count - maxLength) }
        return data
    }

    /// Apply one randomly chosen mutation.
    func mutateOnce(_ data: inout [UInt8], corpus: [[UInt8]], rng: inout FuzzRandom) {
        // Growing operations only while there is room; the rest work on any input.
        let kinds = dictionary.isEmpty ? 13 : 17
        switch rng.below(kinds) {
        case 0:  // flip one bit
            guard !data.isEmpty else { return insertRandom(&data, rng: &rng) }
            data[rng.below(data.count)] ^= UInt8(1) << UInt8(rng.below(8))
        case 1:  // a random byte
            guard !data.isEmpty else { return insertRandom(&data, rng: &rng) }
            data[rng.below(data.count)] = UInt8(truncatingIfNeeded: rng.next())
        case 2:  // add or subtract a little
            guard !data.isEmpty else { return insertRandom(&data, rng: &rng) }
            let i = rng.below(data.count)
            let delta = UInt8(1 + rng.below(35))
            data[i] = rng.oneIn(2) ? data[i] &+ delta : data[i] &- delta
        case 3:  // an interesting integer, 1, 2, 4 or 8 bytes, either byte order
            writeInterestingInteger(&data, rng: &rng)
        case 4:  // insert random bytes, or one byte repeated
            insertRandom(&data, rng: &rng)
        case 5, 6:  // delete a range
            guard !data.isEmpty else { return }
            let start = rng.below(data.count)
            let length = 1 + rng.below(min(data.count - start, rng.oneIn(8) ? data.count : 16))
            data.removeSubrange(start..<(start + length))
        case 7:  // duplicate a range somewhere else
            guard !data.isEmpty, data.count < maxLength else { return }
            let (start, length) = randomRange(data.count, rng: &rng)
            let piece = Array(data[start..<(start + length)])
            data.insert(contentsOf: piece, at: rng.below(data.count + 1))
        case 8:  // copy a range over another place
            guard data.count > 1 else { return }
            let (start, length) = randomRange(data.count, rng: &rng)
            let piece = Array(data[start..<(start + length)])
            let to = rng.below(data.count - length + 1)
            data.replaceSubrange(to..<(to + length), with: piece)
        case 9:  // splice: our prefix and another input's suffix
            guard let other = pick(corpus, rng: &rng), !other.isEmpty else { return }
            let cut = rng.below(data.count + 1)
            let from = rng.below(other.count)
            data = Array(data[..<cut]) + Array(other[from...])
        case 10:  // insert a piece of another input
            guard let other = pick(corpus, rng: &rng), !other.isEmpty, data.count < maxLength else { return }
            let (start, length) = randomRange(other.count, rng: &rng)
            data.insert(contentsOf: other[start..<(start + length)], at: rng.below(data.count + 1))
        case 11:  // replace a decimal number with a boundary value, or insert one
            replaceNumber(&data, rng: &rng)
        case 12:  // cut the input short
            guard !data.isEmpty else { return }
            data.removeLast(1 + rng.below(data.count))
        default:  // 13...16: dictionary tokens, inserted (twice as often) or overwriting
            let token = dictionary[rng.below(dictionary.count)]
            if rng.oneIn(3), token.count <= data.count {
                let at = rng.below(data.count - token.count + 1)
                data.replaceSubrange(at..<(at + token.count), with: token)
            } else {
                var piece = token
                // Text formats: keep tokens apart from their neighbours now and then.
                if rng.oneIn(2) { piece = [0x20] + piece + [0x20] }
                data.insert(contentsOf: piece, at: rng.below(data.count + 1))
            }
        }
    }

    /// A random non-empty range of `count` (> 0) bytes: start and length.
    func randomRange(_ count: Int, rng: inout FuzzRandom) -> (Int, Int) {
        let start = rng.below(count)
        let length = 1 + rng.below(min(count - start, rng.oneIn(4) ? count : 32))
        return (start, length)
    }

    /// A random corpus entry, or nil when there is none.
    func pick(_ corpus: [[UInt8]], rng: inout FuzzRandom) -> [UInt8]? {
        corpus.isEmpty ? nil : corpus[rng.below(corpus.count)]
    }

    /// Insert 1-16 random bytes, or a run of up to 64 copies of one byte.
    func insertRandom(_ data: inout [UInt8], rng: inout FuzzRandom) {
        guard data.count < maxLength else { return }
        let at = rng.below(data.count + 1)
        if rng.oneIn(4) {
            let byte = UInt8(truncatingIfNeeded: rng.next())
            data.insert(contentsOf: repeatElement(byte, count: 1 + rng.below(64)), at: at)
        } else {
            let bytes = (0..<(1 + rng.below(16))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            data.insert(contentsOf: bytes, at: at)
        }
    }

    /// Overwrite 1, 2, 4 or 8 bytes with an interesting integer (little- or big-endian),
    /// sometimes plus or minus a little.
    func writeInterestingInteger(_ data: inout [UInt8], rng: inout FuzzRandom) {
        let width = [1, 2, 4, 8][rng.below(4)]
        guard data.count >= width else { return insertRandom(&data, rng: &rng) }
        var value = Self.interestingIntegers[rng.below(Self.interestingIntegers.count)]
        if rng.oneIn(4) { value = rng.oneIn(2) ? value &+ UInt64(1 + rng.below(4)) : value &- UInt64(1 + rng.below(4)) }
        let at = rng.below(data.count - width + 1)
        let bigEndian = rng.oneIn(2)
        for k in 0..<width {
            let shift = UInt64(8 * (bigEndian ? width - 1 - k : k))
            data[at + k] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    /// Replace the run of ASCII digits at or after a random position (with its sign and
    /// fraction) by a boundary number; insert one when the input has no digits there.
    func replaceNumber(_ data: inout [UInt8], rng: inout FuzzRandom) {
        let number = Array(Self.interestingNumbers[rng.below(Self.interestingNumbers.count)].utf8)
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        var start = data.isEmpty ? 0 : rng.below(data.count)
        while start < data.count && !isDigit(data[start]) { start += 1 }
        guard start < data.count else {
            guard data.count < maxLength else { return }
            data.insert(contentsOf: number, at: rng.below(data.count + 1))
            return
        }
        var end = start
        while end < data.count && (isDigit(data[end]) || data[end] == UInt8(ascii: ".")) { end += 1 }
        while start > 0 && (isDigit(data[start - 1]) || data[start - 1] == UInt8(ascii: "-")) { start -= 1 }
        data.replaceSubrange(start..<end, with: number)
    }
}
