import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage

/// A hash join's build keys as a runtime filter: a bitmap over a narrow range, a Bloom
/// filter over a wide one, never dropping a key that is there.
final class RuntimeKeyFilterTests: XCTestCase {
    func filter(_ keys: [Int64], valid: [Bool]? = nil) -> RuntimeKeyFilter {
        keys.withUnsafeBufferPointer { k in
            guard let valid else { return RuntimeKeyFilter.of(k, valid: nil) }
            return valid.withUnsafeBufferPointer { RuntimeKeyFilter.of(k, valid: $0) }
        }
    }

    func keeps(_ f: RuntimeKeyFilter, _ keys: [Int64]) -> [Int32] {
        SliceScanner.keep(Vector(type: .bigint, data: .int64(keys)), from: 0, count: keys.count, filter: f,
                          selection: nil, deleted: DeleteSet(), firstRow: 0)
    }

    func testANarrowRangeIsABitmap() {
        let f = filter([10, 12, 1000])
        XCTAssertEqual(f.low, 10)
        XCTAssertEqual(f.high, 1000)
        XCTAssertNotNil(f.bits)
        XCTAssertNil(f.bloom)
        XCTAssertEqual(keeps(f, [9, 10, 11, 12, 999, 1000, 1001]), [1, 3, 5])
    }

    /// Keys spread over 100 million values (a distributed order key): a Bloom filter keeps
    /// every key and few others.
    func testAWideRangeIsABloomFilterWithoutFalseNegatives() {
        let keys = (0..<100_000).map { Int64($0) * 997 + 5 }          // up to ~99.7 million
        let f = filter(keys)
        XCTAssertNil(f.bits)
        guard let bloom = f.bloom else { return XCTFail("no Bloom filter") }
        XCTAssertEqual(bloom.count & (bloom.count - 1), 0, "a power of two of words")
        XCTAssertGreaterThanOrEqual(bloom.count * 64, keys.count * 16, "at least 16 bits per key")
        XCTAssertEqual(keeps(f, keys).count, keys.count)
        // Values between the keys: about 1% pass.
        let others = (0..<100_000).map { Int64($0) * 997 + 6 }
        let passed = keeps(f, others).count
        XCTAssertLessThan(passed, others.count / 20, "\(passed) false positives of \(others.count)")
        // Outside the range: none.
        XCTAssertEqual(keeps(f, [4, -1, Int64.min, Int64.max, 99_999 * 997 + 6]).count, 0)
    }

    /// NULL keys are left out; one key; extremes; no key at all.
    func testEdges() {
        let f = filter([Int64.min, 0, Int64.max], valid: [true, false, true])
        XCTAssertEqual(f.low, Int64.min)
        XCTAssertEqual(f.high, Int64.max)
        XCTAssertNil(f.bits)
        XCTAssertEqual(keeps(f, [Int64.min, Int64.max]), [0, 1])
        XCTAssertEqual(keeps(f, [0, 1, -1]).count, 0, "only the Bloom filter can drop these; 3 keys in 64 words")
        let one = filter([42])
        XCTAssertEqual(keeps(one, [41, 42, 43]), [1])
        XCTAssertTrue(filter([1], valid: [false]).isEmpty)
        XCTAssertTrue(filter([]).isEmpty)
        // A NULL probe value never passes.
        var probe = Vector(type: .bigint, data: .int64([42, 42]))
        probe.validity = Validity(allValid: 2)
        probe.validity?.setInvalid(0)
        XCTAssertEqual(SliceScanner.keep(probe, from: 0, count: 2, filter: one, selection: nil, deleted: DeleteSet(),
                                         firstRow: 0), [1])
    }

    /// The rows of a selection, and a block read from an offset, deleted rows left out.
    func testSelectionsOffsetsAndDeletedRows() {
        let keys: [Int64] = [7, 10, 12, 13, 1000, 10, 99]
        let narrow = filter([10, 12, 1000])
        let wide = filter([10, 12, 1000, 50_000_000])
        XCTAssertNotNil(wide.bloom)
        for f in [narrow, wide] {
            let v = Vector(type: .bigint, data: .int64(keys))
            XCTAssertEqual(SliceScanner.keep(v, from: 0, count: 7, filter: f, selection: [0, 2, 3, 5, 6],
                                             deleted: DeleteSet(), firstRow: 0), [2, 5])
            XCTAssertEqual(SliceScanner.keep(v, from: 0, count: 7, filter: f, selection: [],
                                             deleted: DeleteSet(), firstRow: 0), [])
            // From offset 2: rows 0..<4 are keys 12, 13, 1000, 10.
            XCTAssertEqual(SliceScanner.keep(v, from: 2, count: 4, filter: f, selection: nil,
                                             deleted: DeleteSet(), firstRow: 0), [0, 2, 3])
            var deleted = DeleteSet()
            deleted.insert(102)
            XCTAssertEqual(SliceScanner.keep(v, from: 2, count: 4, filter: f, selection: nil,
                                             deleted: deleted, firstRow: 100), [0, 3])
        }
    }

    /// Too many keys for the largest Bloom filter: the range check alone.
    func testTooManyKeysForABloomFilter() {
        let n = RuntimeKeyFilter.maximumBloomWords * 4 + 1
        let keys = [Int64](unsafeUninitializedCapacity: n) { buf, count in
            for i in 0..<n { buf[i] = Int64(i) * 16 }
            count = n
        }
        let f = filter(keys)
        XCTAssertNil(f.bits)
        XCTAssertNil(f.bloom)
        XCTAssertEqual(keeps(f, [1, 16, -1]), [0, 1])
    }
}
