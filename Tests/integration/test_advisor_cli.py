# SPDX-License-Identifier: Apache-2.0
"""`slicehouse advise` as a user runs it: queries run by earlier `slicehouse -c` processes
are in the data directory's query log; the advisor reads them, prints its advice with
the ALTER TABLE statements, and `--apply` runs them.
"""
import os
import subprocess

from server_support import BIN


def run(*argv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
    done = subprocess.run([BIN, *argv], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_advise_reads_the_log_of_earlier_processes_and_applies_its_advice(tmp_path):
    data = str(tmp_path / "db")
    run("-D", data, "-c", "create table fact (id int, cust int, day int, amount int) diststyle even",
        "-c", "create table cust (cust int, region varchar(10)) diststyle even",
        "-c", "insert into cust select n, 'r' || (n % 5) from generate_series(1, 3000) n",
        "-c", "insert into fact select n, (n * 7) % 3000 + 1, n % 300, n % 100 from generate_series(1, 30000) n",
        "-c", "analyze")
    workload = ["select c.region, sum(f.amount) from fact f join cust c on f.cust = c.cust group by c.region",
                "select count(*) from fact f join cust c on f.cust = c.cust where f.day between 3 and 5"]
    for q in workload:
        run("-D", data, "-c", q)
    out = run("advise", "-D", data)
    assert "2 distinct queries replayed" in out
    assert "ALTER TABLE fact ALTER DISTKEY cust;" in out
    assert "ALTER TABLE cust ALTER DISTKEY cust;" in out
    assert "Predicted effect per query" in out
    # Nothing changed yet; --apply changes the tables.
    keys = "select trim(tablename), trim(\"column\") from pg_table_def where distkey order by 1"
    assert run("-D", data, "-A", "-t", "-c", keys).split() == []
    out = run("advise", "-D", data, "--apply")
    assert "Applying:" in out and "Done." in out
    assert run("-D", data, "-A", "-t", "-c", keys).split() == ["cust|cust", "fact|cust"]
    # The answers are the same under the new keys.
    assert run("-D", data, "-A", "-t", "-c", workload[1]).strip() == "300"
