#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""TPC-H on DuckDB: load the .tbl files with COPY, run the queries (one warm-up, then N
timed runs), print one JSON document on standard output. Progress goes to standard error.

`slicehouse bench tpch --compare duckdb` runs this script (an embedded copy of it, so
the binary works without the checkout) with a spec file:

    python3 duckdb_tpch.py --spec SPEC.json

SPEC holds: data (directory of <table>.tbl), database (DuckDB file to create), threads,
runs, warmup (bool), tables (load order), schema (Redshift CREATE TABLE statements; the
DISTSTYLE/DISTKEY/SORTKEY attributes are removed for DuckDB), queries
([{"number": 1, "sql": "..."}]) and, for `bench tpch --external`, external ({endpoint,
useSSL, region, views}): instead of loading, httpfs is loaded (the duckdb-extension-httpfs
package's file, else INSTALL), an S3 secret made from the environment's keys and each
table created as a view over the Parquet objects. By hand, from a checkout:

    python3 benchmarks/duckdb_tpch.py DATA_DIR [--runs 3] [--queries 1,3,5] [--threads N]

Each query is timed with time.perf_counter() around execute() + fetchall(). Peak memory
per query is the process's peak resident set while the query ran (VmHWM, reset through
/proc/self/clear_refs before the query) where Linux allows it, else the process's peak
so far (getrusage). Exit status 3 when the duckdb package is missing.

The bench reads this file from its resources (Sources/SlicehouseBench/Resources).
"""
import argparse, datetime, decimal, json, os, re, resource, sys, time

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]


def log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def reset_peak():
    """True when the peak RSS could be reset (Linux /proc/self/clear_refs, value 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_bytes():
    """Peak RSS: VmHWM on Linux (since the last reset_peak(); getrusage's maxrss is not
    used there because it survives exec and can report the parent's peak), else getrusage."""
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
    """A result value as text, the way the reference answers and Slicehouse print it."""
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


def load_httpfs(con):
    """DuckDB's httpfs: the duckdb-extension-httpfs package's file when installed (no
    network needed), else INSTALL from DuckDB's repository."""
    import duckdb
    try:
        import duckdb_extension_httpfs
        path = os.path.join(os.path.dirname(duckdb_extension_httpfs.__file__), "extensions",
                            "v" + duckdb.__version__, "httpfs.duckdb_extension")
        if os.path.exists(path):
            con.execute("LOAD '" + path.replace("'", "''") + "'")
            return
    except ImportError:
        pass
    con.execute("INSTALL httpfs")
    con.execute("LOAD httpfs")


def du(path):
    total = 0
    for p in (path, path + ".wal"):
        if os.path.exists(p):
            total += os.path.getsize(p)
    return total


def run(spec):
    try:
        import duckdb
    except ImportError:
        log("DuckDB is not installed for " + sys.executable + ": pip install duckdb")
        sys.exit(3)
    data = spec["data"]
    database = spec["database"]
    for p in (database, database + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    con = duckdb.connect(database)
    threads = int(spec["threads"])
    con.execute(f"SET threads = {threads}")
    for statement in spec["schema"]:
        s = duckdb_schema(statement)
        if s:
            con.execute(s)

    load = {}
    started = time.perf_counter()
    external = spec.get("external")
    if external:
        load_httpfs(con)
        key, secret = os.environ.get("AWS_ACCESS_KEY_ID", ""), os.environ.get("AWS_SECRET_ACCESS_KEY", "")
        con.execute("CREATE SECRET (TYPE s3, KEY_ID ?, SECRET ?, ENDPOINT ?, URL_STYLE 'path', USE_SSL ?, REGION ?)",
                    [key, secret, external["endpoint"], bool(external["useSSL"]), external["region"]])
    for table in spec.get("tables", TABLES):
        if external:
            t = time.perf_counter()
            con.execute(f"DROP TABLE IF EXISTS {table}")
            con.execute(external["views"][table])
            load[table] = time.perf_counter() - t
            continue
        path = os.path.join(data, table + ".tbl").replace("'", "''")
        t = time.perf_counter()
        con.execute(f"COPY {table} FROM '{path}' (DELIMITER '|')")
        load[table] = time.perf_counter() - t
        log(f"duckdb: COPY {table} {load[table] * 1000:.1f} ms")
    t = time.perf_counter()
    con.execute("CHECKPOINT")
    load["checkpoint"] = time.perf_counter() - t
    load_total = time.perf_counter() - started
    load_peak = peak_rss_bytes()

    can_reset = reset_peak()
    queries = []
    runs = int(spec["runs"])
    warmup = bool(spec.get("warmup", True))
    for q in spec["queries"]:
        number, sql = int(q["number"]), q["sql"]
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
    ap = argparse.ArgumentParser(description="TPC-H on DuckDB, JSON on stdout.")
    ap.add_argument("data", nargs="?", help="directory of the eight .tbl files")
    ap.add_argument("--spec", help="JSON spec written by `slicehouse bench tpch`")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", default=",".join(str(i) for i in range(1, 23)))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--db", default=None, help="DuckDB file (default: DATA_DIR/tpch.duckdb)")
    args = ap.parse_args()
    if args.spec:
        with open(args.spec) as f:
            spec = json.load(f)
    else:
        if not args.data:
            ap.error("give DATA_DIR or --spec")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        tpch = os.path.join(root, "datasets", "tpch")
        with open(os.path.join(tpch, "schema.sql")) as f:
            schema = [s for s in f.read().split(";") if "CREATE" in s.upper()]
        queries = []
        for n in [int(x) for x in args.queries.split(",") if x.strip()]:
            with open(os.path.join(tpch, "queries", f"q{n:02d}.sql")) as f:
                queries.append({"number": n, "sql": f.read()})
        data = os.path.abspath(args.data)
        spec = {"data": data, "database": args.db or os.path.join(data, "tpch.duckdb"),
                "threads": args.threads, "runs": args.runs, "warmup": True,
                "tables": TABLES, "schema": schema, "queries": queries}
    json.dump(run(spec), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
