// SPDX-License-Identifier: Apache-2.0
/// Splits one line of `FIXEDWIDTH` input into field spans by character widths.
///
/// Widths count UTF-8 characters: an all-ASCII line (checked eight bytes at a time) is
/// cut by byte offsets directly; other lines walk characters (a byte that is not a
/// continuation byte starts a character, so invalid UTF-8 still advances and is
/// reported by the column conversion). A line may end early: the field it ends in is
/// shorter, the fields after it are absent — except that a line ending exactly where
/// the last field starts gives an empty last field (its padding was stripped).
struct FixedWidthScanner: ~Copyable {
    let fieldCount: Int
    private let widths: UnsafeMutablePointer<Int>
    /// The fields of the last line (`fieldCount` of them; absent ones are empty at the end).
    let spans: UnsafeMutablePointer<FieldSpan>
    /// Fields of the last line that are present (the rest are missing).
    private(set) var present = 0
    /// Offset after the last field (before `contentEnd` when the line is longer than the spec).
    private(set) var restStart = 0

    init(fields: [FixedWidthField]) {
        fieldCount = fields.count
        let n = max(fields.count, 1)
        widths = .allocate(capacity: n)
        spans = .allocate(capacity: n)
        for (i, f) in fields.enumerated() { widths[i] = f.width }
        spans.initialize(repeating: FieldSpan(start: 0, end: 0, flags: 0), count: n)
    }

    deinit {
        widths.deallocate()
        spans.deallocate()
    }

    /// Split the line `[start, contentEnd)` (no line terminator).
    @inline(__always)
    mutating func split(_ b: UnsafePointer<UInt8>, _ start: Int, _ contentEnd: Int) {
        let ascii = FieldParsers.isASCII(UnsafeBufferPointer(start: b + start, count: contentEnd - start))
        var p = start
        var present = 0
        var ranOut = false  // the line ended inside an earlier field
        let last = fieldCount - 1
        for i in 0..<fieldCount {
            let s = p
            let w = widths[i]
            // Present: the line reaches into the field — or, for the last field, up to its
            // start (it is then empty: its padding was stripped).
            if s < contentEnd || (i == last && !ranOut) { present = i + 1 }
            if ascii {
                if p + w > contentEnd { ranOut = true }
                p = min(p + w, contentEnd)
            } else {
                var k = 0
                while p < contentEnd && k < w {
                    p += 1
                    while p < contentEnd && b[p] & 0xC0 == 0x80 { p += 1 }
                    k += 1
                }
                if k < w { ranOut = true }
            }
            spans[i] = FieldSpan(start: s, end: p, flags: 0)
        }
        self.present = present
        restStart = p
    }
}
