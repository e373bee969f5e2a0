// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Bytes of one object read by several ranged GETs at once: how COPY reads a large object
/// as fast as the network gives it (S3 serves each connection at a fraction of what
/// several get) without holding more than it asked for.
///
/// `start` returns at once; the parts are fetched on up to `concurrency` threads of their
/// own (the calls block, and must not take the statement's workers or an event loop).
/// `wait` blocks until every part is in, asking `stop` every 50 ms whether to give up —
/// the statement's cancellation or timeout — and throws the first failure. The memory is
/// this object's, after `headroom` free bytes (where a caller puts what comes before the
/// range, the unparsed end of the previous one); the threads keep the object alive, so a
/// part still in flight when `wait` gives up lands in memory that is still there.
public final class S3ParallelRead: @unchecked Sendable {
    public static let partBytes = 8 << 20
    public static let concurrency = 8

    private let client: S3Client
    private let location: S3Location
    private let offset: Int
    /// `headroom` bytes, then the range's.
    public let storage: UnsafeMutableRawBufferPointer
    public let headroom: Int
    /// The range's bytes.
    public let buffer: UnsafeMutableRawBufferPointer
    private let parts: Int
    private let lock = NSLock()
    private var nextPart = 0
    private var running = 0
    private var failure: Error?
    private let done = DispatchSemaphore(value: 0)

    /// Read `location`'s bytes `offset ..< offset + count`.
    public init(client: S3Client, location: S3Location, offset: Int, count: Int, headroom: Int = 0,
                partBytes: Int = S3ParallelRead.partBytes) {
        self.client = client; self.location = location; self.offset = offset
        self.headroom = max(0, headroom)
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, self.headroom + max(0, count)), alignment: 16)
        buffer = UnsafeMutableRawBufferPointer(rebasing: storage[self.headroom..<(self.headroom + max(0, count))])
        self.partBytes = max(1, partBytes)
        parts = (buffer.count + self.partBytes - 1) / self.partBytes
    }

    deinit { storage.deallocate() }

    private let partBytes: Int

    public func start(concurrency: Int = S3ParallelRead.concurrency) {
        let threads = min(max(1, concurrency), parts)
        if threads == 0 { done.signal(); return }
        running = threads
        for _ in 0..<threads {
            let t = Thread { [self] in self.work() }
            t.stackSize = 1 << 20
            t.start()
        }
    }

    private func work() {
        while true {
            let part: Int? = lock.withLock {
                guard failure == nil, nextPart < parts else { return nil }
                defer { nextPart += 1 }
                return nextPart
            }
            guard let part else { break }
            let lo = part * partBytes, hi = min(buffer.count, lo + partBytes)
            do {
                let written = try client.get(location, range: (offset + lo)..<(offset + hi),
                                             into: UnsafeMutableRawBufferPointer(rebasing: buffer[lo..<hi]))
                guard written == hi - lo else {
                    throw S3Error.unreadable("\(location): asked for bytes \(offset + lo)-\(offset + hi - 1), got \(written) bytes")
                }
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
        let last = lock.withLock { () -> Bool in
            running -= 1
            return running == 0
        }
        if last { done.signal() }
    }

    /// Fetch no more parts (those in flight finish into memory nobody reads): the reader
    /// gave up on this read.
    public func cancel() {
        lock.withLock { if failure == nil { failure = S3Error.unreadable("\(location): the read was given up") } }
    }

    /// Block until every part is in (or one failed, or `stop` gives an error to throw).
    public func wait(stop: () -> Error?) throws {
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if let e = stop() { throw e }
        }
        done.signal()   // later waits return at once
        if let failure = lock.withLock({ failure }) { throw failure }
    }

}
