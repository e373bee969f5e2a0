// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Produces numbered chunks on worker threads and consumes them in order.
///
/// Workers claim chunk indices in increasing order and generate them
/// concurrently; the calling thread consumes chunk 0, 1, 2, … as each becomes
/// ready (typically writing it to a file). At most `window` chunks are claimed
/// but not yet consumed, which bounds memory; because claims are in order, the
/// chunk the consumer waits for is always already being produced, so the
/// pipeline cannot deadlock.
enum OrderedParallel {
    static func run(count: Int, workers: Int, window: Int,
                    produce: @escaping @Sendable (Int) -> OutputChunk,
                    consume: (Int, OutputChunk) throws -> Void) throws {
        if count <= 0 { return }
        let workerCount = max(1, min(workers, count))
        if workerCount == 1 {
            for index in 0..<count { try consume(index, produce(index)) }
            return
        }
        let state = PipelineState(count: count, window: max(window, workerCount))
        for _ in 0..<workerCount {
            let thread = Thread { state.work(produce) }
            thread.stackSize = 1 << 20
            thread.start()
        }
        do {
            for index in 0..<count {
                guard let chunk = state.take(index) else { break }
                try consume(index, chunk)
                state.consumed()
            }
        } catch {
            state.cancel()
            state.waitForWorkers(workerCount)
            throw error
        }
        state.waitForWorkers(workerCount)
    }
}

/// The shared state of one `OrderedParallel.run`, guarded by one condition.
private final class PipelineState: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private let window: Int
    private var nextIndex = 0
    private var consumedCount = 0
    private var ready: [Int: OutputChunk] = [:]
    private var cancelled = false
    private var finishedWorkers = 0

    init(count: Int, window: Int) {
        self.count = count
        self.window = window
    }

    func work(_ produce: (Int) -> OutputChunk) {
        condition.lock()
        while !cancelled && nextIndex < count {
            if nextIndex - consumedCount >= window {
                condition.wait()
                continue
            }
            let index = nextIndex
            nextIndex += 1
            condition.unlock()
            let chunk = produce(index)
            condition.lock()
            ready[index] = chunk
            condition.broadcast()
        }
        finishedWorkers += 1
        condition.broadcast()
        condition.unlock()
    }

    func take(_ index: Int) -> OutputChunk? {
        condition.lock()
        defer { condition.unlock() }
        while ready[index] == nil && !cancelled { condition.wait() }
        return ready.removeValue(forKey: index)
    }

    func consumed() {
        condition.lock()
        consumedCount += 1
        condition.broadcast()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    func waitForWorkers(_ workers: Int) {
        condition.lock()
        while finishedWorkers < workers { condition.wait() }
        condition.unlock()
    }
}
