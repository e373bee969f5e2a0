#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The key advisor on TPC-H with deliberately poor keys: every table DISTSTYLE EVEN and
no sort keys. Runs the 22 queries, asks `slicehouse advise` for keys (from the query log
those runs left), applies them, and runs the queries again.

    python3 benchmarks/advisor.py --bin .build/release/slicehouse --sf 1 [--runs 3]

The data comes from `slicehouse bench tpch --sf N`'s cache (~/.slicehouse/bench/tpch-sfN;
that command generates it). Each round runs the queries in one shell process: once to
warm up, then --runs times with `\\timing` (the result cache off); a round's figure is
the sum over the queries of each query's fastest run. Prints the advice and both
totals; benchmarks/README.md keeps the figures.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def even_schema():
    text = open(os.path.join(ROOT, "datasets/tpch/schema.sql")).read()
    statements = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("--"):
            continue
        line = re.sub(r"\s+DISTSTYLE\s+\w+", "", line, flags=re.I)
        line = re.sub(r"\s+DISTKEY\s*\([^)]*\)", "", line, flags=re.I)
        line = re.sub(r"\s+(COMPOUND\s+|INTERLEAVED\s+)?SORTKEY\s*\([^)]*\)", "", line, flags=re.I)
        statements.append(line.rstrip(";") + " DISTSTYLE EVEN;")
    return statements


def shell(binary, data, script, timeout=3600):
    done = subprocess.run([binary, "-D", data, "-f", "-"], input=script, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"slicehouse failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def run_queries(binary, data, runs):
    """Per query, the fastest of `runs` timed runs (ms), after a warm-up."""
    queries = [open(os.path.join(ROOT, f"datasets/tpch/queries/q{n:02d}.sql")).read().strip().rstrip(";")
               for n in range(1, 23)]
    script = "set enable_result_cache_for_session to off;\n"
    script += "".join(q + ";\n" for q in queries)  # warm-up (and the log the advisor reads)
    script += "\\timing on\n"
    for _ in range(runs):
        script += "".join(q + ";\n" for q in queries)
    out = shell(binary, data, script)
    times = [float(t) for t in re.findall(r"Time: ([0-9.]+) ms", out)]
    if len(times) != 22 * runs:
        sys.exit(f"expected {22 * runs} timings, got {len(times)}:\n{out[-3000:]}")
    return [min(times[q + 22 * r] for r in range(runs)) for q in range(22)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/slicehouse"))
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="keep the database in this directory")
    args = ap.parse_args()
    source = os.path.expanduser(f"~/.slicehouse/bench/tpch-sf{args.sf}")
    if not os.path.exists(os.path.join(source, "lineitem.tbl")):
        sys.exit(f"no data in {source}: run `slicehouse bench tpch --sf {args.sf}` once first")
    work = args.keep or tempfile.mkdtemp(prefix="advisor-")
    data = os.path.join(work, "db")
    if os.path.exists(data):
        shutil.rmtree(data)
    try:
        load = "\n".join(even_schema()) + "\n"
        for table in ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]:
            load += f"copy {table} from '{os.path.join(source, table + '.tbl')}' delimiter '|';\n"
        load += "analyze;\n"
        shell(args.bin, data, load)
        before = run_queries(args.bin, data, args.runs)
        advise = subprocess.run([args.bin, "advise", "-D", data, "--apply"], capture_output=True, text=True, timeout=3600)
        if advise.returncode != 0:
            sys.exit(f"slicehouse advise failed:\n{advise.stdout}\n{advise.stderr}")
        print(advise.stdout)
        after = run_queries(args.bin, data, args.runs)
        print("| query | EVEN, no sort keys (ms) | advised keys (ms) | speed-up |")
        print("|---|---:|---:|---:|")
        for n in range(22):
            print(f"| Q{n + 1:02d} | {before[n]:.1f} | {after[n]:.1f} | {before[n] / max(after[n], 0.001):.2f}x |")
        total_before, total_after = sum(before), sum(after)
        print(f"| total | {total_before:.1f} | {total_after:.1f} | {total_before / total_after:.2f}x |")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
