// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// An open-addressing hash index from caller-defined entries (ids 0, 1, 2, ...)
/// to be found by hash + an equality callback. Grows as needed.
struct ValueHashIndex {
    private var ids: [Int32]  // id + 1; 0 = empty
    private var hashes: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init(expected: Int) {
        var cap = 16
        while cap < expected * 2 { cap <<= 1 }
        ids = [Int32](filled: 0, count: cap)
        hashes = [UInt64](filled: 0, count: cap)
        mask = cap - 1
    }

    /// The id of an entry with hash `h` for which `equal(id)` holds.
    @inline(__always)
    func find(_ h: UInt64, _ equal: (Int) -> Bool) -> Int? {
        var s = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = ids[s]
            if id == 0 { return nil }
            if hashes[s] == h && equal(Int(id) - 1) { return Int(id) - 1 }
            s = (s + 1) & mask
        }
    }

    mutating func insert(_ h: UInt64, id: Int) {
        if (count + 1) * 2 > ids.count { grow() }
        var s = Int(truncatingIfNeeded: h) & mask
        while ids[s] != 0 { s = (s + 1) & mask }
        ids[s] = Int32(id + 1)
        hashes[s] = h
        count += 1
    }

    private mutating func grow() {
        let oldIDs = ids, oldHashes = hashes
        ids = [Int32](filled: 0, count: oldIDs.count * 2)
        hashes = [UInt64](filled: 0, count: oldIDs.count * 2)
        mask = ids.count - 1
        for k in 0..<oldIDs.count where oldIDs[k] != 0 {
            var s = Int(truncatingIfNeeded: oldHashes[k]) & mask
            while ids[s] != 0 { s = (s + 1) & mask }
            ids[s] = oldIDs[k]
            hashes[s] = oldHashes[k]
        }
    }
}

/// RUNLENGTH: varint run count, the run values in RAW layout, then one varint
/// length per run. Works for every kind; a filter is evaluated once per run.
enum RunLength {
    static func encode(count n: Int, equal: (Int, Int) -> Bool, gather: ([Int]) -> DenseValues,
                       natural: Int, real: Bool, into w: inout EncodingWriter) {
        var starts: [Int] = []
        var i = 0
        while i < n {
            starts.append(i)
            var j = i + 1
            while j < n && equal(i, j) { j += 1 }
            i = j
        }
        w.varint(UInt64(starts.count))
        RawCodec.writeValues(gather(starts), natural: natural, real: real, into: &w)
        for k in 0..<starts.count {
            let end = k + 1 < starts.count ? starts[k + 1] : n
            w.varint(UInt64(end - starts[k]))
        }
    }

    /// Run values (read by `values`) and lengths, validated to cover exactly `n` rows.
    static func runs<C>(_ r: inout EncodingReader, _ n: Int, _ values: (inout EncodingReader, Int) throws -> C) throws -> (C, [Int]) {
        let count = try r.count(max: n, "run count")
        guard count > 0 || n == 0 else { throw corruptBlock("no runs for \(n) values") }
        let vals = try values(&r, count)
        try r.need(count, "run lengths")
        var lengths = [Int](filled: 0, count: count)
        var total = 0
        for k in 0..<count {
            let len = try r.count(max: n - total, "run length")
            guard len > 0 else { throw corruptBlock("empty run") }
            lengths[k] = len
            total += len
        }
        guard total == n else { throw corruptBlock("runs cover \(total) values, expected \(n)") }
        return (vals, lengths)
    }

    static func decodeFixed<V>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<V>,
                               _ values: (inout EncodingReader, Int) throws -> [V]) throws {
        let (vals, lengths) = try runs(&r, n, values)
        var pos = 0
        for k in 0..<lengths.count {
            (out + pos).initialize(repeating: vals[k], count: lengths[k])
            pos += lengths[k]
        }
    }

    static func decodeStrings(_ r: inout EncodingReader, _ n: Int) throws -> StringArray {
        let (raw, lengths) = try runs(&r, n) { r, c in
            try r.need(1 + c, "run values")
            return try RawCodec.readStrings(&r, c)
        }
        let vals = PaddedStrings(raw)
        var total = 0
        for k in 0..<lengths.count {
            total += vals.lengths[k] * lengths[k]
            guard total <= Int(Int32.max) else { throw corruptBlock("string data exceeds 2 GB") }
        }
        return try vals.bytes.withUnsafeBytes { src in
            try StringBuilder.build(count: n, total: total) { b in
                for k in 0..<lengths.count {
                    let p = src.baseAddress.map { $0 + vals.starts[k] }, len = vals.lengths[k]
                    for _ in 0..<lengths[k] {
                        try b.append(p, len, srcHasSlack: true)
                        b.endValue()
                    }
                }
            }
        }
    }
}

/// BYTEDICT: a per-block dictionary of the first distinct values with 1-byte codes.
/// Up to 256 distinct values: every value is a code. More: the first 255 distinct
/// values keep codes and code 255 marks a value stored raw in an exception list
/// (as Redshift stores values past its dictionary uncompressed).
/// Layout: u16 dictionary size, u8 flags (1 = escapes, 2 = packed codes), varint
/// exception count, dictionary in RAW layout, the codes, exceptions in RAW layout.
/// The codes are one byte per value, or — packed, for a dictionary of at most 128
/// entries without escapes — b bits per value (b the bits of the largest code: 2 for
/// 4 entries) followed by 8 zero bytes, as AZ64 packs its groups.
/// A filter is evaluated once per dictionary entry, then mapped over the codes.
enum ByteDict {
    /// - pack: whether a small dictionary's codes are packed (tests write the one-byte
    ///   layout of earlier builds with false).
    static func encode(count n: Int, hash: (Int) -> UInt64, equal: (Int, Int) -> Bool, gather: ([Int]) -> DenseValues,
                       natural: Int, real: Bool, pack: Bool = true, into w: inout EncodingWriter) {
        var table = ValueHashIndex(expected: 300)
        var dict: [Int] = []  // index of each entry's first occurrence
        var codes = [UInt8](filled: 0, count: n)
        var overflow = false
        for i in 0..<n {
            let h = hash(i)
            if let c = table.find(h, { equal(dict[$0], i) }) {
                codes[i] = UInt8(c)
            } else if dict.count < 256 {
                table.insert(h, id: dict.count)
                codes[i] = UInt8(dict.count)
                dict.append(i)
            } else {
                overflow = true
                break
            }
        }
        var exceptions: [Int] = []
        if overflow {
            dict.removeLast()
            table = ValueHashIndex(expected: 300)
            for (c, i) in dict.enumerated() { table.insert(hash(i), id: c) }
            for i in 0..<n {
                if let c = table.find(hash(i), { equal(dict[$0], i) }) {
                    codes[i] = UInt8(c)
                } else {
                    codes[i] = 255
                    exceptions.append(i)
                }
            }
        }
        write(dictionary: gather(dict), entries: dict.count, codes: codes,
              exceptions: overflow ? (exceptions.count, gather(exceptions)) : nil,
              natural: natural, real: real, pack: pack, into: &w)
    }

    /// BYTEDICT of dense strings: the same block as `encode` with the strings' own hash
    /// and equality, without hashing every value's bytes when the block has at most
    /// 256 distinct values (`SmallStringDictionary`). Returns that dictionary (the
    /// block's distinct values), or nil when the block has more and took `encode`.
    @discardableResult
    static func encodeStrings(_ s: StringInput, pack: Bool = true, into w: inout EncodingWriter) -> StringArray? {
        let n = s.count
        var dict = SmallStringDictionary()
        var codes = [UInt8](filled: 0, count: n)
        let fits = n == 0 || codes.withUnsafeMutableBufferPointer { out -> Bool in
            guard let base = s.bytes, let c = out.baseAddress else { return false }
            return dict.code(base: base, offsets: s.offsets, count: n, into: c)
        }
        guard fits else {
            encode(count: n, hash: { s.hash($0) }, equal: { s.equal($0, $1) },
                   gather: { BlockEncoder.gatherStrings(s, $0) }, natural: 0, real: false, pack: pack, into: &w)
            return nil
        }
        write(dictionary: .string(dict.values), entries: dict.count, codes: codes, exceptions: nil,
              natural: 0, real: false, pack: pack, into: &w)
        return dict.values
    }

    /// BYTEDICT of strings given as codes into `dictionary` (at most 256 values): the
    /// block `encodeStrings` writes for those strings — its dictionary the values in the
    /// order they first appear, which it returns — with a code looked up per row instead
    /// of a string.
    static func encodeCodes(_ codes: UnsafeBufferPointer<UInt8>, dictionary: StringArray,
                            into w: inout EncodingWriter) throws -> StringArray {
        let entries = dictionary.count
        guard entries <= SmallStringDictionary.capacity else {
            throw SQLError.internalError("dictionary codes into \(entries) values")
        }
        // Each dictionary value's code in the block (-1: not seen yet).
        var local = [Int16](repeating: -1, count: SmallStringDictionary.capacity)
        var firstSeen: [Int] = []
        var out = [UInt8](filled: 0, count: codes.count)
        var bad = -1
        local.withUnsafeMutableBufferPointer { lc in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<codes.count {
                    let c = Int(codes[i])
                    guard c < entries else { bad = i; return }
                    var k = lc[c]
                    if k < 0 {
                        k = Int16(firstSeen.count)
                        lc[c] = k
                        firstSeen.append(c)
                    }
                    o[i] = UInt8(truncatingIfNeeded: k)
                }
            }
        }
        guard bad < 0 else {
            throw SQLError.internalError("dictionary code \(codes[bad]) of \(entries) values")
        }
        var values = StringArray(reservingCount: firstSeen.count, bytes: 0)
        for c in firstSeen {
            let from = Int(dictionary.offsets[c]), to = Int(dictionary.offsets[c + 1])
            values.bytes.append(contentsOf: dictionary.bytes[from..<to])
            values.offsets.append(Int32(truncatingIfNeeded: values.bytes.count))
        }
        write(dictionary: .string(values), entries: values.count, codes: out, exceptions: nil,
              natural: 0, real: false, pack: true, into: &w)
        return values
    }

    /// A block's layout: the entry count, flags, exception count, the dictionary in RAW
    /// layout, the codes (packed for small dictionaries without escapes), the exceptions.
    private static func write(dictionary: DenseValues, entries: Int, codes: [UInt8],
                              exceptions: (count: Int, values: DenseValues)?,
                              natural: Int, real: Bool, pack: Bool, into w: inout EncodingWriter) {
        let overflow = exceptions != nil
        let width = pack ? packedWidth(entries: entries, escape: overflow) : 8
        w.u16(UInt16(entries))
        w.u8((overflow ? 1 : 0) | (width < 8 ? 2 : 0))
        w.varint(UInt64(exceptions?.count ?? 0))
        RawCodec.writeValues(dictionary, natural: natural, real: real, into: &w)
        if width < 8 {
            codes.withUnsafeBufferPointer { c in
                BitPack.pack(into: &w, count: codes.count, width: width) { UInt64(c[$0]) }
            }
            w.extend(8) { _ in }  // padding (zeros): the reader loads whole words
        } else {
            w.append(codes)
        }
        if let exceptions { RawCodec.writeValues(exceptions.values, natural: natural, real: real, into: &w) }
    }

    /// Bits per code: packed (below 8) for a dictionary of at most 128 entries without escapes.
    static func packedWidth(entries: Int, escape: Bool) -> Int {
        escape || entries > 128 ? 8 : bitsNeeded(UInt8(max(entries, 1) - 1))
    }

    /// A block's codes, one byte each: in the block itself, or unpacked from packed codes.
    struct Codes {
        private let view: UnsafeRawBufferPointer
        /// The unpacked codes of a packed block.
        let unpacked: [UInt8]?

        init(view: UnsafeRawBufferPointer) { self.view = view; unpacked = nil }
        init(unpacked: [UInt8]) { view = UnsafeRawBufferPointer(start: nil, count: 0); self.unpacked = unpacked }

        /// `body` with the first code's address (nil for no codes).
        func withPointer<R>(_ body: (UnsafeRawPointer?) throws -> R) rethrows -> R {
            guard let unpacked else { return try body(view.baseAddress) }
            return try unpacked.withUnsafeBytes { try body($0.baseAddress) }
        }
    }

    /// Read `n` codes (one byte each, or packed for `entries` entries) at the reader.
    static func readCodes(_ r: inout EncodingReader, _ n: Int, packed: Bool, entries: Int) throws -> Codes {
        guard packed else { return Codes(view: try r.take(n, "dictionary codes")) }
        let width = packedWidth(entries: entries, escape: false)
        let bytes = try r.take(BitPack.byteCount(n, width) + 8, "packed dictionary codes")
        guard let p = bytes.baseAddress else { return Codes(unpacked: [UInt8](filled: 0, count: n)) }
        return Codes(unpacked: unpackCodes(p, n, width: width))
    }

    /// `n` codes of `width` bits (0...7) at `p` (readable 8 bytes past them), one byte each.
    static func unpackCodes(_ p: UnsafeRawPointer, _ n: Int, width: Int) -> [UInt8] {
        guard width > 0 else { return [UInt8](filled: 0, count: n) }
        let mask = UInt64(1) << UInt64(width) - 1
        return [UInt8].building(capacity: n, placeholder: 0) { out, initialized in
            var bit = 0
            for i in 0..<n {
                let word = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self))
                out[i] = UInt8(truncatingIfNeeded: (word >> UInt64(bit & 7)) & mask)
                bit += width
            }
            initialized = n
        }
    }

    struct Parts<C> {
        var dict: C
        var dictCount: Int
        var codes: Codes
        var escape: Bool
        var exceptions: C?
        var exceptionCount: Int
    }

    static func parts<C>(_ r: inout EncodingReader, _ n: Int, _ values: (inout EncodingReader, Int) throws -> C) throws -> Parts<C> {
        let dn = Int(try r.u16("dictionary size"))
        let flags = try r.u8("dictionary flags")
        guard flags <= 2 else { throw corruptBlock("invalid dictionary flags \(flags)") }
        let escape = flags & 1 != 0, packed = flags & 2 != 0
        guard dn <= (escape ? 255 : packed ? 128 : 256) else { throw corruptBlock("dictionary of \(dn) entries") }
        let ne = try r.count(max: n, "exception count")
        guard escape || ne == 0 else { throw corruptBlock("exceptions without an escape code") }
        let dict = try values(&r, dn)
        let codes = try readCodes(&r, n, packed: packed, entries: dn)
        let exc = escape ? try values(&r, ne) : nil
        return Parts(dict: dict, dictCount: dn, codes: codes, escape: escape, exceptions: exc, exceptionCount: ne)
    }

    static func decodeFixed<V>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<V>,
                               _ values: (inout EncodingReader, Int) throws -> [V]) throws {
        let p = try parts(&r, n, values)
        guard n > 0 else { return }
        try p.codes.withPointer { codes in
            guard let cp = codes else { return }
            try p.dict.withUnsafeBufferPointer { d in
                let dn = p.dictCount
                if !p.escape {
                    for i in 0..<n {
                        let c = Int(cp.load(fromByteOffset: i, as: UInt8.self))
                        guard c < dn else { throw corruptBlock("dictionary code \(c) of \(dn)") }
                        out[i] = d[c]
                    }
                } else {
                    let exc = p.exceptions ?? []
                    var k = 0
                    for i in 0..<n {
                        let c = Int(cp.load(fromByteOffset: i, as: UInt8.self))
                        if c == 255 {
                            guard k < exc.count else { throw corruptBlock("more escape codes than exceptions") }
                            out[i] = exc[k]
                            k += 1
                        } else {
                            guard c < dn else { throw corruptBlock("dictionary code \(c) of \(dn)") }
                            out[i] = d[c]
                        }
                    }
                    guard k == exc.count else { throw corruptBlock("\(exc.count - k) unused exceptions") }
                }
            }
        }
    }

    static func decodeStrings(_ r: inout EncodingReader, _ n: Int) throws -> StringArray {
        let d = try StringDictionary(&r, n)
        guard n > 0, let base = r.buf.baseAddress else { return StringArray() }
        var k = 0
        let out: StringArray
        if let unpacked = d.unpacked {
            out = try unpacked.withUnsafeBytes { u in
                guard let cp = u.baseAddress else { return StringArray() }
                return try d.strings(cp, n, exceptionsFrom: &k)
            }
        } else {
            out = try d.strings(base + d.codesAt, n, exceptionsFrom: &k)
        }
        guard k == d.exceptions.count else { throw corruptBlock("\(d.exceptions.count - k) unused exceptions") }
        return out
    }

    /// The parts of a BYTEDICT block of strings.
    struct StringDictionary {
        let dict: PaddedStrings
        let exceptions: PaddedStrings
        let escape: Bool
        /// Per code: the entry's length, -1 for codes past the dictionary.
        let lengths: [Int]
        /// Where the codes start in the reader's buffer (one byte each), unless packed.
        let codesAt: Int
        /// A packed block's codes, one byte each.
        let unpacked: [UInt8]?

        init(_ r: inout EncodingReader, _ n: Int) throws {
            let p = try parts(&r, n) { r, c in
                try r.need(1 + c, "dictionary values")
                return try RawCodec.readStrings(&r, c)
            }
            dict = PaddedStrings(p.dict)
            exceptions = PaddedStrings(p.exceptions ?? StringArray())
            escape = p.escape
            var lens = [Int](filled: -1, count: 256)
            for c in 0..<p.dictCount { lens[c] = dict.lengths[c] }
            lengths = lens
            unpacked = p.codes.unpacked
            codesAt = p.codes.withPointer { cb in
                guard p.codes.unpacked == nil, let cb, let rb = r.buf.baseAddress else { return 0 }
                return cb - rb
            }
        }

        /// The strings of the `n` codes at `cp`, whose escape codes take the exceptions
        /// from `k` on (`k` is moved past them).
        func strings(_ cp: UnsafeRawPointer, _ n: Int, exceptionsFrom k: inout Int) throws -> StringArray {
            let exc = exceptions, escape = self.escape
            // Pass 1: validate codes and size the output.
            var total = 0, e = k
            try lengths.withUnsafeBufferPointer { lens in
                for i in 0..<n {
                    let c = Int(cp.load(fromByteOffset: i, as: UInt8.self))
                    if escape && c == 255 {
                        guard e < exc.count else { throw corruptBlock("more escape codes than exceptions") }
                        total += exc.lengths[e]
                        e += 1
                    } else {
                        let len = lens[c]
                        guard len >= 0 else { throw corruptBlock("dictionary code \(c) of \(dict.count)") }
                        total += len
                    }
                }
            }
            var j = k
            k = e
            return try dict.bytes.withUnsafeBytes { db in
                try exc.bytes.withUnsafeBytes { eb in
                    try lengths.withUnsafeBufferPointer { lens in
                        try StringBuilder.build(count: n, total: total) { b in
                            for i in 0..<n {
                                let c = Int(cp.load(fromByteOffset: i, as: UInt8.self))
                                if escape && c == 255 {
                                    try b.append(eb.baseAddress.map { $0 + exc.starts[j] }, exc.lengths[j], srcHasSlack: true)
                                    j += 1
                                } else {
                                    try b.append(db.baseAddress.map { $0 + dict.starts[c] }, lens[c], srcHasSlack: true)
                                }
                                b.endValue()
                            }
                        }
                    }
                }
            }
        }

        /// The strings of rows `offset + rows[i]` of the `n` codes at `cp`, read straight
        /// from their codes; nil when the dictionary has escapes (an escape's exception is
        /// found only by counting the escapes before it).
        func strings(_ cp: UnsafeRawPointer, _ n: Int, rows: [Int32], offset: Int) throws -> StringArray? {
            if escape { return nil }
            var total = 0
            try lengths.withUnsafeBufferPointer { lens in
                for r in rows {
                    let row = offset + Int(r)
                    guard row >= 0, row < n else { throw corruptBlock("row \(row) of a dictionary block of \(n)") }
                    let c = Int(cp.load(fromByteOffset: row, as: UInt8.self))
                    let len = lens[c]
                    guard len >= 0 else { throw corruptBlock("dictionary code \(c) of \(dict.count)") }
                    total += len
                }
            }
            return try dict.bytes.withUnsafeBytes { db in
                try lengths.withUnsafeBufferPointer { lens in
                    try StringBuilder.build(count: rows.count, total: total) { b in
                        for r in rows {
                            let c = Int(cp.load(fromByteOffset: offset + Int(r), as: UInt8.self))
                            try b.append(db.baseAddress.map { $0 + dict.starts[c] }, lens[c], srcHasSlack: true)
                            b.endValue()
                        }
                    }
                }
            }
        }

        /// How many of the `n` codes at `cp` are escapes (exceptions they use).
        func escapes(_ cp: UnsafeRawPointer, _ n: Int) -> Int {
            guard escape else { return 0 }
            var e = 0
            for i in 0..<n where cp.load(fromByteOffset: i, as: UInt8.self) == 255 { e += 1 }
            return e
        }
    }
}
