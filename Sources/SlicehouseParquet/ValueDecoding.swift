// SPDX-License-Identifier: Apache-2.0
/// Undoing the value encodings of data and dictionary pages (everything except
/// dictionary indices, which `ColumnDecoder` resolves against its dictionary).
///
/// - **PLAIN**: fixed-width values back to back, little-endian (INT96 is 12 bytes);
///   BOOLEAN bit-packed LSB first; BYTE_ARRAY a 4-byte little-endian length before each
///   value; FIXED_LEN_BYTE_ARRAY just the bytes.
/// - **RLE** (BOOLEAN only): a 4-byte length, then the RLE/bit-packed hybrid at width 1.
/// - **DELTA_BINARY_PACKED**, **DELTA_LENGTH_BYTE_ARRAY**, **DELTA_BYTE_ARRAY**: see
///   `DeltaDecoding`.
/// - **BYTE_STREAM_SPLIT**: for K-byte values, byte k of every value is stored in stream
///   k, and the K streams follow each other; decoding gathers them back.
enum ValueDecoding {
    /// Decode `count` non-NULL values of a page section.
    static func decode(_ data: UnsafeRawBufferPointer, encoding raw: Int32, physical: ParquetPhysicalType,
                       typeLength: Int, count: Int, scratch: DecodeScratch) throws -> PhysicalValues {
        guard let encoding = ParquetEncoding(rawValue: raw) else {
            throw ParquetError.unsupported("value encoding #\(raw)")
        }
        switch (encoding, physical) {
        case (.plain, _):
            return try plain(data, physical: physical, typeLength: typeLength, count: count, scratch: scratch)
        case (.rle, .boolean):
            var c = ByteCursor(data)
            let length = Int(try c.readUInt32LE())
            let body = try c.take(length)
            let wide = scratch.indices.reserve(max(count, 1), of: UInt32.self)
            var rle = try RLEHybridDecoder(body, bitWidth: 1)
            try rle.decode(into: wide, count: count)
            let bytes = scratch.values.reserve(max(count, 1), of: UInt8.self)
            for i in 0..<count { bytes[i] = UInt8(truncatingIfNeeded: wide[i]) }
            return .booleans(UnsafePointer(bytes), count: count)
        case (.deltaBinaryPacked, .int32), (.deltaBinaryPacked, .int64):
            let width = physical == .int32 ? 4 : 8
            let out = scratch.values.reserve(max(count, 1) * width)
            _ = try DeltaDecoding.decodeBinaryPacked(data, count: count, width: width, into: out, scratch: scratch.miniblock)
            return .fixed(UnsafeRawPointer(out), count: count, width: width)
        case (.deltaLengthByteArray, .byteArray):
            return try deltaLength(data, count: count, scratch: scratch)
        case (.deltaByteArray, .byteArray), (.deltaByteArray, .fixedLenByteArray):
            return try deltaStrings(data, count: count, scratch: scratch)
        case (.byteStreamSplit, .float), (.byteStreamSplit, .double), (.byteStreamSplit, .int32),
             (.byteStreamSplit, .int64), (.byteStreamSplit, .fixedLenByteArray):
            return try byteStreamSplit(data, physical: physical, typeLength: typeLength, count: count, scratch: scratch)
        default:
            throw ParquetError.unsupported("\(encoding) encoding of \(physical) values")
        }
    }

    /// Byte width of a fixed-width physical type (nil for byte arrays and booleans).
    static func fixedWidth(_ physical: ParquetPhysicalType) -> Int? {
        switch physical {
        case .int32, .float: return 4
        case .int64, .double: return 8
        case .int96: return 12
        default: return nil
        }
    }

    static func plain(_ data: UnsafeRawBufferPointer, physical: ParquetPhysicalType, typeLength: Int,
                      count: Int, scratch: DecodeScratch) throws -> PhysicalValues {
        switch physical {
        case .boolean:
            guard count <= data.count * 8 else { throw ParquetError.corrupt("PLAIN booleans end early") }
            let out = scratch.values.reserve(max(count, 1), of: UInt8.self)
            if let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                for i in 0..<count { out[i] = (base[i >> 3] >> UInt8(i & 7)) & 1 }
            }
            return .booleans(UnsafePointer(out), count: count)
        case .int32, .int64, .float, .double, .int96:
            let width = fixedWidth(physical) ?? 4
            guard count <= data.count / width else {
                throw ParquetError.corrupt("page holds \(data.count / width) \(physical) values where \(count) were expected")
            }
            return .fixed(data.baseAddress ?? UnsafeRawPointer(scratch.values.pointer), count: count, width: width)
        case .byteArray:
            // Every value has at least its 4-byte length: check before allocating.
            guard count <= data.count / 4 else {
                throw ParquetError.corrupt("page holds fewer than \(count) byte arrays")
            }
            let spans = scratch.spans.reserve(max(count, 1) * 2, of: Int.self)
            var c = ByteCursor(data)
            for i in 0..<count {
                let length = Int(try c.readUInt32LE())
                guard length <= c.remaining else {
                    throw ParquetError.corrupt("byte array of \(length) bytes runs past the end of its page")
                }
                spans[2 * i] = c.position
                spans[2 * i + 1] = length
                c.position += length
            }
            return .binary(base: data.baseAddress ?? UnsafeRawPointer(scratch.values.pointer), spans: UnsafePointer(spans), count: count)
        case .fixedLenByteArray:
            guard typeLength > 0 else { throw ParquetError.corrupt("FIXED_LEN_BYTE_ARRAY column without a length") }
            guard count <= data.count / typeLength else {
                throw ParquetError.corrupt("page holds \(data.count / typeLength) fixed-length values where \(count) were expected")
            }
            let spans = scratch.spans.reserve(max(count, 1) * 2, of: Int.self)
            for i in 0..<count {
                spans[2 * i] = i * typeLength
                spans[2 * i + 1] = typeLength
            }
            return .binary(base: data.baseAddress ?? UnsafeRawPointer(scratch.values.pointer), spans: UnsafePointer(spans), count: count)
        }
    }

    static func deltaLength(_ data: UnsafeRawBufferPointer, count: Int, scratch: DecodeScratch) throws -> PhysicalValues {
        let lengths = scratch.lengths.reserve(max(count, 1), of: Int64.self)
        let (consumed, sum) = try DeltaDecoding.decodeLengths(data, count: count, limit: data.count,
                                                              into: lengths, scratch: scratch.miniblock)
        guard sum <= data.count - consumed else {
            throw ParquetError.corrupt("DELTA_LENGTH_BYTE_ARRAY data ends early")
        }
        let spans = scratch.spans.reserve(max(count, 1) * 2, of: Int.self)
        var offset = consumed
        for i in 0..<count {
            spans[2 * i] = offset
            spans[2 * i + 1] = Int(lengths[i])
            offset += Int(lengths[i])
        }
        return .binary(base: data.baseAddress ?? UnsafeRawPointer(scratch.values.pointer), spans: UnsafePointer(spans), count: count)
    }

    /// DELTA_BYTE_ARRAY: rebuild every value from the previous one's prefix and its suffix.
    static func deltaStrings(_ data: UnsafeRawBufferPointer, count: Int, scratch: DecodeScratch) throws -> PhysicalValues {
        let prefixes = scratch.prefixes.reserve(max(count, 1), of: Int64.self)
        let prefixBytes = try DeltaDecoding.decodeBinaryPacked(data, count: count, width: 8,
                                                              into: UnsafeMutableRawPointer(prefixes), scratch: scratch.miniblock)
        let rest = UnsafeRawBufferPointer(rebasing: data[prefixBytes...])
        let lengths = scratch.lengths.reserve(max(count, 1), of: Int64.self)
        let (consumed, suffixSum) = try DeltaDecoding.decodeLengths(rest, count: count, limit: rest.count,
                                                                    into: lengths, scratch: scratch.miniblock)
        guard suffixSum <= rest.count - consumed else { throw ParquetError.corrupt("DELTA_BYTE_ARRAY suffixes end early") }
        // Sizes first, so the output buffer is allocated once.
        var total = 0
        var previous = 0
        for i in 0..<count {
            let p = prefixes[i]
            guard p >= 0, p <= Int64(previous) else {
                throw ParquetError.corrupt("DELTA_BYTE_ARRAY prefix \(p) longer than the previous value")
            }
            previous = Int(p) + Int(lengths[i])
            total += previous
            guard total <= maxPageBytes else { throw ParquetError.corrupt("DELTA_BYTE_ARRAY values larger than \(maxPageBytes) bytes") }
        }
        let out = scratch.bytes.reserve(max(total, 1), of: UInt8.self)
        let spans = scratch.spans.reserve(max(count, 1) * 2, of: Int.self)
        var suffix = consumed
        var offset = 0
        var previousStart = 0
        for i in 0..<count {
            let p = Int(prefixes[i]), s = Int(lengths[i])
            if p > 0 { (out + offset).update(from: out + previousStart, count: p) }
            if s > 0, let src = rest.baseAddress {
                UnsafeMutableRawPointer(out + offset + p).copyMemory(from: src + suffix, byteCount: s)
            }
            spans[2 * i] = offset
            spans[2 * i + 1] = p + s
            previousStart = offset
            offset += p + s
            suffix += s
        }
        return .binary(base: UnsafeRawPointer(out), spans: UnsafePointer(spans), count: count)
    }

    static func byteStreamSplit(_ data: UnsafeRawBufferPointer, physical: ParquetPhysicalType, typeLength: Int,
                                count: Int, scratch: DecodeScratch) throws -> PhysicalValues {
        let width = physical == .fixedLenByteArray ? typeLength : (fixedWidth(physical) ?? 4)
        guard width > 0, count <= data.count / width else {
            throw ParquetError.corrupt("BYTE_STREAM_SPLIT page holds fewer than \(count) values")
        }
        let out = scratch.bytes.reserve(max(count * width, 1), of: UInt8.self)
        if let src = data.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            // Stream k holds byte k of every value: `count` bytes starting at k * count.
            for k in 0..<width {
                let stream = src + k * count
                for i in 0..<count { out[i * width + k] = stream[i] }
            }
        }
        if physical == .fixedLenByteArray {
            let spans = scratch.spans.reserve(max(count, 1) * 2, of: Int.self)
            for i in 0..<count {
                spans[2 * i] = i * width
                spans[2 * i + 1] = width
            }
            return .binary(base: UnsafeRawPointer(out), spans: UnsafePointer(spans), count: count)
        }
        return .fixed(UnsafeRawPointer(out), count: count, width: width)
    }
}
