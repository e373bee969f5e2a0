// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// Whether a running statement should stop, and why.
///
/// One per statement. Any thread may cancel it — a client's CancelRequest,
/// `pg_cancel_backend`, `pg_terminate_backend`, Ctrl-C in the shell — and a statement
/// with `statement_timeout` set carries a deadline. The work checks it between pieces
/// (each scanned chunk, each nested-loop block, each exchanged chunk, every lock-wait
/// poll), so a statement stops within milliseconds and fails as a unit with the reason.
public final class Cancellation: @unchecked Sendable {
    private let lock = Lock()
    private var reason: SQLError?
    /// When set, the statement fails with `canceling statement due to statement timeout`
    /// once this many nanoseconds (DispatchTime's clock) have passed.
    private let deadline: UInt64?

    /// A statement that is never cancelled (the default for internal work).
    public static let none = Cancellation()

    public init(timeoutMilliseconds: Int? = nil) {
        if let ms = timeoutMilliseconds, ms > 0 {
            deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(ms) &* 1_000_000
        } else {
            deadline = nil
        }
    }

    /// Stop the statement with `error` (the first reason given wins).
    public func cancel(_ error: SQLError = Cancellation.userRequest) {
        lock.withLock { if reason == nil { reason = error } }
    }

    /// Take back `error` as the reason to stop, if it is the reason (WLM stopped the query
    /// to run it again in another queue). Another reason stays. Returns whether it did.
    @discardableResult
    public func withdraw(_ error: SQLError) -> Bool {
        lock.withLock {
            guard let r = reason, r.code == error.code, r.message == error.message else { return false }
            reason = nil
            return true
        }
    }

    /// The reason the statement must stop, or nil while it may go on.
    public var error: SQLError? {
        if let e = lock.withLock({ reason }) { return e }
        if let deadline, DispatchTime.now().uptimeNanoseconds >= deadline {
            cancel(Cancellation.timeout)
            return Cancellation.timeout
        }
        return nil
    }

    public var isCancelled: Bool { error != nil }

    /// Throw the reason when the statement must stop.
    @inline(__always)
    public func check() throws {
        if let e = error { throw e }
    }

    public static let userRequest = SQLError(.queryCanceled, "canceling statement due to user request")
    public static let timeout = SQLError(.queryCanceled, "canceling statement due to statement timeout")
    public static let terminated = SQLError(.adminShutdown, "terminating connection due to administrator command")
}
