// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// Delimited text is converted in batches of records, column by column; every record
/// the batch path cannot take (bad field counts, escapes, blank lines, fields that fail
/// to convert) goes record by record. These tests put such records at batch and chunk
/// edges and check that every other row keeps its values, in file order, and that
/// rejections name the right line and column.
final class BatchParsingTests: XCTestCase {
    let cols = [col("id", .integer), col("name", .varchar(8)), col("price", .decimal(precision: 15, scale: 2)),
                col("day", .date), col("flag", .char(1))]

    func line(_ i: Int) -> String { "\(i)|n\(i % 97)|\(i).25|2020-01-\(String(format: "%02d", i % 28 + 1))|\(i % 2 == 0 ? "A" : "B")" }

    func expected(_ i: Int, name: String? = nil) -> [Value] {
        [.int(Int64(i)), .string(name ?? "n\(i % 97)"), .int(Int64(i) * 100 + 25),
         .int(DateTime.days(year: 2020, month: 1, day: Int64(i % 28 + 1))), .string(i % 2 == 0 ? "A" : "B")]
    }

    func testUnusualRecordsAmongBatchedOnes() throws {
        var text = ""
        var want: [[Value]] = []
        for i in 1...1_000 {
            switch i {
            case 130:  // the last column fails after earlier columns of the batch converted
                text += "\(i)|n|1.00|2020-01-01|toolong\n"
            case 300:  // an escaped delimiter: record by record
                text += "\(i)|a\\|b|\(i).25|2020-01-\(String(format: "%02d", i % 28 + 1))|A\n"
                want.append(expected(i, name: "a|b"))
            case 400:  // a blank line
                text += "\n" + line(i) + "\n"
                want.append(expected(i))
            case 500:  // NULL AS in a nullable column
                text += "\(i)|\\N|\(i).25|2020-01-\(String(format: "%02d", i % 28 + 1))|A\n"
                var row = expected(i)
                row[1] = .null
                want.append(row)
            case 600:  // too few fields
                text += "\(i)|x\n"
            case 999:  // a bad number in the first column of the last batch
                text += "x\(i)|n|1.00|2020-01-01|A\n"
            default:
                text += line(i) + "\n"
                want.append(expected(i))
            }
        }
        for chunkRows in [100, 128, 65_536] {
            let r = try loadText(text, columns: cols,
                                 options: opts(("ESCAPE", nil), ("IGNOREBLANKLINES", nil), ("MAXERROR", "10")),
                                 tuning: CopyTuning(chunkRows: chunkRows, workers: 1))
            XCTAssertEqual(rows(r), want, "chunkRows \(chunkRows)")
            // The blank line before record 400 moves every later line down by one.
            XCTAssertEqual(r.rejected.map(\.line), [130, 601, 1_000], "chunkRows \(chunkRows)")
            XCTAssertEqual(r.rejected.map(\.column), ["flag", "price", "id"], "chunkRows \(chunkRows)")
            XCTAssertEqual(r.rejected.map(\.code), [.valueOutOfRange, .missingColumns, .invalidDigit])
            XCTAssertTrue(r.chunks.allSatisfy { c in c.count <= chunkRows && c.columns.allSatisfy { $0.count == c.count } })
        }
    }

    /// Strings in a batch under the usual options are stored as they are when ASCII and
    /// short enough (a CHAR without its trailing blanks); every other value still goes
    /// through the converting path: accepted (multibyte VARCHAR, TRUNCATECOLUMNS,
    /// ACCEPTINVCHARS) or rejected with its own line and reason.
    func testStringsOfABatchTakeTheConvertingPathWhenTheyMust() throws {
        let columns = [col("id", .integer), col("v", .varchar(6)), col("c", .char(4))]
        var text: [UInt8] = []
        var want: [[Value]] = []
        for i in 1...300 {
            var v = Array("v\(i % 50)".utf8), c = Array("c\(i % 7)  ".utf8)
            var row: [Value] = [.int(Int64(i)), .string("v\(i % 50)"), .string("c\(i % 7)")]
            var rejected = false
            switch i {
            case 10: v = Array("né".utf8); row[1] = .string("né")  // multibyte VARCHAR: accepted
            case 20: v = Array("toolong".utf8); rejected = true  // 7 bytes into VARCHAR(6)
            case 30: c = Array("é".utf8); rejected = true  // multibyte in CHAR
            case 40: v = [0x61, 0xFF]; rejected = true  // invalid UTF-8
            case 50: c = Array("ab    ".utf8); row[2] = .string("ab")  // only blanks past the length
            case 60: v = []; row[1] = .string("")  // empty: a value, not NULL
            default: break
            }
            text += Array("\(i)|".utf8) + v + [124] + c + [10]
            if !rejected { want.append(row) }
        }
        let r = try loadBytes(text, columns: columns, options: opts(("MAXERROR", "10")),
                              tuning: CopyTuning(chunkRows: 128, workers: 1))
        XCTAssertEqual(rows(r), want)
        XCTAssertEqual(r.rejected.map(\.line), [20, 30, 40])
        XCTAssertEqual(r.rejected.map(\.column), ["v", "c", "v"])
        XCTAssertEqual(r.rejected.map(\.code), [.valueOutOfRange, .invalidUTF8, .invalidUTF8])

        // TRUNCATECOLUMNS and ACCEPTINVCHARS: the same values accepted, converted.
        let lenient = try loadBytes(text, columns: columns,
                                    options: opts(("TRUNCATECOLUMNS", nil), ("ACCEPTINVCHARS", nil), ("MAXERROR", "10")),
                                    tuning: CopyTuning(chunkRows: 128, workers: 1))
        let byID = Dictionary(uniqueKeysWithValues: rows(lenient).map { ($0[0], $0) })
        XCTAssertEqual(byID[.int(20)]?[1], .string("toolon"))
        XCTAssertEqual(byID[.int(40)]?[1], .string("a?"))
        XCTAssertEqual(lenient.rejected.map(\.line), [30])
    }

    /// A field that fails inside a batch stops the load at its own line when MAXERROR
    /// is 0, whatever batch it falls in.
    func testFailureInsideABatchNamesItsLine() {
        for bad in [1, 64, 127, 128, 129, 255, 256, 257] {
            var text = ""
            for i in 1...300 { text += i == bad ? "\(i)|n|1.x|2020-01-01|A\n" : line(i) + "\n" }
            let e = expectLoadError { try loadText(text, columns: self.cols) }
            XCTAssertEqual(e?.line, bad)
            XCTAssertEqual(e?.column, "price")
            XCTAssertEqual(e?.code, .invalidDigit)
        }
    }

    /// NOT NULL columns reject NULL AS in a batch as they do record by record.
    func testNotNullViolationInABatch() {
        var text = ""
        for i in 1...200 { text += i == 150 ? "\(i)|\\N|1.00|2020-01-01|A\n" : line(i) + "\n" }
        let notNull = [col("id", .integer), col("name", .varchar(8), notNull: true), col("price", .decimal(precision: 15, scale: 2)),
                       col("day", .date), col("flag", .char(1))]
        let e = expectLoadError { try loadText(text, columns: notNull) }
        XCTAssertEqual(e?.line, 150)
        XCTAssertEqual(e?.column, "name")
        XCTAssertEqual(e?.code, .notNullViolation)
    }
}

/// `RecordScanner.scanPlainBatch` stands in for `scan` on plain delimited text: every
/// record it accepts must be split exactly as `scan` splits it, and it must accept
/// ordinary records.
final class PlainScanTests: XCTestCase {
    func testAcceptedRecordsMatchTheRecordScanner() {
        var rng: UInt64 = 99
        func next(_ n: Int) -> Int {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Int(rng >> 33) % n
        }
        let pieces: [String] = ["a", "bb", "ccc", "|", "|", "\r", " ", "dddddddddddd", "\u{e9}"]
        for columns in [1, 2, 3, 7] {
            for round in 0..<40 {
                var text = ""
                for _ in 0..<(20 + next(60)) {
                    switch next(12) {
                    case 0: text += "\n"  // blank line
                    case 1: text += (0..<next(4)).map { _ in pieces[next(pieces.count)] }.joined() + "\r\n"
                    default:
                        let fields = (0..<columns).map { _ in (0..<next(3)).map { _ in ["x", "yy", "zzzzzzzzz", "\r"][next(4)] }.joined() }
                        text += fields.joined(separator: "|") + (next(4) == 0 ? "|" : "") + (next(3) == 0 ? "\r\n" : "\n")
                    }
                }
                let bytes = Array(text.utf8)
                var scanner = RecordScanner(options: CopyOptions(), capacity: columns + 1)
                XCTAssertTrue(scanner.isPlain)
                let spans = UnsafeMutablePointer<FieldSpan>.allocate(capacity: 5 * columns)
                defer { spans.deallocate() }
                bytes.withUnsafeBufferPointer { buf in
                    let b = buf.baseAddress!
                    var p = 0
                    while p < bytes.count {
                        let (records, after) = RecordScanner.scanPlainBatch(b, p, bytes.count, delimiter: 124, columns: columns,
                                                                            into: spans, limit: 5)
                        if records == 0 {
                            XCTAssertEqual(after, p)
                            p = scanner.scan(b, p, bytes.count)
                            continue
                        }
                        for r in 0..<records {
                            let next = scanner.scan(b, p, bytes.count)
                            let ok = scanner.fields(forColumns: columns) == columns && scanner.problem == nil
                                && (scanner.contentEnd > p || columns > 1) && scanner.newlines == 1
                            XCTAssertTrue(ok, "columns \(columns), round \(round): accepted a record scan rejects at \(p)")
                            for c in 0..<columns {
                                let want = scanner.spans[c], got = spans[r * columns + c]
                                XCTAssertEqual([got.start, got.end, Int(got.flags)], [want.start, want.end, Int(want.flags)],
                                               "columns \(columns), round \(round), record at \(p), field \(c)")
                            }
                            p = next
                        }
                        XCTAssertEqual(after, p)
                    }
                }
            }
        }
    }

    func testOrdinaryRecordsAreAllTaken() {
        let text = (0..<1000).map { "\($0)|name \($0)|\($0 % 7).5|" }.joined(separator: "\n") + "\n"
        let bytes = Array(text.utf8)
        let spans = UnsafeMutablePointer<FieldSpan>.allocate(capacity: 128 * 3)
        defer { spans.deallocate() }
        var taken = 0, p = 0
        bytes.withUnsafeBufferPointer { buf in
            while true {
                let (records, after) = RecordScanner.scanPlainBatch(buf.baseAddress!, p, bytes.count, delimiter: 124, columns: 3,
                                                                    into: spans, limit: 128)
                if records == 0 { break }
                taken += records
                p = after
            }
        }
        // At most the last record (whose newline may lie in the input's last partial
        // word, which is never loaded) is left to `scan`.
        XCTAssertGreaterThanOrEqual(taken, 999)
        XCTAssertLessThanOrEqual(taken, 1000)
    }
}

/// The word-at-a-time checks of the field parsers against plain definitions.
final class FieldParserEdgeTests: XCTestCase {
    func testIsASCIIAtEveryLengthAndPosition() {
        for length in 0..<40 {
            let clean = [UInt8](repeating: 0x61, count: length)
            XCTAssertTrue(clean.withUnsafeBufferPointer { FieldParsers.isASCII($0) }, "length \(length)")
            for position in 0..<length {
                var dirty = clean
                dirty[position] = 0xC3
                XCTAssertFalse(dirty.withUnsafeBufferPointer { FieldParsers.isASCII($0) }, "length \(length), high byte at \(position)")
            }
        }
    }

    /// Up to 19 digits are parsed without per-digit overflow checks; the Int64 limits
    /// and longer inputs must still come out exactly.
    func testIntegerLimits() {
        func parse(_ s: String) -> String {
            Array(s.utf8).withUnsafeBufferPointer { b in
                switch FieldParsers.parseInteger(b) {
                case .ok(let v): return "ok \(v)"
                case .overflow: return "overflow"
                case .empty: return "empty"
                case .invalid: return "invalid"
                }
            }
        }
        XCTAssertEqual(parse("9223372036854775807"), "ok 9223372036854775807")
        XCTAssertEqual(parse("-9223372036854775808"), "ok -9223372036854775808")
        XCTAssertEqual(parse("9223372036854775808"), "overflow")
        XCTAssertEqual(parse("-9223372036854775809"), "overflow")
        XCTAssertEqual(parse("9999999999999999999"), "overflow")
        XCTAssertEqual(parse("18446744073709551616"), "overflow")
        XCTAssertEqual(parse("99999999999999999999999"), "overflow")
        XCTAssertEqual(parse("00000000000000000000012"), "ok 12")
        XCTAssertEqual(parse(" +42 "), "ok 42")
        XCTAssertEqual(parse("12a"), "invalid")
        XCTAssertEqual(parse("-"), "invalid")
        XCTAssertEqual(parse("  "), "empty")
    }
}

extension FieldParserEdgeTests {
    /// The word-checked, branch-free ISO date parser must agree with the general date
    /// parser on valid and invalid calendar dates and on malformed digits.
    func testISODatesAgreeWithTheGeneralParser() {
        func both(_ s: String) -> (Int64?, Int64?) {
            Array(s.utf8).withUnsafeBufferPointer { (FieldParsers.parseISODate($0), DateTime.parseDate($0)) }
        }
        var checked = 0
        for year in [1, 4, 99, 100, 400, 1582, 1600, 1700, 1900, 1969, 1970, 1996, 2000, 2023, 2024, 2100, 2400, 9999] {
            for month in 0...13 {
                for day in 0...32 {
                    let s = String(format: "%04d-%02d-%02d", year, month, day)
                    let (fast, general) = both(s)
                    XCTAssertEqual(fast, general, s)
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, 18 * 14 * 33)
        XCTAssertEqual(both("1970-01-01").0, 0)
        XCTAssertEqual(both("2024-02-29").0, 19782)
        XCTAssertNil(both("2023-02-29").0)
        XCTAssertNil(both("1900-02-29").0)
        XCTAssertEqual(both("2000-02-29").0, 11016)
        for bad in ["2024-0a-01", "2024-01-0:", "20/4-01-01", "2024-01-/1", "2024-\u{7f}1-01", "2024-01-01".replacingOccurrences(of: "4", with: "\u{ff}")] {
            let (fast, general) = both(bad)
            XCTAssertEqual(fast, general, bad)
        }
        XCTAssertEqual(both("2024/01/15").0, both("2024/01/15").1)
    }
}

extension FieldParserEdgeTests {
    /// The decimal fast paths (`[-]digits.digits` with exactly `scale` fraction digits,
    /// and whole numbers) must give what the general path gives, on well-formed and
    /// malformed text alike.
    func testDecimalFastPathAgreesWithTheGeneralPath() {
        var state: UInt64 = 5
        func next(_ n: Int) -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) % n }
        let pieces: [String] = ["0", "1", "5", "9", "0", "7", ".", "-", "+", " ", "e", "x", "00"]
        func describe(_ r: NumberParse<Int64>) -> String {
            switch r {
            case .ok(let v): return "ok \(v)"
            case .overflow: return "overflow"
            case .empty: return "empty"
            case .invalid(let at): return "invalid \(at)"
            }
        }
        var fastShaped = 0, wholeShaped = 0
        for _ in 0..<30_000 {
            let scale = next(5), precision = max(scale + 1, 1 + next(18))
            var text: String
            let shape = next(3)
            if shape == 2 {
                // A whole number (l_quantity's `17`), sometimes with leading zeros or too long.
                text = (next(4) == 0 ? "-" : "") + (next(5) == 0 ? "00" : "")
                    + (0..<(1 + next(19))).map { _ in String(next(10)) }.joined()
                wholeShaped += 1
            } else if shape == 0 {
                // The fast path's shape, sometimes too long or too precise.
                let intDigits = 1 + next(18)
                text = (next(4) == 0 ? "-" : "") + (0..<intDigits).map { _ in String(next(10)) }.joined()
                    + "." + (0..<scale).map { _ in String(next(10)) }.joined()
                fastShaped += 1
            } else {
                text = (0..<(1 + next(12))).map { _ in pieces[next(pieces.count)] }.joined()
            }
            for round in [false, true] {
                let (fast, general) = Array(text.utf8).withUnsafeBufferPointer {
                    (FieldParsers.parseDecimal64($0, precision: precision, scale: scale, round: round),
                     FieldParsers.parseDecimal64General($0, precision: precision, scale: scale, round: round))
                }
                XCTAssertEqual(describe(fast), describe(general), "'\(text)' as DECIMAL(\(precision),\(scale))")
            }
        }
        XCTAssertGreaterThan(fastShaped, 5_000)
        XCTAssertGreaterThan(wholeShaped, 5_000)
        let tpch = Array("17954.55".utf8).withUnsafeBufferPointer { FieldParsers.parseDecimal64($0, precision: 15, scale: 2, round: false) }
        XCTAssertEqual(describe(tpch), "ok 1795455")
        let quantity = Array("17".utf8).withUnsafeBufferPointer { FieldParsers.parseDecimal64($0, precision: 15, scale: 2, round: false) }
        XCTAssertEqual(describe(quantity), "ok 1700")
        let tooWide = Array("-12345678901234".utf8).withUnsafeBufferPointer { FieldParsers.parseDecimal64($0, precision: 15, scale: 2, round: false) }
        XCTAssertEqual(describe(tooWide), "overflow")
    }
}
