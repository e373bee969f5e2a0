// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
import SlicehouseRuntime
@testable import SlicehouseExecution

/// The nested-loop join streams its output a block of pairs at a time. It once paired
/// a whole probe chunk with every build row before returning anything, so a LIMIT
/// above a cross join of two 1M-row tables waited while memory grew to tens of GB.
final class NestedLoopJoinTests: XCTestCase {
    let types: [DataType] = [.bigint]

    private func ints(_ range: Range<Int>) -> [Row] { range.map { [.int(Int64($0))] } }

    private func join(_ kind: PhysicalJoinKind, probe: Operator, build: Operator, condition: BoundExpr? = nil) -> NestedLoopJoinOperator {
        NestedLoopJoinOperator(kind: kind, probe: probe, build: build, condition: condition, probeTypes: types, buildTypes: types, context: QueryContext())
    }

    /// `probe.x < build.x - shift` over the pair (probe column 0, build column 1).
    private func less(shift: Int64) -> BoundExpr {
        .binary(.less, .column(0, .bigint), .binary(.subtract, .column(1, .bigint), .constant(.int(shift), .bigint), .bigint), .boolean)
    }

    func testLimitOverACrossJoinPullsOneProbeChunkAndOneBlock() throws {
        let probe = CountingOperator(source(types, ints(0..<6_000), chunkSize: 2_048))
        let cross = join(.inner, probe: probe, build: source(types, ints(0..<50_000)))
        let first = try XCTUnwrap(cross.next())
        XCTAssertLessThanOrEqual(first.count, Chunk.capacity, "one block of pairs, not a probe row times every build row")
        XCTAssertEqual(probe.pulls, 1)
        let limited = LimitOperator(input: join(.inner, probe: CountingOperator(source(types, ints(0..<6_000))),
                                                build: source(types, ints(0..<50_000))), limit: 10)
        XCTAssertEqual(try drain(limited), (0..<10).map { [.int(0), .int(Int64($0))] })
    }

    func testEveryPairAcrossBlockBoundaries() throws {
        // Build sides smaller than, equal to and larger than a block.
        for buildCount in [1, 7, Chunk.capacity, Chunk.capacity + 5, 3 * Chunk.capacity + 1] {
            let out = try drain(join(.inner, probe: source(types, ints(0..<5), chunkSize: 2), build: source(types, ints(0..<buildCount))))
            var expected: [Row] = []
            for p in 0..<5 { for b in 0..<buildCount { expected.append([.int(Int64(p)), .int(Int64(b))]) } }
            XCTAssertEqual(out, expected, "build of \(buildCount)")
        }
    }

    func testOuterSemiAndAntiFormsMatchABruteForceJoin() throws {
        let probeRows = 0..<40, buildRows = 0..<(Chunk.capacity + 30)
        let shift: Int64 = Int64(Chunk.capacity)  // probe p matches build b when p < b - capacity
        func matches(_ p: Int) -> [Int] { buildRows.filter { p < $0 - Int(shift) } }
        func run(_ kind: PhysicalJoinKind) throws -> [Row] {
            try drain(join(kind, probe: source(types, ints(probeRows), chunkSize: 16), build: source(types, ints(buildRows)),
                           condition: less(shift: shift)))
        }
        var left: [Row] = []
        for p in probeRows {
            let m = matches(p)
            if m.isEmpty { left.append([.int(Int64(p)), .null]) }
            for b in m { left.append([.int(Int64(p)), .int(Int64(b))]) }
        }
        XCTAssertEqual(Set(try run(.left).map { $0.description }), Set(left.map { $0.description }))
        XCTAssertEqual(try run(.left).count, left.count)
        XCTAssertEqual(try run(.semi), probeRows.filter { !matches($0).isEmpty }.map { [.int(Int64($0))] })
        XCTAssertEqual(try run(.anti), probeRows.filter { matches($0).isEmpty }.map { [.int(Int64($0))] })
        let right = try run(.right)
        let matchedBuild = Set(probeRows.flatMap(matches))
        XCTAssertEqual(right.count, probeRows.map { matches($0).count }.reduce(0, +) + buildRows.count - matchedBuild.count)
        XCTAssertEqual(right.filter { $0[0] == .null }.count, buildRows.count - matchedBuild.count)
    }

    /// Over its budget the build side goes to disk and is joined a block at a time (block
    /// nested loop): every kind gives the rows of the in-memory join, the operator reports
    /// what it spilled, and the whole reservation comes back.
    func testBuildSideOverTheBudgetJoinsBlockByBlock() throws {
        let probeRows = 0..<60, buildRows = 0..<3_000
        // probe p matches build b when p < b / 60 (probe rows 50 to 59 match nothing).
        let condition: BoundExpr = .binary(.less, .column(0, .bigint),
                                           .binary(.divide, .column(1, .bigint), .constant(.int(60), .bigint), .bigint), .boolean)
        for kind in [PhysicalJoinKind.inner, .left, .right, .full, .semi, .anti] {
            func run(_ context: QueryContext) throws -> (rows: [String], op: NestedLoopJoinOperator) {
                let op = NestedLoopJoinOperator(kind: kind, probe: source(types, ints(probeRows), chunkSize: 16),
                                                build: source(types, ints(buildRows), chunkSize: 200), condition: condition,
                                                probeTypes: types, buildTypes: types, context: context)
                return (try drain(op).map { $0.description }.sorted(), op)
            }
            let want = try run(QueryContext()).rows
            let spill = TemporarySpill()
            let context = spill.context(budget: 8 << 10)
            let (got, op) = try run(context)
            XCTAssertEqual(got.count, want.count, "\(kind)")
            XCTAssertEqual(got, want, "\(kind)")
            XCTAssertGreaterThan(op.spilledBytes, 0, "\(kind)")
            XCTAssertEqual(context.memory.usedBytes, 0, "\(kind): reservation returned")
        }
        // A scalar subquery's single row never spills.
        let spill = TemporarySpill()
        let one = NestedLoopJoinOperator(kind: .left, probe: source(types, ints(0..<5)), build: source(types, ints(7..<8)),
                                         condition: nil, singleRow: true, probeTypes: types, buildTypes: types, context: spill.context(budget: 1))
        XCTAssertEqual(try drain(one).count, 5)
        XCTAssertEqual(one.spilledBytes, 0)
    }
}
