// SPDX-License-Identifier: Apache-2.0
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
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32

    /// glibc's `malloc_trim` and `mallopt`, looked up at run time (Swift's Glibc module
    /// does not import malloc.h; nil with another C library).
    private static let trim = cFunction("malloc_trim", as: Trim.self)
    private static let mallopt = cFunction("mallopt", as: Mallopt.self)

    /// The C library's function `name` as a function of type `F`, or nil.
    private static func cFunction<F>(_ name: String, as _: F.Type) -> F? {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, name) else { return nil }   // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: F.self)
        #else
        return nil
        #endif
    }

    /// The allocator's settings for a process that runs queries and loads (the
    /// `slicehouse` executable sets them first thing).
    ///
    /// By default glibc hands out blocks above a threshold (128 KB at first, rising to at
    /// most 32 MB) as fresh mmap()s and unmaps them on free, gives the top of a heap back
    /// on a large free, and a thread's arena unmaps a heap (64 MB) as soon as it is
    /// wholly free. Each time, the next allocation has the kernel fault in and zero the
    /// pages again, at about 2 µs a page on these machines (a third of a COPY's system
    /// time before the thresholds; a quarter of SF 10's Q9 page faults before the pad). So:
    /// - `mmapThreshold`: blocks up to 1 GB come from the arenas (a thread's arena still
    ///   maps a block larger than its 64 MB heaps on its own).
    /// - `trimThreshold`: a heap's top is given back only past 512 MB free.
    /// - `topPad`: the free space a heap keeps when it shrinks. An emptied heap of a
    ///   thread's arena is unmapped only if the heap before it then has this much free at
    ///   its top, which a 64 MB heap never has: heaps stay mapped for the next operator.
    /// Memory freed this way stays with the process until `releaseFreePages`, which a
    /// statement's end calls after a load or a large query.
    ///
    /// The arenas are left at glibc's default (eight per core). Two arenas (`M_ARENA_MAX`)
    /// lowered TPC-DS SF 1's peak from about 800 to 760 MB, but made TPC-H SF 1's queries
    /// about 8% and its load about 7% slower, in three alternated runs each (63rd
    /// sitting; the cause was not profiled — threads sharing an arena's lock is the guess).
    public static let mmapThreshold: Int32 = 1 << 30
    public static let trimThreshold: Int32 = 512 << 20
    public static let topPad: Int32 = 64 << 20

    /// Apply `mmapThreshold`, `trimThreshold` and `topPad`; false when the C library is
    /// not glibc or refused one of them.
    @discardableResult
    public static func tuneAllocator() -> Bool {
        guard let mallopt else { return false }
        let trimOption: Int32 = -1, padOption: Int32 = -2, mmapOption: Int32 = -3   // M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD
        let accepted = [mallopt(mmapOption, mmapThreshold), mallopt(trimOption, trimThreshold), mallopt(padOption, topPad)]
        return accepted.allSatisfy { $0 == 1 }
    }

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
