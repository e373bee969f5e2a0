// SPDX-License-Identifier: Apache-2.0
import Dispatch
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlatform

/// Parallel decompression of one large bzip2 file (Redshift splits large BZIP2 files
/// too): bzip2 compresses in independent blocks of up to 900 kB, each starting with
/// the 48-bit magic 0x314159265359 at any bit offset and carrying its own CRC.
///
/// The blocks are found by scanning for the magic (in parallel), and each is decoded
/// by libbz2 as a stream of its own: `BZh9`, the block's bits, the end-of-stream magic
/// and a combined CRC that for one block equals the block's CRC. The output is the
/// blocks' output in file order.
///
/// Anything unexpected — no end-of-stream marker (a truncated file), the magic found
/// inside compressed data (a block that then fails to decode), stream CRCs that do not
/// add up, a small file — falls back to the serial decoder, which reports errors
/// exactly as before.
enum Bzip2Blocks {
    static let blockMagic: UInt64 = 0x3141_5926_5359
    static let endMagic: UInt64 = 0x1772_4538_5090
    /// Files below this are decoded serially (nothing to gain from splitting).
    static let minParallelBytes = 4 << 20

    static func decompress(_ input: UnsafeBufferPointer<UInt8>, workers: Int,
                           minParallelBytes: Int = minParallelBytes,
                           drain: InflateDrain? = nil, context: QueryContext) throws(Bzip2Codec.Bzip2Error) -> GrowableBuffer<UInt8> {
        if workers > 1 && input.count >= minParallelBytes, let blocks = locateBlocks(input, workers: workers, context: context) {
            guard let drain else {
                if let out = decodeBlocks(input, blocks, workers: workers, context: context) { return out }
                return try Bzip2Codec.decompress(input)
            }
            // Batches of blocks (at most 900 kB of output each), each batch's output handed
            // to the drain once the output held passes its threshold.
            var out = GrowableBuffer<UInt8>(capacity: 1 << 16)
            var start = 0
            var decoded = true
            while start < blocks.count {
                let end = min(blocks.count, start + max(1, drainBatchBlocks))
                guard let part = decodeBlocks(input, Array(blocks[start..<end]), workers: workers, context: context) else {
                    decoded = false
                    break
                }
                out.append(contentsOf: UnsafeBufferPointer(start: part.base, count: part.count))
                if out.count >= drain.threshold {
                    guard drain.take(UnsafeBufferPointer(start: out.base, count: out.count)) else {
                        throw Bzip2Codec.Bzip2Error(message: "could not write the inflated data to a temporary file")
                    }
                    out.removeAll()
                }
                start = end
            }
            if decoded { return out }
            // A block failed: decode the whole file again one stream at a time, for its error.
            drain.restart()
        }
        return try Bzip2Codec.decompress(input, drain: drain)
    }

    /// Blocks decoded together when the output goes to a drain (up to 900 kB each).
    nonisolated(unsafe) static var drainBatchBlocks = 16

    /// One block: its bits `start..<end` (from its magic up to the next magic) and CRC.
    struct Block {
        var start: Int
        var end: Int
        var crc: UInt32
    }

    /// The bits of `input` from bit `bit` (most significant first), `count` ≤ 57 of them.
    @inline(__always)
    static func bits(_ b: UnsafeBufferPointer<UInt8>, _ bit: Int, _ count: Int) -> UInt64 {
        var v: UInt64 = 0
        let first = bit >> 3
        for i in 0..<8 { v = v << 8 | UInt64(first + i < b.count ? b[first + i] : 0) }
        return (v << UInt64(bit & 7)) >> UInt64(64 - count)
    }

    /// Bit offsets of every block magic and end-of-stream magic, in order; nil when the
    /// file does not have the expected shape.
    static func locateBlocks(_ b: UnsafeBufferPointer<UInt8>, workers: Int, context: QueryContext) -> [Block]? {
        let n = b.count
        let shared = SharedBytes(b)
        // Magics ending in byte i are found by the worker whose range holds i.
        let parts = workers * 4
        let found = Slots<[(bit: Int, end: Bool)]>(count: parts)
        parallelFor(parts, context: context) { p in
            let b = shared.bytes
            let lo = n * p / parts, hi = n * (p + 1) / parts
            var hits: [(bit: Int, end: Bool)] = []
            var window: UInt64 = 0
            for i in max(lo - 7, 0)..<lo { window = window << 8 | UInt64(b[i]) }
            let mask: UInt64 = (1 << 48) - 1
            for i in lo..<hi {
                window = window << 8 | UInt64(b[i])
                if i < 6 { continue }
                for k in (0..<8).reversed() {
                    let w = (window >> UInt64(k)) & mask
                    if w == blockMagic || w == endMagic {
                        hits.append((8 * (i + 1) - k - 48, w == endMagic))
                    }
                }
            }
            found.set(p, .success(hits))
        }
        var marks: [(bit: Int, end: Bool)] = []
        for p in 0..<parts {
            guard case .success(let hits)? = found.get(p) else { return nil }
            marks += hits
        }

        // Walk the streams: header, blocks, end marker with the combined CRC, padding.
        var blocks: [Block] = []
        var m = 0
        var byte = 0
        while byte < n {
            guard n - byte >= 4, b[byte] == 0x42, b[byte + 1] == 0x5A, b[byte + 2] == 0x68,
                  (0x31...0x39).contains(b[byte + 3]) else { return nil }
            let firstBit = 8 * (byte + 4)
            while m < marks.count && marks[m].bit < firstBit { m += 1 }
            var combined: UInt32 = 0
            while true {
                guard m < marks.count, marks[m].bit >= firstBit else { return nil }
                let mark = marks[m]
                if mark.end {
                    guard mark.bit + 80 <= 8 * n else { return nil }
                    let stored = UInt32(bits(b, mark.bit + 48, 32))
                    guard stored == combined else { return nil }
                    byte = (mark.bit + 80 + 7) >> 3
                    m += 1
                    break
                }
                guard m + 1 < marks.count else { return nil }  // no end marker: truncated
                let crc = UInt32(bits(b, mark.bit + 48, 32))
                combined = (combined << 1 | combined >> 31) ^ crc
                blocks.append(Block(start: mark.bit, end: marks[m + 1].bit, crc: crc))
                m += 1
            }
            // Zero padding after the last stream ends the file.
            var rest = byte
            while rest < n && b[rest] == 0 { rest += 1 }
            if rest == n { break }
        }
        return blocks.isEmpty ? nil : blocks
    }

    /// Decode every block on `workers` threads; nil when one fails.
    static func decodeBlocks(_ b: UnsafeBufferPointer<UInt8>, _ blocks: [Block], workers: Int,
                             context: QueryContext) -> GrowableBuffer<UInt8>? {
        let outputs = Slots<[UInt8]>(count: blocks.count)
        let shared = SharedBytes(b)
        let next = WorkQueue(count: blocks.count)
        parallelFor(min(workers, blocks.count), context: context) { _ in
            while let i = next.take() {
                let stream = standalone(shared.bytes, blocks[i])
                do {
                    let decoded = try stream.withUnsafeBufferPointer { try Bzip2Codec.decompress($0).toArray() }
                    outputs.set(i, .success(decoded))
                } catch {
                    outputs.set(i, .failure(error))
                    next.stop()
                }
            }
        }
        var parts: [[UInt8]] = []
        parts.reserveCapacity(blocks.count)
        for i in 0..<blocks.count {
            guard case .success(let part)? = outputs.get(i) else { return nil }
            parts.append(part)
        }
        var out = GrowableBuffer<UInt8>(capacity: max(parts.reduce(0) { $0 + $1.count }, 16))
        for part in parts { part.withUnsafeBufferPointer { out.append(contentsOf: $0) } }
        return out
    }

    /// `BZh9`, the block's bits, the end-of-stream magic, the block's CRC as the
    /// stream's combined CRC, zero bits to the byte boundary.
    static func standalone(_ b: UnsafeBufferPointer<UInt8>, _ block: Block) -> [UInt8] {
        let length = block.end - block.start
        var out: [UInt8] = [0x42, 0x5A, 0x68, 0x39]
        out.reserveCapacity(4 + length / 8 + 12)
        let shift = block.start & 7
        let first = block.start >> 3
        let whole = length >> 3
        for j in 0..<whole {
            let hi = b[first + j], lo = first + j + 1 < b.count ? b[first + j + 1] : 0
            out.append(shift == 0 ? hi : UInt8(truncatingIfNeeded: (UInt16(hi) << 8 | UInt16(lo)) >> (8 - shift)))
        }
        // The last partial byte, then 80 bits of trailer, through a small bit writer.
        var acc: UInt64 = 0
        var accBits = 0
        func put(_ value: UInt64, _ count: Int) {
            for k in stride(from: count - 1, through: 0, by: -1) {
                acc = acc << 1 | (value >> UInt64(k)) & 1
                accBits += 1
                if accBits == 8 { out.append(UInt8(acc)); acc = 0; accBits = 0 }
            }
        }
        let tail = length & 7
        if tail > 0 { put(bits(b, block.start + whole * 8, tail), tail) }
        put(endMagic, 48)
        put(UInt64(block.crc), 32)
        if accBits > 0 { out.append(UInt8(acc << UInt64(8 - accBits))) }
        return out
    }

    /// The (immutable) input, read by every worker.
    struct SharedBytes: @unchecked Sendable {
        let bytes: UnsafeBufferPointer<UInt8>
        init(_ b: UnsafeBufferPointer<UInt8>) { bytes = b }
    }

    /// Hands out the indices `0..<count` to workers, until stopped.
    final class WorkQueue: @unchecked Sendable {
        private var next = 0
        private var count: Int
        private let lock = Lock()
        init(count: Int) { self.count = count }
        func take() -> Int? {
            lock.withLock { () -> Int? in
                guard next < count else { return nil }
                next += 1
                return next - 1
            }
        }
        func stop() { lock.withLock { count = 0 } }
    }
}
