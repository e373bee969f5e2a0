// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseStorage

/// A data directory that lost or damaged a file. Opening once deleted every block file
/// when `manifest.json` was missing (or a directory, or only `manifest.json.tmp` was
/// left) and showed an empty database; unchecked manifests and deleted-row files turned
/// single-bit flips into wrong answers; one bad deleted-row file made the whole database
/// unopenable. Now: opening refuses and deletes nothing, every flip is an error naming
/// the file, and a damaged table is quarantined while the others work.
final class DamagedDirectoryTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-damage-\(UUID().uuidString)").path
        let s = try Database(directory: dir).connect()
        _ = try s.execute("""
            create table a (x int, d date, note varchar(20)) distkey(x) sortkey(d);
            insert into a values (1, '2020-01-01', 'one'), (2, '2020-02-01', 'two'), (3, '2020-03-01', 'three'),
                                 (4, '2020-04-01', 'four'), (5, '2020-05-01', null), (6, '2020-06-01', 'six');
            create table b (y int) diststyle even;
            insert into b values (10), (20), (30), (40);
            vacuum a;
            vacuum b;
            delete from b where y = 20;
            create view v as select x from a where x > 2;
            """)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func path(_ name: String) -> String { (dir as NSString).appendingPathComponent(name) }

    /// Every file of the directory with its bytes.
    private func contents() throws -> [String: Data] {
        var out: [String: Data] = [:]
        let fm = FileManager.default
        for entry in try fm.subpathsOfDirectory(atPath: dir) where entry != "LOCK" {
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: path(entry), isDirectory: &isDirectory), !isDirectory.boolValue {
                out[entry] = fm.contents(atPath: path(entry))
            }
        }
        return out
    }

    private func value(_ s: Session, _ sql: String) throws -> String? { try s.execute(sql).last?.textRows().first?.first ?? nil }

    private func checkAnswers(_ s: Session) throws {
        XCTAssertEqual(try value(s, "select count(*) || ',' || sum(x) from a where d between '2020-02-01' and '2020-05-01'"), "4,14")
        XCTAssertEqual(try value(s, "select count(*) || ',' || sum(y) from b"), "3,80")
        XCTAssertEqual(try value(s, "select count(*) from v"), "4")
    }

    private func dataFiles(_ suffix: String) throws -> [String] {
        try contents().keys.filter { $0.hasPrefix("slice") && $0.hasSuffix(suffix) }.sorted()
    }

    // MARK: - Missing manifest

    func testMissingManifestRefusesToOpenAndDeletesNothing() throws {
        let before = try contents()
        let manifest = try XCTUnwrap(before[Manifest.fileName])
        let fm = FileManager.default
        // Missing; a directory in its place; only the temporary file left.
        let damages: [(String, () throws -> Void)] = [
            ("missing", { try fm.removeItem(atPath: self.path(Manifest.fileName)) }),
            ("a directory", {
                try fm.removeItem(atPath: self.path(Manifest.fileName))
                try fm.createDirectory(atPath: self.path(Manifest.fileName), withIntermediateDirectories: false)
            }),
            ("only manifest.json.tmp", { try fm.moveItem(atPath: self.path(Manifest.fileName), toPath: self.path(Manifest.fileName + ".tmp")) }),
        ]
        for (name, damage) in damages {
            try damage()
            let left = try contents()
            XCTAssertThrowsError(try Database(directory: dir), name) { e in
                XCTAssertTrue("\(e)".contains("Nothing was changed or deleted"), "\(name): \(e)")
            }
            XCTAssertEqual(try contents(), left, "\(name): opening changed the directory")
            // Put the manifest back: everything is there.
            try? fm.removeItem(atPath: path(Manifest.fileName))
            try? fm.removeItem(atPath: path(Manifest.fileName + ".tmp"))
            try manifest.write(to: URL(fileURLWithPath: path(Manifest.fileName)))
            try checkAnswers(try Database(directory: dir).connect())
        }
    }

    func testTheTemporaryManifestOfAnInterruptedFirstCommitCanBeRenamed() throws {
        // The error says renaming manifest.json.tmp recovers the commit it describes.
        let fm = FileManager.default
        try fm.moveItem(atPath: path(Manifest.fileName), toPath: path(Manifest.fileName + ".tmp"))
        XCTAssertThrowsError(try Database(directory: dir)) { e in XCTAssertTrue("\(e)".contains("manifest.json.tmp"), "\(e)") }
        try fm.moveItem(atPath: path(Manifest.fileName + ".tmp"), toPath: path(Manifest.fileName))
        try checkAnswers(try Database(directory: dir).connect())
    }

    func testMissingClusterLayoutRefusesToOpenAndWritesNothing() throws {
        let layout = try XCTUnwrap(try contents()["cluster.json"])
        try FileManager.default.removeItem(atPath: path("cluster.json"))
        let left = try contents()
        XCTAssertThrowsError(try Database(directory: dir, cluster: ClusterConfig(nodes: 1, slicesPerNode: 3))) { e in
            XCTAssertTrue("\(e)".contains("cluster.json"), "\(e)")
        }
        XCTAssertEqual(try contents(), left, "a default cluster.json was written")
        try layout.write(to: URL(fileURLWithPath: path("cluster.json")))
        try checkAnswers(try Database(directory: dir).connect())
    }

    func testANewDirectoryWithoutDataOpens() throws {
        let fresh = dir + "-fresh"
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        XCTAssertEqual(try value(try Database(directory: fresh).connect(), "select 1"), "1")
        XCTAssertEqual(try value(try Database(directory: fresh).connect(), "select 2"), "2")
    }

    // MARK: - Checksums

    func testEverySingleBitFlipOfTheManifestIsAnError() throws {
        let manifest = try XCTUnwrap(try contents()[Manifest.fileName])
        let before = try contents()
        // Every byte, a different bit each time; every bit of the checksum's eight hex digits
        // (a flip of bit 5 turned `a` into `A`, which the hex parser took as the same digit).
        let flips = (0..<manifest.count).map { ($0, UInt8(1 << ($0 % 8))) }
            + (13..<21).flatMap { offset in (0..<8).map { (offset, UInt8(1 << $0)) } }
        XCTAssertTrue(manifest.starts(with: Array(#"{"checksum":""#.utf8)))
        for (offset, bit) in flips {
            var damaged = manifest
            damaged[offset] ^= bit
            try damaged.write(to: URL(fileURLWithPath: path(Manifest.fileName)))
            XCTAssertThrowsError(try Database(directory: dir), "flip of \(bit) at \(offset) was not noticed") { e in
                XCTAssertTrue("\(e)".contains("manifest"), "\(e)")
            }
        }
        try manifest.write(to: URL(fileURLWithPath: path(Manifest.fileName)))
        XCTAssertEqual(try contents(), before, "a refused open deleted files")
        try checkAnswers(try Database(directory: dir).connect())
    }

    func testADamagedDeletedRowFileQuarantinesOnlyItsTable() throws {
        let files = try dataFiles("." + DeleteFile.fileExtension)
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let original = try XCTUnwrap(try contents()[file])
            for offset in 0..<original.count {
                var damaged = original
                damaged[offset] ^= UInt8(1 << (offset % 8))
                try damaged.write(to: URL(fileURLWithPath: path(file)))
                let s = try Database(directory: dir).connect()
                XCTAssertThrowsError(try s.execute("select count(*) from b"), "flip at \(file):\(offset)") { e in
                    XCTAssertTrue("\(e)".contains("table \"b\" is damaged"), "\(e)")
                    XCTAssertTrue("\(e)".contains(file), "\(e)")
                }
                // The other table and its view work, and so do commits to them.
                XCTAssertEqual(try value(s, "select count(*) from v"), "4")
                _ = try s.execute("insert into a values (100, '2021-01-01', 'later'); delete from a where x = 100")
            }
            // Truncated to nothing.
            try Data().write(to: URL(fileURLWithPath: path(file)))
            XCTAssertThrowsError(try Database(directory: dir).connect().execute("insert into b values (1)"))
            try original.write(to: URL(fileURLWithPath: path(file)))
        }
        // The quarantined table survived those commits unchanged.
        try checkAnswers(try Database(directory: dir).connect())
    }

    func testDroppingADamagedTableRecovers() throws {
        let file = try XCTUnwrap(try dataFiles("." + DeleteFile.fileExtension).first)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path(file)))
        do {
            let s = try Database(directory: dir).connect()
            XCTAssertThrowsError(try s.execute("update b set y = 0"))
            XCTAssertThrowsError(try s.execute("truncate b"))
            _ = try s.execute("drop table b")
        }
        let s = try Database(directory: dir).connect()
        XCTAssertThrowsError(try s.execute("select * from b")) { e in XCTAssertTrue("\(e)".contains("does not exist"), "\(e)") }
        XCTAssertEqual(try value(s, "select count(*) from a"), "6")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(file)), "the dropped table's files are leftovers")
    }

    func testADamagedBlockNamesItsFileTableAndColumn() throws {
        // The block files of table a: damage each one's first block header; the scan of
        // any column reading it names the table, the column and the file.
        let tableID = try XCTUnwrap(Manifest.decode(Array(try XCTUnwrap(try contents()[Manifest.fileName])), path: "m")
            .tables.first { $0.name == "a" }?.id)
        for file in try dataFiles(".blk") where file.contains("/t\(tableID)_") {
            let original = try XCTUnwrap(try contents()[file])
            var damaged = original
            damaged[20] ^= 0x40
            try damaged.write(to: URL(fileURLWithPath: path(file)))
            let s = try Database(directory: dir).connect()
            XCTAssertThrowsError(try s.execute("select sum(x), max(d), max(note) from a")) { e in
                let text = "\(e)"
                XCTAssertTrue(text.contains("table \"a\""), text)
                XCTAssertTrue(text.contains("column \""), text)
                XCTAssertTrue(text.contains(file), text)
            }
            XCTAssertEqual(try value(s, "select count(*) from b"), "3")
            try original.write(to: URL(fileURLWithPath: path(file)))
        }
    }

    /// A block of the tail buffer lives in the manifest (`d`, base64): a damaged one is an
    /// error naming its table (impossible base64 or length at open; a checksum that fails
    /// when the block is read, with the table and column), and the other tables work.
    func testADamagedHeldBlockIsAnError() throws {
        do {
            let s = try Database(directory: dir).connect()
            _ = try s.execute("create table c (z int, w varchar(10)) diststyle even; insert into c values (7, 'seven')")
        }
        let original = Array(try XCTUnwrap(try contents()[Manifest.fileName]))
        let m = try Manifest.decode(original, path: "m")
        let t = try XCTUnwrap(m.tables.firstIndex { $0.name == "c" })
        let s = try XCTUnwrap(m.tables[t].slices.firstIndex { !$0.columns[1].isEmpty })
        let held = try XCTUnwrap(m.tables[t].slices[s].columns[1].first?.d)
        var bytes = try XCTUnwrap(Data(base64Encoded: held))
        bytes[bytes.count - 1] ^= 0x10
        let cases: [(String, (inout Manifest) -> Void)] = [
            ("tail-buffer block", { $0.tables[t].slices[s].columns[1][0].d = "!!!!" }),
            ("tail-buffer block", { $0.tables[t].slices[s].columns[1][0].l += 3 }),
            ("tail-buffer block", { $0.tables[t].slices[s].columns[1][0].f = "slice0/x.blk" }),
            ("column \"w\"", { $0.tables[t].slices[s].columns[1][0].d = bytes.base64EncodedString() }),
        ]
        for (why, damage) in cases {
            var damaged = m
            damage(&damaged)
            try Data(try damaged.fileBytes()).write(to: URL(fileURLWithPath: path(Manifest.fileName)))
            // Impossible entries are refused at open, a failing checksum when the block is read.
            XCTAssertThrowsError(try Database(directory: dir).connect().execute("select max(w) from c"), why) { e in
                XCTAssertTrue("\(e)".contains(why), "\(why): \(e)")
                XCTAssertTrue("\(e)".contains("\"c\""), "\(why): \(e)")
            }
        }
        XCTAssertEqual(try value(try Database(directory: dir).connect(), "select count(*) from v"), "4",
                       "the other tables work beside a held block that fails its checksum")
        try Data(original).write(to: URL(fileURLWithPath: path(Manifest.fileName)))
        XCTAssertEqual(try value(try Database(directory: dir).connect(), "select max(w) from c"), "seven")
    }

    func testAFormatOneManifestStillOpensAndIsRewrittenWithAChecksum() throws {
        let manifest = Array(try XCTUnwrap(try contents()[Manifest.fileName]))
        var m = try Manifest.decode(manifest, path: "m")
        m.formatVersion = 1
        try Data(try m.encoded()).write(to: URL(fileURLWithPath: path(Manifest.fileName)))
        do {
            let s = try Database(directory: dir).connect()
            try checkAnswers(s)
            _ = try s.execute("insert into b values (50); delete from b where y = 50")
        }
        XCTAssertTrue(String(decoding: try XCTUnwrap(try contents()[Manifest.fileName]), as: UTF8.self).hasPrefix("{\"checksum\":\""))
        try checkAnswers(try Database(directory: dir).connect())
    }

    /// A manifest whose checksum holds but whose content is impossible (a bug, or a file
    /// edited by hand) trapped on array indexes: a block of length -1, two tables with one
    /// id, fewer encodings than columns, a placement or sort key naming column 99, a block
    /// file outside the directory. Each is now an error naming the table; nothing is deleted.
    func testAnInconsistentManifestWithAValidChecksumIsAnError() throws {
        let original = Array(try XCTUnwrap(try contents()[Manifest.fileName]))
        let before = try dataFiles(".blk")
        // A table with a block on slice 0 (a's rows are placed by key, b's round robin).
        let tables = try Manifest.decode(original, path: "m").tables
        let t = try XCTUnwrap(tables.firstIndex { !$0.slices[0].columns[0].isEmpty })
        let other = 1 - t, name = tables[t].name
        let cases: [(String, (inout Manifest) -> Void)] = [
            ("block", { $0.tables[t].slices[0].columns[0][0].l = -1 }),
            ("block", { $0.tables[t].slices[0].columns[0][0].l = 1 << 40 }),
            ("block", { $0.tables[t].slices[0].columns[0][0].n = .max }),   // first row + rows overflowed
            ("block file", { $0.tables[t].slices[0].columns[0][0].f = "../../outside.blk" }),
            ("listed twice", { $0.tables[other].id = $0.tables[t].id }),
            ("listed twice", { $0.tables[other].name = $0.tables[t].name }),
            ("encodings", { $0.tables[t].encodings = [] }),
            ("placement", { $0.tables[t].placement = "key:99" }),
            ("placement", { $0.tables[t].placement = "key:-1" }),
            ("sort key", { $0.tables[t].sortKey = [99] }),
            ("distribution key", { $0.tables[t].distKey = 99 }),
            ("EVEN cursor", { $0.tables[t].evenCursor = -1 }),
            ("decimal", { $0.tables[t].columns[0].type = "decimal"; $0.tables[t].columns[0].precision = 99 }),
        ]
        for (why, damage) in cases {
            var m = try Manifest.decode(original, path: "m")
            damage(&m)
            try Data(try m.fileBytes()).write(to: URL(fileURLWithPath: path(Manifest.fileName)))
            XCTAssertThrowsError(try Database(directory: dir).connect().execute("select count(*) from \(name)"), why) { e in
                XCTAssertTrue("\(e)".contains(why), "\(why): \(e)")
            }
            XCTAssertEqual(try dataFiles(".blk"), before, why)
        }
        try Data(original).write(to: URL(fileURLWithPath: path(Manifest.fileName)))
        try checkAnswers(try Database(directory: dir).connect())
    }
}
