// SPDX-License-Identifier: Apache-2.0
import CBzip2
import CZlib
import SlicehouseStorage
import SlicehouseTypes

/// A decompressor fed a compressed file piece by piece — an S3 object's ranges as they
/// arrive — that hands its output on as it is produced, so that neither the compressed
/// file nor its inflated bytes are ever held whole. It accepts what the whole-buffer
/// codecs accept (`GzipCodec`, `Bzip2Codec`, `ZstdCodec.decompressStream`):
/// concatenated members or streams or frames, and zero padding after the last gzip member
/// or bzip2 stream; corrupt or truncated input throws `InflateError`, never crashes.
protocol StreamInflater: AnyObject {
    /// Decompress the next bytes of the file; `emit` gets the output in pieces, each valid
    /// only during its call.
    func feed(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws
    /// The file ended: throws when it ended inside a member, stream or frame.
    func finish() throws
}

/// Why compressed input could not be decoded (the caller adds the file's name).
struct InflateError: Error, Equatable {
    var message: String
}

enum StreamInflaters {
    /// The inflater for `compression`, or nil for none (LZOP is refused before this).
    static func make(_ compression: CopyOptions.Compression) throws -> (any StreamInflater)? {
        switch compression {
        case .none, .lzop: return nil
        case .gzip: return try GzipStreamInflater()
        case .bzip2: return try Bzip2StreamInflater()
        case .zstd: return try ZstdStreamInflater()
        }
    }

    /// How the load error names a file that does not decode, as for local files.
    static func error(_ compression: CopyOptions.Compression, path: String, _ message: String) -> SQLError {
        switch compression {
        case .gzip: return SQLError(.loadError, "invalid or truncated gzip data in file '\(path)': \(message)")
        case .bzip2: return SQLError(.loadError, "invalid or truncated bzip2 data in file '\(path)': \(message)")
        default: return SQLError(.loadError, "Cannot decompress ZSTD file '\(path)': \(message)")
        }
    }

    /// Output space each call of the C decoders fills.
    static let outputBytes = 1 << 20
}

/// Between members a gzip file may hold only zero padding, and only after its first member.
final class GzipStreamInflater: StreamInflater {
    private let strm: UnsafeMutablePointer<z_stream>
    private let out: UnsafeMutableRawBufferPointer
    /// Some bytes of the current member were fed and its end not reached.
    private var inMember = false
    private var members = 0
    /// Zero bytes followed the last member: only more zeros may come.
    private var padding = false

    init() throws(InflateError) {
        strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        out = UnsafeMutableRawBufferPointer.allocate(byteCount: StreamInflaters.outputBytes, alignment: 16)
        let rc = inflateInit2_(strm, GzipCodec.gzipWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else {
            strm.deinitialize(count: 1); strm.deallocate(); out.deallocate()
            throw InflateError(message: "zlib initialisation failed (\(rc))")
        }
    }

    deinit {
        inflateEnd(strm)
        strm.deinitialize(count: 1)
        strm.deallocate()
        out.deallocate()
    }

    func feed(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress else { return }
        var offset = 0
        while offset < input.count {
            if !inMember {
                if members > 0 {
                    // After a member: zero padding to the end, or the next member.
                    while offset < input.count && input[offset] == 0 { offset += 1; padding = true }
                    if offset == input.count { return }
                    if padding { throw InflateError(message: "incorrect header check (data after the zero padding)") }
                    guard inflateReset(strm) == Z_OK else { throw InflateError(message: GzipCodec.zlibMessage(strm, Z_STREAM_ERROR)) }
                }
                inMember = true
            }
            let step = min(input.count - offset, GzipCodec.maxStep)
            strm.pointee.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: UInt8.self))
            strm.pointee.avail_in = uInt(step)
            while true {
                strm.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                strm.pointee.avail_out = uInt(out.count)
                let r = inflate(strm, Z_NO_FLUSH)
                let produced = out.count - Int(strm.pointee.avail_out)
                if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: out[0..<produced])) }
                if r == Z_STREAM_END {
                    members += 1
                    inMember = false
                    break
                }
                if r == Z_OK || r == Z_BUF_ERROR {
                    if strm.pointee.avail_out == 0 { continue }   // more output to come
                    if strm.pointee.avail_in == 0 { break }       // wants the next bytes
                    if r == Z_OK { continue }
                }
                throw InflateError(message: GzipCodec.zlibMessage(strm, r))
            }
            offset += step - Int(strm.pointee.avail_in)
        }
    }

    func finish() throws {
        if inMember {
            throw InflateError(message: "unexpected end of data (truncated file) after \(members) complete member(s)")
        }
    }
}

/// bzip2 streams one after another, as pbzip2 writes them; zero padding after the last.
final class Bzip2StreamInflater: StreamInflater {
    private let strm: UnsafeMutablePointer<bz_stream>
    private let out: UnsafeMutableRawBufferPointer
    /// A stream's state is initialised (between `BZ2_bzDecompressInit` and its end).
    private var open = false
    private var inStream = false
    private var streams = 0
    private var padding = false

    init() throws(InflateError) {
        strm = UnsafeMutablePointer<bz_stream>.allocate(capacity: 1)
        strm.initialize(to: bz_stream())
        out = UnsafeMutableRawBufferPointer.allocate(byteCount: StreamInflaters.outputBytes, alignment: 16)
    }

    deinit {
        if open { BZ2_bzDecompressEnd(strm) }
        strm.deinitialize(count: 1)
        strm.deallocate()
        out.deallocate()
    }

    func feed(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress else { return }
        var offset = 0
        while offset < input.count {
            if !inStream {
                if streams > 0 {
                    while offset < input.count && input[offset] == 0 { offset += 1; padding = true }
                    if offset == input.count { return }
                    if padding { throw InflateError(message: Bzip2Codec.message(BZ_DATA_ERROR_MAGIC)) }
                }
                if open { BZ2_bzDecompressEnd(strm); open = false }
                strm.pointee = bz_stream()
                let rc = BZ2_bzDecompressInit(strm, 0, 0)
                guard rc == BZ_OK else { throw InflateError(message: Bzip2Codec.message(rc)) }
                open = true
                inStream = true
            }
            let step = min(input.count - offset, Bzip2Codec.maxStep)
            strm.pointee.next_in = UnsafeMutableRawPointer(mutating: base + offset).assumingMemoryBound(to: CChar.self)
            strm.pointee.avail_in = UInt32(step)
            while true {
                strm.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: CChar.self)
                strm.pointee.avail_out = UInt32(out.count)
                let r = BZ2_bzDecompress(strm)
                let produced = out.count - Int(strm.pointee.avail_out)
                if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: out[0..<produced])) }
                if r == BZ_STREAM_END {
                    streams += 1
                    inStream = false
                    break
                }
                guard r == BZ_OK else { throw InflateError(message: Bzip2Codec.message(r)) }
                if strm.pointee.avail_out == 0 { continue }
                if strm.pointee.avail_in == 0 { break }
                if produced == 0 { throw InflateError(message: "no progress possible (corrupt data)") }
            }
            offset += step - Int(strm.pointee.avail_in)
        }
    }

    func finish() throws {
        if inStream {
            throw InflateError(message: "unexpected end of data (truncated file) after \(streams) complete stream(s)")
        }
    }
}

final class ZstdStreamInflater: StreamInflater {
    private let decoder: ZstdCodec.StreamDecoder

    init() throws { decoder = try ZstdCodec.StreamDecoder() }

    func feed(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        do {
            try decoder.feed(input, emit: emit)
        } catch let e as SQLError where e.code == .ioError {
            throw InflateError(message: e.message)
        }
    }

    func finish() throws {
        do {
            try decoder.finish()
        } catch let e as SQLError {
            throw InflateError(message: e.message)
        }
    }
}
