// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseStorage
import CPrefetch

/// The join types a `HashJoinOperator` runs. "Left" is the probe (outer) side,
/// "right" the build (inner) side.
public enum JoinKind: String, Sendable, Equatable {
    /// Matched pairs only.
    case inner
    /// Matched pairs, plus every unmatched probe row padded with NULL build columns.
    case left
    /// Matched pairs, plus every unmatched build row padded with NULL probe columns
    /// (emitted after the probe side is exhausted).
    case right
    /// `left` and `right` together.
    case full
    /// Each probe row that has at least one match, once; probe columns only.
    case semi
    /// Each probe row without a match; probe columns only (NOT EXISTS; NOT IN with `nullAware`).
    case anti
    /// Each build row that has at least one match, once; build columns only, emitted after
    /// the probe side is exhausted. A semi join that builds on its preserved side (when
    /// that side is the smaller one).
    case rightSemi
    /// Each build row without a match; build columns only, emitted after the probe side
    /// is exhausted (`nullAware` is not supported).
    case rightAnti
}

/// Equi-join through a hash table built on the build (inner) side.
///
/// ## Output
/// Probe columns ++ build columns for `inner`/`left`/`right`/`full`; probe columns only
/// for `semi`/`anti` (those pass the probe chunk through with a selection vector, no copy);
/// build columns only for `rightSemi`/`rightAnti`.
/// Output chunks hold at most about `2 * Chunk.capacity` rows however many matches one
/// probe chunk has. Chunks of fewer than `smallOutput` rows are copied together, in order,
/// until there are `Chunk.capacity / 2` or more (or the output ends), so that a selective
/// join does not hand the operators above a few rows at a time.
///
/// ## Matching
/// - A pair matches when all key columns are equal (NULL keys never match) and the
///   `residual` predicate — evaluated over the combined row, probe columns first, then
///   build columns — is TRUE. So `LEFT JOIN b ON a.k = b.k AND b.x > 5` keeps `a` rows
///   whose only key matches fail `b.x > 5`, padded with NULLs.
/// - `nullAware` (anti joins only) gives NOT IN semantics: when the build side has a
///   NULL key, no probe row qualifies; a probe row with a NULL key qualifies only when
///   the build side is empty. (With several key columns a row counts as a "NULL key"
///   when any key column is NULL — exact for the single-column NOT IN the planner emits.)
///
/// ## Execution
/// Build (first `next()`): the whole build side is appended into flat columns, and a
/// `JoinHashTable` (JoinHashTable.swift) is built over them, immutable from then on; key
/// hashes are computed a batch at a time (`Vector.hash`) and the rows are laid out
/// bucket by bucket (a counting sort on the bucket number), so that a probe reads one
/// contiguous run instead of chasing a chain:
///
///     bucketStart: [Int32]        per bucket (power of two >= rows) + 1: first entry
///     entries:     [BuildEntry]   | match: UInt64 | row: Int32 |, grouped by bucket,
///                                 ascending row order within a bucket
///
/// `match` is the key hash, or — for a single 64-bit key (integers, DATE, TIMESTAMP,
/// DECIMAL p <= 18) — the key value itself, so that those joins compare keys without
/// touching the build columns. Rows with a NULL key are left out. Build sides of 65,536
/// rows or more are first partitioned by the bucket's top 8 bits so that the counting
/// sort works on one cache-sized slice of the table at a time.
///
/// Probe: a probe chunk (cut into pieces of at most `Chunk.capacity` rows) is worked in
/// rounds; each round scans every active probe row's bucket run for a bounded number of
/// `match`-equal candidates, compares the candidates' keys column by column with typed
/// kernels (not needed for a single 64-bit key), and queues the matching (probe row,
/// build row) pairs. Queued pairs are gathered into an output chunk (and filtered by the
/// residual) once about `Chunk.capacity` have accumulated. When the build side's single
/// 64-bit key is unique (foreign key to primary key), a piece is matched in one pass
/// with no rounds; when those unique keys are also narrow (under eight values per key: a
/// dimension's surrogate keys), a direct index from key to build row replaces the hash,
/// the bucket and the entry with one load (`JoinHashTable.directIndex`, `matchDirect`). In a table
/// of 512 Ki entries or more, the first entry of the row `prefetchDistance` rows on is
/// prefetched (`slicehouse_prefetch`) while a probe row's run is scanned, so that the
/// cache misses overlap with the work instead of queueing; in a smaller one (and in a
/// direct index) a branch-free pass touches every row's first entry (or loads its index
/// slot) first.
///
/// ## Memory
/// With a statement context, the build side reserves what it holds from the statement's
/// budget as it is read. When a reservation is refused the join turns into a grace hash
/// join (`GraceHashJoin`, HashJoinSpill.swift): both sides are partitioned by key hash
/// into spill files and each partition pair is joined on its own.
public final class HashJoinOperator: Operator, MemoryHolding {
    // Configuration (immutable).
    let kind: JoinKind
    let probe: Operator
    let buildInput: Operator
    let probeKeys: [Int]
    let buildKeys: [Int]
    let residual: BoundExpr?
    let buildTypes: [DataType]
    let nullAware: Bool

    // Build side.
    private var built = false
    /// The table built or taken from `shared` (`JoinHashTable.none` before the build and
    /// after the output is complete).
    private var table = JoinHashTable.none
    /// Whether this join's table had a direct index (for tests).
    private(set) var usedDirectIndex = false
    /// The table's key filter while it pays: probe rows it rules out cannot match and are
    /// dropped before hashing (for the kinds where an unmatched probe row produces nothing).
    private var keyFilter: RuntimeKeyFilter?
    /// With the table's `packing`: its packed codes' filter, dropping probe rows as
    /// `keyFilter` does for a single key; it switches itself off when it keeps most rows.
    private var codeFilter: RuntimeKeyFilter?
    private(set) var codeFilterChecked = 0, codeFilterKept = 0
    /// The join is its table's exact key filter alone (`JoinHashTable.keySetOnly`).
    private(set) var keySetOnly = false
    /// Per build row, for `right`/`full`: matched at least once.
    private var buildMatched: [Bool] = []
    /// Combined-row columns the residual reads (computed on first use).
    private var residualColumns: Set<Int>?
    /// Which output positions the plan above reads (`OutputUse`; nil: all). The others
    /// are one-row constant NULL placeholders, never gathered.
    let readOutputs: [Bool]?
    /// Per probe / build column: whether it appears, read, in the output.
    private let probeEmitted: [Bool]?
    private let buildEmitted: [Bool]?
    /// Per build column: kept in the table (emitted, a key or read by the residual).
    private let buildStored: [Bool]?
    /// Build columns an aggregate above groups by as codes (`GroupKeyCoding`): a matched
    /// row carries its build row's code in the first one's position, and the others are
    /// placeholders.
    let coding: BuildKeyDictionary?
    /// With `coding`: the code of each row of the table, -1 until a probe row matches it
    /// (only matched build rows are coded: a build side larger than what meets it costs
    /// no more than the text would have).
    private var buildCodes: [Int32] = []

    // Probe side.
    private(set) var probeTypes: [DataType]?
    private var pieces: [Chunk] = []
    private var pieceIndex = 0
    private var batch = ProbeBatch()
    private var batchActive = false
    private var probeDone = false
    private var unmatchedBuildEmitted = false
    private var finished = false
    private var output: [Chunk] = []
    private var outputIndex = 0

    // Scratch.
    private var scratch = RoundScratch()

    // Memory.
    let context: QueryContext
    /// Set when every partition's build side is the same rows (a broadcast): the table is
    /// built by the first partition to need it and read by the others (`SharedHashBuild`).
    let shared: SharedHashBuild?
    /// How many times this join's rows have been partitioned already (a grace join's
    /// partitions are joined by joins one level down, which partition on other hash bits).
    let spillLevel: Int
    private let reservation: MemoryReservation
    /// Set when the build side did not fit: the partitioned join that produces the output.
    private var grace: GraceHashJoin?

    /// - Parameters:
    ///   - kind: the join type.
    ///   - probe: the outer (left) input, streamed.
    ///   - build: the inner (right) input, materialized into the hash table.
    ///   - probeKeys: probe columns of the equality keys.
    ///   - buildKeys: build columns of the equality keys (same types, same order).
    ///   - residual: extra join condition over probe columns ++ build columns, or nil.
    ///   - buildTypes: the build side's column types (for NULL padding and an empty build side).
    ///   - probeTypes: the probe side's column types; needed by `right`/`full` joins to
    ///     pad NULL probe columns when the probe side produces no chunk at all. When nil,
    ///     they are taken from the first probe chunk.
    ///   - nullAware: NOT IN semantics for `anti` (see the type documentation).
    ///   - runtimeFilters: slots to fill with the keys of build column `buildKey` once the
    ///     build side is read, for scans below the probe side (see `RuntimeKeyFilter`).
    ///   - shared: the table shared with the other partitions' joins of this plan node, when
    ///     their build sides are the same rows (only for kinds that never mark build rows).
    ///   - readOutputs: per output position, whether anything above reads it (nil: all
    ///     are read). Unread build columns are not kept and unread columns not gathered;
    ///     each is a one-row constant NULL placeholder in the output. Needs `probeTypes`.
    ///   - coding: build columns to hand up as codes (an inner join only; `GroupKeyCoding`).
    public init(kind: JoinKind, probe: Operator, build: Operator, probeKeys: [Int], buildKeys: [Int],
                residual: BoundExpr?, buildTypes: [DataType], probeTypes: [DataType]? = nil,
                nullAware: Bool = false, runtimeFilters: [(buildKey: Int, slot: RuntimeFilterSlot)] = [],
                spillLevel: Int = 0, shared: SharedHashBuild? = nil,
                readOutputs: [Bool]? = nil, coding: BuildKeyDictionary? = nil, context: QueryContext) {
        self.context = context
        self.coding = kind == .inner ? coding : nil
        self.shared = shared
        self.spillLevel = spillLevel
        reservation = MemoryReservation(context.memory)
        self.runtimeFilters = runtimeFilters
        self.kind = kind
        self.probe = probe
        self.buildInput = build
        self.probeKeys = probeKeys
        self.buildKeys = buildKeys
        self.residual = residual
        self.buildTypes = buildTypes
        self.nullAware = nullAware
        self.probeTypes = probeTypes
        let emitted = Self.emitted(kind: kind, readOutputs: readOutputs, probeWidth: probeTypes?.count,
                                   buildWidth: buildTypes.count)
        self.readOutputs = emitted == nil ? nil : readOutputs
        probeEmitted = emitted?.probe
        buildEmitted = emitted?.build
        buildStored = emitted.map { e in
            let pw = probeTypes?.count ?? 0
            let residualReads = residual?.referencedColumns ?? []
            let coded = Set(kind == .inner ? coding?.columns ?? [] : [])
            return e.build.indices.map { j in
                e.build[j] || buildKeys.contains(j) || residualReads.contains(pw + j) || coded.contains(j)
            }
        }
    }

    /// Which probe and build columns reach the output read, from the output positions
    /// read (`readOutputs`); nil when all do (no `readOutputs`, or not of the output's width).
    static func emitted(kind: JoinKind, readOutputs: [Bool]?, probeWidth: Int?,
                        buildWidth: Int) -> (probe: [Bool], build: [Bool])? {
        guard let readOutputs, let pw = probeWidth else { return nil }
        switch kind {
        case .inner, .left, .right, .full:
            guard readOutputs.count == pw + buildWidth else { return nil }
            return (Array(readOutputs[0..<pw]), Array(readOutputs[pw...]))
        case .semi, .anti:
            guard readOutputs.count == pw else { return nil }
            return (readOutputs, [Bool](repeating: false, count: buildWidth))
        case .rightSemi, .rightAnti:
            guard readOutputs.count == buildWidth else { return nil }
            return ([Bool](repeating: false, count: pw), readOutputs)
        }
    }

    /// Whether probe column `i` / build column `j` reaches the output read (true when
    /// there is no `readOutputs`, or the position is outside it).
    private func probeRead(_ i: Int) -> Bool { probeEmitted.map { i >= $0.count || $0[i] } ?? true }
    private func buildRead(_ j: Int) -> Bool { buildEmitted.map { j >= $0.count || $0[j] } ?? true }

    private var emitsBuildColumns: Bool { kind == .inner || kind == .left || kind == .right || kind == .full }
    private var tracksBuildMatches: Bool { kind == .right || kind == .full || buildSideOnly }
    /// The output is build rows only, decided by the matches (`rightSemi`/`rightAnti`).
    private var buildSideOnly: Bool { kind == .rightSemi || kind == .rightAnti }

    public func next() throws -> Chunk? {
        if !built {
            try buildTable()
            if grace == nil, coding != nil {
                buildCodes = [Int32](repeating: -1, count: table.count)
                reservation.resize(to: reservation.bytes + buildCodes.count * 4)
            }
            built = true
        }
        if let grace {
            if let c = try grace.next() { return c }
            return nil
        }
        while true {
            if let c = heldBack {
                heldBack = nil
                return c
            }
            if outputIndex < output.count {
                let c = output[outputIndex]
                output[outputIndex] = Chunk(columns: [], count: 0)
                outputIndex += 1
                if c.count == 0 { continue }
                if c.count < Self.smallOutput {
                    // A selective join yields a few rows per probe chunk: merged, the
                    // operators above pay their per-chunk costs once per 1,024 rows.
                    try merge(c)
                    if merged.count >= Chunk.capacity / 2 { return takeMerged() }
                    continue
                }
                if merged.count > 0 {
                    // Rows keep their order: the merged ones first.
                    heldBack = c
                    return takeMerged()
                }
                return c
            }
            output.removeAll(keepingCapacity: true)
            outputIndex = 0
            if finished { return merged.count > 0 ? takeMerged() : nil }

            if batchActive {
                try step()
                continue
            }
            if pieceIndex < pieces.count {
                let piece = pieces[pieceIndex]
                pieceIndex += 1
                try start(piece)
                continue
            }
            if !probeDone {
                if probeCannotProduce() {
                    probeDone = true
                    continue
                }
                guard let chunk = try probe.next() else {
                    probeDone = true
                    continue
                }
                if chunk.count == 0 { continue }
                if probeTypes == nil { probeTypes = chunk.columns.map { $0.type } }
                guard let kept = try prefilter(chunk) else { continue }
                cut(kept)
                if keySetOnly {
                    // The filter kept exactly the rows that match: out they go as they are.
                    for piece in pieces { output.append(keySetOutput(piece)) }
                    pieces.removeAll(keepingCapacity: true)
                    pieceIndex = 0
                }
                continue
            }
            if tracksBuildMatches && !unmatchedBuildEmitted {
                unmatchedBuildEmitted = true
                try emitBuildRows()
                continue
            }
            finished = true
            releaseTable()
        }
    }

    /// A piece of the probe side that `keyFilter` kept, as this join's output when the
    /// filter is the join (`keySetOnly`): its own columns, and for an inner join the build
    /// columns as the placeholders nothing reads.
    private func keySetOutput(_ piece: Chunk) -> Chunk {
        var columns = piece.columns.enumerated().map { i, v in probeRead(i) ? v : Self.placeholder(v.type) }
        if kind == .inner { columns += buildTypes.map(Self.placeholder) }
        return Chunk(columns: columns, count: piece.physicalCount, selection: piece.selection)
    }

    /// Output chunks of fewer rows are merged before they go up (see `next`).
    static let smallOutput = 256
    /// Small output chunks merged so far (`merged.columns` empty when none).
    private var merged = Chunk(columns: [], count: 0)
    /// A chunk to return after `merged`.
    private var heldBack: Chunk?

    private func merge(_ c: Chunk) throws {
        let read = readOutputs.flatMap { $0.count == c.columns.count ? $0 : nil }
        if merged.count == 0 {
            merged = Chunk(columns: c.columns.enumerated().map { i, v in
                read?[i] == false ? Self.placeholder(v.type) : Vector(type: v.type)
            }, count: 0)
        }
        var columns = merged.columns
        let count = merged.count
        merged = Chunk(columns: [], count: 0)
        guard c.columns.count == columns.count else {
            throw SQLError.internalError("chunk has \(c.columns.count) columns, expected \(columns.count)")
        }
        for i in 0..<columns.count where read?[i] != false {
            try OperatorKernels.append(&columns[i], c.columns[i], rows: c.selection, count: c.count)
        }
        merged = Chunk(columns: columns, count: count + c.count)
    }

    private func takeMerged() -> Chunk {
        let c = merged
        merged = Chunk(columns: [], count: 0)
        return c
    }

    /// The most memory the join held, and what it wrote to spill files (its partitions'
    /// joins included).
    public var memoryPeak: Int { max(reservation.peak, grace?.memoryPeak ?? 0) }
    public var spilledBytes: Int { grace?.spilledBytes ?? 0 }
    /// Of `spilledBytes`, what its partitions' joins wrote when they spilled again, and
    /// the frames (chunks) written in all (tests read them).
    var spilledBelowTopLevel: Int { grace?.spilledBelow ?? 0 }
    var spilledFrames: Int { grace?.frames ?? 0 }

    /// Drop the hash table once the output is complete, and its reservation with it.
    private func releaseTable() {
        if sharedUse { shared?.release() }
        sharedUse = false
        table = .none
        buildCodes = []
        buildMatched = []
        keyFilter = nil
        codeFilter = nil
        reservation.free()
    }

    private let runtimeFilters: [(buildKey: Int, slot: RuntimeFilterSlot)]


    /// True when no probe row can produce output, so the probe side need not be read.
    private func probeCannotProduce() -> Bool {
        if table.count == 0 { return kind == .inner || kind == .semi || kind == .right || buildSideOnly }
        if kind == .anti && nullAware && table.hasNullKey { return true }
        return false
    }

    // MARK: Build

    /// This join reads (or built) the shared table: it tells `shared` when it is done.
    private var sharedUse = false

    /// Build the table, or take the one another partition built (`shared`).
    private func buildTable() throws {
        guard let shared, !tracksBuildMatches else { return try buildOwnTable() }
        switch shared.claim() {
        case .own:
            try buildOwnTable()
        case .use(let shared):
            install(shared)
            sharedUse = true
        case .build:
            var handedOver = false
            defer { if !handedOver { shared.giveUp() } }
            try buildOwnTable()
            // A build side beyond the memory budget went to a grace join: the others
            // build (and spill) their own.
            guard grace == nil else { return }
            shared.publish(table, heldBytes: reservation.bytes)
            // The shared build holds the table's memory from now on.
            reservation.free()
            handedOver = true
            sharedUse = true
        }
    }

    /// Take the table (built here, or by another partition: its arrays are shared, never
    /// written); its runtime filters go to the scans below the probe side. (The build key
    /// columns are the same in every partition's join of the node, so the builder's
    /// filters are this join's by position.)
    private func install(_ t: JoinHashTable) {
        table = t
        if !t.directIndex.isEmpty { usedDirectIndex = true }
        keyFilter = t.keyFilter
        codeFilter = t.codeFilter
        keySetOnly = t.keySetOnly
        codeFilterChecked = 0
        codeFilterKept = 0
        for (i, (_, slot)) in runtimeFilters.enumerated() where i < t.published.count {
            slot.filter = t.published[i]
        }
    }

    private func buildOwnTable() throws {
        // Columns the table does not keep stay one-row constant NULL placeholders.
        let stored = buildStored ?? buildTypes.map { _ in true }
        var columns = buildTypes.enumerated().map { j, t in stored[j] ? Vector(type: t) : Self.placeholder(t) }
        let keptColumns = stored.indices.filter { stored[$0] }
        var n = 0
        var held = 0
        let canSpill = GraceHashJoin.canPartition(kind: kind, nullAware: nullAware, level: spillLevel)
        while let chunk = try buildInput.next() {
            if chunk.count == 0 { continue }
            try context.cancellation.check()
            guard chunk.columns.count == columns.count else {
                throw SQLError.internalError("chunk has \(chunk.columns.count) columns, expected \(columns.count)")
            }
            for j in keptColumns {
                try OperatorKernels.append(&columns[j], chunk.columns[j], rows: chunk.selection, count: chunk.count)
            }
            n += chunk.count
            // The rows as held, plus the hash table's entry and bucket per row.
            let kept = Chunk(columns: keptColumns.map { chunk.columns[$0] }, count: chunk.count)
            held += kept.approximateBytes + chunk.count * GraceHashJoin.tableBytesPerRow
            if !reservation.tryResize(to: held) {
                if canSpill, held >= GraceHashJoin.spillFloor(context.memory) {
                    reservation.free()
                    grace = try GraceHashJoin(join: self, context: context, held: Chunk(columns: columns, count: n))
                    return
                }
                reservation.resize(to: held)   // cannot spill: hold it anyway, counted
            }
        }
        guard buildKeys.count == probeKeys.count else {
            throw SQLError.internalError("hash join with \(probeKeys.count) probe keys and \(buildKeys.count) build keys")
        }
        let filterProbe = kind == .inner || kind == .semi || kind == .right || buildSideOnly
        install(try JoinHashTable.build(columns: columns, count: n, keys: buildKeys, keySet: keySetUse(),
                                        filterProbe: filterProbe, filterColumns: runtimeFilters.map { $0.buildKey },
                                        reserve: reserveMore))
        if tracksBuildMatches { buildMatched = [Bool](filled: false, count: n) }
    }

    /// Whether this join may be its build key set alone (`JoinHashTable.keySetOnly`):
    /// one 64-bit key on both sides, no residual condition, no NULL-aware or
    /// build-row-tracking kind; a semi join, or an inner join whose build columns nothing
    /// above reads.
    private func keySetUse() -> JoinHashTable.KeySetUse? {
        guard residual == nil, !nullAware, !tracksBuildMatches,
              buildKeys.count == 1, probeKeys.count == 1, let probeTypes, probeKeys[0] >= 0,
              probeKeys[0] < probeTypes.count, probeTypes[probeKeys[0]].physical == .int64 else { return nil }
        switch kind {
        case .semi: return .semi
        case .inner:
            // Codes handed up (`coding`) are build columns read.
            guard coding == nil, let read = buildEmitted, !read.contains(true) else { return nil }
            return .innerUnique
        default: return nil
        }
    }

    /// Hold `bytes` more with the table (a filter's, the direct index's); false when the
    /// statement's budget refuses them. Without a statement context, always true.
    private func reserveMore(_ bytes: Int) -> Bool {
        return reservation.tryResize(to: reservation.bytes + bytes)
    }

    // MARK: Probe

    /// `chunk` without the rows `keyFilter` rules out, or nil when no row is left. Rows
    /// with a NULL key go too: for the kinds the filter is set for, they produce nothing.
    private func prefilter(_ chunk: Chunk) throws -> Chunk? {
        if let packing = table.packing, let codeFilter { return try prefilter(chunk, packing, codeFilter) }
        guard let keyFilter else { return chunk }
        guard let k = probeKeys.first, k >= 0 && k < chunk.columns.count else {
            throw SQLError.internalError("hash join probe key out of range")
        }
        let key = OperatorKernels.flat(chunk.columns[k], physicalCount: chunk.physicalCount)
        guard case .int64 = key.data else {
            // The filter is the whole join only for 64-bit probe keys (`keySetFilter`).
            if keySetOnly { throw SQLError.internalError("hash join probe key is not a 64-bit integer") }
            return chunk
        }
        let n = chunk.count
        let kept = SliceScanner.keep(key, from: 0, count: n, filter: keyFilter, selection: chunk.selection,
                                     deleted: DeleteSet(), firstRow: 0)
        if kept.isEmpty { return nil }
        if kept.count == n { return chunk }
        return Chunk(columns: chunk.columns, count: chunk.physicalCount, selection: kept)
    }

    /// `chunk` without the rows whose packed key code `filter` rules out (or that are
    /// outside the packed ranges, or have a NULL key), or nil when no row is left.
    private func prefilter(_ chunk: Chunk, _ packing: KeyPacking, _ filter: RuntimeKeyFilter) throws -> Chunk? {
        for k in probeKeys where k < 0 || k >= chunk.columns.count {
            throw SQLError.internalError("hash join probe key \(k) out of range")
        }
        let n = chunk.count
        let keys = probeKeys.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: chunk.physicalCount) }
        let rows = chunk.selection ?? (0..<Int32(truncatingIfNeeded: n)).map { $0 }
        var codes: [UInt64] = [], inRange: [Bool] = []
        guard packing.pack(keys, rows: rows, codes: &codes, inRange: &inRange) else { return chunk }
        let values = Vector(type: .bigint, data: .int64(codes.map { Int64(bitPattern: $0) }))
        let passed = SliceScanner.keep(values, from: 0, count: n, filter: filter, selection: nil,
                                       deleted: DeleteSet(), firstRow: 0)
        var kept: [Int32] = []
        kept.reserveCapacity(passed.count)
        let validities = keys.compactMap { $0.isConstant ? nil : $0.validity }
        for j in passed where inRange[Int(j)] {
            let row = Int(rows[Int(j)])
            if validities.allSatisfy({ $0.isValid(row) }) { kept.append(rows[Int(j)]) }
        }
        // Constant NULL keys match nothing.
        if keys.contains(where: { $0.isConstant && $0.validity.map { !$0.isValid(0) } ?? false }) { kept = [] }
        codeFilterChecked += n
        codeFilterKept += kept.count
        if codeFilterChecked >= 1 << 15 && codeFilterKept * 4 > codeFilterChecked * 3 { codeFilter = nil }
        if kept.isEmpty { return nil }
        if kept.count == n { return chunk }
        return Chunk(columns: chunk.columns, count: chunk.physicalCount, selection: kept)
    }

    /// Queue `chunk` as pieces of at most `Chunk.capacity` logical rows (selection slices, no copy).
    private func cut(_ chunk: Chunk) {
        pieces.removeAll(keepingCapacity: true)
        pieceIndex = 0
        let n = chunk.count
        if n <= Chunk.capacity {
            pieces.append(chunk)
            return
        }
        var start = 0
        while start < n {
            let end = min(n, start + Chunk.capacity)
            let sel: [Int32]
            if let selection = chunk.selection {
                sel = Array(selection[start..<end])
            } else {
                sel = (Int32(truncatingIfNeeded: start)..<Int32(truncatingIfNeeded: end)).map { $0 }
            }
            pieces.append(Chunk(columns: chunk.columns, count: chunk.physicalCount, selection: sel))
            start = end
        }
    }

    /// Set up the probe state of one piece.
    private func start(_ chunk: Chunk) throws {
        for k in probeKeys where k < 0 || k >= chunk.columns.count {
            throw SQLError.internalError("hash join probe key \(k) out of range")
        }
        var b = batch
        batch = ProbeBatch()
        defer { batch = b }
        b.reset(chunk)
        let n = chunk.count
        b.keys = probeKeys.map { OperatorKernels.key(chunk.columns[$0], physicalCount: chunk.physicalCount) }
        // Which probe rows have a NULL key.
        for key in b.keys {
            guard let validity = key.validity else { continue }
            validity.words.withUnsafeBufferPointer { w in
                b.physRows.withUnsafeBufferPointer { pr in
                    b.nullKey.withUnsafeMutableBufferPointer { nk in
                        for i in 0..<n where !OperatorKernels.bit(w, Int(pr[i])) { nk[i] = true }
                    }
                }
            }
        }
        batchActive = true
        if table.count == 0 || table.entries.isEmpty { return }
        // The value each row matches `BuildEntry.match` with: its packed code, or its
        // single 64-bit key; else (below) its hash.
        var inRange: [Bool] = []
        var matchByValue = false
        if let packing = table.packing {
            guard packing.pack(b.keys, rows: b.physRows, codes: &b.match, inRange: &inRange) else {
                throw SQLError.internalError("hash join probe keys do not match the packed build keys")
            }
            matchByValue = true
        } else if table.directKeys, case .int64(let values) = b.keys[0].data {
            b.match = values.withUnsafeBufferPointer { vp in
                b.physRows.map { UInt64(bitPattern: vp[Int($0)]) }
            }
            matchByValue = true
        }
        if !table.directIndex.isEmpty {
            // Unique keys in a narrow range: the index, no hashing or buckets.
            guard matchByValue else {
                throw SQLError.internalError("hash join direct index without 64-bit probe keys")
            }
            matchDirect(&b, n, inRange: inRange)
            return
        }
        var hashes: [UInt64] = []
        if table.packing != nil {
            hashes = b.match.map { Hashing.hash($0) }
        } else {
            KeyHashing.hash(b.keys, rows: b.physRows, into: &hashes)
            if !matchByValue { b.match = hashes }
        }
        let m = table.bucketMask
        // First a branch-free pass (independent loads overlap), then the active list.
        table.bucketStart.withUnsafeBufferPointer { st in
            hashes.withUnsafeBufferPointer { hs in
                b.cursor.withUnsafeMutableBufferPointer { cur in
                    b.end.withUnsafeMutableBufferPointer { end in
                        for i in 0..<n {
                            let bucket = Hashing.slot(hs[i], m)
                            cur[i] = st[bucket]
                            end[i] = st[bucket + 1]
                        }
                        // A packed key out of the build side's ranges has no match: an
                        // empty run.
                        inRange.withUnsafeBufferPointer { ok in
                            for i in 0..<ok.count where !ok[i] { end[i] = cur[i] }
                        }
                    }
                }
            }
        }
        if table.uniqueDirectKeys {
            matchUnique(&b, n)
            return
        }
        b.cursor.withUnsafeBufferPointer { cur in
            b.end.withUnsafeBufferPointer { end in
                b.nullKey.withUnsafeBufferPointer { nk in
                    for i in 0..<n where cur[i] < end[i] && !nk[i] {
                        b.active.append(Int32(truncatingIfNeeded: i))
                    }
                }
            }
        }
    }

    /// Unique 64-bit build keys: every probe row scans its bucket run once and has at
    /// most one match, so the piece is matched in one pass (no rounds) and queues at most
    /// `Chunk.capacity` pairs.
    private func matchUnique(_ b: inout ProbeBatch, _ n: Int) {
        let cursor = b.cursor, end = b.end, match = b.match
        table.entries.withUnsafeBufferPointer { en in
            cursor.withUnsafeBufferPointer { cur in
                end.withUnsafeBufferPointer { end in
                    match.withUnsafeBufferPointer { mv in
                        let ahead = Self.prefetchDistance
                        let prefetching = en.count >= Self.prefetchedEntries
                        if prefetching {
                            for i in 0..<min(n, ahead) { Self.prefetch(en, at: cur[i]) }
                        } else {
                            // Touch each row's first entry (branch-free: misses overlap).
                            var touch: UInt64 = 0
                            let last = en.count - 1
                            for i in 0..<n { touch ^= en[min(Int(cur[i]), last)].match }
                            scratch.touch ^= touch
                        }
                        matchEach(&b, n) { i in
                            if prefetching && i + ahead < n { Self.prefetch(en, at: cur[i + ahead]) }
                            let want = mv[i]
                            var j = Int(cur[i])
                            let e = Int(end[i])
                            while j < e {
                                if en[j].match == want { return en[j].row }
                                j += 1
                            }
                            return -1
                        }
                    }
                }
            }
        }
    }

    /// Rows ahead of the one being matched whose first entry is prefetched. Measured on
    /// TPC-H Q9 at SF 10 (tables of 7 to 13 MB a slice): 16 to 32 took the two probe
    /// loops' samples down a sixth; 8 is too close to hide a miss.
    static let prefetchDistance = 24
    /// Tables of at least this many entries (8 MB of them, past what the caches hold
    /// beside the rest of a query) are probed with prefetches; smaller ones with a touch
    /// pass first (a loop without branches over the piece's first entries, whose loads
    /// the CPU overlaps), which costs less when the entries are mostly cached:
    /// prefetching every table made TPC-H at SF 1 2% slower (Q4, Q5, Q11 5-12%), and
    /// from 256 Ki entries Q7 and Q8 (375-457 K entries a table) 2-4%.
    static let prefetchedEntries = 1 << 19

    /// Prefetch entry `at` of `entries` (clamped: a run's cursor may be its end). A hint:
    /// it changes no result.
    @inline(__always)
    static func prefetch(_ entries: UnsafeBufferPointer<BuildEntry>, at: Int32) {
        guard let base = entries.baseAddress else { return }
        slicehouse_prefetch(base + min(Int(at), entries.count - 1))
    }

    /// Unique keys with a direct index: each row's slot is loaded first, in a pass without
    /// branches (the loads overlap), into `cursor` (build row + 1, 0 = none); rows whose
    /// packed key is outside the build side's ranges (`inRange` false) have none.
    private func matchDirect(_ b: inout ProbeBatch, _ n: Int, inRange: [Bool]) {
        let lo = table.directLow
        let last = UInt64(table.directIndex.count - 1)
        table.directIndex.withUnsafeBufferPointer { di in
            b.match.withUnsafeBufferPointer { mv in
                b.cursor.withUnsafeMutableBufferPointer { cur in
                    for i in 0..<n {
                        let d = UInt64(bitPattern: Int64(bitPattern: mv[i]) &- lo)
                        let r = di[Int(min(d, last))]
                        cur[i] = d <= last ? r : 0
                    }
                    inRange.withUnsafeBufferPointer { ok in
                        for i in 0..<min(n, ok.count) where !ok[i] { cur[i] = 0 }
                    }
                }
            }
        }
        let cursor = b.cursor
        cursor.withUnsafeBufferPointer { cur in
            matchEach(&b, n) { cur[$0] &- 1 }
        }
    }

    /// The one-pass match of unique keys: `find(i)` is logical probe row i's build row,
    /// or -1. Rows with a NULL key are not looked up.
    @inline(__always)
    private func matchEach(_ b: inout ProbeBatch, _ n: Int, _ find: (Int) -> Int32) {
        let semiLike = kind == .semi || kind == .anti
        let buildOnly = buildSideOnly
        let markNow = residual == nil
        let markBuild = markNow && tracksBuildMatches
        var buildMatched = self.buildMatched
        self.buildMatched = []
        defer { self.buildMatched = buildMatched }
        var matched = b.matched
        b.matched = []
        let nullKey = b.nullKey
        nullKey.withUnsafeBufferPointer { nk in
            matched.withUnsafeMutableBufferPointer { matched in
                for i in 0..<n where !nk[i] {
                    let row = find(i)
                    if row < 0 { continue }
                    if buildOnly {
                        if markNow {
                            buildMatched[Int(row)] = true
                        } else if !buildMatched[Int(row)] {
                            b.pairLogical.append(Int32(truncatingIfNeeded: i))
                            b.pairBuild.append(row)
                        }
                    } else if semiLike && markNow {
                        matched[i] = true
                    } else {
                        b.pairLogical.append(Int32(truncatingIfNeeded: i))
                        b.pairBuild.append(row)
                        if markNow { matched[i] = true }
                        if markBuild { buildMatched[Int(row)] = true }
                    }
                }
            }
        }
        b.matched = matched
    }

    /// Run rounds until a chunk's worth of pairs is queued or the piece is done.
    private func step() throws {
        var b = batch
        batch = ProbeBatch()
        defer { batch = b }
        while !b.active.isEmpty && b.pairLogical.count < Chunk.capacity {
            try round(&b)
        }
        if !b.pairLogical.isEmpty { try flush(&b) }
        if residual != nil && (kind == .semi || kind == .anti) {
            // Rows already matched need no more candidates.
            let matched = b.matched
            b.active.removeAll { matched[Int($0)] }
        }
        if b.active.isEmpty {
            finishPiece(b)
            batchActive = false
        }
    }

    /// One round: every active probe row collects up to `budget` candidates with an
    /// equal `match` value from its bucket run; candidates are key-compared column by
    /// column (unless the match value is the key itself).
    private func round(_ b: inout ProbeBatch) throws {
        let budget = max(1, (Chunk.capacity - b.pairLogical.count) / max(1, b.active.count))
        var sc = scratch
        scratch = RoundScratch()
        defer { scratch = sc }
        sc.candLogical.removeAll(keepingCapacity: true)
        sc.candBuild.removeAll(keepingCapacity: true)
        var stillActive = 0
        table.entries.withUnsafeBufferPointer { en in
            b.match.withUnsafeBufferPointer { mv in
                b.end.withUnsafeBufferPointer { end in
                    b.cursor.withUnsafeMutableBufferPointer { cur in
                        b.active.withUnsafeMutableBufferPointer { act in
                            let count = act.count
                            let ahead = Self.prefetchDistance
                            let prefetching = en.count >= Self.prefetchedEntries
                            if prefetching {
                                for a in 0..<min(count, ahead) { Self.prefetch(en, at: cur[Int(act[a])]) }
                            } else {
                                // Touch every active row's next entry first: a loop without
                                // branches lets the CPU overlap the cache misses.
                                var touch: UInt64 = 0
                                for a in 0..<count { touch ^= en[Int(cur[Int(act[a])])].match }
                                sc.touch ^= touch
                            }
                            for a in 0..<count {
                                if prefetching && a + ahead < count { Self.prefetch(en, at: cur[Int(act[a + ahead])]) }
                                let i = Int(act[a])
                                let want = mv[i]
                                var j = Int(cur[i])
                                let e = Int(end[i])
                                var taken = 0
                                while j < e && taken < budget {
                                    let entry = en[j]
                                    if entry.match == want {
                                        sc.candLogical.append(Int32(truncatingIfNeeded: i))
                                        sc.candBuild.append(entry.row)
                                        taken += 1
                                    }
                                    j += 1
                                }
                                cur[i] = Int32(truncatingIfNeeded: j)
                                if j < e {
                                    act[stillActive] = act[a]
                                    stillActive += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        b.active.removeLast(b.active.count - stillActive)
        let candidates = sc.candLogical.count
        if candidates == 0 { return }

        // Compare keys (a direct 64-bit match already compared them).
        sc.eq.removeAll(keepingCapacity: true)
        sc.eq.append(contentsOf: repeatElement(true, count: candidates))
        if !table.directKeys {
            sc.candProbeRows.removeAll(keepingCapacity: true)
            for l in sc.candLogical { sc.candProbeRows.append(b.physRows[Int(l)]) }
            try sc.candProbeRows.withUnsafeBufferPointer { pr in
                try sc.candBuild.withUnsafeBufferPointer { br in
                    try sc.eq.withUnsafeMutableBufferPointer { e in
                        for k in 0..<b.keys.count {
                            try OperatorKernels.andEqual(b.keys[k], pr, table.keyColumns[k], br, e)
                        }
                    }
                }
            }
        }

        let semiLike = kind == .semi || kind == .anti
        if buildSideOnly {
            // Mark the build rows; with a residual, queue only the pairs of build rows
            // not yet matched.
            var buildMatched = self.buildMatched
            self.buildMatched = []
            defer { self.buildMatched = buildMatched }
            let markNow = residual == nil
            for j in 0..<candidates where sc.eq[j] {
                let r = Int(sc.candBuild[j])
                if markNow {
                    buildMatched[r] = true
                } else if !buildMatched[r] {
                    b.pairLogical.append(sc.candLogical[j])
                    b.pairBuild.append(sc.candBuild[j])
                }
            }
            return
        }
        if semiLike && residual == nil {
            // The first key match decides; nothing to gather.
            var any = false
            for j in 0..<candidates where sc.eq[j] {
                b.matched[Int(sc.candLogical[j])] = true
                any = true
            }
            if any {
                let matched = b.matched
                b.active.removeAll { matched[Int($0)] }
            }
            return
        }
        let markNow = residual == nil
        let markBuild = markNow && tracksBuildMatches
        var buildMatched = self.buildMatched
        self.buildMatched = []
        defer { self.buildMatched = buildMatched }
        for j in 0..<candidates where sc.eq[j] {
            let l = sc.candLogical[j], r = sc.candBuild[j]
            b.pairLogical.append(l)
            b.pairBuild.append(r)
            if markNow { b.matched[Int(l)] = true }
            if markBuild { buildMatched[Int(r)] = true }
        }
    }

    /// Gather the queued pairs into an output chunk (filtered by the residual).
    private func flush(_ b: inout ProbeBatch) throws {
        let n = b.pairLogical.count
        defer {
            b.pairLogical.removeAll(keepingCapacity: true)
            b.pairBuild.removeAll(keepingCapacity: true)
        }
        let physRows = b.physRows
        let probeRows = b.pairLogical.map { physRows[Int($0)] }
        var columns: [Vector] = []
        columns.reserveCapacity(b.chunk.columns.count + table.columns.count)
        // Without output pairs only the residual's columns are gathered; the others are
        // constant NULL placeholders the residual does not read.
        let all = emitsBuildColumns
        let probeWidth = b.chunk.columns.count
        if (!all || readOutputs != nil) && residualColumns == nil {
            residualColumns = residual.map { $0.referencedColumns } ?? []
        }
        let used = residualColumns ?? []
        // Every probe row matched once, in order (a foreign key meeting its dimension):
        // the probe columns pass through as they are.
        let identity = n == b.chunk.physicalCount && probeRows.withUnsafeBufferPointer { rows in
            var k = 0
            while k < rows.count && Int(rows[k]) == k { k += 1 }
            return k == rows.count
        }
        for (i, c) in b.chunk.columns.enumerated() {
            if !((all && probeRead(i)) || used.contains(i)) {
                columns.append(Self.placeholder(c.type))
            } else {
                columns.append(identity ? c : OperatorKernels.gather(c, probeRows))
            }
        }
        for (i, c) in table.columns.enumerated() {
            if let coding, let first = coding.columns.first, coding.columns.contains(i) {
                columns.append(i == first ? try codes(b.pairBuild, coding) : Self.placeholder(c.type))
                continue
            }
            let gathered = (all && buildRead(i)) || used.contains(probeWidth + i)
            columns.append(gathered ? OperatorKernels.gather(c, b.pairBuild) : Self.placeholder(c.type))
        }
        var combined = Chunk(columns: columns, count: n)
        guard let residual else {
            output.append(combined)
            return
        }
        let selected = try ExpressionEvaluator.select(residual, combined)
        for s in selected {
            let j = Int(s)
            guard j >= 0 && j < n else { throw SQLError.internalError("residual selected row \(j) of \(n)") }
            b.matched[Int(b.pairLogical[j])] = true
            if tracksBuildMatches { buildMatched[Int(b.pairBuild[j])] = true }
        }
        if emitsBuildColumns && !selected.isEmpty {
            if selected.count < n { combined.selection = selected }
            if readOutputs != nil {
                // Columns gathered for the residual alone do not go up.
                for i in 0..<combined.columns.count where !(i < probeWidth ? probeRead(i) : buildRead(i - probeWidth)) {
                    combined.columns[i] = Self.placeholder(combined.columns[i].type)
                }
            }
            output.append(combined)
        }
    }

    /// The codes of build rows `rows` (`coding`), as a BIGINT column; the rows not coded
    /// yet are coded first, together.
    private func codes(_ rows: [Int32], _ coding: BuildKeyDictionary) throws -> Vector {
        var uncoded: [Int32] = []
        buildCodes.withUnsafeMutableBufferPointer { codes in
            for r in rows where codes[Int(r)] == -1 {
                codes[Int(r)] = -2   // listed once
                uncoded.append(r)
            }
        }
        if !uncoded.isEmpty {
            let before = coding.memoryBytes
            let found = try coding.codes(table.columns, rows: uncoded)
            for (r, code) in zip(uncoded, found) { buildCodes[Int(r)] = code }
            let grown = coding.memoryBytes - before
            if grown > 0 { reservation.resize(to: reservation.bytes + grown) }
        }
        let values = buildCodes.withUnsafeBufferPointer { codes in
            [Int64](unsafeUninitializedCapacity: rows.count) { out, initialized in
                for (k, r) in rows.enumerated() { out[k] = Int64(codes[Int(r)]) }
                initialized = rows.count
            }
        }
        return Vector(type: .bigint, data: .int64(values))
    }

    /// A one-row constant NULL column standing in for a column nothing reads.
    private static func placeholder(_ type: DataType) -> Vector {
        var v = Vector.nulls(type, count: 1)
        v.isConstant = true
        return v
    }

    /// After the last round of a piece: unmatched probe rows (left/full), or the
    /// semi/anti result.
    private func finishPiece(_ b: ProbeBatch) {
        let n = b.chunk.count
        switch kind {
        case .inner, .right, .rightSemi, .rightAnti:
            return
        case .left, .full:
            var rows: [Int32] = []
            for i in 0..<n where !b.matched[i] { rows.append(b.physRows[i]) }
            if rows.isEmpty { return }
            var columns = b.chunk.columns.enumerated().map { i, c in
                probeRead(i) ? OperatorKernels.gather(c, rows) : Self.placeholder(c.type)
            }
            for (j, t) in buildTypes.enumerated() {
                columns.append(buildRead(j) ? Vector.nulls(t, count: rows.count) : Self.placeholder(t))
            }
            output.append(Chunk(columns: columns, count: rows.count))
        case .semi, .anti:
            let wantMatched = kind == .semi
            // NOT IN: a NULL probe key qualifies only against an empty build side.
            let nullKeysQualify = kind == .anti && (!nullAware || table.count == 0)
            var rows: [Int32] = []
            for i in 0..<n {
                let qualifies = b.nullKey[i] ? nullKeysQualify : (b.matched[i] == wantMatched)
                if qualifies { rows.append(b.physRows[i]) }
            }
            if rows.isEmpty { return }
            let columns = b.chunk.columns.enumerated().map { i, c in probeRead(i) ? c : Self.placeholder(c.type) }
            output.append(Chunk(columns: columns, count: b.chunk.physicalCount, selection: rows))
        }
    }

    /// After the probe side: RIGHT/FULL emit the build rows that never matched, padded
    /// with NULL probe columns; `rightSemi` the matched build rows, `rightAnti` the
    /// unmatched ones (build columns only).
    private func emitBuildRows() throws {
        var rows: [Int32] = []
        let want = kind == .rightSemi
        for r in 0..<table.count where buildMatched[r] == want { rows.append(Int32(truncatingIfNeeded: r)) }
        if rows.isEmpty { return }
        if buildSideOnly {
            var start = 0
            while start < rows.count {
                let end = min(rows.count, start + Chunk.capacity)
                let part = Array(rows[start..<end])
                let columns = table.columns.enumerated().map { j, c in
                    buildRead(j) ? OperatorKernels.gather(c, part) : Self.placeholder(c.type)
                }
                output.append(Chunk(columns: columns, count: part.count))
                start = end
            }
            return
        }
        guard let probeTypes else {
            throw SQLError.internalError("RIGHT/FULL hash join over an empty probe side needs the probe column types")
        }
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Chunk.capacity)
            let part = Array(rows[start..<end])
            var columns = probeTypes.enumerated().map { i, t in
                probeRead(i) ? Vector.nulls(t, count: part.count) : Self.placeholder(t)
            }
            for (j, c) in table.columns.enumerated() {
                columns.append(buildRead(j) ? OperatorKernels.gather(c, part) : Self.placeholder(c.type))
            }
            output.append(Chunk(columns: columns, count: part.count))
            start = end
        }
    }
}

/// Probe state of one piece of a probe chunk. Held by value and moved out of the
/// operator while being worked on, so loops touch locals only.
private struct ProbeBatch {
    var chunk = Chunk(columns: [], count: 0)
    /// Physical row of each logical row.
    var physRows: [Int32] = []
    /// Flat key vectors of the chunk.
    var keys: [Vector] = []
    /// Per logical row: the value compared with `BuildEntry.match`.
    var match: [UInt64] = []
    /// Per logical row: next entry to look at, and the end of its bucket run.
    var cursor: [Int32] = []
    var end: [Int32] = []
    /// Per logical row: some key column is NULL.
    var nullKey: [Bool] = []
    /// Per logical row: matched at least once (after the residual).
    var matched: [Bool] = []
    /// Logical rows still scanning their bucket runs.
    var active: [Int32] = []
    /// Queued key-matched pairs: logical probe row, build row.
    var pairLogical: [Int32] = []
    var pairBuild: [Int32] = []

    mutating func reset(_ c: Chunk) {
        chunk = c
        let n = c.count
        physRows = c.selection ?? (0..<Int32(truncatingIfNeeded: n)).map { $0 }
        keys = []
        match = []
        cursor = [Int32](filled: 0, count: n)
        end = [Int32](filled: 0, count: n)
        nullKey = [Bool](filled: false, count: n)
        matched = [Bool](filled: false, count: n)
        active.removeAll(keepingCapacity: true)
        pairLogical.removeAll(keepingCapacity: true)
        pairBuild.removeAll(keepingCapacity: true)
    }
}

/// Candidate buffers of one round, reused.
private struct RoundScratch {
    var candLogical: [Int32] = []
    var candBuild: [Int32] = []
    var candProbeRows: [Int32] = []
    var eq: [Bool] = []
    /// Sink for the values read by the touch pass (keeps it from being optimized away).
    var touch: UInt64 = 0
}

/// The hash table of a join node whose build side is the same rows in every partition
/// (a broadcast, possibly filtered or projected): built once, by the first partition
/// that needs it, while the others wait, then read by all of them.
/// Each slice building its own copy of a broadcast did the same work once per slice:
/// TPC-H Q5 at SF 10 built the 1.5 M customers four times over.
///
/// The table is immutable once published; only the join kinds that never mark build
/// rows share one. A builder whose build side went past the memory budget (a grace join)
/// or failed gives up, and every partition then builds its own from its own copy of the
/// rows. The memory the table holds stays reserved until the last of the `users`
/// partitions is done with it, when the table is dropped.
public final class SharedHashBuild: @unchecked Sendable {
    enum Claim {
        /// Build the table and publish it (or give up).
        case build
        /// The table another partition built.
        case use(JoinHashTable)
        /// Build a table of your own.
        case own
    }

    private enum State {
        case open, building, built(JoinHashTable), unshared
    }

    private let condition = NSCondition()
    private var state = State.open
    private var remaining: Int
    private let reservation: MemoryReservation

    /// - Parameters:
    ///   - users: the partitions that read the table (the stage's partition count).
    ///   - memory: the statement's memory, where the table's bytes stay reserved.
    public init(users: Int, memory: QueryMemory) {
        remaining = max(1, users)
        reservation = MemoryReservation(memory)
    }

    /// Whether the caller builds, reads the published table (waiting while another
    /// partition builds it), or builds its own.
    func claim() -> Claim {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch state {
            case .open:
                state = .building
                return .build
            case .built(let t):
                return .use(t)
            case .unshared:
                return .own
            case .building:
                // The core stays with this task: given to another partition's task, that
                // one would wait here too, and all of them would then probe at once on
                // more threads than cores. Builders never wait here themselves (a build
                // side holds no join), so this cannot wait in a circle.
                condition.wait()
            }
        }
    }

    /// The builder's table, holding `heldBytes` of the statement's memory.
    func publish(_ table: JoinHashTable, heldBytes: Int) {
        reservation.resize(to: heldBytes)
        condition.lock()
        state = .built(table)
        condition.broadcast()
        condition.unlock()
    }

    /// The builder did not build a table to share.
    func giveUp() {
        condition.lock()
        if case .building = state { state = .unshared }
        condition.broadcast()
        condition.unlock()
    }

    /// A partition is done with the table; after the last one it is dropped.
    func release() {
        condition.lock()
        remaining -= 1
        let last = remaining <= 0
        if last, case .built = state { state = .unshared }
        condition.unlock()
        if last { reservation.free() }
    }
}
