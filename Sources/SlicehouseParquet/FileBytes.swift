// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SlicehouseTypes

/// The bytes of a Parquet file: memory-mapped read-only, or owned when the file came
/// from memory, or — for a file elsewhere (`ParquetByteSource`) — a mapping of the file's
/// size that holds only what was read: the footer, and each row group's chunks while it
/// is decoded (`fetch`, `release`). Pages never written take no memory. Immutable apart
/// from that filling, so row groups can be decoded from several threads at once.
final class FileBytes: @unchecked Sendable {
    let buffer: UnsafeRawBufferPointer
    private let mapping: UnsafeMutableRawPointer?
    private let owned: UnsafeMutableRawPointer?
    /// Where the bytes of a sparse file come from.
    let source: (any ParquetByteSource)?

    /// Map `path` (an empty file gives an empty buffer).
    init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SQLError(.ioError, "could not open Parquet file '\(path)': \(reason)")
        }
        defer { close(fd) }
        source = nil
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw SQLError(.ioError, "could not stat Parquet file '\(path)': \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw SQLError(.ioError, "Parquet file '\(path)' is not a regular file")
        }
        let size = Int(st.st_size)
        owned = nil
        if size == 0 {
            mapping = nil
            buffer = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else {
            throw SQLError(.ioError, "could not map Parquet file '\(path)': \(String(cString: strerror(errno)))")
        }
        mapping = p
        buffer = UnsafeRawBufferPointer(start: p, count: size)
    }

    /// Own a copy of `bytes`.
    init(bytes: [UInt8]) {
        mapping = nil
        source = nil
        if bytes.isEmpty {
            owned = nil
            buffer = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let p = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { src in
            if let s = src.baseAddress { p.copyMemory(from: s, byteCount: src.count) }
        }
        owned = p
        buffer = UnsafeRawBufferPointer(start: p, count: bytes.count)
    }

    /// An empty mapping of `source`'s size, to be filled range by range.
    init(source: any ParquetByteSource) throws {
        self.source = source
        owned = nil
        let size = source.size
        guard size > 0 else {
            mapping = nil
            buffer = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let p, p != MAP_FAILED else {
            throw SQLError(.ioError, "could not reserve \(size) bytes of address space for Parquet file '\(source.name)'")
        }
        mapping = p
        buffer = UnsafeRawBufferPointer(start: p, count: size)
    }

    /// Read `range` of a sparse file from its source (nothing for a mapped or owned file).
    func fetch(_ range: Range<Int>) throws {
        guard let source, let mapping, !range.isEmpty else { return }
        let lo = max(0, range.lowerBound), hi = min(buffer.count, range.upperBound)
        guard lo < hi else { return }
        try source.read(offset: lo, into: UnsafeMutableRawBufferPointer(start: mapping + lo, count: hi - lo))
    }

    /// Let the memory of the whole pages inside `range` of a sparse file go (read again by
    /// `fetch` when needed; pages shared with a neighbouring range are kept).
    func release(_ range: Range<Int>) {
        guard source != nil, let mapping else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0 else { return }
        let from = (max(0, range.lowerBound) + page - 1) / page * page
        let to = min(buffer.count, range.upperBound) / page * page
        if to > from { _ = madvise(mapping + from, to - from, MADV_DONTNEED) }
    }

    deinit {
        if let mapping { munmap(mapping, buffer.count) }
        owned?.deallocate()
    }
}
