// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseStorage
import SlicehouseTypes

/// String zone maps keep 16-byte prefixes of a block's smallest and largest values;
/// they are found by comparing prefixes only, which must give the same bounds as
/// comparing whole values.
final class ZoneMapTests: XCTestCase {
    func testStringBoundsArePrefixesOfTheTrueExtremes() {
        var state: UInt64 = 99
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        let alphabet: [UInt8] = [0, 32, 65, 97, 122, 0xC3, 0xA9, 255]
        for trial in 0..<300 {
            // Shared prefixes around the 8- and 16-byte word edges, empty values, ties.
            let stem = (0..<[0, 7, 8, 15, 16, 17, 30][trial % 7]).map { _ in alphabet[next() % alphabet.count] }
            var values: [[UInt8]] = []
            for _ in 0..<(1 + next() % 40) {
                let cut = next() % (stem.count + 1)
                values.append(Array(stem[..<cut]) + (0..<(next() % 20)).map { _ in alphabet[next() % alphabet.count] })
            }
            var strings = StringArray()
            for v in values {
                strings.bytes.append(contentsOf: v)
                strings.offsets.append(Int32(strings.bytes.count))
            }
            let vector = Vector(type: .varchar(100), data: .string(strings))
            let start = trial % 3 == 0 ? 0 : min(1, values.count - 1)
            let part = Array(values[start...])
            let zone = ZoneMap.compute(vector, start: start, count: part.count)
            let lo = part.min { $0.lexicographicallyPrecedes($1) }!, hi = part.max { $0.lexicographicallyPrecedes($1) }!
            XCTAssertEqual(zone.min, .bytes(Array(lo.prefix(16))), "trial \(trial): \(part)")
            XCTAssertEqual(zone.max, .bytes(Array(hi.prefix(16))), "trial \(trial): \(part)")
        }
    }

    func testAllEmptyStrings() {
        let vector = Vector(type: .varchar(10), data: .string(StringArray(["", "", ""])))
        let zone = ZoneMap.compute(vector, start: 0, count: 3)
        XCTAssertEqual(zone.min, .bytes([]))
        XCTAssertEqual(zone.max, .bytes([]))
    }

    /// The manifest reader reads a bound straight from its bytes only when they are exactly
    /// what `encoded` writes; any other text is left to `init(encoded:)` (as a string).
    func testCanonicalBoundsReadFromBytes() {
        func canonical(_ text: String) -> ZoneBound? {
            Array(text.utf8).withUnsafeBufferPointer { ZoneBound(canonical: $0) }
        }
        let bounds: [ZoneBound] = [
            .int(0), .int(7), .int(-7), .int(Int64.max), .int(Int64.min), .int(1_000_000_000_000),
            .double(0), .double(-0.0), .double(1.5), .double(-.infinity), .double(.greatestFiniteMagnitude),
            .bytes([]), .bytes([0]), .bytes(Array("AUTOMOBILE".utf8)), .bytes([0xff, 0x00, 0x7f, 0x80]),
        ]
        for b in bounds {
            XCTAssertEqual(canonical(b.encoded), b, b.encoded)
            XCTAssertEqual(ZoneBound(encoded: b.encoded), b, b.encoded)
        }
        // NaN compares unequal to itself: its bits must survive.
        if case .double(let d)? = canonical(ZoneBound.double(.nan).encoded) {
            XCTAssertEqual(d.bitPattern, Double.nan.bitPattern)
        } else {
            XCTFail("NaN")
        }
        // Texts `encoded` never writes: not read from the bytes, whatever init(encoded:) makes of them.
        for text in ["", "i", "i+5", "i05", "i-0", "i-", "i9223372036854775808", "i-9223372036854775809", "i1 ",
                     "d-1", "d18446744073709551616", "d01", "x1", "xAB", "x0g", "w5", "q1", #"x\u0041"#] {
            XCTAssertNil(canonical(text), text)
        }
        XCTAssertEqual(ZoneBound(encoded: "i+5"), .int(5))   // read as a string, as before
    }
}
