// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A small mutex wrapper (Foundation's NSLock) with a scoped API.
public final class Lock: @unchecked Sendable {
    private let l = NSLock()
    public init() {}
    @inlinable public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lockRaw(); defer { unlockRaw() }
        return try body()
    }
    @usableFromInline func lockRaw() { l.lock() }
    @usableFromInline func unlockRaw() { l.unlock() }
}
