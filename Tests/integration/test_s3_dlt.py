# SPDX-License-Identifier: Apache-2.0
"""dlt's Redshift destination with S3 staging loads a small pipeline into `slicehouse
serve` end to end: dlt writes its files (JSON lines, Parquet) to the local S3 server,
then COPYs them with its own statements (CREDENTIALS, FORMAT AS JSON 'auto' GZIP,
PARQUET … MAXERROR 0), creates its tables and merges a second run.
dlt runs in a venv of its own (scripts/setup-system.sh makes it)."""
import os
import subprocess

import pytest

from server_support import CI, PASSWORD, USER, Server, connect, run
from s3_support import KEY_ID, SECRET, Moto

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.environ.get("SLICEHOUSE_DLT_VENV", os.path.expanduser("~/.cache/slicehouse/dlt-venv"))
BUCKET = "dlt-staging"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    python = os.path.join(VENV, "bin", "python")
    if subprocess.run([python, "-c", "import dlt, s3fs, pyarrow"], capture_output=True).returncode != 0:
        if CI:
            raise RuntimeError(f"dlt is not installed in {VENV} (scripts/setup-system.sh installs it)")
        pytest.skip(f"dlt is not installed in {VENV}")
    moto = Moto()
    moto.client().create_bucket(Bucket=BUCKET)
    server = Server(tmp_path_factory.mktemp("data"), env_extra=moto.env())
    yield python, moto, server, tmp_path_factory.mktemp("pipelines")
    server.stop()
    moto.stop()


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_dlt_pipeline_with_s3_staging(setup, fmt):
    python, moto, server, pipelines = setup
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DESTINATION__", "SLICEHOUSE_"))}
    env.update({
        "PIPELINES_DIR": str(pipelines),
        "DESTINATION__REDSHIFT__CREDENTIALS": f"postgresql://{USER}:{PASSWORD}@{server.host}:{server.port}/dev",
        "DESTINATION__FILESYSTEM__BUCKET_URL": f"s3://{BUCKET}/stage",
        "DESTINATION__FILESYSTEM__CREDENTIALS__AWS_ACCESS_KEY_ID": KEY_ID,
        "DESTINATION__FILESYSTEM__CREDENTIALS__AWS_SECRET_ACCESS_KEY": SECRET,
        "DESTINATION__FILESYSTEM__CREDENTIALS__ENDPOINT_URL": moto.url,
        "DESTINATION__FILESYSTEM__CREDENTIALS__REGION_NAME": "us-east-1",
        "RUNTIME__LOG_LEVEL": "WARNING",
    })
    r = subprocess.run([python, os.path.join(HERE, "dlt", "pipeline.py"), fmt], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "contains no failed jobs" in r.stdout, r.stdout
    conn = connect(server)
    ds = f"dlt_{fmt}"
    assert run(conn, f"select count(*), sum(id), sum(amount) from {ds}.events") == [(1000, 499500, 249750)]
    assert run(conn, f"select kind, count(*) from {ds}.events group by kind order by kind") == [("click", 500), ("view", 500)]
    assert run(conn, f"select attrs__x, attrs__tag from {ds}.events where id = 7") == [(7, "t1")]
    assert run(conn, f"select count(*), min(version), max(version) from {ds}.users") == [(20, 2, 2)]
    # dlt's own bookkeeping tables, loaded the same way.
    assert run(conn, f"select count(*) from {ds}._dlt_loads where status = 0") == [(2,)]
    copies = [t for (t,) in run(conn, "select querytxt from stl_query where querytxt ilike '%copy%' "
                                      f"and querytxt ilike '%{ds}%'")]
    assert copies and all("s3://" in t and SECRET not in t for t in copies), copies
    conn.close()
