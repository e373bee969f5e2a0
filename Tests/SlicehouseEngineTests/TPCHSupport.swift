// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseEngine
import SlicehouseTypes
import SlicehouseDatagen

/// TPC-H fixtures shipped in datasets/tpch and helpers to load and check them.
enum TPCH {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("datasets/tpch")
    }
    static let tables = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]

    /// SF 0.01 `.tbl` files written by the project's own generator (byte-identical to
    /// TPC's dbgen), shared by every test process of this user: generated into a private
    /// directory that is then renamed into place, so a finished directory is complete and
    /// repeated test runs do not leave a copy each in the temporary directory.
    static let dataDirectory: String = {
        let fm = FileManager.default
        let tmp = fm.temporaryDirectory
        let dir = tmp.appendingPathComponent("slicehouse-tpch-sf0.01-\(getuid())").path
        func complete() -> Bool {
            TPCHTable.allCases.allSatisfy { fm.fileExists(atPath: dir + "/\($0.rawValue).tbl") }
        }
        if complete() { return dir }
        let scratch = tmp.appendingPathComponent("slicehouse-tpch-sf0.01-\(getuid())-\(ProcessInfo.processInfo.processIdentifier)").path
        do {
            try? fm.removeItem(atPath: scratch)
            try fm.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            _ = try TPCHGenerator(scaleFactor: 0.01).writeTables(TPCHTable.allCases, to: scratch)
            // The rename fails when another process finished first: use its copy.
            if rename(scratch, dir) != 0 {
                guard complete() else { return scratch }
                try? fm.removeItem(atPath: scratch)
            }
        } catch {
            XCTFail("could not generate TPC-H SF 0.01 data: \(error)")
            return scratch
        }
        return dir
    }()

    enum Placement: String, CaseIterable { case keyed, even, all, auto }

    /// The schema with documented DISTKEY/SORTKEY choices (`keyed`), or one DISTSTYLE for every table.
    static func schema(_ p: Placement) -> [String] {
        func attrs(_ key: String?, _ sort: String?, small: Bool = false) -> String {
            switch p {
            case .keyed:
                let dist = small ? " DISTSTYLE ALL" : (key.map { " DISTKEY(\($0))" } ?? " DISTSTYLE EVEN")
                return dist + (sort.map { " SORTKEY(\($0))" } ?? "")
            case .even: return " DISTSTYLE EVEN" + (sort.map { " SORTKEY(\($0))" } ?? "")
            case .all: return " DISTSTYLE ALL"
            case .auto: return ""
            }
        }
        return [
            "CREATE TABLE region (r_regionkey INTEGER NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152))" + attrs(nil, nil, small: true),
            "CREATE TABLE nation (n_nationkey INTEGER NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey INTEGER NOT NULL, n_comment VARCHAR(152))" + attrs(nil, nil, small: true),
            "CREATE TABLE supplier (s_suppkey INTEGER NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, s_nationkey INTEGER NOT NULL, s_phone CHAR(15) NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL)" + attrs(nil, nil, small: true),
            "CREATE TABLE customer (c_custkey INTEGER NOT NULL, c_name VARCHAR(25) NOT NULL, c_address VARCHAR(40) NOT NULL, c_nationkey INTEGER NOT NULL, c_phone CHAR(15) NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL)" + attrs("c_custkey", nil),
            "CREATE TABLE part (p_partkey INTEGER NOT NULL, p_name VARCHAR(55) NOT NULL, p_mfgr CHAR(25) NOT NULL, p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INTEGER NOT NULL, p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL)" + attrs("p_partkey", nil),
            "CREATE TABLE partsupp (ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL, ps_availqty INTEGER NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL)" + attrs("ps_partkey", nil),
            "CREATE TABLE orders (o_orderkey INTEGER NOT NULL, o_custkey INTEGER NOT NULL, o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL, o_shippriority INTEGER NOT NULL, o_comment VARCHAR(79) NOT NULL)" + attrs("o_orderkey", "o_orderdate"),
            "CREATE TABLE lineitem (l_orderkey INTEGER NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL)" + attrs("l_orderkey", "l_shipdate"),
        ]
    }

    /// A database with the SF 0.01 data loaded by COPY.
    static func load(_ p: Placement, cluster: ClusterConfig) throws -> Session {
        let db = try Database(cluster: cluster)
        let s = db.connect()
        for ddl in schema(p) { _ = try s.execute(ddl) }
        let dir = dataDirectory
        for t in tables {
            _ = try s.execute("COPY \(t) FROM '\(dir)/\(t).tbl' DELIMITER '|'")
        }
        return s
    }

    static func query(_ n: Int) throws -> String {
        try String(contentsOf: root.appendingPathComponent(String(format: "queries/q%02d.sql", n)), encoding: .utf8)
    }

    /// Compare a result with the reference answer as TPC-H validation does:
    /// a decimal with k places within 10^-k, floats within a relative 1e-6, text exactly (CHAR padding aside).
    static func check(_ result: StatementResult, answer n: Int, scale: String = "sf0.01", file: StaticString = #filePath, line: UInt = #line) throws {
        let text = try String(contentsOf: root.appendingPathComponent(String(format: "answers/\(scale)/q%02d.csv", n)), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let header = lines.removeFirst().split(separator: "|").map(String.init)
        // The answers were computed by DuckDB, which names `sum(l_quantity)` after the whole
        // expression; PostgreSQL and Redshift name it after the function (`sum`).
        let names = result.columns.map { $0.name }
        XCTAssertEqual(names.count, header.count, "Q\(n) column count", file: file, line: line)
        for (g, w) in zip(names, header) where g != w && !w.hasPrefix(g + "(") {
            XCTFail("Q\(n) column \(g) should be \(w)", file: file, line: line)
        }
        let rows = result.textRows()
        XCTAssertEqual(rows.count, lines.count, "Q\(n) row count", file: file, line: line)
        for (r, (got, want)) in zip(rows, lines).enumerated() {
            let wantFields = want.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(got.count, wantFields.count, "Q\(n) row \(r) width", file: file, line: line)
            for (c, (g, w)) in zip(got, wantFields).enumerated() {
                let type = result.columns[c].type
                let gs = g ?? "NULL"
                if !matches(gs, w, type) {
                    XCTFail("Q\(n) row \(r + 1) column \(header[c]): got \(gs), want \(w)", file: file, line: line)
                    return
                }
            }
        }
    }

    static func matches(_ got: String, _ want: String, _ type: DataType) -> Bool {
        if got == want { return true }
        switch type {
        case .decimal(_, let s):
            guard let g = Double(got), let w = Double(want) else { return false }
            return abs(g - w) < pow(10, Double(-s)) * 1.000001 || (s == 0 && abs(g - w) < 1)
        case .real, .double:
            guard let g = Double(got), let w = Double(want) else { return false }
            return abs(g - w) <= max(abs(w), 1e-300) * 1e-6
        case .char, .varchar:
            return got.replacingOccurrences(of: " +$", with: "", options: .regularExpression)
                == want.replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        case .bigint, .integer, .smallint:
            // DuckDB's AVG is a double; ours (integer input) is an integer.
            guard let g = Double(got), let w = Double(want) else { return false }
            return abs(g - w) < 1
        default:
            return false
        }
    }
}
