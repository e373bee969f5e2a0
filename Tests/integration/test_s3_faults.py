# SPDX-License-Identifier: Apache-2.0
"""COPY and UNLOAD over S3 through a proxy that injects faults between slicehouse and
the local S3 server: dropped connections, 503 SlowDown, bodies cut short and 500s are
tried again until the statement succeeds with every row; an object that keeps failing
fails the COPY whole with nothing committed; an UNLOAD that fails leaves no object and
no upload behind; a stalled S3 ends at the statement timeout, and a cancel stops a COPY
at once.
"""
import threading
import time

import pytest

from server_support import CI, Server, connect, run
from s3_support import Moto
from s3_fault_proxy import ERROR500, RESET, SLOWDOWN, STALL, TRUNCATE, FaultProxy

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

BUCKET = "faulty"
ROWS = 400_000


@pytest.fixture(scope="module")
def moto():
    m = Moto()
    s3 = m.client()
    s3.create_bucket(Bucket=BUCKET)
    # Three objects of about 9 MB: each is read by two ranged GETs.
    for part in range(3):
        first = part * ROWS
        text = "".join(f"{i}|row {i:09d} {'p' * 8}\n" for i in range(first, first + ROWS))
        s3.put_object(Bucket=BUCKET, Key=f"data/part_{part:02d}", Body=text.encode())
    yield m
    m.stop()


@pytest.fixture(scope="module")
def proxy(moto):
    p = FaultProxy(moto.port, stall_seconds=30)
    yield p
    p.stop()


@pytest.fixture(scope="module")
def server(moto, proxy, tmp_path_factory):
    env = dict(moto.env(), AWS_ENDPOINT_URL=proxy.url)
    s = Server(tmp_path_factory.mktemp("data"), env_extra=env)
    yield s
    s.stop()


@pytest.fixture
def conn(server, proxy):
    proxy.plan = lambda *a: None
    proxy.injected.clear()
    c = connect(server)
    yield c
    proxy.plan = lambda *a: None
    c.close()


def reads(method, query, headers):
    return method == "GET" and "range" in {k.lower() for k in headers.keys()}


def test_transient_faults_are_ridden_out(conn, proxy):
    faults = [RESET, SLOWDOWN, TRUNCATE, ERROR500]

    def plan(method, path, query, headers, n):
        # Every other data read fails, each time another way; the listing once.
        if reads(method, query, headers) and n % 2 == 0:
            return faults[(n // 2) % len(faults)]
        if "list-type" in query and n < 3:
            return SLOWDOWN
        return None
    proxy.plan = plan
    run(conn, "create table t (id int, label varchar(30))")
    run(conn, f"copy t from 's3://{BUCKET}/data/part_' iam_role default")
    assert run(conn, "select count(*), count(distinct id), min(id), max(id) from t") == [(3 * ROWS, 3 * ROWS, 0, 3 * ROWS - 1)]
    # Each failed try is in STL_S3CLIENT_ERROR, and the request that then succeeded in
    # STL_S3CLIENT with its retries.
    copy = run(conn, "select pg_last_copy_id()")[0][0]
    errors = run(conn, f"select trim(http_method), trim(key), trim(error) from stl_s3client_error where query = {copy}")
    assert len(errors) >= len(proxy.injected) - 1 > 0, (errors, proxy.injected)
    assert any("SlowDown" in e for _, _, e in errors), errors
    assert run(conn, f"select count(*) > 0, sum(retries) > 0 from stl_s3client where query = {copy} and http_method = 'GET'") \
        == [(True, True)]
    kinds = {k for k, _, _ in proxy.injected}
    assert {RESET, SLOWDOWN, TRUNCATE, ERROR500} <= kinds, proxy.injected


def test_an_object_that_keeps_failing_fails_the_copy_whole(conn, proxy):
    run(conn, "create table whole (id int, label varchar(30))")
    run(conn, "insert into whole values (-1, 'before')")
    proxy.plan = lambda method, path, query, headers, n: RESET if path.endswith("part_02") and method == "GET" else None
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"copy whole from 's3://{BUCKET}/data/part_' iam_role default")
    assert "S3 request failed" in str(e.value) and "part_02" in str(e.value), str(e.value)
    assert run(conn, "select count(*) from whole") == [(1,)]


def test_a_stalled_s3_ends_at_the_statement_timeout(conn, proxy):
    run(conn, "create table slow (id int, label varchar(30))")
    proxy.plan = lambda method, path, query, headers, n: STALL if reads(method, query, headers) else None
    run(conn, "set statement_timeout to 2000")
    start = time.time()
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"copy slow from 's3://{BUCKET}/data/part_00' iam_role default")
    elapsed = time.time() - start
    assert "statement timeout" in str(e.value), str(e.value)
    assert elapsed < 10, elapsed
    run(conn, "set statement_timeout to 0")
    proxy.plan = lambda *a: None
    assert run(conn, "select count(*) from slow") == [(0,)]


def test_cancel_stops_a_copy_from_s3(conn, proxy, server):
    run(conn, "create table cancelled (id int, label varchar(30))")
    proxy.plan = lambda method, path, query, headers, n: STALL if reads(method, query, headers) else None
    errors = []

    def copy():
        try:
            run(conn, f"copy cancelled from 's3://{BUCKET}/data/' iam_role default")
        except psycopg2.Error as e:
            errors.append(e)
    t = threading.Thread(target=copy)
    t.start()
    time.sleep(1.5)
    start = time.time()
    conn.cancel()
    t.join(timeout=15)
    assert not t.is_alive()
    assert time.time() - start < 5
    assert errors and "canceling statement due to user request" in str(errors[0]), errors
    proxy.plan = lambda *a: None
    assert run(conn, "select count(*) from cancelled") == [(0,)]


def test_a_failed_unload_leaves_nothing_behind(conn, proxy, moto):
    run(conn, "create table src as select id, label || repeat('x', 40) as label from "
              "(select 1 as id, 'a' as label) s")
    for _ in range(18):
        run(conn, "insert into src select id + (select max(id) from src), label from src")
    # Every part upload fails (after its retries): the uploads are aborted, nothing stays.
    proxy.plan = lambda method, path, query, headers, n: ERROR500 if method == "PUT" and "partNumber" in query else None
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"unload ('select * from src') to 's3://{BUCKET}/out/src_' iam_role default parallel off")
    assert "InternalError" in str(e.value), str(e.value)
    s3 = moto.client()
    assert s3.list_objects_v2(Bucket=BUCKET, Prefix="out/").get("KeyCount", 0) == 0
    assert [u for u in s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) if u["Key"].startswith("out/")] == []
    # With a fault now and then, the same UNLOAD succeeds.
    proxy.plan = lambda method, path, query, headers, n: SLOWDOWN if method == "PUT" and n % 3 == 0 else None
    run(conn, f"unload ('select * from src') to 's3://{BUCKET}/out/src_' iam_role default parallel off")
    proxy.plan = lambda *a: None
    run(conn, "create table back (like src)")
    run(conn, f"copy back from 's3://{BUCKET}/out/src_' iam_role default")
    assert run(conn, "select count(*), sum(id) from back") == run(conn, "select count(*), sum(id) from src")
