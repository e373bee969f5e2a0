import XCTest
import SlicehouseTypes
@testable import SlicehouseExecution

/// `Int64GroupIndex` in direct mode: keys dense in their range go to an array indexed by
/// key minus the lowest when a table of `directCheckGroups` groups or more would grow
/// (at 131,072 groups with the 4x steps); it widens for keys
/// outside it while they stay dense and goes back to slots when they do not. Every group
/// id, key column and lookup is the one a plain dictionary gives, in every mode.
final class GroupIndexDirectTests: XCTestCase {
    /// The reference: keys to first-appearance group ids, NULL a group of its own.
    struct Reference {
        var ids: [Int64: Int32] = [:]
        var keys: [Int64?] = []
        var null: Int32?
        mutating func assign(_ key: Int64?) -> Int32 {
            guard let key else {
                if let null { return null }
                null = Int32(keys.count); keys.append(nil)
                return null ?? -1
            }
            if let g = ids[key] { return g }
            let g = Int32(keys.count)
            ids[key] = g
            keys.append(key)
            return g
        }
        func find(_ key: Int64?) -> Int32 { key.map { ids[$0] ?? -1 } ?? (null ?? -1) }
    }

    /// One batch: `keys` (nil: NULL) at the rows of `rows` (a selection when given).
    func vector(_ keys: [Int64?]) -> Vector {
        var v = Vector(type: .bigint, data: .int64(keys.map { $0 ?? 0 }))
        if keys.contains(nil) {
            var validity = Validity(allValid: keys.count)
            for (i, k) in keys.enumerated() where k == nil { validity.setInvalid(i) }
            v.validity = validity
        }
        return v
    }

    func feed(_ index: Int64GroupIndex, _ reference: inout Reference, _ keys: [Int64?], rows: [Int32]? = nil,
              _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let rows = rows ?? (0..<Int32(keys.count)).map { $0 }
        var ids: [Int32] = []
        try index.assign([vector(keys)], rows: rows, groupIds: &ids)
        let expected = rows.map { reference.assign(keys[Int($0)]) }
        XCTAssertEqual(ids, expected, label, file: file, line: line)
        XCTAssertEqual(index.groupCount, reference.keys.count, label, file: file, line: line)
    }

    func checkLookups(_ index: Int64GroupIndex, _ reference: Reference, probes: [Int64?], _ label: String,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        var ids: [Int32] = []
        let rows = (0..<Int32(probes.count)).map { $0 }
        try index.find([vector(probes)], rows: rows, groupIds: &ids)
        XCTAssertEqual(ids, probes.map { reference.find($0) }, label, file: file, line: line)
        let columns = index.keyColumns(0..<index.groupCount)
        XCTAssertEqual(columns.count, 1)
        let got: [Int64?] = (0..<index.groupCount).map { g in
            guard case .int64(let k) = columns[0].data else { return -1 }
            return columns[0].validity.map { $0.isValid(g) } ?? true ? k[g] : nil
        }
        XCTAssertEqual(got, reference.keys, "key columns: \(label)", file: file, line: line)
    }

    /// Keys from a range a little wider than their groups, with NULLs and selections: the
    /// index goes direct past `directCheckGroups` groups and answers as the reference.
    func testDenseKeysGoDirect() throws {
        var rng = SeededRandom(seed: 7)
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        // Every key of -40,000..<110,000 once, shuffled, among repeats and NULLs.
        var order = (0..<150_000).map { Int64($0) - 40_000 }
        order.shuffle(using: &rng)
        var batch = 0
        while !order.isEmpty {
            let keys: [Int64?] = (0..<Chunk.capacity).map { _ in
                if rng.chance(0.01) { return nil }
                if rng.chance(0.2) { return Int64(rng.int(0...149_999)) - 40_000 }
                return order.popLast() ?? 0
            }
            let rows = batch % 3 == 1 ? (0..<Int32(keys.count)).filter { $0 % 3 != 0 } : nil
            try feed(index, &reference, keys, rows: rows, "batch \(batch)")
            if index.groupCount < Int64GroupIndex.directCheckGroups - Chunk.capacity {
                XCTAssertFalse(index.isDirect, "batch \(batch): still slots")
            }
            batch += 1
        }
        XCTAssertTrue(index.isDirect, "dense keys past the check go direct")
        XCTAssertLessThan(index.memoryBytes, 8 << 20, "4 bytes a value, not 16 a slot")
        let probes: [Int64?] = [nil, -40_001, -40_000, 0, 109_999, 110_000, .min, .max] + (0..<500).map { _ in
            Int64(rng.int(-50_000...120_000))
        }
        try checkLookups(index, reference, probes: probes, "direct")
        // An empty batch and a one-row batch.
        try feed(index, &reference, [], "empty")
        try feed(index, &reference, [5], "one row")
        XCTAssertTrue(index.isDirect)
    }

    /// Keys past either end widen the array while they stay dense (keys arriving in order
    /// widen it now and then, not every batch); a key far out sends the index back to
    /// slots, and so does one near the ends of the Int64 range. Nothing is lost in either move.
    func testWideningAndGoingBackToSlots() throws {
        var rng = SeededRandom(seed: 11)
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        var next: Int64 = 1_000_000
        // Ascending keys with gaps of one in four: dense, growing at the top every batch.
        var widenings = 0
        var lastSize = 0
        for batch in 0..<120 {
            var keys: [Int64?] = []
            for _ in 0..<Chunk.capacity {
                keys.append(next)
                next += rng.chance(0.25) ? 2 : 1
            }
            try feed(index, &reference, keys, "ascending batch \(batch)")
            if index.isDirect && index.memoryBytes != lastSize {
                widenings += 1
                lastSize = index.memoryBytes
            }
        }
        XCTAssertTrue(index.isDirect)
        XCTAssertLessThan(widenings, 20, "the array widens with room to spare, not every batch")
        // Below the lowest key: widened downwards.
        try feed(index, &reference, [999_000, 998_500, nil, 1_000_000], "below")
        XCTAssertTrue(index.isDirect)
        try checkLookups(index, reference, probes: [998_499, 998_500, 999_000, nil, next, next - 1], "widened")
        // Far out: too sparse for an array; back to slots.
        try feed(index, &reference, [1 << 40, 7, nil], "far out")
        XCTAssertFalse(index.isDirect)
        try checkLookups(index, reference, probes: [1 << 40, 7, 998_500, 1_000_000, 3, nil], "slots again")
        // More dense keys later: the range (now to 2^40) stays too sparse.
        try feed(index, &reference, (0..<Chunk.capacity).map { Int64($0) + 2_000_000 }, "dense again")
        XCTAssertFalse(index.isDirect)

        // The ends of the Int64 range: never direct, no overflow.
        let extremes = Int64GroupIndex(type: .bigint)
        var ref2 = Reference()
        for start in stride(from: 0, to: 140_000, by: Chunk.capacity) {
            try feed(extremes, &ref2, (start..<min(140_000, start + Chunk.capacity)).map { Int64($0) }, "dense start")
        }
        XCTAssertTrue(extremes.isDirect)
        try feed(extremes, &ref2, [.max, .min, .max - 1, nil], "extremes")
        XCTAssertFalse(extremes.isDirect)
        try checkLookups(extremes, ref2, probes: [.max, .min, 0, 139_999, 140_000, nil], "extremes")
    }

    /// Keys spread over more than `directSpanPerGroup` values a group keep the slots.
    func testSparseKeysKeepTheSlots() throws {
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        let spread = Int64GroupIndex.directSpanPerGroup + 1
        var at: Int64 = 0
        while index.groupCount < 100_000 {
            try feed(index, &reference, (0..<Chunk.capacity).map { i in (at + Int64(i)) * spread }, "sparse")
            at += Int64(Chunk.capacity)
        }
        XCTAssertFalse(index.isDirect)
        try checkLookups(index, reference, probes: [0, spread, 1, nil, 99_999 * spread], "sparse")
    }
}
