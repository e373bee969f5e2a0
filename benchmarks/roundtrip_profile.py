#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a short statement's round trip spends the server's CPU: starts `slicehouse serve`,
drives it with pgbench (`select 1` by default, 16 clients), records the server with
`perf record -e cpu-clock -g` (hardware counters are not available on this VM), and prints
the server's CPU per statement in µs, by thread and by stage — on statement threads, and on
the event loops, which read and decode every message, write every reply and run short
statements (`ShortStatements`: `select 1` once it is short) themselves.

    python3 benchmarks/roundtrip_profile.py --bin BIN [--sql 'select 1;'] [--clients 16]
        [--mode simple|prepared] [--seconds 5]

Stages are found from a sample's stack, the innermost that matches wins:
parse, bind (a Bind message), plan (bind, optimize, physical), execute, the steps' logs
(SVL_QUERY_REPORT, STL_EXPLAIN, STL_SCAN), the statement's log (STL_QUERY, STL_QUERYTEXT),
the transaction, the result on the wire; on an event loop also the socket's write (the
reply's flush, mostly the kernel's), its read and the messages' decoding, and the check
whether a statement is short; "kernel and allocator" is what has no Slicehouse frame (futex
and eventfd wake-ups, scheduling, malloc), and on an event loop "NIO and kernel" what has no
Slicehouse frame or matches none (polling, wake-ups).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

STAGES = [
    ("Describe (bind for the columns)", r"ConnectionWorkerC8describe"),
    ("Bind message", r"ConnectionWorkerC4bind"),
    ("parse", r"SessionC6script|SessionC5parse|ScriptStatements|ParseCache"),
    ("statement log (STL_QUERY, STL_QUERYTEXT)", r"logStatement"),
    ("WLM admission", r"WorkloadAdmission.*beginWorkload|WorkloadAdmission.*workloadSink|WorkloadManager"),
    ("plan cache lookup", r"PlanCache|planCacheKey"),
    ("plan (bind, optimize, physical)", r"QueryRunnerV4plan|QueryRunnerV4bind"),
    ("steps' logs (SVL_QUERY_REPORT, STL_EXPLAIN, STL_SCAN)", r"QueryRunnerV6record"),
    ("execute", r"QueryExecutor|QueryRunnerV7execute"),
    ("result on the wire", r"ConnectionWorkerC4send|WireSink|ConnectionWorkerC8complete|readyForQuery"),
    ("transaction begin / commit", r"runInTransaction|beginTransaction|TransactionC|DataStoreC"),
]
GENERIC = [("other session work", r"Slicehouse")]
# Checked before the statement stages: an event loop's samples inside a reply's flush or a
# read are the socket's, whichever statement they serve.
EVENT_LOOP = [
    ("socket write (the reply's flush)", r"invokeFlush|SocketC5write"),
    ("socket read and message decoding", r"readFromSocket|SocketC4read|decodeLoop|FrontendDecoder"),
    ("short-statement check", r"shortHandling|ShortStatementsV4find|ShortStatementsV9statement"),
]


def classify(frames, event_loop=False):
    if event_loop:
        for f in frames:  # innermost first: the socket's frames lie inside the worker's
            for name, pattern in EVENT_LOOP[:2]:
                if re.search(pattern, f):
                    return name
    groups = (EVENT_LOOP[2:] + STAGES, GENERIC) if event_loop else (STAGES, GENERIC)
    for group in groups:
        hit = None
        for f in reversed(frames):  # root first; keep the innermost match
            for name, pattern in group:
                if re.search(pattern, f):
                    hit = name
                    break
        if hit:
            return hit
    return "NIO and kernel" if event_loop else "kernel and allocator"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--sql", default="select 1;")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--mode", default="simple", choices=["simple", "prepared"])
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--keep", help="copy perf.data here for a closer look (perf report -i)")
    args = ap.parse_args()
    if not shutil.which("perf") or not shutil.which("pgbench"):
        sys.exit("needs perf and pgbench")
    work = tempfile.mkdtemp(prefix="roundtrip-")
    env = dict(os.environ, SLICEHOUSE_PASSWORD="Bench-pass1")
    server = subprocess.Popen([args.bin, "serve", "-D", os.path.join(work, "db"), "--port", "0", "--no-tls",
                               "--max-connections", "200"], env=env, stdout=subprocess.PIPE, text=True)
    port = int(re.search(r":(\d+)", server.stdout.readline()).group(1))
    script = os.path.join(work, "s.sql")
    with open(script, "w") as f:
        f.write(args.sql + "\n")
    penv = dict(os.environ, PGPASSWORD="Bench-pass1")
    bench = subprocess.Popen(["pgbench", "-h", "127.0.0.1", "-p", str(port), "-U", "awsuser", "-n", "-f", script,
                              "-T", str(args.seconds + 4), "-c", str(args.clients), "-j", "2", "-M", args.mode, "dev"],
                             env=penv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(2)
    data = os.path.join(work, "perf.data")
    subprocess.run(["perf", "record", "-F", "2000", "-e", "cpu-clock", "-g", "-p", str(server.pid), "-o", data,
                    "--", "sleep", str(args.seconds)], capture_output=True)
    out = bench.communicate()[0]
    server.terminate()
    server.wait()
    tps = float(re.search(r"tps = ([0-9.]+)", out).group(1))
    text = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym"], capture_output=True, text=True).stdout
    threads, stages, loop_stages = collections.Counter(), collections.Counter(), collections.Counter()
    frames, comm = [], ""

    def flush():
        if not frames:
            return
        kind = "statement" if comm.startswith("slicehouse-stmt") else ("event loop" if comm.startswith("NIO-ELT") else "other")
        threads[kind] += 1
        if kind == "statement":
            stages[classify(frames)] += 1
        elif kind == "event loop":
            loop_stages[classify(frames, event_loop=True)] += 1

    for line in text.splitlines():
        if not line.strip() or line[0] not in " \t":
            flush()
            frames = []
            comm = line.strip()
            continue
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            frames.append(parts[1])
    flush()
    per_sample = 1e6 / 2000 / (tps * args.seconds)   # µs of CPU per statement a sample stands for
    total = sum(threads.values())
    print(f"{args.sql!r}, {args.mode}, {args.clients} clients: {tps:,.0f} tps, "
          f"{total * per_sample:.1f} µs of server CPU per statement")
    for k, v in threads.most_common():
        print(f"  {v * per_sample:6.1f} µs  {k} threads")
    for title, counter in (("event loop threads", loop_stages), ("statement threads", stages)):
        if counter:
            print(f"  {title} by stage:")
            for k, v in counter.most_common():
                print(f"  {v * per_sample:6.1f} µs    {k}")
    if args.keep:
        shutil.copy(data, args.keep)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
