// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// The dense (NULL-free) value forms the encodings work on, and the RAW layout of
// each physical kind, which the other encodings reuse for dictionaries, run
// values, exceptions and (compressed) ZSTD/LZO payloads.

/// Dense string input: `count` values whose absolute `offsets` (count + 1 of them)
/// index `bytes`.
struct StringInput {
    let bytes: UnsafeRawPointer?
    let offsets: UnsafePointer<Int32>
    let count: Int

    @inline(__always) func start(_ i: Int) -> Int { Int(offsets[i]) }
    @inline(__always) func length(_ i: Int) -> Int { Int(offsets[i + 1]) - Int(offsets[i]) }
    @inline(__always) func pointer(_ i: Int) -> UnsafeRawPointer? { bytes.map { $0 + Int(offsets[i]) } }
    @inline(__always) func equal(_ i: Int, _ j: Int) -> Bool {
        let n = length(i)
        return n == length(j) && bytesEqual(pointer(i), pointer(j), n)
    }
    @inline(__always) func hash(_ i: Int) -> UInt64 {
        Hashing.hash(bytes: pointer(i)?.assumingMemoryBound(to: UInt8.self), count: length(i))
    }
    var totalBytes: Int { count == 0 ? 0 : Int(offsets[count]) - Int(offsets[0]) }

    /// Run `body` with a `StringInput` over a `StringArray`'s rows `start..<start+count`.
    static func with<R>(_ a: StringArray, start: Int = 0, count: Int? = nil,
                        _ body: (StringInput) throws -> R) rethrows -> R {
        let n = count ?? a.count
        return try a.bytes.withUnsafeBytes { b in
            try a.offsets.withUnsafeBufferPointer { o in
                try body(StringInput(bytes: b.baseAddress, offsets: o.baseAddress! + start, count: n))
            }
        }
    }
}

@inline(__always) func bytesEqual(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, _ n: Int) -> Bool {
    guard n > 0, let a, let b else { return true }
    return equalBytes(a.assumingMemoryBound(to: UInt8.self), b.assumingMemoryBound(to: UInt8.self), n)
}

/// Small decoded side arrays (dictionaries, run values, exceptions).
enum DenseValues {
    case int64([Int64])
    case int128([Int128])
    case double([Double])
    case bool([Bool])
    case string(StringArray)

    var count: Int {
        switch self {
        case .int64(let a): return a.count
        case .int128(let a): return a.count
        case .double(let a): return a.count
        case .bool(let a): return a.count
        case .string(let a): return a.count
        }
    }
}

/// Numeric code of a physical kind in block headers.
extension PhysicalType {
    var blockID: UInt8 {
        switch self {
        case .int64: return 0
        case .int128: return 1
        case .double: return 2
        case .bool: return 3
        case .string: return 4
        }
    }
    init?(blockID: UInt8) {
        switch blockID {
        case 0: self = .int64
        case 1: self = .int128
        case 2: self = .double
        case 3: self = .bool
        case 4: self = .string
        default: return nil
        }
    }
}

/// Bytes per value RAW uses for an integer column of `type`: the width Redshift
/// stores (2 for SMALLINT, 4 for INTEGER and DATE, 8 otherwise, 16 for DECIMAL(p>18)).
func naturalIntWidth(_ type: DataType, _ kind: PhysicalType) -> Int {
    if kind == .int128 { return 16 }
    switch type {
    case .smallint: return 2
    case .integer, .date: return 4
    default: return 8
    }
}

enum RawCodec {
    // MARK: integers: u8 width, then count × width bytes (sign-extended on read)

    /// `natural` if every value fits it, else the full width of `T`.
    static func intWidth<T: BlockInt>(_ v: UnsafeBufferPointer<T>, natural: Int) -> Int {
        let full = T.bitWidth / 8
        if natural >= full { return full }
        for x in v where !x.fits(width: natural) { return full }
        return natural
    }

    static func writeInts<T: BlockInt>(_ v: UnsafeBufferPointer<T>, width: Int, into w: inout EncodingWriter) {
        w.u8(UInt8(width))
        let n = v.count
        w.extend(n * width) { p in
            switch width {
            case 2: for i in 0..<n { p.storeBytes(of: UInt16(truncatingIfNeeded: v[i]).littleEndian, toByteOffset: 2 * i, as: UInt16.self) }
            case 4: for i in 0..<n { p.storeBytes(of: UInt32(truncatingIfNeeded: v[i]).littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
            case 8: for i in 0..<n { p.storeBytes(of: UInt64(truncatingIfNeeded: v[i]).littleEndian, toByteOffset: 8 * i, as: UInt64.self) }
            default: for i in 0..<n { storeInt(v[i], width: width, p + width * i) }
            }
        }
    }

    static func readIntWidth<T: BlockInt>(_ r: inout EncodingReader, _: T.Type) throws -> Int {
        let width = Int(try r.u8("integer width"))
        guard width == 1 || width == 2 || width == 4 || width == 8 || (width == 16 && T.bitWidth == 128) else {
            throw corruptBlock("invalid integer width \(width)")
        }
        return width
    }

    static func readInts<T: BlockInt>(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<T>) throws {
        let width = try readIntWidth(&r, T.self)
        let (total, o) = n.multipliedReportingOverflow(by: width)
        guard !o else { throw corruptBlock("value count \(n) too large") }
        let src = try r.take(total, "integer values")
        guard n > 0, let p = src.baseAddress else { return }
        switch width {
        case 2: for i in 0..<n { out[i] = T(truncatingIfNeeded: Int16(bitPattern: UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))) }
        case 4: for i in 0..<n { out[i] = T(truncatingIfNeeded: Int32(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))) }
        case 8: for i in 0..<n { out[i] = T(truncatingIfNeeded: Int64(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)))) }
        default: for i in 0..<n { out[i] = loadInt(p + width * i, width: width) }
        }
    }

    static func readIntArray<T: BlockInt>(_ r: inout EncodingReader, _ n: Int, _: T.Type) throws -> [T] {
        try r.need(1 + n, "integer values")  // at least a width byte and one byte per value
        return try [T](unsafeUninitializedCapacity: n) { buf, count in
            if n > 0 { try readInts(&r, n, buf.baseAddress!) }
            count = n
        }
    }

    // MARK: doubles: u8 width (4 = every value is exactly a Float, as REAL values are), then values

    static func doubleWidth(_ v: UnsafeBufferPointer<Double>, real: Bool) -> Int {
        guard real else { return 8 }
        for x in v where !x.isNaN && Double(Float(x)).bitPattern != x.bitPattern { return 8 }
        return 4
    }

    static func writeDoubles(_ v: UnsafeBufferPointer<Double>, real: Bool, into w: inout EncodingWriter) {
        let width = doubleWidth(v, real: real)
        w.u8(UInt8(width))
        let n = v.count
        w.extend(n * width) { p in
            if width == 4 {
                for i in 0..<n { p.storeBytes(of: Float(v[i]).bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
            } else {
                for i in 0..<n { p.storeBytes(of: v[i].bitPattern.littleEndian, toByteOffset: 8 * i, as: UInt64.self) }
            }
        }
    }

    static func readDoubles(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<Double>) throws {
        let width = Int(try r.u8("double width"))
        guard width == 4 || width == 8 else { throw corruptBlock("invalid floating-point width \(width)") }
        let (total, o) = n.multipliedReportingOverflow(by: width)
        guard !o else { throw corruptBlock("value count \(n) too large") }
        let src = try r.take(total, "floating-point values")
        guard n > 0, let p = src.baseAddress else { return }
        if width == 4 {
            for i in 0..<n {
                out[i] = Double(Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))))
            }
        } else {
            for i in 0..<n {
                out[i] = Double(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)))
            }
        }
    }

    static func readDoubleArray(_ r: inout EncodingReader, _ n: Int) throws -> [Double] {
        try r.need(1 + n, "floating-point values")
        return try [Double].building(capacity: n, placeholder: 0) { buf, count in
            if n > 0 { try readDoubles(&r, n, buf.baseAddress!) }
            count = n
        }
    }

    // MARK: booleans: bit-packed, LSB first

    static func writeBools(_ v: UnsafeBufferPointer<Bool>, into w: inout EncodingWriter) {
        let n = v.count
        w.extend((n + 7) >> 3) { p in
            var i = 0, k = 0
            while i < n {
                var byte: UInt8 = 0
                var b = 0
                while b < 8 && i < n {
                    if v[i] { byte |= 1 << UInt8(b) }
                    b += 1
                    i += 1
                }
                p.storeBytes(of: byte, toByteOffset: k, as: UInt8.self)
                k += 1
            }
        }
    }

    static func readBools(_ r: inout EncodingReader, _ n: Int, _ out: UnsafeMutablePointer<Bool>) throws {
        let src = try r.take((n + 7) >> 3, "boolean values")
        guard n > 0, let p = src.baseAddress else { return }
        for i in 0..<n { out[i] = (p.load(fromByteOffset: i >> 3, as: UInt8.self) >> UInt8(i & 7)) & 1 == 1 }
    }

    static func readBoolArray(_ r: inout EncodingReader, _ n: Int) throws -> [Bool] {
        try r.need((n + 7) >> 3, "boolean values")
        return try [Bool].building(capacity: n, placeholder: false) { buf, count in
            if n > 0 { try readBools(&r, n, buf.baseAddress!) }
            count = n
        }
    }

    // MARK: strings: u8 length width (1, 2 or 4), count lengths, then the bytes

    static func writeStrings(_ s: StringInput, into w: inout EncodingWriter) {
        let n = s.count
        var maxLen = 0
        for i in 0..<n { maxLen = max(maxLen, s.length(i)) }
        let lw = maxLen < 256 ? 1 : (maxLen < 65536 ? 2 : 4)
        w.u8(UInt8(lw))
        w.extend(n * lw) { p in
            switch lw {
            case 1: for i in 0..<n { p.storeBytes(of: UInt8(truncatingIfNeeded: s.length(i)), toByteOffset: i, as: UInt8.self) }
            case 2: for i in 0..<n { p.storeBytes(of: UInt16(truncatingIfNeeded: s.length(i)).littleEndian, toByteOffset: 2 * i, as: UInt16.self) }
            default: for i in 0..<n { p.storeBytes(of: UInt32(truncatingIfNeeded: s.length(i)).littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
            }
        }
        let total = s.totalBytes
        if total > 0, let b = s.bytes {
            w.append(UnsafeRawBufferPointer(start: b + s.start(0), count: total))
        }
    }

    static func readStrings(_ r: inout EncodingReader, _ n: Int) throws -> StringArray {
        let lw = Int(try r.u8("string length width"))
        guard lw == 1 || lw == 2 || lw == 4 else { throw corruptBlock("invalid string length width \(lw)") }
        let (lenBytes, o) = n.multipliedReportingOverflow(by: lw)
        guard !o else { throw corruptBlock("value count \(n) too large") }
        let lens = try r.take(lenBytes, "string lengths")
        var offsets = [Int32](filled: 0, count: n + 1)
        var total = 0
        if n > 0, let p = lens.baseAddress {
            try offsets.withUnsafeMutableBufferPointer { off in
                switch lw {
                case 1: for i in 0..<n { total += Int(p.load(fromByteOffset: i, as: UInt8.self)); off[i + 1] = Int32(truncatingIfNeeded: total) }
                case 2: for i in 0..<n { total += Int(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))); off[i + 1] = Int32(truncatingIfNeeded: total) }
                default:
                    for i in 0..<n {
                        total += Int(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                        if total > Int(Int32.max) { throw corruptBlock("string data exceeds 2 GB") }
                        off[i + 1] = Int32(truncatingIfNeeded: total)
                    }
                }
            }
        }
        guard total <= Int(Int32.max) else { throw corruptBlock("string data exceeds 2 GB") }
        let data = try r.take(total, "string bytes")
        var s = StringArray()
        s.bytes = [UInt8](data)
        s.offsets = offsets
        return s
    }

    // MARK: any kind

    /// RAW layout of a dense side array (dictionaries, run values, exceptions).
    static func writeValues(_ v: DenseValues, natural: Int, real: Bool, into w: inout EncodingWriter) {
        switch v {
        case .int64(let a): a.withUnsafeBufferPointer { writeInts($0, width: intWidth($0, natural: natural), into: &w) }
        case .int128(let a): a.withUnsafeBufferPointer { writeInts($0, width: intWidth($0, natural: natural), into: &w) }
        case .double(let a): a.withUnsafeBufferPointer { writeDoubles($0, real: real, into: &w) }
        case .bool(let a): a.withUnsafeBufferPointer { writeBools($0, into: &w) }
        case .string(let a): StringInput.with(a) { writeStrings($0, into: &w) }
        }
    }

    static func readValues(_ r: inout EncodingReader, _ kind: PhysicalType, _ n: Int) throws -> DenseValues {
        switch kind {
        case .int64: return .int64(try readIntArray(&r, n, Int64.self))
        case .int128: return .int128(try readIntArray(&r, n, Int128.self))
        case .double: return .double(try readDoubleArray(&r, n))
        case .bool: return .bool(try readBoolArray(&r, n))
        case .string:
            try r.need(1 + n, "string values")
            return .string(try readStrings(&r, n))
        }
    }
}

/// Builds a decoded `StringArray` whose total byte size is known up front, copying
/// short values in 8-byte words (the output has 32 bytes of slack; sources must be
/// `PaddedStrings` or be checked for slack by the caller).
struct StringBuilder {
    static let slack = 32

    /// Make `count` strings of `total` bytes; `body` appends them through the builder.
    static func build(count n: Int, total: Int, _ body: (inout StringBuilder) throws -> Void) throws -> StringArray {
        guard total <= Int(Int32.max) else { throw corruptBlock("string data exceeds 2 GB") }
        var offsets = [Int32](filled: 0, count: n + 1)
        var written = 0, rows = 0
        let bytes = try [UInt8].building(capacity: total + slack, placeholder: 0) { buf, count in
            try offsets.withUnsafeMutableBufferPointer { off in
                var b = StringBuilder(dst: UnsafeMutableRawPointer(buf.baseAddress!), total: total, offsets: off.baseAddress!)
                try body(&b)
                written = b.pos
                rows = b.row
            }
            count = total
        }
        guard written == total, rows == n else {
            throw corruptBlock("strings decode to \(written) bytes in \(rows) values, expected \(total) in \(n)")
        }
        var s = StringArray()
        s.bytes = bytes
        s.offsets = offsets
        return s
    }

    let dst: UnsafeMutableRawPointer
    let total: Int
    let offsets: UnsafeMutablePointer<Int32>
    var pos = 0
    var row = 0

    /// Append bytes to the current value. `srcHasSlack`: 32 bytes past `len` are readable.
    @inline(__always)
    mutating func append(_ src: UnsafeRawPointer?, _ len: Int, srcHasSlack: Bool) throws {
        guard len <= total - pos else { throw corruptBlock("string data longer than recorded") }
        guard len > 0, let src else { return }
        let d = dst + pos
        if len <= 32 && srcHasSlack {
            var k = 0
            repeat {
                d.storeBytes(of: src.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
                k += 8
            } while k < len
        } else {
            d.copyMemory(from: src, byteCount: len)
        }
        pos += len
    }
    @inline(__always) mutating func appendSpace() throws {
        guard pos < total else { throw corruptBlock("string data longer than recorded") }
        dst.storeBytes(of: UInt8(0x20), toByteOffset: pos, as: UInt8.self)
        pos += 1
    }
    /// End the current value.
    @inline(__always) mutating func endValue() {
        row += 1
        offsets[row] = Int32(truncatingIfNeeded: pos)
    }
}

/// Decoded side strings (dictionaries, run values, exceptions) with 32 bytes of
/// padding after the data, so `StringBuilder` can copy them in words.
struct PaddedStrings {
    var bytes: [UInt8]
    var starts: [Int]
    var lengths: [Int]
    var count: Int { lengths.count }

    init(_ s: StringArray) {
        bytes = s.bytes + [UInt8](filled: 0, count: StringBuilder.slack)
        let n = s.count
        starts = (0..<n).map { Int(s.offsets[$0]) }
        lengths = (0..<n).map { Int(s.offsets[$0 + 1]) - Int(s.offsets[$0]) }
    }
}
