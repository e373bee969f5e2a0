// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution

/// Feeds `batches` (key vectors, one array per batch) to `index` and to the generic
/// `HashGroupIndex` of the same key types, and asserts they agree: the group ids of every
/// batch (over all rows, or over a reversed row list that skips every third row), with
/// `find` the ids it finds, then the group count and every group's keys. Both number
/// groups in order of first appearance.
func assertSameGroupsAsGenericIndex(_ index: GroupIndex, types: [DataType], batches: [[Vector]], rowLists: Bool,
                                    find: Bool, file: StaticString, line: UInt) throws {
    let generic = HashGroupIndex(keyTypes: types)
    for (b, keys) in batches.enumerated() {
        let n = keys.first?.count ?? 0
        let rows: [Int32] = rowLists ? (0..<Int32(n)).reversed().filter { $0 % 3 != 1 } : (0..<Int32(n)).map { $0 }
        var a: [Int32] = [], g: [Int32] = []
        try index.assign(keys, rows: rows, groupIds: &a)
        try generic.assign(keys, rows: rows, groupIds: &g)
        XCTAssertEqual(a, g, "batch \(b) ids", file: file, line: line)
        guard find else { continue }
        var fa: [Int32] = [], fg: [Int32] = []
        try index.find(keys, rows: rows, groupIds: &fa)
        try generic.find(keys, rows: rows, groupIds: &fg)
        XCTAssertEqual(fa, fg, "batch \(b) find", file: file, line: line)
    }
    XCTAssertEqual(index.groupCount, generic.groupCount, file: file, line: line)
    let count = generic.groupCount
    let pk = index.keyColumns(0..<count), gk = generic.keyColumns(0..<count)
    for c in 0..<types.count {
        for r in 0..<count {
            XCTAssertEqual(pk[c].value(at: r), gk[c].value(at: r), "key \(c) of group \(r)", file: file, line: line)
        }
    }
}
