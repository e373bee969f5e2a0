#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plan tests for TPC-DS queries whose plan shapes regress easily.

Usage: tpcds_plans.py SLICEHOUSE_BIN DATABASE_DIR

DATABASE_DIR holds TPC-DS loaded and analyzed by `slicehouse bench tpcds --db DIR`
(scripts/test loads SF 0.01). Each check runs EXPLAIN on one of the 99 queries in
benchmarks/tpcds/queries and asserts the part of the plan that made the query fast:
common subplans computed once, ROLLUP merged from one pre-aggregate, the fact table
meeting its most selective dimension first, runtime filters on the scans they help. Exits 1 and names every failed check.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def explain(binary, db, number):
    with open(os.path.join(ROOT, "benchmarks", "tpcds", "queries", "q%02d.sql" % number)) as f:
        sql = f.read()
    out = subprocess.run([binary, "-D", db, "-A", "-t", "-c", "explain " + sql],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("q%02d: EXPLAIN failed: %s" % (number, out.stderr.strip()))
    return out.stdout


def scans(plan, table):
    return len(re.findall(r"XN Seq Scan on %s\b" % table, plan))


def first_join_of(plan, fact):
    """The Hash Cond of the join right above the scan of `fact` (its first join)."""
    lines = plan.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"XN Seq Scan on %s\b" % fact, line):
            for j in range(i - 1, -1, -1):
                if "Hash Cond" in lines[j]:
                    return lines[j].strip()
    return None


CHECKS = [
    # cross_items (three channels intersected) feeds three IN subqueries; avg_sales three
    # scalar comparisons: each is computed once.
    (14, "cross_items and avg_sales computed once",
     lambda p: "read by 3 parents" in p and p.count("Shared Subplan") >= 4),
    # ws_wh, a self-join of web_sales, is read by two IN subqueries.
    (95, "ws_wh computed once", lambda p: "Shared Subplan 1: computed once, read by 2 parents" in p
     and scans(p, "web_sales") == 3),
    # ROLLUP over inventory: one pre-aggregate by all keys, the grand total reads it too.
    (22, "ROLLUP merged from one pre-aggregate",
     lambda p: scans(p, "inventory") == 1 and "Shared Subplan 1: computed once, read by 2 parents" in p),
    (67, "ROLLUP merged from one pre-aggregate",
     lambda p: scans(p, "store_sales") == 1 and "Shared Subplan 1" in p),
    # v1 (a window over monthly sales) is joined to itself twice; lag and lead share one copy.
    (47, "v1 computed once for lag and lead", lambda p: "Shared Subplan 1" in p and scans(p, "store_sales") <= 2),
    # ORDER BY sum_sales - avg_monthly_sales (not selected) LIMIT 100: the slices sort
    # only their best 100 rows, not all 50,000 for the leader to merge (0.17 -> 0.15 s).
    (47, "Top-N under the hidden ORDER BY key", lambda p: "XN Top-N Sort" in p and "XN Sort " not in p),
    (57, "Top-N under the hidden ORDER BY key", lambda p: "XN Top-N Sort" in p and "XN Sort " not in p),
    # wswscs, weekly sales of two channels, is read for two years: each read aggregates
    # only its year's weeks (the key pushdown under the inner join its filtered value
    # makes), which at SF 1 beats computing all weeks once (0.39 s -> 0.24 s).
    (2, "wswscs restricted to each year's weeks", lambda p: p.count("Hash IN Join") >= 2
     and scans(p, "web_sales") == 2),
    # `d_month_seq = (SELECT ...)` keeps one month: store_sales meets date_dim first.
    (6, "store_sales joined to the month first",
     lambda p: (first_join_of(p, "store_sales") or "").endswith('("outer".ss_sold_date_sk = "inner".d_date_sk)')),
    # One manufacturer's items (a few rows) and one month of every year (a twelfth of the
    # dates): store_sales meets the items first, on its DISTKEY, and the dates after — at
    # SF 0.01 as at SF 1 since the join order is chosen by dynamic programming.
    (3, "store_sales joined to the items first",
     lambda p: "ss_item_sk" in (first_join_of(p, "store_sales") or "")),
    # INTERSECT drops each slice's duplicates before the rows move.
    # (Four partial aggregates are the query's own; the four inputs of its two INTERSECTs add four.)
    (38, "INTERSECT inputs deduplicated per slice", lambda p: p.count("Phase: partial") >= 8),
    # Inventory (sorted by date) gets the date and item keys of its joins as runtime
    # filters: the 60 days skip most of its blocks.
    (21, "inventory filtered by the date and item build keys",
     lambda p: re.search(r"Runtime Filter: .*inv_date_sk", p) is not None
     and re.search(r"Runtime Filter: .*inv_item_sk", p) is not None),
    (82, "inventory filtered by the date build keys", lambda p: re.search(r"Runtime Filter: .*inv_date_sk", p) is not None),
    # A bushy join order: the catalog sales of one year, household and marital status
    # meet the dates of their weeks first, and inventory on item and date after, instead
    # of inventory multiplied by the seven days of each week (the left-deep order; at
    # SF 0.01 the left-deep order also finds this plan, PlanTests.testBushyOrder... pins
    # the case where only the bushy order does).
    (72, "inventory meets the filtered sales on item and date",
     lambda p: "inv_item_sk" in (first_join_of(p, "inventory") or "")
     and "inv_date_sk" in (first_join_of(p, "inventory") or "")),
    # The scalar subquery's left join is inner (its value is compared in the WHERE), and
    # the per-item aggregate is restricted to the filtered items' keys.
    (92, "scalar subquery as an inner join", lambda p: "Left Join" not in p and "Hash IN Join" in p),
]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, db = sys.argv[1], sys.argv[2]
    failed = 0
    for number, what, check in CHECKS:
        plan = explain(binary, db, number)
        if check(plan):
            print("ok   q%02d %s" % (number, what))
        else:
            failed += 1
            print("FAIL q%02d %s\n%s" % (number, what, plan))
    print("%d of %d TPC-DS plan checks passed" % (len(CHECKS) - failed, len(CHECKS)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
