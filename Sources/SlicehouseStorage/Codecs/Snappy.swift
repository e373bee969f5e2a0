// SPDX-License-Identifier: Apache-2.0
import CSnappy
import SlicehouseTypes

/// Snappy compression of byte buffers in the raw (unframed) snappy format
/// (system libsnappy, C API).
///
/// Corrupt input is validated before any allocation and reported as
/// `SQLError(.ioError, ...)`; it never crashes.
public enum SnappyCodec {
    /// Compress `bytes` in the raw snappy format (varint length + elements).
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var outLength = snappy_max_compressed_length(bytes.count)
        var out = [UInt8](filled: 0, count: max(outLength, 1))
        // The C API wants a non-NULL input pointer even for zero bytes.
        let input = bytes.isEmpty ? [0] : bytes
        let status = out.withUnsafeMutableBytes { dst in
            input.withUnsafeBytes { src in
                snappy_compress(src.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count,
                                dst.baseAddress?.assumingMemoryBound(to: CChar.self), &outLength)
            }
        }
        guard status == SNAPPY_OK else {
            throw SQLError(.ioError, "snappy compression failed (status \(status.rawValue))")
        }
        out.removeSubrange(outLength...)
        return out
    }

    /// Decompress a raw snappy buffer.
    ///
    /// - Parameter originalSize: the exact decompressed size when known; a mismatch with
    ///   the size recorded in the buffer is an error.
    public static func decompress(_ bytes: [UInt8], originalSize: Int?) throws -> [UInt8] {
        guard !bytes.isEmpty else { throw SQLError(.ioError, "snappy: empty input is not a snappy buffer") }
        return try bytes.withUnsafeBytes { raw -> [UInt8] in
            guard let src = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else {
                throw SQLError(.ioError, "snappy: empty input is not a snappy buffer")
            }
            // Validation walks the whole stream without writing, so a forged length
            // header cannot make us allocate before the input is known to be sound.
            guard snappy_validate_compressed_buffer(src, raw.count) == SNAPPY_OK else {
                throw SQLError(.ioError, "snappy: corrupt input")
            }
            var length = 0
            guard snappy_uncompressed_length(src, raw.count, &length) == SNAPPY_OK else {
                throw SQLError(.ioError, "snappy: corrupt length header")
            }
            if let originalSize, originalSize != length {
                throw SQLError(.ioError, "snappy: buffer holds \(length) bytes, expected \(originalSize)")
            }
            var out = [UInt8](filled: 0, count: max(length, 1))
            var outLength = length
            let status = out.withUnsafeMutableBytes { dst in
                snappy_uncompress(src, raw.count, dst.baseAddress?.assumingMemoryBound(to: CChar.self), &outLength)
            }
            guard status == SNAPPY_OK, outLength == length else {
                throw SQLError(.ioError, "snappy: corrupt input (status \(status.rawValue))")
            }
            out.removeSubrange(length...)
            return out
        }
    }
}
