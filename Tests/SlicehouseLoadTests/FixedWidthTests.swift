// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// FIXEDWIDTH: positional specs, every type, character widths, short and long lines,
/// NULL AS / BLANKSASNULL / TRIMBLANKS, errors and parallel ranges.
final class FixedWidthTests: XCTestCase {
    /// `s` padded with blanks to `w` characters (on the left when `right`).
    func pad(_ s: String, _ w: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(w - s.count, 0))
        return right ? fill + s : s + fill
    }

    func testEveryType() throws {
        let spec: [(String, DataType, Int)] = [
            ("s", .smallint, 6), ("i", .integer, 11), ("b", .bigint, 20), ("d", .decimal(precision: 10, scale: 2), 12),
            ("w", .decimal(precision: 30, scale: 4), 26), ("r", .real, 6), ("f", .double, 8), ("bo", .boolean, 5),
            ("c", .char(5), 5), ("v", .varchar(10), 10), ("day", .date, 10), ("ts", .timestamp, 26),
        ]
        let cols = spec.map { col($0.0, $0.1) }
        let o = try opts(("FIXEDWIDTH", spec.map { "\($0.0):\($0.2)" }.joined(separator: ",")))
        func row(_ v: [String], right: Bool) -> String {
            zip(v, spec).map { pad($0, $1.2, right: right) }.joined()
        }
        let data = [
            row(["-32768", "2147483647", "-9223372036854775808", "12345678.91", "12345678901234567890.1234", "1.5",
                 "-2.5e10", "true", "abc", "hello", "2020-02-29", "2020-02-29 12:34:56.123456"], right: false),
            row(["7", "-1", "0042", "-0.5", "1e3", "0.1", "NaN", "f", "x", "x", "1970-01-01", "1970-01-01 00:00:01"], right: true),
            row(["\\N", "\\N", "\\N", "\\N", "\\N", "\\N", "\\N", "\\N", "\\N", "\\N", "\\N", "\\N"], right: false),
            row(["", "", "", "", "", "", "", "", "", "", "", ""], right: false),
        ].joined(separator: "\n") + "\n"
        let r = try loadText(data, columns: cols, options: o)
        let v = rows(r)
        let day = DateTime.days(year: 2020, month: 2, day: 29)
        XCTAssertEqual(v[0], [.int(-32768), .int(2_147_483_647), .int(Int64.min), .int(1_234_567_891),
                              .int128(123_456_789_012_345_678_901_234), .double(1.5), .double(-2.5e10), .bool(true),
                              .string("abc"), .string("hello     "), .int(day),
                              .int(day * DateTime.microsPerDay + (12 * 3600 + 34 * 60 + 56) * 1_000_000 + 123_456)])
        XCTAssertEqual(v[1][0...5], [.int(7), .int(-1), .int(42), .int(-50), .int128(10_000_000), .double(Double(Float(0.1)))])
        XCTAssertEqual(v[1][6].asDouble?.isNaN, true)
        // Right-aligned strings keep their leading blanks; CHAR drops trailing ones only.
        XCTAssertEqual(v[1][7...11], [.bool(false), .string("    x"), .string("         x"), .int(0), .int(1_000_000)])
        XCTAssertEqual(v[2], Array(repeating: .null, count: 12), "a padded \\N is NULL in every column")
        // All blank: NULL for non-strings, blanks for VARCHAR, '' for CHAR.
        XCTAssertEqual(v[3], Array(repeating: Value.null, count: 8) + [.string(""), .string("          "), .null, .null])
        guard case .int128 = r.chunks[0].columns[4].data else { return XCTFail("DECIMAL(30,4) must be Int128") }
    }

    func testLabelsArePositionalAndWidthsCountCharacters() throws {
        // Labels are free text (numbers here) mapping by position, as in Redshift.
        let cols = [col("name", .varchar(20)), col("code", .integer)]
        let r = try loadText("héé12\n😀ab 7\nabc 9\n", columns: cols, options: opts(("FIXEDWIDTH", " 0 : 3 , 1:2 ")))
        XCTAssertEqual(rows(r), [[.string("héé"), .int(12)], [.string("😀ab"), .int(7)], [.string("abc"), .int(9)]])
    }

    func testColumnListAndHeaderAndCRLF() throws {
        let cols = [col("a", .integer), col("b", .varchar(5)), col("c", .date)]
        let r = try loadText("header line\r\nxy   1\r\nzz  22\r\n", columns: cols, columnList: ["b", "a"],
                             options: opts(("FIXEDWIDTH", "b:4,a:2"), ("IGNOREHEADER", "1")))
        XCTAssertEqual(r.columnIndices, [1, 0])
        XCTAssertEqual(rows(r), [[.string("xy  "), .int(1)], [.string("zz  "), .int(22)]])
    }

    func testShortLines() throws {
        let cols = [col("a", .integer), col("b", .varchar(5)), col("c", .varchar(5))]
        let o = try opts(("FIXEDWIDTH", "a:2,b:3,c:5"))
        // The last field may be cut short, or empty (trailing padding stripped by an editor).
        XCTAssertEqual(rows(try loadText(" 1abcxy\n 2abc\n", columns: cols, options: o)),
                       [[.int(1), .string("abc"), .string("xy")], [.int(2), .string("abc"), .string("")]])
        // A field the line does not reach at all is missing: 1203 on the right line and column.
        let e = expectLoadError { try loadText(" 1abcxyz\n 2a\n", columns: cols, options: o) }
        XCTAssertEqual(e?.code, .missingColumns)
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.column, "c")
        XCTAssertEqual(e?.position, 2)
        XCTAssertEqual(e?.rawLine, " 2a")
        // FILLRECORD fills absent fields as empty fields.
        let r = try loadText(" 1abcxyz\n 2a\n 3\n", columns: cols, options: opts(("FIXEDWIDTH", "a:2,b:3,c:5"), ("FILLRECORD", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .string("abc"), .string("xyz")], [.int(2), .string("a"), .string("")],
                                 [.int(3), .string(""), .string("")]])
    }

    func testShortLastFieldAndBlankLines() throws {
        let cols = [col("a", .integer), col("b", .varchar(5))]
        let o = try opts(("FIXEDWIDTH", "a:2,b:5"), ("IGNOREBLANKLINES", nil))
        XCTAssertEqual(rows(try loadText(" 1abcxy\n\n 2ab\n", columns: cols, options: o)),
                       [[.int(1), .string("abcxy")], [.int(2), .string("ab")]])
        // Without IGNOREBLANKLINES an empty line has no fields at all.
        let e = expectLoadError { try loadText(" 1abcxy\n\n", columns: cols, options: opts(("FIXEDWIDTH", "a:2,b:5"))) }
        XCTAssertEqual(e?.code, .missingColumns)
        XCTAssertEqual(e?.line, 2)
    }

    func testLongLines() throws {
        let cols = [col("a", .integer), col("b", .varchar(5))]
        let o = try opts(("FIXEDWIDTH", "a:2,b:3"))
        // Trailing blanks beyond the spec are fine; other text is an extra column.
        XCTAssertEqual(rows(try loadText(" 1abc    \n", columns: cols, options: o)), [[.int(1), .string("abc")]])
        let e = expectLoadError { try loadText(" 1abc\n 2abcdef\n", columns: cols, options: o) }
        XCTAssertEqual(e?.code, .extraColumns)
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.rawFieldValue, "def")
        XCTAssertEqual(e?.column, "")
    }

    func testNullAsBlanksAsNullTrimBlanks() throws {
        let cols = [col("i", .integer), col("v", .varchar(6)), col("c", .char(4))]
        let spec = ("FIXEDWIDTH", "i:4,v:6,c:4") as (String, String?)
        let data = "  12abc   ab  \nNULL NULL NULL\n    ||||||    \n   5      x   \n"
        // NULL AS matches the field without its padding, on either side.
        let r = try loadText(data, columns: cols, options: opts(spec, ("NULL", "NULL")))
        XCTAssertEqual(rows(r), [
            [.int(12), .string("abc   "), .string("ab")],
            [.null, .null, .null],
            [.null, .string("||||||"), .string("")],
            [.int(5), .string("      "), .string("x")],
        ])
        // BLANKSASNULL: all-blank strings are NULL; TRIMBLANKS: VARCHAR padding removed.
        let r2 = try loadText(data, columns: cols, options: opts(spec, ("NULL", "NULL"), ("BLANKSASNULL", nil), ("TRIMBLANKS", nil)))
        XCTAssertEqual(rows(r2).map { Array($0[1...2]) }, [
            [.string("abc"), .string("ab")], [.null, .null], [.string("||||||"), .null], [.null, .string("x")],
        ])
        // NULL AS '' makes every all-blank field NULL.
        let r3 = try loadText("   5      x   \n", columns: cols, options: opts(spec, ("NULL", "")))
        XCTAssertEqual(rows(r3), [[.int(5), .null, .string("x")]])
        // The default NULL string is \N, padded.
        let r4 = try loadText("  \\N\\N    \\N  \n", columns: cols, options: opts(spec))
        XCTAssertEqual(rows(r4), [[.null, .null, .null]])
    }

    func testConversionErrors() throws {
        let cols = [col("id", .integer, notNull: true), col("day", .date), col("n", .varchar(3))]
        let o = try opts(("FIXEDWIDTH", "id:3,day:10,n:3"))
        let e = expectLoadError { try loadText("  12020-01-01abc\n 2x2020-01-01abc\n", columns: cols, options: o) }
        XCTAssertEqual(e?.code, .invalidDigit)
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.column, "id")
        XCTAssertEqual(e?.rawFieldValue, " 2x")
        XCTAssertEqual(e?.rawLine, " 2x2020-01-01abc")
        let d = expectLoadError { try loadText("  12020-13-01abc\n", columns: cols, options: o) }
        XCTAssertEqual(d?.code, .invalidDate)
        XCTAssertEqual(d?.position, 1)
        let n = expectLoadError { try loadText("\\N 2020-01-01abc\n", columns: cols, options: o) }
        XCTAssertEqual(n?.code, .notNullViolation)
        // VARCHAR(3) in a 4-wide field: the padding blank counts unless TRIMBLANKS.
        let l = expectLoadError { try loadText("  12020-01-01abc \n", columns: cols, options: opts(("FIXEDWIDTH", "id:3,day:10,n:4"))) }
        XCTAssertEqual(l?.code, .valueOutOfRange)
        XCTAssertEqual(l?.rawFieldValue, "abc ")
        XCTAssertEqual(rows(try loadText("  12020-01-01abc \n", columns: cols, options: opts(("FIXEDWIDTH", "id:3,day:10,n:4"), ("TRIMBLANKS", nil)))),
                       [[.int(1), .int(DateTime.days(year: 2020, month: 1, day: 1)), .string("abc")]])
        // MAXERROR skips bad lines and reports each.
        let r = try loadText("  1\n 2x\n  3\n", columns: [col("id", .integer)], options: opts(("FIXEDWIDTH", "id:3"), ("MAXERROR", "5")))
        XCTAssertEqual(rows(r), [[.int(1)], [.int(3)]])
        XCTAssertEqual(r.rejected.map(\.line), [2])
    }

    func testSpecErrors() throws {
        let cols = [col("a", .integer), col("b", .integer)]
        // The spec must cover exactly the loaded columns.
        let e = expectSQLError { try loadText("1\n", columns: cols, options: opts(("FIXEDWIDTH", "a:1"))) }
        XCTAssertEqual(e?.code, .invalidParameter)
        XCTAssertTrue(e?.message.contains("1 column(s) but COPY loads 2") ?? false, e?.message ?? "")
        XCTAssertNotNil(expectSQLError { try loadText("1\n", columns: cols, columnList: ["a"],
                                                      options: opts(("FIXEDWIDTH", "a:1,b:1"))) })
        for bad in ["", "a", "a:", "a:0", "a:-1", "a:x", ":3", "a:1,,b:2", "a:99999999999"] {
            XCTAssertThrowsError(try opts(("FIXEDWIDTH", bad)), bad) { XCTAssertTrue($0 is SQLError) }
        }
        XCTAssertThrowsError(try opts(("FIXEDWIDTH", nil)))
    }

    func testParallelRangesKeepOrderAndLineNumbers() throws {
        var s = ""
        for i in 0..<40_000 { s += pad(String(i), 8, right: true) + pad("n\(i % 97)", 6) + "\n" }
        s += "  oops  x     \n"
        let cols = [col("id", .integer), col("name", .varchar(6))]
        let tuning = CopyTuning(chunkRows: 2048, rangeBytes: 16 << 10, workers: 4)
        let e = expectLoadError { try loadText(s, columns: cols, options: opts(("FIXEDWIDTH", "id:8,name:6")), tuning: tuning) }
        XCTAssertEqual(e?.line, 40_001)
        let r = try loadText(s, columns: cols, options: opts(("FIXEDWIDTH", "id:8,name:6"), ("MAXERROR", "1")), tuning: tuning)
        XCTAssertEqual(rows(r).map { $0[0].asInt64 ?? -1 }, (0..<40_000).map(Int64.init))
        XCTAssertEqual(rows(r)[500][1], .string("n15   "))
    }

    /// Arbitrary lines (invalid UTF-8, short, long, blank) give rows or load errors, never a crash.
    func testArbitraryLinesNeverCrash() throws {
        let cols = [col("a", .integer), col("b", .varchar(8)), col("c", .char(3)), col("d", .date)]
        let alphabet = Array("0123456789 -.\\Nabcé\t\r".utf8) + [0xFF, 0xC3, 0x80, 0xF0, 0x9F]
        var rng = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<3000 {
            for _ in 0..<Int.random(in: 0..<40, using: &rng) { bytes.append(alphabet.randomElement(using: &rng) ?? 32) }
            bytes.append(10)
        }
        for fill in [false, true] {
            var o = try opts(("FIXEDWIDTH", "a:3,b:8,c:3,d:10"), ("IGNOREALLERRORS", nil))
            o.fillRecord = fill
            for tuning in [CopyTuning(workers: 1), CopyTuning(chunkRows: 100, rangeBytes: 2048, workers: 3)] {
                let r = try loadBytes(bytes, columns: cols, options: o, tuning: tuning)
                XCTAssertEqual(r.rowCount + r.rejectedCount, 3000)
            }
        }
    }

    func testGzipFixedWidth() throws {
        let gz = try GzipCodec.compress(Array(" 1ab\n 2cd\n".utf8))
        let r = try loadBytes(gz, columns: [col("a", .integer), col("b", .varchar(2))],
                              options: opts(("FIXEDWIDTH", "a:2,b:2"), ("GZIP", nil)))
        XCTAssertEqual(rows(r), [[.int(1), .string("ab")], [.int(2), .string("cd")]])
    }
}
