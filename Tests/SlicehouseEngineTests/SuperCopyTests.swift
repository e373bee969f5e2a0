// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// SUPER loaded by COPY: nested JSON shredded into SUPER columns (`JSON 'auto'`), whole
/// documents (`JSON 'noshred'`), JSON text in CSV fields; then PartiQL queries over it.
final class SuperCopyTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-super-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ text: String) throws -> String {
        let p = dir.appendingPathComponent(name)
        try text.write(to: p, atomically: true, encoding: .utf8)
        return p.path
    }

    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        try s.execute(sql)[0].textRows()
    }

    /// Redshift's customer_orders_lineitem shape: customers with nested orders with nested line items.
    static let customers = """
    {"c_custkey": 1, "c_name": "Customer#1", "c_address": {"city": "Paris", "zip": "75001"},
     "c_orders": [{"o_orderkey": 10, "o_orderdate": "2024-01-05", "o_totalprice": 12.5,
                   "o_lineitems": [{"l_partkey": 5, "l_quantity": 3}, {"l_partkey": 6, "l_quantity": 1}]},
                  {"o_orderkey": 11, "o_orderdate": "2024-02-01", "o_totalprice": 7, "o_lineitems": []}]}
    {"c_custkey": 2, "c_name": "Customer \\"Two\\"", "c_address": null, "c_orders": []}
    {"c_custkey": 3, "c_name": "Three", "c_orders": [{"o_orderkey": 30, "o_orderdate": "2024-03-09", "o_totalprice": 1.25,
     "o_lineitems": [{"l_partkey": 5, "l_quantity": 2}]}]}

    """

    func testJSONAutoLoadsNestedValuesIntoSuperColumns() throws {
        let path = try write("customers.json", Self.customers)
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table customer_orders_lineitem (c_custkey int, c_name varchar(30), c_address super, c_orders super)")
        XCTAssertEqual(try s.execute("copy customer_orders_lineitem from '\(path)' format json 'auto'")[0].tag, "COPY 3")
        XCTAssertEqual(try rows(s, "select c_custkey, c_name, c_address, json_typeof(c_orders) from customer_orders_lineitem order by 1"),
                       [["1", "Customer#1", #"{"city":"Paris","zip":"75001"}"#, "array"],
                        ["2", #"Customer "Two""#, nil, "array"],
                        ["3", "Three", nil, "array"]])
        // Navigation, unnesting at two levels, dynamic typing.
        XCTAssertEqual(try rows(s, "select c.c_address.city, c.c_orders[0].o_orderkey from customer_orders_lineitem c where c.c_custkey = 1"),
                       [[#""Paris""#, "10"]])
        XCTAssertEqual(try rows(s, """
            select c.c_custkey, o.o_orderkey, o.o_orderdate::date, l.l_partkey, l.l_quantity::int
            from customer_orders_lineitem c, c.c_orders o, o.o_lineitems l order by 1, 2, 4
            """),
                       [["1", "10", "2024-01-05", "5", "3"], ["1", "10", "2024-01-05", "6", "1"], ["3", "30", "2024-03-09", "5", "2"]])
        XCTAssertEqual(try rows(s, """
            select l.l_partkey, sum(l.l_quantity::int) from customer_orders_lineitem c, c.c_orders o, o.o_lineitems l
            where o.o_totalprice > 5 group by 1 order by 1
            """), [["5", "3"], ["6", "1"]])
        XCTAssertEqual(try rows(s, "select count(*) from customer_orders_lineitem c, c.c_orders o at i where i = 1"), [["1"]])
    }

    func testNoshredLoadsWholeDocuments() throws {
        let path = try write("customers.json", Self.customers)
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2)).connect()
        _ = try s.execute("create table region_docs (rdata super)")
        XCTAssertEqual(try s.execute("copy region_docs from '\(path)' format json 'noshred'")[0].tag, "COPY 3")
        XCTAssertEqual(try rows(s, "select rdata.c_name::varchar, get_array_length(rdata.c_orders) from region_docs order by rdata.c_custkey::int"),
                       [["Customer#1", "2"], [#"Customer "Two""#, "0"], ["Three", "1"]])
        XCTAssertEqual(try rows(s, "select sum(o.o_totalprice::decimal(10,2)) from region_docs d, d.rdata.c_orders o"), [["20.75"]])
        // noshred needs exactly one SUPER column.
        _ = try s.execute("create table two (a super, b int)")
        XCTAssertThrowsError(try s.execute("copy two from '\(path)' format json 'noshred'")) { e in
            XCTAssertTrue("\(e)".contains("noshred"), "\(e)")
        }
    }

    func testCSVFieldsAreJSONAndBadJSONNamesFileLineAndColumn() throws {
        let good = try write("docs.csv", "1,\"{\"\"a\"\": [1, 2]}\"\n2,\"\"\"text\"\"\"\n3,42\n4,\n")
        let s = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 2)).connect()
        _ = try s.execute("create table docs (id int, d super)")
        XCTAssertEqual(try s.execute("copy docs from '\(good)' csv")[0].tag, "COPY 4")
        XCTAssertEqual(try rows(s, "select id, d, json_typeof(d) from docs order by id"),
                       [["1", #"{"a":[1,2]}"#, "object"], ["2", #""text""#, "string"], ["3", "42", "number"], ["4", nil, nil]])
        let bad = try write("bad.csv", "5,\"{\"\"a\"\": 1}\"\n6,{not json}\n")
        XCTAssertThrowsError(try s.execute("copy docs from '\(bad)' csv")) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("bad.csv") || text.contains("stl_load_errors"), text)
        }
        // The failed COPY left nothing behind; STL_LOAD_ERRORS has the line and column.
        XCTAssertEqual(try rows(s, "select count(*) from docs"), [["4"]])
        let err = try rows(s, "select line_number, trim(colname), err_code from stl_load_errors order by starttime desc limit 1")
        XCTAssertEqual(err, [["2", "d", "1224"]])
    }
}
