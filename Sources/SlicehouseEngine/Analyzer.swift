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
    /// table (Redshift's STATUPDATE default) counts the NULLs, minimum and maximum of
    /// every value it stores, with no second pass over the table. Distinct counts come
    /// from every value of the first `exactRows` rows, then from a sample (every third
    /// 64-bit value, every tenth string or other value: hashing every value of a big
    /// load would add a tenth to its time), estimated as `ColumnPartial.distinct` says.
    /// The columns are counted in parallel, as the load's (`context`'s) work.
    final class LoadStatistics {
        static let exactRows = 1 << 16
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
                    let column = chunk.columns[c].flattened(count: chunk.count)
                    if p.rows + chunk.count <= Self.exactRows {
                        p.add(column, count: chunk.count)
                    } else {
                        p.addSampled(column, count: chunk.count, every: column.type.physical == .int64 ? 3 : 10)
                    }
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
        /// Non-NULL values the sketch was offered (all of them, unless `addSampled`).
        var sampled = 0
        var low: Double?, high: Double?

        /// Count every row of `v`'s first `count`.
        mutating func add(_ v: Vector, count: Int) {
            let nullsBefore = nulls
            addRange(v, count: count)
            sketch.add(v, count: count)
            sampled += count - (nulls - nullsBefore)
        }

        /// Count `v`'s first `count` rows, offering only every `every`-th value to the
        /// sketch (NULLs, minimum and maximum still see every row).
        mutating func addSampled(_ v: Vector, count: Int, every: Int) {
            addRange(v, count: count)
            sampled += sketch.addSample(v, count: count, every: every)
        }

        /// The estimated distinct non-NULL values. Exact-sketch counts when every value was
        /// offered; from a sample of `s` of the `n` values with `u` distinct, `u` plus the
        /// values the sample missed, taking the share of values seen once in the sample
        /// as (u/s)² (Good–Turing; the estimate DuckDB makes of its sampled appends): a
        /// key column (u = s) scales to n, a column whose values repeat stays near u.
        var distinct: Double {
            let n = Double(max(0, rows - nulls))
            let u = sketch.estimate.rounded()
            let s = Double(sampled)
            if s <= 0 || s >= n { return min(n, u) }
            let seen = min(u, s)
            let once = (seen / s) * (seen / s) * seen
            return min(n, (seen + once / s * (n - s)).rounded())
        }

        private mutating func addRange(_ v: Vector, count: Int) {
            rows += count
            if let validity = v.validity { for i in 0..<count where !validity.isValid(i) { nulls += 1 } }
            func extend(_ x: Double) {
                if low.map({ x < $0 }) ?? true { low = x }
                if high.map({ x > $0 }) ?? true { high = x }
            }
            let validity = v.validity
            switch v.data {
            case .int64(let a):
                var lo = Int64.max, hi = Int64.min, any = false
                if let validity {
                    for i in 0..<min(count, a.count) where validity.isValid(i) {
                        lo = Swift.min(lo, a[i]); hi = Swift.max(hi, a[i]); any = true
                    }
                } else {
                    // No NULLs (a load's columns, mostly): a loop that vectorizes.
                    a.withUnsafeBufferPointer { p in
                        for x in p.prefix(count) { lo = Swift.min(lo, x); hi = Swift.max(hi, x) }
                    }
                    any = min(count, a.count) > 0
                }
                if any { extend(Double(lo)); extend(Double(hi)) }
            case .double(let a):
                // Infinities are left out of the range (it is stored as JSON, and they would
                // make every range predicate look like it keeps nothing or everything).
                for i in 0..<min(count, a.count) where (validity?.isValid(i) ?? true) && a[i].isFinite { extend(a[i]) }
            case .int128(let a):
                for i in 0..<min(count, a.count) where validity?.isValid(i) ?? true { extend(Double(a[i])) }
            case .bool, .string:
                break
            }
        }

        mutating func merge(_ o: ColumnPartial) {
            sketch.merge(o.sketch)
            rows += o.rows; nulls += o.nulls; sampled += o.sampled
            if let l = o.low { low = min(low ?? l, l) }
            if let h = o.high { high = max(high ?? h, h) }
        }
    }
}

extension Database {
    var analyzer: Analyzer { Analyzer(store: store, cache: cache) }
}
