// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a statement's work on a thread with a large stack.
///
/// Parsing, binding and planning recurse over the statement's trees. The parser bounds
/// their height (`Parser.maxHeight`, with long AND/OR/UNION runs balanced), but a tree
/// that is legal can still be deeper than the calling thread's stack allows: the main
/// thread has 8 MB, and a debug build's binder spends about 8 KB per level. Every
/// statement therefore runs on a thread of its own with `stackBytes` of stack (address
/// space, touched only as deep as the recursion goes), and the caller waits for it.
/// Already on such a thread, `body` runs directly.
public enum LargeStack {
    /// 256 MB: a tree `Parser.maxHeight` tall uses a small part of it even in debug builds.
    public static let stackBytes = 256 << 20

    /// `body`'s result (or error), computed on a thread with a large stack.
    public static func run<T>(_ body: () throws -> T) throws -> T {
        if isLargeStackThread { return try body() }
        return try withoutActuallyEscaping(body) { escapable in
            let job = Job(escapable)
            guard let thread = start(job) else { return try escapable() }  // no thread: run here
            _ = pthread_join(thread, nil)
            guard let result = job.result else { throw Failure.noResult }
            return try result.get()
        }
    }

    /// The statement's thread ended without a result (it cannot, short of the thread
    /// being cancelled).
    public enum Failure: Error, CustomStringConvertible {
        case noResult
        public var description: String { "statement thread produced no result" }
    }

    /// True on a thread started by `run`.
    public static var isLargeStackThread: Bool {
        guard let key = marker else { return false }
        return pthread_getspecific(key) != nil
    }

    private final class Job<T>: @unchecked Sendable {
        let body: () throws -> T
        var result: Result<T, Error>?
        init(_ body: @escaping () throws -> T) { self.body = body }
    }

    private static let marker: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    private static func start<T>(_ job: Job<T>) -> pthread_t? {
        PosixThread.start(stackBytes: stackBytes) {
            markThisThread()
            job.result = Result { try job.body() }
        }
    }

    /// Start a detached thread with a large stack running `body` (a pool thread that runs
    /// statements one after another: `run` on it calls its body directly). False when the
    /// system refuses a thread.
    public static func detach(_ body: @escaping () -> Void) -> Bool {
        guard let thread = PosixThread.start(stackBytes: stackBytes, {
            markThisThread()
            body()
        }) else { return false }
        _ = pthread_detach(thread)
        return true
    }

    private static func markThisThread() {
        if let key = LargeStack.marker { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }
    }
}

/// The one place the process starts POSIX threads of its own: a thread with a stack of
/// `stackBytes` running `body` (a statement's large-stack thread, which the caller joins;
/// the worker pool's threads, which it detaches). Nil when the system refuses one.
public enum PosixThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    public static func start(stackBytes: Int, _ body: @escaping () -> Void) -> pthread_t? {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        guard pthread_attr_setstacksize(&attributes, stackBytes) == 0 else { return nil }
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let rc = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        return thread
    }
}
