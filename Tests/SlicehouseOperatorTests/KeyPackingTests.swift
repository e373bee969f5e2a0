// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution

/// `KeyPacking`: several 64-bit keys side by side in one code, at the edges of its ranges.
final class KeyPackingTests: XCTestCase {
    private func vector(_ values: [Int64]) -> Vector { Vector(type: .bigint, data: .int64(values)) }

    func testWidthsAddUpToAtMost64Bits() throws {
        // 0...1 needs 1 bit, 0...255 8 bits, a single value 0 bits.
        let p = try XCTUnwrap(KeyPacking(lows: [0, 0, 7], highs: [1, 255, 7]))
        XCTAssertEqual(p.shifts, [0, 1, 9])
        // Exactly 64 bits: 32 + 32.
        XCTAssertNotNil(KeyPacking(lows: [0, -5], highs: [Int64(UInt32.max), Int64(UInt32.max) - 5]))
        // 65 bits: 33 + 32.
        XCTAssertNil(KeyPacking(lows: [0, 0], highs: [Int64(UInt32.max) + 1, Int64(UInt32.max)]))
        // A full Int64 range is 64 bits alone; with any other non-constant column it is too wide.
        XCTAssertNotNil(KeyPacking(lows: [Int64.min, 3], highs: [Int64.max, 3]))
        XCTAssertNil(KeyPacking(lows: [Int64.min, 3], highs: [Int64.max, 4]))
        // Empty ranges and mismatched lists.
        XCTAssertNil(KeyPacking(lows: [5], highs: [4]))
        XCTAssertNil(KeyPacking(lows: [], highs: []))
        XCTAssertNil(KeyPacking(lows: [1, 2], highs: [3]))
    }

    func testCoveringSkipsInvalidRowsAndNeedsTwoColumns() throws {
        let a = vector([5, -3, 100, 7]), b = vector([Int64.min, 10, 20, 30])
        // Row 0 (b = Int64.min) is not valid: the ranges are -3...100 and 10...30.
        let p = try XCTUnwrap(KeyPacking.covering([a, b], count: 4, valid: [false, true, true, true]))
        XCTAssertEqual(p.lows, [-3, 10])
        XCTAssertEqual(p.spans, [103, 20])
        // With row 0, b's range is too wide next to a's.
        XCTAssertNil(KeyPacking.covering([a, b], count: 4, valid: [true, true, true, true]))
        XCTAssertNil(KeyPacking.covering([a], count: 4, valid: [true, true, true, true]))
        XCTAssertNil(KeyPacking.covering([a, b], count: 4, valid: [false, false, false, false]))
        let s = Vector(type: .varchar(4), data: .string(StringArray()))
        XCTAssertNil(KeyPacking.covering([a, s], count: 0, valid: []))
    }

    /// Codes are one-to-one inside the ranges, and every value outside them is flagged.
    func testCodesAreDistinctInRangeAndOutOfRangeIsFlagged() throws {
        let p = try XCTUnwrap(KeyPacking(lows: [-2, 1_000], highs: [5, 1_003]))
        var a: [Int64] = [], b: [Int64] = []
        for x in -2...5 { for y in 1_000...1_003 { a.append(Int64(x)); b.append(Int64(y)) } }
        var codes: [UInt64] = [], ok: [Bool] = []
        let rows = (0..<Int32(a.count)).map { $0 }
        XCTAssertTrue(p.pack([vector(a), vector(b)], rows: rows, codes: &codes, inRange: &ok))
        XCTAssertEqual(Set(codes).count, a.count)
        XCTAssertTrue(ok.allSatisfy { $0 })
        // Just outside, far outside (wrapping subtractions), and through a row list.
        let outA: [Int64] = [-3, 6, Int64.min, Int64.max, 0, 0, 0, 0]
        let outB: [Int64] = [1_000, 1_000, 1_001, 1_001, 999, 1_004, Int64.min, Int64.max]
        XCTAssertTrue(p.pack([vector(outA), vector(outB)], rows: [7, 0, 3], codes: &codes, inRange: &ok))
        XCTAssertEqual(ok, [false, false, false])
        XCTAssertTrue(p.pack([vector(outA), vector(outB)], rows: (0..<8).map { $0 }, codes: &codes, inRange: &ok))
        XCTAssertEqual(ok, [Bool](repeating: false, count: 8))
        // A constant column repeats its one value.
        var constant = vector([3])
        constant.isConstant = true
        XCTAssertTrue(p.pack([constant, vector([1_000, 1_003])], rows: [0, 1], codes: &codes, inRange: &ok))
        XCTAssertEqual(ok, [true, true])
        XCTAssertEqual(codes, [5, 5 | 3 << 3])
        // Empty input; a non-integer column is refused.
        XCTAssertTrue(p.pack([vector([]), vector([])], rows: [], codes: &codes, inRange: &ok))
        XCTAssertEqual(codes, [])
        XCTAssertFalse(p.pack([vector([1]), Vector(type: .double, data: .double([1]))], rows: [0], codes: &codes, inRange: &ok))
    }
}
