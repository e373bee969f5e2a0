# SPDX-License-Identifier: Apache-2.0
"""Cancelling a long query through the server, every way a user can: CancelRequest,
pg_cancel_backend, pg_terminate_backend, statement_timeout and a client that goes
away — each stops the query within a second, and the session (or, for terminate and a
disconnect, the database) is fine afterwards. Ctrl-C in the shell is in
test_shell_pty.py.
"""
import threading
import time

import pytest

from server_support import PASSWORD, USER, Server, wait_until

psycopg2 = pytest.importorskip("psycopg2")

# 10,000 rows cross-joined three times: 10^12 pairs, hours of work — far past 30 s.
LONG = "select count(*) from n a, n b, n c where a.a + b.a + c.a < 0"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("data"))
    conn = connect(s)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("create table d (x int)")
    cur.execute("insert into d values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
    cur.execute("create table n as select a.x * 1000 + b.x * 100 + c.x * 10 + e.x as a from d a, d b, d c, d e")
    conn.close()
    yield s
    s.stop()


def connect(server):
    return psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")


def run_and_cancel_after(cur, cancel, delay=1.0):
    """Run LONG; call `cancel` after `delay` s from another thread. Returns (error, seconds
    from the cancel to the error)."""
    stamp = {}

    def later():
        time.sleep(delay)
        stamp["t"] = time.time()
        cancel()

    t = threading.Thread(target=later)
    t.start()
    with pytest.raises(psycopg2.Error) as e:
        cur.execute(LONG)
    ended = time.time()
    t.join()
    return e.value, ended - stamp["t"]


def test_cancel_request(server):
    conn = connect(server)
    conn.autocommit = True
    cur = conn.cursor()
    err, took = run_and_cancel_after(cur, conn.cancel)
    assert err.pgcode == "57014" and "canceling statement due to user request" in str(err)
    assert took < 1.0, took
    cur.execute("select count(*) from n")    # the session goes on
    assert cur.fetchone()[0] == 10000
    conn.close()


def test_cancelled_transaction_rolls_back(server):
    conn = connect(server)
    cur = conn.cursor()           # autocommit off: BEGIN is implicit
    cur.execute("create table keep (a int)")
    conn.commit()
    cur.execute("insert into keep values (1)")
    err, took = run_and_cancel_after(cur, conn.cancel)
    assert err.pgcode == "57014" and took < 1.0
    with pytest.raises(psycopg2.Error) as e:
        cur.execute("select 1")
    assert e.value.pgcode == "25P02"
    conn.rollback()
    cur.execute("select count(*) from keep")
    assert cur.fetchone()[0] == 0
    conn.close()


def victim_and_other(server):
    """Two autocommit connections, their cursors, and the first one's process id."""
    victim, other = connect(server), connect(server)
    victim.autocommit = other.autocommit = True
    vcur, ocur = victim.cursor(), other.cursor()
    vcur.execute("select pg_backend_pid()")
    return victim, other, vcur, ocur, vcur.fetchone()[0]


def test_pg_cancel_backend(server):
    victim, other, vcur, ocur, pid = victim_and_other(server)
    answers = []

    def cancel():
        ocur.execute("select pg_cancel_backend(%s)", (pid,))
        answers.append(ocur.fetchone()[0])

    err, took = run_and_cancel_after(vcur, cancel)
    assert err.pgcode == "57014" and took < 1.0, (err, took)
    assert answers == [1]
    vcur.execute("select 1")
    assert vcur.fetchone()[0] == 1
    # An unknown process: 0 and a warning, no error.
    ocur.execute("select pg_cancel_backend(12345)")
    assert ocur.fetchone()[0] == 0
    victim.close()
    other.close()


def test_pg_cancel_backend_over_a_column(server):
    # Superset's Stop button: `SELECT pg_cancel_backend(procpid) FROM pg_stat_activity
    # WHERE procpid = '<pid>'` signals each row's process as the statement runs.
    victim, other, vcur, ocur, pid = victim_and_other(server)
    answers = []

    def cancel():
        ocur.execute("select pg_cancel_backend(procpid) from pg_stat_activity where procpid = %s", (str(pid),))
        answers.extend(r[0] for r in ocur.fetchall())

    err, took = run_and_cancel_after(vcur, cancel)
    assert err.pgcode == "57014" and took < 1.0, (err, took)
    assert answers == [1]
    vcur.execute("select 1")
    assert vcur.fetchone()[0] == 1
    # No matching row signals nothing.
    ocur.execute("select pg_cancel_backend(procpid) from pg_stat_activity where procpid = -1")
    assert ocur.fetchall() == []
    victim.close()
    other.close()


def test_pg_cancel_backend_over_a_column_needs_the_owner(server):
    # A user who is not a superuser may not signal another user's process, whichever form.
    admin = connect(server)
    admin.autocommit = True
    acur = admin.cursor()
    acur.execute("create user signaller password 'Signal1er'")
    acur.execute("select pg_backend_pid()")
    pid = acur.fetchone()[0]
    mallory = psycopg2.connect(host=server.host, port=server.port, user="signaller", password="Signal1er", dbname="dev")
    mallory.autocommit = True
    mcur = mallory.cursor()
    with pytest.raises(psycopg2.Error) as e:
        mcur.execute("select pg_cancel_backend(procpid) from pg_stat_activity where procpid = %s", (pid,))
    assert e.value.pgcode == "42501" and "belongs to another user" in str(e.value)
    with pytest.raises(psycopg2.Error) as e:
        mcur.execute("select pg_terminate_backend(procpid) from pg_stat_activity where procpid = %s", (pid,))
    assert e.value.pgcode == "42501"
    acur.execute("select 1")   # the superuser's session is untouched
    assert acur.fetchone() == (1,)
    mallory.close()
    # The server sees the disconnect a moment after the client closes: until then the user
    # is connected and cannot be dropped.
    def dropped():
        try:
            acur.execute("drop user signaller")
            return True
        except psycopg2.errors.ObjectInUse:
            return False
    assert wait_until(dropped)
    admin.close()


def test_pg_terminate_backend(server):
    victim, other, vcur, ocur, pid = victim_and_other(server)
    err, took = run_and_cancel_after(vcur, lambda: ocur.execute("select pg_terminate_backend(%s)", (pid,)))
    assert err.pgcode == "57P01" and took < 1.0, (err, took)
    with pytest.raises(psycopg2.Error):
        vcur.execute("select 1")
    # The session is gone from STV_SESSIONS.
    assert wait_until(lambda: (ocur.execute("select count(*) from stv_sessions where process = %s", (pid,))
                               or ocur.fetchone()[0] == 0))
    other.close()


def test_statement_timeout(server):
    conn = connect(server)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("set statement_timeout to 500")
    start = time.time()
    with pytest.raises(psycopg2.Error) as e:
        cur.execute(LONG)
    took = time.time() - start
    assert e.value.pgcode == "57014" and "statement timeout" in str(e.value)
    assert 0.45 < took < 1.5, took
    cur.execute("set statement_timeout to 0")
    cur.execute("select 2")
    assert cur.fetchone()[0] == 2
    with pytest.raises(psycopg2.Error) as e:
        cur.execute("set statement_timeout to 'soon'")
    assert e.value.pgcode == "22023"
    conn.close()


def test_client_gone_mid_query_cancels_and_rolls_back(server):
    conn = connect(server)
    cur = conn.cursor()
    cur.execute("create table gone (a int)")
    conn.commit()
    cur.execute("insert into gone values (1)")    # holds gone's lock, uncommitted
    cur.execute("select pg_backend_pid()")
    pid = cur.fetchone()[0]
    t = threading.Thread(target=lambda: pytest.raises(Exception, cur.execute, LONG))
    t.start()
    time.sleep(0.5)
    # Drop the socket without a Terminate message.
    import socket
    sock = socket.socket(fileno=conn.fileno())
    sock.shutdown(socket.SHUT_RDWR)
    sock.detach()
    t.join(5)
    other = connect(server)
    other.autocommit = True
    ocur = other.cursor()
    assert wait_until(lambda: (ocur.execute("select count(*) from stv_sessions where process = %s", (pid,))
                               or ocur.fetchone()[0] == 0), timeout=5)
    # Its lock is released and its insert rolled back: a write goes through at once.
    ocur.execute("set statement_timeout to 2000")
    ocur.execute("insert into gone values (2)")
    ocur.execute("select a from gone")
    assert ocur.fetchall() == [(2,)]
    other.close()
