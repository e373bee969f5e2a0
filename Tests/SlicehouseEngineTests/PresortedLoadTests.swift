// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseEngine
import SlicehouseTypes

/// A load whose rows already come in sort-key order keeps them in that order without
/// sorting (`TableWriter.presorted`); any other load is sorted as before.
final class PresortedLoadTests: XCTestCase {
    func ints(_ values: [Int64]) -> Vector { Vector(type: .bigint, data: .int64(values)) }

    func testPresortedFindsOrderedKeysOnly() {
        XCTAssertEqual(TableWriter.presorted([ints([1, 2, 2, 5])], keys: [0], count: 4), [0, 1, 2, 3])
        XCTAssertNil(TableWriter.presorted([ints([1, 3, 2])], keys: [0], count: 3))
        // Compound: ties on the first key are ordered by the second.
        let a = ints([1, 1, 1, 2]), b = ints([5, 6, 6, 0])
        XCTAssertEqual(TableWriter.presorted([a, b], keys: [0, 1], count: 4), [0, 1, 2, 3])
        XCTAssertNil(TableWriter.presorted([a, ints([5, 7, 6, 0])], keys: [0, 1], count: 4))
        XCTAssertNil(TableWriter.presorted([b, a], keys: [0, 1], count: 4), "5, 6, 6, 0 is not ordered")
        // NULLs or other kinds: left to the sort.
        var validity = Validity(allValid: 3)
        validity.setInvalid(0)
        XCTAssertNil(TableWriter.presorted([Vector(type: .bigint, data: .int64([1, 2, 3]), validity: validity)], keys: [0], count: 3))
        XCTAssertNil(TableWriter.presorted([Vector(type: .varchar(4), data: .string(StringArray(["a", "b"])))], keys: [0], count: 2))
        XCTAssertEqual(TableWriter.presorted([ints([7])], keys: [0], count: 1), [0])
    }

    /// Presorted and shuffled copies of the same rows (NULLs in other columns, repeated
    /// keys) load into the same sorted table: each slice's rows in key order either way,
    /// no unsorted rows, the same answers.
    func testPresortedAndShuffledLoadsStoreTheSameSortedRows() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-presorted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var lines: [String] = []
        for i in 0..<20_000 {
            let note = i % 7 == 0 ? "" : "n\(i % 13)"
            lines.append("\(i / 9)|\(i % 11)|\(note)")
        }
        let sorted = dir.appendingPathComponent("sorted.txt").path
        let shuffled = dir.appendingPathComponent("shuffled.txt").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: sorted, atomically: true, encoding: .utf8)
        var rng = SystemRandomNumberGenerator()
        try (lines.shuffled(using: &rng).joined(separator: "\n") + "\n").write(toFile: shuffled, atomically: true, encoding: .utf8)
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        for t in ["a", "b"] {
            _ = try s.execute("create table \(t) (d bigint, k int, note varchar(8)) distkey(k) sortkey(d)")
        }
        _ = try s.execute("copy a from '\(sorted)' delimiter '|' emptyasnull")
        _ = try s.execute("copy b from '\(shuffled)' delimiter '|' emptyasnull")
        func text(_ sql: String) throws -> [[String?]] { try s.execute(sql)[0].textRows() }
        XCTAssertEqual(try text("select count(*), count(note), sum(d), sum(k) from a"), [["20000", "17142", "22212223", "99991"]])
        XCTAssertEqual(try text("select count(*) from (select * from a except select * from b) x"), [["0"]])
        XCTAssertEqual(try text("select count(*) from (select * from b except select * from a) x"), [["0"]])
        XCTAssertEqual(try text("select \"table\", unsorted from svv_table_info where \"table\" in ('a', 'b') order by 1"),
                       [["a", "0"], ["b", "0"]])
        // Each slice holds its rows in key order: a scan's rows, slice by slice, never step back.
        for t in ["a", "b"] {
            let rows = try text("select slice_num(), d from \(t)")
            var last: [String: Int64] = [:]
            for r in rows {
                let slice = r[0] ?? "", d = Int64(r[1] ?? "") ?? -1
                XCTAssertGreaterThanOrEqual(d, last[slice] ?? .min, "table \(t), slice \(slice)")
                last[slice] = d
            }
        }
    }
}
