// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SlicehouseTypes
import SlicehousePlatform

/// The threads that run the server's statements: an elastic pool shared by every
/// connection.
///
/// A connection holds no thread of its own. When a message arrives for a connection
/// that is not already working, the connection submits one job — "handle what the
/// inbox holds" — and the job ends when the inbox is empty, giving its thread back. So
/// an idle connection costs no thread, and 500 connections are 500 sockets, not 500
/// threads.
///
/// A statement may wait a long time while it runs — for a WLM slot, for a lock another
/// connection's transaction holds, for a slow client to read its rows — so the pool
/// cannot be bounded the way `Scheduler` bounds its workers: a job that waits on a lock
/// held by another connection's transaction must never keep that connection's next
/// message (its COMMIT) from running. A job is therefore handed to an idle thread when
/// there is one (the one idle the shortest time, so the others can retire), and
/// otherwise to a new thread. A thread idle for `retireAfterSeconds` ends. The CPU work
/// of a statement's query runs on `Scheduler.shared` as always; these threads mostly
/// parse, plan, wait and encode rows.
///
/// Each thread is a `LargeStack` thread (the engine recurses over statement trees), so
/// the session's calls run directly on it instead of starting a thread each.
final class StatementThreads: @unchecked Sendable {
    /// The process's pool.
    static let shared = StatementThreads(retireAfterSeconds: 30)

    typealias Job = @Sendable () -> Void

    /// How long a thread waits for a job before it ends.
    let retireAfterSeconds: Int

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Threads waiting for a job, the one that became idle last at the end.
    private var idle: [Worker] = []
    /// Jobs no thread could be found or started for (the system refused a thread); the
    /// next thread to finish a job takes them.
    private var queued: [Job] = []
    private var threads = 0

    init(retireAfterSeconds: Int) {
        self.retireAfterSeconds = max(1, retireAfterSeconds)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    /// Threads alive now (running a job or idle).
    var threadCount: Int { locked { threads } }
    /// Threads idle now.
    var idleCount: Int { locked { idle.count } }

    /// Run `job` on a thread of the pool: an idle one, else a new one.
    func submit(_ job: @escaping Job) {
        lock()
        if let worker = idle.popLast() {
            worker.job = job
            unlock()
            // Signalled after the unlock, so the thread does not wake only to wait for the
            // lock (it looks at its job under the lock before it waits, so it cannot miss it).
            pthread_cond_signal(worker.wake)
            return
        }
        threads += 1
        unlock()
        let worker = Worker()
        worker.job = job
        if startThread(worker) { return }
        // The system refused a thread: the next thread to finish a job, or to be started
        // for another, takes this one.
        lock()
        threads -= 1
        queued.append(job)
        unlock()
    }

    private func startThread(_ worker: Worker) -> Bool {
        LargeStack.detach { [self] in
            Self.nameThisThread()
            work(worker)
        }
    }

    /// A pool thread's life: run jobs until none comes for `retireAfterSeconds`. A job is
    /// held only while it runs (what it captures — a connection, its session — is not
    /// kept alive by an idle thread).
    private func work(_ worker: Worker) {
        while let job = next(worker) {
            job()
        }
    }

    /// The thread's next job: the one it was started with or handed while idle, else a
    /// queued one; else it waits, idle, for one. Nil when none came in time (the thread
    /// ends).
    private func next(_ worker: Worker) -> Job? {
        var deadline = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_REALTIME, &deadline)
        #else
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        #endif
        deadline.tv_sec += retireAfterSeconds
        lock()
        defer { unlock() }
        if let job = worker.job {
            worker.job = nil
            return job
        }
        if !queued.isEmpty { return queued.removeFirst() }
        idle.append(worker)
        while true {
            if let job = worker.job {
                // `submit` took it off the idle list when it handed the job over.
                worker.job = nil
                return job
            }
            if pthread_cond_timedwait(worker.wake, mutex, &deadline) == ETIMEDOUT, worker.job == nil {
                if let k = idle.firstIndex(where: { $0 === worker }) { idle.remove(at: k) }
                threads -= 1
                return nil
            }
        }
    }

    /// "slicehouse-stmt" in `top -H`, perf and /proc (a new thread has its creator's name,
    /// an event loop's).
    private static func nameThisThread() {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        _ = "slicehouse-stmt".withCString { write(fd, $0, strlen($0)) }
        _ = close(fd)
        #endif
    }

    @inline(__always) private func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) private func unlock() { pthread_mutex_unlock(mutex) }
    private func locked<T>(_ body: () -> T) -> T { lock(); defer { unlock() }; return body() }

    /// One thread of the pool, as the pool sees it: the job handed to it while idle and
    /// the condition it waits on (its own, so a job wakes exactly the thread it is for).
    private final class Worker {
        var job: Job?
        let wake: UnsafeMutablePointer<pthread_cond_t>

        init() {
            wake = .allocate(capacity: 1)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            #if !canImport(Darwin)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            #endif
            pthread_cond_init(wake, &attributes)
            pthread_condattr_destroy(&attributes)
        }

        deinit {
            pthread_cond_destroy(wake)
            wake.deallocate()
        }
    }
}
