# SPDX-License-Identifier: Apache-2.0
"""SUPER, INTERVAL, TIMESTAMPTZ and VARBYTE through `slicehouse serve` with real clients:
psql prints SUPER values as JSON and TIMESTAMPTZ in the session's `SET timezone`;
psycopg2 (text results) and psycopg 3 (binary results) read intervals, times and
time stamps with time zone as Python values; a SUPER parameter bound by a client
reaches JSON_PARSE as text.
"""
import datetime
import os
import shutil
import subprocess

import pytest

from server_support import PASSWORD, USER, Server

CI = os.environ.get("CI") == "true"

SETUP = """
create table docs (id int, doc super, seen timestamptz, took interval, raw varbyte(4));
insert into docs values
  (1, json_parse('{"name": "Ann", "tags": ["a", "b"], "address": {"city": "Paris"}}'), '2024-03-10 12:00:00+00', '1 day 02:00:00', to_varbyte('00ff', 'hex')),
  (2, json_parse('{"name": "Bo", "tags": []}'), '2024-07-01 23:30:00-04', '90 minutes', null);
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("data"))
    yield s
    s.stop()
    assert s.proc.returncode in (0, -15), f"server exited with {s.proc.returncode}"


def psql(server, *args, input=None):
    env = dict(os.environ, PGPASSWORD=PASSWORD, PGCONNECT_TIMEOUT="10")
    r = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", USER, "-d", "dev",
                        "-X", "-v", "ON_ERROR_STOP=1", *args], input=input, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_psql_super_and_time_zone(server):
    if shutil.which("psql") is None:
        if CI:
            raise AssertionError("psql is missing")
        pytest.skip("psql is not installed")
    psql(server, input=SETUP)
    out = psql(server, "-A", "-t", "-F", "|", "-c",
               "select id, doc.name, doc.address.city, t, i from docs c, c.doc.tags t at i order by id, i").stdout
    assert out.splitlines() == ['1|"Ann"|"Paris"|"a"|0', '1|"Ann"|"Paris"|"b"|1']
    out = psql(server, "-A", "-t", "-F", "|", input="set timezone to 'Asia/Tokyo';\n"
               "select id, seen, took, raw from docs order by id;\n").stdout
    assert out.splitlines()[-2:] == ["1|2024-03-10 21:00:00+09|1 day 02:00:00|00ff",
                                     "2|2024-07-02 12:30:00+09|01:30:00|"]


def test_psycopg2_text_values(server):
    try:
        import psycopg2
    except ImportError:
        if CI:
            raise
        pytest.skip("psycopg2 is not installed")
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("select seen, took, doc.tags from docs where id = 1")
    seen, took, tags = cur.fetchone()
    assert seen == datetime.datetime(2024, 3, 10, 12, 0, tzinfo=datetime.timezone.utc)
    assert took == datetime.timedelta(days=1, hours=2)
    assert tags == '["a","b"]'
    # A parameter becomes a JSON value through JSON_PARSE.
    cur.execute("select json_parse(%s).k[1]", ('{"k": [10, 20]}',))
    assert cur.fetchone() == ("20",)
    conn.close()


def test_psycopg3_binary_values(server):
    try:
        import psycopg
    except ImportError:
        if CI:
            raise
        pytest.skip("psycopg 3 is not installed")
    with psycopg.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev",
                         autocommit=True) as conn:
        cur = conn.cursor(binary=True)
        cur.execute("select seen, took, time '10:11:12' from docs where id = 2")
        seen, took, t = cur.fetchone()
        assert seen == datetime.datetime(2024, 7, 2, 3, 30, tzinfo=datetime.timezone.utc)
        assert took == datetime.timedelta(minutes=90)
        assert t == datetime.time(10, 11, 12)
