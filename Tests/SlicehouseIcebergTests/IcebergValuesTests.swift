// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseIceberg
import SlicehouseTypes

final class IcebergValuesTests: XCTestCase {
    func testSingleValueSerialization() {
        XCTAssertEqual(IcebergValues.decode([0x2a, 0, 0, 0], .int), .int(42))
        XCTAssertEqual(IcebergValues.decode([0xff, 0xff, 0xff, 0xff], .int), .int(-1))
        XCTAssertEqual(IcebergValues.decode([1, 0, 0, 0, 0, 0, 0, 0x80], .long), .int(Int64.min + 1))
        // A long column promoted from int keeps its old files' four-byte bounds.
        XCTAssertEqual(IcebergValues.decode([7, 0, 0, 0], .long), .int(7))
        XCTAssertEqual(IcebergValues.decode(Array("abc".utf8), .string), .string("abc"))
        XCTAssertEqual(IcebergValues.decode([0, 0, 0x80, 0x3f], .float), .double(1.0))
        // Decimals: big-endian two's complement of the unscaled value.
        XCTAssertEqual(IcebergValues.decode([0x01, 0x00], .decimal(9, 2)), .int(256))
        XCTAssertEqual(IcebergValues.decode([0xff, 0x38], .decimal(9, 2)), .int(-200))
        // Lengths that do not fit the type are not judged.
        XCTAssertNil(IcebergValues.decode([1, 2, 3], .int))
        XCTAssertNil(IcebergValues.decode([1, 2], .double))
    }

    func testMetadataPicksTheCurrentSchemaAndSnapshot() throws {
        let json = """
        {"format-version": 2, "table-uuid": "x", "location": "s3://b/t", "last-sequence-number": 3,
         "current-schema-id": 1,
         "schemas": [{"schema-id": 0, "type": "struct", "fields": [{"id": 1, "name": "a", "required": true, "type": "int"}]},
                     {"schema-id": 1, "type": "struct", "fields": [{"id": 1, "name": "a", "required": true, "type": "long"},
                                                                   {"id": 2, "name": "price", "required": false, "type": "decimal(12, 2)"},
                                                                   {"id": 3, "name": "tags", "required": false,
                                                                    "type": {"type": "list", "element-id": 4, "element": "string", "element-required": false}}]}],
         "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": [{"source-id": 1, "field-id": 1000, "name": "a_bucket", "transform": "bucket[16]"}]}],
         "current-snapshot-id": 22,
         "snapshots": [{"snapshot-id": 11, "sequence-number": 1, "manifest-list": "s3://b/t/metadata/snap-11.avro"},
                       {"snapshot-id": 22, "sequence-number": 2, "manifest-list": "s3://b/t/metadata/snap-22.avro"}]}
        """
        let m = try IcebergMetadata(json: Array(json.utf8), name: "v3.metadata.json")
        XCTAssertEqual(m.fields.map(\.name), ["a", "price", "tags"])
        XCTAssertEqual(m.fields.map(\.type.dataType), [.bigint, .decimal(precision: 12, scale: 2), .superType])
        XCTAssertEqual(m.manifestList, "s3://b/t/metadata/snap-22.avro")
        XCTAssertEqual(m.specs[0]?.first?.transform, .bucket(16))
    }

    func testBadMetadataNamesTheFile() {
        XCTAssertThrowsError(try IcebergMetadata(json: Array("{\"format-version\": 2}".utf8), name: "m.json")) { e in
            XCTAssertTrue("\(e)".contains("m.json"), "\(e)")
        }
        XCTAssertThrowsError(try IcebergMetadata(json: Array("not json".utf8), name: "m.json"))
        let noSnapshot = """
        {"format-version": 2, "location": "s3://b/t", "current-schema-id": 0,
         "schemas": [{"schema-id": 0, "fields": []}], "current-snapshot-id": 5, "snapshots": []}
        """
        XCTAssertThrowsError(try IcebergMetadata(json: Array(noSnapshot.utf8), name: "m.json")) { e in
            XCTAssertTrue("\(e)".contains("snapshot 5"), "\(e)")
        }
    }

    func testAvroThatIsNotAvroIsRefused() {
        XCTAssertThrowsError(try AvroFile.values(Array("Obj\u{1}garbage".utf8), name: "snap.avro")) { e in
            XCTAssertTrue("\(e)".contains("snap.avro"), "\(e)")
        }
        XCTAssertThrowsError(try AvroFile.values([], name: "empty.avro"))
    }
}

final class AvroHostileTests: XCTestCase {
    func testHeaderGarbageIsAnError() {
        for bytes: [UInt8] in [Array("Obj\u{1} this is not avro".utf8), Array("Obj\u{1}".utf8), [0x4f, 0x62, 0x6a, 0x01, 0x02]] {
            XCTAssertThrowsError(try AvroFile.values(bytes, name: "bad.avro"))
        }
    }
}
