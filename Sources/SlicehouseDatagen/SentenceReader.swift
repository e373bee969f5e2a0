// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads sentences of the text grammar from the pool's random stream into a
/// growable `malloc`ed buffer, starting at any draw of the stream.
///
/// All lists here weigh well under 2²¹, and for such ranges dbgen's double
/// scaling `⌊(seed / M) × weight⌋` equals the integer `seed × weight / M`
/// exactly (the double's rounding error is below 1/M, the smallest distance
/// of `seed × weight / M` from an integer), so the loop uses integer math.
struct SentenceReader {
    let grammar: FlatGrammar
    // The grammar's tables, copied out of the class so that the loop reads
    // them without going through a reference (which costs in debug builds).
    private let wordDraws: UnsafeMutablePointer<UInt32>
    private let wordStart: UnsafeMutablePointer<Int>
    private let wordWeight: UnsafeMutablePointer<Int64>
    private let arena: UnsafeMutablePointer<UInt8>
    private let sentences: FlatGrammar.ProductionTable
    private let nounPhrases: FlatGrammar.ProductionTable
    private let verbPhrases: FlatGrammar.ProductionTable
    private let spacedThe = SentenceReader.spacedTheBytes.base
    private(set) var output: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var length = 0
    private var seed: Int64
    /// Index of the next draw, counted from the stream's start.
    private(set) var draws: Int64

    /// A reader with a fresh buffer (`hugePages`: back it with 2 MiB pages
    /// where the system allows, for buffers that will be read at random).
    init(grammar: FlatGrammar, firstDraw: Int64, capacity: Int, hugePages: Bool = false) {
        self.grammar = grammar
        (wordDraws, wordStart, wordWeight, arena) = (grammar.wordDraws, grammar.wordStart, grammar.wordWeight, grammar.arena)
        (sentences, nounPhrases, verbPhrases) = (grammar.sentences, grammar.nounPhrases, grammar.verbPhrases)
        self.capacity = max(capacity, 4096)
        output = hugePages ? SentenceReader.allocateHuge(self.capacity) : SentenceReader.allocate(self.capacity)
        seed = RowRandom.skip(seed: TextPool.seed, steps: firstDraw)
        draws = firstDraw
    }

    /// A reader that appends to `buffer` (which it now owns) after `length`
    /// bytes, continuing the stream at draw `nextDraw`.
    init(grammar: FlatGrammar, continuing buffer: UnsafeMutablePointer<UInt8>, capacity: Int, length: Int,
         nextDraw: Int64) {
        self.grammar = grammar
        (wordDraws, wordStart, wordWeight, arena) = (grammar.wordDraws, grammar.wordStart, grammar.wordWeight, grammar.arena)
        (sentences, nounPhrases, verbPhrases) = (grammar.sentences, grammar.nounPhrases, grammar.verbPhrases)
        self.capacity = capacity
        self.length = length
        output = buffer
        seed = RowRandom.skip(seed: TextPool.seed, steps: nextDraw)
        draws = nextDraw
    }

    private static func allocate(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        guard let raw = malloc(bytes) else { return .allocate(capacity: bytes) }
        return raw.bindMemory(to: UInt8.self, capacity: bytes)
    }

    /// `bytes` of memory aligned to 2 MiB and marked for transparent huge
    /// pages: the text pool is read at random offsets, and with 4 KiB pages
    /// nearly every comment would also miss the TLB. Freed with `free`.
    private static func allocateHuge(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        let alignment = 2 << 20
        let rounded = (bytes + alignment - 1) / alignment * alignment
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, alignment, rounded) == 0, let memory = raw else { return allocate(bytes) }
        #if os(Linux)
        _ = madvise(memory, rounded, 14) // MADV_HUGEPAGE
        #endif
        return memory.bindMemory(to: UInt8.self, capacity: rounded)
    }

    /// Hands over the buffer (`free` it when done); the reader must not be used after.
    mutating func takeBuffer() -> UnsafeMutablePointer<UInt8> {
        let buffer = output
        output = SentenceReader.allocate(1)
        capacity = 1
        length = 0
        return buffer
    }

    func release() { free(output) }

    private mutating func ensureRoom() {
        guard length &+ 256 > capacity else { return } // TextPool.maxSentenceLength
        let newCapacity = capacity * 2
        if let grown = realloc(output, newCapacity) {
            output = grown.bindMemory(to: UInt8.self, capacity: newCapacity)
            capacity = newCapacity
        } else {
            let fresh = SentenceReader.allocate(newCapacity)
            memcpy(fresh, output, length)
            free(output)
            output = fresh
            capacity = newCapacity
        }
    }

    @inline(__always)
    private mutating func draw(_ weight: Int64) -> Int {
        // RowRandom's step (× 16807 mod 2³¹ − 1) with literal constants, which
        // unoptimized builds read without a call.
        let product = seed &* 16807
        var folded = (product & 0x7FFF_FFFF) &+ (product >> 31)
        if folded >= 0x7FFF_FFFF { folded &-= 0x7FFF_FFFF }
        seed = folded
        draws &+= 1
        return Int((folded &* weight) / 0x7FFF_FFFF)
    }

    @inline(__always)
    private mutating func appendWord(_ list: UInt8) {
        let index = Int(list)
        // `draw(_:)`, written out: this is the hottest call of the pool build.
        let product = seed &* 16807
        var folded = (product & 0x7FFF_FFFF) &+ (product >> 31)
        if folded >= 0x7FFF_FFFF { folded &-= 0x7FFF_FFFF }
        seed = folded
        draws &+= 1
        let packed = wordDraws[wordStart[index] &+ Int((folded &* wordWeight[index]) / 0x7FFF_FFFF)]
        let count = Int(packed & 0xFF)
        memcpy(output + length, arena + Int(packed >> 8), count)
        length &+= count
    }

    @inline(__always)
    private mutating func appendSpace() {
        output[length] = 0x20
        length &+= 1
    }

    mutating func appendSentence() {
        ensureRoom()
        let table = sentences
        let production = Int(table.draws[draw(table.weight)])
        let tokens = table.tokens + production &* 8 // FlatGrammar.maxTokens
        let count = table.tokenCounts[production]
        var position = 0
        while position < count {
            switch tokens[position] {
            case 0: // FlatGrammar.nounPhrase
                appendPhrase(nounPhrases)
            case 1: // FlatGrammar.verbPhrase
                appendPhrase(verbPhrases)
            case 2: // FlatGrammar.prepositionalPhrase
                appendWord(6) // FlatGrammar.prepositions
                memcpy(output + length, spacedThe, 5)
                length &+= 5
                appendPhrase(nounPhrases)
            default:
                // The terminator replaces the space after the last word.
                length &-= 1
                appendWord(7) // FlatGrammar.terminators
            }
            if output[length &- 1] != 0x20 { appendSpace() }
            position &+= 1
        }
    }

    /// A noun or verb phrase: each word followed by a space; a comma replaces
    /// the space before it.
    @inline(__always)
    private mutating func appendPhrase(_ table: FlatGrammar.ProductionTable) {
        let production = Int(table.draws[draw(table.weight)])
        let tokens = table.tokens + production &* 8 // FlatGrammar.maxTokens
        let count = table.tokenCounts[production]
        var position = 0
        while position < count {
            let token = tokens[position]
            if token == 8 { // FlatGrammar.comma
                output[length &- 1] = 0x2C
            } else {
                appendWord(token)
            }
            output[length] = 0x20
            length &+= 1
            position &+= 1
        }
    }

    /// " the " (after a preposition), as immortal bytes.
    private static let spacedTheBytes = StaticBytes(" the ")
}
