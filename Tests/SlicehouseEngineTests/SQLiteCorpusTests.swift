// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseSQLLogicTest

/// SQLite's public sqllogictest corpus (`sqlite/select1.test`–`select5.test`, unchanged)
/// runs in scripts/test with the release build at 1 slice and at 4 slices (a debug build
/// spends minutes formatting and hashing its 10,706 results); only the records
/// `sqlite/skip.txt` lists, each with its reason, are left out. Here: the skip list itself.
final class SQLiteCorpusTests: XCTestCase {
    static var directory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("sqlite").path
    }

    func testSkipListOfTheCorpusGivesReasons() throws {
        let list = try SQLLogicTestSkipList(contentsOf: Self.directory + "/skip.txt")
        XCTAssertFalse(list.entries.isEmpty)
        for e in list.entries {
            XCTAssertGreaterThan(e.reason.count, 20, "\(e.file):\(e.lines) needs a reason")
            XCTAssertTrue(FileManager.default.fileExists(atPath: Self.directory + "/" + e.file), e.file)
        }
    }

    func testSkipListFormat() throws {
        let list = try SQLLogicTestSkipList(parsing: "# comment\nselect4.test:10-12 no indexes\nx.test:7 reason here\n")
        XCTAssertEqual(list.entries.count, 2)
        XCTAssertTrue(list.skips(file: "/a/b/select4.test", line: 11))
        XCTAssertFalse(list.skips(file: "/a/b/select4.test", line: 13))
        XCTAssertTrue(list.skips(file: "x.test", line: 7))
        XCTAssertFalse(list.skips(file: "y.test", line: 7))
        XCTAssertThrowsError(try SQLLogicTestSkipList(parsing: "select4.test:10\n"))
        XCTAssertThrowsError(try SQLLogicTestSkipList(parsing: "select4.test:x reason\n"))
    }
}
