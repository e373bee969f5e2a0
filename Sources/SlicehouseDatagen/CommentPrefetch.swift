// SPDX-License-Identifier: Apache-2.0
/// Comments drawn ahead of their rows, with their first and last bytes read
/// right away.
///
/// Comments are slices at random offsets of the 300 MiB text pool, so reading
/// one is almost always a cache miss. Copied one row at a time, each miss
/// stalls the row. Drawing the comments of the next few rows together and
/// touching them back to back lets the processor fetch them in parallel; by
/// the time the rows are formatted, their comments are in cache.
///
/// Drawing early does not change the output: each column has its own random
/// stream, so only the order of draws *within* the comment stream matters,
/// and that order is kept.
struct CommentPrefetch {
    static let capacity = 128

    private let starts: UnsafeMutablePointer<UnsafePointer<UInt8>>
    private let lengths: UnsafeMutablePointer<Int>
    private var count = 0
    private var cursor = 0
    /// Sum of the touched bytes. It is handed to the output chunk so that the
    /// compiler cannot drop the touching loads as unused.
    private(set) var touched: UInt8 = 0

    init() {
        starts = .allocate(capacity: CommentPrefetch.capacity)
        lengths = .allocate(capacity: CommentPrefetch.capacity)
    }

    func release() {
        starts.deallocate()
        lengths.deallocate()
    }

    /// Starts a new batch (all comments of the previous one were taken).
    mutating func reset() {
        count = 0
        cursor = 0
    }

    /// Draws the next comment of `column` and touches it.
    @inline(__always)
    mutating func draw(from column: inout TextColumn) {
        let (start, length) = column.next()
        starts[count] = start
        lengths[count] = length
        count &+= 1
        touched &+= start[0] &+ start[length &- 1]
    }

    /// The next comment of the batch, in drawing order.
    @inline(__always)
    mutating func next() -> (UnsafePointer<UInt8>, Int) {
        let index = cursor
        cursor &+= 1
        return (starts[index], lengths[index])
    }
}
