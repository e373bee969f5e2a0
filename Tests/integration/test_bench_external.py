# SPDX-License-Identifier: Apache-2.0
"""`slicehouse bench tpch --external`, run as a user runs it against a local S3 and Glue
(moto): the tables are written once as Hive-partitioned Parquet under the prefix,
registered as external tables, and the queries answer right from them; a second run
finds the objects there and does not write them again."""
import json
import os
import subprocess

from s3_support import KEY_ID, SECRET, Moto

BIN = os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse")


def bench(tmp_path, moto, *args):
    env = dict(os.environ, HOME=str(tmp_path / "home"), AWS_ENDPOINT_URL=moto.url, AWS_ACCESS_KEY_ID=KEY_ID,
               AWS_SECRET_ACCESS_KEY=SECRET, AWS_REGION="us-east-1")
    done = subprocess.run([BIN, "bench", "tpch", "--data", str(tmp_path / "data"), "--sf", "0.01", "--external",
                           "--external-location", "s3://bench-lake/tpch/", "--runs", "1", *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_external_tables_answer_and_the_objects_are_written_once(tmp_path):
    moto = Moto()
    try:
        report = tmp_path / "report.json"
        out = bench(tmp_path, moto, "--queries", "1,3,6,12", "--output", str(report))
        assert "answers: 4 of 4 passed against reference answers sf0.01" in out, out
        assert "written under s3://bench-lake/tpch/ as Parquet" in out, out
        assert json.load(open(report))["external"] == "s3://bench-lake/tpch/"
        keys = [o["Key"] for o in moto.client().list_objects_v2(Bucket="bench-lake", Prefix="tpch/lineitem/",
                                                               MaxKeys=1000)["Contents"]]
        # lineitem by month: Hive folders of Parquet files.
        assert any("/l_shipmonth=1995-03/" in k and k.endswith(".parquet") for k in keys), keys[:5]
        out = bench(tmp_path, moto, "--queries", "14")
        assert "answers: 1 of 1 passed" in out and "written under" not in out, out
    finally:
        moto.stop()
