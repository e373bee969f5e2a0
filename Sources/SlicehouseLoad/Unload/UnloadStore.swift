// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SlicehouseAWS
import SlicehouseParquet
import SlicehouseTypes

/// Where an UNLOAD's files go: local files under a prefix the statement may write
/// (`LocalUnloadStore`), or S3 objects under a key prefix (`S3UnloadStore`). Files are
/// named relative to the prefix (`0000_part_00`, `year=2024/0001_part_00.parquet`),
/// written by appending, and complete once `finish`ed; `abort` removes everything the
/// UNLOAD wrote, so a failed UNLOAD leaves nothing behind.
public protocol UnloadStore: AnyObject {
    /// Make way for the files: what the UNLOAD could overwrite is refused unless
    /// `allowOverwrite`, and removed first with `cleanPath`.
    func prepare(cleanPath: Bool, allowOverwrite: Bool) throws
    /// Append `bytes` to file `name`, which the first append creates (replacing a file of
    /// that name, as ALLOWOVERWRITE lets it).
    func append(_ bytes: [UInt8], to name: String) throws
    /// File `name` is complete. A store may complete it in the background: `settle`
    /// waits for that.
    func finish(_ name: String) throws
    /// Every finished file is in place; throws the first failure.
    func settle() throws
    /// Remove every file this UNLOAD wrote or began (a failed UNLOAD).
    func abort()
    /// How STL_UNLOAD_LOG names file `name`: its path, or `s3://bucket/key`.
    func displayName(_ name: String) -> String
    /// The URL a manifest gives for file `name`: `file:///…` or `s3://…`.
    func url(_ name: String) -> String
}

extension UnloadStore {
    /// A store whose `finish` completes the file before it returns has nothing to wait for.
    public func settle() throws {}

    /// Write file `name` whole (the manifest).
    public func write(_ bytes: [UInt8], to name: String) throws {
        try append(bytes, to: name)
        try finish(name)
    }

    /// A Parquet writer's output into file `name`.
    public func parquetOutput(_ name: String) -> any ParquetOutput { StoreParquetOutput(store: self, name: name) }
}

/// A Parquet file written through an `UnloadStore`.
final class StoreParquetOutput: ParquetOutput {
    let store: any UnloadStore
    let name: String
    init(store: any UnloadStore, name: String) { self.store = store; self.name = name }
    func write(_ bytes: [UInt8]) throws { try store.append(bytes, to: name) }
    func close() throws { try store.finish(name) }
    func abandon() {}
}

/// Local files under `prefix` (resolved and authorized before: `LocalFileAccess`).
/// A file is opened for each append and closed after it, so any number of files being
/// written needs no more open descriptors than one; symbolic links are never written
/// through.
public final class LocalUnloadStore: UnloadStore {
    public let prefix: String
    private var created: [String] = []
    private var started: Set<String> = []

    public init(prefix: String) { self.prefix = prefix }

    public func prepare(cleanPath: Bool, allowOverwrite: Bool) throws {
        try UnloadDestination.prepare(prefix, cleanPath: cleanPath, allowOverwrite: allowOverwrite)
    }

    public func append(_ bytes: [UInt8], to name: String) throws {
        let path = prefix + name
        var flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW
        if !started.contains(name) {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw SQLError(.ioError, "could not create unload folder '\(folder)': \(error.localizedDescription)")
                }
            }
            flags |= O_TRUNC
            started.insert(name)
            created.append(path)
        }
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else {
            throw SQLError(.ioError, "could not write unload file '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = unloadWrite(fd, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw SQLError(.ioError, "could not write unload file '\(path)': \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }

    public func finish(_ name: String) throws {
        if !started.contains(name) { try append([], to: name) }
    }

    public func abort() {
        for path in created { unlink(path) }
        created = []
    }

    public func displayName(_ name: String) -> String { prefix + name }

    public func url(_ name: String) -> String {
        let path = prefix + name
        return "file://" + (path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
    }
}

/// S3 objects under a key prefix. A file is a multipart upload once its bytes pass a
/// part (`partBytes`, at least S3's 5 MB), its parts sent by up to `concurrency`
/// uploads at once while the query goes on, so a large file is never held whole; a
/// file that stays smaller is one PUT when it is finished. A finished file is completed
/// in the background (its last part sent, then CompleteMultipartUpload once its own parts
/// are in, or its PUT), one file at a time, while the UNLOAD goes on writing the others;
/// `settle` waits for them all. `abort` aborts the uploads under way
/// and deletes the objects already complete.
public final class S3UnloadStore: UnloadStore, @unchecked Sendable {
    public let client: S3Client
    public let prefix: S3Location
    public let partBytes: Int
    public let concurrency: Int

    /// One file's upload: its fields are the UNLOAD's thread's until the file is finished,
    /// then its completing thread's; `etags` the part threads fill under the store's lock.
    private final class Upload: @unchecked Sendable {
        let location: S3Location
        var buffer: [UInt8] = []
        var id: String?
        var parts = 0
        /// ETags by part number - 1, filled as the parts finish.
        var etags: [String?] = []
        /// The file's parts under way.
        let sending = DispatchGroup()
        /// Completed (its object is in place): `abort` deletes it, rather than aborting it.
        var done = false
        init(location: S3Location) { self.location = location }
    }

    /// Files being written, by name.
    private var uploads: [String: Upload] = [:]
    /// Every file begun, for `abort`.
    private var begun: [Upload] = []
    private let lock = NSLock()
    private var failure: Error?
    /// Part uploads under way, and the file being completed.
    private let slots: DispatchSemaphore
    private let finishers: DispatchSemaphore
    private let group = DispatchGroup()

    public init(client: S3Client, prefix: S3Location, partBytes: Int = 8 << 20, concurrency: Int = 4) {
        self.client = client
        self.prefix = prefix
        self.partBytes = max(5 << 20, partBytes)
        self.concurrency = max(1, concurrency)
        slots = DispatchSemaphore(value: self.concurrency)
        // One file is completed at a time: S3 assembles the object, and completions at once
        // only compete for the same server (measured slower against moto).
        finishers = DispatchSemaphore(value: 1)
    }

    func location(_ name: String) -> S3Location { prefix.sibling(prefix.key + name) }

    public func prepare(cleanPath: Bool, allowOverwrite: Bool) throws {
        let existing: [S3Object]
        do {
            existing = try client.list(prefix)
        } catch let e as S3Error {
            throw e.sqlError
        }
        guard !existing.isEmpty else { return }
        if cleanPath {
            do {
                for o in existing { try client.delete(prefix.sibling(o.key)) }
            } catch let e as S3Error {
                throw e.sqlError
            }
        } else if !allowOverwrite {
            throw SQLError(.ioError, "Specified unload destination on S3 is not empty. Consider using a different bucket / prefix, manually removing the target files in S3, or using the ALLOWOVERWRITE option.")
        }
    }

    public func append(_ bytes: [UInt8], to name: String) throws {
        try rethrowFailure()
        let u = upload(name)
        u.buffer.append(contentsOf: bytes)
        while u.buffer.count >= partBytes {
            let part = Array(u.buffer[0..<partBytes])
            u.buffer.removeFirst(partBytes)
            try send(part, of: u)
        }
    }

    public func finish(_ name: String) throws {
        try rethrowFailure()
        let u = upload(name)
        uploads[name] = nil
        if u.id != nil && (!u.buffer.isEmpty || u.parts == 0) {
            let last = u.buffer
            u.buffer = []
            try send(last, of: u)
        }
        finishers.wait()
        group.enter()
        let client = self.client
        let t = Thread { [self] in
            defer { finishers.signal(); group.leave() }
            do {
                if let id = u.id {
                    u.sending.wait()
                    guard lock.withLock({ failure }) == nil else { return }
                    let etags = lock.withLock { u.etags }
                    try client.completeMultipartUpload(u.location, uploadID: id, etags: etags.map { $0 ?? "" })
                } else {
                    try client.put(u.location, body: u.buffer)
                    u.buffer = []
                }
                lock.withLock { u.done = true }
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
        t.stackSize = 1 << 20
        t.start()
    }

    public func settle() throws {
        group.wait()
        try rethrowFailure()
    }

    public func abort() {
        group.wait()
        // Runs after a cancellation too: the clean-up's requests are not stopped by it.
        let client = self.client.unstoppable
        for u in lock.withLock({ begun }) {
            if lock.withLock({ u.done }) {
                try? client.delete(u.location)
            } else if let id = u.id {
                try? client.abortMultipartUpload(u.location, uploadID: id)
            }
        }
        uploads = [:]
        lock.withLock { begun = [] }
    }

    public func displayName(_ name: String) -> String { location(name).description }
    public func url(_ name: String) -> String { location(name).description }

    private func upload(_ name: String) -> Upload {
        if let u = uploads[name] { return u }
        let u = Upload(location: location(name))
        uploads[name] = u
        lock.withLock { begun.append(u) }
        return u
    }

    /// Send the next part of `u` (starting its multipart upload first), on a thread of its
    /// own once one of `concurrency` slots is free.
    private func send(_ part: [UInt8], of u: Upload) throws {
        if u.id == nil {
            do {
                u.id = try client.startMultipartUpload(u.location)
            } catch let e as S3Error {
                throw e.sqlError
            }
        }
        guard let id = u.id else { return }
        u.parts += 1
        let number = u.parts
        lock.withLock { u.etags.append(nil) }
        slots.wait()
        group.enter()
        u.sending.enter()
        let client = self.client
        let t = Thread { [self] in
            defer { slots.signal(); u.sending.leave(); group.leave() }
            do {
                let etag = try client.uploadPart(u.location, uploadID: id, number: number, body: part)
                lock.withLock { u.etags[number - 1] = etag }
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
        t.stackSize = 1 << 20
        t.start()
    }

    private func rethrowFailure() throws {
        guard let f = lock.withLock({ failure }) else { return }
        if let e = f as? S3Error { throw e.sqlError }
        throw f
    }
}

#if canImport(Glibc)
private func unloadWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Glibc.write(fd, p, n) }
#elseif canImport(Darwin)
private func unloadWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Darwin.write(fd, p, n) }
#endif
