// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseLoad
import SlicehouseStorage

/// The streaming decompressors (`StreamInflater`) against the whole-buffer codecs: the same
/// output whatever the pieces the input arrives in, concatenated members, zero padding,
/// and corrupt or truncated input refused.
final class StreamInflaterTests: XCTestCase {
    func text(_ n: Int) -> [UInt8] {
        var s = ""
        for i in 0..<n { s += "\(i)|row \(i * 7919 % 1000)|\(String(repeating: "x", count: i % 31))\n" }
        return Array(s.utf8)
    }

    /// `compressed` inflated when fed in pieces of `step` bytes.
    func inflate(_ compression: CopyOptions.Compression, _ compressed: [UInt8], step: Int) throws -> [UInt8] {
        guard let inflater = try StreamInflaters.make(compression) else { XCTFail("no inflater"); return [] }
        var out: [UInt8] = []
        var at = 0
        while at < compressed.count {
            let end = min(compressed.count, at + step)
            try compressed[at..<end].withUnsafeBytes { piece in
                try inflater.feed(piece) { out.append(contentsOf: $0) }
            }
            at = end
        }
        try inflater.finish()
        return out
    }

    func compress(_ c: CopyOptions.Compression, _ bytes: [UInt8]) throws -> [UInt8] {
        switch c {
        case .gzip: return try GzipCodec.compress(bytes)
        case .bzip2: return try Bzip2Codec.compress(bytes)
        default: return try ZstdCodec.compress(bytes)
        }
    }

    func testAnyPieceSizeGivesTheWholeOutput() throws {
        let plain = text(40_000)
        for c in [CopyOptions.Compression.gzip, .bzip2, .zstd] {
            let packed = try compress(c, plain)
            for step in [1 << 20, 65_536, 4_099, 7] where step >= 4_099 || packed.count < 200_000 {
                XCTAssertEqual(try inflate(c, packed, step: step), plain, "\(c), pieces of \(step)")
            }
        }
    }

    func testConcatenatedMembersAndZeroPadding() throws {
        let a = text(3_000), b = Array("last|line|\n".utf8)
        for c in [CopyOptions.Compression.gzip, .bzip2, .zstd] {
            let joined = try compress(c, a) + compress(c, b)
            XCTAssertEqual(try inflate(c, joined, step: 1_000), a + b, "\(c)")
        }
        for c in [CopyOptions.Compression.gzip, .bzip2] {
            let padded = try compress(c, a) + [UInt8](repeating: 0, count: 5_000)
            XCTAssertEqual(try inflate(c, padded, step: 777), a, "\(c) with padding")
            // Data after the padding is not a member.
            let bad = try compress(c, a) + [0, 0, 0] + compress(c, b)
            XCTAssertThrowsError(try inflate(c, bad, step: 100), "\(c): data after padding")
        }
    }

    func testTruncatedAndCorruptInputThrows() throws {
        let plain = text(20_000)
        for c in [CopyOptions.Compression.gzip, .bzip2, .zstd] {
            let packed = try compress(c, plain)
            XCTAssertThrowsError(try inflate(c, Array(packed.prefix(packed.count / 2)), step: 5_000), "\(c) truncated") { e in
                XCTAssertTrue(e is InflateError, "\(c): \(e)")
            }
            var corrupt = packed
            for i in stride(from: 40, to: corrupt.count - 40, by: 97) { corrupt[i] ^= 0x5A }
            XCTAssertThrowsError(try inflate(c, corrupt, step: 5_000), "\(c) corrupt")
            XCTAssertThrowsError(try inflate(c, Array("not compressed at all\n".utf8), step: 3), "\(c) not compressed")
        }
        // An empty zstd file is not a frame, as for a local file; empty gzip and bzip2 files hold nothing.
        XCTAssertThrowsError(try inflate(.zstd, [], step: 1))
        XCTAssertEqual(try inflate(.gzip, [], step: 1), [])
        XCTAssertEqual(try inflate(.bzip2, [], step: 1), [])
    }
}
