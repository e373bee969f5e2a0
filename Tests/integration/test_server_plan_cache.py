# SPDX-License-Identifier: Apache-2.0
"""Prepared statements over the wire, as psycopg 3 (server-side prepare, text and binary
parameters) and pg8000 send them: Parse keeps the statement's tree, each Bind hands its
typed values to the binder (the text is never parsed again), and the plan of a repeated
query is reused (STV_PLAN_CACHE). Every answer is checked against the values bound, the
result cache is off so that each one is computed, and a plan is never reused past DDL,
REVOKE or another user's privileges.
"""
import datetime
from decimal import Decimal

import pytest

from server_support import PASSWORD, USER, Server, need


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "data")
    yield s
    s.stop()


def plan_cache(cur):
    cur.execute("select hits, misses, stale from stv_plan_cache")
    return cur.fetchone()


def connect_psycopg(server, user=USER, password=PASSWORD):
    psycopg = need("psycopg")
    conn = psycopg.connect(host=server.host, port=server.port, user=user, password=password, dbname="dev",
                           autocommit=True, prepare_threshold=0)
    conn.execute("set enable_result_cache_for_session to off")
    return conn


def test_psycopg_prepared_statements_bind_typed_values(server):
    conn = connect_psycopg(server)
    cur = conn.cursor()
    cur.execute("create table orders (id int, name varchar(20), amount decimal(10,2), day date, paid boolean)")
    cur.executemany("insert into orders values (%s, %s, %s, %s, %s)", [
        (1, "ann", Decimal("10.50"), datetime.date(2026, 1, 1), True),
        (2, "bob", Decimal("20.25"), datetime.date(2026, 1, 2), False),
        (3, "cy", Decimal("5.00"), datetime.date(2026, 1, 3), True),
        (4, None, None, None, None),
    ])
    query = "select id, name, amount from orders where id = %s"
    for i, expected in [(1, (1, "ann", Decimal("10.50"))), (2, (2, "bob", Decimal("20.25"))), (3, (3, "cy", Decimal("5.00"))),
                        (1, (1, "ann", Decimal("10.50"))), (99, None)]:
        cur.execute(query, (i,), prepare=True)
        assert cur.fetchone() == expected
    # Text, numeric, date and boolean values, and NULL (no row is equal to NULL).
    cur.execute("select count(*) from orders where name = %s", ("bob",), prepare=True)
    assert cur.fetchone()[0] == 1
    cur.execute("select count(*) from orders where amount > %s", (Decimal("10.25"),), prepare=True)
    assert cur.fetchone()[0] == 2
    cur.execute("select count(*) from orders where amount > %s", (Decimal("10.75"),), prepare=True)
    assert cur.fetchone()[0] == 1
    cur.execute("select min(id) from orders where day >= %s", (datetime.date(2026, 1, 2),), prepare=True)
    assert cur.fetchone()[0] == 2
    cur.execute("select count(*) from orders where paid = %s", (True,), prepare=True)
    assert cur.fetchone()[0] == 2
    cur.execute("select count(*) from orders where name = %s", (None,), prepare=True)
    assert cur.fetchone()[0] == 0
    # A numeric value keeps every digit it was given.
    cur.execute("select %s::decimal(20,10) * 2", (Decimal("1.0000000001"),), prepare=True)
    assert cur.fetchone()[0] == Decimal("2.0000000002")
    # A value is a value: quotes in it are data, not SQL.
    cur.execute("select count(*) from orders where name = %s", ("ann' or '1'='1",), prepare=True)
    assert cur.fetchone()[0] == 0
    # Binary parameters (psycopg sends ints and dates in binary when asked).
    bcur = conn.cursor(binary=True)
    bcur.execute("select name from orders where id = %b and day = %b", (3, datetime.date(2026, 1, 3)), prepare=True)
    assert bcur.fetchone()[0] == "cy"
    # A repeat finds its plan: id 2 was planned above, so each of these is a hit.
    before = plan_cache(cur)[0]
    for _ in range(3):
        cur.execute(query, (2,), prepare=True)
        assert cur.fetchone() == (2, "bob", Decimal("20.25"))
    assert plan_cache(cur)[0] - before == 3
    conn.close()


def test_prepared_dml_and_plans_after_ddl(server):
    conn = connect_psycopg(server)
    cur = conn.cursor()
    cur.execute("create table t (a int, b varchar(10))")
    for i in range(5):
        cur.execute("insert into t values (%s, %s)", (i, f"v{i}"), prepare=True)
    cur.execute("update t set b = %s where a = %s", ("new", 3), prepare=True)
    cur.execute("delete from t where a = %s", (4,), prepare=True)
    cur.execute("select a, b from t order by a")
    assert cur.fetchall() == [(0, "v0"), (1, "v1"), (2, "v2"), (3, "new")]
    select = "select * from t where a = %s"
    cur.execute(select, (3,), prepare=True)
    assert cur.fetchone() == (3, "new")
    # A column added: the prepared statement's plan is made again (the new column shows).
    cur.execute("alter table t add column c int default 9")
    cur.execute(select, (3,), prepare=True)
    assert cur.fetchone() == (3, "new", 9)
    assert plan_cache(cur)[2] >= 1
    # EXPLAIN of a prepared statement shows the bound value in the plan.
    cur.execute("explain select * from t where a = %s", (2,), prepare=True)
    assert any("= 2" in r[0] for r in cur.fetchall())
    conn.close()


def test_kept_plans_respect_privileges(server):
    admin = connect_psycopg(server)
    cur = admin.cursor()
    cur.execute("create table secret (id int, note varchar(20))")
    cur.execute("insert into secret values (1, 'one'), (2, 'two')")
    cur.execute("create user reader password 'Reader123'")
    cur.execute("grant select on secret to reader")
    # The superuser's plan of the same text is not the reader's.
    cur.execute("select note from secret where id = %s", (1,), prepare=True)
    assert cur.fetchone()[0] == "one"
    reader = connect_psycopg(server, "reader", "Reader123")
    rcur = reader.cursor()
    rcur.execute("select note from secret where id = %s", (2,), prepare=True)
    assert rcur.fetchone()[0] == "two"
    rcur.execute("select note from secret where id = %s", (2,), prepare=True)
    assert rcur.fetchone()[0] == "two"
    cur.execute("revoke select on secret from reader")
    with pytest.raises(Exception) as e:
        rcur.execute("select note from secret where id = %s", (2,), prepare=True)
    assert "permission denied" in str(e.value)
    # A user who never had the privilege gets no plan another user made.
    cur.execute("create user other password 'Other1234'")
    other = connect_psycopg(server, "other", "Other1234")
    with pytest.raises(Exception) as e:
        other.cursor().execute("select note from secret where id = %s", (1,), prepare=True)
    assert "permission denied" in str(e.value)
    for c in (admin, reader, other):
        c.close()


def test_pg8000_extended_protocol_repeats(server):
    need("pg8000")
    import pg8000.native
    conn = pg8000.native.Connection(USER, host=server.host, port=server.port, password=PASSWORD, database="dev")
    conn.run("set enable_result_cache_for_session to off")
    conn.run("create table p (k int, v varchar(5))")
    conn.run("insert into p values (1, 'a'), (2, 'b'), (3, 'c')")
    ps = conn.prepare("select v from p where k = :k")
    assert [ps.run(k=k)[0][0] for k in (1, 2, 3, 2, 1)] == ["a", "b", "c", "b", "a"]
    assert ps.run(k=7) == []
    ps.close()
    # The statement log shows the text with its $n, as Redshift logs a prepared statement.
    rows = conn.run("select querytxt from stl_query where querytxt like 'select v from p where k = $1%' limit 1")
    assert rows and rows[0][0].startswith("select v from p where k = $1")
    conn.close()
