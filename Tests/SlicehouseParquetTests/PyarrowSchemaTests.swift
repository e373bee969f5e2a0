// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// Schemas only other writers produce: nested columns, unsigned and small integers,
/// untyped binary, NULL-typed columns, times, codecs this reader lacks.
final class PyarrowSchemaTests: XCTestCase {
    static let script = #"""
import sys, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
t = pa.table({
    "id": pa.array([1, 2, 3], pa.int32()),
    "tags": pa.array([["a"], [], None], pa.list_(pa.string())),
    "point": pa.array([{"x": 1, "y": 2}, None, {"x": 3, "y": None}], pa.struct([("x", pa.int64()), ("y", pa.int64())])),
    "u8": pa.array([0, 255, None], pa.uint8()),
    "i8": pa.array([-128, 127, None], pa.int8()),
    "u64": pa.array([0, 2**63 - 1, 2**64 - 1], pa.uint64()),
    "bin": pa.array([b"abc", None, b""], pa.binary()),
    "nothing": pa.array([None, None, None], pa.null()),
    "t": pa.array([0, 1000, None], pa.time32("ms")),
    "cat": pa.array(["x", "y", "x"]).dictionary_encode(),
    "big": pa.array(["p", None, "q"], pa.large_string()),
})
pq.write_table(t, out + "/schema.parquet")
pq.write_table(pa.table({"x": pa.array([1, 2], pa.int64())}), out + "/brotli.parquet", compression="brotli")
pq.write_table(pa.table({"x": pa.array([1, 2], pa.int64())}), out + "/lz4.parquet", compression="lz4")
pq.write_table(pa.table({"x": pa.array([], pa.int64())}), out + "/empty.parquet")
"""#

    func testOtherSchemas() throws {
        guard let python = pyarrowPython else { throw XCTSkip("python3 with pyarrow is not installed") }
        let dir = try makeTempDir(self)
        let path = dir.appendingPathComponent("gen.py")
        try Self.script.write(to: path, atomically: true, encoding: .utf8)
        let r = try runProcess(python, [path.path, dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        guard r.status == 0 else { return }

        let pf = try ParquetFile(path: dir.appendingPathComponent("schema.parquet").path)
        XCTAssertEqual(pf.columns.map(\.name), ["id", "tags", "point", "u8", "i8", "u64", "bin", "nothing", "t", "cat", "big"])
        XCTAssertEqual(pf.columns.map(\.isNested), [false, true, true, false, false, false, false, false, false, false, false])
        XCTAssertEqual(pf.columns[3].logicalType, .integer(bitWidth: 8, signed: false))
        XCTAssertEqual(pf.columns.map(\.naturalType), [.integer, nil, nil, .smallint, .smallint, .decimal(precision: 20, scale: 0),
                                                       .varchar(65535), nil, nil, .varchar(65535), .varchar(65535)])

        // Flat columns next to nested ones read fine; nested ones are refused clearly.
        let flat = try pf.readAll(columns: [0, 3, 4, 6, 7, 9, 10],
                                  as: [.integer, .smallint, .smallint, .varchar(10), .bigint, .varchar(5), .varchar(5)])
        XCTAssertEqual(canonicalColumn(flat[0], count: 3), ["1", "2", "3"])
        XCTAssertEqual(canonicalColumn(flat[1], count: 3), ["0", "255", nil])
        XCTAssertEqual(canonicalColumn(flat[2], count: 3), ["-128", "127", nil])
        XCTAssertEqual(canonicalColumn(flat[3], count: 3), ["abc", nil, ""])
        XCTAssertEqual(canonicalColumn(flat[4], count: 3), [nil, nil, nil], "a NULL-typed column reads as NULLs")
        XCTAssertEqual(canonicalColumn(flat[5], count: 3), ["x", "y", "x"])
        XCTAssertEqual(canonicalColumn(flat[6], count: 3), ["p", nil, "q"])
        // Nested columns read as JSON: into SUPER, or as JSON text into VARCHAR; not into other types.
        let json = try pf.readAll(columns: [1, 2], as: [.superType, .varchar(100)])
        XCTAssertEqual(canonicalColumn(json[0], count: 3), [#"["a"]"#, "[]", nil])
        XCTAssertEqual(canonicalColumn(json[1], count: 3), [#"{"x":1,"y":2}"#, nil, #"{"x":3,"y":null}"#])
        XCTAssertThrowsError(try pf.readRowGroup(0, columns: [2], as: [.varchar(10)])) { e in
            XCTAssertEqual((e as? SQLError)?.code, .stringTooLong, "\(e)")
        }
        for nested in [1, 2] {
            XCTAssertThrowsError(try pf.readRowGroup(0, columns: [nested], as: [.bigint])) { e in
                XCTAssertEqual((e as? SQLError)?.code, .datatypeMismatch, "\(e)")
            }
            XCTAssertNotNil(pf.columns[nested].conversionProblem(to: .bigint))
            XCTAssertNil(pf.columns[nested].conversionProblem(to: .superType))
        }
        // Flat columns into SUPER: JSON scalars (binary as a string; NULL-typed all NULL).
        let scalars = try pf.readAll(columns: [0, 5, 6, 7, 9], as: Array(repeating: .superType, count: 5))
        XCTAssertEqual(canonicalColumn(scalars[0], count: 3), ["1", "2", "3"])
        XCTAssertEqual(canonicalColumn(scalars[1], count: 3), ["0", String(Int64.max), "18446744073709551615"])
        XCTAssertEqual(canonicalColumn(scalars[2], count: 3), [#""abc""#, nil, #""""#])
        XCTAssertEqual(canonicalColumn(scalars[3], count: 3), [nil, nil, nil])
        XCTAssertEqual(canonicalColumn(scalars[4], count: 3), [#""x""#, #""y""#, #""x""#])
        // Time of day has no JSON form here.
        XCTAssertNotNil(pf.columns[8].conversionProblem(to: .superType))

        // Unsigned 64-bit: above BIGINT's range, but fits DECIMAL(20,0).
        XCTAssertEqual(canonicalColumn(try pf.readAll(columns: [5], as: [.decimal(precision: 20, scale: 0)])[0], count: 3),
                       ["0", String(Int64.max), "18446744073709551615"])
        XCTAssertThrowsError(try pf.readAll(columns: [5], as: [.bigint])) { e in
            XCTAssertEqual((e as? SQLError)?.code, .numericOutOfRange)
            XCTAssertTrue("\(e)".contains("18446744073709551615"), "\(e)")
        }
        // Time of day has no Slicehouse type.
        XCTAssertThrowsError(try pf.readAll(columns: [8], as: [.timestamp])) { e in
            XCTAssertTrue("\(e)".contains("TIME"), "\(e)")
        }

        for codec in ["brotli", "lz4"] {
            let f = try ParquetFile(path: dir.appendingPathComponent(codec + ".parquet").path)
            XCTAssertThrowsError(try f.readAll(columns: [0], as: [.bigint])) { e in
                XCTAssertEqual((e as? SQLError)?.code, .featureNotSupported)
                XCTAssertTrue("\(e)".contains("compression"), "\(e)")
            }
        }

        let empty = try ParquetFile(path: dir.appendingPathComponent("empty.parquet").path)
        XCTAssertEqual(empty.numRows, 0)
        XCTAssertEqual(try empty.readAll(columns: [0], as: [.bigint])[0].count, 0)
    }
}
