// SPDX-License-Identifier: Apache-2.0
/// Values of one page (or of a dictionary) in their physical form, after the page
/// encoding has been undone but before conversion to a Slicehouse type. They point into
/// the page itself (PLAIN) or into scratch buffers (other encodings) and are valid only
/// until the next page is decoded.
enum PhysicalValues {
    /// `count` little-endian values of `width` bytes each (INT32, INT64, FLOAT, DOUBLE, INT96).
    case fixed(UnsafeRawPointer, count: Int, width: Int)
    /// `count` byte strings (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY): value `i` is the
    /// `spans[2i+1]` bytes at `base + spans[2i]`.
    case binary(base: UnsafeRawPointer, spans: UnsafePointer<Int>, count: Int)
    /// `count` booleans, one byte (0 or 1) each.
    case booleans(UnsafePointer<UInt8>, count: Int)

    var count: Int {
        switch self {
        case .fixed(_, let n, _), .binary(_, _, let n), .booleans(_, let n): return n
        }
    }

    /// Values `start ..< start + n`.
    func slice(_ start: Int, _ n: Int) -> PhysicalValues {
        switch self {
        case .fixed(let p, _, let w): return .fixed(p + start * w, count: n, width: w)
        case .binary(let b, let s, _): return .binary(base: b, spans: s + 2 * start, count: n)
        case .booleans(let p, _): return .booleans(p + start, count: n)
        }
    }
}

/// Scratch space shared by the pages of one column chunk.
final class DecodeScratch {
    /// Decompressed page bodies.
    let page = ScratchBuffer(capacity: 1 << 16)
    /// Decoded fixed-width values and booleans.
    let values = ScratchBuffer(capacity: 1 << 14)
    /// Spans of byte-array values.
    let spans = ScratchBuffer(capacity: 1 << 14)
    /// Reconstructed byte arrays (DELTA_BYTE_ARRAY) and un-split streams.
    let bytes = ScratchBuffer(capacity: 1 << 14)
    /// Lengths and prefix lengths of the delta byte-array encodings.
    let lengths = ScratchBuffer(capacity: 1 << 12)
    let prefixes = ScratchBuffer(capacity: 1 << 12)
    /// One miniblock of deltas.
    let miniblock = ScratchBuffer(capacity: 1 << 10)
    /// Definition levels of a page.
    let levels = ScratchBuffer(capacity: 1 << 12)
    /// Dictionary indices of a page.
    let indices = ScratchBuffer(capacity: 1 << 12)
}
