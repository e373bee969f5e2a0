// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import SlicehouseStorage
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlatform
import SlicehouseAWS

/// The bytes of one input file, memory-mapped read-only (or held in memory after
/// decompression). Immutable once created, so ranges of it are parsed concurrently.
final class FileData: @unchecked Sendable {
    let path: String
    let bytes: UnsafeBufferPointer<UInt8>
    private let mapping: UnsafeMutableRawPointer?
    private let mappedLength: Int
    private let owned: UnsafeMutableBufferPointer<UInt8>?
    /// Bytes of input held in memory (inflated, or fetched from S3; 0 for a mapped file):
    /// what a COPY reserves for the file while its ranges are being parsed.
    var heldBytes: Int { owned?.count ?? keeper?.storage.count ?? 0 }
    /// The temporary file an inflated input was written to, while it is mapped.
    let temporary: SpillFile?
    /// What holds the bytes of a piece of an S3 object (the read that fetched them).
    private let keeper: S3ParallelRead?

    private init(path: String, bytes: UnsafeBufferPointer<UInt8>, mapping: UnsafeMutableRawPointer?,
                 mappedLength: Int, owned: UnsafeMutableBufferPointer<UInt8>?, temporary: SpillFile? = nil,
                 keeper: S3ParallelRead? = nil) {
        self.path = path; self.bytes = bytes; self.mapping = mapping
        self.mappedLength = mappedLength; self.owned = owned; self.temporary = temporary; self.keeper = keeper
    }

    /// Bytes an S3 read fetched, after `carry` (the unparsed end of the piece before): the
    /// carry goes into the read's headroom when it fits, else both are copied together.
    static func fetched(path: String, _ read: S3ParallelRead, carry: [UInt8]) -> FileData {
        if carry.count <= read.headroom, let base = read.storage.baseAddress {
            let start = base + (read.headroom - carry.count)
            carry.withUnsafeBytes { c in
                if let cb = c.baseAddress { start.copyMemory(from: cb, byteCount: c.count) }
            }
            let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self),
                                            count: carry.count + read.buffer.count)
            return FileData(path: path, bytes: bytes, mapping: nil, mappedLength: 0, owned: nil, keeper: read)
        }
        var all = carry
        all.append(contentsOf: UnsafeRawBufferPointer(read.buffer))
        return owning(path: path, all)
    }

    /// A segment of a streamed compressed object (`S3InflatingRead`), after `carry`: the
    /// segment's memory becomes this file's, and the carry goes into its headroom when it
    /// fits, else both are copied together.
    static func inflated(path: String, _ segment: S3InflatingRead.Segment, carry: [UInt8]) -> FileData {
        let storage = UnsafeMutableBufferPointer(start: segment.storage.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                 count: segment.storage.count)
        if carry.count <= segment.headroom, let base = storage.baseAddress {
            let start = base + (segment.headroom - carry.count)
            carry.withUnsafeBufferPointer { c in
                if let cb = c.baseAddress { start.update(from: cb, count: c.count) }
            }
            return FileData(path: path, bytes: UnsafeBufferPointer(start: start, count: carry.count + segment.count),
                            mapping: nil, mappedLength: 0, owned: storage)
        }
        var all = carry
        all.append(contentsOf: UnsafeBufferPointer(rebasing: storage[segment.headroom..<(segment.headroom + segment.count)]))
        segment.storage.deallocate()
        return owning(path: path, all)
    }

    /// The inflated bytes of `path`, written to `file`, mapped read-only.
    static func mapping(path: String, _ file: SpillFile) throws -> FileData {
        guard let p = try file.mapReadOnly() else { return owning(path: path, []) }
        _ = madvise(p, file.size, MADV_SEQUENTIAL)
        return FileData(path: path, bytes: UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt8.self), count: file.size),
                        mapping: p, mappedLength: file.size, owned: nil, temporary: file)
    }

    deinit {
        if let mapping { munmap(mapping, mappedLength) }
        owned?.deallocate()
    }

    /// Done with bytes `start..<end` of a mapped file: their pages leave this process's
    /// memory (they stay in the page cache; a later read maps them again, unchanged, as
    /// the mapping is read-only). Keeps a large COPY's resident size to what is parsed
    /// but not yet stored, instead of the whole input on top of it.
    func release(_ start: Int, _ end: Int) {
        guard let mapping, start < end else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0 else { return }
        let from = (start + page - 1) / page * page, to = end / page * page
        if to > from { _ = madvise(mapping + from, to - from, MADV_DONTNEED) }
    }

    /// `release` with a margin on each side: a read of a mapped file maps the whole page
    /// cache folio around it (up to about a megabyte on this kernel, not one page), so
    /// the mapping becomes resident beyond the bytes read (the whole 2.8 GB of a 3 GB
    /// inflated file within 70 ms of planning its ranges) and the neighbours of what was
    /// read are let go too. A page dropped while another worker reads it is only mapped
    /// again: the mapping is a read-only view of the file.
    func releaseAround(_ start: Int, _ end: Int) {
        release(max(0, start - Self.releaseMargin), min(bytes.count, end + Self.releaseMargin))
    }

    static let releaseMargin = 4 << 20

    /// Cut these bytes into ranges (`RangePlanner.plan`) without keeping them resident.
    /// Finding the cuts reads a little at every range, yet each read maps about a megabyte
    /// of a mapped file into the process (926 reads 8 MB apart left 976 MB of SF 10's
    /// lineitem resident, counted in the COPY's peak RSS): the pages leave the process as
    /// the planner passes them, and come back range by range as they are parsed (each
    /// released after), so a COPY holds what is being parsed, not a gigabyte of its input.
    func planRanges(_ planner: RangePlanner, rangeBytes: Int, first: Bool, last: Bool) -> RangePlanner.Plan {
        let plan = planner.plan(bytes, rangeBytes: rangeBytes, first: first, last: last,
                                done: { self.releaseAround($0, $1) })
        release(0, bytes.count)
        return plan
    }

    /// Map (or read) `path`, decompressing it if `compression` asks for it.
    /// `workers`: threads for one file's decompression (BZIP2 is decoded block by
    /// block in parallel). Inflated bytes stay in memory up to `InflateDrain.limit`; a file
    /// that inflates to more goes through a temporary file (see `InflateDrain`), in
    /// `context`'s spill space; the decompression runs as `context`'s work.
    static func open(_ path: String, compression: CopyOptions.Compression, workers: Int = 1,
                     context: QueryContext) throws -> FileData {
        try inflate(try mapFile(path), compression: compression, workers: workers, context: context)
    }

    /// `raw`'s bytes decompressed as `compression` says (`raw` itself for none).
    static func inflate(_ raw: FileData, compression: CopyOptions.Compression, workers: Int = 1,
                        context: QueryContext) throws -> FileData {
        let path = raw.path
        let drain = InflateDrain(context: context)
        switch compression {
        case .none:
            return raw
        case .zstd:
            var out = GrowableBuffer<UInt8>(capacity: min(max(raw.bytes.count * 4, 1 << 16), drain.threshold + (1 << 20)))
            do {
                try ZstdCodec.decompressStream(UnsafeRawBufferPointer(raw.bytes)) { piece in
                    out.append(contentsOf: piece.assumingMemoryBound(to: UInt8.self))
                    if out.count >= drain.threshold {
                        guard drain.take(UnsafeBufferPointer(start: out.base, count: out.count)) else {
                            throw drain.failure ?? SQLError(.ioError, "could not write a temporary file")
                        }
                        out.removeAll()
                    }
                }
            } catch let e as SQLError where e.code == .ioError && e.message.hasPrefix("zstd") {
                throw SQLError(.loadError, "Cannot decompress ZSTD file '\(path)': \(e.message)")
            }
            return try drain.finish(path: path, out)
        case .gzip:
            let rest: GrowableBuffer<UInt8>
            do {
                rest = try GzipCodec.decompress(raw.bytes, drain: drain)
            } catch {
                if let failure = drain.failure { throw failure }
                throw SQLError(.loadError, "invalid or truncated gzip data in file '\(path)': \(error.message)")
            }
            return try drain.finish(path: path, rest)
        case .bzip2:
            let rest: GrowableBuffer<UInt8>
            do {
                rest = try Bzip2Blocks.decompress(raw.bytes, workers: workers, drain: drain, context: context)
            } catch {
                if let failure = drain.failure { throw failure }
                throw SQLError(.loadError, "invalid or truncated bzip2 data in file '\(path)': \(error.message)")
            }
            return try drain.finish(path: path, rest)
        case .lzop:
            throw SQLError.unsupported("COPY with LZOP compression (needs a system liblzo2 module); GZIP, BZIP2 and ZSTD work")
        }
    }

    /// Open every file, decompressing up to `workers` of them at once (inflating is
    /// single-threaded per file). Returns them in `paths` order; the first failure in
    /// that order is thrown.
    static func openAll(_ paths: [String], compression: CopyOptions.Compression, workers: Int,
                        context: QueryContext) throws -> [FileData] {
        try inflateAll(paths.count, compression: compression, workers: workers, context: context) { i, w in
            try open(paths[i], compression: compression, workers: w, context: context)
        }
    }

    /// `count` inputs made by `make(i, workers)`, up to `workers` at once when they are
    /// compressed, in index order; the first failure in that order is thrown.
    static func inflateAll(_ count: Int, compression: CopyOptions.Compression, workers: Int, context: QueryContext,
                           make: @escaping @Sendable (Int, Int) throws -> FileData) throws -> [FileData] {
        if compression == .none || count <= 1 || workers <= 1 {
            return try (0..<count).map { try make($0, count == 1 ? workers : 1) }
        }
        let slots = OpenSlots(count: count)
        parallelFor(min(workers, count), context: context) { _ in
            while let i = slots.next() {
                do {
                    slots.set(i, .success(try make(i, 1)))
                } catch {
                    slots.set(i, .failure(error))
                }
            }
        }
        return try slots.results()
    }

    /// Takes over a decompression buffer without copying it.
    static func owning(path: String, _ buffer: consuming GrowableBuffer<UInt8>) -> FileData {
        let storage = buffer.takeStorage()
        let owned = UnsafeMutableBufferPointer(start: storage.base, count: storage.count)
        return FileData(path: path, bytes: UnsafeBufferPointer(owned), mapping: nil, mappedLength: 0, owned: owned)
    }

    /// In-memory bytes (tests, decompressed data).
    static func owning(path: String, _ data: [UInt8]) -> FileData {
        let buf = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(data.count, 1))
        _ = buf.initialize(from: data)
        return FileData(path: path, bytes: UnsafeBufferPointer(rebasing: buf[0..<data.count]),
                        mapping: nil, mappedLength: 0, owned: buf)
    }

    static func mapFile(_ path: String) throws -> FileData {
        let fd = Foundation.open(path, O_RDONLY)
        guard fd >= 0 else {
            throw SQLError(.ioError, "could not open file '\(path)' for reading: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw SQLError(.ioError, "could not stat file '\(path)': \(String(cString: strerror(errno)))")
        }
        let size = Int(st.st_size)
        if size == 0 { return owning(path: path, []) }
        // No MAP_POPULATE: that reads a file not yet in the page cache in one thread
        // before parsing starts. WILLNEED starts the kernel's read-ahead of the whole
        // file instead, and the parse workers overlap with it.
        if let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED {
            _ = madvise(p, size, MADV_SEQUENTIAL)
            _ = madvise(p, size, MADV_WILLNEED)
            let base = p.assumingMemoryBound(to: UInt8.self)
            return FileData(path: path, bytes: UnsafeBufferPointer(start: base, count: size),
                            mapping: p, mappedLength: size, owned: nil)
        }
        // Fallback: one read into an owned buffer.
        let buf = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: size)
        guard let start = buf.baseAddress else {
            buf.deallocate()
            throw SQLError(.ioError, "could not allocate \(size) bytes for file '\(path)'")
        }
        var done = 0
        while done < size {
            let r = read(fd, start + done, size - done)
            if r <= 0 {
                buf.deallocate()
                throw SQLError(.ioError, "could not read file '\(path)'")
            }
            done += r
        }
        return FileData(path: path, bytes: UnsafeBufferPointer(buf), mapping: nil, mappedLength: 0, owned: buf)
    }
}

/// Results of opening files concurrently (each slot written once by one worker).
private final class OpenSlots: @unchecked Sendable {
    private let lock = Lock()
    private var nextIndex = 0
    private var slots: [Result<FileData, any Error>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func next() -> Int? {
        lock.withLock {
            guard nextIndex < slots.count else { return nil }
            defer { nextIndex += 1 }
            return nextIndex
        }
    }

    func set(_ i: Int, _ r: Result<FileData, any Error>) { lock.withLock { slots[i] = r } }

    func results() throws -> [FileData] {
        try lock.withLock {
            try slots.enumerated().map { i, r in
                guard let r else { throw SQLError.internalError("COPY file \(i) was not opened") }
                return try r.get()
            }
        }
    }
}

/// Where a compressed input file's inflated bytes go: memory while they are fewer than
/// `limit`, then an unlinked temporary file in the statement's spill space (the data
/// directory's `tmp`), mapped like a plain input file once complete, so that its pages
/// leave memory as they are parsed (`FileData.release`). The limit is a quarter of the
/// statement's memory budget (WLM's share for the COPY), and at least `memoryBytes`: a
/// COPY of compressed files holds at most about that much inflated data per file being
/// opened (two at once at most take half the budget), whatever the files' sizes. The
/// codecs call `take` whenever their output reaches `threshold`.
final class InflateDrain {
    /// The least inflated bytes kept in memory before the rest goes to a temporary file.
    nonisolated(unsafe) static var memoryBytes = 64 << 20
    /// Inflated bytes kept in memory for this file.
    let limit: Int
    /// The output size at which a codec hands its output over: `limit`, then (once a file
    /// is open) smaller pieces.
    private(set) var threshold: Int
    private var file: SpillFile?
    /// Why the last `take` failed.
    private(set) var failure: SQLError?

    /// The statement's: a quarter of its budget may stay in memory, and its spill space
    /// holds the rest.
    let context: QueryContext

    init(context: QueryContext) {
        self.context = context
        let budget = context.memory.budget ?? 0
        limit = max(InflateDrain.memoryBytes, budget / 4)
        threshold = limit
    }

    /// Append the codec's output so far to the temporary file (opened on the first call);
    /// false when it cannot be written (`failure` says why). The codec then empties its buffer.
    func take(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        do {
            let f: SpillFile
            if let file {
                f = file
            } else {
                f = try context.spill.newFile(for: context.memory)
                file = f
            }
            try f.append(UnsafeRawBufferPointer(bytes))
            threshold = min(limit, 8 << 20)
            return true
        } catch let e as SQLError {
            failure = e
        } catch {
            failure = SQLError(.ioError, "could not write a temporary file: \(error)")
        }
        return false
    }

    /// Forget what was taken (a decoder starting over from the beginning).
    func restart() {
        file = nil
        threshold = limit
    }

    /// The whole inflated file: `rest` alone when nothing was taken, else the temporary
    /// file with `rest` appended, mapped.
    func finish(path: String, _ rest: consuming GrowableBuffer<UInt8>) throws -> FileData {
        guard let file else { return FileData.owning(path: path, rest) }
        if rest.count > 0 { try file.append(UnsafeRawBufferPointer(UnsafeBufferPointer(start: rest.base, count: rest.count))) }
        return try FileData.mapping(path: path, file)
    }
}
