#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Load TPC-H .tbl files into a Slicehouse data directory and into DuckDB, in one run,
and report load time, peak memory and size on disk side by side (plus the same data
as Parquet + ZSTD written by DuckDB), then the Slicehouse size per table and per
encoding. Then, one new Slicehouse process per query, the 22 TPC-H queries are answered
from the directory and compared with DuckDB's answers (with DuckDB installed).

    python3 benchmarks/storage_size.py DIR [--bin .build/release/slicehouse] [--work /tmp/shbench]

DIR holds the eight .tbl files (`slicehouse datagen tpch --sf 1 --output DIR`).
DuckDB (`pip install duckdb`) runs with as many threads as Slicehouse has cores.
"""
import argparse, os, resource, shutil, subprocess, sys, time

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(d, f))
    return total


def run_timed(cmd):
    """Run a command; return (seconds, peak RSS in bytes of that child, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return secs, max(peak, before) * 1024, p.stdout


def mb(n):
    return f"{n / 1e6:8.1f} MB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/slicehouse"))
    ap.add_argument("--work", default="/tmp/slicehouse-storage-bench")
    args = ap.parse_args()
    data = os.path.abspath(args.data)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    schema = open(os.path.join(ROOT, "datasets/tpch/schema.sql")).read()

    # Slicehouse: one process loads, exits; the directory is what stays.
    sh_dir = os.path.join(args.work, "slicehouse")
    script = os.path.join(args.work, "load.sql")
    with open(script, "w") as f:
        f.write(schema + "\n")
        for t in TABLES:
            f.write(f"COPY {t} FROM '{data}/{t}.tbl';\n")
    sh_secs, sh_peak, _ = run_timed([args.bin, "-D", sh_dir, "-v", "ON_ERROR_STOP=1", "-f", script])
    sh_size = du(sh_dir)

    # DuckDB: same schema (without Redshift's attributes), same files, same threads.
    duck_size = duck_secs = parquet_size = None
    try:
        import duckdb
        duck_file = os.path.join(args.work, "tpch.duckdb")
        con = duckdb.connect(duck_file)
        con.execute(f"SET threads = {os.cpu_count()}")
        import re
        body = "\n".join(l for l in schema.splitlines() if not l.lstrip().startswith("--"))
        for stmt in body.split(";"):
            s = re.sub(r"\s+(DISTSTYLE ALL|DISTKEY\(\w+\)|SORTKEY\(\w+\))", "", stmt.strip())
            if s.upper().startswith("CREATE"):
                con.execute(s)
        t = time.perf_counter()
        for tb in TABLES:
            con.execute(f"COPY {tb} FROM '{data}/{tb}.tbl' (DELIMITER '|')")
        con.execute("CHECKPOINT")
        duck_secs = time.perf_counter() - t
        pq = os.path.join(args.work, "parquet")
        os.makedirs(pq)
        for tb in TABLES:
            con.execute(f"COPY {tb} TO '{pq}/{tb}.parquet' (FORMAT PARQUET, COMPRESSION ZSTD)")
        con.close()
        duck_size = os.path.getsize(duck_file) + (os.path.getsize(duck_file + ".wal") if os.path.exists(duck_file + ".wal") else 0)
        parquet_size = du(pq)
    except ImportError:
        print("DuckDB is not installed (pip install duckdb): Slicehouse figures only.\n")

    print(f"{'':28}{'load':>10}{'peak RSS':>12}{'on disk':>12}")
    print(f"{'Slicehouse':28}{sh_secs:9.2f}s{mb(sh_peak):>12}{mb(sh_size):>12}")
    if duck_size is not None:
        print(f"{'DuckDB ' + duckdb.__version__:28}{duck_secs:9.2f}s{'':>12}{mb(duck_size):>12}")
        print(f"{'Parquet + ZSTD (DuckDB)':28}{'':>10}{'':>12}{mb(parquet_size):>12}")
        print(f"\nratios: load {sh_secs / duck_secs:.2f}x DuckDB; size {sh_size / duck_size:.2f}x DuckDB, "
              f"{sh_size / parquet_size:.2f}x Parquet+ZSTD")

    # A new process answers from the directory: sizes per table and per encoding.
    q = ("select \"table\", tbl_rows, size, size_bytes from svv_table_info order by size_bytes desc;"
         "select encoding, count(*) as blocks, sum(size_bytes) as bytes, sum(num_values) as values "
         "from stv_blocklist group by encoding order by bytes desc;")
    _, _, out = run_timed([args.bin, "-D", sh_dir, "-c", q])
    print("\nSlicehouse per table and per encoding (a second process reading the directory):\n" + out)

    if duck_size is not None:
        check_queries(args.bin, sh_dir, duck_file)


def norm(v):
    if v is None or v == "":
        return None
    if hasattr(v, "isoformat"):
        v = v.isoformat()
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v).rstrip()


def same_rows(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if len(x) != len(y):
            return False
        for u, v in zip(x, y):
            if isinstance(u, float) and isinstance(v, float):
                if abs(u - v) > 0.01 + 1e-9 * abs(v):
                    return False
            elif u != v:
                return False
    return True


def check_queries(binary, sh_dir, duck_file):
    """Each query in a new process (the data comes from the directory), answers compared with DuckDB."""
    import csv, io, duckdb
    con = duckdb.connect(duck_file, read_only=True)
    qdir = os.path.join(ROOT, "datasets/tpch/queries")
    matched = 0
    print("TPC-H queries answered by new processes from the data directory (cold: open + decode):")
    for i in range(1, 23):
        q = open(os.path.join(qdir, f"q{i:02d}.sql")).read()
        secs, _, out = run_timed([binary, "-D", sh_dir, "--csv", "-c", q])
        mine = [[norm(x) for x in r] for r in list(csv.reader(io.StringIO(out)))[1:]]
        result = None
        for stmt in [x for x in q.split(";") if x.strip()]:
            cur = con.execute(stmt)
            try:
                result = cur.fetchall()
            except duckdb.Error:
                pass
        theirs = [[norm(x) for x in r] for r in (result or [])]
        ok = same_rows(mine, theirs)
        matched += ok
        print(f"  Q{i:02d} {len(mine):6d} rows  {'match' if ok else 'DIFFERENT'}  {secs:6.2f} s")
    print(f"{matched}/22 answers match DuckDB")


if __name__ == "__main__":
    main()
