// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseStorage
import SlicehouseTypes
import XCTest

/// AZ64 groups with a common factor taken out, and BYTEDICT blocks with packed codes:
/// both round-trip exactly (also streamed and filtered on their codes), take the space
/// they should, and the layouts of earlier builds still decode.
final class CompactEncodingTests: XCTestCase {
    typealias F = EncodingFixtures

    func encoded(_ v: Vector, _ e: ColumnEncoding) throws -> [UInt8] {
        try BlockEncoder.encode(v, start: 0, count: v.count, encoding: e)
    }

    /// Row `i` of a string vector (nil for NULL).
    func text(_ v: Vector, _ i: Int) -> String? {
        if case .string(let s) = v.value(at: i) { return s }
        return nil
    }

    // MARK: AZ64 with a common factor

    func testExactDivisionAgreesWithTheRemainder() {
        var rng = EncRNG(5)
        let divisors: [UInt64] = [2, 3, 5, 7, 10, 100, 128, 1_000_000, 86_400_000_000, (1 << 63), UInt64.max, 6_700_417]
        for d in divisors {
            let t = AZ64.ExactDivision(d)
            var xs: [UInt64] = [0, d, d &* 2, d &- 1, d &+ 1, UInt64.max, UInt64.max - UInt64.max % d]
            for _ in 0..<2000 { xs.append(rng.next()); xs.append((rng.next() % 1000) &* d) }
            for x in xs { XCTAssertEqual(t.divides(x), x % d == 0, "\(x) by \(d)") }
        }
        XCTAssertEqual(AZ64.gcd(0, 12), 12)
        XCTAssertEqual(AZ64.gcd(12, 0), 12)
        XCTAssertEqual(AZ64.gcd(100, 4900), 100)
        XCTAssertEqual(AZ64.gcd(1 << 40, 3 << 20), 1 << 20)
        XCTAssertEqual(AZ64.gcd(17, 31), 1)
    }

    /// DECIMAL(15,2) quantities in whole units (100 … 5000): 6 bits a value, not 13.
    func testWholeUnitDecimalsTakeTheirFactorOut() throws {
        var rng = EncRNG(11)
        let n = 65_536
        let q = (0..<n).map { _ in Int64(rng.next() % 50 + 1) * 100 }
        let v = Vector(type: .decimal(precision: 15, scale: 2), data: .int64(q))
        let (out, size) = try F.roundTrip(v, .az64)
        XCTAssertNil(F.difference(v, out))
        XCTAssertLessThan(size, n * 6 / 8 + n / 128 * 8 + 64, "6-bit groups")
        XCTAssertGreaterThan(size, n * 5 / 8, "the 50 values need 6 bits")
        // The same values, every other one a cent more, share no factor: 13 bits.
        let unscaled = Vector(type: .decimal(precision: 15, scale: 2),
                              data: .int64(q.indices.map { q[$0] + Int64($0 % 2) }))
        let (o2, s2) = try F.roundTrip(unscaled, .az64)
        XCTAssertNil(F.difference(unscaled, o2))
        XCTAssertGreaterThan(s2, n * 12 / 8)
    }

    /// Timestamps at whole seconds, sorted: delta groups with the factor (a million
    /// microseconds) taken out of the deltas.
    func testWholeSecondTimestampsTakeTheFactorOutOfTheirDeltas() throws {
        var rng = EncRNG(23)
        var t: Int64 = 700_000_000 * 1_000_000
        var ts: [Int64] = []
        for _ in 0..<20_000 {
            t += Int64(rng.next() % 120) * 1_000_000
            ts.append(t)
        }
        let v = Vector(type: .timestamp, data: .int64(ts))
        let (out, size) = try F.roundTrip(v, .az64)
        XCTAssertNil(F.difference(v, out))
        XCTAssertLessThan(size, 20_000 * 7 / 8 + 20_000 / 128 * 16 + 64, "7-bit deltas, not 27-bit")
    }

    /// Groups with a factor and outliers (exceptions in the scaled domain), negative
    /// values, the extremes, a factor of 2^62, a value breaking the factor late in a
    /// group, and DECIMAL(38) values.
    func testScaledGroupsRoundTripAtTheEdges() throws {
        var rng = EncRNG(31)
        var a: [Int64] = []
        for i in 0..<1000 { a.append(i % 97 == 0 ? Int64.max : Int64(rng.next() % 64) * 1000 - 32_000) }
        for i in 0..<1000 { a.append(i % 101 == 0 ? Int64.min : -Int64(rng.next() % 64) * 7) }
        a += (0..<256).map { Int64($0 % 2) << 62 }               // 0 and 2^62
        a += (0..<256).map { $0 % 2 == 0 ? Int64.min : 0 }       // a factor of 2^63
        a += (0..<127).map { Int64($0) * 10 } + [5]               // the last value breaks the factor
        a += (0..<300).map { Int64.max - 30 + Int64($0 % 7) * 3 }
        // Multiples of 1000 with rare huge ones: 6-bit scaled groups, the huge ones exceptions.
        let patched = (0..<1280).map { i in i % 89 == 0 ? 1_000_000_000_000_000 : Int64(rng.next() % 64) * 1000 }
        let pv = Vector(type: .bigint, data: .int64(patched))
        let (po, psize) = try F.roundTrip(pv, .az64)
        XCTAssertNil(F.difference(pv, po))
        XCTAssertLessThan(psize, 1280 * 6 / 8 + 15 * 10 + 10 * 16 + 64)
        a += patched
        for e in [ColumnEncoding.az64] {
            let v = Vector(type: .bigint, data: .int64(a))
            let (out, _) = try F.roundTrip(v, e)
            if let d = F.difference(v, out) { XCTFail(d) }
            // Streamed in reads of every awkward size gives the same values.
            let bytes = try encoded(v, e)
            for size in [1, 127, 129, 1000] {
                guard var stream = try BlockStream.open(bytes, type: .bigint, encoding: e),
                      case .az64(var s) = stream else { return XCTFail("an AZ64 block streams") }
                var got: [Int64] = []
                while s.position < a.count { got += try s.read(min(size, a.count - s.position)) }
                XCTAssertEqual(got, a, "reads of \(size)")
                stream = .az64(s)
                _ = stream
            }
        }
        let wide: [Int128] = (0..<1000).map { i in
            i % 50 == 0 ? Int128.max - Int128(i) : Int128(i % 40) * 1_000_000_000_000_000_000 - (Int128(1) << 90)
        }
        let w = Vector(type: .decimal(precision: 38, scale: 2), data: .int128(wide))
        let (o3, _) = try F.roundTrip(w, .az64)
        XCTAssertNil(F.difference(w, o3))
    }

    /// A scaled chunk's header fields are checked: a scale below 2 is corrupt, never a trap.
    func testACorruptScaleIsAnError() throws {
        let v = Vector(type: .bigint, data: .int64((0..<128).map { Int64($0 % 50) * 100 }))
        let bytes = try encoded(v, .az64)
        let h = try bytes.withUnsafeBytes { try BlockEncoder.parse($0, type: .bigint, encoding: .az64) }
        _ = h
        // Every single-byte change decodes to something or throws an I/O error.
        for i in 0..<bytes.count {
            for x: UInt8 in [0, 1, 0xFF] {
                var b = bytes
                b[i] = x
                do {
                    _ = try b.withUnsafeBytes { try BlockEncoder.decode($0, type: .bigint, encoding: .az64) }
                } catch let e as SQLError {
                    XCTAssertEqual(e.code, .ioError)
                }
            }
        }
    }

    // MARK: BYTEDICT with packed codes

    /// Dictionaries of 1, 2, 3, 4, 5, 8, 9, 100, 128 entries pack 0…7 bits a code; 129
    /// and more keep a byte.
    func testPackedCodesRoundTripAndTakeTheirWidth() throws {
        var rng = EncRNG(41)
        let n = 10_000
        for entries in [1, 2, 3, 4, 5, 8, 9, 100, 128, 129, 200, 256] {
            let ints = (0..<n).map { _ in Int64(rng.next() % UInt64(entries)) * 1_000_003 - 77 }
            let v = Vector(type: .bigint, data: .int64(ints))
            let (out, size) = try F.roundTrip(v, .bytedict)
            XCTAssertNil(F.difference(v, out), "\(entries) entries")
            let width = entries > 128 ? 8 : (entries <= 1 ? 0 : 64 - UInt64(entries - 1).leadingZeroBitCount)
            XCTAssertLessThanOrEqual(size, n * width / 8 + entries * 8 + 64, "\(entries) entries")
            XCTAssertGreaterThanOrEqual(size, n * width / 8, "\(entries) entries")

            let strs = Vector.strings((0..<n).map { _ in "mode-\(rng.next() % UInt64(entries))" }, type: .char(10))
            let bytes = try encoded(strs, .bytedict)
            let whole = try bytes.withUnsafeBytes { try BlockEncoder.decode($0, type: .char(10), encoding: .bytedict) }
            XCTAssertNil(F.difference(strs, whole), "\(entries) string entries")
            // Streamed: reads and skips, and sparse rows straight from the codes.
            guard let opened = try BlockStream.open(bytes, type: .varchar(65535), encoding: .bytedict),
                  case .dictionary(var s) = opened else { return XCTFail("a BYTEDICT block streams") }
            var got: [String?] = []
            var pos = 0
            while pos < n {
                let k = min(777, n - pos)
                if (pos / 777) % 3 == 1 {
                    try s.skip(k)
                    got += Array(repeating: nil, count: k)
                } else {
                    let part = try s.read(k)
                    got += (0..<k).map { part[$0] }
                }
                pos += k
            }
            for i in 0..<n where (i / 777) % 3 != 1 {
                XCTAssertEqual(got[i], text(strs, i), "row \(i) of \(entries) entries")
            }
            let rows: [Int32] = [0, 5, Int32(n - 1), 1234]
            let sparse = try s.gather(rows, offset: 0)
            XCTAssertEqual(sparse.map { a in (0..<rows.count).map { a[$0] } },
                           rows.map { text(strs, Int($0)) })
        }
    }

    /// Blocks of earlier builds (one byte a code however small the dictionary) still decode.
    func testOneByteCodesOfEarlierBuildsStillDecode() throws {
        var rng = EncRNG(43)
        let ints = (0..<5000).map { _ in Int64(rng.next() % 7) - 3 }
        var w = EncodingWriter()
        ByteDict.encode(count: ints.count, hash: { ints[$0].blockHash }, equal: { ints[$0] == ints[$1] },
                        gather: { idx in .int64(idx.map { ints[$0] }) }, natural: 8, real: false, pack: false, into: &w)
        XCTAssertGreaterThan(w.bytes.count, 5000, "one byte a code")
        let out = try w.bytes.withUnsafeBytes { b -> [Int64] in
            var r = EncodingReader(b)
            var out = [Int64](repeating: 0, count: ints.count)
            try out.withUnsafeMutableBufferPointer { o in
                guard let p = o.baseAddress else { return }
                try ByteDict.decodeFixed(&r, ints.count, p) { try Int64.readArray(&$0, $1) }
            }
            return out
        }
        XCTAssertEqual(out, ints)

        let words = ["AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"]
        let strs = (0..<5000).map { _ in words[Int(rng.next() % 7)] }
        let sv = Vector.strings(strs, type: .char(10))
        guard case .string(let sa) = sv.data else { return XCTFail() }
        var ws = EncodingWriter()
        StringInput.with(sa) { si in
            ByteDict.encode(count: si.count, hash: { si.hash($0) }, equal: { si.equal($0, $1) },
                            gather: { BlockEncoder.gatherStrings(si, $0) }, natural: 0, real: false, pack: false, into: &ws)
        }
        let decoded = try ws.bytes.withUnsafeBytes { b -> StringArray in
            var r = EncodingReader(b)
            return try ByteDict.decodeStrings(&r, strs.count)
        }
        XCTAssertEqual((0..<strs.count).map { decoded[$0] }, strs)
    }

    /// Filters evaluated on packed codes match decode-then-compare.
    func testFiltersOnPackedCodes() throws {
        var rng = EncRNG(47)
        let words = ["AIR", "MAIL", "SHIP", "TRUCK", "RAIL"]
        let strs = Vector.strings((0..<3000).map { i in i % 41 == 0 ? nil : words[Int(rng.next() % 5)] }, type: .char(10))
        let bytes = try encoded(strs, .bytedict)
        for (op, c) in [(CompareOp.eq, "MAIL"), (.ne, "AIR"), (.lt, "RAIL"), (.ge, "SHIP")] {
            guard let hit = try bytes.withUnsafeBytes({
                try EncodedPredicate.matches($0, type: .char(10), encoding: .bytedict, op: op, constant: .string(c))
            }) else { return XCTFail("BYTEDICT filters on its codes") }
            for i in 0..<3000 {
                let expected = text(strs, i).map { EncodedPredicateTests.reference(.string($0), op, .string(c)) } ?? false
                XCTAssertEqual(hit.isValid(i), expected, "row \(i) \(op) \(c)")
            }
        }
    }
    // MARK: BYTEDICT of strings through a small dictionary

    /// The generic BYTEDICT block of `strs` (every value's bytes hashed).
    func genericByteDict(_ sa: StringArray, pack: Bool = true) -> [UInt8] {
        var w = EncodingWriter()
        StringInput.with(sa) { si in
            ByteDict.encode(count: si.count, hash: { si.hash($0) }, equal: { si.equal($0, $1) },
                            gather: { BlockEncoder.gatherStrings(si, $0) }, natural: 0, real: false, pack: pack, into: &w)
        }
        return w.bytes
    }

    /// `encodeStrings` writes the generic block byte for byte, returns the block's
    /// distinct values, and takes the generic path (exceptions) past 256 of them.
    func testStringByteDictAgreesWithTheGenericBlock() throws {
        var rng = EncRNG(53)
        // Values that share first and last words and lengths but differ in the middle,
        // every length from 0 to 40, bytes above 0x7F, and NUL bytes.
        var pool: [String] = ["", "a", "ab", "abc", "abcd", "abcde", "abcdefg", "abcdefgh", "abcdefghi"]
        for len in 1...40 { pool.append(String(repeating: "x", count: len)) }
        for m in 0..<20 { pool.append("0123456789" + String(UnicodeScalar(UInt8(65 + m))) + "9876543210") }
        pool += ["é", "日本語のテキスト", "a\u{0}b", "a\u{0}c", "TAKE BACK RETURN", "TAKE BACK RETURM"]
        for entries in [1, 2, 7, 100, 128, 129, 200, 255, 256, 257, 300] {
            var values = pool
            var k = 0
            while values.count < entries { values.append("value \(k) " + String(repeating: "z", count: k % 23)); k += 1 }
            values = Array(values.prefix(entries))
            XCTAssertEqual(Set(values).count, entries, "distinct test values")
            let n = 4000
            let strs = (0..<n).map { i in i < values.count ? values[i] : values[Int(rng.next() % UInt64(values.count))] }
            let sv = Vector.strings(strs, type: .varchar(100))
            guard case .string(let sa) = sv.data else { return XCTFail() }
            for pack in [true, false] {
                var w = EncodingWriter()
                let dict = StringInput.with(sa) { ByteDict.encodeStrings($0, pack: pack, into: &w) }
                XCTAssertEqual(w.bytes, genericByteDict(sa, pack: pack), "\(entries) values, pack \(pack)")
                if entries <= 256 {
                    XCTAssertEqual(dict.map { d in (0..<d.count).map { d[$0] } }, values, "\(entries) values in first-seen order")
                } else {
                    XCTAssertNil(dict, "\(entries) values take the generic block with exceptions")
                }
            }
            let decoded = try encoded(sv, .bytedict)
            let back = try decoded.withUnsafeBytes { try BlockEncoder.decode($0, type: .varchar(100), encoding: .bytedict) }
            XCTAssertEqual((0..<n).map { text(back, $0) }, strs, "\(entries) values round-trip")
        }
        // No values, and values that are all empty (no bytes at all).
        for strs in [[String](), ["", "", ""]] {
            let sv = Vector.strings(strs, type: .varchar(10))
            guard case .string(let sa) = sv.data else { return XCTFail() }
            var w = EncodingWriter()
            StringInput.with(sa) { ByteDict.encodeStrings($0, into: &w) }
            XCTAssertEqual(w.bytes, genericByteDict(sa), "\(strs.count) empty values")
        }
    }

    /// A BYTEDICT block's zone map comes from its dictionary: the same as every row's,
    /// and none from a block with NULLs or more than 256 values.
    func testByteDictZoneMapFromItsDictionary() throws {
        var rng = EncRNG(59)
        let words = ["AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR", "", "0123456789abcdefXYZ", "0123456789abcdefXYA"]
        for rows in [1, 2, 10, 5000] {
            let strs = (0..<rows).map { _ in words[Int(rng.next() % UInt64(words.count))] }
            let sv = Vector.strings(strs, type: .varchar(30))
            var dictionary: StringArray?
            _ = try BlockEncoder.encode(sv, start: 0, count: rows, encoding: .bytedict, dictionary: &dictionary)
            let d = try XCTUnwrap(dictionary)
            XCTAssertEqual(ZoneMap.compute(distinct: d, type: sv.type, count: rows),
                           ZoneMap.compute(sv, start: 0, count: rows), "\(rows) rows")
            // A range inside the vector.
            if rows > 10 {
                _ = try BlockEncoder.encode(sv, start: 7, count: rows - 9, encoding: .bytedict, dictionary: &dictionary)
                let part = try XCTUnwrap(dictionary)
                XCTAssertEqual(ZoneMap.compute(distinct: part, type: sv.type, count: rows - 9),
                               ZoneMap.compute(sv, start: 7, count: rows - 9))
            }
        }
        var dictionary: StringArray?
        let withNull = Vector.strings(["AIR", nil, "MAIL"], type: .varchar(10))
        _ = try BlockEncoder.encode(withNull, start: 0, count: 3, encoding: .bytedict, dictionary: &dictionary)
        XCTAssertNil(dictionary, "a block with NULLs")
        let many = Vector.strings((0..<600).map { "v\($0)" }, type: .varchar(10))
        _ = try BlockEncoder.encode(many, start: 0, count: 600, encoding: .bytedict, dictionary: &dictionary)
        XCTAssertNil(dictionary, "more than 256 values")
        _ = try BlockEncoder.encode(many, start: 0, count: 600, encoding: .lzo, dictionary: &dictionary)
        XCTAssertNil(dictionary, "another encoding")
    }
    /// A column held as dictionary codes is written as BYTEDICT blocks straight from
    /// the codes: the same blocks — bytes, row ranges and zone maps — as its strings.
    func testBlocksFromHeldCodesMatchTheStrings() throws {
        var rng = EncRNG(61)
        func bytes(_ b: BlockRef) -> [UInt8]? {
            if case .memory(let e) = b.payload { return e.bytes }
            return nil
        }
        let pools: [[String]] = [
            ["AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"],
            ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"],
            (0..<256).map { "value \($0) " + String(repeating: "q", count: $0 % 40) },
            [""],
            ["", "a"],
        ]
        for (k, pool) in pools.enumerated() {
            var dictionary = StringArray()
            for v in pool { dictionary.append(v) }
            for rows in [0, 1, 100, 70_000, 300_000] {
                // Some dictionary values never appear in short columns; the block's own
                // dictionary is the values in the order they first appear.
                let codes = (0..<rows).map { _ in UInt8(rng.next() % UInt64(pool.count)) }
                let strings = Vector.strings(codes.map { pool[Int($0)] }, type: .varchar(60))
                for target in [1 << 20, 64 << 10] {
                    let sink = MemoryBlockSink()
                    let fromCodes = try Distributor.encodeCodedBlocks(codes: codes, dictionary: dictionary, type: .varchar(60),
                                                                      firstRow: 5, table: 1, slice: 0, sink: sink,
                                                                      targetBytes: target)
                    let fromStrings = try Distributor.encodeBlocks(strings, count: rows, firstRow: 5, encoding: .bytedict,
                                                                   table: 1, slice: 0, sink: sink, targetBytes: target)
                    let what = "pool \(k), \(rows) rows, target \(target)"
                    XCTAssertEqual(fromCodes.count, fromStrings.count, what)
                    XCTAssertEqual(fromCodes.map(\.firstRow), fromStrings.map(\.firstRow), what)
                    XCTAssertEqual(fromCodes.map(\.zone), fromStrings.map(\.zone), what)
                    XCTAssertEqual(fromCodes.map(bytes), fromStrings.map(bytes), what)
                    if rows > 0 { XCTAssertGreaterThan(fromCodes.count, 0, what) }
                }
            }
        }
        // A code outside the dictionary is an error, not a crash.
        var dictionary = StringArray()
        dictionary.append("x")
        let sink = MemoryBlockSink()
        XCTAssertThrowsError(try Distributor.encodeCodedBlocks(codes: [0, 1], dictionary: dictionary, type: .varchar(5),
                                                               firstRow: 0, table: 1, slice: 0, sink: sink,
                                                               targetBytes: 1 << 20))
        XCTAssertThrowsError(try Distributor.encodeCodedBlocks(codes: [0, 255], dictionary: dictionary, type: .varchar(5),
                                                               firstRow: 0, table: 1, slice: 0, sink: sink,
                                                               targetBytes: 1 << 20))
    }
}
