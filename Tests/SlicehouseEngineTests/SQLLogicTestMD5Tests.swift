// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQLLogicTest
import XCTest

/// sqllogictest's result hash (swift-crypto's MD5 of every value followed by a newline).
final class SQLLogicTestMD5Tests: XCTestCase {
    func testSQLLogicTestHashJoinsValuesWithTrailingNewlines() {
        // md5("1\n2\n3\n")
        XCTAssertEqual(SQLLogicTestRunner.hash(["1", "2", "3"]), "c0710d6b4f15dfa88f600b0e6b624077")
        XCTAssertEqual(SQLLogicTestRunner.hash([]), "d41d8cd98f00b204e9800998ecf8427e")
        // md5("The quick brown fox jumps over the lazy dog\n") — one value, not pieces of one.
        XCTAssertNotEqual(SQLLogicTestRunner.hash(["The quick ", "brown fox"]),
                          SQLLogicTestRunner.hash(["The quick brown fox"]))
    }
}
