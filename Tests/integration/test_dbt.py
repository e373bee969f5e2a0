# SPDX-License-Identifier: Apache-2.0
"""dbt against `slicehouse serve`: the project in Tests/dbt (seeds, a view, a table, an
incremental model, schema tests) through dbt-redshift, as a Redshift user runs it.

`dbt seed`, `dbt run` twice (the second run of the incremental model merges only the new
rows), `dbt test`, each must succeed; the row counts are then checked through a client.
Skipped when dbt is not installed, unless CI=true, where that is a failure."""
import os
import shutil
import subprocess

import pytest

from server_support import PASSWORD, ROOT, USER, Server

CI = os.environ.get("CI") == "true"
PROJECT = os.path.join(ROOT, "Tests", "dbt")


def dbt_binary():
    path = shutil.which("dbt")
    if path is None:
        if CI:
            raise AssertionError("dbt is not installed (scripts/setup-system.sh installs dbt-core 1.10 and dbt-redshift 1.9)")
        pytest.skip("dbt is not installed (scripts/setup-system.sh installs dbt-core 1.10 and dbt-redshift 1.9)")
    return path


@pytest.fixture()
def project(tmp_path):
    """A copy of the project, so that dbt's target/ and logs/ stay out of the tree."""
    dest = tmp_path / "project"
    shutil.copytree(PROJECT, dest, ignore=shutil.ignore_patterns("target", "logs"))
    return dest


def run_dbt(dbt, project, server, *args, check=True):
    env = dict(os.environ, SLICEHOUSE_PORT=str(server.port), SLICEHOUSE_PASSWORD=PASSWORD,
               DBT_SEND_ANONYMOUS_USAGE_STATS="false", DO_NOT_TRACK="1")
    r = subprocess.run([dbt, "--no-use-colors", *args, "--profiles-dir", str(project), "--project-dir", str(project)],
                       cwd=project, env=env, capture_output=True, text=True, timeout=600)
    if not check:
        return r.stdout
    if r.returncode != 0:
        log = project / "logs" / "dbt.log"
        tail = log.read_text()[-8000:] if log.exists() else ""
        raise AssertionError(f"dbt {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}\n--- dbt.log ---\n{tail}")
    return r.stdout


def test_dbt_seed_run_test(tmp_path, project):
    dbt = dbt_binary()
    psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")
    server = Server(tmp_path / "data")
    try:
        run_dbt(dbt, project, server, "seed")
        run_dbt(dbt, project, server, "run")
        conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
        conn.autocommit = True
        cur = conn.cursor()

        def count(relation):
            cur.execute(f"select count(*) from {relation}")
            return cur.fetchone()[0]

        assert count("analytics.customers") == 4
        assert count("analytics.orders") == 6
        assert count("analytics.stg_orders") == 6
        assert count("analytics.customer_totals") == 4
        assert count("analytics.order_events") == 6
        cur.execute("select relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace "
                    "where n.nspname = 'analytics' and c.relname in ('stg_orders', 'customer_totals') order by c.relname")
        assert cur.fetchall() == [("r",), ("v",)]

        # New source rows: the incremental model's second run merges only them.
        cur.execute("insert into analytics.orders values (7, 3, 'shipped', 12.00, '2024-03-05'), "
                    "(8, 1, 'placed', 3.50, '2024-03-06')")
        cur.execute("update analytics.order_events set status = 'marker' where order_id = 1")
        run_dbt(dbt, project, server, "run")
        assert count("analytics.order_events") == 8
        cur.execute("select status from analytics.order_events where order_id = 1")
        assert cur.fetchall() == [("marker",)], "the second run rebuilt rows it should have kept"
        cur.execute("select count(*), count(distinct order_id) from analytics.order_events")
        assert cur.fetchone() == (8, 8)
        assert count("analytics.customer_totals") == 4
        cur.execute("select total_amount from analytics.customer_totals where customer_id = 1")
        assert str(cur.fetchone()[0]) == "34.00"
        cur.execute("update analytics.order_events set status = 'shipped' where order_id = 1")

        out = run_dbt(dbt, project, server, "test")
        assert "PASS=10 " in out and "ERROR=0" in out, out

        # The tests really look at the data: a duplicate key fails `unique`.
        cur.execute("insert into analytics.order_events select * from analytics.order_events where order_id = 2")
        failing = run_dbt(dbt, project, server, "test", "--select", "order_events", check=False)
        assert "FAIL 1 unique_order_events_order_id" in failing and "ERROR=1" in failing, failing
        cur.execute("delete from analytics.order_events where order_id = 2")
        # No leftovers of dbt's renames.
        cur.execute("select table_name from information_schema.tables where table_schema = 'analytics' order by 1")
        assert [r[0] for r in cur.fetchall()] == ["customer_totals", "customers", "order_events", "orders", "stg_orders"]
        conn.close()
    finally:
        server.stop()
