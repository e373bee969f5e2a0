// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseSQL
import SlicehouseTypes

/// `$n` replaced by bound values before parsing (the server's Bind).
final class ParameterTests: XCTestCase {
    func testParametersBecomeLiterals() throws {
        let sql = "select $1, $2 + 1 from t where a = $1 and b in ($3)"
        XCTAssertEqual(try parameterCount(sql), 3)
        let parsed = try parseScript(sql, parameters: [
            ParameterValue(text: "it's", type: nil),
            ParameterValue(text: "41", type: .integer),
            ParameterValue(text: nil, type: .date),
        ])
        XCTAssertEqual(parsed.count, 1)
        guard case .query(let q) = parsed[0].statement else { return XCTFail("not a query") }
        let printed = q.description
        XCTAssertTrue(printed.contains("'it''s'"), printed)
        XCTAssertTrue(printed.contains("41") && printed.lowercased().contains("integer"), printed)
        XCTAssertTrue(printed.uppercased().contains("NULL"), printed)
        XCTAssertThrowsError(try parseScript("select $4", parameters: [])) { e in
            XCTAssertEqual((e as? SQLError)?.code, .undefinedParameter)
            XCTAssertEqual((e as? SQLError)?.message, "there is no parameter $4")
        }
        // Types whose names are several words still parse.
        XCTAssertNoThrow(try parseScript("select $1", parameters: [ParameterValue(text: "2020-01-01 10:00", type: .timestamp)]))
        XCTAssertNoThrow(try parseScript("select $1", parameters: [ParameterValue(text: "1.5", type: .double)]))
        XCTAssertNoThrow(try parseScript("select $1", parameters: [ParameterValue(text: "1.5", type: .decimal(precision: 2, scale: 1))]))
        XCTAssertNoThrow(try parseScript("select -$1", parameters: [ParameterValue(text: "-5", type: .integer)]))
    }
}
