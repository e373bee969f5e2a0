// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Protects the recursive-descent parser from running out of stack.
///
/// Deeply nested input (thousands of parentheses) would otherwise recurse until the
/// thread's stack overflows and the process crashes. Like PostgreSQL's
/// `check_stack_depth()`, the parser compares the current stack position with the
/// lowest usable address of the thread's stack (found once per parse) and reports an
/// error while a safety margin is left. A fixed nesting limit (`Parser.maxDepth`)
/// backs this up where the stack bounds cannot be found, and keeps trees shallow
/// enough for the recursive passes that consume them.
struct StackGuard {
    /// Stop parsing when fewer than this many bytes of stack are left.
    static let safetyMargin: UInt = 128 * 1024
    /// Finding the stack bounds can be slow (on Linux's main thread it reads
    /// /proc/self/maps), so it is only done once nesting gets this deep, and remembered
    /// per thread. Kept small: a debug build's parser takes about 20 KB of stack per
    /// level of `f(f(...))`, so a 256 KB thread overflowed before a check at 16 came.
    static let checkFromDepth = 4

    /// Whether the stack's bounds were looked up, and the address below which the parser
    /// must not recurse (0: unknown on this platform). Plain integers: a generic type
    /// here (`UInt??`) had its metadata instantiated at the first check, deep in the
    /// recursion, and the runtime's demangler needs more stack than is left there.
    private var lookedUp = false
    private var bound: UInt = 0

    init() {}

    /// True while the stack still has room for recursion at nesting `depth`.
    mutating func hasRoom(depth: Int) -> Bool {
        guard depth >= StackGuard.checkFromDepth else { return true }
        if !lookedUp {
            lookedUp = true
            if let low = StackGuard.cachedStackLowAddress() { bound = low + StackGuard.safetyMargin }
        }
        if bound == 0 { return true }
        return StackGuard.approximateStackPointer() > bound
    }

    /// The address of a local variable: close enough to the stack pointer.
    @inline(never)
    static func approximateStackPointer() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    #if canImport(Glibc) || canImport(Musl)
    private typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32

    /// `pthread_getattr_np`, a GNU extension the Swift Glibc module does not export,
    /// looked up once at run time.
    private static let pthreadGetAttributes: GetAttributes? = {
        guard let symbol = dlsym(nil, "pthread_getattr_np") else { return nil }
        return unsafeBitCast(symbol, to: GetAttributes.self)
    }()
    #endif

    /// A thread-specific slot remembering each thread's stack bottom (0 = unknown).
    private static let cacheKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// `currentThreadStackLowAddress()`, looked up once per thread.
    private static func cachedStackLowAddress() -> UInt? {
        guard let key = cacheKey else { return currentThreadStackLowAddress() }
        if let cached = pthread_getspecific(key) { return UInt(bitPattern: cached) }
        guard let low = currentThreadStackLowAddress() else { return nil }
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: low))
        return low
    }

    /// The lowest address of the current thread's stack (stacks grow downwards).
    private static func currentThreadStackLowAddress() -> UInt? {
        #if canImport(Glibc) || canImport(Musl)
        guard let getAttributes = StackGuard.pthreadGetAttributes else { return nil }
        var attributes = pthread_attr_t()
        guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address else { return nil }
        return UInt(bitPattern: address)
        #elseif canImport(Darwin)
        let top = UInt(bitPattern: pthread_get_stackaddr_np(pthread_self()))
        let size = UInt(pthread_get_stacksize_np(pthread_self()))
        return top > size ? top - size : nil
        #else
        return nil
        #endif
    }
}
