// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine

/// `slicehouse datagen tpch --format parquet`: one Parquet file per table holding the
/// same rows, in the same order, as the .tbl file.
final class DatagenParquetTests: XCTestCase {
    func testParquetFilesHoldTheTblRows() throws {
        guard let exe = CrashTests.executable() else {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("the slicehouse executable was not built"); return }
            throw XCTSkip("build the slicehouse executable first (swift build)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-dgpq-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tbl = (work as NSString).appendingPathComponent("tbl"), pq = (work as NSString).appendingPathComponent("pq")
        for (dir, format) in [(tbl, "tbl"), (pq, "parquet")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = ["datagen", "tpch", "--sf", "0.01", "--output", dir, "--format", format, "--tables", "nation,supplier,orders"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, format)
        }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: pq)),
                       ["nation.parquet", "supplier.parquet", "orders.parquet"])
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 1)).connect()
        for t in ["nation", "supplier", "orders"] {
            let cols: String
            switch t {
            case "nation": cols = "(n_nationkey int, n_name char(25), n_regionkey int, n_comment varchar(152))"
            case "supplier": cols = "(s_suppkey int, s_name char(25), s_address varchar(40), s_nationkey int, s_phone char(15), s_acctbal decimal(15,2), s_comment varchar(101))"
            default: cols = "(o_orderkey int, o_custkey int, o_orderstatus char(1), o_totalprice decimal(15,2), o_orderdate date, o_orderpriority char(15), o_clerk char(15), o_shippriority int, o_comment varchar(79))"
            }
            _ = try s.execute("create table \(t)_t \(cols); create table \(t)_p \(cols)")
            _ = try s.execute("copy \(t)_t from '\(tbl)/\(t).tbl'; copy \(t)_p from '\(pq)/\(t).parquet' format as parquet")
            let a = try s.execute("select * from \(t)_t")[0].textRows(), b = try s.execute("select * from \(t)_p")[0].textRows()
            XCTAssertEqual(a.count, b.count, t)
            XCTAssertEqual(a, b, "\(t): same rows in the same order")
        }
    }
}
