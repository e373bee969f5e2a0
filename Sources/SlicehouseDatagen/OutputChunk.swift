// SPDX-License-Identifier: Apache-2.0
/// Generated rows of one chunk: bytes owned until the chunk is released
/// (its memory then goes back to the `BufferRecycler`).
final class OutputChunk: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int
    private let capacity: Int
    /// Text lines (table rows) in the chunk.
    let rows: Int
    /// See `RowBuffer.touched`.
    let touched: UInt8

    init(base: UnsafeMutablePointer<UInt8>, count: Int, capacity: Int, rows: Int, touched: UInt8) {
        self.base = base
        self.count = count
        self.capacity = capacity
        self.rows = rows
        self.touched = touched
    }

    deinit { BufferRecycler.shared.give(base, capacity: capacity) }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
}
