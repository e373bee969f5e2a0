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
    /// the table (merged into what earlier ANALYZEs found for other columns).
    func analyze(_ name: QualifiedName, columns: [Int], transaction: Transaction) throws {
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
        let partials = try parallelMap(parts.count) { p -> [ColumnPartial] in
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
        var stats = snap.analyzed?.columns ?? [:]
        let rows = snap.rowCount
        for (k, c) in columns.enumerated() {
            let m = merged[k]
            let nonNull = max(0, m.rows - m.nulls)
            stats[c] = ColumnStatistics(distinct: min(Double(nonNull), m.sketch.estimate.rounded()),
                                      nullFraction: m.rows == 0 ? 0 : Double(m.nulls) / Double(m.rows),
                                      min: m.low, max: m.high)
        }
        var next = snap
        next.analyzed = AnalyzedTable(rows: rows, modifications: snap.modifications,
                                      time: Int64(Date().timeIntervalSince1970 * 1_000_000), columns: stats)
        transaction.stageReorganized(def.id, next)
    }

    /// One column's counts over part of the rows.
    struct ColumnPartial: Sendable {
        var sketch = DistinctSketch()
        var rows = 0, nulls = 0
        var low: Double?, high: Double?

        mutating func add(_ v: Vector, count: Int) {
            rows += count
            if let validity = v.validity { for i in 0..<count where !validity.isValid(i) { nulls += 1 } }
            sketch.add(v, count: count)
            func extend(_ x: Double) {
                if low.map({ x < $0 }) ?? true { low = x }
                if high.map({ x > $0 }) ?? true { high = x }
            }
            let validity = v.validity
            switch v.data {
            case .int64(let a):
                var lo = Int64.max, hi = Int64.min, any = false
                for i in 0..<min(count, a.count) where validity?.isValid(i) ?? true { lo = Swift.min(lo, a[i]); hi = Swift.max(hi, a[i]); any = true }
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
            rows += o.rows; nulls += o.nulls
            if let l = o.low { low = min(low ?? l, l) }
            if let h = o.high { high = max(high ?? h, h) }
        }
    }
}

extension Database {
    var analyzer: Analyzer { Analyzer(store: store, cache: cache) }
}
