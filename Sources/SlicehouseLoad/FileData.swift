import Dispatch
import Foundation
import SlicehouseStorage
import SlicehouseTypes
import SlicehouseRuntime

/// The bytes of one input file, memory-mapped read-only (or held in memory after
/// decompression). Immutable once created, so ranges of it are parsed concurrently.
final class FileData: @unchecked Sendable {
    let path: String
    let bytes: UnsafeBufferPointer<UInt8>
    private let mapping: UnsafeMutableRawPointer?
    private let mappedLength: Int
    private let owned: UnsafeMutableBufferPointer<UInt8>?

    private init(path: String, bytes: UnsafeBufferPointer<UInt8>, mapping: UnsafeMutableRawPointer?,
                 mappedLength: Int, owned: UnsafeMutableBufferPointer<UInt8>?) {
        self.path = path; self.bytes = bytes; self.mapping = mapping
        self.mappedLength = mappedLength; self.owned = owned
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

    /// Map (or read) `path`, decompressing it if `compression` asks for it.
    /// `workers`: threads for one file's decompression (BZIP2 is decoded block by
    /// block in parallel).
    static func open(_ path: String, compression: CopyOptions.Compression, workers: Int = 1) throws -> FileData {
        let raw = try mapFile(path)
        switch compression {
        case .none:
            return raw
        case .zstd:
            let packed = Array(raw.bytes)
            let plain: [UInt8]
            do {
                plain = try ZstdCodec.decompress(packed, originalSize: nil)
            } catch let e as SQLError {
                throw SQLError(.loadError, "Cannot decompress ZSTD file '\(path)': \(e.message)")
            }
            return owning(path: path, plain)
        case .gzip:
            do {
                return owning(path: path, try GzipCodec.decompress(raw.bytes))
            } catch {
                throw SQLError(.loadError, "invalid or truncated gzip data in file '\(path)': \(error.message)")
            }
        case .bzip2:
            do {
                return owning(path: path, try Bzip2Blocks.decompress(raw.bytes, workers: workers))
            } catch {
                throw SQLError(.loadError, "invalid or truncated bzip2 data in file '\(path)': \(error.message)")
            }
        case .lzop:
            throw SQLError.unsupported("COPY with LZOP compression (needs a system liblzo2 module); GZIP, BZIP2 and ZSTD work")
        }
    }

    /// Open every file, decompressing up to `workers` of them at once (inflating is
    /// single-threaded per file). Returns them in `paths` order; the first failure in
    /// that order is thrown.
    static func openAll(_ paths: [String], compression: CopyOptions.Compression, workers: Int) throws -> [FileData] {
        if compression == .none || paths.count <= 1 || workers <= 1 {
            return try paths.map { try open($0, compression: compression, workers: paths.count == 1 ? workers : 1) }
        }
        let slots = OpenSlots(count: paths.count)
        parallelFor(min(workers, paths.count)) { _ in
            while let i = slots.next() {
                do {
                    slots.set(i, .success(try open(paths[i], compression: compression)))
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
