// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog

/// How a slice's rows are ordered by VACUUM's sort phase.
public enum VacuumSortKind: Sendable {
    /// Sort the unsorted region and merge it into the sorted one (compound sort keys).
    case merge
    /// Sort every row again (interleaved sort keys: the z-order depends on all rows).
    case resort
    /// Sort the unsorted region in place, leaving the sorted region as it is (RECLUSTER).
    case suffixOnly
}

/// Orders one slice's rows for the sort phase: `keys` holds the sort-key columns of the
/// rows in storage order (other positions are empty vectors); the first `sortedPrefix`
/// rows are already in sort-key order. Returns the new order (indices into the rows) and
/// how many rows of it are in sort-key order from the start. The engine supplies it, from
/// the execution layer's sorter.
public typealias VacuumSorter = @Sendable (_ keys: [Vector], _ sortedPrefix: Int, _ count: Int,
                                           _ kind: VacuumSortKind) -> (order: [Int32], sortedRows: Int)

/// VACUUM of one table: which phases run, and the rewrite itself.
///
/// A table's rows live per slice in a sorted region followed by an unsorted one, with the
/// deleted rows marked in a bitmap. VACUUM builds the table's next snapshot:
/// - the **delete phase** drops the rows marked deleted;
/// - the **sort phase** orders the unsorted region into the sorted one: it is sorted on its
///   own and then merged with the sorted region (both already in order), not re-sorted
///   together with it.
/// Each slice's new row order is a list of old row numbers. The longest prefix that keeps
/// its row numbers (everything before the first deleted or merged row) keeps its blocks as
/// they are; each column is rewritten from the first block that changes. So a table whose
/// new rows all sort after its old ones (time series) rewrites only its tail.
///
/// The new blocks go to the caller's sink and nothing is visible until the caller commits
/// the returned snapshot; readers keep the snapshot they started with.
public enum TableVacuum {
    /// The forms of VACUUM.
    public enum Mode: String, Sendable {
        case full = "FULL", sortOnly = "SORT ONLY", deleteOnly = "DELETE ONLY", reindex = "REINDEX", recluster = "RECLUSTER"
    }

    /// Redshift's default sort and delete threshold (`TO 95 PERCENT`).
    public static let defaultThreshold = 95

    /// What VACUUM does to one table, decided from its counts.
    public struct Plan: Sendable, Equatable {
        public var reclaim: Bool
        public var sort: VacuumSortKind?
        /// STL_VACUUM's status for the start (or the skip) of this table.
        public var status: String
        public var runs: Bool { reclaim || sort != nil }
    }

    /// Rows counted for thresholds: an ALL table's first copy, every slice otherwise.
    public struct Counts: Sendable, Equatable {
        public var rows = 0, sorted = 0, deleted = 0, blocks = 0

        public init(_ snap: TableSnapshot) {
            let parts = snap.distribution == .all ? Array(snap.slices.prefix(1)) : snap.slices
            for d in parts { rows += d.rowCount; sorted += d.sortedRows; deleted += d.deleted.count }
            blocks = snap.slices.reduce(0) { $0 + $1.blockCount }
        }

        /// Percent of the rows (deleted ones included) in the sorted region.
        public var sortedPercent: Double { rows == 0 ? 100 : Double(sorted) * 100 / Double(rows) }
        /// Percent of the rows not marked deleted.
        public var livePercent: Double { rows == 0 ? 100 : Double(rows - deleted) * 100 / Double(rows) }
    }

    /// Decide the phases for `mode` with `threshold` percent (Redshift's rules: the sort
    /// phase is skipped when at least `threshold` percent of the rows are sorted; the delete
    /// phase runs until at least `threshold` percent of the rows are not marked deleted).
    public static func plan(_ snap: TableSnapshot, table: TableDef, mode: Mode,
                            threshold: Int = defaultThreshold) -> Plan {
        let c = Counts(snap)
        if c.rows == 0 { return Plan(reclaim: false, sort: nil, status: "Skipped (0 rows)") }
        let t = Double(threshold)
        let hasKey = !table.sortKey.isEmpty
        let interleaved = hasKey && table.sortKeyKind == .interleaved && table.sortKey.count > 1
        let deleteNeeded = c.deleted > 0 && c.livePercent < t
        let unsorted = hasKey && c.sorted < c.rows
        let sortNeeded = unsorted && c.sortedPercent < t
        let pct = Int(t)
        switch mode {
        case .deleteOnly:
            return deleteNeeded ? Plan(reclaim: true, sort: nil, status: "Started Delete Only")
                : Plan(reclaim: false, sort: nil, status: "Skipped (delete only)")
        case .sortOnly:
            if sortNeeded { return Plan(reclaim: false, sort: interleaved ? .resort : .merge, status: "Started Sort Only") }
            return Plan(reclaim: false, sort: nil, status: unsorted ? "Skipped (sort only, sorted>=\(pct)%)" : "Skipped (sort only)")
        case .reindex:
            // Interleaved keys: the value ranges are analyzed again and every row re-sorted.
            if interleaved { return Plan(reclaim: c.deleted > 0, sort: .resort, status: "Started Reindex") }
            fallthrough
        case .full:
            switch (deleteNeeded, sortNeeded) {
            case (_, true): return Plan(reclaim: deleteNeeded, sort: interleaved ? .resort : .merge, status: "Started")
            case (true, false):
                return Plan(reclaim: true, sort: nil, status: unsorted ? "Started Delete Only (Sorted >= \(pct)%)" : "Started Delete Only")
            case (false, false): return Plan(reclaim: false, sort: nil, status: "Skipped")
            }
        case .recluster:
            return unsorted ? Plan(reclaim: false, sort: .suffixOnly, status: "Started")
                : Plan(reclaim: false, sort: nil, status: "Skipped")
        }
    }

    /// Rewrite `snap` as `plan` says. `readBlock` decodes a block; `writeDeletes` stores a
    /// slice's remapped deleted-row bitmap (SORT ONLY keeps deleted rows); `progress` is
    /// told the fraction done; the work runs as `context`'s, whose cancellation — and
    /// `isCancelled` (the background vacuum yielding) — is checked between pieces of work.
    public static func run(_ snap: TableSnapshot, table: TableDef, plan: Plan, sink: BlockSink, sorter: VacuumSorter?,
                           blockBytes: Int = Distributor.defaultBlockBytes,
                           readBlock: @escaping @Sendable (BlockRef, DataType) throws -> Vector,
                           writeDeletes: (DeleteSet, Int) throws -> String?,
                           progress: @escaping @Sendable (Double) -> Void = { _ in },
                           context: QueryContext,
                           isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> TableSnapshot {
        let statement = context.cancellation
        let isCancelled: @Sendable () -> Bool = { statement.isCancelled || isCancelled() }
        guard plan.runs, let encodings = snap.encodings else { return snap }
        let types = table.columns.map { $0.type }
        let slices = snap.slices
        @Sendable func cancelled() -> SQLError { SQLError(.internalError, "VACUUM was canceled") }

        // 1. Each slice's new order, slices in parallel.
        let orders = ResultSlots<Result<SliceOrder, Error>?>(count: slices.count, initial: nil)
        parallelFor(slices.count, context: context) { s in
            if isCancelled() { orders.set(s, .failure(cancelled())); return }
            orders.set(s, Result {
                try order(slices[s], table: table, types: types, plan: plan, sorter: sorter, readBlock: readBlock)
            })
        }
        let plans = try orders.values.enumerated().map { s, r in
            guard let r else { throw SQLError.internalError("slice \(s) was not ordered") }
            return try r.get()
        }
        progress(0.2)

        // 2. Rewrite every (slice, column) that changes, in parallel.
        var work: [(slice: Int, column: Int)] = []
        for c in types.indices where types[c].isString {
            for s in slices.indices where plans[s].changes { work.append((s, c)) }
        }
        for c in types.indices where !types[c].isString {
            for s in slices.indices where plans[s].changes { work.append((s, c)) }
        }
        let tasks = work
        let done = ResultSlots<Int>(count: 1, initial: 0)
        let rewritten = ResultSlots<Result<[BlockRef], Error>?>(count: tasks.count, initial: nil)
        parallelFor(tasks.count, context: context) { t in
            let (s, c) = tasks[t]
            if isCancelled() { rewritten.set(t, .failure(cancelled())); return }
            rewritten.set(t, Result {
                try rewrite(slices[s].columns[c], order: plans[s], type: types[c],
                            encoding: encodings[c], table: table.id, slice: s, sink: sink, blockBytes: blockBytes,
                            maxRows: Distributor.maxRows(table), readBlock: readBlock)
            })
            let n = done.update(0) { $0 + 1 }
            progress(0.2 + 0.8 * Double(n) / Double(max(1, tasks.count)))
        }
        var next = snap
        var columns = slices.map { $0.columns }
        for (t, r) in rewritten.values.enumerated() {
            guard let r else { throw SQLError.internalError("slice \(tasks[t].slice) column \(tasks[t].column) was not rewritten") }
            columns[tasks[t].slice][tasks[t].column] = try r.get()
        }
        for s in slices.indices where plans[s].changes {
            let old = slices[s], p = plans[s]
            var deleted = DeleteSet()
            if !plan.reclaim && !old.deleted.isEmpty {
                for (i, r) in p.rows.enumerated() where old.deleted.contains(Int(r)) { deleted.insert(i) }
            }
            let file = deleted.isEmpty ? nil : try writeDeletes(deleted, s)
            next.slices[s] = SliceData(rowCount: p.rows.count, sortedRows: p.sortedRows, columns: columns[s],
                                       deleted: deleted, deleteFile: file)
        }
        if slices.indices.contains(where: { plans[$0].changes }) { next.reorganizations += 1 }
        progress(1)
        return next
    }

    /// `snap` with the blocks of its tail buffer (`Distributor.tailBufferSliceBytes`) written
    /// to `sink`'s files as they are, or nil when it holds none (or `sink` keeps blocks in
    /// memory: a database without a directory). Same rows, same block boundaries.
    public static func foldHeld(_ snap: TableSnapshot, table: TableDef, sink: BlockSink) throws -> TableSnapshot? {
        guard !sink.keepsBlocksInMemory else { return nil }
        var next = snap, folded = false
        for s in snap.slices.indices {
            for c in snap.slices[s].columns.indices {
                for (i, b) in snap.slices[s].columns[c].enumerated() {
                    guard case .memory(let held) = b.payload else { continue }
                    next.slices[s].columns[c][i].payload = try sink.write(table: table.id, slice: s, bytes: held.bytes)
                    folded = true
                }
            }
        }
        return folded ? next : nil
    }

    /// One slice's new rows: `rows[i]` is the old row number of new row `i`; rows before
    /// `prefix` keep their numbers.
    struct SliceOrder: Sendable {
        var rows: [Int32]
        var sortedRows: Int
        var prefix: Int
        var changes: Bool
    }

    static func order(_ data: SliceData, table: TableDef, types: [DataType], plan: Plan, sorter: VacuumSorter?,
                      readBlock: @Sendable (BlockRef, DataType) throws -> Vector) throws -> SliceOrder {
        let n = data.rowCount
        var rows: [Int32]
        var sortedCount: Int
        if plan.reclaim && !data.deleted.isEmpty {
            rows = []
            rows.reserveCapacity(n - data.deleted.count)
            sortedCount = 0
            for r in 0..<n where !data.deleted.contains(r) {
                rows.append(Int32(r))
                if r < data.sortedRows { sortedCount += 1 }
            }
        } else {
            rows = Array(0..<Int32(n))
            sortedCount = data.sortedRows
        }
        var sortedRows = sortedCount
        if let kind = plan.sort, let sorter, n > 0, sortedCount < rows.count || kind == .resort {
            let keyColumns = try types.indices.map { c -> Vector in
                guard table.sortKey.contains(c) else { return Vector(type: types[c]) }
                return try read(data.columns[c], from: 0, type: types[c], readBlock: readBlock).gather(rows)
            }
            let (perm, sorted) = sorter(keyColumns, sortedCount, rows.count, kind)
            rows = perm.map { rows[Int($0)] }
            sortedRows = sorted
        }
        var prefix = 0
        while prefix < rows.count && rows[prefix] == Int32(prefix) { prefix += 1 }
        // A slice already in order changes only its sorted-region mark (no block is rewritten).
        let changes = prefix < n || rows.count != n || sortedRows != data.sortedRows
        return SliceOrder(rows: rows, sortedRows: sortedRows, prefix: prefix, changes: changes)
    }

    /// The values of a column chain from the block holding row `from` on, as one vector
    /// starting at that block's first row.
    static func read(_ chain: [BlockRef], from row: Int, type: DataType,
                     readBlock: (BlockRef, DataType) throws -> Vector) throws -> Vector {
        var v = Vector(type: type)
        for b in chain where b.endRow > row {
            v.append(try readBlock(b, type).flattened(count: b.rowCount), rows: b.rowCount)
        }
        return v
    }

    /// A column's next chain: the blocks wholly before the order's unchanged prefix kept,
    /// the rest re-encoded in the new order.
    static func rewrite(_ chain: [BlockRef], order: SliceOrder, type: DataType, encoding: ColumnEncoding,
                        table: Int, slice: Int, sink: BlockSink, blockBytes: Int, maxRows: Int,
                        readBlock: (BlockRef, DataType) throws -> Vector) throws -> [BlockRef] {
        let kept = chain.prefix { $0.endRow <= order.prefix }
        let start = kept.last?.endRow ?? 0
        let count = order.rows.count - start
        if count <= 0 { return Array(kept) }
        let old = try read(chain, from: start, type: type, readBlock: readBlock)
        let local = order.rows[start...].map { $0 - Int32(start) }
        let values = old.gather(Array(local))
        return Array(kept) + (try Distributor.encodeBlocks(values, count: count, firstRow: start, encoding: encoding,
                                                           table: table, slice: slice, sink: sink, targetBytes: blockBytes,
                                                           maxRows: maxRows))
    }
}
