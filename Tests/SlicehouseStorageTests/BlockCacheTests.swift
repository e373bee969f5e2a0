import XCTest
import SlicehouseTypes
import SlicehouseRuntime
@testable import SlicehouseStorage

/// The decoded-block cache keeps a block from its second decoding on, so a scan that
/// reads a table once does not fill it.
final class BlockCacheTests: XCTestCase {
    func block(_ values: [Int64]) throws -> BlockRef {
        let v = Vector(type: .bigint, data: .int64(values))
        let encoding = ColumnEncoding.raw
        let bytes = try BlockEncoder.encode(v, start: 0, count: values.count, encoding: encoding)
        return BlockRef(uid: BlockIDs.make(), payload: .memory(EncodedBytes(bytes)), encoding: encoding, firstRow: 0,
                        zone: ZoneMap.compute(v, start: 0, count: values.count))
    }

    func testABlockIsKeptFromItsSecondDecodingOn() throws {
        let pool = MemoryPool(limit: nil)
        let cache = BlockCache(capacityBytes: 1 << 20, pool: pool)
        let a = try block(Array(0..<1000)), b = try block(Array(1000..<1500))
        // First read: decoded, not kept.
        XCTAssertEqual(try cache.vector(a, type: .bigint).data, .int64(Array(0..<1000)))
        XCTAssertEqual(cache.usedBytes, 0)
        XCTAssertEqual(pool.usedBytes, 0)
        _ = try cache.vector(b, type: .bigint)
        XCTAssertEqual(cache.usedBytes, 0)
        // Second read: kept (and counted in the pool).
        XCTAssertEqual(try cache.vector(a, type: .bigint).data, .int64(Array(0..<1000)))
        let kept = cache.usedBytes
        XCTAssertEqual(kept, BlockCache.approximateBytes(Vector(type: .bigint, data: .int64(Array(0..<1000)))))
        XCTAssertEqual(pool.usedBytes, kept)
        // Third read: a hit, nothing more kept.
        XCTAssertEqual(try cache.vector(a, type: .bigint).data, .int64(Array(0..<1000)))
        XCTAssertEqual(cache.usedBytes, kept)
        _ = try cache.vector(b, type: .bigint)
        XCTAssertGreaterThan(cache.usedBytes, kept)
    }

    /// A cache of 0 bytes keeps nothing however often a block is read.
    func testAZeroCacheKeepsNothing() throws {
        let cache = BlockCache(capacityBytes: 0)
        let a = try block([1, 2, 3])
        for _ in 0..<3 { XCTAssertEqual(try cache.vector(a, type: .bigint).count, 3) }
        XCTAssertEqual(cache.usedBytes, 0)
    }
}
