# SPDX-License-Identifier: Apache-2.0
"""The STL logs outlive the process that wrote them, as a user meets them: one
`slicehouse -c` run loads a file with bad rows, a later run reads STL_LOAD_ERRORS; a
server restarted over the same directory still shows what its clients ran before.
"""
import os
import subprocess

import pytest

from server_support import BIN, PASSWORD, USER, Server

CI = os.environ.get("CI") == "true"

try:
    import psycopg2
except ImportError:  # pragma: no cover
    psycopg2 = None


def run(data_dir, *statements, flags=()):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
    argv = [BIN, "-D", str(data_dir), *flags]
    for s in statements:
        argv += ["-c", s]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_load_errors_of_one_run_are_read_by_the_next(tmp_path):
    data = tmp_path / "data"
    rows_file = tmp_path / "venue.txt"
    rows_file.write_text("1|Arena\nnot a number|Hall\n3|Stadium\n")
    out = run(data, "create table venue (id int, name varchar(20))",
              f"copy venue from '{rows_file}' delimiter '|' maxerror 5")
    assert "1 record(s) could not be loaded" in out

    def rows(sql):
        return run(data, sql, flags=("-A", "-t")).splitlines()

    assert rows("select line_number, trim(colname), err_code, trim(err_reason) from stl_load_errors") == [
        "2|id|1207|Invalid digit, Value 'n', Pos 0, Type: Integer"]
    assert rows("select trim(filename), lines_scanned from stl_load_commits") == [f"{rows_file}|3"]
    # The COPY is the first query logged, with the id it ran as.
    assert rows("select trim(querytxt) from stl_query order by query limit 1") == [
        f"copy venue from '{rows_file}' delimiter '|' maxerror 5"]


@pytest.fixture
def driver():
    if psycopg2 is None:
        if CI:
            raise RuntimeError("psycopg2 is not installed (scripts/setup-system.sh installs it)")
        pytest.skip("psycopg2 is not installed")
    return psycopg2


def test_a_restarted_server_shows_what_its_clients_ran(tmp_path, driver):
    data = tmp_path / "data"

    def session(server):
        conn = driver.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
        conn.autocommit = True
        return conn

    server = Server(data)
    try:
        conn = session(server)
        cur = conn.cursor()
        cur.execute("create table t (a int)")
        cur.execute("insert into t values (%s), (%s)", (1, 2))
        cur.execute("select sum(a) from t")
        assert cur.fetchone()[0] == 3
        cur.execute("select pg_backend_pid()")
        pid = cur.fetchone()[0]
        conn.close()
    finally:
        server.stop()

    server = Server(data)
    try:
        conn = session(server)
        cur = conn.cursor()
        cur.execute("select pid, trim(querytxt) from stl_query where querytxt like '%from t%' or querytxt like 'insert%'"
                    " order by query")
        assert cur.fetchall() == [(pid, "insert into t values (1), (2)"), (pid, "select sum(a) from t")]
        cur.execute("select trim(text) from stl_ddltext")
        assert cur.fetchall() == [("create table t (a int)",)]
        # The new process's queries get ids after the first's.
        cur.execute("select max(query) from stl_query where querytxt like 'select sum%'")
        before = cur.fetchone()[0]
        cur.execute("select pg_last_query_id()")
        assert cur.fetchone()[0] > before
        conn.close()
    finally:
        server.stop()


def test_the_connection_log_records_each_session(tmp_path, driver):
    """STL_CONNECTION_LOG (issue 76): the server logs each login, the session it begins
    and its end (with how long it lasted) and each failed login, with the client's
    address; only superusers read it."""
    from server_support import connect, run as query, wait_until
    server = Server(tmp_path / "data")
    try:
        first = connect(server)
        pid = query(first, "select pg_backend_pid()")[0][0]
        query(first, "create user watcher password 'Watcher123'")
        first.close()
        # One attempt: with sslmode=prefer (the default) libpq tries again without TLS after
        # a failed login over TLS, and the server rightly logs both.
        with pytest.raises(driver.OperationalError):
            driver.connect(host=server.host, port=server.port, user="watcher", password="Wrong1234", dbname="dev",
                           sslmode="require")
        admin = connect(server)
        sql = ("select trim(event), trim(username), trim(remotehost), trim(dbname), duration > 0, trim(authmethod) <> '' "
               "from stl_connection_log where pid = %s order by recordtime, event")
        assert wait_until(lambda: len(query(admin, sql, (pid,))) == 3)
        assert query(admin, sql, (pid,)) == [
            ("authenticated", USER, "127.0.0.1", "dev", False, True),
            ("initiating session", USER, "127.0.0.1", "dev", False, True),
            ("disconnecting session", USER, "127.0.0.1", "dev", True, True),
        ]
        assert query(admin, "select count(*) from stl_connection_log where trim(event) = 'authentication failure' "
                            "and trim(username) = 'watcher'") == [(1,)]
        # A connection's events share its sessionid (36 characters), and no other's do.
        assert query(admin, "select count(distinct sessionid), min(length(trim(sessionid))) from stl_connection_log "
                            "where pid = %s", (pid,)) == [(1, 36)]
        assert query(admin, "select count(*) from stl_connection_log where sessionid = (select max(sessionid) from "
                            "stl_connection_log where pid = %s)", (pid,)) == [(3,)]
        watcher = connect(server, user="watcher", password="Watcher123")
        assert query(watcher, "select count(*) from stl_connection_log") == [(0,)]
        watcher.close()
        admin.close()
    finally:
        server.stop()
