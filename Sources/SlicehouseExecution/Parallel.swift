import Foundation
import SlicehouseTypes

/// Runs `body(i)` for i in 0..<n on the worker pool (Dispatch's, sized to the
/// machine's cores) and collects each result in order. The first error wins.
public func parallelMap<T: Sendable>(_ n: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
    let collector = ParallelCollector<T>(count: n)
    DispatchQueue.concurrentPerform(iterations: n) { i in
        do { collector.set(i, try body(i)) } catch { collector.fail(error) }
    }
    return try collector.results()
}

/// Thread-safe slots for results of parallel work.
final class ParallelCollector<T: Sendable>: @unchecked Sendable {
    private var slots: [T?]
    private var error: Error?
    private let lock = Lock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }
    func fail(_ e: Error) { lock.withLock { if error == nil { error = e } } }

    func results() throws -> [T] {
        try lock.withLock {
            if let error { throw error }
            var out: [T] = []
            out.reserveCapacity(slots.count)
            for s in slots {
                guard let s else { throw SQLError.internalError("parallel task produced no result") }
                out.append(s)
            }
            return out
        }
    }
}
