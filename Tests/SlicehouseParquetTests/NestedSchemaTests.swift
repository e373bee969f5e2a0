// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// Nested schemas resolved for record assembly (including the legacy list forms no
/// writer on this machine produces), and the assembler fed levels by hand: shapes,
/// levels, and forged levels failing cleanly.
final class NestedSchemaTests: XCTestCase {
    func el(_ name: String, _ rep: Repetition?, _ type: ParquetPhysicalType? = nil, children: Int? = nil,
            converted: ConvertedType? = nil) -> SchemaElement {
        var e = SchemaElement()
        e.name = name
        e.repetition = rep?.rawValue
        e.type = type?.rawValue
        e.numChildren = children.map(Int32.init)
        e.convertedType = converted?.rawValue
        return e
    }

    func schema(_ fields: [SchemaElement], top: Int = 1) throws -> ParquetSchema {
        var root = SchemaElement()
        root.name = "schema"
        root.numChildren = Int32(top)
        return try ParquetSchema(elements: [root] + fields)
    }

    /// The tree as text: `leafK@def`, `{name:…}@def`, `list@def/elementDef/elementRep[…]`, `map@…{k->v}`.
    func describe(_ n: NestedNode) -> String {
        switch n.shape {
        case .leaf(let k): return "leaf\(k)@\(n.definitionLevel)"
        case .structure(let names, let fields):
            let parts = zip(names, fields).map { name, f in
                String(decoding: name.dropFirst().dropLast(), as: UTF8.self) + ":" + describe(f)
            }
            return "{" + parts.joined(separator: ",") + "}@\(n.definitionLevel)"
        case .list(let e):
            return "list@\(n.definitionLevel)/\(n.elementDefinitionLevel)/\(n.elementRepetitionLevel)[\(describe(e))]"
        case .map(let k, let v):
            return "map@\(n.definitionLevel)/\(n.elementDefinitionLevel)/\(n.elementRepetitionLevel){\(describe(k))->\(v.map(describe) ?? "-")}"
        }
    }

    func tree(_ fields: [SchemaElement]) throws -> (String, NestedColumnSchema) {
        let s = try schema(fields)
        guard let nested = s.columns[0].nested else {
            XCTFail("no nested schema: \(s.columns[0].nestedProblem ?? "?")")
            throw ParquetError("no nested schema")
        }
        return (describe(nested.root), nested)
    }

    func testListForms() throws {
        // Standard 3-level list of optional ints.
        XCTAssertEqual(try tree([el("l", .optional, children: 1, converted: .list),
                                 el("list", .repeated, children: 1),
                                 el("element", .optional, .int32)]).0, "list@1/2/1[leaf0@3]")
        // 2-level: the repeated primitive is the element.
        XCTAssertEqual(try tree([el("tags", .optional, children: 1, converted: .list),
                                 el("array", .repeated, .byteArray, converted: .utf8)]).0, "list@1/2/1[leaf0@2]")
        // 2-level: a repeated group of several fields is the element.
        XCTAssertEqual(try tree([el("pts", .optional, children: 1, converted: .list),
                                 el("bag", .repeated, children: 2),
                                 el("x", .required, .int32), el("y", .optional, .int32)]).0,
                       "list@1/2/1[{x:leaf0@2,y:leaf1@3}@2]")
        // 2-level: a one-field group named `array` or `<name>_tuple` is the element too.
        XCTAssertEqual(try tree([el("v", .required, children: 1, converted: .list),
                                 el("array", .repeated, children: 1), el("x", .required, .int32)]).0,
                       "list@0/1/1[{x:leaf0@1}@1]")
        XCTAssertEqual(try tree([el("v", .optional, children: 1, converted: .list),
                                 el("v_tuple", .repeated, children: 1), el("x", .optional, .int32)]).0,
                       "list@1/2/1[{x:leaf0@3}@2]")
        // A bare repeated field: a required list of required elements.
        XCTAssertEqual(try tree([el("nums", .repeated, .int32)]).0, "list@0/1/1[leaf0@1]")
        XCTAssertEqual(try tree([el("recs", .repeated, children: 2), el("a", .required, .int32),
                                 el("b", .repeated, .int64)]).0,
                       "list@0/1/1[{a:leaf0@1,b:list@1/2/2[leaf1@2]}@1]")
        // List of lists.
        XCTAssertEqual(try tree([el("g", .optional, children: 1, converted: .list),
                                 el("list", .repeated, children: 1),
                                 el("element", .optional, children: 1, converted: .list),
                                 el("list", .repeated, children: 1),
                                 el("element", .optional, .int32)]).0,
                       "list@1/2/1[list@3/4/2[leaf0@5]]")
    }

    func testMapsAndStructs() throws {
        XCTAssertEqual(try tree([el("m", .optional, children: 1, converted: .map),
                                 el("key_value", .repeated, children: 2),
                                 el("key", .required, .byteArray, converted: .utf8),
                                 el("value", .optional, .int64)]).0,
                       "map@1/2/1{leaf0@2->leaf1@3}")
        // Legacy: MAP_KEY_VALUE on the repeated group; a map without values.
        XCTAssertEqual(try tree([el("m", .required, children: 1, converted: .map),
                                 el("map", .repeated, children: 2, converted: .mapKeyValue),
                                 el("key", .required, .int32), el("value", .required, .int32)]).0,
                       "map@0/1/1{leaf0@1->leaf1@1}")
        XCTAssertEqual(try tree([el("s", .optional, children: 1, converted: .map),
                                 el("map", .repeated, children: 1), el("key", .required, .int32)]).0,
                       "map@1/2/1{leaf0@2->-}")
        let (text, nested) = try tree([el("p", .optional, children: 2), el("x", .required, .int64),
                                       el("q", .optional, children: 1), el("z", .optional, .double)])
        XCTAssertEqual(text, "{x:leaf0@1,q:{z:leaf1@3}@2}@1")
        XCTAssertEqual(nested.leaves.map(\.column.name), ["p.x", "p.q.z"])
        XCTAssertEqual(nested.leaves.map(\.column.leafIndex), [0, 1])
    }

    func testTooDeepAndEmptyGroupsAreReportedNotThrown() throws {
        var fields: [SchemaElement] = []
        for i in 0..<80 { fields.append(el("g\(i)", .optional, children: 1)) }
        fields.append(el("leaf", .optional, .int32))
        let s = try schema(fields + [el("flat", .optional, .int32)], top: 2)
        XCTAssertTrue(s.columns[0].isNested)
        XCTAssertNil(s.columns[0].nested)
        XCTAssertTrue(s.columns[0].nestedProblem?.contains("levels deep") ?? false, "\(String(describing: s.columns[0].nestedProblem))")
        XCTAssertNotNil(s.columns[0].conversionProblem(to: .superType))
        XCTAssertNil(s.columns[1].conversionProblem(to: .superType))
        XCTAssertNil(s.columns[1].conversionProblem(to: .integer))
        XCTAssertNotNil(s.columns[1].conversionProblem(to: .boolean))
    }

    // MARK: - Assembly from levels

    func stream(_ rep: [UInt8], _ def: [UInt8], _ values: [String?]) -> LeafStream {
        var json = LeafJSON()
        for v in values {
            if let v { json.bytes.append(contentsOf: v.utf8) }
            json.ends.append(json.bytes.count)
        }
        return LeafStream(repetition: rep, definition: def, json: json)
    }

    func assemble(_ root: NestedNode, rows: Int, _ streams: [LeafStream], type: DataType = .superType) throws -> [String?] {
        canonicalColumn(try NestedAssembler(streams).assemble(root, rows: rows, type: type, limit: 1000), count: rows)
    }

    func testAssemblyOfLegacyListsAndMaps() throws {
        let (_, tags) = try tree([el("tags", .optional, children: 1, converted: .list),
                                  el("array", .repeated, .byteArray, converted: .utf8)])
        XCTAssertEqual(try assemble(tags.root, rows: 4, [stream([0, 1, 0, 0, 0], [2, 2, 1, 0, 2],
                                                                ["\"a\"", "\"b\"", nil, nil, "\"c\""])]),
                       [#"["a","b"]"#, "[]", nil, #"["c"]"#])
        let (_, nums) = try tree([el("nums", .repeated, .int32)])
        XCTAssertEqual(try assemble(nums.root, rows: 2, [stream([0, 1, 0], [1, 1, 0], ["1", "2", nil])]), ["[1,2]", "[]"])
        // A list of structs with a nested list: [{a:1,b:[5,6]},{a:2,b:[]}], [].
        let (_, recs) = try tree([el("recs", .repeated, children: 2), el("a", .required, .int32),
                                  el("b", .repeated, .int64)])
        XCTAssertEqual(try assemble(recs.root, rows: 2, [
            stream([0, 1, 0], [1, 1, 0], ["1", "2", nil]),
            stream([0, 2, 1, 0], [2, 2, 1, 0], ["5", "6", nil, nil]),
        ]), [#"[{"a":1,"b":[5,6]},{"a":2,"b":[]}]"#, "[]"])
        // Map keys that are not strings become member names; a map without values.
        let (_, set) = try tree([el("s", .optional, children: 1, converted: .map),
                                 el("map", .repeated, children: 1), el("key", .required, .int32)])
        XCTAssertEqual(try assemble(set.root, rows: 3, [stream([0, 1, 0, 0], [2, 2, 1, 0], ["7", "8", nil, nil])]),
                       [#"{"7":null,"8":null}"#, "{}", nil])
        // JSON text into VARCHAR: the limit is the column's length.
        XCTAssertThrowsError(try NestedAssembler([stream([0, 1], [2, 2], ["\"abc\"", "\"def\""])])
            .assemble(tags.root, rows: 1, type: .varchar(5), limit: 5)) { e in
            XCTAssertEqual((e as? ParquetError)?.code, .stringTooLong)
            XCTAssertEqual((e as? ParquetError)?.row, 0)
        }
    }

    func testForgedLevelsFailCleanly() throws {
        let (_, tags) = try tree([el("tags", .optional, children: 1, converted: .list),
                                  el("array", .repeated, .byteArray, converted: .utf8)])
        let cases: [(LeafStream, Int)] = [
            (stream([1, 0], [2, 2], ["\"a\"", "\"b\""]), 1),         // first entry continues a row
            (stream([0, 1], [2, 2], ["\"a\"", "\"b\""]), 2),         // levels end before the rows
            (stream([0, 0, 0], [2, 2, 2], ["1", "2", "3"]), 2),      // more entries than rows
            (stream([0], [2], [nil]), 1),                            // a present value without text reads as null
        ]
        for (i, (s, rows)) in cases.enumerated() {
            do {
                let v = try assemble(tags.root, rows: rows, [s])
                XCTAssertEqual(i, 3, "case \(i) assembled \(v)")
                XCTAssertEqual(v, ["[null]"])
            } catch let e as ParquetError {
                XCTAssertTrue(e.message.contains("corrupt"), "case \(i): \(e.message)")
            }
        }
    }
}

/// pyarrow's nested files read as JSON, then damaged byte by byte: every read either
/// succeeds or throws an `SQLError`, never traps.
final class NestedFileFuzzTests: XCTestCase {
    static let script = #"""
import sys, pyarrow as pa, pyarrow.parquet as pq
t = pa.table({
    "s": pa.array([{"a": 1, "l": [1, 2]}, None, {"a": None, "l": []}, {"a": 4, "l": None}],
                  pa.struct([("a", pa.int64()), ("l", pa.list_(pa.int32()))])),
    "m": pa.array([[("k", "v")], None, [], [("x", None), ("y", "z")]], pa.map_(pa.string(), pa.string())),
    "ll": pa.array([[[1], None, []], [], None, [[None, 2]]], pa.list_(pa.list_(pa.int64()))),
})
pq.write_table(t, sys.argv[1] + "/v1.parquet")
pq.write_table(t, sys.argv[1] + "/v2.parquet", data_page_version="2.0", compression="none")
"""#

    func testDamagedNestedFilesNeverTrap() throws {
        guard let python = pyarrowPython else { throw XCTSkip("python3 with pyarrow is not installed") }
        let dir = try makeTempDir(self)
        let script = dir.appendingPathComponent("gen.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let r = try runProcess(python, [script.path, dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        guard r.status == 0 else { return }
        let expected: [[String?]] = [
            [#"{"a":1,"l":[1,2]}"#, nil, #"{"a":null,"l":[]}"#, #"{"a":4,"l":null}"#],
            [#"{"k":"v"}"#, nil, "{}", #"{"x":null,"y":"z"}"#],
            ["[[1],null,[]]", "[]", nil, "[[null,2]]"],
        ]
        for name in ["v1.parquet", "v2.parquet"] {
            let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
            let good = try ParquetFile(bytes: bytes, name: name)
            let all = try good.readAll(columns: [0, 1, 2], as: [.superType, .superType, .superType])
            for c in 0..<3 { XCTAssertEqual(canonicalColumn(all[c], count: 4), expected[c], "\(name) column \(c)") }

            var failures = 0
            for i in 4..<(bytes.count - 8) {
                for flip: UInt8 in [0xFF, 0x01] {
                    var bad = bytes
                    bad[i] ^= flip
                    do {
                        let f = try ParquetFile(bytes: bad, name: name)
                        _ = try f.readAll(columns: [0, 1, 2], as: [.superType, .superType, .varchar(100)])
                    } catch is SQLError {
                        failures += 1
                    }
                }
            }
            XCTAssertGreaterThan(failures, 0, name)
        }
    }
}
