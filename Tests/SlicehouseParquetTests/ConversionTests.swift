// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// Reading Parquet columns into Slicehouse types other than their natural one.
final class ConversionTests: XCTestCase {
    /// Write one column and return the file.
    func file(_ type: DataType, _ v: Vector) throws -> ParquetFile {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("c.parquet").path
        let w = try ParquetWriter(path: path, columns: [("c", type)], compression: .none)
        try w.append(Chunk(columns: [v], count: v.count))
        try w.close()
        return try ParquetFile(path: path)
    }

    func read(_ pf: ParquetFile, as type: DataType, options: ParquetReadOptions = ParquetReadOptions()) throws -> [String?] {
        let v = try pf.readAll(columns: [0], as: [type], options: options)[0]
        XCTAssertEqual(v.type, type)
        return canonicalColumn(v, count: v.count)
    }

    func assertError(_ pf: ParquetFile, as type: DataType, code: SQLError.Code, contains text: String,
                     options: ParquetReadOptions = ParquetReadOptions(), line: UInt = #line) {
        XCTAssertThrowsError(try pf.readAll(columns: [0], as: [type], options: options), line: line) { e in
            guard let e = e as? SQLError else { return XCTFail("not an SQLError: \(e)", line: line) }
            XCTAssertEqual(e.code, code, e.message, line: line)
            XCTAssertTrue(e.message.contains(text), e.message, line: line)
            XCTAssertTrue(e.message.contains("column \"c\""), e.message, line: line)
            XCTAssertTrue(e.message.contains("c.parquet"), e.message, line: line)
        }
    }

    func testIntegerWideningAndNarrowing() throws {
        let pf = try file(.bigint, makeVector(.bigint, ints: [1, -32768, 32767, nil, 70000]))
        XCTAssertEqual(try read(pf, as: .bigint), ["1", "-32768", "32767", nil, "70000"])
        XCTAssertEqual(try read(pf, as: .integer), ["1", "-32768", "32767", nil, "70000"])
        assertError(pf, as: .smallint, code: .numericOutOfRange, contains: "value 70000 is out of range for type smallint")
        let small = try file(.smallint, makeVector(.smallint, ints: [-5, nil, 32767]))
        XCTAssertEqual(try read(small, as: .bigint), ["-5", nil, "32767"])
        XCTAssertEqual(try read(small, as: .integer), ["-5", nil, "32767"])
        let big = try file(.bigint, makeVector(.bigint, ints: [Int64.max]))
        assertError(big, as: .integer, code: .numericOutOfRange, contains: "out of range for type integer")
    }

    func testIntegersToDecimalsAndDoubles() throws {
        let pf = try file(.integer, makeVector(.integer, ints: [12, -3, nil, 2_000_000_000]))
        XCTAssertEqual(try read(pf, as: .decimal(precision: 12, scale: 2)), ["1200", "-300", nil, "200000000000"])
        XCTAssertEqual(try read(pf, as: .decimal(precision: 30, scale: 5)), ["1200000", "-300000", nil, "200000000000000"])
        assertError(pf, as: .decimal(precision: 5, scale: 2), code: .numericOutOfRange, contains: "numeric(5,2)")
        XCTAssertEqual(try read(pf, as: .double), ["12", "-3", nil, "2000000000"].map { $0.map { String(Int64(bitPattern: Double($0)!.bitPattern)) } })
    }

    func testDecimalRescaling() throws {
        let pf = try file(.decimal(precision: 9, scale: 2), makeVector(.decimal(precision: 9, scale: 2), ints: [125, -125, 124, nil, 99_999]))
        XCTAssertEqual(try read(pf, as: .decimal(precision: 12, scale: 4)), ["12500", "-12500", "12400", nil, "9999900"])
        // 1.25 → 1.3 and -1.25 → -1.3 (half away from zero), 1.24 → 1.2.
        XCTAssertEqual(try read(pf, as: .decimal(precision: 6, scale: 1)), ["13", "-13", "12", nil, "10000"])
        XCTAssertEqual(try read(pf, as: .integer), ["1", "-1", "1", nil, "1000"])
        assertError(pf, as: .decimal(precision: 4, scale: 1), code: .numericOutOfRange, contains: "value 999.99 is out of range")
        XCTAssertEqual(try read(pf, as: .double).first ?? nil, String(Int64(bitPattern: 1.25.bitPattern)))
        XCTAssertEqual(try read(pf, as: .decimal(precision: 25, scale: 3)), ["1250", "-1250", "1240", nil, "999990"])
    }

    func testWideDecimals() throws {
        let max38 = DecimalMath.maxValue(precision: 38)
        let pf = try file(.decimal(precision: 38, scale: 10), makeVector(.decimal(precision: 38, scale: 10),
                                                                          wides: [12_345_000_000, -max38, nil, 5_000_000_000]))
        XCTAssertEqual(try read(pf, as: .decimal(precision: 38, scale: 10)), ["12345000000", String(-max38), nil, "5000000000"])
        assertError(pf, as: .decimal(precision: 18, scale: 2), code: .numericOutOfRange, contains: "out of range for type numeric(18,2)")
        let small = try file(.decimal(precision: 38, scale: 10), makeVector(.decimal(precision: 38, scale: 10),
                                                                             wides: [12_345_000_000, -15_000_000_000, nil]))
        XCTAssertEqual(try read(small, as: .decimal(precision: 18, scale: 1)), ["12", "-15", nil])
        XCTAssertEqual(try read(small, as: .bigint), ["1", "-2", nil])
        XCTAssertEqual(try read(small, as: .decimal(precision: 20, scale: 12)), ["1234500000000", "-1500000000000", nil])
    }

    func testDatesAndTimestamps() throws {
        let dates = try file(.date, makeVector(.date, ints: [0, -1, 19_000, nil]))
        XCTAssertEqual(try read(dates, as: .timestamp), ["0", String(-DateTime.microsPerDay), String(19_000 * DateTime.microsPerDay), nil])
        let ts = try file(.timestamp, makeVector(.timestamp, ints: [0, -1, DateTime.microsPerDay + 5, nil]))
        XCTAssertEqual(try read(ts, as: .date), ["0", "-1", "1", nil], "timestamps floor to their day")
        assertError(ts, as: .bigint, code: .datatypeMismatch, contains: "cannot load Parquet INT64")
    }

    func testFloatingPoint() throws {
        let pf = try file(.double, makeVector(.double, doubles: [1.005, -2.5, nil, 1e30]))
        XCTAssertEqual(try read(pf, as: .real), [Double(Float(1.005)), -2.5, nil, Double(Float(1e30))].map { $0.map { String(Int64(bitPattern: $0.bitPattern)) } })
        assertError(pf, as: .decimal(precision: 10, scale: 2), code: .numericOutOfRange, contains: "out of range")
        let ok = try file(.double, makeVector(.double, doubles: [2.5, -2.5, 0.125, nil]))
        XCTAssertEqual(try read(ok, as: .decimal(precision: 10, scale: 2)), ["250", "-250", "13", nil])
        XCTAssertEqual(try read(ok, as: .integer), ["3", "-3", "0", nil])
        XCTAssertEqual(try read(ok, as: .decimal(precision: 30, scale: 1)), ["25", "-25", "1", nil])
        let nan = try file(.double, makeVector(.double, doubles: [.nan]))
        assertError(nan, as: .bigint, code: .numericOutOfRange, contains: "nan")
        let real = try file(.real, makeVector(.real, doubles: [0.1, nil]))
        XCTAssertEqual(try read(real, as: .double), [String(Int64(bitPattern: Double(Float(0.1)).bitPattern)), nil])
    }

    func testStrings() throws {
        let pf = try file(.varchar(20), makeVector(.varchar(20), strings: ["héllo", "ab  ", "", nil, "日本"]))
        XCTAssertEqual(try read(pf, as: .varchar(20)), ["héllo", "ab  ", "", nil, "日本"])
        XCTAssertEqual(try read(pf, as: .char(6)), ["héllo", "ab", "", nil, "日本"], "CHAR drops trailing blanks")
        assertError(pf, as: .varchar(5), code: .stringTooLong, contains: "string of 6 bytes exceeds DDL length of type character varying(5)")
        XCTAssertEqual(try read(pf, as: .varchar(2), options: ParquetReadOptions(truncateColumns: true)),
                       ["h", "ab", "", nil, ""], "truncation never splits a character")
        XCTAssertEqual(try read(pf, as: .varchar(4), options: ParquetReadOptions(truncateColumns: true)),
                       ["hél", "ab  ", "", nil, "日"])
        assertError(pf, as: .integer, code: .datatypeMismatch, contains: "cannot load Parquet BYTE_ARRAY STRING values into a column of type integer")
        assertError(pf, as: .boolean, code: .datatypeMismatch, contains: "boolean")
    }

    func testInvalidUTF8() throws {
        var s = StringArray()
        s.append("ok")
        [UInt8]([0x61, 0xFF, 0x62, 0xC3]).withUnsafeBufferPointer { s.append(bytes: $0) }
        [UInt8]([0xED, 0xA0, 0x80]).withUnsafeBufferPointer { s.append(bytes: $0) }  // a UTF-16 surrogate
        let pf = try file(.varchar(10), Vector(type: .varchar(10), data: .string(s)))
        assertError(pf, as: .varchar(10), code: .invalidText, contains: "invalid UTF-8")
        XCTAssertEqual(try read(pf, as: .varchar(10), options: ParquetReadOptions(invalidCharacterReplacement: 0x3F)),
                       ["ok", "a?b?", "???"])
    }

    func testBooleans() throws {
        let pf = try file(.boolean, makeVector(.boolean, bools: [true, nil, false]))
        XCTAssertEqual(try read(pf, as: .boolean), ["true", nil, "false"])
        assertError(pf, as: .integer, code: .datatypeMismatch, contains: "BOOLEAN")
    }

    /// A dictionary entry that does not convert fails only the rows that use it.
    func testDictionaryEntriesConvertedLazily() throws {
        let plan = try ConversionPlan(column: try file(.varchar(10), makeVector(.varchar(10), strings: ["a"])).columns[0],
                                      target: .varchar(3), options: ParquetReadOptions())
        // PLAIN dictionary page: "abc", "toolong", "x".
        var body: [UInt8] = []
        for s in ["abc", "toolong", "x"] {
            appendUInt32(UInt32(s.utf8.count), to: &body)
            body += Array(s.utf8)
        }
        let pf = try file(.varchar(10), makeVector(.varchar(10), strings: ["a"]))
        let d = try body.withUnsafeBytes {
            try ConvertedDictionary($0, header: DictionaryPageHeader(numValues: 3, encoding: 0), column: pf.columns[0],
                                    plan: plan, scratch: DecodeScratch())
        }
        XCTAssertEqual(d.count, 3)
        XCTAssertEqual(Array(d.failures.keys), [1])
        XCTAssertNoThrow(try [UInt32(0), 2, 0].withUnsafeBufferPointer { try d.check($0.baseAddress!, 3) })
        XCTAssertThrowsError(try [UInt32(0), 1].withUnsafeBufferPointer { try d.check($0.baseAddress!, 2) })
        XCTAssertThrowsError(try [UInt32(3)].withUnsafeBufferPointer { try d.check($0.baseAddress!, 1) })
        guard case .strings(let bytes, let ends) = d.values else { return XCTFail("not strings") }
        XCTAssertEqual(ends, [0, 3, 3, 4])
        XCTAssertEqual(bytes, Array("abcx".utf8))
    }

    func testBadArguments() throws {
        let pf = try file(.bigint, makeVector(.bigint, ints: [1]))
        XCTAssertThrowsError(try pf.readRowGroup(1, columns: [0], as: [.bigint]))
        XCTAssertThrowsError(try pf.readRowGroup(0, columns: [1], as: [.bigint]))
        XCTAssertThrowsError(try pf.readRowGroup(0, columns: [0], as: []))
        XCTAssertThrowsError(try pf.readRowGroup(0, columns: [0], as: [.unknown]))
        XCTAssertEqual(try pf.readRowGroup(0, columns: [], as: []).count, 0)
        XCTAssertEqual(try pf.readRowGroup(0, columns: [0, 0], as: [.bigint, .double]).map { $0.count }, [1, 1])
    }
}
