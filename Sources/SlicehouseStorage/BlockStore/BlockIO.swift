// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlatform

/// An immutable file of encoded blocks (one per table, slice and commit), opened
/// on first read and read with `pread` from any thread.
public final class BlockFile: @unchecked Sendable {
    /// Path relative to the database directory (as the manifest names it).
    public let name: String
    public let path: String
    private var fd: Int32 = -1
    private let lock = Lock()

    public init(name: String, directory: String) {
        self.name = name
        self.path = (directory as NSString).appendingPathComponent(name)
    }

    deinit { if fd >= 0 { close(fd) } }

    public func read(offset: Int, length: Int) throws -> [UInt8] {
        let f: Int32 = try lock.withLock {
            if fd < 0 {
                fd = open(path, O_RDONLY | O_CLOEXEC)
                if fd < 0 { throw SQLError(.ioError, "could not open block file \"\(path)\": \(String(cString: strerror(errno)))") }
            }
            return fd
        }
        // Check the extent against the file before allocating for it: a damaged length must
        // be an error, not a gigabyte allocation or a trap.
        var st = stat()
        guard offset >= 0, length >= 0, offset <= Int.max - length, fstat(f, &st) == 0, offset + length <= Int(st.st_size) else {
            throw SQLError(.ioError, "block file \"\(path)\" is truncated (wanted \(length) bytes at \(offset))")
        }
        // Read straight into the array's fresh storage: zeroing it first would write every
        // byte once more, for nothing.
        return try [UInt8].building(capacity: length, placeholder: 0) { buf, initialized in
            var done = 0
            defer { initialized = done }
            guard let base = buf.baseAddress else { return }
            while done < length {
                let n = pread(f, base + done, length - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SQLError(.ioError, "could not read block file \"\(path)\": \(String(cString: strerror(errno)))")
                }
                if n == 0 { throw SQLError(.ioError, "block file \"\(path)\" is truncated (wanted \(length) bytes at \(offset))") }
                done += n
            }
        }
    }
}

/// A decoded block cut into pieces at the slice's multiples of `Chunk.capacity` rows (and
/// at the block's own ends): piece 0 runs from the block's first row to the next
/// multiple, every later piece starts at one. A scan whose chunks keep to the same
/// multiples gets each chunk as a whole piece, handed on without copying, however many
/// times the cached block is read. A block decoded for one read only is not cut (one
/// piece): its chunks are copied out of it, or only their filtered rows gathered, as
/// cutting it would copy all of it once more.
public struct DecodedBlock: Sendable {
    /// The slice row of the block's first value.
    public let firstRow: Int
    public let pieces: [Vector]
    /// The slice row where piece 1 starts.
    private let secondStart: Int

    /// `v`, the values of the block starting at slice row `firstRow`, cut into pieces, or
    /// kept whole when not `cut`.
    public init(_ v: Vector, firstRow: Int, cut: Bool = true) {
        let c = Chunk.capacity
        self.firstRow = firstRow
        guard cut else {
            pieces = [v]
            secondStart = Int.max
            return
        }
        secondStart = (firstRow / c + 1) * c
        let n = v.count
        var pieces: [Vector] = []
        pieces.reserveCapacity(n / c + 2)
        var start = 0
        var end = min(n, secondStart - firstRow)
        while start < n || pieces.isEmpty {
            pieces.append(v.slice(start, end - start))
            start = end
            end = min(n, end + c)
        }
        self.pieces = pieces
    }

    /// Pieces already cut (a `CompactBlock` widened again).
    init(pieces: [Vector], firstRow: Int, secondStart: Int) {
        self.pieces = pieces
        self.firstRow = firstRow
        self.secondStart = pieces.count > 1 ? secondStart : max(secondStart, firstRow + (pieces.first?.count ?? 0))
    }

    /// The piece holding slice row `row` (of this block) and the row's offset in it.
    @inline(__always)
    public func piece(containing row: Int) -> (vector: Vector, offset: Int) {
        if row < secondStart { return (pieces[0], row - firstRow) }
        let i = 1 + (row - secondStart) / Chunk.capacity
        return (pieces[i], (row - secondStart) % Chunk.capacity)
    }

    /// The whole block as one vector (a copy unless it is one piece).
    public func joined() -> Vector {
        guard var v = pieces.first else { return Vector(type: .bigint, data: .int64([])) }
        for p in pieces.dropFirst() { v.append(p) }
        return v
    }

    public var count: Int { pieces.reduce(0) { $0 + $1.count } }
}

/// A block as a scan reads it: decoded (cached, or decoded whole for this read), or
/// streamed, one piece at a time as the scan reaches it (`StreamedBlock`).
public enum ScanBlock {
    case decoded(DecodedBlock)
    case streamed(StreamedBlock)
    /// Kept by the cache with narrow integers, widened a piece at a time (`CompactBlock`).
    case compact(CompactReader)

    /// The piece holding slice row `row` (of this block) and the row's offset in it.
    @inline(__always)
    public func piece(containing row: Int) throws -> (vector: Vector, offset: Int) {
        switch self {
        case .decoded(let d): return d.piece(containing: row)
        case .streamed(let s): return try s.piece(containing: row)
        case .compact(let c): return c.piece(containing: row)
        }
    }
}

/// A block read once (not kept by the cache) whose encoding decodes in ranges
/// (`BlockStream`): its pieces, cut as `DecodedBlock` cuts them, are decoded one at a
/// time when a scan asks for a row in them, each into its own array. Nothing is copied out of a decoded
/// whole, a piece is decoded while the scan is about to use it, and pieces the scan
/// passes over (its filters emptied them) are skipped. Used by one scan, in row order
/// (asking for an earlier piece starts the decoding again).
public final class StreamedBlock {
    public let firstRow: Int
    public let rowCount: Int
    private let type: DataType
    private var stream: BlockStream
    /// The piece decoded last: its index, first slice row and values.
    private var index = -1
    private var start = 0
    private var piece = Vector(type: .bigint, data: .int64([]))

    public init(_ stream: BlockStream, firstRow: Int, type: DataType) {
        self.stream = stream
        self.firstRow = firstRow
        self.rowCount = stream.count
        self.type = type
    }

    /// The values of slice rows `first + rows[i]` (all in this block), read without
    /// decoding their pieces when the encoding allows it — BYTEDICT strings without
    /// escapes, each row's string taken from its code — else nil. The scan takes this
    /// for the few rows its filters kept of a range: decoding the range's 2,048 strings to
    /// keep a hundred was most of a cold Q19.
    ///
    /// AZ64 integers, rows `first ..< end` of which `rows` are wanted: the frame-of-
    /// reference groups within those rows are not unpacked, only the wanted values taken
    /// from their bits (`AZ64Stream.gather`). nil when the piece holding the rows is the one
    /// decoded last (the caller takes them from it).
    public func gather(_ rows: [Int32], first: Int, end: Int) throws -> Vector? {
        switch stream {
        case .dictionary(let s):
            return try s.gather(rows, offset: first - firstRow).map { Vector(type: type, data: .string($0)) }
        case .az64(var s):
            guard first >= firstRow, end <= firstRow + rowCount, first <= end else {
                throw SQLError.internalError("rows \(first)..<\(end) are not in the block of rows \(firstRow)..<\(firstRow + rowCount)")
            }
            let c = Chunk.capacity
            let secondStart = (firstRow / c + 1) * c
            if index == (first < secondStart ? 0 : 1 + (first - secondStart) / c) { return nil }
            stream = .strings(StringStream.empty)   // keeps `s` uniquely referenced
            defer { stream = .az64(s) }
            let at = first - firstRow
            if at < s.position { s.rewind() }
            let values = try rows.withUnsafeBufferPointer { try s.gather($0, at: at, end: end - firstRow) }
            return Vector(type: type, data: .int64(values))
        case .strings:
            return nil
        }
    }

    public func piece(containing row: Int) throws -> (vector: Vector, offset: Int) {
        guard row >= firstRow, row < firstRow + rowCount else {
            throw SQLError.internalError("row \(row) is not in the block of rows \(firstRow)..<\(firstRow + rowCount)")
        }
        let c = Chunk.capacity
        let secondStart = (firstRow / c + 1) * c
        let i = row < secondStart ? 0 : 1 + (row - secondStart) / c
        if i != index {
            let from = i == 0 ? firstRow : secondStart + (i - 1) * c
            let to = min(firstRow + rowCount, i == 0 ? secondStart : from + c)
            let at = from - firstRow
            if at < stream.position { stream.rewind() }
            if at > stream.position { try stream.skip(at - stream.position) }
            piece = try stream.read(to - from, type: type)
            index = i
            start = from
        }
        return (piece, row - start)
    }
}

/// Process-wide unique block ids (keys of the decoded-block cache).
public enum BlockIDs {
    nonisolated(unsafe) private static var next: UInt64 = 1
    private static let lock = Lock()
    public static func make() -> UInt64 { lock.withLock { next += 1; return next } }
}

/// Decoded blocks, most recently used kept, bounded by bytes. Scans of warm data
/// decode nothing; a table bigger than the budget streams through it.
///
/// A block is kept from its second decoding on, by a later statement than the first
/// (admission on the second touch, as 2Q and LRU-2 admit): a statement that reads a
/// table once — in a fresh process, a one-off query, a table bigger than the cache —
/// or twice (a self-join, a correlated subquery) decodes into memory that is freed and
/// reused as the scan moves on, instead of filling the cache with blocks nobody reads
/// again (and faulting in fresh pages for all of them, which made a bigger cache
/// slower). Blocks a later statement reads again are decoded once more and kept. Which
/// blocks were decoded once, and in which statement, is remembered by id only, for at
/// most `maxRemembered` blocks; `beginStatement()` marks where statements begin.
///
/// With a `MemoryPool`, what the cache holds counts in the database's memory like what
/// queries hold: an entry is kept only if the pool has room for it, after the cache has
/// given up its own oldest entries if need be, so the cache yields to queries instead of
/// pushing them into spilling.
public final class BlockCache: @unchecked Sendable {
    /// The most the cache keeps, as configured.
    public let configuredCapacity: Int
    /// When set, the cache keeps at most this fraction of its pool's limit (1/4: a
    /// database limited with `--memory` keeps three quarters for its queries), also after
    /// the limit changes.
    private let poolShare: Int?
    /// A kept block: as decoded, or with its integers narrowed (`CompactBlock`).
    private enum Entry {
        case decoded(DecodedBlock)
        case compact(CompactBlock)
    }
    private var entries: [UInt64: (block: Entry, bytes: Int, tick: UInt64)] = [:]
    /// Blocks decoded and not kept, with the statement (`epoch`) that decoded them: a
    /// decoding by a later statement keeps them.
    private var decodedOnce: [UInt64: UInt64] = [:]
    private var epoch: UInt64 = 0
    /// The most blocks `decodedOnce` remembers; beyond it, it starts over.
    static let maxRemembered = 1 << 18
    private var used = 0
    private var tick: UInt64 = 0
    private let lock = Lock()
    private let pool: MemoryPool?

    public init(capacityBytes: Int, pool: MemoryPool? = nil, poolShare: Int? = nil) {
        configuredCapacity = capacityBytes
        self.poolShare = poolShare
        self.pool = pool
        pool?.addReclaimer { [weak self] bytes in self?.giveBack(bytes) }
    }

    /// Drop the oldest entries holding about `bytes` (the pool needs them for a query).
    func giveBack(_ bytes: Int) {
        lock.withLock { evict(downTo: max(0, used - bytes)) }
    }

    /// The most the cache keeps now: its configured capacity, or less under its share of
    /// the pool's limit, or less when it follows the data (`followData`).
    public var capacityBytes: Int {
        var capacity = configuredCapacity
        if let poolShare, poolShare > 0, let limit = pool?.limit { capacity = min(capacity, limit / poolShare) }
        if let followed = followedCapacity() { capacity = min(capacity, followed) }
        return capacity
    }

    /// A cache following the data keeps at most twice the bytes its database's blocks
    /// take, encoded (about what they take decoded, integers narrowed)...
    public static let followedFactor = 2
    /// ... and never less than this (64 MB).
    public static let followedMinimum = 64 << 20
    private let sizing = Lock()
    private var dataBytes: (@Sendable () -> Int)?
    private var followed: (capacity: Int, at: ContinuousClock.Instant)?

    /// Size the cache from the data: at most twice the bytes `bytes` reports (the encoded
    /// size of every table's current blocks), at least `followedMinimum`, asked again at
    /// most once a second. A default-sized database's cache does this, so a small
    /// database is served from a small cache (its decoded blocks would otherwise fill
    /// the default's gigabytes) and a big one gets up to the configured capacity.
    public func followData(_ bytes: @escaping @Sendable () -> Int) {
        sizing.withLock {
            dataBytes = bytes
            followed = nil
        }
    }

    private func followedCapacity() -> Int? {
        let (source, last) = sizing.withLock { (dataBytes, followed) }
        guard let source else { return nil }
        let now = ContinuousClock.now
        if let last, now - last.at < .seconds(1) { return last.capacity }
        // Asked outside the locks: the source reads the committed state.
        let capacity = max(Self.followedMinimum, source().multipliedReportingOverflow(by: Self.followedFactor).partialValue)
        sizing.withLock { followed = (capacity, now) }
        return capacity
    }

    /// Bytes the cache holds now.
    public var usedBytes: Int { lock.withLock { used } }

    /// Blocks the cache holds now.
    public var blockCount: Int { lock.withLock { entries.count } }

    /// Blocks dropped because no snapshot could read them any more (`forget`).
    public var retiredBlocks: Int { lock.withLock { retired } }
    private var retired = 0

    /// Drop `uids`, blocks of table versions no snapshot can read any more: a cache that
    /// kept superseded versions until they aged out would fill with them under a stream
    /// of small writes, each of which supersedes a tail block.
    public func forget(_ uids: [UInt64]) {
        lock.withLock {
            for uid in uids {
                decodedOnce[uid] = nil
                guard let e = entries.removeValue(forKey: uid) else { continue }
                used -= e.bytes
                pool?.release(e.bytes)
                retired += 1
            }
        }
    }

    /// The budget: `SLICEHOUSE_CACHE_MB`, else a quarter of physical memory up to 4 GB.
    public static func defaultCapacity() -> Int {
        environmentCapacity() ?? Int(min(ProcessInfo.processInfo.physicalMemory / 4, 4 << 30))
    }

    /// `SLICEHOUSE_CACHE_MB`'s capacity, when set.
    public static func environmentCapacity() -> Int? {
        if let s = ProcessInfo.processInfo.environment["SLICEHOUSE_CACHE_MB"], let mb = Int(s), mb >= 0 { return mb << 20 }
        return nil
    }

    /// The decoded values of `block` as one vector (writes that re-encode a block).
    public func vector(_ block: BlockRef, type: DataType) throws -> Vector {
        if case .vector(let v) = block.payload { return v }
        return try decoded(block, type: type).joined()
    }

    /// The decoded values of `block` in pieces, decoding (and caching) on a miss.
    public func decoded(_ block: BlockRef, type: DataType) throws -> DecodedBlock {
        switch try read(block, type: type, streaming: false) {
        case .decoded(let d): return d
        case .compact(let c): return c.block.decoded()
        case .streamed: throw SQLError.internalError("block \(block.uid) streamed when decoding was asked for")
        }
    }

    /// `block` for a scan: from the cache, or decoded and kept when an earlier statement
    /// decoded it too; otherwise streamed when its encoding allows (`StreamedBlock`), else
    /// decoded for this read only.
    public func forScan(_ block: BlockRef, type: DataType) throws -> ScanBlock {
        try read(block, type: type, streaming: true)
    }

    private func read(_ block: BlockRef, type: DataType, streaming: Bool) throws -> ScanBlock {
        let bytes: [UInt8]
        switch block.payload {
        case .vector(let v): return .decoded(DecodedBlock(v, firstRow: block.firstRow, cut: false))
        case .memory(let b):
            if let d = lookup(block.uid) { return d }
            bytes = b.bytes
        case .file(let f, let offset, let length):
            if let d = lookup(block.uid) { return d }
            bytes = try f.read(offset: offset, length: length)
        }
        let keep = secondTouch(block.uid)
        if !keep && streaming, let stream = try BlockStream.open(bytes, type: type, encoding: block.encoding) {
            guard stream.count == block.rowCount else {
                throw SQLError(.ioError, "block \(block.uid) holds \(stream.count) values, expected \(block.rowCount)")
            }
            return .streamed(StreamedBlock(stream, firstRow: block.firstRow, type: type))
        }
        let v = try bytes.withUnsafeBytes { try BlockEncoder.decode($0, type: type, encoding: block.encoding) }
        guard v.count == block.rowCount else {
            throw SQLError(.ioError, "block \(block.uid) decoded to \(v.count) values, expected \(block.rowCount)")
        }
        guard keep else { return .decoded(DecodedBlock(v, firstRow: block.firstRow, cut: false)) }
        let d = DecodedBlock(v, firstRow: block.firstRow)
        if let c = CompactBlock.make(d, type: type) {
            insert(block.uid, .compact(c), bytes: c.bytes)
        } else {
            // Each piece has its own array (and bitmap) headers.
            insert(block.uid, .decoded(d), bytes: Self.approximateBytes(v) + d.pieces.count * 64)
        }
        return .decoded(d)
    }

    /// A statement begins: blocks it decodes again after an earlier statement did are kept.
    public func beginStatement() {
        lock.withLock { epoch &+= 1 }
    }

    /// Blocks a load (a COPY) has just written count as decoded once, by this statement:
    /// the next statement that reads them keeps them, as it would had the load been
    /// followed by ANALYZE (which the load's own statistics make unnecessary). Freshly
    /// loaded rows are the likeliest to be read next.
    public func noteWritten(_ uids: [UInt64]) {
        lock.withLock {
            for uid in uids where entries[uid] == nil {
                if decodedOnce.count >= Self.maxRemembered { break }
                decodedOnce[uid] = epoch
            }
        }
    }

    /// Whether an earlier statement decoded `uid` (it is now to be kept); remembers it
    /// otherwise.
    private func secondTouch(_ uid: UInt64) -> Bool {
        lock.withLock {
            if let first = decodedOnce[uid] {
                if first == epoch { return false }
                decodedOnce[uid] = nil
                return true
            }
            if decodedOnce.count >= Self.maxRemembered { decodedOnce.removeAll(keepingCapacity: true) }
            decodedOnce[uid] = epoch
            return false
        }
    }

    private func lookup(_ uid: UInt64) -> ScanBlock? {
        let entry: Entry? = lock.withLock {
            guard var e = entries[uid] else { return nil }
            tick += 1
            e.tick = tick
            entries[uid] = e
            return e.block
        }
        switch entry {
        case .decoded(let d)?: return .decoded(d)
        case .compact(let c)?: return .compact(CompactReader(c))
        case nil: return nil
        }
    }

    private func insert(_ uid: UInt64, _ v: Entry, bytes size: Int) {
        let capacityBytes = self.capacityBytes
        lock.withLock {
            guard size <= capacityBytes else { return }
            if let old = entries[uid] {
                entries[uid] = nil
                used -= old.bytes
                pool?.release(old.bytes)
            }
            if let pool, !pool.tryReserve(size, reclaim: false) {
                // The database is at its memory limit: make room from our own oldest
                // entries, else do not keep this one.
                evict(downTo: max(0, used - max(size, capacityBytes / 10)))
                guard pool.tryReserve(size, reclaim: false) else { return }
            }
            tick += 1
            entries[uid] = (v, size, tick)
            used += size
            if used > capacityBytes { evict(downTo: capacityBytes - capacityBytes / 10) }
        }
    }

    /// Drop the least recently used entries until at most `target` bytes are held.
    private func evict(downTo target: Int) {
        guard used > target else { return }
        let order = entries.sorted { $0.value.tick < $1.value.tick }
        for (uid, e) in order {
            if used <= target { break }
            entries[uid] = nil
            used -= e.bytes
            pool?.release(e.bytes)
        }
    }

    deinit { if used > 0 { pool?.release(used) } }

    static func approximateBytes(_ v: Vector) -> Int {
        let base: Int
        switch v.data {
        case .int64(let a): base = a.count * 8
        case .int128(let a): base = a.count * 16
        case .double(let a): base = a.count * 8
        case .bool(let a): base = a.count
        case .string(let s): base = s.bytes.count + s.offsets.count * 4
        }
        return base + (v.validity.map { $0.words.count * 8 } ?? 0) + 64
    }
}

/// Receives the encoded blocks of one statement's writes.
public protocol BlockSink: AnyObject, Sendable {
    /// Store one encoded block for `slice` of `table`; returns where it is.
    func write(table: Int, slice: Int, bytes: [UInt8]) throws -> BlockPayload
    /// Make everything written durable (before the manifest names it).
    func sync() throws
    /// Names of the files written (for the manifest and for cleanup on failure).
    var fileNames: [String] { get }
    /// Remove what was written (the statement failed).
    func discard()
    /// Whether the blocks it writes stay in memory (a database without a directory).
    var keepsBlocksInMemory: Bool { get }
}

/// Keeps blocks in memory (a database without a directory).
public final class MemoryBlockSink: BlockSink, @unchecked Sendable {
    public init() {}
    public func write(table: Int, slice: Int, bytes: [UInt8]) throws -> BlockPayload { .memory(EncodedBytes(bytes)) }
    public func sync() throws {}
    public var fileNames: [String] { [] }
    public func discard() {}
    public var keepsBlocksInMemory: Bool { true }
}

/// Appends blocks to one new file per (table, slice) under `slice<N>/` of the data
/// directory, named after the commit generation. Files are fsync'ed by `sync()`.
public final class FileBlockSink: BlockSink, @unchecked Sendable {
    let directory: String
    let generation: UInt64
    private var open: [String: (fd: Int32, file: BlockFile, size: Int)] = [:]
    private var names: [String] = []
    private let lock = Lock()

    public init(directory: String, generation: UInt64) {
        self.directory = directory
        self.generation = generation
    }

    deinit { for (_, f) in open { close(f.fd) } }

    public var fileNames: [String] { lock.withLock { names } }
    public var keepsBlocksInMemory: Bool { false }

    /// The block's place in its file is reserved under the lock; the bytes are written
    /// outside it (`pwrite` at that offset), so slices encoded in parallel do not wait
    /// for each other's writes.
    public func write(table: Int, slice: Int, bytes: [UInt8]) throws -> BlockPayload {
        let name = "slice\(slice)/t\(table)_g\(generation).blk"
        let (fd, file, offset) = try lock.withLock { () throws -> (Int32, BlockFile, Int) in
            var entry: (fd: Int32, file: BlockFile, size: Int)
            if let e = open[name] {
                entry = e
            } else {
                let dir = (directory as NSString).appendingPathComponent("slice\(slice)")
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                let path = (directory as NSString).appendingPathComponent(name)
                let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                if fd < 0 { throw SQLError(.ioError, "could not create block file \"\(path)\": \(String(cString: strerror(errno)))") }
                entry = (fd, BlockFile(name: name, directory: directory), 0)
                names.append(name)
            }
            let offset = entry.size
            entry.size += bytes.count
            open[name] = entry
            return (entry.fd, entry.file, offset)
        }
        try Self.writeAll(fd, bytes, at: offset, path: file.path)
        return .file(file, offset: offset, length: bytes.count)
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws {
        var done = 0
        try bytes.withUnsafeBytes { buf in
            guard let base = buf.baseAddress else { return }
            while done < buf.count {
                let n = pwrite(fd, base + done, buf.count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SQLError(.ioError, "could not write \"\(path)\": \(String(cString: strerror(errno)))")
                }
                done += n
            }
        }
    }

    /// Every file written is synced, the files in parallel (their writes to the
    /// device overlap), then closed, then their directories are synced. The fsyncs run as
    /// `QueryContext.system` work: a commit that has begun is not cancelled or budgeted.
    public func sync() throws {
        try lock.withLock {
            let files = Array(open)
            let failures = ResultSlots<Int32>(count: files.count, initial: 0)
            parallelFor(files.count, context: .system) { i in
                if fsync(files[i].value.fd) != 0 { failures.set(i, errno) }
            }
            for (i, code) in failures.values.enumerated() where code != 0 {
                throw SQLError(.ioError, "could not sync \"\(files[i].key)\": \(String(cString: strerror(code)))")
            }
            for (_, e) in open { close(e.fd) }
            open.removeAll()
            var dirs = Set<String>()
            for n in names { dirs.insert((n as NSString).deletingLastPathComponent) }
            for d in dirs { DurableFiles.syncDirectory((directory as NSString).appendingPathComponent(d)) }
        }
    }

    public func discard() {
        lock.withLock {
            for (_, e) in open { close(e.fd) }
            open.removeAll()
            for n in names { unlink((directory as NSString).appendingPathComponent(n)) }
            names.removeAll()
        }
    }
}

/// fsync helpers for the commit protocol.
public enum DurableFiles {
    /// Make a directory's entries (created or renamed files) durable.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); close(fd) }
    }

    /// Write `bytes` to `path` atomically and durably: a temporary file, fsync, rename, fsync of the directory.
    public static func replace(_ path: String, with bytes: [UInt8]) throws {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd < 0 { throw SQLError(.ioError, "could not create \"\(tmp)\": \(String(cString: strerror(errno)))") }
        do {
            try FileBlockSink.writeAll(fd, bytes, at: 0, path: tmp)
            if fsync(fd) != 0 { throw SQLError(.ioError, "could not sync \"\(tmp)\": \(String(cString: strerror(errno)))") }
            close(fd)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        if rename(tmp, path) != 0 {
            unlink(tmp)
            throw SQLError(.ioError, "could not rename \"\(tmp)\": \(String(cString: strerror(errno)))")
        }
        syncDirectory((path as NSString).deletingLastPathComponent)
    }
}
