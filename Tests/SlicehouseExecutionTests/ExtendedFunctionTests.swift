// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

final class ExtendedFunctionTests: XCTestCase {

    /// SHA2(text, bits) and MD5(text) as the SQL functions compute them (the kernels).
    private func sha(_ s: String, _ bits: Int) -> String {
        var text = Vector(type: .varchar(65535)), width = Vector(type: .integer)
        text.append(.string(s))
        width.append(.int(Int64(bits)))
        guard let r = try? HashFunctions.sha2([text, width], resultType: .varchar(128), n: 1),
              case .string(let digest) = r.value(at: 0) else { return "error" }
        return digest
    }
    private func md5(_ s: String) -> String {
        var text = Vector(type: .varchar(65535))
        text.append(.string(s))
        guard let r = try? HashFunctions.md5(text, resultType: .varchar(32), n: 1),
              case .string(let digest) = r.value(at: 0) else { return "error" }
        return digest
    }

    /// FIPS 180-4 / NIST example vectors (one block, two blocks, empty, 1000 bytes).
    func testSHA2Vectors() {
        let m1 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        let m2 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        XCTAssertEqual(sha("abc", 224), "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
        XCTAssertEqual(sha(m1, 224), "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525")
        XCTAssertEqual(sha("", 224), "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f")
        XCTAssertEqual(sha("abc", 256), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(sha(m1, 256), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(sha("", 256), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(sha(String(repeating: "a", count: 1000), 256), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        XCTAssertEqual(sha("abc", 384), "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        XCTAssertEqual(sha(m2, 384), "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039")
        XCTAssertEqual(sha("", 384), "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b")
        XCTAssertEqual(sha("abc", 512), "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        XCTAssertEqual(sha(m2, 512), "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909")
        XCTAssertEqual(sha("", 512), "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")
        XCTAssertEqual(sha(String(repeating: "a", count: 1000), 512), "67ba5535a46e3f86dbfbed8cbbaf0125c76ed549ff8b0b9e03e0c88cf90fa634fa7b12b47d77b694de488ace8d9a65967dc96df599727d3292a8d9d447709c97")
        // Padding boundaries: 55, 56, 63, 64, 111, 112 bytes.
        XCTAssertEqual(sha(String(repeating: "a", count: 55), 256), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        XCTAssertEqual(sha(String(repeating: "a", count: 56), 256), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
    }

    /// RFC 1321 test suite.
    func testMD5Vectors() {
        XCTAssertEqual(md5(""), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(md5("a"), "0cc175b9c0f1b6a831c399e269772661")
        XCTAssertEqual(md5("abc"), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(md5("message digest"), "f96b697d7cb7938d525a2f31aaf161d0")
        XCTAssertEqual(md5("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b")
        XCTAssertEqual(md5(String(repeating: "1234567890", count: 8)), "57edf4a22be3c955ac49da2e2107b67a")
    }

    func testHashKernelsOverColumns() throws {
        let c = chunk(strs(["abc", nil, ""]), ints([256, 384, 5]))
        XCTAssertEqual(try evalRows(E.fn("md5", [E.col(0, .text)]), c),
                       ["900150983cd24fb0d6963f7d28e17f72", nil, "d41d8cd98f00b204e9800998ecf8427e"])
        XCTAssertEqual(try evalRows(E.fn("sha2", [E.col(0, .text), E.col(1, .integer)]), c),
                       ["ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", nil, nil])
        XCTAssertEqual(try run1(E.fn("fnv_hash", [E.str("abc")])), "-1792535898324117685")
    }

    func testToCharDatetime() throws {
        let ts = E.ts("2024-03-05 14:07:09.123456")
        XCTAssertEqual(try run1(E.fn("to_char", [ts, E.str("YYYY-MM-DD HH24:MI:SS.US")])), "2024-03-05 14:07:09.123456")
        XCTAssertEqual(try run1(E.fn("to_char", [ts, E.str("Day, DD Month YYYY")])), "Tuesday  , 05 March     2024")
        XCTAssertEqual(try run1(E.fn("to_char", [ts, E.str("FMDay, FMDD FMMonth YYYY \"Q\"Q")])), "Tuesday, 5 March 2024 Q1")
        XCTAssertEqual(try run1(E.fn("to_char", [E.ts("1970-01-01 00:00:00"), E.str("J CC IYYY-IW D")])), "2440588 20 1970-01 5")
        XCTAssertEqual(try run1(E.fn("to_char", [E.date("1969-12-31"), E.str("YYYY-MM-DD DY")])), "1969-12-31 WED")
        let c = chunk(dates(["2024-02-29", nil]), strs(["MM/DD", "YYYY"]))
        XCTAssertEqual(try evalRows(E.fn("to_char", [E.col(0, .date), E.col(1, .text)]), c), ["02/29", nil])
    }

    func testToCharNumeric() throws {
        XCTAssertEqual(try run1(E.fn("to_char", [E.dec("-0.5", 4, 2), E.str("9.99")])), " -.50")
        XCTAssertEqual(try run1(E.fn("to_char", [E.dec("0.5", 4, 2), E.str("0.99")])), " 0.50")
        XCTAssertEqual(try run1(E.fn("to_char", [E.dec("9.995", 5, 3), E.str("9.99")])), " #.##")
        XCTAssertEqual(try run1(E.fn("to_char", [E.dec("1234567.891", 12, 3), E.str("9,999,999.99")])), " 1,234,567.89")
        XCTAssertEqual(try run1(E.fn("to_char", [E.int(-42), E.str("FM999")])), "-42")
        XCTAssertEqual(try run1(E.fn("to_char", [E.int(42), E.str("FM999S")])), "42+")
        XCTAssertEqual(try run1(E.fn("to_char", [E.dbl(-2.5), E.str("9.9")])), "-2.5")
    }

    func testToDateAndTimestamp() throws {
        XCTAssertEqual(try run1(E.fn("to_date", [E.str("March 5, 2024"), E.str("Month DD, YYYY")])), "2024-03-05")
        XCTAssertEqual(try run1(E.fn("to_date", [E.str("2024-065"), E.str("YYYY-DDD")])), "2024-03-05")
        XCTAssertEqual(try run1(E.fn("to_timestamp", [E.str("05.03.2024 14:07:09.5"), E.str("DD.MM.YYYY HH24:MI:SS.MS")])),
                       "2024-03-05 14:07:09.5")
        assertError(try E.fn("to_timestamp", [E.str("13:00 PM"), E.str("HH12:MI AM")]), "hour \"13\" is invalid for the 12-hour clock")
        let c = chunk(strs(["01/02/2003", nil, "31/12/1999"]))
        XCTAssertEqual(try evalRows(E.fn("to_date", [E.col(0, .text), E.str("DD/MM/YYYY")]), c), ["2003-02-01", nil, "1999-12-31"])
    }

    func testToNumber() throws {
        let e = try E.fn("to_number", [E.str("-1,234.567"), E.str("9,999.99")])
        XCTAssertEqual(e.type, .decimal(precision: 6, scale: 2))
        XCTAssertEqual(try run1(e), "-1234.57")
        XCTAssertEqual(try run1(E.fn("to_number", [E.str("<42>"), E.str("999PR")])), "-42")
    }

    func testDecode() throws {
        let c = chunk(ints([1, 2, nil, 4]), strs(["a", "b", "c", "d"]))
        let e = try E.fn("decode", [E.col(0, .integer), E.int(1), E.str("one"), E.null(.unknown), E.str("null"), E.col(1, .text)])
        XCTAssertEqual(try evalRows(e, c), ["one", "b", "null", "d"])
        XCTAssertThrowsError(try E.fn("decode", [E.int(1), E.int(2)]))
        XCTAssertThrowsError(try E.fn("decode", [E.int(1), E.bool(true), E.int(2)]))
    }

    func testRegex() throws {
        XCTAssertEqual(try RegexFunctions.similarToRegex("a_%.b", escape: nil), "^(?:a..*\\.b)$")
        XCTAssertEqual(RegexFunctions.template("\\1-$x\\\\"), "$1-\\$x\\\\")
        let c = chunk(strs(["straße 12", "ÄÖü 3", nil]))
        XCTAssertEqual(try evalRows(E.fn("regexp_instr", [E.col(0, .text), E.str("[0-9]")]), c), ["8", "5", nil])
        XCTAssertEqual(try evalRows(E.fn("regexp_substr", [E.col(0, .text), E.str("[a-zß]+"), E.int(2)]), c), ["traße", "", nil])
        assertError(try E.fn("regexp_count", [E.str("a"), E.str("a"), E.int(1), E.str("z")]), "invalid regular expression parameter: \"z\"")
        XCTAssertThrowsError(try E.fn("regexp_substr", [E.int(1)]))
    }

    func testNextDayAndDateCmp() throws {
        XCTAssertEqual(try run1(E.fn("next_day", [E.ts("2024-03-05 10:00:00"), E.str("Sa")])), "2024-03-09")
        XCTAssertEqual(try run1(E.fn("date_cmp", [E.ts("2024-03-05 10:00:00"), E.date("2024-03-05")])), "1")
        XCTAssertThrowsError(try E.fn("next_day", [E.int(1), E.str("monday")]))
    }
}
