// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseRuntime

/// One spilled partition of an operator that splits its rows by the hash of some key
/// columns (a hash aggregate's groups, a window's partitions): a spill file of tagged
/// chunks for the keys whose hash falls in it at `level`. A hash aggregate writes partial
/// states first, then raw rows; a window writes rows only.
struct SpillPartition {
    let file: SpillFile
    /// The level that wrote it: partitioning it again reads the next 4 bits of the hash.
    let level: Int
}

/// Splits chunks among `fanOut` spill files by the hash of their key columns
/// (`keyColumns`): a spilling `HashAggregateOperator` (its group keys) or
/// `WindowOperator` (its PARTITION BY columns).
///
/// Each chunk in a file is a tag byte (1: partial states, 0: raw rows) and a
/// `ChunkSpill` frame. A key's partition at level L is bits `32 + 4L ..< 36 + 4L` of its
/// remixed key hash: bits that neither the exchange (the hash modulo the slice count) nor
/// the group tables (low bits for the slot, the top 16 as salt) depend on, so the rows of
/// one slice spread evenly, and each level splits a partition by bits the levels above
/// did not use. Files are created when their first chunk arrives.
final class SpillPartitioner {
    /// The deepest level: its bits are the hash's last four.
    static let maxLevel = 7
    static let fanOut = 16
    static let statesTag: UInt8 = 1
    static let rowsTag: UInt8 = 0

    let level: Int
    private let keyColumns: [Int]
    private let context: QueryContext
    private var files: [SpillFile?]
    private var hashes: [UInt64] = []
    private var rowCache: [Int32] = []
    private var partitionRows: [[Int32]]

    init(level: Int, keyColumns: [Int], context: QueryContext) throws {
        guard level >= 0 && level <= Self.maxLevel else {
            throw SQLError.internalError("spill partitioning level \(level) out of range")
        }
        self.level = level
        self.keyColumns = keyColumns
        self.context = context
        files = Array(repeating: nil, count: Self.fanOut)
        partitionRows = Array(repeating: [], count: Self.fanOut)
    }

    /// The partition at `level` of a row whose key hash (`KeyHashing`) is `keyHash`.
    @inline(__always)
    static func partition(_ keyHash: UInt64, level: Int) -> Int {
        Int(truncatingIfNeeded: (Hashing.hash(keyHash) &>> UInt64(32 + 4 * level)) & UInt64(fanOut - 1))
    }

    /// Bytes written to the files so far (after `finish`, all of them).
    private(set) var bytesWritten = 0

    /// Write the logical rows of `chunk` to their partitions.
    func add(_ chunk: Chunk, states: Bool) throws {
        let n = chunk.count
        if n == 0 { return }
        let physical = chunk.physicalCount
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        let keys = keyColumns.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
        KeyHashing.hash(keys, rows: rows, into: &hashes)
        // Filled as a local (no exclusivity checks on the property per row), then put back
        // to keep its capacity for the next chunk.
        var byPartition = partitionRows
        partitionRows = []
        defer { partitionRows = byPartition }
        for p in 0..<Self.fanOut { byPartition[p].removeAll(keepingCapacity: true) }
        hashes.withUnsafeBufferPointer { h in
            rows.withUnsafeBufferPointer { r in
                for k in 0..<n { byPartition[Self.partition(h[k], level: level)].append(r[k]) }
            }
        }
        for p in 0..<Self.fanOut where !byPartition[p].isEmpty {
            let picked = byPartition[p]
            let part = Chunk(columns: chunk.columns.map { OperatorKernels.gather($0, picked) }, count: picked.count)
            let file = try context.spillFile(p, in: &files)
            try file.append(states ? Self.statesTag : Self.rowsTag)
            try file.appendChunk(part)
        }
    }

    /// The partitions written, in partition order (their buffers flushed).
    func finish() throws -> [SpillPartition] {
        var out: [SpillPartition] = []
        bytesWritten = 0
        for case let file? in files {
            try file.flush()
            bytesWritten += file.size
            out.append(SpillPartition(file: file, level: level))
        }
        return out
    }

    /// The next chunk of a partition file and whether it holds partial states, or nil at
    /// its end.
    static func read(_ reader: inout SpillReader) throws -> (Chunk, Bool)? {
        if reader.atEnd { return nil }
        let tag = try reader.read(UInt8.self)
        guard tag == statesTag || tag == rowsTag, let chunk = try reader.readChunk() else {
            throw SQLError.internalError("corrupt partition spill file")
        }
        return (chunk, tag == statesTag)
    }
}

extension QueryContext {
    /// `files[p]`, created in this statement's spill space on first use (a partitioned
    /// spill opens only the partitions that get rows).
    func spillFile(_ p: Int, in files: inout [SpillFile?]) throws -> SpillFile {
        if let f = files[p] { return f }
        let f = try spill.newFile(for: memory)
        files[p] = f
        return f
    }
}

/// One partition of an operator's rows held in memory (`MemoryPartitioner`): its chunks,
/// each tagged as partial states or raw rows, in the order they were added.
struct MemoryPartition {
    var chunks: [PartitionChunk]
    /// The level that split it: splitting it again reads the next bits of the hash.
    let level: Int
    /// Bytes its chunks hold (`Chunk.memoryBytes`).
    let bytes: Int
    /// About how many distinct keys its rows have (a HyperLogLog estimate, within a few
    /// percent), for sizing its table before it is aggregated.
    var groups: Int = 0
}

/// One chunk of a partition held in memory: as it was added (gathered rows, partial
/// states), or packed (scattered rows): each column whose values in the chunk span less
/// than 2^32 is kept as 32-bit offsets from its smallest value, the others as their
/// 64 bits. TPC-H Q18's partitions (an order key and a quantity a row) take half the
/// memory packed, and half the pages to fault in and read back.
struct PartitionChunk {
    private enum Form {
        case chunk(Chunk)
        case packed(PackedRows)
    }
    private let form: Form
    /// Whether its rows are partial states (else raw rows).
    let states: Bool
    /// Its rows, and the bytes of heap it holds: kept beside the form, which a partition's
    /// reader would otherwise copy (retaining every array in it) to ask.
    let count: Int
    let memoryBytes: Int
    /// Whether it is held packed.
    let isPacked: Bool

    init(_ chunk: Chunk, states: Bool) {
        form = .chunk(chunk)
        self.states = states
        count = chunk.count
        memoryBytes = chunk.memoryBytes
        isPacked = false
    }

    init(packed: PackedRows) {
        form = .packed(packed)
        states = false
        count = packed.count
        memoryBytes = packed.memoryBytes
        isPacked = true
    }

    /// Its rows as a chunk (a packed one is unpacked into new vectors).
    func unpacked() -> Chunk {
        switch form {
        case .chunk(let c): return c
        case .packed(let p): return p.chunk()
        }
    }

    /// Whether it is held packed, with the columns of `other` (`PackedRows.sameLayout`).
    func isPacked(like other: PackedRows) -> Bool {
        switch form {
        case .packed(let p): return p.sameLayout(as: other)
        case .chunk: return false
        }
    }

    /// Its packed rows (nil: held as added).
    var packed: PackedRows? {
        if case .packed(let p) = form { return p }
        return nil
    }

    /// A chunk of no rows, left in a partition's place for one handed over.
    static let empty = PartitionChunk(Chunk(columns: [], count: 0), states: false)

    /// The packed chunks `run` (all packed, of one layout: `PackedRows.sameLayout`), `rows`
    /// rows in all, unpacked as one chunk into `buffers`.
    static func unpack(_ run: ArraySlice<PartitionChunk>, rows n: Int, into buffers: inout UnpackBuffers) -> Chunk {
        guard let first = run.first?.packed else { return Chunk(columns: [], count: 0) }
        let types = first.types, doubles = first.doubles
        let width = types.count
        if buffers.ints.count < width { buffers.ints += Array(repeating: [], count: width - buffers.ints.count) }
        if buffers.doubles.count < width { buffers.doubles += Array(repeating: [], count: width - buffers.doubles.count) }
        for j in 0..<width {
            if doubles[j] { UnpackBuffers.resize(&buffers.doubles[j], to: n, 0) } else { UnpackBuffers.resize(&buffers.ints[j], to: n, 0) }
        }
        var at = 0
        for entry in run {
            guard let p = entry.packed else { continue }
            let m = min(p.count, n - at)
            var narrowFrom = p.narrow, wideFrom = p.wide
            for j in 0..<width {
                if let base = p.base(j) {
                    let src = narrowFrom
                    buffers.ints[j].withUnsafeMutableBufferPointer { out in
                        for i in 0..<m { out[at &+ i] = base &+ Int64(src[i]) }
                    }
                    narrowFrom += p.count
                } else if doubles[j] {
                    let src = wideFrom
                    buffers.doubles[j].withUnsafeMutableBufferPointer { out in
                        for i in 0..<m { out[at &+ i] = Double(bitPattern: src[i]) }
                    }
                    wideFrom += p.count
                } else {
                    let src = wideFrom
                    buffers.ints[j].withUnsafeMutableBufferPointer { out in
                        for i in 0..<m { out[at &+ i] = Int64(bitPattern: src[i]) }
                    }
                    wideFrom += p.count
                }
            }
            at += m
        }
        var columns: [Vector] = []
        columns.reserveCapacity(width)
        for j in 0..<width {
            columns.append(Vector(type: types[j], data: doubles[j] ? .double(buffers.doubles[j]) : .int64(buffers.ints[j])))
        }
        return Chunk(columns: columns, count: n)
    }
}

/// The buffers a partition's packed chunks are unpacked into (`PartitionChunk.unpack`),
/// per column, kept from one chunk to the next: once the chunk made from them is let go
/// they are written over in place, with no allocation (a chunk still held keeps its own
/// values: the arrays are copied on write).
struct UnpackBuffers {
    fileprivate var ints: [[Int64]] = []
    fileprivate var doubles: [[Double]] = []

    /// `a` with `n` elements, its capacity kept.
    @inline(__always)
    fileprivate static func resize<T>(_ a: inout [T], to n: Int, _ zero: T) {
        if a.count > n { a.removeLast(a.count - n) } else { growArray(&a, to: n, zero) }
    }
}

/// Rows of 64-bit integer and DOUBLE columns without NULLs, packed (`PartitionChunk`):
/// each integer column whose values span less than 2^32 as 32-bit offsets from its
/// smallest value, the others as their 64 bits.
///
/// One allocation holds its values (the bases, then the 64-bit columns, then the 32-bit
/// ones, each `count` values in column order), where three arrays did: TPC-H Q18 at
/// SF 10 seals 58 K of these a slice. A class: a partition's reader copies its chunks'
/// forms, and a copy of a struct of arrays retained each of them (1% of Q18's samples
/// at SF 10). Immutable once made.
final class PackedRows: @unchecked Sendable {
    let count: Int
    let types: [DataType]
    let doubles: [Bool]
    /// Bit j: column j is held as 32-bit offsets (columns past the 64th are kept wide).
    private let narrowMask: UInt64
    private let narrowCount: Int
    private let storage: UnsafeMutableRawPointer
    private let byteCount: Int

    var memoryBytes: Int { 64 + byteCount }
    /// Columns held as 32-bit offsets (tests read it).
    var narrowColumnCount: Int { narrowCount }

    /// Whether `other` has the same columns, of the same types (the rows of both can be
    /// unpacked into one chunk).
    func sameLayout(as other: PackedRows) -> Bool { types == other.types && doubles == other.doubles }

    /// The base column `j`'s 32-bit offsets are added to, or nil when it is kept as 64 bits.
    @inline(__always)
    func base(_ j: Int) -> Int64? {
        guard j < 64, narrowMask & (1 << UInt64(j)) != 0 else { return nil }
        return storage.load(fromByteOffset: j * 8, as: Int64.self)
    }

    /// The 64-bit columns' values, `count` each in column order (a DOUBLE's bits).
    var wide: UnsafePointer<UInt64> {
        UnsafePointer((storage + types.count * 8).assumingMemoryBound(to: UInt64.self))
    }

    /// The 32-bit columns' offsets, `count` each in column order.
    var narrow: UnsafePointer<UInt32> {
        UnsafePointer((storage + types.count * 8 + (types.count - narrowCount) * count * 8)
            .assumingMemoryBound(to: UInt32.self))
    }

    /// Pack the `count` values of each column at `columns[j]` (64-bit slots).
    convenience init(_ columns: [UnsafePointer<UInt64>], count n: Int, types: [DataType], doubles: [Bool]) {
        self.init(count: n, types: types, doubles: doubles) { columns[$0] }
    }

    /// Pack the `count` values of each column at `columns[j] + offset`.
    convenience init(_ columns: [UnsafeMutablePointer<UInt64>], offset: Int, count n: Int, types: [DataType],
                     doubles: [Bool]) {
        self.init(count: n, types: types, doubles: doubles) { UnsafePointer(columns[$0] + offset) }
    }

    private init(count n: Int, types: [DataType], doubles: [Bool], column: (Int) -> UnsafePointer<UInt64>) {
        count = n
        self.types = types
        self.doubles = doubles
        let width = types.count
        // Which columns narrow, and their bases (held here until the storage exists).
        var mask: UInt64 = 0
        var lows = [Int64](repeating: 0, count: min(width, 64))
        for j in 0..<min(width, 64) where j < doubles.count && !doubles[j] && n > 0 {
            let c = column(j)
            var lo = Int64(bitPattern: c[0]), hi = lo
            for i in 1..<n {
                let v = Int64(bitPattern: c[i])
                lo = v < lo ? v : lo
                hi = v > hi ? v : hi
            }
            let (span, overflow) = hi.subtractingReportingOverflow(lo)
            if !overflow && span <= Int64(UInt32.max) {
                mask |= 1 << UInt64(j)
                lows[j] = lo
            }
        }
        let narrowColumns = mask.nonzeroBitCount
        narrowMask = mask
        narrowCount = narrowColumns
        byteCount = width * 8 + (width - narrowColumns) * n * 8 + narrowColumns * n * 4
        storage = .allocate(byteCount: max(byteCount, 8), alignment: 8)
        for j in 0..<width { storage.storeBytes(of: j < lows.count ? lows[j] : 0, toByteOffset: j * 8, as: Int64.self) }
        var wideTo = (storage + width * 8).assumingMemoryBound(to: UInt64.self)
        var narrowTo = (storage + width * 8 + (width - narrowColumns) * n * 8).assumingMemoryBound(to: UInt32.self)
        for j in 0..<width {
            let c = column(j)
            if j < 64, mask & (1 << UInt64(j)) != 0 {
                let b = UInt64(bitPattern: lows[j])
                for i in 0..<n { narrowTo[i] = UInt32(truncatingIfNeeded: c[i] &- b) }
                narrowTo += n
            } else {
                wideTo.update(from: c, count: n)
                wideTo += n
            }
        }
    }

    deinit { storage.deallocate() }

    /// The rows as a chunk of new vectors.
    func chunk() -> Chunk {
        var columns: [Vector] = []
        columns.reserveCapacity(types.count)
        let n = count
        var narrowFrom = narrow, wideFrom = wide
        for j in types.indices {
            if let base = base(j) {
                let from = narrowFrom
                let values = [Int64].building(capacity: n, placeholder: 0) { out, made in
                    guard let to = out.baseAddress else { return }
                    for i in 0..<n { to[i] = base &+ Int64(from[i]) }
                    made = n
                }
                narrowFrom += n
                columns.append(Vector(type: types[j], data: .int64(values)))
            } else {
                let slice = UnsafeBufferPointer(start: wideFrom, count: n)
                wideFrom += n
                let data: VectorData = doubles[j]
                    ? .double(slice.map { Double(bitPattern: $0) })
                    : .int64(slice.map { Int64(bitPattern: $0) })
                columns.append(Vector(type: types[j], data: data))
            }
        }
        return Chunk(columns: columns, count: n)
    }
}

/// Splits chunks among `fanOut` partitions held in memory by the hash of their key
/// columns: a hash aggregate whose table has outgrown the caches splits the rest of its
/// input so that each partition's table, aggregated on its own afterwards, is a
/// sixty-fourth of the size (radix partitioning).
///
/// A key's partition at level L is the 4 bits a `SpillPartitioner` of level L reads
/// (bits `32 + 4L ..< 36 + 4L` of the remixed key hash), and above them 2 bits of their
/// own (`24 + 2L ..< 26 + 2L`, which no spill level reads): the rows of memory partition
/// p all belong in spill partition `p % 16` of the same level (`drain`), and a partition
/// split again, in memory or to spill files, is split by bits its own level did not use.
///
/// Rows reach their partitions one of two ways:
/// - *scattered* (`stage`): when every column is a 64-bit integer or DOUBLE without
///   NULLs, each row's values are written straight into its partition's staging rows,
///   one column at a time; a partition's staging rows are sealed into a chunk when full.
///   With a single 64-bit key (`scatterPlacing`), the loop that places a row writes its
///   values too.
///   Per input chunk that is one pass per column, instead of one call per partition and
///   column (a 2,048-row chunk gives each of 64 partitions about 32 rows, and the calls'
///   overhead was as large as the copying);
/// - *gathered*: other chunks are ordered by partition first (a counting sort), and each
///   partition's share is appended column by column to its open chunk.
/// The two never hold rows of one partition at once: switching from one to the other
/// seals what the first holds, so each partition's chunks stay in the order their rows
/// were added.
final class MemoryPartitioner {
    let level: Int
    /// Partitions a level splits into (6 bits of the hash).
    static let fanOut = 64
    /// The deepest level (its own bits are `30 ..< 32`).
    static let maxLevel = 3
    /// Rows a partition stages before they are sealed into a chunk.
    static let stageRows = 1024

    private let keyColumns: [Int]
    private var sealed: [[PartitionChunk]]
    private var sealedBytes: [Int]
    /// The sum of `sealedBytes`, and how many partitions have an open chunk: the bytes
    /// held are asked after every added chunk, and a loop over the partitions' arrays
    /// (retaining each) cost as much as the chunk's sealing.
    private var sealedTotal = 0
    private var openCount = 0
    /// Per partition: the open chunk's columns (empty: none open), rows and tag (gathered rows).
    private var open: [[Vector]]
    private var openRows: [Int]
    private var openStates: [Bool]
    /// Scattered rows: per column, `fanOut * stageRows` 64-bit slots (partition p's rows
    /// at `p * stageRows`), allocated for the columns' types in `stageTypes`.
    private var stage: [UnsafeMutablePointer<UInt64>] = []
    private var stageTypes: [DataType] = []
    /// Per column: whether its values are DOUBLEs (stored by their bits).
    private var stageDoubles: [Bool] = []
    /// Per partition: its staged rows.
    private var staged: [Int]
    /// Partitions holding staged rows.
    private var stagedCount = 0
    private var hashes: [UInt64] = []
    private var rowCache: [Int32] = []
    private var order: [Int32] = []
    private var partOf: [UInt8] = []
    /// Per partition, `sketchRegisters` HyperLogLog registers of its keys' hashes.
    private var sketches: [UInt8]
    static let sketchPrecision = 9
    static let sketchRegisters = 1 << sketchPrecision

    init(level: Int, keyColumns: [Int]) throws {
        guard level >= 0 && level <= Self.maxLevel else {
            throw SQLError.internalError("partitioning level \(level) out of range")
        }
        self.level = level
        self.keyColumns = keyColumns
        let f = Self.fanOut
        sealed = Array(repeating: [], count: f)
        sealedBytes = Array(repeating: 0, count: f)
        open = Array(repeating: [], count: f)
        openRows = Array(repeating: 0, count: f)
        openStates = Array(repeating: false, count: f)
        staged = Array(repeating: 0, count: f)
        sketches = [UInt8](filled: 0, count: f * Self.sketchRegisters)
    }

    deinit { releaseStage() }

    /// The partition at `level` of a row whose key hash (`KeyHashing`) is `keyHash`.
    @inline(__always)
    static func partition(_ keyHash: UInt64, level: Int) -> Int {
        partition(mixed: Hashing.hash(keyHash), level: level)
    }

    /// `partition(_:level:)` of the key hash whose remix (`Hashing.hash`) is `h`. Its
    /// bits 24 ..< 48 choose partitions, at one level or another; the rest is free.
    @inline(__always)
    static func partition(mixed h: UInt64, level: Int) -> Int {
        let spill = (h &>> UInt64(32 + 4 * level)) & 15
        let own = (h &>> UInt64(24 + 2 * level)) & 3
        return Int(truncatingIfNeeded: spill | own &<< 4)
    }

    /// Bits of the remixed hash a sketch's rank is read from (its trailing zeros, at
    /// most 23), below every partition bit; its register is read from the top bits,
    /// above them. So the key's one remix serves both, and the partition's rows, which
    /// share their partition bits, are sketched by bits they do not share.
    static let sketchRankBits = 23

    /// The register (within a partition's `sketchRegisters`) and rank of a key whose
    /// remixed hash is `h`.
    @inline(__always)
    static func sketchEntry(_ h: UInt64) -> (register: Int, rank: UInt8) {
        let register = Int(truncatingIfNeeded: h &>> UInt64(64 - sketchPrecision))
        let zeros = (h | 1 &<< UInt64(sketchRankBits)).trailingZeroBitCount
        return (register, UInt8(truncatingIfNeeded: zeros &+ 1))
    }

    /// Bytes held: the sealed chunks, the open ones' buffers and the staging rows.
    var memoryBytes: Int {
        var n = stage.count * Self.fanOut * Self.stageRows * 8 + sealedTotal
        if openCount > 0 {
            for p in 0..<Self.fanOut { for v in open[p] { n += v.memoryBytes } }
        }
        return n
    }

    /// Add the logical rows of `chunk` to their partitions.
    func add(_ chunk: Chunk, states: Bool) throws {
        let n = chunk.count
        if n == 0 { return }
        let fanOut = Self.fanOut
        let physical = chunk.physicalCount
        let rows = OperatorKernels.physicalRows(chunk, cache: &rowCache)
        for k in keyColumns where k < 0 || k >= chunk.columns.count {
            throw SQLError.internalError("partition key \(k) out of range")
        }
        let keys = keyColumns.map { OperatorKernels.flat(chunk.columns[$0], physicalCount: physical) }
        if !states, keys.count == 1, !keys[0].isConstant, keys[0].validity == nil, case .int64(let a) = keys[0].data,
           let columns = scatterable(chunk) {
            sealOpen()
            if scatterPlacing(key: a, columns: columns, rows: rows, identity: chunk.selection == nil, count: n) { return }
        }
        if partOf.count < n { partOf = [UInt8](filled: 0, count: n) }
        // Each row's partition, and its key in the partition's sketch. Pointers only
        // inside the loop: arrays captured by the closures would be checked on every row.
        let level = self.level
        let precision = Self.sketchPrecision
        partOf.withUnsafeMutableBufferPointer { po in
            sketches.withUnsafeMutableBufferPointer { sk in
                /// Row k's partition from its remixed key hash `x`.
                @inline(__always) func place(_ k: Int, _ x: UInt64) {
                    let p = Self.partition(mixed: x, level: level)
                    po[k] = UInt8(truncatingIfNeeded: p)
                    // The key's register in its partition's sketch. A register rarely
                    // rises once it has seen a few keys: stored only then, the loop's
                    // other rows write nothing.
                    let (register, rank) = Self.sketchEntry(x)
                    let reg = p &<< precision | register
                    if rank > sk[reg] { sk[reg] = rank }
                }
                if keys.count == 1, !keys[0].isConstant, keys[0].validity == nil, case .int64(let a) = keys[0].data {
                    // One 64-bit key without NULLs: its hash (`KeyHashing`'s for one
                    // column) and the remix in the same loop, no array of hashes between.
                    a.withUnsafeBufferPointer { vp in
                        rows.withUnsafeBufferPointer { rw in
                            for k in 0..<n { place(k, Hashing.hash(Hashing.hash(vp[Int(rw[k])]))) }
                        }
                    }
                } else {
                    KeyHashing.hash(keys, rows: rows, into: &hashes)
                    hashes.withUnsafeBufferPointer { h in
                        for k in 0..<n { place(k, Hashing.hash(h[k])) }
                    }
                }
            }
        }
        if !states, let columns = scatterable(chunk) {
            sealOpen()
            scatter(columns, rows: rows, count: n)
            return
        }
        sealStaged()
        // The chunk's rows ordered by partition (a counting sort).
        var start = [Int](repeating: 0, count: fanOut + 1)
        order = [Int32](filled: 0, count: n)
        rows.withUnsafeBufferPointer { r in
            order.withUnsafeMutableBufferPointer { o in
                start.withUnsafeMutableBufferPointer { st in
                    partOf.withUnsafeBufferPointer { po in
                        withUnsafeTemporaryAllocation(of: Int.self, capacity: fanOut) { fill in
                            for k in 0..<n { st[Int(po[k]) &+ 1] &+= 1 }
                            for p in 0..<fanOut {
                                st[p &+ 1] &+= st[p]
                                fill[p] = st[p]
                            }
                            for k in 0..<n {
                                let p = Int(po[k])
                                o[fill[p]] = r[k]
                                fill[p] &+= 1
                            }
                        }
                    }
                }
            }
        }
        for p in 0..<fanOut where start[p + 1] > start[p] {
            var from = start[p]
            let end = start[p + 1]
            while from < end {
                if !open[p].isEmpty && (openStates[p] != states || open[p].count != chunk.columns.count) {
                    seal(p)
                }
                if open[p].isEmpty {
                    open[p] = chunk.columns.map { Vector(type: $0.type, capacity: Chunk.capacity) }
                    openCount += 1
                    openStates[p] = states
                }
                let take = min(end - from, Chunk.capacity - openRows[p])
                var columns = open[p]
                open[p] = []
                order.withUnsafeBufferPointer { o in
                    let picked = UnsafeBufferPointer(rebasing: o[from..<(from + take)])
                    for j in columns.indices { columns[j].append(gathering: picked, from: chunk.columns[j]) }
                }
                open[p] = columns
                openRows[p] += take
                from += take
                if openRows[p] >= Chunk.capacity { seal(p) }
            }
        }
    }

    // MARK: Scattered rows

    /// The columns of `chunk` as 64-bit buffers, when each is a non-constant 64-bit integer
    /// or DOUBLE column without NULLs (nil otherwise). A change of the columns' types seals
    /// the staged rows first.
    private func scatterable(_ chunk: Chunk) -> [VectorData]? {
        var doubles: [Bool] = []
        doubles.reserveCapacity(chunk.columns.count)
        for v in chunk.columns {
            guard !v.isConstant, v.validity == nil else { return nil }
            switch v.data {
            case .int64: doubles.append(false)
            case .double: doubles.append(true)
            default: return nil
            }
        }
        let types = chunk.columns.map { $0.type }
        if types != stageTypes || doubles != stageDoubles {
            sealStaged()
            releaseStage()
            stageTypes = types
            stageDoubles = doubles
            stage = types.map { _ in .allocate(capacity: Self.fanOut * Self.stageRows) }
        }
        return chunk.columns.map { $0.data }
    }

    /// Place the rows `rows[0..<count]` and write their values into their partitions'
    /// staging rows in one loop, when the key is the single 64-bit column `key` without
    /// NULLs: each row's partition and sketch entry from its key's hash (as `add`'s loop),
    /// then its value of every column straight into the partition's next staging row. A
    /// partition whose staging rows are full is sealed before its next row. No `partOf`
    /// between, no window counts or slot array: at TPC-H SF 10 (Q18's subquery, 57 M rows
    /// split) the separate passes took 66 instructions a row and this loop takes 58
    /// (callgrind). `identity`: `rows[k] == k`. False (nothing placed) when the partitioner
    /// or a column's buffer is not as expected; the caller then takes the separate passes.
    private func scatterPlacing(key a: [Int64], columns: [VectorData], rows: [Int32], identity: Bool,
                                count n: Int) -> Bool {
        let dst = stage
        guard dst.count == columns.count, staged.count == Self.fanOut,
              sketches.count == Self.fanOut * Self.sketchRegisters, identity || rows.count >= n else { return false }
        return Self.withSources(columns) { src -> Bool in
            guard src.count == columns.count else { return false }
            let level = self.level
            // The buffers' addresses are taken once for the chunk, not again after each
            // sealed partition (each closure of the chain retains what it captures).
            return staged.withUnsafeMutableBufferPointer { st in
                sketches.withUnsafeMutableBufferPointer { sk in
                    a.withUnsafeBufferPointer { vp in
                        rows.withUnsafeBufferPointer { rw in
                            func go<W: StagingWriter>(_ w: W) -> Bool {
                                var k = 0
                                while k < n {
                                    let placed = identity
                                        ? Self.place(from: k, to: n, keys: vp, rows: IdentityRows(), writer: w, staged: st,
                                                     sketches: sk, level: level)
                                        : Self.place(from: k, to: n, keys: vp, rows: SelectedRows(rows: rw), writer: w,
                                                     staged: st, sketches: sk, level: level)
                                    k = placed.next
                                    stagedCount += placed.newlyStaged
                                    if placed.full >= 0 { sealStaged(placed.full, staged: st) }
                                }
                                return true
                            }
                            switch src.count {
                            case 1: return go(StagingWriter1(s0: src[0], d0: dst[0]))
                            case 2: return go(StagingWriter2(s0: src[0], s1: src[1], d0: dst[0], d1: dst[1]))
                            case 3: return go(StagingWriter3(s0: src[0], s1: src[1], s2: src[2],
                                                             d0: dst[0], d1: dst[1], d2: dst[2]))
                            default: return go(StagingWriterN(sources: src, destinations: dst))
                            }
                        }
                    }
                }
            }
        }
    }

    /// `scatterPlacing`'s loop: rows `k` from `from` on, each placed by its key's hash,
    /// sketched and written to its partition's next staging row, until one's partition
    /// has no room (`full`, the row not placed; -1 when every row was). Returns the next
    /// row and how many partitions got their first staged row.
    @inline(__always)
    private static func place<R: RowSource, W: StagingWriter>(
        from: Int, to n: Int, keys vp: UnsafeBufferPointer<Int64>, rows: R, writer: W,
        staged st: UnsafeMutableBufferPointer<Int>, sketches sk: UnsafeMutableBufferPointer<UInt8>, level: Int
    ) -> (next: Int, full: Int, newlyStaged: Int) {
        let cap = stageRows
        var newly = 0
        var k = from
        while k < n {
            let r = rows[k]
            let x = Hashing.hash(Hashing.hash(vp[r]))
            let p = partition(mixed: x, level: level)
            let at = st[p]
            if at == cap { return (k, p, newly) }
            let (register, rank) = sketchEntry(x)
            let reg = p &<< sketchPrecision | register
            if rank > sk[reg] { sk[reg] = rank }
            if at == 0 { newly &+= 1 }
            st[p] = at &+ 1
            writer.write(p &* cap &+ at, r)
            k &+= 1
        }
        return (k, -1, newly)
    }

    /// `body` with the addresses of `columns`' 64-bit buffers (a DOUBLE's by its bits);
    /// fewer addresses than columns when one has none (an empty buffer). Up to three
    /// columns without recursing: each level of the recursion copied the columns it
    /// was handed, and that was the most of what adding a chunk retained.
    private static func withSources<R>(_ columns: [VectorData], _ body: ([UnsafePointer<UInt64>]) -> R) -> R {
        switch columns.count {
        case 1:
            return withSource(columns[0]) { s0 in body(s0.map { [$0] } ?? []) }
        case 2:
            return withSource(columns[0]) { s0 in
                withSource(columns[1]) { s1 in
                    guard let s0, let s1 else { return body([]) }
                    return body([s0, s1])
                }
            }
        case 3:
            return withSource(columns[0]) { s0 in
                withSource(columns[1]) { s1 in
                    withSource(columns[2]) { s2 in
                        guard let s0, let s1, let s2 else { return body([]) }
                        return body([s0, s1, s2])
                    }
                }
            }
        default:
            return withSources(columns, from: 0, [], body)
        }
    }

    /// `body` with the address of one column's 64-bit buffer (nil: none).
    @inline(__always)
    private static func withSource<R>(_ column: VectorData, _ body: (UnsafePointer<UInt64>?) -> R) -> R {
        switch column {
        case .int64(let a): return a.withUnsafeBufferPointer { $0.withMemoryRebound(to: UInt64.self) { body($0.baseAddress) } }
        case .double(let a): return a.withUnsafeBufferPointer { $0.withMemoryRebound(to: UInt64.self) { body($0.baseAddress) } }
        default: return body(nil)
        }
    }

    /// `withSources` for any number of columns, one level of recursion a column.
    private static func withSources<R>(_ columns: [VectorData], from j: Int, _ held: [UnsafePointer<UInt64>],
                                       _ body: ([UnsafePointer<UInt64>]) -> R) -> R {
        guard j < columns.count else { return body(held) }
        func next(_ p: UnsafeBufferPointer<UInt64>) -> R {
            guard let base = p.baseAddress else { return body(held) }
            return withSources(columns, from: j + 1, held + [base], body)
        }
        switch columns[j] {
        case .int64(let a): return a.withUnsafeBufferPointer { $0.withMemoryRebound(to: UInt64.self) { next($0) } }
        case .double(let a): return a.withUnsafeBufferPointer { $0.withMemoryRebound(to: UInt64.self) { next($0) } }
        default: return body(held)
        }
    }

    /// Write the rows `rows[0..<count]` of `columns` into their partitions' staging rows
    /// (`partOf` holds each row's partition), in windows of at most `stageRows` rows: before
    /// a window, each partition without room for its rows in it is sealed.
    private func scatter(_ columns: [VectorData], rows: [Int32], count n: Int) {
        let fanOut = Self.fanOut, cap = Self.stageRows
        var lo = 0
        while lo < n {
            let hi = min(n, lo + cap)
            var slots = [Int32](filled: 0, count: hi - lo)
            withUnsafeTemporaryAllocation(of: Int.self, capacity: fanOut) { want in
                want.initialize(repeating: 0)
                partOf.withUnsafeBufferPointer { po in
                    for k in lo..<hi { want[Int(po[k])] &+= 1 }
                }
                for p in 0..<fanOut where want[p] > 0 && staged[p] + want[p] > cap { sealStaged(p) }
                // Each row's slot in its partition's staging rows.
                staged.withUnsafeMutableBufferPointer { st in
                    partOf.withUnsafeBufferPointer { po in
                        slots.withUnsafeMutableBufferPointer { sl in
                            for k in lo..<hi {
                                let p = Int(po[k])
                                if st[p] == 0 { stagedCount &+= 1 }
                                sl[k &- lo] = Int32(truncatingIfNeeded: p &* cap &+ st[p])
                                st[p] &+= 1
                            }
                        }
                    }
                }
            }
            for (j, data) in columns.enumerated() {
                let dst = stage[j]
                switch data {
                case .int64(let a):
                    a.withUnsafeBufferPointer { src in
                        src.withMemoryRebound(to: UInt64.self) { Self.scatter($0, rows, lo..<hi, slots, into: dst) }
                    }
                case .double(let a):
                    a.withUnsafeBufferPointer { src in
                        src.withMemoryRebound(to: UInt64.self) { Self.scatter($0, rows, lo..<hi, slots, into: dst) }
                    }
                default:
                    break  // `scatterable` admits only the two above
                }
            }
            lo = hi
        }
    }

    @inline(__always)
    private static func scatter(_ src: UnsafeBufferPointer<UInt64>, _ rows: [Int32], _ range: Range<Int>,
                                _ slots: [Int32], into dst: UnsafeMutablePointer<UInt64>) {
        rows.withUnsafeBufferPointer { r in
            slots.withUnsafeBufferPointer { sl in
                for k in range { dst[Int(sl[k &- range.lowerBound])] = src[Int(r[k])] }
            }
        }
    }

    /// Seal partition p's staged rows into a chunk.
    private func sealStaged(_ p: Int) {
        staged.withUnsafeMutableBufferPointer { sealStaged(p, staged: $0) }
    }

    /// `sealStaged(_:)` with the staged counts at `st` (`staged`'s buffer, held by the caller).
    private func sealStaged(_ p: Int, staged st: UnsafeMutableBufferPointer<Int>) {
        let n = st[p]
        guard n > 0 else { return }
        let rows = PackedRows(stage, offset: p * Self.stageRows, count: n, types: stageTypes, doubles: stageDoubles)
        sealed[p].append(PartitionChunk(packed: rows))
        sealedBytes[p] += rows.memoryBytes
        sealedTotal += rows.memoryBytes
        st[p] = 0
        stagedCount -= 1
    }

    /// Seal every partition's staged rows.
    private func sealStaged() {
        guard stagedCount > 0 else { return }
        for p in 0..<Self.fanOut { sealStaged(p) }
    }

    private func releaseStage() {
        for s in stage { s.deallocate() }
        stage = []
        stageTypes = []
        stageDoubles = []
    }

    // MARK: Gathered rows

    private func seal(_ p: Int) {
        guard !open[p].isEmpty else { return }
        let chunk = Chunk(columns: open[p], count: openRows[p])
        sealed[p].append(PartitionChunk(chunk, states: openStates[p]))
        sealedBytes[p] += chunk.memoryBytes
        sealedTotal += chunk.memoryBytes
        open[p] = []
        openRows[p] = 0
        openCount -= 1
    }

    /// Seal every partition's open chunk.
    private func sealOpen() {
        guard openCount > 0 else { return }
        for p in 0..<Self.fanOut where !open[p].isEmpty { seal(p) }
    }

    /// The partitions that got rows, in partition order; the partitioner is left empty.
    func finish() -> [MemoryPartition] {
        sealStaged()
        releaseStage()
        var out: [MemoryPartition] = []
        for p in 0..<Self.fanOut {
            seal(p)
            if !sealed[p].isEmpty {
                let registers = p * Self.sketchRegisters..<(p + 1) * Self.sketchRegisters
                let groups = sketches.withUnsafeBufferPointer { sk in
                    HyperLogLog.estimate(UnsafeBufferPointer(rebasing: sk[registers]), rankBits: Self.sketchRankBits)
                }
                out.append(MemoryPartition(chunks: sealed[p], level: level, bytes: sealedBytes[p],
                                           groups: groups.isFinite ? Int(groups.rounded()) : 0))
            }
            sealed[p] = []
            sealedBytes[p] = 0
        }
        sealedTotal = 0
        sketches = [UInt8](filled: 0, count: Self.fanOut * Self.sketchRegisters)
        return out
    }

    /// Write everything held to `partitioner` (of the same level: each partition's rows
    /// land in the file numbered by its low 4 bits) and empty this one.
    func drain(into partitioner: SpillPartitioner) throws {
        for part in finish() {
            for entry in part.chunks { try partitioner.add(entry.unpacked(), states: entry.states) }
        }
    }
}

/// Where `MemoryPartitioner`'s placing loop reads a logical row's physical row.
protocol RowSource {
    subscript(_ k: Int) -> Int { get }
}

/// No selection: logical row k is physical row k.
struct IdentityRows: RowSource {
    @inline(__always) subscript(_ k: Int) -> Int { k }
}

/// A selection's physical rows.
struct SelectedRows: RowSource {
    let rows: UnsafeBufferPointer<Int32>
    @inline(__always) subscript(_ k: Int) -> Int { Int(rows[k]) }
}

/// Writes a row's 64-bit values into staging slot `slot` (`MemoryPartitioner`), one
/// type per column count so the placing loop keeps its pointers in registers.
protocol StagingWriter {
    func write(_ slot: Int, _ row: Int)
}

struct StagingWriter1: StagingWriter {
    let s0: UnsafePointer<UInt64>, d0: UnsafeMutablePointer<UInt64>
    @inline(__always) func write(_ slot: Int, _ row: Int) { d0[slot] = s0[row] }
}

struct StagingWriter2: StagingWriter {
    let s0: UnsafePointer<UInt64>, s1: UnsafePointer<UInt64>
    let d0: UnsafeMutablePointer<UInt64>, d1: UnsafeMutablePointer<UInt64>
    @inline(__always) func write(_ slot: Int, _ row: Int) {
        d0[slot] = s0[row]
        d1[slot] = s1[row]
    }
}

struct StagingWriter3: StagingWriter {
    let s0: UnsafePointer<UInt64>, s1: UnsafePointer<UInt64>, s2: UnsafePointer<UInt64>
    let d0: UnsafeMutablePointer<UInt64>, d1: UnsafeMutablePointer<UInt64>, d2: UnsafeMutablePointer<UInt64>
    @inline(__always) func write(_ slot: Int, _ row: Int) {
        d0[slot] = s0[row]
        d1[slot] = s1[row]
        d2[slot] = s2[row]
    }
}

struct StagingWriterN: StagingWriter {
    let sources: [UnsafePointer<UInt64>]
    let destinations: [UnsafeMutablePointer<UInt64>]
    @inline(__always) func write(_ slot: Int, _ row: Int) {
        for j in sources.indices { destinations[j][slot] = sources[j][row] }
    }
}
