# SPDX-License-Identifier: Apache-2.0
"""UNLOAD to S3 over the wire, against moto's S3 server, read back by tools no one here
wrote: boto3 lists and reads the objects, DuckDB (httpfs) and pyarrow read the Parquet
row for row, COPY loads what UNLOAD wrote (a partitioned prefix, a manifest). Large
files go up in parts; a failed UNLOAD leaves no object behind.
"""
import gzip
import io
import json
import os

import pytest

from server_support import CI, Server, connect, need, run
from s3_support import KEY_ID, SECRET, Moto, duckdb_on

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

BUCKET = "lake-out"
ROLE = "arn:aws:iam::123456789012:role/unload"


@pytest.fixture(scope="module")
def moto():
    m = Moto()
    m.client().create_bucket(Bucket=BUCKET)
    yield m
    m.stop()


@pytest.fixture(scope="module")
def server(moto, tmp_path_factory):
    # The endpoint as a server option (the keys from the environment).
    env = {k: v for k, v in moto.env().items() if k != "AWS_ENDPOINT_URL"}
    s = Server(tmp_path_factory.mktemp("data"), args=["--s3-endpoint", moto.url], env_extra=env)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def conn(server):
    c = connect(server)
    setup(c)
    yield c
    c.close()


def setup(c):
    run(c, "create table events (id int, year smallint, kind varchar(12), amount decimal(12,2), at timestamp)")
    run(c, "create temp table digits (d int)")
    run(c, "insert into digits values (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)")
    run(c, "insert into events select n, 2020 + n % 4, case n % 3 when 0 then 'click' when 1 then 'view' else 'buy' end, "
           "n * 0.25, timestamp '2024-01-01 00:00:00' + n * interval '1 minute' "
           "from (select 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d as n "
           "from digits a, digits b, digits c, digits e, digits f where f.d < 2) s")


def keys(moto, prefix):
    out = []
    for page in moto.client().get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        out += [o["Key"] for o in page.get("Contents", [])]
    return sorted(out)


def body(moto, key):
    return moto.client().get_object(Bucket=BUCKET, Key=key)["Body"].read()


def expected(conn):
    return run(conn, "select id, year, kind, amount, at from events order by id")


def test_setup_has_rows(conn):
    assert run(conn, "select count(*) from events") == [(20000,)]


def test_text_unload_and_copy_back(moto, conn):
    run(conn, f"unload ('select * from events') to 's3://{BUCKET}/text/events_' iam_role '{ROLE}' gzip header csv")
    names = keys(moto, "text/")
    assert names and all(k.startswith("text/events_") and k.endswith("_part_00.gz") for k in names), names
    first = gzip.decompress(body(moto, names[0])).decode()
    assert first.splitlines()[0] == "id,year,kind,amount,at"
    run(conn, "create table events_back (like events)")
    run(conn, f"copy events_back from 's3://{BUCKET}/text/events_' iam_role '{ROLE}' gzip csv ignoreheader 1")
    assert run(conn, "select id, year, kind, amount, at from events_back order by id") == expected(conn)
    log = run(conn, "select trim(path) from stl_unload_log where query = (select max(query) from stl_unload_log) order by 1")
    assert [p for (p,) in log] == [f"s3://{BUCKET}/{k}" for k in names]


def test_parquet_partitioned_read_by_duckdb_pyarrow_and_copy(moto, conn):
    run(conn, f"unload ('select id, kind, amount, year from events') to 's3://{BUCKET}/pq/events/' "
              f"iam_role '{ROLE}' format parquet partition by (year) include")
    names = keys(moto, "pq/events/")
    assert {k.split("/")[2] for k in names} == {"year=2020", "year=2021", "year=2022", "year=2023"}, names
    assert all(k.endswith(".parquet") for k in names)
    want = [(i, k, float(a), y) for (i, k, a, y) in run(conn, "select id, kind, amount, year from events order by id")]

    pa = need("pyarrow")
    import pyarrow.dataset as ds
    import pyarrow.fs
    fs = pyarrow.fs.S3FileSystem(endpoint_override=moto.url, access_key=KEY_ID, secret_key=SECRET,
                                 region="us-east-1", scheme="http")
    table = ds.dataset(f"{BUCKET}/pq/events/", filesystem=fs, format="parquet").to_table()
    rows = sorted(zip(table["id"].to_pylist(), table["kind"].to_pylist(),
                      [float(a) for a in table["amount"].to_pylist()], table["year"].to_pylist()))
    assert rows == want

    con = duckdb_on(moto)
    got = con.execute(f"SELECT id, kind, amount::double, year FROM read_parquet('s3://{BUCKET}/pq/events/*/*.parquet') "
                      "ORDER BY id").fetchall()
    assert [tuple(r) for r in got] == want

    run(conn, "create table events_pq (id int, kind varchar(12), amount decimal(12,2), year smallint)")
    run(conn, f"copy events_pq from 's3://{BUCKET}/pq/events/' iam_role '{ROLE}' format as parquet")
    assert run(conn, "select id, kind, amount::float8, year from events_pq order by id") == want


def test_manifest_verbose_and_copy_from_it(moto, conn):
    run(conn, f"unload ('select id, kind from events where id <= 500') to 's3://{BUCKET}/man/part_' "
              f"iam_role '{ROLE}' manifest verbose")
    manifest = json.loads(body(moto, "man/part_manifest"))
    urls = [e["url"] for e in manifest["entries"]]
    assert urls and all(u.startswith(f"s3://{BUCKET}/man/part_") for u in urls)
    assert manifest["meta"]["record_count"] == 500
    assert sum(e["meta"]["content_length"] for e in manifest["entries"]) == manifest["meta"]["content_length"]
    run(conn, "create table man_back (id int, kind varchar(12))")
    run(conn, f"copy man_back from 's3://{BUCKET}/man/part_manifest' iam_role '{ROLE}' manifest")
    assert run(conn, "select count(*), sum(id) from man_back") == [(500, sum(range(1, 501)))]


def test_overwrite_rules(moto, conn):
    run(conn, f"unload ('select id from events where id < 10') to 's3://{BUCKET}/ow/run_' iam_role '{ROLE}'")
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"unload ('select id from events where id < 10') to 's3://{BUCKET}/ow/run_' iam_role '{ROLE}'")
    assert "Specified unload destination on S3 is not empty" in str(e.value)
    moto.client().put_object(Bucket=BUCKET, Key="ow/run_stray", Body=b"x")
    run(conn, f"unload ('select id from events where id < 5') to 's3://{BUCKET}/ow/run_' iam_role '{ROLE}' "
              "allowoverwrite parallel off")
    assert "ow/run_stray" in keys(moto, "ow/")
    run(conn, f"unload ('select id from events where id < 3') to 's3://{BUCKET}/ow/run_' iam_role '{ROLE}' "
              "cleanpath parallel off")
    assert keys(moto, "ow/") == ["ow/run_000"]
    assert body(moto, "ow/run_000") == b"1\n2\n"


def test_a_large_file_goes_up_in_parts_and_a_failed_unload_leaves_nothing(moto, conn):
    run(conn, "create table wide as select e.id, repeat('x', 500) as pad from events e")
    run(conn, f"unload ('select * from wide') to 's3://{BUCKET}/big/all_' iam_role '{ROLE}' parallel off")
    assert keys(moto, "big/") == ["big/all_000"]
    assert len(body(moto, "big/all_000")) > 8 << 20   # more than one part
    assert len(body(moto, "big/all_000").splitlines()) == 20000
    # The query fails after several parts went up: they are aborted, finished files deleted.
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"unload ('select id / (id - 19990), pad from wide order by id') to 's3://{BUCKET}/fail/x_' "
                  f"iam_role '{ROLE}' parallel off")
    assert "division by zero" in str(e.value)
    assert keys(moto, "fail/") == []
    uploads = moto.client().list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])
    assert [u for u in uploads if u["Key"].startswith("fail/")] == []


def test_who_may_unload_where(moto, server, conn):
    """An ordinary user unloads with keys of their own, never with the server's, and only
    what they may SELECT; the keys stay out of the statement log."""
    run(conn, "create user analyst password 'An4lyst-pass'")
    run(conn, "grant select on events to analyst")
    run(conn, "create table payroll (name varchar(20), salary int)")
    run(conn, "insert into payroll values ('ceo', 1000000)")
    bob = connect(server, "analyst", "An4lyst-pass")
    mine = f"credentials 'aws_access_key_id={KEY_ID};aws_secret_access_key={SECRET}'"

    def refused(sql, words):
        with pytest.raises(psycopg2.Error) as e:
            run(bob, sql)
        assert e.value.pgcode == "42501", str(e.value)
        assert words in str(e.value), str(e.value)

    try:
        refused(f"unload ('select * from events') to 's3://{BUCKET}/bob/a_' iam_role default", "only a superuser")
        refused(f"unload ('select * from events') to 's3://{BUCKET}/bob/b_' iam_role '{ROLE}'",
                "only a superuser may use a role the role map does not name")
        refused(f"unload ('select * from events') to 's3://{BUCKET}/bob/c_'", "must give IAM_ROLE or CREDENTIALS")
        refused(f"unload ('select * from payroll') to 's3://{BUCKET}/bob/d_' {mine}", "payroll")
        assert keys(moto, "bob/") == []
        run(bob, f"unload ('select id from events where id <= 10') to 's3://{BUCKET}/bob/mine_' {mine} parallel off")
        assert keys(moto, "bob/") == ["bob/mine_000"]
        assert sorted(int(x) for x in body(moto, "bob/mine_000").split()) == list(range(1, 11))
        # Bob sees his own requests in STL_S3CLIENT (the PUT of his file), and only his.
        mine_rows = run(bob, "select distinct userid, trim(http_method), trim(key) from stl_s3client where trim(key) like 'bob/%'")
        assert [(m, k) for _, m, k in mine_rows] == [("PUT", "bob/mine_000")], mine_rows
        assert run(bob, "select count(distinct userid) from stl_s3client") == [(1,)]
        texts = [t for (t,) in run(conn, "select querytxt from stl_query where querytxt ilike '%unload%bob/%'")]
        assert texts and all(SECRET not in t and KEY_ID not in t for t in texts), texts
    finally:
        bob.close()
