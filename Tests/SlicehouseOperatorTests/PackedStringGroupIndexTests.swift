import XCTest
import SlicehouseTypes
@testable import SlicehouseExecution

/// `PackedStringGroupIndex` (one or two short CHAR/VARCHAR keys) numbers groups as the
/// generic `HashGroupIndex` does, in order of first appearance — through its one-byte path
/// (`assignSingleBytes`, Q1's flags) and out of it: a batch with an empty value (its offset
/// at the end of the bytes), a two-byte value or a NULL goes the general way, and ids stay
/// the same. (A one-byte path that skipped its length check fails this on three batches.)
final class PackedStringGroupIndexTests: XCTestCase {
    private func check(_ types: [DataType], _ batches: [[[String?]]], rowLists: Bool = false,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        try assertSameGroupsAsGenericIndex(PackedStringGroupIndex(keyTypes: types), types: types,
                                           batches: batches.map { batch in zip(types, batch).map { Vector.strings($0.1, type: $0.0) } },
                                           rowLists: rowLists, find: false, file: file, line: line)
    }

    func testOneByteKeysAndTheBatchesThatAreNot() throws {
        let flags: [DataType] = [.char(1), .char(1)]
        let ones: [[String?]] = [["A", "N", "R", "N", "A", "A"], ["F", "O", "F", "F", "F", "O"]]
        // An empty value last: its offset is the bytes' end.
        let emptyLast: [[String?]] = [["N", "R", "A", "N"], ["O", "F", "F", ""]]
        let emptyFirst: [[String?]] = [["", "R"], ["F", "F"]]
        let twoBytes: [[String?]] = [["N", "RR"], ["O", "F"]]
        let withNull: [[String?]] = [["N", nil], ["O", "F"]]
        try check(flags, [ones, emptyLast, ones, emptyFirst, twoBytes, withNull, ones])
        try check(flags, [ones, emptyLast, ones], rowLists: true)
        try check([.char(1)], [[["x", "y", "x", "z"]], [["y", ""]], [["z", "w"]]])
        try check([.varchar(3), .char(1)], [[["a", "bc", "a"], ["1", "2", "1"]], [["a", "b"], ["1", "2"]]])
        // Only empty values: no bytes at all.
        try check(flags, [[["", ""], ["", ""]], ones])
        try check(flags, [[[], []], ones])
    }
}
