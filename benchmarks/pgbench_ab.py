#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two `slicehouse` binaries side by side on pgbench's round trips, interleaved so that
load on the host falls on both alike (pgbench.py measures one binary against
PostgreSQL; this compares a change with its base).

    python3 benchmarks/pgbench_ab.py BASE_BIN NEW_BIN [--seconds 10] [--rounds 2] [--clients 64]

For `select 1` and the point query of pgbench.py, simple and prepared, at each client
count: `rounds` runs of each binary, alternating which goes first; prints each one's mean
transactions per second, the runs, and new / base.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgbench as pb  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--clients", default="64", help="comma-separated client counts")
    args = ap.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    work = tempfile.mkdtemp(prefix="pgbench-ab-")
    os.chmod(work, 0o755)
    scripts = {}
    for name, text in [("select1", "select 1;\n"),
                       ("point", "\\set id random(1, 1000)\nselect balance from accounts where id = :id;\n")]:
        path = os.path.join(work, f"{name}.sql")
        with open(path, "w") as f:
            f.write(text)
        scripts[name] = path
    servers = {}
    try:
        for key, binary in (("base", args.base), ("new", args.new)):
            directory = os.path.join(work, key)
            os.makedirs(directory)
            servers[key] = pb.Slicehouse(binary, directory)
            pb.psql(servers[key], "create table accounts (id int, balance int)")
            pb.psql(servers[key], "insert into accounts values "
                    + ", ".join(f"({i}, {i * 10})" for i in range(1, 1001)))
        failed = False
        for workload, mode in [("select1", "simple"), ("select1", "prepared"), ("point", "simple"), ("point", "prepared")]:
            for c in clients:
                tps = {"base": [], "new": []}
                for r in range(args.rounds):
                    for key in (("base", "new") if r % 2 == 0 else ("new", "base")):
                        x = pb.pgbench(servers[key], [scripts[workload]], c, args.seconds, mode)
                        tps[key].append(x["tps"])
                        if x["failed"] or x["errors"]:
                            failed = True
                            print(f"{key}: {x['failed']} failed, {x['errors']} errors", file=sys.stderr)
                b, n = statistics.mean(tps["base"]), statistics.mean(tps["new"])
                print(f"{workload:8} {mode:8} {c:3} clients  base {b:8.0f} {[round(v) for v in tps['base']]}"
                      f"  new {n:8.0f} {[round(v) for v in tps['new']]}  new/base {n / b:.3f}", flush=True)
        return 1 if failed else 0
    finally:
        for s in servers.values():
            s.stop()


if __name__ == "__main__":
    sys.exit(main())
