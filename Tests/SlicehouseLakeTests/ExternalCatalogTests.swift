// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseAWS
@testable import SlicehouseLake
import SlicehouseTestSupport

/// The two external catalogs behave alike: the same calls, the same answers and the same
/// errors from the Glue Data Catalog (moto's Glue API) and from a directory. The directory
/// catalog refuses names that would reach outside its root.
final class ExternalCatalogTests: MotoTestCase {

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "lake-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func glue() throws -> GlueCatalog { GlueCatalog(client: try MotoServer.glue(Self.server)) }

    func sales(_ name: String, location: String = "s3://lake/sales/") -> GlueTable {
        GlueTable(name: name, storageDescriptor: GlueStorageDescriptor(
                    columns: [GlueColumn(name: "id", type: "bigint"), GlueColumn(name: "amount", type: "decimal(12,2)")],
                    location: location,
                    inputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                    serdeInfo: .init(serializationLibrary: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")),
                  partitionKeys: [GlueColumn(name: "year", type: "int"), GlueColumn(name: "region", type: "string")],
                  parameters: ["numRows": "170000"])
    }

    /// Everything a catalog must do, in one run over a database named `db`.
    func exercise(_ catalog: any ExternalCatalog, db: String) throws {
        XCTAssertNil(try catalog.database(db))
        XCTAssertThrowsError(try catalog.tables(in: db)) { XCTAssertEqual($0 as? ExternalCatalogError, .noDatabase(db)) }
        try catalog.createDatabase(GlueDatabase(name: db, description: "sales lake"))
        XCTAssertEqual(try catalog.database(db)?.description, "sales lake")
        XCTAssertThrowsError(try catalog.createDatabase(GlueDatabase(name: db))) {
            XCTAssertEqual($0 as? ExternalCatalogError, .databaseExists(db))
        }
        try catalog.createTable(db, sales("sales"))
        try catalog.createTable(db, sales("returns", location: "s3://lake/returns/"))
        XCTAssertThrowsError(try catalog.createTable(db, sales("sales"))) {
            XCTAssertEqual($0 as? ExternalCatalogError, .tableExists(database: db, table: "sales"))
        }
        XCTAssertEqual(try catalog.tables(in: db).map(\.name).sorted(), ["returns", "sales"])
        let t = try XCTUnwrap(try catalog.table(db, "sales"))
        XCTAssertEqual(t.storageDescriptor?.columns?.map(\.name), ["id", "amount"])
        XCTAssertEqual(t.partitionKeys?.map(\.type), ["int", "string"])
        XCTAssertEqual(t.parameters?["numRows"], "170000")
        XCTAssertNil(try catalog.table(db, "nothing"))

        var moved = t
        moved.storageDescriptor?.location = "s3://lake/sales-2/"
        try catalog.updateTable(db, moved)
        XCTAssertEqual(try catalog.table(db, "sales")?.storageDescriptor?.location, "s3://lake/sales-2/")
        XCTAssertThrowsError(try catalog.updateTable(db, sales("nothing"))) {
            XCTAssertEqual($0 as? ExternalCatalogError, .noTable(database: db, table: "nothing"))
        }

        let parts = (2020...2023).flatMap { y in ["eu", "us"].map { r in
            GluePartition(values: [String(y), r], storageDescriptor: GlueStorageDescriptor(location: "s3://lake/sales/year=\(y)/region=\(r)/"))
        } }
        try catalog.addPartitions(db, "sales", parts, ignoreExisting: false)
        XCTAssertEqual(Set(try catalog.partitions(db, "sales").map(\.values)), Set(parts.map(\.values)))
        XCTAssertEqual(try catalog.partitions(db, "sales").first { $0.values == ["2021", "us"] }?.storageDescriptor?.location,
                       "s3://lake/sales/year=2021/region=us/")
        XCTAssertThrowsError(try catalog.addPartitions(db, "sales", [parts[0]], ignoreExisting: false)) {
            guard case .partitionExists = $0 as? ExternalCatalogError else { return XCTFail("\($0)") }
        }
        try catalog.addPartitions(db, "sales", [parts[0]], ignoreExisting: true)
        try catalog.dropPartitions(db, "sales", [["2020", "eu"], ["2020", "us"], ["1999", "xx"]])
        XCTAssertEqual(try catalog.partitions(db, "sales").count, parts.count - 2)
        XCTAssertEqual(try catalog.partitions(db, "returns").count, 0)
        XCTAssertThrowsError(try catalog.partitions(db, "nothing")) {
            XCTAssertEqual($0 as? ExternalCatalogError, .noTable(database: db, table: "nothing"))
        }

        try catalog.dropTable(db, "returns")
        XCTAssertNil(try catalog.table(db, "returns"))
        XCTAssertThrowsError(try catalog.dropTable(db, "returns")) {
            XCTAssertEqual($0 as? ExternalCatalogError, .noTable(database: db, table: "returns"))
        }
        try catalog.dropDatabase(db)
        XCTAssertNil(try catalog.database(db))
    }

    func testTheDirectoryCatalog() throws {
        let root = try temporaryDirectory()
        try exercise(DirectoryCatalog(root: root), db: "lake")
        // What was registered is still there for the next process.
        let again = DirectoryCatalog(root: root)
        try again.createDatabase(GlueDatabase(name: "kept"))
        try again.createTable("kept", sales("sales"))
        XCTAssertEqual(try DirectoryCatalog(root: root).table("kept", "sales")?.storageDescriptor?.location, "s3://lake/sales/")
    }

    func testTheGlueCatalog() throws {
        try exercise(try glue(), db: "lake")
    }

    /// Names are identifiers: none reaches outside the directory.
    func testTheDirectoryCatalogRefusesPathsForNames() throws {
        let root = try temporaryDirectory()
        let catalog = DirectoryCatalog(root: root)
        for bad in ["../escape", "a/b", "", ".", "x y", "lake\u{0}", String(repeating: "a", count: 200)] {
            XCTAssertThrowsError(try catalog.createDatabase(GlueDatabase(name: bad)), bad) {
                XCTAssertEqual($0 as? ExternalCatalogError, .invalidName(bad))
            }
        }
        try catalog.createDatabase(GlueDatabase(name: "Lake"))
        XCTAssertEqual(try catalog.database("LAKE")?.name, "lake")
        XCTAssertThrowsError(try catalog.createTable("lake", sales("../../etc/passwd")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), ["lake"])
    }
}
