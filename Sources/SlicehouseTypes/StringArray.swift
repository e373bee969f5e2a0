// SPDX-License-Identifier: Apache-2.0
/// Variable-length strings stored Arrow-style: one contiguous byte buffer and
/// `count + 1` offsets. Kernels compare and hash bytes directly; no `String`
/// is created on hot paths.
public struct StringArray: Sendable, Equatable {
    public var bytes: [UInt8]
    public var offsets: [Int32]

    public init() {
        bytes = []
        offsets = [0]
    }
    public init(reservingCount n: Int, bytes b: Int) {
        bytes = []
        bytes.reserveCapacity(b)
        offsets = [0]
        offsets.reserveCapacity(n + 1)
    }
    public init<S: Sequence>(_ strings: S) where S.Element == String {
        self.init()
        for s in strings { append(s) }
    }

    @inlinable public var count: Int { offsets.count - 1 }

    @inlinable public func length(_ i: Int) -> Int { Int(offsets[i + 1] - offsets[i]) }

    public subscript(i: Int) -> String {
        let start = Int(offsets[i]), end = Int(offsets[i + 1])
        return bytes.withUnsafeBufferPointer { buf in
            String(decoding: UnsafeBufferPointer(rebasing: buf[start..<end]), as: UTF8.self)
        }
    }

    @inlinable public mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { append(bytes: $0) }
    }
    @inlinable public mutating func append(bytes b: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: b)
        offsets.append(Int32(truncatingIfNeeded: bytes.count))
    }
    @inlinable public mutating func appendEmpty() {
        offsets.append(Int32(truncatingIfNeeded: bytes.count))
    }
    /// Append element `i` of `other`.
    @inlinable public mutating func append(from other: StringArray, _ i: Int) {
        let s = Int(other.offsets[i]), e = Int(other.offsets[i + 1])
        if e > s { other.bytes.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[s..<e])) } }
        offsets.append(Int32(truncatingIfNeeded: bytes.count))
    }
    public mutating func append(contentsOf other: StringArray) {
        let base = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: other.bytes)
        offsets.reserveCapacity(offsets.count + other.count)
        for i in 1..<other.offsets.count { offsets.append(other.offsets[i] &+ base) }
    }

    /// Run `body` with the bytes of element `i`.
    @inlinable public func withBytes<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let s = Int(offsets[i]), e = Int(offsets[i + 1])
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[s..<e])) }
    }

    /// Three-way byte comparison of element i of `a` with element j of `b`.
    @inlinable public static func compare(_ a: StringArray, _ i: Int, _ b: StringArray, _ j: Int) -> Int {
        let as_ = Int(a.offsets[i]), ae = Int(a.offsets[i + 1])
        let bs = Int(b.offsets[j]), be = Int(b.offsets[j + 1])
        return a.bytes.withUnsafeBufferPointer { pa in
            b.bytes.withUnsafeBufferPointer { pb in
                compareBytes(pa.baseAddress.map { $0 + as_ }, ae - as_, pb.baseAddress.map { $0 + bs }, be - bs)
            }
        }
    }
    @inlinable public static func equal(_ a: StringArray, _ i: Int, _ b: StringArray, _ j: Int) -> Bool {
        let la = a.offsets[i + 1] - a.offsets[i], lb = b.offsets[j + 1] - b.offsets[j]
        if la != lb { return false }
        return compare(a, i, b, j) == 0
    }
}

/// memcmp-style comparison of two byte ranges (shorter prefix sorts first).
@inlinable public func compareBytes(_ a: UnsafePointer<UInt8>?, _ la: Int, _ b: UnsafePointer<UInt8>?, _ lb: Int) -> Int {
    let n = min(la, lb)
    if n > 0, let a, let b {
        var k = 0
        // Eight bytes at a time: the first differing word decides, its bytes read
        // most significant first.
        while k + 8 <= n {
            let x = UnsafeRawPointer(a + k).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(b + k).loadUnaligned(as: UInt64.self)
            if x != y { return UInt64(bigEndian: x) < UInt64(bigEndian: y) ? -1 : 1 }
            k += 8
        }
        while k < n {
            let x = a[k], y = b[k]
            if x != y { return x < y ? -1 : 1 }
            k += 1
        }
    }
    return la == lb ? 0 : (la < lb ? -1 : 1)
}

extension StringArray {
    /// Elements at `indices`, in that order: lengths summed first, then each value copied
    /// (`copyShortBytes`) into output buffers allocated once at their final size.
    public func gather(_ indices: UnsafeBufferPointer<Int32>) -> StringArray {
        let n = indices.count
        return offsets.withUnsafeBufferPointer { offs in
            bytes.withUnsafeBufferPointer { src in
                var total = 0
                for i in indices { total &+= Int(offs[Int(i) + 1] &- offs[Int(i)]) }
                let outOffsets = [Int32].building(capacity: n + 1, placeholder: 0) { o, c in
                    o[0] = 0
                    var pos: Int32 = 0
                    for k in 0..<n {
                        let i = Int(indices[k])
                        pos &+= offs[i + 1] &- offs[i]
                        o[k + 1] = pos
                    }
                    c = n + 1
                }
                let outBytes = [UInt8].building(capacity: total, placeholder: 0) { b, c in
                    if let dst = b.baseAddress, let base = src.baseAddress {
                        outOffsets.withUnsafeBufferPointer { o in
                            for k in 0..<n {
                                let i = Int(indices[k])
                                let s = Int(offs[i])
                                copyShortBytes(dst + Int(o[k]), base + s, Int(offs[i + 1]) &- s)
                            }
                        }
                    }
                    c = total
                }
                return StringArray(bytes: outBytes, offsets: outOffsets)
            }
        }
    }

    public func gather(_ indices: [Int32]) -> StringArray {
        indices.withUnsafeBufferPointer { gather($0) }
    }

    @inlinable public init(bytes: [UInt8], offsets: [Int32]) {
        self.bytes = bytes
        self.offsets = offsets
    }
}
