// SPDX-License-Identifier: Apache-2.0
/// The delta encodings.
///
/// **DELTA_BINARY_PACKED** (INT32/INT64) stores differences between consecutive values.
/// A header gives the block size (values per block), the number of miniblocks per block,
/// the total value count and the first value (zigzag). Each block then holds its minimum
/// delta (zigzag), one bit-width byte per miniblock and the miniblocks: `delta - minDelta`
/// for each value, bit-packed LSB first. Every miniblock that holds a value is stored at
/// full size (padding included); miniblocks after the last value have a width byte but
/// no body. Arithmetic wraps in two's complement, so the decoder adds with `&+` and
/// truncates to the physical width at the end.
///
/// **DELTA_LENGTH_BYTE_ARRAY** stores the lengths of all byte arrays with
/// DELTA_BINARY_PACKED, then their bytes back to back.
///
/// **DELTA_BYTE_ARRAY** (front coding) stores, per value, how many leading bytes it
/// shares with the previous value (DELTA_BINARY_PACKED) and then the remaining suffixes
/// as DELTA_LENGTH_BYTE_ARRAY.
enum DeltaDecoding {
    /// Largest block this reader accepts (the format uses 128 values; writers rarely go
    /// beyond a few thousand).
    static let maxBlockSize: UInt64 = 1 << 20

    /// Decode a DELTA_BINARY_PACKED stream of exactly `count` values into `dst`, storing
    /// each as a little-endian integer of `width` bytes (4 or 8). Returns the number of
    /// bytes the stream occupied.
    static func decodeBinaryPacked(_ data: UnsafeRawBufferPointer, count: Int, width: Int,
                                   into dst: UnsafeMutableRawPointer, scratch: ScratchBuffer) throws -> Int {
        var c = ByteCursor(data)
        let blockSize = try c.readULEB128()
        let miniblocks = try c.readULEB128()
        let total = try c.readULEB128()
        let first = try c.readZigzag()
        guard blockSize > 0, blockSize <= maxBlockSize, blockSize % 8 == 0,
              miniblocks > 0, miniblocks <= blockSize, blockSize % miniblocks == 0,
              (blockSize / miniblocks) % 8 == 0 else {
            throw ParquetError.corrupt("invalid DELTA_BINARY_PACKED header (block size \(blockSize), \(miniblocks) miniblocks)")
        }
        guard total == UInt64(count) else {
            throw ParquetError.corrupt("DELTA_BINARY_PACKED stream holds \(total) values where \(count) were expected")
        }
        if count == 0 { return c.position }
        let perMiniblock = Int(blockSize / miniblocks)
        let miniblockCount = Int(miniblocks)
        let deltas = scratch.reserve(perMiniblock, of: UInt64.self)

        var last = UInt64(bitPattern: first)
        store(last, at: 0, width: width, into: dst)
        var produced = 1
        while produced < count {
            let minDelta = UInt64(bitPattern: try c.readZigzag())
            let widths = try c.take(miniblockCount)
            var m = 0
            while m < miniblockCount && produced < count {
                let bw = Int(widths[m])
                guard bw <= 64 else { throw ParquetError.corrupt("DELTA_BINARY_PACKED bit width \(bw)") }
                let n = min(perMiniblock, count - produced)
                let fullBytes = perMiniblock * bw / 8
                let neededBytes = (n * bw + 7) / 8
                guard neededBytes <= c.remaining else {
                    throw ParquetError.corrupt("DELTA_BINARY_PACKED data ends inside a miniblock")
                }
                let body = try c.take(min(fullBytes, c.remaining))
                if let p = body.baseAddress {
                    BitPacking.unpack64(p.assumingMemoryBound(to: UInt8.self), srcCount: body.count,
                                        bitWidth: bw, count: n, into: deltas)
                } else {
                    deltas.update(repeating: 0, count: n)
                }
                for k in 0..<n {
                    last = last &+ minDelta &+ deltas[k]
                    store(last, at: produced + k, width: width, into: dst)
                }
                produced += n
                m += 1
            }
            // Width bytes of unused miniblocks were already consumed with `widths`.
        }
        return c.position
    }

    @inline(__always)
    private static func store(_ v: UInt64, at i: Int, width: Int, into dst: UnsafeMutableRawPointer) {
        if width == 4 {
            dst.storeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian, toByteOffset: i * 4, as: UInt32.self)
        } else {
            dst.storeBytes(of: v.littleEndian, toByteOffset: i * 8, as: UInt64.self)
        }
    }

    /// Decode `count` DELTA_BINARY_PACKED lengths (non-negative, each at most `limit`)
    /// into `lengths`; returns the bytes consumed and the sum of the lengths.
    static func decodeLengths(_ data: UnsafeRawBufferPointer, count: Int, limit: Int,
                              into lengths: UnsafeMutablePointer<Int64>, scratch: ScratchBuffer) throws -> (consumed: Int, sum: Int) {
        let consumed = try decodeBinaryPacked(data, count: count, width: 8, into: UnsafeMutableRawPointer(lengths), scratch: scratch)
        var sum = 0
        for i in 0..<count {
            let l = lengths[i]
            guard l >= 0, l <= Int64(limit) else { throw ParquetError.corrupt("byte array length \(l) out of range") }
            sum += Int(l)
            guard sum <= maxPageBytes else { throw ParquetError.corrupt("byte arrays larger than \(maxPageBytes) bytes") }
        }
        return (consumed, sum)
    }
}
