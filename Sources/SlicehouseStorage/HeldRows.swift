// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlatform

/// The rows a write holds until they are placed on the slices (`Distributor.place`): per
/// column, each incoming chunk's values — selections applied, constants expanded. With
/// `narrow`, 64-bit integer columns wait narrowed (`CompactBlock.Piece`: 1 to 4 bytes
/// above the chunk's smallest value), strings of few values as 1-byte dictionary codes
/// (`Part.codes`) and other strings with 1-byte lengths instead of offsets, as a COPY
/// into a sorted table holds a whole sorted run: lineitem's keys, dates, quantities and
/// prices held 8 bytes a value, about 380 MB of its 1.2 GB peak at SF 1, and its flags,
/// ship modes and instructions 110 MB as text. The placement widens a column when it gathers it
/// (`parts`), keeps the wide copy while the uses it announced (`hold`) are under way and
/// lets it go after the last (`release`), so a few columns are wide at once, not all.
final class HeldRows: @unchecked Sendable {
    let types: [DataType]
    let narrow: Bool
    /// Rows per held chunk.
    private(set) var counts: [Int] = []
    /// [column][chunk].
    private var columns: [[Part]]
    /// Widened columns in use, with how many users have not released them.
    private var widened: [[Vector]?]
    private var users: [Int]
    private let lock = Lock()
    /// The bytes the held values take.
    private(set) var bytes = 0
    /// Per column, the dictionary its `.codes` parts' codes index (every part's own
    /// dictionary is a prefix of it); nil once the column has outgrown one (its later
    /// strings are held as `.text`).
    private var dictionaries: [StringArray?]
    /// Per column, each dictionary string's code.
    private var dictionaryCodes: [[[UInt8]: UInt8]]
    private var dictionaryClosed: [Bool]

    init(types: [DataType], narrow: Bool) {
        self.types = types
        self.narrow = narrow
        columns = Array(repeating: [], count: types.count)
        widened = Array(repeating: nil, count: types.count)
        users = Array(repeating: 0, count: types.count)
        dictionaries = Array(repeating: nil, count: types.count)
        dictionaryCodes = Array(repeating: [:], count: types.count)
        dictionaryClosed = Array(repeating: false, count: types.count)
    }

    /// Rows already in chunks, held as they are.
    convenience init(_ chunks: [Chunk], types: [DataType]) {
        self.init(types: types, narrow: false)
        for c in chunks { append(c) }
    }

    var rowCount: Int { counts.reduce(0, +) }
    var chunkCount: Int { counts.count }
    var isEmpty: Bool { counts.isEmpty }

    /// Hold `chunk`'s rows (a chunk of no rows is left out).
    func append(_ chunk: Chunk) {
        append(Self.held(chunk, columns: columns.count, narrow: narrow, codes: dictionaryClosed.map { !$0 }))
    }

    /// Hold the rows of `chunks`, in order, narrowing them in parallel (a COPY hands its
    /// parsed chunks over between parsing pieces, with the parse workers idle).
    func append(contentsOf chunks: [Chunk], context: QueryContext) {
        guard narrow, chunks.count > 1 else {
            for c in chunks { append(c) }
            return
        }
        let n = columns.count, narrow = self.narrow, codes = dictionaryClosed.map { !$0 }
        let out = ResultSlots<Held?>(count: chunks.count, initial: nil)
        parallelFor(chunks.count, context: context) { i in out.set(i, Self.held(chunks[i], columns: n, narrow: narrow, codes: codes)) }
        for h in out.values { if let h { append(h) } }
    }

    /// One chunk's columns as held.
    private struct Held {
        var count: Int
        var pieces: [Part]
        var bytes: Int
        /// Columns with more than 256 strings in this chunk alone: later chunks do not try codes.
        var outgrown: [Int] = []
    }

    /// - codes: per column, whether its strings may be held as codes.
    private static func held(_ chunk: Chunk, columns n: Int, narrow: Bool, codes: [Bool]) -> Held {
        let k = chunk.compacted()
        var h = Held(count: k.count, pieces: [], bytes: 0)
        guard k.count > 0 else { return h }
        h.pieces.reserveCapacity(n)
        for (c, v) in k.columns.prefix(n).enumerated() {
            let flat = v.flattened(count: k.count)
            var outgrown = false
            if narrow, let p = CompactBlock.narrow(flat) {
                h.bytes += p.narrowBytes
                h.pieces.append(.piece(p))
            } else if narrow, c < codes.count, codes[c], let d = Part.dictionary(flat, outgrown: &outgrown) {
                // Bytes counted when the codes join the column's dictionary (`append`).
                h.pieces.append(d)
            } else if narrow, let t = Part.text(flat) {
                if outgrown { h.outgrown.append(c) }
                if case .text(let b, let l, let validity) = t {
                    h.bytes += b.capacity + l.count + (validity?.words.count ?? 0) * 8 + 96
                }
                h.pieces.append(t)
            } else {
                if outgrown { h.outgrown.append(c) }
                h.bytes += heldBytes(flat)
                h.pieces.append(.piece(.wide(flat)))
            }
        }
        return h
    }

    private func append(_ h: Held) {
        guard h.count > 0, h.pieces.count == columns.count else { return }
        counts.append(h.count)
        bytes += h.bytes
        for c in h.outgrown { closeDictionary(c) }
        for (c, p) in h.pieces.enumerated() {
            var part = p
            if case .codes(let local, let codes) = p { part = joinDictionary(c, local, codes) }
            columns[c].append(part)
        }
    }

    /// Column `c`'s strings are too varied for codes: chunks to come are held as text
    /// (those held as codes stay so, with the dictionary they have).
    private func closeDictionary(_ c: Int) {
        dictionaryClosed[c] = true
        dictionaries[c] = nil
        dictionaryCodes[c] = [:]
    }

    /// A chunk's codes into its own dictionary `local`, recoded into column `c`'s
    /// dictionary (which grows by the strings it lacks); the chunk's strings as `.text`
    /// (or wide) when the column's dictionary would pass 256 strings.
    private func joinDictionary(_ c: Int, _ local: StringArray, _ codes: [UInt8]) -> Part {
        var global = dictionaries[c] ?? StringArray()
        var index = dictionaryCodes[c]
        var recode = [UInt8](filled: 0, count: local.count)
        var fits = !dictionaryClosed[c]
        if fits {
            for i in 0..<local.count {
                let value = Array(local.bytes[Int(local.offsets[i])..<Int(local.offsets[i + 1])])
                if let code = index[value] {
                    recode[i] = code
                    continue
                }
                if global.count == 256 { fits = false; break }
                let code = UInt8(global.count)
                index[value] = code
                global.bytes.append(contentsOf: value)
                global.offsets.append(Int32(global.bytes.count))
                recode[i] = code
            }
        }
        guard fits else {
            closeDictionary(c)
            let v = Vector(type: types[c], data: .string(Part.expand(codes: codes, dictionary: local)))
            if let t = Part.text(v), case .text(let b, let l, _) = t {
                bytes += b.capacity + l.count + 96
                return t
            }
            bytes += Self.heldBytes(v)
            return .piece(.wide(v))
        }
        dictionaries[c] = global
        dictionaryCodes[c] = index
        bytes += codes.count + 64
        let isIdentity = recode.indices.allSatisfy { recode[$0] == UInt8(truncatingIfNeeded: $0) }
        let mapped = isIdentity ? codes : codes.map { recode[Int($0)] }
        return .codes(dictionary: global, codes: mapped)
    }

    /// One chunk's values of one column as held.
    enum Part: Sendable {
        /// Integers, narrowed or as they came (`CompactBlock.Piece`).
        case piece(CompactBlock.Piece)
        /// Strings of at most 255 bytes: their bytes and each one's length, 1 byte instead
        /// of a 4-byte offset (lineitem's five string columns held 120 MB of offsets).
        case text(bytes: [UInt8], lengths: [UInt8], validity: Validity?)
        /// Strings of few distinct values (at most 256, no NULLs): a code per row into
        /// `dictionary` (lineitem's flags, ship modes and instructions held 19 bytes a
        /// row as text, 1 as codes).
        case codes(dictionary: StringArray, codes: [UInt8])

        func vector(type: DataType) -> Vector {
            switch self {
            case .codes(let dictionary, let codes):
                return Vector(type: type, data: .string(Self.expand(codes: codes, dictionary: dictionary)))
            case .piece(let p):
                return p.vector(type: type)
            case .text(let bytes, let lengths, let validity):
                let n = lengths.count
                let offsets = [Int32].building(capacity: n + 1, placeholder: 0) { out, done in
                    var at: Int32 = 0
                    out[0] = 0
                    lengths.withUnsafeBufferPointer { l in
                        for i in 0..<n {
                            at &+= Int32(l[i])
                            out[i + 1] = at
                        }
                    }
                    done = n + 1
                }
                var s = StringArray()
                s.bytes = bytes
                s.offsets = offsets
                return Vector(type: type, data: .string(s), validity: validity)
            }
        }

        /// The strings `codes` (0...255) stand for; a code past the dictionary stands for
        /// an empty string.
        static func expand<C: RandomAccessCollection>(codes: C, dictionary d: StringArray) -> StringArray
            where C.Element: FixedWidthInteger, C.Index == Int {
            let n = codes.count
            let entries = min(d.count, 256)
            var lengths = [Int](filled: 0, count: 256)
            var widest = 0
            for k in 0..<entries {
                lengths[k] = max(d.length(k), 0)
                widest = max(widest, lengths[k])
            }
            var total = 0
            for code in codes { total &+= lengths[Int(truncatingIfNeeded: code) & 255] }
            // Strings of at most 16 bytes are copied as two words each from a copy of the
            // dictionary padded to 16 bytes a string (the output has 16 bytes of slack).
            var padded = [UInt64](filled: 0, count: widest <= 16 ? 512 : 0)
            if widest <= 16 {
                padded.withUnsafeMutableBytes { p in
                    d.bytes.withUnsafeBytes { b in
                        guard let to = p.baseAddress, let from = b.baseAddress else { return }
                        for k in 0..<entries where lengths[k] > 0 {
                            to.advanced(by: k * 16).copyMemory(from: from.advanced(by: Int(d.offsets[k])), byteCount: lengths[k])
                        }
                    }
                }
            }
            var out = StringArray()
            lengths.withUnsafeBufferPointer { len in
                d.bytes.withUnsafeBufferPointer { b in
                    padded.withUnsafeBufferPointer { pad in
                        out.offsets = [Int32].building(capacity: n + 1, placeholder: 0) { offs, done in
                            out.bytes = [UInt8].building(capacity: total + 16, placeholder: 0) { dst, written in
                                written = 0
                                offs[0] = 0
                                guard let to = dst.baseAddress else { return }
                                var at = 0
                                for i in 0..<n {
                                    let k = Int(truncatingIfNeeded: codes[codes.startIndex + i]) & 255
                                    let l = len[k]
                                    if widest <= 16 {
                                        let raw = UnsafeMutableRawPointer(to + at)
                                        raw.storeBytes(of: pad[2 &* k], as: UInt64.self)
                                        raw.storeBytes(of: pad[2 &* k &+ 1], toByteOffset: 8, as: UInt64.self)
                                    } else if l > 0, let src = b.baseAddress {
                                        (to + at).initialize(from: src + Int(d.offsets[k]), count: l)
                                    }
                                    at &+= l
                                    offs[i + 1] = Int32(truncatingIfNeeded: at)
                                }
                                written = at
                            }
                            done = n + 1
                        }
                    }
                }
            }
            return out
        }

        /// The chunk's strings as codes into a dictionary of its own, when they are at
        /// most 256 distinct values and none is NULL; nil as soon as a 257th appears
        /// (a column of varied strings stops after a few hundred rows), with `outgrown` set.
        static func dictionary(_ v: Vector, outgrown: inout Bool) -> Part? {
            guard !v.isConstant, v.validity == nil, case .string(let s) = v.data, s.offsets.first == 0 else { return nil }
            let n = s.count
            guard n >= 512, !s.bytes.isEmpty, Int(s.offsets[n]) <= s.bytes.count else { return nil }
            var dict = SmallStringDictionary()
            var fits = true
            let codes = [UInt8].building(capacity: n, placeholder: 0) { out, done in
                s.bytes.withUnsafeBytes { b in
                    s.offsets.withUnsafeBufferPointer { o in
                        guard let base = b.baseAddress, let offsets = o.baseAddress, let codes = out.baseAddress else {
                            fits = false
                            return
                        }
                        fits = dict.code(base: base, offsets: offsets, count: n, into: codes)
                    }
                }
                done = fits ? n : 0
            }
            guard fits else {
                outgrown = dict.count == SmallStringDictionary.capacity
                return nil
            }
            return .codes(dictionary: dict.values, codes: codes)
        }

        /// Strings as bytes and lengths when every one is at most 255 bytes.
        static func text(_ v: Vector) -> Part? {
            guard !v.isConstant, case .string(let s) = v.data, s.offsets.first == 0 else { return nil }
            let n = s.count
            guard n > 0 else { return nil }
            var fits = true
            let lengths = [UInt8].building(capacity: n, placeholder: 0) { out, done in
                s.offsets.withUnsafeBufferPointer { o in
                    var widest: Int32 = 0, narrowest: Int32 = 0
                    for i in 0..<n {
                        let len = o[i + 1] &- o[i]
                        widest = max(widest, len)
                        narrowest = min(narrowest, len)
                        out[i] = UInt8(truncatingIfNeeded: len)
                    }
                    fits = widest <= 255 && narrowest >= 0
                }
                done = n
            }
            guard fits, Int(s.offsets[n]) == s.bytes.count else { return nil }
            return .text(bytes: s.bytes, lengths: lengths, validity: v.validity)
        }
    }

    /// Column `c` of every held chunk, widened: kept while it has users (`hold`), else
    /// widened for this call only.
    func parts(_ c: Int) -> [Vector] {
        lock.withLock {
            if let w = widened[c] { return w }
            let w = columns[c].map { $0.vector(type: types[c]) }
            if users[c] > 0 { widened[c] = w }
            return w
        }
    }

    /// Column `c` of the held chunks in `needed` widened, the others empty (a sample's
    /// gathering reads a few chunks; widening them all cost a pass over every column).
    func parts(_ c: Int, only needed: Set<Int32>) -> [Vector] {
        lock.withLock {
            if let w = widened[c] { return w }
            return columns[c].enumerated().map { i, p in
                needed.contains(Int32(i)) ? p.vector(type: types[c]) : Vector(type: types[c])
            }
        }
    }

    /// Column `c`'s parts for `ReorderPlan.gather(ints:)`, narrowed ones as they are; nil
    /// when the column is not 64-bit integers or has NULLs.
    func intParts(_ c: Int) -> [ReorderPlan.IntPart]? {
        guard let (parts, validities) = intParts(c, nulls: true), validities.allSatisfy({ $0 == nil }) else { return nil }
        return parts
    }

    /// Column `c`'s parts for `ReorderPlan.gather(ints:validities:)` and each part's NULLs
    /// (nil: none); nil when the column is not 64-bit integers.
    func intParts(_ c: Int, nulls: Bool) -> (parts: [ReorderPlan.IntPart], validities: [Validity?])? {
        guard types[c].physical == .int64 else { return nil }
        let parts = lock.withLock { columns[c] }
        var out: [ReorderPlan.IntPart] = []
        var validities: [Validity?] = []
        out.reserveCapacity(parts.count)
        validities.reserveCapacity(parts.count)
        for part in parts {
            guard case .piece(let p) = part else { return nil }
            switch p {
            case .narrow(let base, let width, _, let bytes, let validity):
                guard nulls || validity == nil else { return nil }
                out.append(.narrow(base: base, width: width, bytes: bytes))
                validities.append(validity)
            case .wide(let v):
                guard nulls || v.validity == nil, !v.isConstant, case .int64(let a) = v.data else { return nil }
                out.append(.wide(a))
                validities.append(v.validity)
            }
        }
        return (out, validities)
    }

    /// Column `c`'s parts as 1-byte codes for `ReorderPlan.gather(ints:)`, with the
    /// dictionary they index; nil unless every part is `.codes`.
    func codeParts(_ c: Int) -> (parts: [ReorderPlan.IntPart], dictionary: StringArray)? {
        lock.withLock {
            guard let dictionary = dictionaries[c], !columns[c].isEmpty else { return nil }
            var out: [ReorderPlan.IntPart] = []
            out.reserveCapacity(columns[c].count)
            for part in columns[c] {
                guard case .codes(_, let codes) = part else { return nil }
                out.append(.narrow(base: 0, width: 1, bytes: codes))
            }
            return (out, dictionary)
        }
    }

    /// Column `c` has been placed on every slice: its values go (a COPY's run frees its
    /// widest columns, the strings placed first, as it goes on).
    func drop(_ c: Int) {
        lock.withLock {
            columns[c] = []
            widened[c] = nil
        }
    }

    /// Column `c` of held chunk `i`, widened.
    func vector(_ c: Int, chunk i: Int) -> Vector {
        lock.withLock { columns[c][i] }.vector(type: types[c])
    }

    /// `uses` more gatherings of column `c` are coming: its wide copy stays until they
    /// have all been `release`d.
    func hold(_ c: Int, uses: Int) {
        lock.withLock { users[c] += uses }
    }

    /// One of the held uses of column `c` is done: after the last one the wide copy goes
    /// (the narrowed values stay, until the rows are let go).
    func release(_ c: Int) {
        lock.withLock {
            users[c] -= 1
            if users[c] <= 0 {
                users[c] = 0
                if narrow { widened[c] = nil }
            }
        }
    }

    /// The memory a vector's buffers hold: their capacity (a parsed column has grown by
    /// doubling, so this is up to twice its values' bytes), which is what RSS sees.
    static func heldBytes(_ v: Vector) -> Int {
        var total = 64 + (v.validity?.words.capacity ?? 0) * 8
        switch v.data {
        case .int64(let a): total += a.capacity * 8
        case .int128(let a): total += a.capacity * 16
        case .double(let a): total += a.capacity * 8
        case .bool(let a): total += a.capacity
        case .string(let a): total += a.bytes.capacity + a.offsets.capacity * 4
        }
        return total
    }

    /// Everything as chunks (an AUTO table growing out of ALL is placed again whole;
    /// before any column is dropped).
    func chunks() -> [Chunk] {
        counts.indices.map { i in
            Chunk(columns: types.indices.map { c in
                i < columns[c].count ? columns[c][i].vector(type: types[c]) : Vector(type: types[c])
            }, count: counts[i])
        }
    }
}
