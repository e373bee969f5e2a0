// SPDX-License-Identifier: Apache-2.0
/// A validity bitmap: bit i set means row i is not NULL.
/// A vector with no bitmap has no NULLs (the common, fast case).
public struct Validity: Sendable, Equatable {
    public var words: [UInt64]

    /// All `count` rows valid.
    public init(allValid count: Int) {
        let n = (count + 63) >> 6
        words = [UInt64](filled: ~0, count: n)
    }
    /// All `count` rows NULL.
    public init(allNull count: Int) {
        words = [UInt64](filled: 0, count: (count + 63) >> 6)
    }
    public init(words: [UInt64]) { self.words = words }

    @inlinable public func isValid(_ i: Int) -> Bool {
        (words[i >> 6] >> UInt64(i & 63)) & 1 == 1
    }
    @inlinable public mutating func setValid(_ i: Int) {
        words[i >> 6] |= (1 << UInt64(i & 63))
    }
    @inlinable public mutating func setInvalid(_ i: Int) {
        words[i >> 6] &= ~(1 << UInt64(i & 63))
    }
    @inlinable public mutating func set(_ i: Int, _ valid: Bool) {
        if valid { setValid(i) } else { setInvalid(i) }
    }
    /// Grow to hold `count` bits; new bits are valid.
    public mutating func reserve(_ count: Int) {
        let n = (count + 63) >> 6
        if words.count < n { words.append(contentsOf: repeatElement(~0, count: n - words.count)) }
    }
    /// Number of NULL rows among the first `count`.
    public func nullCount(_ count: Int) -> Int {
        var valid = 0
        let full = count >> 6
        for w in 0..<full { valid += words[w].nonzeroBitCount }
        let rem = count & 63
        if rem > 0 { valid += (words[full] & ((1 << UInt64(rem)) - 1)).nonzeroBitCount }
        return count - valid
    }

    /// Valid rows among `start..<start+count`; rows past the words count as valid.
    public func validCount(from start: Int, count: Int) -> Int {
        var valid = 0
        words.withUnsafeBufferPointer { words in
            var i = start
            let end = start + count
            while i < end {
                let wi = i >> 6, bit = i & 63
                let take = Swift.min(64 - bit, end - i)
                var word = wi < words.count ? words[wi] >> UInt64(bit) : ~0
                if take < 64 { word &= (1 << UInt64(take)) &- 1 }
                valid += word.nonzeroBitCount
                i += take
            }
        }
        return valid
    }

    /// AND of two optional bitmaps (nil = all valid).
    public static func and(_ a: Validity?, _ b: Validity?) -> Validity? {
        guard let a else { return b }
        guard let b else { return a }
        var r = a
        for i in 0..<min(a.words.count, b.words.count) { r.words[i] &= b.words[i] }
        return r
    }
}
