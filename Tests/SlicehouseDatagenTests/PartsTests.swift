// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseDatagen
import XCTest

/// `--parts K`: dbgen's `-C K -S i` split; the parts concatenate to the table.
final class PartsTests: XCTestCase {
    func testPartRangesFollowDbgen() throws {
        let generator = TPCHGenerator(scaleFactor: 0.01)
        XCTAssertEqual(try generator.units(of: .part, part: 1, of: 3), 0..<666)
        XCTAssertEqual(try generator.units(of: .part, part: 2, of: 3), 666..<1332)
        XCTAssertEqual(try generator.units(of: .part, part: 3, of: 3), 1332..<2000)
        XCTAssertEqual(try generator.units(of: .lineitem, part: 4, of: 4), 11_250..<15_000)
        XCTAssertThrowsError(try generator.units(of: .part, part: 0, of: 3))
        XCTAssertThrowsError(try generator.units(of: .part, part: 4, of: 3))
        XCTAssertThrowsError(try generator.units(of: .part, part: 1, of: 0))
    }

    func testPartsConcatenateToTheFullTable() throws {
        let generator = TPCHGenerator(scaleFactor: 0.01)
        for table in TPCHTable.allCases {
            let full = try generator.generate(table)
            for parts in [2, 7] {
                var joined: [UInt8] = []
                for part in 1...parts { joined += try generator.generate(table, part: part, of: parts) }
                XCTAssertTrue(joined == full, "\(table) in \(parts) parts")
            }
        }
    }

    func testWrittenPartFilesUseDbgenNames() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("slicehouse-datagen-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generator = TPCHGenerator(scaleFactor: 0.01)
        let summaries = try generator.writeTables([.nation, .orders, .partsupp], to: directory, parts: 3)

        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        XCTAssertEqual(names, ["nation.tbl", "orders.tbl.1", "orders.tbl.2", "orders.tbl.3",
                               "partsupp.tbl.1", "partsupp.tbl.2", "partsupp.tbl.3"])
        XCTAssertEqual(summaries.map(\.rows), [25, 15_000, 8_000])

        for table in [TPCHTable.orders, .partsupp] {
            var joined = Data()
            for part in 1...3 {
                joined += try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(table).tbl.\(part)"))
            }
            XCTAssertEqual(joined, Data(try generator.generate(table)), "\(table)")
            let summary = try XCTUnwrap(summaries.first { $0.table == table })
            XCTAssertEqual(summary.bytes, Int64(joined.count))
            XCTAssertEqual(summary.files.count, 3)
        }
    }

    func testSingleFileNames() {
        XCTAssertEqual(TPCHGenerator.fileName(for: .lineitem, format: .tbl), "lineitem.tbl")
        XCTAssertEqual(TPCHGenerator.fileName(for: .lineitem, format: .tbl, part: 3, of: 8), "lineitem.tbl.3")
        XCTAssertEqual(TPCHGenerator.fileName(for: .customer, format: .csv), "customer.csv")
    }
}
