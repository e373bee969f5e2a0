// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseDatagen
import XCTest

/// CSV output: header line, commas, RFC 4180 quoting only where needed.
final class CSVTests: XCTestCase {
    func testQuotingRules() {
        XCTAssertEqual(csvField("plain text"), "plain text|")
        XCTAssertEqual(csvField("a, b"), "\"a, b\"|")
        XCTAssertEqual(csvField("say \"hi\""), "\"say \"\"hi\"\"\"|")
        XCTAssertEqual(csvField("two\nlines"), "\"two\nlines\"|")
        XCTAssertEqual(csvField("cr\rhere"), "\"cr\rhere\"|")
        XCTAssertEqual(csvField(""), "|")
    }

    func testInPlaceQuotingOfRawText() {
        var buffer = RowBuffer(capacity: 16, layout: .csv)
        let start = buffer.count
        for byte in Array("x,\"y\"".utf8) { buffer.byte(byte) }
        buffer.finishTextField(startingAt: start)
        buffer.endRow()
        let chunk = buffer.finish(rows: 1)
        XCTAssertEqual(String(decoding: chunk.bytes, as: UTF8.self), "\"x,\"\"y\"\"\"\n")
    }

    func testCustomerCSVMatchesTheTblValues() throws {
        let generator = TPCHGenerator(scaleFactor: 0.01)
        let csv = String(decoding: try generator.generate(.customer, format: .csv), as: UTF8.self)
        let tbl = String(decoding: try generator.generate(.customer, format: .tbl), as: UTF8.self)
        let csvLines = csv.split(separator: "\n", omittingEmptySubsequences: false)
        let tblLines = tbl.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(csvLines.first.map(String.init),
                       "c_custkey,c_name,c_address,c_nationkey,c_phone,c_acctbal,c_mktsegment,c_comment")
        XCTAssertEqual(csvLines.count, tblLines.count + 1)
        XCTAssertEqual(csvLines[1], "1,Customer#000000001,\"IVhzIApeRb ot,c,E\",15,25-989-741-2988,711.56,BUILDING,"
                       + "\"to the even, regular platelets. regular, ironic epitaphs nag e\"")
        // Every row parses back to the .tbl fields.
        for (csvLine, tblLine) in zip(csvLines.dropFirst(), tblLines) where !tblLine.isEmpty {
            var fields = tblLine.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            fields.removeLast()
            XCTAssertEqual(parseCSVLine(String(csvLine)), fields)
        }
    }

    func testEveryTableHasAHeaderAndMatchingFieldCounts() throws {
        let generator = TPCHGenerator(scaleFactor: 0.01)
        for table in [TPCHTable.region, .nation, .supplier, .part, .partsupp, .orders] {
            let text = String(decoding: try generator.generate(table, format: .csv), as: UTF8.self)
            let lines = text.split(separator: "\n")
            XCTAssertEqual(lines.first.map(String.init), table.columnNames.joined(separator: ","))
            XCTAssertEqual(Int64(lines.count - 1), try generator.rowCount(of: table))
            for line in lines.dropFirst() {
                XCTAssertEqual(parseCSVLine(String(line)).count, table.columnNames.count, "\(table): \(line)")
            }
        }
    }

    func testTheGeneratorWritesTextFormatsOnly() {
        // Parquet is the command line's (COPY and UNLOAD convert the text).
        XCTAssertEqual(DatagenFormat.allCases.map(\.rawValue), ["tbl", "csv"])
        XCTAssertEqual(DatagenError.unsupportedFormat("orc").description, "unknown format 'orc': use tbl or csv")
    }

    private func csvField(_ text: String) -> String {
        var buffer = RowBuffer(capacity: 64, layout: .csv)
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { source in
            buffer.reserve(source.count * 2 + 4)
            if let base = source.baseAddress { buffer.textField(base, source.count) } else { buffer.separator() }
        }
        let chunk = buffer.finish(rows: 1)
        // Show the separator as "|" so the expectation reads unambiguously.
        var result = String(decoding: chunk.bytes, as: UTF8.self)
        result.removeLast()
        return result + "|"
    }

    /// A minimal RFC 4180 line parser for the checks above.
    private func parseCSVLine(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
