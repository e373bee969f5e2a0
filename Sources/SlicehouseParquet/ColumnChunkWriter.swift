// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Buffers one column of the current row group and writes it as a column chunk.
///
/// Values are kept in their Parquet physical form (non-NULL values only) with one
/// definition level per row (1 = value, 0 = NULL). When the row group is flushed the
/// chunk is written as: for strings whose dictionary stayed small, a dictionary page
/// (PLAIN entries) followed by data pages of RLE-encoded indices; otherwise PLAIN data
/// pages. Every data page is a v1 page of about `pageBytes` uncompressed bytes:
/// `[4-byte length][RLE definition levels][values]`, compressed as a whole.
final class ColumnChunkWriter {
    /// Target uncompressed size of a data page.
    static let pageBytes = 1 << 20
    /// Strings longer than this are left out of min/max statistics (statistics are
    /// meant to be small).
    static let maxStatisticsLength = 1024

    let name: String
    let type: DataType
    let layout: ColumnLayout

    private(set) var rows = 0
    private(set) var levels: [UInt8] = []
    private(set) var nullCount = 0
    private(set) var int32s: [Int32] = []
    private(set) var int64s: [Int64] = []
    private(set) var wides: [Int128] = []
    private(set) var floats: [Float] = []
    private(set) var doubles: [Double] = []
    private(set) var bools: [Bool] = []
    private(set) var stringBytes: [UInt8] = []
    private(set) var stringEnds: [Int] = [0]
    private(set) var dictionary: StringDictionary?

    init(name: String, type: DataType) throws {
        self.name = name
        self.type = type
        self.layout = try ColumnLayout(type)
        if case .string = layout.storage { dictionary = StringDictionary() }
    }

    /// Uncompressed bytes buffered so far (what the row-group size limit counts).
    var bufferedBytes: Int {
        let values: Int
        switch layout.storage {
        case .int32: values = int32s.count * 4
        case .int64: values = int64s.count * 8
        case .wideDecimal(let n): values = wides.count * n
        case .float: values = floats.count * 4
        case .double: values = doubles.count * 8
        case .boolean: values = bools.count / 8
        case .string: values = stringBytes.count + 4 * (stringEnds.count - 1)
        }
        return values + levels.count / 8
    }

    // MARK: - Appending

    /// Append rows `start ..< start + n` of `v` (a constant vector stands for every row).
    ///
    /// The buffers are moved into locals for the loops (class properties would pay an
    /// exclusivity check on every access) and put back afterwards.
    func append(_ v: Vector, from start: Int, count n: Int) throws {
        guard v.isConstant ? v.count >= 1 : v.count >= start + n else {
            throw ParquetError("vector of \(v.count) rows is shorter than its chunk", code: .internalError)
        }
        var lv = levels
        levels = []
        defer { levels = lv }
        reserveGrowing(&lv, n)
        let before = lv.count
        switch (layout.storage, v.data) {
        case (.int32, .int64(let a)):
            var out = int32s; int32s = []
            defer { int32s = out }
            let t = type
            try appendRows(a, v, start, n, &lv, &out) { x in
                guard let y = Int32(exactly: x) else {
                    throw ParquetError.outOfRange("value \(x) of type \(t.sqlName) does not fit a Parquet INT32")
                }
                return y
            }
        case (.int64, .int64(let a)):
            var out = int64s; int64s = []
            defer { int64s = out }
            appendRows(a, v, start, n, &lv, &out) { $0 }
        case (.wideDecimal, .int128(let a)):
            var out = wides; wides = []
            defer { wides = out }
            appendRows(a, v, start, n, &lv, &out) { $0 }
        case (.wideDecimal, .int64(let a)):
            var out = wides; wides = []
            defer { wides = out }
            appendRows(a, v, start, n, &lv, &out) { Int128($0) }
        case (.float, .double(let a)):
            var out = floats; floats = []
            defer { floats = out }
            appendRows(a, v, start, n, &lv, &out) { Float($0) }
        case (.double, .double(let a)):
            var out = doubles; doubles = []
            defer { doubles = out }
            appendRows(a, v, start, n, &lv, &out) { $0 }
        case (.boolean, .bool(let a)):
            var out = bools; bools = []
            defer { bools = out }
            appendRows(a, v, start, n, &lv, &out) { $0 }
        case (.string, .string(let s)):
            appendStrings(s, v, start, n, &lv)
        default:
            throw ParquetError("vector of physical type \(v.data) does not match column type \(type.sqlName)", code: .internalError)
        }
        let valid = lv.withUnsafeBufferPointer { p in
            var c = 0
            for i in before..<p.count { c &+= Int(p[i]) }
            return c
        }
        nullCount += n - valid
        rows += n
    }

    /// Append levels and converted non-NULL values for `n` rows of a fixed-width vector.
    @inline(__always)
    private func appendRows<S, T>(_ src: [S], _ v: Vector, _ start: Int, _ n: Int, _ lv: inout [UInt8], _ out: inout [T],
                                  _ convert: (S) throws -> T) rethrows {
        try src.withUnsafeBufferPointer { p in
            if v.isConstant {
                if v.isNull(0) {
                    lv.append(contentsOf: repeatElement(0, count: n))
                } else {
                    lv.append(contentsOf: repeatElement(1, count: n))
                    out.append(contentsOf: repeatElement(try convert(p[0]), count: n))
                }
            } else if let validity = v.validity {
                reserveGrowing(&out, n)
                for i in start..<(start + n) {
                    if validity.isValid(i) {
                        lv.append(1)
                        out.append(try convert(p[i]))
                    } else {
                        lv.append(0)
                    }
                }
            } else {
                lv.append(contentsOf: repeatElement(1, count: n))
                reserveGrowing(&out, n)
                for i in start..<(start + n) { out.append(try convert(p[i])) }
            }
        }
    }

    /// Append levels and string values (feeding the dictionary while it lasts).
    private func appendStrings(_ s: StringArray, _ v: Vector, _ start: Int, _ n: Int, _ lv: inout [UInt8]) {
        var bytes = stringBytes; stringBytes = []
        var ends = stringEnds; stringEnds = []
        var dict = dictionary; dictionary = nil
        defer { stringBytes = bytes; stringEnds = ends; dictionary = dict }
        reserveGrowing(&ends, n)
        let validity = v.validity
        s.bytes.withUnsafeBufferPointer { b in
            s.offsets.withUnsafeBufferPointer { o in
                for i in 0..<n {
                    let j = v.isConstant ? 0 : start + i
                    if let validity, !validity.isValid(j) {
                        lv.append(0)
                        continue
                    }
                    lv.append(1)
                    let lo = Int(o[j]), hi = Int(o[j + 1])
                    let p = b.baseAddress.map { $0 + lo }
                    if hi > lo, let p { bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: hi - lo)) }
                    ends.append(bytes.count)
                    if dict != nil, !(dict?.insert(p, hi - lo) ?? false) {
                        dict = nil  // grew too large: this chunk is written PLAIN
                    }
                }
            }
        }
    }

    // MARK: - Flushing

    /// Write the buffered rows as one column chunk at the sink's current offset and
    /// return its metadata; the buffers are then emptied for the next row group.
    func flush(codec: ParquetCodec, checksums: Bool, to sink: OutputSink) throws -> ColumnChunk {
        var meta = ColumnMetaData()
        meta.type = layout.physical.rawValue
        meta.pathInSchema = [name]
        meta.codec = codec.rawValue
        meta.numValues = Int64(rows)
        meta.statistics = statistics()

        let useDictionary = (dictionary?.count ?? 0) > 0
        if let dictionary, useDictionary {
            meta.dictionaryPageOffset = sink.offset
            var body: [UInt8] = []
            body.reserveCapacity(dictionary.plainSize)
            let ends = dictionary.ends
            dictionary.bytes.withUnsafeBufferPointer { b in
                for i in 0..<dictionary.count {
                    let s = ends[i], e = ends[i + 1]
                    appendUInt32(UInt32(e - s), to: &body)
                    if e > s, let base = b.baseAddress { body.append(contentsOf: UnsafeBufferPointer(start: base + s, count: e - s)) }
                }
            }
            var header = PageHeader()
            header.type = PageType.dictionaryPage.rawValue
            header.dictionaryPage = DictionaryPageHeader(numValues: Int32(dictionary.count),
                                                         encoding: ParquetEncoding.plainDictionary.rawValue)
            let (c, u) = try writePage(header: header, body: body, codec: codec, checksum: checksums, sink: sink)
            meta.totalCompressedSize += c
            meta.totalUncompressedSize += u
            meta.encodings = [ParquetEncoding.plainDictionary.rawValue, ParquetEncoding.rle.rawValue]
        } else {
            meta.encodings = [ParquetEncoding.plain.rawValue, ParquetEncoding.rle.rawValue]
        }
        meta.dataPageOffset = sink.offset

        // Locals: class properties would pay an exclusivity check per access in the loops.
        let levels = self.levels
        let ends = self.stringEnds
        let indices = useDictionary ? (dictionary?.indices ?? []) : []
        let indexWidth = max(1, BitPacking.bitWidth(of: UInt64(max((dictionary?.count ?? 1) - 1, 0))))
        let fixedWidth: Int? = {
            switch layout.storage {
            case .int32, .float: return 4
            case .int64, .double: return 8
            case .wideDecimal(let n): return n
            case .boolean: return 1
            case .string: return useDictionary ? 2 : nil
            }
        }()
        var row = 0, value = 0
        var encodedLevels: [UInt8] = []
        while row < rows {
            // Choose the page's rows by the PLAIN size of their values.
            var rowEnd = row, valueEnd = value
            levels.withUnsafeBufferPointer { l in
                if let w = fixedWidth {
                    let limit = value + max(1, Self.pageBytes / w)
                    while rowEnd < rows && valueEnd < limit {
                        valueEnd &+= Int(l[rowEnd])
                        rowEnd += 1
                    }
                } else {
                    var size = 0
                    while rowEnd < rows && size < Self.pageBytes {
                        if l[rowEnd] != 0 {
                            size += 4 + ends[valueEnd + 1] - ends[valueEnd]
                            valueEnd += 1
                        }
                        rowEnd += 1
                    }
                }
            }
            // Definition levels: 4-byte length + RLE hybrid at bit width 1.
            encodedLevels.removeAll(keepingCapacity: true)
            levels.withUnsafeBufferPointer { l in
                RLEHybridEncoder.encode(UnsafeBufferPointer(rebasing: l[row..<rowEnd]), bitWidth: 1, into: &encodedLevels)
            }
            var body: [UInt8] = []
            body.reserveCapacity(4 + encodedLevels.count + plainSize(value..<valueEnd, dictionary: useDictionary))
            appendUInt32(UInt32(encodedLevels.count), to: &body)
            body.append(contentsOf: encodedLevels)
            if useDictionary {
                body.append(UInt8(indexWidth))
                indices.withUnsafeBufferPointer { ix in
                    RLEHybridEncoder.encode(UnsafeBufferPointer(rebasing: ix[value..<valueEnd]), bitWidth: indexWidth, into: &body)
                }
            } else {
                appendPlain(value..<valueEnd, to: &body)
            }
            var header = PageHeader()
            header.type = PageType.dataPage.rawValue
            header.dataPage = DataPageHeaderV1(
                numValues: Int32(rowEnd - row),
                encoding: useDictionary ? ParquetEncoding.plainDictionary.rawValue : ParquetEncoding.plain.rawValue,
                definitionLevelEncoding: ParquetEncoding.rle.rawValue,
                repetitionLevelEncoding: ParquetEncoding.rle.rawValue)
            let (c, u) = try writePage(header: header, body: body, codec: codec, checksum: checksums, sink: sink)
            meta.totalCompressedSize += c
            meta.totalUncompressedSize += u
            row = rowEnd
            value = valueEnd
        }
        reset()
        var chunk = ColumnChunk()
        chunk.fileOffset = 0
        chunk.metaData = meta
        return chunk
    }

    /// Compress and write one page; returns its compressed and uncompressed sizes
    /// including the header.
    private func writePage(header: PageHeader, body: [UInt8], codec: ParquetCodec, checksum: Bool, sink: OutputSink) throws -> (Int64, Int64) {
        let compressed = codec == .uncompressed ? body : try PageCompression.compress(codec, body)
        guard body.count <= Int(Int32.max), compressed.count <= Int(Int32.max) else {
            throw ParquetError.unsupported("a Parquet page over 2 GB")
        }
        var h = header
        h.uncompressedPageSize = Int32(body.count)
        h.compressedPageSize = Int32(compressed.count)
        if checksum { h.crc = Int32(bitPattern: compressed.withUnsafeBytes { PageCompression.crc32($0) }) }
        let headerBytes = h.serialized()
        try sink.write(headerBytes)
        try sink.write(compressed)
        return (Int64(headerBytes.count + compressed.count), Int64(headerBytes.count + body.count))
    }

    /// PLAIN size of the values in `range` (dictionary pages: an estimate).
    private func plainSize(_ range: Range<Int>, dictionary: Bool) -> Int {
        switch layout.storage {
        case .int32, .float: return range.count * 4
        case .int64, .double: return range.count * 8
        case .wideDecimal(let n): return range.count * n
        case .boolean: return (range.count + 7) / 8
        case .string:
            if dictionary { return range.count * 4 + 16 }
            return range.isEmpty ? 0 : 4 * range.count + stringEnds[range.upperBound] - stringEnds[range.lowerBound]
        }
    }

    /// PLAIN encoding of values in `range`.
    private func appendPlain(_ range: Range<Int>, to body: inout [UInt8]) {
        switch layout.storage {
        case .int32: int32s.withUnsafeBufferPointer { appendLittleEndian(UnsafeBufferPointer(rebasing: $0[range]), to: &body) }
        case .int64: int64s.withUnsafeBufferPointer { appendLittleEndian(UnsafeBufferPointer(rebasing: $0[range]), to: &body) }
        case .float: floats.withUnsafeBufferPointer { appendLittleEndian(UnsafeBufferPointer(rebasing: $0[range]), to: &body) }
        case .double: doubles.withUnsafeBufferPointer { appendLittleEndian(UnsafeBufferPointer(rebasing: $0[range]), to: &body) }
        case .wideDecimal(let n):
            let start = body.count
            body.append(contentsOf: repeatElement(0, count: range.count * n))
            wides.withUnsafeBufferPointer { w in
                body.withUnsafeMutableBufferPointer { out in
                    guard let o = out.baseAddress else { return }
                    var at = start
                    for i in range {
                        let u = UInt128(bitPattern: w[i])
                        for k in 0..<n { o[at + k] = UInt8(truncatingIfNeeded: u >> UInt128(8 * (n - 1 - k))) }
                        at += n
                    }
                }
            }
        case .boolean:
            bools.withUnsafeBufferPointer { b in
                BitPacking.pack(UnsafeBufferPointer(rebasing: b[range]).lazy.map { $0 ? UInt8(1) : 0 }, into: &body)
            }
        case .string:
            let start = body.count
            body.append(contentsOf: repeatElement(0, count: plainSize(range, dictionary: false)))
            stringBytes.withUnsafeBufferPointer { b in
                stringEnds.withUnsafeBufferPointer { e in
                    body.withUnsafeMutableBytes { out in
                        guard let o = out.baseAddress else { return }
                        var at = start
                        for i in range {
                            let s = e[i], len = e[i + 1] - s
                            o.storeBytes(of: UInt32(truncatingIfNeeded: len).littleEndian, toByteOffset: at, as: UInt32.self)
                            if len > 0, let base = b.baseAddress { (o + at + 4).copyMemory(from: base + s, byteCount: len) }
                            at += 4 + len
                        }
                    }
                }
            }
        }
    }

    private func reset() {
        rows = 0
        nullCount = 0
        levels.removeAll(keepingCapacity: true)
        int32s.removeAll(keepingCapacity: true)
        int64s.removeAll(keepingCapacity: true)
        wides.removeAll(keepingCapacity: true)
        floats.removeAll(keepingCapacity: true)
        doubles.removeAll(keepingCapacity: true)
        bools.removeAll(keepingCapacity: true)
        stringBytes.removeAll(keepingCapacity: true)
        stringEnds.removeAll(keepingCapacity: true)
        stringEnds.append(0)
        if case .string = layout.storage { dictionary = StringDictionary() }
    }
}
