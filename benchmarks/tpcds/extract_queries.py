#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write benchmarks/tpcds/queries/qNN.sql (1...99) from DuckDB's tpcds extension
(`SELECT query_nr, query FROM tpcds_queries()`), rewriting only what Redshift does not
accept; the bench reads them from its resources:

    python3 benchmarks/tpcds/extract_queries.py

DuckDB's texts are already close to ANSI SQL (date arithmetic is folded into literals,
window aggregates with ORDER BY carry a ROWS frame, CONCAT has two arguments). The
rewrites, each a regular expression below, applied to every query:

  1. `INTERVAL n DAY` / `INTERVAL 'n' DAY` (DuckDB's unquoted interval) → `interval 'n days'`
     (Redshift's interval literal is one quoted string).
  2. `x::TYPE` (DuckDB/PostgreSQL cast operator, when present) stays: Redshift accepts it.
  3. A trailing `;` is dropped (the bench runs one statement per query).

Nothing is rewritten to dodge a Slicehouse bug: a query Slicehouse gets wrong or rejects
is reported by the bench, and listed with --allow-fail in scripts/test until fixed.
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "benchmarks", "tpcds", "queries")

REWRITES = [
    # 1. INTERVAL 30 DAY / INTERVAL '30' DAY → interval '30 days'
    (re.compile(r"\bINTERVAL\s+'?(\d+)'?\s+(DAY|MONTH|YEAR)S?\b", re.IGNORECASE),
     lambda m: f"interval '{m.group(1)} {m.group(2).lower()}s'"),
]


def rewrite(sql):
    for pattern, replacement in REWRITES:
        sql = pattern.sub(replacement, sql)
    sql = sql.strip()
    while sql.endswith(";"):
        sql = sql[:-1].rstrip()
    return sql + "\n"


def main():
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import duckdb
    from duckdb_tpcds import load_tpcds
    con = duckdb.connect()
    load_tpcds(con, duckdb)
    rows = con.execute("SELECT query_nr, query FROM tpcds_queries() ORDER BY query_nr").fetchall()
    if len(rows) != 99:
        sys.exit(f"expected 99 queries, got {len(rows)}")
    os.makedirs(OUT, exist_ok=True)
    for number, sql in rows:
        with open(os.path.join(OUT, f"q{number:02d}.sql"), "w", encoding="utf-8") as f:
            f.write(rewrite(sql))
    print(f"wrote {len(rows)} queries to {os.path.relpath(OUT, ROOT)} (DuckDB {duckdb.__version__})")


if __name__ == "__main__":
    main()
