# SPDX-License-Identifier: Apache-2.0
"""Stored procedures through `slicehouse serve` with real clients: psql shows a procedure's
RAISE INFO as a notice (`INFO:  text` on standard error), CALL's row of OUT / INOUT values
as a result, and the notices raised before an error ahead of the error; psycopg2 sees the
notices in `connection.notices` and CALL's row with fetchone().
"""
import os
import shutil
import subprocess

import pytest

from server_support import PASSWORD, USER, Server

CI = os.environ.get("CI") == "true"

PROCEDURE = """
create table sp_log (n int, note varchar(100));
create procedure sp_report(n int, inout total int, out note varchar(100)) as $$
declare
  i int;
begin
  for i in 1..n loop
    total := total + i;
  end loop;
  raise info 'added 1..% to get %', n, total;
  note := 'done ' || n;
  insert into sp_log values (n, note);
end;
$$ language plpgsql;
create procedure sp_fails() as $$
begin
  insert into sp_log values (-1, 'rolled back');
  execute 'select invalid';
exception when others then
  raise info 'An exception occurred.';
  insert into sp_log values (-2, sqlerrm);
end;
$$ language plpgsql;
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("data"))
    yield s
    s.stop()
    assert s.proc.returncode in (0, -15), f"server exited with {s.proc.returncode}"


def psql(server, *args, input=None, check=True):
    env = dict(os.environ, PGPASSWORD=PASSWORD, PGCONNECT_TIMEOUT="10")
    r = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", USER, "-d", "dev",
                        "-X", "-v", "ON_ERROR_STOP=1", *args], input=input, env=env,
                       capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_psql_call_notices_and_out_row(server):
    if shutil.which("psql") is None:
        if CI:
            raise AssertionError("psql is missing")
        pytest.skip("psql is not installed")
    psql(server, input=PROCEDURE)
    r = psql(server, "-A", "-F", "|", "-c", "call sp_report(4, 10)")
    assert "INFO:  added 1..4 to get 20" in r.stderr
    assert r.stdout.splitlines()[:2] == ["total|note", "20|done 4"]
    # The handler's notice arrives before the re-thrown error; its INSERT was committed.
    r = psql(server, "-c", "call sp_fails()", check=False)
    assert r.returncode != 0
    info = r.stderr.find("INFO:  An exception occurred.")
    error = r.stderr.find('ERROR:  column "invalid" does not exist')
    assert 0 <= info < error, r.stderr
    out = psql(server, "-A", "-t", "-c", "select n, note from sp_log order by n").stdout.splitlines()
    assert out == ['-2|column "invalid" does not exist', "4|done 4"]


def test_psycopg2_call(server):
    try:
        import psycopg2
    except ImportError:
        if CI:
            raise
        pytest.skip("psycopg2 is not installed")
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("create procedure sp_py(a int, out doubled int) as $$ "
                "begin raise info 'doubling %', a; doubled := a * 2; end; $$ language plpgsql")
    cur.execute("call sp_py(%s)", (21,))
    assert cur.fetchone() == (42,)
    assert any("INFO:  doubling 21" in n for n in conn.notices)
    conn.close()


def test_psycopg3_extended_protocol_call(server):
    """psycopg 3 binds parameters with the extended protocol: Describe of a CALL gives the
    OUT columns, so the row that follows has a description."""
    try:
        import psycopg
    except ImportError:
        if CI:
            raise
        pytest.skip("psycopg 3 is not installed")
    with psycopg.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev",
                         autocommit=True) as conn:
        notices = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute("create procedure sp_ext(a int, inout b varchar(20), out c int) as $$ "
                     "begin raise notice 'got %', a; b := b || a; c := a + 1; end; $$ language plpgsql")
        cur = conn.execute("call sp_ext(%s, %s)", (5, "x"))
        assert [d.name for d in cur.description] == ["b", "c"]
        assert cur.fetchone() == ("x5", 6)
        assert notices == ["got 5"]
        cur = conn.execute("call sp_report(%s, %s)", (2, 0))
        assert cur.fetchone() == (3, "done 2")
