// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The values of one encoded block decoded a range at a time, in order, instead of all
/// at once: a scan that reads a block once decodes each chunk's rows straight into the
/// chunk's own array while the encoded data is in the processor's caches, and passes
/// over the rows of chunks its filters have already emptied (`StreamedBlock`).
///
/// Blocks without NULLs of these shapes stream: AZ64 64-bit integers (SMALLINT …
/// BIGINT, DATE, TIMESTAMP, DECIMAL(p≤18)), RAW strings, also inside ZSTD/LZO
/// (decompressed whole first), and BYTEDICT strings. Other blocks are decoded whole.
public enum BlockStream {
    case az64(AZ64Stream)
    case strings(StringStream)
    case dictionary(DictionaryStream)

    /// A stream over `bytes`, an encoded block of `type`, when its shape streams, else
    /// nil. Checks the block's header and checksum.
    public static func open(_ bytes: [UInt8], type: DataType, encoding: ColumnEncoding) throws -> BlockStream? {
        switch (type.physical, encoding) {
        case (.int64, .az64), (.string, .raw), (.string, .lzo), (.string, .zstd), (.string, .bytedict): break
        default: return nil
        }
        return try bytes.withUnsafeBytes { b -> BlockStream? in
            let h = try BlockEncoder.parse(b, type: type, encoding: encoding)
            guard !h.allNull, h.bitmap == nil, h.rows > 0, let base = b.baseAddress,
                  let start = h.payload.baseAddress else { return nil }
            let from = start - base
            let payload = from..<(from + h.payload.count)
            if type.physical == .int64 { return .az64(AZ64Stream(bytes, payload: payload, count: h.rows)) }
            if encoding == .bytedict {
                var r = EncodingReader(h.payload)
                let d = try ByteDict.StringDictionary(&r, h.rows)
                if let unpacked = d.unpacked {
                    return .dictionary(DictionaryStream(unpacked, dictionary: d, codesAt: 0, count: h.rows))
                }
                return .dictionary(DictionaryStream(bytes, dictionary: d, codesAt: from + d.codesAt, count: h.rows))
            }
            guard encoding != .raw else { return .strings(try StringStream(bytes, payload: payload, count: h.rows)) }
            var r = EncodingReader(h.payload)
            let rawSize = try r.count(max: Int(Int32.max), "uncompressed size")
            let frame = try r.take(r.remaining, "zstd frame")
            let raw = try BlockEncoder.zstdDecompress(frame, size: rawSize)
            return .strings(try StringStream(raw, payload: 0..<raw.count, count: h.rows))
        }
    }

    /// Values in the block.
    public var count: Int {
        switch self {
        case .az64(let s): return s.count
        case .strings(let s): return s.count
        case .dictionary(let s): return s.count
        }
    }

    /// Values handed out or passed over so far (the index of the next one).
    public var position: Int {
        switch self {
        case .az64(let s): return s.position
        case .strings(let s): return s.position
        case .dictionary(let s): return s.position
        }
    }

    /// Start again from the first value.
    public mutating func rewind() {
        switch self {
        case .az64(var s): s.rewind(); self = .az64(s)
        case .strings(var s): s.rewind(); self = .strings(s)
        case .dictionary(var s): s.rewind(); self = .dictionary(s)
        }
    }

    /// Pass over the next `n` values.
    public mutating func skip(_ n: Int) throws {
        switch self {
        case .az64(var s):
            self = .strings(StringStream.empty)   // keeps `s` uniquely referenced
            defer { self = .az64(s) }
            try s.skip(n)
        case .strings(var s):
            self = .strings(StringStream.empty)
            defer { self = .strings(s) }
            try s.skip(n)
        case .dictionary(var s):
            self = .strings(StringStream.empty)
            defer { self = .dictionary(s) }
            try s.skip(n)
        }
    }

    /// The next `n` values as a vector of `type`.
    public mutating func read(_ n: Int, type: DataType) throws -> Vector {
        switch self {
        case .az64(var s):
            self = .strings(StringStream.empty)
            defer { self = .az64(s) }
            return Vector(type: type, data: .int64(try s.read(n)))
        case .strings(var s):
            self = .strings(StringStream.empty)
            defer { self = .strings(s) }
            return Vector(type: type, data: .string(try s.read(n)))
        case .dictionary(var s):
            self = .strings(StringStream.empty)
            defer { self = .dictionary(s) }
            return Vector(type: type, data: .string(try s.read(n)))
        }
    }
}

/// BYTEDICT strings: the dictionary and exceptions parsed once, then each range's
/// codes turned into strings.
public struct DictionaryStream: Sendable {
    /// The block, or a packed block's codes unpacked (one byte each).
    private let bytes: [UInt8]
    private let dictionary: ByteDict.StringDictionary
    /// Where the codes start in `bytes`.
    private let codesAt: Int
    let count: Int
    private(set) var position = 0
    /// The exception the next escape code takes.
    private var exception = 0

    init(_ bytes: [UInt8], dictionary: ByteDict.StringDictionary, codesAt: Int, count: Int) {
        self.bytes = bytes
        self.dictionary = dictionary
        self.codesAt = codesAt
        self.count = count
    }

    mutating func rewind() { position = 0; exception = 0 }

    private func check(_ n: Int, _ what: String) throws {
        guard n >= 0, n <= count - position, codesAt + position + n <= bytes.count else {
            throw corruptBlock("dictionary stream \(what) of \(n) values at \(position) of \(count)")
        }
    }

    mutating func skip(_ n: Int) throws {
        try check(n, "skip")
        exception += bytes.withUnsafeBytes { b in
            b.baseAddress.map { dictionary.escapes($0 + codesAt + position, n) } ?? 0
        }
        position += n
    }

    /// The strings of the block's rows `offset + rows[i]`, straight from their codes,
    /// without moving the stream; nil when the dictionary has escapes.
    func gather(_ rows: [Int32], offset: Int) throws -> StringArray? {
        guard codesAt >= 0, codesAt + count <= bytes.count else {
            throw corruptBlock("dictionary codes past the block's end")
        }
        return try bytes.withUnsafeBytes { b -> StringArray? in
            guard let base = b.baseAddress else { return rows.isEmpty ? StringArray() : nil }
            return try dictionary.strings(base + codesAt, count, rows: rows, offset: offset)
        }
    }

    mutating func read(_ n: Int) throws -> StringArray {
        try check(n, "read")
        var k = exception
        let out = try bytes.withUnsafeBytes { b -> StringArray in
            guard let base = b.baseAddress, n > 0 else { return StringArray() }
            return try dictionary.strings(base + codesAt + position, n, exceptionsFrom: &k)
        }
        exception = k
        position += n
        return out
    }
}

/// RAW strings (u8 length width w; n lengths of w bytes; the bytes), read a range at a time.
public struct StringStream: Sendable {
    private let buffer: [UInt8]
    /// Width of a length, where the lengths start, where the bytes start and end.
    private let width: Int
    private let lengthsAt: Int
    private let bytesAt: Int
    private let end: Int
    let count: Int
    /// The next string, and where its bytes start (from `bytesAt`).
    private(set) var position = 0
    private var cursor = 0

    static let empty = StringStream()
    private init() { buffer = []; width = 1; lengthsAt = 0; bytesAt = 0; end = 0; count = 0 }

    /// The `count` strings whose RAW layout is `payload` of `buffer`.
    init(_ buffer: [UInt8], payload: Range<Int>, count: Int) throws {
        guard payload.lowerBound < payload.upperBound, payload.upperBound <= buffer.count else {
            throw corruptBlock("truncated string lengths")
        }
        let w = Int(buffer[payload.lowerBound])
        guard w == 1 || w == 2 || w == 4 else { throw corruptBlock("invalid string length width \(w)") }
        let (lenBytes, o) = count.multipliedReportingOverflow(by: w)
        guard !o, lenBytes <= payload.count - 1 else { throw corruptBlock("truncated string lengths") }
        self.buffer = buffer
        self.width = w
        self.count = count
        lengthsAt = payload.lowerBound + 1
        bytesAt = lengthsAt + lenBytes
        end = payload.upperBound
    }

    mutating func rewind() { position = 0; cursor = 0 }

    /// The byte lengths of strings `position..<position + n` into `out` (offsets from 0,
    /// `out[0]` = 0) when given; returns their total.
    private func lengths(_ n: Int, offsets out: UnsafeMutablePointer<Int32>?) throws -> Int {
        guard n >= 0, n <= count - position else {
            throw corruptBlock("string stream read of \(n) values at \(position) of \(count)")
        }
        return try buffer.withUnsafeBytes { b -> Int in
            guard let p = b.baseAddress.map({ $0 + lengthsAt + position * width }) else { return 0 }
            var total = 0
            out?[0] = 0
            switch width {
            case 1:
                for i in 0..<n {
                    total &+= Int(p.load(fromByteOffset: i, as: UInt8.self))
                    out?[i + 1] = Int32(truncatingIfNeeded: total)
                }
            case 2:
                for i in 0..<n {
                    total &+= Int(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
                    out?[i + 1] = Int32(truncatingIfNeeded: total)
                }
            default:
                for i in 0..<n {
                    total &+= Int(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                    out?[i + 1] = Int32(truncatingIfNeeded: total)
                }
            }
            guard total <= end - bytesAt - cursor, total <= Int(Int32.max) else { throw corruptBlock("truncated string bytes") }
            return total
        }
    }

    mutating func skip(_ n: Int) throws {
        cursor += try lengths(n, offsets: nil)
        position += n
    }

    mutating func read(_ n: Int) throws -> StringArray {
        var total = 0
        let offsets = try [Int32].building(capacity: n + 1, placeholder: 0) { buf, initialized in
            total = try lengths(n, offsets: buf.baseAddress)
            initialized = n + 1
        }
        var s = StringArray()
        let from = bytesAt + cursor
        s.bytes = Array(buffer[from..<(from + total)])
        s.offsets = offsets
        cursor += total
        position += n
        return s
    }
}

/// The values of an AZ64 block of 64-bit integers, decoded a range at a time.
public struct AZ64Stream: Sendable {
    /// The whole encoded block (kept alive) and where its AZ64 payload lies.
    private let bytes: [UInt8]
    private let payload: Range<Int>
    /// Values in the block.
    let count: Int
    /// Read position in `bytes`.
    private var pos: Int
    /// Where decoding stands. `fill` and `advance` work on a local copy and write it back
    /// once, so that the counters stay in registers in their loops.
    private struct Cursor {
        /// Values decoded from the payload so far.
        var decoded = 0
        /// The last value decoded (a run continues from it).
        var last: Int64 = 0
        /// The rest of the chunk decoded last: `runLeft` copies of `last`, or the values
        /// of a group in `held[heldAt..<heldEnd]`.
        var runLeft = 0
        var heldAt = 0, heldEnd = 0
    }
    private var cursor = Cursor()
    private var held: [Int64]
    private var work: [UInt64]
    private var deltas: [Int64]

    /// The `count` values whose AZ64 payload is `payload` of `bytes`.
    init(_ bytes: [UInt8], payload: Range<Int>, count: Int) {
        self.bytes = bytes
        self.payload = payload
        self.count = count
        pos = payload.lowerBound
        held = [Int64](filled: 0, count: AZ64.groupSize)
        work = [UInt64](filled: 0, count: 2 * AZ64.groupSize)
        deltas = [Int64](filled: 0, count: AZ64.groupSize)
    }

    /// Values handed out so far (the index of the next one).
    var position: Int { cursor.decoded - cursor.runLeft - (cursor.heldEnd - cursor.heldAt) }

    /// Start again from the first value.
    mutating func rewind() {
        cursor = Cursor()
        pos = payload.lowerBound
    }

    /// The next `n` values.
    mutating func read(_ n: Int) throws -> [Int64] {
        guard n >= 0, n <= count - position else {
            throw corruptBlock("AZ64 stream read of \(n) values at \(position) of \(count)")
        }
        return try [Int64].building(capacity: n, placeholder: 0) { buf, initialized in
            if let out = buf.baseAddress { try fill(out, n) }
            initialized = n
        }
    }

    /// Pass over the next `n` values.
    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= count - position else {
            throw corruptBlock("AZ64 stream skip of \(n) values at \(position) of \(count)")
        }
        guard n > 0 else { return }
        // The last value passed over is "wanted": the groups before it are passed over
        // without unpacking them (`advance`).
        var row = Int32(truncatingIfNeeded: n - 1)
        var value: Int64 = 0
        let at = position
        try withUnsafeMutablePointer(to: &row) { rp in
            try withUnsafeMutablePointer(to: &value) { vp in
                try advance(UnsafeBufferPointer(start: rp, count: 1), at: at, limit: at + n, vp)
            }
        }
    }

    /// Write the next `n` values (all present) to `out`.
    private mutating func fill(_ out: UnsafeMutablePointer<Int64>, _ n: Int) throws {
        let total = count
        var c = cursor
        defer { cursor = c }
        var filled = 0
        if c.runLeft > 0 {
            let k = min(c.runLeft, n)
            out.initialize(repeating: c.last, count: k)
            c.runLeft -= k
            filled = k
        }
        if c.heldAt < c.heldEnd && filled < n {
            let k = min(c.heldEnd - c.heldAt, n - filled)
            held.withUnsafeBufferPointer { h in
                if let src = h.baseAddress { (out + filled).initialize(from: src + c.heldAt, count: k) }
            }
            c.heldAt += k
            filled += k
        }
        if filled == n { return }
        try withPayload { r, hp, scratch in
            while filled < n {
                guard c.decoded < total else { throw corruptBlock("AZ64 stream ran past \(total) values") }
                let want = n - filled
                // A whole group that fits goes straight to `out`, else through `held`.
                let direct = want >= min(AZ64.groupSize, total - c.decoded)
                let target = direct ? out + filled : hp
                switch try AZ64.step(&r, left: total - c.decoded, previous: c.last, target, scratch) {
                case .run(let value, let len):
                    let k = min(len, want)
                    (out + filled).initialize(repeating: value, count: k)
                    filled += k
                    c.runLeft = len - k
                    c.last = value
                    c.decoded += len
                case .group(let m):
                    c.last = target[m - 1]
                    c.decoded += m
                    if direct {
                        filled += m
                    } else {
                        let k = min(m, want)
                        (out + filled).initialize(from: hp, count: k)
                        filled += k
                        c.heldAt = k
                        c.heldEnd = m
                    }
                }
            }
        }
    }

    /// `body` with a reader at the read position over the AZ64 payload, the buffer of the
    /// held group and `AZ64.step`'s scratch; the read position then moves to where the
    /// reader stopped. `body` must not touch the stream itself (it runs while the buffers
    /// are borrowed): it works on copies of the counters, written back by its caller.
    private mutating func withPayload(
        _ body: (inout EncodingReader, UnsafeMutablePointer<Int64>, AZ64.Scratch<Int64>) throws -> Void
    ) throws {
        var pos = self.pos
        defer { self.pos = pos }
        try bytes.withUnsafeBytes { b in
            try work.withUnsafeMutableBufferPointer { w in
                try deltas.withUnsafeMutableBufferPointer { d in
                    try held.withUnsafeMutableBufferPointer { h in
                        guard let wp = w.baseAddress, let dp = d.baseAddress, let hp = h.baseAddress else { return }
                        var r = EncodingReader(UnsafeRawBufferPointer(rebasing: b[..<payload.upperBound]))
                        r.pos = pos
                        defer { pos = r.pos }
                        try body(&r, hp, AZ64.Scratch(lo: wp, hi: wp + AZ64.groupSize, deltas: dp))
                    }
                }
            }
        }
    }
}

extension AZ64 {
    /// A frame-of-reference group passed over without unpacking it: its header read, the
    /// values at offsets `rows[j] + offset` (ascending, below the group's size) for j in
    /// `0..<k` taken one by one from the packed bits into `out`, its exceptions applied to
    /// them, and its last value returned (a run after it continues from that value). nil,
    /// with `r` where it was, when the next chunk is a run or a delta group (they decode
    /// as `step` does).
    @inline(__always)
    static func passFOR(_ r: inout EncodingReader, left: Int, rows: UnsafePointer<Int32>, count k: Int, offset: Int,
                        _ out: UnsafeMutablePointer<Int64>) throws -> (count: Int, last: Int64)? {
        let start = r.pos
        let header = try r.u8("AZ64 chunk header")
        guard header & 3 == modeFOR, header & ~(3 | withExceptions | scaled) == 0 else {
            r.pos = start
            return nil
        }
        let hasExceptions = header & withExceptions != 0
        let m = min(groupSize, left)
        let width = Int(try r.u8("AZ64 width"))
        guard width <= 64 else { throw corruptBlock("AZ64 bit width \(width) for 64-bit values") }
        var origin: Int64 = 0, scale: Int64 = 1
        let isScaled = header & scaled != 0
        if isScaled {
            origin = Int64.unzigzag(try r.varint(UInt64.self, "AZ64 scale origin"))
            let sc = try r.varint(UInt64.self, "AZ64 scale")
            guard sc >= 2 else { throw corruptBlock("AZ64 scale \(sc)") }
            scale = Int64(truncatingIfNeeded: sc)
        }
        let base = Int64.unzigzag(try r.varint(UInt64.self, "AZ64 group base"))
        if k > 0 {
            let lastOffset = Int(rows[k - 1]) + offset
            guard Int(rows[0]) + offset >= 0, lastOffset < m else {
                throw corruptBlock("AZ64 value \(lastOffset) of a group of \(m)")
            }
        }
        if width == 0 && !hasExceptions {
            let v = origin &+ scale &* base
            out.initialize(repeating: v, count: k)
            return (m, v)
        }
        let exceptions = hasExceptions ? try r.count(max: m, "AZ64 exception count") : 0
        let bytes = BitPack.byteCount(m, width)
        guard r.remaining >= bytes + 8 else { throw corruptBlock("truncated AZ64 group") }
        let p = r.pointer
        let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) &- 1
        @inline(__always) func value(_ i: Int) -> Int64 {
            let bit = i &* width
            let shift = UInt64(bit & 7)
            var x = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self)) >> shift
            if width &+ Int(shift) > 64 {
                x |= UInt64(p.load(fromByteOffset: (bit >> 3) &+ 8, as: UInt8.self)) << (64 &- shift)
            }
            return base &+ Int64(bitPattern: x & mask)
        }
        for j in 0..<k { out[j] = value(Int(rows[j]) &+ offset) }
        var last = value(m - 1)
        r.pos += bytes
        // Exceptions come in ascending order of their index, as the rows do.
        var j = 0
        for _ in 0..<exceptions {
            let idx = Int(try r.u8("AZ64 exception"))
            guard idx < m else { throw corruptBlock("AZ64 exception index \(idx) of \(m)") }
            let v = base &+ Int64.unzigzag(try r.varint(UInt64.self, "AZ64 exception"))
            while j < k && Int(rows[j]) + offset < idx { j += 1 }
            if j < k && Int(rows[j]) + offset == idx { out[j] = v }
            if idx == m - 1 { last = v }
        }
        if isScaled {
            for j in 0..<k { out[j] = origin &+ scale &* out[j] }
            last = origin &+ scale &* last
        }
        return (m, last)
    }
}

extension AZ64Stream {
    /// The values at positions `at + rows[i]` (`rows` ascending, `at` at or after
    /// `position`, every one before `end`), without unpacking the frame-of-reference
    /// groups that end by `end`: their wanted values are taken one by one from the packed
    /// bits (`AZ64.passFOR`). Runs, delta groups and a group reaching past `end` decode
    /// as `read` decodes them. The stream is then somewhere at or before `end`.
    mutating func gather(_ rows: UnsafeBufferPointer<Int32>, at: Int, end: Int) throws -> [Int64] {
        let n = rows.count
        guard at >= position, end <= count, n == 0 || (rows[0] >= 0 && at + Int(rows[n - 1]) < end) else {
            throw corruptBlock("AZ64 stream gather of \(n) values from \(at) to \(end) at \(position) of \(count)")
        }
        return try [Int64].building(capacity: n, placeholder: 0) { buf, initialized in
            initialized = 0
            guard let out = buf.baseAddress else { return }
            try advance(rows, at: at, limit: end, out)
            initialized = n
        }
    }

    /// Pass over values to the position after the last of `rows` (ascending offsets from
    /// `at`), writing those values to `out`; frame-of-reference groups that end by `limit`
    /// are passed over without unpacking.
    private mutating func advance(_ rows: UnsafeBufferPointer<Int32>, at: Int, limit: Int,
                                  _ out: UnsafeMutablePointer<Int64>) throws {
        let n = rows.count
        guard n > 0, let rp = rows.baseAddress else { return }
        let total = count
        var c = cursor
        defer { cursor = c }
        try withPayload { r, hp, scratch in
            var i = 0
            while i < n {
                let want = at &+ Int(rp[i])
                let p = c.decoded - c.runLeft - (c.heldEnd - c.heldAt)
                guard want >= p else { throw corruptBlock("AZ64 stream gather of value \(want) at \(p)") }
                if c.runLeft > 0 {
                    if want < p + c.runLeft {
                        c.runLeft -= want - p + 1
                        out[i] = c.last
                        i += 1
                    } else {
                        c.runLeft = 0
                    }
                    continue
                }
                if c.heldAt < c.heldEnd {
                    if want < p + (c.heldEnd - c.heldAt) {
                        c.heldAt += want - p
                        out[i] = hp[c.heldAt]
                        c.heldAt += 1
                        i += 1
                    } else {
                        c.heldAt = c.heldEnd
                    }
                    continue
                }
                // At a chunk's start.
                let left = total - c.decoded
                guard left > 0 else { throw corruptBlock("AZ64 stream ran past \(total) values") }
                let groupEnd = c.decoded + min(AZ64.groupSize, left)
                if groupEnd <= limit {
                    var k = i
                    while k < n && at &+ Int(rp[k]) < groupEnd { k += 1 }
                    if let g = try AZ64.passFOR(&r, left: left, rows: rp + i, count: k - i,
                                                offset: at - c.decoded, out + i) {
                        c.decoded += g.count
                        c.last = g.last
                        i = k
                        continue
                    }
                }
                switch try AZ64.step(&r, left: left, previous: c.last, hp, scratch) {
                case .run(let value, let len):
                    c.last = value
                    c.runLeft = len
                    c.decoded += len
                case .group(let m):
                    c.last = hp[m - 1]
                    c.heldAt = 0
                    c.heldEnd = m
                    c.decoded += m
                }
            }
        }
    }
}
