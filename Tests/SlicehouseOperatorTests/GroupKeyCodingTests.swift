// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseRuntime
@testable import SlicehouseExecution

/// Group keys coded through a join (`GroupKeyCoding`): the same groups as grouping by the
/// text, with the join and the aggregate short of memory too; and which plans code which keys.
final class GroupKeyCodingTests: XCTestCase {
    // Facts (item INTEGER, quantity BIGINT); a dimension (item INTEGER, category VARCHAR,
    // brand VARCHAR) whose 400 items share 35 combinations (item i has combination
    // (7i mod 37) mod 5 and mod 7), some with a NULL in either column or both, and some
    // differing only in a trailing blank (an operator compares bytes; the planner makes
    // such keys significant-blanks expressions, which are not coded).
    static let factTypes: [DataType] = [.integer, .bigint]
    static let dimTypes: [DataType] = [.integer, .varchar(20), .varchar(30)]

    static func dimension() -> [Row] {
        let categories: [Value] = [.string("Men"), .string("Women"), .string("Music"), .null, .string("Men ")]
        let brands: [Value] = [.string("amalg #1"), .string("edu packimporto #12"), .null, .string("a"),
                               .string("scholar maxi brand #8"), .string("b"), .string("amalg #1 ")]
        return (0..<400).map { i in
            let combination = (i * 7) % 37
            return [.int(Int64(i)), categories[combination % categories.count], brands[combination % brands.count]]
        }
    }

    static func facts(_ n: Int, seed: UInt64) -> [Row] {
        var rng = SeededRandom(seed: seed)
        // Some items (400...449) have no dimension row: those facts join nothing.
        return (0..<n).map { _ in [.int(Int64(rng.int(0...449))), .int(Int64(rng.int(1...100)))] }
    }

    static let sum = BoundAggregate(function: .sum, argument: 1, argumentType: .bigint, distinct: false,
                                    resultType: .bigint)
    static let count = BoundAggregate(function: .countStar, argument: nil, argumentType: nil, distinct: false,
                                      resultType: .bigint)

    /// Facts ⋈ dimension on item, grouped by (category, brand) — coded or as text — with
    /// SUM(quantity) and COUNT(*), in `mode`.
    func grouped(_ facts: [Row], coded: Bool, mode: AggregateMode, context: QueryContext) throws -> [Row] {
        let dimension = Self.dimension()
        let dictionary = coded ? BuildKeyDictionary(columns: [1, 2], types: [.varchar(20), .varchar(30)]) : nil
        let join = HashJoinOperator(kind: .inner, probe: source(Self.factTypes, facts, chunkSize: 700),
                                    build: source(Self.dimTypes, dimension, chunkSize: 90), probeKeys: [0], buildKeys: [0],
                                    residual: nil, buildTypes: Self.dimTypes, probeTypes: Self.factTypes,
                                    coding: dictionary, context: context)
        // Output: item, quantity, item, category (or its code), brand (or a placeholder).
        guard let dictionary else {
            let aggregate = HashAggregateOperator(input: join, groupColumns: [3, 4], groupTypes: [.varchar(20), .varchar(30)],
                                                  aggregates: [Self.sum, Self.count], mode: mode, context: context)
            return try drain(aggregate)
        }
        let coding = GroupKeyCoding(joins: [.init(node: ObjectIdentifier(join), columns: [1, 2], types: dictionary.types)],
                                    groups: [3], groupTypes: [.bigint],
                                    sources: [.coded(join: 0, key: 0, column: 0), .coded(join: 0, key: 0, column: 1)],
                                    passThrough: [:])
        let aggregate = HashAggregateOperator(input: join, groupColumns: coding.groups, groupTypes: coding.groupTypes,
                                              aggregates: [Self.sum, Self.count], mode: mode, context: context)
        return try drain(GroupKeyDecodeOperator(input: aggregate, coding: coding, dictionaries: [dictionary]))
    }

    func testCodedGroupsAreTheTextGroups() throws {
        let facts = Self.facts(30_000, seed: 7)
        for mode in [AggregateMode.single, .partial] {
            let spill = TemporarySpill()
            let expected = try grouped(facts, coded: false, mode: mode, context: spill.context(budget: nil))
            let actual = try grouped(facts, coded: true, mode: mode, context: spill.context(budget: nil))
            // 35 combinations, NULLs grouped together, trailing blanks kept apart as the
            // text aggregate keeps them.
            XCTAssertEqual(expected.count, 35, "\(mode)")
            XCTAssertEqual(actual, expected, "\(mode): same groups in the same order")
        }
    }

    /// A build side beyond the budget: the join spills into partitions whose tables code
    /// into one dictionary; the aggregate spills too (single) or emits early (partial).
    func testCodesHoldAcrossAGraceJoinsPartitions() throws {
        let facts = Self.facts(60_000, seed: 11)
        // A dimension of 40,000 rows (the 35 combinations repeated) that does not fit.
        let big = (0..<40_000).map { i -> Row in
            let d = Self.dimension()[i % 400]
            return [.int(Int64(i)), d[1], d[2]]
        }
        let factsOnBig = facts.map { r -> Row in [.int((r[0].asInt64 ?? 0) * 97 % 40_000), r[1]] }
        for mode in [AggregateMode.single, .partial] {
            let spill = TemporarySpill()
            func run(coded: Bool) throws -> (rows: [Row], spilled: Int) {
                let context = spill.context(budget: 1 << 20)
                let dictionary = coded ? BuildKeyDictionary(columns: [1, 2], types: [.varchar(20), .varchar(30)]) : nil
                let join = HashJoinOperator(kind: .inner, probe: source(Self.factTypes, factsOnBig, chunkSize: 500),
                                            build: source(Self.dimTypes, big, chunkSize: 500), probeKeys: [0],
                                            buildKeys: [0], residual: nil, buildTypes: Self.dimTypes,
                                            probeTypes: Self.factTypes, coding: dictionary, context: context)
                let op: Operator
                if let dictionary {
                    let coding = GroupKeyCoding(joins: [.init(node: ObjectIdentifier(join), columns: [1, 2], types: dictionary.types)],
                                                groups: [3], groupTypes: [.bigint],
                                                sources: [.coded(join: 0, key: 0, column: 0), .coded(join: 0, key: 0, column: 1)],
                                                passThrough: [:])
                    let aggregate = HashAggregateOperator(input: join, groupColumns: [3], groupTypes: [.bigint],
                                                          aggregates: [Self.sum, Self.count], mode: mode, context: context)
                    op = GroupKeyDecodeOperator(input: aggregate, coding: coding, dictionaries: [dictionary])
                } else {
                    op = HashAggregateOperator(input: join, groupColumns: [3, 4], groupTypes: [.varchar(20), .varchar(30)],
                                               aggregates: [Self.sum, Self.count], mode: mode, context: context)
                }
                let rows = try drain(op)
                return (rows, join.spilledBytes)
            }
            let text = try run(coded: false), coded = try run(coded: true)
            XCTAssertGreaterThan(coded.spilled, 0, "\(mode): the join spilled")
            // Partial groups may come out in several pieces; merged they are the same.
            assertSameRows(Self.merged(coded.rows), Self.merged(text.rows), "\(mode)")
            XCTAssertEqual(Self.merged(coded.rows).count, 35, "\(mode)")
        }
    }

    /// A build side of 40,000 rows of which the facts meet 20: only those are coded (the
    /// dictionary holds their combinations, not all 35).
    func testOnlyMatchedBuildRowsAreCoded() throws {
        let big = (0..<40_000).map { i -> Row in
            let d = Self.dimension()[i % 400]
            return [.int(Int64(i)), d[1], d[2]]
        }
        // Facts on items 0..<20 only: 20 build rows meet them, with 19 of the 35 combinations
        // (items 0 and 5 share one).
        var rng = SeededRandom(seed: 5)
        let facts = (0..<5_000).map { _ -> Row in [.int(Int64(rng.int(0...19))), .int(Int64(rng.int(1...100)))] }
        let distinct = Set((0..<20).map { i -> [Value] in let d = Self.dimension()[i]; return [d[1], d[2]] }).count
        let spill = TemporarySpill()
        let context = spill.context(budget: nil)
        let dictionary = BuildKeyDictionary(columns: [1, 2], types: [.varchar(20), .varchar(30)])
        let join = HashJoinOperator(kind: .inner, probe: source(Self.factTypes, facts, chunkSize: 600),
                                    build: source(Self.dimTypes, big, chunkSize: 2_000), probeKeys: [0], buildKeys: [0],
                                    residual: nil, buildTypes: Self.dimTypes, probeTypes: Self.factTypes,
                                    coding: dictionary, context: context)
        let coding = GroupKeyCoding(joins: [.init(node: ObjectIdentifier(join), columns: [1, 2], types: dictionary.types)],
                                    groups: [3], groupTypes: [.bigint],
                                    sources: [.coded(join: 0, key: 0, column: 0), .coded(join: 0, key: 0, column: 1)],
                                    passThrough: [:])
        let aggregate = HashAggregateOperator(input: join, groupColumns: [3], groupTypes: [.bigint],
                                              aggregates: [Self.sum, Self.count], mode: .single, context: context)
        let rows = try drain(GroupKeyDecodeOperator(input: aggregate, coding: coding, dictionaries: [dictionary]))
        XCTAssertEqual(dictionary.count, distinct, "only the combinations of the matched build rows")
        XCTAssertEqual(distinct, 19)
        XCTAssertEqual(rows.count, distinct)
        XCTAssertEqual(rows.reduce(0) { $0 + ($1[3].asInt64 ?? 0) }, 5_000, "every fact in a group")
    }

    /// Rows (category, brand, sum, count) with the partial rows of a group added up.
    static func merged(_ rows: [Row]) -> [Row] {
        var totals: [[Value]: (Int64, Int64)] = [:]
        for r in rows {
            let t = totals[[r[0], r[1]], default: (0, 0)]
            totals[[r[0], r[1]]] = (t.0 + (r[2].asInt64 ?? 0), t.1 + (r[3].asInt64 ?? 0))
        }
        return totals.map { [$0.key[0], $0.key[1], .int($0.value.0), .int($0.value.1)] }
    }

    // MARK: Which keys a plan codes

    static func node(_ kind: PhysicalNode.Kind, _ children: [PhysicalNode], _ types: [DataType], rows: Double) -> PhysicalNode {
        PhysicalNode(kind, children: children, types: types, names: types.map { _ in "c" }, distribution: .random,
                     rows: rows, columnIDs: Array(0..<types.count))
    }

    static let scanTypes: [DataType] = [.integer, .integer, .bigint]       // item, center, quantity
    static let itemTypes: [DataType] = [.integer, .varchar(50), .varchar(50), .integer]  // sk, category, brand, id
    static let centerTypes: [DataType] = [.integer, .varchar(50)]           // sk, name

    static func table(_ types: [DataType], rows: Double) -> PhysicalNode {
        node(.values([]), [], types, rows: rows)
    }

    /// facts ⋈ centers (on center) ⋈ items (on item): outputs 0-2 facts, 3-4 centers, 5-8 items.
    static func chain(itemJoin: PhysicalJoinKind = .inner, itemRows: Double = 1_000, residual: BoundExpr? = nil) -> PhysicalNode {
        let facts = table(scanTypes, rows: 100_000)
        let centers = node(.hashJoin(.inner, probeKeys: [1], buildKeys: [0], residual: nil, label: .none, nullAware: false),
                           [facts, table(centerTypes, rows: 6)], scanTypes + centerTypes, rows: 100_000)
        return node(.hashJoin(itemJoin, probeKeys: [0], buildKeys: [0], residual: residual, label: .none, nullAware: false),
                    [centers, table(itemTypes, rows: itemRows)], scanTypes + centerTypes + itemTypes, rows: 100_000)
    }

    static func aggregate(_ child: PhysicalNode, groups: [Int], argument: Int = 2) -> PhysicalNode {
        let sum = BoundAggregate(function: .sum, argument: argument, argumentType: .bigint, distinct: false, resultType: .bigint)
        return node(.aggregate(groups: groups, aggregates: [sum], phase: .partial), [child],
                    groups.map { child.types[$0] } + [.bigint], rows: 1_000)
    }

    func testTextKeysOfTwoDimensionsAreCodedPerJoin() throws {
        // GROUP BY category, brand, center name, item id.
        let plan = Self.aggregate(Self.chain(), groups: [6, 7, 4, 8])
        let coding = try XCTUnwrap(GroupKeyCoding.plan(plan))
        XCTAssertEqual(coding.joins.map(\.columns), [[1, 2], [1]], "the item join's two columns, the center's name")
        XCTAssertEqual(coding.groups, [6, 4, 8])
        XCTAssertEqual(coding.groupTypes, [.bigint, .bigint, .integer])
        XCTAssertEqual(coding.sources, [.coded(join: 0, key: 0, column: 0), .coded(join: 0, key: 0, column: 1),
                                        .coded(join: 1, key: 1, column: 0), .key(2)])
    }

    func testKeysReadOtherwiseOrFromOuterJoinsAreNotCoded() {
        // Only integer keys: nothing to gain.
        XCTAssertNil(GroupKeyCoding.plan(Self.aggregate(Self.chain(), groups: [8, 0])))
        // An aggregate's argument reads the key.
        XCTAssertNil(GroupKeyCoding.plan(Self.aggregate(Self.chain(), groups: [4], argument: 4)))
        // A right join's NULL probe columns.
        XCTAssertNil(GroupKeyCoding.plan(Self.aggregate(Self.chain(itemJoin: .right), groups: [4])))
        // A left join's build columns (NULL for unmatched rows) are not coded; the center's name below still is.
        let left = GroupKeyCoding.plan(Self.aggregate(Self.chain(itemJoin: .left), groups: [6, 4]))
        XCTAssertEqual(left?.joins.map(\.columns), [[1]])
        XCTAssertEqual(left?.groups, [6, 4])
        XCTAssertEqual(left?.groupTypes, [.varchar(50), .bigint])
        // A residual condition reads the brand.
        let residual = BoundExpr.isNull(.column(7, .varchar(50)), negated: true)
        let read = GroupKeyCoding.plan(Self.aggregate(Self.chain(residual: residual), groups: [7, 4]))
        XCTAssertEqual(read?.groupTypes, [.varchar(50), .bigint])
        XCTAssertEqual(read?.sources, [.key(0), .coded(join: 0, key: 1, column: 0)])
        // A build side as large as the join's output is coded all the same: only its
        // matched rows are (`testOnlyMatchedBuildRowsAreCoded`).
        XCTAssertEqual(GroupKeyCoding.plan(Self.aggregate(Self.chain(itemRows: 100_000), groups: [6, 4]))?.groupTypes,
                       [.bigint, .bigint])
    }

    func testProjectionsAndFiltersOnTheWay() throws {
        let chain = Self.chain()
        // Keep the brand and the center's name, and compute quantity * 2; a filter on the quantity.
        let filter = Self.node(.filter(.isNull(.column(2, .bigint), negated: true)), [chain], chain.types, rows: 100_000)
        let exprs: [BoundExpr] = [.column(7, .varchar(50)), .binary(.multiply, .column(2, .bigint), .constant(.int(2), .bigint), .bigint),
                                  .column(4, .varchar(50)), .column(7, .varchar(50))]
        let project = Self.node(.project(exprs), [filter], [.varchar(50), .bigint, .varchar(50), .varchar(50)], rows: 100_000)
        let coding = try XCTUnwrap(GroupKeyCoding.plan(Self.aggregate(project, groups: [0, 2, 3], argument: 1)))
        XCTAssertEqual(coding.groups, [0, 2])
        XCTAssertEqual(coding.passThrough[ObjectIdentifier(project)], [0, 2, 3], "every output of a coded column")
        // A projection computing from the brand (a cast): it is not coded.
        let upper = BoundExpr.cast(.column(7, .varchar(50)), .varchar(10))
        let computed = Self.node(.project([.column(7, .varchar(50)), upper, .column(2, .bigint)]), [chain],
                                 [.varchar(50), .varchar(50), .bigint], rows: 100_000)
        XCTAssertNil(GroupKeyCoding.plan(Self.aggregate(computed, groups: [0])))
    }
}
