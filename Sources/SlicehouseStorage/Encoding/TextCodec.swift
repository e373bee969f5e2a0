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

    static func encode(_ s: StringInput, large: Bool, into w: inout EncodingWriter) {
        let n = s.count
        var table = ValueHashIndex(expected: 1024)
        var wordStart: [Int] = [], wordLen: [Int] = [], freq: [Int] = []
        var pieceWord: [Int32] = []
        pieceWord.reserveCapacity(n * 2)
        var pieceCounts = [Int32](repeating: 0, count: n)
        let base = s.bytes
        @inline(__always) func intern(_ start: Int, _ len: Int) -> Int32 {
            let p = base.map { $0 + start }
            let h = Hashing.hash(bytes: p?.assumingMemoryBound(to: UInt8.self), count: len)
            if let id = table.find(h, { id in wordLen[id] == len && bytesEqual(base.map { $0 + wordStart[id] }, p, len) }) {
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
        for i in 0..<n {
            let len = s.length(i)
            if len == 0 { continue }
            let st = s.start(i)
            var ps = 0, pc: Int32 = 0
            let b = base!
            for j in 0...len {
                if j == len || b.load(fromByteOffset: st + j, as: UInt8.self) == 0x20 {
                    pieceWord.append(intern(st + ps, j - ps))
                    pc += 1
                    ps = j + 1
                }
            }
            pieceCounts[i] = pc
        }

        // Dictionary: words seen twice or more, most bytes saved first.
        let candidates = (0..<wordStart.count).filter { freq[$0] >= 2 }.sorted { a, b in
            let sa = (freq[a] - 1) * (wordLen[a] + 1), sb = (freq[b] - 1) * (wordLen[b] + 1)
            return sa != sb ? sa > sb : a < b
        }
        var code = [Int32](repeating: -1, count: wordStart.count)
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

        w.u16(UInt16(dict.count))
        for id in dict {
            w.varint(UInt64(wordLen[id]))
            if wordLen[id] > 0 { w.append(UnsafeRawBufferPointer(start: base! + wordStart[id], count: wordLen[id])) }
        }
        w.varint(UInt64(s.totalBytes))
        var k = 0
        for i in 0..<n {
            let pc = Int(pieceCounts[i])
            w.varint(UInt64(pc))
            for _ in 0..<pc {
                let id = Int(pieceWord[k])
                k += 1
                let c = code[id]
                if c >= 0 {
                    if large { w.u16(UInt16(c)) } else { w.u8(UInt8(c)) }
                } else {
                    if large { w.u16(0xFFFF) } else { w.u8(0xFF) }
                    w.varint(UInt64(wordLen[id]))
                    if wordLen[id] > 0 { w.append(UnsafeRawBufferPointer(start: base! + wordStart[id], count: wordLen[id])) }
                }
            }
        }
    }

    static func decode(_ r: inout EncodingReader, _ n: Int, large: Bool) throws -> StringArray {
        try r.need(n, "text values")  // at least a piece count per value
        let dn = Int(try r.u16("word count"))
        guard large ? dn < 0xFFFF : dn <= maxWords255 else { throw corruptBlock("text dictionary of \(dn) words") }
        var wordStart = [Int](repeating: 0, count: dn)
        var wordLen = [Int](repeating: 0, count: dn)
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
