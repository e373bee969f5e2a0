# SPDX-License-Identifier: Apache-2.0
"""Users and privileges over the wire: logins (right and wrong passwords, unknown,
disabled and expired users, SCRAM, connection limits) and GRANT / REVOKE enforced for
every statement kind a client sends, with Redshift's errors.
"""
import os

import pytest

from server_support import Server, connect, run

CI = os.environ.get("CI") == "true"
ALICE_PASSWORD = "Al1ce-pass"

try:
    import psycopg2
    import psycopg2.errors
except ImportError:  # pragma: no cover
    psycopg2 = None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if psycopg2 is None:
        if CI:
            raise RuntimeError("psycopg2 is not installed (scripts/setup-system.sh installs it)")
        pytest.skip("psycopg2 is not installed")
    hba = tmp_path_factory.mktemp("hba") / "hba.conf"
    # SCRAM for scram_user, md5 (Redshift's default) for everyone else.
    hba.write_text("host all scram_user scram-sha-256\nhost all all md5\n")
    # The directory ordinary users may COPY from and UNLOAD to (test_server_hostile.py
    # plays the users who try elsewhere).
    copy_dir = tmp_path_factory.mktemp("copy")
    s = Server(tmp_path_factory.mktemp("data"), args=["--hba-file", str(hba), "--copy-dir", str(copy_dir)])
    s.copy_dir = copy_dir
    yield s
    s.stop()


def refused(conn, sql, message, params=None):
    with pytest.raises(psycopg2.Error) as e:
        run(conn, sql, params)
    assert message in str(e.value), str(e.value)
    assert e.value.pgcode == "42501", e.value.pgcode


@pytest.fixture(scope="module")
def admin(server, tmp_path_factory):
    conn = connect(server)
    run(conn, f"create user alice password '{ALICE_PASSWORD}'")
    run(conn, "create user mallory password 'Mall0ry-pass'")
    run(conn, "alter user mallory password disable")
    run(conn, "create user old password 'Exp1red-pass' valid until '2001-01-01'")
    run(conn, "create user limited password 'L1mited-pass' connection limit 1")
    run(conn, "create user scram_user password 'Scr4m-pass'")
    run(conn, "create table sales (id int, region varchar(10), amount decimal(10,2))")
    run(conn, "insert into sales values (1, 'east', 10.50), (2, 'west', 20.25)")
    data = server.copy_dir / "rows.txt"
    data.write_text("3|north|1.00\n4|south|2.00\n")
    yield conn, str(data)
    conn.close()


def test_logins(server, admin):
    conn = connect(server, "alice", ALICE_PASSWORD)
    assert run(conn, "select current_user, session_user") == [("alice", "alice")]
    conn.close()
    for user, password in [("alice", "wrong-Pass1"), ("nobody", "Whatever1"), ("mallory", "Mall0ry-pass"),
                           ("old", "Exp1red-pass")]:
        with pytest.raises(psycopg2.OperationalError) as e:
            connect(server, user, password)
        assert f'password authentication failed for user "{user}"' in str(e.value)
    # SCRAM-SHA-256 by the host rules.
    conn = connect(server, "scram_user", "Scr4m-pass")
    assert run(conn, "select current_user") == [("scram_user",)]
    conn.close()
    with pytest.raises(psycopg2.OperationalError):
        connect(server, "scram_user", "Wrong-pass1")
    # CONNECTION LIMIT 1.
    first = connect(server, "limited", "L1mited-pass")
    with pytest.raises(psycopg2.OperationalError) as e:
        connect(server, "limited", "L1mited-pass")
    assert 'too many connections for role "limited"' in str(e.value)
    first.close()


def test_password_change_takes_effect(server, admin):
    conn, _ = admin
    run(conn, "create user changer password 'Ch4nge-one'")
    c = connect(server, "changer", "Ch4nge-one")
    run(c, "alter user changer password 'Ch4nge-two'")     # users may change their own
    refused(c, "alter user changer createdb", "must be superuser")
    c.close()
    with pytest.raises(psycopg2.OperationalError):
        connect(server, "changer", "Ch4nge-one")
    connect(server, "changer", "Ch4nge-two").close()


STATEMENTS = {
    # privilege: (statement refused without it, statement allowed with it)
    "select": ("select count(*) from sales", "select sum(amount) from sales"),
    "insert": ("insert into sales values (%s, %s, %s)", "insert into sales values (%s, %s, %s)"),
    "update": ("update sales set amount = 1 where id = 3", "update sales set amount = 2 where id = 3"),
    "delete": ("delete from sales where id = 99", "delete from sales where id = 99"),
}


def test_each_statement_refused_granted_revoked(server, admin):
    conn, copy_file = admin
    alice = connect(server, "alice", ALICE_PASSWORD)
    params = {"insert": (3, "north", 1.0)}
    # Without grants: every statement kind is refused.
    for privilege, (sql, _) in STATEMENTS.items():
        refused(alice, sql, "permission denied for relation sales", params.get(privilege))
    refused(alice, f"copy sales from '{copy_file}'", "permission denied for relation sales")
    refused(alice, f"unload ('select * from sales') to '{copy_file}.out_'", "permission denied for relation sales")
    with pytest.raises(psycopg2.Error) as e:
        run(alice, "truncate sales")
    assert "must be owner of relation sales" in str(e.value)
    with pytest.raises(psycopg2.Error) as e:
        run(alice, "drop table sales")
    assert "must be owner of relation sales" in str(e.value)
    # With grants (update and delete also read columns: they need SELECT too).
    run(conn, "grant select, insert, update, delete on sales to alice")
    for privilege, (_, sql) in STATEMENTS.items():
        run(alice, sql, params.get(privilege))
    run(alice, f"copy sales from '{copy_file}' delimiter '|'")
    run(alice, f"unload ('select * from sales') to '{copy_file}.out_' allowoverwrite")
    assert run(alice, "select count(*) from sales") == [(5,)]
    run(conn, "grant truncate, drop on sales to alice")
    run(conn, "create table scratch (x int)")
    run(conn, "grant drop on scratch to alice")
    run(alice, "drop table scratch")
    # Revoked: refused again.
    run(conn, "revoke all on sales from alice")
    for privilege, (sql, _) in STATEMENTS.items():
        refused(alice, sql, "permission denied for relation sales", params.get(privilege))
    refused(alice, f"copy sales from '{copy_file}'", "permission denied for relation sales")
    # A session that is not a superuser cannot become someone else.
    with pytest.raises(psycopg2.Error) as e:
        run(alice, "set session authorization 'awsuser'")
    assert "permission denied to set session authorization" in str(e.value)
    alice.close()


def test_users_survive_restart(tmp_path):
    s = Server(tmp_path / "data")
    try:
        conn = connect(s)
        run(conn, "create user keeper password 'K33p-me-pass'")
        run(conn, "create table kept (x int)")
        run(conn, "grant select on kept to keeper")
        conn.close()
    finally:
        s.stop()
    s = Server(tmp_path / "data")
    try:
        conn = connect(s, "keeper", "K33p-me-pass")
        assert run(conn, "select count(*) from kept") == [(0,)]
        refused(conn, "insert into kept values (1)", "permission denied for relation kept")
        conn.close()
    finally:
        s.stop()
