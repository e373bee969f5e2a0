// SPDX-License-Identifier: Apache-2.0
import CBzip2
import SlicehouseTypes

/// bzip2 through the system libbz2: decompression of COPY input files and
/// compression (tests, and later UNLOAD ... BZIP2).
///
/// Decompression accepts multi-stream files (concatenated `.bz2` streams, as `pbzip2`
/// writes them) and ignores trailing zero padding. Corrupt or truncated input is a
/// `Bzip2Error`, never a crash. Output grows by doubling, so memory stays within twice
/// the decompressed size.
enum Bzip2Codec {
    /// Why bzip2 data could not be decoded (the caller adds the file name).
    struct Bzip2Error: Error, Equatable {
        var message: String
    }

    /// `avail_in` / `avail_out` are 32-bit: feed libbz2 at most this much at a time.
    static let maxStep = 1 << 30

    /// Decompress all streams of a bzip2 file into an owned buffer.
    /// An empty input decodes to nothing (an empty file holds no rows).
    /// With a `drain`, the output is handed to it whenever it reaches `drain.threshold`
    /// bytes, and only what comes after the last hand-over is returned.
    static func decompress(_ input: UnsafeBufferPointer<UInt8>,
                           drain: InflateDrain? = nil) throws(Bzip2Error) -> GrowableBuffer<UInt8> {
        var out = GrowableBuffer<UInt8>(capacity: min(max(input.count * 5, 1 << 12), drain.map { $0.threshold + (1 << 16) } ?? (1 << 30)))
        guard let inBase = input.baseAddress, !input.isEmpty else { return out }
        let strm = UnsafeMutablePointer<bz_stream>.allocate(capacity: 1)
        strm.initialize(to: bz_stream())
        defer { strm.deinitialize(count: 1); strm.deallocate() }

        let n = input.count
        var fed = 0
        var streams = 0
        var rest: (next: UnsafeMutablePointer<CChar>?, count: UInt32)? = nil
        while true {
            // A fresh stream state; input left over from the previous stream carries on.
            strm.pointee = bz_stream()
            if let rest {
                strm.pointee.next_in = rest.next
                strm.pointee.avail_in = rest.count
            }
            let rc = BZ2_bzDecompressInit(strm, 0, 0)
            guard rc == BZ_OK else { throw Bzip2Error(message: message(rc)) }
            defer { BZ2_bzDecompressEnd(strm) }
            // Decompress one stream.
            while true {
                if strm.pointee.avail_in == 0 && fed < n {
                    let step = min(n - fed, maxStep)
                    strm.pointee.next_in = UnsafeMutableRawPointer(mutating: inBase + fed)
                        .assumingMemoryBound(to: CChar.self)
                    strm.pointee.avail_in = UInt32(step)
                    fed += step
                }
                if out.freeCapacity < 4096 { _ = out.reserveFree(max(out.count, 1 << 16)) }
                let dst = out.reserveFree(0)
                let room = min(out.freeCapacity, maxStep)
                strm.pointee.next_out = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: CChar.self)
                strm.pointee.avail_out = UInt32(room)
                let inBefore = strm.pointee.avail_in
                let r = BZ2_bzDecompress(strm)
                let produced = room - Int(strm.pointee.avail_out)
                out.commit(produced)
                if let drain, out.count >= drain.threshold {
                    guard drain.take(UnsafeBufferPointer(start: out.base, count: out.count)) else {
                        throw Bzip2Error(message: "could not write the inflated data to a temporary file")
                    }
                    out.removeAll()
                }
                if r == BZ_STREAM_END { break }
                guard r == BZ_OK else { throw Bzip2Error(message: message(r)) }
                if produced == 0 && strm.pointee.avail_in == inBefore {
                    // Stuck: libbz2 wants input that the file does not have.
                    throw Bzip2Error(message: "unexpected end of data (truncated file) after \(streams) complete stream(s)")
                }
            }
            streams += 1
            // Another stream follows, or only zero padding, or the end.
            let consumed = fed - Int(strm.pointee.avail_in)
            if consumed >= n { break }
            var allZero = true
            for i in consumed..<n where inBase[i] != 0 { allZero = false; break }
            if allZero { break }
            rest = (strm.pointee.next_in, strm.pointee.avail_in)
        }
        return out
    }

    static func message(_ code: Int32) -> String {
        switch code {
        case BZ_DATA_ERROR: return "corrupt data (CRC or block error)"
        case BZ_DATA_ERROR_MAGIC: return "not bzip2 data (bad stream header)"
        case BZ_MEM_ERROR: return "out of memory"
        case BZ_PARAM_ERROR: return "invalid parameters"
        case BZ_CONFIG_ERROR: return "libbz2 is misconfigured"
        case BZ_SEQUENCE_ERROR: return "libbz2 call sequence error"
        default: return "libbz2 error \(code)"
        }
    }

    /// Compress `bytes` as one bzip2 stream (`blockSize100k` 1...9, clamped).
    static func compress(_ bytes: [UInt8], blockSize100k: Int = 9) throws(Bzip2Error) -> [UInt8] {
        let strm = UnsafeMutablePointer<bz_stream>.allocate(capacity: 1)
        strm.initialize(to: bz_stream())
        defer { strm.deinitialize(count: 1); strm.deallocate() }
        let rc = BZ2_bzCompressInit(strm, Int32(min(max(blockSize100k, 1), 9)), 0, 0)
        guard rc == BZ_OK else { throw Bzip2Error(message: message(rc)) }
        defer { BZ2_bzCompressEnd(strm) }

        var out = GrowableBuffer<UInt8>(capacity: bytes.count / 2 + 64)
        try bytes.withUnsafeBufferPointer { (src: UnsafeBufferPointer<UInt8>) throws(Bzip2Error) in
            var fed = 0
            while true {
                if strm.pointee.avail_in == 0 && fed < src.count, let b = src.baseAddress {
                    let step = min(src.count - fed, maxStep)
                    strm.pointee.next_in = UnsafeMutableRawPointer(mutating: b + fed).assumingMemoryBound(to: CChar.self)
                    strm.pointee.avail_in = UInt32(step)
                    fed += step
                }
                let dst = out.reserveFree(1 << 16)
                let room = min(out.freeCapacity, maxStep)
                strm.pointee.next_out = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: CChar.self)
                strm.pointee.avail_out = UInt32(room)
                let finishing = fed == src.count && strm.pointee.avail_in == 0
                let r = BZ2_bzCompress(strm, finishing ? BZ_FINISH : BZ_RUN)
                out.commit(room - Int(strm.pointee.avail_out))
                if r == BZ_STREAM_END { break }
                guard r == BZ_RUN_OK || r == BZ_FINISH_OK else { throw Bzip2Error(message: message(r)) }
            }
        }
        return out.toArray()
    }
}
