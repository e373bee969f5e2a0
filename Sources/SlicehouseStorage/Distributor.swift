// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog
import SlicehousePlatform

/// Orders one slice's new rows by the table's sort key: returns the permutation
/// (the engine supplies it, from the execution layer's sorter).
public typealias SortPermutation = @Sendable (_ columns: [Vector], _ count: Int) -> [Int32]

/// Places incoming rows on slices according to a table's distribution, sorts each
/// slice's share by the sort key, encodes it into blocks and returns the next
/// snapshot (the caller commits it).
public enum Distributor {
    /// AUTO tables stay ALL up to this many rows, then are redistributed EVEN.
    public static let autoAllMaxRows = 10_000

    /// Target encoded size of a block (Redshift's 1 MB; a database may choose another).
    public static let defaultBlockBytes = 1 << 20
    /// Bounds on the rows of one block (a decoded block stays a few MB).
    static let minBlockRows = 128
    static let maxBlockRows = 1 << 20
    /// The most rows of a block of a column of a sorted table. A sorted date or key
    /// compresses so well that 1 MB holds a million values, and one zone map over a
    /// million rows skips little: a year of TPC-H's seven at SF 10 was read as most of the
    /// table. Blocks of 128 Ki rows keep the zone maps fine-grained (DuckDB's row groups
    /// are 120 Ki rows) for a few kilobytes more of headers — in every column, since the
    /// columns that follow the sort key skip by their zone maps as it does (a line item's
    /// receipt date, days after its ship date: TPC-H Q12 at SF 10 skipped 40% of lineitem's
    /// blocks with 1 M-row receipt-date blocks).
    public static let sortKeyBlockRows = 1 << 17

    /// The most rows of a block of a column of `table`.
    static func maxRows(_ table: TableDef) -> Int {
        table.sortKey.isEmpty ? maxBlockRows : sortKeyBlockRows
    }
    /// Sorted slices of at least this many new rows are gathered through a `ReorderPlan`.
    static let reorderPlanMinRows = 1 << 12

    /// The tail buffer of a table on disk: the rows of small appends (single-row INSERTs)
    /// are kept, per slice and column, as one encoded block held in memory at the end of
    /// the column's chain, written into the commit record (`ManifestBlock.d`) instead of
    /// a block file of its own, so that such a commit writes and syncs only `wal.log`. A
    /// slice's held blocks stay within about this many bytes (shared by its columns); the
    /// append that would pass it writes the held rows, with the small block before them,
    /// into a block file (as does any larger append, COPY and VACUUM).
    public static let tailBufferSliceBytes = 8192
    /// The most rows one held block keeps.
    static let tailBufferMaxRows = 4096

    /// The most encoded bytes of one held block of a table of `columns` columns.
    static func tailBufferBlockBytes(columns: Int) -> Int { max(512, tailBufferSliceBytes / max(columns, 1)) }

    /// Slice of each row for DISTSTYLE KEY: hash of the key value modulo the slice count.
    public static func slices(forKey key: Vector, count n: Int, sliceCount: Int) -> [Int32] {
        var hashes: [UInt64] = []
        key.hash(rows: nil, count: n, into: &hashes, combine: false)
        var out = [Int32](filled: 0, count: hashes.count)
        hashes.withUnsafeBufferPointer { h in
            out.withUnsafeMutableBufferPointer { Hashing.buckets(h, of: sliceCount, into: $0) }
        }
        return out
    }

    /// Append `chunks` (one vector per table column) to `snapshot`.
    /// - `existing`: reads the live rows of a slice of the current snapshot (needed when
    ///   an AUTO table grows out of ALL and is redistributed EVEN).
    /// - `readBlock`: decodes an existing block. When given, a column whose last block is
    ///   small (`mergesIntoTail`) has that block re-encoded together with the new rows and
    ///   replaced, so that many small appends (single-row INSERTs) grow one block instead of
    ///   adding one per statement. Row numbers do not change, only block boundaries.
    /// - `tailBuffer`: with a sink that writes files and `readBlock`, a few new rows of a
    ///   (slice, column) join its held block (`tailBufferSliceBytes`) instead of a file.
    /// - `context`: the statement's (its slices' tasks run as its work).
    public static func append(_ chunks: [Chunk], to snapshot: TableSnapshot, table: TableDef, layout: SliceLayout,
                              sink: BlockSink, sorter: SortPermutation?, blockBytes: Int = defaultBlockBytes,
                              readBlock: (@Sendable (BlockRef, DataType) throws -> Vector)? = nil,
                              tailBuffer: Bool = false,
                              context: QueryContext,
                              existing: (TableSnapshot, Int) throws -> [Chunk]) throws -> TableSnapshot {
        var tails: ColumnTails? = nil
        return try place(HeldRows(chunks, types: table.columns.map { $0.type }), onto: snapshot, table: table,
                         layout: layout, sink: sink, sorter: sorter, blockBytes: blockBytes, readBlock: readBlock,
                         tailBuffer: tailBuffer, tails: &tails, final: true, context: context, existing: existing)
    }

    /// The rows of each (slice, column) that a streaming append has placed but not yet
    /// written as a block (`TableAppender`): fewer than one block's worth each, carried into
    /// the next flush, so that a load in many pieces writes the same full blocks as one in
    /// a single piece. `rowsPerBlock` carries the block sizing along too.
    struct ColumnTails {
        var rows: [[Vector?]]
        var rowsPerBlock: [[Int]]

        init(slices: Int, columns: Int) {
            rows = Array(repeating: Array(repeating: nil, count: columns), count: slices)
            rowsPerBlock = Array(repeating: Array(repeating: 0, count: columns), count: slices)
        }

        /// Approximate bytes held.
        var bytes: Int {
            rows.reduce(0) { $0 + $1.reduce(0) { $0 + ($1.map { BlockCache.approximateBytes($0) } ?? 0) } }
        }
    }

    /// Place `chunks` on `snapshot`'s slices, order each slice's share by the sort key and
    /// encode it into blocks. With `tails` (a streaming append of an unsorted table) and
    /// not `final`, each (slice, column) writes only full blocks and keeps the rest in
    /// `tails` for the next call; the rows count in the slice's `rowCount` already. A sorted
    /// table's call is one sorted run: the slice's rows of this call in sort-key order.
    static func place(_ held: HeldRows, onto snapshot: TableSnapshot, table: TableDef, layout: SliceLayout,
                      sink: BlockSink, sorter: SortPermutation?, blockBytes: Int,
                      readBlock: (@Sendable (BlockRef, DataType) throws -> Vector)?, tailBuffer: Bool = false,
                      tails: inout ColumnTails?, final: Bool, gatherRows: Int = ReorderPlan.pieceRows,
                      context: QueryContext,
                      existing: (TableSnapshot, Int) throws -> [Chunk]) throws -> TableSnapshot {
        var snap = snapshot
        let incoming = held.rowCount
        let carried = tails
        let hasTails = carried.map { t in t.rows.contains { $0.contains { $0 != nil } } } ?? false
        if incoming == 0 && !(final && hasTails) { return snap }
        // A few rows (INSERT ... VALUES, UPDATE's new versions) are placed and encoded on
        // this thread: the pool's wake-ups would cost more than the work.
        let serial = incoming < serialRows && !hasTails
        let types = table.columns.map { $0.type }
        var held = held
        if incoming > 0, table.distStyle == .auto, snap.distribution == .all, snap.rowCount + incoming > autoAllMaxRows {
            // Grow out of ALL: the existing copy is placed EVEN again together with the new rows.
            held = HeldRows(try existing(snap, 0) + held.chunks(), types: types)
            let reorganizations = snap.reorganizations
            snap = TableSnapshot(slices: Array(repeating: SliceData(columnCount: table.columns.count), count: layout.sliceCount),
                                 distribution: .even, evenCursor: 0, encodings: snap.encodings,
                                 modifications: snap.modifications, analyzed: snap.analyzed)
            snap.reorganizations = reorganizations + 1
        }
        snap.modifications += incoming
        // Each slice's rows are references (chunk, row) into the held chunks, so a column
        // is copied once: into its final, sorted order, right before encoding. A column
        // is widened (`HeldRows.parts`) only while something gathers it.
        let rows = held
        let refs = place(rows, snapshot: &snap, layout: layout, context: context, serial: serial)
        @Sendable func column(_ c: Int, _ r: SliceRefs) -> Vector {
            Vector.gather(from: rows.parts(c), type: types[c], chunk: r.chunk, row: r.row)
        }
        if snap.encodings == nil {
            let sample = refs.first { $0.count > 0 }.map { r -> SliceRefs in
                let n = min(r.count, BlockEncoder.autoSampleRows)
                return SliceRefs(chunk: Array(r.chunk[0..<n]), row: Array(r.row[0..<n]))
            }
            snap.encodings = chooseEncodings(table: table, context: context, sample: sample.map { smp in
                let needed = Set(smp.chunk)
                return types.indices.map {
                    Vector.gather(from: rows.parts($0, only: needed), type: types[$0], chunk: smp.chunk, row: smp.row)
                }
            })
        }
        let encodings = snap.encodings ?? []
        // Each slice's row order, slices in parallel: a reorder plan when the rows are
        // sorted (the sources are then read in their own order), else the references.
        let orders = ResultSlots<SliceOrder?>(count: layout.sliceCount, initial: nil)
        let sortKey = sorter == nil ? [] : table.sortKey.filter { $0 >= 0 && $0 < types.count }
        // Narrowed integer keys are gathered narrow; other key columns are widened once.
        let keyParts: [Int: [ReorderPlan.IntPart]] = rows.narrow
            ? Dictionary(uniqueKeysWithValues: sortKey.compactMap { c in rows.intParts(c).map { (c, $0) } }) : [:]
        let sorting = refs.filter { $0.count > 0 }.count
        for c in sortKey where keyParts[c] == nil { rows.hold(c, uses: sorting) }
        parallelFor(layout.sliceCount, context: context, serial: serial) { s in
            var r = refs[s]
            if r.count == 0 { return }
            if let sorter, !table.sortKey.isEmpty {
                // Only the key columns are needed to find the order.
                let keyed = types.indices.map { c -> Vector in
                    guard sortKey.contains(c) else { return Vector(type: types[c]) }
                    if let parts = keyParts[c] {
                        return ReorderPlan.gather(ints: parts, type: types[c], chunk: r.chunk, row: r.row)
                    }
                    defer { rows.release(c) }
                    return column(c, r)
                }
                let perm = sorter(keyed, r.count)
                // Rows already in order (presorted input): gathered in their own order.
                if Self.isIdentity(perm, count: r.count) {
                    orders.set(s, .refs(r))
                    return
                }
                if r.count >= reorderPlanMinRows, let p = ReorderPlan(chunk: r.chunk, row: r.row, order: perm) {
                    orders.set(s, .plan(p))
                    return
                }
                r = SliceRefs(chunk: perm.map { r.chunk[Int($0)] }, row: perm.map { r.row[Int($0)] })
            }
            orders.set(s, .refs(r))
        }
        // Gather and encode every (slice, column) in parallel, string columns (the
        // costliest) first, so the cores finish together instead of one waiting for
        // the last columns of the last slice.
        let ordered = orders.values
        func busy(_ s: Int, _ c: Int) -> Bool { ordered[s] != nil || carried?.rows[s][c] != nil }
        var tasks: [(slice: Int, column: Int)] = []
        for c in types.indices where types[c].isString {
            for s in ordered.indices where busy(s, c) { tasks.append((s, c)) }
        }
        for c in types.indices where !types[c].isString {
            for s in ordered.indices where busy(s, c) { tasks.append((s, c)) }
        }
        let base = snap
        let work = tasks
        // Integer columns are gathered by plans straight from their narrowed parts (their
        // NULLs beside); every other gathering widens its column once (held for its slices).
        // Strings held as dictionary codes are gathered as their codes, then expanded.
        let narrowInts = types.indices.map { rows.narrow && rows.intParts($0, nulls: true) != nil }
        let coded = types.indices.map { rows.narrow ? rows.codeParts($0) : nil }
        var tasksLeft = [Int](filled: 0, count: types.count)
        for (s, c) in tasks {
            if ordered[s] != nil { tasksLeft[c] += 1 }
            switch ordered[s] {
            case .plan? where narrowInts[c] || coded[c] != nil: break
            case nil: break
            default: rows.hold(c, uses: 1)
            }
        }
        // Once every slice has gathered a column, its held values go.
        let columnTasksLeft = ResultSlots<Int>(count: types.count, initial: 0)
        for c in types.indices { columnTasksLeft.set(c, tasksLeft[c]) }
        let keepTails = carried != nil && !final
        // On disk, blocks held in memory are the tail buffer's (`tailBufferSliceBytes`).
        let onDisk = !sink.keepsBlocksInMemory
        let buffering = tailBuffer && onDisk && carried == nil && final
        let heldBlockBytes = tailBufferBlockBytes(columns: types.count)
        let encoded = ResultSlots<Result<EncodedColumn, Error>?>(count: work.count, initial: nil)
        parallelFor(work.count, context: context, serial: serial) { t in
            let (s, c) = work[t]
            encoded.set(t, Result {
                let order = ordered[s]
                // Whether the slice's new rows of column c make blocks of their own: none
                // carried from the last flush, none merged into its last block.
                func standsAlone(_ p: ReorderPlan) -> Bool {
                    carried?.rows[s][c] == nil && (readBlock == nil || base.slices[s].columns[c].last.map({
                        !mergesIntoTail($0, newRows: p.count, blockBytes: blockBytes, maxRows: maxRows(table))
                    }) ?? true)
                }
                let plan: ReorderPlan? = if case .plan(let p)? = order { p } else { nil }
                let wide = (plan?.count ?? 0) > gatherRows
                if let p = plan, let (parts, dictionary) = coded[c], encodings[c] == .bytedict,
                   wide || !keepTails, standsAlone(p) {
                    // BYTEDICT blocks straight from the codes, never expanded into strings
                    // (the blocks the strings would make, every row written as the
                    // piecewise path below writes them).
                    let codes = try gatherCodes(p, parts, column: c)
                    let blocks = try encodeCodedBlocks(codes: codes, dictionary: dictionary, type: types[c],
                                                       firstRow: base.slices[s].rowCount, table: table.id, slice: s,
                                                       sink: sink, targetBytes: blockBytes, maxRows: maxRows(table),
                                                       rowsPerBlock: wide ? 0 : carried?.rowsPerBlock[s][c] ?? 0)
                    if columnTasksLeft.update(c, { $0 - 1 }) == 0 { rows.drop(c) }
                    return EncodedColumn(blocks: blocks, replaces: 0, tail: nil, rowsPerBlock: 0)
                }
                if let p = plan, types[c].isString, wide, standsAlone(p) {
                    // A wide string column is gathered and encoded piece by piece: an
                    // SF 1 lineitem slice's comments were 46 MB gathered at once (and as
                    // much again in the gather's buffer), two slices at a time.
                    // Dictionary codes are gathered whole (a byte a row), then expanded
                    // piece by piece; other strings gathered by the piece's own plan.
                    let gather: (Range<Int>) throws -> Vector
                    if let (parts, dictionary) = coded[c] {
                        let codes = try gatherCodes(p, parts, column: c)
                        gather = { range in
                            Vector(type: types[c], data: .string(HeldRows.Part.expand(codes: codes[range], dictionary: dictionary)))
                        }
                    } else {
                        let parts = rows.parts(c)
                        gather = { range in
                            guard let q = p.piece(range) else {
                                throw SQLError.internalError("rows \(range) are not a piece of the slice's order")
                            }
                            return q.gather(from: parts, type: types[c])
                        }
                    }
                    let blocks = try encodePieces(count: p.count, pieceRows: gatherRows, gather: gather,
                                                  firstRow: base.slices[s].rowCount,
                                                  encoding: encodings[c], table: table, slice: s, sink: sink,
                                                  blockBytes: blockBytes)
                    if coded[c] == nil { rows.release(c) }
                    if columnTasksLeft.update(c, { $0 - 1 }) == 0 { rows.drop(c) }
                    return EncodedColumn(blocks: blocks, replaces: 0, tail: nil, rowsPerBlock: 0)
                }
                var v: Vector
                switch order {
                case .plan(let p)?:
                    if narrowInts[c], let (parts, validities) = rows.intParts(c, nulls: true) {
                        v = p.gather(ints: parts, type: types[c], validities: validities)
                    } else if let (parts, dictionary) = coded[c] {
                        let codes = try gatherCodes(p, parts, column: c)
                        v = Vector(type: types[c], data: .string(HeldRows.Part.expand(codes: codes, dictionary: dictionary)))
                    } else {
                        v = p.gather(from: rows.parts(c), type: types[c])
                        rows.release(c)
                    }
                case .refs(let r)?:
                    v = column(c, r)
                    rows.release(c)
                case nil: v = Vector(type: types[c])
                }
                if order != nil, columnTasksLeft.update(c, { $0 - 1 }) == 0 { rows.drop(c) }
                var first = base.slices[s].rowCount, count = order?.count ?? 0
                var replaces = 0
                let chain = base.slices[s].columns[c]
                if let tail = carried?.rows[s][c] {
                    // Rows of the previous flush not yet in a block: they come first.
                    var merged = tail
                    merged.append(v, rows: count)
                    v = merged
                    first -= tail.count
                    count += tail.count
                } else if let readBlock {
                    let held = onDisk ? chain.last.flatMap { $0.isHeld ? $0 : nil } : nil
                    // Worth trying only for a few rows, and when the held rows' size per row says
                    // they would fit (else the encoding is done twice).
                    let fits = held.map { h in
                        h.encodedSize * (h.rowCount + count) <= heldBlockBytes * h.rowCount * 5 / 4
                    } ?? true
                    if buffering, count > 0, count <= tailBufferMaxRows / 4, fits,
                       count + (held?.rowCount ?? 0) <= tailBufferMaxRows {
                        // The tail buffer: the held rows and the new ones as one block kept in memory
                        // (written into the commit record), unless that block would be too big.
                        var joined = v, from = first, n = count
                        if let held {
                            joined = try readBlock(held, types[c]).flattened(count: held.rowCount)
                            joined.append(v, rows: count)
                            from = held.firstRow
                            n += held.rowCount
                        }
                        var rowsPerBlock = tailBufferMaxRows
                        let (kept, _) = try encodeBlocks(joined, count: n, firstRow: from, encoding: encodings[c], table: table.id,
                                                         slice: s, sink: MemoryBlockSink(), targetBytes: heldBlockBytes,
                                                         maxRows: tailBufferMaxRows, rowsPerBlock: &rowsPerBlock, keepTail: false)
                        if kept.count == 1, kept[0].encodedSize <= heldBlockBytes {
                            return EncodedColumn(blocks: kept, replaces: held == nil ? 0 : 1, tail: nil, rowsPerBlock: 0)
                        }
                    }
                    // Into a block file: a small last block is re-encoded with the new rows; on
                    // disk a held last block and the small block before it are.
                    var merged: [Vector] = []
                    let newRows = count
                    while replaces < chain.count, replaces < (onDisk ? 2 : 1) {
                        let b = chain[chain.count - 1 - replaces]
                        guard mergesIntoTail(b, newRows: count, blockBytes: blockBytes, maxRows: maxRows(table)) else { break }
                        merged.insert(try readBlock(b, types[c]).flattened(count: b.rowCount), at: 0)
                        first = b.firstRow
                        count += b.rowCount
                        replaces += 1
                        if !(onDisk && b.isHeld) { break }
                    }
                    if !merged.isEmpty {
                        var all = merged[0]
                        for m in merged.dropFirst() { all.append(m, rows: m.count) }
                        all.append(v, rows: newRows)
                        v = all
                    }
                }
                var rowsPerBlock = carried?.rowsPerBlock[s][c] ?? 0
                let (blocks, written) = try encodeBlocks(v, count: count, firstRow: first, encoding: encodings[c],
                                                         table: table.id, slice: s, sink: sink, targetBytes: blockBytes,
                                                         maxRows: maxRows(table),
                                                         rowsPerBlock: &rowsPerBlock, keepTail: keepTails)
                let tail: Vector? = written < count ? v.slice(written, count - written) : nil
                return EncodedColumn(blocks: blocks, replaces: replaces, tail: tail, rowsPerBlock: rowsPerBlock)
            })
        }
        var blocks = [[[BlockRef]]](repeating: [[BlockRef]](repeating: [], count: types.count), count: layout.sliceCount)
        var replaces = [[Int]](repeating: [Int](filled: 0, count: types.count), count: layout.sliceCount)
        var next = carried
        for (t, result) in encoded.values.enumerated() {
            guard let result else { throw SQLError.internalError("slice \(work[t].slice) column \(work[t].column) produced no blocks") }
            let e = try result.get()
            let (s, c) = work[t]
            (blocks[s][c], replaces[s][c]) = (e.blocks, e.replaces)
            if next != nil {
                next?.rows[s][c] = e.tail
                next?.rowsPerBlock[s][c] = e.rowsPerBlock
            } else if e.tail != nil {
                throw SQLError.internalError("slice \(s) column \(c) left rows unwritten")
            }
        }
        tails = next
        for s in ordered.indices {
            let added = ordered[s]?.count ?? 0
            if added == 0 && !types.indices.contains(where: { !blocks[s][$0].isEmpty }) { continue }
            var data = base.slices[s]
            let wasEmpty = data.rowCount == 0
            for c in types.indices {
                data.columns[c].removeLast(replaces[s][c])
                data.columns[c].append(contentsOf: blocks[s][c])
                if onDisk, !blocks[s][c].isEmpty {
                    // Only a column's last block may be held: an earlier one (the new rows went
                    // to a file without it) is written to the file as it is.
                    let chain = data.columns[c]
                    for i in chain.indices.dropLast() where chain[i].isHeld {
                        guard case .memory(let bytes) = chain[i].payload else { continue }
                        data.columns[c][i].payload = try sink.write(table: table.id, slice: s, bytes: bytes.bytes)
                    }
                }
            }
            data.rowCount += added
            if added > 0 && (table.sortKey.isEmpty || wasEmpty) { data.sortedRows = data.rowCount }
            snap.slices[s] = data
        }
        return snap
    }

    /// Whether `perm` is `0..<count` in order.
    static func isIdentity(_ perm: [Int32], count: Int) -> Bool {
        guard perm.count == count else { return false }
        return perm.withUnsafeBufferPointer { p in
            for i in 0..<count where p[i] != Int32(truncatingIfNeeded: i) { return false }
            return true
        }
    }

    /// A column's dictionary codes (`HeldRows.codeParts`) in the plan's order, a byte each.
    static func gatherCodes(_ plan: ReorderPlan, _ parts: [ReorderPlan.IntPart], column c: Int) throws -> [UInt8] {
        let bytes = try parts.map { part -> [UInt8] in
            guard case .narrow(0, 1, let b) = part else {
                throw SQLError.internalError("column \(c)'s codes are not held a byte each")
            }
            return b
        }
        return plan.gather(bytes: bytes)
    }

    /// A slice's `total` rows of one column gathered (`gather` of a range of them) and
    /// encoded `pieceRows` at a time (a plan's pieces: a multiple of its window): the
    /// same blocks as `encodeBlocks` of the whole column, the rows a piece leaves short
    /// of a block carried into the next.
    static func encodePieces(count total: Int, pieceRows: Int, gather: (Range<Int>) throws -> Vector, firstRow: Int,
                             encoding: ColumnEncoding, table: TableDef, slice: Int, sink: BlockSink,
                             blockBytes: Int) throws -> [BlockRef] {
        var blocks: [BlockRef] = []
        var rowsPerBlock = 0
        var tail: Vector?
        var tailRows = 0
        var start = 0
        while start < total {
            let end = min(start + max(pieceRows, 1), total)
            let v = try gather(start..<end)
            // The rows to encode are the tail's, then the piece's; only a block across
            // both is copied together.
            let carried = tail, held = tailRows
            func joined(_ from: Int, _ n: Int) -> Vector {
                guard let carried else { return v.slice(from, n) }
                if from >= held { return v.slice(from - held, n) }
                var out = carried.slice(from, min(n, held - from))
                if from + n > held { out.append(v.slice(0, from + n - held), rows: from + n - held) }
                return out
            }
            let count = held + end - start
            let (written, done) = try encodeBlocks(count: count, firstRow: firstRow + start - held, encoding: encoding,
                                                   table: table.id, slice: slice, sink: sink, targetBytes: blockBytes,
                                                   maxRows: maxRows(table), rowsPerBlock: &rowsPerBlock,
                                                   keepTail: end < total) { from, n in
                if from >= held { return (v, from - held) }
                if let carried, from + n <= held { return (carried, from) }
                return (joined(from, n), 0)
            }
            blocks += written
            tail = done < count ? joined(done, count - done) : nil
            tailRows = count - done
            start = end
        }
        if tailRows > 0 { throw SQLError.internalError("slice \(slice) left \(tailRows) rows unwritten") }
        return blocks
    }

    /// One (slice, column)'s result of a flush.
    struct EncodedColumn: Sendable {
        var blocks: [BlockRef]
        /// How many of the column's last blocks the new ones replace (re-encoded with them).
        var replaces: Int
        /// Rows left for the next flush (`keepTail`).
        var tail: Vector?
        var rowsPerBlock: Int
    }

    /// Whether an append re-encodes `last` (a column's last block) with its new rows: when
    /// the block is small — under an eighth of the target size, so that rewriting it costs
    /// little — and the two fit in one block.
    static func mergesIntoTail(_ last: BlockRef, newRows: Int, blockBytes: Int, maxRows: Int = maxBlockRows) -> Bool {
        switch last.payload {
        case .file, .memory: break
        case .vector: return false
        }
        return last.encodedSize < max(4096, blockBytes / 8) && last.rowCount + newRows <= maxRows
    }

    /// How a slice's new rows are read in their final order.
    enum SliceOrder: Sendable {
        case plan(ReorderPlan)
        case refs(SliceRefs)

        var count: Int {
            switch self {
            case .plan(let p): return p.count
            case .refs(let r): return r.count
            }
        }
    }

    /// A slice's new rows: row `row[i]` of loaded chunk `chunk[i]`.
    struct SliceRefs: Sendable {
        var chunk: [Int32] = []
        var row: [Int32] = []
        var count: Int { chunk.count }
    }

    /// Appends of fewer rows than this place and encode their slices on the calling thread.
    static let serialRows = 1_024

    static func place(_ held: HeldRows, snapshot snap: inout TableSnapshot, layout: SliceLayout,
                      context: QueryContext, serial: Bool = false) -> [SliceRefs] {
        let sc = layout.sliceCount
        let counts = held.counts
        switch snap.distribution {
        case .all:
            var out = [SliceRefs](filled: SliceRefs(), count: sc)
            for (ci, n) in counts.enumerated() {
                for node in 0..<layout.nodes {
                    let s = layout.firstSlice(ofNode: node)
                    out[s].chunk.append(contentsOf: repeatElement(Int32(ci), count: n))
                    out[s].row.append(contentsOf: 0..<Int32(n))
                }
            }
            return out
        case .even:
            // Round-robin rows over slices, continuing where the last load stopped:
            // global row g goes to slice (cursor + g) % sc.
            let cursor = snap.evenCursor % sc
            let total = counts.reduce(0, +)
            snap.evenCursor = (snap.evenCursor + total) % sc
            return collect(counts, sliceCount: sc, context: context, serial: serial) { s, ci, firstRow, n, chunk, row in
                var r = ((s - cursor - firstRow) % sc + sc) % sc
                while r < n {
                    chunk.append(Int32(ci))
                    row.append(Int32(r))
                    r += sc
                }
            }
        case .key(let col):
            // The key hashes of all chunks in parallel, then each slice picks its rows.
            let dests = ResultSlots<[Int32]>(count: counts.count, initial: [])
            parallelFor(counts.count, context: context, serial: serial) { ci in
                dests.set(ci, slices(forKey: held.vector(col, chunk: ci), count: counts[ci], sliceCount: sc))
            }
            let keyDest = dests.values
            return collect(counts, sliceCount: sc, context: context, serial: serial) { s, ci, _, n, chunk, row in
                let target = Int32(s)
                keyDest[ci].withUnsafeBufferPointer { d in
                    for r in 0..<min(n, d.count) where d[r] == target {
                        chunk.append(Int32(ci))
                        row.append(Int32(r))
                    }
                }
            }
        }
    }

    /// Each slice's references, built by one worker per slice: `pick(slice, chunk index,
    /// first global row of the chunk, rows, &chunk refs, &row refs)` appends the rows of
    /// that chunk the slice takes, in row order.
    private static func collect(_ counts: [Int], sliceCount sc: Int, context: QueryContext, serial: Bool,
                                pick: @escaping @Sendable (Int, Int, Int, Int, inout [Int32], inout [Int32]) -> Void) -> [SliceRefs] {
        let total = counts.reduce(0, +)
        let out = ResultSlots<SliceRefs>(count: sc, initial: SliceRefs())
        parallelFor(sc, context: context, serial: serial) { s in
            var chunk: [Int32] = [], row: [Int32] = []
            chunk.reserveCapacity(total / sc + total / (8 * sc) + 16)
            row.reserveCapacity(total / sc + total / (8 * sc) + 16)
            var first = 0
            for (ci, n) in counts.enumerated() {
                pick(s, ci, first, n, &chunk, &row)
                first += n
            }
            out.set(s, SliceRefs(chunk: chunk, row: row))
        }
        return out.values
    }

    /// Resolve each column's encoding: as declared, or ENCODE AUTO from a sample.
    /// Every (column, candidate encoding) trial runs in parallel, longest first (string
    /// columns), so one wide column's trials do not leave the other cores idle.
    static func chooseEncodings(table: TableDef, context: QueryContext, sample: [Vector]?) -> [ColumnEncoding] {
        let columns = table.columns
        var chosen = [ColumnEncoding](filled: .raw, count: columns.count)
        var auto: [Int] = []
        for (i, c) in columns.enumerated() {
            if let name = c.encoding, name.lowercased() != "auto", let e = ColumnEncoding(sqlName: name) {
                chosen[i] = e
            } else if sample != nil {
                auto.append(i)
            }
        }
        guard let sample, !auto.isEmpty else { return chosen }
        let plans = auto.map { BlockEncoder.candidates(sample[$0], type: columns[$0].type) }
        var trials: [(column: Int, plan: Int, encodings: [ColumnEncoding])] = []
        for (k, i) in auto.enumerated() {
            for group in BlockEncoder.trialGroups(plans[k].encodings) { trials.append((i, k, group)) }
        }
        trials.sort { a, b in
            let sa = columns[a.column].type.isString, sb = columns[b.column].type.isString
            return sa && !sb
        }
        let sizes = ResultSlots<[ColumnEncoding: Int]>(count: trials.count, initial: [:])
        let work = trials
        parallelFor(work.count, context: context) { t in
            let trial = work[t]
            sizes.set(t, BlockEncoder.trialSizes(sample[trial.column], count: plans[trial.plan].rows,
                                                 encodings: trial.encodings))
        }
        var byColumn = [[ColumnEncoding: Int]](repeating: [:], count: auto.count)
        for (t, found) in sizes.values.enumerated() {
            byColumn[work[t].plan].merge(found) { a, _ in a }
        }
        for (k, i) in auto.enumerated() {
            chosen[i] = BlockEncoder.chooseAuto(rows: plans[k].rows, sizes: byColumn[k], type: columns[i].type,
                                                isSortKeyColumn: table.sortKey.first == i)
        }
        return chosen
    }

    /// Cut `v` into blocks of about `targetBytes` encoded bytes, of at most `maxRows` rows,
    /// and write them.
    static func encodeBlocks(_ v: Vector, count: Int, firstRow: Int, encoding: ColumnEncoding,
                             table: Int, slice: Int, sink: BlockSink, targetBytes: Int,
                             maxRows: Int = maxBlockRows) throws -> [BlockRef] {
        var rowsPerBlock = 0
        return try encodeBlocks(v, count: count, firstRow: firstRow, encoding: encoding, table: table, slice: slice,
                                sink: sink, targetBytes: targetBytes, maxRows: maxRows, rowsPerBlock: &rowsPerBlock,
                                keepTail: false).blocks
    }

    /// Cut `v` into blocks of about `targetBytes` encoded bytes, of at most `maxRows` rows,
    /// and write them.
    /// `rowsPerBlock`: the size of the next block, in rows (0: start from the default), left
    /// at the size for the block after the last one written. With `keepTail`, rows that
    /// would make a block smaller than that are not written: `written` says how many were.
    static func encodeBlocks(_ v: Vector, count: Int, firstRow: Int, encoding: ColumnEncoding,
                             table: Int, slice: Int, sink: BlockSink, targetBytes: Int, maxRows: Int = maxBlockRows,
                             rowsPerBlock: inout Int, keepTail: Bool) throws -> (blocks: [BlockRef], written: Int) {
        try encodeBlocks(count: count, firstRow: firstRow, encoding: encoding, table: table, slice: slice, sink: sink,
                         targetBytes: targetBytes, maxRows: maxRows, rowsPerBlock: &rowsPerBlock, keepTail: keepTail) { start, _ in
            (v, start)
        }
    }

    /// `encodeBlocks` of rows that `rows(start, count)` hands out: a vector holding them
    /// from a position on (a piece's rows after the rows carried from the last piece).
    static func encodeBlocks(count: Int, firstRow: Int, encoding: ColumnEncoding,
                             table: Int, slice: Int, sink: BlockSink, targetBytes: Int, maxRows: Int = maxBlockRows,
                             rowsPerBlock: inout Int, keepTail: Bool,
                             rows: (_ start: Int, _ count: Int) -> (Vector, Int)) throws -> (blocks: [BlockRef], written: Int) {
        try cutBlocks(count: count, firstRow: firstRow, encoding: encoding, table: table, slice: slice, sink: sink,
                      targetBytes: targetBytes, maxRows: maxRows, rowsPerBlock: &rowsPerBlock, keepTail: keepTail) { start, n in
            let (v, at) = rows(start, n)
            var dictionary: StringArray?
            let bytes = try BlockEncoder.encode(v, start: at, count: n, encoding: encoding, dictionary: &dictionary)
            // A dictionary block's range is its dictionary's: a few values, not every row.
            return (bytes, {
                dictionary.map { ZoneMap.compute(distinct: $0, type: v.type, count: n) }
                    ?? ZoneMap.compute(v, start: at, count: n)
            })
        }
    }

    /// BYTEDICT blocks of a string column held as dictionary `codes` into `dictionary`
    /// (`HeldRows.codeParts`, gathered into the slice's order): the blocks `encodeBlocks`
    /// writes for the strings, made from the codes without the strings.
    static func encodeCodedBlocks(codes: [UInt8], dictionary: StringArray, type: DataType, firstRow: Int,
                                  table: Int, slice: Int, sink: BlockSink, targetBytes: Int,
                                  maxRows: Int = maxBlockRows, rowsPerBlock first: Int = 0) throws -> [BlockRef] {
        var rowsPerBlock = first
        return try codes.withUnsafeBufferPointer { cp in
            try cutBlocks(count: cp.count, firstRow: firstRow, encoding: .bytedict, table: table, slice: slice,
                          sink: sink, targetBytes: targetBytes, maxRows: maxRows, rowsPerBlock: &rowsPerBlock,
                          keepTail: false) { start, n in
                let (bytes, distinct) = try BlockEncoder.encode(codes: UnsafeBufferPointer(rebasing: cp[start..<(start + n)]),
                                                                dictionary: dictionary, type: type)
                return (bytes, { ZoneMap.compute(distinct: distinct, type: type, count: n) })
            }.blocks
        }
    }

    /// Rows `0..<count` cut into blocks of about `targetBytes` encoded bytes and at most
    /// `maxRows` rows, and written: `block(start, n)` encodes rows `start..<start+n` and
    /// gives the block's zone map (asked for only if the block is kept).
    private static func cutBlocks(count: Int, firstRow: Int, encoding: ColumnEncoding,
                                  table: Int, slice: Int, sink: BlockSink, targetBytes: Int, maxRows: Int,
                                  rowsPerBlock: inout Int, keepTail: Bool,
                                  block: (_ start: Int, _ count: Int) throws -> ([UInt8], () -> ZoneMap))
                                  throws -> (blocks: [BlockRef], written: Int) {
        var blocks: [BlockRef] = []
        var start = 0
        let maxRows = max(minBlockRows, min(maxRows, maxBlockRows))
        if rowsPerBlock <= 0 { rowsPerBlock = targetBytes >= defaultBlockBytes ? 65_536 : 4096 }
        rowsPerBlock = min(rowsPerBlock, maxRows)
        if !keepTail { rowsPerBlock = min(rowsPerBlock, max(count, 1)) }
        while start < count {
            if keepTail && count - start < rowsPerBlock { break }
            let n = min(rowsPerBlock, count - start)
            let (bytes, zoneMap) = try block(start, n)
            // Aim the next block at the target size from this block's bytes per row.
            let perRow = max(Double(bytes.count) / Double(n), 0.01)
            let ideal = Int(Double(targetBytes) / perRow)
            if bytes.count > targetBytes * 2 && n > minBlockRows {
                // Far too big: retry smaller.
                rowsPerBlock = max(minBlockRows, ideal)
                continue
            }
            let zone = zoneMap()
            let payload = try sink.write(table: table, slice: slice, bytes: bytes)
            blocks.append(BlockRef(uid: BlockIDs.make(), payload: payload, encoding: encoding,
                                   firstRow: firstRow + start, zone: zone))
            start += n
            rowsPerBlock = max(minBlockRows, min(maxRows, ideal))
        }
        return (blocks, start)
    }
}

/// One value per index, set from concurrent workers.
final class ResultSlots<T>: @unchecked Sendable {
    private var slots: [T]
    private let lock = Lock()
    init(count: Int, initial: T) { slots = Array(repeating: initial, count: count) }
    func set(_ i: Int, _ v: T) { lock.withLock { slots[i] = v } }
    /// Replace slot `i` with `f` of it and return the new value.
    func update(_ i: Int, _ f: (T) -> T) -> T { lock.withLock { slots[i] = f(slots[i]); return slots[i] } }
    var values: [T] { lock.withLock { slots } }
}
