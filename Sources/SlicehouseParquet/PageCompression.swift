// SPDX-License-Identifier: Apache-2.0
import CSnappy
import CZlib
import CZstd

/// Page bodies are compressed one page at a time with the column chunk's codec.
/// Snappy uses the raw (unframed) format; GZIP pages are gzip members (zlib streams are
/// accepted too); ZSTD pages are one or more zstd frames. The uncompressed size is in the
/// page header, so every codec decompresses into a buffer of exactly that size and a
/// mismatch is an error.
///
/// The C libraries check their input: corrupt data yields an error code, never a read
/// or write outside the buffers given to them.
enum PageCompression {
    /// Decompress `src` into `dst`, which must come out exactly full.
    static func decompress(_ codec: ParquetCodec, _ src: UnsafeRawBufferPointer,
                           into dst: UnsafeMutableRawBufferPointer) throws {
        switch codec {
        case .uncompressed:
            guard src.count == dst.count else {
                throw ParquetError.corrupt("uncompressed page of \(src.count) bytes claims \(dst.count)")
            }
            if let s = src.baseAddress, let d = dst.baseAddress, src.count > 0 { d.copyMemory(from: s, byteCount: src.count) }
        case .snappy:
            try snappyDecompress(src, into: dst)
        case .gzip:
            try inflate(src, into: dst)
        case .zstd:
            try zstdDecompress(src, into: dst)
        case .lzo, .brotli, .lz4, .lz4Raw:
            throw ParquetError.unsupported("\(codec) compression (Parquet files with SNAPPY, GZIP, ZSTD or no compression can be read)")
        }
    }

    /// Reject a page whose claimed uncompressed size cannot come from its compressed
    /// bytes, so that a forged size does not make the reader allocate for it.
    static func checkPlausible(_ codec: ParquetCodec, _ src: UnsafeRawBufferPointer, size: Int) throws {
        switch codec {
        case .snappy:
            // The raw snappy format starts with the uncompressed length.
            guard let s = src.baseAddress?.assumingMemoryBound(to: CChar.self), src.count > 0 else {
                throw ParquetError.corrupt("empty snappy page")
            }
            var length = 0
            guard snappy_uncompressed_length(s, src.count, &length) == SNAPPY_OK, length == size else {
                throw ParquetError.corrupt("snappy page does not hold the \(size) bytes its header says")
            }
        case .gzip:
            // deflate expands at most about 1032:1.
            guard size <= src.count * 1032 + 1024 else {
                throw ParquetError.corrupt("gzip page of \(src.count) bytes cannot hold \(size) bytes")
            }
        case .zstd:
            let claimed = ZSTD_getFrameContentSize(src.baseAddress, src.count)
            // Unknown (UInt64.max) and error (UInt64.max - 1) are left to decompression.
            if claimed < UInt64.max - 1, claimed > UInt64(size) {
                throw ParquetError.corrupt("zstd page holds more than the \(size) bytes its header says")
            }
            if claimed == UInt64.max - 1 { throw ParquetError.corrupt("zstd page is not a zstd frame") }
        default:
            return
        }
    }

    private static func snappyDecompress(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawBufferPointer) throws {
        guard let s = src.baseAddress?.assumingMemoryBound(to: CChar.self), src.count > 0 else {
            throw ParquetError.corrupt("empty snappy page")
        }
        var length = 0
        guard snappy_uncompressed_length(s, src.count, &length) == SNAPPY_OK else {
            throw ParquetError.corrupt("snappy page has a bad length header")
        }
        guard length == dst.count else {
            throw ParquetError.corrupt("snappy page holds \(length) bytes, its header says \(dst.count)")
        }
        if length == 0 { return }
        guard let d = dst.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
        var outLength = length
        let status = snappy_uncompress(s, src.count, d, &outLength)
        guard status == SNAPPY_OK, outLength == length else {
            throw ParquetError.corrupt("snappy page does not decompress (status \(status.rawValue))")
        }
    }

    private static func zstdDecompress(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawBufferPointer) throws {
        guard src.count > 0 else { throw ParquetError.corrupt("empty zstd page") }
        // One spare byte so a zero-size page still has a destination pointer.
        var spare: UInt8 = 0
        let got: Int = withUnsafeMutablePointer(to: &spare) { sp in
            let d = dst.baseAddress ?? UnsafeMutableRawPointer(sp)
            return ZSTD_decompress(d, dst.count, src.baseAddress, src.count)
        }
        if ZSTD_isError(got) != 0 {
            let name = ZSTD_getErrorName(got).map { String(cString: $0) } ?? "error \(got)"
            throw ParquetError.corrupt("zstd page does not decompress (\(name))")
        }
        guard got == dst.count else {
            throw ParquetError.corrupt("zstd page holds \(got) bytes, its header says \(dst.count)")
        }
    }

    /// gzip (or zlib) inflate; concatenated members are accepted.
    ///
    /// The `z_stream` lives on the heap: zlib records its address and rejects calls made
    /// with a moved copy.
    private static func inflate(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawBufferPointer) throws {
        guard let inBase = src.baseAddress, src.count > 0 else { throw ParquetError.corrupt("empty gzip page") }
        guard src.count <= Int(UInt32.max), dst.count <= Int(UInt32.max) else {
            throw ParquetError.corrupt("gzip page too large")
        }
        let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        defer { strm.deinitialize(count: 1); strm.deallocate() }
        // 15-bit window; +32 detects a gzip or zlib header automatically.
        guard inflateInit2_(strm, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ParquetError("zlib initialisation failed")
        }
        defer { inflateEnd(strm) }
        let spare = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { spare.deallocate() }
        strm.pointee.next_in = UnsafeMutablePointer(mutating: inBase.assumingMemoryBound(to: UInt8.self))
        strm.pointee.avail_in = uInt(src.count)
        strm.pointee.next_out = dst.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? spare
        strm.pointee.avail_out = uInt(dst.count)
        while true {
            let r = CZlib.inflate(strm, Z_NO_FLUSH)
            if r == Z_STREAM_END {
                // Another member may follow (only zero padding is ignored).
                if strm.pointee.avail_in == 0 || strm.pointee.avail_out == 0 { break }
                let consumed = src.count - Int(strm.pointee.avail_in)
                var allZero = true
                for i in consumed..<src.count where src[i] != 0 { allZero = false; break }
                if allZero { break }
                guard inflateReset(strm) == Z_OK else { throw ParquetError.corrupt("gzip page: bad member") }
                continue
            }
            if r == Z_OK { continue }
            if r == Z_BUF_ERROR {
                if strm.pointee.avail_out == 0 {
                    throw ParquetError.corrupt("gzip page decompresses to more than its header says (\(dst.count) bytes)")
                }
                throw ParquetError.corrupt("gzip page is truncated")
            }
            let msg = strm.pointee.msg.map { String(cString: $0) } ?? "zlib error \(r)"
            throw ParquetError.corrupt("gzip page does not decompress (\(msg))")
        }
        let produced = dst.count - Int(strm.pointee.avail_out)
        guard produced == dst.count else {
            throw ParquetError.corrupt("gzip page holds \(produced) bytes, its header says \(dst.count)")
        }
    }

    /// CRC-32 (the gzip polynomial) of a page as stored, which the optional `crc` field
    /// of a page header covers.
    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        return UInt32(truncatingIfNeeded: CZlib.crc32(0, base.assumingMemoryBound(to: UInt8.self), uInt(bytes.count)))
    }

    // MARK: - Compression (writer)

    /// `src` compressed with `codec`.
    static func compress(_ codec: ParquetCodec, _ src: [UInt8]) throws -> [UInt8] {
        switch codec {
        case .uncompressed:
            return src
        case .snappy:
            let bound = snappy_max_compressed_length(src.count)
            var status = SNAPPY_OK
            let out = [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buf, count in
                count = 0
                guard let dst = buf.baseAddress else { status = SNAPPY_BUFFER_TOO_SMALL; return }
                var length = bound
                src.withUnsafeBufferPointer { s in
                    // snappy wants a non-NULL input pointer even for zero bytes.
                    let input = UnsafeRawPointer(s.baseAddress ?? UnsafePointer(dst))
                    status = snappy_compress(input.assumingMemoryBound(to: CChar.self), src.count,
                                             UnsafeMutableRawPointer(dst).assumingMemoryBound(to: CChar.self), &length)
                }
                if status == SNAPPY_OK { count = length }
            }
            guard status == SNAPPY_OK else { throw ParquetError("snappy compression failed", code: .ioError) }
            return out
        case .zstd:
            let bound = ZSTD_compressBound(src.count)
            var written = 0
            let out = [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buf, count in
                written = src.withUnsafeBytes { s in
                    ZSTD_compress(buf.baseAddress, bound, s.baseAddress, s.count, 3)
                }
                count = ZSTD_isError(written) == 0 ? written : 0
            }
            guard ZSTD_isError(written) == 0 else { throw ParquetError("zstd compression failed", code: .ioError) }
            return out
        case .gzip:
            var out: [UInt8] = []
            try deflateGzip(src, into: &out)
            return out
        case .lzo, .brotli, .lz4, .lz4Raw:
            throw ParquetError.unsupported("writing \(codec) compression")
        }
    }

    private static func deflateGzip(_ src: [UInt8], into out: inout [UInt8]) throws {
        let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        defer { strm.deinitialize(count: 1); strm.deallocate() }
        guard deflateInit2_(strm, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ParquetError("zlib initialisation failed", code: .ioError)
        }
        defer { deflateEnd(strm) }
        let bound = Int(deflateBound(strm, uLong(src.count))) + 64
        var buffer = [UInt8](filled: 0, count: bound)
        let input = src.isEmpty ? [0] : src
        let result: Int32 = buffer.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { s in
                strm.pointee.next_in = UnsafeMutablePointer(mutating: s.baseAddress)
                strm.pointee.avail_in = uInt(src.count)
                strm.pointee.next_out = o.baseAddress
                strm.pointee.avail_out = uInt(bound)
                return CZlib.deflate(strm, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw ParquetError("gzip compression failed (\(result))", code: .ioError) }
        out.append(contentsOf: buffer[0..<(bound - Int(strm.pointee.avail_out))])
    }
}
