// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What the AWS API clients (`S3Client`, `GlueClient`) share: one request sent through
/// async-http-client and its answer taken as it arrives (into the caller's memory, or an
/// array), waited for on the calling thread while `stop` is asked every 50 ms, and the
/// tries again with backoff (0.1 s, doubling up to 5 s, with jitter) that a transient
/// failure earns. Each client signs its requests and judges its service's answers.
struct AWSTransport: Sendable {
    let client: HTTPClient
    let attempts: Int
    let requestTimeout: TimeAmount
    let stop: @Sendable () -> Error?

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        /// The body, or (for a successful answer written to a sink) nothing.
        var body: [UInt8]
        /// Bytes of a successful answer written to the sink.
        var written = 0
    }

    /// The statement stopped the request (`stop`'s error).
    struct Stopped: Error { let error: Error }

    static func nowMicros() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    /// `once` until an answer `judge` accepts (nil), trying again — up to `attempts` tries —
    /// after a failure `judge` calls transient, a dropped or refused connection, or a stall
    /// past the request timeout. A connection that keeps failing becomes
    /// `connectionError("what: why")`. `record` is told of every try: its number (from 1),
    /// when it began, the answer if one came, and why it failed (nil: it succeeded).
    func retrying(what: String, once: () throws -> Answer, judge: (Answer) -> (Error, Bool)?,
                  connectionError: (String) -> Error,
                  record: (Int, Int64, Answer?, String?) -> Void) throws -> Answer {
        var delay = 0.1
        var attempt = 1
        while true {
            let began = Self.nowMicros()
            do {
                let answer = try once()
                guard let (error, transient) = judge(answer) else {
                    record(attempt, began, answer, nil)
                    return answer
                }
                record(attempt, began, answer, "\(error)")
                if attempt >= attempts || !transient { throw Final(error: error) }
            } catch let final as Final {
                throw final.error
            } catch let stopped as Stopped {
                record(attempt, began, nil, "\(what): stopped (\(stopped.error))")
                throw stopped.error
            } catch {
                // The connection failed or stalled: another try may get through.
                record(attempt, began, nil, "\(what): \(Self.describe(error))")
                if attempt >= attempts { throw connectionError("\(what): \(Self.describe(error))") }
            }
            attempt += 1
            let until = Date().addingTimeInterval(delay * Double.random(in: 0.5...1.5))
            while Date() < until {
                if let e = stop() { throw e }
                Thread.sleep(forTimeInterval: min(0.05, max(0, until.timeIntervalSinceNow)))
            }
            delay = min(delay * 2, 5)
        }
    }

    /// An answer's error that ends the tries.
    private struct Final: Error { let error: Error }

    static func describe(_ error: Error) -> String {
        if let e = error as? HTTPClientError { return "\(e)" }
        return "\(error)"
    }

    /// One try of `request`: its answer, a successful body written to `sink` when given.
    func exchange(_ request: HTTPClient.Request, sink: UnsafeMutableRawBufferPointer? = nil) throws -> Answer {
        let receiver = BodyReceiver(sink: sink)
        let task = client.execute(request: request, delegate: receiver, deadline: .now() + requestTimeout)
        return try wait(task, receiver)
    }

    /// The task's answer, asking `stop` every 50 ms. A stopped request is cancelled, and its
    /// receiver detached first, so no byte of it lands in the sink after this returns.
    func wait(_ task: HTTPClient.Task<Answer>, _ receiver: BodyReceiver) throws -> Answer {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        task.futureResult.whenComplete { result in
            box.set(result)
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if let e = stop() {
                receiver.detach()
                task.cancel()
                throw Stopped(error: e)
            }
        }
        guard let result = box.get() else { throw S3Error.unreadable("a request ended without an answer") }
        do {
            return try result.get()
        } catch {
            receiver.detach()
            throw error
        }
    }

    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<Answer, Error>?
        func set(_ r: Result<Answer, Error>) { lock.withLock { result = r } }
        func get() -> Result<Answer, Error>? { lock.withLock { result } }
    }

    /// Takes an answer as it arrives: its head, then its body — into the sink when there is
    /// one and the status is 2xx (an error's body, the service's XML or JSON, is always kept), else into an
    /// array. Called on an event loop; `detach` (from the waiting thread) ends all writes.
    final class BodyReceiver: HTTPClientResponseDelegate, @unchecked Sendable {
        typealias Response = Answer
        private let lock = NSLock()
        private let sink: UnsafeMutableRawBufferPointer?
        private var detached = false
        private var status = 0
        private var headers = HTTPHeaders()
        private var body: [UInt8] = []
        private var written = 0

        init(sink: UnsafeMutableRawBufferPointer?) { self.sink = sink }

        func detach() { lock.withLock { detached = true } }

        func didReceiveHead(task: HTTPClient.Task<Answer>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            lock.withLock {
                status = Int(head.status.code)
                headers = head.headers
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Answer>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            lock.withLock {
                guard !detached else { return }
                buffer.withUnsafeReadableBytes { src in
                    if let sink, (200..<300).contains(status) {
                        let n = min(src.count, sink.count - written)
                        if n > 0, let d = sink.baseAddress, let s = src.baseAddress {
                            (d + written).copyMemory(from: s, byteCount: n)
                        }
                        // More than asked for counts too, so the caller sees the answer was wrong.
                        written += src.count
                    } else {
                        body.append(contentsOf: src)
                    }
                }
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<Answer>) throws -> Answer {
            lock.withLock { Answer(status: status, headers: headers, body: body, written: written) }
        }
    }

}
