// SPDX-License-Identifier: Apache-2.0
import CZstd
import SlicehouseTypes

/// Encodes rows of a column into self-contained byte blocks and decodes them back.
///
/// Block layout (little-endian; docs/STORAGE-ENCODINGS.md has the details):
///
/// ```
/// 0   "SHEB"               magic
/// 4   u8  version (1)
/// 5   u8  encoding id      (ColumnEncoding.blockID)
/// 6   u8  physical kind    (0 int64, 1 int128, 2 double, 3 bool, 4 string)
/// 7   u8  flags            (1 = NULL bitmap present, 2 = every row NULL)
/// 8   u32 row count
/// 12  u32 body length      (bytes after the header)
/// 16  u32 checksum         (of header bytes 4..<16 and the body)
/// 20  body: [NULL bitmap, (rows + 7) / 8 bytes, bit i set = row i not NULL]
///           payload: the encoding of the non-NULL values only, in row order
/// ```
///
/// Decoding validates everything (magic, ids against the expected encoding and type,
/// lengths, checksum, every count and index inside the payload) and throws
/// `SQLError(.ioError, "corrupt column block: ...")` rather than trapping.
public enum BlockEncoder {
    /// Largest row count of one block (a sanity bound for decoding).
    public static let maxRowsPerBlock = 1 << 26
    static let headerSize = 20
    static let magic: [UInt8] = [0x53, 0x48, 0x45, 0x42]  // "SHEB"
    static let version: UInt8 = 1
    static let flagNullBitmap: UInt8 = 1
    static let flagAllNull: UInt8 = 2
    /// zstd levels: ZSTD is the better ratio, LZO (stored with zstd) the faster one.
    static let zstdLevel = 3
    static let lzoLevel = 1

    // MARK: - Encode

    /// Encode rows `start..<start+count` of `v` into a self-contained block (NULLs
    /// included). A constant vector is expanded to `count` rows.
    /// Throws `.featureNotSupported` when this kind of data cannot take `encoding`
    /// (see `canEncode`); `isAllowed` is the stricter Redshift table for DDL.
    public static func encode(_ v: Vector, start: Int, count: Int, encoding: ColumnEncoding) throws -> [UInt8] {
        var dictionary: StringArray?
        return try encode(v, start: start, count: count, encoding: encoding, dictionary: &dictionary)
    }

    /// `encode`, and for a BYTEDICT block of strings without NULLs whose values all
    /// found a place in its dictionary, that dictionary (the block's distinct values,
    /// from which its zone map follows), else nil.
    static func encode(_ v: Vector, start: Int, count: Int, encoding: ColumnEncoding,
                       dictionary: inout StringArray?) throws -> [UInt8] {
        dictionary = nil
        if v.isConstant {
            return try encode(v.flattened(count: count), start: 0, count: count, encoding: encoding)
        }
        guard start >= 0, count >= 0, start <= v.count - count else {
            throw SQLError.internalError("encode: rows \(start)..<\(start + count) are outside a vector of \(v.count)")
        }
        guard count <= maxRowsPerBlock else {
            throw SQLError.internalError("encode: \(count) rows exceed the block limit of \(maxRowsPerBlock)")
        }
        let kind = v.data.physicalKind
        guard canEncode(encoding, physical: kind) else {
            throw SQLError(.featureNotSupported,
                           "encoding \(encoding.sqlName) is not supported for type \(v.type.sqlName)")
        }

        // NULLs in the range.
        var nulls = 0
        if let val = v.validity, count > 0 {
            nulls = count - countValid(val, start, count)
        }

        var flags: UInt8 = 0
        if count > 0 && nulls == count { flags |= flagAllNull } else if nulls > 0 { flags |= flagNullBitmap }
        var w = beginBlock(encoding: encoding, kind: kind, flags: flags, count: count,
                           capacity: headerSize + estimateSize(v, count))
        if count > 0 && nulls < count {
            if nulls > 0, let val = v.validity {
                writeBitmap(val, start, count, into: &w)
                let dense = v.denseValues(validity: val, start: start, count: count)
                try encodePayload(dense, type: v.type, encoding: encoding, into: &w)
            } else if encoding == .bytedict, case .string(let a) = v.data {
                dictionary = StringInput.with(a, start: start, count: count) { ByteDict.encodeStrings($0, into: &w) }
            } else {
                try withSlice(v, start, count) { try encodePayload($0, type: v.type, encoding: encoding, into: &w) }
            }
        }

        return try finishBlock(&w)
    }

    /// A BYTEDICT block of strings without NULLs given as `codes` into `dictionary` (at
    /// most 256 values: a COPY's held codes, `HeldRows.codeParts`): the block `encode`
    /// writes for the strings they stand for, without the strings, and the block's
    /// dictionary (its distinct values).
    static func encode(codes: UnsafeBufferPointer<UInt8>, dictionary: StringArray,
                       type: DataType) throws -> (bytes: [UInt8], dictionary: StringArray) {
        guard type.physical == .string else {
            throw SQLError.internalError("encode: dictionary codes for a column of \(type.sqlName)")
        }
        guard codes.count <= maxRowsPerBlock else {
            throw SQLError.internalError("encode: \(codes.count) rows exceed the block limit of \(maxRowsPerBlock)")
        }
        var w = beginBlock(encoding: .bytedict, kind: .string, flags: 0, count: codes.count,
                           capacity: headerSize + codes.count + 64)
        var blockDictionary = StringArray()
        if codes.count > 0 { blockDictionary = try ByteDict.encodeCodes(codes, dictionary: dictionary, into: &w) }
        return (try finishBlock(&w), blockDictionary)
    }

    /// A block's header, its body length and checksum left to `finishBlock`.
    private static func beginBlock(encoding: ColumnEncoding, kind: PhysicalType, flags: UInt8, count: Int,
                                   capacity: Int) -> EncodingWriter {
        var w = EncodingWriter(capacity: capacity)
        w.append(magic)
        w.u8(version)
        w.u8(encoding.blockID)
        w.u8(kind.blockID)
        w.u8(flags)
        w.u32(UInt32(count))
        w.u32(0)  // body length, patched by finishBlock
        w.u32(0)  // checksum, patched by finishBlock
        return w
    }

    /// The block's bytes, with the body length and checksum in its header.
    private static func finishBlock(_ w: inout EncodingWriter) throws -> [UInt8] {
        let bodyLength = w.count - headerSize
        guard bodyLength <= Int(UInt32.max) else {
            throw SQLError.internalError("encode: block of \(bodyLength) bytes is too large")
        }
        w.patchU32(UInt32(bodyLength), at: 12)
        let sum = w.bytes.withUnsafeBytes { b in
            blockChecksum(UnsafeRawBufferPointer(rebasing: b[4..<16]), UnsafeRawBufferPointer(rebasing: b[headerSize...]))
        }
        w.patchU32(sum, at: 16)
        return w.bytes
    }

    /// Encoded size of a block without keeping it (nil when the encoding does not apply).
    public static func encodedSize(_ v: Vector, start: Int = 0, count: Int? = nil, encoding: ColumnEncoding) -> Int? {
        let n = count ?? (v.isConstant ? 1 : v.count)
        return try? encode(v, start: start, count: n, encoding: encoding).count
    }

    static func estimateSize(_ v: Vector, _ count: Int) -> Int {
        switch v.data {
        case .int64: return count * 4 + 64
        case .int128: return count * 8 + 64
        case .double: return count * 8 + 64
        case .bool: return count / 8 + 64
        case .string(let s): return min(s.bytes.count, count * 16) + count + 64
        }
    }

    static func countValid(_ val: Validity, _ start: Int, _ count: Int) -> Int {
        val.validCount(from: start, count: count)
    }

    /// Rows `start..<start+count`'s bits, a byte per 8 rows (bits past `count` are 0; rows
    /// past the words are valid), 64 rows at a time.
    static func writeBitmap(_ val: Validity, _ start: Int, _ count: Int, into w: inout EncodingWriter) {
        w.extend((count + 7) >> 3) { p in
            val.words.withUnsafeBufferPointer { words in
                @inline(__always) func word(_ i: Int) -> UInt64 { i < words.count ? words[i] : ~0 }
                var k = 0
                while k < count {
                    let r = start + k
                    let shift = UInt64(r & 63)
                    var bits = word(r >> 6) >> shift
                    if shift != 0 { bits |= word((r >> 6) + 1) << (64 - shift) }
                    let left = count - k
                    if left < 64 { bits &= (1 << UInt64(left)) &- 1 }
                    if left >= 64 {
                        p.storeBytes(of: bits.littleEndian, toByteOffset: k >> 3, as: UInt64.self)
                    } else {
                        for b in 0..<((left + 7) >> 3) {
                            p.storeBytes(of: UInt8(truncatingIfNeeded: bits >> UInt64(8 * b)), toByteOffset: (k >> 3) + b, as: UInt8.self)
                        }
                    }
                    k += 64
                }
            }
        }
    }

    /// The input of a payload encoder: dense values of one physical kind.
    enum Input {
        case int64(UnsafeBufferPointer<Int64>)
        case int128(UnsafeBufferPointer<Int128>)
        case double(UnsafeBufferPointer<Double>)
        case bool(UnsafeBufferPointer<Bool>)
        case string(StringInput)

        var count: Int {
            switch self {
            case .int64(let p): return p.count
            case .int128(let p): return p.count
            case .double(let p): return p.count
            case .bool(let p): return p.count
            case .string(let s): return s.count
            }
        }
    }

    static func withSlice<R>(_ v: Vector, _ start: Int, _ count: Int, _ body: (Input) throws -> R) rethrows -> R {
        switch v.data {
        case .int64(let a): return try a.withUnsafeBufferPointer { try body(.int64(UnsafeBufferPointer(rebasing: $0[start..<(start + count)]))) }
        case .int128(let a): return try a.withUnsafeBufferPointer { try body(.int128(UnsafeBufferPointer(rebasing: $0[start..<(start + count)]))) }
        case .double(let a): return try a.withUnsafeBufferPointer { try body(.double(UnsafeBufferPointer(rebasing: $0[start..<(start + count)]))) }
        case .bool(let a): return try a.withUnsafeBufferPointer { try body(.bool(UnsafeBufferPointer(rebasing: $0[start..<(start + count)]))) }
        case .string(let s): return try StringInput.with(s, start: start, count: count) { try body(.string($0)) }
        }
    }

    static func withDense<R>(_ d: DenseValues, _ body: (Input) throws -> R) rethrows -> R {
        switch d {
        case .int64(let a): return try a.withUnsafeBufferPointer { try body(.int64($0)) }
        case .int128(let a): return try a.withUnsafeBufferPointer { try body(.int128($0)) }
        case .double(let a): return try a.withUnsafeBufferPointer { try body(.double($0)) }
        case .bool(let a): return try a.withUnsafeBufferPointer { try body(.bool($0)) }
        case .string(let s): return try StringInput.with(s) { try body(.string($0)) }
        }
    }

    static func encodePayload(_ d: DenseValues, type: DataType, encoding: ColumnEncoding, into w: inout EncodingWriter) throws {
        try withDense(d) { try encodePayload($0, type: type, encoding: encoding, into: &w) }
    }

    /// Encode dense (NULL-free) values with `encoding`.
    static func encodePayload(_ input: Input, type: DataType, encoding: ColumnEncoding, into w: inout EncodingWriter) throws {
        switch encoding {
        case .zstd, .lzo:
            // Room for the raw payload at once (strings: their bytes and a length each).
            var rawBytes = input.count * 8 + 16
            if case .string(let s) = input { rawBytes = s.totalBytes + input.count * 4 + 16 }
            var raw = EncodingWriter(capacity: rawBytes)
            try encodePayload(input, type: type, encoding: .raw, into: &raw)
            w.varint(UInt64(raw.count))
            let level = encoding == .zstd ? zstdLevel : lzoLevel
            // Compressed into room of its own, uninitialized, then appended: room made in
            // the writer would be zero-filled first, for the whole bound (megabytes a block).
            let compressed = try raw.bytes.withUnsafeBytes { src in
                try [UInt8].building(capacity: try ZstdCodec.compressBound(src.count), placeholder: 0) { dst, written in
                    written = try ZstdCodec.compress(src, level: level, into: UnsafeMutableRawBufferPointer(dst))
                }
            }
            w.append(compressed)
            return
        default: break
        }
        switch input {
        case .int64(let p): try IntegerCodecs.encode(p, natural: naturalIntWidth(type, .int64), encoding: encoding, into: &w)
        case .int128(let p): try IntegerCodecs.encode(p, natural: 16, encoding: encoding, into: &w)
        case .double(let p):
            let real = type == .real
            switch encoding {
            case .raw: RawCodec.writeDoubles(p, real: real, into: &w)
            case .runlength:
                RunLength.encode(count: p.count, equal: { p[$0].bitPattern == p[$1].bitPattern },
                                 gather: { idx in .double(idx.map { p[$0] }) }, natural: 8, real: real, into: &w)
            case .bytedict:
                ByteDict.encode(count: p.count, hash: { Hashing.hash(p[$0].bitPattern) },
                                equal: { p[$0].bitPattern == p[$1].bitPattern },
                                gather: { idx in .double(idx.map { p[$0] }) }, natural: 8, real: real, into: &w)
            default: throw unsupported(encoding, type)
            }
        case .bool(let p):
            switch encoding {
            case .raw: RawCodec.writeBools(p, into: &w)
            case .runlength:
                RunLength.encode(count: p.count, equal: { p[$0] == p[$1] },
                                 gather: { idx in .bool(idx.map { p[$0] }) }, natural: 1, real: false, into: &w)
            default: throw unsupported(encoding, type)
            }
        case .string(let s):
            switch encoding {
            case .raw: RawCodec.writeStrings(s, into: &w)
            case .runlength:
                RunLength.encode(count: s.count, equal: { s.equal($0, $1) }, gather: { gatherStrings(s, $0) },
                                 natural: 0, real: false, into: &w)
            case .bytedict:
                ByteDict.encodeStrings(s, into: &w)
            case .text255, .text32k:
                TextCodec.encode(s, large: encoding == .text32k, into: &w)
            default: throw unsupported(encoding, type)
            }
        }
    }

    static func gatherStrings(_ s: StringInput, _ idx: [Int]) -> DenseValues {
        var out = StringArray(reservingCount: idx.count, bytes: 0)
        for i in idx {
            let n = s.length(i)
            if n > 0, let p = s.pointer(i) {
                out.bytes.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
            }
            out.offsets.append(Int32(truncatingIfNeeded: out.bytes.count))
        }
        return .string(out)
    }

    static func unsupported(_ e: ColumnEncoding, _ type: DataType) -> SQLError {
        SQLError(.featureNotSupported, "encoding \(e.sqlName) is not supported for type \(type.sqlName)")
    }

    // MARK: - Decode

    /// A validated block header and the parts of its body.
    struct Parsed {
        var encoding: ColumnEncoding
        var kind: PhysicalType
        var rows: Int
        var allNull: Bool
        /// (rows + 7) / 8 bytes, bit set = not NULL; nil when there are no NULLs (or all are).
        var bitmap: UnsafeRawBufferPointer?
        /// Number of non-NULL rows (values in the payload).
        var valid: Int
        var payload: UnsafeRawBufferPointer
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, type: DataType, encoding: ColumnEncoding) throws -> Parsed {
        var r = EncodingReader(bytes)
        guard bytes.count >= headerSize else {
            throw corruptBlock("\(bytes.count) bytes is shorter than the \(headerSize)-byte header")
        }
        let m = try r.take(4, "magic")
        guard m.elementsEqual(magic) else { throw corruptBlock("bad magic number") }
        let ver = try r.u8()
        guard ver == version else { throw corruptBlock("unsupported block format version \(ver)") }
        let encID = try r.u8(), kindID = try r.u8(), flags = try r.u8()
        let rows = Int(try r.u32())
        let bodyLength = Int(try r.u32())
        let sum = try r.u32()
        guard bodyLength == bytes.count - headerSize else {
            throw corruptBlock(bodyLength > bytes.count - headerSize
                ? "truncated (header says \(bodyLength) body bytes, \(bytes.count - headerSize) present)"
                : "\(bytes.count - headerSize - bodyLength) trailing bytes after the block")
        }
        let actual = blockChecksum(UnsafeRawBufferPointer(rebasing: bytes[4..<16]),
                                   UnsafeRawBufferPointer(rebasing: bytes[headerSize...]))
        guard actual == sum else { throw corruptBlock("checksum mismatch") }
        guard let enc = ColumnEncoding(blockID: encID) else { throw corruptBlock("unknown encoding id \(encID)") }
        guard enc == encoding else {
            throw corruptBlock("block is encoded \(enc.sqlName), expected \(encoding.sqlName)")
        }
        guard let kind = PhysicalType(blockID: kindID) else { throw corruptBlock("unknown value kind \(kindID)") }
        guard kind == type.physical else {
            throw corruptBlock("block holds \(kind) values, column type \(type.sqlName) needs \(type.physical)")
        }
        guard canEncode(enc, physical: kind) else { throw corruptBlock("encoding \(enc.sqlName) cannot hold \(kind) values") }
        guard flags & ~(flagNullBitmap | flagAllNull) == 0, flags != flagNullBitmap | flagAllNull else {
            throw corruptBlock("invalid flags \(flags)")
        }
        guard rows <= maxRowsPerBlock else { throw corruptBlock("row count \(rows) exceeds \(maxRowsPerBlock)") }
        let allNull = flags & flagAllNull != 0
        if allNull || rows == 0 {
            guard bodyLength == 0 else { throw corruptBlock("unexpected payload in an empty or all-NULL block") }
            return Parsed(encoding: enc, kind: kind, rows: rows, allNull: allNull, bitmap: nil, valid: 0,
                          payload: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        var bitmap: UnsafeRawBufferPointer? = nil
        var valid = rows
        if flags & flagNullBitmap != 0 {
            let bm = try r.take((rows + 7) >> 3, "NULL bitmap")
            var c = 0
            for k in 0..<bm.count { c += bm[k].nonzeroBitCount }
            if rows & 7 != 0 {
                let extra = bm[bm.count - 1] >> UInt8(rows & 7)
                guard extra == 0 else { throw corruptBlock("NULL bitmap has bits past the last row") }
            }
            guard c > 0 else { throw corruptBlock("NULL bitmap marks every row NULL") }
            valid = c
            bitmap = bm
        }
        let payload = try r.take(r.remaining, "payload")
        return Parsed(encoding: enc, kind: kind, rows: rows, allNull: allNull, bitmap: bitmap, valid: valid, payload: payload)
    }

    /// Decode a block into a vector of `type` holding exactly the rows encoded.
    /// NULL rows hold 0 / false / "" (as `Vector.appendNull` leaves them).
    public static func decode(_ bytes: UnsafeRawBufferPointer, type: DataType, encoding: ColumnEncoding) throws -> Vector {
        let h = try parse(bytes, type: type, encoding: encoding)
        let validity = h.allNull ? Validity(allNull: h.rows) : h.bitmap.map { validityWords($0, h.rows) }
        let data: VectorData
        switch h.kind {
        case .int64:
            data = .int64(try decodeFixed(h, Int64(0)) { r, n, out, e in try IntegerCodecs.decode(&r, n, out, encoding: e) })
        case .int128:
            data = .int128(try decodeFixed(h, Int128(0)) { r, n, out, e in try IntegerCodecs.decode(&r, n, out, encoding: e) })
        case .double:
            data = .double(try decodeFixed(h, 0.0) { r, n, out, e in
                switch e {
                case .raw: try RawCodec.readDoubles(&r, n, out)
                case .runlength: try RunLength.decodeFixed(&r, n, out) { try RawCodec.readDoubleArray(&$0, $1) }
                case .bytedict: try ByteDict.decodeFixed(&r, n, out) { try RawCodec.readDoubleArray(&$0, $1) }
                default: throw corruptBlock("encoding \(e.sqlName) cannot hold floating-point values")
                }
            })
        case .bool:
            data = .bool(try decodeFixed(h, false) { r, n, out, e in
                switch e {
                case .raw: try RawCodec.readBools(&r, n, out)
                case .runlength: try RunLength.decodeFixed(&r, n, out) { try RawCodec.readBoolArray(&$0, $1) }
                default: throw corruptBlock("encoding \(e.sqlName) cannot hold boolean values")
                }
            })
        case .string:
            data = .string(try decodeStrings(h))
        }
        return Vector(type: type, data: data, validity: validity)
    }

    /// Run `body` on the RAW payload of a ZSTD/LZO block (decompressed), else on the payload.
    static func withPlainPayload<R>(_ h: Parsed, _ body: (inout EncodingReader, ColumnEncoding) throws -> R) throws -> R {
        var r = EncodingReader(h.payload)
        guard h.encoding == .zstd || h.encoding == .lzo else {
            let result = try body(&r, h.encoding)
            try r.expectEnd("payload")
            return result
        }
        let rawSize = try r.count(max: Int(Int32.max), "uncompressed size")
        let frame = try r.take(r.remaining, "zstd frame")
        let raw = try zstdDecompress(frame, size: rawSize)
        return try raw.withUnsafeBytes { buf in
            var sub = EncodingReader(buf)
            let result = try body(&sub, .raw)
            try sub.expectEnd("decompressed payload")
            return result
        }
    }

    static func zstdDecompress(_ frame: UnsafeRawBufferPointer, size: Int) throws -> [UInt8] {
        guard frame.count > 0 else { throw corruptBlock("empty zstd frame") }
        let declared = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
        guard declared == UInt64(size) else {
            throw corruptBlock("zstd frame size does not match the recorded \(size) bytes")
        }
        var out = [UInt8](filled: 0, count: max(size, 1))
        let got = out.withUnsafeMutableBytes { dst in
            ZstdCodec.decompressFrame(frame, into: dst.baseAddress, size: size)
        }
        if ZSTD_isError(got) != 0 { throw corruptBlock("zstd: \(ZstdCodec.errorName(got))") }
        guard got == size else { throw corruptBlock("zstd produced \(got) bytes, expected \(size)") }
        if size == 0 { out.removeAll() }
        return out
    }

    /// Decode `h.valid` dense values with `body`, then spread them over the rows.
    static func decodeFixed<T>(_ h: Parsed, _ zero: T,
                               _ body: (inout EncodingReader, Int, UnsafeMutablePointer<T>, ColumnEncoding) throws -> Void) throws -> [T] {
        let rows = h.rows
        if rows == 0 { return [] }
        if h.allNull { return [T](filled: zero, count: rows) }
        return try [T](unsafeUninitializedCapacity: rows) { buf, count in
            let out = buf.baseAddress!
            try withPlainPayload(h) { r, e in try body(&r, h.valid, out, e) }
            if let bm = h.bitmap { spread(out, rows: rows, valid: h.valid, bitmap: bm, zero: zero) }
            count = rows
        }
    }

    /// Move dense values `0..<valid` to their rows (backwards, in place); NULL rows get `zero`.
    static func spread<T>(_ out: UnsafeMutablePointer<T>, rows: Int, valid: Int, bitmap bm: UnsafeRawBufferPointer, zero: T) {
        guard let bp = bm.baseAddress else { return }
        var j = valid - 1
        var i = rows - 1
        while i >= 0 && j < i {
            if (bp.load(fromByteOffset: i >> 3, as: UInt8.self) >> UInt8(i & 7)) & 1 == 1 {
                out[i] = out[j]
                j -= 1
            } else {
                out[i] = zero
            }
            i -= 1
        }
    }

    static func validityWords(_ bm: UnsafeRawBufferPointer, _ rows: Int) -> Validity {
        let nw = (rows + 63) >> 6
        var words = [UInt64](filled: ~0, count: nw)
        for k in 0..<nw {
            var w: UInt64 = 0
            for b in 0..<8 {
                let idx = k * 8 + b
                w |= UInt64(idx < bm.count ? bm[idx] : 0) << UInt64(8 * b)
            }
            let bitsHere = min(64, rows - k * 64)
            if bitsHere < 64 { w |= ~0 << UInt64(bitsHere) }  // bits past the end read as valid, like Validity(allValid:)
            words[k] = w
        }
        return Validity(words: words)
    }

    static func decodeStrings(_ h: Parsed) throws -> StringArray {
        let rows = h.rows
        if rows == 0 { return StringArray() }
        if h.allNull {
            var s = StringArray()
            s.offsets = [Int32](filled: 0, count: rows + 1)
            return s
        }
        var dense = try withPlainPayload(h) { r, e -> StringArray in
            switch e {
            case .raw: return try RawCodec.readStrings(&r, h.valid)
            case .runlength: return try RunLength.decodeStrings(&r, h.valid)
            case .bytedict: return try ByteDict.decodeStrings(&r, h.valid)
            case .text255, .text32k: return try TextCodec.decode(&r, h.valid, large: e == .text32k)
            default: throw corruptBlock("encoding \(e.sqlName) cannot hold string values")
            }
        }
        guard dense.count == h.valid else { throw corruptBlock("decoded \(dense.count) strings, expected \(h.valid)") }
        if let bm = h.bitmap, let bp = bm.baseAddress {
            var offsets = [Int32](filled: 0, count: rows + 1)
            dense.offsets.withUnsafeBufferPointer { d in
                offsets.withUnsafeMutableBufferPointer { o in
                    var k = 0
                    for i in 0..<rows {
                        if (bp.load(fromByteOffset: i >> 3, as: UInt8.self) >> UInt8(i & 7)) & 1 == 1 {
                            k += 1
                        }
                        o[i + 1] = d[k]
                    }
                }
            }
            dense.offsets = offsets
        }
        return dense
    }
}

extension VectorData {
    var physicalKind: PhysicalType {
        switch self {
        case .int64: return .int64
        case .int128: return .int128
        case .double: return .double
        case .bool: return .bool
        case .string: return .string
        }
    }
}

extension Vector {
    /// The non-NULL values of rows `start..<start+count`.
    func denseValues(validity val: Validity, start: Int, count: Int) -> DenseValues {
        let valid = val.validCount(from: start, count: count)
        switch data {
        case .int64(let a): return .int64(Self.compact(a, val, start, count, valid))
        case .int128(let a): return .int128(Self.compact(a, val, start, count, valid))
        case .double(let a): return .double(Self.compact(a, val, start, count, valid))
        case .bool(let a): return .bool(Self.compact(a, val, start, count, valid))
        case .string(let a):
            var s = StringArray(reservingCount: valid, bytes: a.bytes.count)
            val.words.withUnsafeBufferPointer { words in
                for i in 0..<count {
                    let r = start + i
                    if (r >> 6) >= words.count || (words[r >> 6] >> UInt64(r & 63)) & 1 == 1 { s.append(from: a, r) }
                }
            }
            return .string(s)
        }
    }

    /// The `valid` values of `a`'s rows `start..<start+count` whose bits are set, without a
    /// branch per row: every value is written at the next place, which advances by its bit.
    private static func compact<T>(_ a: [T], _ val: Validity, _ start: Int, _ count: Int, _ valid: Int) -> [T] {
        guard count > 0, start >= 0, start + count <= a.count else { return [] }
        return [T](unsafeUninitializedCapacity: count) { out, done in
            guard let o = out.baseAddress else { done = 0; return }
            var k = 0
            a.withUnsafeBufferPointer { src in
                val.words.withUnsafeBufferPointer { words in
                    for i in 0..<count {
                        let r = start + i
                        let bit = (r >> 6) >= words.count ? 1 : Int((words[r >> 6] >> UInt64(r & 63)) & 1)
                        (o + k).initialize(to: src[r])
                        k &+= bit
                    }
                }
            }
            done = min(k, valid)
        }
    }
}
