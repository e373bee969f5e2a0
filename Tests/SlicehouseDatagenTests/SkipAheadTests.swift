// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseDatagen
import XCTest

/// Any range of rows generated on its own equals the same rows of a full run.
final class SkipAheadTests: XCTestCase {
    func testJumpEqualsStepping() {
        var stepped = RowRandom(seed: 19_620_718, seedsPerRow: 1)
        for steps in 0..<2000 {
            XCTAssertEqual(RowRandom.skip(seed: 19_620_718, steps: Int64(steps)), stepped.seed)
            _ = stepped.nextRand()
        }
    }

    func testRowBudgetAndAdvanceRows() {
        // Rows use 0...3 of a 3-draw budget; jumping to row 57 must land where stepping does.
        var walked = RowRandom(seed: 884_434_366, seedsPerRow: 3)
        var drawsAtRow57: [Int32] = []
        for row in 0..<60 {
            for _ in 0..<(row % 4 == 3 ? 3 : row % 4) {
                let value = walked.nextInt(100, 999)
                if row == 57 { drawsAtRow57.append(value) }
            }
            walked.rowFinished()
        }
        var jumped = RowRandom(seed: 884_434_366, seedsPerRow: 3)
        _ = jumped.nextInt(100, 999) // a partly used row is finished first
        jumped.advanceRows(56)
        XCTAssertEqual((0..<drawsAtRow57.count).map { _ in jumped.nextInt(100, 999) }, drawsAtRow57)
    }

    func testBoundedIntMatchesDoubleScaling() {
        var random = RowRandom(seed: 1, seedsPerRow: 1)
        for _ in 0..<1000 {
            let before = random.seed
            let value = random.nextInt(-99_999, 999_999)
            let next = before * 16807 % 2_147_483_647
            XCTAssertEqual(value, -99_999 + Int32(Double(next) / 2_147_483_647.0 * 1_099_999.0))
        }
    }

    func testUnitRangesEqualSlicesOfTheFullTable() throws {
        let generator = TPCHGenerator(scaleFactor: 0.01)
        for table in TPCHTable.allCases {
            let full = try generator.generate(table)
            let units = try generator.unitCount(of: table)
            let cuts = [0, 1, units / 3, units / 2 + 1, units - 1, units].map { max(0, min($0, units)) }
            var pieces: [UInt8] = []
            for (lower, upper) in zip(cuts, cuts.dropFirst()) where lower < upper {
                pieces += try generator.generate(table, units: lower..<upper)
            }
            XCTAssertEqual(pieces.count, full.count, "\(table)")
            XCTAssertTrue(pieces == full, "\(table): ranges generated alone differ from the full table")
        }
    }

    func testChunkSizeDoesNotChangeOutput() throws {
        var small = TPCHGenerator(scaleFactor: 0.01)
        small.chunkBytes = 10_000
        small.threadCount = 3
        var single = TPCHGenerator(scaleFactor: 0.01)
        single.threadCount = 1
        for table in [TPCHTable.supplier, .partsupp, .orders, .lineitem] {
            XCTAssertTrue(try small.generate(table) == single.generate(table), "\(table)")
        }
    }

    func testInvalidRangeIsAnError() {
        let generator = TPCHGenerator(scaleFactor: 0.01)
        XCTAssertThrowsError(try generator.generate(.orders, units: 14_000..<15_001))
        XCTAssertThrowsError(try generator.generate(.orders, units: -1..<3))
    }
}

/// `RowRandom.nextInt`'s integer path equals dbgen's double formula.
final class BoundedDrawTests: XCTestCase {
    func testIntegerPathEqualsDoubleFormula() {
        let ranges: [(Int32, Int32)] = [(0, 0), (1, 7), (0, 10), (1, 50), (-99_999, 999_999), (0, 89), (1, 200_000),
                                        (1, 2_097_151), (1, 2_097_152), (0, 314_572_736), (0, Int32.max)]
        for (lower, upper) in ranges {
            var fast = RowRandom(seed: 933_588_178, seedsPerRow: 1)
            var exact = fast
            for _ in 0..<4_000 {
                XCTAssertEqual(fast.nextInt(lower, upper), exact.nextIntByDouble(lower, upper), "[\(lower), \(upper)]")
            }
        }
        // The arithmetic itself, for drawn values next to the modulus and its
        // fractions, where rounding would matter most.
        let modulus: Int64 = 2_147_483_647
        for range in [Int64(2), 3, 7, 90, 1_099_999, 2_097_151] {
            var values: [Int64] = [1, 2, modulus - 1, modulus - 2]
            for k in 1..<range where k < 200 {
                let boundary = k * modulus / range
                values += [boundary - 1, boundary, boundary + 1].filter { $0 > 0 && $0 < modulus }
            }
            for value in values {
                XCTAssertEqual(value * range / modulus, Int64((Double(value) / 2_147_483_647.0) * Double(range)),
                               "value \(value), range \(range)")
            }
        }
    }
}
