// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions

/// Window evaluation in bounded memory, for a `WindowOperator` whose rows do not fit its
/// budget and cannot be split by partition (no PARTITION BY, or one window partition
/// bigger than the budget).
///
/// ## How
/// 1. The rows go through a spilling `SortOperator` on (partition columns, ORDER BY
///    keys) — the same keys, NULL placement and stability as the in-memory sort.
/// 2. The sorted rows are written to two spill files in the same chunks: **full** (every
///    input column) and **narrow** (a partition ordinal, a peer-group ordinal, then the
///    distinct argument columns). The ordinals grow by one at every partition (peer
///    group) boundary, found with `WindowKernels.markChanges`, across chunk boundaries
///    too.
/// 3. `next()` reads both files a chunk at a time and appends one result column per
///    function. Everything a result needs beyond the current chunk is reached through
///    **cursors**: forward-only readers of the narrow file. Because a frame's bounds, a
///    LAG/LEAD target and a "k-th non-NULL value" target never move backwards from one
///    position to the next, every cursor passes each row at most once:
///    - partition and peer-group ends (for PERCENT_RANK, CUME_DIST, NTILE, RANGE frames,
///      UNBOUNDED FOLLOWING) are two shared cursors run ahead to the next ordinal;
///    - COUNT/SUM/AVG over exact types keep prefix sums at the frame's two cursors (the
///      same Int128 / 192-bit sums and overflow rules as `WindowAggregates`); floating
///      point repeats that file's three summation orders (running, direct over at most
///      `directWidth` rows, compensated sliding), so the results are the same bits;
///    - value functions pick a row at a target cursor (by position, or by its index
///      among non-NULL values for IGNORE NULLS) and gather once per chunk;
///    - MIN/MAX keep the monotonic deque of `WindowValueFunctions.minMax`;
///    - RATIO_TO_REPORT sums each partition with a cursor before its first row is out.
///
/// ## Memory
/// The sort spills by its own budget. After it, the stream holds a chunk of each file
/// and one chunk per cursor, reserved by force on the window's reservation; the only
/// thing that can grow with the data is a MIN/MAX deque (its candidates, at most the
/// frame's rows, hold their chunks), which is counted too.
final class WindowStream {
    private let context: QueryContext
    private let reservation: MemoryReservation
    private var fullReader: SpillReader
    private var narrowReader: SpillReader
    /// Rows in the files.
    let total: Int
    /// Bytes written to the two files.
    let spilledBytes: Int
    private var position = 0
    private let evaluators: [WindowStreamFunction]
    private let partitionEnd: WindowStreamCursor
    private let peerEnd: WindowStreamCursor
    private var currentPartition: Int64 = -1
    private var currentPeer: Int64 = -1
    private var ps = 0, pe = 0, gs = 0, ge = 0
    private var dense: Int64 = 0
    /// Runs the window's sort merges at once.
    static let sortFanIn = 16
    // The files stay open (unlinked) while the readers use them.
    private let files: [SpillFile]

    /// Sorts `input` and writes the two files.
    ///
    /// - Parameters:
    ///   - input: the rows (each chunk with one column per `inputTypes` entry).
    ///   - sortSpilled: called with the bytes the sort wrote to its runs and its memory peak.
    init(input: Operator, inputTypes: [DataType], partitionColumns: [Int], orderKeys: [SortKey],
         functions: [BoundWindowFunction], context: QueryContext, reservation: MemoryReservation,
         sortSpilled: (Int, Int) -> Void) throws {
        self.context = context
        self.reservation = reservation
        for f in functions {
            switch f.kind {
            case .firstValue, .lastValue, .nthValue, .min, .max, .count, .countStar, .sum, .avg:
                try WindowLayout.checkFrame(f.frame)
            default: break
            }
        }
        let keys = partitionColumns.map { SortKey(column: $0, ascending: true, nullsFirst: false) } + orderKeys
        let sort = SortOperator(input: input, keys: keys, context: context)
        // Its merge holds a chunk per run: a narrower merge keeps the window's memory
        // near its few chunks (at the price of more merge passes).
        sort.mergeFanIn = Self.sortFanIn
        let full = try context.spill.newFile(for: context.memory)
        let narrow = try context.spill.newFile(for: context.memory)
        var argumentColumns: [Int] = []
        var narrowColumn: [Int: Int] = [:]
        for f in functions {
            if let a = f.argument, narrowColumn[a] == nil {
                narrowColumn[a] = 2 + argumentColumns.count
                argumentColumns.append(a)
            }
        }
        let keyColumns = partitionColumns + orderKeys.map(\.column)
        var previous: [Vector]? = nil
        var partition: Int64 = -1, peer: Int64 = -1
        var total = 0
        while let raw = try sort.next() {
            try context.cancellation.check()
            let chunk = raw.compacted()
            let n = chunk.count
            if n == 0 { continue }
            guard total + n <= Int(Int32.max) else {
                throw SQLError(.featureNotSupported, "a window partition set of more than \(Int32.max) rows on one slice is not supported")
            }
            // changed[k + 1]: row k starts a new partition (then) or peer group (finally).
            var changed = [Bool](filled: false, count: n + 1)
            if previous == nil { changed[1] = true }
            var partitionChanged = changed
            for (index, column) in keyColumns.enumerated() {
                if index == partitionColumns.count { partitionChanged = changed }
                try Self.markChanges(chunk.columns[column], previous: previous?[index], changed: &changed)
            }
            if keyColumns.count == partitionColumns.count { partitionChanged = changed }
            var partitions = [Int64](filled: 0, count: n), peers = [Int64](filled: 0, count: n)
            for k in 0..<n {
                if partitionChanged[k + 1] { partition += 1 }
                if changed[k + 1] { peer += 1 }
                partitions[k] = partition
                peers[k] = peer
            }
            let last: [Int32] = [Int32(truncatingIfNeeded: n - 1)]
            previous = keyColumns.map { OperatorKernels.gather(chunk.columns[$0], last) }
            try full.appendChunk(chunk)
            let narrowColumns = [Vector(type: .bigint, data: .int64(partitions)), Vector(type: .bigint, data: .int64(peers))]
                + argumentColumns.map { chunk.columns[$0] }
            try narrow.appendChunk(Chunk(columns: narrowColumns, count: n))
            total += n
        }
        try full.flush()
        try narrow.flush()
        sortSpilled(sort.spilledBytes, sort.memoryPeak)
        self.total = total
        spilledBytes = full.size + narrow.size
        files = [full, narrow]
        fullReader = full.reader()
        narrowReader = narrow.reader()
        partitionEnd = try WindowStreamCursor(file: narrow, total: total, tracked: nil)
        peerEnd = try WindowStreamCursor(file: narrow, total: total, tracked: nil)
        evaluators = try functions.map { f in
            let column = f.argument.flatMap { narrowColumn[$0] }
            let argumentType = f.argument.map { f.argumentType ?? inputTypes[$0] }
            return try WindowStreamFunction(f, column: column, argumentType: argumentType, file: narrow, total: total)
        }
    }

    /// Marks in `changed[1...n]` the rows of `v` whose value differs from the row before
    /// (the row before the first is `previous`, a one-row vector, when given).
    private static func markChanges(_ v: Vector, previous: Vector?, changed: inout [Bool]) throws {
        let n = changed.count - 1
        if let previous {
            var joined = previous
            try OperatorKernels.append(&joined, v, rows: UnsafeBufferPointer<Int32>?.none, count: n)
            let order = (0...Int32(truncatingIfNeeded: n)).map { $0 }
            order.withUnsafeBufferPointer { o in
                changed.withUnsafeMutableBufferPointer { WindowKernels.markChanges(joined, order: o, changed: $0) }
            }
        } else {
            let order = (0..<Int32(truncatingIfNeeded: n)).map { $0 }
            order.withUnsafeBufferPointer { o in
                changed.withUnsafeMutableBufferPointer { c in
                    WindowKernels.markChanges(v, order: o, changed: UnsafeMutableBufferPointer(rebasing: c[1...]))
                }
            }
        }
    }

    /// The next chunk of rows with their results, or nil at the end.
    func next() throws -> Chunk? {
        try context.cancellation.check()
        let full = try fullReader.readChunk()
        let narrow = try narrowReader.readChunk()
        guard let full, let narrow else {
            if full != nil || narrow != nil { throw SQLError.internalError("window spill files differ in length") }
            return nil
        }
        let n = narrow.count
        guard full.count == n, n > 0, narrow.columns.count >= 2,
              case .int64(let partitions) = narrow.columns[0].data, case .int64(let peers) = narrow.columns[1].data else {
            throw SQLError.internalError("corrupt window spill chunk")
        }
        var batch = WindowStreamBatch(base: position, count: n, narrow: narrow)
        for k in 0..<n {
            let i = position + k
            if partitions[k] != currentPartition {
                currentPartition = partitions[k]
                ps = i
                dense = 0
                try partitionEnd.moveTo(i)
                try partitionEnd.skip { $0.partition == self.currentPartition }
                pe = partitionEnd.position
            }
            if peers[k] != currentPeer {
                currentPeer = peers[k]
                gs = i
                dense += 1
                try peerEnd.moveTo(i)
                try peerEnd.skip { $0.peer == self.currentPeer }
                ge = peerEnd.position
            }
            batch.ps.append(ps)
            batch.pe.append(pe)
            batch.gs.append(gs)
            batch.ge.append(ge)
            batch.dense.append(dense)
        }
        var columns = full.columns
        // This chunk of each file, and the chunks of the partition- and peer-end cursors.
        var held = full.memoryBytes + narrow.memoryBytes * 3
        for e in evaluators {
            columns.append(try e.evaluate(batch))
            held += e.heldBytes(chunkBytes: narrow.memoryBytes)
        }
        position += n
        reservation.resize(to: held)
        return Chunk(columns: columns, count: n)
    }
}

/// The rows of one output chunk and where each sits: global positions `base ..< base +
/// count`, with its partition `[ps, pe)`, peer group `[gs, ge)` and DENSE_RANK.
struct WindowStreamBatch {
    let base: Int
    let count: Int
    let narrow: Chunk
    var ps: [Int] = [], pe: [Int] = [], gs: [Int] = [], ge: [Int] = []
    var dense: [Int64] = []

    init(base: Int, count: Int, narrow: Chunk) {
        self.base = base
        self.count = count
        self.narrow = narrow
        ps.reserveCapacity(count); pe.reserveCapacity(count)
        gs.reserveCapacity(count); ge.reserveCapacity(count)
        dense.reserveCapacity(count)
    }

    @inline(__always) func frame(_ f: WindowFrame, _ k: Int) -> (Int, Int) {
        WindowLayout.frame(f, base + k, ps: ps[k], pe: pe[k], gs: gs[k], ge: ge[k])
    }
}

/// A forward-only reader of the narrow file, one row (position) at a time. With a
/// `tracked` column it counts that column's non-NULL values passed and exposes its
/// typed values.
final class WindowStreamCursor {
    private var reader: SpillReader
    let total: Int
    private let tracked: Int?
    /// The position of the current row (`total` at the end).
    private(set) var position = 0
    private(set) var chunk = Chunk(columns: [], count: 0)
    private(set) var row = 0
    /// Counts the chunks loaded (names `chunk` for gathering).
    private(set) var chunkNumber = -1
    private var partitions: [Int64] = [], peers: [Int64] = []
    private var words: [UInt64]? = nil
    private(set) var ints: [Int64] = []
    private(set) var wides: [Int128] = []
    private(set) var doubles: [Double] = []
    /// Non-NULL values of the tracked column at positions `0 ..< position`.
    private(set) var nonNullBefore = 0

    init(file: SpillFile, total: Int, tracked: Int?) throws {
        reader = file.reader()
        self.total = total
        self.tracked = tracked
        if total > 0 { try load() }
    }

    private func load() throws {
        while true {
            guard let c = try reader.readChunk() else { throw SQLError.internalError("window spill file ended early") }
            if c.count == 0 { continue }
            guard c.columns.count >= 2, case .int64(let p) = c.columns[0].data, case .int64(let g) = c.columns[1].data else {
                throw SQLError.internalError("corrupt window spill chunk")
            }
            chunk = c
            row = 0
            chunkNumber += 1
            partitions = p
            peers = g
            if let tracked {
                guard tracked < c.columns.count else { throw SQLError.internalError("window spill column out of range") }
                let v = c.columns[tracked]
                words = v.validity?.words
                switch v.data {
                case .int64(let a): ints = a
                case .int128(let a): wides = a
                case .double(let a): doubles = a
                default: break
                }
            }
            return
        }
    }

    @inline(__always) var partition: Int64 { partitions[row] }
    @inline(__always) var peer: Int64 { peers[row] }
    /// Whether the tracked column is not NULL at the current row.
    @inline(__always) var valid: Bool {
        guard let words else { return true }
        return (words[row &>> 6] &>> UInt64(row & 63)) & 1 == 1
    }
    /// The tracked column of the current chunk.
    var argument: Vector { chunk.columns[tracked ?? 0] }

    @inline(__always) func advance() throws {
        if tracked != nil && valid { nonNullBefore += 1 }
        position += 1
        row += 1
        if row == chunk.count && position < total { try load() }
    }

    /// Moves forward to position `p` (no-op when already there or past it).
    func moveTo(_ p: Int) throws {
        let target = min(p, total)
        while position < target {
            // Whole rest of the chunk at once when nothing is tracked.
            let rest = chunk.count - row
            if tracked == nil && target - position >= rest {
                position += rest
                row = chunk.count
                if position < total { try load() }
                continue
            }
            try advance()
        }
    }

    /// Moves forward while `stay` holds for the current row.
    func skip(while stay: (WindowStreamCursor) -> Bool) throws {
        while position < total && stay(self) { try advance() }
    }

    /// Moves forward to the tracked column's non-NULL value of index `g` (from 0, over
    /// the whole file); the caller knows it exists.
    func seekNonNull(_ g: Int) throws {
        while position < total && (nonNullBefore < g || !valid) { try advance() }
    }
}

/// One window function evaluated chunk by chunk over the sorted files.
final class WindowStreamFunction {
    private let f: BoundWindowFunction
    private let column: Int
    private let argumentType: DataType?
    private let total: Int
    // Cursors, by use: frame start and end, a picked row, the current row, partition end.
    private var lo: WindowStreamCursor?
    private var hi: WindowStreamCursor?
    private var target: WindowStreamCursor?
    private var current: WindowStreamCursor?
    private var end: WindowStreamCursor?

    // Running state.
    private var partitionStart = -1
    private var loSum: Int128 = 0, hiSum: Int128 = 0
    private var loWide = WindowWideSum.zero, hiWide = WindowWideSum.zero
    private var runSum = 0.0, runCount = 0
    private var sliding = WindowSlidingDoubleSum()
    private var ringPositions: [Int] = [], ringValues: [Double] = [], ringValid: [Bool] = []
    private var ringHead = 0
    private var nonNullAtStart = 0, nonNullAtEnd = 0
    private var totalNarrow: Int128 = 0, totalWide = WindowWideSum.zero, totalDouble = WindowDoubleTotal.zero
    private var deque: [(position: Int, number: Int, vector: Vector, row: Int)] = []
    private var dequeHead = 0

    init(_ f: BoundWindowFunction, column: Int?, argumentType: DataType?, file: SpillFile, total: Int) throws {
        self.f = f
        self.column = column ?? 0
        self.argumentType = argumentType
        self.total = total
        func cursor() throws -> WindowStreamCursor { try WindowStreamCursor(file: file, total: total, tracked: column) }
        switch f.kind {
        case .rowNumber, .rank, .denseRank, .percentRank, .cumeDist, .ntile, .countStar:
            break
        case .count:
            lo = try cursor(); hi = try cursor()
        case .sum, .avg:
            lo = try cursor(); hi = try cursor()
        case .ratioToReport:
            end = try cursor()
        case .lag, .lead:
            target = try cursor()
            if f.ignoreNulls { current = try cursor(); end = try cursor() }
        case .firstValue, .lastValue, .nthValue:
            target = try cursor()
            if f.ignoreNulls { lo = try cursor(); hi = try cursor() }
        case .min, .max:
            hi = try cursor()
        }
    }

    /// Bytes held beyond the chunk being emitted: a chunk per cursor and the MIN/MAX deque's
    /// chunks.
    func heldBytes(chunkBytes: Int) -> Int {
        let cursors = [lo, hi, target, current, end].reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        var chunks = cursors
        if dequeHead < deque.count, let first = deque[dequeHead...].first, let last = deque.last {
            chunks += last.number - first.number + 1
        }
        return chunks * chunkBytes + ringPositions.capacity * 17
    }

    func evaluate(_ b: WindowStreamBatch) throws -> Vector {
        switch f.kind {
        case .rowNumber, .rank, .denseRank, .ntile:
            var out = [Int64](filled: 0, count: b.count)
            for k in 0..<b.count {
                let i = b.base + k
                switch f.kind {
                case .rowNumber: out[k] = Int64(i - b.ps[k] + 1)
                case .rank: out[k] = Int64(b.gs[k] - b.ps[k] + 1)
                case .denseRank: out[k] = b.dense[k]
                default: out[k] = WindowLayout.ntileBucket(i - b.ps[k], rows: b.pe[k] - b.ps[k], buckets: max(1, f.parameter))
                }
            }
            return Vector(type: f.resultType, data: .int64(out))
        case .percentRank, .cumeDist:
            var out = [Double](filled: 0, count: b.count)
            for k in 0..<b.count {
                let ps = b.ps[k], pe = b.pe[k]
                if f.kind == .percentRank {
                    out[k] = pe - ps > 1 ? Double(b.gs[k] - ps) / Double(pe - ps - 1) : 0
                } else {
                    out[k] = Double(b.ge[k] - ps) / Double(pe - ps)
                }
            }
            return Vector(type: f.resultType, data: .double(out))
        case .countStar:
            var out = [Int64](filled: 0, count: b.count)
            for k in 0..<b.count {
                let (l, h) = b.frame(f.frame, k)
                out[k] = Int64(h - l)
            }
            return Vector(type: f.resultType, data: .int64(out))
        case .count:
            let (lo, hi) = try cursors(self.lo, self.hi)
            var out = [Int64](filled: 0, count: b.count)
            for k in 0..<b.count {
                let (l, h) = b.frame(f.frame, k)
                try lo.moveTo(l)
                try hi.moveTo(h)
                out[k] = Int64(hi.nonNullBefore - lo.nonNullBefore)
            }
            return Vector(type: f.resultType, data: .int64(out))
        case .sum, .avg:
            return try sumOrAvg(b)
        case .ratioToReport:
            return try ratioToReport(b)
        case .lag, .lead:
            return try shifted(b)
        case .firstValue, .lastValue, .nthValue:
            return try frameValue(b)
        case .min, .max:
            return try minMax(b)
        }
    }

    private func cursors(_ a: WindowStreamCursor?, _ b: WindowStreamCursor?) throws -> (WindowStreamCursor, WindowStreamCursor) {
        guard let a, let b else { throw SQLError.internalError("window cursor missing for \(f.kind.rawValue)") }
        return (a, b)
    }

    private func cursor(_ a: WindowStreamCursor?) throws -> WindowStreamCursor {
        guard let a else { throw SQLError.internalError("window cursor missing for \(f.kind.rawValue)") }
        return a
    }

    // MARK: - SUM / AVG

    private func sumOrAvg(_ b: WindowStreamBatch) throws -> Vector {
        guard let argumentType else { throw SQLError.internalError("\(f.kind.rawValue) without an argument type") }
        let (lo, hi) = try cursors(self.lo, self.hi)
        let isAvg = f.kind == .avg
        let n = b.count
        switch b.narrow.columns[column].data {
        case .int64, .int128:
            let mode: WindowAggregates.ExactMode = argumentType.isInteger
                ? (isAvg ? .avgInteger : .sumInteger) : (isAvg ? .avgDecimal : .sumDecimal)
            let L = (0..<n).map { 2 * $0 }, H = (0..<n).map { 2 * $0 + 1 }
            if case .int64 = b.narrow.columns[column].data {
                let (prefix, counts) = try framePrefixes(b, lo, hi, &loSum, &hiSum) { Int128($0.ints[$0.row]) }
                return try WindowAggregates.finishExact(prefix, counts: counts, lo: L, hi: H, mode: mode, resultType: f.resultType)
            }
            let (prefix, counts) = try framePrefixes(b, lo, hi, &loWide, &hiWide) { $0.wides[$0.row] }
            return try WindowAggregates.finishExact(prefix, counts: counts, lo: L, hi: H, mode: mode, resultType: f.resultType)
        case .double:
            return try floatSumOrAvg(b, lo, hi, isAvg: isAvg)
        default:
            throw SQLError.internalError("window \(isAvg ? "AVG" : "SUM") over a \(argumentType) column")
        }
    }

    /// For each row of the batch, the running sums (and non-NULL counts) of the whole file
    /// before its frame's start and end, at positions 2k and 2k + 1: what
    /// `WindowAggregates.finishExact` takes frame sums from. `loSum` / `hiSum` carry the
    /// cursors' sums from batch to batch.
    private func framePrefixes<S: WindowPrefixSum>(_ b: WindowStreamBatch, _ lo: WindowStreamCursor, _ hi: WindowStreamCursor,
                                                   _ loSum: inout S, _ hiSum: inout S,
                                                   _ value: (WindowStreamCursor) -> S.Element) throws -> ([S], [Int]) {
        let n = b.count
        var prefix = [S](filled: .zero, count: 2 * n)
        var counts = [Int](filled: 0, count: 2 * n)
        for k in 0..<n {
            let (l, h) = b.frame(f.frame, k)
            while lo.position < l { if lo.valid { loSum = loSum.adding(value(lo)) }; try lo.advance() }
            while hi.position < h { if hi.valid { hiSum = hiSum.adding(value(hi)) }; try hi.advance() }
            prefix[2 * k] = loSum; prefix[2 * k + 1] = hiSum
            counts[2 * k] = lo.nonNullBefore; counts[2 * k + 1] = hi.nonNullBefore
        }
        return (prefix, counts)
    }

    /// The three summation orders of `WindowAggregates.floatSumOrAvg`, over cursors.
    private func floatSumOrAvg(_ b: WindowStreamBatch, _ lo: WindowStreamCursor, _ hi: WindowStreamCursor,
                               isAvg: Bool) throws -> Vector {
        let n = b.count
        var sums = [Double](filled: 0, count: n)
        var counts = [Int](filled: 0, count: n)
        let direct = WindowAggregates.directFrameWidth(f.frame).map { $0 <= WindowAggregates.directWidth } ?? false
        for k in 0..<n {
            let (l, h) = b.frame(f.frame, k)
            let newPartition = b.ps[k] != partitionStart
            partitionStart = b.ps[k]
            if f.frame.start == .unboundedPreceding {
                // Running sum in row order, restarted per partition.
                if newPartition { runSum = 0; runCount = 0; try hi.moveTo(b.ps[k]) }
                while hi.position < h {
                    if hi.valid { runSum += hi.doubles[hi.row]; runCount += 1 }
                    try hi.advance()
                }
                sums[k] = runSum; counts[k] = runCount
            } else if direct {
                // The frame's values (at most `directWidth` rows) summed in row order.
                while ringHead < ringPositions.count && ringPositions[ringHead] < l { ringHead += 1 }
                if hi.position < l { try hi.moveTo(l) }
                while hi.position < h {
                    ringPositions.append(hi.position)
                    ringValid.append(hi.valid)
                    ringValues.append(hi.valid ? hi.doubles[hi.row] : 0)
                    try hi.advance()
                }
                var sum = 0.0, count = 0
                for q in ringHead..<ringPositions.count where ringPositions[q] < h && ringValid[q] {
                    sum += ringValues[q]; count += 1
                }
                sums[k] = sum; counts[k] = count
                if ringHead > 1024 {
                    ringPositions.removeFirst(ringHead); ringValues.removeFirst(ringHead); ringValid.removeFirst(ringHead)
                    ringHead = 0
                }
            } else {
                // Compensated sliding sum, restarted per partition and when the frame jumps.
                if newPartition {
                    sliding = WindowSlidingDoubleSum()
                    try lo.moveTo(b.ps[k]); try hi.moveTo(b.ps[k])
                }
                if l >= hi.position {
                    sliding = WindowSlidingDoubleSum()
                    try lo.moveTo(l); try hi.moveTo(l)
                }
                while hi.position < h {
                    if hi.valid { sliding.add(hi.doubles[hi.row]) }
                    try hi.advance()
                }
                while lo.position < l {
                    if lo.valid { sliding.remove(lo.doubles[lo.row]) }
                    try lo.advance()
                }
                sums[k] = sliding.value; counts[k] = sliding.count
            }
        }
        var valid = [Bool](filled: true, count: n)
        for k in 0..<n where counts[k] == 0 { valid[k] = false; sums[k] = 0 }
        if isAvg {
            for k in 0..<n where counts[k] > 0 { sums[k] /= Double(counts[k]) }
        }
        return Vector(type: f.resultType, data: .double(sums), validity: OperatorKernels.validity(from: valid))
    }

    // MARK: - RATIO_TO_REPORT

    private func ratioToReport(_ b: WindowStreamBatch) throws -> Vector {
        let end = try cursor(self.end)
        let v = b.narrow.columns[column]
        let n = b.count
        var out = [Double](filled: 0, count: n)
        var valid = [Bool](filled: false, count: n)
        for k in 0..<n {
            if b.ps[k] != partitionStart {
                // The partition's total, in row order.
                partitionStart = b.ps[k]
                try end.moveTo(b.ps[k])
                totalNarrow = 0; totalWide = .zero; totalDouble = .zero
                while end.position < b.pe[k] {
                    if end.valid {
                        switch v.data {
                        case .int64: totalNarrow &+= Int128(end.ints[end.row])
                        case .int128: totalWide = totalWide.adding(end.wides[end.row])
                        case .double: totalDouble = totalDouble.adding(end.doubles[end.row])
                        default: break
                        }
                    }
                    try end.advance()
                }
            }
            if v.isNull(k) { continue }
            switch v.data {
            case .int64(let a):
                if totalNarrow != 0 { out[k] = Double(a[k]) / Double(totalNarrow); valid[k] = true }
            case .int128(let a):
                if !totalWide.isZero { out[k] = Double(a[k]) / totalWide.doubleValue; valid[k] = true }
            case .double(let a):
                if totalDouble.sum != 0 { out[k] = a[k] / totalDouble.sum; valid[k] = true }
            default:
                throw SQLError.internalError("RATIO_TO_REPORT over a \(v.type) column")
            }
        }
        return Vector(type: f.resultType, data: .double(out), validity: OperatorKernels.validity(from: valid))
    }

    // MARK: - Value functions

    /// LAG / LEAD, as `WindowValueFunctions.shifted`.
    private func shifted(_ b: WindowStreamBatch) throws -> Vector {
        let target = try cursor(self.target)
        let v = b.narrow.columns[column]
        var picks = WindowStreamPicks(fill: try WindowKernels.gather(v, [-1], fill: f.defaultValue), capacity: b.count)
        let offset = max(-(total + 1), min(total + 1, f.parameter))
        let back = f.kind == .lag ? offset : -offset
        for k in 0..<b.count {
            let i = b.base + k, ps = b.ps[k], pe = b.pe[k]
            if f.ignoreNulls && back != 0 {
                let (current, end) = try cursors(self.current, self.end)
                if ps != partitionStart {
                    partitionStart = ps
                    try current.moveTo(ps)
                    nonNullAtStart = current.nonNullBefore
                    try end.moveTo(pe)
                    nonNullAtEnd = end.nonNullBefore
                }
                try current.moveTo(i)
                let before = current.nonNullBefore                    // non-NULLs in [0, i)
                let through = before + (current.valid ? 1 : 0)        // non-NULLs in [0, i]
                if back > 0 {
                    if back <= before - nonNullAtStart { try target.seekNonNull(before - back); picks.pick(target); continue }
                } else {
                    let k2 = -back
                    if k2 <= nonNullAtEnd - through { try target.seekNonNull(through + k2 - 1); picks.pick(target); continue }
                }
                picks.none()
            } else if back >= 0 ? back <= i - ps : back >= i - (pe - 1) {
                try target.moveTo(i - back)
                picks.pick(target)
            } else {
                picks.none()
            }
        }
        return try picks.build(type: v.type).retyped(f.resultType)
    }

    /// FIRST_VALUE / LAST_VALUE / NTH_VALUE over the frame, as `WindowValueFunctions`.
    private func frameValue(_ b: WindowStreamBatch) throws -> Vector {
        let target = try cursor(self.target)
        let v = b.narrow.columns[column]
        var picks = WindowStreamPicks(fill: OperatorKernels.gather(v, [-1]), capacity: b.count)
        let nth = f.kind == .nthValue ? f.parameter : 1
        for k in 0..<b.count {
            let (l, h) = b.frame(f.frame, k)
            if nth < 1 { picks.none(); continue }
            if f.ignoreNulls {
                let (lo, hi) = try cursors(self.lo, self.hi)
                try lo.moveTo(l)
                try hi.moveTo(h)
                let a = lo.nonNullBefore, z = hi.nonNullBefore
                if f.kind == .lastValue {
                    if z > a { try target.seekNonNull(z - 1); picks.pick(target); continue }
                } else if nth - 1 < z - a {
                    try target.seekNonNull(a + nth - 1); picks.pick(target); continue
                }
            } else if f.kind == .lastValue {
                if h > l { try target.moveTo(h - 1); picks.pick(target); continue }
            } else if nth - 1 < h - l {
                try target.moveTo(l + nth - 1); picks.pick(target); continue
            }
            picks.none()
        }
        return try picks.build(type: v.type).retyped(f.resultType)
    }

    /// MIN / MAX: the monotonic deque of `WindowValueFunctions.minMax`, fed by a cursor.
    private func minMax(_ b: WindowStreamBatch) throws -> Vector {
        let hi = try cursor(self.hi)
        let v = b.narrow.columns[column]
        var picks = WindowStreamPicks(fill: OperatorKernels.gather(v, [-1]), capacity: b.count)
        let isMin = f.kind == .min
        for k in 0..<b.count {
            let (l, h) = b.frame(f.frame, k)
            if b.ps[k] != partitionStart {
                partitionStart = b.ps[k]
                deque.removeAll(keepingCapacity: true)
                dequeHead = 0
            }
            if hi.position < l { try hi.moveTo(l) }
            while hi.position < h {
                if hi.valid {
                    let x = hi.argument
                    while deque.count > dequeHead,
                          let back = deque.last, !Self.precedes(back.vector, back.row, x, hi.row, isMin: isMin) {
                        deque.removeLast()
                    }
                    deque.append((hi.position, hi.chunkNumber, x, hi.row))
                }
                try hi.advance()
            }
            while dequeHead < deque.count && deque[dequeHead].position < l { dequeHead += 1 }
            if dequeHead < deque.count {
                let e = deque[dequeHead]
                picks.pick(number: e.number, vector: e.vector, row: e.row)
            } else {
                picks.none()
            }
            if dequeHead > 4096 && dequeHead * 2 > deque.count {
                deque.removeFirst(dequeHead)
                dequeHead = 0
            }
        }
        return try picks.build(type: v.type).retyped(f.resultType)
    }

    /// Whether the value at `x[xr]` strictly beats the one at `y[yr]` (both not NULL), in
    /// the orderings of `WindowValueFunctions.minMax`.
    static func precedes(_ x: Vector, _ xr: Int, _ y: Vector, _ yr: Int, isMin: Bool) -> Bool {
        switch (x.data, y.data) {
        case (.int64(let a), .int64(let b)):
            return isMin ? a[xr] < b[yr] : a[xr] > b[yr]
        case (.int128(let a), .int128(let b)):
            return isMin ? a[xr] < b[yr] : a[xr] > b[yr]
        case (.double(let p), .double(let q)):
            let a = p[xr], b = q[yr]
            return isMin ? (a < b || (b.isNaN && !a.isNaN)) : (b < a || (a.isNaN && !b.isNaN))
        case (.bool(let p), .bool(let q)):
            let a = p[xr], b = q[yr]
            return isMin ? (!a && b) : (a && !b)
        case (.string(let s), .string(let t)):
            let c = s.bytes.withUnsafeBufferPointer { sb in
                t.bytes.withUnsafeBufferPointer { tb in
                    let xs = Int(s.offsets[xr]), xl = Int(s.offsets[xr + 1]) - xs
                    let ys = Int(t.offsets[yr]), yl = Int(t.offsets[yr + 1]) - ys
                    return compareBytes(sb.baseAddress.map { $0 + xs }, xl, tb.baseAddress.map { $0 + ys }, yl)
                }
            }
            return isMin ? c < 0 : c > 0
        default:
            return false
        }
    }
}

/// The rows a value function picks for one output chunk: (part, row) pairs over the
/// chunks its cursor passed, part 0 being the one-row fill (NULL or LAG/LEAD's default);
/// gathered once with `Vector.gather(from:type:chunk:row:)`.
struct WindowStreamPicks {
    private var parts: [Vector]
    private var partOf: [Int: Int32] = [:]
    private var chunk: [Int32] = []
    private var row: [Int32] = []

    init(fill: Vector, capacity: Int) {
        parts = [fill]
        chunk.reserveCapacity(capacity)
        row.reserveCapacity(capacity)
    }

    mutating func none() {
        chunk.append(0)
        row.append(0)
    }

    mutating func pick(_ c: WindowStreamCursor) {
        pick(number: c.chunkNumber, vector: c.argument, row: c.row)
    }

    mutating func pick(number: Int, vector: Vector, row r: Int) {
        let part: Int32
        if let p = partOf[number] {
            part = p
        } else {
            part = Int32(truncatingIfNeeded: parts.count)
            partOf[number] = part
            parts.append(vector)
        }
        chunk.append(part)
        row.append(Int32(truncatingIfNeeded: r))
    }

    func build(type: DataType) throws -> Vector {
        for p in parts where p.isConstant || p.type.physical != type.physical {
            throw SQLError.internalError("window pick from a \(p.type) column, expected \(type)")
        }
        return Vector.gather(from: parts, type: type, chunk: chunk, row: row)
    }
}
