// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest

/// Inputs that crashed COPY under `slicehouse fuzz` (Sources/SlicehouseFuzz): each must
/// now load or be rejected as bad data.
final class FuzzRegressionTests: XCTestCase {
    /// TIMEFORMAT 'epochsecs' accepted up to 15 digits of seconds and multiplied them into
    /// microseconds without an overflow check: 13 digits or more trapped. Such values are
    /// rejected as invalid timestamps; the largest that fit still load.
    func testEpochSecondsTooLargeForMicrosecondsAreRejected() throws {
        let options = try opts(("TIMEFORMAT", "epochsecs"), ("MAXERROR", "10"))
        let r = try loadText("9999999999999\n-999999999999999\n100000000000000.5\n9223372036854\n",
                             columns: [col("ts", .timestamp)], options: options)
        XCTAssertEqual(r.rejectedCount + r.rowCount, 4)
        XCTAssertGreaterThanOrEqual(r.rejectedCount, 3)
        XCTAssertTrue(r.rejected.prefix(3).allSatisfy { $0.code == .invalidTimestamp }, "\(r.rejected)")
        // Milliseconds: 15 digits always fit.
        let millis = try loadText("999999999999999\n", columns: [col("ts", .timestamp)],
                                  options: try opts(("TIMEFORMAT", "epochmillisecs")))
        XCTAssertEqual(rows(millis), [[.int(999_999_999_999_999_000)]])
    }
}
