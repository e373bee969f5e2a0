// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// Interoperability with pyarrow (Apache Arrow's C++ Parquet implementation): files it
/// writes must read back identically here, and files written here must read back
/// identically there. Skipped when python3 cannot import pyarrow.
final class PyarrowInteropTests: XCTestCase {
    /// Writes one file per writer-option combination plus `expected.json`, which holds
    /// the canonical text of every value (see `canonical` in TestSupport.swift).
    static let writerScript = #"""
import datetime, decimal, json, random, struct, sys
import pyarrow as pa, pyarrow.parquet as pq

decimal.getcontext().prec = 100
out = sys.argv[1]
rng = random.Random(7)
N = 2500

def nullable(values, every=9):
    return [None if i % every == 4 else v for i, v in enumerate(values)]

words = ["", "alpha", "béta", "日本語", "🎉 party", "x" * 300, "Zeta", "tab\there", "new\nline"]
strings = nullable([words[rng.randrange(len(words))] + str(rng.randrange(40)) for _ in range(N)])
lowcard = nullable([["red", "green", "blue", ""][rng.randrange(4)] for _ in range(N)], 7)
i16 = nullable([-32768, 32767] + [rng.randrange(-32768, 32768) for _ in range(N - 2)])
i32 = nullable([-2**31, 2**31 - 1] + [rng.randrange(-2**31, 2**31) for _ in range(N - 2)])
i64 = nullable([-2**63, 2**63 - 1] + [rng.randrange(-2**63, 2**63) for _ in range(N - 2)])
u32 = nullable([0, 2**32 - 1] + [rng.randrange(0, 2**32) for _ in range(N - 2)])
f32 = nullable([float("inf"), -0.0] + [struct.unpack("<f", struct.pack("<f", rng.uniform(-1e6, 1e6)))[0] for _ in range(N - 2)])
f64 = nullable([float("-inf"), 5e-324, float("nan")] + [rng.uniform(-1e300, 1e300) for _ in range(N - 3)])
bools = nullable([rng.random() < 0.3 for _ in range(N)], 5)
dec9 = nullable([decimal.Decimal(rng.randrange(-10**9 + 1, 10**9)).scaleb(-2) for _ in range(N)])
dec18 = nullable([decimal.Decimal(-(10**18 - 1)).scaleb(-4)] + [decimal.Decimal(rng.randrange(-10**18 + 1, 10**18)).scaleb(-4) for _ in range(N - 1)])
dec38 = nullable([decimal.Decimal(10**38 - 1).scaleb(-10), decimal.Decimal(-(10**38 - 1)).scaleb(-10)]
                 + [decimal.Decimal(rng.randrange(-10**38 + 1, 10**38)).scaleb(-10) for _ in range(N - 2)])
epoch = datetime.date(1970, 1, 1)
dates = nullable([datetime.date(1, 1, 1), datetime.date(9999, 12, 31)]
                 + [epoch + datetime.timedelta(days=rng.randrange(-100000, 100000)) for _ in range(N - 2)])
ts_us = nullable([rng.randrange(-2**62, 2**62) for _ in range(N)])
ts_ms = nullable([rng.randrange(-2**50, 2**50) for _ in range(N)])
ts_ns = nullable([-2**63 + 1] + [rng.randrange(-2**62, 2**62) for _ in range(N - 1)])
req = list(range(N))

table = pa.table({
    "i16": pa.array(i16, pa.int16()),
    "i32": pa.array(i32, pa.int32()),
    "i64": pa.array(i64, pa.int64()),
    "u32": pa.array(u32, pa.uint32()),
    "f32": pa.array(f32, pa.float32()),
    "f64": pa.array(f64, pa.float64()),
    "b": pa.array(bools, pa.bool_()),
    "s": pa.array(strings, pa.string()),
    "lowcard": pa.array(lowcard, pa.string()),
    "dec9": pa.array(dec9, pa.decimal128(9, 2)),
    "dec18": pa.array(dec18, pa.decimal128(18, 4)),
    "dec38": pa.array(dec38, pa.decimal128(38, 10)),
    "d": pa.array(dates, pa.date32()),
    "ts": pa.array(ts_us, pa.timestamp("us")),
    "ts_ms": pa.array(ts_ms, pa.timestamp("ms")),
    "ts_ns": pa.array(ts_ns, pa.timestamp("ns")),
    "ts_tz": pa.array(ts_us, pa.timestamp("us", tz="UTC")),
}).append_column(pa.field("req", pa.int64(), nullable=False), pa.array(req, pa.int64()))

def canon_float(x):
    return None if x is None else str(struct.unpack("<q", struct.pack("<d", x))[0])

def unscaled(d, scale):
    return None if d is None else str(int(d.scaleb(scale)))

expected = {
    "i16": [None if v is None else str(v) for v in i16],
    "i32": [None if v is None else str(v) for v in i32],
    "i64": [None if v is None else str(v) for v in i64],
    "u32": [None if v is None else str(v) for v in u32],
    "f32": [canon_float(v) for v in f32],
    "f64": [canon_float(v) for v in f64],
    "b": [None if v is None else ("true" if v else "false") for v in bools],
    "s": strings,
    "lowcard": lowcard,
    "dec9": [unscaled(v, 2) for v in dec9],
    "dec18": [unscaled(v, 4) for v in dec18],
    "dec38": [unscaled(v, 10) for v in dec38],
    "d": [None if v is None else str((v - epoch).days) for v in dates],
    "ts": [None if v is None else str(v) for v in ts_us],
    "ts_ms": [None if v is None else str(v * 1000) for v in ts_ms],
    "ts_ns": [None if v is None else str(v // 1000) for v in ts_ns],
    "ts_tz": [None if v is None else str(v) for v in ts_us],
    "req": [str(v) for v in req],
}

files = []
def write(name, t=table, **kw):
    path = out + "/" + name + ".parquet"
    pq.write_table(t, path, row_group_size=800, data_page_size=4096, **kw)
    files.append(name)

for dictionary in (True, False):
    for codec in ("snappy", "zstd", "gzip", "none"):
        for page in ("1.0", "2.0"):
            write(f"dict{int(dictionary)}_{codec}_v{page[0]}", use_dictionary=dictionary, compression=codec,
                  data_page_version=page)
for page in ("1.0", "2.0"):
    write(f"delta_v{page[0]}", use_dictionary=False, compression="snappy", data_page_version=page, column_encoding={
        "i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "u32": "DELTA_BINARY_PACKED",
        "d": "DELTA_BINARY_PACKED", "ts": "DELTA_BINARY_PACKED", "ts_ns": "DELTA_BINARY_PACKED",
        "s": "DELTA_BYTE_ARRAY", "lowcard": "DELTA_LENGTH_BYTE_ARRAY", "dec38": "DELTA_BYTE_ARRAY",
        "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT", "dec18": "BYTE_STREAM_SPLIT",
        "i16": "BYTE_STREAM_SPLIT", "b": "RLE", "req": "DELTA_BINARY_PACKED"})
write("int96", use_deprecated_int96_timestamps=True, compression="snappy")
# Tiny dictionary limit: chunks start dictionary-encoded and fall back to PLAIN pages.
write("dict_fallback", dictionary_pagesize_limit=512, write_page_checksum=True, write_page_index=True,
      compression="zstd")
write("decimal_as_int", store_decimal_as_integer=True, compression="zstd")
# Format 1.0 has no nanosecond timestamps (pyarrow would truncate them).
write("format_v1", t=table.drop_columns(["ts_ns"]), version="1.0", compression="gzip")

json.dump({"files": files, "columns": expected}, open(out + "/expected.json", "w"))
"""#

    /// Reads one file written by Slicehouse and prints its schema, row groups, statistics
    /// and values in canonical form as JSON.
    static let readerScript = #"""
import decimal, json, struct, sys
import pyarrow as pa, pyarrow.parquet as pq

decimal.getcontext().prec = 100
path = sys.argv[1]
# Our writer stores page CRCs: have pyarrow check them.
f = pq.ParquetFile(path, page_checksum_verification=True)
table = f.read()

def canon(col):
    t = col.type
    if pa.types.is_timestamp(t):
        return [None if v is None else str(v) for v in col.cast(pa.int64()).to_pylist()]
    if pa.types.is_date32(t):
        return [None if v is None else str(v) for v in col.cast(pa.int32()).to_pylist()]
    if pa.types.is_decimal(t):
        return [None if v is None else str(int(v.scaleb(t.scale))) for v in col.to_pylist()]
    if pa.types.is_floating(t):
        return [None if v is None else str(struct.unpack("<q", struct.pack("<d", v))[0]) for v in col.to_pylist()]
    if pa.types.is_boolean(t):
        return [None if v is None else ("true" if v else "false") for v in col.to_pylist()]
    if pa.types.is_integer(t):
        return [None if v is None else str(v) for v in col.to_pylist()]
    return col.to_pylist()

meta = f.metadata
stats = {}
for i in range(meta.num_columns):
    s = meta.row_group(0).column(i).statistics if meta.num_row_groups else None
    def show(get):
        try:
            return str(get())
        except (OverflowError, ValueError):
            return None  # e.g. timestamps beyond Python's datetime range
    stats[meta.schema.column(i).name] = None if s is None else {
        "null_count": s.null_count, "has_min_max": s.has_min_max,
        "min": show(lambda: s.min) if s.has_min_max else None, "max": show(lambda: s.max) if s.has_min_max else None}
print(json.dumps({
    "types": {field.name: str(field.type) for field in table.schema},
    "nullable": {field.name: field.nullable for field in table.schema},
    "row_groups": meta.num_row_groups,
    "rg0_rows": meta.row_group(0).num_rows if meta.num_row_groups else 0,
    "rows": table.num_rows,
    "created_by": meta.created_by,
    "stats": stats,
    "columns": {name: canon(table.column(name)) for name in table.column_names},
}))
"""#

    func python() throws -> String {
        guard let python = pyarrowPython else {
            throw XCTSkip("python3 with pyarrow is not installed (pip install pyarrow); Parquet interop tests skipped")
        }
        return python
    }

    /// Every pyarrow-written variant reads back with the values pyarrow was given.
    func testReadFilesWrittenByPyarrow() throws {
        let python = try python()
        let dir = try makeTempDir(self)
        let script = dir.appendingPathComponent("write.py")
        try Self.writerScript.write(to: script, atomically: true, encoding: .utf8)
        let r = try runProcess(python, [script.path, dir.path])
        XCTAssertEqual(r.status, 0, "pyarrow writer failed: \(r.stderr)")
        guard r.status == 0 else { return }

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("expected.json")))
        guard let root = json as? [String: Any], let files = root["files"] as? [String],
              let columns = root["columns"] as? [String: [Any]] else {
            return XCTFail("bad expected.json")
        }
        let targets: [(String, DataType)] = [
            ("i16", .smallint), ("i32", .integer), ("i64", .bigint), ("u32", .bigint), ("f32", .real), ("f64", .double),
            ("b", .boolean), ("s", .varchar(1000)), ("lowcard", .varchar(10)),
            ("dec9", .decimal(precision: 9, scale: 2)), ("dec18", .decimal(precision: 18, scale: 4)),
            ("dec38", .decimal(precision: 38, scale: 10)), ("d", .date), ("ts", .timestamp), ("ts_ms", .timestamp),
            ("ts_ns", .timestamp), ("ts_tz", .timestamp), ("req", .bigint),
        ]
        XCTAssertGreaterThanOrEqual(files.count, 21)
        for name in files {
            let pf = try ParquetFile(path: dir.appendingPathComponent(name + ".parquet").path)
            XCTAssertGreaterThan(pf.rowGroupCount, 2, name)
            let present = targets.filter { pf.schema.column(named: $0.0) != nil }
            XCTAssertGreaterThanOrEqual(present.count, targets.count - 1, name)
            let indices = present.compactMap { pf.schema.column(named: $0.0)?.index }
            XCTAssertEqual(pf.schema.column(named: "req")?.isNullable, false, "req is REQUIRED")
            let vectors = try pf.readAll(columns: indices, as: present.map(\.1))
            for (k, (colName, _)) in present.enumerated() {
                guard let want = columns[colName]?.map({ $0 as? String }) else { XCTFail("no expected \(colName)"); continue }
                let got = canonicalColumn(vectors[k], count: vectors[k].count)
                XCTAssertEqual(got.count, want.count, "\(name).\(colName)")
                if got != want {
                    let bad = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }
                    XCTFail("\(name).\(colName) differs at row \(bad?.offset ?? -1): want \(String(describing: bad?.element.0)) got \(String(describing: bad?.element.1))")
                }
            }
        }
    }

    /// Files written here read back in pyarrow with the same values, types and statistics.
    func testPyarrowReadsFilesWrittenHere() throws {
        let python = try python()
        let dir = try makeTempDir(self)
        let script = dir.appendingPathComponent("read.py")
        try Self.readerScript.write(to: script, atomically: true, encoding: .utf8)
        let rows = 3000
        let data = RoundTripTests.makeData(rows: rows)
        for compression in [ParquetCompression.snappy, .zstd, .gzip, .none] {
            let path = dir.appendingPathComponent("\(compression).parquet").path
            let w = try ParquetWriter(path: path, columns: RoundTripTests.columns, compression: compression,
                                      rowGroupBytes: 150_000)
            var start = 0
            while start < rows {
                let n = min(700, rows - start)
                try w.append(Chunk(columns: data.map { $0.slice(start, n) }, count: n))
                start += n
            }
            try w.close()

            let r = try runProcess(python, [script.path, path])
            XCTAssertEqual(r.status, 0, "pyarrow could not read our \(compression) file: \(r.stderr)")
            guard r.status == 0 else { continue }
            guard let root = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                  let types = root["types"] as? [String: String],
                  let columns = root["columns"] as? [String: [Any]],
                  let stats = root["stats"] as? [String: Any] else {
                XCTFail("bad JSON from pyarrow: \(r.stdout.prefix(500))")
                continue
            }
            XCTAssertEqual(root["rows"] as? Int, rows)
            XCTAssertGreaterThan(root["row_groups"] as? Int ?? 0, 1)
            XCTAssertEqual(types, [
                "i16": "int16", "i32": "int32", "i64": "int64", "d9": "decimal128(9, 2)", "d18": "decimal128(18, 6)",
                "d20": "decimal128(20, 0)", "d38": "decimal128(38, 10)", "r": "float", "f": "double", "b": "bool",
                "s": "string", "c": "string", "dt": "date32[day]", "ts": "timestamp[us]", "wide": "string",
            ])
            for (k, col) in RoundTripTests.columns.enumerated() {
                let want = canonicalColumn(data[k], count: rows)
                let got = columns[col.name]?.map { $0 as? String } ?? []
                if got != want {
                    let bad = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }
                    XCTFail("\(compression) \(col.name) differs at row \(bad?.offset ?? -1): want \(String(describing: bad?.element.0)) got \(String(describing: bad?.element.1))")
                }
            }
            // Statistics as pyarrow decodes them (row group 0 holds the extremes in rows 0-3).
            let i64 = stats["i64"] as? [String: Any]
            XCTAssertEqual(i64?["min"] as? String, String(Int64.min))
            XCTAssertEqual(i64?["max"] as? String, String(Int64.max))
            let rg0 = root["rg0_rows"] as? Int ?? 0
            XCTAssertEqual(i64?["null_count"] as? Int, (0..<rg0).filter { data[2].isNull($0) }.count)
            let s = stats["s"] as? [String: Any]
            XCTAssertEqual(s?["has_min_max"] as? Bool, true)
            XCTAssertEqual(s?["min"] as? String, "")
        }
    }
}
