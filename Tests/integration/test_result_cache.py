# SPDX-License-Identifier: Apache-2.0
"""The result cache as clients meet it over the wire: psycopg2 (simple protocol) and
redshift_connector (extended protocol, binary results, bound parameters) repeat a query
and get the same rows from the cache (SVL_QLOG.source_query), another client's INSERT
invalidates it, and `enable_result_cache_for_session` turns it off.
"""

import pytest

from server_support import PASSWORD, USER, Server, need


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "data")
    yield s
    s.stop()


def source_of_last_query(cur):
    cur.execute("select source_query from svl_qlog where query = pg_last_query_id()")
    return cur.fetchone()[0]


def test_psycopg2_repeats_a_query_from_the_cache_until_another_client_inserts(server):
    psycopg2 = need("psycopg2")

    def connect():
        conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
        conn.autocommit = True
        return conn

    a, b = connect(), connect()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("create table sales (id int, region varchar(10), amount decimal(10,2))")
    ca.execute("insert into sales values (1, 'north', 10.50), (2, 'south', 20.25), (3, 'north', 5.00)")
    query = "select region, sum(amount) from sales group by region order by region"
    ca.execute(query)
    first = ca.fetchall()
    assert source_of_last_query(ca) is None
    ca.execute("select max(query) from svl_qlog where substring like 'select region, sum(amount)%'")
    ran = ca.fetchone()[0]

    # The other client's identical query is answered from the first one's rows.
    cb.execute(query)
    assert cb.fetchall() == first
    assert source_of_last_query(cb) == ran

    # An INSERT by the other client invalidates it: the next run runs and sees the row.
    cb.execute("insert into sales values (4, 'south', 1.25)")
    ca.execute(query)
    assert [(r, str(s)) for r, s in ca.fetchall()] == [("north", "15.50"), ("south", "21.50")]
    assert source_of_last_query(ca) is None

    # Turned off for one session, that session runs every time.
    cb.execute("set enable_result_cache_for_session to off")
    cb.execute(query)
    cb.fetchall()
    assert source_of_last_query(cb) is None
    a.close()
    b.close()


def test_redshift_connector_bound_parameters_are_part_of_the_query(server):
    rc = need("redshift_connector")
    conn = rc.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, database="dev", ssl=False)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("create table t (a int, b varchar(10))")
    cur.execute("insert into t values (1, 'x'), (2, 'y'), (3, 'z')")
    sql = "select count(*), max(b) from t where a <= %s"
    cur.execute(sql, (2,))
    assert list(cur.fetchone()) == [2, "y"]
    cur.execute(sql, (3,))
    assert list(cur.fetchone()) == [3, "z"]
    assert source_of_last_query(cur) is None
    cur.execute(sql, (2,))
    assert list(cur.fetchone()) == [2, "y"]
    assert source_of_last_query(cur) is not None
    conn.close()
