// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// Many sessions on one database: bank transfers between accounts in transactions from
/// eight writer sessions while eight reader sessions sum every balance. Every reader must
/// see the same total every time, no transfer may be lost or applied twice, conflicts must
/// end in Redshift's 1023 (or a detected deadlock) and a retry, and nothing may hang.
final class ConcurrencyTests: XCTestCase {
    static let accounts = 16
    static let initial = 1_000

    /// Run `body` on `count` threads (with their own sessions) and wait at most `timeout` seconds.
    func onThreads(_ count: Int, timeout: Double, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            let t = Thread { body(i); group.leave() }
            t.stackSize = 8 << 20
            t.start()
        }
        return group.wait(timeout: .now() + timeout) == .success
    }

    final class Counters: @unchecked Sendable {
        let lock = NSLock()
        var committed = 0, conflicts = 0, deadlocks = 0, reads = 0
        var badTotals: [Int64] = []
        var unexpected: [String] = []
        func add(_ f: (Counters) -> Void) { lock.lock(); f(self); lock.unlock() }
    }

    func runBank(directory: String?, seconds: Double) throws {
        let db = try Database(directory: directory, cluster: ClusterConfig(nodes: 2, slicesPerNode: 2), blockBytes: 4096)
        let setup = db.connect()
        _ = try setup.execute("create table accounts (id int, bal bigint) diststyle key distkey (id)")
        _ = try setup.execute("create table transfers (writer int, seq int, src int, dst int, amount int)")
        let values = (0..<Self.accounts).map { "(\($0), \(Self.initial))" }.joined(separator: ",")
        _ = try setup.execute("insert into accounts values \(values)")
        let total = Int64(Self.accounts * Self.initial)
        let counters = Counters()
        let deadline = Date().addingTimeInterval(seconds)
        let finished = onThreads(16, timeout: seconds + 60) { i in
            let s = db.connect()
            if i < 8 {
                // Writer i: transfers in transactions, each retried until it commits.
                var rng = SystemRandomNumberGenerator()
                var seq = 0
                while Date() < deadline {
                    let src = Int.random(in: 0..<Self.accounts, using: &rng)
                    let dst = (src + Int.random(in: 1..<Self.accounts, using: &rng)) % Self.accounts
                    let amount = Int.random(in: 1...50, using: &rng)
                    seq += 1
                    while true {
                        // Odd writers read first (their snapshot predates their lock: conflicts) and
                        // log the transfer before updating (the other lock order: deadlocks).
                        let steps = i % 2 == 0
                            ? ["begin",
                               "update accounts set bal = bal - \(amount) where id = \(src)",
                               "update accounts set bal = bal + \(amount) where id = \(dst)",
                               "insert into transfers values (\(i), \(seq), \(src), \(dst), \(amount))",
                               "commit"]
                            : ["begin",
                               "select bal from accounts where id = \(src)",
                               "insert into transfers values (\(i), \(seq), \(src), \(dst), \(amount))",
                               "update accounts set bal = bal - \(amount) where id = \(src)",
                               "update accounts set bal = bal + \(amount) where id = \(dst)",
                               "commit"]
                        do {
                            for sql in steps { _ = try s.execute(sql) }
                            counters.add { $0.committed += 1 }
                            break
                        } catch let e as SQLError {
                            _ = try? s.execute("rollback")
                            switch e.code {
                            case .serializationFailure: counters.add { $0.conflicts += 1 }
                            case .deadlockDetected: counters.add { $0.deadlocks += 1 }
                            default: counters.add { $0.unexpected.append(e.description) }; return
                            }
                        } catch {
                            counters.add { $0.unexpected.append("\(error)") }
                            return
                        }
                    }
                }
            } else {
                // Reader: the total, twice in one transaction and once on its own.
                while Date() < deadline {
                    do {
                        for sql in ["begin", "select sum(bal) from accounts", "select sum(bal) from accounts", "commit",
                                    "select sum(bal) from accounts"] {
                            let r = try s.execute(sql)
                            if let v = r.first?.textRows().first?.first, let n = Int64(v ?? "") {
                                counters.add { $0.reads += 1; if n != total { $0.badTotals.append(n) } }
                            }
                        }
                    } catch {
                        counters.add { $0.unexpected.append("reader: \(error)") }
                        return
                    }
                }
            }
        }
        XCTAssertTrue(finished, "sessions hung")
        XCTAssertEqual(counters.unexpected, [])
        XCTAssertEqual(counters.badTotals, [], "a reader saw a total other than \(total)")
        XCTAssertGreaterThan(counters.committed, 0)
        XCTAssertGreaterThan(counters.reads, 0)
        print("bank: \(counters.committed) transfers, \(counters.conflicts) conflicts (1023), \(counters.deadlocks) deadlocks, \(counters.reads) reads")
        // Every committed transfer is logged once, and the balances are exactly what the log says.
        let check = db.connect()
        let logged = try check.execute("select count(*), count(distinct writer * 1000000 + seq) from transfers")[0].textRows()[0]
        XCTAssertEqual(logged[0], "\(counters.committed)")
        XCTAssertEqual(logged[1], "\(counters.committed)")
        let mismatches = try check.execute("""
            select count(*) from accounts a left join
              (select id, sum(delta) as d from (select src as id, -amount as delta from transfers
                                                union all select dst, amount from transfers) x group by id) m on a.id = m.id
            where a.bal <> \(Self.initial) + coalesce(m.d, 0)
            """)[0].textRows()[0][0]
        XCTAssertEqual(mismatches, "0")
        XCTAssertEqual(try check.execute("select sum(bal) from accounts")[0].textRows()[0][0], "\(total)")
    }

    /// Seconds each bank run lasts: 3 in the test suite; `benchmarks/bank_transfers.sh`
    /// sets SLICEHOUSE_BANK_SECONDS for a longer run.
    static var bankSeconds: Double {
        ProcessInfo.processInfo.environment["SLICEHOUSE_BANK_SECONDS"].flatMap { Double($0) } ?? 3
    }

    func testBankTransfersInMemory() throws { try runBank(directory: nil, seconds: Self.bankSeconds) }

    func testBankTransfersOnDisk() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-bank-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try runBank(directory: dir, seconds: Self.bankSeconds)
        // Reopened, the committed state is all there.
        let s = try Database(directory: dir).connect()
        XCTAssertEqual(try s.execute("select sum(bal) from accounts")[0].textRows()[0][0], "\(Self.accounts * Self.initial)")
    }

    /// A second writer of a table waits for the first one's COMMIT; STV_LOCKS shows both.
    func testWriterWaitsForTheLockHolder() throws {
        let db = try Database()
        let a = db.connect(), b = db.connect()
        _ = try a.execute("create table t (x int); begin; insert into t values (1)")
        let done = DispatchSemaphore(value: 0)
        let result = Counters()
        Thread {
            do { _ = try b.execute("insert into t values (2)") } catch { result.add { $0.unexpected.append("\(error)") } }
            done.signal()
        }.start()
        var waiting = false
        for _ in 0..<200 where !waiting {
            Thread.sleep(forTimeInterval: 0.01)
            let rows = try db.connect().execute("select lock_owner_pid, lock_status from stv_locks")[0].textRows()
            waiting = rows.contains { $0[0] == "\(b.process)" && $0[1] == "Waiting for write lock" }
                && rows.contains { $0[0] == "\(a.process)" && $0[1] == "Holding write lock" }
        }
        XCTAssertTrue(waiting, "STV_LOCKS did not show the waiting writer")
        XCTAssertEqual(done.wait(timeout: .now() + 0.2), .timedOut, "the second writer did not wait")
        _ = try a.execute("commit")
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(result.unexpected, [])
        XCTAssertEqual(try a.execute("select count(*) from t")[0].textRows()[0][0], "2")
    }

    /// Two transactions that each wait for the other's table: the one that closes the cycle
    /// gets `deadlock detected` at once; after its rollback the other finishes.
    func testDeadlockIsDetected() throws {
        let db = try Database()
        let a = db.connect(), b = db.connect()
        _ = try a.execute("create table t1 (x int); create table t2 (x int)")
        _ = try a.execute("begin; insert into t1 values (1)")
        _ = try b.execute("begin; insert into t2 values (1)")
        let done = DispatchSemaphore(value: 0)
        let result = Counters()
        Thread {
            do { _ = try a.execute("insert into t2 values (2)") } catch { result.add { $0.unexpected.append("\(error)") } }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertThrowsError(try b.execute("insert into t1 values (2)")) { e in
            XCTAssertEqual((e as? SQLError)?.code, .deadlockDetected)
            XCTAssertEqual((e as? SQLError)?.message, "deadlock detected")
        }
        _ = try b.execute("rollback")
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        _ = try a.execute("commit")
        XCTAssertEqual(result.unexpected, [])
        XCTAssertEqual(try a.execute("select (select count(*) from t1), (select count(*) from t2)")[0].textRows()[0], ["1", "1"])
    }

    /// A dropped table's files stay while a transaction that read it is open, and go when it ends.
    func testFilesOutliveTheirLastReader() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-gc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Database(directory: dir)
        let a = db.connect(), b = db.connect()
        // (VACUUM writes the tail buffer's rows to block files.)
        _ = try a.execute("create table t (x int) diststyle even; insert into t values (1), (2), (3); vacuum t")
        func files() -> [String] {
            (FileManager.default.subpaths(atPath: dir) ?? []).filter { $0.hasPrefix("slice") && $0.hasSuffix(".blk") }
        }
        let before = files()
        XCTAssertFalse(before.isEmpty)
        _ = try a.execute("begin; select count(*) from t")
        _ = try b.execute("drop table t")
        XCTAssertEqual(files(), before, "files removed under a running reader")
        XCTAssertEqual(try a.execute("select sum(x) from t")[0].textRows()[0][0], "6")
        _ = try a.execute("commit")
        XCTAssertEqual(files(), [], "the dropped table's files were not removed")
        XCTAssertEqual(try db.connect().execute("select count(*) from stv_sessions")[0].textRows()[0][0], "3")
    }
}

/// VACUUM among other sessions: one at a time, and the background VACUUM DELETE.
final class VacuumConcurrencyTests: XCTestCase {
    /// A second VACUUM while one runs (here: waiting for a table lock) gets Redshift's error.
    func testSecondVacuumIsRefused() throws {
        let db = try Database()
        let a = db.connect(), b = db.connect(), c = db.connect()
        _ = try a.execute("create table t (x int) diststyle even sortkey(x); insert into t values (3), (1); insert into t values (2)")
        _ = try a.execute("begin; lock t")
        let done = DispatchSemaphore(value: 0)
        let failures = ConcurrencyTests.Counters()
        Thread {
            do { _ = try b.execute("vacuum t") } catch { failures.add { $0.unexpected.append("\(error)") } }
            done.signal()
        }.start()
        var waiting = false
        for _ in 0..<300 where !waiting {
            Thread.sleep(forTimeInterval: 0.01)
            waiting = try db.connect().execute("select count(*) from stv_locks where lock_status = 'Waiting for write lock'")[0]
                .textRows()[0][0] == "1"
        }
        XCTAssertTrue(waiting, "the VACUUM did not wait for the lock")
        XCTAssertThrowsError(try c.execute("vacuum")) { e in
            XCTAssertEqual((e as? SQLError)?.message, "VACUUM is running")
            XCTAssertEqual((e as? SQLError)?.hint, "re-execute after other vacuum finished")
        }
        _ = try a.execute("commit")
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(failures.unexpected, [])
        XCTAssertEqual(try c.execute("select sum(rows), sum(sorted_rows) from stv_tbl_perm where trim(name) = 't'")[0].textRows(),
                       [["3", "3"]])
        _ = try c.execute("vacuum")
    }

    /// After a large DELETE, the background vacuum reclaims the rows on its own once the
    /// database is idle, and logs itself as [VacuumBG] in STL_VACUUM.
    func testAutomaticVacuumDeleteReclaimsDeletedRows() throws {
        let db = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2))
        let s = db.connect()
        _ = try s.execute("create table t (x int) diststyle even; insert into t values (0)")
        for p in 0..<13 { _ = try s.execute("insert into t select x + \(1 << p) from t") }
        _ = try s.execute("delete from t where x % 4 = 0")
        var deleted = "2048"
        let deadline = Date().addingTimeInterval(30)
        while deleted != "0" && Date() < deadline {
            // Each look is a statement: look less often than the vacuum's idle wait.
            Thread.sleep(forTimeInterval: 1.0 + 0.5)
            deleted = try s.execute("select sum(deleted_rows) from stv_tbl_perm where trim(name) = 't'")[0].textRows()[0][0] ?? ""
        }
        XCTAssertEqual(deleted, "0", "the background vacuum did not reclaim the deleted rows")
        XCTAssertEqual(try s.execute("select count(*), sum(x) from t")[0].textRows(), [["6144", "25165824"]])
        let statuses = try s.execute("select trim(status) from stl_vacuum order by eventtime, status desc")[0].textRows().map { $0[0] ?? "" }
        XCTAssertEqual(statuses, ["[VacuumBG] Started Delete Only", "[VacuumBG] Finished"])
    }
}
