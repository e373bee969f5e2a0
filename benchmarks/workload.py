#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A mixed workload over the wire: many clients, long TPC-H queries and short point
lookups at once, under several WLM layouts.

    python3 benchmarks/workload.py --bin .build/release/slicehouse --sf 1 \
        --clients 32 --long-clients 8 --seconds 60

For each layout (see LAYOUTS) it starts `slicehouse serve` on a copy-free data
directory holding TPC-H at the scale factor (loaded once with `slicehouse bench tpch
--db`), runs the clients for the given time, and reports the short lookups' latency
(p50 / p95 / p99, ms) and the long queries' throughput (completed per minute). Prints a
Markdown table (benchmarks/README.md keeps the figures).

The long clients loop over TPC-H Q1, Q3, Q9, Q13, Q18 and Q21; the short clients look
up one order or one customer by its key (a single block on the sort key).

Closed loop (the default): CLIENTS - LONG_CLIENTS short clients issue lookups back to
back, so the lookups' rate is whatever the server answers, and a faster answer brings
the next lookup sooner. Open loop (`--rates 20,100,500`): lookups arrive at a fixed rate
per second (evenly spaced), whatever the server does, beside LONG_CLIENTS long clients;
a pool of `--short-connections` connections serves them, and a lookup's latency is
counted from when it was due, so time spent waiting for a free connection counts too
(no coordinated omission). Each rate runs under each layout; the table then shows the
rate asked and the rate achieved.
"""
import queue
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psycopg2

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PASSWORD = "workload-bench"
LONG_QUERIES = [1, 3, 9, 13, 18, 21]

# Queue layouts, as wlm_json_configuration documents. The long clients set
# query_group 'long'; the short clients 'short'.
LAYOUTS = {
    "default queue, no SQA": [
        {"query_concurrency": 5},
    ],
    "default queue + SQA": [
        {"query_concurrency": 5},
        {"short_query_queue": True},
    ],
    "two queues (long 3 slots, short 10 slots), no SQA": [
        {"query_group": ["long"], "query_concurrency": 3, "memory_percent_to_use": 70},
        {"query_group": ["short"], "query_concurrency": 10, "memory_percent_to_use": 20},
        {"query_concurrency": 5},
    ],
    "two queues + SQA": [
        {"query_group": ["long"], "query_concurrency": 3, "memory_percent_to_use": 70},
        {"query_group": ["short"], "query_concurrency": 10, "memory_percent_to_use": 20},
        {"query_concurrency": 5},
        {"short_query_queue": True},
    ],
}


def query_text(n):
    for name in (f"q{n:02d}.sql", f"Q{n:02d}.sql"):
        path = os.path.join(ROOT, "datasets", "tpch", "queries", name)
        if os.path.exists(path):
            with open(path) as f:
                return f.read().strip().rstrip(";")
    raise SystemExit(f"no text for TPC-H Q{n}")


def prepare(bin_, sf, db):
    if os.path.exists(os.path.join(db, "manifest.json")) or (os.path.isdir(db) and os.listdir(db)):
        return
    print(f"loading TPC-H SF {sf} into {db} ...", file=sys.stderr)
    subprocess.run([bin_, "bench", "tpch", "--sf", str(sf), "--queries", "6", "--runs", "1", "--db", db],
                   check=True, stdout=subprocess.DEVNULL)


class Server:
    def __init__(self, bin_, db, wlm_file):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
        env["SLICEHOUSE_PASSWORD"] = PASSWORD
        self.proc = subprocess.Popen([bin_, "serve", "-D", db, "--port", "0", "--wlm", wlm_file,
                                      "--max-connections", "200"],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"listening on [0-9.]+:(\d+)", line)
        if not m:
            raise SystemExit(f"server did not start: {line}{self.proc.stdout.read()}")
        self.port = int(m.group(1))
        # Drain the server's output so that it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def connect(self):
        c = psycopg2.connect(host="127.0.0.1", port=self.port, user="awsuser", password=PASSWORD, dbname="dev")
        c.autocommit = True
        # Every client repeats its queries: from the result cache they would not run.
        c.cursor().execute("set enable_result_cache_for_session to off")
        return c

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100 * (len(s) - 1)))))
    return s[k]


def run_layout(bin_, db, name, layout, clients, long_clients, seconds, sf, rate=None, short_connections=32):
    work = tempfile.mkdtemp(prefix="workload-")
    wlm_file = os.path.join(work, "wlm.json")
    with open(wlm_file, "w") as f:
        json.dump(layout, f)
    server = Server(bin_, db, wlm_file)
    long_texts = {n: query_text(n) for n in LONG_QUERIES}
    orders = int(1_500_000 * sf)
    customers = int(150_000 * sf)
    short_latencies, long_done, errors = [], [], []
    lock = threading.Lock()
    stop_at = time.time() + seconds
    shorts = short_connections if rate else clients - long_clients
    start_barrier = threading.Barrier(long_clients + shorts + (1 if rate else 0))
    due = queue.Queue()
    issued, dropped = [0], [0]

    def long_client(i):
        try:
            conn = server.connect()
            cur = conn.cursor()
            cur.execute("set query_group to 'long'")
            k = i
            start_barrier.wait()
            while time.time() < stop_at:
                n = LONG_QUERIES[k % len(LONG_QUERIES)]
                k += 1
                t = time.time()
                cur.execute(long_texts[n])
                cur.fetchall()
                if time.time() <= stop_at:
                    with lock:
                        long_done.append((n, time.time() - t))
            conn.close()
        except Exception as e:  # noqa: BLE001 - reported, not swallowed
            with lock:
                errors.append(f"long client {i}: {e}")

    def next_lookup():
        """When the next lookup was due (None: stop). Open loop: from the queue; lookups
        still waiting 5 s after the end are dropped (the rate was more than the server
        could serve) and counted."""
        if not rate:
            return time.time() if time.time() < stop_at else None
        while True:
            t = due.get()
            if t is None or time.time() <= stop_at + 5:
                return t
            with lock:
                dropped[0] += 1

    def arrivals():
        start_barrier.wait()
        start = time.time()
        k = 0
        while True:
            t = start + k / rate
            if t >= stop_at:
                break
            delay = t - time.time()
            if delay > 0:
                time.sleep(delay)
            due.put(t)
            k += 1
        issued[0] = k
        for _ in range(shorts):
            due.put(None)

    def short_client(i):
        try:
            conn = server.connect()
            cur = conn.cursor()
            cur.execute("set query_group to 'short'")
            rnd = random.Random(i)
            start_barrier.wait()
            while True:
                t = next_lookup()
                if t is None:
                    break
                if rnd.random() < 0.5:
                    cur.execute("select o_orderstatus, o_totalprice from orders where o_orderkey = %s",
                                (rnd.randrange(1, orders // 4) * 4 + 1,))
                else:
                    cur.execute("select c_name, c_acctbal from customer where c_custkey = %s",
                                (rnd.randrange(1, customers),))
                cur.fetchall()
                with lock:
                    short_latencies.append((time.time() - t) * 1000)
            conn.close()
        except Exception as e:  # noqa: BLE001
            with lock:
                errors.append(f"short client {i}: {e}")

    threads = [threading.Thread(target=long_client if i < long_clients else short_client, args=(i,))
               for i in range(long_clients + shorts)]
    if rate:
        threads.append(threading.Thread(target=arrivals))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    server.stop()
    shutil.rmtree(work, ignore_errors=True)
    return {
        "layout": name,
        "rate": rate,
        "achieved": len(short_latencies) / seconds,
        "dropped": dropped[0],
        "short_count": len(short_latencies),
        "p50": percentile(short_latencies, 50),
        "p95": percentile(short_latencies, 95),
        "p99": percentile(short_latencies, 99),
        "long_done": len(long_done),
        "long_per_min": len(long_done) * 60 / seconds,
        "errors": errors,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "slicehouse"))
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--db", help="data directory holding TPC-H (loaded when missing or empty)")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--long-clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--layouts", help="comma-separated layout numbers (1-based) to run; default all")
    ap.add_argument("--json", help="write the results as JSON")
    ap.add_argument("--rates", help="open loop: comma-separated lookup rates per second (e.g. 20,100,500)")
    ap.add_argument("--short-connections", type=int, default=32,
                    help="open loop: connections serving the lookups (default 32)")
    args = ap.parse_args()
    db = args.db or os.path.expanduser(f"~/.slicehouse/bench/workload-sf{args.sf:g}")
    prepare(args.bin, args.sf, db)
    names = list(LAYOUTS)
    if args.layouts:
        names = [names[int(x) - 1] for x in args.layouts.split(",")]
    results = []
    rates = [float(x) for x in args.rates.split(",")] if args.rates else [None]
    for rate in rates:
        for name in names:
            what = f"{rate:g} lookups/s open loop" if rate else f"{args.clients} clients"
            print(f"running: {name} ({what}, {args.long_clients} long, {args.seconds:g} s)", file=sys.stderr)
            r = run_layout(args.bin, db, name, LAYOUTS[name], args.clients, args.long_clients, args.seconds, args.sf,
                           rate=rate, short_connections=args.short_connections)
            for e in r["errors"][:5]:
                print("  error:", e, file=sys.stderr)
            results.append(r)
    if args.rates:
        print(f"| lookups/s asked | served/s | dropped | layout | p50 ms | p95 ms | p99 ms | long queries/min |")
        print(f"|---:|---:|---:|---|---:|---:|---:|---:|")
        for r in results:
            print(f"| {r['rate']:g} | {r['achieved']:.1f} | {r['dropped']} | {r['layout']} | {r['p50']:.1f} | "
                  f"{r['p95']:.1f} | {r['p99']:.1f} | {r['long_per_min']:.1f} |")
    else:
        print(f"| layout | short lookups | p50 ms | p95 ms | p99 ms | long queries/min |")
        print(f"|---|---:|---:|---:|---:|---:|")
        for r in results:
            print(f"| {r['layout']} | {r['short_count']} | {r['p50']:.1f} | {r['p95']:.1f} | {r['p99']:.1f} | "
                  f"{r['long_per_min']:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    if any(r["errors"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
