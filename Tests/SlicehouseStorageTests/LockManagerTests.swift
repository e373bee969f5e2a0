// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseTypes
@testable import SlicehouseStorage

/// `LockManager` hands a released table lock to the first of its waiters, in the order
/// they came; a cancelled waiter leaves the queue; a request closing a cycle fails.
final class LockManagerTests: XCTestCase {
    static func owner(_ t: Int) -> LockManager.Owner { .init(transaction: t, process: 100 + t, startTime: 0) }
    func owner(_ t: Int) -> LockManager.Owner { Self.owner(t) }

    /// A value threads share, behind a lock.
    final class Shared<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: T
        init(_ value: T) { self.value = value }
        func with<R>(_ body: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
    }

    /// Waits until `locks` shows `count` waiters (STV_LOCKS' ungranted rows).
    func waitForWaiters(_ locks: LockManager, _ count: Int) {
        let deadline = Date().addingTimeInterval(10)
        while locks.entries.filter({ !$0.granted }).count < count, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(locks.entries.filter { !$0.granted }.count, count)
    }

    func testWaitersAreServedInTheOrderTheyCame() throws {
        let locks = LockManager()
        try locks.acquire(table: 7, owner: owner(1))
        let granted = Shared<[Int]>([])
        let done = DispatchGroup()
        for t in 2...5 {
            done.enter()
            Thread.detachNewThread {
                try? locks.acquire(table: 7, owner: Self.owner(t))
                granted.with { $0.append(t) }
                locks.releaseAll(t)
                done.leave()
            }
            // Each queued before the next comes.
            waitForWaiters(locks, t - 1)
        }
        XCTAssertTrue(locks.hasWaiters(table: 7))
        XCTAssertFalse(locks.hasWaiters(table: 8))
        locks.releaseAll(1)
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(granted.with { $0 }, [2, 3, 4, 5])
        XCTAssertFalse(locks.hasWaiters(table: 7))
        XCTAssertTrue(locks.entries.isEmpty)
    }

    /// A release hands the lock over at once: the waiter holds it (STV_LOCKS shows it
    /// granted to the waiter) before the waiter has even woken.
    func testReleaseHandsTheLockToTheFirstWaiter() throws {
        let locks = LockManager()
        try locks.acquire(table: 1, owner: owner(1))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? locks.acquire(table: 1, owner: Self.owner(2))
            done.signal()
        }
        waitForWaiters(locks, 1)
        locks.releaseAll(1)
        let holders = locks.entries.filter(\.granted).map(\.holder.transaction)
        XCTAssertEqual(holders, [2])
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        // A third transaction now waits for the second.
        let third = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? locks.acquire(table: 1, owner: Self.owner(3))
            third.signal()
        }
        waitForWaiters(locks, 1)
        XCTAssertEqual(third.wait(timeout: .now() + 0.2), .timedOut)
        locks.releaseAll(2)
        XCTAssertEqual(third.wait(timeout: .now() + 10), .success)
    }

    func testCancelledWaiterLeavesTheQueue() throws {
        let locks = LockManager()
        try locks.acquire(table: 3, owner: owner(1))
        let cancelled = Shared(false)
        let error = Shared<SQLError?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                try locks.acquire(table: 3, owner: Self.owner(2), isCancelled: {
                    cancelled.with { $0 } ? SQLError(.queryCanceled, "canceling statement due to user request") : nil
                })
            } catch let e as SQLError { error.with { $0 = e } } catch {}
            done.signal()
        }
        waitForWaiters(locks, 1)
        cancelled.with { $0 = true }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(error.with { $0?.code }, .queryCanceled)
        XCTAssertFalse(locks.hasWaiters(table: 3))
        // The lock is still the first holder's, and passes to nobody when released.
        XCTAssertEqual(locks.entries.map(\.holder.transaction), [1])
        locks.releaseAll(1)
        XCTAssertTrue(locks.entries.isEmpty)
        try locks.acquire(table: 3, owner: owner(4))
        XCTAssertEqual(locks.entries.map(\.holder.transaction), [4])
    }

    func testRequestClosingACycleFails() throws {
        let locks = LockManager()
        try locks.acquire(table: 1, owner: owner(1))
        try locks.acquire(table: 2, owner: owner(2))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? locks.acquire(table: 2, owner: Self.owner(1))   // 1 waits for 2
            done.signal()
        }
        waitForWaiters(locks, 1)
        XCTAssertThrowsError(try locks.acquire(table: 1, owner: owner(2))) { e in
            XCTAssertEqual((e as? SQLError)?.code, .deadlockDetected)
        }
        locks.releaseAll(2)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(Set(locks.entries.map(\.holder.transaction)), [1])
        locks.releaseAll(1)
    }
}
