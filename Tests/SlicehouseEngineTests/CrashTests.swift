// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// `kill -9` of a `slicehouse` process in the middle of COPY loads, at several
/// points: every reopen shows exactly the rows of the statements that committed,
/// and no file that the manifest does not name is left behind.
final class CrashTests: XCTestCase {
    /// The `slicehouse` executable next to the test bundle (`swift build` builds it).
    static func executable() -> String? {
        let arg0 = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var dir = arg0.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("slicehouse").path
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDir), !isDir.boolValue { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// The executable, or a skip outside CI (a failure in CI, where it must have been built).
    static func requireExecutable() throws -> String {
        if let exe = executable() { return exe }
        if ProcessInfo.processInfo.environment["CI"] != nil { throw SQLError(.ioError, "the slicehouse executable was not built") }
        throw XCTSkip("build the slicehouse executable first (swift build)")
    }

    func testKillDuringCopyKeepsTheLastCommittedState() throws {
        let exe = try Self.requireExecutable()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-crash-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let db = (work as NSString).appendingPathComponent("db")
        // One file of `perCopy` rows; each COPY statement of it commits on its own.
        let perCopy = 50_000
        var text = ""
        text.reserveCapacity(perCopy * 40)
        for i in 0..<perCopy { text += "\(i)|row number \(i) of the crash test|\(i % 97)\n" }
        let data = (work as NSString).appendingPathComponent("rows.txt")
        try text.write(toFile: data, atomically: true, encoding: .utf8)
        let script = (work as NSString).appendingPathComponent("load.sql")
        try String(repeating: "copy t from '\(data)';\n", count: 40).write(toFile: script, atomically: true, encoding: .utf8)
        do {
            let s = try Database(directory: db).connect()
            _ = try s.execute("create table t (id int, note varchar(64), g int) distkey(id) sortkey(g)")
        }

        var committedBefore = 0
        // Kill after these delays (seconds): early in a COPY, mid-way, later on.
        for delay in [0.05, 0.4, 0.9, 1.7, 3.0] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = ["-D", db, "-f", script]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let reported = log.components(separatedBy: "loaded successfully").count - 1

            let database = try Database(directory: db)
            let n = Int(try database.connect().execute("select count(*) from t")[0].textRows()[0][0] ?? "") ?? -1
            XCTAssertEqual(n % perCopy, 0, "a partial COPY became visible (\(n) rows)")
            let statements = n / perCopy - committedBefore
            // Every COPY the process reported committed is there; at most one more
            // (committed, killed before it could print).
            XCTAssertGreaterThanOrEqual(statements, reported, "delay \(delay): \(log.suffix(300))")
            XCTAssertLessThanOrEqual(statements, reported + 1, "delay \(delay)")
            XCTAssertEqual(try database.connect().execute("select count(distinct id), min(g), max(g) from t")[0].textRows()[0],
                           n == 0 ? ["0", nil, nil] : ["\(perCopy)", "0", "96"])
            try assertNoLeftovers(db)
            committedBefore = n / perCopy
        }
    }

    /// `kill -9` at random moments of a stream of transaction blocks (INSERT ... SELECT,
    /// DELETE, UPDATE and a log row, committed together) and VACUUMs of every form, 20
    /// times: after each restart exactly the blocks that committed are there, each whole,
    /// and no stray file remains.
    func testKillDuringTransactionsAndVacuumKeepsExactlyTheCommittedOnes() throws {
        let exe = try Self.requireExecutable()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-crash-txn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let db = (work as NSString).appendingPathComponent("db")
        let rows = 20_000
        do {
            let s = try Database(directory: db).connect()
            _ = try s.execute("""
                create table src (id int) diststyle even;
                create table t (batch int, id int, v int) distkey(id) sortkey(batch);
                create table log (batch int)
                """)
            _ = try s.execute("insert into src values " + (0..<100).map { "(\($0))" }.joined(separator: ","))
            for _ in 0..<Int(log2(Double(rows / 100)).rounded(.up)) { _ = try s.execute("insert into src select id + (select count(*) from src) from src") }
            _ = try s.execute("delete from src where id >= \(rows)")
        }
        var committed = Set<Int>()
        var generator = SystemRandomNumberGenerator()
        var vacuums = 0
        for round in 0..<20 {
            // Each block: rows of batch k, a tenth deleted again, all updated, then logged.
            // Batches go in in falling order, so each VACUUM (every fifth block, from the second
            // block on, its forms in turn) merges new rows in front of the sorted ones and
            // reclaims deleted rows. The first VACUUM comes early enough that kills within the
            // window below also land after it on a slow (debug, loaded) build.
            var script = ""
            let forms = ["vacuum t", "vacuum delete only t", "vacuum sort only t", "vacuum t to 100 percent", "vacuum"]
            for j in 0..<40 {
                let k = round * 100 + 39 - j
                if j % 5 == 1 { script += forms[(round + j / 5) % forms.count] + ";\n" }
                script += """
                    begin;
                    insert into t select \(k), id, 0 from src;
                    delete from t where batch = \(k) and id % 10 = 0;
                    update t set v = 1 where batch = \(k);
                    insert into log values (\(k));
                    commit;
                    select 1 / 0;

                    """   // the error after COMMIT flushes its tag to the pipe before the next block
            }
            let path = (work as NSString).appendingPathComponent("round.sql")
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = ["-D", db, "-f", path]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            let delay = Double.random(in: 0.05...2.5, using: &generator)
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            vacuums += output.components(separatedBy: "VACUUM\n").count - 1
            let reported = output.components(separatedBy: "\nCOMMIT\n").count - 1
                + (output.hasPrefix("COMMIT\n") ? 1 : 0)

            let database = try Database(directory: db)
            let s = database.connect()
            let logged = Set(try s.execute("select batch from log")[0].textRows().compactMap { Int($0[0] ?? "") })
            let new = logged.subtracting(committed)
            XCTAssertTrue(committed.isSubset(of: logged), "round \(round): a committed block was lost")
            // Every COMMIT the process reported is there; at most one more (committed, killed before printing).
            XCTAssertGreaterThanOrEqual(new.count, reported, "round \(round), kill after \(delay) s: \(output.suffix(300))")
            XCTAssertLessThanOrEqual(new.count, reported + 1, "round \(round)")
            // Each logged block is whole, and nothing of an unlogged one is visible.
            let batches = try s.execute("select batch, count(*), min(v), max(v), max(id) from t group by batch")[0].textRows()
            XCTAssertEqual(Set(batches.compactMap { Int($0[0] ?? "") }), logged, "round \(round): rows without their log entry")
            for b in batches {
                XCTAssertEqual(Array(b[1...]), ["\(rows - rows / 10)", "1", "1", "\(rows - 1)"], "round \(round): batch \(b[0] ?? "")")
            }
            try assertNoLeftovers(db)
            committed = logged
        }
        XCTAssertGreaterThan(committed.count, 0, "no block ever committed before a kill")
        XCTAssertGreaterThan(vacuums, 0, "no VACUUM ever finished before a kill")
    }

    /// Single-row INSERTs keep their rows in the tail buffer (the commit record, no block
    /// file) until they fold into a file: `kill -9` at random points never loses one that
    /// committed, never shows one that did not, and leaves no stray file.
    func testKillDuringSingleRowInsertsKeepsEveryCommittedRow() throws {
        let exe = try Self.requireExecutable()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-crash-tail-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let db = (work as NSString).appendingPathComponent("db")
        do {
            let s = try Database(directory: db).connect()
            _ = try s.execute("create table t (id int, name varchar(30), note varchar(60)) diststyle even")
        }
        var committed = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<8 {
            let script = (committed..<(committed + 3000)).map {
                "insert into t values (\($0), 'name \($0)', 'a note of row \($0) of a crash test');\n"
            }.joined()
            let path = (work as NSString).appendingPathComponent("round.sql")
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = ["-D", db, "-f", path]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            let delay = Double.random(in: 0.05...1.5, using: &generator)
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // Tags reach the pipe in bursts: what was printed is a lower bound of what committed.
            let reported = output.components(separatedBy: "INSERT 0 1\n").count - 1

            let s = try Database(directory: db).connect()
            let r = try s.execute("select count(*), count(distinct id), coalesce(min(id), 0), coalesce(max(id), -1),"
                                  + " sum(case when name = 'name ' || id and note like 'a note of row ' || id || ' %' then 1 else 0 end) from t")[0].textRows()
            guard let row = r.first, let n = Int(row[0] ?? "") else { return XCTFail("round \(round): no count") }
            XCTAssertEqual(row, ["\(n)", "\(n)", "0", "\(n - 1)", "\(n)"], "round \(round): the rows are not exactly ids 0..<\(n)")
            XCTAssertGreaterThanOrEqual(n, committed + reported, "round \(round), kill after \(delay) s: a committed INSERT was lost")
            try assertNoLeftovers(db)
            committed = n
        }
        XCTAssertGreaterThan(committed, 0, "no INSERT ever committed before a kill")
    }

    /// Commits left in wal.log by a process that never closed the database are replayed at
    /// open; bytes after the last whole record (a commit cut off by a crash) are ignored.
    func testCommitLogIsReplayedAndATornTailIgnored() throws {
        let exe = try Self.requireExecutable()
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-wal-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: db) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["-D", db, "-c", "create table t (a int) diststyle even; insert into t values (1); insert into t values (2);"
                       + " begin; insert into t values (3); delete from t where a = 1; commit; create view v as select a from t"]
        p.standardOutput = Pipe()
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let log = (db as NSString).appendingPathComponent("wal.log")
        guard let h = FileHandle(forWritingAtPath: log) else { return XCTFail("no wal.log") }
        h.seekToEndOfFile()
        h.write(Data("SHWR".utf8 + [200, 0, 0, 0, 1, 2, 3, 4] + Array(repeating: UInt8(ascii: "x"), count: 50)))
        h.closeFile()
        let s = try Database(directory: db).connect()
        XCTAssertEqual(try s.execute("select a from v order by a")[0].textRows(), [["2"], ["3"]])
        _ = try s.execute("insert into t values (4)")
        XCTAssertEqual(try s.execute("select count(*) from t")[0].textRows(), [["3"]])
    }

    /// Every file under slice*/ is named by the manifest, and no temporary manifest remains.
    func assertNoLeftovers(_ db: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let fm = FileManager.default
        XCTAssertFalse(fm.fileExists(atPath: (db as NSString).appendingPathComponent("manifest.json.tmp")), file: file, line: line)
        guard let data = fm.contents(atPath: (db as NSString).appendingPathComponent("manifest.json")),
              let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            XCTFail("no readable manifest", file: file, line: line); return
        }
        var named = Set<String>()
        func walk(_ x: Any) {
            if let d = x as? [String: Any] {
                if let f = d["f"] as? String { named.insert(f) }
                if let f = d["deletes"] as? String { named.insert(f) }
                d.values.forEach(walk)
            } else if let a = x as? [Any] {
                a.forEach(walk)
            }
        }
        walk(json)
        for entry in try fm.contentsOfDirectory(atPath: db) where entry.hasPrefix("slice") {
            for f in try fm.contentsOfDirectory(atPath: (db as NSString).appendingPathComponent(entry)) {
                XCTAssertTrue(named.contains(entry + "/" + f), "leftover file \(entry)/\(f)", file: file, line: line)
            }
        }
    }
}
