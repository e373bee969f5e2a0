// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// LIMIT / OFFSET over a stream of chunks.
///
/// Skips the first `offset` logical rows, then passes on at most `limit` rows (all
/// when `limit` is nil). Rows are never copied: a partly used chunk gets a selection
/// vector (a slice of its existing selection, or of its row numbers). Once the limit
/// is reached the input is not pulled again.
public final class LimitOperator: Operator {
    // Configuration (immutable).
    private let input: Operator
    private let limit: Int?
    private let offset: Int

    // Per-instance state.
    private var skipped = 0
    private var emitted = 0

    /// - Parameters:
    ///   - input: the child operator.
    ///   - limit: at most this many rows; nil = no limit.
    ///   - offset: rows to skip first.
    public init(input: Operator, limit: Int?, offset: Int = 0) {
        self.input = input
        self.limit = limit.map { max(0, $0) }
        self.offset = max(0, offset)
    }

    public func next() throws -> Chunk? {
        while true {
            if let limit, emitted >= limit { return nil }
            guard let chunk = try input.next() else { return nil }
            let n = chunk.count
            if n == 0 { continue }
            // Logical rows [start, end) of this chunk are emitted.
            let start = min(n, offset - skipped)
            skipped += start
            var end = n
            if let limit {
                let remaining = limit - emitted
                if remaining < n - start { end = start + remaining }
            }
            if end <= start { continue }
            emitted += end - start
            if start == 0 && end == n { return chunk }
            var out = chunk
            if let selection = chunk.selection {
                out.selection = Array(selection[start..<end])
            } else {
                out.selection = (Int32(truncatingIfNeeded: start)..<Int32(truncatingIfNeeded: end)).map { $0 }
            }
            return out
        }
    }
}
