// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseLake

/// Hive's type names both ways, and Hive-style partition folders as Spark and UNLOAD
/// write them.
final class HiveTypesTests: XCTestCase {
    func testHiveTypesBecomeSlicehouseTypes() throws {
        let cases: [(String, DataType)] = [
            ("tinyint", .smallint), ("smallint", .smallint), ("int", .integer), ("INTEGER", .integer),
            ("bigint", .bigint), ("long", .bigint), ("float", .real), ("double", .double),
            ("boolean", .boolean), ("date", .date), ("timestamp", .timestamp),
            ("string", .varchar(65535)), ("varchar(20)", .varchar(20)), ("char(3)", .char(3)),
            ("decimal(12,2)", .decimal(precision: 12, scale: 2)), ("decimal( 5 , 1 )", .decimal(precision: 5, scale: 1)),
            ("decimal", .decimal(precision: 10, scale: 0)), ("binary", .varbyte(1_024_000)),
            ("array<int>", .superType), ("struct<a:int,b:array<string>>", .superType), ("map<string,int>", .superType),
        ]
        for (hive, type) in cases { XCTAssertEqual(try HiveTypes.dataType(hive), type, hive) }
        for bad in ["uniontype<int,string>", "decimal(40,2)", "varchar", "int(3)", "array<int", "interval", "decimal(a)"] {
            XCTAssertThrowsError(try HiveTypes.dataType(bad, column: "c"), bad)
        }
        XCTAssertThrowsError(try HiveTypes.dataType("uniontype<int>", column: "price")) { e in
            XCTAssertTrue("\(e)".contains("\"price\""), "\(e)")
        }
    }

    func testSlicehouseTypesRoundTripThroughHive() throws {
        for t: DataType in [.smallint, .integer, .bigint, .decimal(precision: 12, scale: 2), .real, .double, .boolean,
                            .char(4), .varchar(30), .date, .timestamp] {
            let hive = try XCTUnwrap(HiveTypes.hiveName(t), "\(t)")
            XCTAssertEqual(try HiveTypes.dataType(hive), t, hive)
        }
        XCTAssertNil(HiveTypes.hiveName(.timetz))
        XCTAssertEqual(HiveTypes.hiveName(.integer), "int")
    }

    func testPartitionFolders() {
        XCTAssertEqual(HivePartitionPath.path(keys: ["year", "region"], values: ["2024", "eu/west"]), "year=2024/region=eu%2Fwest/")
        XCTAssertEqual(HivePartitionPath.path(keys: ["k"], values: [nil]), "k=__HIVE_DEFAULT_PARTITION__/")
        XCTAssertEqual(HivePartitionPath.path(keys: ["k"], values: ["a=b:c%d é"]), "k=a%3Db%3Ac%25d é/")
        XCTAssertEqual(HivePartitionPath.values("year=2024/region=eu%2Fwest/", keys: ["year", "region"]) ?? [], ["2024", "eu/west"])
        XCTAssertEqual(HivePartitionPath.values("year=2024/region=__HIVE_DEFAULT_PARTITION__", keys: ["year", "region"]) ?? [],
                       ["2024", nil])
        XCTAssertEqual(HivePartitionPath.values("YEAR=1/", keys: ["year"]) ?? [], ["1"])
        XCTAssertNil(HivePartitionPath.values("year=2024/", keys: ["year", "region"]))
        XCTAssertNil(HivePartitionPath.values("month=1/", keys: ["year"]))
        XCTAssertNil(HivePartitionPath.values("year=%zz/", keys: ["year"]))
        XCTAssertNil(HivePartitionPath.values("year=%FF/", keys: ["year"]))
        for v in ["plain", "with/slash", "100%", "a=b", "tab\there", "ünï"] {
            let path = HivePartitionPath.path(keys: ["k"], values: [v])
            XCTAssertEqual(HivePartitionPath.values(path, keys: ["k"]) ?? [], [v], path)
        }
    }
}
