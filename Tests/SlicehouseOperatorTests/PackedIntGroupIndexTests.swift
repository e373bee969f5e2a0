// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution

/// `PackedIntGroupIndex` gives the same group ids and keys as the generic `HashGroupIndex`
/// (both number groups in order of first appearance): 2 to 4 integer keys, NULLs, negative
/// and extreme values, constant keys, row lists, and batches beyond the first batch's
/// windows (the switch to the generic index keeps the ids).
final class PackedIntGroupIndexTests: XCTestCase {
    private func vector(_ type: DataType, _ values: [Int64?]) -> Vector {
        var validity = Validity(allValid: values.count)
        for (i, v) in values.enumerated() where v == nil { validity.setInvalid(i) }
        return Vector(type: type, data: .int64(values.map { $0 ?? 0 }),
                      validity: values.contains(where: { $0 == nil }) ? validity : nil)
    }

    private func check(_ types: [DataType], _ batches: [[[Int64?]]], rowLists: Bool = false,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        try assertSameGroupsAsGenericIndex(PackedIntGroupIndex(keyTypes: types), types: types,
                                           batches: batches.map { batch in zip(types, batch).map { vector($0.0, $0.1) } },
                                           rowLists: rowLists, find: true, file: file, line: line)
    }

    func testSameGroupsAsTheGenericIndex() throws {
        var rng = SeededRandom(seed: 12)
        func column(_ n: Int, _ range: ClosedRange<Int>, nulls: Double) -> [Int64?] {
            (0..<n).map { _ in rng.chance(nulls) ? nil : Int64(rng.int(range)) }
        }
        for types in [[DataType.integer, .bigint], [.bigint, .date, .integer], [.smallint, .integer, .bigint, .decimal(precision: 9, scale: 2)]] {
            let batches = (0..<4).map { _ in types.indices.map { c in column(700, (c * 100 - 50)...(c * 100 + 40), nulls: 0.05) } }
            try check(types, batches)
            try check(types, batches, rowLists: true)
        }
    }

    func testValuesBeyondTheWindowsSwitchToTheGenericIndex() throws {
        // Three keys: 21-bit windows centred on the first batch.
        let first: [[Int64?]] = [[1, 2, 3, nil], [10, 10, 11, 12], [-5, nil, -5, 7]]
        let near: [[Int64?]] = [[1, 500_000, 3, -500_000], [10, 11, 12, 10], [-5, -5, 7, 7]]
        let far: [[Int64?]] = [[3, 4_000_000, 2, 1], [11, 10, 10, 12], [-5, -5, -5, 7]]
        let after: [[Int64?]] = [[2, 4_000_000, 9, nil], [10, 10, 10, 12], [nil, -5, -5, 7]]
        try check([.bigint, .bigint, .bigint], [first, near, far, after])
        // Extremes of Int64 in the first batch: wider than a window at once.
        try check([.bigint, .bigint], [[[Int64.min, Int64.max, 0], [1, 1, 1]], [[0, 0, Int64.min], [1, 2, 1]]])
        // Windows at the ends of Int64 (bases clamped; values beyond them found outside).
        try check([.bigint, .bigint], [[[Int64.max, Int64.max - 3], [Int64.min, Int64.min + 1]],
                                        [[Int64.max - 1, Int64.min], [Int64.min, Int64.max]]])
        // Only NULLs first, then values.
        try check([.integer, .integer], [[[nil, nil], [nil, 1]], [[5, nil], [1, 1]], [[-2_000_000_000, 5], [1, 1]]])
    }

    func testEmptyBatchesAndFindBeforeAnyGroup() throws {
        let index = PackedIntGroupIndex(keyTypes: [.integer, .integer])
        var ids: [Int32] = []
        try index.find([vector(.integer, [1]), vector(.integer, [2])], rows: [0], groupIds: &ids)
        XCTAssertEqual(ids, [-1])
        try index.assign([vector(.integer, []), vector(.integer, [])], rows: [], groupIds: &ids)
        XCTAssertEqual(ids, [])
        XCTAssertEqual(index.groupCount, 0)
        try check([.integer, .integer], [[[], []], [[1, 1, 2], [3, 3, 3]], [[], []]])
    }
}
