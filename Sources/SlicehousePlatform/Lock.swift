// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small mutex with a scoped API.
///
/// On Linux it is glibc's adaptive mutex: a thread that finds it held spins a little
/// before it sleeps in the kernel. The process's locks guard short sections (a cache's
/// dictionary, a log's buffer, the store's state), so a waiter usually gets the lock
/// within the spin, and the futex sleep and wake-up it saves cost more than the section
/// itself (short statements from many connections take the same few locks each).
public final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lockRaw(); defer { unlockRaw() }
        return try body()
    }
    @inlinable func lockRaw() { pthread_mutex_lock(mutex) }
    @inlinable func unlockRaw() { pthread_mutex_unlock(mutex) }
}
