// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseTypes

/// A large compressed S3 object read as a stream: its compressed bytes are fetched in
/// chunks by ranged GETs (`S3ParallelRead`, the next chunk in flight while one is
/// inflated), inflated as they arrive (`StreamInflater`) on a thread of its own, and cut
/// into *segments* of inflated bytes that the COPY parses in order while the next is made.
/// Neither the compressed object nor its inflated bytes are held whole: at most two
/// chunks, the segment being filled, one finished segment waiting, and the one being
/// parsed.
///
/// A segment's memory has `headroom` free bytes in front (where the unparsed end of the
/// previous segment goes) and is handed over with the segment: `FileData` frees it. The
/// last segment may be empty. Inflating begins at `start`; `next` waits for the next
/// segment, asking `stop` every 50 ms whether to give up; `cancel` stops the thread and
/// frees what it holds.
final class S3InflatingRead: @unchecked Sendable {
    struct Segment {
        /// `headroom` free bytes, then `count` inflated ones.
        let storage: UnsafeMutableRawBufferPointer
        let headroom: Int
        let count: Int
        /// Compressed bytes fed since the segment before.
        let compressedBytes: Int
        let last: Bool
    }

    let path: String
    private let client: S3Client
    private let location: S3Location
    private let size: Int
    private let compression: CopyOptions.Compression
    private let segmentBytes: Int
    private let chunkBytes: Int
    let headroom: Int

    private let condition = NSCondition()
    private var ready: [Segment] = []
    private var failure: Error?
    private var finished = false
    private var cancelled = false
    private var current: S3ParallelRead?

    init(client: S3Client, location: S3Location, size: Int, compression: CopyOptions.Compression, path: String,
         segmentBytes: Int, headroom: Int = 1 << 20) {
        self.client = client; self.location = location; self.size = size
        self.compression = compression; self.path = path
        self.segmentBytes = max(1 << 16, segmentBytes)
        self.chunkBytes = max(1 << 16, min(32 << 20, self.segmentBytes / 2))
        self.headroom = headroom
    }

    deinit { cancel() }

    func start() {
        let t = Thread { [self] in self.produce() }
        t.stackSize = 1 << 20
        t.start()
    }

    /// The next segment; the producer's failure (S3's, or the data's) is thrown here.
    func next(stop: () -> Error?) throws -> Segment {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !ready.isEmpty {
                let s = ready.removeFirst()
                condition.broadcast()
                return s
            }
            if let failure { throw failure }
            if finished { throw SQLError.internalError("COPY read past the end of '\(path)'") }
            if let e = stop() {
                condition.unlock()
                cancel()
                condition.lock()
                throw e
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
    }

    /// Stop inflating; segments not yet handed out are freed.
    func cancel() {
        condition.lock()
        cancelled = true
        let left = ready
        ready = []
        let read = current
        condition.broadcast()
        condition.unlock()
        read?.cancel()
        for s in left { s.storage.deallocate() }
    }

    private var isCancelled: Bool {
        condition.lock(); defer { condition.unlock() }
        return cancelled
    }

    /// Hand `segment` over, waiting while a finished one is still not taken.
    /// False when the reader gave up (the segment is freed).
    private func publish(_ segment: Segment) -> Bool {
        condition.lock()
        while !cancelled && !ready.isEmpty { condition.wait() }
        if cancelled {
            condition.unlock()
            segment.storage.deallocate()
            return false
        }
        ready.append(segment)
        if segment.last { finished = true }
        condition.broadcast()
        condition.unlock()
        return true
    }

    private func fail(_ error: Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    private func newStorage() -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer.allocate(byteCount: headroom + segmentBytes, alignment: 16)
    }

    private func produce() {
        var storage = newStorage()
        var filled = 0
        var compressedSince = 0
        do {
            guard let inflater = try StreamInflaters.make(compression) else {
                throw SQLError.internalError("COPY streamed an uncompressed object through an inflater")
            }
            var offset = 0
            func startRead() -> S3ParallelRead? {
                guard offset < size else { return nil }
                let count = min(chunkBytes, size - offset)
                let read = S3ParallelRead(client: client, location: location, offset: offset, count: count)
                offset += count
                read.start()
                condition.lock(); current = read; condition.unlock()
                return read
            }
            var nextRead = startRead()
            while let read = nextRead {
                try read.wait(stop: { [self] in isCancelled ? CancellationError() : nil })
                nextRead = startRead()
                var stopped = false
                do {
                    try inflater.feed(UnsafeRawBufferPointer(read.buffer)) { piece in
                        var from = 0
                        while from < piece.count {
                            if filled == segmentBytes {
                                let full = Segment(storage: storage, headroom: headroom, count: filled,
                                                   compressedBytes: compressedSince, last: false)
                                compressedSince = 0
                                storage = newStorage()
                                filled = 0
                                guard publish(full) else { stopped = true; throw CancellationError() }
                            }
                            let n = min(piece.count - from, segmentBytes - filled)
                            if let d = storage.baseAddress, let s = piece.baseAddress {
                                (d + headroom + filled).copyMemory(from: s + from, byteCount: n)
                            }
                            filled += n
                            from += n
                        }
                    }
                } catch is CancellationError where stopped {
                    storage.deallocate()   // the full segment went to `publish`, which freed it
                    return
                } catch let e as InflateError {
                    throw StreamInflaters.error(compression, path: path, e.message)
                }
                compressedSince += read.buffer.count
            }
            do {
                try inflater.finish()
            } catch let e as InflateError {
                throw StreamInflaters.error(compression, path: path, e.message)
            }
            _ = publish(Segment(storage: storage, headroom: headroom, count: filled,
                                compressedBytes: compressedSince, last: true))
        } catch let e as S3Error {
            storage.deallocate()
            fail(e.sqlError)
        } catch {
            storage.deallocate()
            fail(error)
        }
    }
}
