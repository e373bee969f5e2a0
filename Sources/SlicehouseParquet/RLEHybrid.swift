// SPDX-License-Identifier: Apache-2.0
/// The RLE / bit-packing hybrid encoding stores small unsigned integers of a fixed bit
/// width (definition levels, dictionary indices, RLE booleans) as a sequence of runs.
/// Each run starts with a ULEB128 header whose low bit says which kind it is:
///
/// - low bit 0, **repeated run**: `header >> 1` copies of one value, stored once in
///   `ceil(bitWidth / 8)` little-endian bytes;
/// - low bit 1, **bit-packed run**: `header >> 1` groups of 8 values, bit-packed LSB first
///   (`bitWidth` bytes per group).
///
/// A bit-packed run may be padded past the last real value; the reader stops at the
/// number of values it expects. Where the data starts with a 4-byte length (levels of v1
/// pages, RLE booleans) the caller strips it; dictionary indices start with one byte
/// giving the bit width.
struct RLEHybridDecoder {
    private var cursor: ByteCursor
    let bitWidth: Int
    private let valueBytes: Int
    /// Values left in the current repeated run.
    private var repeatRemaining = 0
    private var repeatValue: UInt32 = 0
    /// The current bit-packed run: its bytes, the next value index and the values left.
    private var packed: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    private var packedIndex = 0
    private var packedRemaining = 0

    init(_ data: UnsafeRawBufferPointer, bitWidth: Int) throws {
        guard bitWidth >= 0 && bitWidth <= 32 else {
            throw ParquetError.corrupt("RLE bit width \(bitWidth) is larger than 32")
        }
        cursor = ByteCursor(data)
        self.bitWidth = bitWidth
        valueBytes = (bitWidth + 7) / 8
    }

    /// Decode exactly `count` values into `dst`.
    mutating func decode(into dst: UnsafeMutablePointer<UInt32>, count: Int) throws {
        var done = 0
        while done < count {
            if repeatRemaining > 0 {
                let n = min(repeatRemaining, count - done)
                (dst + done).update(repeating: repeatValue, count: n)
                repeatRemaining -= n
                done += n
            } else if packedRemaining > 0 {
                let n = min(packedRemaining, count - done)
                if let p = packed.baseAddress {
                    BitPacking.unpack32(p.assumingMemoryBound(to: UInt8.self), srcCount: packed.count,
                                        bitWidth: bitWidth, first: packedIndex, count: n, into: dst + done)
                } else {
                    (dst + done).update(repeating: 0, count: n)
                }
                packedIndex += n
                packedRemaining -= n
                done += n
            } else {
                try nextRun()
            }
        }
    }

    /// Read the next run header (and a repeated run's value).
    private mutating func nextRun() throws {
        guard cursor.remaining > 0 else {
            throw ParquetError.corrupt("RLE data ends before all values were read")
        }
        let header = try cursor.readULEB128()
        if header & 1 == 1 {
            let groups = header >> 1
            guard groups <= UInt64(Int32.max) / 8 else { throw ParquetError.corrupt("RLE bit-packed run too long") }
            var values = Int(groups) * 8
            var bytes = Int(groups) * bitWidth
            if bytes > cursor.remaining {
                // Some writers cut the last run short; keep the values that are there.
                bytes = cursor.remaining
                values = bitWidth == 0 ? values : min(values, bytes * 8 / bitWidth)
            }
            packed = try cursor.take(bytes)
            packedIndex = 0
            packedRemaining = values
        } else {
            let n = header >> 1
            guard n <= UInt64(Int32.max) else { throw ParquetError.corrupt("RLE run too long") }
            var v: UInt32 = 0
            for i in 0..<valueBytes {
                v |= UInt32(try cursor.readByte()) << UInt32(8 * i)
            }
            if bitWidth < 32 && v >> UInt32(bitWidth) != 0 {
                throw ParquetError.corrupt("RLE value \(v) does not fit \(bitWidth) bits")
            }
            repeatValue = v
            repeatRemaining = Int(n)
        }
    }
}

/// Encoder for the hybrid: runs of 8 or more equal values become repeated runs, the
/// rest is bit-packed in groups of 8 (the last group zero-padded).
enum RLEHybridEncoder {
    /// Append the encoding of `values` (each below `1 << bitWidth`) to `out`.
    static func encode<T: FixedWidthInteger>(_ values: UnsafeBufferPointer<T>, bitWidth: Int, into out: inout [UInt8]) {
        let n = values.count
        var i = 0
        var literalStart = 0
        while i < n {
            let v = values[i]
            var j = i + 1
            while j < n && values[j] == v { j += 1 }
            let run = j - i
            // Pending literals must form whole groups of 8 before a repeated run; borrow
            // the first values of the run to complete the last group.
            let pad = (8 - (i - literalStart) % 8) % 8
            if run >= pad + 8 {
                if i + pad > literalStart {
                    emitPacked(UnsafeBufferPointer(rebasing: values[literalStart..<(i + pad)]), bitWidth: bitWidth, into: &out)
                }
                emitRepeated(UInt64(truncatingIfNeeded: v), count: run - pad, bitWidth: bitWidth, into: &out)
                literalStart = j
            }
            i = j
        }
        if literalStart < n {
            emitPacked(UnsafeBufferPointer(rebasing: values[literalStart..<n]), bitWidth: bitWidth, into: &out)
        }
    }

    static func writeULEB128(_ v: UInt64, into out: inout [UInt8]) { LEB128.write(v, into: &out) }

    private static func emitRepeated(_ value: UInt64, count: Int, bitWidth: Int, into out: inout [UInt8]) {
        writeULEB128(UInt64(count) << 1, into: &out)
        for k in 0..<((bitWidth + 7) / 8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * k)))
        }
    }

    /// A bit-packed run of `values`, padded with zeros to a multiple of 8 values.
    private static func emitPacked<T: FixedWidthInteger>(_ values: UnsafeBufferPointer<T>, bitWidth: Int, into out: inout [UInt8]) {
        let groups = (values.count + 7) / 8
        writeULEB128(UInt64(groups) << 1 | 1, into: &out)
        let start = out.count
        BitPacking.pack(values, bitWidth: bitWidth, into: &out)
        // Pad to whole groups: `bitWidth` bytes per group of 8 values.
        let want = start + groups * bitWidth
        if out.count < want { out.append(contentsOf: repeatElement(0, count: want - out.count)) }
    }
}
