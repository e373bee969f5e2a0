// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// One bzip2 file decoded block by block on several threads gives exactly the serial
/// decoder's bytes, and every malformed file still fails (through the serial decoder's
/// error) instead of producing partial data.
final class Bzip2BlocksTests: XCTestCase {
    /// About `n` bytes of text that compress to many 100 kB blocks (level 1).
    func text(_ n: Int, seed: UInt64 = 1) -> [UInt8] {
        var x = seed
        var out: [UInt8] = []
        out.reserveCapacity(n + 64)
        while out.count < n {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            out += Array("\(x >> 40)|row \(x % 9973) \(x % 17 == 0 ? "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" : "")\n".utf8)
        }
        return out
    }

    func parallel(_ b: [UInt8], workers: Int = 3) throws -> [UInt8] {
        try b.withUnsafeBufferPointer { try Bzip2Blocks.decompress($0, workers: workers, minParallelBytes: 0, context: QueryContext()).toArray() }
    }
    func serial(_ b: [UInt8]) throws -> [UInt8] {
        try b.withUnsafeBufferPointer { try Bzip2Codec.decompress($0).toArray() }
    }
    func blockCount(_ b: [UInt8]) -> Int? {
        b.withUnsafeBufferPointer { Bzip2Blocks.locateBlocks($0, workers: 2, context: QueryContext())?.count }
    }

    func testManyBlocksDecodeInParallelToTheSameBytes() throws {
        let plain = text(1_500_000)
        let packed = try Bzip2Codec.compress(plain, blockSize100k: 1)
        let blocks = try XCTUnwrap(blockCount(packed))
        XCTAssertGreaterThanOrEqual(blocks, 10)        // the parallel path is taken
        XCTAssertEqual(try parallel(packed), plain)
        XCTAssertEqual(try parallel(packed, workers: 2), plain)
    }

    func testMultiStreamAndZeroPadding() throws {
        let a = text(400_000, seed: 2), b = text(300_000, seed: 3)
        let packed = try Bzip2Codec.compress(a, blockSize100k: 1) + Bzip2Codec.compress(b, blockSize100k: 2)
        XCTAssertNotNil(blockCount(packed))
        XCTAssertEqual(try parallel(packed), a + b)
        XCTAssertEqual(try parallel(packed + [UInt8](repeating: 0, count: 100)), a + b)
    }

    func testTruncatedFileFailsLikeTheSerialDecoder() throws {
        let packed = try Bzip2Codec.compress(text(800_000), blockSize100k: 1)
        for cut in [packed.count - 1, packed.count - 12, packed.count / 2] {
            let truncated = Array(packed[0..<cut])
            XCTAssertNil(blockCount(truncated), "cut \(cut): no end-of-stream marker, so no block split")
            XCTAssertThrowsError(try parallel(truncated), "cut \(cut)")
            XCTAssertThrowsError(try serial(truncated), "cut \(cut)")
        }
    }

    func testCorruptBlockFails() throws {
        var packed = try Bzip2Codec.compress(text(800_000), blockSize100k: 1)
        packed[packed.count / 3] ^= 0x5A
        XCTAssertThrowsError(try parallel(packed))
        XCTAssertThrowsError(try serial(packed))
    }

    func testStandaloneBlockStreamCarriesTheBlockCRC() throws {
        // A one-block file: the block cut out and wrapped again is the original file
        // apart from the level digit.
        let plain = Array("hello bzip2 blocks\n".utf8)
        let packed = try Bzip2Codec.compress(plain, blockSize100k: 9)
        let blocks = try XCTUnwrap(packed.withUnsafeBufferPointer { Bzip2Blocks.locateBlocks($0, workers: 1, context: QueryContext()) })
        XCTAssertEqual(blocks.count, 1)
        let wrapped = packed.withUnsafeBufferPointer { Bzip2Blocks.standalone($0, blocks[0]) }
        XCTAssertEqual(wrapped, packed)
        XCTAssertEqual(try serial(wrapped), plain)
    }
}
