// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// `CopyLoader.stream` hands each piece's rows on while it parses the next: the pieces
/// still arrive one at a time, in file order, and a failure of `consume` or MAXERROR in
/// a later piece ends the load as it did when the two steps took turns.
final class PieceStreamTests: XCTestCase {
    struct Stop: Error {}

    let columns = [col("id", .integer), col("name", .varchar(20))]

    func text(_ n: Int, bad: Set<Int> = []) -> String {
        (1...n).map { bad.contains($0) ? "x\($0)|bad\n" : "\($0)|name \($0 % 13)\n" }.joined()
    }

    func stream(_ contents: String, options: CopyOptions = CopyOptions(),
                consume: ([Chunk]) throws -> Void) throws -> CopyResult {
        let d = try TempDir()
        let path = try d.write("data.txt", contents)
        return try withExtendedLifetime(d) {
            try CopyLoader.stream(table: "t", columns: columns, source: path, options: options,
                                  tuning: CopyTuning(chunkRows: 500, rangeBytes: 2048, workers: 2, pieceBytes: 4096),
                                  context: QueryContext(),
                                  consume: consume)
        }
    }

    func testPiecesArriveOneAtATimeInFileOrder() throws {
        let lock = NSLock()
        var ids: [Int64] = [], calls = 0, inside = 0, overlapped = false
        let r = try stream(text(5_000)) { chunks in
            lock.withLock { inside += 1; overlapped = overlapped || inside > 1; calls += 1 }
            for c in chunks {
                for i in 0..<c.count { if case .int(let v) = c.value(row: i, column: 0) { lock.withLock { ids.append(v) } } }
            }
            lock.withLock { inside -= 1 }
        }
        XCTAssertEqual(r.rowCount, 5_000)
        XCTAssertEqual(ids, (1...5_000).map(Int64.init))
        XCTAssertGreaterThan(calls, 10)
        XCTAssertFalse(overlapped)
    }

    func testAFailingConsumeEndsTheLoadWithItsError() throws {
        var calls = 0
        XCTAssertThrowsError(try stream(text(5_000, bad: [4_990]), options: opts(("MAXERROR", "0"))) { _ in
            calls += 1
            if calls == 3 { throw Stop() }
        }) { error in
            XCTAssertTrue(error is Stop, "\(error)")
        }
        XCTAssertEqual(calls, 3)
    }

    func testMaxErrorInALaterPieceAfterEarlierPiecesWereConsumed() throws {
        var rows = 0
        XCTAssertThrowsError(try stream(text(5_000, bad: [4_000]), options: opts(("MAXERROR", "0"))) { chunks in
            rows += chunks.reduce(0) { $0 + $1.count }
        }) { error in
            XCTAssertEqual((error as? LoadError)?.line, 4_000, "\(error)")
        }
        XCTAssertGreaterThan(rows, 0)
        XCTAssertLessThanOrEqual(rows, 3_999)
    }
}
