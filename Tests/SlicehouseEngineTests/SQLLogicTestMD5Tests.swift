// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQLLogicTest
import XCTest

final class SQLLogicTestMD5Tests: XCTestCase {
    /// The test suite of RFC 1321, appendix A.5.
    func testRFC1321Vectors() {
        let vectors: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890",
             "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (input, digest) in vectors {
            XCTAssertEqual(MD5.hex(input), digest, "MD5(\"\(input)\")")
        }
    }

    func testPaddingBoundaries() {
        // 55, 56, 63, 64 and 65 bytes straddle the length-field boundary of the padding.
        XCTAssertEqual(MD5.hex(String(repeating: "a", count: 55)), "ef1772b6dff9a122358552954ad0df65")
        XCTAssertEqual(MD5.hex(String(repeating: "a", count: 56)), "3b0c8ac703f828b04c6c197006d17218")
        XCTAssertEqual(MD5.hex(String(repeating: "a", count: 63)), "b06521f39153d618550606be297466d5")
        XCTAssertEqual(MD5.hex(String(repeating: "a", count: 64)), "014842d480b571495a4a0363793f7367")
        XCTAssertEqual(MD5.hex(String(repeating: "a", count: 65)), "c743a45e0d2e6a95cb859adae0248435")
    }

    func testMillionAs() {
        var md5 = MD5()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { md5.update(chunk) }
        XCTAssertEqual(md5.hexDigest(), "7707d6ae4e027c70eea2a935c2296f21")
    }

    func testIncrementalUpdatesMatchOneShot() {
        let text = "The quick brown fox jumps over the lazy dog"
        XCTAssertEqual(MD5.hex(text), "9e107d9d372bb6826bd81d3542a419d6")
        var md5 = MD5()
        for piece in ["The quick ", "brown fox jumps", " over the lazy dog"] { md5.update(piece) }
        XCTAssertEqual(md5.hexDigest(), "9e107d9d372bb6826bd81d3542a419d6")
        // digest() does not consume the state.
        XCTAssertEqual(md5.hexDigest(), "9e107d9d372bb6826bd81d3542a419d6")
        XCTAssertEqual(md5.digest().count, 16)
    }

    func testSQLLogicTestHashJoinsValuesWithTrailingNewlines() {
        // md5("1\n2\n3\n")
        XCTAssertEqual(SQLLogicTestRunner.hash(["1", "2", "3"]), "c0710d6b4f15dfa88f600b0e6b624077")
        XCTAssertEqual(SQLLogicTestRunner.hash([]), "d41d8cd98f00b204e9800998ecf8427e")
    }
}
