// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
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

    /// A direct array of `prefetchedBytes` or more is probed with prefetches instead of a
    /// touch pass over windows; the same number of sparse keys (slots, which keep the
    /// touch pass) for comparison. With repeats, NULLs and selections, both answer as the
    /// reference.
    func testLargeIndexesAreProbedWithPrefetches() throws {
        var rng = SeededRandom(seed: 23)
        let span = Int64GroupIndex.prefetchedBytes / MemoryLayout<Int32>.stride + 50_000
        for sparse in [false, true] {
            let index = Int64GroupIndex(type: .bigint)
            var reference = Reference()
            let distinct = sparse ? Int64GroupIndex.prefetchedBytes / 8 + 10_000 : span
            var order = (0..<distinct).map { sparse ? Int64($0) * 7_919 - 1_000_000 : Int64($0) - 20_000 }
            order.shuffle(using: &rng)
            var batch = 0
            while !order.isEmpty {
                let keys: [Int64?] = (0..<Chunk.capacity).map { _ in
                    if rng.chance(0.01) { return nil }
                    if rng.chance(0.2) { return sparse ? Int64(rng.int(0...5_000)) * 7_919 - 1_000_000
                                                       : Int64(rng.int(0...(span - 1))) - 20_000 }
                    return order.popLast() ?? 0
                }
                let rows = batch % 3 == 1 ? (0..<Int32(keys.count)).filter { $0 % 3 != 0 } : nil
                try feed(index, &reference, keys, rows: rows, "\(sparse ? "sparse" : "dense") batch \(batch)")
                batch += 1
            }
            XCTAssertEqual(index.isDirect, !sparse)
            XCTAssertGreaterThanOrEqual(index.memoryBytes, Int64GroupIndex.prefetchedBytes, "large enough to prefetch")
            let probes: [Int64?] = [nil, -20_001, -20_000, .min, .max] + (0..<2_000).map { _ in
                sparse ? Int64(rng.int(0...distinct)) * 7_919 - 1_000_000 + Int64(rng.int(0...1))
                       : Int64(rng.int(-30_000...(span + 10_000)))
            }
            try checkLookups(index, reference, probes: probes, sparse ? "sparse" : "dense")
        }
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

/// `Int64GroupIndex`'s packed slots (8 bytes: the key's offset from a base in 40 bits,
/// the group + 1 in 24): used while every key lies within 2^40 values of the base (half
/// of it below the first keys) and the groups stay under the limit; the first key outside,
/// or the group past the limit, moves the table to wide slots with every group id kept.
/// Group ids, lookups and key columns are the reference's in both layouts.
extension GroupIndexDirectTests {
    /// Keys spread too wide for direct mode, with NULLs, repeats and a selection, the
    /// batches past `fewGroups` (the windowed pass): packed throughout.
    func testKeysWithinTheRangeStayPacked() throws {
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        var rng = SeededRandom(seed: 11)
        let top: Int64 = 1 << 38  // above the first keys, within the 2^39 left above them
        for batch in 0..<40 {
            let keys: [Int64?] = (0..<Chunk.capacity).map { _ in
                rng.int(0...30) == 0 ? nil : Int64(rng.int(0...5_000)) * (top / 5_000) - 77
            }
            let rows: [Int32]? = batch % 3 == 0 ? stride(from: 1, to: Int32(Chunk.capacity), by: 2).map { $0 } : nil
            try feed(index, &reference, keys, rows: rows, "batch \(batch)")
        }
        XCTAssertTrue(index.isPacked)
        XCTAssertFalse(index.isDirect)
        try checkLookups(index, reference, probes: [-77, top - 77, 0, nil, -78, .max, .min, 1 << 40],
                                 "within")
    }

    /// Keys past either end of the packed range: lookups in packed mode find nothing for
    /// them (never a key that shares their low 40 bits), and assigning one goes wide.
    func testAKeyOutsideTheRangeGoesWide() throws {
        for outside: Int64 in [(1 << 40) + 5, -(1 << 40) + 5, .max, .min] {
            let index = Int64GroupIndex(type: .bigint)
            var reference = Reference()
            let keys: [Int64?] = (0..<3_000).map { Int64($0 * 3 + 5) }
            try feed(index, &reference, keys, "first")
            XCTAssertTrue(index.isPacked)
            // Same low 40 bits as key 5 (offsets are taken modulo 2^40 only inside the range).
            try checkLookups(index, reference, probes: [5, 5 + (1 << 40), 5 - (1 << 40), outside, 8],
                                     "packed, \(outside)")
            try feed(index, &reference, [outside, 5, nil, outside, 9_000], "outside \(outside)")
            XCTAssertFalse(index.isPacked, "\(outside)")
            try feed(index, &reference, keys.reversed() + [outside], "after \(outside)")
            try checkLookups(index, reference, probes: [5, 5 + (1 << 40), outside, nil, 8, 7],
                                     "wide, \(outside)")
        }
    }

    /// A key 2^40 · j past a stored one shares its offset's low 40 bits; one whose home
    /// slot is the stored key's too (found by search) is still not that key.
    func testAKeyThatSharesASlotAndTheLowBitsIsNotFound() throws {
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        let stored: Int64 = 1_000
        try feed(index, &reference, [stored, 7, 12], "stored")
        XCTAssertTrue(index.isPacked)
        // Same slot in any table of up to 4,096 slots (this one has 64).
        let home = Hashing.slot(Hashing.hash(stored), 4_095)
        var j: Int64 = 1
        while Hashing.slot(Hashing.hash(stored &+ j &* (1 << 40)), 4_095) != home { j += 1 }
        let twin = stored &+ j &* (1 << 40)
        try checkLookups(index, reference, probes: [twin, stored], "twin \(twin)")
        try feed(index, &reference, [twin, stored, twin], "twin assigned")
        try checkLookups(index, reference, probes: [twin, stored, 7], "twin wide")
    }

    /// First keys at the bottom of the Int64 range: the base stops at Int64.min.
    func testKeysNearTheBottomOfTheRange() throws {
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        try feed(index, &reference, (0..<2_000).map { Int64.min + Int64($0) * 1_000_003 }, "bottom")
        try feed(index, &reference, [Int64.min, Int64.min + (1 << 40) - 1], "edge")
        XCTAssertTrue(index.isPacked)
        try feed(index, &reference, [Int64.min + (1 << 40)], "one past")
        XCTAssertFalse(index.isPacked)
        try checkLookups(index, reference, probes: [Int64.min, Int64.min + (1 << 40), 0], "bottom")
    }

    /// More groups than the packed layout numbers: wide from the batch that passes it.
    func testGroupsPastTheLimitGoWide() throws {
        let index = Int64GroupIndex(type: .bigint, packedGroupLimit: 5_000)
        var reference = Reference()
        let spread: Int64 = 1_000
        for batch in 0..<2 {
            try feed(index, &reference, (0..<2_048).map { Int64(batch * 2_048 + $0) * spread }, "\(batch)")
        }
        XCTAssertTrue(index.isPacked)
        try feed(index, &reference, (4_096..<6_144).map { Int64($0) * spread }, "past")
        XCTAssertFalse(index.isPacked)
        try checkLookups(index, reference, probes: [0, 4_095 * spread, 6_143 * spread, 1], "limit")
    }
}

/// New groups are written into room made for a new group per row of the batch, the NULL
/// group too, and the room left over is trimmed. New keys repeated in a batch (within one
/// probe window of 256 rows and across windows), keys mixed with known ones and NULLs, in
/// both layouts, on the few-groups pass and the windowed one, under a selection: the ids
/// are the reference's, numbered by first appearance, and the group count never counts
/// the room.
extension GroupIndexDirectTests {
    func testNewGroupsAreNumberedByFirstAppearance() throws {
        for wide in [false, true] {
            let index = Int64GroupIndex(type: .bigint)
            var reference = Reference()
            try feed(index, &reference, (0..<1_500).map { $0 == 700 ? nil : Int64($0) * 7 }, "first")
            if wide { try feed(index, &reference, [Int64.max, 0], "wide") }
            XCTAssertEqual(index.isPacked, !wide)
            var rng = SeededRandom(seed: 5)
            for batch in 0..<12 {
                let fresh = (0..<40).map { Int64(100_000 + batch * 1_000 + $0) * 7 }
                let keys: [Int64?] = (0..<Chunk.capacity).map { _ in
                    switch rng.int(0...9) {
                    case 0: return nil
                    case 1, 2: return fresh[rng.int(0...39)]
                    default: return Int64(rng.int(0...1_499)) * 7
                    }
                }
                let rows: [Int32]? = batch % 2 == 0 ? stride(from: 0, to: Int32(Chunk.capacity), by: 3).map { $0 } : nil
                try feed(index, &reference, keys, rows: rows, "wide \(wide), batch \(batch)")
            }
            XCTAssertFalse(index.isDirect)
            XCTAssertEqual(index.isPacked, !wide)
            try checkLookups(index, reference, probes: [0, 7, 100_000 * 7, 100_039 * 7, 111_000 * 7, nil, 1, .max],
                             "wide \(wide)")
        }
    }

    /// A batch of keys all new to a large table, each appearing again in later windows,
    /// then a batch of keys all already there (no room used, all trimmed).
    func testBatchesOfOnlyNewOrOnlyKnownKeys() throws {
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        try feed(index, &reference, (0..<2_000).map { Int64($0) * 13 }, "first")
        let fresh: [Int64?] = (0..<256).map { Int64(50_000 + $0) * 13 }
        try feed(index, &reference, fresh + fresh.reversed() + fresh, "new")
        try feed(index, &reference, (0..<2_048).map { Int64(($0 * 7) % 2_000) * 13 }, "known")
        XCTAssertEqual(index.groupCount, 2_256)
        try checkLookups(index, reference, probes: [0, 50_000 * 13, 50_255 * 13, 50_256 * 13], "after")
    }

    /// The ids array given back to `assign` batch after batch is resized in place: a
    /// shorter batch after a longer one leaves no stale ids past its rows, a longer one
    /// gets every id written, in the few-groups pass and the windowed one alike.
    func testIdsArrayReusedAcrossBatchesOfOtherLengths() throws {
        let index = Int64GroupIndex(type: .bigint)
        var reference = Reference()
        var ids: [Int32] = [9, 9, 9, 9, 9, 9, 9, 9, 9, 9]
        let longer: [Int64?] = (0..<1_500).map { Int64($0 % 1_100) * 3 }
        let shorter: [Int64?] = [3_000, 0, nil, 3_000]
        let windowed: [Int64?] = (0..<2_048).map { Int64(($0 * 11) % 2_500) * 3 }
        let batches: [(String, [Int64?])] = [("longer", longer), ("shorter", shorter),
                                             ("windowed, longer", windowed), ("one row", [7_499])]
        for (label, keys) in batches {
            let rows = (0..<Int32(keys.count)).map { $0 }
            try index.assign([vector(keys)], rows: rows, groupIds: &ids)
            XCTAssertEqual(ids, rows.map { reference.assign(keys[Int($0)]) }, label)
        }
    }

    /// `OperatorKernels.identity` keeps its cache's storage across lengths; an array it
    /// gave earlier keeps its rows.
    func testIdentityCacheOfAnyLength() {
        var cache: [Int32] = []
        let five = OperatorKernels.identity(5, cache: &cache)
        let three = OperatorKernels.identity(3, cache: &cache)
        let seven = OperatorKernels.identity(7, cache: &cache)
        XCTAssertEqual(five, [0, 1, 2, 3, 4])
        XCTAssertEqual(three, [0, 1, 2])
        XCTAssertEqual(seven, [0, 1, 2, 3, 4, 5, 6])
        XCTAssertEqual(OperatorKernels.identity(0, cache: &cache), [])
        XCTAssertEqual(OperatorKernels.identity(2, cache: &cache), [0, 1])
    }
}
