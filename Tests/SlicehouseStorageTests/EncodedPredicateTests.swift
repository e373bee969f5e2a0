// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseStorage
import SlicehouseTypes
import XCTest

/// Filters on RUNLENGTH and BYTEDICT blocks against decode-then-compare, and the
/// ENCODE AUTO / ANALYZE COMPRESSION choices.
final class EncodedPredicateTests: XCTestCase {
    typealias F = EncodingFixtures

    /// Reference comparison with the execution kernels' rules.
    static func reference(_ value: Value, _ op: CompareOp, _ c: Value) -> Bool {
        if value.isNull || c.isNull { return false }
        let r: Int
        switch (value, c) {
        case (.int(let a), .int(let b)): r = a < b ? -1 : (a == b ? 0 : 1)
        case (.int(let a), .int128(let b)): r = Int128(a) < b ? -1 : (Int128(a) == b ? 0 : 1)
        case (.int128(let a), .int128(let b)): r = a < b ? -1 : (a == b ? 0 : 1)
        case (.int128(let a), .int(let b)): r = a < Int128(b) ? -1 : (a == Int128(b) ? 0 : 1)
        case (.double(let a), .double(let b)):
            if a.isNaN { r = b.isNaN ? 0 : 1 } else if b.isNaN { r = -1 } else { r = a < b ? -1 : (a == b ? 0 : 1) }
        case (.double(let a), .int(let i)):
            let b = Double(i)
            if a.isNaN { r = 1 } else { r = a < b ? -1 : (a == b ? 0 : 1) }
        case (.bool(let a), .bool(let b)): r = a == b ? 0 : (!a ? -1 : 1)
        case (.string(let a), .string(let b)):
            r = a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : (a.utf8.elementsEqual(b.utf8) ? 0 : 1)
        default: XCTFail("unexpected pair"); return false
        }
        switch op {
        case .eq: return r == 0
        case .ne: return r != 0
        case .lt: return r < 0
        case .le: return r <= 0
        case .gt: return r > 0
        case .ge: return r >= 0
        }
    }

    func check(_ v: Vector, _ e: ColumnEncoding, constants: [Value], file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try BlockEncoder.encode(v, start: 0, count: v.count, encoding: e)
        let values = (0..<v.count).map { v.value(at: $0) }
        for c in constants {
            for op in CompareOp.allCases {
                let got = try bytes.withUnsafeBytes {
                    try EncodedPredicate.matches($0, type: v.type, encoding: e, op: op, constant: c)
                }
                guard let got else { XCTFail("\(e) \(v.type): no fast path", file: file, line: line); return }
                XCTAssertEqual(got.words.count, (v.count + 63) / 64, file: file, line: line)
                var expectedCount = 0
                for i in 0..<v.count {
                    let want = Self.reference(values[i], op, c)
                    if want { expectedCount += 1 }
                    if got.isValid(i) != want {
                        XCTFail("\(e) \(v.type) row \(i) \(op) \(c): got \(got.isValid(i))", file: file, line: line)
                        return
                    }
                }
                XCTAssertEqual(EncodedPredicate.count(got, rows: v.count), expectedCount, file: file, line: line)
            }
        }
    }

    func testRunLengthAndByteDictMatchDecodeThenCompare() throws {
        // (VARCHAR(65535) adds only 64 KB values, slow to compare in a debug build.)
        for t in F.types where t != .varchar(65535) {
            for e in [ColumnEncoding.runlength, .bytedict] where BlockEncoder.isAllowed(e, for: t) {
                for pattern in [DataPattern.boundary, .lowCardinality, .sorted, .random] {
                    for nulls in [NullPattern.none, .some] {
                        let v = F.vector(t, 700, pattern, nulls, seed: 5)
                        var constants: [Value] = [v.value(at: 1), v.value(at: 350), v.value(at: 699)].filter { !$0.isNull }
                        switch t.physical {
                        case .int64: constants += [.int(0), .int(-1), .int(Int64.max), .int(Int64.min), .int128(Int128(Int64.max) + 5)]
                        case .int128: constants += [.int128(0), .int(-7), .int128(Int128.max)]
                        case .double: constants += [.double(0), .double(-0.0), .double(.nan), .double(.infinity), .int(1)]
                        case .bool: constants += [.bool(true), .bool(false)]
                        case .string: constants += [.string(""), .string("MAIL"), .string("zzz"), .string("héllo wörld")]
                        }
                        try check(v, e, constants: constants)
                    }
                }
            }
        }
    }

    func testByteDictWithEscapesAndLargeRuns() throws {
        var rng = EncRNG(3)
        let v = Vector(type: .integer, data: .int64((0..<5000).map { _ in Int64(rng.next() % 400) }))
        try check(v, .bytedict, constants: [.int(0), .int(200), .int(399), .int(1000)])
        var w = Vector(type: .bigint, capacity: 100_000)
        for i in 0..<100_000 { w.append(i % 1000 == 999 ? .null : .int(Int64(i / 10_000))) }
        try check(w, .runlength, constants: [.int(3), .int(9), .int(-1)])
        var strings = Vector(type: .varchar(20), capacity: 3000)
        for i in 0..<3000 { strings.append(i % 11 == 0 ? .null : .string("value-\((i * 7) % 400)")) }
        try check(strings, .bytedict, constants: [.string("value-7"), .string("value-399"), .string("value-5"), .string("")])
    }

    func testNullsAndFallbacks() throws {
        let v = Vector.ints([1, nil, 3, 3, nil])
        for e in [ColumnEncoding.runlength, .bytedict, .raw, .az64] {
            let bytes = try BlockEncoder.encode(v, start: 0, count: 5, encoding: e)
            try bytes.withUnsafeBytes { b in
                // A NULL constant matches nothing, whatever the encoding.
                let none = try EncodedPredicate.matches(b, type: .bigint, encoding: e, op: .ne, constant: .null)
                XCTAssertEqual(none.map { EncodedPredicate.count($0, rows: 5) }, 0)
                let r = try EncodedPredicate.matches(b, type: .bigint, encoding: e, op: .ne, constant: .int(3))
                if e == .runlength || e == .bytedict {
                    XCTAssertEqual(r.map { (0..<5).map($0.isValid) }, [true, false, false, false, false])
                } else {
                    XCTAssertNil(r, "\(e) has no fast path")
                }
                // A constant of another kind: no fast path.
                XCTAssertNil(try EncodedPredicate.matches(b, type: .bigint, encoding: e, op: .eq, constant: .string("3")))
            }
        }
        // All-NULL blocks match nothing for every encoding.
        let nulls = Vector.nulls(.varchar(4), count: 70)
        for e in [ColumnEncoding.lzo, .text255, .runlength] {
            let bytes = try BlockEncoder.encode(nulls, start: 0, count: 70, encoding: e)
            let r = try bytes.withUnsafeBytes {
                try EncodedPredicate.matches($0, type: .varchar(4), encoding: e, op: .eq, constant: .string(""))
            }
            XCTAssertEqual(r.map { EncodedPredicate.count($0, rows: 70) }, 0)
        }
        // Corrupt input throws.
        var bytes = try BlockEncoder.encode(v, start: 0, count: 5, encoding: .runlength)
        bytes[bytes.count - 1] ^= 1
        XCTAssertThrowsError(try bytes.withUnsafeBytes {
            try EncodedPredicate.matches($0, type: .bigint, encoding: .runlength, op: .eq, constant: .int(1))
        })
    }

    // MARK: ENCODE AUTO and ANALYZE COMPRESSION

    func testChooseAuto() {
        let n = 20_000
        let constantInt = Vector(type: .integer, data: .int64([Int64](repeating: 42, count: n)))
        XCTAssertTrue([.az64, .runlength].contains(BlockEncoder.chooseAuto(sample: constantInt, type: .integer, isSortKeyColumn: false)))
        // A sort-key column starts from RAW but moves to a far smaller encoding.
        XCTAssertTrue([.az64, .runlength].contains(BlockEncoder.chooseAuto(sample: constantInt, type: .integer, isSortKeyColumn: true)))
        var noise = EncRNG(5)
        let spread = Vector(type: .double, data: .double((0..<n).map { _ in Double(bitPattern: noise.next() >> 12 | 0x3FF0_0000_0000_0000) }))
        XCTAssertEqual(BlockEncoder.chooseAuto(sample: spread, type: .double, isSortKeyColumn: true), .raw)

        let lowCard = F.vector(.varchar(10), n, .lowCardinality, .none)
        XCTAssertTrue([.bytedict, .zstd].contains(BlockEncoder.chooseAuto(sample: lowCard, type: .varchar(10), isSortKeyColumn: false)))

        var rng = EncRNG(11)
        let randomKeys = Vector(type: .bigint, data: .int64((0..<n).map { _ in Int64(rng.next() % 1_000_000) }))
        XCTAssertEqual(BlockEncoder.chooseAuto(sample: randomKeys, type: .bigint, isSortKeyColumn: false), .az64)

        let dates = Vector(type: .date, data: .int64((0..<n).map { 8000 + Int64($0 / 50) }))
        XCTAssertTrue([.az64, .runlength, .delta].contains(BlockEncoder.chooseAuto(sample: dates, type: .date, isSortKeyColumn: false)))

        let randomDoubles = F.vector(.double, n, .random, .none)
        XCTAssertEqual(BlockEncoder.chooseAuto(sample: randomDoubles, type: .double, isSortKeyColumn: false), .raw)

        let constantBool = Vector(type: .boolean, data: .bool([Bool](repeating: true, count: n)))
        XCTAssertEqual(BlockEncoder.chooseAuto(sample: constantBool, type: .boolean, isSortKeyColumn: false), .runlength)
        let randomBool = F.vector(.boolean, n, .random, .none)
        XCTAssertEqual(BlockEncoder.chooseAuto(sample: randomBool, type: .boolean, isSortKeyColumn: false), .raw)

        let comments = Vector.strings((0..<n).map { _ in F.longString(40, seed: rng.next()) }, type: .varchar(60))
        XCTAssertTrue([.lzo, .zstd, .text255, .text32k].contains(BlockEncoder.chooseAuto(sample: comments, type: .varchar(60), isSortKeyColumn: false)))

        XCTAssertEqual(BlockEncoder.chooseAuto(sample: Vector(type: .bigint), type: .bigint, isSortKeyColumn: false), .az64)
        XCTAssertEqual(BlockEncoder.chooseAuto(sample: Vector.nulls(.varchar(3), count: 10), type: .varchar(3), isSortKeyColumn: false), .lzo)
    }

    /// The shared TEXT255/TEXT32K trial must give exactly the sizes of the blocks
    /// the encoder writes: with NULLs, empty values, runs of spaces, more words than
    /// TEXT255's dictionary holds and more word bytes than TEXT32K's.
    func testTextTrialSizesEqualEncodedSizes() {
        var rng = EncRNG(23)
        func word(_ distinct: UInt64) -> String {
            let k = rng.next() % distinct
            return String(repeating: "w", count: Int(k % 9)) + "\(k)"
        }
        let cases: [(String, [String?])] = [
            ("few words", (0..<3000).map { _ in (0..<4).map { _ in word(20) }.joined(separator: " ") }),
            ("many words", (0..<3000).map { _ in (0..<6).map { _ in word(5000) }.joined(separator: " ") }),
            ("long words", (0..<3000).map { _ in String(repeating: word(3000), count: 4) }),
            ("nulls, empties and spaces", (0..<3000).map { i -> String? in
                switch i % 5 {
                case 0: return nil
                case 1: return ""
                case 2: return "  a  b "
                default: return word(300) + " " + word(30)
                }
            }),
            ("all null", [String?](repeating: nil, count: 100)),
            ("empty", []),
        ]
        for (name, values) in cases {
            let v = Vector.strings(values, type: .varchar(500))
            for count in Set([values.count, values.count / 3]) {
                guard let got = BlockEncoder.encodedTextSizes(v, count: count) else {
                    XCTFail("\(name): no sizes"); continue
                }
                XCTAssertEqual(got.small, BlockEncoder.encodedSize(v, start: 0, count: count, encoding: .text255), "\(name), \(count) rows")
                XCTAssertEqual(got.large, BlockEncoder.encodedSize(v, start: 0, count: count, encoding: .text32k), "\(name), \(count) rows")
                XCTAssertEqual(BlockEncoder.trialSizes(v, count: count, encodings: [.text255, .text32k]),
                               [.text255: got.small, .text32k: got.large])
            }
        }
        XCTAssertEqual(BlockEncoder.trialGroups([.raw, .text255, .lzo, .text32k]), [[.text255, .text32k], [.raw], [.lzo]])
        XCTAssertEqual(BlockEncoder.trialGroups([.raw, .text255]), [[.raw], [.text255]])
    }

    /// ENCODE AUTO's thresholds on strings: 5% below LZO, ZSTD 10%; the smallest
    /// encoding that meets its own threshold wins.
    func testStringThresholds() {
        func pick(_ sizes: [ColumnEncoding: Int]) -> ColumnEncoding {
            BlockEncoder.chooseAuto(rows: 1000, sizes: sizes, type: .varchar(50), isSortKeyColumn: false)
        }
        XCTAssertEqual(pick([.lzo: 10_000, .zstd: 9_200]), .lzo)
        XCTAssertEqual(pick([.lzo: 10_000, .zstd: 9_000]), .zstd)
        XCTAssertEqual(pick([.lzo: 10_000, .zstd: 9_200, .text32k: 9_400]), .text32k)
        XCTAssertEqual(pick([.lzo: 10_000, .zstd: 8_000, .text32k: 9_400]), .zstd)
        XCTAssertEqual(pick([.lzo: 10_000, .bytedict: 9_600]), .lzo)
        XCTAssertEqual(pick([.lzo: 10_000, .bytedict: 9_500]), .bytedict)
        XCTAssertEqual(pick([.lzo: 10_000, .bytedict: 9_990]), .lzo)  // saves less than 1/16 byte per row
        XCTAssertEqual(BlockEncoder.chooseAuto(rows: 1000, sizes: [.az64: 8_000, .delta: 4_100], type: .integer,
                                               isSortKeyColumn: false), .az64)
        XCTAssertEqual(BlockEncoder.chooseAuto(rows: 1000, sizes: [.az64: 8_000, .delta: 4_000], type: .integer,
                                               isSortKeyColumn: false), .delta)
    }

    /// String samples stop at about a block of value bytes, never below the floor.
    func testStringSampleRowsStopAtTheByteBudget() {
        let wide = Vector.strings((0..<20_000).map { _ in String(repeating: "x", count: 100) }, type: .varchar(100))
        let (rows, _) = BlockEncoder.candidates(wide, type: .varchar(100))
        XCTAssertEqual(rows, BlockEncoder.autoSampleStringBytes / 100)
        let huge = Vector.strings((0..<5000).map { _ in String(repeating: "y", count: 1000) }, type: .varchar(1000))
        XCTAssertEqual(BlockEncoder.candidates(huge, type: .varchar(1000)).rows, 4096)
        let narrow = Vector.strings((0..<20_000).map { "v\($0 % 7)" }, type: .varchar(10))
        XCTAssertEqual(BlockEncoder.candidates(narrow, type: .varchar(10)).rows, 20_000)
        let ints = Vector(type: .bigint, data: .int64((0..<100_000).map { Int64($0) }))
        XCTAssertEqual(BlockEncoder.candidates(ints, type: .bigint).rows, BlockEncoder.autoSampleRows)
    }

    func testAnalyzeCompression() {
        let sorted = Vector(type: .bigint, data: .int64((0..<50_000).map { Int64($0) * 7 + 1_000_000 }))
        let a = BlockEncoder.analyze(sample: sorted, type: .bigint, current: .raw)
        XCTAssertTrue([.az64, .delta, .delta32k].contains(a.best), "\(a.best)")
        XCTAssertGreaterThan(a.reductionPct, 80)
        XCTAssertLessThanOrEqual(a.reductionPct, 100)
        let same = BlockEncoder.analyze(sample: sorted, type: .bigint, current: a.best)
        XCTAssertEqual(same.best, a.best)
        XCTAssertEqual(same.reductionPct, 0)
        let strings = F.vector(.varchar(10), 10_000, .lowCardinality, .some)
        let s = BlockEncoder.analyze(sample: strings, type: .varchar(10), current: .raw)
        XCTAssertTrue(BlockEncoder.isAllowed(s.best, for: .varchar(10)))
        XCTAssertGreaterThan(s.reductionPct, 50)
        let empty = BlockEncoder.analyze(sample: Vector(type: .integer), type: .integer, current: .az64)
        XCTAssertEqual(empty.best, .az64)
        XCTAssertEqual(empty.reductionPct, 0)
    }
}
