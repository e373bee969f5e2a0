// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import SlicehouseRuntime

final class SystemMemoryTests: XCTestCase {
    func testTheAllocatorAcceptsItsSettings() {
        XCTAssertTrue(SystemMemory.tuneAllocator())
    }

    /// A worker thread (its own arena) fills and frees 240 MB in blocks of 4 MB, twice:
    /// the second time reuses the first time's pages instead of the kernel faulting them
    /// in again. (Without `topPad`, glibc unmapped the emptied 64 MB heaps, and about
    /// three quarters of the pages faulted again.)
    func testFreedMemoryOfAWorkerThreadIsReusedWithoutFaults() throws {
        XCTAssertTrue(SystemMemory.tuneAllocator())
        final class Result: @unchecked Sendable { var faults: [Int] = [] }
        let result = Result()
        let done = DispatchSemaphore(value: 0)
        let blockBytes = 4 << 20, blocks = 60
        let thread = Thread {
            func threadFaults() -> Int {
                var usage = rusage()
                getrusage(__rusage_who_t(1), &usage)   // RUSAGE_THREAD (not imported)
                return usage.ru_minflt
            }
            for _ in 0..<2 {
                let before = threadFaults()
                var held: [UnsafeMutableRawPointer] = []
                for _ in 0..<blocks {
                    guard let p = malloc(blockBytes) else { break }
                    for offset in stride(from: 0, to: blockBytes, by: 4096) {
                        p.storeBytes(of: UInt8(1), toByteOffset: offset, as: UInt8.self)
                    }
                    held.append(p)
                }
                for p in held.reversed() { free(p) }
                result.faults.append(threadFaults() - before)
            }
            done.signal()
        }
        thread.start()
        done.wait()
        let pages = blocks * blockBytes / 4096
        XCTAssertEqual(result.faults.count, 2)
        XCTAssertLessThan(result.faults.last ?? pages, pages / 10,
                          "\(result.faults) page faults: the second pass should reuse the first pass's \(pages) pages")
    }
}
