#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Small writes side by side with DuckDB: many single-row INSERTs, multi-row INSERTs and
small COPYs, each statement committing on its own, into a database on disk.

    python3 benchmarks/small_writes.py [--slicehouse BIN] [--runs 3] [--rows 2000]

Workloads (the same statements for both engines, into a new database each run):
- single: ROWS single-row `INSERT INTO t VALUES (...)` autocommits;
- multi: ROWS/10 INSERTs of 100 rows each;
- copy: ROWS/50 COPYs of a 1,000-row CSV file each.
The table has six columns (int, bigint, varchar, date, decimal, varchar). Slicehouse runs
`slicehouse -D NEW_DIR -f SCRIPT` (one process, the time of the whole script, startup
included); DuckDB runs the statements one by one through its Python API into a new
database file (autocommit; a checkpoint only when DuckDB decides). Size on disk is
measured after the process (or connection) ends: every file of Slicehouse's directory;
DuckDB's file plus its WAL. Engines take turns within each run. Needs `pip install duckdb`.
"""
import argparse, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
CREATE = ("CREATE TABLE t (id INT, k BIGINT, name VARCHAR(40), d DATE, price DECIMAL(12,2), note VARCHAR(100))")


def row(i):
    return (f"({i}, {i * 7919 % 100003}, 'customer#{i:09d}', DATE '2024-01-01' + {i % 365}, "
            f"{i % 10000}.{i % 100:02d}, 'note {i % 13} of a small write benchmark row')")


def csv_row(i):
    return f"{i},{i * 7919 % 100003},customer#{i:09d},2024-{1 + i % 12:02d}-{1 + i % 28:02d},{i % 10000}.{i % 100:02d},note {i % 13}\n"


def workloads(rows, work):
    """name -> (statements, files written for COPY)."""
    out = {"single": [f"INSERT INTO t VALUES {row(i)}" for i in range(rows)]}
    out["multi"] = [f"INSERT INTO t VALUES " + ", ".join(row(b * 100 + i) for i in range(100)) for b in range(rows // 10)]
    copies = []
    for b in range(rows // 50):
        path = os.path.join(work, f"part{b}.csv")
        with open(path, "w") as f:
            f.write("".join(csv_row(b * 1000 + i) for i in range(1000)))
        copies.append(path)
    out["copy"] = copies
    return out


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def run_slicehouse(binary, name, stmts, work):
    db = tempfile.mkdtemp(dir=work)
    shutil.rmtree(db)
    script = os.path.join(work, f"{name}.sql")
    # The CREATE TABLE runs first in its own process so that only the writes are timed.
    subprocess.run([binary, "-D", db, "-c", CREATE], check=True, capture_output=True)
    with open(script, "w") as f:
        for s in stmts:
            f.write((f"COPY t FROM '{s}' CSV" if name == "copy" else s) + ";\n")
    t0 = time.perf_counter()
    r = subprocess.run([binary, "-D", db, "-q", "-f", script], capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0 or "ERROR" in r.stderr:
        sys.exit(f"slicehouse failed: {r.stderr[-500:]}")
    rows = subprocess.run([binary, "-D", db, "-A", "-t", "-c", "select count(*) from t"], capture_output=True, text=True).stdout.strip()
    size = dir_size(db)
    shutil.rmtree(db)
    return elapsed, size, int(rows)


def run_duckdb(name, stmts, work):
    import duckdb
    path = os.path.join(work, f"{name}.duckdb")
    for p in (path, path + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    con = duckdb.connect(path, config={"threads": 2})
    con.execute(CREATE)
    t0 = time.perf_counter()
    for s in stmts:
        con.execute(f"COPY t FROM '{s}' (FORMAT CSV)" if name == "copy" else s)
    elapsed = time.perf_counter() - t0
    rows = con.execute("select count(*) from t").fetchone()[0]
    con.close()
    size = sum(os.path.getsize(p) for p in (path, path + ".wal") if os.path.exists(p))
    os.remove(path)
    return elapsed, size, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--slicehouse", default=os.path.join(HERE, "..", ".build", "release", "slicehouse"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=2000)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="small-writes-")
    try:
        loads = workloads(a.rows, work)
        print(f"| workload | statements | rows | Slicehouse | DuckDB | ÷ DuckDB | Slicehouse size | DuckDB size |")
        print(f"|---|---|---|---|---|---|---|---|")
        for name, stmts in loads.items():
            s_times, d_times = [], []
            for _ in range(a.runs):
                st, ssize, srows = run_slicehouse(a.slicehouse, name, stmts, work)
                dt, dsize, drows = run_duckdb(name, stmts, work)
                if srows != drows:
                    sys.exit(f"{name}: Slicehouse has {srows} rows, DuckDB {drows}")
                s_times.append(st)
                d_times.append(dt)
            s, d = min(s_times), min(d_times)
            print(f"| {name} | {len(stmts)} | {srows} | {s:.2f} s | {d:.2f} s | {s / d:.2f} | {ssize / 1e6:.2f} MB | {dsize / 1e6:.2f} MB |",
                  flush=True)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
