// SPDX-License-Identifier: Apache-2.0
import NIOCore
import SlicehouseEngine
@testable import SlicehouseShell
import SlicehouseTypes
import XCTest

/// The remote shell's decoding of a server's binary values and error positions: values
/// must print exactly as the local shell prints them (the same formatter), and a position
/// must land the caret where the local shell puts it.
final class RemoteValuesTests: XCTestCase {
    private func bytes(_ build: (inout ByteBuffer) -> Void) -> ByteBuffer {
        var b = ByteBufferAllocator().buffer(capacity: 16)
        build(&b)
        return b
    }

    private func text(_ buffer: ByteBuffer?, oid: UInt32, modifier: Int32 = -1) throws -> String? {
        let type = WireValues.type(oid: oid, modifier: modifier)
        return try WireValues.value(binary: buffer, oid: oid, type: type).formatted(as: type)
    }

    /// NUMERIC's binary form: ndigits, weight, sign, dscale, base-10000 digits.
    private func numeric(_ digits: [Int16], weight: Int16, negative: Bool = false, dscale: Int16) -> ByteBuffer {
        bytes { b in
            b.writeInteger(Int16(digits.count))
            b.writeInteger(weight)
            b.writeInteger(UInt16(negative ? 0x4000 : 0))
            b.writeInteger(dscale)
            for d in digits { b.writeInteger(d) }
        }
    }

    private func decimalModifier(_ p: Int32, _ s: Int32) -> Int32 { (p << 16 | s) + 4 }

    func testNumbers() throws {
        XCTAssertEqual(try text(numeric([119, 3053, 2253], weight: 1, dscale: 4), oid: 1700, modifier: decimalModifier(38, 4)),
                       "1193053.2253")
        XCTAssertEqual(try text(numeric([500], weight: -1, negative: true, dscale: 2), oid: 1700, modifier: decimalModifier(10, 2)),
                       "-0.05")
        XCTAssertEqual(try text(numeric([], weight: 0, dscale: 2), oid: 1700, modifier: decimalModifier(12, 2)), "0.00")
        XCTAssertEqual(try text(numeric([1], weight: 0, dscale: 0), oid: 1700, modifier: decimalModifier(5, 0)), "1")
        // 38 nines: the largest DECIMAL(38,0).
        let nines = [Int16(99)] + Array(repeating: Int16(9999), count: 9)
        XCTAssertEqual(try text(numeric(nines, weight: 9, dscale: 0), oid: 1700, modifier: decimalModifier(38, 0)),
                       String(repeating: "9", count: 38))
        XCTAssertEqual(try text(bytes { $0.writeInteger(Int16(-7)) }, oid: 21), "-7")
        XCTAssertEqual(try text(bytes { $0.writeInteger(Int32.min) }, oid: 23), "-2147483648")
        XCTAssertEqual(try text(bytes { $0.writeInteger(Int64.max) }, oid: 20), "9223372036854775807")
        XCTAssertEqual(try text(bytes { $0.writeInteger((0.1).bitPattern) }, oid: 701), "0.1")
        XCTAssertEqual(try text(bytes { $0.writeInteger(Float(1.5).bitPattern) }, oid: 700), "1.5")
        XCTAssertEqual(try text(bytes { $0.writeInteger(Double.infinity.bitPattern) }, oid: 701), "Infinity")
        XCTAssertTrue(WireValues.type(oid: 1700, modifier: decimalModifier(10, 2)).isNumeric)
        XCTAssertTrue(WireValues.type(oid: 20, modifier: -1).isNumeric)
        XCTAssertFalse(WireValues.type(oid: 1043, modifier: 24).isNumeric)
    }

    func testDatesTimesBooleansTextAndNull() throws {
        XCTAssertEqual(try text(bytes { $0.writeInteger(Int32(0)) }, oid: 1082), "2000-01-01")
        XCTAssertEqual(try text(bytes { $0.writeInteger(Int32(-10_957)) }, oid: 1082), "1970-01-01")
        XCTAssertEqual(try text(bytes { $0.writeInteger(Int64(86_400_000_000 + 1_500_000)) }, oid: 1114),
                       "2000-01-02 00:00:01.5")
        XCTAssertEqual(try text(bytes { $0.writeInteger(UInt8(1)) }, oid: 16), "t")
        XCTAssertEqual(try text(bytes { $0.writeInteger(UInt8(0)) }, oid: 16), "f")
        XCTAssertEqual(try text(bytes { $0.writeString("naïve 日本 ✓") }, oid: 1043), "naïve 日本 ✓")
        XCTAssertEqual(try text(bytes { $0.writeString("ab   ") }, oid: 1042), "ab   ")
        XCTAssertNil(try text(nil, oid: 1700, modifier: decimalModifier(10, 2)))
        XCTAssertNil(try text(nil, oid: 25))
    }

    func testMalformedValuesAreErrorsNotCrashes() {
        XCTAssertThrowsError(try text(bytes { $0.writeInteger(Int16(1)) }, oid: 23))
        XCTAssertThrowsError(try text(bytes { $0.writeInteger(UInt8(1)) }, oid: 1700))
        XCTAssertThrowsError(try text(numeric([10_000], weight: 0, dscale: 0), oid: 1700))
        XCTAssertThrowsError(try text(numeric(Array(repeating: 9999, count: 12), weight: 11, dscale: 0), oid: 1700),
                             "more than 38 digits")
        XCTAssertThrowsError(try text(bytes { $0.writeInteger(Int64.max) }, oid: 1114))
    }

    func testPositionsBecomeLinesAndColumns() {
        let sql = "select 1;\nselect nosuch\n  from t"
        XCTAssertEqual(RemoteBackend.lineAndColumn(in: sql, position: 1).map { [$0.0, $0.1] }, [1, 1])
        XCTAssertEqual(RemoteBackend.lineAndColumn(in: sql, position: 18).map { [$0.0, $0.1] }, [2, 8])
        XCTAssertEqual(RemoteBackend.lineAndColumn(in: sql, position: 27).map { [$0.0, $0.1] }, [3, 3])
        // The inverse of the server's computation, characters (not bytes) counted.
        let unicode = "select 'é',\n  nosuch"
        let p = RemoteBackend.position(in: unicode, line: 2, column: 3)
        XCTAssertEqual(p, 15)
        XCTAssertEqual(p.flatMap { RemoteBackend.lineAndColumn(in: unicode, position: $0) }.map { [$0.0, $0.1] }, [2, 3])
        XCTAssertNil(RemoteBackend.lineAndColumn(in: sql, position: 0))
    }

    func testObserverFollowsMessagesSplitAnywhere() {
        // K (pid 7, secret 9), N (INFO notice), T (one numeric column), D (skipped), C.
        var stream: [UInt8] = []
        func message(_ kind: Character, _ body: [UInt8]) {
            stream.append(UInt8(ascii: kind.unicodeScalars.first ?? "?"))
            let n = UInt32(body.count + 4)
            stream += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            stream += body
        }
        func cstr(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }
        message("K", [0, 0, 0, 7, 0, 0, 0, 9])
        message("N", [UInt8(ascii: "S")] + cstr("INFO") + [UInt8(ascii: "M")] + cstr("Load into table 't' completed") + [0])
        message("T", [0, 1] + cstr("amount") + [0, 0, 0, 0, 0, 0] + [0, 0, 6, 0xA4] + [0xFF, 0xFF]
                + [0, 10, 0, 10] + [0, 0])
        message("D", Array(repeating: 1, count: 100))
        message("C", cstr("SELECT 1"))
        for cut in [1, 3, 7, 64] {
            let observer = ProtocolObserver()
            var at = 0
            while at < stream.count {
                var b = ByteBufferAllocator().buffer(capacity: cut)
                b.writeBytes(stream[at..<min(stream.count, at + cut)])
                observer.scan(&b)
                at += cut
            }
            XCTAssertEqual(observer.backendKey?.processID, 7)
            XCTAssertEqual(observer.backendKey?.secret, 9)
            let seen = observer.take()
            XCTAssertEqual(seen.notices, ["INFO:  Load into table 't' completed"])
            XCTAssertEqual(seen.columns, [ProtocolObserver.Column(name: "amount", typeOID: 1700, typeModifier: (10 << 16 | 6) + 4)])
            XCTAssertEqual(seen.tag, "SELECT 1")
            XCTAssertNil(observer.take().tag, "taken once")
        }
    }
}
