// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage

/// The STL logs' store: rows outlive the process, retention by age and size, damaged
/// and torn files, and failed writes that must never fail (or block) anything else.
final class SystemLogStoreTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "syslog-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A clock the test moves.
    final class FakeClock: @unchecked Sendable {
        var micros: Int64 = 1_800_000_000_000_000
        func now() -> Int64 { micros }
    }

    private func store(_ clock: FakeClock, _ retention: SystemLogStore.Retention = .standard,
                       directory: String? = nil) -> SystemLogStore {
        SystemLogStore(directory: directory ?? root, retention: retention, now: { clock.now() })
    }

    private func segments(_ log: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + log)) ?? []).sorted()
    }

    private let day: Int64 = 86_400 * 1_000_000

    func testEveryKindOfValueComesBackFromALaterStore() {
        let clock = FakeClock()
        let rows: [[Value]] = [
            [.null, .int(-7), .int128(Int128(1) << 100 | 5), .double(-2.5), .bool(true), .bool(false), .string("héllo\n|")],
            [.string(""), .int(Int64.max), .int128(-1), .double(.infinity)],
            [],
        ]
        store(clock).append("stl_query", rows)
        store(clock).append("stl_query", [[.int(3)]])
        let again = store(clock)
        XCTAssertEqual(again.rows("stl_query"), rows + [[.int(3)]])
        XCTAssertEqual(again.rows("stl_scan"), [])
        XCTAssertEqual(segments("stl_query").count, 1, "a later process appends to the same segment")
    }

    private func bytesOnDisk(_ log: String) -> Int {
        segments(log).reduce(0) { total, f in
            let size = (try? FileManager.default.attributesOfItem(atPath: root + "/" + log + "/" + f)[.size] as? NSNumber)?.intValue
            return total + (size ?? 0)
        }
    }

    func testWriteBehindKeepsRowsInMemoryUntilTheyAreReadOrFlushed() {
        let clock = FakeClock()
        let s = SystemLogStore(directory: root, retention: .standard, writeBehindMicros: 3_600_000_000, now: { clock.now() })
        s.append("stl_query", [[.int(1)]])
        s.append("stl_query", [[.int(2)]])
        s.append("stl_scan", [[.int(3)]])
        // Not written yet: another store on the directory (a later process) sees nothing.
        XCTAssertEqual(bytesOnDisk("stl_query"), 0)
        XCTAssertEqual(store(clock).rows("stl_query"), [])
        // A read of the log writes its rows first, in order; the other log still waits.
        XCTAssertEqual(s.rows("stl_query"), [[.int(1)], [.int(2)]])
        XCTAssertGreaterThan(bytesOnDisk("stl_query"), 0)
        XCTAssertEqual(store(clock).rows("stl_query"), [[.int(1)], [.int(2)]])
        XCTAssertEqual(bytesOnDisk("stl_scan"), 0)
        s.flush()
        XCTAssertEqual(store(clock).rows("stl_scan"), [[.int(3)]])
        // Rows older than the wait are written by the next append; so are 32 KB of rows.
        s.append("stl_query", [[.int(4)]])
        clock.micros += 3_600_000_001
        s.append("stl_query", [[.int(5)]])
        XCTAssertEqual(store(clock).rows("stl_query").count, 4)
        let big = String(repeating: "x", count: 1000)
        for i in 0..<40 { s.append("stl_scan", [[.int(Int64(i)), .string(big)]]) }
        XCTAssertGreaterThan(store(clock).rows("stl_scan").count, 1)
    }

    func testWriteBehindRowsReachTheFileOnTheirOwnWithinTheWait() {
        let clock = FakeClock()
        let s = SystemLogStore(directory: root, retention: .standard, writeBehindMicros: 50_000, now: { clock.now() })
        s.append("stl_query", [[.int(1)]])
        let deadline = Date().addingTimeInterval(10)
        while bytesOnDisk("stl_query") == 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(store(clock).rows("stl_query"), [[.int(1)]], "the scheduled flush wrote the row")
        withExtendedLifetime(s) {}
    }

    func testMemoryStoreKeepsRowsWithoutAnyFile() {
        let clock = FakeClock()
        let s = SystemLogStore(directory: nil, retention: .standard, now: { clock.now() })
        s.append("stl_query", [[.int(1)], [.int(2)]])
        XCTAssertEqual(s.rows("stl_query"), [[.int(1)], [.int(2)]])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), [])
    }

    func testRowsOlderThanTheRetentionAreHiddenAndTheirSegmentsDeleted() {
        let clock = FakeClock()
        let retention = SystemLogStore.Retention(maxAgeMicros: 7 * day, maxBytes: 1 << 20, segmentBytes: 100)
        let s = store(clock, retention)
        for i in 0..<10 {
            s.append("stl_query", [[.int(Int64(i)), .string(String(repeating: "x", count: 40))]])
            clock.micros += day
        }
        // Rows 0 ... 9 were written on days 0 ... 9; now is day 10: rows of days 3 ... 9 remain.
        XCTAssertEqual(store(clock, retention).rows("stl_query").map { $0[0] }, (3..<10).map { .int(Int64($0)) })
        // Each row filled its own segment; the append on day 9 deleted the one whose successor began before day 2.
        XCTAssertEqual(segments("stl_query").count, 9)
        clock.micros += 30 * day
        XCTAssertEqual(store(clock, retention).rows("stl_query"), [])
        store(clock, retention).append("stl_query", [[.int(99)]])
        // The small row fit in the last segment; every older one went.
        XCTAssertEqual(segments("stl_query").count, 1)
        XCTAssertEqual(store(clock, retention).rows("stl_query"), [[.int(99)]])
    }

    func testALogKeepsAtMostItsSizeDroppingTheOldestSegments() {
        let clock = FakeClock()
        let retention = SystemLogStore.Retention(maxAgeMicros: 7 * day, maxBytes: 1000, segmentBytes: 200)
        let s = store(clock, retention)
        for i in 0..<100 { s.append("stl_scan", [[.int(Int64(i)), .string(String(repeating: "y", count: 30))]]) }
        let sizes = segments("stl_scan").map { name -> Int in
            let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/stl_scan/" + name)
            return (attributes?[.size] as? NSNumber)?.intValue ?? 0
        }
        XCTAssertLessThanOrEqual(sizes.reduce(0, +), 1000 + 200)
        XCTAssertTrue(sizes.allSatisfy { $0 <= 200 })
        let kept = store(clock, retention).rows("stl_scan").map { $0[0] }
        XCTAssertEqual(kept.last, .int(99))
        XCTAssertEqual(kept, (100 - kept.count..<100).map { .int(Int64($0)) }, "the newest rows, in order, none missing")
        XCTAssertGreaterThan(kept.count, 10)
    }

    func testATornFrameLeftByACrashIsSkippedAndLaterRowsAreRead() throws {
        let clock = FakeClock()
        store(clock).append("stl_query", [[.int(1), .string("first")], [.int(2), .string("second")]])
        // A crash mid-write: half a frame at the end of the segment.
        let file = root + "/stl_query/" + (segments("stl_query").first ?? "")
        var torn = LogFrames(time: clock.micros)
        torn.append([.int(3), .string("torn")])
        let half = torn.bytes
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
        handle.seekToEndOfFile()
        handle.write(Data(half.prefix(half.count / 2)))
        handle.closeFile()
        // The next process appends after it without reading the file first.
        store(clock).append("stl_query", [[.int(4), .string("after")]])
        XCTAssertEqual(store(clock).rows("stl_query"),
                       [[.int(1), .string("first")], [.int(2), .string("second")], [.int(4), .string("after")]])
    }

    func testADamagedFrameLosesOnlyItsOwnRow() throws {
        let clock = FakeClock()
        store(clock).append("stl_query", (0..<5).map { [.int(Int64($0)), .string("row \($0)")] })
        let file = root + "/stl_query/" + (segments("stl_query").first ?? "")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let frame = bytes.count / 5
        bytes[2 * frame + frame / 2] ^= 0xFF   // inside the third row's payload
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(store(clock).rows("stl_query").map { $0[0] }, [.int(0), .int(1), .int(3), .int(4)])

        // Garbage, an empty file and a stray file name do not stop the rest.
        try Data(repeating: 0xA5, count: 5000).write(to: URL(fileURLWithPath: root + "/stl_query/0000000007-1.log"))
        try Data().write(to: URL(fileURLWithPath: root + "/stl_query/0000000008-2.log"))
        try Data("hello".utf8).write(to: URL(fileURLWithPath: root + "/stl_query/notes.txt"))
        XCTAssertEqual(store(clock).rows("stl_query").count, 4)
    }

    func testDecodingRandomBytesNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        var frames = LogFrames(time: 5)
        frames.append([.int(1), .string("ok")])
        let valid = frames.bytes
        for _ in 0..<200 {
            var bytes = (0..<Int.random(in: 0..<400, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Sometimes a plausible length and tag, to reach the value decoding.
            if bytes.count > 20 && Bool.random(using: &generator) { bytes.replaceSubrange(0..<4, with: [10, 0, 0, 0]) }
            var rows = 0
            SystemLogStore.decode(bytes + valid) { _, _ in rows += 1 }
            XCTAssertGreaterThanOrEqual(rows, 1, "the whole frame after the garbage is found")
        }
    }

    func testAFailedWriteKeepsTheRowsInMemoryAndFailsNothing() throws {
        let clock = FakeClock()
        // A file where the log's directory would go: the directory cannot be created.
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/stl_error"))
        let s = store(clock)
        s.append("stl_error", [[.int(1)]])
        s.append("stl_error", [[.int(2)]])
        XCTAssertEqual(s.rows("stl_error"), [[.int(1)], [.int(2)]])
        XCTAssertEqual(s.writeFailures, 1)
        // Other logs are unaffected.
        s.append("stl_query", [[.int(3)]])
        XCTAssertEqual(store(clock).rows("stl_query"), [[.int(3)]])
    }

    func testReservedIDsOutliveTheStore() {
        let clock = FakeClock()
        let s = store(clock)
        XCTAssertEqual(s.reserved(.query), 0)
        s.reserve(.query, through: 10_000)
        s.reserve(.transaction, through: 21_000)
        s.reserve(.query, through: 5)   // never goes back
        let again = store(clock)
        XCTAssertEqual(again.reserved(.query), 10_000)
        XCTAssertEqual(again.reserved(.transaction), 21_000)
    }
}
