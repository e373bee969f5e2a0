// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import CPrefetch

/// `column op constant` for evaluation on encoded blocks (see `EncodedPredicate`).
public struct EncodedFilter: Sendable {
    /// Position of the column in the scan's column list.
    public var columnPosition: Int
    public var op: CompareOp
    /// In the column's physical form.
    public var constant: Value
    public init(columnPosition: Int, op: CompareOp, constant: Value) {
        self.columnPosition = columnPosition; self.op = op; self.constant = constant
    }
}

/// Block counters of one scan (summed into the query's summary).
public struct ScanCounters: Sendable {
    public var blocksRead = 0
    public var blocksSkipped = 0
    public var rowsRead = 0
    /// Runtime filters from hash joins were applied (STL_SCAN.runtime_filtering), and the
    /// rows they dropped.
    public var runtimeFiltering = false
    public var rowsRuntimeFiltered = 0
    public init() {}
    public mutating func add(_ o: ScanCounters) {
        blocksRead += o.blocksRead; blocksSkipped += o.blocksSkipped; rowsRead += o.rowsRead
        runtimeFiltering = runtimeFiltering || o.runtimeFiltering
        rowsRuntimeFiltered += o.rowsRuntimeFiltered
    }
}

/// The column a scan asks for to get each row's id (DELETE and UPDATE use it):
/// `slice << 40 | row`.
public let rowIDColumn = -1
/// The name under which DELETE and UPDATE see the row id.
public let rowIDColumnName = "__rowid"

/// Streams chunks of rows from one or more slices of a table snapshot: only the
/// requested columns, only blocks whose zone maps may match the predicates, rows
/// marked deleted left out through the chunk's selection. Blocks are decoded one at
/// a time (through the cache); nothing holds a whole table.
public final class SliceScanner {
    private let parts: [(slice: Int, data: SliceData)]
    private let columns: [Int]
    private let types: [DataType]
    private let cache: BlockCache
    public private(set) var counters = ScanCounters()
    /// For error messages: the table's name and the names of `columns`, so that a
    /// damaged block is reported with its table, column and file.
    public var tableName = "?"
    public var columnNames: [String] = []

    private var part = 0
    private var ranges: [Range<Int>] = []
    private var rangeIndex = 0
    private var position = 0
    /// Per requested column: the block index and decoded block in use.
    private var current: [(index: Int, block: ScanBlock?)] = []

    /// - columns: table column indices (or `rowIDColumn`); types: their types.
    /// - predicates: conjuncts for zone maps; encodedFilters: `column op constant`
    ///   conjuncts (index into `columns`, constant in the column's physical form) that
    ///   RUNLENGTH and BYTEDICT blocks evaluate on runs and dictionary codes.
    /// - runtimeFilters: hash joins' build keys for columns of `columns` (by index),
    ///   read from their slots when the scan starts (see `RuntimeKeyFilter`).
    public init(parts: [(slice: Int, data: SliceData)], columns: [Int], types: [DataType],
                predicates: [ZonePredicate], encodedFilters: [EncodedFilter] = [],
                runtimeFilters: [(position: Int, slot: RuntimeFilterSlot)] = [], cache: BlockCache) {
        self.parts = parts
        self.columns = columns
        self.types = types
        self.cache = cache
        self.predicates = predicates
        self.encodedFilters = encodedFilters
        self.runtimeSlots = runtimeFilters
    }

    private var started = false
    private var predicates: [ZonePredicate]
    private let runtimeSlots: [(position: Int, slot: RuntimeFilterSlot)]
    private let encodedFilters: [EncodedFilter]
    /// Checks row by row on a column's decoded block, before any other column is decoded
    /// (a chunk with no match decodes nothing else; a few matches gather just those
    /// rows), in this order:
    /// - the zone predicates on integer-backed columns of the scan; one that keeps more
    ///   than a quarter of the rows after 16k stops (the filter above does it);
    /// - the runtime filters found in their slots at the start; one that keeps over 90%
    ///   after 64k stops (its range still skips blocks).
    private var rowChecks: [RowCheck] = []

    /// One row check, with the rows it checked and kept.
    struct RowCheck {
        enum Test {
            case predicate(RowPredicate)
            case runtimeFilter(RuntimeKeyFilter)
        }
        let position: Int
        let test: Test
        var checked = 0
        var kept = 0
        var on = true

        init(position: Int, test: Test) { self.position = position; self.test = test }

        /// Whether it keeps too many rows to be worth checking.
        var keepsTooMany: Bool {
            switch test {
            case .predicate: return checked >= 1 << 14 && kept * 4 > checked
            case .runtimeFilter: return checked >= 1 << 16 && kept * 10 > checked * 9
            }
        }
    }
    /// Blocks of the scanned columns in the current slice's candidate ranges, and
    /// `counters.blocksRead` when the slice started: those never decoded count as skipped.
    private var candidateBlocks = 0
    private var readAtPartStart = 0
    /// Match bitmaps of encoded blocks (by block uid and filter index), for the block in use.
    private var encodedMatches: [Int: (uid: UInt64, bits: Validity?)] = [:]

    /// Read the runtime filters' slots: each range becomes a zone predicate, each filter a
    /// row check. A filter with no key at all ends the scan before it starts.
    private func start() {
        started = true
        for p in predicates {
            guard let position = columns.firstIndex(of: p.column), p.isNull || types[position].physical == .int64,
                  let test = RowPredicate(p) else { continue }
            rowChecks.append(RowCheck(position: position, test: .predicate(test)))
        }
        var filters: [RowCheck] = []
        for (position, slot) in runtimeSlots {
            guard let f = slot.filter, position >= 0, position < columns.count, columns[position] >= 0,
                  types[position].physical == .int64 else { continue }
            counters.runtimeFiltering = true
            if f.isEmpty {
                part = parts.count
                return
            }
            predicates.append(f.zonePredicate(column: columns[position]))
            filters.append(RowCheck(position: position, test: .runtimeFilter(f)))
        }
        // The cheapest first, so the dearer ones see fewer rows: an exact bitmap (small,
        // cached), then a Bloom filter (a load that misses the caches once it is large),
        // then a range alone (it keeps what the zone maps let through).
        func rank(_ c: RowCheck) -> Int {
            guard case .runtimeFilter(let f) = c.test else { return 0 }
            return f.bits != nil ? 0 : f.bloom != nil ? 1 : 2
        }
        for k in 0..<3 { rowChecks += filters.filter { rank($0) == k } }
        startPart()
    }

    private func startPart() {
        while part < parts.count {
            let d = parts[part].data
            ranges = Self.candidateRanges(d, predicates: predicates)
            // Count the blocks of the scanned columns that no candidate range touches.
            let touchedColumns = Set(columns.filter { $0 >= 0 })
            candidateBlocks = 0
            readAtPartStart = counters.blocksRead
            for c in touchedColumns where c < d.columns.count {
                for b in d.columns[c] {
                    if Self.overlaps(b.firstRow..<b.endRow, ranges) { candidateBlocks += 1 } else { counters.blocksSkipped += 1 }
                }
            }
            rangeIndex = 0
            position = ranges.first?.lowerBound ?? 0
            current = columns.map { _ in (index: 0, block: nil) }
            if !ranges.isEmpty { return }
            part += 1
        }
    }

    static func overlaps(_ r: Range<Int>, _ ranges: [Range<Int>]) -> Bool {
        for x in ranges where x.overlaps(r) { return true }
        return false
    }

    /// Row ranges of a slice whose blocks may hold matching rows, for every predicate.
    static func candidateRanges(_ d: SliceData, predicates: [ZonePredicate]) -> [Range<Int>] {
        if d.rowCount == 0 { return [] }
        var ranges: [Range<Int>] = [0..<d.rowCount]
        for p in predicates where p.column >= 0 && p.column < d.columns.count {
            var allowed: [Range<Int>] = []
            for b in d.columns[p.column] where b.zone.mayMatch(p) {
                if let last = allowed.last, last.upperBound == b.firstRow {
                    allowed[allowed.count - 1] = last.lowerBound..<b.endRow
                } else {
                    allowed.append(b.firstRow..<b.endRow)
                }
            }
            ranges = intersect(ranges, allowed)
            if ranges.isEmpty { break }
        }
        return ranges
    }

    static func intersect(_ a: [Range<Int>], _ b: [Range<Int>]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = 0, j = 0
        while i < a.count && j < b.count {
            let lo = max(a[i].lowerBound, b[j].lowerBound), hi = min(a[i].upperBound, b[j].upperBound)
            if lo < hi { out.append(lo..<hi) }
            if a[i].upperBound < b[j].upperBound { i += 1 } else { j += 1 }
        }
        return out
    }

    /// Rows of sparse ranges (filters kept at most a quarter) gathered so far: they leave
    /// as one chunk once there are `coalescedRows`, so the operators above see chunks of
    /// hundreds of rows, not a chunk of a dozen per 2,048-row range (a selective runtime
    /// filter on lineitem made thousands of them, and each operator's per-chunk buffers
    /// cost more than its rows).
    private var carry: [Vector] = []
    private var carryRows = 0
    /// A chunk that came after the carried rows, returned next.
    private var held: Chunk? = nil
    /// Carried rows past this many leave as a chunk (each sparse range adds at most a
    /// quarter of `Chunk.capacity`, so a chunk stays under it).
    static let coalescedRows = Chunk.capacity / 2

    /// The next chunk of at most `Chunk.capacity` rows, or nil at the end.
    public func next() throws -> Chunk? {
        if let h = held {
            held = nil
            return h
        }
        let chunk = try nextRange()
        if carryRows > 0 && (chunk == nil || carryRows >= Self.coalescedRows || chunk?.isCarried == false) {
            let out = Chunk(columns: carry, count: carryRows)
            carry = []
            carryRows = 0
            if let chunk, !chunk.isCarried { held = chunk.chunk }
            return out
        }
        return chunk?.chunk
    }

    /// A chunk from `nextRange`: a range's own chunk, or `carried` when its rows went to
    /// `carry` (the chunk is then empty).
    struct RangeChunk {
        var chunk: Chunk?
        var isCarried: Bool
    }

    /// The next range's chunk, or the rows of sparse ranges added to `carry` until there
    /// are `coalescedRows`; nil at the end.
    private func nextRange() throws -> RangeChunk? {
        if !started { start() }
        while part < parts.count {
            if rangeIndex >= ranges.count {
                // Candidate blocks the row predicates spared from decoding were skipped too.
                counters.blocksSkipped += max(0, candidateBlocks - (counters.blocksRead - readAtPartStart))
                candidateBlocks = 0
                part += 1
                startPart()
                continue
            }
            let range = ranges[rangeIndex]
            if position >= range.upperBound {
                rangeIndex += 1
                if rangeIndex < ranges.count { position = ranges[rangeIndex].lowerBound }
                continue
            }
            let (slice, d) = parts[part]
            // Chunks end at the slice's multiples of the capacity, where decoded blocks
            // are cut into pieces (`DecodedBlock`): a chunk is then a whole piece.
            var end = min(range.upperBound, (position / Chunk.capacity + 1) * Chunk.capacity)
            // Stay inside one block of every column, so each column is one slice of a block.
            var blocks: [Int] = []
            blocks.reserveCapacity(columns.count)
            for (k, c) in columns.enumerated() {
                guard c >= 0 else { blocks.append(-1); continue }
                let chain = d.columns[c]
                var idx = current[k].index
                if idx >= chain.count || chain[idx].firstRow > position || chain[idx].endRow <= position {
                    idx = Self.blockIndex(chain, row: position)
                    current[k] = (idx, nil)
                }
                guard idx < chain.count else { throw SQLError.internalError("row \(position) of slice \(slice) has no block") }
                end = min(end, chain[idx].endRow)
                blocks.append(idx)
            }
            let n = end - position
            // Filters on RUNLENGTH / BYTEDICT blocks: rows that cannot match are dropped
            // before any other column is decoded.
            var preselected: [Int32]? = nil
            if !encodedFilters.isEmpty {
                var keep: Validity? = nil
                for (fi, f) in encodedFilters.enumerated() {
                    guard f.columnPosition < blocks.count, blocks[f.columnPosition] >= 0 else { continue }
                    let block = d.columns[columns[f.columnPosition]][blocks[f.columnPosition]]
                    guard block.encoding == .runlength || block.encoding == .bytedict else { continue }
                    let bits: Validity?
                    if let cached = encodedMatches[fi], cached.uid == block.uid {
                        bits = cached.bits
                    } else {
                        do {
                            bits = try Self.encodedMatch(block, type: types[f.columnPosition], filter: f)
                        } catch {
                            throw described(error, column: f.columnPosition, block: block)
                        }
                        encodedMatches[fi] = (block.uid, bits)
                    }
                    guard let bits else { continue }
                    keep = Validity.and(keep, Validity(words: Self.bits(bits.words, from: position - block.firstRow, count: n)))
                }
                if let keep {
                    var sel: [Int32] = []
                    if d.deleted.isEmpty {
                        sel = Self.setBits(keep.words, count: n)
                    } else {
                        for i in 0..<n where keep.isValid(i) && !d.deleted.contains(position + i) { sel.append(Int32(i)) }
                    }
                    if sel.isEmpty {
                        counters.rowsRead += n
                        position = end
                        continue
                    }
                    preselected = sel
                }
            }
            if !rowChecks.isEmpty {
                var dropped = false
                for i in rowChecks.indices where rowChecks[i].on {
                    let k = rowChecks[i].position
                    let block = d.columns[columns[k]][blocks[k]]
                    let before = preselected?.count ?? n
                    let kept: [Int32]
                    // A range over a cached column's narrow values is tested on them, the
                    // piece not widened (`CompactBlock.keep`).
                    if case .predicate(let test) = rowChecks[i].test, test.list == nil, !test.isNull,
                       preselected != nil || d.deleted.isEmpty, case .compact(let reader) = try decodedBlock(k, block),
                       let narrow = reader.block.keep(from: position, count: n, low: test.low, high: test.high,
                                                      selection: preselected) {
                        kept = narrow
                    } else {
                        let (values, base) = try piece(k, block, containing: position)
                        switch rowChecks[i].test {
                        case .predicate(let test):
                            kept = test.keep(values, from: base, count: n, selection: preselected, deleted: d.deleted,
                                             firstRow: position)
                        case .runtimeFilter(let filter):
                            kept = Self.keep(values, from: base, count: n, filter: filter, selection: preselected,
                                             deleted: d.deleted, firstRow: position)
                            counters.rowsRuntimeFiltered += before - kept.count
                        }
                    }
                    rowChecks[i].checked += before
                    rowChecks[i].kept += kept.count
                    preselected = kept
                    if rowChecks[i].keepsTooMany { rowChecks[i].on = false }
                    if kept.isEmpty { dropped = true; break }
                }
                if dropped {
                    counters.rowsRead += n
                    position = end
                    continue
                }
            }
            // A few rows left by the filters: copy just those (a compact chunk), not the range.
            let sparse = preselected.map { $0.count * 4 <= n } ?? false
            var out: [Vector] = []
            out.reserveCapacity(columns.count)
            for (k, c) in columns.enumerated() {
                if c < 0 {
                    let base = Int64(slice) << 40
                    if sparse, let rows = preselected {
                        out.append(Vector(type: .bigint, data: .int64(rows.map { base | Int64(position + Int($0)) })))
                    } else {
                        out.append(Vector(type: .bigint, data: .int64((position..<end).map { base | Int64($0) })))
                    }
                    continue
                }
                let block = d.columns[c][blocks[k]]
                if sparse, let rows = preselected {
                    switch try decodedBlock(k, block) {
                    case .streamed(let streamed):
                        let gathered: Vector?
                        do {
                            gathered = try streamed.gather(rows, first: position, end: end)
                        } catch {
                            throw described(error, column: k, block: block)
                        }
                        if let gathered {
                            out.append(gathered.retyped(types[k]))
                            continue
                        }
                    case .compact(let compact):
                        // The kept rows straight from the narrow values.
                        out.append(compact.block.gather(rows, first: position).retyped(types[k]))
                        continue
                    case .decoded:
                        break
                    }
                }
                let (decoded, offset) = try piece(k, block, containing: position)
                if sparse, let rows = preselected {
                    let at = offset == 0 ? rows : rows.map { $0 &+ Int32(truncatingIfNeeded: offset) }
                    out.append(decoded.gather(at).retyped(types[k]))
                } else {
                    out.append(decoded.slice(offset, n).retyped(types[k]))
                }
            }
            counters.rowsRead += n
            position = end
            if sparse, let rows = preselected {
                if carryRows == 0 {
                    carry = out
                } else {
                    for k in out.indices { carry[k].append(out[k], rows: rows.count) }
                }
                carryRows += rows.count
                if carryRows >= Self.coalescedRows { return RangeChunk(chunk: nil, isCarried: true) }
                continue
            }
            var selection: [Int32]? = preselected
            if preselected == nil && !d.deleted.isEmpty {
                var sel: [Int32] = []
                sel.reserveCapacity(n)
                for r in (end - n)..<end where !d.deleted.contains(r) { sel.append(Int32(r - (end - n))) }
                if sel.count < n { selection = sel }
            }
            if let selection, selection.isEmpty { continue }
            return RangeChunk(chunk: Chunk(columns: out, count: n, selection: selection), isCarried: false)
        }
        return nil
    }

    /// Bits `from ..< from + count` of `words` (bits past the words read as 0), as the
    /// words of a bitmap starting at bit 0; bits past `count` in the last word are undefined.
    static func bits(_ words: [UInt64], from: Int, count: Int) -> [UInt64] {
        let out = (count + 63) >> 6
        return [UInt64].building(capacity: out, placeholder: 0) { o, initialized in
            words.withUnsafeBufferPointer { w in
                let shift = UInt64(from & 63), first = from >> 6
                for k in 0..<out {
                    let i = first + k
                    let lo = i < w.count ? w[i] >> shift : 0
                    let hi = shift != 0 && i + 1 < w.count ? w[i + 1] << (64 - shift) : 0
                    o[k] = lo | hi
                }
            }
            initialized = out
        }
    }

    /// The positions below `count` whose bit is set, in order.
    static func setBits(_ words: [UInt64], count: Int) -> [Int32] {
        var sel: [Int32] = []
        sel.reserveCapacity(count)
        words.withUnsafeBufferPointer { w in
            let full = min(w.count, (count + 63) >> 6)
            for k in 0..<full {
                var x = w[k]
                let end = count - (k << 6)
                if end < 64 { x &= (1 << UInt64(end)) &- 1 }
                while x != 0 {
                    sel.append(Int32(truncatingIfNeeded: (k << 6) + x.trailingZeroBitCount))
                    x &= x &- 1
                }
            }
        }
        return sel
    }

    /// `column op constant` conjuncts of one integer-backed column as a closed range of
    /// values, or a list of them (`IN`).
    struct RowPredicate {
        var low = Int64.min, high = Int64.max
        var list: [Int64]? = nil
        /// `IS NULL`: the rows whose validity bit is clear, in a column of any type.
        var isNull = false

        /// nil when a bound is not a 64-bit integer.
        init?(_ p: ZonePredicate) {
            if p.isNull {
                guard p.ops.isEmpty, p.inList == nil else { return nil }
                isNull = true
                return
            }
            for (op, bound) in p.ops {
                guard case .int(let x) = bound else { return nil }
                switch op {
                case .eq: low = max(low, x); high = min(high, x)
                case .ge: low = max(low, x)
                case .le: high = min(high, x)
                case .gt:
                    if x == .max { low = 1; high = 0 } else { low = max(low, x + 1) }
                case .lt:
                    if x == .min { low = 1; high = 0 } else { high = min(high, x - 1) }
                }
            }
            if let items = p.inList {
                var xs: [Int64] = []
                for b in items {
                    guard case .int(let x) = b else { return nil }
                    xs.append(x)
                }
                list = xs.sorted()
            }
        }

        /// The rows (0-based from `firstRow`; of `selection` when given, else those not
        /// deleted) whose value in `values` (a decoded block, from offset `base`) is not
        /// NULL and holds.
        func keep(_ values: Vector, from base: Int, count n: Int, selection: [Int32]?, deleted: DeleteSet,
                  firstRow: Int) -> [Int32] {
            if isNull {
                return SliceScanner.keepNulls(values, from: base, count: n, selection: selection, deleted: deleted,
                                              firstRow: firstRow)
            }
            let low = self.low, span = UInt64(bitPattern: high &- low), empty = low > high
            guard let list else {
                return SliceScanner.keepRows(values, from: base, count: n, selection: selection, deleted: deleted,
                                             firstRow: firstRow) { x in !empty && UInt64(bitPattern: x &- low) <= span }
            }
            return list.withUnsafeBufferPointer { lp in
                SliceScanner.keepRows(values, from: base, count: n, selection: selection, deleted: deleted,
                                      firstRow: firstRow) { x in
                    if empty || UInt64(bitPattern: x &- low) > span { return false }
                    var lo = 0, hi = lp.count
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        if lp[mid] < x { lo = mid + 1 } else { hi = mid }
                    }
                    return lo < lp.count && lp[lo] == x
                }
            }
        }
    }

    /// The piece of the scan's `k`th column holding slice row `row`, and the row's offset in it.
    private func piece(_ k: Int, _ block: BlockRef, containing row: Int) throws -> (vector: Vector, offset: Int) {
        let b = try decodedBlock(k, block)
        do {
            return try b.piece(containing: row)
        } catch {
            throw described(error, column: k, block: block)
        }
    }

    /// The decoded block in use for the scan's `k`th column (decoded once, through the cache).
    private func decodedBlock(_ k: Int, _ block: BlockRef) throws -> ScanBlock {
        if let v = current[k].block { return v }
        let decoded: ScanBlock
        do {
            decoded = try cache.forScan(block, type: types[k])
        } catch {
            throw described(error, column: k, block: block)
        }
        current[k].block = decoded
        counters.blocksRead += 1
        return decoded
    }

    /// The rows (0-based from `firstRow`, `count` of them, of `selection` when given, else
    /// those not deleted) whose key in `keys` (a decoded block, from offset `base`) the
    /// filter holds. NULL keys never match a join key.
    public static func keep(_ keys: Vector, from base: Int, count n: Int, filter f: RuntimeKeyFilter,
                     selection: [Int32]?, deleted: DeleteSet, firstRow: Int) -> [Int32] {
        let lo = f.low
        let span = UInt64(bitPattern: f.high &- f.low)
        // Each test is free of branches (a range test and a load that is always in
        // bounds), so `keepRows` compacts without branches and the loads of many rows
        // are in flight at once.
        guard let bits = f.bits else {
            guard let bloom = f.bloom else {
                return keepRows(keys, from: base, count: n, selection: selection, deleted: deleted, firstRow: firstRow) { x in
                    UInt64(bitPattern: x &- lo) <= span
                }
            }
            if let kept = keepBloom(keys, from: base, count: n, low: lo, span: span, bloom: bloom,
                                    selection: selection, deleted: deleted) {
                return kept
            }
            return bloom.withUnsafeBufferPointer { bw in
                keepRows(keys, from: base, count: n, selection: selection, deleted: deleted, firstRow: firstRow) { x in
                    both(UInt64(bitPattern: x &- lo) <= span, RuntimeKeyFilter.mayContain(bw, x))
                }
            }
        }
        let shift = UInt64(f.shift)
        guard shift > 0 else {
            // A summary is a coarse bitmap that stays cached: its test first, then the
            // exact bitmap's for the rows it passed.
            let candidates = f.summary.map {
                keep(keys, from: base, count: n,
                     filter: RuntimeKeyFilter(low: f.low, high: f.high, bits: $0, shift: Int(RuntimeKeyFilter.summaryShift)),
                     selection: selection, deleted: deleted, firstRow: firstRow)
            }
            if bits.count >= prefetchedBitmapWords, span >> 6 < UInt64(bits.count), case .int64(let a) = keys.data,
               keys.validity == nil, !keys.isConstant, candidates != nil || selection != nil || deleted.isEmpty,
               base >= 0, base + n <= a.count {
                return keepBits(a, from: base, count: n, selection: candidates ?? selection, bits: bits, low: lo, span: span)
            }
            return bits.withUnsafeBufferPointer { bw in
                keepRows(keys, from: base, count: n, selection: candidates ?? selection, deleted: deleted,
                         firstRow: firstRow) { x in
                    let d = UInt64(bitPattern: x &- lo)
                    let i = Int(min(d, span) >> 6)
                    return both(d <= span, bw[i] & (1 << (d & 63)) != 0)
                }
            }
        }
        // A coarse bitmap: bit `d >> shift`.
        return bits.withUnsafeBufferPointer { bw in
            keepRows(keys, from: base, count: n, selection: selection, deleted: deleted, firstRow: firstRow) { x in
                let d = UInt64(bitPattern: x &- lo)
                let c = min(d, span) >> shift
                return both(d <= span, bw[Int(c >> 6)] & (1 << (c & 63)) != 0)
            }
        }
    }

    /// An exact bitmap of at least this many words (2 MB, past what a core's share of
    /// the caches holds) is tested by `keepBits`, with prefetches; a smaller one mostly
    /// hits the caches, where the prefetches cost more than they save.
    static let prefetchedBitmapWords = 1 << 18
    /// Candidates ahead of the one tested whose bitmap word `keepBits` prefetches (on
    /// TPC-H Q9's 7.5 MB a slice at SF 10, 64 took the test's samples down a tenth).
    static let bitmapPrefetchDistance = 64

    /// `keep` with the exact bitmap `bits` of `low...low + span` for a block's 64-bit keys
    /// without NULLs (`a`, from offset `base`): the candidates of `selection` (every row
    /// when nil), in order, whose key's bit is set. The word of the candidate
    /// `bitmapPrefetchDistance` on is prefetched while one is tested, so that a bitmap
    /// bigger than the caches has its misses in flight together; the test itself is the
    /// branch-free one `keep` runs. Keys outside the range are not kept.
    static func keepBits(_ a: [Int64], from base: Int, count n: Int, selection: [Int32]?, bits: [UInt64],
                         low lo: Int64, span: UInt64) -> [Int32] {
        let m = selection?.count ?? n
        let d = bitmapPrefetchDistance
        return [Int32].building(capacity: m, placeholder: 0) { buf, count in
            var k = 0
            defer { count = k }
            guard let o = buf.baseAddress else { return }
            a.withUnsafeBufferPointer { vp in
                bits.withUnsafeBufferPointer { bw in
                    guard let v = vp.baseAddress.map({ $0 + base }), let w = bw.baseAddress else { return }
                    // The key's word (clamped into the bitmap) and whether its bit is set.
                    @inline(__always) func word(_ key: Int64) -> UnsafePointer<UInt64> {
                        w + Int(min(UInt64(bitPattern: key &- lo), span) >> 6)
                    }
                    @inline(__always) func holds(_ key: Int64) -> Int {
                        let x = UInt64(bitPattern: key &- lo)
                        return Int(unsafeBitCast(both(x <= span, word(key).pointee & (1 << (x & 63)) != 0), to: UInt8.self))
                    }
                    if let selection {
                        selection.withUnsafeBufferPointer { sp in
                            for j in 0..<m {
                                if j + d < m { slicehouse_prefetch(word(v[Int(sp[j + d])])) }
                                let r = sp[j]
                                o[k] = r
                                k &+= holds(v[Int(r)])
                            }
                        }
                    } else {
                        for j in 0..<m {
                            if j + d < m { slicehouse_prefetch(word(v[j + d])) }
                            o[k] = Int32(truncatingIfNeeded: j)
                            k &+= holds(v[j])
                        }
                    }
                }
            }
        }
    }

    /// Rows per batch of `keepBloom`.
    static let bloomBatch = 64

    /// `keep` with a Bloom filter, for keys without NULLs (nil otherwise): each batch of
    /// rows first computes every row's word and bits, then tests them, so the batch's
    /// loads of a filter bigger than the caches are in flight together instead of one
    /// row's test waiting on its miss before the next row's hash is computed. It keeps
    /// what the row test keeps, except that a key outside the range whose word has all 64
    /// bits set passes (a false positive, as the filter's own are: the join drops it).
    static func keepBloom(_ keys: Vector, from base: Int, count n: Int, low lo: Int64, span: UInt64,
                          bloom: [UInt64], selection: [Int32]?, deleted: DeleteSet) -> [Int32]? {
        guard case .int64(let a) = keys.data, keys.validity == nil, !keys.isConstant,
              selection != nil || deleted.isEmpty, !bloom.isEmpty else { return nil }
        let m = selection?.count ?? n
        guard base >= 0, base + n <= a.count else { return nil }
        let rows = selection ?? []
        return [Int32].building(capacity: m, placeholder: 0) { o, count in
            var k = 0
            defer { count = k }
            guard let out = o.baseAddress else { return }
            rows.withUnsafeBufferPointer { sp in
                a.withUnsafeBufferPointer { vp in
                    bloom.withUnsafeBufferPointer { bw in
                        guard let v = vp.baseAddress.map({ $0 + base }), let words = bw.baseAddress else { return }
                        if selection != nil, let sel = sp.baseAddress {
                            k = bloomBatches(m, words: words, mask: bw.count - 1, low: lo, span: span, out: out) {
                                sel[$0]
                            } key: { v[Int(sel[$0])] }
                        } else {
                            k = bloomBatches(m, words: words, mask: bw.count - 1, low: lo, span: span, out: out) {
                                Int32(truncatingIfNeeded: $0)
                            } key: { v[$0] }
                        }
                    }
                }
            }
        }
    }

    /// The batched Bloom test of `keepBloom` over `m` candidates: `row(i)` is candidate
    /// i's row number, `key(i)` its key. Written once per kind of candidate list, so the
    /// loops carry no per-row test of which kind it is. Returns how many were kept.
    @inline(__always)
    static func bloomBatches(_ m: Int, words: UnsafePointer<UInt64>, mask: Int, low lo: Int64, span: UInt64,
                             out: UnsafeMutablePointer<Int32>, row: (Int) -> Int32, key: (Int) -> Int64) -> Int {
        var k = 0
        withUnsafeTemporaryAllocation(of: Int.self, capacity: bloomBatch) { atBuffer in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: bloomBatch) { wantBuffer in
                guard let at = atBuffer.baseAddress, let want = wantBuffer.baseAddress else { return }
                var i = 0
                while i < m {
                    let b = min(bloomBatch, m - i)
                    // Each row's word and the bits it needs, then the tests: the batch's
                    // loads are in flight together. A key outside the range needs every
                    // bit of its word (practically never there: at worst a false positive,
                    // which the join drops).
                    for j in 0..<b {
                        let x = key(i + j)
                        let h = RuntimeKeyFilter.bloomHash(x)
                        let outside = UInt64(bitPattern: x &- lo) > span
                        at[j] = Int(truncatingIfNeeded: h) & mask
                        want[j] = RuntimeKeyFilter.bloomBits(h) | (0 &- UInt64(unsafeBitCast(outside, to: UInt8.self)))
                    }
                    for j in 0..<b {
                        out[k] = row(i + j)
                        k &+= words[at[j]] & want[j] == want[j] ? 1 : 0
                    }
                    i += b
                }
            }
        }
        return k
    }

    /// `a && b` with both evaluated, without a branch.
    @inline(__always)
    static func both(_ a: Bool, _ b: Bool) -> Bool {
        unsafeBitCast(unsafeBitCast(a, to: UInt8.self) & unsafeBitCast(b, to: UInt8.self), to: Bool.self)
    }

    /// The rows of `selection` (or `0..<n`) for which `keeps` gives 1 (it gives 0 or 1),
    /// without a branch: every row is written and the count moves on by the result.
    @inline(__always)
    static func branchFreeRows(_ selection: [Int32]?, count n: Int, _ keeps: (Int) -> Int) -> [Int32] {
        [Int32].building(capacity: selection?.count ?? n, placeholder: 0) { o, count in
            var k = 0
            if let selection {
                for r in selection {
                    o[k] = r
                    k &+= keeps(Int(r))
                }
            } else {
                for r in 0..<n {
                    o[k] = Int32(truncatingIfNeeded: r)
                    k &+= keeps(r)
                }
            }
            count = k
        }
    }

    /// The rows (0-based from `firstRow`, `count` of them, of `selection` when given, else
    /// those not deleted) whose 64-bit value in `values` (a decoded block, from offset
    /// `base`) is not NULL and `holds`. Not 64-bit values: every candidate row.
    @inline(__always)
    static func keepRows(_ values: Vector, from base: Int, count n: Int, selection: [Int32]?, deleted: DeleteSet,
                         firstRow: Int, _ holds: (Int64) -> Bool) -> [Int32] {
        guard case .int64(let a) = values.data else { return selection ?? Array(0..<Int32(truncatingIfNeeded: n)) }
        let validity = values.validity
        let constant = values.isConstant
        if validity == nil && !constant && (selection != nil || deleted.isEmpty) {
            // Every row is written and the count moves on by the test's result: no branch.
            return a.withUnsafeBufferPointer { vp in
                guard let v = vp.baseAddress.map({ $0 + base }) else { return [] }
                return branchFreeRows(selection, count: n) { r in Int(unsafeBitCast(holds(v[r]), to: UInt8.self)) }
            }
        }
        if let validity, !constant && (selection != nil || deleted.isEmpty),
           validity.words.count << 6 >= base + n {
            // The same with NULLs (TPC-DS's ss_quantity): a row counts when its validity
            // bit and the test are both 1, still without a branch.
            return a.withUnsafeBufferPointer { vp in
                validity.words.withUnsafeBufferPointer { wp in
                    guard let v = vp.baseAddress.map({ $0 + base }), let w = wp.baseAddress else { return [] }
                    return branchFreeRows(selection, count: n) { r in
                        let at = base &+ r
                        let valid = Int(truncatingIfNeeded: (w[at >> 6] >> UInt64(at & 63)) & 1)
                        return valid & Int(unsafeBitCast(holds(v[r]), to: UInt8.self))
                    }
                }
            }
        }
        var out: [Int32] = []
        out.reserveCapacity(selection?.count ?? n)
        a.withUnsafeBufferPointer { vp in
            @inline(__always) func keeps(_ r: Int) -> Bool {
                let at = constant ? 0 : base + r
                if let validity, !validity.isValid(at) { return false }
                return holds(vp[at])
            }
            if let selection {
                for r in selection where keeps(Int(r)) { out.append(r) }
            } else if deleted.isEmpty {
                for r in 0..<n where keeps(r) { out.append(Int32(truncatingIfNeeded: r)) }
            } else {
                for r in 0..<n where !deleted.contains(firstRow + r) && keeps(r) { out.append(Int32(truncatingIfNeeded: r)) }
            }
        }
        return out
    }

    /// The rows (0-based from `firstRow`, `count` of them, of `selection` when given, else
    /// those not deleted) whose value in `values` (from offset `base`) is NULL: those whose
    /// validity bit is clear. A vector without a bitmap has none.
    static func keepNulls(_ values: Vector, from base: Int, count n: Int, selection: [Int32]?, deleted: DeleteSet,
                          firstRow: Int) -> [Int32] {
        guard let validity = values.validity else { return [] }
        if values.isConstant {
            guard !validity.isValid(0) else { return [] }
            if let selection { return selection }
            return (0..<n).compactMap { r in deleted.contains(firstRow + r) ? nil : Int32(truncatingIfNeeded: r) }
        }
        guard validity.words.count << 6 >= base + n else {
            // A bitmap shorter than the rows: its missing bits are valid.
            let words = validity.words.count << 6
            let rows = selection ?? (0..<n).compactMap { r in deleted.contains(firstRow + r) ? nil : Int32(truncatingIfNeeded: r) }
            return rows.filter { r in base + Int(r) < words && !validity.isValid(base + Int(r)) }
        }
        let m = selection?.count ?? n
        return [Int32].building(capacity: m, placeholder: 0) { buf, count in
            guard let o = buf.baseAddress else { count = 0; return }
            var k = 0
            validity.words.withUnsafeBufferPointer { wp in
                guard let w = wp.baseAddress else { return }
                @inline(__always) func null(_ r: Int) -> Int {
                    let at = base &+ r
                    return Int(truncatingIfNeeded: ~(w[at >> 6] >> UInt64(at & 63)) & 1)
                }
                if let selection {
                    for r in selection {
                        o[k] = r
                        k &+= null(Int(r))
                    }
                } else if deleted.isEmpty {
                    for r in 0..<n {
                        o[k] = Int32(truncatingIfNeeded: r)
                        k &+= null(r)
                    }
                } else {
                    for r in 0..<n where !deleted.contains(firstRow + r) {
                        o[k] = Int32(truncatingIfNeeded: r)
                        k &+= null(r)
                    }
                }
            }
            count = k
        }
    }

    /// `error` from reading or decoding `block` of the scan's `k`th column, naming the
    /// table, the column and the block's file and offset.
    private func described(_ error: Error, column k: Int, block: BlockRef) -> Error {
        guard let e = error as? SQLError else { return error }
        var place = "table \"\(tableName)\", column \"\(k < columnNames.count ? columnNames[k] : "?")\""
        if case .file(let file, let offset, let length) = block.payload {
            place += ", block file \"\(file.path)\" (\(length) bytes at offset \(offset))"
        }
        return SQLError(e.code, place + ": " + e.message)
    }

    /// Rows of `block` that satisfy the filter, from its runs or dictionary codes
    /// (nil: no fast path for this block).
    static func encodedMatch(_ block: BlockRef, type: DataType, filter f: EncodedFilter) throws -> Validity? {
        let bytes: [UInt8]
        switch block.payload {
        case .memory(let b): bytes = b.bytes
        case .file(let file, let offset, let length): bytes = try file.read(offset: offset, length: length)
        case .vector: return nil
        }
        return try bytes.withUnsafeBytes {
            try EncodedPredicate.matches($0, type: type, encoding: block.encoding, op: f.op, constant: f.constant)
        }
    }

    static func blockIndex(_ chain: [BlockRef], row: Int) -> Int {
        var lo = 0, hi = chain.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if chain[mid].endRow <= row { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Every live row of `parts`, all columns (used to rewrite a table).
    public static func readAll(_ parts: [(slice: Int, data: SliceData)], types: [DataType], cache: BlockCache) throws -> [Chunk] {
        let scanner = SliceScanner(parts: parts, columns: Array(0..<types.count), types: types, predicates: [], cache: cache)
        var out: [Chunk] = []
        while let c = try scanner.next() { out.append(c.compacted()) }
        return out
    }
}
