// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage

/// A hash join's build keys as a runtime filter: a bitmap over a narrow range, a coarse
/// bitmap for a few keys over a wider one, a Bloom filter over a wide one, never
/// dropping a key that is there.
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
        XCTAssertGreaterThanOrEqual(bloom.count * 64, keys.count * 8, "at least 8 bits per key")
        XCTAssertEqual(keeps(f, keys).count, keys.count)
        // Values between the keys: about 1% pass.
        let others = (0..<100_000).map { Int64($0) * 997 + 6 }
        let passed = keeps(f, others).count
        XCTAssertLessThan(passed, others.count / 20, "\(passed) false positives of \(others.count)")
        // Outside the range: none.
        XCTAssertEqual(keeps(f, [4, -1, Int64.min, Int64.max, 99_999 * 997 + 6]).count, 0)
    }

    /// A range wider than 8 M values but under 64 M is a bitmap when there is a key for
    /// every 4,096 values (a slice's order keys at SF 10), a coarse bitmap when sparser; a
    /// range of 64 M values or more is a Bloom filter. NULL keys do not count.
    func testDenseKeysOverAWideRangeAreABitmap() {
        let span = RuntimeKeyFilter.maximumDenseBitmapSpan - 1           // high - low
        let per = RuntimeKeyFilter.denseSpanPerKey
        let needed = Int(span / per)
        func spread(_ count: Int, over width: Int64) -> [Int64] {
            (0..<count).map { 7 + Int64($0) * (width / Int64(count - 1)) } + [7 + width]
        }
        let dense = spread(needed - 1, over: span)                        // `needed` keys, high - low = span
        XCTAssertEqual(dense.count, needed)
        let f = filter(dense)
        XCTAssertEqual(f.high - f.low, span)
        XCTAssertNotNil(f.bits)
        XCTAssertNil(f.bloom)
        XCTAssertEqual(f.bits?.count, Int(span) / 64 + 1)
        XCTAssertEqual(keeps(f, dense).count, dense.count, "every key passes")
        XCTAssertEqual(keeps(f, dense.dropLast().map { $0 + 1 }).count, 0, "the bitmap is exact")
        XCTAssertEqual(keeps(f, [6, 8 + span, .min, .max]).count, 0)
        // Its bytes are asked for; refused, a coarse bitmap (at most 128 KB, as a Bloom
        // filter, asked for by neither). A narrow bitmap asks nothing.
        var asked: [Int] = []
        let refused = dense.withUnsafeBufferPointer { k in
            RuntimeKeyFilter.of(k, valid: nil) { asked.append($0); return false }
        }
        // The bitmap's bytes and its summary's (a sixteenth: the bitmap is over 2 MB).
        XCTAssertEqual(asked, [(Int(span) / 64 + 1) * 8 + ((Int(span) / 64 + 1) * 8) >> 4])
        XCTAssertNotNil(f.summary)
        XCTAssertEqual(refused.shift, 6)
        XCTAssertEqual(refused.bits?.count, (1 << 20) / 64)
        XCTAssertNil(refused.bloom)
        XCTAssertEqual(keeps(refused, dense).count, dense.count)
        let narrowKeys: [Int64] = [0, RuntimeKeyFilter.maximumBitmapSpan - 1]
        let plain = narrowKeys.withUnsafeBufferPointer { k in
            RuntimeKeyFilter.of(k, valid: nil) { asked.append($0); return false }
        }
        XCTAssertNotNil(plain.bits)
        XCTAssertEqual(asked.count, 1)
        // One key fewer (a NULL in its place): a coarse bitmap.
        var valid = [Bool](repeating: true, count: dense.count)
        valid[3] = false
        let sparse = filter(dense, valid: valid)
        XCTAssertEqual(sparse.shift, 6)
        XCTAssertNil(sparse.bloom)
        XCTAssertEqual(keeps(sparse, dense).count, dense.count - 1)
        // A span of 64 M values: a Bloom filter however dense (here 1 key in 1,024).
        let wide = spread(Int(span / 1_024), over: span + 1)
        XCTAssertEqual(filter(wide).high - filter(wide).low, span + 1)
        XCTAssertNil(filter(wide).bits)
        XCTAssertNotNil(filter(wide).bloom)
        // Just over 8 M values with a key in 4,096: a bitmap; with fewer keys, a coarse one.
        let narrow = RuntimeKeyFilter.maximumBitmapSpan
        XCTAssertEqual(filter(spread(Int(narrow / per), over: narrow)).shift, 0)
        XCTAssertEqual(filter(spread(Int(narrow / per) - 2, over: narrow)).shift, 4)
        XCTAssertNotNil(filter([0, narrow - 1]).bits, "under 8 M values: a bitmap for two keys")
    }

    /// An exact bitmap over 2 MB (a span over 16 M values) has a summary, one bit per 16
    /// values, set exactly for the groups that hold a key; a scan's test through it keeps
    /// the rows the bitmap alone keeps (keys, values next to them, the range's ends and
    /// beyond, NULLs, selections, offsets, deleted rows). Keys filling more than half the
    /// groups, or a bitmap of 2 MB or less, have none.
    func testABitmapBeyondTheCachesHasASummary() {
        var rng = SystemRandomNumberGenerator()
        let lo: Int64 = -5_000_003
        let span: Int64 = 20_000_000
        var keys = (0..<200_000).map { _ in lo + Int64.random(in: 0...span, using: &rng) } + [lo, lo + span]
        keys.shuffle(using: &rng)
        let f = filter(keys)
        XCTAssertEqual(f.shift, 0)
        guard let summary = f.summary, let bits = f.bits else { return XCTFail("no summary") }
        XCTAssertGreaterThan(bits.count * 8, RuntimeKeyFilter.summaryMinimumBytes)
        let groups = Set(keys.map { ($0 - lo) >> 4 })
        var set = 0
        for c in 0..<(summary.count * 64) where summary[c >> 6] & (1 << UInt64(c & 63)) != 0 {
            XCTAssertTrue(groups.contains(Int64(c)), "group \(c) has no key")
            set += 1
        }
        XCTAssertEqual(set, groups.count)
        // The same filter without its summary: the bitmap alone.
        var plain = f
        plain.summary = nil
        var probe = (0..<50_000).map { _ in lo - 40 + Int64.random(in: 0...(span + 80), using: &rng) }
        probe += keys.prefix(20_000).flatMap { [$0 - 1, $0, $0 + 1, $0 + 16] }
        probe += [lo - 1, lo, lo + 15, lo + 16, lo + span, lo + span + 1, .min, .max]
        var v = Vector(type: .bigint, data: .int64(probe))
        for nulls in [false, true] {
            if nulls {
                v.validity = Validity(allValid: probe.count)
                for i in stride(from: 3, to: probe.count, by: 7) { v.validity?.setInvalid(i) }
            }
            let all = SliceScanner.keep(v, from: 0, count: probe.count, filter: plain, selection: nil,
                                        deleted: DeleteSet(), firstRow: 0)
            XCTAssertGreaterThan(all.count, 15_000, "keys pass")
            XCTAssertEqual(SliceScanner.keep(v, from: 0, count: probe.count, filter: f, selection: nil,
                                             deleted: DeleteSet(), firstRow: 0), all, "nulls \(nulls)")
            let selection = (0..<Int32(probe.count)).filter { $0 % 3 != 1 }
            XCTAssertEqual(SliceScanner.keep(v, from: 0, count: probe.count, filter: f, selection: selection,
                                             deleted: DeleteSet(), firstRow: 0),
                           SliceScanner.keep(v, from: 0, count: probe.count, filter: plain, selection: selection,
                                             deleted: DeleteSet(), firstRow: 0))
            var deleted = DeleteSet()
            for r in stride(from: 1_000, to: 1_000 + probe.count, by: 5) { deleted.insert(r) }
            XCTAssertEqual(SliceScanner.keep(v, from: 10, count: probe.count - 10, filter: f, selection: nil,
                                             deleted: deleted, firstRow: 1_000),
                           SliceScanner.keep(v, from: 10, count: probe.count - 10, filter: plain, selection: nil,
                                             deleted: deleted, firstRow: 1_000))
        }
        // A key in every group: no summary (it would pass every row).
        XCTAssertNil(filter((0..<Int64(1_250_001)).map { lo + $0 * 16 }).summary)
        // 2 MB of bitmap or less (16 M values): none.
        let small = filter([0, Int64(RuntimeKeyFilter.summaryMinimumBytes) * 8 - 1] + (1..<5_000).map { Int64($0) * 3_000 })
        XCTAssertNotNil(small.bits)
        XCTAssertEqual(small.shift, 0)
        XCTAssertNil(small.summary)
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
        let wide = filter([10, 12, 1000, 100_000_000])
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

    /// A few keys over a range of 8 M to 64 M values (Q18's 150 order keys a slice at
    /// SF 10): a coarse bitmap, one bit per 2^shift values, at most 2^20 bits and at least
    /// 64 a key. Every key passes; a value passes exactly when it shares a bit with a key.
    func testFewKeysOverAWideRangeAreACoarseBitmap() {
        let keys: [Int64] = (0..<150).map { (i: Int) -> Int64 in
            let jitter = Int64((i * 7_919) % 1_000)
            return Int64(i) * 400_000 + jitter + 3
        }
        let f = filter(keys)
        let span = f.high - f.low
        XCTAssertEqual(f.low, 3)
        XCTAssertGreaterThan(span, RuntimeKeyFilter.maximumBitmapSpan)
        XCTAssertEqual(f.shift, 6)
        XCTAssertNil(f.bloom)
        XCTAssertEqual(f.bits?.count, Int(span >> 6) / 64 + 1)
        let buckets = Set(keys.map { ($0 - f.low) >> 6 })
        func passes(_ x: Int64) -> Bool {
            x >= f.low && x <= f.high && buckets.contains((x - f.low) >> 6)
        }
        var rng = SystemRandomNumberGenerator()
        var probe: [Int64] = keys
        probe += keys.map { (k: Int64) -> Int64 in k + 1 }
        probe += keys.map { (k: Int64) -> Int64 in k - 64 }
        probe += keys.map { (k: Int64) -> Int64 in (k | 63) + 1 }
        let edges: [Int64] = [f.low - 1, f.high + 1, f.high, .min, .max, 0, -3]
        probe += edges
        probe += (0..<20_000).map { _ in Int64.random(in: -1_000...61_000_000, using: &rng) }
        let expected = probe.indices.filter { passes(probe[$0]) }.map { Int32($0) }
        XCTAssertEqual(keeps(f, probe), expected)
        XCTAssertEqual(keeps(f, keys).count, keys.count, "every key passes")
        XCTAssertLessThan(expected.count, keys.count * 3 + 200, "few values far from the keys pass")
        // A selection, an offset, deleted rows and a NULL (the general loop).
        let v = Vector(type: .bigint, data: .int64(probe))
        let selection = (0..<Int32(probe.count - 10)).filter { $0 % 3 != 1 }
        XCTAssertEqual(SliceScanner.keep(v, from: 10, count: probe.count - 10, filter: f, selection: selection,
                                         deleted: DeleteSet(), firstRow: 0),
                       selection.filter { passes(probe[10 + Int($0)]) })
        var deleted = DeleteSet()
        deleted.insert(100)
        XCTAssertEqual(SliceScanner.keep(v, from: 0, count: 300, filter: f, selection: nil, deleted: deleted,
                                         firstRow: 100),
                       (0..<Int32(300)).filter { $0 != 0 && passes(probe[Int($0)]) })
        var nulls = Vector(type: .bigint, data: .int64(Array(keys.prefix(3))))
        nulls.validity = Validity(allValid: 3)
        nulls.validity?.setInvalid(1)
        XCTAssertEqual(SliceScanner.keep(nulls, from: 0, count: 3, filter: f, selection: nil, deleted: DeleteSet(),
                                         firstRow: 0), [0, 2])
    }

    /// The coarse bitmap's shift: the least that brings the bits under 2^20, at most 6, and
    /// at least 64 bits a key.
    func testCoarseShiftLimits() {
        let limit = RuntimeKeyFilter.maximumCoarseBits
        XCTAssertEqual(RuntimeKeyFilter.coarseShift(span: (1 << 23) - 1, keys: 1), 3)
        XCTAssertEqual(RuntimeKeyFilter.coarseShift(span: 1 << 23, keys: 1), 4)
        XCTAssertEqual(RuntimeKeyFilter.coarseShift(span: (1 << 26) - 1, keys: Int(limit / 64)), 6)
        XCTAssertNil(RuntimeKeyFilter.coarseShift(span: (1 << 26) - 1, keys: Int(limit / 64) + 1))
        XCTAssertNil(RuntimeKeyFilter.coarseShift(span: 1 << 26, keys: 1), "a bit would stand for 128 values")
        XCTAssertNil(RuntimeKeyFilter.coarseShift(span: .max, keys: 1))
        // Keys at the ends of the widest coarse range both pass, and nothing outside it.
        let ends = filter([-5, -5 + (1 << 26) - 1])
        XCTAssertEqual(ends.shift, 6)
        XCTAssertEqual(keeps(ends, [-6, -5, -5 + (1 << 26) - 1, -5 + (1 << 26), 1_000]), [1, 2])
    }

    /// The batched Bloom kernel keeps exactly the rows the one-row test keeps: keys in and
    /// out of the range, batch edges (0, 1, 63, 64, 65 rows), selections, offsets; keys
    /// with NULLs or deleted rows without a selection are left to the general loop.
    func testBatchedBloomKeepsWhatTheRowTestKeeps() {
        var rng = SystemRandomNumberGenerator()
        let keys = (0..<5_000).map { _ in Int64.random(in: -50_000_000...50_000_000, using: &rng) }
        let f = filter(keys)
        guard let bloom = f.bloom else { return XCTFail("no Bloom filter") }
        let span = UInt64(bitPattern: f.high &- f.low)
        let probe = (0..<3_000).map { i -> Int64 in
            switch i % 4 {
            case 0: return keys[i % keys.count]
            case 1: return Int64.random(in: -60_000_000...60_000_000, using: &rng)
            case 2: return i % 8 == 2 ? Int64.min : Int64.max
            default: return keys[(i * 7) % keys.count] &+ 1
            }
        }
        func reference(_ base: Int, _ n: Int, _ selection: [Int32]?) -> [Int32] {
            bloom.withUnsafeBufferPointer { bw in
                (selection ?? (0..<Int32(n)).map { $0 }).filter { r in
                    let x = probe[base + Int(r)]
                    return UInt64(bitPattern: x &- f.low) <= span && RuntimeKeyFilter.mayContain(bw, x)
                }
            }
        }
        let v = Vector(type: .bigint, data: .int64(probe))
        for n in [0, 1, 63, 64, 65, 129, 2_048] {
            for base in [0, 5, 900] {
                let all = SliceScanner.keepBloom(v, from: base, count: n, low: f.low, span: span, bloom: bloom,
                                                 selection: nil, deleted: DeleteSet())
                XCTAssertEqual(all, reference(base, n, nil), "\(n) rows from \(base)")
                let selection = (0..<Int32(n)).filter { $0 % 3 != 1 }
                let some = SliceScanner.keepBloom(v, from: base, count: n, low: f.low, span: span, bloom: bloom,
                                                  selection: selection, deleted: DeleteSet())
                XCTAssertEqual(some, reference(base, n, selection), "\(n) selected rows from \(base)")
                XCTAssertEqual(SliceScanner.keep(v, from: base, count: n, filter: f, selection: selection,
                                                 deleted: DeleteSet(), firstRow: 0), some)
            }
        }
        XCTAssertTrue(reference(0, 2_048, nil).count > 400, "the keys themselves pass")
        // Not for the batched kernel: NULLs, or deleted rows without a selection.
        var nulls = v
        nulls.validity = Validity(allValid: probe.count)
        XCTAssertNil(SliceScanner.keepBloom(nulls, from: 0, count: 10, low: f.low, span: span, bloom: bloom,
                                            selection: nil, deleted: DeleteSet()))
        var deleted = DeleteSet()
        deleted.insert(3)
        XCTAssertNil(SliceScanner.keepBloom(v, from: 0, count: 10, low: f.low, span: span, bloom: bloom,
                                            selection: nil, deleted: deleted))
        XCTAssertFalse(SliceScanner.keep(v, from: 0, count: 10, filter: f, selection: nil, deleted: deleted,
                                         firstRow: 0).contains(3))
    }

    /// The prefetching kernel of a wide exact bitmap keeps exactly the rows the one-row
    /// test keeps: keys in and out of the range (both ends, the extremes of Int64), lengths
    /// around the prefetch distance, selections, offsets; with NULLs, or deleted rows and no
    /// selection, `keep` takes the general loop and still keeps the same rows.
    func testPrefetchedBitmapKeepsWhatTheRowTestKeeps() {
        var rng = SystemRandomNumberGenerator()
        let low: Int64 = -1_000
        let span = Int64(SliceScanner.prefetchedBitmapWords) * 64 * 2 - 1
        let keys = (0..<20_000).map { _ in Int64.random(in: low...(low + span), using: &rng) } + [low, low + span]
        let f = filter(keys)
        guard let bits = f.bits, f.shift == 0 else { return XCTFail("no exact bitmap") }
        XCTAssertEqual(f.low, low)
        XCTAssertEqual(f.high, low + span)
        XCTAssertGreaterThanOrEqual(bits.count, SliceScanner.prefetchedBitmapWords, "wide enough for the kernel")
        let set = Set(keys)
        let probe = (0..<3_000).map { i -> Int64 in
            switch i % 5 {
            case 0: return keys[i % keys.count]
            case 1: return Int64.random(in: (low - 100)...(low + span + 100), using: &rng)
            case 2: return [Int64.min, Int64.max, low - 1, low + span + 1, low, low + span][i % 6]
            case 3: return keys[(i * 7) % keys.count] &+ 1
            default: return keys[(i * 3) % keys.count]
            }
        }
        func reference(_ base: Int, _ n: Int, _ selection: [Int32]?) -> [Int32] {
            (selection ?? (0..<Int32(n)).map { $0 }).filter { set.contains(probe[base + Int($0)]) }
        }
        let ud = UInt64(bitPattern: span)
        let v = Vector(type: .bigint, data: .int64(probe))
        let d = SliceScanner.bitmapPrefetchDistance
        for n in [0, 1, d - 1, d, d + 1, 2 * d + 3, 2_048] {
            for base in [0, 7, 900] {
                let all = SliceScanner.keepBits(probe, from: base, count: n, selection: nil, bits: bits, low: low, span: ud)
                XCTAssertEqual(all, reference(base, n, nil), "\(n) rows from \(base)")
                XCTAssertEqual(SliceScanner.keep(v, from: base, count: n, filter: f, selection: nil,
                                                 deleted: DeleteSet(), firstRow: 0), all)
                let selection = (0..<Int32(n)).filter { $0 % 3 != 1 }
                let some = SliceScanner.keepBits(probe, from: base, count: n, selection: selection, bits: bits,
                                                 low: low, span: ud)
                XCTAssertEqual(some, reference(base, n, selection), "\(n) selected rows from \(base)")
                XCTAssertEqual(SliceScanner.keep(v, from: base, count: n, filter: f, selection: selection,
                                                 deleted: DeleteSet(), firstRow: 0), some)
            }
        }
        XCTAssertTrue(reference(0, 2_048, nil).count > 800, "the keys themselves pass")
        XCTAssertTrue(reference(0, 2_048, nil).count < 1_600, "keys outside the set do not")
        // A bitmap wide enough for a summary: the summary's candidates go to the kernel.
        let wideKeys = (0..<20_000).map { _ in Int64.random(in: 0...(1 << 25), using: &rng) }
        let wide = filter(wideKeys)
        XCTAssertNotNil(wide.summary)
        let wideSet = Set(wideKeys)
        let wideProbe = (0..<2_048).map { i in i % 2 == 0 ? wideKeys[i % wideKeys.count] : Int64(i) * 16_411 }
        for selection in [nil, (0..<Int32(2_048)).filter { $0 % 5 != 2 }] {
            XCTAssertEqual(SliceScanner.keep(Vector(type: .bigint, data: .int64(wideProbe)), from: 0, count: 2_048,
                                             filter: wide, selection: selection, deleted: DeleteSet(), firstRow: 0),
                           (selection ?? (0..<Int32(2_048)).map { $0 }).filter { wideSet.contains(wideProbe[Int($0)]) })
        }
        // NULL keys never match; deleted rows are left out.
        var nulls = v
        var validity = Validity(allValid: probe.count)
        validity.setInvalid(0)
        nulls.validity = validity
        XCTAssertEqual(SliceScanner.keep(nulls, from: 0, count: 10, filter: f, selection: nil, deleted: DeleteSet(),
                                         firstRow: 0), reference(0, 10, nil).filter { $0 != 0 })
        var deleted = DeleteSet()
        deleted.insert(5)
        XCTAssertEqual(SliceScanner.keep(v, from: 0, count: 10, filter: f, selection: nil, deleted: deleted,
                                         firstRow: 0), reference(0, 10, nil).filter { $0 != 5 })
    }

    /// Too many keys for the largest Bloom filter: the range check alone.
    func testTooManyKeysForABloomFilter() {
        let n = RuntimeKeyFilter.maximumBloomWords * 8 + 1
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
