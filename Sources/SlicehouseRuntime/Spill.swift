// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// Where a statement's operators write what does not fit in their memory budget: a
/// `tmp` directory under the data directory (the system's temporary directory for an
/// in-memory database).
///
/// Each spill file is unlinked the moment it is created, so it takes disk space only
/// while its operator holds it open and leaves nothing behind after a crash.
public final class SpillSpace: @unchecked Sendable {
    public let directory: String
    private let lock = Lock()
    private var created = false
    private var sequence = 0

    public init(directory: String) { self.directory = directory }

    /// The system temporary directory's `slicehouse-spill`.
    public static let temporary = SpillSpace(
        directory: (NSTemporaryDirectory() as NSString).appendingPathComponent("slicehouse-spill"))

    /// A new empty spill file whose writes count as `memory`'s spilled bytes.
    public func newFile(for memory: QueryMemory?) throws -> SpillFile {
        let path: String = try lock.withLock {
            if !created {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw SQLError(.diskFull, "could not create the spill directory \(directory): \(error.localizedDescription)")
                }
                created = true
            }
            sequence += 1
            return (directory as NSString).appendingPathComponent("spill-\(getpid())-\(sequence)-\(UInt32.random(in: 0...UInt32.max))")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw SQLError(.diskFull, "could not create spill file \(path): \(String(cString: strerror(errno)))")
        }
        unlink(path)
        memory?.recordSpill(bytes: 0, newFile: true)
        return SpillFile(fd: fd, memory: memory)
    }
}

/// An append-then-read temporary file. Writes go through a buffer; `read(at:count:)`
/// reads any range of what was written (after `flush`).
///
/// The write buffer (`QueryMemory.spillBufferBytes`) is reserved by force on the
/// statement's memory from the first append until `flush`, which writes it out and lets
/// it go; a later append takes a new one.
public final class SpillFile: @unchecked Sendable {
    private let fd: Int32
    private let memory: QueryMemory?
    /// Allocated on the first append: an operator may open many files (a grace hash
    /// join's partitions) and fill few.
    private var buffer: [UInt8] = []
    private let bufferBytes: Int
    /// Bytes of `memory` the buffer holds.
    private var reserved = 0
    /// Bytes appended so far (buffered or written).
    public private(set) var size = 0
    private var flushed = 0

    init(fd: Int32, memory: QueryMemory?) {
        self.fd = fd
        self.memory = memory
        bufferBytes = memory?.spillBufferBytes ?? 1 << 16
    }

    deinit {
        close(fd)
        if reserved > 0 { memory?.release(reserved) }
    }

    /// Append raw bytes.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        if buffer.count + bytes.count > bufferBytes { try drain() }
        if bytes.count >= bufferBytes {
            try writeAll(bytes)
        } else {
            if buffer.capacity == 0 {
                buffer.reserveCapacity(bufferBytes)
                reserved = buffer.capacity
                memory?.reserve(reserved)
            }
            buffer.append(contentsOf: bytes)
        }
        size += bytes.count
    }

    /// Append the raw contents of an array of plain values.
    public func append<T: BitwiseCopyable>(contentsOf values: [T]) throws {
        try values.withUnsafeBytes { try append($0) }
    }

    /// Append one plain value.
    public func append<T: BitwiseCopyable>(_ value: T) throws {
        try withUnsafeBytes(of: value) { try append($0) }
    }

    /// Map the whole file read-only, after writing out what is buffered; nil when it is
    /// empty. The mapping (of `size` bytes) outlives the file's descriptor; the caller
    /// unmaps it.
    public func mapReadOnly() throws -> UnsafeMutableRawPointer? {
        try flush()
        guard size > 0 else { return nil }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw SQLError(.ioError, "could not map a temporary file: \(String(cString: strerror(errno)))")
        }
        return p
    }

    /// Write out whatever is buffered and let the buffer go.
    public func flush() throws {
        try drain()
        buffer = []
        if reserved > 0 {
            memory?.release(reserved)
            reserved = 0
        }
    }

    /// Write out whatever is buffered, keeping the buffer.
    private func drain() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let n = pwrite(fd, base + done, bytes.count - done, off_t(flushed))
            if n < 0 {
                if errno == EINTR { continue }
                throw SQLError(.diskFull, "could not write to a spill file: \(String(cString: strerror(errno)))")
            }
            done += n
            flushed += n
        }
        memory?.recordSpill(bytes: bytes.count, newFile: false)
    }

    /// Read `count` bytes at `offset` into `destination` (which must hold them).
    public func read(at offset: Int, into destination: UnsafeMutableRawBufferPointer) throws {
        if offset + destination.count > flushed { try drain() }
        guard offset + destination.count <= flushed, let base = destination.baseAddress else {
            if destination.count == 0 { return }
            throw SQLError.internalError("spill file read past its end")
        }
        var done = 0
        while done < destination.count {
            let n = pread(fd, base + done, destination.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw SQLError(.ioError, "could not read a spill file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { throw SQLError.internalError("spill file ended early") }
            done += n
        }
    }

    /// A reader from the start.
    public func reader() -> SpillReader { SpillReader(file: self) }
}

/// Reads a spill file front to back.
public struct SpillReader {
    public let file: SpillFile
    public private(set) var offset = 0

    init(file: SpillFile) { self.file = file }

    public var atEnd: Bool { offset >= file.size }

    public mutating func read<T: BitwiseCopyable>(_: T.Type) throws -> T {
        var value = try readArray(T.self, count: 1)
        guard let v = value.popLast() else { throw SQLError.internalError("spill file read failed") }
        return v
    }

    public mutating func readArray<T: BitwiseCopyable>(_: T.Type, count: Int) throws -> [T] {
        guard count > 0 else { return [] }
        let bytes = count * MemoryLayout<T>.stride
        let out = try [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            try file.read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
        offset += bytes
        return out
    }

    public mutating func readBytes(count: Int) throws -> [UInt8] { try readArray(UInt8.self, count: count) }
}
