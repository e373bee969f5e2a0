# SPDX-License-Identifier: Apache-2.0
"""`slicehouse bench tpch --from-disk`, `--scale-from` and `--scale-db`, run as a user runs them.

--from-disk runs every query run in a fresh `slicehouse bench tpch-query` process over the
loaded data directory; a kept --db directory is used again by a later --from-disk run
without loading. --scale-from prints how each query's time grew from a smaller scale;
--scale-db measures that growth from runs alternating with a smaller scale's database.
"""
import json
import os
import subprocess

BIN = os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse")


def bench(tmp_path, *args):
    env = dict(os.environ, HOME=str(tmp_path / "home"))
    done = subprocess.run([BIN, "bench", "tpch", "--data", str(tmp_path / "data"), *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_from_disk_reuses_a_loaded_directory_and_reports_growth(tmp_path):
    db = tmp_path / "db"
    first = tmp_path / "sf001.json"
    out = bench(tmp_path, "--sf", "0.01", "--from-disk", "--runs", "1", "--db", str(db),
                "--queries", "1,6,13,18", "--output", str(first))
    assert "each run a fresh Slicehouse process reading the data directory" in out
    assert "answers: 4 of 4 passed against reference answers sf0.01" in out
    report = json.load(open(first))
    assert report["fromDisk"] is True
    queries = {q["number"]: q for q in report["slicehouse"]["queries"]}
    assert sorted(queries) == [1, 6, 13, 18]
    assert all(q["check"]["status"] == "pass" and len(q["seconds"]) == 1 for q in queries.values())
    assert queries[13]["rows"] == 33
    # Each run's memory is its own process's (well under what a load holds), never 0.
    assert all(0 < q["peakRSSBytes"] < 1 << 30 for q in queries.values())
    assert report["slicehouse"]["load"]["tables"][-1]["rows"] == 60175
    assert os.path.exists(db / "bench-tpch.json")

    # Again over the same directory: no load, the earlier load's figures.
    again = bench(tmp_path, "--sf", "0.01", "--from-disk", "--runs", "2", "--db", str(db), "--queries", "18")
    assert "loaded by an earlier run" in again
    assert "answers: 1 of 1 passed" in again

    # Without --from-disk a non-empty --db is refused, as before.
    env = dict(os.environ, HOME=str(tmp_path / "home"))
    refused = subprocess.run([BIN, "bench", "tpch", "--sf", "0.01", "--data", str(tmp_path / "data"),
                              "--db", str(db)], env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "is not empty" in refused.stderr

    # --scale-from wants a smaller scale factor's report.
    bigger = tmp_path / "sf10.json"
    bigger.write_text(json.dumps(dict(report, scaleFactor=10)))
    refused = subprocess.run([BIN, "bench", "tpch", "--sf", "0.01", "--data", str(tmp_path / "data"),
                              "--scale-from", str(bigger)], env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0
    assert "must be a TPC-H report at a scale factor below 0.01 (it is TPC-H SF 10)" in refused.stderr

    # SF 0.1 in the loading process, with the growth from SF 0.01.
    db01 = tmp_path / "db01"
    grown = bench(tmp_path, "--sf", "0.1", "--runs", "1", "--queries", "1,6", "--scale-from", str(first),
                  "--db", str(db01))
    lines = grown.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("scaling SF 0.01 → SF 0.1 (the work grows 10.00×"))
    assert lines[header + 1].split() == ["query", "SF", "0.01", "SF", "0.1", "growth"]
    assert [l.split()[0] for l in lines[header + 2:header + 5]] == ["Q01", "Q06", "total"]
    assert "answers: 2 of 2 passed" in grown

    # --scale-db: SF 0.1 from disk, each run alternating with one over the SF 0.01 database.
    out = tmp_path / "interleaved.json"
    grown = bench(tmp_path, "--sf", "0.1", "--from-disk", "--runs", "2", "--queries", "1,6", "--db", str(db01),
                  "--scale-db", str(db), "--output", str(out))
    lines = grown.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("scaling SF 0.01 → SF 0.1 (the work grows 10.00×"))
    assert "runs alternating with these over " + str(db) in lines[header]
    assert lines[header + 1].split() == ["query", "SF", "0.01", "SF", "0.1", "growth", "run", "pairs", "CPU", "growth"]
    assert [l.split()[0] for l in lines[header + 2:header + 5]] == ["Q01", "Q06", "total"]
    assert "answers: 2 of 2 passed" in grown
    scaling = json.load(open(out))["scaling"]
    assert scaling["interleaved"] is True and scaling["fromScaleFactor"] == 0.01
    for q in scaling["queries"]:
        assert 0 < q["lowestPairGrowth"] <= q["highestPairGrowth"]
        assert q["toSeconds"] > 0 and q["fromSeconds"] > 0
        assert q["cpuGrowth"] > 0

    # Both ways at once, or the larger database as the smaller: refused.
    for args, message in ((["--scale-from", str(first)], "give one"),
                          ([], "must be a scale factor below 0.01")):
        refused = subprocess.run([BIN, "bench", "tpch", "--sf", "0.01", "--data", str(tmp_path / "data"), "--from-disk",
                                  "--db", str(db), "--scale-db", str(db01), *args],
                                 env=env, capture_output=True, text=True, timeout=120)
        assert refused.returncode != 0 and message in refused.stderr, refused.stderr


def test_the_child_reports_a_missing_directory_as_json(tmp_path):
    done = subprocess.run([BIN, "bench", "tpch-query", "--db", str(tmp_path / "nothing"), "--query", "1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    run = json.loads(done.stdout.strip().splitlines()[-1])
    assert run["error"]

