// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
@testable import SlicehouseStorage

/// The decoded-block cache keeps a block from its second decoding on, so a scan that
/// reads a table once does not fill it.
final class BlockCacheTests: XCTestCase {
    /// A value shared with a closure the cache calls.
    final class Locked: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Int
        init(_ v: Int) { stored = v }
        var value: Int {
            get { lock.lock(); defer { lock.unlock() }; return stored }
            set { lock.lock(); stored = newValue; lock.unlock() }
        }
    }

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
        // Read again by the same statement (a self-join): still not kept.
        _ = try cache.vector(a, type: .bigint)
        XCTAssertEqual(cache.usedBytes, 0)
        // Second read by a later statement: kept (and counted in the pool).
        cache.beginStatement()
        XCTAssertEqual(try cache.vector(a, type: .bigint).data, .int64(Array(0..<1000)))
        let kept = cache.usedBytes
        // The values narrowed to 2 bytes each (they span 999), plus the piece's headers.
        XCTAssertEqual(kept, 1000 * 2 + 96)
        XCTAssertEqual(pool.usedBytes, kept)
        // Third read: a hit, nothing more kept.
        XCTAssertEqual(try cache.vector(a, type: .bigint).data, .int64(Array(0..<1000)))
        XCTAssertEqual(cache.usedBytes, kept)
        _ = try cache.vector(b, type: .bigint)
        XCTAssertGreaterThan(cache.usedBytes, kept)
        // A block first read by this statement waits for the next one.
        let c = try block([7, 8])
        _ = try cache.vector(c, type: .bigint)
        let before = cache.usedBytes
        _ = try cache.vector(c, type: .bigint)
        XCTAssertEqual(cache.usedBytes, before)
        cache.beginStatement()
        _ = try cache.vector(c, type: .bigint)
        XCTAssertGreaterThan(cache.usedBytes, before)
    }

    /// A cache of 0 bytes keeps nothing however often a block is read.
    /// Blocks a load wrote count as read once by the load's statement: the next
    /// statement's first read keeps them; the load's own statement does not.
    func testBlocksALoadWroteAreKeptFromTheNextStatementsRead() throws {
        let cache = BlockCache(capacityBytes: 1 << 20)
        let a = try block(Array(0..<1000)), b = try block(Array(0..<1000))
        cache.noteWritten([a.uid])
        _ = try cache.vector(a, type: .bigint)
        XCTAssertEqual(cache.usedBytes, 0, "the loading statement itself keeps nothing")
        cache.beginStatement()
        _ = try cache.vector(a, type: .bigint)
        XCTAssertEqual(cache.blockCount, 1, "the next statement's first read keeps it")
        _ = try cache.vector(b, type: .bigint)
        XCTAssertEqual(cache.blockCount, 1, "a block no load wrote waits for its second read")
    }

    /// A cache following the data keeps at most twice its encoded bytes, at least 64 MB,
    /// never more than its configured capacity; the size is asked again after a second.
    func testAFollowingCacheIsSizedFromTheData() throws {
        let cache = BlockCache(capacityBytes: 1 << 30)
        XCTAssertEqual(cache.capacityBytes, 1 << 30)
        let data = Locked(0)
        cache.followData { data.value }
        XCTAssertEqual(cache.capacityBytes, BlockCache.followedMinimum, "little data: the minimum")
        data.value = 300 << 20
        XCTAssertEqual(cache.capacityBytes, BlockCache.followedMinimum, "asked at most once a second")
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(cache.capacityBytes, 600 << 20, "twice the data's bytes")
        data.value = 8 << 30
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(cache.capacityBytes, 1 << 30, "at most the configured capacity")
        // What it holds follows: a block past the capacity is not kept.
        let small = BlockCache(capacityBytes: 1 << 30)
        small.followData { 0 }
        let a = try block(Array(0..<1000))
        small.noteWritten([a.uid])
        small.beginStatement()
        _ = try small.vector(a, type: .bigint)
        XCTAssertEqual(small.blockCount, 1)
    }

    func testAZeroCacheKeepsNothing() throws {
        let cache = BlockCache(capacityBytes: 0)
        let a = try block([1, 2, 3])
        for _ in 0..<3 {
            cache.beginStatement()
            XCTAssertEqual(try cache.vector(a, type: .bigint).count, 3)
        }
        XCTAssertEqual(cache.usedBytes, 0)
    }

    /// A decoded block is cut at the slice's multiples of the chunk capacity.
    func testDecodedBlocksAreCutAtMultiplesOfTheChunkCapacity() {
        let c = Chunk.capacity
        let n = 2 * c + 100
        var validity = Validity(allValid: n)
        for r in stride(from: 0, to: n, by: 7) { validity.setInvalid(r) }
        let ints = Vector(type: .bigint, data: .int64((0..<Int64(n)).map { $0 * 3 }), validity: validity)
        var strings = StringArray(reservingCount: n, bytes: n * 3)
        for r in 0..<n { strings.append(String(r)) }
        let text = Vector(type: .varchar(10), data: .string(strings))
        for firstRow in [0, 5, c - 1, c, 3 * c + 17] {
            for v in [ints, text] {
                let d = DecodedBlock(v, firstRow: firstRow)
                XCTAssertEqual(d.count, n)
                // Every piece but the first starts at a multiple; none is longer than a chunk.
                var row = firstRow
                for (i, p) in d.pieces.enumerated() {
                    if i > 0 { XCTAssertEqual(row % c, 0, "piece \(i) of a block at \(firstRow)") }
                    XCTAssertLessThanOrEqual(p.count, c)
                    XCTAssertGreaterThan(p.count, 0)
                    row += p.count
                }
                XCTAssertEqual(row, firstRow + n)
                // Each row is found in its piece, with its value and NULL-ness.
                for r in [0, 1, c - 1, c, c + 1, n - 1] + Array(stride(from: 0, to: n, by: 97)) {
                    let (piece, offset) = d.piece(containing: firstRow + r)
                    XCTAssertEqual(piece.value(at: offset), v.value(at: r), "row \(r) of a block at \(firstRow)")
                }
                let joined = d.joined()
                XCTAssertEqual(joined.data, v.data)
                XCTAssertEqual((0..<n).map { joined.isNull($0) }, (0..<n).map { v.isNull($0) })
            }
        }
        // Not cut: one piece, rows found by their offset in the block.
        let whole = DecodedBlock(ints, firstRow: 5, cut: false)
        XCTAssertEqual(whole.pieces.count, 1)
        XCTAssertEqual(whole.piece(containing: 5 + c + 3).offset, c + 3)
        XCTAssertEqual(whole.piece(containing: 5 + n - 1).vector.value(at: n - 1), ints.value(at: n - 1))
        // A block within one chunk's rows is one piece: the decoded vector itself.
        let small = Vector(type: .bigint, data: .int64([1, 2, 3]))
        XCTAssertEqual(DecodedBlock(small, firstRow: 10).pieces.count, 1)
        XCTAssertEqual(DecodedBlock(small, firstRow: 10).piece(containing: 12).offset, 2)
    }
}
