import Foundation
import SlicehouseStorage
import SlicehouseTypes

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

    /// Map (or read) `path`, decompressing it if `compression` asks for it.
    static func open(_ path: String, compression: CopyOptions.Compression) throws -> FileData {
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
        case .gzip, .bzip2, .lzop:
            throw SQLError.unsupported(
                "COPY with \(compression.rawValue.uppercased()) compression (needs a system \(compression == .gzip ? "zlib" : compression == .bzip2 ? "libbz2" : "liblzo2") module); ZSTD works")
        }
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
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        if let p = mmap(nil, size, PROT_READ, flags, fd, 0), p != MAP_FAILED {
            _ = madvise(p, size, MADV_SEQUENTIAL)
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
