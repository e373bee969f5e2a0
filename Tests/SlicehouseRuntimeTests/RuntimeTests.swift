// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseTypes
@testable import SlicehouseRuntime
import SlicehousePlatform

final class SchedulerTests: XCTestCase {
    func testEveryTaskRunsOnceAndResultsKeepTheirOrder() throws {
        let out = try parallelMap(1000, context: QueryContext()) { $0 * 2 }
        XCTAssertEqual(out, (0..<1000).map { $0 * 2 })
    }

    func testNestedBatchesFinishOnAOneWorkerPool() {
        // One core: a task that starts a batch must run it itself (no deadlock).
        let scheduler = Scheduler(concurrency: 1)
        let counter = Counter()
        scheduler.run(4, context: QueryContext()) { _ in
            scheduler.run(4, context: QueryContext()) { _ in
                scheduler.run(3, context: QueryContext()) { _ in counter.add(1) }
            }
        }
        XCTAssertEqual(counter.value, 48)
    }

    /// More slices than cores (a 64-slice cluster simulated on 2 cores; a pool sized for
    /// 16 and for 64 cores): every task runs once, never more at a time than the pool's
    /// concurrency, the pool does run that many, and slice tasks that start batches of
    /// their own (a COPY's files, then their blocks) finish without a thread per task.
    func testMoreSlicesThanCoresRunAtMostThePoolsConcurrency() {
        for concurrency in [2, 16, 64] {
            let scheduler = Scheduler(concurrency: concurrency)
            let running = Counter(), done = Counter()
            let peak = Peak()
            let slices = concurrency * 8
            scheduler.run(slices, context: QueryContext()) { _ in
                running.add(1)
                peak.observe(running.value)
                Thread.sleep(forTimeInterval: 0.002)
                running.add(-1)
                done.add(1)
            }
            XCTAssertEqual(done.value, slices, "\(concurrency) cores")
            XCTAssertLessThanOrEqual(peak.value, concurrency, "\(concurrency) cores: more tasks at once than the pool allows")
            XCTAssertGreaterThan(peak.value, concurrency / 2, "\(concurrency) cores: the pool did not run its tasks side by side")

            let nested = Counter()
            scheduler.run(slices, context: QueryContext()) { _ in
                scheduler.run(4, context: QueryContext()) { _ in nested.add(1) }
            }
            XCTAssertEqual(nested.value, slices * 4)
            XCTAssertLessThanOrEqual(scheduler.threadCount, scheduler.maxThreads)
            XCTAssertLessThan(scheduler.threadCount, slices * 4, "a thread per task")
        }
    }

    func testTheFirstErrorIsThrownAndLaterTasksDoNotStart() {
        let started = Counter()
        XCTAssertThrowsError(try parallelMap(10_000, context: QueryContext()) { i -> Int in
            started.add(1)
            if i == 0 { throw SQLError(.divisionByZero, "boom") }
            Thread.sleep(forTimeInterval: 0.0001)
            return i
        }) { e in XCTAssertEqual((e as? SQLError)?.message, "boom") }
        XCTAssertLessThan(started.value, 10_000)
    }

    func testHigherPriorityBatchesStartFirst() {
        let scheduler = Scheduler(concurrency: 1)
        let gate = DispatchSemaphore(value: 0)
        let order = Recorder()
        let low = QueryContext(priority: 0)
        let high = QueryContext(priority: 10)
        // Occupy the only worker, then queue a low- and a high-priority batch (from
        // threads of their own: Dispatch's pool is as small as the machine).
        let threads = [
            Thread { scheduler.run(2, context: low) { i in if i == 0 { gate.wait() } else { order.add("blocker") } } },
            Thread { scheduler.run(2, context: low) { _ in order.add("low") } },
            Thread { scheduler.run(2, context: high) { _ in order.add("high") } },
        ]
        for t in threads {
            t.start()
            Thread.sleep(forTimeInterval: 0.1)
        }
        gate.signal()
        while !threads.allSatisfy({ $0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(order.values, ["high", "high", "blocker", "low", "low"])
    }

    func testUrgentBatchesRunBeyondTheBusyCores() {
        let scheduler = Scheduler(concurrency: 1)
        let gate = DispatchSemaphore(value: 0)
        let busy = Thread { scheduler.run(2, context: QueryContext()) { _ in gate.wait() } }
        busy.start()
        Thread.sleep(forTimeInterval: 0.1)
        // The only core is taken by a task that does not yield; a short query's batch
        // still runs, in the urgent reserve, while an ordinary one would wait.
        let done = Counter()
        scheduler.run(3, context: QueryContext(priority: Scheduler.urgentPriority)) { _ in done.add(1) }
        XCTAssertEqual(done.value, 3)
        let ordinary = Counter()
        let waiting = Thread { scheduler.run(2, context: QueryContext()) { _ in ordinary.add(1) } }
        waiting.start()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(ordinary.value, 0, "ordinary work waits for the core")
        gate.signal(); gate.signal()
        while !(busy.isFinished && waiting.isFinished) { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(ordinary.value, 2)
    }

    func testInstantWorkRunsBeyondTheUrgentReserve() {
        let scheduler = Scheduler(concurrency: 1)
        let gate = DispatchSemaphore(value: 0), urgentGate = DispatchSemaphore(value: 0)
        let busy = Thread { scheduler.run(2, context: QueryContext()) { _ in gate.wait() } }
        busy.start()
        Thread.sleep(forTimeInterval: 0.1)
        let heavy = Thread {
            scheduler.run(2, context: QueryContext(priority: Scheduler.urgentPriority)) { _ in urgentGate.wait() }
        }
        heavy.start()
        Thread.sleep(forTimeInterval: 0.1)
        // The core and the urgent reserve are both taken; a batch SQA predicts to take a
        // few milliseconds still runs, while more urgent work waits for a place.
        let done = Counter()
        scheduler.run(3, context: QueryContext(priority: Scheduler.instantPriority)) { _ in done.add(1) }
        XCTAssertEqual(done.value, 3)
        let urgent = Counter()
        let waiting = Thread { scheduler.run(2, context: QueryContext(priority: Scheduler.urgentPriority)) { _ in urgent.add(1) } }
        waiting.start()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(urgent.value, 0, "urgent work waits while the urgent reserve is taken")
        urgentGate.signal(); urgentGate.signal(); gate.signal(); gate.signal()
        while !(busy.isFinished && heavy.isFinished && waiting.isFinished) { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(urgent.value, 2)
    }

    func testBlockingGivesTheCoreToAnotherTask() {
        let scheduler = Scheduler(concurrency: 1)
        let gate = DispatchSemaphore(value: 0)
        let done = Counter()
        let blocked = Thread { scheduler.run(2, context: QueryContext()) { _ in scheduler.blocking { gate.wait() } } }
        blocked.start()
        Thread.sleep(forTimeInterval: 0.1)
        // Both tasks of the first batch wait outside the pool; this batch still runs.
        scheduler.run(3, context: QueryContext()) { _ in done.add(1) }
        XCTAssertEqual(done.value, 3)
        gate.signal(); gate.signal()
        while !blocked.isFinished { Thread.sleep(forTimeInterval: 0.01) }
    }

    func testTasksRunAsTheContextTheyAreGiven() throws {
        // A batch's CPU time is its context's (STL_QUERY_METRICS), no one else's.
        let context = QueryContext(serviceClass: 7)
        let other = QueryContext(serviceClass: 7)
        let sums = try parallelMap(8, context: context) { i -> UInt64 in
            var x = UInt64(i) &+ 1
            for k in 0..<2_000_000 { x = x &* 6364136223846793005 &+ UInt64(k) }
            return x
        }
        XCTAssertEqual(sums.count, 8)
        XCTAssertGreaterThan(context.metrics.live.cpuNanos, 0)
        XCTAssertEqual(other.metrics.live.cpuNanos, 0)
    }
}

final class MemoryTests: XCTestCase {
    func testReservationsStayWithinTheBudgetAndThePool() {
        let pool = MemoryPool(limit: 1000)
        let q1 = QueryMemory(budget: 600, pool: pool)
        let q2 = QueryMemory(budget: 600, pool: pool)
        let r1 = MemoryReservation(q1)
        XCTAssertTrue(r1.tryResize(to: 500))
        XCTAssertFalse(r1.tryResize(to: 700), "over the query's budget")
        let r2 = MemoryReservation(q2)
        XCTAssertFalse(r2.tryResize(to: 600), "over the pool's limit")
        XCTAssertTrue(r2.tryResize(to: 500))
        XCTAssertEqual(pool.usedBytes, 1000)
        XCTAssertTrue(r1.tryResize(to: 100))
        XCTAssertEqual(q1.usedBytes, 100)
        XCTAssertEqual(q1.peakBytes, 500)
        r1.resize(to: 900)  // forced: counts even beyond the budget
        XCTAssertEqual(q1.usedBytes, 900)
        r1.free()
        r2.free()
        XCTAssertEqual(pool.usedBytes, 0)
    }

    func testADroppedReservationReturnsItsMemory() {
        let q = QueryMemory(budget: nil, pool: MemoryPool(limit: nil))
        do {
            let r = MemoryReservation(q)
            _ = r.tryResize(to: 4096)
            XCTAssertEqual(q.usedBytes, 4096)
        }
        XCTAssertEqual(q.usedBytes, 0)
    }

    func testAFullPoolAsksItsReclaimersFirst() {
        let pool = MemoryPool(limit: 1000)
        XCTAssertTrue(pool.tryReserve(900))  // a cache's entries, say
        let asked = Counter()
        pool.addReclaimer { n in
            asked.add(n)
            pool.release(n)
        }
        let q = QueryMemory(budget: nil, pool: pool)
        XCTAssertTrue(q.tryReserve(500), "the reclaimer gave 500 bytes back")
        XCTAssertEqual(asked.value, 500)
        XCTAssertEqual(pool.usedBytes, 900)
        XCTAssertFalse(pool.tryReserve(200, reclaim: false))
    }

    func testSizes() {
        XCTAssertEqual(MemoryPool.parseSize("4GB"), 4 << 30)
        XCTAssertEqual(MemoryPool.parseSize("32 MB"), 32 << 20)
        XCTAssertEqual(MemoryPool.parseSize("64kB"), 64 << 10)
        XCTAssertEqual(MemoryPool.parseSize("1000"), 1000)
        XCTAssertNil(MemoryPool.parseSize("lots"))
        XCTAssertNil(MemoryPool.parseSize("-1GB"))
    }
}

final class SpillTests: XCTestCase {
    func testWhatIsWrittenReadsBackAndCountsAsSpilled() throws {
        let dir = NSTemporaryDirectory() + "slicehouse-spill-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let memory = QueryMemory(budget: 10, pool: MemoryPool(limit: nil))
        let file = try SpillSpace(directory: dir).newFile(for: memory)
        let big = (0..<100_000).map { Int64($0 * 3) }
        try file.append(Int32(42))
        try file.append(contentsOf: big)
        try file.append(contentsOf: Array("tail".utf8))
        try file.flush()
        var r = file.reader()
        XCTAssertEqual(try r.read(Int32.self), 42)
        XCTAssertEqual(try r.readArray(Int64.self, count: big.count), big)
        XCTAssertEqual(String(decoding: try r.readBytes(count: 4), as: UTF8.self), "tail")
        XCTAssertTrue(r.atEnd)
        XCTAssertEqual(memory.spilledBytes, 4 + 800_000 + 4)
        XCTAssertEqual(memory.spillFileCount, 1)
        XCTAssertTrue(memory.isDiskBased)
        // The file is unlinked at once: nothing is left in the directory.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    func testReadingPastTheEndIsAnError() throws {
        let dir = NSTemporaryDirectory() + "slicehouse-spill-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try SpillSpace(directory: dir).newFile(for: nil)
        try file.append(Int64(1))
        var r = file.reader()
        XCTAssertThrowsError(try r.readArray(Int64.self, count: 2))
    }
}

final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var n = 0
    func add(_ k: Int) { lock.withLock { n += k } }
    var value: Int { lock.withLock { n } }
}

/// The largest value observed.
final class Peak: @unchecked Sendable {
    private let lock = Lock()
    private var n = 0
    func observe(_ v: Int) { lock.withLock { n = max(n, v) } }
    var value: Int { lock.withLock { n } }
}

final class Recorder: @unchecked Sendable {
    private let lock = Lock()
    private var items: [String] = []
    func add(_ s: String) { lock.withLock { items.append(s) } }
    var values: [String] { lock.withLock { items } }
}

final class QueryMetricsTests: XCTestCase {
    /// A step that reports in pieces (one per pipeline part) adds every figure up; its
    /// memory peak is the largest piece's.
    func testPiecesOfAStepAddUp() {
        let m = QueryMetrics()
        m.record(stage: 1, step: 0, slice: 2, label: "scan   tbl=1 name=t",
                 StepMetrics(rows: 10, bytes: 80, nanos: 5, peakMemory: 100, spilledBytes: 1, rowsPreFilter: 40,
                             blocksSkipped: 3, blocksRead: 4))
        m.record(stage: 1, step: 0, slice: 2, label: "scan   tbl=1 name=t",
                 StepMetrics(rows: 5, bytes: 40, nanos: 7, peakMemory: 60, spilledBytes: 2, rowsPreFilter: 20,
                             blocksSkipped: 1, blocksRead: 6))
        m.record(stage: 1, step: 0, slice: 3, label: "scan   tbl=1 name=t", StepMetrics(rows: 1))
        XCTAssertEqual(m.steps.count, 2)
        XCTAssertEqual(m.steps.first?.metrics, StepMetrics(rows: 15, bytes: 120, nanos: 12, peakMemory: 100, spilledBytes: 3,
                                                            rowsPreFilter: 60, blocksSkipped: 4, blocksRead: 10))
        XCTAssertEqual(m.steps.last?.slice, 3)
    }
}
