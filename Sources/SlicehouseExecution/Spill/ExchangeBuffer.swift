// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlan
import SlicehouseFunctions
import SlicehousePlatform

/// The output of one exchange (redistribute, broadcast, gather, materialize), filled
/// while its input stage runs and read by the stage above.
///
/// Each producer partition of the input stage hands its chunks to `add` as its pipeline
/// makes them; a redistribution hashes and splits them there, on the producer's thread,
/// so the input stage's output is never held twice. Every chunk kept in memory holds a
/// reservation of the statement's budget; a chunk the budget refuses goes to a spill
/// file instead and is read back when its target partition is read, so an exchange of
/// any size fits in a fixed memory budget (Redshift's `dist` and `bcast` steps are
/// disk-based then, as the query summary shows).
///
/// What a target partition reads comes in producer order, memory before disk within a
/// producer (once a producer's chunks for a target start to spill, the rest of them do
/// too), so the rows of an exchange come in the same order on every run.
final class ExchangeBuffer: @unchecked Sendable {
    let kind: ExchangeKind
    let targets: Int
    let producers: Int
    private let memory: QueryMemory
    private let spill: SpillSpace

    /// One (target, producer) pair's chunks: in memory, then in its spill file.
    private final class Cell {
        let lock = Lock()
        var chunks: [Chunk] = []
        var bytes = 0
        var file: SpillFile?
        var rows = 0
        var totalBytes = 0
        /// The most bytes it held in memory, and what it wrote to its spill file.
        var peakBytes = 0
        var spilledBytes = 0
    }

    /// cells[target][producer]; a broadcast keeps one row of cells that every target reads.
    private var cells: [[Cell]]
    private let lock = Lock()
    /// Readers still to come per stored row of cells (a broadcast's single row is read by
    /// every target).
    private var readersLeft: [Int]
    private var addNanos: UInt64 = 0

    /// Time the producers spent handing chunks to the exchange (hashing, splitting,
    /// copying, spilling).
    var nanos: UInt64 { lock.withLock { addNanos } }

    init(kind: ExchangeKind, producers: Int, targets: Int, readers: Int, context: QueryContext) {
        self.kind = kind
        self.producers = producers
        self.targets = targets
        memory = context.memory
        spill = context.spill
        let stored: Int
        switch kind {
        case .broadcast, .gather: stored = 1
        case .materialize: stored = producers
        case .redistribute: stored = targets
        }
        cells = (0..<stored).map { _ in (0..<producers).map { _ in Cell() } }
        let perRow = kind == .broadcast ? readers * targets : readers
        readersLeft = Array(repeating: max(1, perRow), count: stored)
    }

    deinit {
        var held = 0
        for row in cells { for cell in row { held += cell.bytes } }
        if held > 0 { memory.release(held) }
    }

    // MARK: Filling

    /// Take one chunk of producer partition `producer`'s output (called concurrently by
    /// the producers, each with its own `producer`).
    func add(_ chunk: Chunk, from producer: Int) throws {
        let rows = chunk.count
        if rows == 0 { return }
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let spent = DispatchTime.now().uptimeNanoseconds &- start
            lock.withLock { addNanos &+= spent }
        }
        switch kind {
        case .broadcast, .gather:
            try store(chunk.compacted(), in: cells[0][producer])
        case .materialize:
            try store(chunk.compacted(), in: cells[producer][producer])
        case .redistribute(let keys):
            let n = targets
            if n == 1 { try store(chunk.compacted(), in: cells[0][producer]); return }
            // Hash through the chunk's selection (no compacted copy of the whole chunk),
            // then order the rows by target (a counting sort: one pass to count, one to
            // place) and gather each target's rows once.
            var hashes: [UInt64] = []
            for (k, key) in keys.enumerated() {
                OperatorKernels.hashForm(chunk.columns[key]).hash(rows: chunk.selection, count: rows, into: &hashes, combine: k > 0)
            }
            var target = [Int32](filled: 0, count: rows)
            var starts = [Int](filled: 0, count: n + 1)
            hashes.withUnsafeBufferPointer { h in
                target.withUnsafeMutableBufferPointer { t in
                    Hashing.buckets(UnsafeBufferPointer(rebasing: h[0..<rows]), of: n, into: t)
                    starts.withUnsafeMutableBufferPointer { c in
                        for r in 0..<rows { c[Int(t[r]) + 1] += 1 }
                        for b in 0..<n { c[b + 1] += c[b] }
                    }
                }
            }
            if let only = (0..<n).first(where: { starts[$0 + 1] - starts[$0] == rows }) {
                try store(chunk.compacted(), in: cells[only][producer])
                return
            }
            var order = [Int32](filled: 0, count: rows)
            var next = Array(starts.dropLast())
            let selection = chunk.selection
            target.withUnsafeBufferPointer { t in
                order.withUnsafeMutableBufferPointer { o in
                    next.withUnsafeMutableBufferPointer { nx in
                        if let selection {
                            selection.withUnsafeBufferPointer { sel in
                                for r in 0..<rows {
                                    let b = Int(t[r])
                                    o[nx[b]] = sel[r]
                                    nx[b] += 1
                                }
                            }
                        } else {
                            for r in 0..<rows {
                                let b = Int(t[r])
                                o[nx[b]] = Int32(truncatingIfNeeded: r)
                                nx[b] += 1
                            }
                        }
                    }
                }
            }
            for b in 0..<n where starts[b + 1] > starts[b] {
                let picked = Array(order[starts[b]..<starts[b + 1]])
                try store(Chunk(columns: chunk.columns, count: chunk.physicalCount, selection: picked).compacted(), in: cells[b][producer])
            }
        }
    }

    private func store(_ chunk: Chunk, in cell: Cell) throws {
        let size = chunk.approximateBytes
        try cell.lock.withLock {
            cell.rows += chunk.count
            cell.totalBytes += size
            if cell.file == nil, memory.tryReserve(size) {
                cell.chunks.append(chunk)
                cell.bytes += size
                cell.peakBytes = max(cell.peakBytes, cell.bytes)
                return
            }
            if cell.file == nil { cell.file = try spill.newFile(for: memory) }
            let before = cell.file?.size ?? 0
            try cell.file?.appendChunk(chunk)
            cell.spilledBytes += (cell.file?.size ?? 0) - before
        }
    }

    /// Every producer is done: write out what the spill files still buffer, so readers
    /// (several at once for a broadcast) only read.
    func finish() throws {
        for row in cells { for cell in row { try cell.lock.withLock { try cell.file?.flush() } } }
    }

    // MARK: Reading

    /// Rows and bytes target partition `target` receives (a broadcast counts every copy),
    /// with what it held in memory at most and what went to disk.
    func received(by target: Int) -> (rows: Int, bytes: Int, memoryBytes: Int, spilledBytes: Int) {
        let row = storedRow(target)
        guard row < cells.count else { return (0, 0, 0, 0) }
        var rows = 0, bytes = 0, memoryBytes = 0, spilledBytes = 0
        for cell in cells[row] {
            cell.lock.withLock {
                rows += cell.rows
                bytes += cell.totalBytes
                memoryBytes += cell.peakBytes
                spilledBytes += cell.spilledBytes
            }
        }
        return (rows, bytes, memoryBytes, spilledBytes)
    }

    private func storedRow(_ target: Int) -> Int {
        switch kind {
        case .broadcast: return 0
        case .gather: return target == 0 ? 0 : cells.count
        case .materialize, .redistribute: return target
        }
    }

    /// An operator reading target partition `target`'s chunks. Each reader takes its own
    /// references to the chunks and spill files (two parents of a shared subplan may read
    /// one partition in one pipeline, a broadcast's copies are read at once); the last
    /// reader created takes the buffer's, so chunks are freed as the readers hand them on,
    /// and it returns their reservation as it goes.
    func reader(for target: Int) -> Operator {
        let row = storedRow(target)
        guard row < cells.count else { return ChunkSource([]) }
        // One lock over counting and taking: readers of one partition are made at once on
        // several threads (a broadcast's targets), and none may take its references after
        // the last one has taken the buffer's away.
        var parts: [(chunks: [Chunk], file: SpillFile?)] = []
        var held = 0
        let last: Bool = lock.withLock {
            readersLeft[row] -= 1
            let last = readersLeft[row] == 0
            for cell in cells[row] {
                cell.lock.withLock {
                    parts.append((cell.chunks, cell.file))
                    if last {
                        held += cell.bytes
                        cell.chunks = []
                        cell.file = nil
                        cell.bytes = 0
                    }
                }
            }
            return last
        }
        return ExchangeReader(parts: parts, memory: last ? memory : nil, held: held)
    }

    /// Every chunk of every target partition, read into memory (the exchange at the top
    /// of a plan, whose partitions the caller collects).
    func collect() throws -> [[Chunk]] {
        try (0..<targets).map { t in
            let r = reader(for: t)
            var out: [Chunk] = []
            while let c = try r.next() { out.append(c) }
            return out
        }
    }

    /// Reads one target partition: each producer's chunks in memory, then its spill file.
    private final class ExchangeReader: Operator {
        private var parts: [(chunks: [Chunk], file: SpillFile?)]
        /// The reservation this reader returns as it hands chunks on (the last reader's).
        private let memory: QueryMemory?
        private var held: Int
        private var part = 0
        private var index = 0
        private var spillReader: SpillReader?

        init(parts: [(chunks: [Chunk], file: SpillFile?)], memory: QueryMemory?, held: Int) {
            self.parts = parts
            self.memory = memory
            self.held = held
        }

        deinit { if held > 0 { memory?.release(held) } }

        func next() throws -> Chunk? {
            while part < parts.count {
                if index < parts[part].chunks.count {
                    let c = parts[part].chunks[index]
                    parts[part].chunks[index] = Chunk(columns: [], count: 0)
                    index += 1
                    if let memory {
                        let size = min(held, c.approximateBytes)
                        held -= size
                        memory.release(size)
                    }
                    if c.count > 0 { return c }
                    continue
                }
                if let file = parts[part].file {
                    if spillReader == nil { spillReader = file.reader() }
                    if var r = spillReader {
                        let c = try r.readChunk()
                        spillReader = r
                        if let c { return c }
                    }
                }
                spillReader = nil
                parts[part] = ([], nil)
                part += 1
                index = 0
            }
            return nil
        }
    }
}
