// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseStorage
import SlicehouseCatalog

/// `ManifestJSON` writes what `JSONEncoder` would: every field, decodable to the same values.
final class ManifestJSONTests: XCTestCase {
    /// A table entry with every optional field set somewhere: a tail-buffer block (`d`), a
    /// block in a file, deletes, statistics, a materialized view's state, identity, defaults
    /// with quotes, a control character and non-ASCII text.
    static let table = #"""
    {"analyzed": {"columns": {"0": {"distinct": 3, "max": 3, "min": 1, "nullFraction": 0}, "2": {"distinct": 2, "max": 300, "min": 150, "nullFraction": 0.3333333333333333}}, "modifications": 3, "rows": 3, "time": 1796097297649761},
     "columns": [{"identitySeed": -1, "identityStep": 2, "name": "id", "notNull": false, "primaryKey": false, "type": "bigint", "unique": false},
                 {"defaultSQL": "'x\"y\\z\n\u0001é'", "encoding": "lzo", "name": "s", "notNull": true, "precision": 10, "primaryKey": false, "type": "varchar", "unique": false},
                 {"name": "d", "notNull": false, "precision": 10, "primaryKey": false, "scale": 2, "type": "decimal", "unique": true},
                 {"name": "k", "notNull": true, "primaryKey": true, "references": "a", "type": "integer", "unique": false}],
     "database": "dev2", "distKey": 3, "distStyle": "KEY", "encodings": ["az64", "lzo", "az64", "raw"], "evenCursor": 7, "id": 100000,
     "identityNext": {"0": 4, "1": -9}, "materializedView": {"autoRefresh": true, "query": "SELECT 1", "searchPath": ["public"]},
     "modifications": 4, "name": "a/b \"q\"", "placement": "key:3", "primaryKey": [3],
     "refreshState": {"bases": [{"deleted": [0, 1], "deletedRuns": [[], [0, 1]], "modifications": 4, "placement": "key:3", "reorganizations": 0, "rows": [0, 2], "table": 100000}], "meaning": "table 100000\u0001timezone UTC", "refreshedAt": 1796097297655411, "xid": 1006},
     "reorganizations": 2, "schema": "public",
     "slices": [{"columns": [[], [], [], []], "rows": 0, "sorted": 0},
                {"columns": [[{"d": "U0hFQgEBAAACAAAADAAAAN3fSRUAAgIIAAAAAAAAAAA=", "e": "az64", "f": "", "hi": "i3", "l": 32, "lo": "i1", "n": 2, "o": 0, "r": 0, "z": 0}],
                             [{"e": "lzo", "f": "slice1/t100000_g3.blk", "hi": "x6520", "l": 38, "lo": "x612f62", "n": 2, "o": 4096, "r": 0, "tb": true, "z": 0}],
                             [{"d": "U0hFQgEBAAIBAAAAAAAAAEB3Cls=", "e": "az64", "f": "", "l": 20, "n": 2, "o": 0, "r": 0, "z": 2}],
                             [{"e": "raw", "f": "slice1/t100000_g3.blk", "hi": "i2", "l": 25, "lo": "i2", "n": 2, "o": 0, "r": 0, "tb": false, "z": 0}]],
                 "deletes": "slice1/t100000_g2.dbm", "rows": 2, "sorted": 1}],
     "sortKey": [3], "sortKeyKind": "INTERLEAVED", "uniqueKeys": [[2], [0, 3]]}
    """#

    /// `value` as `JSONEncoder` with sorted keys writes it (the reference).
    func reference<T: Encodable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(value), as: UTF8.self)
    }

    /// Names of `value`'s optional stored properties that are nil.
    func nilFields(_ value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            let m = Mirror(reflecting: child.value)
            return m.displayStyle == .optional && m.children.isEmpty ? child.label : nil
        }
    }

    func testTableEntryRoundTrips() throws {
        let t = try JSONDecoder().decode(ManifestTable.self, from: Data(Self.table.utf8))
        // The fixture must exercise every field: a field added later must be added here
        // (and to `ManifestTable.write`), or this fails.
        XCTAssertEqual(nilFields(t), [])
        var columnNils = Set(nilFields(t.columns[0]))
        for c in t.columns { columnNils.formIntersection(nilFields(c)) }
        XCTAssertEqual(columnNils, [])
        var blockNils: Set<String>?
        for s in t.slices { for chain in s.columns { for b in chain {
            blockNils = blockNils.map { $0.intersection(nilFields(b)) } ?? Set(nilFields(b))
        } } }
        XCTAssertEqual(blockNils, [])
        XCTAssertEqual(Set(t.slices.flatMap(nilFields)), ["deletes"])
        XCTAssertTrue(t.slices.contains { $0.deletes != nil })

        var out = ManifestJSON()
        try t.write(&out)
        let back = try JSONDecoder().decode(ManifestTable.self, from: Data(out.bytes))
        XCTAssertEqual(try reference(back), try reference(t))
    }

    func testManifestAndRecordRoundTrip() throws {
        let t = try JSONDecoder().decode(ManifestTable.self, from: Data(Self.table.utf8))
        let schema = SchemaDef(name: "s\"1", owner: "alice")
        let function = FunctionDef(schema: "public", name: "twice", parameterTypes: ["integer"], returnType: "integer",
                                   body: "select $1 * 2", volatility: "stable")
        let sales = DatabaseDef(name: "sales", id: 7, owner: "alice", connectionLimit: 4)
        let database = ManifestDatabase(ObjectSpace.Saved(database: sales, schemas: [schema], views: [],
                                                          comments: ["k": "v"], functions: [function]))
        // Every field set: a field added later must be added here (and to `encoded()`), or this fails.
        let m = Manifest(generation: 12, nextTableID: 100002, tables: [t, t], views: [], schemas: [schema],
                         security: Security(), comments: ["table:1": "a \"comment\"\n"], functions: [function],
                         databases: [database], defaultDatabase: DatabaseDef(name: "dev", id: 1, owner: "rdsdb"))
        XCTAssertEqual(nilFields(m), [])
        let body = try m.encoded()
        let back = try JSONDecoder().decode(Manifest.self, from: Data(body))
        XCTAssertEqual(try reference(back), try reference(m))
        // The checksummed envelope still opens.
        XCTAssertEqual(try reference(try Manifest.decode(try m.fileBytes(), path: "manifest.json")), try reference(m))

        let r = CommitRecord(sequence: 9, nextTableID: 100003, tables: [t], dropped: [5, 6], views: [],
                             schemas: [schema], security: Security(), comments: [:], functions: [function],
                             databases: [database], defaultDatabase: sales)
        XCTAssertEqual(nilFields(r), [])
        let decoded = try JSONDecoder().decode(CommitRecord.self, from: Data(try r.encoded()))
        XCTAssertEqual(try reference(decoded), try reference(r))
        let empty = CommitRecord(sequence: 1, nextTableID: 1, tables: [], dropped: [], views: nil)
        XCTAssertEqual(try reference(try JSONDecoder().decode(CommitRecord.self, from: Data(try empty.encoded()))),
                       try reference(empty))
    }

    func testBase64MatchesFoundation() {
        var g = SystemRandomNumberGenerator()
        for n in 0..<40 {
            let raw = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            XCTAssertEqual(ManifestJSON.base64(raw), Data(raw).base64EncodedString(), "\(n) bytes")
        }
    }
}
