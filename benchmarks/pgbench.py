#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Round trips through the wire protocol: pgbench against `slicehouse serve` and
PostgreSQL 15 on loopback, in the same run.

    swift build -c release --product slicehouse
    python3 benchmarks/pgbench.py [--seconds 10] [--bin .build/release/slicehouse]

Measures, for each server, transactions per second of
  * `select 1` at 1, 16 and 64 clients (simple protocol, and prepared statements);
  * a point query (`select balance from accounts where id = :id`, random id) on a
    1,000-row table at 1, 16 and 64 clients;
then single-row autocommit INSERTs into one table at 1, 8 and 16 clients (each commit
durable when answered; concurrent commits share a log sync: group commit), outside the
12 cells; and then runs 64 Slicehouse clients on TPC-H queries (SF 0.01, the project's own
generator) for a bounded time, reporting the queries done and requiring zero errors.
PostgreSQL runs as the `postgres` user from /usr/lib/postgresql/15/bin (initdb into a
temporary directory, trust on a loopback port); pgbench comes from postgresql-client.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PG_BIN = "/usr/lib/postgresql/15/bin"
PASSWORD = "Bench-pass1"
CLIENTS = [1, 16, 64]
INSERT_CLIENTS = [1, 8, 16]
TPCH_QUERIES = [1, 3, 5, 6, 10, 12, 14, 19]


def run(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


class Slicehouse:
    name = "Slicehouse"

    def __init__(self, binary, work):
        self.dir = os.path.join(work, "slicehouse")
        env = dict(os.environ, SLICEHOUSE_PASSWORD=PASSWORD)
        # --no-tls: PostgreSQL here runs without ssl, so both answer pgbench in plain text.
        self.proc = subprocess.Popen([binary, "serve", "-D", self.dir, "--port", "0", "--max-connections", "200",
                                      "--no-tls"],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"listening on [0-9.]+:(\d+)", line)
        if not m:
            raise SystemExit(f"slicehouse serve did not start: {line}")
        self.port = int(m.group(1))
        self.user, self.db = "awsuser", "dev"
        self.env = dict(os.environ, PGPASSWORD=PASSWORD)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


class Postgres:
    name = "PostgreSQL 15"

    def __init__(self, work, port=54329):
        self.dir = os.path.join(work, "pg")
        os.makedirs(self.dir)
        shutil.chown(self.dir, "postgres")
        self.sock = os.path.join(work, "pgsock")
        os.makedirs(self.sock)
        shutil.chown(self.sock, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
        run(as_pg + [f"{PG_BIN}/initdb", "-D", self.dir, "-A", "trust", "-U", "postgres"])
        run(as_pg + [f"{PG_BIN}/pg_ctl", "-D", self.dir, "-l", os.path.join(self.dir, "log"), "-w", "start",
                     "-o", f"-p {port} -k {self.sock} -c listen_addresses=127.0.0.1 -c max_connections=200"])
        self.port, self.user, self.db = port, "postgres", "postgres"
        self.env = dict(os.environ)

    def stop(self):
        run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_ctl", "-D", self.dir, "-m", "fast", "stop"])


def psql(server, sql):
    return run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(server.port),
                "-U", server.user, "-d", server.db, "-c", sql], env=server.env).stdout


def pgbench(server, scripts, clients, seconds, mode="simple"):
    argv = ["pgbench", "-n", "-h", "127.0.0.1", "-p", str(server.port), "-U", server.user, "-c", str(clients),
            "-j", str(min(clients, 4)), "-T", str(seconds), "-M", mode]
    for s in scripts:
        argv += ["-f", s]
    argv.append(server.db)
    p = subprocess.run(argv, capture_output=True, text=True, env=server.env)
    out = p.stdout + p.stderr
    tps = re.search(r"tps = ([0-9.]+)", out)
    done = re.search(r"number of transactions actually processed: (\d+)", out)
    failed = re.search(r"number of failed transactions: (\d+)", out)
    errors = len(re.findall(r"(?m)^.*(error|ERROR|aborted).*$", p.stderr))
    return {"tps": float(tps.group(1)) if tps else 0.0, "done": int(done.group(1)) if done else 0,
            "failed": int(failed.group(1)) if failed else 0, "errors": errors + (p.returncode != 0),
            "output": out}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/slicehouse"))
    ap.add_argument("--seconds", type=int, default=10, help="each pgbench run's length")
    ap.add_argument("--tpch-seconds", type=int, default=30)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pgbench-")
    os.chmod(work, 0o755)
    scripts = {}
    for name, text in [("select1", "select 1;\n"),
                       ("point", "\\set id random(1, 1000)\nselect balance from accounts where id = :id;\n"),
                       ("insert", "\\set id random(1, 1000000)\ninsert into events values (:id, :client_id);\n")]:
        path = os.path.join(work, f"{name}.sql")
        with open(path, "w") as f:
            f.write(text)
        scripts[name] = path
    servers = []
    try:
        servers = [Slicehouse(args.bin, work), Postgres(work)]
        for s in servers:
            psql(s, "create table accounts (id int, balance int)")
            psql(s, "create table events (id int, client int)")
            psql(s, "insert into accounts select g, g * 10 from generate_series(1, 1000) g"
                 if isinstance(s, Postgres) else
                 "insert into accounts values " + ", ".join(f"({i}, {i * 10})" for i in range(1, 1001)))
        results = {}
        for workload, mode in [("select1", "simple"), ("select1", "prepared"), ("point", "simple"), ("point", "prepared")]:
            for c in CLIENTS:
                for s in servers:
                    r = pgbench(s, [scripts[workload]], c, args.seconds, mode)
                    results[(workload, mode, c, s.name)] = r
                    print(f"{workload:8} {mode:8} {c:3} clients  {s.name:14} {r['tps']:10.0f} tps"
                          f"  failed {r['failed']} errors {r['errors']}", flush=True)
        for c in INSERT_CLIENTS:
            for s in servers:
                r = pgbench(s, [scripts["insert"]], c, args.seconds)
                results[("insert", "simple", c, s.name)] = r
                print(f"insert   simple   {c:3} clients  {s.name:14} {r['tps']:10.0f} tps"
                      f"  failed {r['failed']} errors {r['errors']}", flush=True)
        # 64 clients on TPC-H queries (Slicehouse only: PostgreSQL has no TPC-H data here).
        sh = servers[0]
        tpch = os.path.join(work, "tpch")
        run([args.bin, "datagen", "tpch", "--sf", "0.01", "--output", tpch])
        schema = open(os.path.join(ROOT, "datasets/tpch/schema.sql")).read()
        psql(sh, schema)
        for t in ["nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]:
            psql(sh, f"copy {t} from '{tpch}/{t}.tbl' delimiter '|'")
        qfiles = []
        for q in TPCH_QUERIES:
            text = open(os.path.join(ROOT, f"datasets/tpch/queries/q{q:02d}.sql")).read().strip().rstrip(";")
            path = os.path.join(work, f"q{q:02d}.sql")
            with open(path, "w") as f:
                f.write(" ".join(text.split()) + ";\n")
            qfiles.append(path)
        r = pgbench(sh, qfiles, 64, args.tpch_seconds)
        print(f"tpch     simple    64 clients  {sh.name:14} {r['done']} queries in {args.tpch_seconds} s"
              f" ({r['tps']:.1f}/s), failed {r['failed']}, errors {r['errors']}", flush=True)
        print("\n| workload | protocol | clients | Slicehouse tps | PostgreSQL 15 tps | ratio |")
        print("|---|---|---:|---:|---:|---:|")
        for workload, mode in [("select1", "simple"), ("select1", "prepared"), ("point", "simple"), ("point", "prepared")]:
            for c in CLIENTS:
                a = results[(workload, mode, c, "Slicehouse")]["tps"]
                b = results[(workload, mode, c, "PostgreSQL 15")]["tps"]
                label = "`select 1`" if workload == "select1" else "point query"
                print(f"| {label} | {mode} | {c} | {a:,.0f} | {b:,.0f} | {a / b if b else 0:.2f}× |")
        print("\n| single-row INSERT, autocommit | clients | Slicehouse tps | PostgreSQL 15 tps | ratio |")
        print("|---|---:|---:|---:|---:|")
        for c in INSERT_CLIENTS:
            a = results[("insert", "simple", c, "Slicehouse")]["tps"]
            b = results[("insert", "simple", c, "PostgreSQL 15")]["tps"]
            print(f"| one table | {c} | {a:,.0f} | {b:,.0f} | {a / b if b else 0:.2f}× |")
        if r["failed"] or r["errors"]:
            print(r["output"], file=sys.stderr)
            return 1
        bad = [k for k, v in results.items() if v["failed"] or v["errors"]]
        if bad:
            print(f"errors in {bad}", file=sys.stderr)
            return 1
        return 0
    finally:
        for s in servers:
            try:
                s.stop()
            except Exception as e:  # keep stopping the others
                print(f"stopping {s.name}: {e}", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
