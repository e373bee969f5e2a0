// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
@testable import SlicehouseIceberg
import SlicehouseTypes

/// A table pyiceberg wrote (fixtures/: its metadata file, manifest list and manifest —
/// 20 rows in two files, partitioned by `region`).
final class IcebergPlanTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fixtures")

    static func fixture(_ address: String) throws -> [UInt8] {
        let name = address.hasSuffix(".metadata.json") ? "v2.metadata.json"
            : address.contains("/snap-") ? "snap.avro" : "manifest.avro"
        return [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    func testPlanOfAPartitionedTable() throws {
        let metadata = try IcebergMetadata(json: try Self.fixture("x.metadata.json"), name: "v2.metadata.json")
        XCTAssertEqual(metadata.fields.map(\.name), ["id", "name", "region", "price"])
        XCTAssertEqual(metadata.specs.values.flatMap { $0 }.map(\.transform), [.identity])
        let plan = try IcebergScanPlan.make(metadata, read: Self.fixture)
        XCTAssertEqual(plan.tasks.count, 2)
        XCTAssertEqual(plan.tasks.map(\.file.recordCount), [10, 10])
        XCTAssertEqual(Set(plan.tasks.compactMap { $0.file.partition["region"]?.string }), ["east", "west"])
        XCTAssertTrue(plan.deletes.isEmpty)
        // `id`'s bounds (field 1) in the single-value serialization.
        let bounds = plan.tasks.map { t in
            (IcebergValues.decode(t.file.lowerBounds[1] ?? [], .long), IcebergValues.decode(t.file.upperBounds[1] ?? [], .long))
        }
        XCTAssertEqual(Set(bounds.map { "\($0.0 ?? .null)…\($0.1 ?? .null)" }), ["int(1)…int(19)", "int(2)…int(20)"])
        // The caller's pruning decides which files are read.
        let west = try IcebergScanPlan.make(metadata, read: Self.fixture,
                                            keepFile: { $0.partition["region"]?.string == "west" })
        XCTAssertEqual(west.tasks.count, 1)
        XCTAssertEqual(west.filesSkipped, 1)
        let none = try IcebergScanPlan.make(metadata, read: Self.fixture, keepManifest: { _ in false })
        XCTAssertEqual(none.tasks.count, 0)
        XCTAssertEqual(none.manifestsSkipped, 1)
    }

    /// Manifests come from whoever can write to the bucket: damaged ones are errors, never
    /// a crash (every byte changed in turn, and every length cut short).
    func testDamagedManifestsAreErrorsNotCrashes() throws {
        let original = try Self.fixture("m.avro")
        var errors = 0, read = 0
        func attempt(_ bytes: [UInt8]) {
            do { _ = try AvroFile.values(bytes, name: "m.avro"); read += 1 } catch { errors += 1 }
        }
        for i in 0..<original.count {
            for value: UInt8 in [0x00, 0xff, original[i] ^ 0x01, 0x7f] where value != original[i] {
                var bytes = original
                bytes[i] = value
                attempt(bytes)
            }
        }
        for n in stride(from: 0, to: original.count, by: 7) { attempt(Array(original.prefix(n))) }
        XCTAssertGreaterThan(errors, 0)
        XCTAssertGreaterThan(read, 0)
    }
}
