// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseEngine
import SlicehouseTypes
import SlicehouseParquet

/// COPY ... FORMAT PARQUET SERIALIZETOJSON of nested columns (structs, lists, maps)
/// written by pyarrow into SUPER columns: the exact JSON, PartiQL navigation and
/// unnesting over it, JSON text into VARCHAR, pages and row groups, v2 data pages, and
/// damaged files failing the whole COPY.
final class NestedParquetCopyTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-pqnested-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        try s.execute(sql)[0].textRows()
    }

    static let writer = #"""
import sys, json, datetime, decimal, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
order = pa.struct([("k", pa.int64()), ("price", pa.decimal128(10, 2)), ("day", pa.date32())])
t = pa.table({
    "id": pa.array([1, 2, 3, 4], pa.int32()),
    "addr": pa.array([{"city": "Paris", "zip": "75001"}, None, {"city": None, "zip": "x\"y\n"}, {"city": "Oslo", "zip": None}],
                     pa.struct([("city", pa.string()), ("zip", pa.string())])),
    "orders": pa.array([[{"k": 10, "price": decimal.Decimal("12.50"), "day": datetime.date(2024, 1, 5)},
                         {"k": 11, "price": decimal.Decimal("-7.00"), "day": None}], [], None, [None]], pa.list_(order)),
    "grid": pa.array([[[1, 2], [3]], [[], None], None, [None, [4]]], pa.list_(pa.list_(pa.int16()))),
    "attrs": pa.array([[("a", 1), ("b", None)], [], None, [("z", 26)]], pa.map_(pa.string(), pa.int64())),
    "nums": pa.array([[1, None, 3], None, [], [None]], pa.list_(pa.int32())),
})
for version in ["1.0", "2.0"]:
    pq.write_table(t, out + "/nested_v%s.parquet" % version[0], data_page_version=version)
pq.write_table(t, out + "/plain.parquet", compression="none", use_dictionary=False)

# Leaf types inside a struct.
scalars = pa.table({
    "v": pa.array([{"f": 1.5, "d": float("nan"), "b": True, "ts": datetime.datetime(2024, 1, 5, 10, 0, 0),
                    "us": datetime.datetime(2024, 1, 5, 10, 0, 0, 250000), "bin": b"\x01ab", "u": 2**64 - 1,
                    "w": decimal.Decimal("123456789012345678901234.56789"), "e": ""},
                   {"f": float("inf"), "d": -0.25, "b": False, "ts": None, "us": None, "bin": None, "u": 0,
                    "w": decimal.Decimal("-0.00001"), "e": None}],
                  pa.struct([("f", pa.float32()), ("d", pa.float64()), ("b", pa.bool_()), ("ts", pa.timestamp("ms")),
                             ("us", pa.timestamp("us")), ("bin", pa.binary()), ("u", pa.uint64()),
                             ("w", pa.decimal128(30, 5)), ("e", pa.string())])),
})
pq.write_table(scalars, out + "/scalars.parquet")

# Many rows: several pages and row groups; the expected JSON printed for the test.
n = 5000
items = []
for i in range(n):
    if i % 7 == 0:
        items.append(None)
    else:
        items.append([{"sku": "s%d" % (i * 10 + j), "qty": (i + j) % 5 if j % 3 else None} for j in range(i % 4)])
big = pa.table({"id": pa.array(range(n), pa.int64()),
                "items": pa.array(items, pa.list_(pa.struct([("sku", pa.string()), ("qty", pa.int32())])))})
pq.write_table(big, out + "/big.parquet", row_group_size=1200, data_page_size=512, write_batch_size=64)
md = pq.ParquetFile(out + "/big.parquet").metadata
expected = [None if v is None else json.dumps(v, separators=(",", ":")) for v in items]
print(json.dumps({"row_groups": md.num_row_groups, "expected": expected}))
"""#

    func writeFiles() throws -> (rowGroups: Int, expected: [String?]) {
        let python = try InteropPython.require("pyarrow")
        let out = try InteropPython.run(python, Self.writer, [dir.path])
        struct Meta: Decodable { var row_groups: Int; var expected: [String?] }
        let meta = try JSONDecoder().decode(Meta.self, from: Data(out.utf8))
        return (meta.row_groups, meta.expected)
    }

    func session() throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table n (id int, addr super, orders super, grid super, attrs super, nums super);
            """)
        return s
    }

    static let expectedRows: [[String?]] = [
        ["1", #"{"city":"Paris","zip":"75001"}"#, #"[{"k":10,"price":12.50,"day":"2024-01-05"},{"k":11,"price":-7.00,"day":null}]"#,
         "[[1,2],[3]]", #"{"a":1,"b":null}"#, "[1,null,3]"],
        ["2", nil, "[]", "[[],null]", "{}", nil],
        ["3", #"{"city":null,"zip":"x\"y\n"}"#, nil, nil, nil, "[]"],
        ["4", #"{"city":"Oslo","zip":null}"#, "[null]", "[null,[4]]", #"{"z":26}"#, "[null]"],
    ]

    func testNestedColumnsLoadIntoSuperAsJSON() throws {
        _ = try writeFiles()
        let s = try session()
        for file in ["nested_v1.parquet", "nested_v2.parquet", "plain.parquet"] {
            _ = try s.execute("truncate n")
            XCTAssertEqual(try s.execute("copy n from '\(path(file))' format as parquet serializetojson")[0].tag, "COPY 4", file)
            XCTAssertEqual(try rows(s, "select * from n order by id"), Self.expectedRows, file)
        }
        // Navigation, map members, and unnesting in FROM at two levels.
        XCTAssertEqual(try rows(s, "select n.id, n.addr.city, n.attrs.a, n.orders[0].k, n.grid[0][1] from n order by 1"),
                       [["1", #""Paris""#, "1", "10", "2"], ["2", nil, nil, nil, nil], ["3", nil, nil, nil, nil],
                        ["4", #""Oslo""#, nil, nil, nil]])
        XCTAssertEqual(try rows(s, "select n.id, o.k, o.price, o.day::date from n, n.orders o where o.k is not null order by 1, 2"),
                       [["1", "10", "12.50", "2024-01-05"], ["1", "11", "-7.00", nil]])
        XCTAssertEqual(try rows(s, "select n.id, i, g, g[0] from n, n.grid g at i order by 1, 2"),
                       [["1", "0", "[1,2]", "1"], ["1", "1", "[3]", "3"], ["2", "0", "[]", nil], ["2", "1", nil, nil],
                        ["4", "0", nil, nil], ["4", "1", "[4]", "4"]])
        XCTAssertEqual(try rows(s, "select n.id, sum(v::int) from n, n.nums v group by 1 order by 1"), [["1", "4"], ["4", nil]])
        XCTAssertEqual(try rows(s, "select json_typeof(attrs), json_typeof(grid) from n where id = 1"), [["object", "array"]])
    }

    func testSerializeToJSONIsRequiredForNestedColumns() throws {
        _ = try writeFiles()
        let s = try session()
        _ = try s.execute("insert into n (id) values (99)")
        XCTAssertThrowsError(try s.execute("copy n from '\(path("nested_v1.parquet"))' format as parquet")) { e in
            let detail = (e as? SQLError)?.detail ?? "\(e)"
            XCTAssertTrue(detail.contains("column addr (position 1)"), detail)
            XCTAssertTrue(detail.contains("only with SERIALIZETOJSON"), detail)
            XCTAssertTrue(detail.contains("[15007]"), detail)
        }
        // Into a column of another type, even with SERIALIZETOJSON.
        _ = try s.execute("create table wrong (id int, addr int, orders super, grid super, attrs super, nums super)")
        XCTAssertThrowsError(try s.execute("copy wrong from '\(path("nested_v1.parquet"))' format as parquet serializetojson")) { e in
            let detail = (e as? SQLError)?.detail ?? "\(e)"
            XCTAssertTrue(detail.contains("column addr (position 1)"), detail)
            XCTAssertTrue(detail.contains("loads only into a SUPER column"), detail)
        }
        XCTAssertEqual(try rows(s, "select id from n"), [["99"]])
        // Only with PARQUET.
        XCTAssertThrowsError(try s.execute("copy n from '\(path("x.csv"))' csv serializetojson"))
    }

    func testSerializeToJSONIntoVarcharAndFlatColumnsIntoSuper() throws {
        _ = try writeFiles()
        let s = try session()
        _ = try s.execute("create table t (id super, addr varchar(100), orders varchar(200), grid varchar(20), attrs varchar(30), nums varchar(20))")
        XCTAssertEqual(try s.execute("copy t from '\(path("nested_v1.parquet"))' format as parquet serializetojson")[0].tag, "COPY 4")
        XCTAssertEqual(try rows(s, "select * from t order by id"), Self.expectedRows)
        XCTAssertEqual(try rows(s, "select json_typeof(id) from t order by id limit 1"), [["number"]])
        // Too long for the VARCHAR: the row and the JSON text are reported; nothing loads.
        _ = try s.execute("create table short (id int, addr varchar(100), orders varchar(20), grid varchar(20), attrs varchar(30), nums varchar(20))")
        XCTAssertThrowsError(try s.execute("copy short from '\(path("nested_v1.parquet"))' format as parquet serializetojson")) { e in
            let detail = (e as? SQLError)?.detail ?? "\(e)"
            XCTAssertTrue(detail.contains("column orders (position 2)"), detail)
            XCTAssertTrue(detail.contains("exceeds DDL length"), detail)
        }
        XCTAssertEqual(try rows(s, "select line_number, trim(colname) from stl_load_errors where query = pg_last_copy_id()"),
                       [["1", "orders"]])
        XCTAssertEqual(try rows(s, "select count(*) from short"), [["0"]])
    }

    func testLeafTypesRenderAsJSON() throws {
        _ = try writeFiles()
        let s = try Database().connect()
        _ = try s.execute("create table sc (v super)")
        _ = try s.execute("copy sc from '\(path("scalars.parquet"))' format as parquet serializetojson")
        XCTAssertEqual(try rows(s, "select v from sc").sorted { ($0[0] ?? "") < ($1[0] ?? "") }, [
            [#"{"f":1.5,"d":null,"b":true,"ts":"2024-01-05 10:00:00","us":"2024-01-05 10:00:00.25","bin":"\u0001ab","u":18446744073709551615,"w":123456789012345678901234.56789,"e":""}"#],
            [#"{"f":null,"d":-0.25,"b":false,"ts":null,"us":null,"bin":null,"u":0,"w":-0.00001,"e":null}"#],
        ])
    }

    func testManyPagesAndRowGroups() throws {
        let (groups, expected) = try writeFiles()
        XCTAssertGreaterThan(groups, 3)
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table big (id bigint, items super)")
        XCTAssertEqual(try s.execute("copy big from '\(path("big.parquet"))' format as parquet serializetojson")[0].tag, "COPY 5000")
        let got = try rows(s, "select items from big order by id")
        XCTAssertEqual(got.count, expected.count)
        for (i, row) in got.enumerated() where row.first ?? nil != expected[i] {
            XCTFail("row \(i): \(String(describing: row.first ?? nil)) != \(String(describing: expected[i]))")
            break
        }
        let elements = expected.reduce(0) { n, e in
            n + (e.map { $0.components(separatedBy: "\"sku\"").count - 1 } ?? 0)
        }
        XCTAssertEqual(try rows(s, "select count(*) from big b, b.items i"), [[String(elements)]])
        XCTAssertEqual(try rows(s, "select i.sku from big b, b.items i where b.id = 4997"),
                       [[#""s49970""#]])
    }

    func testDamagedNestedFilesFailTheWholeCopy() throws {
        _ = try writeFiles()
        let s = try session()
        let good = try Data(contentsOf: URL(fileURLWithPath: path("plain.parquet")))
        // Truncated: the footer is gone.
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path("bad.parquet")))
        XCTAssertThrowsError(try s.execute("copy n from '\(path("bad.parquet"))' format as parquet serializetojson")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("[15001]") ?? false, "\(e)")
        }
        // Every byte of the data area overwritten in turn (footer intact): a clean error or
        // a load, never a crash; a failure loads nothing.
        let footer = Int(good[good.count - 8]) | Int(good[good.count - 7]) << 8 | Int(good[good.count - 6]) << 16
        var failures = 0
        for i in stride(from: 4, to: good.count - 8 - footer, by: 3) {
            var bad = good
            bad[i] = bad[i] ^ 0xFF
            try bad.write(to: URL(fileURLWithPath: path("bad.parquet")))
            _ = try s.execute("truncate n")
            do {
                _ = try s.execute("copy n from '\(path("bad.parquet"))' format as parquet serializetojson")
            } catch {
                failures += 1
                let e = error
                XCTAssertEqual(try rows(s, "select count(*) from n"), [["0"]], "byte \(i): \(e)")
            }
        }
        XCTAssertGreaterThan(failures, 0)
    }
}
