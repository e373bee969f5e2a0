// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// The sorted rows of a `WindowOperator` and their partitions and peer groups.
///
/// Positions are indices into the sorted order, `0..<count`; `order[p]` is the input row
/// at position p. A partition is a maximal run of positions with equal partition keys; a
/// peer group is a maximal run inside one partition with equal ORDER BY values (without
/// ORDER BY, a whole partition is one peer group).
struct WindowLayout {
    /// Input row of every position.
    let order: [Int32]
    /// Start position of every partition, then `count` (a single `[0]` for no rows).
    let partitionBounds: [Int]
    /// Start position of every peer group, then `count`. Every partition start is also a
    /// peer-group start.
    let peerBounds: [Int]

    var count: Int { order.count }

    /// Calls `body(partitionStart, partitionEnd, groupStart, groupEnd)` for every peer
    /// group, in position order (ends exclusive).
    @inline(__always)
    func forEachPeerGroup(_ body: (Int, Int, Int, Int) throws -> Void) rethrows {
        var part = 0
        try partitionBounds.withUnsafeBufferPointer { pb in
            try peerBounds.withUnsafeBufferPointer { gb in
                for g in 0..<(gb.count - 1) {
                    let gs = gb[g], ge = gb[g + 1]
                    while pb[part + 1] <= gs { part += 1 }
                    try body(pb[part], pb[part + 1], gs, ge)
                }
            }
        }
    }

    /// Calls `body(partitionStart, partitionEnd)` for every partition (ends exclusive).
    @inline(__always)
    func forEachPartition(_ body: (Int, Int) throws -> Void) rethrows {
        try partitionBounds.withUnsafeBufferPointer { pb in
            for k in 0..<(pb.count - 1) { try body(pb[k], pb[k + 1]) }
        }
    }

    // MARK: - Frames

    /// The frame of every position as `[lo[p], hi[p])`, normalized so that within a
    /// partition `[ps, pe)`: `ps <= lo <= hi <= pe`, and `lo` and `hi` never decrease
    /// from one position to the next (what the sliding evaluators rely on). An empty frame
    /// has `lo == hi`.
    ///
    /// ROWS bounds count physical rows; in RANGE mode CURRENT ROW means the first
    /// (start) or last (end) peer of the current row. Offsets are clamped to the
    /// partition without overflow.
    ///
    /// - Throws: `invalidParameter` for a negative offset; `featureNotSupported` for an
    ///   offset in RANGE mode.
    func frameBounds(_ frame: WindowFrame) throws -> (lo: [Int], hi: [Int]) {
        try Self.checkFrame(frame)
        let n = count
        var lo = [Int](filled: 0, count: n), hi = [Int](filled: 0, count: n)
        lo.withUnsafeMutableBufferPointer { L in
            hi.withUnsafeMutableBufferPointer { H in
                forEachPeerGroup { ps, pe, gs, ge in
                    for i in gs..<ge {
                        (L[i], H[i]) = Self.frame(frame, i, ps: ps, pe: pe, gs: gs, ge: ge)
                    }
                }
            }
        }
        return (lo, hi)
    }

    /// Rejects what `frame` cannot mean: a negative offset (`invalidParameter`) or an
    /// offset in RANGE mode (`featureNotSupported`).
    static func checkFrame(_ frame: WindowFrame) throws {
        for (bound, isStart) in [(frame.start, true), (frame.end, false)] {
            switch bound {
            case .preceding(let k), .following(let k):
                guard frame.rows else { throw SQLError.unsupported("RANGE with an offset PRECEDING/FOLLOWING") }
                guard k >= 0 else {
                    throw SQLError(.invalidParameter, "frame \(isStart ? "starting" : "ending") offset must not be negative")
                }
            default: break
            }
        }
    }

    /// The frame `[lo, hi)` of position `i` in partition `[ps, pe)` and peer group
    /// `[gs, ge)`, normalized as `frameBounds` describes (checked by `checkFrame`).
    @inline(__always)
    static func frame(_ frame: WindowFrame, _ i: Int, ps: Int, pe: Int, gs: Int, ge: Int) -> (Int, Int) {
        let rows = frame.rows
        let a: Int
        switch frame.start {
        case .unboundedPreceding: a = ps
        case .preceding(let k): a = k >= i - ps ? ps : i - k
        case .currentRow: a = rows ? i : gs
        case .following(let k): a = k >= pe - i ? pe : i + k
        case .unboundedFollowing: a = pe
        }
        let b: Int
        switch frame.end {
        case .unboundedPreceding: b = ps
        case .preceding(let k): b = k > i - ps ? ps : i - k + 1
        case .currentRow: b = rows ? i + 1 : ge
        case .following(let k): b = k >= pe - i - 1 ? pe : i + k + 1
        case .unboundedFollowing: b = pe
        }
        return (a, max(a, b))
    }

    // MARK: - Ranking functions (frames do not apply)

    /// ROW_NUMBER: 1, 2, ... within each partition.
    func rowNumber() -> [Int64] {
        var out = [Int64](filled: 0, count: count)
        out.withUnsafeMutableBufferPointer { o in
            forEachPartition { ps, pe in
                for i in ps..<pe { o[i] = Int64(i - ps + 1) }
            }
        }
        return out
    }

    /// RANK (1 + rows of the partition before the peer group) or DENSE_RANK (1 + peer
    /// groups of the partition before this one).
    func rank(dense: Bool) -> [Int64] {
        var out = [Int64](filled: 0, count: count)
        out.withUnsafeMutableBufferPointer { o in
            var dense64: Int64 = 0
            var currentPartition = -1
            forEachPeerGroup { ps, _, gs, ge in
                if ps != currentPartition { currentPartition = ps; dense64 = 0 }
                dense64 += 1
                let r = dense ? dense64 : Int64(gs - ps + 1)
                for i in gs..<ge { o[i] = r }
            }
        }
        return out
    }

    /// PERCENT_RANK = (rank - 1) / (partition rows - 1), 0 for a one-row partition.
    func percentRank() -> [Double] {
        var out = [Double](filled: 0, count: count)
        out.withUnsafeMutableBufferPointer { o in
            forEachPeerGroup { ps, pe, gs, ge in
                let r = pe - ps > 1 ? Double(gs - ps) / Double(pe - ps - 1) : 0
                for i in gs..<ge { o[i] = r }
            }
        }
        return out
    }

    /// CUME_DIST = (rows up to and including the last peer) / partition rows.
    func cumeDist() -> [Double] {
        var out = [Double](filled: 0, count: count)
        out.withUnsafeMutableBufferPointer { o in
            forEachPeerGroup { ps, pe, gs, ge in
                let r = Double(ge - ps) / Double(pe - ps)
                for i in gs..<ge { o[i] = r }
            }
        }
        return out
    }

    /// NTILE(buckets): the rows of a partition split into `buckets` groups whose sizes
    /// differ by at most one, the larger groups first (bucket numbers from 1). With more
    /// buckets than rows, every row gets its own bucket.
    func ntile(_ buckets: Int) -> [Int64] {
        var out = [Int64](filled: 0, count: count)
        let b = max(1, buckets)
        out.withUnsafeMutableBufferPointer { o in
            forEachPartition { ps, pe in
                let rows = pe - ps
                for j in 0..<rows { o[ps + j] = Self.ntileBucket(j, rows: rows, buckets: b) }
            }
        }
        return out
    }

    /// The NTILE bucket (from 1) of the row `j` (from 0) of a partition of `rows` rows
    /// split into `b` ≥ 1 buckets.
    @inline(__always)
    static func ntileBucket(_ j: Int, rows: Int, buckets b: Int) -> Int64 {
        let base = rows / b, extra = rows % b
        let big = base + 1
        let bigRows = extra * big   // rows in the `extra` larger buckets (<= rows)
        let bucket = j < bigRows ? j / big : extra + (j - bigRows) / base
        return Int64(bucket + 1)
    }
}
