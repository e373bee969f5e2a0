// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution
import SlicehouseRuntime

/// ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE; partitions, NULL keys,
/// output order, empty input.
final class WindowRankingTests: XCTestCase {
    /// id, val: one partition, ties and a NULL in the ORDER BY column.
    private let tieColumns = [Vector.ints([0, 1, 2, 3, 4, 5, 6]), Vector.ints([3, 1, 2, 2, nil, 1, 3], type: .integer)]
    private let rankFunctions = [fn(.rowNumber), fn(.rank), fn(.denseRank), fn(.percentRank), fn(.cumeDist)]

    func testRankingWithTiesNullsLast() throws {
        let rows = try runWindow(tieColumns, order: [SortKey(column: 1)], rankFunctions)
        // Sorted: 1(id1) 1(id5) 2(id2) 2(id3) 3(id0) 3(id6) NULL(id4); ties keep input order.
        XCTAssertEqual(rows.map { $0[0] }, ints([1, 5, 2, 3, 0, 6, 4]))
        XCTAssertEqual(rows.map { $0[2] }, ints([1, 2, 3, 4, 5, 6, 7]))
        XCTAssertEqual(rows.map { $0[3] }, ints([1, 1, 3, 3, 5, 5, 7]))
        XCTAssertEqual(rows.map { $0[4] }, ints([1, 1, 2, 2, 3, 3, 4]))
        XCTAssertEqual(rows.map { $0[5] }, dbls([0, 0, 2.0 / 6, 2.0 / 6, 4.0 / 6, 4.0 / 6, 1]))
        XCTAssertEqual(rows.map { $0[6] }, dbls([2.0 / 7, 2.0 / 7, 4.0 / 7, 4.0 / 7, 6.0 / 7, 6.0 / 7, 1]))
    }

    func testRankingNullsFirstAndDescending() throws {
        let first = try runWindow(tieColumns, order: [SortKey(column: 1, ascending: true, nullsFirst: true)], rankFunctions)
        XCTAssertEqual(first.map { $0[0] }, ints([4, 1, 5, 2, 3, 0, 6]))
        XCTAssertEqual(first.map { $0[3] }, ints([1, 2, 2, 4, 4, 6, 6]))
        XCTAssertEqual(first.map { $0[4] }, ints([1, 2, 2, 3, 3, 4, 4]))

        // DESC defaults to NULLS FIRST.
        let desc = try runWindow(tieColumns, order: [SortKey(column: 1, ascending: false)], rankFunctions)
        XCTAssertEqual(desc.map { $0[0] }, ints([4, 0, 6, 2, 3, 1, 5]))
        XCTAssertEqual(desc.map { $0[3] }, ints([1, 2, 2, 4, 4, 6, 6]))

        let descLast = try runWindow(tieColumns, order: [SortKey(column: 1, ascending: false, nullsFirst: false)], rankFunctions)
        XCTAssertEqual(descLast.map { $0[0] }, ints([0, 6, 2, 3, 1, 5, 4]))
        XCTAssertEqual(descLast.map { $0[3] }, ints([1, 1, 3, 3, 5, 5, 7]))
        XCTAssertEqual(descLast.map { $0[4] }, ints([1, 1, 2, 2, 3, 3, 4]))
        XCTAssertEqual(descLast.map { $0[6] }, dbls([2.0 / 7, 2.0 / 7, 4.0 / 7, 4.0 / 7, 6.0 / 7, 6.0 / 7, 1]))
    }

    func testMultipleOrderKeys() throws {
        let cols = [Vector.ints([0, 1, 2, 3, 4]), Vector.ints([1, 1, 1, 2, 2]), Vector.strings(["b", "a", "b", nil, "c"])]
        let rows = try runWindow(cols, order: [SortKey(column: 1), SortKey(column: 2, ascending: false, nullsFirst: false)],
                                 [fn(.rank), fn(.denseRank)])
        // (1,b) id0, (1,b) id2, (1,a) id1, (2,c) id4, (2,NULL) id3
        XCTAssertEqual(rows.map { $0[0] }, ints([0, 2, 1, 4, 3]))
        XCTAssertEqual(rows.map { $0[3] }, ints([1, 1, 3, 4, 5]))
        XCTAssertEqual(rows.map { $0[4] }, ints([1, 1, 2, 3, 4]))
    }

    func testNullPartitionKeysFormOnePartition() throws {
        let cols = [Vector.ints([0, 1, 2, 3, 4, 5]), Vector.strings(["a", nil, "b", nil, "a", nil])]
        let rows = try runWindow(cols, partition: [1], order: [SortKey(column: 0)],
                                 [fn(.rowNumber), fn(.countStar), fn(.rank)])
        let byId = resultsById(rows, idColumn: 0, inputWidth: 2)
        XCTAssertEqual(byId[0], ints([1, 2, 1]))
        XCTAssertEqual(byId[4], ints([2, 2, 2]))
        XCTAssertEqual(byId[1], ints([1, 3, 1]))
        XCTAssertEqual(byId[3], ints([2, 3, 2]))
        XCTAssertEqual(byId[5], ints([3, 3, 3]))
        XCTAssertEqual(byId[2], ints([1, 1, 1]))
        // Partitions are contiguous in the output.
        let parts = rows.map { $0[1] }
        var seen: [Value] = []
        for (i, p) in parts.enumerated() where i == 0 || p != parts[i - 1] {
            XCTAssertFalse(seen.contains(p), "partition \(p) split in the output")
            seen.append(p)
        }
    }

    func testWithoutOrderByAllRowsArePeers() throws {
        let cols = [Vector.ints([0, 1, 2, 3]), Vector.ints([1, 1, 2, 1]), Vector.ints([10, 20, 30, 40])]
        let rows = try runWindow(cols, partition: [1],
                                 [fn(.rank), fn(.denseRank), fn(.percentRank), fn(.cumeDist),
                                  fn(.sum, 2, .bigint, frame: Frames.rangeToCurrent),
                                  fn(.count, 2, .bigint, frame: Frames.rangeCurrent)])
        let byId = resultsById(rows, idColumn: 0, inputWidth: 3)
        XCTAssertEqual(byId[0], [.int(1), .int(1), .double(0), .double(1), .int(70), .int(3)])
        XCTAssertEqual(byId[3], [.int(1), .int(1), .double(0), .double(1), .int(70), .int(3)])
        XCTAssertEqual(byId[2], [.int(1), .int(1), .double(0), .double(1), .int(30), .int(1)])
    }

    func testRowNumberWithoutKeysKeepsInputOrder() throws {
        let rows = try runWindow([Vector.ints([5, 3, 9])], [fn(.rowNumber)])
        XCTAssertEqual(rows, [ints([5, 1]), ints([3, 2]), ints([9, 3])])
    }

    func testInputWithoutColumns() throws {
        let op = WindowOperator(input: ChunkSource([Chunk(columns: [], count: 2), Chunk(columns: [], count: 1)]),
                                inputTypes: [], partitionColumns: [], orderKeys: [],
                                functions: [fn(.rowNumber), fn(.countStar)], context: QueryContext())
        XCTAssertEqual(try drain(op), [ints([1, 3]), ints([2, 3]), ints([3, 3])])
    }

    func testNtileUnevenBuckets() throws {
        let ids = Vector.ints((0..<10).map { Int64($0) })
        let rows = try runWindow([ids], order: [SortKey(column: 0)],
                                 [fn(.ntile, parameter: 3), fn(.ntile, parameter: 4), fn(.ntile, parameter: 1),
                                  fn(.ntile, parameter: 10), fn(.ntile, parameter: 25)])
        XCTAssertEqual(rows.map { $0[1] }, ints([1, 1, 1, 1, 2, 2, 2, 3, 3, 3]))
        XCTAssertEqual(rows.map { $0[2] }, ints([1, 1, 1, 2, 2, 2, 3, 3, 4, 4]))
        XCTAssertEqual(rows.map { $0[3] }, ints([Int64?](repeating: 1, count: 10)))
        XCTAssertEqual(rows.map { $0[4] }, ints((1...10).map { Int64($0) }))
        XCTAssertEqual(rows.map { $0[5] }, ints((1...10).map { Int64($0) }))
    }

    func testNtilePerPartition() throws {
        // Partition 0 has 7 rows, partition 1 has 2.
        let cols = [Vector.ints((0..<9).map { Int64($0) }), Vector.ints([0, 0, 0, 0, 0, 0, 0, 1, 1])]
        let rows = try runWindow(cols, partition: [1], order: [SortKey(column: 0)], [fn(.ntile, parameter: 3)])
        let byId = resultsById(rows, idColumn: 0, inputWidth: 2)
        XCTAssertEqual((0..<9).map { byId[Int64($0)]?[0] ?? .null }, ints([1, 1, 1, 2, 2, 3, 3, 1, 2]))
    }

    func testEmptyInput() throws {
        let cols = [Vector.ints([]), Vector.strings([])]
        XCTAssertEqual(try runWindow(cols, partition: [1], order: [SortKey(column: 0)],
                                     [fn(.rowNumber), fn(.sum, 0, .bigint, frame: Frames.rowsToCurrent)]).count, 0)
        let op = WindowOperator(input: ChunkSource([]), inputTypes: [.bigint], partitionColumns: [],
                                orderKeys: [SortKey(column: 0)], functions: [fn(.rank)], context: QueryContext())
        XCTAssertNil(try op.next())
        XCTAssertNil(try op.next())
        XCTAssertEqual(op.outputTypes, [.bigint, .bigint])
    }

    func testOutputTypes() {
        let op = WindowOperator(input: ChunkSource([]), inputTypes: [.integer, .decimal(precision: 10, scale: 2)],
                                partitionColumns: [], orderKeys: [],
                                functions: [fn(.percentRank), fn(.sum, 1, .decimal(precision: 10, scale: 2)),
                                            fn(.lag, 0, .integer)], context: QueryContext())
        XCTAssertEqual(op.outputTypes, [.integer, .decimal(precision: 10, scale: 2), .double,
                                        .decimal(precision: 38, scale: 2), .integer])
    }

    func testPartitionSpanningManyChunks() throws {
        let n = 5000
        let ids = Vector.ints((0..<n).map { Int64(n - 1 - $0) })   // descending input
        let x = Vector.ints((0..<n).map { Int64(n - 1 - $0) % 7 == 0 ? nil : Int64(n - 1 - $0) })
        for selection in [false, true] {
            let rows = try runWindow([ids, x], order: [SortKey(column: 0)],
                                     [fn(.rowNumber), fn(.sum, 1, .bigint, frame: Frames.rowsToCurrent),
                                      fn(.lag, 0, .bigint, parameter: 3), fn(.ntile, parameter: 3),
                                      fn(.count, 1, .bigint, frame: Frames.rows1p1f)],
                                     chunkSize: 999, withSelection: selection)
            XCTAssertEqual(rows.count, n)
            var running: Int64 = 0
            for (i, r) in rows.enumerated() {
                XCTAssertEqual(r[0], .int(Int64(i)))
                XCTAssertEqual(r[2], .int(Int64(i + 1)))
                if i % 7 != 0 { running += Int64(i) }
                XCTAssertEqual(r[3], i == 0 ? .null : .int(running))   // id 0 is NULL
                XCTAssertEqual(r[4], i >= 3 ? .int(Int64(i - 3)) : .null)
                XCTAssertEqual(r[5], .int(i < 1667 ? 1 : (i < 3334 ? 2 : 3)))
                let window = (max(0, i - 1)...min(n - 1, i + 1)).filter { $0 % 7 != 0 }.count
                XCTAssertEqual(r[6], .int(Int64(window)))
            }
        }
    }

    func testManyPartitions() throws {
        let n = 3000
        let ids = Vector.ints((0..<n).map { Int64($0) })
        let part = Vector.ints((0..<n).map { Int64(($0 * 37) % 101) })
        let rows = try runWindow([ids, part], partition: [1], order: [SortKey(column: 0, ascending: false)],
                                 [fn(.rowNumber), fn(.countStar), fn(.cumeDist)], chunkSize: 500)
        XCTAssertEqual(rows.count, n)
        // Per partition: ids descending, row numbers 1...count.
        var byPartition: [Int64: [(Int64, Int64, Int64)]] = [:]
        for r in rows {
            guard case .int(let id) = r[0], case .int(let p) = r[1], case .int(let rn) = r[2], case .int(let c) = r[3] else {
                XCTFail("unexpected row \(r)"); continue
            }
            byPartition[p, default: []].append((id, rn, c))
        }
        XCTAssertEqual(byPartition.count, 101)
        for (_, list) in byPartition {
            XCTAssertEqual(list.map { $0.1 }, (1...list.count).map { Int64($0) })
            XCTAssertEqual(list.map { $0.0 }, list.map { $0.0 }.sorted(by: >))
            XCTAssertTrue(list.allSatisfy { $0.2 == Int64(list.count) })
        }
    }

    func testInvalidParameters() {
        let cols = [Vector.ints([1, 2])]
        XCTAssertThrowsError(try runWindow(cols, [fn(.ntile, parameter: 0)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .invalidParameter)
        }
        XCTAssertThrowsError(try runWindow(cols, [fn(.nthValue, 0, .bigint, parameter: 0)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .invalidParameter)
        }
        let negative = WindowFrame(rows: true, start: .preceding(-1), end: .currentRow)
        XCTAssertThrowsError(try runWindow(cols, [fn(.sum, 0, .bigint, frame: negative)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .invalidParameter)
        }
        let rangeOffset = WindowFrame(rows: false, start: .preceding(1), end: .currentRow)
        XCTAssertThrowsError(try runWindow(cols, order: [SortKey(column: 0)], [fn(.sum, 0, .bigint, frame: rangeOffset)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .featureNotSupported)
        }
        XCTAssertThrowsError(try runWindow(cols, [fn(.sum, 3, .bigint)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .internalError)
        }
        XCTAssertThrowsError(try runWindow(cols, partition: [2], [fn(.rank)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .internalError)
        }
        // Argument declared with another physical type than the input column.
        XCTAssertThrowsError(try runWindow(cols, [fn(.sum, 0, .double)])) { error in
            XCTAssertEqual((error as? SQLError)?.code, .internalError)
        }
        // Wrong result type.
        let bad = BoundWindowFunction(kind: .rank, argument: nil, argumentType: nil, frame: .wholePartition, resultType: .double)
        XCTAssertThrowsError(try runWindow(cols, [bad]))
    }
}
