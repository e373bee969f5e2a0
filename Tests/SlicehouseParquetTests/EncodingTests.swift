// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// The building blocks: Thrift compact protocol, RLE/bit-packing hybrid, delta encoding,
/// and hand-built pages for layouts the writers used in the other tests never produce.
final class EncodingTests: XCTestCase {
    // MARK: Thrift

    func testThriftRoundTrip() throws {
        var w = ThriftWriter()
        w.i32(1, -1)
        w.i64(2, Int64.min)
        w.bool(3, true)
        w.string(4, "héllo")
        w.i32(40, 7)          // id jump > 15: long-form header
        w.bool(41, false)
        w.structBegin(42)
        w.i16(1, -300)
        w.structEnd()
        w.i32List(50, Array(0..<20).map(Int32.init))   // 20 elements: long-form list header
        let bytes = w.finish()
        XCTAssertEqual(Array(bytes.prefix(2)), [0x15, 0x01], "field 1, i32, zigzag(-1) = 1")

        var seen: [Int16] = []
        try bytes.withUnsafeBytes { raw in
            var r = ThriftReader(raw)
            try r.readStruct { r, id, t in
                seen.append(id)
                switch (id, t) {
                case (1, ThriftType.i32): XCTAssertEqual(try r.readI32(), -1)
                case (2, ThriftType.i64): XCTAssertEqual(try r.readI64(), Int64.min)
                case (3, _): XCTAssertTrue(r.boolFieldValue(t))
                case (4, ThriftType.binary): XCTAssertEqual(try r.readString(), "héllo")
                case (40, ThriftType.i32): XCTAssertEqual(try r.readI32(), 7)
                case (41, _): XCTAssertFalse(r.boolFieldValue(t))
                case (42, ThriftType.struct):
                    try r.readStruct { r, id, t in
                        XCTAssertEqual(id, 1)
                        XCTAssertEqual(try r.readI16(), -300)
                        return true
                    }
                case (50, ThriftType.list):
                    XCTAssertEqual(try r.readList(of: ThriftType.i32) { try $0.readI32() }, Array(0..<20).map(Int32.init))
                default: return false
                }
                return true
            }
            XCTAssertEqual(r.remaining, 0)
        }
        XCTAssertEqual(seen, [1, 2, 3, 4, 40, 41, 42, 50])
    }

    func testThriftSkipsUnknownFields() throws {
        var w = ThriftWriter()
        w.structBegin(7)
        w.string(1, "ignored")
        w.listBegin(2, elementType: ThriftType.boolTrue, count: 2)
        w.writeByte(1); w.writeByte(0)
        w.structEnd()
        w.i32(9, 5)
        let bytes = w.finish()
        var got: Int32 = 0
        try bytes.withUnsafeBytes { raw in
            var r = ThriftReader(raw)
            try r.readStruct { r, id, t in
                guard id == 9 else { return false }
                got = try r.readI32()
                return true
            }
        }
        XCTAssertEqual(got, 5)
    }

    func testThriftTruncationThrows() throws {
        var w = ThriftWriter()
        w.string(1, "a long enough string")
        w.i64(2, 123_456_789_012)
        let bytes = w.finish()
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try Array(bytes[0..<cut]).withUnsafeBytes { raw in
                var r = ThriftReader(raw)
                try r.readStruct { r, _, t in try r.skip(t); return true }
            })
        }
    }

    // MARK: RLE / bit-packing hybrid

    func testBitPackedExampleFromSpec() throws {
        // Values 0...7 at width 3 pack into 10001000 11000110 11111010.
        var out: [UInt8] = []
        Array(UInt32(0)...7).withUnsafeBufferPointer { BitPacking.pack($0, bitWidth: 3, into: &out) }
        XCTAssertEqual(out, [0b1000_1000, 0b1100_0110, 0b1111_1010])
        // As a hybrid run: header (1 group << 1 | 1) then the bytes.
        let decoded = try decodeRLE([0x03] + out, bitWidth: 3, count: 8)
        XCTAssertEqual(decoded, Array(0...7))
    }

    func testRLEHybridRoundTrip() throws {
        var rng = SplitMix64(state: 5)
        for width in [1, 2, 3, 7, 8, 13, 16, 20, 31, 32] {
            let maxValue = width == 32 ? UInt64(UInt32.max) : (UInt64(1) << UInt64(width)) - 1
            var values: [UInt32] = []
            for _ in 0..<50 {
                let v = UInt32(rng.next() & maxValue)
                let run = rng.below(3) == 0 ? rng.below(40) + 1 : 1
                values += repeatElement(v, count: run)
            }
            var out: [UInt8] = []
            values.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: width, into: &out) }
            XCTAssertEqual(try decodeRLE(out, bitWidth: width, count: values.count), values, "width \(width)")
        }
    }

    func testRLERunsAndErrors() throws {
        // A repeated run of 300 copies of 5 at width 3: header varint(600) = [0xD8, 0x04], value byte 5.
        XCTAssertEqual(try decodeRLE([0xD8, 0x04, 0x05], bitWidth: 3, count: 300), Array(repeating: 5, count: 300))
        // Width 0: runs carry no value bytes.
        XCTAssertEqual(try decodeRLE([0x08], bitWidth: 0, count: 4), [0, 0, 0, 0])
        // Not enough data.
        XCTAssertThrowsError(try decodeRLE([0x08, 0x01], bitWidth: 1, count: 5))
        XCTAssertThrowsError(try decodeRLE([], bitWidth: 1, count: 1))
        // A repeated value wider than the bit width.
        XCTAssertThrowsError(try decodeRLE([0x02, 0x09], bitWidth: 3, count: 1))
        XCTAssertThrowsError(try decodeRLE([0x02, 0x00], bitWidth: 33, count: 1))
    }

    private func decodeRLE(_ bytes: [UInt8], bitWidth: Int, count: Int) throws -> [UInt32] {
        var out = [UInt32](repeating: 0, count: count)
        try bytes.withUnsafeBytes { raw in
            var d = try RLEHybridDecoder(raw, bitWidth: bitWidth)
            try out.withUnsafeMutableBufferPointer { try d.decode(into: $0.baseAddress!, count: count) }
        }
        return out
    }

    // MARK: Delta encoding

    func testDeltaExamplesFromSpec() throws {
        // Example 2 with the required block size of 128 (one miniblock of 128):
        // 7, 5, 3, 1, 2, 3, 4, 5 → min delta -2, width 2, relative deltas 0 0 0 3 3 3 3.
        var bytes: [UInt8] = [0x80, 0x01, 0x01, 0x08, 0x0E]  // 128, 1 miniblock, 8 values, zigzag(7)
        bytes += [0x03, 0x02]                                 // zigzag(-2), width 2
        var packed: [UInt8] = []
        let rel: [UInt8] = [0, 0, 0, 3, 3, 3, 3] + [UInt8](repeating: 0, count: 121)
        rel.withUnsafeBufferPointer { BitPacking.pack($0, bitWidth: 2, into: &packed) }
        bytes += packed
        XCTAssertEqual(try decodeDelta(bytes, count: 8, width: 8), [7, 5, 3, 1, 2, 3, 4, 5])
        XCTAssertEqual(try decodeDelta(bytes, count: 8, width: 4), [7, 5, 3, 1, 2, 3, 4, 5])
        // Wrong counts and truncation are errors.
        XCTAssertThrowsError(try decodeDelta(bytes, count: 9, width: 8))
        XCTAssertThrowsError(try decodeDelta(Array(bytes.prefix(8)), count: 8, width: 8))
        // A last miniblock cut after its real values (padding missing) is accepted.
        XCTAssertEqual(try decodeDelta(Array(bytes.prefix(9)), count: 8, width: 8), [7, 5, 3, 1, 2, 3, 4, 5])
        // A single value needs no block.
        XCTAssertEqual(try decodeDelta([0x80, 0x01, 0x04, 0x01, 0x01], count: 1, width: 8), [-1])
        // Bad headers.
        XCTAssertThrowsError(try decodeDelta([0x00, 0x01, 0x01, 0x00], count: 1, width: 8))
        XCTAssertThrowsError(try decodeDelta([0x80, 0x01, 0x03, 0x01, 0x00], count: 1, width: 8))
    }

    func testDeltaWrapsAround() throws {
        // Int64.max then Int64.min: the delta wraps (stored as zigzag(1) min delta, width 0).
        var bytes: [UInt8] = [0x80, 0x01, 0x04, 0x02]
        var z = UInt64(bitPattern: (Int64.max << 1) ^ (Int64.max >> 63))
        while z >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: z) | 0x80); z >>= 7 }
        bytes.append(UInt8(z))
        bytes += [0x02, 0x00, 0x00, 0x00, 0x00]  // min delta zigzag(1); four miniblocks of width 0
        XCTAssertEqual(try decodeDelta(bytes, count: 2, width: 8), [Int64.max, Int64.min])
    }

    private func decodeDelta(_ bytes: [UInt8], count: Int, width: Int) throws -> [Int64] {
        var out = [UInt8](repeating: 0, count: max(count, 1) * width)
        try bytes.withUnsafeBytes { raw in
            try out.withUnsafeMutableBytes { dst in
                _ = try DeltaDecoding.decodeBinaryPacked(raw, count: count, width: width, into: dst.baseAddress!,
                                                         scratch: ScratchBuffer())
            }
        }
        return (0..<count).map { i in
            out.withUnsafeBytes { width == 4 ? Int64(Int32(littleEndian: $0.loadUnaligned(fromByteOffset: i * 4, as: Int32.self)))
                                             : Int64(littleEndian: $0.loadUnaligned(fromByteOffset: i * 8, as: Int64.self)) }
        }
    }

    // MARK: Hand-built files

    /// A one-column file (OPTIONAL unless `required`) from raw pages.
    func buildFile(physical: ParquetPhysicalType, required: Bool = false, codec: ParquetCodec = .uncompressed,
                   rows: Int, pages: [(PageHeader, [UInt8])]) -> [UInt8] {
        var file = Array("PAR1".utf8)
        var meta = ColumnMetaData()
        meta.type = physical.rawValue
        meta.codec = codec.rawValue
        meta.pathInSchema = ["c"]
        meta.numValues = Int64(rows)
        meta.dataPageOffset = Int64(file.count)
        for (h, body) in pages {
            var h = h
            h.compressedPageSize = Int32(body.count)
            if h.uncompressedPageSize == 0 { h.uncompressedPageSize = Int32(body.count) }
            file += h.serialized() + body
        }
        meta.totalCompressedSize = Int64(file.count) - meta.dataPageOffset
        meta.totalUncompressedSize = meta.totalCompressedSize
        var chunk = ColumnChunk()
        chunk.metaData = meta
        var group = RowGroup()
        group.columns = [chunk]
        group.numRows = Int64(rows)
        var fm = FileMetaData()
        var root = SchemaElement()
        root.name = "schema"
        root.numChildren = 1
        var leaf = SchemaElement()
        leaf.name = "c"
        leaf.type = physical.rawValue
        leaf.repetition = required ? Repetition.required.rawValue : Repetition.optional.rawValue
        fm.schema = [root, leaf]
        fm.numRows = Int64(rows)
        fm.rowGroups = [group]
        let footer = fm.serialized()
        file += footer
        appendUInt32(UInt32(footer.count), to: &file)
        return file + Array("PAR1".utf8)
    }

    func dataPage(_ n: Int, encoding: ParquetEncoding = .plain, levels: ParquetEncoding = .rle) -> PageHeader {
        var h = PageHeader()
        h.type = PageType.dataPage.rawValue
        h.dataPage = DataPageHeaderV1(numValues: Int32(n), encoding: encoding.rawValue,
                                      definitionLevelEncoding: levels.rawValue, repetitionLevelEncoding: ParquetEncoding.rle.rawValue)
        return h
    }

    func int32s(_ values: [Int32]) -> [UInt8] { values.flatMap { littleEndianBytes($0) } }

    func testDeprecatedBitPackedLevels() throws {
        // Levels 1,0,1,1,0,0,1,1,1,1 packed from the most significant bit.
        let body = [0b1011_0011, 0b1100_0000] + int32s([1, 2, 3, 4, 5, 6, 7])
        let file = buildFile(physical: .int32, rows: 10, pages: [(dataPage(10, levels: .bitPacked), body)])
        let v = try ParquetFile(bytes: file).readAll(columns: [0], as: [.integer])[0]
        XCTAssertEqual(canonicalColumn(v, count: 10), ["1", nil, "2", "3", nil, nil, "4", "5", "6", "7"])
    }

    func testRequiredColumnAcrossPagesWithIndexPage() throws {
        var index = PageHeader()
        index.type = PageType.indexPage.rawValue
        let file = buildFile(physical: .int32, required: true, rows: 5, pages: [
            (dataPage(2), int32s([10, 20])),
            (index, [1, 2, 3]),
            (dataPage(3), int32s([30, 40, 50])),
        ])
        let pf = try ParquetFile(bytes: file)
        XCTAssertFalse(pf.columns[0].isNullable)
        let v = try pf.readAll(columns: [0], as: [.bigint])[0]
        XCTAssertEqual(canonicalColumn(v, count: 5), ["10", "20", "30", "40", "50"])
        XCTAssertNil(v.validity)
    }

    func testOneEntryDictionaryWithZeroBitWidth() throws {
        var dict = PageHeader()
        dict.type = PageType.dictionaryPage.rawValue
        dict.dictionaryPage = DictionaryPageHeader(numValues: 1, encoding: ParquetEncoding.plain.rawValue)
        // Levels: 4 values, all defined (RLE run of 4 ones); indices: width 0, run of 4.
        let levels: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x08, 0x01]
        let file = buildFile(physical: .int64, rows: 4, pages: [
            (dict, littleEndianBytes(Int64(-42))),
            (dataPage(4, encoding: .rleDictionary), levels + [0x00, 0x08]),
        ])
        let v = try ParquetFile(bytes: file).readAll(columns: [0], as: [.bigint])[0]
        XCTAssertEqual(canonicalColumn(v, count: 4), ["-42", "-42", "-42", "-42"])
    }

    func testDataPageV2UncompressedValuesUnderACodec() throws {
        var h = PageHeader()
        h.type = PageType.dataPageV2.rawValue
        var v2 = DataPageHeaderV2()
        v2.numValues = 3; v2.numNulls = 1; v2.numRows = 3
        v2.encoding = ParquetEncoding.plain.rawValue
        v2.definitionLevelsByteLength = 2
        v2.isCompressed = false
        h.dataPageV2 = v2
        // Levels 1,0,1 bit-packed: header (1 group) + byte 0b101.
        let body: [UInt8] = [0x03, 0b101] + int32s([7, 9])
        let file = buildFile(physical: .int32, codec: .snappy, rows: 3, pages: [(h, body)])
        let v = try ParquetFile(bytes: file).readAll(columns: [0], as: [.integer])[0]
        XCTAssertEqual(canonicalColumn(v, count: 3), ["7", nil, "9"])
    }

    func testPageCountsMustMatchTheRowGroup() throws {
        let tooMany = buildFile(physical: .int32, required: true, rows: 2, pages: [(dataPage(3), int32s([1, 2, 3]))])
        XCTAssertThrowsError(try ParquetFile(bytes: tooMany).readAll(columns: [0], as: [.integer]))
        let tooFew = buildFile(physical: .int32, required: true, rows: 4, pages: [(dataPage(3), int32s([1, 2, 3]))])
        XCTAssertThrowsError(try ParquetFile(bytes: tooFew).readAll(columns: [0], as: [.integer])) { e in
            XCTAssertTrue("\(e)".contains("holds 3 values"), "\(e)")
        }
        let short = buildFile(physical: .int32, required: true, rows: 3, pages: [(dataPage(3), int32s([1, 2]))])
        XCTAssertThrowsError(try ParquetFile(bytes: short).readAll(columns: [0], as: [.integer]))
        let noDictionary = buildFile(physical: .int32, required: true, rows: 1, pages: [(dataPage(1, encoding: .rleDictionary), [1, 2])])
        XCTAssertThrowsError(try ParquetFile(bytes: noDictionary).readAll(columns: [0], as: [.integer])) { e in
            XCTAssertTrue("\(e)".contains("dictionary"), "\(e)")
        }
    }
}
