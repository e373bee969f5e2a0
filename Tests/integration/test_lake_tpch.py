# SPDX-License-Identifier: Apache-2.0
"""TPC-H SF 0.01 as Hive-partitioned Parquet external tables (lineitem and orders
partitioned by month), over local files and the data directory's own catalog: the data
is loaded, unloaded to Parquet with UNLOAD ... PARTITION BY, registered with CREATE
EXTERNAL TABLE and ALTER TABLE ADD PARTITION, and the 22 queries must answer as over
the loaded tables — once with every table external, once with only the two fact tables
external and joined to the local dimension tables. A query that filters one month of
lineitem must read at most 1/50 of its bytes (SVL_S3QUERY_SUMMARY).

The scale factor is 0.01 in the test command; `SLICEHOUSE_LAKE_TPCH_SF=1` runs the same
checks at SF 1 (what issue 79's "done when" names; a few minutes).
"""
import os
import subprocess

import pytest

from server_support import BIN, CI, Server, connect, run

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERIES = os.path.join(ROOT, "datasets", "tpch", "queries")
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
# The fact tables' partition columns: the month of a date column.
MONTHS = {"lineitem": ("l_shipmonth", "l_shipdate"), "orders": ("o_ordermonth", "o_orderdate")}
SF = os.environ.get("SLICEHOUSE_LAKE_TPCH_SF", "0.01")


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    base = tmp_path_factory.mktemp("tpch")
    data = base / "tbl"
    subprocess.run([BIN, "datagen", "tpch", "--sf", SF, "--output", str(data)], check=True,
                   stdout=subprocess.DEVNULL)
    server = Server(base / "db")
    conn = connect(server)
    with open(os.path.join(ROOT, "datasets", "tpch", "schema.sql")) as f:
        for statement in f.read().split(";"):
            if "CREATE" in statement:
                run(conn, statement)
    for t in TABLES:
        run(conn, f"copy {t} from '{data}/{t}.tbl' delimiter '|'")
    files = base / "lake"
    for t in TABLES:
        if t in MONTHS:
            column, date = MONTHS[t]
            run(conn, f"unload ('select *, to_char({date}, ''YYYY-MM'') as {column} from {t}') "
                      f"to '{files}/{t}/' format parquet partition by ({column})")
        else:
            run(conn, f"unload ('select * from {t}') to '{files}/{t}/' format parquet")
    yield server, conn, files
    conn.close()
    server.stop()


def columns(conn, table):
    """The loaded table's columns as CREATE EXTERNAL TABLE writes them."""
    return ", ".join(f"{c} {t}" for c, t in run(
        conn, f"select column_name, case data_type "
              f"when 'character' then 'char(' || character_maximum_length || ')' "
              f"when 'character varying' then 'varchar(' || character_maximum_length || ')' "
              f"when 'numeric' then 'decimal(' || numeric_precision || ',' || numeric_scale || ')' "
              f"else data_type end from information_schema.columns where table_name = '{table}' "
              f"and table_schema = 'public' order by ordinal_position"))


def register(conn, files, schema, database, tables):
    run(conn, f"create external schema {schema} from data catalog database '{database}' "
              f"iam_role 'arn:aws:iam::123456789012:role/spectrum' create external database if not exists")
    for t in tables:
        if t in MONTHS:
            column = MONTHS[t][0]
            run(conn, f"create external table {schema}.{t} ({columns(conn, t)}) partitioned by ({column} char(7)) "
                      f"stored as parquet location '{files}/{t}/'")
            months = sorted(d for d in os.listdir(files / t) if d.startswith(column + "="))
            specs = " ".join(f"partition ({column} = '{m.split('=')[1]}') location '{files}/{t}/{m}/'" for m in months)
            run(conn, f"alter table {schema}.{t} add {specs}")
        else:
            run(conn, f"create external table {schema}.{t} ({columns(conn, t)}) stored as parquet location '{files}/{t}/'")


def answers(conn, path):
    run(conn, f"set search_path to {path}")
    out = {}
    for n in range(1, 23):
        with open(os.path.join(QUERIES, f"q{n:02d}.sql")) as f:
            text = f.read()
        out[n] = [tuple(r) for r in run(conn, text)]
    run(conn, "set search_path to '$user', public")
    return out


def same(a, b):
    return a == b or sorted(map(repr, a)) == sorted(map(repr, b))


def test_all_22_queries_over_external_tables_and_joined_with_local_ones(lake):
    server, conn, files = lake
    run(conn, "set enable_result_cache_for_session to off")
    local = answers(conn, "public")
    assert all(local[n] for n in local if n not in (2, 17, 20)), "the local answers should have rows"

    register(conn, files, "tpch_ext", "tpch", TABLES)
    external = answers(conn, "tpch_ext")
    wrong = [n for n in range(1, 23) if not same(local[n], external[n])]
    assert not wrong, f"queries whose answers differ over external tables: {wrong}"

    # Only the fact tables external: found first on the search path, joined to local tables.
    register(conn, files, "facts", "tpch_facts", ["lineitem", "orders"])
    mixed = answers(conn, "facts, public")
    wrong = [n for n in range(1, 23) if not same(local[n], mixed[n])]
    assert not wrong, f"queries whose answers differ joining external and local tables: {wrong}"
    run(conn, "set search_path to facts, public")
    plan = "\n".join(r[0] for r in run(conn, "explain select count(*) from lineitem l join customer c "
                                             "on l.l_suppkey = c.c_custkey"))
    run(conn, "set search_path to '$user', public")
    assert "S3 Seq Scan facts.lineitem" in plan and "XN Seq Scan on customer" in plan, plan


def test_one_month_of_lineitem_reads_a_fiftieth_of_its_bytes(lake):
    server, conn, files = lake
    if not run(conn, "select 1 from svv_external_schemas where schemaname = 'tpch_ext'"):
        register(conn, files, "tpch_ext", "tpch", TABLES)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(files / "lineitem") for f in fs)
    got = run(conn, "select count(*), sum(l_quantity) from tpch_ext.lineitem where l_shipmonth = '1995-06'")
    query = run(conn, "select pg_last_query_id()")[0][0]
    assert got == run(conn, "select count(*), sum(l_quantity) from lineitem "
                            "where l_shipdate between '1995-06-01' and '1995-06-30'")
    scanned, partitions = run(conn, f"select s.s3_scanned_bytes, p.qualified_partitions from svl_s3query_summary s "
                                    f"join svl_s3partition p on p.query = s.query where s.query = {query}")[0]
    assert partitions == 1
    assert 0 < scanned <= total / 50, (scanned, total)
