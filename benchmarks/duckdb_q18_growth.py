#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DuckDB's own SF 1 -> SF 10 growth on TPC-H Q18 and its subquery (issue 19's scaling).

    python3 benchmarks/duckdb_q18_growth.py ~/.slicehouse/bench/tpch-sf1 ~/.slicehouse/bench/tpch-sf10

Loads lineitem, orders and customer from each directory's .tbl files (the ones
`slicehouse bench tpch` generates) into a DuckDB file beside them (kept for the next
run), then times each query 7 times per scale factor with 2 threads and prints the
medians and their growth.
"""
import os
import statistics
import sys
import time

import duckdb

SCHEMA = {
    "lineitem": "l_orderkey INTEGER, l_partkey INTEGER, l_suppkey INTEGER, l_linenumber INTEGER, "
                "l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), "
                "l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, "
                "l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR",
    "orders": "o_orderkey INTEGER, o_custkey INTEGER, o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2), "
              "o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INTEGER, o_comment VARCHAR",
    "customer": "c_custkey INTEGER, c_name VARCHAR, c_address VARCHAR, c_nationkey INTEGER, c_phone VARCHAR, "
                "c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR",
}
QUERIES = {
    "Q18 subquery": "SELECT count(*) FROM (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey "
                    "HAVING sum(l_quantity) > 300) t",
    "Q18": "SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) "
           "FROM customer, orders, lineitem "
           "WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 300) "
           "AND c_custkey = o_custkey AND o_orderkey = l_orderkey "
           "GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice "
           "ORDER BY o_totalprice DESC, o_orderdate LIMIT 100",
}


def database(tbl_dir):
    path = os.path.join(tbl_dir, "q18-growth.duckdb")
    if not os.path.exists(path):
        con = duckdb.connect(path)
        for table, columns in SCHEMA.items():
            names = [c.split()[0] for c in columns.split(", ")]
            spec = ", ".join("'%s': '%s'" % (c.split()[0], " ".join(c.split()[1:])) for c in columns.split(", "))
            con.execute("CREATE TABLE %s (%s)" % (table, columns))
            # The .tbl lines end in '|': one more, empty column.
            con.execute("INSERT INTO %s SELECT %s FROM read_csv('%s', delim='|', header=false, columns={%s, 'end': 'VARCHAR'})"
                        % (table, ", ".join(names), os.path.join(tbl_dir, table + ".tbl"), spec))
        con.close()
    return path


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    medians = {}
    for tbl_dir in sys.argv[1:]:
        con = duckdb.connect(database(tbl_dir), read_only=True)
        con.execute("PRAGMA threads=2")
        for name, sql in QUERIES.items():
            times = []
            for _ in range(7):
                start = time.perf_counter()
                con.execute(sql).fetchall()
                times.append((time.perf_counter() - start) * 1000)
            medians[(tbl_dir, name)] = statistics.median(times)
        con.close()
    small, large = sys.argv[1:]
    for name in QUERIES:
        a, b = medians[(small, name)], medians[(large, name)]
        print("%-13s %9.1f ms %9.1f ms  growth %.2f" % (name, a, b, b / a))


if __name__ == "__main__":
    main()
