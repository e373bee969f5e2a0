// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SlicehouseTypes

/// The bytes of a Parquet file: memory-mapped read-only, or owned when the file came
/// from memory. Immutable, so row groups can be decoded from several threads at once.
final class FileBytes: @unchecked Sendable {
    let buffer: UnsafeRawBufferPointer
    private let mapping: UnsafeMutableRawPointer?
    private let owned: UnsafeMutableRawPointer?

    /// Map `path` (an empty file gives an empty buffer).
    init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SQLError(.ioError, "could not open Parquet file '\(path)': \(reason)")
        }
        defer { close(fd) }
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

    deinit {
        if let mapping { munmap(mapping, buffer.count) }
        owned?.deallocate()
    }
}
