// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseAWS
import SlicehouseTestSupport

/// The Glue Data Catalog client against moto's Glue API (the same server as its S3):
/// databases, tables with their storage descriptors and partition keys, partitions
/// registered in batches and read back page by page and by expression, and Glue's errors.
final class GlueClientTests: MotoTestCase {

    func client() throws -> GlueClient { try MotoServer.glue(Self.server) }

    func clicks(_ name: String) -> GlueTable {
        GlueTable(name: name, storageDescriptor: GlueStorageDescriptor(
                    columns: [GlueColumn(name: "user_id", type: "bigint"), GlueColumn(name: "url", type: "string"),
                              GlueColumn(name: "price", type: "decimal(12,2)")],
                    location: "s3://lake/clicks/",
                    inputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                    outputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
                    serdeInfo: .init(serializationLibrary: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")),
                  partitionKeys: [GlueColumn(name: "year", type: "string"), GlueColumn(name: "month", type: "string")],
                  parameters: ["classification": "parquet", "numRows": "1000"])
    }

    func testDatabasesAndTables() throws {
        let glue = try client()
        XCTAssertNil(try glue.getDatabase("lake"))
        try glue.createDatabase(GlueDatabase(name: "lake", description: "the lake", locationUri: "s3://lake/"))
        XCTAssertEqual(try glue.getDatabase("lake")?.locationUri, "s3://lake/")
        XCTAssertThrowsError(try glue.createDatabase(GlueDatabase(name: "lake"))) { e in
            XCTAssertTrue((e as? GlueError)?.isAlreadyExists ?? false, "\(e)")
        }
        for name in ["clicks", "views", "orders"] { try glue.createTable(database: "lake", clicks(name)) }
        let t = try XCTUnwrap(try glue.getTable(database: "lake", name: "clicks"))
        XCTAssertEqual(t.storageDescriptor?.columns?.map(\.type), ["bigint", "string", "decimal(12,2)"])
        XCTAssertEqual(t.partitionKeys?.map(\.name), ["year", "month"])
        XCTAssertEqual(t.parameters?["numRows"], "1000")
        XCTAssertEqual(t.storageDescriptor?.location, "s3://lake/clicks/")
        XCTAssertEqual(try glue.getTables(database: "lake").map(\.name).sorted(), ["clicks", "orders", "views"])
        var changed = t
        changed.storageDescriptor?.location = "s3://lake/clicks-v2/"
        try glue.updateTable(database: "lake", changed)
        XCTAssertEqual(try glue.getTable(database: "lake", name: "clicks")?.storageDescriptor?.location, "s3://lake/clicks-v2/")
        try glue.deleteTable(database: "lake", name: "views")
        XCTAssertNil(try glue.getTable(database: "lake", name: "views"))
        XCTAssertThrowsError(try glue.getTables(database: "no_such_db")) { e in
            XCTAssertTrue((e as? GlueError)?.isNotFound ?? false, "\(e)")
        }
    }

    func testPartitionsInBatchesAndByExpression() throws {
        let glue = try client()
        try glue.createDatabase(GlueDatabase(name: "parts"))
        try glue.createTable(database: "parts", clicks("events"))
        var partitions: [GluePartition] = []
        for year in 2020...2024 {
            for month in 1...30 {   // 150 partitions: two batches
                let m = String(format: "%02d", month)
                partitions.append(GluePartition(values: [String(year), m], storageDescriptor: GlueStorageDescriptor(
                    location: "s3://lake/events/year=\(year)/month=\(m)/")))
            }
        }
        try glue.batchCreatePartition(database: "parts", table: "events", partitions)
        let all = try glue.getPartitions(database: "parts", table: "events")
        XCTAssertEqual(all.count, 150)
        XCTAssertEqual(Set(all.map { $0.values }), Set(partitions.map { $0.values }))
        XCTAssertEqual(all.first { $0.values == ["2022", "07"] }?.storageDescriptor?.location, "s3://lake/events/year=2022/month=07/")
        let one = try glue.getPartitions(database: "parts", table: "events", expression: "year = '2023'")
        XCTAssertEqual(one.count, 30)
        XCTAssertTrue(one.allSatisfy { $0.values[0] == "2023" })
        // Registering one again fails, unless told to let it be.
        XCTAssertThrowsError(try glue.batchCreatePartition(database: "parts", table: "events", [partitions[0]]))
        try glue.batchCreatePartition(database: "parts", table: "events", [partitions[0]], ignoreExisting: true)
        try glue.batchDeletePartition(database: "parts", table: "events", values: partitions.prefix(30).map(\.values))
        XCTAssertEqual(try glue.getPartitions(database: "parts", table: "events").count, 120)
    }

    func testErrorsAreReadable() {
        let e = GlueClient.error(status: 400, body: Array(#"{"__type":"com.amazonaws#EntityNotFoundException","Message":"Database x not found."}"#.utf8))
        XCTAssertEqual(e, .service(status: 400, type: "EntityNotFoundException", message: "Database x not found."))
        XCTAssertTrue(e.isNotFound)
        XCTAssertTrue(GlueClient.error(status: 400, body: Array(#"{"__type":"ThrottlingException","message":"slow"}"#.utf8)).isTransient)
        XCTAssertTrue(GlueClient.error(status: 503, body: Array("<html>".utf8)).isTransient)
    }
}
