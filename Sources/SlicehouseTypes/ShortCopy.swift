// SPDX-License-Identifier: Apache-2.0
/// Copies (and equality checks) of short byte strings without a `memcpy` (`memcmp`)
/// call: column values are mostly a few to a few dozen bytes, where the call and its
/// size dispatch cost more than the work. Every load and store stays inside `[0, count)`
/// of both sides (overlapping words for the ragged part), so no padding is needed.
@inlinable @inline(__always)
public func copyShortBytes(_ d: UnsafeMutablePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ count: Int) {
    let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(d)
    if count >= 16 {
        if count > 64 {
            dst.copyMemory(from: src, byteCount: count)
            return
        }
        var i = 0
        while i + 16 <= count {
            let a = src.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let b = src.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            dst.storeBytes(of: a, toByteOffset: i, as: UInt64.self)
            dst.storeBytes(of: b, toByteOffset: i + 8, as: UInt64.self)
            i += 16
        }
        if i < count {
            let a = src.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)
            let b = src.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            dst.storeBytes(of: a, toByteOffset: count - 16, as: UInt64.self)
            dst.storeBytes(of: b, toByteOffset: count - 8, as: UInt64.self)
        }
    } else if count >= 8 {
        let a = src.loadUnaligned(as: UInt64.self)
        let b = src.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        dst.storeBytes(of: a, as: UInt64.self)
        dst.storeBytes(of: b, toByteOffset: count - 8, as: UInt64.self)
    } else if count >= 4 {
        let a = src.loadUnaligned(as: UInt32.self)
        let b = src.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        dst.storeBytes(of: a, as: UInt32.self)
        dst.storeBytes(of: b, toByteOffset: count - 4, as: UInt32.self)
    } else if count > 0 {
        d[0] = s[0]
        d[count >> 1] = s[count >> 1]
        d[count - 1] = s[count - 1]
    }
}

/// Whether the `n` bytes at `a` and at `b` are equal. Words are compared, and the last
/// bytes by overlapping loads inside the values: no byte loop and no call, which is
/// what short keys (a brand, a name, a flag) need when a hash table checks a match.
@inlinable public func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
    if n >= 8 {
        var k = 0
        while k + 8 < n {
            if ra.loadUnaligned(fromByteOffset: k, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: k, as: UInt64.self) {
                return false
            }
            k += 8
        }
        // The last eight bytes, overlapping the words already compared.
        return ra.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == rb.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
    }
    if n >= 4 {
        return ra.loadUnaligned(as: UInt32.self) == rb.loadUnaligned(as: UInt32.self)
            && ra.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == rb.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
    }
    if n <= 0 { return true }
    // One to three bytes: the first, the middle and the last cover them all.
    return a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1]
}
