#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Load the TPC-H .tbl files into Slicehouse, DuckDB and DataFusion in one run, and
print the times side by side as ratios.

    python3 benchmarks/load_compare.py DATA_DIR [--slicehouse BIN] [--runs 3]
                                                [--engines slicehouse,duckdb,datafusion]

DATA_DIR holds <table>.tbl for the eight tables (`slicehouse bench tpch --sf 1` leaves
them in ~/.slicehouse/bench/tpch-sf1). Every run loads all eight tables into a fresh
database of each engine, the engines taking turns, so a slow stretch of a shared
machine hits them alike. Each load runs in a process of its own, which gives its peak
resident memory. What is timed:

- Slicehouse: the eight COPY statements (`slicehouse -D NEW_DIR -f SCRIPT` with
  `\\timing`; the sum of their times), into a database directory: parsed, distributed,
  sorted, encoded and written.
- DuckDB: the eight COPY statements into a new database file, 2 threads (as the
  reference figures were taken).
- DataFusion: CREATE TABLE ... AS SELECT from each file as a CSV external table, into
  memory (DataFusion has no storage of its own), 2 target partitions.

The schema is datasets/tpch/schema.sql (its DISTSTYLE / DISTKEY / SORTKEY attributes are
removed for the other two engines). Needs `pip install duckdb datafusion` for those.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "datasets", "tpch", "schema.sql")


def statements():
    """table name -> Redshift CREATE TABLE statement."""
    text = "\n".join(l for l in open(SCHEMA) if not l.lstrip().startswith("--"))
    out = {}
    for s in text.split(";"):
        m = re.match(r"\s*CREATE TABLE (\w+)", s, re.IGNORECASE)
        if m:
            out[m.group(1).lower()] = s.strip()
    return out


def plain(statement):
    """CREATE TABLE without Redshift's distribution and sort attributes."""
    return re.sub(r"\s+(DISTSTYLE\s+\w+|DISTKEY\s*\(\s*\w+\s*\)|(COMPOUND\s+|INTERLEAVED\s+)?SORTKEY\s*\([^)]*\))",
                  "", statement, flags=re.IGNORECASE).strip()


def columns(statement):
    body = plain(statement)
    body = body[body.index("(") + 1:body.rindex(")")]
    return [c.strip().split()[0] for c in re.split(r",(?![^()]*\))", body)]


def worker(engine, data, workdir):
    """Load the tables with one engine; print {"seconds": ...} on standard output."""
    ddl = statements()
    if engine == "duckdb":
        import duckdb
        con = duckdb.connect(os.path.join(workdir, "tpch.duckdb"))
        con.execute("SET threads = 2")
        for t in TABLES:
            con.execute(plain(ddl[t]))
        start = time.perf_counter()
        for t in TABLES:
            con.execute(f"COPY {t} FROM '{os.path.join(data, t + '.tbl')}' (DELIMITER '|', HEADER false)")
        seconds = time.perf_counter() - start
        con.close()
    elif engine == "datafusion":
        from datafusion import SessionConfig, SessionContext
        ctx = SessionContext(SessionConfig().with_target_partitions(2))
        for t in TABLES:
            # The .tbl files end every line with the delimiter: one more, empty column.
            create = plain(ddl[t])
            external = create.replace(f"CREATE TABLE {t} (", f"CREATE EXTERNAL TABLE {t}_tbl (", 1)
            external = external[:external.rindex(")")] + ", tbl_end VARCHAR)"
            ctx.sql(external + f" STORED AS CSV LOCATION '{os.path.join(data, t + '.tbl')}' "
                    "OPTIONS ('format.delimiter' '|', 'format.has_header' 'false')").collect()
        start = time.perf_counter()
        for t in TABLES:
            ctx.sql(f"CREATE TABLE {t} AS SELECT {', '.join(columns(ddl[t]))} FROM {t}_tbl").collect()
        seconds = time.perf_counter() - start
        rows = ctx.sql("SELECT count(*) FROM lineitem").to_pylist()[0]
        if list(rows.values())[0] <= 0:
            raise SystemExit("DataFusion loaded no lineitem rows")
    else:
        raise SystemExit(f"unknown engine {engine}")
    print(json.dumps({"seconds": seconds}))


def run_child(argv, env=None):
    """Run a process; return (stdout, stderr, exit status, peak RSS in bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        out.seek(0); err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        return out.read().decode(), err.read().decode(), code, usage.ru_maxrss * 1024


def load_once(engine, data, slicehouse):
    work = tempfile.mkdtemp(prefix=f"load-{engine}-")
    try:
        if engine == "slicehouse":
            script = os.path.join(work, "load.sql")
            with open(script, "w") as f:
                f.write(";\n".join(statements()[t] for t in TABLES) + ";\n\\timing\n")
                for t in TABLES:
                    f.write(f"COPY {t} FROM '{os.path.join(data, t + '.tbl')}' DELIMITER '|';\n")
            out, err, code, rss = run_child([slicehouse, "-D", os.path.join(work, "db"), "-f", script])
            if code != 0:
                raise RuntimeError(f"slicehouse failed ({code}): {err.strip()[-500:]}")
            times = [float(m) for m in re.findall(r"Time: ([0-9.]+) ms", out + err)]
            if len(times) != len(TABLES):
                raise RuntimeError(f"slicehouse printed {len(times)} COPY times, expected {len(TABLES)}")
            return sum(times) / 1000, rss
        out, err, code, rss = run_child([sys.executable, os.path.abspath(__file__), "--worker", engine,
                                         "--workdir", work, data])
        if code != 0:
            raise RuntimeError(f"{engine} failed ({code}): {err.strip()[-500:]}")
        return json.loads(out.strip().splitlines()[-1])["seconds"], rss
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    ap.add_argument("--slicehouse", default=os.path.join(HERE, "..", ".build", "release", "slicehouse"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--engines", default="slicehouse,duckdb,datafusion")
    ap.add_argument("--worker")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    data = os.path.abspath(args.data)
    if args.worker:
        worker(args.worker, data, args.workdir)
        return
    engines = args.engines.split(",")
    for e, module in (("duckdb", "duckdb"), ("datafusion", "datafusion")):
        if e in engines:
            try:
                __import__(module)
            except ImportError:
                raise SystemExit(f"{e} is not installed for {sys.executable}: pip install {module} "
                                 f"(or leave it out with --engines)")
    if "slicehouse" in engines and not os.access(args.slicehouse, os.X_OK):
        raise SystemExit(f"no Slicehouse binary at {args.slicehouse}: swift build -c release --product slicehouse, "
                         "or pass --slicehouse BIN")
    missing = [t for t in TABLES if not os.path.exists(os.path.join(data, t + ".tbl"))]
    if missing:
        raise SystemExit(f"{data} lacks {', '.join(t + '.tbl' for t in missing)}")
    results = {e: [] for e in engines}
    for r in range(args.runs):
        line = []
        for e in engines:
            seconds, rss = load_once(e, data, args.slicehouse)
            results[e].append((seconds, rss))
            line.append(f"{e} {seconds:.2f} s ({rss / 2**30:.2f} GiB)")
        print(f"run {r + 1}: " + ", ".join(line), flush=True)
    print()
    print("| engine | best | median | peak RSS | Slicehouse / engine, same run (median of runs) |")
    print("|---|---|---|---|---|")
    for e in engines:
        secs = [s for s, _ in results[e]]
        ratio = ""
        if "slicehouse" in results and e != "slicehouse":
            ratio = f"{statistics.median(s / o for (s, _), (o, _) in zip(results['slicehouse'], results[e])):.2f}"
        print(f"| {e} | {min(secs):.2f} s | {statistics.median(secs):.2f} s | "
              f"{max(m for _, m in results[e]) / 2**30:.2f} GiB | {ratio} |")


if __name__ == "__main__":
    main()
