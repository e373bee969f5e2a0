#if canImport(Glibc)
import Glibc
#endif

/// The process's heap as the C allocator keeps it.
///
/// glibc's malloc keeps the pages of freed memory in its arenas (one per thread that
/// allocated, up to eight per core) for later allocations instead of returning them; after
/// a COPY or a query that held hundreds of megabytes, the process's resident size stays
/// at its peak although nothing holds the memory. `releaseFreePages` hands those pages
/// back (`malloc_trim(0)`: every arena's free pages, not only the top of the main heap).
public enum SystemMemory {
    private typealias Trim = @convention(c) (Int) -> Int32

    /// glibc's `malloc_trim`, looked up at run time (nil with another C library).
    nonisolated(unsafe) private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }   // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    /// Return the allocator's free pages to the system. Takes about a millisecond per
    /// gigabyte of heap: call it after large work, not after every small statement.
    public static func releaseFreePages() {
        _ = trim?(0)
    }

    /// Held memory past which a statement's end releases free pages. High: a query's freed
    /// pages are reused by the next one without faulting them in again (releasing them
    /// after every query of 64 MB or more cost SF 10's queries about a fifth of their time
    /// under `--memory 4GB`); what a load frees is released after every COPY.
    public static let releaseAfterBytes = 1 << 30
}
