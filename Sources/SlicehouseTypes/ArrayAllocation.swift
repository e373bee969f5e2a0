// SPDX-License-Identifier: Apache-2.0
/// Array allocation for the hot paths, without the Swift runtime's generic metadata lookup.
///
/// `Array(repeating:count:)` and `Array(unsafeUninitializedCapacity:initializingWith:)`
/// allocate through a standard-library entry point that is not specialized into client
/// code: each call looks up `_ContiguousArrayStorage<Element>`'s metadata in the runtime's
/// shared cache, whose reader count and last-found entry every thread writes. With the
/// slices' threads allocating per chunk, those cache lines bounce between cores: in a
/// profile of TPC-DS q72 the lookup (`getOrInsert`) took 9% of the time, nearly all of it
/// waiting on those shared lines. `append(contentsOf:)` on an empty array is specialized
/// where it is called (its metadata comes from a cache of the call site's own), so these
/// allocate through it, handing it a sequence that fills the new storage in one step.
extension Array {
    /// `count` copies of `value` (any element type: the storage is initialized with
    /// `initialize(repeating:)`); empty for a count of zero or less.
    @inlinable @inline(__always)
    public init(filled value: Element, count: Int) {
        self = []
        if count > 0 { append(contentsOf: BulkElements(count: count, value: value, fill: true)) }
    }

    /// This array with `newCount` elements, its storage kept: trimmed at the end, or
    /// extended with copies of `value`. For scratch arrays used batch after batch whose
    /// every element the caller writes next (a new array per batch is an allocation and a
    /// pass over it); a copy the caller still holds keeps its elements.
    @inlinable
    public mutating func resize(to newCount: Int, padding value: Element) {
        let have = count
        if have > newCount {
            removeLast(have - newCount)
        } else if have < newCount {
            append(contentsOf: BulkElements(count: newCount - have, value: value, fill: true))
        }
    }
}

extension Array where Element: BitwiseCopyable {
    /// `count` elements whose values are not set: the caller writes every one of them
    /// (through `withUnsafeMutableBufferPointer`) before anything reads them. Only for
    /// bitwise-copyable element types (integers, floating point, Bool and structs of them),
    /// whose storage holds no references; `placeholder` is what the elements would hold if
    /// the standard library ever read the sequence element by element.
    @inlinable @inline(__always)
    public static func unset(count: Int, placeholder: Element) -> [Element] {
        var a: [Element] = []
        if count > 0 { a.append(contentsOf: BulkElements(count: count, value: placeholder, fill: false)) }
        return a
    }
}

extension Array where Element: BitwiseCopyable {
    /// `Array(unsafeUninitializedCapacity:initializingWith:)` without the runtime's metadata
    /// lookup (allocated as `unset` is), with its contract: `body` writes the first
    /// `initializedCount` of the `capacity` elements and sets that count (it starts at 0,
    /// as the standard library's does), and the array keeps those. For the scans' and
    /// decoders' per-chunk arrays (a selection's row numbers, a block's decoded values): at
    /// SF 10 the lookup's shared cache took 3% of TPC-H Q21, three times its share at SF 1.
    @inlinable @inline(__always)
    public static func building(capacity: Int, placeholder: Element,
                                _ body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void) rethrows -> [Element] {
        let n = Swift.max(0, capacity)
        var a = unset(count: n, placeholder: placeholder)
        var initialized = 0
        try a.withUnsafeMutableBufferPointer { buffer in
            try body(&buffer, &initialized)
        }
        let kept = Swift.min(n, Swift.max(0, initialized))
        if kept < n { a.removeLast(n - kept) }
        return a
    }
}

/// `count` elements that `append(contentsOf:)` takes in one step (`_copyContents`): set to
/// `value` when `fill`, left as the fresh storage holds them otherwise (`unset`, for
/// bitwise-copyable types only).
/// Read element by element, every element is `value`.
@frozen @usableFromInline
struct BulkElements<Element>: Sequence {
    @usableFromInline let count: Int
    @usableFromInline let value: Element
    @usableFromInline let fill: Bool

    @inlinable
    init(count: Int, value: Element, fill: Bool) {
        self.count = count
        self.value = value
        self.fill = fill
    }

    @inlinable var underestimatedCount: Int { count }

    @frozen @usableFromInline
    struct Iterator: IteratorProtocol {
        @usableFromInline var left: Int
        @usableFromInline let value: Element
        @inlinable init(left: Int, value: Element) {
            self.left = left
            self.value = value
        }
        @inlinable mutating func next() -> Element? {
            if left <= 0 { return nil }
            left -= 1
            return value
        }
    }

    @inlinable
    func makeIterator() -> Iterator { Iterator(left: count, value: value) }

    @inlinable
    __consuming func _copyContents(initializing buffer: UnsafeMutableBufferPointer<Element>)
        -> (Iterator, UnsafeMutableBufferPointer<Element>.Index) {
        let n = Swift.min(count, buffer.count)
        if fill || n < count {
            // (A destination shorter than `count` is not how `append(contentsOf:)` calls
            // this: it reserves `underestimatedCount` first. Then every element is set.)
            UnsafeMutableBufferPointer(rebasing: buffer[0..<n]).initialize(repeating: value)
        }
        return (Iterator(left: count - n, value: value), n)
    }
}
