// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// Loads TPC-H `.tbl` files (pipe-delimited, trailing `|`): the checked-in SF 0.01
/// region/nation fixtures always, the other tables when `../shared/tpch` exists.
final class TPCHLoadTests: XCTestCase {
    static let schemas: [String: [ColumnDef]] = [
        "region": [col("r_regionkey", .integer, notNull: true), col("r_name", .char(25), notNull: true),
                   col("r_comment", .varchar(152))],
        "nation": [col("n_nationkey", .integer, notNull: true), col("n_name", .char(25), notNull: true),
                   col("n_regionkey", .integer, notNull: true), col("n_comment", .varchar(152))],
        "part": [col("p_partkey", .integer, notNull: true), col("p_name", .varchar(55)), col("p_mfgr", .char(25)),
                 col("p_brand", .char(10)), col("p_type", .varchar(25)), col("p_size", .integer),
                 col("p_container", .char(10)), col("p_retailprice", .decimal(precision: 15, scale: 2)),
                 col("p_comment", .varchar(23))],
        "supplier": [col("s_suppkey", .integer, notNull: true), col("s_name", .char(25)), col("s_address", .varchar(40)),
                     col("s_nationkey", .integer), col("s_phone", .char(15)),
                     col("s_acctbal", .decimal(precision: 15, scale: 2)), col("s_comment", .varchar(101))],
        "partsupp": [col("ps_partkey", .integer, notNull: true), col("ps_suppkey", .integer, notNull: true),
                     col("ps_availqty", .integer), col("ps_supplycost", .decimal(precision: 15, scale: 2)),
                     col("ps_comment", .varchar(199))],
        "customer": [col("c_custkey", .integer, notNull: true), col("c_name", .varchar(25)), col("c_address", .varchar(40)),
                     col("c_nationkey", .integer), col("c_phone", .char(15)),
                     col("c_acctbal", .decimal(precision: 15, scale: 2)), col("c_mktsegment", .char(10)),
                     col("c_comment", .varchar(117))],
        "orders": [col("o_orderkey", .bigint, notNull: true), col("o_custkey", .integer), col("o_orderstatus", .char(1)),
                   col("o_totalprice", .decimal(precision: 15, scale: 2)), col("o_orderdate", .date),
                   col("o_orderpriority", .char(15)), col("o_clerk", .char(15)), col("o_shippriority", .integer),
                   col("o_comment", .varchar(79))],
        "lineitem": [col("l_orderkey", .bigint, notNull: true), col("l_partkey", .integer), col("l_suppkey", .integer),
                     col("l_linenumber", .integer), col("l_quantity", .decimal(precision: 15, scale: 2)),
                     col("l_extendedprice", .decimal(precision: 15, scale: 2)),
                     col("l_discount", .decimal(precision: 15, scale: 2)), col("l_tax", .decimal(precision: 15, scale: 2)),
                     col("l_returnflag", .char(1)), col("l_linestatus", .char(1)), col("l_shipdate", .date),
                     col("l_commitdate", .date), col("l_receiptdate", .date), col("l_shipinstruct", .char(25)),
                     col("l_shipmode", .char(10)), col("l_comment", .varchar(44))],
    ]

    static let rowCounts = ["lineitem": 60175, "orders": 15000, "customer": 1500, "part": 2000,
                            "partsupp": 8000, "supplier": 100, "nation": 25, "region": 5]

    func load(_ table: String, from dir: String, tuning: CopyTuning = CopyTuning()) throws -> CopyResult {
        let columns = try XCTUnwrap(Self.schemas[table])
        return try CopyLoader.load(table: table, columns: columns, source: dir + "/\(table).tbl",
                                   options: CopyOptions(), tuning: tuning, context: QueryContext())
    }

    func testRegionAndNationFixtures() throws {
        let region = try load("region", from: fixturesDirectory)
        XCTAssertEqual(region.rowCount, 5)
        XCTAssertEqual(rows(region)[0][0...1], [.int(0), .string("AFRICA")])
        let nation = try load("nation", from: fixturesDirectory)
        XCTAssertEqual(nation.rowCount, 25)
        let last = rows(nation)[24]
        XCTAssertEqual(last[0...2], [.int(24), .string("UNITED STATES"), .int(1)])
        XCTAssertTrue(last[3].asString?.hasPrefix("y final packages") ?? false, "\(last[3])")
    }

    func testAllTablesAtSF001() throws {
        let dir = sharedTPCHDirectory
        guard FileManager.default.fileExists(atPath: dir + "/lineitem.tbl") else {
            throw XCTSkip("TPC-H SF 0.01 data not found at \(dir)")
        }
        for (table, count) in Self.rowCounts.sorted(by: { $0.key < $1.key }) {
            let r = try load(table, from: dir)
            XCTAssertEqual(r.rowCount, count, table)
            XCTAssertEqual(r.chunks.reduce(0) { $0 + $1.count }, count, table)
            XCTAssertTrue(r.rejected.isEmpty, table)
            for chunk in r.chunks {
                XCTAssertEqual(chunk.columns.count, Self.schemas[table]?.count, table)
                for v in chunk.columns { XCTAssertEqual(v.count, chunk.count, table) }
            }
        }
    }

    func testLineitemValuesAndParallelConsistency() throws {
        let dir = sharedTPCHDirectory
        guard FileManager.default.fileExists(atPath: dir + "/lineitem.tbl") else {
            throw XCTSkip("TPC-H SF 0.01 data not found at \(dir)")
        }
        let serial = try load("lineitem", from: dir, tuning: CopyTuning(workers: 1))
        let parallel = try load("lineitem", from: dir, tuning: CopyTuning(chunkRows: 10_000, rangeBytes: 300 << 10, workers: 4))
        let a = rows(serial), b = rows(parallel)
        XCTAssertEqual(a.count, 60175)
        XCTAssertEqual(a, b)
        // 1|1552|93|1|17|24710.35|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|
        XCTAssertEqual(a[0], [.int(1), .int(1552), .int(93), .int(1), .int(1700), .int(2_471_035), .int(4), .int(2),
                              .string("N"), .string("O"), .int(DateTime.days(year: 1996, month: 3, day: 13)),
                              .int(DateTime.days(year: 1996, month: 2, day: 12)),
                              .int(DateTime.days(year: 1996, month: 3, day: 22)), .string("DELIVER IN PERSON"),
                              .string("TRUCK"), .string("egular courts above the")])
        // Sum of l_quantity (scaled by 100) as a cross-check of every decimal parsed.
        var qty: Int64 = 0
        for chunk in serial.chunks { if case .int64(let q) = chunk.columns[4].data { qty += q.reduce(0, +) } }
        XCTAssertEqual(qty, 153_612_700)
    }

    /// Not a test of speed (no timing assertions): prints the load rate of lineitem.
    func testLineitemThroughputReport() throws {
        let dir = sharedTPCHDirectory
        guard FileManager.default.fileExists(atPath: dir + "/lineitem.tbl") else {
            throw XCTSkip("TPC-H SF 0.01 data not found at \(dir)")
        }
        _ = try load("lineitem", from: dir)
        var best = Double.infinity
        var bytes = 0
        for _ in 0..<2 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let r = try load("lineitem", from: dir)
            let dt = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            best = min(best, dt)
            bytes = r.bytesRead
        }
        print(String(format: "COPY lineitem.tbl: %d bytes in %.1f ms = %.1f MB/s", bytes, best * 1000,
                     Double(bytes) / best / 1e6))
    }
}
