// SPDX-License-Identifier: Apache-2.0
/// UTF-8 checks for string values: Parquet STRING columns must hold UTF-8, and a
/// Slicehouse VARCHAR only ever holds valid UTF-8.
enum UTF8Text {
    /// Whether `n` bytes at `p` are well-formed UTF-8 (no overlong forms, no surrogates,
    /// nothing above U+10FFFF). ASCII is checked eight bytes at a time.
    static func isValid(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        let raw = UnsafeRawPointer(p)
        while i < n {
            if i + 8 <= n && raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let l = sequenceLength(p, n, i)
            if l == 0 { return false }
            i += l
        }
        return true
    }

    /// Length of the well-formed sequence at `i`, or 0 when the bytes there are invalid.
    @inline(__always)
    static func sequenceLength(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int) -> Int {
        let b0 = p[i]
        if b0 < 0x80 { return 1 }
        @inline(__always) func cont(_ k: Int) -> Bool { i + k < n && p[i + k] & 0xC0 == 0x80 }
        switch b0 {
        case 0xC2...0xDF:
            return cont(1) ? 2 : 0
        case 0xE0...0xEF:
            guard cont(1), cont(2) else { return 0 }
            let b1 = p[i + 1]
            if b0 == 0xE0 && b1 < 0xA0 { return 0 }   // overlong
            if b0 == 0xED && b1 > 0x9F { return 0 }   // surrogates
            return 3
        case 0xF0...0xF4:
            guard cont(1), cont(2), cont(3) else { return 0 }
            let b1 = p[i + 1]
            if b0 == 0xF0 && b1 < 0x90 { return 0 }   // overlong
            if b0 == 0xF4 && b1 > 0x8F { return 0 }   // above U+10FFFF
            return 4
        default:
            return 0
        }
    }

    /// Replace every byte that is not part of a well-formed sequence with `replacement`.
    static func replaceInvalid(_ p: UnsafeMutablePointer<UInt8>, _ n: Int, with replacement: UInt8) {
        var i = 0
        while i < n {
            let l = sequenceLength(UnsafePointer(p), n, i)
            if l == 0 {
                p[i] = replacement
                i += 1
            } else {
                i += l
            }
        }
    }

    /// The largest length ≤ `limit` that does not cut a multi-byte character.
    static func truncationPoint(_ p: UnsafePointer<UInt8>, _ n: Int, limit: Int) -> Int {
        guard n > limit else { return n }
        var cut = limit
        // Back up while the byte at the cut continues a character.
        while cut > 0 && p[cut] & 0xC0 == 0x80 { cut -= 1 }
        return cut
    }

    /// At most the first 1024 bytes of a value as text for error reports (invalid UTF-8
    /// shown as U+FFFD).
    static func shown(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
        let k = truncationPoint(p, n, limit: 1024)
        return String(decoding: UnsafeBufferPointer(start: p, count: max(0, k)), as: UTF8.self)
    }
}
