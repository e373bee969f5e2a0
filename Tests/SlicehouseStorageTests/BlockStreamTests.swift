// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseStorage

/// Blocks decoded a range at a time (`BlockStream`, `StreamedBlock`) give exactly the
/// values of decoding them whole, however the reads and skips are cut.
final class BlockStreamTests: XCTestCase {
    /// AZ64 chunks of every kind: runs (long, and crossing any read), frame-of-reference
    /// and delta groups, exceptions, a constant group, extremes, a short last group.
    func mixedInts() -> [Int64] {
        var v: [Int64] = []
        v += Array(repeating: 42, count: 300)                          // a run
        v += (0..<1000).map { Int64($0 * 3) }                          // delta groups
        v += (0..<500).map { Int64(($0 * 7919) % 1000) }               // frame of reference
        v += (0..<200).map { $0 % 50 == 0 ? Int64.max - Int64($0) : Int64($0 % 13) }  // exceptions
        v += Array(repeating: Int64.min, count: 17)                    // a short run
        v += (0..<128).map { _ in 5 }                                  // a constant group
        v += [Int64.min, Int64.max, 0, -1, 1]
        v += (0..<77).map { Int64(-$0 * 1_000_003) }                   // short last group
        return v
    }

    func encoded(_ v: Vector, _ e: ColumnEncoding) throws -> [UInt8] {
        try BlockEncoder.encode(v, start: 0, count: v.count, encoding: e)
    }

    func testAZ64StreamReadsAndSkipsGiveTheWholeDecoding() throws {
        let values = mixedInts()
        let bytes = try encoded(Vector(type: .bigint, data: .int64(values)), .az64)
        let whole = try bytes.withUnsafeBytes { try BlockEncoder.decode($0, type: .bigint, encoding: .az64) }
        XCTAssertEqual(whole.data, .int64(values))
        // Reads of many sizes: one value, a group and either side of it, a chunk, the rest.
        for sizes in [[1], [127], [128], [129], [2048], [3, 500, 1], [values.count]] {
            guard var stream = try BlockStream.open(bytes, type: .bigint, encoding: .az64) else {
                return XCTFail("an AZ64 block without NULLs streams")
            }
            XCTAssertEqual(stream.count, values.count)
            var got: [Int64] = []
            var i = 0
            while stream.position < values.count {
                let n = min(sizes[i % sizes.count], values.count - stream.position)
                let v = try stream.read(n, type: .bigint)
                guard case .int64(let a) = v.data else { return XCTFail("not 64-bit values") }
                XCTAssertEqual(a.count, n)
                got += a
                i += 1
            }
            XCTAssertEqual(got, values, "reads of \(sizes)")
            XCTAssertThrowsError(try stream.read(1, type: .bigint))
        }
        // Skips then reads, then back to the start.
        guard var stream = try BlockStream.open(bytes, type: .bigint, encoding: .az64) else { return XCTFail() }
        var at = 0
        for (skip, read) in [(0, 5), (290, 20), (1, 1), (1000, 130), (100, 2048)] {
            let s = min(skip, values.count - at)
            try stream.skip(s)
            at += s
            let n = min(read, values.count - at)
            XCTAssertEqual(try stream.read(n, type: .bigint).data, .int64(Array(values[at..<(at + n)])), "at \(at)")
            at += n
            XCTAssertEqual(stream.position, at)
        }
        stream.rewind()
        XCTAssertEqual(stream.position, 0)
        XCTAssertEqual(try stream.read(3, type: .bigint).data, .int64(Array(values[0..<3])))
        XCTAssertThrowsError(try stream.skip(values.count))
    }

    /// One value, and a block that is all one run.
    func testAZ64StreamOfOneValueAndOfOneRun() throws {
        for values in [[Int64(-7)], Array(repeating: Int64(9), count: 5000)] {
            let bytes = try encoded(Vector(type: .bigint, data: .int64(values)), .az64)
            guard var stream = try BlockStream.open(bytes, type: .bigint, encoding: .az64) else { return XCTFail() }
            if values.count > 1 {
                try stream.skip(2047)
                XCTAssertEqual(try stream.read(2, type: .bigint).data, .int64([9, 9]))
                try stream.skip(values.count - 2049)
            } else {
                XCTAssertEqual(try stream.read(1, type: .bigint).data, .int64(values))
            }
            XCTAssertEqual(stream.position, values.count)
        }
    }

    /// A payload shorter than its count says is an error, never a read past the bytes.
    func testATruncatedAZ64StreamIsAnError() throws {
        let values = Array(Int64(0)..<Int64(1000)).map { $0 * $0 }
        let bytes = try encoded(Vector(type: .bigint, data: .int64(values)), .az64)
        let payload = BlockEncoder.headerSize..<bytes.count
        var long = AZ64Stream(bytes, payload: payload, count: 5000)
        XCTAssertThrowsError(try long.read(5000)) { error in
            XCTAssertEqual((error as? SQLError)?.code, .ioError, "\(error)")
        }
        var cut = AZ64Stream(bytes, payload: payload.lowerBound..<(payload.lowerBound + 40), count: 1000)
        XCTAssertThrowsError(try cut.read(1000))
    }

    func testStringStreamsOfEveryLengthWidthAndCompression() throws {
        let short = (0..<3000).map { i in i % 7 == 0 ? "" : String(repeating: "x", count: i % 11) + "\(i)" }
        let medium = (0..<300).map { i in String(repeating: "m", count: 200 + i) }          // 2-byte lengths
        let long = [String(repeating: "L", count: 70_000), "a", ""]                          // 4-byte lengths
        for strings in [short, medium, long] {
            for e in [ColumnEncoding.raw, .lzo, .zstd, .bytedict] {
                let v = Vector(type: .varchar(65535), data: .string(StringArray(strings)))
                let bytes = try encoded(v, e)
                guard var stream = try BlockStream.open(bytes, type: .varchar(65535), encoding: e) else {
                    return XCTFail("\(e.sqlName) strings without NULLs stream")
                }
                var got: [String] = []
                var step = 1
                while stream.position < strings.count {
                    let n = min(step, strings.count - stream.position)
                    if step % 3 == 0 {
                        try stream.skip(n)
                        got += strings[got.count..<(got.count + n)]
                    } else {
                        guard case .string(let a) = try stream.read(n, type: .varchar(65535)).data else { return XCTFail() }
                        XCTAssertEqual(a.count, n)
                        got += (0..<n).map { a[$0] }
                    }
                    step = step * 2 + 1
                }
                XCTAssertEqual(got, strings, "\(e.sqlName)")
                stream.rewind()
                guard case .string(let first) = try stream.read(1, type: .varchar(65535)).data else { return XCTFail() }
                XCTAssertEqual(first[0], strings[0])
            }
        }
    }

    /// A dictionary of 255 entries with the values past it stored as exceptions: skips
    /// pass over the exceptions their escape codes use.
    func testDictionaryStreamsWithExceptions() throws {
        let strings = (0..<5000).map { i in i % 3 == 0 ? "rare-\(i)" : "common-\(i % 200)" }
        let v = Vector(type: .varchar(65535), data: .string(StringArray(strings)))
        let bytes = try encoded(v, .bytedict)
        for (skip, read) in [(0, 1), (1, 0), (7, 2048), (130, 129)] {
            guard var stream = try BlockStream.open(bytes, type: .varchar(65535), encoding: .bytedict) else { return XCTFail() }
            var at = 0
            while at < strings.count {
                let s = min(skip, strings.count - at)
                try stream.skip(s)
                at += s
                let n = min(read, strings.count - at)
                guard case .string(let a) = try stream.read(n, type: .varchar(65535)).data else { return XCTFail() }
                XCTAssertEqual((0..<n).map { a[$0] }, Array(strings[at..<(at + n)]), "at \(at)")
                at += n
                if skip == 0 && read == 0 { break }
            }
        }
    }

    /// The few rows a scan keeps of a range of a BYTEDICT block are read straight from
    /// their codes (`StreamedBlock.gather`), with the strings a whole decoding gives; a
    /// dictionary with escapes, and other encodings, leave it to the pieces.
    func testSparseRowsOfADictionaryBlockComeFromTheirCodes() throws {
        let strings = (0..<5000).map { i in ["MAIL", "SHIP", "", "DELIVER IN PERSON", "a\u{0}b", "TAKE BACK RETURN"][i * 7 % 6] }
        let v = Vector(type: .varchar(65535), data: .string(StringArray(strings)))
        let bytes = try encoded(v, .bytedict)
        let firstRow = 3 * Chunk.capacity + 17
        guard let stream = try BlockStream.open(bytes, type: .varchar(65535), encoding: .bytedict) else { return XCTFail() }
        let block = StreamedBlock(stream, firstRow: firstRow, type: .varchar(65535))
        // Rows of a chunk starting at slice row `first`: none, one, a few, the block's last.
        for (first, rows) in [(firstRow, [Int32]()), (firstRow, [0]), (firstRow + 100, [0, 5, 6, 1000, 2047]),
                              (firstRow + 4000, [999]), (firstRow + 4990, [9, 3, 3])] {
            guard let got = try block.gather(rows, first: first, end: firstRow + strings.count),
                  case .string(let a) = got.data else {
                return XCTFail("a dictionary without escapes gathers")
            }
            XCTAssertEqual((0..<a.count).map { a[$0] }, rows.map { strings[first - firstRow + Int($0)] }, "from \(first)")
        }
        // The pieces still read from where the stream stands.
        let (piece, offset) = try block.piece(containing: firstRow + 10)
        XCTAssertEqual(piece.value(at: offset), .string(strings[10]))
        XCTAssertThrowsError(try block.gather([5000], first: firstRow, end: firstRow + 5000), "a row past the block")
        XCTAssertThrowsError(try block.gather([0], first: firstRow - 1, end: firstRow), "a row before the block")
        // Escapes (values past the 255-entry dictionary): nil, the pieces decode.
        let rare = (0..<2000).map { "value-\($0)" }
        let escaped = try encoded(Vector(type: .varchar(65535), data: .string(StringArray(rare))), .bytedict)
        guard let es = try BlockStream.open(escaped, type: .varchar(65535), encoding: .bytedict) else { return XCTFail() }
        XCTAssertNil(try StreamedBlock(es, firstRow: 0, type: .varchar(65535)).gather([1, 2], first: 0, end: 2000))
    }

    /// AZ64 values of every chunk kind, plus scaled groups (whole-unit decimals) and groups
    /// 61 and 64 bits wide, whose values straddle a 64-bit load.
    func sparseInts() -> [Int64] {
        var rng = EncRNG(21)
        var v = mixedInts()
        v += (0..<600).map { Int64(($0 * 37 % 50 + 1) * 100) }                  // scaled: 1.00 … 50.00
        v += (0..<300).map { _ in Int64(bitPattern: rng.next()) }               // 64 bits wide
        v += (0..<300).map { _ in Int64(bitPattern: rng.next() >> 3) }          // 61 bits wide
        v += (0..<260).map { i in i % 40 == 7 ? Int64(bitPattern: rng.next()) : Int64(i) }  // exceptions
        v += (0..<700).map { _ in Int64(rng.next() % 200_000) }                 // keys
        return v
    }

    /// The few rows a scan keeps of a range of an AZ64 block come straight from the packed
    /// bits of its frame-of-reference groups (`StreamedBlock.gather`, `AZ64Stream.gather`),
    /// with the values a whole decoding gives, however the ranges, the rows in them and the
    /// pieces read in between fall; the piece decoded last serves its own rows (nil).
    func testSparseRowsOfAnAZ64BlockComeFromTheirBits() throws {
        let values = sparseInts()
        let bytes = try encoded(Vector(type: .bigint, data: .int64(values)), .az64)
        let firstRow = 2 * Chunk.capacity + 300
        let blockEnd = firstRow + values.count
        var rng = EncRNG(5)
        for round in 0..<12 {
            guard let stream = try BlockStream.open(bytes, type: .bigint, encoding: .az64) else { return XCTFail() }
            let block = StreamedBlock(stream, firstRow: firstRow, type: .bigint)
            // Ranges as a scan cuts them: at most to the next multiple of the capacity, some
            // ending early (a zone-map candidate range), some passed over.
            var position = firstRow
            while position < blockEnd {
                var end = min(blockEnd, (position / Chunk.capacity + 1) * Chunk.capacity)
                if rng.next() % 3 == 0 { end = position + 1 + Int(rng.next() % UInt64(end - position)) }
                let n = end - position
                switch rng.next() % 5 {
                case 0:
                    break   // passed over
                case 1:
                    let (piece, offset) = try block.piece(containing: position)
                    XCTAssertEqual(piece.value(at: offset), .int(values[position - firstRow]), "piece at \(position)")
                    XCTAssertNil(try block.gather([0], first: position, end: end), "the piece decoded last")
                default:
                    // Every row, none, or each with a chance of 1 in 2 … 1 in 64.
                    let every = round == 0 ? 1 : round == 1 ? Int.max : 2 << Int(rng.next() % 6)
                    let rows = (0..<Int32(n)).filter { _ in every != Int.max && rng.next() % UInt64(every) == 0 }
                    guard let got = try block.gather(rows, first: position, end: end),
                          case .int64(let a) = got.data else { return XCTFail("AZ64 gathers") }
                    let want = rows.map { values[position - firstRow + Int($0)] }
                    if a != want {
                        let i = (0..<min(a.count, want.count)).first { a[$0] != want[$0] } ?? min(a.count, want.count)
                        let row = i < rows.count ? Int(rows[i]) : -1
                        return XCTFail("round \(round), \(rows.count) rows from \(position): at row \(row) \(i < a.count ? String(a[i]) : "nothing"), not \(i < want.count ? String(want[i]) : "nothing")")
                    }
                }
                position = end
            }
        }
        // Back to an earlier range (the stream starts again), and rows outside the range.
        guard let stream = try BlockStream.open(bytes, type: .bigint, encoding: .az64) else { return XCTFail() }
        let block = StreamedBlock(stream, firstRow: firstRow, type: .bigint)
        let late = firstRow + 3000
        XCTAssertEqual(try block.gather([1, 2], first: late, end: late + 100)?.data, .int64([values[3001], values[3002]]))
        XCTAssertEqual(try block.gather([0, 99], first: firstRow, end: firstRow + 100)?.data, .int64([values[0], values[99]]))
        XCTAssertThrowsError(try block.gather([100], first: firstRow, end: firstRow + 100), "a row past the range")
        XCTAssertThrowsError(try block.gather([0], first: firstRow, end: blockEnd + 1), "a range past the block")
    }

    /// Blocks with NULLs, all-NULL blocks and other encodings are decoded whole.
    func testOtherBlocksDoNotStream() throws {
        var withNull = Vector(type: .bigint, data: .int64([1, 2, 3]))
        withNull.validity = Validity(allValid: 3)
        withNull.validity?.setInvalid(1)
        XCTAssertNil(try BlockStream.open(try encoded(withNull, .az64), type: .bigint, encoding: .az64))
        var nullString = Vector(type: .varchar(65535), data: .string(StringArray(["a", "", "b"])))
        nullString.validity = Validity(allValid: 3)
        nullString.validity?.setInvalid(1)
        for e in [ColumnEncoding.raw, .lzo, .bytedict] {
            XCTAssertNil(try BlockStream.open(try encoded(nullString, e), type: .varchar(65535), encoding: e), e.sqlName)
        }
        let allNull = Vector(type: .bigint, data: .int64([0, 0, 0, 0]), validity: Validity(allNull: 4))
        XCTAssertNil(try BlockStream.open(try encoded(allNull, .az64), type: .bigint, encoding: .az64))
        let ints = Vector(type: .bigint, data: .int64([1, 1, 1, 2]))
        for e in [ColumnEncoding.raw, .runlength, .bytedict, .delta, .mostly8] {
            XCTAssertNil(try BlockStream.open(try encoded(ints, e), type: .bigint, encoding: e), e.sqlName)
        }
        let strings = Vector(type: .varchar(65535), data: .string(StringArray(["a", "b", "a"])))
        for e in [ColumnEncoding.runlength, .text255] {
            XCTAssertNil(try BlockStream.open(try encoded(strings, e), type: .varchar(65535), encoding: e), e.sqlName)
        }
    }

    /// A scan's first read of a block streams it in the pieces `DecodedBlock` cuts; a
    /// later statement's read decodes it whole and keeps it.
    func testAScanStreamsABlockItReadsOnceInTheCachedPieces() throws {
        let values = mixedInts()
        let v = Vector(type: .bigint, data: .int64(values))
        let bytes = try encoded(v, .az64)
        let firstRow = 5 * Chunk.capacity + 1000
        let ref = BlockRef(uid: BlockIDs.make(), payload: .memory(EncodedBytes(bytes)), encoding: .az64,
                           firstRow: firstRow, zone: ZoneMap.compute(v, start: 0, count: values.count))
        let cache = BlockCache(capacityBytes: 1 << 24)
        let scan = try cache.forScan(ref, type: .bigint)
        guard case .streamed = scan else { return XCTFail("a first read streams") }
        XCTAssertEqual(cache.usedBytes, 0)
        let cut = DecodedBlock(v, firstRow: firstRow)
        // Every row, in order, then some rows again from the start (the stream rewinds).
        for row in Array(firstRow..<(firstRow + values.count)) + [firstRow, firstRow + 2000, firstRow + 1] {
            let (piece, offset) = try scan.piece(containing: row)
            let (want, wantOffset) = cut.piece(containing: row)
            XCTAssertEqual(offset, wantOffset, "row \(row)")
            guard piece.count == want.count, offset < piece.count else {
                return XCTFail("row \(row): a piece of \(piece.count) rows at \(offset), want \(want.count) at \(wantOffset)")
            }
            XCTAssertEqual(piece.value(at: offset), .int(values[row - firstRow]), "row \(row)")
        }
        XCTAssertThrowsError(try scan.piece(containing: firstRow - 1))
        XCTAssertThrowsError(try scan.piece(containing: firstRow + values.count))
        cache.beginStatement()
        guard case .decoded(let kept) = try cache.forScan(ref, type: .bigint) else {
            return XCTFail("a later statement's read is decoded and kept")
        }
        XCTAssertEqual(kept.pieces.count, cut.pieces.count)
        XCTAssertGreaterThan(cache.usedBytes, 0)
    }
}
