// SPDX-License-Identifier: Apache-2.0
import XCTest

/// FIPS 180-4 test vectors for the test suite's SHA-256.
final class SHA256Tests: XCTestCase {
    func testStandardVectors() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)),
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testStreamingMatchesOneShot() {
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 127, 1000, 3, 5000] where offset < data.count {
            let end = min(offset + size, data.count)
            data[offset..<end].withUnsafeBufferPointer { hasher.update($0) }
            offset = end
        }
        data[offset...].withUnsafeBufferPointer { hasher.update($0) }
        XCTAssertEqual(hasher.finalizeHex(), SHA256.hex(data))
    }
}
