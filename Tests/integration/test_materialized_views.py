# SPDX-License-Identifier: Apache-2.0
"""Materialized views as a client uses them over the wire: one connection creates a view
with AUTO REFRESH, another loads rows and sees the view follow; a query the view answers
is planned over it (EXPLAIN); after a server restart the view, its rows and where its
last refresh stood are still there, so the next REFRESH is incremental, after a DELETE
or an UPDATE too.
"""
from server_support import PASSWORD, USER, Server, need


def test_a_view_follows_loads_answers_queries_and_outlives_a_restart(tmp_path):
    psycopg2 = need("psycopg2")
    data = tmp_path / "data"

    def connect(server):
        conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
        conn.autocommit = True
        return conn

    server = Server(data)
    try:
        a, b = connect(server), connect(server)
        ca, cb = a.cursor(), b.cursor()
        ca.execute("create table events (day date, kind varchar(10), amount int)")
        ca.execute("insert into events values ('2026-01-01', 'click', 1), ('2026-01-01', 'buy', 10), ('2026-01-02', 'click', 2)")
        ca.execute("create materialized view daily auto refresh yes as "
                   "select day, kind, count(*) as n, sum(amount) as total from events group by day, kind")
        # Another client loads rows; the view follows by itself.
        cb.execute("insert into events values ('2026-01-02', 'buy', 20), ('2026-01-02', 'click', 3)")
        ca.execute("select kind, n, total from daily where day = '2026-01-02' order by kind")
        assert ca.fetchall() == [("buy", 1, 20), ("click", 2, 5)]
        ca.execute("select trim(status), trim(refresh_type) from svl_mv_refresh_status order by starttime desc limit 1")
        assert ca.fetchone() == ("Refresh successfully updated MV incrementally", "Auto")
        # A roll-up of the view's query is planned over the view.
        rollup = "select kind, sum(amount) from events group by kind order by kind"
        ca.execute("explain " + rollup)
        plan = "\n".join(r[0] for r in ca.fetchall())
        assert "Seq Scan on daily" in plan and "Seq Scan on events" not in plan
        ca.execute(rollup)
        assert ca.fetchall() == [("buy", 30), ("click", 6)]
        a.close()
        b.close()
    finally:
        server.stop()

    server = Server(data)
    try:
        c = connect(server).cursor()
        c.execute("select is_stale, state, autorefresh from stv_mv_info where name = 'daily'")
        assert c.fetchone() == ("f", 1, "t")
        c.execute("insert into events values ('2026-01-03', 'buy', 7)")
        c.execute("select day::varchar, kind, n, total from daily where day = '2026-01-03'")
        assert c.fetchall() == [("2026-01-03", "buy", 1, 7)]
        c.execute("select trim(status) from svl_mv_refresh_status order by starttime desc limit 1")
        assert c.fetchone() == ("Refresh successfully updated MV incrementally",)
        # A DELETE and an UPDATE are folded in incrementally too: a group emptied goes, a
        # changed one is brought up to date.
        c.execute("delete from events where day = '2026-01-01' and kind = 'buy'")
        c.execute("update events set amount = amount * 10 where day = '2026-01-02' and kind = 'click'")
        c.execute("select day::varchar, kind, n, total from daily order by day, kind")
        assert c.fetchall() == [("2026-01-01", "click", 1, 1), ("2026-01-02", "buy", 1, 20),
                                ("2026-01-02", "click", 2, 50), ("2026-01-03", "buy", 1, 7)]
        c.execute("select trim(status) from svl_mv_refresh_status order by starttime desc limit 2")
        assert c.fetchall() == [("Refresh successfully updated MV incrementally",)] * 2
    finally:
        server.stop()
