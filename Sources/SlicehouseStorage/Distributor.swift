import Foundation
import SlicehouseTypes
import SlicehouseCatalog

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

    /// Slice of each row for DISTSTYLE KEY: hash of the key value modulo the slice count.
    public static func slices(forKey key: Vector, count n: Int, sliceCount: Int) -> [Int32] {
        var hashes: [UInt64] = []
        key.hash(rows: nil, count: n, into: &hashes, combine: false)
        let s = UInt64(sliceCount)
        return hashes.map { Int32(truncatingIfNeeded: $0 % s) }
    }

    /// Append `chunks` (one vector per table column) to `snapshot`.
    /// - `existing`: reads the live rows of a slice of the current snapshot (needed when
    ///   an AUTO table grows out of ALL and is redistributed EVEN).
    public static func append(_ chunks: [Chunk], to snapshot: TableSnapshot, table: TableDef, layout: SliceLayout,
                              sink: BlockSink, sorter: SortPermutation?, blockBytes: Int = defaultBlockBytes,
                              existing: (TableSnapshot, Int) throws -> [Chunk]) throws -> TableSnapshot {
        var snap = snapshot
        let incoming = chunks.reduce(0) { $0 + $1.count }
        if incoming == 0 { return snap }
        var chunks = chunks
        if table.distStyle == .auto, snap.distribution == .all, snap.rowCount + incoming > autoAllMaxRows {
            // Grow out of ALL: the existing copy is placed EVEN again together with the new rows.
            chunks = try existing(snap, 0) + chunks
            snap = TableSnapshot(slices: Array(repeating: SliceData(columnCount: table.columns.count), count: layout.sliceCount),
                                 distribution: .even, evenCursor: 0, encodings: snap.encodings)
        }
        let perSlice = place(chunks, snapshot: &snap, layout: layout, columnCount: table.columns.count)
        if snap.encodings == nil {
            snap.encodings = chooseEncodings(table: table, sample: perSlice.first { $0.count > 0 })
        }
        let encodings = snap.encodings ?? []
        // Encode every slice in parallel.
        let results = SliceResults(count: layout.sliceCount)
        let base = snap
        DispatchQueue.concurrentPerform(iterations: layout.sliceCount) { s in
            let rows = perSlice[s]
            if rows.count == 0 { results.set(s, .success(base.slices[s])); return }
            do {
                var cols = rows.columns
                if let sorter, !table.sortKey.isEmpty {
                    let perm = sorter(cols, rows.count)
                    cols = cols.map { $0.gather(perm) }
                }
                var data = base.slices[s]
                let wasEmpty = data.rowCount == 0
                for c in 0..<cols.count {
                    let blocks = try encodeBlocks(cols[c], count: rows.count, firstRow: data.rowCount,
                                                  encoding: encodings[c], table: table.id, slice: s, sink: sink,
                                                  targetBytes: blockBytes)
                    data.columns[c].append(contentsOf: blocks)
                }
                data.rowCount += rows.count
                if table.sortKey.isEmpty || wasEmpty { data.sortedRows = data.rowCount }
                results.set(s, .success(data))
            } catch {
                results.set(s, .failure(error))
            }
        }
        for s in 0..<layout.sliceCount { snap.slices[s] = try results.get(s) }
        return snap
    }

    /// New rows per slice, gathered into flat columns.
    struct SliceRows {
        var columns: [Vector]
        var count = 0
    }

    private static func place(_ chunks: [Chunk], snapshot snap: inout TableSnapshot, layout: SliceLayout,
                              columnCount: Int) -> [SliceRows] {
        let sc = layout.sliceCount
        let types = chunks.first?.columns.map { $0.type } ?? []
        var out = (0..<sc).map { _ in SliceRows(columns: types.map { Vector(type: $0) }) }
        func add(_ s: Int, _ c: Chunk, _ rows: [Int32]?) {
            for i in 0..<c.columns.count {
                let v = rows.map { c.columns[i].gather($0) } ?? c.columns[i].flattened(count: c.count)
                out[s].columns[i].append(v, rows: rows?.count ?? c.count)
            }
            out[s].count += rows?.count ?? c.count
        }
        for chunk in chunks {
            let c = chunk.compacted()
            let n = c.count
            if n == 0 { continue }
            switch snap.distribution {
            case .all:
                for node in 0..<layout.nodes { add(layout.firstSlice(ofNode: node), c, nil) }
            case .even:
                // Round-robin rows over slices, continuing where the last load stopped.
                var perSlice = [[Int32]](repeating: [], count: sc)
                for r in 0..<n { perSlice[(snap.evenCursor + r) % sc].append(Int32(r)) }
                snap.evenCursor = (snap.evenCursor + n) % sc
                for s in 0..<sc where !perSlice[s].isEmpty { add(s, c, perSlice[s]) }
            case .key(let col):
                let dest = slices(forKey: c.columns[col], count: n, sliceCount: sc)
                var perSlice = [[Int32]](repeating: [], count: sc)
                for r in 0..<n { perSlice[Int(dest[r])].append(Int32(r)) }
                for s in 0..<sc where !perSlice[s].isEmpty { add(s, c, perSlice[s]) }
            }
        }
        return out
    }

    /// Resolve each column's encoding: as declared, or ENCODE AUTO from a sample.
    static func chooseEncodings(table: TableDef, sample: SliceRows?) -> [ColumnEncoding] {
        table.columns.enumerated().map { i, c in
            if let name = c.encoding, name.lowercased() != "auto", let e = ColumnEncoding(sqlName: name) { return e }
            guard let sample else { return .raw }
            let n = min(sample.count, 65_536)
            let v = sample.columns[i].slice(0, n)
            return BlockEncoder.chooseAuto(sample: v, type: c.type, isSortKeyColumn: table.sortKey.first == i)
        }
    }

    /// Cut `v` into blocks of about `targetBytes` encoded bytes and write them.
    static func encodeBlocks(_ v: Vector, count: Int, firstRow: Int, encoding: ColumnEncoding,
                             table: Int, slice: Int, sink: BlockSink, targetBytes: Int) throws -> [BlockRef] {
        var blocks: [BlockRef] = []
        var start = 0
        var rowsPerBlock = min(count, targetBytes >= defaultBlockBytes ? 65_536 : 4096)
        while start < count {
            let n = min(rowsPerBlock, count - start)
            let bytes = try BlockEncoder.encode(v, start: start, count: n, encoding: encoding)
            // Aim the next block at the target size from this block's bytes per row.
            let perRow = max(Double(bytes.count) / Double(n), 0.01)
            let ideal = Int(Double(targetBytes) / perRow)
            if bytes.count > targetBytes * 2 && n > minBlockRows {
                // Far too big: retry smaller.
                rowsPerBlock = max(minBlockRows, ideal)
                continue
            }
            let zone = ZoneMap.compute(v, start: start, count: n)
            let payload = try sink.write(table: table, slice: slice, bytes: bytes)
            blocks.append(BlockRef(uid: BlockIDs.make(), payload: payload, encoding: encoding,
                                   firstRow: firstRow + start, zone: zone))
            start += n
            rowsPerBlock = max(minBlockRows, min(maxBlockRows, ideal))
        }
        return blocks
    }
}

/// Thread-safe per-slice results.
final class SliceResults: @unchecked Sendable {
    private var slots: [Result<SliceData, Error>?]
    private let lock = Lock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<SliceData, Error>) { lock.withLock { slots[i] = r } }
    func get(_ i: Int) throws -> SliceData {
        guard let r = lock.withLock({ slots[i] }) else { throw SQLError.internalError("slice \(i) produced no result") }
        return try r.get()
    }
}
