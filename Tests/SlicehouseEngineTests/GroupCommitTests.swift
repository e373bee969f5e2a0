// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseEngine
@testable import SlicehouseStorage
import SlicehouseTypes

/// Group commit: autocommit writers that commit while the log is being synced share the
/// next sync; the table lock passes on once a commit's record is written, so writers of one
/// table group too; nobody sees or is told of a commit before it is durable; a failed sync
/// fails every commit it would have made durable, and nothing of theirs comes back.
final class GroupCommitTests: XCTestCase {
    var directory = ""

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-gc-\(UUID().uuidString)").path
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    final class Shared<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: T
        init(_ value: T) { self.value = value }
        func with<R>(_ body: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
    }

    /// The first sync waits for `release`; later ones go at once. `first` returns the first one's result.
    func holdFirstSync(_ store: DataStore, release: DispatchSemaphore, first: @escaping @Sendable () -> SQLError? = { nil }) {
        let calls = Shared(0)
        store.beforeLogSync = {
            guard calls.with({ $0 += 1; return $0 }) == 1 else { return nil }
            _ = release.wait(timeout: .now() + 30)
            return first()
        }
    }

    /// Run `sql` on `count` threads, each in a session of its own; the errors they got.
    func writers(_ db: Database, _ count: Int, _ sql: @escaping @Sendable (Int) -> String) -> (DispatchGroup, Shared<[String]>) {
        let group = DispatchGroup()
        let errors = Shared<[String]>([])
        for i in 0..<count {
            group.enter()
            // The thread lets go of its session (and so of the database) before it says it is
            // done: a test that reopens the directory next must find it no longer held.
            let session = Shared<Session?>(db.connect())
            Thread {
                do { _ = try session.with { $0 }?.execute(sql(i)) } catch { errors.with { $0.append("\(error)") } }
                session.with { $0 = nil }
                group.leave()
            }.start()
        }
        return (group, errors)
    }

    func waitFor(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(20)
        while !condition(), Date() < deadline { usleep(2_000) }
        XCTAssertTrue(condition(), what)
    }

    func count(_ db: Database) throws -> String {
        try db.connect().execute("select count(*) from t")[0].textRows()[0][0] ?? "NULL"
    }

    func testWritersOfOneTableShareASync() throws {
        let db = try Database(directory: directory)
        _ = try db.connect().execute("create table t (x int)")
        let store = db.store
        let before = store.groupCommitCounters
        let release = DispatchSemaphore(value: 0)
        holdFirstSync(store, release: release)
        // Four writers: WLM's default queue has five slots, and each holds one until answered.
        let (done, errors) = writers(db, 4) { "insert into t values (\($0))" }
        // The first writer's record is written and its sync held: the table's lock passed on,
        // and the other three wrote their records behind it.
        waitFor("four commits written, none durable") { store.undurableCommits == 4 }
        XCTAssertEqual(done.wait(timeout: .now() + 0.2), .timedOut, "a writer returned before its commit was durable")
        XCTAssertEqual(try count(db), "0", "a reader saw commits not yet durable")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(errors.with { $0 }, [])
        XCTAssertEqual(try count(db), "4")
        let after = store.groupCommitCounters
        // The held sync, once let go, made all four durable at once.
        XCTAssertEqual(after.commits - before.commits, 4)
        XCTAssertEqual(after.syncs - before.syncs, 1)
        store.beforeLogSync = nil
    }

    func testReopenedDatabaseHoldsEveryAcknowledgedCommit() throws {
        do {
            let db = try Database(directory: directory)
            _ = try db.connect().execute("create table t (x int)")
            let release = DispatchSemaphore(value: 0)
            holdFirstSync(db.store, release: release)
            let (done, errors) = writers(db, 4) { "insert into t values (\($0))" }
            waitFor("four commits written") { db.store.undurableCommits == 4 }
            release.signal()
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
            XCTAssertEqual(errors.with { $0 }, [])
        }
        let db = try Database(directory: directory)
        XCTAssertEqual(try db.connect().execute("select count(*), sum(x) from t")[0].textRows()[0], ["4", "6"])
    }

    /// A sync fails: the commits it would have made durable fail, and so do those written
    /// behind it; none of their rows is seen, now or after reopening; the next commit works.
    func testFailedSyncFailsEveryCommitNotYetDurable() throws {
        do {
            let db = try Database(directory: directory)
            _ = try db.connect().execute("create table t (x int); insert into t values (100)")
            let release = DispatchSemaphore(value: 0)
            holdFirstSync(db.store, release: release, first: { SQLError(.ioError, "injected: could not sync wal.log") })
            let (done, errors) = writers(db, 4) { "insert into t values (\($0))" }
            waitFor("four commits written") { db.store.undurableCommits == 4 }
            release.signal()
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
            let failed = errors.with { $0 }
            XCTAssertEqual(failed.count, 4)
            XCTAssertTrue(failed.allSatisfy { $0.contains("injected: could not sync wal.log") }, "\(failed)")
            XCTAssertEqual(try count(db), "1")
            // The next commit checkpoints (the failed ones' sequence numbers are never reused).
            _ = try db.connect().execute("insert into t values (200)")
            XCTAssertEqual(try db.connect().execute("select sum(x) from t")[0].textRows()[0][0] ?? "NULL", "300")
        }
        let db = try Database(directory: directory)
        XCTAssertEqual(try db.connect().execute("select count(*), sum(x) from t")[0].textRows()[0], ["2", "300"])
        _ = try db.connect().execute("insert into t values (1)")
        XCTAssertEqual(try count(db), "3")
    }

    /// An autocommit DELETE of a table whose last commit is written but not yet synced
    /// builds on that commit (it deletes the row just inserted: no 1023), and both become
    /// durable and visible together.
    func testWriterBuildsOnTheCommitBeingSynced() throws {
        let db = try Database(directory: directory)
        _ = try db.connect().execute("create table t (x int)")
        let before = db.store.groupCommitCounters
        let release = DispatchSemaphore(value: 0)
        holdFirstSync(db.store, release: release)
        let (first, firstErrors) = writers(db, 1) { _ in "insert into t values (1)" }
        waitFor("the INSERT written") { db.store.undurableCommits == 1 }
        let answer = Shared<String?>(nil)
        let deleter = db.connect()
        let deleted = DispatchSemaphore(value: 0)
        Thread {
            do {
                let tag = try deleter.execute("delete from t where x = 1").last?.tag
                answer.with { $0 = tag }
            } catch { answer.with { $0 = "\(error)" } }
            deleted.signal()
        }.start()
        waitFor("the DELETE written behind it") { db.store.undurableCommits == 2 }
        XCTAssertEqual(deleted.wait(timeout: .now() + 0.2), .timedOut, "the DELETE answered before it was durable")
        XCTAssertEqual(try count(db), "0")
        release.signal()
        XCTAssertEqual(deleted.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(first.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(firstErrors.with { $0 }, [])
        XCTAssertEqual(answer.with { $0 }, "DELETE 1")
        XCTAssertEqual(try count(db), "0")
        let after = db.store.groupCommitCounters
        XCTAssertEqual(after.commits - before.commits, 2)
        XCTAssertEqual(after.syncs - before.syncs, 1)
    }

    /// A transaction block answers its statements before it commits, so an append that
    /// rebases onto another session's commit waits for that commit's sync: it never shows
    /// rows that are not yet durable.
    func testBlockAppendWaitsForTheSyncOfTheCommitItRebasesOn() throws {
        let db = try Database(directory: directory)
        _ = try db.connect().execute("create table t (x int); create table u (x int)")
        let block = db.connect()
        _ = try block.execute("begin; select count(*) from u")   // its snapshot, t not read: no rows
        let release = DispatchSemaphore(value: 0)
        holdFirstSync(db.store, release: release)
        let (first, firstErrors) = writers(db, 1) { _ in "insert into t values (1)" }
        waitFor("the INSERT written") { db.store.undurableCommits == 1 }
        let seen = Shared<String?>(nil)
        let appended = DispatchSemaphore(value: 0)
        Thread {
            do {
                _ = try block.execute("insert into t values (2)")
                let n = try block.execute("select count(*) from t")[0].textRows()[0][0]
                seen.with { $0 = n }
            } catch { seen.with { $0 = "\(error)" } }
            appended.signal()
        }.start()
        XCTAssertEqual(appended.wait(timeout: .now() + 0.3), .timedOut, "the block's append did not wait for the sync")
        release.signal()
        XCTAssertEqual(appended.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(first.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(firstErrors.with { $0 }, [])
        XCTAssertEqual(seen.with { $0 }, "2")
        _ = try block.execute("commit")
        XCTAssertEqual(try count(db), "2")
    }
}
