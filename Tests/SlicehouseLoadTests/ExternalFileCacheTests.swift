// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseLoad
import SlicehouseStorage
import SlicehouseTypes

final class ExternalFileCacheTests: XCTestCase {
    func key(_ identity: String = "http://s3:9000|AKID1", object: String = "s3://b/t/part-0.parquet",
             version: String? = "\"etag1\"", offset: Int = 100) -> ExternalFileCache.Key {
        ExternalFileCache.Key(identity: identity, object: object, size: 1000, version: version, offset: offset, count: 8)
    }

    func testAHitNeedsTheSameIdentityObjectAndVersion() {
        let cache = ExternalFileCache(capacity: 1 << 20)
        cache.put(key(), [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(cache.get(key()), [1, 2, 3, 4, 5, 6, 7, 8])
        // Another access key (another role) never sees what the first one read.
        XCTAssertNil(cache.get(key("http://s3:9000|AKID2")))
        // The object written again (a new ETag) is read again.
        XCTAssertNil(cache.get(key(version: "\"etag2\"")))
        XCTAssertNil(cache.get(key(object: "s3://b/t/part-1.parquet")))
        XCTAssertNil(cache.get(key(offset: 108)))
    }

    func testLeastRecentlyUsedGoFirst() {
        let cache = ExternalFileCache(capacity: 4000)
        let kilobyte = [UInt8](repeating: 7, count: 1000)
        for i in 0..<3 { cache.put(key(offset: i), kilobyte) }
        _ = cache.get(key(offset: 0))            // 0 is used again: 1 is now the oldest
        cache.put(key(offset: 3), kilobyte)      // 4,000 bytes: at capacity, nothing goes
        cache.put(key(offset: 4), kilobyte)      // over: the oldest go until a tenth is free
        XCTAssertLessThanOrEqual(cache.bytes, 3600)
        XCTAssertNil(cache.get(key(offset: 1)))
        XCTAssertNotNil(cache.get(key(offset: 0)))
        XCTAssertNotNil(cache.get(key(offset: 4)))
        // A range larger than a quarter of the cache is not kept at all.
        cache.put(key(offset: 9), [UInt8](repeating: 1, count: 1001))
        XCTAssertNil(cache.get(key(offset: 9)))
    }

    func testDecodedColumnsAreKeptWithTheirZoneMaps() {
        let cache = ExternalFileCache(capacity: 1 << 20)
        let v = Vector(type: .bigint, data: .int64([5, 1, 9]))
        let zone = ZoneMap.compute(v, start: 0, count: 3)
        let k = ExternalFileCache.VectorKey(file: "id|s3://b/f|10|e", group: 0, column: 2, type: .bigint)
        cache.put(k, v, zone: zone)
        XCTAssertEqual(cache.vector(k)?.0.count, 3)
        XCTAssertEqual(cache.vector(k)?.1, zone)
        // The same column decoded as another type is another entry.
        XCTAssertNil(cache.vector(ExternalFileCache.VectorKey(file: "id|s3://b/f|10|e", group: 0, column: 2, type: .integer)))
        cache.removeAll()
        XCTAssertEqual(cache.bytes, 0)
    }
}
