// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
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

extension PackedStringGroupIndexTests {
    /// The one-byte path reads a row's byte by its index when every value from the lowest
    /// listed row to the highest is one byte, and through the offsets when only the listed
    /// rows are: rows the list skips may hold longer values (inside that range or past it),
    /// one key may be in row order and the other not, and a value's bytes need not start
    /// at the buffer's start.
    func testOneByteKeysInRowOrderAndThroughOffsets() throws {
        let flags: [DataType] = [.char(1), .char(1)]
        func vector(_ values: [String], lead: String = "") -> Vector {
            var strings = StringArray([lead] + values)
            strings.offsets.removeFirst()
            XCTAssertEqual(strings.count, values.count)
            return Vector(type: .char(1), data: .string(strings))
        }
        // Rows 1, 4, 7 are skipped by the reversed row list (`rowLists`): they may be long.
        let ones = [vector(["A", "N", "R", "N", "A", "A", "R"]), vector(["F", "O", "F", "F", "F", "O", "F"])]
        let shifted = [vector(["N", "A", "R", "A"], lead: "zz"), vector(["O", "F", "F", "F"], lead: "q")]
        let longSkipped = [vector(["R", "LONG", "A", "N", "xy", "A", "N", "", "R"]),
                           vector(["F", "F", "F", "O", "F", "O", "O", "F", "F"])]
        let otherLongSkipped = [vector(["R", "A", "N", "A", "N", "R", "A", "N"]),
                                vector(["F", "??", "O", "F", "", "F", "O", "FF"])]
        // The reversed row list of five rows is 3, 2, 0: row 4 lies past the highest.
        let longPast = [vector(["N", "A", "R", "A", "LONG"]), vector(["O", "F", "F", "F", "XX"])]
        for rowLists in [false, true] {
            let batches = rowLists ? [ones, shifted, longSkipped, otherLongSkipped, longPast, ones] : [ones, shifted, ones]
            try assertSameGroupsAsGenericIndex(PackedStringGroupIndex(keyTypes: flags), types: flags, batches: batches,
                                               rowLists: rowLists, find: false, file: #filePath, line: #line)
        }
        typealias P = PackedStringGroupIndex
        XCTAssertEqual(P.everyValueOneByte(StringArray(["a", "b"]), rows: 0...1), 0)
        XCTAssertEqual(P.everyValueOneByte(StringArray(["", "a", "b"]), rows: 1...2), 0)
        XCTAssertEqual(P.everyValueOneByte(StringArray(["abc", "a", "b", "cd"]), rows: 1...2), 3)
        guard case .string(let shiftedStrings) = shifted[0].data else { return XCTFail("not strings") }
        XCTAssertEqual(P.everyValueOneByte(shiftedStrings, rows: 0...3), 2)
        XCTAssertEqual(P.everyValueOneByte(shiftedStrings, rows: 2...3), 4)
        XCTAssertNil(P.everyValueOneByte(StringArray(["a", "bc"]), rows: 0...1))
        XCTAssertNil(P.everyValueOneByte(StringArray(["a", ""]), rows: 0...1))
        XCTAssertNil(P.everyValueOneByte(StringArray(["a", "b"]), rows: 0...2), "past the values")
        XCTAssertNil(P.everyValueOneByte(StringArray(), rows: 0...0))
    }
}
