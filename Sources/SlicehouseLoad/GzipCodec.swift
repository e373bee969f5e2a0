// SPDX-License-Identifier: Apache-2.0
import CZlib
import SlicehouseTypes

/// gzip (RFC 1952) through the system zlib: decompression of COPY input files and
/// compression (tests, and later UNLOAD ... GZIP).
///
/// Decompression accepts multi-member files (members are concatenated, as `cat a.gz
/// b.gz` or parallel gzip tools produce) and ignores trailing zero padding. Corrupt or
/// truncated input — anywhere, including a damaged trailer CRC or length — is a
/// `GzipError`, never a crash. Output grows by doubling, so memory stays within twice
/// the decompressed size.
enum GzipCodec {
    /// Why gzip data could not be decoded (the caller adds the file name).
    struct GzipError: Error, Equatable {
        var message: String
    }

    /// `avail_in` / `avail_out` are 32-bit: feed zlib at most this much at a time.
    static let maxStep = 1 << 30

    /// The gzip `windowBits` for zlib: 15-bit window, gzip wrapper only.
    static let gzipWindowBits: Int32 = 15 + 16

    /// Decompress all members of a gzip file into an owned buffer.
    /// An empty input decodes to nothing (an empty file holds no rows).
    /// With a `drain`, the output is handed to it whenever it reaches `drain.threshold`
    /// bytes, and only what comes after the last hand-over is returned.
    static func decompress(_ input: UnsafeBufferPointer<UInt8>,
                           drain: InflateDrain? = nil) throws(GzipError) -> GrowableBuffer<UInt8> {
        var out = GrowableBuffer<UInt8>(capacity: drain.map { min(initialCapacity(input), $0.threshold + (1 << 16)) }
                                            ?? initialCapacity(input))
        guard let inBase = input.baseAddress, !input.isEmpty else { return out }
        let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        defer { strm.deinitialize(count: 1); strm.deallocate() }

        let rc = inflateInit2_(strm, gzipWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw GzipError(message: "zlib initialisation failed (\(rc))") }
        defer { inflateEnd(strm) }

        let n = input.count
        var fed = 0          // input bytes handed to zlib so far
        var members = 0
        while true {
            // Inflate one member.
            while true {
                if strm.pointee.avail_in == 0 && fed < n {
                    let step = min(n - fed, maxStep)
                    strm.pointee.next_in = UnsafeMutablePointer(mutating: inBase + fed)
                    strm.pointee.avail_in = uInt(step)
                    fed += step
                }
                if out.freeCapacity < 4096 { _ = out.reserveFree(max(out.count, 1 << 16)) }
                let dst = out.reserveFree(0)
                let room = min(out.freeCapacity, maxStep)
                strm.pointee.next_out = dst
                strm.pointee.avail_out = uInt(room)
                let r = inflate(strm, Z_NO_FLUSH)
                out.commit(room - Int(strm.pointee.avail_out))
                if let drain, out.count >= drain.threshold {
                    guard drain.take(UnsafeBufferPointer(start: out.base, count: out.count)) else {
                        throw GzipError(message: "could not write the inflated data to a temporary file")
                    }
                    out.removeAll()
                }
                if r == Z_STREAM_END { break }
                if r == Z_OK { continue }
                if r == Z_BUF_ERROR {
                    // No progress possible: out of input (truncated) unless output space ran out.
                    if strm.pointee.avail_out == 0 { continue }
                    if strm.pointee.avail_in == 0 && fed == n {
                        throw GzipError(message: "unexpected end of data (truncated file) after \(members) complete member(s)")
                    }
                }
                throw GzipError(message: zlibMessage(strm, r))
            }
            members += 1
            // Another member follows, or only zero padding, or the end.
            let consumed = fed - Int(strm.pointee.avail_in)
            if consumed >= n { break }
            var allZero = true
            for i in consumed..<n where inBase[i] != 0 { allZero = false; break }
            if allZero { break }
            let r = inflateReset(strm)
            guard r == Z_OK else { throw GzipError(message: zlibMessage(strm, r)) }
        }
        return out
    }

    /// A first output size: the last member's ISIZE trailer when it is plausible (exact
    /// for single-member files under 4 GB), else four times the input.
    static func initialCapacity(_ input: UnsafeBufferPointer<UInt8>) -> Int {
        let n = input.count
        var guess = n * 4
        if n >= 18 {
            let isize = Int(input[n - 4]) | Int(input[n - 3]) << 8 | Int(input[n - 2]) << 16 | Int(input[n - 1]) << 24
            // deflate cannot expand more than ~1032:1.
            if isize >= n / 2 && isize <= n * 1032 { guess = isize + 1 }
        }
        return min(max(guess, 1 << 12), 1 << 30)
    }

    static func zlibMessage(_ strm: UnsafeMutablePointer<z_stream>, _ code: Int32) -> String {
        if let msg = strm.pointee.msg { return String(cString: msg) }
        switch code {
        case Z_DATA_ERROR: return "corrupt data"
        case Z_MEM_ERROR: return "out of memory"
        case Z_NEED_DICT: return "a preset dictionary is required"
        case Z_BUF_ERROR: return "no progress possible"
        default: return "zlib error \(code)"
        }
    }

    /// Compress `bytes` as one gzip member (`level` 1...9, clamped).
    static func compress(_ bytes: [UInt8], level: Int = 6) throws(GzipError) -> [UInt8] {
        let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        defer { strm.deinitialize(count: 1); strm.deallocate() }
        let lvl = Int32(min(max(level, 1), 9))
        let rc = deflateInit2_(strm, lvl, Z_DEFLATED, gzipWindowBits, 8, Z_DEFAULT_STRATEGY,
                               zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw GzipError(message: "zlib initialisation failed (\(rc))") }
        defer { deflateEnd(strm) }

        var out = GrowableBuffer<UInt8>(capacity: bytes.count / 2 + 64)
        try bytes.withUnsafeBufferPointer { (src: UnsafeBufferPointer<UInt8>) throws(GzipError) in
            var fed = 0
            while true {
                if strm.pointee.avail_in == 0 && fed < src.count, let b = src.baseAddress {
                    let step = min(src.count - fed, maxStep)
                    strm.pointee.next_in = UnsafeMutablePointer(mutating: b + fed)
                    strm.pointee.avail_in = uInt(step)
                    fed += step
                }
                let dst = out.reserveFree(1 << 16)
                let room = min(out.freeCapacity, maxStep)
                strm.pointee.next_out = dst
                strm.pointee.avail_out = uInt(room)
                let flush = fed == src.count ? Z_FINISH : Z_NO_FLUSH
                let r = deflate(strm, flush)
                out.commit(room - Int(strm.pointee.avail_out))
                if r == Z_STREAM_END { break }
                guard r == Z_OK || r == Z_BUF_ERROR else { throw GzipError(message: zlibMessage(strm, r)) }
            }
        }
        return out.toArray()
    }
}
