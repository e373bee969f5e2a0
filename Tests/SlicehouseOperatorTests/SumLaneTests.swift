// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution

/// `WideSumAccumulator`'s SUM in 64-bit lanes: exact sums and NULLs while every group's
/// sum fits 64 bits; the batch whose adds would leave them is taken back and added again
/// in 128 bits, every group widened for good — through the per-row path, the runs and the
/// mask, and on merging partial states (which stay narrow while they fit). The reference
/// is the sum in Int128.
final class SumLaneTests: XCTestCase {
    let type = DataType.decimal(precision: 38, scale: 0)

    func make() -> WideSumAccumulator { WideSumAccumulator(kind: .sum, resultType: type, sumType: type) }

    /// `values` (nil: NULL) as a 64-bit DECIMAL(18,0) column.
    func column(_ values: [Int64?]) -> Vector {
        var v = Vector(type: .decimal(precision: 18, scale: 0), data: .int64(values.map { $0 ?? 0 }))
        if values.contains(nil) {
            var validity = Validity(allValid: values.count)
            for (i, x) in values.enumerated() where x == nil { validity.setInvalid(i) }
            v.validity = validity
        }
        return v
    }

    /// The accumulator's results as optional Int128s.
    func results(_ acc: WideSumAccumulator, groups: Int) throws -> [Int128?] {
        acc.grow(to: groups)
        let v = try acc.results(0..<groups)
        guard case .int128(let sums) = v.data else {
            XCTFail("results are not 128-bit")
            return []
        }
        return (0..<groups).map { g in v.validity.map { $0.isValid(g) } ?? true ? sums[g] : nil }
    }

    /// The reference sums of `values` by `groups`.
    func reference(_ values: [Int64?], _ groups: [Int32], count: Int) -> [Int128?] {
        var out = [Int128?](repeating: nil, count: count)
        for (x, g) in zip(values, groups) {
            guard let x else { continue }
            out[Int(g)] = (out[Int(g)] ?? 0) + Int128(x)
        }
        return out
    }

    /// Rows path: sums within 64 bits stay narrow; a batch taking one group past 2^63 (and
    /// another below -2^63) leaves every sum exact once widened, NULL groups NULL.
    func testRowsWidenOnTheBatchThatOverflows() throws {
        let acc = make()
        let big: Int64 = 900_000_000_000_000_000
        var allValues: [Int64?] = [], allGroups: [Int32] = []
        func feed(_ values: [Int64?], _ groups: [Int32]) throws {
            acc.grow(to: 5)
            try acc.update(groups: groups, rows: (0..<Int32(values.count)).map { $0 }, input: column(values))
            allValues += values
            allGroups += groups
        }
        try feed([big, -big, 5, nil, big, 7], [0, 1, 2, 3, 0, 2])
        XCTAssertTrue(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 5), reference(allValues, allGroups, count: 5))
        // Group 0 reaches 11 × big, group 1 -11 × big: past 64 bits both ways.
        try feed(Array(repeating: big, count: 9) + Array(repeating: -big, count: 10) + [nil, 1],
                 Array(repeating: 0, count: 9) + Array(repeating: 1, count: 10) + [4, 2])
        XCTAssertFalse(acc.narrow)
        try feed([big, 3], [0, 2])
        XCTAssertEqual(try results(acc, groups: 5), reference(allValues, allGroups, count: 5))
        XCTAssertEqual(try results(acc, groups: 5)[3], nil)
    }

    /// A batch that wraps a sum past 2^63 and back within 64 bits still widens (each add
    /// is checked, not only the batch's end): the sums are exact either way.
    func testAWrapAndBackIsStillExact() throws {
        let acc = make()
        acc.grow(to: 1)
        let values: [Int64?] = [.max, 1, -1, -5]
        try acc.update(groups: [0, 0, 0, 0], rows: [0, 1, 2, 3], input: column(values))
        XCTAssertFalse(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 1), [Int128(Int64.max) - 5])
    }

    /// Runs (at most 32 groups) and mask (at most 4) paths: narrow while the sums fit,
    /// widened by the batch that takes one past 2^63 (group 0, 6 or 5 values of 2^55 a
    /// batch: the 43rd or the 52nd), exact throughout.
    func testRunsAndMaskPathsWiden() throws {
        for path in ["runs", "mask"] {
            let acc = make()
            var allValues: [Int64?] = [], allGroups: [Int32] = []
            var widenedAt: Int?
            for batch in 0..<60 {
                // The mask takes only columns without NULLs.
                let values: [Int64?] = (0..<16).map { i in path == "runs" && i == 3 ? nil : 1 << 55 }
                let groups: [Int32] = (0..<16).map { Int32($0 % 3) }
                let rows = (0..<Int32(16)).map { $0 }
                acc.grow(to: 3)
                var handled = false
                if path == "runs" {
                    var runs = GroupRuns()
                    runs.build(groupIds: groups, rows: rows, groupCount: 3)
                    handled = try acc.update(runs: runs, input: column(values))
                } else {
                    var mask = GroupMask()
                    mask.build(groupIds: groups, rows: rows, physicalCount: 16, groupCount: 3)
                    handled = try acc.update(mask: mask, input: column(values))
                }
                XCTAssertTrue(handled, "\(path) \(batch)")
                allValues += values
                allGroups += groups
                if !acc.narrow && widenedAt == nil { widenedAt = batch }
                XCTAssertEqual(try results(acc, groups: 3), reference(allValues, allGroups, count: 3), "\(path) \(batch)")
            }
            XCTAssertEqual(widenedAt, path == "mask" ? 42 : 51, path)
        }
    }

    /// Partial states in 64-bit lanes are 128-bit vectors with NULL for unseen groups;
    /// merging states widens the accumulator that receives them.
    func testPartialStatesAndMerge() throws {
        let acc = make()
        acc.grow(to: 3)
        try acc.update(groups: [0, 0, 2], rows: [0, 1, 2], input: column([.max, nil, -3]))
        XCTAssertTrue(acc.narrow)
        let states = acc.partialStates(0..<3)
        XCTAssertEqual(states.count, 1)
        guard case .int128(let sums) = states[0].data else { return XCTFail("state not 128-bit") }
        XCTAssertEqual(sums[0], Int128(Int64.max))
        XCTAssertEqual(states[0].validity.map { (0..<3).map($0.isValid) }, [true, false, true])
        let final = make()
        final.grow(to: 3)
        try final.merge(groups: [0, 1, 2, 0], rows: [0, 1, 2, 0], states: [states[0]])
        XCTAssertFalse(final.narrow)
        XCTAssertEqual(try results(final, groups: 3), [2 * Int128(Int64.max), nil, -3])
    }

    /// 128-bit partial states whose valid values fit 64 bits merge into the 64-bit states
    /// (an aggregate split in memory merges its first table's states into every
    /// partition); a NULL state's value is never read, however wide. A state past 64 bits,
    /// or a merged sum that would leave them, widens with every sum exact; a selection
    /// reads only its rows.
    func testStatesThatFitMergeNarrow() throws {
        func states(_ values: [Int128], valid: [Bool]) -> Vector {
            var validity = Validity(allValid: values.count)
            for (i, ok) in valid.enumerated() where !ok { validity.setInvalid(i) }
            return Vector(type: type, data: .int128(values), validity: validity)
        }
        let acc = make()
        acc.grow(to: 4)
        // Row 1 is NULL with a value past 64 bits; row 3 is not selected.
        try acc.merge(groups: [0, 1, 2], rows: [2, 1, 0],
                      states: [states([5, Int128(1) << 100, -3, Int128(1) << 90], valid: [true, false, true, true])])
        XCTAssertTrue(acc.narrow, "valid states within 64 bits stay narrow")
        XCTAssertEqual(try results(acc, groups: 4), [-3, nil, 5, nil])
        try acc.update(groups: [3, 0], rows: [0, 1], input: column([11, 4]))
        XCTAssertTrue(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 4), [1, nil, 5, 11])
        // A merged sum past 2^63: the merge is taken back, then added in 128 bits.
        try acc.merge(groups: [2, 3], rows: [0, 1], states: [states([Int128(Int64.max), 1], valid: [true, true])])
        XCTAssertFalse(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 4), [1, nil, Int128(Int64.max) + 5, 12])

        // A valid state past 64 bits widens at once.
        let wide = make()
        wide.grow(to: 2)
        try wide.merge(groups: [0, 1], rows: [0, 1], states: [states([7, Int128(1) << 70], valid: [true, true])])
        XCTAssertFalse(wide.narrow)
        XCTAssertEqual(try results(wide, groups: 2), [7, Int128(1) << 70])
    }

    /// Rows picked by a selection (physical rows out of order, some skipped), an empty
    /// batch and a one-row batch: only the selected values count, and the batch that
    /// overflows through the selection is taken back whole.
    func testSelectionsEmptyAndOneRowBatches() throws {
        let acc = make()
        acc.grow(to: 2)
        let big: Int64 = 5_000_000_000_000_000_000
        // Physical rows 0..3; the selection reads 3, then 1 (row 0's and 2's values unread).
        try acc.update(groups: [0, 1], rows: [3, 1], input: column([.max, 7, .max, big]))
        XCTAssertTrue(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 2), [Int128(big), 7])
        try acc.update(groups: [], rows: [], input: column([]))
        XCTAssertTrue(acc.narrow)
        try acc.update(groups: [1], rows: [0], input: column([-8]))
        XCTAssertEqual(try results(acc, groups: 2), [Int128(big), -1])
        // Group 1 first (fits), then group 0 past 2^63 through the selection: all taken back.
        try acc.update(groups: [1, 0], rows: [2, 0], input: column([big, nil, 4]))
        XCTAssertFalse(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 2), [2 * Int128(big), 3])
    }

    /// A 128-bit argument (a wide DECIMAL held at full width) widens at once.
    func testA128BitArgumentWidens() throws {
        let acc = make()
        acc.grow(to: 2)
        let v = Vector(type: type, data: .int128([Int128(1) << 100, 7]))
        try acc.update(groups: [0, 1], rows: [0, 1], input: v)
        XCTAssertFalse(acc.narrow)
        XCTAssertEqual(try results(acc, groups: 2), [Int128(1) << 100, 7])
    }
}
