// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseCatalog

/// Where a table's rows live right now. AUTO starts as ALL and becomes EVEN
/// once the table holds more than `autoAllMaxRows` rows (see docs/DISTRIBUTION.md).
public enum EffectiveDistribution: Sendable, Equatable {
    case even
    case key(column: Int)
    case all
}

/// Where one block's bytes are.
public enum BlockPayload: Sendable {
    /// Encoded bytes at `offset..<offset+length` of an immutable block file.
    case file(BlockFile, offset: Int, length: Int)
    /// Encoded bytes kept in memory (a database without a directory).
    case memory(EncodedBytes)
    /// Decoded values (system tables, built per statement).
    case vector(Vector)
}

/// Encoded block bytes held in memory.
public final class EncodedBytes: Sendable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// One block of one column of one slice: about 1 MB of encoded values for a run of
/// consecutive rows, with its zone map. Blocks are immutable once written.
public struct BlockRef: Sendable {
    /// Unique in this process: the key of the decoded-block cache.
    public var uid: UInt64
    public var payload: BlockPayload
    public var encoding: ColumnEncoding
    /// Row number (within the slice) of the block's first value.
    public var firstRow: Int
    public var zone: ZoneMap
    public var rowCount: Int { zone.count }
    public var endRow: Int { firstRow + zone.count }

    public init(uid: UInt64, payload: BlockPayload, encoding: ColumnEncoding, firstRow: Int, zone: ZoneMap) {
        self.uid = uid; self.payload = payload; self.encoding = encoding; self.firstRow = firstRow; self.zone = zone
    }

    /// Whether its encoded bytes are held in memory: in a database on disk, a block of
    /// the tail buffer (`Distributor.tailBufferSliceBytes`), kept in the commit record.
    public var isHeld: Bool {
        if case .memory = payload { return true }
        return false
    }

    /// Encoded size in bytes.
    public var encodedSize: Int {
        switch payload {
        case .file(_, _, let length): return length
        case .memory(let b): return b.bytes.count
        case .vector(let v): return v.count * 8
        }
    }
}

/// Rows marked deleted in one slice: a bitmap over the slice's row numbers.
/// Rows are never renumbered until VACUUM rewrites the slice.
public struct DeleteSet: Sendable, Equatable {
    public private(set) var words: [UInt64] = []
    public private(set) var count = 0

    public init() {}

    public init(words: [UInt64]) {
        self.words = words
        count = words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    @inlinable public func contains(_ row: Int) -> Bool {
        let w = row >> 6
        return w < words.count && words[w] & (1 << UInt64(row & 63)) != 0
    }

    public mutating func insert(_ row: Int) {
        let w = row >> 6
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w + 1 - words.count)) }
        let bit: UInt64 = 1 << UInt64(row & 63)
        if words[w] & bit == 0 { words[w] |= bit; count += 1 }
    }

    /// Mark every row of `range` deleted (a word at a time).
    public mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty, range.lowerBound >= 0 else { return }
        let lastWord = (range.upperBound - 1) >> 6
        if lastWord >= words.count { words.append(contentsOf: repeatElement(0, count: lastWord + 1 - words.count)) }
        var r = range.lowerBound
        while r < range.upperBound {
            let w = r >> 6, bit = r & 63
            let n = min(64 - bit, range.upperBound - r)
            let mask: UInt64 = (n == 64 ? ~UInt64(0) : ((UInt64(1) << UInt64(n)) - 1)) << UInt64(bit)
            count += (mask & ~words[w]).nonzeroBitCount
            words[w] |= mask
            r += n
        }
    }

    /// Deleted rows in `start..<end`.
    public func count(in range: Range<Int>) -> Int {
        if count == 0 { return 0 }
        var n = 0
        for r in range where contains(r) { n += 1 }
        return n
    }

    public var isEmpty: Bool { count == 0 }

    /// The deleted rows as runs, `[start0, end0, start1, end1, ...]` (each end exclusive).
    public var runs: [Int] {
        var out: [Int] = []
        var start = -1
        for (w, word) in words.enumerated() where word != 0 || start >= 0 {
            if word == ~UInt64(0) && start >= 0 { continue }
            for bit in 0..<64 {
                let set = word & (1 << UInt64(bit)) != 0
                if set && start < 0 { start = w * 64 + bit } else if !set && start >= 0 {
                    out.append(start); out.append(w * 64 + bit); start = -1
                }
            }
        }
        if start >= 0 { out.append(start); out.append(words.count * 64) }
        return out
    }

    /// The set of rows `runs` names (as `runs` gives them).
    public init(runs: [Int]) {
        var i = 0
        while i + 1 < runs.count {
            insert(runs[i]..<runs[i + 1])
            i += 2
        }
    }

    /// Whether every row of `other` is in this set.
    public func isSuperset(of other: DeleteSet) -> Bool {
        for (w, word) in other.words.enumerated() where word != 0 {
            guard w < words.count, word & ~words[w] == 0 else { return false }
        }
        return true
    }

    /// The rows below `limit` in this set and not in `other`.
    public func subtracting(_ other: DeleteSet, below limit: Int) -> DeleteSet {
        let n = min(words.count, (max(0, limit) + 63) >> 6)
        var out = [UInt64](repeating: 0, count: n)
        for w in 0..<n {
            var word = words[w] & ~(w < other.words.count ? other.words[w] : 0)
            let end = limit - w * 64
            if end < 64 { word &= (UInt64(1) << UInt64(end)) - 1 }
            out[w] = word
        }
        return DeleteSet(words: out)
    }

    /// The rows below `limit` not in this set.
    public func complement(below limit: Int) -> DeleteSet {
        let n = (max(0, limit) + 63) >> 6
        var out = [UInt64](repeating: 0, count: n)
        for w in 0..<n {
            var word = ~(w < words.count ? words[w] : 0)
            let end = limit - w * 64
            if end < 64 { word &= (UInt64(1) << UInt64(end)) - 1 }
            out[w] = word
        }
        return DeleteSet(words: out)
    }
}

/// One slice's part of a table: per column a chain of blocks covering rows
/// `0..<rowCount` without gaps, the sorted prefix, and the rows marked deleted.
public struct SliceData: Sendable {
    public var rowCount: Int
    /// Rows `0..<sortedRows` are in sort-key order (the sorted region); the rest were
    /// appended by later loads, each sorted within itself (the unsorted region).
    public var sortedRows: Int
    public var columns: [[BlockRef]]
    public var deleted: DeleteSet
    /// The block file holding `deleted` (nil when nothing is deleted or in memory).
    public var deleteFile: String?

    public init(columnCount: Int) {
        rowCount = 0; sortedRows = 0; columns = Array(repeating: [], count: columnCount)
        deleted = DeleteSet(); deleteFile = nil
    }

    public init(rowCount: Int, sortedRows: Int, columns: [[BlockRef]], deleted: DeleteSet, deleteFile: String?) {
        self.rowCount = rowCount; self.sortedRows = sortedRows; self.columns = columns
        self.deleted = deleted; self.deleteFile = deleteFile
    }

    /// Rows not marked deleted.
    public var liveRows: Int { rowCount - deleted.count }
    public var blockCount: Int { columns.reduce(0) { $0 + $1.count } }
}

/// A consistent, immutable view of a table's data: per slice, its column blocks.
/// Readers keep the snapshot they started with while writers build the next one.
public struct TableSnapshot: Sendable {
    public var slices: [SliceData]
    public var distribution: EffectiveDistribution
    /// Rounds of EVEN placement so far (the next row goes to slice `evenCursor % sliceCount`).
    public var evenCursor: Int
    /// The encoding of each column, fixed by the first load (ENCODE AUTO samples it).
    public var encodings: [ColumnEncoding]?
    /// Rows inserted or deleted over the table's life (how stale `analyzed` is).
    public var modifications: Int
    /// The last ANALYZE's statistics (nil: never analyzed).
    public var analyzed: AnalyzedTable?
    /// A materialized view's table: where its last refresh left each base table.
    public var refreshState: MaterializedViewState?
    /// Times the rows were laid out anew or replaced (VACUUM, TRUNCATE, ALTER TABLE
    /// rewrites, EVEN placement out of ALL): a row's position means the same row only
    /// while this stays the same.
    public var reorganizations = 0

    public init(slices: [SliceData], distribution: EffectiveDistribution, evenCursor: Int,
                encodings: [ColumnEncoding]? = nil, modifications: Int = 0, analyzed: AnalyzedTable? = nil) {
        self.slices = slices; self.distribution = distribution; self.evenCursor = evenCursor
        self.encodings = encodings; self.modifications = modifications; self.analyzed = analyzed
    }

    /// An empty table.
    public static func empty(layout: SliceLayout, columnCount: Int, distStyle: DistStyle, distKey: Int?) -> TableSnapshot {
        let dist: EffectiveDistribution
        switch distStyle {
        case .all, .auto: dist = .all
        case .even: dist = .even
        case .key: dist = distKey.map { .key(column: $0) } ?? .even
        }
        return TableSnapshot(slices: Array(repeating: SliceData(columnCount: columnCount), count: layout.sliceCount),
                             distribution: dist, evenCursor: 0)
    }

    /// Live rows (an ALL table counts one copy).
    public var rowCount: Int {
        if distribution == .all { return slices.first?.liveRows ?? 0 }
        return slices.reduce(0) { $0 + $1.liveRows }
    }

    public func rowCount(slice: Int) -> Int { slices[slice].liveRows }

    /// The encoded bytes of every block of every slice (SVV_TABLE_INFO's size_bytes,
    /// pg_table_size, VACUUM's report).
    /// Whether a value of string column `column` may end in a blank (some block's zone
    /// map says so, or does not know): the planner compares a column none of whose values
    /// does as it is, without taking its trailing blanks off.
    public func mayEndInBlank(column: Int) -> Bool {
        slices.contains { s in column < s.columns.count && s.columns[column].contains { $0.zone.blankEnded } }
    }

    public var encodedBytes: Int {
        slices.reduce(0) { $0 + $1.columns.reduce(0) { $0 + $1.reduce(0) { $0 + $1.encodedSize } } }
    }

    /// The snapshot with only the rows at or past `counts[s]` on each slice visible (the
    /// rest marked deleted): what was appended since a snapshot of `counts` rows.
    public func onlyRows(appendedAfter counts: [Int]) -> TableSnapshot {
        var out = self
        for i in out.slices.indices {
            out.slices[i].deleted.insert(0..<min(max(0, i < counts.count ? counts[i] : 0), out.slices[i].rowCount))
        }
        return out
    }

    /// The snapshot with only the rows below `counts[s]` on each slice visible: the rows
    /// a snapshot of `counts` rows had, before the appends since.
    public func onlyRows(before counts: [Int]) -> TableSnapshot {
        var out = self
        for i in out.slices.indices {
            let rows = out.slices[i].rowCount
            out.slices[i].deleted.insert(min(max(0, i < counts.count ? counts[i] : 0), rows)..<rows)
        }
        return out
    }

    /// The rows a snapshot of `counts` rows with `deleted` marked deleted had: those below
    /// `counts[s]` and not in `deleted[s]`, whatever was deleted since.
    public func onlyRows(before counts: [Int], deleted: [DeleteSet]) -> TableSnapshot {
        var out = self
        for i in out.slices.indices {
            out.slices[i].deleted = i < deleted.count ? deleted[i] : DeleteSet()
            let rows = out.slices[i].rowCount
            out.slices[i].deleted.insert(min(max(0, i < counts.count ? counts[i] : 0), rows)..<rows)
        }
        return out
    }

    /// The snapshot with only the rows in `rows[s]` visible on each slice.
    public func onlyRows(in rows: [DeleteSet]) -> TableSnapshot {
        var out = self
        for i in out.slices.indices {
            out.slices[i].deleted = (i < rows.count ? rows[i] : DeleteSet()).complement(below: out.slices[i].rowCount)
        }
        return out
    }
}

/// Where a materialized view's last refresh (or its creation) left its base tables: an
/// incremental refresh reads only the rows appended and deleted since, which it can tell
/// apart while the rows stayed at their places (`Base.changes`).
public struct MaterializedViewState: Sendable, Equatable, Codable {
    public struct Base: Sendable, Equatable, Codable {
        public var table: Int
        /// Per slice: rows (deleted ones included), deleted rows.
        public var rows: [Int]
        public var deleted: [Int]
        public var modifications: Int
        public var reorganizations: Int
        /// `EffectiveDistribution` as text ("all", "even", "key:N").
        public var placement: String
        /// Per slice, the deleted rows as `DeleteSet.runs` (nil: not kept, for more than
        /// `maxDeletedRuns` runs, or a state written before they were kept). What lets a
        /// refresh tell the rows deleted since from those deleted before.
        public var deletedRuns: [[Int]]?

        /// Runs kept per base table at most.
        public static let maxDeletedRuns = 65_536

        public init(table: Int, snapshot s: TableSnapshot) {
            self.table = table
            rows = s.slices.map(\.rowCount)
            deleted = s.slices.map(\.deleted.count)
            modifications = s.modifications
            reorganizations = s.reorganizations
            placement = MaterializedViewState.placement(s.distribution)
            var runs: [[Int]] = []
            var total = 0
            for slice in s.slices {
                let r = slice.deleted.isEmpty ? [] : slice.deleted.runs
                total += r.count / 2
                if total > Base.maxDeletedRuns { break }
                runs.append(r)
            }
            deletedRuns = total > Base.maxDeletedRuns ? nil : runs
        }

        /// The rows of a base table that changed since the refresh, told apart by
        /// position: `now` has the rows it had then at the same places (no
        /// reorganization, the same placement), with rows appended and rows deleted.
        public struct Changes: Sendable {
            /// Per slice, the rows there were then (appended rows are at or past these).
            public var rows: [Int]
            /// Per slice, the rows deleted then.
            public var deletedThen: [DeleteSet]
            /// Per slice, the rows there were then that were deleted since.
            public var deletedSince: [DeleteSet]
            public var appended: Bool
            public var hasDeletes: Bool { deletedSince.contains { !$0.isEmpty } }
        }

        /// How `now` differs from the table the refresh read; nil when the rows cannot be
        /// matched up by position (a reorganization, another placement, rows lost, or
        /// deletes since a state that does not keep its deleted rows).
        public func changes(_ now: TableSnapshot) -> Changes? {
            guard now.slices.count == rows.count, MaterializedViewState.placement(now.distribution) == placement,
                  now.reorganizations == reorganizations else {
                return nil
            }
            var then: [DeleteSet] = [], since: [DeleteSet] = []
            var added = 0, newlyDeleted = 0
            for (i, s) in now.slices.enumerated() {
                guard s.rowCount >= rows[i] else { return nil }
                let old: DeleteSet
                if let runs = deletedRuns, i < runs.count {
                    old = DeleteSet(runs: runs[i])
                    guard old.count == deleted[i], s.deleted.isSuperset(of: old) else { return nil }
                } else {
                    // Without the rows, only "nothing deleted since" can be told.
                    guard s.deleted.count == deleted[i] else { return nil }
                    old = s.deleted
                }
                then.append(old)
                since.append(s.deleted.subtracting(old, below: rows[i]))
                // An ALL table holds each row once per node: its modifications count it once.
                if now.distribution != .all || i == 0 {
                    added += s.rowCount - rows[i]
                    newlyDeleted += s.deleted.count - old.count
                }
            }
            guard now.modifications - modifications == added + newlyDeleted else { return nil }
            return Changes(rows: rows, deletedThen: then, deletedSince: since, appended: added > 0)
        }

        /// Whether `now` holds the same rows in the same places: the same rows and deleted
        /// rows per slice, placement, reorganizations and modifications.
        public func unchanged(_ now: TableSnapshot) -> Bool {
            now.slices.map(\.rowCount) == rows && now.slices.map(\.deleted.count) == deleted
                && MaterializedViewState.placement(now.distribution) == placement
                && now.reorganizations == reorganizations && now.modifications == modifications
        }
    }

    public var bases: [Base]
    /// When the rows were last brought up to date (µs since 1970), and by which transaction.
    public var refreshedAt: Int64
    public var xid: Int
    /// What the view's query meant when its rows were computed: the tables its names
    /// resolved to, the definitions of the views and SQL functions it expanded, and the
    /// time zone it ran in (the engine's `MaterializedViewMeaning`). Automatic rewriting
    /// uses the view only while its query still means the same; nil (a state written
    /// before this was kept, or a query whose result depends on the time) never matches.
    public var meaning: String?

    public init(bases: [Base], refreshedAt: Int64, xid: Int) {
        self.bases = bases; self.refreshedAt = refreshedAt; self.xid = xid
    }

    /// Whether every base table, as `now` gives it (nil: gone), holds the rows the
    /// refresh read (the view is fresh; STV_MV_INFO.is_stale f).
    public func isCurrent(_ now: (Int) throws -> TableSnapshot?) rethrows -> Bool {
        for b in bases {
            guard let snapshot = try now(b.table), b.unchanged(snapshot) else { return false }
        }
        return true
    }

    static func placement(_ d: EffectiveDistribution) -> String {
        switch d {
        case .all: return "all"
        case .even: return "even"
        case .key(let c): return "key:\(c)"
        }
    }
}

/// Describes the simulated cluster to the storage layer.
public struct SliceLayout: Sendable, Equatable, Codable {
    public var nodes: Int
    public var slicesPerNode: Int
    public init(nodes: Int, slicesPerNode: Int) { self.nodes = nodes; self.slicesPerNode = slicesPerNode }
    public var sliceCount: Int { nodes * slicesPerNode }
    public func node(ofSlice s: Int) -> Int { s / slicesPerNode }
    /// The slice that holds a node's copy of an ALL table.
    public func firstSlice(ofNode n: Int) -> Int { n * slicesPerNode }
}
