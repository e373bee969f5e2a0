#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""VACUUM after a big DELETE, against rebuilding the table with CREATE TABLE AS.

Loads TPC-H lineitem (DISTKEY l_orderkey, SORTKEY l_shipdate) into two Slicehouse data
directories, appends a second, unsorted load of a tenth of the rows (so the sort phase
has a region to merge), deletes half of the rows in both, then:

  A: VACUUM lineitem                      (reclaim the deleted half, merge the unsorted rows)
  B: CREATE TABLE survivors ... AS SELECT * FROM lineitem   (the same rows, rewritten)

and reports each one's time, the bytes of the data directory before and after, and the
table's blocks and rows from SVV_TABLE_INFO.

    python3 benchmarks/vacuum.py [--sf 1] [--bin .build/release/slicehouse] [--work /tmp/slicehouse-vacuum]

Each step is a fresh `slicehouse -D DIR -c ...` process, timed from outside.
"""
import argparse, os, shutil, subprocess, sys, time

from storage_size import du  # bytes of every file under a directory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DDL = ("CREATE TABLE lineitem (l_orderkey INTEGER NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, "
       "l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, "
       "l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, "
       "l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL, "
       "l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL) "
       "DISTKEY(l_orderkey) SORTKEY(l_shipdate)")


def sh(binary, db, sql):
    t = time.perf_counter()
    p = subprocess.run([binary, "-D", db, "-A", "-t", "-c", sql], capture_output=True, text=True)
    secs = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{sql[:80]} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return secs, p.stdout.strip()


def info(binary, db, table):
    _, out = sh(binary, db, f"select size, tbl_rows, estimated_visible_rows, unsorted from svv_table_info where \"table\" = '{table}'")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/slicehouse"))
    ap.add_argument("--work", default="/tmp/slicehouse-vacuum")
    args = ap.parse_args()
    data = os.path.join(args.work, f"data-sf{args.sf}")
    tbl = os.path.join(data, "lineitem.tbl")
    if not os.path.exists(tbl):
        os.makedirs(data, exist_ok=True)
        subprocess.run([args.bin, "datagen", "tpch", "--sf", args.sf, "--tables", "lineitem", "--output", data], check=True,
                       capture_output=True)
    results = {}
    for name in ["vacuum", "ctas"]:
        db = os.path.join(args.work, name)
        shutil.rmtree(db, ignore_errors=True)
        sh(args.bin, db, DDL)
        sh(args.bin, db, f"COPY lineitem FROM '{tbl}' DELIMITER '|'")
        # A second load, unsorted: a tenth of the rows again, with new order keys.
        sh(args.bin, db, "INSERT INTO lineitem SELECT l_orderkey + 600000000, l_partkey, l_suppkey, l_linenumber, l_quantity, "
                         "l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, "
                         "l_receiptdate, l_shipinstruct, l_shipmode, l_comment FROM lineitem WHERE l_orderkey % 10 = 3")
        delete_secs, _ = sh(args.bin, db, "DELETE FROM lineitem WHERE l_orderkey % 2 = 0")
        before = du(db)
        table_before = info(args.bin, db, "lineitem")
        if name == "vacuum":
            secs, _ = sh(args.bin, db, "VACUUM lineitem")
            table_after = info(args.bin, db, "lineitem")
        else:
            secs, _ = sh(args.bin, db, "CREATE TABLE survivors DISTKEY(l_orderkey) SORTKEY(l_shipdate) AS SELECT * FROM lineitem")
            sh(args.bin, db, "DROP TABLE lineitem")
            table_after = info(args.bin, db, "survivors")
        results[name] = (delete_secs, secs, before, du(db), table_before, table_after)
    print(f"TPC-H SF {args.sf} lineitem plus an unsorted tenth; half the rows deleted (`DELETE ... WHERE l_orderkey % 2 = 0`).")
    print("(size = 1 MB blocks, tbl_rows, estimated_visible_rows, unsorted %)")
    print(f"{'':28}{'time':>9}{'dir before':>14}{'dir after':>14}   table before -> after")
    for name, label in [("vacuum", "VACUUM lineitem"), ("ctas", "CTAS survivors + DROP")]:
        d, secs, before, after, tb, ta = results[name]
        print(f"{label:28}{secs:8.2f}s{before / 1e6:11.1f} MB{after / 1e6:11.1f} MB   {tb} -> {ta}")
    print(f"(the DELETE itself took {results['vacuum'][0]:.2f} s)")


if __name__ == "__main__":
    main()
