// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseStorage

/// The deleted-row set operations a materialized view's refresh uses to tell rows
/// deleted since it from those deleted before (`MaterializedViewState.Base.changes`).
final class DeleteSetTests: XCTestCase {
    func set(_ rows: [Int]) -> DeleteSet {
        var s = DeleteSet()
        for r in rows { s.insert(r) }
        return s
    }

    func members(_ s: DeleteSet, below n: Int) -> [Int] { (0..<n).filter { s.contains($0) } }

    func testRunsRoundTripAtWordEdges() {
        let cases: [[Int]] = [
            [], [0], [63], [64], [0, 1, 2], [62, 63, 64, 65], Array(0..<64), Array(0..<128), Array(10..<200),
            [5, 7, 9], [127, 128, 191, 192, 255], Array(60..<70) + [300],
        ]
        for rows in cases {
            let s = set(rows)
            let runs = s.runs
            XCTAssertEqual(runs.count % 2, 0)
            XCTAssertEqual(members(DeleteSet(runs: runs), below: 400), rows, "\(rows)")
            XCTAssertEqual(DeleteSet(runs: runs).count, rows.count)
        }
        XCTAssertEqual(set([62, 63, 64, 65]).runs, [62, 66])
        XCTAssertEqual(set(Array(0..<128)).runs, [0, 128])
        XCTAssertEqual(set([1, 3]).runs, [1, 2, 3, 4])
        XCTAssertEqual(DeleteSet().runs, [])
    }

    func testSubtractingAndSuperset() {
        let now = set([1, 2, 3, 64, 65, 100, 130])
        let then = set([2, 64])
        XCTAssertTrue(now.isSuperset(of: then))
        XCTAssertTrue(now.isSuperset(of: DeleteSet()))
        XCTAssertFalse(then.isSuperset(of: now))
        XCTAssertFalse(now.isSuperset(of: set([300])))
        // Rows deleted since, among the first 101 rows only.
        XCTAssertEqual(members(now.subtracting(then, below: 101), below: 200), [1, 3, 65, 100])
        XCTAssertEqual(members(now.subtracting(then, below: 64), below: 200), [1, 3])
        XCTAssertEqual(members(now.subtracting(then, below: 0), below: 200), [])
        XCTAssertEqual(members(now.subtracting(DeleteSet(), below: 1_000), below: 200), [1, 2, 3, 64, 65, 100, 130])
        XCTAssertEqual(now.subtracting(then, below: 101).count, 4)
    }

    func testComplement() {
        let s = set([0, 5, 63, 64])
        XCTAssertEqual(members(s.complement(below: 66), below: 100), [1, 2, 3, 4] + Array(6..<63) + [65])
        XCTAssertEqual(s.complement(below: 66).count, 62)
        XCTAssertEqual(DeleteSet().complement(below: 0).count, 0)
        XCTAssertEqual(DeleteSet().complement(below: 64).count, 64)
        XCTAssertEqual(members(set(Array(0..<10)).complement(below: 10), below: 100), [])
    }

    func testSnapshotViews() {
        var slice = SliceData(columnCount: 1)
        slice.rowCount = 10
        slice.deleted = set([1, 8])
        let snap = TableSnapshot(slices: [slice], distribution: .even, evenCursor: 0)
        // As it was at 6 rows with only row 1 deleted (row 8 came, and went, since).
        let then = snap.onlyRows(before: [6], deleted: [set([1])])
        XCTAssertEqual(members(then.slices[0].deleted, below: 10), [1, 6, 7, 8, 9])
        // Only rows 2 and 3 visible.
        let only = snap.onlyRows(in: [set([2, 3])])
        XCTAssertEqual(members(only.slices[0].deleted, below: 10), [0, 1, 4, 5, 6, 7, 8, 9])
        XCTAssertEqual(only.rowCount, 2)
    }

    func testChangesTellDeletesSinceARefresh() {
        var slice = SliceData(columnCount: 1)
        slice.rowCount = 6
        slice.deleted = set([1])
        var snap = TableSnapshot(slices: [slice], distribution: .even, evenCursor: 0, modifications: 7)
        let base = MaterializedViewState.Base(table: 1, snapshot: snap)
        XCTAssertEqual(base.deletedRuns, [[1, 2]])
        // Two rows appended, one old row and one new row deleted.
        snap.slices[0].rowCount = 8
        snap.slices[0].deleted.insert(3)
        snap.slices[0].deleted.insert(7)
        snap.modifications += 4
        let c = try? XCTUnwrap(base.changes(snap))
        XCTAssertEqual(c?.rows, [6])
        XCTAssertEqual(c.map { members($0.deletedSince[0], below: 10) }, [3])
        XCTAssertEqual(c.map { members($0.deletedThen[0], below: 10) }, [1])
        XCTAssertEqual(c?.appended, true)
        XCTAssertEqual(c?.hasDeletes, true)
        // A reorganization, or a modification count that does not add up: not told.
        var moved = snap
        moved.reorganizations += 1
        XCTAssertNil(base.changes(moved))
        var other = snap
        other.modifications += 1
        XCTAssertNil(base.changes(other))
        // A state written without its deleted rows can only tell appends.
        var old = base
        old.deletedRuns = nil
        XCTAssertNil(old.changes(snap))
        var appended = snap
        appended.slices[0].deleted = set([1])
        appended.modifications = 9
        XCTAssertEqual(old.changes(appended)?.hasDeletes, false)
    }
}
