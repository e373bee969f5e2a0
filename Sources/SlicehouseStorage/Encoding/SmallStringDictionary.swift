// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Strings coded as one-byte indices into a dictionary of at most 256 distinct values,
/// in the order they first appear: the dictionary a COPY holds a flag or mode column in
/// (`HeldRows.Part.codes`) and a BYTEDICT block's (`ByteDict.encodeStrings`).
///
/// A value is found by its length and two words, its first and last 8 bytes (shorter
/// values packed into the first), which are the whole value up to 16 bytes; longer
/// values compare their middles too. No general byte hash runs per value, and the table
/// (1,024 two-byte slots) and the keys stay in the L1 cache.
struct SmallStringDictionary {
    static let capacity = 256

    /// The distinct values, in the order they were first coded.
    private(set) var values = StringArray(reservingCount: 256, bytes: 4096)
    private var keys = [(a: UInt64, b: UInt64, len: Int)](repeating: (0, 0, -1), count: 256)
    /// Open addressing: the value's index + 1, 0 when empty.
    private var table = [UInt16](filled: 0, count: 1024)

    var count: Int { values.count }

    /// Code the `n` values whose bytes are `base[offsets[i]..<offsets[i + 1]]` into
    /// `out[0..<n]`, adding new values to the dictionary. Returns false, having coded
    /// only the values before it, at the first value that would be the 257th.
    mutating func code(base: UnsafeRawPointer, offsets o: UnsafePointer<Int32>, count n: Int,
                       into out: UnsafeMutablePointer<UInt8>) -> Bool {
        var dict = values
        values = StringArray()
        defer { values = dict }
        var fits = true
        table.withUnsafeMutableBufferPointer { t in
            keys.withUnsafeMutableBufferPointer { k in
                for i in 0..<n {
                    let from = Int(o[i]), len = Int(o[i + 1] &- o[i])
                    let p = base + from
                    let (wa, wb) = Self.words(p, len)
                    let h = (wa &* 0xC2B2_AE3D_27D4_EB4F) ^ (wb &* 0x1656_67B1_9E37_79F9)
                        ^ (UInt64(truncatingIfNeeded: len) &* 0x9E37_79B9_7F4A_7C15)
                    var slot = Int(truncatingIfNeeded: ((h ^ (h &>> 29)) &* 0x94D0_49BB_1331_11EB) &>> 54)
                    while true {
                        let e = Int(t[slot])
                        if e == 0 {
                            let code = dict.count
                            if code == Self.capacity { fits = false; return }
                            dict.bytes.append(contentsOf: UnsafeRawBufferPointer(start: p, count: len))
                            dict.offsets.append(Int32(truncatingIfNeeded: dict.bytes.count))
                            k[code] = (wa, wb, len)
                            t[slot] = UInt16(code + 1)
                            out[i] = UInt8(code)
                            break
                        }
                        let d = e - 1
                        let key = k[d]
                        if key.len == len && key.a == wa && key.b == wb
                            && (len <= 16 || Self.sameMiddle(dict, d, p, len)) {
                            out[i] = UInt8(d)
                            break
                        }
                        slot = (slot + 1) & 1023
                    }
                }
            }
        }
        return fits
    }

    /// The first and last 8 bytes of the `len` bytes at `p` (up to 8 bytes: all of them
    /// in the first word), read without touching a byte outside them.
    @inline(__always)
    static func words(_ p: UnsafeRawPointer, _ len: Int) -> (UInt64, UInt64) {
        if len >= 8 {
            return (p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: len - 8, as: UInt64.self))
        }
        if len >= 4 {
            return (UInt64(p.loadUnaligned(as: UInt32.self))
                        | UInt64(p.loadUnaligned(fromByteOffset: len - 4, as: UInt32.self)) << 32, 0)
        }
        var wa: UInt64 = 0
        for j in 0..<max(len, 0) { wa = (wa &<< 8) | UInt64(p.load(fromByteOffset: j, as: UInt8.self)) }
        return (wa, 0)
    }

    /// Whether dictionary value `d` (of `len` bytes) is the `len` bytes at `p`.
    private static func sameMiddle(_ dict: StringArray, _ d: Int, _ p: UnsafeRawPointer, _ len: Int) -> Bool {
        dict.bytes.withUnsafeBufferPointer { db in
            guard let base = db.baseAddress else { return false }
            return memcmp(base + Int(dict.offsets[d]), p, len) == 0
        }
    }
}
