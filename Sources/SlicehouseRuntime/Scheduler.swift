// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// The worker pool that every slice task of every query, COPY, UNLOAD and VACUUM runs on.
///
/// Work arrives as *batches* of `n` independent tasks (one per slice, one per file, one
/// per block group) from `parallelMap` / `parallelFor`. At most `concurrency` tasks run
/// at once (the machine's cores). When a worker is free it takes the next task of the
/// batch that should go first: the highest priority (short queries ahead of long ones,
/// `QueryContext.priority`), then the service class (WLM queue) with the fewest tasks
/// running, so queues share the cores fairly, then the oldest batch.
///
/// Urgent work — short queries that WLM's short query acceleration admitted
/// (`priority >= urgentPriority`) — has a space of its own: `urgentReserve` more tasks
/// may run beyond `concurrency` for it, so a point lookup starts at once instead of
/// waiting for a long query's slice task to end (the cores are then shared for the
/// short while it runs). Among them, the shortest (`instantPriority`: SQA predicts a few
/// milliseconds) go first and may start whenever fewer than `concurrency` instant tasks
/// run, whatever else runs, so a lookup does not wait behind a 200 ms query that SQA also
/// let through (and a lone instant query takes no more places than an urgent one).
///
/// A task may itself start a batch (a COPY's file task splitting blocks). It runs its
/// own batch's tasks while any are unstarted, then waits; while it waits — and while any
/// task waits on something outside the pool, through `blocking` (a slow client holding
/// a query's output queue) — its place is given to another thread, so nested batches
/// never deadlock and a waiting query never holds a core.
public final class Scheduler: @unchecked Sendable {
    /// The process's pool, sized to the machine's cores.
    public static let shared = Scheduler(concurrency: ProcessInfo.processInfo.activeProcessorCount)

    /// How many tasks run at once.
    public let concurrency: Int
    /// Threads in all, counting those that stand in for waiting workers.
    let maxThreads: Int
    /// Tasks of urgent batches that may run beyond `concurrency`.
    public let urgentReserve: Int
    /// The priority from which a batch is urgent (WLM's short query acceleration).
    public static let urgentPriority = 10
    /// The priority from which an urgent batch is instant (SQA predicts it a few ms).
    public static let instantPriority = 12
    /// Each worker's stack: operators are built and expressions evaluated recursively.
    static let stackBytes = 64 << 20

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let workAvailable: UnsafeMutablePointer<pthread_cond_t>
    private let batchDone: UnsafeMutablePointer<pthread_cond_t>
    /// Batches with tasks not yet started, oldest first.
    private var pending: [Batch] = []
    private var threads = 0
    private var idle = 0
    /// Tasks running and not waiting.
    private var active = 0
    private var runningPerClass: [Int: Int] = [:]
    /// Tasks of instant batches running.
    private var instantRunning = 0
    private var completed = 0

    public init(concurrency: Int) {
        self.concurrency = max(1, concurrency)
        maxThreads = max(256, 64 * self.concurrency)
        urgentReserve = max(1, self.concurrency / 2)
        mutex = .allocate(capacity: 1)
        workAvailable = .allocate(capacity: 1)
        batchDone = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(workAvailable, nil)
        pthread_cond_init(batchDone, nil)
    }

    /// Tasks finished since the pool started (for tests and the views).
    public var tasksCompleted: Int { locked { completed } }

    /// Worker threads started so far.
    public var threadCount: Int { locked { threads } }

    // MARK: Running batches

    /// Run `body(i)` for i in 0..<n on the pool and return when all have finished, in
    /// the scheduling class of `context`.
    public func run(_ n: Int, context: QueryContext, _ body: (Int) -> Void) {
        if n <= 0 { return }
        if n == 1 {
            body(0)
            return
        }
        withoutActuallyEscaping(body) { escapable in
            let batch = Batch(count: n, context: context, body: escapable)
            let onWorker = ThreadState.current?.isWorker ?? false
            lock()
            pending.append(batch)
            wakeWorkers()
            if onWorker {
                // Help: this thread runs its own batch's unstarted tasks, then waits
                // without holding its core.
                while batch.next < batch.count {
                    let i = batch.next
                    batch.next += 1
                    if batch.next == batch.count { removePending(batch) }
                    unlock()
                    escapable(i)
                    lock()
                    batch.unfinished -= 1
                }
                if batch.unfinished > 0 {
                    active -= 1
                    wakeWorkers()
                    while batch.unfinished > 0 { pthread_cond_wait(batchDone, mutex) }
                    active += 1
                }
            } else {
                while batch.unfinished > 0 { pthread_cond_wait(batchDone, mutex) }
            }
            unlock()
        }
    }

    /// Start `body(i)` for i in 0..<n on the pool and return at once; `finished` runs
    /// (on a worker) after the last task ends. For a caller that must do other work
    /// meanwhile — draining the queue a query's last stage fills.
    public func start(_ n: Int, context: QueryContext, _ body: @escaping (Int) -> Void,
                      finished: @escaping () -> Void) {
        if n <= 0 { finished(); return }
        let batch = Batch(count: n, context: context, body: body)
        batch.onFinished = finished
        lock()
        pending.append(batch)
        wakeWorkers()
        unlock()
    }

    /// Run `body`, which waits on something outside the pool (a bounded queue drained
    /// by a client's thread, a lock), giving this worker's core to another task
    /// meanwhile. Off the pool it simply runs `body`.
    public func blocking<T>(_ body: () throws -> T) rethrows -> T {
        guard ThreadState.current?.isWorker == true else { return try body() }
        lock()
        active -= 1
        wakeWorkers()
        unlock()
        defer {
            lock()
            active += 1
            unlock()
        }
        return try body()
    }

    // MARK: Workers

    private func workerLoop() {
        let state = ThreadState(isWorker: true)
        ThreadState.install(state)
        lock()
        while true {
            if let (batch, i) = takeTask() {
                active += 1
                runningPerClass[batch.serviceClass, default: 0] += 1
                let instant = batch.context.priority >= Scheduler.instantPriority
                if instant { instantRunning += 1 }
                unlock()
                let cpuStart = Scheduler.threadCPUNanos()
                batch.body(i)
                batch.context.metrics.addCPU(nanos: Scheduler.threadCPUNanos() &- cpuStart)
                lock()
                active -= 1
                runningPerClass[batch.serviceClass, default: 1] -= 1
                if instant { instantRunning -= 1 }
                completed += 1
                batch.unfinished -= 1
                if batch.unfinished == 0 {
                    pthread_cond_broadcast(batchDone)
                    if let done = batch.onFinished {
                        unlock()
                        done()
                        lock()
                    }
                }
                continue
            }
            idle += 1
            pthread_cond_wait(workAvailable, mutex)
            idle -= 1
        }
    }

    /// The next task to start: highest priority, then the service class with the fewest
    /// tasks running, then the oldest batch. Called with the mutex held.
    private func takeTask() -> (Batch, Int)? {
        guard !pending.isEmpty else { return nil }
        let minimum: Int
        if active < concurrency {
            minimum = Int.min
        } else if active < concurrency + urgentReserve {
            minimum = Scheduler.urgentPriority
        } else if instantRunning < concurrency {
            minimum = Scheduler.instantPriority
        } else {
            return nil
        }
        var best = -1
        var bestPriority = Int.min
        var bestRunning = Int.max
        for k in pending.indices {
            let p = pending[k].context.priority
            if p < minimum { continue }
            let r = runningPerClass[pending[k].serviceClass] ?? 0
            if p > bestPriority || (p == bestPriority && r < bestRunning) {
                best = k
                bestPriority = p
                bestRunning = r
            }
        }
        guard best >= 0 else { return nil }
        let batch = pending[best]
        let i = batch.next
        batch.next += 1
        if batch.next == batch.count { pending.remove(at: best) }
        return (batch, i)
    }

    private func removePending(_ batch: Batch) {
        if let k = pending.firstIndex(where: { $0 === batch }) { pending.remove(at: k) }
    }

    /// Wake (or start) as many workers as there are unstarted tasks and free cores.
    /// Called with the mutex held.
    private func wakeWorkers() {
        var unstarted = 0, urgent = 0, instant = 0
        for b in pending {
            let n = b.count - b.next
            unstarted += n
            if b.context.priority >= Scheduler.urgentPriority { urgent += n }
            if b.context.priority >= Scheduler.instantPriority { instant += n }
        }
        let regular = min(unstarted, max(0, concurrency - active))
        let urgentCap = concurrency + urgentReserve
        let extra = min(max(0, urgent - regular), max(0, urgentCap - max(active, concurrency)))
        let instantExtra = min(max(0, instant - regular - extra), max(0, concurrency - instantRunning))
        let want = regular + extra + instantExtra
        guard want > 0 else { return }
        if idle >= want {
            for _ in 0..<want { pthread_cond_signal(workAvailable) }
            return
        }
        if idle > 0 { pthread_cond_broadcast(workAvailable) }
        var missing = want - idle
        while missing > 0 && threads < maxThreads {
            guard startThread() else { break }
            missing -= 1
        }
    }

    private func startThread() -> Bool {
        // The thread holds the scheduler (the pool lives as long as the process).
        guard let thread = PosixThread.start(stackBytes: Scheduler.stackBytes, { [self] in workerLoop() }) else {
            return false
        }
        _ = pthread_detach(thread)
        threads += 1
        return true
    }

    /// CPU time this thread has used, in nanoseconds.
    static func threadCPUNanos() -> UInt64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    @inline(__always) private func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) private func unlock() { pthread_mutex_unlock(mutex) }
    private func locked<T>(_ body: () -> T) -> T { lock(); defer { unlock() }; return body() }
}

/// `n` tasks of one `Scheduler.run` call.
private final class Batch {
    let count: Int
    let context: QueryContext
    let serviceClass: Int
    let body: (Int) -> Void
    /// The next task index to start (guarded by the scheduler's mutex).
    var next = 0
    /// Tasks not yet finished.
    var unfinished: Int
    /// Run when the last task ends (batches nobody waits for).
    var onFinished: (() -> Void)?

    init(count: Int, context: QueryContext, body: @escaping (Int) -> Void) {
        self.count = count
        self.context = context
        serviceClass = context.serviceClass
        self.body = body
        unfinished = count
    }
}

/// What the runtime knows about the current thread: whether it is a pool worker (a
/// worker that waits gives its core to another; a caller off the pool just waits).
final class ThreadState {
    let isWorker: Bool

    init(isWorker: Bool) {
        self.isWorker = isWorker
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    static var current: ThreadState? {
        guard let key, let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<ThreadState>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Make `state` this thread's (kept for the thread's life: pool workers).
    static func install(_ state: ThreadState) {
        guard let key else { return }
        _ = pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
    }
}

// MARK: - The calls the engine makes

/// Runs `body(i)` for i in 0..<n on the shared pool, as `context`'s work (its priority,
/// WLM service class and CPU accounting), and collects each result in order. After the
/// first error no further task starts; that error is thrown.
public func parallelMap<T: Sendable>(_ n: Int, context: QueryContext,
                                     _ body: (Int) throws -> T) throws -> [T] {
    let collector = ParallelCollector<T>(count: n)
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedBox(body)
        Scheduler.shared.run(n, context: context) { i in
            if collector.hasFailed { return }
            do { collector.set(i, try shared.value(i)) } catch { collector.fail(error) }
        }
    }
    return try collector.results()
}

/// Runs `body(i)` for i in 0..<n on the shared pool, as `context`'s work, and waits for
/// all of them.
public func parallelFor(_ n: Int, context: QueryContext, _ body: (Int) -> Void) {
    Scheduler.shared.run(n, context: context, body)
}

/// `body(i)` for i in 0..<n on the pool — or, when `serial`, here, one after another: for
/// work smaller than waking the pool's threads and waiting for them (a single-row INSERT's
/// slices, each with a row or none).
public func parallelFor(_ n: Int, context: QueryContext, serial: Bool, _ body: (Int) -> Void) {
    if serial {
        for i in 0..<n { body(i) }
    } else {
        Scheduler.shared.run(n, context: context, body)
    }
}

/// Carries a non-Sendable value into tasks the caller waits for.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Thread-safe slots for results of parallel work.
public final class ParallelCollector<T: Sendable>: @unchecked Sendable {
    private var slots: [T?]
    private var error: Error?
    private let lock = Lock()

    public init(count: Int) { slots = Array(repeating: nil, count: count) }

    public var hasFailed: Bool { lock.withLock { error != nil } }
    public func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }
    public func fail(_ e: Error) { lock.withLock { if error == nil { error = e } } }

    public func results() throws -> [T] {
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
