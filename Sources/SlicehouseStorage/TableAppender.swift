// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog

/// Appends a stream of chunks (a COPY, piece by piece) to one table in bounded memory:
/// the rows are placed, ordered and encoded into blocks written to the sink as they come,
/// and what stays in memory is the rows not yet flushed plus, per (slice, column), less
/// than one block of rows — independent of how many rows arrive in all.
///
/// - A table without a sort key is flushed every `streamBytes` of rows: each flush writes
///   the full blocks of every (slice, column) and carries the remaining rows into the
///   next one (`Distributor.ColumnTails`), so the blocks are the ones a single append of
///   all the rows would have written — unless the statement's budget refuses the rows
///   held: then the carried rows are written as short blocks, so what stays in memory
///   follows the budget even for rows that encode to almost nothing.
/// - A sorted table's rows are collected up to `runBytes` (or as much of the statement's
///   memory budget as it grants), then sorted and written as one **sorted run** per
///   slice. A load that fits in one run is stored exactly as before: sorted, and the
///   sorted region when the table was empty. A larger one leaves its later runs after the
///   sorted region, as Redshift leaves an unsorted region after appending to a table
///   with rows; each run is sorted within itself, so zone maps still skip blocks, and
///   VACUUM SORT merges the runs (docs/ARCHITECTURE.md, "One COPY").
///
/// Nothing is visible until the caller stages `finish()`'s snapshot and the transaction
/// commits; on failure the caller discards the sink (the blocks already written).
/// `add` and `finish` are called from one thread at a time, in row order.
public final class TableAppender {
    /// Rows of a sorted table sorted together at most (the statement's budget may cut a run shorter).
    public static let defaultRunBytes = 704 << 20
    /// Rows of an unsorted table collected before a flush.
    public static let defaultStreamBytes = 48 << 20
    /// What writing a sorted run takes per row besides the held values — each slice's
    /// references, sort keys and reorder plan, measured at about 42 bytes a row on
    /// TPC-H lineitem — counted against `runBytes` with them: lineitem held 74 bytes a
    /// row narrowed, and runs counted by that alone grew to 10 M rows at SF 10, whose
    /// flush then peaked 350 MB higher than the runs of wide rows had.
    static let runBytesPerRow = 48

    let table: TableDef
    let layout: SliceLayout
    let sink: BlockSink
    let sorter: SortPermutation?
    let blockBytes: Int
    let readBlock: (@Sendable (BlockRef, DataType) throws -> Vector)?
    let existing: (TableSnapshot, Int) throws -> [Chunk]
    let runBytes: Int
    let streamBytes: Int
    let gatherRows: Int
    /// The statement's: its memory, cancellation and worker pool share.
    let context: QueryContext
    let reservation: MemoryReservation

    private var snapshot: TableSnapshot
    /// Rows not yet placed; a sorted table's wait with their integers narrowed (a whole
    /// sorted run is held).
    private var pending: HeldRows
    private var pendingRows = 0
    private var pendingBytes = 0
    private var tails: Distributor.ColumnTails?
    private var tailBytes = 0
    private var flushes = 0
    /// Sorted runs written so far (tests and notes).
    public private(set) var runs = 0
    /// Rows appended so far.
    public private(set) var rows = 0

    /// - Parameters:
    ///   - context: the statement's: the rows held are reserved from its memory (a sorted
    ///     run is written early when the budget refuses more), its cancellation is checked
    ///     before each piece, and the placing and encoding run as its work.
    ///   - runBytes: rows of a sorted table sorted together at most (tests shrink it).
    ///   - streamBytes: rows of an unsorted table collected before a flush (at most `runBytes`).
    ///   - gatherRows: a sorted run's string columns are gathered and encoded this many
    ///     rows at a time (`Distributor.encodePieces`; tests shrink it).
    public init(snapshot: TableSnapshot, table: TableDef, layout: SliceLayout, sink: BlockSink,
                sorter: SortPermutation?, blockBytes: Int = Distributor.defaultBlockBytes,
                readBlock: (@Sendable (BlockRef, DataType) throws -> Vector)? = nil,
                runBytes: Int = TableAppender.defaultRunBytes,
                streamBytes: Int = TableAppender.defaultStreamBytes, gatherRows: Int = ReorderPlan.pieceRows,
                context: QueryContext, existing: @escaping (TableSnapshot, Int) throws -> [Chunk]) {
        self.snapshot = snapshot
        self.table = table
        self.layout = layout
        self.sink = sink
        self.sorter = table.sortKey.isEmpty ? nil : sorter
        self.blockBytes = blockBytes
        self.readBlock = readBlock
        self.existing = existing
        pending = HeldRows(types: table.columns.map { $0.type }, narrow: !table.sortKey.isEmpty && sorter != nil)
        self.runBytes = max(1, runBytes)
        self.streamBytes = max(1, min(streamBytes, runBytes))
        self.gatherRows = max(ReorderPlan.windowRows, gatherRows - gatherRows % ReorderPlan.windowRows)
        self.context = context
        reservation = MemoryReservation(context.memory)
        if self.sorter == nil {
            tails = Distributor.ColumnTails(slices: layout.sliceCount, columns: table.columns.count)
        }
    }

    deinit { reservation.free() }

    private var sorted: Bool { sorter != nil }

    /// Take the next rows (full-width chunks, in load order).
    public func add(_ chunks: [Chunk]) throws {
        try context.cancellation.check()
        pending.append(contentsOf: chunks, context: context)
        pendingRows = pending.rowCount
        pendingBytes = pending.bytes + (sorted ? pendingRows * Self.runBytesPerRow : 0)

        rows += chunks.reduce(0) { $0 + $1.count }
        let granted = reservation.tryResize(to: pendingBytes + tailBytes)
        if !granted { reservation.resize(to: pendingBytes + tailBytes) }
        guard mayFlush(refused: !granted) else { return }
        if sorted {
            if pendingBytes >= runBytes || (!granted && pendingBytes > 0) { try flush(final: false) }
        } else if pendingBytes >= streamBytes || !granted {
            // Refused, the rows carried toward full blocks are written too, as short blocks:
            // rows that encode small (one value repeated) fill a block only at
            // `Distributor.maxBlockRows`, and every (slice, column) would hold that many.
            try flush(final: !granted)
        }
    }

    /// Whether the pending rows may be written now rather than at the end: an AUTO table
    /// still held as ALL decides its distribution once it has seen more than
    /// `autoAllMaxRows` rows; ENCODE AUTO chooses from a sample of up to
    /// `BlockEncoder.autoSampleRows` rows of a slice, so the first flush waits for that
    /// many (unless the memory budget refuses them).
    private func mayFlush(refused: Bool) -> Bool {
        if table.distStyle == .auto, snapshot.distribution == .all,
           snapshot.rowCount + pendingRows <= Distributor.autoAllMaxRows { return false }
        if !refused, snapshot.encodings == nil, flushes == 0,
           pendingRows < BlockEncoder.autoSampleRows * max(layout.sliceCount, 1) * 5 / 4,
           pendingBytes < runBytes { return false }
        return true
    }

    /// Write everything still held and return the table's next snapshot.
    public func finish() throws -> TableSnapshot {
        try context.cancellation.check()
        try flush(final: true)
        reservation.free()
        return snapshot
    }

    private func flush(final: Bool) throws {
        if pending.isEmpty && (!final || tailBytes == 0) { return }
        try context.cancellation.check()
        let held = pending
        pending = HeldRows(types: held.types, narrow: held.narrow)
        let wasSorted = sorted && pendingRows > 0
        pendingRows = 0
        pendingBytes = 0
        // Only the first flush re-encodes a small last block of the table together with
        // the new rows (as a single append does); later ones continue from their own tails.
        snapshot = try Distributor.place(held, onto: snapshot, table: table, layout: layout, sink: sink, sorter: sorter,
                                         blockBytes: blockBytes, readBlock: flushes == 0 ? readBlock : nil,
                                         tails: &tails, final: final, gatherRows: gatherRows, context: context,
                                         existing: existing)
        flushes += 1
        if wasSorted { runs += 1 }
        tailBytes = tails?.bytes ?? 0
        reservation.resize(to: tailBytes)
    }
}
