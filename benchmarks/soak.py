#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Concurrent small writes over the server, for a while: what fails and what memory
stays behind (issue 80).

    python3 benchmarks/soak.py --bin .build/release/slicehouse [--bin OTHER] \
        [--clients 8] [--rows 200000] [--seconds 45]

Each `--bin` in turn starts `slicehouse serve` on a new data directory, loads a table of
ROWS rows, and runs CLIENTS autocommit clients for SECONDS: 10% single-row INSERTs, 2%
single-row DELETEs of a random key, the rest small aggregates over one group. Reported
per binary: statements run and failed by kind (a `1023` serializable isolation
violation counted apart), the table's rows checked against what was committed, the
server's RSS at the end and its peak (VmRSS, VmHWM from /proc), the data directory's
size, and — where the binary has it — STV_BLOCK_CACHE's bytes and blocks. Prints a
Markdown table (benchmarks/README.md keeps the figures).
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import tempfile
import threading
import time

import psycopg2

PASSWORD = "soak-bench"


def start(binary, directory):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
    env["SLICEHOUSE_PASSWORD"] = PASSWORD
    proc = subprocess.Popen([binary, "serve", "-D", directory, "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on [0-9.]+:(\d+)", line)
    if not m:
        raise SystemExit(f"{binary}: server did not start: {line}")
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, int(m.group(1))


def connect(port):
    c = psycopg2.connect(host="127.0.0.1", port=port, user="awsuser", password=PASSWORD, dbname="dev")
    c.autocommit = True
    return c


def status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def directory_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def soak(binary, clients, rows, seconds):
    work = tempfile.mkdtemp(prefix="slicehouse-soak-")
    proc, port = start(binary, os.path.join(work, "db"))
    try:
        conn = connect(port)
        cur = conn.cursor()
        cur.execute("create table mix (id bigint, grp int, amount decimal(12,2), note varchar(40)) "
                    "distkey(id) sortkey(id)")
        for start_row in range(1, rows + 1, 5000):
            values = ",".join(f"({n}, {n % 50}, {(n % 1000) / 10.0}, 'row {n % 97}')"
                              for n in range(start_row, min(rows, start_row + 4999) + 1))
            cur.execute(f"insert into mix values {values}")
        counts = {"insert": 0, "delete": 0, "select": 0}
        failed = {"insert": 0, "delete": 0, "select": 0}
        conflicts = [0]
        inserted, deleted = [0], [0]
        lock = threading.Lock()
        stop = time.time() + seconds

        def client(k):
            rng = random.Random(k)
            c = connect(port)
            cu = c.cursor()
            n = 0
            while time.time() < stop:
                r = rng.random()
                kind = "insert" if r < 0.10 else "delete" if r < 0.12 else "select"
                try:
                    if kind == "insert":
                        cu.execute("insert into mix values (%s, %s, 1.5, 'new')", (10_000_000 + k * 1_000_000 + n, k))
                        n += 1
                        with lock:
                            inserted[0] += 1
                    elif kind == "delete":
                        cu.execute("delete from mix where id = %s", (rng.randrange(1, rows + 1),))
                        with lock:
                            deleted[0] += cu.rowcount
                    else:
                        cu.execute("select grp, sum(amount), count(*) from mix where grp = %s group by grp",
                                   (rng.randrange(50),))
                        cu.fetchall()
                    with lock:
                        counts[kind] += 1
                except psycopg2.Error as e:
                    with lock:
                        failed[kind] += 1
                        if e.pgcode == "40001":
                            conflicts[0] += 1
            c.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        cur.execute("select count(*) from mix")
        live = cur.fetchone()[0]
        cache = None
        try:
            cur.execute("select used_bytes, blocks, retired_blocks, data_bytes from stv_block_cache where cache = 'blocks'")
            cache = cur.fetchone()
        except psycopg2.Error:
            pass
        rss, hwm = status(proc.pid, "VmRSS"), status(proc.pid, "VmHWM")
        conn.close()
        return {
            "binary": binary, "counts": counts, "failed": failed, "conflicts": conflicts[0],
            "rows ok": live == rows + inserted[0] - deleted[0], "rss": rss, "hwm": hwm,
            "disk": directory_bytes(os.path.join(work, "db")), "cache": cache,
        }
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(work, ignore_errors=True)


def mb(n):
    return f"{n / 1048576:,.1f} MB"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", action="append", required=True, help="a slicehouse binary (repeat to compare)")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--seconds", type=float, default=45)
    a = p.parse_args()
    results = [soak(b, a.clients, a.rows, a.seconds) for b in a.bin]
    print(f"\n{a.clients} clients, {a.rows:,} rows, {a.seconds:g} s: 10% INSERT, 2% DELETE, 88% small aggregates\n")
    print("| binary | INSERTs (failed) | DELETEs (failed) | aggregates (failed) | 1023s | rows right | "
          "RSS at end | peak RSS | data directory | block cache (blocks, retired) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        c, f = r["counts"], r["failed"]
        cache = "n/a" if r["cache"] is None else f"{mb(r['cache'][0])} ({r['cache'][1]:,}, {r['cache'][2]:,})"
        print(f"| {r['binary']} | {c['insert']:,} ({f['insert']:,}) | {c['delete']:,} ({f['delete']:,}) | "
              f"{c['select']:,} ({f['select']:,}) | {r['conflicts']:,} | {'yes' if r['rows ok'] else 'NO'} | "
              f"{mb(r['rss'])} | {mb(r['hwm'])} | {mb(r['disk'])} | {cache} |")


if __name__ == "__main__":
    main()
