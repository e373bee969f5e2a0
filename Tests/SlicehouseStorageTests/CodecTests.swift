// SPDX-License-Identifier: Apache-2.0
import SlicehouseStorage
import SlicehouseTypes
import XCTest

/// Round trips and corrupt-input handling for the zstd and snappy wrappers.
final class CodecTests: XCTestCase {
    /// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
    static func randomBytes(_ n: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var x = seed
        var out = [UInt8](repeating: 0, count: n)
        for i in 0..<n {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            out[i] = UInt8(truncatingIfNeeded: x)
        }
        return out
    }

    static let samples: [(String, [UInt8])] = [
        ("empty", []),
        ("one byte", [42]),
        ("random 100 KB", randomBytes(100_000)),
        ("repetitive 1 MB", (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: ($0 % 97) & 0x3F) }),
        ("zeros 1 MB", [UInt8](repeating: 0, count: 1 << 20)),
    ]

    func assertIOError(_ body: @autoclosure () throws -> [UInt8], _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), what, file: file, line: line) { error in
            XCTAssertEqual((error as? SQLError)?.code, .ioError, "\(what): \(error)", file: file, line: line)
        }
    }

    // MARK: zstd

    func testZstdRoundTrips() throws {
        for (name, data) in Self.samples {
            for level in [-1, 1, 3, 19] {
                let packed = try ZstdCodec.compress(data, level: level)
                XCTAssertEqual(try ZstdCodec.decompress(packed, originalSize: data.count), data, "\(name) level \(level)")
                XCTAssertEqual(try ZstdCodec.decompress(packed, originalSize: nil), data, "\(name) level \(level), size unknown")
            }
        }
    }

    func testZstdCompressesRepetitiveData() throws {
        let data = Self.samples[3].1
        let packed = try ZstdCodec.compress(data)
        XCTAssertLessThan(packed.count, data.count / 100)
    }

    func testZstdConcatenatedFrames() throws {
        let a = Self.randomBytes(1000, seed: 1), b = Self.randomBytes(5000, seed: 2)
        let packed = try ZstdCodec.compress(a) + ZstdCodec.compress(b)
        XCTAssertEqual(try ZstdCodec.decompress(packed, originalSize: nil), a + b)
    }

    func testZstdCorruptInput() throws {
        let data = Self.samples[3].1
        let packed = try ZstdCodec.compress(data)
        assertIOError(try ZstdCodec.decompress([], originalSize: nil), "empty")
        assertIOError(try ZstdCodec.decompress([1, 2, 3, 4, 5, 6, 7, 8], originalSize: nil), "garbage")
        assertIOError(try ZstdCodec.decompress(Self.randomBytes(4096, seed: 7), originalSize: 4096), "random, sized")
        assertIOError(try ZstdCodec.decompress(Array(packed.prefix(packed.count / 2)), originalSize: nil), "truncated")
        assertIOError(try ZstdCodec.decompress(Array(packed.prefix(packed.count / 2)), originalSize: data.count),
                      "truncated, sized")
        assertIOError(try ZstdCodec.decompress(packed, originalSize: data.count - 1), "wrong size (smaller)")
        assertIOError(try ZstdCodec.decompress(packed, originalSize: data.count + 1), "wrong size (larger)")
        // Flip bytes all over a frame: every outcome must be an error or (rarely) some
        // output, never a crash.
        for i in stride(from: 0, to: packed.count, by: max(1, packed.count / 40)) {
            var bad = packed
            bad[i] ^= 0xA5
            _ = try? ZstdCodec.decompress(bad, originalSize: nil)
            _ = try? ZstdCodec.decompress(bad, originalSize: data.count)
        }
    }

    func testZstdForgedHugeHeaderDoesNotAllocate() throws {
        // Frame header claiming ~2^62 bytes of content followed by nothing.
        var forged: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0xC0]  // magic, FHD: 8-byte FCS, single segment
        forged += [0, 0, 0, 0, 0, 0, 0, 0x40]
        assertIOError(try ZstdCodec.decompress(forged, originalSize: nil), "forged header")
    }

    // MARK: snappy

    func testSnappyRoundTrips() throws {
        for (name, data) in Self.samples {
            let packed = try SnappyCodec.compress(data)
            XCTAssertEqual(try SnappyCodec.decompress(packed, originalSize: data.count), data, name)
            XCTAssertEqual(try SnappyCodec.decompress(packed, originalSize: nil), data, "\(name), size unknown")
        }
    }

    func testSnappyCompressesRepetitiveData() throws {
        let data = Self.samples[3].1
        XCTAssertLessThan(try SnappyCodec.compress(data).count, data.count / 10)
    }

    func testSnappyCorruptInput() throws {
        let data = Self.samples[3].1
        let packed = try SnappyCodec.compress(data)
        assertIOError(try SnappyCodec.decompress([], originalSize: nil), "empty")
        assertIOError(try SnappyCodec.decompress([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], originalSize: nil), "bad varint")
        assertIOError(try SnappyCodec.decompress(Self.randomBytes(4096, seed: 9), originalSize: nil), "random")
        assertIOError(try SnappyCodec.decompress(Array(packed.prefix(packed.count / 2)), originalSize: nil), "truncated")
        assertIOError(try SnappyCodec.decompress(packed, originalSize: data.count + 1), "wrong size")
        // A header that promises 1 GB followed by nothing must fail before allocating.
        assertIOError(try SnappyCodec.decompress([0x80, 0x80, 0x80, 0x80, 0x04], originalSize: nil), "forged length")
        for i in stride(from: 0, to: packed.count, by: max(1, packed.count / 40)) {
            var bad = packed
            bad[i] ^= 0x5A
            _ = try? SnappyCodec.decompress(bad, originalSize: nil)
        }
    }
}
