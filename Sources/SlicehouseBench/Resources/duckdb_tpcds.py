#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""TPC-DS on DuckDB, for `slicehouse bench tpcds`: generates the data (DuckDB's tpcds
extension, `CALL dsdgen`) into Parquet files, and runs the queries on those files (the
answers Slicehouse's are checked against, and the times of --compare duckdb). One JSON
document on standard output; progress on standard error.

`slicehouse bench tpcds` runs an embedded copy of this script with a spec file:

    python3 duckdb_tpcds.py --spec SPEC.json

SPEC holds "mode" and:
  generate: scaleFactor, data (directory to write <table>.parquet into), schema (the
      Redshift CREATE TABLE statements of benchmarks/tpcds/schema.sql), tables. The
      generated tables are cast to the schema's column types, so that the Parquet files
      load into Slicehouse's tables as they are. Prints {version, seconds, tables:
      [{name, rows, bytes}]}.
  run: data, database (DuckDB file to create), threads, runs, warmup (bool), tables,
      schema, queries ([{"number": 1, "sql": "..."}]). Loads the Parquet files into the
      schema's tables and runs the queries (one warm-up, then N timed runs; with runs 0
      and no warm-up each query runs once, for its answer). Prints the same document as
      duckdb_tpch.py.

DuckDB runs with Redshift's semantics where a setting gives them: integer division
(`SET integer_division = true`: INT / INT truncates) and PostgreSQL's NULL order (NULLs
sort as the largest value: last ascending, first descending). Redshift's AVG has no
setting: its result has the argument's type (AVG of an INTEGER is an integer truncated
toward zero, AVG of a DECIMAL keeps the scale) where DuckDB's is a double, and TPC-DS
filters (Q39's cov > 1), ranks (Q44) and cuts at a LIMIT (Q22) on averages. So DuckDB's
copy of each query (never the one Slicehouse runs) has every `avg(x) [OVER (...)]`
wrapped: `CAST(trunc(avg(x)) AS BIGINT)` when x is an INTEGER column of the schema, else
`round(avg(x), 2)` (every DECIMAL of TPC-DS, and every cast in its queries, has scale 2),
rounding half away from zero as Redshift does.

The tpcds extension comes from the `duckdb-extension-tpcds` pip package (its version
must equal DuckDB's; scripts/setup-system.sh installs both), else from DuckDB's
extension repository (INSTALL tpcds, needs the network). Exit status 3 when the duckdb
package is missing, 4 when the tpcds extension cannot be loaded.

The bench reads this file from its resources (Sources/SlicehouseBench/Resources).
"""
import argparse, datetime, decimal, json, os, re, resource, sys, time


def log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_bytes():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def text(value):
    """A result value as text, the way Slicehouse prints it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
    return str(value)


def duckdb_schema(statement):
    """Redshift's CREATE TABLE without the distribution and sort attributes."""
    s = re.sub(r"\s+(DISTSTYLE\s+\w+|DISTKEY\s*\(\s*\w+\s*\)|(COMPOUND\s+|INTERLEAVED\s+)?SORTKEY\s*\([^)]*\))",
               "", statement.strip(), flags=re.IGNORECASE)
    return s.rstrip(";").strip()


def import_duckdb():
    try:
        import duckdb
        return duckdb
    except ImportError:
        log("DuckDB is not installed for " + sys.executable + ": pip install duckdb")
        sys.exit(3)


def load_tpcds(con, duckdb):
    """LOAD the tpcds extension: the pip package's file, else DuckDB's repository."""
    try:
        import duckdb_extension_tpcds
        path = os.path.join(os.path.dirname(duckdb_extension_tpcds.__file__), "extensions",
                            "v" + duckdb.__version__, "tpcds.duckdb_extension")
        if os.path.exists(path):
            con.execute("LOAD '" + path.replace("'", "''") + "'")
            return
        log(f"duckdb-extension-tpcds has no extension for DuckDB {duckdb.__version__} ({path}); "
            "trying DuckDB's extension repository")
    except ImportError:
        pass
    try:
        con.execute("INSTALL tpcds")
        con.execute("LOAD tpcds")
    except Exception as e:
        log(f"could not load DuckDB's tpcds extension: {e}. Install it with: "
            f"pip install duckdb-extension-tpcds=={duckdb.__version__}")
        sys.exit(4)


def generate(spec):
    duckdb = import_duckdb()
    data = spec["data"]
    os.makedirs(data, exist_ok=True)
    started = time.perf_counter()
    # A scratch database file (dsdgen's tables, then the schema's), removed at the end.
    scratch = os.path.join(data, ".dsdgen.duckdb")
    for p in (scratch, scratch + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    con = duckdb.connect(scratch)
    con.execute(f"SET threads = {int(spec.get('threads', os.cpu_count() or 1))}")
    load_tpcds(con, duckdb)
    sf = float(spec["scaleFactor"])
    log(f"duckdb: dsdgen(sf={sf})")
    con.execute(f"CALL dsdgen(sf={sf})")
    # The schema's tables, in a separate schema, filled by casting the generated ones.
    con.execute("CREATE SCHEMA rs")
    con.execute("SET schema = 'rs'")
    for statement in spec["schema"]:
        s = duckdb_schema(statement)
        if s:
            con.execute(s)
    tables = []
    for table in spec["tables"]:
        path = os.path.join(data, table + ".parquet")
        tmp = path + ".tmp"
        cols = [r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'rs' AND table_name = ? "
            "ORDER BY ordinal_position", [table]).fetchall()]
        if not cols:
            log(f"the schema has no table {table}")
            sys.exit(1)
        con.execute(f"INSERT INTO rs.{table} SELECT {', '.join(cols)} FROM main.{table}")
        con.execute(f"DROP TABLE main.{table}")
        con.execute(f"COPY rs.{table} TO '{tmp.replace(chr(39), chr(39) * 2)}' (FORMAT parquet, COMPRESSION snappy)")
        os.replace(tmp, path)
        rows = con.execute(f"SELECT count(*) FROM rs.{table}").fetchone()[0]
        con.execute(f"DROP TABLE rs.{table}")
        tables.append({"name": table, "rows": rows, "bytes": os.path.getsize(path)})
        log(f"duckdb: {table}: {rows} rows")
    con.close()
    for p in (scratch, scratch + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    return {"version": duckdb.__version__, "seconds": time.perf_counter() - started, "tables": tables}


def integer_columns(schema):
    """Names of the schema's INTEGER / BIGINT / SMALLINT columns."""
    names = set()
    for statement in schema:
        for m in re.finditer(r"^\s*(\w+)\s+(integer|bigint|smallint|int|int2|int4|int8)\b", statement,
                             flags=re.IGNORECASE | re.MULTILINE):
            names.add(m.group(1).lower())
    return names


def matching_paren(sql, start):
    """Index just past the parenthesis closing the one at sql[start]."""
    depth = 0
    i = start
    while i < len(sql):
        if sql[i] == "(":
            depth += 1
        elif sql[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif sql[i] == "'":
            i = sql.index("'", i + 1) if "'" in sql[i + 1:] else len(sql)
        i += 1
    return len(sql)


def redshift_averages(sql, ints):
    """Every avg(x) [OVER (...)] with Redshift's result type (see the docstring)."""
    out = []
    i = 0
    pattern = re.compile(r"\bavg\s*\(", re.IGNORECASE)
    while True:
        m = pattern.search(sql, i)
        if not m:
            out.append(sql[i:])
            return "".join(out)
        out.append(sql[i:m.start()])
        open_at = m.end() - 1
        end = matching_paren(sql, open_at)
        arg = sql[open_at + 1:end - 1]
        expr = "avg(" + redshift_averages(arg, ints) + ")"
        over = re.match(r"\s*over\s*\(", sql[end:], flags=re.IGNORECASE)
        if over:
            window_end = matching_paren(sql, end + over.end() - 1)
            expr += sql[end:window_end]
            end = window_end
        column = arg.strip().lower()
        column = column.split(".")[-1] if re.fullmatch(r"(\w+\.)?\w+", column) else None
        if column in ints:
            out.append(f"CAST(trunc({expr}) AS BIGINT)")
        else:
            out.append(f"round({expr}, 2)")
        i = end


def du(path):
    total = 0
    for p in (path, path + ".wal"):
        if os.path.exists(p):
            total += os.path.getsize(p)
    return total


def run(spec):
    duckdb = import_duckdb()
    data = spec["data"]
    database = spec["database"]
    for p in (database, database + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    con = duckdb.connect(database)
    threads = int(spec["threads"])
    con.execute(f"SET threads = {threads}")
    # Redshift's semantics (see the docstring).
    con.execute("SET integer_division = true")
    con.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")
    for statement in spec["schema"]:
        s = duckdb_schema(statement)
        if s:
            con.execute(s)

    load = {}
    started = time.perf_counter()
    for table in spec["tables"]:
        path = os.path.join(data, table + ".parquet").replace("'", "''")
        t = time.perf_counter()
        con.execute(f"COPY {table} FROM '{path}' (FORMAT parquet)")
        load[table] = time.perf_counter() - t
    t = time.perf_counter()
    con.execute("CHECKPOINT")
    load["checkpoint"] = time.perf_counter() - t
    load_total = time.perf_counter() - started
    load_peak = peak_rss_bytes()
    log(f"duckdb: loaded in {load_total * 1000:.0f} ms")

    can_reset = reset_peak()
    queries = []
    ints = integer_columns(spec["schema"])
    runs = int(spec["runs"])
    warmup = bool(spec.get("warmup", True))
    for q in spec["queries"]:
        number, sql = int(q["number"]), redshift_averages(q["sql"], ints)
        entry = {"number": number, "seconds": [], "rows": 0, "columns": [], "result": [], "error": None}
        reset_peak()
        try:
            total = runs + (1 if warmup else 0)
            for i in range(max(1, total)):
                t = time.perf_counter()
                cursor = con.execute(sql)
                rows = cursor.fetchall()
                elapsed = time.perf_counter() - t
                if not warmup or i > 0 or total <= 1:
                    entry["seconds"].append(elapsed)
            entry["rows"] = len(rows)
            entry["columns"] = [d[0] for d in cursor.description or []]
            entry["result"] = [[text(v) for v in row] for row in rows]
            log(f"duckdb: Q{number:02d} {min(entry['seconds']) * 1000:.1f} ms")
        except Exception as e:  # a failed query is reported, the others still run
            entry["error"] = str(e)
            log(f"duckdb: Q{number:02d} failed: {e}")
        entry["peakRSSBytes"] = peak_rss_bytes()
        queries.append(entry)
    con.close()
    return {
        "version": duckdb.__version__,
        "python": sys.version.split()[0],
        "threads": threads,
        "loadSeconds": load,
        "loadTotalSeconds": load_total,
        "loadPeakRSSBytes": load_peak,
        "sizeBytes": du(database),
        "peakRSSBytes": max([load_peak, peak_rss_bytes()] + [q["peakRSSBytes"] for q in queries]),
        "memoryKind": "per-query peak (VmHWM)" if can_reset else "process peak so far (getrusage)",
        "queries": queries,
    }


def main():
    ap = argparse.ArgumentParser(description="TPC-DS on DuckDB, JSON on stdout.")
    ap.add_argument("--spec", required=True, help="JSON spec written by `slicehouse bench tpcds`")
    args = ap.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)
    if spec.get("mode") == "generate":
        result = generate(spec)
    else:
        result = run(spec)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
