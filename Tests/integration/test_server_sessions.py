# SPDX-License-Identifier: Apache-2.0
"""Session behaviour over the wire: several statements in one Query message are one
implicit transaction (as in PostgreSQL and Redshift), and connections left idle past
`--idle-timeout` are closed with a FATAL message while busy or in-transaction ones stay.
"""
import os
import time

import pytest

from server_support import PASSWORD, USER, Server

CI = os.environ.get("CI") == "true"

try:
    import psycopg2
except ImportError:  # pragma: no cover
    psycopg2 = None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if psycopg2 is None:
        if CI:
            raise RuntimeError("psycopg2 is not installed (scripts/setup-system.sh installs it)")
        pytest.skip("psycopg2 is not installed")
    s = Server(tmp_path_factory.mktemp("data"), args=["--idle-timeout", "2"])
    yield s
    s.stop()


def connect(server):
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    conn.autocommit = True
    return conn


def scalar(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    return cur.fetchone()[0]


def test_multi_statement_query_is_one_transaction(server):
    conn = connect(server)
    cur = conn.cursor()
    cur.execute("create table implicit_t (x int)")
    # psycopg2 in autocommit sends this text as one simple Query message.
    cur.execute("insert into implicit_t values (1); insert into implicit_t values (2)")
    assert scalar(conn, "select count(*) from implicit_t") == 2
    with pytest.raises(psycopg2.Error) as e:
        cur.execute("insert into implicit_t values (3); select 1 / 0; insert into implicit_t values (4)")
    assert "division by zero" in str(e.value)
    # The insert before the error rolled back with it; the session is idle again.
    assert scalar(conn, "select count(*) from implicit_t") == 2
    assert conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_IDLE
    # An explicit BEGIN inside the message turns the implicit block into an explicit one
    # that outlives the message, the statements before it included (PostgreSQL's rule).
    cur.execute("insert into implicit_t values (5); begin; insert into implicit_t values (6)")
    assert conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_INTRANS
    other = connect(server)
    assert scalar(other, "select count(*) from implicit_t") == 2
    cur.execute("rollback")
    assert scalar(conn, "select count(*) from implicit_t") == 2
    # COMMIT inside the message ends the implicit block; what follows is its own transaction.
    cur.execute("insert into implicit_t values (7); commit; insert into implicit_t values (8)")
    assert scalar(other, "select count(*) from implicit_t") == 4
    other.close()
    conn.close()


def test_idle_connections_are_closed(server):
    idle = connect(server)
    in_block = connect(server)
    in_block.autocommit = False
    scalar(in_block, "select 1")             # a transaction block is open: not idle
    busy = connect(server)
    deadline = time.time() + 4
    while time.time() < deadline:            # a connection that keeps talking stays
        assert scalar(busy, "select 1") == 1
        time.sleep(0.5)
    with pytest.raises(psycopg2.OperationalError) as e:
        scalar(idle, "select 1")
    assert "idle-session timeout" in str(e.value) or "closed" in str(e.value)
    assert scalar(in_block, "select 2") == 2
    in_block.rollback()
    in_block.close()
    busy.close()
