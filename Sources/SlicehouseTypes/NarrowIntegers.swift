// SPDX-License-Identifier: Apache-2.0

/// 64-bit integers held as unsigned differences above a base in 1, 2, 3 or 4 bytes each,
/// whichever is the fewest that holds their span: the block cache's `CompactBlock`, the
/// rows a COPY holds (`HeldRows`) and the gathers that read them (`ReorderPlan.IntPart`).
///
/// Three bytes are little-endian and read as four with the top byte masked off, one
/// unaligned load each as the other widths are; so their arrays end with one byte more
/// than the values take (`byteCount`), and the last value's read stays inside. Spans
/// between 2^16 and 2^24 are most of what the cache held in four bytes at TPC-DS SF 1
/// (customer, ticket and order keys, prices in cents): 210 of 473 MB.
public enum NarrowIntegers {
    /// The fewest bytes (1 to 4) that hold every difference up to `span`, or nil when it
    /// takes more.
    @inlinable
    public static func width(span: UInt64) -> Int? {
        span <= 0xFF ? 1 : span <= 0xFFFF ? 2 : span <= 0xFF_FFFF ? 3 : span <= 0xFFFF_FFFF ? 4 : nil
    }

    /// The largest difference `width` bytes hold.
    @inlinable
    public static func largest(width: Int) -> UInt64 {
        width >= 8 ? .max : (UInt64(1) << UInt64(8 * width)) - 1
    }

    /// The bytes `count` values of `width` bytes take (three-byte values: one more).
    @inlinable
    public static func byteCount(count: Int, width: Int) -> Int {
        count * width + (width == 3 && count > 0 ? 1 : 0)
    }

    /// How many values of `width` bytes `byteCount` bytes hold.
    @inlinable
    public static func count(byteCount: Int, width: Int) -> Int {
        width > 0 ? byteCount / width : 0
    }

    /// Difference `i` of those of `width` bytes at `p` (one branch on the width: loops
    /// that read many take a `NarrowCell` instead).
    @inlinable @inline(__always)
    public static func load(_ p: UnsafeRawPointer, width: Int, at i: Int) -> UInt64 {
        switch width {
        case 1: return Narrow1.load(p, i)
        case 2: return Narrow2.load(p, i)
        case 3: return Narrow3.load(p, i)
        default: return Narrow4.load(p, i)
        }
    }
}

/// One width of `NarrowIntegers`, for loops specialised per width (no branch per value).
public protocol NarrowCell {
    /// Bytes per value.
    static var width: Int { get }
    /// Difference `i` of those at `p`.
    static func load(_ p: UnsafeRawPointer, _ i: Int) -> UInt64
    /// Store difference `v` (under 2^(8·width)) as value `i` at `p`. Three-byte values
    /// write a fourth byte (0) that the next value's store overwrites: store them in
    /// order, into an array of `NarrowIntegers.byteCount` bytes.
    static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: UInt64)
}

public enum Narrow1: NarrowCell {
    @inlinable public static var width: Int { 1 }
    @inlinable @inline(__always)
    public static func load(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 { UInt64(p.load(fromByteOffset: i, as: UInt8.self)) }
    @inlinable @inline(__always)
    public static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: UInt64) {
        p.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: i, as: UInt8.self)
    }
}

public enum Narrow2: NarrowCell {
    @inlinable public static var width: Int { 2 }
    @inlinable @inline(__always)
    public static func load(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 {
        UInt64(p.loadUnaligned(fromByteOffset: i &* 2, as: UInt16.self))
    }
    @inlinable @inline(__always)
    public static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: UInt64) {
        p.storeBytes(of: UInt16(truncatingIfNeeded: v), toByteOffset: i &* 2, as: UInt16.self)
    }
}

public enum Narrow3: NarrowCell {
    @inlinable public static var width: Int { 3 }
    @inlinable @inline(__always)
    public static func load(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 {
        UInt64(p.loadUnaligned(fromByteOffset: i &* 3, as: UInt32.self) & 0xFF_FFFF)
    }
    @inlinable @inline(__always)
    public static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: UInt64) {
        p.storeBytes(of: UInt32(truncatingIfNeeded: v) & 0xFF_FFFF, toByteOffset: i &* 3, as: UInt32.self)
    }
}

public enum Narrow4: NarrowCell {
    @inlinable public static var width: Int { 4 }
    @inlinable @inline(__always)
    public static func load(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 {
        UInt64(p.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
    }
    @inlinable @inline(__always)
    public static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: UInt64) {
        p.storeBytes(of: UInt32(truncatingIfNeeded: v), toByteOffset: i &* 4, as: UInt32.self)
    }
}
