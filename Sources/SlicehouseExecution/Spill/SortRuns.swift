// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseRuntime

/// Byte strings that order like ORDER BY keys: `compareBytes` of two rows' strings is
/// the three-way comparison of the rows by every key (direction and NULL placement
/// included), so the merge of sorted runs compares rows of different chunks without a
/// per-type comparator.
///
/// Per key, one marker byte (NULL: 0 with NULLS FIRST, 2 with NULLS LAST; a value: 1),
/// then for a value:
/// - 64-bit integers: big-endian, sign bit flipped; DECIMAL p > 18 and INTERVAL: the
///   high then the low 64 bits the same way (the low half unsigned);
/// - doubles: `RowSorter.doubleDigit` big-endian (-0 = 0, NaN after +infinity);
/// - booleans: 0 / 1;
/// - strings: the bytes with 0x00 written as 0x00 0x01, then 0x00 0x00, so a string
///   sorts before every longer string it is a prefix of, as `compareBytes` orders them;
/// - descending keys: the value's bytes inverted (the marker is not: it already
///   says where NULLs go).
///
/// These are the in-memory sort's semantics (`RowSorter`, `makeComparator`): byte
/// ("C") collation for strings, NaN last among values, `false` before `true`.
enum NormalizedSortKeys {
    static let nullFirstMarker: UInt8 = 0
    static let valueMarker: UInt8 = 1
    static let nullLastMarker: UInt8 = 2

    /// The key string of each of the `rows` rows of the flat `columns`.
    static func encode(_ columns: [Vector], keys: [SortKey], rows n: Int) throws -> StringArray {
        var lengths = [Int](filled: 0, count: n)
        for key in keys {
            let v = columns[key.column]
            let fixed: Int
            switch v.data {
            case .int64, .double: fixed = 8
            case .int128: fixed = 16
            case .bool: fixed = 1
            case .string(let s):
                fixed = 0
                s.bytes.withUnsafeBufferPointer { b in
                    s.offsets.withUnsafeBufferPointer { o in
                        for r in 0..<n where !v.isNull(r) {
                            var len = 2
                            for i in Int(o[r])..<Int(o[r + 1]) { len &+= b[i] == 0 ? 2 : 1 }
                            lengths[r] &+= len
                        }
                    }
                }
            }
            for r in 0..<n { lengths[r] &+= 1 &+ (fixed > 0 && !v.isNull(r) ? fixed : 0) }
        }
        var offsets = [Int32](filled: 0, count: n + 1)
        var total = 0
        for r in 0..<n {
            total += lengths[r]
            guard total < Int(Int32.max) else {
                throw SQLError(.featureNotSupported, "sort keys of more than 2 GB in one chunk")
            }
            offsets[r + 1] = Int32(truncatingIfNeeded: total)
        }
        var bytes = [UInt8](filled: 0, count: total)
        // Where each row's next key starts.
        var cursor = offsets.dropLast().map { Int($0) }
        bytes.withUnsafeMutableBytes { out in
            guard let base = out.baseAddress else { return }
            cursor.withUnsafeMutableBufferPointer { at in
                for key in keys {
                    write(columns[key.column], key, n, base, at)
                }
            }
        }
        return StringArray(bytes: bytes, offsets: offsets)
    }

    /// Appends one key of every row at `at[r]` (advancing it).
    private static func write(_ v: Vector, _ key: SortKey, _ n: Int, _ base: UnsafeMutableRawPointer,
                              _ at: UnsafeMutableBufferPointer<Int>) {
        let flip: UInt64 = key.ascending ? 0 : ~0
        let flipByte = UInt8(truncatingIfNeeded: flip)
        let nullMarker = key.nullsFirst ? nullFirstMarker : nullLastMarker
        let sign: UInt64 = 1 << 63
        let empty: [UInt64] = []
        (v.validity?.words ?? empty).withUnsafeBufferPointer { w in
            let hasNulls = v.validity != nil
            /// Writes the marker; true when a value follows.
            @inline(__always) func marker(_ r: Int) -> Bool {
                let valid = !hasNulls || OperatorKernels.bit(w, r)
                base.storeBytes(of: valid ? valueMarker : nullMarker, toByteOffset: at[r], as: UInt8.self)
                at[r] &+= 1
                return valid
            }
            @inline(__always) func put(_ r: Int, _ x: UInt64) {
                base.storeBytes(of: x.bigEndian, toByteOffset: at[r], as: UInt64.self)
                at[r] &+= 8
            }
            switch v.data {
            case .int64(let a):
                a.withUnsafeBufferPointer { p in
                    for r in 0..<n where marker(r) { put(r, UInt64(bitPattern: p[r]) ^ sign ^ flip) }
                }
            case .int128(let a):
                a.withUnsafeBufferPointer { p in
                    for r in 0..<n where marker(r) {
                        put(r, UInt64(truncatingIfNeeded: p[r] >> 64) ^ sign ^ flip)
                        put(r, UInt64(truncatingIfNeeded: p[r]) ^ flip)
                    }
                }
            case .double(let a):
                a.withUnsafeBufferPointer { p in
                    for r in 0..<n where marker(r) { put(r, RowSorter.doubleDigit(p[r]) ^ flip) }
                }
            case .bool(let a):
                a.withUnsafeBufferPointer { p in
                    for r in 0..<n where marker(r) {
                        base.storeBytes(of: (p[r] ? 1 : 0) ^ flipByte, toByteOffset: at[r], as: UInt8.self)
                        at[r] &+= 1
                    }
                }
            case .string(let s):
                s.bytes.withUnsafeBufferPointer { b in
                    s.offsets.withUnsafeBufferPointer { o in
                        let out = base.assumingMemoryBound(to: UInt8.self)
                        for r in 0..<n where marker(r) {
                            var k = at[r]
                            for i in Int(o[r])..<Int(o[r + 1]) {
                                let c = b[i]
                                out[k] = c ^ flipByte
                                k &+= 1
                                if c == 0 { out[k] = 1 ^ flipByte; k &+= 1 }
                            }
                            out[k] = flipByte
                            out[k &+ 1] = flipByte
                            at[r] = k &+ 2
                        }
                    }
                }
            }
        }
    }
}

/// One sorted run of a spilling sort: a spill file of chunks in key order, or the rows
/// still in memory at the end (their columns and sorted order).
final class SortRun {
    /// Position of the run in input order: on equal keys the earlier run's row comes
    /// first, which keeps the sort stable across runs.
    let ordinal: Int
    private var reader: SpillReader?
    private var columns: [Vector]
    private var order: [Int32]
    private var position = 0

    init(file: SpillFile, ordinal: Int) {
        self.ordinal = ordinal
        reader = file.reader()
        columns = []
        order = []
    }

    init(columns: [Vector], order: [Int32], ordinal: Int) {
        self.ordinal = ordinal
        self.columns = columns
        self.order = order
    }

    /// The run's next chunk (never empty), or nil at its end.
    func next() throws -> Chunk? {
        if reader != nil {
            while let chunk = try reader?.readChunk() {
                if chunk.count > 0 { return chunk }
            }
            reader = nil
            return nil
        }
        guard position < order.count else {
            columns = []
            order = []
            return nil
        }
        let end = min(order.count, position + Chunk.capacity)
        let rows = Array(order[position..<end])
        position = end
        return Chunk(columns: columns.map { OperatorKernels.gather($0, rows) }, count: rows.count)
    }
}

/// The k-way merge of sorted runs: a binary min-heap of run cursors ordered by their
/// current row's normalized key (`NormalizedSortKeys`), ties broken by run ordinal.
/// Output rows are collected as (chunk, row) picks and gathered a column at a time
/// (`Vector.gather(from:type:chunk:row:)`), `Chunk.capacity` rows per chunk.
///
/// It holds one chunk per run (plus the chunks an output chunk draws from); that memory
/// is reserved by force (it cannot be spilled further) on `reservation`.
final class SortRunMerger {
    private struct Cursor {
        var run: SortRun
        var chunk: Chunk
        var keys: StringArray
        var row: Int
        /// Index of `chunk` in `parts` while the output chunk being built uses it, else -1.
        var part: Int32
        var bytes: Int
    }

    private let keys: [SortKey]
    private var cursors: [Cursor] = []
    private var heap: [Int] = []
    private var toSkip: Int
    private var remaining: Int
    private let reservation: MemoryReservation?
    private let cancellation: Cancellation?
    private let baseBytes: Int
    private var cursorBytes = 0

    /// - Parameters:
    ///   - skip: rows of the merged order to drop first (OFFSET).
    ///   - limit: rows to give after those (nil: all).
    ///   - baseBytes: what the caller holds besides the merge (kept in the reservation).
    init(runs: [SortRun], keys: [SortKey], skip: Int, limit: Int?, reservation: MemoryReservation?,
         cancellation: Cancellation?, baseBytes: Int) throws {
        self.keys = keys
        self.cancellation = cancellation
        self.toSkip = max(0, skip)
        self.remaining = limit.map { max(0, $0) } ?? Int.max
        self.reservation = reservation
        self.baseBytes = baseBytes
        if remaining == 0 { return }
        for run in runs {
            guard let chunk = try run.next() else { continue }
            let encoded = try NormalizedSortKeys.encode(chunk.columns, keys: keys, rows: chunk.count)
            let bytes = chunk.memoryBytes + encoded.bytes.capacity + encoded.offsets.capacity * 4
            cursorBytes += bytes
            cursors.append(Cursor(run: run, chunk: chunk, keys: encoded, row: 0, part: -1, bytes: bytes))
        }
        reservation?.resize(to: baseBytes + cursorBytes)
        heap = Array(cursors.indices)
        var i = heap.count / 2 - 1
        while i >= 0 { siftDown(i); i -= 1 }
    }

    @inline(__always)
    private func less(_ a: Int, _ b: Int) -> Bool {
        let c = StringArray.compare(cursors[a].keys, cursors[a].row, cursors[b].keys, cursors[b].row)
        if c != 0 { return c < 0 }
        return cursors[a].run.ordinal < cursors[b].run.ordinal
    }

    private func siftDown(_ start: Int) {
        var i = start
        let n = heap.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < n && less(heap[l], heap[smallest]) { smallest = l }
            if r < n && less(heap[r], heap[smallest]) { smallest = r }
            if smallest == i { return }
            heap.swapAt(i, smallest)
            i = smallest
        }
    }

    /// The next merged chunk, or nil when the runs (or the limit) are exhausted.
    func next() throws -> Chunk? {
        guard remaining > 0, !heap.isEmpty else { return nil }
        var parts: [Chunk] = []
        var pickPart: [Int32] = []
        var pickRow: [Int32] = []
        pickPart.reserveCapacity(Chunk.capacity)
        pickRow.reserveCapacity(Chunk.capacity)
        while pickRow.count < Chunk.capacity && remaining > 0, let top = heap.first {
            if toSkip > 0 {
                toSkip -= 1
            } else {
                if cursors[top].part < 0 {
                    cursors[top].part = Int32(truncatingIfNeeded: parts.count)
                    parts.append(cursors[top].chunk)
                }
                pickPart.append(cursors[top].part)
                pickRow.append(Int32(truncatingIfNeeded: cursors[top].row))
                remaining -= 1
            }
            cursors[top].row += 1
            if cursors[top].row == cursors[top].chunk.count {
                try advance(top)
            } else {
                siftDown(0)
            }
        }
        for i in cursors.indices { cursors[i].part = -1 }
        guard let first = parts.first, !pickRow.isEmpty else { return nil }
        let columns = first.columns.indices.map { c in
            Vector.gather(from: parts.map { $0.columns[c] }, type: first.columns[c].type, chunk: pickPart, row: pickRow)
        }
        return Chunk(columns: columns, count: pickRow.count)
    }

    /// Cursor `top` (at the heap's root) has used up its chunk: load the run's next one,
    /// or drop the run from the heap.
    private func advance(_ top: Int) throws {
        try cancellation?.check()
        cursorBytes -= cursors[top].bytes
        if let chunk = try cursors[top].run.next() {
            let encoded = try NormalizedSortKeys.encode(chunk.columns, keys: keys, rows: chunk.count)
            let bytes = chunk.memoryBytes + encoded.bytes.capacity + encoded.offsets.capacity * 4
            cursorBytes += bytes
            cursors[top].chunk = chunk
            cursors[top].keys = encoded
            cursors[top].row = 0
            cursors[top].part = -1
            cursors[top].bytes = bytes
            reservation?.resize(to: baseBytes + cursorBytes)
            siftDown(0)
        } else {
            cursors[top].keys = StringArray()
            cursors[top].bytes = 0
            // The chunk may still be a part of the output being built: `parts` keeps it.
            cursors[top].chunk = Chunk(columns: [], count: 0)
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
    }
}
