// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseStorage
import SlicehouseTypes
import XCTest

/// Round trips of every allowed (encoding, type) pair, Redshift's encoding/type
/// table, and corrupt-block handling.
final class EncodingTests: XCTestCase {
    typealias F = EncodingFixtures

    // MARK: names and the type table

    func testSQLNames() {
        for e in ColumnEncoding.allCases {
            XCTAssertEqual(ColumnEncoding(sqlName: e.sqlName), e)
            XCTAssertEqual(ColumnEncoding(sqlName: e.sqlName.uppercased()), e)
            XCTAssertEqual(ColumnEncoding(blockID: e.blockID), e)
        }
        XCTAssertEqual(ColumnEncoding(sqlName: "Delta32K"), .delta32k)
        XCTAssertEqual(ColumnEncoding(sqlName: "AZ64"), .az64)
        XCTAssertEqual(ColumnEncoding(sqlName: "LZO").map(\.sqlName), "lzo")
        XCTAssertEqual(ColumnEncoding(sqlName: "none"), .raw)
        XCTAssertNil(ColumnEncoding(sqlName: "auto"))
        XCTAssertNil(ColumnEncoding(sqlName: "gzip"))
        XCTAssertNil(ColumnEncoding(sqlName: ""))
        XCTAssertEqual(Set(ColumnEncoding.allCases.map(\.blockID)).count, ColumnEncoding.allCases.count)
    }

    /// Redshift's table of encodings and data types, spelled out.
    func testAllowedPairsFollowRedshift() {
        let names: [(DataType, String)] = [
            (.smallint, "SMALLINT"), (.integer, "INTEGER"), (.bigint, "BIGINT"), (.decimal(precision: 10, scale: 2), "DECIMAL"),
            (.decimal(precision: 38, scale: 0), "DECIMAL"), (.real, "REAL"), (.double, "DOUBLE"), (.boolean, "BOOLEAN"),
            (.char(5), "CHAR"), (.varchar(20), "VARCHAR"), (.date, "DATE"), (.timestamp, "TIMESTAMP"),
        ]
        let table: [ColumnEncoding: Set<String>] = [
            .raw: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "BOOLEAN", "CHAR", "VARCHAR", "DATE", "TIMESTAMP"],
            .az64: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL", "DATE", "TIMESTAMP"],
            .bytedict: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "CHAR", "VARCHAR", "DATE", "TIMESTAMP"],
            .delta: ["SMALLINT", "INTEGER", "BIGINT", "DATE", "TIMESTAMP", "DECIMAL"],
            .delta32k: ["INTEGER", "BIGINT", "DATE", "TIMESTAMP", "DECIMAL"],
            .lzo: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL", "CHAR", "VARCHAR", "DATE", "TIMESTAMP"],
            .mostly8: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL"],
            .mostly16: ["INTEGER", "BIGINT", "DECIMAL"],
            .mostly32: ["BIGINT", "DECIMAL"],
            .runlength: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "BOOLEAN", "CHAR", "VARCHAR", "DATE", "TIMESTAMP"],
            .text255: ["VARCHAR"],
            .text32k: ["VARCHAR"],
            .zstd: ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "BOOLEAN", "CHAR", "VARCHAR", "DATE", "TIMESTAMP"],
        ]
        XCTAssertEqual(Set(table.keys), Set(ColumnEncoding.allCases))
        for e in ColumnEncoding.allCases {
            for (t, name) in names {
                XCTAssertEqual(BlockEncoder.isAllowed(e, for: t), table[e]!.contains(name), "\(e) for \(t)")
            }
        }
        // The physical capability is wider than the DDL table but never narrower.
        for e in ColumnEncoding.allCases {
            for (t, _) in names where BlockEncoder.isAllowed(e, for: t) {
                XCTAssertTrue(BlockEncoder.canEncode(e, physical: t.physical), "\(e) for \(t)")
            }
        }
        XCTAssertEqual(BlockEncoder.defaultEncoding(for: .integer, isSortKeyColumn: false), .az64)
        XCTAssertEqual(BlockEncoder.defaultEncoding(for: .varchar(10), isSortKeyColumn: false), .lzo)
        XCTAssertEqual(BlockEncoder.defaultEncoding(for: .double, isSortKeyColumn: false), .raw)
        XCTAssertEqual(BlockEncoder.defaultEncoding(for: .boolean, isSortKeyColumn: false), .raw)
        XCTAssertEqual(BlockEncoder.defaultEncoding(for: .date, isSortKeyColumn: true), .raw)
    }

    func testUnsupportedPhysicalPairThrows() {
        let v = Vector(type: .double, data: .double([1, 2, 3]))
        XCTAssertThrowsError(try BlockEncoder.encode(v, start: 0, count: 3, encoding: .az64)) { e in
            XCTAssertEqual((e as? SQLError)?.code, .featureNotSupported)
        }
        let s = Vector.strings(["a"])
        XCTAssertThrowsError(try BlockEncoder.encode(s, start: 0, count: 1, encoding: .delta))
        XCTAssertThrowsError(try BlockEncoder.encode(s, start: 0, count: 2, encoding: .raw))
    }

    // MARK: round trips

    func testEveryAllowedPairRoundTrips() throws {
        for t in F.types {
            for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: t) {
                for pattern in DataPattern.allCases {
                    for nulls in NullPattern.allCases {
                        for n in [0, 1, 2, 129, 1000] {
                            if nulls == .all && pattern != .boundary { continue }
                            let v = F.vector(t, n, pattern, nulls)
                            let what = "\(e) \(t) \(pattern) nulls:\(nulls) n=\(n)"
                            let (out, _) = try F.roundTrip(v, e)
                            XCTAssertEqual(out.type, t, what)
                            XCTAssertFalse(out.isConstant, what)
                            if let d = F.difference(v, out) { XCTFail("\(what): \(d)") }
                            if nulls == .none { XCTAssertNil(out.validity, what) }
                        }
                    }
                }
            }
        }
    }

    func testNullRowsDecodeAsZero() throws {
        var v = Vector(type: .bigint)
        v.append(.int(5)); v.appendNull(); v.append(.int(7)); v.appendNull()
        for e in [ColumnEncoding.raw, .az64, .delta, .runlength, .bytedict, .zstd, .mostly8] {
            let (out, _) = try F.roundTrip(v, e)
            XCTAssertEqual(out.data, .int64([5, 0, 7, 0]), "\(e)")
            XCTAssertEqual(out.validity?.nullCount(4), 2)
        }
        let s = Vector.strings(["x", nil, "yz", nil])
        for e in [ColumnEncoding.raw, .runlength, .bytedict, .text255, .lzo] {
            let (out, _) = try F.roundTrip(s, e)
            XCTAssertEqual(out.data, s.data, "\(e)")
        }
    }

    func testAllNullBlockIsTiny() throws {
        for t in F.types {
            let v = Vector.nulls(t, count: 100_000)
            for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: t) {
                let (out, size) = try F.roundTrip(v, e)
                XCTAssertEqual(size, BlockEncoder.headerSize, "\(e) \(t)")
                XCTAssertEqual(out.count, 100_000)
                XCTAssertEqual(out.validity?.nullCount(100_000), 100_000)
            }
        }
    }

    func testSlicesConstantsAndSparseValidity() throws {
        let v = F.vector(.integer, 5000, .random, .some)
        for e in [ColumnEncoding.raw, .az64, .delta32k, .mostly16, .runlength, .bytedict, .lzo] {
            let (out, _) = try F.roundTrip(v, e, start: 1234, count: 2000)
            if let d = F.difference(v.slice(1234, 2000), out) { XCTFail("\(e): \(d)") }
        }
        // A validity bitmap without NULLs in the range stores none.
        var w = Vector.ints([1, 2, 3, nil, 5, 6])
        w.type = .bigint
        let (o, _) = try F.roundTrip(w, .az64, start: 4, count: 2)
        XCTAssertNil(o.validity)
        XCTAssertEqual(o.data, .int64([5, 6]))
        // Constant vectors are expanded.
        let c = Vector.constant(.string("k"), type: .varchar(5))
        let bytes = try BlockEncoder.encode(c, start: 0, count: 10, encoding: .runlength)
        let d = try bytes.withUnsafeBytes { try BlockEncoder.decode($0, type: .varchar(5), encoding: .runlength) }
        XCTAssertEqual(d.count, 10)
        XCTAssertEqual(d.value(at: 9), .string("k"))
        let cn = Vector.constant(.null, type: .bigint)
        let nb = try BlockEncoder.encode(cn, start: 0, count: 10, encoding: .az64)
        let dn = try nb.withUnsafeBytes { try BlockEncoder.decode($0, type: .bigint, encoding: .az64) }
        XCTAssertEqual(dn.validity?.nullCount(10), 10)
    }

    func testExtremeIntegersEveryEncoding() throws {
        let extremes: [Int64] = [.min, .max, 0, .min, .min, .max, .max, -1, 1, .min + 1, .max - 1, 0, 0]
        let v = Vector(type: .bigint, data: .int64(extremes + extremes.reversed() + Array(repeating: Int64.max, count: 300)))
        for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: .bigint) {
            let (out, _) = try F.roundTrip(v, e)
            if let d = F.difference(v, out) { XCTFail("\(e): \(d)") }
        }
        let m = Int128.max, n = Int128.min
        let wide: [Int128] = [n, m, 0, n, m, -1, 1, n + 1, m - 1, Int128(Int64.min) - 1, Int128(Int64.max) + 1]
        let w = Vector(type: .decimal(precision: 38, scale: 0), data: .int128(wide + wide + (0..<200).map { Int128($0) << 100 }))
        for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: w.type) {
            let (out, _) = try F.roundTrip(w, e)
            if let d = F.difference(w, out) { XCTFail("\(e): \(d)") }
        }
    }

    func testBytedictOverflowAndText32KLimits() throws {
        // 300 distinct values: 255 keep codes, the rest go through the escape.
        var rng = EncRNG(7)
        let ints = (0..<20_000).map { _ in Int64(rng.next() % 300) * 1_000_003 }
        let v = Vector(type: .bigint, data: .int64(ints))
        let (out, size) = try F.roundTrip(v, .bytedict)
        XCTAssertNil(F.difference(v, out))
        XCTAssertLessThan(size, 20_000 * 3)
        let strs = Vector.strings((0..<5000).map { "value-\($0 % 400)" }, type: .varchar(20))
        let (so, _) = try F.roundTrip(strs, .bytedict)
        XCTAssertNil(F.difference(strs, so))
        // Many long distinct words: TEXT32K's dictionary stops at 32 KiB.
        let words = (0..<2000).map { "word\($0)" + String(repeating: "x", count: 40) }
        var textValues: [String?] = []
        for i in 0..<6000 {
            let a: String = words[i % 2000], b: String = words[(i * 7) % 2000]
            textValues.append(a + " " + b)
        }
        let texts = Vector.strings(textValues, type: .varchar(200))
        for e in [ColumnEncoding.text255, .text32k] {
            let (to, _) = try F.roundTrip(texts, e)
            XCTAssertNil(F.difference(texts, to), "\(e)")
        }
    }

    /// One-million-row blocks: integers with every integer encoding, strings and doubles with a few.
    func testLargeBlocks() throws {
        let n = 1_000_000
        var rng = EncRNG(99)
        var sorted = [Int64](repeating: 0, count: n)
        var x: Int64 = 8_000
        for i in 0..<n { x += Int64(rng.next() % 3); sorted[i] = x }
        let v = Vector(type: .bigint, data: .int64(sorted))
        for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: .bigint) {
            let (out, size) = try F.roundTrip(v, e)
            if let d = F.difference(v, out) { XCTFail("\(e): \(d)") }
            XCTAssertLessThanOrEqual(size, n * 10 + 64, "\(e)")  // MOSTLY16: 2 bytes + 8 per exception
        }
        let s = F.vector(.varchar(40), n, .lowCardinality, .some)
        for e in [ColumnEncoding.bytedict, .text255, .zstd] {
            let (out, _) = try F.roundTrip(s, e)
            if let d = F.difference(s, out) { XCTFail("\(e): \(d)") }
        }
        let dbl = Vector(type: .double, data: .double((0..<n).map { Double($0 % 1000) * 0.5 }))
        for e in [ColumnEncoding.raw, .runlength] {
            let (out, _) = try F.roundTrip(dbl, e)
            if let d = F.difference(dbl, out) { XCTFail("\(e): \(d)") }
        }
    }

    func testCompressionIsEffective() throws {
        // Sorted keys: AZ64 and DELTA far below RAW.
        let keys = Vector(type: .bigint, data: .int64((0..<100_000).map { Int64($0) * 3 }))
        let raw = try F.roundTrip(keys, .raw).1
        XCTAssertLessThan(try F.roundTrip(keys, .az64).1 * 20, raw)
        XCTAssertLessThan(try F.roundTrip(keys, .delta).1 * 6, raw)
        XCTAssertLessThan(try F.roundTrip(keys, .runlength).1, raw * 2)
        // SMALLINT RAW is 2 bytes a value.
        let small = Vector(type: .smallint, data: .int64((0..<1000).map { Int64($0) }))
        XCTAssertLessThan(try F.roundTrip(small, .raw).1, 2 * 1000 + 64)
        // A constant column under RUNLENGTH is a few bytes.
        let c = Vector(type: .integer, data: .int64([Int64](repeating: 77, count: 100_000)))
        XCTAssertLessThan(try F.roundTrip(c, .runlength).1, 64)
        // Mostly-small values under MOSTLY8.
        let m = Vector(type: .bigint, data: .int64((0..<10_000).map { $0 % 100 == 0 ? Int64.max : Int64($0 % 100) }))
        XCTAssertLessThan(try F.roundTrip(m, .mostly8).1, 10_000 + 100 * 8 + 64)
        // REAL RAW is 4 bytes a value.
        let r = Vector(type: .real, data: .double((0..<1000).map { Double(Float($0) * 0.1) }))
        XCTAssertLessThan(try F.roundTrip(r, .raw).1, 4 * 1000 + 64)
    }

    /// AZ64's chunk kinds: runs (at the start, middle and end; 15 vs 16 equal values),
    /// patched groups with outliers, delta groups, and int128 groups wider than 64 bits.
    func testAZ64Chunks() throws {
        var rng = EncRNG(17)
        var a = [Int64](repeating: 5, count: 40)
        for _ in 0..<300 { a.append(Int64(rng.next() % 16)) }
        a += [Int64](repeating: -9, count: 15)
        a += [Int64](repeating: 9, count: 16)
        for i in 0..<1000 {
            let outlier: Int64 = i % 2 == 0 ? .max : .min
            a.append(i % 97 == 0 ? outlier : Int64(rng.next() % 8))
        }
        for i in 0..<1000 {
            let jump: Int64 = i % 50 == 0 ? 1_000_000_000 : 0
            a.append(1_000_000 + Int64(i) * 3 + jump)
        }
        a += [Int64](repeating: .min, count: 20)
        let v = Vector(type: .bigint, data: .int64(a))
        let (out, size) = try F.roundTrip(v, .az64)
        if let d = F.difference(v, out) { XCTFail(d) }
        XCTAssertLessThan(size, a.count * 2, "outliers are exceptions, not 64-bit groups")

        var small = [Int64]()
        for i in 0..<12_800 { small.append(i % 100 == 7 ? 2_000_000_000 : Int64(i % 13)) }
        let outliers = Vector(type: .integer, data: .int64(small))
        let (o2, s2) = try F.roundTrip(outliers, .az64)
        XCTAssertNil(F.difference(outliers, o2))
        XCTAssertLessThan(s2, 12_800 * 3 / 4)

        var big = [Int128]()
        for i in 0..<500 {
            let x = Int128(i)
            switch i % 3 {
            case 0: big.append(Int128.max - x)
            case 1: big.append(Int128.min + x)
            default: big.append(x << 70)
            }
        }
        let w = Vector(type: .decimal(precision: 38, scale: 2), data: .int128(big + [Int128](repeating: 7, count: 100)))
        let (o3, _) = try F.roundTrip(w, .az64)
        XCTAssertNil(F.difference(w, o3))
    }

    // MARK: corrupt input

    func assertCorrupt(_ bytes: [UInt8], _ type: DataType, _ e: ColumnEncoding, _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try BlockEncoder.decode($0, type: type, encoding: e) },
                             what, file: file, line: line) { err in
            XCTAssertEqual((err as? SQLError)?.code, .ioError, "\(what): \(err)", file: file, line: line)
        }
    }

    func testTruncatedAndCorruptBlocksThrow() throws {
        for t in F.types {
            for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: t) {
                let v = F.vector(t, 300, .boundary, .some)
                let bytes = try BlockEncoder.encode(v, start: 0, count: v.count, encoding: e)
                for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 40)) {
                    assertCorrupt(Array(bytes[..<cut]), t, e, "\(e) \(t) cut at \(cut)")
                }
                assertCorrupt(bytes + [0], t, e, "\(e) \(t) trailing byte")
                var rng = EncRNG(UInt64(bytes.count))
                for _ in 0..<20 {
                    var b = bytes
                    let k = Int(rng.next() % UInt64(b.count))
                    b[k] ^= UInt8(1 << (rng.next() % 8))
                    assertCorrupt(b, t, e, "\(e) \(t) flipped byte \(k)")
                }
            }
        }
        let good = try BlockEncoder.encode(Vector.ints([1, 2, 3]), start: 0, count: 3, encoding: .az64)
        assertCorrupt(good, .bigint, .delta, "wrong encoding")
        assertCorrupt(good, .varchar(3), .az64, "wrong type")
        assertCorrupt([], .bigint, .az64, "empty")
    }

    /// Mutated payloads with a valid checksum: decoding throws or returns rows, never traps.
    func testStructuralCorruptionNeverTraps() throws {
        for t in F.types {
            for e in ColumnEncoding.allCases where BlockEncoder.isAllowed(e, for: t) {
                for nulls in [NullPattern.none, .some] {
                    let v = F.vector(t, 200, nulls == .none ? .random : .boundary, nulls)
                    let bytes = try BlockEncoder.encode(v, start: 0, count: v.count, encoding: e)
                    var rng = EncRNG(UInt64(bytes.count) &* 31)
                    for round in 0..<120 {
                        var b = bytes
                        let flips = 1 + Int(rng.next() % 3)
                        for _ in 0..<flips {
                            let k = BlockEncoder.headerSize + Int(rng.next() % UInt64(b.count - BlockEncoder.headerSize))
                            b[k] = round % 2 == 0 ? b[k] ^ UInt8(1 << (rng.next() % 8)) : UInt8(truncatingIfNeeded: rng.next())
                        }
                        if round % 5 == 0 { b.removeLast(Int(rng.next() % 4)) }
                        Self.reseal(&b)
                        do {
                            let out = try b.withUnsafeBytes { try BlockEncoder.decode($0, type: t, encoding: e) }
                            XCTAssertEqual(out.count, 200, "\(e) \(t)")
                        } catch let err as SQLError {
                            XCTAssertEqual(err.code, .ioError, "\(e) \(t): \(err)")
                        }
                        _ = try? b.withUnsafeBytes {
                            try EncodedPredicate.matches($0, type: t, encoding: e, op: .eq, constant: v.value(at: 0))
                        }
                    }
                }
            }
        }
    }

    /// Fix the body length and checksum of a (mutated) block.
    static func reseal(_ b: inout [UInt8]) {
        let body = UInt32(b.count - BlockEncoder.headerSize)
        for k in 0..<4 { b[12 + k] = UInt8(truncatingIfNeeded: body >> (8 * UInt32(k))) }
        let sum = b.withUnsafeBytes {
            blockChecksum(UnsafeRawBufferPointer(rebasing: $0[4..<16]), UnsafeRawBufferPointer(rebasing: $0[BlockEncoder.headerSize...]))
        }
        for k in 0..<4 { b[16 + k] = UInt8(truncatingIfNeeded: sum >> (8 * UInt32(k))) }
    }

    func testVarintAndBitPackingEdges() throws {
        var w = EncodingWriter()
        let values: [UInt64] = [0, 1, 127, 128, 16383, 16384, UInt64.max, UInt64.max - 1]
        for x in values { w.varint(x) }
        let wide: [UInt128] = [0, UInt128.max, UInt128(UInt64.max) + 1]
        for x in wide { w.varint(x) }
        try w.bytes.withUnsafeBytes { buf in
            var r = EncodingReader(buf)
            for x in values { XCTAssertEqual(try r.varint(UInt64.self), x) }
            for x in wide { XCTAssertEqual(try r.varint(UInt128.self), x) }
            try r.expectEnd("test")
        }
        // An 11-byte varint or one overflowing 64 bits is rejected.
        for bad: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
                             [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], [0x80]] {
            let threw = bad.withUnsafeBytes { (buf: UnsafeRawBufferPointer) -> Bool in
                var r = EncodingReader(buf)
                do { _ = try r.varint(UInt64.self); return false } catch { return true }
            }
            XCTAssertTrue(threw, "\(bad)")
        }
        // Every width (the unpacking has one loop per width up to 56, eight values at a
        // time, and the rest one by one), counts around multiples of eight; the values
        // include each width's extremes.
        for width in 0...64 {
            for count in [0, 1, 7, 8, 9, 63, 64, 65, 300] {
                var rng = EncRNG(UInt64(width * 1000 + count) + 5)
                let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) - 1
                var src = (0..<count).map { _ in rng.next() & mask }
                if count >= 9 { src[0] = mask; src[1] = 0; src[7] = mask; src[8] = mask; src[count - 1] = mask }
                var pw = EncodingWriter()
                BitPack.pack(into: &pw, count: src.count, width: width) { src[$0] }
                XCTAssertEqual(pw.count, BitPack.byteCount(count, width))
                pw.extend(8) { _ in }
                var dst = [UInt64](repeating: 9, count: count + 1)
                pw.bytes.withUnsafeBytes { b in
                    dst.withUnsafeMutableBufferPointer { BitPack.unpack(b.baseAddress!, count: count, width: width, into: $0.baseAddress!) }
                }
                XCTAssertEqual(Array(dst.prefix(count)), src, "width \(width), \(count) values")
                XCTAssertEqual(dst[count], 9, "nothing written past the values (width \(width), \(count) values)")
            }
        }
    }
}

/// AZ64's packing plan counts the top bit widths in registers and builds the full
/// histogram only when the search goes deeper: it must choose exactly what the plain
/// histogram search chooses, for every shape of group.
final class AZ64PlanTests: XCTestCase {
    /// The search over a full histogram of offset widths (the reference).
    func referencePlan(_ x: [Int64]) -> AZ64.Plan<Int64> {
        let k = x.count
        let lo = x.min() ?? 0, hi = x.max() ?? 0
        let full = bitsNeeded(UInt64(truncatingIfNeeded: hi &- lo))
        var best = AZ64.Plan(base: lo, width: full, exceptions: 0, bytes: BitPack.byteCount(k, full))
        if full <= 2 || k < 16 { return best }
        for highEnd in [false, true] {
            var hist = [Int](repeating: 0, count: full + 1)
            for v in x {
                hist[bitsNeeded(UInt64(truncatingIfNeeded: highEnd ? hi &- v : v &- lo))] += 1
            }
            var b = full - 1, exc = 0, excBytes = 0
            while b >= 0 {
                exc += hist[b + 1]
                excBytes += hist[b + 1] * (1 + (b + 1 + 7) / 7)
                if exc * 4 > k { break }
                let bytes = BitPack.byteCount(k, b) + varintSize(UInt64(exc)) + excBytes
                if bytes < best.bytes {
                    let base = highEnd ? hi &- Int64(truncatingIfNeeded: (UInt64(1) << b) &- 1) : lo
                    best = AZ64.Plan(base: base, width: b, exceptions: exc, bytes: bytes)
                }
                b -= 1
            }
        }
        return best
    }

    func testPlanMatchesTheHistogramSearch() {
        var rng = SystemRandomNumberGenerator()
        var hist = [Int](repeating: 0, count: 130)
        var shapes = 0
        for trial in 0..<3000 {
            let k = [16, 17, 100, 128][trial % 4]
            var x = (0..<k).map { _ in Int64.random(in: 0..<(1 << Int64(trial % 40 + 1)), using: &rng) }
            // Outliers at either end, in varying numbers, so the search goes deep.
            let outliers = trial % 7 == 0 ? k / 5 : trial % 3
            for o in 0..<outliers {
                let big = Int64.random(in: (1 << 40)..<(1 << 50), using: &rng)
                x[(o * 37 + trial) % k] = trial % 2 == 0 ? big : -big
            }
            if trial % 11 == 0 { x = x.map { $0 % 8 } }
            let got = x.withUnsafeMutableBufferPointer { b in
                hist.withUnsafeMutableBufferPointer { h in AZ64.plan(b.baseAddress!, k, h.baseAddress!) }
            }
            let want = referencePlan(x)
            XCTAssertEqual([got.base, Int64(got.width), Int64(got.exceptions), Int64(got.bytes)],
                           [want.base, Int64(want.width), Int64(want.exceptions), Int64(want.bytes)], "trial \(trial)")
            if got.exceptions > 0 { shapes += 1 }
        }
        XCTAssertGreaterThan(shapes, 100)   // the exception paths were exercised
    }
}
