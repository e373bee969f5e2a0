// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog
@testable import SlicehousePlanner

/// DPccp's enumeration of csg-cmp pairs: every pair of disjoint connected sets that an
/// edge joins, each unordered pair exactly once. The counts are those of Moerkotte and
/// Neumann (VLDB 2006, Table 1) for chains, cycles, stars and cliques of n inputs.
final class JoinEnumerationTests: XCTestCase {
    /// A graph of `n` inputs (input i produces column i) with an equality per edge.
    func graph(_ n: Int, _ edges: [(Int, Int)]) throws -> Optimizer.JoinGraph {
        let leaves = (0..<n).map { i in
            LogicalPlan.values([[.constant(.int(0), .integer)]], outputs: [PlanColumn(id: i, type: .integer, name: "c\(i)")])
        }
        let preds = edges.map { BoundExpr.binary(.equal, .column($0.0, .integer), .column($0.1, .integer), .boolean) }
        return try XCTUnwrap(Optimizer.JoinGraph(leaves, preds, isEdge: { _ in true }))
    }

    func check(_ g: Optimizer.JoinGraph, expected: Int, file: StaticString = #filePath, line: UInt = #line) {
        let pairs = g.csgCmpPairs()
        XCTAssertEqual(pairs.count, expected, file: file, line: line)
        var seen = Set<UInt64>()
        func connected(_ s: UInt32) -> Bool {
            var reach = UInt32(1) << UInt32(s.trailingZeroBitCount)
            while true {
                let next = reach | (g.neighborhood(reach) & s)
                if next == reach { return reach == s }
                reach = next
            }
        }
        for (a, b) in pairs {
            XCTAssertNotEqual(a, 0, file: file, line: line)
            XCTAssertNotEqual(b, 0, file: file, line: line)
            XCTAssertEqual(a & b, 0, "overlapping pair", file: file, line: line)
            XCTAssertTrue(connected(a) && connected(b), "a part is not connected", file: file, line: line)
            XCTAssertNotEqual(g.neighborhood(a) & b, 0, "no edge between the parts", file: file, line: line)
            let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
            XCTAssertTrue(seen.insert(key).inserted, "pair emitted twice", file: file, line: line)
        }
    }

    func testChain() throws {
        for n in 2...10 {
            check(try graph(n, (0..<(n - 1)).map { ($0, $0 + 1) }), expected: (n * n * n - n) / 6)
        }
    }

    func testCycle() throws {
        for n in 3...10 {
            check(try graph(n, (0..<n).map { ($0, ($0 + 1) % n) }), expected: (n * n * n - 2 * n * n + n) / 2)
        }
    }

    func testStar() throws {
        for n in 2...10 {
            // Input 0 at the centre here; the count is the same wherever it is numbered.
            check(try graph(n, (1..<n).map { (0, $0) }), expected: (n - 1) << (n - 2))
            check(try graph(n, (0..<(n - 1)).map { ($0, n - 1) }), expected: (n - 1) << (n - 2))
        }
    }

    func testClique() throws {
        for n in 2...9 {
            var edges: [(Int, Int)] = []
            for i in 0..<n { for j in (i + 1)..<n { edges.append((i, j)) } }
            var three = 1, two = 1
            for _ in 0..<n { three *= 3 }
            for _ in 0..<(n + 1) { two *= 2 }
            check(try graph(n, edges), expected: (three - two + 1) / 2)
        }
    }

    func testDisconnectedGraphIsNotConnected() throws {
        XCTAssertFalse(try graph(4, [(0, 1), (2, 3)]).isConnected)
        XCTAssertTrue(try graph(4, [(0, 1), (2, 3), (1, 2)]).isConnected)
    }
}

/// The join order dynamic programming chooses, on statistics given as ANALYZE would have
/// collected them.
final class DynamicProgrammingOrderTests: XCTestCase {
    struct Context: PlannerContext {
        var sliceCount: Int { 4 }
        var tables: [String: TableStatistics]
        func statistics(_ table: TableDef) -> TableStatistics {
            tables[table.name] ?? TableStatistics(rows: 0, placement: .even)
        }
    }

    /// A table read: columns `names` with ids from `firstID`, their distinct counts, and
    /// the table's rows and placement.
    struct Table {
        var def: TableDef
        var stats: TableStatistics
        var ids: [String: Int]
        var scan: LogicalPlan

        init(_ name: String, rows: Int, _ placement: TablePlacement, _ columns: [(String, Double)], firstID: Int,
             filter: BoundExpr? = nil) {
            def = TableDef(id: firstID, name: name, columns: columns.map { ColumnDef(name: $0.0, type: .integer) })
            var byColumn: [Int: ColumnStatistics] = [:]
            for (i, c) in columns.enumerated() {
                byColumn[i] = ColumnStatistics(distinct: c.1, nullFraction: 0, min: 0, max: c.1)
            }
            stats = TableStatistics(rows: rows, placement: placement, columns: byColumn)
            var ids: [String: Int] = [:]
            for (i, c) in columns.enumerated() { ids[c.0] = firstID + i }
            self.ids = ids
            let outputs = columns.enumerated().map { PlanColumn(id: firstID + $0.offset, type: .integer, name: $0.element.0) }
            scan = .scan(table: def, alias: name, columns: Array(columns.indices), outputs: outputs,
                         filters: filter.map { [$0] } ?? [])
        }

        func column(_ name: String) -> BoundExpr { .column(ids[name] ?? -1, .integer) }
    }

    func equal(_ a: BoundExpr, _ b: BoundExpr) -> BoundExpr { .binary(.equal, a, b, .boolean) }

    /// Whether some join of `plan` joins exactly the reads of `a` and `b`.
    func joinsDirectly(_ plan: LogicalPlan, _ a: String, _ b: String) -> Bool {
        func name(_ p: LogicalPlan) -> String? {
            switch p {
            case .scan(let t, _, _, _, _): return t.name
            case .filter(let c, _), .project(let c, _, _): return name(c)
            default: return nil
            }
        }
        switch plan {
        case .join(_, let l, let r, _):
            if let x = name(l), let y = name(r), Set([x, y]) == Set([a, b]) { return true }
            return joinsDirectly(l, a, b) || joinsDirectly(r, a, b)
        case .filter(let c, _), .project(let c, _, _):
            return joinsDirectly(c, a, b)
        default:
            return false
        }
    }

    /// TPC-DS q24's shape at SF 1: sales and their returns (a tenth of them) share the
    /// ticket and item of each returned line; the stores of a market, their customers
    /// through the customers' addresses in the stores' zip codes, and the items. The greedy
    /// order starts from sales and the stores and meets the returns last (on the ticket
    /// alone it looks like more rows than the stores keep); dynamic programming sees that
    /// the returns keep a tenth of the sales on the ticket and item together and joins
    /// them first.
    func testSalesMeetTheirReturnsFirst() throws {
        // The distinct counts are those of TPC-DS SF 1. s_market (column id 302) = 8: two
        // of the 12 stores.
        let market = BoundExpr.binary(.equal, .column(302, .integer), .constant(.int(8), .integer), .boolean)
        let sales = Table("sales", rows: 2_880_404, .key(column: 0),
                          [("ss_item", 17_997), ("ss_ticket", 240_000), ("ss_customer", 90_858), ("ss_store", 6)], firstID: 100)
        let returns = Table("returns", rows: 287_867, .key(column: 0), [("sr_item", 17_997), ("sr_ticket", 169_508)], firstID: 200)
        let store = Table("store", rows: 12, .all, [("s_store", 12), ("s_zip", 2), ("s_market", 7)], firstID: 300,
                          filter: market)
        let customer = Table("customer", rows: 100_000, .key(column: 0),
                             [("c_customer", 100_000), ("c_address", 43_282)], firstID: 400)
        let address = Table("address", rows: 50_000, .key(column: 0), [("ca_address", 50_000), ("ca_zip", 3_698)], firstID: 500)
        let item = Table("item", rows: 18_000, .key(column: 0), [("i_item", 18_000)], firstID: 600)
        let context = Context(tables: Dictionary(uniqueKeysWithValues: [sales, returns, store, customer, address, item].map {
            ($0.def.name, $0.stats)
        }))
        let optimizer = Optimizer(context: context, evaluateConstant: { _ in .null })
        let leaves = [sales.scan, returns.scan, store.scan, customer.scan, address.scan, item.scan]
        let predicates = [
            equal(sales.column("ss_ticket"), returns.column("sr_ticket")),
            equal(sales.column("ss_item"), returns.column("sr_item")),
            equal(sales.column("ss_store"), store.column("s_store")),
            equal(sales.column("ss_customer"), customer.column("c_customer")),
            equal(customer.column("c_address"), address.column("ca_address")),
            equal(store.column("s_zip"), address.column("ca_zip")),
            equal(sales.column("ss_item"), item.column("i_item")),
        ]
        let outputs = leaves.flatMap { $0.outputs }
        let greedy = optimizer.greedyJoin(leaves, predicates, outputs: outputs)
        XCTAssertFalse(joinsDirectly(greedy, "sales", "returns"), "\(greedy)")
        let ordered = try XCTUnwrap(optimizer.dynamicProgrammingOrder(leaves, predicates, greedy: greedy))
        XCTAssertTrue(joinsDirectly(ordered, "sales", "returns"), "\(ordered)")
        // Every predicate is applied once, in some join.
        var applied: [BoundExpr] = []
        func collect(_ p: LogicalPlan) {
            switch p {
            case .join(_, let l, let r, let c): applied += conjuncts(c); collect(l); collect(r)
            case .filter(let c, let e): applied += conjuncts(e); collect(c)
            default: break
            }
        }
        collect(ordered)
        XCTAssertEqual(applied.count, predicates.count)
        for p in predicates { XCTAssertTrue(applied.contains(p), "\(p) not applied") }
    }

    /// Without statistics (no ANALYZE) there is nothing to weigh: the greedy order stands.
    func testNoStatisticsNoDynamicProgramming() throws {
        let a = Table("a", rows: 1000, .even, [("a1", 10)], firstID: 10)
        let b = Table("b", rows: 1000, .even, [("b1", 10)], firstID: 20)
        let c = Table("c", rows: 1000, .even, [("c1", 10)], firstID: 30)
        var tables: [String: TableStatistics] = [:]
        for t in [a, b, c] { tables[t.def.name] = TableStatistics(rows: 1000, placement: .even) }
        let optimizer = Optimizer(context: Context(tables: tables), evaluateConstant: { _ in .null })
        let leaves = [a.scan, b.scan, c.scan]
        let predicates = [equal(a.column("a1"), b.column("b1")), equal(b.column("b1"), c.column("c1"))]
        let greedy = optimizer.greedyJoin(leaves, predicates, outputs: leaves.flatMap { $0.outputs })
        XCTAssertNil(optimizer.dynamicProgrammingOrder(leaves, predicates, greedy: greedy))
    }
}
