# SPDX-License-Identifier: Apache-2.0
"""Several databases in one cluster, over the wire as clients use them: a client names
its database at connection (psycopg2's `dbname`, psql's `-d`), a query reads another
database's tables with three-part names, a database that does not exist is reported
only after a login succeeds (a stranger learns nothing of which databases exist), and
DROP DATABASE refuses while others are connected unless FORCE, which ends their sessions.
"""
import os
import shutil
import subprocess

import pytest

from server_support import PASSWORD, USER, Server, run, wait_until

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
    hba = tmp_path_factory.mktemp("hba") / "hba.conf"
    hba.write_text("host all all md5\n")
    s = Server(tmp_path_factory.mktemp("data"), args=["--hba-file", str(hba)])
    yield s
    s.stop()
    assert s.proc.returncode in (0, -15), f"server exited with {s.proc.returncode}"


def connect(server, dbname, user=USER, password=PASSWORD):
    conn = psycopg2.connect(host=server.host, port=server.port, user=user, password=password, dbname=dbname,
                            connect_timeout=10)
    conn.autocommit = True
    return conn


@pytest.fixture(scope="module")
def sales(server):
    dev = connect(server, "dev")
    run(dev, "create table regions (id int, name varchar(10))")
    run(dev, "insert into regions values (1, 'east'), (2, 'west')")
    run(dev, "create user bob password 'B0b-pass-1'")
    run(dev, "create database sales owner bob")
    conn = connect(server, "sales", "bob", "B0b-pass-1")
    run(conn, "create table orders (region int, amount decimal(10,2))")
    run(conn, "insert into orders values (1, 10.50), (2, 20.25), (2, 1.25)")
    yield dev, conn
    conn.close()
    dev.close()


def test_a_client_names_its_database(server, sales):
    dev, conn = sales
    assert run(conn, "select current_database()") == [("sales",)]
    assert run(dev, "select current_database()") == [("dev",)]
    # The same name is another table in each database.
    run(dev, "create table orders (note varchar(20))")
    assert run(dev, "select count(*) from orders") == [(0,)]
    assert run(conn, "select count(*) from orders") == [(3,)]
    # The catalog a client reads is its database's.
    assert run(conn, "select table_catalog, table_name from information_schema.tables where table_schema = 'public'"
                     " order by 2") == [("sales", "orders")]
    rows = run(dev, "select database_name, table_name from svv_redshift_tables where table_name = 'orders' order by 1")
    assert rows == [("dev", "orders"), ("sales", "orders")]
    log = run(dev, "select trim(dbname) from stl_connection_log where event = 'authenticated' and trim(username) = 'bob'")
    assert ("sales",) in log


def test_three_part_names_read_across_databases(server, sales):
    dev, conn = sales
    rows = run(dev, "select r.name, sum(o.amount) from sales.public.orders o join regions r on r.id = o.region"
                    " group by 1 order by 1")
    assert [(n, str(a)) for n, a in rows] == [("east", "10.50"), ("west", "21.50")]
    # bob owns sales but has no grant on dev's regions.
    with pytest.raises(psycopg2.Error) as e:
        run(conn, "select * from dev.public.regions")
    assert e.value.pgcode == "42501" and "permission denied for relation regions" in str(e.value)
    run(dev, "grant select on regions to bob")
    assert run(conn, "select name from dev.public.regions order by id") == [("east",), ("west",)]
    # A write names the database the client is in.
    with pytest.raises(psycopg2.Error) as e:
        run(dev, "insert into sales.public.orders values (3, 1)")
    assert 'cross-database reference to database "sales" is not supported' in str(e.value)


def test_psql_connects_to_a_database(server, sales):
    if shutil.which("psql") is None:
        if CI:
            raise AssertionError("psql is missing")
        pytest.skip("psql is missing")
    env = dict(os.environ, PGPASSWORD=PASSWORD, PGCONNECT_TIMEOUT="10")
    r = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", USER, "-d", "sales", "-X", "-A", "-t",
                        "-c", "select current_database(), count(*) from orders"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "sales|3"


def test_a_missing_database_is_told_only_after_login(server, sales):
    with pytest.raises(psycopg2.OperationalError) as e:
        connect(server, "nosuch", "bob", "wrong-password")
    assert "password authentication failed" in str(e.value)
    assert "nosuch" not in str(e.value)
    with pytest.raises(psycopg2.OperationalError) as e:
        connect(server, "nosuch", "bob", "B0b-pass-1")
    assert 'database "nosuch" does not exist' in str(e.value)


def test_connection_limit_of_a_database(server, sales):
    dev, _ = sales
    run(dev, "create database tiny connection limit 1")
    first = connect(server, "tiny")
    with pytest.raises(psycopg2.OperationalError) as e:
        connect(server, "tiny")
    assert 'too many connections for database "tiny"' in str(e.value)
    first.close()
    # The slot frees when the session ends.
    wait_until(lambda: run(dev, "select count(*) from stv_sessions where trim(db_name) = 'tiny'") == [(0,)])
    connect(server, "tiny").close()


def test_drop_database_while_others_are_connected(server, sales):
    dev, _ = sales
    run(dev, "create database scratch")
    other = connect(server, "scratch")
    run(other, "create table t (a int)")
    with pytest.raises(psycopg2.Error) as e:
        run(dev, "drop database scratch")
    assert e.value.pgcode == "55006" and 'database "scratch" is being accessed by other users' in str(e.value)
    run(dev, "drop database scratch force")
    # The other client's session was ended.
    with pytest.raises(psycopg2.Error):
        run(other, "select 1")
    assert run(dev, "select count(*) from pg_database where datname = 'scratch'") == [(0,)]
    with pytest.raises(psycopg2.OperationalError) as e:
        connect(server, "scratch")
    assert 'database "scratch" does not exist' in str(e.value)
