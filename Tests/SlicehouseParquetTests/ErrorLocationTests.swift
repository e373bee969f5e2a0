// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// `decodeRowGroup` locates a value that does not fit its column: the row within the
/// file (NULLs and earlier row groups counted) and the value, for plain and
/// dictionary-encoded pages; `readRowGroup` keeps reporting an `SQLError`.
final class ErrorLocationTests: XCTestCase {
    /// Rows `0..<n`: `id`, a low-cardinality string (dictionary pages), a unique string
    /// (plain once the dictionary gives up), every 3rd row NULL in the strings.
    func write(_ path: String, rows n: Int, groupBytes: Int, long: (Int) -> Bool) throws {
        let w = try ParquetWriter(path: path, columns: [("id", .bigint), ("low", .varchar(100)), ("uniq", .varchar(100))],
                                  rowGroupBytes: groupBytes)
        var start = 0
        while start < n {
            let k = min(250, n - start)
            var ids: [Int64] = []
            var low = StringArray(), uniq = StringArray()
            var validity = Validity(allValid: k)
            for r in 0..<k {
                let row = start + r
                ids.append(Int64(row))
                if row % 3 == 0 {
                    validity.setInvalid(r); low.appendEmpty(); uniq.appendEmpty()
                } else {
                    low.append(long(row) ? "a much longer value" : ["x", "y", "z"][row % 3])
                    uniq.append(long(row) ? "unique value number \(row)" : "u\(row)")
                }
            }
            try w.append(Chunk(columns: [Vector(type: .bigint, data: .int64(ids)),
                                         Vector(type: .varchar(100), data: .string(low), validity: validity),
                                         Vector(type: .varchar(100), data: .string(uniq), validity: validity)], count: k))
            start += k
        }
        try w.close()
    }

    func testValueErrorsNameTheRowInTheFile() throws {
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("f.parquet").path
        try write(path, rows: 3_000, groupBytes: 8_000, long: { $0 == 2_501 })
        let file = try ParquetFile(path: path)
        XCTAssertGreaterThan(file.rowGroupCount, 2)
        let group = (0..<file.rowGroupCount).first { g in
            file.firstRow(ofRowGroup: g) <= 2_501 && 2_501 < file.firstRow(ofRowGroup: g) + Int64(file.rowGroups[g].numRows)
        } ?? 0
        let dictionary: Set<ParquetEncoding> = [.plainDictionary, .rleDictionary]
        XCTAssertFalse(dictionary.isDisjoint(with: file.rowGroups[group].columns[1]?.encodings ?? []), "low: dictionary pages")
        for column in [1, 2] {
            XCTAssertThrowsError(try file.decodeRowGroup(group, columns: [column], as: [.varchar(10)])) { e in
                guard let e = e as? ParquetReadError else { return XCTFail("\(e)") }
                XCTAssertEqual(e.row, 2_501, "column \(column)")
                XCTAssertEqual(e.column, column == 1 ? "low" : "uniq")
                XCTAssertEqual(e.columnIndex, column)
                XCTAssertEqual(e.code, .stringTooLong)
                XCTAssertTrue(e.isValueError)
                XCTAssertEqual(e.value, column == 1 ? "a much longer value" : "unique value number 2501")
            }
            // The public SQLError is unchanged: file, column, reason.
            XCTAssertThrowsError(try file.readRowGroup(group, columns: [column], as: [.varchar(10)])) { e in
                XCTAssertEqual((e as? SQLError)?.code, .stringTooLong)
                XCTAssertTrue((e as? SQLError)?.message.hasPrefix("Parquet file '\(path)', column \"") ?? false, "\(e)")
            }
        }
        // Integers that do not fit: DECIMAL(3,0) holds ids up to 999.
        let last = file.rowGroupCount - 1
        XCTAssertThrowsError(try file.decodeRowGroup(last, columns: [0], as: [.decimal(precision: 3, scale: 0)])) { e in
            guard let e = e as? ParquetReadError else { return XCTFail("\(e)") }
            let expected = max(1_000, file.firstRow(ofRowGroup: last))
            XCTAssertEqual(e.row, expected)
            XCTAssertEqual(e.value, String(expected))
            XCTAssertEqual(e.code, .numericOutOfRange)
        }
    }
}
