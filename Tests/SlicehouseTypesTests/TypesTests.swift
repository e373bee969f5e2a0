// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseTypes

final class DateTimeTests: XCTestCase {
    func testCivilRoundTripAcrossCenturiesAndLeapYears() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = DateTime.civil(days)
            XCTAssertEqual(DateTime.days(year: y, month: m, day: d), days)
        }
        XCTAssertEqual(DateTime.days(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(DateTime.days(year: 2000, month: 3, day: 1) - DateTime.days(year: 2000, month: 2, day: 28), 2)
        XCTAssertEqual(DateTime.days(year: 1900, month: 3, day: 1) - DateTime.days(year: 1900, month: 2, day: 28), 1)
    }

    func testParseAndFormatDates() {
        XCTAssertEqual(DateTime.parseDate("1998-12-01").map(DateTime.formatDate), "1998-12-01")
        XCTAssertEqual(DateTime.parseDate(" 1996-02-29 ").map(DateTime.formatDate), "1996-02-29")
        XCTAssertEqual(DateTime.parseDate("19960229").map(DateTime.formatDate), "1996-02-29")
        XCTAssertEqual(DateTime.parseDate("1996/02/29").map(DateTime.formatDate), "1996-02-29")
        XCTAssertNil(DateTime.parseDate("1997-02-29"))
        XCTAssertNil(DateTime.parseDate("1997-13-01"))
        XCTAssertNil(DateTime.parseDate("1997-1x-01"))
        XCTAssertNil(DateTime.parseDate(""))
    }

    func testParseAndFormatTimestamps() {
        XCTAssertEqual(DateTime.parseTimestamp("2020-01-02 03:04:05").map(DateTime.formatTimestamp), "2020-01-02 03:04:05")
        XCTAssertEqual(DateTime.parseTimestamp("2020-01-02T03:04:05.25").map(DateTime.formatTimestamp), "2020-01-02 03:04:05.25")
        XCTAssertEqual(DateTime.parseTimestamp("2020-01-02").map(DateTime.formatTimestamp), "2020-01-02 00:00:00")
        XCTAssertEqual(DateTime.formatTimestamp(-1), "1969-12-31 23:59:59.999999")
        XCTAssertNil(DateTime.parseTimestamp("2020-01-02 24:00:00"))
        XCTAssertNil(DateTime.parseTimestamp("2020-01-02 10:00:00x"))
    }
}

final class DecimalTests: XCTestCase {
    func testParse() {
        XCTAssertEqual(DecimalMath.parse("123.45", scale: 2), .ok(12345))
        XCTAssertEqual(DecimalMath.parse("-0.5", scale: 2), .ok(-50))
        XCTAssertEqual(DecimalMath.parse(".5", scale: 1), .ok(5))
        XCTAssertEqual(DecimalMath.parse("1.005", scale: 2), .ok(101))
        XCTAssertEqual(DecimalMath.parse("-1.005", scale: 2), .ok(-101))
        XCTAssertEqual(DecimalMath.parse("1e3", scale: 0), .ok(1000))
        XCTAssertEqual(DecimalMath.parse("2.5E-1", scale: 2), .ok(25))
        XCTAssertEqual(DecimalMath.parse("12", scale: 2, precision: 3), .overflow)
        XCTAssertEqual(DecimalMath.parse("abc", scale: 2), .invalid)
        XCTAssertEqual(DecimalMath.parse("", scale: 2), .invalid)
        XCTAssertEqual(DecimalMath.parse("1.2.3", scale: 2), .invalid)
        XCTAssertEqual(DecimalMath.parse("99999999999999999999999999999999999999", scale: 0), .ok(DecimalMath.pow10[38] - 1))
        XCTAssertEqual(DecimalMath.parse("999999999999999999999999999999999999999", scale: 0), .overflow)
    }

    func testFormatAndRescale() {
        XCTAssertEqual(DecimalFormat.format(12345, scale: 2), "123.45")
        XCTAssertEqual(DecimalFormat.format(-5, scale: 3), "-0.005")
        XCTAssertEqual(DecimalFormat.format(0, scale: 2), "0.00")
        XCTAssertEqual(DecimalFormat.format(Int128.min, scale: 0), String(Int128.min))
        XCTAssertEqual(DecimalMath.rescale(12345, from: 2, to: 1), 1235)
        XCTAssertEqual(DecimalMath.rescale(-12345, from: 2, to: 1), -1235)
        XCTAssertEqual(DecimalMath.rescale(12344, from: 2, to: 1), 1234)
        XCTAssertEqual(DecimalMath.rescale(5, from: 0, to: 3), 5000)
    }
}

final class VectorTests: XCTestCase {
    func testAppendGatherAndNulls() {
        var v = Vector.ints([1, nil, 3])
        XCTAssertEqual(v.count, 3)
        XCTAssertTrue(v.isNull(1))
        v.append(Vector.ints([4, 5]))
        XCTAssertEqual((0..<5).map { v.value(at: $0) }, [.int(1), .null, .int(3), .int(4), .int(5)])
        let g = v.gather([4, 1, 0])
        XCTAssertEqual((0..<3).map { g.value(at: $0) }, [.int(5), .null, .int(1)])
        let noNulls = v.gather([0, 2])
        XCTAssertNil(noNulls.validity, "a gather without NULLs drops the bitmap")
    }

    func testStringsAndConstants() {
        var s = Vector.strings(["a", "héllo", nil, ""])
        s.append(.string("z"))
        XCTAssertEqual(s.value(at: 1), .string("héllo"))
        XCTAssertEqual(s.value(at: 2), .null)
        XCTAssertEqual(s.value(at: 3), .string(""))
        let c = Vector.constant(.string("k"), type: .text)
        XCTAssertTrue(c.isConstant)
        XCTAssertEqual(c.value(at: 1000), .string("k"))
        let f = c.flattened(count: 3)
        XCTAssertEqual(f.count, 3)
        XCTAssertEqual(f.value(at: 2), .string("k"))
        var sa = StringArray(["b", "ab", "abc"])
        sa.append("b")
        XCTAssertEqual(StringArray.compare(sa, 0, sa, 1), 1)
        XCTAssertEqual(StringArray.compare(sa, 1, sa, 2), -1)
        XCTAssertTrue(StringArray.equal(sa, 0, sa, 3))
    }

    func testChunkSelection() {
        let chunk = Chunk(columns: [Vector.ints([10, 20, 30, 40])], count: 4, selection: [1, 3])
        XCTAssertEqual(chunk.count, 2)
        XCTAssertEqual(chunk.value(row: 1, column: 0), .int(40))
        let c = chunk.compacted()
        XCTAssertNil(c.selection)
        XCTAssertEqual(c.columns[0].count, 2)
    }

    func testValidityBoundaries() {
        for n in [0, 1, 63, 64, 65, 127, 128, 129] {
            var v = Validity(allValid: n)
            XCTAssertEqual(v.nullCount(n), 0)
            if n > 0 { v.setInvalid(n - 1); XCTAssertEqual(v.nullCount(n), 1) }
            XCTAssertEqual(Validity(allNull: n).nullCount(n), n)
        }
    }

    func testHashingIsDeterministicAndEqualForEqualValues() {
        let a = Vector.ints([1, 2, nil]), b = Vector.ints([1, 2, nil], type: .integer)
        var ha: [UInt64] = [], hb: [UInt64] = []
        a.hash(rows: nil, count: 3, into: &ha, combine: false)
        b.hash(rows: nil, count: 3, into: &hb, combine: false)
        XCTAssertEqual(ha, hb)
        XCTAssertNotEqual(ha[0], ha[1])
        XCTAssertEqual(Hashing.hash(0.0), Hashing.hash(-0.0))
        let s = Vector.strings(["abcdefghij", "abcdefghij"])
        var hs: [UInt64] = []
        s.hash(rows: nil, count: 2, into: &hs, combine: false)
        XCTAssertEqual(hs[0], hs[1])
        XCTAssertEqual(Hashing.hash(Int64(42)), Hashing.hash(UInt64(42)), "one hash for a value, whatever its width")
    }

    /// The keys of one slice (their hash modulo 4 is the slice's number, as the exchange
    /// and DISTKEY place them) spread over a table's slots: a slot from the hash's low bits
    /// used a quarter of them, and probe runs were four times as long.
    func testTheKeysOfOneSliceUseEveryPartOfATable() {
        let mask = 1023
        for slice in 0..<4 {
            var used = Set<Int>(), residues = Set<Int>()
            var key: Int64 = 0, kept = 0
            while kept < 1000 {
                let h = Hashing.hash(key)
                key += 1
                guard h & 3 == UInt64(slice) else { continue }
                kept += 1
                let s = Hashing.slot(h, mask)
                XCTAssertTrue((0...mask).contains(s))
                used.insert(s)
                residues.insert(s & 3)
            }
            // 1,000 keys in 1,024 slots fill about 63% of them at random.
            XCTAssertGreaterThan(used.count, 560, "slice \(slice)")
            XCTAssertEqual(residues.count, 4, "slice \(slice)")
        }
        // The low 20 bits and the top 44 play no part.
        XCTAssertEqual(Hashing.slot(0xFFFF_F, 1023), 0)
        XCTAssertEqual(Hashing.slot(0x5 << 20, 1023), 5)
        XCTAssertEqual(Hashing.slot(UInt64.max, 1023), 1023)
    }

    /// Hashing without `combine` into an array of another length (a buffer kept from an
    /// earlier batch) leaves exactly one hash per row, as into a new array: trimmed when
    /// it was longer, extended when shorter, on the flat-Int64 path and the general one.
    func testHashingIntoAnArrayOfAnotherLength() {
        let ints = Vector.ints([5, 6, 7, 8, 9], type: .bigint)
        let strings = Vector.strings(["a", nil, "ccc"])
        for v in [ints, strings] {
            let n = v.count
            var fresh: [UInt64] = []
            v.hash(rows: nil, count: n, into: &fresh, combine: false)
            var longer = [UInt64](repeating: 3, count: n + 4)
            v.hash(rows: nil, count: n, into: &longer, combine: false)
            XCTAssertEqual(longer, fresh)
            var shorter: [UInt64] = [3]
            v.hash(rows: nil, count: n, into: &shorter, combine: false)
            XCTAssertEqual(shorter, fresh)
            let kept = shorter
            v.hash(rows: [1], count: 1, into: &shorter, combine: false)
            XCTAssertEqual(shorter, [fresh[1]])
            XCTAssertEqual(kept, fresh, "an earlier copy keeps its hashes")
        }
    }

    /// The flat-Int64 fast path (no NULLs) hashes as the general one does: through a row
    /// list, combined with an earlier key, and against the per-value hash.
    func testInt64FastPathAgreesWithGeneralHashing() {
        let values: [Int64] = [0, 1, -1, .max, .min, 42, 7, 1 << 40]
        let flat = Vector.ints(values.map { Optional($0) }, type: .bigint)
        XCTAssertNil(flat.validity)
        var h: [UInt64] = []
        flat.hash(rows: nil, count: values.count, into: &h, combine: false)
        XCTAssertEqual(h, values.map { Hashing.hash($0) })
        let rows: [Int32] = [7, 0, 3, 3]
        flat.hash(rows: rows, count: rows.count, into: &h, combine: false)
        XCTAssertEqual(h, rows.map { Hashing.hash(values[Int($0)]) })
        var first = [UInt64](repeating: 99, count: rows.count)
        flat.hash(rows: rows, count: rows.count, into: &first, combine: true)
        XCTAssertEqual(first, rows.map { Hashing.combine(99, Hashing.hash(values[Int($0)])) })
        // With a NULL the general path runs; the valid rows still hash alike.
        let withNull = Vector.ints(values.map { Optional($0) } + [nil], type: .bigint)
        var hn: [UInt64] = []
        withNull.hash(rows: nil, count: values.count + 1, into: &hn, combine: false)
        XCTAssertEqual(Array(hn.prefix(values.count)), values.map { Hashing.hash($0) })
        XCTAssertEqual(hn.last, Hashing.nullHash)
    }

    /// A row's slice is `hash % n` whether or not `n` is a power of two (placement by
    /// DISTKEY and exchanges must agree on it).
    func testBucketsAreTheRemainder() {
        let hashes: [UInt64] = (0..<1000).map { Hashing.hash(UInt64($0)) } + [0, .max, 1 << 63]
        for n in 1...9 {
            var out = [Int32](repeating: -1, count: hashes.count)
            hashes.withUnsafeBufferPointer { h in out.withUnsafeMutableBufferPointer { Hashing.buckets(h, of: n, into: $0) } }
            XCTAssertEqual(out, hashes.map { Int32($0 % UInt64(n)) }, "n = \(n)")
        }
    }
}

final class DataTypeTests: XCTestCase {
    func testAliasesAndLimits() throws {
        XCTAssertEqual(try DataType.named("int4", []), .integer)
        XCTAssertEqual(try DataType.named("FLOAT8", []), .double)
        XCTAssertEqual(try DataType.named("float", [10]), .real)
        XCTAssertEqual(try DataType.named("numeric", []), .decimal(precision: 18, scale: 0))
        XCTAssertEqual(try DataType.named("text", []), .varchar(256))
        XCTAssertEqual(try DataType.named("bpchar", []), .char(1))
        XCTAssertEqual(try DataType.named("character varying", [10]), .varchar(10))
        XCTAssertThrowsError(try DataType.named("decimal", [39, 0]))
        XCTAssertThrowsError(try DataType.named("varchar", [65536]))
        XCTAssertThrowsError(try DataType.named("char", [4097]))
        XCTAssertThrowsError(try DataType.named("serial", []))
        XCTAssertEqual(DataType.decimal(precision: 19, scale: 2).physical, .int128)
        XCTAssertEqual(DataType.decimal(precision: 18, scale: 2).physical, .int64)
    }

    func testFormatting() {
        XCTAssertEqual(Value.string("ab").formatted(as: .char(4)), "ab  ")
        XCTAssertEqual(Value.int(1234).formatted(as: .decimal(precision: 10, scale: 2)), "12.34")
        XCTAssertEqual(Value.double(1.0).formatted(as: .double), "1")
        XCTAssertEqual(Value.double(.infinity).formatted(as: .double), "Infinity")
        XCTAssertEqual(Value.bool(true).formatted(as: .boolean), "t")
        XCTAssertNil(Value.null.formatted(as: .integer))
    }
}

final class SliceTests: XCTestCase {
    func testSliceMatchesGather() {
        let ints = Vector.ints([1, nil, 3, 4, nil, 6])
        let strs = Vector.strings(["a", "bb", nil, "", "héllo", "z"])
        for (start, len) in [(0, 6), (0, 0), (1, 3), (2, 4), (5, 1), (3, 0)] {
            let idx = (start..<(start + len)).map { Int32($0) }
            for v in [ints, strs] {
                let a = v.slice(start, len), b = v.gather(idx)
                XCTAssertEqual(a.count, len)
                XCTAssertEqual((0..<len).map { a.value(at: $0) }, (0..<len).map { b.value(at: $0) })
            }
        }
    }
}

final class AppendTests: XCTestCase {
    func testAppendValuesOfEveryKindAndMismatch() {
        var v = Vector(type: .bigint)
        for i in 0..<5000 { v.append(i % 7 == 0 ? .null : .int(Int64(i))) }
        XCTAssertEqual(v.count, 5000)
        XCTAssertEqual(v.value(at: 7), .null)
        XCTAssertEqual(v.value(at: 4999), .int(4999))
        var s = Vector(type: .text)
        s.append(.string("a")); s.append(.int(1)); s.append(.string("c"))
        XCTAssertEqual((0..<3).map { s.value(at: $0) }, [.string("a"), .null, .string("c")])
    }
}

/// `Vector.append(_:rows:)`: values and NULLs of both sides, constants, every physical
/// type, and growth in place (a vector built from many small appends is not copied whole
/// at each one).
final class VectorAppendTests: XCTestCase {
    func ints(_ v: Vector) -> [Int64?] {
        guard case .int64(let a) = v.data else { return [] }
        return a.indices.map { v.validity?.isValid($0) ?? true ? a[$0] : nil }
    }

    func testValuesAndNullsOfBothSides() {
        var v = Vector(type: .bigint, data: .int64([1, 2, 3]))
        var bits = Validity(allValid: 2)
        bits.setInvalid(0)
        v.append(Vector(type: .bigint, data: .int64([0, 5]), validity: bits))
        XCTAssertEqual(ints(v), [1, 2, 3, nil, 5])
        v.append(Vector(type: .bigint, data: .int64([6])))
        XCTAssertEqual(ints(v), [1, 2, 3, nil, 5, 6])
        v.append(Vector(type: .bigint, data: .int64([])))
        XCTAssertEqual(ints(v), [1, 2, 3, nil, 5, 6])
        v.append(Vector.constant(.int(9), type: .bigint), rows: 2)
        XCTAssertEqual(ints(v), [1, 2, 3, nil, 5, 6, 9, 9])
        // 64 rows and more: bits past a word boundary.
        var w = Vector(type: .bigint, data: .int64((0..<70).map(Int64.init)), validity: Validity(allNull: 70))
        w.append(Vector(type: .bigint, data: .int64([7])))
        XCTAssertEqual(ints(w).count, 71)
        XCTAssertEqual(ints(w).compactMap { $0 }, [7])
    }

    func testOtherTypes() {
        var s = Vector(type: .varchar(10), data: .string(StringArray(["a", "bc"])))
        s.append(Vector(type: .varchar(10), data: .string(StringArray(["", "def"]))))
        XCTAssertEqual((0..<s.count).map { s.value(at: $0) }, [.string("a"), .string("bc"), .string(""), .string("def")])
        var d = Vector(type: .double, data: .double([1.5]))
        d.append(Vector(type: .double, data: .double([2.5, -1])))
        XCTAssertEqual((0..<d.count).map { d.value(at: $0) }, [.double(1.5), .double(2.5), .double(-1)])
        var b = Vector(type: .boolean, data: .bool([true]))
        b.append(Vector(type: .boolean, data: .bool([false])))
        XCTAssertEqual((0..<b.count).map { b.value(at: $0) }, [.bool(true), .bool(false)])
        var w = Vector(type: .decimal(precision: 38, scale: 0), data: .int128([Int128.max]))
        w.append(Vector(type: .decimal(precision: 38, scale: 0), data: .int128([-1])))
        guard case .int128(let a) = w.data else { return XCTFail("not int128") }
        XCTAssertEqual(a, [Int128.max, -1])
    }

    func testGrowsInPlace() {
        var held = [Int64]()
        held.reserveCapacity(1_000)
        held.append(0)
        var v = Vector(type: .bigint, data: .int64(held))
        held = []
        func base(_ v: Vector) -> UnsafeRawPointer? {
            guard case .int64(let a) = v.data else { return nil }
            return a.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        let before = base(v)
        for i in 1..<500 { v.append(Vector(type: .bigint, data: .int64([Int64(i)]))) }
        XCTAssertEqual(base(v), before, "the reserved buffer was copied")
        XCTAssertEqual(ints(v), (0..<500).map { Int64($0) })
    }
}

/// The allocation helpers of ArrayAllocation.swift.
final class ArrayAllocationTests: XCTestCase {
    /// `resize(to:padding:)` trims at the end or pads, keeps the storage when the array is
    /// its storage's only owner, and leaves a copy held elsewhere as it was.
    func testResizeKeepsStorageAndCopies() {
        var a: [Int32] = [1, 2, 3, 4, 5]
        a.reserveCapacity(64)
        let storage = a.withUnsafeBufferPointer { $0.baseAddress }
        a.resize(to: 2, padding: 0)
        XCTAssertEqual(a, [1, 2])
        a.resize(to: 5, padding: 9)
        XCTAssertEqual(a, [1, 2, 9, 9, 9])
        XCTAssertEqual(a.withUnsafeBufferPointer { $0.baseAddress }, storage, "resized in place")
        let held = a
        a.resize(to: 1, padding: 0)
        a.resize(to: 0, padding: 0)
        XCTAssertEqual(a, [])
        XCTAssertEqual(held, [1, 2, 9, 9, 9])
        var words = ["x"]
        words.resize(to: 3, padding: "a string long enough to live on the heap")
        XCTAssertEqual(words, ["x", "a string long enough to live on the heap", "a string long enough to live on the heap"])
    }

    func testFilledAndUnset() {
        XCTAssertEqual([Int64](filled: 7, count: 5), [7, 7, 7, 7, 7])
        XCTAssertEqual([Bool](filled: true, count: 3), [true, true, true])
        XCTAssertEqual([UInt64](filled: 1, count: 0), [])
        XCTAssertEqual([Double](filled: 0.5, count: -1), [])
        // Elements with references are copied properly (each one a retained copy).
        let words = [String](filled: "a string long enough to live on the heap", count: 4)
        XCTAssertEqual(Set(words).count, 1)
        XCTAssertEqual(words.count, 4)
        var nested = [[Int]](filled: [1, 2, 3], count: 3)
        nested[1].append(4)
        XCTAssertEqual(nested, [[1, 2, 3], [1, 2, 3, 4], [1, 2, 3]])
        let big = [Int32](filled: -1, count: 100_000)
        XCTAssertEqual(big.count, 100_000)
        XCTAssertTrue(big.allSatisfy { $0 == -1 })
        for n in [0, 1, 2, 63, 64, 65, 2_048] {
            var a = [Int64].unset(count: n, placeholder: 0)
            XCTAssertEqual(a.count, n)
            a.withUnsafeMutableBufferPointer { b in for i in 0..<n { b[i] = Int64(i * 3) } }
            XCTAssertEqual(a, (0..<n).map { Int64($0 * 3) })
            // The array is an ordinary one: it grows, copies on write and compares.
            var copy = a
            copy.append(-1)
            XCTAssertEqual(copy.count, n + 1)
            XCTAssertEqual(a.count, n)
        }
    }

    /// `building` keeps the elements its body says it wrote, as
    /// `Array(unsafeUninitializedCapacity:initializingWith:)` does.
    func testBuildingKeepsTheInitializedPrefix() throws {
        for n in [0, 1, 7, 2_048] {
            // Every element written.
            let all = [Int32].building(capacity: n, placeholder: 0) { b, count in
                for i in 0..<b.count { b[i] = Int32(i) * 2 }
                count = b.count
            }
            XCTAssertEqual(all, (0..<n).map { Int32($0) * 2 })
            // A body that sets no count keeps nothing (the count starts at 0).
            let unsaid = [Int32].building(capacity: n, placeholder: 0) { b, _ in
                for i in 0..<b.count { b[i] = 1 }
            }
            XCTAssertEqual(unsaid, [])
            // Fewer written than asked for: the rest is not kept, and the array grows normally.
            var some = [Int64].building(capacity: n, placeholder: 0) { b, count in
                count = b.count / 2
                for i in 0..<count { b[i] = Int64(i) + 10 }
            }
            XCTAssertEqual(some, (0..<(n / 2)).map { Int64($0) + 10 })
            some.append(-1)
            XCTAssertEqual(some.last, -1)
            XCTAssertEqual(some.count, n / 2 + 1)
            let none = [Bool].building(capacity: n, placeholder: false) { _, count in count = 0 }
            XCTAssertEqual(none, [])
        }
        XCTAssertEqual([UInt8].building(capacity: -3, placeholder: 0) { b, _ in XCTAssertEqual(b.count, 0) }, [])
        // A body that throws: the error comes out, nothing is returned.
        struct Failed: Error {}
        XCTAssertThrowsError(try [Double].building(capacity: 4, placeholder: 0) { b, _ in
            b[0] = 1
            throw Failed()
        })
    }
}
