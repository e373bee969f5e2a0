// SPDX-License-Identifier: Apache-2.0
import CZstd
import SlicehouseTypes
import SlicehousePlatform

/// Zstandard compression of byte buffers (system libzstd).
///
/// Safe on any input: corrupt or truncated frames produce `SQLError(.ioError, ...)`,
/// never a crash, and a frame header that claims an absurd size is not trusted for
/// allocation (decoding then grows its output as it goes).
public enum ZstdCodec {
    /// Content sizes above this, read from a frame header, are not pre-allocated.
    static let maxTrustedHeaderSize = 256 << 20

    /// Compress `bytes` into one zstd frame (content size recorded in the header).
    /// `level` is clamped to the library's range (negative levels are the fast modes).
    public static func compress(_ bytes: [UInt8], level: Int = 3) throws -> [UInt8] {
        let bound = try compressBound(bytes.count)
        var out = [UInt8](filled: 0, count: bound)
        let written = try out.withUnsafeMutableBytes { dst in
            try bytes.withUnsafeBytes { src in
                try compress(src, level: level, into: dst)
            }
        }
        out.removeSubrange(written...)
        return out
    }

    /// The most bytes one frame of `count` input bytes can take.
    public static func compressBound(_ count: Int) throws -> Int {
        let bound = ZSTD_compressBound(count)
        if ZSTD_isError(bound) != 0 {
            throw SQLError(.ioError, "zstd: input of \(count) bytes is too large to compress")
        }
        return bound
    }

    /// Compress `src` into one frame written at the start of `dst` (at least
    /// `compressBound(src.count)` bytes); returns the frame's length. Uses a pooled
    /// compression context, so repeated calls do not set up zstd's tables afresh.
    public static func compress(_ src: UnsafeRawBufferPointer, level: Int, into dst: UnsafeMutableRawBufferPointer) throws -> Int {
        let lvl = Int32(clamping: max(Int(ZSTD_minCLevel()), min(level, Int(ZSTD_maxCLevel()))))
        guard let cctx = contexts.takeCompressor() else { throw SQLError(.ioError, "zstd: out of memory") }
        let written = ZSTD_compressCCtx(cctx, dst.baseAddress, dst.count, src.baseAddress, src.count, lvl)
        contexts.give(compressor: cctx)
        if ZSTD_isError(written) != 0 {
            throw SQLError(.ioError, "zstd compression failed: \(errorName(written))")
        }
        return written
    }

    /// Decompress one frame of exactly `size` bytes into `dst` (`size` bytes) with a
    /// pooled decompression context; returns what zstd reports (a size or an error
    /// code, to be checked with `ZSTD_isError`).
    static func decompressFrame(_ frame: UnsafeRawBufferPointer, into dst: UnsafeMutableRawPointer?, size: Int) -> Int {
        guard let dctx = contexts.takeDecompressor() else {
            return ZSTD_decompress(dst, size, frame.baseAddress, frame.count)
        }
        let got = ZSTD_decompressDCtx(dctx, dst, size, frame.baseAddress, frame.count)
        contexts.give(decompressor: dctx)
        return got
    }

    static let contexts = ContextPool()

    /// Idle zstd contexts, reused across calls: creating a context allocates and
    /// initialises its tables (megabytes at the block sizes used here), which cost as
    /// much as compressing a small block. At most `keep` of each kind stay idle.
    final class ContextPool: Sendable {
        let compressors = Idle(create: { ZSTD_createCCtx() }, free: { _ = ZSTD_freeCCtx($0) })
        let decompressors = Idle(create: { ZSTD_createDCtx() }, free: { _ = ZSTD_freeDCtx($0) })

        func takeCompressor() -> OpaquePointer? { compressors.take() }
        func give(compressor c: OpaquePointer) { compressors.give(c) }
        func takeDecompressor() -> OpaquePointer? { decompressors.take() }
        func give(decompressor d: OpaquePointer) { decompressors.give(d) }

        /// One kind of context: an idle one when there is one, else a new one.
        final class Idle: @unchecked Sendable {
            private let lock = Lock()
            private var idle: [OpaquePointer] = []
            private let create: @Sendable () -> OpaquePointer?
            private let free: @Sendable (OpaquePointer) -> Void
            let keep = 16

            init(create: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
                self.create = create
                self.free = free
            }

            func take() -> OpaquePointer? { lock.withLock { idle.popLast() } ?? create() }

            func give(_ context: OpaquePointer) {
                let kept = lock.withLock { () -> Bool in
                    guard idle.count < keep else { return false }
                    idle.append(context)
                    return true
                }
                if !kept { free(context) }
            }
        }
    }

    /// Decompress one or more concatenated zstd frames.
    ///
    /// - Parameter originalSize: the exact decompressed size when the caller knows it
    ///   (a storage block records it); the output must then match it exactly.
    ///   With `nil` the size is taken from the frame header when present and sane,
    ///   otherwise the output grows while streaming.
    public static func decompress(_ bytes: [UInt8], originalSize: Int?) throws -> [UInt8] {
        guard !bytes.isEmpty else { throw SQLError(.ioError, "zstd: empty input is not a zstd frame") }
        if let originalSize {
            guard originalSize >= 0 else { throw SQLError(.ioError, "zstd: negative original size \(originalSize)") }
            return try decompressExact(bytes, size: originalSize)
        }
        return try decompressStreaming(bytes)
    }

    /// One-shot decompression into a buffer of exactly `size` bytes.
    static func decompressExact(_ bytes: [UInt8], size: Int) throws -> [UInt8] {
        // A zero-size destination has no base address to hand to zstd; use one spare byte.
        var out = [UInt8](filled: 0, count: max(size, 1))
        let got = out.withUnsafeMutableBytes { dst in
            bytes.withUnsafeBytes { src in
                ZSTD_decompress(dst.baseAddress, size, src.baseAddress, src.count)
            }
        }
        if ZSTD_isError(got) != 0 {
            throw SQLError(.ioError, "zstd: corrupt input (\(errorName(got)))")
        }
        guard got == size else {
            throw SQLError(.ioError, "zstd: decompressed \(got) bytes, expected \(size)")
        }
        out.removeSubrange(size...)
        return out
    }

    /// Streaming decompression with a growing output (unknown or untrusted size).
    static func decompressStreaming(_ bytes: [UInt8]) throws -> [UInt8] {
        guard let dctx = ZSTD_createDCtx() else { throw SQLError(.ioError, "zstd: out of memory") }
        defer { ZSTD_freeDCtx(dctx) }

        var initial = bytes.count * 4 + 64
        let header = bytes.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        if header == UInt64.max - 1 {  // ZSTD_CONTENTSIZE_ERROR
            throw SQLError(.ioError, "zstd: input is not a zstd frame")
        }
        if header != UInt64.max, header <= UInt64(maxTrustedHeaderSize) {  // not ZSTD_CONTENTSIZE_UNKNOWN
            initial = Int(header) + 1
        }
        var out = [UInt8](filled: 0, count: max(initial, 64))
        var produced = 0
        var lastHint = 0
        try bytes.withUnsafeBytes { src in
            var input = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
            while true {
                if produced == out.count {
                    out.append(contentsOf: repeatElement(0, count: out.count))
                }
                let before = (input.pos, produced)
                let hint = out.withUnsafeMutableBytes { dst -> Int in
                    var output = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: produced)
                    let r = ZSTD_decompressStream(dctx, &output, &input)
                    produced = output.pos
                    return r
                }
                if ZSTD_isError(hint) != 0 {
                    throw SQLError(.ioError, "zstd: corrupt input (\(errorName(hint)))")
                }
                lastHint = hint
                if input.pos == input.size && produced < out.count {
                    // All input consumed and the output was not the limit: done.
                    break
                }
                if before == (input.pos, produced) && produced < out.count {
                    throw SQLError(.ioError, "zstd: decoder made no progress (corrupt input)")
                }
            }
        }
        if lastHint != 0 {
            throw SQLError(.ioError, "zstd: truncated input (frame incomplete)")
        }
        out.removeSubrange(produced...)
        return out
    }

    /// Decompress every frame of `src` (concatenated frames are one stream, as `cat`
    /// makes them) handing the output to `emit` in pieces of at most 1 MiB, so that the
    /// caller decides where it goes. Corrupt or truncated input throws `SQLError(.ioError)`.
    public static func decompressStream(_ src: UnsafeRawBufferPointer,
                                        emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let dctx = ZSTD_createDCtx() else { throw SQLError(.ioError, "zstd: out of memory") }
        defer { ZSTD_freeDCtx(dctx) }
        guard src.count > 0 else { throw SQLError(.ioError, "zstd: empty input is not a zstd frame") }
        let pieceBytes = 1 << 20
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceBytes, alignment: 16)
        defer { piece.deallocate() }
        var input = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
        var lastHint = 0
        while true {
            var output = ZSTD_outBuffer(dst: piece.baseAddress, size: pieceBytes, pos: 0)
            let before = input.pos
            let hint = ZSTD_decompressStream(dctx, &output, &input)
            if ZSTD_isError(hint) != 0 {
                throw SQLError(.ioError, "zstd: corrupt input (\(errorName(hint)))")
            }
            lastHint = hint
            if output.pos > 0 { try emit(UnsafeRawBufferPointer(rebasing: piece[0..<output.pos])) }
            if input.pos == input.size && output.pos < pieceBytes { break }
            if input.pos == before && output.pos == 0 {
                throw SQLError(.ioError, "zstd: decoder made no progress (corrupt input)")
            }
        }
        if lastHint != 0 {
            throw SQLError(.ioError, "zstd: truncated input (frame incomplete)")
        }
    }

    /// A decoder fed its input piece by piece (an S3 object's ranges as they arrive), which
    /// hands on output as it is produced: `decompressStream` for input that is not all in
    /// memory at once. Concatenated frames are one stream.
    public final class StreamDecoder {
        private let dctx: OpaquePointer
        private let piece: UnsafeMutableRawBufferPointer
        private var lastHint = 0
        private var fed = 0

        public init() throws {
            guard let d = ZSTD_createDCtx() else { throw SQLError(.ioError, "zstd: out of memory") }
            dctx = d
            piece = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        }

        deinit {
            ZSTD_freeDCtx(dctx)
            piece.deallocate()
        }

        /// Decode the next bytes of the input; `emit` gets the output in pieces of at most 1 MiB.
        public func feed(_ src: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard src.count > 0 else { return }
            fed += src.count
            var input = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
            while true {
                var output = ZSTD_outBuffer(dst: piece.baseAddress, size: piece.count, pos: 0)
                let before = input.pos
                let hint = ZSTD_decompressStream(dctx, &output, &input)
                if ZSTD_isError(hint) != 0 {
                    throw SQLError(.ioError, "zstd: corrupt input (\(errorName(hint)))")
                }
                lastHint = hint
                if output.pos > 0 { try emit(UnsafeRawBufferPointer(rebasing: piece[0..<output.pos])) }
                if input.pos == input.size && output.pos < piece.count { break }
                if input.pos == before && output.pos == 0 {
                    throw SQLError(.ioError, "zstd: decoder made no progress (corrupt input)")
                }
            }
        }

        /// The input ended: throws when it was empty or ended inside a frame.
        public func finish() throws {
            guard fed > 0 else { throw SQLError(.ioError, "zstd: empty input is not a zstd frame") }
            if lastHint != 0 { throw SQLError(.ioError, "zstd: truncated input (frame incomplete)") }
        }
    }

    static func errorName(_ code: Int) -> String {
        guard let p = ZSTD_getErrorName(code) else { return "error \(code)" }
        return String(cString: p)
    }
}
