// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// JSON 'auto' / 'auto ignorecase' / JSONPaths files: mapping, value kinds, nested
/// values, malformed input (1224), conversion errors, ranges and compression.
final class JSONTests: XCTestCase {
    let cols = [col("id", .integer), col("name", .varchar(40)), col("score", .double)]

    func auto() throws -> CopyOptions { try opts(("json", "auto")) }

    func testAutoMapsTopLevelKeys() throws {
        let data = """
            {"id": 1, "name": "one", "score": 1.5}
            {"score": -2, "name": "two", "id": 2, "extra": {"ignored": [1, 2, {"x": null}]}}
            {"id": 3}
            {"id": 4, "name": null, "score": 1e3}  {"id":5,"name":"same line"}
            {
              "id": 6,
              "name": "spread
            """ + "\\n" + """
            over lines"
            }

            """
        let r = try loadText(data, columns: cols, options: auto())
        XCTAssertEqual(rows(r), [
            [.int(1), .string("one"), .double(1.5)],
            [.int(2), .string("two"), .double(-2)],
            [.int(3), .null, .null],
            [.int(4), .null, .double(1000)],
            [.int(5), .string("same line"), .null],
            [.int(6), .string("spread\nover lines"), .null],
        ])
    }

    func testAutoIsCaseSensitiveAndIgnoreCaseIsNot() throws {
        let data = "{\"ID\": 7, \"Name\": \"x\", \"score\": 2}\n"
        XCTAssertEqual(rows(try loadText(data, columns: cols, options: auto())), [[.null, .null, .double(2)]])
        for arg in ["auto ignorecase", "AUTO  IgnoreCase"] {
            XCTAssertEqual(rows(try loadText(data, columns: cols, options: opts(("json", arg)))),
                           [[.int(7), .string("x"), .double(2)]], arg)
        }
    }

    func testFormatAsJSONAsTheParserDeliversIt() throws {
        // `FORMAT AS JSON 'auto'` arrives as ("json", "auto"); plain FORMAT needs the argument.
        XCTAssertEqual(try opts(("json", "auto")).format, .json)
        XCTAssertEqual(try opts(("JSON", "auto ignorecase")).json, .auto(ignoreCase: true))
        XCTAssertThrowsError(try opts(("FORMAT", "JSON")))
    }

    func testColumnListAndDuplicateKeys() throws {
        let all = [col("a", .integer), col("b", .integer), col("c", .integer)]
        let r = try loadText("{\"a\": 1, \"b\": 2, \"c\": 3, \"c\": 4}\n", columns: all, columnList: ["c", "a"], options: auto())
        XCTAssertEqual(r.columnIndices, [2, 0])
        XCTAssertEqual(rows(r), [[.int(4), .int(1)]], "the last duplicate key wins; unlisted keys are ignored")
    }

    func testValueKindsAndEscapes() throws {
        let cols = [col("s", .varchar(40)), col("n", .varchar(40)), col("b", .boolean), col("bv", .varchar(10)),
                    col("d", .decimal(precision: 10, scale: 2)), col("day", .date), col("ts", .timestamp), col("c", .char(3))]
        let data = #"""
            {"s": "tab\there \"q\" \\ \/ \u00e9\u20AC\uD83D\uDE00 \n end", "n": -0.25e2, "b": true, "bv": false,
             "d": "12.345", "day": "2021-03-04", "ts": "2021-03-04 05:06:07", "c": "ab "}
            {"s": "", "n": 12, "b": "f", "bv": true, "d": 7, "day": null, "ts": null, "c": null}
            """#
        let r = try loadText(data, columns: cols, options: auto())
        let day = DateTime.days(year: 2021, month: 3, day: 4)
        XCTAssertEqual(rows(r), [
            [.string("tab\there \"q\" \\ / é€😀 \n end"), .string("-0.25e2"), .bool(true), .string("false"),
             .int(1234), .int(day), .int(day * DateTime.microsPerDay + (5 * 3600 + 6 * 60 + 7) * 1_000_000), .string("ab")],
            [.string(""), .string("12"), .bool(false), .string("true"), .int(700), .null, .null, .null],
        ])
        // EMPTYASNULL applies to JSON strings.
        let e = try loadText("{\"s\": \"\"}", columns: [col("s", .varchar(4))], options: opts(("json", "auto"), ("EMPTYASNULL", nil)))
        XCTAssertEqual(rows(e), [[.null]])
    }

    func testNestedValuesLoadAsJSONText() throws {
        let cols = [col("id", .integer), col("obj", .varchar(100)), col("arr", .varchar(100))]
        let data = "{\"id\": 1, \"obj\": {\"a\": [1, 2], \"b\": {\"c\": \"}\"}}, \"arr\": [ {\"x\": 1}, \"y\" ]}\n"
            + "{\"id\": 2, \"obj\": {}, \"arr\": []}\n"
        XCTAssertEqual(rows(try loadText(data, columns: cols, options: auto())), [
            [.int(1), .string("{\"a\": [1, 2], \"b\": {\"c\": \"}\"}}"), .string("[ {\"x\": 1}, \"y\" ]")],
            [.int(2), .string("{}"), .string("[]")],
        ])
        // A nested value into a number column is a conversion error.
        let e = expectLoadError { try loadText("{\"id\": [1]}\n", columns: cols, options: self.auto()) }
        XCTAssertEqual(e?.code, .invalidDigit)
        XCTAssertEqual(e?.rawFieldValue, "[1]")
    }

    // MARK: - JSONPaths

    func testJSONPathsFile() throws {
        let d = try TempDir()
        let paths = try d.write("paths.json", #"""
            {"jsonpaths": ["$['id']", "$.name.first", "$.tags[1]", "$[\"odd key\"]", "$.deep.a.b[0].c", "$.name"]}
            """#)
        let cols = [col("id", .integer), col("first", .varchar(20)), col("tag", .varchar(20)), col("odd", .integer),
                    col("c", .varchar(20)), col("name", .varchar(60))]
        let data = #"""
            {"name": {"first": "Ada", "last": "L"}, "id": 1, "tags": ["a", "b", "c"], "odd key": 5,
             "deep": {"a": {"b": [{"c": "found"}, {"c": "no"}]}}}
            {"id": 2, "tags": ["only"], "name": "plain"}
            """#
        let r = try loadText(data, columns: cols, options: opts(("json", paths)), in: d)
        XCTAssertEqual(rows(r), [
            [.int(1), .string("Ada"), .string("b"), .int(5), .string("found"), .string("{\"first\": \"Ada\", \"last\": \"L\"}")],
            [.int(2), .null, .null, .null, .null, .string("plain")],
        ])
        // file:// URLs name the file too.
        XCTAssertEqual(try loadText("{\"id\": 3}", columns: cols, options: opts(("json", "file://" + paths)), in: d).rowCount, 1)
    }

    func testJSONPathsOverArrayRecords() throws {
        let d = try TempDir()
        let paths = try d.write("p.json", "{\"jsonpaths\": [\"$[0]\", \"$[1]\", \"$[2].x\"]}")
        let cols = [col("id", .integer), col("name", .varchar(20)), col("x", .integer)]
        let r = try loadText("[1, \"a\", {\"x\": 9}]\n[2, \"b\"]\n", columns: cols, options: opts(("json", paths)), in: d)
        XCTAssertEqual(rows(r), [[.int(1), .string("a"), .int(9)], [.int(2), .string("b"), .null]])
        // With 'auto' an array record is malformed for the mapping.
        let e = expectLoadError { try loadText("[1, \"a\"]\n", columns: cols, options: self.auto()) }
        XCTAssertEqual(e?.code, .invalidJSON)
    }

    func testJSONPathsErrors() throws {
        let d = try TempDir()
        let two = try d.write("two.json", "{\"jsonpaths\": [\"$.a\", \"$.b\"]}")
        let e = expectSQLError { try loadText("{}", columns: self.cols, options: opts(("json", two)), in: d) }
        XCTAssertEqual(e?.message, "Number of jsonpaths and the number of columns should match. JSONPath size: 2, Number of columns in table or column list: 3")
        for bad in ["a", "$.", "$..a", "$[*]", "$.a[?(@.x)]", "$['a'", "$[1:2]", "$[-1]", "$ .a"] {
            let f = try d.write("bad.json", "{\"jsonpaths\": [\"\(bad)\"]}")
            let err = expectSQLError { try loadText("{}", columns: [col("a", .integer)], options: opts(("json", f)), in: d) }
            XCTAssertTrue(err?.message.contains("Invalid JSONPath expression") ?? false, "\(bad): \(err?.message ?? "")")
        }
        let missing = expectSQLError { try loadText("{}", columns: self.cols, options: opts(("json", d.path + "/nope.json")), in: d) }
        XCTAssertTrue(missing?.message.contains("nope.json") ?? false)
        let notJSON = try d.write("nj.json", "{jsonpaths: nope")
        XCTAssertNotNil(expectSQLError { try loadText("{}", columns: self.cols, options: opts(("json", notJSON)), in: d) })
        // As in Redshift, an object not named "jsonpaths" means 'auto'.
        let other = try d.write("other.json", "{\"paths\": [\"$.zzz\"]}")
        XCTAssertEqual(rows(try loadText("{\"id\": 4}", columns: cols, options: opts(("json", other)), in: d)),
                       [[.int(4), .null, .null]])
        XCTAssertEqual(try opts(("json", "s3://bucket/paths.json")).json, .paths(file: "s3://bucket/paths.json"))
        XCTAssertEqual(expectSQLError { try opts(("json", "s3://Bad_Bucket/paths.json")) }?.code, .invalidParameter)
    }

    // MARK: - Errors

    func testMalformedJSONIs1224WithTheLine() throws {
        let cases: [(String, Int, String)] = [
            ("{\"id\": 1}\n{\"id\": 2,}\n", 2, "expected a double-quoted object key"),
            ("{\"id\": 1}\n{\"id\" 2}\n", 2, "expected ':'"),
            ("{\"id\": 1}\n\n{\n\"id\": tru}\n", 4, "invalid literal"),
            ("{\"id\": 01}\n", 1, "expected ',' or '}'"),
            ("{\"id\": 1}\n{\"name\": \"a\nb\"}\n", 2, "unescaped newline in string"),
            ("{\"name\": \"bad \\x escape\"}\n", 1, "invalid escape"),
            ("{\"name\": \"\\u12G4\"}\n", 1, "invalid \\u escape"),
            ("{\"id\": 1}\n{\"id\": 2\n", 3, "unexpected end of input"),
            ("{\"id\": 1} x\n", 1, "expected '{'"),
            ("{\"id\": 1, \"name\": [1, 2}\n", 1, "expected ',' or ']'"),
            ("{\"id\": 1, \"extra\": {\"a\": 1]}\n", 1, "expected ',' or '}'"),
            ("\"just a string\"\n", 1, "expected '{'"),
        ]
        for (data, line, message) in cases {
            let e = expectLoadError { try loadText(data, columns: self.cols, options: self.auto()) }
            XCTAssertEqual(e?.code, .invalidJSON, data)
            XCTAssertEqual(e?.line, line, data)
            XCTAssertTrue(e?.reason.contains(message) ?? false, "\(data): \(e?.reason ?? "")")
            XCTAssertTrue(e?.reason.hasPrefix("Invalid JSON: ") ?? false)
            XCTAssertTrue(e?.file.hasSuffix("/data.txt") ?? false)
            XCTAssertEqual(e?.column, "")
        }
        let e = expectLoadError { try loadText("{\"id\": 1}\n  {\"id\" 2}\n", columns: self.cols, options: self.auto()) }
        XCTAssertTrue(e?.reason.hasSuffix("(line 2, column 9)") ?? false, e?.reason ?? "")
        XCTAssertEqual(e?.asSQLError().code, .loadError)
    }

    func testMaxErrorSkipsMalformedRecordsAndResumes() throws {
        let data = "{\"id\": 1}\n{\"id\": oops}\n{\"id\": 3}\n{\"id\": 4, \"name\": \"a\n{\"id\": 5}\n{\"id\": \"x\"}\n{\"id\": 7}\n"
        let r = try loadText(data, columns: cols, options: opts(("json", "auto"), ("MAXERROR", "10")))
        XCTAssertEqual(rows(r).map { $0[0] }, [.int(1), .int(3), .int(5), .int(7)])
        XCTAssertEqual(r.rejected.map(\.line), [2, 4, 6])
        XCTAssertEqual(r.rejected.map(\.code), [.invalidJSON, .invalidJSON, .invalidDigit])
    }

    func testConversionErrors() throws {
        let cols = [col("i", .smallint), col("d", .date), col("ts", .timestamp), col("v", .varchar(3)),
                    col("nn", .integer, notNull: true)]
        func check(_ record: String, _ code: LoadErrorCode, column: String, position: Int, value: String?,
                   file: StaticString = #filePath, line: UInt = #line) {
            let e = expectLoadError({ try loadText("{\"nn\": 0}\n\n" + record + "\n", columns: cols, options: self.auto()) },
                                    file: file, line: line)
            XCTAssertEqual(e?.code, code, e?.reason ?? "", file: file, line: line)
            XCTAssertEqual(e?.line, 3, file: file, line: line)
            XCTAssertEqual(e?.column, column, file: file, line: line)
            XCTAssertEqual(e?.position, position, file: file, line: line)
            if let value { XCTAssertEqual(e?.rawFieldValue, value, file: file, line: line) }
            XCTAssertEqual(e?.rawLine, record, file: file, line: line)
        }
        check("{\"nn\": 1, \"i\": \"12a\"}", .invalidDigit, column: "i", position: 0, value: "12a")
        check("{\"nn\": 1, \"i\": 1.5}", .invalidDigit, column: "i", position: 0, value: "1.5")
        check("{\"nn\": 1, \"i\": true}", .invalidDigit, column: "i", position: 0, value: "true")
        check("{\"nn\": 1, \"i\": 40000}", .valueOutOfRange, column: "i", position: 0, value: "40000")
        check("{\"nn\": 1, \"d\": \"2021-02-30\"}", .invalidDate, column: "d", position: 1, value: "2021-02-30")
        check("{\"nn\": 1, \"ts\": 17}", .invalidTimestamp, column: "ts", position: 2, value: "17")
        check("{\"nn\": 1, \"v\": \"long\"}", .valueOutOfRange, column: "v", position: 3, value: "long")
        check("{\"nn\": 1, \"v\": \"\\uD800x\"}", .invalidUTF8, column: "v", position: 3, value: nil)
        check("{\"i\": 1}", .notNullViolation, column: "nn", position: 4, value: nil)
        check("{\"nn\": null}", .notNullViolation, column: "nn", position: 4, value: nil)
    }

    func testEpochTimestampsFromNumbers() throws {
        let r = try loadText("{\"ts\": 86400}\n{\"ts\": \"1.5\"}\n", columns: [col("ts", .timestamp)],
                             options: opts(("json", "auto"), ("TIMEFORMAT", "epochsecs")))
        XCTAssertEqual(rows(r), [[.int(86_400_000_000)], [.int(1_500_000)]])
    }

    func testConflictingOptions() throws {
        for extra in [("DELIMITER", ","), ("CSV", nil), ("NULL", "x"), ("IGNOREHEADER", "1"), ("FILLRECORD", nil),
                      ("ESCAPE", nil), ("REMOVEQUOTES", nil), ("IGNOREBLANKLINES", nil), ("FIXEDWIDTH", "a:1")] as [(String, String?)] {
            let e = expectSQLError { try opts(("json", "auto"), extra) }
            XCTAssertNotNil(e, extra.0)
            XCTAssertTrue(e.map { $0.message.contains("JSON") } ?? false, "\(extra.0): \(e?.message ?? "")")
        }
        XCTAssertNotNil(expectSQLError { try opts(("FIXEDWIDTH", "a:1"), ("CSV", nil)) })
        XCTAssertNotNil(expectSQLError { try opts(("FIXEDWIDTH", "a:1"), ("DELIMITER", "|")) })
        XCTAssertNotNil(expectSQLError { try opts(("CSV", nil), ("FIXEDWIDTH", "a:1")) })
        // Compression and conversion options combine with JSON.
        let o = try opts(("json", "auto"), ("GZIP", nil), ("MAXERROR", "3"), ("TRUNCATECOLUMNS", nil), ("DATEFORMAT", "auto"))
        XCTAssertEqual(o.compression, .gzip)
        XCTAssertEqual(o.format, .json)
    }

    // MARK: - Scale

    func testParallelRangesKeepOrderAndLines() throws {
        var s = ""
        for i in 0..<30_000 {
            if i % 3 == 0 {
                s += "{\"id\": \(i), \"name\": \"n\\\"\(i)}\", \"nested\": {\"a\": [\"}\", \"{\"]}}\n"
            } else {
                s += "{\n  \"name\": \"n\(i)\",\n  \"id\": \(i)\n}\n"
            }
        }
        let total = s.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        s += "{\"id\": \"bad\"}\n"
        let tuning = CopyTuning(chunkRows: 2048, rangeBytes: 16 << 10, workers: 4)
        let e = expectLoadError { try loadText(s, columns: self.cols, options: self.auto(), tuning: tuning) }
        XCTAssertEqual(e?.line, total + 1)
        let r = try loadText(s, columns: cols, options: opts(("json", "auto"), ("MAXERROR", "1")), tuning: tuning)
        let v = rows(r)
        XCTAssertEqual(v.map { $0[0].asInt64 ?? -1 }, (0..<30_000).map(Int64.init))
        XCTAssertEqual(v[3][1], .string("n\"3}"))
        XCTAssertEqual(v[4][1], .string("n4"))
        XCTAssertGreaterThan(r.chunks.count, 1)
    }

    func testRecordCutsFallBetweenRecords() throws {
        func cuts(_ s: String) -> [Int] {
            Array(s.utf8).withUnsafeBufferPointer { b in
                b.baseAddress.map { JSONGrammar.recordCuts($0, 0, b.count, target: 1) } ?? []
            }
        }
        // At each record start after `}` + newline; never inside strings or nested values.
        XCTAssertEqual(cuts("{\"a\": \"}{\"}\n{\"a\": [1, {\"b\": 2}]}\n{\"a\": 3}\n"), [12, 33])
        XCTAssertEqual(cuts("{\"a\":\n{\"b\": 1},\n{\"c\":\n[\n{}\n]}}\n  [1]\n"), [33])
        XCTAssertEqual(cuts("{\"a\": 1} {\"a\": 2} {\"a\": 3}"), [], "no newline between records: no cut")
    }

    func testGzipAndBzip2JSONWithBOM() throws {
        let plain = [0xEF, 0xBB, 0xBF] + Array("{\"id\": 1, \"name\": \"é\"}\n{\"id\": 2}".utf8)
        let a = try loadBytes(try GzipCodec.compress(plain), columns: cols, options: opts(("json", "auto"), ("GZIP", nil)))
        let b = try loadBytes(try Bzip2Codec.compress(plain), columns: cols, options: opts(("json", "auto"), ("BZIP2", nil)))
        XCTAssertEqual(rows(a), [[.int(1), .string("é"), .null], [.int(2), .null, .null]])
        XCTAssertEqual(rows(b), rows(a))
    }

    func testEscapedKeysMatch() throws {
        let r = try loadText("{\"n\\u0061me\": \"x\", \"\\u0069d\": 1}\n", columns: cols, options: auto())
        XCTAssertEqual(rows(r), [[.int(1), .string("x"), .null]])
    }

    func testMalformedRecordsAcrossParallelRanges() throws {
        var s = ""
        var bad: [Int] = []
        var line = 0
        for i in 0..<20_000 {
            line += 1
            if i % 997 == 5 {
                s += "{\"id\": \(i), \"name\": oops}\n"
                bad.append(line)
            } else if i % 1499 == 7 {
                s += "{\n\"id\": \(i),\n\"name\": \"x\",,\n}\n"   // error on its third line
                bad.append(line + 2)
                line += 3
            } else {
                s += "{\"id\": \(i), \"name\": \"n\(i)\"}\n"
            }
        }
        let o = try opts(("json", "auto"), ("MAXERROR", "1000"))
        let sequential = try loadText(s, columns: cols, options: o, tuning: CopyTuning(workers: 1))
        let parallel = try loadText(s, columns: cols, options: o, tuning: CopyTuning(chunkRows: 1000, rangeBytes: 8 << 10, workers: 4))
        XCTAssertEqual(sequential.rejected.map(\.line), bad)
        XCTAssertEqual(parallel.rejected.map(\.line), bad)
        XCTAssertEqual(rows(parallel), rows(sequential))
        XCTAssertEqual(parallel.rowCount, 20_000 - bad.count)
    }

    /// Random corruption of a valid file must give rows or load errors, never a crash
    /// or a hang, in one range or many.
    func testMutatedInputNeverCrashes() throws {
        var base = ""
        for i in 0..<300 {
            base += i % 2 == 0 ? "{\"id\": \(i), \"name\": \"a\\u00e9\\n\\\"q\", \"score\": -1.5e3, \"x\": [true, false, null, {\"y\": []}]}\n"
                               : "{\n  \"name\": \"n\",\n  \"id\": \(i)\n}\n"
        }
        let original = Array(base.utf8)
        let alphabet = Array("{}[]\",:\\ \n0-eE.tfnu".utf8) + [0x00, 0xFF, 0xC3]
        var rng = SystemRandomNumberGenerator()
        let o = try opts(("json", "auto"), ("IGNOREALLERRORS", nil))
        for round in 0..<60 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng) ?? 0
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &rng) ?? 0, at: at)
                }
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng))) }
            for tuning in [CopyTuning(workers: 1), CopyTuning(chunkRows: 64, rangeBytes: 1024, workers: 3)] {
                let r = try loadBytes(bytes, columns: cols, options: o, tuning: tuning)
                XCTAssertLessThanOrEqual(r.rowCount, 310)
            }
        }
    }

    func testEmptyAndWhitespaceOnlyFiles() throws {
        XCTAssertEqual(try loadText("", columns: cols, options: auto()).rowCount, 0)
        XCTAssertEqual(try loadText(" \n\t\r\n", columns: cols, options: auto()).rowCount, 0)
    }
}
