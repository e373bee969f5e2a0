// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Table locks held by transactions until they end.
///
/// A transaction that changes a table (INSERT, COPY, DELETE, UPDATE, TRUNCATE, DROP) or
/// names it in `LOCK` takes the table's lock, exclusive as Redshift's
/// AccessExclusiveLock is for writers, and keeps it until COMMIT or ROLLBACK. A second
/// writer waits. Readers take no lock: they read their snapshot and never wait.
///
/// Each transaction waits for at most one lock at a time, so the waits form chains;
/// a request that would close a chain into a cycle is a deadlock and fails at once
/// with PostgreSQL's `deadlock detected` (40P01), naming both processes. (A waiter also
/// waits for those queued before it, but they wait only for the holder, so no cycle
/// forms that a request did not close.)
public final class LockManager: @unchecked Sendable {
    /// Who holds or waits for a lock (STV_LOCKS / SVV_TRANSACTIONS).
    public struct Owner: Sendable {
        public var transaction: Int
        public var process: Int
        public var startTime: Int64
    }

    /// One row of STV_LOCKS: a table's holder and whoever waits for it.
    public struct Entry: Sendable {
        public var table: Int
        public var holder: Owner
        public var granted: Bool
    }

    private final class Waiter {
        let owner: Owner
        let table: Int
        /// Set (under both `mutex` and `wake`) when the lock is handed to this waiter.
        var granted = false
        let wake = NSCondition()
        init(owner: Owner, table: Int) { self.owner = owner; self.table = table }
    }

    private let mutex = NSLock()
    private var holders: [Int: Owner] = [:]
    private var held: [Int: Set<Int>] = [:]          // transaction → tables
    private var waiting: [Int: (table: Int, owner: Owner)] = [:]  // transaction → what it waits for
    /// Per table, its waiters in the order they came: a release hands the lock to the first.
    private var queues: [Int: [Waiter]] = [:]

    public init() {}

    /// Take `table`'s lock for `owner`, waiting while another transaction holds it.
    /// `isCancelled` is polled while waiting (a cancelled wait throws what it returns).
    ///
    /// Waiters are served in the order they came, and a release wakes only the one it
    /// hands the lock to (not every waiter of every table, who would all wake to find it
    /// taken: with eight writers of one table, seven context switches per commit for nothing).
    public func acquire(table: Int, owner: Owner, isCancelled: () -> SQLError? = { nil }) throws {
        mutex.lock()
        if let h = holders[table], h.transaction != owner.transaction {
            if let cycle = deadlock(requester: owner.transaction, table: table) {
                mutex.unlock()
                throw SQLError(.deadlockDetected, "deadlock detected",
                               detail: "Process \(owner.process) waits for AccessExclusiveLock on relation \(table) of database 100;"
                                + " blocked by process \(cycle).")
            }
            if let e = isCancelled() { mutex.unlock(); throw e }
            let w = Waiter(owner: owner, table: table)
            queues[table, default: []].append(w)
            waiting[owner.transaction] = (table, owner)
            mutex.unlock()
            while true {
                w.wake.lock()
                if !w.granted { _ = w.wake.wait(until: Date(timeIntervalSinceNow: 0.05)) }
                let granted = w.granted
                w.wake.unlock()
                if granted { return }
                guard let e = isCancelled() else { continue }
                mutex.lock()
                if w.granted { mutex.unlock(); return }  // handed over meanwhile: the statement finds its cancel later
                queues[table]?.removeAll { $0 === w }
                if queues[table]?.isEmpty == true { queues[table] = nil }
                waiting[owner.transaction] = nil
                mutex.unlock()
                throw e
            }
        }
        holders[table] = owner
        held[owner.transaction, default: []].insert(table)
        mutex.unlock()
    }

    /// Release every lock of `transaction` (at its end), handing each to its first waiter.
    public func releaseAll(_ transaction: Int) {
        mutex.lock()
        defer { mutex.unlock() }
        waiting[transaction] = nil
        for t in held.removeValue(forKey: transaction) ?? [] where holders[t]?.transaction == transaction {
            holders[t] = nil
            guard var queue = queues.removeValue(forKey: t), !queue.isEmpty else { continue }
            let next = queue.removeFirst()
            if !queue.isEmpty { queues[t] = queue }
            holders[t] = next.owner
            held[next.owner.transaction, default: []].insert(t)
            waiting[next.owner.transaction] = nil
            next.wake.lock()
            next.granted = true
            next.wake.signal()
            next.wake.unlock()
        }
    }

    /// The process blocking `requester` when waiting for `table` would close a cycle.
    private func deadlock(requester: Int, table: Int) -> Int? {
        var t = table
        var seen = Set<Int>()
        while let h = holders[t], seen.insert(h.transaction).inserted {
            if h.transaction == requester { return holders[table]?.process }
            guard let w = waiting[h.transaction] else { return nil }
            t = w.table
        }
        return nil
    }

    /// Whether a transaction waits for `table`'s lock.
    public func hasWaiters(table: Int) -> Bool {
        mutex.lock(); defer { mutex.unlock() }
        return queues[table]?.isEmpty == false
    }

    /// Held locks, then waits (STV_LOCKS).
    public var entries: [Entry] {
        mutex.lock(); defer { mutex.unlock() }
        var out = holders.map { Entry(table: $0.key, holder: $0.value, granted: true) }.sorted { $0.table < $1.table }
        out += waiting.values.map { Entry(table: $0.table, holder: $0.owner, granted: false) }.sorted { $0.table < $1.table }
        return out
    }
}
