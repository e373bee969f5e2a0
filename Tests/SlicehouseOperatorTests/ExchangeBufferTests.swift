// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseRuntime
import SlicehousePlanner
@testable import SlicehouseExecution

/// The exchange's buffer: re-partitioning on the producers' side, reading in producer
/// order, spilling beyond the budget, several readers of one partition.
final class ExchangeBufferTests: XCTestCase {
    let types: [DataType] = [.bigint, .varchar(20)]

    /// Producer `p`'s rows: keys p*1000 ..< p*1000 + count, with a NULL key and a string.
    func rows(producer p: Int, count: Int) -> [Row] {
        (0..<count).map { i in
            [i == 7 ? .null : .int(Int64(p * 1000 + i)), .string("p\(p)-\(i)")]
        }
    }

    /// Feed every producer's rows in chunks of 100.
    func fill(_ buffer: ExchangeBuffer, producers: Int, count: Int) throws {
        for p in 0..<producers {
            for chunk in try drainChunks(source(types, rows(producer: p, count: count), chunkSize: 100)) {
                try buffer.add(chunk, from: p)
            }
        }
        try buffer.finish()
    }

    func testRedistributeSendsEachRowToItsKeysPartitionInProducerOrder() throws {
        for budget in [nil, 4096] as [Int?] {
            let spill = TemporarySpill()
            let context = spill.context(budget: budget)
            let buffer = ExchangeBuffer(kind: .redistribute([0]), producers: 3, targets: 4, readers: 1, context: context)
            try fill(buffer, producers: 3, count: 500)
            var all: [Row] = []
            for t in 0..<4 {
                let got = try drain(buffer.reader(for: t))
                XCTAssertEqual(buffer.received(by: t).rows, got.count)
                // Every row of target t hashes to t, as DISTKEY placement would put it.
                let chunk = Chunk(columns: columns(types, got), count: got.count)
                var hashes: [UInt64] = []
                chunk.columns[0].hash(rows: nil, count: got.count, into: &hashes, combine: false)
                for h in hashes.prefix(got.count) { XCTAssertEqual(Int(h % 4), t) }
                // Producer order: the string's producer number never goes down.
                let producers = got.map { Int(($0[1].asString ?? "").dropFirst().prefix { $0 != "-" }) ?? -1 }
                XCTAssertEqual(producers, producers.sorted(), "target \(t)")
                all += got
            }
            assertSameRows(all, (0..<3).flatMap { rows(producer: $0, count: 500) }, "budget \(String(describing: budget))")
            if budget != nil {
                XCTAssertGreaterThan(context.memory.spilledBytes, 0)
                XCTAssertGreaterThan((0..<4).map { buffer.received(by: $0).spilledBytes }.reduce(0, +), 0)
            } else {
                XCTAssertEqual(context.memory.spilledBytes, 0)
            }
            XCTAssertEqual(context.memory.usedBytes, 0, "the readers returned the reservation")
        }
    }

    func testGatherAndMaterializeKeepEveryRow() throws {
        let spill = TemporarySpill()
        let gather = ExchangeBuffer(kind: .gather, producers: 4, targets: 1, readers: 1, context: spill.context(budget: 2048))
        try fill(gather, producers: 4, count: 300)
        XCTAssertEqual(try drain(gather.reader(for: 0)), (0..<4).flatMap { rows(producer: $0, count: 300) })

        let materialize = ExchangeBuffer(kind: .materialize, producers: 2, targets: 2, readers: 1, context: spill.context(budget: nil))
        try fill(materialize, producers: 2, count: 250)
        for p in 0..<2 { XCTAssertEqual(try drain(materialize.reader(for: p)), rows(producer: p, count: 250)) }
    }

    /// Two parents of a shared subplan read one partition in one pipeline: a hash join's
    /// build side (made last, so it takes the buffer's references) is read to the end
    /// before the probe side starts; both see every row, in memory or spilled.
    func testTwoReadersOfOnePartitionEachSeeEveryRow() throws {
        for budget in [nil, 3000] as [Int?] {
            let spill = TemporarySpill()
            let buffer = ExchangeBuffer(kind: .materialize, producers: 1, targets: 1, readers: 2,
                                        context: spill.context(budget: budget))
            try fill(buffer, producers: 1, count: 700)
            let probe = buffer.reader(for: 0)
            let build = buffer.reader(for: 0)
            let want = rows(producer: 0, count: 700)
            XCTAssertEqual(try drain(build), want)
            XCTAssertEqual(try drain(probe), want)
        }
    }

    /// A broadcast's targets make their readers at the same moment on different threads;
    /// each must read every row (the last one made takes the buffer's references, and
    /// none may come after it has).
    func testBroadcastReadersMadeAtOnceEachReadEveryRow() throws {
        let producers = 64, targets = 16
        let want = producers * 20
        for _ in 0..<200 {
            let buffer = ExchangeBuffer(kind: .broadcast, producers: producers, targets: targets, readers: 1,
                                        context: QueryContext())
            try fill(buffer, producers: producers, count: 20)
            let counts = ParallelCollector<Int>(count: targets)
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for t in 0..<targets {
                group.enter()
                Thread {
                    start.wait()
                    let reader = buffer.reader(for: t)
                    var n = 0
                    while let c = try? reader.next() { n += c.count }
                    counts.set(t, n)
                    group.leave()
                }.start()
            }
            for _ in 0..<targets { start.signal() }
            group.wait()
            XCTAssertEqual(try counts.results(), Array(repeating: want, count: targets))
        }
    }
}
