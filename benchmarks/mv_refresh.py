#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""REFRESH MATERIALIZED VIEW on TPC-H: incremental against RECOMPUTE after appends,
deletes and updates of lineitem.

    python3 benchmarks/mv_refresh.py --bin .build/release/slicehouse --sf 1 [--runs 3]

Loads TPC-H's lineitem, orders and customer (the data of `slicehouse bench tpch --sf N`,
~/.slicehouse/bench/tpch-sfN, with datasets/tpch/schema.sql's keys) and creates two
views over lineitem ⋈ orders ⋈ customer, each twice (one refreshed incrementally, its
twin with RECOMPUTE):
- `by_segment`: revenue per market segment and order priority (25 groups), with COUNT(*)
  and a COUNT beside each SUM, so a group that lost rows is updated from them;
- `by_segment_minmax`: the same groups with the MIN and MAX ship date as well, so a group
  whose extreme was deleted is recomputed.
Each round changes lineitem (appends 0.1% of its rows again; deletes the lines of 0.1%
of the orders; updates the discount of 0.1% of the lines), then times REFRESH of each
view and of its twin with RECOMPUTE, and checks that the two hold the same rows. Prints
the times (ms) per round; benchmarks/README.md keeps the figures.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

VIEWS = {
    "by_segment": """select c_mktsegment, o_orderpriority, count(*) as n, count(l_extendedprice) as np,
  sum(l_extendedprice) as gross, count(l_discount) as nd, sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem join orders on l_orderkey = o_orderkey join customer on o_custkey = c_custkey
group by c_mktsegment, o_orderpriority""",
    "by_segment_minmax": """select c_mktsegment, o_orderpriority, count(*) as n, min(l_shipdate) as first_ship,
  max(l_shipdate) as last_ship, sum(l_quantity) as qty, count(l_quantity) as nq
from lineitem join orders on l_orderkey = o_orderkey join customer on o_custkey = c_custkey
group by c_mktsegment, o_orderpriority""",
}

CHANGES = {
    "append": "insert into lineitem select * from lineitem where l_orderkey % 1000 = {r};",
    "delete": "delete from lineitem where l_orderkey % 1000 = {r} + 500;",
    "update": "update lineitem set l_discount = l_discount + 0.01 where l_orderkey % 1000 = {r} + 250;",
}


def shell(binary, data, script, timeout=3600):
    done = subprocess.run([binary, "-D", data, "-f", "-"], input=script, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0 or "ERROR" in done.stdout + done.stderr:
        sys.exit(f"slicehouse failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/slicehouse"))
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=3, help="rounds of each change")
    args = ap.parse_args()
    source = os.path.expanduser(f"~/.slicehouse/bench/tpch-sf{args.sf}")
    if not os.path.exists(os.path.join(source, "lineitem.tbl")):
        sys.exit(f"no data in {source}: run `slicehouse bench tpch --sf {args.sf}` once first")
    work = tempfile.mkdtemp(prefix="mv-refresh-")
    data = os.path.join(work, "db")
    try:
        schema = open(os.path.join(ROOT, "datasets/tpch/schema.sql")).read()
        load = "\n".join(s.strip() + ";" for s in schema.split(";")
                         if re.search(r"create table (lineitem|orders|customer)\b", s, re.I)) + "\n"
        for table in ["customer", "orders", "lineitem"]:
            load += f"copy {table} from '{os.path.join(source, table + '.tbl')}' delimiter '|';\n"
        for name, query in VIEWS.items():
            load += f"create materialized view {name} auto refresh no as {query};\n"
            load += f"create materialized view {name}_full auto refresh no as {query};\n"
        shell(args.bin, data, load)
        print(f"TPC-H SF {args.sf}: REFRESH (ms), incremental / RECOMPUTE")
        print(f"{'change':<8} {'round':>5} " + " ".join(f"{v:>28}" for v in VIEWS))
        totals = {}
        for change, statement in CHANGES.items():
            for r in range(args.runs):
                script = "set enable_result_cache_for_session to off;\n" + statement.format(r=r) + "\n\\timing on\n"
                for name in VIEWS:
                    script += f"refresh materialized view {name};\nrefresh materialized view {name}_full recompute;\n"
                script += "\\timing off\n"
                for name in VIEWS:
                    script += (f"select 'diff', (select count(*) from (select * from {name} except select * from {name}_full) a)"
                               f" + (select count(*) from (select * from {name}_full except select * from {name}) b);\n")
                    script += (f"select 'status', trim(status) from svl_mv_refresh_status where mv_name = '{name}'"
                               " order by starttime desc limit 1;\n")
                out = shell(args.bin, data, script)
                times = [float(t) for t in re.findall(r"Time: ([0-9.]+) ms", out)]
                diffs = re.findall(r"diff\s+\|\s+(\d+)", out)
                statuses = re.findall(r"status\s+\|\s+(.*)", out)
                if len(times) != 2 * len(VIEWS) or diffs != ["0"] * len(VIEWS):
                    sys.exit(f"unexpected output:\n{out[-3000:]}")
                if any("incrementally" not in s for s in statuses):
                    sys.exit(f"not incremental: {statuses}")
                cells = []
                for i, name in enumerate(VIEWS):
                    inc, full = times[2 * i], times[2 * i + 1]
                    totals.setdefault(name, [0.0, 0.0])
                    totals[name][0] += inc
                    totals[name][1] += full
                    cells.append(f"{inc:9.1f} / {full:9.1f} ({full / inc:4.1f}x)")
                print(f"{change:<8} {r:>5} " + " ".join(f"{c:>28}" for c in cells))
        print("total          " + " ".join(
            f"{t[0]:9.1f} / {t[1]:9.1f} ({t[1] / t[0]:4.1f}x)".rjust(28) for t in totals.values()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
