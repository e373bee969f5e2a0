# SPDX-License-Identifier: Apache-2.0
"""Short statements (a repeated `select 1`, a constant expression with bound values),
which the server's event loop answers itself once their plan is kept and timed, as real
clients send them: psycopg 3 with server-side prepared statements, in pipeline mode
beside queries that read tables, and cancelled between statements. Every answer is
checked against the values bound, every run is in STL_QUERY, and a session keeps working
after a cancel.
"""
import pytest

from server_support import PASSWORD, USER, Server, need


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "data")
    yield s
    s.stop()


def connect(server):
    psycopg = need("psycopg")
    return psycopg.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev",
                           autocommit=True, prepare_threshold=0)


def test_prepared_constant_queries_answer_each_value(server):
    conn = connect(server)
    cur = conn.cursor()
    # Each value is its own kept plan: the first run of each is planned, the later ones
    # are short; every answer is the value's.
    values = [1, 2, 1, 2, 3, 1, 3, 2, -7, -7, 0, 0, None, None]
    for v in values:
        cur.execute("select %s::int * 2, 'v' || %s::varchar", (v, v), prepare=True)
        expected = (None, None) if v is None else (v * 2, f"v{v}")
        assert cur.fetchone() == expected
    for _ in range(50):
        cur.execute("select 1", prepare=True)
        assert cur.fetchone() == (1,)
    cur.execute("select count(*) from stl_query where querytxt = 'select 1' and pid = pg_backend_pid()")
    assert cur.fetchone()[0] == 50
    conn.close()


def test_pipelined_short_and_table_queries(server):
    conn = connect(server)
    conn.execute("create table t (a int)")
    conn.execute("insert into t values (1), (2), (3)")
    for _ in range(2):
        conn.execute("select 42", prepare=True)
    with conn.pipeline():
        cursors = []
        for i in range(40):
            cur = conn.cursor()
            if i % 4 == 3:
                cur.execute("select sum(a) + %s from t", (i,), prepare=True)
                cursors.append((cur, 6 + i))
            else:
                cur.execute("select 42", prepare=True)
                cursors.append((cur, 42))
    for cur, expected in cursors:
        assert cur.fetchone()[0] == expected
    conn.close()


def test_a_cancel_between_short_statements_leaves_the_session_working(server):
    conn = connect(server)
    cur = conn.cursor()
    for _ in range(3):
        cur.execute("select 5", prepare=True)
        assert cur.fetchone() == (5,)
    # Nothing runs: PostgreSQL ignores the cancel, and so does the server.
    conn.cancel()
    for _ in range(3):
        cur.execute("select 5", prepare=True)
        assert cur.fetchone() == (5,)
    # A statement that runs long is still cancelled on its statement thread.
    psycopg = need("psycopg")
    import threading
    timer = threading.Timer(0.5, conn.cancel)
    timer.start()
    with pytest.raises(psycopg.errors.QueryCanceled):
        cur.execute("select count(*) from generate_series(1, 1000000) a, generate_series(1, 1000000) b")
    timer.cancel()
    cur.execute("select 5", prepare=True)
    assert cur.fetchone() == (5,)
    conn.close()
