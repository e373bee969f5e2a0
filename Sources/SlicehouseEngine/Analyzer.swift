// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution

/// Collects a table's statistics (ANALYZE, and the background analyze): per column a
/// HyperLogLog sketch of the distinct values, the NULL count and the numeric range, over
/// every live row, slices in parallel. Holds the database's parts, not the database.
struct Analyzer: Sendable {
    let store: DataStore
    let cache: BlockCache

    /// Analyze `columns` of table `name` in `transaction` and stage the statistics with
    /// the table (merged into what earlier ANALYZEs found for other columns). The slices
    /// are read as `context`'s work.
    func analyze(_ name: QualifiedName, columns: [Int], transaction: Transaction, context: QueryContext) throws {
        guard let def = transaction.resolve(name) else {
            throw SQLError(.undefinedTable, "relation \"\(name.name)\" does not exist")
        }
        // The lock first (a writer finishes before the rows are read), then the rows as
        // this transaction sees them: its own pending changes, else the latest commit.
        let (_, snap) = try transaction.beginWrite(def.qualifiedName, reads: true)
        let parts = snap.distribution == .all ? [(slice: 0, data: snap.slices[0])]
            : snap.slices.enumerated().map { (slice: $0.offset, data: $0.element) }
        let types = columns.map { def.columns[$0].type }
        let cache = self.cache
        let partials = try parallelMap(parts.count, context: context) { p -> [ColumnPartial] in
            var out = types.map { _ in ColumnPartial() }
            let scanner = SliceScanner(parts: [parts[p]], columns: columns, types: types, predicates: [], cache: cache)
            while let chunk = try scanner.next() {
                let c = chunk.compacted()
                for k in columns.indices { out[k].add(c.columns[k].flattened(count: c.count), count: c.count) }
            }
            return out
        }
        var merged = types.map { _ in ColumnPartial() }
        for slice in partials {
            for (k, part) in slice.enumerated() { merged[k].merge(part) }
        }
        var next = snap
        next.analyzed = Self.analyzed(snap, columns: columns, partials: merged)
        transaction.stageReorganized(def.id, next)
    }

    /// `snap`'s statistics with those of `columns` replaced by what `partials` (one per
    /// column, over every live row) counted.
    static func analyzed(_ snap: TableSnapshot, columns: [Int], partials: [ColumnPartial]) -> AnalyzedTable {
        var stats = snap.analyzed?.columns ?? [:]
        for (k, c) in columns.enumerated() {
            let m = partials[k]
            stats[c] = ColumnStatistics(distinct: m.distinct,
                                      nullFraction: m.rows == 0 ? 0 : Double(m.nulls) / Double(m.rows),
                                      min: m.low, max: m.high)
        }
        return AnalyzedTable(rows: snap.rowCount, modifications: snap.modifications,
                             time: Int64(Date().timeIntervalSince1970 * 1_000_000), columns: stats)
    }

    /// Statistics gathered from the rows of a load as they go by: COPY into an empty
    /// table (Redshift's STATUPDATE default) counts the NULLs, minimum and maximum and the
    /// distinct-value sketch of every value it stores, with no second pass over the table:
    /// the same statistics ANALYZE would find after the load. The columns are counted in
    /// parallel, as the load's (`context`'s) work.
    final class LoadStatistics {
        private(set) var partials: [ColumnPartial]
        let context: QueryContext

        init(columns: Int, context: QueryContext) {
            partials = (0..<columns).map { _ in ColumnPartial() }
            self.context = context
        }

        /// Count `chunks` (rows of every column of the table, in column order).
        func add(_ chunks: [Chunk]) throws {
            let live = chunks.map { $0.compacted() }.filter { $0.count > 0 }
            if live.isEmpty { return }
            let before = partials
            partials = try parallelMap(before.count, context: context) { c in
                var p = before[c]
                for chunk in live where c < chunk.columns.count {
                    p.add(chunk.columns[c].flattened(count: chunk.count), count: chunk.count)
                }
                return p
            }
        }

        /// The statistics of `snap`, the table after the load (which held every row).
        func analyzed(_ snap: TableSnapshot) -> AnalyzedTable {
            Analyzer.analyzed(snap, columns: Array(partials.indices), partials: partials)
        }
    }

    /// One column's counts over part of the rows.
    struct ColumnPartial: Sendable {
        var sketch = DistinctSketch()
        var rows = 0, nulls = 0
        var low: Double?, high: Double?

        /// Count every row of `v`'s first `count`.
        mutating func add(_ v: Vector, count: Int) {
            // The sketch finds a flat integer column's range on its way.
            let found = sketch.addReturningRange(v, count: count)
            addRange(v, count: count, known: found)
        }

        /// The estimated distinct non-NULL values: the sketch's estimate, at most the
        /// non-NULL rows.
        var distinct: Double {
            let n = Double(max(0, rows - nulls))
            return min(n, sketch.estimate.rounded())
        }

        /// `known`: the non-NULL values' range, when the sketch found it.
        private mutating func addRange(_ v: Vector, count: Int, known: DistinctSketch.OfferedRange = .unknown) {
            rows += count
            if v.isConstant {
                if let validity = v.validity, count > 0, !validity.isValid(0) { nulls += count; return }
            } else if let validity = v.validity {
                nulls += validity.nullCount(min(count, validity.words.count << 6))
            }
            func extend(_ x: Double) {
                if low.map({ x < $0 }) ?? true { low = x }
                if high.map({ x > $0 }) ?? true { high = x }
            }
            switch known {
            case .values(let low, let high):
                extend(Double(low)); extend(Double(high))
                return
            case .empty:
                return
            case .unknown:
                break
            }
            let validity = v.validity
            let n = v.isConstant ? min(count, 1) : count
            switch v.data {
            case .int64(let a):
                var lo = Int64.max, hi = Int64.min
                a.withUnsafeBufferPointer { p in
                    let m = min(n, p.count)
                    if let words = validity?.words, !v.isConstant {
                        // NULL rows take the identity of each side: no branch per row.
                        words.withUnsafeBufferPointer { w in
                            for i in 0..<min(m, w.count << 6) {
                                let valid = (w[i >> 6] >> UInt64(i & 63)) & 1 != 0
                                lo = Swift.min(lo, valid ? p[i] : .max)
                                hi = Swift.max(hi, valid ? p[i] : .min)
                            }
                        }
                    } else {
                        // No NULLs (a load's columns, mostly): a loop that vectorizes.
                        for x in p.prefix(m) { lo = Swift.min(lo, x); hi = Swift.max(hi, x) }
                    }
                }
                if lo <= hi { extend(Double(lo)); extend(Double(hi)) }
            case .double(let a):
                // Infinities are left out of the range (it is stored as JSON, and they would
                // make every range predicate look like it keeps nothing or everything).
                for i in 0..<min(n, a.count) where (validity?.isValid(i) ?? true) && a[i].isFinite { extend(a[i]) }
            case .int128(let a):
                for i in 0..<min(n, a.count) where validity?.isValid(i) ?? true { extend(Double(a[i])) }
            case .bool, .string:
                break
            }
        }

        mutating func merge(_ o: ColumnPartial) {
            sketch.merge(o.sketch)
            rows += o.rows; nulls += o.nulls
            if let l = o.low { low = min(low ?? l, l) }
            if let h = o.high { high = max(high ?? h, h) }
        }
    }
}

extension Database {
    var analyzer: Analyzer { Analyzer(store: store, cache: cache) }
}
