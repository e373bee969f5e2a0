// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
import Foundation
import XCTest
@testable import SlicehouseServer
import SlicehouseEngine

/// The server's threads, on real sockets: an idle connection holds no thread, a client
/// that stops reading holds its statement without the server polling for it, messages
/// keep their order, a statement waiting on another connection's lock does not keep
/// that connection from committing, and the idle-session timeout still fires.
final class ConnectionThreadsTests: XCTestCase {
    private func startServer(idleTimeoutSeconds: Int = 0) throws -> (Server, Int) {
        try startLoopbackServer(idleTimeoutSeconds: idleTimeoutSeconds)
    }

    private func connect(_ port: Int, receiveBufferBytes: Int? = nil) throws -> SocketClient {
        let c = try SocketClient(port: port, receiveBufferBytes: receiveBufferBytes)
        try c.startup()
        return c
    }

    private func waitUntil(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// 200 connections that have logged in and sit idle, then each run a statement in
    /// turn: the process gains a few threads, not one (or two) per connection.
    func testIdleConnectionsHoldNoThreads() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        // The pools the first statement starts (the scheduler's, a statement thread) are
        // counted before.
        let first = try connect(port)
        XCTAssertEqual(try first.query("select 1").rows, [["1"]])
        let before = processThreadCount()
        XCTAssertGreaterThan(before, 0, "/proc/self/task is readable")

        var clients: [SocketClient] = []
        for _ in 0..<200 { clients.append(try connect(port)) }
        XCTAssertEqual(server.openConnections, 201)
        let idle = processThreadCount()
        XCTAssertLessThan(idle - before, 10, "200 idle connections: \(before) threads before, \(idle) after")

        for (i, c) in clients.enumerated() {
            let reply = try c.query("select \(i)")
            XCTAssertEqual(reply.rows, [["\(i)"]])
        }
        let after = processThreadCount()
        print("threads: \(before) before, \(idle) with 200 more connections idle, \(after) after each ran a statement; "
              + "statement threads \(StatementThreads.shared.threadCount)")
        XCTAssertLessThan(after - before, 40, "200 connections that each ran a statement: \(before) threads before, \(after) after")
        // The threads that ran them are back in the pool, waiting for the next.
        XCTAssertTrue(waitUntil { StatementThreads.shared.idleCount == StatementThreads.shared.threadCount })
        XCTAssertLessThan(StatementThreads.shared.threadCount, 20)

        for c in clients { c.close() }
        first.close()
        XCTAssertTrue(waitUntil { server.openConnections == 0 }, "\(server.openConnections) connections left")
        // Their sessions end too: an idle statement thread keeps nothing of the last
        // connection it ran for.
        XCTAssertTrue(waitUntil { server.database.sessionCount(user: "awsuser") == 0 },
                      "\(server.database.sessionCount(user: "awsuser")) sessions left")
    }

    /// A client that stops reading in the middle of a large result: the statement waits
    /// for it (woken by the channel's writability, not by polling), goes on when it reads,
    /// and the result arrives whole and in order.
    func testAClientThatStopsReadingHoldsItsStatementWithoutPolling() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let admin = try connect(port)
        XCTAssertNil(try admin.query("create table d (x int)").errorCode)
        XCTAssertNil(try admin.query("insert into d values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)").errorCode)
        XCTAssertNil(try admin.query("create table big as select a.x * 1000 + b.x * 100 + c.x * 10 + e.x as n "
                                     + "from d a, d b, d c, d e").errorCode)

        // 10,000 rows of 4,000 bytes (40 MB): several times what the channel (1 MB) and
        // the sockets hold, however far the kernel grows the send buffer (4 MB here; with
        // 1,000-byte rows one loaded run in three never had to wait).
        let reader = try connect(port, receiveBufferBytes: 16 << 10)
        let worker = try XCTUnwrap(server.worker(process: reader.process))
        try reader.sendQuery("select n, repeat('x', 4000) as pad from big order by n")
        XCTAssertTrue(waitUntil { worker.writer.waiting }, "the statement never waited for the client")
        let stalled = worker.writer
        sleep(2)
        let later = worker.writer
        XCTAssertTrue(later.waiting, "the statement went on without the client reading")
        // Polling every 50 ms would have woken it about 40 times; it wakes only to look at
        // its cancellation (every ConnectionWorker.cancellationCheckSeconds).
        let allowed = Int(2 / ConnectionWorker.cancellationCheckSeconds) + 2
        XCTAssertLessThanOrEqual(later.wakeups - stalled.wakeups, allowed, "woke \(later.wakeups - stalled.wakeups) times in 2 s")

        let reply = try reader.readReply()
        XCTAssertNil(reply.errorCode, reply.errorMessage ?? "")
        XCTAssertEqual(reply.tags, ["SELECT 10000"])
        XCTAssertEqual(reply.rows.count, 10_000)
        let pad = String(repeating: "x", count: 4000)
        for (i, row) in reply.rows.enumerated() where row != ["\(i)", pad] {
            XCTFail("row \(i) is \(row.map { $0?.prefix(20) ?? "NULL" })")
            break
        }
        // It went on once the client read, and waits no more.
        XCTAssertGreaterThanOrEqual(worker.writer.waits, 1)
        XCTAssertFalse(worker.writer.waiting)
        XCTAssertEqual(try reader.query("select count(*) from big").rows, [["10000"]])

        // A CancelRequest stops a statement that waits for its client.
        try reader.sendQuery("select n, repeat('x', 4000) as pad from big order by n")
        XCTAssertTrue(waitUntil { worker.writer.waiting })
        try reader.cancel(port: port)
        XCTAssertTrue(waitUntil { !worker.writer.waiting }, "the CancelRequest did not reach the waiting statement")
        let cancelled = try reader.readReply()
        XCTAssertEqual(cancelled.errorCode, "57014", cancelled.errorMessage ?? "no error")
        XCTAssertLessThan(cancelled.rows.count, 10_000)
        XCTAssertEqual(try reader.query("select 7").rows, [["7"]])
        reader.close()
        admin.close()
    }

    /// Many connections pipelining queries at once: each gets its answers in the order it
    /// asked, whichever thread runs them.
    func testPipelinedMessagesKeepTheirOrder() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let clients = try (0..<24).map { _ in try connect(port) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: clients.count) { k in
            let c = clients[k]
            do {
                // 40 queries in one write (past the point where the server stops reading).
                var bytes: [UInt8] = []
                for i in 0..<40 { bytes += SocketClient.queryMessage("select \(k * 1000 + i)") }
                try c.send(bytes)
                for i in 0..<40 {
                    let reply = try c.readReply()
                    if reply.rows != [["\(k * 1000 + i)"]] {
                        failures.mutate { $0.append("client \(k), query \(i): \(reply.rows) \(reply.errorMessage ?? "")") }
                        return
                    }
                }
            } catch {
                failures.mutate { $0.append("client \(k): \(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
        for c in clients { c.close() }
    }

    /// A CancelRequest that comes while a Parse is still binding its text (a large
    /// generate_series takes a while) fails that Parse with 57014 and leaves no statement
    /// behind; it is not dropped for want of a running statement, which left the Execute
    /// that followed running with nothing to stop it. Should the Parse have answered before
    /// the cancel came (a fast machine), the case is not this test's: it is let go.
    func testACancelDuringAParseFailsTheParse() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let c = try connect(port)
        let slow = "select count(*) from generate_series(1, 1000000) a, generate_series(1, 1000000) b"
        try c.send(SocketClient.parseMessage("slow", slow) + SocketClient.syncMessage)
        Thread.sleep(forTimeInterval: 0.02)
        let answeredBefore = c.hasUnread()
        try c.cancel(port: port)   // returns once the server has handled it
        let answeredAfter = c.hasUnread()
        let parse = try c.readReply()
        if parse.errorCode == nil {
            // The Parse answered. Unless its answer was already on its way when the cancel
            // was handled, the cancel was dropped.
            XCTAssertTrue(answeredBefore || answeredAfter, "the cancel came during the Parse and was lost")
            // Run it with a cancel that surely comes while it runs.
            try c.send(SocketClient.bindMessage("slow") + SocketClient.executeMessage + SocketClient.syncMessage)
            Thread.sleep(forTimeInterval: 0.3)
            try c.cancel(port: port)
            XCTAssertEqual(try c.readReply().errorCode, "57014")
        } else {
            XCTAssertEqual(parse.errorCode, "57014", parse.errorMessage ?? "")
            // No statement was left behind, and the cancel does not outlive the Parse.
            try c.send(SocketClient.bindMessage("slow") + SocketClient.executeMessage + SocketClient.syncMessage)
            XCTAssertEqual(try c.readReply().errorCode, "26000")
        }
        XCTAssertEqual(try c.query("select 7").rows, [["7"]])
        c.close()
    }

    /// A statement waiting for a lock another connection holds does not keep that
    /// connection's COMMIT from running (the statement threads are not a bounded pool).
    func testAStatementWaitingOnALockDoesNotBlockTheHolder() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let holder = try connect(port)
        XCTAssertNil(try holder.query("create table t (a int)").errorCode)
        XCTAssertNil(try holder.query("begin").errorCode)
        XCTAssertNil(try holder.query("insert into t values (1)").errorCode)
        let waiters = try (0..<8).map { _ in try connect(port) }
        for (i, w) in waiters.enumerated() { try w.sendQuery("insert into t values (\(i + 10))") }
        let sessions = waiters.compactMap { server.worker(process: $0.process)?.session }
        XCTAssertEqual(sessions.count, waiters.count)
        XCTAssertTrue(waitUntil { sessions.allSatisfy(\.isRunning) }, "the inserts did not start")
        XCTAssertEqual(try holder.query("commit").tags, ["COMMIT"])
        for w in waiters { XCTAssertEqual(try w.readReply().tags, ["INSERT 0 1"]) }
        XCTAssertEqual(try holder.query("select count(*) from t").rows, [["9"]])
    }

    /// A connection idle outside a transaction is closed after the idle-session timeout;
    /// one inside a transaction block, and one that keeps talking, stay.
    func testTheIdleSessionTimeoutStillFires() throws {
        let (server, port) = try startServer(idleTimeoutSeconds: 1)
        defer { server.shutdown() }
        let idle = try connect(port)
        let inBlock = try connect(port)
        XCTAssertNil(try inBlock.query("begin").errorCode)
        let busy = try connect(port)
        let end = Date(timeIntervalSinceNow: 2.5)
        while Date() < end {
            XCTAssertEqual(try busy.query("select 1").rows, [["1"]])
            usleep(300_000)
        }
        let fatal = try XCTUnwrap(try idle.read(), "the idle connection closed without a message")
        XCTAssertEqual(fatal.type, UInt8(ascii: "E"))
        let fields = SocketClient.fields(fatal.body)
        XCTAssertEqual(fields[UInt8(ascii: "S")], "FATAL")
        XCTAssertEqual(fields[UInt8(ascii: "C")], "57P05")
        XCTAssertNil(try idle.read(), "the connection stays open after the timeout")
        XCTAssertEqual(try busy.query("select 3").rows, [["3"]])
        busy.close()
        XCTAssertEqual(try inBlock.query("select 2").rows, [["2"]])
        // Out of the block it is idle like any other, and is closed in its turn.
        XCTAssertEqual(try inBlock.query("rollback").tags, ["ROLLBACK"])
        let second = try XCTUnwrap(try inBlock.read())
        XCTAssertEqual(SocketClient.fields(second.body)[UInt8(ascii: "C")], "57P05")
        XCTAssertTrue(waitUntil { server.openConnections == 0 }, "\(server.openConnections) connections left")
    }
}

/// A value behind a lock, for the tests' threads.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.lock(); defer { lock.unlock() }; return stored }
    func mutate(_ body: (inout T) -> Void) { lock.lock(); body(&stored); lock.unlock() }
}
#endif
