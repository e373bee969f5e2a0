// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text layout of generated rows.
enum RowLayout: Sendable {
    /// dbgen's `.tbl`: every field followed by `|`, rows end in `\n`.
    case tbl
    /// RFC 4180 CSV: fields separated by `,`, rows end in `\n`; a field is
    /// quoted (with `"` doubled) only when it contains `,`, `"`, CR or LF.
    case csv
}

/// A growable byte buffer that table generators format rows into.
///
/// Numbers, money and dates are formatted by hand straight into the buffer: no
/// `String`, no formatter, no allocation per field. Callers reserve room for a
/// whole row first (`reserve`), after which field writes do no bounds growth.
/// The buffer is non-copyable because it owns its memory; `finish()` hands the
/// bytes over as an `OutputChunk`.
struct RowBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count: Int = 0
    private var capacity: Int
    let layout: RowLayout
    /// Bytes read only to warm the cache (`CommentPrefetch.touched`), kept
    /// with the output so those reads are not optimized away.
    var touched: UInt8 = 0

    init(capacity: Int, layout: RowLayout) {
        (base, self.capacity) = BufferRecycler.shared.take(capacity: max(capacity, 4096))
        self.layout = layout
    }

    deinit { BufferRecycler.shared.give(base, capacity: capacity) }

    /// Ensures room for `bytes` more bytes.
    @inline(__always)
    mutating func reserve(_ bytes: Int) {
        if count &+ bytes > capacity { grow(to: count + bytes) }
    }

    private mutating func grow(to minimum: Int) {
        var newCapacity = capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let (newBase, actualCapacity) = BufferRecycler.shared.take(capacity: newCapacity)
        memcpy(newBase, base, count)
        BufferRecycler.shared.give(base, capacity: capacity)
        base = newBase
        capacity = actualCapacity
    }

    /// Gives the written bytes to an `OutputChunk` (no copy).
    consuming func finish(rows: Int) -> OutputChunk {
        let chunk = OutputChunk(base: base, count: count, capacity: capacity, rows: rows, touched: touched)
        discard self
        return chunk
    }

    // MARK: Raw appends (no separator)

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        base[count] = value
        count &+= 1
    }

    @inline(__always)
    mutating func bytes(_ source: UnsafePointer<UInt8>, _ length: Int) {
        memcpy(base + count, source, length)
        count &+= length
    }

    @inline(__always)
    mutating func bytes(_ source: StaticBytes) {
        bytes(source.base, source.count)
    }

    /// Decimal digits of a non-negative value, left-padded with zeros to `minWidth`.
    @inline(__always)
    mutating func digits(_ value: Int64, minWidth: Int = 1) {
        var width = 1
        var probe = value
        while probe >= 10 { probe /= 10; width &+= 1 }
        if width < minWidth { width = minWidth }
        var remaining = value
        var position = count &+ width
        let end = position
        while position > count {
            position &-= 1
            base[position] = 48 &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        }
        count = end
    }

    // MARK: Fields (value then separator)

    @inline(__always)
    mutating func separator() {
        byte(layout == .tbl ? UInt8(ascii: "|") : UInt8(ascii: ","))
    }

    /// Ends a row: `|\n` in `.tbl` (the `|` is already there), `\n` in CSV.
    @inline(__always)
    mutating func endRow() {
        if layout == .csv { count &-= 1 }
        byte(UInt8(ascii: "\n"))
    }

    @inline(__always)
    mutating func intField(_ value: Int64) {
        if value < 0 {
            byte(UInt8(ascii: "-"))
            digits(0 &- value)
        } else {
            digits(value)
        }
        separator()
    }

    /// A prefix and a number zero-padded to at least `width` digits, like
    /// dbgen's `"Customer#%09ld"`.
    @inline(__always)
    mutating func paddedField(_ prefix: StaticBytes, _ value: Int64, width: Int = 9) {
        bytes(prefix)
        digits(value, minWidth: width)
        separator()
    }

    /// An amount in cents as dbgen prints it (`%.2f` of the value / 100).
    @inline(__always)
    mutating func moneyField(cents: Int64) {
        var magnitude = cents
        if cents < 0 {
            byte(UInt8(ascii: "-"))
            magnitude = 0 &- cents
        }
        digits(magnitude / 100)
        byte(UInt8(ascii: "."))
        digits(magnitude % 100, minWidth: 2)
        separator()
    }

    /// A generated day number as `YYYY-MM-DD`.
    @inline(__always)
    mutating func dateField(_ generatedDay: Int32) {
        bytes(TPCHDates.text.base + TPCHDates.textOffset(generatedDay), 10)
        separator()
    }

    /// Free text (comments, addresses, names). Quoted in CSV when needed.
    @inline(__always)
    mutating func textField(_ source: UnsafePointer<UInt8>, _ length: Int) {
        if layout == .csv && RowBuffer.needsQuoting(source, length) {
            quoted(source, length)
        } else {
            bytes(source, length)
        }
        separator()
    }

    @inline(__always)
    mutating func textField(_ source: StaticBytes) {
        textField(source.base, source.count)
    }

    /// A one-byte field (status and flag columns).
    @inline(__always)
    mutating func byteField(_ value: UInt8) {
        byte(value)
        separator()
    }

    /// Ends a text field whose bytes were written raw from `start`: in CSV,
    /// quotes them in place if needed; then the separator.
    @inline(__always)
    mutating func finishTextField(startingAt start: Int) {
        if layout == .csv && RowBuffer.needsQuoting(base + start, count - start) {
            quoteInPlace(from: start)
        }
        separator()
    }

    /// Rewrites `base[start..<count]` as a quoted CSV field, working backwards
    /// so no temporary copy is needed.
    private mutating func quoteInPlace(from start: Int) {
        var quotes = 0
        for index in start..<count where base[index] == UInt8(ascii: "\"") { quotes += 1 }
        let shift = quotes + 2
        reserve(shift)
        var source = count - 1
        var target = count + shift - 1
        base[target] = UInt8(ascii: "\"")
        target -= 1
        while source >= start {
            let value = base[source]
            base[target] = value
            target -= 1
            if value == UInt8(ascii: "\"") {
                base[target] = value
                target -= 1
            }
            source -= 1
        }
        base[target] = UInt8(ascii: "\"")
        count += shift
    }

    private mutating func quoted(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length * 2 + 2)
        byte(UInt8(ascii: "\""))
        for index in 0..<length {
            let value = source[index]
            if value == UInt8(ascii: "\"") { byte(value) }
            byte(value)
        }
        byte(UInt8(ascii: "\""))
    }

    static func needsQuoting(_ source: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        for index in 0..<length {
            switch source[index] {
            case UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r"): return true
            default: continue
            }
        }
        return false
    }
}
