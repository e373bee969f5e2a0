// SPDX-License-Identifier: Apache-2.0
/// The text grammar flattened into lookup tables for the text pool's hot loop.
///
/// Every weighted list (productions and words) becomes a table with one entry
/// per unit of weight, so a pick is one draw and one load. Words are packed as
/// `(offset << 8) | length` into a shared byte arena. Everything is raw memory
/// built once per process, so the loop touches no Swift arrays (which keeps it
/// fast in debug builds too).
final class FlatGrammar: @unchecked Sendable {
    static let shared = FlatGrammar()

    // Sentence tokens.
    static let nounPhrase: UInt8 = 0
    static let verbPhrase: UInt8 = 1
    static let prepositionalPhrase: UInt8 = 2
    static let terminator: UInt8 = 3
    // Phrase tokens: word lists 0...7, then the comma.
    static let articles: UInt8 = 0
    static let adjectives: UInt8 = 1
    static let adverbs: UInt8 = 2
    static let nouns: UInt8 = 3
    static let verbs: UInt8 = 4
    static let auxiliaries: UInt8 = 5
    static let prepositions: UInt8 = 6
    static let terminators: UInt8 = 7
    static let comma: UInt8 = 8
    /// Tokens per production, at most (the longest has five).
    /// (The hot loop in `SentenceReader` spells these codes as literals,
    /// which unoptimized builds read without calling an accessor.)
    static let maxTokens = 8

    let sentences: ProductionTable
    let nounPhrases: ProductionTable
    let verbPhrases: ProductionTable
    /// Packed words of all lists, list after list.
    let wordDraws: UnsafeMutablePointer<UInt32>
    /// Where each list starts in `wordDraws`, and its total weight.
    let wordStart: UnsafeMutablePointer<Int>
    let wordWeight: UnsafeMutablePointer<Int64>
    let arena: UnsafeMutablePointer<UInt8>

    private init() {
        sentences = ProductionTable(DistributionData.grammar) { token in
            switch token {
            case "N": return FlatGrammar.nounPhrase
            case "V": return FlatGrammar.verbPhrase
            case "P": return FlatGrammar.prepositionalPhrase
            default: return FlatGrammar.terminator
            }
        }
        nounPhrases = ProductionTable(DistributionData.nounPhrases) { token in
            switch token {
            case "A": return FlatGrammar.articles
            case "J": return FlatGrammar.adjectives
            case "D": return FlatGrammar.adverbs
            case ",": return FlatGrammar.comma
            default: return FlatGrammar.nouns
            }
        }
        verbPhrases = ProductionTable(DistributionData.verbPhrases) { token in
            switch token {
            case "X": return FlatGrammar.auxiliaries
            case "D": return FlatGrammar.adverbs
            default: return FlatGrammar.verbs
            }
        }
        // In token-code order.
        let lists = [DistributionData.articles, DistributionData.adjectives, DistributionData.adverbs,
                     DistributionData.nouns, DistributionData.verbs, DistributionData.auxiliaries,
                     DistributionData.prepositions, DistributionData.terminators]
        var bytes: [UInt8] = []
        var draws: [UInt32] = []
        wordStart = .allocate(capacity: lists.count)
        wordWeight = .allocate(capacity: lists.count)
        for (index, list) in lists.enumerated() {
            wordStart[index] = draws.count
            for (word, weight) in list {
                let packed = UInt32(bytes.count) << 8 | UInt32(word.utf8.count)
                bytes.append(contentsOf: word.utf8)
                draws.append(contentsOf: repeatElement(packed, count: weight))
            }
            wordWeight[index] = Int64(draws.count - wordStart[index])
        }
        wordDraws = .allocate(capacity: draws.count)
        wordDraws.initialize(from: draws, count: draws.count)
        arena = .allocate(capacity: bytes.count)
        arena.initialize(from: bytes, count: bytes.count)
    }

    /// A weighted list of productions: production index per unit of weight,
    /// and each production's tokens (spaces dropped), `maxTokens` slots each.
    struct ProductionTable {
        let draws: UnsafeMutablePointer<UInt8>
        let weight: Int64
        let tokens: UnsafeMutablePointer<UInt8>
        let tokenCounts: UnsafeMutablePointer<Int>

        init(_ entries: [(String, Int)], code: (Character) -> UInt8) {
            let total = entries.reduce(0) { $0 + $1.1 }
            draws = .allocate(capacity: total)
            tokens = .allocate(capacity: entries.count * FlatGrammar.maxTokens)
            tokenCounts = .allocate(capacity: entries.count)
            var slot = 0
            for (index, entry) in entries.enumerated() {
                for _ in 0..<entry.1 {
                    draws[slot] = UInt8(index)
                    slot += 1
                }
                let symbols = entry.0.filter { $0 != " " }.prefix(FlatGrammar.maxTokens)
                for (position, symbol) in symbols.enumerated() {
                    tokens[index * FlatGrammar.maxTokens + position] = code(symbol)
                }
                tokenCounts[index] = symbols.count
            }
            weight = Int64(total)
        }
    }
}
