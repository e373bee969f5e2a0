// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseRuntime

/// One ORDER BY key: an input column, a direction and where NULLs go.
public struct SortKey: Sendable, Equatable {
    public var column: Int
    public var ascending: Bool
    public var nullsFirst: Bool

    /// `nullsFirst: nil` picks Redshift's (and PostgreSQL's) default: NULLs sort as
    /// larger than every value, so NULLS LAST for ASC and NULLS FIRST for DESC.
    public init(column: Int, ascending: Bool = true, nullsFirst: Bool? = nil) {
        self.column = column
        self.ascending = ascending
        self.nullsFirst = nullsFirst ?? !ascending
    }
}

/// ORDER BY, optionally with LIMIT/OFFSET (Top-N).
///
/// Sink: every input row is appended to flat columns. Source: a permutation of the
/// rows is sorted and the rows are gathered in that order, `Chunk.capacity` per chunk,
/// skipping the first `offset` and stopping after `limit`.
///
/// - The sort is stable: rows with equal keys keep their input order.
/// - A full sort never compares rows through closures: `RowSorter` maps each key value
///   to order-preserving 64-bit "digits" (strings: 8 bytes at a time; DECIMAL p > 18:
///   two digits) and sorts (digit, row) pairs with a specialised comparison, refining
///   runs of equal digits by the next digit, then runs of equal values by the next key.
/// - Top-N compares rows with one closure per key, chosen once per physical type, over
///   the column's typed buffer (strings: an 8-byte prefix first). No value is boxed.
/// - Strings order by their UTF-8 bytes (the "C" collation); doubles order NaN after
///   every other value, as PostgreSQL does; `false` sorts before `true`.
/// - With `limit`, only the best `limit + offset` rows are kept: whenever the buffer
///   holds twice that many (at least 8,192), a bounded max-heap selects the best rows
///   and the rest are dropped, so memory stays proportional to `limit + offset`.
///
/// ## Memory and spilling
/// With a `QueryContext`, the buffered rows are reserved from the statement's budget
/// after every input chunk (`Vector.memoryBytes` of the buffer). When the budget refuses:
/// - Top-N first drops all but the best `limit + offset` rows, if that discards at least
///   half of the buffer, so a LIMIT + OFFSET under `minRunRows` never spills;
/// - otherwise the buffer (at least `minRunRows` rows; a smaller one is kept by a forced
///   reservation) is sorted into a **run** — for Top-N only its best `limit + offset`
///   rows — written to a spill file (`ChunkSpill`), and freed.
/// At the end the runs and the rows still in memory are merged (`SortRunMerger`: by
/// normalized keys, which order exactly as the comparators above; ties go to the
/// earlier run, so the sort stays stable), `mergeFanIn` runs at a time — more runs are
/// first merged in consecutive groups into longer runs — with OFFSET and LIMIT applied
/// to the merged order. Without a context nothing is reserved or checked (no per-chunk
/// work at all); with one, cancellation is checked between input chunks.
public final class SortOperator: Operator, MemoryHolding {
    // Configuration (immutable).
    private let input: Operator
    private let keys: [SortKey]
    private let limit: Int?
    private let offset: Int
    private let context: QueryContext
    private let reservation: MemoryReservation

    /// The fewest buffered rows worth writing as a run (fewer are kept by force: tiny runs
    /// would make the merge wide and slow).
    static let minRunRows = 1024
    /// The most runs merged at once (a test lowers it to exercise the merge in passes).
    var mergeFanIn = 64

    // Per-instance state.
    private var columns: [Vector] = []
    private var rowCount = 0
    private var order: [Int32] = []
    private var position = 0
    private var done = false
    private var consumed = false
    /// Sorted runs written so far, in input order.
    private var runs: [SpillFile] = []
    private var merger: SortRunMerger?
    private var spilled = 0

    /// - Parameters:
    ///   - input: the child operator.
    ///   - keys: the sort keys, most significant first.
    ///   - limit: emit at most this many rows (after `offset`); nil = all.
    ///   - offset: skip this many rows of the sorted output.
    ///   - context: the statement's context: memory budget, spill space, cancellation
    ///     (nil: no limit, no spilling).
    public init(input: Operator, keys: [SortKey], limit: Int? = nil, offset: Int = 0, context: QueryContext) {
        self.input = input
        self.keys = keys
        self.limit = limit
        self.offset = max(0, offset)
        self.context = context
        self.reservation = MemoryReservation(context.memory)
    }

    /// The most bytes this operator held reserved at once.
    public var memoryPeak: Int { reservation.peak }
    /// Bytes this operator wrote to spill files.
    public var spilledBytes: Int { spilled }

    /// Rows kept for Top-N (`limit + offset`), or nil for a full sort.
    private var keepCount: Int? {
        guard let limit else { return nil }
        let (k, overflow) = max(0, limit).addingReportingOverflow(offset)
        return overflow ? nil : k
    }

    public func next() throws -> Chunk? {
        if !consumed {
            try consume()
            consumed = true
        }
        if let merger {
            try context.cancellation.check()
            if let chunk = try merger.next() { return chunk }
            self.merger = nil
            reservation.free()
            done = true
            return nil
        }
        if done || position >= order.count {
            if !done {
                // Everything is out: the buffer goes with the operator, the budget now.
                columns = []
                order = []
                reservation.free()
                done = true
            }
            return nil
        }
        let end = min(order.count, position + Chunk.capacity)
        let rows = Array(order[position..<end])
        position = end
        return Chunk(columns: columns.map { OperatorKernels.gather($0, rows) }, count: rows.count)
    }

    // MARK: Sink

    private func consume() throws {
        let keep = keepCount
        if keep == 0 { done = true; return }
        // Top-N compaction pays off while the kept rows are few; a huge limit is a full
        // sort followed by truncation.
        let compactAt = keep.flatMap { $0 < (1 << 24) ? max(2 * $0, 8192) : nil }
        var started = false
        while let chunk = try input.next() {
            try context.cancellation.check()
            if chunk.count == 0 { continue }
            if !started {
                columns = chunk.columns.map { Vector(type: $0.type) }
                for k in keys where k.column < 0 || k.column >= columns.count {
                    throw SQLError.internalError("sort key column \(k.column) out of range")
                }
                started = true
            }
            guard rowCount + chunk.count < Int(Int32.max) else {
                throw SQLError(.featureNotSupported, "sorting more than \(Int32.max) rows in one slice")
            }
            try OperatorKernels.append(&columns, chunk)
            rowCount += chunk.count
            if let keep, let compactAt, rowCount >= compactAt {
                // Keep only the best `keep` rows (in sorted order, which preserves stability).
                let best = sortedOrder(keep: keep)
                columns = columns.map { OperatorKernels.gather($0, best) }
                rowCount = best.count
            }
            try reserveBuffer(reservation, keep: keep)
        }
        guard started else { done = true; return }
        if runs.isEmpty {
            order = sortedOrder(keep: keep)
            position = min(offset, order.count)
            return
        }
        try startMerge(keep: keep)
    }

    // MARK: Spilling

    /// Bytes the buffered columns hold.
    private var bufferBytes: Int { columns.reduce(0) { $0 + $1.memoryBytes } }

    /// Reserve the buffer; when refused, shrink a Top-N buffer or write it out as a run.
    private func reserveBuffer(_ reservation: MemoryReservation, keep: Int?) throws {
        var bytes = bufferBytes
        if reservation.tryResize(to: bytes) { return }
        if let keep, keep < (1 << 24), rowCount >= 2 * keep {
            let best = sortedOrder(keep: keep)
            columns = columns.map { OperatorKernels.gather($0, best) }
            rowCount = best.count
            bytes = bufferBytes
            if reservation.tryResize(to: bytes) { return }
        }
        if rowCount < Self.minRunRows {
            reservation.resize(to: bytes)
            return
        }
        try spillRun(keep: keep)
        reservation.resize(to: bufferBytes)
    }

    /// Sort the buffer (its best `keep` rows with a limit) into a new spill file and
    /// empty it.
    private func spillRun(keep: Int?) throws {
        let runOrder = sortedOrder(keep: keep)
        let file = try context.spill.newFile(for: context.memory)
        var start = 0
        while start < runOrder.count {
            let end = min(runOrder.count, start + Chunk.capacity)
            let rows = Array(runOrder[start..<end])
            try file.appendChunk(Chunk(columns: columns.map { OperatorKernels.gather($0, rows) }, count: rows.count))
            start = end
        }
        try file.flush()
        spilled += file.size
        runs.append(file)
        columns = columns.map { Vector(type: $0.type) }
        rowCount = 0
    }

    /// Merge the runs and the rows still buffered (the last run) into the output order,
    /// first merging consecutive groups of runs while there are more than `mergeFanIn`.
    private func startMerge(keep: Int?) throws {
        let cancellation = context.cancellation
        var files = runs
        runs = []
        let memoryOrder = rowCount > 0 ? sortedOrder(keep: keep) : []
        let held = bufferBytes
        let fanIn = max(2, mergeFanIn)
        while files.count + (memoryOrder.isEmpty ? 0 : 1) > fanIn {
            var merged: [SpillFile] = []
            var start = 0
            while start < files.count {
                let group = files[start..<min(files.count, start + fanIn)]
                start += group.count
                if group.count == 1, let only = group.first { merged.append(only); continue }
                let groupRuns = group.enumerated().map { SortRun(file: $0.element, ordinal: $0.offset) }
                let m = try SortRunMerger(runs: groupRuns, keys: keys, skip: 0, limit: keep, reservation: reservation,
                                          cancellation: cancellation, baseBytes: held)
                let file = try context.spill.newFile(for: context.memory)
                while let chunk = try m.next() { try file.appendChunk(chunk) }
                try file.flush()
                spilled += file.size
                merged.append(file)
            }
            files = merged
        }
        var all = files.enumerated().map { SortRun(file: $0.element, ordinal: $0.offset) }
        if !memoryOrder.isEmpty {
            all.append(SortRun(columns: columns, order: memoryOrder, ordinal: files.count))
        }
        columns = []
        rowCount = 0
        merger = try SortRunMerger(runs: all, keys: keys, skip: offset, limit: limit, reservation: reservation,
                                   cancellation: cancellation, baseBytes: held)
    }

    // MARK: Sorting

    /// The rows in sorted order; with `keep`, only the first `keep` of them.
    private func sortedOrder(keep: Int?) -> [Int32] {
        let n = rowCount
        let keyColumns = keys.map { columns[$0.column] }
        guard let keep, keep < n, keep < (1 << 24) else {
            let all = RowSorter(columns: keyColumns, keys: keys).sortedRows(n)
            if let keep, keep < n { return Array(all.prefix(keep)) }
            return all
        }
        var views: [SortKeyView] = []
        return withSortKeyViews(keyColumns, index: 0, views: &views) { views in
            let comparators = zip(views, keys).map { makeComparator($0, ascending: $1.ascending, nullsFirst: $1.nullsFirst) }
            // Total order: keys, then input position (stability).
            let less: (Int32, Int32) -> Bool
            if comparators.count == 1 {
                let cmp = comparators[0]
                less = { a, b in
                    let c = cmp(Int(a), Int(b))
                    return c != 0 ? c < 0 : a < b
                }
            } else {
                less = { a, b in
                    for cmp in comparators {
                        let c = cmp(Int(a), Int(b))
                        if c != 0 { return c < 0 }
                    }
                    return a < b
                }
            }
            return Self.topK(count: n, keep: keep, less: less)
        }
    }

    /// The `keep` smallest of rows `0..<count` under `less`, sorted: a max-heap of the
    /// best rows so far whose root (the worst kept row) is replaced by any better row.
    static func topK(count n: Int, keep k: Int, less: (Int32, Int32) -> Bool) -> [Int32] {
        var heap = (0..<Int32(truncatingIfNeeded: k)).map { $0 }
        heap.withUnsafeMutableBufferPointer { h in
            func siftDown(_ start: Int) {
                var i = start
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var largest = i
                    if l < k && less(h[largest], h[l]) { largest = l }
                    if r < k && less(h[largest], h[r]) { largest = r }
                    if largest == i { return }
                    h.swapAt(i, largest)
                    i = largest
                }
            }
            var i = k / 2 - 1
            while i >= 0 { siftDown(i); i -= 1 }
            var x = k
            while x < n {
                let row = Int32(truncatingIfNeeded: x)
                if less(row, h[0]) {
                    h[0] = row
                    siftDown(0)
                }
                x += 1
            }
        }
        heap.sort(by: less)
        return heap
    }
}

// MARK: - Key views and comparators

/// A key column's typed buffers, valid only inside `withSortKeyViews`.
private enum SortKeyValues {
    case int64(UnsafeBufferPointer<Int64>)
    case int128(UnsafeBufferPointer<Int128>)
    case double(UnsafeBufferPointer<Double>)
    case bool(UnsafeBufferPointer<Bool>)
    /// Bytes, offsets, and the first 8 bytes of each string as a big-endian integer.
    case string(UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<UInt64>)
}

private struct SortKeyView {
    var values: SortKeyValues
    /// Validity words, or nil when the column has no NULLs.
    var validity: UnsafeBufferPointer<UInt64>?
}

/// Calls `body` with a view of each key column, nesting the `withUnsafeBufferPointer`
/// scopes so that every pointer stays valid for the whole of `body`.
private func withSortKeyViews<R>(_ columns: [Vector], index: Int, views: inout [SortKeyView],
                                 _ body: ([SortKeyView]) -> R) -> R {
    if index == columns.count { return body(views) }
    let v = columns[index]
    let words = v.validity?.words ?? []
    let hasValidity = v.validity != nil
    return words.withUnsafeBufferPointer { w in
        func recurse(_ values: SortKeyValues) -> R {
            views.append(SortKeyView(values: values, validity: hasValidity ? w : nil))
            defer { views.removeLast() }
            return withSortKeyViews(columns, index: index + 1, views: &views, body)
        }
        switch v.data {
        case .int64(let a): return a.withUnsafeBufferPointer { recurse(.int64($0)) }
        case .int128(let a): return a.withUnsafeBufferPointer { recurse(.int128($0)) }
        case .double(let a): return a.withUnsafeBufferPointer { recurse(.double($0)) }
        case .bool(let a): return a.withUnsafeBufferPointer { recurse(.bool($0)) }
        case .string(let s):
            let prefixes = stringPrefixes(s)
            return s.bytes.withUnsafeBufferPointer { b in
                s.offsets.withUnsafeBufferPointer { o in
                    prefixes.withUnsafeBufferPointer { p in recurse(.string(b, o, p)) }
                }
            }
        }
    }
}

/// First 8 bytes of every string, big-endian, zero-padded: comparing two prefixes as
/// integers orders like comparing the bytes, except that a tie needs the full bytes.
private func stringPrefixes(_ s: StringArray) -> [UInt64] {
    let n = s.count
    return s.bytes.withUnsafeBufferPointer { b in
        s.offsets.withUnsafeBufferPointer { o in
            [UInt64].building(capacity: n, placeholder: 0) { out, initialized in
                for i in 0..<n {
                    let st = Int(o[i]), len = min(8, Int(o[i + 1]) - st)
                    var p: UInt64 = 0
                    for j in 0..<8 {
                        p = (p &<< 8) | (j < len ? UInt64(b[st + j]) : 0)
                    }
                    out.initializeElement(at: i, to: p)
                }
                initialized = n
            }
        }
    }
}

@inline(__always)
private func threeWay<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }

/// A three-way comparison of two rows of one key column, direction and NULL placement
/// included.
private func makeComparator(_ view: SortKeyView, ascending: Bool, nullsFirst: Bool) -> (Int, Int) -> Int {
    let base: (Int, Int) -> Int
    switch view.values {
    case .int64(let p):
        base = ascending ? { threeWay(p[$0], p[$1]) } : { threeWay(p[$1], p[$0]) }
    case .int128(let p):
        base = ascending ? { threeWay(p[$0], p[$1]) } : { threeWay(p[$1], p[$0]) }
    case .double(let p):
        // NaN is larger than every other value and equal to itself.
        let cmp: (Double, Double) -> Int = { x, y in
            if x < y { return -1 }
            if x > y { return 1 }
            if x == y { return 0 }
            return x.isNaN ? (y.isNaN ? 0 : 1) : -1
        }
        base = ascending ? { cmp(p[$0], p[$1]) } : { cmp(p[$1], p[$0]) }
    case .bool(let p):
        base = ascending ? { threeWay(p[$0] ? 1 : 0, p[$1] ? 1 : 0) } : { threeWay(p[$1] ? 1 : 0, p[$0] ? 1 : 0) }
    case .string(let bytes, let offsets, let prefixes):
        let cmp: (Int, Int) -> Int = { a, b in
            let pa = prefixes[a], pb = prefixes[b]
            if pa != pb { return pa < pb ? -1 : 1 }
            let sa = Int(offsets[a]), la = Int(offsets[a + 1]) - sa
            let sb = Int(offsets[b]), lb = Int(offsets[b + 1]) - sb
            if la <= 8 && lb <= 8 { return threeWay(la, lb) }
            guard let base = bytes.baseAddress else { return threeWay(la, lb) }
            return compareBytes(base + sa, la, base + sb, lb)
        }
        base = ascending ? cmp : { cmp($1, $0) }
    }
    guard let w = view.validity else { return base }
    let nullOrder = nullsFirst ? -1 : 1
    return { a, b in
        let va = OperatorKernels.bit(w, a), vb = OperatorKernels.bit(w, b)
        if va && vb { return base(a, b) }
        if va == vb { return 0 }
        return va ? -nullOrder : nullOrder
    }
}

// MARK: - Full sort by normalized digits

/// One row during a sort: an order-preserving 64-bit digit of its key and its row number.
struct SortEntry {
    var key: UInt64
    var row: Int32
}

/// Stable multi-key sort of row numbers.
///
/// For one key over a set of rows (in ascending row order): NULL rows are split off
/// (kept in row order); the others get the key's first 64-bit digit and are sorted by
/// (digit, row); runs of equal digits are refined by the next digit where the type has
/// one (strings: the next 8 bytes, then the length; DECIMAL p > 18: the low 64 bits).
/// Runs of exactly equal values, and the NULL rows, are then sorted by the next key.
///
/// Digits (ascending; descending flips every bit):
/// - 64-bit integers: the value with the sign bit flipped.
/// - doubles: the IEEE bits, sign-magnitude made monotone; -0 is read as 0 and every NaN as
///   one NaN, which sorts after +infinity.
/// - booleans: 0 / 1.
/// - strings: bytes 8k..<8k+8, big-endian, zero-padded.
struct RowSorter {
    let columns: [Vector]
    let keys: [SortKey]

    init(columns: [Vector], keys: [SortKey]) {
        self.columns = columns
        self.keys = keys
    }

    func sortedRows(_ n: Int) -> [Int32] {
        sort((0..<Int32(truncatingIfNeeded: n)).map { $0 }, keyIndex: 0)
    }

    /// `rows` (ascending) sorted by `keys[keyIndex...]`, stable.
    func sort(_ rows: [Int32], keyIndex: Int) -> [Int32] {
        if rows.count <= 1 || keyIndex == keys.count { return rows }
        let column = columns[keyIndex], key = keys[keyIndex]
        var nulls: [Int32] = []
        var values: [Int32] = []
        if let validity = column.validity {
            validity.words.withUnsafeBufferPointer { w in
                for r in rows {
                    if OperatorKernels.bit(w, Int(r)) { values.append(r) } else { nulls.append(r) }
                }
            }
        } else {
            values = rows
        }
        let more = keyIndex + 1 < keys.count
        var (ordered, bounds) = Self.sortValues(values, column, ascending: key.ascending, bounds: more)
        if more {
            // Runs of equal values: order by the next key.
            for g in 0..<(bounds.count - 1) where bounds[g + 1] - bounds[g] > 1 {
                let run = Array(ordered[bounds[g]..<bounds[g + 1]])
                ordered.replaceSubrange(bounds[g]..<bounds[g + 1], with: sort(run, keyIndex: keyIndex + 1))
            }
            nulls = sort(nulls, keyIndex: keyIndex + 1)
        }
        if nulls.isEmpty { return ordered }
        return key.nullsFirst ? nulls + ordered : ordered + nulls
    }

    /// Sort non-NULL `rows` by one column. Returns the rows and, with `bounds`, the
    /// boundaries of runs of equal values (`bounds[0] = 0`, last = count); without, `[]`
    /// (one key: nothing refines the runs, and all-distinct keys made the boundaries as
    /// large as the rows).
    static func sortValues(_ rows: [Int32], _ column: Vector, ascending: Bool, bounds: Bool = true) -> ([Int32], [Int]) {
        let flip: UInt64 = ascending ? 0 : ~0
        let sign: UInt64 = 1 << 63
        switch column.data {
        case .int64(let a):
            if let counted = countingSort(rows, a, ascending: ascending, bounds: bounds) { return counted }
            var entries = a.withUnsafeBufferPointer { p in
                rows.map { SortEntry(key: (UInt64(bitPattern: p[Int($0)]) ^ sign) ^ flip, row: $0) }
            }
            sortEntries(&entries, 0..<entries.count)
            return (entries.map { $0.row }, bounds ? equalKeyBounds(entries) : [])
        case .double(let a):
            var entries = a.withUnsafeBufferPointer { p in
                rows.map { SortEntry(key: doubleDigit(p[Int($0)]) ^ flip, row: $0) }
            }
            sortEntries(&entries, 0..<entries.count)
            return (entries.map { $0.row }, bounds ? equalKeyBounds(entries) : [])
        case .bool(let a):
            var entries = a.withUnsafeBufferPointer { p in
                rows.map { SortEntry(key: (p[Int($0)] ? 1 : 0) ^ flip, row: $0) }
            }
            sortEntries(&entries, 0..<entries.count)
            return (entries.map { $0.row }, bounds ? equalKeyBounds(entries) : [])
        case .int128(let a):
            return a.withUnsafeBufferPointer { p in
                var entries = rows.map { SortEntry(key: (UInt64(truncatingIfNeeded: p[Int($0)] >> 64) ^ sign) ^ flip, row: $0) }
                sortEntries(&entries, 0..<entries.count)
                var lo = 0
                while lo < entries.count {
                    var hi = lo + 1
                    while hi < entries.count && entries[hi].key == entries[lo].key { hi += 1 }
                    if hi - lo > 1 {
                        for j in lo..<hi { entries[j].key = UInt64(truncatingIfNeeded: p[Int(entries[j].row)]) ^ flip }
                        sortEntries(&entries, lo..<hi)
                    }
                    lo = hi
                }
                let ordered = entries.map { $0.row }
                return (ordered, runBounds(ordered.count) { p[Int(ordered[$0])] == p[Int(ordered[$1])] })
            }
        case .string(let s):
            return sortStrings(rows, s, flip: flip)
        }
    }

    /// The widest span of values sorted by counting (a 256 KB histogram, which stays in
    /// the cache: wider ones scattered their counts and rows across memory, slower than
    /// the radix sort's passes).
    static let countingMaxSpan = 1 << 16

    /// A stable counting sort of `rows` by 64-bit integers spanning few values (a COPY's
    /// dates, keys of a dense range): one pass counts each value, one places each row, and
    /// it holds only the counts and the output where the radix sort held two 16-byte
    /// entries a row (96 MB more at once in an SF 1 lineitem COPY sorting two slices).
    /// Nil when the values span `countingMaxSpan` values or more, or four times the rows
    /// (the histogram's pass would outweigh the rows'), or for fewer than 256 rows (the
    /// comparison sort's).
    static func countingSort(_ rows: [Int32], _ a: [Int64], ascending: Bool, bounds wantBounds: Bool) -> ([Int32], [Int])? {
        let n = rows.count
        guard n >= 256 else { return nil }
        return a.withUnsafeBufferPointer { p -> ([Int32], [Int])? in
            rows.withUnsafeBufferPointer { r -> ([Int32], [Int])? in
                var lo = Int64.max, hi = Int64.min
                for i in 0..<n {
                    let v = p[Int(r[i])]
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
                // The span as unsigned: hi - lo may not fit in Int64.
                let span = UInt64(bitPattern: hi &- lo)
                guard span < UInt64(min(4 * n, countingMaxSpan)) else { return nil }
                let buckets = Int(span) + 1
                // counts[k]: rows of value lo + k (descending: of value hi - k), then the
                // first output position of that value.
                var counts = [Int32](filled: 0, count: buckets)
                var ordered = [Int32](filled: 0, count: n)
                var bounds: [Int] = wantBounds ? [0] : []
                counts.withUnsafeMutableBufferPointer { c in
                    @inline(__always) func bucket(_ v: Int64) -> Int {
                        ascending ? Int(UInt64(bitPattern: v &- lo)) : Int(UInt64(bitPattern: hi &- v))
                    }
                    for i in 0..<n { c[bucket(p[Int(r[i])])] &+= 1 }
                    var at: Int32 = 0
                    for k in 0..<buckets {
                        let x = c[k]
                        c[k] = at
                        at &+= x
                        if wantBounds && x > 0 { bounds.append(Int(at)) }
                    }
                    ordered.withUnsafeMutableBufferPointer { o in
                        for i in 0..<n {
                            let row = r[i]
                            let k = bucket(p[Int(row)])
                            o[Int(c[k])] = row
                            c[k] &+= 1
                        }
                    }
                }
                return (ordered, bounds)
            }
        }
    }

    /// Most-significant-digit string sort, 8 bytes per level.
    static func sortStrings(_ rows: [Int32], _ s: StringArray, flip: UInt64) -> ([Int32], [Int]) {
        s.bytes.withUnsafeBufferPointer { b in
            s.offsets.withUnsafeBufferPointer { o in
                @inline(__always) func digit(_ r: Int32, _ level: Int) -> UInt64 {
                    let st = Int(o[Int(r)]), len = Int(o[Int(r) + 1]) - st
                    let from = level * 8
                    var d: UInt64 = 0
                    for j in 0..<8 {
                        let k = from + j
                        d = (d &<< 8) | (k < len ? UInt64(b[st + k]) : 0)
                    }
                    return d ^ flip
                }
                @inline(__always) func length(_ r: Int32) -> Int { Int(o[Int(r) + 1] &- o[Int(r)]) }

                var entries = rows.map { SortEntry(key: digit($0, 0), row: $0) }
                sortEntries(&entries, 0..<entries.count)
                // Ranges whose strings agree on the first `level` digits.
                var pending: [(Range<Int>, Int)] = [(0..<entries.count, 0)]
                var first = true
                while let (range, level) = pending.popLast() {
                    if !first {
                        for j in range { entries[j].key = digit(entries[j].row, level) }
                        sortEntries(&entries, range)
                    }
                    first = false
                    var lo = range.lowerBound
                    while lo < range.upperBound {
                        var hi = lo + 1
                        var longest = length(entries[lo].row)
                        while hi < range.upperBound && entries[hi].key == entries[lo].key {
                            longest = max(longest, length(entries[hi].row))
                            hi += 1
                        }
                        if hi - lo > 1 {
                            if longest <= (level + 1) * 8 {
                                // Equal bytes up to zero padding: the shorter string first.
                                for j in lo..<hi { entries[j].key = UInt64(length(entries[j].row)) ^ flip }
                                sortEntries(&entries, lo..<hi)
                            } else {
                                pending.append((lo..<hi, level + 1))
                            }
                        }
                        lo = hi
                    }
                }
                let ordered = entries.map { $0.row }
                let bounds = runBounds(ordered.count) { i, j in
                    let a = ordered[i], c = ordered[j]
                    let sa = Int(o[Int(a)]), la = length(a), sc = Int(o[Int(c)]), lc = length(c)
                    if la != lc { return false }
                    if la == 0 { return true }
                    guard let base = b.baseAddress else { return true }
                    return equalBytes(base + sa, base + sc, la)
                }
                return (ordered, bounds)
            }
        }
    }

    /// Sort `entries[range]` by (key, row). The entries of a range are always in row
    /// order when this is called, so a stable sort by key suffices: large ranges use an
    /// LSD radix sort (8 passes of 8 bits, skipping passes where all entries share the
    /// byte), small ones a comparison sort.
    static func sortEntries(_ entries: inout [SortEntry], _ range: Range<Int>) {
        let n = range.count
        if n < 2 { return }
        if n < 256 {
            entries[range].sort { a, b in a.key != b.key ? a.key < b.key : a.row < b.row }
            return
        }
        var counts = [Int](filled: 0, count: 8 * 256)
        var scratch = [SortEntry](filled: SortEntry(key: 0, row: 0), count: n)
        entries.withUnsafeMutableBufferPointer { all in
            guard let base = all.baseAddress else { return }
            let data = UnsafeMutableBufferPointer(start: base + range.lowerBound, count: n)
            scratch.withUnsafeMutableBufferPointer { tmp in
                counts.withUnsafeMutableBufferPointer { c in
                    for i in 0..<n {
                        let k = data[i].key
                        for d in 0..<8 { c[d &* 256 &+ Int((k &>> UInt64(d &* 8)) & 0xFF)] &+= 1 }
                    }
                    var src = data, dst = tmp
                    for d in 0..<8 {
                        let h = d * 256
                        // All entries share this byte: the pass would not move anything.
                        if c[h + Int((src[0].key &>> UInt64(d * 8)) & 0xFF)] == n { continue }
                        var sum = 0
                        for b in 0..<256 {
                            let x = c[h + b]
                            c[h + b] = sum
                            sum &+= x
                        }
                        for i in 0..<n {
                            let e = src[i]
                            let b = h &+ Int((e.key &>> UInt64(d &* 8)) & 0xFF)
                            dst[c[b]] = e
                            c[b] &+= 1
                        }
                        swap(&src, &dst)
                    }
                    if src.baseAddress != data.baseAddress {
                        for i in 0..<n { data[i] = src[i] }
                    }
                }
            }
        }
    }

    /// Monotone 64-bit image of a double (see the type documentation).
    @inline(__always)
    static func doubleDigit(_ x: Double) -> UInt64 {
        let v = x == 0 ? 0.0 : (x.isNaN ? Double.nan : x)
        let bits = v.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    static func equalKeyBounds(_ entries: [SortEntry]) -> [Int] {
        var bounds = [0]
        for i in 1..<max(1, entries.count) where entries[i].key != entries[i - 1].key { bounds.append(i) }
        if entries.count > 0 { bounds.append(entries.count) }
        return bounds
    }

    static func runBounds(_ n: Int, _ equal: (Int, Int) -> Bool) -> [Int] {
        var bounds = [0]
        if n == 0 { return bounds }
        for i in 1..<n where !equal(i - 1, i) { bounds.append(i) }
        bounds.append(n)
        return bounds
    }
}

/// The stable permutation that orders `count` rows by `keys` (column indices into
/// `columns`). The storage layer sorts each load by the table's sort key with it.
public func sortPermutation(columns: [Vector], keys: [SortKey], count: Int) -> [Int32] {
    let keyColumns = keys.map { columns[$0.column].flattened(count: count) }
    let local = keys.enumerated().map { SortKey(column: $0.offset, ascending: $0.element.ascending, nullsFirst: $0.element.nullsFirst) }
    return RowSorter(columns: keyColumns, keys: local).sortedRows(count)
}

/// Merge two runs of rows that are each in `keys` order — rows `0..<split` and
/// `split..<count` — into one order (stable: on equal keys the first run's row comes
/// first). VACUUM merges a slice's sorted region with its newly sorted unsorted region.
public func mergeSortedRuns(columns: [Vector], keys: [SortKey], split: Int, count: Int) -> [Int32] {
    if split <= 0 || split >= count { return Array(0..<Int32(count)) }
    let keyColumns = keys.map { columns[$0.column].flattened(count: count) }
    var views: [SortKeyView] = []
    return withSortKeyViews(keyColumns, index: 0, views: &views) { v in
        let cmps = zip(v, keys).map { makeComparator($0.0, ascending: $0.1.ascending, nullsFirst: $0.1.nullsFirst) }
        @inline(__always) func lessOrEqual(_ a: Int, _ b: Int) -> Bool {
            for c in cmps {
                let r = c(a, b)
                if r != 0 { return r < 0 }
            }
            return true
        }
        var out = [Int32]()
        out.reserveCapacity(count)
        var i = 0, j = split
        while i < split && j < count {
            if lessOrEqual(i, j) { out.append(Int32(i)); i += 1 } else { out.append(Int32(j)); j += 1 }
        }
        while i < split { out.append(Int32(i)); i += 1 }
        while j < count { out.append(Int32(j)); j += 1 }
        return out
    }
}

/// Whether row `a` sorts at or before row `b` by `keys` (VACUUM RECLUSTER checks whether a
/// newly sorted region follows the sorted one).
public func rowsInOrder(columns: [Vector], keys: [SortKey], _ a: Int, _ b: Int, count: Int) -> Bool {
    let keyColumns = keys.map { columns[$0.column].flattened(count: count) }
    var views: [SortKeyView] = []
    return withSortKeyViews(keyColumns, index: 0, views: &views) { v in
        for (view, k) in zip(v, keys) {
            let r = makeComparator(view, ascending: k.ascending, nullsFirst: k.nullsFirst)(a, b)
            if r != 0 { return r < 0 }
        }
        return true
    }
}
