// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseEngine
import SlicehouseTypes
import SlicehouseParquet

/// COPY ... FORMAT PARQUET and UNLOAD ... FORMAT PARQUET against other Parquet
/// implementations: DuckDB (its own C++ writer and reader) and pyarrow (Arrow's).
/// `scripts/setup-system.sh` installs both; without them the tests are skipped, except
/// under `CI=true`, where a missing module fails them.
final class ParquetInteropTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-pqinterop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    // MARK: - UNLOAD, read by DuckDB

    /// Reads `read_parquet(argv[1])` with DuckDB and prints the column names, DuckDB's
    /// types and every row in canonical text (see `canonical`).
    static let duckdbReader = #"""
import decimal, duckdb, json, struct, sys
decimal.getcontext().prec = 100
con = duckdb.connect()
src = "read_parquet(" + json.dumps(sys.argv[1]).replace('"', "'") + ")"
cols = con.execute("describe select * from " + src).fetchall()
exprs = []
for name, typ, *_ in cols:
    q = '"' + name.replace('"', '""') + '"'
    if typ.startswith("TIMESTAMP"):
        exprs.append("epoch_us(" + q + ")")
    elif typ == "DATE":
        exprs.append("(" + q + " - DATE '1970-01-01')")
    else:
        exprs.append(q)
rows = con.execute("select " + ", ".join(exprs) + " from " + src).fetchall()
def canon(v, typ):
    if v is None: return None
    if typ.startswith("DECIMAL("):
        scale = int(typ[:-1].split(",")[1])
        return str(int(v.scaleb(scale)))
    if typ in ("FLOAT", "DOUBLE"): return str(struct.unpack("<q", struct.pack("<d", float(v)))[0])
    if typ == "BOOLEAN": return "true" if v else "false"
    if typ in ("VARCHAR",): return v
    return str(int(v))
print(json.dumps({"names": [c[0] for c in cols], "types": [c[1] for c in cols],
                  "rows": [[canon(v, c[1]) for v, c in zip(r, cols)] for r in rows],
                  "version": duckdb.__version__}))
"""#

    func testUnloadedParquetReadsInDuckDBWithIdenticalValues() throws {
        let python = try InteropPython.require("duckdb")
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("""
            create table src (sm smallint, i int, b bigint, d decimal(12,2), w decimal(38,10), r real, f double precision,
                              t boolean, dt date, ts timestamp, s varchar(80), c char(8)) diststyle even;
            insert into src values
              (32767, 2147483647, 9223372036854775807, 9999999999.99, 1234567890123456789012345678.0123456789, 1.5, 1.5,
               true, '2020-02-29', '2020-02-29 12:34:56.123456', 'plain', 'ab'),
              (-32768, -2147483648, -9223372036854775807, -0.01, -0.0000000001, -2.25, -2.25e10, false,
               '1969-12-31', '1969-12-31 23:59:59.999999', 'pipe|comma,quote"tab\tend', 'x'),
              (null, null, null, null, null, null, null, null, null, null, null, null),
              (0, 0, 0, 0, 0, 0, 0, true, '2000-01-01', '2000-01-01 00:00:00', '', ''),
              (5, 5, 5, 5, 5, 3.25, 5e-300, false, '0001-01-01', '1900-01-01 00:00:00', 'new
            line, back\\\\slash', 'u-n-i'),
              (6, 6, 6, 6, 6, 1e30, 1e300, true, '9999-12-31', '2262-04-11 23:47:16', 'héllo wörld ✓ 日本語 🎉', 'z');
            """)
        // More rows so that files have several pages and dictionary pages.
        _ = try s.execute("insert into src select sm, i / 3, b, d, w, r, f, t, dt, ts, s || 'x', c from src where i is not null")
        let want = try canonicalRows(s, "select * from src")
        for (k, extra) in ["", " zstd", " parallel off"].enumerated() {
            let prefix = path("u\(k)_")
            _ = try s.execute("unload ('select * from src') to '\(prefix)' format as parquet\(extra)")
            let out = try InteropPython.run(python, Self.duckdbReader, [prefix + "*.parquet"])
            guard let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any],
                  let names = json["names"] as? [String], let types = json["types"] as? [String],
                  let rows = json["rows"] as? [[Any]] else { return XCTFail("bad DuckDB output: \(out)") }
            XCTAssertEqual(names, ["sm", "i", "b", "d", "w", "r", "f", "t", "dt", "ts", "s", "c"])
            XCTAssertEqual(types, ["SMALLINT", "INTEGER", "BIGINT", "DECIMAL(12,2)", "DECIMAL(38,10)", "FLOAT", "DOUBLE",
                                   "BOOLEAN", "DATE", "TIMESTAMP", "VARCHAR", "VARCHAR"], extra)
            let got = rows.map { $0.map { $0 as? String } }
            XCTAssertEqual(got.count, want.count, extra)
            if sortedRows(got) != sortedRows(want) {
                let g = Set(got.map(rowKey)), w = Set(want.map(rowKey))
                XCTFail("UNLOAD\(extra) read by DuckDB \(json["version"] ?? ""): \(w.subtracting(g).count) rows differ, e.g. want \(w.subtracting(g).sorted().first ?? "") got \(g.subtracting(w).sorted().first ?? "")")
            }
        }
    }

    // MARK: - pyarrow and DuckDB files, loaded by COPY

    /// Writes the same data with pyarrow (several compressions, dictionary and plain,
    /// data page v1 and v2) and with DuckDB (several compressions, Parquet v1 and v2),
    /// all with several row groups and NULLs, and prints the file names and the expected
    /// canonical value of every cell, computed from the source values.
    static let writers = #"""
import datetime, decimal, json, os, random, struct, sys
import pyarrow as pa, pyarrow.parquet as pq
import duckdb
out = sys.argv[1] + "/data"
nested = sys.argv[1] + "/nested"
os.makedirs(out, exist_ok=True)
os.makedirs(nested, exist_ok=True)
decimal.getcontext().prec = 100
rng = random.Random(11)
N = 5000
def nullable(values, every):
    return [None if i % every == 3 else v for i, v in enumerate(values)]
words = ["", "alpha", "béta", "日本語", "🎉 party", "pipe|comma,semi;", 'quote"\'', "tab\there", "new\nline", "back\\slash", "\\N"]
cols = {}
cols["sm"] = (pa.int16(), nullable([-32768, 32767] + [rng.randrange(-32768, 32768) for _ in range(N - 2)], 11))
cols["i"] = (pa.int32(), nullable([-2**31, 2**31 - 1] + [rng.randrange(-2**31, 2**31) for _ in range(N - 2)], 7))
cols["b"] = (pa.int64(), nullable([-2**63 + 1, 2**63 - 1] + [rng.randrange(-2**62, 2**62) for _ in range(N - 2)], 13))
cols["d"] = (pa.decimal128(18, 3), nullable([decimal.Decimal(rng.randrange(-10**18 + 1, 10**18)).scaleb(-3) for _ in range(N)], 5))
cols["w"] = (pa.decimal128(38, 10), nullable([decimal.Decimal(10**38 - 1).scaleb(-10)] + [decimal.Decimal(rng.randrange(-10**38 + 1, 10**38)).scaleb(-10) for _ in range(N - 1)], 9))
cols["r"] = (pa.float32(), nullable([struct.unpack("<f", struct.pack("<f", rng.uniform(-1e6, 1e6)))[0] for _ in range(N)], 8))
cols["f"] = (pa.float64(), nullable([-0.0, float("inf")] + [rng.uniform(-1e300, 1e300) for _ in range(N - 2)], 6))
cols["t"] = (pa.bool_(), nullable([rng.random() < 0.4 for _ in range(N)], 4))
epoch = datetime.date(1970, 1, 1)
cols["dt"] = (pa.date32(), nullable([datetime.date(1, 1, 1), datetime.date(9999, 12, 31)] + [epoch + datetime.timedelta(days=rng.randrange(-100000, 100000)) for _ in range(N - 2)], 10))
cols["ts_ms"] = (pa.timestamp("ms"), nullable([rng.randrange(-2**41, 2**41) for _ in range(N)], 12))
cols["ts_us"] = (pa.timestamp("us"), nullable([rng.randrange(-2**51, 2**51) for _ in range(N)], 14))
cols["ts_ns"] = (pa.timestamp("ns"), nullable([rng.randrange(-2**62, 2**62) for _ in range(N)], 15))
cols["s"] = (pa.string(), nullable([words[rng.randrange(len(words))] + str(rng.randrange(100000)) for _ in range(N)], 16))
cols["cat"] = (pa.string(), nullable([["red", "green", "blue", ""][rng.randrange(4)] for _ in range(N)], 17))
table = pa.table({name: pa.array(values, typ) for name, (typ, values) in cols.items()})

def canon(name, v):
    if v is None: return None
    typ = cols[name][0]
    if pa.types.is_decimal(typ): return str(int(v.scaleb(typ.scale)))
    if pa.types.is_floating(typ): return str(struct.unpack("<q", struct.pack("<d", float(v)))[0])
    if pa.types.is_boolean(typ): return "true" if v else "false"
    if pa.types.is_date(typ): return str((v - epoch).days)
    if pa.types.is_timestamp(typ):
        return str({"ms": v * 1000, "us": v, "ns": v // 1000}[typ.unit])
    if pa.types.is_string(typ): return v
    return str(v)

files = []
for comp, dictionary, page in [("snappy", True, "1.0"), ("zstd", False, "2.0"), ("gzip", True, "2.0"), ("none", False, "1.0")]:
    name = "pyarrow_%s_%s_v%s.parquet" % (comp, "dict" if dictionary else "plain", page[0])
    pq.write_table(table, out + "/" + name, compression=comp, use_dictionary=dictionary, data_page_version=page,
                   row_group_size=1500)
    files.append(name)
con = duckdb.connect()
con.register("src", table)
for comp, version in [("snappy", "V1"), ("zstd", "V2"), ("gzip", "V1"), ("uncompressed", "V2")]:
    name = "duckdb_%s_%s.parquet" % (comp, version.lower())
    con.execute("copy src to '%s' (format parquet, compression '%s', row_group_size 2048, parquet_version '%s')"
                % (out + "/" + name, comp, version))
    files.append(name)
# Nested columns, for the error test.
pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "tags": pa.array([["a"], None], pa.list_(pa.string()))}),
               nested + "/list.parquet")
pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "point": pa.array([{"x": 1, "y": 2}], pa.struct([("x", pa.int64()), ("y", pa.int64())]))}),
               nested + "/struct.parquet")
con.execute("copy (select 1::bigint as id, map {'k': 1} as attrs) to '%s' (format parquet)" % (nested + "/map_duckdb.parquet"))
print(json.dumps({"files": files, "names": list(cols),
                  "columns": {name: [canon(name, v) for v in values] for name, (typ, values) in cols.items()},
                  "versions": {"pyarrow": pa.__version__, "duckdb": duckdb.__version__}}))
"""#

    /// The writers' output directory and printed JSON, made once for all tests.
    nonisolated(unsafe) static var written: (dir: String, json: String)?

    override class func tearDown() {
        if let w = written { try? FileManager.default.removeItem(atPath: w.dir) }
        written = nil
        super.tearDown()
    }

    /// Run the writers once; returns the JSON they printed and the directory holding
    /// `data/` (the files to load) and `nested/`.
    func writeFiles(_ python: String) throws -> (dir: String, json: String) {
        if let w = Self.written { return w }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-pqwriters-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let json = try InteropPython.run(python, Self.writers, [base])
        Self.written = (base, json)
        return (base, json)
    }

    static let createTarget = """
        create table t (sm smallint, i int, b bigint, d decimal(18,3), w decimal(38,10), r real, f double precision,
                        t boolean, dt date, ts_ms timestamp, ts_us timestamp, ts_ns timestamp, s varchar(40),
                        cat varchar(5) not null default 'x') diststyle even
        """

    func testFilesWrittenByPyarrowAndDuckDBLoadWithIdenticalValues() throws {
        let python = try InteropPython.require("pyarrow", "duckdb")
        let (base, out) = try writeFiles(python)
        guard let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any],
              let files = json["files"] as? [String], let names = json["names"] as? [String],
              let columns = json["columns"] as? [String: [Any]] else { return XCTFail("bad writer output: \(out.prefix(500))") }
        XCTAssertEqual(files.count, 8)
        let n = columns["i"]?.count ?? 0
        XCTAssertEqual(n, 5000)
        var want: [[String?]] = []
        for r in 0..<n { want.append(names.map { columns[$0]?[r] as? String }) }
        // `cat` is NOT NULL in the table: NULLs there fail the load, so load a copy without them.
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute(Self.createTarget.replacingOccurrences(of: " not null default 'x'", with: ""))
        for file in files {
            let full = base + "/data/" + file
            XCTAssertGreaterThan(try ParquetFile(path: full).rowGroupCount, 1, file)
            _ = try s.execute("truncate t")
            let r = try s.execute("copy t from '\(full)' format as parquet")[0]
            XCTAssertEqual(r.tag, "COPY \(n)", file)
            let got = try canonicalRows(s, "select * from t")
            XCTAssertEqual(got.count, n, file)
            if sortedRows(got) != sortedRows(want) {
                let g = Set(got.map(rowKey)), w = Set(want.map(rowKey))
                XCTFail("\(file): \(w.subtracting(g).count) expected rows missing, e.g. \(w.subtracting(g).first ?? "") — got instead e.g. \(g.subtracting(w).first ?? "") (\(json["versions"] ?? ""))")
            }
        }
        // Every file under one prefix, in one COPY.
        _ = try s.execute("truncate t")
        let all = try s.execute("copy t from '\(base)/data/' format as parquet")
        XCTAssertEqual(all.first?.tag, "COPY \(n * files.count)")
    }

    func testNestedColumnsFailWithTheirNameAndLeaveTheTableUnchanged() throws {
        let python = try InteropPython.require("pyarrow", "duckdb")
        let base = try writeFiles(python).dir
        let s = try Database().connect()
        _ = try s.execute("create table n (id bigint, tags varchar(100)); insert into n values (99, 'before')")
        for (file, column, parquetName) in [("nested/list.parquet", "tags", "tags"), ("nested/struct.parquet", "tags", "point"),
                                            ("nested/map_duckdb.parquet", "tags", "attrs")] {
            let full = base + "/" + file
            XCTAssertThrowsError(try s.execute("copy n from '\(full)' format as parquet"), file) { e in
                guard let e = e as? SQLError else { return XCTFail("\(e)") }
                XCTAssertEqual(e.message, "Load into table 'n' failed. Check 'stl_load_errors' system table for details.")
                let detail = e.detail ?? ""
                XCTAssertTrue(detail.contains("column \(column) (position 1)"), detail)
                XCTAssertTrue(detail.contains("column \"\(parquetName)\" is nested"), detail)
                XCTAssertTrue(detail.contains(full), detail)
            }
            let errors = try s.execute("""
                select trim(filename), trim(colname), err_code from stl_load_errors where query = pg_last_copy_id()
                """)[0].textRows()
            XCTAssertEqual(errors, [[full, column, "15007"]], file)
            XCTAssertEqual(try s.execute("select * from n")[0].textRows(), [["99", "before"]], file)
        }
    }

    func testNullIntoNotNullColumnFailsTheCopy() throws {
        let python = try InteropPython.require("pyarrow", "duckdb")
        let base = try writeFiles(python).dir
        let s = try Database().connect()
        _ = try s.execute(Self.createTarget)
        XCTAssertThrowsError(try s.execute("copy t from '\(base)/data/duckdb_zstd_v2.parquet' format as parquet")) { e in
            XCTAssertTrue((e as? SQLError)?.detail?.contains("row 4, column cat (position 13): Missing data for not-null field [1213]") ?? false,
                          "\(e)")
        }
        XCTAssertEqual(try s.execute("select count(*) from t")[0].textRows(), [["0"]])
    }

    // MARK: - Helpers

    /// Every row of `sql` in canonical text: integers, scaled decimals, day numbers and
    /// microseconds as decimal integers; floating point as the decimal bit pattern of the
    /// Double; booleans as true/false; strings as they are.
    func canonicalRows(_ s: Session, _ sql: String) throws -> [[String?]] {
        let result = try s.execute(sql)[0]
        var out: [[String?]] = []
        for chunk in result.chunks {
            for r in 0..<chunk.count {
                out.append((0..<chunk.columns.count).map { c in
                    switch chunk.value(row: r, column: c) {
                    case .null: return nil
                    case .int(let v): return String(v)
                    case .int128(let v): return String(v)
                    case .double(let v): return String(Int64(bitPattern: v.bitPattern))
                    case .bool(let v): return v ? "true" : "false"
                    case .string(let v): return v
                    @unknown default: return "?"
                    }
                })
            }
        }
        return out
    }

    func rowKey(_ row: [String?]) -> String {
        row.map { $0.map { "=" + $0 } ?? "NULL" }.joined(separator: "\u{1}")
    }

    func sortedRows(_ rows: [[String?]]) -> [String] { rows.map(rowKey).sorted() }
}

/// A Python interpreter that can import the modules a test needs.
enum InteropPython {
    struct Missing: Error, CustomStringConvertible { var description: String }

    /// `$PYTHON`, then `python3` on the PATH, then the usual system interpreters: the
    /// first that imports every module. None: the test is skipped with a message, or
    /// fails under CI (`CI=true`), where setup-system.sh should have installed them.
    static func require(_ modules: String...) throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let candidates = (environment["PYTHON"].map { [$0] } ?? []) + ["python3", "/usr/bin/python3", "/usr/local/bin/python3"]
        let probe = "import " + modules.joined(separator: ", ")
        for candidate in candidates {
            if let r = try? process(candidate, ["-c", probe]), r.status == 0 { return candidate }
        }
        let message = "python3 with \(modules.joined(separator: " and ")) is not installed "
            + "(scripts/setup-system.sh installs them: pip install pyarrow 'duckdb>=1.5,<1.6'); Parquet interop test skipped"
        if let ci = environment["CI"], !ci.isEmpty, ci.lowercased() != "false", ci != "0" {
            throw Missing(description: "CI=\(ci): " + message.replacingOccurrences(of: "; Parquet interop test skipped", with: ""))
        }
        throw XCTSkip(message)
    }

    /// Run `script` with `args`; its standard output, or an error with its standard error.
    static func run(_ python: String, _ script: String, _ args: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try process(python, [file.path] + args)
        guard r.status == 0 else { throw Missing(description: "python script failed (\(r.status)): \(r.stderr)") }
        return r.stdout
    }

    static func process(_ program: String, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        if program.hasPrefix("/") {
            p.executableURL = URL(fileURLWithPath: program)
            p.arguments = args
        } else {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [program] + args
        }
        // stderr to a file: a chatty child cannot block on a full pipe while stdout is read.
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = errHandle
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try? errHandle.close()
        let err = (try? Data(contentsOf: errURL)) ?? Data()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
