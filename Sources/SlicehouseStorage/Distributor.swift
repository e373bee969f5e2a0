import SlicehouseTypes
import SlicehouseCatalog

/// Places incoming rows on slices according to a table's distribution, producing
/// the next snapshot (the caller commits it).
public enum Distributor {
    /// AUTO tables stay ALL up to this many rows, then are redistributed EVEN.
    public static let autoAllMaxRows = 10_000

    /// Slice of each row for DISTSTYLE KEY: hash of the key value modulo the slice count.
    public static func slices(forKey key: Vector, count n: Int, sliceCount: Int) -> [Int32] {
        var hashes: [UInt64] = []
        key.hash(rows: nil, count: n, into: &hashes, combine: false)
        let s = UInt64(sliceCount)
        return hashes.map { Int32(truncatingIfNeeded: $0 % s) }
    }

    /// Append `chunks` (compacted, one vector per table column) to `snapshot`.
    /// `declared` is the table's DISTSTYLE (for AUTO's switch to EVEN).
    public static func append(_ chunks: [Chunk], to snapshot: TableSnapshot, layout: SliceLayout,
                              declared: DistStyle) -> TableSnapshot {
        var snap = snapshot
        let incoming = chunks.reduce(0) { $0 + $1.count }
        if incoming == 0 { return snap }
        if declared == .auto, snap.distribution == .all, snap.rowCount + incoming > autoAllMaxRows {
            // Grow out of ALL: redistribute the existing copy EVEN, then continue EVEN.
            let existing = (snap.slices.first ?? []).map { Chunk(columns: $0.columns, count: $0.count) }
            snap = TableSnapshot(slices: Array(repeating: [], count: layout.sliceCount), distribution: .even, evenCursor: 0)
            snap = place(existing, into: snap, layout: layout)
        }
        return place(chunks, into: snap, layout: layout)
    }

    private static func place(_ chunks: [Chunk], into snapshot: TableSnapshot, layout: SliceLayout) -> TableSnapshot {
        var snap = snapshot
        let sc = layout.sliceCount
        var builders = (0..<sc).map { _ in SegmentBuilder() }
        for chunk in chunks {
            let c = chunk.compacted()
            let n = c.count
            if n == 0 { continue }
            switch snap.distribution {
            case .all:
                for node in 0..<layout.nodes { builders[layout.firstSlice(ofNode: node)].append(c) }
            case .even:
                // Round-robin rows over slices, continuing where the last load stopped.
                var perSlice = [[Int32]](repeating: [], count: sc)
                for r in 0..<n { perSlice[(snap.evenCursor + r) % sc].append(Int32(r)) }
                snap.evenCursor = (snap.evenCursor + n) % sc
                for s in 0..<sc where !perSlice[s].isEmpty { builders[s].append(c, rows: perSlice[s]) }
            case .key(let col):
                let dest = slices(forKey: c.columns[col], count: n, sliceCount: sc)
                var perSlice = [[Int32]](repeating: [], count: sc)
                for r in 0..<n { perSlice[Int(dest[r])].append(Int32(r)) }
                for s in 0..<sc where !perSlice[s].isEmpty { builders[s].append(c, rows: perSlice[s]) }
            }
        }
        for s in 0..<sc { snap.slices[s].append(contentsOf: builders[s].finish()) }
        return snap
    }
}

/// Accumulates rows into segments of `Chunk.capacity` rows.
struct SegmentBuilder {
    var segments: [Segment] = []
    var pending: [Vector] = []
    var pendingCount = 0

    mutating func append(_ chunk: Chunk, rows: [Int32]? = nil) {
        let cols = rows.map { r in chunk.columns.map { $0.gather(r) } } ?? chunk.columns.map { $0.flattened(count: chunk.count) }
        var n = rows?.count ?? chunk.count
        var offset = 0
        while n > 0 {
            if pending.isEmpty { pending = cols.map { Vector(type: $0.type, capacity: Chunk.capacity) } }
            let take = min(n, Chunk.capacity - pendingCount)
            for i in 0..<cols.count { pending[i].append(cols[i].slice(offset, take)) }
            pendingCount += take
            offset += take
            n -= take
            if pendingCount == Chunk.capacity { flush() }
        }
    }

    mutating func flush() {
        if pendingCount > 0 { segments.append(Segment(columns: pending, count: pendingCount)) }
        pending = []
        pendingCount = 0
    }

    mutating func finish() -> [Segment] {
        flush()
        return segments
    }
}
