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
/// with PostgreSQL's `deadlock detected` (40P01), naming both processes.
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

    private let condition = NSCondition()
    private var holders: [Int: Owner] = [:]
    private var held: [Int: Set<Int>] = [:]          // transaction → tables
    private var waiting: [Int: (table: Int, owner: Owner)] = [:]  // transaction → what it waits for

    public init() {}

    /// Take `table`'s lock for `owner`, waiting while another transaction holds it.
    /// `isCancelled` is polled while waiting (a cancelled wait throws what it returns).
    public func acquire(table: Int, owner: Owner, isCancelled: () -> SQLError? = { nil }) throws {
        condition.lock()
        defer { condition.unlock() }
        while let h = holders[table], h.transaction != owner.transaction {
            if let cycle = deadlock(requester: owner.transaction, table: table) {
                throw SQLError(.deadlockDetected, "deadlock detected",
                               detail: "Process \(owner.process) waits for AccessExclusiveLock on relation \(table) of database 100;"
                                + " blocked by process \(cycle).")
            }
            if let e = isCancelled() { waiting[owner.transaction] = nil; throw e }
            waiting[owner.transaction] = (table, owner)
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
            waiting[owner.transaction] = nil
        }
        holders[table] = owner
        held[owner.transaction, default: []].insert(table)
    }

    /// Release every lock of `transaction` (at its end) and wake the waiters.
    public func releaseAll(_ transaction: Int) {
        condition.lock()
        for t in held.removeValue(forKey: transaction) ?? [] where holders[t]?.transaction == transaction {
            holders[t] = nil
        }
        waiting[transaction] = nil
        condition.broadcast()
        condition.unlock()
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
        condition.lock(); defer { condition.unlock() }
        return waiting.values.contains { $0.table == table }
    }

    /// Held locks, then waits (STV_LOCKS).
    public var entries: [Entry] {
        condition.lock(); defer { condition.unlock() }
        var out = holders.map { Entry(table: $0.key, holder: $0.value, granted: true) }.sorted { $0.table < $1.table }
        out += waiting.values.map { Entry(table: $0.table, holder: $0.owner, granted: false) }.sorted { $0.table < $1.table }
        return out
    }
}
