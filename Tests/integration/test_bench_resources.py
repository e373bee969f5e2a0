# SPDX-License-Identifier: Apache-2.0
"""The bench reads its schemas, queries and answers from the resource directory SwiftPM
writes beside the binary (Slicehouse_SlicehouseBench.resources). A binary copied away
from it still runs SQL, and its bench fails with a message that says what is missing and
what to do — it does not stop the process as SwiftPM's own accessor would.
"""
import os
import shutil
import subprocess

BIN = os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_binary_without_its_resources(tmp_path):
    binary = tmp_path / "bin" / "slicehouse"
    binary.parent.mkdir()
    shutil.copy(BIN, binary)
    env = dict(os.environ, HOME=str(tmp_path / "home"))
    env.pop("SLICEHOUSE_BENCH_RESOURCES", None)

    sql = subprocess.run([str(binary), "-c", "select 40 + 2"], env=env, capture_output=True, text=True, timeout=60)
    assert sql.returncode == 0, sql.stderr
    assert "42" in sql.stdout

    bench = subprocess.run([str(binary), "bench", "tpch", "--sf", "0.01", "--runs", "1", "--queries", "1",
                            "--data", str(tmp_path / "data")],
                           env=env, capture_output=True, text=True, timeout=120)
    out = bench.stdout + bench.stderr
    assert bench.returncode == 1, out
    assert "Slicehouse_SlicehouseBench.resources is missing" in out, out
    assert "SLICEHOUSE_BENCH_RESOURCES" in out, out
    assert "Fatal error" not in out
    assert not (tmp_path / "data").exists(), "the bench generated data before finding its texts missing"

    # Named by the environment variable, the checkout's directory serves.
    env["SLICEHOUSE_BENCH_RESOURCES"] = os.path.join(ROOT, "Sources", "SlicehouseBench")
    query = subprocess.run([str(binary), "bench", "tpch-query", "--query", "6", "--db", str(tmp_path / "nothing")],
                           env=env, capture_output=True, text=True, timeout=60)
    assert "not installed" not in query.stdout + query.stderr, query.stdout + query.stderr
