// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseStorage
import SlicehouseCatalog

/// `ManifestReader` reads a manifest's slices by hand to the same values `JSONDecoder`
/// reads, and gives up (the decoder reads the whole file) on anything it does not know.
final class ManifestReaderTests: XCTestCase {
    func reference<T: Encodable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(value), as: UTF8.self)
    }

    func table() throws -> ManifestTable {
        try JSONDecoder().decode(ManifestTable.self, from: Data(ManifestJSONTests.table.utf8))
    }

    /// A manifest with two tables whose zone bounds hold every kind of character a string
    /// may: quotes, backslashes, control characters, non-ASCII text and a character
    /// outside the Basic Multilingual Plane (a surrogate pair once escaped).
    func manifest() throws -> Manifest {
        var t = try table()
        var u = try table()
        u.id += 1
        u.name = "u"
        let odd = ["a\"b\\c", "tab\tnew\nline\u{1}", "é漢字", "𝄞 clef", "/slash/", ""]
        for (k, s) in odd.enumerated() {
            var b = t.slices[1].columns[1][0]
            b.lo = s
            b.hi = s + "~"
            b.r = 2 + k
            t.slices[1].columns[1].append(b)
        }
        u.slices[1].deletes = nil
        u.slices[1].columns[0][0].tb = nil
        return Manifest(generation: 3, nextTableID: 100003, tables: [t, u], views: [], schemas: nil, security: Security())
    }

    func testReadsWhatTheDecoderReads() throws {
        let m = try manifest()
        // As the manifest writer writes it, and as JSONEncoder writes it (`\/` escapes,
        // `\u` escapes, another key order), pretty-printed too.
        var encoders: [JSONEncoder] = []
        for format: JSONEncoder.OutputFormatting in [[], [.prettyPrinted], [.sortedKeys, .prettyPrinted]] {
            let e = JSONEncoder()
            e.outputFormatting = format
            encoders.append(e)
        }
        let texts = [try m.encoded()] + (try encoders.map { Array(try $0.encode(m)) })
        for body in texts {
            guard let read = ManifestReader.decode(body[...]) else {
                return XCTFail("the reader gave up on \(String(decoding: body.prefix(80), as: UTF8.self))")
            }
            let decoded = try JSONDecoder().decode(Manifest.self, from: Data(body))
            XCTAssertEqual(try reference(read), try reference(decoded))
            XCTAssertEqual(try reference(read), try reference(m))
        }
        // Through the checksummed envelope, as a database opens it.
        XCTAssertEqual(try reference(try Manifest.decode(try m.fileBytes(), path: "manifest.json")), try reference(m))
    }

    func testEscapesAreReadAsTheDecoderReadsThem() throws {
        let body = Array(#"{"generation":1,"nextTableID":2,"formatVersion":2,"views":[],"tables":[TABLE]}"#.utf8)
        let slices = #"[{"rows":1,"sorted":1,"columns":[[{"f":"slice0\/t1_g1.blk","o":0,"l":9,"e":"raw","r":0,"n":1,"z":0,"lo":"\u00e9\ud834\udd1e\"\\\/\b\f\n\r\t","hi":null,"tb":null}]]}]"#
        var t = try table()
        t.slices = []
        var json = try reference(t)
        json = json.replacingOccurrences(of: #""slices":[]"#, with: #""slices":"# + slices)
        let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "TABLE", with: json)
        guard let read = ManifestReader.decode(Array(text.utf8)[...]) else { return XCTFail("gave up") }
        let decoded = try JSONDecoder().decode(Manifest.self, from: Data(text.utf8))
        XCTAssertEqual(try reference(read), try reference(decoded))
        XCTAssertEqual(read.tables[0].slices[0].columns[0][0].lo, "é𝄞\"\\/\u{8}\u{c}\n\r\t")
        XCTAssertEqual(read.tables[0].slices[0].columns[0][0].f, "slice0/t1_g1.blk")
        XCTAssertNil(read.tables[0].slices[0].columns[0][0].hi)
    }

    /// What the reader does not know it leaves to the decoder: each of these is valid
    /// JSON the decoder reads (or refuses) itself.
    func testGivesUpOnWhatItDoesNotRead() throws {
        var t = try table()
        t.slices = []
        let json = try reference(t)
        func manifest(slices: String) -> [UInt8] {
            Array((#"{"formatVersion":1,"generation":1,"nextTableID":2,"views":[],"tables":["#
                   + json.replacingOccurrences(of: #""slices":[]"#, with: #""slices":"# + slices) + "]}").utf8)
        }
        let block = #""f":"slice0/t1_g1.blk","o":0,"l":9,"e":"raw","r":0,"n":1,"z":0"#
        let cases = [
            #"[{"rows":1.0,"sorted":1,"columns":[[{"# + block + "}]]}]",           // a fraction
            #"[{"rows":1e0,"sorted":1,"columns":[[{"# + block + "}]]}]",           // an exponent
            #"[{"rows":1,"sorted":1,"columns":[[{"# + block + #","new":1}]]}]"#,  // an unknown key
            #"[{"rows":1,"sorted":1,"columns":[[{"\u0066":"x","o":0,"l":9,"e":"raw","r":0,"n":1,"z":0}]]}]"#,  // an escaped key
            #"[{"rows":1,"columns":[[{"# + block + "}]]}]",                        // a member missing
            #"[{"rows":"1","sorted":1,"columns":[[{"# + block + "}]]}]",           // another type
            #"[{"rows":01,"sorted":1,"columns":[[{"# + block + "}]]}]",            // a leading zero
            #"[{"rows":99999999999999999999,"sorted":1,"columns":[]}]"#,           // beyond Int
            #"[{"rows":1,"sorted":1,"columns":[[{"# + block + #","lo":"\ud834"}]]}]"#,  // a lone surrogate
        ]
        for c in cases {
            XCTAssertNil(ManifestReader.decode(manifest(slices: c)[...]), c)
        }
        // A well-formed one is read (the cases differ from it in one thing each).
        XCTAssertNotNil(ManifestReader.decode(manifest(slices: #"[{"rows":1,"sorted":1,"columns":[[{"# + block + "}]]}]")[...]))
        // A manifest the reader gives up on still opens, through the decoder.
        let m = try Manifest.decode(manifest(slices: #"[{"rows":1.0,"sorted":1,"columns":[[{"# + block + "}]]}]"), path: "m")
        XCTAssertEqual(m.tables[0].slices[0].rows, 1)
    }

    /// A cut or damaged text is never read by hand (the decoder reports it).
    func testTruncatedTextIsLeftToTheDecoder() throws {
        let body = try manifest().encoded()
        var g = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let cut = Int.random(in: 0..<body.count, using: &g)
            XCTAssertNil(ManifestReader.decode(body[..<cut]))
        }
    }

    /// Block and deleted-row file names name a file under one slice directory, nothing else.
    func testDataFileNames() {
        for good in ["slice0/t100000_g3.blk", "slice12/t1_g2.dbm", "slicex/a"] {
            XCTAssertTrue(ManifestTable.isDataFileName(good), good)
        }
        for bad in ["", "slice0", "slice0/", "slice0/.", "slice0/..", "slice0/../x", "slice0//x", "/etc/passwd",
                    "sl/x", "../slice0/x", "slice0/x/y", "x/slice0/y"] {
            XCTAssertFalse(ManifestTable.isDataFileName(bad), bad)
        }
    }
}
