// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseStorage
import XCTest

/// The vector kernels under AZ64's plan and the block writer: each must give exactly
/// what the plain loop gives, at every length around its lane counts and at the
/// extremes of the type.
final class EncoderKernelTests: XCTestCase {
    func testMinMaxAtEveryLengthAndExtreme() {
        var rng = EncRNG(21)
        XCTAssertNil([Int64]().withUnsafeBufferPointer { MinMax.of($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, 0) })
        for k in 1...70 {
            for shape in 0..<4 {
                var xs = (0..<k).map { _ in Int64(bitPattern: rng.next()) >> (shape == 1 ? 40 : 0) }
                if shape == 2 { xs[Int(rng.next() % UInt64(k))] = .min }
                if shape == 3 { xs = xs.map { _ in 7 }; xs[k - 1] = .max }
                let got = xs.withUnsafeBufferPointer { MinMax.of($0.baseAddress!, k) }
                XCTAssertEqual(got?.min, xs.min(), "k \(k) shape \(shape)")
                XCTAssertEqual(got?.max, xs.max(), "k \(k) shape \(shape)")
            }
        }
    }

    /// The 32-bit range's counts (eight lanes, then one value at a time) agree with
    /// the generic loop's for groups of any length, ranges from a few bits to 32.
    func testTopWidthCountsOfNarrowRangesAgreeWithTheGenericCount() {
        var rng = EncRNG(22)
        for k in [1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 100, 127, 128] {
            for bits in [3, 5, 11, 20, 31, 32] {
                let lo = Int64(bitPattern: rng.next()) >> 2
                var xs = (0..<k).map { _ in lo &+ Int64(rng.next() & ((1 << UInt64(bits)) - 1)) }
                xs[0] = lo
                let hi = xs.max()!
                let range = UInt64(hi - lo)
                guard range > 4 else { continue }
                let full = 64 - range.leadingZeroBitCount
                xs.withUnsafeMutableBufferPointer { p in
                    let fast = AZ64.topWidthCounts32(UnsafePointer(p.baseAddress!), k, lo: lo, range: UInt32(range), full: full)
                    let plain = AZ64.topWidthCounts(p.baseAddress!, k, lo: lo, hi: hi, full: full)
                    XCTAssertTrue(fast.low == plain.low && fast.high == plain.high,
                                  "k \(k) bits \(bits): \(fast) against \(plain)")
                }
            }
        }
    }

    /// `extend(upTo:)` hands out zeroed room, of any size (more than its page of zeros
    /// too), and keeps only what the body says it wrote.
    func testExtendGivesZeroedRoomAndKeepsWhatWasWritten() {
        for n in [1, 8, 4095, 4096, 4097, 10_000] {
            var w = EncodingWriter()
            w.u8(7)
            var sawNonZero = false
            w.extend(upTo: n + 3) { buf in
                sawNonZero = buf.contains { $0 != 0 }
                buf[0] = 1
                buf[n - 1] = 2
                return n
            }
            XCTAssertFalse(sawNonZero, "\(n)")
            XCTAssertEqual(w.count, n + 1)
            XCTAssertEqual(w.bytes.first, 7)
            XCTAssertEqual(w.bytes[1], n == 1 ? 2 : 1)
            XCTAssertEqual(w.bytes.last, 2)
            XCTAssertEqual(w.bytes[1..<(n + 1)].filter { $0 != 0 }.count, n == 1 ? 1 : 2)
        }
    }
}
