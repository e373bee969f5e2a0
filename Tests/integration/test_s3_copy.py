# SPDX-License-Identifier: Apache-2.0
"""COPY from S3 over the wire, against moto's S3 server: objects put by boto3 and the
AWS CLI, Parquet written by pyarrow, load scripts as written for Redshift (IAM_ROLE,
CREDENTIALS, GZIP, MANIFEST, JSON 'auto', FORMAT AS PARQUET), failures that leave
nothing committed, and the users who may not use the server's keys.
"""
import bz2
import gzip
import io
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from server_support import CI, Server, connect, need, run
from s3_support import KEY_ID, SECRET, Moto

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

BUCKET = "tickit-data"
ROLE = "arn:aws:iam::123456789012:role/load"


@pytest.fixture(scope="module")
def moto():
    m = Moto()
    m.client().create_bucket(Bucket=BUCKET)
    yield m
    m.stop()


@pytest.fixture(scope="module")
def server(moto, tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    s = Server(data, env_extra=moto.env())
    s.data_dir = data
    yield s
    s.stop()


@pytest.fixture(scope="module")
def conn(server):
    c = connect(server)
    yield c
    c.close()


def put(moto, key, body):
    moto.client().put_object(Bucket=BUCKET, Key=key, Body=body)


def sales_rows(first, n):
    return "".join(f"{i}\t{i % 50}\t{i % 7}\t{i * 1.25:.2f}\t2008-01-{1 + i % 28:02d}\n" for i in range(first, first + n))


SALES_DDL = "create table {} (salesid int, sellerid int, qtysold smallint, pricepaid decimal(8,2), saletime date)"


def test_a_redshift_load_script_runs_unchanged(moto, conn):
    put(moto, "tickit/sales_part_00.gz", gzip.compress(sales_rows(0, 3000).encode()))
    put(moto, "tickit/sales_part_01.gz", gzip.compress(sales_rows(3000, 2000).encode()))
    put(moto, "tickit/other.txt", b"not matched by the prefix\n")
    run(conn, SALES_DDL.format("sales"))
    run(conn, f"COPY sales FROM 's3://{BUCKET}/tickit/sales_' IAM_ROLE '{ROLE}' DELIMITER '\\t' GZIP")
    count, ids, paid, first = run(conn, "select count(*), sum(salesid), sum(pricepaid)::float8, min(saletime)::text from sales")[0]
    assert (count, ids, first) == (5000, sum(range(5000)), "2008-01-01")
    assert paid == pytest.approx(sum(float(f"{i * 1.25:.2f}") for i in range(5000)))
    files = run(conn, "select trim(filename), lines_scanned from stl_load_commits "
                      "where query = pg_last_copy_id() order by 1")
    assert files == [(f"s3://{BUCKET}/tickit/sales_part_00.gz", 3000), (f"s3://{BUCKET}/tickit/sales_part_01.gz", 2000)]
    sizes = {o["Key"]: o["Size"] for o in moto.client().list_objects_v2(Bucket=BUCKET, Prefix="tickit/sales_")["Contents"]}
    scans = run(conn, "select trim(name), lines, bytes from stl_file_scan where query = pg_last_copy_id() order by 1")
    assert scans == [(f"s3://{BUCKET}/{k}", n, sizes[k]) for k, n in
                     [("tickit/sales_part_00.gz", 3000), ("tickit/sales_part_01.gz", 2000)]]
    # STATUPDATE and COMPUPDATE as load scripts write them.
    run(conn, SALES_DDL.format("sales2"))
    run(conn, f"COPY sales2 FROM 's3://{BUCKET}/tickit/sales_' IAM_ROLE '{ROLE}' DELIMITER '\\t' GZIP "
              "COMPUPDATE OFF STATUPDATE ON")
    assert run(conn, "select count(*) from sales2") == [(5000,)]
    assert run(conn, "select stats_off from svv_table_info where \"table\" = 'sales2'") == [(0,)]


def test_every_text_format_and_compression(moto, conn, tmp_path):
    rows = [(i, f"name {i}", i * 0.5) for i in range(1, 401)]
    run(conn, "create table fmt (id int, name varchar(40), v float8)")

    def load(key, body, options):
        put(moto, key, body)
        run(conn, "truncate fmt")
        run(conn, f"copy fmt from 's3://{BUCKET}/{key}' iam_role default {options}")
        assert run(conn, "select id, name, v from fmt order by id") == rows, options

    text = "".join(f"{i}|{n}|{v}\n" for i, n, v in rows).encode()
    load("fmt/plain.txt", text, "")
    load("fmt/b.bz2", bz2.compress(text), "bzip2")
    zst = tmp_path / "t.zst"
    subprocess.run(["zstd", "-q", "-o", str(zst), "-"], input=text, check=True)
    load("fmt/z.zst", zst.read_bytes(), "zstd")
    csv = "id,name,v\n" + "".join(f'{i},"{n}",{v}\n' for i, n, v in rows)
    load("fmt/c.csv", csv.encode(), "csv ignoreheader 1")
    js = "".join(json.dumps({"id": i, "name": n, "v": v}) + "\n" for i, n, v in rows)
    load("fmt/j.json", js.encode(), "format as json 'auto'")
    put(moto, "fmt/paths.json", json.dumps({"jsonpaths": ["$.id", "$.name", "$.v"]}).encode())
    load("fmt/j2.json", js.encode(), f"json 's3://{BUCKET}/fmt/paths.json'")
    fixed = "".join(f"{i:<5}{n:<12}{v:<8}\n" for i, n, v in rows)
    load("fmt/f.txt", fixed.encode(), "fixedwidth 'id:5,name:12,v:8' trimblanks")


def test_parquet_written_by_pyarrow(moto, conn):
    pa = need("pyarrow")
    import pyarrow.parquet as pq
    n = 30_000
    table = pa.table({"id": pa.array(range(n), pa.int64()),
                      "label": pa.array([None if i % 11 == 0 else f"L{i}" for i in range(n)]),
                      "amount": pa.array([i / 8 for i in range(n)], pa.float64())})
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=4_000)
    put(moto, "parquet/part-0.parquet", buf.getvalue())
    run(conn, "create table pq (id bigint, label varchar(20), amount float8)")
    run(conn, f"copy pq from 's3://{BUCKET}/parquet/' iam_role '{ROLE}' format as parquet")
    got = run(conn, "select id, label, amount from pq order by id")
    assert got == list(zip(table["id"].to_pylist(), table["label"].to_pylist(), table["amount"].to_pylist()))
    # Nested columns as JSON into SUPER.
    nested = pa.table({"id": [1, 2], "attrs": [{"a": 1, "b": "x"}, {"a": 2, "b": None}]})
    buf = io.BytesIO()
    pq.write_table(nested, buf)
    put(moto, "nested/n.parquet", buf.getvalue())
    run(conn, "create table nested (id bigint, attrs super)")
    run(conn, f"copy nested from 's3://{BUCKET}/nested/' iam_role default format as parquet serializetojson")
    assert run(conn, "select id, json_serialize(attrs) from nested order by id") == \
        [(1, '{"a":1,"b":"x"}'), (2, '{"a":2,"b":null}')]


def test_objects_the_aws_cli_put(moto, conn, tmp_path):
    if shutil.which("aws") is None:
        if CI:
            raise RuntimeError("the AWS CLI is not installed (scripts/setup-system.sh installs it)")
        pytest.skip("the AWS CLI is not installed")
    src = tmp_path / "cli"
    src.mkdir()
    (src / "venue_1.txt").write_text("1|Arena|Boston\n2|Dome|Denver\n")
    (src / "venue_2.txt").write_text("3|Park|Austin\n")
    env = dict(os.environ, **moto.env())
    subprocess.run(["aws", "s3", "cp", "--recursive", str(src), f"s3://{BUCKET}/cli/"], env=env, check=True,
                   capture_output=True)
    run(conn, "create table venue (id int, name varchar(20), city varchar(20))")
    run(conn, f"copy venue from 's3://{BUCKET}/cli/venue_' iam_role default")
    assert run(conn, "select * from venue order by id") == [(1, "Arena", "Boston"), (2, "Dome", "Denver"), (3, "Park", "Austin")]


def test_a_prefix_of_more_objects_than_a_listing_page(moto, conn):
    s3 = moto.client()
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: s3.put_object(Bucket=BUCKET, Key=f"many/part_{i:05d}", Body=f"{i}\n".encode()),
                      range(1_050)))
    run(conn, "create table many (n int)")
    run(conn, f"copy many from 's3://{BUCKET}/many/part_' iam_role default")
    assert run(conn, "select count(*), count(distinct n), sum(n) from many") == [(1050, 1050, sum(range(1050)))]
    assert run(conn, "select count(*) from stl_load_commits where query = pg_last_copy_id()") == [(1050,)]


def test_a_missing_mandatory_manifest_entry_commits_nothing(moto, conn):
    put(moto, "man/a.txt", b"1\n2\n")
    put(moto, "man/good.manifest", json.dumps({"entries": [
        {"url": f"s3://{BUCKET}/man/a.txt", "mandatory": True},
        {"url": f"s3://{BUCKET}/man/absent.txt", "mandatory": False}]}).encode())
    put(moto, "man/bad.manifest", json.dumps({"entries": [
        {"url": f"s3://{BUCKET}/man/a.txt", "mandatory": True},
        {"url": f"s3://{BUCKET}/man/absent.txt", "mandatory": True}]}).encode())
    run(conn, "create table man (n int)")
    run(conn, f"copy man from 's3://{BUCKET}/man/good.manifest' iam_role default manifest")
    assert run(conn, "select count(*) from man") == [(2,)]
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"copy man from 's3://{BUCKET}/man/bad.manifest' iam_role default manifest")
    assert f"mandatory file 's3://{BUCKET}/man/absent.txt' not found" in str(e.value)
    assert run(conn, "select count(*) from man") == [(2,)]


def test_a_bad_row_in_one_object_fails_the_copy_whole(moto, conn):
    put(moto, "bad/part_0", "".join(f"{i}\n" for i in range(1000)).encode())
    put(moto, "bad/part_1", b"1000\n1001\nnot a number\n1003\n")
    run(conn, "create table bad (n int)")
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"copy bad from 's3://{BUCKET}/bad/' iam_role default")
    assert "Check 'stl_load_errors'" in str(e.value)
    assert run(conn, "select count(*) from bad") == [(0,)]
    assert run(conn, "select trim(filename), line_number, trim(raw_field_value) from stl_load_errors "
                     "where query = pg_last_copy_id()") == [(f"s3://{BUCKET}/bad/part_1", 3, "not a number")]


def test_s3s_errors_in_redshifts_words(conn):
    with pytest.raises(psycopg2.Error) as e:
        run(conn, "copy bad from 's3://no-such-bucket-here/x' iam_role default")
    assert "S3ServiceException:The specified bucket does not exist,Status 404,Error NoSuchBucket" in str(e.value)
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"copy bad from 's3://{BUCKET}/nothing/under/here' iam_role default")
    assert "The specified S3 prefix 'nothing/under/here' does not exist" in str(e.value)


def test_who_may_use_which_keys(moto, server, conn):
    put(moto, "users/rows.txt", b"7\n8\n")
    run(conn, "create table loads (n int)")
    run(conn, "create user loader password 'L0ader-pass'")
    run(conn, "grant insert, select on loads to loader")
    alice = connect(server, "loader", "L0ader-pass")
    src = f"s3://{BUCKET}/users/rows.txt"

    def refused(sql, words):
        with pytest.raises(psycopg2.Error) as e:
            run(alice, sql)
        assert e.value.pgcode == "42501", str(e.value)
        assert words in str(e.value)

    # The server's own keys are a superuser's: no role the map does not name, no bare COPY.
    refused(f"copy loads from '{src}' iam_role '{ROLE}'", "only a superuser may use a role the role map does not name")
    refused(f"copy loads from '{src}' iam_role default", "only a superuser")
    refused(f"copy loads from '{src}'", "must give IAM_ROLE or CREDENTIALS")
    # Keys of one's own are one's own.
    run(alice, f"copy loads from '{src}' credentials 'aws_access_key_id={KEY_ID};aws_secret_access_key={SECRET}'")
    run(alice, f"copy loads from '{src}' access_key_id '{KEY_ID}' secret_access_key '{SECRET}'")
    # The role map names who may assume a role.
    roles = server.data_dir / "iam_roles.json"
    roles.write_text(json.dumps({ROLE: {"access_key_id": KEY_ID, "secret_access_key": SECRET, "users": ["loader"]},
                                 "arn:aws:iam::123456789012:role/admin": {"access_key_id": KEY_ID,
                                                                          "secret_access_key": SECRET}}))
    try:
        run(alice, f"copy loads from '{src}' iam_role '{ROLE}'")
        refused(f"copy loads from '{src}' iam_role 'arn:aws:iam::123456789012:role/admin'",
                "the role map does not list the user")
        run(conn, f"copy loads from '{src}' iam_role 'arn:aws:iam::123456789012:role/admin'")
    finally:
        roles.unlink()
    assert run(conn, "select count(*) from loads") == [(8,)]
    # The keys never reach the statement log.
    texts = [t for (t,) in run(conn, "select querytxt from stl_query where querytxt ilike '%copy loads%'")]
    assert texts and all(SECRET not in t and KEY_ID not in t for t in texts), texts
    alice.close()
