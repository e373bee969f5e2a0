// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
import Foundation
import XCTest
@testable import SlicehouseServer
import SlicehouseEngine

/// Short statements answered by the event loop itself (`ShortStatements`), on real
/// sockets: which statements are short and which are not, that a short one is still
/// logged and answered exactly as before, that pipelined messages keep their order when
/// some are short and some are not, and that a plan kept for one user, one catalog
/// revision or one transaction state is not taken for another.
final class ShortStatementTests: XCTestCase {
    private func startServer() throws -> (Server, Int) { try startLoopbackServer() }

    private func connect(_ port: Int, user: String = "awsuser") throws -> SocketClient {
        let c = try SocketClient(port: port)
        try c.startup(user: user)
        return c
    }

    /// Runs `sql` and tells how many statements the event loops answered meanwhile.
    private func answeredOnEventLoop(_ server: Server, _ c: SocketClient, _ sql: String,
                                     file: StaticString = #filePath, line: UInt = #line) throws -> (SocketClient.Reply, Int) {
        let before = server.shortStatementsAnswered
        let reply = try c.query(sql)
        XCTAssertNil(reply.errorMessage, sql, file: file, line: line)
        return (reply, server.shortStatementsAnswered - before)
    }

    /// Runs `sql` until the event loop answers it (at most `tries` times), checking each
    /// answer: whether it did. A run that took long — a busy machine preempting it — leaves
    /// the statement on statement threads until a run is quick again, so a test does not
    /// count on one run being short. Under the test command, with other suites busy on
    /// both cores, twenty tries have all missed `PlanCache.shortRunMicros`; a try costs
    /// about a millisecond, so there are 500.
    private func becomesShort(_ server: Server, _ c: SocketClient, _ sql: String, rows: [[String?]], tries: Int = 500,
                              file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
        for _ in 0..<tries {
            let (reply, short) = try answeredOnEventLoop(server, c, sql, file: file, line: line)
            XCTAssertEqual(reply.rows, rows, sql, file: file, line: line)
            if short == 1 { return true }
        }
        return false
    }

    /// A repeated `select 1` is answered by the event loop from its second run (its first
    /// is parsed, planned and timed on a statement thread), logged in STL_QUERY each time;
    /// a query that reads a table never is, nor is one whose run takes longer than
    /// `PlanCache.shortRunMicros`.
    func testWhichStatementsAreShort() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let c = try connect(port)
        defer { c.close() }

        var (reply, short) = try answeredOnEventLoop(server, c, "select 1")
        XCTAssertEqual(reply.rows, [["1"]])
        XCTAssertEqual(short, 0, "a first run is planned on a statement thread")
        for _ in 0..<3 {
            XCTAssertTrue(try becomesShort(server, c, "select 1", rows: [["1"]]))
        }
        let tagged = try c.query("select 1")
        XCTAssertEqual(tagged.tags, ["SELECT 1"])
        let runs = try c.query("select count(*) from stl_query where querytxt = 'select 1' and pid = pg_backend_pid()").rows
            .first.flatMap { $0.first ?? nil }.flatMap(Int.init) ?? -1
        // A VALUES list and constant expressions are short too; each text is its own.
        (reply, short) = try answeredOnEventLoop(server, c, "values (1, 'a'), (2, 'b')")
        XCTAssertEqual(reply.rows, [["1", "a"], ["2", "b"]])
        XCTAssertEqual(short, 0)
        XCTAssertTrue(try becomesShort(server, c, "values (1, 'a'), (2, 'b')", rows: [["1", "a"], ["2", "b"]]))
        XCTAssertTrue(try becomesShort(server, c, "select 'a' || 'b', 2 * 21", rows: [["ab", "42"]]))

        // Every run is in STL_QUERY under this session's process, short or not: the count
        // read above counted every `select 1` so far (at least the five).
        XCTAssertGreaterThanOrEqual(runs, 5)
        _ = try c.query("select 1")
        let logged = try c.query("select count(*) from stl_query where querytxt = 'select 1' and pid = pg_backend_pid()")
        XCTAssertEqual(logged.rows, [["\(runs + 1)"]])

        XCTAssertNil(try c.query("create table t (a int)").errorCode)
        XCTAssertNil(try c.query("insert into t values (1), (2)").errorCode)
        for _ in 0..<3 {
            (reply, short) = try answeredOnEventLoop(server, c, "select count(*) from t")
            XCTAssertEqual(reply.rows, [["2"]])
            XCTAssertEqual(short, 0, "a query that reads a table runs on a statement thread")
        }
        // A query with no FROM that takes long (a million generated rows summed) is timed
        // and never short.
        for _ in 0..<3 {
            (reply, short) = try answeredOnEventLoop(server, c, "select (select sum(a) from generate_series(1, 1000000) a)")
            XCTAssertEqual(reply.rows, [["500000500000"]])
            XCTAssertEqual(short, 0, "a run past the short limit stays on a statement thread")
        }
        // Volatile functions are never kept, so never short.
        _ = try c.query("select random() < 2")
        (reply, short) = try answeredOnEventLoop(server, c, "select random() < 2")
        XCTAssertEqual(reply.rows, [["t"]])
        XCTAssertEqual(short, 0)
    }

    /// What the plan was kept for is what a short statement needs: another user, a new
    /// catalog revision (any DDL), or a transaction block whose snapshot is not taken yet
    /// sends it to a statement thread first; a block's later statements are short again,
    /// and the block's state is answered as before.
    func testShortStatementsFollowUserCatalogAndBlock() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let admin = try connect(port)
        defer { admin.close() }
        XCTAssertNil(try admin.query("create user reader password 'Reader-pass1'").errorCode)
        _ = try admin.query("select 7")
        XCTAssertTrue(try becomesShort(server, admin, "select 7", rows: [["7"]]))

        let reader = try connect(port, user: "reader")
        defer { reader.close() }
        XCTAssertEqual(try answeredOnEventLoop(server, reader, "select 7").1, 0, "another user's plan is not this user's")
        XCTAssertTrue(try becomesShort(server, reader, "select 7", rows: [["7"]]))

        // DDL makes a new catalog revision: the kept plan is stale, planned again once.
        XCTAssertNil(try admin.query("create table u (a int)").errorCode)
        XCTAssertEqual(try answeredOnEventLoop(server, reader, "select 7").1, 0)
        XCTAssertTrue(try becomesShort(server, reader, "select 7", rows: [["7"]]))

        // In a block: the first statement takes the snapshot on a statement thread, the
        // next are short; the replies still say the block is open, and COMMIT ends it.
        XCTAssertNil(try reader.query("begin").errorCode)
        XCTAssertEqual(try answeredOnEventLoop(server, reader, "select 7").1, 0)
        XCTAssertTrue(try becomesShort(server, reader, "select 7", rows: [["7"]]))
        XCTAssertEqual(try reader.query("select current_user").rows, [["reader"]])
        XCTAssertEqual(try reader.query("commit").tags, ["COMMIT"])
        // A failed block answers a short statement with the block's error, not its rows.
        XCTAssertNil(try reader.query("begin").errorCode)
        XCTAssertEqual(try reader.query("select 1/0").errorCode, "22012")
        let failed = try reader.query("select 7")
        XCTAssertEqual(failed.errorCode, "25P02")
        XCTAssertEqual(failed.rows, [])
        XCTAssertEqual(try reader.query("rollback").tags, ["ROLLBACK"])
        XCTAssertEqual(try reader.query("select 7").rows, [["7"]])
    }

    /// Short and other statements pipelined in one write, from many connections at once:
    /// each connection gets every answer in the order it asked, whichever thread ran it.
    func testPipelinedShortAndLongStatementsKeepTheirOrder() throws {
        let (server, port) = try startServer()
        defer { server.shutdown() }
        let setup = try connect(port)
        XCTAssertNil(try setup.query("create table t (a int)").errorCode)
        XCTAssertNil(try setup.query("insert into t values (1), (2), (3)").errorCode)
        // Plan and time `select k` for every k used below until each is short.
        for k in 0..<8 { XCTAssertTrue(try becomesShort(server, setup, "select \(k)", rows: [["\(k)"]])) }
        setup.close()
        let before = server.shortStatementsAnswered
        let clients = try (0..<8).map { _ in try connect(port) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: clients.count) { k in
            let c = clients[k]
            do {
                var bytes: [UInt8] = []
                var expected: [[[String?]]] = []
                for i in 0..<30 {
                    if i % 3 == 2 {
                        bytes += SocketClient.queryMessage("select count(*) + \(i) from t")
                        expected.append([["\(3 + i)"]])
                    } else {
                        bytes += SocketClient.queryMessage("select \(k)")
                        expected.append([["\(k)"]])
                    }
                }
                try c.send(bytes)
                for i in 0..<30 {
                    let reply = try c.readReply()
                    if reply.rows != expected[i] {
                        failures.mutate { $0.append("client \(k), statement \(i): \(reply.rows) \(reply.errorMessage ?? "")") }
                        return
                    }
                }
            } catch {
                failures.mutate { $0.append("client \(k): \(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
        // Each client's first two statements are short and answered by the event loop; the
        // third reads a table, so a statement thread takes it and the rest of that read's
        // messages (short ones among them) in order. A short run that a busy machine
        // preempts past `PlanCache.shortRunMicros` makes its plan long again (the test
        // command's run saw 15 of 16 once), so only half the clients' first ones are
        // counted on: enough to show pipelined statements are answered on the event loop.
        let short = server.shortStatementsAnswered - before
        XCTAssertGreaterThanOrEqual(short, 4)
        XCTAssertLessThanOrEqual(short, 8 * 20)
        for c in clients { c.close() }
    }
}
#endif
