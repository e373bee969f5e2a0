// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// TEXT255 / TEXT32K: a per-block dictionary of *words* (a value split at every
/// space byte; joining the pieces with single spaces gives the value back exactly).
///
/// The dictionary holds the words that occur at least twice, most bytes saved first:
/// TEXT255 up to 245 words with 1-byte codes (Redshift's limit), TEXT32K words
/// totalling at most 32 KiB with 2-byte codes. Other words are stored inline.
///
/// Layout: u16 word count, each word as varint length + bytes, varint total bytes
/// of the decoded values; then per value a varint piece count (0 = empty string) and per piece a code: a dictionary index,
/// or the escape code (0xFF / 0xFFFF) followed by varint length + bytes.
enum TextCodec {
    static let maxWords255 = 245
    static let maxDictBytes32K = 32 * 1024

    /// A block's values split into words: the distinct words (where each first
    /// occurs, its length, how often it occurs) and, per value, its pieces' word ids.
    struct Words {
        var wordStart: [Int] = []
        var wordLen: [Int] = []
        var freq: [Int] = []
        var pieceWord: [Int32] = []
        var pieceCounts: [Int32] = []

        init(_ s: StringInput) {
            let n = s.count
            pieceWord.reserveCapacity(n * 2)
            pieceCounts = [Int32](filled: 0, count: n)
            guard let base = s.bytes else { return }
            var table = ValueHashIndex(expected: 1024)
            for i in 0..<n {
                let len = s.length(i)
                if len == 0 { continue }
                let st = s.start(i)
                var ps = 0, pc: Int32 = 0
                for j in 0...len {
                    if j == len || base.load(fromByteOffset: st + j, as: UInt8.self) == 0x20 {
                        pieceWord.append(intern(base, st + ps, j - ps, &table))
                        pc += 1
                        ps = j + 1
                    }
                }
                pieceCounts[i] = pc
            }
        }

        private mutating func intern(_ base: UnsafeRawPointer, _ start: Int, _ len: Int, _ table: inout ValueHashIndex) -> Int32 {
            let p = base + start
            let h = Hashing.hash(bytes: p.assumingMemoryBound(to: UInt8.self), count: len)
            let found = wordStart.withUnsafeBufferPointer { ws in
                wordLen.withUnsafeBufferPointer { wl in
                    table.find(h) { id in wl[id] == len && bytesEqual(base + ws[id], p, len) }
                }
            }
            if let id = found {
                freq[id] += 1
                return Int32(id)
            }
            let id = wordStart.count
            table.insert(h, id: id)
            wordStart.append(start)
            wordLen.append(len)
            freq.append(1)
            return Int32(id)
        }

        /// The dictionary: words seen twice or more, most bytes saved first, within
        /// the mode's limits. Returns each word's code (-1 = stored inline) and the
        /// dictionary's words in code order.
        func dictionary(large: Bool) -> (code: [Int32], words: [Int]) {
            let candidates = (0..<wordStart.count).filter { freq[$0] >= 2 }.sorted { a, b in
                let sa = (freq[a] - 1) * (wordLen[a] + 1), sb = (freq[b] - 1) * (wordLen[b] + 1)
                return sa != sb ? sa > sb : a < b
            }
            var code = [Int32](filled: -1, count: wordStart.count)
            var dict: [Int] = []
            var dictBytes = 0
            for id in candidates {
                if large {
                    if dict.count >= 0xFFFF { break }
                    if dictBytes + wordLen[id] > maxDictBytes32K { continue }
                } else if dict.count >= maxWords255 {
                    break
                }
                code[id] = Int32(dict.count)
                dict.append(id)
                dictBytes += wordLen[id]
            }
            return (code, dict)
        }

        /// Bytes `encode` writes for these words in the given mode.
        func payloadSize(large: Bool, totalBytes: Int) -> Int {
            let (code, dict) = dictionary(large: large)
            let codeBytes = large ? 2 : 1
            var size = 2 + varintSize(UInt64(totalBytes))
            for id in dict { size += varintSize(UInt64(wordLen[id])) + wordLen[id] }
            for pc in pieceCounts { size += varintSize(UInt64(pc)) }
            for id in 0..<wordStart.count {
                let each = code[id] >= 0 ? codeBytes : codeBytes + varintSize(UInt64(wordLen[id])) + wordLen[id]
                size += freq[id] * each
            }
            return size
        }
    }

    static func encode(_ s: StringInput, large: Bool, into w: inout EncodingWriter) {
        let words = Words(s)
        let (code, dict) = words.dictionary(large: large)
        let base = s.bytes
        w.u16(UInt16(dict.count))
        for id in dict {
            let len = words.wordLen[id]
            w.varint(UInt64(len))
            if len > 0, let base { w.append(UnsafeRawBufferPointer(start: base + words.wordStart[id], count: len)) }
        }
        w.varint(UInt64(s.totalBytes))
        var k = 0
        for i in 0..<s.count {
            let pc = Int(words.pieceCounts[i])
            w.varint(UInt64(pc))
            for _ in 0..<pc {
                let id = Int(words.pieceWord[k])
                k += 1
                let c = code[id]
                if c >= 0 {
                    if large { w.u16(UInt16(c)) } else { w.u8(UInt8(c)) }
                } else {
                    if large { w.u16(0xFFFF) } else { w.u8(0xFF) }
                    let len = words.wordLen[id]
                    w.varint(UInt64(len))
                    if len > 0, let base { w.append(UnsafeRawBufferPointer(start: base + words.wordStart[id], count: len)) }
                }
            }
        }
    }

    static func decode(_ r: inout EncodingReader, _ n: Int, large: Bool) throws -> StringArray {
        try r.need(n, "text values")  // at least a piece count per value
        let dn = Int(try r.u16("word count"))
        guard large ? dn < 0xFFFF : dn <= maxWords255 else { throw corruptBlock("text dictionary of \(dn) words") }
        var wordStart = [Int](filled: 0, count: dn)
        var wordLen = [Int](filled: 0, count: dn)
        for k in 0..<dn {
            let len = try r.count(max: r.remaining, "word length")
            wordStart[k] = r.pos
            wordLen[k] = len
            try r.skip(len, "word")
        }
        let total = try r.count(max: Int(Int32.max), "text size")
        let base = r.buf.baseAddress
        let end = r.buf.count
        let escape = large ? 0xFFFF : 0xFF
        return try StringBuilder.build(count: n, total: total) { b in
            for _ in 0..<n {
                let pc = try r.count(max: r.remaining, "piece count")
                for k in 0..<pc {
                    if k > 0 { try b.appendSpace() }
                    let c = large ? Int(try r.u16("word code")) : Int(try r.u8("word code"))
                    let start: Int, len: Int
                    if c == escape {
                        len = try r.count(max: r.remaining, "literal length")
                        start = r.pos
                        try r.skip(len, "literal word")
                    } else {
                        guard c < dn else { throw corruptBlock("word code \(c) of \(dn)") }
                        start = wordStart[c]
                        len = wordLen[c]
                    }
                    try b.append(base.map { $0 + start }, len, srcHasSlack: start + len + StringBuilder.slack <= end)
                }
                b.endValue()
            }
        }
    }
}
