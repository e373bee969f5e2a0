/// Copies of short byte strings without a `memcpy` call: column values are mostly a
/// few to a few dozen bytes, where the call and its size dispatch cost more than the
/// copy. Every load and store stays inside `[0, count)` of both sides (overlapping
/// word copies for the ragged part), so no padding is needed.
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
